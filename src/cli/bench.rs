//! `polyfocus bench`: runs the benchmark harness ([`crate::bench`]) and prints its tables.

use crate::bench::compare;
use crate::bench::json::{ConfigEntry, RunFile, FORMAT};
use crate::bench::manifest::{read_manifest, Task};
use crate::bench::peers::read_peers;
use crate::bench::plot::quantile_svg;
use crate::bench::progress::Progress;
use crate::bench::table;
use crate::bench::{read_task_list, select_tasks, Config, Harness};
use anyhow::{bail, Context, Result};
use clap::Args;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of `polyfocus bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Folder with a MANIFEST.tsv (and optionally peers/*.tsv).
    pub dir: PathBuf,
    /// A configuration: a name and the extra flags of `polyfocus check`, e.g.
    /// `classic-interval="-Z engine=classic -Z domain=interval"`; repeatable.
    /// Default: one configuration `default=""`.
    #[arg(long = "config", value_name = "NAME=FLAGS", allow_hyphen_values = true)]
    pub configs: Vec<String>,
    /// Parallel runs, at least 1 (default: the number of cores).
    #[arg(long, short = 'j', value_parser = super::args::parse_jobs)]
    pub jobs: Option<usize>,
    /// Time budget per run in seconds, passed to the analyzer as --timeout; the run is
    /// killed one second later.
    #[arg(long, default_value_t = 60.0, value_parser = super::args::parse_seconds)]
    pub timeout: f64,
    /// Address-space limit per run in MiB (0: none).
    #[arg(long, default_value_t = 4096)]
    pub memory: u64,
    /// Only tasks whose path contains this text; repeatable (any matches).
    #[arg(long)]
    pub filter: Vec<String>,
    /// Only the tasks listed in this file (one path per line, `#` comments).
    #[arg(long, value_name = "FILE")]
    pub tasks: Option<PathBuf>,
    /// Write every row as JSON to this file.
    #[arg(long, value_name = "OUT.json")]
    pub json: Option<PathBuf>,
    /// Compare with an earlier run's JSON file and print what changed per task.
    #[arg(long, value_name = "OLD.json")]
    pub compare: Option<PathBuf>,
    /// Draw the quantile plot (time against number of correct results) into this SVG file.
    #[arg(long, value_name = "OUT.svg")]
    pub plot: Option<PathBuf>,
    /// The analyzer binary, run as `ANALYZER check FILE ... --format json`
    /// (default: this executable).
    #[arg(long, value_name = "PATH")]
    pub analyzer: Option<PathBuf>,
    /// Leave out the peers' reference rows.
    #[arg(long)]
    pub no_peers: bool,
}

/// Runs the harness; exit code 1 when some verdict is wrong, 0 otherwise.
pub fn run(args: BenchArgs) -> Result<i32> {
    let bench_dir = std::fs::canonicalize(&args.dir)
        .with_context(|| format!("benchmark folder {}", args.dir.display()))?;
    let selection = args.tasks.as_deref().map(read_task_list).transpose()?;
    let tasks = select_tasks(
        read_manifest(&bench_dir)?,
        &args.filter,
        selection.as_deref(),
    )?;
    if tasks.is_empty() {
        bail!("no task selected");
    }
    let mut configs = Vec::new();
    for text in &args.configs {
        let config = Config::parse(text)?;
        super::check::validate_flags(config.words())
            .with_context(|| format!("configuration {}", config.name))?;
        if configs.iter().any(|c: &Config| c.name == config.name) {
            bail!("configuration {} given twice", config.name);
        }
        configs.push(config);
    }
    if configs.is_empty() {
        configs.push(Config::parse("default=")?);
    }
    let analyzer = match args.analyzer {
        Some(path) => path,
        None => std::env::current_exe().context("locating the polyfocus executable")?,
    };
    if !analyzer.is_file() {
        bail!("analyzer {} is not a file", analyzer.display());
    }
    let old_run = args.compare.as_deref().map(RunFile::read).transpose()?;
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let harness = Harness {
        analyzer,
        bench_dir: bench_dir.clone(),
        timeout: Duration::from_secs_f64(args.timeout),
        memory_bytes: (args.memory > 0).then_some(args.memory << 20),
    };

    let mut progress = Progress::new(tasks.len() * configs.len());
    let rows = harness.run_all(&tasks, &configs, jobs, |r| progress.record(r));
    progress.finish();

    let run = RunFile {
        format: FORMAT.to_string(),
        harness_version: env!("CARGO_PKG_VERSION").to_string(),
        bench_dir: bench_dir.to_string_lossy().into_owned(),
        timeout_s: args.timeout,
        memory_mb: args.memory,
        jobs,
        configs: configs
            .iter()
            .map(|c| ConfigEntry {
                name: c.name.clone(),
                flags: c.flags.clone(),
            })
            .collect(),
        rows,
    };
    if let Some(path) = &args.json {
        run.write(path)?;
    }

    let task_refs: Vec<&Task> = tasks.iter().collect();
    let mut series = table::run_series(&run);
    if !args.no_peers {
        match read_peers(&bench_dir) {
            Ok(tools) => {
                for tool in tools {
                    series.extend(tool.reference_series(&task_refs));
                }
            }
            Err(e) => eprintln!("warning: peers left out: {e:#}"),
        }
    }
    print!("{}", table::render(&task_refs, &series));
    print!("{}", table::render_refinement(&run));

    if let Some(old) = &old_run {
        println!();
        print!("{}", compare::render(&compare::compare(old, &run)));
    }
    if let Some(path) = &args.plot {
        let title = format!(
            "polyfocus on {} ({} tasks, {} s limit)",
            bench_dir.file_name().unwrap_or_default().to_string_lossy(),
            tasks.len(),
            args.timeout
        );
        std::fs::write(path, quantile_svg(&title, &series))
            .with_context(|| format!("writing {}", path.display()))?;
    }

    let crashes: Vec<_> = run
        .rows
        .iter()
        .filter(|r| r.reason == Some(crate::bench::classify::UnknownReason::Crash))
        .collect();
    if !crashes.is_empty() {
        println!();
        println!("crashes ({}):", crashes.len());
        for r in crashes.iter().take(10) {
            println!(
                "  {} [{}]: {}",
                r.task,
                r.config,
                r.detail.as_deref().unwrap_or("?")
            );
        }
        if crashes.len() > 10 {
            println!("  ... and {} more (see the JSON rows)", crashes.len() - 10);
        }
    }
    let wrong: Vec<_> = run.rows.iter().filter(|r| r.class.is_wrong()).collect();
    if wrong.is_empty() {
        return Ok(0);
    }
    let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let (red, reset) = if color {
        ("\x1b[1;31m", "\x1b[0m")
    } else {
        ("", "")
    };
    println!();
    println!("{red}WRONG verdicts ({}):{reset}", wrong.len());
    for r in wrong {
        println!(
            "{red}  {} [{}]: expected {}, got {}{reset}",
            r.task,
            r.config,
            r.expected,
            r.verdict.as_str()
        );
    }
    Ok(1)
}
