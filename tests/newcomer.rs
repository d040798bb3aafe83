//! A newcomer's first programs: a ring buffer, a clamp, sums, struct counters,
//! `main(argc, argv)` and a zeroed buffer, checked with the default configuration (the run
//! `default` of the annotations, `tests/common/annotations.rs`).
//!
//! A `violated` verdict is only given after a native replay reached the assertion, so a
//! `fails, violated` annotation is checked against the real program.

mod common;

use common::annotations::annotated;
use std::path::PathBuf;

fn check(name: &str) {
    let path: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "tests",
        "programs",
        "newcomer",
        name,
    ]
    .iter()
    .collect();
    let report = common::check_json(&path, &["--timeout", "30"]);
    let program = annotated(&path);
    assert!(
        !program.annotations.is_empty(),
        "{name} has no annotated assertion"
    );
    program.assert_runs_known(&["default"]);
    let failures = program.disagreements(&report, "default");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn ring_buffer() {
    check("ring_buffer.c");
}

#[test]
fn clamp() {
    check("clamp.c");
}

#[test]
fn sums() {
    check("sums.c");
}

#[test]
fn struct_counters() {
    check("struct_counters.c");
}

#[test]
fn argc_argv() {
    check("argc_argv.c");
}

#[test]
fn zeroed_buffer() {
    check("zeroed_buffer.c");
}
