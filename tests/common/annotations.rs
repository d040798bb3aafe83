//! Annotations of the C test programs (`tests/programs`): what the checks on a line do in
//! real executions, and what the analysis must answer about them.
//!
//! # Format
//!
//! An annotation is a `//` comment after the code of the line it concerns: every such
//! trailing comment is one, and a malformed one fails the test that reads the program. A
//! `//` comment alone on its line is prose, or a directive `// KEY: VALUE` for the test that
//! reads the program (its keys are the test's, e.g. `entry`, `native-with`, `reason`).
//!
//! ```text
//! annotation := claim { "; " claim } [ " (" note ")" ]
//! claim      := [ kind ": " ] fact { ", " verdict }
//! fact       := "holds" | "fails" | "no check"
//! verdict    := ( "proved" | "violated" | "unknown" ) [ " in " run { " " run } ]
//!               [ " because " cause { "|" cause } ]
//! ```
//!
//! - `kind`: the kind of check in the report: `assert` when omitted, else a runtime check
//!   (`overflow`, `div`, `shift`, `bounds`). One claim per kind and line.
//! - The fact says what executions do, and holds in every run of the analysis:
//!   `holds`: no execution fails a check of that kind on the line, so none is `violated`;
//!   `fails`: some execution fails one, so they are not all `proved`; `no check`: the line
//!   has no check of that kind. Tests that build the program natively check the fact there.
//! - A verdict says what the analysis answers in the runs of the test named after `in` (each
//!   test names its runs in its doc; without `in`, in every run): `proved`: every check of
//!   the kind on the line is proved; `violated`: one is violated with a counterexample
//!   replayed natively; `unknown`: every one is unknown, and with `because`, the reason of
//!   each contains one of the causes. `holds` never goes with `violated`, nor `fails` with
//!   `proved`, and no two verdicts speak of the same run.
//! - The note is for the reader.
//!
//! Examples: `// fails`; `// holds, proved`; `// fails, violated`;
//! `// holds, proved in classic-poly focus-poly`; `// holds, proved in on, unknown in off`;
//! `// holds, unknown because budget|timeout`; `// div: holds, proved; overflow: fails, violated`;
//! `// bounds: no check (through a pointer)`.

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The kind of check a claim without one speaks of.
pub const ASSERT: &str = "assert";

/// What executions do with the checks of one kind on a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fact {
    Holds,
    Fails,
    NoCheck,
}

/// An answer of the analysis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    Proved,
    Violated,
    /// Unknown; when `causes` is not empty, each reason contains one of them.
    Unknown {
        causes: Vec<String>,
    },
}

/// What the analysis answers in some runs of a test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub answer: Answer,
    /// The runs it speaks of; `None`: every run.
    pub runs: Option<Vec<String>>,
}

impl Verdict {
    fn applies_to(&self, run: &str) -> bool {
        self.runs
            .as_ref()
            .is_none_or(|runs| runs.iter().any(|r| r == run))
    }
}

/// One claim: the fact and the verdicts about the checks of one kind on one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    pub kind: String,
    pub fact: Fact,
    pub verdicts: Vec<Verdict>,
}

/// A claim on a source line of a program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Annotation {
    pub line: u32,
    pub claim: Claim,
}

/// A test program with its annotations and directives.
#[derive(Debug)]
pub struct AnnotatedProgram {
    pub path: PathBuf,
    pub annotations: Vec<Annotation>,
    /// `(key, value)` of each directive, in the order of the program.
    pub directives: Vec<(String, String)>,
}

/// Reads the program at `path`; fails the test on a malformed annotation.
#[track_caller]
pub fn annotated(path: &Path) -> AnnotatedProgram {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    parse_program(path, &text).unwrap_or_else(|e| panic!("{}:{e}", path.display()))
}

/// The annotations and directives of the text of the program at `path`; an error names
/// the line.
pub fn parse_program(path: &Path, text: &str) -> Result<AnnotatedProgram, String> {
    let mut res = AnnotatedProgram {
        path: path.to_path_buf(),
        annotations: Vec::new(),
        directives: Vec::new(),
    };
    for (idx, source_line) in text.lines().enumerate() {
        let line = idx as u32 + 1;
        let Some(at) = source_line.find("//") else {
            continue;
        };
        let (code, comment) = source_line.split_at(at);
        let comment = comment[2..].trim();
        if code.trim().is_empty() {
            if let Some((key, value)) = directive(comment) {
                res.directives.push((key.to_string(), value.to_string()));
            }
            continue;
        }
        let claims = parse_annotation(comment).map_err(|e| format!("{line}: `{comment}`: {e}"))?;
        for claim in claims {
            res.annotations.push(Annotation { line, claim });
        }
    }
    Ok(res)
}

