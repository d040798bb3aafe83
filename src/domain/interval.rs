//! The interval (box) domain: one rational interval per dimension.
//!
//! γ(b) = { x ∈ ℚⁿ | ∀i. lo_i ≤ x_i ≤ hi_i }. Constraints with several variables are
//! propagated one variable at a time (each variable bounded by the bounds of the others),
//! repeated a few rounds: sound, not always the tightest box.

use super::linear::{ConsKind, Int, Interval, LinCons, LinExpr, Rat, Space, Var};
use super::{Entailment, Lattice, NumericDomain};
use num_traits::{Signed, Zero};

/// A box, or bottom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IntervalDomain {
    /// `None` is the empty box; otherwise one interval per dimension.
    bounds: Option<Vec<Interval>>,
    dim: usize,
}

/// Rounds of constraint propagation in `meet_cons`; a bound chain longer than this is
/// left less tight, never unsound.
const PROPAGATION_ROUNDS: usize = 3;

impl IntervalDomain {
    /// The interval of one dimension (`None` when bottom).
    pub fn interval(&self, var: Var) -> Option<&Interval> {
        self.bounds.as_ref().map(|b| &b[var.index()])
    }

    fn set_bottom(&mut self) {
        self.bounds = None;
    }

    /// Intersects dimension `var` with `[lo, hi]`; returns whether it changed.
    fn restrict(&mut self, var: Var, lo: Option<Rat>, hi: Option<Rat>) -> bool {
        let Some(bounds) = self.bounds.as_mut() else {
            return false;
        };
        let itv = &mut bounds[var.index()];
        let mut changed = false;
        if let Some(l) = lo {
            if itv.lo.as_ref().map_or(true, |old| &l > old) {
                itv.lo = Some(l);
                changed = true;
            }
        }
        if let Some(h) = hi {
            if itv.hi.as_ref().map_or(true, |old| &h < old) {
                itv.hi = Some(h);
                changed = true;
            }
        }
        if let (Some(l), Some(h)) = (&itv.lo, &itv.hi) {
            if l > h {
                self.set_bottom();
                return true;
            }
        }
        changed
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
fn eval_box(bounds: &[Interval], expr: &LinExpr, skip: Option<Var>) -> Interval {
    let c0 = Rat::from_integer(expr.constant_part().clone());
    let mut lo = Some(c0.clone());
    let mut hi = Some(c0);
    for (v, c) in expr.terms() {
        if Some(v) == skip {
            continue;
        }
        let itv = &bounds[v.index()];
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
            bounds: Some(vec![Interval::top(); space.dim()]),
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
            .map_or(false, |b| b.iter().all(Interval::is_top))
    }

    fn is_leq(&self, other: &Self) -> bool {
        let Some(a) = &self.bounds else { return true };
        let Some(b) = &other.bounds else { return false };
        a.iter().zip(b).all(|(x, y)| {
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
                bounds: Some(a.iter().zip(b).map(|(x, y)| hull(x, y)).collect()),
                dim: self.dim,
            },
        }
    }

    fn meet(mut self, other: &Self) -> Self {
        let Some(b) = &other.bounds else {
            return other.clone();
        };
        for (i, itv) in b.iter().enumerate() {
            self.restrict(Var(i as u32), itv.lo.clone(), itv.hi.clone());
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
        let bounds = a
            .iter()
            .zip(b)
            .enumerate()
            .map(|(i, (old, new))| {
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
            })
            .collect();
        IntervalDomain {
            bounds: Some(bounds),
            dim: self.dim,
        }
    }

    fn narrow(self, newer: &Self) -> Self {
        let (Some(a), Some(b)) = (&self.bounds, &newer.bounds) else {
            return newer.clone();
        };
        let bounds = a
            .iter()
            .zip(b)
            .map(|(old, new)| Interval {
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
            })
            .collect();
        IntervalDomain {
            bounds: Some(bounds),
            dim: self.dim,
        }
    }
}

impl NumericDomain for IntervalDomain {
    fn assign(&mut self, var: Var, expr: &LinExpr) {
        if self.bounds.is_none() {
            return;
        }
        let value = self.eval(expr);
        self.bounds.as_mut().expect("checked above")[var.index()] = value;
    }

    fn assign_parallel(&mut self, assignments: &[(Var, LinExpr)]) {
        if self.bounds.is_none() {
            return;
        }
        let values: Vec<Interval> = assignments.iter().map(|(_, e)| self.eval(e)).collect();
        let bounds = self.bounds.as_mut().expect("checked above");
        for ((var, _), value) in assignments.iter().zip(values) {
            bounds[var.index()] = value;
        }
    }

    fn substitute(&mut self, var: Var, expr: &LinExpr) {
        let Some(bounds) = &self.bounds else { return };
        let old = bounds[var.index()].clone();
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
            bounds[var.index()] = range.clone();
        }
    }

    fn forget(&mut self, vars: &[Var]) {
        if let Some(bounds) = self.bounds.as_mut() {
            for v in vars {
                bounds[v.index()] = Interval::top();
            }
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
}
