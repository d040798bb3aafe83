//! Front end: loads C, bitcode or textual IR, links the inputs into one module, normalizes
//! it with LLVM's own passes and lifts it into [`crate::ir`].
//!
//! **Architecture Invariant:** the only module that names `inkwell` or `llvm-sys`. No `'ctx`
//! lifetime and no LLVM value escapes it. LLVM names become display names, never identity.
//!
//! Stages, one module each:
//! - `compile`: `.c`/`.i` → bitcode with `clang-19` (`$POLYFOCUS_CLANG`), `-g -O0`, `-m32`
//!   for [`DataModel::Ilp32`], the runtime header directory (`runtime/`, or
//!   `$POLYFOCUS_RUNTIME`) on the include path, the user's cflags, then `-O0 -Xclang
//!   -disable-llvm-passes` (no optimization, whatever the user asks);
//! - `load`: checks the files, parses `.bc` (any LLVM ≤ 19, e.g. clang-14's) and `.ll`, links;
//! - `normalize`: inlining, global localization and LLVM passes (see its docs for the why);
//! - `conventions`: which function names are nondet inputs, assumptions, error sites,
//!   assertions or ends of paths (the table is in its docs);
//! - `reach`: which code runs besides the entry (functions whose address escapes, foreign
//!   code, error functions called through pointers, `setjmp`); `library`: the names of the
//!   C library, which are not foreign code;
//! - `lift`: one LLVM function → one [`ir::Function`]; `debuginfo`: locations and names;
//! - `error`: [`FrontendError`], one user-facing message per failure;
//! - `compdb`: compilation databases and compiler command lines (whole projects, issue 8).
//!
//! Lifting never fails: what it cannot model becomes an arbitrary value and a
//! [`ir::LiftWarning`]; a panic while lifting a function (a bug) is caught and the function is
//! replaced by one where every assertion is reachable, with a warning.

use std::path::PathBuf;

/// The target's integer data model: the size of `long` and pointers.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum DataModel {
    /// 32-bit `int`, `long` and pointers (`-m32`, i386).
    Ilp32,
    /// 32-bit `int`, 64-bit `long` and pointers (x86-64).
    Lp64,
}

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
    /// Switches for measuring and debugging the front end.
    pub options: FrontendOptions,
}

/// Switches of the front end for measuring and debugging (`-Z` options of the command
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
    /// Print the outcome of the bit-precise runs over floats of each function.
    pub debug_floats: bool,
    /// What the contract search of recursive functions prints on standard error.
    pub debug_contracts: ContractTrace,
    /// Write the module before LLVM's optimization pipeline to this bitcode file (to
    /// study the pipeline's cost outside polyfocus, `opt-19 -time-passes`).
    pub dump_before_pipeline: Option<PathBuf>,
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

mod compdb;
mod compile;
pub mod contract;
mod conventions;
mod debuginfo;
mod error;
pub mod evaluate;
mod float_paths;
mod library;
mod lift;
mod load;
mod normalize;
mod raw;
mod reach;
mod ubsan;

pub use compdb::{
    compile_to_bitcode, defines_main, parse_invocation, read_compile_commands, split_command,
    CompileCommand, Invocation,
};
pub use compile::{
    clang_args, clang_program, runtime_dir, target_and_user_flags, unoptimized_user_flags,
};
pub use conventions::{role, Role};
pub use error::FrontendError;
pub use library::is_library_function;
pub use normalize::PIPELINE;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::panic::{catch_unwind, AssertUnwindSafe};

use inkwell::context::Context;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::LLVMLinkage;
use inkwell::module::Module;

use crate::ir;

