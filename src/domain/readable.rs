//! Invariants for people: a disjunction of constraint systems printed as a short
//! C expression that is equivalent on the integer points within the dimensions' ranges.
//!
//! Printing only: nothing here changes what an analysis computes or certifies. The steps,
//! each an equivalence on the integer points of the range box:
//! 1. a disjunct included in another is dropped;
//! 2. two disjuncts whose convex hull adds no integer point are replaced by the hull (the
//!    hull `H` of `P` and `Q` is exact when `H ∧ ¬c ⊆ Q` for every constraint `c` of `P`
//!    that `H` does not entail, with `¬(e ≥ 0)` read over integers as `-e - 1 ≥ 0`);
//! 3. an inequality is rewritten with an equality of its disjunct when that makes its
//!    coefficients smaller, and divided by the gcd of its coefficients (integer tightening);
//! 4. a constraint implied by the ranges (the machine range of each dimension, narrowed by
//!    the disjunct's own bounds on single dimensions) is dropped: `x >= -2147483648` of an
//!    `int`, `u <= 4294967295`; so is an inequality with a large coefficient that the
//!    ranges and the constraints kept imply (a polyhedron test, for at most 8 dimensions);
//! 5. constraints common to every disjunct are printed once, before the disjunction.
//!
//! When a polyhedron operation runs out of its budget, the disjuncts are printed as they
//! came (minus step 4, which needs no polyhedron).

use super::linear::{ConsKind, Int, Interval, LinCons, LinExpr, Space, Var};
use super::poly::{Budget, Polyhedron};
use super::Lattice as _;
use num_integer::Integer as _;
use num_traits::{One, Signed, Zero};
use std::collections::BTreeMap;

/// Disjuncts merged at most (pairs are tried, so the cost is quadratic).
const MAX_MERGED_DISJUNCTS: usize = 24;
/// Dimensions mentioned at most for the polyhedron steps (1 and 2): a guard on the cost of
/// the conversions these steps make.
const MAX_MERGED_DIMS: usize = 24;

/// A small budget per polyhedron operation: printing must cost little next to the analysis.
fn budget() -> Budget {
    Budget {
        max_rows: 2_000,
        max_bits: 256,
        max_work: 200_000,
        stoppable: false,
    }
}

/// Prints `disjuncts` (an empty list is `false`, an empty disjunct `true`) with the names of
/// `space`; `ranges[i]` is the range every value of dimension `i` lies in (missing: any).
/// Every dimension must be integer-valued.
pub fn readable_invariant(
    disjuncts: &[Vec<LinCons>],
    space: &Space,
    ranges: &[Interval],
) -> String {
    // Work over the dimensions the constraints mention only.
    let mut used: Vec<Var> = disjuncts
        .iter()
        .flatten()
        .flat_map(|c| c.expr.vars())
        .collect();
    used.sort();
    used.dedup();
    let local: BTreeMap<Var, Var> = used
        .iter()
        .enumerate()
        .map(|(i, v)| (*v, Var(i as u32)))
        .collect();
    let to_local = |c: &LinCons| LinCons {
        expr: c.expr.rename(|v| local[&v]),
        kind: c.kind,
    };
    let local_disjuncts: Vec<Vec<LinCons>> = disjuncts
        .iter()
        .map(|d| d.iter().map(to_local).collect())
        .collect();
    let names = Space::named(used.iter().map(|v| space.name(*v).to_string()).collect());
    let top = Interval::top();
    let local_ranges: Vec<Interval> = used
        .iter()
        .map(|v| ranges.get(v.index()).unwrap_or(&top).clone())
        .collect();
    let merged = if local_disjuncts.len() <= MAX_MERGED_DISJUNCTS && used.len() <= MAX_MERGED_DIMS {
        merge(&local_disjuncts, used.len()).unwrap_or(local_disjuncts)
    } else {
        local_disjuncts
    };
    let simplified: Vec<Vec<LinCons>> = merged.iter().map(|d| simplify(d, &local_ranges)).collect();
    print(&simplified, &names)
}

