//! Runtime-error checks on the programs of `tests/programs/checks`, through the binary:
//! `--checks`, the instrumentation pass, the analysis, and the native replay that must stop
//! at that very operation (the sanitizer handlers of `runtime/replay.c`, which tell a
//! shift's base from its amount).
//!
//! Each line carries an annotation per kind of check (`tests/common/annotations.rs`), which
//! names no run: it speaks of every run of the program. Each program is also run natively
//! with UBSan, so that a `fails` line really misbehaves for some input the test gives.

mod common;

use common::annotations::annotated;
use common::{check_json, program};

#[track_caller]
fn check_program(name: &str, args: &[&str]) {
    let path = program(&format!("checks/{name}"));
    let mut all_args = vec!["--checks", "all", "--timeout", "60"];
    all_args.extend(args);
    let report = check_json(&path, &all_args);
    let annotated = annotated(&path);
    assert!(
        !annotated.annotations.is_empty(),
        "{name} has no annotation"
    );
    annotated.assert_runs_known(&[]);
    let run = format!("{all_args:?}");
    let found = annotated.disagreements(&report, &run);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn overflow_holds_fails_and_boundaries() {
    check_program("overflow.c", &[]);
}

#[test]
fn overflow_replays_for_ilp32() {
    check_program("overflow.c", &["--m32"]);
}

#[test]
fn division_by_zero_and_min_by_minus_one() {
    check_program("div.c", &[]);
}

#[test]
fn shift_amounts() {
    check_program("shift.c", &[]);
}

/// The base of a signed left shift (UBSan's shift-base): a negative base, a one shifted into
/// the sign bit and a promoted `unsigned char` are violated with a native replay that stops at
/// UBSan's shift handler for the base; bounded bases, a constant base by a bounded amount and
/// unsigned shifts are proved; an unbounded input base is violated, never proved.
#[test]
fn shift_bases() {
    check_program("shift_base.c", &[]);
}

/// The ground truth of `shift_base.c`: compiled natively with UBSan's shift-base check in
/// trap mode, each `fails` line traps for the input its branch needs and each `holds` line
/// does not, at its boundary.
#[test]
fn the_failing_shift_bases_really_misbehave() {
    assert_traps_natively(
        "checks/shift_base.c",
        "-fsanitize=shift-base",
        "#include <stdlib.h>\n#include <stdio.h>\n\
         static int k; static long long v[5];\n\
         static long long next(void) { if (!k) { char *e = getenv(\"IN\"); sscanf(e, \"%lld %lld %lld %lld %lld\", &v[0], &v[1], &v[2], &v[3], &v[4]); } return v[k++]; }\n\
         int __VERIFIER_nondet_int(void) { return (int)next(); }\n\
         unsigned int __VERIFIER_nondet_uint(void) { return (unsigned int)next(); }\n\
         unsigned char __VERIFIER_nondet_uchar(void) { return (unsigned char)next(); }\n",
        &[
            ("0 1000 0 0 0", false),
            ("1 0 31 4294967295 0", false),
            ("2 0 0 0 0", false),
            ("3 -1 0 0 0", true),
            ("4 1 0 0 0", true),
            ("5 0 0 0 128", true),
            ("6 -5 0 0 0", true),
            ("7 0 30 0 0", false),
            ("8 0 31 0 0", true),
            ("9 1073741823 0 0 0", false),
            ("10 1073741824 0 0 0", true),
        ],
    );
}

/// Library entries that take pointers get buffers in the replay, and an operation whose
/// result is never used (an ignored return value, a local never read) keeps its check.
#[test]
fn pointer_entries_and_unused_results() {
    // Its entries' violations are replayed from arbitrary arguments, not turned into
    // preconditions (`holds if`, tested in `tests/preconditions.rs`).
    check_program("pointers_and_unused.c", &["-Z", "precondition-work=0"]);
}

#[test]
fn a_bounded_product_of_two_variables_is_proved() {
    check_program("overflow_product.c", &[]);
}

/// The default is `assert`: no runtime check is reported, and the program's verdict is
/// today's (no assertion: true).
#[test]
fn by_default_only_assertions_are_checked() {
    let report = check_json(&program("checks/overflow.c"), &["--timeout", "30"]);
    assert_eq!(
        report["checks"].as_array().map(Vec::len),
        Some(0),
        "{report}"
    );
    assert_eq!(report["verdict"], "true");
}

/// Selecting one kind reports only that kind, and a program's assertions are not checked
/// without `assert`.
#[test]
fn a_selection_reports_only_its_kinds() {
    let report = check_json(
        &program("checks/div.c"),
        &["--checks", "div", "--timeout", "30"],
    );
    let checks = report["checks"].as_array().unwrap();
    assert!(!checks.is_empty());
    assert!(checks.iter().all(|c| c["kind"] == "div"), "{report}");
    let report = check_json(
        &program("counter.c"),
        &["--checks", "overflow", "--timeout", "30"],
    );
    assert!(
        report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["kind"] == "overflow"),
        "{report}"
    );
}

