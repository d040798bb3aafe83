//! Whole projects: compilation databases (`compile_commands.json`) and compiler command
//! lines seen by the build wrapper of `polyfocus scan`.
//!
//! Each C translation unit is compiled to bitcode with its own flags: the original command
//! line without what produces or names outputs (`-c`, `-o`, `-M*` dependency files), without
//! optimization, warning, LTO, sanitizer and coverage flags, followed by the front end's own
//! flags ([`super::clang_args`]). When clang rejects that (gcc-only flags), it retries with
//! only the flags that change the meaning of the source: `-I`, `-D`, `-U`, `-include`,
//! `-isystem`, `-iquote`, `-std`, `-m32`/`-m64`, `-f(un)signed-char`.
//!
//! The database is read with `serde_json::Value` (parsing input, no serializable record).

use std::path::{Path, PathBuf};
use std::process::Command;

use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;

use super::compile::{clang_args, clang_program};
use super::config::FrontendConfig;
use super::error::FrontendError;

/// One compilation of one C source file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileCommand {
    /// The working directory of the compilation.
    pub directory: PathBuf,
    /// The source file, absolute.
    pub file: PathBuf,
    /// The command line, program first.
    pub arguments: Vec<String>,
}

/// Reads `compile_commands.json`; keeps the C entries (`.c`, `.i`), in file order, the last
/// entry of each source file only.
pub fn read_compile_commands(path: &Path) -> Result<Vec<CompileCommand>, FrontendError> {
    let bad = |message: String| FrontendError::CompileDb {
        path: path.to_path_buf(),
        message,
    };
    let text =
        std::fs::read_to_string(path).map_err(|source| FrontendError::reading(path, source))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| bad(format!("not JSON: {e}")))?;
    let entries = value
        .as_array()
        .ok_or_else(|| bad("expected an array of entries".into()))?;
    let base = path.parent().unwrap_or(Path::new("."));
    let mut res: Vec<CompileCommand> = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let field = |name: &str| entry.get(name).and_then(|v| v.as_str());
        let directory =
            field("directory").ok_or_else(|| bad(format!("entry {i} has no \"directory\"")))?;
        let directory = base.join(directory);
        let file = field("file").ok_or_else(|| bad(format!("entry {i} has no \"file\"")))?;
        let arguments: Vec<String> = match (entry.get("arguments"), field("command")) {
            (Some(args), _) => args
                .as_array()
                .ok_or_else(|| bad(format!("entry {i}: \"arguments\" is not an array")))?
                .iter()
                .map(|a| a.as_str().unwrap_or_default().to_string())
                .collect(),
            (None, Some(command)) => split_command(command),
            (None, None) => {
                return Err(bad(format!(
                    "entry {i} has neither \"arguments\" nor \"command\""
                )))
            }
        };
        let file = directory.join(file);
        if !is_c_source(&file.to_string_lossy()) {
            continue;
        }
        res.retain(|c| c.file != file);
        res.push(CompileCommand {
            directory,
            file,
            arguments,
        });
    }
    Ok(res)
}

/// Splits a shell command line into words (single and double quotes, backslashes).
pub fn split_command(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    word.push(c);
                }
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => {
                            if let Some(n) = chars.next() {
                                if !matches!(n, '"' | '\\' | '$' | '`') {
                                    word.push('\\');
                                }
                                word.push(n);
                            }
                        }
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(n) = chars.next() {
                    word.push(n);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

fn is_c_source(arg: &str) -> bool {
    let lower = arg.to_ascii_lowercase();
    lower.ends_with(".c") || lower.ends_with(".i")
}

/// Flags whose value is the next argument.
const WITH_VALUE: &[&str] = &[
    "-o",
    "-MF",
    "-MT",
    "-MQ",
    "-I",
    "-D",
    "-U",
    "-include",
    "-imacros",
    "-isystem",
    "-iquote",
    "-idirafter",
    "-isysroot",
    "-x",
    "-arch",
    "-Xclang",
    "-Xlinker",
    "-Xpreprocessor",
    "-Xassembler",
    "-L",
    "-l",
    "-u",
    "-T",
    "-target",
    "--param",
    "-z",
];

/// What a compiler command line does, as far as the analysis cares.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Invocation {
    /// C sources compiled (`.c`, `.i`), as written.
    pub sources: Vec<String>,
    /// Other inputs: objects, archives, shared libraries, as written.
    pub objects: Vec<String>,
    /// `-o`, as written.
    pub output: Option<String>,
    /// `-c`: compile only, no link.
    pub compile_only: bool,
    /// `-E`, `-S`, `-M`/`-MM` without `-MD`, `-fsyntax-only`, `--version`...: no object
    /// file and no program is produced.
    pub no_output: bool,
    /// The flags that matter for compiling a source to bitcode (see the module docs).
    pub flags: Vec<String>,
    /// The flags that change the meaning of the source, only.
    pub minimal_flags: Vec<String>,
}

