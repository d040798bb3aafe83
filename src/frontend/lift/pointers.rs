//! Pointer values beyond chains of `getelementptr`: phis and selects of pointers into one
//! base, comparisons of pointers, and differences of pointers converted to integers.
//!
//! - A pointer phi or select whose incoming pointers all derive from one base (through
//!   casts, `getelementptr`s and other such phis and selects) is described by that base and
//!   an `i64` offset that is itself a phi or select (`p++` loops, `while (p < end)`). An
//!   incoming pointer whose offset is not described gives an arbitrary offset in that base.
//!   Locals allocated in a cycle of the CFG are left out: each execution of their `alloca`
//!   is a new object, and a phi could mix the objects of two iterations.
//! - `icmp` of two pointers described in one base compares their offsets, relational
//!   predicates as signed numbers (exact while the addresses do not wrap around the address
//!   space; C orders only pointers into one object); in a 32-bit address space both offsets
//!   are truncated first. A pointer into a local, a defined global or (with memory checks)
//!   an allocated object compared with `NULL` is decided: such an address is never null
//!   (an allocation is assumed to succeed); one into a pointer parameter's object is null
//!   when the parameter is (`null.rs`).
//! - `sub (ptrtoint p), (ptrtoint q)` of pointers described in one base is the difference
//!   of their offsets.
//! - Pointers into two pointer parameters' objects are compared (and subtracted) as their
//!   addresses: each parameter's address is an arbitrary `i64` defined at the entry
//!   (`HavocReason::AddressParam`), in `[0, 2^w)` for `w`-bit pointers and below `2^63`
//!   (user space) for 64-bit ones, and a pointer `p + o` is `address(p) + o`, without
//!   wrapping (as for offsets in one object). So the comparison holds whatever the caller
//!   passed (one object or two), and a check that holds only when `lowPrefix <= dst` says so
//!   in its precondition, which a caller passing pointers into one object meets
//!   (`requirements.rs`).

use std::collections::HashMap;

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::target::LLVMPointerSize;
use inkwell::llvm_sys::{LLVMLinkage, LLVMOpcode};

use super::memory::{in_cycle, is_gep, strip_casts};
use super::Lifter;
use crate::frontend::raw;
use crate::ir::{
    Address, BaseId, BinOp, CastOp, CmpPred, Const, Expr, HavocReason, Inst, ObjectSize, Operand,
    SourceLoc, Ty, ValueId,
};

const I64: Ty = Ty { width: 64 };

/// What is known of a pointer phi or select during the search for its base.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Origin {
    /// Nothing yet (only other phis on a cycle seen so far).
    Unseen,
    /// Every incoming pointer derives from this base.
    Base(BaseId),
    /// Incoming pointers of several bases, or of none.
    Mixed,
}

impl Origin {
    fn join(self, other: Origin) -> Origin {
        match (self, other) {
            (Origin::Unseen, x) | (x, Origin::Unseen) => x,
            (Origin::Base(a), Origin::Base(b)) if a == b => Origin::Base(a),
            _ => Origin::Mixed,
        }
    }
}

/// Whether `inst` is a phi or select of pointers.
fn is_pointer_merge(inst: LLVMValueRef) -> bool {
    matches!(
        raw::opcode(inst),
        LLVMOpcode::LLVMPHI | LLVMOpcode::LLVMSelect
    ) && raw::is_pointer(raw::type_of(inst))
}

/// The pointers a phi or select merges.
fn merged(inst: LLVMValueRef) -> Vec<LLVMValueRef> {
    if raw::opcode(inst) == LLVMOpcode::LLVMPHI {
        raw::incomings(inst).into_iter().map(|(v, _)| v).collect()
    } else {
        vec![raw::operand(inst, 1), raw::operand(inst, 2)]
    }
}

/// `ptr` without its casts and `getelementptr`s.
fn root(mut ptr: LLVMValueRef) -> LLVMValueRef {
    for _ in 0..64 {
        ptr = strip_casts(ptr);
        if !is_gep(ptr) {
            return ptr;
        }
        ptr = raw::operand(ptr, 0);
    }
    ptr
}

/// The result of an `icmp eq` (`equal`) or `ne` whose operands are equal when `value` is
/// true.
pub(super) fn equality(value: Operand, equal: bool) -> Expr {
    if equal {
        Expr::Use(value)
    } else {
        Expr::Binary {
            op: BinOp::Xor,
            lhs: value,
            rhs: Operand::Const(Const::bool(true)),
            flags: Default::default(),
        }
    }
}

