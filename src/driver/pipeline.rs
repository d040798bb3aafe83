//! The stages that analyze one function, over a table of verdicts.
//!
//! The stages are values of a list (`stages.rs`): each says when it is wanted, its share of
//! the function's budget, and how it runs; [`interval_pass`] walks the list of the driver's
//! first pass (the interval stage) and [`run`] the list of its second pass:
//!
//! ```text
//! pass 1: interval analysis
//! pass 2: (short search) -> (algebraic polynomial equalities) -> analysis (the engine)
//!   -> polynomial equalities -> congruences -> (short search) -> care sets -> refinement
//!   -> relational congruences -> template bounds -> counterexample search -> verdicts
//! ```
//!
//! - interval analysis (`fixpoint.rs`): the classic engine over intervals, first and cheap;
//!   it proves the assertions whose error site gets no interval invariant, and its
//!   invariants become facts ([`CutFacts`]) that the engine and refinement meet into every
//!   state at a cut point.
//! - analysis (`fixpoint.rs`): the chosen engine over the chosen domain.
//! - polynomial equalities (`polyeq.rs`, `analysis::polyeq`): equalities at loop heads found
//!   by linear algebra, before the engine for a function that multiplies values, and after
//!   it with the engine's invariants and the solver.
//! - congruences (`congruences.rs`): an open error site that no path reaches from the
//!   engine's invariants and the congruences of the values is proved.
//! - counterexample search (`search.rs`): a short one, before the engine in a function that
//!   reads memory and after the congruences elsewhere, and the full one with the rest of
//!   the budget; a counterexample counts only once replayed natively.
//! - care sets (`careset.rs`, `analysis::careset`) and refinement (`refinement.rs`,
//!   `analysis::refine`): re-runs of the engine guided backwards from the open error sites.
//! - relational congruences and template bounds (`relational.rs`): affine lattices and
//!   bounds of linear templates at cut points, found by the solver next to the engine's
//!   invariants.
//!
//! **Invariant (monotonicity):** every stage reads and writes the verdicts through a
//! [`VerdictTable`], which only lets it settle an open assertion (proved or violated): no
//! later stage can lose what an earlier one settled, whatever it computes. The verdicts
//! of the report are derived from the table in one place ([`VerdictTable::into_results`]).

use super::verdicts::{Open, VerdictTable};
use super::{cause, AnalysisConfig, DomainKind, Engine, Purpose};
use crate::analysis::certify::CutInvariants;
use crate::analysis::congruence::Congruences;
use crate::analysis::focus::CutFacts;
use crate::analysis::lower::Lowering;
use crate::analysis::relational_congruence::RelationalCongruences;
use crate::analysis::{Deadline, FunctionContext, Outcome};
use crate::budget::MemoryBudget;
use crate::cex::CexConfig;
use crate::check::{
    BudgetKind, BudgetLimit, CheckResult, CheckRun, DomainTypeStats, LoopInvariant,
    RefinementStats, RunEnd, StageEnd, StageRun,
};
use crate::ir::{BlockId, Function, Module, Terminator};
use stages::{Clock, Step};
use std::time::{Duration, Instant};

mod careset;
mod congruences;
mod fixpoint;
mod polyeq;
mod refinement;
mod relational;
mod search;
mod stages;

/// What the analysis of one function produced.
pub(super) struct FunctionOutcome {
    /// In the order of `Function::checks`.
    pub results: Vec<CheckResult>,
    pub invariants: Vec<LoopInvariant>,
    pub at_cut_points: Option<CutInvariants>,
    pub refinement: Option<RefinementStats>,
    pub end: RunEnd,
    /// The stages that ran, in order.
    pub stages: Vec<StageRun>,
    /// In the order of `Function::checks`.
    pub times: Vec<CheckRun>,
    /// How the values were classified, when the engine ran with domain types.
    pub domain_types: Option<DomainTypeStats>,
}

/// The verdicts and the record of the stages of one function, which every stage updates.
struct Progress {
    /// The verdicts, in the order of `Function::checks`.
    table: VerdictTable,
    /// In the order of `Function::checks`.
    times: Vec<CheckRun>,
    /// The stages that ran, in order.
    stages: Vec<StageRun>,
    /// The time the function's analysis took in pass 1 (the interval stage), which counts
    /// in its time budget.
    pass_one: Duration,
}

