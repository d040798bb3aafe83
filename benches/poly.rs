//! Polyhedra micro-benchmark: median time per operation and size, ours and (with the `ppl`
//! feature) PPL's through its C interface, with a check that both compute the same
//! polyhedron.
//!
//! Run: `cargo bench --bench poly` (ours only) or `cargo bench --bench poly --features ppl`.
//! The command exits with status 1 when a result differs from PPL's.
//!
//! Workloads: (a) "dense" polyhedra whose constraints connect every dimension (no
//! decomposition possible), 4–24 dimensions; (b) 24 dimensions in independent blocks of
//! 3–4 dimensions, where the second operand differs from the first in one block (the
//! common case in a loop: an iteration changes a few variables); (c) the operations the
//! analyzer performs on the benchmark programs, recorded and replayed (see [`recorded`]).
//!
//! Environment: `POLYBENCH_WORKLOADS` (letters, default `abc`), `POLYBENCH_RUNS` (timed
//! runs per operation in (a) and (b), default 21), `POLYBENCH_INSTANCES` (default 5);
//! for (c) `POLYBENCH_BENCH_DIR` (default `../shared/bench`), `POLYBENCH_TASKS` (a number
//! of tasks spread over the suites; default every task), `POLYBENCH_TASK_TIMEOUT`
//! (seconds of analysis per task, default 10), `POLYBENCH_REPLAY_RUNS` (default 5),
//! `POLYBENCH_PPL_TIMEOUT` (seconds PPL may take on one operation, default 0.5) and
//! `POLYBENCH_ANALYZER` (default: the `polyfocus` binary of this build).

use polyfocus::domain::poly::{Budget, Polyhedron};
use polyfocus::domain::{ConsKind, LinCons, LinExpr, Var};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545F4914F6CDD1D)
    }

    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % ((hi - lo + 1) as u64)) as i64
    }
}

fn var(i: usize) -> LinExpr {
    LinExpr::var(Var(i as u32))
}

/// Constraints over `vars`: a chain `x_{i+1} - x_i <= c` (connects everything, keeps the
/// generator system small), lower bounds on the first variable, plus `extra` random
/// three-variable constraints.
fn random_block(rng: &mut Rng, vars: &[usize], extra: usize) -> Vec<LinCons> {
    let mut cs = Vec::new();
    cs.push(LinCons::ge(
        &var(vars[0]),
        &LinExpr::constant(rng.range(-5, 0)),
    ));
    for w in vars.windows(2) {
        let mut e = var(w[0]).minus(&var(w[1]));
        e.add_constant(rng.range(0, 8));
        cs.push(LinCons {
            expr: e,
            kind: ConsKind::Ge,
        });
    }
    for _ in 0..extra {
        let mut e = LinExpr::constant(rng.range(0, 20));
        for _ in 0..3 {
            let v = vars[rng.range(0, vars.len() as i64 - 1) as usize];
            let c = rng.range(-3, 3);
            e.add_term(c, Var(v as u32));
        }
        if !e.is_constant() {
            cs.push(LinCons {
                expr: e,
                kind: ConsKind::Ge,
            });
        }
    }
    cs
}

struct Case {
    name: String,
    dim: usize,
    p: Vec<LinCons>,
    q: Vec<LinCons>,
    /// The assignment `x := e` and the forgotten variable.
    assign: (usize, LinExpr),
    forget: usize,
}

fn dense_case(rng: &mut Rng, n: usize) -> Case {
    let vars: Vec<usize> = (0..n).collect();
    let p = random_block(rng, &vars, 2);
    let mut q = p.clone();
    // The second operand: shifted lower bound and one different random constraint.
    q[0] = LinCons::ge(&var(0), &LinExpr::constant(rng.range(-10, -6)));
    q.extend(random_block(rng, &vars, 1).into_iter().skip(n));
    let mut e = var(0).plus(&var(1).scaled(&2.into()));
    e.add_constant(1);
    Case {
        name: format!("dense n={n}"),
        dim: n,
        p,
        q,
        assign: (0, e),
        forget: n / 2,
    }
}

