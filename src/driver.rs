//! Runs the stages on a loaded module: per function, the reduced graph, the chosen engine
//! over the chosen domain, and the verdict of each assertion.
//!
//! Each function is analyzed under `catch_unwind`, so that a bug gives `Unknown` for that
//! function's assertions and the other functions are still analyzed.

use crate::analysis::certify::CutInvariants;
use crate::analysis::lower::Lowering;
use crate::analysis::refine::{LocalPredicates, SlotAssignment};
use crate::analysis::{classic, Deadline, Invariants, Outcome};
use crate::check::{CheckResult, UnknownReason, Verdict};
use crate::domain::{format_state, IntervalDomain, NumericDomain};
use crate::graph::{CutKind, ReducedGraph};
use crate::ir::{Function, Module, SourceLoc, Terminator};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

mod cause;
mod parallel;

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
}

/// The invariant at a loop head, for people.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopInvariant {
    /// The function.
    pub function: String,
    /// The loop head's block name.
    pub block: String,
    /// Where the loop is in the source.
    pub loc: Option<SourceLoc>,
    /// The invariant as a C expression over source variable names.
    pub text: String,
}

/// Everything the analysis found.
#[derive(Clone, Debug)]
pub struct AnalysisReport {
    /// One result per assertion, in check order.
    pub results: Vec<CheckResult>,
    /// Invariants at loop heads.
    pub loop_invariants: Vec<LoopInvariant>,
    /// Invariants at every cut point of every function whose analysis completed, for
    /// certification.
    pub cut_invariants: Vec<CutInvariants>,
    /// What predicate refinement did, per function where it ran.
    pub refinement: Vec<RefinementStats>,
    /// How the analysis of each function ended, in function order.
    pub functions: Vec<FunctionRun>,
}

/// How the analysis of one function ended, with what it cost.
#[derive(Clone, Debug)]
pub struct FunctionRun {
    /// The function.
    pub function: String,
    /// Finished, or the budget it ran out of.
    pub end: RunEnd,
    /// Wall time, counterexample search included.
    pub elapsed: Duration,
    /// The most heap the analysis held at once, in bytes (see [`crate::budget`]).
    pub peak_heap_bytes: usize,
    /// The stages that ran, in order, with how each ended.
    pub stages: Vec<StageRun>,
    /// Per assertion of the function (in check order), the time each stage spent on it.
    pub checks: Vec<CheckRun>,
}

/// A stage of the analysis of one function (issue 13: where the time goes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The engine over the chosen domain.
    Analysis,
    /// Predicate refinement rounds.
    Refinement,
    /// The counterexample search (the short one before refinement and the full one).
    CounterexampleSearch,
}

impl Stage {
    /// The stage's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Analysis => "analysis",
            Stage::Refinement => "refinement",
            Stage::CounterexampleSearch => "counterexample search",
        }
    }
}

/// How a stage ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StageEnd {
    /// It ended by itself: a fixpoint, no assertion left open, or nothing more to learn.
    Finished,
    /// Its share of the time budget ran out first.
    Timeout,
    /// A resource budget ran out (`"memory"`, `"analysis"`).
    Budget(&'static str),
}

/// One stage that ran in one function.
#[derive(Clone, Debug)]
pub struct StageRun {
    /// Which.
    pub stage: Stage,
    /// Wall time.
    pub elapsed: Duration,
    /// How it ended.
    pub end: StageEnd,
    /// What it did or why it stopped, for people.
    pub detail: Option<String>,
}

/// The time each stage spent while an assertion was still open.
#[derive(Clone, Debug)]
pub struct CheckRun {
    /// The assertion.
    pub check: crate::ir::CheckId,
    /// The first analysis (shared by every assertion of the function).
    pub analysis: Duration,
    /// Refinement rounds that started with the assertion open.
    pub refinement: Duration,
    /// Counterexample searches that had it as a target.
    pub search: Duration,
    /// What the last counterexample search said about it, when it found nothing.
    pub search_note: Option<String>,
    /// A search found a candidate for it that did not replay: searching again would find
    /// the same one.
    pub unconfirmed: bool,
}

