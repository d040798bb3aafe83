//! The native build of a replay: the original program compiled with clang and linked with
//! `runtime/replay.c`, in a temporary directory.
//!
//! Every input is compiled with the analysis' flags and data model (at `-O0`, with UBSan's
//! checks of signed overflow, division by zero, oversized shifts and array bounds, and with
//! `--checks shift` the bases of signed left shifts, not recoverable, but without the sanitizer runtime: `runtime/replay.c` defines the handlers).
//! The program's own definitions of the runtime's error functions are weakened with
//! `objcopy` (SV-COMP tasks define `reach_error` themselves).
//!
//! What the program does not define is generated from the program's own declarations (the
//! `declare` lines and external globals of its textual IR), in a unit of its own that
//! includes no header, so that nothing generated can clash with a prototype of the program
//! or of the C library: nondet functions outside the runtime's list, and every function or
//! global the link finds undefined (another library's API: a Python extension's
//! `PyErr_SetString`). A stub of a function returning an integer serves an input (so its
//! results are inputs of the trace); one returning a pointer returns null, a floating-point
//! one zero; an undefined global is a zeroed block.
//!
//! When the entry is not `main`, a driver calls it. It is compiled apart, with the
//! entry's prototype from the IR, so that every input is compiled once per run whichever
//! entry a build is for (a library has hundreds); a `static` entry (one named with
//! `--entry`: executions of a library start at its external functions) is made global in the
//! build's copy of its unit's object when no other unit knows its name. Where a prototype
//! from the IR would not pass the arguments as the entry reads them (a narrow parameter the
//! callee takes sign-extended), the driver is compiled inside the entry's own translation
//! unit (a unit that includes the input, then the driver) and sees the program's prototype.
//! The driver serves the integer arguments first, then the floating-point ones, then fills
//! the buffers of pointer parameters.
//!
//! Failures are reported in the user's terms ([`BuildError`]): the tools run inside are not
//! named.

use super::replay::{NativeProgram, RUNTIME_STRONG, RUNTIME_WEAK};
use crate::frontend::{clang_program, DataModel, FrontendConfig};
use crate::interrupt::ScratchDir;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

/// What the build must know about the analyzed function.
#[derive(Clone, Debug)]
pub struct BuildSpec {
    /// The analyzed entry function.
    pub entry: String,
    /// The source file that defines it, as its debug information records it: of two
    /// `static` functions of one name in two units, the one the analysis read.
    pub file: Option<String>,
    /// Whether the entry was named on the command line. Otherwise a `static` one is no
    /// entry: other units cannot call it, so executions do not start there, and a run
    /// that calls it with arguments of the driver's choice is not one of the program.
    pub named: bool,
    /// Nondet functions the program calls, with the width of their result.
    pub nondet: BTreeMap<String, u32>,
    /// Functions whose results the lifted program treats as unknown, with their width.
    pub unknown_calls: BTreeMap<String, u32>,
    /// Values for the random policy's dictionary (constants of the program).
    pub dictionary: Vec<i128>,
}

/// Why no native program could be built, in the user's terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildError {
    /// The function's budget ended first.
    OutOfTime,
    /// An input does not compile (the compiler's first error, about the program's source).
    Compile(String),
    /// The program does not link (the symbols missing).
    Link(String),
    /// The entry cannot be called by a generated driver (a parameter passed by value as an
    /// aggregate, a vector, an integer wider than 64 bits), or is not found.
    Entry(String),
    /// A file or a directory could not be written or read.
    Io(String),
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildError::OutOfTime => write!(
                f,
                "the counterexample could not be replayed within the function's budget"
            ),
            BuildError::Compile(e) => write!(f, "the program does not compile natively: {e}"),
            BuildError::Link(e) => write!(f, "the program does not link natively: {e}"),
            BuildError::Entry(e) | BuildError::Io(e) => write!(f, "{e}"),
        }
    }
}

/// How the driver passes one parameter of an entry that is not `main`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryParam {
    /// An integer of this width, served as the input `<arg i>` (the lifted function's
    /// parameters are exactly these, in order).
    Int(u32),
    /// A `float` (32) or `double` (64), served as the input `<float i>` after every integer
    /// argument: the value of the signed integer served, converted as C converts it (the
    /// lifted program has no floating-point values, so the runs choose them).
    Float(u32),
    /// A pointer, to a fresh buffer of [`BUFFER_BYTES`] bytes between inaccessible guard
    /// regions, whose contents are served as [`BUFFER_WORDS`] inputs `<mem i>` of 64 bits
    /// (after every other argument). Distinct parameters never alias: a calling context the
    /// entry admits, which is all a counterexample needs.
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
/// The prefix of the name of the inputs of floating-point parameters.
pub const FLOAT_INPUT_PREFIX: &str = "<float ";

/// How a driver compiled apart from the entry's translation unit can call the entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// By its name: an external function.
    Global,
    /// By its name once the build's copy of the unit's object makes it global: a `static`
    /// function no other unit names.
    Local,
    /// Only from its own unit: the driver is compiled inside it (a parameter the callee
    /// reads sign-extended, a linkage a driver outside cannot call by one name).
    Inside,
}

/// The entry as its translation unit defines it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryUnit {
    /// The index of the input that defines it.
    pub input: usize,
    /// Its name in that unit (the module's name without the suffix LLVM adds when two
    /// units define `static` functions of one name).
    pub name: String,
    /// Its parameters as the driver passes them.
    pub params: Vec<EntryParam>,
    /// How a driver outside its unit calls it.
    pub reach: Reach,
    /// Whether it is `static` (internal to its unit).
    pub internal: bool,
}

/// The undefined symbols a stub can stand for, from the program's declarations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Declared {
    /// A function returning nothing (or a type a stub cannot return).
    Void,
    /// A function returning an integer of this width.
    Int(u32),
    /// A function returning a pointer.
    Pointer,
    /// A function returning `float` (32) or `double` (64).
    Float(u32),
    /// A global variable.
    Data,
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

