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
pub use project::{all_results, project_json, project_text, ProgramReport};
pub use sarif::{sarif, SarifOptions};

use crate::check::{AnalysisReport, CheckRun, FunctionRun, LoopInvariant};
use crate::check::{CheckResult, ProgramVerdict, Verdict};
use crate::ir::LiftWarning;
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
    checks: Vec<JsonCheck>,
    invariants: Vec<JsonInvariant<'a>>,
    /// What predicate refinement did, per function where it ran (issue 7).
    refinement: Vec<JsonRefinement<'a>>,
    warnings: Vec<String>,
    functions: Vec<JsonFunction<'a>>,
}

/// How the analysis of one function ended (issue 8: every function finished or reported
/// with the budget it ran out of).
#[derive(Serialize)]
struct JsonFunction<'a> {
    function: &'a str,
    /// `finished`, `timeout`, `budget: WHAT` or `internal error: WHAT`.
    end: String,
    time_ms: u64,
    /// The time budget it was given (`--timeout`, or its share of the run's budget).
    budget_ms: u64,
    peak_heap_mb: u64,
    /// Each stage that ran, with how it ended: `end` above is the analysis's; a stage
    /// that ran out of its share of the budget says so here (issue 13).
    stages: Vec<JsonStage>,
    /// How many values fell in each domain type, when the engine used them (issue 14).
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

fn json_function(run: &FunctionRun) -> JsonFunction<'_> {
    JsonFunction {
        function: &run.function,
        end: run.end.to_string(),
        time_ms: run.elapsed.as_millis() as u64,
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
    report
        .functions
        .iter()
        .flat_map(|f| &f.checks)
        .find(|c| c.check == check)
}

#[derive(Serialize)]
struct JsonCheck {
    id: u32,
    /// `assert`, `overflow`, `div` or `shift` (`--checks`).
    kind: &'static str,
    /// For a runtime check, what misbehaves (`signed overflow in \`+\``).
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    function: String,
    location: Option<String>,
    verdict: &'static str,
    reason: Option<String>,
    /// What the counterexample search said, when it found nothing (a note: the reason
    /// above does not depend on how far the search got).
    #[serde(skip_serializing_if = "Option::is_none")]
    counterexample_search: Option<String>,
    /// Milliseconds each stage spent while the assertion was open.
    #[serde(skip_serializing_if = "Option::is_none")]
    time_ms: Option<JsonCheckTime>,
    #[serde(skip_serializing_if = "Option::is_none")]
    counterexample: Option<JsonCounterexample>,
}

/// A confirmed counterexample (issue 6).
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
        Verdict::Unknown(_) => "unknown",
    }
}

fn program_reason(results: &[CheckResult]) -> Option<&'static str> {
    if ProgramVerdict::of(results) != ProgramVerdict::Unknown {
        return None;
    }
    results.iter().find_map(|r| match &r.verdict {
        Verdict::Unknown(reason) => Some(reason.class()),
        _ => None,
    })
}

/// The JSON report.
pub fn json(report: &AnalysisReport, warnings: &[LiftWarning], info: &RunInfo) -> String {
    let results = &report.results;
    let out = JsonReport {
        tool: "polyfocus",
        version: env!("CARGO_PKG_VERSION"),
        verdict: ProgramVerdict::of(results).as_str(),
        reason: program_reason(results),
        engine: info.engine,
        domain: info.domain,
        time_ms: info.elapsed.as_millis(),
        checks: results
            .iter()
            .map(|r| JsonCheck {
                id: r.check.0,
                kind: r.kind.class().name(),
                error: r.kind.runtime_error(),
                function: r.function.clone(),
                location: r.loc.as_ref().map(|l| l.to_string()),
                verdict: verdict_word(&r.verdict),
                reason: match &r.verdict {
                    Verdict::Unknown(reason) => Some(reason.to_string()),
                    _ => None,
                },
                counterexample_search: match &r.verdict {
                    Verdict::Unknown(_) => {
                        check_run(report, r.check).and_then(|c| c.search_note.clone())
                    }
                    _ => None,
                },
                time_ms: check_run(report, r.check).map(|c| JsonCheckTime {
                    analysis: c.analysis.as_millis() as u64,
                    refinement: c.refinement.as_millis() as u64,
                    counterexample_search: c.search.as_millis() as u64,
                }),
                counterexample: match &r.verdict {
                    Verdict::Violated(cex) => Some(json_counterexample(cex)),
                    _ => None,
                },
            })
            .collect(),
        invariants: report.loop_invariants.iter().map(json_invariant).collect(),
        refinement: report.refinement.iter().map(json_refinement).collect(),
        warnings: warnings.iter().map(warning_text).collect(),
        functions: report.functions.iter().map(json_function).collect(),
    };
    serde_json::to_string_pretty(&out).expect("report records always serialize")
}

