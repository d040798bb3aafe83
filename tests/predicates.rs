//! The examples of Gurfinkel & Chaki through the real binary with the predicate
//! domains: Fig. 1(a), a flag correlated with a loop's numeric effect, and the
//! loop-counter and case-split families of its experiments at growing sizes (times are
//! printed: measurement, not assertion).

use std::path::Path;
use std::process::Command;
use std::time::Instant;

const BIN: &str = env!("CARGO_BIN_EXE_polyfocus");

/// Runs `check` on a C program; returns the per-check verdicts and the wall time.
fn verdicts(src: &str, args: &[&str]) -> (Vec<String>, f64) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.c");
    std::fs::write(&path, src).unwrap();
    let start = Instant::now();
    let out = Command::new(BIN)
        .arg("check")
        .args([
            "--format",
            "json",
            "--no-counterexamples",
            "--timeout",
            "60",
        ])
        .args(args)
        .arg(Path::new(&path))
        .output()
        .unwrap();
    let secs = start.elapsed().as_secs_f64();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "bad json ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let vs = json["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["verdict"].as_str().unwrap().to_string())
        .collect();
    (vs, secs)
}

fn all_proved(vs: &[String]) -> bool {
    !vs.is_empty() && vs.iter().all(|v| v == "proved")
}

const FIG_1A: &str = r#"
#include "polyfocus.h"
int main(void) {
  int i = polyfocus_nondet_int();
  int a1 = polyfocus_nondet_int(), a2 = polyfocus_nondet_int();
  polyfocus_assume(i == 1 || i == 2);
  switch (i) { case 1: a1 = 3; break; case 2: a2 = -4; break; }
  switch (i) {
  case 1: polyfocus_assert(a1 > 0); break;
  case 2: polyfocus_assert(a2 < 0); break;
  default: polyfocus_assert(0);
  }
  return 0;
}
"#;

/// Fig. 1(a): path focusing alone already separates the two cases (each focus path is
/// analyzed on its own), so it is proved with and without predicates; the classic engine
/// joins at the merge point and needs the predicate `i == 1`, which is not a program boolean;
/// predicate refinement runs on top of path focusing only, so classic stays unknown.
#[test]
fn fig_1a() {
    for domain in ["poly", "poly-pred"] {
        let domain_arg = format!("domain={domain}");
        let (vs, t) = verdicts(FIG_1A, &["-Z", &domain_arg]);
        println!("fig1a focus {domain}: {vs:?} {t:.2}s");
        assert!(all_proved(&vs), "{domain}: {vs:?}");
        let (vs, t) = verdicts(FIG_1A, &["-Z", &domain_arg, "-Z", "engine=classic"]);
        println!("fig1a classic {domain}: {vs:?} {t:.2}s");
        assert!(vs.iter().all(|v| v != "violated"), "{domain}: {vs:?}");
    }
}

const FLAG_LOOP: &str = r#"
#include "polyfocus.h"
int main(void) {
  int x = polyfocus_nondet_int();
  int pos = x > 0;
  int n = polyfocus_nondet_int();
  int i = 0, y = 0;
  while (i < n) {
    if (pos) y = y + 1; else y = y - 1;
    i++;
  }
  if (pos) polyfocus_assert(y >= 0); else polyfocus_assert(y <= 0);
  return 0;
}
"#;

/// A boolean correlated with the sign of a loop's effect: convex polyhedra join the two
/// cases at the loop head (`-i <= y <= i`); the partitioned domain keeps one polyhedron per
/// value of the flag. The product (one BDD, one polyhedron) cannot.
#[test]
fn flag_correlated_with_loop() {
    // Polyhedra alone may prove it too when the boolean is live at the loop head (a
    // relational hull over the 0/1 dimension); printed, not asserted.
    let (vs, _) = verdicts(FLAG_LOOP, &["-Z", "domain=poly"]);
    println!("flag loop poly alone: {vs:?}");
    for args in [
        &["-Z", "domain=poly-pred"][..],
        &["-Z", "predicates=on"][..],
        &["-Z", "domain=poly-pred", "-Z", "engine=classic"][..],
        &["-Z", "domain=interval-pred"][..],
    ] {
        let (vs, t) = verdicts(FLAG_LOOP, args);
        println!("flag loop {args:?}: {vs:?} {t:.2}s");
        assert!(all_proved(&vs), "{args:?}: {vs:?}");
    }
    let (vs, _) = verdicts(
        FLAG_LOOP,
        &["-Z", "domain=poly-pred", "-Z", "pred-domain=product"],
    );
    assert!(vs.iter().all(|v| v != "violated"), "product: {vs:?}");
    let (vs, _) = verdicts(
        FLAG_LOOP,
        &["-Z", "domain=poly-pred", "-Z", "predicates=off"],
    );
    assert!(vs.iter().all(|v| v != "violated"), "predicates off: {vs:?}");
}

/// Fig. 14(a): `x = 0; while (x < C) ++x; assert(x == C)`.
fn loop_counter(c: u32) -> String {
    format!(
        r#"#include "polyfocus.h"
int main(void) {{
  int x = 0;
  while (x < {c}) ++x;
  polyfocus_assert(x == {c});
  return 0;
}}
"#
    )
}

/// Fig. 14(b): `n = 1; if (x0 < 0) n = 0; ... else if (xC < 0) n = 0;` then the same chain
/// asserting `n == 0`.
fn case_split(c: u32) -> String {
    let mut s = String::from("#include \"polyfocus.h\"\nint main(void) {\n");
    for i in 0..=c {
        s += &format!("  int x{i} = polyfocus_nondet_int();\n");
    }
    s += "  int n = 1;\n";
    for i in 0..=c {
        let kw = if i == 0 { "if" } else { "else if" };
        s += &format!("  {kw} (x{i} < 0) n = 0;\n");
    }
    for i in 0..=c {
        let kw = if i == 0 { "if" } else { "else if" };
        s += &format!("  {kw} (x{i} < 0) polyfocus_assert(n == 0);\n");
    }
    s += "  return 0;\n}\n";
    s
}

