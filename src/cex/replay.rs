//! Native replay: runs of the natively built program ([`NativeProgram`], built by
//! [`super::build`]) in a temporary directory under a time limit.
//!
//! The program is compiled with UBSan's checks but linked with `runtime/replay.c`, whose
//! handlers print the kind and source location of the operation and exit with
//! [`EXIT_RUNTIME_ERROR`]: an execution with undefined behaviour never counts as reaching an
//! assertion's error site, and a runtime check is confirmed only at its own operation.
//!
//! What a program reads from outside is an input of the run, served in order by the
//! runtime: nondet values, results of the undefined functions the build stubs, the entry's
//! arguments when a driver calls it, `scanf`'s result and conversions, the text of
//! `main`'s arguments ([`CommandLine`]: `argc` is chosen before the run, each argument is the
//! decimal text of an input `argv[i]`) and environment variables (`getenv(NAME)`). The
//! results of `atoi`, `strtol` and their kin are computed by the C library and logged as
//! observations, so that the interpretation of the lifted program follows the run.
//!
//! A run serves the given values in order; with a [`Policy`] other than `Strict` further
//! requests are answered by the policy, and every served value is logged, so that a run that
//! reaches the error yields the exact input sequence to confirm in strict mode.

use super::asan::MemoryError;
use crate::frontend::{runtime_dir, DataModel};
use crate::interrupt::{ChildGroup, ScratchDir};
use std::collections::BTreeMap;
use std::io::Write as _;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub use super::build::{
    BuildError, BuildSpec, EntryParam, BUFFER_BYTES, BUFFER_INPUT_PREFIX, BUFFER_WORDS,
    FLOAT_INPUT_PREFIX,
};

/// Exit status of the runtime's error hook.
pub const EXIT_ERROR_REACHED: i32 = 97;
/// Exit status of the runtime's sanitizer handlers (a runtime error, see [`RuntimeError`]).
pub const EXIT_RUNTIME_ERROR: i32 = 96;
/// Exit status of an input request beyond the recorded ones (strict mode).
pub const EXIT_EXTRA_INPUT: i32 = 98;

/// The environment variable that gives a replay its parent's process id: the runtime then
/// limits its own address space and dies with the thread that started it (see
/// `runtime/replay.c`, `polyfocus_guard`). A replay run by hand, or a standalone harness,
/// has no such parent and no such limit.
const REPLAY_PARENT_ENV: &str = "POLYFOCUS_REPLAY_PARENT";

/// The error functions, with a strong definition in `runtime/replay.c`: the program's own
/// definitions of these are weakened, since calling them is the event the replay detects,
/// whatever their body does.
pub const RUNTIME_STRONG: &[&str] = &[
    "reach_error",
    "__VERIFIER_error",
    "__assert_fail",
    "__assert_perror_fail",
    "__assert",
    "__assert_rtn",
];

/// Functions with a weak definition in the runtime: a definition of the program's own is
/// the program's function and wins (see `frontend::conventions`).
pub const RUNTIME_WEAK: &[&str] = &[
    "polyfocus_assert",
    "__ikos_assert",
    "__VERIFIER_assume",
    "polyfocus_assume",
    "__VERIFIER_nondet_int",
    "__VERIFIER_nondet_uint",
    "__VERIFIER_nondet_unsigned",
    "__VERIFIER_nondet_long",
    "__VERIFIER_nondet_ulong",
    "__VERIFIER_nondet_longlong",
    "__VERIFIER_nondet_ulonglong",
    "__VERIFIER_nondet_char",
    "__VERIFIER_nondet_uchar",
    "__VERIFIER_nondet_short",
    "__VERIFIER_nondet_ushort",
    "__VERIFIER_nondet_size_t",
    "__VERIFIER_nondet_u32",
    "__VERIFIER_nondet_u16",
    "__VERIFIER_nondet_u8",
    "__VERIFIER_nondet_loff_t",
    "__VERIFIER_nondet_bool",
    "polyfocus_nondet_int",
    "polyfocus_nondet_uint",
    "polyfocus_nondet_long",
    "polyfocus_nondet_ulong",
    "polyfocus_nondet_char",
    "polyfocus_nondet_uchar",
    "polyfocus_nondet_short",
    "polyfocus_nondet_ushort",
    "polyfocus_nondet_bool",
    "__ikos_nondet_int",
    "__ikos_nondet_uint",
    "__VERIFIER_assert",
    "assert",
    "assume",
    "assume_abort_if_not",
    "__VERIFIER_assume_abort_if_not",
    "__VERIFIER_silent_exit",
    "__assumption_declared",
    "__VERIFIER_nondet_float",
    "__VERIFIER_nondet_double",
    "__VERIFIER_nondet_pointer",
];

