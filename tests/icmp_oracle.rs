//! Integer comparisons against native execution.
//!
//! Generates one LLVM IR module of small functions over a small-domain input (an `i1` or an
//! `i8` argument, so every input value is enumerable). Each function widens, narrows or keeps
//! its input (`zext`/`sext`/`trunc`, chains of two), compares it with a constant at the ends
//! of the range (both operand orders, every predicate, widths i1 to i64), branches on the
//! comparison (directly, through `zext`+`icmp` as C writes it, or through `xor`), and on each
//! side asserts that the input is not one of the values where the comparison has that truth.
//! The oracle is the same module compiled by clang and run for every input value: an assertion
//! fails when some input reaches its error call. No engine may prove an assertion that fails
//! natively, nor refute one that never fails.
//!
//! The values asserted on each side are the ends of the runs of inputs where the comparison
//! has that truth (chosen by a model of the semantics here; the native run alone decides what
//! holds): a convex abstract state that wrongly drops some such input drops a run end.
//!
//! CI runs every `STRIDE`-th function; `POLYFOCUS_ORACLE_STRIDE=1` runs all of them.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

/// Functions are sampled one in `STRIDE` by default (every shape still appears; the slice
/// holds t49, `icmp ugt i8 0, (zext i1 %in)`, which an earlier lifting got wrong).
const STRIDE: usize = 49;

/// At most this many inputs asserted on each side of a comparison (plus 0 and -1).
const MAX_PROBES: usize = 6;

const PREDICATES: [&str; 10] = [
    "eq", "ne", "ult", "ule", "ugt", "uge", "slt", "sle", "sgt", "sge",
];

/// A cast from one width to another.
#[derive(Clone, Copy, Debug)]
enum Cast {
    ZExt(u32),
    SExt(u32),
    Trunc(u32),
}

/// How the branch reads the comparison `%c`.
#[derive(Clone, Copy, Debug)]
enum GuardShape {
    /// `br %c`.
    Direct,
    /// `br (icmp ne (zext %c to i32), 0)`, as C writes `if (x < k)` through an `int`.
    WidenedNe,
    /// `br (icmp ult 0, (zext %c to i32))`: the constant on the left.
    WidenedConstLeft,
    /// `br (xor %c, true)` with the targets exchanged.
    Negated,
}

const SHAPES: [GuardShape; 4] = [
    GuardShape::Direct,
    GuardShape::WidenedNe,
    GuardShape::WidenedConstLeft,
    GuardShape::Negated,
];

/// One comparison of a derived value with a constant.
#[derive(Clone, Debug)]
struct Case {
    input_width: u32,
    casts: Vec<Cast>,
    predicate: &'static str,
    constant: i128,
    constant_left: bool,
    shape: GuardShape,
}

impl Case {
    fn width(&self) -> u32 {
        self.casts.iter().fold(self.input_width, |_, c| match c {
            Cast::ZExt(w) | Cast::SExt(w) | Cast::Trunc(w) => *w,
        })
    }

    /// The input values, as signed integers of the input width.
    fn inputs(&self) -> Vec<i128> {
        if self.input_width == 1 {
            vec![0, -1]
        } else {
            (-128..128).collect()
        }
    }

    /// The model: the comparison's truth for input `v` (only used to pick the values).
    fn truth(&self, v: i128) -> bool {
        let mut width = self.input_width;
        let mut x = v;
        for c in &self.casts {
            x = match *c {
                Cast::ZExt(w) => {
                    let r = unsigned(x, width);
                    width = w;
                    r
                }
                Cast::SExt(w) => {
                    width = w;
                    x
                }
                Cast::Trunc(w) => {
                    width = w;
                    signed(x, w)
                }
            };
            x = signed(x, width);
        }
        let (a, b) = if self.constant_left {
            (self.constant, x)
        } else {
            (x, self.constant)
        };
        let (sa, sb) = (signed(a, width), signed(b, width));
        let (ua, ub) = (unsigned(a, width), unsigned(b, width));
        match self.predicate {
            "eq" => ua == ub,
            "ne" => ua != ub,
            "ult" => ua < ub,
            "ule" => ua <= ub,
            "ugt" => ua > ub,
            "uge" => ua >= ub,
            "slt" => sa < sb,
            "sle" => sa <= sb,
            "sgt" => sa > sb,
            "sge" => sa >= sb,
            p => panic!("predicate {p}"),
        }
    }

