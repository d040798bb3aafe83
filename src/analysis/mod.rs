//! Fixpoint engines over the lifted program.
//!
//! **Architecture Invariant:** generic over `D: NumericDomain`; the only place that calls
//! `widen` and `narrow`. Instructions become domain operations in one place ([`lower`]); the
//! engines ([`classic`], path focusing) only choose what to apply where.
//!
//! **Architecture Invariant:** [`Layout`] is the only map from dimensions to meanings; no
//! other code computes a dimension's index or reads a dimension as an SSA value. The facts
//! every stage reads (readings, reduced graph, liveness, layout) are computed once per
//! function, in [`FunctionContext::new`].

mod ascent;
pub mod bitwise;
pub mod careset;
pub mod certify;
pub mod classic;
pub mod congruence;
pub mod diseq;
pub mod dying;
pub mod focus;
pub mod loop_entry;
pub mod lower;
pub mod phases;
pub mod polyeq;
pub mod refine;
pub mod relational_congruence;
pub mod relevance;
pub mod template_bounds;
pub mod transformer;

pub use crate::context::{Dim, FunctionContext, Layout};

use crate::budget::MemoryBudget;
use crate::domain::NumericDomain;
use crate::ir::BlockId;
use std::cell::Cell;
use std::time::{Duration, Instant};

/// When an analysis must stop: a point in time on the thread's CPU clock
/// ([`crate::clock`]), and optionally a memory budget and a budget of work.
///
/// The engines ask [`Deadline::expired`] between steps and stop with
/// [`Outcome::Timeout`]; [`Deadline::blame`] then tells which limit it was.
///
/// Work is counted in abstract steps an engine reports with [`Deadline::spend`] (the
/// classic engine: per block it runs, the block's instructions and, per outgoing edge, the
/// dimensions it copies and joins). Unlike time and memory, it does not depend on the
/// machine or its load: an analysis stopped by its work budget stops at the same step on
/// every run, so its verdicts are reproducible.
#[derive(Clone, Debug)]
pub struct Deadline {
    /// The end, on the thread's CPU clock.
    end: Instant,
    /// The wall-clock backstop ([`crate::clock::WALL_SLACK`] times the budget).
    wall_end: Instant,
    memory: Option<MemoryBudget>,
    /// Steps of work left, when the analysis has a work budget.
    work: Option<Cell<u64>>,
    /// Steps spent so far (reported; counted with or without a work budget).
    spent: Cell<u64>,
    /// The first limit found exhausted; kept, because memory goes down again once the
    /// engine drops its states.
    hit: Cell<Option<Limit>>,
}

/// Steps of work spent by every analysis of the process (see [`Deadline::spend`]).
static WORK_SPENT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The steps of work every analysis of the process has spent so far: what a caller that
/// runs analyses in rounds (the contract search of recursive functions) counts its work
/// in. It does not depend on the machine's load, as long as no analysis stopped at a time
/// limit.
pub fn work_spent() -> u64 {
    WORK_SPENT.load(std::sync::atomic::Ordering::Relaxed)
}

/// A resource an analysis can run out of.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Limit {
    /// The time budget.
    Time,
    /// The memory budget.
    Memory,
    /// The budget of work (steps, see [`Deadline::spend`]).
    Work,
}

impl Deadline {
    /// A deadline `budget` of the thread's CPU time from now.
    pub fn after(budget: Duration) -> Deadline {
        let now = crate::clock::now();
        let far = Duration::from_secs(1 << 32);
        let wall = Instant::now();
        Deadline {
            end: now.checked_add(budget).unwrap_or(now + far),
            wall_end: wall
                .checked_add(budget.saturating_mul(crate::clock::WALL_SLACK))
                .unwrap_or(wall + far),
            memory: None,
            work: None,
            spent: Cell::new(0),
            hit: Cell::new(None),
        }
    }

    /// The same deadline that also expires once `steps` steps of work are spent.
    pub fn with_work(self, steps: u64) -> Deadline {
        Deadline {
            work: Some(Cell::new(steps)),
            ..self
        }
    }

    /// Counts `steps` steps of work; true while the work budget (if any) lasts. Once it is
    /// spent the deadline stays expired, like for the other limits.
    pub fn spend(&self, steps: u64) -> bool {
        self.spent.set(self.spent.get().saturating_add(steps));
        WORK_SPENT.fetch_add(steps, std::sync::atomic::Ordering::Relaxed);
        crate::domain::stop::charge(crate::domain::stop::Work::Step, steps);
        let Some(left) = &self.work else {
            return true;
        };
        match left.get().checked_sub(steps) {
            Some(rest) => {
                left.set(rest);
                true
            }
            None => {
                left.set(0);
                if self.hit.get().is_none() {
                    self.hit.set(Some(Limit::Work));
                }
                false
            }
        }
    }

    /// The steps of work spent so far.
    pub fn spent(&self) -> u64 {
        self.spent.get()
    }

    /// The same deadline that also expires when the thread's heap exceeds `memory`.
    pub fn with_memory(self, memory: MemoryBudget) -> Deadline {
        Deadline {
            memory: Some(memory),
            ..self
        }
    }

    /// True once the time has passed, the memory budget is exceeded or the work budget is
    /// spent.
    pub fn expired(&self) -> bool {
        if self.hit.get().is_some() {
            return true;
        }
        // The stage's budget of work (`domain::stop`) ends the deadline too.
        let hit = if crate::domain::stop::work_spent() {
            Some(Limit::Work)
        } else if crate::clock::passed(self.end) || Instant::now() >= self.wall_end {
            Some(Limit::Time)
        } else if self.memory.is_some_and(|m| m.exceeded()) {
            Some(Limit::Memory)
        } else {
            None
        };
        self.hit.set(hit);
        hit.is_some()
    }

    /// Time left (zero when expired, whichever limit it was).
    pub fn remaining(&self) -> Duration {
        if self.expired() {
            return Duration::ZERO;
        }
        crate::clock::until(self.end)
    }

    /// The limit that made the deadline expire, if any.
    pub fn exhausted(&self) -> Option<Limit> {
        self.hit.get()
    }

    /// An engine's outcome, with the limit that stopped it named: a stop caused by the
    /// memory budget becomes [`Outcome::Memory`], one caused by the work budget
    /// [`Outcome::Budget`], and a resource stop (a solver query that gave up) after the
    /// time ran out becomes [`Outcome::Timeout`].
    pub fn blame(&self, outcome: Outcome) -> Outcome {
        if !matches!(outcome, Outcome::Timeout | Outcome::Budget) || !self.expired() {
            return outcome;
        }
        match self.exhausted() {
            Some(Limit::Memory) => Outcome::Memory,
            Some(Limit::Work) => Outcome::Budget,
            Some(Limit::Time) => Outcome::Timeout,
            None => outcome,
        }
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
    /// The memory budget ran out: the invariants must not be used.
    Memory,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::spin;

    /// A deadline counts the thread's CPU time: a thread that does not run (as when other
    /// processes have the CPU) spends none of it.
    #[test]
    fn a_deadline_passes_by_the_threads_work_not_by_the_wall_clock() {
        let deadline = Deadline::after(Duration::from_millis(40));
        std::thread::sleep(Duration::from_millis(80));
        assert!(!deadline.expired());
        assert!(deadline.remaining() > Duration::from_millis(20));
        spin(Duration::from_millis(45));
        assert!(deadline.expired());
        assert_eq!(deadline.blame(Outcome::Timeout), Outcome::Timeout);
    }
}
