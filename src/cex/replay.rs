//! Native replay: the original program compiled with clang and linked with
//! `runtime/replay.c`, run in a temporary directory under a time limit.
//!
//! The build compiles every input with the analysis' flags and data model (at `-O0`, with
//! UBSan's checks of signed overflow, division by zero, oversized shifts and array bounds,
//! not recoverable, but without the sanitizer runtime: `runtime/replay.c` defines the
//! handlers, which print the kind and source location of the operation and exit with
//! [`EXIT_RUNTIME_ERROR`]; so an execution with undefined behaviour never counts as reaching
//! an assertion's error site, and a runtime check is confirmed only at its own operation,
//! for both data models, with nothing to install), weakens the program's own
//! definitions of the runtime's functions with `objcopy` (SV-COMP tasks define `reach_error`
//! themselves), adds stubs for the nondet functions outside the runtime's fixed list and for
//! undefined external functions (their results are inputs, served like nondet values), and,
//! when the entry is not `main`, a driver `main` that calls the entry with arguments taken
//! from the input stream. When the entry is `main`, a run gets a real command line
//! ([`CommandLine`]): `argc` is an input chosen before the run.
//!
//! The runtime also serves the integer conversions of `scanf` (named [`SCANF_INPUT`]), so a
//! run does not depend on what its standard input holds.
//!
//! A run serves the given values in order; with a [`Policy`] other than `Strict` further
//! requests are answered by the policy, and every served value is logged, so that a run that
//! reaches the error yields the exact input sequence to confirm in strict mode.

use crate::frontend::{clang_program, runtime_dir, DataModel, FrontendConfig};
use crate::interrupt::{ChildGroup, ScratchDir};
use std::collections::BTreeMap;
use std::io::Write as _;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

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

/// The name under which the runtime serves the integers `scanf` converts.
pub const SCANF_INPUT: &str = "scanf";
/// The symbols of `scanf` the runtime defines (glibc's `<stdio.h>` calls the second).
pub const SCANF_FUNCTIONS: &[&str] = &["scanf", "__isoc99_scanf"];

/// The largest `argc` of a replay: 2^16 arguments of two bytes (`"1"`) and their pointers
/// take about 650 KiB, well within what Linux accepts on a command line (a quarter of the
/// default 8 MiB stack), so every count up to it is one a real `execve` can give.
pub const MAX_ARGC: u32 = 1 << 16;

/// The text of each argument a replay passes after the program's path.
///
/// The analysis does not model what `argv` points to (every load from it is an arbitrary
/// value), so the search chooses only how many arguments there are; their text is fixed,
/// and whatever the program does with it is what the native run does.
pub const ARGUMENT: &str = "1";

/// The command line of a native run of `main(int argc, char **argv)`: the program's path
/// and `argc - 1` copies of [`ARGUMENT`], passed to the process for real (so `argv` is
/// exactly what the C library gives a program, and `argc >= 1`).
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

    /// The arguments after the program's path.
    pub fn arguments(self) -> impl Iterator<Item = &'static str> {
        std::iter::repeat(ARGUMENT).take(self.argc as usize - 1)
    }

    /// How the program was run, for a reader: `run as \`PROGRAM 1 1\`` (or a count when
    /// there are many arguments).
    pub fn describe(self) -> String {
        if self.argc <= 9 {
            format!(
                "run as `PROGRAM{}` (argc = {})",
                self.shell_suffix(),
                self.argc
            )
        } else {
            format!(
                "run with argc = {} (the program and {} arguments `{ARGUMENT}`)",
                self.argc,
                self.argc - 1
            )
        }
    }

    /// The arguments as they follow the program in a shell command (empty for none).
    pub fn shell_suffix(self) -> String {
        self.arguments().map(|a| format!(" {a}")).collect()
    }
}

/// The undefined behaviours the native build checks (UBSan's names).
pub const SANITIZE: &str =
    "-fsanitize=signed-integer-overflow,integer-divide-by-zero,shift-exponent,bounds";

/// Where a run stopped on a runtime error, as the runtime's handler printed it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeError {
    /// `overflow`, `div`, `shift` or `bounds` (the names of `--checks`).
    pub class: String,
    /// The file as clang recorded it.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
}

