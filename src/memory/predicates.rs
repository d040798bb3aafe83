//! Predicate segments of smashed arrays (issue 15): for a summary cell and a property
//! `P(x, o)` of an element's value `x` at byte offset `o`, a range `[lo, hi)` in which every
//! element satisfies `P`. The properties are the conditions of the function's assertions
//! that read one element of the cell (`a[i] != 0`, `a[i] >= i`, `a[i] == i * i`), with the
//! element's value as `x` and the index the element's offset was computed from rewritten
//! as a function of the offset (`i` is `o >> 2` when the offset is `sext(i) << 2`); every
//! other operand of the condition is a value of the entry block, so it is the same at every
//! point of the function. So `for (i = 0; i < n; i++) a[i] = i;` leaves `[0, 4n)` where
//! `a[k] >= k` holds, and a later load of `a[j]` inside it reads a value assumed to satisfy
//! it, where the summary alone gives any value.
//!
//! **Invariant** (of every predicate segment, at every point): every element of the base
//! whose byte offset `o` (on the summary's grid) has `lo <= o < hi` satisfies `P(x, o)`.
//! The bounds follow the rules of `segments.rs`, with a store of "the property" being a
//! store of `v` at `o` with `P(v, o)` (a select on its instantiation), which here also
//! extends the segment downwards (`o + s == lo` gives `[o, hi)`, for loops that fill an
//! array from its end); the argument of `segments.rs`, wrap-around included, carries
//! over. `P` is a fixed function of `(x, o)`: its instantiations are pure expressions over
//! `x`, `o`, constants and entry-block values, with every poison flag removed (an
//! instantiation must never end a path: the program does not compute it), and no division,
//! remainder or variable shift (which could be undefined). A load inside the range reads a
//! fresh value (the summary's), on which `P` is assumed.

use std::collections::{HashMap, HashSet};

use super::cells::{self, CellId, Cells};
use super::segments::{self, Emit, I64};
use super::ssa::{Sym, SymExpr};
use crate::ir::{
    ArithFlags, BinOp, CastOp, CmpPred, Const, Expr, Function, Inst, MemOp, Operand, Terminator,
    Ty, ValueId,
};

/// The most properties of one function.
const MAX_PROPERTIES: usize = 8;

/// The most instructions of one property's condition.
const MAX_CONE: usize = 32;

/// Past this many (load or store of a cell with properties) × its properties, none is made.
const MAX_UPDATES: usize = 2_000;

/// A property of the elements of a summary cell.
#[derive(Clone, Debug)]
pub struct Property {
    pub cell: CellId,
    /// The element's value in the condition.
    elem: ValueId,
    /// The condition's definitions, operands before users.
    cone: Vec<(ValueId, Ty, Expr)>,
    cond: Operand,
    /// The property is the condition's negation (the error lies on its true side).
    negate: bool,
    /// The index the element's offset is computed from: the offset is `ext(i) << k`, so
    /// `i` is `o >> k` (arithmetic), truncated to `i`'s type when narrower than `i64`.
    index: Option<(ValueId, u32, Ty)>,
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
fn safe(expr: &Expr, ty: Ty) -> bool {
    match expr {
        Expr::Binary { op, rhs, .. } => match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor => true,
            BinOp::Shl | BinOp::LShr | BinOp::AShr => {
                matches!(rhs, Operand::Const(k) if k.bits < ty.width as u128)
            }
            _ => false,
        },
        Expr::Use(_) | Expr::Cmp { .. } | Expr::Cast { .. } | Expr::Select { .. } => true,
    }
}

