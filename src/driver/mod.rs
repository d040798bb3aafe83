//! Runs the stages on a loaded module: per function, the stages of `pipeline` over a table
//! of verdicts (`verdicts.rs`), in parallel over functions, and assembles the report.
//!
//! A run has two passes over the functions: pass 1 runs the interval stage of every
//! function, limited by a budget of work so that what it proves does not depend on the
//! load; pass 2 runs the later stages only for the functions pass 1 left an assertion open
//! in, sharing what is left of the run's budget. Each pass walks a list of stages
//! (`pipeline/stages.rs`): each stage is a value saying when it is wanted, its share of the
//! function's budget (wall-clock, or counted in work) and how it runs.
//!
//! Each function is analyzed under `catch_unwind`, so that a bug gives `Unknown` for that
//! function's assertions and the other functions are still analyzed.
//!
//! # Where analysis by function summaries plugs in
//!
//! - **A summary stage** is a pass between pass 1 and pass 2 (or a list of its own walked
//!   before pass 2) that visits the functions bottom-up over the call graph instead of in
//!   parallel by size: its stages read the callees' summaries, and what it infers (a
//!   summary, a precondition for the callers' context, top-down) goes into the state the
//!   stages pass on (`pipeline::State`), next to the invariants and side facts that state
//!   carries today. The contract search of recursive functions (`contracts`, run while
//!   the program loads, `load_with_contracts`, with this driver's analysis as its prover)
//!   is what such a stage replaces.
//! - **A per-function work budget** is a share: `pipeline::stages::Share` carries a budget
//!   of work next to the time part (the interval stage's `interval_work`; the engine's and
//!   the later stages' shares counted at `StageParams::work_per_second`, their time a net of
//!   `time_net` times the share), resolved into an `Allowance` whose `Deadline` and
//!   `domain::stop` meter count work.
//!
//! The cache of per-function results (`cache/`) sits where `analyze_inner` starts a
//! function's passes: a function whose entry is found runs neither pass, and its results
//! and run record come from the entry; a summary would join its key.

use crate::ir::Module;
use crate::params::Params;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use verdicts::VerdictTable;

pub mod cache;
mod cause;
mod contracts;
mod copies;
mod domain_types;
mod engine;
mod float_paths;
mod load;
mod parallel;
mod pipeline;
mod preconditions;
mod requirements;
mod verdicts;

pub use load::{load, load_with_contracts};
pub use requirements::settle_at_call_sites;

// The records of a run are data in `check`, so that `report` depends on data only; they are
// re-exported here, where the analysis entry points are.
pub use crate::check::{
    AnalysisReport, BudgetKind, CheckRun, DomainTypeStats, FunctionRun, LoopInvariant,
    RefinementStats, RunEnd, Stage, StageEnd, StageRun,
};

/// Fixpoint engines.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Engine {
    /// Path focusing over the reduced multigraph.
    Focus,
    /// Worklist iteration over blocks.
    Classic,
}

/// Numeric domains.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum DomainKind {
    /// Convex polyhedra.
    Poly,
    /// Intervals.
    Interval,
    /// Polyhedra partitioned by the valuations of the program's booleans (NEX).
    PolyPred,
    /// One BDD over the program's booleans times one polyhedron (NEXPOINT).
    PolyPredProduct,
    /// Intervals partitioned by the valuations of the program's booleans (NEX).
    IntervalPred,
    /// One BDD over the program's booleans times one interval state (NEXPOINT).
    IntervalPredProduct,
}

/// What a run is for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Purpose {
    /// Verdicts: the expensive stages run only for the assertions the interval stage left
    /// open, and a function whose assertions it all settled keeps its interval invariants.
    Verdicts,
    /// Invariants of the chosen engine and domain for every function (`polyfocus
    /// invariants`, tests of the engines): the engine runs even when the interval stage
    /// settled every assertion.
    Invariants,
}

/// How to analyze; built once by the CLI.
#[derive(Clone, Debug)]
pub struct AnalysisConfig {
    /// The engine.
    pub engine: Engine,
    /// The domain.
    pub domain: DomainKind,
    /// Time budget per function.
    pub timeout: Duration,
    /// Heap budget per function, in bytes (memory the Rust code allocates; see
    /// [`crate::budget`]).
    pub memory_per_function: usize,
    /// Functions analyzed at once, each on its own thread (1: on the calling thread). The
    /// report is the same whatever the number.
    pub jobs: usize,
    /// Whether assertions left unknown by path focusing get predicate refinement.
    pub refine: bool,
    /// The tuning constants; the driver reads the stage shares from here.
    pub params: Params,
    /// What the run is for.
    pub purpose: Purpose,
    /// When the analysis of this module must end (the run's budget, `--run-budget`, in CPU
    /// time per worker), or `None`: each function gets `timeout`. A safety stop: the
    /// functions' budgets come from `plan`. See [`crate::params::RunParams`].
    pub ends: Option<crate::clock::RunStop>,
    /// The part of the run's budget this module's functions plan with (`--run-budget`,
    /// or its part for one program of several), `None` without a run budget: the budgets
    /// of the second pass are fixed shares of it.
    pub plan: Option<Duration>,
}

