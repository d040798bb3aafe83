//! Copy segments of smashed arrays: for two summary cells `dst` and `src` (of
//! two bases that never overlap, with the same type and grid), a range `[lo, hi)` of byte
//! offsets in which every element of `dst` holds the same value as the element of `src` at
//! the same offset. So `for (i = 0; i < n; i++) b[i] = a[i];` leaves `[0, 4n)` copied, and
//! a later load of `b[j]` with `0 <= j < n` reads what a load of `a[j]` at that point reads
//! (the memoized value of `memo.rs`, which the same block's `a[j]` shares), where the
//! summary alone gives any value. It is the constant segment of `segments.rs` with "holds
//! `k`" replaced by "equals `src` at the same offset", with simpler updates.
//!
//! Each pair of cells gets two segments. The first is the prefix copied from offset 0:
//! `lo` stays 0 (a constant, so no phi), a copy store at `hi` extends it ([`grow`]). The
//! second holds the run of copies after a gap in the first: while the first grows it is
//! empty just past it, else it extends at its `hi` or restarts at the store ([`second`]).
//! So a loop that skips one index (`if (i != z) b[i] = a[i];`) leaves `[0, 4z)` and
//! `[4z + 4, 4n)`, bounds affine in the loop counter on each side of `z`.
//!
//! **Invariant** (of every copy segment, at every point): every element of `dst` whose
//! byte offset `o` (on the grid) has `lo <= o < hi` equals the element of `src` at `o`.
//! It holds at the entry (empty ranges) and is kept by every event, whatever the bounds
//! and offsets, wrap-around included:
//! - a store of `v` to `dst` at `o` is a copy store when `v` is, or is compared equal to
//!   (a select on `v == w`), the memoized value `w` of `src` at `o` (the element of `src`
//!   there at this point), and a store of another value otherwise (also when no such value
//!   is known, and when `v` or `w` is an input nothing reads, [`unread_inputs`]);
//! - a copy store extends a range at its `hi` (the elements below were copies, the one at
//!   `o` is one; a range with `lo > hi` gains no element of the grid, the next one after
//!   `o` being at `o + s`; a wrapped `hi + s` leaves it empty), makes it the one element
//!   `[o, o + s)`, or makes it empty (an empty range holds nothing, wherever it lies); it
//!   keeps any other range (an element copied stays copied). `o + s` does not wrap: the
//!   access is within its object (`bounds.rs`);
//! - a store of another value to `dst` at `o`, or any store to `src` at `o` (the element
//!   no longer equals its copy; the grids are the same, so no other element of `dst`
//!   shares bytes with it), cuts a range that holds `o` to `[lo, o)` ([`cut`]);
//! - a clobber or initializer of either base, or a write to a base that may alias either,
//!   empties the segment.
//!
//! A load of `dst` at `o` reads the value of `src` at `o` (memoized, or read like any load
//! of `src`, recursively up to [`MAX_DEPTH`]) inside the range, what it read before
//! outside. A segment no copy store reaches is empty at the start of a block, without any
//! instruction ([`may_be_set`]); emptying is always sound.

use std::collections::{HashMap, HashSet};

use super::bounds;
use super::cells::{self, CellId, Cells, SummaryAccesses};
use super::emit::{constant, Bounds, Emit, Sym, SymExpr, I64};
use super::kind::{Load, Loads, SegmentKind, Store};
use crate::ir::{BaseId, Function, Inst, MemOp, Operand, Terminator, Ty, ValueId};

/// The most sources one cell gets copy segments for. This and the limits below are guards
/// on the size of the lowered function: each copy segment adds selects at every access
/// of its cell.
const MAX_SOURCES: usize = 2;

/// The most copy segments of one function.
const MAX_COPIES: usize = 16;

/// Past this many (load or store of a cell with copy segments) × its copy segments, none
/// is made: each costs a dozen selects.
const MAX_UPDATES: usize = 4_000;

