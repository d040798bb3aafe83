//! The annotated-source report (issue 13): one self-contained HTML file (inline CSS, a few
//! lines of inline JS, nothing fetched) that shows each source file with every assertion
//! marked proved / violated / unknown (with its reason), the invariant of each loop beside
//! its head's line, and each counterexample as steps beside the lines it runs through.
//!
//! The page is built from the report data and the source texts the caller read: this
//! module does no IO. Every text that comes from the program or the analysis is escaped.
//!
//! Each source line is a `div` with `id="pP-fF-LN"` (program P, file F, line N; all from
//! 0 except N) and `data-line="N"`; a line with assertions has the class
//! `line-proved`, `line-violated` or `line-unknown` (the worst of its assertions), and each
//! assertion is a `span.mark` with `data-verdict` inside the line's annotations. Tests and
//! tools find the marks by these names.

use super::project::ProgramReport;
use super::{program_reason, verdict_word, warning_text, RunInfo};
use crate::check::{Counterexample, ProgramVerdict, Verdict};
use crate::ir::SourceLoc;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// Counterexample steps shown beside one line, at most (the rest are counted, for
/// readability).
const MAX_STEPS_PER_LINE: usize = 4;
/// Inputs listed under a violated assertion, at most (for readability).
const MAX_INPUTS: usize = 50;

/// The files the report's locations name, in order, for the caller to read.
pub fn html_source_files(programs: &[ProgramReport]) -> Vec<String> {
    let mut files = BTreeSet::new();
    for p in programs {
        for loc in locations(p) {
            if !loc.file.is_empty() {
                files.insert(loc.file.clone());
            }
        }
    }
    files.into_iter().collect()
}

fn locations(p: &ProgramReport) -> impl Iterator<Item = &SourceLoc> {
    let checks = p.analysis.results.iter().flat_map(|r| r.loc.iter());
    let loops = p.analysis.loop_invariants.iter().flat_map(|i| i.loc.iter());
    let steps = p.analysis.results.iter().flat_map(|r| match &r.verdict {
        Verdict::Violated(cex) => cex
            .steps
            .iter()
            .flat_map(|s| s.loc.iter())
            .chain(cex.inputs.iter().flat_map(|v| v.loc.iter()))
            .collect::<Vec<_>>(),
        _ => Vec::new(),
    });
    checks.chain(loops).chain(steps)
}

/// What is written beside one source line.
#[derive(Default)]
struct LineNotes {
    /// `(verdict word, html)` per assertion on the line.
    checks: Vec<(&'static str, String)>,
    /// Loop invariants whose head is on the line.
    loops: Vec<String>,
    /// Counterexample steps on the line: `(counterexample number, step number, values)`.
    steps: Vec<(usize, usize, String)>,
    /// Counterexample inputs requested on the line: `(counterexample, input number, text)`.
    inputs: Vec<(usize, usize, String)>,
}

impl LineNotes {
    /// The worst verdict of the line's assertions.
    fn verdict(&self) -> Option<&'static str> {
        ["violated", "unknown", "proved"]
            .into_iter()
            .find(|w| self.checks.iter().any(|(v, _)| v == w))
    }
}

