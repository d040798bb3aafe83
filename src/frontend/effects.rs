//! What a call may write: the memory effects LLVM infers for each defined function
//! (`function-attrs`), kept on the module so that the lifter clobbers at a call only the
//! objects the callee may write.
//!
//! A callee that writes no memory visible to its caller clobbers nothing; one that writes
//! only through its pointer arguments clobbers the objects those arguments point into; any
//! other callee clobbers every base other code may reach, as before.
//!
//! **Invariant:** the only attributes the inference adds to the module are each function's
//! `memory` attribute and its pointer parameters' `readonly`, `readnone` and `writeonly`;
//! its instructions are unchanged.

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::TargetMachine;

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
    for func in raw::functions(m) {
        let name = raw::name(func);
        if !raw::is_defined(func) || name.is_empty() {
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
