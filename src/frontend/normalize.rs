//! Normalization with LLVM's own passes, before lifting.
//!
//! Steps, in order:
//! 0. drop `nsw`, `nuw` and `exact` from every function LLVM may have optimized (see
//!    [`distrust_optimized_flags`]);
//! 1. drop `optnone`/`noinline` from every defined function (clang puts them on at `-O0`);
//! 2. mark `alwaysinline` every defined function that is not recursive (its call-graph SCC
//!    is trivial), not larger than [`SizeLimits::inline`] instructions once its own
//!    inlinable callees are inlined into it, and has no role in [`conventions`] (error,
//!    nondet, assume, ... functions are interpreted, not inlined); mark `noinline` the call
//!    sites that would grow their caller past [`SizeLimits::inline_caller`];
//! 3. when execution starts in a single root (`main` or the named entry) and the program is
//!    closed (it calls no foreign code, see [`super::reach`]), give every other defined
//!    function internal linkage, except those the library may call by name, so that
//!    `globaldce` deletes those that are inlined everywhere or never called (and their uses
//!    of globals disappear); run `always-inline,globaldce`, then infer each function's
//!    memory effects (what a call of it may write, [`super::effects`]);
//! 4. when the root starts the program (`main`, not a library function that may be called
//!    any number of times) and the program is closed (foreign code may write globals with
//!    external linkage, and call `main` again), localize integer globals used only by it:
//!    each becomes an `alloca` initialized with the global's initial value, so that SROA
//!    promotes it to SSA (LLVM's `globalopt` does this only when the initial value is dead,
//!    which it rarely is in the benchmarks). Globals the library writes by name (`optind`)
//!    stay. Under the same conditions, `argc >= 1` is assumed at `main`'s start
//!    ([`assume_argc_at_least_one`]);
//! 5. mark `optnone` (skipped by the passes) the functions larger than
//!    [`SizeLimits::lift`]: they are not lifted (the front end's budget);
//! 6. with runtime checks selected, keep every operation they instrument alive through the
//!    passes ([`keep_checked_operations`]);
//! 7. run [`PIPELINE`]: `sroa` (promote locals, like mem2reg but also splits aggregates),
//!    `simplifycfg` with speculation and bonus instructions turned off (so that `a || b` stays
//!    two branches instead of becoming `or`/`select`), `loop-simplify` (preheaders, one
//!    latch, dedicated exits). No `instcombine`: it merges conditions into selects and
//!    rewrites GEPs.
//! 8. convert debug records back to `llvm.dbg.value` calls so that the lifter can read
//!    variable names through the C API.

use std::collections::{HashMap, HashSet};

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMLinkage, LLVMOpcode, LLVMTypeKind};
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{
    CodeModel, InitializationConfig, RelocMode, Target, TargetMachine, TargetTriple,
};
use inkwell::OptimizationLevel;
use petgraph::graph::DiGraph;

use super::conventions;
use super::conventions::UNINIT_PREFIX;
use super::error::FrontendError;
use super::library;
use super::lift::{self, ErrorSite};
use super::raw;
use super::reach;
use super::timing::timing;

/// The pass pipeline run after inlining and global localization.
pub const PIPELINE: &str =
    "sroa,simplifycfg<bonus-inst-threshold=0;no-speculate-blocks>,loop-simplify,dce";

/// The single function where executions start, and how much of the world the module shows.
#[derive(Clone, Copy, Debug)]
pub struct Root<'a> {
    /// Its name.
    pub name: &'a str,
    /// Whether it starts the program (`main`): globals hold their initial values when it
    /// starts and nothing calls it again. A library function (`--entry f`) may be called any
    /// number of times, so it starts from arbitrary globals.
    pub starts_program: bool,
    /// Whether the program refers to no foreign code (see [`super::reach`]): only the
    /// module's functions run, when the module calls them, and only they write its globals.
    pub closed: bool,
}

