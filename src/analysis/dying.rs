//! The values a path's transformer may forget on the way: after its last read, a value's
//! dimension only makes the states between two cut points larger.
//!
//! A step of a path *reads* a value when the value is one of its operands, and, for a guard
//! (a branch condition, an assumption, a select's condition), when the guard's
//! decomposition reads the value's definition ([`Lowering::guard_operands`]: the
//! comparisons and boolean connectives under the condition). A value is *needed* where a
//! later step may read it: it is live there (`context::liveness`), or a needed guard reads
//! it. [`Dying`] says, for each instruction of a block, which values no later step of the
//! block reads and which are not needed after the block; and for each edge out of a block,
//! which values the state may hold that are not needed at the edge's target.
//!
//! Forgetting them changes no image: a later step mentions none of their dimensions, and
//! projecting a dimension out commutes with the operations that do not mention it (the
//! meet with a constraint on other dimensions, an assignment of an expression over them,
//! the convex hull of a select, a bound of an expression over them are the same before or
//! after the projection). A domain that keeps one state per valuation of its booleans keeps
//! their dimensions to the path's end: forgetting one there would join those states early. What changes is the size of the states between cut points: a block
//! that computes many intermediate values (the segment bounds of the memory lowering, a
//! select per case of an update) no longer carries every one of them through each join.

use super::lower::Lowering;
use crate::domain::{DimKind, NumericDomain, Var};
use crate::ir::{BlockId, Inst, Operand, Terminator, ValueId};
use std::collections::BTreeSet;
use std::sync::OnceLock;

/// The dimensions to forget along each block, computed for a block when a path first
/// crosses it.
pub struct Dying {
    blocks: Vec<OnceLock<BlockDying>>,
    needed: Vec<OnceLock<BTreeSet<ValueId>>>,
}

/// What to forget in one block.
struct BlockDying {
    /// After each instruction (by index), the values it read or defined last.
    after: Vec<Forget>,
    /// After each edge out of the block (in the order of [`Terminator::edges`]), the values
    /// the state may hold that its target does not need.
    on_edge: Vec<Forget>,
}

/// Dimensions to forget at one step, the boolean ones apart.
#[derive(Clone, Debug, Default)]
pub struct Forget {
    /// Dimensions of values read as integers.
    pub numeric: Vec<Var>,
    /// Boolean dimensions ([`DimKind::Bool`]): a domain that keeps a state per valuation
    /// of its booleans keeps them to the path's end.
    pub boolean: Vec<Var>,
    /// The values of both.
    pub values: Vec<ValueId>,
}

impl Forget {
    /// Forgets the dimensions in `state`, the boolean ones only when `state`'s domain does
    /// not partition on booleans.
    pub fn apply<D: NumericDomain>(&self, state: &mut D) {
        if !self.numeric.is_empty() {
            state.forget(&self.numeric);
        }
        if !self.boolean.is_empty() && !D::partitions_on_booleans() {
            state.forget(&self.boolean);
        }
    }

    /// Forgets every dimension, the boolean ones too, in any domain: for a relation or a
    /// state that starts from every state, where no later step decides a boolean the path
    /// no longer reads, so keeping one state per valuation only multiplies the parts.
    pub fn apply_all<D: NumericDomain>(&self, state: &mut D) {
        if !self.numeric.is_empty() {
            state.forget(&self.numeric);
        }
        if !self.boolean.is_empty() {
            state.forget(&self.boolean);
        }
    }
}

impl Dying {
    /// Nothing computed yet, for a function of `n_blocks` blocks.
    pub fn new(n_blocks: usize) -> Dying {
        Dying {
            blocks: (0..n_blocks).map(|_| OnceLock::new()).collect(),
            needed: (0..n_blocks).map(|_| OnceLock::new()).collect(),
        }
    }