/// Steps 1 and 2; `None` when a polyhedron ran out of its budget.
fn merge(disjuncts: &[Vec<LinCons>], dim: usize) -> Option<Vec<Vec<LinCons>>> {
    let mut polys: Vec<Polyhedron> = Vec::new();
    for d in disjuncts {
        let mut p = Polyhedron::universe(dim, budget());
        p.try_meet_cons(d).ok()?;
        if !p.is_bottom() {
            polys.push(p);
        }
    }
    drop_included(&mut polys);
    let mut i = 0;
    while i < polys.len() {
        let mut merged = false;
        for j in i + 1..polys.len() {
            let hull = polys[i].try_join(&polys[j]).ok()?;
            if hull_is_exact(&hull, &polys[i], &polys[j]) {
                polys[i] = hull;
                polys.remove(j);
                merged = true;
                break;
            }
        }
        if merged {
            drop_included(&mut polys);
            i = 0;
        } else {
            i += 1;
        }
    }
    Some(polys.iter().map(Polyhedron::to_cons_vec).collect())
}

/// Drops each polyhedron included in another (of two equal ones, the later).
fn drop_included(polys: &mut Vec<Polyhedron>) {
    let mut k = 0;
    while k < polys.len() {
        let included = (0..polys.len()).any(|j| {
            j != k && polys[k].is_leq_impl(&polys[j]) && (j < k || !polys[j].is_leq_impl(&polys[k]))
        });
        if included {
            polys.remove(k);
        } else {
            k += 1;
        }
    }
}

/// Whether every integer point of `hull` is in `p` or in `q`.
fn hull_is_exact(hull: &Polyhedron, p: &Polyhedron, q: &Polyhedron) -> bool {
    for c in p.to_cons_vec() {
        let sides: Vec<LinExpr> = match c.kind {
            ConsKind::Ge => vec![c.expr.clone()],
            ConsKind::Eq => vec![c.expr.clone(), c.expr.negated()],
        };
        for e in sides {
            // The integer points of the hull outside `e >= 0`: `-e - 1 >= 0`.
            let mut outside = e.negated();
            outside.add_constant(-1);
            let mut part = hull.clone();
            if part
                .try_meet_cons(&[LinCons {
                    expr: outside,
                    kind: ConsKind::Ge,
                }])
                .is_err()
            {
                return false;
            }
            if !part.is_bottom() && !part.is_leq_impl(q) {
                return false;
            }
        }
    }
    true
}

/// Steps 3 and 4 on one disjunct.
fn simplify(disjunct: &[LinCons], ranges: &[Interval]) -> Vec<LinCons> {
    let equalities: Vec<&LinCons> = disjunct.iter().filter(|c| c.kind == ConsKind::Eq).collect();
    let cons: Vec<LinCons> = disjunct
        .iter()
        .map(|c| match c.kind {
            ConsKind::Eq => c.clone(),
            ConsKind::Ge => tighten(&reduce_by_equalities(c, &equalities)),
        })
        .collect();
    // The ranges narrowed by the disjunct's bounds on single dimensions.
    let mut narrowed: Vec<Interval> = ranges.to_vec();
    for c in &cons {
        if let Some((v, itv)) = single_bound(c) {
            if let Some(slot) = narrowed.get_mut(v.index()) {
                *slot = intersect(slot, &itv);
            }
        }
    }
    let kept: Vec<LinCons> = cons
        .into_iter()
        .filter(|c| {
            if c.kind == ConsKind::Eq {
                return true;
            }
            // A bound on one dimension goes only when the range alone implies it (the
            // narrowed box is made of the bounds that stay).
            let box_ = if single_bound(c).is_some() {
                ranges
            } else {
                &narrowed[..]
            };
            !implied_by_box(c, box_)
        })
        .collect();
    drop_large_implied(kept, ranges)
}

/// Coefficients from which an inequality counts as large.
const LARGE_COEFFICIENT: i64 = 1000;
/// Dimensions of a disjunct at most for the polyhedron redundancy test (its range box has
/// `2^n` vertices).
const MAX_BOX_DIMS: usize = 8;

