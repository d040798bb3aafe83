//! The interval (box) domain: one rational interval per dimension.
//!
//! γ(b) = { x ∈ ℚⁿ | ∀i. lo_i ≤ x_i ≤ hi_i }. Constraints with several variables are
//! propagated one variable at a time (each variable bounded by the bounds of the others),
//! repeated a few rounds: sound, not always the tightest box.
//!
//! A box is stored in chunks of [`CHUNK`] intervals shared between copies (copy on write):
//! a function of ten thousand values has boxes of ten thousand intervals at each of its
//! thousands of blocks, and a block changes only the few values it defines. Copying a box
//! then copies pointers, and joining, comparing or widening two boxes that share a chunk
//! takes the shared chunk as it is (each of these operations gives back its operand on
//! two equal operands). On brotli's largest functions this is what the interval stage's
//! time went to. Each chunk also has a bit per interval that is not top, so that
//! forgetting the dimensions of dead values, joining and comparing visit only the bounded
//! ones (most of a large function's are not).

use super::linear::{ConsKind, Int, Interval, LinCons, LinExpr, Rat, Space, Var};
use super::varset::BitIter;
use super::{Entailment, Lattice, NumericDomain, VarSet};
use num_traits::{Signed, Zero};
use std::sync::Arc;

/// Intervals per shared chunk of a box: one word of a [`VarSet`] per chunk.
const CHUNK: usize = 64;

/// A box, or bottom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IntervalDomain {
    /// `None` is the empty box; otherwise one interval per dimension.
    bounds: Option<Bounds>,
    dim: usize,
}

/// One interval per dimension, in chunks shared between copies.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Bounds {
    chunks: Vec<Arc<Chunk>>,
}

/// [`CHUNK`] consecutive intervals, with a bit per interval that is not top: most
/// dimensions of a large function's box are unbounded (values dead at the block), and
/// forgetting, joining or comparing them then reads one word instead of each interval.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Chunk {
    /// Bit `j` is set exactly when `vals[j]` is not top.
    bounded: u64,
    vals: Vec<Interval>,
}

impl Chunk {
    fn new(vals: Vec<Interval>) -> Chunk {
        let bounded = vals
            .iter()
            .enumerate()
            .filter(|(_, v)| !v.is_top())
            .fold(0, |acc, (j, _)| acc | 1 << j);
        Chunk { bounded, vals }
    }

    fn put(&mut self, j: usize, value: Interval) {
        if value.is_top() {
            self.bounded &= !(1 << j);
        } else {
            self.bounded |= 1 << j;
        }
        self.vals[j] = value;
    }
}

impl Bounds {
    /// Every dimension unbounded.
    fn top(dim: usize) -> Bounds {
        let chunks = (0..dim.div_ceil(CHUNK))
            .map(|c| {
                Arc::new(Chunk {
                    bounded: 0,
                    vals: vec![Interval::top(); CHUNK.min(dim - c * CHUNK)],
                })
            })
            .collect();
        Bounds { chunks }
    }

    fn get(&self, i: usize) -> &Interval {
        &self.chunks[i / CHUNK].vals[i % CHUNK]
    }

    /// Sets dimension `i` (its chunk is copied if shared).
    fn put(&mut self, i: usize, value: Interval) {
        Arc::make_mut(&mut self.chunks[i / CHUNK]).put(i % CHUNK, value);
    }

    fn iter(&self) -> impl Iterator<Item = &Interval> {
        self.chunks.iter().flat_map(|c| c.vals.iter())
    }

    /// `f` applied dimension by dimension (with the dimension's index) to two boxes of
    /// the same dimension; a chunk the two share is kept as it is, so `f(i, x, x)` must be
    /// `x`, and where the two are top, so must `f(i, ⊤, ⊤)` be.
    fn zip_map(
        &self,
        other: &Bounds,
        f: impl Fn(usize, &Interval, &Interval) -> Interval,
    ) -> Bounds {
        let chunks = self
            .chunks
            .iter()
            .zip(&other.chunks)
            .enumerate()
            .map(|(c, (a, b))| {
                if Arc::ptr_eq(a, b) {
                    return a.clone();
                }
                let mut vals = vec![Interval::top(); a.vals.len()];
                for j in BitIter(a.bounded | b.bounded) {
                    vals[j] = f(c * CHUNK + j, &a.vals[j], &b.vals[j]);
                }
                Arc::new(Chunk::new(vals))
            })
            .collect();
        Bounds { chunks }
    }

