//! SV-COMP inputs: property files (`.prp`) and task-definition files (`.yml`).
//!
//! Supported: reachability, `CHECK( init(main()), LTL(G ! call(reach_error())) )` (also with
//! the older error function `__VERIFIER_error`); `no-overflow`, `LTL(G ! overflow)`; and
//! `valid-memsafety`, the three lines `LTL(G valid-free)`, `LTL(G valid-deref)` and
//! `LTL(G valid-memtrack)` (some revisions add `LTL(G valid-memcleanup)`). Any other property
//! (termination, coverage, ...) is reported as unsupported, which the participant answers
//! with `UNKNOWN`.

use super::manifest::DataModel;
use std::path::{Path, PathBuf};

/// What a property file asks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Property {
    /// `function` is never called in executions starting at `entry`.
    UnreachCall {
        /// The entry function (`init(...)`).
        entry: String,
        /// The error function.
        function: String,
    },
    /// No signed arithmetic overflows in executions starting at `entry` (`LTL(G ! overflow)`):
    /// checked with `--checks overflow`.
    NoOverflow {
        /// The entry function.
        entry: String,
    },
    /// Memory safety (`valid-free`, `valid-deref`, `valid-memtrack` in executions starting at
    /// `entry`): checked with `--checks memory`.
    MemSafety {
        /// The entry function.
        entry: String,
        /// Whether the file also asks `valid-memcleanup` (all memory freed at the end), which
        /// a `TRUE` answer of `check --checks memory` also gives (the leak checks prove every
        /// object freed at every end of the program).
        cleanup: bool,
    },
    /// Anything else; the text says what.
    Unsupported(String),
}

/// The subproperties of `valid-memsafety` a property file must list.
const MEMSAFETY: [&str; 3] = ["valid-free", "valid-deref", "valid-memtrack"];
/// The subproperty some revisions of the file add.
const MEMCLEANUP: &str = "valid-memcleanup";

/// Parses a property file; comments (`//`) and blank lines are ignored.
pub fn parse_property(text: &str) -> Property {
    let checks: Vec<String> = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(|l| l.chars().filter(|c| !c.is_whitespace()).collect())
        .collect();
    if let Some(property) = memsafety(&checks) {
        return property;
    }
    let [check] = checks.as_slice() else {
        return Property::Unsupported(format!("{} properties in one file", checks.len()));
    };
    let parse = || -> Option<Property> {
        let inner = check.strip_prefix("CHECK(")?.strip_suffix(')')?;
        let rest = inner.strip_prefix("init(")?;
        let (entry, rest) = rest.split_once("()),")?;
        let ident = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_');
        if rest == "LTL(G!overflow)" {
            return ident(entry).then(|| Property::NoOverflow {
                entry: entry.to_string(),
            });
        }
        let function = rest.strip_prefix("LTL(G!call(")?.strip_suffix("()))")?;
        (ident(entry) && ident(function)).then(|| Property::UnreachCall {
            entry: entry.to_string(),
            function: function.to_string(),
        })
    };
    parse().unwrap_or_else(|| Property::Unsupported(check.clone()))
}

/// The property of a file whose lines (without blanks) are `CHECK(init(E()),LTL(Gvalid-X))`
/// for one entry `E` and every subproperty of [`MEMSAFETY`], possibly [`MEMCLEANUP`] too.
fn memsafety(checks: &[String]) -> Option<Property> {
    let mut entry: Option<&str> = None;
    let mut subproperties: Vec<&str> = Vec::new();
    for check in checks {
        let inner = check.strip_prefix("CHECK(init(")?.strip_suffix("))")?;
        let (e, sub) = inner.split_once("()),LTL(G")?;
        if entry.is_some_and(|known| known != e) || e.is_empty() {
            return None;
        }
        entry = Some(e);
        subproperties.push(sub);
    }
    let known = |s: &&str| MEMSAFETY.contains(s) || *s == MEMCLEANUP;
    if !MEMSAFETY.iter().all(|s| subproperties.contains(s)) || !subproperties.iter().all(known) {
        return None;
    }
    Some(Property::MemSafety {
        entry: entry?.to_string(),
        cleanup: subproperties.contains(&MEMCLEANUP),
    })
}

