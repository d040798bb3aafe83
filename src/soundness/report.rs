//! What the harness reads of a `polyfocus check --format json` report: the program-level
//! verdict and, for each check, its kind, line, verdict, function and precondition.
//!
//! A check is an object of the report's `checks` array:
//!
//! ```json
//! {"kind": "assert", "function": "scale", "location": "prog.c:12:3",
//!  "verdict": "holds if", "precondition": "x >= 0 && x < n"}
//! ```
//!
//! - `kind` is `assert` for assertions (also when absent), a memory kind (`bounds`, `null`,
//!   `free`, ...: the table of [`super::memory_judge`]; a memory check whose `subproperty`
//!   is `valid-memtrack` is read as kind `leak`), or another runtime check (`overflow`,
//!   `div`, `shift`, not judged here);
//! - `verdict` is `proved`, `violated`, `unknown` or `holds if`;
//! - with `holds if`, `precondition` is a C expression over the parameters of `function`
//!   (their names in the source) and the program's globals. It claims: every execution of
//!   the check during an invocation of `function` whose arguments, at its entry, satisfy the
//!   precondition passes the check. The harness evaluates it natively at each entry of
//!   `function` ([`super::precondition`]).

use super::render::PROGRAM_FILE;
use anyhow::{bail, Context, Result};
use serde_json::Value;

/// The analyzer's verdict on one check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    /// `proved`.
    Proved,
    /// `violated` (the analyzer replayed a counterexample natively).
    Violated,
    /// `unknown`.
    Unknown,
    /// `holds if P`: proved for the executions whose entry arguments satisfy `P`.
    HoldsIf,
}

impl Verdict {
    /// The word of the JSON report.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Proved => "proved",
            Verdict::Violated => "violated",
            Verdict::Unknown => "unknown",
            Verdict::HoldsIf => "holds if",
        }
    }

    /// The verdict of one line from those of its checks (an assertion in a function inlined
    /// at several call sites has one check per site, and a site the failing executions
    /// never reach may rightly be proved): `violated` if some check is violated (it claims
    /// an execution fails), `proved` if every check is (none does), `holds if` if every
    /// check is proved or holds under a precondition, `unknown` otherwise.
    pub fn merge(verdicts: &[Verdict]) -> Verdict {
        if verdicts.contains(&Verdict::Violated) {
            Verdict::Violated
        } else if verdicts.iter().all(|v| *v == Verdict::Proved) {
            Verdict::Proved
        } else if verdicts
            .iter()
            .all(|v| matches!(v, Verdict::Proved | Verdict::HoldsIf))
        {
            Verdict::HoldsIf
        } else {
            Verdict::Unknown
        }
    }
}

/// What the harness reads of a `polyfocus check --format json` report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// Whether the program-level verdict is `true` (every assertion proved, or none found).
    pub all_proved: bool,
    /// The checks, in the report's order (a check's index is its position here).
    pub checks: Vec<Check>,
}

/// One check of the JSON report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    /// Its kind (`assert` when the report gives none).
    pub kind: String,
    /// The line of its location in the program file, if any.
    pub line: Option<u32>,
    /// Its verdict.
    pub verdict: Verdict,
    /// The function it was analyzed in, if the report names one.
    pub function: Option<String>,
    /// With [`Verdict::HoldsIf`], the precondition (a C expression).
    pub precondition: Option<String>,
}

impl Check {
    /// Whether it checks an assertion.
    pub fn is_assertion(&self) -> bool {
        self.kind == "assert"
    }
}

/// Reads a `polyfocus check --format json` report.
pub fn parse(json: &str) -> Result<Report> {
    let report: Value = serde_json::from_str(json).context("the report is not JSON")?;
    let checks = report["checks"]
        .as_array()
        .context("the report has no `checks`")?;
    Ok(Report {
        all_proved: report["verdict"] == "true",
        checks: checks.iter().map(parse_check).collect::<Result<_>>()?,
    })
}

fn parse_check(check: &Value) -> Result<Check> {
    let verdict = match check["verdict"].as_str() {
        Some("proved") => Verdict::Proved,
        Some("violated") => Verdict::Violated,
        Some("unknown") => Verdict::Unknown,
        Some("holds if") => Verdict::HoldsIf,
        other => bail!("unexpected verdict {other:?}"),
    };
    let precondition = check["precondition"].as_str().map(str::to_string);
    if verdict == Verdict::HoldsIf
        && precondition
            .as_deref()
            .map_or(true, |p| p.trim().is_empty())
    {
        bail!("a `holds if` check without a precondition: {check}");
    }
    Ok(Check {
        // A leak check is judged against leaked objects, not against the accesses of its
        // line (`memory_judge`).
        kind: if check["subproperty"] == "valid-memtrack" {
            super::memory_judge::LEAK.to_string()
        } else {
            check["kind"].as_str().unwrap_or("assert").to_string()
        },
        line: check["location"].as_str().and_then(line_in_program),
        verdict,
        function: check["function"].as_str().map(str::to_string),
        precondition,
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_locations() {
        assert_eq!(line_in_program("/tmp/x/prog.c:12:3"), Some(12));
        assert_eq!(line_in_program("prog.c:7"), Some(7));
        assert_eq!(line_in_program("other.c:7:1"), None);
    }

    #[test]
    fn reads_kinds_verdicts_and_preconditions() {
        let report = parse(
            r#"{"verdict": "unknown", "checks": [
                {"location": "prog.c:4:1", "verdict": "proved"},
                {"kind": "bounds", "function": "f", "location": "prog.c:5:2",
                 "verdict": "holds if", "precondition": "n <= 4"}]}"#,
        )
        .unwrap();
        assert!(!report.all_proved);
        assert!(report.checks[0].is_assertion());
        assert_eq!(report.checks[1].kind, "bounds");
        assert_eq!(report.checks[1].verdict, Verdict::HoldsIf);
        assert_eq!(report.checks[1].precondition.as_deref(), Some("n <= 4"));
        assert_eq!(report.checks[1].function.as_deref(), Some("f"));
        // `holds if` means nothing without its precondition.
        let bare = r#"{"checks": [{"location": "prog.c:4:1", "verdict": "holds if"}]}"#;
        assert!(parse(bare).is_err());
    }

    #[test]
    fn merges_the_checks_of_one_line() {
        use Verdict::*;
        assert_eq!(Verdict::merge(&[Proved, Violated]), Violated);
        assert_eq!(Verdict::merge(&[Proved, Proved]), Proved);
        assert_eq!(Verdict::merge(&[Proved, HoldsIf]), HoldsIf);
        assert_eq!(Verdict::merge(&[HoldsIf, Unknown]), Unknown);
    }
}
