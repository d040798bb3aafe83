//! From a child's outcome to a verdict, and from a verdict and the expected one to a class.
//!
//! The analyzer's contract (`polyfocus check --format json`): exit 0 (verdict `true`), 1
//! (`false`) or 2 (`unknown`) with one JSON object on stdout carrying `verdict` and `reason`;
//! exit 3 for usage or input errors. Everything else is interpreted here, in this order:
//!
//! 1. killed by the harness at the wall-time limit, or by `SIGXCPU` → unknown, `timeout`;
//! 2. exit 0/1/2 with a parsable JSON verdict → that verdict (and the analyzer's reason);
//! 3. otherwise, the **memout heuristic**: `RLIMIT_AS` makes allocations fail rather than
//!    the kernel kill the process, so an out-of-memory child dies of its own allocation
//!    failure. It is reported as `memout` when its stderr carries one of the usual messages
//!    (Rust `memory allocation of N bytes failed`, C++ `std::bad_alloc`, LLVM/glibc
//!    `out of memory`, Python `MemoryError`, coreutils `memory exhausted`, `Cannot allocate
//!    memory`), or when it was killed by `SIGKILL` without a timeout (the kernel's OOM killer),
//!    or when it died abnormally with a peak resident set above 90% of the limit;
//! 4. otherwise → unknown, `crash` (an exit status outside {0, 1, 2}, e.g. 3 for an input
//!    error, a signal, or unparsable output), with the first `error:` line or the last line of
//!    stderr kept as detail.

use super::manifest::Expected;
use super::runner::{ChildOutcome, Termination};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The verdict of one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// No assertion can fail.
    True,
    /// Some assertion fails.
    False,
    /// Neither.
    Unknown,
}

impl Verdict {
    /// `true`, `false` or `unknown`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::True => "true",
            Verdict::False => "false",
            Verdict::Unknown => "unknown",
        }
    }
}

/// Why a run has no verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UnknownReason {
    /// The wall-time limit (or the analyzer's own time budget) was exceeded.
    Timeout,
    /// The memory limit was exceeded.
    Memout,
    /// The analyzer's own resource budget (other than time) was exhausted.
    Budget,
    /// The analysis finished but could neither prove nor refute.
    Imprecise,
    /// The program uses a feature the analyzer does not support.
    Unsupported,
    /// The analyzer failed: a signal, a bad exit status, an input error or unparsable output.
    Crash,
}

impl UnknownReason {
    /// Every reason, in display order.
    pub const ALL: [UnknownReason; 6] = [
        UnknownReason::Timeout,
        UnknownReason::Memout,
        UnknownReason::Budget,
        UnknownReason::Imprecise,
        UnknownReason::Unsupported,
        UnknownReason::Crash,
    ];

    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            UnknownReason::Timeout => "timeout",
            UnknownReason::Memout => "memout",
            UnknownReason::Budget => "budget",
            UnknownReason::Imprecise => "imprecise",
            UnknownReason::Unsupported => "unsupported",
            UnknownReason::Crash => "crash",
        }
    }

    /// Maps the analyzer's `reason` field (which may carry a suffix, `imprecise: ...`).
    pub fn from_analyzer(text: &str) -> UnknownReason {
        let head = text.split(':').next().unwrap_or("").trim();
        match head {
            "timeout" => UnknownReason::Timeout,
            "memout" => UnknownReason::Memout,
            "budget" => UnknownReason::Budget,
            "unsupported" => UnknownReason::Unsupported,
            "crash" => UnknownReason::Crash,
            _ => UnknownReason::Imprecise,
        }
    }
}

impl fmt::Display for UnknownReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a run's verdict compares with the expected one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// Verdict `true`, expected `true`.
    CorrectTrue,
    /// Verdict `false`, expected `false`.
    CorrectFalse,
    /// No verdict (the reason says why) on a task with an expected verdict.
    Unknown,
    /// Verdict `true`, expected `false`: unsound.
    WrongTrue,
    /// Verdict `false`, expected `true`: a false alarm reported as a violation.
    WrongFalse,
    /// The task has no expected verdict.
    #[serde(rename = "n/a")]
    NotApplicable,
}

