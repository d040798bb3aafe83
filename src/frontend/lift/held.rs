//! Pointers held in locals that only base-preserving callees see: `const BYTE *ip = src;`
//! with `read_length(&ip, end)` in a decoding loop. The local stays in memory (its address
//! is passed), so without this a load of it is a pointer the memory model does not
//! describe: `ip < end` is an arbitrary boolean and `*ip` is not checked.
//!
//! A pointer local `A` *holds a pointer into base `B`* when every pointer stored in it
//! derives from `B` or from a load of `A` itself (through casts, `getelementptr`s, phis and
//! selects), and its address goes nowhere but to loads, stores into it and calls of
//! defined functions whose parameter *preserves its base*: the callee only loads through
//! the parameter and stores back pointers derived from such loads (`(*ip)++`), and lets
//! the parameter go nowhere else. By induction over the stores, `A` then always holds a
//! pointer into `B`: no code can write it otherwise, as its address reaches no other code.
//!
//! Next to `A` the lifter keeps an *offset cell*, a base of its own holding the held
//! pointer's offset in `B`: a store into `A` writes the stored pointer's offset there (an
//! arbitrary offset when it is not described); a load of `A` reads it and is the pointer
//! `B + offset`, which comparisons, differences, accesses and their checks use like any
//! described pointer; whatever clobbers `A` (a call it is passed to, the start of its
//! lifetime) clobbers the offset cell too. `A` itself keeps the words of its pointers
//! (`words.rs`), which callees' requirements read.

use std::collections::HashMap;

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMOpcode, LLVMTypeKind};

use super::memory::{in_cycle, is_gep, strip_casts};
use super::Lifter;
use crate::frontend::raw;
use crate::ir::{Address, BaseId, BaseInfo, BaseKind, Inst, MemOp, ObjectSize, Operand, SourceLoc};

/// How deep the search through casts, `getelementptr`s, phis and selects goes.
const MAX_DEPTH: u32 = 32;

/// A local that holds a pointer into one base, with its offset cell.
#[derive(Clone, Copy, Debug)]
pub(super) struct Held {
    /// The base every pointer the local holds points into.
    pub(super) base: BaseId,
    /// The cell that holds the offset (an `i64`) of the pointer in `base`.
    pub(super) offset_cell: BaseId,
}

/// The held locals of a function, by the local's `alloca` and by its base.
#[derive(Default)]
pub(super) struct HeldPointers {
    by_alloca: HashMap<LLVMValueRef, Held>,
    by_base: HashMap<BaseId, BaseId>,
}

impl HeldPointers {
    /// The offset cell of the local `base`, when it holds a pointer.
    pub(super) fn offset_cell_of(&self, base: BaseId) -> Option<BaseId> {
        self.by_base.get(&base).copied()
    }
}

impl Lifter {
    /// Finds the locals that hold a pointer into one base (see the module docs) and gives
    /// each an offset cell. After `collect_bases`.
    pub(super) fn collect_held_pointers(&mut self) {
        let mut found = Vec::new();
        for &block in &self.llvm_blocks {
            if in_cycle(block) {
                continue;
            }
            for inst in raw::instructions(block) {
                if raw::opcode(inst) != LLVMOpcode::LLVMAlloca || !holds_pointers(inst) {
                    continue;
                }
                let Some(&local) = self.memory.base_of.get(&inst) else {
                    continue;
                };
                if let Some(base) = self.held_base(inst) {
                    found.push((inst, local, base));
                }
            }
        }
        for (alloca, local, base) in found {
            let offset_cell = BaseId(self.memory.bases.len() as u32);
            let name = format!("offset.{}", self.memory.bases[local.index()].name);
            self.memory.bases.push(BaseInfo {
                kind: BaseKind::Local,
                name,
                size: ObjectSize::Bytes(8),
            });
            let held = Held { base, offset_cell };
            self.memory.held.by_alloca.insert(alloca, held);
            self.memory.held.by_base.insert(local, offset_cell);
        }
    }

