//! SSA construction over cells: every load of an exact cell becomes a copy of its cell's
//! current value, every store a new current value, every clobber fresh arbitrary values; at
//! each join a phi per cell (moves on the incoming edges), the trivial ones removed (Braun et
//! al., "Simple and Efficient Construction of Static Single Assignment Form", 2013) and the
//! dead ones never materialized.
//!
//! A summary cell stands for every element of an array, so it has no single current value:
//! two loads of it (two indices, or one load in two iterations) may read different
//! elements. A load of a summary cell is a fresh choice among the values some element may
//! hold there ([`ValueSet`], a forward data flow over the blocks: the constants initialized
//! or stored, or anything). An earlier construction kept one value per summary cell (weak
//! updates as `select`s), so every load read the same element: a load of `a[2]` constrained
//! by an assertion made `a[1] != 1` "proved" although `a[1] == 1` (soundness generator).

use std::collections::{BTreeSet, HashMap};

use super::cells::{self, CellId, Cells};
use super::contents::{self, Content};
use super::copies::{self, Copy, Stored};
use super::memo::{Memo, Numbering};
use super::pairs::{self, Pair, Role};
use super::predicates::{self, Indices, Property};
use super::segments::{self, Segment};
use crate::ir::{
    ArithFlags, BaseId, BaseKind, BinOp, BlockId, CmpPred, Expr, Function, HavocReason, Inst,
    MemOp, Operand, SourceLoc, Terminator, Ty, ValueId, ValueInfo,
};

/// A value during construction: an operand, or the phi of a cell at a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Sym {
    Op(Operand),
    Phi(usize),
}

/// An instruction of the output whose operands may still be phis.
enum Pending {
    Keep(Inst),
    /// `dest := the value`.
    Load {
        dest: ValueId,
        sym: Sym,
    },
    /// `dest := expr`, whose operands may be phis (the bounds of segments).
    Assign {
        dest: ValueId,
        expr: SymExpr,
    },
    /// `assume cond`.
    Assume(Sym),
}

/// An expression over values under construction.
pub(super) enum SymExpr {
    /// A signed comparison `lhs < rhs`.
    Less(Sym, Sym),
    /// `lhs == rhs`.
    Equal(Sym, Sym),
    /// A wrapping addition.
    Add(Sym, Sym),
    Select(Sym, Sym, Sym),
}

impl SymExpr {
    fn syms(&self) -> Vec<Sym> {
        match self {
            SymExpr::Less(a, b) | SymExpr::Equal(a, b) | SymExpr::Add(a, b) => vec![*a, *b],
            SymExpr::Select(c, t, f) => vec![*c, *t, *f],
        }
    }
}

struct Phi {
    /// The tracked quantity: a cell, or a bound of a segment (see [`Tracks`]).
    cell: usize,
    /// The incoming value of each incoming edge.
    incoming: Vec<Sym>,
}

/// A move into a phi, on edge `edge` of block `block`.
struct PendingMove {
    block: usize,
    edge: usize,
    phi: usize,
    sym: Sym,
}

struct Builder<'a> {
    cells: &'a Cells,
    bases: Vec<(BaseKind, String)>,
    values: Vec<ValueInfo>,
    /// The segments of summary cells (`segments.rs`); segment `j`'s bounds are the
    /// tracks `n_cells + 2j` (lo) and `n_cells + 2j + 1` (hi).
    segments: Vec<Segment>,
    /// The copy segments (`copies.rs`); copy `j`'s bounds are the tracks
    /// [`Builder::copy_track`]`(j)` and the next.
    copies: Vec<Copy>,
    /// Value numbers of offsets, for the memo of loads (`memo.rs`).
    numbering: Numbering,
    /// The predicate segments (`predicates.rs`); property `j`'s bounds are the tracks
    /// [`Builder::property_track`]`(j)` and the next.
    properties: Vec<Property>,
    /// The pair segments (`pairs.rs`); pair `j`'s bounds are the tracks
    /// [`Builder::pair_track`]`(j)` and the next.
    pairs: Vec<Pair>,
    /// The pure definitions of the current block so far, for [`segments::Emit::emit_expr`].
    available: Available,
    /// The properties assumed of the current block's loads, emitted at its end.
    deferred: Vec<Deferred>,
    /// The same for pair properties.
    deferred_pairs: Vec<DeferredPair>,
    /// The content segments (`contents.rs`); content `j`'s bounds are the tracks
    /// [`Builder::content_track`]`(j)` and the next.
    contents: Vec<Content>,
    /// The definitions the contents' readings look through.
    content_defs: contents::Defs,
    /// The loads of the current block with contents: the offset, and for each content of
    /// the cell the comparisons under which the load was inside it.
    content_reads: HashMap<ValueId, (Operand, Vec<(usize, Vec<contents::Cond>)>)>,
    /// The loads of the current block with non-constant contents, for
    /// `contents::assume_compared` at its end.
    deferred_contents: Vec<DeferredContent>,
}

/// A load of a cell with a content (`contents::assume_compared`), at the end of its block.
struct DeferredContent {
    content: usize,
    dest: ValueId,
    offset: Operand,
    var: Option<contents::Var>,
    conds: Vec<contents::Cond>,
    loc: Option<SourceLoc>,
}

/// The pure definitions of the current block so far, by expression with the poison flags
/// removed: an instantiation of a property (`predicates.rs`) that computes the same
/// expression reads the earlier definition instead of a fresh value, so that the engines
/// see one value where the program and the property compute `i * i` twice (two products
/// of the same values are unrelated in a linear domain). Sound: an earlier definition of
/// the same block dominates every later point of it, and a flagged definition equals the
/// expression without flags except where it is poison, which the analysis takes as not
/// happening (`ir::ArithFlags`). Expressions with an `undef` operand are never entered (two
/// `undef`s may differ). The table starts empty at every block.
///
/// A block entered by one edge only starts from its predecessor's table (the predecessor
/// dominates it: an extended basic block), and when that edge is one side of a branch on
/// `c`, `c` is known there (`known`): the instantiation `v != 0` of a store in the block
/// that a branch on the program's `v != 0` leads to is true.
#[derive(Clone, Default)]
struct Available {
    by_expr: HashMap<(Ty, Expr), Operand>,
    known: HashMap<ValueId, bool>,
}

/// The most entries a block's table passes on to the block it leads to (a guard: the table
/// is cloned per block).
const MAX_AVAILABLE: usize = 1_024;

/// For each block entered by exactly one edge: its predecessor, and the branch condition
/// that edge decides (`c` and its value), if any.
fn single_entries(func: &Function) -> Vec<Option<(usize, Option<(ValueId, bool)>)>> {
    let mut count = vec![0usize; func.blocks.len()];
    let mut from: Vec<Option<(usize, Option<(ValueId, bool)>)>> = vec![None; func.blocks.len()];
    for (b, block) in func.blocks.iter().enumerate() {
        for e in block.term.edges() {
            count[e.target.index()] += 1;
        }
        match &block.term {
            Terminator::Branch {
                cond: Operand::Value(c),
                then_edge,
                else_edge,
            } => {
                from[then_edge.target.index()] = Some((b, Some((*c, true))));
                from[else_edge.target.index()] = Some((b, Some((*c, false))));
            }
            term => {
                for e in term.edges() {
                    from[e.target.index()] = Some((b, None));
                }
            }
        }
    }
    from.into_iter()
        .zip(count)
        .map(|(f, n)| if n == 1 { f } else { None })
        .collect()
}

