//! Command line interface.
//!
//! **Architecture Invariant:** the only module that knows clap, paths on disk given by the
//! user, and exit codes. It turns low-level arguments into typed configurations, runs the
//! stages and prints reports. Every setting reaches the analysis as configuration
//! (`frontend::FrontendConfig`, `driver::AnalysisConfig` and its `params::Params`); no
//! module below reads the environment for a setting.
//!
//! Two layers of options: the user's flags (input, entry, data model, compiler flags,
//! checks, budgets, jobs, output), and the internal `-Z NAME=VALUE` options
//! ([`tuning`]: the switches of internal techniques, the tunables of `Params`, the aids for
//! measuring and debugging), hidden from `--help` and listed by `-Z help`.
//!
//! Environment variables that remain, each a tool's location or a protocol between
//! polyfocus and the processes it starts, not a setting of the analysis:
//! - `POLYFOCUS_CLANG`: the C compiler (default `clang-19`); `POLYFOCUS_RUNTIME`: the
//!   directory of `polyfocus.h` and the replay runtime (default: the crate's `runtime/`);
//!   `POLYFOCUS_OBJCOPY`: the `objcopy` the native replay uses;
//! - `POLYFOCUS_WRAP_DIR` and `POLYFOCUS_REAL_CC`: `polyfocus scan` starts the build with
//!   them, and the binary started under a compiler's name with `POLYFOCUS_WRAP_DIR` set is
//!   the compiler wrapper (it has no command line of its own to carry them);
//! - `POLYFOCUS_CACHE`: the default folder of the cache of results, or `off` (a location,
//!   like `XDG_CACHE_HOME`, which it overrides; `--cache` and `--no-cache` override both);
//! - `POLYFOCUS_REPLAY_INPUTS`, `_LOG`, `_DICT`, `_POLICY` and `_PARENT`: set by the
//!   counterexample search for the natively compiled program it runs, read by
//!   `runtime/replay.c`.
//!
//! Exit codes: 0 every assertion proved; 1 some assertion violated (confirmed
//! counterexample); 2 some assertion unknown; 3 usage or input error.

use clap::{Parser, Subcommand};

mod args;
mod bench;
mod cache;
mod check;
mod project;
mod scan;
mod soundness;
mod svcomp;
pub mod tuning;

pub use args::{AnalysisArgs, InputArgs, TuningArgs};

/// Every assertion proved (or no assertion).
pub const EXIT_PROVED: i32 = 0;
/// Some assertion violated, with a confirmed counterexample.
pub const EXIT_VIOLATED: i32 = 1;
/// Some assertion neither proved nor refuted (or proved only under a precondition).
pub const EXIT_UNKNOWN: i32 = 2;
/// Usage or input error.
pub const EXIT_ERROR: i32 = 3;

const AFTER_HELP: &str = "Exit codes:
  0  every assertion proved (or no assertion)
  1  some assertion violated (confirmed counterexample)
  2  some assertion unknown or holding only under a precondition (`holds if`: proved for
     the calls whose arguments satisfy it, not for every call), or a program of a project
     not loaded (and none violated); 0 with --fail-on false
  3  usage or input error

Internal options for measuring and debugging (check, scan, invariants, ir, svcomp):
-Z NAME=VALUE, listed by `polyfocus check -Z help`.";

/// polyfocus proves or refutes assertions in C programs from their LLVM bitcode.
#[derive(Parser, Debug)]
#[command(name = "polyfocus", version, after_help = AFTER_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Check every assertion of a program and print a verdict for each.
    Check(check::CheckArgs),
    /// Print the lifted program and its cut points.
    Ir(check::IrArgs),
    /// Print the invariant at each loop head as C expressions over source variables.
    Invariants(check::InvariantsArgs),
    /// Run the benchmark harness over a MANIFEST.tsv.
    Bench(bench::BenchArgs),
    /// Behave like an SV-COMP participant for unreach-call and no-overflow.
    Svcomp(svcomp::SvcompArgs),
    /// Run a build command (`-- make ...`) through a compiler wrapper, then analyze each
    /// linked program.
    Scan(scan::ScanArgs),
    /// Differential soundness harness: random UB-free programs, native execution as the
    /// oracle, every verdict checked (exit 1 on a wrong verdict).
    Soundness(soundness::SoundnessArgs),
}

/// Parses the process arguments, runs the command and returns the exit code.
pub fn run() -> i32 {
    // Invoked as the compiler wrapper of `polyfocus scan`.
    if let Some(code) = scan::wrapper_main() {
        return code;
    }
    let args: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    if tuning::asks_for_help(&args) {
        print!("{}", tuning::help_text());
        return 0;
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_ERROR } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    let res = match cli.command {
        Command::Check(a) => check::run_check(a),
        Command::Ir(a) => check::run_ir(a),
        Command::Invariants(a) => check::run_invariants(a),
        Command::Bench(a) => bench::run(a),
        Command::Svcomp(a) => svcomp::run(a),
        Command::Scan(a) => scan::run(a),
        Command::Soundness(a) => soundness::run(a),
    };
    match res {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            EXIT_ERROR
        }
    }
}
