//! Linear expressions and constraints over numeric dimensions: the language every
//! numeric domain speaks.
//!
//! A [`LinExpr`] is `Σ cᵢ·xᵢ + c₀` with integer coefficients; a [`LinCons`] is
//! `e = 0` or `e ≥ 0`. Strict inequalities over integer-valued program variables are
//! written by the caller as `e - 1 ≥ 0`, so domains never see them.

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Signed, Zero};
use std::collections::BTreeMap;
use std::fmt;

/// An exact integer.
pub type Int = BigInt;
/// An exact rational.
pub type Rat = BigRational;

/// A numeric dimension of an abstract state.
///
/// Dimensions are dense indices `0..n` of a [`Space`]; what a dimension means (an SSA value,
/// a source variable) is known only to the analysis.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Var(pub u32);

impl Var {
    /// The dimension's index.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for Var {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "x{}", self.0)
    }
}

/// What values a dimension takes: any integer, or a boolean read as 0/1 (domains
/// with predicates track boolean dimensions symbolically; the others ignore the kind).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum DimKind {
    /// An integer (or rational) dimension.
    Int,
    /// A boolean dimension whose values are exactly 0 and 1.
    Bool,
}

/// The set of dimensions an abstract state ranges over, with display names.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Space {
    names: Vec<String>,
    /// Per-dimension kinds; empty means every dimension is [`DimKind::Int`].
    kinds: Vec<DimKind>,
}

impl Space {
    /// A space of `n` dimensions named `x0..x{n-1}`.
    pub fn anonymous(n: usize) -> Space {
        Space {
            names: (0..n).map(|i| format!("x{i}")).collect(),
            kinds: Vec::new(),
        }
    }

    /// A space whose dimensions carry the given names, in order.
    pub fn named(names: Vec<String>) -> Space {
        Space {
            names,
            kinds: Vec::new(),
        }
    }

    /// A space with names and a kind per dimension (`kinds.len() == names.len()`).
    pub fn with_kinds(names: Vec<String>, kinds: Vec<DimKind>) -> Space {
        assert_eq!(names.len(), kinds.len(), "one kind per dimension");
        Space { names, kinds }
    }

    /// The kind of a dimension ([`DimKind::Int`] unless declared otherwise).
    pub fn kind(&self, var: Var) -> DimKind {
        self.kinds.get(var.index()).copied().unwrap_or(DimKind::Int)
    }

    /// Number of dimensions.
    pub fn dim(&self) -> usize {
        self.names.len()
    }

    /// Display name of a dimension.
    pub fn name(&self, var: Var) -> &str {
        &self.names[var.index()]
    }

    /// All dimensions, in index order.
    pub fn vars(&self) -> impl Iterator<Item = Var> + '_ {
        (0..self.names.len() as u32).map(Var)
    }
}

/// `Σ coeff·var + constant` with exact integer coefficients; zero coefficients are never stored.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct LinExpr {
    coeffs: BTreeMap<Var, Int>,
    constant: Int,
}

impl LinExpr {
    /// The constant expression `c`.
    pub fn constant(c: impl Into<Int>) -> LinExpr {
        LinExpr {
            coeffs: BTreeMap::new(),
            constant: c.into(),
        }
    }

    /// The expression `var`.
    pub fn var(var: Var) -> LinExpr {
        LinExpr::term(1, var)
    }

    /// The expression `c·var`.
    pub fn term(c: impl Into<Int>, var: Var) -> LinExpr {
        let mut e = LinExpr::default();
        e.add_term(c, var);
        e
    }

    /// Adds `c·var` in place.
    pub fn add_term(&mut self, c: impl Into<Int>, var: Var) {
        let c = c.into();
        if c.is_zero() {
            return;
        }
        let entry = self.coeffs.entry(var).or_insert_with(Int::zero);
        *entry += c;
        if entry.is_zero() {
            self.coeffs.remove(&var);
        }
    }

    /// Adds a constant in place.
    pub fn add_constant(&mut self, c: impl Into<Int>) {
        self.constant += c.into();
    }

    /// Coefficient of `var` (zero when absent).
    pub fn coeff(&self, var: Var) -> Int {
        self.coeffs.get(&var).cloned().unwrap_or_else(Int::zero)
    }