    /// The inputs asserted on the side where the comparison is `truth`: the ends of each
    /// run of inputs with that truth (in signed and in unsigned order), or one input when
    /// there is none (an assertion that holds).
    fn probes(&self, truth: bool) -> Vec<i128> {
        let inputs = self.inputs();
        let set: BTreeSet<i128> = inputs
            .iter()
            .copied()
            .filter(|v| self.truth(*v) == truth)
            .collect();
        if set.is_empty() {
            return vec![0];
        }
        let mut res = BTreeSet::new();
        for &v in &set {
            let signed_end = !set.contains(&(v - 1)) || !set.contains(&(v + 1));
            let unsigned_end = v == 0 || v == -1;
            if signed_end || unsigned_end {
                res.insert(v);
            }
        }
        // Parity tests (`trunc` to i1) have 128 runs: keep the outer ends of both orders.
        let res: Vec<i128> = res.into_iter().collect();
        if res.len() <= MAX_PROBES {
            return res;
        }
        let mut kept: BTreeSet<i128> = res[..MAX_PROBES / 2].iter().copied().collect();
        kept.extend(&res[res.len() - MAX_PROBES / 2..]);
        kept.extend([0, -1].iter().filter(|v| set.contains(v)));
        kept.into_iter().collect()
    }
}

fn signed(x: i128, width: u32) -> i128 {
    let m = 1i128 << width;
    let u = x.rem_euclid(m);
    if u >= m / 2 {
        u - m
    } else {
        u
    }
}

fn unsigned(x: i128, width: u32) -> i128 {
    x.rem_euclid(1i128 << width)
}

/// Constants at the ends of the range of a `width`-bit type (distinct modulo 2^width).
fn constants(width: u32) -> Vec<i128> {
    let smin = -(1i128 << (width - 1));
    let smax = (1i128 << (width - 1)) - 1;
    let mut seen = BTreeSet::new();
    let mut res = Vec::new();
    for c in [
        0,
        1,
        -1,
        2,
        -2,
        smin,
        smax,
        smin + 1,
        smax - 1,
        127,
        128,
        255,
        256,
        -128,
        -129,
    ] {
        let c = signed(c, width);
        if seen.insert(c) {
            res.push(c);
        }
    }
    res
}

/// Every derivation of the compared value from the input.
fn derivations(input_width: u32) -> Vec<Vec<Cast>> {
    let mut res = vec![vec![]];
    for w in [8, 16, 32, 64] {
        if w > input_width {
            res.push(vec![Cast::ZExt(w)]);
            res.push(vec![Cast::SExt(w)]);
        }
    }
    if input_width == 1 {
        // `(int)(unsigned char)b` and `(int)(signed char)b` after promotion.
        res.push(vec![Cast::ZExt(8), Cast::SExt(32)]);
        res.push(vec![Cast::SExt(8), Cast::ZExt(32)]);
    } else {
        res.push(vec![Cast::Trunc(1)]);
        res.push(vec![Cast::Trunc(1), Cast::ZExt(32)]);
        res.push(vec![Cast::Trunc(1), Cast::SExt(32)]);
    }
    res
}

fn cases() -> Vec<Case> {
    let mut res = Vec::new();
    for input_width in [1, 8] {
        for casts in derivations(input_width) {
            let probe = Case {
                input_width,
                casts: casts.clone(),
                predicate: "eq",
                constant: 0,
                constant_left: false,
                shape: GuardShape::Direct,
            };
            for constant in constants(probe.width()) {
                for predicate in PREDICATES {
                    for constant_left in [false, true] {
                        let shape = SHAPES[res.len() % SHAPES.len()];
                        res.push(Case {
                            input_width,
                            casts: casts.clone(),
                            predicate,
                            constant,
                            constant_left,
                            shape,
                        });
                    }
                }
            }
        }
    }
    res
}

/// Where each error call of the module is: (function index, truth side, input value).
type Sites = BTreeMap<u32, (usize, bool, i128)>;

