//! A hand-written FFI to the PPL C interface (GPL; linked only with the `ppl` feature).

use super::{time, Case};
use polyfocus::domain::{ConsKind, LinCons, LinExpr};
use std::os::raw::{c_int, c_long, c_void};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

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
    fn ppl_set_timeout(csecs: u32) -> c_int;
    fn ppl_reset_timeout() -> c_int;
    fn ppl_new_Coefficient_from_mpz_t(pc: *mut Handle, z: *mut Mpz) -> c_int;
    fn ppl_delete_Coefficient(c: Handle) -> c_int;
    fn ppl_new_Linear_Expression_with_dimension(ple: *mut Handle, d: usize) -> c_int;
    fn ppl_delete_Linear_Expression(le: Handle) -> c_int;
    fn ppl_Linear_Expression_add_to_coefficient(le: Handle, var: usize, n: Handle) -> c_int;
    fn ppl_Linear_Expression_add_to_inhomogeneous(le: Handle, n: Handle) -> c_int;
    fn ppl_new_Constraint(pc: *mut Handle, le: Handle, rel: c_int) -> c_int;
    fn ppl_delete_Constraint(c: Handle) -> c_int;
    fn ppl_new_C_Polyhedron_from_space_dimension(pph: *mut Handle, d: usize, empty: c_int)
        -> c_int;
    fn ppl_new_C_Polyhedron_from_C_Polyhedron(pph: *mut Handle, ph: Handle) -> c_int;
    fn ppl_delete_Polyhedron(ph: Handle) -> c_int;
    fn ppl_Polyhedron_add_constraint(ph: Handle, c: Handle) -> c_int;
    fn ppl_Polyhedron_poly_hull_assign(x: Handle, y: Handle) -> c_int;
    fn ppl_Polyhedron_intersection_assign(x: Handle, y: Handle) -> c_int;
    fn ppl_Polyhedron_H79_widening_assign(x: Handle, y: Handle) -> c_int;
    fn ppl_Polyhedron_contains_Polyhedron(x: Handle, y: Handle) -> c_int;
    fn ppl_Polyhedron_equals_Polyhedron(x: Handle, y: Handle) -> c_int;
    fn ppl_Polyhedron_affine_image(ph: Handle, var: usize, le: Handle, d: Handle) -> c_int;
    fn ppl_Polyhedron_unconstrain_space_dimensions(ph: Handle, ds: *mut usize, n: usize) -> c_int;
    fn ppl_Polyhedron_get_minimized_constraints(ph: Handle, pcs: *mut Handle) -> c_int;
    fn ppl_Polyhedron_get_minimized_generators(ph: Handle, pgs: *mut Handle) -> c_int;
}

/// An owned PPL closed polyhedron.
pub struct Poly(Handle);

impl Drop for Poly {
    fn drop(&mut self) {
        // A copy that was not made (after a failure) is null.
        if !self.0.is_null() {
            unsafe { ppl_delete_Polyhedron(self.0) };
        }
    }
}

impl Clone for Poly {
    fn clone(&self) -> Poly {
        let mut h = std::ptr::null_mut();
        call(|| unsafe { ppl_new_C_Polyhedron_from_C_Polyhedron(&mut h, self.0) });
        Poly(h)
    }
}

/// Whether a PPL call failed (in practice: was interrupted by the timeout) since the last
/// [`with_timeout`].
static FAILED: AtomicBool = AtomicBool::new(false);

/// Makes a PPL call that may be interrupted, and notes a failure. Once one failed, the
/// following ones are not made (they could touch an interrupted polyhedron) and fail too.
fn call(f: impl FnOnce() -> c_int) -> c_int {
    if gave_up() {
        return -1;
    }
    let code = f();
    if code < 0 {
        FAILED.store(true, Ordering::Relaxed);
    }
    code
}

/// Runs `f` with PPL's timeout set to `csecs` centiseconds; `None` when a PPL call in it
/// failed (PPL gave up). Without decomposition PPL meets exponentially many generators on
/// some of the analyzer's polyhedra (products of many bounded variables). An interrupted
/// polyhedron must not be used again (PPL crashes on it), so `f` checks [`gave_up`] after
/// each step.
pub fn with_timeout<T>(csecs: u32, f: impl FnOnce() -> Option<T>) -> Option<T> {
    FAILED.store(false, Ordering::Relaxed);
    let set = unsafe { ppl_set_timeout(csecs) };
    let res = f().filter(|_| !gave_up());
    if set >= 0 {
        unsafe { ppl_reset_timeout() };
    }
    FAILED.store(false, Ordering::Relaxed);
    res
}

