//! Verdicts on small C programs written for the purpose, compiled by clang-19.
//!
//! Each assertion line carries an annotation (`tests/common/annotations.rs`); its runs are
//! the four configurations of `CONFIGS`.

mod common;

use common::annotations::{annotated, ASSERT};
use serde_json::Value;
use std::path::{Path, PathBuf};

const CONFIGS: [(&str, &str, &str); 4] = [
    ("classic-interval", "classic", "interval"),
    ("classic-poly", "classic", "poly"),
    ("focus-interval", "focus", "interval"),
    ("focus-poly", "focus", "poly"),
];

fn run(program: &Path, engine: &str, domain: &str, extra: &[&str]) -> Value {
    let engine = format!("engine={engine}");
    let domain = format!("domain={domain}");
    let mut args = vec!["-Z", &engine, "-Z", &domain, "--timeout", "30"];
    args.extend_from_slice(extra);
    common::check_json(program, &args)
}

fn check_program(name: &str) {
    check_program_with(name, &[]);
}

/// Like [`check_program`], with extra command-line arguments.
fn check_program_with(name: &str, extra: &[&str]) {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "programs", name]
        .iter()
        .collect();
    let program = annotated(&path);
    let n_assertions = program.of_kind(ASSERT).count();
    assert!(n_assertions > 0, "{name} has no annotated assertion");
    program.assert_runs_known(&CONFIGS.map(|c| c.0));
    for (config, engine, domain) in CONFIGS {
        let report = run(&path, engine, domain, extra);
        let checks = report["checks"].as_array().expect("checks array");
        assert_eq!(
            checks.len(),
            n_assertions,
            "{name} [{config}]: number of assertions"
        );
        let wrong = program.disagreements(&report, config);
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }
}

#[test]
fn counter_loop() {
    check_program("counter.c");
}

#[test]
fn relational_loop() {
    check_program("relational.c");
}

#[test]
fn bit_or() {
    check_program("bit_or.c");
}

#[test]
fn unsigned_wrap() {
    check_program("unsigned_wrap.c");
}

#[test]
fn nsw_assumption() {
    check_program("nsw.c");
}

#[test]
fn switch_cases() {
    check_program("switch.c");
}

/// A pointer stored in a struct field, an array of pointers or a global keeps whether it is
/// NULL: the loaded pointer compared with NULL is decided.
#[test]
fn stored_pointers_keep_whether_they_are_null() {
    check_program("stored_pointers.c");
}

#[test]
fn pointers_walked_in_memory_stay_non_null() {
    check_program("walked_pointers.c");
}

#[test]
fn nested_loops() {
    check_program("nested.c");
}

#[test]
fn inlined_callee() {
    check_program("inlined.c");
}

#[test]
fn undef_input() {
    check_program("undef.c");
}

#[test]
fn library_without_main() {
    check_program("library.c");
}

#[test]
fn conventions_the_program_defines() {
    check_program("own_conventions.c");
}

#[test]
fn reachable_bug_is_never_proved() {
    check_program("bug.c");
}

/// The engines alone (no refinement or congruence stage after them) prove what needs
/// `n == 3 * (n / 3)` after `n % 3 == 0`.
#[test]
fn remainder_identity_after_a_divisibility_test() {
    check_program_with(
        "remainder_identity.c",
        &[
            "-Z",
            "refine=off",
            "-Z",
            "care-set=off",
            "-Z",
            "relational-congruences=off",
        ],
    );
}

#[test]
fn boolean_compared_with_constant_on_the_left() {
    check_program("bool_const_left.c");
}

/// `-O2` no longer reaches the analysis: the calls to an empty `reach_error` stay.
#[test]
fn optimization_flags_keep_empty_error_calls() {
    check_program_with("optimized_empty_error.c", &["--cflags", "-O2"]);
}

/// `-O2` would speculate `x + 1` (nsw) into a select, where its overflow is harmless.
#[test]
fn optimization_flags_do_not_speculate_nsw() {
    check_program_with("optimized_nsw_select.c", &["--cflags", "-O2"]);
}

