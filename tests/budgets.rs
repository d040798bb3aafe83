//! Budgets that mean something: a run ends within its run budget plus a margin,
//! whatever its functions would cost, and a function stopped by its budget is reported with
//! that budget, its assertions unknown, never proved. Verdicts are what is asserted; the one
//! timing is checked against a margin several times the budget.

mod common;

use common::check_json;
use serde_json::Value;
use std::time::{Duration, Instant};

/// A library of `n` entry functions, each hashing its arguments in a loop and asserting
/// that the square of the hash is not 2, which holds (2 is not a square modulo 2^32: an
/// odd square is 1 modulo 8, an even one 0 or 4). No stage proves it, and every stage
/// would use all the time it is given: the counterexample search unrolls a multiplication
/// deeper and deeper, native runs with invented inputs never reach the error.
fn hashing_library(n: usize) -> String {
    let mut c = String::from("#include \"polyfocus.h\"\n");
    for k in 0..n {
        c += &format!(
            "unsigned hash_{k}(unsigned x, unsigned n) {{\n\
             \x20 unsigned h = x + {k}u;\n\
             \x20 for (unsigned i = 0; i < n; i++) h = h * 2654435761u + (i ^ {k}u);\n\
             \x20 polyfocus_assert(h * h != 2u);   // holds\n\
             \x20 return h;\n\
             }}\n"
        );
    }
    c
}

fn functions(report: &Value) -> &Vec<Value> {
    report["functions"]
        .as_array()
        .expect("functions in the report")
}

/// With a run budget of 4 s and 60 functions that would each use a minute, the run ends
/// within the budget plus a margin (when every function got at least a second, whatever
/// was left, 30 of them took 18 s).
/// Every function is listed with its budget; none proves or refutes the assertion that
/// holds, and one that got no time says so.
#[test]
fn a_run_ends_within_its_budget_whatever_its_functions_cost() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("hashes.c");
    std::fs::write(&path, hashing_library(60)).expect("writing the program");
    let start = Instant::now();
    let report = check_json(&path, &["--run-budget", "4", "--timeout", "60", "-j", "1"]);
    let wall = start.elapsed();
    // Loading and reporting are in the run's budget; the margin is for a loaded machine.
    assert!(
        wall < Duration::from_secs(4 + 16),
        "a 4 s run budget took {wall:?}"
    );
    let checks = report["checks"].as_array().expect("checks");
    assert_eq!(checks.len(), 60);
    for c in checks {
        assert_eq!(c["verdict"], "unknown", "{c}");
    }
    let runs = functions(&report);
    assert_eq!(runs.len(), 60);
    for f in runs {
        let budget = f["budget_ms"].as_u64().expect("budget_ms");
        assert!(budget <= 4000 + 500, "{f}: more than the run's budget");
        assert!(f["end"].is_string(), "{f}");
        // The CPU time budgets count, beside the wall time.
        assert!(f["cpu_ms"].is_u64() && f["time_ms"].is_u64(), "{f}");
    }
}

/// A function stopped by its budget keeps its assertions unknown with the budget as their
/// reason: with a budget too small for any stage after the interval stage, the assertion
/// that holds is not proved, and the one the interval stage proves stays proved. (A cheap
/// assertion `c <= 10` for a counter saturating at 10 would not do: path focusing proves it
/// and intervals do not, and under load 20 focus needs more than the 0.5 s.)
#[test]
fn a_function_out_of_time_reports_its_budget_and_keeps_cheap_proofs() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("one.c");
    std::fs::write(
        &path,
        "#include \"polyfocus.h\"\n\
         unsigned f(unsigned x, unsigned n) {\n\
         \x20 unsigned h = x;\n\
         \x20 for (unsigned j = 0; j < 10; j++) { h += j; polyfocus_assert(j <= 10); } // the interval stage proves it\n\
         \x20 for (unsigned i = 0; i < n; i++) h = h * 2654435761u + i;\n\
         \x20 polyfocus_assert(h * h != 2u); // holds; nothing proves it\n\
         \x20 return h;\n\
         }\n",
    )
    .expect("writing the program");
    let report = check_json(&path, &["--timeout", "0.5", "-j", "1"]);
    let checks = report["checks"].as_array().expect("checks");
    assert_eq!(checks[0]["verdict"], "proved", "{report}");
    assert_eq!(checks[1]["verdict"], "unknown", "{report}");
    // `--timeout` bounds the whole function, its preconditions' reserve included.
    let f = &functions(&report)[0];
    assert!(f["budget_ms"].as_u64().expect("budget_ms") <= 500, "{f}");
}