impl Available {
    /// The expression without poison flags, each operand replaced by its value number's
    /// representative (`memo::Numbering`: equal values wherever both are available), so
    /// that `sext(k) * sext(k)` computed twice from two extensions of `k` is one key.
    fn key(ty: Ty, expr: &Expr, numbering: &Numbering) -> Option<(Ty, Expr)> {
        let inst = Inst::Assign {
            dest: ValueId(0),
            expr: expr.clone(),
        };
        if inst
            .operands()
            .iter()
            .any(|o| matches!(o, Operand::Undef(_)))
        {
            return None;
        }
        let n = |op: &Operand| numbering.representative(*op);
        let expr = match expr {
            Expr::Binary { op, lhs, rhs, .. } => Expr::Binary {
                op: *op,
                lhs: n(lhs),
                rhs: n(rhs),
                flags: ArithFlags::default(),
            },
            Expr::Use(a) => Expr::Use(n(a)),
            Expr::Cmp { pred, lhs, rhs } => Expr::Cmp {
                pred: *pred,
                lhs: n(lhs),
                rhs: n(rhs),
            },
            Expr::Cast { op, arg } => Expr::Cast {
                op: *op,
                arg: n(arg),
            },
            Expr::Select {
                cond,
                on_true,
                on_false,
            } => Expr::Select {
                cond: n(cond),
                on_true: n(on_true),
                on_false: n(on_false),
            },
        };
        Some((ty, expr))
    }

    fn get(&self, ty: Ty, expr: &Expr, numbering: &Numbering) -> Option<Operand> {
        self.by_expr.get(&Self::key(ty, expr, numbering)?).copied()
    }

    fn define(&mut self, ty: Ty, expr: &Expr, dest: ValueId, numbering: &Numbering) {
        if let Some(key) = Self::key(ty, expr, numbering) {
            self.by_expr.entry(key).or_insert(Operand::Value(dest));
        }
    }
}

/// A property assumed of a load (`predicates::load`), emitted at the end of the load's block
/// where the program's own computation of its condition is available (`Available`): the
/// assumption is about values defined at the load (SSA), so it holds at the block's end
/// too, and every path through the load reaches the end (assumptions only end paths).
struct Deferred {
    property: usize,
    bounds: (Sym, Sym),
    offset: Operand,
    value: Operand,
    loc: Option<SourceLoc>,
}

/// A pair property assumed of two elements read at one offset (see [`Deferred`]).
struct DeferredPair {
    pair: usize,
    bounds: (Sym, Sym),
    offset: Operand,
    /// The elements of the pair's `a` and `b`.
    values: (Operand, Operand),
    loc: Option<SourceLoc>,
}

/// Emits into one block's output.
struct Emitter<'b, 'a> {
    builder: &'b mut Builder<'a>,
    out: &'b mut Vec<(Pending, Option<SourceLoc>)>,
    loc: &'b Option<SourceLoc>,
}

impl segments::Emit for Emitter<'_, '_> {
    fn emit(&mut self, ty: Ty, expr: SymExpr) -> Sym {
        let name = if ty.is_bool() { "seg.cond" } else { "seg" };
        let dest = self.builder.fresh(ty, name.into());
        self.out
            .push((Pending::Assign { dest, expr }, self.loc.clone()));
        Sym::Op(Operand::Value(dest))
    }

    fn emit_expr(&mut self, ty: Ty, expr: Expr) -> Operand {
        if let Some(op) = self
            .builder
            .available
            .get(ty, &expr, &self.builder.numbering)
        {
            return op;
        }
        let dest = self.builder.fresh(ty, "prop".into());
        self.builder
            .available
            .define(ty, &expr, dest, &self.builder.numbering);
        self.out
            .push((Pending::Keep(Inst::Assign { dest, expr }), self.loc.clone()));
        Operand::Value(dest)
    }

    fn emit_fresh(&mut self, ty: Ty, expr: Expr) -> Operand {
        let dest = self.builder.fresh(ty, "content".into());
        self.out
            .push((Pending::Keep(Inst::Assign { dest, expr }), self.loc.clone()));
        Operand::Value(dest)
    }

    fn lookup(&self, ty: Ty, expr: &Expr) -> Option<Operand> {
        self.builder
            .available
            .get(ty, expr, &self.builder.numbering)
    }

    fn ty_of(&self, v: ValueId) -> Ty {
        self.builder.values[v.index()].ty
    }

    fn known(&self, v: ValueId) -> Option<bool> {
        self.builder.available.known.get(&v).copied()
    }

    fn assume(&mut self, cond: Sym) {
        self.out.push((Pending::Assume(cond), self.loc.clone()));
    }
}

