//! Polyhedra micro-benchmark: median time per operation and size, ours and (with the `ppl`
//! feature) PPL's through its C interface, with a check that both compute the same
//! polyhedron.
//!
//! Run: `cargo bench --bench poly` (ours only) or `cargo bench --bench poly --features ppl`.
//!
//! Workloads: (a) "dense" polyhedra whose constraints connect every dimension (no
//! decomposition possible), 4–24 dimensions; (b) 24 dimensions in independent blocks of
//! 3–4 dimensions, where the second operand differs from the first in one block (the
//! common case in a loop: an iteration changes a few variables).

use polyfocus::domain::poly::{Budget, Polyhedron};
use polyfocus::domain::{ConsKind, LinCons, LinExpr, Var};
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
mod ppl {
    //! A hand-written FFI to the PPL C interface (GPL; linked only with the `ppl` feature).
    use super::*;
    use std::os::raw::{c_int, c_long, c_void};

    #[repr(C)]
    pub struct Mpz {
        alloc: c_int,
        size: c_int,
        d: *mut c_void,
    }

    type Handle = *mut c_void;

    #[link(name = "gmp")]
    extern "C" {
        #[link_name = "__gmpz_init"]
        fn mpz_init(z: *mut Mpz);
        #[link_name = "__gmpz_set_si"]
        fn mpz_set_si(z: *mut Mpz, v: c_long);
        #[link_name = "__gmpz_set_str"]
        fn mpz_set_str(z: *mut Mpz, s: *const i8, base: c_int) -> c_int;
        #[link_name = "__gmpz_clear"]
        fn mpz_clear(z: *mut Mpz);
    }

    #[link(name = "ppl_c")]
    extern "C" {
        fn ppl_initialize() -> c_int;
        fn ppl_new_Coefficient_from_mpz_t(pc: *mut Handle, z: *mut Mpz) -> c_int;
        fn ppl_delete_Coefficient(c: Handle) -> c_int;
        fn ppl_new_Linear_Expression_with_dimension(ple: *mut Handle, d: usize) -> c_int;
        fn ppl_delete_Linear_Expression(le: Handle) -> c_int;
        fn ppl_Linear_Expression_add_to_coefficient(le: Handle, var: usize, n: Handle) -> c_int;
        fn ppl_Linear_Expression_add_to_inhomogeneous(le: Handle, n: Handle) -> c_int;
        fn ppl_new_Constraint(pc: *mut Handle, le: Handle, rel: c_int) -> c_int;
        fn ppl_delete_Constraint(c: Handle) -> c_int;
        fn ppl_new_C_Polyhedron_from_space_dimension(
            pph: *mut Handle,
            d: usize,
            empty: c_int,
        ) -> c_int;
        fn ppl_new_C_Polyhedron_from_C_Polyhedron(pph: *mut Handle, ph: Handle) -> c_int;
        fn ppl_delete_Polyhedron(ph: Handle) -> c_int;
        fn ppl_Polyhedron_add_constraint(ph: Handle, c: Handle) -> c_int;
        fn ppl_Polyhedron_poly_hull_assign(x: Handle, y: Handle) -> c_int;
        fn ppl_Polyhedron_intersection_assign(x: Handle, y: Handle) -> c_int;
        fn ppl_Polyhedron_H79_widening_assign(x: Handle, y: Handle) -> c_int;
        fn ppl_Polyhedron_contains_Polyhedron(x: Handle, y: Handle) -> c_int;
        fn ppl_Polyhedron_equals_Polyhedron(x: Handle, y: Handle) -> c_int;
        fn ppl_Polyhedron_affine_image(ph: Handle, var: usize, le: Handle, d: Handle) -> c_int;
        fn ppl_Polyhedron_unconstrain_space_dimensions(
            ph: Handle,
            ds: *mut usize,
            n: usize,
        ) -> c_int;
        fn ppl_Polyhedron_get_minimized_constraints(ph: Handle, pcs: *mut Handle) -> c_int;
        fn ppl_Polyhedron_get_minimized_generators(ph: Handle, pgs: *mut Handle) -> c_int;
    }

    /// An owned PPL closed polyhedron.
    pub struct Poly(Handle);

    impl Drop for Poly {
        fn drop(&mut self) {
            unsafe { ppl_delete_Polyhedron(self.0) };
        }
    }

    impl Clone for Poly {
        fn clone(&self) -> Poly {
            let mut h = std::ptr::null_mut();
            unsafe { ppl_new_C_Polyhedron_from_C_Polyhedron(&mut h, self.0) };
            Poly(h)
        }
    }

    pub fn init() {
        unsafe { ppl_initialize() };
    }

    fn coef(v: &num_bigint::BigInt) -> Handle {
        unsafe {
            let mut z = std::mem::MaybeUninit::<Mpz>::uninit();
            mpz_init(z.as_mut_ptr());
            match i64::try_from(v) {
                Ok(x) => mpz_set_si(z.as_mut_ptr(), x as c_long),
                Err(_) => {
                    let s = std::ffi::CString::new(v.to_string()).unwrap();
                    mpz_set_str(z.as_mut_ptr(), s.as_ptr(), 10);
                }
            }
            let mut c = std::ptr::null_mut();
            ppl_new_Coefficient_from_mpz_t(&mut c, z.as_mut_ptr());
            mpz_clear(z.as_mut_ptr());
            c
        }
    }