impl RuntimeError {
    /// The runtime error a run stopped on (`POLYFOCUS-RUNTIME-ERROR kind file:line:col`).
    pub fn of_run(run: &RunResult) -> Option<RuntimeError> {
        if run.status != RunStatus::RuntimeError {
            return None;
        }
        let line = run
            .stderr
            .lines()
            .rev()
            .find_map(|l| l.strip_prefix("POLYFOCUS-RUNTIME-ERROR "))?;
        let (class, place) = line.trim().split_once(' ')?;
        let (rest, column) = place.rsplit_once(':')?;
        let (file, line) = rest.rsplit_once(':')?;
        Some(RuntimeError {
            class: class.to_string(),
            file: file.to_string(),
            line: line.parse().ok()?,
            column: column.parse().ok()?,
        })
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
    /// Standard error, truncated.
    pub stderr: String,
    /// Wall time.
    pub elapsed: Duration,
}

/// What the build must know about the analyzed function.
#[derive(Clone, Debug)]
pub struct BuildSpec {
    /// The analyzed entry function.
    pub entry: String,
    /// Widths of its integer parameters (used when it is not `main`).
    pub param_widths: Vec<u32>,
    /// Nondet functions the program calls, with the width of their result.
    pub nondet: BTreeMap<String, u32>,
    /// Functions whose results the lifted program treats as unknown, with their width.
    pub unknown_calls: BTreeMap<String, u32>,
    /// Values for the random policy's dictionary (constants of the program).
    pub dictionary: Vec<i128>,
}

/// A natively compiled program, ready to run.
pub struct NativeProgram {
    dir: ScratchDir,
    binary: PathBuf,
    /// Functions served as inputs by generated stubs (undefined external functions).
    pub stubbed: BTreeMap<String, u32>,
    /// The data model it was compiled for.
    pub data_model: DataModel,
    /// The driver `main` generated for a non-`main` entry, if any.
    pub driver: Option<String>,
    /// How many buffers the driver passes for pointer parameters (each filled by
    /// [`BUFFER_WORDS`] inputs after the integer arguments).
    pub buffers: usize,
    /// The generated stubs (C text).
    pub stubs: String,
}

fn c_type(width: u32) -> &'static str {
    match width {
        1 => "_Bool",
        2..=8 => "unsigned char",
        9..=16 => "unsigned short",
        17..=32 => "unsigned int",
        _ => "unsigned long long",
    }
}

/// A C stub for a function that serves an input of `width` bits.
pub fn stub_text(name: &str, width: u32) -> String {
    format!(
        "{ty} {name}() {{ return ({ty})polyfocus_replay_next(\"{name}\", {width}); }}\n",
        ty = c_type(width)
    )
}

/// How the driver `main` passes one parameter of an entry that is not `main`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryParam {
    /// An integer of this width, served as the input `<arg i>` (the lifted function's
    /// parameters are exactly these, in order).
    Int(u32),
    /// A pointer, to a fresh buffer of [`BUFFER_BYTES`] bytes between inaccessible guard
    /// regions, whose contents are served as [`BUFFER_WORDS`] inputs `<mem i>` of 64 bits
    /// (after every integer argument). Distinct parameters never alias: a calling context
    /// the entry admits, which is all a counterexample needs.
    Buffer,
}

/// The size of the buffer a replay passes for each pointer parameter of an entry. A run
/// that reads or writes past it stops on the guard (a signal: never a counterexample), so
/// an entry that needs more only loses counterexamples.
pub const BUFFER_BYTES: usize = 4096;
/// The inputs that fill one buffer (64-bit words).
pub const BUFFER_WORDS: usize = BUFFER_BYTES / 8;
/// The prefix of the name of the inputs that fill the buffers of pointer parameters.
pub const BUFFER_INPUT_PREFIX: &str = "<mem ";

