//! `polyfocus check`, `polyfocus ir` and `polyfocus invariants`.

use super::args::{AnalysisArgs, DomainArg, EngineArg, InputArgs};
use super::{EXIT_PROVED, EXIT_UNKNOWN, EXIT_VIOLATED};
use crate::check::ProgramVerdict;
use crate::driver::{self, AnalysisConfig, DomainKind, Engine};
use crate::graph::ReducedGraph;
use crate::report::{self, RunInfo};
use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Report formats.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Human-readable lines.
    Text,
    /// One JSON object.
    Json,
}

/// Arguments of `polyfocus check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    analysis: AnalysisArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Write the report to this file instead of standard output.
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
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

fn analysis_config(a: &AnalysisArgs) -> AnalysisConfig {
    AnalysisConfig {
        engine: match a.engine {
            EngineArg::Focus => Engine::Focus,
            EngineArg::Classic => Engine::Classic,
        },
        domain: match a.domain {
            DomainArg::Poly => DomainKind::Poly,
            DomainArg::Interval => DomainKind::Interval,
        },
        timeout: Duration::from_secs_f64(a.timeout.max(0.001)),
    }
}

fn names(config: &AnalysisConfig) -> (&'static str, &'static str) {
    let engine = match config.engine {
        Engine::Focus => "focus",
        Engine::Classic => "classic",
    };
    let domain = match config.domain {
        DomainKind::Poly => "poly",
        DomainKind::Interval => "interval",
    };
    (engine, domain)
}

/// Runs `polyfocus check`.
pub fn run_check(args: CheckArgs) -> Result<i32> {
    let start = Instant::now();
    let fe = args.input.frontend_config()?;
    let module = crate::frontend::load(&fe)?;
    let config = analysis_config(&args.analysis);
    let analysis = driver::analyze(&module, &config);
    let (engine, domain) = names(&config);
    let info = RunInfo {
        engine,
        domain,
        elapsed: start.elapsed(),
    };
    let out = match args.format {
        Format::Text => report::text(&analysis, &module.warnings, &info),
        Format::Json => report::json(&analysis, &module.warnings, &info) + "\n",
    };
    match &args.output {
        Some(path) => {
            std::fs::write(path, out).with_context(|| format!("writing {}", path.display()))?
        }
        None => print!("{out}"),
    }
    Ok(match ProgramVerdict::of(&analysis.results) {
        ProgramVerdict::True => EXIT_PROVED,
        ProgramVerdict::False => EXIT_VIOLATED,
        ProgramVerdict::Unknown => EXIT_UNKNOWN,
    })
}

/// Runs `polyfocus ir`.
pub fn run_ir(args: IrArgs) -> Result<i32> {
    let fe = args.input.frontend_config()?;
    let module = crate::frontend::load(&fe)?;
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
        eprintln!("warning: {}: {}", w.function, w.message);
    }
    if let Some(path) = &args.dot {
        std::fs::write(path, dot).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(EXIT_PROVED)
}

/// Runs `polyfocus invariants`.
pub fn run_invariants(args: InvariantsArgs) -> Result<i32> {
    let fe = args.input.frontend_config()?;
    let module = crate::frontend::load(&fe)?;
    let config = analysis_config(&args.analysis);
    let analysis = driver::analyze(&module, &config);
    print!("{}", report::invariants_text(&analysis));
    Ok(EXIT_PROVED)
}