/// The HTML report of a run. `sources` maps a file name as the locations spell it to its
/// text; a file missing from it is listed with its notes but without its lines.
pub fn html(
    programs: &[ProgramReport],
    sources: &BTreeMap<String, String>,
    info: &RunInfo,
) -> String {
    let results = super::all_results(programs);
    let count = |w: &str| {
        results
            .iter()
            .filter(|r| verdict_word(&r.verdict) == w)
            .count()
    };
    let verdict = ProgramVerdict::of(&results);
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<title>polyfocus report</title>\n<style>\n");
    out.push_str(CSS);
    out.push_str("</style>\n</head>\n<body>\n<header>\n<h1>polyfocus report</h1>\n");
    let _ = writeln!(
        out,
        "<p class=\"summary\" id=\"summary\">{} assertion{}: <span class=\"count proved\">{} proved</span>, \
         <span class=\"count violated\">{} violated</span>, <span class=\"count unknown\">{} unknown</span>; \
         verdict <b class=\"verdict-{v}\">{v}</b>{reason} <span class=\"dim\">({} + {}, {:.2} s)</span></p>",
        results.len(),
        if results.len() == 1 { "" } else { "s" },
        count("proved"),
        count("violated"),
        count("unknown"),
        esc(info.engine),
        esc(info.domain),
        info.elapsed.as_secs_f64(),
        v = verdict.as_str(),
        reason = program_reason(&results)
            .map_or_else(String::new, |r| format!(" ({})", esc(r))),
    );
    out.push_str("</header>\n<main>\n");
    for (p_idx, program) in programs.iter().enumerate() {
        write_program(&mut out, p_idx, program, programs.len() > 1, sources);
    }
    out.push_str("</main>\n<script>\n");
    out.push_str(JS);
    out.push_str("</script>\n</body>\n</html>\n");
    out
}

fn write_program(
    out: &mut String,
    p_idx: usize,
    program: &ProgramReport,
    several: bool,
    sources: &BTreeMap<String, String>,
) {
    let _ = writeln!(out, "<section class=\"program\" id=\"p{p_idx}\">");
    if several {
        let _ = writeln!(out, "<h2>program {}</h2>", esc(&program.name));
    }
    if let Some(e) = &program.error {
        let _ = writeln!(out, "<p class=\"error\">not analyzed: {}</p>", esc(e));
    }
    // The notes of each line of each file.
    let mut notes: BTreeMap<&str, BTreeMap<u32, LineNotes>> = BTreeMap::new();
    let mut unplaced: Vec<String> = Vec::new();
    let analysis = &program.analysis;
    let mut cex_number = 0;
    for r in &analysis.results {
        let word = verdict_word(&r.verdict);
        let mut note = format!(
            "<span class=\"mark {word}\" data-verdict=\"{word}\" data-check=\"{}\">{word}</span> \
             <span class=\"func\">{}</span>",
            r.check.0,
            esc(&r.function)
        );
        match &r.verdict {
            Verdict::Proved => {}
            Verdict::Unknown(reason) => {
                let _ = write!(
                    note,
                    "<div class=\"reason\">{}</div>",
                    esc(&reason.to_string())
                );
            }
            Verdict::Violated(cex) => {
                cex_number += 1;
                let _ = write!(
                    note,
                    "<div class=\"reason\">counterexample #{cex_number}, {}</div>",
                    esc(&cex.confirmed_by)
                );
                note.push_str(&inputs_html(cex));
                add_steps(&mut notes, cex_number, cex);
            }
        }
        match &r.loc {
            Some(loc) if loc.line > 0 => notes
                .entry(&loc.file)
                .or_default()
                .entry(loc.line)
                .or_default()
                .checks
                .push((word, note)),
            _ => unplaced.push(note),
        }
    }
    for inv in &analysis.loop_invariants {
        let note = format!(
            "<span class=\"loop-label\">{} <span class=\"func\">{}</span></span> \
             <code class=\"invariant\">{}</code>",
            esc(&super::loop_name(inv)),
            esc(&inv.function),
            invariant_html(&inv.text)
        );
        match &inv.loc {
            Some(loc) if loc.line > 0 => notes
                .entry(&loc.file)
                .or_default()
                .entry(loc.line)
                .or_default()
                .loops
                .push(note),
            _ => unplaced.push(note),
        }
    }
    if !program.warnings.is_empty() {
        out.push_str("<details class=\"warnings\"><summary>");
        let n = program.warnings.len();
        let _ = write!(out, "{n} warning{}", if n == 1 { "" } else { "s" });
        out.push_str("</summary><ul>\n");
        for w in &program.warnings {
            let _ = writeln!(out, "<li>{}</li>", esc(&warning_text(w)));
        }
        out.push_str("</ul></details>\n");
    }
    if !unplaced.is_empty() {
        out.push_str("<div class=\"unplaced\"><h3>without a source line</h3>\n");
        for n in &unplaced {
            let _ = writeln!(out, "<div class=\"note\">{n}</div>");
        }
        out.push_str("</div>\n");
    }
    for (f_idx, (file, lines)) in notes.iter().enumerate() {
        let id = format!("p{p_idx}-f{f_idx}");
        let _ = writeln!(
            out,
            "<section class=\"file\" id=\"{id}\" data-file=\"{}\">\n<h3>{}</h3>",
            esc(file),
            esc(file)
        );
        match sources.get(*file) {
            Some(text) => write_source(out, &id, text, lines),
            None => {
                out.push_str(
                    "<p class=\"dim\">(source not available)</p>\n<div class=\"source\">\n",
                );
                for (line, n) in lines {
                    write_line(out, &id, *line, "", Some(n));
                }
                out.push_str("</div>\n");
            }
        }
        out.push_str("</section>\n");
    }
    out.push_str("</section>\n");
}

