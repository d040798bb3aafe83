//! Renders a [`Skeleton`] as C: for the oracle (probes report values, or assertions report
//! their failure), or as the program the analyzer checks (assertions in the skeleton's
//! [`AssertStyle`], inputs from `__VERIFIER_nondet_*` and `__VERIFIER_assume`).
//!
//! Only probe, input and uninitialized lines differ between renderings (and the entries of
//! functions with preconditions to evaluate); the shared lines are the same text, so the
//! oracle runs the program the analyzer sees. A `#line` directive gives the oracle's lines
//! the numbers and file name of the analyzed program's, so that the sanitizers' reports
//! name the lines the analyzer's report does.

use super::precondition::Precondition;
use super::{AssertStyle, CType, Line, Skeleton};
use std::collections::BTreeMap;

/// The condition chosen for each probe (by id).
pub type Conditions = BTreeMap<usize, String>;

/// What the oracle rendering does at probes.
#[derive(Clone, Copy, Debug)]
pub enum OracleMode<'a> {
    /// Report the probe's value.
    Probe,
    /// Check the probe's condition; a failure ends the run.
    Assert(&'a Conditions),
}

/// The C name of the file the analyzer gets (check locations name it).
pub const PROGRAM_FILE: &str = "prog.c";

/// The program for the native oracle; the entry of each function of `preconditions`
/// evaluates them into their slots.
pub fn oracle_text(
    skeleton: &Skeleton,
    mode: OracleMode,
    preconditions: &[Precondition],
) -> String {
    let mut out = String::new();
    for include in &skeleton.includes {
        out.push_str(include);
        out.push('\n');
    }
    out.push_str(
        "long long oracle_input(long long lo, long long hi);\n\
         void oracle_probe(int id, unsigned long long bits);\n\
         void oracle_fail(int id, unsigned line);\n\
         struct oracle_scope { int slot; int saved; };\n\
         int oracle_enter(int slot, int holds);\n\
         long long oracle_object_size(const void *p);\n\
         void oracle_leave(struct oracle_scope *scope);\n",
    );
    let first_line = analysis_prefix(skeleton).len() + 1;
    out.push_str(&format!("#line {first_line} \"{PROGRAM_FILE}\"\n"));
    for (k, line) in skeleton.lines.iter().enumerate() {
        match line {
            Line::Text(text) => out.push_str(text),
            Line::Open { text, function } => {
                out.push_str(text);
                for p in preconditions.iter().filter(|p| &p.function == function) {
                    let slot = p.slot;
                    out.push_str(&format!(
                        " struct oracle_scope oracle_scope_{slot} __attribute__((cleanup(oracle_leave))) = {{{slot}, oracle_enter({slot}, ({}) != 0)}};",
                        p.expr
                    ));
                }
            }
            Line::Input {
                name, ty, lo, hi, ..
            } => {
                out.push_str(&format!(
                    "{ty} {name} = ({ty})oracle_input({lo}LL, {hi}LL);"
                ));
            }
            Line::Uninit { decl, cells } => {
                out.push_str(&format!("{decl};"));
                for cell in cells {
                    // A few values per cell: 0, 1, -1 and 2 converted to the cell's type.
                    out.push_str(&format!(" {cell} = oracle_input(-1, 2);"));
                }
            }
            Line::Probe { id, expr, .. } => match mode {
                OracleMode::Probe => out.push_str(&format!(
                    "oracle_probe({id}, (unsigned long long)({expr}));"
                )),
                OracleMode::Assert(conditions) => {
                    if let Some(cond) = conditions.get(id) {
                        let at = first_line + k;
                        out.push_str(&format!("if (!({cond})) oracle_fail({id}, {at});"));
                    }
                }
            },
        }
        out.push('\n');
    }
    out
}

/// The lines of the analyzed program before the skeleton's.
fn analysis_prefix(skeleton: &Skeleton) -> Vec<String> {
    let mut lines: Vec<String> = skeleton.includes.clone();
    lines.extend(header(skeleton).lines().map(str::to_string));
    lines
}

