//! Polynomial equality invariants at loop heads, by linear algebra over the
//! polynomial maps of the paths between cut points, and their use to prove assertions.
//!
//! **The invariants.** Each loop head `T` gets a vector space `V_T` of polynomials over its
//! live integer values, of degree at most `d_T` (the largest degree whose template stays
//! under `PolyEqParams::max_monomials` monomials). Every path `π` from a cut point `S` to `T` is a
//! polynomial map `f_π` (its guards used only as [`path`] describes): the value of each live value of `T` at the end of
//! `π`, as a polynomial in the values of `S` and in fresh unknowns for every result that is
//! not an exact ring operation. The spaces are the greatest solution of
//!
//! ```text
//! for every path π from S to T and every P in V_T:  P ∘ f_π  ∈  I(V_S)      (V_entry = {0})
//! ```
//!
//! where `I(V_S)` is the span of the multiples `m·B` of the elements `B` of `V_S` by the
//! monomials `m` of degree at most one over `S`'s template variables (a truncated ideal:
//! the geometric sum maps `x·z - x - y + 1` to `z·(x·z - x - y + 1)`, which is in it but
//! not in the span of `V_S`). They are computed by descending iteration from the full
//! templates: each step keeps the `P` for which `P ∘ f_π - Σ g_j·C_S[j]` is the zero
//! polynomial for some `g` (`C_S` a basis of `I(V_S)`): a linear condition on the
//! coefficients of `P` and the `g`, solved by exact Gaussian elimination
//! ([`crate::domain::polynomial::dependencies`]). At the solution every `P = 0` with
//! `P ∈ V_T` holds at `T` in every execution: by induction on the executions, a state at `S`
//! satisfies every equality of `V_S`, hence every multiple, so
//! `P(f_π(x)) = Σ g_j·C_S[j](x) = 0`; an identity of polynomials holds whatever values the
//! unknowns take, and a path's guards only restrict the states it is asked of ([`path`]:
//! the identity is then one after the path's substitution) (Rodríguez-Carbonell & Kapur;
//! Müller-Olm & Seidl for the spaces).
//!
//! A variable that the engine's linear invariant defines at a loop head (`c = y`, an
//! equality over the other template variables) is left out of that head's template and
//! replaced by its definition in the images of the paths leaving it: the invariant holds in
//! every execution, so the images are unchanged there, and the template has room for a
//! higher degree.
//!
//! **Integer semantics (why this is sound for C).** The identity `P(f(x)) = Σ g·B(x)` is
//! one over ℤ\[x\], so it holds for the values of the program only where every operation in
//! `f` computes its mathematical result on the readings. An operation is taken as a ring
//! operation only when it is exact on the readings the solver formula uses
//! ([`crate::smt`]): `add`, `sub`, `mul` with `nsw` whose operands and result are read
//! signed, or with `nuw` read unsigned (the analysis drops the executions where such an
//! operation overflows, ARCHITECTURE "Integer semantics", so on the others the result is
//! the exact sum or product); `sext` from and to signed readings and `zext` from an
//! unsigned reading (the same integer); copies and phi moves between values of the same
//! reading; constants in the destination's reading. Everything else (a wrapping operation,
//! a division, a comparison, a load, a havoc) is a fresh unknown, so every monomial that
//! depends on it must cancel. A wrapping `add` would only give `P(x) ≡ 0 mod 2^w`, which
//! this module does not use: with wrapping arithmetic it finds nothing, never a wrong
//! equality (`tests/programs/verdicts/nla_wrap.c`).
//!
//! **Their use** ([`prove_unreachable`], in `unreachable.rs`): an error site is unreachable
//! when, for every cut point whose region reaches it, every path to it is refuted
//! algebraically (directly, or through the cut point from each of its predecessors), or the
//! solver shows with products encoded exactly that no path from a state of the engine's
//! (certified) linear invariant and the equalities reaches it; an `unknown` there leaves
//! the assertion open. Before that, [`certify`] checks the equalities inductive with the
//! solver: a path leaving them excludes them; an `unknown` leaves them resting on their
//! construction above, which is the proof.

mod path;
mod unreachable;

pub use unreachable::{prove_unreachable, Proof};

use super::{Deadline, FunctionContext};
use crate::domain::polynomial::{
    dependencies, dependencies_until, ideal_generators, simplify_generators, span_basis, Monomial,
    Polynomial,
};
use crate::domain::{Int, LinCons, Var};
use crate::graph::{CutKind, CutPointId};
use crate::ir::{
    BinOp, BlockId, CastOp, CmpPred, Expr, Inst, Interp, Operand, Terminator, ValueId,
};
use crate::smt::{Products, QueryResult, RegionFormula};
use num_traits::{One, Signed, Zero};
use path::{PathState, Remainder, Source};
use std::collections::BTreeMap;
use std::time::Duration;

