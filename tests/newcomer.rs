//! A newcomer's first programs (issue 13): a ring buffer, a clamp, sums, struct counters,
//! `main(argc, argv)` and a zeroed buffer, checked with the default configuration.
//!
//! Each assertion line carries an annotation, and the default configuration must give exactly
//! that answer: `// holds; proved by: focus-poly` (proved), `// fails` (violated, with a
//! counterexample replayed natively), or `// unknown because: TEXT` (unknown, and the reason
//! names the real cause: it contains TEXT). A `violated` verdict is only given after a native
//! replay reached the assertion, so a `fails` annotation is checked against the real program.

mod common;

use common::{annotations, Expect};
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
    let expected = annotations(&path);
    assert!(!expected.is_empty(), "{name} has no annotated assertion");
    let mut failures = Vec::new();
    for (line, expect) in &expected {
        let Some(check) = common::check_at_line(&report, *line) else {
            failures.push(format!("{name}:{line}: no check in the report"));
            continue;
        };
        let verdict = check["verdict"].as_str().unwrap_or("?");
        let reason = check["reason"].as_str().unwrap_or("");
        let ok = match expect {
            Expect::Proved => verdict == "proved",
            Expect::Violated => verdict == "violated",
            // `a|b`: either cause (a time budget may end as `timeout` or `budget: ...`).
            Expect::Unknown { cause } => {
                verdict == "unknown" && cause.split('|').any(|c| reason.contains(c))
            }
        };
        if !ok {
            failures.push(format!("{name}:{line}: got {verdict} ({reason})"));
        }
    }
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
