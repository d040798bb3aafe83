//! Constant segments of smashed arrays: for a summary cell and a constant `k`, a range
//! `[lo, hi)` of byte offsets in which every element of the array holds `k`. So
//! `for (i = 0; i < n; i++) a[i] = k;` leaves `[0, 4n)` holding `k`, and a later load of
//! `a[j]` with `0 <= j < n` reads `k`, where the summary alone gives any value some element
//! may hold. It is the array segmentation of Cousot, Cousot and Logozzo (POPL 2011) reduced
//! to one segment per candidate constant, with the bounds as ordinary values: the engines
//! relate them to the loop counters (`hi == 4*i`), the memory pass never reasons about
//! them. The cost is a dozen selects per store and segment, hence the caps.
//!
//! **Invariant** (of every segment, at every point): every element of the base whose byte
//! offset `o` (on the summary's grid) has `lo <= o < hi` holds `k`. The property `x == k`
//! is decided at each store without the engines where the stored value is a constant: a
//! store of `k` extends the segment (at either end, so that a loop may fill the array from
//! its end), a store of another constant cuts it (`bounds.rs`, whose argument gives the
//! invariant, wrap-around included); a store of a value that is not a constant selects
//! between the two on `v == k`. An initializer of the whole object with `k` everywhere
//! gives every offset but `i64::MAX` (the other constants' segments become empty); a
//! clobber, any other initializer, or a write to a base that may alias this one empties
//! the segment. A load in the range reads `k` (selects on `o < lo`, `o < hi`).
//!
//! Candidates ([`choose`], at most [`MAX_PER_CELL`] per cell): the constants stored or
//! initialized there, then `load ± d` of another summary's constants, then the candidates
//! of a summary a load of which is stored (a copy).

use std::collections::HashMap;

use super::bounds;
use super::cells::{self, CellId, Cells, Layout};
use super::emit::{Bounds, Emit, Sym, SymExpr};
use super::kind::{Load, Loads, SegmentKind, Store};
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

/// The bounds after a store of `value` (of the segment's type) at `offset`.
fn stored(em: &mut dyn Emit, seg: &Segment, bounds: Bounds, offset: Sym, value: Operand) -> Bounds {
    let size = cells::bytes(seg.value.ty) as i128;
    match value {
        Operand::Const(k) if k == seg.value => bounds::both_ends(em, bounds, offset, size),
        Operand::Const(_) => bounds::cut(em, bounds, offset, size),
        _ => {
            let on_k = bounds::both_ends(em, bounds, offset, size);
            let on_other = bounds::cut(em, bounds, offset, size);
            let k = Sym::Op(Operand::Const(seg.value));
            let is_k = em.emit(Ty::BOOL, SymExpr::Equal(Sym::Op(value), k));
            bounds::select(em, is_k, on_k, on_other)
        }
    }
}

/// The constant segments of a function, as a [`SegmentKind`].
pub struct Constants {
    segments: Vec<Segment>,
}

impl Constants {
    pub fn new(segments: Vec<Segment>) -> Constants {
        Constants { segments }
    }
}

impl SegmentKind for Constants {
    fn len(&self) -> usize {
        self.segments.len()
    }

    fn describes(&self, j: usize, cell: CellId) -> bool {
        self.segments[j].cell == cell
    }

    fn name(&self, j: usize, cell_name: &dyn Fn(CellId) -> String) -> String {
        let seg = &self.segments[j];
        format!("{}={}", cell_name(seg.cell), seg.value.signed())
    }

    fn load(&self, lw: &mut dyn Loads, at: &Load<'_>, mut rest: Sym) -> Sym {
        for (seg, b) in self.segments.iter().zip(at.bounds) {
            if seg.cell == at.cell {
                let k = Sym::Op(Operand::Const(seg.value));
                rest = bounds::read_inside(lw.em(), seg.value.ty, *b, Sym::Op(at.offset), k, rest);
            }
        }
        rest
    }

    fn store(&self, em: &mut dyn Emit, at: &Store<'_>, bounds: &mut [Bounds]) {
        for (seg, b) in self.segments.iter().zip(bounds) {
            if seg.cell == at.cell {
                *b = stored(em, seg, *b, Sym::Op(at.offset), at.value);
            }
        }
    }

    fn initialized(&self, cell: CellId, every: Const, bounds: &mut [Bounds]) {
        for (seg, b) in self.segments.iter().zip(bounds) {
            if seg.cell == cell && seg.value == every {
                *b = bounds::everything();
            }
        }
    }
}