/// The most paths enumerated over all regions of a function; past it, no invariants. This
/// and the two limits below are guards against blow-up of the exact algebra.
const MAX_PATHS: usize = 256;
/// The most terms of a composed polynomial; past it, no invariants.
const MAX_TERMS: usize = 20_000;
/// The most rounds of the descending iteration; past it, no invariants.
const MAX_ROUNDS: usize = 40;
/// Time for one solver query proving an error site unreachable.
const QUERY_TIMEOUT: Duration = Duration::from_secs(2);
/// Time for one certification query: an `unknown` leaves the equalities resting on their
/// construction, and a path leaving them (a bug) is found fast (`polynomial_wrap.c` with
/// wrapping sums taken as exact: about 0.2 s).
const CERTIFY_TIMEOUT: Duration = Duration::from_millis(800);

/// The polynomial equalities `p = 0` at each cut point (indexed like the reduced graph),
/// over value dimensions of the function's layout.
#[derive(Clone, Debug, Default)]
pub struct PolyEqualities {
    /// Per cut point, generators of the equalities found there (empty: none).
    pub at_cut_point: Vec<Vec<Polynomial>>,
    /// Per cut point, the degree of its template (0: none).
    pub degrees: Vec<u32>,
    /// Per cut point, the linear equalities `x - e = 0` of the engine's invariant that took a
    /// variable `x` out of the template (see [`discover`]); true wherever `linear` holds.
    pub definitions: Vec<Vec<Polynomial>>,
}

impl PolyEqualities {
    /// True when no cut point has an equality.
    pub fn is_empty(&self) -> bool {
        self.at_cut_point.iter().all(Vec::is_empty)
    }
}

/// One path between cut points, as a map from the target's template variables to
/// polynomials over the source's value dimensions and fresh unknowns.
struct PathMap {
    source: CutPointId,
    target: CutPointId,
    image: BTreeMap<Var, Polynomial>,
    /// The substitution the path's guards (and its source's linear definitions) allow
    /// ([`path`]): the images are over its remaining variables, and so must be the
    /// source's equalities they are compared with.
    subst: BTreeMap<Var, Polynomial>,
}

