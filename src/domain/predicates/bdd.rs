//! A thin wrapper over oxidd BDDs: one manager per thread, variables created on demand.
//!
//! Variable `i` is the `i`-th boolean dimension of whatever [`crate::domain::Space`] the
//! state ranges over: states of different spaces never meet, so they can share the manager
//! and its variables. Handles are reference-counted; the manager collects dead nodes itself.
//! Running out of nodes (a fixed capacity) panics, which the driver reports as `Unknown`.

use oxidd::bdd::{BDDFunction, BDDManagerRef};
use oxidd::{BooleanFunction, BooleanFunctionQuant, Function, Manager, ManagerRef};
use std::cell::RefCell;
use std::fmt;

/// Inner nodes per thread's manager.
const NODE_CAPACITY: usize = 1 << 20;
/// Entries of the apply cache.
const CACHE_CAPACITY: usize = 1 << 16;

struct Store {
    manager: BDDManagerRef,
    vars: Vec<BDDFunction>,
}

thread_local! {
    static STORE: RefCell<Option<Store>> = const { RefCell::new(None) };
}

fn with_store<R>(f: impl FnOnce(&mut Store) -> R) -> R {
    STORE.with(|s| {
        let mut s = s.borrow_mut();
        let store = s.get_or_insert_with(|| Store {
            manager: oxidd::bdd::new_manager(NODE_CAPACITY, CACHE_CAPACITY, 1),
            vars: Vec::new(),
        });
        f(store)
    })
}

fn ok<T>(r: oxidd::util::AllocResult<T>) -> T {
    r.expect("BDD manager out of nodes")
}

/// A boolean function over the variables `0..`.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Bdd(BDDFunction);

impl Bdd {
    /// The constant true.
    pub fn t() -> Bdd {
        with_store(|s| Bdd(s.manager.with_manager_shared(|m| BDDFunction::t(m))))
    }

    /// The constant false.
    pub fn f() -> Bdd {
        with_store(|s| Bdd(s.manager.with_manager_shared(|m| BDDFunction::f(m))))
    }

    /// The variable `i`.
    pub fn var(i: u32) -> Bdd {
        with_store(|s| {
            let need = i as usize + 1;
            if s.vars.len() < need {
                let have = s.vars.len();
                let fresh: Vec<BDDFunction> = s.manager.with_manager_exclusive(|m| {
                    let range = m.add_vars((need - have) as u32);
                    range.map(|v| ok(BDDFunction::var(m, v))).collect()
                });
                s.vars.extend(fresh);
            }
            Bdd(s.vars[i as usize].clone())
        })
    }

    /// The literal `i` (positive) or `¬i`.
    pub fn lit(i: u32, positive: bool) -> Bdd {
        let v = Bdd::var(i);
        if positive {
            v
        } else {
            v.not()
        }
    }

    /// `self ∧ other`.
    pub fn and(&self, other: &Bdd) -> Bdd {
        Bdd(ok(self.0.and(&other.0)))
    }

    /// `self ∨ other`.
    pub fn or(&self, other: &Bdd) -> Bdd {
        Bdd(ok(self.0.or(&other.0)))
    }

    /// `¬self`.
    pub fn not(&self) -> Bdd {
        Bdd(ok(self.0.not()))
    }

    /// `∃ vars. self`.
    pub fn exists(&self, vars: &[u32]) -> Bdd {
        if vars.is_empty() {
            return self.clone();
        }
        let mut cube = Bdd::t();
        for v in vars {
            cube = cube.and(&Bdd::var(*v));
        }
        Bdd(ok(self.0.exists(&cube.0)))
    }

    /// True for the constant false.
    pub fn is_false(&self) -> bool {
        !self.0.satisfiable()
    }

    /// True for the constant true.
    pub fn is_true(&self) -> bool {
        self.0.valid()
    }

    /// `self ⇒ other` is valid.
    pub fn implies(&self, other: &Bdd) -> bool {
        ok(self.0.imp(&other.0)).valid()
    }

    /// `self ∧ other` is satisfiable.
    pub fn intersects(&self, other: &Bdd) -> bool {
        self.and(other).0.satisfiable()
    }

    /// Number of inner nodes.
    pub fn node_count(&self) -> usize {
        self.0.node_count()
    }

    /// The value of the function under a total assignment (`value(i)` for variable `i`).
    pub fn eval(&self, vars: &[u32], value: impl Fn(u32) -> bool) -> bool {
        let args: Vec<(u32, bool)> = vars.iter().map(|v| (*v, value(*v))).collect();
        self.0.eval(args)
    }

    /// Disjoint cubes (conjunctions of literals `(var, value)`) whose union is `self`, by
    /// Shannon expansion over `vars` in order (`vars` must contain the support).
    pub fn cubes(&self, vars: &[u32]) -> Vec<Vec<(u32, bool)>> {
        let mut out = Vec::new();
        let mut cur = Vec::new();
        self.cubes_rec(vars, &mut cur, &mut out);
        out
    }

    fn cubes_rec(&self, vars: &[u32], cur: &mut Vec<(u32, bool)>, out: &mut Vec<Vec<(u32, bool)>>) {
        if self.is_false() {
            return;
        }
        if self.is_true() {
            out.push(cur.clone());
            return;
        }
        let Some((v, rest)) = vars.split_first() else {
            // Not reached when `vars` covers the support; keep it sound anyway.
            out.push(cur.clone());
            return;
        };
        let pos = self.and(&Bdd::var(*v));
        let neg = self.and(&Bdd::lit(*v, false));
        if pos.exists(&[*v]) == neg.exists(&[*v]) {
            // Independent of v.
            self.cubes_rec(rest, cur, out);
            return;
        }
        for (b, val) in [(pos, true), (neg, false)] {
            cur.push((*v, val));
            b.exists(&[*v]).cubes_rec(rest, cur, out);
            cur.pop();
        }
    }
}

impl fmt::Debug for Bdd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_true() {
            write!(f, "T")
        } else if self.is_false() {
            write!(f, "F")
        } else {
            write!(f, "bdd({} nodes)", self.node_count())
        }
    }
}