/// `(i, k)` when `offset` is `i << k` or `i * 2^k`, with `i` a value or its extension.
fn index_of(offset: &Operand, defs: &HashMap<ValueId, &Expr>) -> Option<(ValueId, u32)> {
    let Operand::Value(o) = offset else {
        return None;
    };
    let (ix, k) = match defs.get(o)? {
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
    match defs.get(&ix) {
        Some(Expr::Cast {
            op: CastOp::SExt | CastOp::ZExt,
            arg: Operand::Value(i),
        }) => Some((*i, k)),
        _ => Some((ix, k)),
    }
}

/// The properties of `func`'s summary cells, from the conditions of branches to error
/// sites. Which are chosen only affects precision, never soundness.
pub fn choose(func: &Function, cells: &Cells) -> Vec<Property> {
    let mut defs: HashMap<ValueId, &Expr> = HashMap::new();
    let mut loads: HashMap<ValueId, (CellId, Operand)> = HashMap::new();
    let mut accesses: HashMap<CellId, usize> = HashMap::new();
    for inst in func.blocks.iter().flat_map(|b| &b.insts) {
        match inst {
            Inst::Assign { dest, expr } => {
                defs.insert(*dest, expr);
            }
            Inst::Mem(MemOp::Load { dest, addr }) => {
                let ty = func.value(*dest).ty;
                if let Some((c, true)) = cells.cell_of(addr.base, &addr.offset, ty) {
                    loads.insert(*dest, (c, addr.offset));
                    *accesses.entry(c).or_default() += 1;
                }
            }
            Inst::Mem(MemOp::Store { addr, value }) => {
                let ty = func.operand_ty(value);
                if let Some((c, true)) = cells.cell_of(addr.base, &addr.offset, ty) {
                    *accesses.entry(c).or_default() += 1;
                }
            }
            _ => {}
        }
    }
    let entry: HashSet<ValueId> = func.blocks[func.entry.index()]
        .insts
        .iter()
        .filter_map(|i| i.dest())
        .collect();
    let mut props: Vec<Property> = Vec::new();
    for block in &func.blocks {
        let Terminator::Branch {
            cond: Operand::Value(cond),
            then_edge,
            else_edge,
        } = &block.term
        else {
            continue;
        };
        let negate = match (
            is_error(func, then_edge.target),
            is_error(func, else_edge.target),
        ) {
            (true, false) => true,
            (false, true) => false,
            _ => continue,
        };
        // The summary loads the condition reads: exactly one element.
        let mut found = Walk::default();
        found.run(*cond, &defs, &loads, &entry, None);
        let Some(elem) = found.elems.iter().next().copied() else {
            continue;
        };
        if found.elems.len() != 1 {
            continue;
        }
        let (cell, offset) = loads[&elem];
        let index = index_of(&offset, &defs).map(|(i, k)| (i, k, func.value(i).ty));
        let mut walk = Walk::default();
        walk.run(*cond, &defs, &loads, &entry, index.map(|(i, _, _)| i));
        if walk.failed || walk.cone.len() > MAX_CONE || !walk.others.is_empty() {
            continue;
        }
        if index.is_some_and(|(_, k, ty)| ty.width as u32 + k > 64 || ty.width > 64) {
            continue;
        }
        let cone: Vec<(ValueId, Ty, Expr)> = walk
            .cone
            .iter()
            .map(|v| (*v, func.value(*v).ty, defs[v].clone()))
            .collect();
        if cone.iter().any(|(_, ty, e)| !safe(e, *ty)) {
            continue;
        }
        // `x == k` and `x != k` are the constant segments' (`segments.rs`), which cost less.
        if let [(_, _, Expr::Cmp { pred, lhs, rhs })] = cone.as_slice() {
            let against_constant = matches!(
                (lhs, rhs),
                (Operand::Value(_), Operand::Const(_)) | (Operand::Const(_), Operand::Value(_))
            );
            if against_constant && matches!(pred, CmpPred::Eq | CmpPred::Ne) {
                continue;
            }
        }
        if props.len() < MAX_PROPERTIES {
            props.push(Property {
                cell,
                elem,
                cone,
                cond: Operand::Value(*cond),
                negate,
                index,
            });
        }
    }
    let updates: usize = props
        .iter()
        .map(|p| accesses.get(&p.cell).copied().unwrap_or(0))
        .sum();
    if updates > MAX_UPDATES {
        return vec![];
    }
    props
}

/// A walk of a condition's definitions.
#[derive(Default)]
struct Walk {
    seen: HashSet<ValueId>,
    /// Assignments, operands first.
    cone: Vec<ValueId>,
    /// Summary loads read.
    elems: HashSet<ValueId>,
    /// Values neither defined by an assignment, nor entry values, nor loads, nor the index.
    others: HashSet<ValueId>,
    failed: bool,
}

impl Walk {
    fn run(
        &mut self,
        v: ValueId,
        defs: &HashMap<ValueId, &Expr>,
        loads: &HashMap<ValueId, (CellId, Operand)>,
        entry: &HashSet<ValueId>,
        index: Option<ValueId>,
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
        if Some(v) == index || entry.contains(&v) {
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
                Operand::Value(x) => self.run(*x, defs, loads, entry, index),
                Operand::Undef(_) => self.failed = true,
                Operand::Const(_) => {}
            }
        }
        self.cone.push(v);
    }
}