/// Loads, links, normalizes and lifts the inputs of `config`.
///
/// The front end's work is bounded by sizes, never by time (verdicts must not depend on
/// machine load): inlining stops where a caller would exceed
/// [`FrontendConfig::inline_caller_limit`], and a function larger than
/// [`FrontendConfig::lift_limit`] is listed in [`ir::Module::unanalyzable`] as over budget,
/// with its error sites as checks.
///
/// The result holds one [`ir::Function`] per entry: the selected entries (see
/// [`EntrySelection`]) and every defined function that contains an error site and may run
/// otherwise than inlined into them, so that its assertions are analyzed too (with
/// arbitrary arguments and globals): those still called (recursive or too large to
/// inline), those whose address escapes (handlers, comparators, thread routines,
/// constructors and destructors, tables of functions) and what they call, and, when the
/// program calls foreign code, every externally visible function (see [`reach`]).
/// A function that calls `setjmp` is listed in [`ir::Module::unanalyzable`].
///
/// A check may have no error site in any function: LLVM's CFG simplification proved its
/// error site unreachable (e.g. `if (c < 0) if (c > 4) assert(0);`) and deleted it. Such a
/// check holds; it is listed so that every assertion of the source gets a verdict.
pub fn load(config: &FrontendConfig) -> Result<ir::Module, FrontendError> {
    load_inner(config, None)
}

/// [`load`], with contracts for the functions that stay calls (recursion, see
/// [`contract`]): found by `prover` (which must be sound: the driver's analysis) within
/// `work` steps of its work (the bound) and the time `safety_net`, and assumed at their
/// calls and entries. Without a certified contract a call is lifted as by [`load`].
pub fn load_with_contracts(
    config: &FrontendConfig,
    prover: contract::Prover<'_>,
    work: u64,
    safety_net: std::time::Duration,
) -> Result<ir::Module, FrontendError> {
    load_inner(config, Some((prover, work, safety_net)))
}

