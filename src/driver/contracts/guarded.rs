//! The guarded candidates of the second search (see the module docs of [`super`]):
//! tabulated clauses `p == k → r == f(k)` and region clauses `p >= t → ...`, `p <= t →
//! ...`, whose constants come from evaluating the function on constants. Evaluation only
//! proposes: every clause is certified like the others.

use crate::frontend::contract::{Atom, Clause, Contract, Contracts, Slot};
use crate::frontend::{Evaluator, Program, Recursion};

/// At most this many values of a parameter are tabulated (`p == k → r == f(k)`). This and
/// the limits below bound the guarded candidates (each an obligation, some a specialized
/// copy lifted every round), so that a round stays within its budget of work.
const MAX_TABLE: i64 = 64;
/// At most this many thresholds per parameter give region guards (`p >= t`, `p <= t`).
const MAX_THRESHOLDS: usize = 12;
/// At most this many guarded clauses per function.
const MAX_GUARDED_CLAUSES: usize = 256;
/// At most this many distinct guards (specialized copies lifted each round) per function,
/// and in all.
const MAX_GUARDS: usize = 48;
const MAX_GUARDS_IN_ALL: usize = 96;
/// Instructions the concrete evaluation of candidates may run, in all.
const EVAL_STEPS: u64 = 400_000;
/// Distances from a threshold at which a region is sampled.
const REGION_SAMPLES: [i64; 10] = [0, 1, 2, 3, 4, 5, 10, 20, 50, 100];

/// `r - a·q >= b` (`q` none: `r >= b`).
fn ret_ge(q: Option<usize>, a: i64, b: i64) -> Atom {
    let mut terms = vec![(Slot::Ret, 1)];
    if let (Some(q), true) = (q, a != 0) {
        terms.push((Slot::Param(q), -a));
    }
    Atom::ge(terms, -b)
}

/// `r - a·q <= b`.
fn ret_le(q: Option<usize>, a: i64, b: i64) -> Atom {
    let mut terms = vec![(Slot::Ret, -1)];
    if let (Some(q), true) = (q, a != 0) {
        terms.push((Slot::Param(q), a));
    }
    Atom::ge(terms, b)
}

/// The bounds a certified context gives parameter `p`: the largest `c` of `p >= c` and the
/// smallest of `p <= c`.
fn param_range(contract: &Contract, p: usize) -> (Option<i64>, Option<i64>) {
    let (mut lo, mut hi): (Option<i64>, Option<i64>) = (None, None);
    for atom in &contract.context {
        match (&atom.terms[..], atom.is_eq) {
            ([(Slot::Param(q), 1)], false) if *q == p => {
                lo = Some(lo.map_or(-atom.constant, |l| l.max(-atom.constant)))
            }
            ([(Slot::Param(q), -1)], false) if *q == p => {
                hi = Some(hi.map_or(atom.constant, |h| h.min(atom.constant)))
            }
            _ => {}
        }
    }
    (lo, hi)
}

/// Whether every value fits the comparisons of an atom (`i64`, away from its ends).
fn small(v: i128) -> bool {
    v.abs() < (1i128 << 62)
}

