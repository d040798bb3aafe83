//! Every invariant the engines compute is checked inductive by Z3 (initiation and
//! consecution on the exact formula of the lifted program), on every task of
//! `../shared/bench` and on the test programs, and so are the congruences of the values next
//! to them (`analysis::congruence`) and the relational congruences at cut points
//! (`analysis::relational_congruence`). An invariant that is not inductive is a bug;
//! a proof resting on it would be unsound.

mod common;

use polyfocus::analysis::certify::{certify, Certificate};
use polyfocus::analysis::relevance::Relevance;
use polyfocus::analysis::{congruence, relational_congruence, template_bounds, FunctionContext};
use polyfocus::bench::manifest::{read_manifest, DataModel as BenchModel};
use polyfocus::driver::{analyze, AnalysisConfig, DomainKind, Engine};
use polyfocus::frontend::{load, DataModel, EntrySelection, FrontendConfig};
use polyfocus::smt::{Products, QueryResult, RegionFormula};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn configs() -> Vec<(&'static str, AnalysisConfig)> {
    let mk = |engine, domain| AnalysisConfig {
        engine,
        domain,
        timeout: Duration::from_secs(5),
        memory_per_function: 4 << 30,
        jobs: 1,
        refine: true,
        params: polyfocus::params::Params::DEFAULT,
        ends: None,
        plan: None,
        purpose: polyfocus::driver::Purpose::Invariants,
    };
    vec![
        (
            "classic-interval",
            mk(Engine::Classic, DomainKind::Interval),
        ),
        ("focus-poly", mk(Engine::Focus, DomainKind::Poly)),
        // Domain types act only in a run for verdicts (the engine then tracks the
        // relational packs of the open assertions and forgets the other values at cut
        // points): its invariants must be inductive too.
        (
            "focus-poly-domain-types",
            AnalysisConfig {
                purpose: polyfocus::driver::Purpose::Verdicts,
                ..mk(Engine::Focus, DomainKind::Poly)
            },
        ),
    ]
}

/// What [`certify_program`] found in one program.
#[derive(Default)]
struct Certified {
    /// The invariants, congruences or bounds that are not inductive.
    failures: Vec<String>,
    /// The relational congruences found (so that a test can check the certification is
    /// not vacuous).
    relations: usize,
    /// The template bounds found.
    bounds: usize,
}

