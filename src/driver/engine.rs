//! The engines as the pipeline sees them: one run of the chosen engine over a domain, and
//! what a person reads of its result (the invariants at loop heads, over source names).

use super::Engine;
use crate::analysis::focus::{CutFacts, SolverSpent};
use crate::analysis::lower::Lowering;
use crate::analysis::refine::SlotAssignment;
use crate::analysis::{classic, Deadline, Dim, Invariants, Outcome};
use crate::check::LoopInvariant;
use crate::domain::readable::readable_invariant;
use crate::domain::NumericDomain;
use crate::graph::CutKind;

/// One complete or stopped run of an engine, in the terms the driver needs.
pub(super) struct Run<D> {
    pub invariants: Invariants<D>,
    pub outcome: Outcome,
    /// Per cut point, the invariant as a disjunction over values (`None`: unreachable).
    pub at_cut_points: Vec<Option<Vec<Vec<crate::domain::LinCons>>>>,
    /// What path focusing asked of the solver (nothing for the classic engine).
    pub spent: SolverSpent,
}

pub(super) fn run_engine<D: NumericDomain>(
    lowering: &Lowering<'_>,
    engine: Engine,
    preds: &SlotAssignment,
    facts: &CutFacts,
    deadline: &Deadline,
) -> Run<D> {
    match engine {
        Engine::Focus => {
            use crate::analysis::focus::{analyze_with_facts, BlockLevel};
            let r = analyze_with_facts(lowering, preds, facts, BlockLevel::CutPoints, deadline);
            Run {
                invariants: r.invariants,
                outcome: r.outcome,
                at_cut_points: r.at_cut_points,
                spent: r.spent,
            }
        }
        // The classic engine does not take facts: it is the baseline, and the interval stage
        // that gives them is itself a classic run.
        Engine::Classic => {
            let (invariants, outcome): (Invariants<D>, Outcome) =
                classic::analyze(lowering, deadline);
            let ctx = lowering.context();
            let at_cut_points = ctx
                .graph()
                .cut_points
                .iter()
                .map(|cp| {
                    invariants.at(cp.block).map(|d| {
                        // Only the values live at the cut point describe its state; the
                        // others are stale copies from earlier iterations.
                        let live = ctx.live_at(cp.block);
                        let dead: Vec<crate::domain::Var> = lowering
                            .layout()
                            .dims()
                            .filter(|(_, dim)| !matches!(dim, Dim::Value(v) if live.contains(v)))
                            .map(|(var, _)| var)
                            .collect();
                        let mut d = d.clone();
                        d.forget(&dead);
                        d.to_disjunction()
                    })
                })
                .collect();
            Run {
                invariants,
                outcome,
                at_cut_points,
                spent: SolverSpent::default(),
            }
        }
    }
}

/// The invariants at loop heads of a complete run, over source variables.
pub(super) fn loop_invariants_of<D: NumericDomain>(
    lowering: &Lowering<'_>,
    run: &Run<D>,
) -> Vec<LoopInvariant> {
    let func = lowering.func();
    let graph = lowering.context().graph();
    let ctx = lowering.context();
    let mut loop_invariants = Vec::new();
    if run.outcome != Outcome::Complete {
        return loop_invariants;
    }
    // The machine range of each value's reading, 0..1 for a boolean dimension (predicate
    // slots); other dimensions are unbounded.
    let space = lowering.space();
    let mut ranges = vec![crate::domain::Interval::top(); space.dim()];
    for (var, dim) in lowering.layout().dims() {
        ranges[var.index()] = match dim {
            Dim::Value(v) => {
                let (lo, hi) = lowering.range(v);
                crate::domain::Interval::ints(lo, hi)
            }
            Dim::Slot(_) => crate::domain::Interval::ints(0, 1),
            Dim::Pre(_) | Dim::Elapsed => crate::domain::Interval::top(),
        };
    }
    for id in graph.ids() {
        let cp = graph.cut_point(id);
        if cp.kind != CutKind::LoopHead {
            continue;
        }
        // Printed for people (`domain::readable`): equivalent on the machine ranges of the
        // values, shorter; what was computed and certified is unchanged.
        let text = match run.at_cut_points.get(id.index()) {
            Some(None) | None if run.invariants.at(cp.block).is_none() => "false".to_string(),
            // Each disjunct on its own (predicates): forgetting the predicate
            // slots would print their convex hull.
            Some(Some(disjuncts)) if disjuncts.len() > 1 => {
                let parts: Vec<Vec<crate::domain::LinCons>> = disjuncts
                    .iter()
                    .flat_map(|d| {
                        let mut part = D::top(lowering.space());
                        part.meet_cons(d);
                        project_to_source(lowering, ctx.live_at(cp.block), &part).to_disjunction()
                    })
                    .collect();
                readable_invariant(&parts, lowering.space(), &ranges)
            }
            _ => match run.invariants.at(cp.block) {
                None => "false".to_string(),
                Some(d) => readable_invariant(
                    &project_to_source(lowering, ctx.live_at(cp.block), d).to_disjunction(),
                    lowering.space(),
                    &ranges,
                ),
            },
        };
        let block = func.block(cp.block);
        let loc = block
            .locs
            .iter()
            .flatten()
            .next()
            .cloned()
            .or_else(|| block.term_loc.clone());
        loop_invariants.push(LoopInvariant {
            function: func.name.clone(),
            block: block.name.clone(),
            loc,
            text,
        });
    }
    loop_invariants
}

/// Keeps only the dimensions a person can read at a loop head: the values with a source
/// name that are live there (the phi nodes of the head and the named values defined
/// before it that the loop uses).
fn project_to_source<D: NumericDomain>(
    lowering: &Lowering<'_>,
    live: &std::collections::BTreeSet<crate::ir::ValueId>,
    d: &D,
) -> D {
    let func = lowering.func();
    let readable =
        |v: &crate::ir::ValueId| live.contains(v) && func.value(*v).source_name.is_some();
    let forget: Vec<_> = lowering
        .layout()
        .dims()
        .filter(|(_, dim)| !matches!(dim, Dim::Value(v) if readable(v)))
        .map(|(var, _)| var)
        .collect();
    let mut res = d.clone();
    res.forget(&forget);
    res
}
