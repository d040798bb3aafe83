//! `holds if`: the preconditions of the checks of functions called with arbitrary arguments
//! (`tests/programs/preconditions/library.c`, a library without `main`), each judged
//! natively by a driver that calls the function with arguments on both sides of it.

mod common;

use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// The line of the check marked `/* MARK ...` in `path`.
fn line_of_mark(path: &Path, mark: &str) -> u32 {
    let text = std::fs::read_to_string(path).expect("the program");
    (1..)
        .zip(text.lines())
        .find(|(_, l)| l.contains(&format!("/* {mark}")))
        .map(|(n, _)| n)
        .unwrap_or_else(|| panic!("no line marked {mark}"))
}

fn report(path: &Path) -> Value {
    common::check_json(
        path,
        &[
            "--timeout",
            "20",
            "--entry",
            "scale,window,clamp,never,fill",
        ],
    )
}

/// Arguments on both sides of every bound the program compares with.
const VALUES: [&str; 13] = [
    "-2147483647 - 1",
    "-1000",
    "-5",
    "-1",
    "0",
    "1",
    "2",
    "4",
    "5",
    "6",
    "8",
    "100",
    "2147483647",
];

/// Calls `function(params...)` natively with every pair of `VALUES` (the first value
/// alone for one parameter) and evaluates `precondition` on them: `(failures where it
/// held, failures where it did not)` of the check at `line`.
fn judge(
    path: &Path,
    function: &str,
    params: &[&str],
    precondition: &str,
    line: u32,
) -> (usize, usize) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let mut calls = String::new();
    let seconds: Vec<&str> = if params.len() == 2 {
        VALUES.to_vec()
    } else {
        vec!["0"]
    };
    for a in VALUES {
        for b in &seconds {
            let decls = match params {
                [p] => format!("int {p} = {a};"),
                [p, q] => format!("int {p} = {a}, {q} = {b};"),
                _ => unreachable!("one or two parameters"),
            };
            calls.push_str(&format!(
                "  {{ {decls} int pre = ({precondition}); failed = 0; {function}({}); \
                 if (failed == {line}) {{ if (pre) in_p++; else out_p++; }} }}\n",
                params.join(", ")
            ));
        }
    }
    let source = format!(
        "#include <stdio.h>\nstatic int failed;\n#define check(c) do {{ if (!(c)) failed = __LINE__; }} while (0)\n\
         #include \"{}\"\nint main(void) {{\n  int in_p = 0, out_p = 0;\n{calls}  printf(\"%d %d\\n\", in_p, out_p);\n  return 0;\n}}\n",
        path.canonicalize().expect("the program").display()
    );
    let src = dir.path().join("driver.c");
    std::fs::write(&src, source).expect("the driver");
    let exe = dir.path().join("driver");
    let status = Command::new("clang-19")
        .args(["-w", "-O0", "-fwrapv"])
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .status()
        .expect("clang-19 runs");
    assert!(status.success(), "the driver builds");
    let out = Command::new(&exe).output().expect("the driver runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut counts = text
        .split_whitespace()
        .map(|n| n.parse::<usize>().expect("a count"));
    (counts.next().expect("in"), counts.next().expect("out"))
}

fn precondition(check: &Value) -> String {
    assert_eq!(check["verdict"], "holds if", "{check}");
    check["precondition"]
        .as_str()
        .expect("a precondition")
        .to_string()
}

#[test]
fn a_guard_on_one_parameter_is_its_precondition_and_holds_natively() {
    let path = common::program("preconditions/library.c");
    let report = report(&path);
    let line = line_of_mark(&path, "holds if acceleration");
    let check = common::check_at_line(&report, line).expect("the check");
    let p = precondition(check);
    assert_eq!(p, "acceleration >= 1");
    assert_eq!(check["function"], "scale");
    let (inside, outside) = judge(&path, "scale", &["acceleration", "n"], &p, line);
    assert_eq!(
        inside, 0,
        "an argument that satisfies `{p}` fails the check"
    );
    assert!(outside > 0, "no argument outside `{p}` fails the check");
}

