//! `polyfocus scan -- BUILD COMMAND`: runs any build with a compiler wrapper, collects
//! bitcode of every C file it compiles, and analyzes each program it links.
//!
//! How it intercepts the compiler:
//! - `OUT/bin/` holds symlinks `cc`, `gcc`, `clang`, `c89`, `c99` to the polyfocus binary;
//!   the build runs with `CC=OUT/bin/cc`, `OUT/bin` first on `PATH` (so Makefiles that
//!   hard-code `gcc` or `cc` are caught too) and `POLYFOCUS_WRAP_DIR=OUT`;
//! - polyfocus started through such a symlink with `POLYFOCUS_WRAP_DIR` set is the wrapper:
//!   it runs the real compiler (`$POLYFOCUS_REAL_CC`, else the same name found on `PATH`
//!   after `OUT/bin`) with the original arguments, so the build is unchanged, then compiles
//!   each C source to bitcode in `OUT/bc/` (failures never fail the build) and records the
//!   compile (object → bitcode) and link (output → objects) in `OUT/log/`;
//! - afterwards each link becomes a program: its objects (also those inside `ar`
//!   archives, matched by member name) map back to bitcode. Bitcode that no link uses is
//!   analyzed as one more program (or one per `main`).
//!
//! Not caught: compilers named by absolute path (`CC=/usr/bin/gcc` in a Makefile), builds
//! that scrub the environment, compiler launchers that resolve the compiler themselves
//! (ccache with an absolute path), C++ (not analyzed).

use super::args::{AnalysisArgs, TuningArgs};
use super::check::{analysis_config, names, recording_polyhedra};
use super::project::{self, OutputArgs, ProgramInput};
use super::tuning::{Scope, Tuning};
use super::{AFTER_HELP, EXIT_ERROR};
use crate::frontend::{self, DataModel, EntrySelection, FrontendConfig};
use crate::report::RunInfo;
use anyhow::{bail, Context, Result};
use clap::Args;
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The environment variable that turns the polyfocus binary into the compiler wrapper.
pub const WRAP_DIR_VAR: &str = "POLYFOCUS_WRAP_DIR";
/// The compiler the wrapper runs (default: the wrapper's own name on `PATH`).
pub const REAL_CC_VAR: &str = "POLYFOCUS_REAL_CC";
/// Names under which the wrapper is installed.
const WRAPPED: [&str; 5] = ["cc", "gcc", "clang", "c89", "c99"];

/// Arguments of `polyfocus scan`.
#[derive(Args, Debug)]
#[command(after_help = AFTER_HELP)]
pub struct ScanArgs {
    /// Where to put the wrapper, the bitcode and the build log (emptied first).
    #[arg(long = "out", value_name = "DIR", default_value = ".polyfocus")]
    out_dir: PathBuf,
    /// Function where execution starts (default: main, or every external function);
    /// repeat it, or separate names with commas, for several library entry points.
    #[arg(long, value_name = "NAME", value_delimiter = ',')]
    entry: Vec<String>,
    /// What to check, comma-separated: assert, overflow, div, shift, bounds, memory, all (see `check --help`).
    #[arg(long, value_name = "LIST", default_value = "assert", value_parser = super::args::parse_checks)]
    checks: crate::ir::CheckSelection,
    /// Analyze only the bitcode already collected in DIR; do not run a build.
    #[arg(long)]
    no_build: bool,
    #[command(flatten)]
    analysis: AnalysisArgs,
    #[command(flatten)]
    report: OutputArgs,
    /// Do not search counterexamples for the assertions the analysis leaves unknown.
    #[arg(long)]
    no_counterexamples: bool,
    #[command(flatten)]
    cache: super::cache::CacheArgs,
    #[command(flatten)]
    tuning: TuningArgs,
    /// The build command, after `--`.
    #[arg(last = true, value_name = "BUILD COMMAND")]
    command: Vec<String>,
}

/// Runs `polyfocus scan`.
pub fn run(args: ScanArgs) -> Result<i32> {
    let tuning = args.tuning.resolve(Scope::Analysis)?;
    recording_polyhedra(&tuning, || scan(&args, &tuning))
}

