//! Whole projects through the real binary: a multi-file Makefile project built
//! with `polyfocus scan -- make`, a compilation database with `check -p`, exit codes per
//! `--fail-on`, and the same report whatever `-j`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn polyfocus(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_polyfocus"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("polyfocus runs")
}

fn code(out: &Output) -> i32 {
    out.status.code().expect("exit status")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&path, text).unwrap();
    path
}

/// A copy of `examples/ci` (sources and Makefile) in a fresh directory.
fn ci_example() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/ci");
    for file in [
        "Makefile",
        "src/util.h",
        "src/util.c",
        "src/app.c",
        "src/tool.c",
    ] {
        let text = std::fs::read_to_string(example.join(file)).unwrap();
        write(dir.path(), file, &text);
    }
    dir
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}):\n{text}"))
}

/// The verdicts of each program of a multi-program JSON report, as `program: [verdict]`.
fn verdicts(report: &serde_json::Value) -> Vec<(String, Vec<String>)> {
    report["programs"]
        .as_array()
        .expect("programs")
        .iter()
        .map(|p| {
            let checks = p["report"]["checks"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            (
                p["program"].as_str().unwrap().to_string(),
                checks
                    .iter()
                    .map(|c| c["verdict"].as_str().unwrap().to_string())
                    .collect(),
            )
        })
        .collect()
}

#[test]
fn scan_builds_a_make_project_and_analyzes_each_linked_program() {
    let dir = ci_example();
    let out = polyfocus(
        dir.path(),
        &[
            "scan",
            "--out",
            ".pf",
            "--format",
            "json",
            "-o",
            "report.json",
            "--fail-on",
            "false",
            "--no-counterexamples",
            "--",
            "make",
            "-B",
            "all",
        ],
    );
    assert_eq!(code(&out), 0, "stderr:\n{}", stderr(&out));
    // The normal build happened: the programs exist and run.
    assert!(dir.path().join("app").is_file() && dir.path().join("tool").is_file());
    let status = Command::new(dir.path().join("app")).status().unwrap();
    assert!(status.success());
    let report = json(&std::fs::read_to_string(dir.path().join("report.json")).unwrap());
    let v = verdicts(&report);
    let names: Vec<&str> = v.iter().map(|(n, _)| n.as_str()).collect();
    // One program per link, the library's objects found through libutil.a.
    assert_eq!(names, ["app", "tool"], "{report:#}");
    let app = &v[0].1;
    assert!(app.len() >= 3, "app: {app:?}");
    assert!(app.iter().all(|x| x == "proved"), "app: {app:?}");
    let tool = &v[1].1;
    assert!(tool.contains(&"unknown".to_string()), "tool: {tool:?}");
    assert_eq!(report["verdict"], "unknown");
    // Every program saw the library: count_down's assertion is in both.
    for p in report["programs"].as_array().unwrap() {
        let checks = p["report"]["checks"].as_array().unwrap();
        assert!(
            checks
                .iter()
                .any(|c| c["location"].as_str().unwrap_or("").contains("util.c")),
            "{p:#}"
        );
    }
}

#[test]
fn scan_reports_a_build_that_compiles_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = polyfocus(dir.path(), &["scan", "--out", ".pf", "--", "true"]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("nothing to analyze"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn scan_catches_a_makefile_that_hard_codes_gcc() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "Makefile",
        "prog: a.c b.c\n\tgcc -O1 -o prog a.c b.c\n",
    );
    write(
        dir.path(),
        "a.c",
        "#include <assert.h>\nint twice(int);\nint main(void) { int s = 0;\n  for (int i = 0; i < 10; i++) s = twice(i);\n  assert(s == 18);\n  return 0; }\n",
    );
    write(dir.path(), "b.c", "int twice(int x) { return 2 * x; }\n");
    let out = polyfocus(
        dir.path(),
        &["scan", "--out", ".pf", "--no-counterexamples", "--", "make"],
    );
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("proved [main]"), "{}", stdout(&out));
}

