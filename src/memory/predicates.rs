//! Predicate segments of smashed arrays: for a summary cell and a property `P(x, o)` of an
//! element's value `x` at byte offset `o`, a range `[lo, hi)` in which every element
//! satisfies `P`. The properties are the conditions of the function's assertions that read
//! one element of the cell (`a[i] != 0`, `a[i] >= i`, `a[i] == i * i`), with the element's
//! value as `x` and the index the element's offset was computed from rewritten as a
//! function of the offset (`i` is `trunc(o >> k)` when the offset is `ext(i) << k`, and a
//! wider root of that index, `i = trunc(r)` (a `long long` subscript of a 32-bit
//! address), is `sext(i)`); every other operand of the condition is a constant or a value
//! of the entry block, so it is the same at every point of the function. So
//! `for (i = 0; i < n; i++) a[i] = i;` leaves `[0, 4n)` where `a[k] >= k` holds, and a
//! later load of `a[j]` inside it reads a value assumed to satisfy it, where the summary
//! alone gives any value. The condition may be a short-circuit join (`a[i] >= m || a[i] ==
//! 0` at -O0: a branch on the first comparison, a block that loads the element again for
//! the second, a boolean phi), read as `a | b` (`conditions::short_circuits`), with every
//! load of the element at offsets of one value number read as `x`. `x == k` and `x != k`
//! are left to the constant segments (`segments.rs`), unless values that are not
//! constants are stored to the cell.
//!
//! **Invariant** (of every predicate segment, at every point): every element of the base
//! whose byte offset `o` (on the summary's grid) has `lo <= o < hi` satisfies `P(x, o)`.
//! The bounds follow the rules of `bounds.rs`, a store "of the property" being a store of
//! `v` at `o` with `P(v, o)` (a select on its instantiation), which here also extends the
//! segment downwards (`bounds::both_ends`); the argument of `bounds.rs`, wrap-around
//! included, carries over. `P` is a fixed total function of `(x, o)` (`conditions.rs`);
//! in the entry block, where the entry values it reads may be undefined yet, a store cuts
//! and a load assumes nothing. A load inside the range reads a fresh value (the
//! summary's), on which `P` is assumed at the end of the load's block, where the program's
//! own computation of the condition is available.
//!
//! Instantiations over the program's own values ([`instantiate`]), each an exact reading of
//! the same `P`: where the access's offset is `ext(j) << k` with the property's `k`, `j`
//! stands for `trunc(o >> k)` (equal: the shift does not wrap), and the access's root `s`
//! of `j` for `sext(j)` where `s == sext(j)` (elsewhere a store cuts and a load assumes
//! nothing). So `a[i] = i` extends `a[i] >= i`, and `a[i] = j` after `if (j >= 2)` extends
//! `a[i] >= 2 || a[i] == 0` without a select. A cell whose assertions are all properties
//! (none compares an element with a constant) gets no constant segments
//! (`registry.rs`): the property is what its assertions read, and a constant segment
//! costs a dozen selects per store.

use std::collections::{HashMap, HashSet};

use super::bounds;
use super::cells::{self, CellId, Cells, SummaryAccesses};
use super::conditions::{
    definitions, entry_values, error_branches, fold, index_of, instantiate_cone, safe,
    short_circuits, Indices, Walk, MAX_CONE,
};
use super::emit::{Bounds, Emit, Sym, I64};
use super::kind::{Fact, Load, Notes, SegmentKind, Store};
use super::memo::Numbering;
use crate::ir::{ArithFlags, BinOp, CastOp, CmpPred, Const, Expr, Function, Operand, Ty, ValueId};

/// The most properties of one function. This and the limits below are guards on the size
/// of the lowered function: each property adds selects at every access of its cells.
const MAX_PROPERTIES: usize = 8;

/// The most loads of the element one property's condition reads.
const MAX_READS: usize = 4;