/// The text of the replay runtime.
pub fn runtime_source() -> Result<String, String> {
    let path = runtime_dir().join("replay.c");
    std::fs::read_to_string(&path).map_err(|e| format!("reading {}: {e}", path.display()))
}

/// The name under which the runtime serves `scanf`'s result (EOF or the number of values
/// assigned), the value of the lifted program's call.
pub const SCANF_INPUT: &str = "scanf";
/// The prefix of the names under which the runtime serves `scanf`'s conversions
/// (`scanf %d`), which the lifted program reads back from memory.
pub const SCANF_CONVERSION_PREFIX: &str = "scanf %";
/// The symbols of `scanf` the runtime defines (glibc's `<stdio.h>` calls the second).
pub const SCANF_FUNCTIONS: &[&str] = &["scanf", "__isoc99_scanf"];
/// The prefix of the names of the inputs that give `main`'s arguments their text.
pub const ARGV_INPUT_PREFIX: &str = "argv[";
/// The prefix of the names of the inputs that give environment variables their values.
pub const GETENV_INPUT_PREFIX: &str = "getenv(";
/// The functions whose results the runtime logs as observations: the C library computes
/// them from the program's own strings.
pub const OBSERVED_FUNCTIONS: &[&str] = &[
    "atoi", "atol", "atoll", "strtol", "strtoll", "strtoul", "strtoull",
];

/// Whether the lifted program reads the input named `name` as the value of one of its
/// havocs (a nondet call, a stubbed call, `scanf`'s result): the other inputs give memory
/// or strings it does not model (buffers, conversions, floating-point arguments, the text
/// of arguments and environment variables).
pub fn lifted_program_reads(name: &str) -> bool {
    ![
        SCANF_CONVERSION_PREFIX,
        BUFFER_INPUT_PREFIX,
        FLOAT_INPUT_PREFIX,
        ARGV_INPUT_PREFIX,
        GETENV_INPUT_PREFIX,
    ]
    .iter()
    .any(|p| name.starts_with(p))
}

/// The largest `argc` of a replay: 2^16 arguments of two bytes (`"1"`) and their pointers
/// take about 650 KiB, well within what Linux accepts on a command line (a quarter of the
/// default 8 MiB stack), so every count up to it is one a real `execve` can give.
pub const MAX_ARGC: u32 = 1 << 16;

/// The text each argument has on the real command line of a run; the runtime replaces it
/// with the decimal text of the input `argv[i]` before `main` runs.
pub const ARGUMENT: &str = "1";

/// The command line of a native run of `main(int argc, char **argv)`: the program's path
/// and `argc - 1` arguments, passed to the process for real (so `argv` is exactly what the
/// C library gives a program, and `argc >= 1`), whose text the runtime takes from the
/// inputs `argv[1]`, `argv[2]`, ... served first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommandLine {
    argc: u32,
}

impl CommandLine {
    /// The program's path alone (`argc == 1`).
    pub const PLAIN: CommandLine = CommandLine { argc: 1 };

    /// The command line with this `argc`, if a real one can have it (1 to [`MAX_ARGC`]).
    pub fn with_argc(argc: i128) -> Option<CommandLine> {
        (1..=i128::from(MAX_ARGC))
            .contains(&argc)
            .then_some(CommandLine { argc: argc as u32 })
    }

    /// Its `argc`.
    pub fn argc(self) -> u32 {
        self.argc
    }

    /// How many inputs give the arguments' text (served before any other).
    pub fn n_argument_inputs(self) -> usize {
        self.argc as usize - 1
    }

