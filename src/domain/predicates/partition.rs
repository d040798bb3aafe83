//! The partitioned predicate–numeric domain (NEX of Gurfinkel & Chaki, FMCAD'08):
//! a set of pairs `(p, n)` with `p` a BDD over the boolean dimensions and `n` a numeric
//! state, with pairwise disjoint `p`s; `γ = ⋁ᵢ (pᵢ ∧ γ(nᵢ))`.
//!
//! Boolean dimensions (see [`DimKind::Bool`]) are never constrained in the numeric states;
//! each numeric operation that mentions them is applied per valuation of the booleans it
//! mentions (a *cube*), with their 0/1 values substituted. Join and widening work per region
//! of the common refinement of the two partitions (the corrected join of the extraction
//! notes), so every valuation of the booleans keeps its own numeric state.
//!
//! The same code with at most one part is the NEXPOINT product (one BDD, one numeric state):
//! see [`super::product`].

use super::bdd::Bdd;
use crate::domain::{
    ConsKind, DimKind, Entailment, Interval, Lattice, LinCons, LinExpr, NumericDomain, Rat, Space,
    Var,
};
use num_traits::{Signed, Zero};
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

/// Booleans enumerated per operation, at most; a constraint or expression over more is
/// over-approximated (dropped, or its booleans read as the interval [0, 1]): a guard, since
/// the enumeration has `2^k` cubes.
const MAX_CUBE_BOOLS: usize = 8;

/// How many parts a state may have, and the domain's name.
pub trait PartPolicy: 'static {
    /// Parts kept, at most; beyond, parts are merged (numeric join).
    const MAX_PARTS: usize;
    /// Name for reports.
    const NAME: &'static str;
}

/// The partitioned (NEX) policy.
#[derive(Clone, Copy, Debug)]
pub struct Nex;

impl PartPolicy for Nex {
    // A guard against blow-up: every operation is applied per part.
    const MAX_PARTS: usize = 32;
    const NAME: &'static str = "predicates-partitioned";
}

/// Which dimensions are boolean, and their BDD variables.
#[derive(Debug)]
struct Info {
    space: Space,
    /// BDD variable of each dimension, for booleans.
    bvar: Vec<Option<u32>>,
    /// The boolean dimensions, indexed by BDD variable.
    bool_dims: Vec<Var>,
}

impl Info {
    fn new(space: &Space) -> Info {
        let mut bvar = Vec::with_capacity(space.dim());
        let mut bool_dims = Vec::new();
        for v in space.vars() {
            if space.kind(v) == DimKind::Bool {
                bvar.push(Some(bool_dims.len() as u32));
                bool_dims.push(v);
            } else {
                bvar.push(None);
            }
        }
        Info {
            space: space.clone(),
            bvar,
            bool_dims,
        }
    }

    fn is_bool(&self, v: Var) -> bool {
        self.bvar.get(v.index()).copied().flatten().is_some()
    }

    fn bvar(&self, v: Var) -> u32 {
        self.bvar[v.index()].expect("boolean dimension")
    }

    /// The boolean dimensions an expression mentions, in order.
    fn bools_of(&self, e: &LinExpr) -> Vec<Var> {
        e.vars().filter(|v| self.is_bool(*v)).collect()
    }

    fn has_ints(&self, e: &LinExpr) -> bool {
        e.vars().any(|v| !self.is_bool(v))
    }

    /// The conjunction of literals giving `bs[i]` the bit `i` of `mask`.
    fn cube(&self, bs: &[Var], mask: u32) -> Bdd {
        let mut c = Bdd::t();
        for (i, b) in bs.iter().enumerate() {
            c = c.and(&Bdd::lit(self.bvar(*b), mask >> i & 1 == 1));
        }
        c
    }
}

/// `e` with `bs[i]` replaced by bit `i` of `mask`.
fn subst(e: &LinExpr, bs: &[Var], mask: u32) -> LinExpr {
    let mut out = LinExpr::constant(e.constant_part().clone());
    for (v, c) in e.terms() {
        match bs.iter().position(|b| *b == v) {
            Some(i) => {
                if mask >> i & 1 == 1 {
                    out.add_constant(c.clone());
                }
            }
            None => out.add_term(c.clone(), v),
        }
    }
    out
}

fn subst_cons(c: &LinCons, bs: &[Var], mask: u32) -> LinCons {
    LinCons {
        expr: subst(&c.expr, bs, mask),
        kind: c.kind,
    }
}

