//! [`Step::QuickCexBeforeEngine`], [`Step::QuickCex`] and [`Step::FullCex`]: the
//! counterexample searches. A short one, so that the engine and refinement, which cannot
//! help with a real bug, do not use up the budget of one: before the engine in a function
//! that reads memory (on arrays the engine may not finish, and a bug found only after it
//! would never be found), with its own allowance for the native build; elsewhere after the
//! congruences. Then the full one with the rest of the budget. A counterexample counts only
//! once replayed natively.

use super::stages::Step;
use super::{settled, Allowance, Inputs, Progress, State};
use crate::analysis::FunctionContext;
use crate::cex::{CexConfig, CexOutcome};
use crate::check::{StageEnd, StageRun};
use crate::driver::verdicts::Open;
use crate::ir::{CheckId, CheckKind, Function, Module};
use crate::params::StageParams;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

/// The short search: its native build within the allowance, then its slice (the build is
/// cached for the run's later searches: on a loaded machine clang alone took the whole
/// slice, and the program never ran).
pub(super) fn quick(inputs: &Inputs<'_>, state: &mut State, allowance: &Allowance) {
    let Some(cex) = inputs.cex else {
        return;
    };
    let time = match allowance.search_slice {
        Some(slice) => SearchTime::AfterBuild(allowance.until, slice),
        None => SearchTime::Until(allowance.until),
    };
    search(
        Step::QuickCex,
        inputs.facts.ctx,
        inputs.module,
        cex,
        &inputs.config.params.stages,
        time,
        &mut state.progress,
    );
}

/// The full search, until the end of the allowance. Runtime checks of one function fail
/// independently: after a confirmed one, the search goes on for the others (an assertion's
/// search stops at the first).
pub(super) fn full(inputs: &Inputs<'_>, state: &mut State, allowance: &Allowance) {
    let Some(cex) = inputs.cex else {
        return;
    };
    while search(
        Step::FullCex,
        inputs.facts.ctx,
        inputs.module,
        cex,
        &inputs.config.params.stages,
        SearchTime::Until(allowance.until),
        &mut state.progress,
    ) {}
}

/// Whether `func` reads memory: a load the memory model lowered to a choice (a summary
/// cell, an arbitrary cell) or left arbitrary.
pub(super) fn reads_memory(func: &Function) -> bool {
    func.blocks.iter().any(|b| {
        b.insts.iter().any(|i| {
            matches!(
                i,
                crate::ir::Inst::Havoc {
                    reason: crate::ir::HavocReason::Load
                        | crate::ir::HavocReason::FieldParam { .. },
                    ..
                }
            )
        })
    })
}

/// How long a counterexample search may run.
#[derive(Clone, Copy)]
enum SearchTime {
    /// Build and search until this instant (of the thread's CPU clock).
    Until(Instant),
    /// The native build until the instant (of the thread's CPU clock), then the search for
    /// the duration (within it).
    AfterBuild(Instant, Duration),
}