/// How the analysis of a function ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunEnd {
    /// The fixpoint was reached: its invariants decided the verdicts.
    Finished,
    /// The time budget ran out.
    Timeout,
    /// A resource budget ran out (`"memory"`, `"analysis"`: solver queries or a query
    /// the solver gave up on).
    Budget(&'static str),
    /// The analysis panicked (a bug).
    InternalError(String),
}

/// Analyzes every function of the module.
pub fn analyze(module: &Module, config: &AnalysisConfig) -> AnalysisReport {
    analyze_inner(module, config, None)
}

// --- counterexamples (issue 6) ---
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

/// Runs the counterexample search of one function before `deadline` and updates `verdicts`
/// (in the order of `checks`); the time goes to the targets in `times`. Returns how the
/// search ended, or `None` when it did not run.
fn search_counterexamples(
    func: &Function,
    module: &Module,
    checks: &[crate::ir::CheckId],
    verdicts: &mut [Verdict],
    times: &mut [CheckRun],
    cex: &crate::cex::CexConfig,
    deadline: std::time::Instant,
) -> Option<StageRun> {
    use crate::cex::CexOutcome;
    let searchable = |v: &Verdict, t: &CheckRun| {
        matches!(
            v,
            Verdict::Unknown(UnknownReason::Imprecise) | Verdict::Unknown(UnknownReason::Budget(_))
        ) && !t.unconfirmed
    };
    // An error site at a call that may call an escaped error function branches on an
    // arbitrary condition, which the search cannot drive: it is left out.
    let may_call = |c: &crate::ir::CheckId| {
        matches!(
            module.check(*c).kind,
            crate::ir::CheckKind::MayCallError { .. }
        )
    };
    let targets: Vec<crate::ir::CheckId> = checks
        .iter()
        .zip(verdicts.iter().zip(times.iter()))
        .filter(|(c, (v, t))| searchable(v, t) && !may_call(c))
        .map(|(c, _)| *c)
        .collect();
    if targets.is_empty() || std::time::Instant::now() + Duration::from_millis(200) >= deadline {
        return None;
    }
    crate::progress::stage(|| Stage::CounterexampleSearch.name().into());
    let started = std::time::Instant::now();
    let found = catch_unwind(AssertUnwindSafe(|| {
        crate::cex::find_any_counterexample(func, module, &targets, cex, deadline)
    }));
    let elapsed = started.elapsed();
    for t in times.iter_mut().filter(|t| targets.contains(&t.check)) {
        t.search += elapsed;
    }
    let mut note = |why: String, unconfirmed: bool| {
        for t in times.iter_mut().filter(|t| targets.contains(&t.check)) {
            t.search_note = Some(why.clone());
            t.unconfirmed |= unconfirmed;
        }
    };
    let (end, detail) = match found {
        Ok((Some(check), CexOutcome::Confirmed(trace))) => {
            if let Some(i) = checks.iter().position(|c| *c == check) {
                verdicts[i] = Verdict::Violated(trace);
            }
            (StageEnd::Finished, "counterexample confirmed".to_string())
        }
        // The search's outcome is a note beside the verdict, not its reason: it depends on
        // how far the search got in its budget (issue 13).
        Ok((_, CexOutcome::Unconfirmed(why))) => {
            let why = format!("counterexample not confirmed: {why}");
            note(why.clone(), true);
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
            StageEnd::Budget("internal error"),
            "the counterexample search panicked".into(),
        ),
    };
    Some(StageRun {
        stage: Stage::CounterexampleSearch,
        elapsed,
        end,
        detail: Some(detail),
    })
}
// --- end counterexamples ---

