//! The dimensions of a function's abstract states and what each one means.
//!
//! **Invariant:** [`Layout`] is the only map from a domain dimension ([`Var`]) to its
//! meaning ([`Dim`]) and back. No module computes a dimension's index or reads a [`Var`] as
//! a [`ValueId`] by itself, so a dimension that is not an SSA value (an acceleration copy,
//! a predicate slot, later a memory cell) can never be taken for one by accident.
//!
//! The order of the dimensions is private to this file: the values (one per SSA value,
//! holding its reading), then one `pre` copy per value, then `elapsed`, then the predicate
//! slots. A memory model adds a `Cell` kind here (one dimension per abstract cell); its
//! place in the order is then this file's business alone.
//!
//! This file depends only on `ir` and `domain`, so `smt` reads it too.

use crate::domain::{Var, VarSet};
use crate::ir::{Function, ValueId};

/// What a dimension of a function's states stands for.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
pub enum Dim {
    /// The reading of an SSA value (see [`crate::ir::Interp`]).
    Value(ValueId),
    /// A value's copy when an iteration (acceleration) or a path (weakest preconditions)
    /// starts; constrained only inside one transformer and forgotten before its result
    /// escapes (see [`crate::analysis::transformer`]).
    Pre(ValueId),
    /// The number of iterations elapsed in an accelerated loop.
    Elapsed,
    /// The truth (0 or 1) of the refinement predicate held in slot `n`.
    Slot(usize),
}

/// The dimensions of one function's states: how many values and predicate slots there are.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Layout {
    n_values: usize,
    n_slots: usize,
}

impl Layout {
    /// The layout of `func`'s states, without predicate slots.
    pub fn of(func: &Function) -> Layout {
        Layout {
            n_values: func.values.len(),
            n_slots: 0,
        }
    }

    /// The same layout with `n_slots` predicate slots.
    pub fn with_slots(self, n_slots: usize) -> Layout {
        Layout { n_slots, ..self }
    }

    /// The number of dimensions.
    pub fn n_dims(&self) -> usize {
        2 * self.n_values + 1 + self.n_slots
    }

    /// The number of predicate slots.
    pub fn n_slots(&self) -> usize {
        self.n_slots
    }

    /// The dimension that means `dim`.
    ///
    /// Panics when `dim` names a value or slot outside the layout: such a `Dim` is a bug of
    /// its maker, never an input.
    pub fn var(&self, dim: Dim) -> Var {
        let index = match dim {
            Dim::Value(v) => {
                assert!(
                    v.index() < self.n_values,
                    "{v} is not a value of the layout"
                );
                v.index()
            }
            Dim::Pre(v) => {
                assert!(
                    v.index() < self.n_values,
                    "{v} is not a value of the layout"
                );
                self.n_values + v.index()
            }
            Dim::Elapsed => 2 * self.n_values,
            Dim::Slot(k) => {
                assert!(k < self.n_slots, "slot {k} is not in the layout");
                2 * self.n_values + 1 + k
            }
        };
        Var(index as u32)
    }

    /// What dimension `var` means; `None` when it is outside the layout.
    pub fn dim(&self, var: Var) -> Option<Dim> {
        let i = var.index();
        let n = self.n_values;
        if i < n {
            Some(Dim::Value(ValueId(i as u32)))
        } else if i < 2 * n {
            Some(Dim::Pre(ValueId((i - n) as u32)))
        } else if i == 2 * n {
            Some(Dim::Elapsed)
        } else if i < self.n_dims() {
            Some(Dim::Slot(i - 2 * n - 1))
        } else {
            None
        }
    }

    /// The value whose reading `var` holds; `None` for every other kind of dimension.
    pub fn value(&self, var: Var) -> Option<ValueId> {
        match self.dim(var) {
            Some(Dim::Value(v)) => Some(v),
            _ => None,
        }
    }

    /// The dimensions of the values whose bit in `row` (bit `i` of word `i / 64` for
    /// value `i`) is clear; no dimension of another kind.
    pub fn values_outside(&self, row: &[u64]) -> VarSet {
        // Values are the first dimensions, in value order: word `w` of the row is word `w`
        // of the set.
        let words = (0..self.n_values.div_ceil(64))
            .map(|w| {
                let in_layout = match self.n_values - 64 * w {
                    n if n >= 64 => u64::MAX,
                    n => (1u64 << n) - 1,
                };
                !row.get(w).copied().unwrap_or(0) & in_layout
            })
            .collect();
        VarSet::from_words(words)
    }

