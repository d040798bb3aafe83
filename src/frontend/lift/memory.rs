//! The memory operations the lifter emits: bases, addresses, loads, stores and
//! clobbers, which the memory pass (`crate::memory`) turns into scalar values.
//!
//! - Bases: each `alloca` (`Local`), each global the function refers to (`Global`), and the
//!   object each pointer parameter points into (`Pointee`). Volatile and atomic accesses are
//!   never cells.
//!   With memory checks, each uninitialized pointer local's indeterminate value is a base
//!   too, of no bytes, so that an access through it or through a pointer derived from it is
//!   known to be one (`access.rs`).
//! - A pointer is described as a base and an `i64` byte offset when it is a base or a chain
//!   of `getelementptr` and casts from one, or a phi or select of pointers of one base
//!   (`pointers.rs`); the offset is built with wrapping arithmetic. Any other pointer
//!   (loaded, a call result, `inttoptr`) is not described: a load through it is arbitrary,
//!   a store through it clobbers its underlying base when one is known, else every base
//!   other code may reach. A pointer stored in a cell is its *word*, zero exactly when it
//!   is `NULL`, and a loaded pointer keeps the word it read for its comparisons with
//!   `NULL` (`words.rs`).
//! - Every base other code may reach (the *reachable* set: locals whose address escapes,
//!   globals other than constants, pointees) is clobbered by each call that is not a
//!   convention or a harmless intrinsic, and by each store through an undescribed pointer.
//!   A call of a defined function clobbers less when LLVM infers from its body that it
//!   writes no memory, or only through its pointer arguments (`effects.rs`).
//! - Another thread's writes can be seen only where this one synchronizes with it (a data
//!   race is undefined behaviour in C11, and a handler that interrupts may only write
//!   `volatile sig_atomic_t` objects, whose loads are arbitrary): at calls of code that may
//!   synchronize, which clobber the reachable set as above, and at each atomic operation
//!   and fence, which clobber it too; when some function of the module can run
//!   asynchronously (`reach::may_run_asynchronously`: a thread, a handler), at each call of
//!   an allocation function as well (C11 orders allocations and deallocations,
//!   [`Lifter::synchronize_allocation`]).
//!
//! Soundness rests on one assumption (ARCHITECTURE.md, "What a proved rests on", item 5):
//! an access stays within the object its pointer was derived from.

use std::collections::BTreeSet;

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::target::{
    LLVMABISizeOfType, LLVMGetModuleDataLayout, LLVMOffsetOfElement, LLVMStoreSizeOfType,
    LLVMTargetDataRef,
};
use inkwell::llvm_sys::{LLVMOpcode, LLVMTypeKind};

use super::{int_ty, Lifter};
use crate::frontend::effects::{self, Location, MemoryEffects};
use crate::frontend::{conventions, raw, reach};
use crate::ir::{
    Address, BaseId, BaseInfo, BaseKind, BinOp, CastOp, Const, Expr, HavocReason, Inst, MemOp,
    ObjectSize, Operand, SourceLoc, Ty, ValueId,
};

const I64: Ty = Ty { width: 64 };

/// The memory of the function being lifted.
#[derive(Default)]
pub(super) struct Memory {
    /// The bases, in order of discovery.
    pub(super) bases: Vec<BaseInfo>,
    /// The LLVM object (alloca, global, pointer parameter) of each base.
    pub(super) base_of: std::collections::HashMap<LLVMValueRef, BaseId>,
    /// The pointer phis and selects of one base, with their `i64` offset (`pointers.rs`).
    pub(super) merge_offset: std::collections::HashMap<LLVMValueRef, (BaseId, ValueId)>,
    /// Addresses of the `getelementptr` and cast instructions lifted so far.
    addr_of: std::collections::HashMap<LLVMValueRef, Address>,
    /// The bases other code may write: clobbered by unknown calls and stores.
    pub(super) reachable: Vec<BaseId>,
    /// Whether another thread or an interrupting handler may run (see the module docs):
    /// allocations then clobber the reachable set.
    pub(super) asynchronous: bool,
    /// The liveness cell of each allocated object's base (`access.rs`, `--checks memory`).
    pub(super) live: std::collections::HashMap<BaseId, BaseId>,
    /// `size(p) - w` for a pointer parameter's base and an access width `w`, defined once
    /// at the entry for every access of that width (`access.rs`).
    pub(super) room: std::collections::HashMap<(BaseId, i128), crate::ir::ValueId>,
    /// The address of each pointer parameter's base, its offset 0 (`pointers.rs`).
    pub(super) address: std::collections::HashMap<BaseId, crate::ir::ValueId>,
    /// The null flag of each pointer parameter's base (`null.rs`).
    pub(super) null: std::collections::HashMap<BaseId, crate::ir::ValueId>,
    /// The bases of uninitialized pointer locals (`--checks memory`): an object of no bytes
    /// that every access through it violates (`access.rs`).
    pub(super) indeterminate: BTreeSet<BaseId>,
    /// The word of each pointer loaded through a described address (`words.rs`).
    pub(super) word_of: std::collections::HashMap<LLVMValueRef, crate::ir::ValueId>,
    /// The pointer loads compared with `NULL`, which read words (`words.rs`).
    pub(super) compared_loads: std::collections::HashSet<LLVMValueRef>,
    /// Whether stores of pointers write words (`words.rs`).
    pub(super) words: bool,
    /// The allocation sites (`malloc`, `calloc` calls) with a base, and whether the object
    /// starts zeroed.
    pub(super) heap: std::collections::HashMap<LLVMValueRef, (BaseId, bool)>,
    /// The module's data layout, for sizes and field offsets.
    pub(super) target: Option<LLVMTargetDataRef>,
    /// The locals that hold a pointer into one base, with their offset cells (`held.rs`).
    pub(super) held: super::held::HeldPointers,
}

