//! Predicate segments of smashed arrays (issue 15): for a summary cell and a property
//! `P(x, o)` of an element's value `x` at byte offset `o`, a range `[lo, hi)` in which every
//! element satisfies `P`. The properties are the conditions of the function's assertions
//! that read one element of the cell (`a[i] != 0`, `a[i] >= i`, `a[i] == i * i`), with the
//! element's value as `x` and the index the element's offset was computed from rewritten
//! as a function of the offset (`i` is `o >> 2` when the offset is `sext(i) << 2`); every
//! other operand of the condition is a value of the entry block, so it is the same at every
//! point of the function. So `for (i = 0; i < n; i++) a[i] = i;` leaves `[0, 4n)` where
//! `a[k] >= k` holds, and a later load of `a[j]` inside it reads a value assumed to satisfy
//! it, where the summary alone gives any value. The condition may be a short-circuit
//! join (`a[i] >= m || a[i] == 0` at -O0: a branch on the first comparison, a block that
//! loads the element again for the second, a boolean phi), read as `a | b`
//! ([`short_circuits`]), with every load of the element at offsets of one value number
//! read as `x`.
//!
//! **Invariant** (of every predicate segment, at every point): every element of the base
//! whose byte offset `o` (on the summary's grid) has `lo <= o < hi` satisfies `P(x, o)`.
//! The bounds follow the rules of `segments.rs`, with a store of "the property" being a
//! store of `v` at `o` with `P(v, o)` (a select on its instantiation), which here also
//! extends the segment downwards (`o + s == lo` gives `[o, hi)`, for loops that fill an
//! array from its end); the argument of `segments.rs`, wrap-around included, carries
//! over. `P` is a fixed function of `(x, o)`: its instantiations are pure expressions over
//! `x`, `o`, constants and entry-block values, with every poison flag removed (an
//! instantiation must never end a path: the program does not compute it), and no division,
//! remainder or variable shift (which could be undefined). A load inside the range reads a
//! fresh value (the summary's), on which `P` is assumed.

use std::collections::{HashMap, HashSet};

use super::cells::{self, CellId, Cells};
use super::memo::Numbering;
use super::segments::{self, Emit, I64};
use super::ssa::{Sym, SymExpr};
use crate::ir::{
    ArithFlags, BinOp, CastOp, CmpPred, Const, Expr, Function, Inst, MemOp, Operand, Terminator,
    Ty, ValueId,
};

/// The most properties of one function. This and the limits below are guards on the size
/// of the lowered function: each property adds selects at every access of its cells.
const MAX_PROPERTIES: usize = 8;

/// The most loads of the element one property's condition reads.
const MAX_READS: usize = 4;

/// The most instructions of one property's condition.
const MAX_CONE: usize = 32;

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

/// The definitions an instantiation looks through: those an access's offset is computed
/// from, to find its index (`Site`), and additions of constants, to compare `i - 2` with
/// `i - 1` (`fold`).
pub struct Indices {
    defs: HashMap<ValueId, Expr>,
}

/// The index of one access: its offset is `ext(index) << shift`, and `root` is the wider
/// value `index` truncates, if any.
#[derive(Clone, Copy, Debug)]
struct Site {
    index: ValueId,
    shift: u32,
    root: Option<ValueId>,
}

impl Indices {
    /// The casts, shifts, multiplications, additions and subtractions of `func`.
    pub fn new(func: &Function) -> Indices {
        let defs = func
            .blocks
            .iter()
            .flat_map(|b| &b.insts)
            .filter_map(|i| match i {
                Inst::Assign { dest, expr }
                    if matches!(
                        expr,
                        Expr::Cast { .. }
                            | Expr::Binary {
                                op: BinOp::Shl | BinOp::Mul | BinOp::Add | BinOp::Sub,
                                ..
                            }
                    ) =>
                {
                    Some((*dest, expr.clone()))
                }
                _ => None,
            })
            .collect();
        Indices { defs }
    }