fn load_inner(
    config: &FrontendConfig,
    prover: Option<(contract::Prover<'_>, u64, std::time::Duration)>,
) -> Result<ir::Module, FrontendError> {
    let ctx = Context::create();
    let started = std::time::Instant::now();
    let (module, normalized, never_called, warnings, folded) = prepare(&ctx, config)?;
    timing(&config.options, "prepared", started);
    let entries = select_entries(&module, &config.entry, config.checks)?;
    let escaped_error = reach::escaped_error_function(module.as_mut_ptr());
    let contracts = match prover {
        Some((prover, work, safety_net)) if !scope_too_large(&module, &normalized.too_large) => {
            let budget = contract::SearchBudget {
                work,
                deadline: std::time::Instant::now() + safety_net,
            };
            find_contracts(&module, config, escaped_error.as_deref(), prover, budget)
        }
        Some(_) => contract::Contracts::new(),
        None => contract::Contracts::new(),
    };
    timing(&config.options, "contracts", started);
    let mut res = lift_entries(
        &entries,
        &normalized,
        config,
        escaped_error.as_deref(),
        &contracts,
    );
    timing(&config.options, "lifted", started);
    add_never_called(&mut res, &module, never_called, config.checks);
    res.callee_constants = callee_constants(module.as_mut_ptr(), &res);
    if config.checks.contains(ir::CheckClass::Overflow) {
        add_folded_overflows(&mut res, folded);
    }
    res.warnings.splice(0..0, warnings);
    Ok(res)
}

/// The integer constants of the defined functions of `m` that `lifted` does not have as
/// functions of its own (callees that stay calls): see [`ir::Module::callee_constants`].
fn callee_constants(m: LLVMModuleRef, lifted: &ir::Module) -> Vec<i128> {
    let mut acc = BTreeSet::new();
    for f in defined_functions(m) {
        let name = raw::name(f);
        if !lifted.functions.iter().any(|g| g.name == name) {
            contract::constants_of(f, &mut acc);
        }
    }
    acc.into_iter().map(i128::from).collect()
}

/// Whether a recursive function (a participant of the contract search) is over the
/// front end's budget: it cannot be lifted, so no contract is searched.
fn scope_too_large(module: &Module<'_>, too_large: &HashMap<String, usize>) -> bool {
    !too_large.is_empty()
        && contract::scope(module.as_mut_ptr(), false)
            .participants
            .iter()
            .any(|f| too_large.contains_key(&raw::name(*f)))
}

/// Prints the time since `started` at the end of a stage when `options.timing` is on.
fn timing(options: &FrontendOptions, stage: &str, started: std::time::Instant) {
    if options.timing {
        eprintln!(
            "polyfocus: front end: {stage} at {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }
}

/// The certified contracts of the module's recursive functions (see [`contract`]).
fn find_contracts(
    module: &Module<'_>,
    config: &FrontendConfig,
    escaped_error: Option<&str>,
    prover: contract::Prover<'_>,
    budget: contract::SearchBudget,
) -> contract::Contracts {
    let m = module.as_mut_ptr();
    let starts_in_main = match &config.entry {
        EntrySelection::Named(name) => name == "main",
        EntrySelection::List(_) => false,
        EntrySelection::Default => defined_functions(m).iter().any(|f| raw::name(*f) == "main"),
    };
    let closed_main = starts_in_main && reach::foreign_functions(m).is_empty();
    let scope = contract::scope(m, closed_main);
    if scope.recursive.is_empty() {
        return contract::Contracts::new();
    }
    let mut first_budget = budget;
    let candidates = contract::candidates(&scope);
    let mut lift_round = |candidates: &contract::Contracts| -> Option<contract::CertifyModule> {
        let mut res = ir::Module {
            functions: vec![],
            checks: vec![],
            warnings: vec![],
            unanalyzable: vec![],
            callee_constants: vec![],
        };
        let mut obligations = Vec::new();
        let specializations = contract::specializations(candidates);
        // Each participant, then the copies specialized to the guards of its clauses.
        let mut liftings: Vec<(LLVMValueRef, Option<&contract::Atom>)> = Vec::new();
        for &func in &scope.participants {
            liftings.push((func, None));
            let name = raw::name(func);
            for (n, guard) in &specializations {
                if *n == name {
                    liftings.push((func, Some(guard)));
                }
            }
        }
        for (copy, (func, specialize)) in liftings.into_iter().enumerate() {
            let first = res.checks.len() as u32;
            let options = lift::LiftOptions {
                contracts: candidates,
                certify: true,
                specialize,
            };
            // A participant that cannot be lifted leaves obligations unchecked: no contract.
            let lifted = catch_unwind(AssertUnwindSafe(|| {
                lift::lift_function(func, first, escaped_error, options)
            }))
            .ok()?;
            let own: HashSet<ir::CheckId> = lifted.obligations.iter().map(|(c, _)| *c).collect();
            let mut function = run_passes(lifted.function, &config.options, &mut res.warnings);
            if specialize.is_some() {
                function.name = format!("{}#{copy}", function.name);
            }
            // The program's own assertions end the path here: only the obligations are
            // asked (an execution that reaches an error site stops there, as it does in
            // the analysis of the program).
            for block in &mut function.blocks {
                if matches!(block.term, ir::Terminator::Error(c) if !own.contains(&c)) {
                    block.term = ir::Terminator::Stop;
                }
            }
            res.checks.extend(lifted.checks);
            obligations.extend(lifted.obligations);
            res.functions.push(function);
        }
        Some(contract::CertifyModule {
            module: res,
            obligations,
        })
    };
    let certified = contract::certify(
        candidates,
        &mut lift_round,
        prover,
        &mut first_budget,
        config.options.debug_contracts,
    );
    // The second search: guarded clauses, with the ranges the first one certified. Its
    // result is certified on its own; the union of two certified sets is (module docs of
    // `contract`), so the first search's clauses are kept whatever the second gives.
    let guarded = contract::guarded_candidates(&scope, &certified);
    if guarded == certified {
        return certified;
    }
    // The second search gets what the first one left of the work.
    let mut second_budget = first_budget;
    let mut res = contract::certify(
        guarded,
        &mut lift_round,
        prover,
        &mut second_budget,
        config.options.debug_contracts,
    );
    for (name, contract) in certified {
        let entry = res.entry(name).or_default();
        for atom in contract.context {
            if !entry.context.contains(&atom) {
                entry.context.push(atom);
            }
        }
        for clause in contract.summary {
            if !entry.summary.contains(&clause) {
                entry.summary.push(clause);
            }
        }
    }
    res
}

/// The normalized LLVM module as text, as the lifter sees it (for debugging).
pub fn to_llvm_ir_text(config: &FrontendConfig) -> Result<String, FrontendError> {
    let ctx = Context::create();
    let (module, _, _, _, _) = prepare(&ctx, config)?;
    Ok(module.print_to_string().to_string())
}

/// The error sites of each defined function as the input has them, before inlining and the
/// removal of functions nothing calls.
type SitesAtStart = Vec<(String, lift::ErrorSite)>;

/// What `prepare` gives: the normalized module, the error sites before simplification, the
/// sites of functions never called, warnings about the input, and the signed overflows clang
/// folded.
type Prepared<'ctx> = (
    Module<'ctx>,
    normalize::Normalized,
    SitesAtStart,
    Vec<ir::LiftWarning>,
    Vec<ir::SourceLoc>,
);

/// Loads, links, checks the entry and normalizes; with warnings about the input.
fn prepare<'ctx>(
    ctx: &'ctx Context,
    config: &FrontendConfig,
) -> Result<Prepared<'ctx>, FrontendError> {
    let started = std::time::Instant::now();
    let (module, folded) = load::load_module(ctx, config)?;
    timing(&config.options, "compiled, parsed and linked", started);
    if let Err(e) = module.verify() {
        return Err(FrontendError::BadIr {
            path: config.inputs.last().cloned().unwrap_or_default(),
            message: format!("the linked module is invalid: {}", e.to_string().trim()),
        });
    }
    let m = module.as_mut_ptr();
    let defined = defined_functions(m);
    for name in config.entry.names() {
        if !defined.iter().any(|f| raw::name(*f) == name) {
            let mut names: Vec<String> = defined.iter().map(|f| raw::name(*f)).collect();
            names.sort();
            return Err(FrontendError::UnknownEntry {
                name: name.to_string(),
                defined: names,
            });
        }
    }
    // One root: the other functions run only when called (in a closed program), and when
    // the root is `main`, its globals can become locals. Several entries are a library:
    // globals stay shared, so none is localized.
    let root_name = match &config.entry {
        EntrySelection::Named(name) => Some(name.clone()),
        EntrySelection::List(_) => None,
        EntrySelection::Default => defined
            .iter()
            .any(|f| raw::name(*f) == "main")
            .then(|| "main".to_string()),
    };
    let root = root_name.as_deref().map(|name| normalize::Root {
        name,
        starts_program: name == "main",
        closed: reach::foreign_functions(m).is_empty(),
    });
    // In a closed program that starts in `main`, a function that normalization deletes is
    // never called: its assertions hold, and are listed so that none is silently skipped.
    let never_called = match root {
        Some(r) if r.starts_program && r.closed => sites_at_start(&defined),
        _ => vec![],
    };
    let warnings = uncalled_error_functions(m);
    let limits = normalize::SizeLimits {
        inline: config.inline_limit,
        inline_caller: config.inline_caller_limit,
        lift: config.lift_limit,
    };
    let normalized = normalize::normalize(
        &module,
        root,
        limits,
        config.checks.has_runtime_checks(),
        &config.options,
    )?;
    Ok((module, normalized, never_called, warnings, folded))
}

