//! Exact convex polyhedra over ℚⁿ (double description, Chernikova), decomposed into
//! independent blocks of variables.
//!
//! γ(P) = { x ∈ ℚⁿ | A·x + b ≥ 0, C·x + d = 0 }. Each polyhedron is kept as a product
//! P = P₁ × … × Pₖ × ℚ^free over a partition of the dimensions into blocks (ELINA-style
//! decomposition): a constraint never relates variables of two blocks, so every
//! operation works on the blocks it touches and its cost follows the largest block.
//! After every operation the partition is the finest one (connected components of the
//! minimized constraints), and each block holds both minimal, canonical representations,
//! so equal polyhedra are equal values and print identically.
//!
//! **Architecture Invariant:** exact arithmetic only ([`num::Coef`] never rounds). The only
//! failure is a [`BudgetExceeded`] from the `try_*` methods; the trait methods then fall
//! back to a sound over-approximation (the interval hull of the affected operands).
//!
//! Join is the convex hull, less its inequalities with coefficients wider than
//! [`MAX_COEFFICIENT_BITS`]. Widening is the standard H79 widening (PPL's formulation), with
//! the same limit.
//! Narrowing keeps the older polyhedron and adds the newer constraints whose direction the
//! older one leaves unbounded; descending sequences stabilize when the narrowing is applied a
//! bounded number of times, which is how the analysis uses it.

pub mod bitset;
pub mod core;
pub mod dd;
mod domain_impl;
pub mod num;
pub mod record;

pub use self::dd::Budget;

use self::core::{is_trivial, Dd};
use self::dd::Sys;
use self::num::{Coef, Row};
use super::linear::{ConsKind, Int, Interval, LinCons, LinExpr, Rat, Space, Var};
use super::BudgetExceeded;
use num_traits::Zero;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// A join or widening keeps only the inequalities whose coefficients (of dimensions, not
/// the constant) fit in this many bits, so its result may be larger than the hull. Hulls
/// of states bounded by the machine ranges of 64-bit values produce facets with
/// coefficients near `2^63` and `2^127` that no program relation has; kept, they made a
/// single solver query of path focusing run past a minute. 48 bits keep the multiples of
/// `2^32` that unsigned wrap-around of `int` gives.
pub const MAX_COEFFICIENT_BITS: u64 = 48;

/// Beyond this many points a product of blocks is left to the conversion, which counts its
/// work against the budget (the points of a product multiply).
const MAX_PRODUCT_POINTS: usize = 1024;

impl Budget {
    /// The budget the trait constructors use: generous, only stops blow-ups.
    pub fn standard() -> Budget {
        Budget {
            max_rows: 20_000,
            max_bits: 2048,
            max_work: 20_000_000,
            stoppable: true,
        }
    }
}

/// One block: sorted dimensions and a minimal, non-empty, non-universe polyhedron over them.
///
/// The polyhedron is shared (copy on write): cloning a [`Polyhedron`] or carrying an
/// untouched block into a result costs no conversion and no row copies, and comparing two
/// shared blocks is a pointer comparison (`Arc`'s equality short-cuts on `Eq` types).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Block {
    vars: Vec<usize>,
    dd: Arc<Dd>,
}

/// A convex polyhedron (closed, rational), decomposed into independent blocks.
#[derive(Clone, Debug)]
pub struct Polyhedron {
    dim: usize,
    bottom: bool,
    blocks: Vec<Block>,
    budget: Budget,
}

impl PartialEq for Polyhedron {
    fn eq(&self, other: &Self) -> bool {
        self.dim == other.dim
            && self.bottom == other.bottom
            && (self.bottom || self.blocks == other.blocks)
    }
}

impl Eq for Polyhedron {}

/// The result of [`Polyhedron::bound_attained`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// The bounds.
    pub interval: Interval,
    /// Whether the lower bound is finite and reached by a point of the polyhedron.
    pub lo_attained: bool,
    /// Whether the upper bound is finite and reached by a point of the polyhedron.
    pub hi_attained: bool,
}

impl Polyhedron {
    /// The universe of `dim` dimensions with an explicit budget.
    pub fn universe(dim: usize, budget: Budget) -> Polyhedron {
        Polyhedron {
            dim,
            bottom: false,
            blocks: Vec::new(),
            budget,
        }
    }

    /// The empty polyhedron of `dim` dimensions with an explicit budget.
    pub fn empty(dim: usize, budget: Budget) -> Polyhedron {
        Polyhedron {
            dim,
            bottom: true,
            blocks: Vec::new(),
            budget,
        }
    }

    /// The polyhedron of a constraint system (exact).
    pub fn from_cons(dim: usize, cons: &[LinCons], budget: Budget) -> Polyhedron {
        let mut p = Polyhedron::universe(dim, budget);
        p.meet_cons_impl(cons).unwrap_or(());
        p
    }

    /// The budget in force.
    pub fn budget(&self) -> Budget {
        self.budget
    }

    /// The partition into blocks (sorted dimension lists); unconstrained dimensions are in
    /// no block.
    pub fn blocks(&self) -> Vec<Vec<Var>> {
        self.blocks
            .iter()
            .map(|b| b.vars.iter().map(|&v| Var(v as u32)).collect())
            .collect()
    }

    /// Size of the largest block.
    pub fn max_block(&self) -> usize {
        self.blocks.iter().map(|b| b.vars.len()).max().unwrap_or(0)
    }

