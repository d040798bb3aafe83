//! Affine lattices of ℤⁿ (Granger's linear congruence equalities): the sets
//! `{ b + Σ kᵢ·gᵢ | kᵢ ∈ ℤ }`, and the empty set.
//!
//! Such a set is also the solution set of a system of linear congruences
//! `a·x ≡ c (mod m)`, `m = 0` being an equality: `x = y` (`x - y ≡ 0 mod 0`), `z` odd
//! (`z ≡ 1 mod 2`), two unsigned counters equal modulo `2^32`. The generator form is what
//! joins are computed in (the lattice spanned by the points seen), the constraint form what
//! a solver is given ([`AffineLattice::constraints`], from a Smith diagonalization).
//!
//! The lattice of subgroups of ℤⁿ has no infinite ascending chain (ℤⁿ is Noetherian): each
//! strict growth raises the rank or divides the index, so a fixpoint by joins of points
//! ends (the caller still caps the number of points).

use super::Int;
use num_integer::Integer;
use num_traits::{One, Signed, Zero};
use std::fmt;

/// A set `base + span_ℤ(generators)` of integer points of a fixed dimension, or empty.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct AffineLattice {
    dim: usize,
    /// `None`: the empty set.
    base: Option<Vec<Int>>,
    /// The generators in row Hermite normal form: each row's first non-zero entry (its
    /// pivot) is positive and lies right of the previous row's; entries above a pivot are
    /// reduced modulo it.
    rows: Vec<Vec<Int>>,
}

/// One linear congruence `Σ coefs[i]·x[i] ≡ residue (mod modulus)`; `modulus == 0` is an
/// equality. Coefficients and residue are reduced modulo a positive modulus.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct LinearCongruence {
    /// One coefficient per dimension.
    pub coefs: Vec<Int>,
    /// The right-hand side.
    pub residue: Int,
    /// `0` for an equality, otherwise at least 2.
    pub modulus: Int,
}

impl LinearCongruence {
    /// Whether `x` satisfies it.
    pub fn holds(&self, x: &[Int]) -> bool {
        let lhs: Int = self.coefs.iter().zip(x).map(|(a, v)| a * v).sum();
        let d = lhs - &self.residue;
        if self.modulus.is_zero() {
            d.is_zero()
        } else {
            d.mod_floor(&self.modulus).is_zero()
        }
    }
}

impl AffineLattice {
    /// The empty set of dimension `dim`.
    pub fn bottom(dim: usize) -> AffineLattice {
        AffineLattice {
            dim,
            base: None,
            rows: Vec::new(),
        }
    }

    /// Every integer point of dimension `dim`.
    pub fn top(dim: usize) -> AffineLattice {
        let rows = (0..dim)
            .map(|i| (0..dim).map(|j| Int::from((i == j) as u8)).collect())
            .collect();
        AffineLattice {
            dim,
            base: Some(vec![Int::zero(); dim]),
            rows,
        }
    }

    /// The number of dimensions.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Whether the set is empty.
    pub fn is_bottom(&self) -> bool {
        self.base.is_none()
    }

    /// Whether the set is every point.
    pub fn is_top(&self) -> bool {
        self.base.is_some()
            && self.rows.len() == self.dim
            && self
                .rows
                .iter()
                .all(|r| r.iter().filter(|v| !v.is_zero()).all(|v| v.is_one()))
            && self.rows.iter().enumerate().all(|(i, r)| r[i].is_one())
    }

    /// Whether `x` belongs to the set.
    pub fn contains(&self, x: &[Int]) -> bool {
        let Some(base) = &self.base else {
            return false;
        };
        let mut v: Vec<Int> = x.iter().zip(base).map(|(a, b)| a - b).collect();
        for row in &self.rows {
            let p = pivot(row).expect("rows are non-zero");
            let (q, r) = v[p].div_mod_floor(&row[p]);
            if !r.is_zero() {
                return false;
            }
            if !q.is_zero() {
                for (vi, ri) in v.iter_mut().zip(row) {
                    *vi -= &q * ri;
                }
            }
        }
        v.iter().all(|e| e.is_zero())
    }

