//! Extrapolation with a care set (Wang, Yang, Gupta & Ivančić, CAV'07, with Algorithm 1
//! corrected to drop constraints cumulatively): the numeric counterpart of
//! predicate refinement for assertions that widening lost.
//!
//! A *care set* `C_p` at a cut point `p` is a finite union of polyhedra (conjunctions of
//! constraints over the values live at `p`) whose states lead to an open error site along
//! an abstract error path. Path focusing then replaces widening at `p` (at loop heads, and
//! inside `loopiter` on self-loops) by *extrapolation with the care set*: for `P ⊑ Q` (the
//! old state and the join) with `Q ⊓ C = ∅`,
//!
//! 1. `P'`: drop each constraint `c` of `P` that `Q` does not satisfy (a direction of
//!    growth) when `P'[c := true] ⊓ C = ∅` (cumulatively, in the constraints' order);
//! 2. `Q'`: drop each constraint `c` of `Q` that `P'` does not satisfy when
//!    `Q'[c := true] ⊓ C = ∅` (cumulatively, so `Q' ⊓ C = ∅` stays true);
//! 3. the result is `Q' ⊓ (P ∇ Q)`, where `∇` is the engine's widening with thresholds.
//!
//! Both `Q'` and `P ∇ Q` contain `Q`, so the result is an upper bound of both operands,
//! whatever the care set holds: **soundness never rests on the care set** (it only chooses
//! which constraints an upper bound keeps; the engine's fixpoint is still a post-fixpoint,
//! and certification checks it without the care set). The result avoids `C` since it lies in
//! `Q'`, and it equals `P ∇ Q` when the care set blocks nothing. When `Q` already meets `C`
//! (the join, not extrapolation, brought the bad states in) the operator is plain widening.
//!
//! Extrapolation need not terminate; after `CareSetParams::max_extrapolations` care-set
//! steps at one cut point the engine widens as usual there (the paper's remedy), so every
//! run still ends.
//!
//! **Care sets** ([`discover`]): backwards from each open error site, the solver names
//! focus paths `π` from the invariant at a predecessor cut point `c` into the current bad
//! set `B_t` (at first: the whole error site); `B_c = wp(π, B_t) ⊓ X_c`, computed exactly in
//! a relational domain (as predicate refinement does), is added to `C_c` when `c` is a loop
//! head, and the search steps back from `c` with `B_c`, up to `CareSetParams::max_depth`
//! paths from the error site. Every state added can reach the error along an abstract path (the paper's
//! `C ⊆ pre*(¬ψ)`, up to the transformers' over-approximation). Unlike the paper, the walk
//! follows the reduced graph rather than the recorded forward iterates, and each round
//! re-runs the engine from the entry rather than from the iterate before the step that
//! introduced the bad states: simpler, and equally sound.

use super::lower::Lowering;
pub use super::refine::Discovery;
use super::refine::{walk_back, StepOutcome};
use super::Deadline;
use crate::domain::{ConsKind, Entailment, LinCons, NumericDomain, Space};
use crate::graph::{CutKind, CutPointId};
use std::cell::RefCell;

/// The care set of each cut point: a union of polyhedra (each a conjunction over the value
/// dimensions live there), in the order of the reduced graph.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CareSets {
    at: Vec<Vec<Vec<LinCons>>>,
}

impl CareSets {
    /// No care set at any of `n` cut points: extrapolation is plain widening.
    pub fn none(n: usize) -> CareSets {
        CareSets {
            at: vec![Vec::new(); n],
        }
    }

