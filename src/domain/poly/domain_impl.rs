//! [`Lattice`] and [`NumericDomain`] for [`Polyhedron`]: the `try_*` cores plus sound
//! fallbacks (interval hulls) when a budget runs out. The operations a benchmark replays are
//! offered to the [`record`] module first (one atomic load when no recorder is started).

use super::record::{self, OpKind};
use super::{Budget, Polyhedron};
use crate::domain::linear::{ConsKind, Interval, LinCons, LinExpr, Space, Var};
use crate::domain::{Entailment, Lattice, NumericDomain};

impl Lattice for Polyhedron {
    fn top(space: &Space) -> Self {
        Polyhedron::universe(space.dim(), Budget::standard())
    }

    fn bottom(space: &Space) -> Self {
        Polyhedron::empty(space.dim(), Budget::standard())
    }

    fn dim(&self) -> usize {
        self.dim
    }

    fn is_bottom(&self) -> bool {
        self.bottom
    }

    fn is_top(&self) -> bool {
        !self.bottom && self.blocks.is_empty()
    }

    fn is_leq(&self, other: &Self) -> bool {
        if record::enabled() {
            record::offer(OpKind::IsLeq, &[self, other], |_| {});
        }
        self.is_leq_impl(other)
    }

    fn join(self, other: &Self) -> Self {
        if record::enabled() {
            record::offer(OpKind::Join, &[&self, other], |_| {});
        }
        match self.try_join(other) {
            Ok(p) => p,
            Err(_) => box_combine(&self, other, false),
        }
    }

    fn meet(self, other: &Self) -> Self {
        if record::enabled() {
            record::offer(OpKind::Meet, &[&self, other], |_| {});
        }
        match self.try_meet(other) {
            Ok(p) => p,
            Err(_) => self,
        }
    }

    fn widen(self, newer: &Self) -> Self {
        if record::enabled() {
            record::offer(OpKind::Widen, &[&self, newer], |_| {});
        }
        match self.try_widen(newer) {
            Ok(p) => p,
            Err(_) => box_combine(&self, newer, true),
        }
    }

    fn widen_with_thresholds(self, newer: &Self, thresholds: &[LinCons]) -> Self {
        let joined = if self.is_leq(newer) {
            newer.clone()
        } else {
            self.clone().join(newer)
        };
        let kept: Vec<LinCons> = thresholds
            .iter()
            .filter(|t| {
                self.entails(t) == Entailment::Holds && joined.entails(t) == Entailment::Holds
            })
            .cloned()
            .collect();
        let mut res = self.widen(&joined);
        res.meet_cons(&kept);
        res
    }

    fn narrow(self, newer: &Self) -> Self {
        if self.bottom || newer.bottom {
            return newer.clone().meet(&self);
        }
        let mut selected = Vec::new();
        for c in newer.to_cons_vec() {
            let halves = match c.kind {
                ConsKind::Ge => vec![c.expr.clone()],
                ConsKind::Eq => vec![c.expr.clone(), c.expr.negated()],
            };
            for e in halves {
                if self.bound(&e).lo.is_none() {
                    selected.push(LinCons {
                        expr: e,
                        kind: ConsKind::Ge,
                    });
                }
            }
        }
        let mut res = self;
        res.meet_cons(&selected);
        res
    }
}

impl NumericDomain for Polyhedron {
    fn assign(&mut self, var: Var, expr: &LinExpr) {
        if record::enabled() {
            record::offer(OpKind::Assign, &[self], |out| {
                record::write_var(out, var);
                record::write_expr(out, expr);
            });
        }
        let saved = self.clone();
        if self.try_assign(var, expr).is_err() {
            let range = saved.bound(expr);
            let mut bx = saved.box_hull();
            bx.forget_sound(&[var]);
            bx.restrict_var(var.index(), &range);
            *self = bx;
        }
    }

    fn assign_parallel(&mut self, assignments: &[(Var, LinExpr)]) {
        let saved = self.clone();
        if self.try_assign_parallel(assignments).is_err() {
            let ranges: Vec<Interval> = assignments.iter().map(|(_, e)| saved.bound(e)).collect();
            let mut bx = saved.box_hull();
            let vars: Vec<Var> = assignments.iter().map(|(v, _)| *v).collect();
            bx.forget_sound(&vars);
            for ((v, _), r) in assignments.iter().zip(&ranges) {
                bx.restrict_var(v.index(), r);
            }
            *self = bx;
        }
    }

    fn substitute(&mut self, var: Var, expr: &LinExpr) {
        let saved = self.clone();
        if self.try_substitute(var, expr).is_err() {
            // The pre-image lies in the box of the other dimensions.
            let mut bx = saved.box_hull();
            bx.forget_sound(&[var]);
            *self = bx;
        }
    }

    fn assign_interval(&mut self, var: Var, range: &Interval) {
        self.forget_sound(&[var]);
        self.restrict_var(var.index(), range);
    }

    fn forget(&mut self, vars: &[Var]) {
        if record::enabled() {
            record::offer(OpKind::Forget, &[self], |out| record::write_vars(out, vars));
        }
        self.forget_sound(vars);
    }

    fn meet_cons(&mut self, cons: &[LinCons]) {
        if record::enabled() {
            record::offer(OpKind::MeetCons, &[self], |out| {
                record::write_cons_list(out, cons)
            });
        }
        let _ = self.try_meet_cons(cons);
    }

    fn entails(&self, cons: &LinCons) -> Entailment {
        self.entails_impl(cons)
    }

    fn bound(&self, expr: &LinExpr) -> Interval {
        self.bound_attained(expr).interval
    }

    fn to_cons(&self) -> Vec<LinCons> {
        self.to_cons_vec()
    }

    fn domain_name() -> &'static str {
        "polyhedra"
    }
}

/// The interval hull of `a ∪ b`, or with `widen` the interval widening of `a` by it
/// (unstable bounds dropped): the fallback when a budget runs out. One block per dimension,
/// so it never needs a conversion larger than one dimension.
fn box_combine(a: &Polyhedron, b: &Polyhedron, widen: bool) -> Polyhedron {
    let (ba, bb) = match (a.to_box(), b.to_box()) {
        (None, _) => return b.box_hull(),
        (_, None) => return a.box_hull(),
        (Some(x), Some(y)) => (x, y),
    };
    let hull: Vec<Interval> = ba
        .iter()
        .zip(&bb)
        .map(|(x, y)| {
            let lo = match (&x.lo, &y.lo) {
                (Some(p), Some(q)) if !widen || q >= p => Some(p.clone().min(q.clone())),
                _ => None,
            };
            let hi = match (&x.hi, &y.hi) {
                (Some(p), Some(q)) if !widen || q <= p => Some(p.clone().max(q.clone())),
                _ => None,
            };
            Interval { lo, hi }
        })
        .collect();
    Polyhedron::of_box(a.dim, a.budget, &hull)
}