/// Drops each inequality with a large coefficient or constant that the ranges and the
/// constraints kept imply (hull facets through the corners of the range box, such as
/// `1600*u + 567794676399*i <= 6871947672000`, are often implied by the others).
fn drop_large_implied(mut cons: Vec<LinCons>, ranges: &[Interval]) -> Vec<LinCons> {
    let mut dims: Vec<Var> = cons.iter().flat_map(|c| c.expr.vars()).collect();
    dims.sort();
    dims.dedup();
    if dims.len() > MAX_BOX_DIMS {
        return cons;
    }
    let large = Int::from(LARGE_COEFFICIENT);
    let is_large = |c: &LinCons| {
        c.kind == ConsKind::Ge
            && (c.expr.terms().any(|(_, a)| a.abs() >= large)
                || c.expr.constant_part().abs() >= &large * &large * &large)
    };
    let mut box_cons = Vec::new();
    for v in &dims {
        let Some(range) = ranges.get(v.index()) else {
            continue;
        };
        let (lo, hi) = range.int_hull();
        if let Some(lo) = lo {
            box_cons.push(LinCons::ge(&LinExpr::var(*v), &LinExpr::constant(lo)));
        }
        if let Some(hi) = hi {
            box_cons.push(LinCons::le(&LinExpr::var(*v), &LinExpr::constant(hi)));
        }
    }
    // The largest first: they are the least readable.
    let mut order: Vec<usize> = (0..cons.len()).filter(|i| is_large(&cons[*i])).collect();
    order.sort_by_key(|i| std::cmp::Reverse(weight(&cons[*i].expr).0));
    let mut dropped = vec![false; cons.len()];
    for i in order {
        let mut rest = Polyhedron::universe(ranges.len(), budget());
        let others: Vec<LinCons> = cons
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i && !dropped[*j])
            .map(|(_, c)| c.clone())
            .chain(box_cons.iter().cloned())
            .collect();
        if rest.try_meet_cons(&others).is_err() {
            continue;
        }
        if rest.entails_impl(&cons[i]) == super::Entailment::Holds {
            dropped[i] = true;
        }
    }
    let mut k = 0;
    cons.retain(|_| {
        k += 1;
        !dropped[k - 1]
    });
    cons
}

/// `e >= 0` rewritten as `|q_v|·e - sign(q_v)·e_v·q >= 0` with an equality `q = 0` that
/// shares a dimension `v` with it, whenever that lowers the sum of the coefficients'
/// magnitudes; repeated while it helps.
fn reduce_by_equalities(c: &LinCons, equalities: &[&LinCons]) -> LinCons {
    let mut best = c.expr.clone();
    for _ in 0..8 {
        let mut improved = false;
        for q in equalities {
            for (v, qv) in q.expr.terms() {
                let ev = best.coeff(v);
                if ev.is_zero() {
                    continue;
                }
                let scale = qv.abs();
                let factor = if qv.is_negative() {
                    ev.clone()
                } else {
                    -ev.clone()
                };
                let candidate = normalize(&best.scaled(&scale).plus(&q.expr.scaled(&factor)));
                if weight(&candidate) < weight(&best) {
                    best = candidate;
                    improved = true;
                }
            }
        }
        if !improved {
            break;
        }
    }
    LinCons {
        expr: best,
        kind: ConsKind::Ge,
    }
}

/// Divides an expression by the gcd of its coefficients and constant (an exact scaling).
fn normalize(e: &LinExpr) -> LinExpr {
    let mut g = e.constant_part().abs();
    for (_, a) in e.terms() {
        g = g.gcd(a);
    }
    if g.is_zero() || g.is_one() {
        return e.clone();
    }
    let mut out = LinExpr::constant(e.constant_part() / &g);
    for (v, a) in e.terms() {
        out.add_term(a / &g, v);
    }
    out
}

/// The sum of the coefficients' magnitudes (the constant's counts less).
fn weight(e: &LinExpr) -> (Int, usize) {
    let sum = e.terms().fold(Int::zero(), |acc, (_, a)| acc + a.abs());
    (sum, e.terms().count())
}

/// Integer tightening of `e >= 0`: divided by the gcd of its coefficients, the constant
/// rounded down.
fn tighten(c: &LinCons) -> LinCons {
    let mut g = Int::zero();
    for (_, a) in c.expr.terms() {
        g = g.gcd(a);
    }
    if g <= Int::one() {
        return c.clone();
    }
    let mut e = LinExpr::constant(c.expr.constant_part().div_floor(&g));
    for (v, a) in c.expr.terms() {
        e.add_term(a / &g, v);
    }
    LinCons {
        expr: e,
        kind: ConsKind::Ge,
    }
}

