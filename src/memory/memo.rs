//! Memoized loads of summary cells: within one block (or a chain of blocks each
//! entered from the previous one only), two reads of the same
//! summary cell at the same offset with no write in between read the same element, so
//! they get the same value; and a read after a store at the same offset reads the stored
//! value. Without it each load of a summary is a fresh choice, so `a1[x] == a2[x]` after
//! a copy could not be proved even when `a2[x]` is known to be a copy of `a1[x]`
//! (`copies.rs` reads the source through this memo).
//!
//! **Invariant:** an entry `(cell, offset) -> v` means "the element of `cell` at byte
//! offset `offset` holds `v`" at the current point of the block. It is made by a load (the
//! value read) or a store (the value written, after every other entry of the cell is
//! dropped, since the store may hit any of their offsets), and dropped by every write that
//! may change the cell: a store to its base or to a base that may alias it, an
//! initializer, a clobber. The memo starts empty at every block but one entered by a single
//! edge from an earlier block (in the order blocks are built), which starts from that
//! block's memo at its end: nothing runs in between, so the entries still hold. No entry
//! crosses a join or a back edge. So `a[i] >= m || a[i] == 0`, whose second load at -O0 is
//! in the block the first one's branch leads to, reads the first load's value.
//!
//! Offsets are compared by value numbers: two operands get the same number when they are
//! the same constant, the same value, or pure expressions (`Assign`) of the same operator
//! over operands with the same numbers. In strict SSA that means equal values at any point
//! where both are available (no operand of either is redefined between a definition and
//! a use it dominates), so the two offsets are the same address. An `undef` operand has
//! no number (two `undef`s may differ).

use std::collections::HashMap;

use super::cells::CellId;
use super::emit::Sym;
use crate::ir::{Expr, Function, Inst, Operand, ValueId};

/// A value number: a constant's bits and type, or the representative value of a class.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Number {
    Const(u32, u128),
    Value(ValueId),
}

/// The value numbers of a function's values.
pub struct Numbering {
    of: HashMap<ValueId, ValueId>,
}

impl Numbering {
    /// Numbers every value defined by an `Assign` of `func` (hash-consing of expressions
    /// over the numbers of their operands); other values are their own number.
    pub fn new(func: &Function) -> Numbering {
        let defs: HashMap<ValueId, &Expr> = func
            .blocks
            .iter()
            .flat_map(|b| &b.insts)
            .filter_map(|i| match i {
                Inst::Assign { dest, expr } => Some((*dest, expr)),
                _ => None,
            })
            .collect();
        let mut numbering = Numbering { of: HashMap::new() };
        let mut table: HashMap<(Expr, u32), ValueId> = HashMap::new();
        let mut ids: Vec<ValueId> = defs.keys().copied().collect();
        ids.sort();
        for v in ids {
            numbering.number_value(v, &defs, &mut table, 0, func);
        }
        numbering
    }

