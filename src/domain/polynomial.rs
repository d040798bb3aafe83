//! Polynomials with integer coefficients over dimensions, and the linear algebra that finds
//! polynomial equalities: linear dependencies between polynomials, by exact Gaussian
//! elimination over the rationals.
//!
//! A [`Polynomial`] is `Σ cₘ·m` over [`Monomial`]s `m = Π xᵢ^eᵢ`, with nonzero integer
//! coefficients (a canonical form: two polynomials are equal as elements of ℤ[x] exactly
//! when their term maps are equal). Which dimension means what is the caller's business; a
//! caller may use dimensions past the state's ones as fresh unknowns.
//!
//! The one primitive of the linear algebra is [`dependencies`]: the vectors `c` with
//! `Σ cᵢ·pᵢ = 0` identically, a basis of the nullspace of the matrix whose column `i` holds
//! the coefficients of `pᵢ` (one row per monomial). Conditions "`P(f(x)) - P(x)` is zero as a
//! polynomial", for a template `P = Σ aₘ·m` with unknown `aₘ`, are such dependencies
//! (Rodríguez-Carbonell & Kapur, "Generating all polynomial invariants in simple loops").

use super::linear::{Int, Rat, Var};
use num_integer::Integer;
use num_traits::{One, Signed, Zero};
use std::collections::BTreeMap;
use std::fmt;

/// `Π xᵢ^eᵢ`: the variables in increasing order, each with a positive exponent. The empty
/// product is the monomial `1`.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct Monomial(Vec<(Var, u32)>);

impl Monomial {
    /// The monomial `1`.
    pub fn one() -> Monomial {
        Monomial(Vec::new())
    }

    /// The monomial `x`.
    pub fn var(x: Var) -> Monomial {
        Monomial(vec![(x, 1)])
    }

    /// Its total degree.
    pub fn degree(&self) -> u32 {
        self.0.iter().map(|(_, e)| e).sum()
    }

    /// Its variables with their exponents, in increasing order of variables.
    pub fn powers(&self) -> &[(Var, u32)] {
        &self.0
    }

    /// The product of two monomials.
    pub fn times(&self, other: &Monomial) -> Monomial {
        let mut acc: BTreeMap<Var, u32> = self.0.iter().copied().collect();
        for (x, e) in &other.0 {
            *acc.entry(*x).or_insert(0) += e;
        }
        Monomial(acc.into_iter().collect())
    }

    /// Every monomial over `vars` of total degree at most `degree`, `1` first, then by
    /// increasing degree.
    pub fn all_up_to(vars: &[Var], degree: u32) -> Vec<Monomial> {
        let mut layers = vec![vec![Monomial::one()]];
        for d in 1..=degree {
            // Degree-d monomials: each degree-(d-1) one times a variable not smaller than its
            // largest, so that each appears once.
            let mut next = Vec::new();
            for m in &layers[d as usize - 1] {
                let last = m.0.last().map(|(x, _)| *x);
                for x in vars.iter().filter(|x| last.is_none_or(|l| **x >= l)) {
                    next.push(m.times(&Monomial::var(*x)));
                }
            }
            layers.push(next);
        }
        layers.into_iter().flatten().collect()
    }

    /// The number of monomials over `n_vars` variables of degree at most `degree`:
    /// `C(n_vars + degree, degree)`, saturating.
    pub fn count_up_to(n_vars: usize, degree: u32) -> usize {
        let mut acc: usize = 1;
        for i in 1..=degree as usize {
            acc = acc.saturating_mul(n_vars + i) / i;
        }
        acc
    }
}

/// `Σ cₘ·m` with integer coefficients, none zero.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Polynomial {
    terms: BTreeMap<Monomial, Int>,
}

impl Polynomial {
    /// The zero polynomial.
    pub fn zero() -> Polynomial {
        Polynomial::default()
    }

    /// A constant.
    pub fn constant(c: impl Into<Int>) -> Polynomial {
        Polynomial::term(c, Monomial::one())
    }

    /// The polynomial `x`.
    pub fn var(x: Var) -> Polynomial {
        Polynomial::term(1, Monomial::var(x))
    }

    /// `c·m`.
    pub fn term(c: impl Into<Int>, m: Monomial) -> Polynomial {
        let c = c.into();
        let mut terms = BTreeMap::new();
        if !c.is_zero() {
            terms.insert(m, c);
        }
        Polynomial { terms }
    }

    /// True for the zero polynomial.
    pub fn is_zero(&self) -> bool {
        self.terms.is_empty()
    }

