//! Content segments of smashed arrays: for a summary cell and a polynomial `f`
//! of one variable with constant coefficients, a range `[lo, hi)` of byte offsets in which
//! every element holds `f` of its index. So `for (i = 0; i < n; i++) a[i] = (i + 1) * (i + 1);`
//! leaves `[0, 8n)` holding `(k + 1)^2` at index `k`, a later `a[i] = a[i] - i * i` leaves
//! `[0, 8n)` holding `2k + 1` (the stored value, read as a polynomial of the index given
//! that the element it loads lies in the first segment), and a load of `a[j]` inside a
//! segment reads `f(j)`, where the summary alone gives any value.
//!
//! The element's index is `k = o >>s s`, the byte offset `o` shifted right (arithmetic)
//! by `s`, the log of the element's size; the property of content `f` is
//! `P(x, o): x ≡ f(o >>s s) (mod 2^w)`, `w` the element's width, and `f`'s coefficients
//! are taken modulo `2^w`. A polynomial identity modulo `2^w` is an identity of the
//! machine's wrap-around arithmetic: addition, subtraction, multiplication and shifts by
//! constants of `w`-bit values are the ring operations of `Z/2^w`, and truncation maps
//! `Z/2^W` onto `Z/2^w`; an extension is not a ring map and is read only where it is the
//! index itself (below).
//!
//! **Invariant** (of every content segment, at every point): every element of the base
//! whose byte offset `o` (on the summary's grid) has `lo <= o < hi` satisfies `P(x, o)`.
//! The bounds follow the rules of `bounds.rs` (with `bounds::both_ends`, which also extends a
//! segment downwards), a store "of the content" being a store whose value `v` at `o` is
//! shown to satisfy `P(v, o)` under conditions that are single comparisons the engines
//! decide (a select on each; false on any of them is a store of another value, which is
//! sound whatever the value: it only shrinks the segment). The argument of `bounds.rs`,
//! wrap-around included, carries over. Which polynomials are chosen ([`choose`]) only
//! affects precision, never soundness: every update below keeps the invariant for any `f`.
//!
//! At a store of `v` at `o`, `v` is read as a polynomial of the index ([`Reader`]): over
//! constants, `+ - *`, shifts by constants and truncations, with leaves
//! - the *index atom* `j` of the access (`o = j << s` with an `i64` `j`: then
//!   `o >>s s == j` exactly when `-2^(63-s) <= j < 2^(63-s)`, two comparisons added to the
//!   conditions; or `o = ext(j) << s` with `width(j) + s <= 64` (63 for a `zext`): then
//!   `o >>s s == ext64(j)` exactly, so `j` and `ext_W(j)` with the same extension are the
//!   index modulo `2^width(j)` and `2^W`; when `j = trunc(r)` with a `sext` (a `long long`
//!   subscript of a 32-bit address), `r` is the index modulo `2^width(r)` where
//!   `-2^(width(j)-1) <= r < 2^(width(j)-1)`, two comparisons added to the conditions);
//! - a load earlier in the same block of a summary cell with content `h`, at an offset
//!   with the same value number as `o` (index `k`), a constant offset (index `c`), or an
//!   index `j' = j + d` for the store's `j` (wrapping additions of constants; with an
//!   extension, only modulo `2^width(j)`): its value is `h(k)`, `h(c)` or `h(k + d)`
//!   exactly when the load's offset was inside that content's segment when it loaded (the
//!   two comparisons `o' < lo` (false) and `o' < hi` (true) it emitted there, and the
//!   fit conditions of both indices). The value is read modulo the smallest width on the
//!   way to each leaf, never more than the leaf's own width.
//!
//! When the reading is `f` (coefficients equal modulo `2^w`), `P(v, o)` holds under the
//! conditions; the update is a chain of selects on them. A load inside a segment reads
//! `f(k)` over its own index atom (or `trunc(o >>s s)` without one): selects on `o < lo`,
//! `o < hi` and the fit conditions, as the constant segments read their constant. A
//! linear domain relates two products only when they are one value, so at the end of the
//! load's block, where the program has computed its own `i * i + i + 1`, a comparison of
//! the loaded value with it that the block makes (the very value, `available.rs`) is
//! assumed true under the same conditions ([`assume_compared`]).
//!
//! Candidates ([`choose`], in the order of the blocks): the reading of a stored value that
//! depends on the index or reads a load, each load read with the newest content of its
//! cell (`a[i] - i * i` after `(k + 1)^2` gives `2k + 1`); and for a recurrence
//! `a[i] = g(a[i - 1], i)` with one constant stored at a constant index `k0` of the cell
//! (`a[0] = 2`), the polynomial of degree at most [`MAX_DEGREE`] with integer coefficients
//! through its first values (Newton's differences), kept when the recurrence holds of it
//! as an identity. A segment no store of its content reaches is `[0, 0)` at a block's
//! start ([`may_be_set`]), which is sound for any segment and spares the engines updates.
//! A cell with a content that depends on the index gets no constant or predicate
//! segments (`registry.rs`): precision only, and the cost of their updates made ifeqn1 time out;
//! conversely a cell of a pair (`pairs.rs`), or with a predicate segment that is no
//! equality (`a[i] >= i`), gets no contents: its property is what its assertions read.

use std::collections::HashMap;

use super::bounds;
use super::cells::{self, CellId, Cells, SummaryAccesses};
use super::emit::{Bounds, Cond, Emit, Sym, SymExpr, I64};
use super::kind::{Fact, Load, Loads, SegmentKind, Store};
use super::memo::Numbering;
use super::poly::{fit, mask, Poly, MAX_DEGREE};
use crate::ir::{
    ArithFlags, BinOp, CastOp, CmpPred, Const, Expr, Function, Inst, MemOp, Operand, Ty, ValueId,
};

