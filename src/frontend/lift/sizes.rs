//! The size of each base's object ([`ObjectSize`]): a constant for a local of fixed size
//! and a defined global; the size operand of `malloc(n)`, `calloc(n, m)` (when one factor
//! is constant, so that the product cannot wrap unseen) and of a variable-length `alloca`,
//! as an `i64` value defined where the object is allocated; unknown for a global only
//! declared here.
//!
//! The object a pointer parameter points into has, under `--checks memory`, an arbitrary
//! size `size(p) >= 0` defined at the entry: the bytes from `p` to the end of its object,
//! which the caller decides. A bounds check through `p` is then a condition on it, and a
//! precondition may state it (`holds if 4*n <= size(a)`). An access before `p` (a
//! negative offset) is outside what this describes and stays unknown.
//!
//! An allocation is assumed to succeed (its result is not `NULL`), as SV-COMP's
//! memory-safety tasks and the address sanitizer's allocator do.

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::target::LLVMABISizeOfType;
use inkwell::llvm_sys::LLVMOpcode;

use super::Lifter;
use crate::frontend::raw;
use crate::ir::{
    BaseId, BinOp, CastOp, CmpPred, Const, Expr, HavocReason, Inst, ObjectSize, Operand, SourceLoc,
    Ty,
};

const I64: Ty = Ty { width: 64 };

/// How the size of an allocation is computed: `count * unit` bytes, or `a * b` of a call.
enum Allocated {
    Fixed(u64),
    /// `count * unit` bytes, `count` an unsigned operand of the instruction.
    Scaled {
        count: LLVMValueRef,
        unit: u64,
    },
    Unknown,
}

/// The bytes `object` (an `alloca`, a global, a `malloc`/`calloc` call, a parameter) has.
fn allocated(object: LLVMValueRef, target: LLVMTargetDataRefOpt) -> Allocated {
    let Some(target) = target else {
        return Allocated::Unknown;
    };
    unsafe {
        if !LLVMIsAAllocaInst(object).is_null() {
            let unit = LLVMABISizeOfType(target, LLVMGetAllocatedType(object));
            let count = raw::operand(object, 0);
            return match raw::const_int_bits(count) {
                Some(n) => fixed(unit, n),
                None => Allocated::Scaled { count, unit },
            };
        }
        if !LLVMIsAGlobalVariable(object).is_null() {
            if LLVMGetInitializer(object).is_null() {
                return Allocated::Unknown; // declared only: its type may be incomplete
            }
            return Allocated::Fixed(LLVMABISizeOfType(target, LLVMGlobalGetValueType(object)));
        }
        if raw::is_instruction(object) && raw::opcode(object) == LLVMOpcode::LLVMCall {
            let name = raw::called_function(object).map(raw::name);
            return match (name.as_deref(), raw::num_args(object)) {
                (Some("malloc"), 1) => scaled(raw::operand(object, 0), 1),
                (Some("calloc"), 2) => {
                    let (n, m) = (raw::operand(object, 0), raw::operand(object, 1));
                    match (raw::const_int_bits(n), raw::const_int_bits(m)) {
                        (Some(a), Some(b)) => fixed(a, b),
                        (Some(a), None) => scaled(m, a),
                        (None, Some(b)) => scaled(n, b),
                        (None, None) => Allocated::Unknown,
                    }
                }
                _ => Allocated::Unknown,
            };
        }
    }
    Allocated::Unknown
}

type LLVMTargetDataRefOpt = Option<inkwell::llvm_sys::target::LLVMTargetDataRef>;

fn fixed(unit: u64, count: u64) -> Allocated {
    match unit.checked_mul(count) {
        Some(n) if n <= i64::MAX as u64 => Allocated::Fixed(n),
        _ => Allocated::Unknown,
    }
}

fn scaled(count: LLVMValueRef, unit: u64) -> Allocated {
    match raw::const_int_bits(count) {
        Some(n) => fixed(unit, n),
        None => Allocated::Scaled { count, unit },
    }
}

impl Lifter {
    /// The size of the object of a new base (`object` its LLVM object): a new `i64` value
    /// when it is computed at the allocation ([`Lifter::define_object_size`]).
    pub(super) fn object_size_of(&mut self, object: LLVMValueRef, name: &str) -> ObjectSize {
        match allocated(object, self.memory.target) {
            Allocated::Fixed(n) => ObjectSize::Bytes(n),
            Allocated::Scaled { .. } => {
                ObjectSize::Value(self.new_value(I64, format!("{name}.size"), None))
            }
            Allocated::Unknown => ObjectSize::Unknown,
        }
    }

    /// At an allocation (an `alloca`, a `malloc` or `calloc` call) of a base whose size is a
    /// value: defines it, `zext(count) * unit` with `count * unit` known not to wrap in
    /// `i64` (a `count` of at most 32 bits times a unit below 2^31), arbitrary otherwise.
    pub(super) fn define_object_size(
        &mut self,
        piece: usize,
        base: BaseId,
        object: LLVMValueRef,
        loc: &Option<SourceLoc>,
    ) {
        let ObjectSize::Value(dest) = self.memory.bases[base.index()].size else {
            return;
        };
        let Allocated::Scaled { count, unit } = allocated(object, self.memory.target) else {
            return;
        };
        let count_ty = self
            .operand(count, loc)
            .map(|c| (c, raw::int_width(raw::type_of(count))));
        let expr = match count_ty {
            Some((count, Some(w))) if w <= 32 && unit < 1 << 31 => {
                let wide = self.synthetic_value(I64, "count");
                let cast = if w == 64 {
                    Expr::Use(count)
                } else {
                    Expr::Cast {
                        op: CastOp::ZExt,
                        arg: count,
                    }
                };
                self.push(
                    piece,
                    Inst::Assign {
                        dest: wide,
                        expr: cast,
                    },
                    loc.clone(),
                );
                Expr::Binary {
                    op: BinOp::Mul,
                    lhs: Operand::Value(wide),
                    rhs: Operand::Const(Const::new(I64, unit as i128)),
                    flags: Default::default(),
                }
            }
            Some((count, Some(64))) if unit == 1 => Expr::Use(count),
            _ => Expr::Use(Operand::Undef(I64)),
        };
        self.push(piece, Inst::Assign { dest, expr }, loc.clone());
    }

    /// Defines at the entry (in `piece`) the size of each pointer parameter's object, an
    /// arbitrary `i64` of at least 0 (`--checks memory` only: nothing else reads it).
    pub(super) fn define_param_sizes(&mut self, piece: usize) {
        // `main`'s `argv`: its size is not a caller's choice to state.
        if !self.memory_checks || self.name == "main" {
            return;
        }
        for (base, param) in self.memory.pointer_params() {
            let dest = self.synthetic_value(I64, &format!("size.{param}"));
            let reason = HavocReason::SizeParam { param };
            self.push(piece, Inst::Havoc { dest, reason }, None);
            let zero = Operand::Const(Const::new(I64, 0));
            let cond = self.compare(piece, CmpPred::Sge, Operand::Value(dest), zero, &None);
            self.push(piece, Inst::Assume { cond }, None);
            self.memory.bases[base.index()].size = ObjectSize::Value(dest);
        }
    }
}
