//! What one path between cut points tells the polynomial walk beyond its assignments:
//! the guards it takes and the exact divisions they allow.
//!
//! A path map (`super::PathMap`) is an identity over every state of its source that takes
//! the path. Its guards restrict those states, and three kinds are used:
//!
//! - **Equalities** `a == b` (a taken `icmp eq`, or the other edge of an `icmp ne`, between
//!   exact operands): on the path `a - b = 0`, so a variable `x` with a unit coefficient in
//!   it is replaced by its solution everywhere on the path (the *substitution* `σ`). `x` may
//!   be a value of the source or a fresh unknown; an identity in the remaining variables
//!   then holds for every state of the path, since each such state gives the variables
//!   values under which `σ` is the identity. A nonzero constant makes the path infeasible.
//! - **Remainders** `x % c == r` and `x % c != r` (a constant `c ≥ 2`): they decide the
//!   remainder of a later division `y / c` when `y - x` is a constant (`y % 2` after
//!   `y % 2 == 1` and `y = y - 1` is 0), with the sign of `y` from the source's linear
//!   invariant and the path's ordered guards where the residue alone does not. A division
//!   with a known remainder `r0` is exact: `y = c·u + r0` for the quotient `u`, a fresh
//!   unknown equated on the path (so `y`'s variable is replaced by `c·u + r0 - …`).
//! - **Ordered comparisons** between affine polynomials of the source's values: linear
//!   facts, used with the source's linear invariant (which holds in every execution) to
//!   find signs and, at an error site, the linear equalities the path implies.
//!
//! A branch on `a && b` taken false (or `a || b` taken true) is followed as two paths, one
//! per disjunct: together they cover every execution of the edge.

use crate::domain::polynomial::{Monomial, Polynomial};
use crate::domain::{
    ConsKind, Int, Lattice, LinCons, LinExpr, NumericDomain, Polyhedron, Space, Var,
};
use crate::ir::ValueId;
use num_traits::{One, Signed, ToPrimitive, Zero};
use std::collections::BTreeMap;

/// The remainder `dividend % divisor` computed by an instruction, in C's sense (truncating
/// division: the sign of the dividend) when `signed`, else of unsigned readings.
#[derive(Clone, Debug)]
pub(super) struct Remainder {
    pub dividend: Polynomial,
    pub divisor: i64,
    pub signed: bool,
}

#[derive(Clone, Debug)]
enum Fact {
    Is(i64),
    Not(i64),
}

#[derive(Clone, Debug)]
struct Residue {
    rem: Remainder,
    fact: Fact,
}

/// The state of the walk along one path: the polynomial of each value defined so far and
/// what the guards taken so far say (module doc).
#[derive(Clone, Debug, Default)]
pub(super) struct PathState {
    pub env: BTreeMap<ValueId, Polynomial>,
    /// `x = σ(x)` on the path; no value of `σ` mentions a substituted variable.
    pub subst: BTreeMap<Var, Polynomial>,
    /// Values defined as remainders by constants on the path.
    pub rems: BTreeMap<ValueId, Remainder>,
    residues: Vec<Residue>,
    /// Equalities `p = 0` of the path that have no unit variable to substitute.
    pub hypotheses: Vec<Polynomial>,
    /// Linear facts over the source's values (before `σ`).
    pub linear: Vec<LinCons>,
    /// The guards contradict each other: the path has no execution.
    pub infeasible: bool,
}

/// The linear invariant of a path's source, and the number of value dimensions (fresh
/// unknowns are numbered above them).
pub(super) struct Source<'a> {
    pub invariant: Option<&'a [Vec<LinCons>]>,
    pub n_dims: usize,
}

impl PathState {
    /// A path from a source whose linear definitions `x = e` hold there.
    pub fn starting(definitions: &[(Var, Polynomial)]) -> PathState {
        let mut s = PathState::default();
        for (x, e) in definitions {
            s.subst.insert(*x, e.clone());
        }
        s
    }

    /// The polynomial of a variable of the source on this path.
    pub fn var(&self, x: Var) -> Polynomial {
        self.subst
            .get(&x)
            .cloned()
            .unwrap_or_else(|| Polynomial::var(x))
    }

