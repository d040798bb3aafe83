//! What a call may write: the memory effects LLVM infers for each defined function
//! (`function-attrs`), kept on the module so that the lifter clobbers at a call only the
//! objects the callee may write.
//!
//! A callee that writes no memory visible to its caller clobbers nothing; one that writes
//! only through its pointer arguments clobbers the objects those arguments point into; any
//! other callee clobbers every base other code may reach, as before.
//!
//! A function that may synchronize with another thread (an atomic operation or a fence,
//! and, in a module where another thread may run, `reach::may_run_asynchronously`, an
//! allocation; directly or through the functions it calls) gets no effects: another
//! thread's writes may be seen after its call (`lift/memory.rs`), which LLVM's effects,
//! about this thread's own accesses, do not say.
//!
//! **Invariant:** the only attributes the inference adds to the module are each function's
//! `memory` attribute and its pointer parameters' `readonly`, `readnone` and `writeonly`;
//! its instructions are unchanged.

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::TargetMachine;

use std::collections::{HashMap, HashSet};

use super::error::FrontendError;
use super::raw;

/// Where a function may access memory, per LLVM's `MemoryEffects`: two bits (read, write)
/// for each of its locations, arguments' memory, inaccessible memory and any other memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryEffects(u64);

/// The locations of `MemoryEffects`, in the order of their bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    /// Memory based on the function's pointer arguments.
    Arguments = 0,
    /// Memory no code of the module can name (the allocator's state).
    Inaccessible = 1,
    /// Every other object: globals, and objects reached through loaded pointers.
    Other = 2,
}

impl MemoryEffects {
    /// Any access anywhere: what a function without the attribute may do.
    pub const UNKNOWN: MemoryEffects = MemoryEffects(0b11_11_11);

    /// The effects as LLVM encodes them in the value of the `memory` attribute.
    pub fn from_encoding(value: u64) -> MemoryEffects {
        MemoryEffects(value & Self::UNKNOWN.0)
    }

    /// Whether the function may write `location`.
    pub fn writes(self, location: Location) -> bool {
        (self.0 >> (2 * location as u64)) & 0b10 != 0
    }

    /// The effects of a call of `callee`: those LLVM inferred from its body ([`infer`]);
    /// any for a function without one, whose declared attributes are promises of the
    /// source, not facts.
    pub fn of_callee(callee: LLVMValueRef) -> MemoryEffects {
        if !raw::is_defined(callee) {
            return MemoryEffects::UNKNOWN;
        }
        let index = inkwell::llvm_sys::LLVMAttributeFunctionIndex;
        let attr = unsafe { LLVMGetEnumAttributeAtIndex(callee, index, kind_of("memory")) };
        if attr.is_null() {
            MemoryEffects::UNKNOWN
        } else {
            MemoryEffects::from_encoding(unsafe { LLVMGetEnumAttributeValue(attr) })
        }
    }
}

/// Whether `callee`, a defined function, never writes through its argument `k` (LLVM
/// inferred `readonly` or `readnone` for the parameter).
pub fn argument_not_written(callee: LLVMValueRef, k: u32) -> bool {
    let index = k + 1;
    raw::is_defined(callee)
        && k < unsafe { LLVMCountParams(callee) }
        && ["readonly", "readnone"].into_iter().any(|name| unsafe {
            !LLVMGetEnumAttributeAtIndex(callee, index, kind_of(name)).is_null()
        })
}

fn kind_of(name: &str) -> u32 {
    unsafe { LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len()) }
}

/// The attributes copied from the inference: the function's effects and its parameters'.
const INFERRED: [&str; 4] = ["memory", "readonly", "readnone", "writeonly"];

/// Gives each defined function of the module the memory effects LLVM's `function-attrs`
/// infers for it, and nothing else.
///
/// The inference runs on a copy of the module, after `inferattrs` (what the C library's
/// functions may write, as LLVM knows them: `malloc` only the allocator's state, `strlen`
/// nothing) and `sroa` (before it, every argument goes through a local, and a write through
/// it is not seen as a write through an argument). The module itself keeps its instructions
/// (the checked operations are not kept alive yet) and gets no other attribute: `dce` would
/// delete a call of a `willreturn` function whose result is unused, and the checks of that
/// call (its arguments against the callee's preconditions) with it.
pub fn infer(module: &Module<'_>, machine: &TargetMachine) -> Result<(), FrontendError> {
    let inferred: Vec<u32> = INFERRED.iter().map(|name| kind_of(name)).collect();
    let m = module.as_mut_ptr();
    // What the source declares (`__attribute__((pure))`) is a promise, not a fact.
    forget(m, &inferred);
    let copy = module.clone();
    copy.run_passes(
        "inferattrs,function(sroa),cgscc(function-attrs)",
        machine,
        PassBuilderOptions::create(),
    )
    .map_err(|e| FrontendError::Passes {
        message: e.to_string(),
    })?;
    let synchronizing = may_synchronize(m, super::reach::may_run_asynchronously(m));
    for func in raw::functions(m) {
        let name = raw::name(func);
        if !raw::is_defined(func) || name.is_empty() || synchronizing.contains(&func) {
            continue;
        }
        let Ok(c_name) = std::ffi::CString::new(name) else {
            continue;
        };
        let twin = unsafe { LLVMGetNamedFunction(copy.as_mut_ptr(), c_name.as_ptr()) };
        if twin.is_null() || !raw::is_defined(twin) {
            continue;
        }
        for index in attribute_indices(func) {
            for &kind in &inferred {
                let attr = unsafe { LLVMGetEnumAttributeAtIndex(twin, index, kind) };
                if !attr.is_null() {
                    unsafe { LLVMAddAttributeAtIndex(func, index, attr) };
                }
            }
        }
    }
    Ok(())
}

