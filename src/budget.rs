//! Per-function memory budgets: the heap bytes each thread holds, counted by a wrapper
//! around the system allocator.
//!
//! Each function is analyzed on one worker thread from start to end (see
//! `driver::parallel`), so the bytes a thread allocated since the function started, minus
//! those it freed, are the function's heap. The counters are thread-local cells: counting
//! costs one add per allocation, no lock and no atomic.
//!
//! What is not counted: memory that C and C++ libraries allocate themselves (the solver,
//! LLVM); solver queries have their own time limits, and the front end runs before any
//! budget.
//! Memory freed on another thread than the one that allocated it makes that thread's count
//! drift down; a budget only ever compares two readings on the same thread during one
//! function, where that does not happen.
//!
//! Budgets of solver work ([`SolverWork`]): the solver's resource count over a run of
//! queries, which unlike time does not depend on the machine or its load.
//!
//! **Architecture Invariant:** a budget only stops an analysis. A stopped analysis has no
//! invariants, so it can never produce a proof (see `analysis::Outcome`).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The process's allocator: the system allocator, with per-thread counts.
#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// The system allocator plus a per-thread count of live bytes and of their peak.
pub struct CountingAllocator;

thread_local! {
    /// Bytes allocated minus bytes freed by this thread (negative when it freed memory
    /// another thread allocated).
    static LIVE: Cell<isize> = const { Cell::new(0) };
    /// The highest `LIVE` since the last `reset_peak`.
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn grow(bytes: usize) {
    // `try_with` and no destructor: safe to call while the thread is being torn down.
    let _ = LIVE.try_with(|live| {
        let now = live.get().wrapping_add(bytes as isize);
        live.set(now);
        let _ = PEAK.try_with(|peak| {
            if now > peak.get() {
                peak.set(now);
            }
        });
    });
}

fn shrink(bytes: usize) {
    let _ = LIVE.try_with(|live| live.set(live.get().wrapping_sub(bytes as isize)));
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged; the
// counting touches only const-initialized thread-local cells, which never allocate.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        shrink(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            shrink(layout.size());
            grow(new_size);
        }
        p
    }
}

/// Heap bytes this thread holds (allocated minus freed).
fn thread_live_bytes() -> isize {
    LIVE.try_with(Cell::get).unwrap_or(0)
}

/// The process's resident memory in bytes (Linux's `/proc/self/statm`), or `None` where it
/// cannot be read.
pub fn resident_bytes() -> Option<usize> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: usize = statm.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages * usize::try_from(page).ok().filter(|p| *p > 0)?)
}

/// Gives the heap that is free but still mapped back to the system (glibc keeps what LLVM
/// freed after loading), so that [`resident_bytes`] measures what the process holds.
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free pages of the allocator's arenas.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// A limit on the heap a thread may add from now on.
#[derive(Clone, Copy, Debug)]
pub struct MemoryBudget {
    baseline: isize,
    max_bytes: isize,
}

impl MemoryBudget {
    /// At most `max_bytes` more than this thread holds now.
    pub fn from_now(max_bytes: usize) -> MemoryBudget {
        MemoryBudget {
            baseline: thread_live_bytes(),
            max_bytes: max_bytes.min(isize::MAX as usize) as isize,
        }
    }

    /// True while the thread holds more than its budget.
    pub fn exceeded(&self) -> bool {
        thread_live_bytes().saturating_sub(self.baseline) > self.max_bytes
    }
}

/// The highest heap a thread held during a stretch of work, for reports.
#[derive(Clone, Copy, Debug)]
pub struct HeapMeter {
    baseline: isize,
}

impl HeapMeter {
    /// Starts measuring on this thread (forgets the thread's earlier peak).
    pub fn start() -> HeapMeter {
        let baseline = thread_live_bytes();
        let _ = PEAK.try_with(|peak| peak.set(baseline));
        HeapMeter { baseline }
    }

    /// The most this thread held above what it held at the start, in bytes.
    pub fn peak_bytes(&self) -> usize {
        let peak = PEAK.try_with(Cell::get).unwrap_or(0);
        peak.saturating_sub(self.baseline).max(0) as usize
    }
}

