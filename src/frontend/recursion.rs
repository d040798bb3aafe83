//! The recursive functions of a module and what the contract search (`driver::contracts`)
//! needs to know of them: which functions take part in its rounds, their integer
//! parameters and results, and the constants their code uses. The search itself (the
//! templates, the rounds of proofs) runs in the driver; the front end only reads the code.

use std::collections::{BTreeSet, HashSet};

use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::LLVMOpcode;

use super::normalize;
use super::raw;
use super::reach;
use crate::ir;

/// Constants larger than this are not read (sizes and masks rather than bounds of a
/// recursion: templates over them say nothing useful).
const MAX_TEMPLATE_CONSTANT: i64 = 1 << 24;

/// The recursive functions of a program and who must be lifted to certify their contracts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recursion {
    /// The functions with contract candidates (in a recursive cycle of the call graph), in
    /// module order.
    pub recursive: Vec<RecursiveFunction>,
    /// Every function lifted in certify mode, by name: the recursive ones, then the callers
    /// of those that get a context.
    pub participants: Vec<String>,
    /// The small integer constants the participants use (operands of their instructions).
    pub constants: BTreeSet<i64>,
    /// The small integer constants the participants compare with (operands of `icmp`,
    /// cases of `switch`): where their behaviour may change.
    pub compared_constants: BTreeSet<i64>,
}

/// What the search reads of one recursive function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecursiveFunction {
    /// Its name.
    pub name: String,
    /// How many parameters it has.
    pub n_params: usize,
    /// The positions and widths of its integer parameters of 1 to 64 bits.
    pub int_params: Vec<(usize, u32)>,
    /// Whether it returns an integer the lifter models (1 to 64 bits).
    pub returns_int: bool,
    /// Whether it returns a 64-bit integer.
    pub returns_wide: bool,
    /// The small integer constants it compares with.
    pub compared_constants: BTreeSet<i64>,
    /// Whether it may get a calling context: it can be entered from nowhere but its
    /// direct calls (a closed program started by `main`, its address never escapes, the
    /// library never calls it by name), and every caller is lifted.
    pub has_context: bool,
}

/// The functions of [`Recursion`], as LLVM values.
pub(super) struct Scope {
    /// The recursive functions.
    pub recursive: Vec<LLVMValueRef>,
    /// The recursive functions and the callers of those that get a context.
    pub participants: Vec<LLVMValueRef>,
    /// The recursive functions that may get a context.
    pub with_context: HashSet<LLVMValueRef>,
}

/// The recursive functions of `m` and who must be lifted to certify their contracts.
/// `closed_main` says the program is closed and starts in `main`, the condition for contexts.
pub(super) fn scope(m: LLVMModuleRef, closed_main: bool) -> Scope {
    let graph = normalize::call_graph(m);
    let defined: Vec<LLVMValueRef> = raw::functions(m)
        .into_iter()
        .filter(|f| raw::is_defined(*f))
        .collect();
    let reaches = |from: LLVMValueRef, to: LLVMValueRef| -> bool {
        let mut stack = graph.get(&from).cloned().unwrap_or_default();
        let mut seen: HashSet<LLVMValueRef> = HashSet::new();
        while let Some(f) = stack.pop() {
            if f == to {
                return true;
            }
            if seen.insert(f) {
                stack.extend(graph.get(&f).cloned().unwrap_or_default());
            }
        }
        false
    };
    let recursive: Vec<LLVMValueRef> = defined
        .iter()
        .copied()
        .filter(|f| reaches(*f, *f) && reach::returns_twice_callee(*f).is_none())
        .collect();
    let with_context: HashSet<LLVMValueRef> = recursive
        .iter()
        .copied()
        .filter(|f| {
            closed_main
                && raw::name(*f) != "main"
                && !reach::escapes(*f)
                && !reach::is_interposed(*f)
        })
        .collect();
    let mut participants = recursive.clone();
    for f in &defined {
        let calls_context = graph
            .get(f)
            .is_some_and(|callees| callees.iter().any(|c| with_context.contains(c)));
        if calls_context && !participants.contains(f) {
            participants.push(*f);
        }
    }
    // A caller whose semantics the lifter does not follow (returns twice) gives no context.
    let mut with_context = with_context;
    if participants
        .iter()
        .any(|f| reach::returns_twice_callee(*f).is_some())
    {
        with_context.clear();
    }
    Scope {
        recursive,
        participants,
        with_context,
    }
}

