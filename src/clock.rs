//! The clocks budgets are counted on: CPU time, not the wall clock.
//!
//! A function is analyzed on one worker thread from start to end (`driver::parallel`), and
//! its budgets of time (`--timeout`, its share of the run's plan, each stage's share) are
//! counted in the CPU time of that thread: [`now`] is an `Instant` that advances only while
//! the thread runs. The run's safety stop ([`RunStop`]) is counted in the CPU time of the
//! process (and of the compilers it waited for) per worker. Neither moves while other processes have the CPU, so a run beside
//! busy processes does the same work as on an idle machine and gives the same verdicts,
//! up to how much CPU time the same work takes from run to run (caches, frequency). A
//! solver query's limit is the CPU time of the thread that checks it (`smt`).
//!
//! A native build or run of a counterexample that the thread waits for is work of the
//! thread too: when it is reaped ([`try_reap`]), its CPU time (with its own children's) is
//! added to the thread's clock, so that searches one after another spend the function's
//! budget as the harnesses count it (process and children). While it runs, the wait has
//! wall-clock limits ([`to_wall`] converts a budget's end for it, stretched by the share of
//! a CPU the thread gets, so that other processes' load does not shorten it either). A
//! wall-clock backstop of [`WALL_SLACK`] times an analysis's deadline, a
//! solver query's limit and the run's budget, which only a thread that waits rather than
//! computes, or a machine many times overloaded, reaches.
//!
//! **Invariant:** an instant from [`now`] is compared only with instants from [`now`] on the
//! same thread; it is never later than `Instant::now()`.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How many times its budget a thread may take in wall-clock time before the budget ends
/// anyway (a thread that waits uses no CPU time).
pub const WALL_SLACK: u32 = 8;

/// CPU time of the calling thread (zero where it cannot be read).
pub fn thread_cpu() -> Duration {
    read(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// CPU time of the process, every thread (zero where it cannot be read).
pub fn process_cpu() -> Duration {
    read(libc::CLOCK_PROCESS_CPUTIME_ID)
}

/// CPU time of the process and of its children that ended (the compilers and native runs
/// it waited for): what the run's budget counts.
pub fn run_cpu() -> Duration {
    // SAFETY: `usage` is a valid rusage the call writes; a failure leaves it zero.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let children = if unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) } == 0 {
        timeval(usage.ru_utime) + timeval(usage.ru_stime)
    } else {
        Duration::ZERO
    };
    process_cpu() + children
}

fn read(clock: libc::clockid_t) -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec the call writes; a failure leaves it zero.
    if unsafe { libc::clock_gettime(clock, &mut ts) } != 0 {
        return Duration::ZERO;
    }
    Duration::new(
        ts.tv_sec.max(0) as u64,
        ts.tv_nsec.clamp(0, 999_999_999) as u32,
    )
}

thread_local! {
    /// The wall-clock instant and the thread's CPU time when the thread first read [`now`].
    static ORIGIN: Cell<Option<(Instant, Duration)>> = const { Cell::new(None) };
    /// The last instant [`passed`] found not passed, and the wall-clock instant before which
    /// it cannot pass (the thread's clock advances at most as fast as the wall clock).
    static NOT_BEFORE: Cell<Option<(Instant, Instant)>> = const { Cell::new(None) };
    /// The CPU time of the children the thread reaped ([`try_reap`]).
    static CHILDREN: Cell<Duration> = const { Cell::new(Duration::ZERO) };
}

/// The thread's budget clock: its first reading's wall-clock instant plus the CPU time the
/// thread spent since, with that of the children it reaped, never past the wall clock.
pub fn now() -> Instant {
    let cpu = thread_cpu() + CHILDREN.with(Cell::get);
    let (wall, cpu0) = ORIGIN.with(|o| match o.get() {
        Some(origin) => origin,
        None => {
            let origin = (Instant::now(), cpu);
            o.set(Some(origin));
            origin
        }
    });
    // A child with threads of its own may spend more CPU than the wall time it took.
    (wall + cpu.saturating_sub(cpu0)).min(Instant::now())
}