fn union_vars(lists: impl IntoIterator<Item = Vec<Var>>) -> Vec<Var> {
    let mut all: Vec<Var> = lists.into_iter().flatten().collect();
    all.sort();
    all.dedup();
    all
}

/// The smallest interval containing both.
fn hull(a: Option<Interval>, b: Interval) -> Interval {
    match a {
        None => b,
        Some(a) => Interval {
            lo: match (a.lo, b.lo) {
                (Some(x), Some(y)) => Some(if x < y { x } else { y }),
                _ => None,
            },
            hi: match (a.hi, b.hi) {
                (Some(x), Some(y)) => Some(if x > y { x } else { y }),
                _ => None,
            },
        },
    }
}

fn infeasible() -> LinCons {
    LinCons {
        expr: LinExpr::constant(-1),
        kind: ConsKind::Ge,
    }
}

/// A partitioned state: disjoint BDD regions, one numeric state each.
pub struct Partitioned<N, P = Nex> {
    info: Arc<Info>,
    parts: Vec<(Bdd, N)>,
    _policy: PhantomData<fn() -> P>,
}

impl<N: Clone, P> Clone for Partitioned<N, P> {
    fn clone(&self) -> Self {
        Partitioned {
            info: self.info.clone(),
            parts: self.parts.clone(),
            _policy: PhantomData,
        }
    }
}

impl<N: fmt::Debug, P> fmt::Debug for Partitioned<N, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.parts.iter()).finish()
    }
}

impl<N: NumericDomain, P: PartPolicy> Partitioned<N, P> {
    fn with_parts(info: Arc<Info>, parts: Vec<(Bdd, N)>) -> Self {
        Partitioned {
            info,
            parts,
            _policy: PhantomData,
        }
    }

    /// The parts `(region, numeric state)`.
    pub fn parts(&self) -> &[(Bdd, N)] {
        &self.parts
    }

    /// Number of BDD variables (boolean dimensions) of the space.
    pub fn bdd_vars(&self) -> usize {
        self.info.bool_dims.len()
    }

    /// Total inner BDD nodes over the parts.
    pub fn bdd_nodes(&self) -> usize {
        self.parts.iter().map(|(p, _)| p.node_count()).sum()
    }

    /// Drops empty parts.
    fn prune(&mut self) {
        self.parts.retain(|(p, n)| !p.is_false() && !n.is_bottom());
    }

    /// Drops empty parts, merges parts with equal numeric states (C1, C2), and merges parts
    /// beyond the policy's maximum.
    fn normalize(&mut self) {
        self.prune();
        let mut out: Vec<(Bdd, N)> = Vec::with_capacity(self.parts.len());
        for (p, n) in std::mem::take(&mut self.parts) {
            match out.iter_mut().find(|(_, m)| m.is_leq(&n) && n.is_leq(m)) {
                Some(slot) => slot.0 = slot.0.or(&p),
                None => out.push((p, n)),
            }
        }
        while out.len() > P::MAX_PARTS.max(1) {
            let (p2, n2) = out.pop().expect("non-empty");
            let (p1, n1) = out.pop().expect("non-empty");
            out.push((p1.or(&p2), n1.join(&n2)));
        }
        self.parts = out;
    }

    /// The state of parts whose regions may overlap (after a quantification): their join.
    fn from_overlapping(info: Arc<Info>, parts: Vec<(Bdd, N)>) -> Self {
        let mut acc = Self::with_parts(info.clone(), Vec::new());
        for part in parts {
            if part.0.is_false() || part.1.is_bottom() {
                continue;
            }
            acc = acc.join(&Self::with_parts(info.clone(), vec![part]));
        }
        acc
    }

    /// The union of the regions.
    fn region(&self) -> Bdd {
        self.parts.iter().fold(Bdd::f(), |acc, (p, _)| acc.or(p))
    }

    /// Join-like combination over the common refinement: `op` on overlapping regions, each
    /// side's state alone where the other has none (`only_other` says whether regions of
    /// `other` alone are kept).
    fn combine(self, other: &Self, op: impl Fn(N, &N) -> N, only_other: bool) -> Self {
        if other.parts.is_empty() {
            return self;
        }
        if self.parts.is_empty() {
            return if only_other { other.clone() } else { self };
        }
        let u_all = self.region();
        let v_all = other.region();
        let mut out = Vec::new();
        for (p, n) in &self.parts {
            for (q, m) in &other.parts {
                let r = p.and(q);
                if !r.is_false() {
                    out.push((r, op(n.clone(), m)));
                }
            }
        }
        let not_v = v_all.not();
        for (p, n) in &self.parts {
            let r = p.and(&not_v);
            if !r.is_false() {
                out.push((r, n.clone()));
            }
        }
        if only_other {
            let not_u = u_all.not();
            for (q, m) in &other.parts {
                let r = q.and(&not_u);
                if !r.is_false() {
                    out.push((r, m.clone()));
                }
            }
        }
        let mut res = Self::with_parts(self.info, out);
        res.normalize();
        res
    }

