//! Chernikova's double-description conversion and minimization.
//!
//! The conversion is stated once for cones: given a *source* system of homogeneous rows
//! (`Eq` rows read `r·y = 0`, `Ineq` rows read `r·y ≥ 0`), it computes the *destination*
//! system that generates the same cone (lines and extreme rays). The same code converts
//! constraints to generators and, by duality, generators to constraints. Adjacency of two
//! rays is decided combinatorially from the saturation matrix: `r₁`, `r₂` are adjacent iff
//! they saturate at least `cols − lines − 2` common source rows and no third ray
//! saturates all of those.

use super::bitset::BitSet;
use super::num::{combine, dot, negate, normalize, row_bits, Coef, Row};
use crate::domain::{stop, BudgetExceeded};

/// Pairs of rays examined between two looks at the clock.
const STOP_CHECK_EVERY: u64 = 1024;

/// Limits on the size of a conversion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Largest number of rows a system may reach.
    pub max_rows: usize,
    /// Largest coefficient size, in bits.
    pub max_bits: u64,
    /// Most adjacency tests one conversion may make (a pair of rays examined counts one,
    /// plus one per third ray tested against it): the conversion's time grows with them
    /// long before the number of rows shows it.
    pub max_work: u64,
    /// Whether the conversions also give up once this thread's stop instant has passed
    /// ([`crate::domain::stop`]).
    pub stoppable: bool,
}

impl Budget {
    /// No limit at all.
    pub fn unlimited() -> Budget {
        Budget {
            max_rows: usize::MAX,
            max_bits: u64::MAX,
            max_work: u64::MAX,
            stoppable: false,
        }
    }
}

/// A homogeneous system: `eqs` are equalities (or lines), `ineqs` inequalities (or rays and
/// points).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sys {
    /// Rows with `=` (constraints) or lines (generators).
    pub eqs: Vec<Row>,
    /// Rows with `≥` (constraints) or rays/points (generators).
    pub ineqs: Vec<Row>,
}

/// The destination of a conversion with its saturation matrix.
pub struct Converted {
    /// Lines (a basis of the lineality space).
    pub lines: Vec<Row>,
    /// Extreme rays.
    pub rays: Vec<Row>,
    /// `sat[r]` holds the source rows (numbered eqs first, then ineqs) ray `r` saturates.
    pub sat: Vec<BitSet>,
}

impl Converted {
    /// The universe cone of `cols` columns.
    pub fn universe(cols: usize) -> Converted {
        let lines = (0..cols)
            .map(|i| {
                let mut r = vec![Coef::ZERO; cols];
                r[i] = Coef::Small(1);
                r
            })
            .collect();
        Converted {
            lines,
            rays: Vec::new(),
            sat: Vec::new(),
        }
    }

    /// Adds source rows `rows[k]` (numbered from `first`) one at a time; `is_eq[k]` tells
    /// equality rows. `cols` is the row width.
    pub fn add_rows(
        &mut self,
        rows: &[Row],
        is_eq: &[bool],
        first: usize,
        cols: usize,
        budget: &Budget,
    ) -> Result<(), BudgetExceeded> {
        let mut work_left = budget.max_work;
        // What the tests cost, charged to the stage's budget of work as they go; the
        // conversion's own budget (`max_work`) counts them as it always has.
        let mut cost = 0u64;
        let mut added = Ok(());
        for (k, (row, &eq)) in rows.iter().zip(is_eq).enumerate() {
            // A row that a line absorbs, or that no ray pair crosses, tests nothing, yet
            // combining hundreds of rays with wide coefficients takes its time: the stop is
            // read between rows too.
            if budget.stoppable && k % 8 == 7 && stop::reached() {
                added = Err(BudgetExceeded {
                    what: "the stage's share".to_string(),
                });
                break;
            }
            added = self.add_row(row, eq, first + k, cols, budget, &mut work_left, &mut cost);
            if added.is_err() {
                break;
            }
        }
        stop::charge(stop::Work::Conversion, cost);
        added
    }