/// `child`'s exit status once it has ended (`None` while it runs), reaping it: its CPU time
/// and that of the children it waited for count on the calling thread's clock ([`now`]).
/// After `Some`, `child` must not be waited for again.
pub fn try_reap(
    child: &mut std::process::Child,
) -> std::io::Result<Option<std::process::ExitStatus>> {
    reap(child, libc::WNOHANG)
}

/// [`try_reap`], waiting for `child` to end.
pub fn reap_blocking(child: &mut std::process::Child) -> std::io::Result<std::process::ExitStatus> {
    match reap(child, 0)? {
        Some(status) => Ok(status),
        None => Err(std::io::Error::other("the child did not end")),
    }
}

fn reap(
    child: &mut std::process::Child,
    options: libc::c_int,
) -> std::io::Result<Option<std::process::ExitStatus>> {
    use std::os::unix::process::ExitStatusExt;
    let mut status: libc::c_int = 0;
    // SAFETY: `status` and `usage` are valid for the call to write.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = loop {
        let pid =
            unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, options, &mut usage) };
        if pid >= 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            break pid;
        }
    };
    match pid {
        0 => Ok(None),
        p if p < 0 => Err(std::io::Error::last_os_error()),
        _ => {
            let spent = timeval(usage.ru_utime) + timeval(usage.ru_stime);
            CHILDREN.with(|c| c.set(c.get() + spent));
            // The clock jumped by what the child ran, maybe since before the cached wait.
            NOT_BEFORE.with(|n| n.set(None));
            Ok(Some(std::process::ExitStatus::from_raw(status)))
        }
    }
}

fn timeval(t: libc::timeval) -> Duration {
    Duration::new(
        t.tv_sec.max(0) as u64,
        (t.tv_usec.clamp(0, 999_999) as u32) * 1000,
    )
}

/// Whether the thread's clock has reached `at` (an instant from [`now`]). Cheap while the
/// wall clock has not reached `at` either, or is short of the time the thread still needs.
pub fn passed(at: Instant) -> bool {
    let wall = Instant::now();
    if wall < at {
        return false;
    }
    if NOT_BEFORE.with(|n| n.get().is_some_and(|(a, w)| a == at && wall < w)) {
        return false;
    }
    let cpu_now = now();
    if cpu_now >= at {
        return true;
    }
    NOT_BEFORE.with(|n| n.set(Some((at, wall + (at - cpu_now)))));
    false
}

/// The thread's CPU time left until `at` (an instant from [`now`]).
pub fn until(at: Instant) -> Duration {
    at.saturating_duration_since(now())
}

thread_local! {
    /// The thread's time on a CPU and waiting for one (`/proc/thread-self/schedstat`, in
    /// ns) when its current pass started ([`mark`]).
    static MARK: Cell<Option<(u64, u64)>> = const { Cell::new(None) };
}

/// The thread's time on a CPU and waiting in the run queue for one, in ns (`None` where the
/// kernel does not tell).
fn schedstat() -> Option<(u64, u64)> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let mut fields = text.split_whitespace().map(|f| f.parse::<u64>().ok());
    Some((fields.next()??, fields.next()??))
}

/// Starts measuring the thread's share of a CPU for [`stretch`]: at the start of a pass
/// over a function.
pub fn mark() {
    MARK.with(|m| m.set(schedstat()));
}

/// The last share a thread measured ([`share`], as `f64` bits): the estimate of a thread that
/// has run too little since its mark to tell (the first stage of a pass).
static LAST_SHARE: AtomicU64 = AtomicU64::new(0x3FF0_0000_0000_0000); // 1.0