    /// Each part cut by every valuation of the booleans `bs`: the non-empty cells, as
    /// (region of the cell, the part's numeric state, the valuation as a bit mask).
    fn cells(&self, bs: &[Var]) -> Vec<(Bdd, &N, u32)> {
        let mut out = Vec::new();
        for (p, n) in &self.parts {
            for mask in 0..(1u32 << bs.len()) {
                let q = p.and(&self.info.cube(bs, mask));
                if !q.is_false() {
                    out.push((q, n, mask));
                }
            }
        }
        out
    }

    /// The BDD of a constraint over boolean dimensions only (exact over 0/1 values).
    fn bool_cons_bdd(&self, c: &LinCons, bs: &[Var]) -> Bdd {
        let mut f = Bdd::f();
        for mask in 0..(1u32 << bs.len()) {
            if subst_cons(c, bs, mask).constant_truth() == Some(true) {
                f = f.or(&self.info.cube(bs, mask));
            }
        }
        f
    }

    /// The numeric state of a part with its region's boolean facts added (per boolean the
    /// region depends on: a fixed value when the region implies one, else `0 ≤ b ≤ 1`).
    fn with_bool_facts(&self, p: &Bdd, n: &N) -> N {
        let mut n = n.clone();
        let mut cons = Vec::new();
        for (i, b) in self.info.bool_dims.iter().enumerate() {
            let x = LinExpr::var(*b);
            let lit = Bdd::var(i as u32);
            if p.implies(&lit) {
                cons.push(LinCons::eq(&x, &LinExpr::constant(1)));
            } else if p.implies(&lit.not()) {
                cons.push(LinCons::eq(&x, &LinExpr::constant(0)));
            } else if p.exists(&[i as u32]) != *p {
                cons.push(LinCons::ge(&x, &LinExpr::constant(0)));
                cons.push(LinCons::le(&x, &LinExpr::constant(1)));
            }
        }
        n.meet_cons(&cons);
        n
    }

    /// Bounds of an expression whose booleans are too many to enumerate: booleans range over
    /// [0, 1].
    fn relaxed_bound(&self, e: &LinExpr) -> Interval {
        let mut ints = LinExpr::constant(e.constant_part().clone());
        let (mut lo, mut hi) = (Rat::zero(), Rat::zero());
        for (v, c) in e.terms() {
            if self.info.is_bool(v) {
                let c = Rat::from_integer(c.clone());
                if c.is_negative() {
                    lo += c;
                } else {
                    hi += c;
                }
            } else {
                ints.add_term(c.clone(), v);
            }
        }
        let mut acc: Option<Interval> = None;
        for (_, n) in &self.parts {
            acc = Some(hull(acc, n.bound(&ints)));
        }
        let b = acc.unwrap_or_else(Interval::top);
        Interval {
            lo: b.lo.map(|l| l + lo),
            hi: b.hi.map(|h| h + hi),
        }
    }
}

impl<N: NumericDomain, P: PartPolicy> Lattice for Partitioned<N, P> {
    fn top(space: &Space) -> Self {
        Self::with_parts(Arc::new(Info::new(space)), vec![(Bdd::t(), N::top(space))])
    }

    fn bottom(space: &Space) -> Self {
        Self::with_parts(Arc::new(Info::new(space)), Vec::new())
    }

    fn dim(&self) -> usize {
        self.info.space.dim()
    }

    fn is_bottom(&self) -> bool {
        self.parts.is_empty()
    }

    fn is_top(&self) -> bool {
        self.parts.len() == 1 && self.parts[0].0.is_true() && self.parts[0].1.is_top()
    }

    fn is_leq(&self, other: &Self) -> bool {
        if self.parts.is_empty() {
            return true;
        }
        let v_all = other.region();
        self.parts.iter().all(|(p, n)| {
            p.implies(&v_all)
                && other
                    .parts
                    .iter()
                    .all(|(q, m)| !p.intersects(q) || n.is_leq(m))
        })
    }