/// The most contents of one summary cell. This and the limits below are guards on the size
/// of the lowered function and on the time of reading stored values.
const MAX_PER_CELL: usize = 4;

/// The most contents of one function.
pub const MAX_CONTENTS: usize = 8;

/// Past this many (load or store of a cell with contents) × its contents, none is made.
const MAX_UPDATES: usize = 2_000;

/// The most readings of one stored value (one per choice of content of each load it reads).
const MAX_READINGS: usize = 16;

/// The deepest definition chain a reading follows.
const MAX_DEPTH: usize = 32;

/// A content segment: the summary cell and the polynomial its elements hold.
#[derive(Clone, Debug)]
pub struct Content {
    pub cell: CellId,
    pub poly: Poly,
    /// The log of the element's size.
    shift: u32,
}

impl Content {
    pub fn is_constant(&self) -> bool {
        self.poly.as_constant().is_some()
    }

    pub fn name(&self) -> String {
        format!("({})", self.poly)
    }
}

/// How an access's offset gives the element's index `k = o >>s s`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Var {
    /// A constant offset: `k` itself.
    Const(i64),
    /// `o = j << s` with an `i64` `j`: `k == j` when `j` fits (`fit_conds`).
    Plain(ValueId),
    /// `o = ext(j) << s`, `width(j) + s <= 64` (63 for a `zext`): `k == ext64(j)`.
    Ext(ValueId, CastOp),
    /// `Ext(j, sext)` with `j = trunc(r)` (a `long long` subscript of a 32-bit address):
    /// also `k == r` (modulo `2^width(r)`) when `r` fits `j` (`Fit::Root`).
    Root(ValueId, ValueId),
}

/// A condition under which an index atom is the element's index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fit {
    /// `o = j << s`, `j` of `i64`: `-2^(63-s) <= j < 2^(63-s)`.
    Plain(ValueId),
    /// The root `r` of a `Root` index `j` of width `w`: `-2^(w-1) <= r < 2^(w-1)`, where
    /// `r == sext(trunc(r))`.
    Root(ValueId, u32),
}

/// The definitions of the function's values and what readings look through.
pub struct Defs {
    defs: HashMap<ValueId, Expr>,
    tys: Vec<Ty>,
}

impl Defs {
    pub fn new(func: &Function) -> Defs {
        let defs = func
            .blocks
            .iter()
            .flat_map(|b| &b.insts)
            .filter_map(|i| match i {
                Inst::Assign { dest, expr } => Some((*dest, expr.clone())),
                _ => None,
            })
            .collect();
        Defs {
            defs,
            tys: func.values.iter().map(|v| v.ty).collect(),
        }
    }

    fn ty(&self, op: &Operand) -> Ty {
        match op {
            Operand::Value(v) => self.tys[v.index()],
            Operand::Const(c) => c.ty,
            Operand::Undef(t) => *t,
        }
    }

    /// The index of an access at `offset` to elements of size `2^s`.
    pub fn var(&self, offset: &Operand, s: u32) -> Option<Var> {
        let o = match offset {
            Operand::Const(c) => return Some(Var::Const((c.signed() as i64) >> s)),
            Operand::Value(o) => *o,
            Operand::Undef(_) => return None,
        };
        let x = if s == 0 {
            o
        } else {
            match self.defs.get(&o)? {
                Expr::Binary {
                    op: BinOp::Shl,
                    lhs: Operand::Value(x),
                    rhs: Operand::Const(k),
                    ..
                } if k.bits == s as u128 => *x,
                Expr::Binary {
                    op: BinOp::Mul,
                    lhs: Operand::Value(x),
                    rhs: Operand::Const(m),
                    ..
                }
                | Expr::Binary {
                    op: BinOp::Mul,
                    lhs: Operand::Const(m),
                    rhs: Operand::Value(x),
                    ..
                } if m.bits == 1u128 << s => *x,
                _ => return None,
            }
        };
        if let Some(Expr::Cast {
            op: op @ (CastOp::SExt | CastOp::ZExt),
            arg: Operand::Value(j),
        }) = self.defs.get(&x)
        {
            // `ext(j) << s` does not wrap in the signed reading, so `>>s s` gives it back:
            // a `zext` needs one bit more (its top bit would be the sign).
            let room = if *op == CastOp::ZExt { 63 } else { 64 };
            if self.tys[j.index()].width + s <= room {
                if let (
                    CastOp::SExt,
                    Some(Expr::Cast {
                        op: CastOp::Trunc,
                        arg: Operand::Value(r),
                    }),
                ) = (op, self.defs.get(j))
                {
                    return Some(Var::Root(*j, *r));
                }
                return Some(Var::Ext(*j, *op));
            }
            return None;
        }
        (self.tys[x.index()].width == 64).then_some(Var::Plain(x))
    }

    /// `(b, d)` with `v == b + d` (wrapping): a chain of additions and subtractions of
    /// constants.
    fn affine(&self, v: ValueId) -> (ValueId, u64) {
        let mut at = v;
        let mut d: u64 = 0;
        for _ in 0..8 {
            match self.defs.get(&at) {
                Some(Expr::Binary {
                    op: BinOp::Add,
                    lhs: Operand::Value(x),
                    rhs: Operand::Const(k),
                    ..
                })
                | Some(Expr::Binary {
                    op: BinOp::Add,
                    lhs: Operand::Const(k),
                    rhs: Operand::Value(x),
                    ..
                }) => {
                    d = d.wrapping_add(k.signed() as u64);
                    at = *x;
                }
                Some(Expr::Binary {
                    op: BinOp::Sub,
                    lhs: Operand::Value(x),
                    rhs: Operand::Const(k),
                    ..
                }) => {
                    d = d.wrapping_sub(k.signed() as u64);
                    at = *x;
                }
                _ => break,
            }
        }
        (at, d)
    }
}