/// Whether a PPL call failed since [`with_timeout`] started.
pub fn gave_up() -> bool {
    FAILED.load(Ordering::Relaxed)
}

/// Initializes PPL (once per process, whichever workload asks first).
pub fn init() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| unsafe {
        ppl_initialize();
    });
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

/// Adds constraints to a polyhedron of `dim` dimensions (lazily: PPL minimizes later).
fn add_constraints(h: Handle, dim: usize, cs: &[LinCons]) {
    for c in cs {
        unsafe {
            let le = expr(dim, &c.expr);
            let mut k = std::ptr::null_mut();
            // PPL_CONSTRAINT_TYPE_EQUAL = 2, GREATER_OR_EQUAL = 3.
            ppl_new_Constraint(&mut k, le, if c.kind == ConsKind::Eq { 2 } else { 3 });
            call(|| ppl_Polyhedron_add_constraint(h, k));
            ppl_delete_Constraint(k);
            ppl_delete_Linear_Expression(le);
        }
    }
}

impl Poly {
    pub fn from_cons(dim: usize, cs: &[LinCons]) -> Poly {
        let mut h = std::ptr::null_mut();
        unsafe { ppl_new_C_Polyhedron_from_space_dimension(&mut h, dim, 0) };
        add_constraints(h, dim, cs);
        let p = Poly(h);
        p.minimize();
        p
    }

    /// The empty polyhedron of `dim` dimensions.
    pub fn empty(dim: usize) -> Poly {
        let mut h = std::ptr::null_mut();
        unsafe { ppl_new_C_Polyhedron_from_space_dimension(&mut h, dim, 1) };
        Poly(h)
    }

    /// Intersection with constraints.
    pub fn meet_cons(&self, dim: usize, cs: &[LinCons]) -> Poly {
        let r = self.clone();
        add_constraints(r.0, dim, cs);
        r.minimize();
        r
    }

    /// Forces both representations to be up to date and minimized (PPL is lazy; our
    /// polyhedra always are).
    pub fn minimize(&self) {
        unsafe {
            let mut cs = std::ptr::null_mut();
            call(|| ppl_Polyhedron_get_minimized_constraints(self.0, &mut cs));
            let mut gs = std::ptr::null_mut();
            call(|| ppl_Polyhedron_get_minimized_generators(self.0, &mut gs));
        }
    }

    pub fn join(&self, o: &Poly) -> Poly {
        let r = self.clone();
        call(|| unsafe { ppl_Polyhedron_poly_hull_assign(r.0, o.0) });
        r.minimize();
        r
    }

    pub fn meet(&self, o: &Poly) -> Poly {
        let r = self.clone();
        call(|| unsafe { ppl_Polyhedron_intersection_assign(r.0, o.0) });
        r.minimize();
        r
    }

    /// `self` (older) widened by `newer` ⊇ `self`.
    pub fn widen(&self, newer: &Poly) -> Poly {
        let r = newer.clone();
        call(|| unsafe { ppl_Polyhedron_H79_widening_assign(r.0, self.0) });
        r.minimize();
        r
    }

    pub fn leq(&self, o: &Poly) -> bool {
        call(|| unsafe { ppl_Polyhedron_contains_Polyhedron(o.0, self.0) }) > 0
    }

    pub fn equals(&self, o: &Poly) -> bool {
        call(|| unsafe { ppl_Polyhedron_equals_Polyhedron(self.0, o.0) }) > 0
    }

    pub fn assign(&self, dim: usize, x: usize, e: &LinExpr) -> Poly {
        let r = self.clone();
        unsafe {
            let le = expr(dim, e);
            let one = coef(&1.into());
            call(|| ppl_Polyhedron_affine_image(r.0, x, le, one));
            ppl_delete_Coefficient(one);
            ppl_delete_Linear_Expression(le);
        }
        r.minimize();
        r
    }

    pub fn forget(&self, xs: &[usize]) -> Poly {
        let r = self.clone();
        let mut ds = xs.to_vec();
        call(|| unsafe {
            ppl_Polyhedron_unconstrain_space_dimensions(r.0, ds.as_mut_ptr(), ds.len())
        });
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
        (p.forget(&[c.forget]), time(runs, || p.forget(&[c.forget]))),
    ]
}