/// Normalizes `module` in place. `root` is the single function where execution starts,
/// when there is one (`main` or the named entry); globals are localized only when it
/// starts a closed program.
///
/// Returns the error sites of each defined function as they were after inlining, before
/// simplification: `simplifycfg` deletes error sites it proves unreachable (a branch whose
/// condition is implied by a dominating one), and the caller reports those checks as holding.
pub fn normalize(
    module: &Module<'_>,
    root: Option<Root<'_>>,
    limits: SizeLimits,
    keep_checked: bool,
    options: &super::FrontendOptions,
) -> Result<Normalized, FrontendError> {
    let m = module.as_mut_ptr();
    let started = std::time::Instant::now();
    let machine = target_machine(module)?;
    unsafe {
        distrust_optimized_flags(m);
        strip_attributes(m);
        mark_inlinable(m, limits);
        if let Some(root) = root.filter(|r| r.closed) {
            internalize_all_but(m, root.name);
        }
    }
    module
        .run_passes(
            "always-inline,globaldce",
            &machine,
            PassBuilderOptions::create(),
        )
        .map_err(|e| FrontendError::Passes {
            message: e.to_string(),
        })?;
    timing(options, "inlined", started);
    // Before the checked operations' sink stores, which would count as writes.
    super::effects::infer(module, &machine)?;
    // Inline assembly may read and write globals by symbol name, which LLVM does not see
    // as uses: with any in the module, no global may become a local.
    if let Some(root) = root.filter(|r| r.starts_program && r.closed && !has_inline_asm(m)) {
        let func = raw::functions(m)
            .into_iter()
            .find(|f| raw::name(*f) == root.name && raw::is_defined(*f));
        if let Some(func) = func {
            unsafe { localize_globals(m, func) };
            unsafe { store_initial_values(m, func) };
        }
    }
    if let Some(root) = root.filter(|r| r.starts_program && r.closed) {
        let func = raw::functions(m)
            .into_iter()
            .find(|f| raw::name(*f) == root.name && raw::is_defined(*f));
        if let Some(func) = func {
            unsafe { assume_argc_at_least_one(m, func) };
        }
    }
    for func in raw::functions(m) {
        if raw::is_defined(func) {
            unsafe { initialize_locals(m, func) };
        }
    }
    let sites = raw::functions(m)
        .into_iter()
        .filter(|f| raw::is_defined(*f))
        .map(|f| (raw::name(f), lift::error_sites(f)))
        .collect();
    let too_large = unsafe { leave_out_too_large(m, limits.lift) };
    if keep_checked {
        unsafe { keep_checked_operations(m) };
    }
    // For studying the cost of the pipeline outside polyfocus (`opt-19 -time-passes`).
    if let Some(path) = &options.dump_before_pipeline {
        module.write_bitcode_to_path(path);
    }
    module
        .run_passes(PIPELINE, &machine, PassBuilderOptions::create())
        .map_err(|e| FrontendError::Passes {
            message: e.to_string(),
        })?;
    timing(options, "optimized", started);
    unsafe { LLVMSetIsNewDbgInfoFormat(m, 0) };
    Ok(Normalized { sites, too_large })
}

/// How much code normalization may make (the front end's budget). LLVM's SROA
/// takes time about proportional to a function's blocks times its locals, so a function
/// grown by inlining to hundreds of thousands of instructions took minutes and gigabytes
/// (lz4's `LZ4_compress_HC_continue`: 152 000 instructions, 12 800 blocks, 8 100 allocas).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SizeLimits {
    /// A callee is inlined only if it has at most this many instructions once its own
    /// inlinable callees are inlined into it.
    pub inline: usize,
    /// A caller grows by inlining to at most this many instructions: a call whose callee
    /// would take it past this stays a call (its callee is then analyzed as an entry of its
    /// own, and the call havocs what it may write).
    pub inline_caller: usize,
    /// A function with more instructions than this once inlined is neither optimized nor
    /// lifted: its checks are reported unknown for the front end's budget.
    pub lift: usize,
    /// Whether a function the source marks `always_inline` is inlined whatever its size,
    /// as a compiler does; otherwise it is inlined within `inline` like any other, and
    /// one larger is analyzed once, on its own (the mark is about the speed of the
    /// machine code, and a large function inlined into every caller is analyzed once per
    /// caller).
    pub marked: bool,
    /// A program of at most this many instructions is inlined whole, every callee within
    /// `inline`; in a larger one a callee is inlined only within `leaf` too.
    pub whole_program: usize,
    /// The largest callee inlined in a program over `whole_program` instructions.
    pub leaf: usize,
}

impl SizeLimits {
    /// The largest callee inlined in a program of `program` instructions.
    fn callee(&self, program: usize) -> usize {
        if program <= self.whole_program {
            self.inline
        } else {
            self.inline.min(self.leaf)
        }
    }
}

/// What normalization gives besides the normalized module.
pub struct Normalized {
    /// The error sites of each defined function after inlining, before simplification.
    pub sites: HashMap<String, Vec<ErrorSite>>,
    /// The functions over [`SizeLimits::lift`], with their size in instructions: left
    /// unoptimized (`optnone`, which LLVM's passes skip), not to be lifted.
    pub too_large: HashMap<String, usize>,
}

/// Marks `optnone` every defined function with more than `limit` instructions, so that the
/// pipeline skips it, and returns them with their sizes.
unsafe fn leave_out_too_large(m: LLVMModuleRef, limit: usize) -> HashMap<String, usize> {
    let index = inkwell::llvm_sys::LLVMAttributeFunctionIndex;
    let ctx = LLVMGetModuleContext(m);
    let mut res = HashMap::new();
    for func in raw::functions(m) {
        if !raw::is_defined(func) {
            continue;
        }
        let size = raw::instruction_count(func);
        if size > limit {
            // LLVM requires `noinline` beside `optnone`; inlining is over anyway.
            for attr in ["noinline", "optnone"] {
                LLVMAddAttributeAtIndex(
                    func,
                    index,
                    LLVMCreateEnumAttribute(ctx, enum_kind(attr), 0),
                );
            }
            res.insert(raw::name(func), size);
        }
    }
    res
}