impl Progress {
    fn new(func: &Function) -> Progress {
        Progress {
            table: VerdictTable::open(func.checks(), Open::Imprecise),
            times: func.checks().into_iter().map(CheckRun::new).collect(),
            stages: Vec::new(),
            pass_one: Duration::ZERO,
        }
    }

    /// Whether some assertion is open because the invariants do not exclude it.
    fn any_imprecise(&self) -> bool {
        self.table.any_imprecise()
    }
}

/// The facts of one function the stages share, computed once: the function's context
/// (readings, reduced graph, liveness, layout: `analysis::FunctionContext`), its lowering
/// and its error blocks.
struct Facts<'f> {
    ctx: &'f FunctionContext<'f>,
    lowering: Lowering<'f>,
    /// The error blocks, in the order of `Function::checks`.
    error_blocks: Vec<BlockId>,
    /// The heap budget of the pass, shared by its stages (one count from the pass's start,
    /// so that what an earlier stage keeps counts against the later ones).
    memory: MemoryBudget,
}

impl<'f> Facts<'f> {
    fn new(ctx: &'f FunctionContext<'f>, memory: MemoryBudget) -> Facts<'f> {
        let func = ctx.func();
        let lowering = Lowering::new(ctx);
        let error_blocks = func
            .blocks
            .iter()
            .enumerate()
            .filter_map(|(i, b)| match b.term {
                Terminator::Error(_) => Some(BlockId(i as u32)),
                _ => None,
            })
            .collect();
        Facts {
            ctx,
            lowering,
            error_blocks,
            memory,
        }
    }
}

/// What a fixpoint run computed: the invariants the later stages and the report use.
struct Found {
    /// How the run ended.
    outcome: Outcome,
    /// Per cut point, the invariant of the last complete run, as a disjunction.
    at_cut_points: Vec<Option<Vec<Vec<crate::domain::LinCons>>>>,
    /// The invariants at loop heads of the last complete run, for people.
    loop_invariants: Vec<LoopInvariant>,
}

/// The relational congruences of a function and the congruences they were found next to:
/// what the template bounds start from.
struct RelationalFacts {
    classes: Congruences,
    relations: RelationalCongruences,
}

/// What the stages of one function read and update, passed from stage to stage (and from
/// pass 1 to pass 2).
struct State {
    progress: Progress,
    /// The invariants the later stages start from: the interval stage's (when it reached
    /// its fixpoint), then the engine's, then those of a care-set or refinement round that
    /// proved something.
    found: Option<Found>,
    /// How the last run that gave the function's invariants ended (the interval stage's,
    /// then the engine's).
    end: RunEnd,
    /// Whether the polynomial equalities before the engine tried every degree.
    equalities_exhausted: bool,
    /// How the values were classified, when the engine ran with domain types.
    domain_types: Option<DomainTypeStats>,
    refinement: Option<RefinementStats>,
    /// The relational congruences, when that stage reached its fixpoint and asked every
    /// query in time.
    relational: Option<RelationalFacts>,
}

impl State {
    fn new(func: &Function) -> State {
        State {
            progress: Progress::new(func),
            found: None,
            end: RunEnd::Finished,
            equalities_exhausted: false,
            domain_types: None,
            refinement: None,
            relational: None,
        }
    }

    /// Whether the invariants the stages start from are a fixpoint's.
    fn complete(&self) -> bool {
        self.found
            .as_ref()
            .is_some_and(|f| f.outcome == Outcome::Complete)
    }
}

/// What the stages of one pass read and never change.
struct Inputs<'a> {
    func: &'a Function,
    module: &'a Module,
    /// The configuration, its `timeout` the function's budget for the pass.
    config: &'a AnalysisConfig,
    /// The counterexample search's configuration, when there is a search.
    cex: Option<&'a CexConfig>,
    facts: &'a Facts<'a>,
    /// The interval stage's invariants as facts (none in pass 1, or when it gave none).
    cut_facts: &'a CutFacts,
    clock: Clock,
    /// Whether the function reads memory the model keeps as summaries or leaves arbitrary.
    reads_memory: bool,
}

impl Inputs<'_> {
    /// Whether refinement and the stages that prepare it run: path focusing with refinement.
    fn refines(&self) -> bool {
        self.config.refine && self.config.engine == Engine::Focus
    }
}

/// What a stage may spend, resolved from its share when it starts.
struct Allowance {
    /// It starts no work after this instant of the thread's CPU clock (never after the
    /// pass's end).
    until: Instant,
    /// Its budget of work in steps, when its share counts work.
    work: Option<u64>,
    /// For a search after a native build (which `until` limits): the search's own time,
    /// from the build's end.
    search_slice: Option<Duration>,
    /// Its budget of counted work (`domain::stop`), when its share is counted in work.
    meter: Option<u64>,
}