/// The analyzed program, and the line (1-based) of each assertion by id.
pub fn analysis_text(
    skeleton: &Skeleton,
    conditions: &Conditions,
) -> (String, BTreeMap<u32, usize>) {
    let mut lines = analysis_prefix(skeleton);
    let mut assertion_at = BTreeMap::new();
    for line in &skeleton.lines {
        let text = match line {
            Line::Text(text) | Line::Open { text, .. } => text.clone(),
            Line::Input {
                name,
                ty,
                nondet,
                lo,
                hi,
            } => {
                let mut text = format!("{ty} {name} = {nondet}();");
                if (*lo, *hi) != (ty.lowest(), ty.highest()) {
                    text.push_str(&format!(
                        " __VERIFIER_assume({} <= {name} && {name} <= {});",
                        ty.literal(*lo),
                        ty.literal(*hi)
                    ));
                }
                text
            }
            Line::Uninit { decl, .. } => format!("{decl};"),
            Line::Probe { id, .. } => match conditions.get(id) {
                Some(cond) => {
                    assertion_at.insert(lines.len() as u32 + 1, *id);
                    assertion(skeleton.style, cond)
                }
                None => String::new(),
            },
        };
        lines.push(text);
    }
    let mut out = lines.join("\n");
    out.push('\n');
    (out, assertion_at)
}

fn assertion(style: AssertStyle, cond: &str) -> String {
    match style {
        AssertStyle::SvComp => format!("__VERIFIER_assert({cond});"),
        AssertStyle::CAssert => format!("assert({cond});"),
        AssertStyle::ReachError | AssertStyle::EmptyReachError => {
            format!("if (!({cond})) reach_error();")
        }
        AssertStyle::ErrorThroughPointer => format!("if (!({cond})) report_error();"),
    }
}

/// Declarations of the analyzed program: the assertion style's and the nondet functions'.
fn header(skeleton: &Skeleton) -> String {
    let mut out = String::new();
    match skeleton.style {
        AssertStyle::SvComp => out.push_str(
            "extern void abort(void);\n\
             extern void __assert_fail(const char *, const char *, unsigned int, const char *) \
             __attribute__((__nothrow__, __leaf__)) __attribute__((__noreturn__));\n\
             void reach_error() { __assert_fail(\"0\", \"prog.c\", 3, \"reach_error\"); }\n\
             void __VERIFIER_assert(int cond) { if (!(cond)) { ERROR: { reach_error(); abort(); } } return; }\n",
        ),
        AssertStyle::CAssert => out.push_str("#include <assert.h>\n"),
        AssertStyle::ReachError => out.push_str("extern void reach_error(void);\n"),
        AssertStyle::EmptyReachError => out.push_str("void reach_error(void) {}\n"),
        AssertStyle::ErrorThroughPointer => out.push_str(
            "extern void reach_error(void);\n\
             void (*report_error)(void) = reach_error;\n",
        ),
    }
    let mut nondet: Vec<(&str, CType)> = skeleton
        .lines
        .iter()
        .filter_map(|l| match l {
            Line::Input { nondet, ty, .. } => Some((*nondet, *ty)),
            _ => None,
        })
        .collect();
    nondet.sort();
    nondet.dedup_by_key(|(name, _)| *name);
    for (name, ty) in &nondet {
        out.push_str(&format!(
            "extern {} {name}(void);\n",
            nondet_return(name, *ty)
        ));
    }
    if skeleton
        .lines
        .iter()
        .any(|l| matches!(l, Line::Input { ty, lo, hi, .. } if (*lo, *hi) != (ty.lowest(), ty.highest())))
    {
        out.push_str("extern void __VERIFIER_assume(int);\n");
    }
    out
}

/// The return type of a nondet function as SV-COMP declares it.
fn nondet_return(name: &str, ty: CType) -> &'static str {
    match name {
        "__VERIFIER_nondet_bool" => "_Bool",
        "__VERIFIER_nondet_char" => "char",
        "__VERIFIER_nondet_uchar" => "unsigned char",
        "__VERIFIER_nondet_short" => "short",
        "__VERIFIER_nondet_ushort" => "unsigned short",
        "__VERIFIER_nondet_int" => "int",
        "__VERIFIER_nondet_uint" => "unsigned int",
        _ => ty.c_name(),
    }
}
