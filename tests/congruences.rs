//! Relational congruences (`analysis::relational_congruence`) on
//! `tests/programs/congruences`: each program is first run natively (clang-19) on a grid of
//! inputs, with an assertion that reports its line, and the facts of the annotations
//! (`tests/common/annotations.rs`) must be what the native runs show (wrap-around, a
//! different parity or C's negative remainders break the near relations). Then polyfocus
//! must agree with the annotations in the runs `on` and `off` (`-Z relational-congruences`
//! on and off): an assertion the relations prove is unknown without them.

mod common;

use common::annotations::annotated;
use std::path::{Path, PathBuf};

/// The first input (`w`, a start value: wraps near the ends of 32 bits) and the second
/// (`n`, a loop count in [0, 1000], 256 wraps an 8-bit counter).
const STARTS: &[i64] = &[
    i32::MIN as i64,
    -3,
    -2,
    -1,
    0,
    1,
    2,
    3,
    255,
    256,
    1431655765,
    i32::MAX as i64,
];
const COUNTS: &[i64] = &[-1, 0, 1, 2, 3, 255, 256, 257, 1000];

fn programs() -> Vec<PathBuf> {
    let res = common::c_programs(&common::program("congruences"));
    assert!(!res.is_empty(), "programs found");
    res
}

/// Every start with every count is the input of a native run.
#[test]
fn annotations_hold_natively() {
    let inputs = common::native::input_pairs(STARTS, COUNTS);
    common::native::assert_facts_hold(&programs(), common::native::ENTRIES_HEADER, &inputs);
}

#[test]
fn relations_prove_what_they_must_and_nothing_else() {
    let mut wrong = Vec::new();
    for path in programs() {
        let program = annotated(&path);
        program.assert_runs_known(&["on", "off"]);
        let entry = common::native::void_entries(&path);
        let common_args = ["--entry", &entry, "--timeout", "30", "--no-counterexamples"];
        let mut on_args = common_args.to_vec();
        on_args.extend_from_slice(&["-Z", "relational-congruences=on"]);
        let on = common::check_json(&path, &on_args);
        let mut off_args = common_args.to_vec();
        off_args.extend_from_slice(&["-Z", "relational-congruences=off"]);
        let off = common::check_json(&path, &off_args);
        wrong.extend(program.disagreements(&on, "on"));
        wrong.extend(program.disagreements(&off, "off"));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Two programs of the csmith generator (seeds 42012 and 42092, kept verbatim in
/// `tests/programs/known_wrong`) on which the relational-congruence stage proved an
/// assertion that every execution fails (`g_5 != 0` with `g_5` never written; `g_38 != 0`):
/// the solver's formula read a constant moved into an unsigned narrow phi at a target cut
/// point signed (`0xffff` as -1), while every source read the phi unsigned. Fixed in
/// `smt::RegionFormula::new`; certification now also refutes such a misreading
/// (`analysis::certify::Refutation::Misread`).
#[test]
fn relational_congruences_do_not_prove_the_known_wrong_cases() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/known_wrong");
    for (file, line) in [
        ("relational_csmith_42012.c", 80),
        ("relational_csmith_42092.c", 116),
    ] {
        let path = dir.join(file);
        let report = common::check_json(
            &path,
            &[
                "-Z",
                "relational-congruences=on",
                "--no-counterexamples",
                "--timeout",
                "4",
                "--cflags=-I/usr/include/csmith",
            ],
        );
        assert_ne!(
            common::verdict_at(&report, line),
            "proved",
            "{file}:{line}: WRONG proof"
        );
    }
}

/// The hand-written shape of the two cases above (`tests/programs/narrow_unsigned_global.c`):
/// with the counterexample search off, the stage must not prove the failing assertion after
/// the loops (every execution fails it), and the one that holds is proved.
#[test]
fn a_narrow_unsigned_global_read_in_a_loop_is_read_unsigned() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/narrow_unsigned_global.c");
    let report = common::check_json(
        &path,
        &[
            "-Z",
            "relational-congruences=on",
            "--no-counterexamples",
            "--timeout",
            "10",
        ],
    );
    assert_eq!(common::verdict_at(&report, 24), "proved", "{report}");
    assert_ne!(
        common::verdict_at(&report, 25),
        "proved",
        "line 25: WRONG proof"
    );
}
