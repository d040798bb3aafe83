//! Where the stage running on this thread stops: an instant of its CPU clock
//! ([`crate::clock`]), and a budget of work.
//!
//! Work is counted where the time goes: the solver's resource count around each check, the
//! adjacency tests of the polyhedra conversions with the rays each scans, and the steps of
//! the classic engine ([`charge`]), each weighted (in sixteenths of a unit) so that a unit
//! takes about as long whatever its kind. A stage whose budget of work is spent stops at
//! the same point of its computation on any machine and under any load; the instant remains
//! as a safety net.
//!
//! Once either is reached, the conversions of the polyhedra give up as if their own budget
//! were spent, an ideal membership test answers "not shown", and a solver check answers
//! unknown. Their callers already have a sound answer for that (an interval hull; no proof),
//! so a stage whose share ends inside one large operation stops there instead of running on
//! past its share. Only polyhedra budgets that ask for it (`Budget::stoppable`) stop: the
//! exact operations run with an unlimited budget never fail, though their work is counted.

use std::cell::Cell;
use std::time::Instant;

/// What a unit of counted work is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Work {
    /// One unit of the solver's own resource count (its `rlimit`).
    Solver,
    /// One adjacency test of a polyhedra conversion (or the ray scan it costs).
    Conversion,
    /// One step of the classic engine (a block's transfer over a dimension), or several
    /// in a domain whose steps are cheap (`NumericDomain::STEPS_PER_UNIT`).
    Step,
}

impl Work {
    /// How many sixteenths of a unit of the stage's budget one unit of this kind is worth,
    /// so that a unit of each takes about as long on the machines the defaults were
    /// measured on (`-Z debug-work` traces of the real-code projects and the loop set).
    pub const fn sixteenths(self) -> u64 {
        match self {
            // The large queries that take the solver's time cost 2 to 4 µs a resource
            // unit (lz4, `--checks all`), the many small ones 0.5 µs.
            Work::Solver => 40 * 16,
            // A bitset test over the rows two rays saturate, or one ray scanned: a few
            // machine words. With these weights the engines and refinement count 3 to 15 M
            // units a second, 6.4 M on average (brotli and lz4, `--checks all`).
            Work::Conversion => 1,
            Work::Step => 16,
        }
    }

    fn index(self) -> usize {
        match self {
            Work::Solver => 0,
            Work::Conversion => 1,
            Work::Step => 2,
        }
    }
}

/// Sixteenths of a unit: the budget is kept in them so that a cheap kind can weigh less
/// than one unit.
const SCALE: u64 = 16;

thread_local! {
    static STOP_AT: Cell<Option<Instant>> = const { Cell::new(None) };
    /// Sixteenths of a unit of work left to the innermost budget, `None` when no budget
    /// counts work.
    static WORK_LEFT: Cell<Option<u64>> = const { Cell::new(None) };
    /// Units of each kind counted on this thread so far, budget or not.
    static COUNTED: Cell<[u64; 3]> = const { Cell::new([0; 3]) };
}

/// Runs `f` with this thread's operations stopping at `at` (or at an earlier instant set
/// around it) and, when `work` is given, once `work` units are spent (or what is left of a
/// budget set around it, which is charged with what `f` spends).
pub fn within<T>(at: Instant, work: Option<u64>, f: impl FnOnce() -> T) -> T {
    let outer_at = STOP_AT.with(Cell::get);
    let outer_left = WORK_LEFT.with(Cell::get);
    let work = work.map(|w| w.saturating_mul(SCALE));
    let inner_left = match (outer_left, work) {
        (Some(o), Some(w)) => Some(o.min(w)),
        (o, w) => o.or(w),
    };
    STOP_AT.with(|s| s.set(Some(outer_at.map_or(at, |o| o.min(at)))));
    WORK_LEFT.with(|w| w.set(inner_left));
    let _restore = Restore {
        at: outer_at,
        left: outer_left,
        inner_start: inner_left,
    };
    f()
}

/// Runs `f` with this thread's operations stopping at `at`, or at an earlier instant set
/// around it; the budget of work set around it, if any, still holds.
pub fn until<T>(at: Instant, f: impl FnOnce() -> T) -> T {
    within(at, None, f)
}

/// Puts the outer limits back, the outer budget less what the inner one spent, also when
/// `f` unwinds.
struct Restore {
    at: Option<Instant>,
    left: Option<u64>,
    inner_start: Option<u64>,
}