    fn add_row(
        &mut self,
        c: &[Coef],
        is_eq: bool,
        idx: usize,
        cols: usize,
        budget: &Budget,
        work_left: &mut u64,
        cost: &mut u64,
    ) -> Result<(), BudgetExceeded> {
        // A line not saturating `c` absorbs it.
        let sl: Vec<Coef> = self.lines.iter().map(|l| dot(c, l)).collect();
        if let Some(li) = sl.iter().position(|s| !s.is_zero()) {
            let mut line = self.lines.swap_remove(li);
            let mut s_line = sl[li].clone();
            let mut sl = sl;
            sl.swap_remove(li);
            if s_line.signum() < 0 {
                negate(&mut line);
                s_line = s_line.neg();
            }
            for (l, s) in self.lines.iter_mut().zip(&sl) {
                if !s.is_zero() {
                    *l = combine(&s_line, l, &s.neg(), &line);
                }
            }
            for (r, sat) in self.rays.iter_mut().zip(self.sat.iter_mut()) {
                let s = dot(c, r);
                if !s.is_zero() {
                    *r = combine(&s_line, r, &s.neg(), &line);
                    check_bits(r, budget)?;
                }
                sat.insert(idx);
            }
            if !is_eq {
                let mut sat = BitSet::with_capacity(idx + 1);
                for i in 0..idx {
                    sat.insert(i);
                }
                self.rays.push(line);
                self.sat.push(sat);
            }
            return Ok(());
        }
        let sv: Vec<Coef> = self.rays.iter().map(|r| dot(c, r)).collect();
        let s: Vec<i32> = sv.iter().map(Coef::signum).collect();
        let n_neg = s.iter().filter(|&&x| x < 0).count();
        let n_pos = s.iter().filter(|&&x| x > 0).count();
        if n_neg == 0 && (!is_eq || n_pos == 0) {
            for (sat, &si) in self.sat.iter_mut().zip(&s) {
                if si == 0 {
                    sat.insert(idx);
                }
            }
            return Ok(());
        }
        let min_common = (cols as isize) - (self.lines.len() as isize) - 2;
        let mut new_rays = Vec::new();
        let mut new_sat = Vec::new();
        let mut tested: u64 = 0;
        let negative: Vec<usize> = (0..self.rays.len()).filter(|&n| s[n] < 0).collect();
        for p in 0..self.rays.len() {
            if s[p] <= 0 {
                continue;
            }
            for &n in &negative {
                tested += 1;
                if tested % STOP_CHECK_EVERY == 0 {
                    // The stage's budget of work sees the tests as they go.
                    stop::charge(stop::Work::Conversion, std::mem::take(cost));
                    if budget.stoppable && stop::reached() {
                        return Err(BudgetExceeded {
                            what: "the stage's share".to_string(),
                        });
                    }
                }
                // Most pairs fail the count test: it builds no intersection.
                let few = (self.sat[p].and_count(&self.sat[n]) as isize) < min_common;
                let work = if few { 1 } else { 1 + self.rays.len() as u64 };
                *work_left = work_left.checked_sub(work).ok_or_else(|| BudgetExceeded {
                    what: format!("adjacency tests over {} rays", self.rays.len()),
                })?;
                *cost += 1;
                if few {
                    continue;
                }
                let common = self.sat[p].and(&self.sat[n]);
                // The stage pays for the rays the test scans (most tests stop early), the
                // conversion's own budget for all of them.
                let adjacent = (0..self.rays.len()).all(|r| {
                    *cost += 1;
                    r == p || r == n || !common.is_subset(&self.sat[r])
                });
                if !adjacent {
                    continue;
                }
                let r = combine(&sv[p], &self.rays[n], &sv[n].neg(), &self.rays[p]);
                check_bits(&r, budget)?;
                let mut sat = common;
                sat.insert(idx);
                new_rays.push(r);
                new_sat.push(sat);
            }
        }
        let mut rays = Vec::new();
        let mut sats = Vec::new();
        for (k, (r, mut sat)) in std::mem::take(&mut self.rays)
            .into_iter()
            .zip(std::mem::take(&mut self.sat))
            .enumerate()
        {
            if s[k] == 0 {
                sat.insert(idx);
                rays.push(r);
                sats.push(sat);
            } else if s[k] > 0 && !is_eq {
                rays.push(r);
                sats.push(sat);
            }
        }
        rays.extend(new_rays);
        sats.extend(new_sat);
        if rays.len() + self.lines.len() > budget.max_rows {
            return Err(BudgetExceeded {
                what: format!("{} generators", rays.len()),
            });
        }
        self.rays = rays;
        self.sat = sats;
        Ok(())
    }
}

fn check_bits(r: &[Coef], budget: &Budget) -> Result<(), BudgetExceeded> {
    if budget.max_bits != u64::MAX && row_bits(r) > budget.max_bits {
        return Err(BudgetExceeded {
            what: format!("{}-bit coefficient", row_bits(r)),
        });
    }
    Ok(())
}

/// Converts `src` from scratch.
pub fn convert(src: &Sys, cols: usize, budget: &Budget) -> Result<Converted, BudgetExceeded> {
    let mut dst = Converted::universe(cols);
    let (rows, is_eq) = numbered(src);
    dst.add_rows(&rows, &is_eq, 0, cols, budget)?;
    Ok(dst)
}

/// Source rows in conversion order (eqs first) with their kinds.
pub fn numbered(src: &Sys) -> (Vec<Row>, Vec<bool>) {
    let rows: Vec<Row> = src.eqs.iter().chain(&src.ineqs).cloned().collect();
    let is_eq = (0..rows.len()).map(|i| i < src.eqs.len()).collect();
    (rows, is_eq)
}

