//! Error sites shown unreachable from the polynomial equalities.
//!
//! From a cut point `S` whose region reaches the error site, every path to it must be
//! *refuted*: it takes a branch `a != b` whose `a - b` is in the truncated ideal of what
//! holds on the path (the equalities at `S`, the path's own equalities, and per disjunct
//! of `S`'s linear invariant that the path's linear facts leave non-empty, the linear
//! equalities they imply), or its guards contradict each other.
//!
//! **Through a loop head** (the peeled proof): where the paths from a loop head `H` are
//! not refuted with `H`'s invariant alone (the convex hull loses `c = 0 ∨ c <= k` of a loop
//! `while (c < k) c++` whose bound may be negative, so the exit `c >= k` gives nothing), each
//! path is prefixed with every path into `H` from a cut point `P` with an edge to it: every
//! state at `H` is the image of a state at some such `P` by a path of `P`'s region. The
//! walk starts at `P` with `P`'s equalities and invariant, and on entering `H` adds what
//! holds there (its equalities and linear definitions, and per disjunct its linear
//! invariant), each over `H`'s live values read on the path. Only live values: a value
//! live at `H` and not defined on the path from `P` is live at `P` too (SSA), so the
//! dimension means the same value at both; a dead dimension may hold stale facts of the
//! engine that must not meet `P`'s. From the entry, the prefix is the initial state
//! (`c = 0`); from `H` itself, the body's guard (`c < k`) and step (`c + 1`): the exit
//! `c + 1 >= k` then implies `c + 1 = k`.

use super::path::{affine, polynomial_of, PathState, Source};
use super::{PolyEqualities, Walker, MAX_PATHS, MAX_TERMS, QUERY_TIMEOUT};
use crate::analysis::{Deadline, FunctionContext};
use crate::domain::polynomial::{in_ideal, Polynomial};
use crate::domain::{ConsKind, LinCons, LinExpr, Var};
use crate::graph::{CutKind, CutPointId};
use crate::ir::{BlockId, CmpPred, Interp, Operand, Terminator};
use crate::smt::{Products, QueryResult, RegionFormula};
use std::collections::{BTreeMap, BTreeSet};

/// How [`prove_unreachable`] may show an error site unreachable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proof {
    /// Only algebraically (ideal membership on the guards of the paths): fast, no solver.
    Algebraic,
    /// Algebraically, else by solver queries with products exact (up to [`QUERY_TIMEOUT`]
    /// each; non-linear queries often end `unknown` there).
    WithSolver,
}

/// True when, from every cut point whose region reaches the cut point `error`, every path
/// to it is refuted (module doc), directly or through that cut point from each of its
/// predecessors, or (with [`Proof::WithSolver`]) the solver shows that no path from the
/// cut point's linear invariant and equalities reaches it; false when `deadline` passes
/// first (each query is capped by what is left).
pub fn prove_unreachable(
    ctx: &FunctionContext<'_>,
    linear: &[Option<Vec<Vec<LinCons>>>],
    eqs: &PolyEqualities,
    error: CutPointId,
    proof: Proof,
    deadline: &Deadline,
) -> bool {
    let graph = ctx.graph();
    let violated: BTreeMap<CutPointId, Vec<Polynomial>> = [(error, Vec::new())].into();
    graph.ids().all(|s| {
        let Some(from) = &linear[s.index()] else {
            return true;
        };
        if !graph.successors(s).contains(&error) {
            return true;
        }
        if deadline.expired() {
            return false;
        }
        if refuted(ctx, linear, eqs, s, None, error) || refuted_through(ctx, linear, eqs, s, error)
        {
            return true;
        }
        if proof == Proof::Algebraic {
            return false;
        }
        let mut formula = RegionFormula::new(ctx, s, Products::Exact);
        matches!(
            formula.query_equalities(
                from,
                &eqs.at_cut_point[s.index()],
                &violated,
                QUERY_TIMEOUT.min(deadline.remaining())
            ),
            QueryResult::Unsat
        )
    })
}

/// True when every path from the loop head `head` to `error` is refuted through `head`
/// from each cut point with an edge into it (module doc); false for other cut points.
fn refuted_through(
    ctx: &FunctionContext<'_>,
    linear: &[Option<Vec<Vec<LinCons>>>],
    eqs: &PolyEqualities,
    head: CutPointId,
    error: CutPointId,
) -> bool {
    let graph = ctx.graph();
    if graph.cut_point(head).kind != CutKind::LoopHead {
        return false;
    }
    let Some(through) = Through::at(ctx, linear, eqs, head) else {
        return false;
    };
    graph
        .ids()
        .filter(|p| graph.successors(*p).contains(&head))
        // A predecessor the linear invariant says unreachable sends no state.
        .filter(|p| linear[p.index()].is_some())
        .all(|p| refuted(ctx, linear, eqs, p, Some(&through), error))
}

