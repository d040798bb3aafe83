//! An independent check of computed invariants: initiation and consecution, decided by the
//! SMT solver on the exact formula of each region (products encoded exactly).
//!
//! For each cut point `p` with invariant `X_p` and each cut point `q` its region reaches,
//! the solver is asked for a path from a state of `X_p` to `q` ending outside `X_q` (an
//! unreached cut point has the empty invariant, so any arrival refutes it). "Unsat" for
//! every `p` means the invariants are inductive, hence every cut point marked unreachable,
//! error sites included, really is. A solver "unknown" is reported as such, not as a
//! failure. Initiation holds by construction: the entry's invariant is checked to contain
//! every entry state (the entry's constraints may mention only live parameters).
//!
//! The queries share the formula with the engine, so a misreading in it (a value read one
//! way at a source and another at a target) could make an invariant look inductive; each
//! region is also asked for a path that leaves a value outside its reading's range at a
//! target ([`Refutation::Misread`]), which such a misreading produces.

use super::FunctionContext;
use crate::domain::LinCons;
use crate::graph::CutPointId;
use crate::smt::{FocusPath, Products, QueryResult, RegionFormula, SideFact, Unknown};
use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

/// The invariants of one function at its cut points (`None`: unreachable), as disjunctions
/// of constraint systems over value dimensions (one disjunct for convex domains).
#[derive(Clone, Debug)]
pub struct CutInvariants {
    /// The function's name.
    pub function: String,
    /// Per cut point, in the order of the reduced graph.
    pub at_cut_point: Vec<Option<Vec<Vec<LinCons>>>>,
}

/// What the check found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Certificate {
    /// Every query was unsat: the invariants are inductive.
    Inductive,
    /// Some query was unknown to the solver; no counter-evidence either.
    Undecided {
        /// The last cut point whose query was unknown.
        at: CutPointId,
        /// Why.
        why: Unknown,
    },
    /// A path leaves the invariants: they are not inductive (a bug of the analysis).
    NotInductive(Refutation),
}

/// Why invariants are not inductive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refutation {
    /// There is not one invariant per cut point.
    Mismatch,
    /// A path from a state of its source's invariant ends outside its target's.
    Leaves {
        /// The function.
        function: String,
        /// The path.
        path: FocusPath,
    },
    /// A path from a state of its source's invariant leaves a value at its target whose
    /// term lies outside the range of the value's reading: the formula reads the value
    /// differently there than at a source, and every certificate over it is void.
    Misread {
        /// The function.
        function: String,
        /// The path.
        path: FocusPath,
    },
}

impl fmt::Display for Refutation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refutation::Mismatch => f.write_str("invariants do not match the cut points"),
            Refutation::Leaves { function, path } => write!(
                f,
                "{function}: a path from {} to {} leaves the invariant: {:?}",
                path.source, path.target, path.edges
            ),
            Refutation::Misread { function, path } => write!(
                f,
                "{function}: a path from {} to {} leaves a value read outside its range \
                 (the formula misreads it): {:?}",
                path.source, path.target, path.edges
            ),
        }
    }
}