impl AnalysisConfig {
    /// The same configuration for one program of a run that takes `fraction` (in `(0, 1]`)
    /// of what is left: it ends by that share of the time left, and plans with that share
    /// of `plan_left`, what the programs before it left of the plan (the same on every run,
    /// whatever the load).
    pub fn for_program(&self, fraction: f64, plan_left: Option<Duration>) -> AnalysisConfig {
        let fraction = fraction.clamp(0.0, 1.0);
        AnalysisConfig {
            ends: self.ends.map(|ends| ends.part(fraction)),
            plan: plan_left.map(|plan| plan.mul_f64(fraction)),
            ..self.clone()
        }
    }

    /// The part of the plan that budgets adding up to `total` take: the inverse of the
    /// planned shares (zero without a plan).
    fn plan_taken(&self, total: Duration) -> Duration {
        let Some(plan) = self.plan else {
            return Duration::ZERO;
        };
        let per_second = self.params.run.planned_share * self.jobs.max(1) as f64;
        total.div_f64(per_second.max(1e-9)).min(plan)
    }

    /// The budget of the function at `position` (from 0) of the `n` functions with checks
    /// of the second pass: `timeout` without a plan; else `planned_share` of the plan times
    /// the workers over `n`, within `min_planned_budget` and `timeout`, or zero for a
    /// function past those whose minimums fit in the plan. It depends on the configuration
    /// and the program only, so that a function gets the same budget under any load; zero
    /// too once the run's end (the safety stop) has passed.
    fn planned_budget(&self, position: usize, n: usize) -> Duration {
        let Some(plan) = self.plan else {
            return self.timeout;
        };
        if self.past_safety_stop() {
            return Duration::ZERO;
        }
        self.planned_share(plan, position, n)
    }

    /// [`Self::planned_budget`] without the safety stop: the function's share of `plan`.
    fn planned_share(&self, plan: Duration, position: usize, n: usize) -> Duration {
        let run = &self.params.run;
        let pool = plan.mul_f64(run.planned_share) * self.jobs.max(1) as u32;
        let share = pool / n.max(1) as u32;
        if share >= run.min_planned_budget {
            return share.min(self.timeout);
        }
        let fitting = pool.as_secs_f64() / run.min_planned_budget.as_secs_f64().max(1e-3);
        if (position as f64) < fitting.floor() {
            run.min_planned_budget.min(self.timeout)
        } else {
            Duration::ZERO
        }
    }

    /// The budget of a function without checks in the second pass (its invariants are for
    /// the report only): `min_function_budget`, zero once the run's end has passed.
    fn report_only_budget(&self) -> Duration {
        if self.past_safety_stop() {
            return Duration::ZERO;
        }
        self.params.run.min_function_budget.min(self.timeout)
    }

    /// Whether the run's end (`--run-budget`, its safety stop) has passed.
    fn past_safety_stop(&self) -> bool {
        self.ends.is_some_and(|ends| ends.reached())
    }

    /// The same configuration with each worker's heap budget at most its share of the
    /// memory the process may still take ([`crate::params::RunParams::process_memory`]):
    /// what the front end left resident (the lifted program, the allocator's arenas) counts.
    fn within_process_memory(&self) -> AnalysisConfig {
        let run = &self.params.run;
        crate::budget::release_free_memory();
        let Some(resident) = crate::budget::resident_bytes() else {
            return self.clone();
        };
        let room = run
            .process_memory
            .saturating_sub(resident + run.solver_reserve);
        let share = (room / self.jobs.max(1)).max(run.min_function_heap);
        AnalysisConfig {
            memory_per_function: self.memory_per_function.min(share),
            ..self.clone()
        }
    }
}

/// The budget of the preconditions of a function whose pass 2 had `budget`, within `room`
/// (what `--timeout` leaves it), and spent `cpu` and `counted` units of work: what it left,
/// and at least their reserve, `precondition_share` of it as far as `room` allows, in
/// counted work at `work_per_second` (its time then a net of `time_net` times that work's)
/// or, without a rate, in time; never past `room`. Also gives the reserve, which is part of
/// the function's budget.
fn precondition_budget(
    budget: Duration,
    room: Duration,
    cpu: Duration,
    counted: u64,
    stages: &crate::params::StageParams,
) -> (Duration, Option<u64>, Duration) {
    let least = budget
        .mul_f64(stages.precondition_share)
        .min(room.saturating_sub(budget));
    let time = budget
        .saturating_sub(cpu)
        .max(least)
        .min(room.saturating_sub(cpu));
    let rate = stages.work_per_second as f64;
    let work = (rate > 0.0).then(|| {
        let whole = budget.as_secs_f64() * rate;
        ((whole - counted as f64).max(least.as_secs_f64() * rate)) as u64
    });
    // Counted in work, their time is a safety net of `time_net` times the work's.
    let time = match work {
        Some(work) => time
            .max(Duration::from_secs_f64(
                work as f64 / rate * stages.time_net.max(1.0),
            ))
            .min(room.saturating_sub(cpu)),
        None => time,
    };
    (time, work, least)
}

