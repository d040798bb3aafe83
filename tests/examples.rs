//! Every example of `examples/` runs as its README says, with the outcome the README states:
//! `loop.c` through `check`, `ci/` through `make polyfocus` (a build through `scan`) and
//! `cmake/` through `cmake` and `check -p`. Each example is copied to a temporary folder
//! first: the runs write their build and reports beside the sources.
//!
//! The README's outcome is tied to the test: the counts the test checks must appear in it
//! as written (`P proved, V violated, U unknown`).

mod common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_polyfocus");

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples")
}

/// Copies the folder `from` into `to`, recursively.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a folder for the copy");
    for entry in std::fs::read_dir(from).expect("the example's folder") {
        let path = entry.expect("an entry").path();
        let target = to.join(path.file_name().expect("a name"));
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).expect("copying a file");
        }
    }
}

/// The example `name` copied into a fresh temporary folder.
fn copy_of(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temporary directory");
    copy_dir(&examples().join(name), dir.path());
    dir
}

#[track_caller]
fn run(cmd: &mut Command) -> Output {
    cmd.output()
        .unwrap_or_else(|e| panic!("{cmd:?} does not run: {e}"))
}

fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

/// `P proved, V violated, U unknown` from counts of verdicts.
fn counts(proved: u64, violated: u64, unknown: u64) -> String {
    format!("{proved} proved, {violated} violated, {unknown} unknown")
}

/// The counts of the verdicts of a JSON report.
fn json_counts(report: &Value) -> String {
    let n = |verdict: &str| {
        report["checks"]
            .as_array()
            .expect("checks")
            .iter()
            .filter(|c| c["verdict"] == verdict)
            .count() as u64
    };
    counts(n("proved"), n("violated"), n("unknown"))
}

/// The summary counts and the results of the one run of a SARIF file.
fn sarif(path: &Path) -> (String, Vec<Value>) {
    let log: Value = serde_json::from_str(
        &std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    )
    .expect("SARIF is JSON");
    let runs = log["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 1, "{log}");
    let summary = &runs[0]["properties"]["summary"];
    let n = |key: &str| {
        summary[key]
            .as_u64()
            .unwrap_or_else(|| panic!("{key} in {summary}"))
    };
    let results = runs[0]["results"].as_array().expect("results").clone();
    (counts(n("proved"), n("violated"), n("unknown")), results)
}

#[track_caller]
fn assert_readme_says(readme: &Path, words: &str) {
    let text = std::fs::read_to_string(readme).expect("the example's README");
    assert!(
        text.contains(words),
        "{} does not state the outcome `{words}`",
        readme.display()
    );
}

#[test]
fn loop_c_is_proved() {
    let out = run(Command::new(BIN)
        .args(["check", "--format", "json"])
        .arg(examples().join("loop.c")));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    let outcome = json_counts(&report);
    assert_eq!(outcome, counts(3, 0, 0), "{report}");
    assert_readme_says(&examples().join("README.md"), &outcome);
}

/// `make polyfocus` passes with one unknown assertion reported as a warning, and fails
/// with `--fail-on unknown`.
#[test]
fn ci_make_polyfocus_passes_with_one_warning() {
    let dir = copy_of("ci");
    let make = |flags: Option<&str>| {
        let mut cmd = Command::new("make");
        cmd.current_dir(dir.path())
            .arg("polyfocus")
            .arg(format!("POLYFOCUS={BIN}"));
        if let Some(flags) = flags {
            cmd.arg(format!("POLYFOCUS_FLAGS={flags}"));
        }
        run(&mut cmd)
    };
    let out = make(None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let (outcome, results) = sarif(&dir.path().join("polyfocus.sarif"));
    assert_eq!(outcome, counts(5, 0, 1));
    let readme = examples().join("ci/README.md");
    assert_readme_says(&readme, &outcome);
    assert_eq!(results.len(), 1, "{results:?}");
    let result = &results[0];
    assert_eq!(result["ruleId"], "PF002", "{result}");
    assert_eq!(result["level"], "warning", "{result}");
    let place = &result["locations"][0]["physicalLocation"];
    let at = format!(
        "{}:{}",
        place["artifactLocation"]["uri"].as_str().unwrap_or(""),
        place["region"]["startLine"]
    );
    assert_eq!(at, "src/tool.c:12", "{result}");
    assert_readme_says(&readme, &format!("`PF002` (a warning) at `{at}`"));

    let out = make(Some("--fail-on unknown"));
    let said = text(&out);
    assert_ne!(out.status.code(), Some(0), "{said}");
    assert!(said.contains("Error 2"), "polyfocus exits 2: {said}");
}

/// `cmake -S . -B build`, then `check -p build`: every assertion proved, in JSON and SARIF.
#[test]
fn cmake_project_is_proved() {
    let dir = copy_of("cmake");
    let Ok(configured) = Command::new("cmake")
        .current_dir(dir.path())
        .args(["-S", ".", "-B", "build"])
        .output()
    else {
        common::skip_unless_ci(
            "cmake_project_is_proved",
            "cmake is not installed (scripts/setup installs it)",
        );
        return;
    };
    assert!(configured.status.success(), "{}", text(&configured));
    let out = run(Command::new(BIN)
        .current_dir(dir.path())
        .args(["check", "-p", "build", "--format", "json"]));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    let outcome = json_counts(&report);
    assert_eq!(outcome, counts(3, 0, 0), "{report}");
    assert_readme_says(&examples().join("cmake/README.md"), &outcome);

    let out = run(Command::new(BIN).current_dir(dir.path()).args([
        "check",
        "-p",
        "build",
        "--format",
        "sarif",
        "-o",
        "polyfocus.sarif",
    ]));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let (sarif_outcome, results) = sarif(&dir.path().join("polyfocus.sarif"));
    assert_eq!(sarif_outcome, outcome);
    assert!(results.is_empty(), "{results:?}");
}
