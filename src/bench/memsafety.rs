//! SV-COMP's `valid-memsafety` answered from a report of `check --checks memory --format json`.
//!
//! The property is three subproperties: `valid-deref` (every access within a live object),
//! `valid-free` (every `free` of a live allocated block) and `valid-memtrack` (no leak). Each
//! memory check of the report names the one it belongs to (`subproperty`, from
//! `ir::CheckKind::memsafety_subproperty`).
//!
//! - `FALSE(sub)`: a memory check is violated, which means a native replay under the address
//!   sanitizer stopped at that very access, free or leak; `sub` is its subproperty (the first
//!   violated check in the report's order, which is the source's).
//! - `TRUE`: the whole report is proved, every memory check of it is proved, and the report
//!   says that its leak checks cover the whole program (`"leaks": {"covered": true}`: every
//!   object the program may allocate has a leak check, `frontend/leak_coverage.rs`), so that
//!   a program with no leak check, one that allocates nothing, loses nothing either.
//!   Without that nothing says that no memory is lost, and the answer is `UNKNOWN` ("leaks
//!   are not checked", with the report's reason when it gives one).
//! - `UNKNOWN` otherwise, with the first unknown check's reason.

use super::classify::{UnknownReason, Verdict};
use super::manifest::Expected;
use serde::Deserialize;

/// The answer to `valid-memsafety`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MemSafetyAnswer {
    /// Every subproperty holds.
    True,
    /// A replayed violation of this subproperty.
    False(String),
    /// Neither, and why.
    Unknown(String),
}

impl MemSafetyAnswer {
    /// SV-COMP's spelling: `TRUE`, `FALSE(valid-deref)`, `UNKNOWN`.
    pub fn verdict_text(&self) -> String {
        match self {
            MemSafetyAnswer::True => "TRUE".to_string(),
            MemSafetyAnswer::False(sub) => format!("FALSE({sub})"),
            MemSafetyAnswer::Unknown(_) => "UNKNOWN".to_string(),
        }
    }
}

/// The reason of `UNKNOWN` when the report says nothing of leaks.
pub const LEAKS_NOT_CHECKED: &str = "leaks are not checked";

#[derive(Deserialize)]
struct Report {
    verdict: String,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    leaks: Option<Leaks>,
    #[serde(default)]
    checks: Vec<Check>,
}

/// Whether the leak checks cover the whole program, and why not.
#[derive(Deserialize)]
struct Leaks {
    covered: bool,
    #[serde(default)]
    reason: Option<String>,
}

#[derive(Deserialize)]
struct Check {
    #[serde(default)]
    subproperty: Option<String>,
    #[serde(default)]
    verdict: Option<String>,
    #[serde(default)]
    reason: Option<String>,
}

/// The answer of the JSON report on `stdout` (log lines before the object are skipped), or
/// `None` when there is no report to read.
pub fn answer(stdout: &str) -> Option<MemSafetyAnswer> {
    let report: Report = serde_json::from_str(stdout.trim()).ok().or_else(|| {
        let start = stdout.find('{')?;
        serde_json::from_str(stdout[start..].trim()).ok()
    })?;
    let memory: Vec<&Check> = report
        .checks
        .iter()
        .filter(|c| c.subproperty.is_some())
        .collect();
    if let Some(violated) = memory
        .iter()
        .find(|c| c.verdict.as_deref() == Some("violated"))
    {
        let sub = violated.subproperty.clone().unwrap_or_default();
        return Some(MemSafetyAnswer::False(sub));
    }
    let all_proved = report.verdict == "true"
        && report
            .checks
            .iter()
            .all(|c| c.verdict.as_deref() == Some("proved"));
    let leaks_covered = report.leaks.as_ref().is_some_and(|l| l.covered);
    Some(match (all_proved, leaks_covered) {
        (true, true) => MemSafetyAnswer::True,
        (true, false) => MemSafetyAnswer::Unknown(match report.leaks.and_then(|l| l.reason) {
            Some(why) => format!("unsupported: {LEAKS_NOT_CHECKED} over the whole program: {why}"),
            None => LEAKS_NOT_CHECKED.to_string(),
        }),
        (false, _) => {
            let reason = report
                .checks
                .iter()
                .filter(|c| c.verdict.as_deref() != Some("proved"))
                .find_map(|c| c.reason.clone())
                .or(report.reason)
                .unwrap_or_else(|| "unknown".to_string());
            MemSafetyAnswer::Unknown(reason)
        }
    })
}

