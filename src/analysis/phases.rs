//! Phase predicates: a loop whose body branches on a value the loop moves runs
//! in phases, and its invariant is disjunctive by phase.
//!
//! `x = 0; y = 50; while (x < 100) { if (x < 50) x++; else { x++; y++; } }` ends with
//! `y = 100`: at the head, `y = 50` while `x <= 50` and `y = x` after. The hull of the two
//! phases (`50 <= y`, `x <= y`, `2y <= x + 100`) is not inductive over the integers, and
//! widening loses even that. Refinement's weakest preconditions do not find the split:
//! the error path's precondition at the head (`x >= 100 && y != 100`) says nothing of `50`.
//!
//! The split that keeps it is the body's own guard `x < 50`, read at the head: a branch in
//! the loop's region (the blocks reached from the head without passing another cut point)
//! whose condition compares values the head knows (its phis, values defined before the
//! loop, constants, and additions of constants to those along the region) is a predicate
//! over the head's live values. With it, the engine keeps one state per phase, and path
//! focusing accelerates each phase's path from the states of that phase alone (Gopan and
//! Reps's guided static analysis and lookahead widening reach the same effect by phases of
//! the iteration; here the phases are parts of the state). A (dis)equality guard `i != z`
//! of the loop's body (not of code after the loop, such as an assertion `x == 100` the
//! region also reaches), with the slots the inequalities leave, gives the two splits
//! `i <= z` and `i >= z` (phases before, at and after `z`: a loop that
//! skips one index, such as a copy `if (i != z) b[i] = a[i];`, whose copied ranges are
//! affine in `i` on each side, see `memory/copies.rs`). Refinement starts with these
//! predicates ([`seed`]), and tries the comparisons the body chooses values by without
//! branching ([`Guards::Selects`]: whether an array segment is empty yet) once its rounds
//! find or settle nothing new; like every predicate they only split states, so they cannot make
//! an analysis unsound: the predicate need not even be exact (wrap-around of the additions
//! is ignored), it only has to separate the phases in the cases that matter.

use super::lower::{const_reading, Lowering};
use super::refine::{canonical_atoms, LocalPredicates};
use crate::domain::{ConsKind, Int, LinCons, LinExpr, NumericDomain};
use crate::graph::{CutKind, CutPointId};
use crate::ir::{BinOp, BlockId, CastOp, CmpPred, Expr, Operand, Terminator, ValueId};
use std::collections::BTreeSet;

/// Additions of constants followed back from a compared value, at most (a fixed limit:
/// longer chains of constant additions are rare in loop guards).
const MAX_CHAIN: usize = 8;

/// Adds the phase predicates of each loop head to `preds`, where the invariants
/// `at_cut_points` of the last analysis (disjunctions of constraint systems; `None`:
/// unreachable) hold states on both of their sides; returns how many were added. `W` is
/// the domain the sides are tested in.
pub fn seed<W: NumericDomain>(
    lowering: &Lowering<'_>,
    at_cut_points: &[Option<Vec<Vec<LinCons>>>],
    guards: Guards,
    preds: &mut LocalPredicates,
) -> usize {
    let candidates = predicates(lowering, guards);
    super::refine::seed_predicates::<W>(lowering, at_cut_points, candidates, preds)
}

/// Which guards of a loop's body give its phases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guards {
    /// The conditions of its branches: refinement's first round starts with them.
    Branches,
    /// The inequalities it chooses a value by without branching (selects). The memory
    /// pass emits `lo < hi` for a segment's bounds (whether it is empty yet), and that
    /// split is the phase a loop that fills an array from its end needs: the empty
    /// segment at the entry is not where the loop starts filling, and the hull of the two
    /// loses the filled range. Refinement tries them only once a round finds no new
    /// predicate or its rounds settle nothing: each doubles the states of its head, which
    /// costs the loops that do not need them.
    Selects,
}

