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
use crate::ir::{BlockId, Terminator, ValueId};
use crate::smt::FocusPath;

/// Applies the transformer of a focus path: each block's instructions, then the guard and
/// the moves of the edge taken.
///
/// With `partwise_paths`, a disjunctive state is split into its parts and the
/// path applied to each alone, then joined: the lowering decides from a state's bounds
/// which side of a disequality holds, whether an addition wraps, how to change a reading,
/// and on the hull of the parts (a phase where `x <= 49` and one where `x >= 50`) those
/// decisions fall back to "anything". Each part being a subset of the state, the join of
/// their images is a sound image of the state.
pub fn apply_path<D: NumericDomain>(lowering: &Lowering<'_>, path: &FocusPath, state: &mut D) {
    apply_path_with(lowering, path, state, Selects::Split);
}

/// What [`apply_path_whole`] does at a select whose condition a later step reads again.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Selects {
    /// Splits the state on the condition: for the image of a state, whose bounds decide
    /// many conditions (a decided split leaves one part).
    Split,
    /// Joins the two images: for a relation, which starts from every state, where only the
    /// path's own guards decide a condition, so that each split doubles the parts and the
    /// hulls each part computes grow (a loop's relation over two arrays took seconds in 8
    /// parts, milliseconds in one).
    Join,
}

/// [`apply_path`], with `selects` saying whether a select splits the state.
fn apply_path_with<D: NumericDomain>(
    lowering: &Lowering<'_>,
    path: &FocusPath,
    state: &mut D,
    selects: Selects,
) {
    if lowering.precision().partwise_paths {
        if let Some(parts) = state.split_parts() {
            let mut image: Option<D> = None;
            for mut part in parts {
                apply_path_whole(lowering, path, &mut part, selects);
                image = Some(match image {
                    None => part,
                    Some(acc) => acc.join(&part),
                });
            }
            if let Some(image) = image {
                *state = image;
            }
            return;
        }
    }
    apply_path_whole(lowering, path, state, selects);
}

/// [`apply_path`] on the state as one. Each value is forgotten once no later step of the
/// path reads it (`dying.rs`): the image is the same, the states on the way smaller.
///
/// A select whose condition a later step reads again splits the state in two, one part
/// per truth of the condition, instead of joining the two images: the later selects and
/// guards on the same condition are then decided in each part, and the parts are joined
/// once every condition they were split on is dead (or at the path's end). A domain
/// that keeps a state per valuation of its booleans does this by itself. A relation
/// ([`path_relation`]) does not split ([`Selects::Join`]).
fn apply_path_whole<D: NumericDomain>(
    lowering: &Lowering<'_>,
    path: &FocusPath,
    state: &mut D,
    selects: Selects,
) {
    let dying = lowering.dying();
    let split_selects = selects == Selects::Split && !D::partitions_on_booleans();
    // A relation starts from every state: a boolean the path no longer reads decides
    // nothing later, and a domain that keeps a state per valuation of its booleans would
    // carry every combination of the path's comparisons to its end.
    let forget = |gone: &super::dying::Forget, p: &mut D| match selects {
        Selects::Split => gone.apply(p),
        Selects::Join => gone.apply_all(p),
    };
    let mut parts: Vec<D> = vec![std::mem::replace(state, D::bottom(lowering.space()))];
    let mut open: Vec<ValueId> = Vec::new();
    let mut stop = StopCheck::default();
    for (b, idx) in &path.edges {
        for (i, inst) in lowering.func().block(*b).insts.iter().enumerate() {
            parts.retain(|p| !p.is_bottom());
            if parts.is_empty() {
                return;
            }
            if stop.reached() {
                *state = D::top(lowering.space());
                return;
            }
            let gone = dying.after_inst(lowering, *b, i);
            let cond = match inst {
                crate::ir::Inst::Assign {
                    expr:
                        crate::ir::Expr::Select {
                            cond: crate::ir::Operand::Value(c),
                            ..
                        },
                    ..
                } if split_selects && !gone.values.contains(c) => Some(*c),
                _ => None,
            };
            match cond {
                Some(c) if parts.len() * 2 <= MAX_SELECT_PARTS => {
                    let cond = crate::ir::Operand::Value(c);
                    parts = parts
                        .into_iter()
                        .flat_map(|p| {
                            let mut on_true = p.clone();
                            lowering.apply_guard(&mut on_true, &cond, true);
                            let mut on_false = p;
                            lowering.apply_guard(&mut on_false, &cond, false);
                            [on_true, on_false]
                        })
                        .filter(|p| !p.is_bottom())
                        .collect();
                    if !open.contains(&c) {
                        open.push(c);
                    }
                }
                _ => {}
            }
            for p in &mut parts {
                lowering.apply_inst(p, inst);
                forget(gone, p);
            }
            if !open.is_empty() {
                open.retain(|c| !gone.values.contains(c));
                if open.is_empty() {
                    parts = vec![join_all(parts, lowering)];
                }
            }
        }
        for p in &mut parts {
            apply_exit(lowering, *b, *idx, p);
            forget(dying.after_edge(lowering, *b, *idx), p);
        }
        if !open.is_empty() {
            let gone = dying.after_edge(lowering, *b, *idx);
            open.retain(|c| !gone.values.contains(c));
            if open.is_empty() {
                parts = vec![join_all(parts, lowering)];
            }
        }
    }
    *state = join_all(parts, lowering);
}

