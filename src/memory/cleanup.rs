//! The last step of the lowering: the definitions nothing reads go ([`remove_dead`]), and
//! the values nothing defines or reads are dropped and the rest renumbered in order
//! ([`compact`]), so that no engine pays a dimension for them.
//!
//! **Invariant:** only definitions whose removal no execution can observe go: without a
//! source name, without poison flags (whose assumption an engine would lose), never a
//! nondeterministic input (the replay counts them) nor an operation a runtime check may
//! instrument later.

use std::collections::HashMap;

use crate::ir::{BinOp, Expr, Function, HavocReason, Inst, Operand, Terminator, ValueId};

/// Removes the definitions nothing reads that the lowering left or made dead: address
/// arithmetic, arbitrary cell values, copies. Only definitions without a source name and
/// without poison flags (whose assumption an engine would lose) go; nondeterministic inputs
/// stay (the replay counts them), and so do divisions, remainders and shifts, which the
/// runtime checks instrument after this pass: the value an entry returns is not
/// lifted, so `return a / *p;` would otherwise lose its check, and `--checks div` would
/// prove a function that divides by zero.
pub fn remove_dead(mut func: Function) -> Function {
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
pub fn compact(mut func: Function) -> Function {
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