    // ---- block machinery ----

    fn block_index(&self) -> Vec<Option<usize>> {
        let mut idx = vec![None; self.dim];
        for (i, b) in self.blocks.iter().enumerate() {
            for &v in &b.vars {
                idx[v] = Some(i);
            }
        }
        idx
    }

    /// The block `v` belongs to, found in each block's sorted dimensions: for a few
    /// dimensions, cheaper than [`Self::block_index`] over every dimension.
    fn block_of(&self, v: usize) -> Option<usize> {
        self.blocks
            .iter()
            .position(|b| b.vars.binary_search(&v).is_ok())
    }

    /// Closes `vars` under block membership: the union of `vars` and every block it meets.
    fn closure(&self, vars: &[usize]) -> Vec<usize> {
        let idx = self.block_index();
        let mut res: Vec<usize> = vars.to_vec();
        for &v in vars {
            if let Some(b) = idx[v] {
                res.extend(&self.blocks[b].vars);
            }
        }
        res.sort_unstable();
        res.dedup();
        res
    }

    /// The product of the blocks inside `vars` (a union of blocks and free dimensions), as
    /// one polyhedron over `vars` (in order). Minimal unless its points would exceed
    /// `MAX_PRODUCT_POINTS` (then the constraints only, for a conversion within the budget).
    fn gather(&self, vars: &[usize]) -> Dd {
        let inside: Vec<&Block> = self
            .blocks
            .iter()
            .filter(|b| vars.binary_search(&b.vars[0]).is_ok())
            .collect();
        if inside.len() == 1 && inside[0].vars == vars {
            return Dd::clone(&inside[0].dd);
        }
        if inside.is_empty() {
            return Dd::top(vars.len());
        }
        let positions: Vec<Vec<usize>> = inside
            .iter()
            .map(|b| {
                b.vars
                    .iter()
                    .map(|v| vars.binary_search(v).unwrap() + 1)
                    .collect()
            })
            .collect();
        let parts: Vec<(&[usize], &Dd)> = positions
            .iter()
            .zip(&inside)
            .map(|(pos, b)| (pos.as_slice(), &*b.dd))
            .collect();
        if let Some(dd) = Dd::product(vars.len(), &parts, MAX_PRODUCT_POINTS) {
            return dd;
        }
        let cols = vars.len() + 1;
        let mut sys = Sys::default();
        for b in inside {
            let pos: Vec<usize> = b
                .vars
                .iter()
                .map(|v| vars.binary_search(v).unwrap() + 1)
                .collect();
            let embed = |r: &Row| -> Row {
                let mut n = vec![Coef::ZERO; cols];
                n[0] = r[0].clone();
                for (j, c) in r.iter().enumerate().skip(1) {
                    n[pos[j - 1]] = c.clone();
                }
                n
            };
            let c = b.dd.cons();
            sys.eqs.extend(c.eqs.iter().map(embed));
            sys.ineqs
                .extend(c.ineqs.iter().filter(|r| !is_trivial(r)).map(embed));
        }
        Dd::from_cons(vars.len(), sys)
    }

    /// Replaces the blocks inside `vars` by `dd` (over `vars`), splitting it into connected
    /// components. `dd` must be minimized.
    fn install(&mut self, vars: &[usize], dd: Dd) {
        if dd.is_empty_known() {
            self.set_bottom();
            return;
        }
        self.blocks
            .retain(|b| vars.binary_search(&b.vars[0]).is_err());
        let parts = split(vars, dd);
        self.blocks.extend(parts);
        self.blocks.sort_by_key(|b| b.vars[0]);
    }

    fn set_bottom(&mut self) {
        self.bottom = true;
        self.blocks.clear();
    }

    fn row_of(vars: &[usize], expr: &LinExpr) -> Row {
        let mut r = vec![Coef::ZERO; vars.len() + 1];
        r[0] = Coef::from(expr.constant_part());
        for (v, c) in expr.terms() {
            let p = vars.binary_search(&v.index()).expect("variable in block");
            r[p + 1] = Coef::from(c);
        }
        r
    }

    fn cons_of_row(vars: &[usize], row: &Row, kind: ConsKind) -> LinCons {
        let mut e = LinExpr::constant(row[0].to_big());
        for (j, c) in row.iter().enumerate().skip(1) {
            e.add_term(c.to_big(), Var(vars[j - 1] as u32));
        }
        LinCons { expr: e, kind }
    }

    // ---- operations (Result-returning cores) ----

