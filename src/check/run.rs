//! What a run of the analysis produced, as data: the verdicts of every assertion and how the
//! analysis of each function went (stages, times, budgets, invariants for people).
//!
//! The driver fills these records; `report` prints them. Neither the records nor `report`
//! name anything of the driver, so the printer depends on data only.

use super::{CheckResult, FunctionNames};
use crate::analysis::certify::CutInvariants;
use crate::ir::{CheckId, SourceLoc};
use std::fmt;
use std::time::Duration;

/// A resource budget other than time that can stop an analysis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BudgetKind {
    /// The heap budget of the function (see [`crate::budget`]).
    Memory,
    /// The analysis's own limits: solver queries, or a query the solver gave up on.
    Analysis,
    /// The front end's limits: the function is too large to optimize and lift (see
    /// `frontend::FrontendConfig::lift_limit`), so it is not analyzed.
    FrontEnd,
}

impl fmt::Display for BudgetKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BudgetKind::Memory => "memory",
            BudgetKind::Analysis => "analysis",
            BudgetKind::FrontEnd => "front end",
        })
    }
}

/// Everything the analysis found.
#[derive(Clone, Debug, Default)]
pub struct AnalysisReport {
    /// One result per check and context (an inlined copy, an entry), in source order.
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
    /// The readable names of the program's functions.
    pub names: FunctionNames,
    /// How many functions the cache of results gave and how many were analyzed.
    pub cache: CacheUse,
    /// Whether the leak checks cover the whole program (the module's, see
    /// [`crate::ir::LeakCoverage`]).
    pub leaks: crate::ir::LeakCoverage,
    /// The part of the run's plan its second pass's budgets took (zero without a plan):
    /// a run of several programs passes the rest on to the programs after it.
    pub planned: std::time::Duration,
    /// Where each check's [`CheckRun`] is, built when first asked for: the reports look
    /// one up per result, and a search per lookup would make writing a large project's
    /// report take minutes.
    pub run_index: RunIndex,
}

/// The place of each check's [`CheckRun`] in [`AnalysisReport::functions`].
#[derive(Clone, Debug, Default)]
pub struct RunIndex(
    std::sync::OnceLock<(usize, std::collections::HashMap<CheckId, (usize, usize)>)>,
);

impl AnalysisReport {
    /// The times the stages spent on `check`, if a function's run has them.
    pub fn check_run(&self, check: CheckId) -> Option<&CheckRun> {
        let (n_functions, index) = self.run_index.0.get_or_init(|| {
            let mut index = std::collections::HashMap::new();
            for (f, run) in self.functions.iter().enumerate() {
                for (c, r) in run.checks.iter().enumerate() {
                    index.entry(r.check).or_insert((f, c));
                }
            }
            (self.functions.len(), index)
        });
        // The index is only valid for the runs it was built from: checked, never trusted.
        let fresh = *n_functions == self.functions.len();
        let found = index
            .get(&check)
            .and_then(|&(f, c)| self.functions.get(f)?.checks.get(c));
        match found {
            Some(r) if fresh && r.check == check => Some(r),
            None if fresh => None,
            _ => self
                .functions
                .iter()
                .flat_map(|f| &f.checks)
                .find(|c| c.check == check),
        }
    }
}

/// What the cache of per-function results did in a run (all zero without a cache).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheUse {
    /// Functions whose results came from the cache: not analyzed.
    pub from_cache: usize,
    /// Functions analyzed, their results not in the cache.
    pub analyzed: usize,
    /// Of those, the functions whose results were stored (not those stopped by time).
    pub stored: usize,
}