/// `counted` units of work in seconds at the stages' rate, or `cpu` without a rate: what a
/// function spent, as the second chances count it (the load does not change it).
fn in_seconds_of_work(counted: u64, cpu: Duration, config: &AnalysisConfig) -> Duration {
    match config.params.stages.work_per_second {
        0 => cpu,
        rate => Duration::from_secs_f64(counted as f64 / rate as f64),
    }
}

/// A function of pass 2 with a share of the plan, as pass 3 sees it.
#[derive(Clone, Copy, Debug)]
struct Tried {
    /// Its index in the module.
    function: usize,
    /// Its size (`function_size`).
    size: usize,
    /// Its planned budget in pass 2.
    budget: Duration,
    /// What pass 2 spent on it (stages and preconditions): its counted work in seconds at
    /// `work_per_second`.
    spent: Duration,
    /// The CPU time both passes spent on it.
    total_spent: Duration,
    /// Whether its analysis ended at its time budget.
    stopped_by_time: bool,
}

/// Pass 3: what the planned functions of pass 2 did not spend of their budgets, shared
/// equally by those stopped by time, each analyzed again with its budget and that share
/// (at most `timeout` less what both passes spent on it), smallest first. A function whose
/// share would not at least double its budget gets none (a run from the start with less
/// would redo the same work), and its share goes to the others. What a function left is
/// counted in work, so the shares do not follow the machine's load.
fn second_chances(tried: &[Tried], timeout: Duration) -> Vec<(usize, Duration)> {
    let left: Duration = tried.iter().map(|t| t.budget.saturating_sub(t.spent)).sum();
    let mut stopped: Vec<&Tried> = tried.iter().filter(|t| t.stopped_by_time).collect();
    stopped.sort_by_key(|t| (t.size, t.function));
    // Drop the functions that cannot take a share worth a second run, largest budget
    // first, until every remaining one can.
    loop {
        if stopped.is_empty() {
            return vec![];
        }
        let share = left / stopped.len() as u32;
        let cannot = |t: &&Tried| {
            let room = timeout.saturating_sub(t.total_spent);
            share.min(room) < t.budget.max(Duration::from_millis(1))
        };
        let Some(worst) = (stopped.iter().enumerate())
            .filter(|(_, t)| cannot(t))
            .max_by_key(|(_, t)| (t.budget, t.size, t.function))
            .map(|(at, _)| at)
        else {
            return (stopped.iter())
                .map(|t| {
                    let room = timeout.saturating_sub(t.total_spent);
                    (t.function, t.budget + share.min(room))
                })
                .collect();
        };
        stopped.remove(worst);
    }
}

/// Keeps in `pass` (a function's second run) the verdicts of `before` (its first run) that
/// are more decided: both runs are sound, so a check proved, violated or holding under a
/// precondition in either is so.
fn keep_decided(
    pass: &mut Pass<pipeline::FunctionOutcome>,
    before: Pass<pipeline::FunctionOutcome>,
) {
    let rank = |v: &crate::check::Verdict| match v {
        crate::check::Verdict::Proved | crate::check::Verdict::Violated(_) => 2,
        crate::check::Verdict::HoldsIf(_) => 1,
        crate::check::Verdict::Unknown(_) => 0,
    };
    pass.elapsed += before.elapsed;
    pass.cpu += before.cpu;
    pass.budget += before.budget;
    pass.peak_heap_bytes = pass.peak_heap_bytes.max(before.peak_heap_bytes);
    let Ok(before) = before.result else { return };
    match &mut pass.result {
        Ok(after) => {
            for old in before.results {
                if let Some(new) = after.results.iter_mut().find(|r| r.check == old.check) {
                    if rank(&old.verdict) > rank(&new.verdict) {
                        *new = old;
                    }
                }
            }
        }
        // The second run panicked (a bug): the first run's verdicts stand.
        Err(_) => pass.result = Ok(before),
    }
}

/// Analyzes every function of the module.
pub fn analyze(module: &Module, config: &AnalysisConfig) -> AnalysisReport {
    analyze_inner(module, config, None, None)
}

/// Analyzes every function of the module, then, within each function's time budget,
/// searches a counterexample for the assertions left `Unknown(Imprecise)` (or stopped by a
/// resource budget); one confirmed by native replay makes its assertion `Violated`.
pub fn analyze_with_counterexamples(
    module: &Module,
    config: &AnalysisConfig,
    cex: &crate::cex::CexConfig,
) -> AnalysisReport {
    analyze_inner(module, config, Some(cex), None)
}

