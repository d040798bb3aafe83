//! Compares the analyzer's report with the oracle: one [`Judgement`] per check, plus the
//! natively failing assertions the report has no check for.

use super::render::PROGRAM_FILE;
use anyhow::{Context, Result};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The analyzer's verdict on one check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    /// `proved`.
    Proved,
    /// `violated` (the analyzer replayed a counterexample natively).
    Violated,
    /// `unknown`.
    Unknown,
}

/// Why a verdict is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Wrong {
    /// `proved`, but some execution fails the assertion.
    ProvedButFails {
        /// Assertion id.
        id: usize,
        /// Its line.
        line: u32,
    },
    /// `violated`, but no execution fails the assertion (only judged when the oracle is
    /// exhaustive).
    ViolatedButHolds {
        /// Assertion id.
        id: usize,
        /// Its line.
        line: u32,
    },
    /// Some execution fails the assertion, no check is at its line, and the report says
    /// every assertion of the program is proved: the assertion was silently skipped (code
    /// never analyzed, an error call deleted or not recognized).
    Missed {
        /// Assertion id.
        id: usize,
        /// Its line.
        line: u32,
    },
}

impl std::fmt::Display for Wrong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Wrong::ProvedButFails { line, .. } => {
                write!(f, "line {line}: proved, but an execution fails it")
            }
            Wrong::ViolatedButHolds { line, .. } => {
                write!(f, "line {line}: violated, but no execution fails it")
            }
            Wrong::Missed { line, .. } => {
                write!(
                    f,
                    "line {line}: fails natively, but the report has no check for it"
                )
            }
        }
    }
}

/// The comparison of one program.
#[derive(Clone, Debug, Default)]
pub struct Judgement {
    /// The verdict on each assertion of the program that has checks (see [`judge`]).
    pub verdicts: Vec<Verdict>,
    /// Checks located elsewhere (not judged).
    pub unlocated: usize,
    /// Assertions without any check that never fail natively (not wrong).
    pub skipped: usize,
    /// Lines of the assertions without any check that fail natively, in a report that
    /// does not prove the program (some other check is violated or unknown: e.g. the
    /// optimizer merged the error calls into one check).
    pub missed: Vec<u32>,
    /// Wrong verdicts.
    pub wrong: Vec<Wrong>,
}

/// What the harness reads of a `polyfocus check --format json` report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// Whether the program-level verdict is `true` (every assertion proved, or none found).
    pub all_proved: bool,
    /// The checks.
    pub checks: Vec<Check>,
}

/// One check of the JSON report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    /// The line of its location in the program file, if any.
    pub line: Option<u32>,
    /// Its verdict.
    pub verdict: Verdict,
}

/// Reads a `polyfocus check --format json` report.
pub fn parse_report(json: &str) -> Result<Report> {
    let report: Value = serde_json::from_str(json).context("the report is not JSON")?;
    Ok(Report {
        all_proved: report["verdict"] == "true",
        checks: parse_checks(&report)?,
    })
}

fn parse_checks(report: &Value) -> Result<Vec<Check>> {
    let checks = report["checks"]
        .as_array()
        .context("the report has no `checks`")?;
    checks
        .iter()
        .map(|c| {
            let verdict = match c["verdict"].as_str() {
                Some("proved") => Verdict::Proved,
                Some("violated") => Verdict::Violated,
                Some("unknown") => Verdict::Unknown,
                other => anyhow::bail!("unexpected verdict {other:?}"),
            };
            Ok(Check {
                line: c["location"].as_str().and_then(line_in_program),
                verdict,
            })
        })
        .collect()
}

/// The line of a location `FILE:LINE[:COLUMN]` when FILE is the program file.
fn line_in_program(location: &str) -> Option<u32> {
    let mut parts = location.rsplitn(3, ':').collect::<Vec<_>>();
    parts.reverse();
    let (file, line) = match parts.as_slice() {
        [file, line, _column] => (*file, *line),
        [file, line] => (*file, *line),
        _ => return None,
    };
    if !file.ends_with(PROGRAM_FILE) {
        return None;
    }
    line.parse().ok()
}

