//! File tests over the textual IR: each `tests/ir/*.pf` file is a
//! small function with its expectations in comments; no clang, no binary. The function goes
//! through the standard IR passes (verified after each) and both engines over polyhedra,
//! through the library API.
//!
//! Expectations, one per comment line:
//! - `; expect[ENGINE] ...` (`classic` or `focus`): the same, for one engine only;
//! - `; checks: LIST` (once): the function also goes through the instrumentation of
//!   runtime checks (`--checks LIST`); its checks are numbered after the file's
//!   own error sites, in block order;
//! - `; expect checkN: proved` or `; expect checkN: unknown` (the verdict of the analysis,
//!   without a counterexample search: a reachable error site is `unknown` here);
//! - `; expect at bbN: LINEAR` where `LINEAR` is `e1 OP e2` over values (`v3`), integers,
//!   `+`, `-` and `k*vN`, with `OP` one of `<=`, `>=`, `==`, `<`, `>`: every disjunct of the
//!   invariant the engine computed at cut point `bbN` must entail it (the polyhedra's
//!   entailment, over the values' readings, placed by `context::Layout`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use polyfocus::check::Verdict;
use polyfocus::context::Layout;
use polyfocus::domain::{Entailment, Lattice, LinCons, LinExpr, NumericDomain, Polyhedron, Space};
use polyfocus::driver::{self, AnalysisConfig, DomainKind, Engine};
use polyfocus::graph::ReducedGraph;
use polyfocus::ir::{self, pass};

#[derive(Debug, Clone, PartialEq)]
enum Expectation {
    Verdict { check: u32, proved: bool },
    Invariant { block: u32, text: String },
}

/// An expectation and the engine it is for (`None`: both).
type Expected = (Option<Engine>, Expectation);

fn files() -> Vec<PathBuf> {
    let dir: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "ir"].iter().collect();
    let mut res: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/ir")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pf"))
        .collect();
    res.sort();
    res
}

fn expectations(text: &str) -> Result<Vec<Expected>, String> {
    let mut res = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.trim().strip_prefix("; expect") else {
            continue;
        };
        let (engine, rest) = if let Some(rest) = rest.strip_prefix("[classic] ") {
            (Some(Engine::Classic), rest)
        } else if let Some(rest) = rest.strip_prefix("[focus] ") {
            (Some(Engine::Focus), rest)
        } else if let Some(rest) = rest.strip_prefix(' ') {
            (None, rest)
        } else {
            return Err(format!("bad line `{line}`"));
        };
        if let Some(rest) = rest.strip_prefix("at bb") {
            let (block, cons) = rest.split_once(':').ok_or(format!("bad line `{line}`"))?;
            res.push((
                engine,
                Expectation::Invariant {
                    block: block
                        .trim()
                        .parse()
                        .map_err(|_| format!("bad block in `{line}`"))?,
                    text: cons.trim().to_string(),
                },
            ));
        } else if let Some(rest) = rest.strip_prefix("check") {
            let (check, verdict) = rest.split_once(':').ok_or(format!("bad line `{line}`"))?;
            let proved = match verdict.trim() {
                "proved" => true,
                "unknown" => false,
                v => return Err(format!("unknown verdict `{v}` in `{line}`")),
            };
            res.push((
                engine,
                Expectation::Verdict {
                    check: check
                        .trim()
                        .parse()
                        .map_err(|_| format!("bad check in `{line}`"))?,
                    proved,
                },
            ));
        } else {
            return Err(format!("unknown expectation `{line}`"));
        }
    }
    Ok(res)
}

/// `e1 OP e2` as constraints over the values' dimensions.
fn linear(layout: &Layout, text: &str) -> Result<Vec<LinCons>, String> {
    for op in ["<=", ">=", "==", "<", ">"] {
        if let Some((l, r)) = text.split_once(op) {
            let (a, b) = (expr(layout, l)?, expr(layout, r)?);
            return Ok(match op {
                "<=" => vec![LinCons::le(&a, &b)],
                ">=" => vec![LinCons::ge(&a, &b)],
                "==" => vec![LinCons::eq(&a, &b)],
                "<" => vec![LinCons::lt_int(&a, &b)],
                _ => vec![LinCons::lt_int(&b, &a)],
            });
        }
    }
    Err(format!("no comparison in `{text}`"))
}