fn analyze_inner(
    module: &Module,
    config: &AnalysisConfig,
    cex: Option<&crate::cex::CexConfig>,
) -> AnalysisReport {
    let mut results = Vec::new();
    let mut loop_invariants = Vec::new();
    let mut cut_invariants = Vec::new();
    let mut refinement_stats = Vec::new();
    let mut functions = Vec::new();
    // Functions in parallel (issue 8); results are assembled in function order below.
    let runs = parallel::map(
        &module.functions,
        config.jobs,
        |func| func.name.clone(),
        |func| {
            let checks = func.checks();
            let start = std::time::Instant::now();
            let heap = crate::budget::HeapMeter::start();
            // A short counterexample search before refinement (issue 7), so that refinement,
            // which cannot help with a real bug, does not use up the budget of one.
            let mut quick_search = |verdicts: &mut [Verdict], times: &mut [CheckRun]| {
                // Short: shallow bugs are found in well under a second, and on a true
                // task the whole slice is lost before refinement can start.
                let cex = cex?;
                let slice = (config.timeout / 10).min(Duration::from_millis(500));
                let deadline = std::time::Instant::now() + slice;
                search_counterexamples(func, module, &checks, verdicts, times, cex, deadline)
            };
            let mut run = catch_unwind(AssertUnwindSafe(|| {
                match unanalyzable(module, &func.name) {
                    Some(reason) => not_analyzed(&checks, reason),
                    None => analyze_function(func, config, &mut quick_search),
                }
            }));
            if let Ok(outcome) = &mut run {
                if let Some(cex) = cex {
                    // Counterexamples (issue 6): the rest of the function's budget, minus a
                    // margin for reporting before a harness kills the process; the search
                    // ends earlier when it stops learning.
                    let margin = (config.timeout / 20).max(Duration::from_millis(300));
                    let deadline = start + config.timeout.saturating_sub(margin);
                    let verdicts = &mut outcome.verdicts;
                    let times = &mut outcome.times;
                    let search = search_counterexamples(
                        func, module, &checks, verdicts, times, cex, deadline,
                    );
                    outcome.stages.extend(search);
                }
                // The first cause that blocks each assertion still unknown, found from the
                // program and the invariants only (not from how far a search got).
                for (v, cause) in outcome.verdicts.iter_mut().zip(&outcome.causes) {
                    if let (Verdict::Unknown(UnknownReason::Imprecise), Some(cause)) = (&*v, cause)
                    {
                        *v = Verdict::Unknown(cause.clone());
                    }
                }
            }
            let run = run.map_err(|panic| {
                panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "panic".to_string())
            });
            (run, start.elapsed(), heap.peak_bytes())
        },
    );
    for (func, (run, elapsed, peak_heap_bytes)) in module.functions.iter().zip(runs) {
        let checks = func.checks();
        let (stages, times) = match &run {
            Ok(o) => (o.stages.clone(), o.times.clone()),
            Err(_) => (Vec::new(), Vec::new()),
        };
        functions.push(FunctionRun {
            function: func.name.clone(),
            end: match &run {
                Ok(o) => run_end(o.outcome),
                Err(what) => RunEnd::InternalError(what.clone()),
            },
            elapsed,
            peak_heap_bytes,
            stages,
            checks: times,
        });
        match run {
            Ok(FunctionOutcome {
                verdicts,
                invariants,
                at_cut_points,
                refinement,
                ..
            }) => {
                cut_invariants.extend(at_cut_points);
                refinement_stats.extend(refinement);
                for (check, verdict) in checks.iter().zip(verdicts) {
                    results.push(result(module, *check, verdict));
                }
                loop_invariants.extend(invariants);
            }
            Err(what) => {
                for check in &checks {
                    results.push(result(
                        module,
                        *check,
                        Verdict::Unknown(UnknownReason::InternalError(what.clone())),
                    ));
                }
            }
        }
    }
    // Checks whose error site the front end's CFG simplification removed: LLVM proved them
    // unreachable (contradictory guards), under the same no-undefined-behaviour assumption.
    // Not in a function whose lifted form is unsound, though.
    for check in &module.checks {
        if !results.iter().any(|r| r.check == check.id) {
            let verdict = match unanalyzable(module, &check.function) {
                Some(reason) => Verdict::Unknown(reason),
                None => Verdict::Proved,
            };
            results.push(result(module, check.id, verdict));
        }
    }
    for r in &mut results {
        explain_may_call_error(module, r);
    }
    crate::check::sort_in_source_order(&mut results);
    AnalysisReport {
        results,
        loop_invariants,
        cut_invariants,
        refinement: refinement_stats,
        functions,
    }
}

