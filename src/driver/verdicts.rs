//! The table of verdicts of one function's assertions, which the stages of the pipeline
//! fill in.
//!
//! **Invariant (monotonicity):** a stage may only settle an open assertion, as proved or as
//! violated; a settled verdict is final. The table has no operation that reopens or
//! changes a settled verdict: [`VerdictTable::prove`] and [`VerdictTable::refute`] refuse a
//! settled assertion (an error, and a failed debug assertion, since no stage should try).
//! So no later stage can lose a proof or a confirmed counterexample of an earlier one.
//!
//! The verdicts of the report are derived from the table in one place,
//! [`VerdictTable::into_results`]: the reason of an assertion left open is decided there.

use crate::check::{BudgetLimit, BudgetStop, CheckResult, Counterexample, UnknownReason, Verdict};
use crate::ir::{CheckId, CheckKind, Module};
use std::fmt;

/// Why an assertion is still open.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Open {
    /// The invariants computed so far do not exclude its error site; a later stage may
    /// still prove or refute it.
    Imprecise,
    /// A budget of the function ran out before a fixpoint (or the front end left the
    /// function out for its size).
    Stopped(BudgetLimit),
    /// The function is not analyzed: its lifted form does not have the source's semantics.
    Unsupported(String),
    /// The analysis of the function panicked (a bug).
    InternalError(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Slot {
    Open(Open),
    Proved,
    Violated(Box<Counterexample>),
}

/// A stage tried to change a settled verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AlreadySettled(pub CheckId);

impl fmt::Display for AlreadySettled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the verdict of {} is already settled", self.0)
    }
}

impl std::error::Error for AlreadySettled {}

/// The verdicts of some assertions, in the order they were given.
#[derive(Clone, Debug)]
pub struct VerdictTable {
    checks: Vec<CheckId>,
    slots: Vec<Slot>,
}

impl VerdictTable {
    /// Every assertion open, for `why`.
    pub fn open(checks: Vec<CheckId>, why: Open) -> VerdictTable {
        let slots = vec![Slot::Open(why); checks.len()];
        VerdictTable { checks, slots }
    }

    /// Assertions whose error site the front end removed: LLVM proved them unreachable
    /// (contradictory guards), under the same no-undefined-behaviour assumption.
    pub fn removed_by_front_end(checks: Vec<CheckId>) -> VerdictTable {
        let slots = vec![Slot::Proved; checks.len()];
        VerdictTable { checks, slots }
    }

    /// The assertions, in table order.
    pub fn checks(&self) -> &[CheckId] {
        &self.checks
    }

    /// Why the `i`-th assertion is open, `None` when it is settled.
    pub fn open_reason(&self, i: usize) -> Option<&Open> {
        match &self.slots[i] {
            Slot::Open(why) => Some(why),
            Slot::Proved | Slot::Violated(_) => None,
        }
    }

    /// Whether the `i`-th assertion is proved.
    #[cfg(test)]
    pub fn is_proved(&self, i: usize) -> bool {
        self.slots[i] == Slot::Proved
    }

    /// Whether the `i`-th assertion is open because the invariants do not exclude it.
    pub fn is_imprecise(&self, i: usize) -> bool {
        self.open_reason(i) == Some(&Open::Imprecise)
    }

    /// Whether some assertion is open because the invariants do not exclude it.
    pub fn any_imprecise(&self) -> bool {
        (0..self.slots.len()).any(|i| self.is_imprecise(i))
    }

    /// The analysis stopped before a fixpoint: every assertion still open is open for
    /// `why`. Settled ones stay settled.
    pub fn stop_open(&mut self, why: Open) {
        for slot in &mut self.slots {
            if let Slot::Open(reason) = slot {
                *reason = why.clone();
            }
        }
    }

    /// The `i`-th assertion is proved: its error site is unreachable.
    pub fn prove(&mut self, i: usize) -> Result<(), AlreadySettled> {
        self.settle(i, Slot::Proved)
    }

    /// `check` is violated: `cex` reaches its error site and was confirmed.
    pub fn refute(
        &mut self,
        check: CheckId,
        cex: Box<Counterexample>,
    ) -> Result<(), AlreadySettled> {
        match self.checks.iter().position(|c| *c == check) {
            Some(i) => self.settle(i, Slot::Violated(cex)),
            // Not one of ours: nothing to settle (the search only reports its targets).
            None => Ok(()),
        }
    }

    fn settle(&mut self, i: usize, verdict: Slot) -> Result<(), AlreadySettled> {
        match self.slots[i] {
            Slot::Open(_) => {
                self.slots[i] = verdict;
                Ok(())
            }
            Slot::Proved | Slot::Violated(_) => {
                debug_assert!(
                    false,
                    "a stage tried to change the settled verdict of {}",
                    self.checks[i]
                );
                Err(AlreadySettled(self.checks[i]))
            }
        }
    }

