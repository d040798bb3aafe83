//! SARIF 2.1.0 for code scanning (GitHub and others): one log with one run per polyfocus
//! invocation, whatever the number of programs.
//!
//! - Rules have stable ids: `PF000` assertion-proved (never reported as a result, listed
//!   for completeness), `PF001` assertion-violated (`error`), `PF002` assertion-unknown
//!   (`warning`); one rule per kind of runtime check (`--checks`): `PF010` signed
//!   overflow, `PF011` division by zero, `PF012` shift amount or base out of range, `PF013` array
//!   index out of bounds, `PF014` memory safety through pointers (a violation is an
//!   `error`, a check not proved a `warning`).
//! - One result per check of the source (location and kind), its contexts merged.
//! - Locations come from debug info (relative to the current directory, or absolute); a URI
//!   is relative to `source_root` (with `uriBaseId` `SRCROOT`) when the file is under it, an
//!   absolute `file://` URI otherwise.
//! - `partialFingerprints["polyfocus/v1"]` hashes the rule, the file, the function, the
//!   text of the source line (whitespace-normalized) and the rank among identical keys, so
//!   a result keeps its fingerprint when lines are inserted above it.
//! - A confirmed counterexample becomes a `codeFlow`.
//! - GitHub's limits: at most 5000 results per run (violations first, then the rest in
//!   order) and 25 MB per file (code flows are dropped first); truncation is reported as a
//!   tool execution notification.

use super::project::ProgramReport;
use crate::check::{Counterexample, Verdict};
use crate::ir::SourceLoc;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The most results GitHub code scanning accepts in one run.
pub const MAX_RESULTS: usize = 5000;
/// The largest SARIF file GitHub code scanning accepts (bytes), with a margin.
pub const MAX_BYTES: usize = 24 * 1024 * 1024;
/// The most steps of a code flow (a longer counterexample is cut, for readability).
const MAX_FLOW_STEPS: usize = 200;

/// How to write SARIF.
#[derive(Clone, Debug)]
pub struct SarifOptions {
    /// The repository root: URIs of files under it are relative to it.
    pub source_root: PathBuf,
    /// Results kept at most (GitHub: 5000).
    pub max_results: usize,
    /// Bytes at most (GitHub: 25 MB).
    pub max_bytes: usize,
}

impl SarifOptions {
    /// GitHub's limits, URIs relative to `source_root`.
    pub fn new(source_root: PathBuf) -> SarifOptions {
        SarifOptions {
            source_root,
            max_results: MAX_RESULTS,
            max_bytes: MAX_BYTES,
        }
    }
}

const RULES: [(&str, &str, &str, &str); 8] = [
    (
        "PF000",
        "assertion-proved",
        "Assertion proved",
        "The analysis proved that the assertion always holds.",
    ),
    (
        "PF001",
        "assertion-violated",
        "Assertion violated",
        "An execution violates the assertion; the counterexample was replayed and confirmed.",
    ),
    (
        "PF002",
        "assertion-unknown",
        "Assertion not proved",
        "The analysis could neither prove nor refute the assertion (imprecision, budget or \
         unsupported feature); the reason is in the message. A note: it holds under the \
         precondition on the function's arguments in `properties.precondition`, \
         `properties.contract` true when callers outside the program may call the function.",
    ),
    (
        "PF010",
        "signed-overflow",
        "Signed overflow",
        "A signed arithmetic operation may overflow (`--checks overflow`): violated with a \
         replayed counterexample (error), or not proved (warning, the reason is in the message).",
    ),
    (
        "PF011",
        "division-by-zero",
        "Division by zero",
        "A division or remainder may have a zero divisor (`--checks div`): violated with a \
         replayed counterexample (error), or not proved (warning).",
    ),
    (
        "PF012",
        "shift-out-of-range",
        "Shift amount out of range",
        "A shift amount may be negative or not less than the width, or a signed left shift's \
         base may be negative or its result not representable, as UBSan's \
         `-fsanitize=shift-base` checks it (`--checks shift`): violated with a replayed \
         counterexample (error), or not proved (warning).",
    ),
    (
        "PF013",
        "out-of-bounds",
        "Array index out of bounds",
        "An array subscript may be outside the bounds of an array of statically known size, \
         as UBSan's `-fsanitize=array-bounds` checks it (`--checks bounds`): violated with a \
         replayed counterexample (error), or not proved (warning).",
    ),
    (
        "PF014",
        "memory-safety",
        "Invalid memory access, free or leak",
        "An access through a pointer may touch bytes outside a live object or dereference \
         NULL or an uninitialized pointer, a `free` may get a pointer that is not the start of a live allocated object, or \
         allocated memory may leak (`--checks memory`): violated with a counterexample replayed \
         under the address sanitizer (error), or not proved (warning).",
    ),
];