    /// `p` with the path's substitution applied.
    pub fn substituted(&self, p: &Polynomial) -> Polynomial {
        if self.subst.is_empty() {
            return p.clone();
        }
        p.compose(&|x| self.var(x), usize::MAX)
            .expect("no cap on the number of terms")
    }

    /// Records that `e = 0` on the path (`e` over the path's variables, `σ` applied).
    pub fn equate(&mut self, e: Polynomial) {
        if e.is_zero() {
            return;
        }
        if e.degree() == 0 {
            self.infeasible = true;
            return;
        }
        let Some((x, value)) = solve_for_unit(&e) else {
            self.hypotheses.push(e);
            return;
        };
        let f = |y: Var| {
            if y == x {
                value.clone()
            } else {
                Polynomial::var(y)
            }
        };
        let apply = |p: &mut Polynomial| {
            *p = p.compose(&f, usize::MAX).expect("no cap");
        };
        self.env.values_mut().for_each(apply);
        self.subst.values_mut().for_each(apply);
        self.rems.values_mut().for_each(|r| apply(&mut r.dividend));
        self.residues
            .iter_mut()
            .for_each(|r| apply(&mut r.rem.dividend));
        let hypotheses: Vec<Polynomial> = std::mem::take(&mut self.hypotheses)
            .iter()
            .map(|h| h.compose(&f, usize::MAX).expect("no cap"))
            .collect();
        self.subst.insert(x, value.clone());
        for h in hypotheses {
            self.equate(h);
        }
    }

    /// Records `rem == r` (`is`) or `rem != r` on the path.
    pub fn remainder_fact(&mut self, rem: Remainder, r: i64, is: bool) {
        let fact = if is { Fact::Is(r) } else { Fact::Not(r) };
        if is && r.abs() >= rem.divisor || (is && !rem.signed && r < 0) {
            self.infeasible = true;
            return;
        }
        self.residues.push(Residue { rem, fact });
    }

    /// The remainder of `p` by `divisor` (`p % divisor` in C's sense when `signed`, of the
    /// unsigned reading otherwise) when the path's facts decide it.
    pub fn known_remainder(
        &self,
        p: &Polynomial,
        divisor: i64,
        signed: bool,
        source: &Source<'_>,
    ) -> Option<i64> {
        let c = divisor;
        // Candidates by sign: a truncated remainder has the dividend's sign.
        let (lo, hi) = if !signed {
            (0, c - 1)
        } else if self.sign_at_least(p, 0, source) {
            (0, c - 1)
        } else if self.sign_at_least(&p.scaled(&Int::from(-1)), 0, source) {
            (-(c - 1), 0)
        } else {
            (-(c - 1), c - 1)
        };
        let mut candidates: Vec<i64> = (lo..=hi).collect();
        for res in &self.residues {
            if res.rem.divisor != c || res.rem.signed != signed {
                continue;
            }
            let d = p.minus(&res.rem.dividend);
            if d.degree() > 0 {
                continue;
            }
            let k = constant_of(&d);
            match res.fact {
                Fact::Is(r) if k.is_zero() => return Some(r),
                Fact::Is(r) => {
                    let Some(k) = (k % Int::from(c)).to_i64() else {
                        continue;
                    };
                    let m = (r + k).rem_euclid(c);
                    candidates.retain(|v| v.rem_euclid(c) == m);
                }
                Fact::Not(r) if k.is_zero() => candidates.retain(|v| *v != r),
                Fact::Not(_) => {}
            }
        }
        match candidates.as_slice() {
            [v] => Some(*v),
            _ => None,
        }
    }

    /// True when `p ≥ k` follows from the source's invariant (every disjunct) and the
    /// path's linear facts; `p` must be affine over the source's values.
    fn sign_at_least(&self, p: &Polynomial, k: i64, source: &Source<'_>) -> bool {
        let Some(expr) = affine(p, source.n_dims) else {
            return false;
        };
        let Some(disjuncts) = source.invariant else {
            return false;
        };
        disjuncts.iter().all(|d| match self.polyhedron(d, source) {
            None => true,
            Some(poly) => poly
                .bound(&expr)
                .int_hull()
                .0
                .is_some_and(|lo| lo >= Int::from(k)),
        })
    }