/// Certifies every function of one program.
fn certify_program(label: &str, fe: &FrontendConfig) -> Certified {
    let Ok(module) = load(fe) else {
        return Certified::default();
    };
    let mut failures = Vec::new();
    let mut relations = 0usize;
    let mut n_bounds = 0usize;
    for (name, config) in configs() {
        let report = analyze(&module, &config);
        for inv in &report.cut_invariants {
            let func = module
                .functions
                .iter()
                .find(|f| f.name == inv.function)
                .expect("analyzed function exists");
            let ctx = FunctionContext::new(func, &polyfocus::params::Params::DEFAULT);
            if let Certificate::NotInductive(why) = certify(&ctx, inv) {
                failures.push(format!("{label} [{name}]: {why}"));
            }
            // The congruences the congruence stage adds to these invariants.
            let classes = congruence::analyze(func, ctx.readings());
            if let Certificate::NotInductive(why) =
                congruence::certify(&ctx, inv, &classes, Duration::from_secs(5))
            {
                failures.push(format!("{label} [{name}] congruences: {why}"));
            }
            // The relational congruences the same stage finds next to them.
            if name == "focus-poly" {
                let relevant = Relevance::toward_errors(func);
                // As the pipeline encodes them: exactly up to its budget of bit-level units.
                let stage_exact_operations = polyfocus::params::Params::DEFAULT
                    .stages
                    .stage_exact_operations;
                let limits = relational_congruence::Limits {
                    deadline: std::time::Instant::now() + Duration::from_secs(10),
                    query: Duration::from_secs(2),
                    exact_operations: stage_exact_operations,
                };
                if let Some(rel) = relational_congruence::analyze(
                    &ctx,
                    &inv.at_cut_point,
                    &classes,
                    &relevant,
                    limits,
                ) {
                    relations += rel.count();
                    let cert = relational_congruence::certify(
                        &ctx,
                        inv,
                        &classes,
                        &rel,
                        Duration::from_secs(5),
                    );
                    if let Certificate::NotInductive(why) = cert {
                        failures.push(format!("{label} [{name}] relational congruences: {why}"));
                    }
                    // The template bounds the same stage finds next to both.
                    let known = |p| {
                        let mut side = classes.facts_at(&ctx, p);
                        side.extend(rel.facts_at(p));
                        side
                    };
                    let limits = template_bounds::Limits {
                        deadline: std::time::Instant::now() + Duration::from_secs(3),
                        query: Duration::from_secs(2),
                        exact_operations: stage_exact_operations,
                    };
                    if let Some(bounds) =
                        template_bounds::analyze(&ctx, &inv.at_cut_point, &known, &relevant, limits)
                    {
                        n_bounds += bounds.count();
                        let cert = template_bounds::certify(
                            &ctx,
                            inv,
                            &known,
                            &bounds,
                            Duration::from_secs(5),
                        );
                        if let Certificate::NotInductive(why) = cert {
                            failures.push(format!("{label} [{name}] template bounds: {why}"));
                        }
                    }
                }
            }
        }
    }
    Certified {
        failures,
        relations,
        bounds: n_bounds,
    }
}

/// Certification does not share the formula's blind spots: with the formula made to read a
/// constant moved into an unsigned narrow phi signed (the cause of two wrong proofs, injected on
/// this thread only), the invariants of `narrow_unsigned_global.c` are refuted and
/// `RegionFormula::query_misread` finds paths that misread a value; with the formula as it
/// is, neither. (The lattices of the relational stage, which the original bug fooled, are
/// kept by a target only if it reads in range: `query_facts_kept` counts a misread as a
/// broken fact.)
#[test]
fn certification_refutes_a_misread_formula() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/narrow_unsigned_global.c");
    let fe = FrontendConfig {
        inputs: vec![path.clone()],
        cflags: vec![],
        data_model: DataModel::Lp64,
        entry: EntrySelection::Default,
        inline_limit: polyfocus::frontend::INLINE_LIMIT,
        inline_caller_limit: polyfocus::frontend::INLINE_CALLER_LIMIT,
        lift_limit: polyfocus::frontend::LIFT_LIMIT,
        checks: polyfocus::ir::CheckSelection::ASSERT,
        options: polyfocus::frontend::FrontendOptions::DEFAULT,
    };
    let module = load(&fe).expect("the program compiles");
    let config = configs().remove(1).1;
    let report = analyze(&module, &config);
    let inv = report
        .cut_invariants
        .iter()
        .find(|i| i.function == "main")
        .expect("main's invariants");
    let func = module.functions.iter().find(|f| f.name == "main").unwrap();
    let ctx = FunctionContext::new(func, &polyfocus::params::Params::DEFAULT);
    // Paths that leave a value out of its reading's range at a target, from every cut
    // point's invariant: none in the formula as it is, some in the misread one.
    let misread_paths = |ctx: &FunctionContext<'_>| {
        let mut found = 0usize;
        for p in ctx.graph().ids() {
            let Some(from) = &inv.at_cut_point[p.index()] else {
                continue;
            };
            let mut formula = RegionFormula::new(ctx, p, Products::Exact);
            if let QueryResult::Path(_) = formula.query_misread(from, Duration::from_secs(5)) {
                found += 1;
            }
        }
        found
    };
    let sound = certify(&ctx, inv);
    assert!(
        !matches!(sound, Certificate::NotInductive(_)),
        "the invariants are inductive: {sound:?}"
    );
    assert_eq!(
        misread_paths(&ctx),
        0,
        "the formula reads every value in range"
    );
    polyfocus::smt::inject_misread_moves(true);
    let misread = certify(&ctx, inv);
    let paths = misread_paths(&ctx);
    polyfocus::smt::inject_misread_moves(false);
    // Here the engine's invariant bounds `g` below, so the misread value also leaves it.
    assert!(
        matches!(misread, Certificate::NotInductive(_)),
        "a misread formula is refuted: {misread:?}"
    );
    assert!(paths > 0, "the misreading is found as such");
}

