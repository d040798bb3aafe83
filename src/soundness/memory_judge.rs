//! Judges the checks of memory kinds against the memory errors of the native runs (the
//! first one of each execution, as the address sanitizer reports it, or UBSan's `bounds`
//! for a subscript outside an array of known size: its name and line),
//! and the leak checks against the objects LeakSanitizer finds leaked at the normal end of
//! an execution (by allocation line, [`LEAK`]).
//!
//! A check kind of the report claims something about some classes of memory errors; the
//! table [`KINDS`] says which. At a line, a check of a kind is wrong when it is `proved`
//! and some execution has an error of its classes there, `violated` when none has (judged
//! only when no execution stopped earlier at a memory error of another line, since an
//! execution ends at its first one), and `holds if P` when an execution has one there while
//! `P` held at the entry of the check's function. The checks of one line and kind combine
//! as the assertions' do ([`Verdict::merge`]).

use super::judge::{Judgement, Wrong};
use super::precondition::Held;
use super::report::{Report, Verdict};
use std::collections::{BTreeMap, BTreeSet};

/// A class of memory errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ErrorClass {
    /// An access outside its object (before its start or past its end), as the address
    /// sanitizer reports it.
    OutOfBounds,
    /// A subscript outside an array of known size, as UBSan's `bounds` reports it (first,
    /// before the access): what the `bounds` check speaks of, and nothing else does, since an
    /// index past a field's array may stay inside its object.
    IndexOutOfBounds,
    /// A dereference of `NULL` (an access in the zero page).
    NullDereference,
    /// An access to a freed object.
    UseAfterFree,
    /// A second `free` of one object.
    DoubleFree,
    /// A `free` of what `malloc` did not return.
    InvalidFree,
    /// An object left allocated and unreachable at the normal end of an execution
    /// (LeakSanitizer), at the line of its allocation.
    Leak,
    /// Any other report (a wild access, ...).
    Other,
}

/// The oracle's name of a leaked object, and the report's kind of a leak check (a memory
/// check of subproperty `valid-memtrack`, see [`super::report`]).
pub const LEAK: &str = "leak";

/// The check kinds of memory and the classes of errors each is about.
pub const KINDS: &[(&str, &[ErrorClass])] = &[
    ("bounds", &[ErrorClass::IndexOutOfBounds]),
    ("null", &[ErrorClass::NullDereference]),
    (
        "free",
        &[
            ErrorClass::UseAfterFree,
            ErrorClass::DoubleFree,
            ErrorClass::InvalidFree,
        ],
    ),
    ("use-after-free", &[ErrorClass::UseAfterFree]),
    // The analyzer's class `memory` (`--checks memory`): its checks of a line together
    // claim that no access or `free` there goes wrong.
    (
        "memory",
        &[
            ErrorClass::OutOfBounds,
            ErrorClass::NullDereference,
            ErrorClass::UseAfterFree,
            ErrorClass::DoubleFree,
            ErrorClass::InvalidFree,
        ],
    ),
    ("double-free", &[ErrorClass::DoubleFree]),
    ("invalid-free", &[ErrorClass::InvalidFree]),
    (LEAK, &[ErrorClass::Leak]),
];

/// The classes a check kind is about, or `None` when it is not a memory kind.
pub fn classes_of(kind: &str) -> Option<&'static [ErrorClass]> {
    KINDS.iter().find(|(k, _)| *k == kind).map(|(_, c)| *c)
}

/// The class of an error as the oracle runtime names it (the address sanitizer's name,
/// `null-dereference` for an access in the zero page, `bad-free` for an invalid free).
pub fn class_of(error: &str) -> ErrorClass {
    match error {
        "heap-buffer-overflow"
        | "stack-buffer-overflow"
        | "stack-buffer-underflow"
        | "global-buffer-overflow"
        | "dynamic-stack-buffer-overflow" => ErrorClass::OutOfBounds,
        "out-of-bounds-index" => ErrorClass::IndexOutOfBounds,
        "null-dereference" => ErrorClass::NullDereference,
        "heap-use-after-free" => ErrorClass::UseAfterFree,
        "double-free" => ErrorClass::DoubleFree,
        "bad-free" => ErrorClass::InvalidFree,
        LEAK => ErrorClass::Leak,
        _ => ErrorClass::Other,
    }
}

