//! Front end: loads C, bitcode or textual IR, links the inputs into one module, normalizes
//! it with LLVM's own passes and lifts it into [`crate::ir`].
//!
//! **Architecture Invariant:** the only module that names `inkwell` or `llvm-sys`. No LLVM
//! value escapes it: a [`Program`] (a loaded module) is opaque, borrowed from the [`Llvm`]
//! state it lives in. LLVM names become display names, never identity. It runs no
//! analysis: what the analyses need of the LLVM code that the lifted program does not keep
//! is recorded as plain data (the recursive functions for the contract search,
//! [`Recursion`]; the bit-precise form of code over floats, [`FloatRun`]).
//!
//! Stages, one module each:
//! - `config`: [`FrontendConfig`], what the front end is asked to do;
//! - `compile`: `.c`/`.i` → bitcode with `clang-19` (`$POLYFOCUS_CLANG`), `-g -O0`, `-m32`
//!   for [`DataModel::Ilp32`], the runtime header directory (`runtime/`, or
//!   `$POLYFOCUS_RUNTIME`) on the include path, the user's cflags, then `-O0 -Xclang
//!   -disable-llvm-passes` (no optimization, whatever the user asks);
//! - `load`: checks the files, parses `.bc` (any LLVM ≤ 19, e.g. clang-14's) and `.ll`, links;
//! - `normalize`: inlining, global localization and LLVM passes (see its docs for the why);
//! - `conventions`: which function names are nondet inputs, assumptions, error sites,
//!   assertions or ends of paths (the table is in its docs);
//! - `entries`: which functions are lifted as entries: the selected ones and what may run
//!   besides them;
//! - `reach`: which code runs besides the entry (functions whose address escapes, foreign
//!   code, error functions called through pointers, `setjmp`); `library`: the names of the
//!   C library, which are not foreign code;
//! - `lift`: one LLVM function → one [`ir::Function`], assuming (and in certify mode
//!   checking) the [`contract`]s of the functions that stay calls; `debuginfo`: locations
//!   and names;
//! - `recursion`: the recursive functions and what the contract search reads of them;
//!   `evaluate`: concrete evaluation of integer functions, for the search's candidates;
//! - `bitprecise`: the bit-precise form of an entry that computes with floats;
//! - `error`: [`FrontendError`], one user-facing message per failure;
//! - `compdb`: compilation databases and compiler command lines (whole projects).
//!
//! Lifting never fails: what it cannot model becomes an arbitrary value and a
//! [`ir::LiftWarning`]; a panic while lifting a function (a bug) is caught and the function is
//! replaced by one where every assertion is reachable, with a warning.

mod bitprecise;
mod compdb;
mod compile;
mod config;
pub mod contract;
mod conventions;
mod cplusplus;
mod debuginfo;
mod effects;
mod entries;
mod error;
mod evaluate;
mod leak_coverage;
mod library;
mod library_model;
mod lift;
mod load;
mod normalize;
mod passes;
mod raw;
mod reach;
mod recursion;
mod returns;
mod timing;
mod ubsan;

pub use compdb::{
    compile_to_bitcode, defines_main, parse_invocation, read_compile_commands, split_command,
    CompileCommand, Invocation,
};
pub use compile::{
    clang_args, clang_program, runtime_dir, target_and_user_flags, unoptimized_user_flags,
};
pub use config::{
    ContractTrace, DataModel, EntrySelection, FloatEvaluation, FrontendConfig, FrontendOptions,
    INLINE_CALLER_LIMIT, INLINE_LIMIT, LIFT_LIMIT, SSE_FLOAT_FLAGS,
};
pub use conventions::{role, Role};
pub use error::FrontendError;
pub use evaluate::Evaluator;
pub use library::is_library_function;
pub use lift::ReturnProbe;
pub use normalize::PIPELINE;
pub use passes::standard_pipeline;
pub use recursion::{Recursion, RecursiveFunction};