/// The declaration of the runtime's input function, for generated units that include no
/// header.
pub const NEXT_DECLARATION: &str =
    "extern unsigned long long polyfocus_replay_next(const char *, unsigned);\n";

/// A C stub for a function that serves an input of `width` bits.
pub fn stub_text(name: &str, width: u32) -> String {
    format!(
        "{ty} {name}() {{ return ({ty})polyfocus_replay_next(\"{name}\", {width}); }}\n",
        ty = c_type(width)
    )
}

/// The stub of an undefined symbol, and the width of the input it serves (0: none).
/// `lifted` is the width of the result as the lifted program reads it, when it does.
fn undefined_stub(name: &str, declared: Option<Declared>, lifted: Option<u32>) -> (String, u32) {
    match (declared, lifted) {
        (Some(Declared::Data), _) => (
            format!("unsigned char {name}[1 << 16] __attribute__((aligned(64)));\n"),
            0,
        ),
        (Some(Declared::Int(w)), lifted) => {
            let served = lifted.unwrap_or(w);
            (
                format!(
                    "{ty} {name}() {{ return ({ty})polyfocus_replay_next(\"{name}\", {served}); }}\n",
                    ty = c_type(w)
                ),
                served,
            )
        }
        (Some(Declared::Pointer), _) => (format!("void *{name}() {{ return 0; }}\n"), 0),
        (Some(Declared::Float(32)), _) => (format!("float {name}() {{ return 0; }}\n"), 0),
        (Some(Declared::Float(_)), _) => (format!("double {name}() {{ return 0; }}\n"), 0),
        (Some(Declared::Void), _) => (format!("void {name}() {{}}\n"), 0),
        (None, Some(w)) => (stub_text(name, w), w),
        // Not declared by any input (a reference from a pre-built object): any behaviour
        // will do, it returns zero.
        (None, None) => (format!("long long {name}() {{ return 0; }}\n"), 0),
    }
}

