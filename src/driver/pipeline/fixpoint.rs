//! The fixpoint stages: the interval stage (pass 1) and the chosen engine (pass 2). Each
//! proves the assertions whose error site gets no invariant, and its invariants become what
//! the later stages start from.

use super::stages::Step;
use super::{open_for, run_end, settled, stage_end, Allowance, Found, Inputs, State};
use crate::analysis::focus::{CutFacts, SolverSpent};
use crate::analysis::refine::SlotAssignment;
use crate::analysis::{Deadline, Outcome};
use crate::check::StageRun;
use crate::domain::{IntervalDomain, NumericDomain};
use crate::driver::engine::{loop_invariants_of, run_engine, Run};
use crate::driver::Engine;
use crate::ir::BlockId;
use std::time::Instant;

/// [`Step::Interval`]: the classic engine over intervals, within its allowance (a budget of
/// work; time is only a safety net); proves the assertions whose error site gets no
/// invariant. Its invariants become the function's when it reached a fixpoint (otherwise it
/// settles nothing and gives no facts, and the assertions stay open for the engine).
///
/// Its proofs rest on what `-Z engine=classic -Z domain=interval` proofs rest on: the same
/// lowering and the same certification in the test suite (`tests/inductive.rs` certifies
/// every engine's invariants); they are final in the table like the engine's.
pub(super) fn interval_stage(inputs: &Inputs<'_>, state: &mut State, allowance: &Allowance) {
    let facts = inputs.facts;
    let progress = &mut state.progress;
    let started = Instant::now();
    let deadline = allowance.deadline(facts.memory);
    let mut run: Run<IntervalDomain> = run_engine(
        &facts.lowering,
        Engine::Classic,
        &SlotAssignment::default(),
        &CutFacts::none(),
        &deadline,
    );
    run.outcome = deadline.blame(run.outcome);
    let elapsed = started.elapsed();
    for t in &mut progress.times {
        t.analysis += elapsed;
    }
    let mut n_proved = 0usize;
    if run.outcome == Outcome::Complete {
        for (i, b) in facts.error_blocks.iter().enumerate() {
            if progress.table.open_reason(i).is_some() && run.invariants.at(*b).is_none() {
                settled(progress.table.prove(i));
                n_proved += 1;
            }
        }
    }
    progress.stages.push(StageRun {
        stage: Step::Interval.reported(),
        elapsed,
        end: stage_end(run.outcome),
        detail: Some(format!(
            "{n_proved} of {} assertions proved, {} steps",
            facts.error_blocks.len(),
            deadline.spent()
        )),
    });
    state.end = run_end(run.outcome);
    state.found = (run.outcome == Outcome::Complete).then(|| Found {
        outcome: run.outcome,
        loop_invariants: loop_invariants_of(&facts.lowering, &run),
        at_cut_points: run.at_cut_points,
    });
}

