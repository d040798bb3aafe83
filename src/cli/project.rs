//! Runs over several programs: compilation databases (`check -p`), grouping of
//! bitcode into programs, the report formats of a run, and the exit code as a CI gate.

use super::cache::DirStore;
use super::{EXIT_PROVED, EXIT_UNKNOWN, EXIT_VIOLATED};
use crate::check::ProgramVerdict;
use crate::driver::{self, AnalysisConfig};
use crate::frontend::{self, FrontendConfig};
use crate::report::{self, ProgramReport, RunInfo, SarifOptions};
use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use std::path::{Path, PathBuf};

/// Report formats.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Human-readable lines.
    Text,
    /// One JSON object.
    Json,
    /// SARIF 2.1.0 (code scanning), one run for all programs.
    Sarif,
    /// JUnit XML (CI dashboards): a testcase per assertion.
    Junit,
    /// One self-contained HTML page: the source with each assertion marked, loop
    /// invariants and counterexample steps beside their lines (use with -o).
    Html,
}

/// What makes the exit code non-zero.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailOn {
    /// A violated assertion exits 1, an unknown one (or one that holds only under a
    /// precondition) 2.
    Unknown,
    /// Only a violated assertion (confirmed counterexample) fails: exits 1; unknown exits 0.
    False,
}

/// How to report a run, shared by `check` and `scan`.
#[derive(Args, Debug, Clone)]
pub struct OutputArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Write the report to this file instead of standard output.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The verdict that fails the run: `unknown` (default; exits 1 when violated, 2 when
    /// unknown or `holds if`) or `false` (exits 1 when violated, 0 otherwise).
    #[arg(long, value_enum, default_value_t = FailOn::Unknown)]
    pub fail_on: FailOn,
    /// SARIF URIs are relative to this directory (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub source_root: Option<PathBuf>,
    /// Functions analyzed in parallel, at least 1 (default: the number of cores).
    #[arg(short = 'j', long, value_name = "N", value_parser = super::args::parse_jobs)]
    pub jobs: Option<usize>,
}

impl OutputArgs {
    /// The number of analysis threads.
    pub fn jobs(&self) -> usize {
        self.jobs.unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        })
    }
}

/// A program to analyze: its name and how to load it.
pub struct ProgramInput {
    /// Its name in reports.
    pub name: String,
    /// Its inputs and flags.
    pub frontend: FrontendConfig,
}

/// Loads and analyzes each program; a program that cannot be loaded is reported, not
/// fatal.
pub fn analyze_programs(
    programs: &[ProgramInput],
    config: &AnalysisConfig,
    counterexamples: bool,
    store: Option<&DirStore>,
) -> Vec<ProgramReport> {
    let base = config.clone();
    let mut plan_left = base.plan;
    let mut reports = Vec::new();
    // Each program takes a part of what is left that grows with its size (the bytes of its
    // inputs, compiled bitcode for a compilation database): a unit of 2,000 checks needs
    // more than one of 20, and sizes, unlike times, are the same on every run.
    let sizes: Vec<f64> = programs.iter().map(|p| input_bytes(p) as f64).collect();
    for (i, p) in programs.iter().enumerate() {
        if programs.len() > 1 {
            eprintln!("polyfocus: analyzing {}", p.name);
        }
        let loading = std::time::Instant::now();
        // The run's budget includes loading (and, for a compilation database, compiling):
        // a program's share of the time left starts before it is loaded.
        let config = &base.for_program(part_of_left(&sizes, i), plan_left);
        let loaded = crate::driver::load_with_contracts(&p.frontend, config);
        if p.frontend.options.timing {
            eprintln!(
                "polyfocus: loaded {} in {:.1} s",
                p.name,
                loading.elapsed().as_secs_f64()
            );
        }
        reports.push(match loaded {
            Err(e) => ProgramReport::failed(p.name.clone(), e.to_string()),
            Ok(module) => {
                let analysis = analyze(&module, config, &p.frontend, counterexamples, store);
                // What its budgets did not take goes to the programs after it.
                plan_left = plan_left.map(|left| left.saturating_sub(analysis.planned));
                if p.frontend.options.timing {
                    eprintln!(
                        "polyfocus: analyzed {} at {:.1} s",
                        p.name,
                        loading.elapsed().as_secs_f64()
                    );
                }
                ProgramReport::new(p.name.clone(), analysis, module.warnings)
            }
        });
    }
    reports
}