fn target_machine(module: &Module<'_>) -> Result<TargetMachine, FrontendError> {
    // Target registration is global state: do it once, even when loads run in parallel.
    static INIT: std::sync::Once = std::sync::Once::new();
    INIT.call_once(|| Target::initialize_x86(&InitializationConfig::default()));
    let module_triple = module.get_triple();
    let mut triples = Vec::new();
    if !module_triple.as_str().to_bytes().is_empty() {
        triples.push(module_triple);
    }
    triples.push(TargetMachine::get_default_triple());
    triples.push(TargetTriple::create("x86_64-pc-linux-gnu"));
    let mut last_error = String::from("no target");
    for triple in triples {
        match Target::from_triple(&triple) {
            Ok(target) => {
                if let Some(machine) = target.create_target_machine(
                    &triple,
                    "generic",
                    "",
                    OptimizationLevel::None,
                    RelocMode::Default,
                    CodeModel::Default,
                ) {
                    return Ok(machine);
                }
                last_error = format!("cannot create a target machine for {}", triple);
            }
            Err(e) => last_error = e.to_string(),
        }
    }
    Err(FrontendError::Target {
        message: last_error,
    })
}

unsafe fn enum_kind(name: &str) -> u32 {
    LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len())
}

/// Whether `func` comes unoptimized out of a front end: clang marks every function
/// `optnone` at `-O0` (polyfocus compiles C that way, whatever the user's flags), and no
/// LLVM pass transforms a function with that mark.
pub fn is_unoptimized(func: LLVMValueRef) -> bool {
    let index = inkwell::llvm_sys::LLVMAttributeFunctionIndex;
    unsafe { !LLVMGetEnumAttributeAtIndex(func, index, enum_kind("optnone")).is_null() }
}

/// Removes the poison-generating flags `nsw`, `nuw` and `exact` from every defined function
/// that may have been optimized, so that its operations wrap.
///
/// The lifter takes these flags as assumptions (an overflow drops the execution). That is
/// sound only where an overflow is undefined behaviour: in code straight from C, where
/// clang puts `nsw` exactly on signed arithmetic. An optimizer keeps the flags on operations
/// it speculates (`c ? x + 1 : 0` becomes `select c, (add nsw x, 1), 0`), where an overflow
/// yields a poison value that is never used: no undefined behaviour, and the execution is
/// real. Such code is recognized by the absence of `optnone` (see [`is_unoptimized`]).
unsafe fn distrust_optimized_flags(m: LLVMModuleRef) {
    for func in raw::functions(m) {
        if !raw::is_defined(func) || is_unoptimized(func) {
            continue;
        }
        for block in raw::blocks(func) {
            for inst in raw::instructions(block) {
                drop_poison_flags(inst);
            }
        }
    }
}

/// With runtime checks selected: a volatile store of the result of every operation the
/// checks instrument (division, remainder, shift, and signed `add`/`sub`/`mul`) into
/// [`conventions::KEEP_SINK`]. LLVM deletes an operation whose result is unused (an inlined
/// callee's return value the caller ignores, a local never read), but its misbehaviour is
/// undefined behaviour all the same, and the native program built with UBSan traps on it:
/// without the store, `--checks div` would have nothing to check and report the function
/// safe. The lifter drops the stores, so the analysis sees only the operations.
unsafe fn keep_checked_operations(m: LLVMModuleRef) {
    let ctx = LLVMGetModuleContext(m);
    let i128_ty = LLVMIntTypeInContext(ctx, 128);
    let name = std::ffi::CString::new(conventions::KEEP_SINK).expect("no NUL in the name");
    let mut sink = LLVMGetNamedGlobal(m, name.as_ptr());
    if sink.is_null() {
        sink = LLVMAddGlobal(m, i128_ty, name.as_ptr());
        LLVMSetInitializer(sink, LLVMConstInt(i128_ty, 0, 0));
        LLVMSetLinkage(sink, LLVMLinkage::LLVMInternalLinkage);
    }
    let builder = LLVMCreateBuilderInContext(ctx);
    for func in raw::functions(m) {
        if !raw::is_defined(func) || is_unoptimized(func) {
            continue;
        }
        for block in raw::blocks(func) {
            for inst in raw::instructions(block) {
                let checked = match raw::opcode(inst) {
                    LLVMOpcode::LLVMUDiv
                    | LLVMOpcode::LLVMSDiv
                    | LLVMOpcode::LLVMURem
                    | LLVMOpcode::LLVMSRem
                    | LLVMOpcode::LLVMShl
                    | LLVMOpcode::LLVMLShr
                    | LLVMOpcode::LLVMAShr => true,
                    LLVMOpcode::LLVMAdd | LLVMOpcode::LLVMSub | LLVMOpcode::LLVMMul => {
                        LLVMGetNSW(inst) != 0
                    }
                    _ => false,
                };
                let ty = LLVMTypeOf(inst);
                let scalar = LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMIntegerTypeKind
                    && LLVMGetIntTypeWidth(ty) <= 128;
                if !checked || !scalar {
                    continue;
                }
                let next = LLVMGetNextInstruction(inst);
                if next.is_null() {
                    continue;
                }
                LLVMPositionBuilderBefore(builder, next);
                let store = LLVMBuildStore(builder, inst, sink);
                LLVMSetVolatile(store, 1);
            }
        }
    }
    LLVMDisposeBuilder(builder);
}