/// Finds the polynomial equalities of degree at most `max_degree` (and at most
/// `PolyEqParams::max_degree`) at the loop heads of the
/// context's function; `None` when a cap (paths, terms, rounds) or the deadline is reached:
/// no invariant rather than a partial one, since the descending iteration is sound only at
/// its end.
///
/// `linear` is the engine's invariant per cut point (`None`: unreachable), which holds in
/// every execution. A variable it defines at a loop head by an equality `x = e` over the
/// other template variables leaves that head's template and is replaced by `e` in the
/// images of the paths from there: fewer variables allow a higher degree under
/// `PolyEqParams::max_monomials` (ps6's `y = c` leaves room for degree 6) and make the linear algebra
/// cheaper.
pub fn discover(
    ctx: &FunctionContext<'_>,
    max_degree: u32,
    linear: &[Option<Vec<Vec<LinCons>>>],
    deadline: &Deadline,
) -> Option<PolyEqualities> {
    let graph = ctx.graph();
    let layout = ctx.layout();
    let params = ctx.params().polyeq;
    let n = graph.cut_points.len();
    let mut defined: Vec<Vec<(Var, Polynomial)>> = vec![Vec::new(); n];
    // Template variables per loop head: live integer values, not booleans.
    let mut vars: Vec<Vec<Var>> = vec![Vec::new(); n];
    let mut basis: Vec<Vec<Polynomial>> = vec![Vec::new(); n];
    let mut degrees: Vec<u32> = vec![0; n];
    for cp in graph.ids() {
        let point = graph.cut_point(cp);
        if point.kind != CutKind::LoopHead {
            continue;
        }
        let live: Vec<Var> = ctx
            .live_at(point.block)
            .iter()
            .filter(|v| ctx.func().value(**v).ty.width > 1)
            .map(|v| layout.value_var(*v))
            .collect();
        let defs = match linear.get(cp.index()) {
            Some(Some(disjuncts)) => linear_definitions(disjuncts, &live),
            _ => Vec::new(),
        };
        let vs: Vec<Var> = live
            .into_iter()
            .filter(|x| defs.iter().all(|(d, _)| d != x))
            .collect();
        defined[cp.index()] = defs;
        // No template over no variable: its only monomial is the constant, whose equality
        // `1 = 0` says the head is unreachable, and the walk follows no path into a head
        // without template variables, so nothing would take it out (csmith 43046: a loop
        // whose values the linear invariant all defines kept `1 = 0`, which put every
        // polynomial in the ideal of the paths leaving it and gave the next loop head
        // `n = 1` for a counter that starts at 0).
        if vs.is_empty() {
            continue;
        }
        let Some(degree) = (2..=max_degree.min(params.max_degree))
            .rev()
            .find(|d| Monomial::count_up_to(vs.len(), *d) <= params.max_monomials)
        else {
            continue;
        };
        basis[cp.index()] = Monomial::all_up_to(&vs, degree)
            .into_iter()
            .map(|m| Polynomial::term(1, m))
            .collect();
        vars[cp.index()] = vs;
        degrees[cp.index()] = degree;
    }
    let definitions: Vec<Vec<Polynomial>> = defined
        .iter()
        .map(|defs| {
            defs.iter()
                .map(|(x, e)| Polynomial::var(*x).minus(e))
                .collect()
        })
        .collect();
    if basis.iter().all(Vec::is_empty) {
        return Some(PolyEqualities {
            at_cut_point: basis,
            degrees,
            definitions,
        });
    }
    let paths = path_maps(ctx, &vars, &defined, linear, deadline)?;
    for _round in 0..MAX_ROUNDS {
        let mut changed = false;
        for t in graph.ids() {
            if basis[t.index()].is_empty() {
                continue;
            }
            if deadline.expired() {
                return None;
            }
            let incoming: Vec<&PathMap> = paths.iter().filter(|p| p.target == t).collect();
            let restricted = restrict(&basis[t.index()], &incoming, &basis, &vars, deadline)?;
            if restricted.len() < basis[t.index()].len() {
                changed = true;
                basis[t.index()] = restricted;
            }
        }
        if !changed {
            // `1 = 0` left at a loop head says no path reaches it. That holds only if the
            // guards of every path into it contradict each other; where the linear invariant
            // says the head is reachable, it is a bug (an incoming path not followed), and
            // every equality resting on it would be wrong: none at all then.
            let unreachable_claimed = graph.ids().any(|t| {
                !basis[t.index()].is_empty()
                    && matches!(linear.get(t.index()), Some(Some(_)))
                    && spans_a_constant(&basis[t.index()])
            });
            if unreachable_claimed {
                return None;
            }
            // Drop the trivial equality of the template's constant (at a reachable head it
            // is never kept: `1 = 0` fails there) and keep the rest.
            let at_cut_point = basis
                .iter()
                .zip(&vars)
                .zip(&degrees)
                .map(|((b, vs), d)| {
                    let b: Vec<Polynomial> = b.iter().filter(|p| p.degree() > 0).cloned().collect();
                    simplify_generators(&ideal_generators(&b, vs, *d), vs, *d)
                })
                .collect();
            return Some(PolyEqualities {
                at_cut_point,
                degrees,
                definitions,
            });
        }
    }
    None
}

/// True when a nonzero constant is a combination of `basis`.
fn spans_a_constant(basis: &[Polynomial]) -> bool {
    let mut columns = vec![Polynomial::constant(1)];
    columns.extend(basis.iter().cloned());
    dependencies(&columns).iter().any(|c| !c[0].is_zero())
}

/// The subspace of `span(current)` whose elements `P` satisfy `P ∘ f ∈ span(basis[S])` for
/// every incoming path; `None` past [`MAX_TERMS`] or the deadline.
fn restrict(
    current: &[Polynomial],
    incoming: &[&PathMap],
    basis: &[Vec<Polynomial>],
    vars: &[Vec<Var>],
    deadline: &Deadline,
) -> Option<Vec<Polynomial>> {
    let mut closures: BTreeMap<CutPointId, Vec<Polynomial>> = BTreeMap::new();
    // The conditions of all paths in one system: path `i`'s polynomials are multiplied by a
    // marker variable of its own, so that their monomials (the rows) stay apart.
    let marker = |i: usize| Polynomial::var(Var(MARKER_BASE + i as u32));
    let mut columns: Vec<Polynomial> = vec![Polynomial::zero(); current.len()];
    for (i, path) in incoming.iter().enumerate() {
        if deadline.expired() {
            return None;
        }
        let z = marker(i);
        for (k, p) in current.iter().enumerate() {
            let image = p.compose(
                &|x| {
                    path.image
                        .get(&x)
                        .cloned()
                        .unwrap_or_else(|| Polynomial::var(x))
                },
                MAX_TERMS,
            )?;
            columns[k] = columns[k].plus(&image.times(&z));
        }
        let closure = closures.entry(path.source).or_insert_with(|| {
            ideal_closure(&basis[path.source.index()], &vars[path.source.index()])
        });
        for b in closure.iter() {
            let b = if path.subst.is_empty() {
                b.clone()
            } else {
                b.compose(
                    &|x| {
                        path.subst
                            .get(&x)
                            .cloned()
                            .unwrap_or_else(|| Polynomial::var(x))
                    },
                    MAX_TERMS,
                )?
            };
            columns.push(b.times(&z).scaled(&-Int::from(1)));
        }
    }
    let deps = dependencies_until(&columns, &|| deadline.expired())?;
    let kept: Vec<Polynomial> = deps
        .iter()
        .map(|c| {
            current
                .iter()
                .zip(c)
                .fold(Polynomial::zero(), |acc, (p, k)| acc.plus(&p.scaled(k)))
        })
        .filter(|p| !p.is_zero())
        .collect();
    Some(span_basis(&kept))
}

