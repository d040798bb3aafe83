//! Source locations and source variable names from LLVM debug info.

use std::collections::HashMap;

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::debuginfo::*;
use inkwell::llvm_sys::prelude::*;

use super::conventions;
use super::raw;
use crate::ir::SourceLoc;

fn kind(md: LLVMMetadataRef) -> LLVMMetadataKind {
    unsafe { LLVMGetMetadataKind(md) }
}

/// The operands of an MDNode, as values (`MetadataAsValue` for metadata operands).
fn md_operands(ctx: LLVMContextRef, md: LLVMMetadataRef) -> Vec<LLVMValueRef> {
    unsafe {
        let as_value = LLVMMetadataAsValue(ctx, md);
        let n = LLVMGetMDNodeNumOperands(as_value) as usize;
        let mut ops = vec![std::ptr::null_mut(); n];
        if n > 0 {
            LLVMGetMDNodeOperands(as_value, ops.as_mut_ptr());
        }
        ops
    }
}

fn is_md_node(md: LLVMMetadataRef) -> bool {
    use LLVMMetadataKind::*;
    !matches!(
        kind(md),
        LLVMMDStringMetadataKind
            | LLVMConstantAsMetadataMetadataKind
            | LLVMLocalAsMetadataMetadataKind
            | LLVMDistinctMDOperandPlaceholderMetadataKind
            | LLVMDIArgListMetadataKind
    )
}

fn file_of_scope(scope: LLVMMetadataRef) -> Option<String> {
    if scope.is_null() {
        return None;
    }
    unsafe {
        let file = LLVMDIScopeGetFile(scope);
        if file.is_null() {
            return None;
        }
        let mut len = 0u32;
        let ptr = LLVMDIFileGetFilename(file, &mut len);
        if ptr.is_null() {
            return None;
        }
        let bytes = std::slice::from_raw_parts(ptr as *const u8, len as usize);
        Some(String::from_utf8_lossy(bytes).into_owned())
    }
}

fn loc_of_dilocation(loc: LLVMMetadataRef) -> Option<SourceLoc> {
    unsafe {
        let line = LLVMDILocationGetLine(loc);
        if line == 0 {
            return None;
        }
        let column = LLVMDILocationGetColumn(loc);
        let file = file_of_scope(LLVMDILocationGetScope(loc)).unwrap_or_default();
        Some(SourceLoc { file, line, column })
    }
}

/// The source location of an instruction (`None` without `!dbg` or on line 0).
pub fn location(inst: LLVMValueRef) -> Option<SourceLoc> {
    let loc = unsafe { LLVMInstructionGetDebugLoc(inst) };
    if loc.is_null() {
        return None;
    }
    loc_of_dilocation(loc)
}

/// The name of the function (DISubprogram) a scope belongs to.
fn subprogram_name(ctx: LLVMContextRef, mut scope: LLVMMetadataRef) -> Option<String> {
    use LLVMMetadataKind::*;
    for _ in 0..64 {
        if scope.is_null() {
            return None;
        }
        match kind(scope) {
            LLVMDISubprogramMetadataKind => {
                // DISubprogram operands: file, scope, name, linkage name, ...
                let ops = md_operands(ctx, scope);
                return ops.get(2).and_then(|v| {
                    if v.is_null() {
                        None
                    } else {
                        raw::md_string(*v)
                    }
                });
            }
            LLVMDILexicalBlockMetadataKind | LLVMDILexicalBlockFileMetadataKind => {
                // DILexicalBlockBase operands: file, scope, ...
                let ops = md_operands(ctx, scope);
                let parent = ops.get(1).copied().unwrap_or(std::ptr::null_mut());
                if parent.is_null() {
                    return None;
                }
                scope = unsafe { LLVMValueAsMetadata(parent) };
            }
            _ => return None,
        }
    }
    None
}

/// The location of an assertion whose error call is `inst`: the call itself, or, when it
/// sits in an inlined wrapper such as `__VERIFIER_assert`, the call of the wrapper.
pub fn check_location(inst: LLVMValueRef) -> Option<SourceLoc> {
    unsafe {
        let mut loc = LLVMInstructionGetDebugLoc(inst);
        if loc.is_null() {
            return None;
        }
        let ctx = LLVMGetTypeContext(LLVMTypeOf(inst));
        for _ in 0..64 {
            let inlined_at = LLVMDILocationGetInlinedAt(loc);
            if inlined_at.is_null() {
                break;
            }
            match subprogram_name(ctx, LLVMDILocationGetScope(loc)) {
                Some(name) if conventions::is_wrapper(&name) => loc = inlined_at,
                _ => break,
            }
        }
        loc_of_dilocation(loc)
    }
}

/// Where a function is defined, from its DISubprogram.
pub fn function_location(func: LLVMValueRef) -> Option<SourceLoc> {
    unsafe {
        let sp = LLVMGetSubprogram(func);
        if sp.is_null() {
            return None;
        }
        let line = LLVMDISubprogramGetLine(sp);
        let file = file_of_scope(sp).unwrap_or_default();
        Some(SourceLoc {
            file,
            line,
            column: 0,
        })
    }
}

/// Source variable names of SSA values, from the `llvm.dbg.value` calls of a function
/// (the module must be in the old debug-info format, see `normalize`). The first name
/// wins.
pub fn source_names(func: LLVMValueRef) -> HashMap<LLVMValueRef, String> {
    let mut res = HashMap::new();
    for block in raw::blocks(func) {
        for inst in raw::instructions(block) {
            if raw::opcode(inst) != inkwell::llvm_sys::LLVMOpcode::LLVMCall {
                continue;
            }
            let Some(callee) = raw::called_function(inst) else {
                continue;
            };
            if raw::name(callee) != "llvm.dbg.value" || raw::num_args(inst) < 2 {
                continue;
            }
            if let Some((value, name)) = dbg_value_pair(inst) {
                res.entry(value).or_insert(name);
            }
        }
    }
    res
}

fn dbg_value_pair(call: LLVMValueRef) -> Option<(LLVMValueRef, String)> {
    unsafe {
        let ctx = LLVMGetTypeContext(LLVMTypeOf(call));
        let value_op = raw::operand(call, 0);
        let var_op = raw::operand(call, 1);
        if value_op.is_null() || var_op.is_null() {
            return None;
        }
        if !raw::is_metadata(raw::type_of(value_op)) || !raw::is_metadata(raw::type_of(var_op)) {
            return None;
        }
        let value_md = LLVMValueAsMetadata(value_op);
        if !matches!(
            kind(value_md),
            LLVMMetadataKind::LLVMLocalAsMetadataMetadataKind
        ) {
            return None;
        }
        let mut value = std::ptr::null_mut();
        LLVMGetMDNodeOperands(value_op, &mut value);
        if value.is_null() {
            return None;
        }
        let var_md = LLVMValueAsMetadata(var_op);
        if !matches!(
            kind(var_md),
            LLVMMetadataKind::LLVMDILocalVariableMetadataKind
        ) || !is_md_node(var_md)
        {
            return None;
        }
        // DIVariable operands: scope, name, file, type, ...
        let ops = md_operands(ctx, var_md);
        let name = ops.get(1).and_then(|v| {
            if v.is_null() {
                None
            } else {
                raw::md_string(*v)
            }
        })?;
        Some((value, name))
    }
}
