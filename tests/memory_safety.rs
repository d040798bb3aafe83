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

/// The `NullDeref` check of the access on the line marked `/* MARK`, and the assertion
/// there if any, of `tests/programs/memory/null_params.c` (a library: its pointer
/// parameters may be `NULL`).
fn null_checks(report: &serde_json::Value, source: &str, mark: &str) -> Vec<String> {
    let line = (1..)
        .zip(source.lines())
        .find(|(_, l)| l.contains(&format!("/* {mark}")))
        .map(|(n, _)| n)
        .unwrap_or_else(|| panic!("no line marked {mark}"));
    report["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| common::line_of(c) == Some(line))
        .filter(|c| {
            c["kind"] == "assert"
                || c["error"]
                    .as_str()
                    .is_some_and(|e| e.contains("null pointer"))
        })
        .map(|c| format!("{} {}", c["kind"].as_str().unwrap_or("?"), c["verdict"]))
        .collect()
}

#[test]
fn a_test_against_null_decides_what_it_guards() {
    let path = program("memory/null_params.c");
    let source = std::fs::read_to_string(&path).unwrap();
    let report = check_json(&path, &["--checks", "all", "--timeout", "60"]);
    let proved = |mark: &str, kinds: &[&str]| {
        let found = null_checks(&report, &source, mark);
        let want: Vec<String> = kinds.iter().map(|k| format!("{k} \"proved\"")).collect();
        assert_eq!(found, want, "{mark}: {report}");
    };
    proved("assertion after the test", &["assert"]);
    proved("guarded read", &["memory"]);
    proved("read in a pointer loop", &["memory"]);
    proved("offset from a pointer tested", &["memory"]);
    // A caller may pass NULL: unknown (a replay passes a buffer), naming the parameter.
    let line = (1..)
        .zip(source.lines())
        .find(|(_, l)| l.contains("/* unguarded read"))
        .map(|(n, _)| n)
        .unwrap();
    let unguarded: Vec<&serde_json::Value> = report["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| common::line_of(c) == Some(line))
        .filter(|c| {
            c["error"]
                .as_str()
                .is_some_and(|e| e.contains("null pointer"))
        })
        .collect();
    assert_eq!(unguarded.len(), 1, "{report}");
    assert_eq!(unguarded[0]["verdict"], "unknown", "{report}");
    assert!(
        unguarded[0]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("`src`, which a caller may pass as NULL")),
        "{}",
        unguarded[0]
    );
}
