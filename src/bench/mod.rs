//! The benchmark harness: runs the analyzer on every task of a `MANIFEST.tsv` with every
//! configuration, each run in its own child process under limits, and reports precision,
//! soundness and speed.
//!
//! **Architecture Invariant:** the harness knows the analyzer only through its command line
//! and its JSON output (`polyfocus check --format json`, exit codes 0/1/2/3); it never calls
//! the analysis in-process, so a crash, a hang or a blow-up in one task is recorded as such
//! and the run goes on. It knows nothing of clap or exit codes of its own (that is `cli`).
//!
//! Pieces: [`manifest`] (tasks), [`runner`] (one child process under limits, measured),
//! [`classify`] (verdict and class of a run), [`json`] (the run file), [`table`] (summaries),
//! [`peers`] (other tools' results for reference), [`compare`] (two runs), [`plot`]
//! (quantile plot), [`progress`] (stderr display), [`svcomp`] (SV-COMP property and task
//! files), [`memsafety`] (the answer to `valid-memsafety`, judged with the task's
//! subproperty).
//!
//! Limits: each run gets the time budget as the analyzer's `--timeout` and is killed (with
//! its whole process group) [`KILL_GRACE`] later; memory is bounded by `RLIMIT_AS` (see
//! [`classify`] for how an out-of-memory death is recognized). CPU time and peak memory come
//! from `wait4`.
//!
//! The full table on the development set, from the project root:
//!
//! ```text
//! cargo run --release -- bench ../shared/bench --jobs 2 --timeout 20 \
//!     --config classic-interval="-Z engine=classic -Z domain=interval" --config focus-poly="" \
//!     --json bench.json --plot bench.svg
//! ```

pub mod classify;
pub mod compare;
pub mod json;
pub mod manifest;
pub mod memsafety;
pub mod peers;
pub mod plot;
pub mod progress;
pub mod runner;
pub mod svcomp;
pub mod table;

use anyhow::{bail, Result};
use classify::{Class, Verdict};
use json::Record;
use manifest::Task;
use runner::{Limits, Termination};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Grace period between the analyzer's own time budget and the harness's kill.
pub const KILL_GRACE: Duration = Duration::from_secs(1);

/// A named set of extra flags for `polyfocus check`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Name, shown in tables and stored in the run file.
    pub name: String,
    /// The flags as written.
    pub flags: String,
    words: Vec<String>,
}

impl Config {
    /// Parses `NAME=FLAGS` (the flags are split like a shell would, without expansion).
    pub fn parse(text: &str) -> Result<Config> {
        let Some((name, flags)) = text.split_once('=') else {
            bail!("configuration `{text}` is not NAME=FLAGS")
        };
        let name = name.trim();
        if name.is_empty() || name.contains(char::is_whitespace) {
            bail!("configuration name `{name}` must be non-empty, without spaces");
        }
        Ok(Config {
            name: name.to_string(),
            flags: flags.to_string(),
            words: manifest::split_words(flags)?,
        })
    }

    /// The flags, split into words.
    pub fn words(&self) -> &[String] {
        &self.words
    }
}

/// How to run the analyzer.
#[derive(Clone, Debug)]
pub struct Harness {
    /// The analyzer binary; it is run as `ANALYZER check FILE ... --format json`.
    pub analyzer: PathBuf,
    /// The benchmark folder (absolute).
    pub bench_dir: PathBuf,
    /// The analyzer's time budget, passed as `--timeout`; the harness kills it
    /// [`KILL_GRACE`] later.
    pub timeout: Duration,
    /// Address-space limit in bytes.
    pub memory_bytes: Option<u64>,
}