    /// `(b, c)` when `op` is `b + c` exactly in the signed reading: a chain of additions
    /// and subtractions of constants, each `nsw` (a flagged result that wraps is poison,
    /// which the analysis takes as not happening).
    fn affine(&self, op: &Operand) -> (Operand, i128) {
        let mut at = *op;
        let mut offset: i128 = 0;
        for _ in 0..8 {
            let Operand::Value(v) = at else { break };
            let Some(Expr::Binary {
                op,
                lhs,
                rhs: Operand::Const(k),
                flags,
            }) = self.defs.get(&v)
            else {
                break;
            };
            if !flags.nsw {
                break;
            }
            match op {
                BinOp::Add => offset += k.signed(),
                BinOp::Sub => offset -= k.signed(),
                _ => break,
            }
            at = *lhs;
        }
        (at, offset)
    }

    fn site(&self, offset: &Operand) -> Option<Site> {
        let (index, shift) = index_of_in(offset, &|v| self.defs.get(&v))?;
        let root = match self.defs.get(&index) {
            Some(Expr::Cast {
                op: CastOp::Trunc,
                arg: Operand::Value(r),
            }) => Some(*r),
            _ => None,
        };
        Some(Site { index, shift, root })
    }
}

/// The loads and stores of a function's summary cells, as the choosers of segments read
/// them.
pub(super) struct SummaryAccesses {
    /// Each load of a summary cell: its cell and offset.
    pub loads: HashMap<ValueId, (CellId, Operand)>,
    /// The loads and stores of each summary cell.
    pub counts: HashMap<CellId, usize>,
    /// The cells some store writes a value that is not a constant to.
    pub stored_values: HashSet<CellId>,
}

impl SummaryAccesses {
    pub fn of(func: &Function, cells: &Cells) -> SummaryAccesses {
        let mut acc = SummaryAccesses {
            loads: HashMap::new(),
            counts: HashMap::new(),
            stored_values: HashSet::new(),
        };
        for inst in func.blocks.iter().flat_map(|b| &b.insts) {
            match inst {
                Inst::Mem(MemOp::Load { dest, addr }) => {
                    let ty = func.value(*dest).ty;
                    if let Some((c, true)) = cells.cell_of(addr.base, &addr.offset, ty) {
                        acc.loads.insert(*dest, (c, addr.offset));
                        *acc.counts.entry(c).or_default() += 1;
                    }
                }
                Inst::Mem(MemOp::Store { addr, value }) => {
                    let ty = func.operand_ty(value);
                    if let Some((c, true)) = cells.cell_of(addr.base, &addr.offset, ty) {
                        *acc.counts.entry(c).or_default() += 1;
                        if !matches!(value, Operand::Const(_)) {
                            acc.stored_values.insert(c);
                        }
                    }
                }
                _ => {}
            }
        }
        acc
    }
}

/// The definitions a condition's walk looks through: every assignment, and the boolean
/// phis that join short-circuit conditions (`joins`, from [`short_circuits`]).
pub(super) fn definitions<'f>(
    func: &'f Function,
    joins: &'f HashMap<ValueId, Expr>,
) -> HashMap<ValueId, &'f Expr> {
    let mut defs: HashMap<ValueId, &Expr> = joins.iter().map(|(v, e)| (*v, e)).collect();
    for inst in func.blocks.iter().flat_map(|b| &b.insts) {
        if let Inst::Assign { dest, expr } = inst {
            defs.insert(*dest, expr);
        }
    }
    defs
}

/// The values of the entry block (the same at every point of the function).
pub(super) fn entry_values(func: &Function) -> HashSet<ValueId> {
    func.blocks[func.entry.index()]
        .insts
        .iter()
        .filter_map(|i| i.dest())
        .collect()
}

/// The branches to an error site on one side only: each one's condition, and whether the
/// error lies on its true side (the property is then the condition's negation).
pub(super) fn error_branches(func: &Function) -> Vec<(ValueId, bool)> {
    func.blocks
        .iter()
        .filter_map(|block| {
            let Terminator::Branch {
                cond: Operand::Value(cond),
                then_edge,
                else_edge,
            } = &block.term
            else {
                return None;
            };
            match (
                is_error(func, then_edge.target),
                is_error(func, else_edge.target),
            ) {
                (true, false) => Some((*cond, true)),
                (false, true) => Some((*cond, false)),
                _ => None,
            }
        })
        .collect()
}

