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

/// The leak checks (`valid-memtrack`) of `--checks memory`, on `tests/programs/memory/leaks`.
fn leaks_report(name: &str) -> (std::path::PathBuf, serde_json::Value) {
    let path = program(&format!("memory/leaks/{name}"));
    let report = check_json(&path, &["--checks", "memory", "--timeout", "60"]);
    (path, report)
}

/// The report's memory checks of subproperty `valid-memtrack`.
fn leak_checks(report: &serde_json::Value) -> Vec<&serde_json::Value> {
    report["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["subproperty"] == "valid-memtrack")
        .collect()
}

/// An object freed on every path (`exit` included) is proved; one lost on some input is
/// violated with a native replay in which LeakSanitizer reports the object allocated there.
#[test]
fn leak_checks_prove_freed_objects_and_replay_lost_ones() {
    let (path, report) = leaks_report("freed_or_leaked.c");
    let found = annotated(&path).disagreements(&report, "leaks");
    assert!(found.is_empty(), "{}\n{report}", found.join("\n"));
    assert_eq!(leak_checks(&report).len(), 2, "{report}");
    let lost = common::check_at_line(&report, 10).expect("a leak check at line 10");
    assert!(lost["counterexample"].is_object(), "{lost}");
    assert_eq!(report["leaks"]["covered"], true, "{report}");
}

/// An allocation in a loop, freed in each iteration: proved or unknown, never violated.
#[test]
fn an_allocation_in_a_loop_is_not_violated_without_a_leak() {
    let (path, report) = leaks_report("loop.c");
    let found = annotated(&path).disagreements(&report, "leaks");
    assert!(found.is_empty(), "{}\n{report}", found.join("\n"));
    let leaks = leak_checks(&report);
    assert_eq!(leaks.len(), 1, "{report}");
    assert_ne!(leaks[0]["verdict"], "violated", "{report}");
}

/// An object code without a body returns: its leak check stays unknown, with the reason.
#[test]
fn an_object_of_unknown_code_is_not_followed() {
    let (_, report) = leaks_report("unknown_code.c");
    let leaks = leak_checks(&report);
    assert_eq!(leaks.len(), 1, "{report}");
    assert_eq!(common::line_of(leaks[0]), Some(9), "{report}");
    assert_eq!(leaks[0]["verdict"], "unknown", "{report}");
    let reason = leaks[0]["reason"].as_str().unwrap_or("");
    assert!(reason.contains("`make_buffer`"), "{reason}");
}

/// A program without objects of the heap has no leak check, and the report says that the
/// leak checks (none) cover it: nothing can leak, and `valid-memsafety` is `TRUE` once
/// every other memory check is proved.
#[test]
fn a_program_of_locals_only_has_its_leaks_covered() {
    let (_, report) = leaks_report("locals_only.c");
    assert!(leak_checks(&report).is_empty(), "{report}");
    assert_eq!(report["leaks"]["covered"], true, "{report}");
    assert_eq!(report["verdict"], "true", "{report}");
    let text = serde_json::to_string(&report).unwrap();
    assert_eq!(
        polyfocus::bench::memsafety::answer(&text),
        Some(polyfocus::bench::memsafety::MemSafetyAnswer::True)
    );
}

/// A function analyzed apart from `main` (here: recursive) may allocate what no leak check
/// of `main` follows: the coverage is partial, with the reason.
#[test]
fn a_function_analyzed_apart_makes_the_coverage_partial() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("apart.c");
    std::fs::write(
        &path,
        "#include <stdlib.h>\n\
         extern int __VERIFIER_nondet_int(void);\n\
         int *chain(int n) { if (n <= 0) return malloc(4); return chain(n - 1); }\n\
         int main(void) { int *p = chain(__VERIFIER_nondet_int() % 4); free(p); return 0; }\n",
    )
    .unwrap();
    let report = check_json(&path, &["--checks", "memory", "--timeout", "30"]);
    assert_eq!(report["leaks"]["covered"], false, "{report}");
    assert!(report["leaks"]["reason"].is_string(), "{report}");
}