#[test]
fn a_precondition_over_two_parameters_holds_natively() {
    let path = common::program("preconditions/library.c");
    let report = report(&path);
    let line = line_of_mark(&path, "holds if it takes both");
    let check = common::check_at_line(&report, line).expect("the check");
    let p = precondition(check);
    assert!(
        p.contains('n') && p.contains('m') && p.contains("||"),
        "{p}"
    );
    let (inside, outside) = judge(&path, "window", &["n", "m"], &p, line);
    assert_eq!(
        inside, 0,
        "an argument that satisfies `{p}` fails the check"
    );
    assert!(outside > 0, "no argument outside `{p}` fails the check");
}

/// `len <= 0` also keeps the check from failing, but only by returning before it: a
/// precondition under which the check never runs is no contract, and is left out.
#[test]
fn a_precondition_says_nothing_of_arguments_that_never_reach_the_check() {
    let path = common::program("preconditions/library.c");
    let report = report(&path);
    let line = line_of_mark(&path, "holds if k >= 1");
    let check = common::check_at_line(&report, line).expect("the check");
    let p = precondition(check);
    assert_eq!(p, "k >= 1");
    let (inside, outside) = judge(&path, "fill", &["len", "k"], &p, line);
    assert_eq!(
        inside, 0,
        "an argument that satisfies `{p}` fails the check"
    );
    assert!(outside > 0, "no argument outside `{p}` fails the check");
}

#[test]
fn a_check_that_holds_for_every_argument_stays_proved_and_one_that_never_does_violated() {
    let path = common::program("preconditions/library.c");
    let report = report(&path);
    assert_eq!(
        common::verdict_at(&report, line_of_mark(&path, "proved")),
        "proved"
    );
    let never = common::check_at_line(&report, line_of_mark(&path, "violated")).expect("the check");
    assert_eq!(never["verdict"], "violated", "{never}");
    assert!(never["counterexample"]["confirmed_by"]
        .as_str()
        .is_some_and(|c| c.contains("replayed")));
    assert_eq!(report["summary"]["holds_if"], 3, "{}", report["summary"]);
}

#[test]
fn holds_if_is_in_text_and_sarif_and_does_not_fail_a_run_with_fail_on_false() {
    let path = common::program("preconditions/library.c");
    let run = |format: &str, fail_on: &str| {
        Command::new(env!("CARGO_BIN_EXE_polyfocus"))
            .args([
                "check",
                "--timeout",
                "20",
                "--entry",
                "scale,window",
                "--format",
                format,
            ])
            .args(["--fail-on", fail_on])
            .arg(&path)
            .output()
            .expect("polyfocus runs")
    };
    let text = run("text", "unknown");
    let out = String::from_utf8_lossy(&text.stdout);
    assert!(out.contains("holds if acceleration >= 1 [scale]"), "{out}");
    assert!(out.contains("2 holds if"), "{out}");
    // Not proved for every argument: like unknown for the exit code.
    assert_eq!(text.status.code(), Some(2), "{out}");
    let sarif = run("sarif", "false");
    assert_eq!(sarif.status.code(), Some(0));
    let log: Value = serde_json::from_slice(&sarif.stdout).expect("SARIF");
    let results = log["runs"][0]["results"].as_array().expect("results");
    let scale = results
        .iter()
        .find(|r| r["properties"]["precondition"] == "acceleration >= 1")
        .unwrap_or_else(|| panic!("no result with the precondition: {log}"));
    assert_eq!(scale["level"], "note");
}

/// A relation between two parameters is found over polyhedra, after intervals, and holds
/// natively; with that attempt switched off (`-Z relational-preconditions=off`), the check
/// has no precondition (the entry's arbitrary arguments violate it).
#[test]
fn a_relation_between_parameters_needs_the_attempt_over_polyhedra() {
    let path = common::program("preconditions/relation.c");
    let line = line_of_mark(&path, "holds if n and m differ");
    let args = ["--timeout", "20", "--entry", "distinct"];
    let report = common::check_json(&path, &args);
    let check = common::check_at_line(&report, line).expect("the check");
    let p = precondition(check);
    assert!(p.contains('n') && p.contains('m'), "{p}");
    let (inside, outside) = judge(&path, "distinct", &["n", "m"], &p, line);
    assert_eq!(
        inside, 0,
        "an argument that satisfies `{p}` fails the check"
    );
    assert!(outside > 0, "no argument outside `{p}` fails the check");
    let off = common::check_json(
        &path,
        &[&args[..], &["-Z", "relational-preconditions=off"]].concat(),
    );
    let check = common::check_at_line(&off, line).expect("the check");
    assert_eq!(check["verdict"], "violated", "{check}");
}

