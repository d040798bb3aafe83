//! Verdicts: what the analysis concluded about each assertion, and why.
//!
//! **Architecture Invariant:** a verdict `Proved` is given only when the error site's
//! invariant is empty under the sound semantics of the lifted program; `Violated` only with
//! a counterexample that was replayed and confirmed. Everything else is `Unknown` with a
//! reason.

use crate::ir::{CheckId, CheckKind, SourceLoc};
use std::fmt;

mod merge;
mod names;
mod run;

pub use merge::{merge_contexts, ContextCounts, MergedCheck};
pub use names::{source_name, FunctionNames};
pub use run::{
    AnalysisReport, BudgetKind, CacheUse, CheckRun, DomainTypeStats, FunctionRun, LoopInvariant,
    RefinementStats, RunEnd, Stage, StageEnd, StageRun,
};

/// Why an assertion is neither proved nor refuted.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum UnknownReason {
    /// A budget stopped the analysis of the function (or the front end left it out for its
    /// size): which function, and which budget.
    Stopped(BudgetStop),
    /// The abstraction was too coarse to prove it, and no counterexample was found.
    Imprecise,
    /// The invariant of a loop from which a loop-free path leads to the error site does not
    /// exclude it, and no counterexample was found.
    ImpreciseAt {
        /// Where the loop is.
        loc: Option<SourceLoc>,
        /// The invariant at its head, over source names.
        invariant: String,
    },
    /// Reaching the error site depends on a value the analysis does not model (a load from
    /// memory, a call without a body, an uninitialized variable).
    Unmodeled {
        /// What the value is.
        what: String,
        /// Where it is read.
        loc: Option<SourceLoc>,
    },
    /// Something the analysis does not model decided the outcome.
    Unsupported(String),
    /// An internal error (a bug): the analysis of the function was abandoned.
    InternalError(String),
}

impl fmt::Display for UnknownReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnknownReason::Stopped(stop) => write!(f, "{}: {stop}", stop.limit.class()),
            UnknownReason::Imprecise => write!(
                f,
                "imprecise: the invariant does not exclude the error site"
            ),
            UnknownReason::ImpreciseAt { loc, invariant } => {
                let at = loc
                    .as_ref()
                    .map_or_else(String::new, |l| format!(" at {l}"));
                write!(
                    f,
                    "imprecise: the invariant of the loop{at} does not exclude the error site: {invariant}"
                )
            }
            UnknownReason::Unmodeled { what, loc } => {
                let at = loc
                    .as_ref()
                    .map_or_else(String::new, |l| format!(" at {l}"));
                write!(f, "unsupported: the error site depends on {what}{at}")
            }
            UnknownReason::Unsupported(what) => write!(f, "unsupported: {what}"),
            UnknownReason::InternalError(what) => write!(f, "internal error: {what}"),
        }
    }
}

impl UnknownReason {
    /// A one-word class for tables: timeout, budget, imprecise, unsupported, crash.
    pub fn class(&self) -> &'static str {
        match self {
            UnknownReason::Stopped(stop) => stop.limit.class(),
            UnknownReason::Imprecise | UnknownReason::ImpreciseAt { .. } => "imprecise",
            UnknownReason::Unsupported(_) | UnknownReason::Unmodeled { .. } => "unsupported",
            UnknownReason::InternalError(_) => "crash",
        }
    }
}

/// The budget that stopped the analysis of a function, in the user's terms: which function,
/// which budget and how large, never the tools run inside. Displayed without its class
/// (`analysis of `f` did not finish within its time budget of 10 s (CPU time)`); the reason of a
/// verdict puts the class first (`timeout: ...`, `budget: ...`).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct BudgetStop {
    /// The function (its source name).
    pub function: String,
    /// The budget it reached.
    pub limit: BudgetLimit,
}

/// A budget of the analysis of one function.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum BudgetLimit {
    /// Its time budget (`--timeout`, or its share of `--run-budget`), which it did not
    /// finish within.
    Time(std::time::Duration),
    /// The run's time budget (`--run-budget`) did not reach it: its plan gave the function
    /// no budget, or the run's safety stop passed before its analysis started.
    RunSpent,
    /// Its heap budget, in bytes (`--memory-per-function`).
    Memory(usize),
    /// Its budget of solver work: a solver query, or the queries of a stage, reached their
    /// limit of work (counted in the solver's own steps, not in time).
    SolverWork,
    /// The front end left it out for its size: why, with the size and the limit.
    FrontEnd(String),
}

