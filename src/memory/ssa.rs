//! The driver of the lowering: SSA construction over cells and segment bounds. Every load of
//! an exact cell becomes a copy of its cell's current value, every store a new current
//! value, every clobber fresh arbitrary values; at each join a phi per track (`phis.rs`). A
//! summary cell has no single current value (`values.rs`): a load of it is a fresh choice
//! among the values some element may hold, which the segment kinds override inside their
//! segments (`kind.rs`), and which the memo of the block names (`memo.rs`).
//!
//! The phases of [`lower`], each a function or a module with one job:
//! 1. layout (`cells.rs`): the cells of every base;
//! 2. numbering (`memo.rs`): value numbers of the offsets;
//! 3. segment choice (`registry.rs`): each kind's segments, and which kind wins;
//! 4. rewriting ([`rewrite_blocks`]): each block in order, its memory operations replaced
//!    by scalar instructions ([`Block`]), its facts emitted at its end, its tracks' final
//!    values moved into the phis of its successors;
//! 5. the phis (`phis.rs`): trivial ones removed, live ones materialized.
//!
//! **Invariant:** at every point of the output, the value of each exact cell's track is
//! the cell's content, each summary cell's elements hold values of its set (`values.rs`),
//! each memo entry names the content of its element (`memo.rs`), and each segment's
//! bounds satisfy its kind's invariant. Every cell is arbitrary at the entry
//! (uninitialized memory is never an earlier path's value; an exact cell of a pointer
//! parameter's object is an input named by its offset, `HavocReason::FieldParam`, which
//! preconditions may read), and a write to a base makes the cells of every base it may
//! alias arbitrary (`cells::Aliasing`), but for the leading initializers of the entry,
//! which describe the memory the function starts with.

use std::collections::BTreeSet;

use super::available::{single_entries, Available, SingleEntry};
use super::cells::{self, Aliasing, CellId, Cells};
use super::emit::{Bounds, Emit, Sym, SymExpr};
use super::kind::{Load, Loads, Notes, Store};
use super::memo::{Memo, Numbering};
use super::output::{fresh, Emitter, Output, Pending, Sink};
use super::phis::{Phis, Track};
use super::registry::Kinds;
use super::values::{self, initial_values, Initial, ValueSet};
use crate::ir::{
    Address, BaseId, BaseKind, BlockId, Expr, Function, HavocReason, Inst, MemOp, Operand,
    SourceLoc, Ty, ValueId, ValueInfo,
};

/// The most earlier entries of the memo a read of a summary cell compares its offset with.
const MAX_FORWARDS: usize = 2;

/// Replaces the memory operations of `func` by scalar values; `None` when the function's
/// shape is not one the construction handles (an entry block with predecessors).
pub fn lower(func: Function) -> Option<Function> {
    if func
        .blocks
        .iter()
        .any(|b| b.term.successors().contains(&func.entry))
    {
        return None;
    }
    let cells = cells::choose(&func);
    let numbering = Numbering::new(&func);
    let aliasing = Aliasing::new(&func);
    let kinds = Kinds::choose(&func, &cells, &numbering, &aliasing);
    let tracks = kinds.tracks(&cells);
    let mut phis = Phis::new(&func, &tracks);
    let cx = Context {
        func: &func,
        cells: &cells,
        aliasing: &aliasing,
        numbering: &numbering,
        kinds: &kinds,
    };
    let mut values = func.values.clone();
    let blocks = rewrite_blocks(&cx, &mut values, &mut phis);
    let ty = |t: Track| kinds.track_ty(t, &cells);
    let bases = func.bases.clone();
    let name = |t: Track| kinds.track_name(t, &|c| cells.name(c, &bases));
    Some(phis.finish(func, values, blocks, &ty, &name))
}

/// What the rewriting of every block reads.
struct Context<'f> {
    func: &'f Function,
    cells: &'f Cells,
    aliasing: &'f Aliasing,
    numbering: &'f Numbering,
    kinds: &'f Kinds,
}