/// The verdict and precondition of every check of a report, by location and error.
fn holds_if_by_check(report: &Value) -> Vec<(String, String, String, String)> {
    let mut out: Vec<_> = report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .map(|c| {
            let text = |k: &str| c[k].as_str().unwrap_or_default().to_string();
            (
                text("location"),
                text("error"),
                text("verdict"),
                text("precondition"),
            )
        })
        .collect();
    out.sort();
    out
}

/// A precondition rests on the inference's complete run; analyzing the function again with
/// each of its disjuncts assumed at the entry (`-Z recheck-preconditions`), a derivation of
/// its own, keeps every one, with every check kind on.
#[test]
fn every_inferred_precondition_survives_a_second_analysis_under_it() {
    for (program, entries) in [
        ("preconditions/library.c", "scale,window,clamp,never,fill"),
        ("preconditions/relation.c", "distinct"),
    ] {
        let path = common::program(program);
        let args = ["--timeout", "20", "--checks", "all", "--entry", entries];
        let inferred = holds_if_by_check(&common::check_json(&path, &args));
        let rechecked = holds_if_by_check(&common::check_json(
            &path,
            &[&args[..], &["-Z", "recheck-preconditions=on"]].concat(),
        ));
        assert!(
            inferred.iter().any(|c| c.2 == "holds if"),
            "{program}: no precondition to recheck"
        );
        assert_eq!(inferred, rechecked, "{program}");
    }
}

/// An object's size is observable only by an access outside it: a precondition that bounds
/// it from above (`size(ip) <= 7`, under which the read before the check fails) says only
/// "stop before the check", and is left out; the read's own `size(ip) >= 8` stays, and the
/// check holds if the pointer read is not NULL, a precondition over the bytes at `ip`.
#[test]
fn an_object_too_small_is_no_precondition_of_a_check_after_its_read() {
    let path = common::program("preconditions/sizes.c");
    let report = common::check_json(&path, &["--checks", "all", "--timeout", "10"]);
    let line = line_of_mark(&path, "the check after the read");
    let at_line: Vec<(String, String)> = report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .filter(|c| {
            c["location"]
                .as_str()
                .is_some_and(|l| l.contains(&format!(":{line}:")))
        })
        .map(|c| {
            let verdict = match c["verdict"].as_str().unwrap_or("") {
                "holds if" => format!("holds if {}", precondition(c)),
                v => v.to_string(),
            };
            (c["kind"].as_str().unwrap_or("").to_string(), verdict)
        })
        .collect();
    // The pointer read is an input of its own, the 8 bytes at `ip` as the caller leaves them,
    // read unsigned as every pointer's word is.
    let not_null = "holds if *(uint64_t *)ip != 0";
    assert!(
        at_line.contains(&("assert".into(), not_null.into())),
        "{at_line:?}"
    );
    assert!(
        at_line.contains(&("memory".into(), "holds if size(ip) >= 8".into())),
        "{at_line:?}"
    );
    assert!(
        !at_line.iter().any(|(_, v)| v.contains("size(ip) <")),
        "{at_line:?}"
    );
}

/// The verdict of each check on the line marked `mark` of `path`, by kind and message.
fn verdicts_at_mark(report: &Value, path: &Path, mark: &str) -> Vec<(String, String)> {
    let line = line_of_mark(path, mark);
    report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .filter(|c| common::line_of(c) == Some(line))
        .map(|c| {
            let verdict = match c["verdict"].as_str().unwrap_or("") {
                "holds if" => format!("holds if {}", precondition(c)),
                v => v.to_string(),
            };
            (c["error"].as_str().unwrap_or("assert").to_string(), verdict)
        })
        .collect()
}

