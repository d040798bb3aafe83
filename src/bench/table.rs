//! Summaries per suite and in total, configurations side by side, as a text table.

use super::classify::{Class, UnknownReason};
use super::json::RunFile;
use super::manifest::{Expected, Task};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// One task's result in a series.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// How the verdict compares with the expected one.
    pub class: Class,
    /// Why there is no verdict.
    pub reason: Option<UnknownReason>,
    /// CPU seconds (wall seconds for peers).
    pub cpu_s: f64,
    /// Peak memory in KiB, when measured.
    pub max_rss_kb: Option<u64>,
}

/// The results of one configuration (or one reference tool) over a set of tasks.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Row label.
    pub label: String,
    /// Whether this is a peer tool's result, shown for reference.
    pub reference: bool,
    /// Result per task name.
    pub entries: BTreeMap<String, Entry>,
}

/// The numbers in one row of a table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// Tasks with a result.
    pub n_tasks: usize,
    /// Verdict `true`, expected `true`.
    pub correct_true: usize,
    /// Verdict `false`, expected `false`.
    pub correct_false: usize,
    /// No verdict, on tasks with an expected verdict.
    pub unknown: usize,
    /// Verdict `true`, expected `false`.
    pub wrong_true: usize,
    /// Verdict `false`, expected `true`.
    pub wrong_false: usize,
    /// Tasks without an expected verdict.
    pub not_applicable: usize,
    /// SV-COMP score.
    pub score: i64,
    /// Sum of the times.
    pub time_total_s: f64,
    /// Median time per task.
    pub time_median_s: f64,
    /// Largest peak memory, in KiB (None when not measured).
    pub peak_rss_kb: Option<u64>,
    /// Unknowns per reason (tasks with an expected verdict only).
    pub reasons: BTreeMap<UnknownReason, usize>,
}

impl Summary {
    /// Summarizes some entries.
    pub fn of<'a>(entries: impl IntoIterator<Item = &'a Entry>) -> Summary {
        let mut res = Summary::default();
        let mut times = Vec::new();
        for entry in entries {
            res.n_tasks += 1;
            match entry.class {
                Class::CorrectTrue => res.correct_true += 1,
                Class::CorrectFalse => res.correct_false += 1,
                Class::WrongTrue => res.wrong_true += 1,
                Class::WrongFalse => res.wrong_false += 1,
                Class::NotApplicable => res.not_applicable += 1,
                Class::Unknown => {
                    res.unknown += 1;
                    let reason = entry.reason.unwrap_or(UnknownReason::Imprecise);
                    *res.reasons.entry(reason).or_default() += 1;
                }
            }
            res.score += entry.class.score();
            res.time_total_s += entry.cpu_s;
            times.push(entry.cpu_s);
            if let Some(kb) = entry.max_rss_kb {
                res.peak_rss_kb = Some(res.peak_rss_kb.unwrap_or(0).max(kb));
            }
        }
        res.time_median_s = median(&mut times);
        res
    }

    /// Correct verdicts, true and false.
    pub fn n_correct(&self) -> usize {
        self.correct_true + self.correct_false
    }

    /// Wrong verdicts, true and false.
    pub fn n_wrong(&self) -> usize {
        self.wrong_true + self.wrong_false
    }
}

/// Per configuration, what predicate refinement did: tasks where it ran, tasks
/// and assertions it proved, predicates and rounds per task, BDD variables with and
/// without register sharing, time. Empty when refinement never ran.
pub fn render_refinement(run: &RunFile) -> String {
    let mut out = String::new();
    for config in &run.configs {
        let rows: Vec<&super::json::RefinementRow> = run
            .rows
            .iter()
            .filter(|r| r.config == config.name)
            .filter_map(|r| r.refinement.as_ref())
            .filter(|r| r.rounds > 0)
            .collect();
        if rows.is_empty() {
            continue;
        }
        let stat = |f: &dyn Fn(&super::json::RefinementRow) -> u64| {
            let mut v: Vec<f64> = rows.iter().map(|r| f(r) as f64).collect();
            let max = v.iter().copied().fold(0.0, f64::max);
            (median(&mut v), max)
        };
        let (pred_med, pred_max) = stat(&|r| r.predicates);
        let (round_med, round_max) = stat(&|r| r.rounds);
        let (ms_med, ms_max) = stat(&|r| r.millis);
        let shared: u64 = rows.iter().map(|r| r.bdd_vars).sum();
        let unshared: u64 = rows.iter().map(|r| r.bdd_vars_unshared).sum();
        let proved_tasks = rows.iter().filter(|r| r.proved > 0).count();
        let proved: u64 = rows.iter().map(|r| r.proved).sum();
        let _ = writeln!(
            out,
            "\nrefinement [{}]: ran on {} tasks, proved {} assertions on {} tasks; predicates per task median {} max {}; rounds median {} max {}; BDD variables {} with register sharing, {} without; time median {} ms max {} ms",
            config.name,
            rows.len(),
            proved,
            proved_tasks,
            pred_med,
            pred_max,
            round_med,
            round_max,
            shared,
            unshared,
            ms_med,
            ms_max
        );
    }
    out
}

/// The median of some numbers (0 for none; the mean of the middle two for an even count).
pub fn median(values: &mut [f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    }
}