/// `KEY: VALUE` of a directive: a key of lower-case words joined by `-`.
fn directive(comment: &str) -> Option<(&str, &str)> {
    let (key, value) = comment.split_once(": ")?;
    let is_key = !key.is_empty()
        && key
            .split('-')
            .all(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_lowercase()));
    is_key.then(|| (key, value.trim()))
}

/// The claims of one annotation (the comment's text after `//`).
pub fn parse_annotation(text: &str) -> Result<Vec<Claim>, String> {
    let text = text.trim();
    let body = match text.find(" (") {
        Some(at) if text.ends_with(')') => &text[..at],
        _ => text,
    };
    let mut claims: Vec<Claim> = Vec::new();
    for part in body.split("; ") {
        let claim = parse_claim(part)?;
        if claims.iter().any(|c| c.kind == claim.kind) {
            return Err(format!("two claims about `{}`", claim.kind));
        }
        claims.push(claim);
    }
    Ok(claims)
}

fn parse_claim(text: &str) -> Result<Claim, String> {
    let (kind, rest) = match text.split_once(": ") {
        Some((kind, rest)) if is_word(kind) => (kind, rest),
        _ => (ASSERT, text),
    };
    let mut parts = rest.split(", ");
    let fact = match parts.next().unwrap_or("") {
        "holds" => Fact::Holds,
        "fails" => Fact::Fails,
        "no check" => Fact::NoCheck,
        other => return Err(format!("`{other}` is not a fact (holds, fails, no check)")),
    };
    let verdicts = parts.map(parse_verdict).collect::<Result<Vec<_>, _>>()?;
    check_consistent(fact, &verdicts)?;
    Ok(Claim {
        kind: kind.to_string(),
        fact,
        verdicts,
    })
}

fn is_word(text: &str) -> bool {
    !text.is_empty() && text.chars().all(|c| c.is_ascii_lowercase() || c == '_')
}

fn parse_verdict(text: &str) -> Result<Verdict, String> {
    let (head, causes) = match text.split_once(" because ") {
        Some((head, causes)) => (head, Some(causes)),
        None => (text, None),
    };
    let (word, runs) = match head.split_once(" in ") {
        Some((word, runs)) => {
            let runs: Vec<String> = runs.split(' ').map(str::to_string).collect();
            if runs.iter().any(|r| r.is_empty()) {
                return Err(format!("`{head}`: an empty run name"));
            }
            (word, Some(runs))
        }
        None => (head, None),
    };
    let answer = match (word, causes) {
        ("proved", None) => Answer::Proved,
        ("violated", None) => Answer::Violated,
        ("unknown", causes) => Answer::Unknown {
            causes: causes
                .map(|c| c.split('|').map(str::to_string).collect())
                .unwrap_or_default(),
        },
        (_, Some(_)) => return Err(format!("`{text}`: only `unknown` has causes")),
        (other, None) => {
            return Err(format!(
                "`{other}` is not a verdict (proved, violated, unknown)"
            ))
        }
    };
    Ok(Verdict { answer, runs })
}

fn check_consistent(fact: Fact, verdicts: &[Verdict]) -> Result<(), String> {
    for v in verdicts {
        match (fact, &v.answer) {
            (Fact::NoCheck, _) => return Err("`no check` has no verdict".into()),
            (Fact::Holds, Answer::Violated) => return Err("`holds` cannot be `violated`".into()),
            (Fact::Fails, Answer::Proved) => return Err("`fails` cannot be `proved`".into()),
            _ => {}
        }
    }
    let mut named = BTreeSet::new();
    for v in verdicts {
        let overlaps = match &v.runs {
            None => verdicts.len() > 1,
            Some(runs) => runs.iter().any(|r| !named.insert(r.as_str())),
        };
        if overlaps {
            return Err("two verdicts speak of the same run".into());
        }
    }
    Ok(())
}

