//! Copy segments of smashed arrays (issue 15): for two summary cells `dst` and `src` (of
//! two bases that never overlap, with the same type and grid), a range `[lo, hi)` of byte
//! offsets in which every element of `dst` holds the same value as the element of `src` at
//! the same offset. So `for (i = 0; i < n; i++) b[i] = a[i];` leaves `[0, 4n)` copied, and
//! a later load of `b[j]` with `0 <= j < n` reads what a load of `a[j]` at that point reads
//! (the memoized value of `memo.rs`, which the same block's `a[j]` shares), where the
//! summary alone gives any value. It is the constant segment of `segments.rs` with "holds
//! `k`" replaced by "equals `src` at the same offset".
//!
//! **Invariant** (of every copy segment, at every point): every element of `dst` whose
//! byte offset `o` (on the grid) has `lo <= o < hi` equals the element of `src` at `o`.
//! The bounds follow the rules of `segments.rs`, whose argument (wrap-around included)
//! carries over unchanged, with these events:
//! - a store of `v` to `dst` at `o` is a store of "the property" when `v` is, or is
//!   compared equal to, the memoized value of `src` at `o` (the element of `src` there at
//!   this point), and of "another value" otherwise (also when no such value is known);
//! - a store to `src` at `o` is a store of another value for the element at `o` (it no
//!   longer equals its copy); the grids are the same, so no other element of `dst` shares
//!   bytes with it;
//! - a clobber or initializer of either base, or a write to a base that may alias either,
//!   empties the segment.
//!
//! A load of `dst` at `o` reads the value of `src` at `o` (memoized, or read like any load
//! of `src`, recursively up to [`MAX_DEPTH`]) inside the range, what it read before
//! outside. Each pair of cells gets two segments: one that keeps the first run of copies
//! ([`segments::same`]) and one that follows the latest run ([`segments::restart`]), so
//! a loop that skips one index (`if (i != z) b[i] = a[i];`) leaves both sides of the gap.

use std::collections::HashMap;

use super::cells::{self, CellId, Cells};
use super::segments::{self, Emit};
use super::ssa::{Sym, SymExpr};
use crate::ir::{BaseId, Function, Inst, MemOp, Operand, Ty, ValueId};

/// The most sources one cell gets copy segments for.
const MAX_SOURCES: usize = 2;

/// The most copy segments of one function.
const MAX_COPIES: usize = 16;

/// Past this many (load or store of a cell with copy segments) × its copy segments, none
/// is made: each costs a dozen selects.
const MAX_UPDATES: usize = 4_000;

/// The deepest chain of copies a load reads through (`c <- b <- a`).
pub const MAX_DEPTH: usize = 2;

/// A copy segment: `dst`'s elements in the range equal `src`'s.
#[derive(Clone, Debug)]
pub struct Copy {
    pub dst: CellId,
    pub src: CellId,
    /// Follows the latest run of copies ([`segments::restart`]) rather than the first.
    pub restart: bool,
}

/// What a store to `dst` is, for a copy segment.
pub enum Stored {
    /// Equal to `src`'s element at the offset.
    Copy,
    /// Not known equal.
    Other,
    /// Equal exactly when this `i1` holds.
    When(Sym),
}

