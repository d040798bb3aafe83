//! Helpers shared by the test crates that run the real binary on C programs.
//!
//! - [`annotations`]: the one format of the annotations of `tests/programs` (documented
//!   there), its parser, and the comparison of a report with it.
//! - [`native`]: native builds and runs, the ground truth of the annotations.
//! - [`shared`]: the benchmark sets beside the project, skipped visibly when absent and
//!   required under CI.
#![allow(dead_code, unused_imports)] // each test crate uses its own subset

pub mod annotations;
pub mod native;
pub mod shared;

pub use native::native_stdout;
pub use shared::{shared_bench_or_skip, skip_unless_ci, SharedSet};

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A program of `tests/programs`.
pub fn program(name: &str) -> PathBuf {
    [env!("CARGO_MANIFEST_DIR"), "tests", "programs", name]
        .iter()
        .collect()
}

/// The C programs under `dir` and its subfolders, sorted.
pub fn c_programs(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, acc: &mut Vec<PathBuf>) {
        let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                walk(&path, acc);
            } else if path.extension().is_some_and(|e| e == "c") {
                acc.push(path);
            }
        }
    }
    let mut res = Vec::new();
    walk(dir, &mut res);
    res.sort();
    res
}

/// `polyfocus check --format json ARGS PROGRAM`: the JSON report; fails the test when the
/// exit code is not a verdict's (0, 1 or 2).
#[track_caller]
pub fn check_json(program: &Path, args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_polyfocus"))
        .args(["check", "--format", "json"])
        .args(args)
        .arg(program)
        .output()
        .expect("polyfocus runs");
    let code = out.status.code().unwrap_or(-1);
    assert!(
        (0..=2).contains(&code),
        "{} exited {code}: {}",
        program.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON report")
}

/// The source line of a check of a report (its `location` is `FILE:LINE:COLUMN`).
pub fn line_of(check: &Value) -> Option<u32> {
    check["location"]
        .as_str()
        .and_then(|l| l.split(':').nth(1))
        .and_then(|l| l.parse::<u32>().ok())
}

/// The check of `report` on source line `line`, if any.
pub fn check_at_line(report: &Value, line: u32) -> Option<&Value> {
    report["checks"]
        .as_array()?
        .iter()
        .find(|c| line_of(c) == Some(line))
}

/// The verdict of the check on source line `line`; fails the test when there is none.
#[track_caller]
pub fn verdict_at(report: &Value, line: u32) -> String {
    check_at_line(report, line).unwrap_or_else(|| panic!("no check at line {line}: {report}"))
        ["verdict"]
        .as_str()
        .unwrap_or("")
        .to_string()
}
