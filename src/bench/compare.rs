//! What changed per task between two runs (`--compare OLD.json`).
//!
//! Rows are matched by (task, configuration name). When the two runs share no configuration
//! name but each has exactly one, those two are matched (so `default` can be compared with
//! `focus-poly`). A change is one of: newly correct, no longer correct, became wrong, no
//! longer wrong, a different unknown reason, or a time change by more than 2x (ignoring
//! differences below 0.1 s, which are noise).

use super::classify::Class;
use super::json::{Record, RunFile};
use std::collections::BTreeMap;
use std::fmt::Write;

/// The kind of a per-task change, in report order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ChangeKind {
    /// Wrong now, not before.
    BecameWrong,
    /// Correct before, not now.
    NewlyLost,
    /// Correct now, not before.
    NewlyProved,
    /// Wrong before, not now.
    NoLongerWrong,
    /// Still unknown, for another reason.
    ReasonChanged,
    /// More than twice as slow.
    Slower,
    /// More than twice as fast.
    Faster,
}

impl ChangeKind {
    fn title(self) -> &'static str {
        match self {
            ChangeKind::BecameWrong => "became WRONG",
            ChangeKind::NewlyLost => "newly lost",
            ChangeKind::NewlyProved => "newly proved",
            ChangeKind::NoLongerWrong => "no longer wrong",
            ChangeKind::ReasonChanged => "unknown for another reason",
            ChangeKind::Slower => "slower by more than 2x",
            ChangeKind::Faster => "faster by more than 2x",
        }
    }
}

/// One task whose result changed.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    /// What changed.
    pub kind: ChangeKind,
    /// The task.
    pub task: String,
    /// The configuration (in the new run).
    pub config: String,
    /// Old and new result, for display.
    pub before: String,
    /// New result, for display.
    pub after: String,
}

/// The differences between two runs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Comparison {
    /// Per-task changes, sorted by kind, task, configuration.
    pub changes: Vec<Change>,
    /// Rows only in the old run.
    pub only_old: usize,
    /// Rows only in the new run.
    pub only_new: usize,
    /// Rows in both.
    pub n_matched: usize,
}

/// Compares `old` with `new`.
pub fn compare(old: &RunFile, new: &RunFile) -> Comparison {
    let rename: BTreeMap<&str, &str> = {
        let shared = new
            .configs
            .iter()
            .any(|c| old.configs.iter().any(|o| o.name == c.name));
        if !shared && old.configs.len() == 1 && new.configs.len() == 1 {
            [(old.configs[0].name.as_str(), new.configs[0].name.as_str())].into()
        } else {
            BTreeMap::new()
        }
    };
    let old_rows: BTreeMap<(&str, &str), &Record> = old
        .rows
        .iter()
        .map(|r| {
            let config = rename.get(r.config.as_str()).copied().unwrap_or(&r.config);
            ((r.task.as_str(), config), r)
        })
        .collect();
    let new_rows: BTreeMap<(&str, &str), &Record> = new
        .rows
        .iter()
        .map(|r| ((r.task.as_str(), r.config.as_str()), r))
        .collect();
    let mut res = Comparison::default();
    for (key, after) in &new_rows {
        let Some(before) = old_rows.get(key) else {
            res.only_new += 1;
            continue;
        };
        res.n_matched += 1;
        for kind in changes(before, after) {
            res.changes.push(Change {
                kind,
                task: after.task.clone(),
                config: after.config.clone(),
                before: describe(before),
                after: describe(after),
            });
        }
    }
    res.only_old = old_rows
        .keys()
        .filter(|k| !new_rows.contains_key(k))
        .count();
    res.changes
        .sort_by(|a, b| (a.kind, &a.task, &a.config).cmp(&(b.kind, &b.task, &b.config)));
    res
}

fn changes(before: &Record, after: &Record) -> Vec<ChangeKind> {
    let mut res = Vec::new();
    if after.class.is_wrong() && !before.class.is_wrong() {
        res.push(ChangeKind::BecameWrong);
    }
    if before.class.is_wrong() && !after.class.is_wrong() {
        res.push(ChangeKind::NoLongerWrong);
    }
    if before.class.is_correct() && !after.class.is_correct() {
        res.push(ChangeKind::NewlyLost);
    }
    if after.class.is_correct() && !before.class.is_correct() {
        res.push(ChangeKind::NewlyProved);
    }
    let unknown = |r: &Record| matches!(r.class, Class::Unknown | Class::NotApplicable);
    if unknown(before)
        && unknown(after)
        && before.verdict == after.verdict
        && before.reason != after.reason
    {
        res.push(ChangeKind::ReasonChanged);
    }
    if after.cpu_s > 2.0 * before.cpu_s && after.cpu_s - before.cpu_s >= 0.1 {
        res.push(ChangeKind::Slower);
    }
    if before.cpu_s > 2.0 * after.cpu_s && before.cpu_s - after.cpu_s >= 0.1 {
        res.push(ChangeKind::Faster);
    }
    res
}

fn describe(record: &Record) -> String {
    let what = match (record.class, record.reason) {
        (Class::Unknown | Class::NotApplicable, Some(reason)) => {
            format!("{} ({reason})", record.verdict.as_str())
        }
        (class, _) => class.as_str().to_string(),
    };
    format!("{what}, {:.2}s", record.cpu_s)
}

/// Renders the comparison as text.
pub fn render(comparison: &Comparison) -> String {
    let mut out = String::new();
    let mut counts: BTreeMap<ChangeKind, usize> = BTreeMap::new();
    for change in &comparison.changes {
        *counts.entry(change.kind).or_default() += 1;
    }
    let _ = writeln!(
        out,
        "== compared with the old run: {} rows matched, {} only in the old run, {} only in the new ==",
        comparison.n_matched, comparison.only_old, comparison.only_new
    );
    if comparison.changes.is_empty() {
        out.push_str("no change\n");
        return out;
    }
    let mut current = None;
    for change in &comparison.changes {
        if current != Some(change.kind) {
            current = Some(change.kind);
            let _ = writeln!(out, "{} ({}):", change.kind.title(), counts[&change.kind]);
        }
        let _ = writeln!(
            out,
            "  {} [{}]: {} -> {}",
            change.task, change.config, change.before, change.after
        );
    }
    out
}