/// The guarded candidates of the second search (see the module docs): for each recursive
/// function of one or two integer parameters returning an integer, with the values the
/// concrete evaluation of the function gives ([`Evaluator`]):
/// - *tabulated*: `p == k → r == f(k)` (as `r >= f(k)` and `r <= f(k)`) for each `k` of
///   the certified range of `p` when it is small, else of a window above the function's
///   own constants; with a second parameter `q`, `p == k → r == a·q + b` where the values
///   at four `q` lie on that line, or `p == k → r >= a·q + b` (the line through the first
///   two) when they lie above it;
/// - *regions* (one parameter): for thresholds `t` near the function's constants, `p >= t`
///   and `p <= t` guarding the bounds of `r` and `r - p` over samples of the region (and
///   so the line `r == p + b`, or `r == b`, when those bounds meet).
///
/// `certified` (the first search's result) gives the ranges; the result is `certified`
/// with the new clauses appended.
pub(super) fn candidates(
    program: &Program<'_>,
    recursion: &Recursion,
    certified: &Contracts,
) -> Contracts {
    let mut res = certified.clone();
    let program_consts = &recursion.compared_constants;
    let mut eval = program.evaluator(EVAL_STEPS);
    // Its own budget: the checks of region bounds do not take the candidates' evaluations.
    let mut check_eval = program.evaluator(EVAL_STEPS);
    let mut n_guards_in_all = 0;
    for function in &recursion.recursive {
        let f = function.name.as_str();
        let params: Vec<usize> = function.int_params.iter().map(|(p, _)| *p).collect();
        let n = function.n_params;
        if !function.returns_int || params.len() != n || !(1..=2).contains(&n) {
            continue;
        }
        let name = function.name.clone();
        let contract = certified.get(&name).cloned().unwrap_or_default();
        let own: Vec<i64> = function.compared_constants.iter().copied().collect();
        let mut clauses: Vec<Clause> = Vec::new();
        for &p in &params {
            let (lo, hi) = param_range(&contract, p);
            let param_width = function
                .int_params
                .iter()
                .find(|(q, _)| *q == p)
                .map_or(64, |(_, w)| *w);
            let inside = |k: i64| lo.is_none_or(|l| k >= l) && hi.is_none_or(|h| k <= h);
            let other = params.iter().copied().find(|&q| q != p);
            // The whole calling context when it is small; else, for a function of one
            // parameter, a window from its smallest compared constant (its base cases).
            let small_context = matches!((lo, hi), (Some(l), Some(h)) if h - l < MAX_TABLE);
            let table: Vec<i64> = match (lo, hi, other) {
                (Some(l), Some(h), _) if small_context => (l..=h).collect(),
                (_, _, None) => match own.iter().find(|c| c.abs() <= MAX_TABLE) {
                    Some(a) => (a - 1..a + MAX_TABLE / 4).filter(|k| inside(*k)).collect(),
                    None => vec![],
                },
                _ => vec![],
            };
            // A table on a line says no more than a region guard or the linear templates do.
            let on_a_line = other.is_none() && {
                let values: Vec<Option<i128>> =
                    table.iter().map(|k| eval.call(f, &[*k as i128])).collect();
                values.iter().all(Option::is_some)
                    && values.windows(3).all(|w| {
                        let (a, b, c) = (w[0].unwrap_or(0), w[1].unwrap_or(0), w[2].unwrap_or(0));
                        b - a == c - b
                    })
            };
            let table = if on_a_line { vec![] } else { table };
            // When the table covers the whole context, regions add nothing.
            let covered = small_context && !table.is_empty();
            for k in table {
                let guard = vec![Atom::param_eq(p, k)];
                let mut push = |atom: Atom| {
                    clauses.push(Clause {
                        guard: guard.clone(),
                        atom,
                    })
                };
                let Some(q) = other else {
                    if let Some(v) = eval.call(f, &[k as i128]).filter(|v| small(*v)) {
                        push(ret_ge(None, 0, v as i64));
                        push(ret_le(None, 0, v as i64));
                    }
                    continue;
                };
                // r as a function of the other parameter, from its lowest allowed value.
                let (qlo, _) = param_range(&contract, q);
                let q0 = qlo.unwrap_or(0).clamp(-(1 << 20), 1 << 20);
                let mut points = Vec::new();
                for qv in q0..q0 + 4 {
                    let mut args = [0i128; 2];
                    args[p] = k as i128;
                    args[q] = qv as i128;
                    match eval.call(f, &args) {
                        Some(v) if small(v) => points.push((qv as i128, v)),
                        _ => break,
                    }
                }
                if points.len() < 4 {
                    continue;
                }
                let a = points[1].1 - points[0].1;
                let b = points[0].1 - a * points[0].0;
                if !(small(a) && small(b)) || a.abs() > 1 << 20 {
                    continue;
                }
                let (a, b) = (a as i64, b as i64);
                let line = |x: i128| a as i128 * x + b as i128;
                if points.iter().all(|(x, v)| *v == line(*x)) {
                    push(ret_ge(Some(q), a, b));
                    push(ret_le(Some(q), a, b));
                } else if points.iter().all(|(x, v)| *v >= line(*x)) {
                    push(ret_ge(Some(q), a, b));
                }
            }
            if other.is_some() || covered {
                continue;
            }
            // Regions: thresholds near the function's own constants first, then the
            // program's.
            let mut thresholds: Vec<i64> = Vec::new();
            let program_thresholds = program_consts
                .iter()
                .copied()
                .filter(|c| c.abs() <= 1 << 20);
            let near = own
                .iter()
                .copied()
                .chain(program_thresholds)
                .flat_map(|c| [c, c + 1, c - 1]);
            for t in near {
                if inside(t) && !thresholds.contains(&t) && thresholds.len() < MAX_THRESHOLDS {
                    thresholds.push(t);
                }
            }
            for t in thresholds {
                for dir in [1i64, -1] {
                    let mut samples = Vec::new();
                    for d in REGION_SAMPLES {
                        let x = t + dir * d;
                        if !inside(x) {
                            break;
                        }
                        match eval.call(f, &[x as i128]) {
                            Some(v) if small(v) => samples.push((x as i128, v)),
                            _ => break,
                        }
                    }
                    if samples.len() < 3 {
                        continue;
                    }
                    let guard = if dir == 1 {
                        Atom::param_ge(p, t)
                    } else {
                        Atom::param_le(p, t)
                    };
                    let min_r = samples.iter().map(|(_, v)| *v).min().expect("samples");
                    let max_r = samples.iter().map(|(_, v)| *v).max().expect("samples");
                    let min_d = samples.iter().map(|(x, v)| v - x).min().expect("samples");
                    let max_d = samples.iter().map(|(x, v)| v - x).max().expect("samples");
                    let witnesses =
                        region_witnesses(&mut check_eval, f, p, t, dir, (lo, hi), param_width);
                    for atom in [
                        ret_ge(None, 0, min_r as i64),
                        ret_le(None, 0, max_r as i64),
                        ret_ge(Some(p), 1, min_d as i64),
                        ret_le(Some(p), 1, max_d as i64),
                    ] {
                        // A bound the function breaks inside its region and context is
                        // never certified: leaving it out saves the rounds that would drop
                        // it, and those that drop what was proved from it.
                        if witnesses.iter().any(|(x, v)| !atom_holds(&atom, p, *x, *v)) {
                            continue;
                        }
                        clauses.push(Clause {
                            guard: vec![guard.clone()],
                            atom,
                        });
                    }
                }
            }
        }
        let entry = res.entry(name).or_default();
        let mut guards: Vec<Atom> = Vec::new();
        for clause in clauses {
            if entry.summary.len() >= contract.summary.len() + MAX_GUARDED_CLAUSES {
                break;
            }
            if !guards.contains(&clause.guard[0]) {
                if guards.len() >= MAX_GUARDS || n_guards_in_all >= MAX_GUARDS_IN_ALL {
                    continue;
                }
                guards.push(clause.guard[0].clone());
                n_guards_in_all += 1;
            }
            if !entry.summary.contains(&clause) {
                entry.summary.push(clause);
            }
        }
    }
    res.retain(|_, c| !c.is_empty());
    res
}