impl Memory {
    /// Records the address of the pointer `ptr` (an instruction lifted now).
    pub(super) fn record_address(&mut self, ptr: LLVMValueRef, addr: Address) {
        self.addr_of.insert(ptr, addr);
    }

    /// Whether `base` is the object of an allocation site.
    pub(super) fn is_heap(&self, base: BaseId) -> bool {
        self.heap.values().any(|(b, _)| *b == base)
    }

    /// Whether `base` is a global constant, which no code writes.
    pub(super) fn is_constant(&self, base: BaseId) -> bool {
        self.bases[base.index()].kind == BaseKind::Constant
    }

    /// The bases of the pointer parameters' objects, with the parameters' names.
    pub(super) fn pointer_params(&self) -> Vec<(BaseId, String)> {
        (0..self.bases.len())
            .map(|i| BaseId(i as u32))
            .filter(|b| self.bases[b.index()].kind == BaseKind::Pointee)
            .map(|b| {
                let name = &self.bases[b.index()].name;
                (b, name.strip_prefix('*').unwrap_or(name).to_string())
            })
            .collect()
    }

    /// The LLVM object of a base.
    pub(super) fn object_of(&self, base: BaseId) -> Option<LLVMValueRef> {
        self.base_of
            .iter()
            .find(|(_, b)| **b == base)
            .map(|(o, _)| *o)
    }
}

pub(super) fn const_i64(value: i128) -> Operand {
    Operand::Const(Const::new(I64, value))
}

/// Whether some function of the module can run asynchronously to the entry (a handler, a
/// thread, a constructor): then allocations are points where threads may synchronize.
fn may_run_asynchronously(func: LLVMValueRef) -> bool {
    let module = unsafe { LLVMGetGlobalParent(func) };
    reach::may_run_asynchronously(module)
}

/// Whether a load or store is atomic: a point where threads may synchronize.
pub(super) fn is_atomic(inst: LLVMValueRef) -> bool {
    use inkwell::llvm_sys::LLVMAtomicOrdering;
    unsafe { LLVMGetOrdering(inst) != LLVMAtomicOrdering::LLVMAtomicOrderingNotAtomic }
}

/// Whether a load or store is volatile or atomic: its object may be changed by other code
/// at any time (a device, a handler, another thread), so it is not a cell of the model.
pub(super) fn shared_access(inst: LLVMValueRef) -> bool {
    use inkwell::llvm_sys::LLVMAtomicOrdering;
    unsafe {
        LLVMGetVolatile(inst) != 0
            || LLVMGetOrdering(inst) != LLVMAtomicOrdering::LLVMAtomicOrderingNotAtomic
    }
}

/// Looks through pointer casts (instructions or constant expressions).
pub(super) fn strip_casts(mut ptr: LLVMValueRef) -> LLVMValueRef {
    loop {
        let is_cast = unsafe {
            (!LLVMIsABitCastInst(ptr).is_null() || !LLVMIsAAddrSpaceCastInst(ptr).is_null())
                || (!LLVMIsAConstantExpr(ptr).is_null()
                    && matches!(
                        LLVMGetConstOpcode(ptr),
                        LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast
                    ))
        };
        if !is_cast {
            return ptr;
        }
        ptr = raw::operand(ptr, 0);
    }
}

pub(super) fn is_gep(value: LLVMValueRef) -> bool {
    unsafe {
        !LLVMIsAGetElementPtrInst(value).is_null()
            || (!LLVMIsAConstantExpr(value).is_null()
                && LLVMGetConstOpcode(value) == LLVMOpcode::LLVMGetElementPtr)
    }
}

/// Whether a call of `name` (an intrinsic or convention) neither writes memory nor lets a
/// pointer it is given escape.
fn is_harmless_call(name: &str) -> bool {
    name.starts_with("llvm.dbg.")
        || name.starts_with("llvm.lifetime.")
        || name == "llvm.assume"
        || name == "llvm.stacksave"
        || name.starts_with("llvm.stacksave.")
        || name.starts_with("llvm.stackrestore")
        || name.starts_with("llvm.experimental.noalias.scope.decl")
}