impl Builder<'_> {
    /// The number of tracked quantities: cells, then two bounds per segment, then two per
    /// copy segment.
    fn n_tracks(&self) -> usize {
        self.pair_track(self.pairs.len())
    }

    /// The track of pair segment `j`'s `lo` (its `hi` is the next).
    fn pair_track(&self, j: usize) -> usize {
        self.content_track(self.contents.len()) + 2 * j
    }

    /// The track of content `j`'s `lo` (its `hi` is the next).
    fn content_track(&self, j: usize) -> usize {
        self.property_track(self.properties.len()) + 2 * j
    }

    /// The contents of `cell`, by index.
    fn contents_of(&self, cell: CellId) -> Vec<usize> {
        (0..self.contents.len())
            .filter(|&j| self.contents[j].cell == cell)
            .collect()
    }

    /// The track of property `j`'s `lo` (its `hi` is the next).
    fn property_track(&self, j: usize) -> usize {
        self.copy_track(self.copies.len()) + 2 * j
    }

    /// The track of copy segment `j`'s `lo` (its `hi` is the next).
    fn copy_track(&self, j: usize) -> usize {
        self.cells.cells.len() + 2 * self.segments.len() + 2 * j
    }

    fn track_ty(&self, t: usize) -> Ty {
        match t.checked_sub(self.cells.cells.len()) {
            None => self.cells.cells[t].ty,
            Some(_) => segments::I64,
        }
    }

    fn track_name(&self, t: usize) -> String {
        match t.checked_sub(self.cells.cells.len()) {
            None => self.cell_name(CellId(t)),
            Some(_) if t >= self.pair_track(0) => {
                let j = t - self.pair_track(0);
                let pair = &self.pairs[j / 2];
                let end = if j % 2 == 0 { "lo" } else { "hi" };
                format!(
                    "{}+{}=pair{}.{end}",
                    self.cell_name(pair.a),
                    self.cell_name(pair.b),
                    j / 2
                )
            }
            Some(j)
                if j >= 2 * (self.segments.len() + self.copies.len() + self.properties.len()) =>
            {
                let j = j - 2 * (self.segments.len() + self.copies.len() + self.properties.len());
                let end = if j % 2 == 0 { "lo" } else { "hi" };
                let content = &self.contents[j / 2];
                format!("{}={}.{end}", self.cell_name(content.cell), content.name())
            }
            Some(j) if j >= 2 * (self.segments.len() + self.copies.len()) => {
                let j = j - 2 * (self.segments.len() + self.copies.len());
                let end = if j % 2 == 0 { "lo" } else { "hi" };
                format!(
                    "{}=P{}.{end}",
                    self.cell_name(self.properties[j / 2].cell),
                    j / 2
                )
            }
            Some(j) if j >= 2 * self.segments.len() => {
                let j = j - 2 * self.segments.len();
                let copy = &self.copies[j / 2];
                let end = if j % 2 == 0 { "lo" } else { "hi" };
                let kind = if copy.second { "second" } else { "first" };
                format!(
                    "{}=copy({}).{kind}.{end}",
                    self.cell_name(copy.dst),
                    self.cell_name(copy.src)
                )
            }
            Some(j) => {
                let seg = &self.segments[j / 2];
                let end = if j % 2 == 0 { "lo" } else { "hi" };
                format!("{}={}.{end}", self.cell_name(seg.cell), seg.value.signed())
            }
        }
    }

    /// The segments of `cell`, by index.
    fn segments_of(&self, cell: CellId) -> Vec<usize> {
        (0..self.segments.len())
            .filter(|&j| self.segments[j].cell == cell)
            .collect()
    }

    /// Empties the segments and copy segments of every cell of `bases` (as destination or
    /// source), and forgets what the memo knows of them: they may have been written.
    fn empty_segments(&self, bases: &[BaseId], cur: &mut [Sym], memo: &mut Memo) {
        let n = self.cells.cells.len();
        for &b in bases {
            let cells = self.cells.cells_of(b);
            for &c in &cells {
                for j in self.segments_of(c) {
                    let (lo, hi) = segments::empty();
                    cur[n + 2 * j] = lo;
                    cur[n + 2 * j + 1] = hi;
                }
            }
            for (j, copy) in self.copies.iter().enumerate() {
                if cells.contains(&copy.dst) || cells.contains(&copy.src) {
                    let t = self.copy_track(j);
                    (cur[t], cur[t + 1]) = copies::empty(copy, self.cells.cells[copy.dst.0].ty);
                }
            }
            for (j, p) in self.properties.iter().enumerate() {
                if cells.contains(&p.cell) {
                    let t = self.property_track(j);
                    let (lo, hi) = segments::empty();
                    cur[t] = lo;
                    cur[t + 1] = hi;
                }
            }
            for (j, p) in self.pairs.iter().enumerate() {
                if cells.contains(&p.a) || cells.contains(&p.b) {
                    let t = self.pair_track(j);
                    (cur[t], cur[t + 1]) = segments::empty();
                }
            }
            for (j, k) in self.contents.iter().enumerate() {
                if cells.contains(&k.cell) {
                    let t = self.content_track(j);
                    let (lo, hi) = segments::empty();
                    cur[t] = lo;
                    cur[t + 1] = hi;
                }
            }
            memo.forget(&cells);
        }
    }

    fn fresh(&mut self, ty: Ty, name: String) -> ValueId {
        self.values.push(ValueInfo {
            ty,
            name,
            source_name: None,
        });
        ValueId(self.values.len() as u32 - 1)
    }

    fn cell_name(&self, c: CellId) -> String {
        let cell = &self.cells.cells[c.0];
        let base = &self.bases[cell.base.index()].1;
        match cell.offset {
            Some(off) => format!("{base}@{off}"),
            None => format!("{base}@*"),
        }
    }

    /// A fresh arbitrary value for cell `c`, defined by an instruction pushed to `out`.
    fn havoc_cell(
        &mut self,
        c: CellId,
        out: &mut Vec<(Pending, Option<SourceLoc>)>,
        loc: &Option<SourceLoc>,
    ) -> Sym {
        let ty = self.cells.cells[c.0].ty;
        let name = self.cell_name(c);
        let v = self.fresh(ty, name);
        out.push((
            Pending::Keep(Inst::Havoc {
                dest: v,
                reason: HavocReason::Load,
            }),
            loc.clone(),
        ));
        Sym::Op(Operand::Value(v))
    }

    /// One of `values`, chosen nondeterministically: a chain of selects on fresh booleans.
    fn one_of(
        &mut self,
        c: CellId,
        values: &[Operand],
        out: &mut Vec<(Pending, Option<SourceLoc>)>,
        loc: &Option<SourceLoc>,
    ) -> Sym {
        let ty = self.cells.cells[c.0].ty;
        let mut acc = values[0];
        for value in &values[1..] {
            let cond = self.fresh(Ty::BOOL, "choice".into());
            out.push((
                Pending::Keep(Inst::Havoc {
                    dest: cond,
                    reason: HavocReason::Load,
                }),
                loc.clone(),
            ));
            let name = self.cell_name(c);
            let dest = self.fresh(ty, name);
            out.push((
                Pending::Keep(Inst::Assign {
                    dest,
                    expr: Expr::Select {
                        cond: Operand::Value(cond),
                        on_true: *value,
                        on_false: acc,
                    },
                }),
                loc.clone(),
            ));
            acc = Operand::Value(dest);
        }
        Sym::Op(acc)
    }

    /// The bases a write to `base` may also change: another object the caller gave a
    /// pointer into may be the same object, or a global.
    fn aliased_by_write(&self, base: BaseId) -> Vec<BaseId> {
        let kind = self.bases[base.index()].0;
        self.bases
            .iter()
            .enumerate()
            .map(|(i, b)| (BaseId(i as u32), b.0))
            .filter(|&(other, other_kind)| {
                other != base
                    && match (kind, other_kind) {
                        (BaseKind::Pointee, BaseKind::Pointee | BaseKind::Global) => true,
                        (BaseKind::Global, BaseKind::Pointee) => true,
                        _ => false,
                    }
            })
            .map(|(b, _)| b)
            .collect()
    }
}

/// The value a cell has after an initializer.
enum Initial {
    Known(Operand),
    /// A summary cell: one of these constants (each slot holds one).
    OneOf(Vec<Operand>),
    Arbitrary,
}

/// The most distinct constants a summary cell is initialized with as a choice; more give an
/// arbitrary value (a guard on the size of the choice every read of the cell makes).
const MAX_INITIAL_CHOICES: usize = 16;