impl Scope {
    /// What the search reads of these functions.
    pub(super) fn recursion(&self) -> Recursion {
        let mut constants = BTreeSet::new();
        let mut compared_constants = BTreeSet::new();
        for f in &self.participants {
            constants_of(*f, &mut constants);
            compared_constants_of(*f, &mut compared_constants);
        }
        let recursive = self
            .recursive
            .iter()
            .map(|&f| {
                let params = raw::params(f);
                let mut own = BTreeSet::new();
                compared_constants_of(f, &mut own);
                RecursiveFunction {
                    name: raw::name(f),
                    n_params: params.len(),
                    int_params: params
                        .iter()
                        .enumerate()
                        .filter_map(|(i, p)| {
                            let w = raw::int_width(raw::type_of(*p))?;
                            (1..=64).contains(&w).then_some((i, w))
                        })
                        .collect(),
                    returns_int: returns_int_of(f, |w| (1..=64).contains(&w)),
                    returns_wide: returns_int_of(f, |w| w == 64),
                    compared_constants: own,
                    has_context: self.with_context.contains(&f),
                }
            })
            .collect();
        Recursion {
            recursive,
            participants: self.participants.iter().map(|f| raw::name(*f)).collect(),
            constants,
            compared_constants,
        }
    }
}

/// Whether some return of `func` gives an integer whose width satisfies `width`.
pub(super) fn returns_int_of(func: LLVMValueRef, width: impl Fn(u32) -> bool) -> bool {
    raw::blocks(func).into_iter().any(|b| {
        raw::instructions(b).into_iter().any(|i| {
            raw::opcode(i) == LLVMOpcode::LLVMRet
                && raw::num_operands(i) == 1
                && raw::int_width(raw::type_of(raw::operand(i, 0))).is_some_and(&width)
        })
    })
}

/// The integer constants `func` uses (operands of its instructions), small ones only.
pub(super) fn constants_of(func: LLVMValueRef, acc: &mut BTreeSet<i64>) {
    for block in raw::blocks(func) {
        for inst in raw::instructions(block) {
            for i in 0..raw::num_operands(inst) {
                let op = raw::operand(inst, i);
                if op.is_null() {
                    continue;
                }
                acc.extend(small_constant(op));
            }
        }
    }
}

/// The integer constants `func` compares with (operands of `icmp`, cases of `switch`):
/// where its behaviour may change, so the thresholds of region guards.
fn compared_constants_of(func: LLVMValueRef, acc: &mut BTreeSet<i64>) {
    for block in raw::blocks(func) {
        for inst in raw::instructions(block) {
            let operands: Vec<u32> = match raw::opcode(inst) {
                LLVMOpcode::LLVMICmp => vec![0, 1],
                LLVMOpcode::LLVMSwitch => (1..raw::num_successors(inst)).map(|i| 2 * i).collect(),
                _ => continue,
            };
            for i in operands {
                acc.extend(small_constant(raw::operand(inst, i)));
            }
        }
    }
}

/// `op` as a signed number when it is an integer constant of 2 to 64 bits no larger than
/// [`MAX_TEMPLATE_CONSTANT`].
fn small_constant(op: LLVMValueRef) -> Option<i64> {
    let width = raw::int_width(raw::type_of(op))?;
    if !(2..=64).contains(&width) {
        return None;
    }
    let v = ir::Ty::int(width).to_signed(raw::const_int_bits(op)? as u128);
    (v.abs() <= MAX_TEMPLATE_CONSTANT as i128).then_some(v as i64)
}
