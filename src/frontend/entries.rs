//! Which functions are lifted as entries: the selected ones (the roots), then every other
//! function with an error site that may run otherwise than inlined into them, analyzed on
//! its own with arbitrary arguments and globals.
//!
//! The default selection (`main`, or every externally visible function of a library) and
//! any selection that names `main` stand for the whole execution of the program: every
//! function that may run at all is an entry (those whose address escapes, constructors and
//! destructors included, the program's definitions of library functions, and, in an open
//! program, every externally visible function; see [`reach`]).
//!
//! Any other named entry (`--entry f`) stands for the executions of a call of `f`: only
//! what they can run is an entry. That is `f`'s callees and, as soon as that code can call
//! what it does not name ([`MayRun::of_call`]: an indirect call, foreign code, a library
//! function that calls back), the functions it may so reach, with their own callees and
//! calls in turn. Constructors are not among them: they run before `main`, not during a
//! call of `f`, which starts from arbitrary globals whatever they wrote. Handlers that code
//! outside `f` registered before the call (a signal handler, a running thread) are that
//! code's: they are entries when it is analyzed, or with the default selection.
//!
//! The choice never changes a verdict of the roots' own checks: every function is lifted
//! and analyzed on its own, and the analysis of a call it does not inline never depends on
//! which functions are entries.

use std::collections::{BTreeSet, HashSet};

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::LLVMLinkage;
use inkwell::module::Module;

use super::conventions::{self, Role};
use super::reach::{self, Constructors, MayRun};
use super::{defined_functions, normalize, raw, EntrySelection, FrontendError};
use crate::ir;

/// The functions to lift, in order: the selected entries, then the extra entries in the
/// module's order.
pub(super) fn select(
    module: &Module<'_>,
    selection: &EntrySelection,
    checks: ir::CheckSelection,
) -> Result<Vec<LLVMValueRef>, FrontendError> {
    let m = module.as_mut_ptr();
    let defined = defined_functions(m);
    // Normalization may have deleted a selected function that nothing calls.
    check_defined(&defined, selection)?;
    let roots = roots(&defined, selection);
    let whole_program = matches!(selection, EntrySelection::Default)
        || roots.iter().any(|f| raw::name(*f) == "main");
    let open = !reach::foreign_functions(m).is_empty();
    let may_run = if whole_program {
        Reach::WholeProgram(MayRun::whole_program(open))
    } else {
        Reach::Calls
    };
    let reached = reached(m, &defined, &roots, may_run);
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

/// Gives external linkage to the functions `selection` names that are internal to their
/// unit: LLVM deletes an internal function once it is inlined into every caller, and a
/// `static` function named as an entry must stay to be analyzed. Its code and its callers'
/// are unchanged.
pub(super) fn keep_selected(defined: &[LLVMValueRef], selection: &EntrySelection) {
    let names = selection.names();
    for &func in defined {
        if !names.contains(&raw::name(func).as_str()) {
            continue;
        }
        // SAFETY: `func` is a function of the module being prepared.
        unsafe {
            if matches!(
                LLVMGetLinkage(func),
                LLVMLinkage::LLVMInternalLinkage | LLVMLinkage::LLVMPrivateLinkage
            ) {
                LLVMSetLinkage(func, LLVMLinkage::LLVMExternalLinkage);
            }
        }
    }
}

/// An error when a function `selection` names is not among the `defined` ones.
pub(super) fn check_defined(
    defined: &[LLVMValueRef],
    selection: &EntrySelection,
) -> Result<(), FrontendError> {
    for name in selection.names() {
        if !defined.iter().any(|f| raw::name(*f) == name) {
            let mut names: Vec<String> = defined.iter().map(|f| raw::name(*f)).collect();
            names.sort();
            return Err(FrontendError::UnknownEntry {
                name: name.to_string(),
                defined: names,
            });
        }
    }
    Ok(())
}

/// The selected functions, in the module's order.
fn roots(defined: &[LLVMValueRef], selection: &EntrySelection) -> Vec<LLVMValueRef> {
    match selection {
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
                return main;
            }
            defined
                .iter()
                .copied()
                .filter(|f| {
                    let name = raw::name(*f);
                    is_externally_visible(*f)
                        && conventions::role(&name, true).is_none()
                        && !conventions::is_wrapper(&name)
                })
                .collect()
        }
    }
}

/// What runs besides the roots and their callees.
#[derive(Clone, Copy)]
enum Reach {
    /// The whole program runs: these kinds of functions may all run, whatever the roots
    /// call.
    WholeProgram(MayRun),
    /// Calls of the roots run: what their code (and the code it reaches) may call.
    Calls,
}

/// The roots and every function that may run with them (see [`Reach`]), each with its
/// callees.
fn reached(
    m: LLVMModuleRef,
    defined: &[LLVMValueRef],
    roots: &[LLVMValueRef],
    reach: Reach,
) -> Vec<LLVMValueRef> {
    let constructors = Constructors::of(m);
    let graph = normalize::call_graph(m);
    let (mut may_run, follow_calls) = match reach {
        Reach::WholeProgram(kinds) => (kinds, false),
        Reach::Calls => (MayRun::default(), true),
    };
    // Each function runs with arbitrary arguments and globals.
    let runs = |f: LLVMValueRef, kinds: MayRun| {
        conventions::role(&raw::name(f), true).is_none()
            && ((kinds.escaped && constructors.escapes_otherwise(f))
                || (kinds.constructors && constructors.lists(f))
                || (kinds.interposed && reach::is_interposed(f))
                || (kinds.external && is_externally_visible(f)))
    };
    let mut reached: Vec<LLVMValueRef> = roots.to_vec();
    let mut seen: HashSet<LLVMValueRef> = reached.iter().copied().collect();
    let mut added = MayRun::default();
    let mut idx = 0;
    loop {
        // Kinds newly known to run: their functions join, in the module's order.
        if may_run != added {
            added = may_run;
            for &func in defined {
                if !seen.contains(&func) && runs(func, added) {
                    seen.insert(func);
                    reached.push(func);
                }
            }
        }
        if idx == reached.len() {
            return reached;
        }
        let func = reached[idx];
        idx += 1;
        for callee in graph.get(&func).map(Vec::as_slice).unwrap_or_default() {
            if conventions::role(&raw::name(*callee), true).is_none() && seen.insert(*callee) {
                reached.push(*callee);
            }
        }
        if follow_calls {
            may_run = raw::call_instructions(func)
                .map(MayRun::of_call)
                .fold(may_run, MayRun::union);
        }
    }
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
