//! What the front end is asked to do: the inputs, the target's data model, the entries and
//! the checks, and the sizes that bound its work.

use std::path::PathBuf;

use crate::ir;

/// The target's integer data model: the size of `long` and pointers.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum DataModel {
    /// 32-bit `int`, `long` and pointers (`-m32`, i386).
    Ilp32,
    /// 32-bit `int`, 64-bit `long` and pointers (x86-64).
    Lp64,
}

/// How the target evaluates `float` and `double` arithmetic (C's `FLT_EVAL_METHOD`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FloatEvaluation {
    /// Each operation is rounded to its type (IEEE 754 binary32 and binary64,
    /// `FLT_EVAL_METHOD` 0): x86-64, or i386 with SSE arithmetic ([`SSE_FLOAT_FLAGS`]).
    OwnPrecision,
    /// i386's default: intermediates in the x87's 80-bit registers, rounded to their type
    /// only when stored (`FLT_EVAL_METHOD` 2), so `1e16 + 1 - 1e16` may be 1. Not modeled.
    X87Extended,
}

/// The flags that select SSE arithmetic for floats on i386 ([`FloatEvaluation::OwnPrecision`]).
pub const SSE_FLOAT_FLAGS: [&str; 2] = ["-msse2", "-mfpmath=sse"];

/// The default of [`FrontendConfig::inline_caller_limit`]: lz4's largest functions grew by
/// inlining to 152 000 instructions, and LLVM's SROA spent a minute of CPU on the module.
pub const INLINE_CALLER_LIMIT: usize = 10_000;

/// The default of [`FrontendConfig::lift_limit`].
pub const LIFT_LIMIT: usize = 50_000;

/// The default of [`FrontendConfig::inline_limit`].
pub const INLINE_LIMIT: usize = 2000;

/// Which functions start an execution.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum EntrySelection {
    /// `main` when defined, otherwise every externally visible defined function.
    Default,
    /// Exactly this function (an error when it is not defined).
    Named(String),
    /// These functions (library entry points; an error when one is not defined).
    List(Vec<String>),
}

impl FrontendConfig {
    /// How the program's floats are evaluated: at their own precision on x86-64; on i386
    /// only when the user's flags select SSE arithmetic (the last `-mfpmath=` is `sse`, and
    /// SSE2 is enabled and not disabled after), else in the x87's extended precision.
    pub fn float_evaluation(&self) -> FloatEvaluation {
        if self.data_model == DataModel::Lp64 {
            return FloatEvaluation::OwnPrecision;
        }
        let mut sse_math = false;
        let mut sse2 = false;
        for flag in &self.cflags {
            if let Some(unit) = flag.strip_prefix("-mfpmath=") {
                sse_math = unit == "sse";
            } else if matches!(
                flag.as_str(),
                "-msse2"
                    | "-msse3"
                    | "-mssse3"
                    | "-msse4"
                    | "-msse4.1"
                    | "-msse4.2"
                    | "-mavx"
                    | "-mavx2"
            ) {
                sse2 = true;
            } else if matches!(flag.as_str(), "-mno-sse" | "-mno-sse2") {
                sse2 = false;
            }
        }
        if sse_math && sse2 {
            FloatEvaluation::OwnPrecision
        } else {
            FloatEvaluation::X87Extended
        }
    }
}

impl EntrySelection {
    /// From the names given on the command line: none means the default.
    pub fn from_names(names: &[String]) -> EntrySelection {
        match names {
            [] => EntrySelection::Default,
            [one] => EntrySelection::Named(one.clone()),
            many => EntrySelection::List(many.to_vec()),
        }
    }

    /// The names asked for (empty for the default).
    pub fn names(&self) -> Vec<&str> {
        match self {
            EntrySelection::Default => vec![],
            EntrySelection::Named(n) => vec![n.as_str()],
            EntrySelection::List(ns) => ns.iter().map(String::as_str).collect(),
        }
    }
}