/// How long an object lives, for comparisons of pointers into two objects.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Lifetime {
    /// As long as any pointer into it is compared (a global, a local of the whole call).
    Always,
    /// While its liveness cell holds 1 (an allocated object).
    WhileLive,
}

fn const_i64(value: i128) -> Operand {
    Operand::Const(Const::new(I64, value))
}

/// Whether `value` is the constant null pointer.
pub(super) fn is_null(value: LLVMValueRef) -> bool {
    unsafe { raw::is_pointer(raw::type_of(value)) && !LLVMIsAConstantPointerNull(value).is_null() }
}

impl Lifter {
    /// Finds the pointer phis and selects of one base and gives each an `i64` offset value.
    pub(super) fn collect_pointer_merges(&mut self) {
        let merges: Vec<LLVMValueRef> = self
            .llvm_blocks
            .iter()
            .flat_map(|b| raw::instructions(*b))
            .filter(|i| is_pointer_merge(*i))
            .collect();
        let mut origin: HashMap<LLVMValueRef, Origin> =
            merges.iter().map(|m| (*m, Origin::Unseen)).collect();
        let origin_of = |ptr: LLVMValueRef, origin: &HashMap<LLVMValueRef, Origin>| {
            let r = root(ptr);
            if let Some(o) = origin.get(&r) {
                return *o;
            }
            match self.memory.base_of.get(&r) {
                Some(&base) => {
                    let fresh_each_time = unsafe { !LLVMIsAAllocaInst(r).is_null() }
                        && in_cycle(unsafe { LLVMGetInstructionParent(r) });
                    if fresh_each_time {
                        Origin::Mixed
                    } else {
                        Origin::Base(base)
                    }
                }
                None => Origin::Mixed,
            }
        };
        // A fixpoint from below over a lattice of height three.
        let mut changed = true;
        while changed {
            changed = false;
            for &m in &merges {
                let new = merged(m)
                    .into_iter()
                    .fold(origin[&m], |acc, p| acc.join(origin_of(p, &origin)));
                if new != origin[&m] {
                    origin.insert(m, new);
                    changed = true;
                }
            }
        }
        for m in merges {
            if let Origin::Base(base) = origin[&m] {
                let name = format!("{}.offset", raw::name(m));
                let offset = self.new_value(I64, name, None);
                self.memory.merge_offset.insert(m, (base, offset));
            }
        }
    }

    /// The address of a pointer phi or select of one base.
    pub(super) fn merge_address(&self, ptr: LLVMValueRef) -> Option<Address> {
        let &(base, offset) = self.memory.merge_offset.get(&ptr)?;
        Some(Address {
            base,
            offset: Operand::Value(offset),
        })
    }

    /// The offset `ptr` has in `base`, arbitrary when it is not described.
    fn offset_in(&mut self, base: BaseId, ptr: LLVMValueRef) -> Operand {
        match self.address(ptr) {
            Some(addr) if addr.base == base => addr.offset,
            _ => Operand::Undef(I64),
        }
    }

    /// The move of a pointer phi's offset on the edge from `from`, when it has one.
    pub(super) fn merge_move(
        &mut self,
        phi: LLVMValueRef,
        from: LLVMBasicBlockRef,
    ) -> Option<(ValueId, Operand)> {
        let &(base, offset) = self.memory.merge_offset.get(&phi)?;
        let incoming = raw::incomings(phi)
            .into_iter()
            .find(|(_, b)| *b == from)
            .map(|(v, _)| v);
        let src = match incoming {
            Some(v) => self.offset_in(base, v),
            None => Operand::Undef(I64),
        };
        Some((offset, src))
    }

    /// A pointer phi (defined by its moves) or select of one base: defines its offset.
    pub(super) fn lift_pointer_merge(
        &mut self,
        piece: usize,
        inst: LLVMValueRef,
        loc: &Option<SourceLoc>,
    ) {
        let Some(&(base, offset)) = self.memory.merge_offset.get(&inst) else {
            return;
        };
        if raw::opcode(inst) == LLVMOpcode::LLVMPHI {
            self.defined[offset.index()] = true;
            return;
        }
        let cond = self
            .operand(raw::operand(inst, 0), loc)
            .unwrap_or(Operand::Undef(Ty::BOOL));
        let on_true = self.offset_in(base, raw::operand(inst, 1));
        let on_false = self.offset_in(base, raw::operand(inst, 2));
        let expr = Expr::Select {
            cond,
            on_true,
            on_false,
        };
        self.push(piece, Inst::Assign { dest: offset, expr }, loc.clone());
    }