/// What each cell of `base` holds after `init base {leaves} zero_rest`.
fn initial_values(
    cells: &Cells,
    base: BaseId,
    leaves: &[(i64, Operand)],
    zero_rest: bool,
) -> Vec<(CellId, Initial)> {
    let leaf_ty = |op: &Operand| match op {
        Operand::Value(_) => None,
        Operand::Const(c) => Some(c.ty),
        Operand::Undef(ty) => Some(*ty),
    };
    match &cells.layouts[base.index()] {
        cells::Layout::Cells(map) => map
            .iter()
            .map(|(&(off, _), &c)| {
                let ty = cells.cells[c.0].ty;
                let exact = leaves
                    .iter()
                    .find(|(o, v)| *o == off && leaf_ty(v) == Some(ty));
                let overlaps = leaves.iter().any(|(o, v)| {
                    let n = leaf_ty(v).map_or(8, cells::bytes) as i128;
                    (*o as i128) < off as i128 + cells::bytes(ty) as i128
                        && (off as i128) < *o as i128 + n
                });
                let value = match exact {
                    Some((_, v)) => Initial::Known(*v),
                    None if !overlaps && zero_rest => {
                        Initial::Known(Operand::Const(crate::ir::Const::new(ty, 0)))
                    }
                    None => Initial::Arbitrary,
                };
                (c, value)
            })
            .collect(),
        cells::Layout::Smashed(c) => {
            let ty = cells.cells[c.0].ty;
            let mut values: Vec<Operand> = Vec::new();
            let mut arbitrary = false;
            for (_, v) in leaves {
                match v {
                    Operand::Const(k) if k.ty == ty => {
                        if !values.contains(v) {
                            values.push(*v);
                        }
                    }
                    _ => arbitrary = true,
                }
            }
            if zero_rest {
                let zero = Operand::Const(crate::ir::Const::new(ty, 0));
                if !values.contains(&zero) {
                    values.push(zero);
                }
            }
            let value = if arbitrary || values.is_empty() || values.len() > MAX_INITIAL_CHOICES {
                Initial::Arbitrary
            } else if values.len() == 1 {
                Initial::Known(values[0])
            } else {
                Initial::OneOf(values)
            };
            vec![(*c, value)]
        }
        cells::Layout::Untracked => vec![],
    }
}

/// What a load of a summary cell may read: the constants some element may hold (at most
/// [`MAX_INITIAL_CHOICES`]), or `None` for any value of the cell's type.
type ValueSet = Option<Vec<Operand>>;

/// `into ∪= from`; whether `into` changed.
fn join_set(into: &mut ValueSet, from: &ValueSet) -> bool {
    let Some(mut values) = into.take() else {
        return false;
    };
    let Some(more) = from else {
        return true; // now any value
    };
    let before = values.len();
    for v in more {
        if !values.contains(v) {
            values.push(*v);
        }
    }
    let changed = values.len() != before;
    *into = (values.len() <= MAX_INITIAL_CHOICES).then_some(values);
    changed || into.is_none()
}

/// The effect of `inst` on the value sets of the summary cells (indexed by cell; exact
/// cells keep `None` and are never read from here).
fn step_sets(func: &Function, builder: &Builder<'_>, sets: &mut [ValueSet], inst: &Inst) {
    let cells = builder.cells;
    let anything = |sets: &mut [ValueSet], bases: &[BaseId]| {
        for &b in bases {
            for c in cells.cells_of(b) {
                sets[c.0] = None;
            }
        }
    };
    match inst {
        Inst::Mem(MemOp::Store { addr, value }) => {
            let ty = func.operand_ty(value);
            if let Some((c, true)) = cells.cell_of(addr.base, &addr.offset, ty) {
                let stored = match value {
                    Operand::Const(_) if ty == cells.cells[c.0].ty => Some(vec![*value]),
                    _ => None,
                };
                join_set(&mut sets[c.0], &stored);
            }
            anything(sets, &builder.aliased_by_write(addr.base));
        }
        Inst::Mem(MemOp::Init {
            base,
            leaves,
            zero_rest,
        }) => {
            for (c, value) in initial_values(cells, *base, leaves, *zero_rest) {
                if cells.cells[c.0].offset.is_none() {
                    sets[c.0] = match value {
                        Initial::Known(op @ Operand::Const(_)) => Some(vec![op]),
                        Initial::OneOf(values) => Some(values),
                        _ => None,
                    };
                }
            }
            anything(sets, &builder.aliased_by_write(*base));
        }
        Inst::Mem(MemOp::Clobber { bases }) => {
            anything(sets, bases);
            for &b in bases {
                anything(sets, &builder.aliased_by_write(b));
            }
        }
        _ => {}
    }
}

/// The value sets of the summary cells at the start of each block (`None` for a block no
/// path reaches): a forward data flow from "any value" at the entry, joined by union.
fn value_sets_at_blocks(func: &Function, builder: &Builder<'_>) -> Vec<Option<Vec<ValueSet>>> {
    let n_cells = builder.cells.cells.len();
    let mut at: Vec<Option<Vec<ValueSet>>> = vec![None; func.blocks.len()];
    at[func.entry.index()] = Some(vec![None; n_cells]);
    let mut work: BTreeSet<usize> = BTreeSet::from([func.entry.index()]);
    while let Some(b) = work.pop_first() {
        let mut sets = at[b].clone().expect("a block on the work list is reached");
        for inst in &func.blocks[b].insts {
            step_sets(func, builder, &mut sets, inst);
        }
        for succ in func.blocks[b].term.successors() {
            let s = succ.index();
            let changed = match &mut at[s] {
                None => {
                    at[s] = Some(sets.clone());
                    true
                }
                Some(old) => {
                    let mut changed = false;
                    for (o, n) in old.iter_mut().zip(&sets) {
                        changed |= join_set(o, n);
                    }
                    changed
                }
            };
            if changed {
                work.insert(s);
            }
        }
    }
    at
}

/// The state a load of a summary reads, at one point of a block.
struct Reads<'r> {
    cur: &'r [Sym],
    sets: &'r [ValueSet],
    memo: &'r mut Memo,
    out: &'r mut Vec<(Pending, Option<SourceLoc>)>,
    loc: &'r Option<SourceLoc>,
    /// In the entry block, where the values a property reads may not be defined yet.
    in_entry: bool,
}

