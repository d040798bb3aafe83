//! Which code can run besides the entry and its callees.
//!
//! - A function whose address escapes (a handler given to `atexit` or `signal`, a `qsort`
//!   comparator, a thread's start routine, a constructor in `llvm.global_ctors`, a static
//!   function stored in a table or returned) can run at any time: it is analyzed as an entry
//!   of its own, with arbitrary arguments and globals.
//! - An undefined function that is neither a convention nor the library ([`library`]) is
//!   *foreign*: program code that was not given. It may call the externally visible
//!   functions of the module and write its external globals, so a program that refers to
//!   one is *open*: no function is made internal and only internal globals are localized.
//! - An error function whose address escapes may be called by any indirect call whose target
//!   is not known, and by foreign or callback-taking code: each such call is an error site
//!   ([`may_call_escaped_error`]).
//! - A function that calls a function returning twice (`setjmp`, `vfork`) does not follow
//!   the sequential semantics the lifted program has: its assertions are not decided.

use std::collections::HashSet;

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::LLVMOpcode;

use super::conventions::{self, Role};
use super::library;
use super::raw;

/// Whether `func`'s address is used otherwise than as the callee of a direct call: stored,
/// passed, returned, compared, or in a constant (a table, `llvm.global_ctors`).
pub fn escapes(func: LLVMValueRef) -> bool {
    unsafe {
        let mut u = LLVMGetFirstUse(func);
        while !u.is_null() {
            if !is_callee_use(u) {
                return true;
            }
            u = LLVMGetNextUse(u);
        }
        false
    }
}

/// Whether the use `u` is the callee operand of a call (not one of its arguments).
unsafe fn is_callee_use(u: LLVMUseRef) -> bool {
    let user = LLVMGetUser(u);
    if LLVMIsACallInst(user).is_null() && LLVMIsAInvokeInst(user).is_null() {
        return false;
    }
    let n = LLVMGetNumOperands(user);
    // The callee is the last operand of a call or invoke.
    n > 0 && LLVMGetOperandUse(user, (n - 1) as u32) == u
}

/// The defined functions the library may call by name: the program defines a library
/// function (its own `malloc`), which the library's own calls reach.
pub fn is_interposed(func: LLVMValueRef) -> bool {
    raw::is_defined(func) && library::is_library_function(&raw::name(func))
}

/// The foreign functions the module refers to (see the module docs), sorted: empty when
/// the program is closed.
pub fn foreign_functions(m: LLVMModuleRef) -> Vec<String> {
    let mut res: Vec<String> = raw::functions(m)
        .into_iter()
        .filter(|f| !raw::is_defined(*f) && unsafe { !LLVMGetFirstUse(*f).is_null() })
        .map(raw::name)
        .filter(|name| is_foreign(name))
        .collect();
    res.sort();
    res
}

/// Whether an undefined function called `name` may be program code that was not given.
fn is_foreign(name: &str) -> bool {
    !(name.starts_with("llvm.")
        || conventions::is_uninit_initializer(name)
        || conventions::role(name, false).is_some()
        || library::is_library_function(name))
}

/// The first error (or assertion) function, in module order, whose address escapes.
pub fn escaped_error_function(m: LLVMModuleRef) -> Option<String> {
    raw::functions(m)
        .into_iter()
        .find(|f| {
            matches!(
                conventions::role(&raw::name(*f), raw::is_defined(*f)),
                Some(Role::Error) | Some(Role::Assert)
            ) && escapes(*f)
        })
        .map(raw::name)
}

/// Whether `call` may call an error function whose address escaped: an indirect call
/// whose possible targets are not all known functions without a role, or a call of
/// foreign code or of a library function that calls back.
pub fn may_call_escaped_error(call: LLVMValueRef) -> bool {
    if !matches!(
        raw::opcode(call),
        LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke
    ) {
        return false;
    }
    match raw::called_function(call) {
        Some(callee) => {
            let name = raw::name(callee);
            !raw::is_defined(callee) && (is_foreign(&name) || library::invokes_callbacks(&name))
        }
        None => {
            let called = unsafe { LLVMGetCalledValue(call) };
            may_be_error_function(called, &mut HashSet::new())
        }
    }
}

/// Whether a pointer may hold an error function: it is one, or it is not made of known
/// functions only (through `phi` and `select`).
fn may_be_error_function(value: LLVMValueRef, seen: &mut HashSet<LLVMValueRef>) -> bool {
    if seen.len() > 64 {
        return true; // too many to follow: assume the worst
    }
    if !seen.insert(value) {
        return false; // a cycle of phis adds no target
    }
    unsafe {
        if !LLVMIsAFunction(value).is_null() {
            return matches!(
                conventions::role(&raw::name(value), raw::is_defined(value)),
                Some(Role::Error) | Some(Role::Assert)
            );
        }
        if !LLVMIsAPHINode(value).is_null() {
            return raw::incomings(value)
                .into_iter()
                .any(|(v, _)| may_be_error_function(v, seen));
        }
        if !LLVMIsASelectInst(value).is_null() {
            return may_be_error_function(raw::operand(value, 1), seen)
                || may_be_error_function(raw::operand(value, 2), seen);
        }
        // Loaded, passed as an argument, computed: any escaped function.
        true
    }
}

/// The function that returns twice called by `func` (`setjmp`), if any.
pub fn returns_twice_callee(func: LLVMValueRef) -> Option<String> {
    const RETURNS_TWICE: &[&str] = &[
        "setjmp",
        "_setjmp",
        "sigsetjmp",
        "__sigsetjmp",
        "savectx",
        "vfork",
        "getcontext",
    ];
    let kind = unsafe { LLVMGetEnumAttributeKindForName(c"returns_twice".as_ptr(), 13) };
    let index = inkwell::llvm_sys::LLVMAttributeFunctionIndex;
    for inst in raw::call_instructions(func) {
        let at_call = unsafe { !LLVMGetCallSiteEnumAttribute(inst, index, kind).is_null() };
        let callee = raw::called_function(inst);
        let name = callee.map(raw::name);
        let declared = callee
            .is_some_and(|f| unsafe { !LLVMGetEnumAttributeAtIndex(f, index, kind).is_null() });
        if at_call || declared || name.as_deref().is_some_and(|n| RETURNS_TWICE.contains(&n)) {
            return Some(name.unwrap_or_else(|| "<indirect>".into()));
        }
    }
    None
}
