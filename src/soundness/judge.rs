//! Compares the analyzer's assertion checks with the oracle: one verdict per assertion line,
//! plus the natively failing assertions the report has no check for. The checks of memory
//! kinds are judged by [`super::memory_judge`] into the same [`Judgement`].

use super::precondition::Held;
use super::report::{Report, Verdict};
use std::collections::{BTreeMap, BTreeSet};

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
    /// `holds if P`, but an execution fails the assertion during an invocation whose
    /// arguments satisfied `P` at its entry.
    HoldsIfButFails {
        /// The assertion's line.
        line: u32,
        /// The precondition.
        precondition: String,
    },
    /// A memory check `proved`, but some execution has a memory error of its kind there.
    MemoryProvedButErrs {
        /// The line.
        line: u32,
        /// The check's kind (`bounds`, ...).
        kind: String,
        /// The memory error, as the address sanitizer names it.
        error: String,
    },
    /// A memory check `violated`, but no execution has a memory error of its kind there
    /// (only judged when no execution stopped earlier at another memory error).
    MemoryViolatedButClean {
        /// The line.
        line: u32,
        /// The check's kind.
        kind: String,
    },
    /// A memory check `holds if P`, but an execution has a memory error of its kind there
    /// during an invocation whose arguments satisfied `P`.
    MemoryHoldsIfButErrs {
        /// The line.
        line: u32,
        /// The check's kind.
        kind: String,
        /// The precondition.
        precondition: String,
        /// The memory error.
        error: String,
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
            Wrong::Missed { line, .. } => write!(
                f,
                "line {line}: fails natively, but the report has no check for it"
            ),
            Wrong::HoldsIfButFails { line, precondition } => write!(
                f,
                "line {line}: holds if `{precondition}`, but an execution whose entry satisfies it fails it"
            ),
            Wrong::MemoryProvedButErrs { line, kind, error } => write!(
                f,
                "line {line}: `{kind}` proved, but an execution has a {error} there"
            ),
            Wrong::MemoryViolatedButClean { line, kind } => write!(
                f,
                "line {line}: `{kind}` violated, but no execution has such a memory error there"
            ),
            Wrong::MemoryHoldsIfButErrs {
                line,
                kind,
                precondition,
                error,
            } => write!(
                f,
                "line {line}: `{kind}` holds if `{precondition}`, but an execution whose entry satisfies it has a {error} there"
            ),
        }
    }
}

/// The comparison of one program.
#[derive(Clone, Debug, Default)]
pub struct Judgement {
    /// The verdict on each assertion of the program that has checks (see [`judge`]).
    pub verdicts: Vec<Verdict>,
    /// The verdict on each line and memory kind that has checks of that kind
    /// ([`super::memory_judge`]).
    pub memory_verdicts: Vec<Verdict>,
    /// Memory errors of the native runs (one per line and kind of error) that no check of
    /// a memory kind at their line is about: not wrong, only not checked.
    pub memory_unchecked: usize,
    /// Checks located elsewhere (not judged).
    pub unlocated: usize,
    /// Checks of other kinds (`overflow`, `div`, `shift`, or a kind the harness does not
    /// know): not judged.
    pub other_checks: usize,
    /// `holds if` checks whose precondition the harness cannot evaluate (their function is
    /// not one it knows the entry of): not judged.
    pub holds_if_unjudged: usize,
    /// Assertions without any check that never fail natively (not wrong).
    pub skipped: usize,
    /// Lines of the assertions without any check that fail natively, in a report that
    /// does not prove the program (some other check is violated or unknown: e.g. the
    /// optimizer merged the error calls into one check).
    pub missed: Vec<u32>,
    /// Wrong verdicts.
    pub wrong: Vec<Wrong>,
}