/// A warning for each error function that has a body, is never called and was optimized:
/// an optimizer deletes the calls to an empty `reach_error` (they have no effect), taking
/// the program's assertions with them. Without optimization (C that polyfocus compiles
/// itself, or bitcode built at `-O0`) the calls are all there.
fn uncalled_error_functions(m: LLVMModuleRef) -> Vec<ir::LiftWarning> {
    defined_functions(m)
        .into_iter()
        .filter(|f| {
            matches!(
                conventions::role(&raw::name(*f), true),
                Some(Role::Error) | Some(Role::Assert)
            )
        })
        .filter(|f| unsafe { LLVMGetFirstUse(*f).is_null() } && !normalize::is_unoptimized(*f))
        .map(|f| ir::LiftWarning {
            function: raw::name(f),
            message: format!(
                "`{}` is defined but never called in optimized code: an optimizer may have \
                 deleted its calls (and the assertions with them); give polyfocus the C \
                 source, or bitcode built at -O0",
                raw::name(f)
            ),
            loc: None,
        })
        .collect()
}

fn defined_functions(m: LLVMModuleRef) -> Vec<LLVMValueRef> {
    raw::functions(m)
        .into_iter()
        .filter(|f| raw::is_defined(*f))
        .collect()
}

fn sites_at_start(defined: &[LLVMValueRef]) -> SitesAtStart {
    defined
        .iter()
        .filter(|f| {
            let name = raw::name(**f);
            conventions::role(&name, true).is_none() && !conventions::is_wrapper(&name)
        })
        .flat_map(|f| {
            let name = raw::name(*f);
            lift::error_sites(*f)
                .into_iter()
                .map(move |site| (name.clone(), site))
        })
        .collect()
}