    /// Whether `pred` holds of every pair of intervals of the same dimension; a chunk the
    /// two share is skipped, so `pred(x, x)` must hold, and so must `pred(⊤, ⊤)`.
    fn all_pairs(&self, other: &Bounds, pred: impl Fn(&Interval, &Interval) -> bool) -> bool {
        self.chunks.iter().zip(&other.chunks).all(|(a, b)| {
            Arc::ptr_eq(a, b)
                || BitIter(a.bounded | b.bounded).all(|j| pred(&a.vals[j], &b.vals[j]))
        })
    }

    /// Sets every dimension of `vars` to top.
    fn forget_set(&mut self, vars: &VarSet) {
        for (c, chunk) in self.chunks.iter_mut().enumerate() {
            let bits = vars.word(c) & chunk.bounded;
            if bits != 0 {
                let chunk = Arc::make_mut(chunk);
                for j in BitIter(bits) {
                    chunk.put(j, Interval::top());
                }
            }
        }
    }
}

/// Rounds of constraint propagation in `meet_cons`; a bound chain longer than this is
/// left less tight, never unsound.
const PROPAGATION_ROUNDS: usize = 3;

impl IntervalDomain {
    /// The interval of one dimension (`None` when bottom).
    pub fn interval(&self, var: Var) -> Option<&Interval> {
        self.bounds.as_ref().map(|b| b.get(var.index()))
    }

    fn set_bottom(&mut self) {
        self.bounds = None;
    }

    /// Intersects dimension `var` with `[lo, hi]`; returns whether it changed.
    fn restrict(&mut self, var: Var, lo: Option<Rat>, hi: Option<Rat>) -> bool {
        let Some(bounds) = self.bounds.as_mut() else {
            return false;
        };
        // Read first: a bound that changes nothing must not copy a shared chunk.
        let cur = bounds.get(var.index());
        let tighter_lo = lo.filter(|l| cur.lo.as_ref().map_or(true, |old| l > old));
        let tighter_hi = hi.filter(|h| cur.hi.as_ref().map_or(true, |old| h < old));
        if tighter_lo.is_none() && tighter_hi.is_none() {
            return false;
        }
        let itv = Interval {
            lo: tighter_lo.or_else(|| cur.lo.clone()),
            hi: tighter_hi.or_else(|| cur.hi.clone()),
        };
        if let (Some(l), Some(h)) = (&itv.lo, &itv.hi) {
            if l > h {
                self.set_bottom();
                return true;
            }
        }
        bounds.put(var.index(), itv);
        true
    }

    fn eval(&self, expr: &LinExpr) -> Interval {
        let Some(bounds) = self.bounds.as_ref() else {
            return Interval::top();
        };
        eval_box(bounds, expr, None)
    }

    /// Tightens the box with one constraint; returns whether anything changed.
    fn propagate(&mut self, cons: &LinCons) -> bool {
        let Some(bounds) = self.bounds.as_ref() else {
            return false;
        };
        if let Some(truth) = cons.constant_truth() {
            if !truth {
                self.set_bottom();
                return true;
            }
            return false;
        }
        let mut updates = Vec::new();
        for (v, c) in cons.expr.terms() {
            // c·v + rest ⋈ 0  ⇒  v ⋈ -rest / c.
            let rest = eval_box(bounds, &cons.expr, Some(v));
            let c = Rat::from_integer(c.clone());
            let neg_rest = Interval {
                lo: rest.hi.as_ref().map(|h| -h.clone()),
                hi: rest.lo.as_ref().map(|l| -l.clone()),
            };
            let scaled = div_interval(&neg_rest, &c);
            let (lo, hi) = match cons.kind {
                ConsKind::Eq => (scaled.lo, scaled.hi),
                // c·v ≥ -rest: for c > 0, v ≥ min(-rest)/c; for c < 0, v ≤ min(-rest)/c.
                ConsKind::Ge => {
                    if c.is_positive() {
                        (scaled.lo, None)
                    } else {
                        (None, scaled.hi)
                    }
                }
            };
            updates.push((v, lo, hi));
        }
        let mut changed = false;
        for (v, lo, hi) in updates {
            changed |= self.restrict(v, lo, hi);
            if self.bounds.is_none() {
                return true;
            }
        }
        changed
    }
}

