//! Contracts of the functions that stay calls, inferred and certified before the analysis
//! of the program: what a call assumes of its callee. For the functions outside recursive
//! cycles, a summary of what they return ([`returns`]: the invariant at their returns, from
//! one analysis each, callees first); for the recursive ones, what follows.
//!
//! **What it infers.** For each function in a recursive cycle of the call graph, a
//! *summary* (clauses `guard → atom` over the parameters at entry and the returned value)
//! and, in a closed program, a *calling context* (atoms over the parameters that hold at
//! every call); see `frontend::contract` for what an atom means and how the lifter assumes
//! it. Certified contracts are assumed when the program is lifted: after each call, the
//! summary of the callee; at a function's entry, its context.
//!
//! **How.** Houdini over templates ([`houdini`]): start from every candidate atom, lift the
//! recursive functions and their callers in *certify* mode (each candidate is assumed where
//! it is used and checked where it must hold, `frontend::Program::lift_for_certification`),
//! let the analysis prove what it can (the driver's own analysis, without counterexample
//! search: sound by construction), drop the candidates with an obligation left open, and
//! repeat until every remaining obligation is proved. Only that last set is used; when
//! rounds or work run out, no contract is.
//!
//! There are two searches. The first one has the linear templates ([`templates`]). The
//! second one starts from what the first certified and adds *guarded* clauses
//! ([`guarded`]): tabulated ones, `p == k → r == f(k)` for each `k` of a small certified
//! range of `p` (or of a window above the function's base cases), and region ones,
//! `p >= t → r - p == b`, `p <= t → r >= c`, ... for thresholds `t` the code compares
//! with. Their constants come from evaluating the function on constants
//! (`frontend::Evaluator`); nothing is assumed for that: every clause is certified like
//! the others. A clause guarded by one atom over one parameter is checked in a
//! *specialized copy* of its function, lifted with the guard assumed at its entry (the
//! function itself does not check it): the copy is the same code, so it covers every
//! execution in which the guard holds, and the analysis, which joins convexly, sees there
//! the one case of each call that the guard selects (`n == 6` calls with `n - 1 == 5`). At
//! a call, these clauses are assumed as a partition of the argument's values. The second
//! search gets what the first one left of the budget of work; when it runs out, the first
//! search's contracts are used alone.
//!
//! **Bounded by work, not time.** Each round's analysis runs under budgets of work per
//! function (interval stage and engine, `params::ContractParams::round_work`) without the
//! stages that ask the solver under a wall-clock cap, and the steps it spent are taken from
//! a budget of the whole search (`params::ContractParams::search_work_per_second` per
//! second of `--timeout`). The rounds, what
//! they prove, hence the contracts, are then the same under any load. A deadline remains
//! as a safety net only: when it passes, the search gives no contract.
//!
//! **Why the certified set is sound** (assume-guarantee over the order of events of one
//! execution): each obligation was proved assuming only (a) the contexts of the function
//! it is in, at its entry (and, in a specialized copy, the guard of the clauses it checks,
//! which holds on every execution the obligation is about), and (b) the summaries of the
//! calls that returned before it. Take the first event of an execution that breaks a
//! contract: a call whose arguments leave the callee's context, or a return whose value
//! leaves its summary. Everything its proof assumed happened earlier, so it held, so the
//! proof covers the event: there is no first breaking event. A call that does not return
//! has no return to constrain. The same argument holds for the union of the two searches'
//! sets (each proof assumed a subset of the union), which is what is used.
//!
//! A context exists only when the function can be entered from nowhere but its direct
//! calls: a closed program started by `main`, the function's address never escapes and the
//! library never calls it by name; every caller is then lifted and its calls checked.

mod guarded;
mod houdini;
mod returns;
mod templates;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use super::{AnalysisConfig, DomainKind, Engine, Purpose};
use crate::check::Verdict;
use crate::frontend::contract::Contracts;
use crate::frontend::{ContractTrace, Program, Recursion};
use crate::ir::{self, CheckId};

/// What a search may spend: steps of work (what the prover reports), the real bound, and a
/// point in time, a safety net only (a search stopped by it gives no contract, so it can
/// cost a proof under load, never make one).
#[derive(Clone, Copy, Debug)]
struct SearchBudget {
    /// Steps of work left.
    work: u64,
    /// The safety net.
    deadline: Instant,
}

/// Proves what it can of a module: the ids of the checks proved, and the steps of work the
/// analysis spent (its budgets of work, not time, bound it, so the same module gives the
/// same answer under any load). It must be sound; what it leaves open is dropped.
type Prover<'a> = &'a dyn Fn(&ir::Module) -> (BTreeSet<CheckId>, u64);

