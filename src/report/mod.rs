//! Reports: text for people, JSON for tools, SARIF 2.1.0 for code scanning (`sarif`),
//! JUnit XML for CI dashboards (`junit`), the annotated source as one HTML page (`html`),
//! and their multi-program forms (`project`).
//!
//! **Architecture Invariant:** the only module that knows serde and output formats. It has
//! its own serializable records, converted by hand from the `check` records, so the
//! analysis types stay free of serialization concerns. It depends on data only: it never
//! names the driver. Output order is deterministic.

mod html;
mod junit;
mod project;
mod sarif;

pub use html::{html, html_source_files};
pub use junit::junit;
pub use project::{all_checks, project_json, project_text, ProgramReport};
pub use sarif::{sarif, SarifOptions};

use project::ProgramReport as Program;

use crate::check::{AnalysisReport, CheckRun, FunctionNames, FunctionRun, LoopInvariant};
use crate::check::{CheckResult, MergedCheck, ProgramVerdict, Verdict};
use crate::ir::{CheckClass, LeakCoverage, LiftWarning};
use serde::Serialize;
use std::fmt::Write as _;
use std::time::Duration;

/// What the report says about the run itself.
#[derive(Clone, Debug)]
pub struct RunInfo {
    /// Engine name.
    pub engine: &'static str,
    /// Domain name.
    pub domain: &'static str,
    /// Wall time of the whole run.
    pub elapsed: Duration,
}

#[derive(Serialize)]
struct JsonReport<'a> {
    tool: &'static str,
    version: &'static str,
    verdict: &'static str,
    reason: Option<&'static str>,
    engine: &'static str,
    domain: &'static str,
    time_ms: u128,
    /// The checks by verdict, overall and per kind.
    summary: JsonSummary,
    /// With memory checks: whether the leak checks cover the whole program.
    #[serde(skip_serializing_if = "Option::is_none")]
    leaks: Option<JsonLeaks>,
    /// One per check of the source (location and kind), its contexts merged.
    checks: Vec<JsonCheck>,
    invariants: Vec<JsonInvariant<'a>>,
    /// What predicate refinement did, per function where it ran.
    refinement: Vec<JsonRefinement<'a>>,
    warnings: Vec<String>,
    functions: Vec<JsonFunction<'a>>,
}

/// Whether the leak checks cover every object the program may allocate: then a program
/// whose leak checks are all proved (or that has none) loses no memory.
#[derive(Serialize)]
struct JsonLeaks {
    covered: bool,
    /// Why not, when not.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
}

fn json_leaks(coverage: &LeakCoverage) -> Option<JsonLeaks> {
    match coverage {
        LeakCoverage::NotChecked => None,
        LeakCoverage::Whole => Some(JsonLeaks {
            covered: true,
            reason: None,
        }),
        LeakCoverage::Partial(why) => Some(JsonLeaks {
            covered: false,
            reason: Some(why.clone()),
        }),
    }
}

/// The line of the text report on the leak checks' coverage, with memory checks.
fn leaks_line(coverage: &LeakCoverage) -> Option<String> {
    match coverage {
        LeakCoverage::NotChecked => None,
        LeakCoverage::Whole => {
            Some("leaks: every object the program may allocate has a leak check".into())
        }
        LeakCoverage::Partial(why) => {
            Some(format!("leaks: not checked over the whole program: {why}"))
        }
    }
}

