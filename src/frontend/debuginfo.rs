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
        let text = |ptr: *const std::ffi::c_char, len: u32| {
            (!ptr.is_null()).then(|| {
                let bytes = std::slice::from_raw_parts(ptr as *const u8, len as usize);
                String::from_utf8_lossy(bytes).into_owned()
            })
        };
        let mut len = 0u32;
        let name = text(LLVMDIFileGetFilename(file, &mut len), len)?;
        let mut len = 0u32;
        let directory = text(LLVMDIFileGetDirectory(file, &mut len), len).unwrap_or_default();
        Some(source_path(&directory, &name))
    }
}

/// The name of a source file as every report spells it: relative to the current directory
/// (the source root) when under it, absolute otherwise. Clang records a file relative to its
/// compilation directory (`file`, then `directory`) in debug info, but as given on its
/// command line in UBSan's static data and in its warnings: the same file of a compilation
/// database compiled in `src/lib` was `util.c` for an assertion and `/home/p/src/lib/util.c`
/// for a bounds check.
pub fn source_path(directory: &str, file: &str) -> String {
    thread_local! {
        static KNOWN: std::cell::RefCell<HashMap<(String, String), String>> =
            std::cell::RefCell::new(HashMap::new());
    }
    let key = (directory.to_string(), file.to_string());
    if let Some(known) = KNOWN.with(|k| k.borrow().get(&key).cloned()) {
        return known;
    }
    let resolved = resolve_source_path(directory, file);
    KNOWN.with(|k| k.borrow_mut().insert(key, resolved.clone()));
    resolved
}