impl AnnotatedProgram {
    /// The value of the directive `key`, if the program has one.
    pub fn directive(&self, key: &str) -> Option<&str> {
        self.directives
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The values of every directive `key`.
    pub fn directives_of<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.directives
            .iter()
            .filter(move |(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The annotations about checks of `kind`.
    pub fn of_kind<'a>(&'a self, kind: &'a str) -> impl Iterator<Item = &'a Annotation> + 'a {
        self.annotations
            .iter()
            .filter(move |a| a.claim.kind == kind)
    }

    /// The lines of the assertions annotated `fails`.
    pub fn failing_assertions(&self) -> Vec<u32> {
        self.of_kind(ASSERT)
            .filter(|a| a.claim.fact == Fact::Fails)
            .map(|a| a.line)
            .collect()
    }

    /// Fails the test when a verdict names a run that is not in `runs` (a misspelt run would
    /// otherwise never be checked).
    #[track_caller]
    pub fn assert_runs_known(&self, runs: &[&str]) {
        for a in &self.annotations {
            for name in a
                .claim
                .verdicts
                .iter()
                .filter_map(|v| v.runs.as_ref())
                .flatten()
            {
                assert!(
                    runs.contains(&name.as_str()),
                    "{}:{}: no run `{name}` in this test (runs: {runs:?})",
                    self.path.display(),
                    a.line
                );
            }
        }
    }

    /// Every way the report of the test's run `run` disagrees with the annotations, one
    /// message each, naming the program, the line and the run.
    pub fn disagreements(&self, report: &Value, run: &str) -> Vec<String> {
        let name = self
            .path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        self.annotations
            .iter()
            .filter_map(|a| {
                let checks = checks_at(report, a.line, &a.claim.kind);
                a.claim
                    .disagreement(run, &checks)
                    .map(|why| format!("{name}:{} [{run}] {}: {why}", a.line, a.claim.kind))
            })
            .collect()
    }

    /// Every way the native runs disagree with the facts of the assertions: `failing` holds
    /// the lines of the assertions some native run failed.
    pub fn native_disagreements(&self, failing: &BTreeSet<u32>) -> Vec<String> {
        self.of_kind(ASSERT)
            .filter(|a| failing.contains(&a.line) != (a.claim.fact == Fact::Fails))
            .map(|a| {
                format!(
                    "{}:{}: annotated {:?}, natively fails: {}",
                    self.path.display(),
                    a.line,
                    a.claim.fact,
                    failing.contains(&a.line)
                )
            })
            .collect()
    }
}

impl Claim {
    /// Why `checks` (the report's checks of the claim's kind on its line, in run `run`)
    /// disagree with the claim, if they do.
    pub fn disagreement(&self, run: &str, checks: &[&Value]) -> Option<String> {
        let why = self.broken_fact(checks).map(str::to_string).or_else(|| {
            self.verdicts
                .iter()
                .filter(|v| v.applies_to(run))
                .find(|v| !v.answer.agrees(checks))
                .map(|v| format!("expected {:?}", v.answer))
        })?;
        Some(format!("{why}, got {}", described(checks)))
    }

    /// What the checks say against the fact, if anything.
    fn broken_fact(&self, checks: &[&Value]) -> Option<&'static str> {
        match self.fact {
            Fact::NoCheck => (!checks.is_empty()).then_some("a check where none is expected"),
            _ if checks.is_empty() => Some("no check in the report"),
            Fact::Holds => checks
                .iter()
                .any(|c| c["verdict"] == "violated")
                .then_some("WRONG refutation"),
            Fact::Fails => checks
                .iter()
                .all(|c| c["verdict"] == "proved")
                .then_some("WRONG proof"),
        }
    }
}

impl Answer {
    /// Whether `checks` (not empty) give this answer.
    fn agrees(&self, checks: &[&Value]) -> bool {
        match self {
            Answer::Proved => checks.iter().all(|c| c["verdict"] == "proved"),
            Answer::Violated => checks.iter().any(|c| replayed(c)),
            Answer::Unknown { causes } => checks.iter().all(|c| {
                let reason = c["reason"].as_str().unwrap_or("");
                c["verdict"] == "unknown"
                    && (causes.is_empty()
                        || causes.iter().any(|cause| reason.contains(cause.as_str())))
            }),
        }
    }
}

/// The verdicts of `checks`, each with its reason.
fn described(checks: &[&Value]) -> String {
    let each: Vec<String> = checks
        .iter()
        .map(|c| match c["reason"].as_str() {
            Some(reason) => format!("{} ({reason})", c["verdict"]),
            None => c["verdict"].to_string(),
        })
        .collect();
    format!("[{}]", each.join(", "))
}

/// Whether `check` is violated with a counterexample replayed natively.
pub fn replayed(check: &Value) -> bool {
    check["verdict"] == "violated"
        && check["counterexample"]["confirmed_by"]
            .as_str()
            .is_some_and(|s| s.contains("replayed natively"))
}

/// The checks of `kind` in `report` on source line `line`.
pub fn checks_at<'r>(report: &'r Value, line: u32, kind: &str) -> Vec<&'r Value> {
    report["checks"]
        .as_array()
        .map(|checks| {
            checks
                .iter()
                .filter(|c| c["kind"] == kind && super::line_of(c) == Some(line))
                .collect()
        })
        .unwrap_or_default()
}