/// [`analyze`] or [`analyze_with_counterexamples`] (with `cex`) of `module`, loaded with
/// `fe`, reading the results of the functions whose entry `store` has and storing those of
/// the functions analyzed (see [`cache`]). The results of a run of the `invariants`
/// purpose are never cached.
pub fn analyze_with_cache(
    module: &Module,
    fe: &crate::frontend::FrontendConfig,
    config: &AnalysisConfig,
    cex: Option<&crate::cex::CexConfig>,
    store: &dyn cache::FunctionStore,
) -> AnalysisReport {
    if config.purpose != Purpose::Verdicts {
        return analyze_inner(module, config, cex, None);
    }
    let cache = cache::ModuleCache::new(store, module, fe, config, cex);
    analyze_inner(module, config, cex, Some(&cache))
}

fn analyze_inner(
    module: &Module,
    config: &AnalysisConfig,
    cex: Option<&crate::cex::CexConfig>,
    cache: Option<&cache::ModuleCache<'_>>,
) -> AnalysisReport {
    let mut report = AnalysisReport {
        names: crate::check::FunctionNames::of_module(module),
        leaks: module.leaks.clone(),
        ..AnalysisReport::default()
    };
    let config = &config.within_process_memory();
    // The functions whose results are in the cache run neither pass.
    let cached: Vec<Option<cache::CachedFunction>> = (0..module.functions.len())
        .map(|i| {
            let func = &module.functions[i];
            let cache = cache.filter(|_| unanalyzable(module, &func.name).is_none())?;
            cache.look_up(module, i)
        })
        .collect();
    // Pass 1, the interval stage of every function (unless the configuration is itself
    // classic over intervals): it is cheap, and it runs to its fixpoint on every function
    // before any expensive stage starts, so that what it proves does not depend on what
    // the expensive stages cost nor on the machine's load. Its limit is a budget of work
    // (`StageParams::interval_work`, steps that follow the function's size); time limits it
    // only as a safety net: `--timeout` per function and the run's end.
    let staged = pipeline::is_staged(config);
    //
    // Largest first, so that the workers end together (on lz4 the 32 largest functions
    // hold most of the assertions and most of the pass's time).
    let first: Vec<Option<Pass<pipeline::Staged>>> = if staged {
        let mut order: Vec<usize> = (0..module.functions.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(function_size(&module.functions[i])));
        let ordered = parallel::map(
            &order,
            config.jobs,
            |&i| module.functions[i].name.clone(),
            |&i| {
                let func = &module.functions[i];
                if unanalyzable(module, &func.name).is_some() || cached[i].is_some() {
                    return None;
                }
                let left = config
                    .ends
                    .map_or(config.timeout, |ends| ends.left())
                    .min(config.timeout);
                let budget = if func.checks().is_empty() {
                    // Nothing to decide: its invariants are for the report only.
                    left.min(config.params.run.min_function_budget)
                } else {
                    left
                };
                Some(Pass::run(budget, || {
                    pipeline::interval_pass(func, module, config, cex, budget)
                }))
            },
        );
        let mut first: Vec<Option<Pass<pipeline::Staged>>> =
            module.functions.iter().map(|_| None).collect();
        for (i, pass) in order.into_iter().zip(ordered) {
            first[i] = pass;
        }
        first
    } else {
        module.functions.iter().map(|_| None).collect()
    };
    // Pass 2, the expensive stages, for the functions with assertions left open (every
    // function for invariants): they share what is left of the run's budget.
    let needs_more = |i: usize, staged: Option<&Pass<pipeline::Staged>>| {
        let func = &module.functions[i];
        if unanalyzable(module, &func.name).is_some() || cached[i].is_some() {
            return false;
        }
        match staged.map(|p| &p.result) {
            Some(Ok(staged)) => pipeline::needs_more(staged, config),
            Some(Err(_)) => false,
            None => config.purpose == Purpose::Invariants || !func.checks().is_empty(),
        }
    };
    // The functions with checks that pass 2 analyzes: they share the run's plan.
    let planned: Vec<bool> = (module.functions.iter().zip(&first).enumerate())
        .map(|(i, (f, s))| {
            needs_more(i, s.as_ref())
                && (config.purpose == Purpose::Invariants || !f.checks().is_empty())
        })
        .collect();
    let n_second = planned.iter().filter(|p| **p).count();
    if let Some(plan) = config.plan {
        let total: Duration = (0..n_second)
            .map(|at| config.planned_share(plan, at, n_second))
            .sum();
        report.planned = config.plan_taken(total);
    }
    // Each function's pass-1 result moves to the worker that continues it. Smallest first:
    // when the plan cannot give every function its minimum, the smallest get it, and a
    // large function that overruns its budget delays no function that has not started.
    let mut items: Vec<(usize, Mutex<Option<Pass<pipeline::Staged>>>)> = first
        .into_iter()
        .enumerate()
        .filter(|(i, _)| cached[*i].is_none())
        .map(|(i, s)| (i, Mutex::new(s)))
        .collect();
    items.sort_by_key(|(i, _)| (function_size(&module.functions[*i]), *i));
    // Each planned function's place in that order.
    let mut position = vec![0usize; module.functions.len()];
    for (at, (i, _)) in items.iter().filter(|(i, _)| planned[*i]).enumerate() {
        position[*i] = at;
    }
    // Pass 2 of function `i` from what pass 1 left (`staged`), with `planned_budget` for its
    // stages and preconditions; also gives the CPU time pass 2 spent.
    let second_pass = |i: &usize,
                       staged: Option<Pass<pipeline::Staged>>,
                       planned_budget: Duration|
     -> (Pass<pipeline::FunctionOutcome>, Duration) {
        {
            let func = &module.functions[*i];
            if let Some(left_out) = unanalyzable(module, &func.name) {
                return (
                    Pass::done(pipeline::not_analyzed(func, module, left_out)),
                    Duration::ZERO,
                );
            }
            let second = needs_more(*i, staged.as_ref());
            let (first_spent, first_elapsed, first_budget, first_heap) = staged
                .as_ref()
                .map(|p| (p.cpu, p.elapsed, p.budget, p.peak_heap_bytes))
                .unwrap_or_default();
            // The function's budget in pass 2, which its preconditions spend too.
            let counted_before = crate::domain::stop::counted();
            // The stages' budget in pass 2 (the preconditions get a reserve on top).
            let mut stage_budget = Duration::ZERO;
            let mut pass = match staged.map(|p| p.result) {
                Some(Err(what)) => Pass::done(pipeline::panicked(func, module, what)),
                Some(Ok(staged)) if !second => Pass::done(pipeline::finish(func, module, staged)),
                staged => {
                    // Never past `--timeout` for the whole function.
                    let budget = planned_budget.min(config.timeout.saturating_sub(first_spent));
                    stage_budget = budget;
                    let staged = staged.map(|s| s.ok()).unwrap_or(None);
                    Pass::run(budget, || {
                        pipeline::run(func, module, config, cex, budget, staged)
                    })
                }
            };
            // Preconditions of the checks left open, after the verdicts are final (not in
            // a function whose lifted form does not have the source's semantics).
            let mut reserve = Duration::ZERO;
            if let (Ok(outcome), None) = (&mut pass.result, unanalyzable(module, &func.name)) {
                // What the analysis left of the function's budget, and at least a share
                // of it (their reserve, part of the function's budget as reported),
                // counted in work (time is its safety net), so that they cost in
                // proportion to what the function was planned and the run's plan holds;
                // the relational attempt only where the function's analysis ended within
                // its budget.
                let run_left = config.ends.map_or(Duration::MAX, |ends| ends.left());
                let budget = if second { stage_budget } else { planned_budget };
                let room = config.timeout.saturating_sub(first_spent);
                let (time, work, least) = precondition_budget(
                    budget,
                    room,
                    pass.cpu,
                    crate::domain::stop::counted().saturating_sub(counted_before),
                    &config.params.stages,
                );
                let time = time.min(run_left);
                // Part of the function's budget as reported: after pass 2 their reserve;
                // after pass 1 alone (nothing imprecise left) all they get, when a check
                // is open.
                let open = (outcome.results.iter())
                    .any(|r| matches!(r.verdict, crate::check::Verdict::Unknown(_)));
                reserve = if second {
                    least
                } else if open {
                    time
                } else {
                    Duration::ZERO
                };
                let relational = config.params.stages.relational_preconditions
                    && config.timeout > first_spent + pass.cpu;
                let named = cex.map(|c| c.frontend.entry.names()).unwrap_or_default();
                let outside = preconditions::starts_executions(func, module, &named);
                let started = Instant::now();
                let cpu_started = crate::clock::thread_cpu();
                let counted = crate::domain::stop::counted();
                let ends = crate::clock::now() + time;
                let _ = catch_unwind(AssertUnwindSafe(|| {
                    crate::domain::stop::within(ends, work, || {
                        preconditions::settle(
                            func,
                            &mut outcome.results,
                            config,
                            outside,
                            crate::check::Callers::of(module, &func.name),
                            time,
                            relational,
                        )
                    })
                }));
                if config.params.trace.work {
                    eprintln!(
                        "polyfocus: work: {} Preconditions {:.3} s (CPU {:.3} s of {:.3} s), \
                         counted {} of {:?}",
                        func.name,
                        started.elapsed().as_secs_f64(),
                        crate::clock::thread_cpu()
                            .saturating_sub(cpu_started)
                            .as_secs_f64(),
                        time.as_secs_f64(),
                        crate::domain::stop::counted().saturating_sub(counted),
                        work
                    );
                }
                pass.elapsed += started.elapsed();
                pass.cpu += crate::clock::thread_cpu().saturating_sub(cpu_started);
            }
            // The function's budget as reported: pass 1's, or what pass 1 used and pass 2's;
            // with the preconditions' reserve.
            pass.budget = if second {
                first_spent + pass.budget
            } else {
                first_budget
            } + reserve;
            // What pass 2 spent, as the second chances count it: its counted work at
            // `work_per_second`, which does not follow the load (its CPU time without a
            // rate).
            let spent = in_seconds_of_work(
                crate::domain::stop::counted().saturating_sub(counted_before),
                pass.cpu,
                config,
            );
            pass.elapsed += first_elapsed;
            pass.cpu += first_spent;
            pass.peak_heap_bytes = pass.peak_heap_bytes.max(first_heap);
            (pass, spent)
        }
    };
    let runs = parallel::map(
        &items,
        config.jobs,
        |(i, _)| module.functions[*i].name.clone(),
        |(i, staged)| {
            let staged = staged.lock().unwrap_or_else(|e| e.into_inner()).take();
            let planned_budget = if planned[*i] {
                config.planned_budget(position[*i], n_second)
            } else {
                config.report_only_budget()
            };
            let (pass, spent) = second_pass(i, staged, planned_budget);
            (pass, planned_budget, spent)
        },
    );
    // Pass 3, a second chance: what the planned functions left of their budgets goes to
    // those stopped by time, analyzed again from the start with their budget and a share
    // of it (`second_chances`); each check keeps the more decided of its two verdicts.
    let mut runs: Vec<Pass<pipeline::FunctionOutcome>> = if config.plan.is_some() {
        let tried: Vec<Tried> = (items.iter().zip(&runs))
            .filter(|((i, _), _)| planned[*i])
            .map(|((i, _), (pass, planned_budget, spent))| Tried {
                function: *i,
                size: function_size(&module.functions[*i]),
                budget: *planned_budget,
                spent: *spent,
                total_spent: pass.cpu,
                stopped_by_time: matches!(&pass.result, Ok(o) if o.end == RunEnd::Timeout),
            })
            .collect();
        let chances = second_chances(&tried, config.timeout);
        let mut runs: Vec<Pass<pipeline::FunctionOutcome>> =
            runs.into_iter().map(|(pass, _, _)| pass).collect();
        let again = parallel::map(
            &chances,
            config.jobs,
            |(i, _)| module.functions[*i].name.clone(),
            |&(i, budget)| {
                let budget = match config.ends {
                    Some(ends) if ends.reached() => Duration::ZERO,
                    Some(ends) => budget.min(ends.left()),
                    None => budget,
                };
                if budget.is_zero() {
                    return None;
                }
                let func = &module.functions[i];
                let counted = crate::domain::stop::counted();
                let staged = Pass::run(budget, || {
                    pipeline::interval_pass(func, module, config, cex, budget)
                });
                // The interval pass's part, in counted work like the pool it came from.
                let used = in_seconds_of_work(
                    crate::domain::stop::counted().saturating_sub(counted),
                    staged.cpu,
                    config,
                );
                let left = budget.saturating_sub(used);
                Some(second_pass(&i, Some(staged), left).0)
            },
        );
        for ((i, _), pass) in chances.iter().zip(again) {
            let Some(pass) = pass else { continue };
            let at = items
                .iter()
                .position(|(j, _)| j == i)
                .expect("a run per item");
            let before = std::mem::replace(&mut runs[at], pass);
            keep_decided(&mut runs[at], before);
        }
        runs
    } else {
        runs.into_iter().map(|(pass, _, _)| pass).collect()
    };
    let mut runs: Vec<(usize, Pass<_>)> =
        items.iter().map(|(i, _)| *i).zip(runs.drain(..)).collect();
    runs.sort_by_key(|(i, _)| *i);
    let mut runs = runs.into_iter();
    let mut next_run = runs.next();
    for (i, from_cache) in cached.into_iter().enumerate() {
        let func = &module.functions[i];
        let outcome = match from_cache {
            Some(outcome) => {
                report.cache.from_cache += 1;
                outcome
            }
            None => {
                let (j, pass) = next_run.take().expect("one run per function not cached");
                debug_assert_eq!(i, j);
                next_run = runs.next();
                let Pass {
                    result: run,
                    elapsed,
                    cpu,
                    budget,
                    peak_heap_bytes,
                    ..
                } = pass;
                let run = run.unwrap_or_else(|what| pipeline::panicked(func, module, what));
                report.cut_invariants.extend(run.at_cut_points);
                let outcome = cache::CachedFunction {
                    run: FunctionRun {
                        function: func.name.clone(),
                        end: run.end,
                        elapsed,
                        cpu,
                        budget,
                        memory_budget: config.memory_per_function,
                        peak_heap_bytes,
                        stages: run.stages,
                        checks: run.times,
                        domain_types: run.domain_types,
                    },
                    results: run.results,
                    loop_invariants: run.invariants,
                    refinement: run.refinement,
                    program: None,
                };
                if let Some(cache) = cache.filter(|_| unanalyzable(module, &func.name).is_none()) {
                    report.cache.analyzed += 1;
                    report.cache.stored += cache.save(module, i, outcome.clone()) as usize;
                }
                outcome
            }
        };
        report.functions.push(outcome.run);
        report.refinement.extend(outcome.refinement);
        report.results.extend(outcome.results);
        report.loop_invariants.extend(outcome.loop_invariants);
    }
    // Checks whose error site the front end's CFG simplification removed: LLVM proved them
    // unreachable (contradictory guards), under the same no-undefined-behaviour assumption.
    // Not in a function whose lifted form is unsound, though.
    let missing: Vec<&crate::ir::Check> = module
        .checks
        .iter()
        .filter(|check| !report.results.iter().any(|r| r.check == check.id))
        .collect();
    for check in missing {
        let table = match unanalyzable(module, &check.function) {
            Some(left_out) => VerdictTable::open(vec![check.id], pipeline::left_open(left_out)),
            None => VerdictTable::removed_by_front_end(vec![check.id]),
        };
        report.results.extend(table.into_results(module, |_| None));
    }
    // Inlined copies of code a function proves on its own hold everywhere.
    copies::settle_copies(module, &mut report.results);
    crate::check::sort_in_source_order(&mut report.results);
    report
}

