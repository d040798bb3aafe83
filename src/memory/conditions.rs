//! Conditions of assertions read as properties of array elements, shared by the predicate
//! segments (`predicates.rs`, one cell) and the pair segments (`pairs.rs`, two cells): the
//! branches to error sites ([`error_branches`]), the walk of a condition's definitions
//! down to the loads of elements it reads ([`Walk`], through the short-circuit joins of
//! [`short_circuits`]), and the instantiation of such a condition at other values
//! ([`instantiate_cone`]).
//!
//! **Invariant:** an instantiation is a fixed total function of the values it is given: its
//! instructions are pure, without poison flags (an instantiation must never end a path:
//! the program does not compute it), division, remainder or variable shift (which could be
//! undefined) ([`safe`]); every other operand is a constant or a value of the entry block
//! (the same at every point of the function). Each instantiation is an exact reading of
//! the same condition, also where it reuses the program's own values:
//! - a definition earlier in the block, or in the chain of single-entry blocks that leads
//!   to it, with the same expression up to poison flags is reused (`available.rs`: it
//!   dominates the point, and a flagged value differs only where it is poison, which the
//!   analysis takes as not happening); the table is keyed by value numbers (`memo.rs`), so
//!   `sext(k) * sext(k)` computed from two extensions of `k` is one key, which is sound for
//!   the same reason the memo's offsets are (equal numbers are equal values wherever both
//!   are available);
//! - a branch condition that the single entry edge of the block decides is known there;
//! - the negation of a comparison is the inverse comparison;
//! - comparisons of `b + c1` with `b + c2` (`nsw` chains), of constants or of a value with
//!   itself fold ([`fold`]).
//!
//! So `a[i] = i * i` is known to satisfy `a[i] == i * i` (one product, not two unrelated
//! ones), without a select the engines would join (a select is a join of both sides in the
//! abstract transformers).

use std::collections::{HashMap, HashSet};

use super::cells::CellId;
use super::emit::Emit;
use crate::ir::{
    ArithFlags, BinOp, CastOp, CmpPred, Const, Expr, Function, Inst, Operand, Terminator, Ty,
    ValueId,
};

/// The most instructions of one condition.
pub const MAX_CONE: usize = 32;

/// The definitions an instantiation looks through: those an access's offset is computed
/// from, to find its index (`Site`), and additions of constants, to compare `i - 2` with
/// `i - 1` (`fold`).
pub struct Indices {
    defs: HashMap<ValueId, Expr>,
}

/// The index of one access: its offset is `ext(index) << shift`, and `root` is the wider
/// value `index` truncates, if any.
#[derive(Clone, Copy, Debug)]
pub(super) struct Site {
    pub index: ValueId,
    pub shift: u32,
    pub root: Option<ValueId>,
}

impl Indices {
    /// The casts, shifts, multiplications, additions and subtractions of `func`.
    pub fn new(func: &Function) -> Indices {
        let defs = func
            .blocks
            .iter()
            .flat_map(|b| &b.insts)
            .filter_map(|i| match i {
                Inst::Assign { dest, expr }
                    if matches!(
                        expr,
                        Expr::Cast { .. }
                            | Expr::Binary {
                                op: BinOp::Shl | BinOp::Mul | BinOp::Add | BinOp::Sub,
                                ..
                            }
                    ) =>
                {
                    Some((*dest, expr.clone()))
                }
                _ => None,
            })
            .collect();
        Indices { defs }
    }

    /// `(b, c)` when `op` is `b + c` exactly in the signed reading: a chain of additions
    /// and subtractions of constants, each `nsw` (a flagged result that wraps is poison,
    /// which the analysis takes as not happening).
    fn affine(&self, op: &Operand) -> (Operand, i128) {
        let mut at = *op;
        let mut offset: i128 = 0;
        for _ in 0..8 {
            let Operand::Value(v) = at else { break };
            let Some(Expr::Binary {
                op,
                lhs,
                rhs: Operand::Const(k),
                flags,
            }) = self.defs.get(&v)
            else {
                break;
            };
            if !flags.nsw {
                break;
            }
            match op {
                BinOp::Add => offset += k.signed(),
                BinOp::Sub => offset -= k.signed(),
                _ => break,
            }
            at = *lhs;
        }
        (at, offset)
    }