/// Adds the checks of functions normalization deleted (see [`prepare`]) that no lifted
/// function holds (inlined copies keep the location of the original): their error sites
/// are never reached, so the driver reports them as holding.
fn add_never_called(
    res: &mut ir::Module,
    module: &Module<'_>,
    at_start: SitesAtStart,
    selection: ir::CheckSelection,
) {
    let m = module.as_mut_ptr();
    let remaining: HashSet<String> = defined_functions(m).into_iter().map(raw::name).collect();
    for (function, (kind, loc)) in at_start {
        let lifted = res.checks.iter().any(|c| c.kind == kind && c.loc == loc);
        if remaining.contains(&function) || lifted || !selection.contains(kind.class()) {
            continue;
        }
        let id = ir::CheckId(res.checks.len() as u32);
        res.checks.push(ir::Check {
            id,
            kind,
            loc,
            function,
        });
    }
}

/// Adds an overflow check for each signed overflow clang folded (`folded`): its error site
/// is reached at the start of the lifted function whose definition precedes the place (the
/// folded operation has no instruction to branch before). The check can therefore never be
/// proved (it is reached whenever that function runs), and only a native run that calls the
/// sanitizer's handler at that very place confirms it.
fn add_folded_overflows(res: &mut ir::Module, folded: Vec<ir::SourceLoc>) {
    let mut folded = folded;
    folded.sort();
    folded.dedup();
    let base = |f: &str| {
        std::path::Path::new(f)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
    };
    for loc in folded {
        // The function defined last before the place, in the same file.
        let host = res
            .functions
            .iter()
            .enumerate()
            .filter_map(|(i, f)| {
                let def = f.loc.as_ref()?;
                (base(&def.file) == base(&loc.file) && def.line <= loc.line)
                    .then_some((def.line, i))
            })
            .max()
            .map(|(_, i)| i);
        let Some(host) = host else { continue };
        let id = ir::CheckId(res.checks.len() as u32);
        let func = &mut res.functions[host];
        res.checks.push(ir::Check {
            id,
            kind: ir::CheckKind::FoldedOverflow,
            loc: Some(loc.clone()),
            function: func.name.clone(),
        });
        ir::pass::reach_at_entry(func, id, Some(loc));
    }
}

/// The functions to lift, in order: the selected entries, then the extra entries.
fn select_entries(
    module: &Module<'_>,
    selection: &EntrySelection,
    checks: ir::CheckSelection,
) -> Result<Vec<LLVMValueRef>, FrontendError> {
    let m = module.as_mut_ptr();
    let defined = defined_functions(m);
    let roots: Vec<LLVMValueRef> = match selection {
        EntrySelection::Named(_) | EntrySelection::List(_) => {
            let names = selection.names();
            defined
                .iter()
                .copied()
                .filter(|f| names.contains(&raw::name(*f).as_str()))
                .collect()
        }
        EntrySelection::Default => {
            let main: Vec<_> = defined
                .iter()
                .copied()
                .filter(|f| raw::name(*f) == "main")
                .collect();
            if !main.is_empty() {
                main
            } else {
                defined
                    .iter()
                    .copied()
                    .filter(|f| {
                        let name = raw::name(*f);
                        let linkage = unsafe { LLVMGetLinkage(*f) };
                        !matches!(
                            linkage,
                            LLVMLinkage::LLVMInternalLinkage | LLVMLinkage::LLVMPrivateLinkage
                        ) && conventions::role(&name, true).is_none()
                            && !conventions::is_wrapper(&name)
                    })
                    .collect()
            }
        }
    };
    for name in selection.names() {
        if !roots.iter().any(|f| raw::name(*f) == name) {
            let mut names: Vec<String> = defined.iter().map(|f| raw::name(*f)).collect();
            names.sort();
            return Err(FrontendError::UnknownEntry {
                name: name.to_string(),
                defined: names,
            });
        }
    }
    // Code that runs besides the roots and their callees (issue 12): functions whose
    // address escapes (handlers, comparators, thread routines, constructors, tables), those
    // the library calls by name, and, when foreign code may call them, every externally
    // visible function. Each runs with arbitrary arguments and globals.
    let open = !reach::foreign_functions(m).is_empty();
    let may_run = |f: LLVMValueRef| {
        conventions::role(&raw::name(f), true).is_none()
            && (reach::escapes(f) || reach::is_interposed(f) || (open && is_externally_visible(f)))
    };
    let graph = normalize::call_graph(m);
    let mut reached: Vec<LLVMValueRef> = roots.clone();
    reached.extend(
        defined
            .iter()
            .copied()
            .filter(|f| !roots.contains(f) && may_run(*f)),
    );
    let mut seen: HashSet<LLVMValueRef> = reached.iter().copied().collect();
    let mut idx = 0;
    while idx < reached.len() {
        let func = reached[idx];
        idx += 1;
        for callee in graph.get(&func).cloned().unwrap_or_default() {
            if conventions::role(&raw::name(callee), true).is_some() {
                continue;
            }
            if seen.insert(callee) {
                reached.push(callee);
            }
        }
    }
    let escaped_error = reach::escaped_error_function(m).is_some();
    let root_set: HashSet<LLVMValueRef> = roots.iter().copied().collect();
    let mut res = roots;
    // Extra entries in module order, for determinism.
    let extra: BTreeSet<usize> = reached
        .iter()
        // With runtime checks, every operation of every function that may run is a check.
        .filter(|f| {
            !root_set.contains(f)
                && (checks.has_runtime_checks() || has_error_site(**f, escaped_error))
        })
        .filter_map(|f| defined.iter().position(|g| g == f))
        .collect();
    res.extend(extra.into_iter().map(|i| defined[i]));
    Ok(res)
}

