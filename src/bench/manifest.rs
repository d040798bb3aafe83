//! `MANIFEST.tsv`: one benchmark task per row.
//!
//! The format is described in `../shared/bench/README.md`: a header line, then tab-separated
//! columns `task`, `expected` (`true`, `false` or `n/a`), `entry`, `data_model` (`ILP32` or
//! `LP64`), `cflags` (where `{bench}` stands for the absolute path of the benchmark folder),
//! `suite`, and free-form columns (`source`, `license`, `notes`). Of `notes`, the harness reads
//! only a leading `property=NAME` (`../shared/bench2`): the property the verdict refers to,
//! `unreach-call` when absent; and for `valid-memsafety` (`../shared/bench3`) a false task's
//! `subproperty=NAME`. Columns are found by their header name, so their order does not
//! matter; only `task` and `expected` are mandatory.

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::Path;

/// The verdict a task is known to have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Expected {
    /// No assertion can fail.
    #[serde(rename = "true")]
    True,
    /// Some assertion can fail.
    #[serde(rename = "false")]
    False,
    /// No assertion: the task is run, but no verdict is expected.
    #[serde(rename = "n/a")]
    NotApplicable,
}

impl Expected {
    /// The spelling used in manifests and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Expected::True => "true",
            Expected::False => "false",
            Expected::NotApplicable => "n/a",
        }
    }

    /// Parses the manifest spelling.
    pub fn parse(text: &str) -> Option<Expected> {
        match text.trim() {
            "true" => Some(Expected::True),
            "false" => Some(Expected::False),
            "n/a" | "na" | "-" | "" => Some(Expected::NotApplicable),
            _ => None,
        }
    }
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The target data model of a task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataModel {
    /// 32-bit `long` and pointers (`-m32`).
    Ilp32,
    /// 64-bit `long` and pointers.
    Lp64,
}

impl DataModel {
    /// The spelling used on the command line of `polyfocus check`.
    pub fn as_str(self) -> &'static str {
        match self {
            DataModel::Ilp32 => "ILP32",
            DataModel::Lp64 => "LP64",
        }
    }

    /// Parses `ILP32` or `LP64` (any case).
    pub fn parse(text: &str) -> Option<DataModel> {
        match text.trim().to_ascii_uppercase().as_str() {
            "ILP32" => Some(DataModel::Ilp32),
            "LP64" | "" => Some(DataModel::Lp64),
            _ => None,
        }
    }
}

/// The property a task's verdict refers to (`property=NAME` at the start of `notes`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TaskProperty {
    /// No error call is reachable (the default, and the only property `check` decides today).
    UnreachCall,
    /// SV-COMP's `valid-memsafety` (`--checks memory`), judged by
    /// [`super::memsafety`]: a false task names the subproperty it violates
    /// (`subproperty=valid-deref` in `notes`).
    MemSafety {
        /// The violated subproperty of a false task.
        subproperty: Option<String>,
    },
    /// Another property (`no-overflow`, ...): a verdict of `check` says nothing about it.
    Other(String),
}

impl TaskProperty {
    /// The `--checks` that decide the property, when `check` decides it: `no-overflow` is
    /// `--checks overflow`; `None` for reachability (the default) and for
    /// properties `check` does not decide.
    pub fn checks(&self) -> Option<&'static str> {
        match self {
            TaskProperty::Other(p) if p == "no-overflow" => Some("overflow"),
            TaskProperty::MemSafety { .. } => Some("memory"),
            _ => None,
        }
    }

    /// The property's name when `check` does not decide it.
    pub fn unchecked(&self) -> Option<&str> {
        match self {
            TaskProperty::Other(p) if self.checks().is_none() => Some(p),
            _ => None,
        }
    }

    /// Reads the property from the `notes` column: its first word when it is `property=NAME`;
    /// for `valid-memsafety`, a later word `subproperty=NAME`.
    fn from_notes(notes: &str) -> TaskProperty {
        let mut words = notes
            .split(|c: char| c.is_whitespace() || c == ';' || c == ',')
            .filter(|w| !w.is_empty());
        let first = words.next().unwrap_or("");
        match first.strip_prefix("property=") {
            None | Some("unreach-call") => TaskProperty::UnreachCall,
            Some("valid-memsafety") => TaskProperty::MemSafety {
                subproperty: words
                    .find_map(|w| w.strip_prefix("subproperty="))
                    .map(str::to_string),
            },
            Some(other) => TaskProperty::Other(other.to_string()),
        }
    }
}

