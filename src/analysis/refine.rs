//! Predicate discovery for assertions that path focusing leaves unknown: weakest
//! preconditions along abstract error paths, localized to the cut points that need them
//! (Jain et al.), and slots shared between cut points (register sharing).
//!
//! After an analysis, an error site `e` whose invariant is not empty is reached by some
//! abstract path. Starting at `e`, the solver names a focus path `π` from a state of the
//! invariant at a predecessor cut point `c` into the current target set `Q` (at first any
//! state of `e`); the weakest precondition `wp(π, Q)` is computed exactly in a relational
//! domain (copies of `c`'s live values, the path's transformer, projection on the copies).
//! Its atoms (kept atomic: one linear constraint each) that the invariant at `c` neither
//! entails nor refutes become predicates *at `c` only*: the engine then keeps one numeric
//! state per valuation of `c`'s predicates, so the states that can reach the error are
//! separated from those that cannot. When `c` gets nothing new, the search steps back one
//! more path, with `Q := wp(π, Q)`, up to `RefineParams::max_depth` paths from the error
//! site.
//!
//! Predicates are sound to add anywhere: they only split states. Refinement can therefore
//! never cause a wrong proof; it can only fail to help, which ends the loop.
//!
//! Register sharing: a predicate needed at several cut points gets one dedicated slot (a
//! boolean dimension, hence one BDD variable) everywhere; the others share slots, since a
//! slot is reassigned at each cut point and only that cut point's predicates are live there.

use super::lower::Lowering;
use super::transformer;
use super::Deadline;
use crate::domain::{ConsKind, Entailment, Int, LinCons, LinExpr, NumericDomain, Var};
use crate::graph::CutPointId;
use crate::ir::ValueId;
use crate::params::RefineParams;
use crate::smt::{FocusPath, Products, QueryResult, RegionFormula};
use num_integer::Integer;
use num_traits::{Signed, Zero};
use std::collections::BTreeMap;

/// Predicates localized at cut points, in the order of the reduced graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalPredicates {
    at: Vec<Vec<LinCons>>,
    /// Predicates kept at one cut point, at most.
    max_per_cut_point: usize,
}

/// Predicates placed in slots: what the engine consumes.
#[derive(Clone, Debug, Default)]
pub struct SlotAssignment {
    /// Per cut point: (slot, predicate).
    pub per_cut_point: Vec<Vec<(usize, LinCons)>>,
    /// Slots used in all (boolean dimensions, BDD variables), with sharing.
    pub slots: usize,
    /// BDD variables one per distinct predicate would take (no sharing).
    pub unshared: usize,
}

impl LocalPredicates {
    /// No predicate at any of `n` cut points, each of which will keep at most
    /// `max_per_cut_point`.
    pub fn none(n: usize, max_per_cut_point: usize) -> LocalPredicates {
        LocalPredicates {
            at: vec![Vec::new(); n],
            max_per_cut_point,
        }
    }

    /// The predicates at a cut point.
    pub fn at(&self, cp: CutPointId) -> &[LinCons] {
        &self.at[cp.index()]
    }

    /// Predicates at all cut points together (a predicate at two cut points counts twice).
    pub fn count(&self) -> usize {
        self.at.iter().map(Vec::len).sum()
    }

    /// Adds `pred` at `cp`; false when it (or its negation) is already there or the cut
    /// point is full.
    fn add(&mut self, cp: CutPointId, pred: LinCons) -> bool {
        let here = &mut self.at[cp.index()];
        if here.len() >= self.max_per_cut_point || here.contains(&pred) {
            return false;
        }
        here.push(pred);
        true
    }

    /// Adds `pred`, an atom in canonical form ([`canonical_atoms`]), at `cp`, for a source of
    /// predicates other than weakest preconditions (`loop_entry.rs`); false when it is
    /// already there or the cut point is full.
    pub fn insert(&mut self, cp: CutPointId, pred: LinCons) -> bool {
        self.add(cp, pred)
    }