/// Why the assertions of `function` are not decided, when its lifted form does not have the
/// semantics of the source (issue 12).
fn unanalyzable(module: &Module, function: &str) -> Option<UnknownReason> {
    module
        .unanalyzable
        .iter()
        .find(|u| u.function == function)
        .map(|u| UnknownReason::Unsupported(u.reason.clone()))
}

/// The outcome of a function that is not analyzed: every assertion unknown, for `reason`;
/// no stage ran.
fn not_analyzed(checks: &[crate::ir::CheckId], reason: UnknownReason) -> FunctionOutcome {
    FunctionOutcome {
        verdicts: vec![Verdict::Unknown(reason); checks.len()],
        invariants: vec![],
        at_cut_points: None,
        refinement: None,
        outcome: Outcome::Complete,
        stages: vec![],
        times: checks
            .iter()
            .map(|check| CheckRun {
                check: *check,
                analysis: Duration::ZERO,
                refinement: Duration::ZERO,
                search: Duration::ZERO,
                search_note: None,
                unconfirmed: false,
            })
            .collect(),
        causes: vec![None; checks.len()],
    }
}

/// An error site at a call that may call an escaped error function is not a program bug
/// the invariants missed: say what it stands for when it stays unknown.
fn explain_may_call_error(module: &Module, r: &mut CheckResult) {
    if let (
        crate::ir::CheckKind::MayCallError { function },
        Verdict::Unknown(
            UnknownReason::Imprecise
            | UnknownReason::ImpreciseAt { .. }
            | UnknownReason::Unmodeled { .. },
        ),
    ) = (&module.check(r.check).kind, &r.verdict)
    {
        r.verdict = Verdict::Unknown(UnknownReason::Unsupported(format!(
            "the call may call `{function}`, whose address escapes; indirect calls and code that is not analyzed are not followed"
        )));
    }
}

fn run_end(outcome: Outcome) -> RunEnd {
    match outcome {
        Outcome::Complete => RunEnd::Finished,
        Outcome::Timeout => RunEnd::Timeout,
        Outcome::Budget => RunEnd::Budget("analysis"),
        Outcome::Memory => RunEnd::Budget("memory"),
    }
}

fn result(module: &Module, check: crate::ir::CheckId, verdict: Verdict) -> CheckResult {
    let c = module.check(check);
    CheckResult {
        check,
        loc: c.loc.clone(),
        function: c.function.clone(),
        verdict,
    }
}

struct FunctionOutcome {
    /// In the order of `Function::checks`.
    verdicts: Vec<Verdict>,
    invariants: Vec<LoopInvariant>,
    at_cut_points: Option<CutInvariants>,
    refinement: Option<RefinementStats>,
    outcome: Outcome,
    /// The stages that ran, in order.
    stages: Vec<StageRun>,
    /// In the order of `Function::checks`.
    times: Vec<CheckRun>,
    /// In the order of `Function::checks`: for an assertion that ends `Imprecise`, the
    /// first cause that blocks it.
    causes: Vec<Option<UnknownReason>>,
}

/// Verdicts in, verdicts out: a counterexample search run between the first analysis and
/// refinement; it adds its time to the assertions it searched.
type QuickSearch<'a> = dyn FnMut(&mut [Verdict], &mut [CheckRun]) -> Option<StageRun> + 'a;

