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
//! **Entries' contracts.** A call in a function that code outside the program may call
//! (an exported function, a named entry) that meets a requirement under its caller's
//! precondition `Q` meets it whenever that function is called within `Q`, its contract
//! (its analysis proved the call's check from every entry satisfying `Q`). A second least
//! set counts such calls as met, each requirement with the contracts it rests on; a check
//! whose requirements are all in it, but not all in the first, stays `holds if P` and
//! names them (`check::Callers::Entries`): it holds in every execution in which those
//! functions are entered from outside within their contracts.
//!
//! **Budget.** The callers' analyses of each round plan with a share of the run's plan
//! (`params::StageParams::requirement_share`), and infer preconditions for the checks they
//! leave open (for the next round, or as an entry's contract). The cache keeps each `holds
//! if`'s requirement with it, so a run served by the cache settles the same checks.

use std::collections::{BTreeMap, BTreeSet};

use super::AnalysisConfig;
use crate::check::{AnalysisReport, Callers, EntryContract, Verdict};
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
    /// Proved under the precondition of a caller that code outside the program may call:
    /// met whenever that caller is called within it (its contract).
    Contract(EntryContract),
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
    /// recursion); with `contracts`, a call met under the contract of a caller code
    /// outside the program may call counts as met too. Each requirement comes with the
    /// contracts it rests on (none without `contracts`).
    fn holding(&self, contracts: bool) -> BTreeMap<(String, usize), BTreeSet<EntryContract>> {
        let mut holds: BTreeMap<(String, usize), BTreeSet<EntryContract>> = BTreeMap::new();
        loop {
            let mut changed = false;
            for ((f, i), met) in &self.met {
                let calls = self.calls.get(f).copied().unwrap_or(0);
                if calls == 0 || met.len() != calls {
                    continue;
                }
                let mut rests_on = BTreeSet::new();
                let all = met.iter().all(|m| match m {
                    Met::Always => true,
                    Met::If(reqs) => reqs.iter().all(|r| match holds.get(r) {
                        Some(on) => {
                            rests_on.extend(on.iter().cloned());
                            true
                        }
                        None => false,
                    }),
                    Met::Contract(contract) if contracts => {
                        rests_on.insert(contract.clone());
                        true
                    }
                    Met::Contract(_) | Met::Not => false,
                });
                // The sets only grow, over finitely many contracts: the loop ends.
                if all && holds.get(&(f.clone(), *i)) != Some(&rests_on) {
                    let entry = holds.entry((f.clone(), *i)).or_default();
                    let before = entry.len();
                    entry.extend(rests_on);
                    changed |= entry.len() != before || before == 0;
                }
            }
            if !changed {
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
        // A caller's precondition is checked by the next round, or, for a caller that code
        // outside the program may call, is its contract.
        let params = config.params;
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
        // Calls that met a requirement always, under their caller's precondition, under an
        // entry's contract, not; and why not, by the class of the call's verdict (for
        // `-Z debug-work`).
        let mut counts = [0usize; 4];
        let mut unmet: BTreeMap<&str, usize> = BTreeMap::new();
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
                    _ if !module.called_only_directly.contains(*caller) => {
                        Met::Contract(EntryContract {
                            function: report.names.readable(caller).to_string(),
                            precondition: p.expr.clone(),
                        })
                    }
                    Some(reqs) if round + 1 < rounds => Met::If(
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
                Met::Contract(_) => 2,
                Met::Not => 3,
            }] += 1;
            if matches!(met, Met::Not) {
                let why = match verdicts.get(check) {
                    Some((_, Verdict::Unknown(reason))) => reason.class(),
                    Some((_, Verdict::HoldsIf(_))) => "holds if, in the last round",
                    Some((_, Verdict::Violated(_))) => "violated",
                    _ => "not analyzed",
                };
                *unmet.entry(why).or_default() += 1;
            }
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
                 under an entry's contract, {} not ({unmet:?})",
                callers.functions.len(),
                callers.obligations.len(),
                callers.module.functions.len(),
                counts[0],
                counts[1],
                counts[2],
                counts[3]
            );
        }
        pending = next;
    }
    drop(program);
    let holding = ledger.holding(false);
    let under_contracts = ledger.holding(true);
    let (mut upgraded, mut contracted) = (0, 0);
    for r in &mut report.results {
        let Verdict::HoldsIf(p) = &mut r.verdict else {
            continue;
        };
        let Some(list) = ledger.requirements.get(&r.function) else {
            continue;
        };
        let Some(indices) = (p.requirements.iter().flatten())
            .map(|req| list.iter().position(|r| r == req))
            .collect::<Option<Vec<usize>>>()
            .filter(|indices| !indices.is_empty())
        else {
            continue;
        };
        let key = |i: &usize| (r.function.clone(), *i);
        if indices.iter().all(|i| holding.contains_key(&key(i))) {
            r.verdict = Verdict::Proved;
            upgraded += 1;
        } else if indices
            .iter()
            .all(|i| under_contracts.contains_key(&key(i)))
        {
            let mut on: BTreeSet<EntryContract> = BTreeSet::new();
            for i in &indices {
                on.extend(under_contracts[&key(i)].iter().cloned());
            }
            p.callers = Callers::Entries(on.into_iter().collect());
            contracted += 1;
        }
    }
    if config.params.trace.work {
        eprintln!(
            "polyfocus: work: requirements met at every call: {upgraded} checks proved, \
             {contracted} under entries' contracts"
        );
    }
}
