//! Counterexamples: a real execution that reaches an error site, confirmed by running the
//! original program natively.
//!
//! **Architecture Invariant:** a counterexample is `Confirmed` only when the natively
//! compiled program (clang, same flags and data model as the analysis, linked with
//! `runtime/replay.c`) was run with exactly the recorded inputs, asked for no other input,
//! and reached the runtime's error hook. Everything the search finds before that is a
//! candidate. It never talks to the solver itself: the bounded model checking it drives is
//! [`crate::smt::bmc`].
//!
//! Search, under one deadline, alternating:
//! - [`bmc`]: bounded model checking of the lifted function with a bit-precise encoding,
//!   bounds 1, 2, 4, ... back edges; a model gives the inputs;
//! - native search: the compiled program run with recorded-then-invented inputs (constants
//!   of the program, boundary values, random values; `main`'s `argc` on a real command
//!   line and its arguments' text, [`replay::CommandLine`]; `scanf`'s result and
//!   conversions; environment variables), each run logging what it was served.
//!   Deterministic stretches (loops of 10^5..10^8 iterations) run at native speed. A program
//!   without inputs has one execution: a single run decides.
//!
//! A candidate is replayed in strict mode ([`replay`], on the program [`build`] compiled),
//! and the replayed run is interpreted on the lifted program ([`exec`]) to tell which error
//! site it reaches and to give the trace ([`trace`]). [`harness`] writes the standalone
//! replay program, [`witness`] the SV-COMP witness.
//!
//! `-Z debug-counterexamples` (`params::TraceParams::counterexamples`) prints the search's
//! steps on stderr.

pub mod asan;
pub mod build;
pub mod exec;
pub mod harness;
pub mod readings;
pub mod replay;
pub mod trace;
pub mod witness;

use crate::analysis::FunctionContext;
use crate::check::{Counterexample, NondetValue};
use crate::frontend::FrontendConfig;
use crate::graph::ReducedGraph;
use crate::ir::{self, CheckId, Expr, HavocReason, Inst, Operand, Terminator};
use crate::smt::bmc;
use replay::{BuildSpec, CommandLine, NativeProgram, Policy, RunResult, RunStatus, Served};
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

/// How to search for counterexamples; built once by the CLI.
#[derive(Clone, Debug)]
pub struct CexConfig {
    /// How the program was compiled for the analysis (the native replay uses the same
    /// inputs, flags and data model).
    pub frontend: FrontendConfig,
    /// Time limit of the confirming replay.
    pub replay_timeout: Duration,
}

impl CexConfig {
    /// The configuration for a program compiled with `frontend`, with a 10 s replay limit.
    pub fn new(frontend: FrontendConfig) -> CexConfig {
        CexConfig {
            frontend,
            replay_timeout: Duration::from_secs(10),
        }
    }
}

/// The outcome of a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CexOutcome {
    /// An execution that reaches the error site, replayed natively.
    Confirmed(Box<Counterexample>),
    /// No execution was found: the search stopped learning (the unrolling was complete, or
    /// reached its depth limit, and native runs stopped showing new behaviours).
    NotFound(String),
    /// No execution was found before the deadline, and the search had not stopped learning.
    OutOfTime(String),
    /// A candidate was found but its native replay did not reach the error site, or no
    /// replay was possible.
    Unconfirmed(String),
}

/// Which havocs are inputs served by the native replay: nondet calls, `scanf`'s result,
/// and calls of external functions the replay stubs (undefined in the program); and which
/// are results the runtime observes ([`replay::OBSERVED_FUNCTIONS`]).
#[derive(Clone, Debug, Default)]
pub struct InputKinds {
    stubbed: BTreeSet<String>,
}

impl InputKinds {
    /// True when the native replay serves the value of a havoc with this reason.
    pub fn is_input(&self, reason: &HavocReason) -> bool {
        match reason {
            HavocReason::Nondet { .. } => true,
            HavocReason::UnknownCall { function } => {
                self.stubbed.contains(function)
                    || replay::SCANF_FUNCTIONS.contains(&function.as_str())
            }
            _ => false,
        }
    }

    /// True when the native run logs the value of a havoc with this reason, computed by the
    /// C library from the program's own data (never served).
    pub fn is_observed(&self, reason: &HavocReason) -> bool {
        matches!(reason, HavocReason::UnknownCall { function }
            if replay::OBSERVED_FUNCTIONS.contains(&function.as_str()))
    }
}

/// Searches an execution of the context's function reaching the error site of `check`.
pub fn find_counterexample(
    ctx: &FunctionContext<'_>,
    module: &ir::Module,
    check: CheckId,
    config: &CexConfig,
    deadline: Instant,
) -> CexOutcome {
    match find_any_counterexample(ctx, module, &[check], config, deadline) {
        (Some(c), outcome) if c == check => outcome,
        (Some(c), _) => CexOutcome::Unconfirmed(format!(
            "the execution found reaches another error site ({c})"
        )),
        (None, outcome) => outcome,
    }
}

/// Searches an execution of the context's function reaching the error site of any of
/// `targets`; returns the check it reaches when confirmed.
pub fn find_any_counterexample(
    ctx: &FunctionContext<'_>,
    module: &ir::Module,
    targets: &[CheckId],
    config: &CexConfig,
    deadline: Instant,
) -> (Option<CheckId>, CexOutcome) {
    find_within(ctx, module, targets, config, deadline, None)
}

/// [`find_any_counterexample`] with the native build allowed until `build_deadline` and the
/// search itself given `slice` from the end of the build (never past `build_deadline`).
/// A short search on a loaded machine would otherwise spend its whole slice in clang and
/// never run the program; the build is cached for later searches of the run.
pub fn find_after_build(
    ctx: &FunctionContext<'_>,
    module: &ir::Module,
    targets: &[CheckId],
    config: &CexConfig,
    build_deadline: Instant,
    slice: Duration,
) -> (Option<CheckId>, CexOutcome) {
    find_within(ctx, module, targets, config, build_deadline, Some(slice))
}

