//! Compiling C inputs to bitcode with clang.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::config::{DataModel, FrontendConfig};
use super::error::FrontendError;

/// The clang program: `$POLYFOCUS_CLANG`, else `clang-19` on `PATH`.
pub fn clang_program() -> String {
    std::env::var("POLYFOCUS_CLANG").unwrap_or_else(|_| "clang-19".to_string())
}

/// The directory holding `polyfocus.h`: `$POLYFOCUS_RUNTIME`, else `runtime/` of the crate.
pub fn runtime_dir() -> PathBuf {
    match std::env::var_os("POLYFOCUS_RUNTIME") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime"),
    }
}

/// The clang arguments (without the program) that compile `source` to bitcode `output`.
///
/// The analysis sees the program as C's semantics define it, whatever optimization the user
/// asks for: after the user's flags, `-O0` and `-disable-llvm-passes` keep LLVM's optimizer
/// away, so error calls to an empty `reach_error` survive, uninitialized memory is not
/// refined to another path's value, and `nsw` flags sit on the operations C wrote (where an
/// overflow is undefined behaviour), never on operations speculated into a `select`. Clang
/// marks every function `optnone` at `-O0`: that mark is how `normalize` tells such code
/// from optimized bitcode (and `normalize` removes it before its own passes).
pub fn clang_args(config: &FrontendConfig, source: &Path, output: &Path) -> Vec<String> {
    let mut args: Vec<String> = [
        "-c",
        "-emit-llvm",
        "-g",
        "-O0",
        "-fno-discard-value-names",
        // C89-isms that clang 16+ rejects by default; benchmark programs use them.
        "-Wno-error=implicit-function-declaration",
        "-Wno-error=implicit-int",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(unoptimized_user_flags(config));
    if config.checks.contains(crate::ir::CheckClass::Bounds) {
        // UBSan's subscript checks become the bounds checks (`frontend::ubsan`), with the
        // same condition and place as in the native replay, built with the same sanitizer.
        args.extend(BOUNDS_CHECKS.iter().map(|s| s.to_string()));
    }
    if config.checks.contains(crate::ir::CheckClass::Memory) {
        // A dereference of `NULL` stays in the program: LLVM may otherwise drop the paths
        // that reach one as undefined, and with them the access the memory checks are about.
        args.push("-fno-delete-null-pointer-checks".to_string());
    }
    if config.checks.contains(crate::ir::CheckClass::Shift) {
        // Only clang knows which `<<` is signed: its shift-base tests become the checks of
        // the base (`frontend::ubsan`); the amount is checked by the pass `runtime-checks`.
        args.extend(SHIFT_BASE_CHECKS.iter().map(|s| s.to_string()));
    }
    args.push(source.display().to_string());
    args.push("-o".into());
    args.push(output.display().to_string());
    args
}

/// Flags of the analysis bitcode under `--checks bounds`: clang's array-subscript checks,
/// not recoverable (the handler ends the execution, as in the native replay).
const BOUNDS_CHECKS: [&str; 2] = [
    "-fsanitize=array-bounds",
    "-fno-sanitize-recover=array-bounds",
];

/// Flags of the analysis bitcode under `--checks shift`: clang's test of a signed left
/// shift's base, not recoverable.
const SHIFT_BASE_CHECKS: [&str; 2] = ["-fsanitize=shift-base", "-fno-sanitize-recover=shift-base"];

/// Flags after the user's own: no LLVM pass runs on the bitcode the analysis reads.
const UNOPTIMIZED: [&str; 3] = ["-O0", "-Xclang", "-disable-llvm-passes"];

/// [`target_and_user_flags`], then flags that undo the user's optimization level: the
/// program the analysis reads and the one a native replay runs are C at `-O0` (the last
/// `-O` wins, so `-O2`, `-Os` or `-Ofast` change nothing), where a call to an empty error
/// function is still there to be reached.
pub fn unoptimized_user_flags(config: &FrontendConfig) -> Vec<String> {
    let mut args = target_and_user_flags(config);
    args.extend(UNOPTIMIZED.iter().map(|s| s.to_string()));
    args
}

/// Compiles one C file to the bitcode file `output`.
pub fn compile_c(
    config: &FrontendConfig,
    source: &Path,
    output: &Path,
) -> Result<Vec<crate::ir::SourceLoc>, FrontendError> {
    let clang = clang_program();
    let out = Command::new(&clang)
        .args(clang_args(config, source, output))
        .output()
        .map_err(|source| FrontendError::ClangNotFound {
            clang: clang.clone(),
            source,
        })?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let flags = target_and_user_flags(config);
        if let Some(evidence) = super::cplusplus::evidence(&clang, &flags, source, &stderr) {
            return Err(FrontendError::CPlusPlus {
                path: source.to_path_buf(),
                evidence,
            });
        }
        let status = match out.status.code() {
            Some(code) => format!("{clang} exited with status {code}"),
            None => format!("{clang} was killed by a signal"),
        };
        return Err(FrontendError::Compile {
            path: source.to_path_buf(),
            status,
            stderr: stderr.into_owned(),
        });
    }
    Ok(folded_overflows(&String::from_utf8_lossy(&out.stderr)))
}

/// The places where clang reports a signed overflow in an expression it folded
/// (`-Winteger-overflow`, on by default): `file:line:col: warning: overflow in expression`.
/// The bitcode has no operation there (the folded value is a constant), so the runtime
/// checks add these from clang's word (`frontend::load`); the native replay, built with the
/// sanitizer, still calls the handler at the same place.
pub fn folded_overflows(stderr: &str) -> Vec<crate::ir::SourceLoc> {
    stderr
        .lines()
        .filter(|l| {
            l.contains(": warning: overflow in expression") && l.contains("-Winteger-overflow")
        })
        .filter_map(|l| {
            let (place, _) = l.split_once(": warning: ")?;
            let (rest, column) = place.rsplit_once(':')?;
            let (file, line) = rest.rsplit_once(':')?;
            Some(crate::ir::SourceLoc {
                file: super::debuginfo::source_path("", file),
                line: line.parse().ok()?,
                column: column.parse().ok()?,
            })
        })
        .collect()
}

/// The flags every compilation of the user's program shares, for analysis or for native
/// replay: the data model, the runtime header's folder, then the user's own flags.
///
/// On i386 the floats are what the user's flags make them, as in the user's own build: the
/// x87's extended precision by default (`FLT_EVAL_METHOD` 2, which `float_paths` does not
/// model: `FrontendConfig::float_evaluation`), SSE arithmetic with
/// [`super::SSE_FLOAT_FLAGS`]. A native replay then runs the arithmetic the user's build
/// runs.
pub fn target_and_user_flags(config: &FrontendConfig) -> Vec<String> {
    let mut args = Vec::new();
    if config.data_model == DataModel::Ilp32 {
        args.push("-m32".to_string());
    }
    args.push("-I".to_string());
    args.push(runtime_dir().display().to_string());
    args.extend(config.cflags.iter().cloned());
    args
}
