//! Houdini: the largest subset of a set of candidate contracts whose obligations are all
//! proved together (see the module docs of [`super`]).

use std::collections::{BTreeSet, HashMap};
use std::time::Instant;

use super::{Prover, SearchBudget};
use crate::frontend::contract::{CertifyModule, Contracts, Obligation};
use crate::frontend::ContractTrace;
use crate::ir::CheckId;

/// Rounds of one search, at most (each drops a candidate or ends the search; past it no
/// contract is used, which is sound).
const MAX_ROUNDS: usize = 16;

/// The largest subset of `candidates` whose obligations are all proved together, or
/// nothing when the rounds or the budget run out (the work a round spent is taken from
/// `budget.work` after it; a round is not started once it is spent). `lift_round` lifts
/// the participants in certify mode under a candidate set.
pub(super) fn certify(
    mut candidates: Contracts,
    lift_round: &mut dyn FnMut(&Contracts) -> Option<CertifyModule>,
    prover: Prover<'_>,
    budget: &mut SearchBudget,
    trace: ContractTrace,
) -> Contracts {
    let tracing = trace != ContractTrace::Off;
    for _ in 0..MAX_ROUNDS {
        candidates.retain(|_, c| !c.is_empty());
        if candidates.is_empty() || budget.work == 0 || Instant::now() >= budget.deadline {
            return Contracts::new();
        }
        let started = Instant::now();
        let Some(round) = lift_round(&candidates) else {
            return Contracts::new();
        };
        let (proved, spent) = prover(&round.module);
        budget.work = budget.work.saturating_sub(spent);
        if tracing {
            print_round(
                &candidates,
                &round,
                &proved,
                (spent, budget.work),
                started,
                trace,
            );
        }
        let mut dropped_summary: HashMap<String, BTreeSet<usize>> = HashMap::new();
        let mut dropped_context: HashMap<String, BTreeSet<usize>> = HashMap::new();
        for (check, obligation) in &round.obligations {
            if proved.contains(check) {
                continue;
            }
            match obligation {
                Obligation::Summary { function, clause } => {
                    dropped_summary
                        .entry(function.clone())
                        .or_default()
                        .insert(*clause);
                }
                Obligation::Context { function, atom } => {
                    dropped_context
                        .entry(function.clone())
                        .or_default()
                        .insert(*atom);
                }
                // A round lifts no requirement (they are checked after the analysis).
                Obligation::Requirement { .. } => {}
            }
        }
        // Past the safety net, a round's analyses may have stopped at their time limit:
        // what they left open says nothing, and the set is not a fixpoint to trust either
        // way; nothing is used (an unsound set is never returned: every obligation of the
        // returned set was proved, but a time-dependent answer is not wanted).
        if Instant::now() >= budget.deadline {
            return Contracts::new();
        }
        if dropped_summary.is_empty() && dropped_context.is_empty() {
            if tracing {
                eprintln!("contracts certified: {candidates:?}");
            }
            return candidates;
        }
        for (name, contract) in candidates.iter_mut() {
            if let Some(drop) = dropped_summary.get(name) {
                contract.summary = without(std::mem::take(&mut contract.summary), drop);
            }
            if let Some(drop) = dropped_context.get(name) {
                contract.context = without(std::mem::take(&mut contract.context), drop);
            }
        }
    }
    Contracts::new()
}

/// `items` without those at the positions `drop`.
fn without<T>(items: Vec<T>, drop: &BTreeSet<usize>) -> Vec<T> {
    items
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !drop.contains(i))
        .map(|(_, item)| item)
        .collect()
}

/// What a round proved and left open (`-Z debug-contracts`; `modules` also prints the
/// round's functions).
fn print_round(
    candidates: &Contracts,
    round: &CertifyModule,
    proved: &BTreeSet<CheckId>,
    (spent, work_left): (u64, u64),
    started: Instant,
    trace: ContractTrace,
) {
    eprintln!(
        "contracts: round with {} obligations, {} proved, {spent} steps ({work_left} left), {:?}",
        round.obligations.len(),
        round
            .obligations
            .iter()
            .filter(|(c, _)| proved.contains(c))
            .count(),
        started.elapsed(),
    );
    for (c, o) in &round.obligations {
        if !proved.contains(c) {
            let what = match o {
                Obligation::Summary { function, clause } => {
                    format!(
                        "{function} summary {:?}",
                        candidates[function].summary[*clause]
                    )
                }
                Obligation::Context { function, atom } => {
                    format!(
                        "{function} context {:?}",
                        candidates[function].context[*atom]
                    )
                }
                Obligation::Requirement {
                    function,
                    requirement,
                } => format!("{function} requirement {requirement}"),
            };
            eprintln!("  open {c}: {what}");
        }
    }
    if trace == ContractTrace::Modules {
        for f in &round.module.functions {
            eprintln!("{f:#}");
        }
    }
}