    /// The arguments after the program's path on the real command line.
    pub fn arguments(self) -> impl Iterator<Item = &'static str> {
        std::iter::repeat(ARGUMENT).take(self.argc as usize - 1)
    }

    /// How the program was run, for a reader, with the arguments' values: `run as
    /// \`PROGRAM 100\`` (or a count when there are many arguments).
    pub fn describe(self, texts: &[i128]) -> String {
        if self.argc <= 9 {
            format!(
                "run as `PROGRAM{}` (argc = {})",
                Self::shell_suffix(texts),
                self.argc
            )
        } else {
            format!(
                "run with argc = {} (the program and {} arguments)",
                self.argc,
                self.argc - 1
            )
        }
    }

    /// The arguments with these values as they follow the program in a shell command
    /// (empty for none).
    pub fn shell_suffix(texts: &[i128]) -> String {
        texts.iter().map(|v| format!(" {}", *v as i64)).collect()
    }
}

/// Where a run stopped on a runtime error, as the runtime's handler or the address
/// sanitizer printed it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeError {
    /// `overflow`, `div`, `shift` or `bounds` (the names of `--checks`), `shift-base`
    /// (`ir::CheckKind::native_name`), or `memory` for a sanitizer report.
    pub class: String,
    /// The memory error of a sanitizer report (`class` is then `memory`).
    pub memory: Option<MemoryError>,
    /// The file as clang recorded it (empty when a report names no frame of the program).
    pub file: String,
    /// 1-based line (0 when a report names no frame of the program).
    pub line: u32,
    /// 1-based column (0 when unknown).
    pub column: u32,
    /// For a leak, where each leaked object was allocated (`file`, `line` and `column` are
    /// the first of them).
    pub leaked_at: Vec<super::asan::Frame>,
    /// Whether a sanitizer's overflow is of a buffer the driver passed for a pointer
    /// parameter, not of an object of the program.
    pub in_entry_buffer: bool,
}

impl RuntimeError {
    /// The runtime error a run stopped on: the handler's line
    /// (`POLYFOCUS-RUNTIME-ERROR kind file:line:col`), else the sanitizer's report.
    pub fn of_run(run: &RunResult) -> Option<RuntimeError> {
        if run.status != RunStatus::RuntimeError {
            return None;
        }
        let Some(line) = run
            .stderr
            .lines()
            .rev()
            .find_map(|l| l.strip_prefix("POLYFOCUS-RUNTIME-ERROR "))
        else {
            let report = super::asan::parse_report(&run.stderr)?;
            let frame = report.frame.unwrap_or(super::asan::Frame {
                file: String::new(),
                line: 0,
                column: 0,
            });
            return Some(RuntimeError {
                class: crate::ir::CheckClass::Memory.name().to_string(),
                memory: Some(report.error),
                file: frame.file,
                line: frame.line,
                column: frame.column,
                leaked_at: report.leaks,
                in_entry_buffer: report.in_entry_buffer,
            });
        };
        let (class, place) = line.trim().split_once(' ')?;
        let (rest, column) = place.rsplit_once(':')?;
        let (file, line) = rest.rsplit_once(':')?;
        Some(RuntimeError {
            class: class.to_string(),
            memory: None,
            file: file.to_string(),
            line: line.parse().ok()?,
            column: column.parse().ok()?,
            leaked_at: vec![],
            in_entry_buffer: false,
        })
    }

    /// Whether this error is a violation of a check of `kind` at `loc`: the same class (for
    /// a sanitizer report, an error kind that confirms the check) at the same file, line and
    /// column (line only when the check has no column). A leak is reported where its object
    /// was allocated, not where it was lost: it matches a leak check at the place of any
    /// leaked object's allocation.
    pub fn is_at(&self, kind: &crate::ir::CheckKind, loc: Option<&crate::ir::SourceLoc>) -> bool {
        let base = |f: &str| {
            Path::new(f)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        };
        let at = |file: &str, line: u32, column: u32| {
            loc.is_some_and(|loc| {
                line != 0
                    && loc.line == line
                    && (loc.column == column || loc.column == 0)
                    && base(&loc.file) == base(file)
            })
        };
        match self.memory {
            Some(MemoryError::Leak) => {
                return MemoryError::Leak.confirms(kind)
                    && self.leaked_at.iter().any(|f| at(&f.file, f.line, f.column))
            }
            Some(error) if !error.confirms(kind) => return false,
            Some(_) => {}
            None if kind.native_name() != self.class => return false,
            None => {}
        }
        at(&self.file, self.line, self.column)
    }