fn expr(layout: &Layout, text: &str) -> Result<LinExpr, String> {
    let mut res = LinExpr::constant(0);
    let spaced = text.replace('-', " - ").replace('+', " + ");
    let mut sign = 1i64;
    for tok in spaced.split_whitespace() {
        match tok {
            "+" => sign = 1,
            "-" => sign = -sign,
            _ => {
                let (k, atom) = match tok.split_once('*') {
                    Some((k, v)) => (k.parse::<i64>().map_err(|_| format!("bad `{tok}`"))?, v),
                    None => (1, tok),
                };
                if let Some(id) = atom.strip_prefix('v') {
                    let v = ir::ValueId(id.parse().map_err(|_| format!("bad `{tok}`"))?);
                    res.add_term(sign * k, layout.value_var(v));
                } else {
                    res.add_constant(
                        sign * k * atom.parse::<i64>().map_err(|_| format!("bad `{tok}`"))?,
                    );
                }
                sign = 1;
            }
        }
    }
    Ok(res)
}

fn config(engine: Engine) -> AnalysisConfig {
    AnalysisConfig {
        engine,
        domain: DomainKind::Poly,
        timeout: Duration::from_secs(20),
        memory_per_function: 2 << 30,
        jobs: 1,
        refine: true,
        params: polyfocus::params::Params::DEFAULT,
        ends: None,
        plan: None,
        purpose: polyfocus::driver::Purpose::Invariants,
    }
}

/// Every way the file's function disagrees with its expectations (empty when it agrees).
fn failures(path: &Path, text: &str) -> Vec<String> {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let expected = match expectations(text) {
        Ok(e) if e.is_empty() => return vec![format!("{name}: no expectation")],
        Ok(e) => e,
        Err(e) => return vec![format!("{name}: {e}")],
    };
    let func = match ir::parse(text) {
        Ok(f) => f,
        Err(e) => return vec![format!("{name}: {e}")],
    };
    let pipeline = polyfocus::frontend::standard_pipeline(pass::Verification::AfterEachPass);
    let func = match pipeline.run(func) {
        Ok(f) => f,
        Err(e) => return vec![format!("{name}: {e}")],
    };
    let mut checks = func
        .checks()
        .into_iter()
        .map(|id| ir::Check {
            id,
            kind: ir::CheckKind::ErrorCall {
                function: "reach_error".into(),
            },
            loc: None,
            function: func.name.clone(),
        })
        .collect::<Vec<_>>();
    // `; checks: LIST`: the runtime checks of `--checks LIST`, numbered after the file's own.
    let selection = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("; checks: "))
        .map(ir::CheckSelection::parse);
    let func = match selection {
        None => func,
        Some(Err(e)) => return vec![format!("{name}: {e}")],
        Some(Ok(selection)) => {
            let first = checks.len() as u32;
            match pipeline.instrument(&pass::RuntimeChecks::new(selection), func, first) {
                Ok(done) => {
                    checks.extend(done.checks);
                    done.function
                }
                Err(e) => return vec![format!("{name}: {e}")],
            }
        }
    };
    if checks.iter().enumerate().any(|(i, c)| c.id.index() != i) {
        return vec![format!(
            "{name}: checks must be numbered check0, check1, ... in block order"
        )];
    }
    let module = ir::Module {
        functions: vec![func.clone()],
        checks,
        warnings: vec![],
        unanalyzable: vec![],
        callee_constants: vec![],
        held_at_own_precision: vec![],
        leaks: Default::default(),
        origins: Default::default(),
        called_only_directly: Default::default(),
    };
    let graph = ReducedGraph::new(&func);
    let mut res = Vec::new();
    for engine in [Engine::Classic, Engine::Focus] {
        let report = driver::analyze(&module, &config(engine));
        for (only, e) in &expected {
            if only.is_some_and(|only| only != engine) {
                continue;
            }
            match e {
                Expectation::Verdict { check, proved } => {
                    let Some(r) = report.results.iter().find(|r| r.check.0 == *check) else {
                        res.push(format!("{name} {engine:?}: no result for check{check}"));
                        continue;
                    };
                    if matches!(r.verdict, Verdict::Proved) != *proved {
                        res.push(format!(
                            "{name} {engine:?}: check{check} expected {}, got {:?}",
                            if *proved { "proved" } else { "unknown" },
                            r.verdict
                        ));
                    }
                }
                Expectation::Invariant { block, text } => {
                    let cons = match linear(&Layout::of(&func), text) {
                        Ok(c) => c,
                        Err(e) => {
                            res.push(format!("{name}: {e}"));
                            continue;
                        }
                    };
                    let Some(cut) = graph.cut_of_block(ir::BlockId(*block)) else {
                        res.push(format!("{name}: bb{block} is not a cut point"));
                        continue;
                    };
                    let invariant = report
                        .cut_invariants
                        .iter()
                        .find(|c| c.function == func.name)
                        .and_then(|c| c.at_cut_point.get(cut.index()).cloned().flatten());
                    let Some(disjuncts) = invariant else {
                        res.push(format!("{name} {engine:?}: no invariant at bb{block}"));
                        continue;
                    };
                    if let Some(bad) = disjuncts.iter().find(|d| !entails(d, &cons)) {
                        res.push(format!(
                            "{name} {engine:?}: at bb{block}, `{text}` is not entailed by {bad:?}"
                        ));
                    }
                }
            }
        }
    }
    res
}

