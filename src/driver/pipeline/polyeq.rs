//! [`Step::AlgebraicEqualities`] and [`Step::PolynomialEqualities`]: polynomial equalities
//! at loop heads (`analysis::polyeq`) for the assertions still open. Before the engine,
//! algebraically only, with the interval invariants, for a function that multiplies
//! values; after it with the engine's invariants (when it reached its fixpoint, otherwise
//! none) and the solver.

use super::stages::Step;
use super::{settled, Allowance, Facts, Inputs, Progress, State};
use crate::analysis::{Deadline, Outcome};
use crate::check::{StageEnd, StageRun};
use crate::driver::verdicts::VerdictTable;
use crate::ir::Function;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

/// [`Step::AlgebraicEqualities`]: with the interval invariants (every state at each cut
/// point when the interval stage gave none), without the solver.
pub(super) fn before_engine(inputs: &Inputs<'_>, state: &mut State, allowance: &Allowance) {
    let facts = inputs.facts;
    let linear = match &state.found {
        Some(found) => found.at_cut_points.clone(),
        None => no_invariants(facts),
    };
    state.equalities_exhausted = polynomial_equalities(
        Step::AlgebraicEqualities,
        facts,
        &linear,
        false,
        allowance.left(),
        &mut state.progress,
    );
}

/// [`Step::PolynomialEqualities`]: with the engine's invariants when it reached its
/// fixpoint (certified, see `tests/inductive.rs`), otherwise none (every cut point may hold
/// any state), algebraically then with the solver.
pub(super) fn after_engine(inputs: &Inputs<'_>, state: &mut State, allowance: &Allowance) {
    let facts = inputs.facts;
    let linear = match &state.found {
        Some(found) if found.outcome == Outcome::Complete => found.at_cut_points.clone(),
        _ => no_invariants(facts),
    };
    polynomial_equalities(
        Step::PolynomialEqualities,
        facts,
        &linear,
        true,
        allowance.left(),
        &mut state.progress,
    );
}

/// Every state at every cut point.
fn no_invariants(facts: &Facts<'_>) -> Vec<Option<Vec<Vec<crate::domain::LinCons>>>> {
    vec![Some(vec![vec![]]); facts.ctx.graph().cut_points.len()]
}

/// True when the function multiplies two values (not a value by a constant): without such
/// a product, its assertions are linear and the polynomial stage before the engine would
/// only cost time.
pub(super) fn has_product_of_values(func: &Function) -> bool {
    use crate::ir::{BinOp, Expr, Inst, Operand};
    func.blocks.iter().flat_map(|b| &b.insts).any(|inst| {
        matches!(
            inst,
            Inst::Assign {
                expr: Expr::Binary {
                    op: BinOp::Mul,
                    lhs: Operand::Value(_),
                    rhs: Operand::Value(_),
                    ..
                },
                ..
            }
        )
    })
}

