//! The SMT formula of the loop-free paths leaving a cut point (Monniaux & Gonnord §3.2),
//! the bit-precise unrolling of bounded model checking ([`bmc`]), and the bit-precise
//! enumeration of the paths of code that computes with floats ([`float_paths`]).
//!
//! **Architecture Invariant:** the only module that names `z3`. Queries answer in `ir` and
//! `graph` terms ([`FocusPath`], [`bmc::BmcPath`]); linear constraints come in as
//! `domain::LinCons` over value dimensions, read through the function's
//! [`crate::analysis::Layout`].
//!
//! Encoding (linear integer arithmetic, see ARCHITECTURE.md "Why LIA"): every value is an
//! integer term holding its *reading* ([`crate::ir::Interp`]), with its range asserted.
//! The region of a cut point `p` (blocks reachable from `p` without entering another cut
//! point) is acyclic and in SSA form, so each value has one term: values live into `p` are
//! free constants (the source copy), values defined in the region are terms over them, and
//! the phi nodes of each target cut point get fresh *primed* terms (the destination copy).
//! A boolean per block says it is reached, a boolean per edge that it is taken; the
//! program being deterministic once inputs are fixed, a model designates exactly one path.
//!
//! Operations wrap exactly: `r = e - k·2^w` with a fresh integer `k` and `r` in range.
//! Division and remainder by constants are exact; other non-linear operations are free
//! values of their range (an over-approximation: a path the solver finds may be
//! infeasible, which the abstract transformer then discovers; it never misses a path).

pub mod bmc;
pub mod float_paths;

use crate::context::{FunctionContext, InjectedUnknowns, Layout};
use crate::domain::polynomial::Polynomial;
use crate::domain::{ConsKind, Int as BigInt, LinCons, Var};
use crate::graph::CutPointId;
use crate::ir::{
    BinOp, BlockId, CastOp, CmpPred, Const, Expr, Function, Inst, Interp, Operand, Terminator, Ty,
    ValueId,
};
use num_traits::{One, Signed, ToPrimitive, Zero};
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;
use z3::ast::{Bool, Int};
use z3::{SatResult, Solver};

/// One loop-free path between two cut points, chosen by the solver.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
pub struct FocusPath {
    /// Where it starts.
    pub source: CutPointId,
    /// Where it ends.
    pub target: CutPointId,
    /// The edges taken: `(block, index into block.term.edges())`, in order.
    pub edges: Vec<(BlockId, usize)>,
}

/// A fact about a value at the source of a query that is not a linear constraint, true of
/// every execution there (computed by an analysis the solver does not repeat).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SideFact {
    /// The value's reading is `residue` modulo `modulus` (`modulus == 0`: equal to it).
    Congruence {
        /// The value.
        value: ValueId,
        /// The residue.
        residue: BigInt,
        /// The modulus, at least 0.
        modulus: BigInt,
    },
    /// A linear congruence between values: `Σ coef·reading ≡ residue (mod modulus)`
    /// (`modulus == 0`: equal), from `analysis::relational_congruence`.
    Linear {
        /// The values with their coefficients.
        terms: Vec<(ValueId, BigInt)>,
        /// The right-hand side.
        residue: BigInt,
        /// The modulus, at least 0.
        modulus: BigInt,
    },
    /// Bounds of a linear form of values: `lo <= Σ coef·reading <= hi` (`None`: no bound),
    /// from `analysis::template_bounds`.
    Bounds {
        /// The values with their coefficients.
        terms: Vec<(ValueId, BigInt)>,
        /// The lower bound.
        lo: Option<BigInt>,
        /// The upper bound.
        hi: Option<BigInt>,
    },
}

/// `lo <= t <= hi` (a missing bound holds).
fn bounds_formula(t: &Int, lo: &Option<BigInt>, hi: &Option<BigInt>) -> Bool {
    let mut cs = Vec::new();
    if let Some(lo) = lo {
        cs.push(t.ge(big(lo)));
    }
    if let Some(hi) = hi {
        cs.push(t.le(big(hi)));
    }
    Bool::and(&cs)
}

/// How often an interrupt is repeated while a check past its deadline has not returned.
const INTERRUPT_REPEAT: std::time::Duration = std::time::Duration::from_millis(50);

/// The shortest wait of the watchdog before it reads the checking thread's CPU time again.
const CPU_RECHECK: std::time::Duration = std::time::Duration::from_millis(2);

/// Checks `solver` under `assumptions`, interrupting its context once it has spent the time
/// until `deadline` in CPU time of the calling thread (the clock budgets count on,
/// [`crate::clock`]): the one way this module and [`bmc`] ask z3 for an answer.
///
/// z3's own `timeout` parameter is never used: in z3 4.8.12 (Debian 12) it runs a pool of
/// timer threads whose race corrupts the heap when several threads check with timeouts
/// (seen as aborts "free(): corrupted unsorted chunks" and crashes in `Z3_solver_pop`, one
/// run in five of a generated program analyzed with two jobs).
/// The interrupt is sent only while the check runs, under a lock the checking thread takes
/// as soon as the check returns: an interrupt that lands after the check returned races with
/// the next use of the context, and z3 4.8 then corrupts its heap too.
///
/// It is sent again every [`INTERRUPT_REPEAT`] until the check returns: z3 4.8 drops an
/// interrupt that arrives before the check has registered itself as interruptible (a
/// deadline already reached when the check starts), and one that lands while it has
/// cancellation suspended; a single interrupt then left the check running for ever (a
/// relational-congruence query of lz4 ran 7 minutes past its deadline in `scripts/real-code`).
/// A deadline already past gives `unknown` without asking, and so does a check that
/// `injected` designates (a test aid, [`crate::params::FaultParams`]).
///
/// `own_limit` is the solver's own limit of work per check ([`set_work_limit`], 0 for
/// none); inside a stage with a budget of work ([`crate::domain::stop`]) the check is also
/// limited to what is left of it, and what it spends is charged to it.
pub(crate) fn check_until(
    solver: &Solver,
    assumptions: &[Bool],
    deadline: std::time::Instant,
    injected: &InjectedUnknowns,
    own_limit: u32,
) -> SatResult {
    use crate::domain::stop;
    if injected.next_is_unknown() {
        return SatResult::Unknown;
    }
    // What is left of the stage's budget, in the solver's units (0 would mean no limit).
    let meter = stop::left_for(stop::Work::Solver);
    if meter == Some(0) {
        return SatResult::Unknown;
    }
    if let Some(left) = meter {
        let left = u32::try_from(left).unwrap_or(u32::MAX);
        let limit = if own_limit == 0 {
            left
        } else {
            own_limit.min(left)
        };
        set_work_limit(solver, limit);
    }
    let before = work_count(solver);
    let answer = check_interruptible(solver, assumptions, deadline);
    stop::charge(
        stop::Work::Solver,
        work_count(solver).saturating_sub(before),
    );
    if meter.is_some() {
        set_work_limit(solver, own_limit);
        // A check stopped by what was left of the stage's work leaves less than one of
        // its units: the stage's budget is spent, as its stages and reports read it.
        if answer == SatResult::Unknown && stop::left_for(stop::Work::Solver) == Some(0) {
            stop::exhaust();
        }
    }
    answer
}

/// Checks `solver` under `assumptions`, interrupting it at `deadline` (see [`check_until`]).
fn check_interruptible(
    solver: &Solver,
    assumptions: &[Bool],
    deadline: std::time::Instant,
) -> SatResult {
    let limit = deadline.saturating_duration_since(std::time::Instant::now());
    if limit.is_zero() {
        return SatResult::Unknown;
    }
    let ctx = z3::Context::thread_local();
    let handle = ctx.handle();
    let checking = std::sync::Mutex::new(true);
    let finished = std::sync::Condvar::new();
    let (checking, finished) = (&checking, &finished);
    // The limit is CPU time of this thread (`crate::clock`): the watchdog waits at least
    // what is left of it, since the thread cannot spend CPU time faster than the wall clock
    // passes, and interrupts once it is spent, or at the wall-clock backstop.
    let cpu = crate::clock::ThreadClock::current();
    let cpu_start = cpu.read();
    let backstop = std::time::Instant::now() + limit.saturating_mul(crate::clock::WALL_SLACK);
    std::thread::scope(|scope| {
        scope.spawn(move || {
            let mut guard = checking.lock().unwrap_or_else(|e| e.into_inner());
            let mut wait = limit;
            let mut interrupted = false;
            loop {
                let (next, _) = finished
                    .wait_timeout_while(guard, wait, |still| *still)
                    .unwrap_or_else(|e| e.into_inner());
                guard = next;
                if !*guard {
                    break;
                }
                let spent = match (cpu.read(), cpu_start) {
                    (Some(now), Some(start)) => now.saturating_sub(start),
                    _ => limit,
                };
                if !interrupted && spent < limit && std::time::Instant::now() < backstop {
                    wait = (limit - spent).max(CPU_RECHECK);
                    continue;
                }
                interrupted = true;
                handle.interrupt();
                wait = INTERRUPT_REPEAT;
            }
        });
        let answer = solver.check_assumptions(assumptions);
        *checking.lock().unwrap_or_else(|e| e.into_inner()) = false;
        finished.notify_one();
        answer
    })
}