/// Uninitialized array elements and struct fields are arbitrary values.
#[test]
fn uninitialized_aggregates_hold_any_value() {
    check_program_with("uninit_aggregate.c", &["--no-counterexamples"]);
    check_program_with(
        "uninit_aggregate.c",
        &["--no-counterexamples", "--cflags", "-O2"],
    );
}

/// Polynomial equalities at loop heads prove a Gauss sum and Cohen's division.
#[test]
fn polynomial_equalities() {
    check_program("polynomial.c");
}

/// Equalities in the ideal of the loop head's equalities (a geometric sum), a
/// degree-6 template once the engine's linear equalities take a variable out, and nothing
/// from a wrapping geometric sum.
#[test]
fn polynomial_equalities_in_the_ideal() {
    check_program("polynomial_ideal.c");
}

/// With unsigned (wrapping) sums the integer equality does not hold, and nothing
/// may be proved from it.
#[test]
fn polynomial_equalities_not_over_wrapping_sums() {
    check_program("polynomial_wrap.c");
}

/// Equalities that hold on the paths whose guards say so (an exact halving after
/// a remainder test, a reset guarded by an equality, an exit guard `a == b`), and near
/// misses that must not be proved (each fails in a native run).
#[test]
fn polynomial_equalities_with_guards() {
    check_program("polynomial_guards.c");
    check_program("polynomial_guards_false.c");
}

/// A loop head without template variables gives no equality (it once kept
/// `1 = 0`, and a failing assertion after the next loop was proved: csmith 43046); and
/// assertions after a loop whose bound may be negative, proved through the loop head from
/// the entry and from the body (`analysis/polyeq/unreachable.rs`).
#[test]
fn polynomial_equalities_dead_head_and_through_head() {
    check_program_with("polynomial_dead_head.c", &["--no-counterexamples"]);
    check_program("polynomial_through_head.c");
}

/// A false polynomial claim is not proved, and its counterexample is replayed.
#[test]
fn polynomial_false_claim_is_refuted() {
    check_program("polynomial_false.c");
    let path: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "tests",
        "programs",
        "polynomial_false.c",
    ]
    .iter()
    .collect();
    let report = run(&path, "focus", "poly", &[]);
    let found = common::check_at_line(&report, 11).expect("verdict at line 11");
    assert_eq!(found["verdict"].as_str(), Some("violated"), "{found}");
}

/// A recursive callee whose only failing input (5001) is one above a constant that the
/// callee alone compares with: the counterexample search's native runs try the constants of
/// the callees that stay calls, and the replayed input is 5001 (a dictionary of the entry's
/// constants only left it unknown, and the model of bounded model checking, which chooses
/// the call's result freely, does not replay). The near miss `r >= -1` is proved
/// everywhere; `recursion_callee_constant_natively` checks both natively.
#[test]
fn recursive_callee_constants_in_the_native_search() {
    check_program("recursion_callee_constant.c");
    let report = run(
        &common::program("recursion_callee_constant.c"),
        "focus",
        "poly",
        &[],
    );
    let found = common::check_at_line(&report, 27).expect("verdict at line 27");
    assert_eq!(found["verdict"].as_str(), Some("violated"), "{found}");
    let inputs = found["counterexample"]["inputs"]
        .as_array()
        .expect("counterexample inputs");
    assert_eq!(inputs.len(), 1, "{found}");
    assert_eq!(inputs[0]["value"].as_str(), Some("5001"), "{found}");
}