fn analyze_function(
    func: &Function,
    config: &AnalysisConfig,
    quick_search: &mut QuickSearch<'_>,
) -> FunctionOutcome {
    use crate::domain::predicates::{Partitioned, Product};
    use crate::domain::Polyhedron;
    // The second domain is the one refinement runs in: predicates need a domain that
    // keeps one numeric state per valuation of the booleans.
    match config.domain {
        DomainKind::Interval => {
            analyze_in::<IntervalDomain, Partitioned<IntervalDomain>>(func, config, quick_search)
        }
        DomainKind::Poly => {
            analyze_in::<Polyhedron, Partitioned<Polyhedron>>(func, config, quick_search)
        }
        DomainKind::PolyPred => analyze_in::<Partitioned<Polyhedron>, Partitioned<Polyhedron>>(
            func,
            config,
            quick_search,
        ),
        DomainKind::PolyPredProduct => {
            analyze_in::<Product<Polyhedron>, Partitioned<Polyhedron>>(func, config, quick_search)
        }
        DomainKind::IntervalPred => analyze_in::<
            Partitioned<IntervalDomain>,
            Partitioned<IntervalDomain>,
        >(func, config, quick_search),
        DomainKind::IntervalPredProduct => analyze_in::<
            Product<IntervalDomain>,
            Partitioned<IntervalDomain>,
        >(func, config, quick_search),
    }
}

/// One complete or stopped run of an engine, in the terms the driver needs.
struct Run<D> {
    invariants: Invariants<D>,
    outcome: Outcome,
    /// Per cut point, the invariant as a disjunction over values (`None`: unreachable).
    at_cut_points: Vec<Option<Vec<Vec<crate::domain::LinCons>>>>,
}

fn run_engine<D: NumericDomain>(
    lowering: &Lowering<'_>,
    graph: &ReducedGraph,
    live_in: &[std::collections::BTreeSet<crate::ir::ValueId>],
    engine: Engine,
    preds: &SlotAssignment,
    deadline: &Deadline,
) -> Run<D> {
    match engine {
        Engine::Focus => {
            use crate::analysis::focus::{analyze_with_predicates, BlockLevel};
            let r =
                analyze_with_predicates(lowering, graph, preds, BlockLevel::CutPoints, deadline);
            Run {
                invariants: r.invariants,
                outcome: r.outcome,
                at_cut_points: r.at_cut_points,
            }
        }
        Engine::Classic => {
            let (invariants, outcome): (Invariants<D>, Outcome) =
                classic::analyze(lowering, graph, deadline);
            let func = lowering.func();
            let at_cut_points = graph
                .cut_points
                .iter()
                .map(|cp| {
                    invariants.at(cp.block).map(|d| {
                        // Only the values live at the cut point describe its state; the
                        // others are stale copies from earlier iterations.
                        let live = &live_in[cp.block.index()];
                        let dead: Vec<crate::domain::Var> = (0..lowering.space().dim() as u32)
                            .filter(|i| {
                                (*i as usize) >= func.values.len()
                                    || !live.contains(&crate::ir::ValueId(*i))
                            })
                            .map(crate::domain::Var)
                            .collect();
                        let mut d = d.clone();
                        d.forget(&dead);
                        d.to_disjunction()
                    })
                })
                .collect();
            Run {
                invariants,
                outcome,
                at_cut_points,
            }
        }
    }
}

/// What predicate refinement did in one function (issue 7).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RefinementStats {
    /// The function.
    pub function: String,
    /// Analyses re-run with predicates.
    pub rounds: usize,
    /// Predicates at the end, summed over cut points.
    pub predicates: usize,
    /// Cut points with at least one predicate.
    pub cut_points_with_predicates: usize,
    /// Boolean dimensions (BDD variables) the predicates took, with register sharing.
    pub bdd_vars: usize,
    /// The same without sharing (one per distinct predicate).
    pub bdd_vars_unshared: usize,
    /// Abstract error paths examined.
    pub error_paths: usize,
    /// Assertions proved only after refinement.
    pub proved: usize,
    /// Time spent refining (discovery and re-analyses), in milliseconds.
    pub millis: u128,
}