/// A project of three translation units; `b.c` needs its own `-D` and `-I` flags.
fn compdb_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "src/main.c",
        "#include <assert.h>\n#include \"lib.h\"\nint main(int argc, char **argv) {\n  (void)argv;\n  int n = bounded(argc);\n  assert(n <= LIMIT);\n  int t = 0;\n  for (int i = 0; i < n; i++) t++;\n  assert(t == n);\n  return 0;\n}\n",
    );
    write(
        root,
        "include/lib.h",
        "#define LIMIT 64\nint bounded(int x);\n",
    );
    write(
        root,
        "src/lib.c",
        "#include \"lib.h\"\n#ifndef FROM_DB\n#error compiled without the database's flags\n#endif\nint bounded(int x) { if (x < 0) return 0; if (x > LIMIT) return LIMIT; return x; }\n",
    );
    let build = root.join("build");
    std::fs::create_dir_all(&build).unwrap();
    let db = serde_json::json!([
        {
            "directory": root.display().to_string(),
            "arguments": ["cc", "-O2", "-Wall", "-Iinclude", "-MD", "-MF", "build/main.d", "-c", "-o", "build/main.o", "src/main.c"],
            "file": "src/main.c",
        },
        {
            "directory": build.display().to_string(),
            "command": "/usr/bin/cc -O3 -I../include -DFROM_DB=1 -Wno-unused-but-set-variable -fno-strict-overflow -c ../src/lib.c -o lib.o",
            "file": "../src/lib.c",
        },
    ]);
    std::fs::write(build.join("compile_commands.json"), db.to_string()).unwrap();
    dir
}

#[test]
fn check_reads_a_compilation_database() {
    let dir = compdb_project();
    let out = polyfocus(
        dir.path(),
        &[
            "check",
            "-p",
            "build",
            "--no-counterexamples",
            "--format",
            "json",
        ],
    );
    let text = stdout(&out);
    assert_eq!(code(&out), 0, "{text}\n{}", stderr(&out));
    let report = json(&text);
    let checks = report["checks"].as_array().expect("one program: checks");
    assert_eq!(checks.len(), 2, "{report:#}");
    assert!(
        checks.iter().all(|c| c["verdict"] == "proved"),
        "{report:#}"
    );
}

#[test]
fn check_reports_a_translation_unit_that_does_not_compile() {
    let dir = compdb_project();
    // Without the database's -DFROM_DB, lib.c does not compile.
    let db = serde_json::json!([{
        "directory": dir.path().display().to_string(),
        "arguments": ["cc", "-Iinclude", "-c", "src/lib.c"],
        "file": "src/lib.c",
    }]);
    std::fs::write(dir.path().join("bad.json"), db.to_string()).unwrap();
    let out = polyfocus(dir.path(), &["check", "-p", "bad.json", "--format", "json"]);
    assert_eq!(code(&out), 2, "{}\n{}", stdout(&out), stderr(&out));
    let report = json(&stdout(&out));
    let programs = report["programs"].as_array().unwrap();
    assert!(programs.iter().any(|p| p["error"]
        .as_str()
        .unwrap_or("")
        .contains("compiled without")));
    // With --fail-on false, a compile failure alone does not fail the gate.
    let out = polyfocus(
        dir.path(),
        &["check", "-p", "bad.json", "--fail-on", "false"],
    );
    assert_eq!(code(&out), 0, "{}\n{}", stdout(&out), stderr(&out));
}

/// Fails for `argc == 3`, so it is never proved; with `--no-counterexamples` it stays unknown.
/// (`!= 7` is proved now: 7 is no square modulo 8, hence none modulo 2^32.)
const UNKNOWN: &str = "#include <assert.h>\nint f(int x) { return x * x; }\nint main(int argc, char **argv) {\n  (void)argv;\n  assert(f(argc) != 9);\n  return 0;\n}\n";

const VIOLATED: &str = "extern int __VERIFIER_nondet_int(void);\nextern void reach_error(void);\nint main(void) {\n  int x = __VERIFIER_nondet_int();\n  if (x > 10 && x < 13) reach_error();\n  return 0;\n}\n";

const PROVED: &str = "#include <assert.h>\nint main(void) {\n  int i = 0;\n  while (i < 10) i++;\n  assert(i == 10);\n  return 0;\n}\n";

#[test]
fn exit_codes_follow_fail_on() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "unknown.c", UNKNOWN);
    write(dir.path(), "violated.c", VIOLATED);
    write(dir.path(), "proved.c", PROVED);
    let run = |file: &str, extra: &[&str]| {
        let mut args = vec!["check", file, "--no-counterexamples"];
        if file == "violated.c" {
            args.pop();
        }
        args.extend(extra);
        code(&polyfocus(dir.path(), &args))
    };
    assert_eq!(run("proved.c", &[]), 0);
    assert_eq!(run("proved.c", &["--fail-on", "false"]), 0);
    assert_eq!(run("unknown.c", &[]), 2);
    assert_eq!(run("unknown.c", &["--fail-on", "unknown"]), 2);
    assert_eq!(run("unknown.c", &["--fail-on", "false"]), 0);
    assert_eq!(run("violated.c", &[]), 1);
    assert_eq!(run("violated.c", &["--fail-on", "false"]), 1);
    // Whatever the format.
    assert_eq!(run("unknown.c", &["--format", "sarif", "-o", "u.sarif"]), 2);
    assert_eq!(
        run(
            "unknown.c",
            &["--format", "junit", "-o", "u.xml", "--fail-on", "false"]
        ),
        0
    );
}

