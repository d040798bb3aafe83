//! Predicates combined with numeric domains (Gurfinkel & Chaki, "Combining predicate and
//! numeric abstraction for software model checking", FMCAD'08).
//!
//! Boolean dimensions of the [`crate::domain::Space`] (program `i1` values, marked
//! [`crate::domain::DimKind::Bool`] by the lowering) are tracked as BDD variables instead of
//! numeric dimensions:
//! - [`Partitioned`] (NEX): disjoint BDD regions, one numeric state each;
//! - [`Product`] (NEXPOINT): one BDD and one numeric state.
//!
//! Both implement [`crate::domain::NumericDomain`] over the same space, so the engines and
//! the lowering use them unchanged.

pub mod bdd;
pub mod partition;
pub mod product;

pub use partition::{Nex, PartPolicy, Partitioned};
pub use product::{NexPoint, Product};
