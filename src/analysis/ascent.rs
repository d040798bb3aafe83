//! A solver-guided ascent (symbolic abstraction, in the style of King and Søndergaard's
//! congruences over bit-vectors): the value of each cut point grows by the points the
//! solver names until no edge of the reduced graph leaves it. The relational congruences
//! and the template bounds are two values of this one loop.
//!
//! For each edge `p → q`, a model of the exact region formula of `p` that starts in the
//! engine's invariant at `p`, the facts known there and `p`'s value, and ends outside `q`'s
//! value, is a state some path reaches; its readings at `q` are joined into `q`'s value.
//!
//! **Soundness.** The region formula is the exact semantics of the lifted program in
//! readings (past a budget of exact bit-level encodings, an operation's result is any value
//! of its range: more models, never fewer), so every rule is the program's, not
//! re-implemented here. The result is
//! inductive by construction: the ascent ends only when every edge's query is unsat with the
//! final values, and a solver `unknown`, a point read out of its range (a misread formula)
//! or a point the value already holds (the solver and the value disagree) makes the target
//! keep nothing, which is trivially kept. An ascent that runs out of time returns nothing.

use super::FunctionContext;
use crate::domain::{Int, LinCons};
use crate::graph::{CutKind, CutPointId};
use crate::ir::ValueId;
use crate::smt::{PointResult, Products, RegionFormula, SideFact};
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

/// Limits of one ascent.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The analysis returns nothing past it (an instant of the thread's CPU clock).
    pub deadline: Instant,
    /// The longest solver query.
    pub query: Duration,
    /// Units of exact encoding of shifts, divisions and bitwise operations per region
    /// (`smt::Products::ExactUpTo`).
    pub exact_operations: u32,
}

/// The value of one cut point in an ascent.
pub(crate) trait CutValue {
    /// The values whose readings a point gives, in the order of the point.
    fn values(&self) -> &[ValueId];
    /// No state reached the cut point yet.
    fn is_bottom(&self) -> bool;
    /// The value keeps nothing: no point can leave it.
    fn is_top(&self) -> bool;
    /// What the value says as solver facts (a false fact when it is bottom).
    fn facts(&self) -> Vec<SideFact>;
    /// Joins a point (the readings of [`CutValue::values`]); false when it was inside
    /// already.
    fn join_point(&mut self, point: &[Int]) -> bool;
    /// Keeps nothing from now on.
    fn forget(&mut self);
}

/// Grows `at` (one value per cut point, in the graph's order: the entry's keeping nothing,
/// the others bottom) next to the engine's `invariants` (one disjunction per cut point,
/// `None` where the engine found no state) and the facts `known(p)` true of every execution
/// at `p`, until no edge finds a point outside its target. `None` when the deadline passed
/// first, or when the invariants do not cover the graph.
pub(crate) fn ascend<C: CutValue>(
    ctx: &FunctionContext<'_>,
    invariants: &[Option<Vec<Vec<LinCons>>>],
    known: &dyn Fn(CutPointId) -> Vec<SideFact>,
    mut at: Vec<C>,
    limits: Limits,
) -> Option<Vec<C>> {
    let graph = ctx.graph();
    if invariants.len() != graph.cut_points.len() || at.len() != graph.cut_points.len() {
        return None;
    }
    let mut formulas: BTreeMap<CutPointId, RegionFormula> = BTreeMap::new();
    let mut work: BTreeSet<CutPointId> = graph
        .ids()
        .filter(|p| graph.cut_point(*p).kind == CutKind::Entry)
        .collect();
    while let Some(p) = work.pop_first() {
        let Some(from) = &invariants[p.index()] else {
            continue;
        };
        if at[p.index()].is_bottom() {
            continue;
        }
        for &q in graph.successors(p) {
            if matches!(graph.cut_point(q).kind, CutKind::ErrorSite(_)) {
                continue;
            }
            loop {
                let left = crate::clock::until(limits.deadline);
                if left.is_zero() {
                    return None;
                }
                if at[q.index()].is_top() {
                    break;
                }
                let mut facts = known(p);
                facts.extend(at[p.index()].facts());
                let outside = (!at[q.index()].is_bottom()).then(|| at[q.index()].facts());
                let values = at[q.index()].values().to_vec();
                let formula = formulas.entry(p).or_insert_with(|| {
                    RegionFormula::new(ctx, p, Products::ExactUpTo(limits.exact_operations))
                });
                match formula.query_point_outside(
                    from,
                    &facts,
                    q,
                    outside.as_deref(),
                    &values,
                    limits.query.min(left),
                ) {
                    PointResult::Unsat => break,
                    PointResult::Point(x) => {
                        // A reading outside its range is a state no execution has: the
                        // formula misread the target (wrong proofs once came from a
                        // constant read signed in an unsigned phi); keep nothing.
                        let misread = formula.misreads_point(&values, &x);
                        let cut = &mut at[q.index()];
                        if misread || !cut.join_point(&x) {
                            // A point inside: the solver and the value disagree (never
                            // expected); keep nothing rather than loop.
                            cut.forget();
                        }
                        work.insert(q);
                    }
                    PointResult::Unknown(_) => {
                        at[q.index()].forget();
                        work.insert(q);
                        break;
                    }
                }
            }
        }
    }
    Some(at)
}