    /// The one base every pointer stored in the local `alloca` derives from, when its
    /// address goes only to loads, stores into it and base-preserving callees.
    fn held_base(&self, alloca: LLVMValueRef) -> Option<BaseId> {
        let mut base = None;
        // The stores of the local's arbitrary initial value (`normalize`), its other
        // stores, and the loads and calls that read it.
        let (mut initial, mut stores, mut reads) = (Vec::new(), Vec::new(), Vec::new());
        for user in users(alloca) {
            if !raw::is_instruction(user) {
                return None;
            }
            match raw::opcode(user) {
                LLVMOpcode::LLVMLoad if !is_shared(user) => reads.push(user),
                LLVMOpcode::LLVMStore if !is_shared(user) => {
                    let value = raw::operand(user, 0);
                    if raw::operand(user, 1) != alloca || !raw::is_pointer(raw::type_of(value)) {
                        return None;
                    }
                    if is_initial_value(value) {
                        initial.push(user);
                        continue;
                    }
                    stores.push(user);
                    for root in roots(value, alloca)? {
                        let &b = self.memory.base_of.get(&root)?;
                        if *base.get_or_insert(b) != b {
                            return None;
                        }
                    }
                }
                LLVMOpcode::LLVMCall => {
                    let callee = raw::called_function(user)?;
                    let name = raw::name(callee);
                    if name.starts_with("llvm.dbg.") || name.starts_with("llvm.lifetime.") {
                        continue;
                    }
                    reads.push(user);
                    let params = raw::params(callee);
                    for k in 0..raw::num_args(user) {
                        if raw::operand(user, k) == alloca
                            && !params
                                .get(k as usize)
                                .is_some_and(|&p| is_final(callee) && preserves_base(p))
                        {
                            return None;
                        }
                    }
                }
                _ => return None,
            }
        }
        // The arbitrary initial value is no pointer into the base: no read may see it, so
        // a store of a pointer into the base comes before each read on every path.
        match initial.len() {
            0 => {}
            1 => {
                let dominators = self.immediate_dominators();
                let stored_before = |read: LLVMValueRef| {
                    stores.iter().any(|&s| self.dominates(&dominators, s, read))
                };
                if !reads.into_iter().all(stored_before) {
                    return None;
                }
            }
            _ => return None, // its lifetime starts again: not followed
        }
        // A base of its own, never one whose object is the local itself.
        base.filter(|b| self.memory.object_of(*b) != Some(alloca))
    }

    /// The immediate dominator of each block of the function (`None` for the entry and
    /// unreachable blocks), by petgraph's algorithm of Cooper, Harvey and Kennedy.
    fn immediate_dominators(&self) -> Vec<Option<usize>> {
        let mut graph: petgraph::Graph<(), ()> = petgraph::Graph::new();
        let nodes: Vec<_> = self
            .llvm_blocks
            .iter()
            .map(|_| graph.add_node(()))
            .collect();
        for (b, &block) in self.llvm_blocks.iter().enumerate() {
            let term = unsafe { LLVMGetBasicBlockTerminator(block) };
            if term.is_null() {
                continue;
            }
            for k in 0..raw::num_successors(term) {
                if let Some(&s) = self.block_index.get(&raw::successor(term, k)) {
                    graph.add_edge(nodes[b], nodes[s], ());
                }
            }
        }
        let doms = petgraph::algo::dominators::simple_fast(&graph, nodes[0]);
        nodes
            .iter()
            .map(|n| doms.immediate_dominator(*n).map(|d| d.index()))
            .collect()
    }

    /// Whether the instruction `first` runs before `then` on every path to `then`.
    fn dominates(
        &self,
        dominators: &[Option<usize>],
        first: LLVMValueRef,
        then: LLVMValueRef,
    ) -> bool {
        let block_of = |i: LLVMValueRef| {
            let block = unsafe { LLVMGetInstructionParent(i) };
            self.block_index.get(&block).copied()
        };
        let (Some(a), Some(mut b)) = (block_of(first), block_of(then)) else {
            return false;
        };
        if a == b {
            let block = self.llvm_blocks[a];
            return raw::instructions(block)
                .into_iter()
                .take_while(|&i| i != then)
                .any(|i| i == first);
        }
        while let Some(up) = dominators[b] {
            if up == a {
                return true;
            }
            b = up;
        }
        false
    }

    /// The local a load of `ptr` reads a held pointer from.
    pub(super) fn held_at(&self, ptr: LLVMValueRef) -> Option<Held> {
        self.memory.held.by_alloca.get(&strip_casts(ptr)).copied()
    }

    /// The base of a pointer loaded from a held local (`ptr` a load, through casts and
    /// `getelementptr`s).
    pub(super) fn held_base_of(&self, ptr: LLVMValueRef) -> Option<BaseId> {
        let mut p = ptr;
        for _ in 0..MAX_DEPTH {
            p = strip_casts(p);
            if is_gep(p) {
                p = raw::operand(p, 0);
                continue;
            }
            if raw::is_instruction(p) && raw::opcode(p) == LLVMOpcode::LLVMLoad {
                return self.held_at(raw::operand(p, 0)).map(|h| h.base);
            }
            return None;
        }
        None
    }

    /// A load of a pointer from a held local: the pointer is its base plus the offset its
    /// offset cell holds. False when `inst` is not such a load.
    pub(super) fn load_held(
        &mut self,
        piece: usize,
        inst: LLVMValueRef,
        loc: &Option<SourceLoc>,
    ) -> bool {
        let Some(held) = self.held_at(raw::operand(inst, 0)) else {
            return false;
        };
        if !raw::is_pointer(raw::type_of(inst)) {
            return false;
        }
        let offset = self.synthetic_value(crate::ir::Ty::int(64), "held.offset");
        let cell = Address {
            base: held.offset_cell,
            offset: super::memory::const_i64(0),
        };
        self.push(
            piece,
            Inst::Mem(MemOp::Load {
                dest: offset,
                addr: cell,
            }),
            loc.clone(),
        );
        self.memory.record_address(
            inst,
            Address {
                base: held.base,
                offset: Operand::Value(offset),
            },
        );
        true
    }