/// A budget of solver work over a run of queries, in the solver's resource count (a
/// count of the solver's own steps, the same on any machine and under any load): at most
/// `total` over the run and `per_query` for one query (0: no limit). The caller asks
/// [`SolverWork::next_query`] for the limit of each query, sets it on its solver, and
/// charges what the query spent; once the total is spent no query is asked, and the
/// caller stops as if the solver had given up. It is only ever a reason to stop: a query
/// that reaches its limit answers `unknown`, which is never evidence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SolverWork {
    total: u64,
    per_query: u64,
    spent: u64,
}

impl SolverWork {
    /// At most `total` units over the run and `per_query` for one query (0: no limit).
    pub fn new(total: u64, per_query: u64) -> SolverWork {
        SolverWork {
            total,
            per_query,
            spent: 0,
        }
    }

    /// No limit: every query gets 0 (the solver's "none"); the work is still counted.
    pub fn unlimited() -> SolverWork {
        SolverWork::new(0, 0)
    }

    /// The limit to set on the next query (0: none), or `None` when the total is spent and
    /// no query may be asked.
    pub fn next_query(&self) -> Option<u32> {
        let left = match self.total {
            0 => None,
            total if self.spent >= total => return None,
            total => Some(total - self.spent),
        };
        let limit = match (left, self.per_query) {
            (None, 0) => return Some(0),
            (None, q) => q,
            (Some(l), 0) => l,
            (Some(l), q) => l.min(q),
        };
        // The solver takes a 32-bit limit; past it, no limit is as good as the largest one.
        Some(u32::try_from(limit).unwrap_or(u32::MAX).max(1))
    }

    /// Counts `units` spent by a query.
    pub fn charge(&mut self, units: u64) {
        self.spent = self.spent.saturating_add(units);
    }

    /// The units spent so far.
    pub fn spent(&self) -> u64 {
        self.spent
    }

    /// Whether the total is spent (never with no total).
    pub fn exhausted(&self) -> bool {
        self.next_query().is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::{HeapMeter, MemoryBudget, SolverWork};

    #[test]
    fn solver_work_limits_each_query_by_what_is_left_and_stops_when_spent() {
        let mut work = SolverWork::new(1000, 300);
        assert_eq!(work.next_query(), Some(300));
        work.charge(300);
        work.charge(500);
        assert_eq!(
            work.next_query(),
            Some(200),
            "the last query gets what is left"
        );
        assert!(!work.exhausted());
        work.charge(250);
        assert_eq!(work.next_query(), None);
        assert!(work.exhausted());
        assert_eq!(work.spent(), 1050);
    }

    #[test]
    fn solver_work_without_limits_counts_but_never_stops() {
        let mut work = SolverWork::unlimited();
        assert_eq!(work.next_query(), Some(0), "0: the solver's no limit");
        work.charge(u64::MAX);
        work.charge(5);
        assert_eq!(work.next_query(), Some(0));
        assert!(!work.exhausted());
        assert_eq!(work.spent(), u64::MAX);
        let per_query_only = SolverWork::new(0, 7);
        assert_eq!(per_query_only.next_query(), Some(7));
        let huge = SolverWork::new(u64::MAX, 0);
        assert_eq!(huge.next_query(), Some(u32::MAX));
    }

    #[test]
    fn a_large_allocation_exceeds_a_small_budget_and_freeing_restores_it() {
        let meter = HeapMeter::start();
        let budget = MemoryBudget::from_now(1 << 20);
        assert!(!budget.exceeded());
        let big: Vec<u8> = vec![1; 4 << 20];
        assert!(budget.exceeded(), "4 MiB held against a 1 MiB budget");
        drop(big);
        assert!(!budget.exceeded());
        assert!(meter.peak_bytes() >= 4 << 20);
    }

    #[test]
    fn memory_held_by_another_thread_does_not_count() {
        let budget = MemoryBudget::from_now(1 << 20);
        let other = std::thread::spawn(|| {
            let v: Vec<u8> = vec![1; 4 << 20];
            v.len()
        });
        assert_eq!(other.join().ok(), Some(4 << 20));
        assert!(!budget.exceeded());
    }
}
