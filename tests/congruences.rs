//! Relational congruences (issue 17, `analysis::relational_congruence`) on
//! `tests/programs/congruences`: each program is first run natively (clang-19) on a grid of
//! inputs, with an assertion that reports its line; an assertion annotated `// proved` must
//! never fail there, one annotated `// fails` must fail on some input (wrap-around, a
//! different parity or C's negative remainders break the near relation). Then polyfocus
//! must prove every `// proved` assertion, leave it unknown with
//! `-Z relational-congruences=off` (the relations are what proves it), and never prove a
//! `// fails` one in either mode.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Stands in for `polyfocus.h` natively: each function reads its inputs from
/// `POLYFOCUS_INPUTS` (the same list for every function), a failed assumption returns from
/// the function (each one returns `void`), a failed assertion prints its line.
const NATIVE_HEADER: &str = r#"
#include <stdio.h>
#include <stdlib.h>
static int polyfocus_nondet_int(void) {
  static int k;
  static long v[2];
  if (k == 0) {
    char *end;
    v[0] = strtol(getenv("POLYFOCUS_INPUTS"), &end, 10);
    v[1] = strtol(end, NULL, 10);
  }
  return (int)v[k++ % 2];
}
#define polyfocus_assume(c) do { if (!(c)) return; } while (0)
#define polyfocus_assert(c) do { if (!(c)) { printf("%d\n", __LINE__); fflush(stdout); } } while (0)
"#;

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
    let dir = common::program("congruences");
    let mut res: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/programs/congruences")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    res.sort();
    assert!(!res.is_empty(), "programs found");
    res
}

#[derive(Debug, PartialEq)]
enum Expect {
    Proved,
    Fails,
}

fn annotations(path: &Path) -> Vec<(u32, Expect)> {
    let text = std::fs::read_to_string(path).expect("readable");
    let mut res = vec![];
    for (i, line) in text.lines().enumerate() {
        if !line.contains("polyfocus_assert(") {
            continue;
        }
        let note = line.split("// ").nth(1).unwrap_or("").trim();
        let expect = match note {
            "proved" => Expect::Proved,
            "fails" => Expect::Fails,
            _ => panic!("{}:{}: assertion without annotation", path.display(), i + 1),
        };
        res.push((i as u32 + 1, expect));
    }
    res
}

/// The entry functions: every `void NAME(void)` of the program.
fn entries(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("readable");
    let names: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("void ")?.strip_suffix("(void) {"))
        .collect();
    assert!(!names.is_empty(), "entries of {}", path.display());
    names.join(",")
}

/// The lines of the assertions that fail natively on some input of the grid.
fn failing_natively(path: &Path) -> BTreeSet<u32> {
    let dir = std::env::temp_dir().join(format!(
        "polyfocus-congruences-{}-{}",
        std::process::id(),
        path.file_stem().expect("a name").to_string_lossy()
    ));
    std::fs::create_dir_all(&dir).expect("scratch folder");
    std::fs::write(dir.join("polyfocus.h"), NATIVE_HEADER).expect("header");
    let exe = dir.join("a.out");
    let status = Command::new("clang-19")
        .args(["-O0", "-w", "-I"])
        .arg(&dir)
        .arg(path)
        .arg("-o")
        .arg(&exe)
        .status()
        .expect("clang-19 runs");
    assert!(status.success(), "native build of {}", path.display());
    let mut failing = BTreeSet::new();
    for w in STARTS {
        for n in COUNTS {
            let out = Command::new(&exe)
                .env("POLYFOCUS_INPUTS", format!("{w} {n}"))
                .output()
                .expect("native run");
            assert_eq!(out.status.code(), Some(0), "{} on {w} {n}", path.display());
            for line in String::from_utf8_lossy(&out.stdout).lines() {
                failing.insert(line.trim().parse::<u32>().expect("a line number"));
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    failing
}

fn verdict(report: &serde_json::Value, line: u32) -> String {
    common::check_at_line(report, line)
        .unwrap_or_else(|| panic!("no check at line {line}: {report}"))["verdict"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

#[test]
fn annotations_hold_natively() {
    for path in programs() {
        let failing = failing_natively(&path);
        for (line, expect) in annotations(&path) {
            let fails = failing.contains(&line);
            assert_eq!(
                fails,
                expect == Expect::Fails,
                "{}:{line} annotated {expect:?}, natively fails: {fails}",
                path.display()
            );
        }
    }
}

#[test]
fn relations_prove_what_they_must_and_nothing_else() {
    for path in programs() {
        let entry = entries(&path);
        let common_args = ["--entry", &entry, "--timeout", "30", "--no-counterexamples"];
        let mut on_args = common_args.to_vec();
        on_args.extend_from_slice(&["-Z", "relational-congruences=on"]);
        let on = common::check_json(&path, &on_args);
        let mut off_args = common_args.to_vec();
        off_args.extend_from_slice(&["-Z", "relational-congruences=off"]);
        let off = common::check_json(&path, &off_args);
        for (line, expect) in annotations(&path) {
            let (got_on, got_off) = (verdict(&on, line), verdict(&off, line));
            match expect {
                Expect::Proved => {
                    assert_eq!(got_on, "proved", "{}:{line}", path.display());
                    assert_eq!(got_off, "unknown", "{}:{line} off", path.display());
                }
                Expect::Fails => {
                    assert_ne!(got_on, "proved", "{}:{line} WRONG", path.display());
                    assert_ne!(got_off, "proved", "{}:{line} off: WRONG", path.display());
                }
            }
        }
    }
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
            verdict(&report, line),
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
    assert_eq!(verdict(&report, 24), "proved", "{report}");
    assert_ne!(verdict(&report, 25), "proved", "line 25: WRONG proof");
}
