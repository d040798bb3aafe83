//! Invariants people can read: struct fields by their debug-info
//! names, no constraint the types imply, loops named by their source line.

mod common;

use std::process::Command;

/// The lines of `polyfocus invariants PROGRAM`.
fn invariants(program: &str) -> Vec<String> {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new(env!("CARGO_BIN_EXE_polyfocus"))
        .arg("invariants")
        .arg("-I")
        .arg(format!("{root}/runtime"))
        .arg(common::program(program))
        .output()
        .expect("polyfocus runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

/// The invariant printed for the loop at `line`, with the whole line.
fn loop_at(lines: &[String], line: u32) -> (&str, &str) {
    let row = lines
        .iter()
        .find(|l| l.contains(&format!("loop at line {line}: ")))
        .unwrap_or_else(|| panic!("no loop at line {line} in:\n{}", lines.join("\n")));
    (row, row.rsplit(": ").next().unwrap())
}

/// Every constraint of an invariant (conjuncts of every disjunct).
fn constraints(inv: &str) -> Vec<String> {
    inv.split(" || ")
        .flat_map(|d| d.split(" && "))
        .map(|c| c.trim_matches(|ch| ch == '(' || ch == ')').to_string())
        .collect()
}

#[test]
fn struct_fields_print_by_their_member_names() {
    let lines = invariants("struct_counter.c");
    let (_, inv) = loop_at(&lines, 10);
    assert!(
        inv.contains("st.hits") && inv.contains("st.misses"),
        "{inv}"
    );
    // The relation of the counters to the loop index, over the fields' names.
    assert!(
        constraints(inv).contains(&"st.hits + st.misses - i == 0".to_string()),
        "{inv}"
    );
    for c in constraints(inv) {
        for word in c.split(|ch: char| !(ch.is_alphanumeric() || ch == '.' || ch == '_')) {
            assert_ne!(word, "st", "a field printed as its struct's name: {inv}");
        }
    }
}

#[test]
fn no_constraint_implied_by_the_types() {
    let lines = invariants("type_ranges.c");
    let (_, inv) = loop_at(&lines, 7);
    for bound in ["2147483647", "2147483648", "4294967295"] {
        assert!(!inv.contains(bound), "a type's range in {inv}");
    }
    assert!(!constraints(inv).contains(&"u >= 0".to_string()), "{inv}");
    // `key` is live but unconstrained: it does not appear at all.
    assert!(!inv.contains("key"), "{inv}");
    // What the loop computes stays.
    assert!(
        constraints(inv).contains(&"lo - 2*i == 0".to_string()),
        "{inv}"
    );
}

#[test]
fn loops_are_named_by_source_line_never_by_block() {
    for (program, line) in [("struct_counter.c", 10), ("type_ranges.c", 7)] {
        let lines = invariants(program);
        let (row, _) = loop_at(&lines, line);
        for block in ["for.cond", "while.cond", "loop head"] {
            assert!(!row.contains(block), "an LLVM block name in: {row}");
        }
        // The JSON report names the loop the same way.
        let root = env!("CARGO_MANIFEST_DIR");
        let include = format!("-I{root}/runtime");
        let report = common::check_json(
            &common::program(program),
            &[include.as_str(), "--no-counterexamples"],
        );
        let invs = report["invariants"].as_array().unwrap();
        assert!(
            invs.iter()
                .any(|i| i["loop"] == format!("loop at line {line}")),
            "{report}"
        );
        assert!(!report.to_string().contains("for.cond"), "{report}");
    }
}