/// The comparisons of a fit condition (`Fit`) at an access to elements of size `2^s`.
fn fit_conds(em: &mut dyn Emit, fit: Fit, s: u32) -> Vec<Cond> {
    let (x, ty, bound) = match fit {
        Fit::Plain(_) if s == 0 => return vec![],
        Fit::Plain(j) => (j, I64, 1i128 << (63 - s)),
        Fit::Root(r, w) => (r, em.ty_of(r), 1i128 << (w - 1)),
    };
    let mut conds = Vec::new();
    for (c, want) in [(bound, true), (-bound, false)] {
        let cmp = em.emit_expr(
            Ty::BOOL,
            Expr::Cmp {
                pred: CmpPred::Slt,
                lhs: Operand::Value(x),
                rhs: Operand::Const(Const::new(ty, c)),
            },
        );
        conds.push((cmp, want));
    }
    conds
}

/// A load a stored value may read: its offset, and for each content of its cell the
/// polynomial and, while building, the conditions under which the load was inside it.
pub struct Leaf {
    pub offset: Operand,
    pub choices: Vec<(Poly, Vec<Cond>)>,
}

/// What a stored value reads as: a polynomial of the store's index, and the conditions
/// (comparisons, and `Plain` indices whose fit conditions are needed).
#[derive(Clone, Debug)]
pub struct Reading {
    pub poly: Poly,
    pub conds: Vec<Cond>,
    pub fits: Vec<Fit>,
}

/// Reads stored values as polynomials of a store's index.
pub struct Reader<'a> {
    pub defs: &'a Defs,
    pub numbering: &'a Numbering,
    /// The store's offset, its index, and the log of the element's size.
    pub offset: Operand,
    pub var: Var,
    pub shift: u32,
    /// The definitions read so far: a definition shared by two operands is read twice, so
    /// a chain of them costs exponentially many steps; past [`MAX_STEPS`] nothing reads.
    pub steps: std::cell::Cell<usize>,
}

/// The most definitions one reading of a stored value visits.
const MAX_STEPS: usize = 4_096;

impl Reader<'_> {
    /// The readings of `op` modulo `2^need` (at most [`MAX_READINGS`]).
    pub fn read(
        &self,
        op: &Operand,
        need: u32,
        leaf: &dyn Fn(ValueId) -> Option<Leaf>,
        depth: usize,
    ) -> Vec<Reading> {
        let need = need.min(self.defs.ty(op).width);
        let v = match op {
            Operand::Const(c) => {
                return vec![Reading {
                    poly: Poly::constant(need, c.bits as u64),
                    conds: vec![],
                    fits: vec![],
                }]
            }
            Operand::Undef(_) => return vec![],
            Operand::Value(v) => *v,
        };
        self.steps.set(self.steps.get() + 1);
        if depth > MAX_DEPTH || self.steps.get() > MAX_STEPS {
            return vec![];
        }
        if let Some(l) = leaf(v) {
            return self.read_load(&l, need);
        }
        let atom = |fits: Vec<Fit>| {
            vec![Reading {
                poly: Poly::var(need),
                conds: vec![],
                fits,
            }]
        };
        match self.var {
            Var::Plain(j) if j == v => return atom(vec![Fit::Plain(j)]),
            Var::Ext(j, _) | Var::Root(j, _) if j == v => return atom(vec![]),
            Var::Root(j, r) if r == v => {
                return atom(vec![Fit::Root(r, self.defs.tys[j.index()].width)])
            }
            _ => {}
        }
        let Some(expr) = self.defs.defs.get(&v) else {
            return vec![];
        };
        match expr {
            Expr::Use(a) => self.read(a, need, leaf, depth + 1),
            Expr::Cast {
                op: op @ (CastOp::SExt | CastOp::ZExt),
                arg: Operand::Value(j),
            } => match self.var {
                Var::Ext(i, kind) if i == *j && kind == *op => atom(vec![]),
                Var::Root(i, _) if i == *j && *op == CastOp::SExt => atom(vec![]),
                _ => vec![],
            },
            Expr::Cast {
                op: CastOp::Trunc,
                arg,
            } => self.read(arg, need, leaf, depth + 1),
            Expr::Binary {
                op: BinOp::Shl,
                lhs,
                rhs: Operand::Const(k),
                ..
            } if k.bits < self.defs.ty(lhs).width as u128 => {
                let factor = Poly::constant(need, 1u64.checked_shl(k.bits as u32).unwrap_or(0));
                self.read(lhs, need, leaf, depth + 1)
                    .into_iter()
                    .filter_map(|r| {
                        Some(Reading {
                            poly: r.poly.mul(&factor)?,
                            ..r
                        })
                    })
                    .collect()
            }
            Expr::Binary {
                op: op @ (BinOp::Add | BinOp::Sub | BinOp::Mul),
                lhs,
                rhs,
                ..
            } => {
                let a = self.read(lhs, need, leaf, depth + 1);
                if a.is_empty() {
                    return vec![];
                }
                let b = self.read(rhs, need, leaf, depth + 1);
                let mut res = Vec::new();
                for x in &a {
                    for y in &b {
                        let poly = match op {
                            BinOp::Add => Some(x.poly.add(&y.poly)),
                            BinOp::Sub => Some(x.poly.sub(&y.poly)),
                            _ => x.poly.mul(&y.poly),
                        };
                        let Some(poly) = poly else { continue };
                        if res.len() == MAX_READINGS {
                            return res;
                        }
                        let mut conds = x.conds.clone();
                        conds.extend(y.conds.iter().copied());
                        let mut fits = x.fits.clone();
                        fits.extend(y.fits.iter().copied());
                        res.push(Reading { poly, conds, fits });
                    }
                }
                res
            }
            _ => vec![],
        }
    }

    /// The readings of a load: each content of its cell, at the load's index related to
    /// the store's.
    /// How the index of a load at `offset` relates to the store's, read modulo `2^need`.
    pub fn relation(&self, offset: &Operand, need: u32) -> Option<Rel> {
        let same = |a: &Operand, b: &Operand| {
            let n = self.numbering.number(a);
            n.is_some() && n == self.numbering.number(b)
        };
        let load_var = self.defs.var(offset, self.shift);
        if let Some(Var::Const(c)) = load_var {
            return Some(Rel::Const(c));
        }
        if same(offset, &self.offset) {
            return Some(Rel::Same);
        }
        let as_ext = |v: Var| match v {
            Var::Root(j, _) => Var::Ext(j, CastOp::SExt),
            v => v,
        };
        if let (Some(Var::Root(j2, r2)), Var::Root(j, r)) = (load_var, self.var) {
            // Through the roots: `r2 == r + d` (wrapping), and each root is the index
            // where it fits.
            let (b2, d2) = self.defs.affine(r2);
            let (b, d) = self.defs.affine(r);
            let w = self.defs.tys[r.index()].width;
            if b == b2 && self.defs.tys[r2.index()].width == w && need <= w {
                let fits = vec![
                    Fit::Root(r2, self.defs.tys[j2.index()].width),
                    Fit::Root(r, self.defs.tys[j.index()].width),
                ];
                return Some(Rel::Shift(d2.wrapping_sub(d), fits));
            }
        }
        match (load_var.map(as_ext), as_ext(self.var)) {
            (Some(Var::Plain(j2)), Var::Plain(j)) => {
                let (b2, d2) = self.defs.affine(j2);
                let (b, d) = self.defs.affine(j);
                (b == b2)
                    .then(|| Rel::Shift(d2.wrapping_sub(d), vec![Fit::Plain(j2), Fit::Plain(j)]))
            }
            (Some(Var::Ext(j2, k2)), Var::Ext(j, k)) => {
                let w = self.defs.tys[j.index()].width;
                if k2 != k || self.defs.tys[j2.index()].width != w || need > w {
                    return None;
                }
                let (b2, d2) = self.defs.affine(j2);
                let (b, d) = self.defs.affine(j);
                (b == b2).then(|| Rel::Shift(d2.wrapping_sub(d), vec![]))
            }
            _ => None,
        }
    }

    fn read_load(&self, l: &Leaf, need: u32) -> Vec<Reading> {
        let Some(rel) = self.relation(&l.offset, need) else {
            return vec![];
        };
        l.choices
            .iter()
            .take(MAX_READINGS)
            .map(|(h, conds)| {
                let h = h.reduce(need);
                let (poly, fits) = match &rel {
                    Rel::Same => (h, vec![]),
                    Rel::Shift(d, fits) => (h.shifted(*d), fits.clone()),
                    Rel::Const(c) => (Poly::constant(need, h.eval(*c as u64)), vec![]),
                };
                Reading {
                    poly,
                    conds: conds.clone(),
                    fits,
                }
            })
            .collect()
    }
}

