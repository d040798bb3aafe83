//! The facts about one function that every stage needs, computed once.
//!
//! The engines ([`crate::analysis::classic`], [`crate::analysis::focus`]), the solver formulas
//! ([`crate::smt::RegionFormula`]), certification ([`crate::analysis::certify`]), refinement
//! ([`crate::analysis::refine`]) and the counterexample search all read the same readings, reduced
//! graph, liveness and [`Layout`]; building them once means they cannot disagree (the
//! readings of the solver and of the transformers must be the same for path focusing to be
//! sound) and are not rebuilt per region or per stage. It also carries the run's
//! [`Params`], so that every stage reads the one configured copy of each tunable.
//!
//! **Architecture Invariant:** depends only on `ir`, `graph`, `domain` (for [`Var`] in the
//! [`Layout`]) and the leaf `params`, never on `smt` or `analysis`: it sits between `graph`
//! and `smt` in the one-way flow, so the solver formula, the engines and the counterexample
//! search read it without a cycle.
//!
//! [`Var`]: crate::domain::Var

pub mod domain_types;
pub mod layout;
pub mod liveness;

use crate::domain::VarSet;
use crate::graph::ReducedGraph;
use crate::ir::{choose_interpretations, BlockId, Function, Interp, ValueId};
use crate::params::Params;
pub use layout::{Dim, Layout};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// One function with its readings, reduced graph, live values, dimension layout and the
/// parameters its stages run with.
///
/// Built only by [`FunctionContext::new`]; the fields are private and never change, so
/// every stage sees the facts of the function it was given.
pub struct FunctionContext<'f> {
    func: &'f Function,
    readings: Vec<Interp>,
    graph: ReducedGraph,
    live_in: liveness::LiveSets,
    layout: Layout,
    params: Params,
    injected_unknowns: Arc<InjectedUnknowns>,
}

impl<'f> FunctionContext<'f> {
    /// Computes the facts of `func`, whose stages run with `params`.
    pub fn new(func: &'f Function, params: &Params) -> FunctionContext<'f> {
        FunctionContext {
            func,
            readings: choose_interpretations(func),
            graph: ReducedGraph::new(func),
            live_in: liveness::live_in(func),
            layout: Layout::of(func),
            params: *params,
            injected_unknowns: Arc::new(InjectedUnknowns::every(
                params.faults.solver_unknown_every,
            )),
        }
    }

    /// The parameters of the function's stages.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The count of the function's solver checks that decides which answer `unknown` on
    /// purpose ([`crate::params::FaultParams`]), shared by every formula of the function.
    pub fn injected_unknowns(&self) -> Arc<InjectedUnknowns> {
        Arc::clone(&self.injected_unknowns)
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

    /// The values live at the entry of a block.
    pub fn live_at(&self, b: BlockId) -> &BTreeSet<ValueId> {
        self.live_in.at(b)
    }

    /// Whether `v` is live at the entry of `b` (without building the block's set).
    pub fn is_live_at(&self, b: BlockId, v: ValueId) -> bool {
        self.live_in.contains(b, v)
    }

    /// The value dimensions of `layout` whose values are not live at the entry of `b`:
    /// what a state flowing into `b` can forget without losing a relation between the
    /// values that are.
    pub fn dead_at(&self, b: BlockId, layout: &Layout) -> VarSet {
        layout.values_outside(self.live_in.row(b))
    }

    /// The values live at the entry of some block.
    pub fn live_anywhere(&self) -> BTreeSet<ValueId> {
        self.live_in.anywhere()
    }

    /// The dimensions of the function's states, without predicate slots.
    pub fn layout(&self) -> Layout {
        self.layout
    }
}

/// Solver `unknown`s injected on purpose ([`crate::params::FaultParams::solver_unknown_every`]):
/// a count of one function's solver checks, of which every `every`-th answers `unknown`
/// without asking the solver.
#[derive(Debug)]
pub struct InjectedUnknowns {
    every: u64,
    checks: AtomicU64,
}

impl InjectedUnknowns {
    /// Every `every`-th check answers `unknown` (0: none).
    pub fn every(every: u64) -> InjectedUnknowns {
        InjectedUnknowns {
            every,
            checks: AtomicU64::new(0),
        }
    }

    /// Counts one check; whether it must answer `unknown`.
    pub fn next_is_unknown(&self) -> bool {
        if self.every == 0 {
            return false;
        }
        (self.checks.fetch_add(1, Ordering::Relaxed) + 1) % self.every == 0
    }
}
