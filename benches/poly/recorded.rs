//! Workload (c): the polyhedra the analyzer meets on the benchmark programs.
//!
//! The analyzer binary this bench was built with records a sample of its polyhedra
//! operations (`polyfocus check -Z record-polyhedra=FILE`, format in
//! `polyfocus::domain::poly::record`) on tasks of `MANIFEST.tsv`, each with the entry, data
//! model and flags of its row, into a temporary folder. Every distinct recorded operation is
//! then replayed with ours and (with the `ppl` feature) with PPL, and the results compared
//! (mutual inclusion, through PPL). Nothing recorded is kept.

use super::{fmt, median, time};
use polyfocus::bench::manifest::{read_manifest, Task};
use polyfocus::bench::runner::{run_limited, Limits};
use polyfocus::bench::{Config, Harness};
use polyfocus::domain::poly::record::{self, OpKind, Operand, Recorded};
use polyfocus::domain::poly::{Budget, Polyhedron};
use polyfocus::domain::{Lattice, NumericDomain};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What to record and how to replay it.
pub struct Settings {
    /// The benchmark folder (with `MANIFEST.tsv`).
    pub bench_dir: PathBuf,
    /// The analyzer binary.
    pub analyzer: PathBuf,
    /// How many tasks, spread over the suites; `None` for every task.
    pub n_tasks: Option<usize>,
    /// The analyzer's time budget per task.
    pub timeout: Duration,
    /// Timed runs per operation and library.
    pub runs: usize,
    /// How long PPL may take on one operation (its exact polyhedra can have exponentially
    /// many generators where ours are decomposed).
    #[cfg_attr(not(feature = "ppl"), allow(dead_code))]
    pub ppl_timeout: Duration,
}

/// Records, replays and prints the table; returns whether every result was identical to
/// PPL's (true without PPL).
pub fn run(settings: &Settings) -> Result<bool, String> {
    let tasks = read_manifest(&settings.bench_dir).map_err(|e| format!("{e:#}"))?;
    let tasks = select(tasks, settings.n_tasks);
    let dir = tempfile::tempdir().map_err(|e| format!("creating a temporary folder: {e}"))?;
    let start = Instant::now();
    let (traces, n_failed) = record_all(settings, &tasks, dir.path());
    let mut seen = HashSet::new();
    let ops: Vec<Recorded> = traces
        .into_iter()
        .flatten()
        .filter(|op| seen.insert(op.clone()))
        .collect();
    eprintln!(
        "recorded {} distinct operations on {} tasks in {:.0} s",
        ops.len(),
        tasks.len() - n_failed,
        start.elapsed().as_secs_f64()
    );
    #[cfg(feature = "ppl")]
    super::ppl::init();
    let mut rows: BTreeMap<OpKind, Row> = BTreeMap::new();
    for op in &ops {
        let row = rows.entry(op.kind()).or_default();
        row.count += 1;
        let (ours, ours_time) = replay_ours(op, settings.runs);
        #[cfg(feature = "ppl")]
        match replay_ppl(op, &ours, settings) {
            Some((same, ppl_time)) => {
                row.ours.push(ours_time);
                row.ppl.push(ppl_time);
                if !same {
                    row.n_different += 1;
                }
            }
            None => row.n_gave_up += 1,
        }
        #[cfg(not(feature = "ppl"))]
        {
            let _ = ours;
            row.ours.push(ours_time);
        }
    }
    println!();
    println!(
        "workload (c): operations recorded on {} of {} tasks of {} ({} failed), each distinct one \
         replayed; median time in microseconds ({} runs each)",
        tasks.len() - n_failed,
        tasks.len(),
        settings.bench_dir.display(),
        n_failed,
        settings.runs
    );
    println!(
        "{:<10} {:>6} {:>8} {:>10} {:>10} {:>8} {:>8}  same",
        "op", "count", "ppl-gave", "ours", "ppl", "ppl/ours", "total"
    );
    let mut all_same = true;
    for kind in OpKind::ALL {
        let Some(row) = rows.get(&kind) else {
            continue;
        };
        if row.ours.is_empty() {
            println!("{:<10} {:>6} {:>8}", kind.name(), row.count, row.n_gave_up);
            continue;
        }
        let ours = median(row.ours.clone());
        let (gave_up, ppl, ratio, total, verdict) = if row.ppl.is_empty() {
            let dash = || "-".to_string();
            (dash(), dash(), dash(), dash(), dash())
        } else {
            let ppl = median(row.ppl.clone());
            let sum = |ts: &[Duration]| ts.iter().sum::<Duration>().as_secs_f64();
            all_same &= row.n_different == 0;
            (
                row.n_gave_up.to_string(),
                fmt(ppl),
                format!("{:.2}", ppl.as_secs_f64() / ours.as_secs_f64()),
                format!("{:.2}", sum(&row.ppl) / sum(&row.ours)),
                if row.n_different == 0 {
                    "yes".to_string()
                } else {
                    format!("NO ({} differ)", row.n_different)
                },
            )
        };
        println!(
            "{:<10} {:>6} {:>8} {:>10} {:>10} {:>8} {:>8}  {}",
            kind.name(),
            row.count,
            gave_up,
            fmt(ours),
            ppl,
            ratio,
            total,
            verdict
        );
    }
    println!(
        "(ppl-gave: operations PPL did not finish within {} s, left out of the other columns; \
         ppl/ours: ratio of the medians; total: ratio of the summed times)",
        settings.ppl_timeout.as_secs_f64()
    );
    Ok(all_same)
}