/// Interval of `expr` over a box, leaving out dimension `skip`.
fn eval_box(bounds: &Bounds, expr: &LinExpr, skip: Option<Var>) -> Interval {
    let c0 = Rat::from_integer(expr.constant_part().clone());
    let mut lo = Some(c0.clone());
    let mut hi = Some(c0);
    for (v, c) in expr.terms() {
        if Some(v) == skip {
            continue;
        }
        let itv = bounds.get(v.index());
        let c = Rat::from_integer(c.clone());
        let (tlo, thi) = if c.is_positive() {
            (
                itv.lo.as_ref().map(|l| l * &c),
                itv.hi.as_ref().map(|h| h * &c),
            )
        } else {
            (
                itv.hi.as_ref().map(|h| h * &c),
                itv.lo.as_ref().map(|l| l * &c),
            )
        };
        lo = match (lo, tlo) {
            (Some(a), Some(b)) => Some(a + b),
            _ => None,
        };
        hi = match (hi, thi) {
            (Some(a), Some(b)) => Some(a + b),
            _ => None,
        };
    }
    Interval { lo, hi }
}

fn div_interval(itv: &Interval, c: &Rat) -> Interval {
    let lo = itv.lo.as_ref().map(|l| l / c);
    let hi = itv.hi.as_ref().map(|h| h / c);
    if c.is_positive() {
        Interval { lo, hi }
    } else {
        Interval { lo: hi, hi: lo }
    }
}

fn hull(a: &Interval, b: &Interval) -> Interval {
    Interval {
        lo: match (&a.lo, &b.lo) {
            (Some(x), Some(y)) => Some(x.min(y).clone()),
            _ => None,
        },
        hi: match (&a.hi, &b.hi) {
            (Some(x), Some(y)) => Some(x.max(y).clone()),
            _ => None,
        },
    }
}

impl Lattice for IntervalDomain {
    fn top(space: &Space) -> Self {
        IntervalDomain {
            bounds: Some(Bounds::top(space.dim())),
            dim: space.dim(),
        }
    }

    fn bottom(space: &Space) -> Self {
        IntervalDomain {
            bounds: None,
            dim: space.dim(),
        }
    }

    fn dim(&self) -> usize {
        self.dim
    }

    fn is_bottom(&self) -> bool {
        self.bounds.is_none()
    }

    fn is_top(&self) -> bool {
        self.bounds
            .as_ref()
            .map_or(false, |b| b.chunks.iter().all(|c| c.bounded == 0))
    }

    fn is_leq(&self, other: &Self) -> bool {
        let Some(a) = &self.bounds else { return true };
        let Some(b) = &other.bounds else { return false };
        a.all_pairs(b, |x, y| {
            let lo_ok = match (&x.lo, &y.lo) {
                (_, None) => true,
                (None, Some(_)) => false,
                (Some(p), Some(q)) => p >= q,
            };
            let hi_ok = match (&x.hi, &y.hi) {
                (_, None) => true,
                (None, Some(_)) => false,
                (Some(p), Some(q)) => p <= q,
            };
            lo_ok && hi_ok
        })
    }

    fn join(self, other: &Self) -> Self {
        match (&self.bounds, &other.bounds) {
            (None, _) => other.clone(),
            (_, None) => self,
            (Some(a), Some(b)) => IntervalDomain {
                bounds: Some(a.zip_map(b, |_, x, y| hull(x, y))),
                dim: self.dim,
            },
        }
    }

    fn meet(mut self, other: &Self) -> Self {
        let Some(b) = &other.bounds else {
            return other.clone();
        };
        for (c, chunk) in b.chunks.iter().enumerate() {
            // A shared chunk meets itself: nothing to restrict.
            if self
                .bounds
                .as_ref()
                .is_some_and(|a| Arc::ptr_eq(&a.chunks[c], chunk))
            {
                continue;
            }
            // Only the other box's bounded dimensions restrict anything.
            for j in BitIter(chunk.bounded) {
                let itv = &chunk.vals[j];
                self.restrict(Var((c * CHUNK + j) as u32), itv.lo.clone(), itv.hi.clone());
                if self.bounds.is_none() {
                    return self;
                }
            }
        }
        self
    }

    fn widen(self, newer: &Self) -> Self {
        self.widen_with_thresholds(newer, &[])
    }