/// What `recursion_callee_constant.c` says, natively: over every input main lets through,
/// `rank` returns -1 at 5001 only, and never less.
#[test]
fn recursion_callee_constant_natively() {
    let program = std::fs::read_to_string(common::program("recursion_callee_constant.c"))
        .expect("test program readable");
    let rank =
        &program[program.find("int rank").expect("rank")..program.find("int main").expect("main")];
    let source = format!(
        "#include <stdio.h>\n{rank}\nint main(void) {{ int below = 0, at = -1;\n\
             for (int x = 0; x <= 9000; x++) {{ int r = rank(x); if (r < -1) below++;\n\
             if (r < 0) {{ if (at != -1) at = -2; else at = x; }} }}\n\
             printf(\"%d %d\\n\", below, at); return 0; }}\n"
    );
    assert_eq!(common::native_stdout(&source, &["-O0"]), "0 5001");
}

/// Region bounds of a recursive function that the function breaks further in its
/// region (`fib(n) <= fib(29)` for `n >= 9`, from samples near the threshold) are left out
/// before the rounds, so the contract search certifies `n >= 10 -> fib(n) >= 55` within its
/// budget of work (dropping them during the rounds spent it and left line 18 unknown); the
/// near miss (`>= 56`, `fib(10) == 55`) is refuted by a native run, and
/// line 18 holds natively for every input main lets through.
#[test]
fn region_bounds_checked_by_evaluation() {
    check_program("recursion_region_bounds.c");
    let report = run(
        &common::program("recursion_region_bounds.c"),
        "focus",
        "poly",
        &[],
    );
    let found = common::check_at_line(&report, 19).expect("verdict at line 19");
    assert_eq!(found["verdict"].as_str(), Some("violated"), "{found}");
    let program = std::fs::read_to_string(common::program("recursion_region_bounds.c"))
        .expect("test program readable");
    let fib =
        &program[program.find("int fib").expect("fib")..program.find("int main").expect("main")];
    let source = format!(
        "#include <stdio.h>\n{fib}\nint main(void) {{ int broken = 0;\n\
             for (int x = 10; x <= 40; x++) if (fib(x) < 55) broken++;\n\
             printf(\"%d %d\\n\", broken, fib(10)); return 0; }}\n"
    );
    assert_eq!(common::native_stdout(&source, &["-O1"]), "0 55");
}

/// Recursive functions get certified contracts (summaries under calling
/// contexts); the wrapping ones (`usum(92682) = 55607`, `dbl(32) = 0` natively) must not.
#[test]
fn recursive_contracts() {
    check_program("recursion.c");
}

/// Tabulated contracts (`n == k -> r == hanoi(k)` over the calling context) and
/// guarded ones (McCarthy's 91, `x >= 101 -> r == x - 10`, `x <= 100 -> r == 91`) are
/// certified; the wrapping doubling's `pow2(n) > 0` must not be proved.
#[test]
fn tabulated_and_guarded_contracts() {
    check_program("recursion_tabulated.c");
    check_program("recursion_guarded.c");
}

/// A calling context that holds only through a disequality (`gcd(a, b - a)`
/// after `a == b` and `a > b` failed) is certified, and with it `gcd(a, b) >= 1`.
#[test]
fn contracts_through_disequalities() {
    check_program("recursion_disequality.c");
}

/// A function over 64-bit integers called with `int`s gets `r == m + n` (with
/// the bounds from the ranges of narrow types that keep the wrapping atoms exact).
#[test]
fn contracts_of_wide_functions() {
    check_program("recursion_wide.c");
}

/// Assertions over floats are proved by the front end's bit-precise runs
/// (`frontend/float_paths.rs`) in every configuration, and their near misses (rounding at
/// 1e8, NaN, 0.1 + 0.2) are never proved; `float_paths_natively` checks the native values.
#[test]
fn float_assertions() {
    check_program("float_paths.c");
    check_program("float_paths_false.c");
}

