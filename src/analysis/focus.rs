//! Path focusing (Monniaux & Gonnord, Algorithm 3): the SMT solver picks, one at a time, a
//! loop-free path between cut points that adds new states; only that path's transformer is
//! applied, so no convex hull is taken at the merge points inside the path.
//!
//! For each cut point `p1` taken from the worklist, repeat until the solver says unsat:
//! find a path `π` from a state of `X_p1` to a cut point `p2` with a state outside `X_p2`;
//! `Y = loopiter(τ_π, X_p1)` when `p1 = p2` (a self-loop: local widening and narrowing
//! iterations on that path alone), `Y = τ_π(X_p1)` otherwise; then
//! `X_p2 = X_p2 ∇ (X_p2 ⊔ Y)` if `p2` is a loop head and (`p1 ≠ p2` or `π` was already
//! seen in this round), else `X_p2 = X_p2 ⊔ Y`.
//!
//! The SMT formula over-approximates non-linear operations, so the solver may pick a path
//! whose abstract image adds nothing; that path is then blocked for the rest of the round,
//! which keeps every round finite (a region has finitely many paths).
//!
//! Afterwards one narrowing step over the reduced multigraph (§4.1) and a forward pass
//! through every region give the invariant at each block, so assertions inside loop bodies
//! are checked too.

use super::careset::{CareSets, Extrapolator};
use super::lower::Lowering;
use super::refine::SlotAssignment;
use super::transformer;
use super::{Deadline, Invariants, Outcome};
use crate::budget::SolverWork;
use crate::domain::{Int, LinCons, LinExpr, NumericDomain, Space, Var};
use crate::graph::{CutKind, CutPointId, ReducedGraph};
use crate::ir::{BlockId, Expr, Inst, Operand, ValueId};
use crate::smt::{FocusPath, Products, QueryResult, RegionFormula};
use num_traits::Zero;
use std::collections::{BTreeMap, BTreeSet};

/// Runs path focusing on a function; the result holds the state at each block entry.
pub fn analyze<D: NumericDomain>(
    lowering: &Lowering<'_>,
    deadline: &Deadline,
) -> (Invariants<D>, Outcome) {
    let none = SlotAssignment::default();
    let run = analyze_with_predicates(lowering, &none, BlockLevel::Every, deadline);
    (run.invariants, run.outcome)
}

/// Which blocks get invariants.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum BlockLevel {
    /// Every block (the algorithm's last step: a forward pass through each region).
    Every,
    /// Cut points only; the other blocks get the top state. Verdicts need no more, since
    /// error sites are cut points, and the forward pass can cost as much as the fixpoint.
    CutPoints,
}

/// What a run of path focusing computed.
pub struct FocusRun<D> {
    /// The state at each block entry (all unreachable unless complete).
    pub invariants: Invariants<D>,
    /// Whether the fixpoint was reached.
    pub outcome: Outcome,
    /// The invariant at each cut point as a disjunction of constraint systems over the
    /// values live there, predicate slots replaced by their predicates (`None`:
    /// unreachable); empty unless complete.
    pub at_cut_points: Vec<Option<Vec<Vec<LinCons>>>>,
    /// What the run spent: solver queries and their work in the solver's resource count.
    pub spent: SolverSpent,
}

/// What a run of path focusing asked of the solver.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SolverSpent {
    /// Queries asked.
    pub queries: usize,
    /// Their work, in the solver's resource count (`rlimit`).
    pub work: u64,
    /// Whether the run stopped because its budget of work ([`crate::params::FocusParams::solver_work`])
    /// was spent.
    pub exhausted: bool,
}

/// Path focusing with predicates at cut points: each state arriving at a cut
/// point is split by the truth of that cut point's predicates, each held in its slot (a
/// boolean dimension of `lowering`'s space). With a domain that partitions on booleans,
/// the invariant there keeps one numeric state per valuation of the predicates.
pub fn analyze_with_predicates<D: NumericDomain>(
    lowering: &Lowering<'_>,
    preds: &SlotAssignment,
    blocks: BlockLevel,
    deadline: &Deadline,
) -> FocusRun<D> {
    analyze_with_facts(lowering, preds, &CutFacts::none(), blocks, deadline)
}

