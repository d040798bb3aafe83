//! Assumptions of boolean phis, pushed onto the incoming edges.
//!
//! C's short-circuit `a && b` is a phi of booleans: `[false, from a's test]`,
//! `[b, from b's test]`. An `assume` of that phi constrains no number by itself: an engine
//! that applies the assume at the join sees a boolean and forgets which comparison it
//! copied, so `polyfocus_assume(n >= 0 && n <= 500)` would keep only the first conjunct at
//! loop heads. This pass states the assumption on each incoming edge, where the phi's
//! value is the operand the edge moves into it: a constant `false` ends the edge, an
//! operand becomes an `assume` of it on the edge.
//!
//! Soundness: the assumption is kept where it was. An execution that takes an edge into
//! block `B` runs `B`'s instructions up to the assumption without leaving `B` (instructions
//! never branch and `B`'s error site, if any, is its terminator), and the phi holds the
//! edge's operand all the while, so it is ended by the assumption in `B` exactly when it is
//! ended by the one on the edge. Negations (`xor c, true`), conjunctions assumed true,
//! disjunctions assumed false and their `select` forms are looked through, so nested mixes
//! of `&&`, `||` and `!` reach their phis. A branch one of whose sides only ends the path
//! (`if (!c) abort();`, an inlined `assume_abort_if_not`) is an assumption of its condition
//! at the end of its block, and is treated alike. Only assumptions that reach a phi are
//! rewritten; every other function comes out unchanged.

use std::collections::BTreeSet;

use super::Pass;
use crate::ir::*;

/// See the module documentation.
pub struct AssumeThroughPhis;

impl Pass for AssumeThroughPhis {
    fn name(&self) -> &'static str {
        "assume-through-phis"
    }

    fn invariant(&self) -> &'static str {
        "an assumption of a boolean phi (an `assume`, or a branch whose other side stops) also \
         holds as an assumption on each incoming edge"
    }

    fn run(&self, func: Function) -> Function {
        Rewriter::new(func).run()
    }
}

/// How deep conditions are looked through (negations, `and`, `or`, `select`).
const DEPTH: usize = 32;

/// What an assumption says once looked through.
#[derive(Default)]
struct Split {
    /// Conditions that must hold (`true`) or fail (`false`) at the assumption.
    facts: Vec<(ValueId, bool)>,
    /// Phis of the block where the assumption is, with the truth they must have.
    phis: Vec<(ValueId, bool)>,
    /// A constant of the wrong truth: the assumption ends every execution.
    dead: bool,
}

struct Rewriter {
    func: Function,
    /// The expression defining each value of the input, if it is an assignment.
    defs: Vec<Option<Expr>>,
    /// The block whose phi each value is, if any.
    phi_of: Vec<Option<BlockId>>,
}

impl Rewriter {
    fn new(func: Function) -> Rewriter {
        let mut defs = vec![None; func.values.len()];
        let mut phi_of = vec![None; func.values.len()];
        for b in &func.blocks {
            for inst in &b.insts {
                if let Inst::Assign { dest, expr } = inst {
                    defs[dest.index()] = Some(expr.clone());
                }
            }
            for e in b.term.edges() {
                for (d, _) in &e.moves {
                    phi_of[d.index()] = Some(e.target);
                }
            }
        }
        Rewriter { func, defs, phi_of }
    }