/// Past this many (load or store of a cell with properties) × its properties, none is made.
const MAX_UPDATES: usize = 2_000;

/// A property of the elements of a summary cell.
#[derive(Clone, Debug)]
pub struct Property {
    pub cell: CellId,
    /// The element's value in the condition: the loads of it the condition reads (one
    /// element, read at one offset, see `choose`).
    elems: Vec<ValueId>,
    /// The condition's definitions, operands before users.
    cone: Vec<(ValueId, Ty, Expr)>,
    cond: Operand,
    /// The property is the condition's negation (the error lies on its true side).
    negate: bool,
    /// The index the element's offset is computed from: the offset is `ext(i) << k`, so
    /// `i` is `o >> k` (arithmetic), truncated to `i`'s type when narrower than `i64`.
    index: Option<(ValueId, u32, Ty)>,
    /// A wider value the index truncates (`i = trunc(r)`: a `long long` index of a 32-bit
    /// address), which the condition may read (`a[i] == i * i`): in `P`, `r` is `sext(i)`.
    root: Option<(ValueId, Ty)>,
}

impl Property {
    /// Whether the property is an equality of the element (`x == e`, or the negation of
    /// `x != e`).
    pub fn is_equality(&self) -> bool {
        let Operand::Value(c) = self.cond else {
            return false;
        };
        self.cone.iter().any(|(v, _, e)| {
            *v == c
                && matches!(
                    (e, self.negate),
                    (
                        Expr::Cmp {
                            pred: CmpPred::Eq,
                            ..
                        },
                        false
                    ) | (
                        Expr::Cmp {
                            pred: CmpPred::Ne,
                            ..
                        },
                        true
                    )
                )
        })
    }
}

/// The properties of `func`'s summary cells, from the conditions of branches to error
/// sites, and the cells some such condition compares with a constant (`x == k`, and
/// `x != k` when only constants are stored to the cell, left to the constant segments;
/// `x != k` over stored inputs is a property). Which are chosen only affects precision,
/// never soundness.
pub fn choose(
    func: &Function,
    cells: &Cells,
    numbering: &Numbering,
) -> (Vec<Property>, HashSet<CellId>) {
    let mut compared: HashSet<CellId> = HashSet::new();
    let joins = short_circuits(func);
    let defs = definitions(func, &joins);
    let SummaryAccesses {
        loads,
        counts: accesses,
        stored_values,
    } = SummaryAccesses::of(func, cells);
    let entry = entry_values(func);
    let mut props: Vec<Property> = Vec::new();
    for (cond, negate) in error_branches(func) {
        let cond = &cond;
        // The summary loads the condition reads: one element, read once or more (`a[i] >= m
        // || a[i] == 0` at -O0 loads `a[i]` on each side), at offsets with one value number.
        let mut found = Walk::default();
        found.run(*cond, &defs, &loads, &entry, &[]);
        let mut elems: Vec<ValueId> = found.elems.iter().copied().collect();
        elems.sort();
        let Some(&elem) = elems.first() else {
            continue;
        };
        let (cell, offset) = loads[&elem];
        let same_element = |v: &ValueId| {
            let (c, o) = loads[v];
            c == cell
                && numbering.number(&o).is_some()
                && numbering.number(&o) == numbering.number(&offset)
        };
        if elems.len() > MAX_READS || !elems.iter().all(same_element) {
            continue;
        }
        let index = index_of(&offset, &defs).map(|(i, k)| (i, k, func.value(i).ty));
        let root = index.and_then(|(i, _, _)| match defs.get(&i) {
            Some(Expr::Cast {
                op: CastOp::Trunc,
                arg: Operand::Value(r),
            }) if func.value(*r).ty.width <= 64 => Some((*r, func.value(*r).ty)),
            _ => None,
        });
        let leaves: Vec<ValueId> = index
            .map(|(i, _, _)| i)
            .into_iter()
            .chain(root.map(|(r, _)| r))
            .collect();
        let mut walk = Walk::default();
        walk.run(*cond, &defs, &loads, &entry, &leaves);
        if walk.failed || walk.cone.len() > MAX_CONE || !walk.others.is_empty() {
            continue;
        }
        if index.is_some_and(|(_, k, ty)| ty.width + k > 64 || ty.width > 64) {
            continue;
        }
        let cone: Vec<(ValueId, Ty, Expr)> = walk
            .cone
            .iter()
            .map(|v| (*v, func.value(*v).ty, defs[v].clone()))
            .collect();
        if cone.iter().any(|(_, ty, e)| !safe(e, *ty)) {
            continue;
        }
        // `x == k` is the constant segments' (`segments.rs`), which cost less, and so is
        // `x != k` when only constants are stored (a segment of another constant proves
        // it); `x != k` over stored values (`a[i] = input` where the input is not `k`)
        // needs the property.
        if let [(_, _, Expr::Cmp { pred, lhs, rhs })] = cone.as_slice() {
            let against_constant = matches!(
                (lhs, rhs),
                (Operand::Value(_), Operand::Const(_)) | (Operand::Const(_), Operand::Value(_))
            );
            let differs = matches!((pred, negate), (CmpPred::Ne, false) | (CmpPred::Eq, true));
            let by_constants = !differs || !stored_values.contains(&cell);
            if against_constant && matches!(pred, CmpPred::Eq | CmpPred::Ne) && by_constants {
                compared.insert(cell);
                continue;
            }
        }
        if props.len() < MAX_PROPERTIES {
            props.push(Property {
                cell,
                elems,
                cone,
                cond: Operand::Value(*cond),
                negate,
                index,
                root,
            });
        }
    }
    let updates: usize = props
        .iter()
        .map(|p| accesses.get(&p.cell).copied().unwrap_or(0))
        .sum();
    if updates > MAX_UPDATES {
        return (vec![], compared);
    }
    (props, compared)
}

