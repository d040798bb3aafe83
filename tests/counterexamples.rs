//! Counterexamples on small C programs written for the purpose, through the real binary:
//! each buggy program yields `violated` (exit status 1), a harness that reaches the error
//! when compiled with the program and run (exit status 97), and a violation witness that
//! parses as YAML with the SV-COMP 2.0 structure. A correct program never yields `violated`.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

struct Run {
    dir: tempfile::TempDir,
    source: PathBuf,
    output: Output,
}

impl Run {
    fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }

    fn harness(&self) -> PathBuf {
        self.dir.path().join("harness.c")
    }

    fn witness(&self) -> PathBuf {
        self.dir.path().join("witness.yml")
    }
}

/// Writes `program` and runs `polyfocus check` on it with `--harness` and `--witness`.
fn check(name: &str, program: &str, extra: &[&str]) -> Run {
    let dir = tempfile::tempdir().expect("temporary directory");
    let source = dir.path().join(format!("{name}.c"));
    std::fs::write(&source, program).expect("program written");
    let output = Command::new(env!("CARGO_BIN_EXE_polyfocus"))
        .arg("check")
        .arg(&source)
        .args(["--timeout", "20", "--harness"])
        .arg(dir.path().join("harness.c"))
        .arg("--witness")
        .arg(dir.path().join("witness.yml"))
        .args(extra)
        .output()
        .expect("polyfocus runs");
    Run {
        dir,
        source,
        output,
    }
}

#[track_caller]
fn assert_violated(run: &Run) {
    let stdout = run.stdout();
    assert_eq!(
        run.output.status.code(),
        Some(1),
        "expected exit status 1 (violated)\nstdout:\n{stdout}\nstderr:\n{}",
        String::from_utf8_lossy(&run.output.stderr)
    );
    assert!(stdout.contains(": violated ["), "{stdout}");
    assert!(stdout.contains("replayed natively"), "{stdout}");
}