    fn run(mut self) -> Function {
        // The assumptions of the input that reach a phi of their own block.
        let mut found = Vec::new();
        for id in self.func.block_ids() {
            let b = self.func.block(id);
            for (k, inst) in b.insts.iter().enumerate() {
                if let Inst::Assume { cond } = inst {
                    let split = self.split(Some(id), cond, true);
                    if !split.phis.is_empty() {
                        found.push((id, k, split, b.locs[k].clone()));
                    }
                }
            }
        }
        let mut obligations = Vec::new();
        // Facts go right after their assumption; later positions first, so that earlier
        // indices stay valid.
        for (id, k, split, loc) in found.into_iter().rev() {
            let cond = match &self.func.block(id).insts[k] {
                Inst::Assume { cond } => *cond,
                _ => unreachable!("found at an assumption"),
            };
            let mut insts = Vec::new();
            for (v, truth) in &split.facts {
                if (Operand::Value(*v), *truth) != (cond, true) {
                    insts.extend(self.fact(*v, *truth));
                }
            }
            let block = &mut self.func.blocks[id.index()];
            let n = insts.len();
            block.insts.splice(k + 1..k + 1, insts);
            block
                .locs
                .splice(k + 1..k + 1, std::iter::repeat_n(loc.clone(), n));
            obligations.extend(split.phis.iter().map(|&(v, t)| (id, v, t, loc.clone())));
        }
        // A branch with one side that only ends the path (`if (!c) abort();`, which is how
        // `assume_abort_if_not` and `__VERIFIER_assume` bodies look once inlined) assumes
        // its condition for every execution that goes on.
        for id in self.func.block_ids() {
            let b = self.func.block(id);
            let Terminator::Branch {
                cond,
                then_edge,
                else_edge,
            } = &b.term
            else {
                continue;
            };
            let ends = |e: &Edge| matches!(self.func.block(e.target).term, Terminator::Stop);
            let truth = match (ends(then_edge), ends(else_edge)) {
                (false, true) => true,
                (true, false) => false,
                _ => continue,
            };
            let split = self.split(Some(id), cond, truth);
            let loc = b.term_loc.clone();
            obligations.extend(split.phis.iter().map(|&(v, t)| (id, v, t, loc.clone())));
        }
        let mut done = BTreeSet::new();
        while let Some((target, phi, truth, loc)) = obligations.pop() {
            if done.insert((target, phi, truth)) {
                self.push_to_edges(target, phi, truth, loc, &mut obligations);
            }
        }
        self.func
    }

    /// States `phi == truth` on every edge into `target` that moves a value into `phi`.
    fn push_to_edges(
        &mut self,
        target: BlockId,
        phi: ValueId,
        truth: bool,
        loc: Option<SourceLoc>,
        obligations: &mut Vec<(BlockId, ValueId, bool, Option<SourceLoc>)>,
    ) {
        for pred in self.func.block_ids().collect::<Vec<_>>() {
            let n_edges = self.func.block(pred).term.edges().len();
            for edge_idx in 0..n_edges {
                let edge = self.func.block(pred).term.edges()[edge_idx].clone();
                if edge.target != target {
                    continue;
                }
                let Some(&(_, incoming)) = edge.moves.iter().find(|(d, _)| *d == phi) else {
                    continue;
                };
                if let Terminator::Jump(_) = self.func.block(pred).term {
                    // The only way out of `pred`: the assumption goes at its end, and a phi
                    // of `pred` goes on to `pred`'s own incoming edges.
                    let split = self.split(Some(pred), &incoming, truth);
                    if split.dead {
                        let block = &mut self.func.blocks[pred.index()];
                        block.term = Terminator::Stop;
                        block.term_loc = loc.clone();
                        continue;
                    }
                    let insts: Vec<Inst> = split
                        .facts
                        .iter()
                        .flat_map(|&(v, t)| self.fact(v, t))
                        .collect();
                    let block = &mut self.func.blocks[pred.index()];
                    block
                        .locs
                        .extend(std::iter::repeat_n(loc.clone(), insts.len()));
                    block.insts.extend(insts);
                    obligations.extend(split.phis.iter().map(|&(v, t)| (pred, v, t, loc.clone())));
                } else {
                    // One of several ways out: the edge gets a block of its own.
                    let split = self.split(None, &incoming, truth);
                    let name = format!("{}.assume", self.func.block(target).name);
                    let new_block = if split.dead {
                        Block {
                            name,
                            insts: vec![],
                            locs: vec![],
                            term: Terminator::Stop,
                            term_loc: loc.clone(),
                        }
                    } else if split.facts.is_empty() {
                        continue;
                    } else {
                        let insts: Vec<Inst> = split
                            .facts
                            .iter()
                            .flat_map(|&(v, t)| self.fact(v, t))
                            .collect();
                        Block {
                            name,
                            locs: vec![loc.clone(); insts.len()],
                            insts,
                            term: Terminator::Jump(edge.clone()),
                            term_loc: loc.clone(),
                        }
                    };
                    let new_id = BlockId(self.func.blocks.len() as u32);
                    self.func.blocks.push(new_block);
                    let redirected = &mut self.func.blocks[pred.index()].term.edges_mut()[edge_idx];
                    redirected.target = new_id;
                    redirected.moves.clear();
                }
            }
        }
    }