/// Invariants known before path focusing starts (from a cheaper analysis: the interval
/// stage of the driver), per cut point of the function's reduced graph: a conjunction of
/// constraints over the values live there, or `None` when the cut point is unreachable.
///
/// They must be sound invariants (a superset of the reachable states at each cut point).
/// Path focusing meets every state it computes at a cut point with them, so a bound the
/// cheaper analysis found (by widening with other thresholds, or on paths path focusing
/// widens differently) is never lost, the solver's queries start from smaller states and
/// no path into an unreachable cut point is explored.
///
/// Soundness: if `R` is the reachable states and `R_q ⊆ I_q`, a post-fixpoint of
/// `X_q ⊇ I_q ⊓ τ(X_p)` still contains `R` (by induction along executions, each reachable
/// state is in `τ(R_p) ⊆ τ(X_p)` and in `I_q`). Every invariant is kept inside the facts
/// (met again after widening), and the facts are inductive (`τ(I_p) ⊆ I_q`), so
/// `τ(X_p) ⊆ I_q` and the invariants are inductive on their own: certification
/// (`analysis/certify.rs`) checks them without the facts.
#[derive(Clone, Debug, Default)]
pub struct CutFacts {
    /// Per cut point; empty when there are no facts.
    at_cut_point: Vec<Option<Vec<LinCons>>>,
    /// Value dimensions the engine does not track at cut points (domain types): forgotten
    /// there before the facts are met, so that only the facts (intervals) bound them.
    untracked: Vec<Var>,
}

impl CutFacts {
    /// No facts: every state is kept as computed.
    pub fn none() -> CutFacts {
        CutFacts::default()
    }

    /// Facts from a complete run's invariants, one disjunction per cut point (`None`:
    /// unreachable). A disjunction of more than one constraint system is not convex: it is
    /// kept only as "reachable" (no constraint), which is always sound.
    pub fn from_disjunctions(at_cut_point: &[Option<Vec<Vec<LinCons>>>]) -> CutFacts {
        CutFacts {
            at_cut_point: at_cut_point
                .iter()
                .map(|inv| match inv {
                    None => None,
                    Some(disjuncts) if disjuncts.len() == 1 => Some(disjuncts[0].clone()),
                    Some(disjuncts) if disjuncts.is_empty() => None,
                    Some(_) => Some(Vec::new()),
                })
                .collect(),
            untracked: Vec::new(),
        }
    }

    /// The same facts, with the engine tracking at cut points only the value dimensions
    /// not in `untracked` (domain types: the values of the relational packs the open
    /// assertions depend on). Forgetting a dimension is always sound; the facts then bound
    /// it. Without facts nothing is left untracked: a forgotten value would be unbounded.
    pub fn untracking(self, untracked: Vec<Var>) -> CutFacts {
        if self.is_empty() {
            return self;
        }
        CutFacts { untracked, ..self }
    }

    /// The value dimensions the engine does not track at cut points.
    pub fn untracked(&self) -> &[Var] {
        &self.untracked
    }

    /// Whether there is any fact.
    pub fn is_empty(&self) -> bool {
        self.at_cut_point.is_empty()
    }

    /// Whether the facts show `cp` unreachable.
    fn unreachable(&self, cp: CutPointId) -> bool {
        matches!(self.at_cut_point.get(cp.index()), Some(None))
    }

    /// `state` met with the facts at `cp`.
    fn restrict<D: NumericDomain>(&self, space: &Space, cp: CutPointId, mut state: D) -> D {
        match self.at_cut_point.get(cp.index()) {
            None => state,
            Some(None) => D::bottom(space),
            Some(Some(cons)) => {
                if !cons.is_empty() {
                    state.meet_cons(cons);
                }
                state
            }
        }
    }
}

/// Path focusing with predicates at cut points and invariants known beforehand
/// ([`CutFacts`]): every state computed at a cut point is met with that cut point's facts.
pub fn analyze_with_facts<D: NumericDomain>(
    lowering: &Lowering<'_>,
    preds: &SlotAssignment,
    facts: &CutFacts,
    blocks: BlockLevel,
    deadline: &Deadline,
) -> FocusRun<D> {
    let none = CareSets::none(lowering.context().graph().cut_points.len());
    analyze_with_care_sets(lowering, preds, facts, &none, blocks, deadline)
}