impl Class {
    /// Classifies `verdict` against `expected`.
    pub fn of(expected: Expected, verdict: Verdict) -> Class {
        match (expected, verdict) {
            (Expected::NotApplicable, _) => Class::NotApplicable,
            (_, Verdict::Unknown) => Class::Unknown,
            (Expected::True, Verdict::True) => Class::CorrectTrue,
            (Expected::False, Verdict::False) => Class::CorrectFalse,
            (Expected::False, Verdict::True) => Class::WrongTrue,
            (Expected::True, Verdict::False) => Class::WrongFalse,
        }
    }

    /// The SV-COMP score: +2 correct true, +1 correct false, -32 wrong true, -16 wrong false.
    pub fn score(self) -> i64 {
        match self {
            Class::CorrectTrue => 2,
            Class::CorrectFalse => 1,
            Class::WrongTrue => -32,
            Class::WrongFalse => -16,
            Class::Unknown | Class::NotApplicable => 0,
        }
    }

    /// Whether the verdict is the expected one.
    pub fn is_correct(self) -> bool {
        matches!(self, Class::CorrectTrue | Class::CorrectFalse)
    }

    /// Whether the verdict contradicts the expected one.
    pub fn is_wrong(self) -> bool {
        matches!(self, Class::WrongTrue | Class::WrongFalse)
    }

    /// The kebab-case name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Class::CorrectTrue => "correct-true",
            Class::CorrectFalse => "correct-false",
            Class::Unknown => "unknown",
            Class::WrongTrue => "wrong-true",
            Class::WrongFalse => "wrong-false",
            Class::NotApplicable => "n/a",
        }
    }
}

/// The analyzer's answer as read from a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interpretation {
    /// The verdict.
    pub verdict: Verdict,
    /// Why there is no verdict (only for `Unknown`).
    pub reason: Option<UnknownReason>,
    /// A short human-readable explanation (analyzer reason text, error line, signal).
    pub detail: Option<String>,
    /// The time the analyzer reported itself, if any.
    pub analyzer_time_ms: Option<u64>,
    /// Predicate refinement figures, summed over functions, when refinement ran.
    pub refinement: Option<super::json::RefinementRow>,
}

/// Reads the verdict out of a run of `polyfocus check --format json` (see the module doc).
pub fn interpret(outcome: &ChildOutcome, memory_limit_bytes: Option<u64>) -> Interpretation {
    let unknown = |reason: UnknownReason, detail: Option<String>| Interpretation {
        verdict: Verdict::Unknown,
        reason: Some(reason),
        detail,
        analyzer_time_ms: None,
        refinement: None,
    };
    if outcome.timed_out {
        return unknown(
            UnknownReason::Timeout,
            Some(format!("killed after {:.1} s", outcome.wall.as_secs_f64())),
        );
    }
    if outcome.termination == Termination::Signaled(libc::SIGXCPU) {
        return unknown(
            UnknownReason::Timeout,
            Some("CPU-time limit (SIGXCPU)".into()),
        );
    }
    if let Termination::Exited(code @ 0..=2) = outcome.termination {
        if let Some(mut parsed) = parse_report(&outcome.stdout) {
            let expected_code = match parsed.verdict {
                Verdict::True => 0,
                Verdict::False => 1,
                Verdict::Unknown => 2,
            };
            if code != expected_code {
                let note = format!(
                    "exit status {code} disagrees with verdict {}",
                    parsed.verdict.as_str()
                );
                parsed.detail = Some(match parsed.detail {
                    Some(d) => format!("{d}; {note}"),
                    None => note,
                });
            }
            return parsed;
        }
    }
    if let Some(detail) = memout_evidence(outcome, memory_limit_bytes) {
        return unknown(UnknownReason::Memout, Some(detail));
    }
    let status = match outcome.termination {
        Termination::Exited(code) => format!("exit status {code}"),
        Termination::Signaled(sig) => format!("signal {} ({})", sig, signal_name(sig)),
    };
    let what = match outcome.termination {
        Termination::Exited(0..=2) => format!("{status}, unparsable output"),
        _ => status,
    };
    let detail = match stderr_summary(&outcome.stderr) {
        Some(line) => format!("{what}: {line}"),
        None => what,
    };
    unknown(UnknownReason::Crash, Some(detail))
}

