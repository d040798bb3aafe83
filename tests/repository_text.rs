//! What the repository says to an outside reader: no reference to how it was developed
//! (periods of work, who led it, numbered entries of a private tracker) in the README, the
//! architecture, the docs, the code, the tests, the scripts or the examples, and the SMT
//! solver named only by the module that wraps it (`src/smt`).
//!
//! `CHANGELOG.md` is exempt (it records what changed), and so is `tests/data` (third-party
//! data: the SARIF schema). The words are built from pieces so that this file passes its
//! own test.

use std::path::{Path, PathBuf};

/// The files and folders read, relative to the project's root.
const READ: [&str; 7] = [
    "README.md",
    "ARCHITECTURE.md",
    "docs",
    "src",
    "tests",
    "scripts",
    "examples",
];

/// Folders not read: third-party data.
const EXEMPT: [&str; 1] = ["tests/data"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file under `path` (itself when it is a file), sorted; exempt folders left out.
fn files(path: &Path, acc: &mut Vec<PathBuf>) {
    let relative = path.strip_prefix(root()).unwrap_or(path);
    if EXEMPT.iter().any(|e| relative == Path::new(e)) {
        return;
    }
    if path.is_file() {
        acc.push(path.to_path_buf());
    } else if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .map(|e| e.expect("a folder entry").path())
            .collect();
        entries.sort();
        for entry in entries {
            files(&entry, acc);
        }
    }
}

/// The lines of the text files under the roots `read`: `(path, line number, line)`.
fn lines(read: &[&str]) -> Vec<(PathBuf, usize, String)> {
    let mut paths = Vec::new();
    for r in read {
        files(&root().join(r), &mut paths);
    }
    let mut res = Vec::new();
    for path in paths {
        // Binary files (bitcode, images) are not text to read.
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for (idx, line) in text.lines().enumerate() {
            res.push((path.clone(), idx + 1, line.to_string()));
        }
    }
    res
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Whether `needle` (lower case) stands in `line` (any case) with a word boundary before
/// it and, when `whole` is set, after it; `then_digit`: a digit must follow it.
fn stands_in(line: &str, needle: &str, whole: bool, then_digit: bool) -> bool {
    let lower = line.to_ascii_lowercase();
    lower.match_indices(needle).any(|(at, _)| {
        let before = lower[..at].chars().next_back();
        let after = lower[at + needle.len()..].chars().next();
        before.is_none_or(|c| !is_word_char(c))
            && (!whole || after.is_none_or(|c| !is_word_char(c)))
            && (!then_digit || after.is_some_and(|c| c.is_ascii_digit()))
    })
}

/// The words that tell how the project was developed, if `line` has one.
fn history_word(line: &str) -> Option<String> {
    let one = ["ses", "sion"].concat();
    let many = [one.as_str(), "s"].concat();
    let lead = ["the ", "lead"].concat();
    let issue = ["iss", "ue "].concat();
    let word = [one, many, lead]
        .into_iter()
        .find(|w| stands_in(line, w, true, false));
    word.or_else(|| stands_in(line, &issue, false, true).then(|| format!("{issue}N")))
}

#[test]
fn no_history_words_in_the_repository() {
    let found: Vec<String> = lines(&READ)
        .into_iter()
        .filter_map(|(path, n, line)| {
            let word = history_word(&line)?;
            let relative = path
                .strip_prefix(root())
                .unwrap_or(&path)
                .display()
                .to_string();
            Some(format!("{relative}:{n}: `{word}`: {}", line.trim()))
        })
        .collect();
    assert!(
        found.is_empty(),
        "{} lines say how the project was developed instead of what the code does:\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn the_solver_is_named_only_under_src_smt() {
    let smt = root().join("src/smt");
    let found: Vec<String> = lines(&["src"])
        .into_iter()
        .filter(|(path, _, line)| !path.starts_with(&smt) && stands_in(line, "z3", true, false))
        .map(|(path, n, line)| {
            let relative = path
                .strip_prefix(root())
                .unwrap_or(&path)
                .display()
                .to_string();
            format!("{relative}:{n}: {}", line.trim())
        })
        .collect();
    assert!(
        found.is_empty(),
        "{} lines outside src/smt name the solver:\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn the_matcher_finds_what_it_must() {
    let one = ["Ses", "sion"].concat();
    assert!(history_word(&format!("the eighth {one}'s proof")).is_some());
    assert!(history_word(&format!("two {one}s")).is_some());
    assert!(history_word(&["asked by The ", "Lead."].concat()).is_some());
    assert!(history_word(&["(Iss", "ue 17)"].concat()).is_some());
    assert!(history_word(&["iss", "ue 1a"].concat()).is_some());
    assert!(history_word("an obsession, the leader, issues 12, tissue 3").is_none());
    assert!(stands_in("use z3::Solver;", "z3", true, false));
    assert!(stands_in("the Z3 solver", "z3", true, false));
    assert!(!stands_in("libz3-dev, z3x", "z3", true, false));
}
