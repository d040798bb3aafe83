//! Transformers of lifted instructions, written once for every numeric domain.
//!
//! Each SSA value is one dimension (its [`Dim::Value`] in the function's [`Layout`]) holding
//! the value's *reading* (see [`crate::ir::Interp`]). The math, for a `w`-bit destination with reading
//! range `[L, L + 2^w)`:
//! - an operation whose exact result is congruent modulo `2^w` to a linear expression `e`
//!   over readings (add, sub, mul by a constant, shl by a constant, trunc, copies) is
//!   *wrapped*: when the bounds of `e` fit in one window `[L + k·2^w, L + (k+1)·2^w)`, the
//!   destination is `e - k·2^w` exactly; otherwise it is any value of its range;
//! - `nsw`/`nuw` assert that the signed/unsigned result fits: the state is met with that
//!   range first (the other executions are undefined behaviour and excluded);
//! - division by constants, remainder by constants and by divisors of a known sign, shifts
//!   right and masks are bounded by linear constraints; everything else non-linear is any
//!   value of its range;
//! - a guard `c` (a branch condition, an assumption) is met with the constraints of `c`'s
//!   definition when it is a comparison or a boolean combination of comparisons, plus `c = 1`
//!   on the boolean's own dimension.
//!
//! Every rule over-approximates the bit-precise semantics; none is exact for all inputs.

use super::dying::Dying;
use crate::context::layout::{Dim, Layout};
use crate::context::FunctionContext;
use crate::domain::{
    ConsKind, DimKind, Entailment, Int, Interval, LinCons, LinExpr, NumericDomain, Space, Var,
};
use crate::ir::{
    ArithFlags, BinOp, CastOp, CmpPred, Const, Edge, Expr, Function, Inst, Interp, Operand, Ty,
    ValueId,
};
use crate::params::{FocusParams, Params, PrecisionParams};
use num_traits::{One, Signed, ToPrimitive, Zero};
use std::collections::BTreeMap;

/// The transformers of one function.
pub struct Lowering<'f> {
    ctx: &'f FunctionContext<'f>,
    /// The function's layout with this lowering's predicate slots.
    layout: Layout,
    space: Space,
    /// The definition of each value assigned by an expression.
    defs: Vec<Option<&'f Expr>>,
    /// What a path may forget after each step.
    dying: Dying,
}

