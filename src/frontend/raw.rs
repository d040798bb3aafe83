//! Thin wrappers over the raw LLVM C API (`inkwell::llvm_sys`) used by normalization and
//! lifting. Every reference passed in must come from a module that is alive.
//!
//! The safe inkwell API panics on some operands (metadata); these wrappers never do.

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode, LLVMTypeKind};

use crate::ir::CmpPred;

/// Iterates the functions of a module.
pub fn functions(module: LLVMModuleRef) -> Vec<LLVMValueRef> {
    let mut res = Vec::new();
    unsafe {
        let mut f = LLVMGetFirstFunction(module);
        while !f.is_null() {
            res.push(f);
            f = LLVMGetNextFunction(f);
        }
    }
    res
}

/// Iterates the global variables of a module.
pub fn globals(module: LLVMModuleRef) -> Vec<LLVMValueRef> {
    let mut res = Vec::new();
    unsafe {
        let mut g = LLVMGetFirstGlobal(module);
        while !g.is_null() {
            res.push(g);
            g = LLVMGetNextGlobal(g);
        }
    }
    res
}

/// The blocks of a function, in layout order (entry first).
pub fn blocks(func: LLVMValueRef) -> Vec<LLVMBasicBlockRef> {
    let mut res = Vec::new();
    unsafe {
        let mut b = LLVMGetFirstBasicBlock(func);
        while !b.is_null() {
            res.push(b);
            b = LLVMGetNextBasicBlock(b);
        }
    }
    res
}

/// The instructions of a block, in order.
pub fn instructions(block: LLVMBasicBlockRef) -> Vec<LLVMValueRef> {
    let mut res = Vec::new();
    unsafe {
        let mut i = LLVMGetFirstInstruction(block);
        while !i.is_null() {
            res.push(i);
            i = LLVMGetNextInstruction(i);
        }
    }
    res
}

/// True when the function has a body.
pub fn is_defined(func: LLVMValueRef) -> bool {
    unsafe { LLVMIsDeclaration(func) == 0 }
}

/// The name of a value ("" when it has none).
pub fn name(value: LLVMValueRef) -> String {
    unsafe {
        let mut len = 0usize;
        let ptr = LLVMGetValueName2(value, &mut len);
        if ptr.is_null() || len == 0 {
            return String::new();
        }
        let bytes = std::slice::from_raw_parts(ptr as *const u8, len);
        String::from_utf8_lossy(bytes).into_owned()
    }
}

/// The opcode of an instruction.
pub fn opcode(inst: LLVMValueRef) -> LLVMOpcode {
    unsafe { LLVMGetInstructionOpcode(inst) }
}

/// The type of a value.
pub fn type_of(value: LLVMValueRef) -> LLVMTypeRef {
    unsafe { LLVMTypeOf(value) }
}

/// The width of an integer type, `None` for any other type.
pub fn int_width(ty: LLVMTypeRef) -> Option<u32> {
    unsafe {
        if LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMIntegerTypeKind {
            Some(LLVMGetIntTypeWidth(ty))
        } else {
            None
        }
    }
}

/// True for pointer types.
pub fn is_pointer(ty: LLVMTypeRef) -> bool {
    unsafe { LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMPointerTypeKind }
}

/// True for the metadata type (operands of debug intrinsics).
pub fn is_metadata(ty: LLVMTypeRef) -> bool {
    unsafe { LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMMetadataTypeKind }
}

/// Number of operands.
pub fn num_operands(value: LLVMValueRef) -> u32 {
    unsafe { LLVMGetNumOperands(value).max(0) as u32 }
}

/// Operand `idx` (may be null for some operands).
pub fn operand(value: LLVMValueRef, idx: u32) -> LLVMValueRef {
    unsafe { LLVMGetOperand(value, idx) }
}

/// The call instructions of `func` (`call`, `invoke`, `callbr`), in order.
pub fn call_instructions(func: LLVMValueRef) -> impl Iterator<Item = LLVMValueRef> {
    blocks(func).into_iter().flat_map(instructions).filter(|i| {
        matches!(
            opcode(*i),
            LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke | LLVMOpcode::LLVMCallBr
        )
    })
}

/// Whether a call instruction calls an inline assembly block.
pub fn calls_inline_asm(call: LLVMValueRef) -> bool {
    // SAFETY: `call` is a call instruction; its called operand is a value.
    unsafe {
        let callee = LLVMGetCalledValue(call);
        !callee.is_null() && !LLVMIsAInlineAsm(callee).is_null()
    }
}