fn is_externally_visible(func: LLVMValueRef) -> bool {
    !matches!(
        unsafe { LLVMGetLinkage(func) },
        LLVMLinkage::LLVMInternalLinkage | LLVMLinkage::LLVMPrivateLinkage
    )
}

/// Whether `func` has an error site: a call of an error or assertion function, or, when an
/// error function's address escaped, a call that may call it.
fn has_error_site(func: LLVMValueRef, escaped_error: bool) -> bool {
    raw::call_instructions(func).any(|c| match raw::called_function(c) {
        Some(callee)
            if matches!(
                conventions::role(&raw::name(callee), raw::is_defined(callee)),
                Some(Role::Error) | Some(Role::Assert)
            ) =>
        {
            true
        }
        _ => escaped_error && reach::may_call_escaped_error(c),
    })
}

/// Lifts every entry, each under `catch_unwind`: a panic becomes a warning and an
/// over-approximated function. `escaped_error` is the error function whose address escapes.
fn lift_entries(
    entries: &[LLVMValueRef],
    normalized: &normalize::Normalized,
    config: &FrontendConfig,
    escaped_error: Option<&str>,
    contracts: &contract::Contracts,
) -> ir::Module {
    let selection = config.checks;
    let sites_before = &normalized.sites;
    let mut res = ir::Module {
        functions: vec![],
        checks: vec![],
        warnings: vec![],
        unanalyzable: vec![],
        callee_constants: vec![],
    };
    for &func in entries {
        let first_check = res.checks.len() as u32;
        if let Some(callee) = reach::returns_twice_callee(func) {
            res.unanalyzable.push(ir::Unanalyzable {
                function: raw::name(func),
                reason: format!(
                    "calls `{callee}`, which returns twice: the values after its second return are not modeled"
                ),
                over_budget: false,
            });
        }
        let lifted = match normalized.too_large.get(&raw::name(func)) {
            Some(&size) => Ok(over_budget(
                func,
                size,
                first_check,
                config,
                escaped_error,
                &mut res,
            )),
            None => catch_unwind(AssertUnwindSafe(|| {
                let options = lift::LiftOptions {
                    contracts,
                    certify: false,
                    specialize: None,
                };
                lift::lift_function(func, first_check, escaped_error, options)
            })),
        };
        let lifted = match lifted {
            Ok(lifted) => lifted,
            Err(payload) => {
                let message = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "panic".to_string());
                lift::fallback_function(func, first_check, &message, escaped_error)
            }
        };
        let name = lifted.function.name.clone();
        // Error sites LLVM deleted as unreachable: checks without a site.
        let mut remaining: Vec<lift::ErrorSite> = lifted
            .checks
            .iter()
            .map(|c| (c.kind.clone(), c.loc.clone()))
            .collect();
        let mut vanished = Vec::new();
        for site in sites_before.get(&name).map(|s| s.as_slice()).unwrap_or(&[]) {
            match remaining.iter().position(|r| r == site) {
                Some(i) => {
                    remaining.swap_remove(i);
                }
                None => vanished.push(site.clone()),
            }
        }
        let mut function = run_passes(lifted.function, &config.options, &mut res.warnings);
        // The checks of the selected classes are listed, renumbered in order. The error site
        // of a class not selected ends the path: an error function reports and aborts, and
        // so does UBSan's handler when the bitcode was built with a sanitizer.
        let mut renumbered = HashMap::new();
        for check in lifted.checks {
            if selection.contains(check.kind.class()) {
                let id = ir::CheckId(res.checks.len() as u32);
                renumbered.insert(check.id, id);
                res.checks.push(ir::Check { id, ..check });
            }
        }
        for block in &mut function.blocks {
            if let ir::Terminator::Error(c) = block.term {
                block.term = match renumbered.get(&c) {
                    Some(id) => ir::Terminator::Error(*id),
                    None => ir::Terminator::Stop,
                };
            }
        }
        for (kind, loc) in vanished {
            if selection.contains(kind.class()) {
                let id = ir::CheckId(res.checks.len() as u32);
                res.checks.push(ir::Check {
                    id,
                    kind,
                    loc,
                    function: name.clone(),
                });
            }
        }
        if selection.contains(ir::CheckClass::Assert)
            && escaped_error.is_none()
            && !normalized.too_large.contains_key(&name)
            && reach::returns_twice_callee(func).is_none()
            && float_paths::flags_allow(&config.cflags)
            && float_paths::computes_with_floats(func)
        {
            prove_float_assertions(
                func,
                &mut function,
                &res.checks,
                config.options.debug_floats,
                &mut res.warnings,
            );
        }
        if selection.has_runtime_checks() {
            let first = res.checks.len() as u32;
            function = instrument(
                function,
                selection,
                first,
                config.options.verify_ir,
                &mut res.warnings,
                &mut res.checks,
            );
        }
        res.functions.push(function);
        res.warnings.extend(lifted.warnings);
    }
    res
}