fn blocks_case(rng: &mut Rng, n: usize) -> Case {
    let mut p = Vec::new();
    let mut q = Vec::new();
    let mut start = 0;
    let mut first_block = Vec::new();
    while start < n {
        let size = if n - start <= 4 {
            n - start
        } else {
            3 + (rng.next() % 2) as usize
        };
        let vars: Vec<usize> = (start..start + size).collect();
        let cs = random_block(rng, &vars, 1);
        if start == 0 {
            first_block = vars.clone();
            let mut other = cs.clone();
            other[0] = LinCons::ge(&var(0), &LinExpr::constant(rng.range(-10, -6)));
            q.extend(other);
        } else {
            q.extend(cs.clone());
        }
        p.extend(cs);
        start += size;
    }
    let mut e = var(first_block[0]).plus(&var(first_block[1]).scaled(&2.into()));
    e.add_constant(1);
    Case {
        name: format!("blocks n={n}"),
        dim: n,
        p,
        q,
        assign: (first_block[0], e),
        forget: first_block[1],
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Times `f` over `runs` runs and returns the median.
fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    let mut ts = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        let r = f();
        ts.push(t.elapsed());
        std::hint::black_box(r);
    }
    median(ts)
}

const OPS: [&str; 6] = ["join", "meet", "widen", "is_leq", "assign", "forget"];

/// Our result of each operation (for the cross-check) and its median time.
fn run_ours(c: &Case, runs: usize) -> Vec<(Polyhedron, Duration)> {
    let b = Budget::unlimited();
    let p = Polyhedron::from_cons(c.dim, &c.p, b);
    let q = Polyhedron::from_cons(c.dim, &c.q, b);
    let j = p.try_join(&q).unwrap();
    let (x, e) = &c.assign;
    let mut out = Vec::new();
    out.push((j.clone(), time(runs, || p.try_join(&q).unwrap())));
    out.push((
        p.try_meet(&q).unwrap(),
        time(runs, || p.try_meet(&q).unwrap()),
    ));
    out.push((
        p.try_widen(&j).unwrap(),
        time(runs, || p.try_widen(&j).unwrap()),
    ));
    out.push((
        if p.try_meet(&j).unwrap() == p {
            p.clone()
        } else {
            j.clone()
        },
        time(runs, || {
            use polyfocus::domain::Lattice;
            p.is_leq(&j)
        }),
    ));
    let mut a = p.clone();
    a.try_assign(Var(*x as u32), e).unwrap();
    out.push((
        a,
        time(runs, || {
            let mut a = p.clone();
            a.try_assign(Var(*x as u32), e).unwrap();
            a
        }),
    ));
    let mut f = p.clone();
    f.try_forget(&[Var(c.forget as u32)]).unwrap();
    out.push((
        f,
        time(runs, || {
            let mut f = p.clone();
            f.try_forget(&[Var(c.forget as u32)]).unwrap();
            f
        }),
    ));
    out
}

#[cfg(feature = "ppl")]
#[path = "poly/ppl.rs"]
mod ppl;
#[path = "poly/recorded.rs"]
mod recorded;

fn fmt(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1e6)
}