/// Path focusing whose widening at each cut point is extrapolation with that cut point's
/// care set (`analysis::careset`): an upper bound that keeps out of the care set
/// when it can. With empty care sets this is [`analyze_with_facts`].
pub fn analyze_with_care_sets<D: NumericDomain>(
    lowering: &Lowering<'_>,
    preds: &SlotAssignment,
    facts: &CutFacts,
    care: &CareSets,
    blocks: BlockLevel,
    deadline: &Deadline,
) -> FocusRun<D> {
    let graph = lowering.context().graph();
    let mut engine = Focus::new(lowering, preds, facts.clone());
    engine.extrapolator = Extrapolator::new(
        care.clone(),
        graph.cut_points.len(),
        lowering.params().care_set.max_extrapolations,
    );
    let outcome = engine.ascend(deadline);
    if outcome != Outcome::Complete {
        return FocusRun {
            invariants: Invariants {
                at_block: vec![None; lowering.func().blocks.len()],
            },
            outcome,
            at_cut_points: Vec::new(),
            spent: engine.spent(),
        };
    }
    engine.narrow(deadline);
    let spent = engine.spent();
    FocusRun {
        spent,
        invariants: match blocks {
            BlockLevel::Every => engine.block_invariants(deadline),
            BlockLevel::CutPoints => engine.cut_point_invariants(),
        },
        outcome: Outcome::Complete,
        at_cut_points: graph
            .ids()
            .map(|cp| {
                engine.inv[cp.index()]
                    .as_ref()
                    .filter(|d| !d.is_bottom())
                    .map(|d| engine.disjunction(cp, d))
            })
            .collect(),
    }
}

struct Focus<'a, 'f, D> {
    lowering: &'a Lowering<'f>,
    graph: &'f ReducedGraph,
    /// Invariant per cut point (`None`: no state yet).
    inv: Vec<Option<D>>,
    /// Dimensions forgotten at each cut point (the complement of `live`).
    dead: Vec<Vec<Var>>,
    /// Values live at each cut point (the complement of `dead`).
    live: Vec<Vec<ValueId>>,
    formulas: BTreeMap<CutPointId, RegionFormula>,
    thresholds: Vec<LinCons>,
    queries: usize,
    /// The run's budget of solver work ([`crate::params::FocusParams::solver_work`]) and
    /// what the queries spent of it.
    work: SolverWork,
    /// Per cut point, the predicates it splits on with their slot dimensions.
    preds: Vec<Vec<(Var, LinCons)>>,
    /// Every slot dimension.
    slot_vars: Vec<Var>,
    /// Invariants known beforehand, met into every state computed at a cut point.
    facts: CutFacts,
    /// Extrapolation with care sets in place of widening; plain widening when
    /// the care sets are empty.
    extrapolator: Extrapolator,
}

impl<'a, 'f, D: NumericDomain> Focus<'a, 'f, D> {
    fn new(lowering: &'a Lowering<'f>, preds: &SlotAssignment, facts: CutFacts) -> Self {
        let ctx = lowering.context();
        let graph = ctx.graph();
        let layout = lowering.layout();
        let mut dead = Vec::new();
        let mut live = Vec::new();
        // Untracked values (domain types) are dead to the engine at cut points: forgotten
        // there, bounded by the facts only, and left out of acceleration (which then needs
        // a constant step of the tracked values only).
        let untracked: BTreeSet<Var> = facts.untracked().iter().copied().collect();
        for cp in &graph.cut_points {
            let set = ctx.live_at(cp.block);
            live.push(
                set.iter()
                    .copied()
                    .filter(|v| !untracked.contains(&layout.value_var(*v)))
                    .collect(),
            );
            dead.push(
                layout
                    .value_vars()
                    .into_iter()
                    .filter(|var| {
                        untracked.contains(var)
                            || layout.value(*var).is_some_and(|v| !set.contains(&v))
                    })
                    .collect(),
            );
        }
        let n = graph.cut_points.len();
        let slot_vars: Vec<Var> = layout.slot_vars();
        let preds: Vec<Vec<(Var, LinCons)>> = (0..n)
            .map(|i| match preds.per_cut_point.get(i) {
                Some(here) => here
                    .iter()
                    .filter(|(k, _)| *k < slot_vars.len())
                    .map(|(k, p)| (slot_vars[*k], p.clone()))
                    .collect(),
                None => Vec::new(),
            })
            .collect();
        Focus {
            preds,
            slot_vars,
            lowering,
            graph,
            live,
            inv: vec![None; n],
            dead,
            formulas: BTreeMap::new(),
            thresholds: thresholds(lowering),
            queries: 0,
            work: SolverWork::new(
                lowering.focus_params().solver_work,
                lowering.focus_params().query_work,
            ),
            facts,
            extrapolator: Extrapolator::new(
                CareSets::none(n),
                n,
                lowering.params().care_set.max_extrapolations,
            ),
        }
    }

