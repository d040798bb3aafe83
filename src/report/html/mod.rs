//! The HTML report: one self-contained page (inline CSS and script, nothing fetched) that
//! opens on an overview of the run (checks by kind and verdict, a chart per directory and
//! file, the violations, the unknown checks by reason, each a link to its mark), followed by
//! each file with one mark per check of the source (its contexts merged), the invariant of
//! each loop beside its head and each counterexample's steps beside the lines they run
//! through. Filters hide marks by verdict and kind.
//!
//! Size stays small on large projects: the page holds the source only of the files with a
//! finding (a check not proved, or a counterexample's step), folds long stretches of
//! unmarked lines, and lists the marked lines of the other files without their text.
//!
//! The page is built from the report data and the source texts the caller read: this
//! module does no IO. Every text that comes from the program or the analysis is escaped.
//!
//! Names tests and tools use: a file is a `details.file` with `id="pP-fF"` (program P, file
//! F, from 0); a line with notes is a `div.line` with `id="pP-fF-LN"` and `data-line="N"`,
//! and the class `line-proved`, `line-violated` or `line-unknown` (the worst of its checks);
//! each check is a `div.mk` with `data-verdict` and `data-kind` holding a `span.mark`.
//! Unmarked lines are `div.run` blocks numbered from `data-from`.

mod model;
mod overview;
mod source;

use super::project::ProgramReport;
use super::{all_checks, program_reason};
use crate::check::{MergedCheck, ProgramVerdict};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Files at most whose sections are open when the page loads (a small program's file opens
/// at once; a project's files open from the overview).
const MAX_OPEN_FILES: usize = 3;

/// The files whose source the page shows, in order, for the caller to read.
pub fn html_source_files(programs: &[ProgramReport]) -> Vec<String> {
    let mut files = std::collections::BTreeSet::new();
    for p in programs {
        files.extend(model::files_with_source(p).into_iter().map(str::to_string));
    }
    files.into_iter().collect()
}

/// The HTML report of a run. `sources` maps a file name as the locations spell it to its
/// text; a file missing from it is listed with its notes but without its lines.
pub fn html(
    programs: &[ProgramReport],
    sources: &BTreeMap<String, String>,
    info: &super::RunInfo,
) -> String {
    let checks: Vec<&MergedCheck> = all_checks(programs).collect();
    let (views, placed) = model::gather(programs);
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<title>polyfocus report</title>\n<style>\n");
    out.push_str(assets::CSS);
    out.push_str("</style>\n</head>\n<body>\n<header>\n<h1>polyfocus report</h1>\n");
    write_summary(&mut out, &checks, info);
    write_filters(&mut out, &checks);
    out.push_str("</header>\n<main>\n");
    overview::write_overview(&mut out, &views, &placed);
    let shown = views
        .iter()
        .flat_map(|v| &v.files)
        .filter(|f| f.show_source)
        .count();
    for view in &views {
        source::write_program(
            &mut out,
            view,
            views.len() > 1,
            shown <= MAX_OPEN_FILES,
            sources,
        );
    }
    out.push_str("</main>\n<script>\n");
    out.push_str(assets::JS);
    out.push_str("</script>\n</body>\n</html>\n");
    out
}

/// The verdicts' classes (CSS classes and `data-verdict`), worst first.
pub(super) const VERDICT_CLASSES: [&str; 4] = ["violated", "unknown", "holds-if", "proved"];

/// A verdict's class: its word, with `holds-if` for `holds if`.
pub(super) fn verdict_class(v: &crate::check::Verdict) -> &'static str {
    match v {
        crate::check::Verdict::HoldsIf(_) => "holds-if",
        v => super::verdict_word(v),
    }
}