    fn widen_with_thresholds(self, newer: &Self, thresholds: &[LinCons]) -> Self {
        let (Some(a), Some(b)) = (&self.bounds, &newer.bounds) else {
            return self.join(newer);
        };
        // Threshold constraints on a single variable give candidate bounds.
        let candidates = |var: Var, upper: bool| -> Vec<Rat> {
            thresholds
                .iter()
                .filter_map(|t| {
                    let mut terms = t.expr.terms();
                    let (v, c) = terms.next()?;
                    if terms.next().is_some() || v != var {
                        return None;
                    }
                    // c·v + k ⋈ 0 ⇒ bound -k / c.
                    let bound = Rat::new(-t.expr.constant_part().clone(), c.clone());
                    let is_upper = c.is_negative() || t.kind == ConsKind::Eq;
                    let is_lower = c.is_positive() || t.kind == ConsKind::Eq;
                    if (upper && is_upper) || (!upper && is_lower) {
                        Some(bound)
                    } else {
                        None
                    }
                })
                .collect()
        };
        let bounds = a.zip_map(b, |i, old, new| {
            let var = Var(i as u32);
            let lo = match (&old.lo, &new.lo) {
                (Some(o), Some(n)) if n >= o => Some(o.clone()),
                (_, Some(n)) => candidates(var, false).into_iter().filter(|t| t <= n).max(),
                _ => None,
            };
            let hi = match (&old.hi, &new.hi) {
                (Some(o), Some(n)) if n <= o => Some(o.clone()),
                (_, Some(n)) => candidates(var, true).into_iter().filter(|t| t >= n).min(),
                _ => None,
            };
            Interval { lo, hi }
        });
        IntervalDomain {
            bounds: Some(bounds),
            dim: self.dim,
        }
    }

    fn narrow(self, newer: &Self) -> Self {
        let (Some(a), Some(b)) = (&self.bounds, &newer.bounds) else {
            return newer.clone();
        };
        let bounds = a.zip_map(b, |_, old, new| Interval {
            lo: if old.lo.is_none() {
                new.lo.clone()
            } else {
                old.lo.clone()
            },
            hi: if old.hi.is_none() {
                new.hi.clone()
            } else {
                old.hi.clone()
            },
        });
        IntervalDomain {
            bounds: Some(bounds),
            dim: self.dim,
        }
    }
}

impl NumericDomain for IntervalDomain {
    // Measured: the inference of preconditions over intervals makes about 8·10⁷ steps a
    // second on lz4, the loop benchmarks about 3·10⁷; the stages' rate counts 6·10⁶ units.
    const STEPS_PER_UNIT: u64 = 8;
    fn assign(&mut self, var: Var, expr: &LinExpr) {
        if self.bounds.is_none() {
            return;
        }
        let value = self.eval(expr);
        set(self.bounds.as_mut().expect("checked above"), var, value);
    }

    fn assign_parallel(&mut self, assignments: &[(Var, LinExpr)]) {
        if self.bounds.is_none() {
            return;
        }
        let values: Vec<Interval> = assignments.iter().map(|(_, e)| self.eval(e)).collect();
        let bounds = self.bounds.as_mut().expect("checked above");
        for ((var, _), value) in assignments.iter().zip(values) {
            set(bounds, *var, value);
        }
    }

    fn substitute(&mut self, var: Var, expr: &LinExpr) {
        let Some(bounds) = &self.bounds else { return };
        let old = bounds.get(var.index()).clone();
        self.forget(&[var]);
        let mut cons = Vec::new();
        if let Some(l) = &old.lo {
            // expr ≥ l  ⇔  denom·expr − numer ≥ 0.
            cons.push(LinCons {
                expr: expr
                    .scaled(l.denom())
                    .minus(&LinExpr::constant(l.numer().clone())),
                kind: ConsKind::Ge,
            });
        }
        if let Some(h) = &old.hi {
            cons.push(LinCons {
                expr: LinExpr::constant(h.numer().clone()).minus(&expr.scaled(h.denom())),
                kind: ConsKind::Ge,
            });
        }
        self.meet_cons(&cons);
    }

    fn assign_interval(&mut self, var: Var, range: &Interval) {
        if let Some(bounds) = self.bounds.as_mut() {
            set(bounds, var, range.clone());
        }
    }

    fn forget(&mut self, vars: &[Var]) {
        if let Some(bounds) = self.bounds.as_mut() {
            for v in vars {
                set(bounds, *v, Interval::top());
            }
        }
    }

    fn forget_set(&mut self, vars: &VarSet) {
        if let Some(bounds) = self.bounds.as_mut() {
            bounds.forget_set(vars);
        }
    }

    fn meet_cons(&mut self, cons: &[LinCons]) {
        for _ in 0..PROPAGATION_ROUNDS {
            let mut changed = false;
            for c in cons {
                changed |= self.propagate(c);
                if self.bounds.is_none() {
                    return;
                }
            }
            if !changed {
                break;
            }
        }
    }