/// What the float programs' annotations say, natively (for both data models): the near
/// misses do fail on some execution, the assertions of `float_paths.c` hold (every `int`
/// of the conversion's range is tried).
#[test]
fn float_paths_natively() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let src = dir.path().join("native.c");
    std::fs::write(
        &src,
        r#"#include <stdio.h>
#include <math.h>
int main(void) {
  volatile float x = 1e8f; volatile float y = x + 1.f, z = x - 1.f;
  volatile float x7 = 1e7f; volatile float y7 = x7 + 1.f, z7 = x7 - 1.f;
  volatile double a = 0.1, b = 0.2;
  double u = 1.0;
  for (int i = 0; i < 60; i++) u = u / 2.0 + 0.25;
  int casts = 1;
  for (int i = 0; i <= 1000; i++) { float h = i; casts &= h >= 0.f && h <= 1000.f; }
  volatile double n = NAN;
  printf("%d %d %d %d %d %d\n", y - z == 2.f, y7 - z7 == 2.f, a + b == 0.3,
         u > 0.49 && u < 0.51, casts, n == n);
  return 0;
}
"#,
    )
    .expect("writing");
    for flags in [&[][..], &["-m32", "-msse2", "-mfpmath=sse"][..]] {
        let bin = dir.path().join("native");
        let built = std::process::Command::new("clang-19")
            .args(flags)
            .args(["-O0", "-w"])
            .arg(&src)
            .arg("-o")
            .arg(&bin)
            .arg("-lm")
            .status()
            .expect("clang-19 runs");
        if !built.success() {
            // No 32-bit C library here: the LP64 run is the one that can be checked.
            assert!(!flags.is_empty(), "clang-19 builds the LP64 program");
            continue;
        }
        let out = std::process::Command::new(&bin).output().expect("runs");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim(),
            "0 1 0 1 1 0",
            "{flags:?}"
        );
    }
}

/// The doubling of `recursion_tabulated.c` wraps natively (`pow2(32) == 0`), McCarthy's
/// function, the gcd of `recursion_disequality.c` and the sum of `recursion_wide.c` give what their annotations say: the verdicts above are checked against these.
#[test]
fn recursion_native_values() {
    let source = "#include <stdio.h>\n\
         unsigned pow2(unsigned n) { if (n == 0) return 1; return 2u * pow2(n - 1); }\n\
         int hanoi(int n) { if (n == 1) return 1; return 2 * hanoi(n - 1) + 1; }\n\
         int f91(int x) { if (x > 100) return x - 10; return f91(f91(x + 11)); }\n\
         int gcd(int a, int b) { if (a <= 0 || b <= 0) return 0; if (a == b) return a;\n\
         if (a > b) return gcd(a - b, b); return gcd(a, b - a); }\n\
         long long add(long long m, long long n) { if (n == 0) return m;\n\
         if (n > 0) return add(m + 1, n - 1); return add(m - 1, n + 1); }\n\
         int main(void) { printf(\"%u %u %d %d %d %d %d %d %lld %lld\\n\", pow2(31), pow2(32),\n\
         hanoi(5), hanoi(20), f91(-7), f91(102), gcd(2, 2), gcd(7, 3), add(3, -5),\n\
         add(7, 4)); return 0; }\n";
    assert_eq!(
        common::native_stdout(source, &["-O0"]),
        "2147483648 0 31 1048575 91 92 2 1 -2 11"
    );
}

/// Each precision technique is what proves its program's assertions: with its
/// switch off, path focusing over polyhedra leaves the assertions on `lines` unknown.
fn needs_technique(name: &str, switch: &str, lines: &[u32]) {
    let path = common::program(name);
    // The relational stage (on by default) proves some of these assertions too (template
    // bounds keep `c <= 40`): off as well, so that the technique is tested alone.
    let off = format!("{switch}=off");
    let mut args = vec!["-Z", &off, "--no-counterexamples"];
    if switch != "relational-congruences" {
        args.extend(["-Z", "relational-congruences=off"]);
    }
    let report = run(&path, "focus", "poly", &args);
    for line in lines {
        let found = common::check_at_line(&report, *line).expect("a verdict on the line");
        assert_eq!(
            found["verdict"].as_str(),
            Some("unknown"),
            "{name}:{line} with -Z {switch}=off: {found}"
        );
    }
}

