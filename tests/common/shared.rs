//! The benchmark sets beside the project (`../shared/bench`, `bench2`, `bench3`), and what a
//! test does when one is absent: it says SKIPPED on a developer's machine, and fails under
//! CI (`CI` set), which runs beside them, so that a missing set never passes in no time.

use std::path::{Path, PathBuf};

/// Where the benchmark sets are looked for instead of `../shared` (the test of this helper
/// points it at a folder without them).
pub const SHARED_DIR_ENV: &str = "POLYFOCUS_TEST_SHARED_DIR";

/// A benchmark set of the shared folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SharedSet {
    /// `bench`: SV-COMP loop categories, code2inv, IKOS, PAGAI.
    Bench,
    /// `bench2`: memory, recursion, non-linear arithmetic (nla-digbench) and overflow.
    Bench2,
    /// `bench3`: memory safety.
    Bench3,
}

impl SharedSet {
    fn folder(self) -> &'static str {
        match self {
            SharedSet::Bench => "bench",
            SharedSet::Bench2 => "bench2",
            SharedSet::Bench3 => "bench3",
        }
    }
}

/// The shared folder: `POLYFOCUS_TEST_SHARED_DIR`, else `../shared` beside the project.
pub fn shared_dir() -> PathBuf {
    std::env::var_os(SHARED_DIR_ENV)
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"))
}

/// The benchmark set `set` (a folder with its `MANIFEST.tsv`), or `None` after telling the
/// user that `test` is skipped; under CI its absence fails the test.
#[track_caller]
pub fn shared_bench_or_skip(set: SharedSet, test: &str) -> Option<PathBuf> {
    let dir = shared_dir().join(set.folder());
    if dir.join("MANIFEST.tsv").is_file() {
        return Some(dir);
    }
    skip_unless_ci(test, &format!("{} is absent", dir.display()));
    None
}

/// Tells the user that `test` is skipped because of `why`; under CI (`CI` set), where every
/// requirement is installed, fails the test instead.
#[track_caller]
pub fn skip_unless_ci(test: &str, why: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "{test}: {why}, and CI must run it"
    );
    // Straight to the standard error, not `eprintln!`: the test harness hides what passing
    // tests print, and a skip must be seen.
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{test}: SKIPPED, {why}");
}