unsafe fn drop_poison_flags(inst: LLVMValueRef) {
    match raw::opcode(inst) {
        LLVMOpcode::LLVMAdd | LLVMOpcode::LLVMSub | LLVMOpcode::LLVMMul | LLVMOpcode::LLVMShl => {
            LLVMSetNSW(inst, 0);
            LLVMSetNUW(inst, 0);
        }
        LLVMOpcode::LLVMUDiv
        | LLVMOpcode::LLVMSDiv
        | LLVMOpcode::LLVMLShr
        | LLVMOpcode::LLVMAShr => {
            LLVMSetExact(inst, 0);
        }
        _ => {}
    }
}

unsafe fn strip_attributes(m: LLVMModuleRef) {
    let index = inkwell::llvm_sys::LLVMAttributeFunctionIndex;
    for func in raw::functions(m) {
        if !raw::is_defined(func) {
            continue;
        }
        for attr in ["optnone", "noinline"] {
            LLVMRemoveEnumAttributeAtIndex(func, index, enum_kind(attr));
        }
    }
}

/// Stores an arbitrary value (a call of `polyfocus.uninit.T`, which the lifter reads as an
/// arbitrary value) into every scalar leaf of every `alloca` of the entry block (integers,
/// pointers and floats of scalars, arrays and structs, nested), right after it.
///
/// Without it, a read of uninitialized memory is `undef`, and SROA may *refine* `undef`:
/// `phi [3, %a], [undef, %b]` becomes `3`, which drops executions where the local holds any
/// other value (C reads an indeterminate value; the benchmarks mean "any value"). With it,
/// the uninitialized value is one arbitrary value that LLVM cannot choose. The calls are
/// `memory(none) nounwind willreturn`, so `dce` deletes those whose store was dead.
///
/// An aggregate with more than [`MAX_UNINIT_LEAVES`] leaves, or with a leaf of another kind
/// (a vector), is passed to `polyfocus.uninit.memory` instead: an opaque call that may write
/// it, so SROA leaves it in memory, where every load is an arbitrary value. Allocas outside
/// the entry block are never promoted by SROA: their loads are arbitrary already.
unsafe fn initialize_locals(m: LLVMModuleRef, func: LLVMValueRef) {
    let entry = LLVMGetEntryBasicBlock(func);
    let allocas: Vec<LLVMValueRef> = raw::instructions(entry)
        .into_iter()
        .filter(|i| raw::opcode(*i) == LLVMOpcode::LLVMAlloca)
        .filter(|i| {
            LLVMIsConstant(LLVMGetOperand(*i, 0)) != 0
                && raw::const_int_bits(LLVMGetOperand(*i, 0)) == Some(1)
        })
        .collect();
    if allocas.is_empty() {
        return;
    }
    let ctx = LLVMGetModuleContext(m);
    let builder = LLVMCreateBuilderInContext(ctx);
    for alloca in allocas {
        // At the alloca, and where each lifetime starts again (the inliner marks the scope
        // of an inlined callee's locals: each call gets fresh, arbitrary ones).
        let mut starts = vec![alloca];
        starts.extend(lifetime_markers(alloca, "llvm.lifetime.start"));
        for start in starts {
            let next = LLVMGetNextInstruction(start);
            if next.is_null() {
                continue;
            }
            LLVMPositionBuilderBefore(builder, next);
            initialize(m, builder, alloca);
        }
    }
    LLVMDisposeBuilder(builder);
}

/// Arbitrary values for every leaf of `alloca`, at the builder's position.
unsafe fn initialize(m: LLVMModuleRef, builder: LLVMBuilderRef, alloca: LLVMValueRef) {
    let ctx = LLVMGetModuleContext(m);
    let ty = LLVMGetAllocatedType(alloca);
    let mut leaves = Vec::new();
    if scalar_leaves(ctx, ty, &mut vec![], &mut leaves) {
        for (path, leaf_ty) in leaves {
            store_arbitrary(m, builder, alloca, ty, &path, leaf_ty);
        }
    } else {
        havoc_memory(m, builder, alloca);
    }
}