    /// The number of terms.
    pub fn n_terms(&self) -> usize {
        self.terms.len()
    }

    /// Its terms, in increasing order of monomials.
    pub fn terms(&self) -> impl Iterator<Item = (&Monomial, &Int)> + '_ {
        self.terms.iter()
    }

    /// Its total degree (0 for zero).
    pub fn degree(&self) -> u32 {
        self.terms.keys().map(Monomial::degree).max().unwrap_or(0)
    }

    /// The variables it mentions.
    pub fn vars(&self) -> Vec<Var> {
        let mut vs: Vec<Var> = self
            .terms
            .keys()
            .flat_map(|m| m.0.iter().map(|(x, _)| *x))
            .collect();
        vs.sort();
        vs.dedup();
        vs
    }

    fn add_term(&mut self, m: Monomial, c: Int) {
        if c.is_zero() {
            return;
        }
        let slot = self.terms.entry(m).or_insert_with(Int::zero);
        *slot += c;
        if slot.is_zero() {
            self.terms.retain(|_, c| !c.is_zero());
        }
    }

    /// `self + other`.
    pub fn plus(&self, other: &Polynomial) -> Polynomial {
        let mut acc = self.clone();
        for (m, c) in &other.terms {
            acc.add_term(m.clone(), c.clone());
        }
        acc
    }

    /// `self - other`.
    pub fn minus(&self, other: &Polynomial) -> Polynomial {
        self.plus(&other.scaled(&-Int::one()))
    }

    /// `k·self`.
    pub fn scaled(&self, k: &Int) -> Polynomial {
        if k.is_zero() {
            return Polynomial::zero();
        }
        Polynomial {
            terms: self.terms.iter().map(|(m, c)| (m.clone(), c * k)).collect(),
        }
    }

    /// `self · other`.
    pub fn times(&self, other: &Polynomial) -> Polynomial {
        let mut acc = Polynomial::zero();
        for (m1, c1) in &self.terms {
            for (m2, c2) in &other.terms {
                acc.add_term(m1.times(m2), c1 * c2);
            }
        }
        acc
    }

    /// `self^e`.
    pub fn pow(&self, e: u32) -> Polynomial {
        let mut acc = Polynomial::constant(1);
        for _ in 0..e {
            acc = acc.times(self);
        }
        acc
    }

    /// The composition `self(f(x))`: each variable `x` replaced by `f(x)`. `None` when an
    /// intermediate result would have more than `max_terms` terms.
    pub fn compose(&self, f: &dyn Fn(Var) -> Polynomial, max_terms: usize) -> Option<Polynomial> {
        let mut powers: BTreeMap<(Var, u32), Polynomial> = BTreeMap::new();
        let mut acc = Polynomial::zero();
        for (m, c) in &self.terms {
            let mut product = Polynomial::constant(c.clone());
            for (x, e) in &m.0 {
                let p = match powers.get(&(*x, *e)) {
                    Some(p) => p.clone(),
                    None => {
                        let p = f(*x).pow(*e);
                        powers.insert((*x, *e), p.clone());
                        p
                    }
                };
                product = product.times(&p);
                if product.n_terms() > max_terms {
                    return None;
                }
            }
            acc = acc.plus(&product);
            if acc.n_terms() > max_terms {
                return None;
            }
        }
        Some(acc)
    }

    /// Its value at a point.
    pub fn eval(&self, value: &dyn Fn(Var) -> Int) -> Int {
        self.terms
            .iter()
            .map(|(m, c)| {
                m.0.iter().fold(c.clone(), |acc, (x, e)| {
                    acc * num_traits::pow(value(*x), *e as usize)
                })
            })
            .sum()
    }

    /// The same equality `self = 0` with coprime coefficients and a positive leading one.
    pub fn normalized(&self) -> Polynomial {
        let g = self.terms.values().fold(Int::zero(), |g, c| g.gcd(c));
        if g.is_zero() {
            return Polynomial::zero();
        }
        let sign = match self.terms.values().next_back() {
            Some(c) if c.is_negative() => -Int::one(),
            _ => Int::one(),
        };
        let k = g * sign;
        Polynomial {
            terms: self
                .terms
                .iter()
                .map(|(m, c)| (m.clone(), c / &k))
                .collect(),
        }
    }

    /// Displays it with a name for each variable.
    pub fn display<'a>(&'a self, name: &'a dyn Fn(Var) -> String) -> impl fmt::Display + 'a {
        DisplayPoly { poly: self, name }
    }
}

struct DisplayPoly<'a> {
    poly: &'a Polynomial,
    name: &'a dyn Fn(Var) -> String,
}

