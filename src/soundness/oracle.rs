//! The native oracle: a rendering of the program for the oracle, compiled with clang-19 at
//! `-O0` with every undefined-behaviour sanitizer trapping (and the address sanitizer for
//! programs whose [`super::Skeleton::oracle_cflags`] ask for it), linked with
//! `oracle_runtime.c`, and run for every valuation of its inputs (see that file).
//!
//! For a program with memory errors on purpose ([`Skeleton::record_memory_errors`]) the
//! address sanitizer reports the first memory error of each execution to the runtime,
//! which records its name and line and ends the execution; the sanitizers that would trap
//! first on those errors (`null`, `object-size`) are off, UBSan's `bounds` reports (an index
//! outside an array of known size, which the address sanitizer can miss) end the execution
//! the same way instead of trapping, and the program has debug information so that the
//! reports have lines.

use super::Skeleton;
use crate::bench::runner::{run_limited, Limits, Termination};
use crate::frontend::clang_program;
use anyhow::{bail, Context, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// The runtime linked with every oracle program.
pub const RUNTIME: &str = include_str!("oracle_runtime.c");

/// Most valuations enumerated for one program (the runtime's default of
/// `ORACLE_MAX_RUNS`); beyond, the program is rejected.
pub const MAX_RUNS: u32 = 4096;

/// What every execution of a program did.
#[derive(Clone, Debug, Default)]
pub struct Observation {
    /// Values (64-bit reports) each probe took, by probe id.
    pub probes: BTreeMap<usize, BTreeSet<u64>>,
    /// Assertions that failed in some execution.
    pub failed: BTreeSet<usize>,
    /// The memory errors that ended some execution, by line: the address sanitizer's name
    /// (see [`super::memory_judge::class_of`]); and the objects some execution left leaked
    /// at its end, by allocation line (`leak`).
    pub memory_errors: BTreeMap<u32, BTreeSet<String>>,
    /// `(slot, line, error)`: an execution failed the assertion at `line` (`assert`) or
    /// had a memory `error` there while the precondition of `slot` held
    /// ([`super::precondition`]).
    pub held: BTreeSet<(usize, u32, String)>,
    /// Executions run.
    pub runs: u64,
}

/// The flags of the oracle's compilations of `skeleton`'s program.
pub fn cflags(skeleton: &Skeleton) -> Vec<String> {
    let mut flags: Vec<String> = skeleton
        .cflags
        .iter()
        .chain(&skeleton.oracle_cflags)
        .cloned()
        .collect();
    if skeleton.record_memory_errors {
        flags.extend(
            [
                "-fsanitize=address",
                "-fno-sanitize=null,object-size",
                "-fno-sanitize-trap=bounds",
                "-g",
                "-DORACLE_RECORD_MEMORY_ERRORS",
            ]
            .map(str::to_string),
        );
    }
    flags
}

/// Why a program cannot be judged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rejection {
    /// It does not compile natively.
    Compile(String),
    /// Some execution ended by a signal: a sanitizer trap (undefined behaviour), a crash,
    /// or the per-execution alarm.
    Signal(i32),
    /// Too many valuations, or too many inputs in one execution.
    TooManyRuns,
    /// The whole enumeration overran its time.
    Timeout,
    /// The program has nothing to assert (a csmith program without globals).
    NoAssertion,
}

impl std::fmt::Display for Rejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Rejection::Compile(e) => write!(f, "does not compile natively: {e}"),
            Rejection::Signal(4) | Rejection::Signal(5) => {
                write!(f, "undefined behaviour (sanitizer trap)")
            }
            Rejection::Signal(14) => write!(f, "an execution ran too long"),
            Rejection::Signal(6) => write!(f, "memory error (address sanitizer) or abort"),
            Rejection::Signal(s) => write!(f, "an execution died of signal {s}"),
            Rejection::TooManyRuns => write!(f, "too many input valuations"),
            Rejection::Timeout => write!(f, "the enumeration ran too long"),
            Rejection::NoAssertion => write!(f, "nothing to assert"),
        }
    }
}