/// The part of what is left that program `i` takes, of programs of `sizes` analyzed in
/// order: half of it shared equally among the programs from it on (loading and the smallest
/// functions cost whatever the size), half in proportion to their sizes. The last program
/// takes all that is left.
fn part_of_left(sizes: &[f64], i: usize) -> f64 {
    let equal = 1.0 / (sizes.len() - i) as f64;
    let left: f64 = sizes[i..].iter().sum();
    let by_size = if left > 0.0 { sizes[i] / left } else { equal };
    (equal + by_size) / 2.0
}

/// The bytes of the input files of `p` (at least one, so that every program has a part).
fn input_bytes(p: &ProgramInput) -> u64 {
    let bytes: u64 = p
        .frontend
        .inputs
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum();
    bytes.max(1)
}

/// Analyzes a loaded program, with a counterexample search when `counterexamples`, reading
/// and filling `store` when given.
pub fn analyze(
    module: &crate::ir::Module,
    config: &AnalysisConfig,
    fe: &FrontendConfig,
    counterexamples: bool,
    store: Option<&DirStore>,
) -> driver::AnalysisReport {
    let cex = counterexamples.then(|| crate::cex::CexConfig::new(fe.clone()));
    let mut report = match (store, &cex) {
        (Some(store), cex) => driver::analyze_with_cache(module, fe, config, cex.as_ref(), store),
        (None, Some(cex)) => driver::analyze_with_counterexamples(module, config, cex),
        (None, None) => driver::analyze(module, config),
    };
    driver::settle_at_call_sites(&mut report, module, fe, config);
    report
}

/// Prints how many functions of `programs` came from the cache, when there is one.
pub fn report_cache_use(programs: &[ProgramReport], store: Option<&DirStore>) {
    if store.is_some() {
        let mut used = crate::check::CacheUse::default();
        for p in programs {
            used += p.analysis.cache;
        }
        super::cache::report_use(used);
    }
}

/// Writes the report of a run and returns the exit code.
pub fn write_report(programs: &[ProgramReport], out: &OutputArgs, info: &RunInfo) -> Result<i32> {
    let text = match out.format {
        Format::Text => report::project_text(programs, info),
        Format::Json => report::project_json(programs, info) + "\n",
        Format::Sarif => {
            let root = match &out.source_root {
                Some(dir) => dir.clone(),
                None => std::env::current_dir().context("reading the current directory")?,
            };
            report::sarif(programs, &SarifOptions::new(root))
        }
        Format::Junit => report::junit(programs),
        Format::Html => report::html(programs, &read_sources(programs), info),
    };
    match &out.output {
        Some(path) => {
            std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?
        }
        None => print!("{text}"),
    }
    Ok(exit_code(programs, out.fail_on))
}

/// The texts of the source files the report's locations name, as the compiler spelled
/// them (relative to the current directory, like the compiler's); a file that cannot be
/// read is left out (the HTML report lists its notes without its lines).
fn read_sources(programs: &[ProgramReport]) -> std::collections::BTreeMap<String, String> {
    report::html_source_files(programs)
        .into_iter()
        .filter_map(|file| {
            let bytes = std::fs::read(&file).ok()?;
            Some((file, String::from_utf8_lossy(&bytes).into_owned()))
        })
        .collect()
}