/// The template bounds of `tests/programs/template_bounds.c` (`0 <= 2n - i <= 1` and its
/// kin) are certified inductive, and there are some.
#[test]
fn template_bounds_are_inductive() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/template_bounds.c");
    let fe = FrontendConfig {
        inputs: vec![path.clone()],
        cflags: vec![],
        data_model: DataModel::Lp64,
        entry: EntrySelection::Default,
        inline_limit: polyfocus::frontend::INLINE_LIMIT,
        inline_caller_limit: polyfocus::frontend::INLINE_CALLER_LIMIT,
        lift_limit: polyfocus::frontend::LIFT_LIMIT,
        checks: polyfocus::ir::CheckSelection::ASSERT,
        options: polyfocus::frontend::FrontendOptions::DEFAULT,
    };
    let certified = certify_program(&path.display().to_string(), &fe);
    let failures = certified.failures;
    assert!(
        failures.is_empty(),
        "not inductive:\n{}",
        failures.join("\n")
    );
    let found = certified.bounds;
    assert!(found >= 6, "{}: {found} template bounds", path.display());
}

/// The relational congruences of `tests/programs/congruences` (parity, equalities modulo
/// 2^32, strides of 4) are certified inductive, and there are some.
#[test]
fn relational_congruences_of_the_congruence_programs_are_inductive() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/congruences");
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/programs/congruences")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    let failures = in_two_workers(&entries, |path| {
        let text = std::fs::read_to_string(path).expect("readable");
        let names: Vec<String> = text
            .lines()
            .filter_map(|l| l.strip_prefix("void ")?.strip_suffix("(void) {"))
            .map(str::to_string)
            .collect();
        let fe = FrontendConfig {
            inputs: vec![path.clone()],
            cflags: vec![],
            data_model: DataModel::Lp64,
            entry: EntrySelection::List(names),
            inline_limit: polyfocus::frontend::INLINE_LIMIT,
            inline_caller_limit: polyfocus::frontend::INLINE_CALLER_LIMIT,
            lift_limit: polyfocus::frontend::LIFT_LIMIT,
            checks: polyfocus::ir::CheckSelection::ASSERT,
            options: polyfocus::frontend::FrontendOptions::DEFAULT,
        };
        let certified = certify_program(&path.display().to_string(), &fe);
        let mut failures = certified.failures;
        if certified.relations < 4 {
            failures.push(format!(
                "{}: only {} relational congruences",
                path.display(),
                certified.relations
            ));
        }
        failures
    });
    assert!(
        failures.is_empty(),
        "not inductive, or too few relations:\n{}",
        failures.join("\n")
    );
}

#[test]
fn invariants_of_test_programs_are_inductive() {
    let dir: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "programs"]
        .iter()
        .collect();
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    // Each program is independent: two workers, like the benchmark test below.
    let failures = in_two_workers(&entries, |path| {
        let fe = FrontendConfig {
            inputs: vec![path.clone()],
            cflags: vec![],
            data_model: DataModel::Lp64,
            entry: EntrySelection::Default,
            inline_limit: polyfocus::frontend::INLINE_LIMIT,
            inline_caller_limit: polyfocus::frontend::INLINE_CALLER_LIMIT,
            lift_limit: polyfocus::frontend::LIFT_LIMIT,
            checks: polyfocus::ir::CheckSelection::ASSERT,
            options: polyfocus::frontend::FrontendOptions::DEFAULT,
        };
        let started = std::time::Instant::now();
        let found = certify_program(&path.display().to_string(), &fe).failures;
        eprintln!(
            "{} certified in {:.1} s",
            path.display(),
            started.elapsed().as_secs_f64()
        );
        found
    });
    assert!(
        failures.is_empty(),
        "not inductive:\n{}",
        failures.join("\n")
    );
}

