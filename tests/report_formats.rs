//! Report formats: SARIF 2.1.0 validated against the official JSON schema
//! (`tests/data/sarif-2.1.0.json`, OASIS errata01), stable fingerprints, GitHub's limits,
//! JUnit XML that parses with the expected structure, and one result per check of the
//! source (its contexts merged) in every format.

use polyfocus::check::{BudgetLimit, BudgetStop, CheckResult, UnknownReason, Verdict};
use polyfocus::driver::AnalysisReport;
use polyfocus::ir::{CheckId, SourceLoc};
use polyfocus::report::{self, ProgramReport, SarifOptions};
use std::path::Path;
use std::process::{Command, Output};

fn polyfocus(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_polyfocus"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("polyfocus runs")
}

fn validate_sarif(text: &str) -> serde_json::Value {
    let schema_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sarif-2.1.0.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path).unwrap()).unwrap();
    let instance: serde_json::Value =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}):\n{text}"));
    let validator = jsonschema::draft4::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the SARIF schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&instance)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect();
    assert!(
        errors.is_empty(),
        "SARIF does not validate:\n{}\n{text}",
        errors.join("\n")
    );
    instance
}

/// Proved, unknown and violated assertions in one file, in two functions.
/// One assertion proved, one violated, one unknown. (The unknown one was `square(x) != 7`,
/// which is proved now: 7 is no square modulo 8; squares modulo 3 are not reasoned about.)
const MIXED: &str = r#"extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
#include <assert.h>
static int square(int x) { return x * x; }
int main(void) {
  int i = 0;
  while (i < 10) i++;
  assert(i == 10);
  int x = __VERIFIER_nondet_int();
  assert(square(x) % 3 != 2);
  if (x > 10 && x < 13) reach_error();
  return 0;
}
"#;

fn mixed_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/mixed.c"), MIXED).unwrap();
    dir
}