/// Whether the address `ptr` (an alloca, or derived from one) may be used by code the
/// lifter does not describe: anything but loads and stores through it, address arithmetic
/// (followed), comparisons, memory intrinsics it is the destination or source of, and
/// harmless intrinsics.
fn address_escapes(ptr: LLVMValueRef, depth: u32) -> bool {
    if depth > 64 {
        return true;
    }
    unsafe {
        let mut u = LLVMGetFirstUse(ptr);
        while !u.is_null() {
            let user = LLVMGetUser(u);
            u = LLVMGetNextUse(u);
            if !raw::is_instruction(user) {
                return true;
            }
            let fine = match raw::opcode(user) {
                LLVMOpcode::LLVMLoad | LLVMOpcode::LLVMICmp => true,
                LLVMOpcode::LLVMStore => raw::operand(user, 0) != ptr,
                LLVMOpcode::LLVMGetElementPtr
                | LLVMOpcode::LLVMBitCast
                | LLVMOpcode::LLVMAddrSpaceCast => {
                    raw::operand(user, 0) == ptr && !address_escapes(user, depth + 1)
                }
                LLVMOpcode::LLVMCall => match raw::called_function(user) {
                    Some(callee) => {
                        let name = raw::name(callee);
                        is_harmless_call(&name)
                            || name == conventions::UNINIT_MEMORY
                            || is_memory_intrinsic(&name)
                    }
                    None => false,
                },
                _ => false,
            };
            if !fine {
                return true;
            }
        }
        false
    }
}

/// Whether `inst` gives an uninitialized pointer local its indeterminate value (a call
/// `normalize` inserts, see `conventions::is_uninit_initializer`).
fn is_uninit_pointer(inst: LLVMValueRef) -> bool {
    raw::opcode(inst) == LLVMOpcode::LLVMCall
        && raw::is_pointer(raw::type_of(inst))
        && raw::called_function(inst).is_some_and(|f| {
            let name = raw::name(f);
            conventions::is_uninit_initializer(&name) && name != conventions::UNINIT_MEMORY
        })
}

/// For a call of the C library's `malloc` or `calloc`: whether the object starts zeroed.
pub(super) fn allocation_site(inst: LLVMValueRef) -> Option<bool> {
    if raw::opcode(inst) != LLVMOpcode::LLVMCall {
        return None;
    }
    let callee = raw::called_function(inst)?;
    if raw::is_defined(callee) {
        return None; // the program's own allocator
    }
    match raw::name(callee).as_str() {
        "malloc" => Some(false),
        "calloc" => Some(true),
        _ => None,
    }
}

/// Whether `block` lies on a cycle of its function's CFG (it can run twice).
pub(super) fn in_cycle(block: LLVMBasicBlockRef) -> bool {
    let successors = |b: LLVMBasicBlockRef| {
        let term = unsafe { LLVMGetBasicBlockTerminator(b) };
        if term.is_null() {
            return vec![];
        }
        (0..raw::num_successors(term))
            .map(|i| raw::successor(term, i))
            .collect::<Vec<_>>()
    };
    let mut seen = std::collections::HashSet::new();
    let mut work = successors(block);
    while let Some(b) = work.pop() {
        if b == block {
            return true;
        }
        if seen.insert(b) {
            work.extend(successors(b));
        }
    }
    false
}

fn is_memory_intrinsic(name: &str) -> bool {
    [
        "llvm.memset.",
        "llvm.memcpy.",
        "llvm.memmove.",
        "llvm.memcpy.inline.",
    ]
    .iter()
    .any(|p| name.starts_with(p))
}

impl Lifter {
    /// Finds the bases of the function and which of them other code may reach.
    pub(super) fn collect_bases(&mut self) {
        let func = self.func;
        let module = unsafe { LLVMGetGlobalParent(func) };
        self.memory.target = Some(unsafe { LLVMGetModuleDataLayout(module) });
        let mut reachable = Vec::new();
        self.memory.asynchronous = may_run_asynchronously(func);
        for (i, param) in raw::params(func).into_iter().enumerate() {
            if raw::is_pointer(raw::type_of(param)) {
                let name = raw::name(param);
                let name = if name.is_empty() {
                    format!("arg{i}")
                } else {
                    name
                };
                let id = self.new_base(param, BaseKind::Pointee, format!("*{name}"));
                reachable.push(id);
            }
        }
        let mut globals = BTreeSet::new();
        let mut n_unnamed = 0;
        for block in self.llvm_blocks.clone() {
            for inst in raw::instructions(block) {
                if raw::opcode(inst) == LLVMOpcode::LLVMAlloca {
                    let mut name = raw::name(inst);
                    if name.is_empty() {
                        name = format!("local{n_unnamed}");
                        n_unnamed += 1;
                    }
                    let escapes = address_escapes(inst, 0);
                    let id = self.new_base(inst, BaseKind::Local, name);
                    if escapes {
                        reachable.push(id);
                    }
                }
                if self.memory_checks && is_uninit_pointer(inst) {
                    // Derived pointers (`s++` over it) keep the base, so that every access
                    // through the indeterminate value is known to be one.
                    let id = BaseId(self.memory.bases.len() as u32);
                    self.memory.bases.push(BaseInfo {
                        kind: BaseKind::Local,
                        name: format!("uninit{}", self.memory.indeterminate.len()),
                        size: ObjectSize::Bytes(0),
                    });
                    self.memory.base_of.insert(inst, id);
                    self.memory.indeterminate.insert(id);
                }
                if let Some(zeroed) = allocation_site(inst) {
                    // A fresh object per execution of the call: one base when the call runs
                    // at most once (outside every cycle of the CFG), so that no object of an
                    // earlier iteration, still live, shares its cells.
                    let escapes = address_escapes(inst, 0);
                    if !in_cycle(block) {
                        let name = match raw::name(inst) {
                            n if n.is_empty() => format!("heap{}", self.memory.heap.len()),
                            n => format!("heap.{n}"),
                        };
                        let id = self.new_base(inst, BaseKind::Local, name);
                        self.memory.heap.insert(inst, (id, zeroed));
                        if escapes {
                            reachable.push(id);
                        }
                    }
                }
                for k in 0..raw::num_operands(inst) {
                    collect_globals(raw::operand(inst, k), &mut globals, 0);
                }
            }
        }
        let mut constants = Vec::new();
        for (_, global) in globals {
            let init = unsafe { LLVMGetInitializer(global) };
            if unsafe { LLVMIsGlobalConstant(global) != 0 } && !init.is_null() {
                // Nothing writes a constant (writing it is undefined behaviour, and it lies
                // in read-only memory): no call or store through a pointer clobbers it.
                let id = self.new_base(global, BaseKind::Constant, raw::name(global));
                constants.push((id, init));
            } else {
                let id = self.new_base(global, BaseKind::Global, raw::name(global));
                reachable.push(id);
            }
        }
        self.memory.reachable = reachable;
        // A constant global holds its initializer in every execution (writing it is
        // undefined behaviour). These initializers come first in the entry block, where
        // the memory model reads them as the memory the function starts with.
        for (base, init) in constants {
            let addr = Address {
                base,
                offset: const_i64(0),
            };
            self.store_constant(0, addr, init, &None);
        }
    }