/// The defined functions that may synchronize with another thread: those with an atomic
/// operation, a fence or (with `allocations`) a call of an allocation function, and their
/// callers.
fn may_synchronize(m: LLVMModuleRef, allocations: bool) -> HashSet<LLVMValueRef> {
    let graph = super::normalize::call_graph(m);
    let mut callers: HashMap<LLVMValueRef, Vec<LLVMValueRef>> = HashMap::new();
    for (caller, callees) in &graph {
        for callee in callees {
            callers.entry(*callee).or_default().push(*caller);
        }
    }
    let mut found: HashSet<LLVMValueRef> = HashSet::new();
    let mut work: Vec<LLVMValueRef> = raw::functions(m)
        .into_iter()
        .filter(|f| raw::is_defined(*f) && synchronizes_itself(*f, allocations))
        .collect();
    while let Some(f) = work.pop() {
        if found.insert(f) {
            work.extend(callers.get(&f).into_iter().flatten().copied());
        }
    }
    found
}

/// Whether `func` has an atomic operation, a fence or (with `allocations`) a call of an
/// allocation function.
fn synchronizes_itself(func: LLVMValueRef, allocations: bool) -> bool {
    use inkwell::llvm_sys::{LLVMAtomicOrdering, LLVMOpcode};
    raw::blocks(func).into_iter().any(|b| {
        raw::instructions(b)
            .into_iter()
            .any(|i| match raw::opcode(i) {
                LLVMOpcode::LLVMFence
                | LLVMOpcode::LLVMAtomicRMW
                | LLVMOpcode::LLVMAtomicCmpXchg => true,
                LLVMOpcode::LLVMLoad | LLVMOpcode::LLVMStore => unsafe {
                    LLVMGetOrdering(i) != LLVMAtomicOrdering::LLVMAtomicOrderingNotAtomic
                },
                LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke => {
                    let callee = unsafe { LLVMGetCalledValue(i) };
                    allocations
                        && !callee.is_null()
                        && super::library_model::orders_allocations(&raw::name(callee))
                }
                _ => false,
            })
    })
}

/// Removes the attributes of `kinds` from every defined function and its parameters.
fn forget(m: LLVMModuleRef, kinds: &[u32]) {
    for func in raw::functions(m)
        .into_iter()
        .filter(|f| raw::is_defined(*f))
    {
        for index in attribute_indices(func) {
            for &kind in kinds {
                unsafe { LLVMRemoveEnumAttributeAtIndex(func, index, kind) };
            }
        }
    }
}

/// The function's attribute index and its parameters'.
fn attribute_indices(func: LLVMValueRef) -> impl Iterator<Item = u32> {
    std::iter::once(inkwell::llvm_sys::LLVMAttributeFunctionIndex)
        .chain(1..=unsafe { LLVMCountParams(func) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_encoding_has_two_bits_per_location_arguments_first() {
        // `memory(argmem: write)`, `memory(read)`, `memory(write, argmem: none,
        // inaccessiblemem: none)` as LLVM 19 encodes them.
        let argmem_write = MemoryEffects::from_encoding(0b00_00_10);
        assert!(argmem_write.writes(Location::Arguments));
        assert!(!argmem_write.writes(Location::Other));
        let read = MemoryEffects::from_encoding(0b01_01_01);
        for loc in [Location::Arguments, Location::Inaccessible, Location::Other] {
            assert!(!read.writes(loc));
        }
        let globals = MemoryEffects::from_encoding(0b10_00_00);
        assert!(globals.writes(Location::Other));
        assert!(!globals.writes(Location::Arguments));
        assert!(MemoryEffects::UNKNOWN.writes(Location::Inaccessible));
    }
}