impl std::ops::AddAssign for CacheUse {
    fn add_assign(&mut self, other: CacheUse) {
        self.from_cache += other.from_cache;
        self.analyzed += other.analyzed;
        self.stored += other.stored;
    }
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

/// How the analysis of one function ended, with what it cost.
#[derive(Clone, Debug)]
pub struct FunctionRun {
    /// The function.
    pub function: String,
    /// Finished, or the budget it ran out of.
    pub end: RunEnd,
    /// Wall time, counterexample search included.
    pub elapsed: Duration,
    /// CPU time of the thread that analyzed it and of the native builds and runs it
    /// waited for ([`crate::clock`]): what its budget counts.
    pub cpu: Duration,
    /// The time budget the function was given: `--timeout`, or less, its share of what was
    /// left of the run's budget when it started; with, when preconditions of its open
    /// checks are inferred, their reserve (`precondition_share` of it).
    pub budget: Duration,
    /// The heap budget the function was given, in bytes.
    pub memory_budget: usize,
    /// The most heap the analysis held at once, in bytes (see [`crate::budget`]).
    pub peak_heap_bytes: usize,
    /// The stages that ran, in order, with how each ended.
    pub stages: Vec<StageRun>,
    /// Per assertion of the function (in check order), the time each stage spent on it.
    pub checks: Vec<CheckRun>,
    /// How its values were classified (domain types), when the engine ran with them.
    pub domain_types: Option<DomainTypeStats>,
}

impl FunctionRun {
    /// The budget that stopped its analysis, in the user's terms; `None` when it finished
    /// or an internal error stopped it.
    pub fn budget_stop(&self) -> Option<super::BudgetStop> {
        use super::BudgetLimit;
        let limit = match &self.end {
            RunEnd::Finished | RunEnd::InternalError(_) => return None,
            RunEnd::Timeout if self.budget.is_zero() => BudgetLimit::RunSpent,
            RunEnd::Timeout => BudgetLimit::Time(self.budget),
            RunEnd::Budget(BudgetKind::Memory) => BudgetLimit::Memory(self.memory_budget),
            RunEnd::Budget(BudgetKind::Analysis) => BudgetLimit::SolverWork,
            RunEnd::Budget(BudgetKind::FrontEnd) => BudgetLimit::FrontEnd(
                "it is larger than the front end's budget (-Z lift-limit)".into(),
            ),
        };
        Some(super::BudgetStop {
            function: self.function.clone(),
            limit,
        })
    }
}

/// How the values of one function were classified by their use (domain types)
/// and how many path focusing tracked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DomainTypeStats {
    /// Values per class, and the relational packs.
    pub counts: crate::context::domain_types::DomainTypeCounts,
    /// Values in the cone of influence of the assertions open when the engine started.
    pub relevant: usize,
    /// Values the engine tracked at cut points (the relational packs that meet that cone).
    pub tracked: usize,
}

/// A stage of the analysis of one function, as reported: where the time goes, named after
/// what ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The classic engine over intervals, run first: it settles the assertions it proves
    /// and gives its invariants to the later stages as facts.
    IntervalAnalysis,
    /// The engine over the chosen domain.
    Analysis,
    /// Polynomial equalities at loop heads (before the engine, algebraically, for a
    /// function that multiplies values; after it, with the solver).
    PolynomialEqualities,
    /// The engine's invariants with the congruences of the values.
    Congruences,
    /// Extrapolation with care sets.
    CareSet,
    /// Predicate refinement rounds.
    Refinement,
    /// Relational congruences (affine lattices of the live values) at cut points.
    RelationalCongruences,
    /// Bounds of linear templates at cut points, next to the relational congruences.
    TemplateBounds,
    /// The counterexample search (the short one and the full one).
    CounterexampleSearch,
}

impl Stage {
    /// The stage's name in reports and on the progress line.
    pub fn name(self) -> &'static str {
        match self {
            Stage::IntervalAnalysis => "interval analysis",
            Stage::Analysis => "analysis",
            Stage::PolynomialEqualities => "polynomial equalities",
            Stage::Congruences => "congruences",
            Stage::CareSet => "care sets",
            Stage::Refinement => "refinement",
            Stage::RelationalCongruences => "relational congruences",
            Stage::TemplateBounds => "template bounds",
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
    /// A resource budget ran out.
    Budget(BudgetKind),
    /// The stage panicked (a bug); the verdicts it would have given stay unknown.
    InternalError,
}

impl fmt::Display for StageEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StageEnd::Finished => f.write_str("finished"),
            StageEnd::Timeout => f.write_str("timeout"),
            StageEnd::Budget(what) => write!(f, "budget: {what}"),
            // Reported as it was when the end was a string (`Budget("internal error")`), so
            // that reports keep their form.
            StageEnd::InternalError => f.write_str("budget: internal error"),
        }
    }
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
    pub check: CheckId,
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

impl CheckRun {
    /// An assertion no stage has spent time on yet.
    pub fn new(check: CheckId) -> CheckRun {
        CheckRun {
            check,
            analysis: Duration::ZERO,
            refinement: Duration::ZERO,
            search: Duration::ZERO,
            search_note: None,
            unconfirmed: false,
        }
    }
}

/// How the analysis of a function ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunEnd {
    /// The fixpoint was reached: its invariants decided the verdicts.
    Finished,
    /// The time budget ran out.
    Timeout,
    /// A resource budget ran out.
    Budget(BudgetKind),
    /// The analysis panicked (a bug).
    InternalError(String),
}

impl fmt::Display for RunEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunEnd::Finished => f.write_str("finished"),
            RunEnd::Timeout => f.write_str("timeout"),
            RunEnd::Budget(what) => write!(f, "budget: {what}"),
            RunEnd::InternalError(what) => write!(f, "internal error: {what}"),
        }
    }
}

/// What predicate refinement did in one function.
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
