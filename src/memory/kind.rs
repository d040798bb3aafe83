//! The interface of a segment kind. A segment says that a property `P(x, o)` holds of every
//! element `x` of a summary cell whose byte offset `o` lies in `[lo, hi)`; a kind is one
//! family of such properties (a constant, a copy of another cell, an assertion's condition,
//! a polynomial of the index, a condition over two cells). The driver of the lowering
//! (`ssa.rs`) keeps the bounds of every segment as two tracks (values with phis, like the
//! cells') and asks each kind, through [`SegmentKind`], what a load reads, how a store
//! moves the bounds and which facts to assume; `registry.rs` lists the kinds and says which
//! wins where two would describe one cell.
//!
//! Every update a kind makes must keep its invariant for any bounds and offsets (the
//! shared argument is in `bounds.rs`); which segments a kind chooses only affects
//! precision.

use std::collections::HashMap;

use super::cells::CellId;
use super::emit::{Bounds, Cond, Emit, Sym};
use super::memo::{Memo, Number, Numbering};
use crate::ir::{Const, Operand, SourceLoc, Ty, ValueId};

/// A load of a summary cell, as one kind sees it.
pub struct Load<'x> {
    pub cell: CellId,
    /// The cell's type.
    pub ty: Ty,
    pub offset: Operand,
    /// The offset's value number (`memo.rs`).
    pub number: Option<Number>,
    /// The load's own value; `None` when a copy segment reads its source.
    pub dest: Option<ValueId>,
    /// The load is in the entry block, where the values a property reads may not be
    /// defined yet.
    pub in_entry: bool,
    /// How many copies deep the read is (0 for the program's own load).
    pub depth: usize,
    /// The bounds of this kind's segments.
    pub bounds: &'x [Bounds],
    pub loc: &'x Option<SourceLoc>,
}

/// A store to a summary cell, as one kind sees it.
pub struct Store<'x> {
    pub cell: CellId,
    /// The cell's type.
    pub ty: Ty,
    pub offset: Operand,
    /// The offset's value number (`memo.rs`).
    pub number: Option<Number>,
    pub numbering: &'x Numbering,
    pub value: Operand,
    /// The block and the index of the store in it.
    pub block: usize,
    pub index: usize,
    /// The store is in the entry block (see [`Load::in_entry`]).
    pub in_entry: bool,
    /// What the elements hold before the store.
    pub memo: &'x Memo,
    /// What this kind noted of the block's loads so far.
    pub notes: &'x Notes,
}

/// An assumption a kind makes of a load, emitted at the end of the load's block, where the
/// program's own computation of the condition is available (`available.rs`): it is about
/// values defined at the load (SSA), so it holds at the block's end too, and every path
/// through the load reaches the end (assumptions only end paths).
#[derive(Clone, Debug)]
pub struct Fact {
    /// The kind's segment the fact is about.
    pub segment: usize,
    /// Its bounds at the load.
    pub bounds: Bounds,
    pub offset: Operand,
    /// The value read (of a pair of cells, the first cell's element).
    pub value: Operand,
    /// Of a pair of cells, the second cell's element at the same offset.
    pub partner: Option<Operand>,
    /// The comparisons under which the load was inside the segment.
    pub conds: Vec<Cond>,
    pub loc: Option<SourceLoc>,
}

/// What one kind notes of the loads of the block being built.
#[derive(Default)]
pub struct Notes {
    /// The facts to emit at the block's end, in the order of the loads.
    pub facts: Vec<Fact>,
    /// The loads that were read inside some of the kind's segments: the offset, and for
    /// each such segment the comparisons that say the load was inside it.
    pub inside: HashMap<ValueId, Inside>,
}

/// A load's offset and the segments it was read inside, each with its comparisons.
pub type Inside = (Operand, Vec<(usize, Vec<Cond>)>);

/// The lowering as a kind sees it at a load.
pub trait Loads {
    /// Where the kind's instructions go.
    fn em(&mut self) -> &mut dyn Emit;
    /// The element of `cell` at the load's offset, read as a load of it here reads it (a
    /// copy segment's source), one copy deeper.
    fn read(&mut self, cell: CellId, offset: Operand) -> Sym;
    /// What the kind noted of the block's loads so far.
    fn notes(&mut self) -> &mut Notes;
}

/// One kind of segment. Its segments are numbered from 0 in the order the kind chose them;
/// each has two tracks, `lo` and `hi`, which the driver keeps and hands over as a slice
/// with one [`Bounds`] per segment.
pub trait SegmentKind {
    /// The number of segments the kind has in the function.
    fn len(&self) -> usize;
    /// Whether segment `j` says something of `cell`: a clobber or an aliasing write of it
    /// empties the segment.
    fn describes(&self, j: usize, cell: CellId) -> bool;
    /// The name of segment `j`'s tracks (`.lo` and `.hi` are appended).
    fn name(&self, j: usize, cell_name: &dyn Fn(CellId) -> String) -> String;
    /// The bounds of segment `j` when it holds nothing: at the entry, after a clobber.
    fn empty(&self, _j: usize) -> Bounds {
        super::bounds::empty()
    }
    /// Whether segment `j` holds nothing at the start of `block` on every path (no store
    /// that may fill it reaches the block): it starts there as [`Self::empty`], without a
    /// phi.
    fn empty_at(&self, _block: usize, _j: usize) -> bool {
        false
    }
    /// The value a load reads, given what it reads outside this kind's segments (`rest`).
    fn load(&self, _lw: &mut dyn Loads, _at: &Load<'_>, rest: Sym) -> Sym {
        rest
    }
    /// Notes facts about `value`, what a fresh read of an element gave (after every kind's
    /// [`Self::load`]; the program's load or a copy's source, not a memoized value).
    fn observe_read(&self, _at: &Load<'_>, _value: Operand, _notes: &mut Notes) {}
    /// Notes facts about the program's load `at.dest` (memoized or not), given what the
    /// memo holds after it.
    fn observe_load(&self, _at: &Load<'_>, _memo: &Memo, _notes: &mut Notes) {}
    /// Whether the kind must see the store at `index` of `block` even when it writes what
    /// the element already holds (which changes no byte, so other kinds skip it).
    fn needs_store(&self, _block: usize, _index: usize) -> bool {
        false
    }
    /// Updates the bounds at a store to a summary cell.
    fn store(&self, _em: &mut dyn Emit, _at: &Store<'_>, _bounds: &mut [Bounds]) {}
    /// Updates the bounds after an initializer that gave every element of `cell` the
    /// constant `every` (the segments of the base are emptied before).
    fn initialized(&self, _cell: CellId, _every: Const, _bounds: &mut [Bounds]) {}
    /// Emits a fact the kind noted.
    fn emit_fact(&self, _em: &mut dyn Emit, _fact: &Fact) {}
}