    /// The polyhedra of the care set at `cp`.
    pub fn at(&self, cp: CutPointId) -> &[Vec<LinCons>] {
        self.at.get(cp.index()).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Polyhedra in all care sets together.
    pub fn count(&self) -> usize {
        self.at.iter().map(Vec::len).sum()
    }

    /// Cut points with a non-empty care set.
    pub fn cut_points(&self) -> usize {
        self.at.iter().filter(|c| !c.is_empty()).count()
    }

    /// Adds the polyhedron `bad` to the care set of `cp`; false when it is already there or
    /// the care set is full (`max_per_cut_point` polyhedra).
    pub fn add(&mut self, cp: CutPointId, bad: Vec<LinCons>, max_per_cut_point: usize) -> bool {
        let Some(here) = self.at.get_mut(cp.index()) else {
            return false;
        };
        if here.len() >= max_per_cut_point || here.contains(&bad) {
            return false;
        }
        here.push(bad);
        true
    }
}

/// The care sets an engine run extrapolates with, and how many care-set steps each cut
/// point has taken in that run (interior mutability: `loopiter` borrows the engine shared).
pub(crate) struct Extrapolator {
    care: CareSets,
    steps: RefCell<Vec<usize>>,
    /// Care-set steps at one cut point before it widens as usual.
    max_steps: usize,
}

impl Extrapolator {
    /// Care sets for one run; `n` cut points, each taking at most `max_steps` care-set
    /// steps.
    pub(crate) fn new(care: CareSets, n: usize, max_steps: usize) -> Extrapolator {
        Extrapolator {
            care,
            steps: RefCell::new(vec![0; n]),
            max_steps,
        }
    }

    /// Whether `cp` has a care set (otherwise the engine just widens).
    pub(crate) fn has_care_set(&self, cp: CutPointId) -> bool {
        !self.care.at(cp).is_empty()
    }