/// Limits each later check of `solver` to `steps` of z3's resource count (its `rlimit`: a
/// count of the solver's own steps, the same on any machine and under any load), 0 for
/// none. A check that reaches it answers unknown, like one that reaches its deadline. The
/// one place the limit is set, for [`RegionFormula`] and [`bmc::Bmc`].
fn set_work_limit(solver: &Solver, steps: u32) {
    let mut params = z3::Params::new();
    params.set_u32("rlimit", steps);
    solver.set_params(&params);
}

/// z3's resource count so far (its statistic `rlimit count`, over the solver's context):
/// what a check spent is the difference of two readings around it. The one place it is
/// read, for [`RegionFormula`] and [`bmc::Bmc`].
fn work_count(solver: &Solver) -> u64 {
    match solver.get_statistics().value("rlimit count") {
        Some(z3::StatisticsValue::UInt(n)) => u64::from(n),
        Some(z3::StatisticsValue::Double(x)) if x >= 0.0 => x as u64,
        _ => 0,
    }
}

/// `a pred b` over bit-vectors, as LLVM's `icmp` (for [`bmc`] and [`float_paths`]).
fn bv_compare(pred: CmpPred, a: &z3::ast::BV, b: &z3::ast::BV) -> Bool {
    match pred {
        CmpPred::Eq => a.eq(b),
        CmpPred::Ne => a.eq(b).not(),
        CmpPred::Ugt => a.bvugt(b),
        CmpPred::Uge => a.bvuge(b),
        CmpPred::Ult => a.bvult(b),
        CmpPred::Ule => a.bvule(b),
        CmpPred::Sgt => a.bvsgt(b),
        CmpPred::Sge => a.bvsge(b),
        CmpPred::Slt => a.bvslt(b),
        CmpPred::Sle => a.bvsle(b),
    }
}

thread_local! {
    static MISREAD_MOVES: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with a fresh solver context as the thread's, then restores the thread's
/// context, so that what `f` leaves in a context (terms of a search stopped by time) cannot
/// change the models later queries get. `f` runs on this thread and returns no term, so no
/// term crosses contexts.
pub fn in_own_context(f: impl FnOnce()) {
    struct OnThisThread<F>(F);
    // SAFETY: `with_z3_config` calls its callback synchronously on the calling thread;
    // nothing is sent to or shared with another thread.
    unsafe impl<F> Send for OnThisThread<F> {}
    // SAFETY: as above.
    unsafe impl<F> Sync for OnThisThread<F> {}
    impl<F: FnOnce()> OnThisThread<F> {
        fn call(self) {
            (self.0)()
        }
    }
    let f = OnThisThread(f);
    z3::with_z3_config(&z3::Config::new(), move || f.call());
}

/// A test aid (`tests/inductive.rs`): while on, the formulas built on this thread read the
/// operands moved into a target cut point's phis in their own reading, the encoding that
/// once gave wrong proofs (a constant signed in an unsigned phi), so that a test can check
/// that certification refutes such a formula ([`RegionFormula::query_misread`]).
#[doc(hidden)]
pub fn inject_misread_moves(on: bool) {
    MISREAD_MOVES.with(|m| m.set(on));
}

fn misread_moves() -> bool {
    MISREAD_MOVES.with(|m| m.get())
}

/// The answer to a query.
#[derive(Debug)]
pub enum QueryResult {
    /// A path that adds new states.
    Path(FocusPath),
    /// No such path.
    Unsat,
    /// The solver gave up: never evidence either way.
    Unknown(Unknown),
}

/// The answer to [`RegionFormula::query_point_outside`].
#[derive(Debug)]
pub enum PointResult {
    /// The readings of the asked values at the target, in a state the path reaches.
    Point(Vec<BigInt>),
    /// No path ends outside.
    Unsat,
    /// The solver gave up: never evidence either way.
    Unknown(Unknown),
}

/// Why a query has no answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unknown {
    /// The solver answered unknown, with its own reason (a timeout, a cancellation, a
    /// resource limit, or incompleteness of the theory).
    Solver(String),
    /// The solver could not take in the region's assertions within the timeout.
    Loading(Option<String>),
    /// The solver said sat without giving a model.
    NoModel,
    /// The model's taken edges lead to no target cut point.
    NoPath,
    /// The model's path could not be followed through the unrolling (bounded model
    /// checking, [`bmc`]).
    PathLost,
    /// A constraint mentions a dimension that is not a value's (a bug of the caller: only
    /// values have terms in the formula).
    NotAValue(Var),
}

impl fmt::Display for Unknown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unknown::Solver(reason) => f.write_str(reason),
            Unknown::Loading(Some(reason)) => f.write_str(reason),
            Unknown::Loading(None) => f.write_str("loading the region formula"),
            Unknown::NoModel => f.write_str("no model"),
            Unknown::NoPath => f.write_str("model designates no path"),
            Unknown::PathLost => f.write_str("could not follow the model's path"),
            Unknown::NotAValue(var) => write!(f, "dimension {} is not a value", var.index()),
        }
    }
}

/// The formula of one cut point's region, with a solver reused across queries.
pub struct RegionFormula {
    products: Products,
    /// Which dimensions of the constraints are values (the only ones with terms).
    layout: Layout,
    source: CutPointId,
    solver: Solver,
    /// Term of each value as seen inside the region (input or defined there).
    terms: Vec<Option<Int>>,
    /// Reached-ness of each region block.
    reach: BTreeMap<BlockId, Bool>,
    /// Taken-ness of each edge out of a region block.
    taken: BTreeMap<(BlockId, usize), Bool>,
    /// Per target cut point: reached, and the primed terms of its phi nodes.
    targets: BTreeMap<CutPointId, (Bool, BTreeMap<ValueId, Int>)>,
    /// Where each edge out of a region block leads.
    edge_targets: BTreeMap<(BlockId, usize), EdgeTarget>,
    source_block: BlockId,
    /// Values the region defines; their source copies are separate constants.
    defined: Vec<bool>,
    /// Source copies of values the region redefines.
    inputs: BTreeMap<ValueId, Int>,
    fresh: u32,
    /// Whether the solver has taken in the region's own assertions (see [`Self::load`]).
    loaded: bool,
    /// What is left of `params::FocusParams::exact_operations`.
    exact_cost_left: u32,
    /// Values of the region that are extensions of a narrower value, with the range of
    /// their reading (that of the narrower type).
    narrow: BTreeMap<ValueId, (BigInt, BigInt)>,
    /// The range of each value's reading (`ir::Interp`), from its type alone: every term
    /// that stands for a value, source copy or primed, lies in it wherever the value is
    /// defined (a result without wrap-around, [`RegionFormula::no_wrap`], may leave it on
    /// paths that do not reach its definition, where nothing reads it).
    ranges: Vec<(BigInt, BigInt)>,
    /// The work limit last given to the solver (0: none): setting the solver's parameters
    /// is not free (about a third of the CPU time of small nested-loop tasks when it was
    /// set before every query), so it is set only when it changes.
    work_limit: u32,
    /// The function's count of solver checks that answer `unknown` on purpose.
    injected: Arc<InjectedUnknowns>,
}

// How much exact encoding of bit-level operations a region may have
// (`params::FocusParams::exact_operations`), in units: one per shift, division or
// remainder by a constant, and per product by a constant (each adds integer variables
// besides the wrap-around), one per 8 bits of an `and`, `or`, `xor` (decomposed into three
// 0/1 integers per bit). Past it those results are free values of their range (an
// over-approximation, as for products of variables; path focusing only, `Products::Free`).
// Hash, checksum and byte-swapping code chains hundreds of such operations: exact, the
// solver neither answers within its timeout nor honours the timeout promptly, while
// gigabytes build up. A product that cannot wrap (`RegionFormula::no_wrap`) is exact
// without a unit.

#[derive(Clone, Copy, Debug)]
enum EdgeTarget {
    Cut(CutPointId),
    Block(BlockId),
}

/// How products of two variables are encoded.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Products {
    /// As any value of the range: linear, fast, an over-approximation (path focusing).
    Free,
    /// Exactly, as a non-linear product wrapped to the range: precise, the solver may
    /// answer unknown (certification of invariants).
    Exact,
    /// Exactly, as [`Products::Exact`], but shifts, divisions and bitwise operations
    /// exactly only up to this many units, free values of their range past them (the
    /// ascents and the congruence stage: over hash code, exact, one query overran its
    /// stage's share by seconds, as the solver does not honour its timeout promptly).
    ExactUpTo(u32),
}

