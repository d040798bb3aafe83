//! `NULL` for pointer parameters: the object a pointer parameter points into (a `Pointee`
//! base) may be no object at all, when the caller passed `NULL`.
//!
//! Each `Pointee` base has a *null flag*, an arbitrary boolean defined at the entry (a havoc
//! that names the parameter), true exactly when the parameter is `NULL`. So a test
//! `p == NULL`, the dereferences after it and the assertions it guards all speak of one
//! value, and a path that returned early on `src == NULL` carries `src != NULL` on.
//!
//! - `p + o == NULL` (an `icmp eq`/`ne` with the null constant) is `null(p) && o == 0`:
//!   no offset from an object reaches address zero without leaving the object first, and
//!   `NULL + o` for `o != 0` is undefined and not zero. At a constant offset it is
//!   `null(p)` itself or false, so the interval pass keeps what a branch says of it.
//! - `NullDeref` (`--checks memory`) before each access through a pointer into a `Pointee`
//!   base: `null(p)` is zero. Pointers into locals, globals and allocated objects are never
//!   `NULL` (an allocation is assumed to succeed, see `sizes.rs`), and need no check.

use inkwell::llvm_sys::prelude::*;

use super::Lifter;
use crate::ir::{
    Address, BaseId, BinOp, CmpPred, Const, HavocReason, Inst, Operand, SourceLoc, Ty,
};

impl Lifter {
    /// Defines at the entry (in `piece`) whether each pointer parameter is `NULL`.
    pub(super) fn define_null_flags(&mut self, piece: usize) {
        // `main`'s `argv` points to the arguments' array, never `NULL` (C11 5.1.2.2.1).
        if self.name == "main" {
            return;
        }
        for (base, param) in self.memory.pointer_params() {
            let dest = self.synthetic_value(Ty::BOOL, &format!("null.{param}"));
            let reason = HavocReason::NullParam { param };
            self.push(piece, Inst::Havoc { dest, reason }, None);
            self.memory.null.insert(base, dest);
        }
    }

    /// Whether `base` is `NULL` (an `i1`), when it may be.
    fn is_null_base(&self, base: BaseId) -> Option<Operand> {
        self.memory.null.get(&base).map(|v| Operand::Value(*v))
    }

    /// `icmp eq|ne ptr, null` for `ptr` into a pointer parameter's base: `null(p) && o == 0`
    /// (or its negation). False when `ptr` is not such a pointer, and nothing was emitted.
    pub(super) fn lift_null_comparison(
        &mut self,
        piece: usize,
        inst: LLVMValueRef,
        ptr: LLVMValueRef,
        equal: bool,
        loc: &Option<SourceLoc>,
    ) -> bool {
        let Some(addr) = self.address(ptr) else {
            return false;
        };
        let Some(is_null) = self.null_at(piece, &addr, loc) else {
            return false;
        };
        self.assign(piece, inst, super::pointers::equality(is_null, equal), loc);
        true
    }

    /// Whether the pointer `addr` is `NULL` (an `i1`): its base is (a pointer parameter's
    /// object) and its offset zero; `None` when the base is never `NULL`.
    pub(super) fn null_at(
        &mut self,
        piece: usize,
        addr: &Address,
        loc: &Option<SourceLoc>,
    ) -> Option<Operand> {
        let null = self.is_null_base(addr.base)?;
        // At a constant offset the flag alone decides: a domain without relations (the
        // interval pass) keeps what a branch on the flag says of it, not of a conjunction.
        if let Operand::Const(c) = addr.offset {
            return Some(if c.bits == 0 {
                null
            } else {
                Operand::Const(Const::bool(false))
            });
        }
        let width = self.pointer_width();
        let offset = self.pointer_sized(piece, addr.offset.clone(), width, loc);
        let zero = Operand::Const(Const::new(Ty { width }, 0));
        let at_start = self.compare(piece, CmpPred::Eq, offset, zero, loc);
        Some(self.binary(piece, BinOp::And, (null, at_start), Ty::BOOL, loc))
    }

    /// The condition of the `NullDeref` check of an access through `addr`: its base is not
    /// `NULL`; `None` when the base is never `NULL`.
    pub(super) fn not_null(
        &mut self,
        piece: usize,
        addr: &Address,
        loc: &Option<SourceLoc>,
    ) -> Option<Operand> {
        let null = self.is_null_base(addr.base)?;
        let not = Operand::Const(Const::bool(true));
        Some(self.binary(piece, BinOp::Xor, (null, not), Ty::BOOL, loc))
    }
}
