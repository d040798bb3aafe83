//! `polyfocus check`, `polyfocus ir` and `polyfocus invariants`.

use super::args::{AnalysisArgs, EngineArg, InputArgs};
use super::project::{self, OutputArgs};
use super::EXIT_PROVED;
use crate::driver::{self, AnalysisConfig, DomainKind, Engine, Purpose};
use crate::graph::ReducedGraph;
use crate::report::{self, ProgramReport, RunInfo};
use anyhow::{Context, Result};
use clap::Args;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Arguments of `polyfocus check`.
#[derive(Args, Debug)]
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
    /// Record a sample of the polyhedra operations of the analysis to this file, for the
    /// polyhedra benchmark (format in `domain::poly::record`).
    #[arg(long, value_name = "FILE")]
    record_polyhedra: Option<PathBuf>,
}

/// Arguments of `polyfocus ir`.
#[derive(Args, Debug)]
pub struct IrArgs {
    #[command(flatten)]
    input: InputArgs,
    /// Write the reduced multigraph of each function as Graphviz to this file.
    #[arg(long)]
    dot: Option<PathBuf>,
}

/// Arguments of `polyfocus invariants`.
#[derive(Args, Debug)]
pub struct InvariantsArgs {
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    analysis: AnalysisArgs,
}

/// Heap, in MB, that the functions analyzed at once share by default: a run on 2 workers
/// stays under 2 GB with room for what Z3 and LLVM allocate outside the count.
const DEFAULT_MEMORY_MB: f64 = 1500.0;

/// The analysis configuration of the flags, for `jobs` functions at once.
pub(super) fn analysis_config(a: &AnalysisArgs, jobs: usize) -> AnalysisConfig {
    let memory_mb = a
        .memory_per_function
        .unwrap_or(DEFAULT_MEMORY_MB / jobs.max(1) as f64);
    AnalysisConfig {
        engine: match a.engine {
            EngineArg::Focus => Engine::Focus,
            EngineArg::Classic => Engine::Classic,
        },
        domain: a.domain_kind(),
        timeout: Duration::from_secs_f64(a.timeout),
        memory_per_function: (memory_mb * 1048576.0) as usize,
        jobs,
        refine: a.refine == super::args::OnOff::On,
        params: crate::params::Params {
            domain_types: crate::params::DomainTypeParams {
                enabled: a.domain_types == super::args::OnOff::On,
            },
            precision: crate::params::PrecisionParams {
                disequality_splitting: a.disequality_splitting == super::args::OnOff::On,
                bitwise_bounds: a.bitwise_bounds == super::args::OnOff::On,
                loop_entry_predicates: a.loop_entry_predicates == super::args::OnOff::On,
                relational_congruences: a.relational_congruences == super::args::OnOff::On,
                phase_splitting: a.phase_splitting == super::args::OnOff::On,
                partwise_paths: a.partwise_paths == super::args::OnOff::On,
            },
            stages: crate::params::StageParams {
                interval_pass: a.interval_pass == super::args::OnOff::On,
                interval_work: a.interval_work,
                ..crate::params::Params::DEFAULT.stages
            },
            care_set: crate::params::CareSetParams {
                enabled: a.care_set == super::args::OnOff::On,
                ..crate::params::Params::DEFAULT.care_set
            },
            focus: crate::params::FocusParams {
                solver_work: a.focus_work,
                ..crate::params::Params::DEFAULT.focus
            },
            ..crate::params::Params::DEFAULT
        },
        purpose: Purpose::Verdicts,
        // The run's budget, from now: compiling and loading the programs spend it too.
        ends: (a.run_budget > 0.0).then(|| Instant::now() + Duration::from_secs_f64(a.run_budget)),
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

/// Runs `polyfocus check`.
pub fn run_check(args: CheckArgs) -> Result<i32> {
    let Some(path) = args.record_polyhedra.clone() else {
        return check(args);
    };
    let file =
        std::fs::File::create(&path).with_context(|| format!("creating {}", path.display()))?;
    crate::domain::poly::record::start(Box::new(std::io::BufWriter::new(file)));
    let res = check(args);
    crate::domain::poly::record::finish().with_context(|| format!("writing {}", path.display()))?;
    res
}

fn check(args: CheckArgs) -> Result<i32> {
    let start = Instant::now();
    // An unwritable output should fail now, not after minutes of analysis.
    for path in [&args.report.output, &args.harness, &args.witness]
        .into_iter()
        .flatten()
    {
        project::ensure_writable(path)?;
    }
    let fe = args.input.frontend_config()?;
    let config = analysis_config(&args.analysis, args.report.jobs());
    let (engine, domain) = names(&config);
    let info = |start: Instant| RunInfo {
        engine,
        domain,
        elapsed: start.elapsed(),
    };
    if let Some(build) = &args.input.project {
        // A whole project from its compilation database (issue 8).
        let bc_dir = tempfile::tempdir().context("creating a temporary directory")?;
        let (inputs, mut reports) =
            project::compdb_programs(build, &fe, bc_dir.path(), args.input.each_unit)?;
        let mut analyzed = project::analyze_programs(&inputs, &config, !args.no_counterexamples);
        analyzed.append(&mut reports);
        return project::write_report(&analyzed, &args.report, &info(start));
    }
    let module = driver::load_with_contracts(&fe, &config)?;
    let analysis = if args.no_counterexamples {
        driver::analyze(&module, &config)
    } else {
        let cex = crate::cex::CexConfig::new(fe.clone());
        driver::analyze_with_counterexamples(&module, &config, &cex)
    };
    write_counterexample_files(&args, &fe, &module, &analysis)?;
    let program = ProgramReport::new(String::new(), analysis, module.warnings);
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
    let fe = args.input.frontend_config()?;
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
    let fe = args.input.frontend_config()?;
    let module = driver::load(&fe)?;
    let config = AnalysisConfig {
        purpose: Purpose::Invariants,
        ..analysis_config(&args.analysis, 1)
    };
    let analysis = driver::analyze(&module, &config);
    print!("{}", report::invariants_text(&analysis));
    Ok(EXIT_PROVED)
}
