//! The pure definitions available at a point of the block being built, by expression with
//! the poison flags removed: an instantiation of a property (`conditions.rs`) that computes
//! the same expression reads the earlier definition instead of a fresh value, so that the
//! engines see one value where the program and the property compute `i * i` twice (two
//! products of the same values are unrelated in a linear domain).
//!
//! **Invariant:** an entry `expr -> v` means that `v` is defined earlier on every path to
//! the current point and equals `expr` there, wherever neither is poison. Sound: an
//! earlier definition of the same block dominates every later point of it, and a flagged
//! definition equals the expression without flags except where it is poison, which the
//! analysis takes as not happening (`ir::ArithFlags`). Expressions with an `undef` operand
//! are never entered (two `undef`s may differ). Operands are keyed by their value numbers
//! (`memo.rs`), equal values wherever both are available.
//!
//! A block entered by one edge only starts from its predecessor's table (the predecessor
//! dominates it: an extended basic block), and when that edge is one side of a branch on
//! `c`, `c` is known there (`known`): the instantiation `v != 0` of a store in the block
//! that a branch on the program's `v != 0` leads to is true. Every other block starts
//! empty.

use std::collections::HashMap;

use super::memo::Numbering;
use crate::ir::{ArithFlags, Expr, Function, Inst, Operand, Terminator, Ty, ValueId};

/// The most entries a block's table passes on to the block it leads to (a guard: the table
/// is cloned per block).
const MAX_AVAILABLE: usize = 1_024;

/// The definitions available at the current point, and the branch conditions known there.
#[derive(Clone, Default)]
pub struct Available {
    by_expr: HashMap<(Ty, Expr), Operand>,
    known: HashMap<ValueId, bool>,
}

/// How a block is entered: from one earlier block only (its predecessor, and the branch
/// condition that edge decides, `c` and its value, if any), or otherwise.
pub type SingleEntry = Option<(usize, Option<(ValueId, bool)>)>;

/// For each block, its [`SingleEntry`].
pub fn single_entries(func: &Function) -> Vec<SingleEntry> {
    let mut count = vec![0usize; func.blocks.len()];
    let mut from: Vec<SingleEntry> = vec![None; func.blocks.len()];
    for (b, block) in func.blocks.iter().enumerate() {
        for e in block.term.edges() {
            count[e.target.index()] += 1;
        }
        match &block.term {
            Terminator::Branch {
                cond: Operand::Value(c),
                then_edge,
                else_edge,
            } => {
                from[then_edge.target.index()] = Some((b, Some((*c, true))));
                from[else_edge.target.index()] = Some((b, Some((*c, false))));
            }
            term => {
                for e in term.edges() {
                    from[e.target.index()] = Some((b, None));
                }
            }
        }
    }
    from.into_iter()
        .zip(count)
        .map(|(f, n)| if n == 1 { f } else { None })
        .collect()
}

impl Available {
    /// The table at the start of a block entered as `entry`, given the tables the blocks
    /// built so far passed on at their ends.
    pub fn at_start(entry: SingleEntry, passed_on: &[Option<Available>]) -> Available {
        let Some((p, decided)) = entry else {
            return Available::default();
        };
        match &passed_on[p] {
            Some(t) if t.by_expr.len() + t.known.len() <= MAX_AVAILABLE => {
                let mut t = t.clone();
                if let Some((c, value)) = decided {
                    t.known.insert(c, value);
                }
                t
            }
            _ => Available::default(),
        }
    }

    /// The expression without poison flags, each operand replaced by its value number's
    /// representative (`memo::Numbering`: equal values wherever both are available), so
    /// that `sext(k) * sext(k)` computed twice from two extensions of `k` is one key.
    fn key(ty: Ty, expr: &Expr, numbering: &Numbering) -> Option<(Ty, Expr)> {
        let inst = Inst::Assign {
            dest: ValueId(0),
            expr: expr.clone(),
        };
        if inst
            .operands()
            .iter()
            .any(|o| matches!(o, Operand::Undef(_)))
        {
            return None;
        }
        let n = |op: &Operand| numbering.representative(*op);
        let expr = match expr {
            Expr::Binary { op, lhs, rhs, .. } => Expr::Binary {
                op: *op,
                lhs: n(lhs),
                rhs: n(rhs),
                flags: ArithFlags::default(),
            },
            Expr::Use(a) => Expr::Use(n(a)),
            Expr::Cmp { pred, lhs, rhs } => Expr::Cmp {
                pred: *pred,
                lhs: n(lhs),
                rhs: n(rhs),
            },
            Expr::Cast { op, arg } => Expr::Cast {
                op: *op,
                arg: n(arg),
            },
            Expr::BitCount { count, arg } => Expr::BitCount {
                count: *count,
                arg: n(arg),
            },
            Expr::Select {
                cond,
                on_true,
                on_false,
            } => Expr::Select {
                cond: n(cond),
                on_true: n(on_true),
                on_false: n(on_false),
            },
        };
        Some((ty, expr))
    }

    /// An available definition of `expr`.
    pub fn get(&self, ty: Ty, expr: &Expr, numbering: &Numbering) -> Option<Operand> {
        self.by_expr.get(&Self::key(ty, expr, numbering)?).copied()
    }

    /// Enters the definition `dest := expr` (the first of an expression stays).
    pub fn define(&mut self, ty: Ty, expr: &Expr, dest: ValueId, numbering: &Numbering) {
        if let Some(key) = Self::key(ty, expr, numbering) {
            self.by_expr.entry(key).or_insert(Operand::Value(dest));
        }
    }

    /// The value of the `i1` `v` at this point, when the branches that lead here decide it.
    pub fn known(&self, v: ValueId) -> Option<bool> {
        self.known.get(&v).copied()
    }
}
