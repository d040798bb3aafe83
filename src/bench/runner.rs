//! Runs one child process under a time and a memory limit, and measures it.
//!
//! The child runs in its own process group (so that a timeout kills the analyzer and whatever
//! it started, e.g. clang), with `RLIMIT_AS` (address space) set in `pre_exec` for the memory
//! limit and `RLIMIT_CPU` a little above the time limit as a backstop. The time limit is
//! reached once the child's CPU time (its own and its waited-for children's) and its
//! wall-clock time both exceed it, so that the load of other processes does not end a run
//! early (the analyzer's own budgets count CPU time too, `crate::clock`); a child that waits
//! (a hang) is killed at [`WALL_BACKSTOP`] times the limit of wall-clock time. Its stdout and stderr
//! go to anonymous temporary files, so a chatty child never blocks on a full pipe.
//!
//! Termination is detected by polling `waitid(WNOWAIT)`, which leaves the child a zombie; the
//! harness then kills the rest of the process group (while the group id cannot be reused) and
//! reaps the child with `wait4`, whose `rusage` gives the CPU time (user + system, including
//! the descendants the child waited for) and the peak resident set size.
//!
//! The child's `TMPDIR` is a folder of its own, removed once its group is dead: a child
//! killed at its time limit cannot remove its own temporary files (polyfocus's replay
//! folders hold the inputs a replay was served, tens of MB each), so the harness does.
//! Its default cache of results is off (`POLYFOCUS_CACHE=off`): the benchmark, soundness
//! and SV-COMP runs measure an analysis, never an earlier run's results.

use std::io::{Read, Seek, SeekFrom};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How many times its time limit a child may take in wall-clock time: a child that hangs
/// without computing is killed then, one that computes on a machine loaded more than that
/// too (its answer is then `timeout`, never a verdict).
pub const WALL_BACKSTOP: u32 = 3;

/// Resource limits of one run.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Time limit: the process group is killed once the child has spent it both in CPU time
    /// and in wall-clock time, or [`WALL_BACKSTOP`] times it in wall-clock time.
    pub time: Duration,
    /// Address-space limit (`RLIMIT_AS`), in bytes; `None` for no limit.
    pub memory_bytes: Option<u64>,
}

/// How the child ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Termination {
    /// Normal exit with this status.
    Exited(i32),
    /// Killed by this signal (including the harness's own `SIGKILL` on timeout).
    Signaled(i32),
}

/// What one run produced and cost.
#[derive(Clone, Debug)]
pub struct ChildOutcome {
    /// How the child ended.
    pub termination: Termination,
    /// Whether the harness killed it for exceeding its time limit.
    pub timed_out: bool,
    /// User + system CPU time.
    pub cpu: Duration,
    /// Wall-clock time from spawn to exit (or kill).
    pub wall: Duration,
    /// Peak resident set size, in KiB.
    pub max_rss_kb: u64,
    /// Standard output (lossily decoded, at most 16 MiB).
    pub stdout: String,
    /// Standard error (lossily decoded, at most 16 MiB).
    pub stderr: String,
}

/// The most of a run's output kept, in bytes: a guard against a run that prints without end.
const MAX_CAPTURE: u64 = 16 << 20;

/// Runs `program args...` under `limits` and waits for it.
pub fn run_limited(
    program: &Path,
    args: &[String],
    limits: &Limits,
) -> std::io::Result<ChildOutcome> {
    let mut stdout_file = tempfile::tempfile()?;
    let mut stderr_file = tempfile::tempfile()?;
    let scratch = tempfile::Builder::new()
        .prefix("polyfocus-run-")
        .tempdir()?;
    let mut command = Command::new(program);
    command
        .args(args)
        .env("TMPDIR", scratch.path())
        // A measured run analyzes every function: no results from an earlier run.
        .env("POLYFOCUS_CACHE", "off")
        .stdin(Stdio::null())
        .stdout(stdout_file.try_clone()?)
        .stderr(stderr_file.try_clone()?)
        .process_group(0);
    let memory_bytes = limits.memory_bytes;
    let cpu_seconds = limits.time.as_secs() + 5;
    // SAFETY: the closure only calls async-signal-safe functions (setrlimit) between fork and
    // exec, and allocates nothing.
    unsafe {
        command.pre_exec(move || {
            if let Some(bytes) = memory_bytes {
                set_limit(libc::RLIMIT_AS, bytes)?;
            }
            set_limit(libc::RLIMIT_CPU, cpu_seconds)?;
            crate::interrupt::die_with_parent()
        });
    }
    let start = Instant::now();
    let child = command.spawn()?;
    let pid = child.id() as libc::pid_t;
    // Killed with the rest of its group if the harness is interrupted.
    let group = crate::interrupt::ChildGroup::register(child.id());
    let deadline = start + limits.time;
    let backstop = start + limits.time.saturating_mul(WALL_BACKSTOP);
    let mut timed_out = false;
    let mut pause = Duration::from_millis(1);
    loop {
        if has_exited(pid)? {
            break;
        }
        let now = Instant::now();
        if now >= backstop || (now >= deadline && cpu_time(pid) >= limits.time) {
            timed_out = true;
            break;
        }
        if now < deadline {
            std::thread::sleep(pause.min(deadline - now));
        } else {
            std::thread::sleep(pause);
        }
        pause = (pause * 2).min(Duration::from_millis(20));
    }
    let wall = start.elapsed();
    // Kill what is left of the group: everything on timeout, stray grandchildren otherwise.
    // SAFETY: plain system call; the group id is still ours since the leader is not reaped.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
    }
    let (status, usage) = reap(pid)?;
    drop(group);
    drop(child);
    // The group is dead: nothing writes into its temporary folder any more.
    drop(scratch);
    let termination = if libc::WIFSIGNALED(status) {
        Termination::Signaled(libc::WTERMSIG(status))
    } else {
        Termination::Exited(libc::WEXITSTATUS(status))
    };
    let cpu = timeval(usage.ru_utime) + timeval(usage.ru_stime);
    Ok(ChildOutcome {
        termination,
        timed_out,
        cpu,
        wall,
        max_rss_kb: usage.ru_maxrss.max(0) as u64,
        stdout: read_all(&mut stdout_file)?,
        stderr: read_all(&mut stderr_file)?,
    })
}