    /// Adds the point `x` (the least lattice containing both); whether the set grew.
    pub fn join_point(&mut self, x: &[Int]) -> bool {
        assert_eq!(x.len(), self.dim, "a point of the lattice's dimension");
        if self.contains(x) {
            return false;
        }
        match &self.base {
            None => self.base = Some(x.to_vec()),
            Some(base) => {
                let d: Vec<Int> = x.iter().zip(base).map(|(a, b)| a - b).collect();
                self.rows.push(d);
                self.rows = hermite(std::mem::take(&mut self.rows), self.dim);
            }
        }
        true
    }

    /// The least lattice containing both.
    pub fn join(&self, other: &AffineLattice) -> AffineLattice {
        let mut out = self.clone();
        if let Some(base) = &other.base {
            out.join_point(base);
            for row in &other.rows {
                let x: Vec<Int> = base.iter().zip(row).map(|(a, r)| a + r).collect();
                out.join_point(&x);
            }
        }
        out
    }

    /// The set as a system of linear congruences (none for every point; `None` for the
    /// empty set). From a diagonalization `G·V = D` of the generator matrix by integer row
    /// operations and unimodular column operations `V`: a point `x` is in the set iff each
    /// `(x - base)·V[:, i]` is a multiple of `D[i][i]` (zero past the rank).
    ///
    /// The system may be weaker than the set, never stronger: when an entry of the
    /// diagonalization grows past [`MAX_BITS`] bits it is given up and no constraint is
    /// returned (every point). The naive elimination's entries can grow exponentially with
    /// the dimension (a brotli function with a few hundred values spent minutes in one
    /// diagonalization, past every deadline), and callers only need what holds.
    pub fn constraints(&self) -> Option<Vec<LinearCongruence>> {
        let base = self.base.as_ref()?;
        let n = self.dim;
        let mut a = self.rows.clone();
        let mut v: Vec<Vec<Int>> = (0..n)
            .map(|i| (0..n).map(|j| Int::from((i == j) as u8)).collect())
            .collect();
        let Some(diag) = diagonalize(&mut a, &mut v, n) else {
            return Some(vec![]);
        };
        let mut out = Vec::new();
        for i in 0..n {
            let modulus = diag.get(i).cloned().unwrap_or_else(Int::zero).abs();
            if modulus.is_one() {
                continue;
            }
            let mut coefs: Vec<Int> = (0..n).map(|r| v[r][i].clone()).collect();
            if modulus.is_zero() {
                let g = coefs.iter().fold(Int::zero(), |g, c| g.gcd(c));
                if !g.is_zero() && !g.is_one() {
                    coefs.iter_mut().for_each(|c| *c = &*c / &g);
                }
                // A leading positive coefficient, for readable output.
                if coefs
                    .iter()
                    .find(|c| !c.is_zero())
                    .is_some_and(|c| c.is_negative())
                {
                    coefs.iter_mut().for_each(|c| *c = -&*c);
                }
            } else {
                coefs.iter_mut().for_each(|c| *c = c.mod_floor(&modulus));
                if coefs.iter().all(|c| c.is_zero()) {
                    continue;
                }
            }
            let rhs: Int = coefs.iter().zip(base).map(|(c, b)| c * b).sum();
            let residue = if modulus.is_zero() {
                rhs
            } else {
                rhs.mod_floor(&modulus)
            };
            out.push(LinearCongruence {
                coefs,
                residue,
                modulus,
            });
        }
        Some(out)
    }
}

fn pivot(row: &[Int]) -> Option<usize> {
    row.iter().position(|v| !v.is_zero())
}

/// The row Hermite normal form of the lattice spanned by `rows` (zero rows dropped).
fn hermite(mut rows: Vec<Vec<Int>>, n: usize) -> Vec<Vec<Int>> {
    let mut out: Vec<Vec<Int>> = Vec::new();
    for col in 0..n {
        // Euclid on the rows with a non-zero entry in `col`, all zero before it.
        loop {
            let mut with: Vec<usize> = (0..rows.len())
                .filter(|i| !rows[*i][col].is_zero())
                .collect();
            if with.is_empty() {
                break;
            }
            with.sort_by(|x, y| rows[*x][col].abs().cmp(&rows[*y][col].abs()));
            let p = with[0];
            if with.len() == 1 {
                let mut row = rows.swap_remove(p);
                if row[col].is_negative() {
                    row.iter_mut().for_each(|v| *v = -&*v);
                }
                out.push(row);
                break;
            }
            let prow = rows[p].clone();
            for &i in &with[1..] {
                let q = rows[i][col].div_floor(&prow[col]);
                for (vi, pi) in rows[i].iter_mut().zip(&prow) {
                    *vi -= &q * pi;
                }
            }
        }
        rows.retain(|r| r.iter().any(|v| !v.is_zero()));
    }
    // Reduce the entries above each pivot.
    for i in 0..out.len() {
        let p = pivot(&out[i]).expect("non-zero row");
        let prow = out[i].clone();
        for row in out.iter_mut().take(i) {
            let q = row[p].div_floor(&prow[p]);
            if !q.is_zero() {
                for (vi, pi) in row.iter_mut().zip(&prow) {
                    *vi -= &q * pi;
                }
            }
        }
    }
    out
}

