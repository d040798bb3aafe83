//! A parallel map over functions with std threads, and a progress line on a terminal.
//!
//! Each item runs on one worker thread from start to end, so no thread-local state (Z3's
//! context in z3 0.22) crosses threads. Results come back in item order whatever the
//! number of threads, so reports are deterministic.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Stack of each worker thread: the analyses recurse over expressions and regions.
const STACK_SIZE: usize = 256 << 20;

/// `f` applied to each item, with up to `jobs` threads; the results in item order.
/// `label` names an item for the progress line.
pub fn map<T: Sync, R: Send>(
    items: &[T],
    jobs: usize,
    label: impl Fn(&T) -> String + Sync,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let n = items.len();
    let progress = Progress::new(n);
    let jobs = jobs.max(1).min(n.max(1));
    if jobs == 1 {
        let res = items
            .iter()
            .map(|item| {
                progress.started(&label(item));
                let r = f(item);
                progress.finished();
                r
            })
            .collect();
        progress.clear();
        return res;
    }
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<R>>> = (0..n).map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            let worker = || loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= n {
                    break;
                }
                progress.started(&label(&items[i]));
                let r = f(&items[i]);
                *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
                progress.finished();
            };
            std::thread::Builder::new()
                .stack_size(STACK_SIZE)
                .spawn_scoped(scope, worker)
                .expect("spawning an analysis thread");
        }
    });
    progress.clear();
    slots
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .expect("every item was analyzed")
        })
        .collect()
}

/// `[done/total] name` on standard error, rewritten in place; silent when standard error
/// is not a terminal.
struct Progress {
    total: usize,
    done: AtomicUsize,
    enabled: bool,
    lock: Mutex<()>,
}

impl Progress {
    fn new(total: usize) -> Progress {
        Progress {
            total,
            done: AtomicUsize::new(0),
            enabled: total > 1 && std::io::stderr().is_terminal(),
            lock: Mutex::new(()),
        }
    }

    fn started(&self, name: &str) {
        if !self.enabled {
            return;
        }
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let done = self.done.load(Ordering::SeqCst);
        let width = 30;
        let filled = width * done / self.total.max(1);
        let mut name: String = name.chars().take(40).collect();
        name.push_str(&" ".repeat(40usize.saturating_sub(name.chars().count())));
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "\r[{}{}] {done}/{} {name}",
            "#".repeat(filled),
            "-".repeat(width - filled),
            self.total
        );
        let _ = err.flush();
    }

    fn finished(&self) {
        self.done.fetch_add(1, Ordering::SeqCst);
    }

    fn clear(&self) {
        if self.enabled {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r{}\r", " ".repeat(90));
            let _ = err.flush();
        }
    }
}
