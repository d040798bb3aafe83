//! Property tests of the predicate domains with Z3 as the oracle, on a space of
//! two boolean dimensions (x0, x1, values 0/1) and two integer ones (x2, x3): join is an
//! upper bound, `meet_cons` is exact on conjunctions, `is_leq` is sound, assignment, forget
//! and bounds over-approximate, and the partitioned domain is at least as precise as
//! polyhedra alone on the same operations. States are read through `to_disjunction`, which
//! must be exact.

use polyfocus::domain::predicates::{Partitioned, Product};
use polyfocus::domain::{
    ConsKind, DimKind, Lattice, LinCons, LinExpr, NumericDomain, Polyhedron, Space, Var,
};
use proptest::prelude::*;
use z3::ast::{Bool, Int as ZInt, Real};
use z3::{SatResult, Solver};

const N: usize = 4;

fn space() -> Space {
    Space::with_kinds(
        (0..N).map(|i| format!("x{i}")).collect(),
        vec![DimKind::Bool, DimKind::Bool, DimKind::Int, DimKind::Int],
    )
}

fn zint(c: &num_bigint::BigInt) -> Real {
    Real::from_int(&c.to_string().parse::<ZInt>().unwrap())
}

fn zvars(prefix: &str) -> Vec<Real> {
    (0..N)
        .map(|i| Real::new_const(format!("{prefix}{i}")))
        .collect()
}

fn zexpr(e: &LinExpr, xs: &[Real]) -> Real {
    let mut acc = zint(e.constant_part());
    for (v, c) in e.terms() {
        acc = acc + zint(c) * xs[v.index()].clone();
    }
    acc
}

fn zcons(c: &LinCons, xs: &[Real]) -> Bool {
    let e = zexpr(&c.expr, xs);
    let zero = Real::from_int(&ZInt::from_i64(0));
    match c.kind {
        ConsKind::Eq => e.eq(&zero),
        ConsKind::Ge => e.ge(&zero),
    }
}

fn zall(cs: &[LinCons], xs: &[Real]) -> Bool {
    let parts: Vec<Bool> = cs.iter().map(|c| zcons(c, xs)).collect();
    Bool::and(&parts)
}

/// The booleans are 0 or 1.
fn zbools(xs: &[Real]) -> Bool {
    let zero = Real::from_int(&ZInt::from_i64(0));
    let one = Real::from_int(&ZInt::from_i64(1));
    Bool::and(&[
        Bool::or(&[xs[0].eq(&zero), xs[0].eq(&one)]),
        Bool::or(&[xs[1].eq(&zero), xs[1].eq(&one)]),
    ])
}

fn zstate<D: NumericDomain>(d: &D, xs: &[Real]) -> Bool {
    let ds: Vec<Bool> = d.to_disjunction().iter().map(|c| zall(c, xs)).collect();
    Bool::and(&[Bool::or(&ds), zbools(xs)])
}

fn valid(f: &Bool) -> bool {
    let s = Solver::new();
    s.assert(&f.not());
    match s.check() {
        SatResult::Unsat => true,
        SatResult::Sat => false,
        SatResult::Unknown => panic!("z3 unknown"),
    }
}

fn expr(coeffs: &[i64], c: i64) -> LinExpr {
    let mut e = LinExpr::constant(c);
    for (i, k) in coeffs.iter().enumerate() {
        e.add_term(*k, Var(i as u32));
    }
    e
}

fn arb_expr() -> impl Strategy<Value = LinExpr> {
    (prop::collection::vec(-2i64..=2, N), -3i64..=3).prop_map(|(cs, c)| expr(&cs, c))
}

fn arb_cons() -> impl Strategy<Value = LinCons> {
    (arb_expr(), prop::bool::weighted(0.2)).prop_map(|(expr, eq)| LinCons {
        expr,
        kind: if eq { ConsKind::Eq } else { ConsKind::Ge },
    })
}

/// A boolean's new value: 0, 1, the other boolean or its negation.
fn arb_bool_expr() -> impl Strategy<Value = LinExpr> {
    (0..4u8).prop_map(|k| match k {
        0 => LinExpr::constant(0),
        1 => LinExpr::constant(1),
        2 => LinExpr::var(Var(1)),
        _ => LinExpr::constant(1).minus(&LinExpr::var(Var(1))),
    })
}

#[derive(Clone, Debug)]
enum Op {
    Meet(Vec<LinCons>),
    AssignInt(u32, LinExpr),
    AssignBool(LinExpr),
    Forget(u32),
    JoinWith(Vec<LinCons>),
}

