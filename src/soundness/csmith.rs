//! Programs from csmith (Debian's `csmith` and `libcsmith-dev`), with options that keep
//! them small and within what the analyzer models: no pointers, structs, unions, arrays,
//! volatiles or jumps, a few functions, shallow blocks, and no checksum: csmith's `main`
//! then stores every global into a sink after `func_1()`, and each of those stores becomes
//! a probe of that global. Its safe-math wrappers keep the arithmetic free of undefined
//! behaviour.
//!
//! To give the analyzer inputs, up to two globals are xor-ed with a small nondet value at
//! the start of `main` (any value is fine for csmith's code: it is UB-free for all).

use super::rng::Rng;
use super::{AssertStyle, CType, Line, Skeleton};
use anyhow::{bail, Context, Result};
use std::path::Path;
use std::process::Command;

/// Where `libcsmith-dev` puts `csmith.h`.
pub const INCLUDE_DIR: &str = "/usr/include/csmith";

/// The csmith options of every program (besides `--seed` and `-o`).
pub const OPTIONS: &[&str] = &[
    "--no-pointers",
    "--no-structs",
    "--no-unions",
    "--no-arrays",
    "--no-volatiles",
    "--no-bitfields",
    "--no-checksum",
    "--no-argc",
    "--no-jumps",
    "--no-packed-struct",
    "--no-builtins",
    "--max-funcs",
    "2",
    "--max-block-depth",
    "2",
    "--max-block-size",
    "3",
    "--max-expr-complexity",
    "3",
    "--concise",
];

/// Generates the program of `seed` with csmith in `dir`.
pub fn generate(seed: u64, dir: &Path) -> Result<Skeleton> {
    let path = dir.join("csmith.c");
    let out = Command::new("csmith")
        .arg("--seed")
        .arg((seed & 0xffff_ffff).to_string())
        .args(OPTIONS)
        .arg("-o")
        .arg(&path)
        .output()
        .context("running csmith (scripts/setup installs it)")?;
    if !out.status.success() {
        bail!("csmith failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let mut rng = Rng::new(seed ^ 0xc5);
    skeleton(&text, &mut rng)
}

/// The skeleton of a csmith program: its sink stores become probes.
pub fn skeleton(text: &str, rng: &mut Rng) -> Result<Skeleton> {
    let globals: Vec<(String, CType)> = text.lines().filter_map(global_declaration).collect();
    // Inputs change globals csmith does not declare `const`.
    let mutable: Vec<String> = text
        .lines()
        .filter(|l| !l.starts_with("static const "))
        .filter_map(global_declaration)
        .map(|(name, _)| name)
        .collect();
    let mut lines = Vec::new();
    let mut next_id = 0;
    let mut classes = vec![];
    for line in text.lines() {
        if let Some(name) = line
            .trim()
            .strip_prefix("csmith_sink_ = ")
            .and_then(|rest| rest.strip_suffix(';'))
        {
            if let Some((_, ty)) = globals.iter().find(|(g, _)| g == name) {
                next_id += 1;
                lines.push(Line::Probe {
                    id: next_id,
                    expr: name.to_string(),
                    ty: *ty,
                });
                continue;
            }
        }
        lines.push(Line::Text(line.to_string()));
        if line.trim() == "platform_main_begin();" && !mutable.is_empty() && rng.chance(60) {
            classes.push("inputs");
            for k in 0..1 + rng.below(2) {
                let global = rng.pick(&mutable).clone();
                let name = format!("in_{k}");
                lines.push(Line::Input {
                    name: name.clone(),
                    ty: CType::U8,
                    nondet: "__VERIFIER_nondet_uchar",
                    lo: 0,
                    hi: rng.range(1, 3),
                });
                lines.push(Line::Text(format!("    {global} ^= {name};")));
            }
        }
    }
    let style = *rng.pick(&[
        AssertStyle::SvComp,
        AssertStyle::CAssert,
        AssertStyle::ReachError,
    ]);
    let analysis_cflags = if rng.chance(20) {
        classes.push("O2");
        vec!["-O2".to_string()]
    } else {
        Vec::new()
    };
    Ok(Skeleton {
        lines,
        includes: Vec::new(),
        style,
        cflags: vec![format!("-I{INCLUDE_DIR}")],
        oracle_cflags: Vec::new(),
        analysis_cflags,
        analysis_checks: None,
        record_memory_errors: false,
        classes,
    })
}

/// `static uint16_t g_35 = 6U;` gives `("g_35", U16)`.
fn global_declaration(line: &str) -> Option<(String, CType)> {
    let rest = line.strip_prefix("static ")?;
    let rest = rest.strip_prefix("const ").unwrap_or(rest);
    let (ty, rest) = rest.split_once(' ')?;
    let ty = match ty {
        "int8_t" => CType::I8,
        "uint8_t" => CType::U8,
        "int16_t" => CType::I16,
        "uint16_t" => CType::U16,
        "int32_t" => CType::I32,
        "uint32_t" => CType::U32,
        "int64_t" => CType::I64,
        "uint64_t" => CType::U64,
        _ => return None,
    };
    let name = rest.trim_start().split([' ', '=', ';']).next()?;
    name.starts_with("g_").then(|| (name.to_string(), ty))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_globals_and_sinks() {
        assert_eq!(
            global_declaration("static uint16_t g_35 = 6U;"),
            Some(("g_35".to_string(), CType::U16))
        );
        assert_eq!(global_declaration("static long __undefined;"), None);
        let text = "static int8_t g_1 = 1;\nint main (void)\n{\n    func_1();\n    csmith_sink_ = g_1;\n}\n";
        let s = skeleton(text, &mut Rng::new(1)).unwrap();
        assert_eq!(s.n_probes(), 1);
    }
}