    /// The width in bits of the module's pointers.
    pub(super) fn pointer_width(&self) -> u32 {
        match self.memory.target {
            Some(target) => 8 * unsafe { LLVMPointerSize(target) },
            None => 64,
        }
    }

    /// `offset` truncated to the pointer width (unchanged for 64-bit pointers).
    pub(super) fn pointer_sized(
        &mut self,
        piece: usize,
        offset: Operand,
        width: u32,
        loc: &Option<SourceLoc>,
    ) -> Operand {
        if width >= 64 {
            return offset;
        }
        let ty = Ty::int(width);
        if let Operand::Const(c) = offset {
            return Operand::Const(Const::new(ty, c.signed()));
        }
        let narrow = self.synthetic_value(ty, "offset");
        let expr = Expr::Cast {
            op: CastOp::Trunc,
            arg: offset,
        };
        self.push(piece, Inst::Assign { dest: narrow, expr }, loc.clone());
        Operand::Value(narrow)
    }

    /// `icmp` of two pointers: of one base, a comparison of offsets; of a local or defined
    /// global with `NULL`, a constant. False when neither, and nothing was emitted.
    pub(super) fn lift_pointer_comparison(
        &mut self,
        piece: usize,
        inst: LLVMValueRef,
        loc: &Option<SourceLoc>,
    ) -> bool {
        let (a, b) = (raw::operand(inst, 0), raw::operand(inst, 1));
        if !raw::is_pointer(raw::type_of(a)) {
            return false;
        }
        let pred = raw::int_predicate(unsafe { LLVMGetICmpPredicate(inst) });
        let against_null = match (is_null(a), is_null(b)) {
            (false, true) => Some(a),
            (true, false) => Some(b),
            _ => None,
        };
        if let Some(ptr) = against_null {
            if !matches!(pred, CmpPred::Eq | CmpPred::Ne) {
                return false;
            }
            if !self.never_null(ptr) {
                let equal = pred == CmpPred::Eq;
                return self.lift_null_comparison(piece, inst, ptr, equal, loc)
                    || self.lift_word_comparison(piece, inst, ptr, equal, loc);
            }
            let expr = Expr::Use(Operand::Const(Const::bool(pred == CmpPred::Ne)));
            self.assign(piece, inst, expr, loc);
            return true;
        }
        let (Some(x), Some(y)) = (self.address(a), self.address(b)) else {
            return false;
        };
        let signed = match pred {
            CmpPred::Ult => CmpPred::Slt,
            CmpPred::Ule => CmpPred::Sle,
            CmpPred::Ugt => CmpPred::Sgt,
            CmpPred::Uge => CmpPred::Sge,
            other => other,
        };
        if x.base != y.base {
            if let (Some(lhs), Some(rhs)) = (
                self.machine_address(piece, &x, loc),
                self.machine_address(piece, &y, loc),
            ) {
                let expr = Expr::Cmp {
                    pred: signed,
                    lhs,
                    rhs,
                };
                self.assign(piece, inst, expr, loc);
                return true;
            }
            return matches!(pred, CmpPred::Eq | CmpPred::Ne)
                && self.lift_distinct_objects_comparison(piece, inst, pred, (x, y), loc);
        }
        let width = self.pointer_width();
        let lhs = self.pointer_sized(piece, x.offset, width, loc);
        let rhs = self.pointer_sized(piece, y.offset, width, loc);
        self.assign(
            piece,
            inst,
            Expr::Cmp {
                pred: signed,
                lhs,
                rhs,
            },
            loc,
        );
        true
    }