/// Instantiates the property at the element value `x` and offset `o`: an `i1` operand that
/// holds exactly when `P(x, o)`.
///
/// Where the access's own offset is `ext(j) << k` with the property's `k` and a `j` of the
/// index's type (`indices`), `trunc(o >> k)` is exactly `j` (the shift does not wrap:
/// `choose` keeps width + k <= 64), so `j` stands for the index: the instantiation is then
/// over the program's own values, and [`Emit::emit_expr`]'s reuse of the block's
/// definitions makes it the program's condition itself where the access computes it. A
/// root `r` of the index (`i = trunc(r)`) is `sext(i)` in `P`; it is read as the access's
/// own root `s` (`j = trunc(s)`) where `s == sext(j)`, and elsewhere the instantiation is
/// `otherwise` (a store then cuts, a load assumes nothing): both are sound readings.
pub fn instantiate(
    em: &mut dyn Emit,
    p: &Property,
    indices: &Indices,
    x: Operand,
    o: Operand,
    otherwise: bool,
) -> Operand {
    let mut map: HashMap<ValueId, Operand> = p.elems.iter().map(|&e| (e, x)).collect();
    let mut fits: Option<Operand> = None;
    if let Some((i, k, ty)) = p.index {
        let site = indices
            .site(&o)
            .filter(|s| s.shift == k && em.ty_of(s.index) == ty);
        let i_val = match site {
            Some(s) => Operand::Value(s.index),
            None => {
                let shifted = em.emit_expr(
                    I64,
                    Expr::Binary {
                        op: BinOp::AShr,
                        lhs: o,
                        rhs: Operand::Const(Const::new(I64, k as i128)),
                        flags: ArithFlags::default(),
                    },
                );
                if ty.width < 64 {
                    em.emit_expr(
                        ty,
                        Expr::Cast {
                            op: CastOp::Trunc,
                            arg: shifted,
                        },
                    )
                } else {
                    shifted
                }
            }
        };
        map.insert(i, i_val);
        if let Some((r, rty)) = p.root {
            let widened = em.emit_expr(
                rty,
                Expr::Cast {
                    op: CastOp::SExt,
                    arg: i_val,
                },
            );
            let own = site
                .and_then(|s| s.root)
                .filter(|&s| em.ty_of(s) == rty)
                .map(Operand::Value);
            match own {
                Some(s) => {
                    fits = Some(em.emit_expr(
                        Ty::BOOL,
                        Expr::Cmp {
                            pred: CmpPred::Eq,
                            lhs: s,
                            rhs: widened,
                        },
                    ));
                    map.insert(r, s);
                }
                None => {
                    map.insert(r, widened);
                }
            }
        }
    }
    let holds = instantiate_cone(em, &p.cone, p.cond, p.negate, map, indices);
    match fits {
        None => holds,
        Some(f) => {
            let e = Expr::Select {
                cond: f,
                on_true: holds,
                on_false: Operand::Const(Const::bool(otherwise)),
            };
            fold(&e, indices).unwrap_or_else(|| em.emit_expr(Ty::BOOL, e))
        }
    }
}