/// The rule of a runtime check's kind (`PF010`...), as an index into `RULES`.
fn runtime_rule(kind: &crate::ir::CheckKind) -> Option<usize> {
    match kind.class() {
        crate::ir::CheckClass::Assert => None,
        crate::ir::CheckClass::Overflow => Some(3),
        crate::ir::CheckClass::Div => Some(4),
        crate::ir::CheckClass::Shift => Some(5),
        crate::ir::CheckClass::Bounds => Some(6),
        crate::ir::CheckClass::Memory => Some(7),
    }
}

/// The SARIF log of a run.
pub fn sarif(programs: &[ProgramReport], options: &SarifOptions) -> String {
    let mut sources = Sources::new(&options.source_root);
    let several = programs.len() > 1;
    let mut results: Vec<(bool, Value)> = Vec::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut notifications: Vec<Value> = Vec::new();
    let mut counts = BTreeMap::from([
        ("proved", 0u64),
        ("violated", 0),
        ("holds_if", 0),
        ("unknown", 0),
    ]);
    for p in programs {
        if let Some(e) = &p.error {
            notifications.push(notification(
                "error",
                &format!("program {} was not analyzed: {e}", p.name),
            ));
        }
        for w in &p.warnings {
            notifications.push(notification(
                "note",
                &format!("{}: {}", w.function, w.message),
            ));
        }
        for c in p.checks() {
            let function = p.function_name(&c.deciding().function);
            // The contexts of a merged check, after its message: `(unknown in 3 of 17
            // contexts, 14 proved)`.
            let contexts = c
                .contexts_note()
                .map_or_else(String::new, |note| format!(" ({note})"));
            let (rule_index, level, text) = match c.verdict() {
                Verdict::Proved => {
                    *counts.get_mut("proved").expect("key") += 1;
                    continue;
                }
                Verdict::Violated(cex) => {
                    *counts.get_mut("violated").expect("key") += 1;
                    match (runtime_rule(c.kind()), c.kind().runtime_error()) {
                        (Some(rule), Some(what)) => (
                            rule,
                            "error",
                            format!(
                                "Runtime error in `{function}`: {what}, counterexample {}{contexts}.",
                                cex.confirmed_by
                            ),
                        ),
                        _ => (
                            1,
                            "error",
                            format!(
                                "Assertion can fail in `{function}`: counterexample {}{contexts}.",
                                cex.confirmed_by
                            ),
                        ),
                    }
                }
                // A note: the check holds for the callers that keep to the precondition,
                // which is in the message and in `properties.precondition`.
                Verdict::HoldsIf(precondition) => {
                    *counts.get_mut("holds_if").expect("key") += 1;
                    let unshown = super::precondition_note(precondition)
                        .map_or_else(String::new, |n| format!(" ({n})"));
                    match (runtime_rule(c.kind()), c.kind().runtime_error()) {
                        (Some(rule), Some(what)) => (
                            rule,
                            "note",
                            format!(
                                "No {what} happens in `{function}` if `{precondition}` holds at its entry{unshown}{contexts}."
                            ),
                        ),
                        _ => (
                            2,
                            "note",
                            format!(
                                "Assertion holds in `{function}` if `{precondition}` holds at its entry{unshown}{contexts}."
                            ),
                        ),
                    }
                }
                Verdict::Unknown(reason) => {
                    *counts.get_mut("unknown").expect("key") += 1;
                    match (runtime_rule(c.kind()), c.kind().runtime_error()) {
                        (Some(rule), Some(what)) => (
                            rule,
                            "warning",
                            format!(
                                "Not proved in `{function}` that no {what} happens: {reason}{contexts}."
                            ),
                        ),
                        _ => (
                            2,
                            "warning",
                            format!("Assertion not proved in `{function}`: {reason}{contexts}."),
                        ),
                    }
                }
            };
            let text = if several {
                format!("{text} (program {})", p.name)
            } else {
                text
            };
            let rule_id = RULES[rule_index].0;
            let (location, file_key, line_text) = match c.loc() {
                Some(loc) => {
                    let line_text = sources.line(loc).unwrap_or_default();
                    (
                        Some(physical_location(loc, &mut sources)),
                        loc.file.clone(),
                        line_text,
                    )
                }
                None => (None, String::new(), String::new()),
            };
            // The first context's function: it does not change with the verdicts.
            let key_function = p.function_name(&c.contexts()[0].function);
            let key = format!("{rule_id}\u{0}{file_key}\u{0}{key_function}\u{0}{line_text}");
            let rank = seen.entry(key.clone()).or_insert(0);
            *rank += 1;
            let fingerprint = format!("{}:{}", hash_hex(&key), rank);
            let mut location_value = json!({
                "logicalLocations": [{
                    "name": function,
                    "kind": "function",
                }],
            });
            if let Some(phys) = location {
                location_value["physicalLocation"] = phys;
            }
            let mut result = json!({
                "ruleId": rule_id,
                "ruleIndex": rule_index,
                "level": level,
                "kind": "fail",
                "message": { "text": text },
                "locations": [location_value],
                "partialFingerprints": { "polyfocus/v1": fingerprint },
            });
            let mut properties = serde_json::Map::new();
            if !p.name.is_empty() {
                properties.insert("program".into(), json!(p.name));
            }
            if c.contexts().len() > 1 {
                properties.insert("contexts".into(), json!(c.contexts().len()));
            }
            if let Verdict::HoldsIf(precondition) = c.verdict() {
                properties.insert("precondition".into(), json!(precondition.expr));
                properties.insert("contract".into(), json!(precondition.is_contract()));
            }
            if !properties.is_empty() {
                result["properties"] = Value::Object(properties);
            }
            if let Verdict::Violated(cex) = c.verdict() {
                result["codeFlows"] = json!([code_flow(cex, &mut sources)]);
            }
            results.push((level == "error", result));
        }
    }
    // GitHub's result limit: violations first, in order, then the unknowns.
    let total = results.len();
    if total > options.max_results {
        results.sort_by_key(|(is_error, _)| !*is_error);
        results.truncate(options.max_results);
        notifications.push(notification(
            "warning",
            &format!(
                "{} of {total} results omitted (at most {} per run); see the JSON report",
                total - options.max_results,
                options.max_results
            ),
        ));
    }
    let mut results: Vec<Value> = results.into_iter().map(|(_, r)| r).collect();
    let mut log = log_value(&results, &notifications, &counts, options);
    let mut out = to_text(&log);
    if out.len() > options.max_bytes {
        for r in &mut results {
            if let Some(obj) = r.as_object_mut() {
                obj.remove("codeFlows");
            }
        }
        notifications.push(notification(
            "warning",
            "code flows omitted to stay within the SARIF size limit",
        ));
        log = log_value(&results, &notifications, &counts, options);
        out = to_text(&log);
        while out.len() > options.max_bytes && !results.is_empty() {
            let keep = results.len() / 2;
            notifications.push(notification(
                "warning",
                &format!(
                    "{} more results omitted to stay within the SARIF size limit",
                    results.len() - keep
                ),
            ));
            results.truncate(keep);
            log = log_value(&results, &notifications, &counts, options);
            out = to_text(&log);
        }
    }
    out
}