/// For `a·v + b >= 0`, the dimension and the bound it sets.
fn single_bound(c: &LinCons) -> Option<(Var, Interval)> {
    let mut terms = c.expr.terms();
    let (v, a) = terms.next()?;
    if terms.next().is_some() {
        return None;
    }
    let bound = num_rational::BigRational::new(-c.expr.constant_part().clone(), a.clone());
    if c.kind == ConsKind::Eq {
        return Some((v, Interval::point(bound)));
    }
    Some(if a.is_positive() {
        (
            v,
            Interval {
                lo: Some(bound),
                hi: None,
            },
        )
    } else {
        (
            v,
            Interval {
                lo: None,
                hi: Some(bound),
            },
        )
    })
}

fn intersect(a: &Interval, b: &Interval) -> Interval {
    let lo = match (&a.lo, &b.lo) {
        (Some(x), Some(y)) => Some(x.max(y).clone()),
        (x, y) => x.clone().or_else(|| y.clone()),
    };
    let hi = match (&a.hi, &b.hi) {
        (Some(x), Some(y)) => Some(x.min(y).clone()),
        (x, y) => x.clone().or_else(|| y.clone()),
    };
    Interval { lo, hi }
}

/// Whether `e >= 0` holds on the whole box.
fn implied_by_box(c: &LinCons, ranges: &[Interval]) -> bool {
    let mut min = num_rational::BigRational::from_integer(c.expr.constant_part().clone());
    for (v, a) in c.expr.terms() {
        let Some(range) = ranges.get(v.index()) else {
            return false;
        };
        let end = if a.is_positive() {
            &range.lo
        } else {
            &range.hi
        };
        match end {
            Some(x) => min += x * num_rational::BigRational::from_integer(a.clone()),
            None => return false,
        }
    }
    !min.is_negative()
}

/// Step 5 and the text.
fn print(disjuncts: &[Vec<LinCons>], space: &Space) -> String {
    let texts: Vec<Vec<String>> = disjuncts
        .iter()
        .map(|d| {
            // Equalities first, then the rest in the domain's order.
            let mut d: Vec<&LinCons> = d.iter().collect();
            d.sort_by_key(|c| c.kind);
            d.iter().map(|c| c.display(space).to_string()).collect()
        })
        .collect();
    match texts.as_slice() {
        [] => "false".to_string(),
        [single] => conjunction(single),
        several => {
            let common: Vec<String> = several[0]
                .iter()
                .filter(|c| several[1..].iter().all(|d| d.contains(c)))
                .cloned()
                .collect();
            let mut rests: Vec<String> = several
                .iter()
                .map(|d| {
                    let rest: Vec<String> =
                        d.iter().filter(|c| !common.contains(c)).cloned().collect();
                    conjunction(&rest)
                })
                .collect();
            rests.sort();
            rests.dedup();
            if rests.iter().any(|r| r == "true") {
                return conjunction(&common);
            }
            let disjunction = rests
                .iter()
                .map(|r| {
                    if r.contains(" && ") {
                        format!("({r})")
                    } else {
                        r.clone()
                    }
                })
                .collect::<Vec<_>>()
                .join(" || ");
            if common.is_empty() {
                disjunction
            } else {
                format!("{} && ({disjunction})", common.join(" && "))
            }
        }
    }
}

