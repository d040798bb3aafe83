//! The file sections: each file's source with one mark per check beside its line, the loop
//! invariants beside their heads and the counterexamples' steps beside the lines they run
//! through. A file without findings lists its marked lines without its source, and long
//! stretches of unmarked lines are folded, so that the page stays small on a large project.

use super::model::{Counts, FileView, LineNotes, ProgramView};
use super::{esc, invariant_html, plural};
use crate::check::{Counterexample, MergedCheck, Verdict};
use crate::report::{kind_label, search_note, verdict_word, warning_line};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Counterexample steps shown beside one line, at most (the rest are counted, for
/// readability).
const MAX_STEPS_PER_LINE: usize = 4;
/// Inputs listed under a violated check, at most (for readability).
const MAX_INPUTS: usize = 50;
/// Unmarked lines shown before and after a marked one; longer stretches are folded.
const CONTEXT_LINES: u32 = 3;

/// The section of one program.
pub(super) fn write_program(
    out: &mut String,
    view: &ProgramView,
    several: bool,
    open_files: bool,
    sources: &BTreeMap<String, String>,
) {
    let program = view.report;
    let _ = writeln!(out, "<section class=\"program\" id=\"p{}\">", view.index);
    if several {
        let _ = writeln!(out, "<h2>program {}</h2>", esc(&program.name));
    }
    if let Some(e) = &program.error {
        let _ = writeln!(out, "<p class=\"error\">not analyzed: {}</p>", esc(e));
    }
    if !program.warnings.is_empty() {
        let n = program.warnings.len();
        let _ = write!(
            out,
            "<details class=\"warnings\"><summary>{n} warning{}</summary><ul>\n",
            plural(n)
        );
        for w in &program.warnings {
            let function = program.function_name(&w.function);
            let _ = writeln!(out, "<li>{}</li>", esc(&warning_line(w, function)));
        }
        out.push_str("</ul></details>\n");
    }
    if !view.unplaced_checks.is_empty() || !view.unplaced_loops.is_empty() {
        let _ = writeln!(
            out,
            "<div class=\"unplaced\" id=\"{}\"><h3>without a source line</h3>",
            view.unplaced_id()
        );
        for (c, cex) in &view.unplaced_checks {
            let _ = writeln!(
                out,
                "<div class=\"note\">{}</div>",
                mark_html(view, c, *cex, false)
            );
        }
        for inv in &view.unplaced_loops {
            let _ = writeln!(out, "<div class=\"note\">{}</div>", loop_html(view, inv));
        }
        out.push_str("</div>\n");
    }
    for file in &view.files {
        write_file(out, view, file, open_files, sources);
    }
    out.push_str("</section>\n");
}

fn write_file(
    out: &mut String,
    view: &ProgramView,
    file: &FileView,
    open: bool,
    sources: &BTreeMap<String, String>,
) {
    let _ =
        writeln!(
        out,
        "<details class=\"file\" id=\"{}\" data-file=\"{}\"{}><summary><h3>{}</h3> {}</summary>",
        file.id,
        esc(file.path),
        if open && file.show_source { " open" } else { "" },
        esc(file.path),
        counts_text(&file.counts)
    );
    match sources.get(file.path).filter(|_| file.show_source) {
        Some(text) => write_source(out, view, file, text),
        None => {
            let why = if file.show_source {
                "source not available"
            } else {
                "every check proved: marked lines only"
            };
            let _ = writeln!(out, "<p class=\"dim\">({why})</p>");
            out.push_str("<div class=\"source\">\n");
            for (line, notes) in &file.lines {
                write_line(out, view, &file.id, *line, "", notes);
            }
            out.push_str("</div>\n");
        }
    }
    out.push_str("</details>\n");
}

/// `3 checks: 2 proved, 1 unknown` (only the verdicts that occur).
fn counts_text(c: &Counts) -> String {
    let mut parts = Vec::new();
    for (word, n) in [
        ("proved", c.proved),
        ("violated", c.violated),
        ("holds if", c.holds_if),
        ("unknown", c.unknown),
    ] {
        if n > 0 {
            let class = word.replace(' ', "-");
            parts.push(format!("<span class=\"{class}\">{n} {word}</span>"));
        }
    }
    let n = c.total();
    if n == 0 {
        return "<span class=\"dim\">no checks</span>".to_string();
    }
    format!(
        "<span class=\"counts\">{n} check{}: {}</span>",
        plural(n),
        parts.join(", ")
    )
}

/// The source with every line that has notes marked; unmarked stretches longer than twice
/// the context are folded in a `details`.
fn write_source(out: &mut String, view: &ProgramView, file: &FileView, text: &str) {
    out.push_str("<div class=\"source\">\n");
    let lines: Vec<&str> = text.lines().collect();
    let last = lines.len() as u32;
    let mut next = 1u32;
    let marked: Vec<u32> = file.lines.keys().copied().collect();
    for (i, &line) in marked.iter().enumerate() {
        if line > last {
            break;
        }
        write_unmarked(out, &lines, next, line, i == 0, false);
        write_line(
            out,
            view,
            &file.id,
            line,
            lines[line as usize - 1],
            &file.lines[&line],
        );
        next = line + 1;
    }
    write_unmarked(out, &lines, next, last + 1, next == 1, true);
    // Notes past the end of the text (a file changed since it was compiled).
    for (line, notes) in file.lines.range(last + 1..) {
        write_line(out, view, &file.id, *line, "", notes);
    }
    out.push_str("</div>\n");
}

/// The unmarked lines `from..to` (1-based, `to` excluded): shown near a marked line, folded
/// in between. `at_start`/`at_end`: no marked line before/after them.
fn write_unmarked(
    out: &mut String,
    lines: &[&str],
    from: u32,
    to: u32,
    at_start: bool,
    at_end: bool,
) {
    if from >= to {
        return;
    }
    let keep_before = if at_start { 0 } else { CONTEXT_LINES };
    let keep_after = if at_end { 0 } else { CONTEXT_LINES };
    let n = to - from;
    if n <= keep_before + keep_after + 2 {
        write_run(out, lines, from, to);
        return;
    }
    write_run(out, lines, from, from + keep_before);
    let (fold_from, fold_to) = (from + keep_before, to - keep_after);
    let _ = write!(
        out,
        "<details class=\"gap\"><summary>{} lines ({}&ndash;{})</summary>",
        fold_to - fold_from,
        fold_from,
        fold_to - 1
    );
    write_run(out, lines, fold_from, fold_to);
    out.push_str("</details>\n");
    write_run(out, lines, fold_to, to);
}

/// Unmarked lines as one block; the script numbers them from `data-from`.
fn write_run(out: &mut String, lines: &[&str], from: u32, to: u32) {
    if from >= to {
        return;
    }
    let _ = write!(
        out,
        "<div class=\"run\" data-from=\"{from}\"><pre class=\"code\">"
    );
    for line in &lines[from as usize - 1..to as usize - 1] {
        out.push_str(&esc(line));
        out.push('\n');
    }
    out.push_str("</pre></div>\n");
}

fn write_line(
    out: &mut String,
    view: &ProgramView,
    file_id: &str,
    line: u32,
    text: &str,
    notes: &LineNotes,
) {
    let class = notes
        .verdict()
        .map_or_else(String::new, |v| format!(" line-{v}"));
    let looped = !notes.loops.is_empty();
    let stepped = !notes.steps.is_empty() || !notes.inputs.is_empty();
    let _ = write!(
        out,
        "<div class=\"line{class}{}{}\" id=\"{file_id}-L{line}\" data-line=\"{line}\">\
         <a class=\"ln\" href=\"#{file_id}-L{line}\">{line}</a><pre class=\"code\">{}</pre><div class=\"notes\">",
        if looped { " line-loop" } else { "" },
        if stepped { " line-step" } else { "" },
        esc(text)
    );
    let several = notes.checks.len() > 1;
    for (c, cex) in &notes.checks {
        out.push_str(&mark_html(view, c, *cex, several));
    }
    for inv in &notes.loops {
        let _ = write!(
            out,
            "<div class=\"note loop\">{}</div>",
            loop_html(view, inv)
        );
    }
    write_trace_notes(out, &notes.inputs, "input", "inputs");
    write_trace_notes(out, &notes.steps, "step", "steps of the trace");
    out.push_str("</div></div>\n");
}

/// Inputs or steps of counterexamples on one line, at most [`MAX_STEPS_PER_LINE`].
fn write_trace_notes(out: &mut String, notes: &[(usize, usize, String)], what: &str, more: &str) {
    if notes.is_empty() {
        return;
    }
    out.push_str("<div class=\"note steps\">");
    for (cex, n, text) in notes.iter().take(MAX_STEPS_PER_LINE) {
        let _ = write!(
            out,
            "<div class=\"step\"><span class=\"step-no\">#{cex} {what} {n}</span> {text}</div>"
        );
    }
    if notes.len() > MAX_STEPS_PER_LINE {
        let _ = write!(
            out,
            "<div class=\"step dim\">... {} more {more} here</div>",
            notes.len() - MAX_STEPS_PER_LINE
        );
    }
    out.push_str("</div>");
}

fn loop_html(view: &ProgramView, inv: &crate::check::LoopInvariant) -> String {
    format!(
        "<span class=\"loop-label\">{} <span class=\"func\">{}</span></span> \
         <code class=\"invariant\">{}</code>",
        esc(&crate::report::loop_name(inv)),
        esc(view.report.function_name(&inv.function)),
        invariant_html(&inv.text)
    )
}

/// One check's mark: its verdict and kind, what misbehaves (and its column when the line
/// has several checks), its function and contexts; the reason of an unknown check; details
/// on demand (the counterexample search's note, each context).
fn mark_html(
    view: &ProgramView,
    c: &MergedCheck,
    cex_number: Option<usize>,
    with_column: bool,
) -> String {
    let program = view.report;
    let word = verdict_word(c.verdict());
    let class = super::verdict_class(c.verdict());
    let deciding = c.deciding();
    let mut what = c.kind().runtime_error().unwrap_or_default();
    if let Some(column) = c.loc().map(|l| l.column).filter(|c| with_column && *c > 0) {
        what = format!("{what} (column {column})").trim_start().to_string();
    }
    let mut out = format!(
        "<div class=\"mk\" data-verdict=\"{class}\" data-kind=\"{}\">\
         <span class=\"mark {class}\" data-check=\"{}\">{word}</span> <span class=\"kind\">{}</span> \
         <span class=\"what\">{}</span> <span class=\"func\">{}</span>",
        c.class().name(),
        deciding.check.0,
        kind_label(c.class()),
        esc(&what),
        esc(program.function_name(&deciding.function))
    );
    if let Some(note) = c.contexts_note() {
        let _ = write!(out, " <span class=\"ctx\">{}</span>", esc(&note));
    }
    let details = details_html(view, c);
    let more = if details.is_empty() {
        String::new()
    } else {
        format!("<details class=\"more\"><summary>details</summary>{details}</details>")
    };
    match c.verdict() {
        Verdict::Proved => out.push_str(&more),
        Verdict::HoldsIf(precondition) => {
            let _ = write!(
                out,
                "<div class=\"reason\">if <code>{}</code> at the entry of <code>{}</code>{}{more}</div>",
                esc(&precondition.expr),
                esc(program.function_name(&deciding.function)),
                crate::report::precondition_note(precondition)
                    .map_or_else(String::new, |n| esc(&format!(" ({n})")))
            );
        }
        Verdict::Unknown(reason) => {
            let _ = write!(
                out,
                "<div class=\"reason\">{}{more}</div>",
                esc(&reason.to_string())
            );
        }
        Verdict::Violated(cex) => {
            let _ = write!(
                out,
                "<div class=\"reason\">counterexample #{}, {}{more}</div>",
                cex_number.unwrap_or(0),
                esc(&cex.confirmed_by)
            );
            out.push_str(&inputs_html(cex));
        }
    }
    out.push_str("</div>");
    out
}

/// What a mark shows on demand: what the counterexample search said, and the contexts
/// grouped by verdict and reason.
fn details_html(view: &ProgramView, c: &MergedCheck) -> String {
    let program = view.report;
    let mut out = String::new();
    if let Some(note) = search_note(&program.analysis, c.deciding()) {
        let _ = write!(out, "<div>counterexample search: {}</div>", esc(note));
    }
    if c.contexts().len() > 1 {
        // Contexts with the same verdict and reason in one row, each function once with
        // the number of its copies.
        let mut rows: Vec<(String, usize, Vec<(&str, usize)>)> = Vec::new();
        for r in c.contexts() {
            let head = match &r.verdict {
                Verdict::Unknown(reason) => format!("unknown ({reason})"),
                Verdict::HoldsIf(precondition) => format!("holds if {precondition}"),
                v => verdict_word(v).to_string(),
            };
            let function = program.function_name(&r.function);
            let at = match rows.iter().position(|(h, _, _)| *h == head) {
                Some(at) => at,
                None => {
                    rows.push((head, 0, Vec::new()));
                    rows.len() - 1
                }
            };
            let (_, n, functions) = &mut rows[at];
            *n += 1;
            match functions.iter_mut().find(|(f, _)| *f == function) {
                Some((_, copies)) => *copies += 1,
                None => functions.push((function, 1)),
            }
        }
        out.push_str("<ul class=\"ctx-list\">");
        for (head, n, functions) in rows {
            let names: Vec<String> = functions
                .iter()
                .map(|(f, copies)| match copies {
                    1 => f.to_string(),
                    k => format!("{f} \u{d7}{k}"),
                })
                .collect();
            let _ = write!(
                out,
                "<li>{} in {n}: <span class=\"func\">{}</span></li>",
                esc(&head),
                esc(&names.join(", "))
            );
        }
        out.push_str("</ul>");
    }
    out
}

fn inputs_html(cex: &Counterexample) -> String {
    let mut out = String::from("<details class=\"inputs\"><summary>");
    let n = cex.args.len() + cex.inputs.len();
    let _ = write!(out, "{n} input{}</summary><ol>", plural(n));
    for a in &cex.args {
        let _ = write!(
            out,
            "<li>argument {} = <b>{}</b> (i{})</li>",
            esc(&a.function),
            a.value,
            a.width
        );
    }
    for v in cex.inputs.iter().take(MAX_INPUTS) {
        let at = v
            .loc
            .as_ref()
            .map_or_else(String::new, |l| format!(" at line {}", l.line));
        let _ = write!(
            out,
            "<li>{}() = <b>{}</b> (i{}){at}</li>",
            esc(&v.function),
            v.value,
            v.width
        );
    }
    if cex.inputs.len() > MAX_INPUTS {
        let _ = write!(out, "<li>... {} more</li>", cex.inputs.len() - MAX_INPUTS);
    }
    out.push_str("</ol></details>");
    out
}