fn to_text(log: &Value) -> String {
    serde_json::to_string_pretty(log).expect("SARIF values always serialize") + "\n"
}

fn log_value(
    results: &[Value],
    notifications: &[Value],
    counts: &BTreeMap<&str, u64>,
    options: &SarifOptions,
) -> Value {
    let mut driver = json!({
        "name": "polyfocus",
        "version": env!("CARGO_PKG_VERSION"),
        "semanticVersion": env!("CARGO_PKG_VERSION"),
        "rules": RULES.iter().map(|(id, name, short, full)| json!({
            "id": id,
            "name": name,
            "shortDescription": { "text": short },
            "fullDescription": { "text": full },
            "defaultConfiguration": {
                "level": match *id {
                    "PF001" | "PF010" | "PF011" | "PF012" | "PF013" | "PF014" => "error",
                    "PF002" => "warning",
                    _ => "none",
                },
            },
        })).collect::<Vec<_>>(),
    });
    let uri = option_env!("CARGO_PKG_REPOSITORY").unwrap_or("");
    if !uri.is_empty() {
        driver["informationUri"] = json!(uri);
    }
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": driver },
            "originalUriBaseIds": {
                "SRCROOT": { "uri": dir_uri(&options.source_root) },
            },
            "invocations": [{
                "executionSuccessful": true,
                "toolExecutionNotifications": notifications,
            }],
            "results": results,
            "properties": { "summary": counts },
        }],
    })
}

fn notification(level: &str, text: &str) -> Value {
    json!({ "level": level, "message": { "text": text } })
}

