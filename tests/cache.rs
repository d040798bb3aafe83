//! The cache of per-function results through the real binary, on programs compiled by
//! clang: a second run analyzes nothing and reports the same, an edit re-analyzes the
//! function and its callers, a corrupt entry is ignored with a warning, another
//! configuration does not reuse entries, and results stopped by time are not stored.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Four functions kept apart (`-Z inline-limit=0`): `main` calls `twice` and `sum`, `twice`
/// calls `clamp`. Every assertion is proved, but the one in `main`, violated for `a == 42`.
const PROGRAM: &str = r#"#include <assert.h>
extern int __VERIFIER_nondet_int(void);

int clamp(int x) {
    if (x < 0) x = 0;
    if (x > 100) x = 100;
    assert(x >= 0 && x <= 100);
    return x;
}

int sum(int n) {
    int s = 0;
    for (int i = 0; i < n; i++) s++;
    assert(s >= 0);
    return s;
}

int twice(int x) {
    int z = x < 0 ? 0 : x;
    assert(z >= 0);
    return 2 * clamp(x);
}

int main(void) {
    int a = __VERIFIER_nondet_int();
    int r = twice(a) + sum(a);
    if (a == 42)
        assert(r != r);
    return 0;
}
"#;

struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    fn new(source: &str) -> Project {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("prog.c"), source).unwrap();
        Project { dir }
    }

    fn cache(&self) -> PathBuf {
        self.dir.path().join("cache")
    }

    /// `polyfocus check prog.c --cache DIR -Z inline-limit=0 ARGS`.
    fn check(&self, args: &[&str]) -> Output {
        let cache = self.cache();
        let mut all = vec![
            "check",
            "prog.c",
            "--cache",
            cache.to_str().unwrap(),
            "-Z",
            "inline-limit=0",
        ];
        all.extend(args);
        polyfocus(self.dir.path(), &all, None)
    }

    fn edit(&self, from: &str, to: &str) {
        let path = self.dir.path().join("prog.c");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(from), "{from}");
        std::fs::write(&path, text.replace(from, to)).unwrap();
    }

    /// The entries of the cache, by file name, with the function each is for.
    fn entries(&self) -> Vec<(PathBuf, String)> {
        let mut out = Vec::new();
        let Ok(folders) = std::fs::read_dir(self.cache().join("functions")) else {
            return out;
        };
        for folder in folders {
            for file in std::fs::read_dir(folder.unwrap().path()).unwrap() {
                let path = file.unwrap().path();
                let text = std::fs::read_to_string(&path).unwrap();
                let function = serde_json::from_str::<serde_json::Value>(&text)
                    .ok()
                    .and_then(|v| v["function"].as_str().map(str::to_string))
                    .unwrap_or_default();
                out.push((path, function));
            }
        }
        out.sort();
        out
    }
}