/// What one pass over a function gave, with its time, budget and heap.
struct Pass<R> {
    /// The pass's result, or the message of its panic (a bug).
    result: Result<R, String>,
    /// Its wall-clock time (reported).
    elapsed: Duration,
    /// Its CPU time on the worker thread (what its budgets count, [`crate::clock`]).
    cpu: Duration,
    budget: Duration,
    peak_heap_bytes: usize,
}

impl<R> Pass<R> {
    /// Runs `f` under `catch_unwind`, measuring its time and heap.
    fn run(budget: Duration, f: impl FnOnce() -> R) -> Pass<R> {
        let start = Instant::now();
        let cpu = crate::clock::thread_cpu();
        let heap = crate::budget::HeapMeter::start();
        let result = catch_unwind(AssertUnwindSafe(f)).map_err(|panic| {
            panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "panic".to_string())
        });
        Pass {
            result,
            elapsed: start.elapsed(),
            cpu: crate::clock::thread_cpu().saturating_sub(cpu),
            budget,
            peak_heap_bytes: heap.peak_bytes(),
        }
    }

    /// A result that took no analysis.
    fn done(result: R) -> Pass<R> {
        Pass {
            result: Ok(result),
            elapsed: Duration::ZERO,
            cpu: Duration::ZERO,
            budget: Duration::ZERO,
            peak_heap_bytes: 0,
        }
    }
}