/// The calls on `alloca` of the intrinsics named `prefix...` (`llvm.lifetime.start`, or
/// `llvm.lifetime.` for both ends).
pub(super) unsafe fn lifetime_markers(alloca: LLVMValueRef, prefix: &str) -> Vec<LLVMValueRef> {
    let mut res = Vec::new();
    let mut u = LLVMGetFirstUse(alloca);
    while !u.is_null() {
        let user = LLVMGetUser(u);
        if !LLVMIsACallInst(user).is_null()
            && raw::called_function(user).is_some_and(|f| raw::name(f).starts_with(prefix))
        {
            res.push(user);
        }
        u = LLVMGetNextUse(u);
    }
    res
}

/// An aggregate local with more scalar leaves than this stays in memory (loads arbitrary)
/// rather than getting one arbitrary store per leaf: a guard against growing a function by
/// thousands of stores.
const MAX_UNINIT_LEAVES: usize = 256;

/// Collects the scalar leaves of `ty` (each with its GEP index path below `path`); false when
/// there are too many or one is neither an integer, a pointer nor a float.
unsafe fn scalar_leaves(
    ctx: LLVMContextRef,
    ty: LLVMTypeRef,
    path: &mut Vec<LLVMValueRef>,
    leaves: &mut Vec<(Vec<LLVMValueRef>, LLVMTypeRef)>,
) -> bool {
    let i32_ty = LLVMInt32TypeInContext(ctx);
    match LLVMGetTypeKind(ty) {
        LLVMTypeKind::LLVMIntegerTypeKind
        | LLVMTypeKind::LLVMPointerTypeKind
        | LLVMTypeKind::LLVMHalfTypeKind
        | LLVMTypeKind::LLVMFloatTypeKind
        | LLVMTypeKind::LLVMDoubleTypeKind
        | LLVMTypeKind::LLVMX86_FP80TypeKind
        | LLVMTypeKind::LLVMFP128TypeKind => {
            leaves.push((path.clone(), ty));
            leaves.len() <= MAX_UNINIT_LEAVES
        }
        LLVMTypeKind::LLVMArrayTypeKind => {
            let n = LLVMGetArrayLength2(ty);
            if n > MAX_UNINIT_LEAVES as u64 {
                return false;
            }
            let element = LLVMGetElementType(ty);
            (0..n).all(|i| {
                path.push(LLVMConstInt(i32_ty, i, 0));
                let ok = scalar_leaves(ctx, element, path, leaves);
                path.pop();
                ok
            })
        }
        LLVMTypeKind::LLVMStructTypeKind => {
            let n = LLVMCountStructElementTypes(ty);
            (0..n).all(|i| {
                path.push(LLVMConstInt(i32_ty, i as u64, 0));
                let ok = scalar_leaves(ctx, LLVMStructGetTypeAtIndex(ty, i), path, leaves);
                path.pop();
                ok
            })
        }
        _ => false,
    }
}

/// `store polyfocus.uninit.T(), gep(alloca, 0, path...)` at the builder's position.
unsafe fn store_arbitrary(
    m: LLVMModuleRef,
    builder: LLVMBuilderRef,
    alloca: LLVMValueRef,
    alloca_ty: LLVMTypeRef,
    path: &[LLVMValueRef],
    leaf_ty: LLVMTypeRef,
) {
    let ctx = LLVMGetModuleContext(m);
    let type_name = LLVMPrintTypeToString(leaf_ty);
    let name = format!(
        "{UNINIT_PREFIX}{}",
        std::ffi::CStr::from_ptr(type_name).to_string_lossy()
    );
    LLVMDisposeMessage(type_name);
    let fn_ty = LLVMFunctionType(leaf_ty, std::ptr::null_mut(), 0, 0);
    let callee = uninit_function(
        m,
        &name,
        fn_ty,
        &[("memory", 0), ("nounwind", 0), ("willreturn", 0)],
    );
    let value = LLVMBuildCall2(
        builder,
        fn_ty,
        callee,
        std::ptr::null_mut(),
        0,
        c"".as_ptr(),
    );
    let target = if path.is_empty() {
        alloca
    } else {
        let mut indices = vec![LLVMConstInt(LLVMInt32TypeInContext(ctx), 0, 0)];
        indices.extend_from_slice(path);
        LLVMBuildInBoundsGEP2(
            builder,
            alloca_ty,
            alloca,
            indices.as_mut_ptr(),
            indices.len() as u32,
            c"".as_ptr(),
        )
    };
    LLVMBuildStore(builder, value, target);
}

/// `polyfocus.uninit.memory(alloca)` at the builder's position: an opaque call that may
/// write the whole local (its address escapes, so SROA keeps it in memory).
unsafe fn havoc_memory(m: LLVMModuleRef, builder: LLVMBuilderRef, alloca: LLVMValueRef) {
    let ctx = LLVMGetModuleContext(m);
    let mut params = [LLVMPointerTypeInContext(ctx, 0)];
    let fn_ty = LLVMFunctionType(LLVMVoidTypeInContext(ctx), params.as_mut_ptr(), 1, 0);
    let name = format!("{UNINIT_PREFIX}memory");
    let callee = uninit_function(m, &name, fn_ty, &[("nounwind", 0), ("willreturn", 0)]);
    let mut args = [alloca];
    LLVMBuildCall2(builder, fn_ty, callee, args.as_mut_ptr(), 1, c"".as_ptr());
}