/// A function with `n` steps, each an assignment, a branch and an assertion that holds
/// (`x` stays below 2^31 after `x &= 0x7fffffff`): hundreds of instructions per 10 steps.
fn long_function(name: &str, n: usize) -> String {
    let mut c = format!("unsigned {name}(unsigned x, unsigned y) {{\n");
    for k in 0..n {
        c += &format!(
            "  x = (x * {m}u + y) & 0x7fffffffu;\n\
             \x20 if (x > {k}u) y += x; else y ^= {k}u;\n\
             \x20 polyfocus_assert(x < 0x80000000u);\n",
            m = 2 * k + 3
        );
    }
    c + "  return x + y;\n}\n"
}

/// The front end's budget is a size, so it does not depend on the machine: a
/// function larger than `-Z lift-limit` instructions is neither optimized nor lifted, and
/// every one of its assertions is reported unknown for that budget, with a warning that
/// gives its size; its function is listed as ended by that budget. A small function beside
/// it is analyzed as usual (its assertion proved).
#[test]
fn a_function_over_the_lift_limit_is_reported_with_the_front_ends_budget() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("huge.c");
    let source = format!(
        "#include \"polyfocus.h\"\n{}\
         unsigned small(unsigned x) {{ x &= 15u; polyfocus_assert(x < 16u); return x; }}\n",
        long_function("huge", 200)
    );
    std::fs::write(&path, source).expect("writing the program");
    let report = check_json(&path, &["-Z", "lift-limit=1000", "-j", "1"]);
    let checks = report["checks"].as_array().expect("checks");
    let huge: Vec<&Value> = checks.iter().filter(|c| c["function"] == "huge").collect();
    assert_eq!(
        huge.len(),
        200,
        "every assertion of the huge function is listed: {report}"
    );
    for c in &huge {
        assert_eq!(c["verdict"], "unknown", "{c}");
        let reason = c["reason"].as_str().unwrap_or("");
        assert!(
            reason.starts_with("budget: `huge` is not analyzed: ")
                && reason.contains("-Z lift-limit=1000"),
            "{c}"
        );
    }
    let small = checks
        .iter()
        .find(|c| c["function"] == "small")
        .expect("the small function's assertion");
    assert_eq!(small["verdict"], "proved", "{small}");
    let runs = functions(&report);
    let huge_run = runs
        .iter()
        .find(|f| f["function"] == "huge")
        .expect("the huge function is listed");
    assert_eq!(huge_run["end"], "budget: front end", "{huge_run}");
    let warned = report["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .any(|w| {
            let w = w.as_str().unwrap_or("");
            w.contains("huge") && w.contains("-Z lift-limit=1000")
        });
    assert!(warned, "a warning gives the size and the limit: {report}");
    // Within the default limit the same function is lifted and its assertions proved.
    let report = check_json(&path, &["-j", "1"]);
    let proved = report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .filter(|c| c["function"] == "huge" && c["verdict"] == "proved")
        .count();
    assert_eq!(proved, 200, "{report}");
}

