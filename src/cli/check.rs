//! `polyfocus check`, `polyfocus ir` and `polyfocus invariants`.

use super::args::{AnalysisArgs, InputArgs, TuningArgs};
use super::cache::CacheArgs;
use super::project::{self, OutputArgs};
use super::tuning::{Scope, Tuning};
use super::{AFTER_HELP, EXIT_PROVED};
use crate::clock::RunStop;
use crate::driver::{self, AnalysisConfig, DomainKind, Engine, Purpose};
use crate::graph::ReducedGraph;
use crate::report::{self, ProgramReport, RunInfo};
use anyhow::{Context, Result};
use clap::Args;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Arguments of `polyfocus check`.
#[derive(Args, Debug)]
#[command(after_help = AFTER_HELP)]
pub struct CheckArgs {
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    analysis: AnalysisArgs,
    #[command(flatten)]
    report: OutputArgs,
    /// Write a standalone replay program of the first counterexample to this file.
    #[arg(long, value_name = "FILE.c")]
    harness: Option<PathBuf>,
    /// Write an SV-COMP violation witness (format 2.0) of the first counterexample.
    #[arg(long, value_name = "FILE.yml")]
    witness: Option<PathBuf>,
    /// Do not search counterexamples for the assertions the analysis leaves unknown.
    #[arg(long)]
    no_counterexamples: bool,
    #[command(flatten)]
    cache: CacheArgs,
    #[command(flatten)]
    tuning: TuningArgs,
}

/// Arguments of `polyfocus ir`.
#[derive(Args, Debug)]
pub struct IrArgs {
    #[command(flatten)]
    input: InputArgs,
    /// Write the reduced multigraph of each function as Graphviz to this file.
    #[arg(long)]
    dot: Option<PathBuf>,
    #[command(flatten)]
    tuning: TuningArgs,
}

/// Arguments of `polyfocus invariants`.
#[derive(Args, Debug)]
pub struct InvariantsArgs {
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    analysis: AnalysisArgs,
    #[command(flatten)]
    tuning: TuningArgs,
}

/// The analysis configuration of the budgets `a` and the `-Z` options `tuning`, for `jobs`
/// functions at once.
pub(super) fn analysis_config(a: &AnalysisArgs, tuning: &Tuning, jobs: usize) -> AnalysisConfig {
    let params = tuning.params;
    let memory = match a.memory_per_function {
        Some(mb) => (mb * 1048576.0) as usize,
        None => params.run.shared_heap / jobs.max(1),
    };
    AnalysisConfig {
        engine: tuning.engine,
        domain: tuning.domain_kind(),
        timeout: Duration::from_secs_f64(a.timeout),
        memory_per_function: memory,
        jobs,
        refine: tuning.refine,
        params,
        purpose: Purpose::Verdicts,
        // The run's budget, from now: compiling and loading the programs spend it too.
        ends: (a.run_budget > 0.0)
            .then(|| RunStop::after(Duration::from_secs_f64(a.run_budget), jobs)),
        plan: (a.run_budget > 0.0).then(|| Duration::from_secs_f64(a.run_budget)),
    }
}

pub(super) fn names(config: &AnalysisConfig) -> (&'static str, &'static str) {
    let engine = match config.engine {
        Engine::Focus => "focus",
        Engine::Classic => "classic",
    };
    let domain = match config.domain {
        DomainKind::Poly => "poly",
        DomainKind::Interval => "interval",
        DomainKind::PolyPred => "poly-pred",
        DomainKind::PolyPredProduct => "poly-pred-product",
        DomainKind::IntervalPred => "interval-pred",
        DomainKind::IntervalPredProduct => "interval-pred-product",
    };
    (engine, domain)
}

/// Checks that `words` are flags `polyfocus check` accepts (the input files may be
/// missing), so that a configuration of the benchmark or soundness harness with a bad flag
/// fails before any run.
pub(super) fn validate_flags(words: &[String]) -> Result<()> {
    #[derive(clap::Parser, Debug)]
    #[command(name = "polyfocus check")]
    struct Check {
        #[command(flatten)]
        args: CheckArgs,
    }
    let argv = std::iter::once("polyfocus check").chain(words.iter().map(String::as_str));
    match <Check as clap::Parser>::try_parse_from(argv) {
        Ok(check) => check.args.tuning.resolve(Scope::Analysis).map(|_| ()),
        Err(e) if e.kind() == clap::error::ErrorKind::MissingRequiredArgument => Ok(()),
        Err(e) => Err(anyhow::anyhow!(
            "`{}`: {}",
            words.join(" "),
            e.render().to_string().trim_end()
        )),
    }
}

/// Runs `polyfocus check`.
pub fn run_check(args: CheckArgs) -> Result<i32> {
    let tuning = args.tuning.resolve(Scope::Analysis)?;
    recording_polyhedra(&tuning, || check(&args, &tuning))
}

/// Runs `run`, recording a sample of its polyhedra operations when `-Z record-polyhedra`
/// names a file (format in `domain::poly::record`).
pub(super) fn recording_polyhedra(
    tuning: &Tuning,
    run: impl FnOnce() -> Result<i32>,
) -> Result<i32> {
    let Some(path) = &tuning.record_polyhedra else {
        return run();
    };
    let file =
        std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    crate::domain::poly::record::start(Box::new(std::io::BufWriter::new(file)));
    let res = run();
    crate::domain::poly::record::finish().with_context(|| format!("writing {}", path.display()))?;
    res
}

