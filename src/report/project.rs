//! Reports of a run over several programs (a whole project): text and JSON, and the
//! record the SARIF and JUnit writers share.

use super::{json, text, RunInfo};
use crate::check::AnalysisReport;
use crate::check::{CheckResult, ProgramVerdict};
use crate::ir::LiftWarning;
use std::fmt::Write as _;

/// One analyzed program of a run: a linked executable of a build, or the whole input.
#[derive(Clone, Debug)]
pub struct ProgramReport {
    /// Its name (the linked output relative to the build directory, or the input file);
    /// empty when the run has one program given on the command line.
    pub name: String,
    /// What the analysis found (empty when the program could not be loaded).
    pub analysis: AnalysisReport,
    /// What the front end could not model.
    pub warnings: Vec<LiftWarning>,
    /// Why the program could not be loaded or compiled, if it could not.
    pub error: Option<String>,
}

impl ProgramReport {
    /// A program that could not be loaded.
    pub fn failed(name: String, error: String) -> ProgramReport {
        ProgramReport {
            name,
            analysis: AnalysisReport::default(),
            warnings: vec![],
            error: Some(error),
        }
    }
}

/// Every result of every program, in program order.
pub fn all_results(programs: &[ProgramReport]) -> Vec<CheckResult> {
    programs
        .iter()
        .flat_map(|p| p.analysis.results.iter().cloned())
        .collect()
}

/// The text report of a run: one section per program when there are several.
pub fn project_text(programs: &[ProgramReport], info: &RunInfo) -> String {
    if let [single] = programs {
        if single.error.is_none() {
            return text(&single.analysis, &single.warnings, info);
        }
    }
    let mut out = String::new();
    for p in programs {
        let _ = writeln!(out, "== program {} ==", p.name);
        match &p.error {
            Some(e) => {
                let _ = writeln!(out, "error: {e}");
            }
            None => out.push_str(&text(&p.analysis, &p.warnings, info)),
        }
    }
    let results = all_results(programs);
    let failed = programs.iter().filter(|p| p.error.is_some()).count();
    let _ = writeln!(
        out,
        "total: {} program{} ({} not loaded), {} assertion{}; verdict {} ({:.2} s)",
        programs.len(),
        if programs.len() == 1 { "" } else { "s" },
        failed,
        results.len(),
        if results.len() == 1 { "" } else { "s" },
        ProgramVerdict::of(&results).as_str(),
        info.elapsed.as_secs_f64()
    );
    out
}

/// The JSON report of a run: the single-program object when there is one program,
/// otherwise `{tool, version, verdict, programs: [{program, error, report}]}`.
pub fn project_json(programs: &[ProgramReport], info: &RunInfo) -> String {
    if let [single] = programs {
        if single.error.is_none() {
            return json(&single.analysis, &single.warnings, info);
        }
    }
    let results = all_results(programs);
    let entries: Vec<serde_json::Value> = programs
        .iter()
        .map(|p| {
            let report = match &p.error {
                Some(_) => serde_json::Value::Null,
                None => serde_json::from_str(&json(&p.analysis, &p.warnings, info))
                    .expect("the JSON report parses"),
            };
            serde_json::json!({
                "program": p.name,
                "error": p.error,
                "report": report,
            })
        })
        .collect();
    let out = serde_json::json!({
        "tool": "polyfocus",
        "version": env!("CARGO_PKG_VERSION"),
        "verdict": ProgramVerdict::of(&results).as_str(),
        "time_ms": info.elapsed.as_millis() as u64,
        "programs": entries,
    });
    serde_json::to_string_pretty(&out).expect("report records always serialize")
}
