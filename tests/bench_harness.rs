//! The benchmark harness and the SV-COMP mode, driven through the real binary against fake
//! analyzers (shell scripts that answer, crash, hang or exhaust memory on purpose).

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_polyfocus");

/// A fake `polyfocus check`: answers by the task's file name. `$2` is the file.
const FAKE: &str = r#"#!/bin/sh
answer() { echo "{\"tool\":\"polyfocus\",\"version\":\"0.1.0\",\"verdict\":\"$1\",\"reason\":$2,\"time_ms\":1,\"checks\":[]}"; exit $3; }
case "$(basename "$2")" in
  ok_true.c) answer true null 0 ;;
  ok_false.c) answer false null 1 ;;
  wrong.c) answer false null 1 ;;
  imprecise.c) if [ -n "$PRECISE" ]; then answer true null 0; else answer unknown '"imprecise"' 2; fi ;;
  unsupported.c) answer unknown '"unsupported: inline asm"' 2 ;;
  noassert.c) answer true null 0 ;;
  mem_deref.c) echo '{"verdict":"false","checks":[{"kind":"memory","subproperty":"valid-free","verdict":"proved"},{"kind":"memory","subproperty":"valid-deref","verdict":"violated"}]}'; exit 1 ;;
  mem_safe.c) echo '{"verdict":"true","leaks":{"covered":true},"checks":[{"kind":"memory","subproperty":"valid-deref","verdict":"proved"},{"kind":"memory","subproperty":"valid-memtrack","verdict":"proved"}]}'; exit 0 ;;
  mem_noleak.c) echo '{"verdict":"true","checks":[{"kind":"memory","subproperty":"valid-deref","verdict":"proved"}]}'; exit 0 ;;
  args.c) printf '{"verdict":"unknown","reason":"imprecise: %s","checks":[]}\n' "$*"; exit 2 ;;
  crash.c) kill -SEGV $$ ;;
  input_error.c) echo "error: cannot parse" >&2; exit 3 ;;
  garbage.c) echo "this is not json"; exit 0 ;;
  loop.c) sleep 100 ;;
  mem.c)
    if command -v python3 >/dev/null 2>&1; then
      exec python3 -c 'a = []
while True: a.append(bytearray(10**7))'
    else
      exec awk 'BEGIN { s = "x"; while (1) s = s s }'
    fi ;;
esac
echo "fake: unexpected task $2" >&2
exit 3
"#;

struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    /// A benchmark folder with `rows` (task, expected, suite) and the fake analyzer.
    fn new(rows: &[(&str, &str, &str)]) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let mut manifest =
            String::from("task\texpected\tentry\tdata_model\tcflags\tsuite\tnotes\n");
        for (task, expected, suite) in rows {
            let path = dir.path().join(task);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, "int main(void) { return 0; }\n").unwrap();
            manifest.push_str(&format!(
                "{task}\t{expected}\tmain\tILP32\t-include {{bench}}/p.h\t{suite}\tnone\n"
            ));
        }
        std::fs::write(dir.path().join("MANIFEST.tsv"), manifest).unwrap();
        let fake = dir.path().join("fake.sh");
        std::fs::write(&fake, FAKE).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        Fixture { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn bench(&self, extra: &[&str], envs: &[(&str, &str)]) -> Output {
        let mut cmd = Command::new(BIN);
        cmd.arg("bench")
            .arg(self.dir.path())
            .arg("--analyzer")
            .arg(self.path("fake.sh"))
            .args(extra);
        for (k, v) in envs {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn row<'a>(json: &'a Value, task: &str) -> &'a Value {
    json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["task"] == task)
        .unwrap_or_else(|| panic!("no row for {task}"))
}