/// Whether the precondition of each `holds if` check at the line marked `mark` is a
/// contract (its function may be called from outside the program).
fn contracts_at_mark(report: &Value, path: &Path, mark: &str) -> Vec<bool> {
    let line = line_of_mark(path, mark);
    report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .filter(|c| common::line_of(c) == Some(line) && c["verdict"] == "holds if")
        .map(|c| {
            c["contract"]
                .as_bool()
                .expect("a holds if says whether it is a contract")
        })
        .collect()
}

/// Every check, each function analyzed on its own (nothing inlined), no counterexample search.
const SEPARATE_FUNCTIONS: [&str; 9] = [
    "--checks",
    "all",
    "--timeout",
    "20",
    "-Z",
    "inline-program-limit=0",
    "-Z",
    "inline-leaf-limit=0",
    "--no-counterexamples",
];

/// `static` helpers analyzed on their own (nothing inlined): a check that holds under a
/// precondition every call meets is proved (a positive step, a buffer long enough and not
/// `NULL`: a local array and a pointer into it; a limit computed from a pointer read back
/// from memory, whose word says it is not `NULL`), and stays `holds if` when one call may not
/// meet it (an index an exported caller passes on: met under that caller's contract) or
/// when the function is visible outside.
/// Without the checks at call sites each of them is `holds if`; a run served by the cache
/// proves the same.
#[test]
fn a_precondition_every_call_meets_proves_the_check() {
    let path = common::program("preconditions/callers.c");
    // No check here can fail; the search for executions reaching them only costs time.
    let args = SEPARATE_FUNCTIONS;
    // The second run reads every function's results from the cache, requirements included.
    let cache = tempfile::tempdir().expect("temporary directory");
    let cache_dir = cache.path().to_str().expect("a UTF-8 path");
    let mut cached_args = args.to_vec();
    cached_args.extend(["--cache", cache_dir]);
    let first = common::check_json(&path, &cached_args);
    let on = common::check_json(&path, &cached_args);
    let mut off_args = args.to_vec();
    off_args.extend(["--no-cache", "-Z", "call-site-preconditions=off"]);
    let off = common::check_json(&path, &off_args);
    let all = |report: &Value, mark: &str, expected: &dyn Fn(&str) -> bool| {
        let at = verdicts_at_mark(report, &path, mark);
        assert!(!at.is_empty(), "no check at {mark}");
        assert!(at.iter().all(|(_, v)| expected(v)), "{mark}: {at:?}");
    };
    for mark in [
        "every call passes a positive step",
        "every call passes a buffer long enough",
        "every call passes a limit that is not NULL",
    ] {
        all(&first, mark, &|v| v == "proved");
        all(&on, mark, &|v| v == "proved");
        let at = verdicts_at_mark(&off, &path, mark);
        assert!(
            at.iter().any(|(_, v)| v.starts_with("holds if")),
            "{mark}: {at:?}"
        );
    }
    all(&on, "an exported function's check", &|v| {
        v == "holds if cells <= 64"
    });
    let any_index = verdicts_at_mark(&on, &path, "one call passes any index");
    assert!(
        any_index
            .iter()
            .any(|(e, v)| e.contains("outside") && v.starts_with("holds if")),
        "{any_index:?}"
    );
    // The exported function's precondition is its contract; the static helper's is met at
    // every call when the exported function that passes its own argument on is called
    // within its contract. Both read the same from the cache.
    for report in [&first, &on] {
        let exported = contracts_at_mark(report, &path, "an exported function's check");
        assert!(
            !exported.is_empty() && exported.iter().all(|c| *c),
            "{exported:?}"
        );
        let helper = contracts_at_mark(report, &path, "one call passes any index");
        assert!(
            !helper.is_empty() && helper.iter().all(|c| *c),
            "{helper:?}"
        );
        let contracts = report["checks"]
            .as_array()
            .expect("checks")
            .iter()
            .filter(|c| c["contract"] == true)
            .count();
        assert_eq!(
            report["summary"]["contracts"].as_u64(),
            Some(contracts as u64),
            "{}",
            report["summary"]
        );
    }
}