/// How the analysis of one function ended: finished, or the budget it ran out of.
#[derive(Serialize)]
struct JsonFunction<'a> {
    function: &'a str,
    /// LLVM's name, when it is not the readable one (`html_render.2684`).
    #[serde(skip_serializing_if = "Option::is_none")]
    symbol: Option<&'a str>,
    /// `finished`, `timeout`, `budget: WHAT` or `internal error: WHAT`.
    end: String,
    /// Wall-clock time.
    time_ms: u64,
    /// CPU time (of its worker thread, and of the native builds and runs it waited for):
    /// what `budget_ms` counts, so the two compare under any load.
    cpu_ms: u64,
    /// The time budget it was given (`--timeout`, or its share of the run's budget), with
    /// the reserve of the preconditions of its open checks.
    budget_ms: u64,
    peak_heap_mb: u64,
    /// Each stage that ran, with how it ended: `end` above is the analysis's; a stage
    /// that ran out of its share of the budget says so here.
    stages: Vec<JsonStage>,
    /// How many values fell in each domain type, when the engine used them.
    #[serde(skip_serializing_if = "Option::is_none")]
    domain_types: Option<JsonDomainTypes>,
}

/// How the values of a function were classified by their use, and how many path focusing
/// tracked (`context/domain_types.rs`).
#[derive(Serialize)]
struct JsonDomainTypes {
    boolean: usize,
    equality: usize,
    interval: usize,
    relational: usize,
    relational_packs: usize,
    largest_pack: usize,
    /// Values in the cone of influence of the assertions open when the engine started.
    relevant: usize,
    /// Values the engine tracked at cut points.
    tracked: usize,
}

#[derive(Serialize)]
struct JsonStage {
    stage: &'static str,
    time_ms: u64,
    /// `finished`, `timeout` or `budget: WHAT`.
    end: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<String>,
}

/// The time each stage spent on one assertion, in milliseconds.
#[derive(Serialize)]
struct JsonCheckTime {
    analysis: u64,
    refinement: u64,
    counterexample_search: u64,
}

fn json_function<'a>(run: &'a FunctionRun, names: &'a FunctionNames) -> JsonFunction<'a> {
    JsonFunction {
        function: names.readable(&run.function),
        symbol: symbol(&run.function, names),
        end: run.end.to_string(),
        time_ms: run.elapsed.as_millis() as u64,
        cpu_ms: run.cpu.as_millis() as u64,
        budget_ms: run.budget.as_millis() as u64,
        peak_heap_mb: (run.peak_heap_bytes >> 20) as u64,
        stages: run
            .stages
            .iter()
            .map(|st| JsonStage {
                stage: st.stage.name(),
                time_ms: st.elapsed.as_millis() as u64,
                end: st.end.to_string(),
                detail: st.detail.clone(),
            })
            .collect(),
        domain_types: run.domain_types.map(|d| JsonDomainTypes {
            boolean: d.counts.boolean,
            equality: d.counts.equality,
            interval: d.counts.interval,
            relational: d.counts.relational,
            relational_packs: d.counts.relational_packs,
            largest_pack: d.counts.largest_pack,
            relevant: d.relevant,
            tracked: d.tracked,
        }),
    }
}

/// The stage times of each assertion, from the run of its function.
fn check_run(report: &AnalysisReport, check: crate::ir::CheckId) -> Option<&CheckRun> {
    report.check_run(check)
}

/// LLVM's name of a function when the report shows another.
fn symbol<'a>(llvm: &'a str, names: &FunctionNames) -> Option<&'a str> {
    (names.readable(llvm) != llvm).then_some(llvm)
}

/// The checks by verdict.
#[derive(Serialize, Default)]
struct JsonCounts {
    checks: usize,
    proved: usize,
    violated: usize,
    /// Proved under a precondition on the arguments of their function.
    holds_if: usize,
    /// Of those, the checks that hold whenever the functions code outside the program may
    /// call are called within their contracts (a precondition of theirs, or one every call
    /// meets under them).
    contracts: usize,
    unknown: usize,
}

impl JsonCounts {
    fn add(&mut self, verdict: &Verdict) {
        self.checks += 1;
        match verdict {
            Verdict::Proved => self.proved += 1,
            Verdict::Violated(_) => self.violated += 1,
            Verdict::HoldsIf(p) => {
                self.holds_if += 1;
                self.contracts += usize::from(p.is_contract());
            }
            Verdict::Unknown(_) => self.unknown += 1,
        }
    }
}

