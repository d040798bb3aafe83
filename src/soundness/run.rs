//! One program through the whole pipeline ([`check_program`]), many in parallel
//! ([`run_many`]), and the summary per generator.

use super::assertions;
use super::judge::{self, Judgement, Wrong};
use super::oracle::{self, Rejection};
use super::render::{self, OracleMode, PROGRAM_FILE};
use super::report::{self, Verdict};
use super::rng::Rng;
use super::{calls, csmith, memory, memory_judge, own, precondition, Generator, Skeleton};
use crate::bench::runner::{run_limited, Limits, Termination};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How to run the analyzer on each program.
#[derive(Clone, Debug)]
pub struct AnalyzerSetup {
    /// The polyfocus binary.
    pub binary: PathBuf,
    /// `--timeout` of each run, in seconds.
    pub timeout: f64,
    /// Extra arguments of `polyfocus check`.
    pub extra: Vec<String>,
    /// Keep every judged program (not only the failures) where failures are kept.
    pub keep_all: bool,
}

/// What became of one program.
#[derive(Clone, Debug)]
pub enum Status {
    /// Judged.
    Judged(Judgement),
    /// Not judged: the oracle rejected it.
    Rejected(Rejection),
    /// The analyzer failed on it (input error, crash, hang): reported, not a wrong verdict.
    AnalyzerFailed(String),
}

/// One program's result.
#[derive(Clone, Debug)]
pub struct ProgramResult {
    /// Its generator.
    pub generator: Generator,
    /// Its seed.
    pub seed: u64,
    /// Classes it exercises.
    pub classes: Vec<&'static str>,
    /// What became of it.
    pub status: Status,
    /// Wall time of the whole pipeline.
    pub elapsed: Duration,
}

impl ProgramResult {
    /// The wrong verdicts.
    pub fn wrong(&self) -> &[Wrong] {
        match &self.status {
            Status::Judged(j) => &j.wrong,
            _ => &[],
        }
    }
}

/// The files of one program, written to its folder.
struct Files {
    analyzed: String,
    oracle: String,
    cflags: Vec<String>,
    report: String,
}

/// Generates, observes, analyzes and judges the program of `seed`; when `keep` is given
/// and the program has a wrong verdict or the analyzer failed, its files are copied there.
pub fn check_program(
    generator: Generator,
    seed: u64,
    analyzer: &AnalyzerSetup,
    keep: Option<&Path>,
) -> Result<ProgramResult> {
    let started = Instant::now();
    let dir = tempfile::tempdir().context("creating a temporary folder")?;
    let skeleton = match generator {
        Generator::Own => own::generate(seed),
        Generator::Memory => memory::generate(seed),
        Generator::MemoryErrors => memory::generate_with_errors(seed),
        Generator::Calls => calls::generate(seed),
        Generator::Csmith => csmith::generate(seed, dir.path())?,
    };
    let mut result = ProgramResult {
        generator,
        seed,
        classes: skeleton.classes.clone(),
        status: Status::Rejected(Rejection::TooManyRuns),
        elapsed: Duration::ZERO,
    };
    let (status, files) = pipeline(&skeleton, seed, dir.path(), analyzer)?;
    result.status = status;
    result.elapsed = started.elapsed();
    let keep_it = match &result.status {
        Status::Judged(j) => !j.wrong.is_empty() || analyzer.keep_all,
        Status::AnalyzerFailed(_) => true,
        Status::Rejected(_) => false,
    };
    if let (Some(keep), true, Some(files)) = (keep, keep_it, files) {
        save(keep, &result, &files)?;
    }
    Ok(result)
}

