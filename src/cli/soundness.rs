//! `polyfocus soundness`: the differential soundness harness ([`crate::soundness`]).

use crate::soundness::report::Verdict;
use crate::soundness::run::{run_many, AnalyzerSetup, ProgramResult, Status, Summary};
use crate::soundness::Generator;
use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `polyfocus soundness`.
#[derive(Args, Debug)]
pub struct SoundnessArgs {
    /// Which generator writes the programs; repeatable.
    #[arg(long = "generator", value_enum, default_values_t = [GeneratorArg::Own])]
    pub generators: Vec<GeneratorArg>,
    /// Programs per generator.
    #[arg(long, default_value_t = 100)]
    pub count: u64,
    /// Seed of the first program; program k has seed SEED + k.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Parallel programs, at least 1 (default: the number of cores).
    #[arg(long, short = 'j', value_parser = super::args::parse_jobs)]
    pub jobs: Option<usize>,
    /// The analyzer's `--timeout` per program, in seconds.
    #[arg(long, default_value_t = 2.0)]
    pub timeout: f64,
    /// Copy every program with a wrong verdict (or on which the analyzer failed) here:
    /// GEN-SEED.c (the analyzed program), .oracle.c, .json (the report).
    #[arg(long, value_name = "DIR")]
    pub keep_failures: Option<PathBuf>,
    /// With --keep-failures: keep every judged program, not only the failures.
    #[arg(long, requires = "keep_failures")]
    pub keep_all: bool,
    /// Extra flags of `polyfocus check`, as one string.
    #[arg(long, allow_hyphen_values = true, default_value = "")]
    pub check_flags: String,
    /// Write the counts per generator and every wrong verdict as JSON to this file.
    #[arg(long, value_name = "OUT.json")]
    pub json: Option<PathBuf>,
    /// The analyzer binary (default: this executable).
    #[arg(long, value_name = "PATH")]
    pub analyzer: Option<PathBuf>,
}

/// A generator as spelled on the command line.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum GeneratorArg {
    /// Our own generator.
    Own,
    /// csmith.
    Csmith,
    /// Our generator of programs with arrays, structs, pointers and heap buffers.
    Memory,
    /// The memory generator's programs with, sometimes, one memory error on some inputs,
    /// judged by the address sanitizer.
    MemoryErrors,
    /// Our generator of programs of many functions (call sites with different argument
    /// ranges, out-parameters, recursion).
    Calls,
}

/// Runs the harness; exit code 1 when some verdict is wrong, 0 otherwise.
pub fn run(args: SoundnessArgs) -> Result<i32> {
    if !(args.timeout > 0.0 && args.timeout.is_finite()) {
        bail!("--timeout must be a positive number of seconds");
    }
    let binary = match args.analyzer {
        Some(path) => path,
        None => std::env::current_exe().context("locating the polyfocus executable")?,
    };
    let extra: Vec<String> = args
        .check_flags
        .split_whitespace()
        .map(str::to_string)
        .collect();
    super::check::validate_flags(&extra).context("--check-flags")?;
    let analyzer = AnalyzerSetup {
        binary,
        timeout: args.timeout,
        extra,
        keep_all: args.keep_all,
    };
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let seeds: Vec<u64> = (0..args.count).map(|k| args.seed + k).collect();
    let mut rows = Vec::new();
    let mut json_rows = Vec::new();
    let mut any_wrong = false;
    for generator in &args.generators {
        let generator = match generator {
            GeneratorArg::Own => Generator::Own,
            GeneratorArg::Csmith => Generator::Csmith,
            GeneratorArg::Memory => Generator::Memory,
            GeneratorArg::MemoryErrors => Generator::MemoryErrors,
            GeneratorArg::Calls => Generator::Calls,
        };
        let started = Instant::now();
        let mut summary = Summary::default();
        let mut done = 0;
        let results = run_many(
            generator,
            &seeds,
            jobs,
            &analyzer,
            args.keep_failures.as_deref(),
            |result, seed| {
                done += 1;
                summary.add(result);
                let name = generator.name();
                match result {
                    Err(e) => eprintln!("{name} seed {seed}: harness error: {e:#}"),
                    Ok(r) => {
                        for wrong in r.wrong() {
                            eprintln!(
                                "{name} seed {seed}: WRONG {wrong} [{}]",
                                r.classes.join(", ")
                            );
                        }
                        if let Status::Judged(j) = &r.status {
                            for line in &j.missed {
                                eprintln!(
                                    "{name} seed {seed}: missed line {line}: fails natively, no check for it (the report does not prove the program) [{}]",
                                    r.classes.join(", ")
                                );
                            }
                        }
                        if let Status::AnalyzerFailed(e) = &r.status {
                            eprintln!("{name} seed {seed}: analyzer failed: {e}");
                        }
                    }
                }
                if done % 50 == 0 {
                    eprintln!("{name}: {done}/{} programs", seeds.len());
                }
            },
        );
        any_wrong |= summary.wrong > 0;
        rows.push(summary.row(generator, started.elapsed()));
        json_rows.push(summary_json(
            generator,
            &summary,
            started.elapsed(),
            &results,
        ));
    }
    println!("{}", Summary::HEADER);
    for row in rows {
        println!("{row}");
    }
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&serde_json::Value::Array(json_rows))
            .context("serializing the summary")?;
        std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(if any_wrong { 1 } else { 0 })
}