    /// The non-zero terms, ordered by dimension.
    pub fn terms(&self) -> impl Iterator<Item = (Var, &Int)> + '_ {
        self.coeffs.iter().map(|(v, c)| (*v, c))
    }

    /// The constant part.
    pub fn constant_part(&self) -> &Int {
        &self.constant
    }

    /// True when the expression has no variable.
    pub fn is_constant(&self) -> bool {
        self.coeffs.is_empty()
    }

    /// The dimensions the expression mentions.
    pub fn vars(&self) -> impl Iterator<Item = Var> + '_ {
        self.coeffs.keys().copied()
    }

    /// `self + other`.
    pub fn plus(&self, other: &LinExpr) -> LinExpr {
        let mut res = self.clone();
        for (v, c) in other.terms() {
            res.add_term(c.clone(), v);
        }
        res.constant += &other.constant;
        res
    }

    /// `k·self`.
    pub fn scaled(&self, k: &Int) -> LinExpr {
        if k.is_zero() {
            return LinExpr::default();
        }
        LinExpr {
            coeffs: self.coeffs.iter().map(|(v, c)| (*v, c * k)).collect(),
            constant: &self.constant * k,
        }
    }

    /// `self - other`.
    pub fn minus(&self, other: &LinExpr) -> LinExpr {
        self.plus(&other.scaled(&-Int::one()))
    }

    /// `-self`.
    pub fn negated(&self) -> LinExpr {
        self.scaled(&-Int::one())
    }

    /// Evaluates the expression at a point given by `value(var)`.
    pub fn eval(&self, value: impl Fn(Var) -> Rat) -> Rat {
        let mut acc = Rat::from_integer(self.constant.clone());
        for (v, c) in self.terms() {
            acc += value(v) * Rat::from_integer(c.clone());
        }
        acc
    }

    /// Replaces every dimension through `map`.
    pub fn rename(&self, map: impl Fn(Var) -> Var) -> LinExpr {
        let mut res = LinExpr::constant(self.constant.clone());
        for (v, c) in self.terms() {
            res.add_term(c.clone(), map(v));
        }
        res
    }

    /// Prints with the dimension names of `space`.
    pub fn display<'a>(&'a self, space: &'a Space) -> impl fmt::Display + 'a {
        DisplayExpr {
            expr: self,
            names: Some(space),
        }
    }
}

struct DisplayExpr<'a> {
    expr: &'a LinExpr,
    names: Option<&'a Space>,
}

impl fmt::Display for DisplayExpr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for (v, c) in self.expr.terms() {
            let name = match self.names {
                Some(space) if v.index() < space.dim() => space.name(v).to_string(),
                _ => v.to_string(),
            };
            let mag = c.abs();
            let sign = if c.is_negative() { "-" } else { "+" };
            if first {
                if c.is_negative() {
                    write!(f, "-")?;
                }
            } else {
                write!(f, " {sign} ")?;
            }
            if mag.is_one() {
                write!(f, "{name}")?;
            } else {
                write!(f, "{mag}*{name}")?;
            }
            first = false;
        }
        let c = &self.expr.constant;
        if first {
            write!(f, "{c}")?;
        } else if !c.is_zero() {
            let sign = if c.is_negative() { "-" } else { "+" };
            write!(f, " {sign} {}", c.abs())?;
        }
        Ok(())
    }
}

impl fmt::Display for LinExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        DisplayExpr {
            expr: self,
            names: None,
        }
        .fmt(f)
    }
}

/// The relation of a [`LinCons`]'s expression to zero.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum ConsKind {
    /// `e = 0`.
    Eq,
    /// `e ≥ 0`.
    Ge,
}

/// A linear constraint `expr = 0` or `expr ≥ 0`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct LinCons {
    /// The left-hand side.
    pub expr: LinExpr,
    /// Its relation to zero.
    pub kind: ConsKind,
}

impl LinCons {
    /// `a ≥ b`.
    pub fn ge(a: &LinExpr, b: &LinExpr) -> LinCons {
        LinCons {
            expr: a.minus(b),
            kind: ConsKind::Ge,
        }
    }

    /// `a ≤ b`.
    pub fn le(a: &LinExpr, b: &LinExpr) -> LinCons {
        LinCons::ge(b, a)
    }

    /// `a = b`.
    pub fn eq(a: &LinExpr, b: &LinExpr) -> LinCons {
        LinCons {
            expr: a.minus(b),
            kind: ConsKind::Eq,
        }
    }

    /// The negation of an inequality over the integers: `¬(e ≥ 0)` is `-e - 1 ≥ 0`.
    ///
    /// Only for inequalities: the negation of an equality is not one constraint (callers
    /// split it into its two halves first).
    pub fn negate(&self) -> LinCons {
        debug_assert_eq!(
            self.kind,
            ConsKind::Ge,
            "the negation of an equality is not convex"
        );
        let mut expr = self.expr.negated();
        expr.add_constant(-1);
        LinCons {
            expr,
            kind: ConsKind::Ge,
        }
    }

    /// `a < b` over integers, i.e. `b - a - 1 ≥ 0`.
    pub fn lt_int(a: &LinExpr, b: &LinExpr) -> LinCons {
        let mut expr = b.minus(a);
        expr.add_constant(-1);
        LinCons {
            expr,
            kind: ConsKind::Ge,
        }
    }

    /// True when the constraint mentions no dimension.
    pub fn is_constant(&self) -> bool {
        self.expr.is_constant()
    }

    /// For a constant constraint, whether it holds.
    pub fn constant_truth(&self) -> Option<bool> {
        if !self.is_constant() {
            return None;
        }
        let c = self.expr.constant_part();
        Some(match self.kind {
            ConsKind::Eq => c.is_zero(),
            ConsKind::Ge => !c.is_negative(),
        })
    }

