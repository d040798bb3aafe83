//! The run file written by `--json` and read by `--compare`: every row of a run.
//!
//! Rows are sorted by task, then by configuration name, so two runs of the same command give
//! byte-identical files apart from the measured times.

use super::classify::{Class, UnknownReason, Verdict};
use super::manifest::Expected;
use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Identifies the file format.
pub const FORMAT: &str = "polyfocus-bench/1";

/// One task run with one configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Path of the program relative to the benchmark folder.
    pub task: String,
    /// The suite column of the manifest.
    pub suite: String,
    /// Configuration name.
    pub config: String,
    /// The known verdict.
    pub expected: Expected,
    /// The verdict of this run.
    pub verdict: Verdict,
    /// How the verdict compares with the expected one.
    pub class: Class,
    /// Why there is no verdict (only when `verdict` is `unknown`).
    pub reason: Option<UnknownReason>,
    /// A short explanation: the analyzer's reason text, an error line, a signal.
    pub detail: Option<String>,
    /// Exit status, when the analyzer exited.
    pub exit_code: Option<i32>,
    /// Signal number, when the analyzer was killed.
    pub signal: Option<i32>,
    /// User + system CPU time, in seconds.
    pub cpu_s: f64,
    /// Wall-clock time, in seconds.
    pub wall_s: f64,
    /// Peak resident set size, in KiB.
    pub max_rss_kb: u64,
    /// The analysis time the analyzer reported, in milliseconds.
    pub analyzer_time_ms: Option<u64>,
    /// What predicate refinement did, summed over the task's functions (when it ran).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refinement: Option<RefinementRow>,
}

/// Predicate refinement figures of one run, as the analyzer reported them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefinementRow {
    /// Re-analyses with predicates.
    pub rounds: u64,
    /// Predicates, summed over cut points.
    pub predicates: u64,
    /// BDD variables with register sharing.
    pub bdd_vars: u64,
    /// BDD variables without sharing.
    pub bdd_vars_unshared: u64,
    /// Assertions proved only after refinement.
    pub proved: u64,
    /// Time spent refining, in milliseconds.
    pub millis: u64,
}

/// A configuration of the analyzer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigEntry {
    /// Name, as given by `--config NAME=FLAGS`.
    pub name: String,
    /// Extra flags given to `polyfocus check`.
    pub flags: String,
}

/// A whole run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunFile {
    /// Always [`FORMAT`].
    pub format: String,
    /// Version of the harness that wrote the file.
    pub harness_version: String,
    /// Absolute path of the benchmark folder.
    pub bench_dir: String,
    /// Wall-time limit per run, in seconds.
    pub timeout_s: f64,
    /// Memory limit per run, in MiB (0: none).
    pub memory_mb: u64,
    /// Parallel workers.
    pub jobs: usize,
    /// Configurations, in command-line order.
    pub configs: Vec<ConfigEntry>,
    /// Every row, sorted by task then configuration name.
    pub rows: Vec<Record>,
}

impl RunFile {
    /// Sorts the rows into the canonical order.
    pub fn sort_rows(&mut self) {
        self.rows
            .sort_by(|a, b| (&a.task, &a.config).cmp(&(&b.task, &b.config)));
    }

    /// Writes the file as pretty JSON.
    pub fn write(&self, path: &Path) -> Result<()> {
        let mut text = serde_json::to_string_pretty(self)?;
        text.push('\n');
        std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
    }

    /// Reads a file written by [`RunFile::write`].
    pub fn read(path: &Path) -> Result<RunFile> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let run: RunFile = serde_json::from_str(&text)
            .with_context(|| format!("parsing {} as a bench run", path.display()))?;
        if run.format != FORMAT {
            bail!("{}: unknown format `{}`", path.display(), run.format);
        }
        Ok(run)
    }
}