/// Judges the assertion checks of `report` against the oracle: `assertion_at` maps lines to
/// assertion ids, `failed` holds the assertions that fail in some execution, `held` what
/// the run with the preconditions saw; `exhaustive` tells whether the oracle enumerated
/// every execution the analyzer must consider up to each assertion.
///
/// The verdicts of one line's checks combine first ([`Verdict::merge`]); each `holds if`
/// check of the line is judged on its own.
pub fn judge(
    report: &Report,
    assertion_at: &BTreeMap<u32, usize>,
    failed: &BTreeSet<usize>,
    held: &Held,
    exhaustive: bool,
) -> Judgement {
    let mut judgement = Judgement::default();
    let mut by_line: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (k, check) in report.checks.iter().enumerate() {
        if !check.is_assertion() {
            continue;
        }
        match check.line.filter(|l| assertion_at.contains_key(l)) {
            Some(line) => by_line.entry(line).or_default().push(k),
            None => judgement.unlocated += 1,
        }
    }
    for (&line, &id) in assertion_at {
        let fails = failed.contains(&id);
        let Some(checks) = by_line.get(&line) else {
            if fails && report.all_proved {
                judgement.wrong.push(Wrong::Missed { id, line });
            } else if fails {
                judgement.missed.push(line);
            } else {
                judgement.skipped += 1;
            }
            continue;
        };
        let verdicts: Vec<Verdict> = checks.iter().map(|&k| report.checks[k].verdict).collect();
        let verdict = Verdict::merge(&verdicts);
        judgement.verdicts.push(verdict);
        match verdict {
            Verdict::Proved if fails => judgement.wrong.push(Wrong::ProvedButFails { id, line }),
            Verdict::Violated if !fails && exhaustive => {
                judgement.wrong.push(Wrong::ViolatedButHolds { id, line })
            }
            _ => {}
        }
        let refuted = held.refuted(
            report,
            checks,
            line,
            |e| e == ASSERTION,
            &mut judgement.holds_if_unjudged,
        );
        for (precondition, _) in refuted {
            judgement.wrong.push(Wrong::HoldsIfButFails {
                line,
                precondition: precondition.to_string(),
            });
        }
    }
    judgement.other_checks = report
        .checks
        .iter()
        .filter(|c| !c.is_assertion() && super::memory_judge::classes_of(&c.kind).is_none())
        .count();
    judgement
}

/// The error name of a failed assertion in [`Held`].
pub const ASSERTION: &str = "assert";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::soundness::report::Check;

    fn check(line: u32, verdict: Verdict) -> Check {
        Check {
            kind: "assert".to_string(),
            line: Some(line),
            verdict,
            function: Some("main".to_string()),
            precondition: (verdict == Verdict::HoldsIf).then(|| "x > 0".to_string()),
        }
    }

    fn report(checks: &[Check], all_proved: bool) -> Report {
        Report {
            all_proved,
            checks: checks.to_vec(),
        }
    }

    #[test]
    fn finds_every_kind_of_wrong_verdict() {
        let at: BTreeMap<u32, usize> = [(10, 0), (11, 1), (12, 2), (13, 3)].into();
        let failed: BTreeSet<usize> = [0, 3].into();
        let none = Held::default();
        let checks = [
            check(10, Verdict::Proved),
            check(11, Verdict::Violated),
            check(12, Verdict::Unknown),
            check(99, Verdict::Proved),
        ];
        // (A report with a violated check never proves the program; the flag is forced
        // here to see every kind at once.)
        let j = judge(&report(&checks, true), &at, &failed, &none, true);
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
        let j = judge(&report(&checks, false), &at, &failed, &none, false);
        assert_eq!(j.wrong, [Wrong::ProvedButFails { id: 0, line: 10 }]);
        assert_eq!(j.missed, [13]);
        // Inlined at two sites: proved at one, violated at the other.
        let checks = [check(10, Verdict::Proved), check(10, Verdict::Violated)];
        let j = judge(&report(&checks, false), &at, &failed, &none, true);
        assert_eq!(j.verdicts, [Verdict::Violated]);
        assert!(j.wrong.is_empty());
        let checks = [check(10, Verdict::Proved), check(10, Verdict::Unknown)];
        let j = judge(&report(&checks, false), &at, &failed, &none, true);
        assert_eq!(j.verdicts, [Verdict::Unknown]);
    }

    #[test]
    fn judges_each_holds_if_check_by_the_native_run_with_its_precondition() {
        let at: BTreeMap<u32, usize> = [(10, 0), (11, 1)].into();
        let failed: BTreeSet<usize> = [0, 1].into();
        let checks = [
            check(10, Verdict::HoldsIf),
            check(10, Verdict::Proved),
            check(11, Verdict::HoldsIf),
        ];
        // Line 10 failed while the precondition of check 0 held; line 11 only while that
        // of check 2 did not (a failure of another line does not count).
        let held = Held {
            errors: [
                (0, 10, ASSERTION.to_string()),
                (2, 10, ASSERTION.to_string()),
            ]
            .into(),
            unjudged: BTreeSet::new(),
        };
        let j = judge(&report(&checks, false), &at, &failed, &held, true);
        assert_eq!(j.verdicts, [Verdict::HoldsIf, Verdict::HoldsIf]);
        assert_eq!(
            j.wrong,
            [Wrong::HoldsIfButFails {
                line: 10,
                precondition: "x > 0".to_string()
            }]
        );
        // A precondition the harness could not evaluate is counted, not judged.
        let held = Held {
            errors: BTreeSet::new(),
            unjudged: [0].into(),
        };
        let j = judge(&report(&checks, false), &at, &failed, &held, true);
        assert!(j.wrong.is_empty());
        assert_eq!(j.holds_if_unjudged, 1);
    }
}