    /// The polyhedron of one disjunct of the source's invariant with the path's linear facts
    /// and the affine part of its substitution; `None` when empty.
    fn polyhedron(&self, disjunct: &[LinCons], source: &Source<'_>) -> Option<Polyhedron> {
        let space = Space::anonymous(source.n_dims);
        let mut poly = Polyhedron::top(&space);
        let mut cons: Vec<LinCons> = disjunct.to_vec();
        cons.extend(self.linear.iter().cloned());
        for (x, e) in &self.subst {
            if x.index() >= source.n_dims {
                continue;
            }
            if let Some(e) = affine(e, source.n_dims) {
                cons.push(LinCons::eq(&LinExpr::var(*x), &e));
            }
        }
        poly.meet_cons(&cons);
        (!poly.is_bottom()).then_some(poly)
    }

    /// Per disjunct of the source's invariant that the path's facts leave non-empty, the
    /// linear equalities that hold there, as polynomials with `σ` applied; `None` when the
    /// source has no invariant.
    pub fn implied_equalities(&self, source: &Source<'_>) -> Option<Vec<Vec<Polynomial>>> {
        let disjuncts = source.invariant?;
        let mut out = Vec::new();
        for d in disjuncts {
            let Some(poly) = self.polyhedron(d, source) else {
                continue;
            };
            let cons = poly.to_cons();
            let mut eqs = Vec::new();
            for (i, c) in cons.iter().enumerate() {
                let is_eq = match c.kind {
                    ConsKind::Eq => true,
                    ConsKind::Ge => {
                        let neg = c.expr.negated();
                        cons[i + 1..]
                            .iter()
                            .any(|d| d.kind == ConsKind::Ge && d.expr == neg)
                    }
                };
                if is_eq && !c.expr.is_constant() {
                    eqs.push(self.substituted(&polynomial_of(&c.expr)));
                }
            }
            out.push(eqs);
        }
        Some(out)
    }
}

/// The solution `x = v` of `e = 0` for a variable `x` that occurs in `e` only in a
/// monomial `±x`; the latest such variable (usually the one defined last).
fn solve_for_unit(e: &Polynomial) -> Option<(Var, Polynomial)> {
    let vars = e.vars();
    let x = vars.iter().rev().copied().find(|x| {
        let mut unit = false;
        for (m, c) in e.terms() {
            match m.powers().iter().find(|(y, _)| y == x) {
                None => {}
                Some((_, 1)) if m.degree() == 1 && c.abs().is_one() => unit = true,
                Some(_) => return false,
            }
        }
        unit
    })?;
    let c = e.terms().find(|(m, _)| **m == Monomial::var(x))?.1.clone();
    // c·x + r = 0  ⇒  x = -c·r (c = ±1).
    let rest = e.minus(&Polynomial::term(c.clone(), Monomial::var(x)));
    Some((x, rest.scaled(&-c)))
}

/// The constant term of `p`.
fn constant_of(p: &Polynomial) -> Int {
    p.terms()
        .find(|(m, _)| m.degree() == 0)
        .map(|(_, c)| c.clone())
        .unwrap_or_else(Int::zero)
}

/// `p` as a linear expression when it is affine over the first `n_dims` variables.
pub(super) fn affine(p: &Polynomial, n_dims: usize) -> Option<LinExpr> {
    let mut e = LinExpr::constant(0);
    for (m, c) in p.terms() {
        match m.powers() {
            [] => e.add_constant(c.clone()),
            [(x, 1)] if x.index() < n_dims => e.add_term(c.clone(), *x),
            _ => return None,
        }
    }
    Some(e)
}

/// The polynomial of a linear expression.
pub(super) fn polynomial_of(e: &LinExpr) -> Polynomial {
    e.terms().fold(
        Polynomial::constant(e.constant_part().clone()),
        |acc, (v, c)| acc.plus(&Polynomial::term(c.clone(), Monomial::var(v))),
    )
}

/// `p / c` when every coefficient of `p` is a multiple of `c`.
pub(super) fn divided(p: &Polynomial, c: i64) -> Option<Polynomial> {
    let c = Int::from(c);
    let mut q = Polynomial::zero();
    for (m, k) in p.terms() {
        if !(k % &c).is_zero() {
            return None;
        }
        q = q.plus(&Polynomial::term(k / &c, m.clone()));
    }
    Some(q)
}
