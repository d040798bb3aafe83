//! The examples of Monniaux & Gonnord's path-focusing paper, with the invariants polyfocus
//! computes at their loop heads (`polyfocus invariants`, default engine: focus + poly).

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// The conjuncts of the invariant printed for the loop head of `function` at `line`.
fn loop_invariant(file: &Path, extra: &[&str], line: u32) -> BTreeSet<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_polyfocus"))
        .arg("invariants")
        .arg(file)
        .args(extra)
        .output()
        .expect("polyfocus runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let row = text
        .lines()
        .find(|l| l.split(':').nth(1).and_then(|n| n.parse::<u32>().ok()) == Some(line))
        .unwrap_or_else(|| panic!("no loop head at line {line} in:\n{text}"));
    let inv = row.rsplit(": ").next().unwrap();
    inv.split(" && ").map(str::to_string).collect()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// The file `rel` of `../shared/bench`, when the set is beside the project (required under
/// CI).
fn bench(rel: &str) -> Option<std::path::PathBuf> {
    let p = common::shared_bench_or_skip(common::SharedSet::Bench, rel)?.join(rel);
    assert!(p.is_file(), "{} is absent", p.display());
    Some(p)
}

#[test]
fn circular_buffer_index_stays_in_range() {
    // Listing 2 of the paper: `if (x >= 99) x = 0; else x++;` gives 0 <= x <= 99.
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/loop.c");
    assert_eq!(loop_invariant(&file, &[], 17), set(&["x >= 0", "x <= 99"]));
}

#[test]
fn rate_limiter_is_bounded() {
    let Some(file) = bench("pagai/no-assert/ex/rate_limiter.c") else {
        return;
    };
    let pagai = file
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    let inv = loop_invariant(
        &file,
        &["-I", pagai.to_str().unwrap(), "--entry", "rate_limiter"],
        10,
    );
    assert_eq!(inv, set(&["x_old <= 100000", "x_old >= -100000"]));
}

#[test]
fn boustrophedon_bounds() {
    let Some(file) = bench("pagai/no-assert/ex/boustrophedon.c") else {
        return;
    };
    let inv = loop_invariant(&file, &[], 7);
    // -1 <= d <= 1 and x >= 0 as in the paper.
    for c in ["x >= 0", "d <= 1", "d >= -1"] {
        assert!(inv.contains(c), "{c} missing from {inv:?}");
    }
    // The paper's x <= 1000 follows from 2*x - d <= 1999 and d <= 1 (2x <= 1999 + d <= 2000).
    // The facet is stronger than the paper's box: it is the convex hull of the reachable
    // states at the head, whose corners are (0, 1), (1000, 1), (0, -1) and (999, -1).
    assert!(inv.contains("2*x - d <= 1999"), "{inv:?}");
}

#[test]
fn gopan_loop() {
    let Some(file) = bench("pagai/no-assert/ex/gopan.c") else {
        return;
    };
    // The best convex invariant at the loop head: 0 <= y <= x and x + y <= 102 (so at the exit,
    // y = -1 and x <= 102; polyhedra cannot express the exit's x = 102, which needs x + y = 102
    // on the descending phase only).
    assert_eq!(
        loop_invariant(&file, &[], 6),
        set(&["y >= 0", "x - y >= 0", "x + y <= 102"])
    );
}
