//! Error sites entered on a failed conjunction, one branch per conjunct.
//!
//! A runtime check's condition is a conjunction (`0 <= o && o <= size - w`), and its error
//! site is entered when it is false: a disjunction, which a convex domain joins into
//! nothing useful, so the invariant there loses how the check failed. Branching to the
//! site once per conjunct (`c₁ ? (c₂ ? ok : err) : err`) computes the same condition, and
//! the invariant there is the join of one precise state per failed conjunct, most of them
//! empty (`0 <= o` holds in the loop): the relation the precondition needs (`o > size - w`)
//! survives. An equality is the conjunction of two bounds (`x == 0` is `x <= 0 && x >= 0`,
//! signed), so that each side of a failed equality is a way to fail of its own.

use crate::ir::{
    BinOp, Block, BlockId, CmpPred, Edge, Expr, Function, Inst, Operand, Terminator, Ty, ValueId,
};
use std::collections::BTreeMap;

/// Rewrites each branch of `func` into one of `sites` on a conjunction of `i1` values into a
/// chain of branches, one per conjunct; the function's executions are unchanged.
pub(super) fn split_at(func: &mut Function, sites: &[BlockId]) {
    let ands = definitions(func, |dest, expr| match expr {
        Expr::Binary {
            op: BinOp::And,
            lhs,
            rhs,
            ..
        } if func.value(dest).ty == Ty::BOOL => Some((*lhs, *rhs)),
        _ => None,
    });
    // Equalities of integers, each a conjunction of two signed bounds.
    let eqs = definitions(func, |_, expr| match expr {
        Expr::Cmp {
            pred: CmpPred::Eq,
            lhs,
            rhs,
        } if func.operand_ty(lhs) != Ty::BOOL => Some((*lhs, *rhs)),
        _ => None,
    });
    for b in 0..func.blocks.len() {
        let Terminator::Branch {
            cond: Operand::Value(cond),
            then_edge,
            else_edge,
        } = func.blocks[b].term.clone()
        else {
            continue;
        };
        if !sites.contains(&else_edge.target)
            || !(ands.contains_key(&cond) || eqs.contains_key(&cond))
        {
            continue;
        }
        let leaves: Vec<Leaf> = conjuncts(Operand::Value(cond), &ands)
            .into_iter()
            .flat_map(|leaf| match leaf {
                Operand::Value(v) if eqs.contains_key(&v) => {
                    let (lhs, rhs) = eqs[&v];
                    vec![
                        Leaf::Cmp(CmpPred::Sle, lhs, rhs),
                        Leaf::Cmp(CmpPred::Sge, lhs, rhs),
                    ]
                }
                other => vec![Leaf::Op(other)],
            })
            .collect();
        let loc = func.blocks[b].term_loc.clone();
        let name = func.blocks[b].name.clone();
        // Block `b` tests the first conjunct; each new block the next one.
        let mut from = b;
        for (k, leaf) in leaves.iter().enumerate() {
            let next = if k + 1 == leaves.len() {
                then_edge.clone()
            } else {
                func.blocks.push(Block {
                    name: format!("{name}.and{k}"),
                    insts: Vec::new(),
                    locs: Vec::new(),
                    term: Terminator::Stop, // replaced below
                    term_loc: loc.clone(),
                });
                Edge {
                    target: BlockId((func.blocks.len() - 1) as u32),
                    moves: Vec::new(),
                }
            };
            let target = next.target;
            let cond = match *leaf {
                Leaf::Op(op) => op,
                Leaf::Cmp(pred, lhs, rhs) => {
                    let dest = ValueId(func.values.len() as u32);
                    func.values.push(crate::ir::ValueInfo {
                        ty: Ty::BOOL,
                        name: format!("bound.{}", dest.index()),
                        source_name: None,
                    });
                    let block = &mut func.blocks[from];
                    block.insts.push(Inst::Assign {
                        dest,
                        expr: Expr::Cmp { pred, lhs, rhs },
                    });
                    block.locs.push(loc.clone());
                    Operand::Value(dest)
                }
            };
            func.blocks[from].term = Terminator::Branch {
                cond,
                then_edge: next,
                else_edge: else_edge.clone(),
            };
            from = target.index();
        }
    }
}

/// Gives each edge into one of `sites` an error block of its own (a copy of the site), so
/// that the invariant of each copy is the state of one way to fail, not their join: a
/// precondition `0 <= i && i < n` is the conjunction of what each copy excludes. The
/// function's executions are unchanged (each copy ends as the site does). A site with
/// instructions is left as it is (a copy would define its values twice).
pub(super) fn separate(func: &mut Function, sites: &[BlockId]) {
    for &site in sites {
        if !func.blocks[site.index()].insts.is_empty() {
            continue;
        }
        let mut first = true;
        for b in 0..func.blocks.len() {
            let n_edges = func.blocks[b].term.edges_mut().len();
            for e in 0..n_edges {
                if func.blocks[b].term.edges_mut()[e].target != site {
                    continue;
                }
                if std::mem::replace(&mut first, false) {
                    continue;
                }
                let mut copy = func.blocks[site.index()].clone();
                copy.name = format!("{}.{b}", copy.name);
                func.blocks.push(copy);
                let target = BlockId((func.blocks.len() - 1) as u32);
                func.blocks[b].term.edges_mut()[e].target = target;
            }
        }
    }
}

/// The operands of each assignment of `func` that `pick` accepts, by the value it defines.
fn definitions(
    func: &Function,
    pick: impl Fn(ValueId, &Expr) -> Option<(Operand, Operand)>,
) -> BTreeMap<ValueId, (Operand, Operand)> {
    func.blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter_map(|i| match i {
            Inst::Assign { dest, expr } => Some((*dest, pick(*dest, expr)?)),
            _ => None,
        })
        .collect()
}

/// A conjunct: a value, or a comparison to compute where it is tested.
#[derive(Clone, Copy)]
enum Leaf {
    Op(Operand),
    Cmp(CmpPred, Operand, Operand),
}

/// The leaves of the conjunction tree rooted at `op`, left to right.
fn conjuncts(op: Operand, ands: &BTreeMap<crate::ir::ValueId, (Operand, Operand)>) -> Vec<Operand> {
    match op {
        Operand::Value(v) if ands.contains_key(&v) => {
            let (lhs, rhs) = ands[&v];
            let mut out = conjuncts(lhs, ands);
            out.extend(conjuncts(rhs, ands));
            out
        }
        _ => vec![op],
    }
}
