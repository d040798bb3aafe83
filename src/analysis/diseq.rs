//! Disequality splitting for abstract acceleration.
//!
//! Acceleration (`focus.rs`) sweeps a self-loop's start states along its translation under
//! the path's guard `G`, computed once from an arbitrary start. A disequality `a != b` on
//! the path gives no convex constraint there, so `G` does not stop the sweep: from `c = 0`
//! the loop `if (c != 40) c++` was swept to every `c >= 0`, and no later narrowing came
//! back below 40 (code2inv 36, 46, 51).
//!
//! Here each disequality of the path is read on the iteration's start: `a - b` at the
//! guard equals `f(x₀)`, an affine function with integer coefficients of the values `x₀`
//! live where the iteration starts. Let `δ = f(x₀ + d) - f(x₀)` be what `f` moves per
//! iteration. When `|δ| ≤ 1`, the iterations of one execution all start on the side of 0
//! the first one started on: `f` takes every integer between two of its values, so it
//! cannot pass from `f ≤ -1` to `f ≥ 1` without an iteration starting at `f = 0`, where
//! the path's guard fails. So `τ*` is covered by the sweeps of the two sides, each under
//! the convex guard `G ⊓ f ≤ -1` or `G ⊓ f ≥ 1`, joined: [`sides`] gives those conjunctions
//! (every combination of the sides of at most `PrecisionParams::max_disequalities`
//! disequalities).
//! With resets (`x' = c`), the sweep starts after one iteration, when the reset values are
//! fixed: they move by 0 from there, which is what `δ` counts for them.

use super::lower::Lowering;
use super::transformer;
use crate::domain::{ConsKind, Int, LinCons, LinExpr, NumericDomain, Var};
use crate::ir::{BinOp, CmpPred, Expr, Operand, Terminator, ValueId};
use crate::smt::FocusPath;
use num_traits::{One, Signed, Zero};

/// How deep branch conditions are decomposed through `&&`, `||` and negations.
const CONDITION_DEPTH: usize = 4;

/// The conjunctions over the values (each one side of every disequality split on) under
/// which to sweep `path`, a self-loop whose live values `live` move by `deltas` (value
/// dimension, translation) or are reset; empty when the path has no disequality to split
/// on (the caller then sweeps once under the guard alone).
pub fn sides<D: NumericDomain>(
    lowering: &Lowering<'_>,
    path: &FocusPath,
    live: &[ValueId],
    deltas: &[(Var, Int)],
) -> Vec<Vec<LinCons>> {
    let mut splits: Vec<LinExpr> = Vec::new();
    let max_splits = lowering.precision().max_disequalities;
    for f in on_start::<D>(lowering, path, live) {
        if splits.len() >= max_splits {
            break;
        }
        if !moves_by_at_most_one(lowering, &f, live, deltas) {
            continue;
        }
        let f = renamed_to_values(lowering, &f, live);
        if !splits.iter().any(|g| *g == f || *g == f.negated()) {
            splits.push(f);
        }
    }
    let mut res: Vec<Vec<LinCons>> = vec![Vec::new()];
    for f in &splits {
        let zero = LinExpr::constant(0);
        res = res
            .into_iter()
            .flat_map(|side| {
                let mut below = side.clone();
                below.push(LinCons::lt_int(f, &zero));
                let mut above = side;
                above.push(LinCons::lt_int(&zero, f));
                [below, above]
            })
            .collect();
    }
    if splits.is_empty() {
        Vec::new()
    } else {
        res
    }
}

/// The disequalities `a != b` the path takes, each as `f` over the `pre` copies of `live`
/// with `a - b = f(pre)` where the guard is evaluated (integer coefficients).
fn on_start<D: NumericDomain>(
    lowering: &Lowering<'_>,
    path: &FocusPath,
    live: &[ValueId],
) -> Vec<LinExpr> {
    let mut state: D = transformer::path_relation(
        lowering,
        &FocusPath {
            source: path.source,
            target: path.target,
            edges: Vec::new(),
        },
        live,
    );
    let mut res = Vec::new();
    // Each value is forgotten after its last read, as along a path's image: the states
    // stay small (a block of segment bounds computes dozens of values), and the guard
    // operands the disequalities are read on are needed until the block's exit.
    let dying = lowering.dying();
    for (b, idx) in &path.edges {
        if state.is_bottom() {
            break;
        }
        for (i, inst) in lowering.func().block(*b).insts.iter().enumerate() {
            lowering.apply_inst(&mut state, inst);
            dying.after_inst(lowering, *b, i).apply_all(&mut state);
        }
        for (lhs, rhs) in taken_disequalities(lowering, *b, *idx) {
            let Some(e) = lowering.difference(&state, &lhs, &rhs) else {
                continue;
            };
            if let Some(f) = as_function_of_start(lowering, &state, &e) {
                res.push(f);
            }
        }
        transformer::apply_exit(lowering, *b, *idx, &mut state);
        dying.after_edge(lowering, *b, *idx).apply_all(&mut state);
    }
    res
}