/// The harness's verdict of a task of `valid-memsafety` from the answer: a violation counts
/// as the task's `false` only when it is of the subproperty the task names (`expected`
/// `false`); of another one, it is no answer (the task's own violation was not found). On a
/// true task any violation is a `false`, a wrong answer.
pub fn judge(
    answer: &MemSafetyAnswer,
    expected: Expected,
    subproperty: Option<&str>,
) -> (Verdict, Option<UnknownReason>, Option<String>) {
    match answer {
        MemSafetyAnswer::True => (Verdict::True, None, None),
        MemSafetyAnswer::False(sub) if expected != Expected::False || subproperty == Some(sub) => {
            (Verdict::False, None, Some(answer.verdict_text()))
        }
        MemSafetyAnswer::False(sub) => (
            Verdict::Unknown,
            Some(UnknownReason::Imprecise),
            Some(format!(
                "a violation of {sub} was found, not the task's ({})",
                subproperty.unwrap_or("none named")
            )),
        ),
        MemSafetyAnswer::Unknown(reason) => (
            Verdict::Unknown,
            Some(UnknownReason::from_analyzer(reason)),
            Some(reason.clone()),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn judges_the_subproperty() {
        let free = MemSafetyAnswer::False("valid-free".into());
        assert_eq!(
            judge(&free, Expected::False, Some("valid-free")).0,
            Verdict::False
        );
        assert_eq!(
            judge(&free, Expected::False, Some("valid-deref")).0,
            Verdict::Unknown
        );
        // A false alarm stays a false alarm.
        assert_eq!(judge(&free, Expected::True, None).0, Verdict::False);
        let open = MemSafetyAnswer::Unknown(LEAKS_NOT_CHECKED.into());
        assert_eq!(
            judge(&open, Expected::True, None).1,
            Some(UnknownReason::Imprecise)
        );
    }

    #[test]
    fn a_violation_names_its_subproperty() {
        let json = r#"{"verdict":"false","checks":[
            {"kind":"memory","subproperty":"valid-deref","verdict":"proved"},
            {"kind":"memory","subproperty":"valid-free","verdict":"violated"},
            {"kind":"memory","subproperty":"valid-deref","verdict":"violated"}]}"#;
        assert_eq!(
            answer(json),
            Some(MemSafetyAnswer::False("valid-free".into()))
        );
        assert_eq!(answer(json).unwrap().verdict_text(), "FALSE(valid-free)");
    }

    #[test]
    fn true_needs_every_check_proved_and_leaks_covered() {
        let proved = r#"{"verdict":"true","leaks":{"covered":true},"checks":[
            {"kind":"memory","subproperty":"valid-deref","verdict":"proved"},
            {"kind":"memory","subproperty":"valid-memtrack","verdict":"proved"}]}"#;
        assert_eq!(answer(proved), Some(MemSafetyAnswer::True));
        // A program that allocates nothing: no leak check, and none needed.
        let locals_only = r#"{"verdict":"true","leaks":{"covered":true},"checks":[
            {"kind":"memory","subproperty":"valid-deref","verdict":"proved"}]}"#;
        assert_eq!(answer(locals_only), Some(MemSafetyAnswer::True));
        // Proved leak checks do not say that every object has one.
        let partial = r#"{"verdict":"true","leaks":{"covered":false,"reason":"`f` is analyzed apart"},"checks":[
            {"kind":"memory","subproperty":"valid-memtrack","verdict":"proved"}]}"#;
        let Some(MemSafetyAnswer::Unknown(why)) = answer(partial) else {
            panic!("{:?}", answer(partial));
        };
        assert!(why.starts_with("unsupported: leaks are not checked over the whole program: `f`"));
        let no_leaks = r#"{"verdict":"true","checks":[
            {"kind":"memory","subproperty":"valid-deref","verdict":"proved"},
            {"kind":"memory","subproperty":"valid-memtrack","verdict":"proved"}]}"#;
        assert_eq!(
            answer(no_leaks),
            Some(MemSafetyAnswer::Unknown(LEAKS_NOT_CHECKED.into()))
        );
        let open = r#"{"verdict":"unknown","checks":[
            {"kind":"memory","subproperty":"valid-memtrack","verdict":"proved"},
            {"kind":"memory","subproperty":"valid-deref","verdict":"unknown","reason":"imprecise: loop"}]}"#;
        assert_eq!(
            answer(open),
            Some(MemSafetyAnswer::Unknown("imprecise: loop".into()))
        );
        assert_eq!(answer("not json"), None);
    }
}
