//! Segments of smashed arrays (issue 15): for a summary cell and a constant `k`, a range
//! `[lo, hi)` of byte offsets (two `i64` values, compared signed) in which every element of
//! the array holds `k`. So `for (i = 0; i < n; i++) a[i] = k;` leaves `[0, 4n)` holding `k`,
//! and a later load of `a[j]` with `0 <= j < n` reads `k`, where the summary alone gives
//! any value some element may hold. It is the array segmentation of Cousot, Cousot and
//! Logozzo (POPL 2011) reduced to one segment per candidate constant, with the bounds as
//! ordinary values: the engines relate them to the loop counters, the memory pass never
//! reasons about them.
//!
//! **Invariant** (of every segment, at every point): every element of the base whose byte
//! offset `o` (on the summary's grid) has `lo <= o < hi` holds `k`. It holds at the entry
//! (`[0, 0)` is empty) and is kept by every update below, whatever the bounds and offsets,
//! wrap-around included:
//! - a store of `k` at `o`: `o == hi` gives `[lo, hi + s)` (a wrapped `hi + s` leaves a
//!   range inside the old one or empty); an empty segment restarts as `[o, o + s)`;
//!   anything else keeps the segment (an element of it still holds `k`, one outside is not
//!   in it);
//! - a store of another value at `o` inside `[lo, hi)`: `[lo, o)`, or `[o + s, hi)` when
//!   `o == lo`; outside, the segment is kept. `o + s` does not wrap: the access is within
//!   its object (ARCHITECTURE.md, "What a proved rests on", item 5, which the memory model
//!   already rests on), whose bytes lie less than 2^63 from the address its offsets count
//!   from;
//! - a store whose value is not a constant takes the first update when it equals `k`, the
//!   second otherwise (a select on the stored value);
//! - an initializer of the whole object with `k` everywhere gives every offset but
//!   `i64::MAX` (the other constants' segments become empty); a clobber, any other
//!   initializer, or a write to a base that may alias this one empties the segment.
//!
//! Elements are distinct exactly when their offsets are: every access of a smashed base has
//! the summary's type and lies on one grid of that type's size (`cells.rs`). Every
//! condition is a single comparison, so that each side of a select is one guard the
//! engines can use (`!=` refutes a state where both sides are equal).

use std::collections::HashMap;

use super::cells::{self, CellId, Cells, Layout};
use super::ssa::{Sym, SymExpr};
use crate::ir::{BinOp, Const, Expr, Function, Inst, MemOp, Operand, Ty, ValueId};

/// The most constants one summary cell gets a segment for. This and the limits below are
/// guards on the size of the lowered function: each segment adds selects at every access
/// of its cell.
const MAX_PER_CELL: usize = 2;

/// The most segments of one function.
pub const MAX_SEGMENTS: usize = 32;

/// Past this many (load or store of a summary cell with segments) × segments of its cell,
/// no segment is made: each costs a handful of selects.
const MAX_UPDATES: usize = 4_000;

pub const I64: Ty = Ty { width: 64 };

/// A segment: the summary cell and the constant its elements hold.
#[derive(Clone, Debug)]
pub struct Segment {
    pub cell: CellId,
    pub value: Const,
}

