//! Loop-entry predicates: whether a loop was entered at all.
//!
//! `i = 1; while (i <= n) { i++; sn++; }` ends with `sn = n` when `n >= 1` and with
//! `sn = 0` otherwise (code2inv 110 to 122). At the loop head, the hull of the state
//! before the first iteration (`i = 1, sn = 0`, any `n`) and of the states after some
//! (`i = sn + 1 <= n + 1`) bounds `sn` by nothing that involves `n`, so `sn != n ==> sn == 0`
//! after the loop is lost. Refinement's weakest preconditions do not find the split: the
//! error path's precondition (`sn != n && sn != 0`) is not convex.
//!
//! The split that keeps it is the exit guard evaluated where the loop is entered: at a
//! loop head whose branch compares `a` and `b`, each a phi of the head or a value the loop
//! does not change, the entry edges' moves give the phis their first values; the guard
//! with those substituted (`1 <= n`) is a predicate over values no iteration changes (SSA
//! values defined before the loop), so its truth is the same in every state of the loop
//! and the engine keeps the states of the entered loop apart from those of the loop never
//! entered. Refinement starts with these predicates ([`seed`]); like every predicate they
//! only split states, so they cannot make an analysis unsound.

use super::lower::Lowering;
use super::refine::{canonical_atoms, LocalPredicates};
use crate::domain::{ConsKind, LinCons, NumericDomain};
use crate::graph::{CutKind, CutPointId};
use crate::ir::{BlockId, CmpPred, Expr, Operand, Terminator, ValueId};

/// Adds the loop-entry predicate of each loop head to `preds`, where the invariants
/// `at_cut_points` of the last analysis (disjunctions of constraint systems; `None`:
/// unreachable) hold states on both of its sides; returns how many were added. `W` is the
/// domain the sides are tested in.
pub fn seed<W: NumericDomain>(
    lowering: &Lowering<'_>,
    at_cut_points: &[Option<Vec<Vec<LinCons>>>],
    preds: &mut LocalPredicates,
) -> usize {
    super::refine::seed_predicates::<W>(lowering, at_cut_points, predicates(lowering), preds)
}

/// The loop-entry predicate of each loop head that has one, in canonical form
/// ([`canonical_atoms`]).
pub fn predicates(lowering: &Lowering<'_>) -> Vec<(CutPointId, LinCons)> {
    let ctx = lowering.context();
    let graph = ctx.graph();
    let mut rpo_index = vec![usize::MAX; lowering.func().blocks.len()];
    for (i, b) in graph.rpo().iter().enumerate() {
        rpo_index[b.index()] = i;
    }
    let mut res = Vec::new();
    for cp in graph.ids() {
        let head = graph.cut_point(cp);
        if head.kind != CutKind::LoopHead {
            continue;
        }
        // Entry edges come from blocks before the head in reverse post-order; the others
        // are back edges (the head is a back edge's target, an ancestor in the DFS).
        let entries: Vec<BlockId> = graph
            .predecessors(head.block)
            .iter()
            .copied()
            .filter(|p| rpo_index[p.index()] < rpo_index[head.block.index()])
            .collect();
        if let Some(pred) = entry_guard(lowering, head.block, &entries) {
            res.push((cp, pred));
        }
    }
    res
}

/// The head's branch condition with its phis replaced by their values on the entry edges
/// from `entries`, as one canonical atom over values live at the head that the loop does
/// not change.
fn entry_guard(lowering: &Lowering<'_>, head: BlockId, entries: &[BlockId]) -> Option<LinCons> {
    let func = lowering.func();
    let Terminator::Branch {
        cond: Operand::Value(c),
        ..
    } = &func.block(head).term
    else {
        return None;
    };
    let Some(Expr::Cmp { pred, lhs, rhs }) = lowering.def(*c) else {
        return None;
    };
    if matches!(pred, CmpPred::Eq | CmpPred::Ne) || entries.is_empty() {
        return None;
    }
    let live = lowering.context().live_at(head);
    let phis = phis_of(lowering, head);
    let mut substituted = false;
    let mut first_value = |op: &Operand| -> Option<Operand> {
        match op {
            Operand::Const(_) => Some(*op),
            Operand::Undef(_) => None,
            Operand::Value(v) if phis.contains(v) => {
                let mut moved: Option<Operand> = None;
                for p in entries {
                    for edge in func.block(*p).term.edges() {
                        if edge.target != head {
                            continue;
                        }
                        let src = edge.moves.iter().find(|(d, _)| d == v)?.1;
                        if moved.is_some_and(|m| m != src) {
                            return None;
                        }
                        moved = Some(src);
                    }
                }
                let src = moved?;
                // The first value must be one the loop does not change: a constant, or a
                // value live at the head that is not one of its phis.
                let invariant = match src {
                    Operand::Const(_) => true,
                    Operand::Value(s) => !phis.contains(&s) && live.contains(&s),
                    Operand::Undef(_) => false,
                };
                substituted = true;
                invariant.then_some(src)
            }
            // A value live at the head that is not one of its phis is defined before the
            // loop: the loop does not change it.
            Operand::Value(v) => live.contains(v).then_some(*op),
        }
    };
    let a = first_value(lhs)?;
    let b = first_value(rhs)?;
    if !substituted {
        // The guard is over loop invariants already: the loop runs forever or never.
        return None;
    }
    let top = <crate::domain::Polyhedron as crate::domain::Lattice>::top(lowering.space());
    let cons = lowering.cmp_cons(&top, *pred, &a, &b)?;
    let [c] = cons.as_slice() else {
        return None;
    };
    if c.kind != ConsKind::Ge || c.expr.vars().next().is_none() {
        return None;
    }
    canonical_atoms(c).into_iter().next()
}

/// The values the moves of the edges into `head` assign (its phis).
fn phis_of(lowering: &Lowering<'_>, head: BlockId) -> Vec<ValueId> {
    let func = lowering.func();
    let mut res = Vec::new();
    for b in &func.blocks {
        for edge in b.term.edges() {
            if edge.target == head {
                for (dest, _) in &edge.moves {
                    if !res.contains(dest) {
                        res.push(*dest);
                    }
                }
            }
        }
    }
    res
}