/// Judges the memory checks of `report` into `judgement`: `errors` holds the memory errors
/// of the native runs by line, `held` what the run with the preconditions saw, and
/// `exhaustive` whether the oracle enumerated every execution.
pub fn judge(
    report: &Report,
    errors: &BTreeMap<u32, BTreeSet<String>>,
    held: &Held,
    exhaustive: bool,
    judgement: &mut Judgement,
) {
    let mut by_site: BTreeMap<(u32, &str), Vec<usize>> = BTreeMap::new();
    for (k, check) in report.checks.iter().enumerate() {
        if classes_of(&check.kind).is_none() {
            continue;
        }
        match check.line {
            Some(line) => by_site
                .entry((line, check.kind.as_str()))
                .or_default()
                .push(k),
            None => judgement.unlocated += 1,
        }
    }
    let no_errors = BTreeSet::new();
    for (&(line, kind), checks) in &by_site {
        let classes = classes_of(kind).unwrap_or(&[]);
        let of_kind = |e: &str| classes.contains(&class_of(e));
        let here = errors.get(&line).unwrap_or(&no_errors);
        let first_error = here.iter().find(|e| of_kind(e));
        // Every execution ran to its end, or stopped at an error site or at this line.
        let complete = exhaustive && errors.keys().all(|l| *l == line);
        let verdicts: Vec<Verdict> = checks.iter().map(|&k| report.checks[k].verdict).collect();
        let verdict = Verdict::merge(&verdicts);
        judgement.memory_verdicts.push(verdict);
        match (verdict, first_error) {
            (Verdict::Proved, Some(error)) => judgement.wrong.push(Wrong::MemoryProvedButErrs {
                line,
                kind: kind.to_string(),
                error: error.clone(),
            }),
            (Verdict::Violated, None) if complete => {
                judgement.wrong.push(Wrong::MemoryViolatedButClean {
                    line,
                    kind: kind.to_string(),
                })
            }
            _ => {}
        }
        let refuted = held.refuted(
            report,
            checks,
            line,
            of_kind,
            &mut judgement.holds_if_unjudged,
        );
        for (precondition, error) in refuted {
            judgement.wrong.push(Wrong::MemoryHoldsIfButErrs {
                line,
                kind: kind.to_string(),
                precondition: precondition.to_string(),
                error: error.to_string(),
            });
        }
    }
    // The errors no check of the line is about.
    for (&line, here) in errors {
        let covered: BTreeSet<ErrorClass> = by_site
            .keys()
            .filter(|(l, _)| *l == line)
            .flat_map(|(_, kind)| classes_of(kind).unwrap_or(&[]).iter().copied())
            .collect();
        let classes: BTreeSet<ErrorClass> = here.iter().map(|e| class_of(e)).collect();
        judgement.memory_unchecked += classes.difference(&covered).count();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::soundness::report::Check;

    fn check(kind: &str, line: u32, verdict: Verdict) -> Check {
        Check {
            kind: kind.to_string(),
            line: Some(line),
            verdict,
            function: Some("main".to_string()),
            precondition: (verdict == Verdict::HoldsIf).then(|| "1".to_string()),
        }
    }

    fn run(checks: &[Check], errors: &[(u32, &str)], held: &Held) -> Judgement {
        let report = Report {
            all_proved: false,
            checks: checks.to_vec(),
        };
        let mut by_line: BTreeMap<u32, BTreeSet<String>> = BTreeMap::new();
        for (line, e) in errors {
            by_line.entry(*line).or_default().insert(e.to_string());
        }
        let mut judgement = Judgement::default();
        judge(&report, &by_line, held, true, &mut judgement);
        judgement
    }

    #[test]
    fn every_class_has_a_kind() {
        for class in [
            ErrorClass::OutOfBounds,
            ErrorClass::IndexOutOfBounds,
            ErrorClass::NullDereference,
            ErrorClass::UseAfterFree,
            ErrorClass::DoubleFree,
            ErrorClass::InvalidFree,
            ErrorClass::Leak,
        ] {
            assert!(KINDS.iter().any(|(_, c)| c.contains(&class)), "{class:?}");
        }
        assert_eq!(class_of("stack-buffer-underflow"), ErrorClass::OutOfBounds);
        assert_eq!(classes_of("overflow"), None);
    }

    #[test]
    fn finds_wrong_memory_verdicts() {
        let none = Held::default();
        // A heap overflow at line 5: `memory` proved there is wrong; `null` proved is not,
        // nor `bounds` (a subscript of an array of known size: UBSan would have stopped
        // first). An index past an array at line 6: `bounds` proved there is wrong.
        let j = run(
            &[
                check("memory", 5, Verdict::Proved),
                check("null", 5, Verdict::Proved),
                check("bounds", 5, Verdict::Proved),
                check("bounds", 6, Verdict::Proved),
            ],
            &[(5, "heap-buffer-overflow"), (6, "out-of-bounds-index")],
            &none,
        );
        assert_eq!(
            j.wrong,
            [
                Wrong::MemoryProvedButErrs {
                    line: 5,
                    kind: "memory".to_string(),
                    error: "heap-buffer-overflow".to_string()
                },
                Wrong::MemoryProvedButErrs {
                    line: 6,
                    kind: "bounds".to_string(),
                    error: "out-of-bounds-index".to_string()
                }
            ]
        );
        assert_eq!(j.memory_verdicts.len(), 4);
        assert_eq!(j.memory_unchecked, 0);
        // A double free: `free` violated is right, `bounds` violated is wrong.
        let j = run(
            &[
                check("free", 7, Verdict::Violated),
                check("bounds", 7, Verdict::Violated),
            ],
            &[(7, "double-free")],
            &none,
        );
        assert_eq!(
            j.wrong,
            [Wrong::MemoryViolatedButClean {
                line: 7,
                kind: "bounds".to_string()
            }]
        );
        // An execution stopped at line 3 might have erred at line 7 later: not judged.
        let j = run(
            &[check("bounds", 7, Verdict::Violated)],
            &[(3, "heap-use-after-free")],
            &none,
        );
        assert!(j.wrong.is_empty());
        assert_eq!(j.memory_unchecked, 1);
        // No memory check at all: the errors are counted as not checked.
        let j = run(&[], &[(3, "null-dereference"), (4, "bad-free")], &none);
        assert!(j.wrong.is_empty());
        assert_eq!(j.memory_unchecked, 2);
        assert!(j.memory_verdicts.is_empty());
    }

    #[test]
    fn judges_leak_checks_against_leaked_objects() {
        let none = Held::default();
        // An object allocated at line 4 leaked in some execution: the leak check there is
        // wrong when proved; the access checks of that line are not about leaks.
        let j = run(
            &[
                check(LEAK, 4, Verdict::Proved),
                check("memory", 4, Verdict::Proved),
            ],
            &[(4, LEAK)],
            &none,
        );
        assert_eq!(
            j.wrong,
            [Wrong::MemoryProvedButErrs {
                line: 4,
                kind: LEAK.to_string(),
                error: LEAK.to_string()
            }]
        );
        // Violated while no execution leaks anything: wrong.
        let j = run(&[check(LEAK, 9, Verdict::Violated)], &[], &none);
        assert_eq!(
            j.wrong,
            [Wrong::MemoryViolatedButClean {
                line: 9,
                kind: LEAK.to_string()
            }]
        );
    }

    #[test]
    fn judges_holds_if_on_memory_errors() {
        let held = Held {
            errors: [(0, 5, "heap-buffer-overflow".to_string())].into(),
            unjudged: BTreeSet::new(),
        };
        let j = run(
            &[check("memory", 5, Verdict::HoldsIf)],
            &[(5, "heap-buffer-overflow")],
            &held,
        );
        assert!(matches!(
            j.wrong.as_slice(),
            [Wrong::MemoryHoldsIfButErrs { line: 5, .. }]
        ));
        // A `null` check is not about an overflow that happened under its precondition.
        let j = run(
            &[check("null", 5, Verdict::HoldsIf)],
            &[(5, "heap-buffer-overflow")],
            &held,
        );
        assert!(j.wrong.is_empty());
    }
}