/// The checks by verdict, overall and per kind (`assert`, `overflow`, ...: only the kinds
/// that have checks).
#[derive(Serialize)]
struct JsonSummary {
    #[serde(flatten)]
    all: JsonCounts,
    kinds: std::collections::BTreeMap<&'static str, JsonCounts>,
}

fn json_summary<'a>(checks: impl Iterator<Item = &'a MergedCheck>) -> JsonSummary {
    let mut summary = JsonSummary {
        all: JsonCounts::default(),
        kinds: Default::default(),
    };
    for c in checks {
        summary.all.add(c.verdict());
        summary
            .kinds
            .entry(c.class().name())
            .or_default()
            .add(c.verdict());
    }
    summary
}

/// One check of the source: its merged verdict, from its deciding context (the violated
/// one, else the first unknown one), and every context's own.
#[derive(Serialize)]
struct JsonCheck {
    /// The deciding context's check id.
    id: u32,
    /// `assert`, `overflow`, `div`, `shift` or `bounds` (`--checks`).
    kind: &'static str,
    /// For a runtime check, what misbehaves (`signed overflow in \`+\``).
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    /// For a memory check, the subproperty of SV-COMP's `valid-memsafety` a violation
    /// refutes (`valid-deref`, `valid-free`, `valid-memtrack`).
    #[serde(skip_serializing_if = "Option::is_none")]
    subproperty: Option<&'static str>,
    /// The deciding context's function.
    function: String,
    location: Option<String>,
    verdict: &'static str,
    /// With `holds if`: the precondition, a C expression over the parameters of `function`.
    #[serde(skip_serializing_if = "Option::is_none")]
    precondition: Option<String>,
    /// With `holds if`: whether the check holds whenever the functions that code outside the
    /// program may call are called within their contracts (the precondition is one, or every
    /// call meets it under them); false when calls of `function` were not all shown to meet it.
    #[serde(skip_serializing_if = "Option::is_none")]
    contract: Option<bool>,
    /// The entries' contracts every call of a `static` function meets its precondition under.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    entry_contracts: Vec<JsonEntryContract>,
    /// Why it is unknown: the first blocking context's reason.
    reason: Option<String>,
    /// What the counterexample search said, when it found nothing (a note: the reason
    /// above does not depend on how far the search got).
    #[serde(skip_serializing_if = "Option::is_none")]
    counterexample_search: Option<String>,
    /// Milliseconds each stage spent while the deciding context was open.
    #[serde(skip_serializing_if = "Option::is_none")]
    time_ms: Option<JsonCheckTime>,
    #[serde(skip_serializing_if = "Option::is_none")]
    counterexample: Option<JsonCounterexample>,
    /// Every context the check was analyzed in (an inlined copy, an entry), in source order.
    contexts: Vec<JsonContext>,
}

/// The result of one check in one context.
#[derive(Serialize)]
struct JsonContext {
    id: u32,
    function: String,
    /// LLVM's name, when it is not the readable one.
    #[serde(skip_serializing_if = "Option::is_none")]
    symbol: Option<String>,
    verdict: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    precondition: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    contract: Option<bool>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    entry_contracts: Vec<JsonEntryContract>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    counterexample_search: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    time_ms: Option<JsonCheckTime>,
    #[serde(skip_serializing_if = "Option::is_none")]
    counterexample: Option<JsonCounterexample>,
}

fn json_context(report: &AnalysisReport, r: &CheckResult) -> JsonContext {
    JsonContext {
        id: r.check.0,
        function: report.names.readable(&r.function).to_string(),
        symbol: symbol(&r.function, &report.names).map(str::to_string),
        verdict: verdict_word(&r.verdict),
        precondition: precondition(&r.verdict),
        contract: contract(&r.verdict),
        entry_contracts: entry_contracts(&r.verdict),
        reason: unknown_reason(&r.verdict),
        counterexample_search: search_note(report, r).map(str::to_string),
        time_ms: check_run(report, r.check).map(json_check_time),
        counterexample: match &r.verdict {
            Verdict::Violated(cex) => Some(json_counterexample(cex)),
            _ => None,
        },
    }
}

