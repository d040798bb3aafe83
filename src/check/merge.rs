//! One result per check: the results of one source check in every context it was analyzed
//! in (each inlined copy of its function, each entry that reaches it) merged into one.
//!
//! A check is identified by its source location and its kind (the class and, for a runtime
//! check, what misbehaves: two checks of one column on different operations stay apart). Its
//! merged verdict is `violated` when one context has a confirmed counterexample (that
//! context decides), `unknown` when one context is unknown (the first, in source order,
//! gives the reason), `holds if` when every context is proved or holds under a precondition
//! (the first such context gives it, one asked of calls not shown to meet it before one
//! resting on contracts: the check rests on contracts only when every such context does),
//! and `proved` when every context is proved.
//!
//! **Invariant:** the verdict of a program is the same over the merged checks as over the
//! contexts (some violated, or all proved), so merging changes no exit code or task verdict.

use super::{CheckResult, Verdict};
use crate::ir::{CheckClass, CheckId, CheckKind, SourceLoc};
use std::collections::BTreeMap;

/// One check of the source, with the result of each context it was analyzed in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MergedCheck {
    /// The results per context, in source order (function, then check id); never empty.
    contexts: Vec<CheckResult>,
    /// The context whose verdict is the check's.
    deciding: usize,
}

impl MergedCheck {
    /// The merged verdict: the deciding context's.
    pub fn verdict(&self) -> &Verdict {
        &self.deciding().verdict
    }

    /// The context that decides the verdict: the first violated one, else the first unknown
    /// one, else the first that holds under a precondition calls were not shown to meet,
    /// else the first that holds under contracts, else the first (all proved).
    pub fn deciding(&self) -> &CheckResult {
        &self.contexts[self.deciding]
    }

    /// Every context, in source order.
    pub fn contexts(&self) -> &[CheckResult] {
        &self.contexts
    }

    /// What the check checks (the deciding context's kind; every context has the same class
    /// and error).
    pub fn kind(&self) -> &CheckKind {
        &self.deciding().kind
    }

    /// Its class: assertion, overflow, division, shift or bounds.
    pub fn class(&self) -> CheckClass {
        self.kind().class()
    }

    /// Its source location.
    pub fn loc(&self) -> Option<&SourceLoc> {
        self.deciding().loc.as_ref()
    }

    /// The id of the deciding context's check.
    pub fn check(&self) -> CheckId {
        self.deciding().check
    }

    /// How many contexts have each verdict.
    pub fn counts(&self) -> ContextCounts {
        let mut counts = ContextCounts::default();
        for c in &self.contexts {
            match c.verdict {
                Verdict::Proved => counts.proved += 1,
                Verdict::Violated(_) => counts.violated += 1,
                Verdict::HoldsIf(_) => counts.holds_if += 1,
                Verdict::Unknown(_) => counts.unknown += 1,
            }
        }
        counts
    }

    /// How the contexts went, for people, when there are several: `17 contexts`, `unknown
    /// in 3 of 17 contexts, 14 proved`, `violated in 1 of 2 contexts, 1 unknown`; `None` for
    /// a check analyzed in one context.
    pub fn contexts_note(&self) -> Option<String> {
        let n = self.contexts.len();
        if n < 2 {
            return None;
        }
        let ContextCounts {
            proved,
            violated,
            holds_if,
            unknown,
        } = self.counts();
        let rest = |parts: &[(usize, &str)]| -> String {
            parts
                .iter()
                .filter(|(k, _)| *k > 0)
                .map(|(k, w)| format!(", {k} {w}"))
                .collect()
        };
        Some(match self.verdict() {
            Verdict::Proved => format!("{n} contexts"),
            Verdict::Violated(_) => format!(
                "violated in {violated} of {n} contexts{}",
                rest(&[
                    (unknown, "unknown"),
                    (holds_if, "holds if"),
                    (proved, "proved")
                ])
            ),
            Verdict::Unknown(_) => format!(
                "unknown in {unknown} of {n} contexts{}",
                rest(&[(holds_if, "holds if"), (proved, "proved")])
            ),
            Verdict::HoldsIf(_) => format!(
                "holds if in {holds_if} of {n} contexts{}",
                rest(&[(proved, "proved")])
            ),
        })
    }
}