/// The test's ground truth: compiled natively with UBSan in trap mode (no sanitizer runtime
/// needed), each `fails` line of `overflow.c` traps for the input its branch needs, and a
/// `holds` boundary does not (so the test cannot pass on a program whose annotation is
/// wrong). Each branch has one operation that can overflow.
#[test]
fn the_failing_lines_really_misbehave() {
    assert_traps_natively(
        "checks/overflow.c",
        "-fsanitize=signed-integer-overflow",
        "#include <stdlib.h>\n#include <stdio.h>\n\
         static int k; static long long v[3];\n\
         static void load(void) { if (!k) { char *e = getenv(\"IN\"); sscanf(e, \"%lld %lld %lld\", &v[0], &v[1], &v[2]); } }\n\
         int __VERIFIER_nondet_int(void) { load(); return (int)v[k++]; }\n\
         long long __VERIFIER_nondet_longlong(void) { load(); return v[k++]; }\n",
        &[
            ("1 2147483646 0", false),
            ("2 2147483647 0", true),
            ("3 -2147483648 0", true),
            ("4 200000 0", true),
            ("5 0 4611686018427387904", true),
            ("6 -2147483647 0", false),
            ("7 -1 0", false),
        ],
    );
}

/// Compiles `name` natively with the sanitizer flag `sanitize` in trap mode (no sanitizer
/// runtime needed) and `harness` (the nondet functions, reading `$IN`), and asserts for each
/// input whether the run traps.
#[track_caller]
fn assert_traps_natively(name: &str, sanitize: &str, harness: &str, cases: &[(&str, bool)]) {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let harness_path = dir.path().join("inputs.c");
    std::fs::write(&harness_path, harness).unwrap();
    let exe = dir.path().join("prog");
    let out = std::process::Command::new(polyfocus::frontend::clang_program())
        .args(["-g", "-O0", "-w", sanitize, "-fsanitize-trap=all"])
        .arg(program(name))
        .arg(&harness_path)
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("clang runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (input, traps) in cases {
        let run = std::process::Command::new(&exe)
            .env("IN", input)
            .output()
            .unwrap();
        assert_eq!(
            run.status.signal() == Some(libc::SIGILL),
            *traps,
            "input {input}: {:?}",
            run.status
        );
    }
}

/// The witness of an overflow is for SV-COMP's `no-overflow`, with its target at the
/// operation.
#[test]
fn an_overflow_witness_names_the_no_overflow_property() {
    let dir = tempfile::tempdir().unwrap();
    let witness = dir.path().join("witness.yml");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_polyfocus"))
        .args([
            "check",
            "--checks",
            "overflow",
            "--timeout",
            "60",
            "--witness",
        ])
        .arg(&witness)
        .arg(program("checks/overflow.c"))
        .output()
        .expect("polyfocus runs");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&witness).expect("witness written");
    assert!(text.contains("LTL(G ! overflow)"), "{text}");
    assert!(text.contains("type: target"), "{text}");
}

/// An operation of a function that is not where executions start (a recursive callee) is
/// refuted by a native run from `main`.
#[test]
fn a_recursive_callee_is_refuted_from_main() {
    check_program("recursive.c", &[]);
}