impl BudgetLimit {
    /// The one-word class of [`UnknownReason::class`]: `timeout` for time, else `budget`.
    pub fn class(&self) -> &'static str {
        match self {
            BudgetLimit::Time(_) | BudgetLimit::RunSpent => "timeout",
            BudgetLimit::Memory(_) | BudgetLimit::SolverWork | BudgetLimit::FrontEnd(_) => "budget",
        }
    }
}

impl fmt::Display for BudgetStop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let function = &self.function;
        match &self.limit {
            BudgetLimit::Time(budget) => write!(
                f,
                "analysis of `{function}` did not finish within its time budget of {} (CPU time)",
                seconds(*budget)
            ),
            BudgetLimit::RunSpent => write!(
                f,
                "analysis of `{function}` did not start: the run's time budget (--run-budget) \
                 does not reach it"
            ),
            BudgetLimit::Memory(bytes) => write!(
                f,
                "analysis of `{function}` stopped at its memory budget of {} MB",
                bytes.div_ceil(1 << 20)
            ),
            BudgetLimit::SolverWork => write!(
                f,
                "analysis of `{function}` stopped at its budget of solver work (a query or a \
                 stage reached its limit)"
            ),
            BudgetLimit::FrontEnd(why) => write!(f, "`{function}` is not analyzed: {why}"),
        }
    }
}

/// A duration for people: `10 s`, `2.5 s`, `0.25 s`, `0.004 s`.
fn seconds(d: std::time::Duration) -> String {
    let s = d.as_secs_f64();
    let text = if s >= 10.0 {
        format!("{s:.0}")
    } else if s >= 0.1 {
        format!("{s:.2}")
    } else if s >= 0.001 {
        format!("{s:.3}")
    } else {
        return "less than 1 ms".into();
    };
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        &text
    };
    format!("{text} s")
}

/// One step of a counterexample trace.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct TraceStep {
    /// Where.
    pub loc: Option<SourceLoc>,
    /// Values of source variables at this point, `(name, value)`.
    pub values: Vec<(String, i128)>,
}

/// A nondeterministic input of a counterexample, in call order.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct NondetValue {
    /// The function that produced it (`__VERIFIER_nondet_int`, `scanf`), or for an entry
    /// argument its parameter's source name (`argc`; `<arg n>` without debug info).
    pub function: String,
    /// Its width in bits.
    pub width: u32,
    /// Its value (signed reading).
    pub value: i128,
    /// Where it was requested (the call), when known.
    pub loc: Option<SourceLoc>,
}

/// A confirmed execution that reaches an error site.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Counterexample {
    /// Entry arguments, in order.
    pub args: Vec<NondetValue>,
    /// Nondet inputs, in the order they are requested.
    pub inputs: Vec<NondetValue>,
    /// The path through the source.
    pub steps: Vec<TraceStep>,
    /// How it was confirmed (e.g. "replayed natively").
    pub confirmed_by: String,
}

/// The outcome for one assertion.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Verdict {
    /// The error site is unreachable.
    Proved,
    /// The error site is reachable; the counterexample was confirmed.
    Violated(Box<Counterexample>),
    /// The error site is unreachable from every invocation of the function whose arguments
    /// satisfy the precondition (a function called from outside, analyzed with arbitrary
    /// arguments).
    HoldsIf(Precondition),
    /// Neither.
    Unknown(UnknownReason),
}

/// A condition on a function's arguments at its entry under which a check holds: a C
/// expression over the parameters' names, certified by an analysis of the function with
/// it assumed at the entry.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Precondition {
    /// The C expression (`n >= 1`, `n <= 4 || m >= 0`).
    pub expr: String,
    /// The same condition over the function's inputs, for its callers to check: each
    /// requirement a clause of the conjunction (`0 <= i && i < n` is two); `None` when a
    /// coefficient does not fit 128 bits.
    pub requirements: Option<Vec<crate::frontend::contract::Requirement>>,
    /// Who enters the function, and so what the precondition asks of them.
    pub callers: Callers,
}