    /// Looks through `cond == truth` down to comparisons, opaque booleans and phis of `at`.
    fn split(&self, at: Option<BlockId>, cond: &Operand, truth: bool) -> Split {
        let mut res = Split::default();
        self.split_rec(at, cond, truth, DEPTH, &mut res);
        res
    }

    fn split_rec(
        &self,
        at: Option<BlockId>,
        cond: &Operand,
        truth: bool,
        depth: usize,
        res: &mut Split,
    ) {
        let v = match cond {
            Operand::Const(c) => {
                if (c.bits & 1 == 1) != truth {
                    res.dead = true;
                }
                return;
            }
            // Any value, chosen anew: assuming it is assuming nothing.
            Operand::Undef(_) => return,
            Operand::Value(v) => *v,
        };
        // Conditions are booleans; anything else is left alone (assuming less is sound).
        if !self.is_bool(v) {
            return;
        }
        if at.is_some() && self.phi_of.get(v.index()).copied().flatten() == at {
            res.phis.push((v, truth));
            return;
        }
        let def = self.defs.get(v.index()).and_then(|d| d.as_ref());
        if depth > 0 {
            let is_false =
                |op: &Operand| matches!(op, Operand::Const(c) if c.ty.is_bool() && c.bits == 0);
            let is_true =
                |op: &Operand| matches!(op, Operand::Const(c) if c.ty.is_bool() && c.bits == 1);
            let both = |a: &Operand, ta: bool, b: &Operand, tb: bool, res: &mut Split| {
                self.split_rec(at, a, ta, depth - 1, res);
                self.split_rec(at, b, tb, depth - 1, res);
            };
            match def {
                Some(Expr::Binary {
                    op: BinOp::Xor,
                    lhs,
                    rhs,
                    ..
                }) => match (lhs, rhs) {
                    (x, Operand::Const(c)) | (Operand::Const(c), x) => {
                        return self.split_rec(at, x, truth ^ (c.bits & 1 == 1), depth - 1, res)
                    }
                    _ => {}
                },
                Some(Expr::Binary {
                    op: BinOp::And,
                    lhs,
                    rhs,
                    ..
                }) if truth => return both(lhs, true, rhs, true, res),
                Some(Expr::Binary {
                    op: BinOp::Or,
                    lhs,
                    rhs,
                    ..
                }) if !truth => return both(lhs, false, rhs, false, res),
                Some(Expr::Select {
                    cond,
                    on_true,
                    on_false,
                }) => {
                    // `c ? x : false` is `c && x`; `c ? true : y` is `c || y`;
                    // `c ? false : y` is `!c && y`; `c ? x : true` is `!c || x`.
                    if truth && is_false(on_false) {
                        return both(cond, true, on_true, true, res);
                    }
                    if truth && is_false(on_true) {
                        return both(cond, false, on_false, true, res);
                    }
                    if !truth && is_true(on_true) {
                        return both(cond, false, on_false, false, res);
                    }
                    if !truth && is_true(on_false) {
                        return both(cond, true, on_true, false, res);
                    }
                }
                _ => {}
            }
        }
        res.facts.push((v, truth));
    }

