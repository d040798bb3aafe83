//! A parallel map over functions with std threads, and a progress line on a terminal
//! (each running function with its stage, see [`crate::progress`]).
//!
//! Each item runs on one worker thread from start to end, in a solver context of its own,
//! so no thread-local state (the solver's context is one) crosses threads or items.
//! Results come back in item order whatever the number of threads, so reports are
//! deterministic.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

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
    let jobs = jobs.max(1).min(n.max(1));
    let progress = Progress::new(n, jobs);
    // Runs one item on worker `w`, with that worker's stage slot installed.
    let run_one = |w: usize, item: &T| {
        progress.started(w, &label(item));
        let _installed = crate::progress::install(progress.workers[w].stage.clone());
        // A solver context of its own: the terms an earlier item left in the thread's
        // context would change the models (hence the paths, the work counted and the
        // verdicts) of this one, depending on which items the thread ran before.
        let mut r = None;
        crate::smt::in_own_context(|| r = Some(f(item)));
        let r = r.expect("the item ran in its own solver context");
        progress.finished(w);
        r
    };
    let all_done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let ticker = progress
            .enabled
            .then(|| scope.spawn(|| progress.tick_until(&all_done)));
        let res = if jobs == 1 {
            let res: Vec<R> = items.iter().map(|item| run_one(0, item)).collect();
            res
        } else {
            let next = AtomicUsize::new(0);
            let slots: Vec<Mutex<Option<R>>> = (0..n).map(|_| Mutex::new(None)).collect();
            std::thread::scope(|workers| {
                for w in 0..jobs {
                    let (next, slots, run_one) = (&next, &slots, &run_one);
                    let worker = move || loop {
                        let i = next.fetch_add(1, Ordering::SeqCst);
                        if i >= n {
                            break;
                        }
                        let r = run_one(w, &items[i]);
                        *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
                    };
                    std::thread::Builder::new()
                        .stack_size(STACK_SIZE)
                        .spawn_scoped(workers, worker)
                        .expect("spawning an analysis thread");
                }
            });
            slots
                .into_iter()
                .map(|slot| {
                    slot.into_inner()
                        .unwrap_or_else(|e| e.into_inner())
                        .expect("every item was analyzed")
                })
                .collect()
        };
        all_done.store(true, Ordering::SeqCst);
        if let Some(ticker) = ticker {
            ticker.thread().unpark();
        }
        res
    })
}

/// What one worker is doing: its item, since when, and the stage it is in.
struct Worker {
    item: Mutex<Option<(String, Instant)>>,
    stage: crate::progress::StageSlot,
}

/// `[done/total] name: stage (time)` on standard error, redrawn in place every
/// [`TICK`] once the run is older than [`QUIET`]; silent when standard error is not a
/// terminal.
struct Progress {
    total: usize,
    done: AtomicUsize,
    enabled: bool,
    started: Instant,
    workers: Vec<Worker>,
}

/// Runs shorter than this show no progress.
const QUIET: Duration = Duration::from_secs(1);
/// How often the progress line is redrawn.
const TICK: Duration = Duration::from_millis(200);
/// Width of the progress line.
const WIDTH: usize = 100;

impl Progress {
    fn new(total: usize, jobs: usize) -> Progress {
        Progress {
            total,
            done: AtomicUsize::new(0),
            enabled: total > 0 && std::io::stderr().is_terminal(),
            started: Instant::now(),
            workers: (0..jobs)
                .map(|_| Worker {
                    item: Mutex::new(None),
                    stage: Default::default(),
                })
                .collect(),
        }
    }

    fn started(&self, worker: usize, name: &str) {
        let w = &self.workers[worker];
        *w.stage.lock().unwrap_or_else(|e| e.into_inner()) = String::new();
        *w.item.lock().unwrap_or_else(|e| e.into_inner()) =
            Some((name.to_string(), Instant::now()));
    }

    fn finished(&self, worker: usize) {
        *self.workers[worker]
            .item
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = None;
        self.done.fetch_add(1, Ordering::SeqCst);
    }

    /// Redraws until `all_done`, then clears the line if it drew one.
    fn tick_until(&self, all_done: &AtomicBool) {
        let mut drawn = false;
        while !all_done.load(Ordering::SeqCst) {
            std::thread::park_timeout(TICK);
            if self.started.elapsed() >= QUIET && !all_done.load(Ordering::SeqCst) {
                self.draw();
                drawn = true;
            }
        }
        if drawn {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r{}\r", " ".repeat(WIDTH));
            let _ = err.flush();
        }
    }

    fn draw(&self) {
        let done = self.done.load(Ordering::SeqCst);
        let bar = 20;
        let filled = bar * done / self.total.max(1);
        let running: Vec<String> = self
            .workers
            .iter()
            .filter_map(|w| {
                let item = w.item.lock().unwrap_or_else(|e| e.into_inner()).clone()?;
                let stage = w.stage.lock().unwrap_or_else(|e| e.into_inner()).clone();
                let (name, since) = item;
                let secs = since.elapsed().as_secs_f64();
                Some(if stage.is_empty() {
                    format!("{name} ({secs:.1} s)")
                } else {
                    format!("{name}: {stage} ({secs:.1} s)")
                })
            })
            .collect();
        let mut line = format!(
            "[{}{}] {done}/{} {}",
            "#".repeat(filled),
            "-".repeat(bar - filled),
            self.total,
            running.join(" | ")
        );
        line = line.chars().take(WIDTH).collect();
        let pad = WIDTH.saturating_sub(line.chars().count());
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r{line}{}", " ".repeat(pad));
        let _ = err.flush();
    }
}