    /// The pointer parameters' bases that the function compares with, or subtracts from,
    /// a pointer into another pointer parameter's object, or passes to a callee whose
    /// requirements read addresses (`requirements.rs`): only those need an address (each
    /// address costs a value and an assumption wherever the function's states go).
    fn compared_param_bases(&self) -> std::collections::BTreeSet<BaseId> {
        let params: std::collections::BTreeSet<BaseId> = self
            .memory
            .pointer_params()
            .into_iter()
            .map(|(b, _)| b)
            .collect();
        let mut out = std::collections::BTreeSet::new();
        for block in &self.llvm_blocks {
            for inst in raw::instructions(*block) {
                if raw::opcode(inst) == LLVMOpcode::LLVMCall && self.reads_addresses(inst) {
                    let n = raw::num_args(inst);
                    for i in 0..n {
                        let arg = raw::operand(inst, i);
                        if let Some(base) = self.base_only(arg).filter(|b| params.contains(b)) {
                            out.insert(base);
                        }
                    }
                    continue;
                }
                let (a, b) = match raw::opcode(inst) {
                    LLVMOpcode::LLVMICmp
                        if raw::is_pointer(raw::type_of(raw::operand(inst, 0))) =>
                    {
                        (raw::operand(inst, 0), raw::operand(inst, 1))
                    }
                    LLVMOpcode::LLVMSub => {
                        let int_of = |v: LLVMValueRef| {
                            (raw::is_instruction(v) && raw::opcode(v) == LLVMOpcode::LLVMPtrToInt)
                                .then(|| raw::operand(v, 0))
                        };
                        match (int_of(raw::operand(inst, 0)), int_of(raw::operand(inst, 1))) {
                            (Some(a), Some(b)) => (a, b),
                            _ => continue,
                        }
                    }
                    _ => continue,
                };
                if let (Some(x), Some(y)) = (self.base_only(a), self.base_only(b)) {
                    if x != y && params.contains(&x) && params.contains(&y) {
                        out.insert(x);
                        out.insert(y);
                    }
                }
            }
        }
        out
    }

    /// Whether the call `inst` is of a function whose requirements read an address.
    fn reads_addresses(&self, inst: LLVMValueRef) -> bool {
        let Some(callee) = raw::called_function(inst) else {
            return false;
        };
        self.requirements.get(&raw::name(callee)).is_some_and(|rs| {
            rs.iter()
                .flat_map(|r| &r.disjuncts)
                .flat_map(|b| &b.terms)
                .any(|(input, _, _)| matches!(input, super::contract::Input::Address(_)))
        })
    }

    /// The base `ptr` points into, through casts, `getelementptr`s and pointer merges of one
    /// base, before anything is lifted.
    fn base_only(&self, ptr: LLVMValueRef) -> Option<BaseId> {
        let root = root(ptr);
        if let Some(&base) = self.memory.base_of.get(&root) {
            return Some(base);
        }
        self.memory.merge_offset.get(&root).map(|&(base, _)| base)
    }

    /// Defines at the entry (in `piece`) the address of each pointer parameter the function
    /// compares across objects: an `i64` in `[0, 2^w)` for `w`-bit pointers, and below
    /// `2^63` for 64-bit ones (no user space address has its top bit set), so that signed
    /// and unsigned readings agree.
    pub(super) fn define_param_addresses(&mut self, piece: usize) {
        // `main`'s `argv` is compared with no other parameter.
        if self.name == "main" {
            return;
        }
        let width = self.pointer_width();
        let compared = self.compared_param_bases();
        for (base, param) in self.memory.pointer_params() {
            if !compared.contains(&base) {
                continue;
            }
            let dest = self.synthetic_value(I64, &format!("address.{param}"));
            let reason = HavocReason::AddressParam { param };
            self.push(piece, Inst::Havoc { dest, reason }, None);
            let value = Operand::Value(dest);
            let low = self.compare(piece, CmpPred::Sge, value, const_i64(0), &None);
            self.push(piece, Inst::Assume { cond: low }, None);
            if width < 64 {
                let top = const_i64((1i128 << width) - 1);
                let high = self.compare(piece, CmpPred::Sle, value, top, &None);
                self.push(piece, Inst::Assume { cond: high }, None);
            }
            self.memory.address.insert(base, dest);
        }
    }

    /// The address of `addr` as an `i64` when its base is a pointer parameter's object: the
    /// parameter's address plus the offset, which does not wrap (the same assumption as the
    /// comparison of two offsets in one object: an execution where it would is excluded).
    pub(super) fn machine_address(
        &mut self,
        piece: usize,
        addr: &Address,
        loc: &Option<SourceLoc>,
    ) -> Option<Operand> {
        let start = Operand::Value(*self.memory.address.get(&addr.base)?);
        if matches!(&addr.offset, Operand::Const(c) if c.signed() == 0) {
            return Some(start);
        }
        let dest = self.synthetic_value(I64, "address");
        let expr = Expr::Binary {
            op: BinOp::Add,
            lhs: start,
            rhs: addr.offset.clone(),
            // Assumed, not checked: no source operation overflows here.
            flags: crate::ir::ArithFlags {
                nsw: true,
                nosanitize: true,
                ..Default::default()
            },
        };
        self.push(piece, Inst::Assign { dest, expr }, loc.clone());
        Some(Operand::Value(dest))
    }