    pub(crate) fn meet_cons_impl(&mut self, cons: &[LinCons]) -> Result<(), BudgetExceeded> {
        if self.bottom {
            return Ok(());
        }
        let mut uf = UnionFind::new(self.dim);
        for b in &self.blocks {
            for w in b.vars.windows(2) {
                uf.union(w[0], w[1]);
            }
        }
        let mut todo = Vec::new();
        for c in cons {
            if let Some(t) = c.constant_truth() {
                if !t {
                    self.set_bottom();
                    return Ok(());
                }
                continue;
            }
            let vs: Vec<usize> = c.expr.vars().map(Var::index).collect();
            for w in vs.windows(2) {
                uf.union(w[0], w[1]);
            }
            todo.push((uf.find(vs[0]), c));
        }
        let mut roots: Vec<usize> = todo
            .iter()
            .map(|(_, c)| uf.find(c.expr.vars().next().unwrap().index()))
            .collect();
        roots.sort_unstable();
        roots.dedup();
        // Each component's dimensions and constraints, in one pass over each (a pass per
        // component would make a meet of many one-dimensional bounds quadratic). A component
        // holds every block it meets, the blocks having been united above.
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); roots.len()];
        for v in 0..self.dim {
            if let Ok(k) = roots.binary_search(&uf.find(v)) {
                members[k].push(v);
            }
        }
        let mut by_root: Vec<Vec<&LinCons>> = vec![Vec::new(); roots.len()];
        for (_, c) in &todo {
            let root = uf.find(c.expr.vars().next().unwrap().index());
            let k = roots
                .binary_search(&root)
                .expect("a root of the constraints");
            by_root[k].push(c);
        }
        for (vars, cons) in members.into_iter().zip(by_root) {
            let mut dd = self.gather(&vars);
            let mut eqs = Vec::new();
            let mut ineqs = Vec::new();
            for c in cons {
                let mut r = Self::row_of(&vars, &c.expr);
                num::normalize(&mut r);
                match c.kind {
                    ConsKind::Eq => eqs.push(r),
                    ConsKind::Ge => ineqs.push(r),
                }
            }
            dd.add_cons(eqs, ineqs, &self.budget)?;
            dd.minimize(&self.budget)?;
            self.install(&vars, dd);
            if self.bottom {
                return Ok(());
            }
        }
        Ok(())
    }

    /// Intersection with constraints, or `BudgetExceeded` (then `self` is unchanged or a
    /// sound superset of the result).
    pub fn try_meet_cons(&mut self, cons: &[LinCons]) -> Result<(), BudgetExceeded> {
        let saved = self.clone();
        self.meet_cons_impl(cons).inspect_err(|_| *self = saved)
    }

    /// Intersection.
    pub fn try_meet(&self, other: &Polyhedron) -> Result<Polyhedron, BudgetExceeded> {
        if other.bottom || self.bottom {
            return Ok(Polyhedron::empty(self.dim, self.budget));
        }
        // Only the blocks of `other` that differ from ours bring new constraints, and within
        // a block with the same dimensions only the rows we do not already have. Such a block
        // is intersected in place (its rows are already over the block's dimensions); the
        // others go through the general constraint path, which merges blocks as needed.
        // `res` is a fresh value: on failure it is dropped, so no copy needs saving.
        let mut res = self.clone();
        let mut cons = Vec::new();
        for b in &other.blocks {
            let Some(mine) = self.block_over(&b.vars) else {
                let c = b.dd.cons();
                cons.extend(
                    c.eqs
                        .iter()
                        .map(|r| Self::cons_of_row(&b.vars, r, ConsKind::Eq)),
                );
                cons.extend(
                    c.ineqs
                        .iter()
                        .filter(|r| !is_trivial(r))
                        .map(|r| Self::cons_of_row(&b.vars, r, ConsKind::Ge)),
                );
                continue;
            };
            if mine.dd == b.dd {
                continue;
            }
            let (theirs, ours) = (b.dd.cons(), mine.dd.cons());
            let eqs: Vec<Row> = theirs
                .eqs
                .iter()
                .filter(|r| !ours.eqs.contains(r))
                .cloned()
                .collect();
            let ineqs: Vec<Row> = theirs
                .ineqs
                .iter()
                .filter(|r| !is_trivial(r) && !ours.ineqs.contains(r))
                .cloned()
                .collect();
            if eqs.is_empty() && ineqs.is_empty() {
                continue;
            }
            let mut dd = Dd::clone(&mine.dd);
            dd.add_cons(eqs, ineqs, &self.budget)?;
            dd.minimize(&self.budget)?;
            res.install(&b.vars, dd);
            if res.bottom {
                return Ok(res);
            }
        }
        res.meet_cons_impl(&cons)?;
        Ok(res)
    }

    /// Our block over exactly `vars`, if there is one.
    fn block_over(&self, vars: &[usize]) -> Option<&Block> {
        let i = self
            .blocks
            .binary_search_by_key(&vars[0], |b| b.vars[0])
            .ok()?;
        Some(&self.blocks[i]).filter(|b| b.vars == vars)
    }

    /// Convex hull, without the inequalities of coefficients wider than
    /// [`MAX_COEFFICIENT_BITS`].
    pub fn try_join(&self, other: &Polyhedron) -> Result<Polyhedron, BudgetExceeded> {
        if self.bottom {
            return Ok(other.clone());
        }
        if other.bottom {
            return Ok(self.clone());
        }
        let (same, diff) = self.common_groups(other);
        let mut res = Polyhedron::universe(self.dim, self.budget);
        res.blocks = same;
        if !diff.is_empty() {
            let mut a = self.gather(&diff);
            let mut b = other.gather(&diff);
            a.minimize(&self.budget)?;
            b.minimize(&self.budget)?;
            let g = b.gens().clone();
            a.add_gens(g.eqs, g.ineqs, &self.budget)?;
            a.drop_wide(MAX_COEFFICIENT_BITS, &self.budget)?;
            res.install(&diff, a);
        }
        res.blocks.sort_by_key(|b| b.vars[0]);
        Ok(res)
    }

    /// Splits the dimensions into groups of the common coarsening of both partitions:
    /// returns the blocks equal in both, and the union of the other groups (sorted).
    fn common_groups(&self, other: &Polyhedron) -> (Vec<Block>, Vec<usize>) {
        let mut uf = UnionFind::new(self.dim);
        let mut used = vec![false; self.dim];
        for b in self.blocks.iter().chain(&other.blocks) {
            for &v in &b.vars {
                used[v] = true;
            }
            for w in b.vars.windows(2) {
                uf.union(w[0], w[1]);
            }
        }
        let mut same = Vec::new();
        let mut diff = Vec::new();
        // One sweep gathers every group, sorted, so that a join over thousands of
        // dimensions costs linear time, not a scan of the dimensions per group.
        for group in uf.groups((0..self.dim).filter(|&v| used[v])) {
            match (self.block_over(&group), other.block_over(&group)) {
                (Some(a), Some(b)) if a.dd == b.dd => same.push(a.clone()),
                _ => diff.extend(group),
            }
        }
        diff.sort_unstable();
        (same, diff)
    }

    /// H79 widening of `self` (older) by `newer`; `newer` is first joined with `self` if it
    /// does not contain it.
    pub fn try_widen(&self, newer: &Polyhedron) -> Result<Polyhedron, BudgetExceeded> {
        if self.bottom {
            return Ok(newer.clone());
        }
        let newer = if self.is_leq_impl(newer) {
            newer.clone()
        } else {
            self.try_join(newer)?
        };
        let (same, diff) = self.common_groups(&newer);
        let mut res = Polyhedron::universe(self.dim, self.budget);
        res.blocks = same;
        // Widen group by group: each group of the common partition is a factor of both.
        let mut uf = UnionFind::new(self.dim);
        for b in self.blocks.iter().chain(&newer.blocks) {
            for w in b.vars.windows(2) {
                uf.union(w[0], w[1]);
            }
        }
        for group in uf.groups(diff.iter().copied()) {
            let mut a = self.gather(&group);
            let mut b = newer.gather(&group);
            a.minimize(&self.budget)?;
            b.minimize(&self.budget)?;
            let mut w = a.h79(&b);
            w.minimize(&self.budget)?;
            w.drop_wide(MAX_COEFFICIENT_BITS, &self.budget)?;
            res.install(&group, w);
        }
        res.blocks.sort_by_key(|b| b.vars[0]);
        Ok(res)
    }

    /// `var := expr`.
    pub fn try_assign(&mut self, var: Var, expr: &LinExpr) -> Result<(), BudgetExceeded> {
        if self.bottom {
            return Ok(());
        }
        if expr.coeff(var).is_zero() {
            // Forget `var`, then `var = expr`: the same polyhedron, but the relations `var`
            // had are projected in their own block and never joined to `expr`'s blocks (a
            // product of blocks has the product of their vertices).
            self.try_forget(&[var])?;
            let eq = LinCons {
                expr: LinExpr::var(var).minus(expr),
                kind: ConsKind::Eq,
            };
            return self.meet_cons_impl(std::slice::from_ref(&eq));
        }
        let mut vs: Vec<usize> = expr.vars().map(Var::index).collect();
        vs.push(var.index());
        let vars = self.closure(&vs);
        let mut dd = self.gather(&vars);
        let e = Self::row_of(&vars, expr);
        let x = vars.binary_search(&var.index()).unwrap() + 1;
        dd.assign(x, &e, &self.budget)?;
        dd.minimize(&self.budget)?;
        self.install(&vars, dd);
        Ok(())
    }

    /// Parallel assignment.
    pub fn try_assign_parallel(
        &mut self,
        assignments: &[(Var, LinExpr)],
    ) -> Result<(), BudgetExceeded> {
        if self.bottom || assignments.is_empty() {
            return Ok(());
        }
        let reads_a_target = assignments
            .iter()
            .any(|(_, e)| assignments.iter().any(|(v, _)| !e.coeff(*v).is_zero()));
        if !reads_a_target {
            // No expression reads a target, so one at a time is the same map, and each
            // step is incremental instead of a conversion of every generator.
            for (v, e) in assignments {
                self.try_assign(*v, e)?;
            }
            return Ok(());
        }
        let vs: Vec<usize> = assignments
            .iter()
            .flat_map(|(v, e)| e.vars().map(Var::index).chain(std::iter::once(v.index())))
            .collect();
        let vars = self.closure(&vs);
        let mut dd = self.gather(&vars);
        let maps: Vec<(usize, Row)> = assignments
            .iter()
            .map(|(v, e)| {
                (
                    vars.binary_search(&v.index()).unwrap() + 1,
                    Self::row_of(&vars, e),
                )
            })
            .collect();
        dd.map_gens(
            |g| {
                let mut r = g.clone();
                for (x, e) in &maps {
                    r[*x] = num::dot(e, g);
                }
                r
            },
            &self.budget,
        )?;
        dd.minimize(&self.budget)?;
        self.install(&vars, dd);
        Ok(())
    }

    /// Pre-image of `var := expr`.
    pub fn try_substitute(&mut self, var: Var, expr: &LinExpr) -> Result<(), BudgetExceeded> {
        if self.bottom {
            return Ok(());
        }
        let mut vs: Vec<usize> = expr.vars().map(Var::index).collect();
        vs.push(var.index());
        let vars = self.closure(&vs);
        let mut dd = self.gather(&vars);
        let e = Self::row_of(&vars, expr);
        let x = vars.binary_search(&var.index()).unwrap() + 1;
        dd.map_cons(
            |c| {
                let cx = c[x].clone();
                if cx.is_zero() {
                    return c.clone();
                }
                c.iter()
                    .enumerate()
                    .map(|(j, cj)| {
                        if j == x {
                            cx.mul(&e[x])
                        } else {
                            cj.add(&cx.mul(&e[j]))
                        }
                    })
                    .collect()
            },
            &self.budget,
        )?;
        dd.minimize(&self.budget)?;
        self.install(&vars, dd);
        Ok(())
    }

    /// Existential projection of `vars` (they become unconstrained).
    pub fn try_forget(&mut self, vars: &[Var]) -> Result<(), BudgetExceeded> {
        if self.bottom {
            return Ok(());
        }
        let idx = self.block_index();
        let mut touched: Vec<usize> = vars.iter().filter_map(|v| idx[v.index()]).collect();
        touched.sort_unstable();
        touched.dedup();
        // Project every touched block before changing anything, so that a budget failure
        // leaves `self` unchanged (and no block is cloned only to be replaced).
        let mut projected = Vec::with_capacity(touched.len());
        for &bi in &touched {
            let b = &self.blocks[bi];
            let keep: Vec<usize> = (0..b.vars.len())
                .filter(|&j| !vars.iter().any(|v| v.index() == b.vars[j]))
                .collect();
            let kept_vars: Vec<usize> = keep.iter().map(|&j| b.vars[j]).collect();
            let dropped: Vec<usize> = (0..b.vars.len()).filter(|j| !keep.contains(j)).collect();
            projected.push((kept_vars, b.dd.project_out(&dropped, &self.budget)?));
        }
        let mut bi = 0;
        self.blocks.retain(|_| {
            let keep = touched.binary_search(&bi).is_err();
            bi += 1;
            keep
        });
        for (kept_vars, dd) in projected {
            if !kept_vars.is_empty() {
                let parts = split(&kept_vars, dd);
                self.blocks.extend(parts);
            }
        }
        self.blocks.sort_by_key(|b| b.vars[0]);
        Ok(())
    }

    // ---- queries ----

    /// Exact bounds of `expr`, and whether each bound is attained. A closed polyhedron
    /// attains every finite bound (at a vertex, or on a face when it has lines), so the flags
    /// say "finite"; they are reported for callers that must not assume closedness. On an
    /// empty polyhedron the interval is (−∞, +∞) (any answer is sound) and nothing is
    /// attained.
    pub fn bound_attained(&self, expr: &LinExpr) -> Bounds {
        if self.bottom {
            return Bounds {
                interval: Interval::top(),
                lo_attained: false,
                hi_attained: false,
            };
        }
        let c0 = Rat::from_integer(expr.constant_part().clone());
        let mut lo = Some(c0.clone());
        let mut hi = Some(c0);
        // The terms grouped by block, in block order (a table of every block per call would
        // make the box of a polyhedron of many blocks quadratic).
        let mut terms_in: Vec<(usize, Var, Int)> = Vec::new();
        for (v, c) in expr.terms() {
            match self.block_of(v.index()) {
                None => {
                    return Bounds {
                        interval: Interval::top(),
                        lo_attained: false,
                        hi_attained: false,
                    }
                }
                Some(b) => terms_in.push((b, v, c.clone())),
            }
        }
        terms_in.sort_by_key(|(b, v, _)| (*b, *v));
        for group in terms_in.chunk_by(|x, y| x.0 == y.0) {
            let block = &self.blocks[group[0].0];
            let terms = group.iter().map(|(_, v, c)| (*v, c));
            let mut row = vec![Coef::ZERO; block.vars.len() + 1];
            for (v, c) in terms {
                row[block.vars.binary_search(&v.index()).unwrap() + 1] = Coef::from(c);
            }
            let (l, h) = block.dd.bound_row(&row);
            let frac = |(n, d): (Coef, Coef)| Rat::new(n.to_big(), d.to_big());
            lo = match (lo, l) {
                (Some(a), Some(x)) => Some(a + frac(x)),
                _ => None,
            };
            hi = match (hi, h) {
                (Some(a), Some(x)) => Some(a + frac(x)),
                _ => None,
            };
        }
        let (la, ha) = (lo.is_some(), hi.is_some());
        Bounds {
            interval: Interval { lo, hi },
            lo_attained: la,
            hi_attained: ha,
        }
    }

    pub(crate) fn is_leq_impl(&self, other: &Polyhedron) -> bool {
        if self.bottom {
            return true;
        }
        if other.bottom {
            return false;
        }
        // Block by block: a block of `other` over the same dimensions as one of ours is
        // checked generator against constraint; anything else through exact bounds.
        other
            .blocks
            .iter()
            .all(|b| match self.blocks.iter().find(|m| m.vars == b.vars) {
                Some(m) => m.dd == b.dd || m.dd.gens_satisfy(&b.dd),
                None => {
                    let c = b.dd.cons();
                    c.eqs
                        .iter()
                        .map(|r| (r, ConsKind::Eq))
                        .chain(
                            c.ineqs
                                .iter()
                                .filter(|r| !is_trivial(r))
                                .map(|r| (r, ConsKind::Ge)),
                        )
                        .all(|(r, k)| {
                            self.entails_impl(&Self::cons_of_row(&b.vars, r, k))
                                == super::Entailment::Holds
                        })
                }
            })
    }

    pub(crate) fn entails_impl(&self, cons: &LinCons) -> super::Entailment {
        use super::Entailment::*;
        if self.bottom {
            return Holds;
        }
        let b = self.bound_attained(&cons.expr).interval;
        let zero = Rat::zero();
        match cons.kind {
            ConsKind::Ge => {
                if b.lo.as_ref().map_or(false, |l| *l >= zero) {
                    Holds
                } else if b.hi.as_ref().map_or(false, |h| *h < zero) {
                    Violated
                } else {
                    Unknown
                }
            }
            ConsKind::Eq => {
                if b.as_point().map_or(false, |p| p.is_zero()) {
                    Holds
                } else if b.hi.as_ref().map_or(false, |h| *h < zero)
                    || b.lo.as_ref().map_or(false, |l| *l > zero)
                {
                    Violated
                } else {
                    Unknown
                }
            }
        }
    }

    /// The minimized constraints in canonical order; bottom gives `-1 >= 0`.
    pub fn to_cons_vec(&self) -> Vec<LinCons> {
        if self.bottom {
            return vec![LinCons {
                expr: LinExpr::constant(-1),
                kind: ConsKind::Ge,
            }];
        }
        let mut res = Vec::new();
        for b in &self.blocks {
            let c = b.dd.cons();
            for r in &c.eqs {
                res.push(Self::cons_of_row(&b.vars, r, ConsKind::Eq));
            }
            for r in c.ineqs.iter().filter(|r| !is_trivial(r)) {
                res.push(Self::cons_of_row(&b.vars, r, ConsKind::Ge));
            }
        }
        res
    }

    /// The interval hull, one interval per dimension (`None` when empty).
    pub fn to_box(&self) -> Option<Vec<Interval>> {
        if self.bottom {
            return None;
        }
        let idx = self.block_index();
        Some(
            (0..self.dim)
                .map(|v| match idx[v] {
                    None => Interval::top(),
                    Some(_) => self.bound_attained(&LinExpr::var(Var(v as u32))).interval,
                })
                .collect(),
        )
    }

    /// The interval hull as a polyhedron (every dimension its own block).
    pub fn box_hull(&self) -> Polyhedron {
        let Some(bx) = self.to_box() else {
            return self.clone();
        };
        Polyhedron::of_box(self.dim, self.budget, &bx)
    }

    /// The box `bx` (one interval per dimension) as a polyhedron, every bounded dimension
    /// its own block: one meet of all the bounds (a meet per dimension would copy the
    /// growing result each time).
    pub(crate) fn of_box(dim: usize, budget: Budget, bx: &[Interval]) -> Polyhedron {
        let mut res = Polyhedron::universe(dim, budget);
        let cons: Vec<LinCons> = bx
            .iter()
            .enumerate()
            .flat_map(|(v, itv)| var_bounds(v, itv))
            .collect();
        if !cons.is_empty() {
            let _ = res.try_meet_cons(&cons);
        }
        res
    }

    /// Intersects dimension `v` with an interval (one-dimensional, never over budget when
    /// `v` is free).
    pub(crate) fn restrict_var(&mut self, v: usize, itv: &Interval) {
        let cs = var_bounds(v, itv);
        if !cs.is_empty() {
            let _ = self.try_meet_cons(&cs);
        }
    }

    /// Sound integer tightening: every constraint `Σ aᵢxᵢ + b ≥ 0` with `g = gcd(aᵢ) > 1`
    /// becomes `Σ (aᵢ/g)xᵢ + ⌊b/g⌋ ≥ 0`, and an equality whose constant `g` does not divide
    /// makes the polyhedron empty. Only valid when all dimensions are integer-valued. One
    /// pass (the result may have new non-integer vertices).
    pub fn tighten_integer(&mut self) {
        if self.bottom {
            return;
        }
        let mut cons = Vec::new();
        for c in self.to_cons_vec() {
            let mut g = Int::zero();
            for (_, a) in c.expr.terms() {
                g = num_integer::Integer::gcd(&g, a);
            }
            if g <= Int::from(1) {
                cons.push(c);
                continue;
            }
            let b = c.expr.constant_part().clone();
            let mut e = LinExpr::constant(match c.kind {
                ConsKind::Ge => num_integer::Integer::div_floor(&b, &g),
                ConsKind::Eq => {
                    if !(&b % &g).is_zero() {
                        self.set_bottom();
                        return;
                    }
                    &b / &g
                }
            });
            for (v, a) in c.expr.terms() {
                e.add_term(a / &g, v);
            }
            cons.push(LinCons {
                expr: e,
                kind: c.kind,
            });
        }
        let tightened = Polyhedron::from_cons(self.dim, &cons, self.budget);
        if self.try_meet(&tightened).map(|m| *self = m).is_err() {
            // Keep the untightened (sound) polyhedron.
        }
    }

    /// Adds `n` unconstrained dimensions at the end.
    pub fn add_dims(&mut self, n: usize) {
        self.dim += n;
    }

    /// Removes dimensions (projecting them out first); the remaining ones are renumbered in
    /// order.
    pub fn remove_dims(&mut self, vars: &[Var]) {
        self.forget_sound(vars);
        let mut removed = vec![false; self.dim];
        for v in vars {
            removed[v.index()] = true;
        }
        let mut newidx = vec![0; self.dim];
        let mut k = 0;
        for v in 0..self.dim {
            newidx[v] = k;
            if !removed[v] {
                k += 1;
            }
        }
        for b in &mut self.blocks {
            for v in &mut b.vars {
                *v = newidx[*v];
            }
        }
        self.dim = k;
    }

    /// Renames dimension `v` to `perm[v]` (a permutation of `0..dim`).
    pub fn permute_dims(&mut self, perm: &[Var]) {
        for b in &mut self.blocks {
            let mapped: Vec<usize> = b.vars.iter().map(|&v| perm[v].index()).collect();
            let mut sorted = mapped.clone();
            sorted.sort_unstable();
            let local: Vec<usize> = mapped
                .iter()
                .map(|m| sorted.binary_search(m).unwrap())
                .collect();
            Arc::make_mut(&mut b.dd).permute(&local);
            b.vars = sorted;
        }
        self.blocks.sort_by_key(|b| b.vars[0]);
    }

    pub(crate) fn forget_sound(&mut self, vars: &[Var]) {
        if self.try_forget(vars).is_err() {
            let mut bx = self.box_hull();
            let _ = bx.try_forget(vars);
            *self = bx;
        }
    }

    /// Prints the constraints with the names of `space` (C-like, `&&`-separated).
    pub fn display<'a>(&'a self, space: &'a Space) -> impl fmt::Display + 'a {
        DisplayPoly {
            poly: self,
            space: Some(space),
        }
    }
}