/// The segments of `func`'s summary cells. Candidates are the constants stored into the
/// cell or initialized there, then those of a summary cell a load of which, plus or minus
/// a constant, is stored (`a[i] = a[i] + 2`), then the candidates of a summary cell a load
/// of which is stored (a copy); the first [`MAX_PER_CELL`] are kept. Which constants are
/// chosen only affects precision, never soundness.
pub fn choose(func: &Function, cells: &Cells) -> Vec<Segment> {
    let summary = |c: CellId| cells.cells[c.0].offset.is_none();
    // Each value loaded from a summary cell, and each `x ± constant` definition.
    let mut loaded: HashMap<ValueId, CellId> = HashMap::new();
    let mut shifted: HashMap<ValueId, (ValueId, i128)> = HashMap::new();
    let mut stores: Vec<(CellId, Operand)> = Vec::new();
    let mut direct: Vec<Vec<Const>> = vec![Vec::new(); cells.cells.len()];
    let mut accesses = vec![0usize; cells.cells.len()];
    let add = |list: &mut Vec<Const>, k: Const| {
        if !list.contains(&k) {
            list.push(k);
        }
    };
    for inst in func.blocks.iter().flat_map(|b| &b.insts) {
        match inst {
            Inst::Mem(MemOp::Load { dest, addr }) => {
                let ty = func.value(*dest).ty;
                if let Some((c, true)) = cells.cell_of(addr.base, &addr.offset, ty) {
                    loaded.insert(*dest, c);
                    accesses[c.0] += 1;
                }
            }
            Inst::Mem(MemOp::Store { addr, value }) => {
                let ty = func.operand_ty(value);
                if let Some((c, true)) = cells.cell_of(addr.base, &addr.offset, ty) {
                    accesses[c.0] += 1;
                    match value {
                        Operand::Const(k) => add(&mut direct[c.0], *k),
                        _ => stores.push((c, *value)),
                    }
                }
            }
            Inst::Mem(MemOp::Init { base, leaves, .. }) => {
                if let Layout::Smashed(c) = cells.layouts[base.index()] {
                    for (_, v) in leaves {
                        if let Operand::Const(k) = v {
                            if k.ty == cells.cells[c.0].ty {
                                add(&mut direct[c.0], *k);
                            }
                        }
                    }
                }
            }
            Inst::Assign {
                dest,
                expr:
                    Expr::Binary {
                        op: op @ (BinOp::Add | BinOp::Sub),
                        lhs: Operand::Value(x),
                        rhs: Operand::Const(d),
                        ..
                    },
            } => {
                let d = d.signed();
                let d = if *op == BinOp::Sub { -d } else { d };
                shifted.insert(*dest, (*x, d));
            }
            _ => {}
        }
    }
    // `x ± d` of a load first, then copies, which take every candidate of their source.
    let mut candidates = direct.clone();
    for copies in [false, true] {
        for (c, value) in &stores {
            let Operand::Value(v) = value else { continue };
            let ty = cells.cells[c.0].ty;
            let (source, delta) = match (loaded.get(v), shifted.get(v)) {
                (Some(&src), _) if copies => (src, 0),
                (None, Some(&(x, d))) if !copies => match loaded.get(&x) {
                    Some(&src) => (src, d),
                    None => continue,
                },
                _ => continue,
            };
            let from = if copies {
                candidates[source.0].clone()
            } else {
                direct[source.0].clone()
            };
            for k in from.into_iter().take(MAX_PER_CELL) {
                if k.ty == ty {
                    add(
                        &mut candidates[c.0],
                        Const::new(ty, k.signed().wrapping_add(delta)),
                    );
                }
            }
        }
    }
    let mut segments = Vec::new();
    let mut updates = 0;
    for (c, list) in candidates.into_iter().enumerate() {
        if !summary(CellId(c)) {
            continue;
        }
        for k in list.into_iter().take(MAX_PER_CELL) {
            if segments.len() == MAX_SEGMENTS {
                break;
            }
            updates += accesses[c];
            segments.push(Segment {
                cell: CellId(c),
                value: k,
            });
        }
    }
    if updates > MAX_UPDATES {
        return vec![];
    }
    segments
}

/// Emits instructions for the updates: a fresh value of the type defined by the expression.
pub trait Emit {
    fn emit(&mut self, ty: Ty, expr: SymExpr) -> Sym;
    /// A value defined by `expr`, whose operands are final: an earlier definition of the
    /// block with the same expression up to poison flags where there is one (see
    /// `ssa::Available`), else a fresh one.
    fn emit_expr(&mut self, ty: Ty, expr: Expr) -> Operand;
    /// A fresh value defined by `expr`, which later instantiations do not reuse (the
    /// program's own computation of the same expression, further on, is what they should
    /// find).
    fn emit_fresh(&mut self, ty: Ty, expr: Expr) -> Operand {
        self.emit_expr(ty, expr)
    }
    /// An earlier definition of the block with the same expression up to poison flags,
    /// without defining one.
    fn lookup(&self, _ty: Ty, _expr: &Expr) -> Option<Operand> {
        None
    }
    /// The type of a value.
    fn ty_of(&self, v: ValueId) -> Ty;
    /// The value an `i1` value has at the current point whatever the path, when the
    /// branches that lead here decide it (`ssa::Available`).
    fn known(&self, _v: ValueId) -> Option<bool> {
        None
    }
    /// Ends the paths on which `cond` is false.
    fn assume(&mut self, cond: Sym);
}

pub(super) fn constant(ty: Ty, value: i128) -> Sym {
    Sym::Op(Operand::Const(Const::new(ty, value)))
}

