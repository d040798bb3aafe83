//! What the cells may hold without any segment: the values an initializer gives each cell
//! ([`initial_values`]), and for each summary cell the constants some element may hold
//! ([`ValueSet`], a forward data flow over the blocks, [`value_sets_at_blocks`]): a few as
//! a choice, more (a lookup table) as their bounds, signed and unsigned ([`Hull`]).
//!
//! A summary cell stands for every element of an array, so it has no single current value:
//! two loads of it (two indices, or one load in two iterations) may read different
//! elements, and each load is a fresh choice among the values of its set (`ssa.rs`). One
//! value per summary cell (weak updates as `select`s) would make every load read the same
//! element: a load of `a[2]` constrained by an assertion then made `a[1] != 1` proved
//! although `a[1] == 1` (found by the soundness generator).
//!
//! **Invariant:** at the start of each block, every element of a summary cell holds one of
//! the constants of its set, lies within its hull, or is anything ([`ValueSet::Any`]). It
//! holds at the entry (every set is `Any`: uninitialized memory is never an earlier path's
//! value) and is kept by the steps of [`step`]: a store joins the stored constant (or
//! anything), an initializer sets the constants of its leaves, a clobber or a write to a
//! base that may alias the cell makes it anything; a join is the union, or the hull once
//! the union holds more than [`MAX_CHOICES`] constants.

use std::collections::BTreeSet;

use super::cells::{self, Aliasing, CellId, Cells};
use crate::ir::{BaseId, CmpPred, Const, Function, Inst, MemOp, Operand, Ty};

/// The value a cell has after an initializer.
pub enum Initial {
    Known(Operand),
    /// A summary cell: one of these constants (each slot holds one).
    OneOf(Vec<Operand>),
    /// A summary cell of more constants: each slot within their hull.
    Within(Hull),
    Arbitrary,
}

/// The bounds of a set of constants of one type, in both readings: every constant of the
/// set lies between `smin` and `smax` read signed and between `umin` and `umax` read
/// unsigned, so both pairs of comparisons hold of each (a table of `uint8_t` up to 200 is
/// bounded unsigned, one of `int` from -1 to 7 signed).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Hull {
    ty: Ty,
    smin: i128,
    smax: i128,
    umin: u128,
    umax: u128,
}

impl Hull {
    /// The hull of one constant; `None` past 64 bits (whose unsigned bounds a constant of
    /// the IR's signed `i128` does not hold).
    fn of(k: Const) -> Option<Hull> {
        (k.ty.width <= 64).then_some(Hull {
            ty: k.ty,
            smin: k.signed(),
            smax: k.signed(),
            umin: k.unsigned(),
            umax: k.unsigned(),
        })
    }

    /// The hull of `values`, constants of one type.
    fn of_all(values: &[Operand]) -> Option<Hull> {
        let mut hull: Option<Hull> = None;
        for v in values {
            let Operand::Const(k) = v else { return None };
            let one = Hull::of(*k)?;
            hull = Some(match hull {
                None => one,
                Some(h) => h.join(&one)?,
            });
        }
        hull
    }

    /// The hull of both; `None` for hulls of two types.
    fn join(&self, other: &Hull) -> Option<Hull> {
        (self.ty == other.ty).then_some(Hull {
            ty: self.ty,
            smin: self.smin.min(other.smin),
            smax: self.smax.max(other.smax),
            umin: self.umin.min(other.umin),
            umax: self.umax.max(other.umax),
        })
    }

    /// The comparisons `x pred bound` every element satisfies, leaving out those every
    /// value of the type satisfies (and the unsigned pair when the signed one is
    /// nonnegative, which implies it).
    pub fn bounds(&self) -> Vec<(CmpPred, Const)> {
        let ty = self.ty;
        let k = |v: i128| Const::new(ty, v);
        let (lowest, highest) = (
            ty.to_signed(1u128 << (ty.width - 1)),
            (1i128 << (ty.width - 1)) - 1,
        );
        let mut out = Vec::new();
        if self.smin > lowest {
            out.push((CmpPred::Sge, k(self.smin)));
        }
        if self.smax < highest {
            out.push((CmpPred::Sle, k(self.smax)));
        }
        if self.smin < 0 {
            if self.umin > 0 {
                out.push((CmpPred::Uge, k(self.umin as i128)));
            }
            if self.umax < ty.mask(u128::MAX) {
                out.push((CmpPred::Ule, k(self.umax as i128)));
            }
        }
        out
    }
}

/// The most distinct constants a summary cell holds as a choice (from an initializer or a
/// join); more give their hull (a guard on the size of the choice every read of the cell
/// makes).
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
            // In the order of the leaves (the order of a choice's selects), each once.
            let mut values: Vec<Operand> = Vec::new();
            let mut seen: BTreeSet<u128> = BTreeSet::new();
            let mut arbitrary = false;
            let zero = zero_rest.then(|| Operand::Const(Const::new(ty, 0)));
            for v in leaves.iter().map(|(_, v)| v).chain(zero.iter()) {
                match v {
                    Operand::Const(k) if k.ty == ty => {
                        if seen.insert(k.bits) {
                            values.push(*v);
                        }
                    }
                    _ => arbitrary = true,
                }
            }
            let value = if arbitrary || values.is_empty() {
                Initial::Arbitrary
            } else if values.len() == 1 {
                Initial::Known(values[0])
            } else {
                match ValueSet::of_all(values) {
                    ValueSet::OneOf(values) => Initial::OneOf(values),
                    ValueSet::Within(hull) => Initial::Within(hull),
                    ValueSet::Any => Initial::Arbitrary,
                }
            };
            vec![(*c, value)]
        }
        cells::Layout::Untracked => vec![],
    }
}