/// Fails when `path` cannot be written, before any work is done: opens it for appending
/// (which changes nothing in an existing file) and removes it again if it did not exist.
pub fn ensure_writable(path: &std::path::Path) -> Result<()> {
    let existed = path.exists();
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    if !existed {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

/// The exit code of a run: 1 when an assertion is violated; otherwise, with
/// `--fail-on unknown`, 2 when an assertion is unknown or holds only under a precondition
/// (it is not proved for every call), or a program could not be loaded.
pub fn exit_code(programs: &[ProgramReport], fail_on: FailOn) -> i32 {
    let failed_load = programs.iter().any(|p| p.error.is_some());
    match (
        ProgramVerdict::of_checks(report::all_checks(programs)),
        fail_on,
    ) {
        (ProgramVerdict::False, _) => EXIT_VIOLATED,
        (_, FailOn::Unknown) if failed_load => EXIT_UNKNOWN,
        (ProgramVerdict::Unknown, FailOn::Unknown) => EXIT_UNKNOWN,
        _ => EXIT_PROVED,
    }
}

/// Groups bitcode files `(name, path)` into programs: one per file defining `main`, linked
/// with every file that does not; all files as one program when at most one defines
/// `main`. The name of a program is the name of its `main` file (or `fallback`).
pub fn group_by_main(files: &[(String, PathBuf)], fallback: &str) -> Vec<(String, Vec<PathBuf>)> {
    let mains: Vec<bool> = files
        .iter()
        .map(|(_, p)| frontend::defines_main(p))
        .collect();
    let n_mains = mains.iter().filter(|m| **m).count();
    if n_mains <= 1 {
        let name = files
            .iter()
            .zip(&mains)
            .find(|(_, m)| **m)
            .map_or(fallback.to_string(), |((n, _), _)| n.clone());
        return vec![(name, files.iter().map(|(_, p)| p.clone()).collect())];
    }
    let libs: Vec<PathBuf> = files
        .iter()
        .zip(&mains)
        .filter(|(_, m)| !**m)
        .map(|((_, p), _)| p.clone())
        .collect();
    files
        .iter()
        .zip(&mains)
        .filter(|(_, m)| **m)
        .map(|((n, p), _)| {
            let mut inputs = vec![p.clone()];
            inputs.extend(libs.iter().cloned());
            (n.clone(), inputs)
        })
        .collect()
}

/// The programs of a compilation database `BUILD_DIR/compile_commands.json` (or the file
/// itself): every C translation unit compiled to bitcode in `bc_dir` with its own flags,
/// grouped by [`group_by_main`], or each a program of its own with `each_unit`. Translation
/// units that do not compile are returned as failed programs.
pub fn compdb_programs(
    build: &Path,
    base: &FrontendConfig,
    bc_dir: &Path,
    each_unit: bool,
) -> Result<(Vec<ProgramInput>, Vec<ProgramReport>)> {
    let db = if build.is_dir() {
        build.join("compile_commands.json")
    } else {
        build.to_path_buf()
    };
    let commands = frontend::read_compile_commands(&db)?;
    if commands.is_empty() {
        anyhow::bail!("{}: no C translation unit", db.display());
    }
    let root = std::env::current_dir().context("reading the current directory")?;
    let mut compiled = Vec::new();
    let mut failed = Vec::new();
    for (i, cmd) in commands.iter().enumerate() {
        let name = display_path(&cmd.file, &root);
        let stem = cmd
            .file
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("tu");
        let out = bc_dir.join(format!("{i}-{stem}.bc"));
        eprintln!("polyfocus: compiling {name}");
        match frontend::compile_to_bitcode(base, &cmd.directory, &cmd.file, &cmd.arguments, &out) {
            Ok(()) => compiled.push((name, out)),
            Err(e) => failed.push(ProgramReport::failed(
                format!("compile {name}"),
                e.to_string(),
            )),
        }
    }
    if compiled.is_empty() {
        return Ok((vec![], failed));
    }
    let groups = if each_unit {
        compiled
            .into_iter()
            .map(|(name, bc)| (name, vec![bc]))
            .collect()
    } else {
        group_by_main(&compiled, &display_path(build, &root))
    };
    let programs = groups
        .into_iter()
        .map(|(name, inputs)| ProgramInput {
            name,
            frontend: FrontendConfig {
                inputs,
                ..base.clone()
            },
        })
        .collect();
    Ok((programs, failed))
}

/// `path` relative to `root` when under it.
pub fn display_path(path: &Path, root: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::part_of_left;

    /// Programs that each take all of their part of what is left share the whole, each at
    /// least half of an equal part of what is left at its turn, the larger ones more.
    #[test]
    fn programs_share_the_plan_by_size_and_equally() {
        let sizes = [10.0, 1000.0, 90.0, 0.0];
        let mut left = 1.0;
        let mut got = Vec::new();
        for i in 0..sizes.len() {
            let part = part_of_left(&sizes, i);
            assert!(
                part >= 0.5 / (sizes.len() - i) as f64,
                "program {i}: {part}"
            );
            got.push(left * part);
            left -= left * part;
        }
        assert!(left.abs() < 1e-12, "{got:?}");
        assert!(got[1] > got[0] && got[1] > got[2], "{got:?}");
        assert_eq!(part_of_left(&[0.0, 0.0], 0), 0.5);
    }
}
