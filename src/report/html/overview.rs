//! The overview the page opens on: totals by verdict and kind, a chart per directory and
//! file, the violations, then the unknown checks grouped by reason, each a link to its mark.

use super::model::{Counts, Placed, ProgramView};
use super::{esc, plural};
use crate::check::{BudgetLimit, UnknownReason, Verdict};
use crate::ir::CheckClass;
use crate::report::kind_label;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Links listed under one reason, at most (the rest are counted; every mark is in its file).
const MAX_LINKS_PER_REASON: usize = 200;

/// The overview section.
pub(super) fn write_overview(out: &mut String, views: &[ProgramView], placed: &[Placed]) {
    out.push_str("<section id=\"overview\">\n");
    write_totals(out, placed);
    write_files(out, views);
    write_violations(out, placed);
    write_unknowns(out, placed);
    out.push_str("</section>\n");
}

/// The table of checks by kind and verdict.
fn write_totals(out: &mut String, placed: &[Placed]) {
    let mut by_kind: BTreeMap<CheckClass, Counts> = BTreeMap::new();
    let mut all = Counts::default();
    for p in placed {
        by_kind
            .entry(p.check.class())
            .or_default()
            .add(p.check.verdict());
        all.add(p.check.verdict());
    }
    out.push_str(
        "<h2>Checks</h2>\n<table class=\"totals\" id=\"totals\"><thead><tr><th>kind</th><th>checks</th>\
         <th>proved</th><th>violated</th><th>holds if</th><th>unknown</th><th></th></tr></thead><tbody>\n",
    );
    let row = |out: &mut String, name: &str, kind: &str, c: &Counts| {
        let _ = writeln!(
            out,
            "<tr data-kind=\"{kind}\"><th>{name}</th><td>{}</td><td class=\"proved\">{}</td>\
             <td class=\"violated\">{}</td><td class=\"holds-if\">{}</td><td class=\"unknown\">{}</td><td>{}</td></tr>",
            c.total(),
            c.proved,
            c.violated,
            c.holds_if,
            c.unknown,
            bar(c)
        );
    };
    for (class, counts) in &by_kind {
        row(out, kind_label(*class), class.name(), counts);
    }
    out.push_str("</tbody><tfoot>");
    row(out, "all", "all", &all);
    out.push_str("</tfoot></table>\n");
}

/// A stacked bar of the verdicts, widths in percent of the checks.
fn bar(c: &Counts) -> String {
    let total = c.total().max(1) as f64;
    let mut out = String::from("<span class=\"bar\">");
    for (class, n) in [
        ("p", c.proved),
        ("v", c.violated),
        ("h", c.holds_if),
        ("u", c.unknown),
    ] {
        if n > 0 {
            let _ = write!(
                out,
                "<i class=\"{class}\" style=\"width:{:.1}%\"></i>",
                100.0 * n as f64 / total
            );
        }
    }
    out.push_str("</span>");
    out
}

/// The files of each program, grouped by directory, each with its chart and counts.
fn write_files(out: &mut String, views: &[ProgramView]) {
    out.push_str(
        "<h2>Files</h2>\n<table class=\"files\" id=\"files\"><thead><tr><th>file</th><th></th>\
         <th>checks</th><th>proved</th><th>violated</th><th>holds if</th><th>unknown</th></tr></thead><tbody>\n",
    );
    for view in views {
        if views.len() > 1 {
            let _ = writeln!(
                out,
                "<tr class=\"program-row\"><th colspan=\"7\"><a href=\"#p{}\">program {}</a></th></tr>",
                view.index,
                esc(&view.report.name)
            );
        }
        let mut dirs: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (i, f) in view.files.iter().enumerate() {
            dirs.entry(directory(f.path)).or_default().push(i);
        }
        for (dir, files) in &dirs {
            if dirs.len() > 1 {
                let mut counts = Counts::default();
                for &i in files {
                    counts.merge(&view.files[i].counts);
                }
                let _ = writeln!(
                    out,
                    "<tr class=\"dir-row\"><th>{}</th><td>{}</td>{}</tr>",
                    esc(if dir.is_empty() { "." } else { dir }),
                    bar(&counts),
                    count_cells(&counts)
                );
            }
            for &i in files {
                let f = &view.files[i];
                let _ = writeln!(
                    out,
                    "<tr><td class=\"file-name\"><a href=\"#{}\">{}</a></td><td>{}</td>{}</tr>",
                    f.id,
                    esc(f.path),
                    bar(&f.counts),
                    count_cells(&f.counts)
                );
            }
        }
        if !view.unplaced_checks.is_empty() {
            let mut counts = Counts::default();
            for (c, _) in &view.unplaced_checks {
                counts.add(c.verdict());
            }
            let _ = writeln!(
                out,
                "<tr><td class=\"file-name\"><a href=\"#{}\">(no source line)</a></td><td>{}</td>{}</tr>",
                view.unplaced_id(),
                bar(&counts),
                count_cells(&counts)
            );
        }
    }
    out.push_str("</tbody></table>\n");
}