/// The phase predicates of each loop head from its body's `guards`, in canonical form
/// ([`canonical_atoms`]), at most `PrecisionParams::max_phase_predicates` per head, in the
/// order of the region's blocks.
pub fn predicates(lowering: &Lowering<'_>, guards: Guards) -> Vec<(CutPointId, LinCons)> {
    let ctx = lowering.context();
    let graph = ctx.graph();
    let func = lowering.func();
    let max_per_head = lowering.precision().max_phase_predicates;
    let mut res = Vec::new();
    for cp in graph.ids() {
        let head = graph.cut_point(cp);
        if head.kind != CutKind::LoopHead {
            continue;
        }
        let live = ctx.live_at(head.block);
        let region = graph.region(cp);
        // The blocks of the loop's body: those of the region that lead back to the head
        // within it (an assertion after the loop, `x == 100`, is in the region too).
        let mut body: BTreeSet<BlockId> = BTreeSet::new();
        loop {
            let before = body.len();
            for b in region {
                if func
                    .block(*b)
                    .term
                    .successors()
                    .iter()
                    .any(|s| *s == head.block || body.contains(s))
                {
                    body.insert(*b);
                }
            }
            if body.len() == before {
                break;
            }
        }
        let mut here: Vec<LinCons> = Vec::new();
        if guards == Guards::Selects {
            select_guards(
                lowering,
                live,
                &body,
                head.block,
                region,
                max_per_head,
                &mut here,
            );
        }
        // Branches: inequalities first, then the (dis)equalities of the body with the
        // slots left.
        let passes: &[bool] = match guards {
            Guards::Branches => &[false, true],
            Guards::Selects => &[],
        };
        for &equalities in passes {
            for b in region {
                // The head's own branch is the loop's exit guard: its sides are "in the
                // loop" and "left it", not phases.
                if *b == head.block || here.len() >= max_per_head {
                    continue;
                }
                let Terminator::Branch {
                    cond: Operand::Value(c),
                    ..
                } = &func.block(*b).term
                else {
                    continue;
                };
                let Some(Expr::Cmp { pred, lhs, rhs }) = lowering.def(*c) else {
                    continue;
                };
                let equality = matches!(pred, CmpPred::Eq | CmpPred::Ne);
                if equality != equalities || (equality && !body.contains(b)) {
                    continue;
                }
                for atom in guard_at_head(lowering, live, *pred, lhs, rhs) {
                    if here.len() < max_per_head
                        && !here.contains(&atom)
                        && !here.contains(&atom.negate())
                    {
                        here.push(atom);
                    }
                }
            }
        }
        res.extend(here.into_iter().map(|p| (cp, p)));
    }
    res
}

/// The inequalities over values the head knows that the body's selects choose by, added
/// to `here` up to `max` ([`Guards::Selects`]).
fn select_guards(
    lowering: &Lowering<'_>,
    live: &BTreeSet<ValueId>,
    body: &BTreeSet<BlockId>,
    head: BlockId,
    region: &[BlockId],
    max: usize,
    here: &mut Vec<LinCons>,
) {
    let func = lowering.func();
    for b in region {
        if !body.contains(b) || *b == head {
            continue;
        }
        for inst in &func.block(*b).insts {
            let crate::ir::Inst::Assign {
                expr:
                    Expr::Select {
                        cond: Operand::Value(c),
                        ..
                    },
                ..
            } = inst
            else {
                continue;
            };
            let Some(Expr::Cmp { pred, lhs, rhs }) = lowering.def(*c) else {
                continue;
            };
            if matches!(pred, CmpPred::Eq | CmpPred::Ne) {
                continue;
            }
            for atom in guard_at_head(lowering, live, *pred, lhs, rhs) {
                if here.len() < max && !here.contains(&atom) && !here.contains(&atom.negate()) {
                    here.push(atom);
                }
            }
        }
    }
}