fn conjunction(parts: &[String]) -> String {
    if parts.is_empty() {
        "true".to_string()
    } else {
        parts.join(" && ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn x(i: u32) -> LinExpr {
        LinExpr::var(Var(i))
    }
    fn k(c: i64) -> LinExpr {
        LinExpr::constant(c)
    }
    fn i32_range() -> Interval {
        Interval::ints(-(1i64 << 31), (1i64 << 31) - 1)
    }

    #[test]
    fn type_ranges_and_their_combinations_are_dropped() {
        let space = Space::named(vec!["key".into(), "lo".into(), "u".into()]);
        let u32_range = Interval::ints(0, (1i64 << 32) - 1);
        let d = vec![
            LinCons::ge(&x(0), &k(-(1i64 << 31))),
            LinCons::le(&x(2), &k((1i64 << 32) - 1)),
            // With lo == 0, 100*key - lo >= -214748364800 is key >= -2^31: the range.
            LinCons::ge(&x(1), &k(0)),
            LinCons::le(&x(1), &k(0)),
            LinCons::ge(
                &x(0).scaled(&Int::from(100)).minus(&x(1)),
                &k(-214748364800),
            ),
        ];
        let text = readable_invariant(&[d], &space, &[i32_range(), i32_range(), u32_range]);
        assert_eq!(text, "lo == 0");
    }

    #[test]
    fn adjacent_disjuncts_merge_and_common_conjuncts_print_once() {
        let space = Space::named(vec!["i".into(), "n".into()]);
        let ranges = [i32_range(), i32_range()];
        // (n - i == 0 && 0 <= i <= 10) || (n - i == 1 && 0 <= i <= 9)
        //   == 0 <= n - i <= 1 && 0 <= i && n <= 10 on integers.
        let a = vec![
            LinCons::eq(&x(1), &x(0)),
            LinCons::ge(&x(0), &k(0)),
            LinCons::le(&x(0), &k(10)),
        ];
        let b = vec![
            LinCons::eq(&x(1).minus(&x(0)), &k(1)),
            LinCons::ge(&x(0), &k(0)),
            LinCons::le(&x(0), &k(9)),
        ];
        let text = readable_invariant(&[a.clone(), b], &space, &ranges);
        assert!(!text.contains("||"), "{text}");
        // Not adjacent: i == 0 || i == 5 stays a disjunction, with n == 3 printed once.
        let c = vec![LinCons::eq(&x(0), &k(0)), LinCons::eq(&x(1), &k(3))];
        let d = vec![LinCons::eq(&x(0), &k(5)), LinCons::eq(&x(1), &k(3))];
        let text = readable_invariant(&[c, d], &space, &ranges);
        assert_eq!(text, "n == 3 && (i == 0 || i == 5)");
        // An included disjunct goes.
        let e = vec![LinCons::eq(&x(1), &x(0)), LinCons::eq(&x(0), &k(4))];
        let text = readable_invariant(&[e, a], &space, &ranges);
        assert_eq!(text, "i - n == 0 && n >= 0 && n <= 10");
    }

    #[test]
    fn large_facets_implied_by_the_ranges_and_the_rest_go() {
        let space = Space::named(vec!["i".into(), "u".into()]);
        let u32_range = Interval::ints(0, (1i64 << 32) - 1);
        // 0 <= i <= 10, u <= 100 make 1600*u + 567794676399*i <= 6871947672000 hold.
        let big = LinCons::le(
            &x(1)
                .scaled(&Int::from(1600))
                .plus(&x(0).scaled(&Int::from(567794676399i64))),
            &k(6871947672000),
        );
        let d = vec![
            LinCons::ge(&x(0), &k(0)),
            LinCons::le(&x(0), &k(10)),
            LinCons::le(&x(1), &k(100)),
            big.clone(),
        ];
        let text = readable_invariant(&[d], &space, &[i32_range(), u32_range.clone()]);
        assert_eq!(text, "i >= 0 && i <= 10 && u <= 100");
        // Without the bound on u it is the state's own: it stays.
        let d = vec![LinCons::ge(&x(0), &k(0)), LinCons::le(&x(0), &k(10)), big];
        let text = readable_invariant(&[d], &space, &[i32_range(), u32_range]);
        assert!(text.contains("567794676399*i"), "{text}");
    }

    #[test]
    fn coefficients_shrink_with_equalities_and_gcd() {
        let space = Space::named(vec!["a".into(), "b".into()]);
        // a == b && 3a + 3b <= 7  ->  a <= 1 (3a+3b = 6a, over integers a <= 1).
        let d = vec![
            LinCons::eq(&x(0), &x(1)),
            LinCons::le(
                &x(0).scaled(&Int::from(3)).plus(&x(1).scaled(&Int::from(3))),
                &k(7),
            ),
        ];
        let text = readable_invariant(&[d], &space, &[]);
        assert!(text.starts_with("a - b == 0 && "), "{text}");
        assert!(
            text.ends_with("a <= 1") || text.ends_with("b <= 1"),
            "{text}"
        );
        assert_eq!(readable_invariant(&[], &space, &[]), "false");
        assert_eq!(readable_invariant(&[vec![]], &space, &[]), "true");
    }
}