/// Inlining stops where a caller would grow past `-Z inline-caller-limit`: the calls that do
/// not fit stay calls, and their callee is analyzed as a function of its own (its
/// assertion, which holds for every argument, proved there), so that no assertion is lost.
/// Without the limit, every call is inlined and the callee is not listed.
#[test]
fn inlining_stops_at_the_caller_limit_and_the_callee_is_analyzed_on_its_own() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("calls.c");
    let mut source = String::from(
        "#include \"polyfocus.h\"\n\
         static unsigned step(unsigned x) { x = (x * 5u + 1u) & 1023u; \
         polyfocus_assert(x < 1024u); return x; }\n\
         unsigned many(unsigned x) {\n",
    );
    for _ in 0..40 {
        source += "  x = step(x);\n";
    }
    source += "  return x;\n}\n";
    std::fs::write(&path, source).expect("writing the program");
    let listed = |report: &Value| functions(report).iter().any(|f| f["function"] == "step");
    // The assertion is one check; each inlined copy is a context of it.
    let contexts = |report: &Value| {
        let checks = report["checks"].as_array().expect("checks");
        assert_eq!(checks.len(), 1, "{report}");
        checks[0]["contexts"].as_array().expect("contexts").len()
    };
    let report = check_json(&path, &["-j", "1"]);
    assert!(!listed(&report), "every call inlined: {report}");
    assert_eq!(contexts(&report), 40, "{report}");
    let report = check_json(&path, &["-Z", "inline-caller-limit=100", "-j", "1"]);
    assert!(
        listed(&report),
        "the callee is an entry of its own: {report}"
    );
    assert!(contexts(&report) < 40, "fewer inlined copies: {report}");
    assert_eq!(report["checks"][0]["verdict"], "proved", "{report}");
}

/// A loop whose bound the interval stage proves: `i` stays in [0, 100].
const COUNTING_LOOP: &str = "#include \"polyfocus.h\"\n\
     unsigned count(unsigned n) {\n\
     \x20 unsigned s = 0;\n\
     \x20 for (unsigned i = 0; i < 100; i++) { s += n & 1u; polyfocus_assert(i <= 100u); }\n\
     \x20 return s;\n\
     }\n";

/// The interval stage of `count` in a report: its end and its detail (with the steps).
fn interval_stage(report: &Value) -> (String, String) {
    let f = functions(report)
        .iter()
        .find(|f| f["function"] == "count")
        .expect("count is analyzed");
    let stage = f["stages"]
        .as_array()
        .expect("stages")
        .iter()
        .find(|s| s["stage"] == "interval analysis")
        .expect("the interval stage ran");
    (
        stage["end"].as_str().unwrap_or_default().to_string(),
        stage["detail"].as_str().unwrap_or_default().to_string(),
    )
}

/// The interval pass is limited by work, not time: with a budget of work too
/// small for its fixpoint it stops at the same step on every run (the same steps reported,
/// however loaded the machine), ends with the analysis's budget, proves nothing, and the
/// later stages still prove the assertion; with the default budget it proves it itself.
#[test]
fn the_interval_pass_stops_at_its_budget_of_work_the_same_way_every_time() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("count.c");
    std::fs::write(&path, COUNTING_LOOP).expect("writing the program");
    let small = ["-Z", "interval-work=40", "-j", "1"];
    let first = check_json(&path, &small);
    let second = check_json(&path, &small);
    let (end, detail) = interval_stage(&first);
    assert_eq!(end, "budget: analysis", "{detail}");
    assert!(detail.starts_with("0 of 1 assertions proved"), "{detail}");
    assert_eq!(
        interval_stage(&second),
        (end, detail),
        "the same stop twice"
    );
    assert_eq!(
        first["checks"][0]["verdict"], "proved",
        "{}",
        first["checks"][0]
    );

    let full = check_json(&path, &["-j", "1"]);
    let (end, detail) = interval_stage(&full);
    assert_eq!(end, "finished", "{detail}");
    assert!(detail.starts_with("1 of 1 assertions proved"), "{detail}");
    assert_eq!(full["checks"][0]["verdict"], "proved");
}

