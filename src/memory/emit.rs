//! The shared core of the lowering: values under construction ([`Sym`]), the expressions
//! the updates of segments build over them ([`SymExpr`]), the bounds of a segment
//! ([`Bounds`]), and the interface through which a segment kind emits instructions
//! ([`Emit`]). The segment kinds and the driver of the lowering (`ssa.rs`) both depend on
//! it; it depends on neither.

use crate::ir::{Const, Expr, Operand, Ty, ValueId};

/// The type of byte offsets and of the bounds of segments.
pub const I64: Ty = Ty { width: 64 };

/// A value during construction: an operand, or the phi of a track at a block (its value is
/// known once every block is built, `phis.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sym {
    Op(Operand),
    Phi(usize),
}

/// An expression over values under construction.
pub enum SymExpr {
    /// A signed comparison `lhs < rhs`.
    Less(Sym, Sym),
    /// `lhs == rhs`.
    Equal(Sym, Sym),
    /// A wrapping addition.
    Add(Sym, Sym),
    Select(Sym, Sym, Sym),
}

impl SymExpr {
    /// The values the expression reads.
    pub fn syms(&self) -> Vec<Sym> {
        match self {
            SymExpr::Less(a, b) | SymExpr::Equal(a, b) | SymExpr::Add(a, b) => vec![*a, *b],
            SymExpr::Select(c, t, f) => vec![*c, *t, *f],
        }
    }
}

/// The bounds of one segment: the byte offsets `o` with `lo <= o < hi` (two `i64` values,
/// compared signed), each a track with its phis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    pub lo: Sym,
    pub hi: Sym,
}

impl Bounds {
    /// Whether the range is `[lo, lo)` with one value at both ends: empty whatever `lo` is.
    pub fn surely_empty(&self) -> bool {
        self.lo == self.hi
    }
}

/// One comparison and the truth a condition needs of it.
pub type Cond = (Operand, bool);

/// Emits the instructions of the updates, at the current point of the block being built.
pub trait Emit {
    /// A fresh value of type `ty` defined by `expr`.
    fn emit(&mut self, ty: Ty, expr: SymExpr) -> Sym;
    /// A value defined by `expr`, whose operands are final: an earlier definition of the
    /// block with the same expression up to poison flags where there is one (see
    /// `available.rs`), else a fresh one.
    fn emit_expr(&mut self, ty: Ty, expr: Expr) -> Operand;
    /// A fresh value defined by `expr`, which later instantiations do not reuse (the
    /// program's own computation of the same expression, further on, is what they should
    /// find).
    fn emit_fresh(&mut self, ty: Ty, expr: Expr) -> Operand {
        self.emit_expr(ty, expr)
    }
    /// An earlier definition of the block with the same expression up to poison flags,
    /// without defining one.
    fn lookup(&self, _ty: Ty, _expr: &Expr) -> Option<Operand> {
        None
    }
    /// The type of a value.
    fn ty_of(&self, v: ValueId) -> Ty;
    /// The value an `i1` value has at the current point whatever the path, when the
    /// branches that lead here decide it (`available.rs`).
    fn known(&self, _v: ValueId) -> Option<bool> {
        None
    }
    /// Ends the paths on which `cond` is false.
    fn assume(&mut self, cond: Sym);
}

/// A constant of type `ty`.
pub fn constant(ty: Ty, value: i128) -> Sym {
    Sym::Op(Operand::Const(Const::new(ty, value)))
}
