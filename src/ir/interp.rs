//! Reading of each value: which integer a bit-vector stands for in the numeric domains.
//!
//! A `w`-bit value has a signed reading in `[-2^(w-1), 2^(w-1))` and an unsigned one in
//! `[0, 2^w)`; both are congruent modulo `2^w`, so any linear combination of readings is
//! congruent to the true result. Each value is given the reading its uses favour (a simple
//! form of the "domain types" of Apel et al.): unsigned comparisons, `udiv`, `urem`, `lshr`,
//! `zext` and `nuw` vote unsigned; their signed counterparts vote signed. Values tied by
//! phi moves, copies and additive arithmetic share one reading, so that loop counters keep
//! exact linear relations. Booleans are read unsigned (0 or 1).

use super::{BinOp, CastOp, CmpPred, Expr, Function, Inst, Operand, ValueId};

/// The reading of a value.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Interp {
    /// Two's complement.
    Signed,
    /// Plain binary.
    Unsigned,
}

/// Chooses a reading for every value of a function (indexed by `ValueId`).
pub fn choose_interpretations(func: &Function) -> Vec<Interp> {
    let n = func.values.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    let union = |parent: &mut Vec<usize>, a: ValueId, b: &Operand| {
        if let Operand::Value(b) = b {
            let (ra, rb) = (find(parent, a.index()), find(parent, b.index()));
            if ra != rb {
                parent[ra.max(rb)] = ra.min(rb);
            }
        }
    };
    let mut votes: Vec<i64> = vec![0; n]; // > 0 unsigned, < 0 signed
    let vote = |votes: &mut Vec<i64>, op: &Operand, unsigned: bool| {
        if let Operand::Value(v) = op {
            votes[v.index()] += if unsigned { 1 } else { -1 };
        }
    };
    for b in &func.blocks {
        for e in b.term.edges() {
            for (d, s) in &e.moves {
                union(&mut parent, *d, s);
            }
        }
        for inst in &b.insts {
            let Inst::Assign { dest, expr } = inst else {
                continue;
            };
            match expr {
                Expr::Use(a) => union(&mut parent, *dest, a),
                Expr::Binary {
                    op,
                    lhs,
                    rhs,
                    flags,
                } => {
                    match op {
                        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Shl => {
                            union(&mut parent, *dest, lhs);
                            union(&mut parent, *dest, rhs);
                        }
                        BinOp::UDiv | BinOp::URem | BinOp::LShr => {
                            vote(&mut votes, lhs, true);
                            vote(&mut votes, rhs, true);
                            votes[dest.index()] += 1;
                        }
                        BinOp::SDiv | BinOp::SRem | BinOp::AShr => {
                            vote(&mut votes, lhs, false);
                            vote(&mut votes, rhs, false);
                            votes[dest.index()] -= 1;
                        }
                        BinOp::And | BinOp::Or | BinOp::Xor => {}
                    }
                    if flags.nuw && !flags.nsw {
                        votes[dest.index()] += 1;
                    }
                    if flags.nsw && !flags.nuw {
                        votes[dest.index()] -= 1;
                    }
                }
                Expr::Cmp { pred, lhs, rhs } => {
                    if !matches!(pred, CmpPred::Eq | CmpPred::Ne) {
                        vote(&mut votes, lhs, pred.is_unsigned());
                        vote(&mut votes, rhs, pred.is_unsigned());
                    }
                }
                // The count is read from the operand's unsigned value, and is never negative.
                Expr::BitCount { arg, .. } => {
                    vote(&mut votes, arg, true);
                    votes[dest.index()] += 1;
                }
                Expr::Cast { op, arg } => match op {
                    CastOp::ZExt => vote(&mut votes, arg, true),
                    CastOp::SExt => vote(&mut votes, arg, false),
                    CastOp::Trunc => {}
                },
                Expr::Select {
                    on_true, on_false, ..
                } => {
                    union(&mut parent, *dest, on_true);
                    union(&mut parent, *dest, on_false);
                }
            }
        }
    }
    let mut class_votes: Vec<i64> = vec![0; n];
    for v in 0..n {
        let r = find(&mut parent, v);
        class_votes[r] += votes[v];
    }
    (0..n)
        .map(|v| {
            if func.values[v].ty.is_bool() {
                return Interp::Unsigned;
            }
            let r = find(&mut parent, v);
            if class_votes[r] > 0 {
                Interp::Unsigned
            } else {
                Interp::Signed
            }
        })
        .collect()
}
