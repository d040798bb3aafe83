//! What happens when polyfocus is interrupted (`SIGINT`, `SIGTERM`, `SIGHUP`) or killed.
//!
//! polyfocus starts child processes in their own process groups (native replays, benchmark
//! runs) so that a timeout can kill a child together with whatever it started. A terminal's
//! Ctrl-C reaches only the foreground group, and a `kill` only polyfocus: without this
//! module those children would run on, and the temporary folders of replays would stay
//! behind.
//!
//! - [`install`], called once at start-up before any other thread exists, blocks the three
//!   signals in every thread and lets one thread wait for them; when one arrives it kills
//!   every registered process group, removes every registered folder, and ends the process
//!   with the conventional status `128 + signal`.
//! - [`ChildGroup`] and [`ScratchDir`] register a group or a folder for as long as they live.
//! - [`die_with_parent`] (in a `pre_exec`) makes the kernel kill a child when the thread that
//!   started it dies, which covers `SIGKILL`, the one signal no handler sees.
//!
//! Without [`install`] (library use, tests) the registries are kept but nothing waits for
//! signals: the default dispositions apply.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Process groups started by this process and not yet reaped.
static GROUPS: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());
/// Temporary folders to remove if the process is interrupted.
static DIRS: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());

const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// Blocks `SIGINT`, `SIGTERM` and `SIGHUP` in this thread (threads started later inherit the
/// mask; children do not: the standard library resets it before `exec`) and starts the
/// thread that waits for them. Call it first thing in `main`.
pub fn install() {
    // SAFETY: plain libc calls on a local, initialized signal set.
    let set = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for sig in SIGNALS {
            libc::sigaddset(&mut set, sig);
        }
        if libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) != 0 {
            return; // signals keep their default disposition
        }
        set
    };
    let spawned = std::thread::Builder::new()
        .name("polyfocus-signals".to_string())
        .spawn(move || {
            let mut sig: libc::c_int = 0;
            // SAFETY: `set` is a valid signal set; `sig` is written by sigwait.
            if unsafe { libc::sigwait(&set, &mut sig) } == 0 {
                clean_up();
                // `_exit`, not `exit`: the C library's exit handlers (LLVM's static
                // destructors among them) would run while worker threads still use them.
                // SAFETY: ends the process; nothing after it runs.
                unsafe { libc::_exit(128 + sig) };
            }
        });
    if spawned.is_err() {
        // No waiting thread: unblock, so that the signals still end the process.
        // SAFETY: as above.
        unsafe { libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut()) };
    }
}

/// Kills every registered process group and removes every registered folder.
///
/// Both locks are kept until the process ends: a worker that registers a child or creates a
/// folder now blocks instead of leaving one behind after this clean-up. A child killed a
/// moment ago may still be writing into its folder (`SIGKILL` is delivered asynchronously),
/// so a folder that is not gone is removed again, the groups killed again, a few times.
/// At the process's normal end: the temporary folders of work still running in the
/// background (a compile for a later replay that none needs now) are removed, and its
/// children killed. Call it last, just before `exit`.
pub fn clean_up_at_exit() {
    clean_up();
}

fn clean_up() {
    let groups = lock(&GROUPS);
    let kill_all = || {
        for &pgid in groups.iter() {
            // SAFETY: plain system call; the group's leader is not reaped while registered,
            // so the id is still ours.
            unsafe { libc::kill(-pgid, libc::SIGKILL) };
        }
    };
    kill_all();
    let dirs = lock(&DIRS);
    for dir in dirs.iter() {
        for _ in 0..100 {
            let _ = std::fs::remove_dir_all(dir);
            if !dir.exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
            kill_all();
        }
    }
    std::mem::forget(dirs);
    std::mem::forget(groups);
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic elsewhere while holding the lock leaves a usable set behind.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A child process group, registered while it lives: the leader's pid, which is the
/// group id of a child started with `process_group(0)`. Drop it after reaping the leader.
pub struct ChildGroup(i32);

impl ChildGroup {
    /// Registers the group led by `pid`.
    pub fn register(pid: u32) -> ChildGroup {
        let pgid = pid as i32;
        lock(&GROUPS).insert(pgid);
        ChildGroup(pgid)
    }
}

impl Drop for ChildGroup {
    fn drop(&mut self) {
        lock(&GROUPS).remove(&self.0);
    }
}

/// A temporary folder removed when dropped, and also when the process is interrupted.
pub struct ScratchDir {
    dir: tempfile::TempDir,
}

impl ScratchDir {
    /// A new folder in the system's temporary directory, its name starting with `prefix`.
    pub fn new(prefix: &str) -> std::io::Result<ScratchDir> {
        // Created and registered under one lock, so that the clean-up of an interruption
        // sees either no folder or a registered one.
        let mut dirs = lock(&DIRS);
        let dir = tempfile::Builder::new().prefix(prefix).tempdir()?;
        dirs.insert(dir.path().to_path_buf());
        Ok(ScratchDir { dir })
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        lock(&DIRS).remove(self.dir.path());
    }
}

/// For a `pre_exec`: asks the kernel to `SIGKILL` the child when the thread that started it
/// ends, so that a polyfocus killed by `SIGKILL` leaves no child behind. Async-signal-safe.
pub fn die_with_parent() -> std::io::Result<()> {
    // SAFETY: prctl with integer arguments; no memory is touched.
    if unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registries_follow_the_guards() {
        let dir = ScratchDir::new("polyfocus-test-").unwrap();
        let path = dir.path().to_path_buf();
        assert!(lock(&DIRS).contains(&path));
        drop(dir);
        assert!(!lock(&DIRS).contains(&path));
        assert!(!path.exists());
        let group = ChildGroup::register(999_999);
        assert!(lock(&GROUPS).contains(&999_999));
        drop(group);
        assert!(!lock(&GROUPS).contains(&999_999));
    }
}
