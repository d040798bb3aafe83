//! One double-description polyhedron over `k` dimensions (a block of the decomposition).
//!
//! Rows have `k + 1` columns. A constraint row `[b, a₁…aₖ]` means `b + Σ aᵢxᵢ ⋈ 0`; a
//! generator row `[d, v₁…vₖ]` is a point `v/d` when `d > 0` and a ray (or line) when `d = 0`.
//! The constraint system may contain the positivity row `[1, 0…0]`, which only says the
//! cone lies in `x₀ ≥ 0` and is never shown to users.
//!
//! Invariant: when `minimal` holds, both systems are present, minimal and canonical
//! (equalities in reduced echelon form, inequalities reduced modulo them, gcd-normalized and
//! sorted), so that equal polyhedra have equal systems.

use super::bitset::BitSet;
use super::dd::{convert, echelon, numbered, reduce, simplify, Budget, Converted, Sys};
use super::num::{dot, dot_on, normalize, Coef, Row};
use crate::domain::BudgetExceeded;

/// A polyhedron over `dim` dimensions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dd {
    dim: usize,
    empty: bool,
    cons: Option<Sys>,
    gens: Option<Sys>,
    minimal: bool,
}

/// The positivity constraint `1 ≥ 0` of `cols` columns.
pub fn positivity(cols: usize) -> Row {
    let mut r = vec![Coef::ZERO; cols];
    r[0] = Coef::Small(1);
    r
}

/// True for a row `[k, 0…0]` with `k > 0` (trivially true constraint).
pub fn is_trivial(row: &[Coef]) -> bool {
    row[0].signum() > 0 && row[1..].iter().all(Coef::is_zero)
}

impl Dd {
    /// The whole space.
    pub fn top(dim: usize) -> Dd {
        let cols = dim + 1;
        let lines = (1..cols)
            .map(|i| {
                let mut r = vec![Coef::ZERO; cols];
                r[i] = Coef::Small(1);
                r
            })
            .collect();
        Dd {
            dim,
            empty: false,
            cons: Some(Sys {
                eqs: vec![],
                ineqs: vec![positivity(cols)],
            }),
            gens: Some(Sys {
                eqs: lines,
                ineqs: vec![positivity(cols)],
            }),
            minimal: true,
        }
    }

    /// The empty set.
    pub fn bottom(dim: usize) -> Dd {
        Dd {
            dim,
            empty: true,
            cons: None,
            gens: None,
            minimal: true,
        }
    }

    /// From a constraint system (not yet minimized).
    pub fn from_cons(dim: usize, cons: Sys) -> Dd {
        Dd {
            dim,
            empty: false,
            cons: Some(cons),
            gens: None,
            minimal: false,
        }
    }

    /// From a generator system (not yet minimized); no point means empty.
    pub fn from_gens(dim: usize, gens: Sys) -> Dd {
        if !gens.ineqs.iter().any(|g| g[0].signum() > 0) {
            return Dd::bottom(dim);
        }
        Dd {
            dim,
            empty: false,
            cons: None,
            gens: Some(gens),
            minimal: false,
        }
    }

    /// Number of dimensions.
    pub fn dim(&self) -> usize {
        self.dim
    }

    fn cols(&self) -> usize {
        self.dim + 1
    }

    /// Whether known empty (exact once minimized).
    pub fn is_empty_known(&self) -> bool {
        self.empty
    }

    /// Whether both representations are minimal.
    pub fn is_minimal(&self) -> bool {
        self.minimal
    }