/// Compiles `source` (a rendering for the oracle) in `dir` as `name` and runs it for every
/// valuation of its inputs.
pub fn observe(
    dir: &Path,
    name: &str,
    source: &str,
    cflags: &[String],
) -> Result<std::result::Result<Observation, Rejection>> {
    let c_path = dir.join(format!("{name}.c"));
    let runtime_path = dir.join("oracle_runtime.c");
    let binary = dir.join(name);
    std::fs::write(&c_path, source).with_context(|| format!("writing {}", c_path.display()))?;
    if !runtime_path.exists() {
        std::fs::write(&runtime_path, RUNTIME)
            .with_context(|| format!("writing {}", runtime_path.display()))?;
    }
    let out = Command::new(clang_program())
        .args([
            "-O0",
            "-w",
            "-fsanitize=undefined",
            "-fsanitize-trap=undefined",
        ])
        .args(cflags)
        .arg(&c_path)
        .arg(&runtime_path)
        .arg("-o")
        .arg(&binary)
        .output()
        .with_context(|| format!("running {}", clang_program()))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let first = stderr.lines().find(|l| l.contains("error")).unwrap_or("");
        return Ok(Err(Rejection::Compile(first.to_string())));
    }
    // The address sanitizer reserves terabytes of shadow address space: no address-space
    // limit for it (its programs are small; the per-execution alarm still bounds them, and
    // the sanitizer's own `hard_rss_limit_mb` bounds their memory).
    let sanitizes_addresses = cflags.iter().any(|f| f.contains("sanitize=address"));
    let limits = Limits {
        time: Duration::from_secs(60),
        memory_bytes: (!sanitizes_addresses).then_some(2 << 30),
    };
    let outcome = run_limited(&binary, &[], &limits)
        .with_context(|| format!("running {}", binary.display()))?;
    if outcome.timed_out {
        return Ok(Err(Rejection::Timeout));
    }
    if outcome.termination != Termination::Exited(0) {
        bail!(
            "oracle {} ended with {:?}: {}",
            binary.display(),
            outcome.termination,
            outcome.stderr
        );
    }
    parse(&outcome.stdout)
}

fn parse(stdout: &str) -> Result<std::result::Result<Observation, Rejection>> {
    let mut obs = Observation::default();
    let mut ended = false;
    for line in stdout.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let number = |i: usize| -> Result<u64> {
            words
                .get(i)
                .and_then(|w| w.parse().ok())
                .with_context(|| format!("bad oracle line `{line}`"))
        };
        match words.first().copied() {
            Some("P") => {
                obs.probes
                    .entry(number(1)? as usize)
                    .or_default()
                    .insert(number(2)?);
            }
            Some("F") => {
                obs.failed.insert(number(1)? as usize);
            }
            Some("M") => {
                let error = word(&words, 1, line)?;
                obs.memory_errors
                    .entry(number(2)? as u32)
                    .or_default()
                    .insert(error);
            }
            Some("L") => {
                obs.memory_errors
                    .entry(number(1)? as u32)
                    .or_default()
                    .insert(super::memory_judge::LEAK.to_string());
            }
            Some("H") => {
                let error = word(&words, 3, line)?;
                obs.held
                    .insert((number(1)? as usize, number(2)? as u32, error));
            }
            Some("S") => return Ok(Err(Rejection::Signal(number(1)? as i32))),
            Some("X") | Some("T") => return Ok(Err(Rejection::TooManyRuns)),
            Some("E") => {
                obs.runs = number(1)?;
                ended = true;
            }
            _ => bail!("bad oracle line `{line}`"),
        }
    }
    if !ended {
        bail!("the oracle did not finish its enumeration");
    }
    Ok(Ok(obs))
}