    /// The error for people: `overflow at t.c:3:13`.
    pub fn describe(&self) -> String {
        let what = match self.memory {
            Some(error) => error.name(),
            None => self.class.as_str(),
        };
        if self.line == 0 {
            what.to_string()
        } else {
            format!("{what} at {}:{}:{}", self.file, self.line, self.column)
        }
    }
}

/// What to answer when the recorded values are used up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Exit with [`EXIT_EXTRA_INPUT`].
    Strict,
    /// Serve this value (truncated to the requested width).
    Const(i128),
    /// Serve pseudo-random values (small, boundary, dictionary or uniform) from this seed.
    Random(u64),
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunStatus {
    /// The runtime's error hook ran.
    ErrorReached,
    /// A sanitizer handler of the runtime ran: an operation misbehaved (the site is in
    /// standard error, see [`RuntimeError::of_run`]).
    RuntimeError,
    /// A strict run asked for more values than recorded.
    ExtraInput,
    /// Normal exit with another status.
    Exited(i32),
    /// Killed by a signal (a trap on undefined behaviour, a crash).
    Signaled(i32),
    /// Killed after the time limit.
    Timeout,
}

/// One served input: function, width, bits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Served {
    /// The requesting function (`<arg i>` for entry arguments).
    pub function: String,
    /// Width in bits.
    pub width: u32,
    /// The bits served.
    pub bits: u128,
}

/// The result of one run.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// How it ended.
    pub status: RunStatus,
    /// What was served, in order (complete only when the run was not killed).
    pub served: Vec<Served>,
    /// The results of [`OBSERVED_FUNCTIONS`], in order.
    pub observed: Vec<Served>,
    /// Standard error, truncated.
    pub stderr: String,
    /// Wall time.
    pub elapsed: Duration,
}

/// A natively compiled program, ready to run.
pub struct NativeProgram {
    pub(super) dir: ScratchDir,
    pub(super) binary: PathBuf,
    /// Functions served as inputs by generated stubs (undefined external functions).
    pub stubbed: BTreeMap<String, u32>,
    /// The data model it was compiled for.
    pub data_model: DataModel,
    /// The driver generated for a non-`main` entry, if any (C text).
    pub driver: Option<String>,
    /// How many buffers the driver passes for pointer parameters (each filled by
    /// [`BUFFER_WORDS`] inputs after the other arguments).
    pub buffers: usize,
    /// How many floating-point arguments the driver passes (inputs after the integer ones).
    pub floats: usize,
    /// The generated stubs (C text).
    pub stubs: String,
    /// Whether it is built with the address sanitizer ([`super::build::sanitizes_memory`]).
    pub sanitizes_memory: bool,
}

impl NativeProgram {
    /// The runtime error a run stopped on, when it is evidence against the program.
    ///
    /// A driver's buffer for a pointer parameter is a guess of the object a caller passes:
    /// 4096 bytes whose words are arbitrary. A run that overflows it, follows a pointer read
    /// from it (arbitrary, where a caller stores a valid pointer or `NULL` knowingly) or
    /// faults at a wild or null address has found the guess wrong, not the program. Such a
    /// run is no counterexample of a memory check; errors in the program's own objects are.
    pub fn runtime_error(&self, run: &RunResult) -> Option<RuntimeError> {
        let error = RuntimeError::of_run(run)?;
        let guessed = match error.memory {
            Some(MemoryError::Overflow) => error.in_entry_buffer,
            Some(MemoryError::NullDeref | MemoryError::WildDeref) => true,
            _ => false,
        };
        if self.buffers > 0 && guessed {
            return None;
        }
        Some(error)
    }