    /// Makes both systems present, minimal and canonical.
    pub fn minimize(&mut self, budget: &Budget) -> Result<(), BudgetExceeded> {
        if self.empty || self.minimal {
            return Ok(());
        }
        let cols = self.cols();
        if let Some(mut cons) = self.cons.take() {
            cons.ineqs.insert(0, positivity(cols));
            let conv = convert(&cons, cols, budget)?;
            let (rows, is_eq) = numbered(&cons);
            self.finish_from_cons(&rows, &is_eq, conv);
        } else {
            let gens = self
                .gens
                .take()
                .expect("a polyhedron has constraints or generators");
            let conv = convert(&gens, cols, budget)?;
            let (rows, is_eq) = numbered(&gens);
            self.finish_from_gens(&rows, &is_eq, conv);
        }
        Ok(())
    }

    fn finish_from_cons(&mut self, rows: &[Row], is_eq: &[bool], conv: Converted) {
        if !conv.rays.iter().any(|g| g[0].signum() > 0) {
            *self = Dd::bottom(self.dim);
            return;
        }
        let cons = simplify(rows, is_eq, &conv);
        let gens = canon_dst(conv);
        self.cons = Some(cons);
        self.gens = Some(gens);
        self.minimal = true;
    }

    fn finish_from_gens(&mut self, rows: &[Row], is_eq: &[bool], conv: Converted) {
        let gens = simplify(rows, is_eq, &conv);
        if !gens.ineqs.iter().any(|g| g[0].signum() > 0) {
            *self = Dd::bottom(self.dim);
            return;
        }
        let cons = canon_dst(conv);
        self.cons = Some(cons);
        self.gens = Some(gens);
        self.minimal = true;
    }

    /// Drops the inequalities with a coefficient of a dimension wider than `max_bits` bits:
    /// a polyhedron that contains this one.
    pub fn drop_wide(&mut self, max_bits: u64, budget: &Budget) -> Result<(), BudgetExceeded> {
        self.minimize(budget)?;
        if self.empty {
            return Ok(());
        }
        let wide = |r: &Row| r[1..].iter().any(|c| c.bits() > max_bits);
        let cons = self.cons();
        if !cons.ineqs.iter().any(wide) {
            return Ok(());
        }
        let kept = Sys {
            eqs: cons.eqs.clone(),
            ineqs: cons.ineqs.iter().filter(|r| !wide(r)).cloned().collect(),
        };
        *self = Dd::from_cons(self.dim, kept);
        self.minimize(budget)
    }

    /// The minimized constraints (requires `minimize`).
    pub fn cons(&self) -> &Sys {
        self.cons.as_ref().expect("minimized")
    }

    /// The minimized generators (requires `minimize`).
    pub fn gens(&self) -> &Sys {
        self.gens.as_ref().expect("minimized")
    }

    /// Constraint system as it currently stands (minimal or not), or `None` if only
    /// generators are up to date.
    pub fn cons_raw(&self) -> Option<&Sys> {
        self.cons.as_ref()
    }

    /// Intersects with constraint rows; uses the incremental conversion when the
    /// polyhedron is minimal, else only appends.
    pub fn add_cons(
        &mut self,
        eqs: Vec<Row>,
        ineqs: Vec<Row>,
        budget: &Budget,
    ) -> Result<(), BudgetExceeded> {
        if self.empty || (eqs.is_empty() && ineqs.is_empty()) {
            return Ok(());
        }
        if !self.minimal {
            if self.cons.is_none() {
                self.minimize(budget)?;
                if self.empty {
                    return Ok(());
                }
            } else {
                let cons = self.cons.as_mut().unwrap();
                cons.eqs.extend(eqs);
                cons.ineqs.extend(ineqs);
                self.gens = None;
                return Ok(());
            }
        }
        let cols = self.cols();
        let old = self.cons.take().unwrap();
        let gens = self.gens.take().unwrap();
        let n_eq = old.eqs.len();
        let (mut rows, mut is_eq) = numbered_owned(old);
        let mut conv = state(gens, &rows);
        let first = rows.len();
        let new_eq: Vec<bool> = eqs
            .iter()
            .map(|_| true)
            .chain(ineqs.iter().map(|_| false))
            .collect();
        let new_rows: Vec<Row> = eqs.into_iter().chain(ineqs).collect();
        if let Err(e) = conv.add_rows(&new_rows, &new_eq, first, cols, budget) {
            let ineqs = rows.split_off(n_eq);
            *self = Dd::from_cons(self.dim, Sys { eqs: rows, ineqs });
            return Err(e);
        }
        rows.extend(new_rows);
        is_eq.extend(new_eq);
        self.finish_from_cons(&rows, &is_eq, conv);
        Ok(())
    }