    /// The dimensions to forget after the `idx`-th instruction of `b`.
    pub fn after_inst(&self, lowering: &Lowering<'_>, b: BlockId, idx: usize) -> &Forget {
        &self.block(lowering, b).after[idx]
    }

    /// The dimensions to forget after the `idx`-th edge out of `b` is taken.
    pub fn after_edge(&self, lowering: &Lowering<'_>, b: BlockId, idx: usize) -> &Forget {
        &self.block(lowering, b).on_edge[idx]
    }

    fn block(&self, lowering: &Lowering<'_>, b: BlockId) -> &BlockDying {
        self.blocks[b.index()].get_or_init(|| self.compute(lowering, b))
    }

    /// The values needed at the entry of `b`: its live values and what their guards read.
    fn needed_at(&self, lowering: &Lowering<'_>, b: BlockId) -> &BTreeSet<ValueId> {
        self.needed[b.index()].get_or_init(|| {
            let mut set = BTreeSet::new();
            for v in lowering.context().live_at(b) {
                add_reads(lowering, &Operand::Value(*v), &mut set);
            }
            set
        })
    }

    fn compute(&self, lowering: &Lowering<'_>, b: BlockId) -> BlockDying {
        let func = lowering.func();
        let block = func.block(b);
        let edges = block.term.edges();
        // Needed after the instructions: what the successors need, the terminator's
        // condition (a guard) and the moves' sources.
        let mut later: BTreeSet<ValueId> = BTreeSet::new();
        for e in &edges {
            later.extend(self.needed_at(lowering, e.target).iter().copied());
            for (_, src) in &e.moves {
                add_reads(lowering, src, &mut later);
            }
        }
        match &block.term {
            Terminator::Branch { cond, .. } => add_reads(lowering, cond, &mut later),
            Terminator::Switch { on, .. } => add_reads(lowering, on, &mut later),
            _ => {}
        }
        let mut after = vec![Forget::default(); block.insts.len()];
        for (i, inst) in block.insts.iter().enumerate().rev() {
            let mut reads = BTreeSet::new();
            for op in inst.operands() {
                add_reads(lowering, op, &mut reads);
            }
            let dying = reads
                .iter()
                .copied()
                .chain(inst.dest())
                .filter(|v| !later.contains(v));
            after[i] = forgettable(lowering, dying);
            later.extend(reads);
        }
        // The state at the block's end holds at most what was needed at its entry and what
        // it defined; a successor forgets what it does not need.
        let mut held: BTreeSet<ValueId> = self.needed_at(lowering, b).clone();
        held.extend(block.insts.iter().filter_map(Inst::dest));
        let on_edge = edges
            .iter()
            .map(|e| {
                let needed = self.needed_at(lowering, e.target);
                forgettable(
                    lowering,
                    held.iter().copied().filter(|v| !needed.contains(v)),
                )
            })
            .collect();
        BlockDying { after, on_edge }
    }
}

/// Adds `op` and every value the guard on `op` reads through definitions.
fn add_reads(lowering: &Lowering<'_>, op: &Operand, set: &mut BTreeSet<ValueId>) {
    let mut stack: Vec<ValueId> = match op {
        Operand::Value(v) => vec![*v],
        _ => return,
    };
    while let Some(v) = stack.pop() {
        if !set.insert(v) {
            continue;
        }
        for next in lowering.guard_operands(v) {
            if let Operand::Value(w) = next {
                stack.push(*w);
            }
        }
    }
}

/// The dimensions of `values`, the boolean ones apart.
fn forgettable(lowering: &Lowering<'_>, values: impl Iterator<Item = ValueId>) -> Forget {
    let layout = lowering.layout();
    let values: Vec<ValueId> = values.collect();
    let (boolean, numeric) = values
        .iter()
        .map(|v| layout.value_var(*v))
        .partition(|var| lowering.space().kind(*var) == DimKind::Bool);
    Forget {
        numeric,
        boolean,
        values,
    }
}