/// One row of the manifest, with `{bench}` already substituted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Task {
    /// Path of the program relative to the benchmark folder; the task's identity.
    pub name: String,
    /// The known verdict.
    pub expected: Expected,
    /// Function where execution starts.
    pub entry: String,
    /// Target data model.
    pub data_model: DataModel,
    /// Extra compiler flags, `{bench}` substituted.
    pub cflags: String,
    /// Where the task comes from (the `suite` column, or the first folder of the path).
    pub suite: String,
    /// The property `expected` refers to.
    pub property: TaskProperty,
}

/// Reads `dir/MANIFEST.tsv`; `{bench}` becomes the absolute path of `dir`.
pub fn read_manifest(dir: &Path) -> Result<Vec<Task>> {
    let path = dir.join("MANIFEST.tsv");
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let abs = std::fs::canonicalize(dir).with_context(|| format!("resolving {}", dir.display()))?;
    parse_manifest(&text, &abs.to_string_lossy())
        .with_context(|| format!("parsing {}", path.display()))
}

/// Parses the text of a manifest; `{bench}` in cflags becomes `bench_dir`.
pub fn parse_manifest(text: &str, bench_dir: &str) -> Result<Vec<Task>> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((_, header)) = lines.next() else {
        bail!("empty manifest")
    };
    let columns: Vec<&str> = header.split('\t').map(str::trim).collect();
    let column = |name: &str| columns.iter().position(|c| *c == name);
    let (Some(task_col), Some(expected_col)) = (column("task"), column("expected")) else {
        bail!("the header must name the columns `task` and `expected`")
    };
    let entry_col = column("entry");
    let data_model_col = column("data_model");
    let cflags_col = column("cflags");
    let suite_col = column("suite");
    let notes_col = column("notes");

    let mut tasks = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for (line_idx, line) in lines {
        if line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let field = |col: Option<usize>| col.and_then(|c| fields.get(c)).map(|f| f.trim());
        let line_no = line_idx + 1;
        let name = field(Some(task_col)).unwrap_or("");
        if name.is_empty() {
            bail!("line {line_no}: empty task");
        }
        let expected_text = field(Some(expected_col)).unwrap_or("");
        let Some(expected) = Expected::parse(expected_text) else {
            bail!("line {line_no}: expected verdict `{expected_text}` is not true, false or n/a")
        };
        let data_model_text = field(data_model_col).unwrap_or("");
        let Some(data_model) = DataModel::parse(data_model_text) else {
            bail!("line {line_no}: data model `{data_model_text}` is not ILP32 or LP64")
        };
        let entry = match field(entry_col) {
            Some(e) if !e.is_empty() => e.to_string(),
            _ => "main".to_string(),
        };
        let cflags = field(cflags_col)
            .unwrap_or("")
            .replace("{bench}", bench_dir);
        let suite = match field(suite_col) {
            Some(s) if !s.is_empty() => s.to_string(),
            _ => name.split('/').next().unwrap_or(name).to_string(),
        };
        if !seen.insert(name.to_string()) {
            bail!("line {line_no}: task {name} appears twice");
        }
        let property = TaskProperty::from_notes(field(notes_col).unwrap_or(""));
        tasks.push(Task {
            name: name.to_string(),
            expected,
            entry,
            data_model,
            cflags,
            suite,
            property,
        });
    }
    Ok(tasks)
}

