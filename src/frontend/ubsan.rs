//! Checks as clang's UBSan inserts them: array bounds (`--checks bounds`) and shift bases
//! (`--checks shift`).
//!
//! With `--checks bounds` the analysis bitcode is compiled with `-fsanitize=array-bounds`
//! (`compile::clang_args`): before every subscript `a[i]` of an array whose size clang knows
//! statically (a local or global array, an array member of a struct that is not its last
//! member, each dimension of a multi-dimensional array), clang compares the index, read
//! unsigned, with the size and calls `__ubsan_handle_out_of_bounds[_abort]` when it is out
//! of range. That call is the check's error site, so the condition is UBSan's own and the
//! native replay, built with the same sanitizer, calls the handler at the very same place:
//! the location is read from the handler's static data (file, line, column of the
//! subscript's base), not from the call's debug location (which is the enclosing
//! expression's).
//!
//! One strengthening: clang compares `i <= size` (not `<`) when the subscript is not
//! "accessed" in its sense, which includes `a[i]++` and `a[i].field`; the element is read or
//! written there all the same. When the address the subscript computes is read, written or
//! copied ([`guards_accessed_subscript`]), the lifter compares `i < size` instead, so that a
//! proved check means the element accessed is inside the array. A violation at `i == size`
//! there is not one UBSan reports, so it is never confirmed (the check stays unknown);
//! `&a[size]` alone (one past the end, which C allows) keeps clang's `<=`.
//!
//! Shift bases (`--checks shift`) alike: the bitcode is compiled with `-fsanitize=shift-base`,
//! so before every `<<` whose (promoted) left operand is signed, clang tests, when the amount
//! `b` is below the width `w`, that `a >> (w - 1 - b)` (logical) is zero: the base is not
//! negative and no one bit reaches the sign bit (C11 6.5.7p4, which clang applies in every C
//! mode; C++ before C++20 allows a one into the sign bit, and `-fwrapv` drops the test, in
//! the analysis and the replay alike). LLVM's `shl` has no signedness, so only clang knows
//! which shifts these are. The call of `__ubsan_handle_shift_out_of_bounds[_abort]` is the
//! check's error site ([`shift_site`]); the amount has a check of its own (the pass
//! `runtime-checks`), so clang's amount test is not asked for.
//!
//! Not checked: accesses through pointers (`p[i]`, `*(a + i)`, a parameter declared
//! `int a[10]`, which is a pointer), and trailing array members of structs (flexible-array
//! idiom): UBSan has no check there, so a violation could never be confirmed by a native
//! run, and for a pointer parameter the object's size is unknown, so no check could be
//! proved either.

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode};

use super::raw;
use crate::ir::SourceLoc;

/// Whether `inst` belongs to a test a sanitizer inserted (metadata `!nosanitize`): the
/// runtime checks leave it alone (the shift-base test's `lshr` by `w - 1 - b` runs only
/// when `b < w`).
pub fn is_sanitizer_code(inst: LLVMValueRef) -> bool {
    const KIND: &str = "nosanitize";
    unsafe {
        let kind = LLVMGetMDKindID(KIND.as_ptr().cast(), KIND.len() as u32);
        !LLVMGetMetadata(inst, kind).is_null()
    }
}

/// When `cmp` is the shift-base test of a constant base `k` (`1 << n`), `lshr k, m == 0`
/// with `m = w - 1 - n`: the amount `m` and the number of significant bits of `k` read
/// unsigned, `s`. The test holds exactly when `m >= s` (`m < w` where it runs), a linear
/// test the analysis can prove, where the shift of a constant by a variable is not.
pub fn constant_base_test(cmp: LLVMValueRef) -> Option<(LLVMValueRef, u32)> {
    let is = |inst: LLVMValueRef, op: LLVMOpcode| {
        let instruction = unsafe { !LLVMIsAInstruction(inst).is_null() };
        instruction && raw::opcode(inst) == op && is_sanitizer_code(inst)
    };
    if !is(cmp, LLVMOpcode::LLVMICmp)
        || unsafe { LLVMGetICmpPredicate(cmp) } != LLVMIntPredicate::LLVMIntEQ
        || raw::const_int_bits(raw::operand(cmp, 1)) != Some(0)
    {
        return None;
    }
    let lshr = raw::operand(cmp, 0);
    if !is(lshr, LLVMOpcode::LLVMLShr) || raw::int_width(raw::type_of(lshr))? > 64 {
        return None;
    }
    let k = raw::const_int_bits(raw::operand(lshr, 0))?;
    Some((raw::operand(lshr, 1), 64 - k.leading_zeros()))
}

/// Whether `name` is UBSan's handler for an out-of-bounds array subscript.
pub fn is_bounds_handler(name: &str) -> bool {
    name == "__ubsan_handle_out_of_bounds" || name == "__ubsan_handle_out_of_bounds_abort"
}

/// Whether `name` is UBSan's handler for a shift (the base's test, see the module
/// documentation).
pub fn is_shift_handler(name: &str) -> bool {
    name == "__ubsan_handle_shift_out_of_bounds"
        || name == "__ubsan_handle_shift_out_of_bounds_abort"
}

/// Whether `name` is the handler of one of the checks clang inserts for the analysis.
pub fn is_handler(name: &str) -> bool {
    is_bounds_handler(name) || is_shift_handler(name)
}