impl Allowance {
    /// The time left until `until`.
    fn left(&self) -> Duration {
        crate::clock::until(self.until)
    }

    /// A deadline at `until`, with the pass's heap budget and the work budget, if any.
    fn deadline(&self, memory: MemoryBudget) -> Deadline {
        let deadline = Deadline::after(self.left()).with_memory(memory);
        match self.work {
            Some(steps) => deadline.with_work(steps),
            None => deadline,
        }
    }
}

/// The list of pass 2 for the configuration's domain. The second domain is the one
/// refinement runs in: predicates need a domain that keeps one numeric state per valuation
/// of the booleans.
fn second_pass(config: &AnalysisConfig, searching: bool) -> Vec<stages::PipelineStage> {
    use crate::domain::predicates::{Partitioned, Product};
    use crate::domain::{IntervalDomain as I, Polyhedron};
    let list = match config.domain {
        DomainKind::Interval => stages::second_pass::<I, Partitioned<I>>,
        DomainKind::Poly => stages::second_pass::<Polyhedron, Partitioned<Polyhedron>>,
        DomainKind::PolyPred => {
            stages::second_pass::<Partitioned<Polyhedron>, Partitioned<Polyhedron>>
        }
        DomainKind::PolyPredProduct => {
            stages::second_pass::<Product<Polyhedron>, Partitioned<Polyhedron>>
        }
        DomainKind::IntervalPred => stages::second_pass::<Partitioned<I>, Partitioned<I>>,
        DomainKind::IntervalPredProduct => stages::second_pass::<Product<I>, Partitioned<I>>,
    };
    list(&config.params, searching)
}

/// The outcome of a function that is not analyzed: every assertion unknown, for `reason`;
/// no stage ran.
pub(super) fn not_analyzed(
    func: &Function,
    module: &Module,
    left_out: &crate::ir::Unanalyzable,
) -> FunctionOutcome {
    let checks = func.checks();
    let times = checks.iter().map(|c| CheckRun::new(*c)).collect();
    FunctionOutcome {
        results: VerdictTable::open(checks, left_open(left_out)).into_results(module, |_| None),
        invariants: vec![],
        at_cut_points: None,
        refinement: None,
        end: if left_out.over_budget {
            RunEnd::Budget(BudgetKind::FrontEnd)
        } else {
            RunEnd::Finished
        },
        stages: vec![],
        times,
        domain_types: None,
    }
}

/// Why the checks of a function the analysis leaves out are open: the front end's budget
/// (the reason, with the function's size, is among the module's warnings), or semantics
/// that are not modeled.
pub(super) fn left_open(left_out: &crate::ir::Unanalyzable) -> Open {
    if left_out.over_budget {
        Open::Stopped(BudgetLimit::FrontEnd(left_out.reason.clone()))
    } else {
        Open::Unsupported(left_out.reason.clone())
    }
}

/// Whether the configuration runs the interval stage first (pass 1): every one but classic
/// over intervals, which is that stage, unless `-Z interval-pass=off`.
pub(super) fn is_staged(config: &AnalysisConfig) -> bool {
    config.params.stages.interval_pass
        && !(config.engine == Engine::Classic && config.domain == DomainKind::Interval)
}

/// What pass 1 (the interval stage) left of one function for pass 2.
pub(super) struct Staged(State);

/// Pass 1 of one function: the interval stage, within its budget of work
/// ([`crate::params::StageParams::interval_work`]) and the time `budget` (a safety net).
pub(super) fn interval_pass(
    func: &Function,
    module: &Module,
    config: &AnalysisConfig,
    cex: Option<&CexConfig>,
    budget: Duration,
) -> Staged {
    let clock = Clock::new(crate::clock::now(), budget, &config.params);
    let mut state = State::new(func);
    if budget.is_zero() {
        // The run's budget is spent: not even the context is built.
        state.end = RunEnd::Timeout;
        return Staged(state);
    }
    crate::progress::stage(|| Step::Interval.reported().name().into());
    let pass = Pass {
        func,
        module,
        config,
        cex,
        clock,
    };
    let started = Instant::now();
    pass.run(&CutFacts::none(), |inputs| {
        stages::walk(&stages::first_pass(&config.params), inputs, &mut state)
    });
    state.progress.pass_one = started.elapsed();
    Staged(state)
}