    /// Places the predicates in slots: shared ones first, each in its own slot, then the
    /// local ones of each cut point in the slots after them, reused across cut points.
    pub fn assign_slots(&self) -> SlotAssignment {
        // In order of first appearance, so that slots are deterministic.
        let mut uses: Vec<(&LinCons, usize)> = Vec::new();
        for here in &self.at {
            for p in here {
                match uses.iter_mut().find(|(q, _)| *q == p) {
                    Some((_, n)) => *n += 1,
                    None => uses.push((p, 1)),
                }
            }
        }
        let dedicated: Vec<&LinCons> = uses
            .iter()
            .filter(|(_, n)| *n >= 2)
            .map(|(p, _)| *p)
            .collect();
        let first_local = dedicated.len();
        let mut slots = first_local;
        let per_cut_point = self
            .at
            .iter()
            .map(|here| {
                let mut next = first_local;
                here.iter()
                    .map(|p| {
                        let slot = match dedicated.iter().position(|q| *q == p) {
                            Some(s) => s,
                            None => {
                                next += 1;
                                next - 1
                            }
                        };
                        slots = slots.max(slot + 1);
                        (slot, p.clone())
                    })
                    .collect()
            })
            .collect();
        SlotAssignment {
            per_cut_point,
            slots,
            unshared: uses.len(),
        }
    }
}

/// `e ≥ 0` in its canonical form: coefficients divided by their gcd (the constant rounded
/// down, exact over the integers), oriented so that the first coefficient is positive (a
/// predicate and its negation `-e - 1 ≥ 0` are the same split). Equalities give their two
/// halves; constraints without variables give nothing.
pub fn canonical_atoms(c: &LinCons) -> Vec<LinCons> {
    let halves = match c.kind {
        ConsKind::Ge => vec![c.expr.clone()],
        ConsKind::Eq => vec![c.expr.clone(), c.expr.negated()],
    };
    halves
        .into_iter()
        .filter_map(|e| {
            let g = e.terms().fold(Int::zero(), |g, (_, a)| g.gcd(a));
            if g.is_zero() {
                return None;
            }
            let mut n = LinExpr::constant(e.constant_part().div_floor(&g));
            for (v, a) in e.terms() {
                n.add_term(a / &g, v);
            }
            let first_negative = n.terms().next().is_some_and(|(_, a)| a.is_negative());
            let atom = LinCons {
                expr: n,
                kind: ConsKind::Ge,
            };
            Some(if first_negative { atom.negate() } else { atom })
        })
        .collect()
}

/// What one round of discovery found, walking back from the error sites (predicates here,
/// care sets in `careset.rs`).
#[derive(Debug, Default)]
pub struct Discovery {
    /// What the round added: predicates, or polyhedra of care sets.
    pub added: usize,
    /// Abstract error paths examined.
    pub paths: usize,
}

/// Finds predicates that separate the states reaching the unknown error sites `errors`
/// from the others, given the invariants `at_cut_points` (disjunctions of constraint
/// systems over value dimensions; `None`: unreachable) of the last analysis. `W` is the
/// relational domain the weakest preconditions are computed in (polyhedra).
pub fn discover<W: NumericDomain>(
    lowering: &Lowering<'_>,
    at_cut_points: &[Option<Vec<Vec<LinCons>>>],
    errors: &[CutPointId],
    preds: &mut LocalPredicates,
    deadline: &Deadline,
) -> Discovery {
    let layout = lowering.layout();
    // The states of each source's invariant, built once per cut point.
    let mut states_at: BTreeMap<CutPointId, Vec<W>> = BTreeMap::new();
    walk_back::<W>(
        lowering,
        at_cut_points,
        errors,
        lowering.params().refine.max_depth,
        deadline,
        |step| {
            let states = states_at.entry(step.from).or_insert_with(|| {
                step.invariant
                    .iter()
                    .map(|d| {
                        let mut w = W::top(lowering.space());
                        w.meet_cons(d);
                        w
                    })
                    .collect()
            });
            let live_vars: Vec<Var> = step.live.iter().map(|v| layout.value_var(*v)).collect();
            let mut added = 0;
            for atom in step.pre.to_cons().iter().flat_map(canonical_atoms) {
                let useful = atom.expr.vars().all(|v| live_vars.contains(&v))
                    && splits(states, &atom)
                    && !preds.at(step.from).contains(&atom);
                if useful && preds.add(step.from, atom) {
                    added += 1;
                }
            }
            // A path that gave a predicate is explained; only the others are followed further.
            if added > 0 {
                StepOutcome {
                    goals: Vec::new(),
                    progress: true,
                    added,
                }
            } else {
                StepOutcome {
                    goals: vec![step.pre.to_cons()],
                    progress: false,
                    added,
                }
            }
        },
    )
}

/// One abstract error path met by [`walk_back`]: from the cut point `from` (invariant
/// `invariant`, live values `live`) into the current goal, with `pre` the states at `from`
/// that the path takes into it.
pub(crate) struct ErrorStep<'a, W> {
    pub from: CutPointId,
    pub invariant: &'a [Vec<LinCons>],
    pub live: &'a [ValueId],
    pub pre: W,
}