/// Live dimensions at a cut point: the values whose terms describe its state.
pub type LiveSet = Vec<ValueId>;

impl RegionFormula {
    /// Encodes the region of cut point `source` of the context's function.
    pub fn new(ctx: &FunctionContext<'_>, source: CutPointId, products: Products) -> RegionFormula {
        let func = ctx.func();
        let graph = ctx.graph();
        let interp = ctx.readings();
        let mut enc = RegionFormula {
            products,
            layout: ctx.layout(),
            source,
            solver: Solver::new(),
            terms: vec![None; func.values.len()],
            reach: BTreeMap::new(),
            taken: BTreeMap::new(),
            targets: BTreeMap::new(),
            edge_targets: BTreeMap::new(),
            source_block: graph.cut_point(source).block,
            defined: vec![false; func.values.len()],
            inputs: BTreeMap::new(),
            fresh: 0,
            loaded: false,
            // Certification checks invariants against the exact program: no budget there.
            exact_cost_left: match products {
                Products::Free => ctx.params().focus.exact_operations,
                Products::Exact => u32::MAX,
                Products::ExactUpTo(units) => units,
            },
            ranges: func
                .values
                .iter()
                .zip(interp)
                .map(|(info, i)| range(info.ty, *i))
                .collect(),
            work_limit: 0,
            narrow: BTreeMap::new(),
            injected: ctx.injected_unknowns(),
        };
        let region = graph.region(source).to_vec();
        let in_region = |b: BlockId| region.contains(&b);
        // Incoming taken edges and moves, per region block and per target cut point.
        let mut incoming: BTreeMap<BlockId, Vec<(Bool, Vec<(ValueId, Operand)>)>> = BTreeMap::new();
        for (pos, b) in region.iter().enumerate() {
            let reached = if pos == 0 {
                Bool::from_bool(true)
            } else {
                let ins = incoming.remove(b).unwrap_or_default();
                let conds: Vec<Bool> = ins.iter().map(|(t, _)| t.clone()).collect();
                // Phi nodes of a non-cut block: the move of the edge that was taken.
                let mut phis: BTreeMap<ValueId, Vec<(Bool, Operand)>> = BTreeMap::new();
                for (t, moves) in &ins {
                    for (d, s) in moves {
                        phis.entry(*d).or_default().push((t.clone(), *s));
                    }
                }
                for (d, alts) in phis {
                    let term = enc.ite_chain(func, interp, &alts, d);
                    enc.terms[d.index()] = Some(term);
                    enc.defined[d.index()] = true;
                }
                Bool::or(&conds)
            };
            enc.reach.insert(*b, reached.clone());
            let block = func.block(*b);
            for inst in &block.insts {
                enc.encode_inst(func, interp, inst, &reached);
                if let Some(d) = inst.dest() {
                    enc.defined[d.index()] = true;
                }
            }
            // Edges.
            let guards = enc.edge_guards(func, interp, &block.term);
            for (idx, (edge, guard)) in block.term.edges().into_iter().zip(guards).enumerate() {
                let t = Bool::and(&[reached.clone(), guard]);
                enc.taken.insert((*b, idx), t.clone());
                enc.edge_targets.insert(
                    (*b, idx),
                    match graph.cut_of_block(edge.target) {
                        Some(cp) => EdgeTarget::Cut(cp),
                        None => EdgeTarget::Block(edge.target),
                    },
                );
                match graph.cut_of_block(edge.target) {
                    Some(cp) => {
                        let entry = enc
                            .targets
                            .entry(cp)
                            .or_insert_with(|| (Bool::from_bool(false), BTreeMap::new()));
                        entry.0 = Bool::or(&[entry.0.clone(), t.clone()]);
                        for (d, s) in &edge.moves {
                            // In the destination's reading, as at a join inside the region
                            // (`ite_chain`) and in the abstract transformer: a constant
                            // operand has no reading of its own (`0xffff` moved into an
                            // unsigned `i16` phi is 65535, not the signed -1).
                            let src = if misread_moves() {
                                enc.operand(func, interp, s)
                            } else {
                                enc.reading(func, interp, s, interp[d.index()])
                            };
                            let primed = enc.targets[&cp].1.get(d).cloned();
                            let new = match primed {
                                None => src,
                                Some(old) => t.ite(&src, &old),
                            };
                            enc.targets
                                .get_mut(&cp)
                                .expect("inserted above")
                                .1
                                .insert(*d, new);
                        }
                    }
                    None if in_region(edge.target) => {
                        incoming
                            .entry(edge.target)
                            .or_default()
                            .push((t, edge.moves.clone()));
                    }
                    None => {}
                }
            }
        }
        enc
    }

    /// The cut point this region starts at.
    pub fn source(&self) -> CutPointId {
        self.source
    }

    /// Limits each later query to `steps` of the solver's resource count (see
    /// [`set_work_limit`]), 0 for none. A query that reaches it answers unknown, like one
    /// that reaches its time limit.
    pub fn set_work_limit(&mut self, steps: u32) {
        if steps == self.work_limit {
            return;
        }
        self.work_limit = steps;
        set_work_limit(&self.solver, steps);
    }

    /// The solver's resource count so far (see [`work_count`]).
    pub fn work_count(&self) -> u64 {
        work_count(&self.solver)
    }

    /// Asks for a path from a state satisfying `from` (over the values live at the source)
    /// to a target cut point `p2` whose state falls outside `outside[p2]` (`None`: the
    /// target has no state yet, so any arrival is new). Paths in `blocked` are excluded.
    pub fn query(
        &mut self,
        from: &[LinCons],
        outside: &BTreeMap<CutPointId, Option<Vec<LinCons>>>,
        blocked: &[FocusPath],
        timeout: std::time::Duration,
    ) -> QueryResult {
        let outside: BTreeMap<CutPointId, Option<Vec<Vec<LinCons>>>> = outside
            .iter()
            .map(|(cp, inv)| (*cp, inv.clone().map(|c| vec![c])))
            .collect();
        self.query_disjunctive(&[from.to_vec()], &outside, blocked, timeout)
    }

    /// [`RegionFormula::query`] for states given as disjunctions of constraint systems
    /// (domains with predicates): the path starts in some disjunct of `from` and
    /// ends outside every disjunct of `outside[p2]`. An empty disjunction is the empty state.
    pub fn query_disjunctive(
        &mut self,
        from: &[Vec<LinCons>],
        outside: &BTreeMap<CutPointId, Option<Vec<Vec<LinCons>>>>,
        blocked: &[FocusPath],
        timeout: std::time::Duration,
    ) -> QueryResult {
        self.query_with_facts(from, &[], outside, blocked, timeout)
    }

    /// [`RegionFormula::query_disjunctive`] with, besides `from`, facts on the source's
    /// values that are not linear constraints ([`SideFact`]). They must hold of every
    /// execution at the source: they only remove paths no execution takes.
    pub fn query_with_facts(
        &mut self,
        from: &[Vec<LinCons>],
        facts: &[SideFact],
        outside: &BTreeMap<CutPointId, Option<Vec<Vec<LinCons>>>>,
        blocked: &[FocusPath],
        timeout: std::time::Duration,
    ) -> QueryResult {
        let deadline = std::time::Instant::now() + timeout.max(std::time::Duration::from_millis(1));
        if let Err(why) = self.load(deadline) {
            return QueryResult::Unknown(why);
        }
        // Every constraint is over values; checked before the solver's state changes.
        let stray = from
            .iter()
            .chain(outside.values().flatten().flatten())
            .flatten()
            .flat_map(|c| c.expr.vars())
            .find(|var| self.layout.value(*var).is_none());
        if let Some(var) = stray {
            debug_assert!(
                false,
                "a constraint on dimension {var:?}, which is not a value"
            );
            return QueryResult::Unknown(Unknown::NotAValue(var));
        }
        self.solver.push();
        self.assert_starts(from);
        for fact in facts {
            let f = self.side_fact_formula(fact);
            self.solver.assert(&f);
        }
        let mut disjuncts = Vec::new();
        let targets = self.target_reached();
        for (cp, reached) in &targets {
            let Some(inv) = outside.get(cp) else { continue };
            let escape = match inv {
                None => Bool::from_bool(true),
                Some(ds) => {
                    let outs: Vec<Bool> = ds
                        .iter()
                        .map(|d| {
                            let fs: Vec<Bool> = d
                                .iter()
                                .map(|c| self.cons_formula(c, Some(*cp)).not())
                                .collect();
                            Bool::or(&fs)
                        })
                        .collect();
                    Bool::and(&outs)
                }
            };
            disjuncts.push(Bool::and(&[reached.clone(), escape]));
        }
        for p in blocked {
            let edges: Vec<Bool> = p
                .edges
                .iter()
                .filter_map(|e| self.taken.get(e).cloned())
                .collect();
            self.solver.assert(&Bool::and(&edges).not());
        }
        self.solver.assert(&Bool::or(&disjuncts));
        let keys: BTreeMap<CutPointId, Option<Vec<LinCons>>> =
            outside.keys().map(|cp| (*cp, None)).collect();
        self.answer(&keys, deadline)
    }