/// The index of a load relative to a store's: the same, the store's plus `d` (modulo
/// `2^64` under the fit conditions of the listed `Plain` indices, or modulo the width of
/// an extended index), or a constant.
pub enum Rel {
    Same,
    Shift(u64, Vec<Fit>),
    Const(i64),
}

/// Whether reading `r` of a value stored at an access with index `var` is content `f`.
pub fn matches(r: &Reading, f: &Poly, var: Var) -> bool {
    if r.poly.bits < f.bits {
        return false;
    }
    let g = r.poly.reduce(f.bits);
    match var {
        // A constant index: no atom exists, and a load at a constant offset reads a
        // constant; compare the values at `k`.
        Var::Const(k) => g.eval(k as u64) == f.eval(k as u64),
        _ => g == *f,
    }
}

/// The contents of `func`'s summary cells: the readings of the values stored there that
/// read the index or a load of a cell with a content (the newest content of that cell, in
/// the order of the blocks), as polynomials of the store's index. Which are chosen only
/// affects precision, never soundness.
pub fn choose(func: &Function, cells: &Cells, numbering: &Numbering, defs: &Defs) -> Vec<Content> {
    let mut loads: HashMap<ValueId, (CellId, Operand)> = HashMap::new();
    let mut newest: HashMap<CellId, Poly> = HashMap::new();
    let mut accesses: HashMap<CellId, usize> = HashMap::new();
    let mut contents: Vec<Content> = Vec::new();
    // The constants stored at constant offsets, by cell and index (`None` when two differ).
    let mut bases: HashMap<CellId, HashMap<i64, Option<u64>>> = HashMap::new();
    for inst in func.blocks.iter().flat_map(|b| &b.insts) {
        if let Inst::Mem(MemOp::Store {
            addr,
            value: Operand::Const(k),
        }) = inst
        {
            if let Some((c, true)) = cells.cell_of(addr.base, &addr.offset, k.ty) {
                if let Some(Var::Const(at)) = shift_of(k.ty).and_then(|s| defs.var(&addr.offset, s))
                {
                    let slot = bases
                        .entry(c)
                        .or_default()
                        .entry(at)
                        .or_insert(Some(k.bits as u64));
                    if *slot != Some(k.bits as u64) {
                        *slot = None;
                    }
                }
            }
        }
    }
    for inst in func.blocks.iter().flat_map(|b| &b.insts) {
        match inst {
            Inst::Mem(MemOp::Load { dest, addr }) => {
                let ty = func.value(*dest).ty;
                if let Some((c, true)) = cells.cell_of(addr.base, &addr.offset, ty) {
                    loads.insert(*dest, (c, addr.offset));
                    *accesses.entry(c).or_default() += 1;
                }
            }
            Inst::Mem(MemOp::Store { addr, value }) => {
                let ty = func.operand_ty(value);
                let Some((c, true)) = cells.cell_of(addr.base, &addr.offset, ty) else {
                    continue;
                };
                *accesses.entry(c).or_default() += 1;
                let Some(shift) = shift_of(ty) else { continue };
                let Some(var) = defs.var(&addr.offset, shift) else {
                    continue;
                };
                if matches!(var, Var::Const(_)) {
                    continue;
                }
                let reader = Reader {
                    defs,
                    numbering,
                    offset: addr.offset,
                    var,
                    shift,
                    steps: Default::default(),
                };
                let leaf = |v: ValueId| -> Option<Leaf> {
                    let (lc, offset) = loads.get(&v)?;
                    let h = newest.get(lc)?;
                    Some(Leaf {
                        offset: *offset,
                        choices: vec![(h.clone(), vec![])],
                    })
                };
                let recurrence = recurrence(&reader, value, c, ty.width, &loads, defs);
                let fitted = match (recurrence, bases.get(&c)) {
                    (Some(true), Some(b)) if b.len() == 1 => {
                        let (&k0, &c0) = b.iter().next().expect("one base");
                        c0.and_then(|c0| {
                            fit_recurrence(&reader, value, c, ty.width, k0, c0, &loads, &newest)
                        })
                    }
                    _ => None,
                };
                let read = match fitted {
                    Some(f) => Some(Reading {
                        poly: f,
                        conds: vec![],
                        fits: vec![],
                    }),
                    None if recurrence == Some(true) => None,
                    None => reader.read(value, ty.width, &leaf, 0).into_iter().next(),
                };
                let Some(r) = read else {
                    continue;
                };
                // A constant read from nothing but constants is the constant segments'.
                let derived = r.poly.as_constant().is_none() || reads_load(value, defs, &loads);
                if !derived {
                    continue;
                }
                let poly = r.poly;
                let known = contents.iter().any(|k| k.cell == c && k.poly == poly);
                let of_cell = contents.iter().filter(|k| k.cell == c).count();
                if !known && of_cell < MAX_PER_CELL && contents.len() < MAX_CONTENTS {
                    contents.push(Content {
                        cell: c,
                        poly: poly.clone(),
                        shift,
                    });
                }
                newest.insert(c, poly);
            }
            _ => {}
        }
    }
    let updates: usize = contents
        .iter()
        .map(|k| accesses.get(&k.cell).copied().unwrap_or(0))
        .sum();
    if updates > MAX_UPDATES {
        return vec![];
    }
    contents
}