/// True when every path from the cut point `source` to `error` (through `through`'s head
/// when given) is refuted.
fn refuted(
    ctx: &FunctionContext<'_>,
    linear: &[Option<Vec<Vec<LinCons>>>],
    eqs: &PolyEqualities,
    source: CutPointId,
    through: Option<&Through>,
    error: CutPointId,
) -> bool {
    let Some(from) = &linear[source.index()] else {
        return true;
    };
    // `a - b` is a combination of the equalities at `source` and of the path's equalities
    // (its guards, what holds at the head it passed, and the linear equalities its linear
    // facts imply with each disjunct of the linear invariant at `source`).
    let gens: Vec<Polynomial> = eqs.at_cut_point[source.index()]
        .iter()
        .chain(&eqs.definitions[source.index()])
        .cloned()
        .collect();
    let head_degree = through.map_or(0, |h| eqs.degrees[h.head.index()]);
    let degree = eqs.degrees[source.index()].max(head_degree).max(2);
    let member = |p: &Polynomial, state: &PathState, source: &Source<'_>| {
        let mut base: Vec<Polynomial> = gens
            .iter()
            .map(|g| state.substituted(g))
            .filter(|g| !g.is_zero())
            .collect();
        base.extend(state.hypotheses.iter().cloned());
        let holds = |gens: &[Polynomial]| {
            let mut vars: Vec<Var> = p.vars();
            vars.extend(gens.iter().flat_map(Polynomial::vars));
            vars.sort();
            vars.dedup();
            in_ideal(p, gens, &vars, degree)
        };
        if holds(&base) {
            return true;
        }
        match state.implied_equalities(source) {
            None => false,
            Some(per_disjunct) => per_disjunct.iter().all(|extra| {
                let mut all = base.clone();
                all.extend(extra.iter().cloned());
                holds(&all)
            }),
        }
    };
    let graph = ctx.graph();
    let no_vars: Vec<Vec<Var>> = vec![Vec::new(); graph.cut_points.len()];
    let mut walker = Walker::new(ctx, &no_vars);
    walker.invariant = Some(from.as_slice());
    let block = graph.cut_point(source).block;
    walker.error_paths_refuted(block, PathState::default(), error, &member, false, through)
        == Some(true)
}

/// What holds at a loop head that a path passes through (module doc): over its live
/// values only.
pub(super) struct Through {
    head: CutPointId,
    /// Its polynomial equalities and the linear definitions that left its template.
    gens: Vec<Polynomial>,
    /// The disjuncts of its linear invariant, each cut to the constraints over live values.
    invariant: Vec<Vec<LinCons>>,
}

impl Through {
    /// `None` when the linear invariant says the head is unreachable.
    fn at(
        ctx: &FunctionContext<'_>,
        linear: &[Option<Vec<Vec<LinCons>>>],
        eqs: &PolyEqualities,
        head: CutPointId,
    ) -> Option<Through> {
        let layout = ctx.layout();
        let live: BTreeSet<Var> = ctx
            .live_at(ctx.graph().cut_point(head).block)
            .iter()
            .map(|v| layout.value_var(*v))
            .collect();
        let invariant = linear[head.index()]
            .as_ref()?
            .iter()
            .map(|d| {
                d.iter()
                    .filter(|c| c.expr.vars().all(|x| live.contains(&x)))
                    .cloned()
                    .collect()
            })
            .collect();
        let gens = eqs.at_cut_point[head.index()]
            .iter()
            .chain(&eqs.definitions[head.index()])
            .filter(|g| g.vars().iter().all(|x| live.contains(x)))
            .cloned()
            .collect();
        Some(Through {
            head,
            gens,
            invariant,
        })
    }
}