/// The certified contracts of the recursive functions of `program` (see the module docs),
/// then the summaries of what the other functions that stay calls return ([`returns`]),
/// searched under the budgets `config` gives: each round is the driver's analysis
/// (without counterexample search) of the functions lifted in certify mode, under
/// `params::ContractParams::round_work` steps per function for its interval stage and as
/// many for its engine, and the whole search gets
/// `params::ContractParams::search_work_per_second` steps per second of `--timeout`. Time
/// is a safety net only: `--timeout` per function of a round (at most
/// `params::ContractParams::round_timeout`), and for the whole search `--timeout` or a
/// quarter of what is left of the run's budget. `safety_net` is [`safety_net`] taken
/// before the program was loaded; `trace` says what the search prints on standard error.
pub fn search(
    program: &Program<'_>,
    config: &AnalysisConfig,
    safety_net: Duration,
    trace: ContractTrace,
) -> Contracts {
    let mut budget = SearchBudget {
        work: (config.params.contracts.search_work_per_second * config.timeout.as_secs_f64())
            as u64,
        deadline: Instant::now() + safety_net,
    };
    let mut contracts = match program.recursion() {
        Some(recursion) => recursive_contracts(program, &recursion, config, &mut budget, trace),
        None => Contracts::new(),
    };
    if config.params.contracts.return_summaries {
        returns::summarize(program, config, &mut contracts, budget.deadline);
    }
    contracts
}

/// The certified contracts of the functions of `recursion`, within `budget`.
fn recursive_contracts(
    program: &Program<'_>,
    recursion: &Recursion,
    config: &AnalysisConfig,
    budget: &mut SearchBudget,
    trace: ContractTrace,
) -> Contracts {
    let round = round_config(config);
    let prover = move |module: &ir::Module| {
        let before = crate::analysis::work_spent();
        let report = super::analyze(module, &round);
        let spent = crate::analysis::work_spent().saturating_sub(before);
        if trace != ContractTrace::Off {
            for f in &report.functions {
                eprintln!(
                    "  {}: {:?} {:?} {:?}",
                    f.function,
                    f.end,
                    f.elapsed,
                    f.stages
                        .iter()
                        .map(|s| (s.stage, s.elapsed, s.end.clone(), s.detail.clone()))
                        .collect::<Vec<_>>()
                );
            }
        }
        let proved = report
            .results
            .into_iter()
            .filter(|r| matches!(r.verdict, Verdict::Proved))
            .map(|r| r.check)
            .collect();
        (proved, spent)
    };
    search_in(program, recursion, &prover, budget, trace)
}

/// The time the search may take at most, a safety net: `--timeout`, or less, a quarter of
/// what is left of the run's budget (the search spends it too).
pub fn safety_net(config: &AnalysisConfig) -> Duration {
    match config.ends {
        Some(ends) => config.timeout.min(ends.left() / 4),
        None => config.timeout,
    }
}

/// The configuration of a round's analysis: budgets of work, not time, and only what
/// answers the same under any load.
fn round_config(config: &AnalysisConfig) -> AnalysisConfig {
    let mut params = config.params;
    params.stages.interval_work = params.contracts.round_work;
    params.stages.engine_work = params.contracts.round_work;
    // Without the stages whose solver queries have a wall-clock cap (polynomial
    // equalities, congruences and the relational stage in them): they would make a round
    // depend on the load.
    params.stages.solver_stages = false;
    // A round keeps a candidate only when it is proved for every argument: preconditions
    // (`holds if`) would spend the round's time on checks it drops anyway.
    params.stages.precondition_work = 0;
    // The relational stage also takes a fifth of each round's budget from the rounds'
    // candidates (recursion_tabulated.c lost its contract with it on).
    params.precision.relational_congruences = false;
    AnalysisConfig {
        timeout: config.timeout.clamp(
            Duration::from_secs(1),
            params.contracts.round_timeout.max(Duration::from_secs(1)),
        ),
        // The classic engine: path focusing pays per error site, and a round has one per
        // candidate atom and place.
        engine: Engine::Classic,
        domain: DomainKind::Poly,
        refine: false,
        purpose: Purpose::Verdicts,
        ends: None,
        plan: None,
        params,
        ..config.clone()
    }
}

/// The two searches (see the module docs) within `budget`.
fn search_in(
    program: &Program<'_>,
    recursion: &Recursion,
    prover: Prover<'_>,
    budget: &mut SearchBudget,
    trace: ContractTrace,
) -> Contracts {
    let mut lift_round =
        |candidates: &Contracts| program.lift_for_certification(recursion, candidates);
    let first_budget = budget;
    let candidates = templates::candidates(recursion);
    let certified = houdini::certify(candidates, &mut lift_round, prover, first_budget, trace);
    // The second search: guarded clauses, with the ranges the first one certified. Its
    // result is certified on its own; the union of two certified sets is (module docs), so
    // the first search's clauses are kept whatever the second gives.
    let guarded = guarded::candidates(program, recursion, &certified);
    if guarded == certified {
        return certified;
    }
    // The second search gets what the first one left of the work.
    let second_budget = first_budget;
    let mut res = houdini::certify(guarded, &mut lift_round, prover, second_budget, trace);
    for (name, contract) in certified {
        let entry = res.entry(name).or_default();
        for atom in contract.context {
            if !entry.context.contains(&atom) {
                entry.context.push(atom);
            }
        }
        for clause in contract.summary {
            if !entry.summary.contains(&clause) {
                entry.summary.push(clause);
            }
        }
    }
    res
}