    /// `value` (an `i64`) truncated to `ty`.
    fn truncated(
        &mut self,
        piece: usize,
        value: Operand,
        ty: Ty,
        loc: &Option<SourceLoc>,
    ) -> Operand {
        let dest = self.synthetic_value(ty, "address");
        let expr = Expr::Cast {
            op: CastOp::Trunc,
            arg: value,
        };
        self.push(piece, Inst::Assign { dest, expr }, loc.clone());
        Operand::Value(dest)
    }

    /// `p == q` (or `!=`) of pointers into two objects that are distinct while both live:
    /// unequal while each points inside its live object (`0 <= o < size`); otherwise (one
    /// past the end of one may be the start of the next, a freed object's address may be
    /// reused) an arbitrary boolean. False when an object's lifetime or size is not known,
    /// and nothing was emitted.
    fn lift_distinct_objects_comparison(
        &mut self,
        piece: usize,
        inst: LLVMValueRef,
        pred: CmpPred,
        (x, y): (Address, Address),
        loc: &Option<SourceLoc>,
    ) -> bool {
        let (Some(lx), Some(ly)) = (self.lifetime(x.base), self.lifetime(y.base)) else {
            return false;
        };
        let mut may_meet = Vec::new();
        for (addr, lifetime) in [(x, lx), (y, ly)] {
            let Some(size) = self.size_operand(addr.base) else {
                return false;
            };
            // Outside its object (or one past its end) it may be any other object's address.
            let before = self.compare(piece, CmpPred::Slt, addr.offset.clone(), const_i64(0), loc);
            let past = self.compare(piece, CmpPred::Sge, addr.offset, size, loc);
            let outside = self.binary(piece, BinOp::Or, (before, past), Ty::BOOL, loc);
            may_meet.push(outside);
            if lifetime == Lifetime::WhileLive {
                let live = self
                    .is_live(piece, addr.base, loc)
                    .expect("an allocated object has a liveness cell");
                let dead = self.not(piece, live, loc);
                may_meet.push(dead);
            }
        }
        let may_meet = may_meet
            .into_iter()
            .reduce(|a, b| self.binary(piece, BinOp::Or, (a, b), Ty::BOOL, loc))
            .expect("two addresses");
        let reason = HavocReason::Unsupported {
            what: "pointer comparison".into(),
        };
        let chosen = self.synthetic_value(Ty::BOOL, "same.address");
        self.push(
            piece,
            Inst::Havoc {
                dest: chosen,
                reason,
            },
            loc.clone(),
        );
        let equal = self.binary(
            piece,
            BinOp::And,
            (Operand::Value(chosen), may_meet),
            Ty::BOOL,
            loc,
        );
        self.assign(piece, inst, equality(equal, pred == CmpPred::Eq), loc);
        true
    }

    /// How long the object of `base` lives, when it is an object of its own that no other
    /// object of the function overlaps while it lives: a defined global, a local that lives
    /// through the whole call (in the entry block, without lifetime markers, so that no other
    /// local reuses its slot), or (with memory checks) an allocated object, live while its
    /// liveness cell says so.
    fn lifetime(&self, base: BaseId) -> Option<Lifetime> {
        if self.memory.indeterminate.contains(&base) {
            return None;
        }
        let object = self.memory.object_of(base)?;
        unsafe {
            if self.memory_checks && self.memory.live.contains_key(&base) {
                return Some(Lifetime::WhileLive);
            }
            if !LLVMIsAGlobalVariable(object).is_null() {
                let defined = !LLVMGetInitializer(object).is_null()
                    && LLVMGetLinkage(object) != LLVMLinkage::LLVMExternalWeakLinkage;
                return defined.then_some(Lifetime::Always);
            }
            if !LLVMIsAAllocaInst(object).is_null() {
                let entry = LLVMGetEntryBasicBlock(self.func);
                // Markers let another local reuse its slot once its lifetime ends.
                let whole_call = LLVMGetInstructionParent(object) == entry
                    && crate::frontend::normalize::lifetime_markers(object, "llvm.lifetime.")
                        .is_empty();
                return whole_call.then_some(Lifetime::Always);
            }
        }
        None
    }

