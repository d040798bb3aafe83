//! Where the time goes and why an assertion stays unknown: the stages a function went
//! through, with how each ended and the time it spent on each assertion, and a reason that
//! names the first cause and does not depend on the budget.

mod common;

use common::{check_at_line, check_json, program};
use serde_json::Value;

fn check(name: &str, extra: &[&str]) -> Value {
    check_json(&program(name), extra)
}

fn the_check(report: &Value, line: u32) -> &Value {
    check_at_line(report, line).unwrap_or_else(|| panic!("no check at line {line} in {report}"))
}

/// The classic engine over intervals without the relational stage, which proves line 8 of
/// `relational.c` with a template bound (`i - n`): the assertion stays open.
const CLASSIC_INTERVAL_ALONE: [&str; 6] = [
    "-Z",
    "engine=classic",
    "-Z",
    "domain=interval",
    "-Z",
    "relational-congruences=off",
];

/// With the default budget, an assertion that stays unknown ends because the counterexample
/// search stopped learning (no execution takes more than 1000 iterations, native runs show
/// nothing new), not because the 60 s budget ran out; the report says how each stage ended
/// and how long each spent on each assertion.
#[test]
fn unknown_ends_when_the_search_stops_learning() {
    let report = check("relational.c", &CLASSIC_INTERVAL_ALONE);
    let func = &report["functions"][0];
    assert_eq!(func["end"], "finished", "{func}");
    let stages = func["stages"].as_array().expect("stages of the function");
    let names: Vec<&str> = stages.iter().filter_map(|s| s["stage"].as_str()).collect();
    // The engine, then polynomial equalities (they prove `j == 2 * i` at line 7 even in
    // intervals), congruences, then the search for what is left.
    assert_eq!(
        names,
        [
            "analysis",
            "polynomial equalities",
            "congruences",
            "counterexample search"
        ],
        "{func}"
    );
    for stage in stages {
        assert_eq!(stage["end"], "finished", "{stage}");
    }
    let search = &stages[3];
    assert!(
        search["detail"]
            .as_str()
            .is_some_and(|d| !d.contains("before the deadline")),
        "{search}"
    );
    assert_eq!(the_check(&report, 7)["verdict"], "proved", "{report}");
    for line in [8] {
        let c = the_check(&report, line);
        assert_eq!(c["verdict"], "unknown", "{c}");
        let times = &c["time_ms"];
        for stage in ["analysis", "refinement", "counterexample_search"] {
            assert!(times[stage].is_u64(), "{line}: no time for {stage}: {c}");
        }
        assert_eq!(times["counterexample_search"], search["time_ms"], "{c}");
    }
}

/// An assertion that depends on a load from memory the analysis does not model is unknown
/// because of that load, named with its line, whatever the budget; what the counterexample
/// search found is a separate note.
#[test]
fn unmodeled_load_is_the_reason_whatever_the_budget() {
    let mut reasons = Vec::new();
    for timeout in ["2", "30"] {
        let report = check("unmodeled_load.c", &["--timeout", timeout]);
        let c = the_check(&report, 8);
        assert_eq!(c["verdict"], "unknown", "{c}");
        let reason = c["reason"].as_str().expect("reason").to_string();
        assert!(
            reason.starts_with("unsupported: the error site depends on a load from memory")
                && reason.contains("unmodeled_load.c:7:"),
            "{reason}"
        );
        reasons.push(reason);
    }
    assert_eq!(reasons[0], reasons[1]);
}

/// An assertion the invariants cannot decide names the loop whose invariant lets the error
/// site through, with that invariant.
#[test]
fn imprecise_reason_names_the_loop_and_its_invariant() {
    let report = check("relational.c", &CLASSIC_INTERVAL_ALONE);
    let reason = the_check(&report, 8)["reason"]
        .as_str()
        .expect("reason")
        .to_string();
    assert!(
        reason.starts_with("imprecise: the invariant of the loop at ")
            && reason.contains("relational.c:6:")
            && reason.contains("i >= 0"),
        "{reason}"
    );
}

/// When path focusing stops before a fixpoint (here at its first solver query), the classic
/// engine over polyhedra runs with the rest of the engine's allowance, and its fixpoint
/// proves the relational assertions of `relational.c` (`j == 2 * i` after the loop), which
/// the interval stage cannot; the report lists both analyses.
#[test]
fn the_classic_engine_finishes_what_path_focusing_leaves() {
    let report = check("relational.c", &["-Z", "focus-queries=1"]);
    for line in [7, 8] {
        assert_eq!(the_check(&report, line)["verdict"], "proved", "{report}");
    }
    let main = report["functions"]
        .as_array()
        .expect("functions")
        .iter()
        .find(|f| f["function"] == "main")
        .expect("main");
    let analyses: Vec<&Value> = main["stages"]
        .as_array()
        .expect("stages")
        .iter()
        .filter(|s| s["stage"] == "analysis")
        .collect();
    assert_eq!(analyses.len(), 2, "{main}");
    assert_ne!(analyses[0]["end"], "finished", "{main}");
    assert_eq!(analyses[1]["end"], "finished", "{main}");
    assert!(
        analyses[1]["detail"]
            .as_str()
            .is_some_and(|d| d.contains("classic engine")),
        "{main}"
    );
}