impl fmt::Display for DisplayPoly<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.poly.is_zero() {
            return f.write_str("0");
        }
        for (i, (m, c)) in self.poly.terms.iter().rev().enumerate() {
            let mag = c.abs();
            match (i, c.is_negative()) {
                (0, true) => f.write_str("-")?,
                (0, false) => {}
                (_, true) => f.write_str(" - ")?,
                (_, false) => f.write_str(" + ")?,
            }
            let unit = mag.is_one() && !m.0.is_empty();
            if !unit {
                write!(f, "{mag}")?;
            }
            for (j, (x, e)) in m.0.iter().enumerate() {
                if j > 0 || !unit {
                    f.write_str("*")?;
                }
                f.write_str(&(self.name)(*x))?;
                if *e > 1 {
                    write!(f, "^{e}")?;
                }
            }
        }
        Ok(())
    }
}

/// A basis of the linear dependencies of `columns`: vectors `c`, with integer entries, such
/// that `Σ cᵢ·columns[i]` is the zero polynomial, spanning all such vectors.
pub fn dependencies(columns: &[Polynomial]) -> Vec<Vec<Int>> {
    dependencies_until(columns, &|| false).expect("never stopped")
}

/// [`dependencies`], or `None` when `stop` says so (asked between rows of the elimination,
/// which is where the time goes on large templates).
pub fn dependencies_until(
    columns: &[Polynomial],
    stop: &dyn Fn() -> bool,
) -> Option<Vec<Vec<Int>>> {
    // Rows: one per monomial, sparse over the columns.
    let mut rows: BTreeMap<&Monomial, BTreeMap<usize, Rat>> = BTreeMap::new();
    for (j, p) in columns.iter().enumerate() {
        for (m, c) in &p.terms {
            rows.entry(m)
                .or_default()
                .insert(j, Rat::from_integer(c.clone()));
        }
    }
    let rows: Vec<BTreeMap<usize, Rat>> = rows.into_values().collect();
    nullspace(rows, columns.len(), stop)
}

/// A basis of `{c : row·c = 0 for every row}` for sparse rational rows over `n_cols`
/// columns, each basis vector with coprime integer entries.
fn nullspace(
    mut rows: Vec<BTreeMap<usize, Rat>>,
    n_cols: usize,
    stop: &dyn Fn() -> bool,
) -> Option<Vec<Vec<Int>>> {
    // Reduced row echelon form: pivot rows by pivot column, each pivot 1 and the pivot
    // column zero in every other pivot row.
    let mut pivots: BTreeMap<usize, BTreeMap<usize, Rat>> = BTreeMap::new();
    for mut row in rows.drain(..) {
        if stop() {
            return None;
        }
        // The stage's budget of work counts a row's reduction by each pivot, a step each
        // (exact rationals: far more than an adjacency test).
        super::stop::charge(super::stop::Work::Step, pivots.len() as u64 + 1);
        // Reduce by the existing pivots.
        for (pc, prow) in &pivots {
            if let Some(k) = row.get(pc).cloned() {
                subtract_scaled(&mut row, prow, &k);
            }
        }
        let Some((&pc, lead)) = row.iter().next() else {
            continue;
        };
        let inv = lead.recip();
        for c in row.values_mut() {
            *c *= &inv;
        }
        // Eliminate the new pivot column from the other pivot rows.
        for prow in pivots.values_mut() {
            if let Some(k) = prow.get(&pc).cloned() {
                subtract_scaled(prow, &row, &k);
            }
        }
        pivots.insert(pc, row);
    }
    let mut basis = Vec::new();
    for free in (0..n_cols).filter(|c| !pivots.contains_key(c)) {
        let mut v = vec![Rat::zero(); n_cols];
        v[free] = Rat::one();
        for (pc, prow) in &pivots {
            if let Some(k) = prow.get(&free) {
                v[*pc] = -k.clone();
            }
        }
        basis.push(integer_vector(&v));
    }
    Some(basis)
}

/// `row -= k·other`, dropping zeros.
fn subtract_scaled(row: &mut BTreeMap<usize, Rat>, other: &BTreeMap<usize, Rat>, k: &Rat) {
    for (c, x) in other {
        let slot = row.entry(*c).or_insert_with(Rat::zero);
        *slot -= k * x;
    }
    row.retain(|_, x| !x.is_zero());
}

