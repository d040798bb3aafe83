//! Relational congruences at cut points: per cut point, an affine lattice of the
//! readings of the values live there ([`AffineLattice`], Granger's linear congruence
//! equalities `a·x ≡ c (mod m)`, `m = 0` an equality): `x = y` where `z`'s parity couples
//! them, two unsigned counters equal modulo `2^32` after both wrapped, `s - 2x ≡ 0 mod 2^32`.
//!
//! The lattices are computed by the solver rather than by transfer functions: for each edge
//! `p → q` of the reduced graph, a model of the exact region formula that starts in the
//! engine's invariant at `p`, the non-relational congruences and `p`'s lattice, and ends
//! outside `q`'s lattice, is a state that some path reaches; its readings at `q` are joined
//! into `q`'s lattice (the solver-guided ascent of `ascent.rs`). The lattices grow until
//! no edge finds such a point; the lattice of subgroups of ℤⁿ has no infinite ascending
//! chain, and the number of points per cut point is capped (past it the cut point keeps no
//! relation).
//!
//! **Soundness.** The region formula is the exact semantics of the lifted program in
//! readings (wrap-around as `r = e - k·2^w`, `srem`/`urem`/`sdiv`, casts and truncations
//! as the solver encodes them, products exact), so every rule is the program's, not
//! re-implemented here; wrap-around keeps `y - z ≡ 0 (mod 2^32)` exactly when the program
//! does. The result is inductive by construction: the fixpoint ends only when every edge's
//! query is unsat with the final lattices, and a solver `unknown` makes the target keep no
//! relation (every point), which is trivially kept. The engine's invariants and the
//! congruences it starts from are inductive on their own, so their conjunction with the
//! lattices is. [`certify`] checks it again, independently (`tests/inductive.rs`). An
//! analysis that runs out of time returns nothing.

use super::ascent::{ascend, CutValue};
use super::certify::{Certificate, CutInvariants};
use super::congruence::Congruences;
use super::relevance::Relevance;
use super::FunctionContext;
use crate::domain::lattice::AffineLattice;
use crate::domain::{Int, LinCons};
use crate::graph::{CutKind, CutPointId};
use crate::ir::ValueId;
use crate::smt::SideFact;
use num_traits::Zero;
use std::time::Duration;

pub use super::ascent::Limits;

/// The most values tracked at one cut point (the live ones nearest to the open error sites,
/// [`Relevance`]): the lattice of a projection is still sound, and the solver's models stay
/// small.
const MAX_TRACKED: usize = 24;

/// Points joined at one cut point before it keeps no relation (each strict join raises
/// the rank or divides the index, so `dimension × 65` bounds a chain over 64-bit values;
/// this cap is far below and is what bounds the stage's time).
const MAX_POINTS: usize = 48;

/// The lattice of one cut point over its tracked values.
#[derive(Clone, Debug)]
struct CutLattice {
    values: Vec<ValueId>,
    lattice: AffineLattice,
    /// Points joined so far.
    points: usize,
}

impl CutValue for CutLattice {
    fn values(&self) -> &[ValueId] {
        &self.values
    }

    fn is_bottom(&self) -> bool {
        self.lattice.is_bottom()
    }

    fn is_top(&self) -> bool {
        self.lattice.is_top()
    }

    fn facts(&self) -> Vec<SideFact> {
        match self.lattice.constraints() {
            None => vec![SideFact::Linear {
                terms: vec![],
                residue: Int::from(1),
                modulus: Int::zero(),
            }],
            Some(cs) => cs
                .into_iter()
                .map(|c| SideFact::Linear {
                    terms: self
                        .values
                        .iter()
                        .zip(c.coefs)
                        .filter(|(_, k)| !k.is_zero())
                        .map(|(v, k)| (*v, k))
                        .collect(),
                    residue: c.residue,
                    modulus: c.modulus,
                })
                .collect(),
        }
    }