    /// The ascending phase: Algorithm 3.
    fn ascend(&mut self, deadline: &Deadline) -> Outcome {
        let entry = self
            .graph
            .cut_of_block(self.lowering.func().entry)
            .expect("the entry is a cut point");
        let mut init: D = self.lowering.entry_state();
        init.forget(&self.dead[entry.index()]);
        let init = self.facts.restrict(self.lowering.space(), entry, init);
        self.inv[entry.index()] = Some(self.split(entry, init));
        let mut worklist: BTreeSet<CutPointId> = BTreeSet::new();
        worklist.insert(entry);
        while let Some(p1) = worklist.pop_first() {
            let mut seen_self_loops: BTreeSet<FocusPath> = BTreeSet::new();
            let mut blocked: Vec<FocusPath> = Vec::new();
            loop {
                if deadline.expired() {
                    return Outcome::Timeout;
                }
                if self.queries >= self.lowering.focus_params().max_queries {
                    return Outcome::Budget;
                }
                self.queries += 1;
                let Some(x1) = self.inv[p1.index()].clone() else {
                    break;
                };
                let t0 = std::time::Instant::now();
                let answer = self.query(p1, &x1, &blocked, false, deadline);
                if self.lowering.params().trace.focus {
                    eprintln!(
                        "focus q{} p{} blocked {} query {:?} -> {}",
                        self.queries,
                        p1.index(),
                        blocked.len(),
                        t0.elapsed(),
                        match &answer {
                            QueryResult::Unsat => "unsat".to_string(),
                            QueryResult::Unknown(u) => format!("unknown {u:?}"),
                            QueryResult::Path(p) => format!("path to p{}", p.target.index()),
                        }
                    );
                }
                let path = match answer {
                    QueryResult::Unsat => break,
                    QueryResult::Unknown(_) => return Outcome::Budget,
                    QueryResult::Path(path) => path,
                };
                let p2 = path.target;
                let is_self_loop = p1 == p2;
                let y = if is_self_loop {
                    let start = self.accelerate(&path, &x1).unwrap_or_else(|| x1.clone());
                    match self.loopiter(&path, &start, deadline) {
                        Some(y) => y,
                        None => return Outcome::Timeout,
                    }
                } else {
                    self.post(&path, x1.clone())
                };
                if self.lowering.params().trace.focus {
                    eprintln!(
                        "  image {:?} ({} disjuncts)",
                        t0.elapsed(),
                        y.to_disjunction().len()
                    );
                }
                let old = self.inv[p2.index()].clone();
                let grows = match &old {
                    None => !y.is_bottom(),
                    Some(o) => !y.is_leq(o),
                };
                if !grows {
                    // The solver's over-approximation found a path the domain shows adds
                    // nothing: exclude it for this round.
                    blocked.push(path);
                    continue;
                }
                let widen_here = self.graph.cut_point(p2).kind == CutKind::LoopHead
                    && (!is_self_loop || seen_self_loops.contains(&path));
                let new = match old {
                    None => y,
                    Some(o) => {
                        let joined = o.clone().join(&y);
                        if widen_here {
                            self.widen(p2, o, &joined)
                        } else {
                            joined
                        }
                    }
                };
                if is_self_loop {
                    seen_self_loops.insert(path);
                }
                // Widening may leave the facts: met again, every invariant stays inside
                // them, so the invariants alone are inductive (certification checks them
                // without the facts). A widening sequence met with fixed constraints may
                // not stabilize in theory; the query limit and the deadline still end it.
                let new = self.facts.restrict(self.lowering.space(), p2, new);
                self.inv[p2.index()] = Some(new);
                worklist.insert(p2);
            }
        }
        Outcome::Complete
    }