fn json_check(report: &AnalysisReport, c: &MergedCheck) -> JsonCheck {
    let deciding = json_context(report, c.deciding());
    JsonCheck {
        id: deciding.id,
        kind: c.class().name(),
        error: c.kind().runtime_error(),
        subproperty: c.kind().memsafety_subproperty(),
        function: deciding.function,
        location: c.loc().map(|l| l.to_string()),
        verdict: deciding.verdict,
        precondition: deciding.precondition,
        contract: deciding.contract,
        entry_contracts: deciding.entry_contracts,
        reason: deciding.reason,
        counterexample_search: deciding.counterexample_search,
        time_ms: deciding.time_ms,
        counterexample: deciding.counterexample,
        contexts: c
            .contexts()
            .iter()
            .map(|r| json_context(report, r))
            .collect(),
    }
}

fn json_check_time(c: &CheckRun) -> JsonCheckTime {
    JsonCheckTime {
        analysis: c.analysis.as_millis() as u64,
        refinement: c.refinement.as_millis() as u64,
        counterexample_search: c.search.as_millis() as u64,
    }
}

/// The precondition of a `holds if` verdict.
fn precondition(v: &Verdict) -> Option<String> {
    match v {
        Verdict::HoldsIf(p) => Some(p.expr.clone()),
        _ => None,
    }
}

/// What a `holds if` asks of whom, for people: `None` for an entry's own contract; the
/// entries' contracts its calls meet it under; or that its calls were not all shown to
/// meet it.
pub(crate) fn precondition_note(p: &crate::check::Precondition) -> Option<String> {
    use crate::check::Callers;
    // Contracts named, at most; the rest are counted.
    const SHOWN: usize = 3;
    match &p.callers {
        Callers::Outside => None,
        Callers::Program => Some("not shown to hold at every call in the program".into()),
        Callers::Entries(contracts) => {
            // One conjunction per function (the contracts come sorted by function).
            let mut by_function: Vec<(&str, Vec<String>)> = Vec::new();
            for c in contracts {
                let clause = match c.precondition.contains("||") {
                    true => format!("({})", c.precondition),
                    false => c.precondition.clone(),
                };
                match by_function.last_mut() {
                    Some((f, clauses)) if *f == c.function => clauses.push(clause),
                    _ => by_function.push((&c.function, vec![clause])),
                }
            }
            let mut named: Vec<String> = (by_function.iter().take(SHOWN))
                .map(|(f, clauses)| format!("`{f}` is called with `{}`", clauses.join(" && ")))
                .collect();
            if by_function.len() > SHOWN {
                named.push(format!("{} more functions", by_function.len() - SHOWN));
            }
            Some(format!("met at every call when {}", named.join(", ")))
        }
    }
}

/// The entries' contracts a `holds if` rests on, for the JSON report.
#[derive(Serialize)]
struct JsonEntryContract {
    function: String,
    precondition: String,
}