/// A function's size (instructions and blocks), which the cost of its analysis follows.
fn function_size(func: &crate::ir::Function) -> usize {
    func.blocks.iter().map(|b| b.insts.len() + 1).sum()
}

/// Why the assertions of `function` are not decided, when its lifted form does not have the
/// semantics of the source or the front end's budget left it out.
fn unanalyzable<'m>(module: &'m Module, function: &str) -> Option<&'m crate::ir::Unanalyzable> {
    module.unanalyzable.iter().find(|u| u.function == function)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(plan: Option<u64>, jobs: usize, timeout: u64) -> AnalysisConfig {
        AnalysisConfig {
            engine: Engine::Focus,
            domain: DomainKind::Poly,
            timeout: Duration::from_secs(timeout),
            memory_per_function: 1 << 30,
            jobs,
            refine: true,
            params: Params::DEFAULT,
            purpose: Purpose::Verdicts,
            ends: plan.map(|s| crate::clock::RunStop::after(Duration::from_secs(s), jobs)),
            plan: plan.map(Duration::from_secs),
        }
    }

    #[test]
    fn every_function_of_the_pass_gets_the_same_share_of_the_plan() {
        // Half of 240 s on two workers, over 100 functions: 2.4 s each, wherever it is.
        let c = config(Some(240), 2, 60);
        for position in [0, 50, 99] {
            assert_eq!(c.planned_budget(position, 100), Duration::from_millis(2400));
        }
        // Never more than `--timeout`, and `--timeout` without a run budget.
        assert_eq!(
            config(Some(240), 2, 1).planned_budget(0, 2),
            Duration::from_secs(1)
        );
        assert_eq!(
            config(None, 2, 7).planned_budget(9, 10),
            Duration::from_secs(7)
        );
    }

    #[test]
    fn when_the_minimums_do_not_fit_only_the_first_functions_get_one() {
        // 120 s of plan on one worker for 1000 functions: 480 of them get the least budget.
        let c = config(Some(240), 1, 60);
        let least = Params::DEFAULT.run.min_planned_budget;
        assert_eq!(least, Duration::from_millis(250));
        assert_eq!(c.planned_budget(0, 1000), least);
        assert_eq!(c.planned_budget(479, 1000), least);
        assert_eq!(c.planned_budget(480, 1000), Duration::ZERO);
    }

    #[test]
    fn a_program_takes_the_part_of_the_plan_its_budgets_add_up_to() {
        let c = config(Some(100), 2, 10);
        // Half the plan on two workers: budgets of 40 s in all take 40 s of it, and never
        // more than the plan.
        assert_eq!(
            c.plan_taken(Duration::from_secs(40)),
            Duration::from_secs(40)
        );
        assert_eq!(
            c.plan_taken(Duration::from_secs(500)),
            Duration::from_secs(100)
        );
        assert_eq!(
            config(None, 2, 10).plan_taken(Duration::from_secs(5)),
            Duration::ZERO
        );
    }

    #[test]
    fn preconditions_take_what_the_analysis_left_and_at_least_their_reserve() {
        let mut stages = Params::DEFAULT.stages;
        stages.precondition_share = 0.5;
        stages.work_per_second = 1000;
        stages.time_net = 3.0;
        let budget = Duration::from_secs(2);
        let room = Duration::from_secs(60);
        // An analysis that ended early leaves the rest of its work; the time is a net of
        // `time_net` times what that work stands for.
        let (time, work, reserve) =
            precondition_budget(budget, room, Duration::from_millis(500), 300, &stages);
        assert_eq!(time, Duration::from_millis(5100));
        assert_eq!(work, Some(1700));
        assert_eq!(reserve, Duration::from_secs(1));
        // One that spent it all leaves the reserve.
        let (time, work, _) =
            precondition_budget(budget, room, Duration::from_secs(2), 5000, &stages);
        assert_eq!(time, Duration::from_secs(3));
        assert_eq!(work, Some(1000));
        // `--timeout` bounds the whole function: the reserve is what it leaves past the
        // analysis' budget.
        let (time, _, reserve) = precondition_budget(
            budget,
            Duration::from_millis(2400),
            Duration::from_secs(2),
            5000,
            &stages,
        );
        assert_eq!(
            (time, reserve),
            (Duration::from_millis(400), Duration::from_millis(400))
        );
        // Without a rate the time alone limits them.
        stages.work_per_second = 0;
        assert_eq!(
            precondition_budget(budget, room, budget, 0, &stages).1,
            None
        );
    }

    fn pass(function: usize, budget_ms: u64, spent_ms: u64, stopped: bool) -> Tried {
        Tried {
            function,
            size: function * 10,
            budget: Duration::from_millis(budget_ms),
            spent: Duration::from_millis(spent_ms),
            total_spent: Duration::from_millis(spent_ms + 100),
            stopped_by_time: stopped,
        }
    }

    #[test]
    fn what_finished_functions_left_goes_to_those_stopped_by_time() {
        // 900 + 900 ms left by two functions, shared by the two stopped by time.
        let tried = [
            pass(0, 1000, 100, false),
            pass(1, 800, 800, true),
            pass(2, 1000, 100, false),
            pass(3, 500, 500, true),
        ];
        let chances = second_chances(&tried, Duration::from_secs(60));
        assert_eq!(
            chances,
            vec![
                (1, Duration::from_millis(1700)),
                (3, Duration::from_millis(1400))
            ]
        );
        // Never past `--timeout` for the whole function: under 1.6 s the first one has
        // room for 700 ms only, less than its budget, and the other takes what is left.
        assert_eq!(
            second_chances(&tried, Duration::from_millis(1600)),
            vec![(3, Duration::from_millis(1500))]
        );
        // Nothing left, no second chance.
        assert!(second_chances(&[pass(1, 1000, 1000, true)], Duration::from_secs(60)).is_empty());
    }

    #[test]
    fn a_share_too_small_to_double_a_budget_goes_to_the_others() {
        // 1200 ms left: two shares of 600 ms would not double the 1000 ms budget; one
        // share of 1200 ms does double the 400 ms one.
        let tried = [
            pass(0, 1300, 100, false),
            pass(1, 1000, 1000, true),
            pass(2, 400, 400, true),
        ];
        assert_eq!(
            second_chances(&tried, Duration::from_secs(60)),
            vec![(2, Duration::from_millis(1600))]
        );
    }

    #[test]
    fn past_the_runs_safety_stop_no_function_gets_a_budget() {
        let mut c = config(Some(240), 2, 60);
        c.ends = Some(crate::clock::RunStop::reached_now());
        assert_eq!(c.planned_budget(0, 1), Duration::ZERO);
        assert_eq!(c.report_only_budget(), Duration::ZERO);
    }
}