fn arb_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => prop::collection::vec(arb_cons(), 1..3).prop_map(Op::Meet),
        2 => (2u32..4, arb_expr()).prop_map(|(v, e)| Op::AssignInt(v, e)),
        1 => arb_bool_expr().prop_map(Op::AssignBool),
        1 => (0u32..4).prop_map(Op::Forget),
        2 => prop::collection::vec(arb_cons(), 1..3).prop_map(Op::JoinWith),
    ]
}

fn bool_bounds() -> Vec<LinCons> {
    (0..2)
        .flat_map(|i| {
            let x = LinExpr::var(Var(i));
            [
                LinCons::ge(&x, &LinExpr::constant(0)),
                LinCons::le(&x, &LinExpr::constant(1)),
            ]
        })
        .collect()
}

fn apply<D: NumericDomain>(d: D, op: &Op, poly_like: bool) -> D {
    let sp = space();
    let mut d = d;
    match op {
        Op::Meet(cs) => d.meet_cons(cs),
        Op::AssignInt(v, e) => d.assign(Var(*v), e),
        Op::AssignBool(e) => d.assign(Var(0), e),
        Op::Forget(v) => {
            d.forget(&[Var(*v)]);
            if poly_like {
                d.meet_cons(&bool_bounds());
            }
        }
        Op::JoinWith(cs) => {
            let mut o = D::top(&sp);
            if poly_like {
                o.meet_cons(&bool_bounds());
            }
            o.meet_cons(cs);
            d = d.join(&o);
        }
    }
    d
}

fn build<D: NumericDomain>(ops: &[Op], poly_like: bool) -> D {
    let mut d = D::top(&space());
    if poly_like {
        d.meet_cons(&bool_bounds());
    }
    for op in ops {
        d = apply(d, op, poly_like);
    }
    d
}

type Part = Partitioned<Polyhedron>;
type Prod = Product<Polyhedron>;

