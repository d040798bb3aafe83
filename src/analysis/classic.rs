//! The classic engine: worklist iteration over blocks in reverse post-order, widening at
//! loop heads after a delay, then one descending (narrowing) pass.
//!
//! It is the baseline that path focusing is measured against.

use super::lower::Lowering;
use super::{Deadline, Invariants, Outcome};
use crate::domain::{NumericDomain, VarSet};
use crate::ir::{BlockId, CmpPred, Expr, Operand, Terminator};
use std::collections::BTreeSet;

/// Runs the classic analysis of a function; the result holds the state at each block entry.
pub fn analyze<D: NumericDomain>(
    lowering: &Lowering<'_>,
    deadline: &Deadline,
) -> (Invariants<D>, Outcome) {
    let func = lowering.func();
    let graph = lowering.context().graph();
    let n = func.blocks.len();
    let mut rpo_index = vec![usize::MAX; n];
    for (i, b) in graph.rpo().iter().enumerate() {
        rpo_index[b.index()] = i;
    }
    let mut states: Vec<Option<D>> = vec![None; n];
    states[func.entry.index()] = Some(lowering.entry_state());
    let mut visits = vec![0u32; n];
    let mut worklist: BTreeSet<usize> = BTreeSet::new();
    worklist.insert(rpo_index[func.entry.index()]);
    let mut outcome = Outcome::Complete;
    let dim = lowering.space().dim() as u64;
    let widening_delay = lowering.params().classic.widening_delay;

    while let Some(i) = worklist.pop_first() {
        let b = graph.rpo()[i];
        if !deadline.spend(block_work::<D>(lowering, b, dim)) || deadline.expired() {
            outcome = Outcome::Timeout;
            break;
        }
        let Some(state) = states[b.index()].clone() else {
            continue;
        };
        for (succ, mut out) in successors_out(lowering, b, state) {
            let idx = succ.index();
            out.forget_set(&dead_at_entry(lowering, succ));
            let new = match &states[idx] {
                None => out,
                Some(old) => {
                    if out.is_leq(old) {
                        continue;
                    }
                    if graph.is_loop_head(succ) {
                        visits[idx] += 1;
                        if visits[idx] > widening_delay {
                            old.clone().widen(&old.clone().join(&out))
                        } else {
                            old.clone().join(&out)
                        }
                    } else {
                        old.clone().join(&out)
                    }
                }
            };
            states[idx] = Some(new);
            worklist.insert(rpo_index[idx]);
        }
    }

    if outcome == Outcome::Complete {
        narrow_once(lowering, &mut states, deadline);
    }
    (Invariants { at_block: states }, outcome)
}

/// One descending pass in reverse post-order: each block's state is recomputed from its
/// predecessors; loop heads are narrowed, other blocks take the new state (which is
/// smaller, since the ascending phase ended at a post-fixpoint).
///
/// Each block runs once: its outgoing states go to the successors after it in the order,
/// which take them when their turn comes. A successor at or before it (a loop head, by a
/// back edge) takes instead what the block's state from before the pass lets through,
/// computed before the pass changes anything.
///
/// Each step keeps the states a post-fixpoint (the new state of a block is below the old
/// one and above the image of its predecessors' states), so the pass may stop at the
/// deadline with sound states.
fn narrow_once<D: NumericDomain>(
    lowering: &Lowering<'_>,
    states: &mut [Option<D>],
    deadline: &Deadline,
) {
    let func = lowering.func();
    let graph = lowering.context().graph();
    let dim = lowering.space().dim() as u64;
    let n = func.blocks.len();
    let mut rpo_index = vec![usize::MAX; n];
    for (i, b) in graph.rpo().iter().enumerate() {
        rpo_index[b.index()] = i;
    }
    let is_back = |from: BlockId, to: BlockId| rpo_index[to.index()] <= rpo_index[from.index()];
    // What each block receives: joined over its predecessors as they run.
    let mut incoming: Vec<Option<D>> = vec![None; n];
    let receive = |incoming: &mut Vec<Option<D>>, succ: BlockId, mut out: D| {
        out.forget_set(&dead_at_entry(lowering, succ));
        let slot = &mut incoming[succ.index()];
        *slot = Some(match slot.take() {
            None => out,
            Some(acc) => acc.join(&out),
        });
    };
    // The back edges' states, from the states of before the pass.
    for p in graph.rpo() {
        let Some(state) = states[p.index()].clone() else {
            continue;
        };
        if !func
            .block(*p)
            .term
            .successors()
            .iter()
            .any(|s| is_back(*p, *s))
        {
            continue;
        }
        if !deadline.spend(block_work::<D>(lowering, *p, dim)) {
            return;
        }
        for (succ, out) in successors_out(lowering, *p, state) {
            if is_back(*p, succ) {
                receive(&mut incoming, succ, out);
            }
        }
    }
    for b in graph.rpo() {
        if deadline.expired() {
            return;
        }
        if *b != func.entry {
            let new = incoming[b.index()].take();
            let Some(new) = new else {
                // No predecessor lets anything through any more: unreachable.
                states[b.index()] = None;
                continue;
            };
            let old = states[b.index()].take();
            states[b.index()] = Some(match old {
                Some(old) if graph.is_loop_head(*b) => old.narrow(&new),
                Some(old) => old.meet(&new),
                None => new,
            });
        }
        let Some(state) = states[b.index()].clone() else {
            continue;
        };
        if !deadline.spend(block_work::<D>(lowering, *b, dim)) {
            return;
        }
        for (succ, out) in successors_out(lowering, *b, state) {
            if !is_back(*b, succ) {
                receive(&mut incoming, succ, out);
            }
        }
    }
}