/// Whether the value stored at `reader`'s store into `cell` reads an element of `cell`:
/// `Some(true)` when every such load is at the store's index minus one (a recurrence
/// `a[i] = g(a[i - 1], i)`), `Some(false)` when some other, `None` when none.
fn recurrence(
    reader: &Reader<'_>,
    value: &Operand,
    cell: CellId,
    need: u32,
    loads: &HashMap<ValueId, (CellId, Operand)>,
    defs: &Defs,
) -> Option<bool> {
    let mut work = vec![*value];
    let mut seen = 0;
    let mut found = None;
    while let Some(op) = work.pop() {
        let Operand::Value(v) = op else { continue };
        seen += 1;
        if seen > 4 * MAX_DEPTH {
            return Some(false);
        }
        if let Some((c, offset)) = loads.get(&v) {
            if *c == cell {
                let previous = matches!(reader.relation(offset, need), Some(Rel::Shift(d, _)) if d == u64::MAX);
                found = Some(found.unwrap_or(true) && previous);
            }
            continue;
        }
        if let Some(e) = defs.defs.get(&v) {
            let inst = Inst::Assign {
                dest: v,
                expr: e.clone(),
            };
            work.extend(inst.operands().into_iter().copied());
        }
    }
    found
}

/// The polynomial through the values of a recurrence `a[k] = g(a[k - 1], k)` from its base
/// `a[k0] = c0` (the first values, computed by reading the stored value with the previous
/// element a constant), when one of degree at most [`MAX_DEGREE`] with integer
/// coefficients fits them and satisfies the recurrence as a polynomial identity. Only a
/// candidate: the stores check it.
#[allow(clippy::too_many_arguments)]
fn fit_recurrence(
    reader: &Reader<'_>,
    value: &Operand,
    cell: CellId,
    bits: u32,
    k0: i64,
    c0: u64,
    loads: &HashMap<ValueId, (CellId, Operand)>,
    newest: &HashMap<CellId, Poly>,
) -> Option<Poly> {
    const POINTS: usize = MAX_DEGREE + 3;
    let ty = Ty::int(bits);
    let step = |previous: &Poly, t: i64| -> Option<Poly> {
        let leaf = |v: ValueId| -> Option<Leaf> {
            let (lc, offset) = loads.get(&v)?;
            let h = if *lc == cell {
                previous.clone()
            } else {
                newest.get(lc)?.clone()
            };
            Some(Leaf {
                offset: *offset,
                choices: vec![(h, vec![])],
            })
        };
        let r = reader.read(value, bits, &leaf, 0).into_iter().next()?;
        Some(match t {
            // Evaluate the reading at `t` (the previous element a constant).
            i64::MIN => r.poly,
            _ => Poly::constant(bits, r.poly.eval(t as u64)),
        })
    };
    let mut vals: Vec<i128> = vec![ty.to_signed(c0 as u128)];
    let mut last = Poly::constant(bits, c0);
    for n in 1..POINTS as i64 {
        last = step(&last, k0.checked_add(n)?)?;
        vals.push(ty.to_signed(last.as_constant()? as u128));
    }
    let f = fit(&vals, k0, bits)?;
    // The recurrence as an identity: the stored value, read with the previous element `f`.
    let g = step(&f, i64::MIN)?;
    (g.reduce(bits) == f).then_some(f)
}

