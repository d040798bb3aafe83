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
//! memory checks, see `pointers.rs`); a select of two of these; for pointer arithmetic on a
//! pointer with a word, nonzero when that word is (an object does not hold address zero, as
//! for a parameter's object whatever the offset), else arbitrary; otherwise an arbitrary
//! value. A nonzero word is above zero read unsigned, which a convex domain keeps at a loop
//! head; so a word is compared with zero unsigned (`w <=u 0` for `w == 0`, `w >u 0` for
//! `w != 0`, the same truth), which gives every word the unsigned reading
//! (`ir::interp`). Nothing else is claimed of a word: two words are not compared as
//! addresses.
//!
//! Words cost values and memory operations, so a function has them only when it compares
//! a loaded pointer (or arithmetic on one) with `NULL`, or passes one to a callee whose
//! requirement asks whether it is `NULL` or reads a field (`requirements.rs`), and only
//! those loads read one, and the loads whose pointer is stored back (`ip += n`,
//! `p = p->next`); elsewhere a stored pointer is an arbitrary integer.

use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::LLVMOpcode;

use super::contract::Input;
use super::memory::strip_casts;
use super::Lifter;
use crate::frontend::raw;
use crate::ir::{Address, CmpPred, Const, Expr, HavocReason, Inst, MemOp, Operand, SourceLoc, Ty};

/// How deep selects of pointers are followed for a word.
const MAX_DEPTH: u32 = 4;

