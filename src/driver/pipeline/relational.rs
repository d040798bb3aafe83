//! [`Step::RelationalCongruences`] and [`Step::TemplateBounds`]: for the assertions still
//! imprecise after refinement, the relational congruences of the cut points
//! (`analysis::relational_congruence`: affine lattices of the live values, found by the
//! solver next to the engine's invariants), then the bounds of linear templates
//! (`analysis::template_bounds`) found the same way next to both, each with a query per cut
//! point that reaches an open error site. The engine's invariants, the congruences, the
//! lattices and the bounds are true of every execution, so an unsat query is a proof; a
//! solver `unknown` proves nothing, and an analysis that did not reach its fixpoint in time
//! gives nothing at all.

use super::congruences::prove_excluded;
use super::stages::Step;
use super::{Allowance, Inputs, RelationalFacts, State};
use crate::analysis::relational_congruence::{self, Limits};
use crate::analysis::relevance::Relevance;
use crate::analysis::{congruence, template_bounds};
use crate::check::{StageEnd, StageRun};
use crate::graph::CutPointId;
use crate::ir::BlockId;
use crate::smt::SideFact;
use std::time::Instant;

/// Runs the relational congruences within the allowance; settles the open assertions they
/// prove, and keeps them for the template bounds when they reached their fixpoint and
/// every query was asked in time.
pub(super) fn relational_congruences(
    inputs: &Inputs<'_>,
    state: &mut State,
    allowance: &Allowance,
) {
    let Some(found) = &state.found else {
        return;
    };
    let started = Instant::now();
    let deadline = allowance.until;
    if deadline <= started {
        return;
    }
    let ctx = inputs.facts.ctx;
    let classes = congruence::analyze(ctx.func(), ctx.readings());
    let limits = Limits {
        deadline,
        query: inputs.config.params.stages.congruence_query,
        exact_operations: inputs.config.params.stages.stage_exact_operations,
    };
    let relevant = open_relevance(inputs, state);
    let Some(relations) =
        relational_congruence::analyze(ctx, &found.at_cut_points, &classes, &relevant, limits)
    else {
        state
            .progress
            .stages
            .push(no_fixpoint(Step::RelationalCongruences, started));
        return;
    };
    let excluded = prove_excluded(
        inputs,
        found,
        deadline,
        |p| Some(known_at(ctx, &classes, &relations, p)),
        &mut state.progress,
    );
    state.progress.stages.push(StageRun {
        stage: Step::RelationalCongruences.reported(),
        elapsed: started.elapsed(),
        end: excluded.end.clone(),
        detail: Some(format!(
            "{} of {} open assertions proved; {} congruences at cut points",
            excluded.proved,
            excluded.open,
            relations.count()
        )),
    });
    if excluded.end == StageEnd::Finished {
        state.relational = Some(RelationalFacts { classes, relations });
    }
}

/// Runs the template bounds, next to the congruences and the lattices the relational
/// stage kept, within the allowance; settles the open assertions they prove.
pub(super) fn template_bounds(inputs: &Inputs<'_>, state: &mut State, allowance: &Allowance) {
    let (Some(found), Some(relational)) = (&state.found, &state.relational) else {
        return;
    };
    let started = Instant::now();
    let ctx = inputs.facts.ctx;
    let known = |p| known_at(ctx, &relational.classes, &relational.relations, p);
    let limits = template_bounds::Limits {
        deadline: allowance.until,
        query: inputs.config.params.stages.congruence_query,
        exact_operations: inputs.config.params.stages.stage_exact_operations,
    };
    let relevant = open_relevance(inputs, state);
    let Some(bounds) =
        template_bounds::analyze(ctx, &found.at_cut_points, &known, &relevant, limits)
    else {
        state
            .progress
            .stages
            .push(no_fixpoint(Step::TemplateBounds, started));
        return;
    };
    let excluded = prove_excluded(
        inputs,
        found,
        allowance.until,
        |p| {
            let mut side = known(p);
            side.extend(bounds.facts_at(p));
            Some(side)
        },
        &mut state.progress,
    );
    state.progress.stages.push(StageRun {
        stage: Step::TemplateBounds.reported(),
        elapsed: started.elapsed(),
        end: excluded.end,
        detail: Some(format!(
            "{} of {} open assertions proved; {} template bounds at cut points",
            excluded.proved,
            excluded.open,
            bounds.count()
        )),
    });
}

/// The relevance of the function's values to the error sites of its open assertions.
fn open_relevance(inputs: &Inputs<'_>, state: &State) -> Relevance {
    let open: Vec<BlockId> = (inputs.facts.error_blocks.iter().enumerate())
        .filter(|(i, _)| state.progress.table.is_imprecise(*i))
        .map(|(_, b)| *b)
        .collect();
    Relevance::toward(inputs.func, &open)
}

/// The record of a stage whose analysis did not reach its fixpoint before its deadline: it
/// gives nothing.
fn no_fixpoint(step: Step, started: Instant) -> StageRun {
    StageRun {
        stage: step.reported(),
        elapsed: started.elapsed(),
        end: StageEnd::Timeout,
        detail: Some("no fixpoint in time".into()),
    }
}

/// The facts at `p` every query of both stages starts from: the congruences of the values
/// live there and `p`'s lattice.
fn known_at(
    ctx: &crate::analysis::FunctionContext<'_>,
    classes: &congruence::Congruences,
    relations: &relational_congruence::RelationalCongruences,
    p: CutPointId,
) -> Vec<SideFact> {
    let mut side = classes.facts_at(ctx, p);
    side.extend(relations.facts_at(p));
    side
}