/// Polynomial equalities at loop heads (`analysis::polyeq`), for the assertions still
/// open: found by linear algebra, certified inductive by the solver with the linear
/// invariants `linear`, then each open error site is proved unreachable from them,
/// algebraically, then (with `solver`) with products encoded exactly, or left open.
/// Reported as `step`. True when every degree was tried (the budget did not cut the
/// search).
fn polynomial_equalities(
    step: Step,
    facts: &Facts<'_>,
    linear: &[Option<Vec<Vec<crate::domain::LinCons>>>],
    solver: bool,
    budget: Duration,
    progress: &mut Progress,
) -> bool {
    use crate::analysis::polyeq;
    let open = |table: &VerdictTable| {
        (0..facts.error_blocks.len())
            .filter(|i| table.open_reason(*i).is_some())
            .collect::<Vec<usize>>()
    };
    let graph = facts.ctx.graph();
    let has_loop = graph
        .ids()
        .any(|c| graph.cut_point(c).kind == crate::graph::CutKind::LoopHead);
    if open(&progress.table).is_empty() || !has_loop {
        return true;
    }
    let linear = linear.to_vec();
    let started = Instant::now();
    let deadline = Deadline::after(budget).with_memory(facts.memory);
    // Discovery gets half: the rest is kept for the solver's queries, which need the
    // lowest degree's equalities more often than the higher degrees take to be found.
    let discovering = Deadline::after(budget / 2).with_memory(facts.memory);
    // Degrees in increasing order: the lowest that proves an assertion gives the solver the
    // fewest equalities. First every degree algebraically (no solver: milliseconds), then the
    // solver's queries with the equalities of each degree found, lowest first: a non-linear
    // query often ends `unknown` at its cap, and spending the budget on those at degree 2
    // left no time to find the degree-5 equality of ps5.
    let proved = catch_unwind(AssertUnwindSafe(|| {
        let mut n = 0;
        let mut notes = Vec::new();
        let mut previous: Option<Vec<u32>> = None;
        let mut found_eqs: Vec<(u32, polyeq::PolyEqualities, Option<polyeq::Consecution>)> =
            Vec::new();
        let certify = |eqs: &polyeq::PolyEqualities| {
            let c = polyeq::certify(facts.ctx, &linear, eqs, &deadline);
            debug_assert!(
                c != polyeq::Consecution::Refuted,
                "{}: polynomial equalities not inductive",
                facts.ctx.func().name
            );
            c
        };
        let mut exhausted = true;
        for degree in 2..=facts.ctx.params().polyeq.max_degree {
            if open(&progress.table).is_empty() {
                break;
            }
            if discovering.expired() {
                exhausted = false;
                break;
            }
            let Some(eqs) = polyeq::discover(facts.ctx, degree, &linear, &discovering) else {
                notes.push(format!("degree {degree}: gave up"));
                exhausted = false;
                break;
            };
            if previous.as_ref() == Some(&eqs.degrees) {
                break;
            }
            previous = Some(eqs.degrees.clone());
            if eqs.is_empty() {
                notes.push(format!("degree {degree}: none"));
                continue;
            }
            if found_eqs.last().map(|(_, e, _)| &e.at_cut_point) == Some(&eqs.at_cut_point) {
                continue;
            }
            let algebraic: Vec<usize> = open(&progress.table)
                .into_iter()
                .filter(|i| {
                    facts
                        .ctx
                        .graph()
                        .cut_of_block(facts.error_blocks[*i])
                        .is_some_and(|cp| {
                            let proof = polyeq::Proof::Algebraic;
                            polyeq::prove_unreachable(
                                facts.ctx, &linear, &eqs, cp, proof, &deadline,
                            )
                        })
                })
                .collect();
            // Certified only when about to be used: a path leaving the equalities (a bug)
            // excludes them; an unknown leaves them resting on their construction
            // (`analysis::polyeq`).
            let mut consecution = None;
            if !algebraic.is_empty() {
                let c = certify(&eqs);
                if c == polyeq::Consecution::Refuted {
                    notes.push(format!("degree {degree}: refuted"));
                    break;
                }
                // An `Undecided` equality proves by its construction (an identity over ℤ[x]
                // per path, `analysis::polyeq`), not by the solver's `unknown`. A wrong proof
                // of a generated program (csmith seed 43046) came from a loop head left with
                // `1 = 0` (no template variable, no path followed into it), which
                // `polyeq::discover` never keeps where the head is reachable.
                consecution = Some(c);
                for i in &algebraic {
                    settled(progress.table.prove(*i));
                }
                n += algebraic.len();
                notes.push(format!(
                    "degree {degree}: {} proved algebraically ({c:?})",
                    algebraic.len()
                ));
            } else {
                notes.push(format!("degree {degree}: found"));
            }
            found_eqs.push((degree, eqs, consecution));
        }
        for (degree, eqs, consecution) in &found_eqs {
            if !solver || open(&progress.table).is_empty() || deadline.expired() {
                break;
            }
            let c = consecution.unwrap_or_else(|| certify(eqs));
            if c == polyeq::Consecution::Refuted {
                notes.push(format!("degree {degree}: refuted"));
                continue;
            }
            let mut here = 0;
            for i in open(&progress.table) {
                if deadline.expired() {
                    break;
                }
                let Some(cp) = facts.ctx.graph().cut_of_block(facts.error_blocks[i]) else {
                    continue;
                };
                let solver = polyeq::Proof::WithSolver;
                if polyeq::prove_unreachable(facts.ctx, &linear, eqs, cp, solver, &deadline) {
                    settled(progress.table.prove(i));
                    here += 1;
                }
            }
            if here > 0 {
                notes.push(format!(
                    "degree {degree}: {here} proved by the solver ({c:?})"
                ));
            }
            n += here;
        }
        (n, notes.join(", "), exhausted)
    }));
    let (end, detail, exhausted) = match proved {
        Ok((_, detail, exhausted)) => (StageEnd::Finished, detail, exhausted),
        Err(_) => (
            StageEnd::InternalError,
            "polynomial equalities panicked".to_string(),
            false,
        ),
    };
    let elapsed = started.elapsed();
    for t in &mut progress.times {
        t.analysis += elapsed;
    }
    progress.stages.push(StageRun {
        stage: step.reported(),
        elapsed,
        end,
        detail: Some(detail),
    });
    exhausted
}