/// At most this many blocks up the chain of single predecessors are searched for
/// disequalities.
const DISEQUALITY_CHAIN: usize = 8;

/// The disequalities that hold on every execution reaching `b`: the branch conditions
/// `a != b` (or the false side of `a == b`) of the edges into `b`'s chain of single
/// predecessors. A disequality gives a convex constraint only once one side of it is
/// excluded (`x != y` then `x <= y` is `x < y`), which a later guard may do; so after each
/// guard out of `b` they are applied again. They hold there because the values are SSA
/// values, unchanged since the edge that tested them, and every execution at `b` came
/// through that edge (`gcd(y1, y2 - y1)` after `y1 == y2` failed and
/// `y1 > y2` failed has `y2 - y1 >= 1`).
fn dominating_disequalities(lowering: &Lowering<'_>, b: BlockId) -> Vec<(Operand, bool)> {
    let func = lowering.func();
    let graph = lowering.context().graph();
    let mut res = Vec::new();
    let mut cur = b;
    let mut seen = vec![b];
    for _ in 0..DISEQUALITY_CHAIN {
        let [p] = graph.predecessors(cur) else {
            break;
        };
        let p = *p;
        // A chain that closes a cycle would read a value of an earlier iteration.
        if seen.contains(&p) {
            break;
        }
        seen.push(p);
        if let Terminator::Branch {
            cond,
            then_edge,
            else_edge,
        } = &func.block(p).term
        {
            if then_edge.target != else_edge.target {
                let truth = then_edge.target == cur;
                let pred = match cond {
                    Operand::Value(v) => match lowering.def(*v) {
                        Some(Expr::Cmp { pred, .. }) => Some(*pred),
                        _ => None,
                    },
                    _ => None,
                };
                if matches!(
                    (pred, truth),
                    (Some(CmpPred::Ne), true) | (Some(CmpPred::Eq), false)
                ) {
                    res.push((cond.clone(), truth));
                }
            }
        }
        cur = p;
    }
    res
}

/// The value dimensions dead at a block's entry (values not live there: SSA values that
/// nothing reads any more), as a bit row. The engine forgets them in every state it
/// stores, which leaves the relations between the live values exactly as they were
/// (projection keeps every constraint they imply) while the states stay small: a function
/// lifted with contract checks has hundreds of short-lived values, and carrying them made
/// the blocks of the decomposed polyhedra, hence each step, grow with the function.
fn dead_at_entry(lowering: &Lowering<'_>, b: BlockId) -> VarSet {
    lowering.context().dead_at(b, lowering.layout())
}

/// The steps of work (see `Deadline::spend`) of running block `b` once: its instructions,
/// and per outgoing edge a copy of the state and a join or comparison, each over every
/// dimension, in units of `D` ([`NumericDomain::STEPS_PER_UNIT`]). What a run costs thus
/// follows the function's size, never the machine.
fn block_work<D: NumericDomain>(lowering: &Lowering<'_>, b: BlockId, dim: u64) -> u64 {
    let block = lowering.func().block(b);
    let edges = match &block.term {
        Terminator::Jump(_) => 1,
        Terminator::Branch { .. } => 2,
        Terminator::Switch { cases, .. } => cases.len() as u64 + 1,
        Terminator::Return | Terminator::Stop | Terminator::Error(_) => 0,
    };
    (block.insts.len() as u64 + 1 + edges * dim).div_ceil(D::STEPS_PER_UNIT)
}

/// Runs a block from its entry state and returns the state flowing along each outgoing
/// edge (empty states are dropped).
pub fn successors_out<D: NumericDomain>(
    lowering: &Lowering<'_>,
    b: BlockId,
    mut state: D,
) -> Vec<(BlockId, D)> {
    let block = lowering.func().block(b);
    let mut stop = super::transformer::StopCheck::default();
    for inst in &block.insts {
        if stop.reached() {
            // The rest of the block is not applied: every value may be anything.
            state = D::top(lowering.space());
            break;
        }
        lowering.apply_inst(&mut state, inst);
        if state.is_bottom() {
            return vec![];
        }
    }
    let mut res = Vec::new();
    match &block.term {
        Terminator::Jump(e) => {
            let mut s = state;
            lowering.apply_moves(&mut s, e);
            res.push((e.target, s));
        }
        Terminator::Branch {
            cond,
            then_edge,
            else_edge,
        } => {
            let earlier = dominating_disequalities(lowering, b);
            for (edge, truth) in [(then_edge, true), (else_edge, false)] {
                let mut s = state.clone();
                lowering.apply_guard(&mut s, cond, truth);
                for (c, t) in &earlier {
                    lowering.apply_guard(&mut s, c, *t);
                }
                lowering.apply_moves(&mut s, edge);
                res.push((edge.target, s));
            }
        }
        Terminator::Switch { on, cases, default } => {
            let mut dflt = state.clone();
            for (c, edge) in cases {
                let mut s = state.clone();
                lowering.apply_case(&mut s, on, *c);
                lowering.apply_moves(&mut s, edge);
                res.push((edge.target, s));
                lowering.apply_not_case(&mut dflt, on, *c);
            }
            lowering.apply_moves(&mut dflt, default);
            res.push((default.target, dflt));
        }
        Terminator::Return | Terminator::Stop | Terminator::Error(_) => {}
    }
    res.retain(|(_, s)| !s.is_bottom());
    res
}
