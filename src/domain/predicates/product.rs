//! The NEXPOINT product (Gurfinkel & Chaki, FMCAD'08): one BDD over the boolean dimensions and one
//! numeric state, `γ = γ(p) ∧ γ(n)`.
//!
//! It is the partitioned domain restricted to one part: every operation that splits the
//! state per valuation of booleans (a guard mixing booleans and numbers, an assignment
//! reading booleans) computes the per-cube results and joins them back, which is the
//! paper's `alphaPost_N` distributed over the disjunction followed by the product's join,
//! with `reduce` done on the way (cubes whose numeric state is empty are dropped from the
//! BDD).

use super::partition::{PartPolicy, Partitioned};

/// The NEXPOINT policy: a single part.
#[derive(Clone, Copy, Debug)]
pub struct NexPoint;

impl PartPolicy for NexPoint {
    // The domain's definition: one BDD times one numeric state.
    const MAX_PARTS: usize = 1;
    const NAME: &'static str = "predicates-product";
}

/// One BDD times one numeric state.
pub type Product<N> = Partitioned<N, NexPoint>;