/// For each block, the contents that a store on some path from the entry to it may have
/// made non-empty: a store into the content's cell whose value may read as the content
/// (with any content of each cell it loads, inside or not). Elsewhere the segment is
/// `[0, 0)` at the block's start, which the driver sets (an empty segment holds the invariant
/// whatever the truth, so this only spares the engines the updates of segments no store
/// fills: the content `2k + 1` while the loop that stores `(k + 1)^2` runs).
pub fn may_be_set(
    func: &Function,
    cells: &Cells,
    numbering: &Numbering,
    defs: &Defs,
    contents: &[Content],
) -> Vec<Vec<bool>> {
    let n = func.blocks.len();
    let loads = SummaryAccesses::of(func, cells).loads;
    let leaf = |v: ValueId| -> Option<Leaf> {
        let (lc, offset) = loads.get(&v)?;
        Some(Leaf {
            offset: *offset,
            choices: contents
                .iter()
                .filter(|k| k.cell == *lc)
                .map(|k| (k.poly.clone(), vec![]))
                .collect(),
        })
    };
    let mut gen: Vec<Vec<bool>> = vec![vec![false; contents.len()]; n];
    for (b, block) in func.blocks.iter().enumerate() {
        for inst in &block.insts {
            let Inst::Mem(MemOp::Store { addr, value }) = inst else {
                continue;
            };
            let ty = func.operand_ty(value);
            let Some((c, true)) = cells.cell_of(addr.base, &addr.offset, ty) else {
                continue;
            };
            let Some(shift) = shift_of(ty) else { continue };
            let Some(var) = defs.var(&addr.offset, shift) else {
                continue;
            };
            let reader = Reader {
                defs,
                numbering,
                offset: addr.offset,
                var,
                shift,
                steps: Default::default(),
            };
            let readings = reader.read(value, ty.width, &leaf, 0);
            for (j, k) in contents.iter().enumerate() {
                gen[b][j] |= k.cell == c && readings.iter().any(|r| matches(r, &k.poly, var));
            }
        }
    }
    let mut at: Vec<Vec<bool>> = vec![vec![false; contents.len()]; n];
    let mut reached = vec![false; n];
    reached[func.entry.index()] = true;
    let mut work: Vec<usize> = vec![func.entry.index()];
    while let Some(b) = work.pop() {
        let set: Vec<bool> = at[b].iter().zip(&gen[b]).map(|(a, g)| *a || *g).collect();
        for succ in func.blocks[b].term.successors() {
            let s = succ.index();
            let mut changed = !reached[s];
            reached[s] = true;
            for (old, new) in at[s].iter_mut().zip(&set) {
                changed |= *new && !*old;
                *old |= *new;
            }
            if changed {
                work.push(s);
            }
        }
    }
    at
}

/// Whether `op` is computed from a load of a summary cell.
fn reads_load(op: &Operand, defs: &Defs, loads: &HashMap<ValueId, (CellId, Operand)>) -> bool {
    let mut work = vec![*op];
    let mut seen = 0;
    while let Some(op) = work.pop() {
        let Operand::Value(v) = op else { continue };
        seen += 1;
        if seen > 4 * MAX_DEPTH {
            return false;
        }
        if loads.contains_key(&v) {
            return true;
        }
        if let Some(e) = defs.defs.get(&v) {
            let inst = Inst::Assign {
                dest: v,
                expr: e.clone(),
            };
            work.extend(inst.operands().into_iter().copied());
        }
    }
    false
}

/// The log of the size of an element of type `ty`, when a power of two.
pub fn shift_of(ty: Ty) -> Option<u32> {
    let size = cells::bytes(ty);
    size.is_power_of_two().then(|| size.trailing_zeros())
}

/// `f(x)` for an operand `x` of `f`'s width, emitted term by term from the highest degree
/// (`x * x` first, then `+ c*x`, ...: the program's own `i * i + i + 1` where it computes
/// one in this form earlier in the block).
fn emit_poly(em: &mut dyn Emit, f: &Poly, x: Operand, fresh: bool) -> Operand {
    let ty = Ty::int(f.bits);
    let konst = |c: u64| Operand::Const(Const::new(ty, c as i128));
    let bin = |em: &mut dyn Emit, op: BinOp, lhs: Operand, rhs: Operand| {
        let e = Expr::Binary {
            op,
            lhs,
            rhs,
            flags: ArithFlags::default(),
        };
        if fresh {
            em.emit_fresh(ty, e)
        } else {
            em.emit_expr(ty, e)
        }
    };
    let mut powers = vec![konst(1), x];
    for m in 2..=f.degree() {
        let p = bin(em, BinOp::Mul, powers[m - 1], x);
        powers.push(p);
    }
    let mut acc: Option<Operand> = None;
    for m in (0..=f.degree()).rev() {
        let c = f.coef(m);
        if c == 0 {
            continue;
        }
        let negative = ty.to_signed(c as u128) < 0;
        let magnitude = if negative {
            c.wrapping_neg() & mask(f.bits)
        } else {
            c
        };
        let term = if m == 0 {
            konst(magnitude)
        } else if magnitude == 1 {
            powers[m]
        } else {
            bin(em, BinOp::Mul, powers[m], konst(magnitude))
        };
        acc = Some(match (acc, negative) {
            (None, false) => term,
            (None, true) => bin(em, BinOp::Sub, konst(0), term),
            (Some(a), false) => bin(em, BinOp::Add, a, term),
            (Some(a), true) => bin(em, BinOp::Sub, a, term),
        });
    }
    acc.unwrap_or(konst(0))
}

