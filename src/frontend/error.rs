//! Errors of the front end: each is one clear, user-facing message with its context.

use std::path::PathBuf;

/// Why the front end could not produce a lifted module.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FrontendError {
    /// No input file was given.
    #[error("no input files")]
    NoInputs,
    /// An input file does not exist.
    #[error("{}: no such file", path.display())]
    Missing {
        /// The path as given.
        path: PathBuf,
    },
    /// An input is a directory.
    #[error("{}: is a directory, expected a .c, .i, .bc or .ll file", path.display())]
    Directory {
        /// The path as given.
        path: PathBuf,
    },
    /// An input could not be read.
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        /// The path as given.
        path: PathBuf,
        /// The IO error.
        source: std::io::Error,
    },
    /// An input file is empty.
    #[error("{}: file is empty", path.display())]
    Empty {
        /// The path as given.
        path: PathBuf,
    },
    /// An input has an extension the front end does not know.
    #[error("{}: unknown file type (expected .c, .i, .bc or .ll)", path.display())]
    UnknownExtension {
        /// The path as given.
        path: PathBuf,
    },
    /// A `.bc` file does not start with the bitcode magic.
    #[error("{}: not an LLVM bitcode file", path.display())]
    NotBitcode {
        /// The path as given.
        path: PathBuf,
    },
    /// LLVM 19 could not read a bitcode file (corrupt, or written by a newer LLVM).
    #[error(
        "{}: LLVM 19 cannot read this bitcode (corrupt, or produced by a newer LLVM): {message}",
        path.display()
    )]
    BadBitcode {
        /// The path as given.
        path: PathBuf,
        /// LLVM's message.
        message: String,
    },
    /// A `.ll` file does not parse.
    #[error("{}: invalid LLVM IR: {message}", path.display())]
    BadIr {
        /// The path as given.
        path: PathBuf,
        /// LLVM's message.
        message: String,
    },
    /// clang could not be started.
    #[error(
        "cannot run the C compiler `{clang}`: {source} (install clang-19 or set POLYFOCUS_CLANG)"
    )]
    ClangNotFound {
        /// The program that was run.
        clang: String,
        /// The IO error.
        source: std::io::Error,
    },
    /// clang rejected a C file.
    #[error("{}: compilation failed ({status}):\n{}", path.display(), stderr.trim_end())]
    Compile {
        /// The C file.
        path: PathBuf,
        /// clang's exit status.
        status: String,
        /// clang's diagnostics.
        stderr: String,
    },
    /// Two inputs could not be linked together.
    #[error("{}: cannot link with the previous inputs: {message}", path.display())]
    Link {
        /// The input being linked.
        path: PathBuf,
        /// LLVM's message.
        message: String,
    },
    /// `--entry NAME` names no defined function.
    #[error("unknown entry function `{name}`: {}", defined_list(defined))]
    UnknownEntry {
        /// The requested name.
        name: String,
        /// The functions that are defined, sorted.
        defined: Vec<String>,
    },
    /// LLVM's pass pipeline failed.
    #[error("LLVM normalization failed: {message}")]
    Passes {
        /// LLVM's message.
        message: String,
    },
    /// The host target could not be initialized.
    #[error("cannot create an LLVM target machine: {message}")]
    Target {
        /// LLVM's message.
        message: String,
    },
    /// A compilation database (`compile_commands.json`) is malformed.
    #[error("{}: bad compilation database: {message}", path.display())]
    CompileDb {
        /// The database file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

fn defined_list(defined: &[String]) -> String {
    if defined.is_empty() {
        "the input defines no function".to_string()
    } else {
        const SHOWN: usize = 20;
        let mut res = format!(
            "defined functions are {}",
            defined
                .iter()
                .take(SHOWN)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        );
        if defined.len() > SHOWN {
            res.push_str(&format!(" and {} more", defined.len() - SHOWN));
        }
        res
    }
}

impl FrontendError {
    /// The error for a failed read of `path`: `Missing` when it does not exist, else `Io`.
    pub fn reading(path: &std::path::Path, source: std::io::Error) -> FrontendError {
        if source.kind() == std::io::ErrorKind::NotFound {
            FrontendError::Missing {
                path: path.to_path_buf(),
            }
        } else {
            FrontendError::Io {
                path: path.to_path_buf(),
                source,
            }
        }
    }
}