    /// Asks for a path from a state satisfying some disjunct of `from` and every polynomial
    /// equality `e = 0` of `from_equalities` (over the values live at the source) to a target
    /// cut point `p2` of `violated` where some equality of `violated[p2]` fails (an empty
    /// list: any arrival). Products are encoded as the formula was built
    /// ([`Products::Exact`] for an exact answer); the equalities themselves are exact
    /// non-linear terms over the readings.
    pub fn query_equalities(
        &mut self,
        from: &[Vec<LinCons>],
        from_equalities: &[Polynomial],
        violated: &BTreeMap<CutPointId, Vec<Polynomial>>,
        timeout: std::time::Duration,
    ) -> QueryResult {
        let deadline = std::time::Instant::now() + timeout.max(std::time::Duration::from_millis(1));
        if let Err(why) = self.load(deadline) {
            return QueryResult::Unknown(why);
        }
        let stray = from
            .iter()
            .flatten()
            .flat_map(|c| c.expr.vars())
            .chain(
                from_equalities
                    .iter()
                    .chain(violated.values().flatten())
                    .flat_map(|p| p.vars()),
            )
            .find(|var| self.layout.value(*var).is_none());
        if let Some(var) = stray {
            return QueryResult::Unknown(Unknown::NotAValue(var));
        }
        self.solver.push();
        self.assert_starts(from);
        for e in from_equalities {
            let t = self.poly_term(e, None);
            self.solver.assert(&t.eq(Int::from_i64(0)));
        }
        let targets = self.target_reached();
        let mut disjuncts = Vec::new();
        for (cp, reached) in &targets {
            let Some(eqs) = violated.get(cp) else {
                continue;
            };
            let escape = if eqs.is_empty() {
                Bool::from_bool(true)
            } else {
                let fails: Vec<Bool> = eqs
                    .iter()
                    .map(|e| self.poly_term(e, Some(*cp)).eq(Int::from_i64(0)).not())
                    .collect();
                Bool::or(&fails)
            };
            disjuncts.push(Bool::and(&[reached.clone(), escape]));
        }
        self.solver.assert(&Bool::or(&disjuncts));
        let keys: BTreeMap<CutPointId, Option<Vec<LinCons>>> =
            violated.keys().map(|cp| (*cp, None)).collect();
        self.answer(&keys, deadline)
    }

    /// Makes the solver take in the region's assertions before `deadline`.
    ///
    /// z3 4.8 preprocesses and internalizes pending assertions at the first `push`, with
    /// cancellation suspended, so on a large region (thousands of blocks inlined into one
    /// function) that `push` ignores every timeout. A `check` runs the same work under the
    /// timeout: with an assumption `l` and `¬l` asserted, it ends as soon as the assertions
    /// are in, without a search.
    fn load(&mut self, deadline: std::time::Instant) -> Result<(), Unknown> {
        if self.loaded {
            return Ok(());
        }
        let probe = Bool::fresh_const("load");
        self.solver.assert(&probe.not());
        match check_until(
            &self.solver,
            &[probe],
            deadline,
            &self.injected,
            self.work_limit,
        ) {
            SatResult::Unknown => Err(Unknown::Loading(self.solver.get_reason_unknown())),
            SatResult::Sat | SatResult::Unsat => {
                self.loaded = true;
                Ok(())
            }
        }
    }

    /// Follows the taken edges of a model from the source to a target cut point.
    fn extract_path(
        &self,
        model: &z3::Model,
        outside: &BTreeMap<CutPointId, Option<Vec<LinCons>>>,
    ) -> Option<FocusPath> {
        let mut edges = Vec::new();
        let mut at = self.source_block;
        for _ in 0..=self.reach.len() {
            let next = self
                .taken
                .range((at, 0)..(at, usize::MAX))
                .find(|(_, t)| model.eval(*t, true).and_then(|v| v.as_bool()) == Some(true))
                .map(|(k, _)| *k)?;
            edges.push(next);
            // Where does this edge lead: a target cut point or another region block?
            let leads_to_target = self.edge_target_cut(next);
            match leads_to_target {
                Some(cp) if outside.contains_key(&cp) => {
                    return Some(FocusPath {
                        source: self.source,
                        target: cp,
                        edges,
                    });
                }
                Some(_) => return None,
                None => at = self.edge_target_block(next)?,
            }
        }
        None
    }

    fn edge_target_cut(&self, edge: (BlockId, usize)) -> Option<CutPointId> {
        self.edge_targets.get(&edge).and_then(|t| match t {
            EdgeTarget::Cut(c) => Some(*c),
            EdgeTarget::Block(_) => None,
        })
    }

    fn edge_target_block(&self, edge: (BlockId, usize)) -> Option<BlockId> {
        self.edge_targets.get(&edge).and_then(|t| match t {
            EdgeTarget::Block(b) => Some(*b),
            EdgeTarget::Cut(_) => None,
        })
    }
}

impl RegionFormula {
    fn fresh_int(&mut self, prefix: &str) -> Int {
        self.fresh += 1;
        Int::new_const(format!("{prefix}!{}", self.fresh))
    }

    /// Takes `cost` from the budget of exact encodings; false (and nothing taken) when
    /// it is spent.
    fn spend_exact(&mut self, cost: u32) -> bool {
        if self.exact_cost_left < cost {
            return false;
        }
        self.exact_cost_left -= cost;
        true
    }

    /// Whether `lhs op rhs` (an addition, subtraction or product) in reading `di` is its
    /// result's reading without wrap-around: with the poison flag of that reading (then
    /// the result is asserted within the range wherever it is reached, and a term that
    /// is not reached is never read: every use of a value is dominated by its
    /// definition), or for a product of a value by a constant when the value's known
    /// range ([`RegionFormula::narrow`]) times the constant stays within the range. Such
    /// a result is exact and linear without any integer of its own, so a product takes
    /// nothing from the budget of exact encodings (`mul nsw i, 3` and `4 * sext(j)`, the
    /// offsets of array accesses).
    #[allow(clippy::too_many_arguments)]
    fn no_wrap(
        &self,
        op: BinOp,
        interp: &[Interp],
        lhs: &Operand,
        rhs: &Operand,
        flags: crate::ir::ArithFlags,
        ty: Ty,
        di: Interp,
    ) -> bool {
        if (flags.nsw && di == Interp::Signed) || (flags.nuw && di == Interp::Unsigned) {
            return true;
        }
        let (value, c) = match (op, lhs, rhs) {
            (BinOp::Mul, x, Operand::Const(c)) | (BinOp::Mul, Operand::Const(c), x) => (x, *c),
            _ => return false,
        };
        let (lo, hi) = match value {
            Operand::Value(v) if interp[v.index()] == di && self.defined[v.index()] => {
                match self.narrow.get(v) {
                    Some(r) => r.clone(),
                    None => return false,
                }
            }
            _ => return false,
        };
        let k = const_reading(c, di);
        let (a, b) = (&lo * &k, &hi * &k);
        let (min, max) = if a <= b { (a, b) } else { (b, a) };
        let (rlo, rhi) = range(ty, di);
        min >= rlo && max <= rhi
    }

    /// The term of a bit count of `arg` (of type `ty`): the leading or trailing zeros of its
    /// unsigned reading as a chain of tests of its bits, exact; the bits set as the sum of
    /// its bits within the budget of exact encodings, else a fresh value in `[0, width]`.
    fn bit_count(
        &mut self,
        func: &Function,
        interp: &[Interp],
        count: crate::ir::BitCount,
        arg: &Operand,
        ty: Ty,
        di: Interp,
    ) -> Int {
        use crate::ir::BitCount;
        let w = ty.width;
        // A count reads the same in both readings only when `width` is a positive signed
        // value of the type.
        if w < 3 {
            return self.fresh_in_range(ty, di, "bitcount");
        }
        let a = self.reading(func, interp, arg, Interp::Unsigned);
        let k = |n: u32| Int::from_u64(u64::from(n));
        match count {
            // The sum of the operand's bits, within the budget of exact encodings.
            BitCount::Ones if self.spend_exact(w / 8) => {
                let bits = self.operand_bits(func, interp, arg, w);
                bits.iter().fold(k(0), |sum, b| sum + b.clone())
            }
            BitCount::Ones => {
                let x = self.fresh_int("ctpop");
                self.solver.assert(&Bool::and(&[x.ge(k(0)), x.le(k(w))]));
                x
            }
            // Built from the innermost test out: the outermost tests the highest bit.
            BitCount::LeadingZeros => (0..w).fold(k(w), |rest, bit| {
                a.ge(big(&pow2(bit))).ite(&k(w - 1 - bit), &rest)
            }),
            // The outermost tests the lowest bit: bit `i` is set when the remainder modulo
            // `2^(i+1)` is at least `2^i`.
            BitCount::TrailingZeros => (0..w).rev().fold(k(w), |rest, bit| {
                let low = a.modulo(big(&pow2(bit + 1)));
                low.ge(big(&pow2(bit))).ite(&k(bit), &rest)
            }),
        }
    }