/// Reads the stage's stop ([`crate::domain::stop`]) every [`StopCheck::STRIDE`] steps, so
/// that a path or block of thousands of instructions (an unrolled cipher round) ends where
/// its stage's share does, not its stage past it. Its image is then the universe: sound,
/// and the engine stops at its deadline next.
#[derive(Default)]
pub(crate) struct StopCheck {
    steps: u32,
}

impl StopCheck {
    /// Steps between two readings of the clock.
    const STRIDE: u32 = 256;

    /// Counts one step; whether the stop has passed (read every `STRIDE` steps).
    pub(crate) fn reached(&mut self) -> bool {
        self.steps += 1;
        self.steps % Self::STRIDE == 0 && crate::domain::stop::reached()
    }
}

/// Parts a path's state is split into by selects, at most.
const MAX_SELECT_PARTS: usize = 8;

/// The join of `parts` (bottom when there are none).
fn join_all<D: NumericDomain>(parts: Vec<D>, lowering: &Lowering<'_>) -> D {
    let mut it = parts.into_iter().filter(|p| !p.is_bottom());
    match it.next() {
        None => D::bottom(lowering.space()),
        Some(first) => it.fold(first, |acc, p| acc.join(&p)),
    }
}

/// Applies the instructions of a block.
pub fn apply_block<D: NumericDomain>(lowering: &Lowering<'_>, b: BlockId, state: &mut D) {
    for inst in &lowering.func().block(b).insts {
        lowering.apply_inst(state, inst);
    }
}