    /// The source lines (`file`, `line`) of the calls on the stack when a run reached the
    /// error hook, from the frames it printed, innermost first.
    pub fn error_lines(&self, run: &RunResult) -> Vec<(String, u32)> {
        let addrs: Vec<String> = run
            .stderr
            .lines()
            .filter_map(|l| l.strip_prefix("POLYFOCUS-FRAME "))
            .filter_map(|a| u64::from_str_radix(a.trim().trim_start_matches("0x"), 16).ok())
            // A return address follows its call: look up the byte before.
            .map(|a| format!("{:#x}", a.saturating_sub(1)))
            .collect();
        if addrs.is_empty() {
            return vec![];
        }
        let out = Command::new("addr2line")
            .arg("-e")
            .arg(&self.binary)
            .args(&addrs)
            .stdin(Stdio::null())
            .output();
        let Ok(out) = out else {
            return vec![];
        };
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| {
                // `file:line` or `file:line (discriminator n)`.
                let l = l.split(" (").next().unwrap_or(l);
                let (file, line) = l.rsplit_once(':')?;
                let line = line.trim().parse::<u32>().ok()?;
                (line > 0 && file != "??").then(|| (file.to_string(), line))
            })
            .collect()
    }

    /// The working directory of replays.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Runs the binary with `command_line`, serving `inputs` (bits) and then answering per
    /// `policy`.
    pub fn run(
        &self,
        command_line: CommandLine,
        inputs: &[u128],
        policy: &Policy,
        dictionary: &[i128],
        timeout: Duration,
    ) -> RunResult {
        let dir = self.dir.path();
        let inputs_file = dir.join("inputs.txt");
        let log_file = dir.join("served.txt");
        let dict_file = dir.join("dict.txt");
        let write = |path: &Path, lines: Vec<String>| {
            if let Ok(mut f) = std::fs::File::create(path) {
                let _ = f.write_all(lines.join("\n").as_bytes());
                let _ = f.write_all(b"\n");
            }
        };
        write(
            &inputs_file,
            inputs.iter().map(|v| (*v as u64).to_string()).collect(),
        );
        write(
            &dict_file,
            dictionary.iter().map(|v| (*v as i64).to_string()).collect(),
        );
        let _ = std::fs::remove_file(&log_file);
        let stderr_path = dir.join("stderr.txt");
        let stderr_file = std::fs::File::create(&stderr_path).ok();
        let mut cmd = Command::new(&self.binary);
        cmd.args(command_line.arguments())
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .env("POLYFOCUS_REPLAY_INPUTS", &inputs_file)
            .env("POLYFOCUS_REPLAY_LOG", &log_file)
            .env("POLYFOCUS_REPLAY_DICT", &dict_file);
        match policy {
            Policy::Strict => cmd.env_remove("POLYFOCUS_REPLAY_POLICY"),
            Policy::Const(v) => cmd.env("POLYFOCUS_REPLAY_POLICY", format!("const:{}", *v as i64)),
            Policy::Random(seed) => cmd.env("POLYFOCUS_REPLAY_POLICY", format!("random:{seed}")),
        };
        if self.sanitizes_memory {
            cmd.env(
                "ASAN_OPTIONS",
                super::asan::asan_options(EXIT_RUNTIME_ERROR),
            )
            .env("ASAN_SYMBOLIZER_PATH", super::asan::symbolizer());
        }
        match stderr_file {
            Some(f) => cmd.stderr(f),
            None => cmd.stderr(Stdio::null()),
        };
        // The runtime (`runtime/replay.c`) limits its own address space (2 GiB, a guard
        // against runaway allocation) and asks to die with the thread that started it, when
        // it is told its parent: no `pre_exec` hook, so the standard library spawns it with
        // `posix_spawn` rather than `fork`, which copied the page tables of a process of
        // several hundred MB for every run (a third of the CPU time of `scripts/real-code`
        // was system time).
        cmd.env(REPLAY_PARENT_ENV, std::process::id().to_string());
        cmd.process_group(0);
        let start = Instant::now();
        let status = match spawn_alone(&mut cmd) {
            Err(e) => {
                return RunResult {
                    status: RunStatus::Exited(-1),
                    served: vec![],
                    observed: vec![],
                    stderr: format!("spawning the replay: {e}"),
                    elapsed: start.elapsed(),
                }
            }
            Ok(mut child) => {
                // Killed with the rest of its group if polyfocus is interrupted.
                let _group = ChildGroup::register(child.id());
                loop {
                    match crate::clock::try_reap(&mut child) {
                        Ok(Some(st)) => {
                            use std::os::unix::process::ExitStatusExt;
                            break match (st.code(), st.signal()) {
                                (Some(EXIT_ERROR_REACHED), _) => RunStatus::ErrorReached,
                                (Some(EXIT_RUNTIME_ERROR), _) => RunStatus::RuntimeError,
                                (Some(EXIT_EXTRA_INPUT), _) => RunStatus::ExtraInput,
                                (Some(c), _) => RunStatus::Exited(c),
                                (None, Some(s)) => RunStatus::Signaled(s),
                                (None, None) => RunStatus::Exited(-1),
                            };
                        }
                        Ok(None) => {
                            if start.elapsed() >= timeout {
                                unsafe {
                                    libc::kill(-(child.id() as i32), libc::SIGKILL);
                                }
                                let _ = child.kill();
                                let _ = crate::clock::reap_blocking(&mut child);
                                break RunStatus::Timeout;
                            }
                            let waited = start.elapsed();
                            let pause = if waited < Duration::from_millis(20) {
                                Duration::from_millis(1)
                            } else {
                                Duration::from_millis(10)
                            };
                            std::thread::sleep(pause);
                        }
                        Err(_) => break RunStatus::Exited(-1),
                    }
                }
            }
        };
        let elapsed = start.elapsed();
        let mut stderr = std::fs::read_to_string(&stderr_path).unwrap_or_default();
        // Keep the end: the error hook's report comes last; a sanitizer's report from its
        // `ERROR:` line (the program's own output comes before it).
        if let Some(at) = stderr.rfind("==ERROR: ") {
            let start = stderr[..at].rfind('\n').map_or(0, |n| n + 1);
            stderr = stderr[start..].to_string();
            stderr.truncate(stderr.floor_char_boundary(16000));
        } else if stderr.len() > 8000 {
            let mut cut = stderr.len() - 8000;
            while !stderr.is_char_boundary(cut) {
                cut += 1;
            }
            stderr = stderr[cut..].to_string();
        }
        let (served, observed) = if status == RunStatus::Timeout {
            (vec![], vec![])
        } else {
            read_served(&log_file)
        };
        RunResult {
            status,
            served,
            observed,
            stderr,
            elapsed,
        }
    }
}

