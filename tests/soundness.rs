//! The differential soundness harness, through the real binary: a fixed slice of
//! seeds against the analyzer (any wrong verdict fails the test), and fake analyzers that
//! answer `proved`, `violated`, `unknown` or `holds if P` on every assertion, or one
//! verdict on a memory check of every line, so that the harness is seen to catch wrong
//! verdicts (a harness that cannot fail would prove nothing).
//!
//! Needs clang-19 and csmith (`scripts/setup`).

use serde_json::Value;
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_polyfocus");

/// A fake `polyfocus check` (`$2` is the program). Without `$MEMKIND`: one check per
/// assertion line (the harness writes them unindented), each with the verdict `$VERDICT`,
/// or, for `$VERDICT` `holds-if-true`, `holds if 1` on the function around it, and for
/// `holds-if-entry`, `holds if COND` on an assertion of COND that is the first line of
/// its function (COND then speaks of the arguments at the entry: a right precondition)
/// and `holds if 0` on the others (vacuous, right too). With `$MEMKIND`: one check of that
/// kind on every line of the program, with the verdict `$VERDICT`, and no assertion check.
const FAKE: &str = r#"#!/bin/sh
awk -v verdict="$VERDICT" -v memkind="$MEMKIND" -v file="$2" '
  function check(kind, v, extra) {
    printf "%s{\"kind\":\"%s\",\"function\":\"%s\",\"location\":\"%s:%d:1\",\"verdict\":\"%s\"%s}", (n++ ? "," : ""), kind, fn, file, NR, v, extra
  }
  BEGIN { printf "{\"checks\":[" ; n = 0; fn = "main" }
  /^[A-Za-z_].*\) \{$/ && match($0, /[A-Za-z_][A-Za-z0-9_]*\((int|void)/) {
    fn = substr($0, RSTART, RLENGTH); sub(/\(.*/, "", fn); entry = NR
    if (memkind == "") next
  }
  memkind != "" { check(memkind, verdict, ""); next }
  /^(if \(!\(|__VERIFIER_assert\(|assert\()/ {
    if (verdict == "holds-if-true") { check("assert", "holds if", ",\"precondition\":\"1\""); next }
    if (verdict == "holds-if-entry") {
      cond = "0"
      if (NR == entry + 1) {
        cond = $0
        if (sub(/^if \(!\(/, "", cond)) sub(/\)\) [a-z_]+\(\);$/, "", cond)
        else { sub(/^[A-Za-z_]+\(/, "", cond); sub(/\);$/, "", cond) }
      }
      check("assert", "holds if", ",\"precondition\":\"" cond "\""); next
    }
    check("assert", verdict, "")
  }
  END { print "]}" }' "$2"
"#;

struct Run {
    exit: i32,
    summary: Vec<Value>,
    stderr: String,
}

/// `--generator GENERATOR --count COUNT --seed SEED -j 2`, and `--timeout TIMEOUT` unless
/// it is 0.
fn slice(generator: &str, count: u32, seed: &str, timeout: u32) -> Vec<String> {
    let mut args: Vec<String> = ["--generator", generator, "--seed", seed, "-j", "2"]
        .map(str::to_string)
        .to_vec();
    args.extend(["--count".to_string(), count.to_string()]);
    if timeout > 0 {
        args.extend(["--timeout".to_string(), timeout.to_string()]);
    }
    args
}

fn soundness(args: &[String], analyzer: Option<(&Path, &str)>) -> Run {
    soundness_with(args, analyzer, None)
}

/// [`soundness`], the fake answering on checks of `memkind` when given.
fn soundness_with(args: &[String], analyzer: Option<(&Path, &str)>, memkind: Option<&str>) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("summary.json");
    let mut command = Command::new(BIN);
    command.arg("soundness").args(args).arg("--json").arg(&json);
    if let Some((fake, verdict)) = analyzer {
        command.arg("--analyzer").arg(fake).env("VERDICT", verdict);
    }
    command.env("MEMKIND", memkind.unwrap_or(""));
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
    let args = slice("own", 8, "0", 0);
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
        let run = soundness(&slice(generator, 16, seed, 4), None);
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
    let run = soundness(&slice("memory", 5, "0", 2), None);
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
    let args = slice("memory", 6, "0", 0);
    let run = soundness(&args, Some((&fake, "proved")));
    assert_eq!(run.exit, 1, "{}", run.stderr);
    assert!(count(&run, "memory", "wrong") > 0);
}

/// The calls generator: its programs are UB-free, and the analyzer's verdicts on
/// assertions inside helpers called from several sites are right on a fixed slice.
#[test]
fn calls_programs_are_ub_free_and_judged_right() {
    let run = soundness(&slice("calls", 6, "0", 2), None);
    assert_eq!(run.exit, 0, "wrong verdicts:\n{}", run.stderr);
    assert_eq!(count(&run, "calls", "wrong"), 0);
    assert_eq!(count(&run, "calls", "harness_errors"), 0, "{}", run.stderr);
    assert_eq!(count(&run, "calls", "rejected"), 0, "{}", run.stderr);
    assert!(count(&run, "calls", "assertions") >= 12, "{}", run.stderr);
    assert!(count(&run, "calls", "proved") > 0, "{}", run.stderr);
}

/// `holds if P` is judged by evaluating `P` at the entry of its function natively: `holds
/// if 1` on an assertion that fails is caught, a right precondition is not.
#[test]
fn catches_wrong_preconditions() {
    let dir = tempfile::tempdir().unwrap();
    let fake = fake_analyzer(dir.path());
    let args = slice("calls", 8, "0", 0);
    let run = soundness(&args, Some((&fake, "holds-if-true")));
    assert_eq!(run.exit, 1, "{}", run.stderr);
    assert!(count(&run, "calls", "wrong") > 0);
    assert!(run
        .stderr
        .contains("holds if `1`, but an execution whose entry satisfies it fails it"));
    let run = soundness(&args, Some((&fake, "holds-if-entry")));
    assert_eq!(run.exit, 0, "{}", run.stderr);
    assert_eq!(count(&run, "calls", "wrong"), 0);
    assert_eq!(count(&run, "calls", "harness_errors"), 0, "{}", run.stderr);
    assert_eq!(count(&run, "calls", "holds_if_unjudged"), 0);
    assert!(count(&run, "calls", "holds_if") >= 8, "{}", run.stderr);
}

/// Programs with memory errors: the oracle records the address sanitizer's first error of
/// each execution, and checks of memory kinds are judged against them; without such checks
/// the errors are counted as not checked, and nothing is wrong.
#[test]
fn memory_errors_are_judged_by_the_address_sanitizer() {
    let dir = tempfile::tempdir().unwrap();
    let fake = fake_analyzer(dir.path());
    let args = slice("memory-errors", 6, "0", 0);
    let generator = "memory-errors";
    // No memory check at all: the errors are not checked, nothing is wrong.
    let run = soundness(&args, Some((&fake, "unknown")));
    assert_eq!(run.exit, 0, "{}", run.stderr);
    assert_eq!(count(&run, generator, "wrong"), 0);
    assert_eq!(count(&run, generator, "rejected"), 0, "{}", run.stderr);
    assert_eq!(
        count(&run, generator, "harness_errors"),
        0,
        "{}",
        run.stderr
    );
    assert!(
        count(&run, generator, "memory_unchecked") > 0,
        "{}",
        run.stderr
    );
    assert_eq!(count(&run, generator, "memory_checks"), 0);
    // `bounds` proved on every line: wrong where an access overruns its object.
    let run = soundness_with(&args, Some((&fake, "proved")), Some("bounds"));
    assert_eq!(run.exit, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("`bounds` proved, but an execution has a"),
        "{}",
        run.stderr
    );
    // `free` violated on every line: wrong where no free goes wrong.
    let run = soundness_with(&args, Some((&fake, "violated")), Some("free"));
    assert_eq!(run.exit, 1, "{}", run.stderr);
    assert!(run
        .stderr
        .contains("`free` violated, but no execution has such a memory error there"));
    // Unknown is never wrong.
    let run = soundness_with(&args, Some((&fake, "unknown")), Some("null"));
    assert_eq!(run.exit, 0, "{}", run.stderr);
    assert!(count(&run, generator, "memory_checks") > 0);
}
