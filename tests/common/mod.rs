//! Helpers shared by the test crates that run the real binary on C programs.
#![allow(dead_code)] // each test crate uses its own subset

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A program of `tests/programs`.
pub fn program(name: &str) -> PathBuf {
    [env!("CARGO_MANIFEST_DIR"), "tests", "programs", name]
        .iter()
        .collect()
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

/// The check of `report` on source line `line`, if any.
pub fn check_at_line(report: &Value, line: u32) -> Option<&Value> {
    report["checks"].as_array()?.iter().find(|c| {
        c["location"]
            .as_str()
            .and_then(|l| l.split(':').nth(1))
            .and_then(|l| l.parse::<u32>().ok())
            == Some(line)
    })
}

/// `../shared/bench` beside the project, or `None` after telling the user that `test` is
/// skipped; under CI (`CI` set) its absence fails the test, since CI runs beside it.
#[track_caller]
pub fn shared_bench_or_skip(test: &str) -> Option<PathBuf> {
    let bench = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/bench");
    if bench.join("MANIFEST.tsv").is_file() {
        return Some(bench);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{} is absent: CI runs beside ../shared",
        bench.display()
    );
    // Straight to the standard error, not `eprintln!`: the test harness hides what passing
    // tests print, and a skip must be seen.
    use std::io::Write as _;
    let _ = writeln!(
        std::io::stderr(),
        "{test}: SKIPPED, {} is absent",
        bench.display()
    );
    None
}

/// Builds the C `source` natively with clang-19 and `flags` and runs it: its standard output,
/// trimmed. The ground truth the verdicts of a test are checked against.
#[track_caller]
pub fn native_stdout(source: &str, flags: &[&str]) -> String {
    let dir = tempfile::tempdir().expect("temporary directory");
    let src = dir.path().join("native.c");
    std::fs::write(&src, source).expect("writing the native program");
    let exe = dir.path().join("native");
    let status = Command::new("clang-19")
        .args(flags)
        .arg("-w")
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .status()
        .expect("clang-19 runs");
    assert!(status.success(), "native build");
    let out = Command::new(&exe)
        .output()
        .expect("the native program runs");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// What the annotation of an assertion's line says it must get.
pub enum Expect {
    /// `// holds; proved by: ...`: proved.
    Proved,
    /// `// fails`: violated, with a counterexample replayed natively.
    Violated,
    /// `// unknown because: TEXT`: unknown, with a reason that contains TEXT.
    Unknown {
        /// The text the reason contains (`a|b`: either).
        cause: String,
    },
}

/// The annotated lines of the program at `path`, with what each expects.
pub fn annotations(path: &Path) -> Vec<(u32, Expect)> {
    let text = std::fs::read_to_string(path).expect("test program readable");
    let mut res = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let Some(idx) = line.find("// ") else {
            continue;
        };
        let note = line[idx + 3..].trim();
        let expect = if note == "fails" {
            Expect::Violated
        } else if note.starts_with("holds; proved by:") {
            Expect::Proved
        } else if let Some(cause) = note.strip_prefix("unknown because: ") {
            Expect::Unknown {
                cause: cause.to_string(),
            }
        } else {
            continue;
        };
        res.push((i as u32 + 1, expect));
    }
    res
}