fn entry_contracts(v: &Verdict) -> Vec<JsonEntryContract> {
    match v {
        Verdict::HoldsIf(crate::check::Precondition {
            callers: crate::check::Callers::Entries(contracts),
            ..
        }) => contracts
            .iter()
            .map(|c| JsonEntryContract {
                function: c.function.clone(),
                precondition: c.precondition.clone(),
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether the precondition of a `holds if` verdict is a contract.
fn contract(v: &Verdict) -> Option<bool> {
    match v {
        Verdict::HoldsIf(p) => Some(p.is_contract()),
        _ => None,
    }
}

fn unknown_reason(v: &Verdict) -> Option<String> {
    match v {
        Verdict::Unknown(reason) => Some(reason.to_string()),
        _ => None,
    }
}

/// What the counterexample search said about an unknown context, when it found nothing.
fn search_note<'a>(report: &'a AnalysisReport, r: &CheckResult) -> Option<&'a str> {
    match &r.verdict {
        Verdict::Unknown(_) => check_run(report, r.check).and_then(|c| c.search_note.as_deref()),
        _ => None,
    }
}

/// A confirmed counterexample.
#[derive(Serialize)]
struct JsonCounterexample {
    confirmed_by: String,
    args: Vec<JsonInput>,
    inputs: Vec<JsonInput>,
    steps: Vec<JsonStep>,
}

#[derive(Serialize)]
struct JsonInput {
    function: String,
    width: u32,
    value: String,
    location: Option<String>,
}

#[derive(Serialize)]
struct JsonStep {
    location: Option<String>,
    values: Vec<(String, String)>,
}

fn json_counterexample(cex: &crate::check::Counterexample) -> JsonCounterexample {
    let input = |v: &crate::check::NondetValue| JsonInput {
        function: v.function.clone(),
        width: v.width,
        value: v.value.to_string(),
        location: v.loc.as_ref().map(|l| l.to_string()),
    };
    JsonCounterexample {
        confirmed_by: cex.confirmed_by.clone(),
        args: cex.args.iter().map(input).collect(),
        inputs: cex.inputs.iter().map(input).collect(),
        steps: cex
            .steps
            .iter()
            .map(|s| JsonStep {
                location: s.loc.as_ref().map(|l| l.to_string()),
                values: s
                    .values
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_string()))
                    .collect(),
            })
            .collect(),
    }
}

#[derive(Serialize)]
struct JsonInvariant<'a> {
    function: &'a str,
    /// The loop, named by its source line (`loop at line 12`), never by an LLVM block.
    #[serde(rename = "loop")]
    loop_name: String,
    location: Option<String>,
    invariant: &'a str,
}

/// A loop head as people name it: by its source line. LLVM block names (`for.cond.i`)
/// never reach a report.
pub fn loop_name(inv: &LoopInvariant) -> String {
    match &inv.loc {
        Some(loc) if loc.line > 0 => format!("loop at line {}", loc.line),
        _ => "loop (no line in the debug info)".to_string(),
    }
}

fn verdict_word(v: &Verdict) -> &'static str {
    match v {
        Verdict::Proved => "proved",
        Verdict::Violated(_) => "violated",
        Verdict::HoldsIf(_) => "holds if",
        Verdict::Unknown(_) => "unknown",
    }
}

fn program_reason(checks: &[&MergedCheck]) -> Option<&'static str> {
    if ProgramVerdict::of_checks(checks.iter().copied()) != ProgramVerdict::Unknown {
        return None;
    }
    checks.iter().find_map(|c| match c.verdict() {
        Verdict::Unknown(reason) => Some(reason.class()),
        _ => None,
    })
}

/// The JSON report of one program.
pub fn json(program: &Program, info: &RunInfo) -> String {
    let report = &program.analysis;
    let checks: Vec<&MergedCheck> = program.checks().iter().collect();
    let out = JsonReport {
        tool: "polyfocus",
        version: env!("CARGO_PKG_VERSION"),
        verdict: ProgramVerdict::of_checks(checks.iter().copied()).as_str(),
        reason: program_reason(&checks),
        engine: info.engine,
        domain: info.domain,
        time_ms: info.elapsed.as_millis(),
        summary: json_summary(checks.iter().copied()),
        leaks: json_leaks(&report.leaks),
        checks: checks.iter().map(|c| json_check(report, c)).collect(),
        invariants: report
            .loop_invariants
            .iter()
            .map(|i| json_invariant(i, &report.names))
            .collect(),
        refinement: report
            .refinement
            .iter()
            .map(|r| json_refinement(r, &report.names))
            .collect(),
        warnings: program
            .warnings
            .iter()
            .map(|w| program_warning(w, &report.names))
            .collect(),
        functions: report
            .functions
            .iter()
            .map(|f| json_function(f, &report.names))
            .collect(),
    };
    serde_json::to_string_pretty(&out).expect("report records always serialize")
}