/// Whether the polyhedron of `disjunct` entails every constraint of `cons`.
fn entails(disjunct: &[LinCons], cons: &[LinCons]) -> bool {
    let n_dims = disjunct
        .iter()
        .chain(cons)
        .flat_map(|c| c.expr.vars().map(|v| v.index() + 1).collect::<Vec<_>>())
        .max()
        .unwrap_or(0);
    let mut poly = Polyhedron::top(&Space::anonymous(n_dims));
    poly.meet_cons(disjunct);
    cons.iter().all(|c| poly.entails(c) == Entailment::Holds)
}

#[test]
fn every_file_meets_its_expectations() {
    let files = files();
    assert!(files.len() >= 5, "files: {files:?}");
    let mut all = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        all.extend(failures(path, &text));
    }
    assert!(all.is_empty(), "{}", all.join("\n"));
}

/// The runner is not vacuous: a wrong expectation of each kind is reported.
#[test]
fn a_wrong_expectation_fails() {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "ir", "counter.pf"]
        .iter()
        .collect();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(failures(&path, &text).is_empty());

    let wrong_bound = text.replace("; expect at bb1: v0 <= 100", "; expect at bb1: v0 <= 99");
    let found = failures(&path, &wrong_bound);
    assert_eq!(found.len(), 2, "one per engine: {found:?}");
    assert!(found[0].contains("`v0 <= 99` is not entailed"), "{found:?}");

    let wrong_verdict = text.replace("; expect check0: proved", "; expect check0: unknown");
    let found = failures(&path, &wrong_verdict);
    assert_eq!(found.len(), 2, "one per engine: {found:?}");
    assert!(found[0].contains("check0 expected unknown"), "{found:?}");

    // Without the pass, the conjunct `n <= 500` is lost.
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "ir", "bool_phi.pf"]
        .iter()
        .collect();
    let text = std::fs::read_to_string(&path).unwrap();
    let func = ir::parse(&text).unwrap();
    let module = ir::Module {
        checks: vec![ir::Check {
            id: ir::CheckId(0),
            kind: ir::CheckKind::ErrorCall {
                function: "reach_error".into(),
            },
            loc: None,
            function: func.name.clone(),
        }],
        functions: vec![func],
        warnings: vec![],
        unanalyzable: vec![],
        callee_constants: vec![],
        held_at_own_precision: vec![],
        leaks: Default::default(),
        origins: Default::default(),
        called_only_directly: Default::default(),
    };
    let report = driver::analyze(&module, &config(Engine::Classic));
    assert!(!matches!(report.results[0].verdict, Verdict::Proved));
}
