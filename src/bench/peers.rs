//! Reference results of other tools on the same tasks (`DIR/peers/*.tsv`).
//!
//! Each file holds one tool's answers: a header, then tab-separated columns `task`,
//! `expected`, the variant (`domain` for IKOS, `setting` for Frama-C), `<tool>_verdict`
//! (`proved`, `alarm`, `timeout`, `analyzed`) and `wall_s`. A peer never confirms a violation,
//! so `proved` is its only verdict (`true`); `alarm` counts as unknown (imprecise) and
//! `timeout` as unknown (timeout). Two reference series are derived per tool: its best
//! variant on the tasks at hand (highest score, then most correct), and "any variant", the
//! portfolio that proves a task when some variant does, charged the sum of all variants' times.

use super::classify::{Class, UnknownReason, Verdict};
use super::manifest::Task;
use super::table::{Entry, Series};
use anyhow::{bail, Context, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// One tool's answer on one task with one variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeerVerdict {
    /// The assertions were proved.
    Proved,
    /// An alarm was raised (never a confirmed violation).
    Alarm,
    /// The tool ran out of time.
    Timeout,
    /// Anything else (`analyzed` on tasks without assertions).
    Other,
}

/// All answers of one tool.
#[derive(Clone, Debug)]
pub struct PeerTool {
    /// Display name (`IKOS`, `Frama-C`, or the file stem).
    pub name: String,
    /// Variants (domains or settings), in file order.
    pub variants: Vec<String>,
    /// Answer and wall time per (variant, task).
    pub results: BTreeMap<(String, String), (PeerVerdict, f64)>,
}

/// Reads every `DIR/peers/*.tsv`, sorted by file name; no folder means no peers.
pub fn read_peers(dir: &Path) -> Result<Vec<PeerTool>> {
    let peers_dir = dir.join("peers");
    if !peers_dir.is_dir() {
        return Ok(Vec::new());
    }
    let mut paths: Vec<_> = std::fs::read_dir(&peers_dir)
        .with_context(|| format!("listing {}", peers_dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "tsv"))
        .collect();
    paths.sort();
    let mut tools = Vec::new();
    for path in paths {
        let stem = path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        let tool =
            parse_peer(&stem, &text).with_context(|| format!("parsing {}", path.display()))?;
        tools.push(tool);
    }
    Ok(tools)
}

/// Parses one peer file; `stem` is its file name without extension.
pub fn parse_peer(stem: &str, text: &str) -> Result<PeerTool> {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let Some(header) = lines.next() else {
        bail!("empty file")
    };
    let columns: Vec<&str> = header.split('\t').map(str::trim).collect();
    let find = |pred: &dyn Fn(&str) -> bool| columns.iter().position(|c| pred(c));
    let (Some(task_col), Some(variant_col), Some(verdict_col), Some(time_col)) = (
        find(&|c| c == "task"),
        find(&|c| c == "domain" || c == "setting" || c == "variant"),
        find(&|c| c.ends_with("verdict")),
        find(&|c| c == "wall_s" || c == "time_s"),
    ) else {
        bail!("the header must name task, domain/setting, *_verdict and wall_s columns")
    };
    let name = match stem {
        "ikos" => "IKOS".to_string(),
        "framac" | "frama-c" => "Frama-C".to_string(),
        other => other.to_string(),
    };
    let mut variants = Vec::new();
    let mut results = BTreeMap::new();
    for line in lines {
        let fields: Vec<&str> = line.split('\t').map(str::trim).collect();
        let get = |c: usize| fields.get(c).copied().unwrap_or("");
        let variant = get(variant_col).to_string();
        let verdict = match get(verdict_col) {
            "proved" => PeerVerdict::Proved,
            "alarm" => PeerVerdict::Alarm,
            "timeout" => PeerVerdict::Timeout,
            _ => PeerVerdict::Other,
        };
        let time = get(time_col).parse::<f64>().unwrap_or(0.0);
        if !variants.contains(&variant) {
            variants.push(variant.clone());
        }
        results.insert((variant, get(task_col).to_string()), (verdict, time));
    }
    Ok(PeerTool {
        name,
        variants,
        results,
    })
}

impl PeerTool {
    /// The series of one variant over `tasks` (tasks it did not run are left out).
    fn variant_series(&self, variant: &str, tasks: &[&Task]) -> Series {
        let mut entries = BTreeMap::new();
        for task in tasks {
            if let Some(&(verdict, time)) =
                self.results.get(&(variant.to_string(), task.name.clone()))
            {
                entries.insert(task.name.clone(), entry(task, verdict, time));
            }
        }
        Series {
            label: format!("{} {}", self.name, variant),
            reference: true,
            entries,
        }
    }

    /// The reference series over `tasks`: best variant, then any variant (when several).
    pub fn reference_series(&self, tasks: &[&Task]) -> Vec<Series> {
        let mut best: Option<(i64, usize, &str, Series)> = None;
        for variant in &self.variants {
            let series = self.variant_series(variant, tasks);
            let score: i64 = series.entries.values().map(|e| e.class.score()).sum();
            let n_correct = series
                .entries
                .values()
                .filter(|e| e.class.is_correct())
                .count();
            if best
                .as_ref()
                .is_none_or(|(s, n, _, _)| (score, n_correct) > (*s, *n))
            {
                best = Some((score, n_correct, variant, series));
            }
        }
        let Some((_, _, best_variant, mut best)) = best else {
            return Vec::new();
        };
        if self.variants.len() == 1 {
            best.label = self.name.clone();
            return vec![best];
        }
        best.label = format!("{} best: {}", self.name, best_variant);
        let mut any = BTreeMap::new();
        for task in tasks {
            let answers: Vec<(PeerVerdict, f64)> = self
                .variants
                .iter()
                .filter_map(|v| self.results.get(&(v.clone(), task.name.clone())).copied())
                .collect();
            if answers.is_empty() {
                continue;
            }
            let time = answers.iter().map(|a| a.1).sum();
            let verdicts: BTreeSet<_> = answers.iter().map(|a| a.0 as u8).collect();
            let verdict = if answers.iter().any(|a| a.0 == PeerVerdict::Proved) {
                PeerVerdict::Proved
            } else if verdicts.len() == 1 && answers[0].0 == PeerVerdict::Timeout {
                PeerVerdict::Timeout
            } else {
                PeerVerdict::Alarm
            };
            any.insert(task.name.clone(), entry(task, verdict, time));
        }
        let any = Series {
            label: format!(
                "{} any of {} {}s",
                self.name,
                self.variants.len(),
                self.variant_word()
            ),
            reference: true,
            entries: any,
        };
        vec![best, any]
    }

    fn variant_word(&self) -> &'static str {
        if self.name == "IKOS" {
            "domain"
        } else {
            "setting"
        }
    }
}

fn entry(task: &Task, verdict: PeerVerdict, time: f64) -> Entry {
    let (verdict, reason) = match verdict {
        PeerVerdict::Proved => (Verdict::True, None),
        PeerVerdict::Timeout => (Verdict::Unknown, Some(UnknownReason::Timeout)),
        PeerVerdict::Alarm | PeerVerdict::Other => {
            (Verdict::Unknown, Some(UnknownReason::Imprecise))
        }
    };
    Entry {
        class: Class::of(task.expected, verdict),
        reason,
        cpu_s: time,
        max_rss_kb: None,
    }
}