/// Splits a configuration's flags into words, honouring single and double quotes and
/// backslash escapes (a small subset of the shell's rules; no expansion).
pub fn split_words(text: &str) -> Result<Vec<String>> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => current.push(c),
                        None => bail!("unterminated ' in `{text}`"),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c) => current.push(c),
                            None => bail!("trailing \\ in `{text}`"),
                        },
                        Some(c) => current.push(c),
                        None => bail!("unterminated \" in `{text}`"),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(c) => current.push(c),
                    None => bail!("trailing \\ in `{text}`"),
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                current.push(c);
            }
        }
    }
    if in_word {
        words.push(current);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rows_and_substitutes_bench() {
        let text = "task\texpected\tentry\tdata_model\tcflags\tsuite\tnotes\n\
                    a/x.c\ttrue\tmain\tILP32\t-include {bench}/p.h\tsuiteA\tblah\n\
                    b/y.c\tn/a\tf\tLP64\t\t\t\n";
        let tasks = parse_manifest(text, "/abs").unwrap();
        assert_eq!(tasks.len(), 2);
        assert_eq!(tasks[0].cflags, "-include /abs/p.h");
        assert_eq!(tasks[0].data_model, DataModel::Ilp32);
        assert_eq!(tasks[0].suite, "suiteA");
        assert_eq!(tasks[1].expected, Expected::NotApplicable);
        assert_eq!(tasks[1].entry, "f");
        assert_eq!(tasks[1].suite, "b");
        assert_eq!(tasks[0].property, TaskProperty::UnreachCall);
    }

    #[test]
    fn reads_the_property_from_notes() {
        let text = "task\texpected\tnotes\n\
                    a.c\tfalse\tproperty=no-overflow; from sv-benchmarks\n\
                    b.c\ttrue\tproperty=unreach-call error-call=__VERIFIER_error\n\
                    c.c\ttrue\tsome note\n";
        let tasks = parse_manifest(text, "/").unwrap();
        assert_eq!(tasks[0].property, TaskProperty::Other("no-overflow".into()));
        // Decided by `check --checks overflow`, not skipped.
        assert_eq!(tasks[0].property.checks(), Some("overflow"));
        assert_eq!(tasks[0].property.unchecked(), None);
        assert_eq!(tasks[1].property.checks(), None);
        assert_eq!(tasks[1].property, TaskProperty::UnreachCall);
        assert_eq!(tasks[2].property, TaskProperty::UnreachCall);
        let text = "task\texpected\tnotes\n\
                    a.i\tfalse\tproperty=valid-memsafety subproperty=valid-free yml=a.yml\n\
                    b.i\ttrue\tproperty=valid-memsafety yml=b.yml\n";
        let tasks = parse_manifest(text, "/b").unwrap();
        assert_eq!(
            tasks[0].property,
            TaskProperty::MemSafety {
                subproperty: Some("valid-free".into())
            }
        );
        assert_eq!(tasks[0].property.checks(), Some("memory"));
        assert_eq!(
            tasks[1].property,
            TaskProperty::MemSafety { subproperty: None }
        );
    }

    #[test]
    fn rejects_bad_verdicts_and_duplicates() {
        assert!(parse_manifest("task\texpected\nx.c\tmaybe\n", "/").is_err());
        assert!(parse_manifest("task\texpected\nx.c\ttrue\nx.c\ttrue\n", "/").is_err());
        assert!(parse_manifest("name\tverdict\nx.c\ttrue\n", "/").is_err());
    }

    #[test]
    fn splits_words_with_quotes() {
        assert_eq!(
            split_words(r#"-Z engine=classic --cflags "-DX=1 -O0" 'a b'c"#).unwrap(),
            vec!["-Z", "engine=classic", "--cflags", "-DX=1 -O0", "a bc"]
        );
        assert_eq!(split_words("  ").unwrap(), Vec::<String>::new());
        assert_eq!(split_words("''").unwrap(), vec![""]);
        assert!(split_words("'open").is_err());
    }
}