    /// The upper bound the engine keeps at `cp` for the old state `old` and the join
    /// `joined` (`old ⊑ joined`), given the engine's widening `widened` of the two:
    /// - `widened` itself when `cp` has no care set or `widened` avoids it;
    /// - otherwise widening up to the care set (`old ∇_M joined`, with `M` the negations
    ///   of the care set's constraints that both operands satisfy, §3.3 of the paper),
    ///   when that avoids it: it terminates, and it is what a bound the iterates approach
    ///   only slowly (a chord whose slope grows by a little each step) needs;
    /// - otherwise extrapolation with the care set (Algorithm 1) met with that, while `cp`
    ///   has care-set steps left, else the widening up to the care set.
    pub(crate) fn extrapolate<D: NumericDomain>(
        &self,
        space: &Space,
        cp: CutPointId,
        old: &D,
        joined: &D,
        widened: D,
    ) -> D {
        let care = self.care.at(cp);
        if care.is_empty() || disjoint(&widened, care) {
            return widened;
        }
        let mut up_to = widened;
        let kept: Vec<LinCons> = care
            .iter()
            .flatten()
            .map(LinCons::negate)
            .filter(|m| {
                old.entails(m) == Entailment::Holds && joined.entails(m) == Entailment::Holds
            })
            .collect();
        up_to.meet_cons(&kept);
        if disjoint(&up_to, care) {
            return up_to;
        }
        {
            let mut steps = self.steps.borrow_mut();
            let Some(n) = steps.get_mut(cp.index()) else {
                return up_to;
            };
            if *n >= self.max_steps {
                return up_to;
            }
            *n += 1;
        }
        match extrapolate_with_care(space, old, joined, care) {
            Some(q1) => {
                up_to.meet_cons(&q1);
                up_to
            }
            None => up_to,
        }
    }
}

/// Steps 1 and 2 of the corrected Algorithm 1: the constraints `Q'` of `joined` to keep so
/// that the result avoids `care`; `None` when `joined` (as its constraint system) already
/// meets the care set. Every constraint returned holds on `joined`.
pub fn extrapolate_with_care<D: NumericDomain>(
    space: &Space,
    old: &D,
    joined: &D,
    care: &[Vec<LinCons>],
) -> Option<Vec<LinCons>> {
    let q_cons = halves(joined.to_cons());
    let q_state: D = from_cons(space, &q_cons);
    if !disjoint(&q_state, care) {
        return None;
    }
    // Step 1: P', P without the growth directions the care set allows to drop.
    let p_cons = halves(old.to_cons());
    let mut p1: Vec<LinCons> = p_cons.clone();
    for c in &p_cons {
        if joined.entails(c) == Entailment::Holds {
            continue;
        }
        let without: Vec<LinCons> = p1.iter().filter(|d| *d != c).cloned().collect();
        if disjoint(&from_cons::<D>(space, &without), care) {
            p1 = without;
        }
    }
    let p1_state: D = from_cons(space, &p1);
    // Step 2: Q', Q without the constraints P' violates, as long as it avoids the care set.
    let mut q1: Vec<LinCons> = q_cons.clone();
    for c in &q_cons {
        if p1_state.entails(c) == Entailment::Holds {
            continue;
        }
        let without: Vec<LinCons> = q1.iter().filter(|d| *d != c).cloned().collect();
        if disjoint(&from_cons::<D>(space, &without), care) {
            q1 = without;
        }
    }
    Some(q1)
}

/// True when no polyhedron of `care` meets `state` (over the rationals: a rational point
/// in common keeps a constraint, which costs precision, never soundness).
fn disjoint<D: NumericDomain>(state: &D, care: &[Vec<LinCons>]) -> bool {
    care.iter().all(|bad| {
        let mut s = state.clone();
        s.meet_cons(bad);
        s.is_bottom()
    })
}

fn from_cons<D: NumericDomain>(space: &Space, cons: &[LinCons]) -> D {
    let mut d = D::top(space);
    d.meet_cons(cons);
    d
}

/// Equalities split into their two inequalities, so that each half can be dropped alone
/// (the standard widening's representation).
fn halves(cons: Vec<LinCons>) -> Vec<LinCons> {
    cons.into_iter()
        .flat_map(|c| match c.kind {
            ConsKind::Ge => vec![c],
            ConsKind::Eq => vec![
                LinCons {
                    expr: c.expr.clone(),
                    kind: ConsKind::Ge,
                },
                LinCons {
                    expr: c.expr.negated(),
                    kind: ConsKind::Ge,
                },
            ],
        })
        .collect()
}

/// Grows the care sets backwards from the open error sites `errors`, given the invariants
/// `at_cut_points` of the last complete run (disjunctions over value dimensions; `None`:
/// unreachable). `W` is the relational domain the preconditions are computed in. The walk
/// is refinement's ([`walk_back`]); only what is kept of each step differs.
pub fn discover<W: NumericDomain>(
    lowering: &Lowering<'_>,
    at_cut_points: &[Option<Vec<Vec<LinCons>>>],
    errors: &[CutPointId],
    care: &mut CareSets,
    deadline: &Deadline,
) -> Discovery {
    let graph = lowering.context().graph();
    let max_per_cut_point = lowering.params().care_set.max_per_cut_point;
    walk_back::<W>(
        lowering,
        at_cut_points,
        errors,
        lowering.params().care_set.max_depth,
        deadline,
        |step| {
            // B_c = pre ⊓ X_c, one polyhedron per disjunct of the invariant; each is both a
            // care set (at loop heads) and a goal to walk back from.
            let mut goals = Vec::new();
            let mut added = 0;
            for disjunct in step.invariant {
                let mut b = step.pre.clone();
                b.meet_cons(disjunct);
                if b.is_bottom() {
                    continue;
                }
                let b = halves(b.to_cons());
                if graph.cut_point(step.from).kind == CutKind::LoopHead
                    && care.add(step.from, b.clone(), max_per_cut_point)
                {
                    added += 1;
                }
                goals.push(b);
            }
            StepOutcome {
                goals,
                progress: false,
                added,
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Lattice, LinExpr, Polyhedron, Var};

    fn space2() -> Space {
        Space::named(vec!["x".into(), "y".into()])
    }

    fn le(terms: &[(i64, u32)], c: i64) -> LinCons {
        // Σ a·v ≤ c
        let mut e = LinExpr::constant(c);
        for (a, v) in terms {
            e.add_term(-*a, Var(*v));
        }
        LinCons {
            expr: e,
            kind: ConsKind::Ge,
        }
    }

    fn poly(space: &Space, cons: &[LinCons]) -> Polyhedron {
        from_cons(space, cons)
    }

    /// Figure 1 of the paper in miniature: `P` is the triangle `(0,0), (2,0), (2,1)` and `Q`
    /// its hull with `(4,3)`. Standard widening keeps only what `P` and `Q` share (`y ≥ 0`),
    /// which meets the care set `{x = 10, y ≥ 9}`. Algorithm 1 may drop `x ≤ 2` from `P` (not
    /// `2y ≤ x`, whose removal would meet the care set), then drops from `Q` the two
    /// constraints that `P'` violates (`x ≤ 4`, `3x - 2y ≤ 6`) and keeps `4y ≤ 3x` (or, in the
    /// other order, keeps `x ≤ 2` and drops `4y ≤ 3x`): the result avoids the care set and
    /// contains `Q`.
    #[test]
    fn care_set_keeps_the_constraint_widening_drops() {
        let s = space2();
        let p = poly(
            &s,
            &[
                le(&[(1, 0)], 2),
                le(&[(-1, 1)], 0),
                le(&[(-1, 0), (2, 1)], 0),
            ],
        );
        let q = poly(
            &s,
            &[
                le(&[(-1, 1)], 0),
                le(&[(1, 0)], 4),
                le(&[(-3, 0), (4, 1)], 0),
                le(&[(3, 0), (-2, 1)], 6),
            ],
        );
        assert!(p.is_leq(&q));
        let care = vec![vec![
            le(&[(-1, 0)], -10),
            le(&[(1, 0)], 10),
            le(&[(-1, 1)], -9),
        ]];
        let widened = p.clone().widen(&q);
        assert!(
            !disjoint(&widened, &care),
            "standard widening enters the care set"
        );
        let kept = extrapolate_with_care(&s, &p, &q, &care).expect("Q avoids the care set");
        let mut res = widened.clone();
        res.meet_cons(&kept);
        assert!(q.is_leq(&res), "an upper bound of Q");
        assert!(res.is_leq(&widened), "below the standard widening");
        assert!(disjoint(&res, &care), "outside the care set");
        // Which growth direction is kept depends on the order of the constraints (the
        // algorithm is greedy): `x ≤ 2` or `2y ≤ x`; either way `y` stays bounded.
        assert!(
            res.bound(&LinExpr::var(Var(1))).hi.is_some()
                || res.bound(&LinExpr::var(Var(0))).hi.is_some()
        );
        // The engine's operator (widening up to the care set first) also avoids it.
        let ex = Extrapolator::new(
            CareSets {
                at: vec![care.clone()],
            },
            1,
            16,
        );
        let res = ex.extrapolate(&s, CutPointId(0), &p, &q, widened.clone());
        assert!(q.is_leq(&res) && res.is_leq(&widened) && disjoint(&res, &care));
    }

    /// A care set that blocks nothing leaves the standard widening unchanged, and a join
    /// that already meets the care set gets the standard widening too.
    #[test]
    fn without_conflict_the_result_is_the_standard_widening() {
        let s = space2();
        let p = poly(
            &s,
            &[
                le(&[(-1, 0)], 0),
                le(&[(1, 0)], 1),
                le(&[(1, 1)], 0),
                le(&[(-1, 1)], 0),
            ],
        );
        let q = poly(
            &s,
            &[
                le(&[(-1, 0)], 0),
                le(&[(1, 0)], 2),
                le(&[(1, 1)], 0),
                le(&[(-1, 1)], 0),
            ],
        );
        let widened = p.clone().widen(&q);
        let far = vec![vec![le(&[(1, 1)], -5)]];
        let ex = Extrapolator::new(CareSets { at: vec![far] }, 1, 16);
        let res = ex.extrapolate(&s, CutPointId(0), &p, &q, widened.clone());
        assert!(res.is_leq(&widened) && widened.is_leq(&res));
        let inside = vec![vec![le(&[(1, 0)], 1), le(&[(-1, 0)], -1)]];
        let ex = Extrapolator::new(CareSets { at: vec![inside] }, 1, 16);
        let res = ex.extrapolate(&s, CutPointId(0), &p, &q, widened.clone());
        assert!(res.is_leq(&widened) && widened.is_leq(&res));
    }
}