/// What a load of summary cell `c` at `offset` reads: the memoized value, or a fresh choice
/// among the values an element may hold, overridden inside each segment by its constant
/// and inside each copy segment by the source's value at `offset` (read the same way, at
/// most [`copies::MAX_DEPTH`] deep). The result is memoized.
fn load_summary(
    builder: &mut Builder<'_>,
    reads: &mut Reads<'_>,
    c: CellId,
    offset: Operand,
    depth: usize,
    dest: Option<ValueId>,
) -> Sym {
    let number = builder.numbering.number(&offset);
    if let Some(v) = reads.memo.get(c, number) {
        // The same value as an earlier load: what is known of it holds of this one.
        if let (Some(d), Sym::Op(Operand::Value(w))) = (dest, v) {
            if let Some(read) = builder.content_reads.get(&w).cloned() {
                builder.content_reads.insert(d, read);
            }
        }
        return v;
    }
    let mut rest = match &reads.sets[c.0] {
        Some(values) if !values.is_empty() => builder.one_of(c, values, reads.out, reads.loc),
        _ => builder.havoc_cell(c, reads.out, reads.loc),
    };
    let n_cells = builder.cells.cells.len();
    let off = Sym::Op(offset);
    for j in builder.segments_of(c) {
        let seg = builder.segments[j].clone();
        let bounds = (reads.cur[n_cells + 2 * j], reads.cur[n_cells + 2 * j + 1]);
        let mut em = Emitter {
            builder,
            out: reads.out,
            loc: reads.loc,
        };
        rest = segments::load(&mut em, &seg, bounds, off, rest);
    }
    if depth < copies::MAX_DEPTH {
        for j in 0..builder.copies.len() {
            let copy = builder.copies[j].clone();
            let t = builder.copy_track(j);
            let bounds = (reads.cur[t], reads.cur[t + 1]);
            // An empty `[lo, lo)` reads nothing of the source.
            if copy.dst != c || bounds.0 == bounds.1 {
                continue;
            }
            let src = load_summary(builder, reads, copy.src, offset, depth + 1, None);
            let ty = builder.cells.cells[c.0].ty;
            let mut em = Emitter {
                builder,
                out: reads.out,
                loc: reads.loc,
            };
            rest = copies::load(&mut em, ty, bounds, off, src, rest);
        }
    }
    let mut inside = Vec::new();
    for j in builder.contents_of(c) {
        let content = builder.contents[j].clone();
        let t = builder.content_track(j);
        let bounds = (reads.cur[t], reads.cur[t + 1]);
        if bounds.0 == bounds.1 {
            continue; // `[lo, lo)` holds nothing
        }
        let var = contents::shift_of(builder.cells.cells[c.0].ty)
            .and_then(|s| builder.content_defs.var(&offset, s));
        let mut em = Emitter {
            builder,
            out: reads.out,
            loc: reads.loc,
        };
        let (read, conds) = contents::load(&mut em, &content, bounds, offset, var, rest);
        rest = read;
        if let (Some(d), false) = (dest, reads.in_entry) {
            builder.deferred_contents.push(DeferredContent {
                content: j,
                dest: d,
                offset,
                var,
                conds: conds.clone(),
                loc: reads.loc.clone(),
            });
        }
        inside.push((j, conds));
    }
    if let (Some(d), false) = (dest, inside.is_empty()) {
        builder.content_reads.insert(d, (offset, inside));
    }
    if let (false, Sym::Op(x)) = (reads.in_entry, rest) {
        // The load's own value where it has one (`dest := rest`), so that the property's
        // instantiation is the program's condition over it.
        let value = dest.map_or(x, Operand::Value);
        for j in 0..builder.properties.len() {
            if builder.properties[j].cell != c {
                continue;
            }
            let t = builder.property_track(j);
            builder.deferred.push(Deferred {
                property: j,
                bounds: (reads.cur[t], reads.cur[t + 1]),
                offset,
                value,
                loc: reads.loc.clone(),
            });
        }
    }
    reads.memo.insert(c, number, rest);
    rest
}

