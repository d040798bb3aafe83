//! Assumptions of short-circuit conditions (issue 13, point 2): `polyfocus_assume(a && b)`
//! is a phi of booleans in the IR, and the pass `ir::pass::AssumeThroughPhis` must make both
//! conjuncts hold at loop heads, with both engines, without losing an execution.
//!
//! Each program of `tests/programs/assume_phis` is first run natively (clang-19) on a grid
//! of inputs, with an assertion that reports its line: an assertion annotated `// proved`
//! or `// holds` must never fail there, one annotated `// fails` must fail on some input.
//! Then polyfocus must prove every `// proved` assertion with `-Z engine=classic` and the
//! default engine, never prove a `// fails` one (and refute it with its counterexample
//! search), and never refute a `// holds` one.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Debug, PartialEq)]
enum Expect {
    /// Holds natively; both engines prove it.
    Proved,
    /// Holds natively; never refuted.
    Holds,
    /// Fails natively on some input; never proved.
    Fails,
}

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
    let dir = common::program("assume_phis");
    let mut res: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/programs/assume_phis")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    res.sort();
    assert!(res.len() >= 4, "programs found: {res:?}");
    res
}

fn annotations(path: &Path) -> Vec<(u32, Expect)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut res = vec![];
    for (i, line) in text.lines().enumerate() {
        if !line.contains("polyfocus_assert") {
            continue;
        }
        let note = line.split("// ").nth(1).unwrap_or("").trim();
        let expect = if note.starts_with("proved") {
            Expect::Proved
        } else if note.starts_with("fails") {
            Expect::Fails
        } else if note.starts_with("holds") {
            Expect::Holds
        } else {
            panic!("{}:{}: assertion without annotation", path.display(), i + 1);
        };
        res.push((i as u32 + 1, expect));
    }
    res
}

/// The lines of the assertions that fail natively on some input of the grid.
fn failing_natively(path: &Path) -> BTreeSet<u32> {
    let dir = std::env::temp_dir().join(format!(
        "polyfocus-assume-phis-{}-{}",
        std::process::id(),
        path.file_stem().unwrap().to_string_lossy()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("polyfocus.h"), NATIVE_HEADER).unwrap();
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
    for a in VALUES {
        for b in VALUES {
            let out = Command::new(&exe)
                .env("POLYFOCUS_INPUTS", format!("{a} {b}"))
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(0), "{} on {a} {b}", path.display());
            for line in String::from_utf8_lossy(&out.stdout).lines() {
                failing.insert(line.trim().parse::<u32>().unwrap());
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
fn both_engines_keep_every_conjunct() {
    for path in programs() {
        for engine in ["classic", "focus"] {
            let engine_arg = format!("engine={engine}");
            let report = common::check_json(&path, &["-Z", &engine_arg, "--no-counterexamples"]);
            for (line, expect) in annotations(&path) {
                let got = verdict(&report, line);
                match expect {
                    Expect::Proved => {
                        assert_eq!(
                            got,
                            "proved",
                            "{}:{line} -Z engine={engine}",
                            path.display()
                        )
                    }
                    Expect::Fails => {
                        assert_ne!(
                            got,
                            "proved",
                            "{}:{line} -Z engine={engine}",
                            path.display()
                        )
                    }
                    Expect::Holds => assert_ne!(
                        got,
                        "violated",
                        "{}:{line} -Z engine={engine}",
                        path.display()
                    ),
                }
            }
        }
    }
}

#[test]
fn a_disjunction_keeps_the_executions_of_both_sides() {
    let path = common::program("assume_phis/violated.c");
    let report = common::check_json(&path, &[]);
    for (line, expect) in annotations(&path) {
        let got = verdict(&report, line);
        match expect {
            Expect::Fails => assert_eq!(got, "violated", "{}:{line}", path.display()),
            _ => assert_ne!(got, "violated", "{}:{line}", path.display()),
        }
    }
}