    /// The dimension of a value's reading.
    pub fn value_var(&self, v: ValueId) -> Var {
        self.var(Dim::Value(v))
    }

    /// The `pre` copy of a value.
    pub fn pre_var(&self, v: ValueId) -> Var {
        self.var(Dim::Pre(v))
    }

    /// The dimension counting elapsed iterations.
    pub fn elapsed_var(&self) -> Var {
        self.var(Dim::Elapsed)
    }

    /// The dimension of predicate slot `k`.
    pub fn slot_var(&self, k: usize) -> Var {
        self.var(Dim::Slot(k))
    }

    /// The dimensions of every value, in value order.
    pub fn value_vars(&self) -> Vec<Var> {
        (0..self.n_values)
            .map(|i| self.value_var(ValueId(i as u32)))
            .collect()
    }

    /// The dimensions of every predicate slot, in slot order.
    pub fn slot_vars(&self) -> Vec<Var> {
        (0..self.n_slots).map(|k| self.slot_var(k)).collect()
    }

    /// The dimensions a transformer uses as scratch (the `pre` copies and `elapsed`), to
    /// forget before its result escapes.
    pub fn scratch_vars(&self) -> Vec<Var> {
        (0..self.n_values)
            .map(|i| self.pre_var(ValueId(i as u32)))
            .chain([self.elapsed_var()])
            .collect()
    }

    /// Every dimension, in order, with its meaning.
    pub fn dims(&self) -> impl Iterator<Item = (Var, Dim)> + '_ {
        (0..self.n_dims() as u32).map(|i| {
            let var = Var(i);
            (var, self.dim(var).expect("below n_dims"))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(n_values: usize, n_slots: usize) -> Layout {
        Layout { n_values, n_slots }
    }

    #[test]
    fn every_kind_round_trips() {
        let l = layout(3, 2);
        let dims = [
            Dim::Value(ValueId(0)),
            Dim::Value(ValueId(2)),
            Dim::Pre(ValueId(0)),
            Dim::Pre(ValueId(2)),
            Dim::Elapsed,
            Dim::Slot(0),
            Dim::Slot(1),
        ];
        for d in dims {
            assert_eq!(l.dim(l.var(d)), Some(d), "{d:?}");
        }
        // And from the other side: every dimension has one meaning that maps back to it.
        let mut seen = Vec::new();
        for (var, dim) in l.dims() {
            assert_eq!(l.var(dim), var);
            seen.push(dim);
        }
        assert_eq!(seen.len(), l.n_dims());
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), l.n_dims(), "two dimensions share a meaning");
        assert_eq!(l.dim(Var(l.n_dims() as u32)), None);
    }

    #[test]
    fn only_value_dimensions_read_as_values() {
        let l = layout(2, 1);
        let values: Vec<ValueId> = l.dims().filter_map(|(var, _)| l.value(var)).collect();
        assert_eq!(values, vec![ValueId(0), ValueId(1)]);
        assert_eq!(l.value(l.pre_var(ValueId(1))), None);
        assert_eq!(l.value(l.elapsed_var()), None);
        assert_eq!(l.value(l.slot_var(0)), None);
    }

    #[test]
    fn slots_come_after_the_fixed_dimensions_and_do_not_move_them() {
        let plain = layout(4, 0);
        let with = plain.with_slots(3);
        assert_eq!(with.n_dims(), plain.n_dims() + 3);
        for (var, dim) in plain.dims() {
            assert_eq!(with.var(dim), var);
        }
        assert_eq!(with.slot_vars().len(), 3);
        assert_eq!(with.scratch_vars().len(), 5);
        assert!(with
            .scratch_vars()
            .iter()
            .all(|v| matches!(with.dim(*v), Some(Dim::Pre(_) | Dim::Elapsed))));
    }

    #[test]
    #[should_panic(expected = "slot 1 is not in the layout")]
    fn a_slot_outside_the_layout_is_a_bug() {
        layout(2, 1).slot_var(1);
    }
}