    /// Adds generator rows (convex hull with them); incremental when minimal.
    pub fn add_gens(
        &mut self,
        lines: Vec<Row>,
        rays: Vec<Row>,
        budget: &Budget,
    ) -> Result<(), BudgetExceeded> {
        if lines.is_empty() && rays.is_empty() {
            return Ok(());
        }
        if self.empty {
            *self = Dd::from_gens(
                self.dim,
                Sys {
                    eqs: lines,
                    ineqs: rays,
                },
            );
            return self.minimize(budget);
        }
        self.minimize(budget)?;
        let cols = self.cols();
        let old = self.gens.take().unwrap();
        let cons = self.cons.take().unwrap();
        let n_eq = old.eqs.len();
        let (mut rows, mut is_eq) = numbered_owned(old);
        let mut conv = state(cons, &rows);
        let first = rows.len();
        let new_eq: Vec<bool> = lines
            .iter()
            .map(|_| true)
            .chain(rays.iter().map(|_| false))
            .collect();
        let new_rows: Vec<Row> = lines.into_iter().chain(rays).collect();
        if let Err(e) = conv.add_rows(&new_rows, &new_eq, first, cols, budget) {
            let ineqs = rows.split_off(n_eq);
            *self = Dd::from_gens(self.dim, Sys { eqs: rows, ineqs });
            return Err(e);
        }
        rows.extend(new_rows);
        is_eq.extend(new_eq);
        self.finish_from_gens(&rows, &is_eq, conv);
        Ok(())
    }

    /// Replaces the generators by their images under `f` (any linear map of homogeneous
    /// rows that keeps column 0); the constraints are invalidated.
    pub fn map_gens(
        &mut self,
        f: impl Fn(&Row) -> Row,
        budget: &Budget,
    ) -> Result<(), BudgetExceeded> {
        if self.empty {
            return Ok(());
        }
        if self.gens.is_none() {
            self.minimize(budget)?;
            if self.empty {
                return Ok(());
            }
        }
        let g = self.gens.take().unwrap();
        let map = |rows: Vec<Row>| -> Vec<Row> {
            rows.iter()
                .map(|r| {
                    let mut r = f(r);
                    normalize(&mut r);
                    r
                })
                .filter(|r| r.iter().any(|c| !c.is_zero()))
                .collect()
        };
        let gens = Sys {
            eqs: map(g.eqs),
            ineqs: map(g.ineqs),
        };
        *self = Dd::from_gens(self.dim, gens);
        Ok(())
    }

    /// Replaces the constraints by their images under `f`; generators are invalidated.
    pub fn map_cons(
        &mut self,
        f: impl Fn(&Row) -> Row,
        budget: &Budget,
    ) -> Result<(), BudgetExceeded> {
        if self.empty {
            return Ok(());
        }
        if self.cons.is_none() {
            self.minimize(budget)?;
            if self.empty {
                return Ok(());
            }
        }
        let c = self.cons.take().unwrap();
        let map = |rows: Vec<Row>| -> Vec<Row> {
            rows.iter()
                .map(|r| {
                    let mut r = f(r);
                    normalize(&mut r);
                    r
                })
                .collect()
        };
        *self = Dd::from_cons(
            self.dim,
            Sys {
                eqs: map(c.eqs),
                ineqs: map(c.ineqs),
            },
        );
        Ok(())
    }