    /// A fresh value in the range of a reading.
    fn fresh_in_range(&mut self, ty: Ty, interp: Interp, prefix: &str) -> Int {
        let x = self.fresh_int(prefix);
        let (lo, hi) = range(ty, interp);
        self.solver
            .assert(&Bool::and(&[x.ge(big(&lo)), x.le(big(&hi))]));
        x
    }

    /// The term of an operand in the operand's own reading (values) or in `want` (constants).
    fn operand_in(
        &mut self,
        func: &Function,
        interp: &[Interp],
        op: &Operand,
        want: Interp,
    ) -> Int {
        match op {
            Operand::Const(c) => big(&const_reading(*c, want)),
            Operand::Undef(ty) => self.fresh_in_range(*ty, want, "undef"),
            Operand::Value(v) => self.value_term(func, interp, *v),
        }
    }

    /// The term of an operand in its own reading (constants: the signed reading).
    fn operand(&mut self, func: &Function, interp: &[Interp], op: &Operand) -> Int {
        let want = match op {
            Operand::Value(v) => interp[v.index()],
            _ => Interp::Signed,
        };
        self.operand_in(func, interp, op, want)
    }

    /// The term of an operand converted to the reading `want`.
    fn reading(&mut self, func: &Function, interp: &[Interp], op: &Operand, want: Interp) -> Int {
        let ty = func.operand_ty(op);
        match op {
            Operand::Value(v) if interp[v.index()] != want => {
                let x = self.value_term(func, interp, *v);
                convert(&x, ty, interp[v.index()], want)
            }
            _ => self.operand_in(func, interp, op, want),
        }
    }

    /// The term of a value: defined in the region, or an input of the source copy.
    fn value_term(&mut self, func: &Function, interp: &[Interp], v: ValueId) -> Int {
        if let Some(t) = &self.terms[v.index()] {
            return t.clone();
        }
        let info = func.value(v);
        let t = self.fresh_in_range(info.ty, interp[v.index()], &format!("in_v{}", v.0));
        self.terms[v.index()] = Some(t.clone());
        t
    }

    /// `e mod 2^w` in the destination's reading: `e - k·2^w` within range, `k` fresh.
    fn wrap(&mut self, e: Int, ty: Ty, interp: Interp) -> Int {
        let k = self.fresh_int("k");
        let r = e - k * big(&pow2(ty.width));
        let (lo, hi) = range(ty, interp);
        self.solver
            .assert(&Bool::and(&[r.ge(big(&lo)), r.le(big(&hi))]));
        r
    }

    fn ite_chain(
        &mut self,
        func: &Function,
        interp: &[Interp],
        alts: &[(Bool, Operand)],
        dest: ValueId,
    ) -> Int {
        let want = interp[dest.index()];
        let mut acc: Option<Int> = None;
        for (t, op) in alts.iter().rev() {
            let v = self.reading(func, interp, op, want);
            acc = Some(match acc {
                None => v,
                Some(rest) => t.ite(&v, &rest),
            });
        }
        acc.unwrap_or_else(|| self.fresh_in_range(func.value(dest).ty, want, "phi"))
    }

    fn cmp(
        &mut self,
        func: &Function,
        interp: &[Interp],
        pred: CmpPred,
        lhs: &Operand,
        rhs: &Operand,
    ) -> Bool {
        let want = match (pred, lhs, rhs) {
            // Equal bits are equal readings in either reading: take an operand's own, so
            // that no conversion is needed when both have it.
            (CmpPred::Eq | CmpPred::Ne, Operand::Value(v), _)
            | (CmpPred::Eq | CmpPred::Ne, _, Operand::Value(v)) => interp[v.index()],
            (CmpPred::Eq | CmpPred::Ne, _, _) => Interp::Unsigned,
            (p, _, _) if p.is_unsigned() => Interp::Unsigned,
            _ => Interp::Signed,
        };
        let a = self.reading(func, interp, lhs, want);
        let b = self.reading(func, interp, rhs, want);
        match pred {
            CmpPred::Eq => a.eq(&b),
            CmpPred::Ne => a.eq(&b).not(),
            CmpPred::Ult | CmpPred::Slt => a.lt(&b),
            CmpPred::Ule | CmpPred::Sle => a.le(&b),
            CmpPred::Ugt | CmpPred::Sgt => a.gt(&b),
            CmpPred::Uge | CmpPred::Sge => a.ge(&b),
        }
    }

    fn encode_inst(&mut self, func: &Function, interp: &[Interp], inst: &Inst, reached: &Bool) {
        match inst {
            Inst::Havoc { dest, .. } => {
                let t = self.fresh_in_range(func.value(*dest).ty, interp[dest.index()], "havoc");
                self.terms[dest.index()] = Some(t);
            }
            Inst::Assume { cond } => {
                let c = self.operand_in(func, interp, cond, Interp::Unsigned);
                self.solver.assert(&reached.implies(c.eq(Int::from_i64(1))));
            }
            Inst::Assign { dest, expr } => {
                let t = self.encode_expr(func, interp, *dest, expr, reached);
                self.terms[dest.index()] = Some(t);
            }
            Inst::Mem(_) => unreachable!("{}", crate::ir::MEMORY_IS_LOWERED),
        }
    }

