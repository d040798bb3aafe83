//! [`Step::CareSet`]: extrapolation with a care set (`analysis::careset`) for the
//! assertions the engine left imprecise, before predicate refinement: rounds that grow care
//! sets backwards from the open error sites along abstract error paths, then re-run path
//! focusing over the engine's domain with widening replaced by extrapolation with those
//! care sets. The numeric counterpart of predicate refinement: it changes which upper
//! bound widening keeps, never what a state means, so a proof rests on the run's
//! invariants alone (certified like every engine's in `tests/inductive.rs`).

use super::stages::Step;
use super::{imprecise_error_sites, settled, stage_end, Allowance, Inputs, State};
use crate::analysis::careset::{self, CareSets};
use crate::analysis::focus::{analyze_with_care_sets, BlockLevel};
use crate::analysis::refine::SlotAssignment;
use crate::analysis::Outcome;
use crate::check::{StageEnd, StageRun};
use crate::domain::NumericDomain;
use crate::driver::engine::{loop_invariants_of, Run};
use std::time::Instant;

/// Runs the care-set rounds within the allowance; settles what a complete run proves. When
/// a round proves something, its invariants become the function's (`found`); otherwise
/// `found` is kept, so that predicate refinement starts where it did without care sets.
pub(super) fn care_set_stage<D: NumericDomain>(
    inputs: &Inputs<'_>,
    state: &mut State,
    allowance: &Allowance,
) {
    let (facts, config, cut_facts) = (inputs.facts, inputs.config, inputs.cut_facts);
    let Some(found) = state.found.as_mut() else {
        return;
    };
    let progress = &mut state.progress;
    let params = &config.params.care_set;
    let graph = facts.ctx.graph();
    let deadline = allowance.deadline(facts.memory);
    if deadline.expired() {
        return;
    }
    let stage_start = Instant::now();
    let mut care = CareSets::none(graph.cut_points.len());
    let mut current = found.at_cut_points.clone();
    let mut end = StageEnd::Finished;
    let mut rounds = 0usize;
    let mut n_proved = 0usize;
    let mut detail = None;
    while rounds < params.max_rounds {
        let (_, errors) = imprecise_error_sites(facts, &progress.table);
        if errors.is_empty() {
            break;
        }
        crate::progress::stage(|| format!("care sets, round {}", rounds + 1));
        let discovered = careset::discover::<crate::domain::Polyhedron>(
            &facts.lowering,
            &current,
            &errors,
            &mut care,
            &deadline,
        );
        if discovered.added == 0 {
            if deadline.expired() {
                end = StageEnd::Timeout;
            }
            detail.get_or_insert_with(|| format!("round {} found no new care set", rounds + 1));
            break;
        }
        rounds += 1;
        let run = analyze_with_care_sets::<D>(
            &facts.lowering,
            &SlotAssignment::default(),
            cut_facts,
            &care,
            BlockLevel::CutPoints,
            &deadline,
        );
        if run.outcome != Outcome::Complete {
            end = stage_end(deadline.blame(run.outcome));
            detail = Some(format!("round {rounds} did not reach a fixpoint"));
            break;
        }
        let mut proved_here = 0usize;
        for (i, b) in facts.error_blocks.iter().enumerate() {
            if progress.table.is_imprecise(i) && run.invariants.at(*b).is_none() {
                settled(progress.table.prove(i));
                proved_here += 1;
            }
        }
        n_proved += proved_here;
        current = run.at_cut_points.clone();
        if proved_here > 0 {
            let run = Run {
                invariants: run.invariants,
                outcome: run.outcome,
                at_cut_points: run.at_cut_points,
                spent: run.spent,
            };
            found.loop_invariants = loop_invariants_of(&facts.lowering, &run);
            found.at_cut_points = run.at_cut_points;
        }
    }
    let elapsed = stage_start.elapsed();
    for (i, t) in progress.times.iter_mut().enumerate() {
        if progress.table.open_reason(i).is_some() || n_proved > 0 {
            t.refinement += elapsed;
        }
    }
    progress.stages.push(StageRun {
        stage: Step::CareSet.reported(),
        elapsed,
        end,
        detail: Some(format!(
            "{n_proved} proved in {rounds} round{}, {} polyhedra in the care sets of {} cut point{}{}",
            if rounds == 1 { "" } else { "s" },
            care.count(),
            care.cut_points(),
            if care.cut_points() == 1 { "" } else { "s" },
            detail.map(|d| format!("; {d}")).unwrap_or_default()
        )),
    });
}