/// The driver `main` that calls a non-`main` entry with arguments from the input stream:
/// the integer arguments first, then the contents of the buffers of pointer parameters.
pub fn driver_text(entry: &str, params: &[EntryParam]) -> String {
    let mut out = String::new();
    let c_param = |p: &EntryParam| match p {
        EntryParam::Int(w) => c_type(*w),
        EntryParam::Buffer => "void *",
    };
    let decl: Vec<&str> = params.iter().map(c_param).collect();
    let decl = if decl.is_empty() {
        "void".to_string()
    } else {
        decl.join(", ")
    };
    if params.contains(&EntryParam::Buffer) {
        // The guards are 64 KiB on each side: an access just outside the buffer (an
        // off-by-one, a negative index) faults instead of reading another object, which
        // would make the run an execution the program as written does not have.
        out.push_str(&format!(
            r#"#include <sys/mman.h>
static void *polyfocus_entry_buffer(const char *name) {{
    const unsigned long guard = 1UL << 16, size = {BUFFER_BYTES}UL;
    unsigned char *base = (unsigned char *)mmap(0, 2 * guard + size, PROT_READ | PROT_WRITE,
                                                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    unsigned long long *words;
    unsigned long i;
    if (base == (unsigned char *)MAP_FAILED || mprotect(base, guard, PROT_NONE) != 0 ||
        mprotect(base + guard + size, guard, PROT_NONE) != 0)
        abort();
    words = (unsigned long long *)(base + guard);
    for (i = 0; i < size / 8; i++)
        words[i] = polyfocus_replay_next(name, 64);
    return base + guard;
}}
"#
        ));
    }
    out.push_str(&format!("extern void {entry}({decl});\n"));
    out.push_str("int main(void) {\n");
    for (i, p) in params.iter().enumerate() {
        if let EntryParam::Int(w) = p {
            out.push_str(&format!(
                "    {ty} a{i} = ({ty})polyfocus_replay_next(\"<arg {i}>\", {w});\n",
                ty = c_type(*w)
            ));
        }
    }
    for (i, p) in params.iter().enumerate() {
        if *p == EntryParam::Buffer {
            out.push_str(&format!(
                "    void *a{i} = polyfocus_entry_buffer(\"{BUFFER_INPUT_PREFIX}{i}>\");\n"
            ));
        }
    }
    let args: Vec<String> = (0..params.len()).map(|i| format!("a{i}")).collect();
    out.push_str(&format!(
        "    {entry}({});\n    return 0;\n}}\n",
        args.join(", ")
    ));
    out
}

/// The objcopy program: `$POLYFOCUS_OBJCOPY`, else `objcopy` (binutils) when it runs, else
/// `llvm-objcopy-19`.
fn objcopy_program() -> String {
    if let Ok(p) = std::env::var("POLYFOCUS_OBJCOPY") {
        return p;
    }
    let works = Command::new("objcopy")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if works {
        "objcopy".into()
    } else {
        "llvm-objcopy-19".into()
    }
}

/// Runs a build tool in the current directory (paths in the inputs and flags are relative
/// to it); outputs go to absolute paths in the temporary directory.
/// Runs a tool to completion, or kills it at `deadline`: the native build runs within the
/// analyzed function's budget, and compiling a whole library (one clang run per
/// translation unit, for every entry function) takes longer than a budget of seconds.
/// Its standard error goes to a file in `tmp`, so that a chatty compiler cannot block on a
/// full pipe while it is waited for.
fn run_tool(
    program: &str,
    args: &[String],
    tmp: &Path,
    deadline: Instant,
) -> Result<String, String> {
    if Instant::now() >= deadline {
        return Err(format!("no time left in the budget to run {program}"));
    }
    let log_path = tmp.join(format!("tool-{}.stderr", std::process::id()));
    let log = std::fs::File::create(&log_path)
        .map_err(|e| format!("creating {}: {e}", log_path.display()))?;
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log);
    // No `pre_exec` hook (such as `die_with_parent`): it would make the standard library
    // `fork` this process instead of using `posix_spawn`. The tool is in polyfocus's own
    // process group, so an interrupt or a harness's kill of the group ends it; after a
    // `SIGKILL` of polyfocus alone it runs to its own end (a compile or a link).
    let mut child = spawn_alone(&mut command).map_err(|e| format!("running {program}: {e}"))?;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{program} did not finish within the budget"));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("waiting for {program}: {e}")),
        }
    };
    let stderr = std::fs::read_to_string(&log_path).unwrap_or_default();
    if status.success() {
        Ok(stderr)
    } else {
        let mut s = stderr;
        s.truncate(2000);
        Err(format!("{program} failed: {}", s.trim()))
    }
}