    fn new_base(&mut self, object: LLVMValueRef, kind: BaseKind, name: String) -> BaseId {
        let id = BaseId(self.memory.bases.len() as u32);
        let size = self.object_size_of(object, &name);
        self.memory.bases.push(BaseInfo { kind, name, size });
        self.memory.base_of.insert(object, id);
        id
    }

    /// The address of `ptr`, when it is described (a base, a cast of a described pointer,
    /// a `getelementptr` instruction lifted earlier, a constant `getelementptr` of a base).
    pub(super) fn address(&mut self, ptr: LLVMValueRef) -> Option<Address> {
        let ptr = strip_casts(ptr);
        if let Some(&base) = self.memory.base_of.get(&ptr) {
            return Some(Address {
                base,
                offset: const_i64(0),
            });
        }
        if let Some(addr) = self.memory.addr_of.get(&ptr) {
            return Some(addr.clone());
        }
        if let Some(addr) = self.merge_address(ptr) {
            return Some(addr);
        }
        if is_gep(ptr) && !raw::is_instruction(ptr) {
            // A constant expression: every index is a constant, nothing is emitted.
            return self.gep_address(usize::MAX, ptr, &None);
        }
        None
    }

    /// The base `ptr` is derived from through casts and `getelementptr`s, described or not.
    fn underlying_base(&self, mut ptr: LLVMValueRef) -> Option<BaseId> {
        for _ in 0..64 {
            ptr = strip_casts(ptr);
            if let Some(&base) = self.memory.base_of.get(&ptr) {
                return Some(base);
            }
            if !is_gep(ptr) {
                // A pointer loaded from a local that holds pointers into one base.
                return self.held_base_of(ptr);
            }
            ptr = raw::operand(ptr, 0);
        }
        None
    }

    /// An `alloca`: a new object each time it runs, whose bytes are arbitrary.
    pub(super) fn lift_alloca(
        &mut self,
        piece: usize,
        inst: LLVMValueRef,
        loc: &Option<SourceLoc>,
    ) {
        if let Some(&base) = self.memory.base_of.get(&inst) {
            self.define_object_size(piece, base, inst, loc);
        }
        self.clobber_through(piece, inst, loc);
    }

    /// Lifts a `getelementptr` or pointer cast instruction: records its address.
    pub(super) fn lift_address(
        &mut self,
        piece: usize,
        inst: LLVMValueRef,
        loc: &Option<SourceLoc>,
    ) {
        let addr = if is_gep(inst) {
            self.gep_address(piece, inst, loc)
        } else {
            self.address(raw::operand(inst, 0))
        };
        if let Some(addr) = addr {
            self.memory.addr_of.insert(inst, addr);
        }
    }

