//! Fixpoint engines over the lifted program.
//!
//! **Architecture Invariant:** generic over `D: NumericDomain`; the only place that calls
//! `widen` and `narrow`. Instructions become domain operations in one place ([`lower`]); the
//! engines ([`classic`], path focusing) only choose what to apply where.

pub mod certify;
pub mod classic;
pub mod focus;
pub mod lower;
pub mod refine;

use crate::domain::NumericDomain;
use crate::ir::BlockId;
use std::time::{Duration, Instant};

/// The point in time when an analysis must stop.
#[derive(Clone, Copy, Debug)]
pub struct Deadline {
    end: Instant,
}

impl Deadline {
    /// A deadline `budget` from now.
    pub fn after(budget: Duration) -> Deadline {
        Deadline {
            end: Instant::now() + budget,
        }
    }

    /// True once the deadline has passed.
    pub fn expired(&self) -> bool {
        Instant::now() >= self.end
    }

    /// Time left (zero when expired).
    pub fn remaining(&self) -> Duration {
        self.end.saturating_duration_since(Instant::now())
    }
}

/// Whether an engine reached its fixpoint.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Outcome {
    /// The invariants are a post-fixpoint: sound.
    Complete,
    /// The time budget ran out: the invariants are not sound and must not be used.
    Timeout,
    /// A resource budget ran out.
    Budget,
}

/// The state at each block entry (`None`: unreachable).
#[derive(Clone, Debug)]
pub struct Invariants<D> {
    /// Indexed by block.
    pub at_block: Vec<Option<D>>,
}

impl<D: NumericDomain> Invariants<D> {
    /// The state at a block's entry, if reachable.
    pub fn at(&self, b: BlockId) -> Option<&D> {
        self.at_block[b.index()].as_ref().filter(|d| !d.is_bottom())
    }
}