/// The JSON object printed by `polyfocus check --format json`, as far as the harness needs it.
#[derive(Deserialize)]
struct CheckReport {
    verdict: String,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    time_ms: Option<u64>,
    #[serde(default)]
    checks: Vec<CheckEntry>,
    #[serde(default)]
    refinement: Vec<super::json::RefinementRow>,
}

#[derive(Deserialize)]
struct CheckEntry {
    #[serde(default)]
    verdict: Option<String>,
    #[serde(default)]
    reason: Option<String>,
}

/// Parses the analyzer's JSON; tolerates log lines before the object.
fn parse_report(stdout: &str) -> Option<Interpretation> {
    let report: CheckReport = serde_json::from_str(stdout.trim()).ok().or_else(|| {
        let start = stdout.find('{')?;
        serde_json::from_str(stdout[start..].trim()).ok()
    })?;
    let verdict = match report.verdict.as_str() {
        "true" => Verdict::True,
        "false" => Verdict::False,
        "unknown" => Verdict::Unknown,
        _ => return None,
    };
    // The first unknown check's reason is more telling than the overall one.
    let check_reason = report
        .checks
        .iter()
        .filter(|c| c.verdict.as_deref() == Some("unknown"))
        .find_map(|c| c.reason.clone());
    let (reason, detail) = match verdict {
        Verdict::Unknown => {
            let text = report.reason.clone().or(check_reason.clone());
            let reason = text
                .as_deref()
                .map(UnknownReason::from_analyzer)
                .unwrap_or(UnknownReason::Imprecise);
            (Some(reason), check_reason.or(report.reason))
        }
        _ => (None, None),
    };
    Some(Interpretation {
        verdict,
        reason,
        detail,
        analyzer_time_ms: report.time_ms,
        refinement: (!report.refinement.is_empty()).then(|| {
            let mut sum = super::json::RefinementRow::default();
            for r in &report.refinement {
                sum.rounds += r.rounds;
                sum.predicates += r.predicates;
                sum.bdd_vars += r.bdd_vars;
                sum.bdd_vars_unshared += r.bdd_vars_unshared;
                sum.proved += r.proved;
                sum.millis += r.millis;
            }
            sum
        }),
    })
}

const MEMOUT_MESSAGES: [&str; 7] = [
    "memory allocation of",
    "bad_alloc",
    "out of memory",
    "MemoryError",
    "memory exhausted",
    "Cannot allocate memory",
    "failed to allocate",
];

fn memout_evidence(outcome: &ChildOutcome, memory_limit_bytes: Option<u64>) -> Option<String> {
    let lowered = outcome.stderr.to_ascii_lowercase();
    if let Some(message) = MEMOUT_MESSAGES
        .iter()
        .find(|m| lowered.contains(&m.to_ascii_lowercase()))
    {
        return Some(format!("allocation failure (stderr: `{message}`)"));
    }
    if outcome.termination == Termination::Signaled(libc::SIGKILL) {
        return Some("killed by SIGKILL (OOM killer?)".into());
    }
    let limit_kb = memory_limit_bytes? / 1024;
    let abnormal = !matches!(outcome.termination, Termination::Exited(0..=2));
    if abnormal && outcome.max_rss_kb * 10 >= limit_kb * 9 {
        return Some(format!(
            "died with peak memory {} MiB near the limit",
            outcome.max_rss_kb / 1024
        ));
    }
    None
}