    /// The results of the report, in table order: the one place where a verdict is derived.
    ///
    /// An assertion left open because the invariants do not exclude it gets the first
    /// cause that blocks it (`cause(i)`, found from the program and the invariants only),
    /// unless its error site is a call that may call an escaped error function: that site
    /// is not a program bug the invariants missed, and says so; or it is an assertion the
    /// bit-precise run over floats found unreachable at each type's own precision in a
    /// build that evaluates floats in the x87's extended precision, which says so too.
    pub fn into_results(
        self,
        module: &Module,
        mut cause: impl FnMut(usize) -> Option<UnknownReason>,
    ) -> Vec<CheckResult> {
        self.checks
            .iter()
            .zip(self.slots)
            .enumerate()
            .map(|(i, (check, slot))| {
                let verdict = match slot {
                    Slot::Proved => Verdict::Proved,
                    Slot::Violated(cex) => Verdict::Violated(cex),
                    Slot::Open(why) => Verdict::Unknown(match why {
                        Open::Imprecise => match &module.check(*check).kind {
                            CheckKind::MayCallError { function } => may_call_error(function),
                            _ if module.held_at_own_precision.contains(check) => {
                                held_at_own_precision()
                            }
                            _ => cause(i).unwrap_or(UnknownReason::Imprecise),
                        },
                        Open::Stopped(limit) => UnknownReason::Stopped(BudgetStop {
                            function: module.check(*check).function.clone(),
                            limit,
                        }),
                        Open::Unsupported(what) => UnknownReason::Unsupported(what),
                        Open::InternalError(what) => UnknownReason::InternalError(what),
                    }),
                };
                let c = module.check(*check);
                CheckResult {
                    check: *check,
                    kind: c.kind.clone(),
                    loc: c.loc.clone(),
                    function: c.function.clone(),
                    verdict,
                }
            })
            .collect()
    }
}

/// The reason of an error site at a call that may call `function`, an error function whose
/// address escapes.
fn may_call_error(function: &str) -> UnknownReason {
    UnknownReason::Unsupported(format!(
        "the call may call `{function}`, whose address escapes; indirect calls and code that is not analyzed are not followed"
    ))
}

/// The reason of an assertion that holds when each float operation is rounded to its type,
/// in a 32-bit build whose floats the x87 evaluates in extended precision.
fn held_at_own_precision() -> UnknownReason {
    UnknownReason::Unsupported(format!(
        "the assertion holds when each float operation is rounded to its type (SSE \
         arithmetic), but a 32-bit build evaluates floats in the x87's extended precision \
         (FLT_EVAL_METHOD 2), which is not modeled; if the program is built with `{}`, pass \
         them in --cflags",
        crate::frontend::SSE_FLOAT_FLAGS.join(" ")
    ))
}

#[cfg(test)]
mod tests {
    use super::{Open, VerdictTable};
    use crate::check::{BudgetLimit, Counterexample};
    use crate::ir::CheckId;
    use std::panic::{catch_unwind, AssertUnwindSafe};

    fn cex() -> Box<Counterexample> {
        Box::new(Counterexample {
            args: vec![],
            inputs: vec![],
            steps: vec![],
            confirmed_by: "test".into(),
        })
    }

    #[test]
    fn an_open_assertion_can_be_settled_once() {
        let mut t = VerdictTable::open(vec![CheckId(0), CheckId(1)], Open::Imprecise);
        assert!(t.prove(0).is_ok());
        assert!(t.refute(CheckId(1), cex()).is_ok());
        assert_eq!(t.open_reason(0), None);
        assert_eq!(t.open_reason(1), None);
        assert!(!t.any_imprecise());
    }

    #[test]
    fn stopping_changes_only_open_assertions() {
        let mut t = VerdictTable::open(vec![CheckId(0), CheckId(1)], Open::Imprecise);
        t.prove(0).unwrap();
        t.stop_open(Open::Stopped(BudgetLimit::RunSpent));
        assert_eq!(t.open_reason(0), None);
        assert_eq!(
            t.open_reason(1),
            Some(&Open::Stopped(BudgetLimit::RunSpent))
        );
        assert!(!t.any_imprecise());
    }

    #[test]
    fn a_settled_verdict_cannot_be_changed() {
        let mut t = VerdictTable::open(vec![CheckId(0), CheckId(1)], Open::Imprecise);
        t.prove(0).unwrap();
        t.refute(CheckId(1), cex()).unwrap();
        for attempt in [
            catch_unwind(AssertUnwindSafe(|| t.clone().refute(CheckId(0), cex()))),
            catch_unwind(AssertUnwindSafe(|| t.clone().prove(1))),
        ] {
            // A stage that tries has a bug: a failed assertion in debug builds, an error
            // in release builds.
            match attempt {
                Ok(r) => assert!(r.is_err() && !cfg!(debug_assertions)),
                Err(_) => assert!(cfg!(debug_assertions)),
            }
        }
        let _ = catch_unwind(AssertUnwindSafe(|| t.prove(1)));
        assert!(t.is_proved(0));
        assert_eq!(t.open_reason(1), None);
        assert!(!t.is_proved(1));
    }
}
