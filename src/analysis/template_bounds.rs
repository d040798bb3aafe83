//! Bounds of linear templates at cut points: per cut point, intervals of a few
//! linear forms of the values live there (each value, `x ± y`, `c·x - y` and `x - c·y` for
//! the small divisors `c` of the function), found by the solver on the exact formula.
//!
//! `for (i = 0; i < 2*k; i++) if (i % 2 == 0) n++;` keeps `0 <= 2n - i <= 1`. The bound
//! is inductive over the integers only because `2n - i` and `i` have the same parity: the
//! rational polyhedra see `2n - i` move by `+1` or `-1` on paths they cannot tell apart,
//! and widen it away; the congruence lattices see no affine relation. The solver reads
//! `i % 2` exactly, so the same solver-guided ascent as the relational congruences
//! (`ascent.rs`, [`super::relational_congruence`]) finds it: a model of a path from the
//! engine's invariant (and the congruences and these bounds) at `p` that leaves some
//! template of `q` outside its interval is a state some path reaches; its templates are
//! joined into `q`'s intervals until no edge finds such a point (hola 34, 38 and 46,
//! loop-new/half and pagai's trip_count are of this kind).
//!
//! **Termination** is by widening with thresholds: past [`MAX_MOVES`] moves, a bound
//! jumps to the nearest of a few [`THRESHOLDS`] past the model at each move (`x - y <= -1`,
//! then `x - y <= 0`, ...), and is dropped when none is: a bound moves finitely often.
//! **Soundness** is as for the lattices: the fixpoint ends only when every edge's query is
//! unsat with the final intervals, so they are inductive next to the engine's invariants
//! and the congruences, which are inductive on their own; a solver `unknown` drops every
//! bound of the target, and an analysis that runs out of time returns nothing.
//! [`certify`] checks the result again (`tests/inductive.rs`).

use super::ascent::{ascend, CutValue};
use super::certify::{Certificate, CutInvariants};
use super::relevance::Relevance;
use super::FunctionContext;
use crate::domain::{Int, LinCons};
use crate::graph::{CutKind, CutPointId};
use crate::ir::{BinOp, Expr, Inst, Operand, ValueId};
use crate::smt::SideFact;
use num_traits::{One, Zero};
use std::collections::BTreeSet;
use std::time::Duration;

pub use super::ascent::Limits;

/// The values a cut point's templates range over, at most (the live ones nearest to the
/// open error sites, [`Relevance`]).
/// This and the three limits below are fixed limits of the stage: its templates grow
/// quadratically with the values, and each bound found costs solver queries.
const MAX_VALUES: usize = 10;
/// Templates per cut point, at most.
const MAX_TEMPLATES: usize = 128;
/// The largest coefficient `c` of `c·x - y` (taken from the function's divisors).
const MAX_COEF: u128 = 16;
/// Moves of one bound past its first value before it widens (the widening).
const MAX_MOVES: u8 = 1;
/// Where a bound that moves past [`MAX_MOVES`] goes, the nearest past the model at each
/// later move, before it is dropped (widening with thresholds): a template that keeps
/// growing toward `x - y <= 0` or `i - n <= -1`, a model at a time, stops at the bound
/// instead of being dropped, even when a model first lands it on a threshold below the
/// bound (`-1` where `0` holds). Ascending.
const THRESHOLDS: [i64; 3] = [-1, 0, 1];

/// One linear form with its interval.
#[derive(Clone, Debug)]
struct Template {
    terms: Vec<(ValueId, Int)>,
    lo: Option<Int>,
    hi: Option<Int>,
    lo_moves: u8,
    hi_moves: u8,
}

impl Template {
    fn value(&self, values: &[ValueId], point: &[Int]) -> Int {
        self.terms
            .iter()
            .map(|(v, k)| {
                let i = values.iter().position(|w| w == v).expect("a tracked value");
                k * &point[i]
            })
            .sum()
    }

    fn fact(&self) -> Option<SideFact> {
        if self.lo.is_none() && self.hi.is_none() {
            return None;
        }
        Some(SideFact::Bounds {
            terms: self.terms.clone(),
            lo: self.lo.clone(),
            hi: self.hi.clone(),
        })
    }

    /// Widens the interval to `t`; true when it changed.
    fn join(&mut self, t: &Int) -> bool {
        let mut changed = false;
        if let Some(lo) = &self.lo {
            if t < lo {
                changed = true;
                self.lo_moves += 1;
                self.lo = if self.lo_moves <= MAX_MOVES {
                    Some(t.clone())
                } else {
                    // Past its moves, the bound jumps to the next threshold below.
                    THRESHOLDS
                        .iter()
                        .rev()
                        .map(|&k| Int::from(k))
                        .find(|k| k <= t)
                };
            }
        }
        if let Some(hi) = &self.hi {
            if t > hi {
                changed = true;
                self.hi_moves += 1;
                self.hi = if self.hi_moves <= MAX_MOVES {
                    Some(t.clone())
                } else {
                    // Past its moves, the bound jumps to the next threshold above.
                    THRESHOLDS.iter().map(|&k| Int::from(k)).find(|k| k >= t)
                };
            }
        }
        changed
    }
}