/// The header's line: checks by verdict and the verdict of the run.
fn write_summary(out: &mut String, checks: &[&MergedCheck], info: &super::RunInfo) {
    let count = |w: &str| {
        checks
            .iter()
            .filter(|c| super::verdict_word(c.verdict()) == w)
            .count()
    };
    let verdict = ProgramVerdict::of_checks(checks.iter().copied());
    let _ = writeln!(
        out,
        "<p class=\"summary\" id=\"summary\">{}: <span class=\"count proved\">{} proved</span>, \
         <span class=\"count violated\">{} violated</span>, <span class=\"count holds-if\">{} holds if</span>, \
         <span class=\"count unknown\">{} unknown</span>; \
         verdict <b class=\"verdict-{v}\">{v}</b>{reason} <span class=\"dim\">({} + {}, {:.2} s)</span></p>",
        super::count_by_kind(checks.iter().copied()),
        count("proved"),
        count("violated"),
        count("holds if"),
        count("unknown"),
        esc(info.engine),
        esc(info.domain),
        info.elapsed.as_secs_f64(),
        v = verdict.as_str(),
        reason = program_reason(checks).map_or_else(String::new, |r| format!(" ({})", esc(r))),
    );
}

/// Check boxes that show or hide marks by verdict and kind (the script applies them).
fn write_filters(out: &mut String, checks: &[&MergedCheck]) {
    let kinds: std::collections::BTreeSet<crate::ir::CheckClass> =
        checks.iter().map(|c| c.class()).collect();
    out.push_str("<form class=\"filters\" id=\"filters\"><span class=\"dim\">show</span>");
    for class in VERDICT_CLASSES {
        let _ = write!(
            out,
            "<label class=\"{class}\"><input type=\"checkbox\" data-verdict=\"{class}\" checked> {}</label>",
            class.replace('-', " ")
        );
    }
    out.push_str("<span class=\"sep\"></span>");
    for class in kinds {
        let _ = write!(
            out,
            "<label><input type=\"checkbox\" data-kind=\"{}\" checked> {}</label>",
            class.name(),
            super::kind_label(class)
        );
    }
    out.push_str("</form>\n");
}

