//! Pair segments of smashed arrays (issue 15): for two summary cells `a` and `b` of two
//! bases, of one type, and a property `P(x, y)` of their elements at one offset, a range
//! `[lo, hi)` of byte offsets in which every pair of elements satisfies `P`. The properties
//! are the conditions of the function's assertions that read one element of each cell, at
//! offsets of one value number, and nothing else but constants and entry-block values
//! (`a[i] == b[i] || b[i] == a[i] * a[i]`). So a loop that writes both arrays at each index,
//! `a[i] = k; b[i] = k * k;`, keeps the range where it holds: a property of one cell
//! (`predicates.rs`) cannot say it, and the store to `a` breaks the pair before the store
//! to `b` restores it.
//!
//! A **store pair** is a store to one of the cells at `o` followed in the same block by a
//! store to the other at an offset of the same value number, with only assignments and
//! havocs between them ([`store_pairs`]). The segment is updated once, after the second
//! store: as for a store of the property (`segments::same`) when `P` holds of the two
//! stored values, as for a store of another value (`segments::other`) when it does not (a
//! select on the instantiation). Any other store to either cell is a store of another
//! value.
//!
//! **Invariant** (of every pair segment, at every point but strictly inside a store pair):
//! every offset `o` on the grid with `lo <= o < hi` has `P(a[o], b[o])`. It holds at the
//! entry (empty ranges). Inside a store pair nothing reads either cell, so no use of the
//! invariant falls there; after its second store both elements at `o` hold the stored
//! values and every other element is unchanged (two bases never overlap, and one grid of
//! one type means no other element shares bytes with them), so the argument of
//! `segments.rs`, wrap-around included, carries over. A clobber, an initializer, or a write
//! to a base that may alias either empties the segment; two bases that may be one object
//! (pointer parameters, `ssa.rs`) get no pair. A load of one cell at `o` when the
//! memo holds the other's element at `o` (`memo.rs`: the value the element holds at this
//! point) assumes `P` of the two values inside the range. Instantiations are pure, without
//! poison flags (`predicates.rs`).

use std::collections::HashMap;

use super::cells::{self, CellId, Cells};
use super::memo::Numbering;
use super::predicates::{self, Indices, Walk};
use super::segments::{self, Emit, I64};
use super::ssa::{Sym, SymExpr};
use crate::ir::{Block, Const, Expr, Function, Inst, MemOp, Operand, Ty, ValueId};

/// The most pair properties of one function. This and the limits below are guards on
/// the size of the lowered function: each property adds selects at every access of its
/// cells.
const MAX_PAIRS: usize = 2;

/// The most loads of the two elements one condition reads.
const MAX_READS: usize = 8;

/// The most instructions of one condition.
const MAX_CONE: usize = 32;

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
    let joins = predicates::short_circuits(func);
    let defs = predicates::definitions(func, &joins);
    let predicates::SummaryAccesses {
        loads,
        counts: accesses,
        ..
    } = predicates::SummaryAccesses::of(func, cells);
    let entry = predicates::entry_values(func);
    let mut pairs: Vec<Pair> = Vec::new();
    for (cond, negate) in predicates::error_branches(func) {
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
        if cone.iter().any(|(_, ty, e)| !predicates::safe(e, *ty)) {
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
    predicates::instantiate_cone(em, &p.cone, p.cond, p.negate, map, indices)
}

/// The role of a store in a store pair.
#[derive(Clone, Copy, Debug)]
pub enum Role {
    /// The first store of a pair: the segment waits for the second.
    First,
    /// The second store: the first stored `value` into the partner cell.
    Second { value: Operand },
}

/// The store pairs of `block` for `pair` (see the module documentation), by instruction
/// index.
pub fn store_pairs(
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
pub fn store(
    em: &mut dyn Emit,
    p: &Pair,
    indices: &Indices,
    c: CellId,
    ty: Ty,
    bounds: (Sym, Sym),
    offset: Operand,
    value: Operand,
    role: Option<Role>,
) -> (Sym, Sym) {
    let size = cells::bytes(ty) as i128;
    let o = Sym::Op(offset);
    let first = match role {
        Some(Role::First) => return bounds,
        Some(Role::Second { value }) => value,
        None => return segments::other(em, bounds, o, size),
    };
    let (x, y) = if c == p.b {
        (first, value)
    } else {
        (value, first)
    };
    match instantiate(em, p, indices, x, y) {
        Operand::Const(k) if k.bits != 0 => segments::same(em, bounds, o, size),
        Operand::Const(_) => segments::other(em, bounds, o, size),
        holds => {
            let holds = Sym::Op(holds);
            let (lo_s, hi_s) = segments::same(em, bounds, o, size);
            let (lo_o, hi_o) = segments::other(em, bounds, o, size);
            (
                em.emit(I64, SymExpr::Select(holds, lo_s, lo_o)),
                em.emit(I64, SymExpr::Select(holds, hi_s, hi_o)),
            )
        }
    }
}

/// Assumes the property of `x` (`a`'s element) and `y` (`b`'s) at `offset`, inside the
/// segment.
pub fn load(
    em: &mut dyn Emit,
    p: &Pair,
    indices: &Indices,
    bounds: (Sym, Sym),
    offset: Operand,
    x: Operand,
    y: Operand,
) {
    let holds = instantiate(em, p, indices, x, y);
    if holds == Operand::Const(Const::bool(true)) {
        return;
    }
    let (lo, hi) = bounds;
    let o = Sym::Op(offset);
    let below_hi = em.emit(Ty::BOOL, SymExpr::Less(o, hi));
    let below_lo = em.emit(Ty::BOOL, SymExpr::Less(o, lo));
    let no = Sym::Op(Operand::Const(Const::bool(false)));
    let yes = Sym::Op(Operand::Const(Const::bool(true)));
    let inside = em.emit(Ty::BOOL, SymExpr::Select(below_lo, no, below_hi));
    let ok = em.emit(Ty::BOOL, SymExpr::Select(inside, Sym::Op(holds), yes));
    em.assume(ok);
}
