//! Every invariant the engines compute is checked inductive by Z3 (initiation and
//! consecution on the exact formula of the lifted program), on every task of
//! `../shared/bench` and on the test programs. An invariant that is not inductive is a bug;
//! a proof resting on it would be unsound.

use polyfocus::analysis::certify::{certify, Certificate};
use polyfocus::analysis::FunctionContext;
use polyfocus::bench::manifest::{read_manifest, DataModel as BenchModel};
use polyfocus::driver::{analyze, AnalysisConfig, DomainKind, Engine};
use polyfocus::frontend::{load, DataModel, EntrySelection, FrontendConfig};
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
        purpose: polyfocus::driver::Purpose::Invariants,
    };
    vec![
        (
            "classic-interval",
            mk(Engine::Classic, DomainKind::Interval),
        ),
        ("focus-poly", mk(Engine::Focus, DomainKind::Poly)),
    ]
}

/// Certifies every function of one program; returns the failures.
fn certify_program(label: &str, fe: &FrontendConfig) -> Vec<String> {
    let Ok(module) = load(fe) else {
        return vec![];
    };
    let mut failures = Vec::new();
    for (name, config) in configs() {
        let report = analyze(&module, &config);
        for inv in &report.cut_invariants {
            let func = module
                .functions
                .iter()
                .find(|f| f.name == inv.function)
                .expect("analyzed function exists");
            if let Certificate::NotInductive(why) = certify(&FunctionContext::new(func), inv) {
                failures.push(format!("{label} [{name}]: {why}"));
            }
        }
    }
    failures
}

#[test]
fn invariants_of_test_programs_are_inductive() {
    let dir: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "programs"]
        .iter()
        .collect();
    let mut failures = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let fe = FrontendConfig {
            inputs: vec![path.clone()],
            cflags: vec![],
            data_model: DataModel::Lp64,
            entry: EntrySelection::Default,
            inline_limit: 2000,
        };
        failures.extend(certify_program(&path.display().to_string(), &fe));
    }
    assert!(
        failures.is_empty(),
        "not inductive:\n{}",
        failures.join("\n")
    );
}

#[test]
fn invariants_on_the_benchmark_set_are_inductive() {
    let bench = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/bench");
    if !bench.join("MANIFEST.tsv").is_file() {
        eprintln!("skipped: {} is absent", bench.display());
        return;
    }
    let tasks = read_manifest(&bench).unwrap();
    // Two workers (CI has two cores); each task is independent.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(task) = tasks.get(i) else { break };
                let fe = FrontendConfig {
                    inputs: vec![bench.join(&task.name)],
                    cflags: polyfocus::bench::manifest::split_words(&task.cflags).unwrap(),
                    data_model: match task.data_model {
                        BenchModel::Ilp32 => DataModel::Ilp32,
                        BenchModel::Lp64 => DataModel::Lp64,
                    },
                    entry: EntrySelection::Named(task.entry.clone()),
                    inline_limit: 2000,
                };
                let started = std::time::Instant::now();
                let found = certify_program(&task.name, &fe);
                eprintln!(
                    "{} certified in {:.1} s",
                    task.name,
                    started.elapsed().as_secs_f64()
                );
                failures.lock().unwrap().extend(found);
            });
        }
    });
    let mut failures = failures.into_inner().unwrap();
    failures.sort();
    assert!(
        failures.is_empty(),
        "{} not inductive:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