    fn join(self, other: &Self) -> Self {
        self.combine(other, |n, m| n.join(m), true)
    }

    fn meet(self, other: &Self) -> Self {
        let mut out = Vec::new();
        for (p, n) in &self.parts {
            for (q, m) in &other.parts {
                let r = p.and(q);
                if !r.is_false() {
                    out.push((r, n.clone().meet(m)));
                }
            }
        }
        let mut res = Self::with_parts(self.info, out);
        res.normalize();
        res
    }

    fn widen(self, newer: &Self) -> Self {
        self.combine(newer, |n, m| n.widen(m), true)
    }

    fn widen_with_thresholds(self, newer: &Self, thresholds: &[LinCons]) -> Self {
        // Thresholds over booleans mean nothing to the numeric parts.
        let ts: Vec<LinCons> = thresholds
            .iter()
            .filter(|c| self.info.bools_of(&c.expr).is_empty())
            .cloned()
            .collect();
        self.combine(newer, |n, m| n.widen_with_thresholds(m, &ts), true)
    }

    fn narrow(self, newer: &Self) -> Self {
        self.combine(newer, |n, m| n.narrow(m), true)
    }
}

impl<N: NumericDomain, P: PartPolicy> NumericDomain for Partitioned<N, P> {
    fn assign(&mut self, var: Var, expr: &LinExpr) {
        self.assign_parallel(&[(var, expr.clone())]);
    }

    fn assign_parallel(&mut self, assignments: &[(Var, LinExpr)]) {
        if self.parts.is_empty() || assignments.is_empty() {
            return;
        }
        let info = self.info.clone();
        let (bool_as, int_as): (Vec<&(Var, LinExpr)>, Vec<&(Var, LinExpr)>) =
            assignments.iter().partition(|(v, _)| info.is_bool(*v));
        let bs = union_vars(assignments.iter().map(|(_, e)| info.bools_of(e)));
        if bool_as.is_empty() && bs.is_empty() {
            for (_, n) in &mut self.parts {
                n.assign_parallel(assignments);
            }
            self.prune();
            return;
        }
        if bs.len() > MAX_CUBE_BOOLS {
            // Too many booleans read: the targets get their bounds (read in the pre-state).
            let ranges: Vec<(Var, Interval)> = assignments
                .iter()
                .map(|(v, e)| (*v, self.bound(e)))
                .collect();
            for (v, r) in ranges {
                self.assign_interval(v, &r);
            }
            return;
        }
        let targets: Vec<u32> = bool_as.iter().map(|(v, _)| info.bvar(*v)).collect();
        let mut out = Vec::new();
        for (q, n, mask) in self.cells(&bs) {
            // Boolean targets, read in the pre-state.
            let mut lits = Vec::new();
            for (b, e) in &bool_as {
                let e = subst(e, &bs, mask);
                let value = if e.is_constant() {
                    Interval::point(Rat::from_integer(e.constant_part().clone()))
                } else {
                    n.bound(&e)
                };
                match value.as_point() {
                    Some(c) if c.is_zero() => lits.push((info.bvar(*b), false)),
                    Some(c) if *c == Rat::from_integer(1.into()) => {
                        lits.push((info.bvar(*b), true))
                    }
                    _ => {}
                }
            }
            let mut n2 = n.clone();
            let ints: Vec<(Var, LinExpr)> = int_as
                .iter()
                .map(|(v, e)| (*v, subst(e, &bs, mask)))
                .collect();
            if !ints.is_empty() {
                n2.assign_parallel(&ints);
            }
            if n2.is_bottom() {
                continue;
            }
            let mut q2 = q.exists(&targets);
            for (b, val) in lits {
                q2 = q2.and(&Bdd::lit(b, val));
            }
            out.push((q2, n2));
        }
        if bool_as.is_empty() {
            self.parts = out;
            self.normalize();
        } else {
            *self = Self::from_overlapping(info, out);
        }
    }

