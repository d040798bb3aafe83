//! Reports of a run over several programs (a whole project): text and JSON, and the
//! record the SARIF and JUnit writers share.

use super::{json, text, RunInfo};
use crate::check::AnalysisReport;
use crate::check::{merge_contexts, MergedCheck, ProgramVerdict};
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
    /// The checks of the source, each with its contexts merged: what every format reports.
    checks: Vec<MergedCheck>,
}

impl ProgramReport {
    /// An analyzed program.
    pub fn new(name: String, analysis: AnalysisReport, warnings: Vec<LiftWarning>) -> Self {
        let checks = merge_contexts(&analysis.results);
        ProgramReport {
            name,
            analysis,
            warnings,
            error: None,
            checks,
        }
    }

    /// A program that could not be loaded.
    pub fn failed(name: String, error: String) -> ProgramReport {
        ProgramReport {
            name,
            analysis: AnalysisReport::default(),
            warnings: vec![],
            error: Some(error),
            checks: vec![],
        }
    }

    /// Its checks, one per source location and kind, in source order.
    pub fn checks(&self) -> &[MergedCheck] {
        &self.checks
    }

    /// The readable name of one of its functions (see [`crate::check::FunctionNames`]).
    pub fn function_name<'a>(&'a self, llvm: &'a str) -> &'a str {
        self.analysis.names.readable(llvm)
    }
}

/// Every check of every program, in program order.
pub fn all_checks(programs: &[ProgramReport]) -> impl Iterator<Item = &MergedCheck> + Clone {
    programs.iter().flat_map(|p| p.checks.iter())
}

/// The text report of a run: one section per program when there are several.
pub fn project_text(programs: &[ProgramReport], info: &RunInfo) -> String {
    if let [single] = programs {
        if single.error.is_none() {
            return text(single, info);
        }
    }
    let mut out = String::new();
    for p in programs {
        let _ = writeln!(out, "== program {} ==", p.name);
        match &p.error {
            Some(e) => {
                let _ = writeln!(out, "error: {e}");
            }
            None => out.push_str(&text(p, info)),
        }
    }
    let checks: Vec<&MergedCheck> = all_checks(programs).collect();
    let failed = programs.iter().filter(|p| p.error.is_some()).count();
    let _ = writeln!(
        out,
        "total: {} program{} ({} not loaded), {}; verdict {} ({:.2} s)",
        programs.len(),
        if programs.len() == 1 { "" } else { "s" },
        failed,
        super::count_by_kind(checks.iter().copied()),
        ProgramVerdict::of_checks(checks.iter().copied()).as_str(),
        info.elapsed.as_secs_f64()
    );
    out
}

/// The JSON report of a run: the single-program object when there is one program,
/// otherwise `{tool, version, verdict, programs: [{program, error, report}]}`.
pub fn project_json(programs: &[ProgramReport], info: &RunInfo) -> String {
    if let [single] = programs {
        if single.error.is_none() {
            return json(single, info);
        }
    }
    let entries: Vec<serde_json::Value> = programs
        .iter()
        .map(|p| {
            let report = match &p.error {
                Some(_) => serde_json::Value::Null,
                None => serde_json::from_str(&json(p, info)).expect("the JSON report parses"),
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
        "verdict": ProgramVerdict::of_checks(all_checks(programs)).as_str(),
        "time_ms": info.elapsed.as_millis() as u64,
        "programs": entries,
    });
    serde_json::to_string_pretty(&out).expect("report records always serialize")
}