    fn encode_expr(
        &mut self,
        func: &Function,
        interp: &[Interp],
        dest: ValueId,
        expr: &Expr,
        reached: &Bool,
    ) -> Int {
        let ty = func.value(dest).ty;
        let di = interp[dest.index()];
        let one = Int::from_i64(1);
        let zero = Int::from_i64(0);
        match expr {
            Expr::Use(op) => self.reading(func, interp, op, di),
            Expr::Cmp { pred, lhs, rhs } => {
                let c = self.cmp(func, interp, *pred, lhs, rhs);
                c.ite(&one, &zero)
            }
            Expr::Select {
                cond,
                on_true,
                on_false,
            } => {
                let c = self.operand_in(func, interp, cond, Interp::Unsigned);
                let a = self.reading(func, interp, on_true, di);
                let b = self.reading(func, interp, on_false, di);
                c.eq(Int::from_i64(1)).ite(&a, &b)
            }
            Expr::BitCount { count, arg } => self.bit_count(func, interp, *count, arg, ty, di),
            Expr::Cast { op, arg } => match op {
                CastOp::Trunc => {
                    let a = self.operand(func, interp, arg);
                    self.wrap(a, ty, di)
                }
                CastOp::ZExt | CastOp::SExt => {
                    let want = if *op == CastOp::ZExt {
                        Interp::Unsigned
                    } else {
                        Interp::Signed
                    };
                    // The extended value's reading lies in the narrower type's range: a
                    // zero extension in both readings (its top bit is clear), a sign
                    // extension in the signed one.
                    let narrow_ty = func.operand_ty(arg);
                    if narrow_ty.width < ty.width && (want == di || *op == CastOp::ZExt) {
                        self.narrow.insert(dest, range(narrow_ty, want));
                    }
                    let a = self.reading(func, interp, arg, want);
                    // The extended reading fits the wider type; convert to the destination's.
                    convert(&a, ty, want, di)
                }
            },
            Expr::Binary {
                op,
                lhs,
                rhs,
                flags,
            } => {
                let rhs_const = match rhs {
                    Operand::Const(c) => Some(*c),
                    _ => None,
                };
                match op {
                    BinOp::Add | BinOp::Sub | BinOp::Mul => {
                        if *op == BinOp::Mul
                            && rhs_const.is_none()
                            && !matches!(lhs, Operand::Const(_))
                            && self.products == Products::Free
                        {
                            // Non-linear: any value of the range, but nsw/nuw still
                            // exclude nothing we could express linearly.
                            return self.fresh_in_range(ty, di, "mul");
                        }
                        let fits = self.no_wrap(*op, interp, lhs, rhs, *flags, ty, di);
                        if *op == BinOp::Mul
                            && self.products == Products::Free
                            && !fits
                            && !self.spend_exact(1)
                        {
                            return self.fresh_in_range(ty, di, "mul");
                        }
                        for (promised, reading) in
                            [(flags.nsw, Interp::Signed), (flags.nuw, Interp::Unsigned)]
                        {
                            if promised {
                                let a = self.reading(func, interp, lhs, reading);
                                let b = self.reading(func, interp, rhs, reading);
                                let e = arith(*op, &a, &b);
                                let (lo, hi) = range(ty, reading);
                                self.solver.assert(
                                    &reached.implies(Bool::and(&[e.ge(big(&lo)), e.le(big(&hi))])),
                                );
                            }
                        }
                        if fits {
                            let a = self.reading(func, interp, lhs, di);
                            let b = self.reading(func, interp, rhs, di);
                            return arith(*op, &a, &b);
                        }
                        let a = self.operand_in(func, interp, lhs, di);
                        let b = self.operand_in(func, interp, rhs, di);
                        let e = arith(*op, &a, &b);
                        self.wrap(e, ty, di)
                    }
                    BinOp::Shl => match rhs_const {
                        Some(c) if c.unsigned() < ty.width as u128 && self.spend_exact(1) => {
                            let a = self.operand_in(func, interp, lhs, di);
                            let e = a * big(&pow2(c.unsigned() as u32));
                            self.wrap(e, ty, di)
                        }
                        _ => self.fresh_in_range(ty, di, "shl"),
                    },
                    BinOp::UDiv
                    | BinOp::URem
                    | BinOp::LShr
                    | BinOp::SDiv
                    | BinOp::SRem
                    | BinOp::AShr => {
                        let signed = matches!(op, BinOp::SDiv | BinOp::SRem | BinOp::AShr);
                        let reading = if signed {
                            Interp::Signed
                        } else {
                            Interp::Unsigned
                        };
                        let divisor: Option<BigInt> = match (op, rhs_const) {
                            (BinOp::LShr | BinOp::AShr, Some(c))
                                if c.unsigned() < ty.width as u128 =>
                            {
                                Some(pow2(c.unsigned() as u32))
                            }
                            (BinOp::UDiv | BinOp::URem, Some(c)) if c.unsigned() > 0 => {
                                Some(BigInt::from(c.unsigned()))
                            }
                            (BinOp::SDiv | BinOp::SRem, Some(c)) if c.signed() > 0 => {
                                Some(BigInt::from(c.signed()))
                            }
                            _ => None,
                        };
                        let by_value = divisor.is_none();
                        let Some(c) = divisor.filter(|_| self.spend_exact(1)) else {
                            let q = self.fresh_in_range(ty, di, "div");
                            if by_value && matches!(op, BinOp::UDiv | BinOp::LShr) {
                                // What the numeric domains say of it (`bound_quotient`).
                                let a = self.reading(func, interp, lhs, Interp::Unsigned);
                                let r = self.reading(func, interp, rhs, Interp::Unsigned);
                                let below = Bool::and(&[q.ge(Int::from_i64(0)), q.le(&a)]);
                                let fact = match (op, di) {
                                    (BinOp::LShr, Interp::Unsigned) => below,
                                    (BinOp::LShr, Interp::Signed) => Bool::from_bool(true),
                                    (_, Interp::Unsigned) => r.ge(Int::from_i64(1)).implies(&below),
                                    (_, Interp::Signed) => r.ge(Int::from_i64(2)).implies(&below),
                                };
                                self.solver.assert(&reached.implies(&fact));
                            }
                            return q;
                        };
                        let a = self.reading(func, interp, lhs, reading);
                        let q = self.fresh_int("q");
                        let r = self.fresh_int("r");
                        let cz = big(&c);
                        let cm1 = big(&(&c - BigInt::one()));
                        let def = a.eq(&(q.clone() * cz.clone() + r.clone()));
                        let floor = matches!(op, BinOp::AShr) || !signed;
                        let rem_ok = if floor {
                            Bool::and(&[r.ge(Int::from_i64(0)), r.le(&cm1)])
                        } else {
                            // Truncating division: the remainder has the sign of `a`.
                            let pos = Bool::and(&[r.ge(Int::from_i64(0)), r.le(&cm1)]);
                            let neg =
                                Bool::and(&[r.le(Int::from_i64(0)), r.ge(&cm1.unary_minus())]);
                            a.ge(Int::from_i64(0)).ite(&pos, &neg)
                        };
                        self.solver.assert(&Bool::and(&[def, rem_ok]));
                        let res = if matches!(op, BinOp::URem | BinOp::SRem) {
                            r
                        } else {
                            q
                        };
                        convert_exact_or_wrap(self, res, ty, reading, di)
                    }
                    BinOp::And | BinOp::Or | BinOp::Xor if ty.is_bool() => {
                        let a = self
                            .operand_in(func, interp, lhs, Interp::Unsigned)
                            .eq(Int::from_i64(1));
                        let b = self
                            .operand_in(func, interp, rhs, Interp::Unsigned)
                            .eq(Int::from_i64(1));
                        let r = match op {
                            BinOp::And => Bool::and(&[a, b]),
                            BinOp::Or => Bool::or(&[a, b]),
                            _ => a.xor(&b),
                        };
                        r.ite(&one, &zero)
                    }
                    BinOp::And | BinOp::Or | BinOp::Xor if !self.spend_exact(ty.width / 8) => {
                        self.fresh_in_range(ty, di, "bitwise")
                    }
                    BinOp::And | BinOp::Or | BinOp::Xor => {
                        // Exact, and still linear: both operands decomposed into bits.
                        let a_bits = self.operand_bits(func, interp, lhs, ty.width);
                        let b_bits = self.operand_bits(func, interp, rhs, ty.width);
                        let mut sum = Int::from_i64(0);
                        for (i, (x, y)) in a_bits.iter().zip(&b_bits).enumerate() {
                            let r = self.fresh_int("bit");
                            // A bit: without these bounds `0 & 1` could be -1 and `1 | 1`
                            // could be 2 (an over-approximation that lost `x & 1`).
                            self.solver.assert(&Bool::and(&[
                                r.ge(Int::from_i64(0)),
                                r.le(Int::from_i64(1)),
                            ]));
                            let (x, y) = (x.clone(), y.clone());
                            let xy = x.clone() + y.clone();
                            let cons = match op {
                                BinOp::And => {
                                    vec![r.le(&x), r.le(&y), r.ge(&(xy - Int::from_i64(1)))]
                                }
                                BinOp::Or => vec![r.ge(&x), r.ge(&y), r.le(&xy)],
                                _ => vec![
                                    r.ge(&(x.clone() - y.clone())),
                                    r.ge(&(y.clone() - x.clone())),
                                    r.le(&xy),
                                    r.le(&(Int::from_i64(2) - xy.clone())),
                                ],
                            };
                            self.solver.assert(&Bool::and(&cons));
                            sum = sum + r * big(&pow2(i as u32));
                        }
                        convert(&sum, ty, Interp::Unsigned, di)
                    }
                }
            }
        }
    }

    fn edge_guards(&mut self, func: &Function, interp: &[Interp], term: &Terminator) -> Vec<Bool> {
        match term {
            Terminator::Jump(_) => vec![Bool::from_bool(true)],
            Terminator::Branch { cond, .. } => {
                let c = self
                    .operand_in(func, interp, cond, Interp::Unsigned)
                    .eq(Int::from_i64(1));
                vec![c.clone(), c.not()]
            }
            Terminator::Switch { on, cases, .. } => {
                let want = match on {
                    Operand::Value(v) => interp[v.index()],
                    _ => Interp::Signed,
                };
                let x = self.operand_in(func, interp, on, want);
                let mut guards: Vec<Bool> = cases
                    .iter()
                    .map(|(c, _)| x.eq(big(&const_reading(*c, want))))
                    .collect();
                let none = Bool::and(&guards.iter().map(|g| g.not()).collect::<Vec<_>>());
                guards.push(none);
                guards
            }
            Terminator::Return | Terminator::Stop | Terminator::Error(_) => vec![],
        }
    }

    /// A linear constraint over value dimensions, on the source copy (`at == None`) or on
    /// the destination copy of a target cut point. The caller has checked that every
    /// dimension is a value's ([`Self::query_disjunctive`]).
    fn cons_formula(&mut self, c: &LinCons, at: Option<CutPointId>) -> Bool {
        let mut sum = big(c.expr.constant_part());
        for (var, k) in c.expr.terms() {
            let v = self
                .layout
                .value(var)
                .expect("checked by query_disjunctive");
            let term = match at {
                Some(cp) => match self.targets.get(&cp).and_then(|(_, primed)| primed.get(&v)) {
                    Some(t) => t.clone(),
                    None => self.input_or_region_term(v),
                },
                None => self.input_term(v),
            };
            sum = sum + term * big(k);
        }
        match c.kind {
            ConsKind::Eq => sum.eq(Int::from_i64(0)),
            ConsKind::Ge => sum.ge(Int::from_i64(0)),
        }
    }

