//! Live values at each block entry, computed over dense bit rows.
//!
//! A value is live at a block's entry when it is used later without being redefined
//! first. Phi destinations count as live at their block (the edge defines them on the way
//! in); phi sources count as used at the end of the predecessor.
//!
//! The sets are rows of one bit per value, so each visit of a block costs `values / 64`
//! word operations, and a worklist visits a block again only when a successor's set grew:
//! functions with thousands of blocks and values (whole libraries inlined into one entry)
//! take milliseconds, where ordered sets took seconds and gigabytes before any budget of
//! the analysis applied.

use crate::ir::{BlockId, Function, Operand, Terminator, ValueId};
use std::collections::BTreeSet;
use std::sync::OnceLock;

/// The values live at the entry of each block: a bit row per block, and each block's
/// ordered set built when first asked for (sets for every block of a large inlined `main`
/// took most of a gigabyte).
pub struct LiveSets {
    rows: Vec<Vec<u64>>,
    sets: Vec<OnceLock<BTreeSet<ValueId>>>,
}

impl LiveSets {
    /// The values live at the entry of `b`.
    pub fn at(&self, b: BlockId) -> &BTreeSet<ValueId> {
        self.sets[b.index()].get_or_init(|| members(&self.rows[b.index()]))
    }

    /// Whether `v` is live at the entry of `b`.
    pub fn contains(&self, b: BlockId, v: ValueId) -> bool {
        contains(&self.rows[b.index()], v)
    }

    /// The values live at the entry of `b` as a bit row: bit `i` of word `i / 64` for
    /// value `i`.
    pub fn row(&self, b: BlockId) -> &[u64] {
        &self.rows[b.index()]
    }

    /// The values live at the entry of some block.
    pub fn anywhere(&self) -> BTreeSet<ValueId> {
        let width = self.rows.first().map_or(0, Vec::len);
        let union: Vec<u64> = (0..width)
            .map(|w| self.rows.iter().fold(0, |acc, r| acc | r[w]))
            .collect();
        members(&union)
    }
}

/// The values live at the entry of each block.
pub fn live_in(func: &Function) -> LiveSets {
    let n_blocks = func.blocks.len();
    let width = func.values.len().div_ceil(64);
    let row = || vec![0u64; width];
    let mut uses: Vec<Vec<u64>> = vec![row(); n_blocks];
    let mut defs: Vec<Vec<u64>> = vec![row(); n_blocks];
    let mut phi_dests: Vec<Vec<u64>> = vec![row(); n_blocks];
    for (i, b) in func.blocks.iter().enumerate() {
        let use_op = |op: &Operand, defs: &[u64], uses: &mut [u64]| {
            if let Operand::Value(v) = op {
                if !contains(defs, *v) {
                    insert(uses, *v);
                }
            }
        };
        for inst in &b.insts {
            for op in inst.operands() {
                use_op(op, &defs[i], &mut uses[i]);
            }
            if let Some(d) = inst.dest() {
                insert(&mut defs[i], d);
            }
        }
        let term_ops: Vec<&Operand> = match &b.term {
            Terminator::Branch { cond, .. } => vec![cond],
            Terminator::Switch { on, .. } => vec![on],
            _ => vec![],
        };
        for op in term_ops {
            use_op(op, &defs[i], &mut uses[i]);
        }
        for e in b.term.edges() {
            for (d, s) in &e.moves {
                use_op(s, &defs[i], &mut uses[i]);
                insert(&mut phi_dests[e.target.index()], *d);
            }
        }
    }
    let succs: Vec<Vec<usize>> = func
        .blocks
        .iter()
        .map(|b| b.term.successors().iter().map(|s| s.index()).collect())
        .collect();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n_blocks];
    for (i, ss) in succs.iter().enumerate() {
        for &s in ss {
            preds[s].push(i);
        }
    }
    // A worklist seeded in postorder (successors before their predecessors, so most
    // blocks see their successors' final sets first), re-queuing a block's predecessors
    // only when its set grows: rounds over every block cost `blocks × values / 64` each,
    // and a large inlined function needed dozens of them.
    let mut live: Vec<Vec<u64>> = vec![row(); n_blocks];
    let mut queued = vec![true; n_blocks];
    let mut work: std::collections::VecDeque<usize> = postorder(func.entry.index(), &succs).into();
    let (mut out, mut inn) = (row(), row());
    while let Some(i) = work.pop_front() {
        queued[i] = false;
        out.fill(0);
        for &s in &succs[i] {
            let (from, phis) = (&live[s], &phi_dests[s]);
            for (w, word) in out.iter_mut().enumerate() {
                *word |= from[w] & !phis[w];
            }
        }
        for (w, word) in inn.iter_mut().enumerate() {
            *word = uses[i][w] | (out[w] & !defs[i][w]) | phi_dests[i][w];
        }
        if inn != live[i] {
            live[i].copy_from_slice(&inn);
            for &p in &preds[i] {
                if !queued[p] {
                    queued[p] = true;
                    work.push_back(p);
                }
            }
        }
    }
    LiveSets {
        sets: live.iter().map(|_| OnceLock::new()).collect(),
        rows: live,
    }
}

/// Every block once, each after the blocks a depth-first walk from the entry reaches from
/// it (postorder), then the blocks the entry does not reach.
fn postorder(entry: usize, succs: &[Vec<usize>]) -> Vec<usize> {
    let n = succs.len();
    let mut seen = vec![false; n];
    let mut order = Vec::with_capacity(n);
    let mut roots = vec![entry];
    roots.extend(0..n);
    for root in roots {
        if seen[root] {
            continue;
        }
        seen[root] = true;
        // (block, index of its next successor to visit)
        let mut stack = vec![(root, 0usize)];
        while let Some((b, next)) = stack.pop() {
            if let Some(&s) = succs[b].get(next) {
                stack.push((b, next + 1));
                if !seen[s] {
                    seen[s] = true;
                    stack.push((s, 0));
                }
            } else {
                order.push(b);
            }
        }
    }
    order
}

fn insert(bits: &mut [u64], v: ValueId) {
    bits[v.index() / 64] |= 1 << (v.index() % 64);
}

fn contains(bits: &[u64], v: ValueId) -> bool {
    bits[v.index() / 64] & (1 << (v.index() % 64)) != 0
}

fn members(bits: &[u64]) -> BTreeSet<ValueId> {
    let mut res = BTreeSet::new();
    for (w, word) in bits.iter().enumerate() {
        let mut rest = *word;
        while rest != 0 {
            let bit = rest.trailing_zeros() as usize;
            res.insert(ValueId((w * 64 + bit) as u32));
            rest &= rest - 1;
        }
    }
    res
}
