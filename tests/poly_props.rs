//! Property tests of the polyhedra domain with Z3 (linear real arithmetic) as the oracle,
//! plus worked examples. Every operation is checked for exactness where it is exact (meet,
//! join as the closed convex hull when its facets' coefficients fit `MAX_COEFFICIENT_BITS`,
//! inclusion, assignment, substitution, projection, bounds, entailment) and for soundness
//! where it is an upper bound (widening).

use polyfocus::domain::poly::{Budget, Polyhedron};
use polyfocus::domain::{
    ConsKind, Entailment, Interval, Lattice, LinCons, LinExpr, NumericDomain, Rat, Space, Var,
};
use proptest::prelude::*;
use z3::ast::{exists_const, forall_const, Ast, Bool, Int as ZInt, Real};
use z3::{SatResult, Solver};

// ---------- Z3 encoding ----------

fn zint(c: &num_bigint::BigInt) -> Real {
    Real::from_int(&c.to_string().parse::<ZInt>().unwrap())
}

fn zrat(r: &Rat) -> Real {
    zint(r.numer()) / zint(r.denom())
}

fn zvars(prefix: &str, n: usize) -> Vec<Real> {
    (0..n)
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
    if parts.is_empty() {
        Bool::from_bool(true)
    } else {
        Bool::and(&parts)
    }
}

fn zpoly(p: &Polyhedron, xs: &[Real]) -> Bool {
    zall(&p.to_cons(), xs)
}

fn unsat(f: &Bool) -> bool {
    let s = Solver::new();
    s.assert(f);
    match s.check() {
        SatResult::Unsat => true,
        SatResult::Sat => false,
        SatResult::Unknown => panic!("z3 unknown on {f}"),
    }
}

fn valid(f: &Bool) -> bool {
    unsat(&f.not())
}

fn equiv(a: &Bool, b: &Bool) -> bool {
    valid(&a.iff(b))
}

// ---------- generators ----------

fn arb_cons(n: usize) -> impl Strategy<Value = LinCons> {
    (proptest::collection::vec(-3i64..=3, n), -6i64..=6, 0u8..6).prop_map(move |(cs, k, kind)| {
        let mut e = LinExpr::constant(k);
        for (i, c) in cs.iter().enumerate() {
            e.add_term(*c, Var(i as u32));
        }
        LinCons {
            expr: e,
            kind: if kind == 0 {
                ConsKind::Eq
            } else {
                ConsKind::Ge
            },
        }
    })
}

fn arb_system(n: usize) -> impl Strategy<Value = Vec<LinCons>> {
    proptest::collection::vec(arb_cons(n), 0..6)
}

fn arb_expr(n: usize) -> impl Strategy<Value = LinExpr> {
    (proptest::collection::vec(-3i64..=3, n), -4i64..=4).prop_map(|(cs, k)| {
        let mut e = LinExpr::constant(k);
        for (i, c) in cs.iter().enumerate() {
            e.add_term(*c, Var(i as u32));
        }
        e
    })
}

fn poly(n: usize, cs: &[LinCons]) -> Polyhedron {
    let mut p = Polyhedron::top(&Space::anonymous(n));
    p.meet_cons(cs);
    p
}

/// Two random systems over the same small dimension.
fn two_systems() -> impl Strategy<Value = (usize, Vec<LinCons>, Vec<LinCons>)> {
    (1usize..=4).prop_flat_map(|n| (Just(n), arb_system(n), arb_system(n)))
}

fn one_system() -> impl Strategy<Value = (usize, Vec<LinCons>)> {
    (1usize..=5).prop_flat_map(|n| (Just(n), arb_system(n)))
}

fn with_expr() -> impl Strategy<Value = (usize, Vec<LinCons>, LinExpr, u32)> {
    (1usize..=4).prop_flat_map(|n| (Just(n), arb_system(n), arb_expr(n), 0..n as u32))
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 64,
        ..ProptestConfig::default()
    }
}