impl Context<'_> {
    fn cell_name(&self, c: CellId) -> String {
        self.cells.name(c, &self.func.bases)
    }

    /// A fresh arbitrary value for cell `c`.
    fn havoc_cell(&self, em: &mut Emitter<'_>, c: CellId) -> Sym {
        let ty = self.cells.cells[c.0].ty;
        let v = fresh(em.values, ty, self.cell_name(c));
        em.keep(Inst::Havoc {
            dest: v,
            reason: HavocReason::Load,
        });
        Sym::Op(Operand::Value(v))
    }

    /// The value of cell `c` at the entry: arbitrary, and for an exact cell of a pointer
    /// parameter's object an input of the function a precondition may read (its field).
    fn entry_cell(&self, em: &mut Emitter<'_>, c: CellId) -> Sym {
        let cell = &self.cells.cells[c.0];
        let base = &self.func.bases[cell.base.index()];
        let field = match (base.kind, cell.offset) {
            (BaseKind::Pointee, Some(offset)) if matches!(cell.ty.width, 8 | 16 | 32 | 64) => {
                u64::try_from(offset).ok()
            }
            _ => None,
        };
        let Some(offset) = field else {
            return self.havoc_cell(em, c);
        };
        let param = base
            .name
            .strip_prefix('*')
            .unwrap_or(&base.name)
            .to_string();
        let v = fresh(em.values, cell.ty, self.cell_name(c));
        em.keep(Inst::Havoc {
            dest: v,
            reason: HavocReason::FieldParam { param, offset },
        });
        Sym::Op(Operand::Value(v))
    }

    /// A fresh value for cell `c` within `hull`: arbitrary, then assumed within each bound.
    fn within(&self, em: &mut Emitter<'_>, c: CellId, hull: &values::Hull) -> Sym {
        let v = self.havoc_cell(em, c);
        let Sym::Op(x) = v else {
            return v;
        };
        for (pred, bound) in hull.bounds() {
            let rhs = Operand::Const(bound);
            let cond = em.emit_fresh(Ty::BOOL, Expr::Cmp { pred, lhs: x, rhs });
            em.assume(Sym::Op(cond));
        }
        v
    }

    /// One of `values`, chosen nondeterministically: a chain of selects on fresh booleans.
    fn one_of(&self, em: &mut Emitter<'_>, c: CellId, values: &[Operand]) -> Sym {
        let ty = self.cells.cells[c.0].ty;
        let mut acc = values[0];
        for value in &values[1..] {
            let cond = fresh(em.values, Ty::BOOL, "choice".into());
            em.keep(Inst::Havoc {
                dest: cond,
                reason: HavocReason::Load,
            });
            let dest = fresh(em.values, ty, self.cell_name(c));
            em.keep(Inst::Assign {
                dest,
                expr: Expr::Select {
                    cond: Operand::Value(cond),
                    on_true: *value,
                    on_false: acc,
                },
            });
            acc = Operand::Value(dest);
        }
        Sym::Op(acc)
    }
}

/// The value of every track at one point: each cell's, and each segment's bounds (in the
/// numbering of every kind's segments).
#[derive(Clone)]
struct Tracks {
    cells: Vec<Sym>,
    bounds: Vec<Bounds>,
}

impl Tracks {
    /// From the values in the order of the tracks (`Kinds::tracks`).
    fn from_values(values: Vec<Sym>, n_cells: usize) -> Tracks {
        let bounds = values[n_cells..]
            .chunks(2)
            .map(|b| Bounds { lo: b[0], hi: b[1] })
            .collect();
        let mut cells = values;
        cells.truncate(n_cells);
        Tracks { cells, bounds }
    }

    /// The values in the order of the tracks.
    fn values(&self) -> Vec<Sym> {
        let bounds = self.bounds.iter().flat_map(|b| [b.lo, b.hi]);
        self.cells.iter().copied().chain(bounds).collect()
    }
}