    /// Widening with thresholds of `old` by `joined` (`old ⊑ joined`) at `cp`, as
    /// extrapolation with `cp`'s care set when it has one.
    fn widen(&self, cp: CutPointId, old: D, joined: &D) -> D {
        if !self.extrapolator.has_care_set(cp) {
            return old.widen_with_thresholds(joined, &self.thresholds);
        }
        let widened = old.clone().widen_with_thresholds(joined, &self.thresholds);
        self.extrapolator
            .extrapolate(self.lowering.space(), cp, &old, joined, widened)
    }

    fn spent(&self) -> SolverSpent {
        SolverSpent {
            queries: self.queries,
            work: self.work.spent(),
            exhausted: self.work.exhausted(),
        }
    }

    /// Asks the solver for a path from `x1` at `p1` leaving the current invariants (or,
    /// with `into_invariants`, any path whose end lands inside them: used by narrowing).
    /// Each query spends the run's budget of solver work
    /// ([`crate::params::FocusParams::solver_work`]); once it is spent, every query answers
    /// unknown without asking, so the run stops as if the solver had given up.
    fn query(
        &mut self,
        p1: CutPointId,
        x1: &D,
        blocked: &[FocusPath],
        into_invariants: bool,
        deadline: &Deadline,
    ) -> QueryResult {
        let budget = deadline
            .remaining()
            .min(self.lowering.focus_params().max_query_time);
        let lowering = self.lowering;
        let graph = self.graph;
        // Disjunctive domains (predicates) give their states exactly as a union of
        // constraint systems: "outside" an invariant must mean outside every disjunct.
        let from = self.disjunction(p1, x1);
        let mut outside = BTreeMap::new();
        for cp in graph.successors(p1) {
            // A path into a cut point the facts show unreachable adds nothing (its image is
            // met with them): asking for one only makes the query harder.
            if self.facts.unreachable(*cp) {
                continue;
            }
            let target = if into_invariants {
                // Narrowing enumerates every feasible path: "outside" the empty set.
                None
            } else {
                self.inv[cp.index()]
                    .as_ref()
                    .map(|d| self.disjunction(*cp, d))
            };
            outside.insert(*cp, target);
        }
        let Some(limit) = self.work.next_query() else {
            return QueryResult::Unknown(crate::smt::Unknown::Solver(
                "the budget of solver work is spent".into(),
            ));
        };
        let formula = self
            .formulas
            .entry(p1)
            .or_insert_with(|| RegionFormula::new(lowering.context(), p1, Products::Free));
        if limit != 0 {
            formula.set_work_limit(limit);
        }
        let before = formula.work_count();
        let t0 = std::time::Instant::now();
        let answer = formula.query_disjunctive(&from, &outside, blocked, budget);
        let spent = formula.work_count().saturating_sub(before);
        if self.lowering.params().trace.focus {
            eprintln!("  solver {:?}, {spent} work", t0.elapsed());
        }
        self.work.charge(spent);
        answer
    }

    /// The image of a state along a focus path, restricted to the target's live values, met
    /// with the target's facts and split by the target's predicates.
    fn post(&self, path: &FocusPath, mut state: D) -> D {
        transformer::apply_path(self.lowering, path, &mut state);
        state.forget(&self.dead[path.target.index()]);
        let state = self
            .facts
            .restrict(self.lowering.space(), path.target, state);
        self.split(path.target, state)
    }

    /// Sets each predicate slot to the truth of `cp`'s predicate in it (splitting the state
    /// into the part where it holds and the part where it does not) and the other slots
    /// to 0, so that a partitioning domain keeps one state per valuation of `cp`'s
    /// predicates.
    fn split(&self, cp: CutPointId, mut state: D) -> D {
        if self.slot_vars.is_empty() || state.is_bottom() {
            return state;
        }
        let zero = LinExpr::constant(0);
        for (slot, pred) in &self.preds[cp.index()] {
            let mut holds = state.clone();
            holds.meet_cons(std::slice::from_ref(pred));
            holds.assign(*slot, &LinExpr::constant(1));
            state.meet_cons(&[pred.negate()]);
            state.assign(*slot, &zero);
            state = holds.join(&state);
        }
        for slot in &self.slot_vars {
            if !self.preds[cp.index()].iter().any(|(s, _)| s == slot) {
                state.assign(*slot, &zero);
            }
        }
        state
    }