/// Acceleration splits a self-loop at its disequality `c != 40`, which moves by one per
/// iteration, and keeps `c <= 40` (the shape of code2inv 36, 46 and 51).
#[test]
fn disequality_splitting() {
    check_program("disequality_split.c");
    needs_technique("disequality_split.c", "disequality-splitting", &[16, 25]);
}

/// Refinement keeps the states of a loop entered apart from those of the loop never entered
/// (the shape of code2inv 110 to 122).
#[test]
fn loop_entry_predicates() {
    check_program("loop_entry.c");
    needs_technique("loop_entry.c", "loop-entry-predicates", &[13]);
}

/// Refinement starts with the guards of the loop's body read at the head, so each phase
/// keeps its own state (the shape of gj2007 and mono-crafted_6); the near miss (a phase one
/// step later) is refuted by a native run.
#[test]
fn phase_splitting() {
    check_program("phases.c");
    needs_technique("phases.c", "phase-splitting", &[18, 36]);
    let report = run(&common::program("phases.c"), "focus", "poly", &[]);
    let found = common::check_at_line(&report, 50).expect("a verdict on the line");
    assert_eq!(found["verdict"].as_str(), Some("violated"), "{found}");
}

/// Loops that fill an array (or two, for a pair segment) from its end: refinement splits their heads on whether the
/// segment of filled elements is empty yet (a comparison the memory model chooses the
/// segment's bounds by, without a branch), once the rounds find no other predicate. The near
/// miss (the first element left out) is refuted by a native run.
#[test]
fn phases_chosen_by_selects() {
    check_program("phases_selects.c");
    needs_technique("phases_selects.c", "phase-splitting", &[16, 27]);
    check_program("phases_selects_pairs.c");
    needs_technique("phases_selects_pairs.c", "phase-splitting", &[17]);
    check_program("phases_selects_false.c");
    let report = run(
        &common::program("phases_selects_false.c"),
        "focus",
        "poly",
        &[],
    );
    let found = common::check_at_line(&report, 13).expect("a verdict on the line");
    assert_eq!(found["verdict"].as_str(), Some("violated"), "{found}");
}

/// A count that grows only once a loop reads past the filled part of an array: the loop
/// head splits on the select's `4 * i < end` (a scaled counter), and acceleration sweeps
/// the second phase only from its own states. The near miss is refuted by a native run.
#[test]
fn phases_of_a_counting_loop() {
    check_program("phases_counted.c");
    needs_technique("phases_counted.c", "phase-splitting", &[20]);
    let report = run(
        &common::program("phases_counted_false.c"),
        "focus",
        "poly",
        &[],
    );
    let found = common::check_at_line(&report, 17).expect("a verdict on the line");
    assert_eq!(found["verdict"].as_str(), Some("violated"), "{found}");
}

/// Copies through a chain of arrays with a hole at one index: the checking loop's
/// disequality is read on states that drop each value after its last use, so the split of
/// a path that crosses four copy segments stays within the refinement's budget. The check
/// at every index is refuted by a native run.
#[test]
fn chained_copies_with_a_hole() {
    check_program("copies_chained.c");
    let report = run(
        &common::program("copies_chained_false.c"),
        "focus",
        "poly",
        &[],
    );
    let found = common::check_at_line(&report, 20).expect("a verdict on the line");
    assert_eq!(found["verdict"].as_str(), Some("violated"), "{found}");
}

/// An array filled from its end, each step also writing the element below: the joins of
/// its segment bounds drop the facets with coefficients near `2^63` that the 64-bit ranges
/// of the offsets gave, and the solver answers path focusing's queries again. The near
/// miss is refuted by a native run.
#[test]
fn a_fill_from_the_end_that_overwrites_below() {
    check_program("fill_down_overwrite.c");
    let report = run(
        &common::program("fill_down_overwrite_false.c"),
        "focus",
        "poly",
        &[],
    );
    let found = common::check_at_line(&report, 18).expect("a verdict on the line");
    assert_eq!(found["verdict"].as_str(), Some("violated"), "{found}");
}