/// The driver: `polyfocus_call_entry` calls `entry` with arguments from the input stream.
/// It is compiled after the program's own text (see [`entry_unit_text`]), so `entry` has
/// the program's prototype; `declare` adds one of its own for an input that is not C.
pub fn driver_text(entry: &str, params: &[EntryParam], declare: bool) -> String {
    let mut out = String::new();
    out.push_str(NEXT_DECLARATION);
    out.push_str("extern void *polyfocus_entry_buffer(const char *);\n");
    if declare {
        let decl: Vec<&str> = params
            .iter()
            .map(|p| match p {
                EntryParam::Int(w) => c_type(*w),
                EntryParam::Float(32) => "float",
                EntryParam::Float(_) => "double",
                EntryParam::Buffer => "void *",
            })
            .collect();
        let decl = if decl.is_empty() {
            "void".to_string()
        } else {
            decl.join(", ")
        };
        out.push_str(&format!("extern void {entry}({decl});\n"));
    }
    out.push_str("void polyfocus_call_entry(void) {\n");
    for (i, p) in params.iter().enumerate() {
        if let EntryParam::Int(w) = p {
            out.push_str(&format!(
                "    {ty} a{i} = ({ty})polyfocus_replay_next(\"<arg {i}>\", {w});\n",
                ty = c_type(*w)
            ));
        }
    }
    for (i, p) in params.iter().enumerate() {
        if let EntryParam::Float(w) = p {
            out.push_str(&format!(
                "    {ty} a{i} = ({ty})(long long)polyfocus_replay_next(\"{FLOAT_INPUT_PREFIX}{i}>\", 64);\n",
                ty = if *w == 32 { "float" } else { "double" }
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
    out.push_str(&format!("    {entry}({});\n}}\n", args.join(", ")));
    out
}

/// The translation unit of the entry with its driver: the input's own text, then the
/// driver (so the driver sees the entry's prototype and may call a `static` function).
pub fn entry_unit_text(input: &Path, entry: &EntryUnit) -> String {
    let path = input.display().to_string();
    let quoted = path.replace('\\', "\\\\").replace('"', "\\\"");
    format!(
        "#include \"{quoted}\"\n\n/* The driver: calls the entry with arguments from the inputs. */\n{}",
        driver_text(&entry.name, &entry.params, false)
    )
}

/// The `main` of a program whose entry is not `main`: the program's own `main` is renamed.
pub const DRIVER_MAIN: &str =
    "extern void polyfocus_call_entry(void);\nint main(void) { polyfocus_call_entry(); return 0; }\n";

/// The name the program's own `main` gets when a driver calls another entry.
pub const RENAMED_MAIN: &str = "__polyfocus_user_main";

/// Whether an input is C source, which the driver's unit can include.
pub fn is_c_source(input: &Path) -> bool {
    input
        .extension()
        .is_some_and(|x| x == "c" || x == "i" || x == "h")
}

/// The absolute path of an input (the driver's unit, in a temporary directory, includes it).
fn absolute(input: &Path) -> PathBuf {
    std::path::absolute(input).unwrap_or_else(|_| input.to_path_buf())
}

/// The objcopy program: `$POLYFOCUS_OBJCOPY`, else `objcopy` (binutils) when it runs, else
/// `llvm-objcopy-19`.
pub fn objcopy_program() -> String {
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

/// Why a tool run failed.
enum ToolError {
    /// The deadline came first.
    OutOfTime,
    /// It ran and failed: its standard error, whole.
    Failed(String),
    /// It could not be run.
    Io(String),
}

/// Runs a tool to completion, or kills it at `deadline`: the native build runs within the
/// analyzed function's budget, and compiling a whole library (one clang run per
/// translation unit, for every entry function) takes longer than a budget of seconds.
/// Paths in the inputs and flags are relative to the current directory; outputs go to
/// absolute paths in the temporary directory. Its standard error goes to a file in `tmp`,
/// so that a chatty compiler cannot block on a full pipe while it is waited for.
fn run_tool(
    program: &str,
    args: &[String],
    tmp: &Path,
    deadline: Instant,
) -> Result<(), ToolError> {
    if Instant::now() >= deadline {
        return Err(ToolError::OutOfTime);
    }
    let log_path = tmp.join(format!("tool-{}.stderr", std::process::id()));
    let log = std::fs::File::create(&log_path)
        .map_err(|e| ToolError::Io(format!("creating {}: {e}", log_path.display())))?;
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
    let mut child = super::replay::spawn_alone(&mut command)
        .map_err(|e| ToolError::Io(format!("running {program}: {e}")))?;
    let status = loop {
        match crate::clock::try_reap(&mut child) {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = crate::clock::reap_blocking(&mut child);
                return Err(ToolError::OutOfTime);
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(ToolError::Io(format!("waiting for {program}: {e}"))),
        }
    };
    if status.success() {
        Ok(())
    } else {
        Err(ToolError::Failed(
            std::fs::read_to_string(&log_path).unwrap_or_default(),
        ))
    }
}

/// The first error a compiler printed, without the compiler's name and the temporary
/// directory's path.
fn first_error(stderr: &str, dir: &Path) -> String {
    let dir = format!("{}/", dir.display());
    let line = stderr
        .lines()
        .find(|l| l.contains("error:"))
        .or_else(|| stderr.lines().find(|l| !l.trim().is_empty()))
        .unwrap_or("no message");
    let line = line.replace(&dir, "");
    let line = match line.split_once(": error: ") {
        Some((tool, rest)) if !tool.contains(':') && !tool.contains('.') => {
            format!("error: {rest}")
        }
        _ => line,
    };
    let mut line = line.trim().to_string();
    if line.len() > 300 {
        let mut cut = 300;
        while !line.is_char_boundary(cut) {
            cut -= 1;
        }
        line.truncate(cut);
        line.push_str("...");
    }
    line
}

/// What clang made of an input with some flags, kept for the rest of the run: a library has
/// hundreds of entries, and each one's search would otherwise compile every translation unit
/// again (twice: once for the entry's signature, once for the object), which dominates the
/// run on real code. Inputs do not change during a run.
#[derive(Default)]
struct CompileCache {
    /// The declarations of the textual IR (see [`declarations`]), per input and flags.
    declarations: HashMap<(PathBuf, Vec<String>), Slot<Arc<String>>>,
    /// The object file's bytes of an input, per input and flags.
    inputs: HashMap<(PathBuf, Vec<String>), Slot<Arc<Vec<u8>>>>,
    /// The object file's bytes of a generated unit, per text and flags (successes only).
    generated: HashMap<(String, Vec<String>), Arc<Vec<u8>>>,
    /// An input's object after `objcopy`, per input, compile flags and `objcopy` options.
    prepared: HashMap<(PathBuf, Vec<String>, Vec<String>), Arc<Vec<u8>>>,
}

/// The outcome of one compile of an input, shared by the run's builds. The compile runs in
/// the background from the first build that needs it, and is not cut at that build's
/// deadline: its outcome serves every later build of the run, and a unit that takes longer
/// to compile than one search's allowance would otherwise be compiled, and killed, by every
/// search (the builds of a library's entries then never link). A build waits for it until
/// its own deadline only.
struct Shared<T> {
    outcome: Mutex<Option<Result<T, BuildError>>>,
    done: Condvar,
}

type Slot<T> = Arc<Shared<T>>;

/// How long a compile of one of the program's inputs may run in the background.
const INPUT_COMPILE_LIMIT: Duration = Duration::from_secs(120);

fn compile_cache() -> MutexGuard<'static, CompileCache> {
    static CACHE: OnceLock<Mutex<CompileCache>> = OnceLock::new();
    CACHE
        .get_or_init(Default::default)
        .lock()
        // A panic while holding it leaves the maps as they were: entries are inserted whole.
        .unwrap_or_else(|e| e.into_inner())
}

/// The slot of `key` in the map `pick` chooses, its compile `job` started in the background
/// when no build asked for it before.
fn started<K, T>(
    pick: fn(&mut CompileCache) -> &mut HashMap<K, Slot<T>>,
    key: K,
    job: impl FnOnce() -> Result<T, BuildError> + Send + 'static,
) -> Slot<T>
where
    K: std::hash::Hash + Eq,
    T: Send + 'static,
{
    let mut cache = compile_cache();
    if let Some(slot) = pick(&mut cache).get(&key) {
        return slot.clone();
    }
    let slot = Arc::new(Shared {
        outcome: Mutex::new(None),
        done: Condvar::new(),
    });
    pick(&mut cache).insert(key, slot.clone());
    drop(cache);
    let filled = slot.clone();
    let run = move || {
        let outcome = {
            let _turn = CompileTurn::take();
            job()
        };
        *filled.outcome.lock().unwrap_or_else(|e| e.into_inner()) = Some(outcome);
        filled.done.notify_all();
    };
    let spawned = std::thread::Builder::new()
        .name("polyfocus-compile".into())
        .spawn(run);
    if let Err(e) = spawned {
        let failed = Err(BuildError::Io(format!("starting a compile: {e}")));
        *slot.outcome.lock().unwrap_or_else(|e| e.into_inner()) = Some(failed);
    }
    slot
}

/// The outcome of `slot`, waited for until `deadline`.
fn outcome<T: Clone>(slot: &Slot<T>, deadline: Instant) -> Result<T, BuildError> {
    let mut outcome = slot.outcome.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        if let Some(known) = outcome.as_ref() {
            return known.clone();
        }
        let now = Instant::now();
        if now >= deadline {
            return Err(BuildError::OutOfTime);
        }
        outcome = slot
            .done
            .wait_timeout(outcome, deadline - now)
            .unwrap_or_else(|e| e.into_inner())
            .0;
    }
}

/// A turn to run a background compile: as many at once as the machine has processors, so
/// that the inputs of a large program compile in parallel without flooding the machine.
struct CompileTurn;

static TURNS: Mutex<usize> = Mutex::new(0);
static TURN_FREED: Condvar = Condvar::new();

impl CompileTurn {
    fn take() -> CompileTurn {
        let most = std::thread::available_parallelism().map_or(1, |n| n.get());
        let mut running = TURNS.lock().unwrap_or_else(|e| e.into_inner());
        while *running >= most {
            running = TURN_FREED.wait(running).unwrap_or_else(|e| e.into_inner());
        }
        *running += 1;
        CompileTurn
    }
}

impl Drop for CompileTurn {
    fn drop(&mut self) {
        *TURNS.lock().unwrap_or_else(|e| e.into_inner()) -= 1;
        TURN_FREED.notify_one();
    }
}

/// The flags of the textual IR that [`declarations`] reads.
fn declaration_flags(config: &FrontendConfig) -> Vec<String> {
    let mut flags = compile_flags(config);
    flags.extend([
        "-S".to_string(),
        "-emit-llvm".to_string(),
        "-fno-sanitize=all".to_string(),
    ]);
    flags
}

/// The slot of the declarations of `input` (see [`declarations`]), started if needed.
fn declarations_slot(config: &FrontendConfig, input: &Path) -> Slot<Arc<String>> {
    let flags = declaration_flags(config);
    let key = (input.to_path_buf(), flags.clone());
    let input = input.to_path_buf();
    started(
        |c| &mut c.declarations,
        key,
        move || {
            let dir = scratch_dir("polyfocus-declarations-")?;
            let ll = dir.path().join("declarations.ll");
            let bytes = compile_to_bytes(&input, &flags, &ll, dir.path(), input_deadline())?;
            let kept: String = String::from_utf8_lossy(&bytes)
                .lines()
                .filter(|l| {
                    l.starts_with("define ")
                        || l.starts_with("declare ")
                        || (l.starts_with('@') && l.contains(" = external "))
                })
                .flat_map(|l| [l, "\n"])
                .collect();
            Ok(Arc::new(kept))
        },
    )
}

/// The `define`, `declare` and external global lines of `input` compiled to textual IR,
/// waited for until `deadline`.
fn declarations(
    config: &FrontendConfig,
    input: &Path,
    deadline: Instant,
) -> Result<Arc<String>, BuildError> {
    outcome(&declarations_slot(config, input), deadline)
}

/// The slot of the object of `input` compiled with `flags`, started if needed.
fn input_slot(input: &Path, flags: &[String]) -> Slot<Arc<Vec<u8>>> {
    let key = (input.to_path_buf(), flags.to_vec());
    let (input, flags) = key.clone();
    started(
        |c| &mut c.inputs,
        key,
        move || {
            let own = scratch_dir("polyfocus-unit-")?;
            let out = own.path().join("unit.o");
            compile_to_bytes(&input, &flags, &out, own.path(), input_deadline())
        },
    )
}

/// A new temporary folder whose name starts with `prefix`.
fn scratch_dir(prefix: &str) -> Result<ScratchDir, BuildError> {
    ScratchDir::new(prefix)
        .map_err(|e| BuildError::Io(format!("creating a temporary directory: {e}")))
}

/// The deadline of a compile of an input (see [`INPUT_COMPILE_LIMIT`]).
fn input_deadline() -> Instant {
    Instant::now() + INPUT_COMPILE_LIMIT
}

fn tool_error(e: ToolError, dir: &Path, link: bool) -> BuildError {
    match e {
        ToolError::OutOfTime => BuildError::OutOfTime,
        ToolError::Io(e) => BuildError::Io(e),
        ToolError::Failed(stderr) if link => BuildError::Link(first_error(&stderr, dir)),
        ToolError::Failed(stderr) => BuildError::Compile(first_error(&stderr, dir)),
    }
}

/// Writes to `obj` the object file of the generated unit `text` (written to `source`)
/// compiled with `flags`.
fn compile_generated(
    source: &Path,
    text: &str,
    flags: Vec<String>,
    obj: &Path,
    dir: &Path,
    deadline: Instant,
) -> Result<(), BuildError> {
    let key = (text.to_string(), flags);
    let cached = compile_cache().generated.get(&key).cloned();
    if let Some(bytes) = cached {
        return write_object(obj, &bytes);
    }
    std::fs::write(source, text)
        .map_err(|e| BuildError::Io(format!("writing {}: {e}", source.display())))?;
    let bytes = compile_to_bytes(source, &key.1, obj, dir, deadline)?;
    compile_cache().generated.insert(key, bytes);
    Ok(())
}

/// Writes to `obj` the object file of the program's input `input` compiled with `flags`,
/// then changed by `objcopy` with the options `oc`; both steps are kept for the run.
fn compile_input(
    input: &Path,
    flags: Vec<String>,
    oc: Vec<String>,
    obj: &Path,
    dir: &Path,
    deadline: Instant,
) -> Result<(), BuildError> {
    let key = (input.to_path_buf(), flags, oc);
    let cached = compile_cache().prepared.get(&key).cloned();
    if let Some(bytes) = cached {
        return write_object(obj, &bytes);
    }
    let compiled = outcome(&input_slot(input, &key.1), deadline)?;
    write_object(obj, &compiled)?;
    let mut args = key.2.clone();
    args.push(obj.display().to_string());
    run_tool(&objcopy_program(), &args, dir, deadline).map_err(|e| tool_error(e, dir, false))?;
    let bytes = std::fs::read(obj)
        .map_err(|e| BuildError::Io(format!("reading {}: {e}", obj.display())))?;
    compile_cache().prepared.insert(key, Arc::new(bytes));
    Ok(())
}

/// Compiles `source` with `flags` to `obj` (an object, or textual IR with `-S -emit-llvm`),
/// and reads it back.
fn compile_to_bytes(
    source: &Path,
    flags: &[String],
    obj: &Path,
    dir: &Path,
    deadline: Instant,
) -> Result<Arc<Vec<u8>>, BuildError> {
    let mut args = flags.to_vec();
    args.extend([
        source.display().to_string(),
        "-o".to_string(),
        obj.display().to_string(),
    ]);
    run_tool(&clang_program(), &args, dir, deadline).map_err(|e| tool_error(e, dir, false))?;
    let bytes = std::fs::read(obj)
        .map_err(|e| BuildError::Io(format!("reading {}: {e}", obj.display())))?;
    Ok(Arc::new(bytes))
}

fn write_object(obj: &Path, bytes: &[u8]) -> Result<(), BuildError> {
    std::fs::write(obj, bytes)
        .map_err(|e| BuildError::Io(format!("writing {}: {e}", obj.display())))
}

/// The entry as its unit defines it, found in the textual IR of the inputs (the unit of
/// the source file `file` first).
pub fn entry_signature(
    config: &FrontendConfig,
    entry: &str,
    file: Option<&str>,
    deadline: Instant,
) -> Result<EntryUnit, BuildError> {
    find_entry(config, entry, file, deadline)
}

/// One parameter of an LLVM `define` line (`i32 noundef %a`, `ptr noundef %p`) as a driver
/// passes it; `Err` for what it cannot pass: vectors, aggregates passed by value (`byval`,
/// or a hidden result pointer `sret`, whose C signature differs from the IR's).
fn entry_param(entry: &str, param: &str) -> Result<EntryParam, BuildError> {
    let mut words = param.split_whitespace();
    let ty = words.next().unwrap_or("");
    if let Some(w) = ty.strip_prefix('i').and_then(|w| w.parse::<u32>().ok()) {
        if w <= 64 {
            return Ok(EntryParam::Int(w));
        }
    }
    match ty {
        "float" => return Ok(EntryParam::Float(32)),
        "double" => return Ok(EntryParam::Float(64)),
        _ => {}
    }
    let by_value = ["byval", "sret", "inalloca", "preallocated", "byref"];
    if ty == "ptr" && !words.any(|a| by_value.iter().any(|b| a.starts_with(b))) {
        return Ok(EntryParam::Buffer);
    }
    let what = if ty == "ptr" {
        "a structure passed by value".to_string()
    } else {
        format!("type {ty}")
    };
    Err(BuildError::Entry(format!(
        "entry `{entry}` has a parameter of {what}, which a native replay cannot pass"
    )))
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

/// `name` without the `.N` suffix LLVM's linker gives a `static` function whose name another
/// unit also defines.
fn unit_name(name: &str) -> &str {
    match name.rsplit_once('.') {
        Some((base, n)) if !base.is_empty() && n.chars().all(|c| c.is_ascii_digit()) => base,
        _ => name,
    }
}

/// The unit and parameters of `entry`, from the `define` lines of the inputs: the module's
/// name first, then its name in its unit; the unit of the source file `file` first, then
/// the inputs in order.
fn find_entry(
    config: &FrontendConfig,
    entry: &str,
    file: Option<&str>,
    deadline: Instant,
) -> Result<EntryUnit, BuildError> {
    let slots: Vec<_> = config
        .inputs
        .iter()
        .map(|input| declarations_slot(config, input))
        .collect();
    let mut texts: Vec<Option<Arc<String>>> = Vec::new();
    for slot in &slots {
        match outcome(slot, deadline) {
            Ok(t) => texts.push(Some(t)),
            Err(BuildError::OutOfTime) => return Err(BuildError::OutOfTime),
            Err(_) => texts.push(None),
        }
    }
    // A relative name is relative to the directory of the compile: the run's.
    let defines_file =
        |input: &Path| file.is_some_and(|f| absolute(input) == absolute(Path::new(f)));
    let mut order: Vec<usize> = (0..texts.len()).collect();
    order.sort_by_key(|&i| !defines_file(&config.inputs[i]));
    for name in [entry, unit_name(entry)] {
        let needle = format!("@{name}(");
        for &i in &order {
            let Some(text) = &texts[i] else { continue };
            for line in text.lines().filter(|l| l.starts_with("define ")) {
                let Some(pos) = line.find(&needle) else {
                    continue;
                };
                let Some(params) = parameter_list(&line[pos + needle.len()..]) else {
                    continue;
                };
                let reach = reach(name, &line[..pos], &params, i, &texts);
                let internal = internal(&line[..pos]);
                let params = params
                    .iter()
                    .map(|p| entry_param(entry, p))
                    .collect::<Result<Vec<_>, _>>()?;
                return Ok(EntryUnit {
                    input: i,
                    name: name.to_string(),
                    params,
                    reach,
                    internal,
                });
            }
        }
    }
    Err(BuildError::Entry(format!(
        "entry `{entry}` not found in the compiled inputs"
    )))
}

/// Whether a function defined by a line that starts with `head` is internal to its unit.
fn internal(head: &str) -> bool {
    head.split_whitespace()
        .any(|w| w == "internal" || w == "private")
}

/// How a driver in a unit of its own can call the function `name` of input `input`,
/// defined by a line that starts with `head` and has the parameters `params`.
fn reach(
    name: &str,
    head: &str,
    params: &[String],
    input: usize,
    texts: &[Option<Arc<String>>],
) -> Reach {
    // A narrow parameter the callee reads as sign-extended: the driver's prototype, of
    // unsigned types, would extend it with zeros.
    let signed_narrow = params.iter().any(|p| {
        let mut words = p.split_whitespace();
        let narrow = words
            .next()
            .and_then(|t| t.strip_prefix('i'))
            .and_then(|w| w.parse::<u32>().ok())
            .is_some_and(|w| w < 32);
        narrow && words.any(|a| a == "signext")
    });
    let runtime = RUNTIME_STRONG.contains(&name) || RUNTIME_WEAK.contains(&name);
    if signed_narrow || runtime {
        return Reach::Inside;
    }
    let linkage: Vec<&str> = head.split_whitespace().collect();
    let has = |w: &str| linkage.contains(&w);
    if internal(head) {
        // Made global in this build's copy of the unit's object, unless another unit knows
        // the name: the driver must not call another definition, nor another unit a static
        // function of this one.
        let elsewhere = texts.iter().enumerate().any(|(j, t)| {
            j != input
                && t.as_ref().is_none_or(|t| {
                    t.contains(&format!("@{name}(")) || t.contains(&format!("@{name} ="))
                })
        });
        return if elsewhere {
            Reach::Inside
        } else {
            Reach::Local
        };
    }
    let unusual = [
        "weak",
        "weak_odr",
        "linkonce",
        "linkonce_odr",
        "available_externally",
    ];
    if unusual.iter().any(|w| has(w)) {
        Reach::Inside
    } else {
        Reach::Global
    }
}

/// What the program declares and does not define, by name, from the textual IR of all its
/// inputs.
fn declared_symbols(texts: &[Arc<String>]) -> BTreeMap<String, Declared> {
    let mut res = BTreeMap::new();
    for text in texts {
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("declare ") {
                let Some(at) = rest.find(" @") else { continue };
                let Some(open) = rest[at + 2..].find('(') else {
                    continue;
                };
                let name = rest[at + 2..at + 2 + open].trim_matches('"').to_string();
                let ret = rest[..at].split_whitespace().last().unwrap_or("");
                let declared = match ret {
                    "ptr" => Declared::Pointer,
                    "float" => Declared::Float(32),
                    "double" => Declared::Float(64),
                    t => match t.strip_prefix('i').and_then(|w| w.parse::<u32>().ok()) {
                        Some(w) if w <= 64 => Declared::Int(w),
                        _ => Declared::Void,
                    },
                };
                res.insert(name, declared);
            } else if let Some(rest) = line.strip_prefix('@') {
                if let Some((name, _)) = rest.split_once(" = external ") {
                    res.insert(name.trim_matches('"').to_string(), Declared::Data);
                }
            }
        }
    }
    res
}

/// The flags of every compile of the program: the analysis' own, at `-O0`, with debug
/// information (the error hook's stack is read back as source lines). DWARF 4: binutils'
/// `addr2line` of Debian 12 reads the file table of DWARF 5 off by one, and gives the
/// driver's unit for lines of the input it includes.
fn compile_flags(config: &FrontendConfig) -> Vec<String> {
    let mut args: Vec<String> = [
        "-c",
        "-O0",
        "-gdwarf-4",
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
    args.extend(replay_user_flags(config));
    args
}

/// The flags of the compile of the program's input `input` for a replay.
fn input_flags(config: &FrontendConfig, input: &Path) -> Vec<String> {
    let mut args = compile_flags(config);
    if is_c_source(input) {
        args.push(sanitize_flag(config.checks));
        if sanitizes_memory(config.checks) {
            args.push(ADDRESS_SANITIZER.into());
            // As the analyzed build: a dereference of NULL stays in the program.
            args.push("-fno-delete-null-pointer-checks".into());
            args.push(UNINIT_PATTERN.into());
        }
        // Not trapping: the handlers of `runtime/replay.c` name the operation.
        args.push("-fno-sanitize-recover=all".into());
    }
    args
}

/// Whether the replay is built with the address sanitizer: when memory checks are searched
/// (`--checks memory`), a run stops at the first invalid access or free, or reports a leak
/// at its end ([`super::asan`]).
pub fn sanitizes_memory(checks: crate::ir::CheckSelection) -> bool {
    checks.contains(crate::ir::CheckClass::Memory)
}

/// The user's flags and `-O0`, as the analysis compiled the program
/// ([`crate::frontend::unoptimized_user_flags`]); under the address sanitizer without
/// `-disable-llvm-passes`, which would drop the sanitizer's own pass along with the
/// optimizer's (at `-O0` the pipeline only inlines `always_inline` functions besides).
pub fn replay_user_flags(config: &FrontendConfig) -> Vec<String> {
    let flags = crate::frontend::unoptimized_user_flags(config);
    if !sanitizes_memory(config.checks) {
        return flags;
    }
    let mut res: Vec<String> = Vec::with_capacity(flags.len());
    for flag in flags {
        if flag == "-disable-llvm-passes" && res.last().is_some_and(|f| f == "-Xclang") {
            res.pop();
            continue;
        }
        res.push(flag);
    }
    res
}

/// The handlers of UBSan's checks `runtime/replay.c` defines. The address sanitizer's
/// runtime defines them too (it carries UBSan's): in a build with it, the program's calls
/// are renamed to the runtime's own names ([`HANDLER_PREFIX`]), so that a runtime error
/// still stops the run with the handler's report.
pub const UBSAN_HANDLERS: [&str; 7] = [
    "__ubsan_handle_add_overflow_abort",
    "__ubsan_handle_sub_overflow_abort",
    "__ubsan_handle_mul_overflow_abort",
    "__ubsan_handle_negate_overflow_abort",
    "__ubsan_handle_divrem_overflow_abort",
    "__ubsan_handle_shift_out_of_bounds_abort",
    "__ubsan_handle_out_of_bounds_abort",
];

/// The prefix that replaces `__` in the names of [`UBSAN_HANDLERS`] in `runtime/replay.c`.
pub const HANDLER_PREFIX: &str = "polyfocus_";

/// The `objcopy` options of a program object of a build with the address sanitizer: its
/// calls of UBSan's handlers go to the replay runtime's.
pub fn handler_renames() -> Vec<String> {
    UBSAN_HANDLERS
        .iter()
        .map(|h| format!("--redefine-sym={h}={HANDLER_PREFIX}{}", &h[2..]))
        .collect()
}

/// The flag of the address sanitizer, for a build that [`sanitizes_memory`].
pub const ADDRESS_SANITIZER: &str = "-fsanitize=address";

/// Uninitialized locals hold clang's pattern in a build with the address sanitizer: a
/// pointer that faults when dereferenced (`0xAAAA...` on 64 bits, `0xFFFFFFFF` on 32), so
/// that a dereference of an uninitialized pointer (`CheckKind::UninitPointer`) stops the run
/// there. An uninitialized value may hold any bits: this is one execution of the program,
/// and executions whose path depends on such a value are rejected anyway (`exec`).
pub const UNINIT_PATTERN: &str = "-ftrivial-auto-var-init=pattern";

/// The macro that tells `runtime/replay.c` it is linked with the address sanitizer.
pub const ASAN_RUNTIME_MACRO: &str = "-DPOLYFOCUS_ASAN";

/// The undefined behaviours the native build checks (UBSan's names): always these, and the
/// base of a signed left shift when shifts are checked (`--checks shift`), so that a run
/// does not stop there when only other checks are searched (the analysis reads such a shift
/// as the machine's wrap-around then). Subscripts past an array's bound are checked unless
/// the build has the address sanitizer and `--checks bounds` is not selected: an access
/// outside its object then stops the run as the memory error of its access, which is what a
/// memory check at that subscript asks, rather than as an index error no check selected.
pub fn sanitize_flag(checks: crate::ir::CheckSelection) -> String {
    let mut flag =
        "-fsanitize=signed-integer-overflow,integer-divide-by-zero,shift-exponent".to_string();
    if checks.contains(crate::ir::CheckClass::Bounds) || !sanitizes_memory(checks) {
        flag.push_str(",bounds");
    }
    if checks.contains(crate::ir::CheckClass::Shift) {
        flag.push_str(",shift-base");
    }
    flag
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

/// At most this many links: each failed one names every undefined symbol, so the second
/// normally succeeds.
const LINK_ATTEMPTS: usize = 4;

impl NativeProgram {
    /// Compiles and links the program of `config` for replays of `spec.entry`.
    pub fn build(
        config: &FrontendConfig,
        spec: &BuildSpec,
        deadline: Instant,
    ) -> Result<NativeProgram, BuildError> {
        let dir = scratch_dir("polyfocus-replay-")?;
        let clang = clang_program();
        let memory = sanitizes_memory(config.checks);
        let mut weaken: Vec<String> = RUNTIME_STRONG.iter().map(|s| s.to_string()).collect();
        // Stubs for nondet functions the runtime does not define.
        let mut stubs = String::new();
        for (name, width) in &spec.nondet {
            if !RUNTIME_STRONG.contains(&name.as_str()) && !RUNTIME_WEAK.contains(&name.as_str()) {
                stubs.push_str(&stub_text(name, *width));
                weaken.push(name.clone());
            }
        }
        // Every input's compile starts now, in parallel with the search for the entry.
        for input in &config.inputs {
            input_slot(input, &input_flags(config, input));
        }
        let entry = if spec.entry != "main" {
            let entry = find_entry(config, &spec.entry, spec.file.as_deref(), deadline)?;
            if entry.internal && !spec.named {
                return Err(BuildError::Entry(format!(
                    "`{}` is static: executions of the program do not start there",
                    entry.name
                )));
            }
            Some(entry)
        } else {
            None
        };
        let mut objects = Vec::new();
        let mut driver = None;
        for (i, input) in config.inputs.iter().enumerate() {
            let obj = dir.path().join(format!("input{i}.o"));
            let args = input_flags(config, input);
            let mut oc: Vec<String> = weaken
                .iter()
                .map(|s| format!("--weaken-symbol={s}"))
                .collect();
            if entry.is_some() {
                oc.push(format!("--redefine-sym=main={RENAMED_MAIN}"));
            }
            if memory {
                oc.extend(handler_renames());
            }
            match &entry {
                // The unit compiled with its driver inside: for this entry only.
                Some(e) if e.input == i && e.reach == Reach::Inside && is_c_source(input) => {
                    let text = entry_unit_text(&absolute(input), e);
                    let unit = dir.path().join(format!("input{i}_entry.c"));
                    compile_generated(&unit, &text, args, &obj, dir.path(), deadline)?;
                    oc.push(obj.display().to_string());
                    run_tool(&objcopy_program(), &oc, dir.path(), deadline)
                        .map_err(|e| tool_error(e, dir.path(), false))?;
                    driver = Some(text);
                }
                Some(e) if e.input == i && e.reach == Reach::Local => {
                    oc.push(format!("--globalize-symbol={}", e.name));
                    compile_input(input, args, oc, &obj, dir.path(), deadline)?;
                }
                _ => compile_input(input, args, oc, &obj, dir.path(), deadline)?,
            }
            objects.push(obj);
        }
        if let Some(e) = &entry {
            if driver.is_none() {
                // The driver in a unit of its own, with the IR's signature: the entry's
                // object is the one every other build of the run uses.
                let text = driver_text(&e.name, &e.params, true);
                stubs.push_str(&text);
                driver = Some(text);
            }
            stubs.push_str(DRIVER_MAIN);
        }
        let buffers = entry
            .iter()
            .flat_map(|e| &e.params)
            .filter(|p| **p == EntryParam::Buffer)
            .count();
        let floats = entry
            .iter()
            .flat_map(|e| &e.params)
            .filter(|p| matches!(p, EntryParam::Float(_)))
            .count();
        // The runtime, compiled once per build without the program's sanitizers.
        let rt_c = dir.path().join("polyfocus_replay.c");
        let rt_o = dir.path().join("polyfocus_replay.o");
        let mut rt_args = vec!["-c".to_string(), "-O1".to_string(), "-w".to_string()];
        if config.data_model == DataModel::Ilp32 {
            rt_args.push("-m32".into());
        }
        if memory {
            rt_args.push(ASAN_RUNTIME_MACRO.into());
        }
        let runtime = super::replay::runtime_source().map_err(BuildError::Io)?;
        compile_generated(
            &rt_c,
            &runtime,
            rt_args.clone(),
            &rt_o,
            dir.path(),
            deadline,
        )?;
        let mut stubbed = BTreeMap::new();
        let mut declared: Option<BTreeMap<String, Declared>> = None;
        let binary = dir.path().join("replay");
        let stubs_c = dir.path().join("polyfocus_stubs.c");
        let stubs_o = dir.path().join("polyfocus_stubs.o");
        let mut link_error = BuildError::Link("no attempt".into());
        // Link; on undefined references, add stubs made from the program's declarations
        // and link again.
        for _attempt in 0..LINK_ATTEMPTS {
            let text = format!("{NEXT_DECLARATION}\n{stubs}");
            compile_generated(
                &stubs_c,
                &text,
                rt_args.clone(),
                &stubs_o,
                dir.path(),
                deadline,
            )?;
            let mut args = Vec::new();
            if config.data_model == DataModel::Ilp32 {
                args.push("-m32".to_string());
            }
            if memory {
                args.push(ADDRESS_SANITIZER.to_string());
            }
            args.extend(objects.iter().map(|o| o.display().to_string()));
            args.push(rt_o.display().to_string());
            args.push(stubs_o.display().to_string());
            // Not position-independent, so that the error hook's return addresses are the
            // addresses in the file (see `error_lines`).
            args.extend([
                "-no-pie".to_string(),
                "-lm".to_string(),
                "-o".to_string(),
                binary.display().to_string(),
            ]);
            let stderr = match run_tool(&clang, &args, dir.path(), deadline) {
                Ok(()) => {
                    return Ok(NativeProgram {
                        dir,
                        binary,
                        stubbed,
                        data_model: config.data_model,
                        driver,
                        buffers,
                        floats,
                        stubs,
                        sanitizes_memory: memory,
                    })
                }
                Err(ToolError::Failed(stderr)) => stderr,
                Err(e) => return Err(tool_error(e, dir.path(), true)),
            };
            let missing: Vec<String> = undefined_references(&stderr)
                .into_iter()
                .filter(|n| !stubbed.contains_key(n))
                .collect();
            if missing.is_empty() {
                link_error = BuildError::Link(first_error(&stderr, dir.path()));
                break;
            }
            if declared.is_none() {
                let mut texts = Vec::new();
                for input in &config.inputs {
                    if let Ok(t) = declarations(config, input, deadline) {
                        texts.push(t);
                    }
                }
                declared = Some(declared_symbols(&texts));
            }
            let declared = declared.as_ref().expect("declarations read above");
            for name in missing {
                let (text, width) = undefined_stub(
                    &name,
                    declared.get(&name).copied(),
                    spec.unknown_calls.get(&name).copied(),
                );
                stubs.push_str(&text);
                stubbed.insert(name, width);
            }
        }
        Err(link_error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(
            entry_param("f", "double noundef %d"),
            Ok(EntryParam::Float(64))
        );
        assert_eq!(
            entry_param("f", "float noundef %0"),
            Ok(EntryParam::Float(32))
        );
        // Aggregates passed by value: the C signature is not the IR's.
        assert!(entry_param("f", "ptr noundef byval(%struct.S) align 8 %s").is_err());
        assert!(entry_param("f", "ptr noalias writable sret(%struct.S) align 4 %r").is_err());
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
    fn the_driver_serves_integers_then_floats_then_buffers() {
        let params = [
            EntryParam::Buffer,
            EntryParam::Float(64),
            EntryParam::Int(32),
        ];
        let text = driver_text("f", &params, false);
        let int_at = text.find("\"<arg 2>\"").expect("integer argument served");
        let float_at = text.find("\"<float 1>\"").expect("double argument served");
        let buf_at = text
            .find("polyfocus_entry_buffer(\"<mem 0>\")")
            .expect("buffer filled");
        assert!(int_at < float_at && float_at < buf_at, "{text}");
        assert!(text.contains("f(a0, a1, a2);"), "{text}");
        assert!(!text.contains("extern void f("), "{text}");
    }

    #[test]
    fn static_names_lose_the_linker_suffix() {
        assert_eq!(unit_name("html_render.2684"), "html_render");
        assert_eq!(unit_name("f"), "f");
        assert_eq!(unit_name("a.b"), "a.b");
    }

    #[test]
    fn stubs_follow_the_declarations() {
        let text = Arc::new(
            "declare i32 @PyErr_SetString(ptr noundef, ptr noundef) #1\n\
             declare ptr @PyLong_FromLong(i64 noundef)\n\
             declare double @get_ratio()\n\
             @PyExc_ValueError = external global ptr, align 8\n"
                .to_string(),
        );
        let declared = declared_symbols(&[text]);
        assert_eq!(declared.get("PyErr_SetString"), Some(&Declared::Int(32)));
        assert_eq!(declared.get("PyLong_FromLong"), Some(&Declared::Pointer));
        assert_eq!(declared.get("get_ratio"), Some(&Declared::Float(64)));
        assert_eq!(declared.get("PyExc_ValueError"), Some(&Declared::Data));
        let (stub, width) = undefined_stub("PyErr_SetString", Some(Declared::Int(32)), None);
        assert_eq!(width, 32);
        assert!(stub.contains("polyfocus_replay_next(\"PyErr_SetString\", 32)"));
        assert_eq!(
            undefined_stub("PyLong_FromLong", Some(Declared::Pointer), Some(64)).1,
            0
        );
    }

    #[test]
    fn compiler_errors_without_the_tool_name_or_the_directory() {
        let dir = Path::new("/tmp/polyfocus-replay-x");
        let stderr = "/tmp/polyfocus-replay-x/input0_entry.c:3:1: error: bad thing\nclang-19: error: linker command failed\n";
        assert_eq!(
            first_error(stderr, dir),
            "input0_entry.c:3:1: error: bad thing"
        );
        assert_eq!(
            first_error("clang-19: error: no such file or directory: 'x.c'\n", dir),
            "error: no such file or directory: 'x.c'"
        );
    }
}