/// Classifies a compiler command line (without the program name).
pub fn parse_invocation(args: &[String]) -> Invocation {
    let mut inv = Invocation::default();
    let mut i = 0;
    let mut language_c = true;
    while i < args.len() {
        let arg = args[i].as_str();
        let next = args.get(i + 1).cloned();
        i += 1;
        if WITH_VALUE.contains(&arg) {
            let value = next.unwrap_or_default();
            i += 1;
            match arg {
                "-o" => inv.output = Some(value),
                "-MF" | "-MT" | "-MQ" | "-L" | "-l" | "-u" | "-T" | "-Xlinker" | "-z" => {}
                "-x" => {
                    language_c = value == "c" || value == "cpp-output";
                    inv.flags.extend([arg.to_string(), value]);
                }
                "-I" | "-D" | "-U" | "-include" | "-imacros" | "-isystem" | "-iquote"
                | "-idirafter" => {
                    inv.flags.extend([arg.to_string(), value.clone()]);
                    inv.minimal_flags.extend([arg.to_string(), value]);
                }
                _ => inv.flags.extend([arg.to_string(), value]),
            }
            continue;
        }
        if !arg.starts_with('-') || arg == "-" {
            if language_c && is_c_source(arg) {
                inv.sources.push(arg.to_string());
            } else {
                inv.objects.push(arg.to_string());
            }
            continue;
        }
        match arg {
            "-c" => inv.compile_only = true,
            "-E" | "-S" | "-M" | "-MM" | "-fsyntax-only" | "--version" | "-v" | "-###"
            | "-dumpversion" | "-dumpmachine" | "--help" => inv.no_output = true,
            "-MD" | "-MMD" | "-MP" | "-MG" | "-pipe" | "-shared" | "-static" | "-pie"
            | "-rdynamic" | "-pthread" | "-emit-llvm" | "--coverage" | "-w" | "-s" => {}
            "-m32" | "-m64" | "-funsigned-char" | "-fsigned-char" | "-ansi" => {
                inv.flags.push(arg.to_string());
                inv.minimal_flags.push(arg.to_string());
            }
            a if a.starts_with("-I")
                || a.starts_with("-D")
                || a.starts_with("-U")
                || a.starts_with("-std=")
                || a.starts_with("-isystem")
                || a.starts_with("-iquote") =>
            {
                inv.flags.push(a.to_string());
                inv.minimal_flags.push(a.to_string());
            }
            a if a.starts_with("-O")
                || a.starts_with("-W")
                || a.starts_with("-g")
                || a.starts_with("-flto")
                || a.starts_with("-fsanitize")
                || a.starts_with("-fprofile")
                || a.starts_with("-fcoverage")
                || a.starts_with("-ftest-coverage")
                || a.starts_with("-fdebug-prefix-map")
                || a.starts_with("-ffile-prefix-map")
                || a.starts_with("-fmacro-prefix-map")
                || a.starts_with("-MF")
                || a.starts_with("-MT")
                || a.starts_with("-MQ")
                || a.starts_with("-L")
                || a.starts_with("-l")
                || a.starts_with("-o")
                || a.starts_with("-save-temps")
                || a.starts_with("-fuse-ld")
                || a.starts_with("-Xlinker") => {}
            a => inv.flags.push(a.to_string()),
        }
    }
    inv
}

/// Compiles `source` (absolute, or relative to `directory`) to the bitcode file `output`
/// with the flags of its original command line `arguments` (program first), in
/// `directory`; see the module docs for which flags are kept.
pub fn compile_to_bitcode(
    config: &FrontendConfig,
    directory: &Path,
    source: &Path,
    arguments: &[String],
    output: &Path,
) -> Result<(), FrontendError> {
    let inv = parse_invocation(arguments.get(1..).unwrap_or(&[]));
    let source = directory.join(source);
    let clang = clang_program();
    let mut last_err = None;
    for flags in [&inv.flags, &inv.minimal_flags] {
        let mut cfg = config.clone();
        cfg.cflags = flags.clone();
        cfg.cflags
            .extend(["-w".to_string(), "-Qunused-arguments".to_string()]);
        cfg.cflags.extend(config.cflags.iter().cloned());
        let out = Command::new(&clang)
            .current_dir(directory)
            .args(clang_args(&cfg, &source, output))
            .output()
            .map_err(|source| FrontendError::ClangNotFound {
                clang: clang.clone(),
                source,
            })?;
        if out.status.success() {
            return Ok(());
        }
        let status = match out.status.code() {
            Some(code) => format!("{clang} exited with status {code}"),
            None => format!("{clang} was killed by a signal"),
        };
        last_err = Some(FrontendError::Compile {
            path: source.clone(),
            status,
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
    }
    Err(last_err.expect("at least one attempt"))
}

/// Whether the bitcode or textual IR file `path` defines `main` (false when unreadable).
pub fn defines_main(path: &Path) -> bool {
    let ctx = Context::create();
    let Ok(bytes) = std::fs::read(path) else {
        return false;
    };
    let buffer = MemoryBuffer::create_from_memory_range_copy(&bytes, "input");
    let module = if path.extension().is_some_and(|e| e == "ll") {
        ctx.create_module_from_ir(buffer).ok()
    } else {
        Module::parse_bitcode_from_buffer(&buffer, &ctx).ok()
    };
    module
        .and_then(|m| m.get_function("main"))
        .is_some_and(|f| f.count_basic_blocks() > 0)
}
