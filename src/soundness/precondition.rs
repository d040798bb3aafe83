//! Judging `holds if P` natively: one more run of the oracle program in which the entry of
//! each such check's function evaluates `P` on the actual arguments.
//!
//! Each precondition gets a *slot* in the oracle runtime, a flag that says whether `P`
//! held at the entry of the innermost active invocation of its function: the entry saves
//! the flag and sets it to `P`, and a cleanup variable restores it when the invocation
//! returns (so a recursive call whose arguments do not satisfy `P` does not count as one
//! that does, and code outside any invocation never does). When an execution fails an
//! assertion or has a memory error, the runtime reports every slot set at that moment
//! with the line and the error; a check whose slot was set at a failure of its own line
//! (of its own kind) is a wrong `holds if`.
//!
//! The harness knows a function's entry from the generator ([`Line::Open`]: every function
//! of the calls generator, `main` and the functions of the memory generators); a `holds if`
//! on another function (the own generator's, csmith's, a function the report names
//! differently) is counted as not judged. (The own generator's `longjmp` would skip the
//! cleanup that restores a slot: its entries stay unmarked until slots are reset there.)

use super::oracle::{self, Rejection};
use super::render::{self, Conditions, OracleMode};
use super::report::{Report, Verdict};
use super::{Line, Skeleton};
use anyhow::{bail, Result};
use std::collections::BTreeSet;
use std::path::Path;

/// Most preconditions of one program (the runtime's `ORACLE_MAX_SLOTS`).
pub const MAX_SLOTS: usize = 1024;

/// A precondition the native run evaluates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Precondition {
    /// The check's index in the report.
    pub check: usize,
    /// Its slot in the oracle runtime.
    pub slot: usize,
    /// The function at whose entry it is evaluated.
    pub function: String,
    /// The C expression.
    pub expr: String,
}

/// What the run with the preconditions saw.
#[derive(Clone, Debug, Default)]
pub struct Held {
    /// `(check, line, error)`: an execution failed the assertion at `line` (the error is
    /// [`super::judge::ASSERTION`]) or had the memory `error` there while the precondition
    /// of `check` held.
    pub errors: BTreeSet<(usize, u32, String)>,
    /// The `holds if` checks whose precondition was not evaluated.
    pub unjudged: BTreeSet<usize>,
}

impl Held {
    /// The errors at `line` that happened while the precondition of `check` held, among
    /// those `keep` accepts.
    pub fn errors_of(&self, check: usize, line: u32, keep: impl Fn(&str) -> bool) -> Vec<&str> {
        self.errors
            .range((check, line, String::new())..)
            .take_while(|(c, l, _)| (*c, *l) == (check, line))
            .map(|(_, _, e)| e.as_str())
            .filter(|e| keep(e))
            .collect()
    }

    /// The `holds if` checks among `checks` (indices in `report`, all at `line`) that an
    /// execution refutes: an error `keep` accepts at `line` while the check's precondition
    /// held. Each is given with its precondition and that error; the checks not judged
    /// are counted in `unjudged`.
    pub fn refuted<'a>(
        &'a self,
        report: &'a Report,
        checks: &[usize],
        line: u32,
        keep: impl Fn(&str) -> bool,
        unjudged: &mut usize,
    ) -> Vec<(&'a str, &'a str)> {
        let mut refuted = Vec::new();
        for &k in checks {
            let check = &report.checks[k];
            if check.verdict != Verdict::HoldsIf {
                continue;
            }
            if self.unjudged.contains(&k) {
                *unjudged += 1;
            } else if let Some(error) = self.errors_of(k, line, &keep).first() {
                refuted.push((check.precondition.as_deref().unwrap_or_default(), *error));
            }
        }
        refuted
    }
}