/// `e` (over the state's dimensions) as an affine function of the `pre` copies with integer
/// coefficients, when the state determines it so.
fn as_function_of_start<D: NumericDomain>(
    lowering: &Lowering<'_>,
    state: &D,
    e: &LinExpr,
) -> Option<LinExpr> {
    let layout = lowering.layout();
    let t = layout.elapsed_var();
    let mut p = state.clone();
    p.assign(t, e);
    let mut others = layout.value_vars();
    others.extend(layout.slot_vars());
    p.forget(&others);
    let pre: Vec<Var> = layout
        .scratch_vars()
        .into_iter()
        .filter(|v| *v != t)
        .collect();
    for c in p.to_cons() {
        if c.kind != ConsKind::Eq {
            continue;
        }
        let a = c.expr.coeff(t);
        if a.is_zero() || !c.expr.vars().all(|v| v == t || pre.contains(&v)) {
            continue;
        }
        // a·t + rest = 0, so t = -rest / a: integral only when a divides every coefficient.
        let rest = c.expr.minus(&LinExpr::term(a.clone(), t));
        let divides = |k: &Int| (k % &a).is_zero();
        if !divides(rest.constant_part()) || !rest.terms().all(|(_, k)| divides(k)) {
            continue;
        }
        let mut f = LinExpr::constant(-(rest.constant_part() / &a));
        for (v, k) in rest.terms() {
            f = f.plus(&LinExpr::term(-(k / &a), v));
        }
        return Some(f);
    }
    None
}

/// Whether `f` (over the `pre` copies) moves by -1, 0 or 1 per iteration: each copy's
/// value moves by its translation in `deltas`, or by 0 (a reset, fixed after the first
/// iteration).
fn moves_by_at_most_one(
    lowering: &Lowering<'_>,
    f: &LinExpr,
    live: &[ValueId],
    deltas: &[(Var, Int)],
) -> bool {
    let layout = lowering.layout();
    let mut step = Int::zero();
    for (var, k) in f.terms() {
        let Some(v) = live.iter().find(|v| layout.pre_var(**v) == var) else {
            return false;
        };
        let value = layout.value_var(*v);
        if let Some((_, d)) = deltas.iter().find(|(x, _)| *x == value) {
            step += k * d;
        }
    }
    step.abs() <= Int::one()
}

/// `f` over the `pre` copies, with each copy replaced by its value.
fn renamed_to_values(lowering: &Lowering<'_>, f: &LinExpr, live: &[ValueId]) -> LinExpr {
    let layout = lowering.layout();
    let mut res = LinExpr::constant(f.constant_part().clone());
    for (var, k) in f.terms() {
        let v = live
            .iter()
            .find(|v| layout.pre_var(**v) == var)
            .expect("only copies of live values");
        res = res.plus(&LinExpr::term(k.clone(), layout.value_var(*v)));
    }
    res
}

/// The disequalities `(a, b)` that taking the `idx`-th edge out of block `b` asserts.
fn taken_disequalities(
    lowering: &Lowering<'_>,
    b: crate::ir::BlockId,
    idx: usize,
) -> Vec<(Operand, Operand)> {
    let mut res = Vec::new();
    match &lowering.func().block(b).term {
        Terminator::Branch { cond, .. } => {
            condition_disequalities(lowering, cond, idx == 0, CONDITION_DEPTH, &mut res)
        }
        Terminator::Switch { on, cases, .. } if idx >= cases.len() => {
            for (c, _) in cases {
                res.push((*on, Operand::Const(*c)));
            }
        }
        _ => {}
    }
    res
}

/// The disequalities that `cond` evaluating to `truth` asserts.
fn condition_disequalities(
    lowering: &Lowering<'_>,
    cond: &Operand,
    truth: bool,
    depth: usize,
    res: &mut Vec<(Operand, Operand)>,
) {
    let Operand::Value(v) = cond else { return };
    let Some(def) = lowering.def(*v) else { return };
    if depth == 0 {
        return;
    }
    match def {
        Expr::Cmp {
            pred: CmpPred::Ne,
            lhs,
            rhs,
        } if truth => res.push((*lhs, *rhs)),
        Expr::Cmp {
            pred: CmpPred::Eq,
            lhs,
            rhs,
        } if !truth => res.push((*lhs, *rhs)),
        Expr::Binary {
            op: BinOp::And,
            lhs,
            rhs,
            ..
        } if truth && lowering.func().operand_ty(cond).is_bool() => {
            condition_disequalities(lowering, lhs, true, depth - 1, res);
            condition_disequalities(lowering, rhs, true, depth - 1, res);
        }
        Expr::Binary {
            op: BinOp::Or,
            lhs,
            rhs,
            ..
        } if !truth && lowering.func().operand_ty(cond).is_bool() => {
            condition_disequalities(lowering, lhs, false, depth - 1, res);
            condition_disequalities(lowering, rhs, false, depth - 1, res);
        }
        Expr::Binary {
            op: BinOp::Xor,
            lhs,
            rhs,
            ..
        } => match (lhs, rhs) {
            (x, Operand::Const(c)) | (Operand::Const(c), x) if c.ty.is_bool() => {
                condition_disequalities(lowering, x, truth ^ (c.bits == 1), depth - 1, res)
            }
            _ => {}
        },
        Expr::Use(x) => condition_disequalities(lowering, x, truth, depth - 1, res),
        _ => {}
    }
}