/// Whether pass 2 has work for a function pass 1 left as `staged`: an assertion left
/// open, or invariants of the chosen engine asked for.
pub(super) fn needs_more(staged: &Staged, config: &AnalysisConfig) -> bool {
    config.purpose == Purpose::Invariants || staged.0.progress.any_imprecise()
}

/// The outcome of a function pass 1 settled (or that has nothing to settle): its interval
/// invariants and verdicts.
pub(super) fn finish(func: &Function, module: &Module, staged: Staged) -> FunctionOutcome {
    let Staged(state) = staged;
    let (invariants, at_cut_points) = match state.found {
        Some(found) => (
            found.loop_invariants,
            Some(CutInvariants {
                function: func.name.clone(),
                at_cut_point: found.at_cut_points,
            }),
        ),
        None => (vec![], None),
    };
    FunctionOutcome {
        results: state.progress.table.into_results(module, |_| None),
        invariants,
        at_cut_points,
        refinement: None,
        end: state.end,
        stages: state.progress.stages,
        times: state.progress.times,
        domain_types: None,
    }
}

/// The outcome of a function whose analysis panicked (a bug): the panic took the table with
/// it, so every assertion stays open, for the bug.
pub(super) fn panicked(func: &Function, module: &Module, what: String) -> FunctionOutcome {
    FunctionOutcome {
        results: VerdictTable::open(func.checks(), Open::InternalError(what.clone()))
            .into_results(module, |_| None),
        invariants: vec![],
        at_cut_points: None,
        refinement: None,
        end: RunEnd::InternalError(what),
        stages: vec![],
        times: vec![],
        domain_types: None,
    }
}

/// Pass 2 of one function: the wanted stages of its list in order, then the verdicts.
/// `staged` is what pass 1 (the interval stage) left, `None` when the configuration is
/// itself classic over intervals; `budget` is what the stages may spend, counted from now
/// (the driver makes it `--timeout` at most, less the time of pass 1, or less: the
/// function's share of the run's budget). With no budget, nothing runs and the open
/// assertions are reported with it.
pub(super) fn run(
    func: &Function,
    module: &Module,
    config: &AnalysisConfig,
    cex: Option<&CexConfig>,
    budget: Duration,
    staged: Option<Staged>,
) -> FunctionOutcome {
    let clock = Clock::new(crate::clock::now(), budget, &config.params);
    let mut state = match staged {
        Some(Staged(state)) => state,
        None => State::new(func),
    };
    if budget.is_zero() {
        return state.out_of_time(module, config);
    }
    crate::progress::stage(|| Step::Engine.reported().name().into());
    let cut_facts = state
        .found
        .as_ref()
        .map(|f| CutFacts::from_disjunctions(&f.at_cut_points))
        .unwrap_or_default();
    let pass = Pass {
        func,
        module,
        config,
        cex,
        clock,
    };
    pass.run(&cut_facts, |inputs| {
        let list = second_pass(inputs.config, cex.is_some());
        stages::walk(&list, inputs, &mut state);
        state.into_outcome(inputs)
    })
}

/// One pass over a function, before its context is built.
struct Pass<'a> {
    func: &'a Function,
    module: &'a Module,
    config: &'a AnalysisConfig,
    cex: Option<&'a CexConfig>,
    clock: Clock,
}

impl Pass<'_> {
    /// Builds the function's context and facts (their time counts in the pass's budget)
    /// and runs `f` with the inputs of the pass, the interval stage's invariants as
    /// `cut_facts`.
    fn run<R>(&self, cut_facts: &CutFacts, f: impl FnOnce(&Inputs<'_>) -> R) -> R {
        let started = Instant::now();
        crate::clock::mark();
        let ctx = FunctionContext::new(self.func, &self.config.params);
        let config = AnalysisConfig {
            timeout: self.clock.budget,
            ..self.config.clone()
        };
        let facts = Facts::new(&ctx, MemoryBudget::from_now(config.memory_per_function));
        if self.config.params.trace.work {
            eprintln!(
                "polyfocus: work: {} Context {:.3} s",
                self.func.name,
                started.elapsed().as_secs_f64()
            );
        }
        f(&Inputs {
            func: self.func,
            module: self.module,
            config: &config,
            cex: self.cex,
            facts: &facts,
            cut_facts,
            clock: self.clock,
            reads_memory: search::reads_memory(self.func),
        })
    }
}