    fn is_bool(&self, v: ValueId) -> bool {
        self.func.value(v).ty.is_bool()
    }

    /// The instructions that assume `v == truth`: `assume v`, or the negated comparison (a
    /// new value) and its assumption.
    fn fact(&mut self, v: ValueId, truth: bool) -> Vec<Inst> {
        if truth {
            return vec![Inst::Assume {
                cond: Operand::Value(v),
            }];
        }
        let expr = match self.defs.get(v.index()).and_then(|d| d.clone()) {
            Some(Expr::Cmp { pred, lhs, rhs }) => Expr::Cmp {
                pred: pred.negated(),
                lhs,
                rhs,
            },
            _ => Expr::Binary {
                op: BinOp::Xor,
                lhs: Operand::Value(v),
                rhs: Operand::Const(Const::bool(true)),
                flags: ArithFlags::default(),
            },
        };
        let name = format!("{}.not", self.func.value(v).name);
        let dest = ValueId(self.func.values.len() as u32);
        self.func.values.push(ValueInfo {
            ty: Ty::BOOL,
            name,
            source_name: None,
        });
        vec![
            Inst::Assign { dest, expr },
            Inst::Assume {
                cond: Operand::Value(dest),
            },
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::pass::{Pipeline, Verification};

    fn run(text: &str) -> String {
        let f = parse(text).unwrap();
        let pipeline = Pipeline::new(
            vec![Box::new(AssumeThroughPhis)],
            Verification::AfterEachPass,
        );
        pipeline.run(f).unwrap().to_string()
    }

    /// `assume(n >= 0 && n <= 500)` as clang emits it.
    const AND: &str = "\
function main() entry bb0
  bb0: ; entry
    v0: i32 = havoc (nondet polyfocus_nondet_int)  ; n  @3
    v1: i1 = icmp sge v0, 0:i32  @4
    branch v1 ? bb1 : bb2 [v3 := false]  @4
  bb1: ; land.rhs
    v2: i1 = icmp sle v0, 500:i32  @4
    jump bb2 [v3 := v2]
  bb2: ; land.end
    assume v3  @4
    return
";

    #[test]
    fn a_conjunction_is_assumed_on_its_edges() {
        let expected = "\
function main() entry bb0
  bb0: ; entry
    v0: i32 = havoc (nondet polyfocus_nondet_int)  ; n  @3
    v1: i1 = icmp sge v0, 0:i32  @4
    branch v1 ? bb1 : bb3  @4
  bb1: ; land.rhs
    v2: i1 = icmp sle v0, 500:i32  @4
    assume v2  @4
    jump bb2 [v3 := v2]
  bb2: ; land.end
    assume v3  @4
    return
  bb3: ; land.end.assume
    stop  @4
";
        assert_eq!(run(AND), expected);
    }

    #[test]
    fn a_negated_disjunction_assumes_each_side_false() {
        // `assume(!(n < 0 || n > 500))`: the phi is `[true, ...], [n > 500, ...]`, negated.
        let text = "\
function main() entry bb0
  bb0: ; entry
    v0: i32 = havoc (nondet polyfocus_nondet_int)
    v1: i1 = icmp slt v0, 0:i32
    branch v1 ? bb2 [v3 := true] : bb1
  bb1: ; lor.rhs
    v2: i1 = icmp sgt v0, 500:i32
    jump bb2 [v3 := v2]
  bb2: ; lor.end
    v4: i1 = xor v3, true
    assume v4
    return
";
        let expected = "\
function main() entry bb0
  bb0: ; entry
    v0: i32 = havoc (nondet polyfocus_nondet_int)
    v1: i1 = icmp slt v0, 0:i32
    branch v1 ? bb3 : bb1
  bb1: ; lor.rhs
    v2: i1 = icmp sgt v0, 500:i32
    v5: i1 = icmp sle v0, 500:i32
    assume v5
    jump bb2 [v3 := v2]
  bb2: ; lor.end
    v4: i1 = xor v3, true
    assume v4
    return
  bb3: ; lor.end.assume
    stop
";
        assert_eq!(run(text), expected);
    }

    #[test]
    fn an_edge_of_a_branch_gets_its_own_block() {
        // `assume(a || b)` where the edge carrying `b` is one way out of a branch.
        let text = "\
function f(v0: i1, v1: i1, v2: i1) entry bb0
  bb0: ; entry
    branch v2 ? bb1 [v3 := v0] : bb1 [v3 := v1]
  bb1: ; join
    assume v3
    return
";
        let expected = "\
function f(v0: i1, v1: i1, v2: i1) entry bb0
  bb0: ; entry
    branch v2 ? bb2 : bb3
  bb1: ; join
    assume v3
    return
  bb2: ; join.assume
    assume v0
    jump bb1 [v3 := v0]
  bb3: ; join.assume
    assume v1
    jump bb1 [v3 := v1]
";
        assert_eq!(run(text), expected);
    }

    #[test]
    fn a_branch_to_a_stop_is_an_assumption() {
        // `if (!(n >= 0 && n <= 500)) exit(0);`, inlined.
        let text = "\
function main() entry bb0
  bb0: ; entry
    v0: i32 = havoc (nondet polyfocus_nondet_int)
    v1: i1 = icmp sge v0, 0:i32
    branch v1 ? bb1 : bb2 [v3 := false]
  bb1: ; land.rhs
    v2: i1 = icmp sle v0, 500:i32
    jump bb2 [v3 := v2]
  bb2: ; land.end
    branch v3 ? bb3 : bb4
  bb3: ; go.on
    return
  bb4: ; exit
    stop
";
        let out = run(text);
        assert!(out.contains("branch v1 ? bb1 : bb5\n"), "{out}");
        assert!(
            out.contains("v2: i1 = icmp sle v0, 500:i32\n    assume v2\n"),
            "{out}"
        );
        assert!(
            out.contains("  bb5: ; land.end.assume\n    stop\n"),
            "{out}"
        );
        // Both sides stopping, or neither: no assumption.
        let neither = text.replace("    stop\n", "    return\n");
        assert_eq!(run(&neither), parse(&neither).unwrap().to_string());
    }

    #[test]
    fn other_assumptions_are_left_alone() {
        // No phi: a plain `&&` of two comparisons (the engines split it themselves), and a
        // phi of another block (pushing it would end executions that never reach here).
        let text = "\
function f(v0: i32) entry bb0
  bb0: ; entry
    v1: i1 = icmp sge v0, 0:i32
    v2: i1 = icmp sle v0, 9:i32
    v3: i1 = and v1, v2
    assume v3
    jump bb1 [v4 := v1]
  bb1: ; a
    jump bb2
  bb2: ; b
    assume v4
    return
";
        assert_eq!(run(text), parse(text).unwrap().to_string());
    }

    #[test]
    fn a_disjunction_is_not_split() {
        // `assume(a || b)` on one edge: `[true, ...]` says nothing, `[b, ...]` is `b`.
        let text = "\
function f(v0: i32) entry bb0
  bb0: ; entry
    v1: i1 = icmp sle v0, 500:i32
    branch v1 ? bb2 [v3 := true] : bb1
  bb1: ; lor.rhs
    v2: i1 = icmp eq v0, 700:i32
    jump bb2 [v3 := v2]
  bb2: ; lor.end
    assume v3
    return
";
        let out = run(text);
        assert!(out.contains("branch v1 ? bb2 [v3 := true] : bb1"), "{out}");
        assert!(
            out.contains("v2: i1 = icmp eq v0, 700:i32\n    assume v2\n"),
            "{out}"
        );
        assert!(!out.contains("stop"), "{out}");
    }
}