/// `lhs pred rhs` over values live at the head, as canonical atoms: one for an
/// inequality; two for a (dis)equality `i != z`, `i <= z` and `i >= z`, whose three
/// phases `i < z`, `i == z`, `i > z` are those of a loop that skips (or treats apart) one
/// value of its counter, in either direction (`if (i != z) b[i] = a[i];` runs a phase
/// before `z` and one after, `memory/copies.rs`). None for constant conditions and
/// operands the head does not know.
fn guard_at_head(
    lowering: &Lowering<'_>,
    live: &BTreeSet<ValueId>,
    pred: CmpPred,
    lhs: &Operand,
    rhs: &Operand,
) -> Vec<LinCons> {
    let want = match pred {
        p if p.is_unsigned() => crate::ir::Interp::Unsigned,
        _ => crate::ir::Interp::Signed,
    };
    let (Some(a), Some(b)) = (
        at_head(lowering, live, lhs, want, MAX_CHAIN),
        at_head(lowering, live, rhs, want, MAX_CHAIN),
    ) else {
        return vec![];
    };
    let cs = match pred {
        CmpPred::Slt | CmpPred::Ult => vec![LinCons::lt_int(&a, &b)],
        CmpPred::Sle | CmpPred::Ule => vec![LinCons::le(&a, &b)],
        CmpPred::Sgt | CmpPred::Ugt => vec![LinCons::lt_int(&b, &a)],
        CmpPred::Sge | CmpPred::Uge => vec![LinCons::ge(&a, &b)],
        CmpPred::Eq | CmpPred::Ne => vec![LinCons::le(&a, &b), LinCons::ge(&a, &b)],
    };
    cs.iter()
        .filter(|c| c.kind == ConsKind::Ge && c.expr.vars().next().is_some())
        .filter_map(|c| canonical_atoms(c).into_iter().next())
        .collect()
}

/// An operand as a linear expression over the values live at the head: a constant (in the
/// comparison's reading), a live value (in its own reading: a predicate need not be the
/// exact guard), or a value the region computes from such an operand by adding, multiplying
/// or shifting by a constant or widening it (wrap-around ignored, for the same reason).
fn at_head(
    lowering: &Lowering<'_>,
    live: &BTreeSet<ValueId>,
    op: &Operand,
    want: crate::ir::Interp,
    fuel: usize,
) -> Option<LinExpr> {
    match op {
        Operand::Undef(_) => None,
        Operand::Const(c) => Some(LinExpr::constant(const_reading(*c, want))),
        Operand::Value(v) if live.contains(v) => {
            Some(LinExpr::var(lowering.layout().value_var(*v)))
        }
        Operand::Value(v) => {
            if fuel == 0 {
                return None;
            }
            match lowering.def(*v)? {
                Expr::Use(a) => at_head(lowering, live, a, want, fuel - 1),
                Expr::Binary { op, lhs, rhs, .. } if matches!(op, BinOp::Add | BinOp::Sub) => {
                    let (value, constant, value_first) = match (lhs, rhs) {
                        (Operand::Const(k), other) => (other, *k, false),
                        (other, Operand::Const(k)) => (other, *k, true),
                        _ => return None,
                    };
                    let x = at_head(lowering, live, value, want, fuel - 1)?;
                    let k = LinExpr::constant(Int::from(constant.signed()));
                    Some(match (op, value_first) {
                        (BinOp::Add, _) => x.plus(&k),
                        (BinOp::Sub, true) => x.minus(&k),
                        (BinOp::Sub, false) => k.minus(&x),
                        _ => unreachable!("only additions and subtractions reach here"),
                    })
                }
                // Scaled and widened counters: the byte offset `4 * (i64)i` a segment's
                // bounds are compared with.
                Expr::Binary { op, lhs, rhs, .. } if matches!(op, BinOp::Mul | BinOp::Shl) => {
                    let (value, k) = match (op, lhs, rhs) {
                        (BinOp::Mul, Operand::Const(k), other)
                        | (BinOp::Mul | BinOp::Shl, other, Operand::Const(k)) => (other, *k),
                        _ => return None,
                    };
                    let factor = match op {
                        BinOp::Shl if k.signed() >= 0 && k.signed() < 32 => {
                            Int::from(1i64 << k.signed())
                        }
                        BinOp::Mul => Int::from(k.signed()),
                        _ => return None,
                    };
                    Some(at_head(lowering, live, value, want, fuel - 1)?.scaled(&factor))
                }
                Expr::Cast {
                    op: CastOp::SExt | CastOp::ZExt,
                    arg,
                } => at_head(lowering, live, arg, want, fuel - 1),
                _ => None,
            }
        }
    }
}