fn summary_json(
    generator: Generator,
    summary: &Summary,
    elapsed: std::time::Duration,
    results: &[Result<ProgramResult>],
) -> serde_json::Value {
    let wrong: Vec<serde_json::Value> = results
        .iter()
        .flatten()
        .flat_map(|r| {
            r.wrong().iter().map(move |w| {
                serde_json::json!({
                    "seed": r.seed,
                    "wrong": w.to_string(),
                    "classes": r.classes,
                })
            })
        })
        .collect();
    let programs: Vec<serde_json::Value> = results
        .iter()
        .flatten()
        .map(|r| {
            let (status, verdicts, wrong, missed) = match &r.status {
                Status::Judged(j) => (
                    "judged".to_string(),
                    j.verdicts.clone(),
                    j.wrong.len(),
                    j.missed.len(),
                ),
                Status::Rejected(why) => (format!("rejected: {why}"), Vec::new(), 0, 0),
                Status::AnalyzerFailed(e) => (format!("analyzer failed: {e}"), Vec::new(), 0, 0),
            };
            let n = |v: Verdict| verdicts.iter().filter(|x| **x == v).count();
            serde_json::json!({
                "seed": r.seed,
                "classes": r.classes,
                "status": status,
                "proved": n(Verdict::Proved),
                "violated": n(Verdict::Violated),
                "unknown": n(Verdict::Unknown),
                "holds_if": n(Verdict::HoldsIf),
                "wrong": wrong,
                "missed": missed,
                "time_s": r.elapsed.as_secs_f64(),
            })
        })
        .collect();
    serde_json::json!({
        "generator": generator.name(),
        "programs": summary.programs,
        "rejected": summary.rejected,
        "rejections": summary.rejections,
        "analyzer_failed": summary.analyzer_failed,
        "harness_errors": summary.harness_errors,
        "assertions": summary.assertions,
        "proved": summary.proved,
        "violated": summary.violated,
        "unknown": summary.unknown,
        "holds_if": summary.holds_if,
        "holds_if_unjudged": summary.holds_if_unjudged,
        "memory_checks": summary.memory_checks,
        "memory_proved": summary.memory_proved,
        "memory_violated": summary.memory_violated,
        "memory_unchecked": summary.memory_unchecked,
        "wrong": summary.wrong,
        "skipped": summary.skipped,
        "missed": summary.missed,
        "time_s": elapsed.as_secs_f64(),
        "wrong_verdicts": wrong,
        "programs": programs,
    })
}