/// Rewrites every block in order (phase 4); the outputs, one per block.
fn rewrite_blocks(cx: &Context<'_>, values: &mut Vec<ValueInfo>, phis: &mut Phis) -> Vec<Output> {
    let func = cx.func;
    let entries = single_entries(func);
    let mut handover = Handover::new(&entries);
    let sets_at = values::value_sets_at_blocks(func, cx.cells, cx.aliasing);
    let mut outputs = Vec::with_capacity(func.blocks.len());
    for (b, block) in func.blocks.iter().enumerate() {
        let sets = sets_at[b]
            .clone()
            .unwrap_or_else(|| vec![ValueSet::Any; cx.cells.cells.len()]);
        let (available, memo) = handover.take_over(entries[b]);
        let mut state = Block::start(cx, values, phis, b, sets, available, memo);
        for (index, (inst, loc)) in block.insts.iter().zip(&block.locs).enumerate() {
            state.rewrite(cx, values, index, inst, loc);
            values::step(func, cx.cells, cx.aliasing, &mut state.sets, inst);
        }
        state.emit_facts(cx, values);
        phis.leave(b, &block.term.successors(), &state.tracks.values());
        handover.hand_over(b, state.sink.available, state.memo);
        outputs.push(state.sink.out);
    }
    outputs
}

/// What a block entered by one edge from an earlier block starts from: the available
/// definitions and the memo at the end of that block (nothing runs in between).
struct Handover {
    /// Whether some later block is entered from each block alone.
    passes_on: Vec<bool>,
    available: Vec<Option<Available>>,
    memos: Vec<Option<Memo>>,
}

impl Handover {
    fn new(entries: &[SingleEntry]) -> Handover {
        let n_blocks = entries.len();
        let mut passes_on = vec![false; n_blocks];
        for (b, from) in entries.iter().enumerate() {
            if let Some((p, _)) = from {
                passes_on[*p] |= *p < b;
            }
        }
        Handover {
            passes_on,
            available: vec![None; n_blocks],
            memos: vec![None; n_blocks],
        }
    }

    /// The definitions and the memo at the start of a block entered as `entry`.
    fn take_over(&self, entry: SingleEntry) -> (Available, Memo) {
        let memo = match entry {
            Some((p, _)) => self.memos[p].clone().unwrap_or_default(),
            None => Memo::default(),
        };
        (Available::at_start(entry, &self.available), memo)
    }

    /// Keeps what block `b` knows at its end, when a later block starts from it.
    fn hand_over(&mut self, b: usize, available: Available, memo: Memo) {
        if self.passes_on[b] {
            self.available[b] = Some(available);
            self.memos[b] = Some(memo);
        }
    }
}

/// The state of the block being rewritten, at the current point.
struct Block {
    index: usize,
    in_entry: bool,
    /// Whether the point is in the leading initializers of globals of the entry block: the
    /// lifter puts the constant globals' contents there, before anything else (the null
    /// flags of the pointer parameters come next), so they describe the memory the
    /// function starts with, not writes, and change no other base.
    at_start: bool,
    tracks: Tracks,
    /// The value sets of the summary cells (`values.rs`).
    sets: Vec<ValueSet>,
    memo: Memo,
    /// What each kind noted of the block's loads (by kind, `registry.rs`).
    notes: Vec<Notes>,
    sink: Sink,
}

impl Block {
    /// The state at the start of block `b`: at the entry every cell arbitrary and every
    /// segment empty; elsewhere the phis, but empty segments where no store that may fill
    /// them reaches.
    fn start(
        cx: &Context<'_>,
        values: &mut Vec<ValueInfo>,
        phis: &Phis,
        b: usize,
        sets: Vec<ValueSet>,
        available: Available,
        memo: Memo,
    ) -> Block {
        let in_entry = BlockId(b as u32) == cx.func.entry;
        let mut state = Block {
            index: b,
            in_entry,
            at_start: in_entry,
            tracks: Tracks {
                cells: vec![],
                bounds: vec![],
            },
            sets,
            memo,
            notes: (0..cx.kinds.n_kinds()).map(|_| Notes::default()).collect(),
            sink: Sink {
                out: Vec::new(),
                available,
            },
        };
        let n_cells = cx.cells.cells.len();
        let tracks = if in_entry {
            let mut em = state.emitter(cx, values, &cx.func.loc);
            let cells = (0..n_cells)
                .map(|c| cx.entry_cell(&mut em, CellId(c)))
                .collect();
            let mut bounds = Vec::with_capacity(cx.kinds.n_segments());
            for (_, kind, range) in cx.kinds.all() {
                bounds.extend((0..range.len()).map(|j| kind.empty(j)));
            }
            Tracks { cells, bounds }
        } else {
            let mut tracks = Tracks::from_values(phis.at_start(b), n_cells);
            for (_, kind, range) in cx.kinds.all() {
                for (j, s) in range.enumerate() {
                    if kind.empty_at(b, j) {
                        tracks.bounds[s] = kind.empty(j);
                    }
                }
            }
            tracks
        };
        state.tracks = tracks;
        state
    }