/// What predicate refinement did in one function (issue 7).
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

fn json_refinement(r: &crate::check::RefinementStats) -> JsonRefinement<'_> {
    JsonRefinement {
        function: &r.function,
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

fn json_invariant(inv: &LoopInvariant) -> JsonInvariant<'_> {
    JsonInvariant {
        function: &inv.function,
        loop_name: loop_name(inv),
        location: inv.loc.as_ref().map(|l| l.to_string()),
        invariant: &inv.text,
    }
}

/// A lifting warning as one line: `file:line:col: function: message` when the location is known.
pub fn warning_text(w: &LiftWarning) -> String {
    match &w.loc {
        Some(loc) => format!("{loc}: {}: {}", w.function, w.message),
        None => format!("{}: {}", w.function, w.message),
    }
}

/// The text report: one line per assertion and a summary line.
pub fn text(report: &AnalysisReport, warnings: &[LiftWarning], info: &RunInfo) -> String {
    let mut out = String::new();
    for w in warnings {
        let _ = writeln!(out, "warning: {}", warning_text(w));
    }
    let results = &report.results;
    for r in results {
        let loc = r
            .loc
            .as_ref()
            .map_or_else(|| "<unknown location>".to_string(), |l| l.to_string());
        let detail = match &r.verdict {
            Verdict::Proved => String::new(),
            Verdict::Violated(cex) => format!("  (counterexample {})", cex.confirmed_by),
            Verdict::Unknown(reason) => format!("  ({reason})"),
        };
        let what = match r.kind.runtime_error() {
            Some(error) => format!(" {}: {error}", r.kind.class().name()),
            None => String::new(),
        };
        let _ = writeln!(
            out,
            "{loc}: {} [{}]{what}{detail}",
            verdict_word(&r.verdict),
            r.function
        );
        if let Verdict::Violated(cex) = &r.verdict {
            out.push_str(&counterexample_text(cex));
        }
        if let (Verdict::Unknown(_), Some(note)) = (
            &r.verdict,
            check_run(report, r.check).and_then(|c| c.search_note.as_ref()),
        ) {
            let _ = writeln!(out, "    counterexample search: {note}");
        }
    }
    let n = results.len();
    let count = |w: &str| {
        results
            .iter()
            .filter(|r| verdict_word(&r.verdict) == w)
            .count()
    };
    if n == 0 {
        let _ = writeln!(out, "no assertions found");
    }
    for r in report.refinement.iter().filter(|r| r.rounds > 0) {
        let _ = writeln!(
            out,
            "refinement [{}]: {} round{}, {} predicate{} at {} cut point{}, {} BDD variable{} ({} without sharing), {} more proved",
            r.function,
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
    let _ = writeln!(
        out,
        "summary: {n} assertion{}: {} proved, {} violated, {} unknown; verdict {} ({} + {}, {:.2} s)",
        if n == 1 { "" } else { "s" },
        count("proved"),
        count("violated"),
        count("unknown"),
        ProgramVerdict::of(results).as_str(),
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
                "    input #{}: {}() = {} (i{}){}",
                i + 1,
                v.function,
                v.value,
                v.width,
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
            inv.function,
            loop_name(inv),
            inv.text
        );
    }
    if report.loop_invariants.is_empty() {
        let _ = writeln!(out, "no loops");
    }
    out
}
