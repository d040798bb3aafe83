//! Assumptions of short-circuit conditions: `polyfocus_assume(a && b)` is a phi of booleans
//! in the IR, and the pass `ir::pass::AssumeThroughPhis` must make both conjuncts hold at
//! loop heads, with both engines, without losing an execution.
//!
//! Each program of `tests/programs/assume_phis` is first run natively (clang-19) on a grid
//! of inputs, with an assertion that reports its line: the facts of the annotations
//! (`tests/common/annotations.rs`) must be what the native runs show. Then polyfocus must
//! agree with the annotations in the runs `classic` and `focus` (each engine, without the
//! counterexample search) and, for `violated.c`, `default` (the default configuration).

mod common;

use common::annotations::annotated;
use std::path::PathBuf;

/// Stands in for `polyfocus.h` natively: inputs come from `POLYFOCUS_INPUTS`, a failed
/// assumption ends the run quietly, a failed assertion prints its line.
const NATIVE_HEADER: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
static int polyfocus_nondet_int(void) {
  static char *next;
  if (!next) next = getenv("POLYFOCUS_INPUTS");
  char *end;
  long v = strtol(next, &end, 10);
  if (end == next) _exit(3);
  next = end;
  return (int)v;
}
#define polyfocus_assume(c) do { if (!(c)) _exit(0); } while (0)
#define polyfocus_assert(c) do { if (!(c)) { printf("%d\n", __LINE__); fflush(stdout); } } while (0)
"#;

/// Inputs tried natively, for each of the program's (at most two) nondet calls.
const VALUES: &[i64] = &[
    i32::MIN as i64,
    -1000,
    -1,
    0,
    1,
    2,
    3,
    90,
    91,
    499,
    500,
    501,
    700,
    1000,
    1001,
    i32::MAX as i64,
];

fn programs() -> Vec<PathBuf> {
    let res = common::c_programs(&common::program("assume_phis"));
    assert!(res.len() >= 4, "programs found: {res:?}");
    res
}

/// Every pair of `VALUES` is the input of a native run.
#[test]
fn annotations_hold_natively() {
    let inputs = common::native::input_pairs(VALUES, VALUES);
    common::native::assert_facts_hold(&programs(), NATIVE_HEADER, &inputs);
}

#[test]
fn both_engines_keep_every_conjunct() {
    let mut wrong = Vec::new();
    for path in programs() {
        let program = annotated(&path);
        program.assert_runs_known(&["classic", "focus", "default"]);
        for engine in ["classic", "focus"] {
            let engine_arg = format!("engine={engine}");
            let report = common::check_json(&path, &["-Z", &engine_arg, "--no-counterexamples"]);
            wrong.extend(program.disagreements(&report, engine));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_disjunction_keeps_the_executions_of_both_sides() {
    let path = common::program("assume_phis/violated.c");
    let report = common::check_json(&path, &[]);
    let wrong = annotated(&path).disagreements(&report, "default");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