/// A library of several functions with loops, every external function an entry.
const LIBRARY: &str = r#"
#include <assert.h>
int sum(int n) { int s = 0; if (n < 0 || n > 100) return 0;
  for (int i = 0; i < n; i++) s += i; assert(s >= 0); return s; }
int up(int n) { int i = 0; while (i < n) i++; assert(n < 0 || i == n); return i; }
int mid(int a, int b) { if (a < 0 || b < a || b > 1000) return 0; int m = a + (b - a) / 2;
  assert(a <= m && m <= b); return m; }
int sq(int x) { int y = x * x; assert(y != 3); return y; }
int loop2(int n) { int i = 0, j = 0; if (n < 0 || n > 50) return 0;
  while (i < n) { i++; j += 2; } assert(j == 2 * i); return j; }
int down(int n) { if (n > 200) n = 200; while (n > 0) n--; assert(n <= 0); return n; }
"#;

#[test]
fn reports_are_the_same_whatever_the_parallelism() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "lib.c", LIBRARY);
    let mut outputs = Vec::new();
    for jobs in ["1", "2", "4"] {
        let mut by_format = Vec::new();
        for format in ["sarif", "junit", "text"] {
            let out = polyfocus(
                dir.path(),
                &[
                    "check",
                    "lib.c",
                    "-j",
                    jobs,
                    "--format",
                    format,
                    "--fail-on",
                    "false",
                    "--no-counterexamples",
                ],
            );
            assert_eq!(code(&out), 0, "{}", stderr(&out));
            let mut text = stdout(&out);
            if format == "text" {
                // The summary line carries the run time.
                text = text
                    .lines()
                    .filter(|l| !l.starts_with("summary:"))
                    .collect::<Vec<_>>()
                    .join("\n");
            }
            by_format.push(text);
        }
        outputs.push(by_format);
    }
    assert!(outputs[0][2].lines().count() >= 6, "{}", outputs[0][2]);
    assert_eq!(outputs[0], outputs[1]);
    assert_eq!(outputs[0], outputs[2]);
}

/// Library entry points given as a list: only those functions (and what they call) are
/// analyzed; an undefined name is an input error.
#[test]
fn several_entry_points() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "lib.c", LIBRARY);
    let out = polyfocus(
        dir.path(),
        &[
            "check",
            "lib.c",
            "--entry",
            "sum,down",
            "--format",
            "json",
            "--no-counterexamples",
        ],
    );
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json report");
    let mut functions: Vec<String> = json["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["function"].as_str().unwrap().to_string())
        .collect();
    functions.sort();
    functions.dedup();
    assert_eq!(functions, ["down", "sum"]);
    let out = polyfocus(
        dir.path(),
        &["check", "lib.c", "--entry", "sum", "--entry", "nope"],
    );
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(stderr(&out).contains("nope"), "{}", stderr(&out));
}

/// Per-function time and memory budgets: a budget stop is reported per function with the budget it ran out of, and never yields a proof.
#[test]
fn a_function_over_its_memory_budget_reports_the_budget_not_a_proof() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "lib.c", LIBRARY);
    for engine in ["focus", "classic"] {
        let out = polyfocus(
            dir.path(),
            &[
                "check",
                "lib.c",
                "-Z",
                &format!("engine={engine}"),
                "--memory-per-function",
                // 1 KB: any analysis needs more (0 is refused as meaningless).
                "0.001",
                "--format",
                "json",
                "--no-counterexamples",
            ],
        );
        assert_eq!(code(&out), 2, "{}", stderr(&out));
        let report = json(&stdout(&out));
        let checks = report["checks"].as_array().expect("checks");
        assert!(checks.len() >= 5, "{report}");
        // The front end alone proves `down`'s assertion (the loop's exit condition).
        for c in checks.iter().filter(|c| c["function"] != "down") {
            assert_eq!(c["verdict"], "unknown", "{c}");
            let reason = c["reason"].as_str().unwrap_or("");
            assert!(
                reason.starts_with("budget: analysis of `")
                    && reason.contains("` stopped at its memory budget of "),
                "{c}"
            );
        }
        let functions = report["functions"].as_array().expect("functions");
        assert!(functions.len() >= 2, "{report}");
        for f in functions {
            assert_eq!(f["end"], "budget: memory", "{f}");
        }
    }
}