/// Puts each step of a counterexample beside its line.
fn add_steps<'a>(
    notes: &mut BTreeMap<&'a str, BTreeMap<u32, LineNotes>>,
    cex_number: usize,
    cex: &'a Counterexample,
) {
    for (i, input) in cex.inputs.iter().enumerate() {
        let Some(loc) = input.loc.as_ref().filter(|l| l.line > 0) else {
            continue;
        };
        notes
            .entry(&loc.file)
            .or_default()
            .entry(loc.line)
            .or_default()
            .inputs
            .push((
                cex_number,
                i + 1,
                format!("{}() = {}", esc(&input.function), input.value),
            ));
    }
    let mut step_number = 0;
    for step in &cex.steps {
        if let [(name, n)] = step.values.as_slice() {
            if step.loc.is_none() && name == "<omitted steps>" {
                step_number += *n as usize;
                continue;
            }
        }
        step_number += 1;
        let Some(loc) = step.loc.as_ref().filter(|l| l.line > 0) else {
            continue;
        };
        let values: Vec<String> = step
            .values
            .iter()
            .map(|(k, v)| format!("{}={v}", esc(k)))
            .collect();
        notes
            .entry(&loc.file)
            .or_default()
            .entry(loc.line)
            .or_default()
            .steps
            .push((cex_number, step_number, values.join(" ")));
    }
}