/// What a consumer of [`walk_back`] makes of one step.
pub(crate) struct StepOutcome {
    /// Conjunctions at `from` to walk back from at the next depth.
    pub goals: Vec<Vec<LinCons>>,
    /// The step found what the consumer looks for: the walk from this error site stops
    /// after the current depth.
    pub progress: bool,
    /// What the consumer added from this step (predicates, polyhedra of care sets).
    pub added: usize,
}

/// The backward walk from the open error sites shared by predicate discovery and the care
/// sets: from each site, up to `max_depth` focus paths back, at each depth up to
/// `RefineParams::paths_per_step` abstract paths into each goal (the first goal: the whole
/// site), each handed to `visit` with its precondition. Returns what the visits added and
/// the number of paths examined.
pub(crate) fn walk_back<W: NumericDomain>(
    lowering: &Lowering<'_>,
    at_cut_points: &[Option<Vec<Vec<LinCons>>>],
    errors: &[CutPointId],
    max_depth: usize,
    deadline: &Deadline,
    mut visit: impl FnMut(ErrorStep<'_, W>) -> StepOutcome,
) -> Discovery {
    let ctx = lowering.context();
    let graph = ctx.graph();
    let params = &ctx.params().refine;
    let mut found = Discovery::default();
    let mut predecessors: Vec<Vec<CutPointId>> = vec![Vec::new(); graph.cut_points.len()];
    for c in graph.ids() {
        for t in graph.successors(c) {
            predecessors[t.index()].push(c);
        }
    }
    let mut formulas: BTreeMap<CutPointId, RegionFormula> = BTreeMap::new();
    for e in errors {
        // (target, the set to reach there as a conjunction; empty: anywhere)
        let mut frontier: Vec<(CutPointId, Vec<LinCons>)> = vec![(*e, Vec::new())];
        for _ in 0..max_depth {
            let mut next = Vec::new();
            let mut progress = false;
            for (t, q) in &frontier {
                for c in &predecessors[t.index()] {
                    let Some(inv) = &at_cut_points[c.index()] else {
                        continue;
                    };
                    if deadline.expired() {
                        return found;
                    }
                    let formula = formulas
                        .entry(*c)
                        .or_insert_with(|| RegionFormula::new(ctx, *c, Products::Free));
                    let live: Vec<ValueId> = ctx
                        .live_at(graph.cut_point(*c).block)
                        .iter()
                        .copied()
                        .collect();
                    for path in paths_into(formula, inv, *t, q, params, deadline) {
                        found.paths += 1;
                        let pre: W = precondition(lowering, &path, q, &live);
                        if pre.is_bottom() {
                            continue;
                        }
                        let outcome = visit(ErrorStep {
                            from: *c,
                            invariant: inv,
                            live: &live,
                            pre,
                        });
                        progress |= outcome.progress;
                        found.added += outcome.added;
                        next.extend(outcome.goals.into_iter().map(|g| (*c, g)));
                    }
                }
            }
            if progress {
                break;
            }
            next.sort_by_key(|(c, _)| *c);
            next.dedup();
            next.truncate(params.paths_per_step * 2);
            frontier = next;
            if frontier.is_empty() {
                break;
            }
        }
    }
    found
}

/// Adds each candidate predicate at its cut point where it splits the invariant there
/// (loop-entry and phase predicates seed refinement's first round this way); returns how
/// many were added.
pub(crate) fn seed_predicates<W: NumericDomain>(
    lowering: &Lowering<'_>,
    at_cut_points: &[Option<Vec<Vec<LinCons>>>],
    candidates: Vec<(CutPointId, LinCons)>,
    preds: &mut LocalPredicates,
) -> usize {
    let mut added = 0;
    for (cp, pred) in candidates {
        let Some(Some(inv)) = at_cut_points.get(cp.index()) else {
            continue;
        };
        let states: Vec<W> = inv
            .iter()
            .map(|d| {
                let mut w = W::top(lowering.space());
                w.meet_cons(d);
                w
            })
            .collect();
        if splits(&states, &pred) && preds.insert(cp, pred) {
            added += 1;
        }
    }
    added
}

/// True when some state of the disjunction satisfies `pred` and some satisfies its
/// negation, as far as the domain can tell: only then does splitting on it separate
/// anything.
pub(crate) fn splits<W: NumericDomain>(states: &[W], pred: &LinCons) -> bool {
    let some = |p: &LinCons| {
        states
            .iter()
            .any(|s| !matches!(s.entails(&p.negate()), Entailment::Holds))
    };
    some(pred) && some(&pred.negate())
}

/// Up to `params.paths_per_step` focus paths from a state of `from` to `target`, ending in
/// the conjunction `q`, each query at most `params.query_time`.
pub(crate) fn paths_into(
    formula: &mut RegionFormula,
    from: &[Vec<LinCons>],
    target: CutPointId,
    q: &[LinCons],
    params: &RefineParams,
    deadline: &Deadline,
) -> Vec<FocusPath> {
    // "Outside every disjunct" of the negated atoms is inside all of `q`.
    let outside_of_not_q: Option<Vec<Vec<LinCons>>> = if q.is_empty() {
        None
    } else {
        Some(
            q.iter()
                .flat_map(|c| match c.kind {
                    ConsKind::Ge => vec![vec![c.negate()]],
                    ConsKind::Eq => {
                        let mut above = c.expr.clone();
                        above.add_constant(-1);
                        vec![
                            vec![LinCons {
                                expr: above,
                                kind: ConsKind::Ge,
                            }],
                            vec![LinCons {
                                expr: c.expr.clone(),
                                kind: ConsKind::Ge,
                            }
                            .negate()],
                        ]
                    }
                })
                .collect(),
        )
    };
    let outside: BTreeMap<CutPointId, Option<Vec<Vec<LinCons>>>> =
        [(target, outside_of_not_q)].into_iter().collect();
    let mut paths: Vec<FocusPath> = Vec::new();
    while paths.len() < params.paths_per_step && !deadline.expired() {
        let budget = deadline.remaining().min(params.query_time);
        match formula.query_disjunctive(from, &outside, &paths, budget) {
            QueryResult::Path(p) => paths.push(p),
            _ => break,
        }
    }
    paths
}

/// `wp(path, q)` over the live values at the path's source: the states from which the path
/// can be taken and end in `q`. Computed as a relation from copies of the source values.
pub fn precondition<W: NumericDomain>(
    lowering: &Lowering<'_>,
    path: &FocusPath,
    q: &[LinCons],
    live_at_source: &[ValueId],
) -> W {
    let mut rel: W = transformer::path_relation(lowering, path, live_at_source);
    rel.meet_cons(q);
    transformer::on_copies(lowering, rel, live_at_source)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ge(terms: &[(i64, u32)], c: i64) -> LinCons {
        let mut e = LinExpr::constant(c);
        for (a, v) in terms {
            e.add_term(*a, Var(*v));
        }
        LinCons {
            expr: e,
            kind: ConsKind::Ge,
        }
    }

    #[test]
    fn canonical_form_identifies_a_predicate_and_its_negation() {
        // 2x - 4y + 3 >= 0  ->  x - 2y + 1 >= 0 (floor(3/2) = 1)
        let a = canonical_atoms(&ge(&[(2, 0), (-4, 1)], 3));
        assert_eq!(a, vec![ge(&[(1, 0), (-2, 1)], 1)]);
        // its integer negation: -x + 2y - 2 >= 0, i.e. x - 2y + 1 < 0
        let b = canonical_atoms(&ge(&[(-1, 0), (2, 1)], -2));
        assert_eq!(a, b);
        // an equality gives both halves, which are one predicate's two orientations or two
        // distinct predicates (x - y >= 0 and x - y <= 0)
        let eq = LinCons {
            expr: ge(&[(1, 0), (-1, 1)], 0).expr,
            kind: ConsKind::Eq,
        };
        let halves = canonical_atoms(&eq);
        assert_eq!(halves.len(), 2);
        assert_ne!(halves[0], halves[1]);
    }

    #[test]
    fn shared_predicates_get_one_slot_and_local_ones_reuse_slots() {
        let p = ge(&[(1, 0)], 0);
        let q = ge(&[(1, 1)], -3);
        let r = ge(&[(1, 2)], 5);
        let mut preds = LocalPredicates::none(3, 6);
        assert!(preds.add(CutPointId(0), p.clone()));
        assert!(!preds.add(CutPointId(0), p.clone()));
        preds.add(CutPointId(1), p.clone());
        preds.add(CutPointId(1), q.clone());
        preds.add(CutPointId(2), r.clone());
        let s = preds.assign_slots();
        assert_eq!(s.unshared, 3);
        // p is dedicated (slot 0 at both), q and r share slot 1
        assert_eq!(s.slots, 2);
        assert_eq!(s.per_cut_point[0], vec![(0, p.clone())]);
        assert_eq!(s.per_cut_point[1], vec![(0, p), (1, q)]);
        assert_eq!(s.per_cut_point[2], vec![(1, r)]);
    }
}