    fn emitter<'b>(
        &'b mut self,
        cx: &'b Context<'_>,
        values: &'b mut Vec<ValueInfo>,
        loc: &'b Option<SourceLoc>,
    ) -> Emitter<'b> {
        self.sink.emitter(values, cx.numbering, loc)
    }

    /// Rewrites instruction `index` of the block.
    fn rewrite(
        &mut self,
        cx: &Context<'_>,
        values: &mut Vec<ValueInfo>,
        index: usize,
        inst: &Inst,
        loc: &Option<SourceLoc>,
    ) {
        let initial = matches!(inst, Inst::Mem(MemOp::Init { base, .. })
            if matches!(cx.func.bases[base.index()].kind, BaseKind::Global | BaseKind::Constant));
        let at_start = self.at_start;
        self.at_start = at_start && initial;
        match inst {
            Inst::Mem(MemOp::Load { dest, addr }) => self.load(cx, values, *dest, addr, loc),
            Inst::Mem(MemOp::Store { addr, value }) => {
                self.store(cx, values, index, addr, *value, loc)
            }
            Inst::Mem(MemOp::Init {
                base,
                leaves,
                zero_rest,
            }) => {
                let init = initial_values(cx.cells, *base, leaves, *zero_rest);
                self.empty_segments(cx, &[*base]);
                for (c, value) in init {
                    if cx.cells.cells[c.0].offset.is_none() {
                        // A summary cell: its value set (`values::step`), and the segments
                        // of the one constant every element holds.
                        if let Initial::Known(Operand::Const(k)) = value {
                            for (_, kind, range) in cx.kinds.all() {
                                kind.initialized(c, k, &mut self.tracks.bounds[range]);
                            }
                        }
                        continue;
                    }
                    let mut em = self.emitter(cx, values, loc);
                    let v = match value {
                        Initial::Known(op) => Sym::Op(op),
                        Initial::OneOf(choices) => cx.one_of(&mut em, c, &choices),
                        Initial::Within(hull) => cx.within(&mut em, c, &hull),
                        Initial::Arbitrary => cx.havoc_cell(&mut em, c),
                    };
                    self.tracks.cells[c.0] = v;
                }
                if !(at_start && initial) {
                    self.written(cx, values, &cx.aliasing.aliased_by_write(*base), loc);
                }
            }
            Inst::Mem(MemOp::Clobber { bases }) => {
                let mut all: BTreeSet<BaseId> = bases.iter().copied().collect();
                for &b in bases {
                    all.extend(cx.aliasing.aliased_by_write(b));
                }
                let all: Vec<BaseId> = all.into_iter().collect();
                self.written(cx, values, &all, loc);
            }
            other => {
                if let Inst::Assign { dest, expr } = other {
                    let ty = cx.func.value(*dest).ty;
                    self.sink.available.define(ty, expr, *dest, cx.numbering);
                }
                self.sink
                    .out
                    .push((Pending::Keep(other.clone()), loc.clone()));
            }
        }
    }

    /// A load: an exact cell's value, a summary cell's as [`Reader::read_summary`] reads it,
    /// or arbitrary (an untracked base).
    fn load(
        &mut self,
        cx: &Context<'_>,
        values: &mut Vec<ValueInfo>,
        dest: ValueId,
        addr: &Address,
        loc: &Option<SourceLoc>,
    ) {
        let ty = cx.func.value(dest).ty;
        let pending = match cx.cells.cell_of(addr.base, &addr.offset, ty) {
            Some((c, false)) => Pending::Load {
                dest,
                sym: self.tracks.cells[c.0],
            },
            Some((c, true)) => {
                let sym = self
                    .reader(cx, values, loc)
                    .read_summary(c, addr.offset, Some(dest));
                // The memo then names the value by the load's own `dest`, so that a store of
                // it is a known copy.
                let number = cx.numbering.number(&addr.offset);
                if self.memo.get(c, number) == Some(sym) {
                    let value = Sym::Op(Operand::Value(dest));
                    self.memo.insert(c, number, value, addr.offset);
                }
                for (k, kind, range) in cx.kinds.all() {
                    let at = Load {
                        cell: c,
                        ty: cx.cells.cells[c.0].ty,
                        offset: addr.offset,
                        number,
                        dest: Some(dest),
                        in_entry: self.in_entry,
                        depth: 0,
                        bounds: &self.tracks.bounds[range],
                        loc,
                    };
                    kind.observe_load(&at, &self.memo, &mut self.notes[k]);
                }
                Pending::Load { dest, sym }
            }
            None => Pending::Keep(Inst::Havoc {
                dest,
                reason: HavocReason::Load,
            }),
        };
        self.sink.out.push((pending, loc.clone()));
    }

    fn reader<'r>(
        &'r mut self,
        cx: &'r Context<'r>,
        values: &'r mut Vec<ValueInfo>,
        loc: &'r Option<SourceLoc>,
    ) -> Reader<'r> {
        Reader {
            cx,
            tracks: &self.tracks,
            sets: &self.sets,
            em: self.sink.emitter(values, cx.numbering, loc),
            memo: &mut self.memo,
            notes: &mut self.notes,
            kind: 0,
            depth: 0,
            in_entry: self.in_entry,
        }
    }

    /// A store: an exact cell's new value, or a weak update of a summary cell (its value
    /// set changes in `values::step`, its segments here); then the bases it may alias.
    fn store(
        &mut self,
        cx: &Context<'_>,
        values: &mut Vec<ValueInfo>,
        index: usize,
        addr: &Address,
        value: Operand,
        loc: &Option<SourceLoc>,
    ) {
        let ty = cx.func.operand_ty(&value);
        let number = cx.numbering.number(&addr.offset);
        match cx.cells.cell_of(addr.base, &addr.offset, ty) {
            Some((c, false)) => self.tracks.cells[c.0] = Sym::Op(value),
            Some((c, true)) => {
                // A store of the value the memo says the element holds (`a[k] = a[k]`)
                // changes no byte of memory, an aliased base's included: nothing to update,
                // unless a kind must see it.
                let unchanged = self.memo.get(c, number) == Some(Sym::Op(value))
                    && cx
                        .kinds
                        .for_store()
                        .all(|(_, kind, _)| !kind.needs_store(self.index, index));
                if unchanged {
                    return;
                }
                for (k, kind, range) in cx.kinds.for_store() {
                    let at = Store {
                        cell: c,
                        ty: cx.cells.cells[c.0].ty,
                        offset: addr.offset,
                        number,
                        numbering: cx.numbering,
                        value,
                        block: self.index,
                        index,
                        in_entry: self.in_entry,
                        memo: &self.memo,
                        notes: &self.notes[k],
                    };
                    let mut em = self.sink.emitter(values, cx.numbering, loc);
                    kind.store(&mut em, &at, &mut self.tracks.bounds[range]);
                }
                // The store may hit any element the memo knows of this cell; after it, the
                // element at `offset` holds the stored value.
                self.memo.forget(&[c]);
                self.memo.insert(c, number, Sym::Op(value), addr.offset);
            }
            None => {}
        }
        self.written(cx, values, &cx.aliasing.aliased_by_write(addr.base), loc);
    }

    /// Every cell of `bases` becomes arbitrary, and every segment that describes one of them
    /// empty: they may have been written.
    fn written(
        &mut self,
        cx: &Context<'_>,
        values: &mut Vec<ValueInfo>,
        bases: &[BaseId],
        loc: &Option<SourceLoc>,
    ) {
        for &b in bases {
            for c in cx.cells.cells_of(b) {
                let v = cx.havoc_cell(&mut self.emitter(cx, values, loc), c);
                self.tracks.cells[c.0] = v;
            }
        }
        self.empty_segments(cx, bases);
    }

    /// Empties every segment that describes a cell of `bases`, and forgets what the memo
    /// knows of them.
    fn empty_segments(&mut self, cx: &Context<'_>, bases: &[BaseId]) {
        for &b in bases {
            let cells = cx.cells.cells_of(b);
            for (_, kind, range) in cx.kinds.all() {
                for (j, s) in range.enumerate() {
                    if cells.iter().any(|&c| kind.describes(j, c)) {
                        self.tracks.bounds[s] = kind.empty(j);
                    }
                }
            }
            self.memo.forget(&cells);
        }
    }

    /// Emits the facts the kinds noted of the block's loads, at its end.
    fn emit_facts(&mut self, cx: &Context<'_>, values: &mut Vec<ValueInfo>) {
        for (k, kind, _) in cx.kinds.for_facts() {
            for fact in std::mem::take(&mut self.notes[k].facts) {
                let mut em = self.emitter(cx, values, &fact.loc);
                kind.emit_fact(&mut em, &fact);
            }
        }
    }
}