/// A fifth of the benchmark set (every fifth task of the manifest, the same on every
/// run), so that CI stays short; the whole set is the ignored test below.
#[test]
fn invariants_on_a_fifth_of_the_benchmark_set_are_inductive() {
    benchmark_invariants_are_inductive(
        "invariants_on_a_fifth_of_the_benchmark_set_are_inductive",
        5,
    );
}

/// Every task of the benchmark set: `cargo test --test inductive -- --ignored` (about two
/// minutes on two cores).
#[test]
#[ignore]
fn invariants_on_the_whole_benchmark_set_are_inductive() {
    benchmark_invariants_are_inductive("invariants_on_the_whole_benchmark_set_are_inductive", 1);
}

/// The invariants of every `step`-th task of the benchmark set's manifest are inductive.
fn benchmark_invariants_are_inductive(test: &str, step: usize) {
    let Some(bench) = common::shared_bench_or_skip(common::SharedSet::Bench, test) else {
        return;
    };
    let tasks: Vec<_> = read_manifest(&bench)
        .unwrap()
        .into_iter()
        .step_by(step)
        .collect();
    let failures = in_two_workers(&tasks, |task| {
        let fe = FrontendConfig {
            inputs: vec![bench.join(&task.name)],
            cflags: polyfocus::bench::manifest::split_words(&task.cflags).unwrap(),
            data_model: match task.data_model {
                BenchModel::Ilp32 => DataModel::Ilp32,
                BenchModel::Lp64 => DataModel::Lp64,
            },
            entry: EntrySelection::Named(task.entry.clone()),
            inline_limit: polyfocus::frontend::INLINE_LIMIT,
            inline_caller_limit: polyfocus::frontend::INLINE_CALLER_LIMIT,
            lift_limit: polyfocus::frontend::LIFT_LIMIT,
            checks: polyfocus::ir::CheckSelection::ASSERT,
            options: polyfocus::frontend::FrontendOptions::DEFAULT,
        };
        let started = std::time::Instant::now();
        let found = certify_program(&task.name, &fe).failures;
        eprintln!(
            "{} certified in {:.1} s",
            task.name,
            started.elapsed().as_secs_f64()
        );
        found
    });
    assert!(
        failures.is_empty(),
        "{} not inductive:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The failures `check` finds in each item, over two workers (CI has two cores), sorted.
fn in_two_workers<T: Sync>(items: &[T], check: impl Fn(&T) -> Vec<String> + Sync) -> Vec<String> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                while let Some(item) =
                    items.get(next.fetch_add(1, std::sync::atomic::Ordering::SeqCst))
                {
                    let found = check(item);
                    failures.lock().unwrap().extend(found);
                }
            });
        }
    });
    let mut failures = failures.into_inner().unwrap();
    failures.sort();
    failures
}