    /// Asks for a path from a state of `from` with the `facts` at the source to a target cut
    /// point `q` of `kept` where one of `kept[q]`, read on the values the path leaves there,
    /// fails: `Unsat` means the facts are kept by every path of the region (consecution).
    pub fn query_facts_kept(
        &mut self,
        from: &[Vec<LinCons>],
        facts: &[SideFact],
        kept: &BTreeMap<CutPointId, Vec<SideFact>>,
        timeout: std::time::Duration,
    ) -> QueryResult {
        let deadline = std::time::Instant::now() + timeout.max(std::time::Duration::from_millis(1));
        if let Err(why) = self.load(deadline) {
            return QueryResult::Unknown(why);
        }
        self.solver.push();
        self.assert_starts(from);
        for fact in facts {
            let f = self.side_fact_formula(fact);
            self.solver.assert(&f);
        }
        let targets = self.target_reached();
        let mut disjuncts = Vec::new();
        for (cp, reached) in &targets {
            let Some(kept) = kept.get(cp) else { continue };
            let mut broken: Vec<Bool> = kept
                .iter()
                .map(|f| self.fact_at_target(f, *cp).not())
                .collect();
            // A fact can only be kept by values read as the source reads them.
            broken.push(self.misread_at(*cp));
            disjuncts.push(Bool::and(&[reached.clone(), Bool::or(&broken)]));
        }
        self.solver.assert(&Bool::or(&disjuncts));
        let keys: BTreeMap<CutPointId, Option<Vec<LinCons>>> =
            kept.keys().map(|cp| (*cp, None)).collect();
        self.answer(&keys, deadline)
    }

    /// A fact read on the values a path leaves at target `cp` (negated by the caller, so
    /// `mod` rather than a fresh multiple).
    fn fact_at_target(&mut self, fact: &SideFact, cp: CutPointId) -> Bool {
        let (t, residue, modulus) = match fact {
            SideFact::Congruence {
                value,
                residue,
                modulus,
            } => (self.target_term(*value, cp), residue, modulus),
            SideFact::Linear {
                terms,
                residue,
                modulus,
            } => {
                let mut sum = Int::from_i64(0);
                for (v, k) in terms {
                    sum = sum + self.target_term(*v, cp) * big(k);
                }
                (sum, residue, modulus)
            }
            SideFact::Bounds { terms, lo, hi } => {
                let mut sum = Int::from_i64(0);
                for (v, k) in terms {
                    sum = sum + self.target_term(*v, cp) * big(k);
                }
                return bounds_formula(&sum, lo, hi);
            }
        };
        if modulus.is_zero() {
            t.eq(big(residue))
        } else {
            (t - big(residue)).modulo(big(modulus)).eq(Int::from_i64(0))
        }
    }

    /// The term of value `v` on the values a path leaves at target `cp`.
    fn target_term(&mut self, v: ValueId, cp: CutPointId) -> Int {
        match self.targets.get(&cp).and_then(|(_, primed)| primed.get(&v)) {
            Some(t) => t.clone(),
            None => self.input_or_region_term(v),
        }
    }

    /// Asks for a path from a state of `from` with the `facts` at the source to target
    /// `cp` that ends outside `outside` (some of its facts fails on the values the path
    /// leaves there; `None`: any arrival), and returns the readings of `values` there in
    /// the solver's model. A relational analysis joins such points until none is left.
    pub fn query_point_outside(
        &mut self,
        from: &[Vec<LinCons>],
        facts: &[SideFact],
        cp: CutPointId,
        outside: Option<&[SideFact]>,
        values: &[ValueId],
        timeout: std::time::Duration,
    ) -> PointResult {
        let deadline = std::time::Instant::now() + timeout.max(std::time::Duration::from_millis(1));
        if let Err(why) = self.load(deadline) {
            return PointResult::Unknown(why);
        }
        let Some(reached) = self.targets.get(&cp).map(|(r, _)| r.clone()) else {
            return PointResult::Unsat;
        };
        self.solver.push();
        self.assert_starts(from);
        for fact in facts {
            let f = self.side_fact_formula(fact);
            self.solver.assert(&f);
        }
        let escape = match outside {
            None => Bool::from_bool(true),
            Some(kept) => {
                let broken: Vec<Bool> = kept
                    .iter()
                    .map(|f| self.fact_at_target(f, cp).not())
                    .collect();
                Bool::or(&broken)
            }
        };
        self.solver.assert(&Bool::and(&[reached, escape]));
        let terms: Vec<Int> = values.iter().map(|v| self.target_term(*v, cp)).collect();
        let res = match check_until(&self.solver, &[], deadline, &self.injected, self.work_limit) {
            SatResult::Unsat => PointResult::Unsat,
            SatResult::Unknown => PointResult::Unknown(Unknown::Solver(
                self.solver.get_reason_unknown().unwrap_or_default(),
            )),
            SatResult::Sat => match self.solver.get_model() {
                None => PointResult::Unknown(Unknown::NoModel),
                Some(model) => {
                    let point: Option<Vec<BigInt>> = terms
                        .iter()
                        .map(|t| model.eval(t, true).and_then(|n| parse_numeral(&n)))
                        .collect();
                    match point {
                        Some(p) => PointResult::Point(p),
                        None => PointResult::Unknown(Unknown::NoModel),
                    }
                }
            },
        };
        self.solver.pop(1);
        res
    }

    /// Asserts that the path starts in some disjunct of `from`.
    fn assert_starts(&mut self, from: &[Vec<LinCons>]) {
        let starts: Vec<Bool> = from
            .iter()
            .map(|d| {
                let fs: Vec<Bool> = d.iter().map(|c| self.cons_formula(c, None)).collect();
                Bool::and(&fs)
            })
            .collect();
        self.solver.assert(&Bool::or(&starts));
    }

    /// Each target cut point with its "reached" literal.
    fn target_reached(&self) -> Vec<(CutPointId, Bool)> {
        self.targets
            .iter()
            .map(|(cp, (r, _))| (*cp, r.clone()))
            .collect()
    }

    /// Checks the query pushed by the caller before `deadline`, pops it, and reads a path
    /// to one of `keys` from a model.
    fn answer(
        &mut self,
        keys: &BTreeMap<CutPointId, Option<Vec<LinCons>>>,
        deadline: std::time::Instant,
    ) -> QueryResult {
        let res = match check_until(&self.solver, &[], deadline, &self.injected, self.work_limit) {
            SatResult::Unsat => QueryResult::Unsat,
            SatResult::Unknown => QueryResult::Unknown(Unknown::Solver(
                self.solver.get_reason_unknown().unwrap_or_default(),
            )),
            SatResult::Sat => match self.solver.get_model() {
                None => QueryResult::Unknown(Unknown::NoModel),
                Some(model) => match self.extract_path(&model, keys) {
                    Some(p) => QueryResult::Path(p),
                    None => QueryResult::Unknown(Unknown::NoPath),
                },
            },
        };
        self.solver.pop(1);
        res
    }

    fn side_fact_formula(&mut self, fact: &SideFact) -> Bool {
        let (t, residue, modulus) = match fact {
            SideFact::Congruence {
                value,
                residue,
                modulus,
            } => (self.input_term(*value), residue, modulus),
            SideFact::Linear {
                terms,
                residue,
                modulus,
            } => {
                let mut sum = Int::from_i64(0);
                for (v, k) in terms {
                    sum = sum + self.input_term(*v) * big(k);
                }
                (sum, residue, modulus)
            }
            SideFact::Bounds { terms, lo, hi } => {
                let mut sum = Int::from_i64(0);
                for (v, k) in terms {
                    sum = sum + self.input_term(*v) * big(k);
                }
                return bounds_formula(&sum, lo, hi);
            }
        };
        if modulus.is_zero() {
            t.eq(big(residue))
        } else {
            // Asserted, never negated: the multiple can be a fresh integer, which keeps the
            // query linear (z3's `mod` made it time out).
            let k = self.fresh_int("mult");
            t.eq(big(residue) + k * big(modulus))
        }
    }

    /// The exact term of a polynomial over value dimensions, at the source (`None`) or at
    /// a target cut point (its primed terms).
    fn poly_term(&mut self, p: &Polynomial, at: Option<CutPointId>) -> Int {
        let mut sum = Int::from_i64(0);
        for (m, c) in p.terms() {
            let mut product = big(c);
            for (var, e) in m.powers() {
                let v = self
                    .layout
                    .value(*var)
                    .expect("checked by query_equalities");
                let term = match at {
                    Some(cp) => {
                        match self.targets.get(&cp).and_then(|(_, primed)| primed.get(&v)) {
                            Some(t) => t.clone(),
                            None => self.input_or_region_term(v),
                        }
                    }
                    None => self.input_term(v),
                };
                for _ in 0..*e {
                    product = product * term.clone();
                }
            }
            sum = sum + product;
        }
        sum
    }

    /// The source copy of a value: its input constant (the region may also define it, when
    /// it is a phi of the source cut point redefined on the way back; inputs are distinct).
    fn input_term(&mut self, v: ValueId) -> Int {
        if !self.defined[v.index()] {
            return self.input_or_region_term(v);
        }
        if let Some(t) = self.inputs.get(&v) {
            return t.clone();
        }
        let t = self.fresh_value(v, "old_v");
        self.inputs.insert(v, t.clone());
        t
    }

