//! Calls of the C library and POSIX: known code, lifted from their models
//! ([`crate::frontend::library_model`]) instead of as code without a body.
//!
//! A modeled function clobbers only what it may write (the objects its pointer arguments
//! point to, or nothing), and its result is assumed within its range; a library function
//! without a model clobbers every base other code may reach and returns any value of its
//! type, as code without a body does. Neither gets the warning of a missing body: the
//! program's own missing code keeps it.

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;

use super::Lifter;
use crate::frontend::library_model::{self, ResultRange, Writes};
use crate::frontend::raw;
use crate::ir::{CmpPred, Const, HavocReason, Inst, Operand, SourceLoc, Ty};

impl Lifter {
    /// A call of `name`, a function of the C library or POSIX that the program does not
    /// define: its writes, an allocation's object, its result.
    pub(super) fn library_call(
        &mut self,
        piece: usize,
        inst: LLVMValueRef,
        name: &str,
        loc: &Option<SourceLoc>,
    ) {
        let model = library_model::model(name);
        match model.map(|m| m.writes) {
            None => self.clobber_reachable(piece, loc),
            Some(Writes::Nothing) => {}
            Some(Writes::Arguments(positions)) => {
                self.clobber_arguments(piece, inst, positions, loc)
            }
            Some(Writes::Formatted { format, buffers }) => {
                self.clobber_arguments(piece, inst, buffers, loc);
                let writes_through_arguments = (format < raw::num_args(inst))
                    .then(|| constant_string(raw::operand(inst, format)))
                    .flatten()
                    .is_none_or(|text| library_model::format_writes(&text));
                if writes_through_arguments {
                    let after: Vec<u32> = (format + 1..raw::num_args(inst)).collect();
                    self.clobber_arguments(piece, inst, &after, loc);
                }
            }
        }
        // `free` synchronizes in `lift_free`, between its check and its effect.
        if library_model::orders_allocations(name) && name != "free" {
            self.synchronize_allocation(piece, loc);
        }
        self.allocation(piece, inst, loc);
        let Some(&dest) = self.value_of.get(&inst) else {
            return;
        };
        self.push(
            piece,
            Inst::Havoc {
                dest,
                reason: HavocReason::UnknownCall {
                    function: name.to_string(),
                },
            },
            loc.clone(),
        );
        let ty = self.values[dest.index()].ty;
        let result = Operand::Value(dest);
        match model.map(|m| m.result) {
            None | Some(ResultRange::Any) => {}
            Some(ResultRange::Signed(lo, hi)) => {
                // Within the type's range, the bounds that say something.
                let (min, max) = (
                    ty.to_signed(1 << (ty.width - 1)),
                    ty.to_signed(ty.mask(!0) >> 1),
                );
                let (lo, hi) = (i128::from(lo).max(min), i128::from(hi).min(max));
                if lo > hi {
                    return;
                }
                if lo > min {
                    self.assume_cmp(
                        piece,
                        CmpPred::Sge,
                        result,
                        Operand::Const(Const::new(ty, lo)),
                        loc,
                    );
                }
                if hi < max {
                    self.assume_cmp(
                        piece,
                        CmpPred::Sle,
                        result,
                        Operand::Const(Const::new(ty, hi)),
                        loc,
                    );
                }
            }
            Some(ResultRange::AtMostArgument(k)) => {
                if k >= raw::num_args(inst) {
                    return;
                }
                let Some(bound) = self.operand(raw::operand(inst, k), loc) else {
                    return;
                };
                if operand_ty(self, bound) == ty {
                    self.assume_cmp(piece, CmpPred::Ule, result, bound, loc);
                }
            }
        }
    }

    /// The objects the pointer arguments at `positions` point to become arbitrary (a null
    /// pointer points to none).
    fn clobber_arguments(
        &mut self,
        piece: usize,
        inst: LLVMValueRef,
        positions: &[u32],
        loc: &Option<SourceLoc>,
    ) {
        for &k in positions {
            if k >= raw::num_args(inst) {
                continue;
            }
            let arg = raw::operand(inst, k);
            let is_null = unsafe { LLVMIsNull(arg) != 0 } && !raw::is_undef(arg);
            if raw::is_pointer(raw::type_of(arg)) && !is_null {
                self.clobber_through(piece, arg, loc);
            }
        }
    }

    /// `assume lhs PRED rhs`.
    fn assume_cmp(
        &mut self,
        piece: usize,
        pred: CmpPred,
        lhs: Operand,
        rhs: Operand,
        loc: &Option<SourceLoc>,
    ) {
        let cond = self.compare(piece, pred, lhs, rhs, loc);
        self.push(piece, Inst::Assume { cond }, loc.clone());
    }
}

/// The type of an integer operand.
fn operand_ty(lifter: &Lifter, op: Operand) -> Ty {
    match op {
        Operand::Value(v) => lifter.values[v.index()].ty,
        Operand::Const(c) => c.ty,
        Operand::Undef(t) => t,
    }
}

/// The bytes of `ptr` when it is a constant global holding a C string (a literal format),
/// up to its terminating NUL.
fn constant_string(ptr: LLVMValueRef) -> Option<Vec<u8>> {
    let constant_global =
        unsafe { !LLVMIsAGlobalVariable(ptr).is_null() && LLVMIsGlobalConstant(ptr) != 0 };
    if !constant_global {
        return None;
    }
    let init = unsafe { LLVMGetInitializer(ptr) };
    if init.is_null() {
        return None;
    }
    raw::constant_string(init)
}