/// Minimizes the source system `rows` (numbered as in the conversion) given the result of
/// converting it: implicit equalities become a basis of equalities in reduced echelon form,
/// and an inequality is kept iff its set of saturating rays is maximal (ties go to the
/// first). Inequalities are reduced modulo the equalities and normalized.
pub fn simplify(rows: &[Row], is_eq: &[bool], dst: &Converted) -> Sys {
    let n_rays = dst.rays.len();
    let mut eqs = Vec::new();
    // Per inequality row: the rays saturating it and how many.
    let mut cand: Vec<(usize, BitSet, usize)> = Vec::new();
    for (k, row) in rows.iter().enumerate() {
        if is_eq[k] {
            eqs.push(row.clone());
            continue;
        }
        let mut s = BitSet::with_capacity(n_rays);
        let mut n_sat = 0;
        for r in 0..n_rays {
            if dst.sat[r].contains(k) {
                s.insert(r);
                n_sat += 1;
            }
        }
        if n_sat == n_rays {
            eqs.push(row.clone());
        } else {
            cand.push((k, s, n_sat));
        }
    }
    let eqs = echelon(eqs);
    // A facet of a cone of dimension `d` with an `l`-dimensional lineality space contains
    // `d − 1 − l` independent rays, so a row saturated by fewer rays is redundant; it is also
    // strictly dominated by some facet's set, so dropping it early changes nothing below,
    // only spares comparisons.
    let cols = rows.first().map_or(0, |r| r.len());
    let min_sat = cols.saturating_sub(eqs.len() + 1 + dst.lines.len());
    cand.retain(|(_, _, n_sat)| *n_sat >= min_sat);
    // `n_sat_of[k]` for the remaining candidates, `None` for every other row.
    let mut n_sat_of: Vec<Option<usize>> = vec![None; rows.len()];
    for (k, _, n_sat) in &cand {
        n_sat_of[*k] = Some(*n_sat);
    }
    let mut all_rows = BitSet::with_capacity(rows.len());
    for k in 0..rows.len() {
        all_rows.insert(k);
    }
    let mut ineqs = Vec::new();
    for (k, s, n_sat) in &cand {
        // The rows whose saturating set contains `s`: the intersection of the saturation
        // rows of the rays in `s` (one pass over `s` instead of a comparison with every
        // other candidate). Row `k` is redundant when one of them has a strictly larger set
        // or the same set and comes first.
        let mut containing = all_rows.clone();
        for r in s.iter() {
            containing.intersect_with(&dst.sat[r]);
        }
        let redundant = containing
            .iter()
            .any(|j| j != *k && n_sat_of[j].is_some_and(|n_j| j < *k || n_j > *n_sat));
        if !redundant {
            let mut r = rows[*k].clone();
            reduce(&mut r, &eqs);
            ineqs.push(r);
        }
    }
    ineqs.sort();
    ineqs.dedup();
    Sys { eqs, ineqs }
}

/// Reduced row echelon form (integer, gcd-normalized, positive pivots, pivots in increasing
/// column order with 0 last so that constants are never pivots unless forced). Zero rows are
/// dropped.
pub fn echelon(mut rows: Vec<Row>) -> Vec<Row> {
    let Some(cols) = rows.first().map(|r| r.len()) else {
        return rows;
    };
    let order: Vec<usize> = (1..cols).chain(std::iter::once(0)).collect();
    let mut out: Vec<(usize, Row)> = Vec::new();
    for &col in &order {
        let Some(pi) = rows.iter().position(|r| !r[col].is_zero()) else {
            continue;
        };
        let mut piv = rows.swap_remove(pi);
        if piv[col].signum() < 0 {
            negate(&mut piv);
        }
        normalize(&mut piv);
        for r in rows.iter_mut() {
            if !r[col].is_zero() {
                *r = combine(&piv[col], r, &r[col].neg(), &piv);
            }
        }
        for (_, r) in out.iter_mut() {
            if !r[col].is_zero() {
                let (pc, rc) = (piv[col].clone(), r[col].neg());
                *r = combine(&pc, r, &rc, &piv);
            }
        }
        out.push((col, piv));
        rows.retain(|r| r.iter().any(|c| !c.is_zero()));
    }
    // Restore positive pivots after the back-substitution scalings (they stay positive
    // because we multiply by positive pivots).
    out.sort_by_key(|(c, _)| if *c == 0 { usize::MAX } else { *c });
    out.into_iter().map(|(_, r)| r).collect()
}

/// Eliminates the pivot columns of `eqs` (in echelon form) from `row`, keeping its
/// orientation, then normalizes.
pub fn reduce(row: &mut Row, eqs: &[Row]) {
    for e in eqs {
        let col = pivot_col(e);
        if row[col].is_zero() {
            continue;
        }
        let rc = row[col].neg();
        if e[col].is_one() {
            // `row + rc·e` in place, over the support of `e` only (unit lines are common).
            for (x, y) in row.iter_mut().zip(e) {
                if !y.is_zero() {
                    *x = Coef::lin2(&Coef::Small(1), x, &rc, y);
                }
            }
        } else {
            *row = combine(&e[col], row, &rc, e);
        }
    }
    // Only positive multiples were taken, so the primitive row is the same as when
    // normalizing after every step.
    normalize(row);
}

/// The pivot column of an echelon row (first non-zero variable column, else 0).
pub fn pivot_col(e: &Row) -> usize {
    (1..e.len()).find(|&c| !e[c].is_zero()).unwrap_or(0)
}
