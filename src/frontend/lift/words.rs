//! Pointers held in memory, by whether they are `NULL`.
//!
//! A store of a pointer writes its *word*: an integer of the pointer's size that is zero
//! exactly when the pointer is `NULL`, and otherwise any nonzero value (the real address is
//! one, so a word is a value the stored bytes may hold). A load of a pointer through a
//! described address reads the word back, and a comparison of the loaded pointer with
//! `NULL` is a comparison of its word with zero: `s->next == NULL` and `a[i] != 0` speak of
//! what was stored there, through the cells and segments of the memory model.
//!
//! The word of a pointer stored is: zero for the null constant; the word it was loaded with
//! for a loaded pointer; for a pointer into a pointer parameter's object, zero exactly when
//! the parameter is `NULL` and the offset zero (`null.rs`); an arbitrary nonzero value for a
//! pointer that is never `NULL` (into a local, a defined global, an allocated object under
//! memory checks, see `pointers.rs`); a select of two of these; otherwise an arbitrary value.
//! Nothing else is claimed of a word: two words are not compared as addresses.
//!
//! Words cost values and memory operations, so a function has them only when it compares
//! a loaded pointer with `NULL`, and only those loads read one; elsewhere a stored pointer
//! is an arbitrary integer, as before.

use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::LLVMOpcode;

use super::memory::strip_casts;
use super::Lifter;
use crate::frontend::raw;
use crate::ir::{Address, CmpPred, Const, Expr, HavocReason, Inst, MemOp, Operand, SourceLoc, Ty};

/// How deep selects of pointers are followed for a word.
const MAX_DEPTH: u32 = 4;

impl Lifter {
    /// Finds the pointer loads whose value (through casts) is compared with `NULL`.
    pub(super) fn collect_compared_loads(&mut self) {
        for block in &self.llvm_blocks {
            for inst in raw::instructions(*block) {
                if raw::opcode(inst) != LLVMOpcode::LLVMICmp {
                    continue;
                }
                let (a, b) = (raw::operand(inst, 0), raw::operand(inst, 1));
                if !raw::is_pointer(raw::type_of(a)) {
                    continue;
                }
                let other = match (super::pointers::is_null(a), super::pointers::is_null(b)) {
                    (false, true) => a,
                    (true, false) => b,
                    _ => continue,
                };
                let p = strip_casts(other);
                if raw::is_instruction(p) && raw::opcode(p) == LLVMOpcode::LLVMLoad {
                    self.memory.compared_loads.insert(p);
                }
            }
        }
    }

    /// Whether `inst`, a load of a pointer, reads a word.
    pub(super) fn wants_word(&self, inst: LLVMValueRef) -> bool {
        self.memory.compared_loads.contains(&inst)
    }

    /// A load of a pointer from `addr`: its word, kept for the comparisons of the pointer.
    pub(super) fn load_pointer_word(
        &mut self,
        piece: usize,
        inst: LLVMValueRef,
        addr: Address,
        loc: &Option<SourceLoc>,
    ) {
        let Some(ty) = self.word_ty(raw::type_of(inst)) else {
            return;
        };
        let dest = self.synthetic_value(ty, "word");
        self.push(piece, Inst::Mem(MemOp::Load { dest, addr }), loc.clone());
        self.memory.word_of.insert(inst, dest);
    }

    /// The integer type of the words of pointers of type `ty` (its store size).
    pub(super) fn word_ty(&self, ty: LLVMTypeRef) -> Option<Ty> {
        match self.store_size(ty) {
            Some(size @ 1..=8) => Some(Ty::int(8 * size as u32)),
            _ => None,
        }
    }

    /// The word of pointer `ptr` to store (see the module's documentation), of type `ty`.
    pub(super) fn pointer_word(
        &mut self,
        piece: usize,
        ptr: LLVMValueRef,
        ty: Ty,
        loc: &Option<SourceLoc>,
    ) -> Operand {
        if self.memory.compared_loads.is_empty() {
            return Operand::Undef(ty); // no load reads a word back
        }
        self.word(piece, ptr, ty, loc, 0)
            .unwrap_or(Operand::Undef(ty))
    }

    fn word(
        &mut self,
        piece: usize,
        ptr: LLVMValueRef,
        ty: Ty,
        loc: &Option<SourceLoc>,
        depth: u32,
    ) -> Option<Operand> {
        let p = strip_casts(ptr);
        if super::pointers::is_null(p) {
            return Some(Operand::Const(Const::new(ty, 0)));
        }
        if let Some(&w) = self.memory.word_of.get(&p) {
            return (self.values[w.index()].ty == ty).then_some(Operand::Value(w));
        }
        if self.never_null(p) || (self.memory_checks && super::memory::allocation_site(p).is_some())
        {
            return Some(self.nonzero_word(piece, ty, loc));
        }
        if raw::is_instruction(p) && raw::opcode(p) == LLVMOpcode::LLVMSelect && depth < MAX_DEPTH {
            let cond = self.operand(raw::operand(p, 0), loc)?;
            let on_true = self.word(piece, raw::operand(p, 1), ty, loc, depth + 1)?;
            let on_false = self.word(piece, raw::operand(p, 2), ty, loc, depth + 1)?;
            let dest = self.synthetic_value(ty, "word");
            let expr = Expr::Select {
                cond,
                on_true,
                on_false,
            };
            self.push(piece, Inst::Assign { dest, expr }, loc.clone());
            return Some(Operand::Value(dest));
        }
        let addr = self.address(p)?;
        let is_null = self.null_at(piece, &addr, loc)?;
        let nonzero = self.nonzero_word(piece, ty, loc);
        let dest = self.synthetic_value(ty, "word");
        let expr = Expr::Select {
            cond: is_null,
            on_true: Operand::Const(Const::new(ty, 0)),
            on_false: nonzero,
        };
        self.push(piece, Inst::Assign { dest, expr }, loc.clone());
        Some(Operand::Value(dest))
    }

    /// A new arbitrary nonzero word: the address of an object, which the model does not pick.
    fn nonzero_word(&mut self, piece: usize, ty: Ty, loc: &Option<SourceLoc>) -> Operand {
        let dest = self.synthetic_value(ty, "address");
        let reason = HavocReason::Unsupported {
            what: "a pointer's address".into(),
        };
        self.push(piece, Inst::Havoc { dest, reason }, loc.clone());
        let zero = Operand::Const(Const::new(ty, 0));
        let cond = self.compare(piece, CmpPred::Ne, Operand::Value(dest), zero, loc);
        self.push(piece, Inst::Assume { cond }, loc.clone());
        Operand::Value(dest)
    }

    /// `icmp eq|ne ptr, null` for a pointer loaded with its word: the word against zero.
    /// False when `ptr` has no word, and nothing was emitted.
    pub(super) fn lift_word_comparison(
        &mut self,
        piece: usize,
        inst: LLVMValueRef,
        ptr: LLVMValueRef,
        equal: bool,
        loc: &Option<SourceLoc>,
    ) -> bool {
        let Some(&w) = self.memory.word_of.get(&strip_casts(ptr)) else {
            return false;
        };
        let ty = self.values[w.index()].ty;
        let pred = if equal { CmpPred::Eq } else { CmpPred::Ne };
        let rhs = Operand::Const(Const::new(ty, 0));
        let lhs = Operand::Value(w);
        self.assign(piece, inst, Expr::Cmp { pred, lhs, rhs }, loc);
        true
    }
}