/// The copy segments of `func`: a pair `(dst, src)` for each store into a summary cell of
/// a value loaded from another summary cell (a chain `c <- b <- a` is read through, see
/// [`MAX_DEPTH`], so it needs no pair `c <- a`). `aliased(b)` lists the bases a write
/// to `b` may change. Which pairs are chosen only affects precision, never soundness.
pub fn choose(
    func: &Function,
    cells: &Cells,
    aliased: &dyn Fn(BaseId) -> Vec<BaseId>,
    budget: usize,
) -> Vec<Copy> {
    let summary = |c: CellId| cells.cells[c.0].offset.is_none();
    let related = |d: CellId, s: CellId| {
        let (cd, cs) = (&cells.cells[d.0], &cells.cells[s.0]);
        d != s
            && summary(d)
            && summary(s)
            && cd.base != cs.base
            && cd.ty == cs.ty
            && cd.slot == cs.slot
            && !aliased(cd.base).contains(&cs.base)
            && !aliased(cs.base).contains(&cd.base)
    };
    let mut loaded: HashMap<ValueId, CellId> = HashMap::new();
    let mut accesses: HashMap<CellId, usize> = HashMap::new();
    let mut pairs: Vec<(CellId, CellId)> = Vec::new();
    for inst in func.blocks.iter().flat_map(|b| &b.insts) {
        if let Inst::Mem(MemOp::Load { dest, addr }) = inst {
            let ty = func.value(*dest).ty;
            if let Some((c, true)) = cells.cell_of(addr.base, &addr.offset, ty) {
                loaded.insert(*dest, c);
                *accesses.entry(c).or_default() += 1;
            }
        }
        if let Inst::Mem(MemOp::Store { addr, value }) = inst {
            let ty = func.operand_ty(value);
            if let Some((c, true)) = cells.cell_of(addr.base, &addr.offset, ty) {
                *accesses.entry(c).or_default() += 1;
            }
        }
    }
    for inst in func.blocks.iter().flat_map(|b| &b.insts) {
        if let Inst::Mem(MemOp::Store {
            addr,
            value: Operand::Value(v),
        }) = inst
        {
            let ty = func.value(*v).ty;
            if let (Some((d, true)), Some(&s)) =
                (cells.cell_of(addr.base, &addr.offset, ty), loaded.get(v))
            {
                if related(d, s) && !pairs.contains(&(d, s)) {
                    pairs.push((d, s));
                }
            }
        }
    }
    let mut copies = Vec::new();
    let mut per_dst: HashMap<CellId, usize> = HashMap::new();
    for (d, s) in pairs {
        let n = per_dst.entry(d).or_default();
        if *n == MAX_SOURCES || copies.len() + 2 > MAX_COPIES.min(budget) {
            continue;
        }
        *n += 1;
        for restart in [false, true] {
            copies.push(Copy {
                dst: d,
                src: s,
                restart,
            });
        }
    }
    let updates: usize = copies
        .iter()
        .map(|c| accesses.get(&c.dst).unwrap_or(&0) + accesses.get(&c.src).unwrap_or(&0))
        .sum();
    if updates > MAX_UPDATES {
        return vec![];
    }
    copies
}

/// What a load of `dst` at `offset` reads, given `src`'s value there and what it reads
/// outside the segment (`rest`).
pub fn load(
    em: &mut dyn Emit,
    ty: Ty,
    bounds: (Sym, Sym),
    offset: Sym,
    src: Sym,
    rest: Sym,
) -> Sym {
    let (lo, hi) = bounds;
    let below_hi = em.emit(Ty::BOOL, SymExpr::Less(offset, hi));
    let below_lo = em.emit(Ty::BOOL, SymExpr::Less(offset, lo));
    let inside = em.emit(ty, SymExpr::Select(below_hi, src, rest));
    em.emit(ty, SymExpr::Select(below_lo, rest, inside))
}

/// The bounds after a store to `dst` at `offset`.
pub fn store_dst(
    em: &mut dyn Emit,
    copy: &Copy,
    ty: Ty,
    bounds: (Sym, Sym),
    offset: Sym,
    stored: Stored,
) -> (Sym, Sym) {
    let size = cells::bytes(ty) as i128;
    let copied = |em: &mut dyn Emit| {
        if copy.restart {
            segments::restart(em, bounds, offset, size)
        } else {
            segments::same(em, bounds, offset, size)
        }
    };
    match stored {
        Stored::Copy => copied(em),
        Stored::Other => segments::other(em, bounds, offset, size),
        Stored::When(cond) => {
            let (lo_s, hi_s) = copied(em);
            let (lo_o, hi_o) = segments::other(em, bounds, offset, size);
            (
                em.emit(segments::I64, SymExpr::Select(cond, lo_s, lo_o)),
                em.emit(segments::I64, SymExpr::Select(cond, hi_s, hi_o)),
            )
        }
    }
}

/// The bounds after a store to `src` at `offset`: the element there is no longer a copy.
pub fn store_src(em: &mut dyn Emit, ty: Ty, bounds: (Sym, Sym), offset: Sym) -> (Sym, Sym) {
    segments::other(em, bounds, offset, cells::bytes(ty) as i128)
}
