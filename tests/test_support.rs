//! The helpers of `tests/common` themselves: the annotation format (every test program
//! parses, malformed annotations are rejected, a report is compared as the format's doc
//! says) and the benchmark sets that CI requires.

mod common;

use common::annotations::{parse_annotation, parse_program, Answer, Claim, Fact, Verdict, ASSERT};
use common::shared::SHARED_DIR_ENV;
use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;

/// The kinds of check the report names.
const KINDS: [&str; 6] = [ASSERT, "overflow", "div", "shift", "bounds", "memory"];

#[test]
fn every_test_program_parses() {
    let files = common::c_programs(&common::program(""));
    let mut n_annotations = 0;
    for path in &files {
        let program = common::annotations::annotated(path);
        for a in &program.annotations {
            assert!(
                KINDS.contains(&a.claim.kind.as_str()),
                "{}:{}: no check kind `{}`",
                path.display(),
                a.line,
                a.claim.kind
            );
        }
        n_annotations += program.annotations.len();
    }
    assert!(files.len() >= 100, "{} programs", files.len());
    assert!(n_annotations >= 250, "{n_annotations} annotations");
}

fn verdict(answer: Answer, runs: Option<&[&str]>) -> Verdict {
    Verdict {
        answer,
        runs: runs.map(|r| r.iter().map(|s| s.to_string()).collect()),
    }
}

fn claim(kind: &str, fact: Fact, verdicts: Vec<Verdict>) -> Claim {
    Claim {
        kind: kind.to_string(),
        fact,
        verdicts,
    }
}

#[test]
fn annotations_read_as_documented() {
    assert_eq!(
        parse_annotation("fails"),
        Ok(vec![claim(ASSERT, Fact::Fails, vec![])])
    );
    assert_eq!(
        parse_annotation("holds, proved in classic-poly focus-poly (a note, with commas)"),
        Ok(vec![claim(
            ASSERT,
            Fact::Holds,
            vec![verdict(
                Answer::Proved,
                Some(&["classic-poly", "focus-poly"])
            )]
        )])
    );
    assert_eq!(
        parse_annotation("holds, proved in on, unknown in off"),
        Ok(vec![claim(
            ASSERT,
            Fact::Holds,
            vec![
                verdict(Answer::Proved, Some(&["on"])),
                verdict(Answer::Unknown { causes: vec![] }, Some(&["off"]))
            ]
        )])
    );
    assert_eq!(
        parse_annotation("holds, unknown because budget|timeout"),
        Ok(vec![claim(
            ASSERT,
            Fact::Holds,
            vec![verdict(
                Answer::Unknown {
                    causes: vec!["budget".into(), "timeout".into()]
                },
                None
            )]
        )])
    );
    assert_eq!(
        parse_annotation("div: holds, proved; overflow: fails, violated"),
        Ok(vec![
            claim("div", Fact::Holds, vec![verdict(Answer::Proved, None)]),
            claim(
                "overflow",
                Fact::Fails,
                vec![verdict(Answer::Violated, None)]
            ),
        ])
    );
    assert_eq!(
        parse_annotation("bounds: no check (through a pointer: no check)"),
        Ok(vec![claim("bounds", Fact::NoCheck, vec![])])
    );
}

#[test]
fn malformed_annotations_are_rejected() {
    for text in [
        "",
        "hold",
        "proved",
        "holds; proved by: all",
        "holds, violated",
        "fails, proved",
        "no check, unknown",
        "holds, proved, unknown",
        "holds, proved in a b, unknown in b",
        "holds, proved because x",
        "holds, proved in ",
        "div: holds; div: fails",
        "holds: every entry is at most 7",
    ] {
        assert!(
            parse_annotation(text).is_err(),
            "`{text}` parsed: {:?}",
            parse_annotation(text)
        );
    }
    let err = parse_program(Path::new("p.c"), "int x;\nint y; // sometimes\n")
        .expect_err("a malformed annotation");
    assert!(err.starts_with("2: "), "{err}");
}

#[test]
fn whole_line_comments_are_prose_or_directives() {
    let program = parse_program(
        Path::new("p.c"),
        "// entry: f\n// native-with: other.c\n// Prose: not a directive.\n\
         int f(void) { return 0; } // holds, proved\n",
    )
    .expect("parses");
    assert_eq!(
        program.directives,
        vec![
            ("entry".to_string(), "f".to_string()),
            ("native-with".to_string(), "other.c".to_string())
        ]
    );
    assert_eq!(program.annotations.len(), 1);
    assert_eq!(program.annotations[0].line, 4);
}

