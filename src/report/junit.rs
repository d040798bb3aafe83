//! JUnit XML for CI dashboards: `testsuites` / one `testsuite` per program / one
//! `testcase` per check of the source (its contexts merged).
//!
//! A proved assertion passes; a violated one has a `failure` with the counterexample; an
//! unknown one is `skipped` with the reason (it is neither a pass nor a confirmed failure;
//! gate on it with `--fail-on unknown`); a program that could not be loaded is one
//! testcase with an `error`. No times are written, so the output is deterministic.

use super::counterexample_text;
use super::project::ProgramReport;
use crate::check::Verdict;
use std::fmt::Write as _;

/// The JUnit XML of a run.
pub fn junit(programs: &[ProgramReport]) -> String {
    let mut suites = String::new();
    let (mut tests, mut failures, mut errors, mut skipped) = (0, 0, 0, 0);
    for p in programs {
        let name = if p.name.is_empty() {
            "polyfocus"
        } else {
            &p.name
        };
        let mut cases = String::new();
        let (mut t, mut f, mut e, mut s) = (0, 0, 0, 0);
        if let Some(err) = &p.error {
            t += 1;
            e += 1;
            let _ = writeln!(
                cases,
                "    <testcase classname=\"{}\" name=\"load\">\n      <error message=\"{}\" type=\"load\"/>\n    </testcase>",
                escape(name),
                escape(err)
            );
        }
        for c in p.checks() {
            t += 1;
            let r = c.deciding();
            let loc = c
                .loc()
                .map_or_else(|| "<unknown location>".to_string(), |l| l.to_string());
            let classname = format!("{name}.{}", p.function_name(&r.function));
            // A runtime check is named by its kind (`overflow 4 at f.c:3:9`, what misbehaves
            // in the failure message); an assertion as `assertion 4 at f.c:3:9`.
            let case_name = match c.kind().runtime_error() {
                Some(_) => format!("{} {} at {loc}", c.class().name(), r.check.0),
                None => format!("assertion {} at {loc}", r.check.0),
            };
            let violated = match c.kind().runtime_error() {
                Some(error) => format!("{error}: counterexample"),
                None => "assertion violated: counterexample".to_string(),
            };
            let contexts = c
                .contexts_note()
                .map_or_else(String::new, |note| format!(" ({note})"));
            let body = match c.verdict() {
                Verdict::Proved => None,
                Verdict::Violated(cex) => {
                    f += 1;
                    Some(format!(
                        "      <failure message=\"{} {}{}\" type=\"violated\">{}</failure>\n",
                        escape(&violated),
                        escape(&cex.confirmed_by),
                        escape(&contexts),
                        escape(&counterexample_text(cex))
                    ))
                }
                // Not proved for every caller: skipped, with the precondition.
                Verdict::HoldsIf(precondition) => {
                    s += 1;
                    Some(format!(
                        "      <skipped message=\"holds if {}{}\"/>\n",
                        escape(&precondition.expr),
                        escape(&contexts)
                    ))
                }
                Verdict::Unknown(reason) => {
                    s += 1;
                    Some(format!(
                        "      <skipped message=\"unknown: {}{}\"/>\n",
                        escape(&reason.to_string()),
                        escape(&contexts)
                    ))
                }
            };
            match body {
                None => {
                    let _ = writeln!(
                        cases,
                        "    <testcase classname=\"{}\" name=\"{}\"/>",
                        escape(&classname),
                        escape(&case_name)
                    );
                }
                Some(body) => {
                    let _ = write!(
                        cases,
                        "    <testcase classname=\"{}\" name=\"{}\">\n{body}    </testcase>\n",
                        escape(&classname),
                        escape(&case_name)
                    );
                }
            }
        }
        let _ = write!(
            suites,
            "  <testsuite name=\"{}\" tests=\"{t}\" failures=\"{f}\" errors=\"{e}\" skipped=\"{s}\">\n{cases}  </testsuite>\n",
            escape(name)
        );
        tests += t;
        failures += f;
        errors += e;
        skipped += s;
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"polyfocus\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\">\n{suites}</testsuites>\n"
    )
}

/// Escapes text for an XML attribute or element; drops characters XML 1.0 forbids.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\t' | '\r' => out.push(' '),
            c if (c as u32) < 0x20 => {}
            c => out.push(c),
        }
    }
    out
}