/// Instantiates the property at the element value `x` and offset `o`: an `i1` operand that
/// holds exactly when `P(x, o)`.
pub fn instantiate(em: &mut dyn Emit, p: &Property, x: Operand, o: Operand) -> Operand {
    let mut map: HashMap<ValueId, Operand> = HashMap::new();
    map.insert(p.elem, x);
    if let Some((i, k, ty)) = p.index {
        let shifted = em.emit_expr(
            I64,
            Expr::Binary {
                op: BinOp::AShr,
                lhs: o,
                rhs: Operand::Const(Const::new(I64, k as i128)),
                flags: ArithFlags::default(),
            },
        );
        let i_val = if ty.width < 64 {
            em.emit_expr(
                ty,
                Expr::Cast {
                    op: CastOp::Trunc,
                    arg: shifted,
                },
            )
        } else {
            shifted
        };
        map.insert(i, i_val);
    }
    let rename = |op: &Operand, map: &HashMap<ValueId, Operand>| match op {
        Operand::Value(v) => map.get(v).copied().unwrap_or(*op),
        other => *other,
    };
    for (v, ty, expr) in &p.cone {
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
        let out = em.emit_expr(*ty, e);
        map.insert(*v, out);
    }
    let holds = rename(&p.cond, &map);
    if p.negate {
        // `xor c, true`, which the engines read as a guard on `c` (a select would not be).
        em.emit_expr(
            Ty::BOOL,
            Expr::Binary {
                op: BinOp::Xor,
                lhs: holds,
                rhs: Operand::Const(Const::bool(true)),
                flags: ArithFlags::default(),
            },
        )
    } else {
        holds
    }
}

/// Assumes the property of a load of value `x` at `offset`, inside the segment.
pub fn load(em: &mut dyn Emit, p: &Property, bounds: (Sym, Sym), offset: Operand, x: Operand) {
    let (lo, hi) = bounds;
    let o = Sym::Op(offset);
    let below_hi = em.emit(Ty::BOOL, SymExpr::Less(o, hi));
    let below_lo = em.emit(Ty::BOOL, SymExpr::Less(o, lo));
    let holds = instantiate(em, p, x, offset);
    let no = Sym::Op(Operand::Const(Const::bool(false)));
    let yes = Sym::Op(Operand::Const(Const::bool(true)));
    let inside = em.emit(Ty::BOOL, SymExpr::Select(below_lo, no, below_hi));
    let ok = em.emit(Ty::BOOL, SymExpr::Select(inside, Sym::Op(holds), yes));
    em.assume(ok);
}

/// The bounds after a store of `value` at `offset` (in the entry block, `in_entry`, where
/// the entry values the property reads may not be defined yet, it is a store of another
/// value).
pub fn store(
    em: &mut dyn Emit,
    p: &Property,
    ty: Ty,
    bounds: (Sym, Sym),
    offset: Operand,
    value: Operand,
    in_entry: bool,
) -> (Sym, Sym) {
    let size = cells::bytes(ty) as i128;
    let o = Sym::Op(offset);
    if in_entry {
        return segments::other(em, bounds, o, size);
    }
    let holds = Sym::Op(instantiate(em, p, value, offset));
    let (lo_s, hi_s) = both_ends(em, bounds, o, size);
    let (lo_o, hi_o) = segments::other(em, bounds, o, size);
    (
        em.emit(I64, SymExpr::Select(holds, lo_s, lo_o)),
        em.emit(I64, SymExpr::Select(holds, hi_s, hi_o)),
    )
}

/// A store of an element satisfying the property: [`segments::same`], and also at
/// `lo - s` of a non-empty segment it extends the segment downwards.
fn both_ends(em: &mut dyn Emit, bounds: (Sym, Sym), o: Sym, size: i128) -> (Sym, Sym) {
    let (lo, hi) = bounds;
    let (lo_s, hi_s) = segments::same(em, bounds, o, size);
    let o_s = em.emit(I64, SymExpr::Add(o, segments::constant(I64, size)));
    let nonempty = em.emit(Ty::BOOL, SymExpr::Less(lo, hi));
    let at_lo = em.emit(Ty::BOOL, SymExpr::Equal(o_s, lo));
    let no = Sym::Op(Operand::Const(Const::bool(false)));
    let below = em.emit(Ty::BOOL, SymExpr::Select(nonempty, at_lo, no));
    (em.emit(I64, SymExpr::Select(below, o, lo_s)), hi_s)
}