fn set_limit(resource: libc::__rlimit_resource_t, value: u64) -> std::io::Result<()> {
    let limit = libc::rlimit {
        rlim_cur: value as libc::rlim_t,
        rlim_max: value as libc::rlim_t,
    };
    // SAFETY: plain system call on a valid struct.
    if unsafe { libc::setrlimit(resource, &limit) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// The CPU time of a running child, its own and that of the children it waited for, from
/// `/proc` (zero where it cannot be read, so that only the wall-clock backstop applies).
fn cpu_time(pid: libc::pid_t) -> Duration {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return Duration::ZERO;
    };
    // The fields after the command name (which may hold spaces, in parentheses): the state,
    // then utime, stime, cutime and cstime at 11 to 14, in clock ticks.
    let Some(rest) = stat.rfind(')').map(|at| &stat[at + 1..]) else {
        return Duration::ZERO;
    };
    let ticks: u64 = rest
        .split_whitespace()
        .skip(11)
        .take(4)
        .filter_map(|f| f.parse::<u64>().ok())
        .sum();
    // SAFETY: sysconf has no preconditions.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if per_second <= 0 {
        return Duration::ZERO;
    }
    Duration::from_secs_f64(ticks as f64 / per_second as f64)
}

/// Whether `pid` has terminated, without reaping it.
fn has_exited(pid: libc::pid_t) -> std::io::Result<bool> {
    loop {
        // SAFETY: siginfo_t is plain data; zeroed is a valid value and waitid fills it.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
        // SAFETY: plain system call on a valid pointer.
        let r = unsafe { libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, flags) };
        if r == -1 {
            let err = std::io::Error::last_os_error();
            if err.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(err);
        }
        // SAFETY: waitid succeeded, so si_pid is initialised (0 when nothing changed).
        return Ok(unsafe { info.si_pid() } != 0);
    }
}

/// Reaps `pid`, returning its wait status and resource usage.
fn reap(pid: libc::pid_t) -> std::io::Result<(i32, libc::rusage)> {
    loop {
        let mut status = 0;
        // SAFETY: rusage is plain data; wait4 fills it.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: plain system call on valid pointers.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == -1 {
            let err = std::io::Error::last_os_error();
            if err.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(err);
        }
        return Ok((status, usage));
    }
}

fn timeval(tv: libc::timeval) -> Duration {
    Duration::from_secs(tv.tv_sec.max(0) as u64) + Duration::from_micros(tv.tv_usec.max(0) as u64)
}

fn read_all(file: &mut std::fs::File) -> std::io::Result<String> {
    file.seek(SeekFrom::Start(0))?;
    let mut bytes = Vec::new();
    file.take(MAX_CAPTURE).read_to_end(&mut bytes)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str, limits: &Limits) -> ChildOutcome {
        run_limited(
            Path::new("/bin/sh"),
            &["-c".to_string(), script.to_string()],
            limits,
        )
        .unwrap()
    }

    fn limits(ms: u64) -> Limits {
        Limits {
            time: Duration::from_millis(ms),
            memory_bytes: Some(1 << 30),
        }
    }

    #[test]
    fn captures_output_and_exit_status() {
        let out = sh("echo out; echo err >&2; exit 7", &limits(10_000));
        assert_eq!(out.termination, Termination::Exited(7));
        assert_eq!(out.stdout, "out\n");
        assert_eq!(out.stderr, "err\n");
        assert!(!out.timed_out);
    }

    #[test]
    fn a_busy_child_is_killed_once_it_has_spent_its_time() {
        let started = Instant::now();
        let out = sh("while :; do :; done", &limits(300));
        assert!(out.timed_out);
        assert!(out.cpu >= Duration::from_millis(250), "{:?}", out.cpu);
        // Well before the wall-clock backstop.
        assert!(started.elapsed() < Duration::from_millis(2000));
    }

    #[test]
    fn kills_the_group_on_timeout() {
        let started = Instant::now();
        // The grandchild `sleep` must die too, or the test would wait for it.
        let out = sh("sleep 30 & sleep 30; wait", &limits(300));
        assert!(out.timed_out);
        assert_eq!(out.termination, Termination::Signaled(libc::SIGKILL));
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn a_killed_child_leaves_no_temporary_files() {
        // The child writes into its `TMPDIR` and is killed at the limit, as a polyfocus
        // killed in the middle of a replay.
        let out = sh(
            "echo $TMPDIR; mkdir $TMPDIR/replay && echo x > $TMPDIR/replay/served.txt; sleep 30",
            &limits(300),
        );
        assert!(out.timed_out);
        let dir = std::path::PathBuf::from(out.stdout.trim());
        assert!(dir.starts_with(std::env::temp_dir()), "{dir:?}");
        assert!(!dir.exists(), "{dir:?} is left behind");
    }

    #[test]
    fn reports_signals_and_cpu_time() {
        let out = sh(
            "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; kill -SEGV $$",
            &limits(20_000),
        );
        assert_eq!(out.termination, Termination::Signaled(libc::SIGSEGV));
        assert!(out.cpu > Duration::ZERO);
        assert!(out.max_rss_kb > 0);
    }
}