/// The checks of `func` whose condition is whether an access stays inside an object of a
/// size the replay guesses: one the memory model does not describe
/// (`HavocReason::UnknownBounds`), or a pointer parameter's (its condition reads
/// `HavocReason::SizeParam`, which a replay's buffer does not follow), or one that reads
/// a pointer parameter's address (`HavocReason::AddressParam`: a replay chooses no
/// address). Their error sites are entered from a branch on such a value.
fn guessed_bounds(func: &ir::Function) -> Vec<CheckId> {
    let mut unknown: std::collections::BTreeSet<ir::ValueId> = func
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter_map(|i| match i {
            ir::Inst::Havoc {
                dest,
                reason:
                    ir::HavocReason::UnknownBounds
                    | ir::HavocReason::SizeParam { .. }
                    | ir::HavocReason::AddressParam { .. },
            } => Some(*dest),
            _ => None,
        })
        .collect();
    // What is computed from them (a check's condition is a conjunction of comparisons).
    loop {
        let before = unknown.len();
        for inst in func.blocks.iter().flat_map(|b| &b.insts) {
            if let ir::Inst::Assign { dest, .. } = inst {
                let reads = inst
                    .operands()
                    .iter()
                    .any(|o| matches!(o, ir::Operand::Value(v) if unknown.contains(v)));
                if reads {
                    unknown.insert(*dest);
                }
            }
        }
        if unknown.len() == before {
            break;
        }
    }
    let mut out = Vec::new();
    for block in &func.blocks {
        let ir::Terminator::Branch {
            cond: ir::Operand::Value(v),
            then_edge,
            else_edge,
        } = &block.term
        else {
            continue;
        };
        if !unknown.contains(v) {
            continue;
        }
        for edge in [then_edge, else_edge] {
            if let ir::Terminator::Error(c) = func.blocks[edge.target.index()].term {
                out.push(c);
            }
        }
    }
    out
}

/// The search's deadline once the program is built: `slice` from now, within `deadline`.
fn after_build(deadline: Instant, slice: Option<Duration>) -> Instant {
    match slice {
        Some(s) => (Instant::now() + s).min(deadline),
        None => deadline,
    }
}

fn find_within(
    ctx: &FunctionContext<'_>,
    module: &ir::Module,
    targets: &[CheckId],
    config: &CexConfig,
    deadline: Instant,
    slice: Option<Duration>,
) -> (Option<CheckId>, CexOutcome) {
    let func = ctx.func();
    if targets.is_empty() {
        return (None, CexOutcome::NotFound("no error site to reach".into()));
    }
    // A function analyzed on its own (a callee that was not inlined, with arbitrary
    // arguments) is not where executions start: a violation there may not be reachable
    // from the program's entry.
    let is_entry = match &config.frontend.entry {
        sel @ (crate::frontend::EntrySelection::Named(_)
        | crate::frontend::EntrySelection::List(_)) => sel.names().contains(&func.name.as_str()),
        crate::frontend::EntrySelection::Default => {
            func.name == "main" || !module.functions.iter().any(|f| f.name == "main")
        }
    };
    if !is_entry {
        return from_entry::search(module, targets, config, deadline, slice);
    }
    let mut spec = build_spec(module, func);
    spec.named = config.frontend.entry.names().contains(&func.name.as_str());
    let program = match native_program(config, &spec, deadline) {
        Ok(p) => p,
        Err(outcome) => return (None, outcome),
    };
    // The driver passes a buffer for every pointer parameter, never `NULL`, of a size that
    // guesses the caller's object: no replay from this entry reaches a null dereference of a
    // parameter, nor confirms an access outside an object the model does not describe (it
    // may be that buffer), so neither is searched.
    let guessed = guessed_bounds(func);
    let targets: Vec<CheckId> = targets
        .iter()
        .copied()
        .filter(|c| {
            program.buffers == 0
                || !(matches!(module.check(*c).kind, ir::CheckKind::NullDeref { .. })
                    || guessed.contains(c))
        })
        .collect();
    if targets.is_empty() {
        return (
            None,
            CexOutcome::NotFound(
                "a replay passes a buffer of a guessed size for each pointer parameter, never NULL"
                    .into(),
            ),
        );
    }
    let targets = targets.as_slice();
    let deadline = after_build(deadline, slice);
    let kinds = InputKinds {
        stubbed: program
            .stubbed
            .iter()
            .filter(|(_, w)| **w > 0)
            .map(|(n, _)| n.clone())
            .collect(),
    };
    let mut search = Search {
        func,
        graph: ctx.graph(),
        params: ctx.params().cex,
        trace: ctx.params().trace.counterexamples,
        injected: ctx.injected_unknowns(),
        targets,
        config,
        program: &program,
        kinds: &kinds,
        dictionary: spec.dictionary.clone(),
        deadline,
        unconfirmed: None,
        unconfirmed_check: None,
        rejected_undef: false,
        single_site: module.functions.len() == 1 && func.checks().len() == 1,
        unattributed: false,
        module_checks: module
            .checks
            .iter()
            .map(|c| (c.kind.clone(), c.loc.clone()))
            .collect(),
    };
    search.run()
}

/// The native program for replays of `spec.entry`, or the search's outcome when there is
/// none: out of time (not a program that cannot be built: the verdict stays as the analysis
/// left it), or no replay possible.
fn native_program(
    config: &CexConfig,
    spec: &BuildSpec,
    deadline: Instant,
) -> Result<NativeProgram, CexOutcome> {
    NativeProgram::build(&config.frontend, spec, deadline).map_err(|e| match e {
        replay::BuildError::OutOfTime => CexOutcome::OutOfTime(e.to_string()),
        _ if Instant::now() >= deadline => {
            CexOutcome::OutOfTime(replay::BuildError::OutOfTime.to_string())
        }
        e => CexOutcome::Unconfirmed(format!("no native replay possible: {e}")),
    })
}

/// Checks of a function that is not where executions start (a recursive callee, a function
/// called through a pointer): native runs of the program from its entry, with invented
/// inputs, until one stops on a runtime error at exactly one of the targets, or reaches the
/// error hook with exactly one assertion of the module on the lines of its stack, a target;
/// replayed strictly, that run is the counterexample. The lifted path is not shown (the function's own interpretation does not
/// start where the program does): the trace has the inputs and the operation.
mod from_entry {
    use super::*;

    /// Runs with random inputs, after the extreme ones.
    const RANDOM_RUNS: usize = 64;