/// The templates of one cut point.
#[derive(Clone, Debug)]
struct CutBounds {
    values: Vec<ValueId>,
    templates: Vec<Template>,
    /// Whether some state reached the cut point (before, every template is empty).
    reached: bool,
}

impl CutValue for CutBounds {
    fn values(&self) -> &[ValueId] {
        &self.values
    }

    fn is_bottom(&self) -> bool {
        !self.reached
    }

    fn is_top(&self) -> bool {
        self.reached
            && self
                .templates
                .iter()
                .all(|t| t.lo.is_none() && t.hi.is_none())
    }

    fn facts(&self) -> Vec<SideFact> {
        if !self.reached {
            return vec![SideFact::Linear {
                terms: vec![],
                residue: Int::one(),
                modulus: Int::zero(),
            }];
        }
        self.templates.iter().filter_map(Template::fact).collect()
    }

    fn join_point(&mut self, point: &[Int]) -> bool {
        if !self.reached {
            self.reached = true;
            for t in &mut self.templates {
                let x = t.value(&self.values, point);
                t.lo = Some(x.clone());
                t.hi = Some(x);
            }
            return true;
        }
        let mut changed = false;
        for t in &mut self.templates {
            let x = t.value(&self.values, point);
            changed |= t.join(&x);
        }
        changed
    }

    fn forget(&mut self) {
        self.reached = true;
        for t in &mut self.templates {
            t.lo = None;
            t.hi = None;
        }
    }
}

/// The template bounds of a function's cut points.
#[derive(Clone, Debug)]
pub struct TemplateBounds {
    at: Vec<CutBounds>,
}

impl TemplateBounds {
    /// The bounds at cut point `p` (a false fact when no execution reaches it).
    pub fn facts_at(&self, p: CutPointId) -> Vec<SideFact> {
        self.at[p.index()].facts()
    }

    /// How many bounds all the cut points hold (for the report).
    pub fn count(&self) -> usize {
        self.at
            .iter()
            .flat_map(|c| &c.templates)
            .map(|t| usize::from(t.lo.is_some()) + usize::from(t.hi.is_some()))
            .sum()
    }

    /// The bounds at `p` as text over the values' ids, for tests and debugging.
    pub fn describe(&self, p: CutPointId) -> Vec<String> {
        let cut = &self.at[p.index()];
        cut.templates
            .iter()
            .filter(|t| t.lo.is_some() || t.hi.is_some())
            .map(|t| {
                let form: Vec<String> = t
                    .terms
                    .iter()
                    .map(|(v, k)| format!("{k}*v{}", v.0))
                    .collect();
                let show = |b: &Option<Int>| b.as_ref().map_or("_".into(), |b| b.to_string());
                format!("{} <= {} <= {}", show(&t.lo), form.join(" + "), show(&t.hi))
            })
            .collect()
    }
}

/// The coefficients of the pair templates: 1 and the small constant divisors of the
/// function (`x % 4`, `x / 2`, `x & 3`, `x >> 2`), whose parities the solver reads.
fn coefficients(ctx: &FunctionContext<'_>) -> Vec<Int> {
    let mut cs: BTreeSet<u128> = BTreeSet::from([1]);
    for inst in ctx.func().blocks.iter().flat_map(|b| &b.insts) {
        let Inst::Assign {
            expr:
                Expr::Binary {
                    op,
                    rhs: Operand::Const(c),
                    ..
                },
            ..
        } = inst
        else {
            continue;
        };
        let c = c.unsigned();
        let divisor = match op {
            BinOp::SRem | BinOp::URem | BinOp::SDiv | BinOp::UDiv => Some(c),
            BinOp::And if (c + 1).is_power_of_two() => Some(c + 1),
            BinOp::LShr | BinOp::AShr | BinOp::Shl if c < 5 => Some(1u128 << c),
            _ => None,
        };
        if let Some(d) = divisor.filter(|d| (2..=MAX_COEF).contains(d)) {
            cs.insert(d);
        }
    }
    cs.into_iter().map(Int::from).collect()
}