/// A requirement passed on by a `static` caller: the helper's bounds and null checks hold if
/// `buf` has `n` bytes, the function between passes its own parameters on (so its call
/// meets them only under its own precondition), and the next round finds that every call
/// of it passes a local array large enough: proved, where one round leaves them `holds if`
/// as the analysis without checks at call sites does. The same helper reached through a
/// function visible outside keeps its precondition, which every call meets under that
/// function's own (its contract).
#[test]
fn a_requirement_passed_on_by_a_static_caller_is_met_where_the_buffer_is_allocated() {
    let path = common::program("preconditions/passed_on.c");
    let mut args = SEPARATE_FUNCTIONS.to_vec();
    args.push("--no-cache");
    let on = common::check_json(&path, &args);
    let mut one_round = args.clone();
    one_round.extend(["-Z", "requirement-rounds=1"]);
    let one = common::check_json(&path, &one_round);
    let passed_on = "a buffer passed on by a static caller";
    let outside = "a length from outside";
    let expected_holds_if = [
        (
            "write of 1 byte through a null pointer",
            "holds if buf != NULL",
        ),
        (
            "write of 1 byte outside the object pointed to",
            "holds if n <= size(buf)",
        ),
    ];
    let sorted = |mut v: Vec<(String, String)>| {
        v.sort();
        v
    };
    let strings = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(e, v)| (e.to_string(), v.to_string()))
            .collect()
    };
    assert_eq!(
        sorted(verdicts_at_mark(&on, &path, passed_on)),
        strings(&[
            ("write of 1 byte outside the object pointed to", "proved"),
            ("write of 1 byte through a null pointer", "proved"),
        ])
    );
    assert_eq!(
        sorted(verdicts_at_mark(&one, &path, passed_on)),
        sorted(strings(&expected_holds_if))
    );
    assert_eq!(
        sorted(verdicts_at_mark(&on, &path, outside)),
        sorted(strings(&expected_holds_if))
    );
    // One round: the helper's calls were not all shown to meet its precondition. Through
    // the exported function, every call meets it when that function is called within its
    // own precondition, which the report names.
    assert_eq!(contracts_at_mark(&one, &path, passed_on), [false, false]);
    assert_eq!(contracts_at_mark(&on, &path, outside), [true, true]);
    let line = line_of_mark(&path, outside);
    let mut named: Vec<(String, String)> = on["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .filter(|c| common::line_of(c) == Some(line))
        .flat_map(|c| c["entry_contracts"].as_array().cloned().unwrap_or_default())
        .map(|e| {
            let field = |k: &str| e[k].as_str().unwrap_or_default().to_string();
            (field("function"), field("precondition"))
        })
        .collect();
    named.sort();
    assert_eq!(
        named,
        [
            ("fill_exported".to_string(), "buf != NULL".to_string()),
            ("fill_exported".to_string(), "n <= size(buf)".to_string()),
        ]
    );
}

/// A limit computed from a cursor kept in memory, before a loop that passes the cursor's
/// address to a reader: the limit's word stays above zero (read unsigned) at the loop head,
/// so every call meets `limit != NULL` and the reader's check is proved, although the
/// decoder has no assertion of its own (it is lifted for its calls alone). The cursor is a
/// pointer held in a local that only the reader, which only advances it, sees: it stays a
/// pointer into the input, so every call meets `*ip != NULL` too. Without the checks at
/// call sites both are `holds if`.
#[test]
fn a_limit_computed_before_a_loop_meets_its_requirement_at_every_call() {
    let path = common::program("preconditions/cursor.c");
    let mut args = SEPARATE_FUNCTIONS.to_vec();
    args[1] = "assert";
    args.push("--no-cache");
    let on = common::check_json(&path, &args);
    args.extend(["-Z", "call-site-preconditions=off"]);
    let off = common::check_json(&path, &args);
    let limit = "a limit computed before the loop";
    let cursor = "the cursor after earlier calls";
    let verdicts = |report: &Value, mark: &str| -> Vec<String> {
        let at = verdicts_at_mark(report, &path, mark);
        at.into_iter().map(|(_, v)| v).collect()
    };
    assert_eq!(verdicts(&on, limit), ["proved"]);
    assert_eq!(verdicts(&on, cursor), ["proved"]);
    assert_eq!(verdicts(&off, limit), ["holds if limit != NULL"]);
    assert_eq!(verdicts(&off, cursor), ["holds if *(uint64_t *)ip != 0"]);
}