    /// The address a `getelementptr` computes: its source's offset plus each index times
    /// its stride (struct fields by their layout offset). Variable indices are emitted as
    /// wrapping `i64` arithmetic into `piece` (never for a constant expression).
    fn gep_address(
        &mut self,
        piece: usize,
        gep: LLVMValueRef,
        loc: &Option<SourceLoc>,
    ) -> Option<Address> {
        let target = self.memory.target?;
        let source = self.address(raw::operand(gep, 0))?;
        let mut offset = source.offset;
        let mut ty = unsafe { LLVMGetGEPSourceElementType(gep) };
        let n = raw::num_operands(gep);
        for k in 1..n {
            let index = raw::operand(gep, k);
            let (stride, next_ty) = if k == 1 {
                (unsafe { LLVMABISizeOfType(target, ty) }, ty)
            } else {
                match unsafe { LLVMGetTypeKind(ty) } {
                    LLVMTypeKind::LLVMStructTypeKind => {
                        let field = raw::const_int_bits(index)? as u32;
                        let at = unsafe { LLVMOffsetOfElement(target, ty, field) };
                        let field_ty = unsafe { LLVMStructGetTypeAtIndex(ty, field) };
                        offset = self.add_offset(piece, offset, const_i64(at as i128), loc)?;
                        ty = field_ty;
                        continue;
                    }
                    LLVMTypeKind::LLVMArrayTypeKind => {
                        let elem = unsafe { LLVMGetElementType(ty) };
                        (unsafe { LLVMABISizeOfType(target, elem) }, elem)
                    }
                    _ => return None,
                }
            };
            ty = next_ty;
            let stride = stride as i128;
            let term = match raw::const_int_bits(index) {
                Some(bits) => {
                    let w = raw::int_width(raw::type_of(index))?;
                    const_i64(Ty::int(w).to_signed(bits as u128) * stride)
                }
                None => {
                    if piece == usize::MAX {
                        return None;
                    }
                    let index = self.operand(index, loc)?;
                    let index = self.to_i64(piece, index, loc);
                    let scaled = self.synthetic_value(I64, "offset");
                    self.push(
                        piece,
                        Inst::Assign {
                            dest: scaled,
                            expr: Expr::Binary {
                                op: BinOp::Mul,
                                lhs: index,
                                rhs: const_i64(stride),
                                flags: Default::default(),
                            },
                        },
                        loc.clone(),
                    );
                    Operand::Value(scaled)
                }
            };
            offset = self.add_offset(piece, offset, term, loc)?;
        }
        Some(Address {
            base: source.base,
            offset,
        })
    }

    fn to_i64(&mut self, piece: usize, index: Operand, loc: &Option<SourceLoc>) -> Operand {
        let ty = self.operand_ty(&index);
        if ty == I64 {
            return index;
        }
        if let Operand::Const(c) = index {
            return const_i64(c.signed());
        }
        let wide = self.synthetic_value(I64, "index");
        self.push(
            piece,
            Inst::Assign {
                dest: wide,
                expr: Expr::Cast {
                    op: CastOp::SExt,
                    arg: index,
                },
            },
            loc.clone(),
        );
        Operand::Value(wide)
    }

    fn operand_ty(&self, op: &Operand) -> Ty {
        match op {
            Operand::Value(v) => self.values[v.index()].ty,
            Operand::Const(c) => c.ty,
            Operand::Undef(ty) => *ty,
        }
    }

    /// `a + b` in `i64`, folded when both are constants.
    pub(super) fn add_offset(
        &mut self,
        piece: usize,
        a: Operand,
        b: Operand,
        loc: &Option<SourceLoc>,
    ) -> Option<Operand> {
        match (a, b) {
            (Operand::Const(x), Operand::Const(y)) => Some(const_i64(x.signed() + y.signed())),
            (a, Operand::Const(y)) if y.bits == 0 => Some(a),
            (Operand::Const(x), b) if x.bits == 0 => Some(b),
            (a, b) => {
                if piece == usize::MAX {
                    return None;
                }
                let sum = self.synthetic_value(I64, "offset");
                self.push(
                    piece,
                    Inst::Assign {
                        dest: sum,
                        expr: Expr::Binary {
                            op: BinOp::Add,
                            lhs: a,
                            rhs: b,
                            flags: Default::default(),
                        },
                    },
                    loc.clone(),
                );
                Some(Operand::Value(sum))
            }
        }
    }

    pub(super) fn store_size(&self, ty: LLVMTypeRef) -> Option<u64> {
        Some(unsafe { LLVMStoreSizeOfType(self.memory.target?, ty) })
    }

    /// Every byte `ptr` may write becomes arbitrary: its underlying base, or every base
    /// other code may reach when it has none.
    pub(super) fn clobber_through(
        &mut self,
        piece: usize,
        ptr: LLVMValueRef,
        loc: &Option<SourceLoc>,
    ) {
        let bases = match self.underlying_base(ptr) {
            Some(base) if self.memory.is_constant(base) => return, // nothing writes it
            Some(base) => vec![base],
            None => self.memory.reachable.clone(),
        };
        self.clobber(piece, bases, loc);
    }

    /// A point where this thread may synchronize with another (an atomic operation, a
    /// fence; see the module docs): what other code may reach may hold anything after it.
    pub(super) fn synchronize(&mut self, piece: usize, loc: &Option<SourceLoc>) {
        self.clobber_reachable(piece, loc);
    }

    /// A call of an allocation function: a point where this thread may synchronize with
    /// another in a module where another may run (see the module docs).
    pub(super) fn synchronize_allocation(&mut self, piece: usize, loc: &Option<SourceLoc>) {
        if self.memory.asynchronous {
            self.clobber_reachable(piece, loc);
        }
    }

    /// A call of code the lifter does not see: every base other code may reach.
    pub(super) fn clobber_reachable(&mut self, piece: usize, loc: &Option<SourceLoc>) {
        // That code may also free what it reaches.
        let mut bases = self.memory.reachable.clone();
        bases.extend(self.reachable_live_cells());
        self.clobber(piece, bases, loc);
    }