/// The bounds after a store of `value` at `offset` (in the entry block, `in_entry`, where
/// the entry values the property reads may not be defined yet, it is a store of another
/// value).
#[allow(clippy::too_many_arguments)]
fn store(
    em: &mut dyn Emit,
    p: &Property,
    indices: &Indices,
    ty: Ty,
    bounds: Bounds,
    offset: Operand,
    value: Operand,
    in_entry: bool,
) -> Bounds {
    let size = cells::bytes(ty) as i128;
    let o = Sym::Op(offset);
    if in_entry {
        return bounds::cut(em, bounds, o, size);
    }
    let holds = instantiate(em, p, indices, value, offset, false);
    bounds::store_when(em, bounds, o, size, holds, bounds::both_ends)
}

/// The predicate segments of a function, as a [`SegmentKind`].
pub struct Predicates {
    properties: Vec<Property>,
    indices: Indices,
}

impl Predicates {
    pub fn new(func: &Function, properties: Vec<Property>) -> Predicates {
        Predicates {
            properties,
            indices: Indices::new(func),
        }
    }
}

impl SegmentKind for Predicates {
    fn len(&self) -> usize {
        self.properties.len()
    }

    fn describes(&self, j: usize, cell: CellId) -> bool {
        self.properties[j].cell == cell
    }

    fn name(&self, j: usize, cell_name: &dyn Fn(CellId) -> String) -> String {
        format!("{}=P{j}", cell_name(self.properties[j].cell))
    }

    fn observe_read(&self, at: &Load<'_>, value: Operand, notes: &mut Notes) {
        if at.in_entry {
            return;
        }
        for (j, p) in self.properties.iter().enumerate() {
            if p.cell == at.cell {
                notes.facts.push(Fact {
                    segment: j,
                    bounds: at.bounds[j],
                    offset: at.offset,
                    value,
                    partner: None,
                    conds: vec![],
                    loc: at.loc.clone(),
                });
            }
        }
    }

    fn store(&self, em: &mut dyn Emit, at: &Store<'_>, bounds: &mut [Bounds]) {
        for (p, b) in self.properties.iter().zip(bounds) {
            if p.cell == at.cell {
                let (ty, offset, value) = (at.ty, at.offset, at.value);
                *b = store(em, p, &self.indices, ty, *b, offset, value, at.in_entry);
            }
        }
    }

    /// Assumes the property of the value read, inside the segment.
    fn emit_fact(&self, em: &mut dyn Emit, fact: &Fact) {
        let p = &self.properties[fact.segment];
        let holds = instantiate(em, p, &self.indices, fact.value, fact.offset, true);
        bounds::assume_inside(em, fact.bounds, fact.offset, holds);
    }
}