// ---------- properties ----------

proptest! {
    #![proptest_config(config())]

    #[test]
    fn constraints_round_trip_exactly((n, cs) in one_system()) {
        let xs = zvars("x", n);
        let p = poly(n, &cs);
        prop_assert!(equiv(&zpoly(&p, &xs), &zall(&cs, &xs)));
        prop_assert_eq!(p.is_bottom(), unsat(&zall(&cs, &xs)));
    }

    #[test]
    fn canonical_form_is_unique((n, cs, extra) in two_systems()) {
        // Adding implied constraints (the join with a subset, redundant copies) never changes
        // the printed form.
        let p = poly(n, &cs);
        let mut redundant = cs.clone();
        redundant.reverse();
        redundant.extend(p.to_cons());
        let q = poly(n, &redundant);
        prop_assert_eq!(p.to_cons(), q.to_cons());
        prop_assert_eq!(&p, &q);
        let r = poly(n, &extra).meet(&p);
        let joined = p.clone().join(&r);
        prop_assert_eq!(joined.to_cons(), p.to_cons());
    }

    #[test]
    fn meet_is_exact((n, a, b) in two_systems()) {
        let xs = zvars("x", n);
        let (p, q) = (poly(n, &a), poly(n, &b));
        let m = p.clone().meet(&q);
        prop_assert!(equiv(&zpoly(&m, &xs), &Bool::and(&[zpoly(&p, &xs), zpoly(&q, &xs)])));
    }

    #[test]
    fn join_is_the_closed_convex_hull((n, a, b) in two_systems()) {
        let xs = zvars("x", n);
        let (p, q) = (poly(n, &a), poly(n, &b));
        let j = p.clone().join(&q);
        // Upper bound.
        prop_assert!(valid(&Bool::or(&[zpoly(&p, &xs), zpoly(&q, &xs)]).implies(&zpoly(&j, &xs))));
        // Least: every point of j is y + z with y ∈ λ·P, z ∈ (1−λ)·Q in homogenized form
        // (λ = 0 or 1 allows the recession cones: this is the closure of the hull).
        if !p.is_bottom() && !q.is_bottom() {
            let ys = zvars("y", n);
            let zs = zvars("z", n);
            let lam = Real::new_const("lam");
            let one = Real::from_int(&ZInt::from_i64(1));
            let zero = Real::from_int(&ZInt::from_i64(0));
            let hom = |cs: &[LinCons], vs: &[Real], t: &Real| -> Bool {
                let parts: Vec<Bool> = cs.iter().map(|c| {
                    let mut e = zint(c.expr.constant_part()) * t.clone();
                    for (v, k) in c.expr.terms() {
                        e = e + zint(k) * vs[v.index()].clone();
                    }
                    match c.kind { ConsKind::Eq => e.eq(&zero), ConsKind::Ge => e.ge(&zero) }
                }).collect();
                if parts.is_empty() { Bool::from_bool(true) } else { Bool::and(&parts) }
            };
            let mut body = vec![lam.ge(&zero), lam.le(&one), hom(&p.to_cons(), &ys, &lam), hom(&q.to_cons(), &zs, &(one.clone() - lam.clone()))];
            for i in 0..n {
                body.push(xs[i].eq(&(ys[i].clone() + zs[i].clone())));
            }
            let mut bound: Vec<&dyn Ast> = vec![&lam];
            for v in ys.iter().chain(&zs) { bound.push(v); }
            let hull = exists_const(&bound, &[], &Bool::and(&body));
            prop_assert!(valid(&zpoly(&j, &xs).implies(&hull)));
        }
    }

    #[test]
    fn inclusion_is_exact((n, a, b) in two_systems()) {
        let xs = zvars("x", n);
        let (p, q) = (poly(n, &a), poly(n, &b));
        let truth = valid(&zpoly(&p, &xs).implies(&zpoly(&q, &xs)));
        prop_assert_eq!(p.is_leq(&q), truth);
        let m = p.clone().meet(&q);
        prop_assert!(m.is_leq(&p) && m.is_leq(&q));
        // Inclusion in a flat subset: only the equalities can fail.
        let eqs: Vec<LinCons> = b.iter().map(|c| LinCons { expr: c.expr.clone(), kind: ConsKind::Eq }).collect();
        let flat = p.clone().meet(&poly(n, &eqs));
        prop_assert_eq!(p.is_leq(&flat), valid(&zpoly(&p, &xs).implies(&zpoly(&flat, &xs))));
    }

    #[test]
    fn widening_is_an_upper_bound((n, a, b) in two_systems()) {
        let xs = zvars("x", n);
        let (p, q) = (poly(n, &a), poly(n, &b));
        let w = p.clone().widen(&q);
        prop_assert!(valid(&Bool::or(&[zpoly(&p, &xs), zpoly(&q, &xs)]).implies(&zpoly(&w, &xs))));
        let t = p.clone().widen_with_thresholds(&q, &b);
        prop_assert!(valid(&Bool::or(&[zpoly(&p, &xs), zpoly(&q, &xs)]).implies(&zpoly(&t, &xs))));
        prop_assert!(t.is_leq(&w));
    }

    #[test]
    fn widening_chains_stabilize((n, a, b) in two_systems()) {
        // Iterating x ∇= x ⊔ f(x) with a growing f (translation by a random vector) stops.
        let mut x = poly(n, &a);
        let step = poly(n, &b);
        for _ in 0..(3 * n + 4) {
            let next = x.clone().widen(&x.clone().join(&step).join(&{
                let mut y = x.clone();
                y.assign(Var(0), &LinExpr::var(Var(0)).plus(&LinExpr::constant(1)));
                y
            }));
            if next.is_leq(&x) { break; }
            x = next;
        }
        let mut y = x.clone();
        y.assign(Var(0), &LinExpr::var(Var(0)).plus(&LinExpr::constant(1)));
        let again = x.clone().widen(&x.clone().join(&step).join(&y));
        prop_assert!(again.is_leq(&x) || x.is_bottom(), "no fixpoint reached: {} then {}", x, again);
    }

    #[test]
    fn narrowing_stays_between((n, a, b) in two_systems()) {
        let xs = zvars("x", n);
        let p = poly(n, &a);
        let q = poly(n, &b).meet(&p);
        let r = p.clone().narrow(&q);
        prop_assert!(q.is_leq(&r) && r.is_leq(&p));
        prop_assert!(valid(&zpoly(&q, &xs).implies(&zpoly(&r, &xs))));
    }

    #[test]
    fn assignment_is_the_exact_image((n, cs, e, v) in with_expr()) {
        let xs = zvars("x", n);
        let p = poly(n, &cs);
        let mut r = p.clone();
        r.assign(Var(v), &e);
        // image ⊆ r: for x ∈ P, x[v := e(x)] ∈ r.
        let mut img = xs.clone();
        img[v as usize] = zexpr(&e, &xs);
        prop_assert!(valid(&zpoly(&p, &xs).implies(&zpoly(&r, &img))));
        // r ⊆ image: y ∈ r ⇒ ∃ old value t of x_v with P(y[v := t]) and y_v = e(y[v := t]).
        let t = Real::new_const("t");
        let mut old = xs.clone();
        old[v as usize] = t.clone();
        let pre = Bool::and(&[zpoly(&p, &old), xs[v as usize].eq(&zexpr(&e, &old))]);
        prop_assert!(valid(&zpoly(&r, &xs).implies(&exists_const(&[&t], &[], &pre))));
    }

    #[test]
    fn parallel_assignment_is_the_exact_image((n, cs, e, v) in with_expr(), e2 in arb_expr(4)) {
        let xs = zvars("x", n);
        let p = poly(n, &cs);
        prop_assume!(n >= 2);
        let w = (v + 1) % n as u32;
        let e2 = e2.rename(|x| Var(x.0 % n as u32));
        let asg = vec![(Var(v), e.clone()), (Var(w), e2.clone())];
        let mut r = p.clone();
        r.assign_parallel(&asg);
        let mut img = xs.clone();
        img[v as usize] = zexpr(&e, &xs);
        img[w as usize] = zexpr(&e2, &xs);
        prop_assert!(valid(&zpoly(&p, &xs).implies(&zpoly(&r, &img))));
        let olds = zvars("o", n);
        let mut body = vec![zpoly(&p, &olds)];
        for i in 0..n {
            body.push(xs[i].eq(&img_at(i, &asg, &olds)));
        }
        let bound: Vec<&dyn Ast> = olds.iter().map(|o| o as &dyn Ast).collect();
        prop_assert!(valid(&zpoly(&r, &xs).implies(&exists_const(&bound, &[], &Bool::and(&body)))));
    }

    #[test]
    fn substitution_is_the_exact_preimage((n, cs, e, v) in with_expr()) {
        let xs = zvars("x", n);
        let p = poly(n, &cs);
        let mut r = p.clone();
        r.substitute(Var(v), &e);
        let mut img = xs.clone();
        img[v as usize] = zexpr(&e, &xs);
        prop_assert!(equiv(&zpoly(&r, &xs), &zpoly(&p, &img)));
    }

    #[test]
    fn projection_is_existential_quantification((n, cs, _e, v) in with_expr()) {
        let xs = zvars("x", n);
        let p = poly(n, &cs);
        let mut r = p.clone();
        r.forget(&[Var(v)]);
        let t = Real::new_const("t");
        let mut old = xs.clone();
        old[v as usize] = t.clone();
        prop_assert!(equiv(&zpoly(&r, &xs), &exists_const(&[&t], &[], &zpoly(&p, &old))));
        let mut s = p.clone();
        s.assign_interval(Var(v), &Interval::ints(-1, 2));
        let range = Bool::and(&[xs[v as usize].ge(&zrat(&Rat::from_integer((-1).into()))), xs[v as usize].le(&zrat(&Rat::from_integer(2.into())))]);
        prop_assert!(equiv(&zpoly(&s, &xs), &Bool::and(&[zpoly(&r, &xs), range])));
    }

    #[test]
    fn bounds_are_exact((n, cs, e, _v) in with_expr()) {
        let xs = zvars("x", n);
        let p = poly(n, &cs);
        prop_assume!(!p.is_bottom());
        let b = p.bound(&e);
        let ze = zexpr(&e, &xs);
        let zp = zpoly(&p, &xs);
        let m = Real::new_const("m");
        match &b.lo {
            Some(l) => {
                prop_assert!(unsat(&Bool::and(&[zp.clone(), ze.lt(&zrat(l))])));
                prop_assert!(!unsat(&Bool::and(&[zp.clone(), ze.eq(&zrat(l))])));
            }
            None => {
                let bound: Vec<&dyn Ast> = xs.iter().map(|x| x as &dyn Ast).collect();
                let below = exists_const(&bound, &[], &Bool::and(&[zp.clone(), ze.lt(&m)]));
                prop_assert!(valid(&forall_const(&[&m], &[], &below)));
            }
        }
        match &b.hi {
            Some(h) => {
                prop_assert!(unsat(&Bool::and(&[zp.clone(), ze.gt(&zrat(h))])));
                prop_assert!(!unsat(&Bool::and(&[zp.clone(), ze.eq(&zrat(h))])));
            }
            None => {
                let bound: Vec<&dyn Ast> = xs.iter().map(|x| x as &dyn Ast).collect();
                let above = exists_const(&bound, &[], &Bool::and(&[zp.clone(), ze.gt(&m)]));
                prop_assert!(valid(&forall_const(&[&m], &[], &above)));
            }
        }
    }

    #[test]
    fn entailment_is_exact((n, a, b) in two_systems()) {
        let xs = zvars("x", n);
        let p = poly(n, &a);
        for c in &b {
            let holds = valid(&zpoly(&p, &xs).implies(&zcons(c, &xs)));
            let violated = unsat(&Bool::and(&[zpoly(&p, &xs), zcons(c, &xs)]));
            let expected = if holds { Entailment::Holds } else if violated { Entailment::Violated } else { Entailment::Unknown };
            prop_assert_eq!(p.entails(c), expected);
        }
    }

    #[test]
    fn integer_tightening_keeps_integer_points((n, cs) in one_system()) {
        let p = poly(n, &cs);
        let mut t = p.clone();
        t.tighten_integer();
        prop_assert!(t.is_leq(&p));
        // Every integer point of p is in t (checked over the integers).
        let is: Vec<ZInt> = (0..n).map(|i| ZInt::new_const(format!("i{i}"))).collect();
        let xs: Vec<Real> = is.iter().map(Real::from_int).collect();
        prop_assert!(valid(&zpoly(&p, &xs).implies(&zpoly(&t, &xs))));
    }

    #[test]
    fn decomposed_and_monolithic_agree((n, a, b) in two_systems()) {
        // Budgets only change representation size, never the result when not exceeded.
        let p = Polyhedron::from_cons(n, &a, Budget::unlimited());
        let q = Polyhedron::from_cons(n, &b, Budget::unlimited());
        let j = p.try_join(&q).unwrap();
        let xs = zvars("x", n);
        prop_assert!(equiv(&zpoly(&j, &xs), &zpoly(&poly(n, &a).join(&poly(n, &b)), &xs)));
        for blk in j.blocks() {
            prop_assert!(!blk.is_empty());
        }
    }
}