/// The served values and the observations (lines starting with `=`) of a run's log.
fn read_served(path: &Path) -> (Vec<Served>, Vec<Served>) {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut served = Vec::new();
    let mut observed = Vec::new();
    for line in text.lines() {
        // The name may contain a space (`<arg 0>`): width and value are the last two.
        let mut parts = line.rsplitn(3, ' ');
        let (Some(bits), Some(width), Some(function)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let (Ok(bits), Ok(width)) = (bits.parse::<u64>(), width.parse::<u32>()) else {
            continue;
        };
        let (function, list) = match function.strip_prefix('=') {
            Some(f) => (f, &mut observed),
            None => (function, &mut served),
        };
        list.push(Served {
            function: function.to_string(),
            width,
            bits: u128::from(bits),
        });
    }
    (served, observed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtime_lists_match_the_source() {
        let text = runtime_source().unwrap();
        for name in RUNTIME_STRONG.iter().chain(RUNTIME_WEAK) {
            assert!(
                text.contains(&format!("{name}(")) || text.contains(&format!("{name})")),
                "{name} is not defined in runtime/replay.c"
            );
        }
    }
}

/// Spawns `command` while no other thread of this process spawns.
///
/// Every spawn here is a `posix_spawn` (no `pre_exec` hook), which runs no `pthread_atfork`
/// handler. Should the standard library fall back to `fork`, it would run the fork handler
/// of the solver library (version 4.8's `scoped_timer::finalize`, racy with other threads,
/// fixed upstream since): two workers forking at once (the counterexample searches of two
/// functions starting together) left both blocked in it for good. Spawning one at a time
/// keeps that impossible; a spawn is short, so the lock costs little.
pub(super) fn spawn_alone(command: &mut Command) -> std::io::Result<std::process::Child> {
    static FORK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _alone = FORK.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    command.spawn()
}