/// The assertions of `func` (lifted as `function`) that no path of its bit-precise run
/// reaches (`float_paths`, for code that computes with floats, which the IR leaves
/// arbitrary), when every path was followed to its end: their error sites become path
/// ends, so that the analysis reports them proved as it does the sites the front end
/// removed (no execution reaches them). A site is matched by its kind and location, so
/// one that shares both with a reached site stays. Only assertion sites: runtime checks
/// are added after this, and stay.
fn prove_float_assertions(
    func: LLVMValueRef,
    function: &mut ir::Function,
    checks: &[ir::Check],
    debug: bool,
    warnings: &mut Vec<ir::LiftWarning>,
) {
    let is_assertion = |c: ir::CheckId| {
        checks.get(c.index()).is_some_and(|k| {
            matches!(
                k.kind,
                ir::CheckKind::ErrorCall { .. } | ir::CheckKind::AssertCall { .. }
            )
        })
    };
    let sites = function
        .blocks
        .iter()
        .filter(|b| matches!(b.term, ir::Terminator::Error(c) if is_assertion(c)))
        .count();
    if sites == 0 {
        return;
    }
    // A panic (a bug, or the solver's bindings refusing a term) proves nothing.
    let outcome = catch_unwind(AssertUnwindSafe(|| float_paths::explore(func)))
        .unwrap_or_else(|_| float_paths::Outcome::GaveUp("panic".to_string()));
    if debug {
        eprintln!("float paths of {}: {outcome:?}", function.name);
    }
    let float_paths::Outcome::Explored {
        reached,
        paths,
        steps,
    } = outcome
    else {
        return;
    };
    let reached: Vec<lift::ErrorSite> = reached
        .into_iter()
        .map(|inst| lift::error_site_of(inst))
        .collect::<Option<Vec<_>>>()
        .unwrap_or_else(|| {
            // A reached call that is no error site: cannot happen; prove nothing.
            checks
                .iter()
                .map(|c| (c.kind.clone(), c.loc.clone()))
                .collect()
        });
    let mut proved = 0;
    for block in &mut function.blocks {
        if let ir::Terminator::Error(c) = block.term {
            let Some(check) = checks.get(c.index()) else {
                continue;
            };
            if is_assertion(c) && !reached.contains(&(check.kind.clone(), check.loc.clone())) {
                block.term = ir::Terminator::Stop;
                proved += 1;
            }
        }
    }
    if proved > 0 {
        warnings.push(ir::LiftWarning {
            function: function.name.clone(),
            message: format!(
                "{proved} of {sites} assertion sites proved unreachable by a bit-precise run \
                 over floats ({paths} paths, {steps} steps): no execution reaches them"
            ),
            loc: None,
        });
    }
}