/// Definitions `x = e` from the equalities of a linear invariant (one disjunct only; a
/// pair `e ≥ 0`, `-e ≥ 0` counts as an equality), each `x` a variable of `vars` with
/// coefficient ±1 and `e` affine over the variables of `vars` not defined, none of them
/// defined by another (substituted in order).
fn linear_definitions(disjuncts: &[Vec<LinCons>], vars: &[Var]) -> Vec<(Var, Polynomial)> {
    let [conjunction] = disjuncts else {
        return Vec::new();
    };
    let poly = |e: &crate::domain::LinExpr| {
        e.terms().fold(
            Polynomial::constant(e.constant_part().clone()),
            |acc, (v, c)| acc.plus(&Polynomial::term(c.clone(), Monomial::var(v))),
        )
    };
    let within = |e: &crate::domain::LinExpr| e.vars().all(|v| vars.contains(&v));
    let mut equalities: Vec<Polynomial> = Vec::new();
    for (i, c) in conjunction.iter().enumerate() {
        if !within(&c.expr) || c.expr.is_constant() {
            continue;
        }
        match c.kind {
            crate::domain::ConsKind::Eq => equalities.push(poly(&c.expr)),
            crate::domain::ConsKind::Ge => {
                let negated = c.expr.negated();
                let paired = conjunction[i + 1..]
                    .iter()
                    .any(|d| d.kind == crate::domain::ConsKind::Ge && d.expr == negated);
                if paired {
                    equalities.push(poly(&c.expr));
                }
            }
        }
    }
    let mut defs: Vec<(Var, Polynomial)> = Vec::new();
    for eq in equalities {
        // Earlier definitions first, so that no definition mentions a defined variable.
        let Some(eq) = eq.compose(
            &|x| {
                defs.iter()
                    .find(|(d, _)| *d == x)
                    .map(|(_, e)| e.clone())
                    .unwrap_or_else(|| Polynomial::var(x))
            },
            MAX_TERMS,
        ) else {
            continue;
        };
        // The last variable with a unit coefficient: usually the later-defined value.
        let unit = eq
            .terms()
            .filter(|(m, c)| m.degree() == 1 && c.abs().is_one())
            .map(|(m, c)| (m.powers()[0].0, c.clone()))
            .last();
        let Some((x, c)) = unit else { continue };
        // c·x + r = 0  ⇒  x = -c·r (c = ±1).
        let rest = eq.minus(&Polynomial::term(c.clone(), Monomial::var(x)));
        let e = rest.scaled(&-c);
        for (_, d) in &mut defs {
            if let Some(q) = d.compose(
                &|y| {
                    if y == x {
                        e.clone()
                    } else {
                        Polynomial::var(y)
                    }
                },
                MAX_TERMS,
            ) {
                *d = q;
            }
        }
        defs.push((x, e));
    }
    defs
}

/// The multiples of a source's equalities that a path's image may be a combination of:
/// every `m·b` for `b` in `basis` and `m` a monomial over the source's template variables
/// of degree at most [`MULTIPLIER_DEGREE`], reduced to independent polynomials. Where every
/// `b = 0` holds, so does every `m·b = 0`: the geometric sums (`x' = x·z + 1`, `y' = y·z`)
/// map `x·z - x - y + 1` to `z·(x·z - x - y + 1)`, in this ideal but not in the span.
fn ideal_closure(basis: &[Polynomial], vars: &[Var]) -> Vec<Polynomial> {
    if basis.is_empty() {
        return Vec::new();
    }
    let multipliers = Monomial::all_up_to(vars, MULTIPLIER_DEGREE);
    let multiples: Vec<Polynomial> = basis
        .iter()
        .flat_map(|b| {
            multipliers
                .iter()
                .map(move |m| b.times(&Polynomial::term(1, m.clone())))
        })
        .collect();
    span_basis(&multiples)
}

/// The largest degree of a multiplier in [`ideal_closure`].
const MULTIPLIER_DEGREE: u32 = 1;

/// Markers of paths in [`restrict`], far above every dimension and fresh unknown.
const MARKER_BASE: u32 = 1 << 30;