/// The checks of `report` on the line of `source` marked `/* MARK`.
fn checks_on_line<'r>(
    report: &'r serde_json::Value,
    source: &str,
    mark: &str,
) -> impl Iterator<Item = &'r serde_json::Value> {
    let line = (1..)
        .zip(source.lines())
        .find(|(_, l)| l.contains(&format!("/* {mark}")))
        .map(|(n, _)| n)
        .unwrap_or_else(|| panic!("no line marked {mark}"));
    report["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(move |c| common::line_of(c) == Some(line))
}

/// The `NullDeref` check of the access on the line marked `/* MARK`, and the assertion
/// there if any, of `tests/programs/memory/null_params.c` (a library: its pointer
/// parameters may be `NULL`).
fn null_checks(report: &serde_json::Value, source: &str, mark: &str) -> Vec<String> {
    checks_on_line(report, source, mark)
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
    // A caller may pass NULL: the dereference holds if it does not, the function's
    // contract on that parameter.
    let unguarded: Vec<&serde_json::Value> = checks_on_line(&report, &source, "unguarded read")
        .filter(|c| {
            c["error"]
                .as_str()
                .is_some_and(|e| e.contains("null pointer"))
        })
        .collect();
    assert_eq!(unguarded.len(), 1, "{report}");
    assert_eq!(unguarded[0]["verdict"], "holds if", "{report}");
    assert_eq!(unguarded[0]["precondition"], "src != NULL", "{report}");
    // `n <= 0` is left out: under it the read never runs.
    let counted = null_checks(&report, &source, "read when counted");
    assert_eq!(counted, ["memory \"holds if\""], "{report}");
    let precondition = report["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["verdict"] == "holds if" && c["function"] == "counted")
        .map(|c| c["precondition"].clone());
    assert_eq!(
        precondition,
        Some(serde_json::json!("p != NULL")),
        "{report}"
    );
}

/// The verdict and precondition of each "outside the object" check on the line marked
/// `mark`.
fn outside_checks(report: &serde_json::Value, source: &str, mark: &str) -> Vec<(String, String)> {
    checks_on_line(report, source, mark)
        .filter(|c| {
            c["error"]
                .as_str()
                .is_some_and(|e| e.contains("outside the object"))
        })
        .map(|c| {
            (
                c["verdict"].as_str().unwrap_or("?").to_string(),
                c["precondition"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// The object a pointer parameter points into has the size a caller gives it: a bounds
/// check through the parameter holds if that size covers the bytes the function reads or
/// writes (`size(p)`: the bytes from `p` to the end of its object).
#[test]
fn an_access_through_a_parameter_holds_if_its_object_is_large_enough() {
    let path = program("memory/param_sizes.c");
    let source = std::fs::read_to_string(&path).unwrap();
    let report = check_json(&path, &["--checks", "memory", "--timeout", "60"]);
    let bounds = |mark: &str| outside_checks(&report, &source, mark);
    let holds_if = |p: &str| vec![("holds if".to_string(), p.to_string())];
    assert_eq!(
        bounds("read of a counted array"),
        holds_if("4*n <= size(a)"),
        "{report}"
    );
    assert_eq!(
        bounds("write of a counted buffer"),
        holds_if("len <= size(dst)"),
        "{report}"
    );
    assert_eq!(
        bounds("read of the second element"),
        holds_if("size(p) >= 8"),
        "{report}"
    );
}

/// A field read through a parameter compares the object's size with the field's end, so
/// that the attempt over intervals alone finds the size each field needs, however many
/// fields of one width the function reads.
#[test]
fn a_field_read_holds_if_the_object_reaches_past_the_field_over_intervals() {
    let path = program("memory/param_sizes.c");
    let source = std::fs::read_to_string(&path).unwrap();
    let report = check_json(
        &path,
        &[
            "--checks",
            "memory",
            "--timeout",
            "60",
            "--entry",
            "setting",
            "-Z",
            "relational-preconditions=off",
        ],
    );
    for (mark, needed) in [
        ("read of the first field", "size(c) >= 4"),
        ("read of the second field", "size(c) >= 8"),
        ("read of the third field", "size(c) >= 16"),
    ] {
        let bounds = outside_checks(&report, &source, mark);
        assert_eq!(
            bounds,
            vec![("holds if".to_string(), needed.to_string())],
            "{mark}: {report}"
        );
    }
}

/// A length loop over a buffer whose terminator the program stores at `size - 1`: the read
/// `text[n]` stays inside the buffer only because the loop stops at that zero, which the
/// segment of zero bytes and the selects that update it carry to the loop head.
#[test]
fn a_length_loop_stops_at_the_stored_terminator() {
    // The read is proved by the last stage before the full search (template bounds): its
    // share counted in the whole budget, so that a loaded machine does not cut it.
    let report = check_json(
        &program("memory/terminated.c"),
        &[
            "--checks",
            "memory",
            "--timeout",
            "60",
            "-Z",
            "share-reference=60",
        ],
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

/// The verdicts of the bounds checks (accesses outside their object) on the line of `source`
/// marked `/* MARK`.
fn bounds_verdict(report: &serde_json::Value, source: &str, mark: &str) -> Vec<String> {
    checks_on_line(report, source, mark)
        .filter(|c| {
            c["error"]
                .as_str()
                .is_some_and(|e| e.contains("outside the object"))
        })
        .map(|c| c["verdict"].as_str().unwrap_or("?").to_string())
        .collect()
}

/// A replay passes a buffer of its own for each pointer parameter: an access past it, or
/// through a pointer read from its arbitrary words, is no counterexample (an access through
/// a parameter holds if the caller's object is large enough); an overflow of the function's
/// own local array is replayed, subscript and all (the replay's address sanitizer, not
/// UBSan's index check, stops it when `--checks bounds` is not selected), and, the function
/// being an entry, reported as the contract that excludes it.
#[test]
fn a_replay_buffer_too_small_is_no_counterexample() {
    let path = program("memory/caller_objects.c");
    let source = std::fs::read_to_string(&path).unwrap();
    let args = [
        "--checks",
        "memory",
        "--entry",
        "set_level,put,peek,fill",
        "--timeout",
        "60",
    ];
    let report = check_json(&path, &args);
    // The read of `k->out` holds if `size(k) >= 8`; the write through it is not described.
    for (mark, want) in [
        ("field of a large object", &["holds if"][..]),
        (
            "through a pointer read from the object",
            &["holds if", "unknown"],
        ),
        ("past the replay's buffer", &["holds if"]),
        ("past a local array", &["holds if"]),
    ] {
        assert_eq!(
            bounds_verdict(&report, &source, mark),
            want,
            "{mark}: {report}"
        );
    }
    let preconditions: Vec<&str> = report["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| {
            c["error"]
                .as_str()
                .is_some_and(|e| e.contains("outside the object"))
        })
        .filter_map(|c| c["precondition"].as_str())
        .collect();
    for p in ["size(s) >= 300004", "size(p) >= 4101", "i <= 3"] {
        assert!(preconditions.contains(&p), "{p}: {report}");
    }
    let replayed = report["functions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["function"] == "fill")
        .flat_map(|f| f["stages"].as_array().into_iter().flatten())
        .any(|s| s["detail"] == "counterexample confirmed");
    assert!(
        replayed,
        "the overflow of the local array is replayed: {report}"
    );
}

/// A dereference of an uninitialized pointer is violated with a replay (its native run,
/// uninitialized locals filled with a pattern that faults as an address, stops there under
/// the address sanitizer), in a 64-bit and a 32-bit build; a pointer assigned on every
/// path is not such a pointer.
#[test]
fn a_dereference_of_an_uninitialized_pointer_is_violated() {
    let path = program("memory/uninit_pointer.c");
    let source = std::fs::read_to_string(&path).unwrap();
    for model in [&[][..], &["--m32"][..]] {
        let mut args = vec!["--checks", "memory", "--timeout", "60"];
        args.extend_from_slice(model);
        let report = check_json(&path, &args);
        let on = |mark: &str| -> Vec<(String, String)> {
            checks_on_line(&report, &source, mark)
                .map(|c| {
                    (
                        c["error"].as_str().unwrap_or("?").to_string(),
                        c["verdict"].as_str().unwrap_or("?").to_string(),
                    )
                })
                .collect()
        };
        let walk = on("walk of the uninitialized pointer");
        assert_eq!(
            walk,
            [(
                "read of 1 byte through an uninitialized pointer".to_string(),
                "violated".to_string()
            )],
            "{model:?}: {report}"
        );
        let assigned = on("read through an assigned pointer");
        assert!(
            !assigned.is_empty() && assigned.iter().all(|(_, v)| v == "proved"),
            "{model:?}: {report}"
        );
    }
}

/// Pointers into two distinct allocated objects, both live and each pointing inside its
/// object, are unequal; the address of a freed object may be given again, so a comparison
/// with it proves nothing (natively the allocator may reuse it).
#[test]
fn pointers_into_two_live_objects_differ() {
    let path = program("memory/distinct_objects.c");
    let source = std::fs::read_to_string(&path).unwrap();
    let report = check_json(&path, &["--checks", "all", "--timeout", "60"]);
    let assertion = |mark: &str| -> Vec<String> {
        checks_on_line(&report, &source, mark)
            .filter(|c| c["kind"] == "assert")
            .map(|c| c["verdict"].as_str().unwrap_or("?").to_string())
            .collect()
    };
    assert_eq!(assertion("inside two live objects"), ["proved"], "{report}");
    assert_eq!(
        assertion("the address may be reused"),
        ["unknown"],
        "{report}"
    );
}

/// A pointer walk over an allocated array (a summary cell on the element grid, through
/// the walk's phi) that stops at an element equal to the last one stays inside: at the
/// last element both reads read the same element. Stopping at a value that may be absent
/// runs past the end, replayed.
#[test]
fn a_walk_to_the_last_value_stays_inside_and_one_to_an_absent_value_does_not() {
    let inside = program("memory/walk_to_last.c");
    let source = std::fs::read_to_string(&inside).unwrap();
    let report = check_json(&inside, &["--checks", "memory", "--timeout", "60"]);
    let mark = "read until the last element's value";
    assert_eq!(
        bounds_verdict(&report, &source, mark),
        ["proved", "proved"],
        "{report}"
    );
    let past = program("memory/walk_past_end.c");
    let source = std::fs::read_to_string(&past).unwrap();
    let report = check_json(&past, &["--checks", "memory", "--timeout", "60"]);
    let mark = "read until a value maybe absent";
    let verdicts = bounds_verdict(&report, &source, mark);
    assert!(verdicts.contains(&"violated".to_string()), "{report}");
}

/// A subscript reduced by a remainder whose divisor is the array's length: `i % n` with
/// `n >= 1` stays inside `a[0 .. n]` for `i >= 0`, but is negative for a negative `i`, and
/// that read is replayed out of bounds.
#[test]
fn a_remainder_by_the_length_keeps_a_non_negative_index_inside() {
    let path = program("memory/remainder_index.c");
    let source = std::fs::read_to_string(&path).unwrap();
    let report = check_json(&path, &["--checks", "memory", "--timeout", "60"]);
    assert_eq!(
        bounds_verdict(&report, &source, "non-negative dividend"),
        ["proved"],
        "{report}"
    );
    let either = bounds_verdict(&report, &source, "dividend of either sign");
    assert!(
        either == ["violated"] || either == ["unknown"],
        "{either:?}: {report}"
    );
}

/// In a module that starts a thread, the objects another thread may reach (globals, a
/// pointer parameter's object) keep their sizes, so accesses through them are checked, and
/// their contents between two points where the code synchronizes (a data race is undefined
/// behaviour): two reads of a global the thread writes are equal, unless a lock comes
/// between them, and a second `free` of an object is replayed.
#[test]
fn objects_another_thread_reaches_change_only_where_threads_synchronize() {
    let path = program("memory/async_objects.c");
    let source = std::fs::read_to_string(&path).unwrap();
    let report = check_json(&path, &["--checks", "all", "--timeout", "60"]);
    let verdicts = |mark: &str, error: &str| -> Vec<(String, String)> {
        checks_on_line(&report, &source, mark)
            .filter(|c| c["error"].as_str().is_some_and(|e| e.contains(error)))
            .map(|c| {
                (
                    c["verdict"].as_str().unwrap_or("?").to_string(),
                    c["precondition"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect()
    };
    let proved = vec![("proved".to_string(), String::new())];
    assert_eq!(
        verdicts("read through a parameter", "outside the object"),
        vec![("holds if".to_string(), "4*i + 4 <= size(a)".to_string())],
        "{report}"
    );
    assert_eq!(
        verdicts("read of a global array", "outside the object"),
        proved,
        "{report}"
    );
    assert_eq!(
        verdicts("read of a constant table", "outside the object"),
        proved,
        "{report}"
    );
    let assertion = |mark: &str| -> Vec<String> {
        checks_on_line(&report, &source, mark)
            .filter(|c| c["kind"] == "assert")
            .map(|c| c["verdict"].as_str().unwrap_or("?").to_string())
            .collect()
    };
    assert_eq!(
        assertion("two reads of a global"),
        vec!["proved".to_string()],
        "{report}"
    );
    assert_eq!(
        assertion("two reads with a lock between them"),
        vec!["unknown".to_string()],
        "{report}"
    );
    // `free` may synchronize with the thread, before its object is dead.
    assert_eq!(
        verdicts("a second free", "free"),
        vec![("violated".to_string(), String::new())],
        "{report}"
    );
}

/// A pointer local advanced by a helper through its address (`read_length(&ip, end)`)
/// holds pointers into `src`'s object only: its comparisons, whether the read through it
/// is through `NULL` and the helper's assertion on `*ip` (at its calls) are decided. A
/// helper that stores another pointer leaves the local arbitrary.
#[test]
fn a_pointer_local_a_helper_advances_keeps_its_object() {
    let path = program("memory/held_pointer.c");
    let source = std::fs::read_to_string(&path).unwrap();
    // Nothing inlined: the helpers stay calls, as large ones do in real code.
    let report = check_json(
        &path,
        &[
            "--checks",
            "all",
            "--timeout",
            "60",
            "-Z",
            "inline-program-limit=0",
            "-Z",
            "inline-leaf-limit=0",
        ],
    );
    let of_kind = |mark: &str, kind: &str, error: &str| -> Vec<String> {
        checks_on_line(&report, &source, mark)
            .filter(|c| c["kind"] == kind)
            .filter(|c| c["error"].as_str().unwrap_or("").contains(error))
            .map(|c| c["verdict"].as_str().unwrap_or("?").to_string())
            .collect()
    };
    let proved = vec!["proved".to_string()];
    assert_eq!(
        of_kind("comparison of the held pointer", "assert", ""),
        proved,
        "{report}"
    );
    assert_eq!(
        of_kind("helper's assertion", "assert", ""),
        proved,
        "{report}"
    );
    assert_eq!(
        of_kind("read through the held pointer", "memory", "null pointer"),
        proved,
        "{report}"
    );
    assert_eq!(
        of_kind("another object's pointer may be stored", "assert", ""),
        vec!["unknown".to_string()],
        "{report}"
    );
}