/// [`Step::Engine`]: the engine over `D`, with the interval stage's facts (less what
/// domain types leave untracked); proves the assertions whose error site gets no
/// invariant, or, when it stops before a fixpoint, leaves every assertion open for that.
/// Its invariants become the function's.
pub(super) fn engine_stage<D: NumericDomain>(
    inputs: &Inputs<'_>,
    state: &mut State,
    allowance: &Allowance,
) {
    let facts = inputs.facts;
    // Domain types: the engine tracks only the relational packs of what is still open;
    // refinement keeps every value.
    let open: Vec<BlockId> = (0..facts.error_blocks.len())
        .filter(|i| state.progress.table.open_reason(*i).is_some())
        .map(|i| facts.error_blocks[i])
        .collect();
    let (engine_facts, domain_types) = crate::driver::domain_types::engine_facts(
        facts.ctx,
        inputs.config,
        inputs.cut_facts,
        &open,
    );
    state.domain_types = domain_types;
    let progress = &mut state.progress;
    let engine_started = Instant::now();
    // Counted from the function's start, before the facts were computed. Path focusing
    // leaves a share for the classic engine, which runs when it stops before a fixpoint.
    let focusing = inputs.config.engine == Engine::Focus;
    let fallback = focusing && inputs.config.params.stages.classic_after_focus;
    let share = inputs.config.params.stages.focus_share;
    let mut deadline = allowance.deadline(facts.memory);
    let (mut focus_until, mut focus_meter) = (allowance.until, allowance.meter);
    if fallback && share < 1.0 {
        let time = allowance.left().mul_f64(share);
        deadline = Deadline::after(time).with_memory(facts.memory);
        if let Some(steps) = allowance.work {
            deadline = deadline.with_work(steps);
        }
        // Path focusing's part of the stage's work too, so that the classic engine starts
        // after the same work whatever the load.
        focus_until = crate::clock::now() + time;
        focus_meter = allowance.meter.map(|m| (m as f64 * share) as u64);
    }
    let (mut first, at_share): (Run<D>, bool) =
        crate::domain::stop::within(focus_until, focus_meter, || {
            let run = run_engine(
                &facts.lowering,
                inputs.config.engine,
                &SlotAssignment::default(),
                &engine_facts,
                &deadline,
            );
            (run, crate::domain::stop::work_spent())
        });
    first.outcome = share_is_time(deadline.blame(first.outcome), at_share);
    progress.stages.push(StageRun {
        stage: Step::Engine.reported(),
        elapsed: engine_started.elapsed(),
        end: stage_end(first.outcome),
        detail: solver_detail(&first.spent),
    });
    // Path focusing stopped before a fixpoint (a loop body whose paths the solver cannot
    // enumerate within its share): the classic engine over the same domain asks the solver
    // nothing, and its fixpoint, coarser where widening joins paths, is sound.
    let left_time = first.outcome == Outcome::Timeout && share < 1.0;
    if fallback && (first.outcome == Outcome::Budget || left_time) {
        let started = Instant::now();
        let deadline = allowance.deadline(facts.memory);
        let mut classic: Run<D> = run_engine(
            &facts.lowering,
            Engine::Classic,
            &SlotAssignment::default(),
            &engine_facts,
            &deadline,
        );
        classic.outcome = share_is_time(
            deadline.blame(classic.outcome),
            crate::domain::stop::work_spent(),
        );
        progress.stages.push(StageRun {
            stage: Step::Engine.reported(),
            elapsed: started.elapsed(),
            end: stage_end(classic.outcome),
            detail: Some("the classic engine, after path focusing's budget".into()),
        });
        if classic.outcome == Outcome::Complete {
            first = classic;
        }
    }
    let elapsed = engine_started.elapsed();
    for (i, t) in progress.times.iter_mut().enumerate() {
        if progress.table.open_reason(i).is_some() {
            t.analysis += elapsed;
        }
    }
    match first.outcome {
        Outcome::Complete => {
            for (i, b) in facts.error_blocks.iter().enumerate() {
                // Only what the interval stage left open: the table refuses to settle a
                // verdict twice (and a debug build fails its assertion).
                if progress.table.open_reason(i).is_some() && first.invariants.at(*b).is_none() {
                    settled(progress.table.prove(i));
                }
            }
        }
        stopped => {
            // The function's whole time budget: pass 1's time, and pass 2's budget.
            let whole = progress.pass_one + inputs.config.timeout;
            let limit = open_for(stopped, whole, inputs.config.memory_per_function);
            progress.table.stop_open(limit);
        }
    }
    state.end = run_end(first.outcome);
    state.found = Some(Found {
        outcome: first.outcome,
        loop_invariants: loop_invariants_of(&facts.lowering, &first),
        at_cut_points: first.at_cut_points,
    });
}

/// An engine stopped by its share of the function's budget counted in work (`at_share`:
/// the share's work is spent) stopped at its time, as the report and the second chances
/// see it: the work only stands for the time, at a rate that does not follow the load.
/// A budget of solver work of its own stays a budget.
fn share_is_time(outcome: Outcome, at_share: bool) -> Outcome {
    match outcome {
        Outcome::Budget if at_share => Outcome::Timeout,
        other => other,
    }
}

/// What path focusing asked of the solver, for the report (`None` for the classic
/// engine, which asks nothing).
fn solver_detail(spent: &SolverSpent) -> Option<String> {
    (spent.queries > 0).then(|| {
        format!(
            "{} solver queries, {} work{}",
            spent.queries,
            spent.work,
            if spent.exhausted {
                " (its budget of solver work is spent)"
            } else {
                ""
            }
        )
    })
}