/// The integer vector with coprime entries on the same line as `v`.
fn integer_vector(v: &[Rat]) -> Vec<Int> {
    let l = v.iter().fold(Int::one(), |l, x| l.lcm(x.denom()));
    let ints: Vec<Int> = v.iter().map(|x| (x * &l).to_integer()).collect();
    let g = ints.iter().fold(Int::zero(), |g, x| g.gcd(x));
    if g.is_zero() || g.is_one() {
        return ints;
    }
    ints.into_iter().map(|x| x / &g).collect()
}

/// A basis of the span of `polys`: independent polynomials, normalized, spanning the same
/// space (in echelon form: distinct leading monomials, leading by degree first). Because
/// the order is graded, the elements of degree at most `k` are a basis of the polynomials
/// of degree at most `k` in the span: a low-degree equality is never hidden in
/// combinations of higher-degree ones (which [`ideal_generators`] could then not shorten).
pub fn span_basis(polys: &[Polynomial]) -> Vec<Polynomial> {
    let mut basis: Vec<(Monomial, Polynomial)> = Vec::new();
    for p in polys {
        let mut p = p.clone();
        // Reduce the leading monomial by the basis until it is new (or p vanishes).
        loop {
            let Some((lead, c)) = p
                .terms
                .iter()
                .max_by(|(a, _), (b, _)| (a.degree(), *a).cmp(&(b.degree(), *b)))
                .map(|(m, c)| (m.clone(), c.clone()))
            else {
                break;
            };
            match basis.iter().find(|(l, _)| *l == lead) {
                Some((_, b)) => {
                    let bc = b.terms[&lead].clone();
                    // p := bc·p - c·b cancels the leading term, with integers.
                    p = p.scaled(&bc).minus(&b.scaled(&c)).normalized();
                }
                None => {
                    basis.push((lead, p.normalized()));
                    break;
                }
            }
        }
    }
    basis.into_iter().map(|(_, p)| p).collect()
}

/// A shorter generating set of the same equalities: the elements of `basis` (a space of
/// polynomials of degree at most `degree` over `vars`) that are not combinations of
/// monomial multiples (within the degree) of the ones kept before them, lowest degree first.
/// Every dropped `p` is `Σ mᵢ·qᵢ` with kept `qᵢ`, so `q = 0` for all kept `q` implies `p = 0`.
pub fn ideal_generators(basis: &[Polynomial], vars: &[Var], degree: u32) -> Vec<Polynomial> {
    let mut sorted: Vec<&Polynomial> = basis.iter().collect();
    sorted.sort_by_key(|p| (p.degree(), p.n_terms()));
    let mut kept: Vec<Polynomial> = Vec::new();
    let mut multiples: Vec<Polynomial> = Vec::new();
    for p in sorted {
        let mut columns = vec![p.clone()];
        columns.extend(multiples.iter().cloned());
        let implied = dependencies(&columns).iter().any(|c| !c[0].is_zero());
        if implied {
            continue;
        }
        let room = degree.saturating_sub(p.degree());
        for m in Monomial::all_up_to(vars, room) {
            multiples.push(p.times(&Polynomial::term(1, m)));
        }
        kept.push(p.clone());
    }
    kept
}

/// Equalities with the same integer solutions as `gens`, simpler for a solver: each
/// generator `±x + r` where `x` occurs only in that monomial (a definition of `x`) is
/// substituted into the others (`q(…, x, …) = 0` becomes `q(…, ∓r, …) = 0`, which differs
/// from `q` by a multiple of the definition), then the result is reduced again with
/// [`ideal_generators`].
pub fn simplify_generators(gens: &[Polynomial], vars: &[Var], degree: u32) -> Vec<Polynomial> {
    let mut gens: Vec<Polynomial> = gens.to_vec();
    let mut done: Vec<Var> = Vec::new();
    loop {
        let definition = gens.iter().enumerate().find_map(|(i, g)| {
            g.vars().into_iter().find_map(|x| {
                if done.contains(&x) {
                    return None;
                }
                let mut unit = None;
                for (m, c) in g.terms() {
                    let e = m.0.iter().find(|(y, _)| *y == x).map(|(_, e)| *e);
                    match e {
                        None => {}
                        Some(1) if m.0.len() == 1 && c.abs().is_one() && unit.is_none() => {
                            unit = Some(c.clone())
                        }
                        Some(_) => return None,
                    }
                }
                unit.map(|c| (i, x, c))
            })
        });
        let Some((i, x, c)) = definition else { break };
        done.push(x);
        // x = -(g - c·x)/c = -c·(g - c·x), since c = ±1.
        let rest = gens[i].minus(&Polynomial::term(c.clone(), Monomial::var(x)));
        let value = rest.scaled(&-c);
        for (j, g) in gens.iter_mut().enumerate() {
            if j == i {
                continue;
            }
            let substituted = g.compose(
                &|y| {
                    if y == x {
                        value.clone()
                    } else {
                        Polynomial::var(y)
                    }
                },
                usize::MAX,
            );
            if let Some(q) = substituted {
                *g = q.normalized();
            }
        }
        gens.retain(|g| !g.is_zero());
    }
    ideal_generators(&span_basis(&gens), vars, degree)
}