/// The polynomial map of every path from a cut point (entry or loop head) to a loop head
/// with a template; `None` past [`MAX_PATHS`]. A path starts with the linear definitions of
/// its source substituted (`defined`), and its guards are used with the source's linear
/// invariant (`linear`) as [`path`] describes.
fn path_maps(
    ctx: &FunctionContext<'_>,
    vars: &[Vec<Var>],
    defined: &[Vec<(Var, Polynomial)>],
    linear: &[Option<Vec<Vec<LinCons>>>],
    deadline: &Deadline,
) -> Option<Vec<PathMap>> {
    let graph = ctx.graph();
    let mut walker = Walker::new(ctx, vars);
    walker.deadline = Some(deadline.clone());
    for s in graph.ids() {
        let point = graph.cut_point(s);
        if !matches!(point.kind, CutKind::Entry | CutKind::LoopHead) {
            continue;
        }
        walker.invariant = linear.get(s.index()).and_then(|l| l.as_deref());
        walker.walk(s, point.block, PathState::starting(&defined[s.index()]))?;
    }
    Some(walker.out)
}

/// At most this many disjunctions (`a && b` taken false) split one path (a guard: each
/// doubles the path's images).
const MAX_SPLITS: usize = 4;

struct Walker<'a, 'f> {
    ctx: &'a FunctionContext<'f>,
    vars: &'a [Vec<Var>],
    /// The next fresh unknown.
    fresh: u32,
    out: Vec<PathMap>,
    /// The comparison defining each `i1` value that is one.
    cmps: BTreeMap<ValueId, (CmpPred, Operand, Operand)>,
    /// The `and`, `or` and `xor` defining each `i1` value that is one.
    logic: BTreeMap<ValueId, (BinOp, Operand, Operand)>,
    /// The linear invariant of the source of the paths being walked (`None`: none known).
    invariant: Option<&'a [Vec<LinCons>]>,
    /// Blocks visited by [`Walker::error_paths_refuted`].
    n_walked: usize,
    /// Blocks visited by [`Walker::walk`]: a region of many diamonds has exponentially many
    /// paths, most of which reach no template, so [`MAX_PATHS`] alone does not bound it (a
    /// generated program ran for minutes past a 4 s budget).
    n_blocks_walked: usize,
    /// When [`Walker::walk`] gives up: the blocks of a path may multiply polynomials of
    /// growing degree, so the block count alone does not bound the time (a generated
    /// program spent 10 s here past a 4 s budget).
    deadline: Option<Deadline>,
}

impl<'a, 'f> Walker<'a, 'f> {
    fn new(ctx: &'a FunctionContext<'f>, vars: &'a [Vec<Var>]) -> Walker<'a, 'f> {
        let mut cmps = BTreeMap::new();
        let mut logic = BTreeMap::new();
        for b in &ctx.func().blocks {
            for inst in &b.insts {
                match inst {
                    Inst::Assign {
                        dest,
                        expr: Expr::Cmp { pred, lhs, rhs },
                    } => {
                        cmps.insert(*dest, (*pred, *lhs, *rhs));
                    }
                    Inst::Assign {
                        dest,
                        expr:
                            Expr::Binary {
                                op: op @ (BinOp::And | BinOp::Or | BinOp::Xor),
                                lhs,
                                rhs,
                                ..
                            },
                    } if ctx.func().value(*dest).ty.width == 1 => {
                        logic.insert(*dest, (*op, *lhs, *rhs));
                    }
                    _ => {}
                }
            }
        }
        Walker {
            ctx,
            vars,
            fresh: ctx.layout().n_dims() as u32,
            out: Vec::new(),
            cmps,
            logic,
            invariant: None,
            n_walked: 0,
            n_blocks_walked: 0,
            deadline: None,
        }
    }