fn inputs_html(cex: &Counterexample) -> String {
    let mut out = String::from("<details class=\"inputs\"><summary>");
    let n = cex.args.len() + cex.inputs.len();
    let _ = write!(
        out,
        "{n} input{}</summary><ol>",
        if n == 1 { "" } else { "s" }
    );
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

fn write_source(out: &mut String, id: &str, text: &str, notes: &BTreeMap<u32, LineNotes>) {
    out.push_str("<div class=\"source\">\n");
    let mut last = 0;
    for (i, line_text) in text.lines().enumerate() {
        let line = i as u32 + 1;
        last = line;
        write_line(out, id, line, line_text, notes.get(&line));
    }
    // Notes past the end of the text (a file changed since it was compiled).
    for (line, n) in notes.range(last + 1..) {
        write_line(out, id, *line, "", Some(n));
    }
    out.push_str("</div>\n");
}

fn write_line(out: &mut String, id: &str, line: u32, text: &str, notes: Option<&LineNotes>) {
    let class = notes
        .and_then(LineNotes::verdict)
        .map_or_else(String::new, |v| format!(" line-{v}"));
    let looped = notes.is_some_and(|n| !n.loops.is_empty());
    let stepped = notes.is_some_and(|n| !n.steps.is_empty() || !n.inputs.is_empty());
    let _ = write!(
        out,
        "<div class=\"line{class}{}{}\" id=\"{id}-L{line}\" data-line=\"{line}\">\
         <a class=\"ln\" href=\"#{id}-L{line}\">{line}</a><pre class=\"code\">{}</pre>",
        if looped { " line-loop" } else { "" },
        if stepped { " line-step" } else { "" },
        esc(text)
    );
    if let Some(n) = notes {
        out.push_str("<div class=\"notes\">");
        for (_, c) in &n.checks {
            let _ = write!(out, "<div class=\"note check\">{c}</div>");
        }
        for l in &n.loops {
            let _ = write!(out, "<div class=\"note loop\">{l}</div>");
        }
        if !n.inputs.is_empty() {
            out.push_str("<div class=\"note steps\">");
            for (cex, input, text) in n.inputs.iter().take(MAX_STEPS_PER_LINE) {
                let _ = write!(
                    out,
                    "<div class=\"step\"><span class=\"step-no\">#{cex} input {input}</span> {text}</div>"
                );
            }
            if n.inputs.len() > MAX_STEPS_PER_LINE {
                let _ = write!(
                    out,
                    "<div class=\"step dim\">... {} more inputs here</div>",
                    n.inputs.len() - MAX_STEPS_PER_LINE
                );
            }
            out.push_str("</div>");
        }
        if !n.steps.is_empty() {
            out.push_str("<div class=\"note steps\">");
            for (cex, step, values) in n.steps.iter().take(MAX_STEPS_PER_LINE) {
                let _ = write!(
                    out,
                    "<div class=\"step\"><span class=\"step-no\">#{cex} step {step}</span> {values}</div>"
                );
            }
            if n.steps.len() > MAX_STEPS_PER_LINE {
                let _ = write!(
                    out,
                    "<div class=\"step dim\">... {} more steps of the trace here</div>",
                    n.steps.len() - MAX_STEPS_PER_LINE
                );
            }
            out.push_str("</div>");
        }
        out.push_str("</div>");
    }
    out.push_str("</div>\n");
}

/// An invariant with each top-level disjunct on its own line (`a && (b || c)` shows `a`,
/// then `b` and `c` under it), escaped.
fn invariant_html(text: &str) -> String {
    // Split at ` || ` outside parentheses deeper than the outermost group.
    let (common, disjunction) = match text.find(" && (") {
        Some(at) if text.ends_with(')') && top_level_disjuncts(&text[at + 4..]).len() > 1 => {
            (Some(&text[..at]), &text[at + 4..])
        }
        _ => (None, text),
    };
    let parts = top_level_disjuncts(disjunction);
    if parts.len() <= 1 {
        return esc(text);
    }
    let mut out = String::new();
    if let Some(c) = common {
        let _ = write!(out, "{} &amp;&amp;", esc(c));
    }
    for (i, p) in parts.iter().enumerate() {
        let _ = write!(
            out,
            "<span class=\"disjunct\">{}{}</span>",
            if i == 0 && common.is_none() {
                "   "
            } else {
                "|| "
            },
            esc(p)
        );
    }
    out
}

/// The disjuncts of `(a) || b || (c)` at depth 0, or of `((a) || b)` at depth 1.
fn top_level_disjuncts(text: &str) -> Vec<&str> {
    let inner = if text.starts_with('(') && matching_close(text) == Some(text.len() - 1) {
        &text[1..text.len() - 1]
    } else {
        text
    };
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    let bytes = inner.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'(' => depth += 1,
            b')' => depth -= 1,
            b'|' if depth == 0 && inner[i..].starts_with("|| ") && i > 0 => {
                parts.push(inner[start..i].trim());
                start = i + 2;
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    parts.push(inner[start..].trim());
    parts
}

/// The index of the parenthesis closing the one `text` starts with.
fn matching_close(text: &str) -> Option<usize> {
    let mut depth = 0;
    for (i, b) in text.bytes().enumerate() {
        match b {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Escapes text for HTML content and quoted attribute values.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const CSS: &str = r#"
:root { --proved: #1a7f37; --violated: #cf222e; --unknown: #9a6700; --loop: #0550ae; }
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1f2328; background: #fff; }
header { padding: 10px 18px; border-bottom: 1px solid #d0d7de; background: #f6f8fa; }
h1 { font-size: 18px; margin: 0 0 4px 0; }
h2 { font-size: 16px; margin: 16px 18px 4px; }
h3 { font-size: 14px; margin: 14px 18px 4px; font-family: ui-monospace, monospace; }
.summary { margin: 0; }
.count.proved, .verdict-true { color: var(--proved); }
.count.violated, .verdict-false { color: var(--violated); }
.count.unknown, .verdict-unknown { color: var(--unknown); }
.dim { color: #656d76; }
.error { color: var(--violated); margin: 8px 18px; }
.warnings, .unplaced { margin: 8px 18px; }
.source { margin: 0 18px; border: 1px solid #d0d7de; border-radius: 6px; overflow: hidden; }
.line { display: grid; grid-template-columns: 44px minmax(0, 11fr) minmax(0, 9fr); border-left: 4px solid transparent; }
.line:target { background: #fff8c5; }
.ln { text-align: right; padding-right: 8px; color: #8c959f; text-decoration: none;
      font: 12px/20px ui-monospace, monospace; user-select: none; }
.code { margin: 0; font: 13px/20px ui-monospace, SFMono-Regular, Menlo, monospace; white-space: pre-wrap;
        overflow-wrap: anywhere; grid-column: 2; }
.notes { grid-column: 3; padding: 1px 8px; font-size: 12.5px; border-left: 1px solid #d0d7de; }
.line-proved { border-left-color: var(--proved); background: #dafbe1; }
.line-violated { border-left-color: var(--violated); background: #ffebe9; }
.line-unknown { border-left-color: var(--unknown); background: #fff8c5; }
.line-loop:not(.line-proved):not(.line-violated):not(.line-unknown) { background: #ddf4ff; border-left-color: var(--loop); }
.line-step:not(.line-proved):not(.line-violated):not(.line-unknown):not(.line-loop) { background: #fff0ee; }
.note { margin: 2px 0; }
.mark { display: inline-block; font-weight: 700; color: #fff; border-radius: 10px; padding: 0 8px;
        font-size: 12px; line-height: 18px; }
.mark.proved { background: var(--proved); }
.mark.violated { background: var(--violated); }
.mark.unknown { background: var(--unknown); }
.func { color: #656d76; font-family: ui-monospace, monospace; font-size: 12px; }
.reason { color: #1f2328; overflow-wrap: anywhere; }
.loop-label { color: var(--loop); font-weight: 600; }
.disjunct { display: block; padding-left: 2.4em; text-indent: -2.4em; white-space: pre-wrap; }
.invariant { display: block; font: 12px/1.35 ui-monospace, monospace; color: #0a3069; overflow-wrap: anywhere; }
.steps { font: 12px/1.35 ui-monospace, monospace; color: #82071e; }
.step-no { font-weight: 700; }
details.inputs summary { cursor: pointer; color: #82071e; }
details.inputs ol { margin: 2px 0; padding-left: 22px; font: 12px/1.35 ui-monospace, monospace; }
"#;

/// Marks the page as rendered (tests read it from the DOM) and lets `n`/`p` jump to the
/// next or previous marked line.
const JS: &str = r#"
(function () {
  var marked = Array.prototype.slice.call(document.querySelectorAll('.line-proved, .line-violated, .line-unknown'));
  document.body.setAttribute('data-marked-lines', String(marked.length));
  var at = -1;
  document.addEventListener('keydown', function (e) {
    if (!marked.length || (e.key !== 'n' && e.key !== 'p')) return;
    at = (at + (e.key === 'n' ? 1 : marked.length - 1)) % marked.length;
    location.hash = marked[at].id;
  });
})();
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{AnalysisReport, LoopInvariant};
    use crate::check::{CheckResult, UnknownReason};
    use crate::ir::CheckId;
    use std::time::Duration;

    fn loc(line: u32) -> Option<SourceLoc> {
        Some(SourceLoc {
            file: "a<b>.c".into(),
            line,
            column: 1,
        })
    }

    fn program() -> ProgramReport {
        ProgramReport {
            name: String::new(),
            analysis: AnalysisReport {
                results: vec![
                    CheckResult {
                        check: CheckId(0),
                        kind: crate::ir::CheckKind::ErrorCall {
                            function: "reach_error".into(),
                        },
                        loc: loc(3),
                        function: "main".into(),
                        verdict: Verdict::Proved,
                    },
                    CheckResult {
                        check: CheckId(1),
                        kind: crate::ir::CheckKind::ErrorCall {
                            function: "reach_error".into(),
                        },
                        loc: loc(3),
                        function: "main".into(),
                        verdict: Verdict::Unknown(UnknownReason::Unsupported(
                            "a <script> & \"quotes\"".into(),
                        )),
                    },
                ],
                loop_invariants: vec![LoopInvariant {
                    function: "main".into(),
                    block: "for.cond".into(),
                    loc: loc(2),
                    text: "i >= 0 && ((i <= 3) || (n < 2))".into(),
                }],
                cut_invariants: vec![],
                refinement: vec![],
                functions: vec![],
            },
            warnings: vec![],
            error: None,
        }
    }

    fn page(sources: &BTreeMap<String, String>) -> String {
        let info = RunInfo {
            engine: "focus",
            domain: "poly",
            elapsed: Duration::from_millis(5),
        };
        html(&[program()], sources, &info)
    }

    #[test]
    fn everything_from_the_program_is_escaped() {
        let sources = BTreeMap::from([(
            "a<b>.c".to_string(),
            "int main() {\n  for (;;) {}\n  assert(x < y && \"</pre>\");\n}\n".to_string(),
        )]);
        let out = page(&sources);
        assert!(!out.contains("<script> &"), "{out}");
        assert!(
            out.contains("a &lt;script&gt; &amp; &quot;quotes&quot;"),
            "{out}"
        );
        assert!(
            out.contains("x &lt; y &amp;&amp; &quot;&lt;/pre&gt;&quot;"),
            "{out}"
        );
        assert!(out.contains("data-file=\"a&lt;b&gt;.c\""), "{out}");
        assert!(!out.contains("for.cond"), "a block name leaks: {out}");
    }

    #[test]
    fn a_line_shows_its_worst_verdict_and_every_mark() {
        let sources = BTreeMap::from([("a<b>.c".to_string(), "a\nb\nc\nd\n".to_string())]);
        let out = page(&sources);
        let line3 = out
            .lines()
            .find(|l| l.contains("id=\"p0-f0-L3\""))
            .expect("line 3");
        assert!(line3.contains("class=\"line line-unknown\""), "{line3}");
        assert!(
            line3.contains("data-verdict=\"proved\"") && line3.contains("data-verdict=\"unknown\"")
        );
        let line2 = out.lines().find(|l| l.contains("id=\"p0-f0-L2\"")).unwrap();
        assert!(
            line2.contains("line-loop") && line2.contains("loop at line 2"),
            "{line2}"
        );
        // The disjuncts of the invariant are on lines of their own.
        assert_eq!(line2.matches("class=\"disjunct\"").count(), 2, "{line2}");
        let line1 = out.lines().find(|l| l.contains("id=\"p0-f0-L1\"")).unwrap();
        assert!(!line1.contains("notes"), "{line1}");
    }

    #[test]
    fn a_missing_source_still_lists_its_marks() {
        let out = page(&BTreeMap::new());
        assert!(out.contains("source not available"));
        assert!(out.contains("id=\"p0-f0-L3\""));
    }
}