/// The largest entry, in bits, that [`diagonalize`] carries on with: a guard against the
/// growth of coefficients in Smith diagonalization (past it, no constraint is kept).
pub const MAX_BITS: u64 = 512;

/// Diagonalizes `a` (rows × `n`) in place by integer row operations and column operations
/// recorded in `v` (`n × n`, unimodular); returns the diagonal, one entry per row kept, or
/// `None` when an entry of `a` or `v` grows past [`MAX_BITS`].
fn diagonalize(a: &mut [Vec<Int>], v: &mut [Vec<Int>], n: usize) -> Option<Vec<Int>> {
    let m = a.len();
    let mut diag = Vec::new();
    for t in 0..m.min(n) {
        // The smallest non-zero entry of the rest moves to (t, t).
        let mut best: Option<(usize, usize)> = None;
        for (i, row) in a.iter().enumerate().skip(t) {
            for (j, e) in row.iter().enumerate().skip(t) {
                if !e.is_zero() && best.is_none_or(|(bi, bj)| e.abs() < a[bi][bj].abs()) {
                    best = Some((i, j));
                }
            }
        }
        let Some((bi, bj)) = best else {
            break;
        };
        a.swap(t, bi);
        swap_cols(a, t, bj);
        swap_cols(v, t, bj);
        loop {
            let mut done = true;
            // Clear column t below the pivot by row operations.
            for i in t + 1..m {
                if a[i][t].is_zero() {
                    continue;
                }
                let q = a[i][t].div_floor(&a[t][t]);
                let pivot_row = a[t].clone();
                for (x, p) in a[i].iter_mut().zip(&pivot_row) {
                    *x -= &q * p;
                }
                if a[i].iter().any(|x| x.bits() > MAX_BITS) {
                    return None;
                }
                if !a[i][t].is_zero() {
                    a.swap(t, i);
                    done = false;
                }
            }
            // Clear row t right of the pivot by column operations.
            for j in t + 1..n {
                if a[t][j].is_zero() {
                    continue;
                }
                let q = a[t][j].div_floor(&a[t][t]);
                if add_col(a, j, t, &q) > MAX_BITS || add_col(v, j, t, &q) > MAX_BITS {
                    return None;
                }
                if !a[t][j].is_zero() {
                    swap_cols(a, t, j);
                    swap_cols(v, t, j);
                    done = false;
                }
            }
            if done {
                break;
            }
        }
        diag.push(a[t][t].clone());
    }
    Some(diag)
}

fn swap_cols(a: &mut [Vec<Int>], x: usize, y: usize) {
    if x != y {
        for row in a.iter_mut() {
            row.swap(x, y);
        }
    }
}

/// Column `j` -= `q` · column `t`; returns the largest new entry's size in bits.
fn add_col(a: &mut [Vec<Int>], j: usize, t: usize, q: &Int) -> u64 {
    let mut bits = 0;
    for row in a.iter_mut() {
        let d = q * &row[t];
        row[j] -= d;
        bits = bits.max(row[j].bits());
    }
    bits
}

