//! Summaries of what functions that stay calls return (`driver::contracts::returns`) on
//! `tests/programs/summaries`: each program is first run natively (clang-19) on a grid of
//! inputs, with an assertion that reports its line, and the facts of the annotations
//! (`tests/common/annotations.rs`) must be what the native runs show. Then polyfocus, with
//! every function analyzed on its own (nothing inlined), must agree with the annotations in
//! the runs `on` and `off` (`-Z return-summaries` on and off): an assertion over a result
//! that a summary bounds is unknown without it.

mod common;

use common::annotations::annotated;
use std::path::PathBuf;

/// Inputs near the ends of 32 bits, around zero and near the programs' constants.
const VALUES: &[i64] = &[
    i32::MIN as i64,
    -9,
    -1,
    0,
    1,
    2,
    3,
    6,
    7,
    8,
    9,
    255,
    256,
    i32::MAX as i64,
];

fn programs() -> Vec<PathBuf> {
    let res = common::c_programs(&common::program("summaries"));
    assert!(!res.is_empty(), "programs found");
    res
}

#[test]
fn annotations_hold_natively() {
    let inputs = common::native::input_pairs(VALUES, VALUES);
    common::native::assert_facts_hold(&programs(), common::native::ENTRIES_HEADER, &inputs);
}

#[test]
fn summaries_prove_what_they_must_and_nothing_else() {
    let mut wrong = Vec::new();
    for path in programs() {
        let program = annotated(&path);
        program.assert_runs_known(&["on", "off"]);
        let entry = common::native::void_entries(&path);
        let common_args = [
            "--entry",
            &entry,
            "--timeout",
            "30",
            "--no-counterexamples",
            "-Z",
            "inline-program-limit=0",
            "-Z",
            "inline-leaf-limit=0",
        ];
        let mut on_args = common_args.to_vec();
        on_args.extend_from_slice(&["-Z", "return-summaries=on"]);
        let on = common::check_json(&path, &on_args);
        let mut off_args = common_args.to_vec();
        off_args.extend_from_slice(&["-Z", "return-summaries=off"]);
        let off = common::check_json(&path, &off_args);
        wrong.extend(program.disagreements(&on, "on"));
        wrong.extend(program.disagreements(&off, "off"));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