/// One step is sound: γ(op(pre)) over-approximates the concrete image of γ(pre).
/// With `exact`, a meet must be exact (the partitioned domain); the product only
/// over-approximates it (it joins the per-valuation results back into one state).
fn check_step<D: NumericDomain>(pre: &D, op: &Op, exact: bool) -> Result<(), TestCaseError> {
    let post = apply(pre.clone(), op, false);
    let xs = zvars("x");
    let ys = zvars("y");
    let pre_f = zstate(pre, &xs);
    match op {
        Op::Meet(cs) => {
            // Exact: post == pre ∧ cs (over 0/1 booleans).
            let want = Bool::and(&[pre_f.clone(), zall(cs, &xs)]);
            if exact {
                prop_assert!(valid(&want.iff(&zstate(&post, &xs))), "meet not exact");
            } else {
                prop_assert!(valid(&want.implies(&zstate(&post, &xs))), "meet unsound");
            }
        }
        Op::AssignInt(_, e) | Op::AssignBool(e) => {
            let v = if let Op::AssignInt(v, _) = op { *v } else { 0 };
            let mut img: Vec<Real> = xs.clone();
            img[v as usize] = zexpr(e, &xs);
            prop_assert!(
                valid(&pre_f.implies(&zstate(&post, &img))),
                "assign unsound"
            );
        }
        Op::Forget(v) => {
            let mut img = xs.clone();
            img[*v as usize] = ys[*v as usize].clone();
            let hyp = Bool::and(&[pre_f.clone(), zbools(&img)]);
            prop_assert!(valid(&hyp.implies(&zstate(&post, &img))), "forget unsound");
        }
        Op::JoinWith(cs) => {
            let other = Bool::and(&[zall(cs, &xs), zbools(&xs)]);
            let post_f = zstate(&post, &xs);
            prop_assert!(valid(&pre_f.implies(&post_f)), "join misses self");
            prop_assert!(valid(&other.implies(&post_f)), "join misses other");
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, .. ProptestConfig::default() })]

    #[test]
    fn partitioned_steps_are_sound(ops in prop::collection::vec(arb_op(), 0..5), op in arb_op()) {
        let pre: Part = build(&ops, false);
        check_step(&pre, &op, true)?;
    }

    #[test]
    fn product_steps_are_sound(ops in prop::collection::vec(arb_op(), 0..5), op in arb_op()) {
        let pre: Prod = build(&ops, false);
        check_step(&pre, &op, false)?;
    }

    #[test]
    fn leq_join_widen_bound_entails(a_ops in prop::collection::vec(arb_op(), 0..4),
                                    b_ops in prop::collection::vec(arb_op(), 0..4),
                                    e in arb_expr(), c in arb_cons()) {
        let a: Part = build(&a_ops, false);
        let b: Part = build(&b_ops, false);
        let xs = zvars("x");
        let (fa, fb) = (zstate(&a, &xs), zstate(&b, &xs));
        if a.is_leq(&b) {
            prop_assert!(valid(&fa.implies(&fb)), "is_leq unsound");
        }
        prop_assert!(a.is_leq(&a.clone().join(&b)));
        let j = zstate(&a.clone().join(&b), &xs);
        prop_assert!(valid(&fa.implies(&j)) && valid(&fb.implies(&j)));
        let w = zstate(&a.clone().widen(&b), &xs);
        prop_assert!(valid(&fa.implies(&w)) && valid(&fb.implies(&w)), "widen not an upper bound");
        let m = zstate(&a.clone().meet(&b), &xs);
        prop_assert!(valid(&Bool::and(&[fa.clone(), fb.clone()]).implies(&m)), "meet unsound");
        let bd = a.bound(&e);
        let ze = zexpr(&e, &xs);
        if let Some(lo) = &bd.lo {
            let l = zint(lo.numer()) / zint(lo.denom());
            prop_assert!(valid(&fa.implies(&ze.ge(&l))), "bound lo unsound");
        }
        if let Some(hi) = &bd.hi {
            let h = zint(hi.numer()) / zint(hi.denom());
            prop_assert!(valid(&fa.implies(&ze.le(&h))), "bound hi unsound");
        }
        match a.entails(&c) {
            polyfocus::domain::Entailment::Holds => prop_assert!(valid(&fa.implies(&zcons(&c, &xs)))),
            polyfocus::domain::Entailment::Violated => prop_assert!(valid(&fa.implies(&zcons(&c, &xs).not()))),
            polyfocus::domain::Entailment::Unknown => {}
        }
        // to_cons (the convex hull) contains the state.
        prop_assert!(valid(&fa.implies(&zall(&a.to_cons(), &xs))), "to_cons unsound");
    }

    #[test]
    fn partitioned_at_least_as_precise_as_polyhedra(ops in prop::collection::vec(arb_op(), 0..6)) {
        let part: Part = build(&ops, false);
        let poly: Polyhedron = build(&ops, true);
        let xs = zvars("x");
        let fp = zstate(&part, &xs);
        let fq = Bool::and(&[zall(&poly.to_cons(), &xs), zbools(&xs)]);
        prop_assert!(valid(&fp.implies(&fq)), "partitioned less precise than polyhedra");
    }
}

#[test]
fn flag_correlation_survives_join() {
    // (b = 1 ∧ x ≥ 1) ⊔ (b = 0 ∧ x ≤ -1): the partitioned domain keeps both cases.
    let sp = space();
    let b = LinExpr::var(Var(0));
    let x = LinExpr::var(Var(2));
    let mut p: Part = Part::top(&sp);
    p.meet_cons(&[
        LinCons::eq(&b, &LinExpr::constant(1)),
        LinCons::ge(&x, &LinExpr::constant(1)),
    ]);
    let mut q: Part = Part::top(&sp);
    q.meet_cons(&[
        LinCons::eq(&b, &LinExpr::constant(0)),
        LinCons::le(&x, &LinExpr::constant(-1)),
    ]);
    let mut j = p.join(&q);
    assert_eq!(j.parts().len(), 2);
    j.meet_cons(&[LinCons::eq(&b, &LinExpr::constant(1))]);
    assert_eq!(
        j.entails(&LinCons::ge(&x, &LinExpr::constant(1))),
        polyfocus::domain::Entailment::Holds
    );
    // The product keeps one numeric state: x is anything after the join.
    let mut p: Prod = Prod::top(&sp);
    p.meet_cons(&[
        LinCons::eq(&b, &LinExpr::constant(1)),
        LinCons::ge(&x, &LinExpr::constant(1)),
    ]);
    let mut q: Prod = Prod::top(&sp);
    q.meet_cons(&[
        LinCons::eq(&b, &LinExpr::constant(0)),
        LinCons::le(&x, &LinExpr::constant(-1)),
    ]);
    let mut j = p.join(&q);
    j.meet_cons(&[LinCons::eq(&b, &LinExpr::constant(1))]);
    assert_ne!(
        j.entails(&LinCons::ge(&x, &LinExpr::constant(1))),
        polyfocus::domain::Entailment::Holds
    );
}