    /// Whether every generator of `self` satisfies every constraint of `other` (both
    /// minimized, `self` non-empty).
    pub fn gens_satisfy(&self, other: &Dd) -> bool {
        let g = self.gens();
        let c = other.cons();
        for l in &g.eqs {
            if c.eqs.iter().chain(&c.ineqs).any(|r| !dot(r, l).is_zero()) {
                return false;
            }
        }
        for p in &g.ineqs {
            if c.eqs.iter().any(|r| !dot(r, p).is_zero()) {
                return false;
            }
            if c.ineqs.iter().any(|r| dot(r, p).signum() < 0) {
                return false;
            }
        }
        true
    }

    /// Extends to `dim + n` dimensions (new unconstrained columns at the end).
    pub fn add_dims(&mut self, n: usize) {
        let pad = |rows: &mut Vec<Row>| {
            for r in rows.iter_mut() {
                r.extend(std::iter::repeat(Coef::ZERO).take(n));
            }
        };
        if let Some(c) = self.cons.as_mut() {
            pad(&mut c.eqs);
            pad(&mut c.ineqs);
        }
        if let Some(g) = self.gens.as_mut() {
            pad(&mut g.eqs);
            pad(&mut g.ineqs);
            let old = self.dim;
            for i in 0..n {
                let mut l = vec![Coef::ZERO; old + n + 1];
                l[old + 1 + i] = Coef::Small(1);
                g.eqs.push(l);
            }
        }
        self.dim += n;
        self.recanon();
    }

    /// Reorders columns: new column `perm[j]` (1-based data columns) receives old column `j`.
    pub fn permute(&mut self, perm: &[usize]) {
        let apply = |rows: &mut Vec<Row>| {
            for r in rows.iter_mut() {
                let mut nr = vec![Coef::ZERO; r.len()];
                nr[0] = r[0].clone();
                for (j, c) in r.iter().enumerate().skip(1) {
                    nr[perm[j - 1] + 1] = c.clone();
                }
                *r = nr;
            }
        };
        if let Some(c) = self.cons.as_mut() {
            apply(&mut c.eqs);
            apply(&mut c.ineqs);
        }
        if let Some(g) = self.gens.as_mut() {
            apply(&mut g.eqs);
            apply(&mut g.ineqs);
        }
        // Recanonicalize without a conversion (minimality is preserved).
        self.recanon();
    }
}

/// Saturation state of a minimal destination system `dst` with respect to source `rows`,
/// ready for incremental additions. `dst.eqs` are the lines, `dst.ineqs` the rays.
fn numbered_owned(src: Sys) -> (Vec<Row>, Vec<bool>) {
    let n_eq = src.eqs.len();
    let mut rows = src.eqs;
    rows.extend(src.ineqs);
    let is_eq = (0..rows.len()).map(|i| i < n_eq).collect();
    (rows, is_eq)
}

fn state(dst: Sys, rows: &[Row]) -> Converted {
    // Saturation only asks whether a dot product is zero, and one side is a constraint
    // system whose rows usually mention a few of the block's variables: each product runs
    // over the support of the sparser row (this used to be half the time of a projection).
    let row_supports = Supports::of(rows);
    let dst_supports = Supports::of(&dst.ineqs);
    let sat = dst
        .ineqs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let r_support = dst_supports.get(i);
            let mut s = BitSet::with_capacity(rows.len());
            for (k, c) in rows.iter().enumerate() {
                let c_support = row_supports.get(k);
                let cols = if r_support.len() <= c_support.len() {
                    r_support
                } else {
                    c_support
                };
                if dot_on(c, r, cols).is_zero() {
                    s.insert(k);
                }
            }
            s
        })
        .collect();
    Converted {
        lines: dst.eqs,
        rays: dst.ineqs,
        sat,
    }
}

/// The non-zero columns of each row of a system, in one allocation.
struct Supports {
    cols: Vec<usize>,
    start: Vec<usize>,
}