    pub(super) fn search(
        module: &ir::Module,
        targets: &[CheckId],
        config: &CexConfig,
        deadline: Instant,
        slice: Option<Duration>,
    ) -> (Option<CheckId>, CexOutcome) {
        let names = config.frontend.entry.names();
        let entry = module.functions.iter().find(|f| match names.as_slice() {
            [] => f.name == "main",
            [one] => f.name == *one,
            _ => false,
        });
        let Some(entry) = entry else {
            return (
                None,
                CexOutcome::NotFound(
                    "the function is not where executions start, and there is no single entry to run from".into(),
                ),
            );
        };
        if entry.name != "main" {
            return (
                None,
                CexOutcome::NotFound(format!(
                    "the function is not where executions start; runs from `{}` are not tried",
                    entry.name
                )),
            );
        }
        let spec = build_spec(module, entry);
        let program = match native_program(config, &spec, deadline) {
            Ok(p) => p,
            Err(outcome) => return (None, outcome),
        };
        let deadline = after_build(deadline, slice);
        // Every pair of extreme values for the first two inputs (the rest 1), then every
        // input one constant of the program (the dictionary), then random inputs.
        let extremes = [
            0i128,
            1,
            -1,
            2,
            10,
            100,
            i32::MAX as i128,
            i32::MIN as i128,
            u32::MAX as i128,
        ];
        let mut tries: Vec<(Vec<u128>, Policy)> = Vec::new();
        for a in extremes {
            for b in extremes {
                tries.push((vec![a as u128, b as u128], Policy::Const(1)));
            }
        }
        tries.extend(
            spec.dictionary
                .iter()
                .filter(|v| !extremes.contains(v))
                .map(|v| (vec![], Policy::Const(*v))),
        );
        tries.extend((1..=(RANDOM_RUNS as u64)).map(|seed| (vec![], Policy::Random(seed))));
        for (given, policy) in tries {
            let left = deadline.saturating_duration_since(Instant::now());
            if left < Duration::from_millis(100) {
                return (
                    None,
                    CexOutcome::OutOfTime("runs from `main` stopped at the deadline".into()),
                );
            }
            let timeout = config.replay_timeout.min(left);
            let run = program.run(
                CommandLine::PLAIN,
                &given,
                &policy,
                &spec.dictionary,
                timeout,
            );
            let Some(check) = site(module, targets, &program, &run) else {
                continue;
            };
            // The same inputs, strictly: the counterexample is this replay.
            let values: Vec<u128> = run.served.iter().map(|s| s.bits).collect();
            let replay = program.run(CommandLine::PLAIN, &values, &Policy::Strict, &[], timeout);
            if site(module, targets, &program, &replay) != Some(check) {
                continue;
            }
            let inputs = replay
                .served
                .iter()
                .map(|s| NondetValue {
                    function: s.function.clone(),
                    width: s.width,
                    value: ir::Ty::int(s.width.clamp(1, 128)).to_signed(s.bits),
                    loc: None,
                })
                .collect::<Vec<_>>();
            let cex = Counterexample {
                args: vec![],
                steps: vec![crate::check::TraceStep {
                    loc: module.check(check).loc.clone(),
                    values: vec![],
                }],
                confirmed_by: format!(
                    "replayed natively from `main`: the {} after {} input{} (native run); the path inside `{}` is not shown",
                    if module.check(check).kind.class() == ir::CheckClass::Assert {
                        "error site is reached"
                    } else {
                        "operation misbehaves"
                    },
                    inputs.len(),
                    if inputs.len() == 1 { "" } else { "s" },
                    module.check(check).function
                ),
                inputs,
            };
            return (Some(check), CexOutcome::Confirmed(Box::new(cex)));
        }
        (
            None,
            CexOutcome::NotFound(format!(
                "the function is not where executions start; native runs from `main` did not stop at its operations"
            )),
        )
    }

    /// The target a run stopped at: a runtime error at the class, file, line and column of
    /// exactly one target, or the error hook reached with exactly one assertion of the
    /// module (inlined copies are checks of their own) on the lines of its stack, a target.
    fn site(
        module: &ir::Module,
        targets: &[CheckId],
        program: &NativeProgram,
        run: &RunResult,
    ) -> Option<CheckId> {
        let base = |f: &str| {
            std::path::Path::new(f)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        };
        if run.status == replay::RunStatus::ErrorReached {
            let lines = program.error_lines(run);
            let matching: Vec<CheckId> = (0..module.checks.len())
                .map(|i| CheckId(i as u32))
                .filter(|c| {
                    let check = module.check(*c);
                    check.kind.class() == ir::CheckClass::Assert
                        && check.loc.as_ref().is_some_and(|loc| {
                            lines
                                .iter()
                                .any(|(f, l)| *l == loc.line && base(f) == base(&loc.file))
                        })
                })
                .collect();
            return match matching.as_slice() {
                [c] if targets.contains(c) => Some(*c),
                _ => None,
            };
        }
        let error = program.runtime_error(run)?;
        let matching: Vec<CheckId> = targets
            .iter()
            .copied()
            .filter(|c| {
                let check = module.check(*c);
                error.is_at(&check.kind, check.loc.as_ref())
            })
            .collect();
        match matching.as_slice() {
            [c] => Some(*c),
            _ => None,
        }
    }
}

/// At most this many constants in the dictionary of native runs: a fixed limit, so that a
/// program with thousands of constants still gets each of them tried early (they are
/// sampled evenly).
const MAX_DICTIONARY: usize = 300;

/// The constants of a function's comparisons, arithmetic and switches, each with its
/// neighbours (`c - 1`, `c`, `c + 1`): where its behaviour may change.
fn constants_of(func: &ir::Function) -> BTreeSet<i128> {
    let mut dict: BTreeSet<i128> = BTreeSet::new();
    let mut add_const = |c: &ir::Const| {
        if !c.ty.is_bool() {
            let v = c.signed();
            for x in [v - 1, v, v + 1] {
                dict.insert(x);
            }
        }
    };
    for b in &func.blocks {
        for inst in &b.insts {
            if let Inst::Assign {
                expr: Expr::Cmp { lhs, rhs, .. } | Expr::Binary { lhs, rhs, .. },
                ..
            } = inst
            {
                for op in [lhs, rhs] {
                    if let Operand::Const(c) = op {
                        add_const(c);
                    }
                }
            }
        }
        if let Terminator::Switch { cases, .. } = &b.term {
            for (c, _) in cases {
                add_const(c);
            }
        }
    }
    dict
}

/// The entry's part of the dictionary: its constants, at most [`MAX_DICTIONARY`], sampled
/// evenly, smallest first (a native run tries them in this order, and the bounds that
/// contracts of calls add, `fib(n) <= 1134903170`, are rarely inputs).
fn entry_dictionary(entry: &ir::Function) -> Vec<i128> {
    let mut dictionary: Vec<i128> = constants_of(entry).into_iter().collect();
    if dictionary.len() > MAX_DICTIONARY {
        let step = dictionary.len() / MAX_DICTIONARY + 1;
        dictionary = dictionary.into_iter().step_by(step).collect();
    }
    dictionary.sort_by_key(|c| (c.unsigned_abs(), *c));
    dictionary
}