/// The declaration of `name` with type `fn_ty` and these enum attributes (added once).
unsafe fn uninit_function(
    m: LLVMModuleRef,
    name: &str,
    fn_ty: LLVMTypeRef,
    attrs: &[(&str, u64)],
) -> LLVMValueRef {
    let cname = std::ffi::CString::new(name).expect("no NUL");
    let mut callee = LLVMGetNamedFunction(m, cname.as_ptr());
    if callee.is_null() {
        callee = LLVMAddFunction(m, cname.as_ptr(), fn_ty);
        let ctx = LLVMGetModuleContext(m);
        let index = inkwell::llvm_sys::LLVMAttributeFunctionIndex;
        for (attr, value) in attrs {
            let a = LLVMCreateEnumAttribute(ctx, enum_kind(attr), *value);
            LLVMAddAttributeAtIndex(callee, index, a);
        }
    }
    callee
}

/// Gives internal linkage to every defined function except `root` (a whole program that
/// starts in `root`: nothing outside the module calls them) and those the library may call
/// by name (the program's own `malloc`).
unsafe fn internalize_all_but(m: LLVMModuleRef, root: &str) {
    for func in raw::functions(m) {
        if !raw::is_defined(func) || raw::name(func) == root || reach::is_interposed(func) {
            continue;
        }
        match LLVMGetLinkage(func) {
            LLVMLinkage::LLVMAvailableExternallyLinkage
            | LLVMLinkage::LLVMInternalLinkage
            | LLVMLinkage::LLVMPrivateLinkage => {}
            _ => {
                LLVMSetLinkage(func, LLVMLinkage::LLVMInternalLinkage);
                LLVMSetVisibility(
                    func,
                    inkwell::llvm_sys::LLVMVisibility::LLVMDefaultVisibility,
                );
            }
        }
    }
}

/// Direct calls between defined functions: `caller -> callees`.
pub fn call_graph(m: LLVMModuleRef) -> HashMap<LLVMValueRef, Vec<LLVMValueRef>> {
    let mut res: HashMap<LLVMValueRef, Vec<LLVMValueRef>> = HashMap::new();
    for func in raw::functions(m) {
        if !raw::is_defined(func) {
            continue;
        }
        let callees = res.entry(func).or_default();
        for callee in call_sites(func) {
            if !callees.contains(&callee) {
                callees.push(callee);
            }
        }
    }
    res
}

unsafe fn mark_inlinable(m: LLVMModuleRef, limits: SizeLimits) {
    let graph = call_graph(m);
    let funcs: Vec<LLVMValueRef> = raw::functions(m)
        .into_iter()
        .filter(|f| raw::is_defined(*f))
        .collect();
    let mut g = DiGraph::<LLVMValueRef, ()>::new();
    let nodes: HashMap<LLVMValueRef, _> = funcs.iter().map(|f| (*f, g.add_node(*f))).collect();
    for (caller, callees) in &graph {
        for callee in callees {
            g.add_edge(nodes[caller], nodes[callee], ());
        }
    }
    // Inlining a small program whole is cheap; in a large one, a callee past the leaves is
    // analyzed once instead of in every caller (see `SizeLimits::whole_program`).
    let program: usize = funcs.iter().map(|f| raw::instruction_count(*f)).sum();
    let callee_limit = limits.callee(program);
    let mut recursive = HashSet::new();
    for scc in petgraph::algo::tarjan_scc(&g) {
        if scc.len() > 1 {
            recursive.extend(scc.iter().map(|n| g[*n]));
        } else if graph[&g[scc[0]]].contains(&g[scc[0]]) {
            recursive.insert(g[scc[0]]);
        }
    }
    // The size of each function once its inlinable callees are inlined, callees first
    // (Tarjan's order): the limit applies to that size, not to the function's own, or a
    // chain of callees each under the limit grows without bound as it is inlined level by
    // level (whole-library builds such as zstd's amalgamation reach gigabytes of IR).
    // A caller takes its inlinable callees in call order while it stays within
    // `limits.inline_caller`; a call that would take it past stays a call (`noinline` on the
    // call site), or a large function that calls many small ones grows without bound too.
    let ctx = LLVMGetModuleContext(m);
    let never = LLVMCreateEnumAttribute(ctx, enum_kind("noinline"), 0);
    let mut inlined_size: HashMap<LLVMValueRef, usize> = HashMap::new();
    let mut inlinable: HashSet<LLVMValueRef> = HashSet::new();
    for scc in petgraph::algo::tarjan_scc(&g) {
        for node in scc {
            let func = g[node];
            let mut size = raw::instruction_count(func);
            for call in raw::call_instructions(func) {
                let Some(callee) = raw::called_function(call).filter(|c| inlinable.contains(c))
                else {
                    continue;
                };
                let grown = size.saturating_add(inlined_size[&callee]);
                if grown <= limits.inline_caller {
                    size = grown;
                } else {
                    LLVMAddCallSiteAttribute(
                        call,
                        inkwell::llvm_sys::LLVMAttributeFunctionIndex,
                        never,
                    );
                }
            }
            inlined_size.insert(func, size);
            // A function the source marks `always_inline` (lz4's `LZ4_FORCE_INLINE`) is
            // inlined by LLVM whatever its size: when marks are followed it counts as
            // inlinable here, so that the caller limit applies to it too; otherwise its mark
            // goes when it is over the limit.
            let marked = marked_always_inline(func);
            if !recursive.contains(&func)
                && conventions::role(&raw::name(func), true).is_none()
                && (size <= callee_limit || (marked && limits.marked))
            {
                inlinable.insert(func);
            } else if marked {
                // LLVM's inliner would inline it on the mark alone.
                LLVMRemoveEnumAttributeAtIndex(
                    func,
                    inkwell::llvm_sys::LLVMAttributeFunctionIndex,
                    enum_kind("alwaysinline"),
                );
            }
        }
    }
    let always = LLVMCreateEnumAttribute(ctx, enum_kind("alwaysinline"), 0);
    for func in funcs {
        if inlinable.contains(&func) {
            LLVMAddAttributeAtIndex(func, inkwell::llvm_sys::LLVMAttributeFunctionIndex, always);
        }
    }
}