impl Supports {
    fn of(rows: &[Row]) -> Supports {
        let mut cols = Vec::new();
        let mut start = Vec::with_capacity(rows.len() + 1);
        for r in rows {
            start.push(cols.len());
            cols.extend((0..r.len()).filter(|&j| !r[j].is_zero()));
        }
        start.push(cols.len());
        Supports { cols, start }
    }

    fn get(&self, i: usize) -> &[usize] {
        &self.cols[self.start[i]..self.start[i + 1]]
    }
}

/// Canonical form of a conversion result (already minimal): echelon lines, reduced sorted
/// rays.
fn canon_dst(conv: Converted) -> Sys {
    let eqs = echelon(conv.lines);
    let mut ineqs: Vec<Row> = conv
        .rays
        .into_iter()
        .map(|mut r| {
            reduce(&mut r, &eqs);
            r
        })
        .collect();
    ineqs.sort();
    ineqs.dedup();
    Sys { eqs, ineqs }
}

impl Dd {
    /// Re-establishes the canonical order after an invertible change of coordinates of a
    /// minimal polyhedron (no conversion needed: minimality is preserved).
    fn recanon(&mut self) {
        if !self.minimal || self.empty {
            return;
        }
        let c = self.cons.take().unwrap();
        let eqs = echelon(c.eqs);
        let mut ineqs: Vec<Row> = c
            .ineqs
            .into_iter()
            .map(|mut r| {
                reduce(&mut r, &eqs);
                r
            })
            .collect();
        ineqs.sort();
        ineqs.dedup();
        self.cons = Some(Sys { eqs, ineqs });
        let g = self.gens.take().unwrap();
        let leqs = echelon(g.eqs);
        let mut rays: Vec<Row> = g
            .ineqs
            .into_iter()
            .map(|mut r| {
                reduce(&mut r, &leqs);
                r
            })
            .collect();
        rays.sort();
        rays.dedup();
        self.gens = Some(Sys {
            eqs: leqs,
            ineqs: rays,
        });
    }

    /// `x := e` for column `x` (1-based) and homogeneous expression row `e` (`e[0]` is the
    /// constant). Invertible assignments (`e[x] ≠ 0`) transform both systems and stay
    /// minimal; others forget `x` and then add `x = e`, two incremental steps instead of a
    /// conversion of every generator (`e` does not mention `x`, so the result is the same
    /// polyhedron, and minimal, hence in the same canonical form).
    pub fn assign(&mut self, x: usize, e: &Row, budget: &Budget) -> Result<(), BudgetExceeded> {
        if self.empty {
            return Ok(());
        }
        self.minimize(budget)?;
        if self.empty {
            return Ok(());
        }
        if e[x].is_zero() {
            let cols = self.cols();
            let mut line = vec![Coef::ZERO; cols];
            line[x] = Coef::Small(1);
            self.add_gens(vec![line], vec![], budget)?;
            let mut eq: Row = e.iter().map(Coef::neg).collect();
            eq[x] = Coef::Small(1);
            normalize(&mut eq);
            return self.add_cons(vec![eq], vec![], budget);
        }
        let a = e[x].clone();
        let map_g = |g: &Row| -> Row {
            let mut r = g.clone();
            r[x] = dot(e, g);
            normalize(&mut r);
            r
        };
        // Constraint c becomes a·c[j] − c[x]·e[j] (j ≠ x), c[x] at x, negated if a < 0.
        let map_c = |c: &Row| -> Row {
            let mut r: Row = c
                .iter()
                .enumerate()
                .map(|(j, cj)| {
                    if j == x {
                        cj.clone()
                    } else {
                        Coef::lin2(&a, cj, &c[x].neg(), &e[j])
                    }
                })
                .collect();
            if a.signum() < 0 {
                super::num::negate(&mut r);
            }
            normalize(&mut r);
            r
        };
        let c = self.cons.take().unwrap();
        self.cons = Some(Sys {
            eqs: c.eqs.iter().map(map_c).collect(),
            ineqs: c.ineqs.iter().map(map_c).collect(),
        });
        let g = self.gens.take().unwrap();
        self.gens = Some(Sys {
            eqs: g.eqs.iter().map(map_g).collect(),
            ineqs: g.ineqs.iter().map(map_g).collect(),
        });
        self.recanon();
        Ok(())
    }