/// A numeric setting from the environment.
fn setting<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let workloads = std::env::var("POLYBENCH_WORKLOADS").unwrap_or_else(|_| "abc".to_string());
    let mut all_same = true;
    if workloads.contains('a') || workloads.contains('b') {
        all_same &= synthetic(workloads.contains('a'), workloads.contains('b'));
    }
    if workloads.contains('c') {
        let bench_dir = std::env::var_os("POLYBENCH_BENCH_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/bench"));
        let settings = recorded::Settings {
            bench_dir,
            analyzer: std::env::var_os("POLYBENCH_ANALYZER")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_polyfocus"))),
            n_tasks: std::env::var("POLYBENCH_TASKS")
                .ok()
                .and_then(|n| n.parse().ok()),
            timeout: Duration::from_secs_f64(setting("POLYBENCH_TASK_TIMEOUT", 10.0)),
            runs: setting("POLYBENCH_REPLAY_RUNS", 5),
            ppl_timeout: Duration::from_secs_f64(setting("POLYBENCH_PPL_TIMEOUT", 0.5)),
        };
        match recorded::run(&settings) {
            Ok(same) => all_same &= same,
            Err(e) => {
                eprintln!("workload (c) not run: {e}");
                std::process::exit(2);
            }
        }
    }
    if !all_same {
        eprintln!("some results differ from PPL's");
        std::process::exit(1);
    }
}

/// Workloads (a) and (b); returns whether every result was identical to PPL's.
fn synthetic(dense: bool, blocks: bool) -> bool {
    let runs: usize = setting("POLYBENCH_RUNS", 21);
    let n_instances: usize = setting("POLYBENCH_INSTANCES", 5);
    #[cfg(feature = "ppl")]
    ppl::init();
    let mut rng = Rng(0x9E3779B97F4A7C15);
    let mut cases: Vec<Vec<Case>> = Vec::new();
    // Both workloads are always generated, so that each one's instances do not depend on
    // which are run.
    for n in [4, 8, 12, 16, 24] {
        let group: Vec<Case> = (0..n_instances).map(|_| dense_case(&mut rng, n)).collect();
        if dense {
            cases.push(group);
        }
    }
    for n in [12, 24] {
        let group: Vec<Case> = (0..n_instances).map(|_| blocks_case(&mut rng, n)).collect();
        if blocks {
            cases.push(group);
        }
    }
    let mut all_same = true;
    println!("median time per operation in microseconds ({runs} runs x {n_instances} instances)");
    println!(
        "{:<14} {:<7} {:>10} {:>10} {:>8}  {}",
        "workload", "op", "ours", "ppl", "ppl/ours", "same"
    );
    for group in &cases {
        let mut ours: Vec<Vec<Duration>> = vec![Vec::new(); OPS.len()];
        #[allow(unused_mut)]
        let mut theirs: Vec<Vec<Duration>> = vec![Vec::new(); OPS.len()];
        #[allow(unused_mut)]
        let mut same = vec![true; OPS.len()];
        for c in group {
            let o = run_ours(c, runs);
            for (k, (_, t)) in o.iter().enumerate() {
                ours[k].push(*t);
            }
            #[cfg(feature = "ppl")]
            {
                let t = ppl::run(c, runs);
                for (k, ((mine, _), (theirs_p, dt))) in o.iter().zip(&t).enumerate() {
                    theirs[k].push(*dt);
                    use polyfocus::domain::NumericDomain;
                    let back = ppl::Poly::from_cons(c.dim, &mine.to_cons());
                    // Join and widening (OPS 0 and 2) may drop wide facets: inclusion.
                    let upper = k == 0 || k == 2;
                    let agree = if upper {
                        theirs_p.leq(&back)
                    } else {
                        back.equals(theirs_p)
                    };
                    if !agree {
                        same[k] = false;
                    }
                }
            }
        }
        for (k, op) in OPS.iter().enumerate() {
            let mo = median(ours[k].clone());
            let (pt, ratio, eq) = if theirs[k].is_empty() {
                ("-".to_string(), "-".to_string(), "-")
            } else {
                let mt = median(theirs[k].clone());
                (
                    fmt(mt),
                    format!("{:.2}", mt.as_secs_f64() / mo.as_secs_f64()),
                    if same[k] {
                        "yes"
                    } else {
                        all_same = false;
                        "NO"
                    },
                )
            };
            println!(
                "{:<14} {:<7} {:>10} {:>10} {:>8}  {}",
                group[0].name,
                op,
                fmt(mo),
                pt,
                ratio,
                eq
            );
        }
    }
    all_same
}