/// Pass 1 is final: what the interval stage proves, the default configuration reports
/// proved however little time the later stages get (a per-function `--timeout` of a
/// fraction of a second, where path focusing cannot finish).
#[test]
fn what_the_interval_pass_proves_no_later_stage_loses() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("count.c");
    std::fs::write(&path, COUNTING_LOOP).expect("writing the program");
    let classic = check_json(
        &path,
        &["-Z", "engine=classic", "-Z", "domain=interval", "-j", "1"],
    );
    assert_eq!(classic["checks"][0]["verdict"], "proved");
    let hurried = check_json(&path, &["--timeout", "0.05", "-j", "1"]);
    assert_eq!(hurried["checks"][0]["verdict"], "proved", "{}", hurried);
}

/// The rounds of the contract search of `program`, as `-Z debug-contracts`
/// prints them: obligations, proved, steps of work and steps left, without the time.
fn contract_rounds(program: &std::path::Path) -> Vec<String> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_polyfocus"))
        .args([
            "check",
            "--format",
            "json",
            "-j",
            "1",
            "-Z",
            "debug-contracts=rounds",
        ])
        .arg(program)
        .output()
        .expect("polyfocus runs");
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.starts_with("contracts: round"))
        .map(|l| {
            l.rsplit_once(", ")
                .map_or(l, |(rounds, _time)| rounds)
                .to_string()
        })
        .collect()
}

/// The contract search of recursive functions is bounded by work, not time: two runs (the
/// test binaries run in parallel, so the load differs) go through the same rounds, each
/// spending the same steps, and certify the same contracts, hence prove the same.
#[test]
fn the_contract_search_spends_the_same_work_every_time() {
    let path = common::program("recursion_guarded.c");
    let first = contract_rounds(&path);
    assert!(first.len() >= 2, "rounds: {first:?}");
    assert!(
        first.iter().all(|r| r.contains(" steps (")),
        "each round reports its work: {first:?}"
    );
    assert_eq!(contract_rounds(&path), first, "the same rounds twice");
    let report = check_json(&path, &["-j", "1"]);
    assert_eq!(
        common::check_at_line(&report, 14).map(|c| c["verdict"].clone()),
        Some(Value::from("proved")),
        "{report}"
    );
}

/// A loop whose bound is an input, squaring what it carries: every unrolling asks the
/// solver about products of arbitrary values.
const SQUARING_LOOP: &str = "\
function squaring() entry bb0
  bb0: ; entry
    v0: i32 = havoc (nondet polyfocus_nondet_int)
    v1: i32 = havoc (nondet polyfocus_nondet_int)
    jump bb1 [v2 := 0:i32, v3 := v1]
  bb1: ; loop
    v4: i1 = icmp slt v2, v0
    branch v4 ? bb2 : bb3
  bb2: ; body
    v5: i32 = mul v3, v3
    v6: i32 = add v5, v2
    v7: i32 = add v2, 1:i32
    jump bb1 [v2 := v7, v3 := v6]
  bb3: ; exit
    v8: i1 = icmp eq v3, 12345:i32
    branch v8 ? bb4 : bb5
  bb4: ; fail
    error check0
  bb5: ; ok
    return
";

/// Bounded model checking stops at its budget of work (z3's resource count), not
/// at a time: with a budget of one step, the same query gives up every time, and without a
/// budget it is answered; the work spent is counted.
#[test]
fn bounded_model_checking_stops_at_its_budget_of_work_the_same_way_every_time() {
    use polyfocus::ir::{BlockId, HavocReason};
    use polyfocus::smt::bmc::{Bmc, BmcResult};
    let func = polyfocus::ir::parse(SQUARING_LOOP).expect("the test function parses");
    // The blocks in their order are a reverse post-order (the only back edge is bb2 -> bb1).
    let rpo: Vec<BlockId> = func.block_ids().collect();
    let inputs = |_: &HavocReason| true;
    let targets = func.checks();
    let far = Instant::now() + Duration::from_secs(600);
    let no_faults = || std::sync::Arc::new(polyfocus::context::InjectedUnknowns::every(0));
    for _ in 0..2 {
        let mut bmc = Bmc::new(&func, &rpo, &inputs, &targets, None, no_faults());
        bmc.set_work_limit(1);
        let answer = bmc.search(8, 600_000, far, far);
        assert!(
            matches!(answer, BmcResult::Unknown(_)),
            "a budget of one step: {answer:?}"
        );
    }
    let mut bmc = Bmc::new(&func, &rpo, &inputs, &targets, None, no_faults());
    let answer = bmc.search(8, 600_000, far, far);
    assert!(
        !matches!(answer, BmcResult::Unknown(_)),
        "without a budget: {answer:?}"
    );
    assert!(bmc.work_spent() > 1, "the work of the query is counted");
}