    fn number_value(
        &mut self,
        v: ValueId,
        defs: &HashMap<ValueId, &Expr>,
        table: &mut HashMap<(Expr, u32), ValueId>,
        depth: u32,
        func: &Function,
    ) -> ValueId {
        if let Some(&n) = self.of.get(&v) {
            return n;
        }
        // Deep chains are numbered as themselves: a missed equality costs precision only.
        let Some(expr) = defs.get(&v).filter(|_| depth < 64) else {
            return v;
        };
        let mut canon = |op: &Operand, this: &mut Numbering| -> Option<Operand> {
            match op {
                Operand::Const(_) => Some(*op),
                Operand::Undef(_) => None,
                Operand::Value(x) => Some(Operand::Value(this.number_value(
                    *x,
                    defs,
                    table,
                    depth + 1,
                    func,
                ))),
            }
        };
        let key = match expr {
            Expr::Use(a) => match canon(a, self) {
                Some(Operand::Value(x)) => {
                    self.of.insert(v, x);
                    return x;
                }
                _ => None,
            },
            Expr::Binary {
                op,
                lhs,
                rhs,
                flags,
            } => match (canon(lhs, self), canon(rhs, self)) {
                (Some(lhs), Some(rhs)) => Some(Expr::Binary {
                    op: *op,
                    lhs,
                    rhs,
                    flags: *flags,
                }),
                _ => None,
            },
            Expr::Cmp { pred, lhs, rhs } => match (canon(lhs, self), canon(rhs, self)) {
                (Some(lhs), Some(rhs)) => Some(Expr::Cmp {
                    pred: *pred,
                    lhs,
                    rhs,
                }),
                _ => None,
            },
            Expr::Cast { op, arg } => canon(arg, self).map(|arg| Expr::Cast { op: *op, arg }),
            Expr::BitCount { count, arg } => {
                canon(arg, self).map(|arg| Expr::BitCount { count: *count, arg })
            }
            Expr::Select { .. } => None,
        };
        let n = match key {
            // The key carries the result's width: a cast's is not in its expression.
            Some(key) => *table.entry((key, func.value(v).ty.width)).or_insert(v),
            None => v,
        };
        self.of.insert(v, n);
        n
    }

    /// The representative of an operand's number: the first value of its class (a
    /// constant, an `undef`, and a value the numbering never saw are their own).
    pub fn representative(&self, op: Operand) -> Operand {
        match op {
            Operand::Value(v) => Operand::Value(*self.of.get(&v).unwrap_or(&v)),
            other => other,
        }
    }

    /// The number of an operand, `None` for `undef`.
    pub fn number(&self, op: &Operand) -> Option<Number> {
        match op {
            Operand::Const(c) => Some(Number::Const(c.ty.width, c.bits)),
            Operand::Undef(_) => None,
            Operand::Value(v) => Some(Number::Value(*self.of.get(v).unwrap_or(v))),
        }
    }
}

/// The memo of one block: what each summary cell holds at the offsets read or written
/// since the block's start with no write in between.
///
/// Each entry also keeps the offset operand it was made at (available where the entry is:
/// it was available at that earlier point of the block chain) and the order of entries, so
/// that a read at another offset can take an earlier entry's value when both offsets are
/// equal ([`Memo::others`]).
#[derive(Clone, Default)]
pub struct Memo {
    entries: HashMap<(CellId, Number), Entry>,
    made: u64,
}

#[derive(Clone, Copy)]
struct Entry {
    value: Sym,
    at: Operand,
    order: u64,
}

impl Memo {
    pub fn get(&self, cell: CellId, offset: Option<Number>) -> Option<Sym> {
        self.entries.get(&(cell, offset?)).map(|e| e.value)
    }

    /// Records that the element of `cell` at `at` (numbered `offset`) holds `value`.
    pub fn insert(&mut self, cell: CellId, offset: Option<Number>, value: Sym, at: Operand) {
        if let Some(n) = offset {
            self.made += 1;
            let order = self.made;
            self.entries.insert((cell, n), Entry { value, at, order });
        }
    }

    /// The newest `limit` entries of `cell` at offsets numbered otherwise than `offset`, newest
    /// first: `(at, value)`, the element at `at` holds `value`.
    pub fn others(&self, cell: CellId, offset: Number, limit: usize) -> Vec<(Operand, Sym)> {
        let mut found: Vec<&Entry> = self
            .entries
            .iter()
            .filter(|((c, n), _)| *c == cell && *n != offset)
            .map(|(_, e)| e)
            .collect();
        found.sort_by_key(|e| std::cmp::Reverse(e.order));
        found
            .into_iter()
            .take(limit)
            .map(|e| (e.at, e.value))
            .collect()
    }

    /// Drops every entry of `cells` (a write that may change them).
    pub fn forget(&mut self, cells: &[CellId]) {
        self.entries.retain(|(c, _), _| !cells.contains(c));
    }
}