fn word(words: &[&str], i: usize, line: &str) -> Result<String> {
    words
        .get(i)
        .map(|w| w.to_string())
        .with_context(|| format!("bad oracle line `{line}`"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_reports() {
        let obs = parse("P 1 5\nP 1 7\nF 2\nM double-free 9\nH 0 9 double-free\nE 12\n")
            .unwrap()
            .unwrap();
        assert_eq!(obs.probes[&1].len(), 2);
        assert!(obs.failed.contains(&2));
        assert!(obs.memory_errors[&9].contains("double-free"));
        assert!(obs.held.contains(&(0, 9, "double-free".to_string())));
        assert_eq!(obs.runs, 12);
        assert_eq!(
            parse("P 1 5\nS 4\nE 3\n").unwrap().unwrap_err(),
            Rejection::Signal(4)
        );
        assert!(parse("P 1 5\n").is_err());
    }

    /// `size(p)` of a precondition: the bytes from `p` to the end of its object, read from
    /// the address sanitizer's shadow (a heap block, an offset into it, a local array, a
    /// global, a freed block).
    #[test]
    fn object_sizes_are_measured_under_the_address_sanitizer() {
        let dir = tempfile::tempdir().unwrap();
        let source = "#include <stdlib.h>\n\
             void oracle_probe(int id, unsigned long long bits);\n\
             long long oracle_object_size(const void *p);\n\
             static char g[7];\n\
             int main(void) { char *m = malloc(10); int a[4] = {0};\n\
             oracle_probe(1, oracle_object_size(m)); oracle_probe(2, oracle_object_size(m + 3));\n\
             oracle_probe(3, oracle_object_size(a)); oracle_probe(4, oracle_object_size(&a[1]));\n\
             oracle_probe(5, oracle_object_size(g)); free(m);\n\
             oracle_probe(6, oracle_object_size(m)); return a[0]; }\n";
        let asan = vec!["-fsanitize=address".to_string()];
        let obs = observe(dir.path(), "sizes", source, &asan)
            .unwrap()
            .unwrap();
        let sizes: Vec<u64> = (1..=6)
            .map(|id| *obs.probes[&id].iter().next().unwrap())
            .collect();
        assert_eq!(sizes, [10, 7, 16, 12, 7, 0]);
    }

    /// With the address sanitizer, an out-of-bounds read of a heap buffer in one valuation
    /// rejects the program (the UB sanitizer knows no bound there; the read would return a
    /// neighbour and the program would be judged).
    #[test]
    fn address_sanitizer_rejects_out_of_bounds() {
        let dir = tempfile::tempdir().unwrap();
        let source = "#include <stdlib.h>\n\
             long long oracle_input(long long lo, long long hi);\n\
             void oracle_probe(int id, unsigned long long bits);\n\
             int main(void) { int *a = calloc(4, sizeof(int)); if (!a) return 0;\n\
             int k = (int)oracle_input(0, 4);\n\
             oracle_probe(1, (unsigned long long)a[k]); return 0; }\n";
        let asan = vec!["-fsanitize=address".to_string()];
        let outcome = observe(dir.path(), "oob", source, &asan).unwrap();
        assert_eq!(outcome.unwrap_err(), Rejection::Signal(6));
        let in_bounds = source.replace("0, 4)", "0, 3)");
        let obs = observe(dir.path(), "ok", &in_bounds, &asan)
            .unwrap()
            .unwrap();
        assert_eq!(obs.runs, 4);
    }

    /// A program with memory errors on purpose: a constant-index write past a global array,
    /// which the address sanitizer lets through, ends the execution as a memory error of its
    /// line (UBSan's `bounds`), so nothing after it is judged.
    #[test]
    fn records_an_index_past_a_global_array() {
        let dir = tempfile::tempdir().unwrap();
        let source = "long long oracle_input(long long lo, long long hi);\n\
             static long long g[3];\n\
             int main(void) { int k = (int)oracle_input(2, 3);\n\
             #line 7 \"prog.c\"\n\
             g[3] = 4;\n\
             g[k] = 1; return 0; }\n";
        let skeleton = Skeleton {
            lines: Vec::new(),
            includes: Vec::new(),
            style: super::super::AssertStyle::CAssert,
            cflags: Vec::new(),
            oracle_cflags: Vec::new(),
            analysis_cflags: Vec::new(),
            analysis_checks: None,
            record_memory_errors: true,
            classes: Vec::new(),
        };
        let obs = observe(dir.path(), "global", source, &cflags(&skeleton))
            .unwrap()
            .unwrap();
        assert_eq!(obs.runs, 2);
        assert_eq!(
            obs.memory_errors
                .get(&7)
                .map(|e| e.iter().cloned().collect::<Vec<_>>()),
            Some(vec!["out-of-bounds-index".to_string()])
        );
        assert!(!obs.memory_errors.contains_key(&8));
    }
}