/// The polynomial equalities at loop heads (`analysis::polyeq`) are inductive.
/// Z3 must never find a path leaving them; on the test programs, where its non-linear
/// arithmetic decides the queries, it must certify them outright.
#[test]
fn polynomial_equalities_are_inductive() {
    use polyfocus::analysis::polyeq::{certify as certify_eqs, discover, Consecution};
    use polyfocus::analysis::Deadline;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bench2 = common::shared_bench_or_skip(
        common::SharedSet::Bench2,
        "polynomial_equalities_are_inductive",
    );
    let mut programs: Vec<(PathBuf, bool)> = vec![
        (root.join("tests/programs/polynomial.c"), true),
        (root.join("tests/programs/polynomial_wrap.c"), true),
        (root.join("tests/programs/polynomial_ideal.c"), false),
        (root.join("tests/programs/polynomial_guards.c"), false),
        // A loop head without template variables once kept `1 = 0`, and the next head got
        // `n = 0` for a counter that goes to 23 (Z3 refutes that at once).
        (root.join("tests/programs/polynomial_dead_head.c"), true),
        (root.join("tests/programs/polynomial_through_head.c"), false),
    ];
    for task in [
        "ps2.c",
        "ps4-ll.c",
        "cohencu-ll.c",
        "fermat1.c",
        "egcd.c",
        "sqrt1-ll.c",
        "geo1.c",
        "geo2.c",
        "ps5.c",
        "prod4br.c",
        "prodbin-ll.c",
        "mannadiv.c",
    ] {
        if let Some(bench2) = &bench2 {
            let nla = bench2.join("sv-benchmarks/c/nla-digbench");
            assert!(
                nla.join(task).is_file(),
                "{} is absent",
                nla.join(task).display()
            );
            programs.push((nla.join(task), false));
        }
    }
    // Each program is independent: two workers.
    let n_equalities = std::sync::atomic::AtomicUsize::new(0);
    let failures = in_two_workers(&programs, |(path, must_certify)| {
        let mut failures = Vec::new();
        let fe = FrontendConfig {
            inputs: vec![path.clone()],
            cflags: vec![],
            data_model: DataModel::Ilp32,
            entry: EntrySelection::Default,
            inline_limit: polyfocus::frontend::INLINE_LIMIT,
            inline_caller_limit: polyfocus::frontend::INLINE_CALLER_LIMIT,
            lift_limit: polyfocus::frontend::LIFT_LIMIT,
            checks: polyfocus::ir::CheckSelection::ASSERT,
            options: polyfocus::frontend::FrontendOptions::DEFAULT,
        };
        let module = load(&fe).expect("program loads");
        for func in &module.functions {
            let ctx = FunctionContext::new(func, &polyfocus::params::Params::DEFAULT);
            let top = vec![Some(vec![vec![]]); ctx.graph().cut_points.len()];
            for degree in 2..=polyfocus::params::Params::DEFAULT.polyeq.max_degree {
                // A program that need not certify is checked only when its discovery ends,
                // and `polynomial_through_head.c` runs to the limit at two degrees: half.
                let limit = if *must_certify { 20 } else { 10 };
                let deadline = Deadline::after(Duration::from_secs(limit));
                let Some(eqs) = discover(&ctx, degree, &top, &deadline) else {
                    continue;
                };
                n_equalities.fetch_add(
                    eqs.at_cut_point.iter().map(Vec::len).sum::<usize>(),
                    std::sync::atomic::Ordering::SeqCst,
                );
                let certifying = Deadline::after(Duration::from_secs(60));
                match certify_eqs(&ctx, &top, &eqs, &certifying) {
                    Consecution::Certified => {}
                    Consecution::Undecided if !*must_certify => {}
                    other => {
                        failures.push(format!("{} degree {degree}: {other:?}", path.display()))
                    }
                }
            }
        }
        failures
    });
    assert!(
        n_equalities.into_inner() > 0,
        "no polynomial equality found at all"
    );
    assert!(
        failures.is_empty(),
        "not inductive:\n{}",
        failures.join("\n")
    );
}