    /// The size of `base`'s object as an `i64` operand, when known.
    pub(super) fn size_operand(&self, base: BaseId) -> Option<Operand> {
        match self.memory.bases[base.index()].size {
            ObjectSize::Bytes(n) => Some(const_i64(n as i128)),
            ObjectSize::Value(v) => Some(Operand::Value(v)),
            ObjectSize::Unknown => None,
        }
    }

    /// Whether `ptr` derives from a local, a defined global or (with memory checks, whose
    /// replays abort when an allocation fails) an allocation site with a base, whose address
    /// is never null (an offset from it that reached zero would have left the object first;
    /// an allocation is assumed to succeed, see `sizes.rs`).
    pub(super) fn never_null(&self, ptr: LLVMValueRef) -> bool {
        let r = root(ptr);
        let object = match self.memory.merge_offset.get(&r) {
            // Every incoming pointer derives from this base (`collect_pointer_merges`).
            Some(&(base, _)) => self.memory.object_of(base),
            // A pointer loaded from a local that holds pointers into one base (`held.rs`).
            None => match self.held_base_of(r) {
                Some(base) => self.memory.object_of(base),
                None => Some(r),
            },
        };
        object.is_some_and(|o| unsafe {
            (self.memory_checks && self.memory.heap.contains_key(&o))
                || !LLVMIsAAllocaInst(o).is_null()
                || (!LLVMIsAGlobalVariable(o).is_null()
                    && !LLVMGetInitializer(o).is_null()
                    && LLVMGetLinkage(o) != LLVMLinkage::LLVMExternalWeakLinkage)
        })
    }

    /// `sub (ptrtoint p), (ptrtoint q)` with `p` and `q` described in one base: the
    /// difference of their offsets. False when not that, and nothing was emitted.
    pub(super) fn lift_pointer_difference(
        &mut self,
        piece: usize,
        inst: LLVMValueRef,
        loc: &Option<SourceLoc>,
    ) -> bool {
        let pointer_of = |v: LLVMValueRef| {
            let is_ptrtoint = unsafe {
                (raw::is_instruction(v) && raw::opcode(v) == LLVMOpcode::LLVMPtrToInt)
                    || (!LLVMIsAConstantExpr(v).is_null()
                        && LLVMGetConstOpcode(v) == LLVMOpcode::LLVMPtrToInt)
            };
            is_ptrtoint.then(|| raw::operand(v, 0))
        };
        let (Some(p), Some(q)) = (
            pointer_of(raw::operand(inst, 0)),
            pointer_of(raw::operand(inst, 1)),
        ) else {
            return false;
        };
        let Some(&dest) = self.value_of.get(&inst) else {
            return false;
        };
        let (Some(x), Some(y)) = (self.address(p), self.address(q)) else {
            return false;
        };
        let ty = self.values[dest.index()].ty;
        if x.base != y.base {
            // Two parameters' objects: the difference of their machine addresses.
            if ty.width > 64 {
                return false;
            }
            let (Some(a), Some(b)) = (
                self.machine_address(piece, &x, loc),
                self.machine_address(piece, &y, loc),
            ) else {
                return false;
            };
            // Each as `ptrtoint` gives it: truncated to the result's width.
            let (a, b) = if ty.width == 64 {
                (a, b)
            } else {
                (
                    self.truncated(piece, a, ty, loc),
                    self.truncated(piece, b, ty, loc),
                )
            };
            let expr = Expr::Binary {
                op: BinOp::Sub,
                lhs: a,
                rhs: b,
                flags: Default::default(),
            };
            self.push(piece, Inst::Assign { dest, expr }, loc.clone());
            return true;
        }
        let diff = self.synthetic_value(I64, "difference");
        let expr = Expr::Binary {
            op: BinOp::Sub,
            lhs: x.offset,
            rhs: y.offset,
            flags: Default::default(),
        };
        self.push(piece, Inst::Assign { dest: diff, expr }, loc.clone());
        let expr = if ty.width == 64 {
            Expr::Use(Operand::Value(diff))
        } else {
            Expr::Cast {
                op: CastOp::Trunc,
                arg: Operand::Value(diff),
            }
        };
        self.push(piece, Inst::Assign { dest, expr }, loc.clone());
        true
    }
}
