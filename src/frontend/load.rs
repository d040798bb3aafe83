//! Reading the inputs (C through clang, bitcode, textual IR) and linking them into one module.

use std::path::{Path, PathBuf};

use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;

use super::compile;
use super::config::FrontendConfig;
use super::error::FrontendError;

/// The kind of an input file, from its extension.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum InputKind {
    C,
    Bitcode,
    TextIr,
}

fn input_kind(path: &Path) -> Result<InputKind, FrontendError> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("c") | Some("i") => Ok(InputKind::C),
        Some("bc") => Ok(InputKind::Bitcode),
        Some("ll") => Ok(InputKind::TextIr),
        _ => Err(FrontendError::UnknownExtension {
            path: path.to_path_buf(),
        }),
    }
}

/// Checks that `path` names a readable, non-empty regular file.
fn check_file(path: &Path) -> Result<(), FrontendError> {
    let meta = std::fs::metadata(path).map_err(|source| FrontendError::reading(path, source))?;
    if meta.is_dir() {
        return Err(FrontendError::Directory {
            path: path.to_path_buf(),
        });
    }
    if meta.len() == 0 {
        return Err(FrontendError::Empty {
            path: path.to_path_buf(),
        });
    }
    Ok(())
}

/// Reads every input into `ctx` and links them into one module; with the places where clang
/// folded a signed overflow (see `compile::folded_overflows`).
pub fn load_module<'ctx>(
    ctx: &'ctx Context,
    config: &FrontendConfig,
) -> Result<(Module<'ctx>, Vec<crate::ir::SourceLoc>), FrontendError> {
    if config.inputs.is_empty() {
        return Err(FrontendError::NoInputs);
    }
    // Check every input before running clang on any of them.
    let mut kinds = Vec::new();
    for path in &config.inputs {
        check_file(path)?;
        kinds.push(input_kind(path)?);
    }
    let tmp = if kinds.contains(&InputKind::C) {
        Some(tempfile::tempdir().map_err(|source| FrontendError::Io {
            path: std::env::temp_dir(),
            source,
        })?)
    } else {
        None
    };
    let mut linked: Option<Module<'ctx>> = None;
    let mut folded = Vec::new();
    for (idx, (path, kind)) in config.inputs.iter().zip(kinds).enumerate() {
        let module = match kind {
            InputKind::C => {
                let dir = tmp.as_ref().expect("temp dir exists for C inputs").path();
                let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("input");
                let out: PathBuf = dir.join(format!("{idx}-{stem}.bc"));
                folded.extend(compile::compile_c(config, path, &out)?);
                parse_bitcode(ctx, &out, path)?
            }
            InputKind::Bitcode => parse_bitcode(ctx, path, path)?,
            InputKind::TextIr => parse_text(ctx, path)?,
        };
        match &linked {
            None => linked = Some(module),
            Some(main) => main
                .link_in_module(module)
                .map_err(|msg| FrontendError::Link {
                    path: path.clone(),
                    message: msg.to_string().trim().to_string(),
                })?,
        }
    }
    Ok((linked.expect("at least one input"), folded))
}

const BITCODE_MAGIC: [u8; 4] = [b'B', b'C', 0xC0, 0xDE];
const WRAPPER_MAGIC: [u8; 4] = [0xDE, 0xC0, 0x17, 0x0B];

/// Parses bitcode from `file`; errors name `shown` (the user's input).
fn parse_bitcode<'ctx>(
    ctx: &'ctx Context,
    file: &Path,
    shown: &Path,
) -> Result<Module<'ctx>, FrontendError> {
    let bytes = std::fs::read(file).map_err(|source| FrontendError::Io {
        path: shown.to_path_buf(),
        source,
    })?;
    if bytes.is_empty() {
        return Err(FrontendError::Empty {
            path: shown.to_path_buf(),
        });
    }
    if bytes.len() < 4 || (bytes[..4] != BITCODE_MAGIC && bytes[..4] != WRAPPER_MAGIC) {
        return Err(FrontendError::NotBitcode {
            path: shown.to_path_buf(),
        });
    }
    let name = shown.display().to_string();
    let buffer = MemoryBuffer::create_from_memory_range_copy(&bytes, &name);
    Module::parse_bitcode_from_buffer(&buffer, ctx).map_err(|msg| FrontendError::BadBitcode {
        path: shown.to_path_buf(),
        message: msg.to_string().trim().to_string(),
    })
}

fn parse_text<'ctx>(ctx: &'ctx Context, path: &Path) -> Result<Module<'ctx>, FrontendError> {
    let bytes = std::fs::read(path).map_err(|source| FrontendError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let name = path.display().to_string();
    let buffer = MemoryBuffer::create_from_memory_range_copy(&bytes, &name);
    ctx.create_module_from_ir(buffer)
        .map_err(|msg| FrontendError::BadIr {
            path: path.to_path_buf(),
            message: msg.to_string().trim().to_string(),
        })
}