fn resolve_source_path(directory: &str, file: &str) -> String {
    use std::path::{Component, Path, PathBuf};
    if file.is_empty() {
        return String::new();
    }
    let path = Path::new(file);
    let joined = if path.is_absolute() || directory.is_empty() {
        path.to_path_buf()
    } else {
        Path::new(directory).join(path)
    };
    let Ok(cwd) = std::env::current_dir() else {
        return file.to_string();
    };
    let absolute = cwd.join(joined);
    // `..` lexically: a header `../include/x.h` of `src/` is `include/x.h`.
    let mut normal = PathBuf::new();
    for c in absolute.components() {
        match c {
            Component::ParentDir => {
                normal.pop();
            }
            Component::CurDir => {}
            c => normal.push(c),
        }
    }
    let canonical_cwd = std::fs::canonicalize(&cwd).unwrap_or_else(|_| cwd.clone());
    let relative = [&cwd, &canonical_cwd]
        .into_iter()
        .find_map(|root| normal.strip_prefix(root).ok())
        .filter(|rel| !rel.as_os_str().is_empty())
        .map(|rel| rel.to_string_lossy().into_owned());
    relative.unwrap_or_else(|| normal.to_string_lossy().into_owned())
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
fn subprogram_name(ctx: LLVMContextRef, scope: LLVMMetadataRef) -> Option<String> {
    let sp = subprogram_of(ctx, scope)?;
    // DISubprogram operands: file, scope, name, linkage name, ...
    let ops = md_operands(ctx, sp);
    ops.get(2).and_then(|v| {
        if v.is_null() {
            None
        } else {
            raw::md_string(*v)
        }
    })
}

/// The function (DISubprogram) a scope belongs to.
fn subprogram_of(ctx: LLVMContextRef, mut scope: LLVMMetadataRef) -> Option<LLVMMetadataRef> {
    use LLVMMetadataKind::*;
    for _ in 0..64 {
        if scope.is_null() {
            return None;
        }
        match kind(scope) {
            LLVMDISubprogramMetadataKind => return Some(scope),
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
    loc_of_dilocation(check_dilocation(inst)?)
}

/// The debug location [`check_location`] reads.
fn check_dilocation(inst: LLVMValueRef) -> Option<LLVMMetadataRef> {
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
        Some(loc)
    }
}

/// Where the code of `func` comes from, at every source location its instructions (and the
/// assertions among them, read as [`check_location`] does) have: its own code, or the code
/// of a function inlined into it. An inlined function is named when it is still defined in
/// the module (its DISubprogram is that function's); otherwise the location is marked as
/// coming from code that is not there ([`crate::ir::UNKNOWN_ORIGIN`]). `defined`: the
/// module's [`subprograms`].
pub fn code_origins(
    func: LLVMValueRef,
    defined: &HashMap<LLVMMetadataRef, String>,
) -> crate::ir::CodeOrigins {
    let mut origins = crate::ir::CodeOrigins::default();
    let own = unsafe { LLVMGetSubprogram(func) };
    if own.is_null() {
        return origins;
    }
    let ctx = unsafe { LLVMGetTypeContext(LLVMTypeOf(func)) };
    for block in raw::blocks(func) {
        for inst in raw::instructions(block) {
            let raw_loc = unsafe { LLVMInstructionGetDebugLoc(inst) };
            if raw_loc.is_null() {
                continue;
            }
            for loc in [Some(raw_loc), check_dilocation(inst)]
                .into_iter()
                .flatten()
            {
                let Some(at) = loc_of_dilocation(loc) else {
                    continue;
                };
                let sp = subprogram_of(ctx, unsafe { LLVMDILocationGetScope(loc) });
                match sp {
                    Some(sp) if sp == own => {
                        origins.own.insert(at);
                    }
                    Some(sp) => {
                        let from = defined
                            .get(&sp)
                            .cloned()
                            .unwrap_or_else(|| crate::ir::UNKNOWN_ORIGIN.to_string());
                        origins.inlined.entry(at).or_default().insert(from);
                    }
                    None => {
                        origins
                            .inlined
                            .entry(at)
                            .or_default()
                            .insert(crate::ir::UNKNOWN_ORIGIN.to_string());
                    }
                }
            }
        }
    }
    origins
}

/// The DISubprogram of each function defined in `module`, with the function's name.
pub fn subprograms(module: LLVMModuleRef) -> HashMap<LLVMMetadataRef, String> {
    raw::functions(module)
        .into_iter()
        .filter(|f| raw::is_defined(*f))
        .filter_map(|f| {
            let sp = unsafe { LLVMGetSubprogram(f) };
            (!sp.is_null()).then(|| (sp, raw::name(f)))
        })
        .collect()
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
        // A piece of an aggregate (a field SROA split off) is named after its member, so
        // two fields of `st` print as `st.hits` and `st.misses`, not both as `st`.
        let fragment = raw::operand(call, 2);
        let member = match (fragment_of(fragment), ops.get(3)) {
            (Some((offset, size)), Some(ty)) if !ty.is_null() => {
                member_path(ctx, LLVMValueAsMetadata(*ty), offset, size, 0)
            }
            _ => None,
        };
        Some((value, name + &member.unwrap_or_default()))
    }
}

/// The `(offset, size)` in bits of a `DW_OP_LLVM_fragment` in the DIExpression operand of a
/// `llvm.dbg.value` call. The C API has no accessor for expression elements, so they are
/// read from the expression's printed form.
fn fragment_of(expr: LLVMValueRef) -> Option<(u64, u64)> {
    if expr.is_null() {
        return None;
    }
    let text = unsafe {
        let ptr = LLVMPrintValueToString(expr);
        if ptr.is_null() {
            return None;
        }
        let text = std::ffi::CStr::from_ptr(ptr).to_string_lossy().into_owned();
        LLVMDisposeMessage(ptr);
        text
    };
    let rest = &text[text.find("DW_OP_LLVM_fragment")? + "DW_OP_LLVM_fragment".len()..];
    let mut numbers = rest
        .split(|c: char| c == ',' || c == ')')
        .map(str::trim)
        .filter(|t| !t.is_empty());
    let offset = numbers.next()?.parse().ok()?;
    let size = numbers.next()?.parse().ok()?;
    Some((offset, size))
}

// DWARF tags of the types a fragment is looked up in.
const DW_TAG_ARRAY_TYPE: u16 = 0x01;
const DW_TAG_MEMBER: u16 = 0x0d;
const DW_TAG_STRUCTURE_TYPE: u16 = 0x13;
const DW_TAG_TYPEDEF: u16 = 0x16;
const DW_TAG_UNION_TYPE: u16 = 0x17;
const DW_TAG_CONST_TYPE: u16 = 0x26;
const DW_TAG_VOLATILE_TYPE: u16 = 0x35;
const DW_TAG_CLASS_TYPE: u16 = 0x02;

/// Type operand `idx` of a DIType node (3: the base type of a derived type; 4: the
/// elements of a composite type).
fn type_operand(ctx: LLVMContextRef, ty: LLVMMetadataRef, idx: usize) -> Option<LLVMMetadataRef> {
    let ops = md_operands(ctx, ty);
    let op = *ops.get(idx)?;
    if op.is_null() {
        return None;
    }
    Some(unsafe { LLVMValueAsMetadata(op) })
}

/// The source path (`.hits`, `.pos.x`, `[2]`) of the bits `[offset, offset + size)` of a
/// value of type `ty`; `None` when they are not exactly one member (a union, padding, or a
/// type the debug info does not describe).
fn member_path(
    ctx: LLVMContextRef,
    ty: LLVMMetadataRef,
    offset: u64,
    size: u64,
    depth: usize,
) -> Option<String> {
    if depth > 16 || ty.is_null() || !is_md_node(ty) {
        return None;
    }
    let tag = unsafe { LLVMGetDINodeTag(ty) };
    let type_size = unsafe { LLVMDITypeGetSizeInBits(ty) };
    match tag {
        DW_TAG_TYPEDEF | DW_TAG_CONST_TYPE | DW_TAG_VOLATILE_TYPE | DW_TAG_MEMBER => {
            let base = type_operand(ctx, ty, 3)?;
            member_path(ctx, base, offset, size, depth + 1)
        }
        _ if offset == 0 && size == type_size => Some(String::new()),
        DW_TAG_STRUCTURE_TYPE | DW_TAG_CLASS_TYPE => {
            let elements = type_operand(ctx, ty, 4)?;
            for op in md_operands(ctx, elements) {
                if op.is_null() {
                    continue;
                }
                let member = unsafe { LLVMValueAsMetadata(op) };
                if !is_md_node(member) || unsafe { LLVMGetDINodeTag(member) } != DW_TAG_MEMBER {
                    continue;
                }
                let (m_offset, m_size) = unsafe {
                    (
                        LLVMDITypeGetOffsetInBits(member),
                        LLVMDITypeGetSizeInBits(member),
                    )
                };
                if offset < m_offset || offset + size > m_offset + m_size {
                    continue;
                }
                let name = type_name(member)?;
                let inner = member_path(ctx, member, offset - m_offset, size, depth + 1)?;
                return Some(format!(".{name}{inner}"));
            }
            None
        }
        DW_TAG_ARRAY_TYPE => {
            let element = type_operand(ctx, ty, 3)?;
            let e_size = element_size(ctx, element, depth)?;
            if e_size == 0 {
                return None;
            }
            let index = offset / e_size;
            let inner = member_path(ctx, element, offset - index * e_size, size, depth + 1)?;
            Some(format!("[{index}]{inner}"))
        }
        // A union's members overlap: which one is meant is not known.
        DW_TAG_UNION_TYPE => None,
        _ => None,
    }
}

/// The size in bits of a type, looking through typedefs and qualifiers (which record 0).
fn element_size(ctx: LLVMContextRef, ty: LLVMMetadataRef, depth: usize) -> Option<u64> {
    if depth > 16 || !is_md_node(ty) {
        return None;
    }
    let size = unsafe { LLVMDITypeGetSizeInBits(ty) };
    if size > 0 {
        return Some(size);
    }
    match unsafe { LLVMGetDINodeTag(ty) } {
        DW_TAG_TYPEDEF | DW_TAG_CONST_TYPE | DW_TAG_VOLATILE_TYPE => {
            element_size(ctx, type_operand(ctx, ty, 3)?, depth + 1)
        }
        _ => None,
    }
}

fn type_name(ty: LLVMMetadataRef) -> Option<String> {
    unsafe {
        let mut len = 0usize;
        let ptr = LLVMDITypeGetName(ty, &mut len);
        if ptr.is_null() || len == 0 {
            return None;
        }
        let bytes = std::slice::from_raw_parts(ptr as *const u8, len);
        Some(String::from_utf8_lossy(bytes).into_owned())
    }
}