    /// A store of the pointer `value` into a held local: its offset into the local's
    /// offset cell, or an arbitrary offset when it is not described.
    pub(super) fn store_held(
        &mut self,
        piece: usize,
        ptr: LLVMValueRef,
        value: LLVMValueRef,
        loc: &Option<SourceLoc>,
    ) {
        let Some(held) = self.held_at(ptr) else {
            return;
        };
        match self.address(value).filter(|a| a.base == held.base) {
            Some(addr) => {
                let cell = Address {
                    base: held.offset_cell,
                    offset: super::memory::const_i64(0),
                };
                let value = addr.offset;
                self.push(
                    piece,
                    Inst::Mem(MemOp::Store { addr: cell, value }),
                    loc.clone(),
                );
            }
            None => self.push(
                piece,
                Inst::Mem(MemOp::Clobber {
                    bases: vec![held.offset_cell],
                }),
                loc.clone(),
            ),
        }
    }
}

/// Whether `func` is defined here and no other definition may replace it at link time.
fn is_final(func: LLVMValueRef) -> bool {
    use inkwell::llvm_sys::LLVMLinkage::*;
    raw::is_defined(func)
        && !matches!(
            unsafe { LLVMGetLinkage(func) },
            LLVMWeakAnyLinkage
                | LLVMLinkOnceAnyLinkage
                | LLVMExternalWeakLinkage
                | LLVMCommonLinkage
        )
}

/// Whether `value` is the arbitrary initial value `normalize` gives an uninitialized local.
fn is_initial_value(value: LLVMValueRef) -> bool {
    raw::is_instruction(value)
        && raw::opcode(value) == LLVMOpcode::LLVMCall
        && raw::called_function(value)
            .is_some_and(|f| crate::frontend::conventions::is_uninit_initializer(&raw::name(f)))
}

/// Whether the `alloca` is of one pointer.
fn holds_pointers(alloca: LLVMValueRef) -> bool {
    let ty = unsafe { LLVMGetAllocatedType(alloca) };
    let one =
        raw::num_operands(alloca) == 1 && raw::const_int_bits(raw::operand(alloca, 0)) == Some(1);
    one && unsafe { LLVMGetTypeKind(ty) } == LLVMTypeKind::LLVMPointerTypeKind
}

/// Whether a load or store is volatile or atomic.
fn is_shared(inst: LLVMValueRef) -> bool {
    super::memory::shared_access(inst)
}

/// The users of `value`.
fn users(value: LLVMValueRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    unsafe {
        let mut u = LLVMGetFirstUse(value);
        while !u.is_null() {
            out.push(LLVMGetUser(u));
            u = LLVMGetNextUse(u);
        }
    }
    out
}

/// The objects the pointer `value` derives from through casts, `getelementptr`s, phis and
/// selects, leaving out loads of `local` itself; `None` when some other pointer (a call's
/// result, a load from elsewhere, a constant) is among them.
fn roots(value: LLVMValueRef, local: LLVMValueRef) -> Option<Vec<LLVMValueRef>> {
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut todo = vec![(value, 0u32)];
    while let Some((v, depth)) = todo.pop() {
        let v = strip_casts(v);
        if depth > MAX_DEPTH {
            return None;
        }
        if !seen.insert(v) {
            continue;
        }
        if is_gep(v) {
            todo.push((raw::operand(v, 0), depth + 1));
            continue;
        }
        if raw::is_instruction(v) {
            match raw::opcode(v) {
                LLVMOpcode::LLVMLoad if strip_casts(raw::operand(v, 0)) == local => continue,
                LLVMOpcode::LLVMPHI => {
                    todo.extend(raw::incomings(v).into_iter().map(|(x, _)| (x, depth + 1)));
                    continue;
                }
                LLVMOpcode::LLVMSelect => {
                    todo.push((raw::operand(v, 1), depth + 1));
                    todo.push((raw::operand(v, 2), depth + 1));
                    continue;
                }
                _ => {}
            }
        }
        out.push(v);
    }
    Some(out)
}

/// Whether the pointer parameter `param` (a pointer to a pointer) preserves the base of
/// what it points to: its callee only loads through it, compares it, and stores through
/// it pointers derived from those loads.
fn preserves_base(param: LLVMValueRef) -> bool {
    if !raw::is_pointer(raw::type_of(param)) {
        return false;
    }
    users(param).into_iter().all(|user| {
        if !raw::is_instruction(user) {
            return false;
        }
        match raw::opcode(user) {
            LLVMOpcode::LLVMLoad => !is_shared(user),
            LLVMOpcode::LLVMICmp => true,
            LLVMOpcode::LLVMStore => {
                let value = raw::operand(user, 0);
                !is_shared(user)
                    && raw::operand(user, 1) == param
                    && value != param
                    && raw::is_pointer(raw::type_of(value))
                    && roots(value, param).is_some_and(|r| r.is_empty())
            }
            LLVMOpcode::LLVMCall => raw::called_function(user).is_some_and(|f| {
                let name = raw::name(f);
                name.starts_with("llvm.dbg.") || name.starts_with("llvm.lifetime.")
            }),
            _ => false,
        }
    })
}
