//! SSA construction over cells: every load becomes a copy of its cell's current value,
//! every store a new current value (or, for a summary cell, the stored value or the old one,
//! nondeterministically), every clobber fresh arbitrary values; at each join a phi per cell
//! (moves on the incoming edges), the trivial ones removed (Braun et al., "Simple and
//! Efficient Construction of Static Single Assignment Form", 2013) and the dead ones never
//! materialized.

use std::collections::BTreeSet;

use super::cells::{self, CellId, Cells};
use crate::ir::{
    BaseId, BaseKind, BlockId, Expr, Function, HavocReason, Inst, MemOp, Operand, SourceLoc, Ty,
    ValueId, ValueInfo,
};

/// A value during construction: an operand, or the phi of a cell at a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sym {
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
    /// `dest := cond ? value : old` (a weak update).
    Weak {
        dest: ValueId,
        cond: ValueId,
        value: Operand,
        old: Sym,
    },
}

struct Phi {
    cell: CellId,
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
}

impl Builder<'_> {
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
/// arbitrary value.
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
    let mut builder = Builder {
        cells: &cells,
        bases: func
            .bases
            .iter()
            .map(|b| (b.kind, b.name.clone()))
            .collect(),
        values: func.values.clone(),
    };
    // One phi per cell at every block but the entry.
    let mut phis: Vec<Phi> = Vec::new();
    let mut phi_of: Vec<Vec<usize>> = vec![Vec::new(); n_blocks];
    for (b, slots) in phi_of.iter_mut().enumerate() {
        if BlockId(b as u32) == func.entry {
            continue;
        }
        for c in 0..n_cells {
            slots.push(phis.len());
            phis.push(Phi {
                cell: CellId(c),
                incoming: Vec::new(),
            });
        }
    }
    let mut pending_blocks: Vec<Vec<(Pending, Option<SourceLoc>)>> = Vec::new();
    let mut moves: Vec<PendingMove> = Vec::new();
    for (b, block) in func.blocks.iter().enumerate() {
        let mut out = Vec::new();
        let mut cur: Vec<Sym> = if BlockId(b as u32) == func.entry {
            (0..n_cells)
                .map(|c| builder.havoc_cell(CellId(c), &mut out, &func.loc))
                .collect()
        } else {
            phi_of[b].iter().map(|&p| Sym::Phi(p)).collect()
        };
        for (inst, loc) in block.insts.iter().zip(&block.locs) {
            match inst {
                Inst::Mem(MemOp::Load { dest, addr }) => {
                    let ty = func.value(*dest).ty;
                    let pending = match cells.cell_of(addr.base, &addr.offset, ty) {
                        Some((c, _)) => Pending::Load {
                            dest: *dest,
                            sym: cur[c.0],
                        },
                        None => Pending::Keep(Inst::Havoc {
                            dest: *dest,
                            reason: HavocReason::Load,
                        }),
                    };
                    out.push((pending, loc.clone()));
                }
                Inst::Mem(MemOp::Store { addr, value }) => {
                    let ty = func.operand_ty(value);
                    match cells.cell_of(addr.base, &addr.offset, ty) {
                        Some((c, false)) => cur[c.0] = Sym::Op(*value),
                        Some((c, true)) => {
                            let cond = builder.fresh(Ty::BOOL, "weak".into());
                            out.push((
                                Pending::Keep(Inst::Havoc {
                                    dest: cond,
                                    reason: HavocReason::Load,
                                }),
                                loc.clone(),
                            ));
                            let name = builder.cell_name(c);
                            let dest = builder.fresh(ty, name);
                            out.push((
                                Pending::Weak {
                                    dest,
                                    cond,
                                    value: *value,
                                    old: cur[c.0],
                                },
                                loc.clone(),
                            ));
                            cur[c.0] = Sym::Op(Operand::Value(dest));
                        }
                        None => {}
                    }
                    for other in builder.aliased_by_write(addr.base) {
                        for c in cells.cells_of(other) {
                            cur[c.0] = builder.havoc_cell(c, &mut out, loc);
                        }
                    }
                }
                Inst::Mem(MemOp::Init {
                    base,
                    leaves,
                    zero_rest,
                }) => {
                    let init = initial_values(&cells, *base, leaves, *zero_rest);
                    for (c, value) in init {
                        cur[c.0] = match value {
                            Initial::Known(op) => Sym::Op(op),
                            Initial::OneOf(values) => builder.one_of(c, &values, &mut out, loc),
                            Initial::Arbitrary => builder.havoc_cell(c, &mut out, loc),
                        };
                    }
                    for other in builder.aliased_by_write(*base) {
                        for c in cells.cells_of(other) {
                            cur[c.0] = builder.havoc_cell(c, &mut out, loc);
                        }
                    }
                }
                Inst::Mem(MemOp::Clobber { bases }) => {
                    let mut all: BTreeSet<BaseId> = bases.iter().copied().collect();
                    for &b in bases {
                        all.extend(builder.aliased_by_write(b));
                    }
                    for base in all {
                        for c in cells.cells_of(base) {
                            cur[c.0] = builder.havoc_cell(c, &mut out, loc);
                        }
                    }
                }
                other => out.push((Pending::Keep(other.clone()), loc.clone())),
            }
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
                let ty = cells.cells[phis[p].cell.0].ty;
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
        let sym = match pending {
            Pending::Load { sym, .. } => *sym,
            Pending::Weak { old, .. } => *old,
            Pending::Keep(_) => continue,
        };
        if let Sym::Phi(p) = resolve(&replaced, sym) {
            if !live[p] {
                live[p] = true;
                work.push(p);
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
            let c = phis[p].cell;
            let name = builder.cell_name(c);
            phi_value[p] = Some(builder.fresh(cells.cells[c.0].ty, name));
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
                    Pending::Weak {
                        dest,
                        cond,
                        value,
                        old,
                    } => Inst::Assign {
                        dest,
                        expr: Expr::Select {
                            cond: Operand::Value(cond),
                            on_true: value,
                            on_false: operand(old),
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