impl Walker<'_, '_> {
    /// True when every path from `block` (in the region of the walk's source) to the cut
    /// point `error` is refuted: it takes an edge whose guard says `a != b` for an `a - b`
    /// that `member` shows is zero given the path's state, or its guards contradict each
    /// other; `refuted`: the path so far already is. With `through`, only the paths that
    /// enter its head count, and the walk goes on from there (once) with what holds at the
    /// head. `None` past [`MAX_PATHS`].
    pub(super) fn error_paths_refuted(
        &mut self,
        block: BlockId,
        mut state: PathState,
        error: CutPointId,
        member: &dyn Fn(&Polynomial, &PathState, &Source<'_>) -> bool,
        refuted: bool,
        through: Option<&Through>,
    ) -> Option<bool> {
        self.n_walked += 1;
        if self.n_walked > MAX_PATHS * 4 {
            return None;
        }
        let func = self.ctx.func();
        let graph = self.ctx.graph();
        self.exec_block(block, &mut state);
        let term = &func.block(block).term;
        let edges = term.edges();
        for (idx, edge) in edges.iter().enumerate() {
            let mut refuted_here = refuted;
            if let Terminator::Branch {
                cond: Operand::Value(c),
                ..
            } = term
            {
                if let Some((pred, lhs, rhs)) = self.cmps.get(c).copied() {
                    // The edge on which the operands differ.
                    let differ_edge = match pred {
                        CmpPred::Eq => Some(1),
                        CmpPred::Ne => Some(0),
                        _ => None,
                    };
                    if differ_edge == Some(idx) && !refuted_here {
                        let want = match lhs {
                            Operand::Value(v) => self.ctx.reading(v),
                            _ => match rhs {
                                Operand::Value(v) => self.ctx.reading(v),
                                _ => Interp::Signed,
                            },
                        };
                        if let (Some(a), Some(b)) = (
                            self.operand(&state, &lhs, want),
                            self.operand(&state, &rhs, want),
                        ) {
                            refuted_here = member(&a.minus(&b), &state, &self.source());
                        }
                    }
                }
            }
            let next = self.take_edge(block, idx, state.clone());
            if next.is_empty() {
                // The guards contradict each other: no execution takes this edge.
                continue;
            }
            let target = graph.cut_of_block(edge.target);
            match (target, through) {
                (Some(t), Some(head)) if t == head.head => {
                    for s in next {
                        let after = self.moved(edge, &s);
                        for entered in self.enter(head, after) {
                            if !self.error_paths_refuted(
                                edge.target,
                                entered,
                                error,
                                member,
                                refuted_here,
                                None,
                            )? {
                                return Some(false);
                            }
                        }
                    }
                }
                // Not through the head: the paths from this source are proved on their own.
                (Some(t), Some(_)) if t == error => {}
                (Some(t), None) if t == error => {
                    if !refuted_here {
                        return Some(false);
                    }
                }
                (Some(_), _) => {}
                (None, _) => {
                    for s in next {
                        let after = self.moved(edge, &s);
                        if !self.error_paths_refuted(
                            edge.target,
                            after,
                            error,
                            member,
                            refuted_here,
                            through,
                        )? {
                            return Some(false);
                        }
                    }
                }
            }
        }
        Some(true)
    }

    /// The states of a path entering `head`: with its equalities, and one per disjunct of
    /// its linear invariant (none left: the path has no execution), each read on the path
    /// (a live value of the head is its polynomial on the path, or the source's value).
    fn enter(&self, head: &Through, mut state: PathState) -> Vec<PathState> {
        let layout = self.ctx.layout();
        let n_dims = layout.n_dims();
        let read = |st: &PathState, p: &Polynomial| {
            p.compose(
                &|x| match layout.value(x).and_then(|v| st.env.get(&v)) {
                    Some(p) => p.clone(),
                    None => st.var(x),
                },
                MAX_TERMS,
            )
        };
        for g in &head.gens {
            // Past the cap on terms the equality is left out: fewer facts, never a wrong one.
            if let Some(e) = read(&state, g) {
                state.equate(e);
            }
            if state.infeasible {
                return Vec::new();
            }
        }
        let mut out = Vec::new();
        for disjunct in &head.invariant {
            let mut st = state.clone();
            for c in disjunct {
                let Some(e) = read(&st, &polynomial_of(&c.expr)) else {
                    continue;
                };
                let zero = LinExpr::constant(0);
                let fact = affine(&e, n_dims);
                match c.kind {
                    ConsKind::Eq => {
                        if let Some(l) = fact {
                            st.linear.push(LinCons::eq(&l, &zero));
                        }
                        st.equate(e);
                    }
                    ConsKind::Ge => {
                        if let Some(l) = fact {
                            st.linear.push(LinCons::ge(&l, &zero));
                        }
                    }
                }
                if st.infeasible {
                    break;
                }
            }
            if !st.infeasible {
                out.push(st);
            }
        }
        out
    }
}
