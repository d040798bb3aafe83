//! Checks in inlined copies of a function's code: a copy holds when the function it came
//! from, analyzed on its own, proves the check in its own code.
//!
//! A function analyzed on its own starts from arbitrary arguments and arbitrary memory
//! (globals, and its parameters' objects, which may alias each other and the globals; only
//! the root of a program starts from the initial globals, and nothing inlines it), so its
//! analysis covers every call of it, those whose body was inlined included. When every
//! check of one kind at one location of its own code is proved, the same check in a copy of
//! that code inlined into another function holds too, whatever that function's analysis
//! concluded (a large caller often ends at its budget first). A copy is recognised by the
//! debug info ([`crate::ir::CodeOrigins`]): its location comes from exactly one function
//! still in the module, and is only that function's own code there, so that the code of a
//! header's `static inline` function compiled in two units, or of a function inlined
//! everywhere and deleted, is never taken for another's. A violated copy stays violated: a
//! native replay confirmed it.

use crate::check::{CheckResult, Verdict};
use crate::ir::{CheckKind, Module, SourceLoc};
use std::collections::HashMap;

/// Settles as proved the open (`unknown` or `holds if`) checks of `results` in inlined
/// copies whose function proves them in its own code; returns how many.
pub(super) fn settle_copies(module: &Module, results: &mut [CheckResult]) -> usize {
    // The checks of each function's own code, by location: their kinds, whether all of
    // that kind are proved, and whether all are the function's own code only.
    let mut own: HashMap<(&str, &SourceLoc), Vec<(&CheckKind, bool)>> = HashMap::new();
    for r in results.iter() {
        let Some(at) = &r.loc else { continue };
        let only_own = module
            .origins
            .get(&r.function)
            .is_some_and(|o| o.only_own(at));
        let proved = only_own && r.verdict == Verdict::Proved;
        let kinds = own.entry((r.function.as_str(), at)).or_default();
        match kinds.iter_mut().find(|(k, _)| **k == r.kind) {
            Some((_, all)) => *all &= proved,
            None => kinds.push((&r.kind, proved)),
        }
    }
    let mut settled = Vec::new();
    for (i, r) in results.iter().enumerate() {
        if !matches!(r.verdict, Verdict::Unknown(_) | Verdict::HoldsIf(_)) {
            continue;
        }
        let Some(at) = &r.loc else { continue };
        let Some(from) = module
            .origins
            .get(&r.function)
            .and_then(|o| o.only_copy_of(at))
        else {
            continue;
        };
        if from == r.function {
            continue;
        }
        let proved_there = own
            .get(&(from, at))
            .and_then(|kinds| kinds.iter().find(|(k, _)| **k == r.kind))
            .is_some_and(|(_, all)| *all);
        if proved_there {
            settled.push(i);
        }
    }
    for &i in &settled {
        results[i].verdict = Verdict::Proved;
    }
    settled.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::UnknownReason;
    use crate::ir::{CheckId, CodeOrigins, UNKNOWN_ORIGIN};

    fn at(line: u32) -> SourceLoc {
        SourceLoc {
            file: "lib.c".into(),
            line,
            column: 3,
        }
    }

    fn result(id: u32, function: &str, line: u32, verdict: Verdict) -> CheckResult {
        CheckResult {
            check: CheckId(id),
            kind: CheckKind::Overflow {
                op: crate::ir::BinOp::Add,
            },
            loc: Some(at(line)),
            function: function.into(),
            verdict,
        }
    }

    fn unknown() -> Verdict {
        Verdict::Unknown(UnknownReason::Imprecise)
    }

    /// `helper`'s own code at line 5; `caller` holds a copy of it, `other` a copy of a
    /// function no longer in the module at line 7.
    fn module() -> Module {
        let mut m = Module::default();
        let mut helper = CodeOrigins::default();
        helper.own.insert(at(5));
        let mut caller = CodeOrigins::default();
        caller
            .inlined
            .entry(at(5))
            .or_default()
            .insert("helper".into());
        caller.own.insert(at(9));
        let mut other = CodeOrigins::default();
        other
            .inlined
            .entry(at(7))
            .or_default()
            .insert(UNKNOWN_ORIGIN.into());
        m.origins.insert("helper".into(), helper);
        m.origins.insert("caller".into(), caller);
        m.origins.insert("other".into(), other);
        m
    }

    #[test]
    fn a_copy_of_code_its_function_proves_holds() {
        let mut results = vec![
            result(0, "helper", 5, Verdict::Proved),
            result(1, "caller", 5, unknown()),
        ];
        assert_eq!(settle_copies(&module(), &mut results), 1);
        assert_eq!(results[1].verdict, Verdict::Proved);
    }

    #[test]
    fn a_copy_stays_open_when_its_function_does_not_prove_it() {
        let mut results = vec![
            result(0, "helper", 5, Verdict::Proved),
            result(1, "helper", 5, unknown()),
            result(2, "caller", 5, unknown()),
        ];
        assert_eq!(settle_copies(&module(), &mut results), 0);
        assert!(matches!(results[2].verdict, Verdict::Unknown(_)));
    }

    #[test]
    fn code_of_a_deleted_function_or_the_callers_own_code_is_no_copy() {
        let mut results = vec![
            result(0, "helper", 7, Verdict::Proved),
            result(1, "other", 7, unknown()),
            result(2, "helper", 9, Verdict::Proved),
            result(3, "caller", 9, unknown()),
        ];
        assert_eq!(settle_copies(&module(), &mut results), 0);
    }

    #[test]
    fn a_check_of_another_kind_at_the_same_place_is_not_settled() {
        let mut copy = result(1, "caller", 5, unknown());
        copy.kind = CheckKind::DivByZero {
            op: crate::ir::BinOp::SDiv,
        };
        let mut results = vec![result(0, "helper", 5, Verdict::Proved), copy];
        assert_eq!(settle_copies(&module(), &mut results), 0);
    }
}