fn pipeline(
    skeleton: &Skeleton,
    seed: u64,
    dir: &Path,
    analyzer: &AnalyzerSetup,
) -> Result<(Status, Option<Files>)> {
    if skeleton.n_probes() == 0 {
        return Ok((Status::Rejected(Rejection::NoAssertion), None));
    }
    let oracle_cflags = oracle::cflags(skeleton);
    let probe_text = render::oracle_text(skeleton, OracleMode::Probe, &[]);
    let observed = match oracle::observe(dir, "probe", &probe_text, &oracle_cflags)? {
        Ok(o) => o,
        Err(rejection) => return Ok((Status::Rejected(rejection), None)),
    };
    let conditions = assertions::choose(skeleton, &observed, &mut Rng::new(seed ^ 0xa55e));
    let oracle_text = render::oracle_text(skeleton, OracleMode::Assert(&conditions), &[]);
    let verdicts = match oracle::observe(dir, "oracle", &oracle_text, &oracle_cflags)? {
        Ok(o) => o,
        Err(rejection) => return Ok((Status::Rejected(rejection), None)),
    };
    let (analyzed, assertion_at) = render::analysis_text(skeleton, &conditions);
    let program = dir.join(PROGRAM_FILE);
    std::fs::write(&program, &analyzed)
        .with_context(|| format!("writing {}", program.display()))?;
    let cflags: Vec<String> = skeleton
        .cflags
        .iter()
        .chain(&skeleton.analysis_cflags)
        .cloned()
        .collect();
    let mut args = vec![
        "check".to_string(),
        program.to_string_lossy().into_owned(),
        "--format".to_string(),
        "json".to_string(),
        "--timeout".to_string(),
        analyzer.timeout.to_string(),
    ];
    if !cflags.is_empty() {
        args.push(format!("--cflags={}", cflags.join(" ")));
    }
    if let Some(checks) = skeleton.analysis_checks {
        args.push(format!("--checks={checks}"));
    }
    args.extend(analyzer.extra.iter().cloned());
    // Every function may use its budget, plus compilation and counterexample replays.
    let limits = Limits {
        time: Duration::from_secs_f64(analyzer.timeout * 8.0 + 20.0),
        memory_bytes: Some(4 << 30),
    };
    let outcome = run_limited(&analyzer.binary, &args, &limits)
        .with_context(|| format!("running {}", analyzer.binary.display()))?;
    let mut files = Files {
        analyzed,
        oracle: oracle_text,
        cflags,
        report: outcome.stdout.clone(),
    };
    let status = if outcome.timed_out {
        Status::AnalyzerFailed(format!("killed after {:?}", limits.time))
    } else {
        match outcome.termination {
            Termination::Exited(0..=2) => match report::parse(&outcome.stdout) {
                Ok(report) => judge_report(
                    &report,
                    skeleton,
                    dir,
                    &conditions,
                    &assertion_at,
                    &verdicts,
                )?,
                Err(e) => Status::AnalyzerFailed(format!("{e:#}")),
            },
            other => {
                files.report.push_str(&outcome.stderr);
                let first = outcome.stderr.lines().next().unwrap_or("").to_string();
                Status::AnalyzerFailed(format!("{other:?}: {first}"))
            }
        }
    };
    Ok((status, Some(files)))
}

/// Judges `report` against the oracle's `verdicts`, after one more native run when some
/// check holds under a precondition.
fn judge_report(
    report: &report::Report,
    skeleton: &Skeleton,
    dir: &Path,
    conditions: &render::Conditions,
    assertion_at: &std::collections::BTreeMap<u32, usize>,
    verdicts: &oracle::Observation,
) -> Result<Status> {
    let (preconditions, unjudged) = match precondition::plan(report, skeleton) {
        Ok(plan) => plan,
        Err(e) => return Ok(Status::AnalyzerFailed(format!("{e:#}"))),
    };
    let held = match precondition::observe(dir, skeleton, conditions, &preconditions, unjudged)? {
        Ok(held) => held,
        Err(rejection) => {
            let listed: Vec<String> = preconditions
                .iter()
                .map(|p| format!("`{}` on {}", p.expr, p.function))
                .collect();
            return Ok(Status::AnalyzerFailed(format!(
                "the native run with the preconditions {} failed: {rejection}",
                listed.join(", ")
            )));
        }
    };
    // An execution that stopped at a memory error did not reach what comes after it.
    let exhaustive = skeleton.exhaustive() && verdicts.memory_errors.is_empty();
    let mut judgement = judge::judge(report, assertion_at, &verdicts.failed, &held, exhaustive);
    memory_judge::judge(
        report,
        &verdicts.memory_errors,
        &held,
        skeleton.exhaustive(),
        &mut judgement,
    );
    Ok(Status::Judged(judgement))
}

fn save(keep: &Path, result: &ProgramResult, files: &Files) -> Result<()> {
    std::fs::create_dir_all(keep).with_context(|| format!("creating {}", keep.display()))?;
    let stem = keep.join(format!("{}-{}", result.generator.name(), result.seed));
    let why = match &result.status {
        Status::Judged(j) => j
            .wrong
            .iter()
            .map(|w| w.to_string())
            .collect::<Vec<_>>()
            .join("\n"),
        Status::AnalyzerFailed(e) => format!("analyzer failed: {e}"),
        Status::Rejected(r) => format!("rejected: {r}"),
    };
    let header = format!(
        "/* polyfocus soundness --generator {} --seed {} --count 1\n   check with: polyfocus check prog.c{}\n   classes: {}\n{}\n*/\n",
        result.generator.name(),
        result.seed,
        if files.cflags.is_empty() {
            String::new()
        } else {
            format!(" --cflags=\"{}\"", files.cflags.join(" "))
        },
        result.classes.join(", "),
        why
    );
    let write = |ext: &str, text: &str| {
        let path = stem.with_extension(ext);
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))
    };
    // The header goes last so that the lines of the analyzed program stay as reported.
    write("c", &format!("{}{header}", files.analyzed))?;
    write("oracle.c", &files.oracle)?;
    write("json", &files.report)
}

