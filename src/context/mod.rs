//! The facts about one function that every stage needs, computed once.
//!
//! The engines ([`crate::analysis::classic`], [`crate::analysis::focus`]), the solver formulas
//! ([`crate::smt::RegionFormula`]), certification ([`crate::analysis::certify`]), refinement
//! ([`crate::analysis::refine`]) and the counterexample search all read the same readings, reduced
//! graph, liveness and [`Layout`]; building them once means they cannot disagree (the
//! readings of the solver and of the transformers must be the same for path focusing to be
//! sound) and are not rebuilt per region or per stage.
//!
//! **Architecture Invariant:** depends only on `ir`, `graph` and `domain` (for [`Var`] in the
//! [`Layout`]), never on `smt` or `analysis`: it sits between `graph` and `smt` in the one-way
//! flow, so the solver formula, the engines and the counterexample search read it without a
//! cycle.
//!
//! [`Var`]: crate::domain::Var

pub mod domain_types;
pub mod layout;
pub mod liveness;

use crate::graph::ReducedGraph;
use crate::ir::{choose_interpretations, BlockId, Function, Interp, ValueId};
pub use layout::{Dim, Layout};
use std::collections::BTreeSet;

/// One function with its readings, reduced graph, live values and dimension layout.
///
/// Built only by [`FunctionContext::new`]; the fields are private and never change, so
/// every stage sees the facts of the function it was given.
pub struct FunctionContext<'f> {
    func: &'f Function,
    readings: Vec<Interp>,
    graph: ReducedGraph,
    live_in: Vec<BTreeSet<ValueId>>,
    layout: Layout,
}

impl<'f> FunctionContext<'f> {
    /// Computes the facts of `func`.
    pub fn new(func: &'f Function) -> FunctionContext<'f> {
        FunctionContext {
            func,
            readings: choose_interpretations(func),
            graph: ReducedGraph::new(func),
            live_in: liveness::live_in(func),
            layout: Layout::of(func),
        }
    }

    /// The function.
    pub fn func(&self) -> &'f Function {
        self.func
    }

    /// The reading chosen for each value, indexed by value.
    pub fn readings(&self) -> &[Interp] {
        &self.readings
    }

    /// The reading chosen for a value.
    pub fn reading(&self, v: ValueId) -> Interp {
        self.readings[v.index()]
    }

    /// The reduced multigraph.
    pub fn graph(&self) -> &ReducedGraph {
        &self.graph
    }

    /// The values live at the entry of each block, indexed by block.
    pub fn live_in(&self) -> &[BTreeSet<ValueId>] {
        &self.live_in
    }

    /// The values live at the entry of a block.
    pub fn live_at(&self, b: BlockId) -> &BTreeSet<ValueId> {
        &self.live_in[b.index()]
    }

    /// The dimensions of the function's states, without predicate slots.
    pub fn layout(&self) -> Layout {
        self.layout
    }
}
