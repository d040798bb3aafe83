//! The differential soundness harness, through the real binary: a fixed slice of
//! seeds against the analyzer (any wrong verdict fails the test), and fake analyzers that
//! answer `proved`, `violated` or `unknown` on every assertion, so that the harness is seen
//! to catch wrong verdicts (a harness that cannot fail would prove nothing).
//!
//! Needs clang-19 and csmith (`scripts/setup`).

use serde_json::Value;
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_polyfocus");

/// A fake `polyfocus check` (`$2` is the program): one check per assertion line (the
/// harness writes them unindented), each with the verdict `$VERDICT`.
const FAKE: &str = r#"#!/bin/sh
awk -v verdict="$VERDICT" -v file="$2" '
  BEGIN { printf "{\"checks\":[" ; n = 0 }
  /^(if \(!\(|__VERIFIER_assert\(|assert\()/ {
    printf "%s{\"location\":\"%s:%d:1\",\"verdict\":\"%s\"}", (n++ ? "," : ""), file, NR, verdict
  }
  END { print "]}" }' "$2"
"#;

struct Run {
    exit: i32,
    summary: Vec<Value>,
    stderr: String,
}

fn soundness(args: &[&str], analyzer: Option<(&Path, &str)>) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("summary.json");
    let mut command = Command::new(BIN);
    command.arg("soundness").args(args).arg("--json").arg(&json);
    if let Some((fake, verdict)) = analyzer {
        command.arg("--analyzer").arg(fake).env("VERDICT", verdict);
    }
    let out = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let summary = match std::fs::read_to_string(&json) {
        Ok(text) => serde_json::from_str::<Vec<Value>>(&text).unwrap(),
        Err(e) => panic!("no summary ({e}): {stderr}"),
    };
    Run {
        exit: out.status.code().unwrap_or(-1),
        summary,
        stderr,
    }
}

fn count(run: &Run, generator: &str, key: &str) -> u64 {
    run.summary
        .iter()
        .find(|row| row["generator"] == generator)
        .and_then(|row| row[key].as_u64())
        .unwrap_or_else(|| panic!("no {key} for {generator}"))
}

fn fake_analyzer(dir: &Path) -> std::path::PathBuf {
    let fake = dir.join("fake-check.sh");
    std::fs::write(&fake, FAKE).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    fake
}

#[test]
fn catches_wrong_proofs_and_wrong_violations() {
    let dir = tempfile::tempdir().unwrap();
    let fake = fake_analyzer(dir.path());
    let args = [
        "--generator",
        "own",
        "--count",
        "8",
        "--seed",
        "0",
        "-j",
        "2",
    ];
    // Some assertions fail natively: proving all of them is wrong.
    let run = soundness(&args, Some((&fake, "proved")));
    assert_eq!(run.exit, 1, "{}", run.stderr);
    assert!(count(&run, "own", "wrong") > 0);
    assert!(run.stderr.contains("proved, but an execution fails it"));
    // Most hold: a violation of each is wrong.
    let run = soundness(&args, Some((&fake, "violated")));
    assert_eq!(run.exit, 1, "{}", run.stderr);
    assert!(run.stderr.contains("violated, but no execution fails it"));
    // Unknown is never wrong.
    let run = soundness(&args, Some((&fake, "unknown")));
    assert_eq!(run.exit, 0, "{}", run.stderr);
    assert_eq!(count(&run, "own", "wrong"), 0);
    assert!(count(&run, "own", "assertions") >= 8);
}

/// The CI slice: every verdict of the analyzer on these programs is checked. The own
/// generator's seeds 0 to 15 once held wrong verdicts (error calls through a pointer or
/// deleted by -O2, violations confirmed by reaching another error site).
#[test]
fn ci_slice_has_no_wrong_verdict() {
    let mut violated = 0;
    for (generator, seed) in [("own", "0"), ("csmith", "0")] {
        let run = soundness(
            &[
                "--generator",
                generator,
                "--count",
                "16",
                "--seed",
                seed,
                "-j",
                "2",
                "--timeout",
                "4",
            ],
            None,
        );
        assert_eq!(run.exit, 0, "wrong verdicts:\n{}", run.stderr);
        assert_eq!(count(&run, generator, "wrong"), 0);
        assert_eq!(
            count(&run, generator, "harness_errors"),
            0,
            "{}",
            run.stderr
        );
        // Meaningful: the analyzer proves assertions, and the oracle accepts most programs.
        assert!(count(&run, generator, "proved") > 0, "{}", run.stderr);
        assert!(count(&run, generator, "rejected") <= 6, "{}", run.stderr);
        violated += count(&run, generator, "violated");
    }
    // ... and refutes some (summed over both generators: how many of csmith's violations
    // are confirmed within the budget depends on the machine's load).
    assert!(violated > 0, "no violated verdict was judged");
}

/// The memory generator: its programs compile, the oracle (with the address
/// sanitizer) accepts them as free of undefined behaviour, and the analyzer's verdicts on
/// arrays, structs, pointers and heap buffers are all right on a fixed slice of seeds.
#[test]
fn memory_programs_are_ub_free_and_judged_right() {
    let run = soundness(
        &[
            "--generator",
            "memory",
            "--count",
            "5",
            "--seed",
            "0",
            "-j",
            "2",
            "--timeout",
            "2",
        ],
        None,
    );
    assert_eq!(run.exit, 0, "wrong verdicts:\n{}", run.stderr);
    assert_eq!(count(&run, "memory", "wrong"), 0);
    assert_eq!(count(&run, "memory", "harness_errors"), 0, "{}", run.stderr);
    // (No bound on `analyzer_failed`: under heavy load a run can overrun the harness's
    // wall-clock limit; that is a failure to report, not a wrong verdict.)
    // UB-free by construction: the sanitizers reject none of them.
    assert_eq!(count(&run, "memory", "rejected"), 0, "{}", run.stderr);
    assert!(count(&run, "memory", "assertions") >= 10, "{}", run.stderr);
    assert!(count(&run, "memory", "proved") > 0, "{}", run.stderr);
}

/// The oracle of the memory generator runs under the address sanitizer: a fake analyzer
/// that proves everything is caught on memory programs too.
#[test]
fn memory_programs_catch_wrong_proofs() {
    let dir = tempfile::tempdir().unwrap();
    let fake = fake_analyzer(dir.path());
    let args = [
        "--generator",
        "memory",
        "--count",
        "6",
        "--seed",
        "0",
        "-j",
        "2",
    ];
    let run = soundness(&args, Some((&fake, "proved")));
    assert_eq!(run.exit, 1, "{}", run.stderr);
    assert!(count(&run, "memory", "wrong") > 0);
}
