//! Progress display on stderr while a benchmark runs.
//!
//! On a terminal, one line redrawn after each finished run; otherwise (CI logs, files) a plain
//! line at every tenth of the runs or every 30 seconds, whichever comes first.

use super::json::Record;
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// Counts finished runs and reports them on stderr.
pub struct Progress {
    total: usize,
    done: usize,
    n_correct: usize,
    n_unknown: usize,
    n_wrong: usize,
    start: Instant,
    terminal: bool,
    last_plain: Instant,
    next_plain_step: usize,
}

impl Progress {
    /// Starts counting `total` runs.
    pub fn new(total: usize) -> Progress {
        let now = Instant::now();
        Progress {
            total,
            done: 0,
            n_correct: 0,
            n_unknown: 0,
            n_wrong: 0,
            start: now,
            terminal: std::io::stderr().is_terminal(),
            last_plain: now,
            next_plain_step: 1,
        }
    }

    /// Records one finished run.
    pub fn record(&mut self, record: &Record) {
        self.done += 1;
        if record.class.is_correct() {
            self.n_correct += 1;
        } else if record.class.is_wrong() {
            self.n_wrong += 1;
        } else {
            self.n_unknown += 1;
        }
        let elapsed = self.start.elapsed();
        let mut err = std::io::stderr().lock();
        if self.terminal {
            let width = 24;
            let filled = width * self.done / self.total.max(1);
            let bar = format!("{}{}", "#".repeat(filled), ".".repeat(width - filled));
            let mut task = format!("{} [{}]", record.task, record.config);
            if task.chars().count() > 50 {
                task = format!(
                    "…{}",
                    task.chars()
                        .rev()
                        .take(49)
                        .collect::<Vec<_>>()
                        .into_iter()
                        .rev()
                        .collect::<String>()
                );
            }
            let _ = write!(
                err,
                "\r\x1b[K[{bar}] {}/{} ok {} unknown {} wrong {} {:.0}s  {task}",
                self.done,
                self.total,
                self.n_correct,
                self.n_unknown,
                self.n_wrong,
                elapsed.as_secs_f64()
            );
            let _ = err.flush();
        } else {
            let step_reached = self.done * 10 >= self.next_plain_step * self.total;
            let stale = self.last_plain.elapsed() >= Duration::from_secs(30);
            if step_reached || stale || self.done == self.total {
                while self.next_plain_step * self.total <= self.done * 10 {
                    self.next_plain_step += 1;
                }
                self.last_plain = Instant::now();
                let _ = writeln!(
                    err,
                    "bench: {}/{} runs done (ok {}, unknown {}, wrong {}), {:.0}s",
                    self.done,
                    self.total,
                    self.n_correct,
                    self.n_unknown,
                    self.n_wrong,
                    elapsed.as_secs_f64()
                );
            }
        }
    }

    /// Ends the display (clears the terminal line).
    pub fn finish(&self) {
        if self.terminal {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[K");
            let _ = writeln!(
                err,
                "bench: {} runs in {:.1}s",
                self.done,
                self.start.elapsed().as_secs_f64()
            );
        }
    }
}
