//! An instant after which the conversions of the polyhedra give up as if their budget of
//! work were spent, and an ideal membership test answers "not shown". Their callers already
//! have a sound answer for that (an interval hull; no proof), so a stage whose deadline
//! passes inside one large operation stops within milliseconds instead of running on for
//! seconds past its share.
//!
//! Only polyhedra budgets that ask for it (`Budget::stoppable`) stop: the exact operations
//! run with an unlimited budget never fail.

use std::cell::Cell;
use std::time::Instant;

thread_local! {
    static STOP_AT: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// Runs `f` with this thread's operations stopping at `at`, or at an earlier instant set
/// around it.
pub fn until<T>(at: Instant, f: impl FnOnce() -> T) -> T {
    let outer = STOP_AT.with(Cell::get);
    STOP_AT.with(|s| s.set(Some(outer.map_or(at, |o| o.min(at)))));
    let _restore = Restore(outer);
    f()
}

/// Puts the outer instant back, also when `f` unwinds.
struct Restore(Option<Instant>);

impl Drop for Restore {
    fn drop(&mut self) {
        STOP_AT.with(|s| s.set(self.0));
    }
}

/// Whether this thread's stop instant has passed.
pub fn reached() -> bool {
    STOP_AT.with(|s| s.get().is_some_and(|at| Instant::now() >= at))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_earlier_instant_holds_inside_and_the_outer_one_after() {
        let past = Instant::now();
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
}
