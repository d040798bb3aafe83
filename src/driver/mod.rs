//! Runs the stages on a loaded module: per function, the pipeline of stages
//! (`pipeline.rs`: engine, counterexample searches, refinement) over a table of verdicts
//! (`verdicts.rs`), in parallel over functions, and assembles the report.
//!
//! Each function is analyzed under `catch_unwind`, so that a bug gives `Unknown` for that
//! function's assertions and the other functions are still analyzed.

use crate::ir::Module;
use crate::params::Params;
use pipeline::FunctionOutcome;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use verdicts::{Open, VerdictTable};

mod cause;
mod domain_types;
mod engine;
mod parallel;
mod pipeline;
mod verdicts;

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
    /// Polyhedra partitioned by the valuations of the program's booleans (issue 7, NEX).
    PolyPred,
    /// One BDD over the program's booleans times one polyhedron (issue 7, NEXPOINT).
    PolyPredProduct,
    /// Intervals partitioned by the valuations of the program's booleans (issue 7, NEX).
    IntervalPred,
    /// One BDD over the program's booleans times one interval state (issue 7, NEXPOINT).
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
    /// Whether assertions left unknown by path focusing get predicate refinement (issue 7).
    pub refine: bool,
    /// The tuning constants; the driver reads the stage shares from here.
    pub params: Params,
    /// What the run is for.
    pub purpose: Purpose,
    /// When the analysis of this module must end (the run's budget, `--run-budget`), or
    /// `None`: each function gets `timeout`. See [`crate::params::RunParams`].
    pub ends: Option<Instant>,
}

impl AnalysisConfig {
    /// The same configuration for one program of `n_programs_left` still to analyze in a
    /// run: it gets an equal share of the time left.
    pub fn for_program(&self, n_programs_left: usize) -> AnalysisConfig {
        let ends = self.ends.map(|ends| {
            let left = ends.saturating_duration_since(Instant::now());
            Instant::now() + left / n_programs_left.max(1) as u32
        });
        AnalysisConfig {
            ends,
            ..self.clone()
        }
    }

    /// The time budget of a function that starts now, when `n_left` functions with an
    /// assertion (itself included) have not started: `timeout`, or less, its share of the
    /// time left to the run's workers.
    fn function_budget(&self, n_left: usize) -> Duration {
        let Some(ends) = self.ends else {
            return self.timeout;
        };
        let left = ends.saturating_duration_since(Instant::now());
        let share = left.mul_f64(self.jobs.max(1) as f64 / n_left.max(1) as f64);
        share
            .max(self.params.run.min_function_budget)
            .min(self.timeout)
    }
}

/// Analyzes every function of the module.
pub fn analyze(module: &Module, config: &AnalysisConfig) -> AnalysisReport {
    analyze_inner(module, config, None)
}

/// Analyzes every function of the module, then, within each function's time budget,
/// searches a counterexample for the assertions left `Unknown(Imprecise)` (or stopped by a
/// resource budget); one confirmed by native replay makes its assertion `Violated`.
pub fn analyze_with_counterexamples(
    module: &Module,
    config: &AnalysisConfig,
    cex: &crate::cex::CexConfig,
) -> AnalysisReport {
    analyze_inner(module, config, Some(cex))
}

fn analyze_inner(
    module: &Module,
    config: &AnalysisConfig,
    cex: Option<&crate::cex::CexConfig>,
) -> AnalysisReport {
    let mut report = AnalysisReport::default();
    // The functions with an assertion share what is left of the run's budget; the others
    // settle nothing and end after the interval stage.
    let n_with_checks = module
        .functions
        .iter()
        .filter(|f| !f.checks().is_empty())
        .count();
    let n_started = AtomicUsize::new(0);
    // Functions in parallel (issue 8); results are assembled in function order below.
    let runs = parallel::map(
        &module.functions,
        config.jobs,
        |func| func.name.clone(),
        |func| {
            let start = std::time::Instant::now();
            let budget = if func.checks().is_empty() {
                config.timeout
            } else {
                let i = n_started.fetch_add(1, Ordering::Relaxed);
                config.function_budget(n_with_checks.saturating_sub(i))
            };
            let heap = crate::budget::HeapMeter::start();
            let run = catch_unwind(AssertUnwindSafe(|| {
                match unanalyzable(module, &func.name) {
                    Some(reason) => pipeline::not_analyzed(func, module, reason),
                    None => pipeline::run(func, module, config, cex, start, budget),
                }
            }));
            let run = run.map_err(|panic| {
                panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "panic".to_string())
            });
            (run, start.elapsed(), heap.peak_bytes(), budget)
        },
    );
    for (func, (run, elapsed, peak_heap_bytes, budget)) in module.functions.iter().zip(runs) {
        let run = run.unwrap_or_else(|what| {
            // The panic took the table with it: every assertion stays open, for the bug.
            let checks = func.checks();
            FunctionOutcome {
                results: VerdictTable::open(checks, Open::InternalError(what.clone()))
                    .into_results(module, |_| None),
                invariants: vec![],
                at_cut_points: None,
                refinement: None,
                end: RunEnd::InternalError(what),
                stages: vec![],
                times: vec![],
                domain_types: None,
            }
        });
        report.functions.push(FunctionRun {
            function: func.name.clone(),
            end: run.end,
            elapsed,
            budget,
            peak_heap_bytes,
            stages: run.stages,
            checks: run.times,
            domain_types: run.domain_types,
        });
        report.cut_invariants.extend(run.at_cut_points);
        report.refinement.extend(run.refinement);
        report.results.extend(run.results);
        report.loop_invariants.extend(run.invariants);
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
            Some(reason) => VerdictTable::open(vec![check.id], Open::Unsupported(reason)),
            None => VerdictTable::removed_by_front_end(vec![check.id]),
        };
        report.results.extend(table.into_results(module, |_| None));
    }
    crate::check::sort_in_source_order(&mut report.results);
    report
}

/// Why the assertions of `function` are not decided, when its lifted form does not have the
/// semantics of the source (issue 12).
fn unanalyzable(module: &Module, function: &str) -> Option<String> {
    module
        .unanalyzable
        .iter()
        .find(|u| u.function == function)
        .map(|u| u.reason.clone())
}