/// The preconditions of the located `holds if` checks of `report` whose function's entry
/// the skeleton marks, and the other `holds if` checks (not judged). A precondition that
/// could be more than an expression (`;`, braces, a directive, a line break) is an error
/// of the report.
pub fn plan(report: &Report, skeleton: &Skeleton) -> Result<(Vec<Precondition>, BTreeSet<usize>)> {
    let functions: BTreeSet<&str> = skeleton
        .lines
        .iter()
        .filter_map(|l| match l {
            Line::Open { function, .. } => Some(function.as_str()),
            _ => None,
        })
        .collect();
    let sanitized = skeleton
        .oracle_cflags
        .iter()
        .any(|f| f == "-fsanitize=address");
    let mut planned = Vec::new();
    let mut unjudged = BTreeSet::new();
    for (k, check) in report.checks.iter().enumerate() {
        if check.verdict != Verdict::HoldsIf || check.line.is_none() {
            continue;
        }
        let expr = check.precondition.clone().unwrap_or_default();
        if expr.contains([';', '{', '}', '#', '\n', '\r']) {
            bail!("the precondition `{expr}` is not a C expression");
        }
        // `size(p)` is measured by the address sanitizer's shadow memory.
        let expr = match object_sizes(&expr) {
            Some(_) if !sanitized => None,
            Some(native) => Some(native),
            None => Some(expr),
        };
        match (check.function.as_deref(), expr) {
            (Some(f), Some(expr)) if functions.contains(f) && planned.len() < MAX_SLOTS => planned
                .push(Precondition {
                    check: k,
                    slot: planned.len(),
                    function: f.to_string(),
                    expr,
                }),
            _ => {
                unjudged.insert(k);
            }
        }
    }
    Ok((planned, unjudged))
}

/// `expr` with each `size(p)` (the bytes of `p`'s object from `p` on) measured by the
/// oracle runtime, `None` when it has none.
fn object_sizes(expr: &str) -> Option<String> {
    let mut out = String::new();
    let mut rest = expr;
    let mut found = false;
    while let Some(at) = rest.find("size(") {
        let before = rest[..at].chars().next_back();
        out.push_str(&rest[..at]);
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            out.push_str("size(");
        } else {
            out.push_str("oracle_object_size(");
            found = true;
        }
        rest = &rest[at + "size(".len()..];
    }
    out.push_str(rest);
    found.then_some(out)
}