/// Analyses re-run with more predicates, at most.
const MAX_REFINEMENT_ROUNDS: usize = 4;
/// Share of a function's budget that refinement may use (the rest is left to the
/// counterexample search).
const REFINEMENT_SHARE: f64 = 0.5;

fn analyze_in<D: NumericDomain, P: NumericDomain>(
    func: &Function,
    config: &AnalysisConfig,
    quick_search: &mut QuickSearch<'_>,
) -> FunctionOutcome {
    let started = std::time::Instant::now();
    crate::progress::stage(|| Stage::Analysis.name().into());
    let lowering = Lowering::new(func);
    let graph = ReducedGraph::new(func);
    let live_in = crate::analysis::focus::liveness(&lowering);
    let deadline = Deadline::after(config.timeout).with_memory(
        crate::budget::MemoryBudget::from_now(config.memory_per_function),
    );
    let mut first: Run<D> = run_engine(
        &lowering,
        &graph,
        &live_in,
        config.engine,
        &SlotAssignment::default(),
        &deadline,
    );
    first.outcome = deadline.blame(first.outcome);
    let analysis_time = started.elapsed();
    let mut stages = vec![StageRun {
        stage: Stage::Analysis,
        elapsed: analysis_time,
        end: match first.outcome {
            Outcome::Complete => StageEnd::Finished,
            Outcome::Timeout => StageEnd::Timeout,
            Outcome::Budget => StageEnd::Budget("analysis"),
            Outcome::Memory => StageEnd::Budget("memory"),
        },
        detail: None,
    }];
    let mut times: Vec<CheckRun> = func
        .checks()
        .into_iter()
        .map(|check| CheckRun {
            check,
            analysis: analysis_time,
            refinement: Duration::ZERO,
            search: Duration::ZERO,
            search_note: None,
            unconfirmed: false,
        })
        .collect();
    let error_blocks: Vec<crate::ir::BlockId> = func
        .blocks
        .iter()
        .enumerate()
        .filter_map(|(i, b)| match b.term {
            Terminator::Error(_) => Some(crate::ir::BlockId(i as u32)),
            _ => None,
        })
        .collect();
    let mut verdicts: Vec<Verdict> = error_blocks
        .iter()
        .map(|b| match first.outcome {
            Outcome::Complete if first.invariants.at(*b).is_none() => Verdict::Proved,
            Outcome::Complete => Verdict::Unknown(UnknownReason::Imprecise),
            Outcome::Timeout => Verdict::Unknown(UnknownReason::Timeout),
            Outcome::Budget => Verdict::Unknown(UnknownReason::Budget("analysis".into())),
            Outcome::Memory => Verdict::Unknown(UnknownReason::Budget("memory".into())),
        })
        .collect();
    let mut at_cut_points = first.at_cut_points.clone();
    let mut loop_invariants = loop_invariants_of(&lowering, &graph, &live_in, &first);
    let mut refinement = None;
    let unknown = |v: &[Verdict]| {
        v.iter()
            .any(|v| *v == Verdict::Unknown(UnknownReason::Imprecise))
    };
    let refine = config.refine && config.engine == Engine::Focus;
    if refine && first.outcome == Outcome::Complete && unknown(&verdicts) {
        stages.extend(quick_search(&mut verdicts, &mut times));
    }
    if refine && first.outcome == Outcome::Complete && unknown(&verdicts) {
        let budget = config.timeout.mul_f64(REFINEMENT_SHARE);
        let refine_deadline = Deadline::after(budget.saturating_sub(started.elapsed()))
            .with_memory(crate::budget::MemoryBudget::from_now(
                config.memory_per_function,
            ));
        let mut stats = RefinementStats {
            function: func.name.clone(),
            ..RefinementStats::default()
        };
        let refining = std::time::Instant::now();
        let mut preds = LocalPredicates::none(graph.cut_points.len());
        let mut end = StageEnd::Finished;
        let mut detail = format!("stopped after {MAX_REFINEMENT_ROUNDS} rounds");
        while stats.rounds < MAX_REFINEMENT_ROUNDS {
            if refine_deadline.expired() {
                end = StageEnd::Timeout;
                detail = format!(
                    "its share of the budget ran out in round {}",
                    stats.rounds + 1
                );
                break;
            }
            let round_start = std::time::Instant::now();
            crate::progress::stage(|| format!("refinement round {}", stats.rounds + 1));
            let open: Vec<bool> = verdicts
                .iter()
                .map(|v| *v == Verdict::Unknown(UnknownReason::Imprecise))
                .collect();
            let errors: Vec<crate::graph::CutPointId> = error_blocks
                .iter()
                .zip(&open)
                .filter(|(_, open)| **open)
                .filter_map(|(b, _)| graph.cut_of_block(*b))
                .collect();
            if errors.is_empty() {
                detail = "no assertion left open".into();
                break;
            }
            let found = crate::analysis::refine::discover::<crate::domain::Polyhedron>(
                &lowering,
                &graph,
                &at_cut_points,
                &errors,
                &live_in,
                &mut preds,
                &refine_deadline,
            );
            stats.error_paths += found.paths;
            let charge = |times: &mut [CheckRun]| {
                for (t, open) in times.iter_mut().zip(&open) {
                    if *open {
                        t.refinement += round_start.elapsed();
                    }
                }
            };
            if found.added == 0 {
                charge(&mut times);
                detail = format!("round {} found no new predicate", stats.rounds + 1);
                break;
            }
            stats.rounds += 1;
            let slots = preds.assign_slots();
            let refined_lowering = Lowering::with_predicate_slots(func, slots.slots);
            let run: Run<P> = run_engine(
                &refined_lowering,
                &graph,
                &live_in,
                config.engine,
                &slots,
                &refine_deadline,
            );
            charge(&mut times);
            if run.outcome != Outcome::Complete {
                end = match refine_deadline.blame(run.outcome) {
                    Outcome::Timeout => StageEnd::Timeout,
                    Outcome::Memory => StageEnd::Budget("memory"),
                    _ => StageEnd::Budget("analysis"),
                };
                detail = format!("round {} did not reach a fixpoint", stats.rounds);
                break;
            }
            stats.predicates = preds.count();
            stats.cut_points_with_predicates =
                graph.ids().filter(|c| !preds.at(*c).is_empty()).count();
            stats.bdd_vars = slots.slots;
            stats.bdd_vars_unshared = slots.unshared;
            for (b, v) in error_blocks.iter().zip(verdicts.iter_mut()) {
                if *v == Verdict::Unknown(UnknownReason::Imprecise)
                    && run.invariants.at(*b).is_none()
                {
                    *v = Verdict::Proved;
                    stats.proved += 1;
                }
            }
            at_cut_points = run.at_cut_points.clone();
            loop_invariants = loop_invariants_of(&refined_lowering, &graph, &live_in, &run);
        }
        stats.millis = refining.elapsed().as_millis();
        stages.push(StageRun {
            stage: Stage::Refinement,
            elapsed: refining.elapsed(),
            end,
            detail: Some(detail),
        });
        refinement = Some(stats);
    }
    let causes = error_blocks
        .iter()
        .zip(&verdicts)
        .map(|(b, v)| {
            (*v == Verdict::Unknown(UnknownReason::Imprecise))
                .then(|| cause_of(func, &graph, &loop_invariants, *b))
                .flatten()
        })
        .collect();
    let at_cut_points = (first.outcome == Outcome::Complete).then(|| CutInvariants {
        function: func.name.clone(),
        at_cut_point: at_cut_points,
    });
    FunctionOutcome {
        verdicts,
        invariants: loop_invariants,
        at_cut_points,
        refinement,
        outcome: first.outcome,
        stages,
        times,
        causes,
    }
}

