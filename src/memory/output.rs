//! The output of the block being built: instructions whose operands may still be phis
//! ([`Pending`]), and the [`Emitter`] through which the driver and the segment kinds add
//! to it.

use super::available::Available;
use super::emit::{Emit, Sym, SymExpr};
use super::memo::Numbering;
use crate::ir::{Expr, Inst, Operand, SourceLoc, Ty, ValueId, ValueInfo};

/// An instruction of the output whose operands may still be phis.
pub enum Pending {
    Keep(Inst),
    /// `dest := the value`.
    Load {
        dest: ValueId,
        sym: Sym,
    },
    /// `dest := expr`, whose operands may be phis (the bounds of segments).
    Assign {
        dest: ValueId,
        expr: SymExpr,
    },
    /// `assume cond`.
    Assume(Sym),
}

/// The output of one block, each instruction with its source location.
pub type Output = Vec<(Pending, Option<SourceLoc>)>;

/// A fresh value of type `ty`.
pub fn fresh(values: &mut Vec<ValueInfo>, ty: Ty, name: String) -> ValueId {
    values.push(ValueInfo {
        ty,
        name,
        source_name: None,
    });
    ValueId(values.len() as u32 - 1)
}

/// What the block being built has emitted so far: its output, and the definitions
/// available for reuse.
pub struct Sink {
    pub out: Output,
    pub available: Available,
}

impl Sink {
    /// An emitter into this block at `loc`; fresh values extend `values`.
    pub fn emitter<'b>(
        &'b mut self,
        values: &'b mut Vec<ValueInfo>,
        numbering: &'b Numbering,
        loc: &'b Option<SourceLoc>,
    ) -> Emitter<'b> {
        Emitter {
            values,
            sink: self,
            numbering,
            loc,
        }
    }
}

/// Emits into one block's output at one source location.
pub struct Emitter<'b> {
    /// The function's values, which fresh ones extend.
    pub values: &'b mut Vec<ValueInfo>,
    sink: &'b mut Sink,
    numbering: &'b Numbering,
    pub loc: &'b Option<SourceLoc>,
}

impl Emitter<'_> {
    /// Adds `inst` to the output.
    pub fn keep(&mut self, inst: Inst) {
        self.sink.out.push((Pending::Keep(inst), self.loc.clone()));
    }
}

impl Emit for Emitter<'_> {
    fn emit(&mut self, ty: Ty, expr: SymExpr) -> Sym {
        let name = if ty.is_bool() { "seg.cond" } else { "seg" };
        let dest = fresh(self.values, ty, name.into());
        self.sink
            .out
            .push((Pending::Assign { dest, expr }, self.loc.clone()));
        Sym::Op(Operand::Value(dest))
    }

    fn emit_expr(&mut self, ty: Ty, expr: Expr) -> Operand {
        if let Some(op) = self.sink.available.get(ty, &expr, self.numbering) {
            return op;
        }
        let dest = fresh(self.values, ty, "prop".into());
        self.sink.available.define(ty, &expr, dest, self.numbering);
        self.keep(Inst::Assign { dest, expr });
        Operand::Value(dest)
    }

    fn emit_fresh(&mut self, ty: Ty, expr: Expr) -> Operand {
        let dest = fresh(self.values, ty, "content".into());
        self.keep(Inst::Assign { dest, expr });
        Operand::Value(dest)
    }

    fn lookup(&self, ty: Ty, expr: &Expr) -> Option<Operand> {
        self.sink.available.get(ty, expr, self.numbering)
    }

    fn ty_of(&self, v: ValueId) -> Ty {
        self.values[v.index()].ty
    }

    fn known(&self, v: ValueId) -> Option<bool> {
        self.sink.available.known(v)
    }

    fn assume(&mut self, cond: Sym) {
        self.sink
            .out
            .push((Pending::Assume(cond), self.loc.clone()));
    }
}
