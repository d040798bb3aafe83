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
//! - During a call of a named entry (`--entry f`) only what its code can call runs besides
//!   it: what each call instruction may run is [`MayRun::of_call`]; constructors run before
//!   `main` ([`Constructors`]), never during a call.

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

/// The constructors of a module, the functions `llvm.global_ctors` lists: they run when the
/// program (or the shared object) starts, before `main`, and never during a call of a
/// function of the program.
pub struct Constructors {
    /// The elements of `llvm.global_ctors`: `{ priority, function, data }`.
    elements: HashSet<LLVMValueRef>,
}

impl Constructors {
    /// The constructors of `m`.
    pub fn of(m: LLVMModuleRef) -> Constructors {
        let mut elements = HashSet::new();
        // SAFETY: `m` is a live module; a global's initializer is a constant (or null).
        unsafe {
            let list = LLVMGetNamedGlobal(m, c"llvm.global_ctors".as_ptr());
            let init = if list.is_null() {
                std::ptr::null_mut()
            } else {
                LLVMGetInitializer(list)
            };
            if !init.is_null() {
                for i in 0..raw::num_operands(init) {
                    elements.insert(raw::operand(init, i));
                }
            }
        }
        Constructors { elements }
    }

    /// Whether `func` is listed as a constructor.
    pub fn lists(&self, func: LLVMValueRef) -> bool {
        users(func).any(|user| self.elements.contains(&user))
    }

    /// Whether `func`'s address escapes otherwise than into the list of constructors (see
    /// [`escapes`]): `escapes(f)` is `lists(f) || escapes_otherwise(f)`.
    pub fn escapes_otherwise(&self, func: LLVMValueRef) -> bool {
        // SAFETY: the uses of a live function.
        unsafe {
            let mut u = LLVMGetFirstUse(func);
            while !u.is_null() {
                if !is_callee_use(u) && !self.elements.contains(&LLVMGetUser(u)) {
                    return true;
                }
                u = LLVMGetNextUse(u);
            }
            false
        }
    }
}

/// The users of `value`, once per use.
fn users(value: LLVMValueRef) -> impl Iterator<Item = LLVMValueRef> {
    // SAFETY: the uses of a live value.
    let mut u = unsafe { LLVMGetFirstUse(value) };
    std::iter::from_fn(move || {
        if u.is_null() {
            return None;
        }
        let user = unsafe { LLVMGetUser(u) };
        u = unsafe { LLVMGetNextUse(u) };
        Some(user)
    })
}

/// The functions of a program that may run besides the direct callees of the code that
/// runs, by kind. A set of kinds: [`MayRun::of_call`] says which a call instruction may run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MayRun {
    /// The functions whose address escapes otherwise than into the list of constructors:
    /// an indirect call may call them, and so may foreign code, the library functions that
    /// call back and `exit` (handlers given to `atexit`, destructors).
    pub escaped: bool,
    /// The constructors ([`Constructors`]): only the start of the program runs them.
    pub constructors: bool,
    /// Every externally visible function: foreign code may call it by name.
    pub external: bool,
    /// The program's own definitions of library functions ([`is_interposed`]): the
    /// library may call them.
    pub interposed: bool,
}

impl MayRun {
    /// What may run in a whole execution of a program: everything that escapes, the
    /// constructors before `main`, and, in an `open` program, every externally visible
    /// function.
    pub fn whole_program(open: bool) -> MayRun {
        MayRun {
            escaped: true,
            constructors: true,
            external: open,
            interposed: true,
        }
    }

    /// Both sets.
    pub fn union(self, other: MayRun) -> MayRun {
        MayRun {
            escaped: self.escaped || other.escaped,
            constructors: self.constructors || other.constructors,
            external: self.external || other.external,
            interposed: self.interposed || other.interposed,
        }
    }

    /// What `call` (any instruction: only calls run code) may run besides the body of
    /// a defined function it calls directly. A call of foreign code may run anything the
    /// program exports or gave away; a call of the library runs the program's definitions
    /// of library functions, and the escaped functions when it calls back.
    pub fn of_call(call: LLVMValueRef) -> MayRun {
        let is_call = matches!(
            raw::opcode(call),
            LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke | LLVMOpcode::LLVMCallBr
        );
        if !is_call || raw::calls_inline_asm(call) {
            return MayRun::default();
        }
        let Some(callee) = raw::called_function(call) else {
            return MayRun {
                escaped: true,
                ..MayRun::default()
            };
        };
        if raw::is_defined(callee) {
            return MayRun::default();
        }
        let name = raw::name(callee);
        if is_foreign(&name) {
            MayRun {
                escaped: true,
                constructors: false,
                external: true,
                interposed: true,
            }
        } else if library::invokes_callbacks(&name) || RUNS_EXIT_HANDLERS.contains(&name.as_str()) {
            MayRun {
                escaped: true,
                interposed: true,
                ..MayRun::default()
            }
        } else if library::is_library_function(&name) {
            MayRun {
                interposed: true,
                ..MayRun::default()
            }
        } else {
            MayRun::default()
        }
    }
}

/// Functions that end the program (or the thread) after running the handlers registered
/// with `atexit` (or `pthread_key_create`) and the destructors.
const RUNS_EXIT_HANDLERS: &[&str] = &["exit", "quick_exit", "pthread_exit", "thrd_exit"];

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

/// Interfaces that run a function they are given asynchronously to the caller: a signal
/// handler, a thread, a timer or notification thread.
const ASYNC_STARTERS: [&str; 13] = [
    "signal",
    "sigaction",
    "sigset",
    "bsd_signal",
    "sysv_signal",
    "pthread_create",
    "thrd_create",
    "timer_create",
    "mq_notify",
    "aio_read",
    "aio_write",
    "lio_listio",
    "clone",
];

/// Whether a function of the module may run between two instructions of an entry: one
/// whose address escapes, when the module refers to an interface that starts asynchronous
/// code ([`ASYNC_STARTERS`]), has constructors (they run before `main`), or calls foreign
/// code (which may start anything). A function whose address escapes otherwise (a table
/// of handlers, a comparator) runs only within a call, which clobbers what it may write.
pub fn may_run_asynchronously(m: LLVMModuleRef) -> bool {
    let functions = raw::functions(m);
    if !functions.iter().any(|&f| raw::is_defined(f) && escapes(f)) {
        return false;
    }
    let starts_async = functions.iter().any(|&f| {
        !raw::is_defined(f)
            && unsafe { !LLVMGetFirstUse(f).is_null() }
            && ASYNC_STARTERS.contains(&raw::name(f).as_str())
    });
    starts_async || !Constructors::of(m).elements.is_empty() || !foreign_functions(m).is_empty()
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
        || super::ubsan::is_handler(name)
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