/// The share of a CPU the thread got since [`mark`] while it wanted one: its time on a CPU
/// over that time plus its time waiting for one (other processes' load), within
/// `1 / WALL_SLACK` and 1; the last share measured when it has run too little to tell, 1
/// when the kernel does not tell.
fn share() -> f64 {
    let (Some((on0, wait0)), Some((on, wait))) = (MARK.with(Cell::get), schedstat()) else {
        return 1.0;
    };
    let (on, wait) = (on.saturating_sub(on0), wait.saturating_sub(wait0));
    if on < 50_000_000 {
        return f64::from_bits(LAST_SHARE.load(Ordering::Relaxed));
    }
    let share = (on as f64 / (on + wait) as f64).clamp(1.0 / f64::from(WALL_SLACK), 1.0);
    LAST_SHARE.store(share.to_bits(), Ordering::Relaxed);
    share
}

/// The wall-clock time in which the thread gets `cpu` of CPU time at its current share
/// ([`share`]): for code that waits on the wall clock (native builds and runs) within a
/// budget of this clock, so that the load of other processes does not shorten it.
pub fn stretch(cpu: Duration) -> Duration {
    cpu.div_f64(share())
}

/// The CPU time the thread gets before the wall-clock instant `at` at its current share of a
/// CPU ([`share`]): the inverse of [`stretch`], for a solver query (whose limit is CPU time)
/// inside code that counts on the wall clock.
pub fn cpu_before(at: Instant) -> Duration {
    at.saturating_duration_since(Instant::now())
        .mul_f64(share())
}

/// The wall-clock instant by which the thread, at its current share of a CPU, would reach
/// `at` (an instant of [`now`]): see [`stretch`].
pub fn to_wall(at: Instant) -> Instant {
    Instant::now() + stretch(until(at))
}

/// The wall-clock instant `d` from now (far in the future when that overflows).
fn later(d: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(d)
        .or_else(|| now.checked_add(Duration::from_secs(1 << 32)))
        .unwrap_or(now)
}

/// The CPU clock of one thread, read from any thread (a solver query's watchdog reads the
/// checking thread's).
#[derive(Clone, Copy, Debug)]
pub struct ThreadClock {
    id: Option<libc::clockid_t>,
}

impl ThreadClock {
    /// The calling thread's clock.
    pub fn current() -> ThreadClock {
        let mut id: libc::clockid_t = 0;
        // SAFETY: `pthread_self` is the calling thread, alive while the clock is read by
        // anyone holding this value during the thread's life (the watchdog of one query).
        let ok = unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut id) } == 0;
        ThreadClock {
            id: ok.then_some(id),
        }
    }

    /// The thread's CPU time, `None` where it cannot be read.
    pub fn read(&self) -> Option<Duration> {
        self.id.map(read)
    }
}

/// The run's safety stop (`--run-budget`): reached when the process (with the compilers and
/// native runs it waited for, [`run_cpu`]) has spent the budget's CPU time per worker, or,
/// as a backstop, [`WALL_SLACK`] times the budget of wall-clock time.
#[derive(Clone, Copy, Debug)]
pub struct RunStop {
    /// Process CPU time at which the stop is reached.
    cpu_at: Duration,
    /// The wall-clock backstop.
    wall_at: Instant,
    /// Workers the budget is counted per.
    jobs: u32,
}

impl RunStop {
    /// A stop `budget` from now for `jobs` workers.
    pub fn after(budget: Duration, jobs: usize) -> RunStop {
        let jobs = jobs.clamp(1, u32::MAX as usize) as u32;
        RunStop {
            cpu_at: run_cpu().saturating_add(budget.saturating_mul(jobs)),
            wall_at: later(budget.saturating_mul(WALL_SLACK)),
            jobs,
        }
    }

    /// A stop already reached.
    pub fn reached_now() -> RunStop {
        RunStop {
            cpu_at: Duration::ZERO,
            wall_at: Instant::now(),
            jobs: 1,
        }
    }