    fn entails(&self, cons: &LinCons) -> Entailment {
        if self.bounds.is_none() {
            return Entailment::Holds;
        }
        let value = self.eval(&cons.expr);
        let zero = Rat::zero();
        match cons.kind {
            ConsKind::Ge => {
                if value.lo.as_ref().map_or(false, |l| l >= &zero) {
                    Entailment::Holds
                } else if value.hi.as_ref().map_or(false, |h| h < &zero) {
                    Entailment::Violated
                } else {
                    Entailment::Unknown
                }
            }
            ConsKind::Eq => {
                if value.as_point() == Some(&zero) {
                    Entailment::Holds
                } else if !value.contains(&zero) {
                    Entailment::Violated
                } else {
                    Entailment::Unknown
                }
            }
        }
    }

    fn bound(&self, expr: &LinExpr) -> Interval {
        self.eval(expr)
    }

    fn to_cons(&self) -> Vec<LinCons> {
        let Some(bounds) = &self.bounds else {
            return vec![LinCons {
                expr: LinExpr::constant(-1),
                kind: ConsKind::Ge,
            }];
        };
        let mut res = Vec::new();
        for (i, itv) in bounds.iter().enumerate() {
            let x = LinExpr::var(Var(i as u32));
            if let Some(p) = itv.as_point() {
                res.push(LinCons::eq(
                    &x.scaled(p.denom()),
                    &LinExpr::constant(p.numer().clone()),
                ));
                continue;
            }
            if let Some(l) = &itv.lo {
                res.push(LinCons::ge(
                    &x.scaled(l.denom()),
                    &LinExpr::constant(l.numer().clone()),
                ));
            }
            if let Some(h) = &itv.hi {
                res.push(LinCons::le(
                    &x.scaled(h.denom()),
                    &LinExpr::constant(h.numer().clone()),
                ));
            }
        }
        res
    }

    fn domain_name() -> &'static str {
        "interval"
    }
}

/// Sets dimension `var` to `value`, copying its chunk only when the interval changes.
fn set(bounds: &mut Bounds, var: Var, value: Interval) {
    if *bounds.get(var.index()) != value {
        bounds.put(var.index(), value);
    }
}