/// What predicate refinement did in one function.
#[derive(Serialize)]
struct JsonRefinement<'a> {
    function: &'a str,
    rounds: usize,
    predicates: usize,
    cut_points_with_predicates: usize,
    bdd_vars: usize,
    bdd_vars_unshared: usize,
    error_paths: usize,
    proved: usize,
    millis: u128,
}

fn json_refinement<'a>(
    r: &'a crate::check::RefinementStats,
    names: &'a FunctionNames,
) -> JsonRefinement<'a> {
    JsonRefinement {
        function: names.readable(&r.function),
        rounds: r.rounds,
        predicates: r.predicates,
        cut_points_with_predicates: r.cut_points_with_predicates,
        bdd_vars: r.bdd_vars,
        bdd_vars_unshared: r.bdd_vars_unshared,
        error_paths: r.error_paths,
        proved: r.proved,
        millis: r.millis,
    }
}

fn json_invariant<'a>(inv: &'a LoopInvariant, names: &'a FunctionNames) -> JsonInvariant<'a> {
    JsonInvariant {
        function: names.readable(&inv.function),
        loop_name: loop_name(inv),
        location: inv.loc.as_ref().map(|l| l.to_string()),
        invariant: &inv.text,
    }
}

/// A lifting warning as one line: `file:line:col: function: message` when the location is
/// known, the function by its LLVM name (the IR's).
pub fn warning_text(w: &LiftWarning) -> String {
    warning_line(w, &w.function)
}

/// A lifting warning of a program's report: the function by its readable name.
fn program_warning(w: &LiftWarning, names: &FunctionNames) -> String {
    warning_line(w, names.readable(&w.function))
}

fn warning_line(w: &LiftWarning, function: &str) -> String {
    match &w.loc {
        Some(loc) => format!("{loc}: {function}: {}", w.message),
        None => format!("{function}: {}", w.message),
    }
}

/// What a kind of check is called in reports, singular.
pub fn kind_label(class: CheckClass) -> &'static str {
    match class {
        CheckClass::Assert => "assertion",
        CheckClass::Overflow => "overflow",
        CheckClass::Div => "division",
        CheckClass::Shift => "shift",
        CheckClass::Bounds => "bounds",
        CheckClass::Memory => "memory",
    }
}

/// `3 assertions`, or `20 checks (5 assertions, 12 overflow, 3 bounds)` when there are
/// runtime checks.
fn count_by_kind<'a>(checks: impl Iterator<Item = &'a MergedCheck>) -> String {
    let mut by_class = std::collections::BTreeMap::<CheckClass, usize>::new();
    let mut n = 0;
    for c in checks {
        *by_class.entry(c.class()).or_default() += 1;
        n += 1;
    }
    let plural = |k: usize| if k == 1 { "" } else { "s" };
    let assertions = |k: usize| format!("{k} assertion{}", plural(k));
    match by_class.keys().collect::<Vec<_>>().as_slice() {
        [] => "0 assertions".to_string(),
        [CheckClass::Assert] => assertions(n),
        _ => {
            let parts: Vec<String> = by_class
                .iter()
                .map(|(class, k)| match class {
                    CheckClass::Assert => assertions(*k),
                    _ => format!("{k} {}", kind_label(*class)),
                })
                .collect();
            format!("{n} check{} ({})", plural(n), parts.join(", "))
        }
    }
}