impl fmt::Display for LinearCongruence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for (i, c) in self.coefs.iter().enumerate() {
            if c.is_zero() {
                continue;
            }
            if !first {
                f.write_str(" + ")?;
            }
            first = false;
            write!(f, "{c}·x{i}")?;
        }
        if first {
            f.write_str("0")?;
        }
        if self.modulus.is_zero() {
            write!(f, " = {}", self.residue)
        } else {
            write!(f, " ≡ {} mod {}", self.residue, self.modulus)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(xs: &[i64]) -> Vec<Int> {
        xs.iter().map(|x| Int::from(*x)).collect()
    }

    /// Every constraint holds of every point joined, and a point outside breaks one.
    fn check(l: &AffineLattice, inside: &[Vec<Int>], outside: &[Vec<Int>]) {
        let cs = l.constraints().expect("not empty");
        for x in inside {
            assert!(l.contains(x), "{x:?} in {l:?}");
            assert!(cs.iter().all(|c| c.holds(x)), "{x:?} satisfies {cs:?}");
        }
        for x in outside {
            assert!(!l.contains(x), "{x:?} not in {l:?}");
            assert!(cs.iter().any(|c| !c.holds(x)), "{x:?} breaks one of {cs:?}");
        }
    }

    #[test]
    fn equal_counters_and_parity() {
        // (x, y, z): x = y, z odd.
        let mut l = AffineLattice::bottom(3);
        let pts = [p(&[0, 0, 1]), p(&[1, 1, 1]), p(&[2, 2, 5]), p(&[0, 0, 3])];
        for x in &pts {
            l.join_point(x);
        }
        check(&l, &pts, &[p(&[1, 0, 1]), p(&[1, 1, 2]), p(&[3, 3, 0])]);
        let cs = l.constraints().expect("not empty");
        assert_eq!(cs.len(), 2, "{cs:?}");
    }

    #[test]
    fn equality_modulo_two_to_the_32() {
        // Two unsigned counters equal modulo 2^32, one wrapped.
        let w = Int::from(1u64 << 32);
        let mut l = AffineLattice::bottom(2);
        let pts = vec![p(&[0, 0]), p(&[1, 1]), vec![Int::zero(), w.clone()]];
        for x in &pts {
            l.join_point(x);
        }
        check(&l, &pts, &[p(&[0, 1]), vec![Int::from(1), w.clone()]]);
        let cs = l.constraints().expect("not empty");
        assert_eq!(cs.len(), 1);
        assert_eq!(cs[0].modulus, w);
    }

    #[test]
    fn random_lattices_agree_with_their_constraints() {
        // A small deterministic generator: every point of a box is in the lattice exactly
        // when it satisfies the constraints.
        let mut seed = 12345u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) % 13) as i64 - 6
        };
        for _ in 0..200 {
            let mut l = AffineLattice::bottom(3);
            let k = (next().rem_euclid(4)) as usize + 1;
            for _ in 0..k {
                let x = p(&[next(), next(), next()]);
                l.join_point(&x);
            }
            let cs = l.constraints().expect("not empty");
            for a in -3..=3 {
                for b in -3..=3 {
                    for c in -3..=3 {
                        let x = p(&[a, b, c]);
                        assert_eq!(
                            l.contains(&x),
                            cs.iter().all(|cn| cn.holds(&x)),
                            "{x:?} {l:?} {cs:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn large_lattices_give_constraints_that_hold() {
        // Many dimensions and 64-bit points: the elimination's numbers may outgrow
        // MAX_BITS, and then fewer constraints come back, but each holds of every point.
        let mut seed = 777u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            seed
        };
        let n = 48;
        let mut l = AffineLattice::bottom(n);
        let mut pts = Vec::new();
        for k in 0..n / 2 {
            let x: Vec<Int> = (0..n)
                .map(|i| match i % 3 {
                    0 => Int::from(next() >> 1),
                    1 => Int::from(k as i64 * i as i64),
                    _ => Int::from((next() % 7) as i64),
                })
                .collect();
            l.join_point(&x);
            pts.push(x);
        }
        let cs = l.constraints().expect("not empty");
        for x in &pts {
            assert!(cs.iter().all(|c| c.holds(x)), "a constraint breaks a point");
        }
    }

    #[test]
    fn top_and_bottom() {
        assert!(AffineLattice::top(2).is_top());
        assert_eq!(AffineLattice::top(2).constraints(), Some(vec![]));
        assert_eq!(AffineLattice::bottom(2).constraints(), None);
        let mut l = AffineLattice::bottom(2);
        l.join_point(&p(&[0, 0]));
        l.join_point(&p(&[1, 0]));
        l.join_point(&p(&[0, 1]));
        assert!(l.is_top());
    }
}
