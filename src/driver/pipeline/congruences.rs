//! [`Step::Congruences`], and the proof the stages with side facts share: an open error
//! site that no path reaches from the invariants of its predecessors together with facts
//! true of every execution there (congruences, relational or not, template bounds) is
//! proved.

use super::stages::Step;
use super::{settled, Allowance, Facts, Found, Inputs, Progress, State};
use crate::check::{StageEnd, StageRun};
use crate::graph::CutPointId;
use crate::smt::{Products, QueryResult, RegionFormula, SideFact};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// [`Step::Congruences`]: proves each imprecise assertion whose error site no path reaches
/// from the engine's invariant of a cut point together with the congruences of the values
/// live there. Both are true of every execution (the engine's invariants are sound, the
/// congruences too, see `analysis::congruence`), so an unsat query is a proof; a solver
/// `unknown` proves nothing. Exact formulas (bit operations with constants, `x & 5`, are
/// what a congruence helps with); the stage stops at the end of its allowance.
pub(super) fn congruences(inputs: &Inputs<'_>, state: &mut State, allowance: &Allowance) {
    let Some(found) = &state.found else {
        return;
    };
    let started = Instant::now();
    let ctx = inputs.facts.ctx;
    let classes = crate::analysis::congruence::analyze(ctx.func(), ctx.readings());
    let excluded = prove_excluded(
        inputs,
        found,
        allowance.until,
        |p| Some(classes.facts_at(ctx, p)).filter(|f| !f.is_empty()),
        &mut state.progress,
    );
    state.progress.stages.push(StageRun {
        stage: Step::Congruences.reported(),
        elapsed: started.elapsed(),
        end: excluded.end,
        detail: Some(format!(
            "{} of {} open assertions proved; {} values with a congruence",
            excluded.proved,
            excluded.open,
            classes.informative().count()
        )),
    });
}

/// What [`prove_excluded`] did.
pub(super) struct Excluded {
    /// Assertions proved.
    pub proved: usize,
    /// Assertions imprecise when it started.
    pub open: usize,
    /// `Timeout` when the deadline stopped it.
    pub end: StageEnd,
}

/// Proves each imprecise assertion whose error site no path reaches from the invariants
/// `found` of its predecessors with the side facts `side(p)` as extra hypotheses, each
/// solver query within `StageParams::congruence_query`, until `deadline`.
pub(super) fn prove_excluded(
    inputs: &Inputs<'_>,
    found: &Found,
    deadline: Instant,
    mut side: impl FnMut(CutPointId) -> Option<Vec<SideFact>>,
    progress: &mut Progress,
) -> Excluded {
    let facts = inputs.facts;
    let graph = facts.ctx.graph();
    let query_cap = inputs.config.params.stages.congruence_query;
    let mut formulas: BTreeMap<CutPointId, RegionFormula> = BTreeMap::new();
    let mut res = Excluded {
        proved: 0,
        open: 0,
        end: StageEnd::Finished,
    };
    for (i, b) in facts.error_blocks.iter().enumerate() {
        if !progress.table.is_imprecise(i) {
            continue;
        }
        res.open += 1;
        if res.end == StageEnd::Timeout {
            continue;
        }
        let Some(error) = graph.cut_of_block(*b) else {
            continue;
        };
        match error_unreachable_with(
            facts,
            found,
            error,
            &mut formulas,
            query_cap,
            deadline,
            &mut side,
        ) {
            Some(true) => {
                settled(progress.table.prove(i));
                res.proved += 1;
            }
            Some(false) => {}
            None => res.end = StageEnd::Timeout,
        }
    }
    res
}

/// Whether no path reaches the error cut point `error` from the invariants `found` of its
/// predecessors, each with the side facts `side(p)` (congruences, relational or not) as
/// extra hypotheses; `side` gives `None` where it knows nothing, and then nothing is
/// proved. `None` when the deadline passed first. A solver `unknown` is never a proof.
fn error_unreachable_with(
    facts: &Facts<'_>,
    found: &Found,
    error: CutPointId,
    formulas: &mut BTreeMap<CutPointId, RegionFormula>,
    query_cap: Duration,
    deadline: Instant,
    mut side: impl FnMut(CutPointId) -> Option<Vec<SideFact>>,
) -> Option<bool> {
    let ctx = facts.ctx;
    let graph = ctx.graph();
    let exact = ctx.params().stages.stage_exact_operations;
    let outside = BTreeMap::from([(error, None)]);
    for p in graph.ids() {
        let Some(from) = &found.at_cut_points[p.index()] else {
            continue;
        };
        if p == error || !graph.successors(p).contains(&error) {
            continue;
        }
        let Some(side) = side(p) else {
            return Some(false);
        };
        let left = crate::clock::until(deadline);
        if left.is_zero() {
            return None;
        }
        let formula = formulas
            .entry(p)
            .or_insert_with(|| RegionFormula::new(ctx, p, Products::ExactUpTo(exact)));
        match formula.query_with_facts(from, &side, &outside, &[], query_cap.min(left)) {
            QueryResult::Unsat => {}
            QueryResult::Path(_) | QueryResult::Unknown(_) => return Some(false),
        }
    }
    Some(true)
}