    fn substitute(&mut self, var: Var, expr: &LinExpr) {
        if self.parts.is_empty() {
            return;
        }
        let info = self.info.clone();
        if info.is_bool(var) {
            let b = info.bvar(var);
            let value = if expr.is_constant() {
                Some(expr.constant_part().clone())
            } else {
                None
            };
            match value {
                Some(c) if c.is_zero() || c == 1.into() => {
                    let lit = Bdd::lit(b, !c.is_zero());
                    let parts = std::mem::take(&mut self.parts)
                        .into_iter()
                        .map(|(p, n)| (p.and(&lit).exists(&[b]), n))
                        .collect();
                    *self = Self::from_overlapping(info, parts);
                }
                _ => self.forget(&[var]),
            }
            return;
        }
        let bs = info.bools_of(expr);
        if bs.is_empty() {
            for (_, n) in &mut self.parts {
                n.substitute(var, expr);
            }
            self.prune();
            return;
        }
        if bs.len() > MAX_CUBE_BOOLS {
            self.forget(&[var]);
            return;
        }
        let out = self
            .cells(&bs)
            .into_iter()
            .map(|(q, n, mask)| {
                let mut n2 = n.clone();
                n2.substitute(var, &subst(expr, &bs, mask));
                (q, n2)
            })
            .collect();
        self.parts = out;
        self.normalize();
    }

    fn assign_interval(&mut self, var: Var, range: &Interval) {
        if self.parts.is_empty() {
            return;
        }
        let info = self.info.clone();
        if info.is_bool(var) {
            let b = info.bvar(var);
            let zero = range.contains(&Rat::zero());
            let one = range.contains(&Rat::from_integer(1.into()));
            let parts = std::mem::take(&mut self.parts)
                .into_iter()
                .map(|(p, n)| {
                    let p = p.exists(&[b]);
                    let p = match (zero, one) {
                        (true, false) => p.and(&Bdd::lit(b, false)),
                        (false, true) => p.and(&Bdd::lit(b, true)),
                        // Both, or neither (no 0/1 value: not a boolean's range; havoc).
                        _ => p,
                    };
                    (p, n)
                })
                .collect();
            *self = Self::from_overlapping(info, parts);
        } else {
            for (_, n) in &mut self.parts {
                n.assign_interval(var, range);
            }
            self.prune();
        }
    }

    fn forget(&mut self, vars: &[Var]) {
        if self.parts.is_empty() || vars.is_empty() {
            return;
        }
        let info = self.info.clone();
        let (bools, ints): (Vec<Var>, Vec<Var>) = vars.iter().partition(|v| info.is_bool(**v));
        if !ints.is_empty() {
            for (_, n) in &mut self.parts {
                n.forget(&ints);
            }
        }
        if bools.is_empty() {
            if !ints.is_empty() {
                self.normalize();
            }
            return;
        }
        let bv: Vec<u32> = bools.iter().map(|v| info.bvar(*v)).collect();
        let parts = std::mem::take(&mut self.parts)
            .into_iter()
            .map(|(p, n)| (p.exists(&bv), n))
            .collect();
        *self = Self::from_overlapping(info, parts);
    }