/// diamond_2-2.c of `../shared/bench` (sv-benchmarks, loop-acceleration): ten diamonds on
/// `y % 2` in a loop over a wrapping `x`. The assertion holds, but path focusing does not
/// prove it: the solver finds path after path that the polyhedra show adds nothing, each
/// query costing seconds, and without a budget of solver work the engine ran until its
/// deadline, 48 s of the default 60.
const DIAMONDS: &str = "#include \"polyfocus.h\"\n\
     int main(void) {\n\
     \x20 unsigned int x = 0;\n\
     \x20 unsigned int y = polyfocus_nondet_uint();\n\
     \x20 while (x < 99) {\n\
     \x20   if (y % 2 == 0) x += 2; else x++;\n\
     \x20   if (y % 2 == 0) x += 2; else x -= 2;\n\
     \x20   if (y % 2 == 0) x += 2; else x += 2;\n\
     \x20   if (y % 2 == 0) x += 2; else x -= 2;\n\
     \x20   if (y % 2 == 0) x += 2; else x += 2;\n\
     \x20   if (y % 2 == 0) x += 2; else x -= 4;\n\
     \x20   if (y % 2 == 0) x += 2; else x += 4;\n\
     \x20   if (y % 2 == 0) x += 2; else x += 2;\n\
     \x20   if (y % 2 == 0) x += 2; else x -= 4;\n\
     \x20   if (y % 2 == 0) x += 2; else x -= 4;\n\
     \x20 }\n\
     \x20 polyfocus_assert((x % 2) == (y % 2));\n\
     \x20 return 0;\n\
     }\n";

/// The engine's stage (`analysis`, the first one) of `main` in a report: its end and its
/// detail (queries and solver work).
fn engine_stage(report: &Value) -> (String, String) {
    let f = functions(report)
        .iter()
        .find(|f| f["function"] == "main")
        .expect("main is analyzed");
    let stage = f["stages"]
        .as_array()
        .expect("stages")
        .iter()
        .find(|s| s["stage"] == "analysis")
        .expect("the engine ran");
    (
        stage["end"].as_str().unwrap_or_default().to_string(),
        stage["detail"].as_str().unwrap_or_default().to_string(),
    )
}

/// Path focusing is limited by solver work, not time: on the diamonds it stops
/// with the analysis's budget long before the default minute, at the same query and the
/// same work on every run, and the assertion stays unknown.
#[test]
fn path_focusing_stops_at_its_budget_of_solver_work_the_same_way_every_time() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("diamonds.c");
    std::fs::write(&path, DIAMONDS).expect("writing the program");
    let flags = ["--no-counterexamples", "-j", "1"];
    let start = Instant::now();
    let first = check_json(&path, &flags);
    let wall = start.elapsed();
    let second = check_json(&path, &flags);
    let (end, detail) = engine_stage(&first);
    assert_eq!(end, "budget: analysis", "{detail}");
    assert!(detail.contains("solver queries"), "{detail}");
    assert_eq!(engine_stage(&second), (end, detail), "the same stop twice");
    assert_eq!(first["checks"][0]["verdict"], "unknown");
    // The default budget of a function is 60 s; the margin is for a loaded machine.
    assert!(wall < Duration::from_secs(40), "the diamonds took {wall:?}");
}