/// On the bench tasks that disequality splitting and loop-entry predicates prove
/// (code2inv 36, 46, 51 and 110, 112, 118, 122), the run for verdicts proves the assertion
/// and Z3 certifies its invariants inductive (no solver `unknown` accepted).
#[test]
fn precision_techniques_give_certified_invariants_on_their_bench_tasks() {
    let Some(bench) = common_bench() else { return };
    for task in ["36", "46", "51", "110", "112", "118", "122"] {
        let fe = FrontendConfig {
            inputs: vec![bench.join(format!("code2inv/c/{task}.c"))],
            cflags: vec![
                "-include".into(),
                bench.join("code2inv/prelude.h").display().to_string(),
            ],
            data_model: DataModel::Lp64,
            entry: EntrySelection::Named("main".into()),
            inline_limit: polyfocus::frontend::INLINE_LIMIT,
            inline_caller_limit: polyfocus::frontend::INLINE_CALLER_LIMIT,
            lift_limit: polyfocus::frontend::LIFT_LIMIT,
            checks: polyfocus::ir::CheckSelection::ASSERT,
            options: polyfocus::frontend::FrontendOptions::DEFAULT,
        };
        let module = load(&fe).expect("task loads");
        let config = AnalysisConfig {
            engine: Engine::Focus,
            domain: DomainKind::Poly,
            timeout: Duration::from_secs(30),
            memory_per_function: 4 << 30,
            jobs: 1,
            refine: true,
            params: polyfocus::params::Params::DEFAULT,
            ends: None,
            plan: None,
            purpose: polyfocus::driver::Purpose::Verdicts,
        };
        let report = analyze(&module, &config);
        let proved = report
            .results
            .iter()
            .all(|r| matches!(r.verdict, polyfocus::check::Verdict::Proved));
        assert!(
            proved,
            "code2inv/{task} is not proved: {:?}",
            report.results
        );
        for inv in &report.cut_invariants {
            let func = module
                .functions
                .iter()
                .find(|f| f.name == inv.function)
                .expect("analyzed function exists");
            let ctx = FunctionContext::new(func, &polyfocus::params::Params::DEFAULT);
            let cert = certify(&ctx, inv);
            assert!(
                matches!(cert, Certificate::Inductive),
                "code2inv/{task}: {cert:?}"
            );
        }
    }
}

/// `../shared/bench`, when it is beside the project (required under CI).
fn common_bench() -> Option<PathBuf> {
    common::shared_bench_or_skip(common::SharedSet::Bench, "inductive")
}
/// The invariants extrapolation with a care set produces are inductive. On `tests/programs/care_set.c` the care-set stage proves both assertions, and
/// Z3 must certify the invariants it left outright (an undecided query fails too).
/// The whole benchmark set and the other test programs run with care sets on (the
/// default) in the configurations above, so every care-set proof there is certified too.
#[test]
fn care_set_invariants_are_inductive() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/care_set.c");
    let fe = FrontendConfig {
        inputs: vec![path],
        cflags: vec![],
        data_model: DataModel::Lp64,
        entry: EntrySelection::Default,
        inline_limit: polyfocus::frontend::INLINE_LIMIT,
        inline_caller_limit: polyfocus::frontend::INLINE_CALLER_LIMIT,
        lift_limit: polyfocus::frontend::LIFT_LIMIT,
        checks: polyfocus::ir::CheckSelection::ASSERT,
        options: polyfocus::frontend::FrontendOptions::DEFAULT,
    };
    let module = load(&fe).expect("program loads");
    let config = AnalysisConfig {
        engine: Engine::Focus,
        domain: DomainKind::Poly,
        timeout: Duration::from_secs(30),
        memory_per_function: 4 << 30,
        jobs: 1,
        refine: true,
        params: polyfocus::params::Params::DEFAULT,
        ends: None,
        plan: None,
        purpose: polyfocus::driver::Purpose::Verdicts,
    };
    assert!(
        config.params.care_set.enabled,
        "care sets are on by default"
    );
    let report = analyze(&module, &config);
    let care_stage = report
        .functions
        .iter()
        .flat_map(|f| &f.stages)
        .find(|s| s.stage.name() == "care sets")
        .expect("the care-set stage ran");
    assert!(
        care_stage
            .detail
            .as_deref()
            .unwrap_or("")
            .starts_with("2 proved"),
        "the care-set stage proved both assertions: {care_stage:?}"
    );
    assert!(!report.cut_invariants.is_empty());
    for inv in &report.cut_invariants {
        let func = module
            .functions
            .iter()
            .find(|f| f.name == inv.function)
            .expect("analyzed function exists");
        let ctx = FunctionContext::new(func, &polyfocus::params::Params::DEFAULT);
        match certify(&ctx, inv) {
            Certificate::Inductive => {}
            other => panic!("care-set invariants of {}: {other:?}", inv.function),
        }
    }
}