    /// The time per worker left before the stop.
    pub fn left(&self) -> Duration {
        if Instant::now() >= self.wall_at {
            return Duration::ZERO;
        }
        self.cpu_at.saturating_sub(run_cpu()) / self.jobs
    }

    /// Whether the stop is reached.
    pub fn reached(&self) -> bool {
        self.left().is_zero()
    }

    /// The stop for a program that takes `fraction` (in `(0, 1]`) of what is left.
    pub fn part(&self, fraction: f64) -> RunStop {
        let fraction = fraction.clamp(0.0, 1.0);
        let wall_left = self.wall_at.saturating_duration_since(Instant::now());
        RunStop {
            cpu_at: run_cpu()
                .saturating_add(self.left().saturating_mul(self.jobs).mul_f64(fraction)),
            wall_at: later(wall_left.mul_f64(fraction)),
            jobs: self.jobs,
        }
    }
}

/// Keeps the thread busy until it has spent `d` of CPU time (for tests of budgets).
#[cfg(test)]
pub(crate) fn spin(d: Duration) {
    let start = thread_cpu();
    let mut x = 0u64;
    while thread_cpu() - start < d {
        x = std::hint::black_box(x.wrapping_add(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_thread_clock_advances_with_work_and_not_with_sleep() {
        let t0 = now();
        std::thread::sleep(Duration::from_millis(60));
        let slept = now() - t0;
        assert!(slept < Duration::from_millis(30), "slept {slept:?}");
        spin(Duration::from_millis(40));
        assert!(now() - t0 >= Duration::from_millis(40));
        assert!(now() <= Instant::now());
    }

    #[test]
    fn a_budget_passes_only_once_its_cpu_time_is_spent() {
        let at = now() + Duration::from_millis(30);
        std::thread::sleep(Duration::from_millis(50));
        assert!(!passed(at), "sleeping spends no budget");
        assert!(until(at) > Duration::from_millis(10));
        spin(Duration::from_millis(35));
        assert!(passed(at));
        assert!(until(at).is_zero());
    }

    #[test]
    fn a_reaped_childs_cpu_time_counts_on_the_waiting_threads_clock() {
        let mut child = std::process::Command::new("sh")
            .args(["-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done"])
            .spawn()
            .expect("sh runs");
        let (t0, cpu0) = (now(), thread_cpu());
        let status = loop {
            match try_reap(&mut child).expect("the child can be waited for") {
                Some(status) => break status,
                None => std::thread::sleep(Duration::from_millis(5)),
            }
        };
        assert!(status.success());
        let waited = thread_cpu() - cpu0;
        let counted = now() - t0;
        assert!(
            counted >= waited + Duration::from_millis(50),
            "the clock counted {counted:?}, the thread itself spent {waited:?}"
        );
        assert!(now() <= Instant::now());
    }

    #[test]
    fn another_thread_reads_a_threads_cpu_clock() {
        let clock = ThreadClock::current();
        let before = clock.read().expect("Linux has thread CPU clocks");
        spin(Duration::from_millis(20));
        let read = std::thread::scope(|s| s.spawn(|| clock.read()).join().unwrap());
        assert!(read.unwrap() - before >= Duration::from_millis(20));
    }

    #[test]
    fn an_idle_machine_stretches_no_wall_clock_time() {
        mark();
        spin(Duration::from_millis(80));
        // On a machine where this thread waits for a CPU the stretch is longer, never shorter.
        assert!(stretch(Duration::from_secs(1)) >= Duration::from_secs(1));
        assert!(stretch(Duration::from_secs(1)) <= Duration::from_secs(u64::from(WALL_SLACK)));
    }

    #[test]
    fn the_run_stop_counts_process_time_per_worker() {
        let stop = RunStop::after(Duration::from_secs(100), 2);
        assert!(!stop.reached());
        assert!(stop.left() > Duration::from_secs(99));
        assert!(stop.part(0.25).left() <= Duration::from_secs(25));
        assert!(RunStop::reached_now().reached());
    }
}
