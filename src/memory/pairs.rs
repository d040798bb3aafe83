//! Pair segments of smashed arrays: for two summary cells `a` and `b` of two bases, of one
//! type, and a property `P(x, y)` of their elements at one offset, a range `[lo, hi)` of
//! byte offsets in which every pair of elements satisfies `P`. The properties are the
//! conditions of the function's assertions that read one element of each cell, at
//! offsets of one value number, and nothing else but constants and entry-block values
//! (`a[i] == b[i] || b[i] == a[i] * a[i]`). So a loop that writes both arrays at each index,
//! `a[i] = k; b[i] = k * k;`, keeps the range where it holds: a property of one cell
//! (`predicates.rs`) cannot say it, and the store to `a` breaks the pair before the store
//! to `b` restores it.
//!
//! A **store pair** is a store to one of the cells at `o` followed in the same block by a
//! store to the other at an offset of the same value number, with only assignments and
//! havocs between them ([`store_pairs`]). The segment is updated once, after the second
//! store: as for a store of the property (`bounds::both_ends`: a loop may fill the arrays
//! from their end) when `P` holds of the two stored values, as for a store of another
//! value (`bounds::cut`) when it does not (a select on the instantiation). Any other store
//! to either cell is a store of another value. In the entry block, where the values `P`
//! reads may come later, every store is one of another value.
//!
//! **Invariant** (of every pair segment, at every point but strictly inside a store pair):
//! every offset `o` on the grid with `lo <= o < hi` has `P(a[o], b[o])`. It holds at the
//! entry (empty ranges). Inside a store pair nothing reads either cell, so no use of the
//! invariant falls there; after its second store both elements at `o` hold the stored
//! values and every other element is unchanged (two bases never overlap, and one grid of
//! one type means no other element shares bytes with them), so the argument of
//! `bounds.rs`, wrap-around included, carries over. A clobber, an initializer, or a write
//! to a base that may alias either empties the segment; two bases that may be one object
//! (pointer parameters) get no pair (`registry.rs`). A load of one cell at `o` when the
//! memo holds the other's element at `o` (`memo.rs`: the value the element holds at this
//! point) assumes `P` of the two values inside the range. Instantiations are pure, without
//! poison flags (`conditions.rs`).

use std::collections::HashMap;

use super::bounds;
use super::cells::{self, CellId, Cells, SummaryAccesses};
use super::conditions::{self, Indices, Walk, MAX_CONE};
use super::emit::{Bounds, Emit, Sym};
use super::kind::{Fact, Load, Notes, SegmentKind, Store};
use super::memo::{Memo, Numbering};
use crate::ir::{Block, Expr, Function, Inst, MemOp, Operand, Ty, ValueId};

/// The most pair properties of one function. This and the limits below are guards on
/// the size of the lowered function: each property adds selects at every access of its
/// cells.
const MAX_PAIRS: usize = 2;

/// The most loads of the two elements one condition reads.
const MAX_READS: usize = 8;

/// Past this many loads or stores of the cells of pairs, none is made.
const MAX_UPDATES: usize = 2_000;

/// A property of the elements of two summary cells at one offset.
#[derive(Clone, Debug)]
pub struct Pair {
    pub a: CellId,
    pub b: CellId,
    /// The loads of `a`'s element and of `b`'s the condition reads.
    elems_a: Vec<ValueId>,
    elems_b: Vec<ValueId>,
    /// The condition's definitions, operands before users.
    cone: Vec<(ValueId, Ty, Expr)>,
    cond: Operand,
    /// The property is the condition's negation (the error lies on its true side).
    negate: bool,
}

impl Pair {
    /// The other cell of the pair, when `c` is one of its cells.
    pub fn partner(&self, c: CellId) -> Option<CellId> {
        if c == self.a {
            Some(self.b)
        } else if c == self.b {
            Some(self.a)
        } else {
            None
        }
    }
}