fn physical_location(loc: &SourceLoc, sources: &mut Sources) -> Value {
    let mut artifact = json!({ "uri": sources.uri(&loc.file) });
    if sources.relative(&loc.file).is_some() {
        artifact["uriBaseId"] = json!("SRCROOT");
    }
    let mut phys = json!({ "artifactLocation": artifact });
    if loc.line > 0 {
        let mut region = json!({ "startLine": loc.line });
        if loc.column > 0 {
            region["startColumn"] = json!(loc.column);
        }
        phys["region"] = region;
    }
    phys
}

fn code_flow(cex: &Counterexample, sources: &mut Sources) -> Value {
    let mut locations: Vec<Value> = Vec::new();
    let mut input_text: Vec<String> = cex
        .args
        .iter()
        .map(|a| format!("{} = {}", a.function, a.value))
        .collect();
    input_text.extend(
        cex.inputs
            .iter()
            .take(20)
            .map(crate::cex::trace::input_text),
    );
    for step in cex.steps.iter().take(MAX_FLOW_STEPS) {
        let values: Vec<String> = step
            .values
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let mut location = json!({
            "message": { "text": if values.is_empty() { "step".to_string() } else { values.join(" ") } },
        });
        if let Some(loc) = &step.loc {
            location["physicalLocation"] = physical_location(loc, sources);
        }
        locations.push(json!({ "location": location }));
    }
    if locations.is_empty() {
        locations.push(json!({ "location": { "message": { "text": "entry" } } }));
    }
    let text = if input_text.is_empty() {
        format!("counterexample {}", cex.confirmed_by)
    } else {
        format!(
            "counterexample {}: {}",
            cex.confirmed_by,
            input_text.join(", ")
        )
    };
    json!({
        "message": { "text": text },
        "threadFlows": [{ "locations": locations }],
    })
}

/// Source files read once, for line texts and URIs.
struct Sources {
    root: PathBuf,
    /// Where relative file names start: the current directory.
    cwd: PathBuf,
    lines: BTreeMap<String, Option<Vec<String>>>,
}

impl Sources {
    fn new(root: &Path) -> Sources {
        let cwd = std::env::current_dir().unwrap_or_default();
        let root = std::fs::canonicalize(cwd.join(root)).unwrap_or_else(|_| root.to_path_buf());
        let cwd = std::fs::canonicalize(&cwd).unwrap_or(cwd);
        Sources {
            root,
            cwd,
            lines: BTreeMap::new(),
        }
    }

    /// `file` relative to the root, when it is under it.
    fn relative(&self, file: &str) -> Option<String> {
        let path = self.cwd.join(file);
        let canon = std::fs::canonicalize(&path).unwrap_or(path);
        canon
            .strip_prefix(&self.root)
            .ok()
            .map(|p| p.to_string_lossy().into_owned())
    }

    fn uri(&self, file: &str) -> String {
        match self.relative(file) {
            Some(rel) => percent_encode(&rel),
            None => format!(
                "file://{}",
                percent_encode(&self.cwd.join(file).to_string_lossy())
            ),
        }
    }

    /// The whitespace-normalized text of the line of `loc`.
    fn line(&mut self, loc: &SourceLoc) -> Option<String> {
        let path = self.cwd.join(&loc.file);
        let lines = self.lines.entry(loc.file.clone()).or_insert_with(|| {
            std::fs::read(&path).ok().map(|b| {
                String::from_utf8_lossy(&b)
                    .lines()
                    .map(str::to_string)
                    .collect()
            })
        });
        let line = lines.as_ref()?.get((loc.line as usize).checked_sub(1)?)?;
        Some(line.split_whitespace().collect::<Vec<_>>().join(" "))
    }
}

fn dir_uri(dir: &Path) -> String {
    let abs = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let mut s = percent_encode(&abs.to_string_lossy());
    if !s.ends_with('/') {
        s.push('/');
    }
    format!("file://{s}")
}

/// Percent-encodes what may not appear in a URI path.
fn percent_encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' | b'+' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// A 128-bit FNV-1a style hash (two 64-bit lanes), as hex: stable across runs and builds.
fn hash_hex(s: &str) -> String {
    let mut a: u64 = 0xcbf2_9ce4_8422_2325;
    let mut b: u64 = 0x84222325_cbf29ce4;
    for byte in s.bytes() {
        a ^= u64::from(byte);
        a = a.wrapping_mul(0x0000_0100_0000_01b3);
        b ^= u64::from(byte).rotate_left(3);
        b = b.wrapping_mul(0x0000_0100_0000_01b3).rotate_left(5);
    }
    format!("{a:016x}{b:016x}")
}