/// Array subscripts (`--checks bounds`): a loop over the whole array is proved, `a[n]` with
/// `n` up to the size is violated (replayed natively: UBSan's handler at that very
/// subscript) while `a[n - 1]` holds, `&a[10]` (one past the end) holds, an array member of a
/// struct and each dimension of a matrix are checked, `g[8]++` stays unknown (UBSan checks
/// `<= 8` there, so no native run confirms the access past the end), and an access through
/// a pointer has no check. Refinement is off: it cannot settle the violated lines and, on a
/// loaded machine, it ran past its share of the budget and left the search no time.
#[test]
fn array_subscripts() {
    check_program("bounds.c", &["-Z", "refine=off"]);
}

/// The ground truth of `bounds.c`: built natively with `-fsanitize=array-bounds` and a
/// handler of its own (no sanitizer runtime is installed) that prints the place clang
/// recorded, each `fails` line calls the handler for the input its branch needs, at that line
/// and at the column of the array's name (where UBSan reports), and each boundary that holds
/// (or that UBSan does not flag) runs without it.
#[test]
fn the_failing_subscripts_really_misbehave_at_their_place() {
    let dir = tempfile::tempdir().unwrap();
    let src = program("checks/bounds.c");
    let harness = dir.path().join("inputs.c");
    std::fs::write(
        &harness,
        "#include <stdlib.h>\n#include <stdio.h>\n#include <unistd.h>\n\
         static int k; static int v[2];\n\
         int __VERIFIER_nondet_int(void) { if (!k) sscanf(getenv(\"IN\"), \"%d %d\", &v[0], &v[1]); return v[k++]; }\n\
         struct loc { const char *file; unsigned line, column; };\n\
         void __ubsan_handle_out_of_bounds_abort(void *data, void *index) {\n\
           struct loc *l = data; printf(\"BOUNDS %u:%u\\n\", l->line, l->column); fflush(stdout); _exit(7); }\n",
    )
    .unwrap();
    // Compiled with the sanitizer, linked without its runtime (not installed).
    let obj = dir.path().join("prog.o");
    let exe = dir.path().join("prog");
    let clang = polyfocus::frontend::clang_program();
    for args in [
        vec![
            "-c".to_string(),
            "-g".into(),
            "-O0".into(),
            "-w".into(),
            "-fsanitize=array-bounds".into(),
            "-fno-sanitize-recover=all".into(),
            src.display().to_string(),
            "-o".into(),
            obj.display().to_string(),
        ],
        vec![
            obj.display().to_string(),
            harness.display().to_string(),
            "-o".into(),
            exe.display().to_string(),
        ],
    ] {
        let out = std::process::Command::new(&clang)
            .args(&args)
            .output()
            .expect("clang runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let text = std::fs::read_to_string(&src).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // (input, the line that misbehaves and its array's name, or none)
    for (input, expected) in [
        ("0 10", Some((28, "a"))),
        ("1 10", None),
        ("2 10", Some((32, "a"))),
        ("3 -1", Some((34, "g"))),
        ("4 4", Some((36, "p"))),
        ("5 10", None),
        ("6 11", Some((44, "a"))),
        ("7 8", None),
        ("8 2", Some((53, "m"))),
        ("8 1", None),
        ("9 0", None),
    ] {
        let run = std::process::Command::new(&exe)
            .env("IN", input)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&run.stdout);
        match expected {
            None => assert_ne!(run.status.code(), Some(7), "input {input}: {stdout}"),
            Some((line, array)) => {
                let place = stdout
                    .trim()
                    .strip_prefix("BOUNDS ")
                    .unwrap_or_else(|| panic!("input {input}: no handler call: {stdout}"));
                let (l, c) = place.split_once(':').unwrap();
                assert_eq!(l.parse::<usize>().unwrap(), line, "input {input}");
                let column: usize = c.parse().unwrap();
                assert!(
                    lines[line - 1][column - 1..].starts_with(array),
                    "input {input}: column {column} of line {line} is not `{array}`"
                );
            }
        }
    }
}