/// Checks consecution of the invariants of the context's function.
pub fn certify(ctx: &FunctionContext<'_>, invariants: &CutInvariants) -> Certificate {
    let func = ctx.func();
    let graph = ctx.graph();
    if graph.cut_points.len() != invariants.at_cut_point.len() {
        return Certificate::NotInductive(Refutation::Mismatch);
    }
    // Past this time a query's answer is "undecided".
    let query_timeout = ctx.params().certify.query_timeout;
    let mut undecided = None;
    for p in graph.ids() {
        let Some(from) = &invariants.at_cut_point[p.index()] else {
            continue;
        };
        let mut formula = RegionFormula::new(ctx, p, Products::Exact);
        let outside: BTreeMap<CutPointId, Option<Vec<Vec<LinCons>>>> = graph
            .successors(p)
            .iter()
            .map(|q| (*q, invariants.at_cut_point[q.index()].clone()))
            .collect();
        match formula.query_disjunctive(from, &outside, &[], query_timeout) {
            QueryResult::Unsat => {}
            QueryResult::Unknown(why) => undecided = Some((p, why)),
            QueryResult::Path(path) => {
                return Certificate::NotInductive(Refutation::Leaves {
                    function: func.name.clone(),
                    path,
                })
            }
        }
        // The query above reads the targets through the same formula as the engine; the
        // readings' ranges, from the types alone, check that formula independently.
        match formula.query_misread(from, query_timeout) {
            QueryResult::Unsat => {}
            QueryResult::Unknown(why) => undecided = Some((p, why)),
            QueryResult::Path(path) => {
                return Certificate::NotInductive(Refutation::Misread {
                    function: func.name.clone(),
                    path,
                })
            }
        }
    }
    match undecided {
        Some((at, why)) => Certificate::Undecided { at, why },
        None => Certificate::Inductive,
    }
}

/// Consecution of side facts found next to the linear `invariants` (relational congruences,
/// template bounds): from a state of `X_p` meeting `known(p)` and `found(p)`, no path of
/// `p`'s region reaches a cut point `q` (not an error site) outside `found(q)`. `at_len` is
/// how many cut points the found facts cover (a mismatch with the graph is a refutation).
/// Initiation holds when the entry's facts are empty, as both finders leave them.
pub fn certify_side_facts(
    ctx: &FunctionContext<'_>,
    invariants: &CutInvariants,
    at_len: usize,
    known: &dyn Fn(CutPointId) -> Vec<SideFact>,
    found: &dyn Fn(CutPointId) -> Vec<SideFact>,
    timeout: Duration,
) -> Certificate {
    let graph = ctx.graph();
    if at_len != graph.cut_points.len() {
        return Certificate::NotInductive(Refutation::Mismatch);
    }
    let source = |p| {
        let mut facts = known(p);
        facts.extend(found(p));
        facts
    };
    let target = |q: CutPointId| match graph.cut_point(q).kind {
        crate::graph::CutKind::ErrorSite(_) => vec![],
        _ => found(q),
    };
    consecution(ctx, invariants, &source, &target, timeout)
}

/// Consecution of facts next to the linear `invariants`: from a state of `X_p` meeting
/// `source(p)`, no path of `p`'s region reaches a cut point `q` outside `target(q)` (an
/// empty `target(q)` is not checked), on the exact formula.
pub(crate) fn consecution(
    ctx: &FunctionContext<'_>,
    invariants: &CutInvariants,
    source: &dyn Fn(CutPointId) -> Vec<SideFact>,
    target: &dyn Fn(CutPointId) -> Vec<SideFact>,
    timeout: Duration,
) -> Certificate {
    let graph = ctx.graph();
    if graph.cut_points.len() != invariants.at_cut_point.len() {
        return Certificate::NotInductive(Refutation::Mismatch);
    }
    let mut undecided = None;
    for p in graph.ids() {
        let Some(from) = &invariants.at_cut_point[p.index()] else {
            continue;
        };
        let kept: BTreeMap<CutPointId, Vec<SideFact>> = graph
            .successors(p)
            .iter()
            .map(|q| (*q, target(*q)))
            .filter(|(_, facts)| !facts.is_empty())
            .collect();
        if kept.is_empty() {
            continue;
        }
        let mut formula = RegionFormula::new(ctx, p, Products::Exact);
        match formula.query_facts_kept(from, &source(p), &kept, timeout) {
            QueryResult::Unsat => {}
            QueryResult::Unknown(why) => undecided = Some((p, why)),
            QueryResult::Path(path) => {
                return Certificate::NotInductive(Refutation::Leaves {
                    function: ctx.func().name.clone(),
                    path,
                })
            }
        }
    }
    match undecided {
        Some((at, why)) => Certificate::Undecided { at, why },
        None => Certificate::Inductive,
    }
}