use std::collections::{BTreeSet, HashMap, HashSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

use inkwell::context::Context;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::module::Module;

use crate::ir;
use timing::timing;

/// Loads, links, normalizes and lifts the inputs of `config`, with no contract and without
/// the analyses the driver runs on what the front end records ([`Program::lift`]).
pub fn load(config: &FrontendConfig) -> Result<ir::Module, FrontendError> {
    let llvm = Llvm::new();
    let program = Program::prepare(&llvm, config)?;
    Ok(program.lift(&contract::Contracts::new()).module)
}

/// The LLVM state programs are loaded into; it outlives each [`Program`] loaded into it.
pub struct Llvm {
    context: Context,
}

impl Llvm {
    /// A new, empty state.
    pub fn new() -> Llvm {
        Llvm {
            context: Context::create(),
        }
    }
}

impl Default for Llvm {
    fn default() -> Llvm {
        Llvm::new()
    }
}

/// A program loaded, linked and normalized, with its entries chosen: ready to lift.
pub struct Program<'a> {
    config: &'a FrontendConfig,
    module: Module<'a>,
    normalized: normalize::Normalized,
    never_called: SitesAtStart,
    warnings: Vec<ir::LiftWarning>,
    folded: Vec<ir::SourceLoc>,
    entries: Vec<LLVMValueRef>,
    /// The error function whose address escapes, if any.
    escaped_error: Option<String>,
    started: Instant,
}

/// What [`Program::lift`] gives: the lifted module, and the entries whose assertions a
/// bit-precise run over floats may prove.
pub struct LiftedProgram {
    /// The lifted module.
    pub module: ir::Module,
    /// The entries that compute with floats, in the order of the module's functions.
    pub float_runs: Vec<FloatRun>,
}

/// An entry that computes with floats, whose assertion sites the bit-precise enumeration of
/// its paths (`smt::float_paths`) may prove unreachable. Recorded when assertions are
/// checked, no error function's address escapes, the function is lifted (not over budget,
/// no `setjmp`) and the user's flags keep the floating-point model the enumeration assumes.
pub struct FloatRun {
    /// The function (index into the module's functions).
    pub function: usize,
    /// Its bit-precise form, or why no path of it can be followed.
    pub program: Result<ir::bitprecise::Program, String>,
    /// Where a warning about it goes in the module's warnings, to keep them in the order
    /// of the functions.
    pub warning_at: usize,
    /// How the target evaluates its float arithmetic: the run models each operation
    /// rounded to its type, which proves nothing under the x87's extended precision.
    pub evaluation: FloatEvaluation,
}