fn polyfocus(dir: &Path, args: &[&str], default_cache: Option<&Path>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_polyfocus"));
    command.current_dir(dir).args(args);
    match default_cache {
        Some(folder) => command.env("POLYFOCUS_CACHE", folder),
        None => command.env("POLYFOCUS_CACHE", "off"),
    };
    command.output().expect("polyfocus runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The progress line of the cache: (functions from the cache, analyzed, stored).
fn cache_use(out: &Output) -> (usize, usize, usize) {
    let err = stderr(out);
    let line = err
        .lines()
        .find_map(|l| l.strip_prefix("polyfocus: cache: "))
        .unwrap_or_else(|| panic!("no cache line in:\n{err}"));
    let numbers: Vec<usize> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .map(|w| w.parse().unwrap())
        .collect();
    assert_eq!(numbers.len(), 3, "{line}");
    (numbers[0], numbers[1], numbers[2])
}

/// A JSON report without its times (the one kind of field a cache may change).
fn json_without_run_time(out: &Output) -> serde_json::Value {
    let mut report: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}:\n{}\n{}", stdout(out), stderr(out)));
    strip_times(&mut report);
    report
}

/// Removes every `time_ms`: a function analyzed again takes its own time, which the load
/// decides (a millisecond more or less), while its results must be the cached ones.
fn strip_times(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(map) => {
            map.remove("time_ms");
            map.values_mut().for_each(strip_times);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(strip_times),
        _ => {}
    }
}

/// A text report without the run's wall time in its summary line (`, 0.06 s)`).
fn text_without_run_time(out: &Output) -> String {
    stdout(out)
        .lines()
        .map(|line| match line.rfind(", ") {
            Some(at) if line.starts_with("summary:") => line[..at].to_string(),
            _ => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The line of a check's `location` (`prog.c:7:5`).
fn location_line(check: &serde_json::Value) -> Option<u64> {
    check["location"].as_str()?.split(':').nth(1)?.parse().ok()
}

fn verdict_at(report: &serde_json::Value, line: u64) -> String {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| location_line(c) == Some(line))
        .and_then(|c| c["verdict"].as_str())
        .unwrap_or_else(|| panic!("no check at line {line}: {report:#}"))
        .to_string()
}

#[test]
fn a_second_run_analyzes_nothing_and_reports_the_same() {
    let p = Project::new(PROGRAM);
    let first = p.check(&["--format", "json"]);
    assert_eq!(first.status.code(), Some(1), "{}", stderr(&first));
    assert_eq!(cache_use(&first), (0, 4, 4));
    let second = p.check(&["--format", "json"]);
    assert_eq!(second.status.code(), Some(1), "{}", stderr(&second));
    assert_eq!(cache_use(&second), (4, 0, 0));
    let report = json_without_run_time(&second);
    assert_eq!(json_without_run_time(&first), report);
    assert_eq!(verdict_at(&report, 7), "proved");
    assert_eq!(verdict_at(&report, 28), "violated");
    // The counterexample comes back with the verdict.
    let violated = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| location_line(c) == Some(28))
        .unwrap();
    assert!(
        violated.to_string().contains("42"),
        "no counterexample input: {violated:#}"
    );
    let text_first = p.check(&[]);
    let text_second = p.check(&[]);
    assert_eq!(cache_use(&text_second), (4, 0, 0));
    assert_eq!(
        text_without_run_time(&text_first),
        text_without_run_time(&text_second)
    );
}

#[test]
fn editing_one_function_reanalyzes_it_and_its_callers() {
    let p = Project::new(PROGRAM);
    let first = p.check(&["--format", "json"]);
    assert_eq!(cache_use(&first), (0, 4, 4));
    let before: BTreeSet<PathBuf> = p.entries().into_iter().map(|(path, _)| path).collect();
    // The same lines, another bound: only `clamp` changes.
    p.edit("if (x > 100) x = 100;", "if (x > 99) x = 99;  ");
    let second = p.check(&["--format", "json"]);
    assert_eq!(cache_use(&second), (1, 3, 3));
    let reanalyzed: BTreeSet<String> = p
        .entries()
        .into_iter()
        .filter(|(path, _)| !before.contains(path))
        .map(|(_, function)| function)
        .collect();
    let expected: BTreeSet<String> = ["clamp", "twice", "main"].map(String::from).into();
    assert_eq!(reanalyzed, expected);
    let report = json_without_run_time(&second);
    assert_eq!(verdict_at(&report, 7), "proved");
    assert_eq!(verdict_at(&report, 28), "violated");
    // A function that does not call `clamp`, edited: it alone is analyzed (and `main`,
    // whose violation was confirmed on the whole program, which changed).
    p.edit("s++;", "s += 1;");
    let third = p.check(&["--format", "json"]);
    assert_eq!(cache_use(&third), (2, 2, 2));
}

#[test]
fn a_corrupt_entry_is_ignored_with_a_warning() {
    let p = Project::new(PROGRAM);
    let first = p.check(&["--format", "json"]);
    assert_eq!(cache_use(&first), (0, 4, 4));
    let entries = p.entries();
    assert_eq!(entries.len(), 4);
    let (clamp, _) = entries.iter().find(|(_, f)| f == "clamp").unwrap();
    std::fs::write(clamp, "{\"format\": 1, \"key\": tru").unwrap();
    let (sum, _) = entries.iter().find(|(_, f)| f == "sum").unwrap();
    let text = std::fs::read_to_string(sum).unwrap();
    std::fs::write(sum, text.replace("\"check\":0", "\"check\":7")).unwrap();
    let second = p.check(&["--format", "json"]);
    let err = stderr(&second);
    assert_eq!(
        err.matches("warning: ignoring the cache entry").count(),
        2,
        "{err}"
    );
    assert!(err.contains("out of range"), "{err}");
    assert_eq!(cache_use(&second), (2, 2, 2));
    assert_eq!(
        json_without_run_time(&first),
        json_without_run_time(&second)
    );
    let third = p.check(&["--format", "json"]);
    assert_eq!(cache_use(&third), (4, 0, 0));
}

#[test]
fn another_configuration_does_not_reuse_entries() {
    let p = Project::new(PROGRAM);
    let first = p.check(&["--no-counterexamples"]);
    assert_eq!(cache_use(&first), (0, 4, 4));
    let checks = p.check(&["--no-counterexamples", "--checks", "assert,overflow"]);
    assert_eq!(cache_use(&checks).0, 0);
    let tuned = p.check(&["--no-counterexamples", "-Z", "engine=classic"]);
    assert_eq!(cache_use(&tuned).0, 0);
    let model = p.check(&["--no-counterexamples", "--m32"]);
    assert_eq!(cache_use(&model).0, 0);
    let again = p.check(&["--no-counterexamples"]);
    assert_eq!(cache_use(&again), (4, 0, 0));
}

#[test]
fn results_stopped_by_time_are_not_stored() {
    // No engine proves `s != 7` over a sum of cubes, and the counterexample search looks
    // for an execution until its time is up: `main` ends by time. `positive` is proved.
    let p = Project::new(
        r#"#include <assert.h>
extern unsigned __VERIFIER_nondet_uint(void);

int positive(int x) {
    int y = x < 1 ? 1 : x;
    assert(y >= 1);
    return y;
}

int main(void) {
    unsigned n = __VERIFIER_nondet_uint(), i = 0, s = 0;
    while (i < n) {
        i++;
        s += i * i * i;
    }
    assert(s != 7 + positive((int)n) - positive((int)n));
    return 0;
}
"#,
    );
    let first = p.check(&["--timeout", "2"]);
    assert_eq!(cache_use(&first), (0, 2, 1), "{}", stdout(&first));
    let functions: Vec<String> = p.entries().into_iter().map(|(_, f)| f).collect();
    assert_eq!(functions, ["positive"]);
    let second = p.check(&["--timeout", "2"]);
    assert_eq!(cache_use(&second), (1, 1, 0));
}

#[test]
fn the_default_folder_comes_from_the_environment_and_no_cache_turns_it_off() {
    let p = Project::new(PROGRAM);
    let folder = p.dir.path().join("default");
    let args = [
        "check",
        "prog.c",
        "-Z",
        "inline-limit=0",
        "--no-counterexamples",
    ];
    let first = polyfocus(p.dir.path(), &args, Some(&folder));
    assert_eq!(cache_use(&first), (0, 4, 4));
    let second = polyfocus(p.dir.path(), &args, Some(&folder));
    assert_eq!(cache_use(&second), (4, 0, 0));
    let mut off = args.to_vec();
    off.push("--no-cache");
    let without = polyfocus(p.dir.path(), &off, Some(&folder));
    assert!(
        !stderr(&without).contains("polyfocus: cache:"),
        "{}",
        stderr(&without)
    );
    let environment_off = polyfocus(p.dir.path(), &args, None);
    assert!(!stderr(&environment_off).contains("polyfocus: cache:"));
    let mut clear = args.to_vec();
    clear.push("--cache-clear");
    let cleared = polyfocus(p.dir.path(), &clear, Some(&folder));
    assert_eq!(cache_use(&cleared), (0, 4, 4));
}