impl Drop for Restore {
    fn drop(&mut self) {
        let spent = match (self.inner_start, WORK_LEFT.with(Cell::get)) {
            (Some(start), Some(now)) => start.saturating_sub(now),
            _ => 0,
        };
        STOP_AT.with(|s| s.set(self.at));
        WORK_LEFT.with(|w| w.set(self.left.map(|l| l.saturating_sub(spent))));
    }
}

/// Counts `amount` of `kind` against this thread's budget of work, if any.
pub fn charge(kind: Work, amount: u64) {
    if amount == 0 {
        return;
    }
    COUNTED.with(|c| {
        let mut counted = c.get();
        counted[kind.index()] = counted[kind.index()].saturating_add(amount);
        c.set(counted);
    });
    WORK_LEFT.with(|w| {
        if let Some(left) = w.get() {
            w.set(Some(
                left.saturating_sub(amount.saturating_mul(kind.sixteenths())),
            ));
        }
    });
}

/// Whether this thread's stop instant has passed or its budget of work is spent.
pub fn reached() -> bool {
    work_spent() || STOP_AT.with(|s| s.get().is_some_and(crate::clock::passed))
}

/// Spends what is left of this thread's budget of work, if any: an operation that cannot
/// go on with less than one of its own units left (a solver check) ends it.
pub fn exhaust() {
    WORK_LEFT.with(|w| {
        if w.get().is_some() {
            w.set(Some(0));
        }
    });
}

/// Whether a budget of work is set on this thread and spent.
pub fn work_spent() -> bool {
    WORK_LEFT.with(|w| w.get().is_some_and(|left| left < SCALE))
}

/// The units of work left to this thread's budget, `None` when none is set.
pub fn work_left() -> Option<u64> {
    WORK_LEFT.with(Cell::get).map(|left| left / SCALE)
}

/// How many units of `kind` what is left of this thread's budget pays for, `None` when no
/// budget is set.
pub fn left_for(kind: Work) -> Option<u64> {
    WORK_LEFT
        .with(Cell::get)
        .map(|left| left / kind.sixteenths())
}

/// The weighted units of work counted on this thread so far, budget or not: a stage's
/// work is the difference of two readings.
pub fn counted() -> u64 {
    let c = COUNTED.with(Cell::get);
    [Work::Solver, Work::Conversion, Work::Step]
        .iter()
        .map(|k| c[k.index()].saturating_mul(k.sixteenths()))
        .fold(0u64, u64::saturating_add)
        / SCALE
}

/// The units of each kind counted on this thread so far (solver, conversion, step).
pub fn counted_by_kind() -> [u64; 3] {
    COUNTED.with(Cell::get)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_earlier_instant_holds_inside_and_the_outer_one_after() {
        let past = crate::clock::now();
        let later = past + Duration::from_secs(3600);
        assert!(!reached());
        until(later, || {
            assert!(!reached());
            until(past, || assert!(reached()));
            assert!(!reached());
            // An inner instant later than the outer one does not extend it.
            until(later + Duration::from_secs(1), || assert!(!reached()));
        });
        until(past, || {
            until(later, || assert!(reached()));
        });
        assert!(!reached());
    }

    #[test]
    fn a_budget_of_work_stops_once_spent_and_charges_the_outer_one() {
        let later = crate::clock::now() + Duration::from_secs(3600);
        assert_eq!(work_left(), None);
        within(later, Some(100), || {
            charge(Work::Step, 30);
            assert_eq!(work_left(), Some(70));
            within(later, Some(50), || {
                charge(Work::Step, 20);
                assert_eq!(work_left(), Some(30));
            });
            // The inner budget's work is the outer one's too.
            assert_eq!(work_left(), Some(50));
            // An inner budget larger than what is left does not extend it.
            within(later, Some(1000), || assert_eq!(work_left(), Some(50)));
            // A limit of time only keeps the budget of work.
            until(later, || {
                charge(Work::Solver, 50);
                assert!(reached());
            });
            assert_eq!(work_left(), Some(0));
            assert!(work_spent() && reached());
        });
        assert_eq!(work_left(), None);
        assert!(!reached());
    }

    #[test]
    fn work_is_counted_without_a_budget() {
        let before = counted();
        charge(Work::Conversion, 16);
        charge(Work::Step, 3);
        assert_eq!(
            counted() - before,
            (16 * Work::Conversion.sixteenths() + 48) / 16
        );
        assert_eq!(work_left(), None);
    }
}
