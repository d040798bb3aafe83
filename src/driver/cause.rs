//! The first cause that blocks an assertion the stages left unknown.
//!
//! Two causes are found from the lifted program alone, so they do not depend on the budget:
//! - a value the analysis does not model (a load from memory that was not promoted, the
//!   result of a call without a body, an unsupported operation, an uninitialized variable)
//!   on which reaching the error site depends: the branch conditions and assumptions of
//!   every block that can reach the error site, closed under the operands that define them
//!   (phi moves included); the one found first, nearest to the error site, is named;
//! - otherwise the imprecise cut point: the first loop head from which a loop-free path
//!   leads to the error site, with the invariant there.

use crate::check::{LoopInvariant, UnknownReason};
use crate::graph::{CutKind, ReducedGraph};
use crate::ir::{BlockId, Function, HavocReason, Inst, Operand, SourceLoc, Terminator, ValueId};
use std::collections::{BTreeSet, VecDeque};

/// A value the analysis treats as arbitrary because it does not model where it comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unmodeled {
    /// What it is, for people (`a load from memory`, `the result of a call to `f``).
    pub what: String,
    /// Where it is read.
    pub loc: Option<SourceLoc>,
}

/// The first unmodeled value on which reaching `error` depends, nearest to it.
pub fn unmodeled_dependency(func: &Function, error: BlockId) -> Option<Unmodeled> {
    let n_blocks = func.blocks.len();
    // Blocks that can reach the error site.
    let mut predecessors: Vec<Vec<BlockId>> = vec![Vec::new(); n_blocks];
    for b in func.block_ids() {
        for e in func.block(b).term.edges() {
            predecessors[e.target.index()].push(b);
        }
    }
    let mut reaches = vec![false; n_blocks];
    let mut stack = vec![error];
    reaches[error.index()] = true;
    while let Some(b) = stack.pop() {
        for p in &predecessors[b.index()] {
            if !reaches[p.index()] {
                reaches[p.index()] = true;
                stack.push(*p);
            }
        }
    }
    // Where each value is defined, and the moves that assign it.
    let mut def: Vec<Option<(BlockId, usize)>> = vec![None; func.values.len()];
    let mut moves_into: Vec<Vec<(BlockId, Operand)>> = vec![Vec::new(); func.values.len()];
    for b in func.block_ids() {
        let block = func.block(b);
        for (i, inst) in block.insts.iter().enumerate() {
            if let Some(d) = inst.dest() {
                def[d.index()] = Some((b, i));
            }
        }
        for e in block.term.edges() {
            for (d, s) in &e.moves {
                moves_into[d.index()].push((b, *s));
            }
        }
    }
    // Operands deciding whether the error site is reached, nearest first: the blocks
    // that reach it, from the error site backwards.
    let mut work: VecDeque<(Operand, Option<SourceLoc>)> = VecDeque::new();
    let mut order: Vec<BlockId> = Vec::new();
    let mut seen_block = vec![false; n_blocks];
    let mut queue = VecDeque::from([error]);
    seen_block[error.index()] = true;
    while let Some(b) = queue.pop_front() {
        order.push(b);
        for p in &predecessors[b.index()] {
            if reaches[p.index()] && !seen_block[p.index()] {
                seen_block[p.index()] = true;
                queue.push_back(*p);
            }
        }
    }
    for b in &order {
        let block = func.block(*b);
        match &block.term {
            Terminator::Branch { cond, .. } => work.push_back((*cond, block.term_loc.clone())),
            Terminator::Switch { on, .. } => work.push_back((*on, block.term_loc.clone())),
            _ => {}
        }
        for (inst, loc) in block.insts.iter().zip(&block.locs).rev() {
            if let Inst::Assume { cond } = inst {
                work.push_back((*cond, loc.clone()));
            }
        }
    }
    // Each condition's own dependencies before the next condition's: the value named is
    // one the nearest branch reads, not one of an earlier branch's operands.
    let mut seen: BTreeSet<ValueId> = BTreeSet::new();
    let roots = std::mem::take(&mut work);
    for root in roots {
        work.push_back(root);
        if let Some(found) = first_unmodeled(func, &def, &moves_into, &mut work, &mut seen) {
            return Some(found);
        }
    }
    None
}