/// What clang made of an input with some flags, kept for the rest of the run: a library has
/// hundreds of entries, and each one's search would otherwise compile every translation unit
/// again (twice: once for the entry's signature, once for the object), which dominates the
/// run on real code. Inputs do not change during a run; only successes are kept.
#[derive(Default)]
struct CompileCache {
    /// The `define` lines of the textual IR, per input and flags.
    signatures: std::collections::HashMap<(PathBuf, Vec<String>), std::sync::Arc<String>>,
    /// The object file's bytes, per input and flags.
    objects: std::collections::HashMap<(PathBuf, Vec<String>), std::sync::Arc<Vec<u8>>>,
}

fn compile_cache() -> std::sync::MutexGuard<'static, CompileCache> {
    static CACHE: std::sync::OnceLock<std::sync::Mutex<CompileCache>> = std::sync::OnceLock::new();
    CACHE
        .get_or_init(Default::default)
        .lock()
        // A panic while holding it leaves the maps as they were: entries are inserted whole.
        .unwrap_or_else(|e| e.into_inner())
}

/// The `define` lines of `input` compiled to textual IR with `flags`.
fn signatures(
    input: &Path,
    flags: Vec<String>,
    ll: &Path,
    dir: &Path,
    deadline: Instant,
) -> Result<std::sync::Arc<String>, String> {
    let key = (input.to_path_buf(), flags);
    if let Some(text) = compile_cache().signatures.get(&key) {
        return Ok(text.clone());
    }
    let mut args = key.1.clone();
    args.extend([
        input.display().to_string(),
        "-o".to_string(),
        ll.display().to_string(),
    ]);
    run_tool(&clang_program(), &args, dir, deadline)?;
    let text = std::fs::read_to_string(ll).map_err(|e| format!("reading {}: {e}", ll.display()))?;
    let defines: String = text
        .lines()
        .filter(|l| l.starts_with("define "))
        .flat_map(|l| [l, "\n"])
        .collect();
    let defines = std::sync::Arc::new(defines);
    compile_cache().signatures.insert(key, defines.clone());
    Ok(defines)
}

/// Writes to `obj` the object file of `input` compiled with `flags`.
fn compile_object(
    input: &Path,
    flags: Vec<String>,
    obj: &Path,
    dir: &Path,
    deadline: Instant,
) -> Result<(), String> {
    let key = (input.to_path_buf(), flags);
    let cached = compile_cache().objects.get(&key).cloned();
    if let Some(bytes) = cached {
        return std::fs::write(obj, bytes.as_slice())
            .map_err(|e| format!("writing {}: {e}", obj.display()));
    }
    let mut args = key.1.clone();
    args.extend([
        input.display().to_string(),
        "-o".to_string(),
        obj.display().to_string(),
    ]);
    run_tool(&clang_program(), &args, dir, deadline)?;
    let bytes = std::fs::read(obj).map_err(|e| format!("reading {}: {e}", obj.display()))?;
    compile_cache()
        .objects
        .insert(key, std::sync::Arc::new(bytes));
    Ok(())
}

/// The parameters of `entry` as a driver passes them, from the signature of the
/// entry in the textual IR of the inputs (in a fresh temporary directory).
pub fn entry_signature(
    config: &FrontendConfig,
    entry: &str,
    deadline: Instant,
) -> Result<Vec<EntryParam>, String> {
    let dir = ScratchDir::new("polyfocus-signature-")
        .map_err(|e| format!("creating a temporary directory: {e}"))?;
    entry_params(config, entry, dir.path(), deadline)
}

/// One parameter of an LLVM `define` line (`i32 noundef %a`, `ptr noundef %p`) as a driver
/// passes it; `Err` for what it cannot pass: floats, vectors, aggregates passed by value
/// (`byval`, or a hidden result pointer `sret`, whose C signature differs from the IR's).
fn entry_param(entry: &str, param: &str) -> Result<EntryParam, String> {
    let mut words = param.split_whitespace();
    let ty = words.next().unwrap_or("");
    if let Some(w) = ty.strip_prefix('i').and_then(|w| w.parse::<u32>().ok()) {
        if w <= 64 {
            return Ok(EntryParam::Int(w));
        }
    }
    let by_value = ["byval", "sret", "inalloca", "preallocated", "byref"];
    if ty == "ptr" && !words.any(|a| by_value.iter().any(|b| a.starts_with(b))) {
        return Ok(EntryParam::Buffer);
    }
    Err(format!(
        "entry `{entry}` has a parameter of type {}",
        param.trim()
    ))
}

