//! Memory-safety checks through pointers (`--checks memory`) on `tests/programs/memory`:
//! bounds of every load, store, `memcpy` and `memset` through a described pointer, use
//! after `free`, and invalid `free`s. Each line carries an annotation of kind `memory`
//! (`tests/common/annotations.rs`) that names no run. The program is also run natively
//! under the address sanitizer, one run per scenario: the lines it reports are exactly the
//! `fails` lines.

mod common;

use std::collections::BTreeSet;

use common::annotations::{annotated, Fact};
use common::{check_json, program};

const PROGRAM: &str = "memory/memory.c";

/// The scenarios of `memory.c`: the two inputs `main` reads (scenario, size).
const SCENARIOS: [&str; 9] = [
    "0 5", "1 5", "2 5", "3 16", "4 17", "5 1", "6 1", "7 1", "8 1",
];

#[test]
fn memory_checks_agree_with_the_annotations() {
    let path = program(PROGRAM);
    let args = ["--checks", "memory", "--timeout", "60"];
    let report = check_json(&path, &args);
    let annotated = annotated(&path);
    assert!(annotated.of_kind("memory").count() > 0, "no annotation");
    annotated.assert_runs_known(&[]);
    let found = annotated.disagreements(&report, &format!("{args:?}"));
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// Without `--checks memory` no memory check is reported.
#[test]
fn memory_checks_only_when_selected() {
    let report = check_json(&program(PROGRAM), &["--timeout", "60"]);
    let memory = report["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["kind"] == "memory")
        .count();
    assert_eq!(memory, 0, "{report}");
}

#[test]
fn the_failing_lines_fail_under_the_address_sanitizer() {
    let dir = tempfile::tempdir().unwrap();
    let harness = dir.path().join("inputs.c");
    std::fs::write(
        &harness,
        "#include <stdlib.h>\n#include <stdio.h>\n\
         static int k; static long long v[2];\n\
         int __VERIFIER_nondet_int(void) { if (!k) { char *e = getenv(\"IN\"); \
         sscanf(e, \"%lld %lld\", &v[0], &v[1]); } return (int)v[k++ % 2]; }\n",
    )
    .unwrap();
    let exe = dir.path().join("prog");
    let out = std::process::Command::new(polyfocus::frontend::clang_program())
        .args(["-g", "-O0", "-w", "-fsanitize=address"])
        .arg(program(PROGRAM))
        .arg(&harness)
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("clang runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut reported = BTreeSet::new();
    for input in SCENARIOS {
        let run = std::process::Command::new(&exe)
            .env("IN", input)
            .env("ASAN_OPTIONS", "detect_leaks=0")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        if !stderr.contains("ERROR: AddressSanitizer") {
            continue;
        }
        // The first frame in the program is the access or the `free`.
        let line = stderr
            .split("memory.c:")
            .nth(1)
            .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|n| n.parse::<u32>().ok());
        reported.insert(line.unwrap_or_else(|| panic!("input {input}: {stderr}")));
    }
    let failing: BTreeSet<u32> = annotated(&program(PROGRAM))
        .of_kind("memory")
        .filter(|a| a.claim.fact == Fact::Fails)
        .map(|a| a.line)
        .collect();
    assert_eq!(reported, failing);
}

/// A length loop over a buffer whose terminator the program stores at `size - 1`: the read
/// `text[n]` stays inside the buffer only because the loop stops at that zero, which the
/// segment of zero bytes and the selects that update it carry to the loop head.
#[test]
fn a_length_loop_stops_at_the_stored_terminator() {
    let report = check_json(
        &program("memory/terminated.c"),
        &["--checks", "memory", "--timeout", "60"],
    );
    let checks: Vec<&serde_json::Value> = report["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["kind"] == "memory")
        .collect();
    assert_eq!(checks.len(), 3, "{report}");
    assert!(checks.iter().all(|c| c["verdict"] == "proved"), "{report}");
}