/// Applies the guard and the moves of the `idx`-th edge out of a block (its terminator's
/// successors in order; a switch's default comes after its cases).
pub fn apply_exit<D: NumericDomain>(
    lowering: &Lowering<'_>,
    b: BlockId,
    idx: usize,
    state: &mut D,
) {
    match &lowering.func().block(b).term {
        Terminator::Jump(e) => lowering.apply_moves(state, e),
        Terminator::Branch {
            cond,
            then_edge,
            else_edge,
        } => {
            let (edge, truth) = if idx == 0 {
                (then_edge, true)
            } else {
                (else_edge, false)
            };
            lowering.apply_guard(state, cond, truth);
            lowering.apply_moves(state, edge);
        }
        Terminator::Switch { on, cases, default } => {
            if let Some((c, edge)) = cases.get(idx) {
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
    // From every start a split condition is rarely decided: splitting would multiply parts.
    apply_path_with(lowering, path, &mut rel, Selects::Join);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::FunctionContext;
    use crate::domain::{Interval, Polyhedron};
    use crate::ir::{
        ArithFlags, BinOp, Block, BlockId, CmpPred, Const, Edge, Expr, Function, Inst, Operand, Ty,
        ValueInfo,
    };
    use num_rational::BigRational;

    fn block(name: &str, insts: Vec<Inst>, term: Terminator) -> Block {
        Block {
            name: name.into(),
            locs: vec![None; insts.len()],
            insts,
            term,
            term_loc: None,
        }
    }

    fn value(name: &str, ty: Ty) -> ValueInfo {
        ValueInfo {
            ty,
            name: name.into(),
            source_name: Some(name.into()),
        }
    }

    /// `for (i = 0; i < 10; i++) {}`: bb1 is the loop head, bb2 the body.
    fn counting_loop() -> Function {
        let (i, c, next) = (ValueId(0), ValueId(1), ValueId(2));
        let i32t = Ty::int(32);
        let edge = |target: u32, moves: Vec<(ValueId, Operand)>| Edge {
            target: BlockId(target),
            moves,
        };
        Function {
            name: "count".into(),
            params: vec![],
            values: vec![value("i", i32t), value("c", Ty::BOOL), value("next", i32t)],
            blocks: vec![
                block(
                    "entry",
                    vec![],
                    Terminator::Jump(edge(1, vec![(i, Operand::Const(Const::new(i32t, 0)))])),
                ),
                block(
                    "head",
                    vec![Inst::Assign {
                        dest: c,
                        expr: Expr::Cmp {
                            pred: CmpPred::Slt,
                            lhs: Operand::Value(i),
                            rhs: Operand::Const(Const::new(i32t, 10)),
                        },
                    }],
                    Terminator::Branch {
                        cond: Operand::Value(c),
                        then_edge: edge(2, vec![]),
                        else_edge: edge(3, vec![]),
                    },
                ),
                block(
                    "body",
                    vec![Inst::Assign {
                        dest: next,
                        expr: Expr::Binary {
                            op: BinOp::Add,
                            lhs: Operand::Value(i),
                            rhs: Operand::Const(Const::new(i32t, 1)),
                            flags: ArithFlags {
                                nsw: true,
                                ..ArithFlags::default()
                            },
                        },
                    }],
                    Terminator::Jump(edge(1, vec![(i, Operand::Value(next))])),
                ),
                block("exit", vec![], Terminator::Return),
            ],
            entry: BlockId(0),
            loc: None,
            bases: vec![],
        }
    }

    fn point(n: i64) -> Interval {
        let n = BigRational::from_integer(n.into());
        Interval {
            lo: Some(n.clone()),
            hi: Some(n),
        }
    }

    #[test]
    fn the_relation_of_a_loop_body_moves_the_value_and_keeps_the_start_in_the_copy() {
        let func = counting_loop();
        let ctx = FunctionContext::new(&func, &crate::params::Params::DEFAULT);
        let lowering = Lowering::new(&ctx);
        let layout = lowering.layout();
        let head = ctx.graph().cut_of_block(BlockId(1)).expect("a loop head");
        let path = FocusPath {
            source: head,
            target: head,
            edges: vec![(BlockId(1), 0), (BlockId(2), 0)],
        };
        let i = ValueId(0);
        let rel: Polyhedron = path_relation(&lowering, &path, &[i]);
        let moved = LinExpr::var(layout.value_var(i)).minus(&LinExpr::var(layout.pre_var(i)));
        assert_eq!(rel.bound(&moved), point(1));

        // The start states from which one iteration ends at `i >= 10`: exactly `i = 9`.
        let mut ends_high = rel;
        ends_high.meet_cons(&[LinCons::ge(
            &LinExpr::var(layout.value_var(i)),
            &LinExpr::constant(10),
        )]);
        let pre = on_copies(&lowering, ends_high, &[i]);
        assert_eq!(pre.bound(&LinExpr::var(layout.value_var(i))), point(9));
        for scratch in layout.scratch_vars() {
            assert_eq!(pre.bound(&LinExpr::var(scratch)), Interval::top());
        }
    }
}