/// The parameters of a `define` line from just after the function's `(`: split at the
/// commas outside parentheses (attributes such as `byval(%struct.S)` or
/// `dereferenceable(8)` have their own), up to the list's `)`; `None` when it does not end.
fn parameter_list(rest: &str) -> Option<Vec<String>> {
    let mut params = Vec::new();
    let mut depth = 0usize;
    let mut current = String::new();
    for c in rest.chars() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => {
                if !current.trim().is_empty() {
                    params.push(current.trim().to_string());
                }
                return Some(params);
            }
            ')' => depth -= 1,
            ',' if depth == 0 => {
                params.push(current.trim().to_string());
                current.clear();
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    None
}

/// The parameters of `entry` as clang compiles it, from the textual IR of the inputs;
/// `Err` when one cannot be passed by a driver ([`entry_param`]).
fn entry_params(
    config: &FrontendConfig,
    entry: &str,
    dir: &Path,
    deadline: Instant,
) -> Result<Vec<EntryParam>, String> {
    for (i, input) in config.inputs.iter().enumerate() {
        let ll = dir.join(format!("entry{i}.ll"));
        let mut args = compile_flags(config);
        args.extend([
            "-S".to_string(),
            "-emit-llvm".to_string(),
            "-fno-sanitize=all".to_string(),
        ]);
        let Ok(text) = signatures(input, args, &ll, dir, deadline) else {
            continue;
        };
        let needle = format!("@{entry}(");
        for line in text.lines() {
            if !line.starts_with("define ") {
                continue;
            }
            let Some(pos) = line.find(&needle) else {
                continue;
            };
            let rest = &line[pos + needle.len()..];
            let Some(params) = parameter_list(rest) else {
                continue;
            };
            return params.iter().map(|p| entry_param(entry, p)).collect();
        }
    }
    Err(format!("entry `{entry}` not found in the compiled inputs"))
}

fn compile_flags(config: &FrontendConfig) -> Vec<String> {
    let mut args: Vec<String> = [
        "-c",
        "-O0",
        "-g",
        "-w",
        "-Wno-error=implicit-function-declaration",
        "-Wno-error=implicit-int",
        "-Wno-error=int-conversion",
        "-Wno-error=incompatible-function-pointer-types",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    // The program the analysis read: no optimizer deletes a call to an empty error function.
    args.extend(crate::frontend::unoptimized_user_flags(config));
    args
}

impl NativeProgram {
    /// Compiles and links the program of `config` for replays of `spec.entry`.
    pub fn build(
        config: &FrontendConfig,
        spec: &BuildSpec,
        deadline: Instant,
    ) -> Result<NativeProgram, String> {
        let dir = ScratchDir::new("polyfocus-replay-")
            .map_err(|e| format!("creating a temporary directory: {e}"))?;
        let clang = clang_program();
        let mut objects = Vec::new();
        let mut weaken: Vec<String> = RUNTIME_STRONG.iter().map(|s| s.to_string()).collect();
        // Stubs for nondet functions the runtime does not define.
        let mut stubs = String::new();
        for (name, width) in &spec.nondet {
            if !RUNTIME_STRONG.contains(&name.as_str()) && !RUNTIME_WEAK.contains(&name.as_str()) {
                stubs.push_str(&stub_text(name, *width));
                weaken.push(name.clone());
            }
        }
        let params = if spec.entry != "main" {
            Some(entry_params(config, &spec.entry, dir.path(), deadline)?)
        } else {
            None
        };
        let buffers = params
            .iter()
            .flatten()
            .filter(|p| **p == EntryParam::Buffer)
            .count();
        let driver = params.map(|params| driver_text(&spec.entry, &params));
        for (i, input) in config.inputs.iter().enumerate() {
            let obj = dir.path().join(format!("input{i}.o"));
            let mut args = compile_flags(config);
            let is_c = input
                .extension()
                .is_some_and(|x| x == "c" || x == "i" || x == "h");
            if is_c {
                args.push(SANITIZE.into());
                // Not trapping: the handlers of `runtime/replay.c` name the operation.
                args.push("-fno-sanitize-recover=all".into());
            }
            compile_object(input, args, &obj, dir.path(), deadline)?;
            let mut oc: Vec<String> = weaken
                .iter()
                .map(|s| format!("--weaken-symbol={s}"))
                .collect();
            if driver.is_some() {
                oc.push("--redefine-sym=main=__polyfocus_user_main".into());
            }
            oc.push(obj.display().to_string());
            run_tool(&objcopy_program(), &oc, dir.path(), deadline)?;
            objects.push(obj);
        }
        let runtime = runtime_source()?;
        let mut stubbed = BTreeMap::new();
        let mut link_err = String::new();
        // Link; on undefined references to functions whose results are unknown inputs, add
        // stubs serving them and link again.
        for _attempt in 0..2 {
            let rt_c = dir.path().join("polyfocus_replay.c");
            let mut text = runtime.clone();
            text.push_str("\n/* Generated stubs. */\n");
            text.push_str(&stubs);
            if let Some(d) = &driver {
                text.push_str(d);
            }
            std::fs::write(&rt_c, &text).map_err(|e| format!("writing the runtime: {e}"))?;
            let rt_o = dir.path().join("polyfocus_replay.o");
            let mut args = vec!["-c".to_string(), "-O1".to_string(), "-w".to_string()];
            if config.data_model == DataModel::Ilp32 {
                args.push("-m32".into());
            }
            args.extend([
                rt_c.display().to_string(),
                "-o".to_string(),
                rt_o.display().to_string(),
            ]);
            run_tool(&clang, &args, dir.path(), deadline)?;
            let binary = dir.path().join("replay");
            let mut args = Vec::new();
            if config.data_model == DataModel::Ilp32 {
                args.push("-m32".to_string());
            }
            args.extend(objects.iter().map(|o| o.display().to_string()));
            args.push(rt_o.display().to_string());
            // Not position-independent, so that the error hook's return addresses are the
            // addresses in the file (see `error_lines`).
            args.extend([
                "-no-pie".to_string(),
                "-lm".to_string(),
                "-o".to_string(),
                binary.display().to_string(),
            ]);
            match run_tool(&clang, &args, dir.path(), deadline) {
                Ok(_) => {
                    return Ok(NativeProgram {
                        dir,
                        binary,
                        stubbed,
                        data_model: config.data_model,
                        driver,
                        buffers,
                        stubs,
                    })
                }
                Err(e) => {
                    let missing = undefined_references(&e);
                    let mut added = false;
                    for name in missing {
                        if stubbed.contains_key(&name) {
                            continue;
                        }
                        match spec.unknown_calls.get(&name) {
                            Some(w) => {
                                stubs.push_str(&stub_text(&name, *w));
                                stubbed.insert(name, *w);
                                added = true;
                            }
                            None => {
                                // A function whose result is not used as an integer: any
                                // behaviour will do, it returns zero.
                                stubs.push_str(&format!("long long {name}() {{ return 0; }}\n"));
                                stubbed.insert(name, 0);
                                added = true;
                            }
                        }
                    }
                    link_err = e;
                    if !added {
                        break;
                    }
                }
            }
        }
        Err(link_err)
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
                    stderr: format!("spawning the replay: {e}"),
                    elapsed: start.elapsed(),
                }
            }
            Ok(mut child) => {
                // Killed with the rest of its group if polyfocus is interrupted.
                let _group = ChildGroup::register(child.id());
                loop {
                    match child.try_wait() {
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
                                let _ = child.wait();
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
        // Keep the end: the error hook's report comes last.
        if stderr.len() > 8000 {
            let mut cut = stderr.len() - 8000;
            while !stderr.is_char_boundary(cut) {
                cut += 1;
            }
            stderr = stderr[cut..].to_string();
        }
        let served = if status == RunStatus::Timeout {
            vec![]
        } else {
            read_served(&log_file)
        };
        RunResult {
            status,
            served,
            stderr,
            elapsed,
        }
    }
}

fn read_served(path: &Path) -> Vec<Served> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter_map(|line| {
            // The name may contain a space (`<arg 0>`): width and value are the last two.
            let mut parts = line.rsplitn(3, ' ');
            let bits = parts.next()?.parse::<u64>().ok()?;
            let width = parts.next()?.parse::<u32>().ok()?;
            let function = parts.next()?.to_string();
            Some(Served {
                function,
                width,
                bits: bits as u128,
            })
        })
        .collect()
}

/// The names in a linker's "undefined reference to `name'" messages.
fn undefined_references(stderr: &str) -> Vec<String> {
    let mut res = Vec::new();
    for line in stderr.lines() {
        let Some(pos) = line.find("undefined reference to `") else {
            // lld: "undefined symbol: name"
            if let Some(pos) = line.find("undefined symbol: ") {
                let name = line[pos + 18..].trim().to_string();
                if !name.is_empty() && !res.contains(&name) {
                    res.push(name);
                }
            }
            continue;
        };
        let rest = &line[pos + 24..];
        if let Some(end) = rest.find('\'') {
            let name = rest[..end].to_string();
            if !res.contains(&name) {
                res.push(name);
            }
        }
    }
    res
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

    #[test]
    fn parses_undefined_references() {
        let e =
            "/usr/bin/ld: x.o: in function `f':\nx.c:(.text+0x1): undefined reference to `toto'\n";
        assert_eq!(undefined_references(e), vec!["toto".to_string()]);
    }

    #[test]
    fn entry_parameters_as_a_driver_passes_them() {
        assert_eq!(entry_param("f", "i32 noundef %x"), Ok(EntryParam::Int(32)));
        assert_eq!(entry_param("f", "i1 zeroext %b"), Ok(EntryParam::Int(1)));
        assert_eq!(entry_param("f", "ptr noundef %p"), Ok(EntryParam::Buffer));
        assert_eq!(entry_param("f", "ptr %0"), Ok(EntryParam::Buffer));
        // Aggregates passed by value: the C signature is not the IR's.
        assert!(entry_param("f", "ptr noundef byval(%struct.S) align 8 %s").is_err());
        assert!(entry_param("f", "ptr noalias writable sret(%struct.S) align 4 %r").is_err());
        assert!(entry_param("f", "double noundef %d").is_err());
        assert!(entry_param("f", "i128 %w").is_err());
    }

    #[test]
    fn parameter_lists_with_parenthesized_attributes() {
        let line = "ptr noundef nonnull align 4 dereferenceable(8) %p, i32 noundef %n) #0 {";
        assert_eq!(
            parameter_list(line),
            Some(vec![
                "ptr noundef nonnull align 4 dereferenceable(8) %p".to_string(),
                "i32 noundef %n".to_string()
            ])
        );
        assert_eq!(parameter_list(") #0 {"), Some(vec![]));
        assert_eq!(parameter_list("i32 %a"), None);
    }

    #[test]
    fn the_driver_serves_integers_before_buffers() {
        let text = driver_text("f", &[EntryParam::Buffer, EntryParam::Int(32)]);
        let int_at = text.find("\"<arg 1>\"").expect("integer argument served");
        let buf_at = text
            .find("polyfocus_entry_buffer(\"<mem 0>\")")
            .expect("buffer filled");
        assert!(int_at < buf_at, "{text}");
        assert!(text.contains("f(a0, a1);"), "{text}");
        assert!(text.contains("PROT_NONE"), "{text}");
    }
}

/// Spawns `command` while no other thread of this process spawns.
///
/// Every spawn here is a `posix_spawn` (no `pre_exec` hook), which runs no `pthread_atfork`
/// handler. Should the standard library fall back to `fork`, it would run libz3 4.8's
/// handler (`scoped_timer::finalize`, racy with other threads: fixed upstream in
/// Z3Prover/z3#7618): two workers forking at once (the counterexample searches of two
/// functions starting together, issue 14) left both blocked in it for good. Spawning one
/// at a time keeps that impossible; a spawn is short, so the lock costs little.
fn spawn_alone(command: &mut Command) -> std::io::Result<std::process::Child> {
    static FORK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _alone = FORK.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    command.spawn()
}