    fn source(&self) -> Source<'a> {
        Source {
            invariant: self.invariant,
            n_dims: self.ctx.layout().n_dims(),
        }
    }

    /// Applies the instructions of `block` to `state`.
    fn exec_block(&mut self, block: BlockId, state: &mut PathState) {
        for inst in &self.ctx.func().block(block).insts {
            match inst {
                Inst::Assume {
                    cond: Operand::Value(c),
                } => {
                    // Only a conjunction of facts; a disjunction is not split here.
                    let mut after = self.assume(state.clone(), *c, true, MAX_SPLITS);
                    if after.len() == 1 {
                        *state = after.pop().expect("one state");
                    }
                }
                Inst::Assume { .. } => {}
                Inst::Havoc { dest, .. } => {
                    let u = self.fresh();
                    state.env.insert(*dest, u);
                }
                // Lowered by the memory pass before any analysis; a value it would define
                // is unknown.
                Inst::Mem(_) => {
                    if let Some(dest) = inst.dest() {
                        let u = self.fresh();
                        state.env.insert(dest, u);
                    }
                }
                Inst::Assign { dest, expr } => {
                    // A walk through a loop head runs its body twice: what a remainder
                    // computed in the first round says is not about the second.
                    state.rems.remove(dest);
                    let p = match self.expr(state, *dest, expr) {
                        Some(p) => p,
                        None => self.fresh(),
                    };
                    state.env.insert(*dest, p);
                }
            }
        }
    }

    /// The states that follow `state` when the `i1` value `cond` is `truth`: one with the
    /// guard's facts, or one per disjunct (`a && b` false, `a || b` true) while `splits`
    /// allows; an infeasible state is dropped.
    fn assume(
        &self,
        mut state: PathState,
        cond: ValueId,
        truth: bool,
        splits: usize,
    ) -> Vec<PathState> {
        if let Some((op, a, b)) = self.logic.get(&cond).copied() {
            return match (op, a, b) {
                (BinOp::And, Operand::Value(a), Operand::Value(b)) if truth => self
                    .assume(state, a, true, splits)
                    .into_iter()
                    .flat_map(|s| self.assume(s, b, true, splits))
                    .collect(),
                (BinOp::Or, Operand::Value(a), Operand::Value(b)) if !truth => self
                    .assume(state, a, false, splits)
                    .into_iter()
                    .flat_map(|s| self.assume(s, b, false, splits))
                    .collect(),
                (BinOp::And | BinOp::Or, Operand::Value(a), Operand::Value(b)) if splits > 0 => {
                    let mut out = self.assume(state.clone(), a, truth, splits - 1);
                    out.extend(self.assume(state, b, truth, splits - 1));
                    out
                }
                (BinOp::Xor, Operand::Value(a), Operand::Const(k))
                | (BinOp::Xor, Operand::Const(k), Operand::Value(a)) => {
                    self.assume(state, a, truth != (k.bits & 1 == 1), splits)
                }
                _ => vec![state],
            };
        }
        if let Some((pred, lhs, rhs)) = self.cmps.get(&cond).copied() {
            let pred = if truth { pred } else { pred.negated() };
            self.compare(&mut state, pred, &lhs, &rhs);
        }
        if state.infeasible {
            Vec::new()
        } else {
            vec![state]
        }
    }

    /// Records the facts of `lhs pred rhs` holding on the path.
    fn compare(&self, state: &mut PathState, pred: CmpPred, lhs: &Operand, rhs: &Operand) {
        let want = match (lhs, rhs) {
            (Operand::Value(v), _) | (_, Operand::Value(v)) => self.ctx.reading(*v),
            _ => return,
        };
        if matches!(pred, CmpPred::Eq | CmpPred::Ne) {
            for (x, k) in [(lhs, rhs), (rhs, lhs)] {
                let (Operand::Value(v), Operand::Const(c)) = (x, k) else {
                    continue;
                };
                let Some(rem) = state.rems.get(v).cloned() else {
                    continue;
                };
                let r = match self.ctx.reading(*v) {
                    Interp::Signed => c.signed(),
                    Interp::Unsigned => c.unsigned() as i128,
                };
                if let Ok(r) = i64::try_from(r) {
                    state.remainder_fact(rem, r, pred == CmpPred::Eq);
                }
                return;
            }
        }
        let unsigned = pred.is_unsigned();
        let want = match pred {
            CmpPred::Eq | CmpPred::Ne => want,
            _ if unsigned => Interp::Unsigned,
            _ => Interp::Signed,
        };
        let (Some(a), Some(b)) = (
            self.operand(state, lhs, want),
            self.operand(state, rhs, want),
        ) else {
            return;
        };
        let n_dims = self.ctx.layout().n_dims();
        // `d ≥ 0` for the ordered comparisons.
        let d = match pred {
            CmpPred::Eq => {
                if let Some(e) = path::affine(&a.minus(&b), n_dims) {
                    state
                        .linear
                        .push(LinCons::eq(&e, &crate::domain::LinExpr::constant(0)));
                }
                state.equate(a.minus(&b));
                return;
            }
            CmpPred::Ne => return,
            CmpPred::Sgt | CmpPred::Ugt => a.minus(&b).minus(&Polynomial::constant(1)),
            CmpPred::Sge | CmpPred::Uge => a.minus(&b),
            CmpPred::Slt | CmpPred::Ult => b.minus(&a).minus(&Polynomial::constant(1)),
            CmpPred::Sle | CmpPred::Ule => b.minus(&a),
        };
        if let Some(e) = path::affine(&d, n_dims) {
            state
                .linear
                .push(LinCons::ge(&e, &crate::domain::LinExpr::constant(0)));
        }
    }

    /// The states after taking edge `idx` of `block`'s terminator from `state`.
    fn take_edge(&self, block: BlockId, idx: usize, state: PathState) -> Vec<PathState> {
        match &self.ctx.func().block(block).term {
            Terminator::Branch {
                cond: Operand::Value(c),
                ..
            } => self.assume(state, *c, idx == 0, MAX_SPLITS),
            Terminator::Switch {
                on: on @ Operand::Value(_),
                cases,
                ..
            } if idx < cases.len() => {
                let mut state = state;
                let (k, _) = &cases[idx];
                self.compare(&mut state, CmpPred::Eq, on, &Operand::Const(*k));
                if state.infeasible {
                    Vec::new()
                } else {
                    vec![state]
                }
            }
            _ => vec![state],
        }
    }

    /// Applies the parallel moves of `edge`: every source read before any destination is
    /// written.
    fn moved(&mut self, edge: &crate::ir::Edge, state: &PathState) -> PathState {
        let moved: Vec<(ValueId, Option<Polynomial>)> = edge
            .moves
            .iter()
            .map(|(d, s)| (*d, self.operand(state, s, self.ctx.reading(*d))))
            .collect();
        let mut after = state.clone();
        for (d, p) in moved {
            let p = match p {
                Some(p) => p,
                None => self.fresh(),
            };
            after.env.insert(d, p);
        }
        after
    }

    fn fresh(&mut self) -> Polynomial {
        self.fresh += 1;
        Polynomial::var(Var(self.fresh))
    }

    /// Follows every path from `block` (in the region of `source`), with `state` what the
    /// path defined and took so far.
    fn walk(&mut self, source: CutPointId, block: BlockId, mut state: PathState) -> Option<()> {
        self.n_blocks_walked += 1;
        if self.n_blocks_walked > MAX_PATHS * 16
            || self.deadline.as_ref().is_some_and(|d| d.expired())
        {
            return None;
        }
        let func = self.ctx.func();
        let graph = self.ctx.graph();
        self.exec_block(block, &mut state);
        let term = &func.block(block).term;
        if matches!(term, Terminator::Error(_)) {
            return Some(());
        }
        for (idx, edge) in term.edges().into_iter().enumerate() {
            let target = graph.cut_of_block(edge.target);
            if let Some(t) = target {
                if self.vars[t.index()].is_empty() {
                    continue;
                }
            }
            for s in self.take_edge(block, idx, state.clone()) {
                let after = self.moved(edge, &s);
                match target {
                    Some(t) => {
                        if self.out.len() >= MAX_PATHS {
                            return None;
                        }
                        let layout = self.ctx.layout();
                        let image = self.vars[t.index()]
                            .iter()
                            .map(|x| {
                                let v = layout.value(*x).expect("template variables are values");
                                let p = after.env.get(&v).cloned().unwrap_or_else(|| after.var(*x));
                                (*x, p)
                            })
                            .collect();
                        self.out.push(PathMap {
                            source,
                            target: t,
                            image,
                            subst: after.subst.clone(),
                        });
                    }
                    None => self.walk(source, edge.target, after)?,
                }
            }
        }
        Some(())
    }

    /// The polynomial of an operand in the reading `want`, when it is exact: a value of
    /// that reading, or a constant read in it.
    fn operand(&self, state: &PathState, op: &Operand, want: Interp) -> Option<Polynomial> {
        match op {
            Operand::Const(c) => Some(Polynomial::constant(match want {
                Interp::Signed => Int::from(c.signed()),
                Interp::Unsigned => Int::from(c.unsigned()),
            })),
            Operand::Undef(_) => None,
            Operand::Value(v) if self.ctx.reading(*v) == want => Some(
                state
                    .env
                    .get(v)
                    .cloned()
                    .unwrap_or_else(|| state.var(self.ctx.layout().value_var(*v))),
            ),
            Operand::Value(_) => None,
        }
    }

    /// The polynomial of an assignment when it is an exact ring operation on the readings
    /// (see the module doc) or a division whose remainder the path decides
    /// ([`path`]); `None`: a fresh unknown.
    fn expr(&mut self, state: &mut PathState, dest: ValueId, expr: &Expr) -> Option<Polynomial> {
        let want = self.ctx.reading(dest);
        match expr {
            Expr::Use(op) => self.operand(state, op, want),
            Expr::Binary {
                op: op @ (BinOp::SDiv | BinOp::SRem | BinOp::UDiv | BinOp::URem),
                lhs,
                rhs,
                ..
            } => self.division(state, dest, *op, lhs, rhs),
            Expr::Binary {
                op,
                lhs,
                rhs,
                flags,
            } => {
                let exact = match want {
                    Interp::Signed => flags.nsw,
                    Interp::Unsigned => flags.nuw,
                };
                if !exact {
                    return None;
                }
                let a = self.operand(state, lhs, want)?;
                let b = self.operand(state, rhs, want)?;
                match op {
                    BinOp::Add => Some(a.plus(&b)),
                    BinOp::Sub => Some(a.minus(&b)),
                    BinOp::Mul => Some(a.times(&b)),
                    _ => None,
                }
            }
            Expr::Cast { op, arg } => {
                let from_width = self.ctx.func().operand_ty(arg).width;
                let to_width = self.ctx.func().value(dest).ty.width;
                match op {
                    CastOp::SExt if want == Interp::Signed => {
                        self.operand(state, arg, Interp::Signed)
                    }
                    // A zero-extended unsigned reading fits the wider type in either reading.
                    CastOp::ZExt if to_width > from_width => {
                        self.operand(state, arg, Interp::Unsigned)
                    }
                    _ => None,
                }
            }
            Expr::Cmp { .. } | Expr::Select { .. } | Expr::BitCount { .. } => None,
        }
    }

    /// A division or remainder by a constant `c ≥ 2` (signed on signed readings, unsigned
    /// on unsigned ones): exact when the path decides the remainder `r0`, the quotient `u`
    /// then satisfying `y = c·u + r0` (a polynomial when `y - r0` has coefficients divisible
    /// by `c`, else a fresh unknown equated on the path); a remainder not decided is an
    /// unknown remembered for the guards that test it.
    fn division(
        &mut self,
        state: &mut PathState,
        dest: ValueId,
        op: BinOp,
        lhs: &Operand,
        rhs: &Operand,
    ) -> Option<Polynomial> {
        let signed = matches!(op, BinOp::SDiv | BinOp::SRem);
        let want = if signed {
            Interp::Signed
        } else {
            Interp::Unsigned
        };
        if self.ctx.reading(dest) != want {
            return None;
        }
        let Operand::Const(k) = rhs else {
            return None;
        };
        let c = if signed {
            k.signed()
        } else {
            k.unsigned() as i128
        };
        if !(2..=1 << 20).contains(&c) {
            return None;
        }
        let c = c as i64;
        let p = self.operand(state, lhs, want)?;
        let rem = state.known_remainder(&p, c, signed, &self.source());
        match op {
            BinOp::SRem | BinOp::URem => {
                if let Some(r) = rem {
                    return Some(Polynomial::constant(r));
                }
                state.rems.insert(
                    dest,
                    Remainder {
                        dividend: p,
                        divisor: c,
                        signed,
                    },
                );
                None
            }
            _ => {
                let exact = p.minus(&Polynomial::constant(rem?));
                if let Some(q) = path::divided(&exact, c) {
                    return Some(q);
                }
                let u = self.fresh();
                state.equate(exact.minus(&u.scaled(&Int::from(c))));
                Some(state.substituted(&u))
            }
        }
    }
}