/// The dictionary of native runs from `entry`: the entry's constants first (at most
/// [`MAX_DICTIONARY`], sampled evenly), then those of the other functions of the module
/// and of the callees it does not lift ([`ir::Module::callee_constants`]), each with its
/// neighbours, smallest first, while there is room. The native program runs the whole program: a
/// callee that stays a call (a recursive function) changes behaviour at its own constants
/// (`f(x)` for `x` one above its threshold), which the entry's code does not show.
fn dictionary(module: &ir::Module, entry: &ir::Function) -> Vec<i128> {
    let mut dictionary = entry_dictionary(entry);
    let mut others: BTreeSet<i128> = BTreeSet::new();
    for f in module.functions.iter().filter(|f| f.name != entry.name) {
        others.extend(constants_of(f));
    }
    for c in &module.callee_constants {
        others.extend([c - 1, *c, c + 1]);
    }
    let mut others: Vec<i128> = others
        .into_iter()
        .filter(|c| !dictionary.contains(c))
        .collect();
    others.sort_by_key(|c| (c.unsigned_abs(), *c));
    let room = MAX_DICTIONARY.saturating_sub(dictionary.len());
    dictionary.extend(others.into_iter().take(room));
    dictionary
}

/// The nondet functions and unknown calls of the entry `func` of `module`, and the
/// dictionary of its native runs ([`dictionary`]).
fn build_spec(module: &ir::Module, func: &ir::Function) -> BuildSpec {
    let mut nondet = BTreeMap::new();
    let mut unknown_calls = BTreeMap::new();
    for b in &func.blocks {
        for inst in &b.insts {
            if let Inst::Havoc { dest, reason } = inst {
                let w = func.value(*dest).ty.width;
                match reason {
                    HavocReason::Nondet { function } => {
                        nondet.insert(function.clone(), w);
                    }
                    HavocReason::UnknownCall { function } => {
                        unknown_calls.insert(function.clone(), w);
                    }
                    _ => {}
                }
            }
        }
    }
    BuildSpec {
        entry: func.name.clone(),
        file: func.loc.as_ref().map(|l| l.file.clone()),
        named: false,
        nondet,
        unknown_calls,
        dictionary: dictionary(module, func),
    }
}

fn expr_has_undef(expr: &Expr) -> bool {
    let undef = |op: &Operand| matches!(op, Operand::Undef(_));
    match expr {
        Expr::Use(a) | Expr::Cast { arg: a, .. } | Expr::BitCount { arg: a, .. } => undef(a),
        Expr::Binary { lhs, rhs, .. } | Expr::Cmp { lhs, rhs, .. } => undef(lhs) || undef(rhs),
        Expr::Select {
            cond,
            on_true,
            on_false,
        } => undef(cond) || undef(on_true) || undef(on_false),
    }
}

/// A candidate execution: entry arguments and inputs (bits), the command line, and where it
/// came from.
struct Candidate {
    args: Vec<u128>,
    /// For a `main` that takes `argc`, the command line that gives `args[0]`.
    command_line: CommandLine,
    inputs: Vec<u128>,
    /// For a model of bounded model checking, the values of the lifted program's inputs it
    /// chose (a native run's are those it was served).
    model_inputs: Option<Vec<u128>>,
    /// The error site the search believes it reaches.
    check: Option<CheckId>,
    origin: String,
}

struct Search<'a> {
    func: &'a ir::Function,
    graph: &'a ReducedGraph,
    /// The search's limits.
    params: crate::params::CexParams,
    /// Whether the search prints its steps.
    trace: bool,
    /// The function's count of solver checks that answer `unknown` on purpose.
    injected: std::sync::Arc<crate::context::InjectedUnknowns>,
    targets: &'a [CheckId],
    config: &'a CexConfig,
    program: &'a NativeProgram,
    kinds: &'a InputKinds,
    dictionary: Vec<i128>,
    deadline: Instant,
    unconfirmed: Option<String>,
    /// The check a model's candidate that did not replay was for (see `unconfirmed`).
    unconfirmed_check: Option<CheckId>,
    /// A run reached the error only through an uninitialized variable.
    rejected_undef: bool,
    /// The program has a single error site, in this function.
    single_site: bool,
    /// A run reached an error site the interpreter could not identify.
    unattributed: bool,
    /// The kind and source location of every check of the module, by id.
    module_checks: Vec<(ir::CheckKind, Option<ir::SourceLoc>)>,
}

/// Where the native stack says a run that reached the error hook stopped.
#[derive(Debug)]
enum NativeSite {
    /// At this target, and no other target, of the search.
    Target(CheckId),
    /// At checks that are not targets of the search only.
    Other,
    /// Frames matching several targets, or no check.
    Unknown,
    /// No frames (no backtrace, or no `addr2line`).
    NoFrames,
}

/// Whether the entry's arguments come from the input stream (a generated driver `main`).
fn args_are_inputs(func: &ir::Function) -> bool {
    func.name != "main"
}

/// Whether the function calls `scanf`, whose integer conversions the replay runtime serves
/// as inputs (`runtime/replay.c`).
fn calls_scanf(func: &ir::Function) -> bool {
    func.blocks.iter().any(|b| {
        b.insts.iter().any(|i| {
            matches!(i, Inst::Havoc { reason: HavocReason::UnknownCall { function }, .. }
                if replay::SCANF_FUNCTIONS.contains(&function.as_str()))
        })
    })
}

/// Whether the entry is a `main` that takes `argc` (its first integer parameter; `argv` is
/// a pointer, which the lifted program does not have): the replay gives it on the command
/// line, so it is an input of the search, at least 1.
pub(crate) fn reads_argc(func: &ir::Function) -> bool {
    func.name == "main" && !func.params.is_empty()
}