impl<'f> Lowering<'f> {
    /// Prepares the transformers of a function.
    pub fn new(ctx: &'f FunctionContext<'f>) -> Lowering<'f> {
        Self::with_predicate_slots(ctx, 0)
    }

    /// Prepares the transformers of a function, with `slots` boolean dimensions for
    /// predicates: boolean dimensions after the acceleration ones that hold the truth of
    /// refinement predicates at cut points; a slot is reused by the predicates of
    /// different cut points (register sharing, Jain et al.).
    pub fn with_predicate_slots(ctx: &'f FunctionContext<'f>, slots: usize) -> Lowering<'f> {
        let func = ctx.func();
        let layout = ctx.layout().with_slots(slots);
        let mut defs = vec![None; func.values.len()];
        for b in &func.blocks {
            for inst in &b.insts {
                if let Inst::Assign { dest, expr } = inst {
                    defs[dest.index()] = Some(expr);
                }
            }
        }
        let value_name = |v: ValueId| match &func.value(v).source_name {
            Some(s) => s.clone(),
            None => format!("v{}", v.0),
        };
        // Booleans read as 0/1 are boolean dimensions (domains with predicates
        // track them in BDDs; the others ignore the kind). The acceleration dimensions (a
        // copy of each value, its value when a loop iteration starts, and the elapsed
        // "time" of a translation) are constrained only inside one transformer
        // (`analysis::transformer`) and forgotten before its result escapes.
        let (names, kinds): (Vec<String>, Vec<DimKind>) = layout
            .dims()
            .map(|(_, dim)| match dim {
                Dim::Value(v) => {
                    let ty = func.value(v).ty;
                    let kind = if ty.is_bool()
                        && reading_range(ty, ctx.reading(v)) == (Int::zero(), Int::one())
                    {
                        DimKind::Bool
                    } else {
                        DimKind::Int
                    };
                    (value_name(v), kind)
                }
                Dim::Pre(v) => (format!("pre_{}", value_name(v)), DimKind::Int),
                Dim::Elapsed => ("elapsed".to_string(), DimKind::Int),
                Dim::Slot(k) => (format!("pred{k}"), DimKind::Bool),
            })
            .unzip();
        Lowering {
            ctx,
            layout,
            space: Space::with_kinds(names, kinds),
            defs,
            dying: Dying::new(func.blocks.len()),
        }
    }

    /// The parameters of the function's stages (its context's).
    pub fn params(&self) -> &'f Params {
        self.ctx.params()
    }

    /// Path focusing's limits.
    pub fn focus_params(&self) -> FocusParams {
        self.params().focus
    }

    /// Which precision techniques are on.
    pub fn precision(&self) -> PrecisionParams {
        self.params().precision
    }

    /// The values a path's transformer may forget after each of its steps.
    pub fn dying(&self) -> &Dying {
        &self.dying
    }

    /// The expression a value is assigned, when it is assigned one.
    pub fn def(&self, v: ValueId) -> Option<&'f Expr> {
        self.defs[v.index()]
    }

    /// `lhs - rhs` over the readings `lhs == rhs` compares (as [`Lowering::cmp_cons`] reads
    /// an equality), so that it is zero exactly when the comparison holds; `None` when a
    /// reading cannot be expressed in this state.
    pub fn difference<D: NumericDomain>(
        &self,
        d: &D,
        lhs: &Operand,
        rhs: &Operand,
    ) -> Option<LinExpr> {
        let want = equality_reading(self, lhs, rhs);
        Some(
            self.reading(d, lhs, want)?
                .minus(&self.reading(d, rhs, want)?),
        )
    }

    /// The function.
    pub fn func(&self) -> &'f Function {
        self.ctx.func()
    }

    /// The facts of the function.
    pub fn context(&self) -> &'f FunctionContext<'f> {
        self.ctx
    }

    /// The dimensions of the states, with this lowering's predicate slots.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// One dimension per value, named after the source variable when known.
    pub fn space(&self) -> &Space {
        &self.space
    }

    /// The reading chosen for a value.
    pub fn interp(&self, v: ValueId) -> Interp {
        self.ctx.reading(v)
    }

    /// The dimension of a value.
    fn var(&self, v: ValueId) -> Var {
        self.layout.value_var(v)
    }

    /// The range of a value's reading.
    pub fn range(&self, v: ValueId) -> (Int, Int) {
        reading_range(self.func().value(v).ty, self.interp(v))
    }

    /// The initial state of an entry: parameters anywhere in their range.
    pub fn entry_state<D: NumericDomain>(&self) -> D {
        let mut d = D::top(&self.space);
        for p in &self.func().params {
            self.havoc(&mut d, *p);
        }
        d
    }

    /// `v := any value of its type`.
    ///
    /// The machine range is kept in the state: hulls of range-bounded states grow facets
    /// through the corners of the range box, and those facets carry real disjunctive
    /// information (measured: 8 more code2inv tasks proved than with unbounded havocs).
    pub fn havoc<D: NumericDomain>(&self, d: &mut D, v: ValueId) {
        let (lo, hi) = self.range(v);
        d.assign_interval(self.var(v), &Interval::ints(lo, hi));
    }

    /// Bounds of `e` in state `d`, intersected with what the ranges of the readings allow.
    pub fn bound<D: NumericDomain>(&self, d: &D, e: &LinExpr) -> Interval {
        let from_state = d.bound(e);
        let mut lo = Some(num_rational::BigRational::from_integer(
            e.constant_part().clone(),
        ));
        let mut hi = lo.clone();
        for (var, c) in e.terms() {
            // Only a value's dimension has a range of readings.
            let Some(v) = self.layout.value(var) else {
                return from_state;
            };
            let (rl, rh) = self.range(v);
            let (a, b) = if c.is_positive() {
                (rl * c, rh * c)
            } else {
                (rh * c, rl * c)
            };
            lo = lo.map(|l| l + num_rational::BigRational::from_integer(a));
            hi = hi.map(|h| h + num_rational::BigRational::from_integer(b));
        }
        let pick_lo = match (from_state.lo, lo) {
            (Some(a), Some(b)) => Some(if a > b { a } else { b }),
            (a, b) => a.or(b),
        };
        let pick_hi = match (from_state.hi, hi) {
            (Some(a), Some(b)) => Some(if a < b { a } else { b }),
            (a, b) => a.or(b),
        };
        Interval {
            lo: pick_lo,
            hi: pick_hi,
        }
    }

    /// Applies one instruction.
    pub fn apply_inst<D: NumericDomain>(&self, d: &mut D, inst: &Inst) {
        if d.is_bottom() {
            return;
        }
        match inst {
            Inst::Havoc { dest, .. } => self.havoc(d, *dest),
            Inst::Assume { cond } => self.apply_guard(d, cond, true),
            Inst::Assign { dest, expr } => self.apply_assign(d, *dest, expr),
            Inst::Mem(_) => unreachable!("{}", crate::ir::MEMORY_IS_LOWERED),
        }
    }

    /// Applies an edge's parallel assignment (the phi nodes of its target).
    pub fn apply_moves<D: NumericDomain>(&self, d: &mut D, edge: &Edge) {
        if d.is_bottom() || edge.moves.is_empty() {
            return;
        }
        let mut assignments = Vec::new();
        let mut havocs = Vec::new();
        for (dest, src) in &edge.moves {
            match self.reading(d, src, self.interp(*dest)) {
                Some(e) => assignments.push((self.var(*dest), e)),
                None => havocs.push(*dest),
            }
        }
        d.assign_parallel(&assignments);
        for v in havocs {
            self.havoc(d, v);
        }
    }

    /// Restricts the state to the executions where `cond` evaluates to `truth`.
    pub fn apply_guard<D: NumericDomain>(&self, d: &mut D, cond: &Operand, truth: bool) {
        self.guard_rec(
            d,
            cond,
            truth,
            self.params().lower.guard_depth,
            &BTreeMap::new(),
        );
    }

    /// Like [`Lowering::apply_guard`], on a known path: `copies` maps boolean phi
    /// destinations to the operand the path's edges moved into them, so a guard on the phi
    /// also constrains what it copied (e.g. the comparisons of `a && b`).
    pub fn apply_guard_on_path<D: NumericDomain>(
        &self,
        d: &mut D,
        cond: &Operand,
        truth: bool,
        copies: &BTreeMap<ValueId, Operand>,
    ) {
        self.guard_rec(d, cond, truth, self.params().lower.guard_depth, copies);
    }

    /// Restricts the state to `on == value` (a switch case).
    pub fn apply_case<D: NumericDomain>(&self, d: &mut D, on: &Operand, value: Const) {
        let cons = self.cmp_cons(d, CmpPred::Eq, on, &Operand::Const(value));
        if let Some(cons) = cons {
            d.meet_cons(&cons);
        }
    }

    /// Restricts the state to `on != value` (the default of a switch).
    pub fn apply_not_case<D: NumericDomain>(&self, d: &mut D, on: &Operand, value: Const) {
        if let Some(cons) = self.cmp_cons(d, CmpPred::Ne, on, &Operand::Const(value)) {
            d.meet_cons(&cons);
        }
    }

    /// The constraints over readings that hold exactly when `lhs pred rhs` (or a sound
    /// weakening of them); `None` when nothing linear can be said in this state.
    pub fn cmp_cons<D: NumericDomain>(
        &self,
        d: &D,
        pred: CmpPred,
        lhs: &Operand,
        rhs: &Operand,
    ) -> Option<Vec<LinCons>> {
        let want = match pred {
            CmpPred::Eq | CmpPred::Ne => equality_reading(self, lhs, rhs),
            p if p.is_unsigned() => Interp::Unsigned,
            _ => Interp::Signed,
        };
        let a = self.reading(d, lhs, want)?;
        let b = self.reading(d, rhs, want)?;
        let cons = match pred {
            CmpPred::Eq => vec![LinCons::eq(&a, &b)],
            CmpPred::Ne => return self.not_equal(d, &a, &b),
            CmpPred::Slt | CmpPred::Ult => vec![LinCons::lt_int(&a, &b)],
            CmpPred::Sle | CmpPred::Ule => vec![LinCons::le(&a, &b)],
            CmpPred::Sgt | CmpPred::Ugt => vec![LinCons::lt_int(&b, &a)],
            CmpPred::Sge | CmpPred::Uge => vec![LinCons::ge(&a, &b)],
        };
        Some(cons)
    }

    /// `a != b` is not convex; it tightens a bound only when `a - b` touches zero at one end.
    fn not_equal<D: NumericDomain>(&self, d: &D, a: &LinExpr, b: &LinExpr) -> Option<Vec<LinCons>> {
        let diff = a.minus(b);
        let itv = self.bound(d, &diff);
        let zero = num_rational::BigRational::zero();
        if !itv.contains(&zero) {
            // Always true in this state: no constraint needed.
            return Some(vec![]);
        }
        if itv.lo.as_ref() == Some(&zero) {
            Some(vec![LinCons::lt_int(&LinExpr::constant(0), &diff)])
        } else if itv.hi.as_ref() == Some(&zero) {
            Some(vec![LinCons::lt_int(&diff, &LinExpr::constant(0))])
        } else if itv.as_point() == Some(&zero) {
            Some(vec![LinCons {
                expr: LinExpr::constant(-1),
                kind: ConsKind::Ge,
            }])
        } else {
            None
        }
    }

    fn guard_rec<D: NumericDomain>(
        &self,
        d: &mut D,
        cond: &Operand,
        truth: bool,
        depth: usize,
        copies: &BTreeMap<ValueId, Operand>,
    ) {
        if d.is_bottom() {
            return;
        }
        let v = match cond {
            Operand::Const(c) => {
                if (c.bits & 1 == 1) != truth {
                    d.meet_cons(&[infeasible()]);
                }
                return;
            }
            Operand::Undef(_) => return,
            Operand::Value(v) => *v,
        };
        d.meet_cons(&[LinCons::eq(
            &LinExpr::var(self.var(v)),
            &LinExpr::constant(truth as i32),
        )]);
        if depth == 0 || d.is_bottom() {
            return;
        }
        let Some(def) = self.defs[v.index()] else {
            if let Some(src) = copies.get(&v) {
                self.guard_rec(d, src, truth, depth - 1, copies);
            }
            return;
        };
        match def {
            Expr::Cmp { pred, lhs, rhs } => {
                // `zext(b) != 0` and `zext(b) == 0` are guards on the boolean `b`.
                if let Some((b, b_truth)) = self.extended_bool_test(*pred, lhs, rhs) {
                    self.guard_rec(d, &b, b_truth == truth, depth - 1, copies);
                }
                let pred = if truth { *pred } else { pred.negated() };
                if let Some(cons) = self.cmp_cons(d, pred, lhs, rhs) {
                    d.meet_cons(&cons);
                }
            }
            Expr::Binary {
                op: BinOp::And,
                lhs,
                rhs,
                ..
            } if truth => {
                self.guard_rec(d, lhs, true, depth - 1, copies);
                self.guard_rec(d, rhs, true, depth - 1, copies);
            }
            Expr::Binary {
                op: BinOp::Or,
                lhs,
                rhs,
                ..
            } if !truth => {
                self.guard_rec(d, lhs, false, depth - 1, copies);
                self.guard_rec(d, rhs, false, depth - 1, copies);
            }
            Expr::Binary {
                op: BinOp::Xor,
                lhs,
                rhs,
                ..
            } => match (lhs, rhs) {
                (x, Operand::Const(c)) | (Operand::Const(c), x) if c.ty.is_bool() => {
                    self.guard_rec(d, x, truth ^ (c.bits == 1), depth - 1, copies)
                }
                _ => {}
            },
            Expr::Use(x) => self.guard_rec(d, x, truth, depth - 1, copies),
            Expr::Select {
                cond: c,
                on_true,
                on_false,
            } => match (on_true, on_false, truth) {
                // c ? true : f  is  c || f.
                (Operand::Const(t), f, false) if t.ty.is_bool() && t.bits == 1 => {
                    self.guard_rec(d, c, false, depth - 1, copies);
                    self.guard_rec(d, f, false, depth - 1, copies);
                }
                // c ? t : false  is  c && t.
                (t, Operand::Const(f), true) if f.ty.is_bool() && f.bits == 0 => {
                    self.guard_rec(d, c, true, depth - 1, copies);
                    self.guard_rec(d, t, true, depth - 1, copies);
                }
                _ => {}
            },
            _ => {}
        }
    }

    /// The operands whose values a guard on `v` reads besides `v` (through the definitions
    /// [`Lowering::guard_rec`] decomposes): a superset, whatever the depth and the truth.
    pub fn guard_operands(&self, v: ValueId) -> Vec<&'f Operand> {
        if !self.func().value(v).ty.is_bool() {
            return Vec::new();
        }
        let Some(def) = self.defs[v.index()] else {
            return Vec::new();
        };
        match def {
            Expr::Cmp { lhs, rhs, .. } => {
                let mut res = vec![lhs, rhs];
                for side in [lhs, rhs] {
                    if let Operand::Value(x) = side {
                        if let Some(Expr::Cast {
                            op: CastOp::ZExt | CastOp::SExt,
                            arg,
                        }) = self.defs[x.index()]
                        {
                            res.push(arg);
                        }
                    }
                }
                res
            }
            Expr::Binary {
                op: BinOp::And | BinOp::Or | BinOp::Xor,
                lhs,
                rhs,
                ..
            } => vec![lhs, rhs],
            Expr::Use(x) => vec![x],
            Expr::Select {
                cond,
                on_true,
                on_false,
            } => vec![cond, on_true, on_false],
            _ => Vec::new(),
        }
    }

    /// For `ext(b) != 0` / `ext(b) == 0` with a boolean `b`: `b` and the truth of `b` that
    /// makes the comparison true.
    fn extended_bool_test(
        &self,
        pred: CmpPred,
        lhs: &Operand,
        rhs: &Operand,
    ) -> Option<(Operand, bool)> {
        // With the constant on the left, `0 <= ext(b)` is `ext(b) >= 0` (always true), not
        // `ext(b) <= 0`: read the comparison with its operands in the order value, constant.
        let (x, c, pred) = match (lhs, rhs) {
            (Operand::Value(x), Operand::Const(c)) => (*x, *c, pred),
            (Operand::Const(c), Operand::Value(x)) => (*x, *c, pred.swapped()),
            _ => return None,
        };
        if c.bits != 0 {
            return None;
        }
        let Some(Expr::Cast {
            op: CastOp::ZExt | CastOp::SExt,
            arg,
        }) = self.defs[x.index()]
        else {
            return None;
        };
        if !self.func().operand_ty(arg).is_bool() {
            return None;
        }
        match pred {
            CmpPred::Ne | CmpPred::Ugt => Some((*arg, true)),
            CmpPred::Eq | CmpPred::Ule => Some((*arg, false)),
            _ => None,
        }
    }

    /// The reading of an operand in the interpretation `want`, as a linear expression over
    /// the state's dimensions; `None` when it cannot be expressed (undef, or a value whose
    /// conversion between readings depends on which window it lies in).
    pub fn reading<D: NumericDomain>(&self, d: &D, op: &Operand, want: Interp) -> Option<LinExpr> {
        match op {
            Operand::Undef(_) => None,
            Operand::Const(c) => Some(LinExpr::constant(const_reading(*c, want))),
            Operand::Value(v) => {
                let x = LinExpr::var(self.var(*v));
                let have = self.interp(*v);
                if have == want {
                    return Some(x);
                }
                let ty = self.func().value(*v).ty;
                let modulus = pow2(ty.width);
                let itv = self.bound(d, &x);
                let (lo, hi) = itv.int_hull();
                match want {
                    // Signed value wanted unsigned: negative values move up by 2^w.
                    Interp::Unsigned => {
                        if lo.as_ref().map_or(false, |l| !l.is_negative()) {
                            Some(x)
                        } else if hi.as_ref().map_or(false, |h| h.is_negative()) {
                            Some(x.plus(&LinExpr::constant(modulus)))
                        } else {
                            None
                        }
                    }
                    Interp::Signed => {
                        let smax = Int::from(ty.smax());
                        if hi.as_ref().map_or(false, |h| *h <= smax) {
                            Some(x)
                        } else if lo.as_ref().map_or(false, |l| *l > smax) {
                            Some(x.minus(&LinExpr::constant(modulus)))
                        } else {
                            None
                        }
                    }
                }
            }
        }
    }

    /// Any linear expression congruent to the operand modulo `2^w` (its own reading).
    fn raw(&self, op: &Operand, want: Interp) -> Option<LinExpr> {
        match op {
            Operand::Undef(_) => None,
            Operand::Const(c) => Some(LinExpr::constant(const_reading(*c, want))),
            Operand::Value(v) => Some(LinExpr::var(self.var(*v))),
        }
    }

    /// `dest := e mod 2^w`, read in the destination's interpretation.
    fn assign_wrapped<D: NumericDomain>(&self, d: &mut D, dest: ValueId, e: &LinExpr) {
        let (lo_r, hi_r) = self.range(dest);
        let modulus = pow2(self.func().value(dest).ty.width);
        let (lo, hi) = self.bound(d, e).int_hull();
        if let (Some(lo), Some(hi)) = (lo, hi) {
            let k_lo = floor_div(&(&lo - &lo_r), &modulus);
            let k_hi = floor_div(&(&hi - &lo_r), &modulus);
            if k_lo == k_hi {
                let shifted = e.minus(&LinExpr::constant(&k_lo * &modulus));
                d.assign(self.var(dest), &shifted);
                return;
            }
        }
        let _ = hi_r;
        self.havoc(d, dest);
    }

    /// Meets the state with `lo <= e <= hi`.
    /// True only if every state of `d` satisfies `c` (using the reading ranges too).
    fn holds<D: NumericDomain>(&self, d: &D, c: &LinCons) -> bool {
        if d.entails(c) == Entailment::Holds {
            return true;
        }
        let itv = self.bound(d, &c.expr);
        let zero = num_rational::BigRational::zero();
        match c.kind {
            ConsKind::Ge => itv.lo.map_or(false, |l| l >= zero),
            ConsKind::Eq => itv.as_point() == Some(&zero),
        }
    }

    /// `dest := e` for an operation whose flags promise no wrap in some reading: the state
    /// is restricted to executions without overflow, then `e` is assigned (wrapped, which is
    /// then exact when the promise is in the destination's reading).
    fn assign_arith<D: NumericDomain>(
        &self,
        d: &mut D,
        dest: ValueId,
        flags: ArithFlags,
        build: impl Fn(&dyn Fn(&Operand, Interp) -> Option<LinExpr>) -> Option<LinExpr>,
    ) {
        for (promised, interp) in [(flags.nsw, Interp::Signed), (flags.nuw, Interp::Unsigned)] {
            // The promise holds on every defined execution, so in the promised reading the
            // result is `e` exactly; executions that overflow are undefined and may be
            // over-approximated freely, so the state need not be cut.
            if promised && interp == self.interp(dest) {
                if let Some(e) = build(&|op, _| self.reading(d, op, interp)) {
                    d.assign(self.var(dest), &e);
                    return;
                }
            }
        }
        let want = self.interp(dest);
        match build(&|op, _| self.raw(op, want)) {
            Some(e) => self.assign_wrapped(d, dest, &e),
            None => self.havoc(d, dest),
        }
    }

    fn apply_assign<D: NumericDomain>(&self, d: &mut D, dest: ValueId, expr: &Expr) {
        let ty = self.func().value(dest).ty;
        let x = self.var(dest);
        match expr {
            Expr::Use(op) => match self.reading(d, op, self.interp(dest)) {
                Some(e) => d.assign(x, &e),
                None => self.havoc(d, dest),
            },
            Expr::Binary {
                op,
                lhs,
                rhs,
                flags,
            } => self.apply_binary(d, dest, ty, *op, lhs, rhs, *flags),
            Expr::Cmp { pred, lhs, rhs } => {
                let holds = self.cmp_cons(d, *pred, lhs, rhs);
                let fails = self.cmp_cons(d, pred.negated(), lhs, rhs);
                let entailed = |cons: &Option<Vec<LinCons>>| {
                    cons.as_ref()
                        .map_or(false, |cs| cs.iter().all(|c| self.holds(d, c)))
                };
                let value = if entailed(&holds) {
                    Interval::ints(1, 1)
                } else if entailed(&fails) {
                    Interval::ints(0, 0)
                } else {
                    Interval::ints(0, 1)
                };
                d.assign_interval(x, &value);
            }
            Expr::Cast { op, arg } => {
                let src_ty = self.func().operand_ty(arg);
                match op {
                    CastOp::Trunc => match self.raw(arg, self.interp(dest)) {
                        Some(e) => self.assign_wrapped(d, dest, &e),
                        None => self.havoc(d, dest),
                    },
                    CastOp::ZExt | CastOp::SExt => {
                        let want = if *op == CastOp::ZExt {
                            Interp::Unsigned
                        } else {
                            Interp::Signed
                        };
                        match self.reading(d, arg, want) {
                            Some(e) => self.assign_wrapped(d, dest, &e),
                            None => {
                                let (lo, hi) = reading_range(src_ty, want);
                                let tmp = Interval::ints(lo.clone(), hi.clone());
                                // The extended value lies in the source's range, which fits
                                // the destination's reading when the readings agree.
                                if want == self.interp(dest) {
                                    d.assign_interval(x, &tmp);
                                } else {
                                    self.havoc(d, dest);
                                }
                            }
                        }
                    }
                }
            }
            // Below 3 bits a count may not read the same signed.
            Expr::BitCount { .. } if ty.width < 3 => self.havoc(d, dest),
            Expr::BitCount { count, arg } => {
                let value = self.bit_count_range(d, *count, arg, ty.width);
                d.assign_interval(x, &value);
            }
            Expr::Select {
                cond,
                on_true,
                on_false,
            } => {
                let mut on_t = d.clone();
                self.apply_guard(&mut on_t, cond, true);
                self.apply_assign(&mut on_t, dest, &Expr::Use(*on_true));
                let mut on_f = d.clone();
                self.apply_guard(&mut on_f, cond, false);
                self.apply_assign(&mut on_f, dest, &Expr::Use(*on_false));
                *d = on_t.join(&on_f);
            }
        }
    }

    /// `dest := n / r` (`UDiv`) or `n >> r` (`LShr`) over unsigned readings with `r` not a
    /// constant: between 0 and `n` when the divisor is at least 1 (a shift's always is),
    /// and at least 2 for a destination read as signed (the quotient is then below the
    /// signed maximum). What the solver's encoding of such a quotient also says, so that
    /// invariants over it are certified.
    fn bound_quotient<D: NumericDomain>(
        &self,
        d: &mut D,
        dest: ValueId,
        op: BinOp,
        n: &LinExpr,
        rhs: &Operand,
    ) {
        self.havoc(d, dest);
        let least = match op {
            BinOp::LShr => Some(Int::one()),
            _ => self
                .reading(d, rhs, Interp::Unsigned)
                .and_then(|r| self.bound(d, &r).int_hull().0),
        };
        let needed = match self.interp(dest) {
            Interp::Unsigned => Int::one(),
            Interp::Signed => Int::from(2),
        };
        let shift_keeps_sign = op == BinOp::LShr && self.interp(dest) == Interp::Signed;
        if shift_keeps_sign || least.is_none_or(|l| l < needed) {
            return;
        }
        let q = LinExpr::var(self.var(dest));
        d.meet_cons(&[LinCons::ge(&q, &LinExpr::constant(0)), LinCons::le(&q, n)]);
    }

    /// `dest := a & b` with neither a constant: at most each of them, read unsigned, and
    /// not negative, when the destination reads unsigned or one of them is at most the
    /// signed maximum (the result then reads the same either way); otherwise any value.
    fn and_of_values<D: NumericDomain>(
        &self,
        d: &mut D,
        dest: ValueId,
        lhs: &Operand,
        rhs: &Operand,
        ty: Ty,
    ) {
        let sides: Vec<Option<LinExpr>> = [lhs, rhs]
            .iter()
            .map(|o| self.reading(d, o, Interp::Unsigned))
            .collect();
        let smax = Int::from(ty.smax());
        let small = |e: &Option<LinExpr>| {
            e.as_ref()
                .is_some_and(|e| self.bound(d, e).int_hull().1.is_some_and(|h| h <= smax))
        };
        let fits = self.interp(dest) == Interp::Unsigned || sides.iter().any(small);
        self.havoc(d, dest);
        if !fits || ty.is_bool() {
            return;
        }
        let r = LinExpr::var(self.var(dest));
        let mut cons = vec![LinCons::ge(&r, &LinExpr::constant(0))];
        cons.extend(sides.iter().flatten().map(|e| LinCons::le(&r, e)));
        d.meet_cons(&cons);
    }

    /// The counts `count` gives the `width`-bit values `arg` may hold here: from the range
    /// of its unsigned reading, `[0, width]` when it has none.
    fn bit_count_range<D: NumericDomain>(
        &self,
        d: &D,
        count: crate::ir::BitCount,
        arg: &Operand,
        width: u32,
    ) -> Interval {
        let all = Interval::ints(0, width);
        let umax = Ty { width }.umax();
        let Some(e) = self.reading(d, arg, Interp::Unsigned) else {
            return all;
        };
        let itv = self.bound(d, &e);
        let lo = itv.lo.map_or(Some(0), |l| l.ceil().to_integer().to_u128());
        let hi = itv
            .hi
            .map_or(Some(umax), |h| h.floor().to_integer().to_u128());
        match (lo, hi) {
            (Some(lo), Some(hi)) if lo <= hi && hi <= umax => {
                let (least, most) = count.range(lo, hi, width);
                Interval::ints(least, most)
            }
            _ => all,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn apply_binary<D: NumericDomain>(
        &self,
        d: &mut D,
        dest: ValueId,
        ty: Ty,
        op: BinOp,
        lhs: &Operand,
        rhs: &Operand,
        flags: ArithFlags,
    ) {
        let x = self.var(dest);
        let rhs_const = match rhs {
            Operand::Const(c) => Some(*c),
            _ => None,
        };
        let lhs_const = match lhs {
            Operand::Const(c) => Some(*c),
            _ => None,
        };
        match op {
            BinOp::Add | BinOp::Sub => self.assign_arith(d, dest, flags, |read| {
                let a = read(lhs, interp_hint(self, lhs, dest))?;
                let b = read(rhs, interp_hint(self, rhs, dest))?;
                Some(if op == BinOp::Add {
                    a.plus(&b)
                } else {
                    a.minus(&b)
                })
            }),
            BinOp::Mul => {
                // A product is linear when one side is a constant (or known to be one).
                let known = |o: &Operand, other: &Operand| -> Option<(Int, Operand)> {
                    match o {
                        Operand::Const(c) => Some((Int::from(c.signed()), *other)),
                        Operand::Value(v) => {
                            let itv = d.bound(&LinExpr::var(self.var(*v)));
                            let p = itv.as_point()?;
                            if !p.is_integer() {
                                return None;
                            }
                            Some((p.to_integer(), *other))
                        }
                        Operand::Undef(_) => None,
                    }
                };
                let Some((k, other)) = known(rhs, lhs).or_else(|| known(lhs, rhs)) else {
                    self.havoc(d, dest);
                    return;
                };
                // The constant's signed reading is congruent to its bits, which keeps the
                // product congruent; under nsw/nuw both factors must be read the promised
                // way, which a known-constant value read from its own dimension may not be.
                let k_const = Const::new(ty, k.to_i128().unwrap_or(0));
                self.assign_arith(d, dest, flags, |read| {
                    let a = read(&other, interp_hint(self, &other, dest))?;
                    let kk = read(&Operand::Const(k_const), interp_hint(self, &other, dest))?;
                    Some(a.scaled(kk.constant_part()))
                });
            }
            BinOp::Shl => match rhs_const {
                Some(c) if c.unsigned() < ty.width as u128 => {
                    let factor = pow2(c.unsigned() as u32);
                    self.assign_arith(d, dest, flags, |read| {
                        Some(read(lhs, interp_hint(self, lhs, dest))?.scaled(&factor))
                    });
                }
                _ => self.havoc(d, dest),
            },
            BinOp::UDiv | BinOp::LShr => {
                let divisor = match (op, rhs_const) {
                    (BinOp::UDiv, Some(c)) if c.unsigned() > 0 => Some(Int::from(c.unsigned())),
                    (BinOp::LShr, Some(c)) if c.unsigned() < ty.width as u128 => {
                        Some(pow2(c.unsigned() as u32))
                    }
                    _ => None,
                };
                let num = self.reading(d, lhs, Interp::Unsigned);
                match (divisor, num) {
                    (Some(c), Some(n)) if c.is_one() => self.assign_wrapped(d, dest, &n),
                    (Some(c), Some(n)) => {
                        // q = n / c with c ≥ 2 is below 2^(w-1): both readings agree.
                        self.havoc(d, dest);
                        let q = LinExpr::var(x);
                        let cq = q.scaled(&c);
                        let mut upper = cq.clone();
                        upper.add_constant(&c - Int::one());
                        d.meet_cons(&[LinCons::le(&cq, &n), LinCons::le(&n, &upper)]);
                    }
                    (None, Some(n)) => self.bound_quotient(d, dest, op, &n, rhs),
                    _ => self.havoc(d, dest),
                }
            }
            BinOp::SDiv | BinOp::AShr => {
                let divisor = match (op, rhs_const) {
                    (BinOp::SDiv, Some(c)) if c.signed() > 0 => Some(Int::from(c.signed())),
                    (BinOp::AShr, Some(c)) if c.unsigned() < ty.width as u128 => {
                        Some(pow2(c.unsigned() as u32))
                    }
                    _ => None,
                };
                let num = self.reading(d, lhs, Interp::Signed);
                match (divisor, num) {
                    (Some(c), Some(n)) if c.is_one() => self.assign_wrapped(d, dest, &n),
                    (Some(c), Some(n)) if self.interp(dest) == Interp::Signed => {
                        self.havoc(d, dest);
                        let cq = LinExpr::var(x).scaled(&c);
                        let rem = n.minus(&cq);
                        let cm1 = LinExpr::constant(&c - Int::one());
                        let (lo, hi) = self.bound(d, &n).int_hull();
                        let mut cons = Vec::new();
                        if op == BinOp::AShr {
                            // Floor division: 0 ≤ n - c·q ≤ c - 1.
                            cons.push(LinCons::ge(&rem, &LinExpr::constant(0)));
                            cons.push(LinCons::le(&rem, &cm1));
                        } else {
                            // Truncating division: |n - c·q| ≤ c - 1 with the sign of n.
                            cons.push(LinCons::le(&rem, &cm1));
                            cons.push(LinCons::ge(&rem, &cm1.negated()));
                            if lo.as_ref().map_or(false, |l| !l.is_negative()) {
                                cons.push(LinCons::ge(&rem, &LinExpr::constant(0)));
                            }
                            if hi.as_ref().map_or(false, |h| !h.is_positive()) {
                                cons.push(LinCons::le(&rem, &LinExpr::constant(0)));
                            }
                        }
                        d.meet_cons(&cons);
                    }
                    _ => self.havoc(d, dest),
                }
            }
            BinOp::URem | BinOp::SRem => {
                let signed = op == BinOp::SRem;
                let want = if signed {
                    Interp::Signed
                } else {
                    Interp::Unsigned
                };
                let num = self.reading(d, lhs, want);
                self.assign_remainder(d, dest, signed, num.as_ref(), rhs);
            }
            BinOp::And | BinOp::Or | BinOp::Xor if ty.is_bool() => {
                self.apply_boolean(d, dest, op, lhs, rhs)
            }
            BinOp::And => {
                // x & c lies in [0, min(c, x)] for unsigned readings.
                let mask = rhs_const.or(lhs_const);
                let other = if rhs_const.is_some() { lhs } else { rhs };
                match mask {
                    Some(c) if c.unsigned() <= ty.smax() as u128 => {
                        let cu = Int::from(c.unsigned());
                        let n = self.reading(d, other, Interp::Unsigned);
                        if let Some(n) = &n {
                            let (lo, hi) = self.bound(d, n).int_hull();
                            let full_mask = (&cu & (&cu + Int::one())).is_zero();
                            if full_mask
                                && lo.map_or(false, |l| !l.is_negative())
                                && hi.map_or(false, |h| h <= cu)
                            {
                                self.assign_wrapped(d, dest, n);
                                return;
                            }
                        }
                        self.havoc(d, dest);
                        let r = LinExpr::var(x);
                        let mut cons = vec![
                            LinCons::ge(&r, &LinExpr::constant(0)),
                            LinCons::le(&r, &LinExpr::constant(cu)),
                        ];
                        if let Some(n) = n {
                            cons.push(LinCons::le(&r, &n));
                        }
                        d.meet_cons(&cons);
                    }
                    Some(c) if self.precision().bitwise_bounds => {
                        // A mask with the sign bit (`x & -8`): within `!c` below `x`.
                        let want = self.interp(dest);
                        let n = self.reading(d, other, want);
                        self.havoc(d, dest);
                        if let Some(n) = n {
                            let r = LinExpr::var(x);
                            d.meet_cons(&super::bitwise::and_bounds(&r, &n, &mask_of(c)));
                        }
                    }
                    Some(_) => self.havoc(d, dest),
                    None => self.and_of_values(d, dest, lhs, rhs, ty),
                }
            }
            BinOp::Or => {
                // Unsigned, `x | c` sets the bits of `c` and keeps those of `x`: it is at
                // least both. The dimension holds that reading only when the destination is
                // read unsigned; a signed reading of the same bits is not convex in `x`.
                let mask = rhs_const.or(lhs_const);
                let other = if rhs_const.is_some() { lhs } else { rhs };
                if let Some(c) = mask.filter(|_| self.precision().bitwise_bounds) {
                    // `x | c` between `x` and `x + c` in either reading, and
                    // the sign bit's consequences when read signed.
                    let want = self.interp(dest);
                    let n = self.reading(d, other, want);
                    let nonneg = n
                        .as_ref()
                        .is_some_and(|n| self.bound(d, n).lo.is_some_and(|l| !l.is_negative()));
                    self.havoc(d, dest);
                    let r = LinExpr::var(x);
                    let cons = super::bitwise::or_bounds(&r, n.as_ref(), &mask_of(c), want, nonneg);
                    d.meet_cons(&cons);
                } else {
                    self.havoc(d, dest);
                }
                if self.interp(dest) != Interp::Unsigned {
                    return;
                }
                let r = LinExpr::var(x);
                let mut cons = vec![
                    LinCons::ge(&r, &LinExpr::constant(0)),
                    LinCons::le(&r, &LinExpr::constant(Int::from(ty.umax()))),
                ];
                let operands = match mask {
                    Some(c) => {
                        cons.push(LinCons::ge(&r, &LinExpr::constant(Int::from(c.unsigned()))));
                        vec![other]
                    }
                    None => vec![lhs, rhs],
                };
                for operand in operands {
                    if let Some(n) = self.reading(d, operand, Interp::Unsigned) {
                        cons.push(LinCons::ge(&r, &n));
                    }
                }
                d.meet_cons(&cons);
            }
            BinOp::Xor => {
                // `x ^ c` for a mask of low bits `c` (`31 ^ n`) and `x` within `[0, c]`
                // flips every bit of `x`: it is `c - x`.
                let mask = rhs_const.or(lhs_const);
                let other = if rhs_const.is_some() { lhs } else { rhs };
                let allowed = |c: &Const| {
                    self.precision().bitwise_bounds && c.unsigned() <= ty.smax() as u128
                };
                if let Some(c) = mask.filter(allowed) {
                    let cu = Int::from(c.unsigned());
                    let full_mask = (&cu & (&cu + Int::one())).is_zero();
                    if let Some(n) = self
                        .reading(d, other, Interp::Unsigned)
                        .filter(|_| full_mask)
                    {
                        let (lo, hi) = self.bound(d, &n).int_hull();
                        if lo.is_some_and(|l| !l.is_negative()) && hi.is_some_and(|h| h <= cu) {
                            let flipped = LinExpr::constant(cu).minus(&n);
                            self.assign_wrapped(d, dest, &flipped);
                            return;
                        }
                    }
                }
                self.havoc(d, dest)
            }
        }
    }

    /// `dest := n % y`, `n` the dividend's reading (signed for `srem`, unsigned for `urem`)
    /// when it can be expressed, `y` a constant or a variable. Truncating remainder: when
    /// the state entails the divisor's sign (`y >= 1`, or `y <= -1` for `srem`),
    /// `|r| <= |y| - 1`, `r` has the sign of `n` and `|r| <= |n|`, and `r = n` when
    /// `|n| < |y|`. Otherwise, or when those bounds do not hold of the destination's
    /// reading, any value of its range.
    fn assign_remainder<D: NumericDomain>(
        &self,
        d: &mut D,
        dest: ValueId,
        signed: bool,
        n: Option<&LinExpr>,
        divisor: &Operand,
    ) {
        let want = if signed {
            Interp::Signed
        } else {
            Interp::Unsigned
        };
        let zero = LinExpr::constant(0);
        let one = LinExpr::constant(1);
        // The expressions take integer values: a lower bound above -1 is 0.
        let holds = |c: LinCons| {
            self.holds(d, &c)
                || (c.kind == ConsKind::Ge
                    && self
                        .bound(d, &c.expr)
                        .int_hull()
                        .0
                        .is_some_and(|l| !l.is_negative()))
        };
        // `|y|`: the divisor's reading of a known sign (zero divides nothing).
        let magnitude = self.reading(d, divisor, want).and_then(|y| {
            if holds(LinCons::ge(&y, &one)) {
                Some(y)
            } else if signed && holds(LinCons::le(&y, &one.negated())) {
                Some(y.negated())
            } else {
                None
            }
        });
        let Some(a) = magnitude else {
            self.havoc(d, dest);
            return;
        };
        let am1 = a.minus(&one);
        // An unsigned reading is never negative.
        let nonneg = !signed || n.is_some_and(|n| holds(LinCons::ge(n, &zero)));
        let nonpos = signed && n.is_some_and(|n| holds(LinCons::le(n, &zero)));
        if let Some(n) = n {
            let below = holds(LinCons::le(n, &am1));
            if below && (nonneg || holds(LinCons::ge(n, &am1.negated()))) {
                self.assign_wrapped(d, dest, n);
                return;
            }
        }
        // The destination's reading is the remainder's value: a negative remainder read
        // unsigned, or an unsigned one above `smax` read signed, is not convex in it.
        let smax = LinExpr::constant(Int::from(self.func().value(dest).ty.smax()));
        let fits = match self.interp(dest) {
            Interp::Unsigned => nonneg,
            Interp::Signed => {
                signed
                    || holds(LinCons::le(&am1, &smax))
                    || n.is_some_and(|n| holds(LinCons::le(n, &smax)))
            }
        };
        self.havoc(d, dest);
        if !fits {
            return;
        }
        let r = LinExpr::var(self.var(dest));
        let mut cons = vec![LinCons::le(&r, &am1)];
        if nonneg {
            cons.push(LinCons::ge(&r, &zero));
            cons.extend(n.map(|n| LinCons::le(&r, n)));
        } else {
            cons.push(LinCons::ge(&r, &am1.negated()));
            if nonpos {
                cons.push(LinCons::le(&r, &zero));
                cons.extend(n.map(|n| LinCons::ge(&r, n)));
            }
        }
        d.meet_cons(&cons);
    }

    /// Boolean connectives on 0/1 dimensions, encoded by the linear constraints whose
    /// integer points are exactly the truth table.
    fn apply_boolean<D: NumericDomain>(
        &self,
        d: &mut D,
        dest: ValueId,
        op: BinOp,
        lhs: &Operand,
        rhs: &Operand,
    ) {
        let (Some(a), Some(b)) = (
            self.raw(lhs, Interp::Unsigned),
            self.raw(rhs, Interp::Unsigned),
        ) else {
            self.havoc(d, dest);
            return;
        };
        let r = LinExpr::var(self.var(dest));
        d.assign_interval(self.var(dest), &Interval::ints(0, 1));
        let one = LinExpr::constant(1);
        let cons = match op {
            BinOp::And => vec![
                LinCons::le(&r, &a),
                LinCons::le(&r, &b),
                LinCons::ge(&r, &a.plus(&b).minus(&one)),
            ],
            BinOp::Or => vec![
                LinCons::ge(&r, &a),
                LinCons::ge(&r, &b),
                LinCons::le(&r, &a.plus(&b)),
            ],
            _ => vec![
                LinCons::ge(&r, &a.minus(&b)),
                LinCons::ge(&r, &b.minus(&a)),
                LinCons::le(&r, &a.plus(&b)),
                LinCons::le(&r, &LinExpr::constant(2).minus(&a).minus(&b)),
            ],
        };
        d.meet_cons(&cons);
    }
}

/// The reading in which an equality compares its operands: that of the first value.
fn equality_reading(l: &Lowering<'_>, lhs: &Operand, rhs: &Operand) -> Interp {
    match (lhs, rhs) {
        (Operand::Value(v), _) => l.interp(*v),
        (_, Operand::Value(v)) => l.interp(*v),
        _ => Interp::Signed,
    }
}

/// The reading in which to take an operand of an additive operation: its own for values
/// (any reading is congruent), the destination's for constants.
fn interp_hint(l: &Lowering<'_>, op: &Operand, dest: ValueId) -> Interp {
    match op {
        Operand::Value(v) => l.interp(*v),
        _ => l.interp(dest),
    }
}

/// The range of a reading.
pub fn reading_range(ty: Ty, interp: Interp) -> (Int, Int) {
    match interp {
        Interp::Signed => (Int::from(ty.smin()), Int::from(ty.smax())),
        Interp::Unsigned => (Int::zero(), Int::from(ty.umax())),
    }
}

/// The bits of a constant mask.
fn mask_of(c: Const) -> super::bitwise::Mask {
    super::bitwise::Mask {
        unsigned: Int::from(c.unsigned()),
        width: c.ty.width,
    }
}

/// The reading of a constant.
pub fn const_reading(c: Const, interp: Interp) -> Int {
    match interp {
        Interp::Signed => Int::from(c.signed()),
        Interp::Unsigned => Int::from(c.unsigned()),
    }
}

/// An unsatisfiable constraint, to make a state empty.
pub fn infeasible() -> LinCons {
    LinCons {
        expr: LinExpr::constant(-1),
        kind: ConsKind::Ge,
    }
}

fn pow2(k: u32) -> Int {
    Int::one() << k as usize
}

fn floor_div(a: &Int, b: &Int) -> Int {
    use num_integer::Integer;
    a.div_floor(b)
}
