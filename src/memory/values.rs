//! What the cells may hold without any segment: the values an initializer gives each cell
//! ([`initial_values`]), and for each summary cell the constants some element may hold
//! ([`ValueSet`], a forward data flow over the blocks, [`value_sets_at_blocks`]).
//!
//! A summary cell stands for every element of an array, so it has no single current value:
//! two loads of it (two indices, or one load in two iterations) may read different
//! elements, and each load is a fresh choice among the values of its set (`ssa.rs`). One
//! value per summary cell (weak updates as `select`s) would make every load read the same
//! element: a load of `a[2]` constrained by an assertion then made `a[1] != 1` proved
//! although `a[1] == 1` (found by the soundness generator).
//!
//! **Invariant:** at the start of each block, every element of a summary cell holds one of
//! the constants of its set, or anything when the set is `None`. It holds at the entry
//! (every set is `None`: uninitialized memory is never an earlier path's value) and is kept
//! by the steps of [`step`]: a store joins the stored constant (or anything), an
//! initializer sets the constants of its leaves, a clobber or a write to a base that may
//! alias the cell makes it anything; a join is the union.

use std::collections::BTreeSet;

use super::cells::{self, Aliasing, CellId, Cells};
use crate::ir::{BaseId, Const, Function, Inst, MemOp, Operand};

/// The value a cell has after an initializer.
pub enum Initial {
    Known(Operand),
    /// A summary cell: one of these constants (each slot holds one).
    OneOf(Vec<Operand>),
    Arbitrary,
}

/// The most distinct constants a summary cell holds as a choice (from an initializer or a
/// join); more give an arbitrary value (a guard on the size of the choice every read of the
/// cell makes).
const MAX_CHOICES: usize = 16;

/// What each cell of `base` holds after `init base {leaves} zero_rest`.
pub fn initial_values(
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
                        Initial::Known(Operand::Const(Const::new(ty, 0)))
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
                let zero = Operand::Const(Const::new(ty, 0));
                if !values.contains(&zero) {
                    values.push(zero);
                }
            }
            let value = if arbitrary || values.is_empty() || values.len() > MAX_CHOICES {
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
/// [`MAX_CHOICES`]), or `None` for any value of the cell's type.
pub type ValueSet = Option<Vec<Operand>>;

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
    *into = (values.len() <= MAX_CHOICES).then_some(values);
    changed || into.is_none()
}

/// The effect of `inst` on the value sets of the summary cells (indexed by cell; exact
/// cells keep `None` and are never read from here).
pub fn step(
    func: &Function,
    cells: &Cells,
    aliasing: &Aliasing,
    sets: &mut [ValueSet],
    inst: &Inst,
) {
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
            anything(sets, &aliasing.aliased_by_write(addr.base));
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
            anything(sets, &aliasing.aliased_by_write(*base));
        }
        Inst::Mem(MemOp::Clobber { bases }) => {
            anything(sets, bases);
            for &b in bases {
                anything(sets, &aliasing.aliased_by_write(b));
            }
        }
        _ => {}
    }
}

/// The value sets of the summary cells at the start of each block (`None` for a block no
/// path reaches): a forward data flow from "any value" at the entry, joined by union.
pub fn value_sets_at_blocks(
    func: &Function,
    cells: &Cells,
    aliasing: &Aliasing,
) -> Vec<Option<Vec<ValueSet>>> {
    let n_cells = cells.cells.len();
    let mut at: Vec<Option<Vec<ValueSet>>> = vec![None; func.blocks.len()];
    at[func.entry.index()] = Some(vec![None; n_cells]);
    let mut work: BTreeSet<usize> = BTreeSet::from([func.entry.index()]);
    while let Some(b) = work.pop_first() {
        let mut sets = at[b].clone().expect("a block on the work list is reached");
        for inst in &func.blocks[b].insts {
            step(func, cells, aliasing, &mut sets, inst);
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