/// How many contexts of a check have each verdict.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ContextCounts {
    /// Proved.
    pub proved: usize,
    /// Violated.
    pub violated: usize,
    /// Holds under a precondition.
    pub holds_if: usize,
    /// Unknown.
    pub unknown: usize,
}

/// What identifies a check of the source: its place, class and error (a check without a
/// location is its own).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
enum SiteKey {
    Placed(SourceLoc, CheckClass, Option<String>),
    Unplaced(CheckId),
}

fn site_key(r: &CheckResult) -> SiteKey {
    match &r.loc {
        Some(loc) => SiteKey::Placed(loc.clone(), r.kind.class(), r.kind.runtime_error()),
        None => SiteKey::Unplaced(r.check),
    }
}

/// Merges the results of `results` (in source order, see [`super::sort_in_source_order`])
/// by check of the source; the checks come in the order of their first context.
pub fn merge_contexts(results: &[CheckResult]) -> Vec<MergedCheck> {
    let mut index: BTreeMap<SiteKey, usize> = BTreeMap::new();
    let mut groups: Vec<Vec<CheckResult>> = Vec::new();
    for r in results {
        let at = *index.entry(site_key(r)).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[at].push(r.clone());
    }
    groups
        .into_iter()
        .map(|contexts| {
            let first = |pick: fn(&Verdict) -> bool| contexts.iter().position(|c| pick(&c.verdict));
            let deciding = first(|v| matches!(v, Verdict::Violated(_)))
                .or_else(|| first(|v| matches!(v, Verdict::Unknown(_))))
                .or_else(|| first(|v| matches!(v, Verdict::HoldsIf(p) if !p.is_contract())))
                .or_else(|| first(|v| matches!(v, Verdict::HoldsIf(_))))
                .unwrap_or(0);
            MergedCheck { contexts, deciding }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{Counterexample, UnknownReason};

    fn result(id: u32, line: u32, function: &str, verdict: Verdict) -> CheckResult {
        CheckResult {
            check: CheckId(id),
            kind: CheckKind::ErrorCall {
                function: "reach_error".into(),
            },
            loc: Some(SourceLoc {
                file: "utf8.c".into(),
                line,
                column: 3,
            }),
            function: function.into(),
            verdict,
        }
    }

    fn violated() -> Verdict {
        Verdict::Violated(Box::new(Counterexample {
            args: vec![],
            inputs: vec![],
            steps: vec![],
            confirmed_by: "replayed natively".into(),
        }))
    }

    #[test]
    fn every_proved_context_gives_one_proved_check() {
        let results: Vec<CheckResult> = (0..17)
            .map(|i| result(i, 170, &format!("caller{i:02}"), Verdict::Proved))
            .collect();
        let merged = merge_contexts(&results);
        assert_eq!(merged.len(), 1);
        assert_eq!(merged[0].verdict(), &Verdict::Proved);
        assert_eq!(merged[0].contexts().len(), 17);
        assert_eq!(merged[0].contexts_note().as_deref(), Some("17 contexts"));
    }

    /// An unknown verdict for a function that did not finish within its time budget.
    fn out_of_time() -> UnknownReason {
        UnknownReason::Stopped(crate::check::BudgetStop {
            function: "f".into(),
            limit: crate::check::BudgetLimit::Time(std::time::Duration::from_secs(10)),
        })
    }

    #[test]
    fn one_replayed_context_makes_the_check_violated_with_its_counterexample() {
        let results = vec![
            result(0, 5, "a", Verdict::Proved),
            result(1, 5, "b", Verdict::Unknown(out_of_time())),
            result(2, 5, "c", violated()),
        ];
        let merged = merge_contexts(&results);
        assert_eq!(merged.len(), 1);
        assert!(matches!(merged[0].verdict(), Verdict::Violated(_)));
        assert_eq!(merged[0].deciding().function, "c");
        assert_eq!(
            merged[0].contexts_note().as_deref(),
            Some("violated in 1 of 3 contexts, 1 unknown, 1 proved")
        );
        assert_eq!(
            crate::check::ProgramVerdict::of_checks(&merged),
            crate::check::ProgramVerdict::of(&results)
        );
    }

    #[test]
    fn an_unknown_context_keeps_the_first_blocking_reason() {
        let results = vec![
            result(0, 5, "a", Verdict::Proved),
            result(1, 5, "b", Verdict::Unknown(UnknownReason::Imprecise)),
            result(2, 5, "c", Verdict::Unknown(out_of_time())),
            result(3, 9, "a", Verdict::Proved),
        ];
        let merged = merge_contexts(&results);
        assert_eq!(merged.len(), 2);
        assert_eq!(
            merged[0].verdict(),
            &Verdict::Unknown(UnknownReason::Imprecise)
        );
        assert_eq!(
            merged[0].contexts_note().as_deref(),
            Some("unknown in 2 of 3 contexts, 1 proved")
        );
        assert_eq!(merged[1].contexts_note(), None);
        assert_eq!(
            crate::check::ProgramVerdict::of_checks(&merged),
            crate::check::ProgramVerdict::Unknown
        );
    }

    fn holds_if(expr: &str) -> Verdict {
        Verdict::HoldsIf(crate::check::Precondition {
            expr: expr.into(),
            requirements: None,
            callers: crate::check::Callers::Outside,
        })
    }

    #[test]
    fn holds_if_in_one_context_and_proved_in_the_others_holds_if() {
        let results = vec![
            result(0, 5, "a", Verdict::Proved),
            result(1, 5, "b", holds_if("n >= 1")),
            result(2, 5, "c", Verdict::Proved),
        ];
        let merged = merge_contexts(&results);
        assert_eq!(merged[0].verdict(), &holds_if("n >= 1"));
        assert_eq!(merged[0].deciding().function, "b");
        assert_eq!(
            merged[0].contexts_note().as_deref(),
            Some("holds if in 1 of 3 contexts, 2 proved")
        );
        assert_eq!(
            crate::check::ProgramVerdict::of_checks(&merged),
            crate::check::ProgramVerdict::Unknown
        );
    }

    #[test]
    fn unknown_or_violated_contexts_win_over_holds_if() {
        let unknown = vec![
            result(0, 5, "a", holds_if("n >= 1")),
            result(1, 5, "b", Verdict::Unknown(UnknownReason::Imprecise)),
        ];
        assert_eq!(
            merge_contexts(&unknown)[0].verdict(),
            &Verdict::Unknown(UnknownReason::Imprecise)
        );
        let violated = vec![
            result(0, 5, "a", holds_if("n >= 1")),
            result(1, 5, "b", violated()),
        ];
        assert!(matches!(
            merge_contexts(&violated)[0].verdict(),
            Verdict::Violated(_)
        ));
    }

    #[test]
    fn a_precondition_only_the_program_must_meet_decides_over_an_entry_contract() {
        let internal = Verdict::HoldsIf(crate::check::Precondition {
            expr: "n >= 2".into(),
            requirements: None,
            callers: crate::check::Callers::Program,
        });
        let results = vec![
            result(0, 5, "entry", holds_if("n >= 1")),
            result(1, 5, "helper", internal.clone()),
        ];
        let merged = merge_contexts(&results);
        assert_eq!(merged[0].verdict(), &internal);
        assert_eq!(merged[0].deciding().function, "helper");
        let contracts = vec![
            result(0, 5, "entry", holds_if("n >= 1")),
            result(1, 5, "other", Verdict::Proved),
        ];
        match merge_contexts(&contracts)[0].verdict() {
            Verdict::HoldsIf(p) => assert!(p.is_contract()),
            v => panic!("expected holds if, got {v:?}"),
        }
    }

    #[test]
    fn checks_of_other_kinds_or_without_a_place_stay_apart() {
        let mut overflow = result(1, 5, "a", Verdict::Proved);
        overflow.kind = CheckKind::Overflow {
            op: crate::ir::BinOp::Add,
        };
        let mut product = overflow.clone();
        product.check = CheckId(2);
        product.kind = CheckKind::Overflow {
            op: crate::ir::BinOp::Mul,
        };
        let mut unplaced = result(3, 0, "a", Verdict::Proved);
        unplaced.loc = None;
        let mut unplaced2 = unplaced.clone();
        unplaced2.check = CheckId(4);
        let results = vec![
            result(0, 5, "a", Verdict::Proved),
            overflow,
            product,
            unplaced,
            unplaced2,
        ];
        assert_eq!(merge_contexts(&results).len(), 5);
    }
}