/// The first unmodeled value in the dependencies of what `work` holds, breadth first;
/// `seen` is shared with the searches of earlier conditions, whose values had none.
fn first_unmodeled(
    func: &Function,
    def: &[Option<(BlockId, usize)>],
    moves_into: &[Vec<(BlockId, Operand)>],
    work: &mut VecDeque<(Operand, Option<SourceLoc>)>,
    seen: &mut BTreeSet<ValueId>,
) -> Option<Unmodeled> {
    while let Some((op, loc)) = work.pop_front() {
        let v = match op {
            Operand::Const(_) => continue,
            Operand::Undef(_) => {
                return Some(Unmodeled {
                    what: "an uninitialized variable (any value)".into(),
                    loc,
                })
            }
            Operand::Value(v) => v,
        };
        if !seen.insert(v) {
            continue;
        }
        if let Some((b, i)) = def[v.index()] {
            let block = func.block(b);
            let here = block.locs.get(i).cloned().flatten().or(loc.clone());
            match &block.insts[i] {
                Inst::Havoc { reason, .. } => {
                    if let Some(what) = unmodeled(reason) {
                        return Some(Unmodeled { what, loc: here });
                    }
                }
                inst => {
                    for o in inst.operands() {
                        work.push_back((*o, here.clone()));
                    }
                }
            }
        }
        for (b, s) in &moves_into[v.index()] {
            work.push_back((*s, func.block(*b).term_loc.clone().or(loc.clone())));
        }
    }
    None
}

/// What an arbitrary value stands for, when it is not an input of the program.
fn unmodeled(reason: &HavocReason) -> Option<String> {
    match reason {
        HavocReason::Nondet { .. } => None,
        HavocReason::UnknownCall { function } if crate::frontend::is_library_function(function) => {
            Some(format!(
                "the result of `{function}`, a function of the C library (any value the \
                 standard allows it to return)"
            ))
        }
        HavocReason::UnknownCall { function } => Some(format!(
            "the result of a call to `{function}`, which has no body or stays a call (any \
             value, within its contract when it has one)"
        )),
        HavocReason::Load => Some(
            "a load from memory that is not modeled (any value, or only the constants or \
             bounds its object is known to hold)"
                .into(),
        ),
        HavocReason::NullParam { param } => Some(format!(
            "the pointer parameter `{param}`, which a caller may pass as NULL"
        )),
        HavocReason::SizeParam { param } => Some(format!(
            "the size of the object `{param}` points into, which depends on the caller"
        )),
        HavocReason::AddressParam { param } => Some(format!(
            "the address the pointer parameter `{param}` holds, which depends on the caller"
        )),
        HavocReason::FieldParam { param, offset } => Some(format!(
            "the bytes at offset {offset} of the object `{param}` points to, as the caller \
             leaves them"
        )),
        HavocReason::UnknownBounds => Some(
            "the bounds of an access through a pointer whose object the memory model does not describe"
                .into(),
        ),
        HavocReason::Unsupported { what } => Some(format!("{what}, which is not modeled")),
    }
}

/// The first loop head (in cut point order) from which a loop-free path leads to the error
/// site of `error`.
pub fn imprecise_loop_head(graph: &ReducedGraph, error: BlockId) -> Option<BlockId> {
    let target = graph.cut_of_block(error)?;
    graph
        .ids()
        .filter(|c| graph.cut_point(*c).kind == CutKind::LoopHead)
        .find(|c| graph.successors(*c).contains(&target))
        .map(|c| graph.cut_point(c).block)
}

/// The first cause that blocks an assertion left imprecise: a value the analysis does not
/// model, else the loop whose invariant does not exclude the error site.
pub fn cause_of(
    func: &Function,
    graph: &ReducedGraph,
    loop_invariants: &[LoopInvariant],
    error: BlockId,
) -> Option<UnknownReason> {
    if let Some(u) = unmodeled_dependency(func, error) {
        return Some(UnknownReason::Unmodeled {
            what: u.what,
            loc: u.loc,
        });
    }
    let head = imprecise_loop_head(graph, error)?;
    let name = &func.block(head).name;
    let inv = loop_invariants.iter().find(|i| i.block == *name)?;
    // A reason is one line: a long invariant (many disjuncts) is cut; the whole one is in
    // the invariants of the report.
    const MAX_CHARS: usize = 240;
    let invariant = if inv.text.chars().count() > MAX_CHARS {
        let cut: String = inv.text.chars().take(MAX_CHARS).collect();
        format!("{cut} ...")
    } else {
        inv.text.clone()
    };
    Some(UnknownReason::ImpreciseAt {
        loc: inv.loc.clone(),
        invariant,
    })
}