    fn meet_cons(&mut self, cons: &[LinCons]) {
        if self.parts.is_empty() || cons.is_empty() {
            return;
        }
        let info = self.info.clone();
        let mut ints = Vec::new();
        let mut mixed = Vec::new();
        let mut bool_only = Bdd::t();
        for c in cons {
            let bs = info.bools_of(&c.expr);
            if bs.is_empty() {
                if c.constant_truth() == Some(false) {
                    self.parts.clear();
                    return;
                }
                ints.push(c.clone());
            } else if bs.len() > MAX_CUBE_BOOLS {
                // Dropped: an over-approximation of the meet.
            } else if !info.has_ints(&c.expr) {
                bool_only = bool_only.and(&self.bool_cons_bdd(c, &bs));
            } else {
                mixed.push(c.clone());
            }
        }
        if !bool_only.is_true() {
            for (p, _) in &mut self.parts {
                *p = p.and(&bool_only);
            }
        }
        let mut bs: Vec<Var> = Vec::new();
        let mut kept = Vec::new();
        for c in mixed {
            let all = union_vars([bs.clone(), info.bools_of(&c.expr)]);
            if all.len() <= MAX_CUBE_BOOLS {
                bs = all;
                kept.push(c);
            }
        }
        if kept.is_empty() {
            if !ints.is_empty() {
                for (_, n) in &mut self.parts {
                    n.meet_cons(&ints);
                }
            }
            self.prune();
            return;
        }
        let mut out = Vec::new();
        'cells: for (q, n, mask) in self.cells(&bs) {
            let mut all = ints.clone();
            for c in &kept {
                let c = subst_cons(c, &bs, mask);
                match c.constant_truth() {
                    Some(false) => continue 'cells,
                    Some(true) => {}
                    None => all.push(c),
                }
            }
            let mut n2 = n.clone();
            n2.meet_cons(&all);
            if !n2.is_bottom() {
                out.push((q, n2));
            }
        }
        self.parts = out;
        self.normalize();
    }

    fn entails(&self, cons: &LinCons) -> Entailment {
        if self.parts.is_empty() {
            return Entailment::Holds;
        }
        let bs = self.info.bools_of(&cons.expr);
        if bs.len() > MAX_CUBE_BOOLS {
            let b = self.relaxed_bound(&cons.expr);
            let zero = Rat::zero();
            let holds = match cons.kind {
                ConsKind::Ge => b.lo.as_ref().map_or(false, |l| *l >= zero),
                ConsKind::Eq => b.as_point() == Some(&zero),
            };
            return if holds {
                Entailment::Holds
            } else {
                Entailment::Unknown
            };
        }
        let (mut all_hold, mut all_violated) = (true, true);
        for (p, n) in &self.parts {
            for mask in 0..(1u32 << bs.len()) {
                if !p.intersects(&self.info.cube(&bs, mask)) {
                    continue;
                }
                let c = subst_cons(cons, &bs, mask);
                let e = match c.constant_truth() {
                    Some(true) => Entailment::Holds,
                    Some(false) => Entailment::Violated,
                    None => n.entails(&c),
                };
                all_hold &= e == Entailment::Holds;
                all_violated &= e == Entailment::Violated;
                if !all_hold && !all_violated {
                    return Entailment::Unknown;
                }
            }
        }
        if all_hold {
            Entailment::Holds
        } else if all_violated {
            Entailment::Violated
        } else {
            Entailment::Unknown
        }
    }

    fn bound(&self, expr: &LinExpr) -> Interval {
        if self.parts.is_empty() {
            return Interval::top();
        }
        let bs = self.info.bools_of(expr);
        if bs.len() > MAX_CUBE_BOOLS {
            return self.relaxed_bound(expr);
        }
        let mut acc: Option<Interval> = None;
        for (p, n) in &self.parts {
            for mask in 0..(1u32 << bs.len()) {
                if !p.intersects(&self.info.cube(&bs, mask)) {
                    continue;
                }
                let e = subst(expr, &bs, mask);
                let b = if e.is_constant() {
                    Interval::point(Rat::from_integer(e.constant_part().clone()))
                } else {
                    n.bound(&e)
                };
                acc = Some(hull(acc, b));
            }
        }
        acc.unwrap_or_else(Interval::top)
    }

    fn to_cons(&self) -> Vec<LinCons> {
        let mut acc: Option<N> = None;
        for (p, n) in &self.parts {
            let n = self.with_bool_facts(p, n);
            acc = Some(match acc {
                None => n,
                Some(a) => a.join(&n),
            });
        }
        match acc {
            None => vec![infeasible()],
            Some(a) if a.is_bottom() => vec![infeasible()],
            Some(a) => a.to_cons(),
        }
    }

    fn domain_name() -> &'static str {
        P::NAME
    }

    fn partitions_on_booleans() -> bool {
        true
    }

    fn split_parts(&self) -> Option<Vec<Self>> {
        (self.parts.len() > 1).then(|| {
            self.parts
                .iter()
                .map(|part| Self::with_parts(self.info.clone(), vec![part.clone()]))
                .collect()
        })
    }

    fn to_disjunction(&self) -> Vec<Vec<LinCons>> {
        // Each disjunct also bounds the booleans it does not fix to [0, 1]: true of every
        // concrete state, and it keeps the solver from escaping an invariant through a
        // boolean's unconstrained input copy.
        let vars: Vec<u32> = (0..self.info.bool_dims.len() as u32).collect();
        let mut out = Vec::new();
        for (p, n) in &self.parts {
            let base = n.to_cons();
            for cube in p.cubes(&vars) {
                let mut d = base.clone();
                for (i, b) in self.info.bool_dims.iter().enumerate() {
                    let x = LinExpr::var(*b);
                    match cube.iter().find(|(v, _)| *v == i as u32) {
                        Some((_, val)) => d.push(LinCons::eq(&x, &LinExpr::constant(*val as i32))),
                        None => {
                            d.push(LinCons::ge(&x, &LinExpr::constant(0)));
                            d.push(LinCons::le(&x, &LinExpr::constant(1)));
                        }
                    }
                }
                out.push(d);
            }
        }
        out
    }
}
