//! Which called functions mean something to the analysis, by name.
//!
//! | role | names | defined in the input? |
//! |---|---|---|
//! | error site ([`Role::Error`]) | `reach_error`, `__VERIFIER_error`, `__assert_fail`, `__assert`, `__assert_rtn`, `__assert_perror_fail` | always (the call is the event; their body is not analyzed) |
//! | end of path ([`Role::Stop`]) | `abort`, `exit`, `_exit`, `_Exit`, `llvm.trap`; `__assumption_declared` (PAGAI), `__VERIFIER_silent_exit` | always / only when declared |
//! | nondet input ([`Role::Nondet`]) | `__VERIFIER_nondet_*`, `polyfocus_nondet_*`, `__ikos_nondet_*`, `nondet_*`, `nondet`, `unknown*` | only when declared |
//! | assertion ([`Role::Assert`]) | `__ikos_assert`, `polyfocus_assert`, `__VERIFIER_assert`, `assert` | only when declared |
//! | assumption ([`Role::Assume`]) | `__VERIFIER_assume`, `polyfocus_assume`, `assume`, `assume_abort_if_not`, `__VERIFIER_assume_abort_if_not`; `polyfocus.assume` (inserted by `normalize`) | only when declared |
//!
//! A function with a role is never inlined and never an entry: its calls are interpreted.
//! Only the error functions (whose call is what the property forbids) and the C library's
//! ends of execution keep their role when the input defines them: any other convention
//! function with a body is the program's own function, analyzed (inlined) and replayed as
//! written. A program that defines `__VERIFIER_nondet_int` to return 5 gets 5, both in the
//! analysis and in the native replay.

/// Prefix of the functions that give uninitialized locals their arbitrary initial value
/// (`polyfocus.uninit.i32`, ..., and `polyfocus.uninit.memory`), which `normalize` inserts;
/// not a C identifier, so no clash with user code.
pub const UNINIT_PREFIX: &str = "polyfocus.uninit.";

/// The global that `normalize` stores every operation a runtime check instruments into
/// (volatile), so that LLVM's passes keep the operation when its result is otherwise
/// unused; the lifter drops those stores (see `normalize::keep_checked_operations`).
pub const KEEP_SINK: &str = "polyfocus.keep";

/// The function `normalize` passes an aggregate local too large to initialize leaf by
/// leaf: its bytes are arbitrary.
pub const UNINIT_MEMORY: &str = "polyfocus.uninit.memory";

/// The assumption `normalize` inserts for facts of the C runtime (`argc >= 1` at the start
/// of `main`); not a C identifier, so never the program's own function.
pub const RUNTIME_ASSUME: &str = "polyfocus.assume";

/// Whether `name` is one of the functions `normalize` inserts for uninitialized locals:
/// its result is arbitrary, and it is not program code.
pub fn is_uninit_initializer(name: &str) -> bool {
    name.starts_with(UNINIT_PREFIX)
}

/// What a call of a function means.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Role {
    /// Returns an arbitrary value of its return type.
    Nondet,
    /// Reaching the call violates an assertion.
    Error,
    /// The first argument must be non-zero, else an assertion is violated.
    Assert,
    /// Executions where the first argument is zero end silently.
    Assume,
    /// The execution ends without error.
    Stop,
}

/// The role of a function called `name`; `defined` tells whether the input has its body.
pub fn role(name: &str, defined: bool) -> Option<Role> {
    match name {
        "reach_error"
        | "__VERIFIER_error"
        | "__assert_fail"
        | "__assert"
        | "__assert_rtn"
        | "__assert_perror_fail" => return Some(Role::Error),
        "abort" | "exit" | "_exit" | "_Exit" | "llvm.trap" => return Some(Role::Stop),
        RUNTIME_ASSUME => return Some(Role::Assume),
        _ => {}
    }
    if defined {
        return None;
    }
    declared_role(name)
}

/// The role of a convention function the input only declares.
fn declared_role(name: &str) -> Option<Role> {
    match name {
        "__ikos_assert" | "polyfocus_assert" | "__VERIFIER_assert" | "assert" => Some(Role::Assert),
        "__VERIFIER_assume"
        | "polyfocus_assume"
        | "assume"
        | "assume_abort_if_not"
        | "__VERIFIER_assume_abort_if_not" => Some(Role::Assume),
        "__assumption_declared" | "__VERIFIER_silent_exit" => Some(Role::Stop),
        _ if name.starts_with("__VERIFIER_nondet")
            || name.starts_with("polyfocus_nondet")
            || name.starts_with("__ikos_nondet")
            || name == "nondet"
            || name.starts_with("nondet_")
            || name.starts_with("unknown") =>
        {
            Some(Role::Nondet)
        }
        _ => None,
    }
}

/// Assertion and assumption functions the input defines itself (`__VERIFIER_assert`,
/// `assume`, `polyfocus_assert`, ...), and `unknown`: inlined, never an entry of their own,
/// and skipped when locating a check (the location of an assertion is the call of the
/// wrapper, not the error call inside it).
pub fn is_wrapper(name: &str) -> bool {
    name == "unknown" || matches!(declared_role(name), Some(Role::Assert | Role::Assume))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles() {
        assert_eq!(role("reach_error", true), Some(Role::Error));
        assert_eq!(role("__VERIFIER_assert", true), None);
        assert_eq!(role("__VERIFIER_assert", false), Some(Role::Assert));
        assert_eq!(role("__VERIFIER_nondet_uchar", false), Some(Role::Nondet));
        assert_eq!(role("__VERIFIER_nondet_int", true), None);
        assert_eq!(role("polyfocus_assume", true), None);
        assert_eq!(role("polyfocus_assert", false), Some(Role::Assert));
        assert_eq!(role("reach_error", false), Some(Role::Error));
        assert_eq!(role("exit", true), Some(Role::Stop));
        assert!(is_wrapper("polyfocus_assert"));
        assert!(!is_wrapper("reach_error"));
        assert_eq!(role("unknown", true), None);
        assert_eq!(role("unknown", false), Some(Role::Nondet));
        assert_eq!(role("abort", false), Some(Role::Stop));
        assert_eq!(role("assume_abort_if_not", false), Some(Role::Assume));
        assert_eq!(role("printf", false), None);
        assert_eq!(role(RUNTIME_ASSUME, false), Some(Role::Assume));
    }
}