impl Search<'_> {
    fn remaining(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }

    fn debug(&self, what: &str) {
        if self.trace {
            let now = Instant::now();
            let left = if now <= self.deadline {
                (self.deadline - now).as_secs_f64()
            } else {
                -(now - self.deadline).as_secs_f64()
            };
            eprintln!("cex: {left:>8.3}s left: {what}");
        }
    }

    /// Whether a native run that ended with `status` reached an error site of the kind
    /// searched: the error hook for assertions, a sanitizer handler for runtime checks (each
    /// is only a candidate until [`Search::native_site`] names the site).
    fn reached(&self, status: &RunStatus) -> bool {
        let searched = |runtime: bool| {
            self.targets.iter().any(|c| {
                (self.module_checks[c.index()].0.class() != ir::CheckClass::Assert) == runtime
            })
        };
        match status {
            RunStatus::ErrorReached => searched(false),
            RunStatus::RuntimeError => searched(true),
            _ => false,
        }
    }

    fn run(&mut self) -> (Option<CheckId>, CexOutcome) {
        let has_served_inputs = args_are_inputs(self.func)
            && (!self.func.params.is_empty() || self.program.buffers > 0)
            || self.func.blocks.iter().any(|b| {
                b.insts.iter().any(|i| match i {
                    Inst::Havoc { reason, .. } => self.kinds.is_input(reason),
                    _ => false,
                })
            });
        let mut has_inputs = has_served_inputs || reads_argc(self.func) || calls_scanf(self.func);
        // First native run: all inputs zero, no argument (for a program without inputs, its
        // only execution; it may run long, and when `argc` is its only input, it is the
        // usual run: half of the time).
        // At most `CexParams::single_run_cap`: a program without inputs that has not reached
        // the error site by then (deep-nested.c, 2^32 iterations) took the whole default
        // budget, 50 s, to an `unknown`.
        let first_timeout = if has_served_inputs {
            Duration::from_millis(1000)
        } else if has_inputs {
            (self.remaining() / 2).min(self.params.single_run_cap)
        } else {
            self.remaining().min(self.params.single_run_cap)
        };
        let first = match self.native_try(&Policy::Const(0), first_timeout.min(self.remaining())) {
            Ok(found) => return found,
            Err((status, n_served)) => {
                // An input the lifted program does not show (the environment read through
                // `getenv`): the program has inputs all the same.
                has_inputs |= n_served > 0;
                status
            }
        };
        crate::progress::stage(|| "counterexample search".into());
        if !has_inputs && !self.has_approximations() {
            let why = match first {
                RunStatus::Timeout => "the program has no inputs and its execution did not reach the error site before the deadline".to_string(),
                RunStatus::Exited(c) => format!("the program has no inputs and its only execution ends (status {c}) without reaching the error site"),
                RunStatus::ErrorReached | RunStatus::RuntimeError => "the program has no inputs and its only execution reaches an error site that the lifted program does not identify".to_string(),
                other => format!("the program has no inputs and its only execution does not reach the error site ({other:?})"),
            };
            return (None, CexOutcome::NotFound(why));
        }
        // Alternate bounded model checking and native runs with invented inputs.
        let rpo = self.graph.rpo().to_vec();
        let kinds = self.kinds;
        let is_input = |reason: &HavocReason| kinds.is_input(reason);
        let mut bmc = bmc::Bmc::new(
            self.func,
            &rpo,
            &is_input,
            self.targets,
            reads_argc(self.func).then_some((1, i64::from(replay::MAX_ARGC))),
            std::sync::Arc::clone(&self.injected),
        );
        let params = self.params;
        let mut bound = 1usize;
        let mut bmc_done = false;
        let mut bmc_note = String::new();
        // The entry's own constants: those of its callees say nothing of its loops.
        let largest_constant = entry_dictionary(self.func)
            .iter()
            .map(|c| c.unsigned_abs())
            .max()
            .unwrap_or(0)
            .min(params.max_bmc_depth as u128) as usize;
        let max_bound = params
            .bmc_depth_per_constant
            .saturating_mul(largest_constant)
            .clamp(
                params.min_bmc_depth,
                params.max_bmc_depth.max(params.min_bmc_depth),
            );
        // Native runs stop when they no longer show new behaviours; without inputs, the
        // first run said it all.
        let mut behaviours: BTreeSet<(String, usize)> = BTreeSet::new();
        let mut stale_runs = 0usize;
        let mut stale_killed_runs = 0usize;
        let mut native_done = !has_inputs;
        // Bounded model checking was stopped by the deadline, not by what it found.
        let mut bmc_out_of_time = false;
        let mut policies = self.policies().into_iter().peekable();
        let mut seed = 1u64;
        let mut round = 0u32;
        let mut last_query = Duration::ZERO;
        // Where the lifted program has values the native program computes (results of
        // calls that stay calls, loads), a model of bounded model checking chooses them
        // freely and often does not replay, and its query may take the whole slice: the
        // native runs with the program's constants go first (McCarthy's `f91(102)`, one
        // above the constant its caller compares with, is found by the run with input 102).
        let native_first = self.has_approximations() && !native_done;
        // Bounded model checking's budget of work (the solver's resource count): it ends
        // the unrolling at the same point on any machine, so that a search on a true task
        // ends by itself.
        let mut work_left = params.bmc_work;
        while Instant::now() < self.deadline {
            // Growing time slices, alternating between the solver and native runs.
            let slice = (Duration::from_millis(400) * (1u32 << round.min(6)))
                .min(params.max_slice)
                .min(self.remaining() / 2)
                .max(Duration::from_millis(200));
            if !bmc_done && !(native_first && round == 0) {
                let ms = slice.as_millis().min(u32::MAX as u128) as u32;
                let build_deadline = Instant::now() + slice;
                if self.remaining() < Duration::from_millis(150) {
                    break;
                }
                // The solver does not always stop promptly when interrupted (simplification and
                // bit-blasting of a large unrolling): do not start a query on a twice larger
                // unrolling than one that needed more than the time left.
                if last_query.mul_f64(1.5) > self.remaining() {
                    bmc_done = true;
                    bmc_out_of_time = true;
                    bmc_note = format!("bounded model checking stopped at bound {bound}");
                    continue;
                }
                let query_start = Instant::now();
                self.debug(&format!("bmc bound {bound}"));
                crate::progress::stage(|| format!("counterexample search depth {bound}"));
                let work_before = bmc.work_spent();
                let query_work = work_left.min(params.bmc_query_work);
                bmc.set_work_limit(u32::try_from(query_work).unwrap_or(u32::MAX));
                let answer = bmc.search(bound, ms, build_deadline, self.deadline);
                last_query = query_start.elapsed();
                self.debug(&format!(
                    "bmc: {answer:?} ({} work, {} ms)",
                    bmc.work_spent().saturating_sub(work_before),
                    last_query.as_millis()
                ));
                match answer {
                    bmc::BmcResult::Found(path) => {
                        let command_line = if reads_argc(self.func) {
                            // The solver keeps argc within the command line's range.
                            CommandLine::with_argc(
                                ir::Ty::int(self.func.value(self.func.params[0]).ty.width)
                                    .to_signed(path.args[0]),
                            )
                            .unwrap_or(CommandLine::PLAIN)
                        } else {
                            CommandLine::PLAIN
                        };
                        // The lifted program has no value for the text of the arguments, the
                        // floating-point arguments and the buffers of pointer parameters,
                        // which the model does not choose: the arguments are `1`, the rest
                        // zero, and the replay decides.
                        let mut inputs = vec![1u128; command_line.n_argument_inputs()];
                        inputs.extend(std::iter::repeat_n(
                            0u128,
                            self.program.floats + self.program.buffers * replay::BUFFER_WORDS,
                        ));
                        inputs.extend(&path.inputs);
                        let cand = Candidate {
                            command_line,
                            args: path.args.clone(),
                            inputs,
                            model_inputs: Some(path.inputs.clone()),
                            check: Some(path.check),
                            origin: format!(
                                "bounded model checking ({} loop iteration{})",
                                path.depth,
                                if path.depth == 1 { "" } else { "s" }
                            ),
                        };
                        if let Some(found) = self.confirm(cand, true, None) {
                            return found;
                        }
                        // The model's path did not replay: do not ask again the same.
                        bmc_done = true;
                        bmc_note = "a bounded model checking path did not replay".into();
                    }
                    bmc::BmcResult::NoneUpTo(d) => {
                        // No error site within `d` layers: does any execution go deeper?
                        if !bmc.exhausted() && d >= bound {
                            let left = self.remaining();
                            let ms = slice.min(left).as_millis().min(u32::MAX as u128) as u32;
                            if bmc.deeper_reachable(ms, self.deadline) == Some(false) {
                                self.debug("bmc: no execution goes deeper");
                            }
                        }
                        if bmc.exhausted() {
                            // Fewer layers than asked: no execution takes more back edges.
                            bmc_done = true;
                            // Not a proof: the unrolling ends executions at a division by
                            // zero or an oversized shift, which the analysis does not
                            // exclude, and serves only the command lines a replay can have.
                            let argc = if reads_argc(self.func) {
                                format!(", and has argc at most {}", replay::MAX_ARGC)
                            } else {
                                String::new()
                            };
                            bmc_note = format!(
                                "no execution of the search's model reaches the error site \
                                 (all paths explored, {d} layers); the model ends executions \
                                 at a division by zero or an oversized shift{argc}, so this is \
                                 no proof"
                            );
                            if !self.has_approximations() && self.unconfirmed.is_none() {
                                return (None, CexOutcome::NotFound(bmc_note));
                            }
                        } else if d >= bound && bound >= max_bound {
                            bmc_done = true;
                            bmc_note = format!(
                                "bounded model checking up to {bound} loop iterations, \
                                 {} times the largest constant of the program",
                                params.bmc_depth_per_constant
                            );
                        } else if d >= bound {
                            bound *= 2;
                        }
                    }
                    bmc::BmcResult::Unknown(why) => {
                        // A deeper unrolling is only harder: the solver has stopped helping.
                        bmc_done = true;
                        bmc_note =
                            format!("bounded model checking gave up at bound {bound}: {why}");
                    }
                }
                // What the query (and the question whether executions go deeper) spent.
                work_left = work_left.saturating_sub(bmc.work_spent().saturating_sub(work_before));
                if !bmc_done && work_left == 0 {
                    bmc_done = true;
                    bmc_note = format!(
                        "bounded model checking spent its budget of work ({} solver \
                         steps) at bound {bound}",
                        params.bmc_work
                    );
                }
            }
            // A batch of native runs, about as long as the BMC step; the first batch of a
            // search whose native runs go first runs the fixed policies (the program's
            // constants), for at most `CexParams::max_slice`.
            let first_batch = native_first && round == 0;
            let batch = if first_batch {
                self.remaining().min(params.max_slice)
            } else {
                slice.min(self.remaining())
            };
            let batch_end = Instant::now() + batch;
            let per_run_limit =
                (Duration::from_millis(250) * (1u32 << round.min(2))).min(Duration::from_secs(1));
            round += 1;
            // Without inputs every native run is the same: the first one said it all.
            if !native_done {
                crate::progress::stage(|| "counterexample search: native runs".into());
            }
            while !native_done && Instant::now() < batch_end {
                if first_batch && policies.peek().is_none() {
                    break;
                }
                let policy = match policies.next() {
                    Some(p) => p,
                    None => {
                        seed += 1;
                        Policy::Random(seed)
                    }
                };
                // In the first batch of a search whose native runs go first, a run with one
                // of the fixed constants is a deliberate guess, not a sample: it is not stale
                // for showing nothing new (a killed one still is). Elsewhere the runs count as
                // before, so that a search without such values ends as soon as it did.
                let deliberate = first_batch && matches!(policy, Policy::Const(_));
                let per_run = per_run_limit.min(self.remaining());
                if per_run.is_zero() {
                    break;
                }
                match self.native_try(&policy, per_run) {
                    Ok(found) => return found,
                    Err((status, n_served)) => {
                        // Behaviours: how the run ended, and about how many inputs it took
                        // (a power of two), so that random inputs that only change loop
                        // counts soon show nothing new.
                        let magnitude = (usize::BITS - n_served.leading_zeros()) as usize;
                        self.debug(&format!("native run: {status:?} after {n_served} inputs"));
                        if behaviours.insert((format!("{status:?}"), magnitude)) {
                            stale_runs = 0;
                        } else if status == RunStatus::Timeout {
                            // A run killed at its limit costs up to 1 s, and one more
                            // such run rarely shows anything new: they are counted over
                            // the whole search, not reset by a run that shows something.
                            stale_runs += params.native_stale_runs / 4;
                            stale_killed_runs += 1;
                        } else if !deliberate {
                            stale_runs += 1;
                        }
                    }
                }
                // The first batch of a search whose native runs go first runs its fixed
                // policies to the end (it is bounded by `CexParams::max_slice`).
                if !first_batch
                    && (stale_runs >= params.native_stale_runs
                        || stale_killed_runs >= params.native_stale_killed_runs)
                {
                    native_done = true;
                    self.debug("native runs show no new behaviour");
                }
            }
            if bmc_done && native_done {
                break;
            }
        }
        let stopped_learning = bmc_done && native_done && !bmc_out_of_time;
        self.debug("search over");
        drop(bmc);
        self.debug("solver state freed");
        if self.unattributed && self.unconfirmed.is_none() {
            bmc_note = "a native run reached an error site that the interpretation of the \
                        lifted program could not identify"
                .into();
        }
        if self.rejected_undef && self.unconfirmed.is_none() {
            bmc_note =
                "the executions found read an uninitialized variable (undefined behaviour)".into();
        }
        let why = match (&self.unconfirmed, bmc_note.is_empty()) {
            (Some(u), _) => {
                return (self.unconfirmed_check, CexOutcome::Unconfirmed(u.clone()));
            }
            (None, true) if stopped_learning => {
                "no execution reaching the error site found (native runs showed no new behaviour)"
                    .to_string()
            }
            (None, true) => {
                "no execution reaching the error site found before the deadline".to_string()
            }
            (None, false) => format!("no execution reaching the error site found ({bmc_note})"),
        };
        if stopped_learning {
            (None, CexOutcome::NotFound(why))
        } else {
            (None, CexOutcome::OutOfTime(why))
        }
    }

    /// Which check the native stack at the error hook points at: the checks of the module
    /// whose source line is the line of one of its frames.
    fn native_site(&self, run: &RunResult) -> NativeSite {
        if run.status == RunStatus::RuntimeError {
            return self.runtime_site(run);
        }
        let lines = self.program.error_lines(run);
        if lines.is_empty() {
            return NativeSite::NoFrames;
        }
        let base = |f: &str| {
            std::path::Path::new(f)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        };
        let matching: Vec<CheckId> = (0..self.module_checks.len())
            .map(|i| CheckId(i as u32))
            .filter(|c| {
                let (kind, loc) = &self.module_checks[c.index()];
                let Some(loc) = loc else {
                    return false;
                };
                if kind.class() != ir::CheckClass::Assert {
                    return false;
                }
                lines
                    .iter()
                    .any(|(f, l)| *l == loc.line && base(f) == base(&loc.file))
            })
            .collect();
        let targets: Vec<CheckId> = matching
            .iter()
            .copied()
            .filter(|c| self.targets.contains(c))
            .collect();
        match (targets.as_slice(), matching.is_empty()) {
            ([c], _) => NativeSite::Target(*c),
            ([], false) => NativeSite::Other,
            _ => NativeSite::Unknown,
        }
    }

    /// Which check a run that stopped on a runtime error points at: the checks of that class
    /// at the operation's file, line and column (line only when the check has no column).
    /// A runtime error at no check of its class is another site, never left to the
    /// interpreter to attribute.
    fn runtime_site(&self, run: &RunResult) -> NativeSite {
        let Some(error) = self.program.runtime_error(run) else {
            return NativeSite::Other;
        };
        let matching: Vec<CheckId> = (0..self.module_checks.len())
            .map(|i| CheckId(i as u32))
            .filter(|c| {
                let (kind, loc) = &self.module_checks[c.index()];
                error.is_at(kind, loc.as_ref())
            })
            .collect();
        let targets: Vec<CheckId> = matching
            .iter()
            .copied()
            .filter(|c| self.targets.contains(c))
            .collect();
        match targets.as_slice() {
            [c] => NativeSite::Target(*c),
            [] => NativeSite::Other,
            // Several leaked objects, each allocated at the place of a searched leak check:
            // each of those is violated (the interpreter's path may end at another one).
            [c, ..] if error.memory == Some(asan::MemoryError::Leak) => NativeSite::Target(*c),
            // One operation inlined at several places: the interpreter's path decides.
            _ => NativeSite::Unknown,
        }
    }

    /// Whether the lifted program has values the native program does not reproduce
    /// (undef operands, loads, unknown or unsupported operations).
    fn has_approximations(&self) -> bool {
        self.func.blocks.iter().any(|b| {
            b.insts.iter().any(|i| match i {
                Inst::Havoc { reason, .. } => !self.kinds.is_input(reason),
                Inst::Assign { expr, .. } => expr_has_undef(expr),
                Inst::Assume { cond } => matches!(cond, Operand::Undef(_)),
                Inst::Mem(_) => true,
            }) || b
                .term
                .edges()
                .iter()
                .any(|e| e.moves.iter().any(|(_, s)| matches!(s, Operand::Undef(_))))
                || matches!(
                    b.term,
                    Terminator::Branch {
                        cond: Operand::Undef(_),
                        ..
                    }
                )
        })
    }

    /// The fixed policies tried first: small constants, the program's constants (the
    /// dictionary), then large and boundary constants. The program's constants come before
    /// the large ones: a run with a large input may be killed at its time limit (a
    /// recursion exponential in its argument), and such runs end the native search.
    fn policies(&self) -> Vec<Policy> {
        let mut vals: Vec<i128> = vec![1, -1, 2, 10];
        let large = [
            100,
            1000,
            i32::MAX as i128,
            i32::MIN as i128,
            u32::MAX as i128,
            255,
            65535,
        ];
        for v in self.dictionary.iter().chain(&large) {
            if !vals.contains(v) && *v != 0 {
                vals.push(*v);
            }
        }
        let mut res: Vec<Policy> = Vec::new();
        for (i, v) in vals.into_iter().enumerate() {
            res.push(Policy::Const(v));
            if i % 4 == 3 {
                res.push(Policy::Random(1000 + i as u64));
            }
        }
        res
    }

    /// The command line of a native run under `policy`, for a `main` that takes `argc`: one
    /// argument under a constant policy other than zero, a few or as many as a constant of
    /// the program says under a random one; the program alone otherwise.
    fn command_line_for(&self, policy: &Policy) -> CommandLine {
        if !reads_argc(self.func) {
            return CommandLine::PLAIN;
        }
        let seed = match policy {
            Policy::Random(seed) => seed,
            // A constant other than zero is also the text of one argument (`atoi(argv[1])`
            // compared with a constant of the program).
            Policy::Const(v) if *v != 0 => {
                return CommandLine::with_argc(2).unwrap_or(CommandLine::PLAIN)
            }
            _ => return CommandLine::PLAIN,
        };
        let mut counts: Vec<i128> = vec![1, 1, 1, 2, 3, 4];
        counts.extend(self.dictionary.iter().filter(|c| (5..=4096).contains(*c)));
        // splitmix64 of the seed, so that nearby seeds pick different counts.
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        CommandLine::with_argc(counts[(z % counts.len() as u64) as usize])
            .unwrap_or(CommandLine::PLAIN)
    }

    /// One native run under `policy`; a run that reaches the error is confirmed.
    fn native_try(
        &mut self,
        policy: &Policy,
        timeout: Duration,
    ) -> Result<(Option<CheckId>, CexOutcome), (RunStatus, usize)> {
        let command_line = self.command_line_for(policy);
        let run = self
            .program
            .run(command_line, &[], policy, &self.dictionary, timeout);
        if !self.reached(&run.status) {
            return Err((run.status, run.served.len()));
        }
        let (args, served_inputs) = self.split_served_values(&run.served, command_line);
        let inputs = served_inputs.iter().map(|s| s.bits).collect();
        let origin = match policy {
            _ if run.served.is_empty() => "native run, no input requested".to_string(),
            Policy::Strict => "native run".to_string(),
            Policy::Const(v) => format!("native run with every input {v}"),
            Policy::Random(s) => format!("native run with random inputs (seed {s})"),
        };
        let cand = Candidate {
            command_line,
            args,
            inputs,
            model_inputs: None,
            check: None,
            origin,
        };
        let n_served = run.served.len();
        let status = run.status.clone();
        self.confirm(cand, false, Some(run))
            .ok_or((status, n_served))
    }

    /// The entry arguments of a run with `command_line` (`argc` of a `main`, or the first
    /// values served to a driver `main`, as bits) and its inputs, as served.
    fn split_served_values<'s>(
        &self,
        served: &'s [Served],
        command_line: CommandLine,
    ) -> (Vec<u128>, &'s [Served]) {
        if reads_argc(self.func) {
            return (vec![u128::from(command_line.argc())], served);
        }
        let n_args = if args_are_inputs(self.func) {
            served
                .iter()
                .take_while(|s| s.function.starts_with("<arg "))
                .count()
        } else {
            0
        };
        let args = served[..n_args].iter().map(|s| s.bits).collect();
        (args, &served[n_args..])
    }

    /// The interpretation of the lifted program on `values`, within 2 s.
    fn interpret(&self, values: exec::RunValues<'_>) -> exec::Execution {
        let exec_deadline = Instant::now() + Duration::from_secs(2).min(self.remaining());
        exec::execute(
            self.func,
            self.graph,
            self.kinds,
            values,
            20_000_000,
            exec_deadline,
        )
    }

    /// Whether an interpreted execution depends on an uninitialized variable (undefined
    /// behaviour in C); when the interpretation stops early, it may still depend on one.
    fn undefined(&self, execution: &exec::Execution) -> bool {
        let reaches = matches!(execution.end, exec::ExecEnd::Error(_));
        execution.read_undef || (!reaches && exec::control_may_read_undef(self.func))
    }

    /// Whether the execution of `values` depends on an uninitialized variable.
    fn reads_undef(&self, values: exec::RunValues<'_>) -> bool {
        let execution = self.interpret(values);
        self.undefined(&execution)
    }

    /// Replays a candidate strictly; on success, the counterexample.
    ///
    /// `strict_run` is a run that already counts as the strict replay: one that reached the
    /// error without requesting any input (the policy was never consulted), so that a long
    /// deterministic execution is not run twice.
    fn confirm(
        &mut self,
        cand: Candidate,
        from_model: bool,
        strict_run: Option<RunResult>,
    ) -> Option<(Option<CheckId>, CexOutcome)> {
        let mut stream: Vec<u128> = Vec::new();
        if args_are_inputs(self.func) {
            stream.extend(&cand.args);
        }
        stream.extend(&cand.inputs);
        // A model's execution that depends on an uninitialized variable has undefined
        // behaviour in C (a native run reaches the error with whatever the stack held): it is
        // not a counterexample, and it is not run.
        if let Some(model_inputs) = &cand.model_inputs {
            let values = exec::RunValues {
                args: &cand.args,
                inputs: model_inputs,
                observed: &[],
            };
            if self.reads_undef(values) {
                self.rejected_undef = true;
                return None;
            }
        }
        let timeout = self
            .config
            .replay_timeout
            .min(self.remaining().max(Duration::from_millis(500)));
        let run = match strict_run {
            Some(run) if run.served.is_empty() && self.reached(&run.status) => run,
            _ => self
                .program
                .run(cand.command_line, &stream, &Policy::Strict, &[], timeout),
        };
        if !self.reached(&run.status) {
            let what = match &run.status {
                RunStatus::RuntimeError => match replay::RuntimeError::of_run(&run) {
                    Some(e) => format!("stopped on a runtime error ({})", e.describe()),
                    None => "stopped on a runtime error".to_string(),
                },
                RunStatus::ExtraInput => "asked for more inputs than recorded".to_string(),
                RunStatus::Exited(c) => format!("exited with status {c}"),
                RunStatus::Signaled(s) => format!("was killed by signal {s}"),
                RunStatus::Timeout => "timed out".to_string(),
                RunStatus::ErrorReached => "reached an assertion's error site".to_string(),
            };
            let note = format!(
                "a candidate from {} did not replay: the native program {what}",
                cand.origin
            );
            if from_model {
                self.unconfirmed = Some(note);
                self.unconfirmed_check = cand.check;
            }
            return None;
        }
        let (args, inputs) = self.split_served_values(&run.served, cand.command_line);
        // The lifted program on what the replayed run was served and observed: which error
        // site, the path, and whether the execution depends on an uninitialized variable.
        let lifted_inputs: Vec<u128> = inputs
            .iter()
            .filter(|s| replay::lifted_program_reads(&s.function))
            .map(|s| s.bits)
            .collect();
        let observed: Vec<u128> = run.observed.iter().map(|s| s.bits).collect();
        let values = exec::RunValues {
            args: &args,
            inputs: &lifted_inputs,
            observed: &observed,
        };
        let execution = self.interpret(values);
        if self.undefined(&execution) {
            self.debug("replayed: the execution reads an uninitialized variable");
            self.rejected_undef = true;
            return None;
        }
        // Which error site the native run reached. The native stack is the program as
        // written, so it decides when it names one; the lifted program reproduces the native
        // run only when it read no value the native program does not reproduce (a load from
        // memory, an unknown call): two assertions on different lines must never be mixed up.
        let site = self.native_site(&run);
        self.debug(&format!(
            "replayed: native site {site:?}, interpretation {:?}",
            execution.end
        ));
        let check = match (site, &execution.end, cand.check) {
            (NativeSite::Target(c), _, _) => c,
            (NativeSite::Other, _, _) => {
                self.unconfirmed = Some(
                    "the replayed execution reaches another error site than the one searched"
                        .to_string(),
                );
                return None;
            }
            (NativeSite::Unknown | NativeSite::NoFrames, exec::ExecEnd::Error(c), _)
                if !execution.approximate =>
            {
                *c
            }
            (NativeSite::Unknown | NativeSite::NoFrames, exec::ExecEnd::Error(_), _) => {
                self.unattributed = true;
                return None;
            }
            // The interpretation did not get there (too long, or it diverged).
            (NativeSite::Unknown | NativeSite::NoFrames, _, Some(c))
                if !self.has_approximations() =>
            {
                c
            }
            (NativeSite::NoFrames, _, _) if self.single_site => self.targets[0],
            (NativeSite::Unknown | NativeSite::NoFrames, _, _) => {
                self.unattributed = true;
                return None;
            }
        };
        if !self.targets.contains(&check) {
            self.unconfirmed = Some(format!(
                "the replayed execution reaches the error site of {check}, which was not searched"
            ));
            return None;
        }
        let command = if cand.command_line == CommandLine::PLAIN {
            String::new()
        } else {
            let texts: Vec<i128> = inputs
                .iter()
                .take_while(|s| s.function.starts_with(replay::ARGV_INPUT_PREFIX))
                .map(|s| ir::Ty::int(64).to_signed(s.bits))
                .collect();
            format!(", {}", cand.command_line.describe(&texts))
        };
        let site_loc = self.module_checks[check.index()].1.as_ref();
        let cex = trace::counterexample(
            self.func,
            (check, site_loc),
            &args,
            inputs,
            &execution,
            &format!(
                "replayed natively: error site reached after {} input{} ({}{command})",
                inputs.len(),
                if inputs.len() == 1 { "" } else { "s" },
                cand.origin
            ),
        );
        Some((Some(check), CexOutcome::Confirmed(Box::new(cex))))
    }
}