/// Whether the source marks `func` `always_inline`.
unsafe fn marked_always_inline(func: LLVMValueRef) -> bool {
    let index = inkwell::llvm_sys::LLVMAttributeFunctionIndex;
    !LLVMGetEnumAttributeAtIndex(func, index, enum_kind("alwaysinline")).is_null()
}

/// The defined function each call of `func` calls, once per call site.
fn call_sites(func: LLVMValueRef) -> Vec<LLVMValueRef> {
    raw::call_instructions(func)
        .filter_map(raw::called_function)
        .filter(|callee| raw::is_defined(*callee))
        .collect()
}

/// Replaces each integer global whose every use is a plain load or store in `root` by an
/// `alloca` in `root`'s entry block, initialized with the global's initial value.
///
/// Sound for a whole, closed program whose execution starts in `root` (which nothing
/// calls): the global's address does not escape, so no other code of the module can read or
/// write it, and the library writes none but its own (`optind`).
/// Whether the module has inline assembly: module-level, or a call of an `asm` block.
fn has_inline_asm(m: LLVMModuleRef) -> bool {
    let mut len = 0usize;
    // SAFETY: reads the module's inline assembly string length; the pointer is not kept.
    unsafe { LLVMGetModuleInlineAsm(m, &mut len) };
    len > 0
        || raw::functions(m)
            .into_iter()
            .any(|f| raw::call_instructions(f).any(raw::calls_inline_asm))
}

/// Stores, at the start of `root`, the initial value of every global it refers to that was
/// not made local, so that the memory model (`crate::memory`) starts from the initializers.
///
/// Sound under the conditions of [`localize_globals`] (a closed program whose execution
/// starts in `root`, which nothing calls, without inline assembly): nothing runs before
/// `root` but constructors, and with a constructor (an escaping function) the lifter gives
/// globals no base, so these stores only clobber. Constant globals are left out (a store to
/// one is undefined behaviour LLVM may act on): the lifter initializes them in every
/// function.
unsafe fn store_initial_values(m: LLVMModuleRef, root: LLVMValueRef) {
    let Some(first) = start_of_uncalled(root) else {
        return;
    };
    let used_in_root = |global: LLVMValueRef| {
        let mut u = LLVMGetFirstUse(global);
        while !u.is_null() {
            let user = LLVMGetUser(u);
            if !LLVMIsAInstruction(user).is_null()
                && LLVMGetBasicBlockParent(LLVMGetInstructionParent(user)) == root
            {
                return true;
            }
            if !LLVMIsAConstantExpr(user).is_null() {
                return true; // a constant address, possibly used in root
            }
            u = LLVMGetNextUse(u);
        }
        false
    };
    let ctx = LLVMGetModuleContext(m);
    let builder = LLVMCreateBuilderInContext(ctx);
    for global in raw::globals(m) {
        if LLVMIsDeclaration(global) != 0
            || LLVMIsThreadLocal(global) != 0
            || LLVMIsExternallyInitialized(global) != 0
            || library::is_library_global(&raw::name(global))
            || raw::name(global).starts_with("llvm.")
            || LLVMIsGlobalConstant(global) != 0
        {
            continue;
        }
        let init = LLVMGetInitializer(global);
        if init.is_null() || !used_in_root(global) {
            continue;
        }
        LLVMPositionBuilderBefore(builder, first);
        LLVMBuildStore(builder, init, global);
    }
    LLVMDisposeBuilder(builder);
}

