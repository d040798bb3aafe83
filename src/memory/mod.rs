//! The memory model (issue 15): turns the memory operations the lifter emits (loads, stores
//! and clobbers of bases at byte offsets, see `ir::MemOp`) into scalar values and havocs,
//! what SROA does for locals, extended to globals, pointer parameters and arrays.
//!
//! **Architecture Invariant:** the only module that reads an `ir::MemOp`. Its output has
//! no memory operation and no base (`ir::verify_scalar`), so no engine, solver formula,
//! bounded search, replay or reading ever sees memory; a function it cannot lower is
//! [`erase`]d (every load arbitrary), never passed on with memory in it.
//!
//! The model (`cells.rs` chooses the layout, `ssa.rs` builds the values):
//! - each base has exact cells at constant offsets with a type (two accesses to the same
//!   bytes with different types, or partly overlapping, leave the base untracked), or,
//!   when some access is at a variable offset and every access hits one slot of the same
//!   grid, one summary cell: a store is a weak update (the stored value or the old one),
//!   a load reads the summary;
//! - every cell is arbitrary at the entry (uninitialized locals, globals other code may
//!   have written, what pointer parameters point to), and after a clobber;
//! - a store through a pointer parameter may change every other parameter's object and
//!   every global, and a store to a global every parameter's object: their cells become
//!   arbitrary (the caller may pass aliasing pointers);
//! - loads of an untracked base are arbitrary.

mod cells;
mod contents;
mod copies;
mod memo;
mod pairs;
mod predicates;
mod segments;
mod ssa;

use std::collections::HashMap;

use crate::ir::pass::Pass;
use crate::ir::{BinOp, Expr, Function, HavocReason, Inst, MemOp, Operand, Terminator, ValueId};

/// The pass: memory operations become scalar values and havocs.
pub struct MemoryToValues;

impl Pass for MemoryToValues {
    fn name(&self) -> &'static str {
        "memory-to-values"
    }

    fn invariant(&self) -> &'static str {
        "no memory operation and no base is left: loads are values of cells or arbitrary"
    }

    fn run(&self, func: Function) -> Function {
        lower(func)
    }
}

/// Lowers the memory operations of `func` (see the module documentation); a function
/// without any is returned as it is.
pub fn lower(func: Function) -> Function {
    if func.bases.is_empty() && !func.has_memory() {
        return func;
    }
    let lowered = match ssa::lower(func.clone()) {
        Some(f) if !f.has_memory() => f,
        _ => erase(func),
    };
    compact(remove_dead(lowered))
}

/// The coarsest lowering: every load is arbitrary, stores and clobbers are dropped (what the
/// analysis did before memory was modeled). Sound for any function; the frontend uses it
/// when the memory pass fails.
pub fn erase(mut func: Function) -> Function {
    func.bases.clear();
    for block in &mut func.blocks {
        let insts = std::mem::take(&mut block.insts);
        let locs = std::mem::take(&mut block.locs);
        for (inst, loc) in insts.into_iter().zip(locs) {
            let inst = match inst {
                Inst::Mem(MemOp::Load { dest, .. }) => Inst::Havoc {
                    dest,
                    reason: HavocReason::Load,
                },
                Inst::Mem(_) => continue,
                other => other,
            };
            block.insts.push(inst);
            block.locs.push(loc);
        }
    }
    func
}