impl<'a> Program<'a> {
    /// Loads, links, checks the entries and normalizes the inputs of `config`.
    ///
    /// The front end's work is bounded by sizes, never by time (verdicts must not depend on
    /// machine load): inlining stops where a caller would exceed
    /// [`FrontendConfig::inline_caller_limit`], and a function larger than
    /// [`FrontendConfig::lift_limit`] is listed in [`ir::Module::unanalyzable`] as over
    /// budget, with its error sites as checks.
    pub fn prepare(
        llvm: &'a Llvm,
        config: &'a FrontendConfig,
    ) -> Result<Program<'a>, FrontendError> {
        let started = Instant::now();
        let (module, normalized, never_called, warnings, folded) = prepare(&llvm.context, config)?;
        timing(&config.options, "prepared", started);
        let entries = entries::select(&module, &config.entry, config.checks)?;
        let escaped_error = reach::escaped_error_function(module.as_mut_ptr());
        Ok(Program {
            config,
            module,
            normalized,
            never_called,
            warnings,
            folded,
            entries,
            escaped_error,
            started,
        })
    }

    /// The recursive functions and what the contract search needs of them; `None` when
    /// there is none, or when one is over the front end's budget (it cannot be lifted, so
    /// no contract is searched).
    pub fn recursion(&self) -> Option<Recursion> {
        let m = self.module.as_mut_ptr();
        let too_large = &self.normalized.too_large;
        if !too_large.is_empty()
            && recursion::scope(m, false)
                .participants
                .iter()
                .any(|f| too_large.contains_key(&raw::name(*f)))
        {
            return None;
        }
        let starts_in_main = match &self.config.entry {
            EntrySelection::Named(name) => name == "main",
            EntrySelection::List(_) => false,
            EntrySelection::Default => defined_functions(m).iter().any(|f| raw::name(*f) == "main"),
        };
        let closed_main = starts_in_main && reach::foreign_functions(m).is_empty();
        let scope = recursion::scope(m, closed_main);
        if scope.recursive.is_empty() {
            return None;
        }
        Some(scope.recursion())
    }

    /// An evaluator of the program's integer functions on constants, that runs at most
    /// `steps` instructions in all.
    pub fn evaluator(&self, steps: u64) -> Evaluator<'_> {
        Evaluator::new(self.module.as_mut_ptr(), steps)
    }

    /// One round of the contract search: the participants of `recursion` lifted in certify
    /// mode under `candidates` (each candidate assumed where it is used and checked where it
    /// must hold, see [`contract`]), then each copy specialized to a guard of its clauses.
    /// `None` when a participant cannot be lifted: its obligations would go unchecked.
    pub fn lift_for_certification(
        &self,
        recursion: &Recursion,
        candidates: &contract::Contracts,
    ) -> Option<contract::CertifyModule> {
        let functions: HashMap<String, LLVMValueRef> = defined_functions(self.module.as_mut_ptr())
            .into_iter()
            .map(|f| (raw::name(f), f))
            .collect();
        let mut res = ir::Module {
            functions: vec![],
            checks: vec![],
            warnings: vec![],
            unanalyzable: vec![],
            callee_constants: vec![],
            held_at_own_precision: vec![],
            leaks: Default::default(),
            origins: Default::default(),
            called_only_directly: Default::default(),
        };
        let mut obligations = Vec::new();
        let specializations = contract::specializations(candidates);
        // Each participant, then the copies specialized to the guards of its clauses.
        let mut liftings: Vec<(LLVMValueRef, Option<&contract::Atom>)> = Vec::new();
        for name in &recursion.participants {
            let func = *functions.get(name)?;
            liftings.push((func, None));
            for (n, guard) in &specializations {
                if n == name {
                    liftings.push((func, Some(guard)));
                }
            }
        }
        let escaped_error = self.escaped_error.as_deref();
        for (copy, (func, specialize)) in liftings.into_iter().enumerate() {
            let first = res.checks.len() as u32;
            let options = lift::LiftOptions {
                contracts: candidates,
                certify: true,
                specialize,
                memory_checks: false,
                requirements: &contract::Requirements::new(),
                probe_returns: false,
            };
            let lifted = catch_unwind(AssertUnwindSafe(|| {
                lift::lift_function(func, first, escaped_error, options)
            }))
            .ok()?;
            let own: HashSet<ir::CheckId> = lifted.obligations.iter().map(|(c, _)| *c).collect();
            let mut function = run_passes(lifted.function, &self.config.options, &mut res.warnings);
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
    }

    /// The functions that some call of the program still calls, outside recursive cycles,
    /// that return an integer, by name, callees first: those whose returns a summary may
    /// describe (`driver::contracts`).
    pub fn return_summary_targets(&self) -> Vec<String> {
        let excluded: HashSet<String> = self.normalized.too_large.keys().cloned().collect();
        returns::targets(self.module.as_mut_ptr(), &excluded)
            .into_iter()
            .map(raw::name)
            .collect()
    }

    /// The function `name` lifted for the summary of what it returns: every return of an
    /// integer jumps to one error site where the returned value, the integer parameters
    /// and what the out-parameters point to are live (see [`ReturnProbe`]), and the
    /// summaries of `contracts` are assumed after the calls it makes. The function's own
    /// error sites end their paths (an execution that fails a check does not return).
    /// `None` when it cannot be lifted or returns no integer.
    pub fn lift_return_probe(
        &self,
        name: &str,
        contracts: &contract::Contracts,
    ) -> Option<(ir::Function, ReturnProbe)> {
        let func = defined_functions(self.module.as_mut_ptr())
            .into_iter()
            .find(|f| raw::name(*f) == name)?;
        let options = lift::LiftOptions {
            contracts,
            certify: false,
            specialize: None,
            memory_checks: false,
            requirements: &contract::Requirements::new(),
            probe_returns: true,
        };
        let escaped_error = self.escaped_error.as_deref();
        let lifted = catch_unwind(AssertUnwindSafe(|| {
            lift::lift_function(func, 0, escaped_error, options)
        }))
        .ok()?;
        let probe = lifted.return_probe?;
        let mut warnings = Vec::new();
        let mut function = run_passes(lifted.function, &self.config.options, &mut warnings);
        if !warnings.is_empty() {
            return None;
        }
        for block in &mut function.blocks {
            if matches!(block.term, ir::Terminator::Error(c) if c != probe.check) {
                block.term = ir::Terminator::Stop;
            }
        }
        let probe = probe_after_passes(&function, &probe)?;
        Some((function, probe))
    }

    /// The callers of the functions of `requirements` that only their direct calls can
    /// enter, lifted with a check of each requirement at each such call (and no other
    /// error site: the program's own checks end the path, as in the analysis of the
    /// program), with no contract assumed. A function qualifies when it is not visible
    /// outside the module, is not a selected entry, and every use of it is the callee of a
    /// call in a function within the front end's budget: each such caller is lifted here,
    /// whether or not the analysis of the program lifted it (a caller without checks of its
    /// own is not, with `--checks assert`), and one no execution from the entries runs
    /// only checks calls no execution makes. A caller that cannot be lifted leaves its
    /// callees' requirements unchecked.
    pub fn lift_requirements(
        &self,
        requirements: &contract::Requirements,
    ) -> contract::RequirementModule {
        let mut res = contract::RequirementModule::default();
        let mut callers: Vec<LLVMValueRef> = Vec::new();
        let mut checked = contract::Requirements::new();
        for func in defined_functions(self.module.as_mut_ptr()) {
            let name = raw::name(func);
            let Some(reqs) = requirements.get(&name) else {
                continue;
            };
            if self.config.entry.names().contains(&name.as_str()) {
                continue;
            }
            let Some(sites) = direct_callers(func) else {
                continue;
            };
            // A caller over the front end's budget is lifted as an over-approximation
            // whose calls check nothing.
            let unchecked =
                |c: &LLVMValueRef| self.normalized.too_large.contains_key(&raw::name(*c));
            if sites.is_empty() || sites.iter().any(unchecked) {
                continue;
            }
            res.calls.insert(name.clone(), sites.len());
            for c in sites {
                if !callers.contains(&c) {
                    callers.push(c);
                }
            }
            checked.insert(name, reqs.clone());
        }
        callers.sort_by_key(|f| raw::name(*f));
        let escaped_error = self.escaped_error.as_deref();
        let no_contracts = contract::Contracts::new();
        let mut complete = true;
        for func in callers {
            let first = res.module.checks.len() as u32;
            let options = lift::LiftOptions {
                contracts: &no_contracts,
                certify: false,
                specialize: None,
                memory_checks: self.config.checks.contains(ir::CheckClass::Memory),
                requirements: &checked,
                probe_returns: false,
            };
            let Ok(lifted) = catch_unwind(AssertUnwindSafe(|| {
                lift::lift_function(func, first, escaped_error, options)
            })) else {
                complete = false;
                continue;
            };
            let own: HashSet<ir::CheckId> = lifted.obligations.iter().map(|(c, _)| *c).collect();
            let mut function = run_passes(
                lifted.function,
                &self.config.options,
                &mut res.module.warnings,
            );
            for block in &mut function.blocks {
                if matches!(block.term, ir::Terminator::Error(c) if !own.contains(&c)) {
                    block.term = ir::Terminator::Stop;
                }
            }
            res.module.checks.extend(lifted.checks);
            res.obligations.extend(lifted.obligations);
            res.module.functions.push(function);
        }
        // A caller not lifted checks none of its calls: its callees' requirements say
        // nothing then.
        if complete {
            res.functions = checked.into_keys().collect();
        }
        res
    }

    /// Lifts the program, assuming `contracts` (certified ones: see [`contract`]) at the
    /// calls and entries of their functions; without a contract a call is lifted as any
    /// call of code that is not inlined.
    ///
    /// The result holds one [`ir::Function`] per entry: the selected entries (see
    /// [`EntrySelection`]) and every defined function that contains an error site and may
    /// run otherwise than inlined into them, so that its assertions are analyzed too (with
    /// arbitrary arguments and globals): those still called (recursive or too large to
    /// inline), those whose address escapes (handlers, comparators, thread routines,
    /// constructors and destructors, tables of functions) and what they call, and, when the
    /// program calls foreign code, every externally visible function (see [`reach`]). For a
    /// named entry other than `main`, only those a call of it may run ([`entries`]).
    /// A function that calls `setjmp` is listed in [`ir::Module::unanalyzable`].
    ///
    /// A check may have no error site in any function: LLVM's CFG simplification proved its
    /// error site unreachable (e.g. `if (c < 0) if (c > 4) assert(0);`) and deleted it. Such
    /// a check holds; it is listed so that every assertion of the source gets a verdict.
    pub fn lift(self, contracts: &contract::Contracts) -> LiftedProgram {
        timing(&self.config.options, "contracts", self.started);
        let escaped_error = self.escaped_error.as_deref();
        let (mut res, mut float_runs) = lift_entries(
            &self.entries,
            &self.normalized,
            self.config,
            escaped_error,
            contracts,
        );
        timing(&self.config.options, "lifted", self.started);
        add_never_called(
            &mut res,
            &self.module,
            self.never_called,
            self.config.checks,
        );
        res.callee_constants = callee_constants(self.module.as_mut_ptr(), &res);
        let named = self.config.entry.names();
        res.called_only_directly = defined_functions(self.module.as_mut_ptr())
            .into_iter()
            .map(|f| (raw::name(f), f))
            .filter(|(name, f)| {
                !named.contains(&name.as_str())
                    && res.functions.iter().any(|g| &g.name == name)
                    && direct_callers(*f).is_some()
            })
            .map(|(name, _)| name)
            .collect();
        if self.config.checks.contains(ir::CheckClass::Overflow) {
            add_folded_overflows(&mut res, self.folded);
        }
        for run in &mut float_runs {
            run.warning_at += self.warnings.len();
        }
        res.warnings.splice(0..0, self.warnings);
        LiftedProgram {
            module: res,
            float_runs,
        }
    }
}