/// With predicates, each part of the state takes a path on its own, so `flag != 0` is
/// decided per part (the shape of ikos/prover 13); the near miss is refuted by a native run.
#[test]
fn partwise_paths() {
    check_program("phases_partwise.c");
    needs_technique("phases_partwise.c", "partwise-paths", &[18]);
    let report = run(&common::program("phases_partwise.c"), "focus", "poly", &[]);
    let found = common::check_at_line(&report, 20).expect("a verdict on the line");
    assert_eq!(found["verdict"].as_str(), Some("violated"), "{found}");
}

/// `x & -8`, `x | 4` and `x | INT_MIN` read signed are bounded by `x` and the
/// mask, and `x ^ 31` of an `x` in `[0, 31]` is `31 - x`, which the loops' joins need.
#[test]
fn bitwise_bounds() {
    check_program("bitwise_bounds.c");
    needs_technique("bitwise_bounds.c", "bitwise-bounds", &[15, 17, 18, 22]);
}

/// Extrapolation with a care set keeps the bound widening loses. Both
/// assertions are proved by the care-set stage, and stay unknown with `-Z care-set=off`.
#[test]
fn care_set_extrapolation() {
    check_program_with("care_set.c", &["--no-counterexamples"]);
    let path = common::program("care_set.c");
    let args = ["--timeout", "30", "--no-counterexamples"];
    let on = common::check_json(&path, &args);
    let mut off_args = args.to_vec();
    off_args.extend_from_slice(&["-Z", "care-set=off"]);
    let off = common::check_json(&path, &off_args);
    for line in [20, 37] {
        let verdict = |r: &Value| {
            common::check_at_line(r, line).expect("a verdict")["verdict"]
                .as_str()
                .unwrap_or("")
                .to_string()
        };
        assert_eq!(verdict(&on), "proved", "care_set.c:{line} with care sets");
        assert_eq!(
            verdict(&off),
            "unknown",
            "care_set.c:{line} without care sets"
        );
    }
    let care: Vec<&Value> = on["functions"]
        .as_array()
        .expect("functions")
        .iter()
        .filter_map(|f| f["stages"].as_array())
        .flatten()
        .filter(|s| s["stage"] == "care sets")
        .collect();
    assert_eq!(care.len(), 1, "one care-set stage in {on}");
    assert!(
        care[0]["detail"]
            .as_str()
            .unwrap_or("")
            .starts_with("2 proved"),
        "the proofs are the care-set stage's: {}",
        care[0]
    );
}

/// A narrow unsigned global whose constant initial value reaches a loop head (the
/// wrong proofs of csmith 42012 and 42092 by relational congruences). The counterexample
/// search is off so that the failing assertion reaches every stage.
#[test]
fn narrow_unsigned_global() {
    check_program_with("narrow_unsigned_global.c", &["--no-counterexamples"]);
}

/// Bounds of linear templates coupled with a parity (`0 <= 2n - i <= 1`), found by
/// the solver in the relational stage; unknown with the stage off.
#[test]
fn template_bounds() {
    check_program_with("template_bounds.c", &["--no-counterexamples"]);
    needs_technique(
        "template_bounds.c",
        "relational-congruences",
        &TEMPLATE_BOUNDS_LINES,
    );
}

/// The assertions of `template_bounds.c` that only the template bounds prove.
const TEMPLATE_BOUNDS_LINES: [u32; 2] = [16, 28];

/// A callback in a table runs within the call through it: the globals stay cells between
/// calls, and the call may change them.
#[test]
fn callbacks_run_within_calls() {
    check_program("callbacks_in_a_table.c");
}

/// A signal handler may run between any two instructions, and may write only `volatile
/// sig_atomic_t` objects: their loads are arbitrary, other globals are cells.
#[test]
fn a_signal_handler_writes_only_volatile_objects() {
    check_program("signal_handler.c");
}