struct DisplayPoly<'a> {
    poly: &'a Polyhedron,
    space: Option<&'a Space>,
}

impl fmt::Display for DisplayPoly<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.poly.bottom {
            return write!(f, "false");
        }
        let cons = self.poly.to_cons_vec();
        if cons.is_empty() {
            return write!(f, "true");
        }
        let anon;
        let space = match self.space {
            Some(s) => s,
            None => {
                anon = Space::anonymous(self.poly.dim);
                &anon
            }
        };
        let parts: Vec<String> = cons.iter().map(|c| c.display(space).to_string()).collect();
        write!(f, "{}", parts.join(" && "))
    }
}

impl fmt::Display for Polyhedron {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        DisplayPoly {
            poly: self,
            space: None,
        }
        .fmt(f)
    }
}

/// Splits a minimized polyhedron over `vars` into the connected components of its
/// constraints; dimensions no constraint mentions become free.
fn split(vars: &[usize], dd: Dd) -> Vec<Block> {
    let n = vars.len();
    let c = dd.cons();
    let rows: Vec<(&Row, bool)> = c
        .eqs
        .iter()
        .map(|r| (r, true))
        .chain(
            c.ineqs
                .iter()
                .filter(|r| !is_trivial(r))
                .map(|r| (r, false)),
        )
        .collect();
    let mut uf = UnionFind::new(n);
    let mut used = vec![false; n];
    for (r, _) in &rows {
        let nz: Vec<usize> = (1..=n)
            .filter(|&j| !r[j].is_zero())
            .map(|j| j - 1)
            .collect();
        for &j in &nz {
            used[j] = true;
        }
        for w in nz.windows(2) {
            uf.union(w[0], w[1]);
        }
    }
    let groups = uf.groups((0..n).filter(|&j| used[j]));
    if groups.len() == 1 && used.iter().all(|&u| u) {
        return vec![Block {
            vars: vars.to_vec(),
            dd: Arc::new(dd),
        }];
    }
    let mut out = Vec::new();
    for cols in groups {
        // A factor of a minimal non-empty product: restricted, never converted (a
        // conversion of its constraints, unlimited, ran for minutes on some factors).
        let columns: Vec<usize> = cols.iter().map(|&j| j + 1).collect();
        let part = dd.factor(&columns);
        out.push(Block {
            vars: cols.iter().map(|&j| vars[j]).collect(),
            dd: Arc::new(part),
        });
    }
    out
}