    /// A state at `cp` as a disjunction of constraint systems over values, for the solver:
    /// a slot fixed to 1 (0) in a disjunct stands for its predicate (its negation); other
    /// constraints on slots are dropped. Exact for partitioning domains, where each part
    /// lies in one valuation of the slots (widening may lose the predicate from the numeric
    /// part; the slot keeps it).
    fn disjunction(&self, cp: CutPointId, state: &D) -> Vec<Vec<LinCons>> {
        let disjuncts = state.to_disjunction();
        if self.slot_vars.is_empty() {
            return disjuncts;
        }
        let here = &self.preds[cp.index()];
        disjuncts
            .into_iter()
            .map(|d| {
                d.into_iter()
                    .filter_map(|c| {
                        let on_slot = c.expr.vars().any(|v| self.slot_vars.contains(&v));
                        if !on_slot {
                            return Some(c);
                        }
                        let (slot, pred) =
                            here.iter().find(|(s, _)| c.expr.vars().all(|v| v == *s))?;
                        if c.kind != crate::domain::ConsKind::Eq {
                            return None;
                        }
                        // `a·slot + k = 0`: slot = -k/a.
                        let a = c.expr.coeff(*slot);
                        let value = -c.expr.constant_part() / &a;
                        Some(if value.is_zero() {
                            pred.negate()
                        } else {
                            pred.clone()
                        })
                    })
                    .collect()
            })
            .collect()
    }

    /// Abstract acceleration (Gonnord & Halbwachs) of a self-loop whose transformer moves
    /// every live value by a constant (`x' = x + d`, `d = 0` for loop invariants) or sets
    /// it to a constant (`x' = c`, a reset), under a convex guard `G` on the start state.
    ///
    /// The transformer is computed once from an arbitrary start, as a relation between
    /// copies `x₀` and the values: a translation shows as `x - x₀` being a single point.
    /// Then `τ*(X) ⊆ X ∪ τ(S) ∪ τ(((S ⊓ G) ↗ d) ⊓ G)` with `S = X`, or `S = τ(X)` when
    /// there are resets (after one iteration they are fixed), where `P ↗ d` adds the ray
    /// `d` (computed with the `elapsed` dimension `t ≥ 0` and `x := x + t·d`). `None` when
    /// the path is not of that form.
    fn accelerate(&self, path: &FocusPath, x: &D) -> Option<D> {
        let lw = self.lowering;
        let layout = lw.layout();
        let live = &self.live[path.source.index()];
        let rel: D = transformer::path_relation(lw, path, live);
        if rel.is_bottom() {
            return None;
        }
        let mut deltas: Vec<(Var, Int)> = Vec::new();
        let mut has_reset = false;
        for v in live {
            let x_now = LinExpr::var(layout.value_var(*v));
            let moved = x_now.minus(&LinExpr::var(layout.pre_var(*v)));
            match rel.bound(&moved).as_point() {
                Some(d) if d.is_integer() => deltas.push((layout.value_var(*v), d.to_integer())),
                Some(_) => return None,
                None if rel.bound(&x_now).as_point().is_some() => has_reset = true,
                None => return None,
            }
        }
        if deltas.iter().all(|(_, d)| d.is_zero()) {
            return None;
        }
        // The guard: the relation's projection on the copies, renamed to the values.
        let guard = transformer::on_copies(lw, rel, live);
        let start = if has_reset {
            self.post(path, x.clone())
        } else {
            x.clone()
        };
        // Sweep only from the parts of a disjunctive start the path can leave: the
        // relation joins the path's selects, so its guard may admit a part (an earlier
        // phase) where the path's exact image is empty, and sweeping from there would
        // lose the phase's relation (`j <= i - k` from where the phase began).
        let from = match start.split_parts() {
            Some(parts) => {
                let mut from: Option<D> = None;
                for part in parts {
                    if self.post(path, part.clone()).is_bottom() {
                        continue;
                    }
                    from = Some(match from {
                        None => part,
                        Some(acc) => acc.join(&part),
                    });
                }
                from?
            }
            None => start.clone(),
        };
        let t = layout.elapsed_var();
        let moves: Vec<(Var, LinExpr)> = deltas
            .iter()
            .filter(|(_, d)| !d.is_zero())
            .map(|(v, d)| (*v, LinExpr::var(*v).plus(&LinExpr::term(d.clone(), t))))
            .collect();
        // One sweep per side of the path's disequalities (`diseq.rs`), each
        // under a convex guard that stops it where the disequality would fail.
        let mut sides = Vec::new();
        if lw.precision().disequality_splitting {
            sides = super::diseq::sides::<D>(lw, path, live, &deltas);
        }
        if sides.is_empty() {
            sides.push(Vec::new());
        }
        let mut res = x.clone();
        for side in &sides {
            let mut guard = guard.clone();
            guard.meet_cons(side);
            let mut swept = from.clone().meet(&guard);
            swept.assign_interval(
                t,
                &crate::domain::Interval {
                    lo: Some(num_rational::BigRational::zero()),
                    hi: None,
                },
            );
            swept.assign_parallel(&moves);
            swept.forget(&[t]);
            let swept = swept.meet(&guard);
            res = res.join(&self.post(path, swept));
        }
        if has_reset {
            res = res.join(&start);
        }
        res.forget(&layout.scratch_vars());
        Some(res)
    }