/// The cells of the table row labelled `label` under the header that starts with `title`.
fn table_row(stdout: &str, title: &str, label: &str) -> Vec<String> {
    let mut lines = stdout.lines().skip_while(|l| !l.starts_with(title));
    lines
        .next()
        .unwrap_or_else(|| panic!("no table {title} in\n{stdout}"));
    lines
        .take_while(|l| !l.is_empty())
        .find(|l| l.split_whitespace().next() == Some(label))
        .unwrap_or_else(|| panic!("no row {label} under {title} in\n{stdout}"))
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

#[test]
fn classifies_answers_crashes_hangs_and_memouts() {
    let fx = Fixture::new(&[
        ("a/ok_true.c", "true", "A"),
        ("a/ok_false.c", "false", "A"),
        ("a/imprecise.c", "true", "A"),
        ("a/unsupported.c", "true", "A"),
        ("a/noassert.c", "n/a", "A"),
        ("b/crash.c", "true", "B"),
        ("b/input_error.c", "true", "B"),
        ("b/garbage.c", "false", "B"),
        ("b/loop.c", "true", "B"),
        ("b/mem.c", "true", "B"),
    ]);
    let json_path = fx.path("out.json");
    // A flag without its value is a usage error.
    let out = fx.bench(&["--json"], &[]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let started = std::time::Instant::now();
    let out = fx.bench(
        &[
            "--timeout",
            "1",
            "--memory",
            "256",
            "--jobs",
            "4",
            "--json",
            json_path.to_str().unwrap(),
        ],
        &[],
    );
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        text(&out.stderr)
    );
    assert!(
        started.elapsed().as_secs() < 60,
        "the hang was not cut short"
    );
    let json = read_json(&json_path);
    let expect = |task: &str, class: &str, reason: Option<&str>| {
        let r = row(&json, task);
        assert_eq!(r["class"], class, "{task}: {r}");
        match reason {
            Some(reason) => assert_eq!(r["reason"], reason, "{task}: {r}"),
            None => assert!(r["reason"].is_null(), "{task}: {r}"),
        }
    };
    expect("a/ok_true.c", "correct-true", None);
    expect("a/ok_false.c", "correct-false", None);
    expect("a/imprecise.c", "unknown", Some("imprecise"));
    expect("a/unsupported.c", "unknown", Some("unsupported"));
    expect("a/noassert.c", "n/a", None);
    expect("b/crash.c", "unknown", Some("crash"));
    assert_eq!(row(&json, "b/crash.c")["signal"], 11);
    expect("b/input_error.c", "unknown", Some("crash"));
    assert!(row(&json, "b/input_error.c")["detail"]
        .as_str()
        .unwrap()
        .contains("cannot parse"));
    expect("b/garbage.c", "unknown", Some("crash"));
    expect("b/loop.c", "unknown", Some("timeout"));
    expect("b/mem.c", "unknown", Some("memout"));

    // Rows are sorted by task, and every row has measurements.
    let tasks: Vec<&str> = json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["task"].as_str().unwrap())
        .collect();
    let mut sorted = tasks.clone();
    sorted.sort();
    assert_eq!(tasks, sorted);

    // The table agrees with the JSON: recount per suite and in total.
    for (title, suite) in [
        ("== suite A", Some("A")),
        ("== suite B", Some("B")),
        ("== total", None),
    ] {
        let rows: Vec<&Value> = json["rows"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| suite.is_none_or(|s| r["suite"] == s))
            .collect();
        let count = |class: &str| rows.iter().filter(|r| r["class"] == class).count();
        let score = 2 * count("correct-true") as i64 + count("correct-false") as i64
            - 32 * count("wrong-true") as i64
            - 16 * count("wrong-false") as i64;
        let cells = table_row(&stdout, title, "default");
        // configuration tasks ok-true ok-false unknown wrong score ...
        assert_eq!(cells[1], rows.len().to_string(), "{title}");
        assert_eq!(cells[2], count("correct-true").to_string(), "{title}");
        assert_eq!(cells[3], count("correct-false").to_string(), "{title}");
        assert_eq!(cells[4], count("unknown").to_string(), "{title}");
        assert_eq!(
            cells[5],
            (count("wrong-true") + count("wrong-false")).to_string(),
            "{title}"
        );
        assert_eq!(cells[6], score.to_string(), "{title}");
        let total: f64 = rows.iter().map(|r| r["cpu_s"].as_f64().unwrap()).sum();
        let shown: f64 = cells[7].trim_end_matches('s').parse().unwrap();
        assert!((total - shown).abs() < 0.01, "{title}: {total} vs {shown}");
    }
    assert!(stdout.contains("timeout 1"), "{stdout}");
    assert!(stdout.contains("memout 1"), "{stdout}");
    assert!(!stdout.contains("WRONG"), "{stdout}");
}