/// The first instruction of `root` when nothing in the module calls it (or takes its
/// address): where what holds when the program starts can be written.
unsafe fn start_of_uncalled(root: LLVMValueRef) -> Option<LLVMValueRef> {
    if !LLVMGetFirstUse(root).is_null() {
        return None;
    }
    let first = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(root));
    (!first.is_null()).then_some(first)
}

/// Assumes `argc >= 1` at the start of `root`, the `main` of a closed program that nothing
/// in it calls (foreign code, which could call it with any `argc`, makes a program open):
/// the C runtime starts `main` with the program's name in `argv[0]` (Linux gives an empty
/// one to a program executed with an empty `argv`, since version 5.18), and every native
/// replay passes it. The C standard guarantees only `argc >= 0`.
unsafe fn assume_argc_at_least_one(m: LLVMModuleRef, root: LLVMValueRef) {
    let Some(first) = start_of_uncalled(root) else {
        return;
    };
    let Some(&argc) = raw::params(root).first() else {
        return;
    };
    let argc_ty = raw::type_of(argc);
    if raw::int_width(argc_ty).is_none() {
        return;
    }
    let ctx = LLVMGetModuleContext(m);
    let bool_ty = LLVMInt1TypeInContext(ctx);
    let mut params = [bool_ty];
    let assume_ty = LLVMFunctionType(LLVMVoidTypeInContext(ctx), params.as_mut_ptr(), 1, 0);
    let name = std::ffi::CString::new(conventions::RUNTIME_ASSUME).expect("no NUL in a name");
    let mut assume = LLVMGetNamedFunction(m, name.as_ptr());
    if assume.is_null() {
        assume = LLVMAddFunction(m, name.as_ptr(), assume_ty);
    }
    let builder = LLVMCreateBuilderInContext(ctx);
    LLVMPositionBuilderBefore(builder, first);
    let positive = LLVMBuildICmp(
        builder,
        LLVMIntPredicate::LLVMIntSGT,
        argc,
        LLVMConstInt(argc_ty, 0, 0),
        c"argc.positive".as_ptr(),
    );
    let mut args = [positive];
    LLVMBuildCall2(
        builder,
        assume_ty,
        assume,
        args.as_mut_ptr(),
        1,
        c"".as_ptr(),
    );
    LLVMDisposeBuilder(builder);
}

unsafe fn localize_globals(m: LLVMModuleRef, root: LLVMValueRef) {
    // A root that is called (recursively or from elsewhere) keeps its globals across calls.
    let Some(first) = start_of_uncalled(root) else {
        return;
    };
    let ctx = LLVMGetModuleContext(m);
    let builder = LLVMCreateBuilderInContext(ctx);
    for global in raw::globals(m) {
        if LLVMIsDeclaration(global) != 0
            || LLVMIsThreadLocal(global) != 0
            || LLVMIsExternallyInitialized(global) != 0
            || library::is_library_global(&raw::name(global))
        {
            continue;
        }
        let value_ty = LLVMGlobalGetValueType(global);
        if LLVMGetTypeKind(value_ty) != LLVMTypeKind::LLVMIntegerTypeKind {
            continue;
        }
        if matches!(LLVMGetLinkage(global), LLVMLinkage::LLVMCommonLinkage)
            && LLVMGetInitializer(global).is_null()
        {
            continue;
        }
        let init = LLVMGetInitializer(global);
        if init.is_null() || !only_loaded_and_stored_in(global, root, value_ty) {
            continue;
        }
        LLVMPositionBuilderBefore(builder, first);
        let name = std::ffi::CString::new(raw::name(global)).unwrap_or_default();
        let slot = LLVMBuildAlloca(builder, value_ty, name.as_ptr());
        LLVMBuildStore(builder, init, slot);
        LLVMReplaceAllUsesWith(global, slot);
    }
    LLVMDisposeBuilder(builder);
}

unsafe fn only_loaded_and_stored_in(
    global: LLVMValueRef,
    root: LLVMValueRef,
    value_ty: LLVMTypeRef,
) -> bool {
    let mut n_uses = 0;
    let mut u = LLVMGetFirstUse(global);
    while !u.is_null() {
        n_uses += 1;
        let user = LLVMGetUser(u);
        if LLVMIsAInstruction(user).is_null() {
            return false;
        }
        if LLVMGetBasicBlockParent(LLVMGetInstructionParent(user)) != root {
            return false;
        }
        match LLVMGetInstructionOpcode(user) {
            LLVMOpcode::LLVMLoad => {
                if LLVMGetVolatile(user) != 0 || LLVMTypeOf(user) != value_ty {
                    return false;
                }
            }
            LLVMOpcode::LLVMStore => {
                let stored = LLVMGetOperand(user, 0);
                if LLVMGetVolatile(user) != 0
                    || stored == global
                    || LLVMGetOperand(user, 1) != global
                    || LLVMTypeOf(stored) != value_ty
                {
                    return false;
                }
            }
            _ => return false,
        }
        u = LLVMGetNextUse(u);
    }
    n_uses > 0
}