#[test]
fn sarif_validates_against_the_schema_and_names_rules_and_locations() {
    let dir = mixed_dir();
    let out = polyfocus(dir.path(), &["check", "src/mixed.c", "--format", "sarif"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let log = validate_sarif(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(log["version"], "2.1.0");
    let runs = log["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "polyfocus");
    let rule_ids: Vec<&str> = driver["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    // One rule per kind of runtime check follows the assertions'.
    assert_eq!(
        rule_ids,
        ["PF000", "PF001", "PF002", "PF010", "PF011", "PF012", "PF013", "PF014"]
    );
    let results = run["results"].as_array().unwrap();
    // The proved assertion is not a result; the violated one is an error with a code flow.
    assert_eq!(results.len(), 2, "{run:#}");
    let violated = results
        .iter()
        .find(|r| r["ruleId"] == "PF001")
        .expect("PF001");
    assert_eq!(violated["level"], "error");
    assert!(violated["codeFlows"][0]["threadFlows"][0]["locations"]
        .as_array()
        .is_some_and(|l| !l.is_empty()));
    let unknown = results
        .iter()
        .find(|r| r["ruleId"] == "PF002")
        .expect("PF002");
    assert_eq!(unknown["level"], "warning");
    for r in results {
        let phys = &r["locations"][0]["physicalLocation"];
        assert_eq!(phys["artifactLocation"]["uri"], "src/mixed.c", "{r:#}");
        assert_eq!(phys["artifactLocation"]["uriBaseId"], "SRCROOT");
        assert!(phys["region"]["startLine"].as_u64().unwrap() >= 8);
        assert!(r["partialFingerprints"]["polyfocus/v1"].is_string());
    }
}

#[test]
fn sarif_fingerprints_survive_lines_inserted_above() {
    let dir = mixed_dir();
    let run = |dir: &Path| {
        let out = polyfocus(
            dir,
            &[
                "check",
                "src/mixed.c",
                "--format",
                "sarif",
                "--no-counterexamples",
            ],
        );
        let log = validate_sarif(&String::from_utf8_lossy(&out.stdout));
        log["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["partialFingerprints"]["polyfocus/v1"]
                        .as_str()
                        .unwrap()
                        .to_string(),
                    r["locations"][0]["physicalLocation"]["region"]["startLine"]
                        .as_u64()
                        .unwrap(),
                )
            })
            .collect::<Vec<_>>()
    };
    let before = run(dir.path());
    assert!(!before.is_empty());
    std::fs::write(
        dir.path().join("src/mixed.c"),
        format!("/* a new header comment */\n\n{MIXED}"),
    )
    .unwrap();
    let after = run(dir.path());
    assert_eq!(before.len(), after.len());
    for ((fa, la), (fb, lb)) in before.iter().zip(&after) {
        assert_eq!(fa, fb);
        assert_eq!(la + 2, *lb);
    }
}

fn unknown_results(n: u32) -> ProgramReport {
    let analysis = AnalysisReport {
        results: (0..n)
            .map(|i| CheckResult {
                check: CheckId(i),
                kind: polyfocus::ir::CheckKind::ErrorCall {
                    function: "reach_error".into(),
                },
                loc: Some(SourceLoc {
                    file: "gen.c".into(),
                    line: i + 1,
                    column: 3,
                }),
                function: "f".into(),
                verdict: Verdict::Unknown(UnknownReason::Stopped(BudgetStop {
                    function: "f".into(),
                    limit: BudgetLimit::Time(std::time::Duration::from_secs(10)),
                })),
            })
            .collect(),
        ..AnalysisReport::default()
    };
    ProgramReport::new("prog".into(), analysis, vec![])
}

#[test]
fn sarif_respects_the_result_limit_with_a_note() {
    let programs = [
        unknown_results(12),
        ProgramReport::failed("other".into(), "clang failed".into()),
    ];
    let mut options = SarifOptions::new(std::env::temp_dir());
    options.max_results = 5;
    let log = validate_sarif(&report::sarif(&programs, &options));
    let run = &log["runs"][0];
    assert_eq!(run["results"].as_array().unwrap().len(), 5);
    let notes: Vec<String> = run["invocations"][0]["toolExecutionNotifications"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["message"]["text"].as_str().unwrap().to_string())
        .collect();
    assert!(
        notes.iter().any(|n| n.contains("7 of 12 results omitted")),
        "{notes:?}"
    );
    assert!(
        notes.iter().any(|n| n.contains("clang failed")),
        "{notes:?}"
    );
    // Identical keys (same file, function, unreadable line) get distinct fingerprints.
    let fps: std::collections::BTreeSet<&str> = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["partialFingerprints"]["polyfocus/v1"].as_str().unwrap())
        .collect();
    assert_eq!(fps.len(), 5);
    // The size limit: code flows, then results, are dropped.
    options.max_results = 5000;
    options.max_bytes = 2000;
    let text = report::sarif(&programs, &options);
    // What is left is the fixed part (the eight rules, the notes, the summary) and the
    // truncation note: about 6,300 bytes.
    assert!(text.len() <= 7000, "{}", text.len());
    validate_sarif(&text);
}

#[test]
fn junit_parses_with_one_testcase_per_assertion() {
    let dir = mixed_dir();
    let out = polyfocus(dir.path(), &["check", "src/mixed.c", "--format", "junit"]);
    assert_eq!(out.status.code(), Some(1));
    let xml = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(xml.starts_with("<?xml"));
    let (suites, cases, failures, skipped, errors) = junit_counts_simple(&xml);
    assert_eq!(
        (suites, cases, failures, skipped, errors),
        (1, 3, 1, 1, 0),
        "{xml}"
    );
    // A program that does not load is an error testcase; special characters are escaped.
    let programs = [
        unknown_results(2),
        ProgramReport::failed("a<b>&\"c\"".into(), "line 1\nline 2 'quoted' <x>".into()),
    ];
    let xml = report::junit(&programs);
    assert_eq!(junit_counts_simple(&xml), (2, 3, 0, 2, 1), "{xml}");
}

/// Parses JUnit XML and counts (testsuites, testcases, failures, skipped, errors), checking
/// the nesting.
fn junit_counts_simple(xml: &str) -> (usize, usize, usize, usize, usize) {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut counts = (0, 0, 0, 0, 0);
    let mut stack: Vec<String> = Vec::new();
    loop {
        let event = reader
            .read_event()
            .unwrap_or_else(|e| panic!("JUnit does not parse: {e}\n{xml}"));
        let (e, empty) = match event {
            Event::Eof => break,
            Event::Start(e) => (e, false),
            Event::Empty(e) => (e, true),
            Event::End(_) => {
                stack.pop();
                continue;
            }
            _ => continue,
        };
        let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
        match (name.as_str(), stack.last().map(String::as_str)) {
            ("testsuites", None) => {}
            ("testsuite", Some("testsuites")) => counts.0 += 1,
            ("testcase", Some("testsuite")) => counts.1 += 1,
            ("failure", Some("testcase")) => counts.2 += 1,
            ("skipped", Some("testcase")) => counts.3 += 1,
            ("error", Some("testcase")) => counts.4 += 1,
            (other, parent) => panic!("unexpected <{other}> in {parent:?}\n{xml}"),
        }
        for attr in e.attributes() {
            attr.expect("attribute parses")
                .unescape_value()
                .expect("attribute unescapes");
        }
        if !empty {
            stack.push(name);
        }
    }
    counts
}

// Results are listed in source order (file, line, column), in text and JSON, even when an
// inlined callee's assertion has a smaller check id than a later assertion of `main`.
#[test]
fn results_are_in_source_order() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("order.c"),
        "#include \"polyfocus.h\"
int helper(int x);
int main(void) {
  int a = polyfocus_nondet_int();
  polyfocus_assume(a > 0 && a < 10);
  polyfocus_assert(a > 0);
  helper(a);
  polyfocus_assert(a < 10);
  return 0;
}
int helper(int x) {
  polyfocus_assert(x != 12345);
  return x;
}
",
    )
    .unwrap();
    let out = polyfocus(
        dir.path(),
        &[
            "check",
            "--format",
            "json",
            "--no-counterexamples",
            "order.c",
        ],
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    let lines: Vec<String> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["location"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        lines,
        ["order.c:6:3", "order.c:8:3", "order.c:12:3"],
        "{report}"
    );
    let out = polyfocus(dir.path(), &["check", "--no-counterexamples", "order.c"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let at: Vec<usize> = ["order.c:6:3", "order.c:8:3", "order.c:12:3"]
        .iter()
        .map(|l| text.find(l).unwrap_or_else(|| panic!("{l} in {text}")))
        .collect();
    assert!(at[0] < at[1] && at[1] < at[2], "{text}");
}

// `polyfocus ir` prints its warnings with file:line, and the DOT
// nodes of cut points carry their source line.
#[test]
fn ir_warnings_and_dot_nodes_have_source_lines() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("w.c"),
        "#include \"polyfocus.h\"
extern int external(int);
int main(void) {
  int s = 0;
  for (int i = 0; i < 10; i++)
    s += external(i);
  polyfocus_assert(s != 7);
  return 0;
}
",
    )
    .unwrap();
    let out = polyfocus(dir.path(), &["ir", "--dot", "w.dot", "w.c"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: w.c:6:") && stderr.contains("external"),
        "{stderr}"
    );
    let dot = std::fs::read_to_string(dir.path().join("w.dot")).unwrap();
    assert!(dot.contains("\\nw.c:5\""), "{dot}");
}

/// An assertion of a helper inlined at two call sites: proved at the first (`a > 10`),
/// violated at the second (`b == 7`).
const TWO_CONTEXTS: &str = r#"#include <assert.h>
extern int __VERIFIER_nondet_int(void);
static int twice(int x) { assert(x != 7); return 2 * x; }
int main(void) {
  int a = __VERIFIER_nondet_int();
  int b = __VERIFIER_nondet_int();
  if (a <= 10) return 0;
  return twice(a) + twice(b);
}
"#;

#[test]
fn a_check_inlined_twice_is_one_result_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("two.c"), TWO_CONTEXTS).unwrap();
    let run = |format: &str| {
        let out = polyfocus(dir.path(), &["check", "two.c", "--format", format]);
        assert_eq!(
            out.status.code(),
            Some(1),
            "one context is violated: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // JSON: one check, violated with the counterexample of its violated context, and both
    // contexts with their own verdicts.
    let report: serde_json::Value = serde_json::from_str(&run("json")).unwrap();
    let checks = report["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 1, "{report:#}");
    let check = &checks[0];
    assert_eq!(check["location"], "two.c:3:27", "{check:#}");
    assert_eq!(check["verdict"], "violated");
    assert!(
        check["counterexample"]["confirmed_by"].is_string(),
        "{check:#}"
    );
    let mut contexts: Vec<&str> = check["contexts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["verdict"].as_str().unwrap())
        .collect();
    contexts.sort();
    assert_eq!(contexts, ["proved", "violated"], "{check:#}");
    assert_eq!(report["summary"]["checks"], 1, "{report:#}");
    assert_eq!(report["summary"]["kinds"]["assert"]["violated"], 1);
    // Text: one line with the contexts, and the summary counts one assertion.
    let text = run("text");
    let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("two.c:3")).collect();
    assert_eq!(lines.len(), 1, "{text}");
    assert!(
        lines[0].contains("violated [main; violated in 1 of 2 contexts, 1 proved]"),
        "{text}"
    );
    assert!(
        text.contains("summary: 1 assertion: 0 proved, 1 violated"),
        "{text}"
    );
    // SARIF: one result, the contexts counted in its properties.
    let log = validate_sarif(&run("sarif"));
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{log:#}");
    assert_eq!(results[0]["properties"]["contexts"], 2);
    assert!(results[0]["message"]["text"]
        .as_str()
        .unwrap()
        .contains("violated in 1 of 2 contexts"));
    // JUnit: one failing testcase.
    assert_eq!(junit_counts_simple(&run("junit")), (1, 1, 1, 0, 0));
}