    pub(super) fn site(&self, offset: &Operand) -> Option<Site> {
        let (index, shift) = index_of_in(offset, &|v| self.defs.get(&v))?;
        let root = match self.defs.get(&index) {
            Some(Expr::Cast {
                op: CastOp::Trunc,
                arg: Operand::Value(r),
            }) => Some(*r),
            _ => None,
        };
        Some(Site { index, shift, root })
    }
}

/// The definitions a condition's walk looks through: every assignment, and the boolean
/// phis that join short-circuit conditions (`joins`, from [`short_circuits`]).
pub(super) fn definitions<'f>(
    func: &'f Function,
    joins: &'f HashMap<ValueId, Expr>,
) -> HashMap<ValueId, &'f Expr> {
    let mut defs: HashMap<ValueId, &Expr> = joins.iter().map(|(v, e)| (*v, e)).collect();
    for inst in func.blocks.iter().flat_map(|b| &b.insts) {
        if let Inst::Assign { dest, expr } = inst {
            defs.insert(*dest, expr);
        }
    }
    defs
}

/// The values of the entry block (the same at every point of the function).
pub(super) fn entry_values(func: &Function) -> HashSet<ValueId> {
    func.blocks[func.entry.index()]
        .insts
        .iter()
        .filter_map(|i| i.dest())
        .collect()
}

/// The branches to an error site on one side only: each one's condition, and whether the
/// error lies on its true side (the property is then the condition's negation).
pub(super) fn error_branches(func: &Function) -> Vec<(ValueId, bool)> {
    func.blocks
        .iter()
        .filter_map(|block| {
            let Terminator::Branch {
                cond: Operand::Value(cond),
                then_edge,
                else_edge,
            } = &block.term
            else {
                return None;
            };
            match (
                is_error(func, then_edge.target),
                is_error(func, else_edge.target),
            ) {
                (true, false) => Some((*cond, true)),
                (false, true) => Some((*cond, false)),
                _ => None,
            }
        })
        .collect()
}

/// Whether `block` is an error site or jumps straight to one.
fn is_error(func: &Function, block: crate::ir::BlockId) -> bool {
    let b = &func.blocks[block.index()];
    match &b.term {
        Terminator::Error(_) => true,
        Terminator::Jump(e) if b.insts.is_empty() && e.moves.is_empty() => {
            matches!(func.blocks[e.target.index()].term, Terminator::Error(_))
        }
        _ => false,
    }
}

/// Whether an instantiation of `expr` is total and never poison once flags are removed.
pub(super) fn safe(expr: &Expr, ty: Ty) -> bool {
    match expr {
        Expr::Binary { op, rhs, .. } => match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor => true,
            BinOp::Shl | BinOp::LShr | BinOp::AShr => {
                matches!(rhs, Operand::Const(k) if k.bits < ty.width as u128)
            }
            _ => false,
        },
        Expr::Use(_)
        | Expr::Cmp { .. }
        | Expr::Cast { .. }
        | Expr::Select { .. }
        | Expr::BitCount { .. } => true,
    }
}

/// `(i, k)` when `offset` is `i << k` or `i * 2^k`, with `i` a value or its extension.
pub(super) fn index_of(offset: &Operand, defs: &HashMap<ValueId, &Expr>) -> Option<(ValueId, u32)> {
    index_of_in(offset, &|v| defs.get(&v).copied())
}

