//! The standalone replay harness: `runtime/replay.c` with the counterexample's values baked
//! in, plus stubs and a driver when needed, and instructions to compile it with the
//! original program. When the entry is not `main`, the same file compiled with
//! `-DPOLYFOCUS_ENTRY_UNIT` is the entry's translation unit with the driver after it, as in
//! the replay ([`super::build`]).

use super::build::{
    driver_text, entry_signature, entry_unit_text, handler_renames, is_c_source, replay_user_flags,
    sanitize_flag, sanitizes_memory, stub_text, ADDRESS_SANITIZER, ASAN_RUNTIME_MACRO, DRIVER_MAIN,
    RENAMED_MAIN,
};
use super::replay::{runtime_source, CommandLine, ARGV_INPUT_PREFIX, RUNTIME_STRONG, RUNTIME_WEAK};
use crate::check::Counterexample;
use crate::frontend::{is_library_function, FrontendConfig};
use crate::ir::{Function, HavocReason, Inst, SourceLoc};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The harness C file for `cex`, an execution of `func` that reaches the error at `target`.
pub fn harness_text(
    func: &Function,
    config: &FrontendConfig,
    cex: &Counterexample,
    target: Option<&SourceLoc>,
) -> Result<String, String> {
    let runtime = runtime_source()?;
    let mut nondet: BTreeMap<String, u32> = BTreeMap::new();
    let mut unknown: BTreeMap<String, u32> = BTreeMap::new();
    for b in &func.blocks {
        for inst in &b.insts {
            if let Inst::Havoc { dest, reason } = inst {
                let w = func.value(*dest).ty.width;
                match reason {
                    HavocReason::Nondet { function } => {
                        nondet.insert(function.clone(), w);
                    }
                    // The C library's functions are linked for real, as in the replay
                    // (a stub would also clash with their declarations in the runtime's
                    // headers, `printf` in `<stdio.h>`).
                    HavocReason::UnknownCall { function }
                        if !function.starts_with('<') && !is_library_function(function) =>
                    {
                        unknown.insert(function.clone(), w);
                    }
                    _ => {}
                }
            }
        }
    }
    let mut weaken: Vec<String> = RUNTIME_STRONG.iter().map(|s| s.to_string()).collect();
    let mut stubs = String::new();
    for (name, w) in &nondet {
        if !RUNTIME_STRONG.contains(&name.as_str()) && !RUNTIME_WEAK.contains(&name.as_str()) {
            stubs.push_str(&stub_text(name, *w));
            weaken.push(name.clone());
        }
    }
    for (name, w) in &unknown {
        if nondet.contains_key(name)
            || RUNTIME_STRONG.contains(&name.as_str())
            || RUNTIME_WEAK.contains(&name.as_str())
        {
            continue;
        }
        stubs.push_str("__attribute__((weak)) ");
        stubs.push_str(&stub_text(name, *w));
    }
    let is_main = func.name == "main";
    let mut values: Vec<u128> = Vec::new();
    let bits = |v: i128, w: u32| -> u128 {
        if w >= 128 {
            v as u128
        } else {
            (v as u128) & ((1u128 << w) - 1)
        }
    };
    if !is_main {
        values.extend(cex.args.iter().map(|a| bits(a.value, a.width)));
    }
    // The text of the arguments is on the command line.
    let argument_texts: Vec<i128> = cex
        .inputs
        .iter()
        .filter(|a| a.function.starts_with(ARGV_INPUT_PREFIX))
        .map(|a| a.value)
        .collect();
    values.extend(
        cex.inputs
            .iter()
            .filter(|a| !a.function.starts_with(ARGV_INPUT_PREFIX))
            .map(|a| bits(a.value, a.width.max(1))),
    );
    // The entry's unit and signature as the replay built them (pointer parameters get
    // buffers); the compiler's answer is cached from the search.
    let entry = if is_main {
        None
    } else {
        Some(
            entry_signature(
                config,
                &func.name,
                func.loc.as_ref().map(|l| l.file.as_str()),
                std::time::Instant::now() + std::time::Duration::from_secs(60),
            )
            .map_err(|e| e.to_string())?,
        )
    };
    let entry_input = entry
        .as_ref()
        .filter(|e| config.inputs.get(e.input).is_some_and(|i| is_c_source(i)))
        .map(|e| e.input);

    // The program is compiled as the analysis compiled it: data model, the directory of
    // `polyfocus.h`, the user's flags, then `-O0`.
    let m32_flag = if config.data_model == crate::frontend::DataModel::Ilp32 {
        " -m32"
    } else {
        ""
    };
    let cflags: String = replay_user_flags(config)
        .iter()
        .map(|f| format!(" {}", shell_quote(f)))
        .collect();
    let sources: Vec<String> = config
        .inputs
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if entry_input == Some(i) {
                "-DPOLYFOCUS_ENTRY_UNIT THIS_FILE.c".to_string()
            } else {
                shell_quote(&p.display().to_string())
            }
        })
        .collect();
    // A `main` that takes `argc` is run with as many arguments as the counterexample says.
    let command_line = if super::reads_argc(func) {
        cex.args
            .first()
            .and_then(|a| CommandLine::with_argc(a.value))
            .unwrap_or(CommandLine::PLAIN)
    } else {
        CommandLine::PLAIN
    };
    let mut argument_texts = argument_texts;
    argument_texts.resize(command_line.n_argument_inputs(), 1);
    let mut out = String::new();
    let _ = writeln!(out, "/* polyfocus counterexample harness.");
    let _ = writeln!(
        out,
        " * An execution of `{}` that reaches the error site at {}.",
        func.name,
        target.map_or_else(|| "?".to_string(), |l| l.to_string())
    );
    let _ = writeln!(out, " * {}.", cex.confirmed_by.replace("*/", "* /"));
    if !cex.args.is_empty() {
        let _ = writeln!(out, " *\n * Arguments of {}:", func.name);
        for a in &cex.args {
            let _ = writeln!(out, " *   {} = {} (i{})", a.function, a.value, a.width);
        }
        if is_main {
            let _ = writeln!(out, " * (given on the command line below)");
        }
    }
    let _ = writeln!(out, " *\n * Inputs, in the order they are requested:");
    for (i, v) in cex.inputs.iter().enumerate().take(200) {
        let _ = writeln!(
            out,
            " *   #{}: {}{}",
            i + 1,
            super::trace::input_text(v),
            v.loc
                .as_ref()
                .map_or_else(String::new, |l| format!(" at {l}"))
        );
    }
    if cex.inputs.len() > 200 {
        let _ = writeln!(out, " *   ... {} more", cex.inputs.len() - 200);
    }
    let _ = writeln!(
        out,
        " *\n * To watch it fail (exit status 97, \"POLYFOCUS-ERROR-REACHED\"; a runtime error: exit status\n * 96, \"POLYFOCUS-RUNTIME-ERROR kind file:line:column\" or the address sanitizer's report):"
    );
    let mut objects = Vec::new();
    let memory = sanitizes_memory(config.checks);
    let mut sanitize = sanitize_flag(config.checks);
    if memory {
        sanitize = format!("{sanitize} {ADDRESS_SANITIZER}");
    }
    for (i, src) in sources.iter().enumerate() {
        let obj = format!("prog{i}.o");
        let _ = writeln!(
            out,
            " *   clang-19 -c -g -w{cflags} {sanitize} -fno-sanitize-recover=all {src} -o {obj}"
        );
        let mut oc = String::from("objcopy");
        for w in &weaken {
            let _ = write!(oc, " --weaken-symbol={w}");
        }
        if !is_main {
            let _ = write!(oc, " --redefine-sym=main={RENAMED_MAIN}");
        }
        if memory {
            for rename in handler_renames() {
                let _ = write!(oc, " {rename}");
            }
        }
        let _ = writeln!(out, " *   {oc} {obj}");
        objects.push(obj);
    }
    let (link_asan, asan_env) = if memory {
        (
            format!(" {ADDRESS_SANITIZER} {ASAN_RUNTIME_MACRO}"),
            format!(
                "ASAN_OPTIONS={} ",
                super::asan::asan_options(super::replay::EXIT_RUNTIME_ERROR)
            ),
        )
    } else {
        (String::new(), String::new())
    };
    let _ = writeln!(
        out,
        " *   clang-19{m32_flag}{link_asan} -w {} THIS_FILE.c -o cex && {asan_env}./cex{}; echo \"exit status $?\"",
        objects.join(" "),
        CommandLine::shell_suffix(&argument_texts)
    );
    let _ = writeln!(
        out,
        " * (objcopy weakens the program's own definitions of the functions defined here,"
    );
    let _ = writeln!(out, " * e.g. reach_error, so that these are used.)\n */");
    if let (Some(e), Some(i)) = (&entry, entry_input) {
        let input = std::path::absolute(&config.inputs[i]).unwrap_or(config.inputs[i].clone());
        out.push_str("#ifdef POLYFOCUS_ENTRY_UNIT\n");
        out.push_str(&entry_unit_text(&input, e));
        out.push_str("#else\n");
    }
    let _ = writeln!(out, "#define POLYFOCUS_BAKED_COUNT {}", values.len());
    let _ = write!(
        out,
        "static const unsigned long long polyfocus_baked_values[{}] = {{",
        values.len().max(1)
    );
    if values.is_empty() {
        out.push('0');
    }
    for (i, v) in values.iter().enumerate() {
        if i % 8 == 0 {
            out.push_str("\n    ");
        }
        let _ = write!(out, "{}ULL, ", *v as u64);
    }
    out.push_str("\n};\n\n");
    out.push_str(&runtime);
    out.push_str("\n/* Stubs for the program's other input functions. */\n");
    out.push_str(&stubs);
    if let Some(e) = &entry {
        if entry_input.is_none() {
            // The entry's input is not C: a driver of its own, with the IR's signature.
            out.push_str("\n/* The driver: calls the entry with the recorded arguments. */\n");
            out.push_str(&driver_text(&e.name, &e.params, true));
        }
        out.push_str(DRIVER_MAIN);
    }
    if entry_input.is_some() {
        out.push_str("#endif\n");
    }
    Ok(out)
}

/// `arg` quoted for a POSIX shell when it needs to be.
fn shell_quote(arg: &str) -> String {
    let plain = !arg.is_empty()
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', "'\\''"))
    }
}