/// The text report of one program: one line per check and a summary line.
pub fn text(program: &Program, info: &RunInfo) -> String {
    let report = &program.analysis;
    let mut out = String::new();
    for w in &program.warnings {
        let _ = writeln!(out, "warning: {}", program_warning(w, &report.names));
    }
    let checks = program.checks();
    for c in checks {
        let r = c.deciding();
        let loc = c
            .loc()
            .map_or_else(|| "<unknown location>".to_string(), |l| l.to_string());
        let detail = match c.verdict() {
            Verdict::HoldsIf(p) => {
                precondition_note(p).map_or_else(String::new, |n| format!("  ({n})"))
            }
            Verdict::Proved => String::new(),
            Verdict::Violated(cex) => format!("  (counterexample {})", cex.confirmed_by),
            Verdict::Unknown(reason) => format!("  ({reason})"),
        };
        let verdict = match c.verdict() {
            Verdict::HoldsIf(p) => format!("holds if {p}"),
            v => verdict_word(v).to_string(),
        };
        let what = match c.kind().runtime_error() {
            Some(error) => format!(" {}: {error}", c.class().name()),
            None => String::new(),
        };
        let contexts = c
            .contexts_note()
            .map_or_else(String::new, |note| format!("; {note}"));
        let _ = writeln!(
            out,
            "{loc}: {verdict} [{}{contexts}]{what}{detail}",
            program.function_name(&r.function)
        );
        if let Verdict::Violated(cex) = c.verdict() {
            out.push_str(&counterexample_text(cex));
        }
        if let Some(note) = search_note(report, r) {
            let _ = writeln!(out, "    counterexample search: {note}");
        }
    }
    let count = |w: &str| {
        checks
            .iter()
            .filter(|c| verdict_word(c.verdict()) == w)
            .count()
    };
    if checks.is_empty() {
        let _ = writeln!(out, "no assertions found");
    }
    if let Some(line) = leaks_line(&report.leaks) {
        let _ = writeln!(out, "{line}");
    }
    for r in report.refinement.iter().filter(|r| r.rounds > 0) {
        let _ = writeln!(
            out,
            "refinement [{}]: {} round{}, {} predicate{} at {} cut point{}, {} BDD variable{} ({} without sharing), {} more proved",
            report.names.readable(&r.function),
            r.rounds,
            if r.rounds == 1 { "" } else { "s" },
            r.predicates,
            if r.predicates == 1 { "" } else { "s" },
            r.cut_points_with_predicates,
            if r.cut_points_with_predicates == 1 { "" } else { "s" },
            r.bdd_vars,
            if r.bdd_vars == 1 { "" } else { "s" },
            r.bdd_vars_unshared,
            r.proved
        );
    }
    // Named only when there are some, so that the line of a closed program reads as before.
    let contracts = checks
        .iter()
        .filter(|c| matches!(c.verdict(), Verdict::HoldsIf(p) if p.is_contract()))
        .count();
    let holds_if = match count("holds if") {
        0 => String::new(),
        n => format!("{n} holds if ({contracts} under entries' contracts), "),
    };
    let _ = writeln!(
        out,
        "summary: {}: {} proved, {} violated, {holds_if}{} unknown; verdict {} ({} + {}, {:.2} s)",
        count_by_kind(checks.iter()),
        count("proved"),
        count("violated"),
        count("unknown"),
        ProgramVerdict::of_checks(checks).as_str(),
        info.engine,
        info.domain,
        info.elapsed.as_secs_f64()
    );
    out
}