    /// Past [`MAX_POINTS`] the cut point keeps no relation.
    fn join_point(&mut self, point: &[Int]) -> bool {
        self.points += 1;
        if self.points > MAX_POINTS {
            self.forget();
            return true;
        }
        self.lattice.join_point(point)
    }

    fn forget(&mut self) {
        self.lattice = AffineLattice::top(self.values.len());
    }
}

/// The relational congruences of a function's cut points.
#[derive(Clone, Debug)]
pub struct RelationalCongruences {
    at: Vec<CutLattice>,
}

impl RelationalCongruences {
    /// The facts at cut point `p`: its lattice's congruences over the tracked values (a
    /// false fact when no execution reaches `p`).
    pub fn facts_at(&self, p: CutPointId) -> Vec<SideFact> {
        self.at[p.index()].facts()
    }

    /// How many congruences all the cut points hold (for the report).
    pub fn count(&self) -> usize {
        self.at
            .iter()
            .map(|c| c.lattice.constraints().map_or(0, |cs| cs.len()))
            .sum()
    }

    /// The congruences at `p` as text over the values' ids, for tests and debugging.
    pub fn describe(&self, p: CutPointId) -> Vec<String> {
        self.facts_at(p)
            .iter()
            .map(|f| match f {
                SideFact::Linear {
                    terms,
                    residue,
                    modulus,
                } => {
                    let lhs: Vec<String> =
                        terms.iter().map(|(v, k)| format!("{k}*v{}", v.0)).collect();
                    let lhs = if lhs.is_empty() {
                        "0".to_string()
                    } else {
                        lhs.join(" + ")
                    };
                    if modulus.is_zero() {
                        format!("{lhs} = {residue}")
                    } else {
                        format!("{lhs} ≡ {residue} mod {modulus}")
                    }
                }
                SideFact::Congruence { .. } | SideFact::Bounds { .. } => String::new(),
            })
            .collect()
    }
}

/// Computes the lattices of every cut point, next to the engine's `invariants` (one
/// disjunction per cut point, `None` where the engine found no state) and the
/// non-relational `classes`, over the values of each cut point most `relevant` to the open
/// error sites. `None` when the deadline passed before the fixpoint.
pub fn analyze(
    ctx: &FunctionContext<'_>,
    invariants: &[Option<Vec<Vec<LinCons>>>],
    classes: &Congruences,
    relevant: &Relevance,
    limits: Limits,
) -> Option<RelationalCongruences> {
    let graph = ctx.graph();
    let lattices: Vec<CutLattice> = graph
        .ids()
        .map(|p| {
            let values: Vec<ValueId> = relevant.nearest(
                ctx.live_at(graph.cut_point(p).block).iter().copied(),
                MAX_TRACKED,
            );
            let n = values.len();
            let lattice = if graph.cut_point(p).kind == CutKind::Entry {
                AffineLattice::top(n)
            } else {
                AffineLattice::bottom(n)
            };
            CutLattice {
                values,
                lattice,
                points: 0,
            }
        })
        .collect();
    let known = |p| classes.facts_at(ctx, p);
    let at = ascend(ctx, invariants, &known, lattices, limits)?;
    Some(RelationalCongruences { at })
}

/// Checks with the solver that the lattices are inductive next to the linear `invariants`
/// and the non-relational `classes` (consecution on the exact formula), independently of
/// how [`analyze`] found them. Initiation holds at the entry, whose lattice keeps no relation.
pub fn certify(
    ctx: &FunctionContext<'_>,
    invariants: &CutInvariants,
    classes: &Congruences,
    relations: &RelationalCongruences,
    timeout: Duration,
) -> Certificate {
    super::certify::certify_side_facts(
        ctx,
        invariants,
        relations.at.len(),
        &|p| classes.facts_at(ctx, p),
        &|q| relations.facts_at(q),
        timeout,
    )
}