/// The first cause that blocks an assertion left imprecise: a value the analysis does not
/// model, else the loop whose invariant does not exclude the error site.
fn cause_of(
    func: &Function,
    graph: &ReducedGraph,
    loop_invariants: &[LoopInvariant],
    error: crate::ir::BlockId,
) -> Option<UnknownReason> {
    if let Some(u) = cause::unmodeled_dependency(func, error) {
        return Some(UnknownReason::Unmodeled {
            what: u.what,
            loc: u.loc,
        });
    }
    let head = cause::imprecise_loop_head(graph, error)?;
    let name = &func.block(head).name;
    let inv = loop_invariants.iter().find(|i| i.block == *name)?;
    // A reason is one line: a long invariant (many disjuncts) is cut; the whole one is in
    // the invariants of the report.
    const MAX_CHARS: usize = 240;
    let invariant = if inv.text.chars().count() > MAX_CHARS {
        let cut: String = inv.text.chars().take(MAX_CHARS).collect();
        format!("{cut} ...")
    } else {
        inv.text.clone()
    };
    Some(UnknownReason::ImpreciseAt {
        loc: inv.loc.clone(),
        invariant,
    })
}

/// The invariants at loop heads of a complete run, over source variables.
fn loop_invariants_of<D: NumericDomain>(
    lowering: &Lowering<'_>,
    graph: &ReducedGraph,
    live_in: &[std::collections::BTreeSet<crate::ir::ValueId>],
    run: &Run<D>,
) -> Vec<LoopInvariant> {
    let func = lowering.func();
    let mut loop_invariants = Vec::new();
    if run.outcome != Outcome::Complete {
        return loop_invariants;
    }
    for id in graph.ids() {
        let cp = graph.cut_point(id);
        if cp.kind != CutKind::LoopHead {
            continue;
        }
        let text = match run.at_cut_points.get(id.index()) {
            Some(None) | None if run.invariants.at(cp.block).is_none() => "false".to_string(),
            // Each disjunct on its own (predicates, issue 7): forgetting the predicate
            // slots would print their convex hull.
            Some(Some(disjuncts)) if disjuncts.len() > 1 => {
                let mut texts: Vec<String> = disjuncts
                    .iter()
                    .map(|d| {
                        let mut part = D::top(lowering.space());
                        part.meet_cons(d);
                        let t = format_state(
                            &project_to_source(lowering, &live_in[cp.block.index()], &part),
                            lowering.space(),
                        );
                        format!("({t})")
                    })
                    .collect();
                texts.sort();
                texts.dedup();
                texts.join(" || ")
            }
            _ => match run.invariants.at(cp.block) {
                None => "false".to_string(),
                Some(d) => format_state(
                    &project_to_source(lowering, &live_in[cp.block.index()], d),
                    lowering.space(),
                ),
            },
        };
        let block = func.block(cp.block);
        let loc = block
            .locs
            .iter()
            .flatten()
            .next()
            .cloned()
            .or_else(|| block.term_loc.clone());
        loop_invariants.push(LoopInvariant {
            function: func.name.clone(),
            block: block.name.clone(),
            loc,
            text,
        });
    }
    loop_invariants
}

/// Keeps only the dimensions a person can read at a loop head: the values with a source
/// name that are live there (the phi nodes of the head and the named values defined
/// before it that the loop uses).
fn project_to_source<D: NumericDomain>(
    lowering: &Lowering<'_>,
    live: &std::collections::BTreeSet<crate::ir::ValueId>,
    d: &D,
) -> D {
    let func = lowering.func();
    let forget: Vec<_> = (0..lowering.space().dim() as u32)
        .filter(|i| {
            let v = crate::ir::ValueId(*i);
            (*i as usize) >= func.values.len()
                || !(live.contains(&v) && func.value(v).source_name.is_some())
        })
        .map(crate::domain::Var)
        .collect();
    let mut res = d.clone();
    res.forget(&forget);
    res
}