/// The function a call calls directly, looking through pointer casts; `None` when indirect.
pub fn called_function(call: LLVMValueRef) -> Option<LLVMValueRef> {
    unsafe {
        let mut callee = LLVMGetCalledValue(call);
        for _ in 0..4 {
            if callee.is_null() {
                return None;
            }
            if !LLVMIsAFunction(callee).is_null() {
                return Some(callee);
            }
            if !LLVMIsAGlobalAlias(callee).is_null() {
                callee = LLVMAliasGetAliasee(callee);
                continue;
            }
            if !LLVMIsAConstantExpr(callee).is_null()
                && matches!(
                    LLVMGetConstOpcode(callee),
                    LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast
                )
            {
                callee = LLVMGetOperand(callee, 0);
                continue;
            }
            return None;
        }
        None
    }
}

/// Number of arguments of a call.
pub fn num_args(call: LLVMValueRef) -> u32 {
    unsafe { LLVMGetNumArgOperands(call) }
}

/// A constant integer's bits (≤ 64 bits wide), `None` when `value` is not a `ConstantInt`.
pub fn const_int_bits(value: LLVMValueRef) -> Option<u64> {
    unsafe {
        if LLVMIsAConstantInt(value).is_null() {
            None
        } else {
            Some(LLVMConstIntGetZExtValue(value))
        }
    }
}

/// True for `undef` and `poison`.
pub fn is_undef(value: LLVMValueRef) -> bool {
    unsafe { LLVMIsUndef(value) != 0 || LLVMIsPoison(value) != 0 }
}

/// True for instructions.
pub fn is_instruction(value: LLVMValueRef) -> bool {
    unsafe { !LLVMIsAInstruction(value).is_null() }
}

/// True for function arguments.
pub fn is_argument(value: LLVMValueRef) -> bool {
    unsafe { !LLVMIsAArgument(value).is_null() }
}

/// The parameters of a function.
pub fn params(func: LLVMValueRef) -> Vec<LLVMValueRef> {
    unsafe {
        let n = LLVMCountParams(func);
        (0..n).map(|i| LLVMGetParam(func, i)).collect()
    }
}

/// Successor `idx` of a terminator.
pub fn successor(term: LLVMValueRef, idx: u32) -> LLVMBasicBlockRef {
    unsafe { LLVMGetSuccessor(term, idx) }
}

/// Number of successors of a terminator.
pub fn num_successors(term: LLVMValueRef) -> u32 {
    unsafe { LLVMGetNumSuccessors(term) }
}

/// The block a value denotes (switch destination operands).
pub fn value_as_block(value: LLVMValueRef) -> LLVMBasicBlockRef {
    unsafe { LLVMValueAsBasicBlock(value) }
}

/// The incoming (value, block) pairs of a phi node.
pub fn incomings(phi: LLVMValueRef) -> Vec<(LLVMValueRef, LLVMBasicBlockRef)> {
    unsafe {
        let n = LLVMCountIncoming(phi);
        (0..n)
            .map(|i| (LLVMGetIncomingValue(phi, i), LLVMGetIncomingBlock(phi, i)))
            .collect()
    }
}

/// Number of instructions in a function.
pub fn instruction_count(func: LLVMValueRef) -> usize {
    blocks(func).iter().map(|b| instructions(*b).len()).sum()
}

/// An MDString's content.
pub fn md_string(value: LLVMValueRef) -> Option<String> {
    unsafe {
        let mut len = 0u32;
        let ptr = LLVMGetMDString(value, &mut len);
        if ptr.is_null() {
            return None;
        }
        let bytes = std::slice::from_raw_parts(ptr as *const u8, len as usize);
        Some(String::from_utf8_lossy(bytes).into_owned())
    }
}

/// The predicate of an `icmp`, in `ir` terms.
pub fn int_predicate(p: LLVMIntPredicate) -> CmpPred {
    use LLVMIntPredicate::*;
    match p {
        LLVMIntEQ => CmpPred::Eq,
        LLVMIntNE => CmpPred::Ne,
        LLVMIntUGT => CmpPred::Ugt,
        LLVMIntUGE => CmpPred::Uge,
        LLVMIntULT => CmpPred::Ult,
        LLVMIntULE => CmpPred::Ule,
        LLVMIntSGT => CmpPred::Sgt,
        LLVMIntSGE => CmpPred::Sge,
        LLVMIntSLT => CmpPred::Slt,
        LLVMIntSLE => CmpPred::Sle,
    }
}
