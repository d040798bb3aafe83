//! The functions whose returned integers a summary may describe (`driver::contracts`): the
//! defined functions that some call of the program still calls (the inliner left it a
//! call), outside every recursive cycle, returning an integer. They are listed callees
//! first, so that each one's summary can assume those of the functions it calls.

use std::collections::HashSet;

use inkwell::llvm_sys::core::LLVMGetLinkage;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::LLVMLinkage;

use super::normalize;
use super::raw;
use super::reach;
use super::recursion;

/// The functions of `m` whose returns a summary may describe (see the module docs), callees
/// first; `excluded` names functions left out (over the front end's budget).
pub(super) fn targets(m: LLVMModuleRef, excluded: &HashSet<String>) -> Vec<LLVMValueRef> {
    let graph = normalize::call_graph(m);
    let called: HashSet<LLVMValueRef> = graph.values().flatten().copied().collect();
    let recursive: HashSet<LLVMValueRef> =
        recursion::scope(m, false).recursive.into_iter().collect();
    let qualifies = |f: LLVMValueRef| {
        called.contains(&f)
            && !recursive.contains(&f)
            && raw::name(f) != "main"
            && !excluded.contains(&raw::name(f))
            && !replaceable(f)
            && !reach::is_interposed(f)
            && reach::returns_twice_callee(f).is_none()
            && recursion::returns_int_of(f, |w| (1..=64).contains(&w))
    };
    // Depth-first, callees before callers (the graph outside recursive cycles is acyclic).
    let mut order = Vec::new();
    let mut seen: HashSet<LLVMValueRef> = HashSet::new();
    for root in raw::functions(m)
        .into_iter()
        .filter(|f| raw::is_defined(*f))
    {
        let mut stack = vec![(root, false)];
        while let Some((f, done)) = stack.pop() {
            if done {
                if qualifies(f) {
                    order.push(f);
                }
                continue;
            }
            if !seen.insert(f) {
                continue;
            }
            stack.push((f, true));
            for &callee in graph.get(&f).into_iter().flatten().rev() {
                if raw::is_defined(callee) && !seen.contains(&callee) {
                    stack.push((callee, false));
                }
            }
        }
    }
    order
}

/// Whether the linker may bind calls of `f` to another definition than this one (a weak
/// definition, `__attribute__((weak))`): its body then says nothing of what a call returns.
fn replaceable(f: LLVMValueRef) -> bool {
    // SAFETY: `f` is a live function.
    let linkage = unsafe { LLVMGetLinkage(f) };
    matches!(
        linkage,
        LLVMLinkage::LLVMWeakAnyLinkage
            | LLVMLinkage::LLVMLinkOnceAnyLinkage
            | LLVMLinkage::LLVMExternalWeakLinkage
            | LLVMLinkage::LLVMCommonLinkage
            | LLVMLinkage::LLVMAvailableExternallyLinkage
    )
}
