//! The transformer of a focus path, and its relational form.
//!
//! [`apply_path`] is the image of a state along one path. Acceleration ([`super::focus`])
//! and weakest preconditions ([`super::refine`]) both need the path as a *relation*
//! between the values where it starts and where it ends: [`path_relation`] keeps a `pre`
//! copy of each live value at the start (`pre_x = x`) and applies the path to the values,
//! so that the result relates the copies to the values after the path; [`on_copies`]
//! projects such a relation back onto the start, renamed to the values.

use super::lower::Lowering;
use crate::domain::{LinCons, LinExpr, NumericDomain, Var};
use crate::ir::{Terminator, ValueId};
use crate::smt::FocusPath;

/// Applies the transformer of a focus path: each block's instructions, then the guard and
/// the moves of the edge taken.
pub fn apply_path<D: NumericDomain>(lowering: &Lowering<'_>, path: &FocusPath, state: &mut D) {
    let func = lowering.func();
    for (b, idx) in &path.edges {
        if state.is_bottom() {
            return;
        }
        let block = func.block(*b);
        for inst in &block.insts {
            lowering.apply_inst(state, inst);
        }
        match &block.term {
            Terminator::Jump(e) => lowering.apply_moves(state, e),
            Terminator::Branch {
                cond,
                then_edge,
                else_edge,
            } => {
                let (edge, truth) = if *idx == 0 {
                    (then_edge, true)
                } else {
                    (else_edge, false)
                };
                lowering.apply_guard(state, cond, truth);
                lowering.apply_moves(state, edge);
            }
            Terminator::Switch { on, cases, default } => {
                if let Some((c, edge)) = cases.get(*idx) {
                    lowering.apply_case(state, on, *c);
                    lowering.apply_moves(state, edge);
                } else {
                    for (c, _) in cases {
                        lowering.apply_not_case(state, on, *c);
                    }
                    lowering.apply_moves(state, default);
                }
            }
            Terminator::Return | Terminator::Stop | Terminator::Error(_) => {}
        }
    }
}

/// The path as a relation from any start state: `pre_x = x` for each value `x` of `live`
/// (the values live where the path starts), then the path applied. The `pre` copies keep
/// the start while the values move.
pub fn path_relation<D: NumericDomain>(
    lowering: &Lowering<'_>,
    path: &FocusPath,
    live: &[ValueId],
) -> D {
    let layout = lowering.layout();
    let mut rel = D::top(lowering.space());
    let copies: Vec<LinCons> = live
        .iter()
        .map(|v| {
            LinCons::eq(
                &LinExpr::var(layout.pre_var(*v)),
                &LinExpr::var(layout.value_var(*v)),
            )
        })
        .collect();
    rel.meet_cons(&copies);
    apply_path(lowering, path, &mut rel);
    rel
}

/// The start states of a relation built by [`path_relation`] with the same `live`: its
/// projection on the `pre` copies, renamed to the values (every other dimension of a value
/// is unconstrained, the scratch dimensions are forgotten).
pub fn on_copies<D: NumericDomain>(lowering: &Lowering<'_>, mut rel: D, live: &[ValueId]) -> D {
    let layout = lowering.layout();
    rel.forget(&layout.value_vars());
    let renames: Vec<(Var, LinExpr)> = live
        .iter()
        .map(|v| (layout.value_var(*v), LinExpr::var(layout.pre_var(*v))))
        .collect();
    rel.assign_parallel(&renames);
    rel.forget(&layout.scratch_vars());
    rel
}
