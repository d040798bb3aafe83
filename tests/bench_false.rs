//! CI on a fresh machine: every false task of `../shared/bench` (LP64 and ILP32 alike) is
//! refuted with a counterexample replayed natively. The ILP32 replays link with `-m32`, which
//! needs the 32-bit C library and libgcc that `scripts/setup` installs: on a machine without
//! them the count drops, which this test catches.
//! Skips, visibly, when `../shared/bench` is absent; under CI (`CI` set) its absence fails.

mod common;

use serde_json::Value;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_polyfocus");

/// Least number of false tasks refuted (of 34; `sv-benchmarks/c/loop-simple/deep-nested.c`
/// needs more loop iterations than the search unrolls). Only ever raise it.
const FLOOR: usize = 33;

#[test]
fn every_false_task_is_refuted_with_a_native_replay() {
    let Some(bench) = common::shared_bench_or_skip(common::SharedSet::Bench, "bench_false") else {
        return;
    };
    let manifest = std::fs::read_to_string(bench.join("MANIFEST.tsv")).unwrap();
    let header: Vec<&str> = manifest.lines().next().unwrap().split('\t').collect();
    let col = |name: &str| header.iter().position(|c| *c == name).unwrap();
    let (task, expected, model) = (col("task"), col("expected"), col("data_model"));
    let false_tasks: Vec<(String, String)> = manifest
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|f| f.get(expected) == Some(&"false"))
        .map(|f| (f[task].to_string(), f[model].to_string()))
        .collect();
    assert!(
        false_tasks.iter().any(|(_, m)| m == "ILP32"),
        "the manifest has ILP32 false tasks"
    );
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("false.txt");
    let names: Vec<&str> = false_tasks.iter().map(|(t, _)| t.as_str()).collect();
    std::fs::write(&list, names.join("\n")).unwrap();
    let json_path = dir.path().join("false.json");
    let out = Command::new(BIN)
        .arg("bench")
        .arg(&bench)
        .arg("--tasks")
        .arg(&list)
        .args(["--jobs", "2", "--timeout", "10", "--no-peers", "--json"])
        .arg(&json_path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let json: Value = serde_json::from_str(
        &std::fs::read_to_string(&json_path).unwrap_or_else(|e| panic!("no JSON ({e}): {stdout}")),
    )
    .unwrap();
    let rows = json["rows"].as_array().unwrap();
    let model_of = |t: &str| {
        false_tasks
            .iter()
            .find(|(name, _)| name == t)
            .map(|(_, m)| m.as_str())
            .unwrap_or("?")
    };
    let mut refuted = [0usize; 2];
    let mut missed = Vec::new();
    for r in rows {
        let name = r["task"].as_str().unwrap();
        let ilp32 = model_of(name) == "ILP32";
        assert_ne!(
            r["class"], "wrong-true",
            "{name} proved although it is false"
        );
        if r["class"] == "correct-false" {
            refuted[ilp32 as usize] += 1;
        } else {
            missed.push(format!("{name} ({}): {}", model_of(name), r["detail"]));
        }
    }
    let total = refuted[0] + refuted[1];
    eprintln!(
        "bench_false: {total} of {} false tasks refuted ({} LP64, {} ILP32); not refuted:\n  {}",
        rows.len(),
        refuted[0],
        refuted[1],
        missed.join("\n  ")
    );
    assert!(
        total >= FLOOR,
        "{total} false tasks refuted, below the floor of {FLOOR}; not refuted:\n  {}",
        missed.join("\n  ")
    );
}
