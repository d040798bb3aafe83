//! Which source variables a trace shows unsigned (`size_t len = 18446744073709551615`, not
//! `-1`).
//!
//! The lifted program has bit-vectors without a C type; how the program uses a variable
//! tells the type clang compiled it with at `-O0`: an unsigned comparison, division,
//! remainder, logical shift right or zero extension reads it unsigned; a signed one, an
//! arithmetic shift, a sign extension or an operation marked `nsw` (C's signed arithmetic)
//! reads it signed. A variable shows unsigned when some use reads it unsigned and none
//! reads it signed; only the display depends on it.

use crate::ir::{BinOp, CastOp, CmpPred, Expr, Function, Inst, Operand};
use std::collections::{BTreeMap, BTreeSet};

/// The source names of `func`'s variables to show unsigned.
pub fn unsigned_variables(func: &Function) -> BTreeSet<String> {
    // Per source name: (uses reading it unsigned, uses reading it signed).
    let mut votes: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut vote = |op: &Operand, unsigned: bool| {
        let Operand::Value(v) = op else { return };
        let Some(name) = func.value(*v).source_name.as_deref() else {
            return;
        };
        let entry = votes.entry(name).or_default();
        if unsigned {
            entry.0 += 1;
        } else {
            entry.1 += 1;
        }
    };
    for b in &func.blocks {
        for inst in &b.insts {
            let Inst::Assign { expr, .. } = inst else {
                continue;
            };
            match expr {
                Expr::Cmp { pred, lhs, rhs } => {
                    let reading = match pred {
                        CmpPred::Ult | CmpPred::Ule | CmpPred::Ugt | CmpPred::Uge => Some(true),
                        CmpPred::Slt | CmpPred::Sle | CmpPred::Sgt | CmpPred::Sge => Some(false),
                        CmpPred::Eq | CmpPred::Ne => None,
                    };
                    if let Some(unsigned) = reading {
                        vote(lhs, unsigned);
                        vote(rhs, unsigned);
                    }
                }
                Expr::Binary {
                    op,
                    lhs,
                    rhs,
                    flags,
                    ..
                } => {
                    let reading = match op {
                        BinOp::UDiv | BinOp::URem | BinOp::LShr => Some(true),
                        BinOp::SDiv | BinOp::SRem | BinOp::AShr => Some(false),
                        _ if flags.nsw => Some(false),
                        _ => None,
                    };
                    if let Some(unsigned) = reading {
                        vote(lhs, unsigned);
                        vote(rhs, unsigned);
                    }
                }
                Expr::Cast {
                    op: CastOp::ZExt,
                    arg,
                } => vote(arg, true),
                Expr::Cast {
                    op: CastOp::SExt,
                    arg,
                } => vote(arg, false),
                _ => {}
            }
        }
    }
    votes
        .into_iter()
        .filter(|(_, (unsigned, signed))| *unsigned > 0 && *signed == 0)
        .map(|(name, _)| name.to_string())
        .collect()
}