fn scan(args: &ScanArgs, tuning: &Tuning) -> Result<i32> {
    let start = Instant::now();
    // An unwritable report should fail now, not after the build and the analysis.
    if let Some(path) = &args.report.output {
        project::ensure_writable(path)?;
    }
    std::fs::create_dir_all(&args.out_dir)
        .with_context(|| format!("creating {}", args.out_dir.display()))?;
    let out = std::fs::canonicalize(&args.out_dir)
        .with_context(|| format!("resolving {}", args.out_dir.display()))?;
    if !args.no_build {
        if args.command.is_empty() {
            bail!("no build command: use `polyfocus scan -- make ...`");
        }
        build(&out, &args.command)?;
    }
    let cwd = std::env::current_dir().context("reading the current directory")?;
    let base = FrontendConfig {
        inputs: vec![],
        cflags: vec![],
        data_model: DataModel::Lp64,
        entry: EntrySelection::from_names(&args.entry),
        inline_limit: tuning.inline_limit,
        inline_caller_limit: tuning.inline_caller_limit,
        lift_limit: tuning.lift_limit,
        checks: args.checks,
        options: tuning.frontend.clone(),
    };
    let log = read_log(&out.join("log"))?;
    let groups = programs_of(&log, &cwd);
    if groups.is_empty() {
        eprintln!(
            "error: nothing to analyze: the build compiled no C file through the wrapper (does it \
             name its compiler by absolute path? see `polyfocus scan --help`)"
        );
        return Ok(EXIT_ERROR);
    }
    let inputs: Vec<ProgramInput> = groups
        .into_iter()
        .map(|(name, files)| ProgramInput {
            name,
            frontend: FrontendConfig {
                inputs: files,
                ..base.clone()
            },
        })
        .collect();
    let config = analysis_config(&args.analysis, tuning, args.report.jobs());
    let store = args.cache.open()?;
    let mut reports =
        project::analyze_programs(&inputs, &config, !args.no_counterexamples, store.as_ref());
    project::report_cache_use(&reports, store.as_ref());
    for (source, message) in &log.errors {
        reports.push(crate::report::ProgramReport::failed(
            format!("compile {}", project::display_path(Path::new(source), &cwd)),
            message.clone(),
        ));
    }
    let (engine, domain) = names(&config);
    let info = RunInfo {
        engine,
        domain,
        elapsed: start.elapsed(),
    };
    project::write_report(&reports, &args.report, &info)
}

