//! [`Step::Refine`]: predicate refinement (`analysis::refine`) for the assertions the
//! engine left imprecise: predicates found backwards from the open error sites split the
//! states of a re-run of the engine in a domain that keeps one numeric state per valuation.
//! Predicates only split states, so a proof rests on the run's invariants alone.

use super::stages::Step;
use super::{
    imprecise_error_sites, settled, stage_end, Allowance, Facts, Found, Inputs, Progress, State,
};
use crate::analysis::focus::CutFacts;
use crate::analysis::lower::Lowering;
use crate::analysis::phases::Guards;
use crate::analysis::refine::LocalPredicates;
use crate::analysis::Outcome;
use crate::check::{CheckRun, RefinementStats, StageEnd, StageRun};
use crate::domain::NumericDomain;
use crate::driver::engine::{loop_invariants_of, run_engine, Run};
use crate::driver::AnalysisConfig;
use std::time::Instant;

/// Runs the rounds within the allowance and records what they did.
pub(super) fn refinement<P: NumericDomain>(
    inputs: &Inputs<'_>,
    state: &mut State,
    allowance: &Allowance,
) {
    let Some(found) = state.found.as_mut() else {
        return;
    };
    state.refinement = Some(rounds::<P>(
        inputs.facts,
        inputs.config,
        inputs.cut_facts,
        allowance,
        found,
        &mut state.progress,
    ));
}

/// Rounds of predicate discovery and re-analysis in `P`, for the assertions still
/// imprecise, until none is left, a round finds no new predicate, `max_fruitless_rounds`
/// rounds in a row settle nothing, or the allowance runs out. A round that proves something
/// makes its invariants the function's (`found`).
fn rounds<P: NumericDomain>(
    facts: &Facts<'_>,
    config: &AnalysisConfig,
    cut_facts: &CutFacts,
    allowance: &Allowance,
    found: &mut Found,
    progress: &mut Progress,
) -> RefinementStats {
    let params = &config.params.stages;
    let func = facts.lowering.func();
    let graph = facts.ctx.graph();
    let deadline = allowance.deadline(facts.memory);
    let mut stats = RefinementStats {
        function: func.name.clone(),
        ..RefinementStats::default()
    };
    let refining = Instant::now();
    let mut preds = LocalPredicates::none(
        graph.cut_points.len(),
        config.params.refine.max_per_cut_point,
    );
    let mut end = StageEnd::Finished;
    let max_rounds = params.max_refinement_rounds;
    let mut detail = format!("stopped after {max_rounds} rounds");
    let mut fruitless = 0usize;
    // The first round also splits each loop head on whether the loop was entered,
    let mut seeded = 0;
    if config.params.precision.loop_entry_predicates {
        seeded = crate::analysis::loop_entry::seed::<crate::domain::Polyhedron>(
            &facts.lowering,
            &found.at_cut_points,
            &mut preds,
        );
    }
    // and on the phases of each loop (the guards of its body, read at the head).
    if config.params.precision.phase_splitting {
        seeded += crate::analysis::phases::seed::<crate::domain::Polyhedron>(
            &facts.lowering,
            &found.at_cut_points,
            Guards::Branches,
            &mut preds,
        );
    }
    // The phases chosen by selects wait until a round finds no new predicate or the rounds
    // settle nothing.
    let mut selects_tried = !config.params.precision.phase_splitting;
    while stats.rounds < max_rounds {
        if deadline.expired() {
            end = StageEnd::Timeout;
            detail = format!(
                "its share of the budget ran out in round {}",
                stats.rounds + 1
            );
            break;
        }
        let round_start = Instant::now();
        crate::progress::stage(|| format!("refinement round {}", stats.rounds + 1));
        let (open, errors) = imprecise_error_sites(facts, &progress.table);
        if errors.is_empty() {
            detail = "no assertion left open".into();
            break;
        }
        let discovered = crate::analysis::refine::discover::<crate::domain::Polyhedron>(
            &facts.lowering,
            &found.at_cut_points,
            &errors,
            &mut preds,
            &deadline,
        );
        stats.error_paths += discovered.paths;
        let charge = |times: &mut [CheckRun]| {
            for (t, open) in times.iter_mut().zip(&open) {
                if *open {
                    t.refinement += round_start.elapsed();
                }
            }
        };
        let mut added = discovered.added + std::mem::take(&mut seeded);
        if added == 0 {
            added = seed_selects(facts, found, &mut preds, &mut selects_tried);
        }
        if added == 0 {
            charge(&mut progress.times);
            detail = format!("round {} found no new predicate", stats.rounds + 1);
            break;
        }
        stats.rounds += 1;
        let slots = preds.assign_slots();
        let refined_lowering = Lowering::with_predicate_slots(facts.ctx, slots.slots);
        let run: Run<P> = run_engine(
            &refined_lowering,
            config.engine,
            &slots,
            cut_facts,
            &deadline,
        );
        charge(&mut progress.times);
        if run.outcome != Outcome::Complete {
            end = stage_end(deadline.blame(run.outcome));
            detail = format!("round {} did not reach a fixpoint", stats.rounds);
            break;
        }
        stats.predicates = preds.count();
        stats.cut_points_with_predicates = graph.ids().filter(|c| !preds.at(*c).is_empty()).count();
        stats.bdd_vars = slots.slots;
        stats.bdd_vars_unshared = slots.unshared;
        let mut n_settled = 0;
        for (i, b) in facts.error_blocks.iter().enumerate() {
            if progress.table.is_imprecise(i) && run.invariants.at(*b).is_none() {
                settled(progress.table.prove(i));
                n_settled += 1;
            }
        }
        stats.proved += n_settled;
        found.at_cut_points = run.at_cut_points.clone();
        found.loop_invariants = loop_invariants_of(&refined_lowering, &run);
        fruitless = if n_settled == 0 { fruitless + 1 } else { 0 };
        if fruitless >= params.max_fruitless_rounds {
            // One more round, with the phases chosen by selects, before giving up.
            seeded = seed_selects(facts, found, &mut preds, &mut selects_tried);
            if seeded > 0 {
                fruitless = 0;
                continue;
            }
        }
        if fruitless >= params.max_fruitless_rounds && progress.table.any_imprecise() {
            detail = format!(
                "stopped after round {}: {fruitless} round{} in a row settled nothing",
                stats.rounds,
                if fruitless == 1 { "" } else { "s" }
            );
            break;
        }
    }
    stats.millis = refining.elapsed().as_millis();
    progress.stages.push(StageRun {
        stage: Step::Refine.reported(),
        elapsed: refining.elapsed(),
        end,
        detail: Some(detail),
    });
    stats
}

/// Adds the phase predicates of the comparisons loop bodies choose values by
/// (`Guards::Selects`), once per refinement: `tried` says whether they were; returns how
/// many were added.
fn seed_selects(
    facts: &Facts<'_>,
    found: &Found,
    preds: &mut LocalPredicates,
    tried: &mut bool,
) -> usize {
    if std::mem::replace(tried, true) {
        return 0;
    }
    crate::analysis::phases::seed::<crate::domain::Polyhedron>(
        &facts.lowering,
        &found.at_cut_points,
        Guards::Selects,
        preds,
    )
}
