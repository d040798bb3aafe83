//! Which called functions mean something to the analysis, by name.
//!
//! | role | names | defined in the input? |
//! |---|---|---|
//! | nondet input ([`Role::Nondet`]) | `__VERIFIER_nondet_*`, `polyfocus_nondet_*`, `__ikos_nondet_*`, `nondet_*`, `nondet`; `unknown*` | always / only when declared (`nondet*`, `unknown*`) |
//! | error site ([`Role::Error`]) | `reach_error`, `__VERIFIER_error`, `__assert_fail`, `__assert`, `__assert_rtn`, `__assert_perror_fail` | always (their body is not analyzed) |
//! | assertion ([`Role::Assert`]) | `__ikos_assert`, `polyfocus_assert`; `__VERIFIER_assert`, `assert` | always / only when declared (a defined one is inlined) |
//! | assumption ([`Role::Assume`]) | `__VERIFIER_assume`, `polyfocus_assume`; `assume`, `assume_abort_if_not`, `__VERIFIER_assume_abort_if_not` | always / only when declared |
//! | end of path ([`Role::Stop`]) | `abort`, `exit`, `_exit`, `_Exit`, `__assumption_declared` (PAGAI), `__VERIFIER_silent_exit`, `llvm.trap` | always |
//!
//! A function with a role is never inlined and never an entry: its calls are interpreted.

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
        "__ikos_assert" | "polyfocus_assert" => return Some(Role::Assert),
        "__VERIFIER_assume" | "polyfocus_assume" => return Some(Role::Assume),
        "abort"
        | "exit"
        | "_exit"
        | "_Exit"
        | "__assumption_declared"
        | "__VERIFIER_silent_exit"
        | "llvm.trap" => return Some(Role::Stop),
        _ => {}
    }
    if name.starts_with("__VERIFIER_nondet")
        || name.starts_with("polyfocus_nondet")
        || name.starts_with("__ikos_nondet")
    {
        return Some(Role::Nondet);
    }
    if defined {
        return None;
    }
    match name {
        "__VERIFIER_assert" | "assert" => Some(Role::Assert),
        "assume" | "assume_abort_if_not" | "__VERIFIER_assume_abort_if_not" => Some(Role::Assume),
        _ if name == "nondet" || name.starts_with("nondet_") || name.starts_with("unknown") => {
            Some(Role::Nondet)
        }
        _ => None,
    }
}

/// Functions that only wrap a convention (`__VERIFIER_assert`, `assume`, ...): inlined
/// when defined, never an entry of their own, and skipped when locating a check (the
/// location of an assertion is the call of the wrapper, not the error call inside it).
pub fn is_wrapper(name: &str) -> bool {
    matches!(
        name,
        "__VERIFIER_assert"
            | "assert"
            | "assume"
            | "assume_abort_if_not"
            | "__VERIFIER_assume_abort_if_not"
            | "unknown"
    )
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
        assert_eq!(role("unknown", true), None);
        assert_eq!(role("unknown", false), Some(Role::Nondet));
        assert_eq!(role("abort", false), Some(Role::Stop));
        assert_eq!(role("assume_abort_if_not", false), Some(Role::Assume));
        assert_eq!(role("printf", false), None);
    }
}