/// Whether `block` is an error site or jumps straight to one.
fn is_error(func: &Function, block: crate::ir::BlockId) -> bool {
    let b = &func.blocks[block.index()];
    match &b.term {
        Terminator::Error(_) => true,
        Terminator::Jump(e) if b.insts.is_empty() && e.moves.is_empty() => {
            matches!(func.blocks[e.target.index()].term, Terminator::Error(_))
        }
        _ => false,
    }
}

/// Whether an instantiation of `expr` is total and never poison once flags are removed.
pub(super) fn safe(expr: &Expr, ty: Ty) -> bool {
    match expr {
        Expr::Binary { op, rhs, .. } => match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor => true,
            BinOp::Shl | BinOp::LShr | BinOp::AShr => {
                matches!(rhs, Operand::Const(k) if k.bits < ty.width as u128)
            }
            _ => false,
        },
        Expr::Use(_) | Expr::Cmp { .. } | Expr::Cast { .. } | Expr::Select { .. } => true,
    }
}

/// `(i, k)` when `offset` is `i << k` or `i * 2^k`, with `i` a value or its extension.
fn index_of(offset: &Operand, defs: &HashMap<ValueId, &Expr>) -> Option<(ValueId, u32)> {
    index_of_in(offset, &|v| defs.get(&v).copied())
}