/// What a load at `offset` reads, given what it reads outside the segment (`rest`).
pub fn load(em: &mut dyn Emit, seg: &Segment, bounds: (Sym, Sym), offset: Sym, rest: Sym) -> Sym {
    let ty = seg.value.ty;
    let (lo, hi) = bounds;
    let below_hi = em.emit(Ty::BOOL, SymExpr::Less(offset, hi));
    let below_lo = em.emit(Ty::BOOL, SymExpr::Less(offset, lo));
    let inside = em.emit(
        ty,
        SymExpr::Select(below_hi, Sym::Op(Operand::Const(seg.value)), rest),
    );
    em.emit(ty, SymExpr::Select(below_lo, rest, inside))
}

/// The bounds after a store of `value` (of the segment's type) at `offset`.
pub fn store(
    em: &mut dyn Emit,
    seg: &Segment,
    bounds: (Sym, Sym),
    offset: Sym,
    value: Operand,
) -> (Sym, Sym) {
    let size = cells::bytes(seg.value.ty) as i128;
    match value {
        Operand::Const(k) if k == seg.value => same(em, bounds, offset, size),
        Operand::Const(_) => other(em, bounds, offset, size),
        _ => {
            let (lo_s, hi_s) = same(em, bounds, offset, size);
            let (lo_o, hi_o) = other(em, bounds, offset, size);
            let k = Sym::Op(Operand::Const(seg.value));
            let is_k = em.emit(Ty::BOOL, SymExpr::Equal(Sym::Op(value), k));
            (
                em.emit(I64, SymExpr::Select(is_k, lo_s, lo_o)),
                em.emit(I64, SymExpr::Select(is_k, hi_s, hi_o)),
            )
        }
    }
}

/// A store of the segment's constant: at `hi` it extends the segment, an empty segment
/// restarts at it, anywhere else nothing changes.
pub(super) fn same(em: &mut dyn Emit, (lo, hi): (Sym, Sym), o: Sym, size: i128) -> (Sym, Sym) {
    let hi_s = em.emit(I64, SymExpr::Add(hi, constant(I64, size)));
    let o_s = em.emit(I64, SymExpr::Add(o, constant(I64, size)));
    let nonempty = em.emit(Ty::BOOL, SymExpr::Less(lo, hi));
    let at_hi = em.emit(Ty::BOOL, SymExpr::Equal(o, hi));
    let hi_extended = em.emit(I64, SymExpr::Select(at_hi, hi_s, hi));
    (
        em.emit(I64, SymExpr::Select(nonempty, lo, o)),
        em.emit(I64, SymExpr::Select(nonempty, hi_extended, o_s)),
    )
}

/// A store of another value: at `lo` it moves `lo` past the element (an empty segment
/// stays empty), strictly inside the segment it cuts the segment at `o`.
pub(super) fn other(em: &mut dyn Emit, (lo, hi): (Sym, Sym), o: Sym, size: i128) -> (Sym, Sym) {
    if lo == hi {
        // `[lo, lo)` is empty and stays as it is whatever `o` (the selects below give it
        // back): no instruction for a segment no store of the property reached.
        return (lo, hi);
    }
    let o_s = em.emit(I64, SymExpr::Add(o, constant(I64, size)));
    let at_lo = em.emit(Ty::BOOL, SymExpr::Equal(o, lo));
    let below_lo = em.emit(Ty::BOOL, SymExpr::Less(o, lo));
    let below_hi = em.emit(Ty::BOOL, SymExpr::Less(o, hi));
    // Only inside: an empty segment keeps its bounds (they stay the canonical `[0, 0)`
    // rather than drifting, which a later restart would join badly with).
    let lo_at = em.emit(I64, SymExpr::Select(at_lo, o_s, lo));
    let lo_in = em.emit(I64, SymExpr::Select(below_hi, lo_at, lo));
    let lo2 = em.emit(I64, SymExpr::Select(below_lo, lo, lo_in));
    let hi_cut = em.emit(I64, SymExpr::Select(at_lo, hi, o));
    let hi_in = em.emit(I64, SymExpr::Select(below_hi, hi_cut, hi));
    let hi2 = em.emit(I64, SymExpr::Select(below_lo, hi, hi_in));
    (lo2, hi2)
}

/// The bounds of an empty segment.
pub fn empty() -> (Sym, Sym) {
    (constant(I64, 0), constant(I64, 0))
}

/// The bounds of a segment covering every offset but `i64::MAX`.
pub fn everything() -> (Sym, Sym) {
    (
        constant(I64, i64::MIN as i128),
        constant(I64, i64::MAX as i128),
    )
}