/// The pair properties of `func` (see the module documentation). Which are chosen only
/// affects precision.
pub fn choose(func: &Function, cells: &Cells, numbering: &Numbering) -> Vec<Pair> {
    let joins = conditions::short_circuits(func);
    let defs = conditions::definitions(func, &joins);
    let SummaryAccesses {
        loads,
        counts: accesses,
        ..
    } = SummaryAccesses::of(func, cells);
    let entry = conditions::entry_values(func);
    let mut pairs: Vec<Pair> = Vec::new();
    for (cond, negate) in conditions::error_branches(func) {
        let cond = &cond;
        let mut walk = Walk::default();
        walk.run(*cond, &defs, &loads, &entry, &[]);
        if walk.failed || walk.cone.len() > MAX_CONE || !walk.others.is_empty() {
            continue;
        }
        let mut elems: Vec<ValueId> = walk.elems.iter().copied().collect();
        elems.sort();
        if elems.len() > MAX_READS {
            continue;
        }
        let Some(&first) = elems.first() else {
            continue;
        };
        // One offset number for every load, and exactly two cells, of two bases, one type.
        let number = numbering.number(&loads[&first].1);
        if number.is_none()
            || elems
                .iter()
                .any(|e| numbering.number(&loads[e].1) != number)
        {
            continue;
        }
        let a = loads[&first].0;
        let Some(b) = elems.iter().map(|e| loads[e].0).find(|c| *c != a) else {
            continue;
        };
        let (ca, cb) = (&cells.cells[a.0], &cells.cells[b.0]);
        if ca.base == cb.base || ca.ty != cb.ty {
            continue;
        }
        let of = |c: CellId| -> Vec<ValueId> {
            elems.iter().copied().filter(|e| loads[e].0 == c).collect()
        };
        let (elems_a, elems_b) = (of(a), of(b));
        if elems_a.len() + elems_b.len() != elems.len() {
            continue; // a third cell
        }
        let cone: Vec<(ValueId, Ty, Expr)> = walk
            .cone
            .iter()
            .map(|v| (*v, func.value(*v).ty, defs[v].clone()))
            .collect();
        if cone.iter().any(|(_, ty, e)| !conditions::safe(e, *ty)) {
            continue;
        }
        if pairs.len() < MAX_PAIRS {
            pairs.push(Pair {
                a,
                b,
                elems_a,
                elems_b,
                cone,
                cond: Operand::Value(*cond),
                negate,
            });
        }
    }
    let updates: usize = pairs
        .iter()
        .map(|p| accesses.get(&p.a).unwrap_or(&0) + accesses.get(&p.b).unwrap_or(&0))
        .sum();
    if updates > MAX_UPDATES {
        return vec![];
    }
    pairs
}

/// `P(x, y)`: an `i1` operand that holds exactly when the property holds of `x` as `a`'s
/// element and `y` as `b`'s.
fn instantiate(em: &mut dyn Emit, p: &Pair, indices: &Indices, x: Operand, y: Operand) -> Operand {
    let map: HashMap<ValueId, Operand> = p
        .elems_a
        .iter()
        .map(|&e| (e, x))
        .chain(p.elems_b.iter().map(|&e| (e, y)))
        .collect();
    conditions::instantiate_cone(em, &p.cone, p.cond, p.negate, map, indices)
}

/// The role of a store in a store pair.
#[derive(Clone, Copy, Debug)]
enum Role {
    /// The first store of a pair: the segment waits for the second.
    First,
    /// The second store: the first stored `value` into the partner cell.
    Second { value: Operand },
}

/// The store pairs of `block` for `pair` (see the module documentation), by instruction
/// index.
fn store_pairs(
    block: &Block,
    func: &Function,
    cells: &Cells,
    numbering: &Numbering,
    pair: &Pair,
) -> HashMap<usize, Role> {
    let store_to = |inst: &Inst| match inst {
        Inst::Mem(MemOp::Store { addr, value }) => {
            let ty = func.operand_ty(value);
            match cells.cell_of(addr.base, &addr.offset, ty) {
                Some((c, true)) if pair.partner(c).is_some() => {
                    Some((c, numbering.number(&addr.offset), *value))
                }
                _ => None,
            }
        }
        _ => None,
    };
    let mut roles = HashMap::new();
    let mut k = 0;
    while k < block.insts.len() {
        let Some((c, Some(number), value)) = store_to(&block.insts[k]) else {
            k += 1;
            continue;
        };
        let partner = pair.partner(c).expect("a cell of the pair");
        let mut j = k + 1;
        while let Some(inst) = block.insts.get(j) {
            match inst {
                Inst::Assign { .. } | Inst::Havoc { .. } => j += 1,
                _ => break,
            }
        }
        match block.insts.get(j).and_then(store_to) {
            Some((c2, Some(n2), _)) if c2 == partner && n2 == number => {
                roles.insert(k, Role::First);
                roles.insert(j, Role::Second { value });
                k = j + 1;
            }
            _ => k += 1,
        }
    }
    roles
}