fn count_cells(c: &Counts) -> String {
    let cell = |class: &str, n: usize| {
        if n == 0 {
            format!("<td class=\"{class} zero\">0</td>")
        } else {
            format!("<td class=\"{class}\">{n}</td>")
        }
    };
    format!(
        "<td>{}</td>{}{}{}{}",
        c.total(),
        cell("proved", c.proved),
        cell("violated", c.violated),
        cell("holds-if", c.holds_if),
        cell("unknown", c.unknown)
    )
}

/// The directory part of a path (`src/lib` of `src/lib/util.c`, empty for `util.c`).
fn directory(path: &str) -> &str {
    path.rfind('/').map_or("", |at| &path[..at])
}

/// One link to a mark: place, kind, what misbehaves, function.
fn link(p: &Placed) -> String {
    let c = p.check;
    let place = c.loc().map_or_else(
        || "(no source line)".to_string(),
        |l| {
            if l.column > 0 {
                format!("{}:{}:{}", l.file, l.line, l.column)
            } else {
                format!("{}:{}", l.file, l.line)
            }
        },
    );
    let what = c
        .kind()
        .runtime_error()
        .map_or_else(String::new, |e| format!(" {}", esc(&e)));
    let cex = p.cex_number.map_or_else(String::new, |n| {
        format!(" <span class=\"dim\">counterexample #{n}</span>")
    });
    format!(
        "<li data-kind=\"{}\"><a href=\"#{}\">{}</a> <span class=\"kind\">{}</span>{what} \
         <span class=\"func\">{}</span>{cex}</li>",
        c.class().name(),
        p.anchor,
        esc(&place),
        kind_label(c.class()),
        esc(p.program.function_name(&c.deciding().function))
    )
}

/// The violated checks, each with its counterexample's number.
fn write_violations(out: &mut String, placed: &[Placed]) {
    let violated: Vec<&Placed> = placed
        .iter()
        .filter(|p| matches!(p.check.verdict(), Verdict::Violated(_)))
        .collect();
    let _ = writeln!(
        out,
        "<div class=\"findings\" data-verdict=\"violated\"><h2 id=\"violations\">Violations ({})</h2>",
        violated.len()
    );
    if violated.is_empty() {
        out.push_str("<p class=\"dim\">No check is violated.</p>\n");
    } else {
        out.push_str("<ul class=\"links\">\n");
        for p in violated {
            out.push_str(&link(p));
            out.push('\n');
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</div>\n");
}

/// What groups unknown checks: the reason without the details that differ from check to
/// check (places, invariants).
fn reason_group(reason: &UnknownReason) -> String {
    match reason {
        UnknownReason::Stopped(stop) => match &stop.limit {
            BudgetLimit::Time(_) | BudgetLimit::RunSpent => "time budget".to_string(),
            BudgetLimit::Memory(_) => "memory budget".to_string(),
            BudgetLimit::SolverWork => "budget of solver work".to_string(),
            BudgetLimit::FrontEnd(_) => "front end's size budget".to_string(),
        },
        UnknownReason::Imprecise | UnknownReason::ImpreciseAt { .. } => {
            "imprecise: the invariant does not exclude the error site".to_string()
        }
        UnknownReason::Unmodeled { what, .. } => {
            format!("unsupported: the error site depends on {what}")
        }
        UnknownReason::Unsupported(what) => format!("unsupported: {what}"),
        UnknownReason::InternalError(_) => "internal error".to_string(),
    }
}

/// The unknown checks grouped by reason, the largest group first.
fn write_unknowns(out: &mut String, placed: &[Placed]) {
    let mut groups: BTreeMap<String, Vec<&Placed>> = BTreeMap::new();
    let mut n = 0;
    for p in placed {
        if let Verdict::Unknown(reason) = p.check.verdict() {
            groups.entry(reason_group(reason)).or_default().push(p);
            n += 1;
        }
    }
    let _ = writeln!(
        out,
        "<div class=\"findings\" data-verdict=\"unknown\"><h2 id=\"unknowns\">Unknown, by reason ({n})</h2>"
    );
    if n == 0 {
        out.push_str("<p class=\"dim\">No check is unknown.</p>\n");
    }
    let mut groups: Vec<(String, Vec<&Placed>)> = groups.into_iter().collect();
    groups.sort_by_key(|(_, members)| std::cmp::Reverse(members.len()));
    for (reason, members) in groups {
        let _ = writeln!(
            out,
            "<details class=\"reason-group\"><summary><span class=\"n\">{}</span> {}</summary><ul class=\"links\">",
            members.len(),
            esc(&reason)
        );
        for p in members.iter().take(MAX_LINKS_PER_REASON) {
            out.push_str(&link(p));
            out.push('\n');
        }
        if members.len() > MAX_LINKS_PER_REASON {
            let more = members.len() - MAX_LINKS_PER_REASON;
            let _ = writeln!(
                out,
                "<li class=\"dim\">... {more} more check{} (marked in their files)</li>",
                plural(more)
            );
        }
        out.push_str("</ul></details>\n");
    }
    out.push_str("</div>\n");
}