    /// `loopiter`: a post-fixpoint of `Z ↦ X ⊔ τ(Z)` above `X`, by local widening with
    /// thresholds, then narrowing that keeps it a post-fixpoint.
    /// `None` when the deadline passes first.
    fn loopiter(&self, path: &FocusPath, x: &D, deadline: &Deadline) -> Option<D> {
        let mut z = x.clone();
        for i in 0.. {
            if deadline.expired() {
                return None;
            }
            let next = z.clone().join(&self.post(path, z.clone()));
            if next.is_leq(&z) {
                break;
            }
            z = if i >= self.lowering.focus_params().loopiter_delay {
                self.widen(path.target, z, &next)
            } else {
                next
            };
        }
        for _ in 0..self.lowering.focus_params().narrowing_steps {
            if deadline.expired() {
                break;
            }
            let next = x.clone().join(&self.post(path, z.clone()));
            if next.is_leq(&z) && !z.is_leq(&next) {
                z = next;
            } else {
                break;
            }
        }
        Some(z)
    }

    /// One descending step on the reduced multigraph (§4.1): each cut point's invariant is
    /// recomputed as the join of the images of every feasible path into it; the result
    /// replaces the old invariant when it is smaller and still inductive.
    fn narrow(&mut self, deadline: &Deadline) {
        for _ in 0..self.lowering.focus_params().narrowing_steps {
            let n = self.inv.len();
            let mut acc: Vec<Option<D>> = vec![None; n];
            let entry = self
                .graph
                .cut_of_block(self.lowering.func().entry)
                .expect("entry is a cut point");
            let mut init: D = self.lowering.entry_state();
            init.forget(&self.dead[entry.index()]);
            let init = self.facts.restrict(self.lowering.space(), entry, init);
            acc[entry.index()] = Some(self.split(entry, init));
            for p1 in self.graph.ids().collect::<Vec<_>>() {
                let Some(x1) = self.inv[p1.index()].clone() else {
                    continue;
                };
                let mut seen: Vec<FocusPath> = Vec::new();
                loop {
                    if deadline.expired()
                        || self.queries >= self.lowering.focus_params().max_queries
                    {
                        return;
                    }
                    self.queries += 1;
                    // The step is the join of the images of *every* feasible path: an
                    // `unknown` leaves it incomplete (below the true image, so not
                    // inductive), and the step is abandoned, never kept.
                    let path = match self.query(p1, &x1, &seen, true, deadline) {
                        QueryResult::Path(p) => p,
                        QueryResult::Unsat => break,
                        QueryResult::Unknown(_) => return,
                    };
                    let y = self.post(&path, x1.clone());
                    let slot = &mut acc[path.target.index()];
                    *slot = Some(match slot.take() {
                        None => y,
                        Some(a) => a.join(&y),
                    });
                    seen.push(path);
                }
            }
            // Keep the new invariants only if every one is below the old (then, the old
            // being inductive, the new are too: ψ(new) ⊆ ψ(old) ⊆ new).
            let mut improved = false;
            let mut all_below = true;
            for (a, old) in acc.iter().zip(&self.inv) {
                match (a, old) {
                    (Some(a), Some(o)) => {
                        if !a.is_leq(o) {
                            all_below = false;
                        } else if !o.is_leq(a) {
                            improved = true;
                        }
                    }
                    (None, Some(_)) => improved = true,
                    (Some(a), None) => all_below &= a.is_bottom(),
                    (None, None) => {}
                }
            }
            if !all_below || !improved {
                return;
            }
            self.inv = acc;
        }
    }

