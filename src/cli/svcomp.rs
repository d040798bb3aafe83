//! `polyfocus svcomp`: behaves like an SV-COMP participant for `unreach-call`, `no-overflow`
//! (run as `check --checks overflow`) and `valid-memsafety` (run as `check --checks memory`,
//! answered by [`crate::bench::memsafety`]: `FALSE(valid-deref)`, `FALSE(valid-free)` or
//! `FALSE(valid-memtrack)` from a replayed violation, `TRUE` only when every memory check,
//! leaks included, is proved and the leak checks cover the whole program). A property file
//! that also lists `valid-memcleanup` gets the same answers: a proved leak check says that
//! its object is freed at every end of the program, and with the whole program covered every
//! object has one, so `TRUE` means that all memory is freed before the program ends.
//!
//! The task is analyzed by a child process (`ANALYZER check ... --format json`, by default
//! this executable), so that a crash of the analysis still ends in a verdict line. The last
//! line of stdout is `TRUE`, `FALSE` (`FALSE(sub)` for memory safety) or `UNKNOWN`; for
//! `UNKNOWN` the line before it says why (`reason: ...`). The exit status is 0 whenever a
//! verdict was printed.

use super::args::{DataModelArg, TuningArgs};
use super::tuning::Scope;
use crate::bench::classify::{interpret, Verdict};
use crate::bench::manifest::DataModel;
use crate::bench::memsafety::{answer as memsafety_answer, MemSafetyAnswer};
use crate::bench::runner::{run_limited, Limits, Termination};
use crate::bench::svcomp::{parse_property, parse_task_definition, Property};
use anyhow::{bail, Context, Result};
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of `polyfocus svcomp`.
#[derive(Args, Debug)]
pub struct SvcompArgs {
    /// The property file (unreach-call, no-overflow or valid-memsafety).
    #[arg(long, value_name = "FILE.prp")]
    pub property: PathBuf,
    /// Target data model (default: the task file's, else LP64).
    #[arg(long, value_enum)]
    pub data_model: Option<DataModelArg>,
    /// The analyzer binary, run as `ANALYZER check FILE ... --format json`
    /// (default: this executable).
    #[arg(long, value_name = "PATH")]
    pub analyzer: Option<PathBuf>,
    /// Time budget in seconds, passed to the analyzer (which is killed one second later).
    #[arg(long, value_parser = super::args::parse_seconds)]
    pub timeout: Option<f64>,
    /// Address-space limit in MiB (default: none).
    #[arg(long)]
    pub memory: Option<u64>,
    /// Internal options, passed to the analyzer.
    #[command(flatten)]
    pub tuning: TuningArgs,
    /// The program (.c, .i) or its SV-COMP task-definition file (.yml).
    pub task: PathBuf,
}

/// Runs one task and prints the verdict last.
pub fn run(args: SvcompArgs) -> Result<i32> {
    // Checked here, so that a bad option is an error of this command line.
    args.tuning.resolve(Scope::Analysis)?;
    let property_text = std::fs::read_to_string(&args.property)
        .with_context(|| format!("reading {}", args.property.display()))?;
    // Whether the property is memory safety; `valid-memcleanup` asks nothing more (see the
    // module docs).
    let mut memsafety = false;
    let (entry, checks) = match parse_property(&property_text) {
        Property::UnreachCall { entry, .. } => (entry, "assert"),
        Property::NoOverflow { entry } => (entry, "overflow"),
        Property::MemSafety { entry, cleanup: _ } => {
            memsafety = true;
            (entry, "memory")
        }
        Property::Unsupported(what) => {
            println!("reason: unsupported property: {what}");
            println!("UNKNOWN");
            return Ok(0);
        }
    };
    let is_yml = args
        .task
        .extension()
        .is_some_and(|x| x == "yml" || x == "yaml");
    let (files, task_data_model) = if is_yml {
        let text = std::fs::read_to_string(&args.task)
            .with_context(|| format!("reading {}", args.task.display()))?;
        let folder = args.task.parent().unwrap_or(std::path::Path::new("."));
        let def = parse_task_definition(&text, folder);
        if def.input_files.is_empty() {
            bail!("{} names no input file", args.task.display());
        }
        (def.input_files, def.data_model)
    } else {
        (vec![args.task.clone()], None)
    };
    for file in &files {
        if !file.is_file() {
            bail!("no such file: {}", file.display());
        }
    }
    let data_model = match args.data_model {
        Some(DataModelArg::Ilp32) => DataModel::Ilp32,
        Some(DataModelArg::Lp64) => DataModel::Lp64,
        None => task_data_model.unwrap_or(DataModel::Lp64),
    };
    let analyzer = match args.analyzer {
        Some(path) => path,
        None => std::env::current_exe().context("locating the polyfocus executable")?,
    };
    let mut check_args = vec!["check".to_string()];
    check_args.extend(files.iter().map(|f| f.to_string_lossy().into_owned()));
    check_args.extend([
        "--entry".to_string(),
        entry,
        "--data-model".to_string(),
        data_model.as_str().to_string(),
        "--format".to_string(),
        "json".to_string(),
        "--checks".to_string(),
        checks.to_string(),
    ]);
    if data_model == DataModel::Ilp32 {
        // SV-COMP's floats are IEEE 754 arithmetic rounded to each type (FLT_EVAL_METHOD
        // 0), not the x87's extended precision of a plain i386 build.
        check_args.push(format!(
            "--cflags={}",
            crate::frontend::SSE_FLOAT_FLAGS.join(" ")
        ));
    }
    check_args.extend(args.tuning.as_args());
    // `parse_seconds` admits only positive finite budgets of at most a year.
    let time = match args.timeout {
        Some(t) => {
            check_args.extend(["--timeout".to_string(), t.to_string()]);
            Duration::from_secs_f64(t) + crate::bench::KILL_GRACE
        }
        None => Duration::from_secs(365 * 24 * 3600),
    };
    let memory_bytes = args.memory.filter(|m| *m > 0).map(|m| m << 20);
    let limits = Limits { time, memory_bytes };
    let outcome = run_limited(&analyzer, &check_args, &limits)
        .with_context(|| format!("running {}", analyzer.display()))?;
    eprint!("{}", outcome.stderr);
    let interpretation = interpret(&outcome, memory_bytes);
    if memsafety {
        let answer = match (&outcome.termination, memsafety_answer(&outcome.stdout)) {
            (Termination::Exited(0..=2), Some(answer)) => answer,
            // No report: the run's failure says why.
            _ => MemSafetyAnswer::Unknown(
                interpretation
                    .detail
                    .or(interpretation.reason.map(|r| r.as_str().to_string()))
                    .unwrap_or_else(|| "unknown".into()),
            ),
        };
        if let MemSafetyAnswer::Unknown(reason) = &answer {
            println!("reason: {reason}");
        }
        println!("{}", answer.verdict_text());
        return Ok(0);
    }
    match interpretation.verdict {
        Verdict::True => println!("TRUE"),
        Verdict::False => println!("FALSE"),
        Verdict::Unknown => {
            let reason = interpretation.reason.map_or("unknown", |r| r.as_str());
            match interpretation.detail {
                Some(detail) if detail.starts_with(reason) => println!("reason: {detail}"),
                Some(detail) => println!("reason: {reason} ({detail})"),
                None => println!("reason: {reason}"),
            }
            println!("UNKNOWN");
        }
    }
    Ok(0)
}