/// A read of a summary cell at one point of the block: what the kinds see of the lowering
/// at a load ([`Loads`]).
struct Reader<'r> {
    cx: &'r Context<'r>,
    tracks: &'r Tracks,
    sets: &'r [ValueSet],
    em: Emitter<'r>,
    memo: &'r mut Memo,
    notes: &'r mut [Notes],
    /// The kind whose hook runs (its notes are the ones [`Loads::notes`] gives).
    kind: usize,
    /// How many copies deep the read is.
    depth: usize,
    in_entry: bool,
}

impl Reader<'_> {
    /// What a load of summary cell `c` at `offset` reads: the memoized value, or a fresh
    /// choice among the values an element may hold, overridden inside each segment by what
    /// its kind reads there (a copy segment reads its source the same way, one copy
    /// deeper). The kinds then note facts of the value, and it is memoized.
    fn read_summary(&mut self, c: CellId, offset: Operand, dest: Option<ValueId>) -> Sym {
        let cx = self.cx;
        let number = cx.numbering.number(&offset);
        if let Some(v) = self.memo.get(c, number) {
            // The same value as an earlier load: what is known of it holds of this one.
            if let (Some(d), Sym::Op(Operand::Value(w))) = (dest, v) {
                for notes in self.notes.iter_mut() {
                    if let Some(inside) = notes.inside.get(&w).cloned() {
                        notes.inside.insert(d, inside);
                    }
                }
            }
            return v;
        }
        let mut rest = match &self.sets[c.0] {
            ValueSet::OneOf(choices) if !choices.is_empty() => cx.one_of(&mut self.em, c, choices),
            ValueSet::Within(hull) => cx.within(&mut self.em, c, hull),
            _ => cx.havoc_cell(&mut self.em, c),
        };
        let (tracks, loc) = (self.tracks, self.em.loc);
        let (in_entry, depth) = (self.in_entry, self.depth);
        let load = |bounds| Load {
            cell: c,
            ty: cx.cells.cells[c.0].ty,
            offset,
            number,
            dest,
            in_entry,
            depth,
            bounds,
            loc,
        };
        for (k, kind, range) in cx.kinds.for_load() {
            self.kind = k;
            rest = kind.load(self, &load(&tracks.bounds[range]), rest);
        }
        // The element at an earlier offset of the block holds that entry's value: at an
        // equal offset this read reads it too (`*a != *last` with `a == last` is false).
        if let Some(n) = number {
            let ty = cx.cells.cells[c.0].ty;
            for (at, earlier) in self.memo.others(c, n, MAX_FORWARDS) {
                let same = self
                    .em
                    .emit(Ty::BOOL, SymExpr::Equal(Sym::Op(offset), Sym::Op(at)));
                rest = self.em.emit(ty, SymExpr::Select(same, earlier, rest));
            }
        }
        if let Sym::Op(x) = rest {
            // The load's own value where it has one (`dest := rest`), so that a property's
            // instantiation is the program's condition over it.
            let value = dest.map_or(x, Operand::Value);
            for (k, kind, range) in cx.kinds.all() {
                kind.observe_read(&load(&tracks.bounds[range]), value, &mut self.notes[k]);
            }
        }
        self.memo.insert(c, number, rest, offset);
        rest
    }
}

impl Loads for Reader<'_> {
    fn em(&mut self) -> &mut dyn super::emit::Emit {
        &mut self.em
    }

    fn read(&mut self, cell: CellId, offset: Operand) -> Sym {
        let kind = self.kind;
        self.depth += 1;
        let v = self.read_summary(cell, offset, None);
        self.depth -= 1;
        self.kind = kind;
        v
    }

    fn notes(&mut self) -> &mut Notes {
        &mut self.notes[self.kind]
    }
}