/// Pointers into two parameters' objects are compared as addresses: an exported function's
/// check `lo <= hi` holds if its precondition over the addresses does, which no pair of
/// pointers into one buffer that satisfies it fails natively (and some pair outside it
/// does); a `static` helper's checks (`dst + 4 <= end`, and the bytes its pointer loop
/// writes) hold when the pointers are in order and inside the buffer, which every call
/// meets, so they are proved; without the checks at call sites, `holds if` over `dst` and
/// `end`.
#[test]
fn pointers_compared_across_parameters_give_preconditions_over_addresses() {
    let path = common::program("preconditions/pointer_order.c");
    let args = SEPARATE_FUNCTIONS;
    let on = common::check_json(&path, &args);
    let room = line_of_mark(&path, "every call leaves room");
    let write = line_of_mark(&path, "every call passes an end");
    let order = line_of_mark(&path, "holds if lo <= hi");
    let checks = on["checks"].as_array().expect("checks");
    let at = |line: u32| -> Vec<&Value> {
        checks
            .iter()
            .filter(|c| {
                c["location"]
                    .as_str()
                    .is_some_and(|l| l.contains(&format!(":{line}:")))
            })
            .collect()
    };
    for line in [room, write] {
        let found = at(line);
        assert!(!found.is_empty(), "checks at line {line}");
        for c in found {
            assert_eq!(c["verdict"], "proved", "{c}");
        }
    }
    let check = common::check_at_line(&on, order).expect("the check of span");
    let p = precondition(check);
    assert!(
        p.contains("(intptr_t)lo") && p.contains("(intptr_t)hi"),
        "{p}"
    );
    // Natively: `lo` and `hi` into one buffer, in every order.
    let mut calls = String::new();
    for a in 0..6 {
        for b in 0..6 {
            calls.push_str(&format!(
                "  {{ char buf[8]; const char *lo = buf + {a}, *hi = buf + {b}; int pre = ({p}); \
                 failed = 0; span(lo, hi); \
                 if (failed == {order}) {{ if (pre) in_p++; else out_p++; }} }}\n"
            ));
        }
    }
    let (inside, outside) = run_driver(&path, &calls);
    assert_eq!(inside, 0, "pointers that satisfy `{p}` fail the check");
    assert!(outside > 0, "no pointers outside `{p}` fail the check");

    let mut off_args = args.to_vec();
    off_args.extend(["-Z", "call-site-preconditions=off"]);
    let off = common::check_json(&path, &off_args);
    let check = common::check_at_line(&off, room).expect("the check of fill");
    let p = precondition(check);
    assert!(
        p.contains("(intptr_t)dst") && p.contains("(intptr_t)end"),
        "{p}"
    );
}

