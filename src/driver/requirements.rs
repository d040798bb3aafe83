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
//! a conjunction `P₁ && P₂` a requirement of its own) and each of these checks is proved,
//! or holds under a precondition `Q` of its caller (`holds if Q`, inferred by the caller's
//! analysis like any precondition) that is itself a requirement met at every call of the
//! caller: the next round lifts the callers' callers with `Q` checked, up to
//! `params::StageParams::requirement_rounds` rounds (a buffer's size required by a
//! helper, passed on by the function that receives the buffer, checked where the buffer is
//! allocated).
//!
//! **Why it holds.** `holds if P` is proved by the analysis of the function from arbitrary
//! arguments and memory: every execution of it that starts with inputs satisfying `P` passes
//! the check. Each call's check was proved for every execution of its caller that reaches
//! the call, whatever the caller's arguments (or every one whose arguments satisfy `Q`),
//! so every execution of the program enters the function with inputs satisfying `P`: the
//! function is not visible outside the module, its address is never taken, no entry was
//! named at it, and every call of it is in a function lifted for this round (all its
//! callers, with their own checks or not). A requirement holds when it is in the least set
//! closed under that rule, so a chain of callers ends at calls that meet their requirement
//! for any arguments, and none rests on itself through recursion. The checks of one call
//! are independent (none assumes another), so no proof rests on a requirement that may
//! fail.
//!
//! **Budget.** The callers' analyses of each round plan with a share of the run's plan
//! (`params::StageParams::requirement_share`); their preconditions are inferred only when
//! a next round can check them. The cache keeps each `holds if`'s requirement with it, so
//! a run served by the cache settles the same checks.

use std::collections::{BTreeMap, BTreeSet};

use super::AnalysisConfig;
use crate::check::{AnalysisReport, Verdict};
use crate::frontend::contract::{Obligation, Requirement, Requirements};
use crate::frontend::{FrontendConfig, Llvm, Program};
use crate::ir;

/// How a call met one requirement of its callee, in its caller's analysis.
#[derive(Clone, Debug)]
enum Met {
    /// Proved for every execution of the caller.
    Always,
    /// Proved under the caller's precondition: each clause, a requirement of the caller
    /// (`(caller, index)`), must hold at every call of the caller.
    If(Vec<(String, usize)>),
    /// Not proved.
    Not,
}

/// The requirements of the functions checked at their calls, over all rounds.
#[derive(Default)]
struct Ledger {
    /// Each function's requirements, in the order first met (their indices).
    requirements: Requirements,
    /// The calls of each function whose every call was lifted (it qualified).
    calls: BTreeMap<String, usize>,
    /// How each call met each requirement, by `(function, index)`.
    met: BTreeMap<(String, usize), Vec<Met>>,
}

impl Ledger {
    /// The index of `req` among `function`'s requirements, adding it (and to `new`, the
    /// next round's requirements) when it is not there yet.
    fn index(&mut self, function: &str, req: &Requirement, new: &mut Requirements) -> usize {
        let list = self.requirements.entry(function.to_string()).or_default();
        if let Some(i) = list.iter().position(|r| r == req) {
            return i;
        }
        list.push(req.clone());
        new.entry(function.to_string())
            .or_default()
            .push(req.clone());
        list.len() - 1
    }