    /// The product of minimal non-empty polyhedra over disjoint columns, over `dim`
    /// dimensions: `parts` gives each factor with the result's columns (1-based) of its
    /// dimensions; the other columns are unconstrained. Built minimal without a conversion:
    /// the facets are the factors' facets, the lines and rays the factors' own, the points
    /// every combination of the factors' points; `x₀ ≥ 0` is a facet exactly when it is one
    /// of every factor (the product's recession cone then has full dimension). `None` when
    /// a factor is not minimal or the points would exceed `max_points`.
    pub fn product(dim: usize, parts: &[(&[usize], &Dd)], max_points: usize) -> Option<Dd> {
        let cols = dim + 1;
        let mut n_points: usize = 1;
        for (_, d) in parts {
            if d.empty || !d.minimal {
                return None;
            }
            let here = d.gens().ineqs.iter().filter(|g| g[0].signum() > 0).count();
            n_points = n_points.checked_mul(here).filter(|&n| n <= max_points)?;
        }
        let embed = |pos: &[usize], r: &Row| -> Row {
            let mut n = vec![Coef::ZERO; cols];
            n[0] = r[0].clone();
            for (j, c) in r.iter().enumerate().skip(1) {
                n[pos[j - 1]] = c.clone();
            }
            n
        };
        let mut cons = Sys::default();
        let mut gens = Sys::default();
        let mut free = vec![true; cols];
        free[0] = false;
        let mut points: Vec<Row> = vec![positivity(cols)];
        for (pos, d) in parts {
            for &c in pos.iter() {
                free[c] = false;
            }
            let c = d.cons();
            cons.eqs.extend(c.eqs.iter().map(|r| embed(pos, r)));
            cons.ineqs.extend(
                c.ineqs
                    .iter()
                    .filter(|r| !is_trivial(r))
                    .map(|r| embed(pos, r)),
            );
            let g = d.gens();
            gens.eqs.extend(g.eqs.iter().map(|r| embed(pos, r)));
            gens.ineqs.extend(
                g.ineqs
                    .iter()
                    .filter(|r| r[0].is_zero())
                    .map(|r| embed(pos, r)),
            );
            let mut next = Vec::with_capacity(points.len());
            for a in &points {
                for q in g.ineqs.iter().filter(|r| r[0].signum() > 0) {
                    // `a/a₀` and `q/q₀` over disjoint columns: `[a₀q₀, q₀·a, a₀·q]`.
                    let mut r: Row = a.iter().map(|c| c.mul(&q[0])).collect();
                    for (j, c) in q.iter().enumerate().skip(1) {
                        r[pos[j - 1]] = c.mul(&a[0]);
                    }
                    normalize(&mut r);
                    next.push(r);
                }
            }
            points = next;
        }
        if parts
            .iter()
            .all(|(_, d)| d.cons().ineqs.iter().any(|r| is_trivial(r)))
        {
            cons.ineqs.push(positivity(cols));
        }
        for (c, _) in free.iter().enumerate().filter(|(_, f)| **f) {
            let mut line = vec![Coef::ZERO; cols];
            line[c] = Coef::Small(1);
            gens.eqs.push(line);
        }
        gens.ineqs.extend(points);
        let mut dd = Dd {
            dim,
            empty: false,
            cons: Some(cons),
            gens: Some(gens),
            minimal: true,
        };
        dd.recanon();
        Some(dd)
    }

