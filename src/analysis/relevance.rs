//! Which values decide whether some error sites are reached, nearest first: the stages
//! that track only a few values per cut point (the template bounds, the relational
//! congruences) take the most relevant ones instead of the first ones by id.
//!
//! A value's distance is the length of the shortest chain of data dependences (an
//! instruction's operands, an edge's moves into the target's phis) from a condition of a
//! branch in a block from which a target can be reached: the checks' own conditions and
//! the conditions of the loops and branches on the way. Values no such chain reaches come
//! last. The order only chooses what is tracked; every value tracked is sound to track.

use crate::ir::{BlockId, Function, Operand, Terminator, ValueId};
use std::collections::{BTreeMap, VecDeque};

/// The distance of the values that decide whether the targets are reached.
#[derive(Clone, Debug, Default)]
pub struct Relevance {
    distance: BTreeMap<ValueId, u32>,
}

impl Relevance {
    /// The relevance of the values of `func` to reaching any block of `targets`.
    pub fn toward(func: &Function, targets: &[BlockId]) -> Relevance {
        let n = func.blocks.len();
        let mut preds: Vec<Vec<BlockId>> = vec![vec![]; n];
        for b in func.block_ids() {
            for s in func.block(b).term.successors() {
                preds[s.index()].push(b);
            }
        }
        // The blocks from which a target can be reached.
        let mut reaching = vec![false; n];
        let mut work: Vec<BlockId> = targets.to_vec();
        while let Some(b) = work.pop() {
            if std::mem::replace(&mut reaching[b.index()], true) {
                continue;
            }
            work.extend(preds[b.index()].iter().copied());
        }
        // What each value is computed from.
        let mut sources: BTreeMap<ValueId, Vec<ValueId>> = BTreeMap::new();
        for b in func.block_ids() {
            let block = func.block(b);
            for inst in &block.insts {
                if let Some(dest) = inst.dest() {
                    sources
                        .entry(dest)
                        .or_default()
                        .extend(inst.operands().into_iter().filter_map(Operand::value));
                }
            }
            for edge in block.term.edges() {
                for (dest, op) in &edge.moves {
                    sources.entry(*dest).or_default().extend(op.value());
                }
            }
        }
        let mut distance: BTreeMap<ValueId, u32> = BTreeMap::new();
        let mut queue: VecDeque<ValueId> = VecDeque::new();
        for b in func.block_ids().filter(|b| reaching[b.index()]) {
            let cond = match &func.block(b).term {
                Terminator::Branch { cond, .. } => cond,
                Terminator::Switch { on, .. } => on,
                _ => continue,
            };
            if let Some(v) = cond.value() {
                if distance.insert(v, 0).is_none() {
                    queue.push_back(v);
                }
            }
        }
        while let Some(v) = queue.pop_front() {
            let d = distance[&v] + 1;
            for &w in sources.get(&v).into_iter().flatten() {
                if let std::collections::btree_map::Entry::Vacant(e) = distance.entry(w) {
                    e.insert(d);
                    queue.push_back(w);
                }
            }
        }
        Relevance { distance }
    }

    /// The relevance of the values of `func` to reaching any of its error sites.
    pub fn toward_errors(func: &Function) -> Relevance {
        let errors: Vec<BlockId> = func
            .block_ids()
            .filter(|b| matches!(func.block(*b).term, Terminator::Error(_)))
            .collect();
        Relevance::toward(func, &errors)
    }

    /// `values` nearest first (ties and the values no chain reaches by id), at most `max`.
    pub fn nearest(&self, values: impl IntoIterator<Item = ValueId>, max: usize) -> Vec<ValueId> {
        let mut values: Vec<ValueId> = values.into_iter().collect();
        values.sort_by_key(|v| (self.distance.get(v).copied().unwrap_or(u32::MAX), *v));
        values.truncate(max);
        values
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse;

    /// Two loops: the first counts `v0` up to `v9`; the second walks `v5`, and only its
    /// value reaches the check; `v7` is a sum nothing reads.
    const TWO_LOOPS: &str = "\
function two_loops() entry bb0
  bb0: ; entry
    v9: i32 = havoc (nondet n)
    jump bb1 [v0 := 0:i32, v7 := 0:i32]
  bb1: ; first
    v1: i1 = icmp slt v0, v9
    branch v1 ? bb2 : bb3
  bb2: ; body
    v2: i32 = add v0, 1:i32
    v8: i32 = add v7, v0
    jump bb1 [v0 := v2, v7 := v8]
  bb3: ; between
    jump bb4 [v5 := 0:i32]
  bb4: ; second
    v3: i1 = icmp slt v5, 10:i32
    branch v3 ? bb5 : bb8
  bb5: ; check
    v4: i1 = icmp sle v5, 9:i32
    branch v4 ? bb7 : bb6
  bb6: ; fail
    error check0
  bb7: ; step
    v6: i32 = add v5, 1:i32
    jump bb4 [v5 := v6]
  bb8: ; exit
    return
";

    #[test]
    fn the_values_the_checks_and_loops_read_come_first_and_a_dead_sum_last() {
        let func = parse(TWO_LOOPS).expect("parses");
        let r = Relevance::toward_errors(&func);
        let order = r.nearest(
            func.values
                .iter()
                .enumerate()
                .map(|(i, _)| ValueId(i as u32)),
            3,
        );
        // The conditions of the branches on the way to the error site are nearest.
        assert_eq!(order, vec![ValueId(1), ValueId(3), ValueId(4)]);
        let all = r.nearest(
            [ValueId(7), ValueId(8), ValueId(5), ValueId(9), ValueId(0)],
            5,
        );
        // `v5`, `v0` and `v9` are read by conditions (distance 1); the sum `v7 = v7 + v0`
        // decides nothing: last, by id.
        assert_eq!(
            all,
            vec![ValueId(0), ValueId(5), ValueId(9), ValueId(7), ValueId(8)]
        );
    }

    #[test]
    fn without_targets_the_order_is_by_id() {
        let func = parse(TWO_LOOPS).expect("parses");
        let r = Relevance::toward(&func, &[]);
        assert_eq!(
            r.nearest([ValueId(5), ValueId(1), ValueId(3)], 2),
            vec![ValueId(1), ValueId(3)]
        );
    }
}
