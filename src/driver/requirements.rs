//! Preconditions checked at call sites: a check of a function that holds under a
//! precondition (`holds if P`, [`super::preconditions`]) is proved when the function can be
//! entered only by its direct calls and every one of them meets `P`.
//!
//! **How.** After the analysis of the program, the preconditions of its functions that
//! only direct calls enter become *requirements*: the program is lifted again, only the
//! callers of those functions, each call checking each requirement of its callee over its
//! arguments (`frontend::Program::lift_requirements`; the callers' own checks end their
//! paths there, as an execution that reaches an error site stops), and these callers are
//! analyzed like any function, from arbitrary arguments and memory, without counterexample
//! search. A check `holds if P` becomes proved when every call checks `P` (each clause of
//! a conjunction `P₁ && P₂` a requirement of its own) and each of these checks is proved.
//!
//! **Why it holds.** `holds if P` is proved by the analysis of the function from arbitrary
//! arguments and memory: every execution of it that starts with inputs satisfying `P` passes
//! the check. Each call's check was proved for every execution of its caller that reaches
//! the call, whatever the caller's arguments, so every execution of the program enters the
//! function with inputs satisfying `P`: the function is not visible outside the module, its
//! address is never taken, no entry was named at it, and every call of it is in a function
//! lifted for this round (all its callers, with their own checks or not). The
//! checks of one call are independent (none assumes another), so no proof rests on a
//! requirement that may fail.
//!
//! **Budget.** The callers' analyses plan with a share of the run's plan
//! (`params::StageParams::requirement_share`) and need no preconditions of their own. The
//! cache keeps each `holds if`'s requirement with it, so a run served by the cache settles
//! the same checks.

use std::collections::{BTreeMap, BTreeSet};

use super::AnalysisConfig;
use crate::check::{AnalysisReport, Verdict};
use crate::frontend::contract::{Obligation, Requirement, Requirements};
use crate::frontend::{FrontendConfig, Llvm, Program};
use crate::ir;

/// Proves the checks of `report` (the analysis of `module`, loaded from `fe`) that hold
/// under a precondition every call of their function meets (see the module docs).
pub fn settle_at_call_sites(
    report: &mut AnalysisReport,
    module: &ir::Module,
    fe: &FrontendConfig,
    config: &AnalysisConfig,
) {
    if !config.params.stages.call_site_preconditions {
        return;
    }
    let mut requirements = requirements(report);
    // Only these can qualify; the others need no second look at the program.
    requirements.retain(|f, _| module.called_only_directly.contains(f));
    if requirements.is_empty() {
        return;
    }
    let llvm = Llvm::new();
    let Ok(program) = Program::prepare(&llvm, fe) else {
        return;
    };
    let callers = program.lift_requirements(&requirements);
    drop(program);
    if callers.functions.is_empty() {
        return;
    }
    let mut params = config.params;
    // The callers need verdicts on the requirements only.
    params.stages.precondition_work = 0;
    let round = AnalysisConfig {
        plan: config
            .plan
            .map(|p| p.mul_f64(config.params.stages.requirement_share)),
        params,
        ..config.clone()
    };
    let analyzed = super::analyze(&callers.module, &round);
    let proved: BTreeSet<ir::CheckId> = analyzed
        .results
        .iter()
        .filter(|r| matches!(r.verdict, Verdict::Proved))
        .map(|r| r.check)
        .collect();
    // Per function and requirement: the calls whose check is proved, and all.
    let mut met: BTreeMap<(&str, usize), (usize, usize)> = BTreeMap::new();
    for (check, obligation) in &callers.obligations {
        if let Obligation::Requirement {
            function,
            requirement,
        } = obligation
        {
            let (held, all) = met.entry((function.as_str(), *requirement)).or_default();
            *held += usize::from(proved.contains(check));
            *all += 1;
        }
    }
    // Every call of the function checked the requirement (a call the lifter did not reach,
    // in code after an error site, checked none) and each check is proved.
    let holds = |f: &str, i: usize| {
        let calls = callers.calls.get(f).copied().unwrap_or(0);
        calls > 0 && met.get(&(f, i)) == Some(&(calls, calls))
    };
    let settled: BTreeMap<&str, Vec<&Requirement>> = callers
        .functions
        .iter()
        .map(|f| {
            let held = requirements[f]
                .iter()
                .enumerate()
                .filter(|(i, _)| holds(f, *i))
                .map(|(_, r)| r)
                .collect();
            (f.as_str(), held)
        })
        .collect();
    let mut upgraded = 0;
    for r in &mut report.results {
        let Verdict::HoldsIf(p) = &r.verdict else {
            continue;
        };
        let Some(held) = settled.get(r.function.as_str()) else {
            continue;
        };
        if p.requirements
            .as_ref()
            .is_some_and(|reqs| reqs.iter().all(|req| held.contains(&req)))
        {
            r.verdict = Verdict::Proved;
            upgraded += 1;
        }
    }
    if config.params.trace.work {
        eprintln!(
            "polyfocus: work: requirements of {} functions checked at {} calls in {} callers: \
             {upgraded} checks proved",
            callers.functions.len(),
            callers.obligations.len(),
            callers.module.functions.len()
        );
    }
}

/// The distinct preconditions of each function's `holds if` checks, in the order first
/// met.
fn requirements(report: &AnalysisReport) -> Requirements {
    let mut res = Requirements::new();
    for r in &report.results {
        let Verdict::HoldsIf(p) = &r.verdict else {
            continue;
        };
        let Some(reqs) = &p.requirements else {
            continue;
        };
        let list = res.entry(r.function.clone()).or_default();
        for req in reqs {
            if !list.contains(req) {
                list.push(req.clone());
            }
        }
    }
    res
}