/// The templates over `values`: each value, then per pair `x - y`, `x + y` and, per
/// coefficient `c > 1`, `c·x - y` and `x - c·y`; at most [`MAX_TEMPLATES`].
fn templates(values: &[ValueId], coefs: &[Int]) -> Vec<Template> {
    let mk = |terms: Vec<(ValueId, Int)>| Template {
        terms,
        lo: None,
        hi: None,
        lo_moves: 0,
        hi_moves: 0,
    };
    let mut res: Vec<Template> = values.iter().map(|v| mk(vec![(*v, Int::one())])).collect();
    let minus = -Int::one();
    for (i, x) in values.iter().enumerate() {
        for y in &values[i + 1..] {
            res.push(mk(vec![(*x, Int::one()), (*y, minus.clone())]));
            res.push(mk(vec![(*x, Int::one()), (*y, Int::one())]));
            for c in coefs.iter().filter(|c| !c.is_one()) {
                res.push(mk(vec![(*x, c.clone()), (*y, minus.clone())]));
                res.push(mk(vec![(*x, Int::one()), (*y, -c.clone())]));
            }
        }
    }
    res.truncate(MAX_TEMPLATES);
    res
}

/// Computes the template bounds of every cut point, next to the engine's `invariants` (one
/// disjunction per cut point, `None` where the engine found no state) and the facts
/// `known(p)` true of every execution at `p` (the congruences), over the values of each cut
/// point most `relevant` to the open error sites. `None` when the deadline passed before
/// the fixpoint.
pub fn analyze(
    ctx: &FunctionContext<'_>,
    invariants: &[Option<Vec<Vec<LinCons>>>],
    known: &dyn Fn(CutPointId) -> Vec<SideFact>,
    relevant: &Relevance,
    limits: Limits,
) -> Option<TemplateBounds> {
    let graph = ctx.graph();
    let func = ctx.func();
    let coefs = coefficients(ctx);
    let at: Vec<CutBounds> = graph
        .ids()
        .map(|p| {
            let values: Vec<ValueId> = relevant.nearest(
                ctx.live_at(graph.cut_point(p).block)
                    .iter()
                    .copied()
                    .filter(|v| !func.value(*v).ty.is_bool()),
                MAX_VALUES,
            );
            let mut cut = CutBounds {
                templates: templates(&values, &coefs),
                values,
                reached: false,
            };
            if graph.cut_point(p).kind == CutKind::Entry {
                cut.forget();
            }
            cut
        })
        .collect();
    let at = ascend(ctx, invariants, known, at, limits)?;
    Some(TemplateBounds { at })
}

/// Checks with the solver that the bounds are inductive next to the linear `invariants`
/// and the facts `known(p)` (consecution on the exact formula), independently of how
/// [`analyze`] found them. Initiation holds at the entry, whose templates have no bound.
pub fn certify(
    ctx: &FunctionContext<'_>,
    invariants: &CutInvariants,
    known: &dyn Fn(CutPointId) -> Vec<SideFact>,
    bounds: &TemplateBounds,
    timeout: Duration,
) -> Certificate {
    super::certify::certify_side_facts(
        ctx,
        invariants,
        bounds.at.len(),
        known,
        &|q| bounds.facts_at(q),
        timeout,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(x: i64) -> Template {
        Template {
            terms: vec![(ValueId(0), Int::one())],
            lo: Some(Int::from(x)),
            hi: Some(Int::from(x)),
            lo_moves: 0,
            hi_moves: 0,
        }
    }

    #[test]
    fn a_bound_moves_once_then_climbs_the_thresholds_then_is_dropped() {
        let mut t = at(-5);
        assert!(t.join(&Int::from(-3)));
        assert_eq!(t.hi, Some(Int::from(-3)));
        // Past its move: the next threshold above, `-1`, not the model's `-2`.
        assert!(t.join(&Int::from(-2)));
        assert_eq!(t.hi, Some(Int::from(-1)));
        assert!(!t.join(&Int::from(-1)), "inside the interval: no change");
        assert!(t.join(&Int::from(0)));
        assert_eq!(t.hi, Some(Int::from(0)), "the next threshold, not a drop");
        assert!(t.join(&Int::from(2)));
        assert_eq!(t.hi, None, "past every threshold: dropped");
        assert_eq!(t.lo, Some(Int::from(-5)), "the other side did not move");
    }

    #[test]
    fn a_lower_bound_jumps_down_and_a_value_past_every_threshold_is_dropped() {
        let mut t = at(5);
        assert!(t.join(&Int::from(3)));
        assert!(t.join(&Int::from(2)));
        assert_eq!(t.lo, Some(Int::from(1)), "the next threshold below 2");
        let mut u = at(5);
        u.join(&Int::from(6));
        u.join(&Int::from(7));
        assert_eq!(u.hi, None, "no threshold above 7");
    }
}