fn check(args: &CheckArgs, tuning: &Tuning) -> Result<i32> {
    let start = Instant::now();
    // An unwritable output should fail now, not after minutes of analysis.
    for path in [&args.report.output, &args.harness, &args.witness]
        .into_iter()
        .flatten()
    {
        project::ensure_writable(path)?;
    }
    let fe = args.input.frontend_config(tuning)?;
    let config = analysis_config(&args.analysis, tuning, args.report.jobs());
    let store = args.cache.open()?;
    let (engine, domain) = names(&config);
    let info = |start: Instant| RunInfo {
        engine,
        domain,
        elapsed: start.elapsed(),
    };
    if let Some(build) = &args.input.project {
        // A whole project from its compilation database.
        let bc_dir = tempfile::tempdir().context("creating a temporary directory")?;
        let (inputs, mut reports) =
            project::compdb_programs(build, &fe, bc_dir.path(), args.input.each_unit)?;
        let mut analyzed =
            project::analyze_programs(&inputs, &config, !args.no_counterexamples, store.as_ref());
        project::report_cache_use(&analyzed, store.as_ref());
        analyzed.append(&mut reports);
        return project::write_report(&analyzed, &args.report, &info(start));
    }
    let module = driver::load_with_contracts(&fe, &config)?;
    let analysis = project::analyze(
        &module,
        &config,
        &fe,
        !args.no_counterexamples,
        store.as_ref(),
    );
    write_counterexample_files(args, &fe, &module, &analysis)?;
    let program = ProgramReport::new(String::new(), analysis, module.warnings);
    project::report_cache_use(std::slice::from_ref(&program), store.as_ref());
    project::write_report(&[program], &args.report, &info(start))
}

/// Writes `--harness` and `--witness` for the first violated assertion (nothing when there
/// is none).
fn write_counterexample_files(
    args: &CheckArgs,
    fe: &crate::frontend::FrontendConfig,
    module: &crate::ir::Module,
    analysis: &driver::AnalysisReport,
) -> Result<()> {
    if args.harness.is_none() && args.witness.is_none() {
        return Ok(());
    }
    let violated = analysis.results.iter().find_map(|r| match &r.verdict {
        crate::check::Verdict::Violated(cex) => Some((r, cex)),
        _ => None,
    });
    let Some((r, cex)) = violated else {
        for path in [&args.harness, &args.witness].into_iter().flatten() {
            eprintln!(
                "polyfocus: no assertion is violated, so there is no counterexample to write to {}",
                path.display()
            );
        }
        return Ok(());
    };
    let Some(func) = module.functions.iter().find(|f| f.name == r.function) else {
        return Ok(());
    };
    if let Some(path) = &args.harness {
        let text = crate::cex::harness::harness_text(func, fe, cex, r.loc.as_ref())
            .map_err(anyhow::Error::msg)?;
        std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    let property = match r.kind.class() {
        crate::ir::CheckClass::Assert => Some(crate::cex::witness::WitnessProperty::UnreachCall {
            error_function: "reach_error",
        }),
        crate::ir::CheckClass::Overflow => Some(crate::cex::witness::WitnessProperty::NoOverflow),
        // SV-COMP has no property for these.
        crate::ir::CheckClass::Div
        | crate::ir::CheckClass::Shift
        | crate::ir::CheckClass::Bounds => None,
        // Memory-safety witnesses come with the `valid-memsafety` answers of `svcomp`.
        crate::ir::CheckClass::Memory => None,
    };
    if let (Some(path), None) = (&args.witness, property) {
        eprintln!(
            "polyfocus: SV-COMP has no property for a {} check; no witness written to {}",
            r.kind.class().name(),
            path.display()
        );
    }
    if let (Some(path), Some(property)) = (&args.witness, property) {
        let task = crate::cex::witness::WitnessTask {
            inputs: &fe.inputs,
            data_model: fe.data_model,
            entry: &func.name,
            property,
            params: func
                .params
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let info = func.value(*p);
                    info.source_name
                        .clone()
                        .unwrap_or_else(|| format!("arg{i}"))
                })
                .collect(),
        };
        let text = crate::cex::witness::witness_yaml(&task, cex, r.loc.as_ref());
        std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// Runs `polyfocus ir`.
pub fn run_ir(args: IrArgs) -> Result<i32> {
    let tuning = args.tuning.resolve(Scope::FrontEnd)?;
    let fe = args.input.frontend_config(&tuning)?;
    let module = driver::load(&fe)?;
    let mut dot = String::new();
    for func in &module.functions {
        print!("{func}");
        let graph = ReducedGraph::new(func);
        println!("cut points of {}:", func.name);
        print!("{}", graph.describe(func));
        dot.push_str(&graph.to_dot(func));
    }
    for check in &module.checks {
        let loc = check
            .loc
            .as_ref()
            .map_or_else(|| "?".to_string(), |l| l.to_string());
        println!(
            "{}: {:?} at {loc} in {}",
            check.id, check.kind, check.function
        );
    }
    for w in &module.warnings {
        eprintln!("warning: {}", report::warning_text(w));
    }
    if let Some(path) = &args.dot {
        std::fs::write(path, dot).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(EXIT_PROVED)
}

/// Runs `polyfocus invariants`.
pub fn run_invariants(args: InvariantsArgs) -> Result<i32> {
    let tuning = args.tuning.resolve(Scope::Analysis)?;
    recording_polyhedra(&tuning, || {
        let fe = args.input.frontend_config(&tuning)?;
        let module = driver::load(&fe)?;
        let config = AnalysisConfig {
            purpose: Purpose::Invariants,
            ..analysis_config(&args.analysis, &tuning, 1)
        };
        let analysis = driver::analyze(&module, &config);
        print!("{}", report::invariants_text(&analysis));
        Ok(EXIT_PROVED)
    })
}