/// Runs `count` programs of `generator` from `seed` on `jobs` workers; `on_done` sees each
/// result as it finishes. Results are sorted by seed.
pub fn run_many(
    generator: Generator,
    seeds: &[u64],
    jobs: usize,
    analyzer: &AnalyzerSetup,
    keep: Option<&Path>,
    mut on_done: impl FnMut(&Result<ProgramResult>, u64),
) -> Vec<Result<ProgramResult>> {
    let next = AtomicUsize::new(0);
    let (sender, receiver) = std::sync::mpsc::channel();
    let mut results = Vec::with_capacity(seeds.len());
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1).min(seeds.len().max(1)) {
            let sender = sender.clone();
            let next = &next;
            scope.spawn(move || loop {
                let idx = next.fetch_add(1, Ordering::Relaxed);
                let Some(&seed) = seeds.get(idx) else {
                    break;
                };
                let result = check_program(generator, seed, analyzer, keep);
                if sender.send((seed, result)).is_err() {
                    break;
                }
            });
        }
        drop(sender);
        for (seed, result) in receiver {
            on_done(&result, seed);
            results.push((seed, result));
        }
    });
    results.sort_by_key(|(seed, _)| *seed);
    results.into_iter().map(|(_, r)| r).collect()
}

/// Counts of a run of one generator.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Programs generated.
    pub programs: usize,
    /// Programs the oracle rejected (undefined behaviour, too many valuations, ...).
    pub rejected: usize,
    /// How many of them for each reason.
    pub rejections: std::collections::BTreeMap<String, usize>,
    /// Programs the analyzer failed on.
    pub analyzer_failed: usize,
    /// Programs the harness itself failed on (csmith missing, ...).
    pub harness_errors: usize,
    /// Judged checks.
    pub assertions: usize,
    /// Of which proved.
    pub proved: usize,
    /// Violated.
    pub violated: usize,
    /// Unknown.
    pub unknown: usize,
    /// Holds under a precondition.
    pub holds_if: usize,
    /// Judged lines and kinds of memory checks.
    pub memory_checks: usize,
    /// Of which proved.
    pub memory_proved: usize,
    /// Violated.
    pub memory_violated: usize,
    /// Memory errors of the native runs that no memory check is about (not wrong).
    pub memory_unchecked: usize,
    /// `holds if` checks not judged (the harness does not know their function's entry).
    pub holds_if_unjudged: usize,
    /// Wrong verdicts (including natively failing assertions without a check).
    pub wrong: usize,
    /// Assertions without a check that never fail natively.
    pub skipped: usize,
    /// Assertions without a check that fail natively, in reports that do not prove the
    /// program (not wrong verdicts, but assertions the report does not show).
    pub missed: usize,
}

impl Summary {
    /// Adds one program's result.
    pub fn add(&mut self, result: &Result<ProgramResult>) {
        self.programs += 1;
        let Ok(result) = result else {
            self.harness_errors += 1;
            return;
        };
        match &result.status {
            Status::Rejected(why) => {
                self.rejected += 1;
                *self.rejections.entry(why.to_string()).or_default() += 1;
            }
            Status::AnalyzerFailed(_) => self.analyzer_failed += 1,
            Status::Judged(j) => {
                self.assertions += j.verdicts.len();
                for v in &j.verdicts {
                    match v {
                        Verdict::Proved => self.proved += 1,
                        Verdict::Violated => self.violated += 1,
                        Verdict::Unknown => self.unknown += 1,
                        Verdict::HoldsIf => self.holds_if += 1,
                    }
                }
                self.memory_checks += j.memory_verdicts.len();
                for v in &j.memory_verdicts {
                    match v {
                        Verdict::Proved => self.memory_proved += 1,
                        Verdict::Violated => self.memory_violated += 1,
                        Verdict::Unknown | Verdict::HoldsIf => {}
                    }
                }
                self.memory_unchecked += j.memory_unchecked;
                self.holds_if_unjudged += j.holds_if_unjudged;
                self.wrong += j.wrong.len();
                self.skipped += j.skipped;
                self.missed += j.missed.len();
            }
        }
    }

    /// The table header.
    pub const HEADER: &'static str = "generator      programs  rejected  failed  assertions  proved  violated  holds-if  unknown  wrong  skipped  missed  mem-checks  mem-proved  mem-violated  mem-unchecked  time";

    /// One table row.
    pub fn row(&self, generator: Generator, elapsed: Duration) -> String {
        format!(
            "{:<13}  {:>8}  {:>8}  {:>6}  {:>10}  {:>6}  {:>8}  {:>8}  {:>7}  {:>5}  {:>7}  {:>6}  {:>10}  {:>10}  {:>12}  {:>13}  {:.1}s",
            generator.name(),
            self.programs,
            self.rejected,
            self.analyzer_failed + self.harness_errors,
            self.assertions,
            self.proved,
            self.violated,
            self.holds_if,
            self.unknown,
            self.wrong,
            self.skipped,
            self.missed,
            self.memory_checks,
            self.memory_proved,
            self.memory_violated,
            self.memory_unchecked,
            elapsed.as_secs_f64()
        )
    }
}