impl Harness {
    /// The arguments of `ANALYZER` for `task` under `config`. Flags the configuration sets
    /// itself (`--timeout`, `--entry`, `--data-model`, `--format`) win over the manifest's;
    /// its `--cflags` are appended to the manifest's.
    pub fn check_args(&self, task: &Task, config: &Config) -> Vec<String> {
        let mut extra_cflags = Vec::new();
        let mut rest = Vec::new();
        let mut words = config.words().iter();
        while let Some(word) = words.next() {
            if word == "--cflags" {
                extra_cflags.extend(words.next().cloned());
            } else if let Some(value) = word.strip_prefix("--cflags=") {
                extra_cflags.push(value.to_string());
            } else {
                rest.push(word.clone());
            }
        }
        let sets = |flag: &str| {
            rest.iter()
                .any(|w| w == flag || w.starts_with(&format!("{flag}=")))
        };
        let mut args = vec![
            "check".to_string(),
            self.bench_dir
                .join(&task.name)
                .to_string_lossy()
                .into_owned(),
        ];
        if !sets("--entry") {
            args.extend(["--entry".to_string(), task.entry.clone()]);
        }
        if !sets("--data-model") {
            args.extend([
                "--data-model".to_string(),
                task.data_model.as_str().to_string(),
            ]);
        }
        // A task's ILP32 is SV-COMP's 32-bit data model, whose floats are IEEE 754
        // arithmetic rounded to each type (FLT_EVAL_METHOD 0, what the verifiers that
        // label the tasks model), not the x87's extended precision of a plain i386 build:
        // the harness selects SSE arithmetic, unless the task's or the configuration's
        // flags choose a floating-point unit themselves.
        let sse = crate::frontend::SSE_FLOAT_FLAGS.join(" ");
        let chooses_unit = std::iter::once(&task.cflags)
            .chain(&extra_cflags)
            .any(|c| c.contains("-mfpmath"));
        let float_flags = (task.data_model == manifest::DataModel::Ilp32
            && !sets("--data-model")
            && !chooses_unit)
            .then_some(sse.as_str());
        let cflags: Vec<&str> = std::iter::once(task.cflags.as_str())
            .chain(extra_cflags.iter().map(String::as_str))
            .chain(float_flags)
            .filter(|c| !c.trim().is_empty())
            .collect();
        if !cflags.is_empty() {
            args.push(format!("--cflags={}", cflags.join(" ")));
        }
        if !sets("--timeout") {
            args.extend(["--timeout".to_string(), format_seconds(self.timeout)]);
        }
        if !sets("--format") {
            args.extend(["--format".to_string(), "json".to_string()]);
        }
        if let (false, Some(checks)) = (sets("--checks"), task.property.checks()) {
            args.extend(["--checks".to_string(), checks.to_string()]);
        }
        args.extend(rest);
        args
    }

    /// Runs one task with one configuration.
    pub fn run_one(&self, task: &Task, config: &Config) -> Record {
        let limits = Limits {
            time: self.timeout + KILL_GRACE,
            memory_bytes: self.memory_bytes,
        };
        let mut record = Record {
            task: task.name.clone(),
            suite: task.suite.clone(),
            config: config.name.clone(),
            expected: task.expected,
            verdict: Verdict::Unknown,
            class: Class::of(task.expected, Verdict::Unknown),
            reason: Some(classify::UnknownReason::Crash),
            detail: None,
            exit_code: None,
            signal: None,
            cpu_s: 0.0,
            wall_s: 0.0,
            max_rss_kb: 0,
            analyzer_time_ms: None,
            refinement: None,
        };
        if let Some(property) = task.property.unchecked() {
            // `check` decides reachability of error calls only: running it would judge the
            // program's error calls against a verdict about another property.
            record.reason = Some(classify::UnknownReason::Unsupported);
            record.detail = Some(format!("property {property} is not checked"));
            return record;
        }
        let args = self.check_args(task, config);
        let outcome = match runner::run_limited(&self.analyzer, &args, &limits) {
            Ok(outcome) => outcome,
            Err(e) => {
                record.detail = Some(format!("cannot run {}: {e}", self.analyzer.display()));
                return record;
            }
        };
        let interpretation = classify::interpret(&outcome, self.memory_bytes);
        record.verdict = interpretation.verdict;
        record.reason = interpretation.reason;
        record.detail = interpretation.detail;
        if let manifest::TaskProperty::MemSafety { subproperty } = &task.property {
            // A report read: its answer to the property, judged with the subproperty.
            if let (Some(answer), Termination::Exited(0..=2)) =
                (memsafety::answer(&outcome.stdout), &outcome.termination)
            {
                (record.verdict, record.reason, record.detail) =
                    memsafety::judge(&answer, task.expected, subproperty.as_deref());
            }
        }
        record.class = Class::of(task.expected, record.verdict);
        record.analyzer_time_ms = interpretation.analyzer_time_ms;
        record.refinement = interpretation.refinement;
        match outcome.termination {
            Termination::Exited(code) => record.exit_code = Some(code),
            Termination::Signaled(sig) => record.signal = Some(sig),
        }
        record.cpu_s = round_ms(outcome.cpu.as_secs_f64());
        record.wall_s = round_ms(outcome.wall.as_secs_f64());
        record.max_rss_kb = outcome.max_rss_kb;
        record
    }