/// What a load of a summary cell may read.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ValueSet {
    /// Any value of the cell's type.
    Any,
    /// One of these constants (at most [`MAX_CHOICES`], at least one).
    OneOf(Vec<Operand>),
    /// A value within these bounds (more constants than a choice holds).
    Within(Hull),
}

impl ValueSet {
    /// The set of one stored or initial constant (of the cell's type `ty`), or any value.
    fn of(value: &Operand, ty: Ty) -> ValueSet {
        match value {
            Operand::Const(k) if k.ty == ty => ValueSet::OneOf(vec![*value]),
            _ => ValueSet::Any,
        }
    }

    /// The set of `values`, distinct constants of one type: a choice of at most
    /// [`MAX_CHOICES`], their hull past that.
    fn of_all(values: Vec<Operand>) -> ValueSet {
        if values.len() <= MAX_CHOICES {
            ValueSet::OneOf(values)
        } else {
            Hull::of_all(&values).map_or(ValueSet::Any, ValueSet::Within)
        }
    }
}

/// `into ∪= from`; whether `into` changed.
fn join_set(into: &mut ValueSet, from: &ValueSet) -> bool {
    let joined = match (&*into, from) {
        (ValueSet::Any, _) => return false,
        (_, ValueSet::Any) => ValueSet::Any,
        (ValueSet::OneOf(values), ValueSet::OneOf(more)) => {
            let mut values = values.clone();
            for v in more {
                if !values.contains(v) {
                    values.push(*v);
                }
            }
            ValueSet::of_all(values)
        }
        (ValueSet::Within(h), ValueSet::OneOf(vs)) | (ValueSet::OneOf(vs), ValueSet::Within(h)) => {
            Hull::of_all(vs)
                .and_then(|g| g.join(h))
                .map_or(ValueSet::Any, ValueSet::Within)
        }
        (ValueSet::Within(h), ValueSet::Within(g)) => {
            h.join(g).map_or(ValueSet::Any, ValueSet::Within)
        }
    };
    let changed = joined != *into;
    *into = joined;
    changed
}

/// The effect of `inst` on the value sets of the summary cells (indexed by cell; exact
/// cells keep `Any` and are never read from here).
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
                sets[c.0] = ValueSet::Any;
            }
        }
    };
    match inst {
        Inst::Mem(MemOp::Store { addr, value }) => {
            let ty = func.operand_ty(value);
            if let Some((c, true)) = cells.cell_of(addr.base, &addr.offset, ty) {
                join_set(&mut sets[c.0], &ValueSet::of(value, cells.cells[c.0].ty));
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
                        Initial::Known(op) => ValueSet::of(&op, cells.cells[c.0].ty),
                        Initial::OneOf(values) => ValueSet::OneOf(values),
                        Initial::Within(hull) => ValueSet::Within(hull),
                        Initial::Arbitrary => ValueSet::Any,
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
    at[func.entry.index()] = Some(vec![ValueSet::Any; n_cells]);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn set(ty: Ty, values: &[i128]) -> ValueSet {
        ValueSet::OneOf(
            values
                .iter()
                .map(|&v| Operand::Const(Const::new(ty, v)))
                .collect(),
        )
    }

    #[test]
    fn a_union_past_the_choices_is_their_hull_in_both_readings() {
        let ty = Ty::int(8);
        let mut into = set(ty, &(0..10).collect::<Vec<_>>());
        assert!(join_set(&mut into, &set(ty, &(10..16).collect::<Vec<_>>())));
        assert!(matches!(into, ValueSet::OneOf(ref v) if v.len() == 16));
        assert!(join_set(&mut into, &set(ty, &[200])));
        let ValueSet::Within(hull) = &into else {
            panic!("17 constants are a hull: {into:?}")
        };
        // 200 is -56 read signed: the signed pair spans -56..15, the unsigned one 0..200.
        let k = |v: i128| Const::new(ty, v);
        assert_eq!(
            hull.bounds(),
            vec![
                (CmpPred::Sge, k(-56)),
                (CmpPred::Sle, k(15)),
                (CmpPred::Ule, k(200))
            ]
        );
        assert!(!join_set(&mut into, &set(ty, &[7])), "inside the hull");
        assert!(join_set(&mut into, &ValueSet::Any));
        assert_eq!(into, ValueSet::Any);
    }

    #[test]
    fn a_hull_leaves_out_the_comparisons_that_every_value_satisfies() {
        let hull = |ty: Ty, values: &[i128]| {
            let ValueSet::OneOf(values) = set(ty, values) else {
                unreachable!()
            };
            Hull::of_all(&values).expect("constants of one type")
        };
        let (int, byte) = (Ty::int(32), Ty::int(8));
        // Nonnegative: the signed pair implies the unsigned one.
        assert_eq!(
            hull(int, &[0, 255]).bounds(),
            vec![
                (CmpPred::Sge, Const::new(int, 0)),
                (CmpPred::Sle, Const::new(int, 255))
            ]
        );
        // 127 and 128 (-128 signed) span the signed reading, not the unsigned one.
        assert_eq!(
            hull(byte, &[127, 128]).bounds(),
            vec![
                (CmpPred::Uge, Const::new(byte, 127)),
                (CmpPred::Ule, Const::new(byte, 128))
            ]
        );
        assert_eq!(hull(byte, &[0, 127, 128, 255]).bounds(), vec![]);
    }
}