fn stderr_summary(stderr: &str) -> Option<String> {
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let idx = lines
        .iter()
        .position(|l| l.starts_with("error:"))
        .or_else(|| lines.iter().position(|l| l.contains("panicked at")))
        .or(lines.len().checked_sub(1))?;
    let mut line = lines[idx].to_string();
    // An error line ending in `:` announces its cause on the next line (e.g. clang's message).
    if line.ends_with(':') {
        if let Some(next) = lines.get(idx + 1) {
            line.push(' ');
            line.push_str(next);
        }
    }
    if line.len() > 300 {
        let mut cut = 300;
        while !line.is_char_boundary(cut) {
            cut -= 1;
        }
        line.truncate(cut);
        line.push('…');
    }
    Some(line)
}

/// A short name for common signals.
pub fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGKILL => "SIGKILL",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGILL => "SIGILL",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGPIPE => "SIGPIPE",
        _ => "signal",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn outcome(termination: Termination, stdout: &str, stderr: &str) -> ChildOutcome {
        ChildOutcome {
            termination,
            timed_out: false,
            cpu: Duration::from_millis(5),
            wall: Duration::from_millis(5),
            max_rss_kb: 1000,
            stdout: stdout.into(),
            stderr: stderr.into(),
        }
    }

    #[test]
    fn reads_json_verdicts() {
        let json = r#"{"tool":"polyfocus","verdict":"unknown","reason":null,"time_ms":3,
            "checks":[{"id":0,"verdict":"unknown","reason":"imprecise: join"}]}"#;
        let i = interpret(&outcome(Termination::Exited(2), json, ""), None);
        assert_eq!(i.verdict, Verdict::Unknown);
        assert_eq!(i.reason, Some(UnknownReason::Imprecise));
        assert_eq!(i.detail.as_deref(), Some("imprecise: join"));
        let json = r#"{"verdict":"unknown","reason":"timeout","checks":[]}"#;
        let i = interpret(&outcome(Termination::Exited(2), json, ""), None);
        assert_eq!(i.reason, Some(UnknownReason::Timeout));
        let i = interpret(
            &outcome(Termination::Exited(0), r#"{"verdict":"true"}"#, ""),
            None,
        );
        assert_eq!((i.verdict, i.reason), (Verdict::True, None));
    }

    #[test]
    fn classifies_failures() {
        let i = interpret(&outcome(Termination::Signaled(libc::SIGSEGV), "", ""), None);
        assert_eq!(i.reason, Some(UnknownReason::Crash));
        let i = interpret(
            &outcome(Termination::Exited(3), "", "error: no such file\n"),
            None,
        );
        assert_eq!(i.reason, Some(UnknownReason::Crash));
        assert!(i.detail.unwrap().contains("no such file"));
        let i = interpret(&outcome(Termination::Exited(0), "garbage", ""), None);
        assert_eq!(i.reason, Some(UnknownReason::Crash));
        let abort = Termination::Signaled(libc::SIGABRT);
        let i = interpret(
            &outcome(abort, "", "memory allocation of 8 bytes failed\n"),
            None,
        );
        assert_eq!(i.reason, Some(UnknownReason::Memout));
    }

    #[test]
    fn classes_and_scores() {
        assert_eq!(Class::of(Expected::True, Verdict::True), Class::CorrectTrue);
        assert_eq!(Class::of(Expected::False, Verdict::True), Class::WrongTrue);
        assert_eq!(Class::of(Expected::True, Verdict::False), Class::WrongFalse);
        assert_eq!(
            Class::of(Expected::NotApplicable, Verdict::True),
            Class::NotApplicable
        );
        assert_eq!(Class::WrongTrue.score(), -32);
    }
}