/// The module's text. `native` calls `@record(i32 line)` where the analysis calls
/// `@reach_error()` with a debug location on that line.
fn module_text(cases: &[(usize, Case)], native: bool) -> (String, Sites) {
    let mut out = String::new();
    let mut meta = String::new();
    let mut sites = Sites::new();
    let mut next_meta = 10u32;
    let mut next_line = 1u32;
    for (k, case) in cases {
        let sp = next_meta;
        next_meta += 1;
        let _ = writeln!(
            meta,
            "!{sp} = distinct !DISubprogram(name: \"t{k}\", scope: !1, file: !1, line: 1, \
             type: !4, spFlags: DISPFlagDefinition, unit: !0)"
        );
        let iw = case.input_width;
        let dbg = if native {
            String::new()
        } else {
            format!(" !dbg !{sp}")
        };
        let _ = writeln!(out, "define void @t{k}(i{iw} %in){dbg} {{\nentry:");
        let mut cur = "%in".to_string();
        let mut width = iw;
        for (i, c) in case.casts.iter().enumerate() {
            let (op, w) = match c {
                Cast::ZExt(w) => ("zext", *w),
                Cast::SExt(w) => ("sext", *w),
                Cast::Trunc(w) => ("trunc", *w),
            };
            let _ = writeln!(out, "  %x{i} = {op} i{width} {cur} to i{w}");
            cur = format!("%x{i}");
            width = w;
        }
        let k_text = if width == 1 {
            (case.constant != 0).to_string()
        } else {
            case.constant.to_string()
        };
        let (a, b) = if case.constant_left {
            (k_text.as_str(), cur.as_str())
        } else {
            (cur.as_str(), k_text.as_str())
        };
        let _ = writeln!(out, "  %c = icmp {} i{width} {a}, {b}", case.predicate);
        let (cond, then_truth) = match case.shape {
            GuardShape::Direct => ("%c", true),
            GuardShape::WidenedNe => {
                let _ = writeln!(out, "  %cw = zext i1 %c to i32\n  %g = icmp ne i32 %cw, 0");
                ("%g", true)
            }
            GuardShape::WidenedConstLeft => {
                let _ = writeln!(out, "  %cw = zext i1 %c to i32\n  %g = icmp ult i32 0, %cw");
                ("%g", true)
            }
            GuardShape::Negated => {
                let _ = writeln!(out, "  %g = xor i1 %c, true");
                ("%g", false)
            }
        };
        let _ = writeln!(out, "  br i1 {cond}, label %s1_0, label %s0_0");
        for (side, truth) in [(1, then_truth), (0, !then_truth)] {
            let probes = case.probes(truth);
            for (j, v) in probes.iter().enumerate() {
                let line = next_line;
                next_line += 1;
                sites.insert(line, (*k, truth, *v));
                let v_text = if iw == 1 {
                    (*v != 0).to_string()
                } else {
                    v.to_string()
                };
                let next = if j + 1 == probes.len() {
                    "exit".to_string()
                } else {
                    format!("s{side}_{}", j + 1)
                };
                let _ = writeln!(
                    out,
                    "s{side}_{j}:\n  %e{side}_{j} = icmp eq i{iw} %in, {v_text}\n  \
                     br i1 %e{side}_{j}, label %err{line}, label %{next}"
                );
                let call = if native {
                    format!("call void @record(i32 {line})")
                } else {
                    let loc = next_meta;
                    next_meta += 1;
                    let _ = writeln!(
                        meta,
                        "!{loc} = !DILocation(line: {line}, column: 1, scope: !{sp})"
                    );
                    format!("call void @reach_error(), !dbg !{loc}")
                };
                let _ = writeln!(out, "err{line}:\n  {call}\n  br label %exit");
            }
        }
        let _ = writeln!(out, "exit:\n  ret void\n}}\n");
    }
    if native {
        out.push_str("declare void @record(i32)\n");
    } else {
        out.push_str("declare void @reach_error()\n");
        out.push_str(
            "!llvm.dbg.cu = !{!0}\n!llvm.module.flags = !{!2, !3}\n\
             !0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, producer: \"oracle\", \
             isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug)\n\
             !1 = !DIFile(filename: \"oracle.ll\", directory: \"/\")\n\
             !2 = !{i32 7, !\"Dwarf Version\", i32 5}\n\
             !3 = !{i32 2, !\"Debug Info Version\", i32 3}\n\
             !4 = !DISubroutineType(types: !5)\n!5 = !{null}\n",
        );
        out.push_str(&meta);
    }
    (out, sites)
}

/// The C driver that calls every function with every input value and prints the line of
/// each error call reached.
fn native_driver(cases: &[(usize, Case)]) -> String {
    let mut out = String::from(
        "#include <stdio.h>\n#include <stdbool.h>\n\
         void record(int line) { printf(\"%d\\n\", line); }\n",
    );
    for (k, case) in cases {
        let ty = if case.input_width == 1 {
            "bool"
        } else {
            "signed char"
        };
        let _ = writeln!(out, "void t{k}({ty});");
    }
    out.push_str("int main(void) {\n");
    for (k, case) in cases {
        if case.input_width == 1 {
            let _ = writeln!(out, "  t{k}(false); t{k}(true);");
        } else {
            let _ = writeln!(
                out,
                "  for (int v = -128; v < 128; v++) t{k}((signed char)v);"
            );
        }
    }
    out.push_str("  return 0;\n}\n");
    out
}