/// Runs the oracle program of `skeleton` with `conditions` and `preconditions` for every
/// valuation; `unjudged` passes through to the result.
pub fn observe(
    dir: &Path,
    skeleton: &Skeleton,
    conditions: &Conditions,
    preconditions: &[Precondition],
    unjudged: BTreeSet<usize>,
) -> Result<std::result::Result<Held, Rejection>> {
    let mut held = Held {
        errors: BTreeSet::new(),
        unjudged,
    };
    if preconditions.is_empty() {
        return Ok(Ok(held));
    }
    let text = render::oracle_text(skeleton, OracleMode::Assert(conditions), preconditions);
    let observed = match oracle::observe(dir, "preconditions", &text, &oracle::cflags(skeleton))? {
        Ok(o) => o,
        Err(rejection) => return Ok(Err(rejection)),
    };
    for (slot, line, error) in observed.held {
        if let Some(p) = preconditions.iter().find(|p| p.slot == slot) {
            held.errors.insert((p.check, line, error));
        }
    }
    Ok(Ok(held))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::soundness::judge::{self, Wrong};
    use crate::soundness::report::Check;
    use crate::soundness::{AssertStyle, CType};
    use std::collections::BTreeMap;

    #[test]
    fn object_sizes_are_measured_by_the_runtime() {
        assert_eq!(
            object_sizes("4*n <= size(a) || size(b) >= 2").as_deref(),
            Some("4*n <= oracle_object_size(a) || oracle_object_size(b) >= 2")
        );
        assert_eq!(object_sizes("n >= 1 && bufsize >= 2"), None);
    }

    /// `f(n)` asserts `n < 3` and recurses on `n - 1`; `main` calls it with `n` in 0..=4.
    fn recursive_program() -> (Skeleton, Conditions) {
        let text = |t: &str| Line::Text(t.to_string());
        let skeleton = Skeleton {
            lines: vec![
                Line::Open {
                    text: "static int f(int n) {".to_string(),
                    function: "f".to_string(),
                },
                Line::Probe {
                    id: 1,
                    expr: "n".to_string(),
                    ty: CType::I32,
                },
                text("  if (n <= 0) return 0;"),
                text("  return 1 + f(n - 1);"),
                text("}"),
                Line::Open {
                    text: "int main(void) {".to_string(),
                    function: "main".to_string(),
                },
                Line::Input {
                    name: "k".to_string(),
                    ty: CType::I32,
                    nondet: "__VERIFIER_nondet_int",
                    lo: 0,
                    hi: 4,
                },
                text("  return f(k) == 7;"),
                text("}"),
            ],
            includes: Vec::new(),
            style: AssertStyle::SvComp,
            cflags: Vec::new(),
            oracle_cflags: Vec::new(),
            analysis_cflags: Vec::new(),
            analysis_checks: None,
            record_memory_errors: false,
            classes: Vec::new(),
        };
        let conditions: Conditions = [(1, "n < 3".to_string())].into();
        (skeleton, conditions)
    }

    /// Judges the assertion of [`recursive_program`] answered `holds if P` on `function`.
    fn wrong_with(function: &str, precondition: &str) -> Vec<Wrong> {
        let (skeleton, conditions) = recursive_program();
        let (_, assertion_at) = render::analysis_text(&skeleton, &conditions);
        let (&line, _) = assertion_at.iter().next().unwrap();
        let report = Report {
            all_proved: false,
            checks: vec![Check {
                kind: "assert".to_string(),
                line: Some(line),
                verdict: Verdict::HoldsIf,
                function: Some(function.to_string()),
                precondition: Some(precondition.to_string()),
            }],
        };
        let dir = tempfile::tempdir().unwrap();
        let failing = oracle::observe(
            dir.path(),
            "oracle",
            &render::oracle_text(&skeleton, OracleMode::Assert(&conditions), &[]),
            &oracle::cflags(&skeleton),
        )
        .unwrap()
        .unwrap();
        assert_eq!(failing.failed, [1].into(), "the assertion fails natively");
        let (planned, unjudged) = plan(&report, &skeleton).unwrap();
        let held = observe(dir.path(), &skeleton, &conditions, &planned, unjudged)
            .unwrap()
            .unwrap();
        let at: BTreeMap<u32, usize> = assertion_at;
        judge::judge(&report, &at, &failing.failed, &held, true).wrong
    }

    #[test]
    fn a_precondition_that_implies_the_assertion_is_right() {
        // Evaluated at each invocation's own entry: the outer call of `f(4)` does not
        // satisfy `n < 3`, its inner call `f(2)` does, and passes.
        assert!(wrong_with("f", "n < 3").is_empty());
        assert!(wrong_with("f", "n <= 1 || n == 2").is_empty());
        assert!(wrong_with("f", "0").is_empty());
        // Over `main`'s entry, where nothing is known about `n`: only a false one holds.
        assert!(wrong_with("main", "0").is_empty());
    }

    #[test]
    fn a_precondition_that_admits_a_failure_is_wrong() {
        for (function, precondition) in [("f", "1"), ("f", "n < 4"), ("main", "1")] {
            let wrong = wrong_with(function, precondition);
            assert!(
                matches!(wrong.as_slice(), [Wrong::HoldsIfButFails { .. }]),
                "holds if `{precondition}` on {function}: {wrong:?}"
            );
        }
    }

    #[test]
    fn a_precondition_that_is_more_than_an_expression_is_refused() {
        let (skeleton, _) = recursive_program();
        let report = Report {
            all_proved: false,
            checks: vec![Check {
                kind: "assert".to_string(),
                line: Some(3),
                verdict: Verdict::HoldsIf,
                function: Some("f".to_string()),
                precondition: Some("1); exit(0".to_string()),
            }],
        };
        assert!(plan(&report, &skeleton).is_err());
        // An unknown function is not judged.
        let mut report = report;
        report.checks[0].precondition = Some("n > 0".to_string());
        report.checks[0].function = Some("g".to_string());
        let (planned, unjudged) = plan(&report, &skeleton).unwrap();
        assert!(planned.is_empty());
        assert_eq!(unjudged, [0].into());
    }
}