    fn expr(dim: usize, e: &LinExpr) -> Handle {
        unsafe {
            let mut le = std::ptr::null_mut();
            ppl_new_Linear_Expression_with_dimension(&mut le, dim);
            for (v, c) in e.terms() {
                let k = coef(c);
                ppl_Linear_Expression_add_to_coefficient(le, v.index(), k);
                ppl_delete_Coefficient(k);
            }
            let k = coef(e.constant_part());
            ppl_Linear_Expression_add_to_inhomogeneous(le, k);
            ppl_delete_Coefficient(k);
            le
        }
    }

    impl Poly {
        pub fn from_cons(dim: usize, cs: &[LinCons]) -> Poly {
            unsafe {
                let mut h = std::ptr::null_mut();
                ppl_new_C_Polyhedron_from_space_dimension(&mut h, dim, 0);
                for c in cs {
                    let le = expr(dim, &c.expr);
                    let mut k = std::ptr::null_mut();
                    // PPL_CONSTRAINT_TYPE_EQUAL = 2, GREATER_OR_EQUAL = 3.
                    ppl_new_Constraint(&mut k, le, if c.kind == ConsKind::Eq { 2 } else { 3 });
                    ppl_Polyhedron_add_constraint(h, k);
                    ppl_delete_Constraint(k);
                    ppl_delete_Linear_Expression(le);
                }
                let p = Poly(h);
                p.minimize();
                p
            }
        }

        /// Forces both representations to be up to date and minimized (PPL is lazy; our
        /// polyhedra always are).
        pub fn minimize(&self) {
            unsafe {
                let mut cs = std::ptr::null_mut();
                ppl_Polyhedron_get_minimized_constraints(self.0, &mut cs);
                let mut gs = std::ptr::null_mut();
                ppl_Polyhedron_get_minimized_generators(self.0, &mut gs);
            }
        }

        pub fn join(&self, o: &Poly) -> Poly {
            let r = self.clone();
            unsafe { ppl_Polyhedron_poly_hull_assign(r.0, o.0) };
            r.minimize();
            r
        }

        pub fn meet(&self, o: &Poly) -> Poly {
            let r = self.clone();
            unsafe { ppl_Polyhedron_intersection_assign(r.0, o.0) };
            r.minimize();
            r
        }

        /// `self` (older) widened by `newer` ⊇ `self`.
        pub fn widen(&self, newer: &Poly) -> Poly {
            let r = newer.clone();
            unsafe { ppl_Polyhedron_H79_widening_assign(r.0, self.0) };
            r.minimize();
            r
        }

        pub fn leq(&self, o: &Poly) -> bool {
            unsafe { ppl_Polyhedron_contains_Polyhedron(o.0, self.0) != 0 }
        }

        pub fn equals(&self, o: &Poly) -> bool {
            unsafe { ppl_Polyhedron_equals_Polyhedron(self.0, o.0) != 0 }
        }

        pub fn assign(&self, dim: usize, x: usize, e: &LinExpr) -> Poly {
            let r = self.clone();
            unsafe {
                let le = expr(dim, e);
                let one = coef(&1.into());
                ppl_Polyhedron_affine_image(r.0, x, le, one);
                ppl_delete_Coefficient(one);
                ppl_delete_Linear_Expression(le);
            }
            r.minimize();
            r
        }

        pub fn forget(&self, x: usize) -> Poly {
            let r = self.clone();
            let mut ds = [x];
            unsafe { ppl_Polyhedron_unconstrain_space_dimensions(r.0, ds.as_mut_ptr(), 1) };
            r.minimize();
            r
        }
    }

    /// PPL's results and median times, in the order of `OPS`.
    pub fn run(c: &Case, runs: usize) -> Vec<(Poly, Duration)> {
        let p = Poly::from_cons(c.dim, &c.p);
        let q = Poly::from_cons(c.dim, &c.q);
        let j = p.join(&q);
        let (x, e) = &c.assign;
        vec![
            (p.join(&q), time(runs, || p.join(&q))),
            (p.meet(&q), time(runs, || p.meet(&q))),
            (p.widen(&j), time(runs, || p.widen(&j))),
            (
                if p.leq(&j) { p.clone() } else { j.clone() },
                time(runs, || p.leq(&j)),
            ),
            (
                p.assign(c.dim, *x, e),
                time(runs, || p.assign(c.dim, *x, e)),
            ),
            (p.forget(c.forget), time(runs, || p.forget(c.forget))),
        ]
    }
}

fn fmt(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1e6)
}

fn main() {
    let runs: usize = std::env::var("POLYBENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(21);
    let n_instances: usize = std::env::var("POLYBENCH_INSTANCES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    #[cfg(feature = "ppl")]
    ppl::init();
    let mut rng = Rng(0x9E3779B97F4A7C15);
    let mut cases: Vec<Vec<Case>> = Vec::new();
    for n in [4, 8, 12, 16, 24] {
        cases.push((0..n_instances).map(|_| dense_case(&mut rng, n)).collect());
    }
    for n in [12, 24] {
        cases.push((0..n_instances).map(|_| blocks_case(&mut rng, n)).collect());
    }
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
                    if !back.equals(theirs_p) {
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
                    if same[k] { "yes" } else { "NO" },
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
}