/// [`index_of`] over any map of definitions.
fn index_of_in<'e>(
    offset: &Operand,
    defs: &dyn Fn(ValueId) -> Option<&'e Expr>,
) -> Option<(ValueId, u32)> {
    let Operand::Value(o) = offset else {
        return None;
    };
    let (ix, k) = match defs(*o)? {
        Expr::Binary {
            op: BinOp::Shl,
            lhs,
            rhs: Operand::Const(k),
            ..
        } if k.bits < 64 => (*lhs, k.bits as u32),
        Expr::Binary {
            op: BinOp::Mul,
            lhs,
            rhs: Operand::Const(m),
            ..
        }
        | Expr::Binary {
            op: BinOp::Mul,
            lhs: Operand::Const(m),
            rhs: lhs,
            ..
        } if m.bits.is_power_of_two() && m.bits < 1 << 63 => (*lhs, m.bits.trailing_zeros()),
        _ => return None,
    };
    let Operand::Value(ix) = ix else {
        return None;
    };
    match defs(ix) {
        Some(Expr::Cast {
            op: CastOp::SExt | CastOp::ZExt,
            arg: Operand::Value(i),
        }) => Some((*i, k)),
        _ => Some((ix, k)),
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
        if index.is_some_and(|(_, k, ty)| ty.width as u32 + k > 64 || ty.width > 64) {
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

/// The booleans that short-circuit evaluation joins, as the expressions of both operands
/// they compute: at -O0, `a || b` branches on `a` to the join with `true`, or to a block
/// entered from that branch only that computes `b` and jumps to the join with it; `a && b`
/// the same with `false` on the else edge. The join's value is `a | b` (`a & b`) on every
/// path to it, so the expression is the condition the program computes, one a property can
/// instantiate at any point. Only the choice of properties reads it (which is precision:
/// any pure function of the element is a sound property).
pub(super) fn short_circuits(func: &Function) -> HashMap<ValueId, Expr> {
    use crate::ir::BlockId;
    let mut incoming: Vec<Vec<(usize, &crate::ir::Edge)>> = vec![Vec::new(); func.blocks.len()];
    for (b, block) in func.blocks.iter().enumerate() {
        for e in block.term.edges() {
            incoming[e.target.index()].push((b, e));
        }
    }
    let mut res = HashMap::new();
    for (j, ins) in incoming.iter().enumerate() {
        let [(pa, ea), (pb, eb)] = ins.as_slice() else {
            continue;
        };
        for ((a, edge_a), (b, edge_b)) in [((*pa, *ea), (*pb, *eb)), ((*pb, *eb), (*pa, *ea))] {
            let Terminator::Branch {
                cond,
                then_edge,
                else_edge,
            } = &func.blocks[a].term
            else {
                continue;
            };
            // `A` branches to the join on one side and to `B` on the other; `B` is entered
            // from there only and jumps to the join.
            let (op, short) = if std::ptr::eq(then_edge, edge_a) {
                (BinOp::Or, else_edge)
            } else if std::ptr::eq(else_edge, edge_a) {
                (BinOp::And, then_edge)
            } else {
                continue;
            };
            let entered_once = incoming[b].len() == 1 && incoming[b][0].0 == a;
            if short.target != BlockId(b as u32)
                || !entered_once
                || !matches!(func.blocks[b].term, Terminator::Jump(_))
                || b == j
            {
                continue;
            }
            for (dest, from_a) in &edge_a.moves {
                if func.value(*dest).ty != Ty::BOOL {
                    continue;
                }
                let short_value = Const::bool(op == BinOp::Or);
                if *from_a != Operand::Const(short_value) {
                    continue;
                }
                let Some((_, from_b)) = edge_b.moves.iter().find(|(d, _)| d == dest) else {
                    continue;
                };
                res.insert(
                    *dest,
                    Expr::Binary {
                        op,
                        lhs: *cond,
                        rhs: *from_b,
                        flags: ArithFlags::default(),
                    },
                );
            }
        }
    }
    res
}

/// A walk of a condition's definitions.
#[derive(Default)]
pub(super) struct Walk {
    seen: HashSet<ValueId>,
    /// Assignments, operands first.
    pub(super) cone: Vec<ValueId>,
    /// Summary loads read.
    pub(super) elems: HashSet<ValueId>,
    /// Values neither defined by an assignment, nor entry values, nor loads, nor the index.
    pub(super) others: HashSet<ValueId>,
    pub(super) failed: bool,
}

impl Walk {
    pub(super) fn run(
        &mut self,
        v: ValueId,
        defs: &HashMap<ValueId, &Expr>,
        loads: &HashMap<ValueId, (CellId, Operand)>,
        entry: &HashSet<ValueId>,
        leaves: &[ValueId],
    ) {
        if !self.seen.insert(v) {
            return;
        }
        if self.seen.len() > 4 * MAX_CONE {
            self.failed = true; // a cut cone would leave operands unrenamed
            return;
        }
        if loads.contains_key(&v) {
            self.elems.insert(v);
            return;
        }
        if leaves.contains(&v) || entry.contains(&v) {
            return;
        }
        let Some(expr) = defs.get(&v) else {
            self.others.insert(v);
            return;
        };
        let inst = Inst::Assign {
            dest: v,
            expr: (*expr).clone(),
        };
        for op in inst.operands() {
            match op {
                Operand::Value(x) => self.run(*x, defs, loads, entry, leaves),
                Operand::Undef(_) => self.failed = true,
                Operand::Const(_) => {}
            }
        }
        self.cone.push(v);
    }
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

/// The truth of a condition whose cone (`cone`, operands before users; `cond` its value,
/// negated when `negate`) is instantiated with the values `map` gives its leaves: an `i1`
/// operand, folded where it does not depend on the values. Every instruction is emitted
/// without poison flags (`emit_expr`, which reuses the block's equal definitions).
pub(super) fn instantiate_cone(
    em: &mut dyn Emit,
    cone: &[(ValueId, Ty, Expr)],
    cond: Operand,
    negate: bool,
    mut map: HashMap<ValueId, Operand>,
    indices: &Indices,
) -> Operand {
    let rename = |op: &Operand, map: &HashMap<ValueId, Operand>| match op {
        Operand::Value(v) => map.get(v).copied().unwrap_or(*op),
        other => *other,
    };
    let cond_value = match cond {
        Operand::Value(c) => Some(c),
        _ => None,
    };
    let mut negated = false;
    for (v, ty, expr) in cone {
        let e = match expr {
            Expr::Use(a) => Expr::Use(rename(a, &map)),
            Expr::Binary { op, lhs, rhs, .. } => Expr::Binary {
                op: *op,
                lhs: rename(lhs, &map),
                rhs: rename(rhs, &map),
                flags: ArithFlags::default(),
            },
            Expr::Cmp { pred, lhs, rhs } => Expr::Cmp {
                pred: *pred,
                lhs: rename(lhs, &map),
                rhs: rename(rhs, &map),
            },
            Expr::Cast { op, arg } => Expr::Cast {
                op: *op,
                arg: rename(arg, &map),
            },
            Expr::Select {
                cond,
                on_true,
                on_false,
            } => Expr::Select {
                cond: rename(cond, &map),
                on_true: rename(on_true, &map),
                on_false: rename(on_false, &map),
            },
        };
        // The negation of a comparison is the inverse comparison (the engines read it as a
        // guard, and it may be the very condition of a branch the program took).
        let e = match e {
            Expr::Cmp { pred, lhs, rhs } if negate && Some(*v) == cond_value => {
                negated = true;
                Expr::Cmp {
                    pred: pred.negated(),
                    lhs,
                    rhs,
                }
            }
            e => e,
        };
        let out = match fold(&e, indices) {
            Some(c) => c,
            None => em.emit_expr(*ty, e),
        };
        let out = match out {
            Operand::Value(c) if *ty == Ty::BOOL => {
                em.known(c).map_or(out, |b| Operand::Const(Const::bool(b)))
            }
            _ => out,
        };
        map.insert(*v, out);
    }
    let holds = rename(&cond, &map);
    if negate && !negated {
        match holds {
            Operand::Const(c) => Operand::Const(Const::bool(c.bits == 0)),
            // `xor c, true`, which the engines read as a guard on `c` (a select would not be).
            _ => em.emit_expr(
                Ty::BOOL,
                Expr::Binary {
                    op: BinOp::Xor,
                    lhs: holds,
                    rhs: Operand::Const(Const::bool(true)),
                    flags: ArithFlags::default(),
                },
            ),
        }
    } else {
        holds
    }
}

/// The constant an expression of the instantiation folds to, when its value does not
/// depend on its operands' values: a comparison of a value with itself, or (signed or
/// equality) of `b + c1` with `b + c2` (`Indices::affine`), a select on a constant, an
/// operation of two `i1` constants. Folding keeps selects on a constant out of the bounds
/// (a store of `a[i] = i` under `a[i] >= i` is known to extend the segment, one of
/// `a[i-1] = i - 2` to cut it).
pub(super) fn fold(e: &Expr, indices: &Indices) -> Option<Operand> {
    let truth = |b: bool| Some(Operand::Const(Const::bool(b)));
    match e {
        Expr::Cmp { pred, lhs, rhs } if lhs == rhs && matches!(lhs, Operand::Value(_)) => {
            truth(matches!(
                pred,
                CmpPred::Eq | CmpPred::Uge | CmpPred::Ule | CmpPred::Sge | CmpPred::Sle
            ))
        }
        Expr::Cmp {
            pred,
            lhs: Operand::Const(a),
            rhs: Operand::Const(b),
        } if a.ty == b.ty => truth(compare(*pred, *a, *b)),
        Expr::Cmp { pred, lhs, rhs } => {
            let (a, c1) = indices.affine(lhs);
            let (b, c2) = indices.affine(rhs);
            if a != b || !matches!(a, Operand::Value(_)) || (c1 == 0 && c2 == 0) {
                return None;
            }
            match pred {
                CmpPred::Eq => truth(c1 == c2),
                CmpPred::Ne => truth(c1 != c2),
                CmpPred::Slt => truth(c1 < c2),
                CmpPred::Sle => truth(c1 <= c2),
                CmpPred::Sgt => truth(c1 > c2),
                CmpPred::Sge => truth(c1 >= c2),
                _ => None,
            }
        }
        Expr::Select {
            cond: Operand::Const(c),
            on_true,
            on_false,
        } => Some(if c.bits != 0 { *on_true } else { *on_false }),
        Expr::Select {
            cond,
            on_true: Operand::Const(t),
            on_false: Operand::Const(f),
        } if t.ty == Ty::BOOL && t.bits != 0 && f.bits == 0 => Some(*cond),
        Expr::Binary {
            op: op @ (BinOp::And | BinOp::Or | BinOp::Xor),
            lhs: Operand::Const(a),
            rhs: Operand::Const(b),
            ..
        } if a.ty == Ty::BOOL && b.ty == Ty::BOOL => {
            let (a, b) = (a.bits != 0, b.bits != 0);
            truth(match op {
                BinOp::And => a && b,
                BinOp::Or => a || b,
                _ => a != b,
            })
        }
        // `true || x`, `false && x`, and the neutral constants.
        Expr::Binary {
            op: op @ (BinOp::And | BinOp::Or),
            lhs,
            rhs,
            ..
        } => {
            let (k, other) = match (lhs, rhs) {
                (Operand::Const(k), other) | (other, Operand::Const(k)) if k.ty == Ty::BOOL => {
                    (k.bits != 0, *other)
                }
                _ => return None,
            };
            match (op, k) {
                (BinOp::Or, true) => truth(true),
                (BinOp::And, false) => truth(false),
                _ => Some(other),
            }
        }
        _ => None,
    }
}

/// `pred` of two constants of one type.
fn compare(pred: CmpPred, a: Const, b: Const) -> bool {
    pred.holds((a.unsigned(), b.unsigned()), (a.signed(), b.signed()))
}

/// Assumes the property of a load of value `x` at `offset`, inside the segment.
pub fn load(
    em: &mut dyn Emit,
    p: &Property,
    indices: &Indices,
    bounds: (Sym, Sym),
    offset: Operand,
    x: Operand,
) {
    let (lo, hi) = bounds;
    let holds = instantiate(em, p, indices, x, offset, true);
    if holds == Operand::Const(Const::bool(true)) {
        return;
    }
    let o = Sym::Op(offset);
    let below_hi = em.emit(Ty::BOOL, SymExpr::Less(o, hi));
    let below_lo = em.emit(Ty::BOOL, SymExpr::Less(o, lo));
    let no = Sym::Op(Operand::Const(Const::bool(false)));
    let yes = Sym::Op(Operand::Const(Const::bool(true)));
    let inside = em.emit(Ty::BOOL, SymExpr::Select(below_lo, no, below_hi));
    let ok = em.emit(Ty::BOOL, SymExpr::Select(inside, Sym::Op(holds), yes));
    em.assume(ok);
}

/// The bounds after a store of `value` at `offset` (in the entry block, `in_entry`, where
/// the entry values the property reads may not be defined yet, it is a store of another
/// value).
#[allow(clippy::too_many_arguments)]
pub fn store(
    em: &mut dyn Emit,
    p: &Property,
    indices: &Indices,
    ty: Ty,
    bounds: (Sym, Sym),
    offset: Operand,
    value: Operand,
    in_entry: bool,
) -> (Sym, Sym) {
    let size = cells::bytes(ty) as i128;
    let o = Sym::Op(offset);
    if in_entry {
        return segments::other(em, bounds, o, size);
    }
    let holds = instantiate(em, p, indices, value, offset, false);
    match holds {
        Operand::Const(c) if c.bits != 0 => both_ends(em, bounds, o, size),
        Operand::Const(_) => segments::other(em, bounds, o, size),
        _ => {
            let holds = Sym::Op(holds);
            let (lo_s, hi_s) = both_ends(em, bounds, o, size);
            let (lo_o, hi_o) = segments::other(em, bounds, o, size);
            (
                em.emit(I64, SymExpr::Select(holds, lo_s, lo_o)),
                em.emit(I64, SymExpr::Select(holds, hi_s, hi_o)),
            )
        }
    }
}

/// A store of an element satisfying the property: [`segments::same`], and also at
/// `lo - s` of a non-empty segment it extends the segment downwards.
pub(super) fn both_ends(em: &mut dyn Emit, bounds: (Sym, Sym), o: Sym, size: i128) -> (Sym, Sym) {
    let (lo, hi) = bounds;
    let (lo_s, hi_s) = segments::same(em, bounds, o, size);
    let o_s = em.emit(I64, SymExpr::Add(o, segments::constant(I64, size)));
    let nonempty = em.emit(Ty::BOOL, SymExpr::Less(lo, hi));
    let at_lo = em.emit(Ty::BOOL, SymExpr::Equal(o_s, lo));
    let no = Sym::Op(Operand::Const(Const::bool(false)));
    let below = em.emit(Ty::BOOL, SymExpr::Select(nonempty, at_lo, no));
    (em.emit(I64, SymExpr::Select(below, o, lo_s)), hi_s)
}