    /// The requirements that hold in every execution: the least set closed under "every
    /// call of the function checked it, and each met it always or under requirements of
    /// its caller in the set" (least, so that no requirement rests on itself through
    /// recursion).
    fn holding(&self) -> BTreeSet<(String, usize)> {
        let mut holds: BTreeSet<(String, usize)> = BTreeSet::new();
        loop {
            let before = holds.len();
            for ((f, i), met) in &self.met {
                let calls = self.calls.get(f).copied().unwrap_or(0);
                let all = calls > 0
                    && met.len() == calls
                    && met.iter().all(|m| match m {
                        Met::Always => true,
                        Met::If(reqs) => reqs.iter().all(|r| holds.contains(r)),
                        Met::Not => false,
                    });
                if all {
                    holds.insert((f.clone(), *i));
                }
            }
            if holds.len() == before {
                return holds;
            }
        }
    }
}

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
    let mut ledger = Ledger::default();
    // The first round's requirements: the preconditions of the report's `holds if`.
    let mut pending = Requirements::new();
    for r in &report.results {
        if let Verdict::HoldsIf(p) = &r.verdict {
            for req in p.requirements.iter().flatten() {
                ledger.index(&r.function, req, &mut pending);
            }
        }
    }
    // Only these can qualify; the others need no second look at the program.
    pending.retain(|f, _| module.called_only_directly.contains(f));
    if pending.is_empty() {
        return;
    }
    let llvm = Llvm::new();
    let Ok(program) = Program::prepare(&llvm, fe) else {
        return;
    };
    let rounds = config.params.stages.requirement_rounds;
    for round in 0..rounds {
        pending.retain(|f, _| module.called_only_directly.contains(f));
        if pending.is_empty() {
            break;
        }
        let callers = program.lift_requirements(&pending);
        if callers.functions.is_empty() {
            break;
        }
        // Each pending requirement's index in the ledger: the pending ones of a function
        // are the last of its list.
        let first = |f: &str| ledger.requirements[f].len() - pending[f].len();
        let firsts: BTreeMap<String, usize> =
            pending.keys().map(|f| (f.clone(), first(f))).collect();
        for f in &callers.functions {
            ledger.calls.insert(f.clone(), callers.calls[f]);
        }
        let mut params = config.params;
        // A caller's precondition is of use only when the next round checks it.
        if round + 1 == rounds {
            params.stages.precondition_work = 0;
        }
        let analyzed = super::analyze(
            &callers.module,
            &AnalysisConfig {
                plan: config
                    .plan
                    .map(|p| p.mul_f64(config.params.stages.requirement_share)),
                params,
                ..config.clone()
            },
        );
        let verdicts: BTreeMap<ir::CheckId, (&str, &Verdict)> = (analyzed.results.iter())
            .map(|r| (r.check, (r.function.as_str(), &r.verdict)))
            .collect();
        let mut next = Requirements::new();
        // Calls that met a requirement always, under their caller's precondition, not.
        let mut counts = [0usize; 3];
        for (check, obligation) in &callers.obligations {
            let Obligation::Requirement {
                function,
                requirement,
            } = obligation
            else {
                continue;
            };
            if !callers.functions.contains(function) {
                continue;
            }
            let met = match verdicts.get(check) {
                Some((_, Verdict::Proved)) => Met::Always,
                Some((caller, Verdict::HoldsIf(p))) => match &p.requirements {
                    Some(reqs) if module.called_only_directly.contains(*caller) => Met::If(
                        reqs.iter()
                            .map(|req| (caller.to_string(), ledger.index(caller, req, &mut next)))
                            .collect(),
                    ),
                    _ => Met::Not,
                },
                _ => Met::Not,
            };
            counts[match met {
                Met::Always => 0,
                Met::If(_) => 1,
                Met::Not => 2,
            }] += 1;
            let at = firsts[function] + requirement;
            ledger
                .met
                .entry((function.clone(), at))
                .or_default()
                .push(met);
        }
        if config.params.trace.work {
            eprintln!(
                "polyfocus: work: round {round}: requirements of {} functions checked at {} \
                 calls in {} callers, met {} always, {} under the caller's precondition, {} \
                 not",
                callers.functions.len(),
                callers.obligations.len(),
                callers.module.functions.len(),
                counts[0],
                counts[1],
                counts[2]
            );
        }
        pending = next;
    }
    drop(program);
    let holding = ledger.holding();
    let mut upgraded = 0;
    for r in &mut report.results {
        let Verdict::HoldsIf(p) = &r.verdict else {
            continue;
        };
        let Some(list) = ledger.requirements.get(&r.function) else {
            continue;
        };
        let held = |req: &Requirement| {
            (list.iter().position(|r| r == req))
                .is_some_and(|i| holding.contains(&(r.function.clone(), i)))
        };
        if p.requirements
            .as_ref()
            .is_some_and(|reqs| reqs.iter().all(held))
        {
            r.verdict = Verdict::Proved;
            upgraded += 1;
        }
    }
    if config.params.trace.work {
        eprintln!("polyfocus: work: requirements met at every call: {upgraded} checks proved");
    }
}