    /// The invariants of cut points at their blocks, top elsewhere.
    fn cut_point_invariants(&self) -> Invariants<D> {
        let func = self.lowering.func();
        let top = D::top(self.lowering.space());
        let mut at_block: Vec<Option<D>> = vec![Some(top); func.blocks.len()];
        for id in self.graph.ids() {
            at_block[self.graph.cut_point(id).block.index()] = self.inv[id.index()].clone();
        }
        Invariants { at_block }
    }

    /// The state at every block: cut points keep their invariants; other blocks get the join
    /// of what flows into them from the cut points of the regions they belong to. Verdicts
    /// rest on cut points only (error sites are cut points), so when the deadline passes
    /// the remaining blocks get the top state instead: sound, and never later than due.
    fn block_invariants(&self, deadline: &Deadline) -> Invariants<D> {
        let func = self.lowering.func();
        let mut at_block: Vec<Option<D>> = vec![None; func.blocks.len()];
        for id in self.graph.ids() {
            at_block[self.graph.cut_point(id).block.index()] = self.inv[id.index()].clone();
        }
        for id in self.graph.ids() {
            if deadline.expired() {
                break;
            }
            let Some(start) = self.inv[id.index()].clone() else {
                continue;
            };
            let mut local: BTreeMap<BlockId, D> = BTreeMap::new();
            local.insert(self.graph.cut_point(id).block, start);
            for b in self.graph.region(id) {
                if deadline.expired() {
                    break;
                }
                let Some(state) = local.remove(b) else {
                    continue;
                };
                if self.graph.cut_of_block(*b).is_none() {
                    let slot = &mut at_block[b.index()];
                    *slot = Some(match slot.take() {
                        None => state.clone(),
                        Some(s) => s.join(&state),
                    });
                }
                for (succ, out) in super::classic::successors_out(self.lowering, *b, state) {
                    if self.graph.cut_of_block(succ).is_some() {
                        continue;
                    }
                    let merged = match local.remove(&succ) {
                        None => out,
                        Some(s) => s.join(&out),
                    };
                    local.insert(succ, merged);
                }
            }
        }
        if deadline.expired() {
            let top = D::top(self.lowering.space());
            for (b, slot) in at_block.iter_mut().enumerate() {
                if self.graph.cut_of_block(BlockId(b as u32)).is_none() {
                    *slot = Some(top.clone());
                }
            }
        }
        Invariants { at_block }
    }
}

/// Widening thresholds: `x ≤ c` and `x ≥ c` for each live integer value `x` and each
/// constant `c` (and `c ± 1`) compared against in the function.
fn thresholds(lowering: &Lowering<'_>) -> Vec<LinCons> {
    let func = lowering.func();
    let mut constants: BTreeSet<Int> = BTreeSet::new();
    for b in &func.blocks {
        for inst in &b.insts {
            if let Inst::Assign {
                expr: Expr::Cmp { lhs, rhs, .. },
                ..
            } = inst
            {
                for op in [lhs, rhs] {
                    if let Operand::Const(c) = op {
                        let v = Int::from(c.signed());
                        constants.insert(&v - 1);
                        constants.insert(&v + 1);
                        constants.insert(v);
                    }
                }
            }
        }
    }
    constants.insert(Int::from(0));
    let constants: Vec<Int> = constants
        .into_iter()
        .take(lowering.focus_params().max_threshold_constants)
        .collect();
    let vars: BTreeSet<ValueId> = lowering
        .context()
        .live_anywhere()
        .into_iter()
        .filter(|v| !func.value(*v).ty.is_bool())
        .collect();
    let mut res = Vec::new();
    for v in vars {
        let x = LinExpr::var(lowering.layout().value_var(v));
        for c in &constants {
            res.push(LinCons::le(&x, &LinExpr::constant(c.clone())));
            res.push(LinCons::ge(&x, &LinExpr::constant(c.clone())));
        }
    }
    res
}