/// [`index_of`] over any map of definitions.
fn index_of_in<'e>(
    offset: &Operand,
    defs: &dyn Fn(ValueId) -> Option<&'e Expr>,
) -> Option<(ValueId, u32)> {
    let Operand::Value(o) = offset else {
        return None;
    };
    let (ix, k) = match defs(*o)? {
        Expr::Binary {
            op: BinOp::Shl,
            lhs,
            rhs: Operand::Const(k),
            ..
        } if k.bits < 64 => (*lhs, k.bits as u32),
        Expr::Binary {
            op: BinOp::Mul,
            lhs,
            rhs: Operand::Const(m),
            ..
        }
        | Expr::Binary {
            op: BinOp::Mul,
            lhs: Operand::Const(m),
            rhs: lhs,
            ..
        } if m.bits.is_power_of_two() && m.bits < 1 << 63 => (*lhs, m.bits.trailing_zeros()),
        _ => return None,
    };
    let Operand::Value(ix) = ix else {
        return None;
    };
    match defs(ix) {
        Some(Expr::Cast {
            op: CastOp::SExt | CastOp::ZExt,
            arg: Operand::Value(i),
        }) => Some((*i, k)),
        _ => Some((ix, k)),
    }
}

/// The booleans that short-circuit evaluation joins, as the expressions of both operands
/// they compute: at -O0, `a || b` branches on `a` to the join with `true`, or to a block
/// entered from that branch only that computes `b` and jumps to the join with it; `a && b`
/// the same with `false` on the else edge. The join's value is `a | b` (`a & b`) on every
/// path to it, so the expression is the condition the program computes, one a property can
/// instantiate at any point. Only the choice of properties reads it (which is precision:
/// any pure function of the element is a sound property).
pub(super) fn short_circuits(func: &Function) -> HashMap<ValueId, Expr> {
    use crate::ir::BlockId;
    let mut incoming: Vec<Vec<(usize, &crate::ir::Edge)>> = vec![Vec::new(); func.blocks.len()];
    for (b, block) in func.blocks.iter().enumerate() {
        for e in block.term.edges() {
            incoming[e.target.index()].push((b, e));
        }
    }
    let mut res = HashMap::new();
    for (j, ins) in incoming.iter().enumerate() {
        let [(pa, ea), (pb, eb)] = ins.as_slice() else {
            continue;
        };
        for ((a, edge_a), (b, edge_b)) in [((*pa, *ea), (*pb, *eb)), ((*pb, *eb), (*pa, *ea))] {
            let Terminator::Branch {
                cond,
                then_edge,
                else_edge,
            } = &func.blocks[a].term
            else {
                continue;
            };
            // `A` branches to the join on one side and to `B` on the other; `B` is entered
            // from there only and jumps to the join.
            let (op, short) = if std::ptr::eq(then_edge, edge_a) {
                (BinOp::Or, else_edge)
            } else if std::ptr::eq(else_edge, edge_a) {
                (BinOp::And, then_edge)
            } else {
                continue;
            };
            let entered_once = incoming[b].len() == 1 && incoming[b][0].0 == a;
            if short.target != BlockId(b as u32)
                || !entered_once
                || !matches!(func.blocks[b].term, Terminator::Jump(_))
                || b == j
            {
                continue;
            }
            for (dest, from_a) in &edge_a.moves {
                if func.value(*dest).ty != Ty::BOOL {
                    continue;
                }
                let short_value = Const::bool(op == BinOp::Or);
                if *from_a != Operand::Const(short_value) {
                    continue;
                }
                let Some((_, from_b)) = edge_b.moves.iter().find(|(d, _)| d == dest) else {
                    continue;
                };
                res.insert(
                    *dest,
                    Expr::Binary {
                        op,
                        lhs: *cond,
                        rhs: *from_b,
                        flags: ArithFlags::default(),
                    },
                );
            }
        }
    }
    res
}

/// A walk of a condition's definitions.
#[derive(Default)]
pub(super) struct Walk {
    seen: HashSet<ValueId>,
    /// Assignments, operands first.
    pub(super) cone: Vec<ValueId>,
    /// Summary loads read.
    pub(super) elems: HashSet<ValueId>,
    /// Values neither defined by an assignment, nor entry values, nor loads, nor the index.
    pub(super) others: HashSet<ValueId>,
    pub(super) failed: bool,
}