/// The lines of the error calls reached natively.
fn native_failures(dir: &Path, cases: &[(usize, Case)]) -> BTreeSet<u32> {
    let (module, _) = module_text(cases, true);
    std::fs::write(dir.join("native.ll"), module).expect("native module written");
    std::fs::write(dir.join("driver.c"), native_driver(cases)).expect("driver written");
    let exe = dir.join("oracle");
    let build = Command::new("clang-19")
        .args(["-O0", "-w", "-o"])
        .arg(&exe)
        .arg(dir.join("driver.c"))
        .arg(dir.join("native.ll"))
        .output()
        .expect("clang-19 runs");
    assert!(
        build.status.success(),
        "native build failed: {}",
        String::from_utf8_lossy(&build.stderr)
    );
    let out = Command::new(&exe).output().expect("oracle runs");
    assert!(out.status.success(), "oracle exited {}", out.status);
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.trim().parse::<u32>().expect("a line number"))
        .collect()
}

fn verdicts(module: &Path, extra: &[&str]) -> BTreeMap<u32, String> {
    let out = Command::new(env!("CARGO_BIN_EXE_polyfocus"))
        .args(["check", "--format", "json", "--timeout", "20", "-j", "2"])
        .args(["--no-counterexamples"])
        .args(extra)
        .arg(module)
        .output()
        .expect("polyfocus runs");
    let code = out.status.code().unwrap_or(-1);
    assert!(
        (0..=2).contains(&code),
        "polyfocus exited {code}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    let mut res = BTreeMap::new();
    for c in report["checks"].as_array().expect("checks") {
        let line = c["location"]
            .as_str()
            .and_then(|l| l.split(':').nth(1))
            .and_then(|l| l.parse::<u32>().ok())
            .unwrap_or_else(|| panic!("no line in {c}"));
        res.insert(line, c["verdict"].as_str().unwrap_or("").to_string());
    }
    res
}

fn stride() -> usize {
    std::env::var("POLYFOCUS_ORACLE_STRIDE")
        .ok()
        .and_then(|s| s.parse().ok())
        .filter(|s: &usize| *s > 0)
        .unwrap_or(STRIDE)
}

#[test]
fn comparisons_agree_with_native_execution() {
    let all = cases();
    let picked: Vec<(usize, Case)> = all.into_iter().enumerate().step_by(stride()).collect();
    let tmp = tempfile::tempdir().expect("temporary directory");
    // `POLYFOCUS_ORACLE_DIR` keeps the generated files there, to reproduce a failure.
    let dir = match std::env::var_os("POLYFOCUS_ORACLE_DIR") {
        Some(d) => {
            std::fs::create_dir_all(&d).expect("oracle directory");
            std::path::PathBuf::from(d)
        }
        None => tmp.path().to_path_buf(),
    };
    let dir = dir.as_path();
    let failing = native_failures(dir, &picked);
    let (module, sites) = module_text(&picked, false);
    let path = dir.join("oracle.ll");
    std::fs::write(&path, module).expect("module written");
    let configs: [(&str, &[&str]); 2] = [
        ("focus-poly", &[]),
        (
            "classic-interval",
            &["-Z", "engine=classic", "-Z", "domain=interval"],
        ),
    ];
    let mut wrong = Vec::new();
    for (name, extra) in configs {
        let got = verdicts(&path, extra);
        let mut proved = 0;
        for (line, (k, truth, v)) in &sites {
            let verdict = got.get(line).map(String::as_str).unwrap_or("missing");
            let fails = failing.contains(line);
            if verdict == "proved" {
                proved += 1;
            }
            if (verdict == "proved" && fails) || (verdict == "violated" && !fails) {
                wrong.push(format!(
                    "[{name}] {verdict} but natively {}: t{k} {:?}, side {truth}, input {v}",
                    if fails { "fails" } else { "holds" },
                    picked.iter().find(|(i, _)| i == k).map(|(_, c)| c)
                ));
            }
        }
        // The test would be vacuous if nothing were proved.
        assert!(proved > 0, "[{name}] nothing proved");
    }
    assert!(
        wrong.is_empty(),
        "{} wrong verdicts:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