/// Everything the front end needs to know; built once by the CLI.
#[derive(Clone, Debug)]
pub struct FrontendConfig {
    /// `.c`, `.i`, `.bc` or `.ll` files, linked together.
    pub inputs: Vec<PathBuf>,
    /// Extra flags passed to clang for C inputs (`-I`, `-D`, `-include`, ...).
    pub cflags: Vec<String>,
    /// Target data model.
    pub data_model: DataModel,
    /// The entry functions.
    pub entry: EntrySelection,
    /// Functions larger than this many instructions are not inlined.
    pub inline_limit: usize,
    /// A caller grows by inlining to at most this many instructions (the front end's
    /// budget: LLVM's passes take time and memory that grow faster than a function).
    pub inline_caller_limit: usize,
    /// Functions larger than this many instructions after inlining are not optimized nor
    /// lifted: their checks are reported unknown, for the front end's budget.
    pub lift_limit: usize,
    /// What is checked (`--checks`): assertions, runtime errors (added after lifting by
    /// `ir::pass::RuntimeChecks`). Without `assert`, assertion sites end the path (an error
    /// function ends the program) and are not reported.
    pub checks: ir::CheckSelection,
    /// Switches for measuring and debugging the loading.
    pub options: FrontendOptions,
}

/// Switches of the loading for measuring and debugging (`-Z` options of the command
/// line); none makes a result unsound.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrontendOptions {
    /// Whether memory operations are lowered by the memory model; off, every function is
    /// `memory::erase`d before the passes (every load arbitrary): a measuring aid that
    /// gives what the analysis proves without the model, on the same binary and budgets.
    pub memory_model: bool,
    /// Whether `ir::verify` runs after every IR pass in a release build too (debug builds
    /// always verify).
    pub verify_ir: bool,
    /// Print the time of each stage of the front end on standard error.
    pub timing: bool,
    /// Print the outcome of the bit-precise runs over floats of each function (the driver
    /// runs them when it loads the program).
    pub debug_floats: bool,
    /// What the contract search of recursive functions prints on standard error (the
    /// driver searches them when it loads the program).
    pub debug_contracts: ContractTrace,
    /// Write the module before LLVM's optimization pipeline to this bitcode file (to
    /// study the pipeline's cost outside polyfocus, `opt-19 -time-passes`).
    pub dump_before_pipeline: Option<PathBuf>,
    /// Whether a function the source marks `always_inline` is inlined whatever its size
    /// (see `normalize::SizeLimits::marked`). Off by default: on lz4 and brotli
    /// (`scripts/real-code`, `--checks all`) a large marked function analyzed once proves
    /// more, in less time and memory, than its copies in every caller, each of which ran
    /// out of its budget.
    pub inline_marked: bool,
    /// A program of at most this many instructions (its defined functions before inlining)
    /// is inlined as a whole, every callee within `inline_limit`: there inlining is cheap and
    /// gives each callee its callers' context. In a larger one only callees of at most
    /// `inline_leaf_limit` instructions are inlined; the others are analyzed once each
    /// rather than once per caller, whose copies ran out of their budgets (figures in
    /// docs/real-code.md).
    pub inline_program_limit: usize,
    /// The largest callee inlined in a program over `inline_program_limit`.
    pub inline_leaf_limit: usize,
}

impl FrontendOptions {
    /// The defaults: the memory model on, nothing printed or written.
    pub const DEFAULT: FrontendOptions = FrontendOptions {
        memory_model: true,
        verify_ir: false,
        timing: false,
        debug_floats: false,
        debug_contracts: ContractTrace::Off,
        dump_before_pipeline: None,
        inline_marked: false,
        inline_program_limit: 5000,
        inline_leaf_limit: 30,
    };
}

/// What the contract search prints on standard error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContractTrace {
    /// Nothing.
    Off,
    /// Each round: its obligations, what was proved, the work spent, and each function's
    /// stages.
    Rounds,
    /// Each round as with `Rounds`, and the module the round analyzed.
    Modules,
}