/// True when `p` is a combination `Σ mᵢ·gᵢ` of monomial multiples over `vars` of the
/// generators, of degree at most one more than the largest of `p`, the generators and
/// `degree`: then `g = 0` for every generator
/// implies `p = 0`. False says nothing (the ideal is truncated, or this thread's stop
/// instant, [`super::stop`], ended the elimination).
pub fn in_ideal(p: &Polynomial, gens: &[Polynomial], vars: &[Var], degree: u32) -> bool {
    if p.is_zero() {
        return true;
    }
    // One degree above the largest of p and the generators: enough for `y·z` against
    // definitions of `y` and `z` by polynomials of another variable.
    let top = gens.iter().map(Polynomial::degree).max().unwrap_or(0);
    let cap = degree.max(p.degree()).max(top) + 1;
    let mut columns = vec![p.clone()];
    for g in gens {
        for m in Monomial::all_up_to(vars, cap.saturating_sub(g.degree())) {
            columns.push(g.times(&Polynomial::term(1, m)));
        }
        if super::stop::reached() {
            return false;
        }
    }
    // Stopped at the stage's end: not shown to be in the ideal (what callers assume of a
    // polynomial they know nothing about).
    dependencies_until(&columns, &super::stop::reached)
        .is_some_and(|deps| deps.iter().any(|c| !c[0].is_zero()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn x(i: u32) -> Polynomial {
        Polynomial::var(Var(i))
    }

    #[test]
    fn counts_monomials() {
        let vars = [Var(0), Var(1), Var(2)];
        for d in 0..5 {
            assert_eq!(
                Monomial::all_up_to(&vars, d).len(),
                Monomial::count_up_to(3, d)
            );
        }
    }

    #[test]
    fn composes() {
        // (x0 + 1)^2 under x0 := x1 - 1 is x1^2.
        let p = x(0).plus(&Polynomial::constant(1)).pow(2);
        let q = p
            .compose(
                &|v| {
                    if v == Var(0) {
                        x(1).minus(&Polynomial::constant(1))
                    } else {
                        x(v.0)
                    }
                },
                100,
            )
            .unwrap();
        assert_eq!(q, x(1).pow(2));
    }

    #[test]
    fn finds_the_gauss_sum_invariant() {
        // Loop: y := y + 1; x := x + y (from y = x = 0). Template over 1, x, y, y^2, xy, x^2:
        // P(f) - P must vanish; the invariant is y^2 + y - 2x.
        let (xv, yv) = (Var(0), Var(1));
        let ms = Monomial::all_up_to(&[xv, yv], 2);
        let f = |v: Var| {
            if v == xv {
                x(0).plus(&x(1)).plus(&Polynomial::constant(1))
            } else {
                x(1).plus(&Polynomial::constant(1))
            }
        };
        let columns: Vec<Polynomial> = ms
            .iter()
            .map(|m| {
                let p = Polynomial::term(1, m.clone());
                p.compose(&f, 1000).unwrap().minus(&p)
            })
            .collect();
        let deps = dependencies(&columns);
        // Constants are preserved, so `1` is one dependency; the other is the invariant.
        let polys: Vec<Polynomial> = deps
            .iter()
            .map(|c| {
                ms.iter().zip(c).fold(Polynomial::zero(), |acc, (m, k)| {
                    acc.plus(&Polynomial::term(k.clone(), m.clone()))
                })
            })
            .collect();
        let basis = span_basis(&polys);
        let want = x(1)
            .pow(2)
            .plus(&x(1))
            .minus(&x(0).scaled(&Int::from(2)))
            .normalized();
        assert!(basis.contains(&want), "{basis:?}");
        assert_eq!(basis.len(), 2);
    }

    #[test]
    fn nullspace_of_independent_columns_is_empty() {
        assert!(dependencies(&[x(0), x(1), x(0).times(&x(1))]).is_empty());
        assert_eq!(
            dependencies(&[x(0), x(0).scaled(&Int::from(3))]),
            vec![vec![Int::from(-3), Int::from(1)]]
        );
    }
}