/// Helper for tests and the analysis: the integer interval `[lo, hi]`.
pub fn int_interval(lo: i128, hi: i128) -> Interval {
    Interval::ints(Int::from(lo), Int::from(hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn propagation_and_entailment() {
        let space = Space::anonymous(2);
        let mut d = IntervalDomain::top(&space);
        let x = LinExpr::var(Var(0));
        let y = LinExpr::var(Var(1));
        d.meet_cons(&[
            LinCons::ge(&x, &LinExpr::constant(0)),
            LinCons::le(&x, &LinExpr::constant(10)),
            LinCons::eq(&y, &x.plus(&LinExpr::constant(1))),
        ]);
        assert_eq!(d.interval(Var(1)), Some(&int_interval(1, 11)));
        assert_eq!(
            d.entails(&LinCons::ge(&y, &LinExpr::constant(1))),
            Entailment::Holds
        );
        assert_eq!(
            d.entails(&LinCons::ge(&y, &LinExpr::constant(12))),
            Entailment::Violated
        );
        d.meet_cons(&[LinCons::ge(&x, &LinExpr::constant(11))]);
        assert!(d.is_bottom());
    }

    #[test]
    fn widening_with_thresholds_stops_at_guard() {
        let space = Space::anonymous(1);
        let x = LinExpr::var(Var(0));
        let mut a = IntervalDomain::top(&space);
        a.assign_interval(Var(0), &int_interval(0, 0));
        let mut b = IntervalDomain::top(&space);
        b.assign_interval(Var(0), &int_interval(0, 1));
        let t = [LinCons::le(&x, &LinExpr::constant(100))];
        let w = a.clone().widen_with_thresholds(&b, &t);
        assert_eq!(w.interval(Var(0)), Some(&int_interval(0, 100)));
        let w = a.widen(&b);
        assert_eq!(w.interval(Var(0)).unwrap().hi, None);
    }

    /// A box of `dim` dimensions rebuilt from its intervals: equal, sharing no chunk.
    fn unshared(d: &IntervalDomain, space: &Space) -> IntervalDomain {
        let mut fresh = IntervalDomain::top(space);
        if d.is_bottom() {
            return IntervalDomain::bottom(space);
        }
        for i in 0..d.dim() {
            let v = Var(i as u32);
            fresh.assign_interval(v, d.interval(v).expect("not bottom"));
        }
        fresh
    }

    /// Boxes that share chunks (copies changed in a few dimensions) give the same joins,
    /// meets, widenings, narrowings and comparisons as the same boxes sharing nothing: the
    /// shortcut on a shared chunk is only taken where the operation gives its operand back.
    #[test]
    fn shared_chunks_change_no_result() {
        let dim = 3 * CHUNK + 5;
        let space = Space::anonymous(dim);
        let mut seed = 0x2545_f491_u64;
        let mut next = move |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        };
        for _ in 0..200 {
            let mut a = IntervalDomain::top(&space);
            for _ in 0..40 {
                let lo = next(20) as i128 - 10;
                a.assign_interval(
                    Var(next(dim as u64) as u32),
                    &int_interval(lo, lo + next(8) as i128),
                );
            }
            let mut b = a.clone();
            for _ in 0..next(4) {
                let v = Var(next(dim as u64) as u32);
                match next(3) {
                    0 => b.forget(&[v]),
                    1 => {
                        let lo = next(30) as i128 - 15;
                        b.assign_interval(v, &int_interval(lo, lo + next(5) as i128));
                    }
                    _ => b.meet_cons(&[LinCons::le(
                        &LinExpr::var(v),
                        &LinExpr::constant(next(6) as i64 - 3),
                    )]),
                }
            }
            let (ua, ub) = (unshared(&a, &space), unshared(&b, &space));
            assert_eq!(a.is_leq(&b), ua.is_leq(&ub));
            assert_eq!(b.is_leq(&a), ub.is_leq(&ua));
            assert_eq!(a.clone().join(&b), ua.clone().join(&ub));
            assert_eq!(a.clone().meet(&b), ua.clone().meet(&ub));
            assert_eq!(a.clone().widen(&b), ua.clone().widen(&ub));
            assert_eq!(b.clone().narrow(&a), ub.clone().narrow(&ua));
            assert!(a.is_leq(&a.clone().join(&b)) && b.is_leq(&a.clone().join(&b)));
        }
    }

    /// Forgetting a set given as bits gives the box forgetting the same dimensions one by
    /// one gives, and every chunk's bits of bounded dimensions stay exact through joins,
    /// widenings and forgetting (they are what forgetting and comparing skip on).
    #[test]
    fn forgetting_a_bit_row_is_forgetting_its_members() {
        let dim = 2 * CHUNK + 9;
        let space = Space::anonymous(dim);
        let mut seed = 0x9e37_79b9_u64;
        let mut next = move |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        };
        let exact = |d: &IntervalDomain| {
            d.bounds.as_ref().map_or(true, |b| {
                b.chunks.iter().all(|c| {
                    c.vals
                        .iter()
                        .enumerate()
                        .all(|(j, v)| (c.bounded >> j & 1 == 1) == !v.is_top())
                })
            })
        };
        for _ in 0..200 {
            let mut a = IntervalDomain::top(&space);
            let mut b = IntervalDomain::top(&space);
            for _ in 0..30 {
                let lo = next(20) as i128 - 10;
                let v = Var(next(dim as u64) as u32);
                a.assign_interval(v, &int_interval(lo, lo + next(8) as i128));
                b.assign_interval(v, &int_interval(lo - 1, lo + next(3) as i128));
            }
            let words: Vec<u64> = (0..dim.div_ceil(64))
                .map(|_| (0..4).fold(u64::MAX, |w, _| w & (next(u64::MAX))))
                .collect();
            let set = VarSet::from_words(words);
            let mut by_row = a.clone();
            by_row.forget_set(&set);
            let mut by_list = a.clone();
            by_list.forget(&set.iter().filter(|v| v.index() < dim).collect::<Vec<_>>());
            assert_eq!(by_row, by_list);
            let joined = a.clone().join(&b);
            let widened = a.clone().widen(&joined);
            for d in [&a, &b, &by_row, &joined, &widened] {
                assert!(exact(d), "bits of bounded dimensions out of step: {d:?}");
            }
            assert!(by_row.is_leq(&by_row) && a.is_leq(&by_row) && a.is_leq(&joined));
            assert_eq!(
                by_row.is_leq(&a),
                set.iter()
                    .all(|v| v.index() >= dim || a.interval(v).is_some_and(Interval::is_top))
            );
        }
    }
}