/// The deepest chain of copies a load reads through (`c <- b <- a`).
const MAX_DEPTH: usize = 2;

/// A copy segment: `dst`'s elements in the range equal `src`'s.
#[derive(Clone, Debug)]
pub struct Copy {
    pub dst: CellId,
    pub src: CellId,
    /// The type of both cells' elements.
    ty: Ty,
    /// The second segment of the pair, which holds the run of copies after a gap in the
    /// first ([`second`]); the first segment of the pair is the copy before it in the list.
    pub second: bool,
}

/// What a store to `dst` is, for a copy segment.
enum Stored {
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
    let SummaryAccesses {
        loads,
        counts: accesses,
        ..
    } = SummaryAccesses::of(func, cells);
    let mut pairs: Vec<(CellId, CellId)> = Vec::new();
    for inst in func.blocks.iter().flat_map(|b| &b.insts) {
        if let Inst::Mem(MemOp::Store {
            addr,
            value: Operand::Value(v),
        }) = inst
        {
            let ty = func.value(*v).ty;
            if let (Some((d, true)), Some(&(s, _))) =
                (cells.cell_of(addr.base, &addr.offset, ty), loads.get(v))
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
        for second in [false, true] {
            copies.push(Copy {
                dst: d,
                src: s,
                ty: cells.cells[d.0].ty,
                second,
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

/// The inputs nothing reads but stores: values defined by a havoc (a nondeterministic
/// input, an unknown call's result) whose every use is the value of a store. Two of them
/// are equal only by chance (`a1[i] = nondet(); a2[i] = nondet();`), which no assertion
/// can depend on without reading one, so a store of one is not taken as a copy of the
/// other ([`Stored::Other`], which is sound for any store: it only shrinks the range).
/// Counting the chance copy made the fill loop's copy segments grow on one side of a
/// select, and the copy loop after it then found them non-empty at unknown bounds.
fn unread_inputs(func: &Function) -> HashSet<ValueId> {
    let mut inputs: HashSet<ValueId> = func
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter_map(|i| match i {
            Inst::Havoc { dest, .. } => Some(*dest),
            _ => None,
        })
        .collect();
    let read = |op: &Operand, inputs: &mut HashSet<ValueId>| {
        if let Operand::Value(v) = op {
            inputs.remove(v);
        }
    };
    for block in &func.blocks {
        for inst in &block.insts {
            match inst {
                Inst::Mem(MemOp::Store { addr, .. }) => read(&addr.offset, &mut inputs),
                _ => {
                    for op in inst.operands() {
                        read(op, &mut inputs);
                    }
                }
            }
        }
        match &block.term {
            Terminator::Branch { cond, .. } => read(cond, &mut inputs),
            Terminator::Switch { on, .. } => read(on, &mut inputs),
            _ => {}
        }
        for edge in block.term.edges() {
            for (_, src) in &edge.moves {
                read(src, &mut inputs);
            }
        }
    }
    inputs
}

/// For each block, which copy segments may be non-empty at its start: a forward data flow
/// from "all empty" at the entry, where only a store to a copy's `dst` of a value that may
/// be a copy (not one of `unread`, see [`unread_inputs`]) may make its segment non-empty
/// (a cut, [`cut`], keeps an empty segment empty). The construction
/// starts a segment that is surely empty at a block as [`empty`] instead of a phi, so a
/// loop before any copy (the fill loop of `a1` and `a2`) pays nothing for it. Emptying a
/// segment is always sound, so a wrong answer here would only lose precision.
fn may_be_set(
    func: &Function,
    cells: &Cells,
    copies: &[Copy],
    unread: &HashSet<ValueId>,
) -> Vec<Vec<bool>> {
    let n = func.blocks.len();
    let mut at: Vec<Vec<bool>> = vec![vec![false; copies.len()]; n];
    let mut reached = vec![false; n];
    reached[func.entry.index()] = true;
    let mut work: Vec<usize> = vec![func.entry.index()];
    while let Some(b) = work.pop() {
        let mut set = at[b].clone();
        for inst in &func.blocks[b].insts {
            if let Inst::Mem(MemOp::Store { addr, value }) = inst {
                if matches!(value, Operand::Value(v) if unread.contains(v)) {
                    continue;
                }
                let ty = func.operand_ty(value);
                if let Some((c, true)) = cells.cell_of(addr.base, &addr.offset, ty) {
                    for (j, copy) in copies.iter().enumerate() {
                        set[j] |= copy.dst == c;
                    }
                }
            }
        }
        for succ in func.blocks[b].term.successors() {
            let s = succ.index();
            let mut changed = !reached[s];
            reached[s] = true;
            for (old, new) in at[s].iter_mut().zip(&set) {
                changed |= *new && !*old;
                *old |= *new;
            }
            if changed {
                work.push(s);
            }
        }
    }
    at
}

/// The bounds of an empty segment of `copy`: `[0, 0)` for a first segment, whose `lo`
/// stays 0 ([`grow`], [`cut`]); `[s, s)` for a second one, which is where [`second`] keeps
/// it while the first grows from offset 0 (so that a loop copying from index 0 finds it
/// there in its first iteration as in every later one).
fn empty(copy: &Copy) -> Bounds {
    let at = if copy.second {
        cells::bytes(copy.ty) as i128
    } else {
        0
    };
    Bounds {
        lo: constant(I64, at),
        hi: constant(I64, at),
    }
}

/// A copy store at `o` for a first segment: at `hi` it extends the segment, anywhere else
/// nothing changes; `lo` never moves (it is 0 from the start, so it costs no phi).
///
/// The extension is sound whatever `lo`: the elements of `[lo, hi)` were copies and the one
/// at `o == hi` is now; when `lo > hi` no element of the grid lies in `[lo, o + s)` (the
/// next one after `o` is at `o + s`). The new `hi` is computed as `o + s`, which does not
/// wrap (the access is within its object), rather than `hi + s`: the same value where it
/// is chosen, and one whose range the engines know from the offset's (`hi + s` on a state
/// where widening lost `hi`'s bound is any `i64`, whose huge constants slow the
/// polyhedra down).
fn grow(em: &mut dyn Emit, Bounds { lo, hi }: Bounds, o: Sym, size: i128) -> Bounds {
    let at_hi = em.emit(Ty::BOOL, SymExpr::Equal(o, hi));
    let next = em.emit(I64, SymExpr::Add(o, constant(I64, size)));
    Bounds {
        lo,
        hi: em.emit(I64, SymExpr::Select(at_hi, next, hi)),
    }
}

/// A store of another value at `o` (to `dst`, or to `src`): inside `[lo, hi)` the segment
/// becomes `[lo, o)`, elsewhere it is kept; `lo` never moves. An empty `[lo, lo)` is kept
/// without any instruction (the selects would give it back).
fn cut(em: &mut dyn Emit, bounds: Bounds, o: Sym) -> Bounds {
    if bounds.surely_empty() {
        return bounds;
    }
    let Bounds { lo, hi } = bounds;
    let below_lo = em.emit(Ty::BOOL, SymExpr::Less(o, lo));
    let below_hi = em.emit(Ty::BOOL, SymExpr::Less(o, hi));
    let inside = em.emit(I64, SymExpr::Select(below_hi, o, hi));
    Bounds {
        lo,
        hi: em.emit(I64, SymExpr::Select(below_lo, hi, inside)),
    }
}

/// A copy store at `o` for the second segment of a pair, given the first segment's `hi1`
/// before the store: where the first grows with it (`o == hi1`), the second is the empty
/// `[o + 2s, o + 2s)`, just past the first's new end and one element on; at its own `hi`
/// it extends (`[lo, o + s)`, sound whatever `lo` as in [`grow`]); anywhere else it
/// restarts as `[o, o + s)`, the element just stored.
///
/// So `for (i = 0; i < n; i++) if (i != z) b[i] = a[i];` has, at the loop head, the
/// segments `[0, 4i)` and `[4i + 4, 4i + 4)` while `i <= z`, and `[0, 4z)` and
/// `[4z + 4, 4i)` after: each phase is affine in `i`, the state at `i == z + 1` (no
/// store at `z` yet seen) already fits the second formula, and one split of the head
/// (`i <= z`, a phase predicate of `analysis/phases.rs`) keeps both exact. A second
/// segment that followed every run from the start was `[0, 4z)` at `i == z + 1` and
/// `[4z + 4, 4i)` later, a third phase that no predicate over `i` and `z` splits.
///
/// Sound for any bounds: an empty range holds nothing, and `o + s` does not wrap (the
/// access is within its object, `bounds.rs`); `hi1` only chooses between the cases.
fn second(em: &mut dyn Emit, Bounds { lo, hi }: Bounds, hi1: Sym, o: Sym, size: i128) -> Bounds {
    let grows = em.emit(Ty::BOOL, SymExpr::Equal(o, hi1));
    let at_hi = em.emit(Ty::BOOL, SymExpr::Equal(o, hi));
    let next = em.emit(I64, SymExpr::Add(o, constant(I64, size)));
    let past = em.emit(I64, SymExpr::Add(o, constant(I64, 2 * size)));
    let lo_run = em.emit(I64, SymExpr::Select(at_hi, lo, o));
    Bounds {
        lo: em.emit(I64, SymExpr::Select(grows, past, lo_run)),
        hi: em.emit(I64, SymExpr::Select(grows, past, next)),
    }
}

/// The bounds after a store to `dst` at `offset`; `first` are the bounds before the store
/// of the first segment of `copy`'s pair (`copy`'s own when it is the first).
fn store_dst(
    em: &mut dyn Emit,
    copy: &Copy,
    bounds: Bounds,
    first: Bounds,
    offset: Sym,
    stored: Stored,
) -> Bounds {
    let size = cells::bytes(copy.ty) as i128;
    let copied = |em: &mut dyn Emit| {
        if copy.second {
            second(em, bounds, first.hi, offset, size)
        } else {
            grow(em, bounds, offset, size)
        }
    };
    match stored {
        Stored::Copy => copied(em),
        Stored::Other => cut(em, bounds, offset),
        Stored::When(cond) => {
            let on_copy = copied(em);
            let on_other = cut(em, bounds, offset);
            let pick = |em: &mut dyn Emit, a: Sym, b: Sym| {
                if a == b {
                    a
                } else {
                    em.emit(I64, SymExpr::Select(cond, a, b))
                }
            };
            Bounds {
                lo: pick(em, on_copy.lo, on_other.lo),
                hi: pick(em, on_copy.hi, on_other.hi),
            }
        }
    }
}

/// The copy segments of a function, as a [`SegmentKind`].
pub struct Copies {
    copies: Vec<Copy>,
    /// The inputs nothing reads but stores ([`unread_inputs`]).
    unread: HashSet<ValueId>,
    /// For each block, which segments may be non-empty at its start ([`may_be_set`]).
    set_at: Vec<Vec<bool>>,
}

impl Copies {
    pub fn new(func: &Function, cells: &Cells, copies: Vec<Copy>) -> Copies {
        let unread = unread_inputs(func);
        let set_at = may_be_set(func, cells, &copies, &unread);
        Copies {
            copies,
            unread,
            set_at,
        }
    }

    /// What a store of `at.value` to `copy.dst` is, given what the memo says `src` holds
    /// at the offset.
    fn stored(&self, em: &mut dyn Emit, copy: &Copy, at: &Store<'_>) -> Stored {
        let stored = Sym::Op(at.value);
        let chance = |s: Sym| matches!(s, Sym::Op(Operand::Value(v)) if self.unread.contains(&v));
        match at.memo.get(copy.src, at.number) {
            Some(w) if w == stored => Stored::Copy,
            // Equal only by chance (`unread_inputs`).
            Some(w) if chance(stored) || chance(w) => Stored::Other,
            Some(w) => Stored::When(em.emit(Ty::BOOL, SymExpr::Equal(stored, w))),
            None => Stored::Other,
        }
    }
}

impl SegmentKind for Copies {
    fn len(&self) -> usize {
        self.copies.len()
    }

    fn describes(&self, j: usize, cell: CellId) -> bool {
        self.copies[j].dst == cell || self.copies[j].src == cell
    }

    fn name(&self, j: usize, cell_name: &dyn Fn(CellId) -> String) -> String {
        let copy = &self.copies[j];
        let which = if copy.second { "second" } else { "first" };
        format!(
            "{}=copy({}).{which}",
            cell_name(copy.dst),
            cell_name(copy.src)
        )
    }

    fn empty(&self, j: usize) -> Bounds {
        empty(&self.copies[j])
    }

    fn empty_at(&self, block: usize, j: usize) -> bool {
        !self.set_at[block][j]
    }

    fn load(&self, lw: &mut dyn Loads, at: &Load<'_>, mut rest: Sym) -> Sym {
        if at.depth >= MAX_DEPTH {
            return rest;
        }
        for (copy, b) in self.copies.iter().zip(at.bounds) {
            // An empty `[lo, lo)` reads nothing of the source.
            if copy.dst != at.cell || b.surely_empty() {
                continue;
            }
            let src = lw.read(copy.src, at.offset);
            rest = bounds::read_inside(lw.em(), at.ty, *b, Sym::Op(at.offset), src, rest);
        }
        rest
    }

    fn store(&self, em: &mut dyn Emit, at: &Store<'_>, bounds: &mut [Bounds]) {
        // The bounds before the store: a second segment's update reads its first's.
        let before = bounds.to_vec();
        let offset = Sym::Op(at.offset);
        for (j, copy) in self.copies.iter().enumerate() {
            let first = if copy.second {
                before[j - 1]
            } else {
                before[j]
            };
            bounds[j] = if copy.dst == at.cell {
                let how = self.stored(em, copy, at);
                store_dst(em, copy, before[j], first, offset, how)
            } else if copy.src == at.cell {
                // The element is no longer a copy.
                cut(em, before[j], offset)
            } else {
                continue;
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::bounds::tests::{bounds, kept, offsets, range, Concrete, SIZE};

    /// A copy store keeps the invariant of both segments of a pair whatever the first's
    /// `hi` before it, and a store of another value of the cut.
    #[test]
    fn every_update_keeps_the_invariant() {
        let mut em = Concrete;
        for lo in bounds() {
            for hi in bounds() {
                let old = range(lo, hi);
                for o in offsets() {
                    let at = constant(I64, o);
                    let grown = grow(&mut em, old, at, SIZE);
                    assert!(kept(old, grown, o, true), "grow [{lo}, {hi}) at {o}");
                    let cut = cut(&mut em, old, at);
                    assert!(kept(old, cut, o, false), "cut [{lo}, {hi}) at {o}");
                    for hi1 in bounds() {
                        let next = second(&mut em, old, constant(I64, hi1), at, SIZE);
                        assert!(
                            kept(old, next, o, true),
                            "second [{lo}, {hi}) at {o} after {hi1}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_copy_loop_that_skips_an_index_leaves_two_runs() {
        let mut em = Concrete;
        // `b[i] = a[i]` for i = 0, 1, then not at 2, then at 3.
        let (mut first, mut run) = (range(0, 0), range(SIZE, SIZE));
        for i in [0, 1, 3] {
            let at = constant(I64, SIZE * i);
            let before = first;
            first = grow(&mut em, first, at, SIZE);
            run = second(&mut em, run, before.hi, at, SIZE);
        }
        assert_eq!(first, range(0, 2 * SIZE));
        assert_eq!(run, range(3 * SIZE, 4 * SIZE));
    }
}
