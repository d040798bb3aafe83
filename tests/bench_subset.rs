//! CI: a fast subset of `../shared/bench` (tests/bench-subset.txt) through the harness and the
//! real analyzer. Asserts zero wrong verdicts and at least the committed floor of correct
//! verdicts (tests/bench-floor.txt; only ever raise it). Skips, visibly, when
//! `../shared/bench` is absent; under CI (`CI` set) its absence fails the test.

mod common;

use serde_json::Value;
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_polyfocus");

/// Seconds per task; with 2 jobs and ~36 tasks the worst case stays under three minutes.
const TIMEOUT_S: &str = "8";

#[test]
fn bench_subset_has_no_wrong_verdict_and_meets_the_floor() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let Some(bench) = common::shared_bench_or_skip(common::SharedSet::Bench, "bench_subset") else {
        return;
    };
    let floor_text = std::fs::read_to_string(root.join("tests/bench-floor.txt")).unwrap();
    let floor: usize = floor_text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .expect("tests/bench-floor.txt holds a number")
        .parse()
        .expect("tests/bench-floor.txt holds a number");
    let out_dir = tempfile::tempdir().unwrap();
    let json_path = out_dir.path().join("subset.json");
    let out = Command::new(BIN)
        .arg("bench")
        .arg(&bench)
        .arg("--tasks")
        .arg(root.join("tests/bench-subset.txt"))
        .args([
            "--jobs",
            "2",
            "--timeout",
            TIMEOUT_S,
            "--no-peers",
            "--json",
        ])
        .arg(&json_path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    let json: Value = match std::fs::read_to_string(&json_path) {
        Ok(text) => serde_json::from_str(&text).unwrap(),
        Err(e) => panic!(
            "no JSON written ({e}); exit {:?}\n{stdout}\n{stderr}",
            out.status
        ),
    };
    let rows = json["rows"].as_array().unwrap();
    let wrong: Vec<String> = rows
        .iter()
        .filter(|r| matches!(r["class"].as_str(), Some("wrong-true" | "wrong-false")))
        .map(|r| {
            format!(
                "{} [{}]: expected {}, got {}",
                r["task"], r["config"], r["expected"], r["verdict"]
            )
        })
        .collect();
    let n_correct = rows
        .iter()
        .filter(|r| matches!(r["class"].as_str(), Some("correct-true" | "correct-false")))
        .count();
    eprintln!(
        "bench subset: {n_correct} correct verdicts of {} tasks (floor {floor}); raise tests/bench-floor.txt when this grows",
        rows.len()
    );
    assert!(wrong.is_empty(), "wrong verdicts:\n{}", wrong.join("\n"));
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        n_correct >= floor,
        "{n_correct} correct verdicts, below the floor of {floor}"
    );
}