/// A field of a pointer parameter's object is an input: `bit_index`'s `0 <= i && i <
/// b->nbits` holds under a conjunction over `i` and the 8 bytes at offset 8 of `*b`, judged
/// natively with fields and indices on both sides; the `static` helper whose caller tests
/// the same bound first is proved (the call reads the field as the helper will); and a
/// conjunction over parameters alone is the precondition of a check of a conjunction.
#[test]
fn fields_of_pointer_parameters_and_conjunctions_are_preconditions() {
    let path = common::program("preconditions/fields.c");
    let args = SEPARATE_FUNCTIONS;
    let report = common::check_json(&path, &args);
    let assertion = |line: u32| -> &Value {
        report["checks"]
            .as_array()
            .expect("checks")
            .iter()
            .find(|c| {
                c["kind"] == "assert"
                    && c["location"]
                        .as_str()
                        .is_some_and(|l| l.contains(&format!(":{line}:")))
            })
            .unwrap_or_else(|| panic!("no assertion at line {line}"))
    };
    let tested = line_of_mark(&path, "every call tests the index");
    let check = assertion(tested);
    assert_eq!(check["verdict"], "proved", "{check}");

    let line = line_of_mark(&path, "holds if the index is below the field");
    let p = precondition(assertion(line));
    assert!(
        p.contains(" && ") && p.contains("*(int64_t *)((char *)b + 8)"),
        "{p}"
    );
    let mut calls = String::new();
    for nbits in VALUES {
        for i in VALUES {
            calls.push_str(&format!(
                "  {{ struct bits s = {{ 0, {nbits}, 0 }}; const struct bits *b = &s; long i = {i}; \
                 int pre = ({p}); failed = 0; bit_index(b, i); \
                 if (failed == {line}) {{ if (pre) in_p++; else out_p++; }} }}\n"
            ));
        }
    }
    let counts = run_driver(&path, &calls);
    assert_eq!(
        counts.0, 0,
        "fields and indices that satisfy `{p}` fail the check"
    );
    assert!(
        counts.1 > 0,
        "no field and index outside `{p}` fail the check"
    );

    let line = line_of_mark(&path, "holds if the field is zero");
    let p = precondition(assertion(line));
    assert_eq!(p, "*(int32_t *)((char *)b + 16) == 0");
    let calls: String = VALUES
        .iter()
        .map(|v| {
            format!(
                "  {{ struct bits s = {{ 0, 0, {v} }}; struct bits *b = &s; int pre = ({p}); \
                 failed = 0; freeze(b); if (failed == {line}) {{ if (pre) in_p++; else out_p++; }} }}\n"
            )
        })
        .collect();
    let counts = run_driver(&path, &calls);
    assert_eq!(counts.0, 0, "fields that satisfy `{p}` fail the check");
    assert!(counts.1 > 0, "no field outside `{p}` fails the check");

    let line = line_of_mark(&path, "holds if both bounds hold");
    let p = precondition(assertion(line));
    assert!(p.contains(" && "), "{p}");
    // `long` arguments, so that `n - i` in the precondition does not overflow.
    let mut calls = String::new();
    for n in VALUES {
        for i in VALUES {
            calls.push_str(&format!(
                "  {{ long n = {n}, i = {i}; int pre = ({p}); failed = 0; in_range(n, i); \
                 if (failed == {line}) {{ if (pre) in_p++; else out_p++; }} }}\n"
            ));
        }
    }
    let (inside, outside) = run_driver(&path, &calls);
    assert_eq!(inside, 0, "arguments that satisfy `{p}` fail the check");
    assert!(outside > 0, "no arguments outside `{p}` fail the check");
}

/// Builds and runs a driver that includes `path` (with `check` recording the failed line)
/// and runs `calls`, each counting into `in_p` or `out_p`: the two counts.
fn run_driver(path: &Path, calls: &str) -> (usize, usize) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let source = format!(
        "#include <stdio.h>\n#include <stdint.h>\nstatic int failed;\n\
         #define check(c) do {{ if (!(c)) failed = __LINE__; }} while (0)\n#include \"{}\"\n\
         int main(void) {{\n  int in_p = 0, out_p = 0;\n{calls}  \
         printf(\"%d %d\\n\", in_p, out_p);\n  return 0;\n}}\n",
        path.canonicalize().expect("the program").display()
    );
    let src = dir.path().join("driver.c");
    std::fs::write(&src, source).expect("the driver");
    let exe = dir.path().join("driver");
    let status = Command::new("clang-19")
        .args(["-w", "-O0"])
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .status()
        .expect("clang-19 runs");
    assert!(status.success(), "the driver builds");
    let out = Command::new(&exe).output().expect("the driver runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut counts = text
        .split_whitespace()
        .map(|n| n.parse::<usize>().expect("a count"));
    (counts.next().expect("in"), counts.next().expect("out"))
}