/// Phase predicates (of branches and of selects) and part-wise paths (`analysis/phases.rs`,
/// `analysis/transformer.rs`). On the test programs and on the bench tasks they prove
/// (gj2007, mono-crafted_6, ikos/prover 13), the run for verdicts proves what holds and Z3
/// certifies every invariant it used inductive outright (an undecided query fails too).
#[test]
fn phase_invariants_are_inductive() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs");
    let mut programs: Vec<(PathBuf, DataModel, usize)> = vec![
        (dir.join("phases.c"), DataModel::Lp64, 2),
        (dir.join("phases_partwise.c"), DataModel::Lp64, 1),
        (dir.join("phases_selects.c"), DataModel::Lp64, 2),
        (dir.join("phases_selects_pairs.c"), DataModel::Lp64, 1),
        (dir.join("phases_counted.c"), DataModel::Lp64, 1),
    ];
    if let Some(bench) = common_bench() {
        let sv = bench.join("sv-benchmarks/c");
        programs.push((sv.join("loop-lit/gj2007.i"), DataModel::Ilp32, 1));
        programs.push((
            sv.join("loops-crafted-1/mono-crafted_6.c"),
            DataModel::Ilp32,
            1,
        ));
        programs.push((bench.join("ikos/prover/13.c"), DataModel::Lp64, 1));
    }
    for (path, data_model, holding) in programs {
        let fe = FrontendConfig {
            inputs: vec![path.clone()],
            cflags: vec![],
            data_model,
            entry: EntrySelection::Named("main".into()),
            inline_limit: polyfocus::frontend::INLINE_LIMIT,
            inline_caller_limit: polyfocus::frontend::INLINE_CALLER_LIMIT,
            lift_limit: polyfocus::frontend::LIFT_LIMIT,
            checks: polyfocus::ir::CheckSelection::ASSERT,
            options: polyfocus::frontend::FrontendOptions::DEFAULT,
        };
        let module = load(&fe).expect("program loads");
        let config = AnalysisConfig {
            engine: Engine::Focus,
            domain: DomainKind::Poly,
            timeout: Duration::from_secs(30),
            memory_per_function: 4 << 30,
            jobs: 1,
            refine: true,
            params: polyfocus::params::Params::DEFAULT,
            ends: None,
            plan: None,
            purpose: polyfocus::driver::Purpose::Verdicts,
        };
        assert!(config.params.precision.phase_splitting && config.params.precision.partwise_paths);
        let report = analyze(&module, &config);
        let proved = report
            .results
            .iter()
            .filter(|r| matches!(r.verdict, polyfocus::check::Verdict::Proved))
            .count();
        assert_eq!(proved, holding, "{}: {:?}", path.display(), report.results);
        assert!(!report.cut_invariants.is_empty());
        for inv in &report.cut_invariants {
            let func = module
                .functions
                .iter()
                .find(|f| f.name == inv.function)
                .expect("analyzed function exists");
            let ctx = FunctionContext::new(func, &polyfocus::params::Params::DEFAULT);
            match certify(&ctx, inv) {
                Certificate::Inductive => {}
                other => panic!("{}: {}: {other:?}", path.display(), inv.function),
            }
        }
    }
}