impl Walk {
    pub(super) fn run(
        &mut self,
        v: ValueId,
        defs: &HashMap<ValueId, &Expr>,
        loads: &HashMap<ValueId, (CellId, Operand)>,
        entry: &HashSet<ValueId>,
        leaves: &[ValueId],
    ) {
        if !self.seen.insert(v) {
            return;
        }
        if self.seen.len() > 4 * MAX_CONE {
            self.failed = true; // a cut cone would leave operands unrenamed
            return;
        }
        if loads.contains_key(&v) {
            self.elems.insert(v);
            return;
        }
        if leaves.contains(&v) || entry.contains(&v) {
            return;
        }
        let Some(expr) = defs.get(&v) else {
            self.others.insert(v);
            return;
        };
        let inst = Inst::Assign {
            dest: v,
            expr: (*expr).clone(),
        };
        for op in inst.operands() {
            match op {
                Operand::Value(x) => self.run(*x, defs, loads, entry, leaves),
                Operand::Undef(_) => self.failed = true,
                Operand::Const(_) => {}
            }
        }
        self.cone.push(v);
    }
}

/// The truth of a condition whose cone (`cone`, operands before users; `cond` its value,
/// negated when `negate`) is instantiated with the values `map` gives its leaves: an `i1`
/// operand, folded where it does not depend on the values. Every instruction is emitted
/// without poison flags (`emit_expr`, which reuses the block's equal definitions).
pub(super) fn instantiate_cone(
    em: &mut dyn Emit,
    cone: &[(ValueId, Ty, Expr)],
    cond: Operand,
    negate: bool,
    mut map: HashMap<ValueId, Operand>,
    indices: &Indices,
) -> Operand {
    let rename = |op: &Operand, map: &HashMap<ValueId, Operand>| match op {
        Operand::Value(v) => map.get(v).copied().unwrap_or(*op),
        other => *other,
    };
    let cond_value = match cond {
        Operand::Value(c) => Some(c),
        _ => None,
    };
    let mut negated = false;
    for (v, ty, expr) in cone {
        let e = match expr {
            Expr::Use(a) => Expr::Use(rename(a, &map)),
            Expr::Binary { op, lhs, rhs, .. } => Expr::Binary {
                op: *op,
                lhs: rename(lhs, &map),
                rhs: rename(rhs, &map),
                flags: ArithFlags::default(),
            },
            Expr::Cmp { pred, lhs, rhs } => Expr::Cmp {
                pred: *pred,
                lhs: rename(lhs, &map),
                rhs: rename(rhs, &map),
            },
            Expr::Cast { op, arg } => Expr::Cast {
                op: *op,
                arg: rename(arg, &map),
            },
            Expr::BitCount { count, arg } => Expr::BitCount {
                count: *count,
                arg: rename(arg, &map),
            },
            Expr::Select {
                cond,
                on_true,
                on_false,
            } => Expr::Select {
                cond: rename(cond, &map),
                on_true: rename(on_true, &map),
                on_false: rename(on_false, &map),
            },
        };
        // The negation of a comparison is the inverse comparison (the engines read it as a
        // guard, and it may be the very condition of a branch the program took).
        let e = match e {
            Expr::Cmp { pred, lhs, rhs } if negate && Some(*v) == cond_value => {
                negated = true;
                Expr::Cmp {
                    pred: pred.negated(),
                    lhs,
                    rhs,
                }
            }
            e => e,
        };
        let out = match fold(&e, indices) {
            Some(c) => c,
            None => em.emit_expr(*ty, e),
        };
        let out = match out {
            Operand::Value(c) if *ty == Ty::BOOL => {
                em.known(c).map_or(out, |b| Operand::Const(Const::bool(b)))
            }
            _ => out,
        };
        map.insert(*v, out);
    }
    let holds = rename(&cond, &map);
    if negate && !negated {
        match holds {
            Operand::Const(c) => Operand::Const(Const::bool(c.bits == 0)),
            // `xor c, true`, which the engines read as a guard on `c` (a select would not be).
            _ => em.emit_expr(
                Ty::BOOL,
                Expr::Binary {
                    op: BinOp::Xor,
                    lhs: holds,
                    rhs: Operand::Const(Const::bool(true)),
                    flags: ArithFlags::default(),
                },
            ),
        }
    } else {
        holds
    }
}