    /// Whether the constraint holds at a point.
    pub fn holds_at(&self, value: impl Fn(Var) -> Rat) -> bool {
        let v = self.expr.eval(value);
        match self.kind {
            ConsKind::Eq => v.is_zero(),
            ConsKind::Ge => !v.is_negative(),
        }
    }

    /// Prints as a C-like relation with the names of `space`, e.g. `x - y <= 3`.
    pub fn display<'a>(&'a self, space: &'a Space) -> impl fmt::Display + 'a {
        DisplayCons {
            cons: self,
            names: Some(space),
        }
    }
}

struct DisplayCons<'a> {
    cons: &'a LinCons,
    names: Option<&'a Space>,
}

impl fmt::Display for DisplayCons<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Move the constant to the right and print `lhs op rhs`, choosing the orientation that
        // keeps the leading coefficient positive so that `-x >= -5` reads `x <= 5`.
        let mut lhs = self.cons.expr.clone();
        let rhs = -lhs.constant_part().clone();
        lhs.constant = Int::zero();
        let leading_negative = lhs
            .terms()
            .next()
            .map(|(_, c)| c.is_negative())
            .unwrap_or(false);
        let (lhs, rhs, op) = match (self.cons.kind, leading_negative) {
            (ConsKind::Eq, false) => (lhs, rhs, "=="),
            (ConsKind::Eq, true) => (lhs.negated(), -rhs, "=="),
            (ConsKind::Ge, false) => (lhs, rhs, ">="),
            (ConsKind::Ge, true) => (lhs.negated(), -rhs, "<="),
        };
        let shown = DisplayExpr {
            expr: &lhs,
            names: self.names,
        };
        write!(f, "{shown} {op} {rhs}")
    }
}

impl fmt::Display for LinCons {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        DisplayCons {
            cons: self,
            names: None,
        }
        .fmt(f)
    }
}

/// A possibly unbounded interval of rationals; `lo > hi` never occurs (bottom is `None` at
/// the call sites that need it).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Interval {
    /// Lower bound, `None` for −∞.
    pub lo: Option<Rat>,
    /// Upper bound, `None` for +∞.
    pub hi: Option<Rat>,
}

impl Interval {
    /// (−∞, +∞).
    pub fn top() -> Interval {
        Interval { lo: None, hi: None }
    }

    /// `[c, c]`.
    pub fn point(c: Rat) -> Interval {
        Interval {
            lo: Some(c.clone()),
            hi: Some(c),
        }
    }

    /// `[lo, hi]` of integers.
    pub fn ints(lo: impl Into<Int>, hi: impl Into<Int>) -> Interval {
        Interval {
            lo: Some(Rat::from_integer(lo.into())),
            hi: Some(Rat::from_integer(hi.into())),
        }
    }

    /// True when neither bound is finite.
    pub fn is_top(&self) -> bool {
        self.lo.is_none() && self.hi.is_none()
    }

    /// The single value, when the interval is a point.
    pub fn as_point(&self) -> Option<&Rat> {
        match (&self.lo, &self.hi) {
            (Some(a), Some(b)) if a == b => Some(a),
            _ => None,
        }
    }

    /// Whether `x` lies inside.
    pub fn contains(&self, x: &Rat) -> bool {
        self.lo.as_ref().map_or(true, |l| l <= x) && self.hi.as_ref().map_or(true, |h| x <= h)
    }

    /// The integer hull: bounds rounded inwards (ceil of lo, floor of hi).
    pub fn int_hull(&self) -> (Option<Int>, Option<Int>) {
        (
            self.lo.as_ref().map(|l| l.ceil().to_integer()),
            self.hi.as_ref().map(|h| h.floor().to_integer()),
        )
    }
}

impl fmt::Display for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.lo {
            Some(l) => write!(f, "[{l}")?,
            None => write!(f, "(-oo")?,
        }
        match &self.hi {
            Some(h) => write!(f, ", {h}]"),
            None => write!(f, ", +oo)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constraint_prints_with_positive_leading_coefficient() {
        let space = Space::named(vec!["x".into(), "y".into()]);
        let c = LinCons::le(&LinExpr::var(Var(0)), &LinExpr::constant(5));
        assert_eq!(c.display(&space).to_string(), "x <= 5");
        let mut e = LinExpr::var(Var(0));
        e.add_term(-2, Var(1));
        e.add_constant(3);
        let c = LinCons {
            expr: e,
            kind: ConsKind::Ge,
        };
        assert_eq!(c.display(&space).to_string(), "x - 2*y >= -3");
    }

    #[test]
    fn negation_over_the_integers_is_the_complement_and_an_involution() {
        // x - 3 >= 0 (x >= 3); its negation is -x + 2 >= 0 (x <= 2).
        let mut e = LinExpr::var(Var(0));
        e.add_constant(-3);
        let c = LinCons {
            expr: e,
            kind: ConsKind::Ge,
        };
        let n = c.negate();
        assert_eq!(n, LinCons::le(&LinExpr::var(Var(0)), &LinExpr::constant(2)));
        assert_eq!(n.negate(), c);
    }
}