/// Plain union-find over `0..n`.
struct UnionFind {
    parent: Vec<usize>,
}

impl UnionFind {
    fn new(n: usize) -> UnionFind {
        UnionFind {
            parent: (0..n).collect(),
        }
    }

    fn find(&mut self, x: usize) -> usize {
        let mut r = x;
        while self.parent[r] != r {
            r = self.parent[r];
        }
        let mut y = x;
        while self.parent[y] != r {
            let next = self.parent[y];
            self.parent[y] = r;
            y = next;
        }
        r
    }

    /// The classes of `vars` (ascending), each sorted, in the order of their smallest
    /// member.
    fn groups(&mut self, vars: impl Iterator<Item = usize>) -> Vec<Vec<usize>> {
        let mut index: HashMap<usize, usize> = HashMap::new();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for v in vars {
            let root = self.find(v);
            let at = *index.entry(root).or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            });
            groups[at].push(v);
        }
        groups
    }

    fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
            self.parent[hi] = lo;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn x(i: u32) -> LinExpr {
        LinExpr::var(Var(i))
    }

    #[test]
    fn a_triangle_has_three_facets_and_prints_canonically() {
        let cs = [
            LinCons::ge(&x(0), &LinExpr::constant(0)),
            LinCons::ge(&x(1), &LinExpr::constant(0)),
            LinCons::le(&x(0).plus(&x(1)), &LinExpr::constant(4)),
            // Redundant: implied by the three above.
            LinCons::le(&x(0), &LinExpr::constant(9)),
        ];
        let p = Polyhedron::from_cons(2, &cs, Budget::unlimited());
        assert_eq!(p.to_string(), "x1 >= 0 && x0 >= 0 && x0 + x1 <= 4");
        let reordered: Vec<LinCons> = cs.iter().rev().cloned().collect();
        assert_eq!(Polyhedron::from_cons(2, &reordered, Budget::unlimited()), p);
        assert_eq!(p.blocks(), vec![vec![Var(0), Var(1)]]);
    }

    #[test]
    fn dimensions_are_added_removed_and_permuted() {
        // x0 <= x1 - 1, x2 == 2·x0.
        let cs = [
            LinCons::le(&x(0), &x(1).plus(&LinExpr::constant(-1))),
            LinCons::eq(&x(2), &x(0).scaled(&2.into())),
        ];
        let mut p = Polyhedron::from_cons(3, &cs, Budget::unlimited());
        // Rename x0→x2, x1→x0, x2→x1: x2 <= x0 - 1, x1 == 2·x2.
        p.permute_dims(&[Var(2), Var(0), Var(1)]);
        let expected = Polyhedron::from_cons(
            3,
            &[
                LinCons::le(&x(2), &x(0).plus(&LinExpr::constant(-1))),
                LinCons::eq(&x(1), &x(2).scaled(&2.into())),
            ],
            Budget::unlimited(),
        );
        assert_eq!(p, expected);
        p.add_dims(2);
        assert_eq!(p.to_cons_vec(), expected.to_cons_vec());
        // Removing x2 (= x1/2) leaves x1 <= 2·x0 - 2 over the renumbered x0, x1.
        p.remove_dims(&[Var(2), Var(3)]);
        let projected = Polyhedron::from_cons(
            3,
            &[LinCons::le(
                &x(1),
                &x(0).scaled(&2.into()).plus(&LinExpr::constant(-2)),
            )],
            Budget::unlimited(),
        );
        assert_eq!(p.to_cons_vec(), projected.to_cons_vec());
    }

    /// Sparse constraints over six dimensions (one or two variables each), so that the
    /// polyhedra have several blocks.
    fn sparse_cons() -> impl proptest::strategy::Strategy<Value = LinCons> {
        use proptest::prelude::*;
        let terms = (0u32..6, 0u32..6, -2i64..=2, -2i64..=2, -4i64..=4);
        (terms, proptest::bool::weighted(0.25)).prop_map(|((i, j, a, b, k), eq)| {
            let mut e = LinExpr::constant(k);
            e.add_term(if a == 0 { 1 } else { a }, Var(i));
            e.add_term(b, Var(j));
            let zero = LinExpr::constant(0);
            if eq {
                LinCons::eq(&e, &zero)
            } else {
                LinCons::ge(&e, &zero)
            }
        })
    }

    proptest::proptest! {
        /// The product of blocks built directly is the minimal canonical polyhedron a
        /// conversion of their constraints gives.
        #[test]
        fn a_product_of_blocks_is_the_converted_one(
            cs in proptest::collection::vec(sparse_cons(), 0..7),
            extra in 0usize..6,
        ) {
            let p = Polyhedron::from_cons(6, &cs, Budget::unlimited());
            if !p.bottom {
                let mut vars: Vec<usize> = p.blocks.iter().flat_map(|b| b.vars.clone()).collect();
                vars.push(extra);
                vars.sort_unstable();
                vars.dedup();
                let built = p.gather(&vars);
                proptest::prop_assert!(built.is_minimal() || p.blocks.len() < 2);
                let mut converted = Dd::from_cons(vars.len(), built.cons().clone());
                converted.minimize(&Budget::unlimited()).unwrap();
                let mut built = built;
                built.minimize(&Budget::unlimited()).unwrap();
                proptest::prop_assert_eq!(built, converted);
            }
        }

        /// Each block split off a polyhedron is the minimal canonical polyhedron a
        /// conversion of its constraints gives.
        #[test]
        fn a_split_block_is_the_converted_one(
            cs in proptest::collection::vec(sparse_cons(), 0..7),
        ) {
            let p = Polyhedron::from_cons(6, &cs, Budget::unlimited());
            for b in &p.blocks {
                let mut converted = Dd::from_cons(b.vars.len(), b.dd.cons().clone());
                converted.minimize(&Budget::unlimited()).unwrap();
                proptest::prop_assert_eq!(&*b.dd, &converted);
            }
        }
    }

    #[test]
    fn unrelated_constraints_stay_in_separate_blocks() {
        let cs = [
            LinCons::ge(&x(0), &LinExpr::constant(1)),
            LinCons::le(&x(2), &x(3)),
        ];
        let p = Polyhedron::from_cons(5, &cs, Budget::unlimited());
        assert_eq!(p.blocks(), vec![vec![Var(0)], vec![Var(2), Var(3)]]);
        assert_eq!(p.max_block(), 2);
    }
}

/// The constraints `lo ≤ x_v ≤ hi` of an interval (none for an unbounded side).
fn var_bounds(v: usize, itv: &Interval) -> Vec<LinCons> {
    let x = LinExpr::var(Var(v as u32));
    let mut cs = Vec::new();
    if let Some(l) = &itv.lo {
        // d·x − n ≥ 0 for l = n/d.
        let e = x
            .scaled(l.denom())
            .minus(&LinExpr::constant(l.numer().clone()));
        cs.push(LinCons {
            expr: e,
            kind: ConsKind::Ge,
        });
    }
    if let Some(h) = &itv.hi {
        let e = LinExpr::constant(h.numer().clone()).minus(&x.scaled(h.denom()));
        cs.push(LinCons {
            expr: e,
            kind: ConsKind::Ge,
        });
    }
    cs
}
