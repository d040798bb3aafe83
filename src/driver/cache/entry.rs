//! The value of a cache entry: a function's results and the record of its run, as JSON.
//!
//! The types of `check` do not derive `Serialize` (the report has its own records), so the
//! entry has its records too, converted by hand. A check is stored by its index among the
//! function's checks, and its kind, location and function are taken from the module when
//! the entry is read: they are part of the key. Reading validates the format, the key, the
//! function and every index, so an entry that does not fit is refused with the reason,
//! never trusted.

use super::key::{Key, FORMAT};
use crate::check::{
    BudgetKind, BudgetLimit, BudgetStop, CheckResult, CheckRun, Counterexample, DomainTypeStats,
    FunctionRun, LoopInvariant, NondetValue, RefinementStats, RunEnd, Stage, StageEnd, StageRun,
    TraceStep, UnknownReason, Verdict,
};
use crate::ir::{CheckId, Function, Module, SourceLoc};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// What a cache entry gives back: everything the run of one function adds to the report.
#[derive(Clone, Debug)]
pub(crate) struct CachedFunction {
    pub run: FunctionRun,
    /// In the order of `Function::checks`.
    pub results: Vec<CheckResult>,
    pub loop_invariants: Vec<LoopInvariant>,
    pub refinement: Option<RefinementStats>,
    /// The program's digest, when the results hold only for that program (see
    /// [`super::key`]).
    pub program: Option<Key>,
}

/// The bytes of the entry of `cached`, the results of `func` under `key`.
pub(crate) fn encode(key: Key, func: &Function, cached: &CachedFunction) -> Vec<u8> {
    let checks = func.checks();
    let index = |id: CheckId| checks.iter().position(|c| *c == id).unwrap_or(usize::MAX);
    let run = &cached.run;
    let record = EntryRecord {
        format: FORMAT,
        key: key.hex(),
        function: func.name.clone(),
        program: cached.program.map(|p| p.hex()),
        end: end_record(&run.end),
        elapsed_ns: nanos(run.elapsed),
        cpu_ns: nanos(run.cpu),
        budget_ns: nanos(run.budget),
        memory_budget: run.memory_budget,
        peak_heap_bytes: run.peak_heap_bytes,
        stages: run
            .stages
            .iter()
            .map(|s| StageRecord {
                stage: s.stage.name().to_string(),
                elapsed_ns: nanos(s.elapsed),
                end: stage_end_record(&s.end),
                detail: s.detail.clone(),
            })
            .collect(),
        check_times: run
            .checks
            .iter()
            .map(|c| CheckTimeRecord {
                check: index(c.check),
                analysis_ns: nanos(c.analysis),
                refinement_ns: nanos(c.refinement),
                search_ns: nanos(c.search),
                search_note: c.search_note.clone(),
                unconfirmed: c.unconfirmed,
            })
            .collect(),
        domain_types: run.domain_types.map(|d| DomainTypesRecord {
            boolean: d.counts.boolean,
            equality: d.counts.equality,
            interval: d.counts.interval,
            relational: d.counts.relational,
            relational_packs: d.counts.relational_packs,
            largest_pack: d.counts.largest_pack,
            relevant: d.relevant,
            tracked: d.tracked,
        }),
        results: cached
            .results
            .iter()
            .map(|r| ResultRecord {
                check: index(r.check),
                verdict: verdict_record(&r.verdict),
            })
            .collect(),
        loop_invariants: cached
            .loop_invariants
            .iter()
            .map(|i| InvariantRecord {
                block: i.block.clone(),
                loc: i.loc.as_ref().map(loc_record),
                text: i.text.clone(),
            })
            .collect(),
        refinement: cached.refinement.as_ref().map(|r| RefinementRecord {
            rounds: r.rounds,
            predicates: r.predicates,
            cut_points_with_predicates: r.cut_points_with_predicates,
            bdd_vars: r.bdd_vars,
            bdd_vars_unshared: r.bdd_vars_unshared,
            error_paths: r.error_paths,
            proved: r.proved,
            millis: r.millis as u64,
        }),
    };
    serde_json::to_vec(&record).expect("entry records always serialize")
}