/// A report of one check on line 3 of kind `kind`.
fn report(kind: &str, verdict: &str, reason: &str, confirmed_by: Option<&str>) -> Value {
    let mut check = json!({
        "kind": kind,
        "location": "p.c:3:5",
        "verdict": verdict,
        "reason": reason,
    });
    if let Some(by) = confirmed_by {
        check["counterexample"] = json!({ "confirmed_by": by });
    }
    json!({ "checks": [check] })
}

/// The disagreements of the program `int x; // ANNOTATION` on line 3 with `report` in `run`.
fn disagreements(annotation: &str, report: &Value, run: &str) -> Vec<String> {
    parse_program(Path::new("p.c"), &format!("\n\nint x; // {annotation}\n"))
        .expect("parses")
        .disagreements(report, run)
}

#[test]
fn reports_are_compared_as_documented() {
    let proved = report(ASSERT, "proved", "", None);
    let unknown = report(ASSERT, "unknown", "budget: analysis", None);
    let replayed = report(ASSERT, "violated", "", Some("replayed natively: reached"));
    let unconfirmed = report(ASSERT, "violated", "", Some("bounded model checking"));
    let agree = |a: &str, r: &Value, run: &str| disagreements(a, r, run).is_empty();
    assert!(
        !agree("fails", &proved, "any"),
        "a proof of a failing assertion"
    );
    assert!(agree("fails", &unknown, "any"));
    assert!(
        !agree("holds", &replayed, "any"),
        "a refutation of a holding one"
    );
    assert!(agree("holds", &unknown, "any"));
    assert!(agree("holds, proved", &proved, "any"));
    assert!(!agree("holds, proved", &unknown, "any"));
    assert!(
        agree("holds, proved in a", &unknown, "b"),
        "a verdict of another run"
    );
    assert!(!agree("holds, proved in a", &unknown, "a"));
    assert!(agree("fails, violated", &replayed, "any"));
    assert!(
        !agree("fails, violated", &unconfirmed, "any"),
        "no native replay"
    );
    assert!(agree(
        "holds, unknown because timeout|budget",
        &unknown,
        "any"
    ));
    assert!(!agree("holds, unknown because timeout", &unknown, "any"));
    assert!(
        !agree("holds", &report("div", "proved", "", None), "any"),
        "no assertion"
    );
    assert!(agree("div: no check", &proved, "any"));
    assert!(!agree("assert: no check", &proved, "any"));
}

/// Run by `absent_shared_sets_fail_under_ci` in a process of its own, with the environment
/// it sets; alone, it asks for the sets the tests read as each of them does.
#[test]
fn probe_shared_sets() {
    for set in [common::SharedSet::Bench, common::SharedSet::Bench2] {
        if let Some(dir) = common::shared_bench_or_skip(set, "probe_shared_sets") {
            assert!(dir.join("MANIFEST.tsv").is_file(), "{}", dir.display());
        }
    }
}

/// Runs `probe_shared_sets` with the shared folder at `shared` and `CI` set or not: whether
/// it passed, and its standard error.
fn probe(shared: &Path, ci: bool) -> (bool, String) {
    let mut cmd = Command::new(std::env::current_exe().expect("the test binary"));
    cmd.args(["probe_shared_sets", "--exact", "--nocapture"])
        .env(SHARED_DIR_ENV, shared)
        .env_remove("CI");
    if ci {
        cmd.env("CI", "true");
    }
    let out = cmd.output().expect("the test binary runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

/// A test that needs a benchmark set says SKIPPED without it, fails without it under CI,
/// and runs with it.
#[test]
fn absent_shared_sets_fail_under_ci() {
    let empty = tempfile::tempdir().expect("temporary directory");
    let (passed, text) = probe(empty.path(), false);
    assert!(passed && text.contains("SKIPPED"), "{text}");
    let (passed, text) = probe(empty.path(), true);
    assert!(!passed && text.contains("CI must run it"), "{text}");
    let full = tempfile::tempdir().expect("temporary directory");
    for set in ["bench", "bench2"] {
        std::fs::create_dir(full.path().join(set)).expect("a set folder");
        std::fs::write(full.path().join(set).join("MANIFEST.tsv"), "").expect("a manifest");
    }
    let (passed, text) = probe(full.path(), true);
    assert!(passed && !text.contains("SKIPPED"), "{text}");
}