/// Sparse constraints over 6 dimensions (one or two variables each), so that the
/// polyhedra decompose into several blocks and the block machinery is exercised.
fn sparse_cons() -> impl Strategy<Value = LinCons> {
    (
        0usize..6,
        0usize..6,
        -2i64..=2,
        -2i64..=2,
        -4i64..=4,
        0u8..6,
    )
        .prop_map(|(i, j, a, b, k, kind)| {
            let mut e = LinExpr::constant(k);
            e.add_term(if a == 0 { 1 } else { a }, Var(i as u32));
            e.add_term(b, Var(j as u32));
            LinCons {
                expr: e,
                kind: if kind == 0 {
                    ConsKind::Eq
                } else {
                    ConsKind::Ge
                },
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn decomposed_operations_are_exact(
        a in proptest::collection::vec(sparse_cons(), 0..6),
        b in proptest::collection::vec(sparse_cons(), 0..6),
        e in arb_expr(6),
        v in 0u32..6,
    ) {
        let n = 6;
        let xs = zvars("x", n);
        let (p, q) = (poly(n, &a), poly(n, &b));
        let (zp, zq) = (zpoly(&p, &xs), zpoly(&q, &xs));
        prop_assert!(equiv(&zp, &zall(&a, &xs)));
        let m = p.clone().meet(&q);
        prop_assert!(equiv(&zpoly(&m, &xs), &Bool::and(&[zp.clone(), zq.clone()])));
        let j = p.clone().join(&q);
        prop_assert!(valid(&Bool::or(&[zp.clone(), zq.clone()]).implies(&zpoly(&j, &xs))));
        prop_assert_eq!(p.is_leq(&q), valid(&zp.implies(&zq)));
        let w = p.clone().widen(&q);
        prop_assert!(valid(&Bool::or(&[zp.clone(), zq.clone()]).implies(&zpoly(&w, &xs))));
        let mut r = p.clone();
        r.forget(&[Var(v)]);
        let t = Real::new_const("t");
        let mut old = xs.clone();
        old[v as usize] = t.clone();
        prop_assert!(equiv(&zpoly(&r, &xs), &exists_const(&[&t], &[], &zpoly(&p, &old))));
        let mut s = p.clone();
        s.assign(Var(v), &e);
        let mut img = xs.clone();
        img[v as usize] = zexpr(&e, &xs);
        prop_assert!(valid(&zp.implies(&zpoly(&s, &img))));
        let pre = Bool::and(&[zpoly(&p, &old), xs[v as usize].eq(&zexpr(&e, &old))]);
        prop_assert!(valid(&zpoly(&s, &xs).implies(&exists_const(&[&t], &[], &pre))));
        // Canonical: the same set built another way is the same value.
        let again = poly(n, &p.to_cons().into_iter().rev().collect::<Vec<_>>());
        prop_assert_eq!(&again, &p);
    }
}

fn img_at(i: usize, asg: &[(Var, LinExpr)], olds: &[Real]) -> Real {
    match asg.iter().find(|(v, _)| v.index() == i) {
        Some((_, e)) => zexpr(e, olds),
        None => olds[i].clone(),
    }
}

// ---------- worked examples ----------

fn x(i: u32) -> LinExpr {
    LinExpr::var(Var(i))
}

fn k(c: i64) -> LinExpr {
    LinExpr::constant(c)
}

fn show(p: &Polyhedron) -> String {
    let space = Space::named(vec!["x".into(), "y".into(), "z".into()][..p.dim()].to_vec());
    polyfocus::domain::format_state(p, &space)
}

#[test]
fn widening_of_a_point_by_a_segment_keeps_the_direction() {
    let space = Space::anonymous(2);
    let p0 = Polyhedron::from_cons(
        2,
        &[LinCons::eq(&x(0), &k(0)), LinCons::eq(&x(1), &k(0))],
        Budget::standard(),
    );
    let p1 = Polyhedron::from_cons(
        2,
        &[LinCons::eq(&x(0), &k(1)), LinCons::eq(&x(1), &k(1))],
        Budget::standard(),
    );
    let hull = p0.clone().join(&p1);
    assert_eq!(show(&hull), "x - y == 0 && y >= 0 && y <= 1");
    let w = p0.widen(&hull);
    assert_eq!(show(&w), "x - y == 0 && y >= 0");
    let _ = space;
}

#[test]
fn halbwachs_loop_invariant() {
    // i := 0; j := 0; while (i <= 100) { i := i + 1; if (*) j := j + 1 } — the classic
    // polyhedral invariant is 0 <= j <= i.
    let i = Var(0);
    let j = Var(1);
    let mut inv = Polyhedron::from_cons(
        2,
        &[LinCons::eq(&x(0), &k(0)), LinCons::eq(&x(1), &k(0))],
        Budget::standard(),
    );
    for _ in 0..10 {
        let mut body = inv.clone();
        body.meet_cons(&[LinCons::le(&x(0), &k(100))]);
        body.assign(i, &x(0).plus(&k(1)));
        let mut inc = body.clone();
        inc.assign(j, &x(1).plus(&k(1)));
        let next = inv.clone().join(&body).join(&inc);
        if next.is_leq(&inv) {
            break;
        }
        inv = inv.widen(&next);
    }
    assert_eq!(show(&inv), "y >= 0 && x - y >= 0");
    // One narrowing step recovers the loop bound.
    let mut body = inv.clone();
    body.meet_cons(&[LinCons::le(&x(0), &k(100))]);
    body.assign(i, &x(0).plus(&k(1)));
    let mut inc = body.clone();
    inc.assign(j, &x(1).plus(&k(1)));
    let init = Polyhedron::from_cons(
        2,
        &[LinCons::eq(&x(0), &k(0)), LinCons::eq(&x(1), &k(0))],
        Budget::standard(),
    );
    let next = init.join(&body).join(&inc);
    let narrowed = inv.narrow(&next);
    assert_eq!(show(&narrowed), "y >= 0 && x - y >= 0 && x <= 101");
}

#[test]
fn bottom_top_and_printing() {
    let space = Space::anonymous(3);
    let top = Polyhedron::top(&space);
    assert!(top.is_top());
    assert_eq!(show(&top), "true");
    let bot = Polyhedron::bottom(&space);
    assert_eq!(show(&bot), "false");
    assert_eq!(bot.to_cons().len(), 1);
    assert_eq!(bot.to_cons()[0].constant_truth(), Some(false));
    let p = Polyhedron::from_cons(
        3,
        &[LinCons::ge(&x(0), &k(0)), LinCons::le(&x(0), &k(-1))],
        Budget::standard(),
    );
    assert!(p.is_bottom());
}

#[test]
fn independent_variables_live_in_separate_blocks() {
    let mut p = Polyhedron::top(&Space::anonymous(6));
    p.meet_cons(&[
        LinCons::le(&x(0), &x(1)),
        LinCons::le(&x(2), &k(3)),
        LinCons::le(&x(4), &x(5)),
        LinCons::ge(&x(4), &k(0)),
    ]);
    assert_eq!(
        p.blocks(),
        vec![vec![Var(0), Var(1)], vec![Var(2)], vec![Var(4), Var(5)]]
    );
    p.forget(&[Var(4)]);
    // ∃x4. 0 <= x4 <= x5 leaves x5 >= 0 on its own.
    assert_eq!(
        p.blocks(),
        vec![vec![Var(0), Var(1)], vec![Var(2)], vec![Var(5)]]
    );
    p.assign(Var(3), &x(0).plus(&x(2)));
    assert_eq!(p.max_block(), 4);
}

#[test]
fn budget_exceeded_falls_back_to_a_sound_box() {
    // A 6-cube has 64 vertices; a budget of 20 generators cannot hold its hull with a point.
    let mut cs = Vec::new();
    for i in 0..6 {
        cs.push(LinCons::ge(&x(i), &k(0)));
        cs.push(LinCons::le(&x(i), &k(1)));
    }
    let mut sum = LinExpr::default();
    for i in 0..6 {
        sum = sum.plus(&x(i));
    }
    cs.push(LinCons::le(&sum, &k(5)));
    let tight = Budget {
        max_rows: 20,
        max_bits: 64,
        max_work: u64::MAX,
        stoppable: false,
    };
    let cube = Polyhedron::from_cons(6, &cs[..12], tight);
    let far = Polyhedron::from_cons(
        6,
        &(0..6)
            .map(|i| LinCons::eq(&x(i), &k(2)))
            .collect::<Vec<_>>(),
        tight,
    );
    assert!(cube.try_join(&far).is_err());
    let j = cube.clone().join(&far);
    assert!(cube.is_leq(&j) && far.is_leq(&j));
    assert_eq!(j.max_block(), 1);
    let mut m = cube.clone();
    assert!(m.try_meet_cons(&[LinCons::le(&sum, &k(5))]).is_ok() || m == cube);
}

#[test]
fn big_coefficients_stay_exact() {
    let big = LinExpr::constant(num_bigint::BigInt::from(i64::MAX) * 4);
    let mut p = Polyhedron::top(&Space::anonymous(2));
    p.meet_cons(&[
        LinCons::le(&x(0).scaled(&3.into()), &big),
        LinCons::ge(&x(0), &x(1)),
    ]);
    p.assign(
        Var(1),
        &x(1)
            .scaled(&(num_bigint::BigInt::from(i64::MAX) * 2))
            .plus(&x(0)),
    );
    let b = p.bound(&x(0));
    assert_eq!(
        b.hi,
        Some(Rat::new(num_bigint::BigInt::from(i64::MAX) * 4, 3.into()))
    );
}

/// Regression: forgetting variables of several blocks at once (the block indices shift as
/// blocks are removed).
#[test]
fn forget_across_several_blocks() {
    use polyfocus::domain::{Lattice, LinCons, LinExpr, NumericDomain, Polyhedron, Space, Var};
    let space = Space::anonymous(6);
    let mut p = Polyhedron::top(&space);
    let x = |i: u32| LinExpr::var(Var(i));
    p.meet_cons(&[
        LinCons::eq(&x(0), &x(1)),
        LinCons::eq(&x(2), &x(3)),
        LinCons::eq(&x(4), &x(5)),
        LinCons::ge(&x(5), &LinExpr::constant(1)),
    ]);
    p.forget(&[Var(0), Var(2), Var(4)]);
    assert_eq!(p.to_cons(), vec![LinCons::ge(&x(5), &LinExpr::constant(1))]);
}

// ---------- recorded operations (workload (c)) ----------

/// `check -Z record-polyhedra=FILE` writes a trace that parses, whose operands are the canonical
/// polyhedra of the analysis (reading one back gives the same constraints), and that covers
/// the operations a loop needs.
#[test]
fn an_analysis_records_its_polyhedra_operations() {
    use polyfocus::domain::poly::record::{self, OpKind, Operand, Recorded};
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("relational.trace");
    let program =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/relational.c");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_polyfocus"))
        .args(["check", "--jobs", "1", "-Z"])
        .arg(format!("record-polyhedra={}", trace.display()))
        .arg(&program)
        .output()
        .expect("polyfocus runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ops = record::parse(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    let kinds: std::collections::BTreeSet<OpKind> = ops.iter().map(Recorded::kind).collect();
    for kind in [
        OpKind::Join,
        OpKind::IsLeq,
        OpKind::Assign,
        OpKind::MeetCons,
    ] {
        assert!(kinds.contains(&kind), "no {} in {kinds:?}", kind.name());
    }
    let operands = |op: &Recorded| -> Vec<Operand> {
        match op {
            Recorded::Join(a, b)
            | Recorded::Meet(a, b)
            | Recorded::Widen(a, b)
            | Recorded::IsLeq(a, b) => {
                vec![a.clone(), b.clone()]
            }
            Recorded::Assign(a, ..) | Recorded::Forget(a, _) | Recorded::MeetCons(a, _) => {
                vec![a.clone()]
            }
        }
    };
    for op in &ops {
        for o in operands(op) {
            if let Some(cs) = &o.cons {
                let p = Polyhedron::from_cons(o.dim, cs, Budget::standard());
                assert_eq!(&p.to_cons(), cs, "{op:?}");
            }
        }
    }
}

/// A join keeps no inequality with a coefficient wider than `MAX_COEFFICIENT_BITS`, and
/// still contains both arguments: the hull of `(0, 0)`, `(0, 1)` and `(1, 2^50)` has two
/// facets with a coefficient near `2^50`, which are dropped.
#[test]
fn a_join_drops_inequalities_with_wide_coefficients() {
    let wide = LinExpr::constant(1i64 << 50);
    let point = |a: LinExpr, b: LinExpr| {
        Polyhedron::from_cons(
            2,
            &[LinCons::eq(&x(0), &a), LinCons::eq(&x(1), &b)],
            Budget::standard(),
        )
    };
    let pts = [point(k(0), k(0)), point(k(0), k(1)), point(k(1), wide)];
    let hull = pts[0].clone().join(&pts[1]).join(&pts[2]);
    let limit = polyfocus::domain::poly::MAX_COEFFICIENT_BITS;
    for c in hull.to_cons() {
        for (_, a) in c.expr.terms() {
            assert!(a.bits() <= limit, "{c:?}");
        }
    }
    for p in &pts {
        assert!(p.is_leq(&hull), "{p:?} not in {hull:?}");
    }
    assert!(!hull.is_leq(&pts[0].clone().join(&pts[1])), "{hull:?}");
}