/// The series of a run, one per configuration, in command-line order.
pub fn run_series(run: &RunFile) -> Vec<Series> {
    run.configs
        .iter()
        .map(|config| Series {
            label: config.name.clone(),
            reference: false,
            entries: run
                .rows
                .iter()
                .filter(|r| r.config == config.name)
                .map(|r| {
                    let entry = Entry {
                        class: r.class,
                        reason: r.reason,
                        cpu_s: r.cpu_s,
                        max_rss_kb: Some(r.max_rss_kb),
                    };
                    (r.task.clone(), entry)
                })
                .collect(),
        })
        .collect()
}

/// Renders one table per suite and one for the total, the series as rows.
pub fn render(tasks: &[&Task], series: &[Series]) -> String {
    let mut suites: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for task in tasks {
        suites.entry(&task.suite).or_default().insert(&task.name);
    }
    let all: BTreeSet<&str> = tasks.iter().map(|t| t.name.as_str()).collect();
    let mut out = String::new();
    let expected_of: BTreeMap<&str, Expected> = tasks
        .iter()
        .map(|t| (t.name.as_str(), t.expected))
        .collect();
    let mut groups: Vec<(String, &BTreeSet<&str>)> = suites
        .iter()
        .map(|(s, t)| (format!("suite {s}"), t))
        .collect();
    if suites.len() > 1 || suites.is_empty() {
        groups.push(("total".to_string(), &all));
    }
    for (title, names) in groups {
        let count = |e: Expected| names.iter().filter(|n| expected_of[**n] == e).count();
        let (n_true, n_false, n_na) = (
            count(Expected::True),
            count(Expected::False),
            count(Expected::NotApplicable),
        );
        let _ = writeln!(
            out,
            "== {title}: {} tasks ({n_true} true, {n_false} false, {n_na} without verdict; best possible score {}) ==",
            names.len(),
            2 * n_true + n_false
        );
        render_group(&mut out, names, series);
        out.push('\n');
    }
    if series.iter().any(|s| s.reference) {
        out.push_str(
            "Reference rows (indented) are peers' published results on the same tasks; their times are wall-clock seconds.\n",
        );
    }
    out
}

const HEADER: [&str; 11] = [
    "configuration",
    "tasks",
    "ok-true",
    "ok-false",
    "unknown",
    "wrong",
    "score",
    "time-total",
    "time-median",
    "peak-mem",
    "unknown reasons",
];

fn render_group(out: &mut String, names: &BTreeSet<&str>, series: &[Series]) {
    let mut rows: Vec<[String; 11]> = Vec::new();
    for s in series {
        let summary = Summary::of(
            s.entries
                .iter()
                .filter(|(task, _)| names.contains(task.as_str()))
                .map(|(_, e)| e),
        );
        let label = if s.reference {
            format!("  {}", s.label)
        } else {
            s.label.clone()
        };
        let reasons: Vec<String> = UnknownReason::ALL
            .iter()
            .filter_map(|r| summary.reasons.get(r).map(|n| format!("{r} {n}")))
            .collect();
        let mut reasons = reasons.join(", ");
        if summary.not_applicable > 0 {
            if !reasons.is_empty() {
                reasons.push_str("; ");
            }
            reasons.push_str(&format!("{} without verdict", summary.not_applicable));
        }
        rows.push([
            label,
            summary.n_tasks.to_string(),
            summary.correct_true.to_string(),
            summary.correct_false.to_string(),
            summary.unknown.to_string(),
            summary.n_wrong().to_string(),
            summary.score.to_string(),
            format!("{:.2}s", summary.time_total_s),
            format!("{:.3}s", summary.time_median_s),
            match summary.peak_rss_kb {
                Some(kb) => format!("{:.0}MB", kb as f64 / 1024.0),
                None => "-".to_string(),
            },
            reasons,
        ]);
    }
    let mut widths: Vec<usize> = HEADER.iter().map(|h| h.chars().count()).collect();
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row.iter()) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut line = |cells: &[String]| {
        let mut text = String::new();
        for (idx, cell) in cells.iter().enumerate() {
            let pad = widths[idx] - cell.chars().count();
            if idx == 0 || idx == cells.len() - 1 {
                text.push_str(cell);
                text.push_str(&" ".repeat(pad));
            } else {
                text.push_str(&" ".repeat(pad));
                text.push_str(cell);
            }
            text.push_str("  ");
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(&HEADER.map(String::from));
    for row in &rows {
        line(row);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(class: Class, reason: Option<UnknownReason>, cpu_s: f64) -> Entry {
        Entry {
            class,
            reason,
            cpu_s,
            max_rss_kb: Some(2048),
        }
    }

    #[test]
    fn summary_counts_and_scores() {
        let entries = [
            entry(Class::CorrectTrue, None, 1.0),
            entry(Class::CorrectFalse, None, 2.0),
            entry(Class::Unknown, Some(UnknownReason::Timeout), 10.0),
            entry(Class::WrongTrue, None, 3.0),
        ];
        let s = Summary::of(&entries);
        assert_eq!(
            (s.correct_true, s.correct_false, s.unknown, s.wrong_true),
            (1, 1, 1, 1)
        );
        assert_eq!(s.score, 2 + 1 - 32);
        assert_eq!(s.time_median_s, 2.5);
        assert_eq!(s.reasons[&UnknownReason::Timeout], 1);
        assert_eq!(s.peak_rss_kb, Some(2048));
    }
}