#[test]
fn loop_counter_family() {
    for c in [10, 100, 1000, 10000] {
        let src = loop_counter(c);
        let mut line = format!("loop-counter C={c}:");
        for domain in ["poly", "poly-pred"] {
            let (vs, t) = verdicts(&src, &["-Z", &format!("domain={domain}")]);
            line += &format!(" {domain} {:?} {t:.2}s;", vs);
            if domain == "poly-pred" {
                assert!(all_proved(&vs), "C={c}: {vs:?}");
            }
        }
        println!("{line}");
    }
}

#[test]
fn case_split_family() {
    for c in [1, 2, 4, 8, 12] {
        let src = case_split(c);
        let mut line = format!("case-split C={c}:");
        for (name, args) in [
            ("poly", &["-Z", "domain=poly"][..]),
            ("poly-pred", &["-Z", "domain=poly-pred"][..]),
            (
                "classic poly",
                &["-Z", "domain=poly", "-Z", "engine=classic"][..],
            ),
            (
                "classic poly-pred",
                &["-Z", "domain=poly-pred", "-Z", "engine=classic"][..],
            ),
        ] {
            let (vs, t) = verdicts(&src, args);
            line += &format!(
                " {name} {}/{} {t:.2}s;",
                vs.iter().filter(|v| *v == "proved").count(),
                vs.len()
            );
            assert!(vs.iter().all(|v| v != "violated"), "C={c} {name}: {vs:?}");
            if name.ends_with("poly-pred") {
                // The classic engine joins at each merge; the partitioned domain keeps the
                // first chain's comparisons apart, polyhedra alone cannot.
                assert!(all_proved(&vs), "C={c} {name}: {vs:?}");
            }
        }
        println!("{line}");
    }
}

/// Runs `check --format json` on a C program and returns the whole report.
fn report(src: &str, args: &[&str]) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.c");
    std::fs::write(&path, src).unwrap();
    let out = Command::new(BIN)
        .args(["check", "--format", "json", "--no-counterexamples"])
        .args(args)
        .arg(&path)
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("bad json ({e}): {}", String::from_utf8_lossy(&out.stderr)))
}

/// A loop whose invariant is disjunctive (`x = 0 ∧ n < 0` or `0 ≤ x ≤ n`): the convex hull
/// at the loop head lets the error through; refinement finds the weakest precondition of
/// the error path at the loop head, splits the head's states by its atoms, and proves it.
/// The predicates are localized at the loop head only (one cut point).
const DISJUNCTIVE_LOOP: &str = r#"
#include "polyfocus.h"
int main(void) {
  int n = polyfocus_nondet_int();
  int x = 0;
  while (x < n) x = x + 1;
  if (x != n) polyfocus_assert(n < 0);
  return 0;
}
"#;

#[test]
fn refinement_localizes_predicates_at_the_loop_head() {
    let off = report(DISJUNCTIVE_LOOP, &["-Z", "refine=off"]);
    assert_eq!(off["checks"][0]["verdict"], "unknown", "{off}");
    assert_eq!(off["refinement"].as_array().unwrap().len(), 0);
    let on = report(DISJUNCTIVE_LOOP, &[]);
    assert_eq!(on["checks"][0]["verdict"], "proved", "{on}");
    let stats = &on["refinement"][0];
    println!("refinement: {stats}");
    assert!(stats["rounds"].as_u64().unwrap() >= 1);
    assert_eq!(stats["cut_points_with_predicates"], 1);
    assert_eq!(stats["proved"], 1);
    assert!(stats["bdd_vars"].as_u64().unwrap() <= stats["bdd_vars_unshared"].as_u64().unwrap());
    // The loop head's invariant is printed as a disjunction.
    let inv = on["invariants"][0]["invariant"].as_str().unwrap();
    assert!(inv.contains(" || "), "{inv}");
}

/// The worked example of Jain et al. (Fig. 1): `x = c; y = c + 1; if (x == m)
/// if (y != m + 1) ERROR`. They need the predicates `c = m` / `c ≠ m` at the first statements
/// because their numeric domain is predicates only; with polyhedra the relation
/// `y = x + 1` is kept along the focus path and the error is refuted without any
/// predicate: proved, and refinement never runs.
#[test]
fn jain_fig_1_needs_no_predicates_with_polyhedra() {
    let src = r#"
#include "polyfocus.h"
int main(void) {
  int c = polyfocus_nondet_int(), m = polyfocus_nondet_int();
  int x = c;
  int y = c + 1;
  if (x == m)
    if (y != m + 1) polyfocus_assert(0);
  return 0;
}
"#;
    let r = report(src, &[]);
    assert_eq!(r["checks"][0]["verdict"], "proved", "{r}");
    assert_eq!(r["refinement"].as_array().unwrap().len(), 0);
}

/// Refinement never turns an assertion that can fail into a proof.
#[test]
fn refinement_never_proves_a_failing_assertion() {
    let src = r#"
#include "polyfocus.h"
int main(void) {
  int n = polyfocus_nondet_int();
  int x = 0;
  while (x < n) x = x + 1;
  if (x != n) polyfocus_assert(n < -1);
  return 0;
}
"#;
    let r = report(src, &[]);
    assert_ne!(r["checks"][0]["verdict"], "proved", "{r}");
}