#[test]
fn wrong_verdicts_are_listed_and_fail_the_run() {
    let fx = Fixture::new(&[("s/wrong.c", "true", "S"), ("s/ok_true.c", "true", "S")]);
    let out = fx.bench(&["--timeout", "5", "--jobs", "2"], &[]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let tail = stdout.split("WRONG verdicts (1):").nth(1).expect(&stdout);
    assert!(
        tail.contains("s/wrong.c [default]: expected true, got false"),
        "{stdout}"
    );
    assert!(
        !stdout.contains('\x1b'),
        "no color when stdout is not a terminal"
    );
    let cells = table_row(&stdout, "== suite S", "default");
    assert_eq!(cells[5], "1");
    assert_eq!(cells[6], (2 - 16).to_string());
}

#[test]
fn configurations_reach_the_analyzer_and_compare_shows_changes() {
    let fx = Fixture::new(&[
        ("s/imprecise.c", "true", "S"),
        ("s/ok_true.c", "true", "S"),
        ("s/args.c", "true", "S"),
    ]);
    let old = fx.path("old.json");
    let out = fx.bench(
        &[
            "--config",
            "ci=-Z engine=classic -Z domain=interval --cflags -DX=1",
            "--timeout",
            "7",
            "--json",
            old.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json = read_json(&old);
    let detail = row(&json, "s/args.c")["detail"]
        .as_str()
        .unwrap()
        .to_string();
    let bench = std::fs::canonicalize(fx.dir.path()).unwrap();
    for needle in [
        "check ".to_string(),
        format!("{}/s/args.c", bench.display()),
        "--entry main".into(),
        "--data-model ILP32".into(),
        format!("--cflags=-include {}/p.h -DX=1", bench.display()),
        "--timeout 7".into(),
        "--format json".into(),
        "-Z engine=classic -Z domain=interval".into(),
    ] {
        assert!(detail.contains(&needle), "{needle} missing from {detail}");
    }
    assert_eq!(json["configs"][0]["name"], "ci");

    let plot = fx.path("q.svg");
    let out = fx.bench(
        &[
            "--config",
            "ci=-Z engine=classic -Z domain=interval --cflags -DX=1",
            "--compare",
            old.to_str().unwrap(),
            "--plot",
            plot.to_str().unwrap(),
        ],
        &[("PRECISE", "1")],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let section = stdout.split("newly proved (1):").nth(1).expect(&stdout);
    assert!(
        section.contains("s/imprecise.c [ci]: unknown (imprecise)"),
        "{stdout}"
    );
    assert!(!stdout.contains("newly lost"), "{stdout}");
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains("<polyline"),
        "{svg}"
    );
    assert!(
        svg.contains("ci (2)"),
        "two correct results in the legend: {svg}"
    );
}

#[test]
fn task_lists_and_usage_errors() {
    let fx = Fixture::new(&[("s/ok_true.c", "true", "S"), ("s/ok_false.c", "false", "S")]);
    std::fs::write(fx.path("list.txt"), "# a comment\ns/ok_false.c\n").unwrap();
    let json = fx.path("o.json");
    let out = fx.bench(
        &[
            "--tasks",
            fx.path("list.txt").to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(read_json(&json)["rows"].as_array().unwrap().len(), 1);

    std::fs::write(fx.path("bad.txt"), "s/missing.c\n").unwrap();
    let out = fx.bench(&["--tasks", fx.path("bad.txt").to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(3));
    assert!(text(&out.stderr).contains("error: task s/missing.c is not in the manifest"));
    for bad in [
        vec!["--config", "noequals"],
        vec!["--config", "z=-Z no-such-option=1"],
        vec!["--config", "f=--no-such-flag"],
        vec!["--jobs", "0"],
        vec!["--filter", "nothing-matches"],
    ] {
        let out = fx.bench(&bad, &[]);
        assert_eq!(out.status.code(), Some(3), "{bad:?}: {}", text(&out.stderr));
    }
}

fn svcomp(fx: &Fixture, property: &str, task: &str) -> (i32, Vec<String>) {
    let prp = fx.path("p.prp");
    std::fs::write(&prp, property).unwrap();
    let out = Command::new(BIN)
        .args(["svcomp", "--property"])
        .arg(&prp)
        .args(["--data-model", "ILP32", "--timeout", "2", "--analyzer"])
        .arg(fx.path("fake.sh"))
        .arg(fx.path(task))
        .output()
        .unwrap();
    let lines = text(&out.stdout).lines().map(str::to_string).collect();
    (out.status.code().unwrap_or(-1), lines)
}

#[test]
fn svcomp_prints_the_verdict_last() {
    let fx = Fixture::new(&[
        ("s/ok_true.c", "true", "S"),
        ("s/ok_false.c", "false", "S"),
        ("s/crash.c", "true", "S"),
        ("s/loop.c", "true", "S"),
    ]);
    let reach = "CHECK( init(main()), LTL(G ! call(reach_error())) )\n";
    for (task, verdict) in [
        ("s/ok_true.c", "TRUE"),
        ("s/ok_false.c", "FALSE"),
        ("s/crash.c", "UNKNOWN"),
        ("s/loop.c", "UNKNOWN"),
    ] {
        let (code, lines) = svcomp(&fx, reach, task);
        assert_eq!(code, 0, "{task}: {lines:?}");
        assert_eq!(
            lines.last().map(String::as_str),
            Some(verdict),
            "{task}: {lines:?}"
        );
        if verdict == "UNKNOWN" {
            let reason = &lines[lines.len() - 2];
            assert!(reason.starts_with("reason: "), "{lines:?}");
        }
        // The analyzer that never answers is stopped at the budget, and says so.
        if task == "s/loop.c" {
            let reason = &lines[lines.len() - 2];
            assert!(reason.starts_with("reason: timeout"), "{lines:?}");
        }
    }

    let (code, lines) = svcomp(
        &fx,
        "CHECK( init(main()), LTL(G valid-free) )\n",
        "s/ok_true.c",
    );
    assert_eq!(code, 0);
    assert_eq!(lines.last().map(String::as_str), Some("UNKNOWN"));
    assert!(
        lines[lines.len() - 2].contains("unsupported property"),
        "{lines:?}"
    );

    // A task-definition file names the program.
    std::fs::write(
        fx.path("s/ok_false.yml"),
        "format_version: '2.0'\ninput_files: 'ok_false.c'\noptions:\n  language: C\n  data_model: ILP32\n",
    )
    .unwrap();
    let (code, lines) = svcomp(&fx, reach, "s/ok_false.yml");
    assert_eq!(code, 0);
    assert_eq!(lines.last().map(String::as_str), Some("FALSE"), "{lines:?}");
}

#[test]
fn svcomp_answers_memory_safety_with_the_subproperty() {
    let fx = Fixture::new(&[
        ("s/mem_deref.c", "false", "S"),
        ("s/mem_safe.c", "true", "S"),
        ("s/mem_noleak.c", "true", "S"),
    ]);
    let memsafety = "CHECK( init(main()), LTL(G valid-free) )\n\
                     CHECK( init(main()), LTL(G valid-deref) )\n\
                     CHECK( init(main()), LTL(G valid-memtrack) )\n";
    for (task, answer, reason) in [
        ("s/mem_deref.c", "FALSE(valid-deref)", None),
        ("s/mem_safe.c", "TRUE", None),
        (
            "s/mem_noleak.c",
            "UNKNOWN",
            Some("reason: leaks are not checked"),
        ),
    ] {
        let (code, lines) = svcomp(&fx, memsafety, task);
        assert_eq!(code, 0, "{task}: {lines:?}");
        assert_eq!(
            lines.last().map(String::as_str),
            Some(answer),
            "{task}: {lines:?}"
        );
        if let Some(reason) = reason {
            assert_eq!(lines[lines.len() - 2], reason, "{lines:?}");
        }
    }
    // `valid-memcleanup` asks nothing more: the leak checks that cover the whole program
    // prove every object freed at every end.
    let cleanup = format!("{memsafety}CHECK( init(main()), LTL(G valid-memcleanup) )\n");
    let (_, lines) = svcomp(&fx, &cleanup, "s/mem_safe.c");
    assert_eq!(lines.last().map(String::as_str), Some("TRUE"), "{lines:?}");
    let (_, lines) = svcomp(&fx, &cleanup, "s/mem_deref.c");
    assert_eq!(
        lines.last().map(String::as_str),
        Some("FALSE(valid-deref)"),
        "{lines:?}"
    );
}

#[test]
fn bench_judges_memory_safety_by_subproperty() {
    let fx = Fixture::new(&[]);
    let mut manifest = String::from("task\texpected\tentry\tdata_model\tcflags\tsuite\tnotes\n");
    for (task, expected, notes) in [
        (
            "s/mem_deref.c",
            "false",
            "property=valid-memsafety subproperty=valid-deref",
        ),
        (
            "t/mem_deref.c",
            "false",
            "property=valid-memsafety subproperty=valid-free",
        ),
        ("u/mem_deref.c", "true", "property=valid-memsafety"),
        ("s/mem_safe.c", "true", "property=valid-memsafety"),
        ("s/mem_noleak.c", "true", "property=valid-memsafety"),
    ] {
        let path = fx.path(task);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "int main(void) { return 0; }\n").unwrap();
        manifest.push_str(&format!("{task}\t{expected}\tmain\tILP32\t\tS\t{notes}\n"));
    }
    std::fs::write(fx.path("MANIFEST.tsv"), manifest).unwrap();
    let json = fx.path("run.json");
    let out = fx.bench(&["--no-peers", "--json", json.to_str().unwrap()], &[]);
    // The wrong answer fails the run.
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let json = read_json(&json);
    for (task, class) in [
        ("s/mem_deref.c", "correct-false"),
        // A violation of another subproperty than the task's: no answer.
        ("t/mem_deref.c", "unknown"),
        // A violation on a true task: wrong.
        ("u/mem_deref.c", "wrong-false"),
        ("s/mem_safe.c", "correct-true"),
        ("s/mem_noleak.c", "unknown"),
    ] {
        assert_eq!(
            row(&json, task)["class"],
            class,
            "{task}: {}",
            row(&json, task)
        );
    }
    assert!(row(&json, "s/mem_noleak.c")["detail"]
        .as_str()
        .unwrap()
        .contains("leaks are not checked"));
}