/// The trace of a counterexample, indented under its assertion: arguments, inputs in
/// request order, and the path at cut points with the values of source variables.
pub fn counterexample_text(cex: &crate::check::Counterexample) -> String {
    // Inputs listed, at most (for readability; the rest are counted).
    const MAX_INPUTS: usize = 50;
    let mut out = String::new();
    let at = |loc: &Option<crate::ir::SourceLoc>| {
        loc.as_ref()
            .map_or_else(String::new, |l| format!(" at {l}"))
    };
    for a in &cex.args {
        let _ = writeln!(
            out,
            "    argument {} = {} (i{})",
            a.function, a.value, a.width
        );
    }
    if cex.inputs.is_empty() {
        let _ = writeln!(out, "    no inputs");
    }
    // The contents of a buffer passed for a pointer parameter are hundreds of inputs of
    // one name: one line each, with the words that are not zero.
    let mut shown = 0usize;
    let mut i = 0usize;
    while i < cex.inputs.len() && shown < MAX_INPUTS {
        let v = &cex.inputs[i];
        if let Some(param) = v
            .function
            .strip_prefix(crate::cex::replay::BUFFER_INPUT_PREFIX)
        {
            let words = cex.inputs[i..]
                .iter()
                .take_while(|w| w.function == v.function)
                .collect::<Vec<_>>();
            let nonzero: Vec<String> = words
                .iter()
                .enumerate()
                .filter(|(_, w)| w.value != 0)
                .take(8)
                .map(|(k, w)| format!("[{}] = {:#x}", 8 * k, w.value as u64))
                .collect();
            let _ = writeln!(
                out,
                "    buffer for parameter {}: {} bytes (inputs #{}..#{}), {}",
                param.trim_end_matches('>'),
                8 * words.len(),
                i + 1,
                i + words.len(),
                if nonzero.is_empty() {
                    "all zero".to_string()
                } else {
                    format!("64-bit words at byte offsets {}", nonzero.join(", "))
                }
            );
            i += words.len();
        } else {
            let _ = writeln!(
                out,
                "    input #{}: {}{}",
                i + 1,
                crate::cex::trace::input_text(v),
                at(&v.loc)
            );
            i += 1;
        }
        shown += 1;
    }
    if i < cex.inputs.len() {
        let _ = writeln!(out, "    ... {} more inputs", cex.inputs.len() - i);
    }
    for step in &cex.steps {
        match step.values.as_slice() {
            [(name, n)] if step.loc.is_none() && name == "<omitted steps>" => {
                let _ = writeln!(out, "    ... {n} steps omitted");
            }
            values => {
                let loc = step
                    .loc
                    .as_ref()
                    .map_or_else(|| "?".to_string(), |l| format!("{}:{}", l.file, l.line));
                let vals: Vec<String> = values.iter().map(|(k, v)| format!("{k}={v}")).collect();
                let _ = writeln!(
                    out,
                    "    step {loc}{}{}",
                    if vals.is_empty() { "" } else { ": " },
                    vals.join(" ")
                );
            }
        }
    }
    out
}

/// The loop invariants, PAGAI style: location, then the invariant.
pub fn invariants_text(report: &AnalysisReport) -> String {
    let mut out = String::new();
    for inv in &report.loop_invariants {
        let loc = inv
            .loc
            .as_ref()
            .map_or_else(|| "<unknown location>".to_string(), |l| l.to_string());
        let _ = writeln!(
            out,
            "{loc}: [{}] {}: {}",
            report.names.readable(&inv.function),
            loop_name(inv),
            inv.text
        );
    }
    // A function whose analysis stopped has no invariants of its own: say why, never that
    // it has no loops.
    let mut stopped = false;
    for run in &report.functions {
        let why = match (&run.end, run.budget_stop()) {
            (_, Some(stop)) => stop.to_string(),
            (crate::check::RunEnd::InternalError(what), None) => {
                format!(
                    "an internal error stopped the analysis of `{}`: {what}",
                    run.function
                )
            }
            _ => continue,
        };
        stopped = true;
        let listed = report
            .loop_invariants
            .iter()
            .any(|inv| inv.function == run.function);
        if listed {
            let _ = writeln!(
                out,
                "[{}] {why}; the invariants above are those of a stage that finished before",
                run.function
            );
        } else {
            let _ = writeln!(out, "[{}] no invariants: {why}", run.function);
        }
    }
    if report.loop_invariants.is_empty() && !stopped {
        let _ = writeln!(out, "no loops");
    }
    out
}