    /// Runs every task with every configuration on `jobs` parallel workers; `on_done` sees
    /// each record as it finishes (in completion order). Returns the records sorted by task
    /// then configuration name.
    pub fn run_all(
        &self,
        tasks: &[Task],
        configs: &[Config],
        jobs: usize,
        mut on_done: impl FnMut(&Record),
    ) -> Vec<Record> {
        let work: Vec<(&Task, &Config)> = tasks
            .iter()
            .flat_map(|t| configs.iter().map(move |c| (t, c)))
            .collect();
        let next = AtomicUsize::new(0);
        let (sender, receiver) = std::sync::mpsc::channel::<Record>();
        let mut records = Vec::with_capacity(work.len());
        std::thread::scope(|scope| {
            for _ in 0..jobs.max(1).min(work.len().max(1)) {
                let sender = sender.clone();
                let (work, next) = (&work, &next);
                scope.spawn(move || loop {
                    let idx = next.fetch_add(1, Ordering::Relaxed);
                    let Some((task, config)) = work.get(idx) else {
                        break;
                    };
                    if sender.send(self.run_one(task, config)).is_err() {
                        break;
                    }
                });
            }
            drop(sender);
            for record in receiver {
                on_done(&record);
                records.push(record);
            }
        });
        records.sort_by(|a, b| (&a.task, &a.config).cmp(&(&b.task, &b.config)));
        records
    }
}

/// Keeps the tasks whose name contains one of `filters` (all when there is none) and, when
/// `selection` is given, that are listed in it; a listed task missing from the manifest is
/// an error (a typo would otherwise shrink the run silently).
pub fn select_tasks(
    tasks: Vec<Task>,
    filters: &[String],
    selection: Option<&[String]>,
) -> Result<Vec<Task>> {
    if let Some(names) = selection {
        for name in names {
            if !tasks.iter().any(|t| &t.name == name) {
                bail!("task {name} is not in the manifest");
            }
        }
    }
    Ok(tasks
        .into_iter()
        .filter(|t| filters.is_empty() || filters.iter().any(|f| t.name.contains(f.as_str())))
        .filter(|t| selection.is_none_or(|names| names.iter().any(|n| n == &t.name)))
        .collect())
}

/// Reads a task list: one task name per line; blank lines and `#` comments are ignored.
pub fn read_task_list(path: &Path) -> Result<Vec<String>> {
    use anyhow::Context;
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(text
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect())
}

fn format_seconds(duration: Duration) -> String {
    let secs = duration.as_secs_f64();
    if secs.fract() == 0.0 {
        format!("{}", secs as u64)
    } else {
        format!("{secs}")
    }
}

fn round_ms(secs: f64) -> f64 {
    (secs * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use manifest::{DataModel, Expected};

    fn task() -> Task {
        Task {
            name: "s/a.c".into(),
            expected: Expected::True,
            entry: "main".into(),
            data_model: DataModel::Ilp32,
            cflags: "-include /b/p.h".into(),
            suite: "s".into(),
            property: manifest::TaskProperty::UnreachCall,
        }
    }

    fn harness() -> Harness {
        Harness {
            analyzer: "/bin/false".into(),
            bench_dir: "/b".into(),
            timeout: Duration::from_secs(20),
            memory_bytes: None,
        }
    }

    #[test]
    fn builds_check_arguments() {
        let config = Config::parse("c=-Z engine=classic --cflags -DX --timeout 5").unwrap();
        let args = harness().check_args(&task(), &config);
        assert_eq!(
            args,
            [
                "check",
                "/b/s/a.c",
                "--entry",
                "main",
                "--data-model",
                "ILP32",
                "--cflags=-include /b/p.h -DX -msse2 -mfpmath=sse",
                "--format",
                "json",
                "-Z",
                "engine=classic",
                "--timeout",
                "5"
            ]
        );
        let default = Config::parse("default=").unwrap();
        let args = harness().check_args(&task(), &default);
        assert!(args.windows(2).any(|w| w == ["--timeout", "20"]));
        // An LP64 task gets no flag for i386's floating-point unit, nor a task or a
        // configuration that chooses one.
        let lp64 = Task {
            data_model: DataModel::Lp64,
            ..task()
        };
        let args = harness().check_args(&lp64, &default);
        assert!(
            args.contains(&"--cflags=-include /b/p.h".to_string()),
            "{args:?}"
        );
        let x87 = Config::parse("x87=--cflags -mfpmath=387").unwrap();
        let args = harness().check_args(&task(), &x87);
        assert!(
            args.contains(&"--cflags=-include /b/p.h -mfpmath=387".to_string()),
            "{args:?}"
        );
    }

    #[test]
    fn parses_configs() {
        assert!(Config::parse("novalue").is_err());
        assert!(Config::parse("=x").is_err());
        let c = Config::parse("ci=-Z domain=interval").unwrap();
        assert_eq!(c.words(), ["-Z", "domain=interval"]);
    }
}