/// Removes the definitions nothing reads that the lowering left or made dead: address
/// arithmetic, arbitrary cell values, copies. Only definitions without a source name and
/// without poison flags (whose assumption an engine would lose) go; nondeterministic inputs
/// stay (the replay counts them), and so do divisions, remainders and shifts, which the
/// runtime checks instrument after this pass (issue 16): the value an entry returns is not
/// lifted, so `return a / *p;` would otherwise lose its check, and `--checks div` would
/// prove a function that divides by zero.
fn remove_dead(mut func: Function) -> Function {
    loop {
        let uses = use_counts(&func);
        let mut changed = false;
        for block in &mut func.blocks {
            let mut keep = Vec::with_capacity(block.insts.len());
            for inst in &block.insts {
                let dead = match inst {
                    Inst::Assign { dest, expr } => {
                        let flagged = matches!(expr, Expr::Binary { flags, .. }
                            if flags.nsw || flags.nuw || flags.exact);
                        let may_misbehave = matches!(
                            expr,
                            Expr::Binary {
                                op: BinOp::UDiv
                                    | BinOp::SDiv
                                    | BinOp::URem
                                    | BinOp::SRem
                                    | BinOp::Shl
                                    | BinOp::LShr
                                    | BinOp::AShr,
                                ..
                            }
                        );
                        !flagged
                            && !may_misbehave
                            && uses[dest.index()] == 0
                            && func.values[dest.index()].source_name.is_none()
                    }
                    Inst::Havoc {
                        dest,
                        reason: HavocReason::Load,
                    } => uses[dest.index()] == 0 && func.values[dest.index()].source_name.is_none(),
                    _ => false,
                };
                keep.push(!dead);
                changed |= dead;
            }
            let mut k = keep.iter();
            block
                .insts
                .retain(|_| *k.next().expect("one flag per instruction"));
            let mut k = keep.iter();
            block
                .locs
                .retain(|_| *k.next().expect("one flag per location"));
        }
        if !changed {
            return func;
        }
    }
}

fn use_counts(func: &Function) -> Vec<u32> {
    let mut uses = vec![0u32; func.values.len()];
    let mut count = |op: &Operand| {
        if let Operand::Value(v) = op {
            uses[v.index()] += 1;
        }
    };
    for block in &func.blocks {
        for inst in &block.insts {
            for op in inst.operands() {
                count(op);
            }
        }
        match &block.term {
            Terminator::Branch { cond, .. } => count(cond),
            Terminator::Switch { on, .. } => count(on),
            _ => {}
        }
        for edge in block.term.edges() {
            for (_, src) in &edge.moves {
                count(src);
            }
        }
    }
    uses
}

/// Drops the values nothing defines or reads (dimensions no engine should pay for) and
/// renumbers the rest in order.
fn compact(mut func: Function) -> Function {
    let mut needed = vec![false; func.values.len()];
    for p in &func.params {
        needed[p.index()] = true;
    }
    for (v, n) in use_counts(&func).into_iter().enumerate() {
        needed[v] |= n > 0;
    }
    for block in &func.blocks {
        for inst in &block.insts {
            if let Some(d) = inst.dest() {
                needed[d.index()] = true;
            }
        }
        for edge in block.term.edges() {
            for (d, _) in &edge.moves {
                needed[d.index()] = true;
            }
        }
    }
    if needed.iter().all(|&n| n) {
        return func;
    }
    let mut new_id: HashMap<ValueId, ValueId> = HashMap::new();
    let mut values = Vec::new();
    for (i, info) in func.values.iter().enumerate() {
        if needed[i] {
            new_id.insert(ValueId(i as u32), ValueId(values.len() as u32));
            values.push(info.clone());
        }
    }
    let map = |v: &mut ValueId| *v = new_id[v];
    let map_op = |op: &mut Operand| {
        if let Operand::Value(v) = op {
            *v = new_id[v];
        }
    };
    func.values = values;
    func.params.iter_mut().for_each(map);
    for block in &mut func.blocks {
        for inst in &mut block.insts {
            match inst {
                Inst::Assign { dest, expr } => {
                    map(dest);
                    match expr {
                        Expr::Use(a) | Expr::Cast { arg: a, .. } => map_op(a),
                        Expr::Binary { lhs, rhs, .. } | Expr::Cmp { lhs, rhs, .. } => {
                            map_op(lhs);
                            map_op(rhs);
                        }
                        Expr::Select {
                            cond,
                            on_true,
                            on_false,
                        } => {
                            map_op(cond);
                            map_op(on_true);
                            map_op(on_false);
                        }
                    }
                }
                Inst::Havoc { dest, .. } => map(dest),
                Inst::Assume { cond } => map_op(cond),
                Inst::Mem(_) => {
                    unreachable!("compact runs after the memory operations are lowered")
                }
            }
        }
        match &mut block.term {
            Terminator::Branch { cond, .. } => map_op(cond),
            Terminator::Switch { on, .. } => map_op(on),
            _ => {}
        }
        for edge in block.term.edges_mut() {
            for (d, src) in &mut edge.moves {
                map(d);
                map_op(src);
            }
        }
    }
    func
}