    /// The factor on columns `cols` (1-based) of a minimal non-empty polyhedron that is the
    /// product of its restrictions to groups of columns (no row mentions two groups), built
    /// by restriction instead of a conversion: the product's points are the combinations of
    /// its factors' points, and each of its lines and rays lies in one factor. `x₀ ≥ 0` is a
    /// facet of the factor exactly when its recession cone has the factor's dimension.
    pub fn factor(&self, cols: &[usize]) -> Dd {
        let sub = |r: &Row| -> Row {
            std::iter::once(r[0].clone())
                .chain(cols.iter().map(|&j| r[j].clone()))
                .collect()
        };
        let mentions = |r: &&Row| cols.iter().any(|&j| !r[j].is_zero());
        let c = self.cons();
        let eqs: Vec<Row> = c.eqs.iter().filter(mentions).map(sub).collect();
        let mut ineqs: Vec<Row> = c
            .ineqs
            .iter()
            .filter(|r| !is_trivial(r))
            .filter(mentions)
            .map(sub)
            .collect();
        let g = self.gens();
        let lines: Vec<Row> = g.eqs.iter().filter(mentions).map(sub).collect();
        let mut rays: Vec<Row> = Vec::new();
        for r in &g.ineqs {
            if r[0].signum() > 0 {
                let mut point = sub(r);
                normalize(&mut point);
                rays.push(point);
            } else if mentions(&r) {
                rays.push(sub(r));
            }
        }
        let recession: Vec<Row> = lines
            .iter()
            .chain(rays.iter().filter(|r| r[0].is_zero()))
            .cloned()
            .collect();
        if echelon(recession).len() + eqs.len() == cols.len() {
            ineqs.push(positivity(cols.len() + 1));
        }
        let mut dd = Dd {
            dim: cols.len(),
            empty: false,
            cons: Some(Sys { eqs, ineqs }),
            gens: Some(Sys {
                eqs: lines,
                ineqs: rays,
            }),
            minimal: true,
        };
        dd.recanon();
        dd
    }

    /// Bounds of the homogeneous form `e` (`e[0]` ignored) over a minimized non-empty
    /// polyhedron: `(min, max)` as fractions `(num, den)`, `None` when unbounded.
    pub fn bound_row(&self, e: &Row) -> (Option<(Coef, Coef)>, Option<(Coef, Coef)>) {
        let g = self.gens();
        let mut lo_inf = false;
        let mut hi_inf = false;
        let mut e0 = e.clone();
        e0[0] = Coef::ZERO;
        for l in &g.eqs {
            if !dot(&e0, l).is_zero() {
                return (None, None);
            }
        }
        let mut lo: Option<(Coef, Coef)> = None;
        let mut hi: Option<(Coef, Coef)> = None;
        for p in &g.ineqs {
            let v = dot(&e0, p);
            if p[0].is_zero() {
                match v.signum() {
                    1 => hi_inf = true,
                    -1 => lo_inf = true,
                    _ => {}
                }
                continue;
            }
            let d = p[0].clone();
            // Compare v/d with current bounds: v·d' vs v'·d (denominators positive).
            let less = |a: &(Coef, Coef), b: &(Coef, Coef)| a.0.mul(&b.1) < b.0.mul(&a.1);
            let cand = (v, d);
            if lo.as_ref().map_or(true, |l| less(&cand, l)) {
                lo = Some(cand.clone());
            }
            if hi.as_ref().map_or(true, |h| less(h, &cand)) {
                hi = Some(cand);
            }
        }
        (
            if lo_inf { None } else { lo },
            if hi_inf { None } else { hi },
        )
    }

    /// The generators that saturate the homogeneous constraint `c`, as a bitset over the
    /// rays/points (lines ignored).
    pub fn sat_of(&self, c: &Row) -> BitSet {
        let mut s = BitSet::new();
        for (i, g) in self.gens().ineqs.iter().enumerate() {
            if dot(c, g).is_zero() {
                s.insert(i);
            }
        }
        s
    }