/// What the solver says of the equalities' consecution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Consecution {
    /// Every query was unsat: inductive, independently of how they were found.
    Certified,
    /// Some query was unknown (non-linear integer arithmetic), none found a path leaving
    /// them: they rest on their construction, an identity over ℤ\[x\] (module doc).
    Undecided,
    /// A path leaves them: a bug of the extraction; they must not be used.
    Refuted,
}

/// Checks with the solver that the equalities are inductive, given the linear invariants
/// (`linear`, per cut point; `None`: unreachable): from every cut point's invariant and
/// equalities, no path reaches a loop head with an equality false.
///
/// Each query is capped by what is left before `deadline`; once it has passed, the answer
/// is at best [`Consecution::Undecided`].
pub fn certify(
    ctx: &FunctionContext<'_>,
    linear: &[Option<Vec<Vec<LinCons>>>],
    eqs: &PolyEqualities,
    deadline: &Deadline,
) -> Consecution {
    let graph = ctx.graph();
    let mut res = Consecution::Certified;
    for s in graph.ids() {
        let Some(from) = &linear[s.index()] else {
            continue;
        };
        let violated: BTreeMap<CutPointId, Vec<Polynomial>> = graph
            .successors(s)
            .iter()
            .filter(|t| !eqs.at_cut_point[t.index()].is_empty())
            .map(|t| (*t, eqs.at_cut_point[t.index()].clone()))
            .collect();
        if violated.is_empty() {
            continue;
        }
        if deadline.expired() {
            return Consecution::Undecided;
        }
        let mut formula = RegionFormula::new(ctx, s, Products::Exact);
        let answer = formula.query_equalities(
            from,
            &eqs.at_cut_point[s.index()],
            &violated,
            CERTIFY_TIMEOUT.min(deadline.remaining()),
        );
        match answer {
            QueryResult::Unsat => {}
            QueryResult::Path(_) => return Consecution::Refuted,
            QueryResult::Unknown(_) => res = Consecution::Undecided,
        }
    }
    res
}