/// Who may enter a function whose check holds under a precondition, and whether its calls
/// were shown to meet it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Callers {
    /// Code outside the analyzed program may call it (it is visible outside its module,
    /// its address is taken, or it is a named entry): the precondition is its contract,
    /// for those callers to keep.
    Outside,
    /// Only the program's own direct calls enter it, and every one meets the precondition
    /// when the functions named, which code outside the program may call, are called
    /// within the preconditions given (theirs, inferred at their calls of the chain).
    Entries(Vec<EntryContract>),
    /// Only the program's own direct calls enter it, and the analysis did not show that
    /// every one of them meets the precondition.
    Program,
}

/// A precondition of a function that code outside the program may call, as a contract
/// other checks rest on.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub struct EntryContract {
    /// The function.
    pub function: String,
    /// The precondition, a C expression over its parameters.
    pub precondition: String,
}

impl Callers {
    /// Who may enter `function` of `module`.
    pub fn of(module: &crate::ir::Module, function: &str) -> Callers {
        if module.called_only_directly.contains(function) {
            Callers::Program
        } else {
            Callers::Outside
        }
    }
}

impl Precondition {
    /// Whether the check holds whenever the functions code outside the program may call
    /// are called within their contracts: it is one of theirs, or every call meets it
    /// under them.
    pub fn is_contract(&self) -> bool {
        self.callers != Callers::Program
    }
}

impl fmt::Display for Precondition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.expr)
    }
}

/// The outcome for one assertion, with where it is.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct CheckResult {
    /// The assertion.
    pub check: CheckId,
    /// What it checks: an assertion, or a runtime error of an operation.
    pub kind: CheckKind,
    /// Its source location.
    pub loc: Option<SourceLoc>,
    /// The function analyzed.
    pub function: String,
    /// The verdict.
    pub verdict: Verdict,
}

/// Puts `results` in source order: by file, line and column, then (several checks of one
/// line: inlined call sites) by function and check id; checks without a location come last.
/// Every report (text, JSON, SARIF) lists results in this order, so it is deterministic and
/// reads like the program.
pub fn sort_in_source_order(results: &mut [CheckResult]) {
    results.sort_by(|a, b| {
        let place = |r: &CheckResult| r.loc.as_ref().map(|l| (l.file.clone(), l.line, l.column));
        (place(a).is_none(), place(a), &a.function, a.check).cmp(&(
            place(b).is_none(),
            place(b),
            &b.function,
            b.check,
        ))
    });
}

/// The overall answer for a program, SV-COMP style.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ProgramVerdict {
    /// No assertion can fail.
    True,
    /// Some assertion fails (confirmed).
    False,
    /// Neither is known.
    Unknown,
}

impl ProgramVerdict {
    /// Combines per-context verdicts: false if any is violated, true if all are proved (a
    /// check that holds only under a precondition is not).
    pub fn of(results: &[CheckResult]) -> ProgramVerdict {
        ProgramVerdict::of_verdicts(results.iter().map(|r| &r.verdict))
    }

    /// Combines the verdicts of merged checks; the same as [`ProgramVerdict::of`] over their
    /// contexts.
    pub fn of_checks<'a>(checks: impl IntoIterator<Item = &'a MergedCheck>) -> ProgramVerdict {
        ProgramVerdict::of_verdicts(checks.into_iter().map(MergedCheck::verdict))
    }

    fn of_verdicts<'a>(verdicts: impl Iterator<Item = &'a Verdict>) -> ProgramVerdict {
        let (mut violated, mut all_proved) = (false, true);
        for v in verdicts {
            violated |= matches!(v, Verdict::Violated(_));
            all_proved &= *v == Verdict::Proved;
        }
        if violated {
            ProgramVerdict::False
        } else if all_proved {
            ProgramVerdict::True
        } else {
            ProgramVerdict::Unknown
        }
    }

    /// `true`, `false` or `unknown`.
    pub fn as_str(self) -> &'static str {
        match self {
            ProgramVerdict::True => "true",
            ProgramVerdict::False => "false",
            ProgramVerdict::Unknown => "unknown",
        }
    }
}
