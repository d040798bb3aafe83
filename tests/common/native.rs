//! Native runs of test programs with clang-19: the ground truth their annotations and the
//! analysis's verdicts are checked against.

use super::annotations::annotated;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Stands in for `polyfocus.h` natively in programs whose entries are `void NAME(void)`
/// functions, all run by `main`: each reads its inputs from `POLYFOCUS_INPUTS` (the same two
/// for every function, in turn), a failed assumption returns from the function, a failed
/// assertion prints its line.
pub const ENTRIES_HEADER: &str = r#"
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

/// The entries of a program written for [`ENTRIES_HEADER`]: every `void NAME(void)`, as an
/// `--entry` list.
pub fn void_entries(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("readable");
    let names: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("void ")?.strip_suffix("(void) {"))
        .collect();
    assert!(!names.is_empty(), "entries of {}", path.display());
    names.join(",")
}
use std::process::Command;

/// Builds the C `source` natively with clang-19 and `flags` and runs it: its standard output,
/// trimmed.
#[track_caller]
pub fn native_stdout(source: &str, flags: &[&str]) -> String {
    let dir = tempfile::tempdir().expect("temporary directory");
    let src = dir.path().join("native.c");
    std::fs::write(&src, source).expect("writing the native program");
    let exe = dir.path().join("native");
    let status = Command::new("clang-19")
        .args(flags)
        .arg("-w")
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .status()
        .expect("clang-19 runs");
    assert!(status.success(), "native build");
    let out = Command::new(&exe)
        .output()
        .expect("the native program runs");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Builds `program` natively against `header` (standing in for `polyfocus.h`: it reads the
/// inputs from `POLYFOCUS_INPUTS` and prints the line of each failed assertion) and runs it
/// once per element of `inputs`: the lines of the assertions that failed in some run. Every
/// run must exit 0.
#[track_caller]
pub fn failing_assertions(program: &Path, header: &str, inputs: &[String]) -> BTreeSet<u32> {
    let dir = tempfile::tempdir().expect("temporary directory");
    std::fs::write(dir.path().join("polyfocus.h"), header).expect("writing the header");
    let exe = dir.path().join("a.out");
    let status = Command::new("clang-19")
        .args(["-O0", "-w", "-I"])
        .arg(dir.path())
        .arg(program)
        .arg("-o")
        .arg(&exe)
        .status()
        .expect("clang-19 runs");
    assert!(status.success(), "native build of {}", program.display());
    let mut failing = BTreeSet::new();
    for input in inputs {
        let out = Command::new(&exe)
            .env("POLYFOCUS_INPUTS", input)
            .output()
            .expect("the native program runs");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{} on {input}",
            program.display()
        );
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            failing.insert(line.trim().parse::<u32>().expect("a line number"));
        }
    }
    failing
}

/// Every pair `A B` of an element of `first` and one of `second`: the inputs of runs of
/// [`failing_assertions`].
pub fn input_pairs(first: &[i64], second: &[i64]) -> Vec<String> {
    first
        .iter()
        .flat_map(|a| second.iter().map(move |b| format!("{a} {b}")))
        .collect()
}

/// Fails the test unless, for each of `programs` run on `inputs` as [`failing_assertions`]
/// does, the assertions annotated `fails` are those some run fails.
#[track_caller]
pub fn assert_facts_hold(programs: &[PathBuf], header: &str, inputs: &[String]) {
    let mut wrong = Vec::new();
    for path in programs {
        let failing = failing_assertions(path, header, inputs);
        wrong.extend(annotated(path).native_disagreements(&failing));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Builds and runs the counterexample harness `dir/harness.c` by the recipe its comment
/// gives (compile, objcopy, link; each must succeed), then runs the program as written there,
/// with an empty standard input: its output.
#[track_caller]
pub fn run_harness(dir: &std::path::Path) -> std::process::Output {
    use std::process::{Command, Stdio};
    let harness = std::fs::read_to_string(dir.join("harness.c")).expect("harness written");
    let mut commands: Vec<String> = harness
        .lines()
        .take_while(|l| !l.starts_with(" */"))
        .filter_map(|l| l.strip_prefix(" *   "))
        .filter(|l| l.starts_with("clang-19 ") || l.starts_with("objcopy "))
        .map(|l| l.replace("THIS_FILE.c", "harness.c"))
        .collect();
    assert!(
        commands.len() >= 3,
        "instructions in the harness:\n{harness}"
    );
    // The last command links and runs the program: run it as written, without the echo.
    let last = commands.pop().expect("a link command");
    let (link, run_it) = last.split_once(" && ").expect("link && run");
    commands.push(link.to_string());
    for cmd in &commands {
        let out = Command::new("sh")
            .arg("-c")
            .arg(cmd)
            .current_dir(dir)
            .output()
            .expect("sh runs");
        assert!(
            out.status.success(),
            "`{cmd}` failed: {}\n{harness}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let run_it = run_it.split(';').next().unwrap_or(run_it);
    Command::new("sh")
        .arg("-c")
        .arg(run_it)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("the harness runs")
}