/// The element's index as an operand of width `w` (modulo `2^w`) at an access with index
/// `var` (or none) at `offset`, and the conditions under which it is.
fn index_operand(
    em: &mut dyn Emit,
    var: Option<Var>,
    offset: Operand,
    s: u32,
    w: u32,
) -> (Operand, Vec<Cond>) {
    let ty = Ty::int(w);
    let resize = |em: &mut dyn Emit, x: Operand, from: u32, ext: CastOp| {
        if from == w {
            x
        } else {
            let op = if from > w { CastOp::Trunc } else { ext };
            em.emit_expr(ty, Expr::Cast { op, arg: x })
        }
    };
    match var {
        Some(Var::Const(k)) => (Operand::Const(Const::new(ty, k as i128)), vec![]),
        Some(Var::Plain(j)) => {
            let conds = fit_conds(em, Fit::Plain(j), s);
            (resize(em, Operand::Value(j), 64, CastOp::SExt), conds)
        }
        // The root, which the program computes with (`i * i` over the `long long` `i`).
        Some(Var::Root(j, r)) => {
            let w_j = em.ty_of(j).width;
            let conds = fit_conds(em, Fit::Root(r, w_j), s);
            let from = em.ty_of(r).width;
            (resize(em, Operand::Value(r), from, CastOp::SExt), conds)
        }
        Some(Var::Ext(j, kind)) => {
            let from = em.ty_of(j).width;
            (resize(em, Operand::Value(j), from, kind), vec![])
        }
        None => {
            let k = if s == 0 {
                offset
            } else {
                em.emit_expr(
                    I64,
                    Expr::Binary {
                        op: BinOp::AShr,
                        lhs: offset,
                        rhs: Operand::Const(Const::new(I64, s as i128)),
                        flags: ArithFlags::default(),
                    },
                )
            };
            (resize(em, k, 64, CastOp::SExt), vec![])
        }
    }
}

/// What a load at `offset` (index `var`) reads, given what it reads outside the segment
/// (`rest`), and the two comparisons that say it is inside (`o < lo` false, `o < hi`
/// true).
fn load(
    em: &mut dyn Emit,
    content: &Content,
    Bounds { lo, hi }: Bounds,
    offset: Operand,
    var: Option<Var>,
    rest: Sym,
) -> (Sym, Vec<Cond>) {
    let o = Sym::Op(offset);
    let below_lo = em.emit(Ty::BOOL, SymExpr::Less(o, lo));
    let below_hi = em.emit(Ty::BOOL, SymExpr::Less(o, hi));
    let as_op = |s: Sym| match s {
        Sym::Op(op) => op,
        Sym::Phi(_) => unreachable!("emit gives an operand"),
    };
    let inside = vec![(as_op(below_lo), false), (as_op(below_hi), true)];
    let f = &content.poly;
    let ty = Ty::int(f.bits);
    let (value, conds) = match f.as_constant() {
        Some(c) => (Operand::Const(Const::new(ty, c as i128)), vec![]),
        None => {
            let (x, conds) = index_operand(em, var, offset, content.shift, f.bits);
            // Not entered for reuse: `assume_compared` looks for the program's own.
            (emit_poly(em, f, x, true), conds)
        }
    };
    let mut acc = Sym::Op(value);
    for (c, want) in conds.iter().chain(inside.iter()).rev() {
        let (t, e) = if *want { (acc, rest) } else { (rest, acc) };
        acc = em.emit(ty, SymExpr::Select(Sym::Op(*c), t, e));
    }
    (acc, inside)
}

/// At the end of the block of a load of `x` at `offset` inside the content's segment under
/// `conds` (and the fit conditions of its index): when the block compares `x` with the
/// content at the load's index as the program computes it (`a[i] == i * i + i + 1`, the
/// very comparison reused, see `available.rs`), assumes it equal under the conditions.
/// A linear domain relates two products only as the same value, so the load's own reading
/// (`load`) does not give it.
fn assume_compared(
    em: &mut dyn Emit,
    content: &Content,
    offset: Operand,
    var: Option<Var>,
    x: Operand,
    conds: &[Cond],
) {
    let f = &content.poly;
    if f.as_constant().is_some() {
        return;
    }
    let (k, fit) = index_operand(em, var, offset, content.shift, f.bits);
    let p = emit_poly(em, f, k, false);
    let find = |em: &dyn Emit, pred: CmpPred| {
        em.lookup(
            Ty::BOOL,
            &Expr::Cmp {
                pred,
                lhs: x,
                rhs: p,
            },
        )
        .or_else(|| {
            em.lookup(
                Ty::BOOL,
                &Expr::Cmp {
                    pred,
                    lhs: p,
                    rhs: x,
                },
            )
        })
    };
    let yes = Sym::Op(Operand::Const(Const::bool(true)));
    let no = Sym::Op(Operand::Const(Const::bool(false)));
    let equal = if let Some(eq) = find(em, CmpPred::Eq) {
        Sym::Op(eq)
    } else if let Some(ne) = find(em, CmpPred::Ne) {
        em.emit(Ty::BOOL, SymExpr::Select(Sym::Op(ne), no, yes))
    } else {
        return;
    };
    let mut acc = equal;
    for (c, want) in fit.iter().chain(conds.iter()).rev() {
        let c = Sym::Op(*c);
        acc = if *want {
            em.emit(Ty::BOOL, SymExpr::Select(c, acc, yes))
        } else {
            em.emit(Ty::BOOL, SymExpr::Select(c, yes, acc))
        };
    }
    em.assume(acc);
}