/// Installs the wrapper in `out/bin` and runs the build command through it.
fn build(out: &Path, command: &[String]) -> Result<()> {
    for sub in ["bc", "log"] {
        let dir = out.join(sub);
        if dir.exists() {
            std::fs::remove_dir_all(&dir).with_context(|| format!("emptying {}", dir.display()))?;
        }
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let bin = out.join("bin");
    std::fs::create_dir_all(&bin).with_context(|| format!("creating {}", bin.display()))?;
    let exe = std::env::current_exe().context("locating the polyfocus binary")?;
    for name in WRAPPED {
        let link = bin.join(name);
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&exe, &link)
            .with_context(|| format!("creating {}", link.display()))?;
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![bin.clone()];
    dirs.extend(std::env::split_paths(&path));
    let new_path = std::env::join_paths(dirs).context("building PATH")?;
    eprintln!("polyfocus: running {}", command.join(" "));
    let status = Command::new(&command[0])
        .args(&command[1..])
        .env("CC", bin.join("cc"))
        .env("PATH", new_path)
        .env(WRAP_DIR_VAR, out)
        .status()
        .with_context(|| format!("running {}", command[0]))?;
    if !status.success() {
        eprintln!("warning: the build command failed ({status}); analyzing what it compiled");
    }
    Ok(())
}

/// The wrapper's entry: `Some(exit code)` when this process is the compiler wrapper.
pub fn wrapper_main() -> Option<i32> {
    let dir = PathBuf::from(std::env::var_os(WRAP_DIR_VAR)?);
    let argv0 = std::env::args_os().next()?;
    let name = Path::new(&argv0)
        .file_name()?
        .to_string_lossy()
        .into_owned();
    if name.starts_with("polyfocus") {
        return None;
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    Some(wrap(&dir, &name, &args))
}

/// Runs the real compiler, then collects bitcode and records what was built.
fn wrap(dir: &Path, name: &str, args: &[String]) -> i32 {
    let real = match real_compiler(dir, name) {
        Some(real) => real,
        None => {
            eprintln!(
                "polyfocus wrapper: cannot find the real `{name}` on PATH (set {REAL_CC_VAR})"
            );
            return 127;
        }
    };
    let status = match Command::new(&real).args(args).status() {
        Ok(status) => status,
        Err(e) => {
            eprintln!("polyfocus wrapper: running {}: {e}", real.display());
            return 127;
        }
    };
    if !status.success() {
        return status.code().unwrap_or(1);
    }
    // The bitcode compiler must not be this wrapper again.
    let clang = frontend::clang_program();
    if !clang.contains('/') {
        if let Some(resolved) = real_compiler(dir, &clang) {
            std::env::set_var("POLYFOCUS_CLANG", resolved);
        }
    }
    // Never fail the build from here on.
    let _ = collect(dir, &real, args);
    0
}

/// The compiler to run: `$POLYFOCUS_REAL_CC`, else `name` on `PATH` outside `dir/bin`.
fn real_compiler(dir: &Path, name: &str) -> Option<PathBuf> {
    if let Some(cc) = std::env::var_os(REAL_CC_VAR) {
        return Some(PathBuf::from(cc));
    }
    let bin = std::fs::canonicalize(dir.join("bin")).unwrap_or_else(|_| dir.join("bin"));
    let me = std::env::current_exe()
        .ok()
        .and_then(|p| std::fs::canonicalize(p).ok());
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .filter(|d| std::fs::canonicalize(d).map_or(true, |d| d != bin))
        .map(|d| d.join(name))
        .find(|p| p.is_file() && std::fs::canonicalize(p).ok() != me)
}

/// Compiles each C source of the invocation to bitcode and writes its record.
fn collect(dir: &Path, real: &Path, args: &[String]) -> Result<()> {
    let inv = frontend::parse_invocation(args);
    if inv.no_output || inv.sources.is_empty() && inv.compile_only {
        return Ok(());
    }
    let cwd = std::env::current_dir()?;
    let mut argv = vec![real.display().to_string()];
    argv.extend(args.iter().cloned());
    let config = FrontendConfig {
        inputs: vec![],
        cflags: vec![],
        data_model: DataModel::Lp64,
        entry: EntrySelection::Default,
        inline_limit: crate::frontend::INLINE_LIMIT,
        inline_caller_limit: crate::frontend::INLINE_CALLER_LIMIT,
        lift_limit: crate::frontend::LIFT_LIMIT,
        checks: crate::ir::CheckSelection::ASSERT,
        options: crate::frontend::FrontendOptions::DEFAULT,
    };
    let mut record: Vec<String> = Vec::new();
    let mut linked_bitcode = Vec::new();
    for source in &inv.sources {
        let abs = cwd.join(source);
        let stem = abs.file_stem().and_then(|s| s.to_str()).unwrap_or("tu");
        let key = format!("{}\u{0}{}", abs.display(), args.join("\u{0}"));
        let bc = dir.join("bc").join(format!("{stem}-{:016x}.bc", fnv(&key)));
        match frontend::compile_to_bitcode(&config, &cwd, &abs, &argv, &bc) {
            Ok(()) => {
                if inv.compile_only {
                    let object = match (&inv.output, inv.sources.len()) {
                        (Some(o), 1) => cwd.join(o),
                        _ => cwd.join(format!("{stem}.o")),
                    };
                    record.push(format!(
                        "compile\u{0}{}\u{0}{}",
                        object.display(),
                        bc.display()
                    ));
                } else {
                    linked_bitcode.push(bc.display().to_string());
                }
            }
            Err(e) => {
                let message = e.to_string().replace(['\n', '\u{0}'], " ");
                record.push(format!("error\u{0}{}\u{0}{message}", abs.display()));
            }
        }
    }
    if !inv.compile_only {
        let output = cwd.join(inv.output.as_deref().unwrap_or("a.out"));
        let mut fields = vec!["link".to_string(), output.display().to_string()];
        fields.extend(linked_bitcode);
        fields.extend(
            inv.objects
                .iter()
                .map(|o| cwd.join(o).display().to_string()),
        );
        record.push(fields.join("\u{0}"));
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let file = dir
        .join("log")
        .join(format!("{nanos:024}-{}.rec", std::process::id()));
    std::fs::write(file, record.join("\n"))?;
    Ok(())
}

fn fnv(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// What the wrapper recorded, in build order.
#[derive(Default, Debug)]
struct BuildLog {
    /// Object file → bitcode, last compile wins.
    objects: BTreeMap<PathBuf, PathBuf>,
    /// Link output → inputs (bitcode, objects, archives), last link wins; in link order.
    links: Vec<(PathBuf, Vec<PathBuf>)>,
    /// Sources whose bitcode could not be compiled, with why.
    errors: Vec<(String, String)>,
}

fn read_log(dir: &Path) -> Result<BuildLog> {
    let mut log = BuildLog::default();
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries.filter_map(|e| e.ok().map(|e| e.path())).collect(),
        Err(_) => return Ok(log),
    };
    files.sort();
    for file in files {
        let text = std::fs::read_to_string(&file)
            .with_context(|| format!("reading {}", file.display()))?;
        for line in text.lines() {
            let fields: Vec<&str> = line.split('\u{0}').collect();
            match fields.as_slice() {
                ["compile", object, bc] => {
                    log.objects.insert(PathBuf::from(object), PathBuf::from(bc));
                }
                ["error", source, message] => {
                    log.errors.push((source.to_string(), message.to_string()))
                }
                ["link", output, inputs @ ..] => {
                    let output = PathBuf::from(output);
                    log.links.retain(|(o, _)| *o != output);
                    log.links
                        .push((output, inputs.iter().map(PathBuf::from).collect()));
                }
                _ => {}
            }
        }
    }
    Ok(log)
}

/// The programs of a build: `(name, bitcode files)`, sorted by name.
fn programs_of(log: &BuildLog, cwd: &Path) -> Vec<(String, Vec<PathBuf>)> {
    let mut used: BTreeSet<PathBuf> = BTreeSet::new();
    let mut programs: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for (output, inputs) in &log.links {
        let mut bitcode: Vec<PathBuf> = Vec::new();
        for input in inputs {
            if input.extension().is_some_and(|e| e == "bc") {
                bitcode.push(input.clone());
            } else if input.extension().is_some_and(|e| e == "a") {
                bitcode.extend(archive_bitcode(input, log));
            } else if let Some(bc) = log.objects.get(input) {
                bitcode.push(bc.clone());
            }
        }
        let mut seen = BTreeSet::new();
        bitcode.retain(|b| seen.insert(b.clone()));
        if bitcode.is_empty() {
            continue;
        }
        used.extend(bitcode.iter().cloned());
        programs.insert(project::display_path(output, cwd), bitcode);
    }
    let leftover: Vec<(String, PathBuf)> = log
        .objects
        .iter()
        .filter(|(_, bc)| !used.contains(*bc))
        .map(|(object, bc)| (project::display_path(object, cwd), bc.clone()))
        .collect();
    if !leftover.is_empty() {
        for (name, files) in project::group_by_main(&leftover, "unlinked objects") {
            programs.insert(name, files);
        }
    }
    programs.into_iter().collect()
}

/// The bitcode of the members of an `ar` archive: each member is matched by file name to
/// a compiled object, preferring one in the archive's directory.
fn archive_bitcode(archive: &Path, log: &BuildLog) -> Vec<PathBuf> {
    let Ok(bytes) = std::fs::read(archive) else {
        return vec![];
    };
    let dir = archive.parent().unwrap_or(Path::new("."));
    let mut res = Vec::new();
    for member in ar_members(&bytes) {
        let beside = dir.join(&member);
        if let Some(bc) = log.objects.get(&beside) {
            res.push(bc.clone());
            continue;
        }
        let matches: Vec<&PathBuf> = log
            .objects
            .iter()
            .filter(|(o, _)| {
                o.file_name()
                    .is_some_and(|n| *n == *OsString::from(&member))
            })
            .map(|(_, bc)| bc)
            .collect();
        if let [bc] = matches.as_slice() {
            res.push((*bc).clone());
        }
    }
    res
}

/// The member names of a System V / GNU `ar` archive (empty when it is not one).
fn ar_members(bytes: &[u8]) -> Vec<String> {
    const MAGIC: &[u8] = b"!<arch>\n";
    if !bytes.starts_with(MAGIC) {
        return vec![];
    }
    let mut names = Vec::new();
    let mut long_names: &[u8] = &[];
    let mut pos = MAGIC.len();
    while pos + 60 <= bytes.len() {
        let header = &bytes[pos..pos + 60];
        let raw_name = String::from_utf8_lossy(&header[..16])
            .trim_end()
            .to_string();
        let size: usize = String::from_utf8_lossy(&header[48..58])
            .trim()
            .parse()
            .unwrap_or(0);
        let data_start = pos + 60;
        let data_end = (data_start + size).min(bytes.len());
        let data = &bytes[data_start..data_end];
        if raw_name == "//" {
            long_names = data;
        } else if raw_name == "/" || raw_name.starts_with("/SYM") || raw_name == "__.SYMDEF" {
            // Symbol table.
        } else if let Some(offset) = raw_name
            .strip_prefix('/')
            .and_then(|o| o.parse::<usize>().ok())
        {
            let rest = long_names.get(offset..).unwrap_or(&[]);
            let end = rest.iter().position(|b| *b == b'\n').unwrap_or(rest.len());
            let name = String::from_utf8_lossy(&rest[..end]);
            names.push(name.trim_end_matches('/').to_string());
        } else {
            names.push(raw_name.trim_end_matches('/').to_string());
        }
        pos = data_end + (size % 2);
    }
    names
}