impl Lifter {
    /// Finds the pointer loads whose value (through casts and pointer arithmetic) is
    /// compared with `NULL`, and, when there are any, the loads whose value is stored back
    /// the same way (`ip += n`, `p = p->next`), so that a pointer walked in memory keeps
    /// its word.
    pub(super) fn collect_compared_loads(&mut self) {
        let mut stored = Vec::new();
        let mut requires_words = false;
        for block in &self.llvm_blocks {
            for inst in raw::instructions(*block) {
                match raw::opcode(inst) {
                    LLVMOpcode::LLVMICmp => {
                        let (a, b) = (raw::operand(inst, 0), raw::operand(inst, 1));
                        if !raw::is_pointer(raw::type_of(a)) {
                            continue;
                        }
                        let other = match (super::pointers::is_null(a), super::pointers::is_null(b))
                        {
                            (false, true) => a,
                            (true, false) => b,
                            _ => continue,
                        };
                        if let Some(load) = walked_load(other) {
                            self.memory.compared_loads.insert(load);
                        }
                    }
                    LLVMOpcode::LLVMStore => {
                        let value = raw::operand(inst, 0);
                        if raw::is_pointer(raw::type_of(value)) {
                            stored.extend(walked_load(value));
                        }
                    }
                    LLVMOpcode::LLVMCall if self.reads_pointer_arguments(inst) => {
                        // A requirement at this call asks whether an argument is `NULL`,
                        // or reads a callee's field, which may hold a stored pointer.
                        requires_words = true;
                        for k in 0..raw::num_args(inst) {
                            let arg = raw::operand(inst, k);
                            if raw::is_pointer(raw::type_of(arg)) {
                                self.memory.compared_loads.extend(walked_load(arg));
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        self.memory.words = requires_words || !self.memory.compared_loads.is_empty();
        if self.memory.words {
            self.memory.compared_loads.extend(stored);
        }
    }

    /// Whether `call` is one where a requirement of its callee reads a pointer argument's
    /// null flag or a field of its object (`requirements.rs`).
    fn reads_pointer_arguments(&self, call: LLVMValueRef) -> bool {
        let Some(callee) = raw::called_function(call) else {
            return false;
        };
        self.requirements
            .get(&raw::name(callee))
            .is_some_and(|list| {
                list.iter()
                    .flat_map(|r| &r.disjuncts)
                    .flat_map(|b| &b.terms)
                    .any(|(input, _, _)| matches!(input, Input::Null(_) | Input::Field { .. }))
            })
    }

    /// Whether pointer `ptr`, not described by an address, is `NULL`: its word against zero
    /// (an `i1`), when it was loaded with one (or is arithmetic on one).
    pub(super) fn null_by_word(
        &mut self,
        piece: usize,
        ptr: LLVMValueRef,
        loc: &Option<SourceLoc>,
    ) -> Option<Operand> {
        let (word, ty) = self.loaded_word(piece, ptr, loc)?;
        let zero = Operand::Const(Const::new(ty, 0));
        Some(self.compare(piece, CmpPred::Ule, word, zero, loc))
    }

    /// The word of pointer `ptr` and its type, when `ptr` was loaded with one (or is
    /// arithmetic on such a load).
    fn loaded_word(
        &mut self,
        piece: usize,
        ptr: LLVMValueRef,
        loc: &Option<SourceLoc>,
    ) -> Option<(Operand, Ty)> {
        let root = walked_load(ptr)?;
        let &w = self.memory.word_of.get(&root)?;
        let ty = self.values[w.index()].ty;
        Some((self.word(piece, ptr, ty, loc, 0)?, ty))
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
        if !self.memory.words {
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
        if let Some(addr) = self.address(p) {
            let is_null = self.null_at(piece, &addr, loc)?;
            let nonzero = self.nonzero_word(piece, ty, loc);
            let zero = Operand::Const(Const::new(ty, 0));
            return Some(self.select_word(piece, ty, is_null, zero, nonzero, loc));
        }
        // Pointer arithmetic on a pointer with a word: a pointer into an object stays
        // nonzero (as for a parameter's object, whatever the offset); from `NULL`, it is
        // `NULL` or not by its offset, which is not followed here.
        if raw::is_instruction(p) && super::memory::is_gep(p) && depth < MAX_DEPTH {
            let from = self.word(piece, raw::operand(p, 0), ty, loc, depth + 1)?;
            let zero = Operand::Const(Const::new(ty, 0));
            let from_null = self.compare(piece, CmpPred::Ule, from, zero, loc);
            let any = self.synthetic_value(ty, "word");
            let reason = HavocReason::Unsupported {
                what: "a pointer's address".into(),
            };
            self.push(piece, Inst::Havoc { dest: any, reason }, loc.clone());
            let nonzero = self.nonzero_word(piece, ty, loc);
            let any = Operand::Value(any);
            return Some(self.select_word(piece, ty, from_null, any, nonzero, loc));
        }
        None
    }

    /// `cond ? on_true : on_false`, a new word.
    fn select_word(
        &mut self,
        piece: usize,
        ty: Ty,
        cond: Operand,
        on_true: Operand,
        on_false: Operand,
        loc: &Option<SourceLoc>,
    ) -> Operand {
        let dest = self.synthetic_value(ty, "word");
        let expr = Expr::Select {
            cond,
            on_true,
            on_false,
        };
        self.push(piece, Inst::Assign { dest, expr }, loc.clone());
        Operand::Value(dest)
    }

    /// A new arbitrary nonzero word: the address of an object, which the model does not pick
    /// (above zero read unsigned, which a convex domain keeps where `!= 0` is lost).
    fn nonzero_word(&mut self, piece: usize, ty: Ty, loc: &Option<SourceLoc>) -> Operand {
        let dest = self.synthetic_value(ty, "address");
        let reason = HavocReason::Unsupported {
            what: "a pointer's address".into(),
        };
        self.push(piece, Inst::Havoc { dest, reason }, loc.clone());
        let zero = Operand::Const(Const::new(ty, 0));
        let cond = self.compare(piece, CmpPred::Ugt, Operand::Value(dest), zero, loc);
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
        let Some((lhs, ty)) = self.loaded_word(piece, ptr, loc) else {
            return false;
        };
        let pred = if equal { CmpPred::Ule } else { CmpPred::Ugt };
        let rhs = Operand::Const(Const::new(ty, 0));
        self.assign(piece, inst, Expr::Cmp { pred, lhs, rhs }, loc);
        true
    }
}

/// The load a pointer comes from through casts and pointer arithmetic (`(char *)p->buf + i`),
/// if any.
fn walked_load(ptr: LLVMValueRef) -> Option<LLVMValueRef> {
    let mut p = strip_casts(ptr);
    for _ in 0..=MAX_DEPTH {
        if !raw::is_instruction(p) {
            return None;
        }
        if raw::opcode(p) == LLVMOpcode::LLVMLoad {
            return Some(p);
        }
        if !super::memory::is_gep(p) {
            return None;
        }
        p = strip_casts(raw::operand(p, 0));
    }
    None
}