/// The constant an expression of the instantiation folds to, when its value does not
/// depend on its operands' values: a comparison of a value with itself, or (signed or
/// equality) of `b + c1` with `b + c2` (`Indices::affine`), a select on a constant, an
/// operation of two `i1` constants. Folding keeps selects on a constant out of the bounds
/// (a store of `a[i] = i` under `a[i] >= i` is known to extend the segment, one of
/// `a[i-1] = i - 2` to cut it).
pub(super) fn fold(e: &Expr, indices: &Indices) -> Option<Operand> {
    let truth = |b: bool| Some(Operand::Const(Const::bool(b)));
    match e {
        Expr::Cmp { pred, lhs, rhs } if lhs == rhs && matches!(lhs, Operand::Value(_)) => {
            truth(matches!(
                pred,
                CmpPred::Eq | CmpPred::Uge | CmpPred::Ule | CmpPred::Sge | CmpPred::Sle
            ))
        }
        Expr::Cmp {
            pred,
            lhs: Operand::Const(a),
            rhs: Operand::Const(b),
        } if a.ty == b.ty => truth(compare(*pred, *a, *b)),
        Expr::Cmp { pred, lhs, rhs } => {
            let (a, c1) = indices.affine(lhs);
            let (b, c2) = indices.affine(rhs);
            if a != b || !matches!(a, Operand::Value(_)) || (c1 == 0 && c2 == 0) {
                return None;
            }
            match pred {
                CmpPred::Eq => truth(c1 == c2),
                CmpPred::Ne => truth(c1 != c2),
                CmpPred::Slt => truth(c1 < c2),
                CmpPred::Sle => truth(c1 <= c2),
                CmpPred::Sgt => truth(c1 > c2),
                CmpPred::Sge => truth(c1 >= c2),
                _ => None,
            }
        }
        Expr::Select {
            cond: Operand::Const(c),
            on_true,
            on_false,
        } => Some(if c.bits != 0 { *on_true } else { *on_false }),
        Expr::Select {
            cond,
            on_true: Operand::Const(t),
            on_false: Operand::Const(f),
        } if t.ty == Ty::BOOL && t.bits != 0 && f.bits == 0 => Some(*cond),
        Expr::Binary {
            op: op @ (BinOp::And | BinOp::Or | BinOp::Xor),
            lhs: Operand::Const(a),
            rhs: Operand::Const(b),
            ..
        } if a.ty == Ty::BOOL && b.ty == Ty::BOOL => {
            let (a, b) = (a.bits != 0, b.bits != 0);
            truth(match op {
                BinOp::And => a && b,
                BinOp::Or => a || b,
                _ => a != b,
            })
        }
        // `true || x`, `false && x`, and the neutral constants.
        Expr::Binary {
            op: op @ (BinOp::And | BinOp::Or),
            lhs,
            rhs,
            ..
        } => {
            let (k, other) = match (lhs, rhs) {
                (Operand::Const(k), other) | (other, Operand::Const(k)) if k.ty == Ty::BOOL => {
                    (k.bits != 0, *other)
                }
                _ => return None,
            };
            match (op, k) {
                (BinOp::Or, true) => truth(true),
                (BinOp::And, false) => truth(false),
                _ => Some(other),
            }
        }
        _ => None,
    }
}

/// `pred` of two constants of one type.
fn compare(pred: CmpPred, a: Const, b: Const) -> bool {
    pred.holds((a.unsigned(), b.unsigned()), (a.signed(), b.signed()))
}