/// Searches, before the deadline of `time`, a counterexample for the assertions left open
/// by imprecision, the engine's time or a resource budget; one confirmed by native replay
/// refutes its assertion. The time goes to the targets. Does not run (and is not listed)
/// when there is no target or too little time. True when it refuted a runtime check or set
/// one aside whose model did not replay, so that the caller may search again for the
/// others.
fn search(
    step: Step,
    ctx: &FunctionContext<'_>,
    module: &Module,
    cex: &CexConfig,
    params: &StageParams,
    time: SearchTime,
    progress: &mut Progress,
) -> bool {
    // The share ends on the thread's CPU clock; the search waits for native builds and
    // runs, so it counts on the wall clock: the CPU time left, stretched by the thread's
    // share of a CPU (the same search beside busy processes).
    let time = match time {
        SearchTime::Until(d) => SearchTime::Until(crate::clock::to_wall(d)),
        SearchTime::AfterBuild(d, slice) => {
            SearchTime::AfterBuild(crate::clock::to_wall(d), crate::clock::stretch(slice))
        }
    };
    let deadline = match time {
        SearchTime::Until(d) | SearchTime::AfterBuild(d, _) => d,
    };
    let searchable = |i: usize| {
        matches!(
            progress.table.open_reason(i),
            Some(Open::Imprecise | Open::Stopped(_))
        ) && !progress.times[i].unconfirmed
    };
    // An error site at a call that may call an escaped error function branches on an
    // arbitrary condition, which the search cannot drive: it is left out.
    let may_call = |c: &CheckId| matches!(module.check(*c).kind, CheckKind::MayCallError { .. });
    let targets: Vec<CheckId> = progress
        .table
        .checks()
        .iter()
        .enumerate()
        .filter(|(i, c)| searchable(*i) && !may_call(c))
        .map(|(_, c)| *c)
        .collect();
    if targets.is_empty() || Instant::now() + params.min_search_time >= deadline {
        return false;
    }
    let stage = step.reported();
    crate::progress::stage(|| stage.name().into());
    let started = Instant::now();
    let found = catch_unwind(AssertUnwindSafe(|| match time {
        SearchTime::Until(d) => crate::cex::find_any_counterexample(ctx, module, &targets, cex, d),
        SearchTime::AfterBuild(build, slice) => {
            crate::cex::find_after_build(ctx, module, &targets, cex, build, slice)
        }
    }));
    let elapsed = started.elapsed();
    let times = &mut progress.times;
    for t in times.iter_mut().filter(|t| targets.contains(&t.check)) {
        t.search += elapsed;
    }
    let mut note = |why: String, unconfirmed: bool| {
        for t in times.iter_mut().filter(|t| targets.contains(&t.check)) {
            t.search_note = Some(why.clone());
            t.unconfirmed |= unconfirmed;
        }
    };
    let mut refuted_runtime = false;
    let (end, detail) = match found {
        Ok((Some(check), CexOutcome::Confirmed(trace))) => {
            refuted_runtime = module.check(check).kind.class() != crate::ir::CheckClass::Assert;
            settled(progress.table.refute(check, trace));
            (StageEnd::Finished, "counterexample confirmed".to_string())
        }
        // A model for one runtime check that does not replay (a bounds check violated only
        // where UBSan does not trap, see `frontend::ubsan`) is that check's note only: the
        // others, which fail independently, are searched again without it.
        Ok((Some(check), CexOutcome::Unconfirmed(why)))
            if targets.len() > 1
                && module.check(check).kind.class() != crate::ir::CheckClass::Assert =>
        {
            let why = format!("counterexample not confirmed: {why}");
            if let Some(t) = times.iter_mut().find(|t| t.check == check) {
                t.search_note = Some(why.clone());
                t.unconfirmed = true;
                refuted_runtime = true;
            }
            (StageEnd::Finished, why)
        }
        // The search's outcome is a note beside the verdict, not its reason: it depends on
        // how far the search got in its budget. After a short search the full one still
        // searches these targets: which candidate a short slice met first (a run that stops
        // at another error site) depends on the machine's load.
        Ok((_, CexOutcome::Unconfirmed(why))) => {
            let why = format!("counterexample not confirmed: {why}");
            note(why.clone(), step == Step::FullCex);
            (StageEnd::Finished, why)
        }
        Ok((_, CexOutcome::NotFound(why))) => {
            note(why.clone(), false);
            (StageEnd::Finished, why)
        }
        Ok((_, CexOutcome::OutOfTime(why))) => {
            note(why.clone(), false);
            (StageEnd::Timeout, why)
        }
        Ok((None, CexOutcome::Confirmed(_))) => (StageEnd::Finished, "no error site".into()),
        Err(_) => (
            StageEnd::InternalError,
            "the counterexample search panicked".into(),
        ),
    };
    progress.stages.push(StageRun {
        stage,
        elapsed,
        end,
        detail: Some(detail),
    });
    refuted_runtime
}