/// What a call of the shift handler reports: the left operand's type as clang names it
/// (`int`) and the source location UBSan prints, from the call's static data
/// `{ { ptr file, i32 line, i32 column }, ptr left type, ptr right type }`.
pub fn shift_site(call: LLVMValueRef) -> (Option<String>, Option<SourceLoc>) {
    static_data(call, 1)
}

/// What a call of the handler reports: the array's type as clang names it (`int[10]`) and
/// the source location UBSan prints, both from the call's static data. `None` for a field
/// that cannot be read (bitcode from another compiler).
pub fn bounds_site(call: LLVMValueRef) -> (Option<String>, Option<SourceLoc>) {
    static_data(call, 1)
}

/// The source location of a handler call's static data (its first field) and the name of
/// the type its field `type_field` describes.
fn static_data(call: LLVMValueRef, type_field: u32) -> (Option<String>, Option<SourceLoc>) {
    if raw::num_args(call) < 1 {
        return (None, None);
    }
    let Some(data) = initializer(raw::operand(call, 0)) else {
        return (None, None);
    };
    // { { ptr file, i32 line, i32 column }, ptr array type, ptr index type }
    let loc = constant_field(data, 0).and_then(|src| {
        let file = constant_field(src, 0)
            .and_then(initializer)
            .and_then(c_string)?;
        let line = constant_field(src, 1).and_then(raw::const_int_bits)? as u32;
        let column = constant_field(src, 2).and_then(raw::const_int_bits)? as u32;
        (line > 0).then(|| SourceLoc {
            file: super::debuginfo::source_path("", &file),
            line,
            column,
        })
    });
    // A type descriptor: { i16 kind, i16 info, [n x i8] "'int[10]'" }.
    let ty = constant_field(data, type_field)
        .and_then(initializer)
        .and_then(|d| constant_field(d, 2))
        .and_then(c_string)
        .map(|name| name.trim_matches('\'').to_string());
    (ty, loc)
}

/// Whether the comparison `cmp` is clang's `index <= size` bounds test of a subscript whose
/// address is then read, written or copied (see the module documentation): its branch goes
/// to a block calling the handler when false, and the first `getelementptr` of the block it
/// goes to when true is accessed.
pub fn guards_accessed_subscript(cmp: LLVMValueRef) -> bool {
    let Some(br) = single_user(cmp) else {
        return false;
    };
    if raw::opcode(br) != LLVMOpcode::LLVMBr || raw::num_successors(br) != 2 {
        return false;
    }
    let (ok, fail) = (raw::successor(br, 0), raw::successor(br, 1));
    if !calls_bounds_handler(fail) {
        return false;
    }
    raw::instructions(ok)
        .into_iter()
        .find(|i| raw::opcode(*i) == LLVMOpcode::LLVMGetElementPtr)
        .is_some_and(|gep| address_accessed(gep, 0))
}

fn calls_bounds_handler(block: LLVMBasicBlockRef) -> bool {
    raw::instructions(block).into_iter().any(|i| {
        raw::opcode(i) == LLVMOpcode::LLVMCall
            && raw::called_function(i).is_some_and(|f| is_bounds_handler(&raw::name(f)))
    })
}

/// Whether memory at the address `ptr` (or at a field or element computed from it) is
/// loaded, stored or copied.
fn address_accessed(ptr: LLVMValueRef, depth: u32) -> bool {
    if depth > 8 {
        return true; // deep chains of fields: assume accessed (the stricter test)
    }
    users(ptr).into_iter().any(|user| match raw::opcode(user) {
        LLVMOpcode::LLVMLoad => true,
        LLVMOpcode::LLVMStore => raw::operand(user, 1) == ptr,
        LLVMOpcode::LLVMAtomicRMW | LLVMOpcode::LLVMAtomicCmpXchg => raw::operand(user, 0) == ptr,
        LLVMOpcode::LLVMGetElementPtr => {
            raw::operand(user, 0) == ptr && address_accessed(user, depth + 1)
        }
        LLVMOpcode::LLVMCall => raw::called_function(user).is_some_and(|f| {
            let name = raw::name(f);
            name.starts_with("llvm.memcpy")
                || name.starts_with("llvm.memmove")
                || name.starts_with("llvm.memset")
        }),
        _ => false,
    })
}

fn users(value: LLVMValueRef) -> Vec<LLVMValueRef> {
    let mut res = Vec::new();
    unsafe {
        let mut u = LLVMGetFirstUse(value);
        while !u.is_null() {
            res.push(LLVMGetUser(u));
            u = LLVMGetNextUse(u);
        }
    }
    res
}

fn single_user(value: LLVMValueRef) -> Option<LLVMValueRef> {
    match users(value).as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// The initializer of a global variable.
fn initializer(value: LLVMValueRef) -> Option<LLVMValueRef> {
    unsafe {
        if LLVMIsAGlobalVariable(value).is_null() {
            return None;
        }
        let init = LLVMGetInitializer(value);
        (!init.is_null()).then_some(init)
    }
}

/// Field `idx` of a constant struct.
fn constant_field(value: LLVMValueRef, idx: u32) -> Option<LLVMValueRef> {
    unsafe {
        if LLVMIsAConstantStruct(value).is_null() || idx >= raw::num_operands(value) {
            return None;
        }
    }
    Some(raw::operand(value, idx))
}

/// The text of a constant C string (without its terminating NUL).
fn c_string(value: LLVMValueRef) -> Option<String> {
    raw::constant_string(value).map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
}