/// What the participant needs from a task-definition file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskDefinition {
    /// Input files, resolved against the folder of the `.yml`.
    pub input_files: Vec<PathBuf>,
    /// `options: data_model:`, if present.
    pub data_model: Option<DataModel>,
}

/// Reads the fields of a task-definition file (a small subset of YAML: `input_files` as a
/// scalar or a block list, and `data_model` under `options`).
pub fn parse_task_definition(text: &str, folder: &Path) -> TaskDefinition {
    let unquote = |s: &str| s.trim().trim_matches(|c| c == '\'' || c == '"').to_string();
    let mut input_files = Vec::new();
    let mut data_model = None;
    let mut in_inputs = false;
    for line in text.lines() {
        let line = line.split(" #").next().unwrap_or("");
        if line.trim_start().starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let indented = line.starts_with(' ') || line.starts_with('-');
        if in_inputs && indented {
            if let Some(item) = line.trim().strip_prefix('-') {
                input_files.push(folder.join(unquote(item)));
                continue;
            }
        }
        in_inputs = false;
        let trimmed = line.trim();
        if let Some(value) = trimmed.strip_prefix("input_files:") {
            let value = unquote(value);
            if value.is_empty() {
                in_inputs = true;
            } else if let Some(list) = value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
                input_files.extend(list.split(',').map(|f| folder.join(unquote(f))));
            } else {
                input_files.push(folder.join(value));
            }
        } else if let Some(value) = trimmed.strip_prefix("data_model:") {
            data_model = DataModel::parse(&unquote(value));
        }
    }
    TaskDefinition {
        input_files,
        data_model,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_unreach_call() {
        let p = parse_property("CHECK( init(main()), LTL(G ! call(reach_error())) )\n");
        assert_eq!(
            p,
            Property::UnreachCall {
                entry: "main".into(),
                function: "reach_error".into()
            }
        );
        let p = parse_property("// old\nCHECK( init(main()), LTL(G ! call(__VERIFIER_error())) )");
        assert!(
            matches!(p, Property::UnreachCall { function, .. } if function == "__VERIFIER_error")
        );
    }

    #[test]
    fn parses_no_overflow() {
        let p = parse_property("CHECK( init(main()), LTL(G ! overflow) )\n");
        assert_eq!(
            p,
            Property::NoOverflow {
                entry: "main".into()
            }
        );
    }

    #[test]
    fn parses_memory_safety() {
        let text = "CHECK( init(main()), LTL(G valid-free) )\nCHECK( init(main()), LTL(G valid-deref) )\nCHECK( init(main()), LTL(G valid-memtrack) )\n";
        assert_eq!(
            parse_property(text),
            Property::MemSafety {
                entry: "main".into(),
                cleanup: false
            }
        );
        let with_cleanup = format!("{text}CHECK( init(main()), LTL(G valid-memcleanup) )\n");
        assert_eq!(
            parse_property(&with_cleanup),
            Property::MemSafety {
                entry: "main".into(),
                cleanup: true
            }
        );
    }

    #[test]
    fn other_properties_are_unsupported() {
        for text in [
            "CHECK( init(main()), LTL(G valid-free) )\nCHECK( init(main()), LTL(G valid-deref) )",
            "CHECK( init(main()), LTL(G valid-memcleanup) )",
            "CHECK( init(main()), LTL(F end) )",
            "",
        ] {
            assert!(
                matches!(parse_property(text), Property::Unsupported(_)),
                "{text}"
            );
        }
    }

    #[test]
    fn reads_task_definitions() {
        let text = "format_version: '2.0'\n# c\ninput_files: 'a.i'\nproperties:\n  - property_file: ../p.prp\n    expected_verdict: true\noptions:\n  language: C\n  data_model: ILP32\n";
        let def = parse_task_definition(text, Path::new("/d"));
        assert_eq!(def.input_files, vec![PathBuf::from("/d/a.i")]);
        assert_eq!(def.data_model, Some(DataModel::Ilp32));
        let text = "input_files:\n  - 'x.c'\n  - y.c\noptions:\n  data_model: LP64\n";
        let def = parse_task_definition(text, Path::new("/d"));
        assert_eq!(
            def.input_files,
            vec![PathBuf::from("/d/x.c"), PathBuf::from("/d/y.c")]
        );
        assert_eq!(def.data_model, Some(DataModel::Lp64));
    }
}