/// The bounds after a store at `offset` whose value has reading `holds` (the conditions
/// under which it is the content, fit conditions of `fits` added) or none.
fn store(
    em: &mut dyn Emit,
    content: &Content,
    bounds: Bounds,
    offset: Operand,
    holds: Option<&Reading>,
) -> Bounds {
    let size = 1i128 << content.shift;
    let o = Sym::Op(offset);
    let Some(r) = holds else {
        return bounds::cut(em, bounds, o, size);
    };
    let mut conds: Vec<Cond> = Vec::new();
    let mut fitted: Vec<Fit> = Vec::new();
    for &fit in &r.fits {
        if !fitted.contains(&fit) {
            fitted.push(fit);
            conds.extend(fit_conds(em, fit, content.shift));
        }
    }
    conds.extend(r.conds.iter().copied());
    let extended = bounds::both_ends(em, bounds, o, size);
    if conds.is_empty() {
        return extended;
    }
    let cut = bounds::cut(em, bounds, o, size);
    let mut acc = extended;
    for (c, want) in conds.iter().rev() {
        let c = Sym::Op(*c);
        acc = if *want {
            bounds::select(em, c, acc, cut)
        } else {
            bounds::select(em, c, cut, acc)
        };
    }
    acc
}

/// The content segments of a function, as a [`SegmentKind`].
pub struct Contents {
    contents: Vec<Content>,
    /// The definitions the readings look through.
    defs: Defs,
    /// For each block, which segments may be non-empty at its start ([`may_be_set`]).
    set_at: Vec<Vec<bool>>,
}

impl Contents {
    pub fn new(
        func: &Function,
        cells: &Cells,
        numbering: &Numbering,
        defs: Defs,
        contents: Vec<Content>,
    ) -> Contents {
        let set_at = may_be_set(func, cells, numbering, &defs, &contents);
        Contents {
            contents,
            defs,
            set_at,
        }
    }

    /// The readings of the value a store writes, as polynomials of its index, each load it
    /// reads worth the contents it was read inside (`Notes::inside`).
    fn readings(&self, at: &Store<'_>, var: Var, shift: u32) -> Vec<Reading> {
        let reader = Reader {
            defs: &self.defs,
            numbering: at.numbering,
            offset: at.offset,
            var,
            shift,
            steps: Default::default(),
        };
        let leaf = |v: ValueId| {
            let (offset, inside) = at.notes.inside.get(&v)?;
            Some(Leaf {
                offset: *offset,
                choices: inside
                    .iter()
                    .map(|(j, conds)| (self.contents[*j].poly.clone(), conds.clone()))
                    .collect(),
            })
        };
        reader.read(&at.value, at.ty.width, &leaf, 0)
    }
}

impl SegmentKind for Contents {
    fn len(&self) -> usize {
        self.contents.len()
    }

    fn describes(&self, j: usize, cell: CellId) -> bool {
        self.contents[j].cell == cell
    }

    fn name(&self, j: usize, cell_name: &dyn Fn(CellId) -> String) -> String {
        let content = &self.contents[j];
        format!("{}={}", cell_name(content.cell), content.name())
    }

    fn empty_at(&self, block: usize, j: usize) -> bool {
        !self.set_at[block][j]
    }

    /// Reads `f` over the load's index inside each segment, and notes under which
    /// comparisons the load was inside (for the stores that read it, and for
    /// [`assume_compared`] at the block's end).
    fn load(&self, lw: &mut dyn Loads, at: &Load<'_>, mut rest: Sym) -> Sym {
        let mut inside = Vec::new();
        for (j, content) in self.contents.iter().enumerate() {
            let b = at.bounds[j];
            if content.cell != at.cell || b.surely_empty() {
                continue; // `[lo, lo)` holds nothing
            }
            let var = shift_of(at.ty).and_then(|s| self.defs.var(&at.offset, s));
            let (read, conds) = load(lw.em(), content, b, at.offset, var, rest);
            rest = read;
            if let (Some(dest), false) = (at.dest, at.in_entry) {
                lw.notes().facts.push(Fact {
                    segment: j,
                    bounds: b,
                    offset: at.offset,
                    value: Operand::Value(dest),
                    partner: None,
                    conds: conds.clone(),
                    loc: at.loc.clone(),
                });
            }
            inside.push((j, conds));
        }
        if let (Some(dest), false) = (at.dest, inside.is_empty()) {
            lw.notes().inside.insert(dest, (at.offset, inside));
        }
        rest
    }

    fn store(&self, em: &mut dyn Emit, at: &Store<'_>, bounds: &mut [Bounds]) {
        let of_cell = self.contents.iter().any(|k| k.cell == at.cell);
        let shift = shift_of(at.ty);
        let var = shift.and_then(|s| self.defs.var(&at.offset, s));
        let readings = match (var, shift, of_cell) {
            (Some(var), Some(shift), true) => self.readings(at, var, shift),
            _ => vec![],
        };
        for (content, b) in self.contents.iter().zip(bounds) {
            if content.cell != at.cell {
                continue;
            }
            let holds =
                var.and_then(|var| readings.iter().find(|r| matches(r, &content.poly, var)));
            *b = store(em, content, *b, at.offset, holds);
        }
    }

    fn emit_fact(&self, em: &mut dyn Emit, fact: &Fact) {
        let content = &self.contents[fact.segment];
        let var = self.defs.var(&fact.offset, content.shift);
        assume_compared(em, content, fact.offset, var, fact.value, &fact.conds);
    }
}