impl State {
    /// The outcome of a pass 2 that had no budget: nothing ran, and what is open is open
    /// for the time: the run's budget does not reach the function (its plan gave it none,
    /// or its safety stop passed), or pass 1 took the function's whole budget.
    fn out_of_time(mut self, module: &Module, config: &AnalysisConfig) -> FunctionOutcome {
        let limit = if self.progress.pass_one >= config.timeout {
            BudgetLimit::Time(self.progress.pass_one)
        } else {
            BudgetLimit::RunSpent
        };
        self.progress.table.stop_open(Open::Stopped(limit));
        FunctionOutcome {
            results: self.progress.table.into_results(module, |_| None),
            invariants: self
                .found
                .map(|found| found.loop_invariants)
                .unwrap_or_default(),
            at_cut_points: None,
            refinement: None,
            end: RunEnd::Timeout,
            stages: self.progress.stages,
            times: self.progress.times,
            domain_types: None,
        }
    }

    /// The outcome of a pass 2 that walked its stages: the verdicts, with the first cause
    /// that blocks each assertion still unknown (found from the program and the
    /// invariants only, not from how far a search got), and the invariants.
    fn into_outcome(self, inputs: &Inputs<'_>) -> FunctionOutcome {
        let (func, facts) = (inputs.func, inputs.facts);
        // The engine is wanted whenever no invariants were found before it.
        debug_assert!(
            self.found.is_some(),
            "{}: no invariants after pass 2",
            func.name
        );
        let found = self.found.unwrap_or(Found {
            outcome: Outcome::Timeout,
            at_cut_points: vec![],
            loop_invariants: vec![],
        });
        let results = self.progress.table.into_results(inputs.module, |i| {
            cause::cause_of(
                func,
                facts.ctx.graph(),
                &found.loop_invariants,
                facts.error_blocks[i],
            )
        });
        let complete = found.outcome == Outcome::Complete;
        FunctionOutcome {
            results,
            invariants: found.loop_invariants,
            at_cut_points: complete.then(|| CutInvariants {
                function: func.name.clone(),
                at_cut_point: found.at_cut_points,
            }),
            refinement: self.refinement,
            end: self.end,
            stages: self.progress.stages,
            times: self.progress.times,
            domain_types: self.domain_types,
        }
    }
}

/// Which checks are still imprecise, and the cut points of their error sites: what
/// refinement and the care-set stage grow their predicates or care sets from.
fn imprecise_error_sites(
    facts: &Facts<'_>,
    table: &VerdictTable,
) -> (Vec<bool>, Vec<crate::graph::CutPointId>) {
    let open: Vec<bool> = (0..facts.error_blocks.len())
        .map(|i| table.is_imprecise(i))
        .collect();
    let errors = facts
        .error_blocks
        .iter()
        .zip(&open)
        .filter(|(_, open)| **open)
        .filter_map(|(b, _)| facts.ctx.graph().cut_of_block(*b))
        .collect();
    (open, errors)
}

/// A stage settles only open assertions, so the table never refuses; if it did (a bug in
/// the stage: a failed debug assertion in the table), the settled verdict stays, which is
/// the sound choice: what a stage settled rests on a proof or a replayed execution.
fn settled(r: Result<(), super::verdicts::AlreadySettled>) {
    let _ = r;
}

/// Why the assertions an engine left open are open, when it stopped with `stopped` in a
/// function whose budgets are `time` and `memory` (bytes).
fn open_for(stopped: Outcome, time: Duration, memory: usize) -> Open {
    match stopped {
        Outcome::Timeout => Open::Stopped(BudgetLimit::Time(time)),
        Outcome::Budget => Open::Stopped(BudgetLimit::SolverWork),
        Outcome::Memory => Open::Stopped(BudgetLimit::Memory(memory)),
        Outcome::Complete => Open::Imprecise,
    }
}

fn stage_end(outcome: Outcome) -> StageEnd {
    match outcome {
        Outcome::Complete => StageEnd::Finished,
        Outcome::Timeout => StageEnd::Timeout,
        Outcome::Budget => StageEnd::Budget(BudgetKind::Analysis),
        Outcome::Memory => StageEnd::Budget(BudgetKind::Memory),
    }
}

fn run_end(outcome: Outcome) -> RunEnd {
    match outcome {
        Outcome::Complete => RunEnd::Finished,
        Outcome::Timeout => RunEnd::Timeout,
        Outcome::Budget => RunEnd::Budget(BudgetKind::Analysis),
        Outcome::Memory => RunEnd::Budget(BudgetKind::Memory),
    }
}