/// Timings of one kind of operation.
#[derive(Default)]
#[cfg_attr(not(feature = "ppl"), allow(dead_code))]
struct Row {
    /// Distinct operations replayed.
    count: usize,
    /// Our times (only where PPL finished, when PPL is there).
    ours: Vec<Duration>,
    /// PPL's times, same operations.
    ppl: Vec<Duration>,
    /// Operations PPL did not finish in time.
    n_gave_up: usize,
    /// Operations where the results differ.
    n_different: usize,
}

/// `n` tasks spread over the suites: one per suite in turn until `n` are taken, then evenly
/// spaced within each suite (manifest order).
fn select(tasks: Vec<Task>, n: Option<usize>) -> Vec<Task> {
    let Some(n) = n.filter(|&n| n < tasks.len()) else {
        return tasks;
    };
    let mut by_suite: BTreeMap<String, Vec<Task>> = BTreeMap::new();
    for t in tasks {
        by_suite.entry(t.suite.clone()).or_default().push(t);
    }
    let mut quota: BTreeMap<&str, usize> = BTreeMap::new();
    let mut n_left = n;
    while n_left > 0 {
        for (suite, ts) in &by_suite {
            let q = quota.entry(suite.as_str()).or_default();
            if n_left > 0 && *q < ts.len() {
                *q += 1;
                n_left -= 1;
            }
        }
    }
    let mut res = Vec::new();
    for (suite, ts) in &by_suite {
        let q = quota.get(suite.as_str()).copied().unwrap_or(0);
        res.extend((0..q).map(|j| ts[j * ts.len() / q].clone()));
    }
    res
}

/// Runs the analyzer on every task (two at a time: recording is not timed) and parses the
/// traces; also returns how many tasks left no readable trace.
fn record_all(settings: &Settings, tasks: &[Task], dir: &Path) -> (Vec<Vec<Recorded>>, usize) {
    let harness = Harness {
        analyzer: settings.analyzer.clone(),
        bench_dir: settings.bench_dir.clone(),
        timeout: settings.timeout,
        memory_bytes: Some(4 << 30),
    };
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Vec<Recorded>>>> = Mutex::new(vec![None; tasks.len()]);
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(task) = tasks.get(i) else {
                    break;
                };
                let trace = record_one(&harness, task, &dir.join(format!("{i}.trace")));
                if let Err(e) = &trace {
                    eprintln!("\n{}: {e}", task.name);
                }
                results.lock().unwrap()[i] = trace.ok();
                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                eprint!("\rrecording polyhedra: {n}/{} tasks", tasks.len());
            });
        }
    });
    eprintln!();
    let results = results.into_inner().unwrap();
    let n_failed = results.iter().filter(|r| r.is_none()).count();
    (results.into_iter().flatten().collect(), n_failed)
}

fn record_one(harness: &Harness, task: &Task, trace: &Path) -> Result<Vec<Recorded>, String> {
    // One analysis thread: the sample is then deterministic.
    let flags = format!(
        "-Z record-polyhedra='{}' --jobs 1 --no-counterexamples",
        trace.display()
    );
    let config = Config::parse(&format!("record={flags}")).map_err(|e| format!("{e:#}"))?;
    let limits = Limits {
        time: harness.timeout + polyfocus::bench::KILL_GRACE,
        memory_bytes: harness.memory_bytes,
    };
    let outcome = run_limited(
        &harness.analyzer,
        &harness.check_args(task, &config),
        &limits,
    )
    .map_err(|e| format!("running {}: {e}", harness.analyzer.display()))?;
    let text = std::fs::read_to_string(trace).map_err(|e| {
        format!(
            "no trace ({e}); the analyzer ended with {:?}: {}",
            outcome.termination,
            outcome.stderr.lines().last().unwrap_or("")
        )
    })?;
    record::parse(&text).map_err(|e| format!("{}: {e}", trace.display()))
}

/// The result of a replayed operation (compared only with PPL).
#[cfg_attr(not(feature = "ppl"), allow(dead_code))]
enum Outcome<P> {
    Poly(P),
    Bool(bool),
}