    fn input_or_region_term(&mut self, v: ValueId) -> Int {
        if let Some(t) = &self.terms[v.index()] {
            return t.clone();
        }
        // Not used in the region: an input constrained only by its reading's range.
        let t = self.fresh_value(v, "in_v");
        self.terms[v.index()] = Some(t.clone());
        t
    }

    /// A fresh constant for value `v`, in the range of its reading.
    fn fresh_value(&mut self, v: ValueId, prefix: &str) -> Int {
        let t = self.fresh_int(&format!("{prefix}{}", v.0));
        let (lo, hi) = self.ranges[v.index()].clone();
        self.solver
            .assert(&Bool::and(&[t.ge(big(&lo)), t.le(big(&hi))]));
        t
    }

    /// True when a primed term of target `cp` lies outside the range of its value's
    /// reading: the encoding then reads the value differently at the target than at a
    /// source (a bug the relational congruences once met, a constant moved into an
    /// unsigned phi read signed). Signed and unsigned readings of the same bits are
    /// congruent modulo `2^w` and each range holds one of every class, so a primed term in
    /// range is the right reading; certification asks for this to be unsat.
    fn misread_at(&self, cp: CutPointId) -> Bool {
        let Some((_, primed)) = self.targets.get(&cp) else {
            return Bool::from_bool(false);
        };
        let out: Vec<Bool> = primed
            .iter()
            .map(|(v, t)| {
                let (lo, hi) = &self.ranges[v.index()];
                Bool::or(&[t.lt(big(lo)), t.gt(big(hi))])
            })
            .collect();
        Bool::or(&out)
    }

    /// The range of value `v`'s reading.
    pub fn reading_range(&self, v: ValueId) -> (BigInt, BigInt) {
        self.ranges[v.index()].clone()
    }

    /// Whether a point the solver gave for `values` (in that order) has a value outside
    /// its reading's range: a state no execution has, so the formula misread a target.
    pub fn misreads_point(&self, values: &[ValueId], point: &[BigInt]) -> bool {
        values.iter().zip(point).any(|(v, r)| {
            let (lo, hi) = &self.ranges[v.index()];
            r < lo || r > hi
        })
    }

    /// Asks for a path from a state of `from` to a target cut point whose primed terms
    /// read some value outside its reading's range ([`Self::misread_at`]): `Unsat` means
    /// the encoding reads the values the same way at the targets as at the source (a check
    /// of the encoding, independent of any invariant at the targets; certification runs it).
    pub fn query_misread(
        &mut self,
        from: &[Vec<LinCons>],
        timeout: std::time::Duration,
    ) -> QueryResult {
        let deadline = std::time::Instant::now() + timeout.max(std::time::Duration::from_millis(1));
        if let Err(why) = self.load(deadline) {
            return QueryResult::Unknown(why);
        }
        self.solver.push();
        self.assert_starts(from);
        let targets = self.target_reached();
        let disjuncts: Vec<Bool> = targets
            .iter()
            .map(|(cp, reached)| Bool::and(&[reached.clone(), self.misread_at(*cp)]))
            .collect();
        self.solver.assert(&Bool::or(&disjuncts));
        let keys: BTreeMap<CutPointId, Option<Vec<LinCons>>> =
            targets.iter().map(|(cp, _)| (*cp, None)).collect();
        self.answer(&keys, deadline)
    }
}

fn arith(op: BinOp, a: &Int, b: &Int) -> Int {
    match op {
        BinOp::Add => a.clone() + b.clone(),
        BinOp::Sub => a.clone() - b.clone(),
        _ => a.clone() * b.clone(),
    }
}

impl RegionFormula {
    /// The bits of an operand's unsigned reading: a constant's own bits (so that the solver
    /// need not find them: `x & 5` with `x ≡ 5 mod 8` took it about 2 s, bin-suffix-5),
    /// otherwise [`Self::bits`].
    fn operand_bits(
        &mut self,
        func: &Function,
        interp: &[Interp],
        op: &Operand,
        width: u32,
    ) -> Vec<Int> {
        match op {
            Operand::Const(c) => (0..width)
                .map(|i| Int::from_i64(((c.unsigned() >> i) & 1) as i64))
                .collect(),
            _ => {
                let x = self.reading(func, interp, op, Interp::Unsigned);
                self.bits(&x, width)
            }
        }
    }

    /// The bits of an unsigned reading: fresh 0/1 integers `b_i` with `x = Σ b_i·2^i`.
    fn bits(&mut self, x: &Int, width: u32) -> Vec<Int> {
        let mut sum = Int::from_i64(0);
        let mut res = Vec::new();
        for i in 0..width {
            let b = self.fresh_int("b");
            self.solver.assert(&Bool::and(&[
                b.ge(Int::from_i64(0)),
                b.le(Int::from_i64(1)),
            ]));
            sum = sum + b.clone() * big(&pow2(i));
            res.push(b);
        }
        // Only within the range: a term outside it belongs to a block the path does not
        // reach (a result without wrap-around, [`RegionFormula::no_wrap`]), and must not
        // make the formula unsatisfiable on the paths that do not reach it.
        let in_range = Bool::and(&[
            x.ge(Int::from_i64(0)),
            x.le(big(&(pow2(width) - BigInt::one()))),
        ]);
        self.solver.assert(&in_range.implies(x.eq(&sum)));
        res
    }
}

/// Converts an exact non-negative-or-in-range result from one reading to another.
fn convert_exact_or_wrap(enc: &mut RegionFormula, x: Int, ty: Ty, from: Interp, to: Interp) -> Int {
    if from == to {
        return x;
    }
    let _ = enc;
    convert(&x, ty, from, to)
}

/// Converts a term from one reading of a `ty` value to another.
fn convert(x: &Int, ty: Ty, from: Interp, to: Interp) -> Int {
    let m = big(&pow2(ty.width));
    match (from, to) {
        (a, b) if a == b => x.clone(),
        (Interp::Signed, _) => x.lt(Int::from_i64(0)).ite(&(x.clone() + m), x),
        (Interp::Unsigned, _) => x.gt(big(&BigInt::from(ty.smax()))).ite(&(x.clone() - m), x),
    }
}

fn range(ty: Ty, interp: Interp) -> (BigInt, BigInt) {
    match interp {
        Interp::Signed => (BigInt::from(ty.smin()), BigInt::from(ty.smax())),
        Interp::Unsigned => (BigInt::zero(), BigInt::from(ty.umax())),
    }
}

fn const_reading(c: Const, interp: Interp) -> BigInt {
    match interp {
        Interp::Signed => BigInt::from(c.signed()),
        Interp::Unsigned => BigInt::from(c.unsigned()),
    }
}

fn pow2(k: u32) -> BigInt {
    BigInt::one() << k as usize
}

/// The integer of a z3 numeral (`12`, `(- 12)`).
fn parse_numeral(n: &Int) -> Option<BigInt> {
    let text = n.to_string();
    let t = text.trim();
    match t.strip_prefix("(-").and_then(|r| r.strip_suffix(')')) {
        Some(neg) => neg.trim().parse::<BigInt>().ok().map(|v| -v),
        None => t.parse::<BigInt>().ok(),
    }
}

fn big(x: &BigInt) -> Int {
    match x.to_i64() {
        Some(v) => Int::from_i64(v),
        None => Int::from_str(&x.to_string()).expect("decimal integers parse"),
    }
}

#[allow(dead_code)]
fn is_negative(x: &BigInt) -> bool {
    x.is_negative()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    /// A query z3 cannot settle quickly: sums of three cubes equal to 33 (the smallest
    /// solution has 16-digit numbers).
    fn hard_solver() -> Solver {
        let solver = Solver::new();
        let cube = |name: &str| {
            let v = Int::new_const(name);
            Int::mul(&[&v, &v, &v])
        };
        let sum = Int::add(&[&cube("x"), &cube("y"), &cube("z")]);
        solver.assert(&sum.eq(Int::from_i64(33)));
        solver
    }

    #[test]
    fn a_deadline_already_past_gives_unknown_without_asking() {
        let solver = hard_solver();
        let answer = check_until(&solver, &[], Instant::now(), &InjectedUnknowns::every(0), 0);
        assert_eq!(answer, SatResult::Unknown);
    }

    #[test]
    fn a_check_past_its_deadline_returns_unknown() {
        let solver = hard_solver();
        let start = Instant::now();
        let answer = check_until(
            &solver,
            &[],
            start + Duration::from_millis(200),
            &InjectedUnknowns::every(0),
            0,
        );
        assert_eq!(answer, SatResult::Unknown);
        // Liveness, not speed: without the interrupts the check runs for ever.
        assert!(start.elapsed() < Duration::from_secs(60));
    }
}