/// `s` when `n` is not one.
fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// An invariant with each top-level disjunct on its own line (`a && (b || c)` shows `a`,
/// then `b` and `c` under it), escaped.
pub(super) fn invariant_html(text: &str) -> String {
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

mod assets;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::FunctionNames;
    use crate::check::{AnalysisReport, CheckResult, LoopInvariant, UnknownReason, Verdict};
    use crate::ir::{CheckId, CheckKind, SourceLoc};
    use crate::report::RunInfo;
    use std::time::Duration;

    fn loc(file: &str, line: u32) -> Option<SourceLoc> {
        Some(SourceLoc {
            file: file.into(),
            line,
            column: 1,
        })
    }

    fn result(id: u32, loc: Option<SourceLoc>, function: &str, verdict: Verdict) -> CheckResult {
        CheckResult {
            check: CheckId(id),
            kind: CheckKind::ErrorCall {
                function: "reach_error".into(),
            },
            loc,
            function: function.into(),
            verdict,
        }
    }

    /// Three contexts of one assertion of `a<b>.c` (one proved, two unknown in one function), a
    /// loop there,
    /// and a proved overflow check in `lib/ok.c` of a static renamed by the linker.
    fn program() -> ProgramReport {
        let mut overflow = result(2, loc("lib/ok.c", 7), "helper.12", Verdict::Proved);
        overflow.kind = CheckKind::Overflow {
            op: crate::ir::BinOp::Add,
        };
        let analysis = AnalysisReport {
            results: vec![
                result(0, loc("a<b>.c", 3), "main", Verdict::Proved),
                result(
                    1,
                    loc("a<b>.c", 3),
                    "other",
                    Verdict::Unknown(UnknownReason::Unsupported("a <script> & \"quotes\"".into())),
                ),
                result(
                    3,
                    loc("a<b>.c", 3),
                    "other",
                    Verdict::Unknown(UnknownReason::Unsupported("a <script> & \"quotes\"".into())),
                ),
                overflow,
            ],
            loop_invariants: vec![LoopInvariant {
                function: "main".into(),
                block: "for.cond".into(),
                loc: loc("a<b>.c", 2),
                text: "i >= 0 && ((i <= 3) || (n < 2))".into(),
            }],
            names: FunctionNames::new([("helper.12", Some("lib/ok.c"))]),
            ..AnalysisReport::default()
        };
        ProgramReport::new(String::new(), analysis, vec![])
    }

    fn page(sources: &BTreeMap<String, String>) -> String {
        let info = RunInfo {
            engine: "focus",
            domain: "poly",
            elapsed: Duration::from_millis(5),
        };
        html(&[program()], sources, &info)
    }

    fn sources() -> BTreeMap<String, String> {
        BTreeMap::from([
            (
                "a<b>.c".to_string(),
                "int main() {\n  for (;;) {}\n  assert(x < y && \"</pre>\");\n}\n".to_string(),
            ),
            ("lib/ok.c".to_string(), "int ok;\n".repeat(10)),
        ])
    }

    fn line<'a>(out: &'a str, id: &str) -> &'a str {
        out.lines()
            .find(|l| l.contains(&format!("id=\"{id}\"")))
            .unwrap_or_else(|| panic!("no line {id}: {out}"))
    }

    #[test]
    fn everything_from_the_program_is_escaped() {
        let out = page(&sources());
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
    fn the_contexts_of_a_check_make_one_mark_with_the_worst_verdict() {
        let out = page(&sources());
        let line3 = line(&out, "p0-f0-L3");
        assert!(line3.contains("class=\"line line-unknown\""), "{line3}");
        assert_eq!(line3.matches("class=\"mk\"").count(), 1, "{line3}");
        assert!(line3.contains("data-kind=\"assert\""), "{line3}");
        assert!(
            line3.contains("unknown in 2 of 3 contexts, 1 proved"),
            "{line3}"
        );
        // The contexts are listed on demand, grouped by verdict, a function's copies counted.
        assert!(
            line3.contains("in 2: <span class=\"func\">other \u{d7}2</span>"),
            "{line3}"
        );
        assert!(
            line3.contains("proved in 1: <span class=\"func\">main</span>"),
            "{line3}"
        );
        let line2 = line(&out, "p0-f0-L2");
        assert!(
            line2.contains("line-loop") && line2.contains("loop at line 2"),
            "{line2}"
        );
        // The disjuncts of the invariant are on lines of their own.
        assert_eq!(line2.matches("class=\"disjunct\"").count(), 2, "{line2}");
        // Unmarked lines are plain text, numbered by the script.
        assert!(out.contains("<div class=\"run\" data-from=\"1\">"), "{out}");
    }

    #[test]
    fn a_file_without_findings_lists_its_marks_without_its_source() {
        let programs = [program()];
        assert_eq!(html_source_files(&programs), ["a<b>.c"]);
        let out = page(&sources());
        let mark = line(&out, "p0-f1-L7");
        assert!(
            mark.contains("line-proved") && mark.contains("overflow"),
            "{mark}"
        );
        // The linker's suffix is not shown.
        assert!(
            mark.contains(">helper<") && !out.contains("helper.12"),
            "{mark}"
        );
        assert!(!out.contains("int ok;"), "{out}");
        assert!(
            out.contains("every check proved: marked lines only"),
            "{out}"
        );
    }

    #[test]
    fn the_overview_counts_checks_by_kind_and_links_the_findings() {
        let out = page(&sources());
        let overview =
            &out[out.find("id=\"overview\"").unwrap()..out.find("class=\"program\"").unwrap()];
        assert!(out.contains("2 checks (1 assertion, 1 overflow)"), "{out}");
        assert!(
            overview.contains("<th>assertion</th><td>1</td>"),
            "{overview}"
        );
        assert!(
            overview.contains("<th>overflow</th><td>1</td>"),
            "{overview}"
        );
        assert!(
            overview.contains("href=\"#p0-f1\">lib/ok.c</a>"),
            "{overview}"
        );
        // The unknown assertion is listed under its reason, linked to its line.
        assert!(overview.contains("Unknown, by reason (1)"), "{overview}");
        assert!(overview.contains("href=\"#p0-f0-L3\""), "{overview}");
        assert!(overview.contains("Violations (0)"), "{overview}");
    }

    #[test]
    fn a_missing_source_still_lists_its_marks() {
        let out = page(&BTreeMap::new());
        assert!(out.contains("source not available"));
        assert!(out.contains("id=\"p0-f0-L3\""));
    }
}
