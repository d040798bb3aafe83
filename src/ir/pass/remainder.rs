//! The division identity, stated where a quotient and a remainder of the same operands meet.
//!
//! `q = x / k` and `r = x % k` by the same constant `k > 1` always satisfy `x == k*q + r`
//! (C's truncating division, LLVM's `sdiv`/`srem`, and `udiv`/`urem` alike). The engines
//! bound each of them separately by linear constraints (`|x - k*q| < k`, `0 <= r < k`), which
//! loses the link: after `if (n % 3 != 0) return;`, a loop `for (i = 1; i <= n / 3; i++)`
//! that fills `a[3i - 3 .. 3i - 1]` leaves `hi = 3i - 3` at its head and `i > n / 3` at its
//! exit, but `n == 3 * (n / 3)` is what concludes that every cell below `n` was written.
//! This pass adds, after the later of the two definitions (when the earlier one's block
//! dominates it, so both values are available there), `assume k*q + r == x` computed with
//! wrapping `mul` and `add`.
//!
//! Soundness: the identity holds on every execution in the integers, so it holds modulo
//! `2^w` for the wrapping operations, which is what `==` compares; the assumption ends no
//! execution. The new instructions have no poison flags and no division, so they add no
//! runtime check and no undefined behaviour; the program's own operations are unchanged.

use std::collections::HashMap;

use super::Pass;
use crate::ir::*;

/// See the module documentation.
pub struct RemainderIdentity;

impl Pass for RemainderIdentity {
    fn name(&self) -> &'static str {
        "remainder-identity"
    }

    fn invariant(&self) -> &'static str {
        "where a quotient and a remainder of the same operands by a constant above 1 are both \
         defined, `x == k*q + r` is assumed"
    }

    fn run(&self, func: Function) -> Function {
        add_identities(func)
    }
}

/// The most identities one function gets: a guard on the function's growth (each adds
/// values and an assumption that every later stage reads).
const MAX_IDENTITIES: usize = 64;

/// Where a division or remainder is defined: block, index in it, value.
#[derive(Clone, Copy)]
struct Site {
    block: usize,
    index: usize,
    value: ValueId,
}

fn add_identities(mut func: Function) -> Function {
    // (signed, x, k) -> the quotients and the remainders.
    type Key = (bool, Operand, u128, u32);
    let mut quotients: HashMap<Key, Vec<Site>> = HashMap::new();
    let mut remainders: HashMap<Key, Vec<Site>> = HashMap::new();
    for (b, block) in func.blocks.iter().enumerate() {
        for (i, inst) in block.insts.iter().enumerate() {
            let Inst::Assign {
                dest,
                expr:
                    Expr::Binary {
                        op,
                        lhs,
                        rhs: Operand::Const(k),
                        ..
                    },
            } = inst
            else {
                continue;
            };
            if matches!(lhs, Operand::Undef(_)) {
                continue;
            }
            let (signed, is_rem) = match op {
                BinOp::SDiv => (true, false),
                BinOp::SRem => (true, true),
                BinOp::UDiv => (false, false),
                BinOp::URem => (false, true),
                _ => continue,
            };
            let above_one = if signed {
                k.signed() > 1
            } else {
                k.unsigned() > 1
            };
            if !above_one {
                continue;
            }
            let site = Site {
                block: b,
                index: i,
                value: *dest,
            };
            let key = (signed, *lhs, k.bits, k.ty.width);
            if is_rem {
                remainders.entry(key).or_default().push(site);
            } else {
                quotients.entry(key).or_default().push(site);
            }
        }
    }
    if quotients.keys().all(|k| !remainders.contains_key(k)) {
        return func;
    }
    let idom = dominators(&func);
    let dominates = |a: &Site, b: &Site| -> bool {
        if a.block == b.block {
            return a.index < b.index;
        }
        let mut at = b.block;
        while let Some(up) = idom[at] {
            if up == a.block {
                return true;
            }
            if up == at {
                break;
            }
            at = up;
        }
        false
    };
    // (block, after index, q, r, x, k): inserted from the last position backwards.
    let mut inserts: Vec<(usize, usize, ValueId, ValueId, Operand, Const)> = Vec::new();
    let mut keys: Vec<&Key> = quotients.keys().collect();
    keys.sort_by_key(|k| format!("{k:?}"));
    for key in keys {
        let Some(rems) = remainders.get(key) else {
            continue;
        };
        let (_, x, bits, width) = *key;
        let k = Const {
            ty: Ty { width },
            bits,
        };
        for q in &quotients[key] {
            // The remainder that dominates the quotient, else one the quotient dominates.
            let found = rems
                .iter()
                .find(|r| dominates(r, q))
                .map(|r| (*q, *r, *q))
                .or_else(|| rems.iter().find(|r| dominates(q, r)).map(|r| (*q, *r, *r)));
            if let Some((q, r, later)) = found {
                if inserts.len() < MAX_IDENTITIES {
                    inserts.push((later.block, later.index, q.value, r.value, x, k));
                }
            }
        }
    }
    inserts.sort_by(|a, b| (b.0, b.1).cmp(&(a.0, a.1)));
    for (block, index, q, r, x, k) in inserts {
        let ty = k.ty;
        let fresh = |func: &mut Function, ty: Ty, name: &str| {
            func.values.push(ValueInfo {
                ty,
                name: name.into(),
                source_name: None,
            });
            ValueId(func.values.len() as u32 - 1)
        };
        let t = fresh(&mut func, ty, "div.kq");
        let u = fresh(&mut func, ty, "div.kqr");
        let e = fresh(&mut func, Ty::BOOL, "div.identity");
        let new = [
            Inst::Assign {
                dest: t,
                expr: Expr::Binary {
                    op: BinOp::Mul,
                    lhs: Operand::Value(q),
                    rhs: Operand::Const(k),
                    flags: ArithFlags::default(),
                },
            },
            Inst::Assign {
                dest: u,
                expr: Expr::Binary {
                    op: BinOp::Add,
                    lhs: Operand::Value(t),
                    rhs: Operand::Value(r),
                    flags: ArithFlags::default(),
                },
            },
            Inst::Assign {
                dest: e,
                expr: Expr::Cmp {
                    pred: CmpPred::Eq,
                    lhs: Operand::Value(u),
                    rhs: x,
                },
            },
            Inst::Assume {
                cond: Operand::Value(e),
            },
        ];
        let b = &mut func.blocks[block];
        let loc = b.locs[index].clone();
        for (j, inst) in new.into_iter().enumerate() {
            b.insts.insert(index + 1 + j, inst);
            b.locs.insert(index + 1 + j, loc.clone());
        }
    }
    func
}

/// The immediate dominator of each block (`None` for the entry and unreachable blocks),
/// by petgraph's algorithm of Cooper, Harvey and Kennedy over the block graph.
fn dominators(func: &Function) -> Vec<Option<usize>> {
    let mut graph: petgraph::Graph<(), ()> = petgraph::Graph::new();
    let nodes: Vec<_> = func.blocks.iter().map(|_| graph.add_node(())).collect();
    for (b, block) in func.blocks.iter().enumerate() {
        for s in block.term.successors() {
            graph.add_edge(nodes[b], nodes[s.index()], ());
        }
    }
    let doms = petgraph::algo::dominators::simple_fast(&graph, nodes[func.entry.index()]);
    nodes
        .iter()
        .map(|n| doms.immediate_dominator(*n).map(|d| d.index()))
        .collect()
}