/// The bounds after the store of `value` to cell `c` at `offset`, in the role `role`.
#[allow(clippy::too_many_arguments)]
fn store(
    em: &mut dyn Emit,
    p: &Pair,
    indices: &Indices,
    c: CellId,
    ty: Ty,
    bounds: Bounds,
    offset: Operand,
    value: Operand,
    role: Option<Role>,
) -> Bounds {
    let size = cells::bytes(ty) as i128;
    let o = Sym::Op(offset);
    let first = match role {
        Some(Role::First) => return bounds,
        Some(Role::Second { value }) => value,
        None => return bounds::cut(em, bounds, o, size),
    };
    let (x, y) = if c == p.b {
        (first, value)
    } else {
        (value, first)
    };
    let holds = instantiate(em, p, indices, x, y);
    bounds::store_when(em, bounds, o, size, holds, bounds::both_ends)
}

/// The pair segments of a function, as a [`SegmentKind`].
pub struct Pairs {
    pairs: Vec<Pair>,
    indices: Indices,
    /// For each block and pair, the roles of its stores in store pairs, by instruction
    /// index ([`store_pairs`]).
    roles: Vec<Vec<HashMap<usize, Role>>>,
}

impl Pairs {
    pub fn new(func: &Function, cells: &Cells, numbering: &Numbering, pairs: Vec<Pair>) -> Pairs {
        let roles = func
            .blocks
            .iter()
            .map(|block| {
                pairs
                    .iter()
                    .map(|p| store_pairs(block, func, cells, numbering, p))
                    .collect()
            })
            .collect();
        Pairs {
            pairs,
            indices: Indices::new(func),
            roles,
        }
    }
}

impl SegmentKind for Pairs {
    fn len(&self) -> usize {
        self.pairs.len()
    }

    fn describes(&self, j: usize, cell: CellId) -> bool {
        self.pairs[j].partner(cell).is_some()
    }

    fn name(&self, j: usize, cell_name: &dyn Fn(CellId) -> String) -> String {
        let pair = &self.pairs[j];
        format!("{}+{}=pair{j}", cell_name(pair.a), cell_name(pair.b))
    }

    /// The partner's element at the same offset, when the memo knows it: the pair's
    /// property holds of the two inside the segment (not in the entry block, see
    /// [`Load::in_entry`]).
    fn observe_load(&self, at: &Load<'_>, memo: &Memo, notes: &mut Notes) {
        let Some(dest) = at.dest else {
            return;
        };
        for (j, pair) in self.pairs.iter().enumerate() {
            let Some(partner) = pair.partner(at.cell) else {
                continue;
            };
            let other = match memo.get(partner, at.number) {
                Some(Sym::Op(op)) if !at.in_entry => op,
                _ => continue,
            };
            let own = Operand::Value(dest);
            let (value, partner) = if at.cell == pair.a {
                (own, other)
            } else {
                (other, own)
            };
            notes.facts.push(Fact {
                segment: j,
                bounds: at.bounds[j],
                offset: at.offset,
                value,
                partner: Some(partner),
                conds: vec![],
                loc: at.loc.clone(),
            });
        }
    }

    /// A store pair's first store waits for its second, even one that changes no byte.
    fn needs_store(&self, block: usize, index: usize) -> bool {
        self.roles[block].iter().any(|r| r.contains_key(&index))
    }

    fn store(&self, em: &mut dyn Emit, at: &Store<'_>, bounds: &mut [Bounds]) {
        for (j, (pair, b)) in self.pairs.iter().zip(bounds).enumerate() {
            if pair.partner(at.cell).is_none() {
                continue;
            }
            // In the entry block a store is one of another value, as for properties (the
            // values `P` reads may come later).
            let role = self.roles[at.block][j]
                .get(&at.index)
                .copied()
                .filter(|_| !at.in_entry);
            let (cell, ty, offset, value) = (at.cell, at.ty, at.offset, at.value);
            *b = store(em, pair, &self.indices, cell, ty, *b, offset, value, role);
        }
    }

    /// Assumes the property of the two elements read, inside the segment.
    fn emit_fact(&self, em: &mut dyn Emit, fact: &Fact) {
        let p = &self.pairs[fact.segment];
        let Some(y) = fact.partner else {
            return; // assuming nothing is sound
        };
        let holds = instantiate(em, p, &self.indices, fact.value, y);
        bounds::assume_inside(em, fact.bounds, fact.offset, holds);
    }
}