    /// Standard widening (H79, in the PPL formulation): keeps the constraints of `newer`
    /// that saturate exactly the same generators of `self` as some constraint of `self`.
    /// Both minimized and non-empty; `self ⊆ newer`.
    pub fn h79(&self, newer: &Dd) -> Dd {
        let pc = self.cons();
        // The positivity constraint is not a constraint of the polyhedron: it would let a
        // constraint saturating no generator (a bound moving away) survive.
        let mut sats: Vec<BitSet> = pc
            .ineqs
            .iter()
            .filter(|c| !is_trivial(c))
            .map(|c| self.sat_of(c))
            .collect();
        if !pc.eqs.is_empty() {
            let mut all = BitSet::new();
            for i in 0..self.gens().ineqs.len() {
                all.insert(i);
            }
            sats.push(all);
        }
        let qc = newer.cons();
        let mut ineqs = Vec::new();
        let halves = qc.eqs.iter().flat_map(|e| {
            let mut n = e.clone();
            super::num::negate(&mut n);
            [e.clone(), n]
        });
        for c in qc
            .ineqs
            .iter()
            .filter(|c| !is_trivial(c))
            .cloned()
            .chain(halves)
        {
            let s = self.sat_of(&c);
            if sats.iter().any(|t| t.is_subset(&s) && s.is_subset(t)) {
                ineqs.push(c);
            }
        }
        Dd::from_cons(self.dim, Sys { eqs: vec![], ineqs })
    }
}

impl Dd {
    /// Existential projection of the data columns `drop` (0-based), which are removed from
    /// the result. Adds their unit lines incrementally (dual conversion on the constraints),
    /// then deletes the columns.
    ///
    /// No re-canonicalization is needed after the deletion: every constraint saturates the
    /// new lines, so it is zero in the dropped columns; the unit line `e_j` of a dropped
    /// column is a row of the reduced echelon form of the lines (the unique row with pivot
    /// `j`), so the other lines and the reduced rays are zero at `j` too. Deleting columns
    /// that are zero in every row keeps echelon form, reduction, gcds and the sort order;
    /// only the unit lines themselves vanish.
    pub fn project_out(&self, drop: &[usize], budget: &Budget) -> Result<Dd, BudgetExceeded> {
        let mut me = self.clone();
        me.minimize(budget)?;
        let new_dim = self.dim - drop.len();
        if me.empty {
            return Ok(Dd::bottom(new_dim));
        }
        let cols = self.cols();
        let lines: Vec<Row> = drop
            .iter()
            .map(|&j| {
                let mut r = vec![Coef::ZERO; cols];
                r[j + 1] = Coef::Small(1);
                r
            })
            .collect();
        me.add_gens(lines, vec![], budget)?;
        let keep: Vec<usize> = (0..cols)
            .filter(|c| *c == 0 || !drop.contains(&(c - 1)))
            .collect();
        let proj = |r: &Row| -> Row { keep.iter().map(|&c| r[c].clone()).collect() };
        let c = me.cons.take().unwrap();
        let cons = Sys {
            eqs: c.eqs.iter().map(proj).collect(),
            ineqs: c.ineqs.iter().map(proj).collect(),
        };
        let g = me.gens.take().unwrap();
        let gens = Sys {
            eqs: g
                .eqs
                .iter()
                .map(proj)
                .filter(|r| r.iter().any(|c| !c.is_zero()))
                .collect(),
            ineqs: g.ineqs.iter().map(proj).collect(),
        };
        let res = Dd {
            dim: new_dim,
            empty: false,
            cons: Some(cons),
            gens: Some(gens),
            minimal: true,
        };
        debug_assert!(
            {
                let mut again = res.clone();
                again.recanon();
                again == res
            },
            "projection left a non-canonical system"
        );
        Ok(res)
    }
}