/// The integer constants of the defined functions of `m` that `lifted` does not have as
/// functions of its own (callees that stay calls): see [`ir::Module::callee_constants`].
fn callee_constants(m: LLVMModuleRef, lifted: &ir::Module) -> Vec<i128> {
    let mut acc = BTreeSet::new();
    for f in defined_functions(m) {
        let name = raw::name(f);
        if !lifted.functions.iter().any(|g| g.name == name) {
            recursion::constants_of(f, &mut acc);
        }
    }
    acc.into_iter().map(i128::from).collect()
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
    entries::check_defined(&defined, &config.entry)?;
    entries::keep_selected(&defined, &config.entry);
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
        marked: config.options.inline_marked,
        whole_program: config.options.inline_program_limit,
        leaf: config.options.inline_leaf_limit,
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

/// Lifts every entry, each under `catch_unwind`: a panic becomes a warning and an
/// over-approximated function. `escaped_error` is the error function whose address escapes.
fn lift_entries(
    entries: &[LLVMValueRef],
    normalized: &normalize::Normalized,
    config: &FrontendConfig,
    escaped_error: Option<&str>,
    contracts: &contract::Contracts,
) -> (ir::Module, Vec<FloatRun>) {
    let selection = config.checks;
    let mut float_runs = Vec::new();
    let sites_before = &normalized.sites;
    let mut res = ir::Module {
        functions: vec![],
        checks: vec![],
        warnings: vec![],
        unanalyzable: vec![],
        callee_constants: vec![],
        held_at_own_precision: vec![],
        leaks: Default::default(),
        origins: Default::default(),
        called_only_directly: Default::default(),
    };
    let mut leak_coverages = Vec::new();
    let subprograms = entries
        .first()
        .map(|f| debuginfo::subprograms(unsafe { LLVMGetGlobalParent(*f) }))
        .unwrap_or_default();
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
                    memory_checks: selection.contains(ir::CheckClass::Memory),
                    requirements: &contract::Requirements::new(),
                    probe_returns: false,
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
        res.origins
            .insert(name.clone(), debuginfo::code_origins(func, &subprograms));
        leak_coverages.push((name.clone(), lifted.leak_coverage.clone()));
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
            && bitprecise::flags_allow(&config.cflags)
            && bitprecise::computes_with_floats(func)
        {
            // A panic (a bug) gives no bit-precise form, so no proof.
            let program = catch_unwind(AssertUnwindSafe(|| bitprecise::program(func)))
                .unwrap_or_else(|_| Err("panic".to_string()));
            float_runs.push(FloatRun {
                function: res.functions.len(),
                program,
                warning_at: res.warnings.len(),
                evaluation: config.float_evaluation(),
            });
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
    res.leaks = leak_coverage::of_module(selection, &res, &leak_coverages);
    (res, float_runs)
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
    let pipeline = standard_pipeline(ir::pass::Verification::for_build(options.verify_ir));
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

/// The functions whose calls are every use of `func`, each once per call; `None` when
/// some use is not the callee of a call (its address is taken, stored or passed).
fn direct_callers(func: LLVMValueRef) -> Option<Vec<LLVMValueRef>> {
    use inkwell::llvm_sys::LLVMLinkage;
    unsafe {
        if !matches!(
            LLVMGetLinkage(func),
            LLVMLinkage::LLVMInternalLinkage | LLVMLinkage::LLVMPrivateLinkage
        ) {
            return None;
        }
        let mut res = Vec::new();
        let mut u = LLVMGetFirstUse(func);
        while !u.is_null() {
            let user = LLVMGetUser(u);
            if LLVMIsACallInst(user).is_null() || LLVMGetCalledValue(user) != func {
                return None;
            }
            // The function passed as an argument of a call of itself is a use too.
            let args = raw::num_args(user);
            if (0..args).any(|i| raw::operand(user, i) == func) {
                return None;
            }
            res.push(LLVMGetBasicBlockParent(LLVMGetInstructionParent(user)));
            u = LLVMGetNextUse(u);
        }
        Some(res)
    }
}

/// `probe` in `function` after the passes, which renumber values: the copies at its site
/// name them again, in order. `None` when the site or a copy of a parameter or of the
/// returned value is gone; an out-parameter the passes folded to a constant is left out.
fn probe_after_passes(function: &ir::Function, probe: &ReturnProbe) -> Option<ReturnProbe> {
    let site = function
        .blocks
        .iter()
        .find(|b| b.term == ir::Terminator::Error(probe.check))?;
    let copied: Vec<ir::Operand> = site
        .insts
        .iter()
        .filter_map(|inst| match inst {
            ir::Inst::Assign {
                dest,
                expr: ir::Expr::Use(op),
            } if function.value(*dest).name.starts_with(lift::PROBE_COPY) => Some(*op),
            _ => None,
        })
        .collect();
    if copied.len() != probe.params.len() + probe.outs.len() + 1 {
        return None;
    }
    let value_of = |op: &ir::Operand| match op {
        ir::Operand::Value(v) => Some(*v),
        _ => None,
    };
    let (params, rest) = copied.split_at(probe.params.len());
    let (outs, value) = rest.split_at(probe.outs.len());
    Some(ReturnProbe {
        check: probe.check,
        value: value_of(&value[0])?,
        params: (probe.params.iter().zip(params))
            .map(|(&(i, _), op)| Some((i, value_of(op)?)))
            .collect::<Option<_>>()?,
        outs: (probe.outs.iter().zip(outs))
            .filter_map(|(&(i, bits, _), op)| Some((i, bits, value_of(op)?)))
            .collect(),
    })
}