/// Distances from a threshold at which a region bound is checked by evaluation before it
/// becomes a candidate: every point near the threshold, then every power of ten.
const WITNESS_NEAR: i64 = 64;

/// Points `(x, f(x))` of the region `p >= t` (`dir` 1) or `p <= t` (`dir` -1) within the
/// certified context `(lo, hi)` of `p` and the range of its type (`width` bits), where the
/// evaluation of `f` (of one parameter) gives a value: every point up to [`WITNESS_NEAR`]
/// from `t`, then powers of ten away, and the far end of the region.
fn region_witnesses(
    eval: &mut Evaluator<'_>,
    f: &str,
    p: usize,
    t: i64,
    dir: i64,
    (lo, hi): (Option<i64>, Option<i64>),
    width: u32,
) -> Vec<(i64, i64)> {
    debug_assert_eq!(p, 0, "regions are of functions of one parameter");
    let (type_lo, type_hi) = if (2..64).contains(&width) {
        (-(1i64 << (width - 1)), (1i64 << (width - 1)) - 1)
    } else {
        (i64::MIN, i64::MAX)
    };
    let lo = lo.map_or(type_lo, |l| l.max(type_lo));
    let hi = hi.map_or(type_hi, |h| h.min(type_hi));
    let mut distances: Vec<i64> = (0..=WITNESS_NEAR).collect();
    distances.extend((2..=18).map(|k| 10i64.pow(k)));
    let mut points: Vec<i64> = distances
        .into_iter()
        .filter_map(|d| t.checked_add(dir.checked_mul(d)?))
        .filter(|x| (lo..=hi).contains(x))
        .collect();
    points.push(if dir == 1 { hi } else { lo });
    points
        .into_iter()
        .filter(|x| (lo..=hi).contains(x) && (dir == 1 && *x >= t || dir == -1 && *x <= t))
        .filter_map(|x| {
            let v = eval.call(f, &[x as i128]).filter(|v| small(*v))?;
            Some((x, v as i64))
        })
        .collect()
}

/// Whether `atom` (over parameter `p` and the result) holds at `p == x`, `r == v`, read as
/// the lifter reads it: `Σ coef·x + constant` in wrapping `i64`, then `>= 0` or `== 0`.
fn atom_holds(atom: &Atom, p: usize, x: i64, v: i64) -> bool {
    let mut sum = atom.constant;
    for (slot, coef) in &atom.terms {
        let value = match slot {
            Slot::Ret => v,
            Slot::Param(q) if *q == p => x,
            // Another parameter or an out-parameter: not this point's to decide.
            Slot::Param(_) | Slot::Out { .. } => return true,
        };
        sum = sum.wrapping_add(coef.wrapping_mul(value));
    }
    if atom.is_eq {
        sum == 0
    } else {
        sum >= 0
    }
}
