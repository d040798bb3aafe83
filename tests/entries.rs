//! Which functions a run analyzes besides its entries, on `tests/programs/entries`: a named
//! entry (`--entry f`) analyzes what a call of it can run, the default selection everything
//! that can run in the program. Each check of the program is marked `/* check of NAME */` on
//! its line (NAME the function it is written in; a block comment, since a trailing `//`
//! comment is an annotation of the test programs' format).

mod common;

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

/// The source lines of the checks marked `/* check of NAME */`, by NAME.
fn marked_lines(path: &Path) -> Vec<(String, u32)> {
    let text = std::fs::read_to_string(path).expect("the program");
    text.lines()
        .zip(1..)
        .filter_map(|(line, n)| {
            let name = line.split("/* check of ").nth(1)?.split(" */").next()?;
            Some((name.trim().to_string(), n))
        })
        .collect()
}

struct Run {
    report: Value,
    /// The functions whose checks the report has (by the marks of their lines).
    checked: BTreeSet<String>,
    /// The functions of the report's `functions` list.
    analyzed: BTreeSet<String>,
}

#[track_caller]
fn run(path: &Path, entry: Option<&str>) -> Run {
    let mut args = vec!["--timeout", "10", "--no-counterexamples"];
    if let Some(entry) = entry {
        args.extend(["--entry", entry]);
    }
    let report = common::check_json(path, &args);
    let checked = marked_lines(path)
        .into_iter()
        .filter(|(_, line)| common::check_at_line(&report, *line).is_some())
        .map(|(name, _)| name)
        .collect();
    let analyzed = report["functions"]
        .as_array()
        .expect("a functions list")
        .iter()
        .filter_map(|f| f["function"].as_str().map(str::to_string))
        .collect();
    Run {
        report,
        checked,
        analyzed,
    }
}

fn names(list: &[&str]) -> BTreeSet<String> {
    list.iter().map(|s| s.to_string()).collect()
}

const TABLE: [&str; 3] = ["twice", "add_one", "negate"];

#[test]
fn an_entry_that_never_calls_through_the_table_analyzes_none_of_it() {
    let path = common::program("entries/table_library.c");
    let f = run(&path, Some("f"));
    // `clamp` is inlined into `f`: its check is `f`'s.
    assert_eq!(f.checked, names(&["f", "clamp"]), "{}", f.report);
    assert_eq!(f.analyzed, names(&["f"]), "{}", f.report);
}

#[test]
fn an_entry_that_calls_through_the_table_analyzes_every_function_of_it() {
    let path = common::program("entries/table_library.c");
    let g = run(&path, Some("g"));
    assert_eq!(g.checked, names(&TABLE), "{}", g.report);
    for name in TABLE {
        assert!(g.analyzed.contains(name), "{name}: {}", g.report);
    }
    // No other entry is run by a call of `g`.
    for name in ["f", "k"] {
        assert!(!g.analyzed.contains(name), "{name}: {}", g.report);
    }
}

#[test]
fn an_entry_that_calls_foreign_code_analyzes_what_it_may_call() {
    // The foreign code may call any function the table holds, and any external function;
    // the constructor ran before.
    let path = common::program("entries/table_library.c");
    let h = run(&path, Some("h"));
    let mut expected = names(&TABLE);
    expected.extend(names(&["f", "clamp", "k"]));
    assert_eq!(h.checked, expected, "{}", h.report);
}

#[test]
fn the_default_selection_analyzes_everything_that_may_run() {
    let path = common::program("entries/table_library.c");
    let all = run(&path, None);
    let expected: BTreeSet<String> = marked_lines(&path).into_iter().map(|(n, _)| n).collect();
    assert_eq!(all.checked, expected, "{}", all.report);
    for name in TABLE.iter().chain(&["f", "k", "init"]) {
        assert!(all.analyzed.contains(*name), "{name}: {}", all.report);
    }
    // The entry's own checks get the same verdicts whatever else runs.
    let f = run(&path, Some("f"));
    for (name, line) in marked_lines(&path) {
        if name == "f" || name == "clamp" {
            assert_eq!(
                common::verdict_at(&f.report, line),
                common::verdict_at(&all.report, line),
                "line {line}"
            );
        }
    }
}