    /// A call of `callee`, code the lifter does not follow: what its memory effects say it
    /// may write (`effects.rs`). Nothing when it writes no memory its caller can see; the
    /// objects its written pointer arguments point into when it writes only through them
    /// (and their liveness when it may also free, which writes the allocator's state);
    /// every base other code may reach otherwise.
    pub(super) fn clobber_call(
        &mut self,
        piece: usize,
        inst: LLVMValueRef,
        callee: LLVMValueRef,
        loc: &Option<SourceLoc>,
    ) {
        let effects = MemoryEffects::of_callee(callee);
        if effects.writes(Location::Other) {
            return self.clobber_reachable(piece, loc);
        }
        if !effects.writes(Location::Arguments) {
            return;
        }
        let mut bases = BTreeSet::new();
        for k in 0..raw::num_args(inst) {
            let arg = raw::operand(inst, k);
            let is_null = unsafe { LLVMIsNull(arg) != 0 } && !raw::is_undef(arg);
            if !raw::is_pointer(raw::type_of(arg))
                || is_null
                || effects::argument_not_written(callee, k)
            {
                continue;
            }
            match self.underlying_base(arg) {
                Some(base) if self.memory.is_constant(base) => continue, // nothing writes it
                Some(base) => bases.insert(base),
                None => return self.clobber_reachable(piece, loc),
            };
        }
        if effects.writes(Location::Inaccessible) {
            let live: Vec<BaseId> = bases
                .iter()
                .filter_map(|b| self.memory.live.get(b).copied())
                .collect();
            bases.extend(live);
        }
        self.clobber(piece, bases.into_iter().collect(), loc);
    }

    fn clobber(&mut self, piece: usize, mut bases: Vec<BaseId>, loc: &Option<SourceLoc>) {
        // What writes a local that holds a pointer writes its offset too (`held.rs`).
        let offsets: Vec<BaseId> = (bases.iter())
            .filter_map(|b| self.memory.held.offset_cell_of(*b))
            .collect();
        bases.extend(offsets);
        if !bases.is_empty() {
            self.push(piece, Inst::Mem(MemOp::Clobber { bases }), loc.clone());
        }
    }

    /// A load: a memory load when its address is described, its type an integer and it is
    /// not volatile; arbitrary otherwise.
    pub(super) fn lift_load(&mut self, piece: usize, inst: LLVMValueRef, loc: &Option<SourceLoc>) {
        let Some(&dest) = self.value_of.get(&inst) else {
            // A pointer from a local that holds pointers into one base is described
            // (`held.rs`).
            if !shared_access(inst) {
                self.load_held(piece, inst, loc);
            }
            // A pointer keeps its word (`words.rs`); a float or aggregate has no value.
            if self.wants_word(inst) && !shared_access(inst) {
                if let Some(addr) = self.address(raw::operand(inst, 0)) {
                    self.load_pointer_word(piece, inst, addr, loc);
                }
            }
            return;
        };
        let addr = if shared_access(inst) {
            None
        } else {
            self.address(raw::operand(inst, 0))
        };
        match addr {
            Some(addr) => self.push(piece, Inst::Mem(MemOp::Load { dest, addr }), loc.clone()),
            None => {
                self.warn(
                    "load through a pointer the memory model does not describe: value is arbitrary"
                        .into(),
                    loc.clone(),
                );
                self.push(
                    piece,
                    Inst::Havoc {
                        dest,
                        reason: HavocReason::Load,
                    },
                    loc.clone(),
                );
            }
        }
    }

    /// A store: a memory store of an integer (a pointer or float as an arbitrary integer of
    /// its size) when the address is described and the store not volatile; else the bytes
    /// it may write are clobbered.
    pub(super) fn lift_store(&mut self, piece: usize, inst: LLVMValueRef, loc: &Option<SourceLoc>) {
        let value = raw::operand(inst, 0);
        let ptr = raw::operand(inst, 1);
        if is_keep_sink(ptr) {
            return; // only there to keep a checked operation (`normalize`)
        }
        let addr = if shared_access(inst) {
            None
        } else {
            self.address(ptr)
        };
        let Some(addr) = addr else {
            self.clobber_through(piece, ptr, loc);
            return;
        };
        let value_ty = raw::type_of(value);
        let operand = if int_ty(value).is_some() {
            self.operand(value, loc)
        } else {
            let scalar = unsafe {
                matches!(
                    LLVMGetTypeKind(value_ty),
                    LLVMTypeKind::LLVMPointerTypeKind
                        | LLVMTypeKind::LLVMFloatTypeKind
                        | LLVMTypeKind::LLVMDoubleTypeKind
                        | LLVMTypeKind::LLVMHalfTypeKind
                )
            };
            match self.store_size(value_ty) {
                Some(size @ 1..=8) if raw::is_pointer(value_ty) => {
                    let ty = Ty::int(8 * size as u32);
                    Some(self.pointer_word(piece, value, ty, loc))
                }
                Some(size @ 1..=8) if scalar => Some(Operand::Undef(Ty::int(8 * size as u32))),
                _ => None,
            }
        };
        match operand {
            Some(value) => self.push(piece, Inst::Mem(MemOp::Store { addr, value }), loc.clone()),
            None => self.store_constant(piece, addr, value, loc),
        }
        if raw::is_pointer(value_ty) {
            self.store_held(piece, ptr, value, loc);
        }
    }