/// A function over the front end's budget (`size` instructions after inlining, more than
/// [`FrontendConfig::lift_limit`]): listed in `res` as not analyzable for that reason, with
/// a function whose error sites are all reachable, so that each of its checks is reported.
fn over_budget(
    func: LLVMValueRef,
    size: usize,
    first_check: u32,
    config: &FrontendConfig,
    escaped_error: Option<&str>,
    res: &mut ir::Module,
) -> lift::Lifted {
    let reason = format!(
        "{size} instructions after inlining, more than the front end's budget \
         (-Z lift-limit={}): not optimized nor lifted, its checks are unknown{}",
        config.lift_limit,
        if config.checks.has_runtime_checks() {
            " and its runtime checks are not listed"
        } else {
            ""
        }
    );
    let mut lifted = lift::fallback_function(func, first_check, &reason, escaped_error);
    lifted.warnings = vec![ir::LiftWarning {
        function: lifted.function.name.clone(),
        message: reason.clone(),
        loc: lifted.function.loc.clone(),
    }];
    res.unanalyzable.push(ir::Unanalyzable {
        function: lifted.function.name.clone(),
        reason,
        over_budget: true,
    });
    lifted
}

/// Adds the runtime checks of `selection` to `func` (numbered from `first`, appended to
/// `checks`). A broken instrumentation (seen when verification is on) costs the checks of
/// the function, never soundness of the others: it is analyzed without them, with a warning,
/// and its runtime checks are missing from the report (the warning says so).
fn instrument(
    func: ir::Function,
    selection: ir::CheckSelection,
    first: u32,
    verify_ir: bool,
    warnings: &mut Vec<ir::LiftWarning>,
    checks: &mut Vec<ir::Check>,
) -> ir::Function {
    let pipeline = ir::pass::Pipeline::new(vec![], ir::pass::Verification::for_build(verify_ir));
    let pass = ir::pass::RuntimeChecks::new(selection);
    match pipeline.instrument(&pass, func.clone(), first) {
        Ok(done) => {
            checks.extend(done.checks);
            done.function
        }
        Err(e) => {
            warnings.push(ir::LiftWarning {
                function: func.name.clone(),
                message: format!("{e}; the function's runtime errors are not checked"),
                loc: func.loc.clone(),
            });
            func
        }
    }
}

/// Runs the standard IR passes (`ir::pass`) on a lifted function. A pass that breaks the IR
/// (seen when verification is on: debug builds, tests, `-Z verify-ir`) costs only
/// precision: the function is analyzed as lifted, with a warning naming the pass.
fn run_passes(
    func: ir::Function,
    options: &FrontendOptions,
    warnings: &mut Vec<ir::LiftWarning>,
) -> ir::Function {
    // Without the memory model every load is arbitrary: what the analysis proves without
    // it, on the same binary and under the same budgets.
    let func = if options.memory_model {
        func
    } else {
        crate::memory::erase(func)
    };
    let pipeline =
        ir::pass::Pipeline::standard(ir::pass::Verification::for_build(options.verify_ir));
    match pipeline.run(func.clone()) {
        Ok(func) => func,
        Err(e) => {
            warnings.push(ir::LiftWarning {
                function: func.name.clone(),
                message: format!(
                    "{e}; the function is analyzed without the IR passes, every load arbitrary"
                ),
                loc: func.loc.clone(),
            });
            // The graph's invariant holds without the passes too (see the pass).
            ir::pass::separate_entry(crate::memory::erase(func))
        }
    }
}