fn operands(op: &Recorded) -> Vec<&Operand> {
    match op {
        Recorded::Join(a, b)
        | Recorded::Meet(a, b)
        | Recorded::Widen(a, b)
        | Recorded::IsLeq(a, b) => vec![a, b],
        Recorded::Assign(a, ..) | Recorded::Forget(a, _) | Recorded::MeetCons(a, _) => vec![a],
    }
}

fn ours_of(o: &Operand) -> Polyhedron {
    // The budget of the analysis (`Lattice::top`), so that fallbacks happen as they did.
    match &o.cons {
        None => Polyhedron::empty(o.dim, Budget::standard()),
        Some(cs) => Polyhedron::from_cons(o.dim, cs, Budget::standard()),
    }
}

/// Our result (through the same trait methods as the analysis) and median time.
fn replay_ours(op: &Recorded, runs: usize) -> (Outcome<Polyhedron>, Duration) {
    let ps: Vec<Polyhedron> = operands(op).into_iter().map(ours_of).collect();
    let apply = || match op {
        Recorded::Join(..) => Outcome::Poly(ps[0].clone().join(&ps[1])),
        Recorded::Meet(..) => Outcome::Poly(ps[0].clone().meet(&ps[1])),
        Recorded::Widen(..) => Outcome::Poly(ps[0].clone().widen(&ps[1])),
        Recorded::IsLeq(..) => Outcome::Bool(ps[0].is_leq(&ps[1])),
        Recorded::Assign(_, v, e) => {
            let mut p = ps[0].clone();
            p.assign(*v, e);
            Outcome::Poly(p)
        }
        Recorded::Forget(_, vs) => {
            let mut p = ps[0].clone();
            p.forget(vs);
            Outcome::Poly(p)
        }
        Recorded::MeetCons(_, cs) => {
            let mut p = ps[0].clone();
            p.meet_cons(cs);
            Outcome::Poly(p)
        }
    };
    (apply(), time(runs, apply))
}

/// Whether PPL computes the same result as ours, and its median time; `None` when PPL did
/// not finish in time.
#[cfg(feature = "ppl")]
fn replay_ppl(
    op: &Recorded,
    ours: &Outcome<Polyhedron>,
    settings: &Settings,
) -> Option<(bool, Duration)> {
    use super::ppl::{gave_up, with_timeout, Poly};
    let csecs = (settings.ppl_timeout.as_secs_f64() * 100.0).ceil().max(1.0) as u32;
    let dim = operands(op)[0].dim;
    let (ps, same) = with_timeout(csecs, || {
        let mut ps = Vec::new();
        for o in operands(op) {
            ps.push(match &o.cons {
                None => Poly::empty(o.dim),
                Some(cs) => Poly::from_cons(o.dim, cs),
            });
            if gave_up() {
                return None;
            }
        }
        let theirs = apply_ppl(op, &ps, dim);
        if gave_up() {
            return None;
        }
        // A join or widening of ours drops the facets wider than `MAX_COEFFICIENT_BITS`:
        // it must contain PPL's; every other result must equal it.
        let upper = matches!(op, Recorded::Join(..) | Recorded::Widen(..));
        let same = match (ours, theirs) {
            (Outcome::Bool(a), Outcome::Bool(b)) => *a == b,
            // Polyhedra through PPL's equality, i.e. mutual inclusion.
            (Outcome::Poly(p), Outcome::Poly(q)) => {
                let back = Poly::from_cons(dim, &p.to_cons());
                !gave_up() && if upper { q.leq(&back) } else { back.equals(&q) }
            }
            _ => false,
        };
        Some((ps, same))
    })?;
    Some((same, time(settings.runs, || apply_ppl(op, &ps, dim))))
}

#[cfg(feature = "ppl")]
fn apply_ppl(op: &Recorded, ps: &[super::ppl::Poly], dim: usize) -> Outcome<super::ppl::Poly> {
    match op {
        Recorded::Join(..) => Outcome::Poly(ps[0].join(&ps[1])),
        Recorded::Meet(..) => Outcome::Poly(ps[0].meet(&ps[1])),
        Recorded::Widen(..) => {
            // PPL's H79 needs the newer polyhedron to contain the older one; ours joins
            // first when it does not.
            let newer = if ps[0].leq(&ps[1]) {
                ps[1].clone()
            } else {
                ps[0].join(&ps[1])
            };
            Outcome::Poly(ps[0].widen(&newer))
        }
        Recorded::IsLeq(..) => Outcome::Bool(ps[0].leq(&ps[1])),
        Recorded::Assign(_, v, e) => Outcome::Poly(ps[0].assign(dim, v.index(), e)),
        Recorded::Forget(_, vs) => {
            let ds: Vec<usize> = vs.iter().map(|v| v.index()).collect();
            Outcome::Poly(ps[0].forget(&ds))
        }
        Recorded::MeetCons(_, cs) => Outcome::Poly(ps[0].meet_cons(dim, cs)),
    }
}