    /// Writes the constant `value` at `addr`: an initializer of the whole object when it
    /// covers it, a store per leaf otherwise; the base is clobbered when the constant is not
    /// described (too many leaves, a constant expression).
    fn store_constant(
        &mut self,
        piece: usize,
        addr: Address,
        value: LLVMValueRef,
        loc: &Option<SourceLoc>,
    ) {
        let mut leaves = Vec::new();
        let mut budget = MAX_LEAVES;
        let described = self
            .memory
            .target
            .is_some_and(|target| const_leaves(target, value, 0, &mut leaves, &mut budget));
        let size = self.store_size(raw::type_of(value));
        match (described, &addr.offset) {
            (true, Operand::Const(c))
                if c.signed() == 0 && size.is_some() && size == self.object_size(addr.base) =>
            {
                // Leaves are disjoint: when they fill the object, no byte is left zero.
                let covered: u64 = leaves
                    .iter()
                    .map(|(_, v)| match v {
                        Operand::Const(c) => c.ty.width.div_ceil(8) as u64,
                        Operand::Undef(ty) => ty.width.div_ceil(8) as u64,
                        Operand::Value(_) => 0,
                    })
                    .sum();
                self.push(
                    piece,
                    Inst::Mem(MemOp::Init {
                        base: addr.base,
                        leaves,
                        zero_rest: Some(covered) != size,
                    }),
                    loc.clone(),
                );
            }
            (true, Operand::Const(c)) => {
                // Part of the object: each leaf, and the zero bytes as zero integers are not
                // listed, so the rest of the range is clobbered first.
                let start = c.signed();
                self.clobber(piece, vec![addr.base], loc);
                for (off, v) in leaves {
                    let addr = Address {
                        base: addr.base,
                        offset: const_i64(start + off as i128),
                    };
                    self.push(
                        piece,
                        Inst::Mem(MemOp::Store { addr, value: v }),
                        loc.clone(),
                    );
                }
            }
            _ => self.clobber(piece, vec![addr.base], loc),
        }
    }

    /// The size in bytes of a base's object, when known (a local or a global).
    fn object_size(&self, base: BaseId) -> Option<u64> {
        let target = self.memory.target?;
        let (&object, _) = self.memory.base_of.iter().find(|(_, &b)| b == base)?;
        unsafe {
            if !LLVMIsAAllocaInst(object).is_null() {
                let count = raw::const_int_bits(raw::operand(object, 0))?;
                let ty = LLVMGetAllocatedType(object);
                return Some(LLVMABISizeOfType(target, ty) * count);
            }
            if !LLVMIsAGlobalVariable(object).is_null() {
                return Some(LLVMABISizeOfType(target, LLVMGlobalGetValueType(object)));
            }
        }
        None
    }

    /// The memory effect of an intrinsic: lifetime starts make a local arbitrary again,
    /// memory intrinsics clobber their destination, others with pointer arguments clobber
    /// what other code may reach.
    pub(super) fn intrinsic_memory(
        &mut self,
        piece: usize,
        inst: LLVMValueRef,
        name: &str,
        loc: &Option<SourceLoc>,
    ) {
        if name.starts_with("llvm.lifetime.start") {
            let ptr = raw::operand(inst, 1);
            if let Some(base) = self.underlying_base(ptr) {
                self.clobber(piece, vec![base], loc);
            }
            return;
        }
        if is_harmless_call(name) {
            return;
        }
        if is_memory_intrinsic(name) {
            if !self.memory_intrinsic(piece, inst, name, loc) {
                self.clobber_through(piece, raw::operand(inst, 0), loc);
            }
            return;
        }
        if self.takes_pointer(inst) {
            self.clobber_reachable(piece, loc);
        }
    }

    /// `memcpy(dest, @constant, n)` of a whole constant global and `memset(dest, 0, n)` of a
    /// whole object: the destination's new contents. False when not one of these.
    fn memory_intrinsic(
        &mut self,
        piece: usize,
        inst: LLVMValueRef,
        name: &str,
        loc: &Option<SourceLoc>,
    ) -> bool {
        let Some(dest) = self.address(raw::operand(inst, 0)) else {
            return false;
        };
        let Some(len) = raw::const_int_bits(raw::operand(inst, 2)) else {
            return false;
        };
        if name.starts_with("llvm.memset.") {
            let zero = raw::const_int_bits(raw::operand(inst, 1)) == Some(0);
            let whole = matches!(dest.offset, Operand::Const(c) if c.bits == 0)
                && self.object_size(dest.base) == Some(len);
            if zero && whole {
                self.push(
                    piece,
                    Inst::Mem(MemOp::Init {
                        base: dest.base,
                        leaves: vec![],
                        zero_rest: true,
                    }),
                    loc.clone(),
                );
                return true;
            }
            return false;
        }
        let source = strip_casts(raw::operand(inst, 1));
        let constant = unsafe {
            !LLVMIsAGlobalVariable(source).is_null()
                && LLVMIsGlobalConstant(source) != 0
                && !LLVMGetInitializer(source).is_null()
        };
        if !constant {
            return false;
        }
        let init = unsafe { LLVMGetInitializer(source) };
        if self.store_size(raw::type_of(init)) != Some(len) {
            return false;
        }
        self.store_constant(piece, dest, init, loc);
        true
    }

