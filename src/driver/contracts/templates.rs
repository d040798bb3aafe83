//! The linear templates of the first search: for each recursive function, context atoms
//! `p >= c` and `p <= c` for constants `c` near those of the code (and the ranges of `int`
//! for functions over 64-bit integers), and summary atoms bounding the result `r`, `r - p`
//! and `2r - p`, and equating `r` with sums and differences of two parameters.

use std::collections::BTreeSet;

use crate::frontend::contract::{Atom, Clause, Contract, Contracts, Slot};
use crate::frontend::Recursion;

/// Constants read from the program for the templates, at most this many (a guard on the
/// number of candidates, each an obligation of every round).
const MAX_CONSTANTS: usize = 16;

/// The ranges of `int` and of the sum or difference of two `int`s: where the values of a
/// function over 64-bit integers stay when its callers pass it `int`s (`addition(m, n)`
/// moving one from `n` to `m` keeps `m + n` in the second range). Without a bound, an atom
/// over such a value (`r - m - n == 0` in wrapping `i64`) wraps in the analysis and says
/// nothing.
const NARROW_RANGES: [(i64, i64); 2] = [
    (i32::MIN as i64, i32::MAX as i64),
    (2 * i32::MIN as i64, 2 * i32::MAX as i64),
];

/// Context candidates over [`NARROW_RANGES`]: each parameter and each sum and difference
/// of two within them.
fn narrow_range_atoms(params: &[usize]) -> Vec<Atom> {
    let mut res = Vec::new();
    let mut shapes: Vec<Vec<(Slot, i64)>> =
        params.iter().map(|p| vec![(Slot::Param(*p), 1)]).collect();
    for (i, &p) in params.iter().enumerate() {
        for &q in &params[i + 1..] {
            shapes.push(vec![(Slot::Param(p), 1), (Slot::Param(q), 1)]);
            shapes.push(vec![(Slot::Param(p), 1), (Slot::Param(q), -1)]);
        }
    }
    for terms in shapes {
        for (lo, hi) in NARROW_RANGES {
            // terms >= lo and terms <= hi.
            res.push(Atom::ge(terms.clone(), -lo));
            let neg = terms.iter().map(|(s, c)| (*s, -c)).collect();
            res.push(Atom::ge(neg, hi));
        }
    }
    res
}

/// The candidates of the first search: every template atom (see the module docs).
pub(super) fn candidates(recursion: &Recursion) -> Contracts {
    let consts = &recursion.constants;
    let mut near: BTreeSet<i64> = [-1, 0, 1].into_iter().collect();
    for c in consts {
        for d in [-1, 0, 1] {
            near.insert(c + d);
        }
    }
    // The constants nearest to zero.
    let mut near: Vec<i64> = near.into_iter().collect();
    near.sort_by_key(|c| (c.abs(), *c));
    near.truncate(MAX_CONSTANTS);
    near.sort();
    let offsets: Vec<i64> = {
        let mut o: BTreeSet<i64> = [-1, 0, 1].into_iter().collect();
        for c in consts {
            if c.abs() <= 64 {
                o.insert(*c);
                o.insert(-c);
            }
        }
        o.into_iter().collect()
    };
    let mut res = Contracts::new();
    for f in &recursion.recursive {
        let params: Vec<usize> = f.int_params.iter().map(|(p, _)| *p).collect();
        // A 64-bit integer parameter or result, where [`NARROW_RANGES`] help.
        let wide = f.returns_wide || f.int_params.iter().any(|(_, w)| *w == 64);
        let mut contract = Contract::default();
        if f.has_context {
            for &p in &params {
                for &c in &near {
                    // p >= c and p <= c.
                    contract
                        .context
                        .push(Atom::ge(vec![(Slot::Param(p), 1)], -c));
                    contract
                        .context
                        .push(Atom::ge(vec![(Slot::Param(p), -1)], c));
                }
            }
            if wide {
                contract.context.extend(narrow_range_atoms(&params));
            }
        }
        if f.returns_int {
            let r = Slot::Ret;
            let mut atoms = Vec::new();
            // Bounds first: an atom over a wide value that no earlier assumption bounds
            // wraps in the analysis, and the later ones are read after these.
            if wide {
                for (lo, hi) in NARROW_RANGES {
                    atoms.push(Atom::ge(vec![(r, 1)], -lo));
                    atoms.push(Atom::ge(vec![(r, -1)], hi));
                }
            }
            for &c in &near {
                atoms.push(Atom::ge(vec![(r, 1)], -c));
                atoms.push(Atom::ge(vec![(r, -1)], c));
            }
            for &p in &params {
                let p = Slot::Param(p);
                for &d in &offsets {
                    // r - p >= d and r - p <= d.
                    atoms.push(Atom::ge(vec![(r, 1), (p, -1)], -d));
                    atoms.push(Atom::ge(vec![(r, -1), (p, 1)], d));
                }
                atoms.push(Atom::ge(vec![(r, 2), (p, -1)], 0));
            }
            for (i, &p) in params.iter().enumerate() {
                for &q in &params[i + 1..] {
                    let (p, q) = (Slot::Param(p), Slot::Param(q));
                    for (sp, sq) in [(1, 1), (1, -1), (-1, 1)] {
                        atoms.push(Atom {
                            terms: vec![(r, 1), (p, -sp), (q, -sq)],
                            constant: 0,
                            is_eq: true,
                        });
                    }
                }
            }
            contract.summary = atoms
                .into_iter()
                .map(|atom| Clause {
                    guard: vec![],
                    atom,
                })
                .collect();
        }
        if !contract.is_empty() {
            res.insert(f.name.clone(), contract);
        }
    }
    res
}