/// Judges `checks` against the oracle: `assertion_at` maps lines to assertion ids, `failed`
/// holds the assertions that fail in some execution; `exhaustive` tells whether the oracle
/// enumerated every execution the analyzer must consider.
///
/// An assertion in a function inlined at several call sites has one check per site, all on
/// its line, and a site the failing executions never reach may rightly be proved; so the
/// verdicts of a line combine first: `violated` if some check is violated (it claims an
/// execution fails the assertion), `proved` if every check is (it claims none does),
/// `unknown` otherwise.
pub fn judge(
    report: &Report,
    assertion_at: &BTreeMap<u32, usize>,
    failed: &BTreeSet<usize>,
    exhaustive: bool,
) -> Judgement {
    let mut judgement = Judgement::default();
    let mut by_line: BTreeMap<u32, Vec<Verdict>> = BTreeMap::new();
    for check in &report.checks {
        match check.line.filter(|l| assertion_at.contains_key(l)) {
            Some(line) => by_line.entry(line).or_default().push(check.verdict),
            None => judgement.unlocated += 1,
        }
    }
    for (&line, &id) in assertion_at {
        let fails = failed.contains(&id);
        let Some(verdicts) = by_line.get(&line) else {
            if fails && report.all_proved {
                judgement.wrong.push(Wrong::Missed { id, line });
            } else if fails {
                judgement.missed.push(line);
            } else {
                judgement.skipped += 1;
            }
            continue;
        };
        let verdict = if verdicts.contains(&Verdict::Violated) {
            Verdict::Violated
        } else if verdicts.iter().all(|v| *v == Verdict::Proved) {
            Verdict::Proved
        } else {
            Verdict::Unknown
        };
        judgement.verdicts.push(verdict);
        match verdict {
            Verdict::Proved if fails => judgement.wrong.push(Wrong::ProvedButFails { id, line }),
            Verdict::Violated if !fails && exhaustive => {
                judgement.wrong.push(Wrong::ViolatedButHolds { id, line })
            }
            _ => {}
        }
    }
    judgement
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(line: u32, verdict: Verdict) -> Check {
        Check {
            line: Some(line),
            verdict,
        }
    }

    #[test]
    fn reads_locations() {
        assert_eq!(line_in_program("/tmp/x/prog.c:12:3"), Some(12));
        assert_eq!(line_in_program("prog.c:7"), Some(7));
        assert_eq!(line_in_program("other.c:7:1"), None);
    }

    #[test]
    fn finds_every_kind_of_wrong_verdict() {
        let at: BTreeMap<u32, usize> = [(10, 0), (11, 1), (12, 2), (13, 3)].into();
        let failed: BTreeSet<usize> = [0, 3].into();
        let report = |checks: &[Check], all_proved| Report {
            all_proved,
            checks: checks.to_vec(),
        };
        let checks = [
            check(10, Verdict::Proved),
            check(11, Verdict::Violated),
            check(12, Verdict::Unknown),
            check(99, Verdict::Proved),
        ];
        // (A report with a violated check never proves the program; the flag is forced
        // here to see every kind at once.)
        let j = judge(&report(&checks, true), &at, &failed, true);
        assert_eq!(
            j.wrong,
            [
                Wrong::ProvedButFails { id: 0, line: 10 },
                Wrong::ViolatedButHolds { id: 1, line: 11 },
                Wrong::Missed { id: 3, line: 13 },
            ]
        );
        assert_eq!(j.unlocated, 1);
        // Not exhaustive: a violation the oracle did not see is not judged; a report
        // that does not prove the program only misses the assertion.
        let j = judge(&report(&checks, false), &at, &failed, false);
        assert_eq!(j.wrong, [Wrong::ProvedButFails { id: 0, line: 10 }]);
        assert_eq!(j.missed, [13]);
        // Inlined at two sites: proved at one, violated at the other.
        let checks = [check(10, Verdict::Proved), check(10, Verdict::Violated)];
        let j = judge(&report(&checks, false), &at, &failed, true);
        assert_eq!(j.verdicts, [Verdict::Violated]);
        assert!(j.wrong.is_empty());
        let checks = [check(10, Verdict::Proved), check(10, Verdict::Unknown)];
        let j = judge(&report(&checks, false), &at, &failed, true);
        assert_eq!(j.verdicts, [Verdict::Unknown]);
    }
}