/// The entry `bytes` read back for `func` under `key`, or why it cannot be used.
pub(crate) fn decode(
    bytes: &[u8],
    key: Key,
    func: &Function,
    module: &Module,
) -> Result<CachedFunction, String> {
    let record: EntryRecord =
        serde_json::from_slice(bytes).map_err(|e| format!("not an entry: {e}"))?;
    if record.format != FORMAT {
        return Err(format!("format {} instead of {FORMAT}", record.format));
    }
    if record.key != key.hex() || record.function != func.name {
        return Err("the entry is for another function or key".into());
    }
    let checks = func.checks();
    let check = |i: usize| {
        checks
            .get(i)
            .copied()
            .ok_or_else(|| format!("check {i} out of range"))
    };
    if record.results.len() != checks.len() {
        return Err(format!(
            "{} results for {} checks",
            record.results.len(),
            checks.len()
        ));
    }
    let callers = crate::check::Callers::of(module, &func.name);
    let results = record
        .results
        .into_iter()
        .map(|r| {
            let id = check(r.check)?;
            let c = module.check(id);
            Ok(CheckResult {
                check: id,
                kind: c.kind.clone(),
                loc: c.loc.clone(),
                function: c.function.clone(),
                verdict: verdict(r.verdict, callers.clone())?,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let stages = record
        .stages
        .into_iter()
        .map(|s| {
            Ok(StageRun {
                stage: stage(&s.stage)?,
                elapsed: Duration::from_nanos(s.elapsed_ns),
                end: stage_end(s.end),
                detail: s.detail,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let check_times = record
        .check_times
        .into_iter()
        .map(|c| {
            Ok(CheckRun {
                check: check(c.check)?,
                analysis: Duration::from_nanos(c.analysis_ns),
                refinement: Duration::from_nanos(c.refinement_ns),
                search: Duration::from_nanos(c.search_ns),
                search_note: c.search_note,
                unconfirmed: c.unconfirmed,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let program = match record.program {
        None => None,
        Some(hex) => Some(Key::from_hex(&hex).ok_or("a malformed program digest")?),
    };
    let domain_types = record.domain_types.map(|d| {
        let mut stats = DomainTypeStats {
            relevant: d.relevant,
            tracked: d.tracked,
            ..DomainTypeStats::default()
        };
        stats.counts.boolean = d.boolean;
        stats.counts.equality = d.equality;
        stats.counts.interval = d.interval;
        stats.counts.relational = d.relational;
        stats.counts.relational_packs = d.relational_packs;
        stats.counts.largest_pack = d.largest_pack;
        stats
    });
    Ok(CachedFunction {
        run: FunctionRun {
            function: func.name.clone(),
            end: end(record.end),
            elapsed: Duration::from_nanos(record.elapsed_ns),
            cpu: Duration::from_nanos(record.cpu_ns),
            budget: Duration::from_nanos(record.budget_ns),
            memory_budget: record.memory_budget,
            peak_heap_bytes: record.peak_heap_bytes,
            stages,
            checks: check_times,
            domain_types,
        },
        results,
        loop_invariants: record
            .loop_invariants
            .into_iter()
            .map(|i| LoopInvariant {
                function: func.name.clone(),
                block: i.block,
                loc: i.loc.map(loc),
                text: i.text,
            })
            .collect(),
        refinement: record.refinement.map(|r| RefinementStats {
            function: func.name.clone(),
            rounds: r.rounds,
            predicates: r.predicates,
            cut_points_with_predicates: r.cut_points_with_predicates,
            bdd_vars: r.bdd_vars,
            bdd_vars_unshared: r.bdd_vars_unshared,
            error_paths: r.error_paths,
            proved: r.proved,
            millis: r.millis as u128,
        }),
        program,
    })
}

fn nanos(d: Duration) -> u64 {
    d.as_nanos().min(u64::MAX as u128) as u64
}

#[derive(Serialize, Deserialize)]
struct EntryRecord {
    format: u32,
    key: String,
    function: String,
    program: Option<String>,
    end: EndRecord,
    elapsed_ns: u64,
    cpu_ns: u64,
    budget_ns: u64,
    memory_budget: usize,
    peak_heap_bytes: usize,
    stages: Vec<StageRecord>,
    check_times: Vec<CheckTimeRecord>,
    domain_types: Option<DomainTypesRecord>,
    results: Vec<ResultRecord>,
    loop_invariants: Vec<InvariantRecord>,
    refinement: Option<RefinementRecord>,
}

#[derive(Serialize, Deserialize)]
enum EndRecord {
    Finished,
    Timeout,
    Budget(KindRecord),
    InternalError(String),
}

#[derive(Serialize, Deserialize)]
enum KindRecord {
    Memory,
    Analysis,
    FrontEnd,
}

#[derive(Serialize, Deserialize)]
struct StageRecord {
    stage: String,
    elapsed_ns: u64,
    end: StageEndRecord,
    detail: Option<String>,
}

#[derive(Serialize, Deserialize)]
enum StageEndRecord {
    Finished,
    Timeout,
    Budget(KindRecord),
    InternalError,
}

#[derive(Serialize, Deserialize)]
struct CheckTimeRecord {
    check: usize,
    analysis_ns: u64,
    refinement_ns: u64,
    search_ns: u64,
    search_note: Option<String>,
    unconfirmed: bool,
}

#[derive(Serialize, Deserialize)]
struct DomainTypesRecord {
    boolean: usize,
    equality: usize,
    interval: usize,
    relational: usize,
    relational_packs: usize,
    largest_pack: usize,
    relevant: usize,
    tracked: usize,
}

#[derive(Serialize, Deserialize)]
struct ResultRecord {
    check: usize,
    verdict: VerdictRecord,
}

#[derive(Serialize, Deserialize)]
enum VerdictRecord {
    Proved,
    HoldsIf(String, Option<Vec<crate::frontend::contract::Requirement>>),
    Violated(CounterexampleRecord),
    Unknown(ReasonRecord),
}

#[derive(Serialize, Deserialize)]
enum ReasonRecord {
    Stopped {
        function: String,
        limit: LimitRecord,
    },
    Imprecise,
    ImpreciseAt {
        loc: Option<LocRecord>,
        invariant: String,
    },
    Unmodeled {
        what: String,
        loc: Option<LocRecord>,
    },
    Unsupported(String),
    InternalError(String),
}

#[derive(Serialize, Deserialize)]
enum LimitRecord {
    TimeNs(u64),
    RunSpent,
    Memory(usize),
    SolverWork,
    FrontEnd(String),
}

#[derive(Serialize, Deserialize)]
struct LocRecord {
    file: String,
    line: u32,
    column: u32,
}

/// A counterexample; values (128 bits) are decimal strings.
#[derive(Serialize, Deserialize)]
struct CounterexampleRecord {
    args: Vec<NondetRecord>,
    inputs: Vec<NondetRecord>,
    steps: Vec<StepRecord>,
    confirmed_by: String,
}

#[derive(Serialize, Deserialize)]
struct NondetRecord {
    function: String,
    width: u32,
    value: String,
    loc: Option<LocRecord>,
}

#[derive(Serialize, Deserialize)]
struct StepRecord {
    loc: Option<LocRecord>,
    values: Vec<(String, String)>,
}

#[derive(Serialize, Deserialize)]
struct InvariantRecord {
    block: String,
    loc: Option<LocRecord>,
    text: String,
}

#[derive(Serialize, Deserialize)]
struct RefinementRecord {
    rounds: usize,
    predicates: usize,
    cut_points_with_predicates: usize,
    bdd_vars: usize,
    bdd_vars_unshared: usize,
    error_paths: usize,
    proved: usize,
    millis: u64,
}

fn kind_record(kind: BudgetKind) -> KindRecord {
    match kind {
        BudgetKind::Memory => KindRecord::Memory,
        BudgetKind::Analysis => KindRecord::Analysis,
        BudgetKind::FrontEnd => KindRecord::FrontEnd,
    }
}

fn kind(record: KindRecord) -> BudgetKind {
    match record {
        KindRecord::Memory => BudgetKind::Memory,
        KindRecord::Analysis => BudgetKind::Analysis,
        KindRecord::FrontEnd => BudgetKind::FrontEnd,
    }
}

fn end_record(end: &RunEnd) -> EndRecord {
    match end {
        RunEnd::Finished => EndRecord::Finished,
        RunEnd::Timeout => EndRecord::Timeout,
        RunEnd::Budget(k) => EndRecord::Budget(kind_record(*k)),
        RunEnd::InternalError(what) => EndRecord::InternalError(what.clone()),
    }
}

fn end(record: EndRecord) -> RunEnd {
    match record {
        EndRecord::Finished => RunEnd::Finished,
        EndRecord::Timeout => RunEnd::Timeout,
        EndRecord::Budget(k) => RunEnd::Budget(kind(k)),
        EndRecord::InternalError(what) => RunEnd::InternalError(what),
    }
}

fn stage_end_record(end: &StageEnd) -> StageEndRecord {
    match end {
        StageEnd::Finished => StageEndRecord::Finished,
        StageEnd::Timeout => StageEndRecord::Timeout,
        StageEnd::Budget(k) => StageEndRecord::Budget(kind_record(*k)),
        StageEnd::InternalError => StageEndRecord::InternalError,
    }
}

fn stage_end(record: StageEndRecord) -> StageEnd {
    match record {
        StageEndRecord::Finished => StageEnd::Finished,
        StageEndRecord::Timeout => StageEnd::Timeout,
        StageEndRecord::Budget(k) => StageEnd::Budget(kind(k)),
        StageEndRecord::InternalError => StageEnd::InternalError,
    }
}

/// Every stage, to read a stage back from its name.
const STAGES: [Stage; 9] = [
    Stage::IntervalAnalysis,
    Stage::Analysis,
    Stage::PolynomialEqualities,
    Stage::Congruences,
    Stage::CareSet,
    Stage::Refinement,
    Stage::RelationalCongruences,
    Stage::TemplateBounds,
    Stage::CounterexampleSearch,
];

fn stage(name: &str) -> Result<Stage, String> {
    STAGES
        .into_iter()
        .find(|s| s.name() == name)
        .ok_or_else(|| format!("unknown stage `{name}`"))
}

fn loc_record(loc: &SourceLoc) -> LocRecord {
    LocRecord {
        file: loc.file.clone(),
        line: loc.line,
        column: loc.column,
    }
}

fn loc(record: LocRecord) -> SourceLoc {
    SourceLoc {
        file: record.file,
        line: record.line,
        column: record.column,
    }
}

fn nondet_record(v: &NondetValue) -> NondetRecord {
    NondetRecord {
        function: v.function.clone(),
        width: v.width,
        value: v.value.to_string(),
        loc: v.loc.as_ref().map(loc_record),
    }
}

fn nondet(record: NondetRecord) -> Result<NondetValue, String> {
    Ok(NondetValue {
        function: record.function,
        width: record.width,
        value: integer(&record.value)?,
        loc: record.loc.map(loc),
    })
}

fn integer(text: &str) -> Result<i128, String> {
    text.parse()
        .map_err(|_| format!("`{text}` is not an integer"))
}

fn verdict_record(verdict: &Verdict) -> VerdictRecord {
    match verdict {
        Verdict::Proved => VerdictRecord::Proved,
        Verdict::HoldsIf(p) => VerdictRecord::HoldsIf(p.expr.clone(), p.requirements.clone()),
        Verdict::Violated(cex) => VerdictRecord::Violated(CounterexampleRecord {
            args: cex.args.iter().map(nondet_record).collect(),
            inputs: cex.inputs.iter().map(nondet_record).collect(),
            steps: cex
                .steps
                .iter()
                .map(|s| StepRecord {
                    loc: s.loc.as_ref().map(loc_record),
                    values: s
                        .values
                        .iter()
                        .map(|(name, v)| (name.clone(), v.to_string()))
                        .collect(),
                })
                .collect(),
            confirmed_by: cex.confirmed_by.clone(),
        }),
        Verdict::Unknown(reason) => VerdictRecord::Unknown(match reason {
            UnknownReason::Stopped(stop) => ReasonRecord::Stopped {
                function: stop.function.clone(),
                limit: match &stop.limit {
                    BudgetLimit::Time(d) => LimitRecord::TimeNs(nanos(*d)),
                    BudgetLimit::RunSpent => LimitRecord::RunSpent,
                    BudgetLimit::Memory(bytes) => LimitRecord::Memory(*bytes),
                    BudgetLimit::SolverWork => LimitRecord::SolverWork,
                    BudgetLimit::FrontEnd(why) => LimitRecord::FrontEnd(why.clone()),
                },
            },
            UnknownReason::Imprecise => ReasonRecord::Imprecise,
            UnknownReason::ImpreciseAt { loc, invariant } => ReasonRecord::ImpreciseAt {
                loc: loc.as_ref().map(loc_record),
                invariant: invariant.clone(),
            },
            UnknownReason::Unmodeled { what, loc } => ReasonRecord::Unmodeled {
                what: what.clone(),
                loc: loc.as_ref().map(loc_record),
            },
            UnknownReason::Unsupported(what) => ReasonRecord::Unsupported(what.clone()),
            UnknownReason::InternalError(what) => ReasonRecord::InternalError(what.clone()),
        }),
    }
}

/// The verdict `record` stores, for a function `callers` may enter (read from the program
/// at hand, not stored: who may call a function is the program's, not its results').
fn verdict(record: VerdictRecord, callers: crate::check::Callers) -> Result<Verdict, String> {
    Ok(match record {
        VerdictRecord::Proved => Verdict::Proved,
        VerdictRecord::HoldsIf(expr, requirements) => {
            Verdict::HoldsIf(crate::check::Precondition {
                expr,
                requirements,
                callers,
            })
        }
        VerdictRecord::Violated(cex) => Verdict::Violated(Box::new(Counterexample {
            args: cex.args.into_iter().map(nondet).collect::<Result<_, _>>()?,
            inputs: cex
                .inputs
                .into_iter()
                .map(nondet)
                .collect::<Result<_, _>>()?,
            steps: cex
                .steps
                .into_iter()
                .map(|s| {
                    Ok(TraceStep {
                        loc: s.loc.map(loc),
                        values: s
                            .values
                            .into_iter()
                            .map(|(name, v)| Ok((name, integer(&v)?)))
                            .collect::<Result<_, String>>()?,
                    })
                })
                .collect::<Result<_, String>>()?,
            confirmed_by: cex.confirmed_by,
        })),
        VerdictRecord::Unknown(reason) => Verdict::Unknown(match reason {
            ReasonRecord::Stopped { function, limit } => UnknownReason::Stopped(BudgetStop {
                function,
                limit: match limit {
                    LimitRecord::TimeNs(ns) => BudgetLimit::Time(Duration::from_nanos(ns)),
                    LimitRecord::RunSpent => BudgetLimit::RunSpent,
                    LimitRecord::Memory(bytes) => BudgetLimit::Memory(bytes),
                    LimitRecord::SolverWork => BudgetLimit::SolverWork,
                    LimitRecord::FrontEnd(why) => BudgetLimit::FrontEnd(why),
                },
            }),
            ReasonRecord::Imprecise => UnknownReason::Imprecise,
            ReasonRecord::ImpreciseAt { loc: l, invariant } => UnknownReason::ImpreciseAt {
                loc: l.map(loc),
                invariant,
            },
            ReasonRecord::Unmodeled { what, loc: l } => UnknownReason::Unmodeled {
                what,
                loc: l.map(loc),
            },
            ReasonRecord::Unsupported(what) => UnknownReason::Unsupported(what),
            ReasonRecord::InternalError(what) => UnknownReason::InternalError(what),
        }),
    })
}