/// Compiles the program with the harness following the harness' own instructions and runs
/// it: the exit status must be 97 (error reached).
#[track_caller]
fn assert_harness_fails(run: &Run) {
    let out = common::native::run_harness(run.dir.path());
    assert_eq!(
        out.status.code(),
        Some(97),
        "the harness did not reach the error: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("POLYFOCUS-ERROR-REACHED"));
}

/// Parses the witness and checks its structure; returns the number of `function_return`
/// waypoints.
#[track_caller]
fn assert_witness(run: &Run, source_name: &Path) -> usize {
    let text = std::fs::read_to_string(run.witness()).expect("witness written");
    let doc: serde_yaml::Value = serde_yaml::from_str(&text).expect("witness is YAML");
    let entries = doc.as_sequence().expect("a list of entries");
    assert_eq!(entries.len(), 1, "{text}");
    let entry = &entries[0];
    assert_eq!(
        entry["entry_type"].as_str(),
        Some("violation_sequence"),
        "{text}"
    );
    let meta = &entry["metadata"];
    assert_eq!(meta["format_version"].as_str(), Some("2.0"), "{text}");
    assert_eq!(
        meta["producer"]["name"].as_str(),
        Some("polyfocus"),
        "{text}"
    );
    assert!(
        meta["uuid"].as_str().is_some_and(|u| u.len() == 36),
        "{text}"
    );
    assert!(meta["creation_time"].as_str().is_some(), "{text}");
    let task = &meta["task"];
    assert_eq!(task["language"].as_str(), Some("C"), "{text}");
    assert_eq!(
        task["input_files"][0].as_str(),
        Some(source_name.display().to_string().as_str()),
        "{text}"
    );
    assert!(task["specification"]
        .as_str()
        .is_some_and(|s| s.contains("reach_error")));
    let content = entry["content"].as_sequence().expect("content is a list");
    assert!(!content.is_empty());
    let mut n_returns = 0;
    for (i, segment) in content.iter().enumerate() {
        let waypoints = segment["segment"].as_sequence().expect("a segment");
        assert_eq!(waypoints.len(), 1, "{text}");
        let wp = &waypoints[0]["waypoint"];
        assert_eq!(wp["action"].as_str(), Some("follow"));
        assert!(
            wp["location"]["line"].as_u64().is_some_and(|l| l > 0),
            "{text}"
        );
        assert!(wp["location"]["file_name"].as_str().is_some(), "{text}");
        let ty = wp["type"].as_str().expect("a waypoint type");
        if i + 1 == content.len() {
            assert_eq!(ty, "target", "{text}");
        } else {
            assert!(ty == "function_return" || ty == "assumption", "{text}");
            if ty == "function_return" {
                n_returns += 1;
                let c = &wp["constraint"];
                assert_eq!(c["format"].as_str(), Some("acsl_expression"));
                assert!(c["value"]
                    .as_str()
                    .is_some_and(|v| v.starts_with("\\result == ")));
            }
        }
    }
    n_returns
}

#[track_caller]
fn assert_all(name: &str, program: &str) -> (Run, usize) {
    let run = check(name, program, &[]);
    assert_violated(&run);
    assert_harness_fails(&run);
    let n = assert_witness(&run, &run.source);
    (run, n)
}

const PRELUDE: &str = "
extern void abort(void);
extern void __assert_fail(const char *, const char *, unsigned int, const char *)
    __attribute__((__nothrow__, __leaf__)) __attribute__((__noreturn__));
void reach_error() { __assert_fail(\"0\", \"t.c\", 3, \"reach_error\"); }
extern int __VERIFIER_nondet_int(void);
extern unsigned int __VERIFIER_nondet_uint(void);
void __VERIFIER_assert(int cond) { if (!(cond)) { ERROR: {reach_error();abort();} } return; }
";

#[test]
fn bug_at_depth_one() {
    let program = format!(
        "{PRELUDE}
int main(void) {{
  int x = __VERIFIER_nondet_int();
  if (x > 10 && x < 20 && x % 7 == 3)
    reach_error();
  return 0;
}}
"
    );
    let (run, n) = assert_all("depth1", &program);
    assert_eq!(n, 1);
    assert!(run.stdout().contains("= 17 (i32)"), "{}", run.stdout());
}

#[test]
fn bug_at_depth_1000_in_a_loop() {
    // An empty reach_error, as in several SV-COMP tasks: the replay runtime's own must win.
    let program = "
extern void abort(void);
void reach_error() {}
extern int __VERIFIER_nondet_int(void);
void __VERIFIER_assert(int cond) { if (!(cond)) { ERROR: {reach_error();abort();} } return; }
int main(void) {
  int k = __VERIFIER_nondet_int();
  int i = 0, s = 0;
  while (i < 1000) {
    i++;
    s += 3;
  }
  __VERIFIER_assert(!(s == 3000 && k == 5));
  return 0;
}
";
    let (run, n) = assert_all("depth1000", program);
    assert_eq!(n, 1);
    assert!(run.stdout().contains("= 5 (i32)"), "{}", run.stdout());
}

/// 32-bit programs are replayed with `-m32`: `scripts/setup` must install the 32-bit C
/// library and libgcc (`libc6-dev-i386`, `lib32gcc-12-dev`), or the native link fails
/// and every ILP32 counterexample is lost.
#[test]
fn bug_in_an_ilp32_program() {
    let program = format!(
        "{PRELUDE}
extern long __VERIFIER_nondet_long(void);
int main(void) {{
  long x = __VERIFIER_nondet_long();
  unsigned long y = (unsigned long)x + 1ul;
  if (x > 0 && y == 2147483648ul && sizeof(long) == 4)
    reach_error();
  return 0;
}}
"
    );
    let run = check("ilp32", &program, &["--data-model", "ILP32"]);
    assert_violated(&run);
    assert!(run.stdout().contains("= 2147483647"), "{}", run.stdout());
    assert_harness_fails(&run);
}

#[test]
fn bug_behind_unsigned_wraparound() {
    let program = format!(
        "{PRELUDE}
int main(void) {{
  unsigned int x = __VERIFIER_nondet_uint();
  unsigned int y = x + 10u;
  if (x > 1000u)
    __VERIFIER_assert(y > x);
  return 0;
}}
"
    );
    let (_run, n) = assert_all("wrap", &program);
    assert_eq!(n, 1);
}

#[test]
fn bug_behind_a_nondet_input_chain() {
    let program = format!(
        "{PRELUDE}
int main(void) {{
  int a = __VERIFIER_nondet_int();
  if (a <= 0 || a > 1000) return 0;
  int b = __VERIFIER_nondet_int();
  if (b != 3 * a) return 0;
  int c = __VERIFIER_nondet_int();
  if (c != b - a + 5) return 0;
  int d = __VERIFIER_nondet_int();
  __VERIFIER_assert(!(c > 100 && d == c * 2 && a % 2 == 1));
  return 0;
}}
"
    );
    let (_run, n) = assert_all("chain", &program);
    assert_eq!(n, 4);
}

#[test]
fn bug_in_an_inlined_callee() {
    let program = format!(
        "{PRELUDE}
static int scale(int x, int k) {{
  int r = x * k;
  if (r == 1234)
    reach_error();
  return r;
}}
int main(void) {{
  int x = __VERIFIER_nondet_int();
  int k = __VERIFIER_nondet_int();
  if (k != 2) return 0;
  return scale(x, k) > 0;
}}
"
    );
    let (run, n) = assert_all("callee", &program);
    assert_eq!(n, 2);
    assert!(run.stdout().contains("= 617 (i32)"), "{}", run.stdout());
}

#[test]
fn bug_in_a_library_function_with_arguments() {
    let program = "
extern void reach_error(void);
int f(int a, unsigned char b) {
  if (a > 7 && a + b == 300)
    reach_error();
  return a;
}
";
    // The replay of a violation from arbitrary arguments, without the precondition that
    // would turn it into `holds if a <= 7`.
    let run = check(
        "lib",
        program,
        &["--entry", "f", "-Z", "precondition-work=0"],
    );
    assert_violated(&run);
    assert_harness_fails(&run);
    assert_witness(&run, &run.source);
    assert!(
        run.stdout().contains("argument a = ") && run.stdout().contains("argument b = "),
        "{}",
        run.stdout()
    );
}

#[test]
fn correct_program_is_never_violated() {
    // The interval analysis cannot prove it (x == y is relational); the search must not
    // report a violation.
    let program = format!(
        "{PRELUDE}
int main(void) {{
  unsigned int x = __VERIFIER_nondet_uint();
  unsigned int y = x;
  while (x > 0u) {{
    x--;
    y--;
  }}
  __VERIFIER_assert(y == 0u);
  return 0;
}}
"
    );
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("ok.c");
    std::fs::write(&source, program).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_polyfocus"))
        .arg("check")
        .arg(&source)
        .args(["--timeout", "4"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_ne!(out.status.code(), Some(1), "{stdout}");
    assert!(!stdout.contains("violated ["), "{stdout}");
}

/// A replay that reaches the error is evidence only for the error site it reached: here the
/// lifted program cannot tell which one (the global array is memory, not modeled), and the
/// native run reaches the second one only (found by the differential soundness harness).
#[test]
fn a_replay_confirms_only_the_error_site_it_reached() {
    let program = "
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
unsigned long long g[2] = {8, 8};
int main(void) {
  g[1] = __VERIFIER_nondet_int();
  if (!(g[0] >= 8)) reach_error(); /* holds in every execution */
  if (!(g[0] != 8)) reach_error(); /* fails in every execution */
  return 0;
}
";
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("two_sites.c");
    std::fs::write(&source, program).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_polyfocus"))
        .args(["check", "--format", "json", "--timeout", "5"])
        .arg(&source)
        .output()
        .expect("polyfocus runs");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    let verdict_at = |line: &str| {
        report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["location"].as_str().unwrap_or("").contains(line))
            .map(|c| c["verdict"].as_str().unwrap_or("").to_string())
            .unwrap_or_else(|| panic!("no check at {line}: {report}"))
    };
    // It holds in every execution: the memory model reads `g[0]` from the
    // initializer, so it is proved (before memory was modeled it was unknown).
    assert_eq!(verdict_at(":7:"), "proved", "{report}");
    assert_eq!(verdict_at(":8:"), "violated", "{report}");
}

/// The JSON report of `polyfocus check` on `program`, written as `name.c`.
fn check_json(name: &str, program: &str) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join(format!("{name}.c"));
    std::fs::write(&source, program).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_polyfocus"))
        .args(["check", "--format", "json", "--timeout", "10"])
        .arg(&source)
        .output()
        .expect("polyfocus runs");
    serde_json::from_slice(&out.stdout).expect("JSON report")
}

// `main(int argc, char **argv)`: argc is an input the replay gives
// on the command line (two arguments after the program's name); the trace names it and
// shows its real value.
#[test]
fn main_with_argc_is_replayed_with_its_command_line() {
    let program = format!(
        "{PRELUDE}
int main(int argc, char **argv) {{
  int s = 0;
  for (int i = 0; i < argc; i++) s += 2;
  __VERIFIER_assert(s != 6);
  return 0;
}}
"
    );
    let (run, _) = assert_all("argc_loop", &program);
    let stdout = run.stdout();
    assert!(stdout.contains("argument argc = 3 (i32)"), "{stdout}");
    assert!(!stdout.contains("argc=0"), "{stdout}");
    assert!(stdout.contains("step "), "{stdout}");
    let harness = std::fs::read_to_string(run.harness()).unwrap();
    let command = harness
        .lines()
        .find(|l| l.contains("./cex "))
        .expect("the harness says how to run the program");
    let args = command
        .split("./cex ")
        .nth(1)
        .unwrap()
        .split(';')
        .next()
        .unwrap();
    assert_eq!(args.split_whitespace().count(), 2, "{harness}");
}

// A csmith-style `main` that reads argv through `strcmp`: a bug
// that does not depend on argv is confirmed, with argc = 1 in the trace (never 0).
#[test]
fn csmith_style_main_reading_argv_is_confirmed() {
    let program = format!(
        "#include <stdio.h>
#include <string.h>
{PRELUDE}
int main(int argc, char **argv) {{
  int print_hash_value = 0;
  if (argc == 2 && strcmp(argv[1], \"1\") == 0) print_hash_value = 1;
  int x = __VERIFIER_nondet_int();
  if (print_hash_value) printf(\"%d\\n\", x);
  __VERIFIER_assert(x != 123457);
  return 0;
}}
"
    );
    let report = check_json("csmith_style", &program);
    let check = &report["checks"][0];
    assert_eq!(check["verdict"], "violated", "{report}");
    let cex = &check["counterexample"];
    assert_eq!(cex["args"][0]["function"], "argc", "{report}");
    let argc: i64 = cex["args"][0]["value"].as_str().unwrap().parse().unwrap();
    assert!(argc >= 1, "{report}");
    let steps = cex["steps"].as_array().unwrap();
    assert!(
        steps.iter().all(|s| s["values"]
            .as_array()
            .unwrap()
            .iter()
            .all(|v| v[0] != "argc" || v[1].as_str() == Some(&argc.to_string()))),
        "{report}"
    );
}

// The harness recipe compiles a program that includes polyfocus.h
// (the analysis adds its directory to the include path) and calls printf (linked from the
// C library, not stubbed as an input).
#[test]
fn harness_of_a_program_with_polyfocus_h_and_printf() {
    let program = "#include <stdio.h>
#include \"polyfocus.h\"
int main(void) {
  int x = polyfocus_nondet_int();
  printf(\"x = %d\\n\", x);
  int y = polyfocus_nondet_int();
  polyfocus_assert(x + y != 4242);
  return 0;
}
";
    let run = check("header_printf", program, &[]);
    assert_violated(&run);
    assert_harness_fails(&run);
    let harness = std::fs::read_to_string(run.harness()).unwrap();
    assert!(!harness.contains(" printf()"), "{harness}");
}

// `scanf("%d", &x)` writes x: the analysis never takes x as its
// initial value, and the replay serves the conversion as an input, so a bug behind it is
// confirmed with the value read.
#[test]
fn scanf_values_are_arbitrary_and_replayed() {
    let program = format!(
        "#include <stdio.h>
{PRELUDE}
int main(void) {{
  int x = 0;
  long y = 0;
  if (scanf(\"%d %ld\", &x, &y) != 2) return 0;
  __VERIFIER_assert(x == 0 || y != 4242);
  return 0;
}}
"
    );
    let run = check("scanf", &program, &[]);
    assert_violated(&run);
    let stdout = run.stdout();
    assert!(stdout.contains("scanf %ld = 4242 (i64)"), "{stdout}");
    assert_harness_fails(&run);
    // Never proved: x is whatever was read, not its initial 0.
    let report = check_json(
        "scanf_zero",
        "#include <stdio.h>
#include \"polyfocus.h\"
int main(void) {
  int x = 0;
  scanf(\"%d\", &x);
  polyfocus_assert(x == 0);
  return 0;
}
",
    );
    assert_eq!(report["checks"][0]["verdict"], "violated", "{report}");
}