    /// Whether some argument of the call is a pointer.
    pub(super) fn takes_pointer(&self, call: LLVMValueRef) -> bool {
        (0..raw::num_args(call)).any(|k| raw::is_pointer(raw::type_of(raw::operand(call, k))))
    }

    /// `polyfocus.uninit.memory(ptr)`: the local is arbitrary (it already is at its start;
    /// clobbered again for a local in a loop).
    /// After a call of an allocation site with a base: the new object's bytes are
    /// arbitrary (`malloc`) or zero (`calloc`).
    pub(super) fn allocation(&mut self, piece: usize, inst: LLVMValueRef, loc: &Option<SourceLoc>) {
        let Some(&(base, zeroed)) = self.memory.heap.get(&inst) else {
            return;
        };
        self.define_object_size(piece, base, inst, loc);
        self.set_live(piece, base, true, loc);
        let op = if zeroed {
            MemOp::Init {
                base,
                leaves: vec![],
                zero_rest: true,
            }
        } else {
            MemOp::Clobber { bases: vec![base] }
        };
        self.push(piece, Inst::Mem(op), loc.clone());
    }

    pub(super) fn uninit_memory(
        &mut self,
        piece: usize,
        inst: LLVMValueRef,
        loc: &Option<SourceLoc>,
    ) {
        let ptr = raw::operand(inst, 0);
        self.clobber_through(piece, ptr, loc);
    }
}

/// The most leaves a constant is split into: a guard against blow-up (a larger constant
/// initializer is not described, and what it initializes is read as arbitrary).
const MAX_LEAVES: usize = 4096;

/// The leaves of a constant that are not zero, with their offsets from `offset`: integers as
/// constants, pointers and floats that are not null as arbitrary integers of their size.
/// False when the constant is not described (a constant expression, too many leaves).
fn const_leaves(
    target: LLVMTargetDataRef,
    value: LLVMValueRef,
    offset: i64,
    out: &mut Vec<(i64, Operand)>,
    budget: &mut usize,
) -> bool {
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    let ty = raw::type_of(value);
    unsafe {
        if LLVMIsAConstant(value).is_null() {
            return false;
        }
        if !LLVMIsAConstantAggregateZero(value).is_null() {
            return true;
        }
        match LLVMGetTypeKind(ty) {
            LLVMTypeKind::LLVMIntegerTypeKind => {
                let Some(ty) = int_ty(value) else {
                    return false;
                };
                if raw::is_undef(value) {
                    out.push((offset, Operand::Undef(ty)));
                    return true;
                }
                match raw::const_int_bits(value) {
                    Some(0) => true,
                    Some(bits) => {
                        out.push((offset, Operand::Const(Const::new(ty, bits as i128))));
                        true
                    }
                    None => false,
                }
            }
            LLVMTypeKind::LLVMPointerTypeKind
            | LLVMTypeKind::LLVMFloatTypeKind
            | LLVMTypeKind::LLVMDoubleTypeKind => {
                if LLVMIsNull(value) != 0 && !raw::is_undef(value) {
                    return true;
                }
                let size = LLVMStoreSizeOfType(target, ty);
                out.push((offset, Operand::Undef(Ty::int(8 * size as u32))));
                true
            }
            LLVMTypeKind::LLVMArrayTypeKind => {
                let elem = LLVMGetElementType(ty);
                let stride = LLVMABISizeOfType(target, elem) as i64;
                let n = LLVMGetArrayLength2(ty);
                (0..n).all(|i| {
                    let e = LLVMGetAggregateElement(value, i as u32);
                    !e.is_null() && const_leaves(target, e, offset + i as i64 * stride, out, budget)
                })
            }
            LLVMTypeKind::LLVMStructTypeKind => {
                let n = LLVMCountStructElementTypes(ty);
                (0..n).all(|i| {
                    let e = LLVMGetAggregateElement(value, i);
                    let at = LLVMOffsetOfElement(target, ty, i) as i64;
                    !e.is_null() && const_leaves(target, e, offset + at, out, budget)
                })
            }
            _ => false,
        }
    }
}

/// The global variables `value` refers to (directly or inside constant expressions), keyed
/// by name for a deterministic order; thread-local globals are left out (each thread has
/// its own, which the lifter does not describe).
/// Whether `ptr` is the global that only keeps checked operations alive
/// ([`conventions::KEEP_SINK`]).
pub(super) fn is_keep_sink(ptr: LLVMValueRef) -> bool {
    let global = unsafe { !LLVMIsAGlobalVariable(ptr).is_null() };
    global && raw::name(ptr) == conventions::KEEP_SINK
}

fn collect_globals(value: LLVMValueRef, acc: &mut BTreeSet<(String, LLVMValueRef)>, depth: u32) {
    if value.is_null() || depth > 16 {
        return;
    }
    unsafe {
        if !LLVMIsAGlobalVariable(value).is_null() {
            if LLVMIsThreadLocal(value) == 0 && !is_keep_sink(value) {
                acc.insert((raw::name(value), value));
            }
            return;
        }
        if !LLVMIsAConstantExpr(value).is_null() {
            for k in 0..raw::num_operands(value) {
                collect_globals(raw::operand(value, k), acc, depth + 1);
            }
        }
    }
}