/// Replaces the memory operations of `func` by scalar values; `None` when the function's
/// shape is not one the construction handles (an entry block with predecessors).
pub fn lower(func: Function) -> Option<Function> {
    let n_blocks = func.blocks.len();
    if func
        .blocks
        .iter()
        .any(|b| b.term.successors().contains(&func.entry))
    {
        return None;
    }
    let cells = cells::choose(&func);
    let n_cells = cells.cells.len();
    let numbering = Numbering::new(&func);
    let (properties, compared) = predicates::choose(&func, &cells, &numbering);
    let pairs = pairs::choose(&func, &cells, &numbering);
    // A cell whose assertions are all properties gets no constant segments: the property
    // is what its assertions read, and each constant segment costs the engines a handful
    // of joins at every store (`a[i*3] = 7; a[i*3+1] = 3; ...` cuts them at every other
    // store anyway). Which segments are made only affects precision.
    let served: BTreeSet<CellId> = properties
        .iter()
        .map(|p| p.cell)
        .filter(|c| !compared.contains(c))
        .collect();
    let content_defs = contents::Defs::new(&func);
    let mut chosen_contents = contents::choose(&func, &cells, &numbering, &content_defs);
    // A cell of a pair gets no contents: the pair's property is what its assertions read,
    // and each content costs the engines its updates at every store (a pair over two
    // arrays filled with `a[i] = i` took 7 times longer with them).
    chosen_contents.retain(|k| !pairs.iter().any(|p| p.partner(k.cell).is_some()));
    // Nor does a cell with a property that is no equality (`b[i] >= i`): the property is
    // what its assertions read, it may hold where no content does (`b[i - 1] = b[i]` cuts
    // the content `i` but keeps `b[k] >= k`), and both together cost the engines more than
    // the budget (a 1 s proof became an unknown after 9 s).
    chosen_contents.retain(|k| {
        !properties
            .iter()
            .any(|p| p.cell == k.cell && !p.is_equality())
    });
    let mut chosen = segments::choose(&func, &cells);
    chosen.retain(|s| !served.contains(&s.cell));
    // Likewise a cell with a content that depends on the index gets no constant segments:
    // its elements differ, and the content is what its loads read.
    let indexed: BTreeSet<CellId> = chosen_contents
        .iter()
        .filter(|k| !k.is_constant())
        .map(|k| k.cell)
        .collect();
    chosen.retain(|s| !indexed.contains(&s.cell));
    let mut builder = Builder {
        cells: &cells,
        bases: func
            .bases
            .iter()
            .map(|b| (b.kind, b.name.clone()))
            .collect(),
        values: func.values.clone(),
        segments: chosen,
        copies: vec![],
        numbering,
        properties: vec![],
        pairs: vec![],
        available: Available::default(),
        deferred: vec![],
        deferred_pairs: vec![],
        contents: chosen_contents,
        content_defs,
        content_reads: HashMap::new(),
        deferred_contents: vec![],
    };
    let indices = Indices::new(&func);
    let entries = single_entries(&func);
    let mut tables: Vec<Option<Available>> = vec![None; n_blocks];
    let mut memos: Vec<Option<Memo>> = vec![None; n_blocks];
    // Only a block some later block is entered from keeps its table.
    let mut passes_on = vec![false; n_blocks];
    for (b, from) in entries.iter().enumerate() {
        if let Some((p, _)) = from {
            passes_on[*p] |= *p < b;
        }
    }
    let budget = segments::MAX_SEGMENTS.saturating_sub(builder.segments.len());
    let copies = copies::choose(&func, &cells, &|b| builder.aliased_by_write(b), budget);
    builder.copies = copies;
    let unread = copies::unread_inputs(&func);
    let copy_set = copies::may_be_set(&func, &cells, &builder.copies, &unread);
    let content_set = contents::may_be_set(
        &func,
        &cells,
        &builder.numbering,
        &builder.content_defs,
        &builder.contents,
    );
    // A cell with an index-dependent content gets no predicate segments either (it has
    // only equalities, see above): what such an assertion states of its elements is what
    // the content gives (`b[i] == i * i + i + 1`), and each segment costs the engines its
    // updates at every store.
    builder.properties = properties
        .into_iter()
        .filter(|p| !indexed.contains(&p.cell))
        .collect();
    // Two bases that may be one object (pointer parameters) have no pair: a store to one
    // would write the other's element too (`pairs.rs`).
    builder.pairs = pairs
        .into_iter()
        .filter(|p| {
            let (a, b) = (cells.cells[p.a.0].base, cells.cells[p.b.0].base);
            !builder.aliased_by_write(a).contains(&b) && !builder.aliased_by_write(b).contains(&a)
        })
        .collect();
    let n_tracks = builder.n_tracks();
    // One phi per tracked quantity at every block but the entry.
    let mut phis: Vec<Phi> = Vec::new();
    let mut phi_of: Vec<Vec<usize>> = vec![Vec::new(); n_blocks];
    for (b, slots) in phi_of.iter_mut().enumerate() {
        if BlockId(b as u32) == func.entry {
            continue;
        }
        for t in 0..n_tracks {
            slots.push(phis.len());
            phis.push(Phi {
                cell: t,
                incoming: Vec::new(),
            });
        }
    }
    let mut pending_blocks: Vec<Vec<(Pending, Option<SourceLoc>)>> = Vec::new();
    let mut moves: Vec<PendingMove> = Vec::new();
    let sets_at = value_sets_at_blocks(&func, &builder);
    for (b, block) in func.blocks.iter().enumerate() {
        let mut out = Vec::new();
        let mut sets: Vec<ValueSet> = sets_at[b].clone().unwrap_or_else(|| vec![None; n_cells]);
        // A block entered by one edge from an earlier block starts from what that block's
        // memo knows at its end (`memo.rs`): nothing is written in between.
        let mut memo = match entries[b] {
            Some((p, _)) => memos[p].clone().unwrap_or_default(),
            None => Memo::default(),
        };
        builder.available = match entries[b] {
            Some((p, decided)) => match &tables[p] {
                Some(t) if t.by_expr.len() + t.known.len() <= MAX_AVAILABLE => {
                    let mut t = t.clone();
                    if let Some((c, value)) = decided {
                        t.known.insert(c, value);
                    }
                    t
                }
                _ => Available::default(),
            },
            None => Available::default(),
        };
        builder.deferred.clear();
        builder.deferred_pairs.clear();
        let roles: Vec<HashMap<usize, Role>> = builder
            .pairs
            .iter()
            .map(|p| pairs::store_pairs(block, &func, &cells, &builder.numbering, p))
            .collect();
        builder.content_reads.clear();
        builder.deferred_contents.clear();
        let mut cur: Vec<Sym> = if BlockId(b as u32) == func.entry {
            let mut cur: Vec<Sym> = (0..n_cells)
                .map(|c| builder.havoc_cell(CellId(c), &mut out, &func.loc))
                .collect();
            for _ in 0..builder.segments.len() {
                let (lo, hi) = segments::empty();
                cur.push(lo);
                cur.push(hi);
            }
            for copy in &builder.copies {
                let (lo, hi) = copies::empty(copy, cells.cells[copy.dst.0].ty);
                cur.push(lo);
                cur.push(hi);
            }
            for _ in 0..builder.properties.len() + builder.contents.len() + builder.pairs.len() {
                let (lo, hi) = segments::empty();
                cur.push(lo);
                cur.push(hi);
            }
            cur
        } else {
            let mut cur: Vec<Sym> = phi_of[b].iter().map(|&p| Sym::Phi(p)).collect();
            // A copy segment no copy store reaches is `[0, 0)` (`copies::may_be_set`).
            for (j, set) in copy_set[b].iter().enumerate() {
                if !set {
                    let t = builder.copy_track(j);
                    let copy = &builder.copies[j];
                    (cur[t], cur[t + 1]) = copies::empty(copy, cells.cells[copy.dst.0].ty);
                }
            }
            // A content segment no store of its content reaches is `[0, 0)`.
            for (j, set) in content_set[b].iter().enumerate() {
                if !set {
                    let t = builder.content_track(j);
                    (cur[t], cur[t + 1]) = segments::empty();
                }
            }
            cur
        };
        for (k, (inst, loc)) in block.insts.iter().zip(&block.locs).enumerate() {
            match inst {
                Inst::Mem(MemOp::Load { dest, addr }) => {
                    let ty = func.value(*dest).ty;
                    let pending = match cells.cell_of(addr.base, &addr.offset, ty) {
                        Some((c, false)) => Pending::Load {
                            dest: *dest,
                            sym: cur[c.0],
                        },
                        // Any element: `load_summary`; the memo then names the value by
                        // the load's own `dest`, so that a store of it is a known copy.
                        Some((c, true)) => {
                            let mut reads = Reads {
                                cur: &cur,
                                sets: &sets,
                                memo: &mut memo,
                                out: &mut out,
                                loc,
                                in_entry: BlockId(b as u32) == func.entry,
                            };
                            let sym = load_summary(
                                &mut builder,
                                &mut reads,
                                c,
                                addr.offset,
                                0,
                                Some(*dest),
                            );
                            let number = builder.numbering.number(&addr.offset);
                            if memo.get(c, number) == Some(sym) {
                                memo.insert(c, number, Sym::Op(Operand::Value(*dest)));
                            }
                            // The partner's element at the same offset, when the memo
                            // knows it: the pair's property holds of the two inside its
                            // segment (not in the entry block: `Reads::in_entry`).
                            for j in 0..builder.pairs.len() {
                                let pair = &builder.pairs[j];
                                let Some(partner) = pair.partner(c) else {
                                    continue;
                                };
                                let other = match memo.get(partner, number) {
                                    Some(Sym::Op(op)) if BlockId(b as u32) != func.entry => op,
                                    _ => continue,
                                };
                                let own = Operand::Value(*dest);
                                let values = if c == pair.a {
                                    (own, other)
                                } else {
                                    (other, own)
                                };
                                let t = builder.pair_track(j);
                                builder.deferred_pairs.push(DeferredPair {
                                    pair: j,
                                    bounds: (cur[t], cur[t + 1]),
                                    offset: addr.offset,
                                    values,
                                    loc: loc.clone(),
                                });
                            }
                            Pending::Load { dest: *dest, sym }
                        }
                        None => Pending::Keep(Inst::Havoc {
                            dest: *dest,
                            reason: HavocReason::Load,
                        }),
                    };
                    out.push((pending, loc.clone()));
                }
                Inst::Mem(MemOp::Store { addr, value }) => {
                    let ty = func.operand_ty(value);
                    // A store of the value the memo says the element holds (`a[k] = a[k]`)
                    // changes no byte of memory, an aliased base's included: nothing to
                    // update. Not a store of a store pair, whose update waits for it.
                    let unchanged = match cells.cell_of(addr.base, &addr.offset, ty) {
                        Some((c, true)) => {
                            memo.get(c, builder.numbering.number(&addr.offset))
                                == Some(Sym::Op(*value))
                                && roles.iter().all(|r| !r.contains_key(&k))
                        }
                        _ => false,
                    };
                    if unchanged {
                        step_sets(&func, &builder, &mut sets, inst);
                        continue;
                    }
                    match cells.cell_of(addr.base, &addr.offset, ty) {
                        Some((c, false)) => cur[c.0] = Sym::Op(*value),
                        // A weak update: the value set changes (`step_sets`), and the
                        // segments.
                        Some((c, true)) => {
                            let offset = Sym::Op(addr.offset);
                            let number = builder.numbering.number(&addr.offset);
                            // The bounds before the store: a second segment's update
                            // reads its first's (`copies::store_dst`).
                            let before: Vec<(Sym, Sym)> = (0..builder.copies.len())
                                .map(|j| {
                                    let t = builder.copy_track(j);
                                    (cur[t], cur[t + 1])
                                })
                                .collect();
                            for j in 0..builder.copies.len() {
                                let copy = builder.copies[j].clone();
                                let t = builder.copy_track(j);
                                let bounds = before[j];
                                let first = if copy.second { before[j - 1] } else { bounds };
                                let cell_ty = cells.cells[c.0].ty;
                                let stored = Sym::Op(*value);
                                let (lo, hi) = if copy.dst == c {
                                    let chance = |s: Sym| matches!(s, Sym::Op(Operand::Value(v)) if unread.contains(&v));
                                    let how = match memo.get(copy.src, number) {
                                        Some(w) if w == stored => Stored::Copy,
                                        // Equal only by chance (`copies::unread_inputs`).
                                        Some(w) if chance(stored) || chance(w) => Stored::Other,
                                        Some(w) => {
                                            let mut em = Emitter {
                                                builder: &mut builder,
                                                out: &mut out,
                                                loc,
                                            };
                                            let eq = segments::Emit::emit(
                                                &mut em,
                                                Ty::BOOL,
                                                SymExpr::Equal(stored, w),
                                            );
                                            Stored::When(eq)
                                        }
                                        None => Stored::Other,
                                    };
                                    let mut em = Emitter {
                                        builder: &mut builder,
                                        out: &mut out,
                                        loc,
                                    };
                                    copies::store_dst(
                                        &mut em, &copy, cell_ty, bounds, first, offset, how,
                                    )
                                } else if copy.src == c {
                                    let mut em = Emitter {
                                        builder: &mut builder,
                                        out: &mut out,
                                        loc,
                                    };
                                    copies::store_src(&mut em, bounds, offset)
                                } else {
                                    continue;
                                };
                                cur[t] = lo;
                                cur[t + 1] = hi;
                            }
                            for j in 0..builder.properties.len() {
                                let p = builder.properties[j].clone();
                                if p.cell != c {
                                    continue;
                                }
                                let t = builder.property_track(j);
                                let bounds = (cur[t], cur[t + 1]);
                                let mut em = Emitter {
                                    builder: &mut builder,
                                    out: &mut out,
                                    loc,
                                };
                                let (lo, hi) = predicates::store(
                                    &mut em,
                                    &p,
                                    &indices,
                                    cells.cells[c.0].ty,
                                    bounds,
                                    addr.offset,
                                    *value,
                                    BlockId(b as u32) == func.entry,
                                );
                                cur[t] = lo;
                                cur[t + 1] = hi;
                            }
                            for j in 0..builder.pairs.len() {
                                let pair = builder.pairs[j].clone();
                                if pair.partner(c).is_none() {
                                    continue;
                                }
                                let t = builder.pair_track(j);
                                // In the entry block a store is one of another value, as
                                // for properties (the values `P` reads may come later).
                                let role = roles[j]
                                    .get(&k)
                                    .copied()
                                    .filter(|_| BlockId(b as u32) != func.entry);
                                let mut em = Emitter {
                                    builder: &mut builder,
                                    out: &mut out,
                                    loc,
                                };
                                (cur[t], cur[t + 1]) = pairs::store(
                                    &mut em,
                                    &pair,
                                    &indices,
                                    c,
                                    cells.cells[c.0].ty,
                                    (cur[t], cur[t + 1]),
                                    addr.offset,
                                    *value,
                                    role,
                                );
                            }
                            let cell_ty = cells.cells[c.0].ty;
                            let of_cell = builder.contents_of(c);
                            let shift = contents::shift_of(cell_ty);
                            let var = shift.and_then(|s| builder.content_defs.var(&addr.offset, s));
                            let readings = match (var, shift, of_cell.is_empty()) {
                                (Some(var), Some(shift), false) => {
                                    let reader = contents::Reader {
                                        defs: &builder.content_defs,
                                        numbering: &builder.numbering,
                                        offset: addr.offset,
                                        var,
                                        shift,
                                        steps: Default::default(),
                                    };
                                    let reads = &builder.content_reads;
                                    let all = &builder.contents;
                                    let leaf = |v: ValueId| {
                                        let (offset, inside) = reads.get(&v)?;
                                        Some(contents::Leaf {
                                            offset: *offset,
                                            choices: inside
                                                .iter()
                                                .map(|(j, conds)| {
                                                    (all[*j].poly.clone(), conds.clone())
                                                })
                                                .collect(),
                                        })
                                    };
                                    reader.read(value, cell_ty.width, &leaf, 0)
                                }
                                _ => vec![],
                            };
                            for j in of_cell {
                                let content = builder.contents[j].clone();
                                let t = builder.content_track(j);
                                let bounds = (cur[t], cur[t + 1]);
                                let holds = var.and_then(|var| {
                                    readings
                                        .iter()
                                        .find(|r| contents::matches(r, &content.poly, var))
                                });
                                let mut em = Emitter {
                                    builder: &mut builder,
                                    out: &mut out,
                                    loc,
                                };
                                let (lo, hi) =
                                    contents::store(&mut em, &content, bounds, addr.offset, holds);
                                cur[t] = lo;
                                cur[t + 1] = hi;
                            }
                            // The store may hit any element the memo knows of this cell;
                            // after it, the element at `offset` holds the stored value.
                            memo.forget(&[c]);
                            memo.insert(c, number, Sym::Op(*value));
                            for j in builder.segments_of(c) {
                                let seg = builder.segments[j].clone();
                                let bounds = (cur[n_cells + 2 * j], cur[n_cells + 2 * j + 1]);
                                let mut em = Emitter {
                                    builder: &mut builder,
                                    out: &mut out,
                                    loc,
                                };
                                let (lo, hi) =
                                    segments::store(&mut em, &seg, bounds, offset, *value);
                                cur[n_cells + 2 * j] = lo;
                                cur[n_cells + 2 * j + 1] = hi;
                            }
                        }
                        None => {}
                    }
                    let aliased = builder.aliased_by_write(addr.base);
                    for &other in &aliased {
                        for c in cells.cells_of(other) {
                            cur[c.0] = builder.havoc_cell(c, &mut out, loc);
                        }
                    }
                    builder.empty_segments(&aliased, &mut cur, &mut memo);
                }
                Inst::Mem(MemOp::Init {
                    base,
                    leaves,
                    zero_rest,
                }) => {
                    let init = initial_values(&cells, *base, leaves, *zero_rest);
                    builder.empty_segments(&[*base], &mut cur, &mut memo);
                    for (c, value) in init {
                        if cells.cells[c.0].offset.is_none() {
                            // A summary cell: its value set (`step_sets`), and the segment
                            // of the one constant every element holds.
                            if let Initial::Known(Operand::Const(k)) = value {
                                for j in builder.segments_of(c) {
                                    if builder.segments[j].value == k {
                                        let (lo, hi) = segments::everything();
                                        cur[n_cells + 2 * j] = lo;
                                        cur[n_cells + 2 * j + 1] = hi;
                                    }
                                }
                            }
                            continue;
                        }
                        cur[c.0] = match value {
                            Initial::Known(op) => Sym::Op(op),
                            Initial::OneOf(values) => builder.one_of(c, &values, &mut out, loc),
                            Initial::Arbitrary => builder.havoc_cell(c, &mut out, loc),
                        };
                    }
                    let aliased = builder.aliased_by_write(*base);
                    for &other in &aliased {
                        for c in cells.cells_of(other) {
                            cur[c.0] = builder.havoc_cell(c, &mut out, loc);
                        }
                    }
                    builder.empty_segments(&aliased, &mut cur, &mut memo);
                }
                Inst::Mem(MemOp::Clobber { bases }) => {
                    let mut all: BTreeSet<BaseId> = bases.iter().copied().collect();
                    for &b in bases {
                        all.extend(builder.aliased_by_write(b));
                    }
                    for &base in &all {
                        for c in cells.cells_of(base) {
                            cur[c.0] = builder.havoc_cell(c, &mut out, loc);
                        }
                    }
                    builder.empty_segments(
                        &all.into_iter().collect::<Vec<_>>(),
                        &mut cur,
                        &mut memo,
                    );
                }
                other => {
                    if let Inst::Assign { dest, expr } = other {
                        let ty = func.value(*dest).ty;
                        builder
                            .available
                            .define(ty, expr, *dest, &builder.numbering);
                    }
                    out.push((Pending::Keep(other.clone()), loc.clone()))
                }
            }
            step_sets(&func, &builder, &mut sets, inst);
        }
        for d in std::mem::take(&mut builder.deferred) {
            let p = builder.properties[d.property].clone();
            let mut em = Emitter {
                builder: &mut builder,
                out: &mut out,
                loc: &d.loc,
            };
            predicates::load(&mut em, &p, &indices, d.bounds, d.offset, d.value);
        }
        for d in std::mem::take(&mut builder.deferred_pairs) {
            let p = builder.pairs[d.pair].clone();
            let mut em = Emitter {
                builder: &mut builder,
                out: &mut out,
                loc: &d.loc,
            };
            let (x, y) = d.values;
            pairs::load(&mut em, &p, &indices, d.bounds, d.offset, x, y);
        }
        for d in std::mem::take(&mut builder.deferred_contents) {
            let content = builder.contents[d.content].clone();
            let mut em = Emitter {
                builder: &mut builder,
                out: &mut out,
                loc: &d.loc,
            };
            contents::assume_compared(
                &mut em,
                &content,
                d.offset,
                d.var,
                Operand::Value(d.dest),
                &d.conds,
            );
        }
        if passes_on[b] {
            tables[b] = Some(std::mem::take(&mut builder.available));
            memos[b] = Some(memo);
        }
        for (e, edge) in block.term.edges().iter().enumerate() {
            let target = edge.target.index();
            for (c, sym) in cur.iter().enumerate() {
                let phi = phi_of[target][c];
                phis[phi].incoming.push(*sym);
                moves.push(PendingMove {
                    block: b,
                    edge: e,
                    phi,
                    sym: *sym,
                });
            }
        }
        pending_blocks.push(out);
    }
    // Trivial phis: all incoming values the same, up to the phi itself.
    let mut replaced: Vec<Option<Sym>> = vec![None; phis.len()];
    let resolve = |replaced: &[Option<Sym>], mut s: Sym| loop {
        match s {
            Sym::Phi(p) => match replaced[p] {
                Some(next) => s = next,
                None => return s,
            },
            op => return op,
        }
    };
    loop {
        let mut changed = false;
        for p in 0..phis.len() {
            if replaced[p].is_some() {
                continue;
            }
            let mut unique: Option<Sym> = None;
            let mut trivial = true;
            for &s in &phis[p].incoming {
                let s = resolve(&replaced, s);
                if s == Sym::Phi(p) || unique == Some(s) {
                    continue;
                }
                if unique.is_some() {
                    trivial = false;
                    break;
                }
                unique = Some(s);
            }
            if trivial {
                let ty = builder.track_ty(phis[p].cell);
                replaced[p] = Some(unique.unwrap_or(Sym::Op(Operand::Undef(ty))));
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    // Live phis: read by a load or a weak update, or moved into a live phi.
    let mut live = vec![false; phis.len()];
    let mut work = Vec::new();
    for (pending, _) in pending_blocks.iter().flatten() {
        let syms = match pending {
            Pending::Load { sym, .. } => vec![*sym],
            Pending::Assign { expr, .. } => expr.syms(),
            Pending::Assume(sym) => vec![*sym],
            Pending::Keep(_) => continue,
        };
        for sym in syms {
            if let Sym::Phi(p) = resolve(&replaced, sym) {
                if !live[p] {
                    live[p] = true;
                    work.push(p);
                }
            }
        }
    }
    while let Some(p) = work.pop() {
        for &s in &phis[p].incoming {
            if let Sym::Phi(q) = resolve(&replaced, s) {
                if !live[q] {
                    live[q] = true;
                    work.push(q);
                }
            }
        }
    }
    let mut phi_value: Vec<Option<ValueId>> = vec![None; phis.len()];
    for p in 0..phis.len() {
        if live[p] && replaced[p].is_none() {
            let t = phis[p].cell;
            let name = builder.track_name(t);
            phi_value[p] = Some(builder.fresh(builder.track_ty(t), name));
        }
    }
    let operand = |s: Sym| match resolve(&replaced, s) {
        Sym::Op(op) => op,
        Sym::Phi(p) => Operand::Value(phi_value[p].expect("a live phi has a value")),
    };
    let mut out = Function {
        values: builder.values,
        bases: vec![],
        ..func
    };
    for (block, pending) in out.blocks.iter_mut().zip(pending_blocks) {
        let (insts, locs): (Vec<Inst>, Vec<Option<SourceLoc>>) = pending
            .into_iter()
            .map(|(p, loc)| {
                let inst = match p {
                    Pending::Keep(inst) => inst,
                    Pending::Load { dest, sym } => Inst::Assign {
                        dest,
                        expr: Expr::Use(operand(sym)),
                    },
                    Pending::Assume(sym) => Inst::Assume { cond: operand(sym) },
                    Pending::Assign { dest, expr } => Inst::Assign {
                        dest,
                        expr: match expr {
                            SymExpr::Less(a, b) => Expr::Cmp {
                                pred: CmpPred::Slt,
                                lhs: operand(a),
                                rhs: operand(b),
                            },
                            SymExpr::Equal(a, b) => Expr::Cmp {
                                pred: CmpPred::Eq,
                                lhs: operand(a),
                                rhs: operand(b),
                            },
                            SymExpr::Add(a, b) => Expr::Binary {
                                op: BinOp::Add,
                                lhs: operand(a),
                                rhs: operand(b),
                                flags: ArithFlags::default(),
                            },
                            SymExpr::Select(c, t, f) => Expr::Select {
                                cond: operand(c),
                                on_true: operand(t),
                                on_false: operand(f),
                            },
                        },
                    },
                };
                (inst, loc)
            })
            .unzip();
        block.insts = insts;
        block.locs = locs;
    }
    for m in moves {
        if let Some(dest) = phi_value[m.phi] {
            let src = operand(m.sym);
            out.blocks[m.block].term.edges_mut()[m.edge]
                .moves
                .push((dest, src));
        }
    }
    Some(out)
}
