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

/// Removes the definitions no execution can observe that the lowering left or made dead:
/// address arithmetic, arbitrary cell values, copies, and the loop-carried bookkeeping of
/// cells nothing reads after the loop (a phi feeding only itself through the back edge,
/// which counting uses would keep). A definition is *live* when a branch, a switch, an
/// assumption or a kept definition reads it, directly or through other live definitions
/// and phi moves; only the others go, and among them only definitions without a source name
/// and without poison flags (whose assumption an engine would lose). Nondeterministic
/// inputs stay (the replay counts them), and so do divisions, remainders and shifts, which
/// the runtime checks instrument after this pass: the value an entry returns is not lifted,
/// so `return a / *p;` would otherwise lose its check, and `--checks div` would prove a
/// function that divides by zero.
pub fn remove_dead(mut func: Function) -> Function {
    let live = live_values(&func);
    let named =
        |v: &ValueId, values: &[crate::ir::ValueInfo]| values[v.index()].source_name.is_some();
    for block in &mut func.blocks {
        let keep: Vec<bool> = block
            .insts
            .iter()
            .map(|inst| match inst.dest() {
                Some(d) if removable(inst) => live[d.index()] || named(&d, &func.values),
                _ => true,
            })
            .collect();
        let mut k = keep.iter();
        block
            .insts
            .retain(|_| *k.next().expect("one flag per instruction"));
        let mut k = keep.iter();
        block
            .locs
            .retain(|_| *k.next().expect("one flag per location"));
        for edge in block.term.edges_mut() {
            edge.moves
                .retain(|(d, _)| live[d.index()] || named(d, &func.values));
        }
    }
    func
}

/// Whether `inst` may go when its value is dead: an assignment without poison flags that
/// no runtime check instruments, or the arbitrary value of a cell.
fn removable(inst: &Inst) -> bool {
    match inst {
        Inst::Assign { expr, .. } => {
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
            !flagged && !may_misbehave
        }
        Inst::Havoc {
            reason: HavocReason::Load | HavocReason::FieldParam { .. },
            ..
        } => true,
        _ => false,
    }
}

/// The values an execution can observe (see [`remove_dead`]): read by a terminator, an
/// instruction that stays whatever its value, a named value's definition, or the
/// definition of a live value (its operands, and the sources of the phi moves into it).
fn live_values(func: &Function) -> Vec<bool> {
    let n = func.values.len();
    // What each value's definitions read: its instruction's operands and its moves' sources.
    let mut reads: Vec<Vec<ValueId>> = vec![Vec::new(); n];
    let mut live = vec![false; n];
    let mut work: Vec<ValueId> = Vec::new();
    let root = |op: &Operand, live: &mut Vec<bool>, work: &mut Vec<ValueId>| {
        if let Operand::Value(v) = op {
            if !live[v.index()] {
                live[v.index()] = true;
                work.push(*v);
            }
        }
    };
    for block in &func.blocks {
        for inst in &block.insts {
            let kept = match inst.dest() {
                Some(d) => !removable(inst) || func.values[d.index()].source_name.is_some(),
                None => true,
            };
            match inst.dest() {
                Some(d) if !kept => {
                    reads[d.index()].extend(inst.operands().into_iter().filter_map(Operand::value))
                }
                _ => inst
                    .operands()
                    .into_iter()
                    .for_each(|op| root(op, &mut live, &mut work)),
            }
        }
        match &block.term {
            Terminator::Branch { cond, .. } => root(cond, &mut live, &mut work),
            Terminator::Switch { on, .. } => root(on, &mut live, &mut work),
            _ => {}
        }
        for edge in block.term.edges() {
            for (d, src) in &edge.moves {
                if func.values[d.index()].source_name.is_some() {
                    root(src, &mut live, &mut work);
                } else if let Some(v) = src.value() {
                    reads[d.index()].push(v);
                }
            }
        }
    }
    while let Some(v) = work.pop() {
        for &r in &reads[v.index()] {
            if !live[r.index()] {
                live[r.index()] = true;
                work.push(r);
            }
        }
    }
    live
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
                        Expr::Use(a)
                        | Expr::Cast { arg: a, .. }
                        | Expr::BitCount { arg: a, .. } => map_op(a),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse;

    /// A loop that counts `i` up to `n` and carries `w`, a value computed from itself and
    /// `i` that nothing after the loop reads (what a cell written in the loop leaves).
    const CARRIED: &str = "\
function f(v0: i64) entry bb0
  bb0: ; entry
    jump bb1 [v1 := 0:i64, v2 := 0:i64]
  bb1: ; for.cond
    v3: i1 = icmp ult v1, v0
    branch v3 ? bb2 : bb3
  bb2: ; for.body
    v4: i64 = add v2, v1
    v5: i64 = add v1, 1:i64
    jump bb1 [v1 := v5, v2 := v4]
  bb3: ; for.end
    return
";

    fn cleaned(text: &str) -> String {
        compact(remove_dead(parse(text).unwrap())).to_string()
    }

    #[test]
    fn a_value_that_only_feeds_itself_around_a_loop_is_removed() {
        let out = cleaned(CARRIED);
        assert!(!out.contains("add v2"), "{out}");
        assert_eq!(
            out.matches(":=").count(),
            2,
            "only the counter's moves stay: {out}"
        );
    }

    #[test]
    fn a_carried_value_a_branch_reads_stays() {
        let read = CARRIED.replace(
            "  bb3: ; for.end\n    return\n",
            "  bb3: ; for.end\n    v6: i1 = icmp eq v2, 7:i64\n    branch v6 ? bb4 : bb5\n  \
             bb4: ; then\n    return\n  bb5: ; else\n    return\n",
        );
        let out = cleaned(&read);
        assert!(out.contains("= add v2, v1"), "{out}");
        assert_eq!(out.matches(":=").count(), 4, "{out}");
    }

    #[test]
    fn a_carried_value_with_a_source_name_stays() {
        let named = CARRIED.replace("v4: i64 = add v2, v1\n", "v4: i64 = add v2, v1  ; sum\n");
        let out = cleaned(&named);
        assert!(out.contains("; sum"), "{out}");
    }
}
