//! The stages that analyze one function, over a table of verdicts.
//!
//! ```text
//! Interval -> (QuickCex) -> (algebraic polynomial equalities) -> Engine -> polynomial equalities
//!   -> Congruences -> (QuickCex) -> CareSet -> Refine -> relational congruences -> FullCex
//!   -> verdicts
//! ```
//!
//! - [`Step::Interval`]: the classic engine over intervals (what `-Z engine=classic
//!   -Z domain=interval` runs), first and cheap (milliseconds per function, seconds on a whole
//!   project): it proves the assertions whose error site gets no interval invariant, and
//!   its invariants become facts ([`CutFacts`]) that the engine and refinement meet into
//!   every state at a cut point. Skipped when the chosen configuration is itself classic
//!   over intervals. Reported as `interval analysis`.
//! - [`Step::Engine`]: the chosen engine over the chosen domain; proves the assertions whose
//!   error site gets no invariant. It runs only when the interval stage left an assertion
//!   open. Reported as the stage `analysis`.
//! - [`Step::Congruences`]: the engine's invariants with the congruences of the values
//!   (`analysis::congruence`): an open error site no path reaches from them is proved.
//!   Reported as `congruences`; runs only when the engine finished and left one open.
//! - [`Step::QuickCex`]: a short counterexample search (issue 7), so that the engine and
//!   refinement, which cannot help with a real bug, do not use up the budget of one. In a
//!   function that reads memory it runs before the engine (issue 15: on arrays the engine
//!   may not finish, and a bug found only after it was never found), with its own
//!   allowance for the native build; elsewhere after the congruences.
//!   Reported as `counterexample search`.
//! - [`Step::CareSet`]: extrapolation with care sets (seed 002, `analysis::careset`):
//!   care sets grown backwards from the open error sites guide the engine's widening in
//!   a re-run. Reported as `care sets`; `check -Z care-set=off` leaves it out.
//! - [`Step::Refine`]: predicate refinement rounds for the assertions still imprecise.
//!   Reported as `refinement`.
//! - relational congruences (`pipeline/relational.rs`, `analysis::relational_congruence`):
//!   affine lattices of the live values at cut points, found by the solver next to the
//!   engine's invariants; an open error site no path reaches from both is proved; then,
//!   for the sites still open, bounds of linear templates (`analysis::template_bounds`)
//!   found the same way next to both. After
//!   refinement, so that it takes nothing from the shares of the stages before, within its
//!   own share; reported as `congruences` (detail `relational: ...`);
//!   `check -Z relational-congruences=off` leaves it out.
//! - [`Step::FullCex`]: the counterexample search with the rest of the budget (issue 6).
//!   Reported as `counterexample search`.
//!
//! **Invariant (monotonicity):** every stage reads and writes the verdicts through a
//! [`VerdictTable`], which only lets it settle an open assertion (proved or violated): no
//! later stage can lose what an earlier one settled, whatever it computes. The verdicts
//! of the report are derived from the table in one place ([`VerdictTable::into_results`]).
//!
//! Each stage gets its share of the function's budget from [`StageParams`].

use super::engine::{loop_invariants_of, run_engine, Run};
use super::verdicts::{Open, VerdictTable};
use super::{cause, AnalysisConfig, DomainKind, Engine, Purpose};
use crate::analysis::certify::CutInvariants;
use crate::analysis::focus::CutFacts;
use crate::analysis::lower::Lowering;
use crate::analysis::refine::{LocalPredicates, SlotAssignment};
use crate::analysis::{Deadline, FunctionContext, Outcome};
use crate::budget::MemoryBudget;
use crate::cex::{CexConfig, CexOutcome};
use crate::check::{
    BudgetKind, CheckResult, CheckRun, LoopInvariant, RefinementStats, RunEnd, Stage, StageEnd,
    StageRun,
};
use crate::domain::{IntervalDomain, NumericDomain};
use crate::ir::{BlockId, CheckId, CheckKind, Function, Module, Terminator};
use crate::params::StageParams;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

mod careset;
mod relational;

/// The stages of the pipeline, in the order they run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// The classic engine over intervals, before the chosen engine.
    Interval,
    /// The short counterexample search (before the engine in a function reading memory,
    /// else after the congruences).
    QuickCex,
    /// The engine over the chosen domain.
    Engine,
    /// The engine's invariants with congruences.
    Congruences,
    /// Extrapolation with care sets (seed 002).
    CareSet,
    /// Predicate refinement.
    Refine,
    /// The counterexample search with the rest of the budget.
    FullCex,
}

impl Step {
    /// The stage under which reports list it (names fixed by issue 13).
    fn reported(self) -> Stage {
        match self {
            Step::Interval => Stage::IntervalAnalysis,
            Step::Engine => Stage::Analysis,
            Step::Congruences => Stage::Congruences,
            Step::CareSet => Stage::CareSet,
            Step::Refine => Stage::Refinement,
            Step::QuickCex | Step::FullCex => Stage::CounterexampleSearch,
        }
    }
}

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
    pub domain_types: Option<crate::check::DomainTypeStats>,
}

/// What every stage of one function reads and updates.
struct Progress {
    /// The verdicts, in the order of `Function::checks`.
    table: VerdictTable,
    /// In the order of `Function::checks`.
    times: Vec<CheckRun>,
    /// The stages that ran, in order.
    stages: Vec<StageRun>,
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

/// What the engine (and then refinement) computed: the invariants the later stages and the
/// report use.
struct Found {
    /// How the engine's run ended.
    outcome: Outcome,
    /// Per cut point, the invariant of the last complete run, as a disjunction.
    at_cut_points: Vec<Option<Vec<Vec<crate::domain::LinCons>>>>,
    /// The invariants at loop heads of the last complete run, for people.
    loop_invariants: Vec<LoopInvariant>,
}

/// Pass 2 of one function: every stage after the interval stage in order, then the
/// verdicts. `staged` is what pass 1 (the interval stage) left, `None` when the
/// configuration is itself classic over intervals; `budget` is what the stages may spend,
/// counted from now (the driver makes it `--timeout` at most, less the time of pass 1, or
/// less: the function's share of the run's budget). With no budget, nothing runs and the
/// open assertions are reported with it.
pub(super) fn run(
    func: &Function,
    module: &Module,
    config: &AnalysisConfig,
    cex: Option<&CexConfig>,
    budget: Duration,
    staged: Option<Staged>,
) -> FunctionOutcome {
    use crate::domain::predicates::{Partitioned, Product};
    use crate::domain::Polyhedron;
    type I = IntervalDomain;
    // The second domain is the one refinement runs in: predicates need a domain that
    // keeps one numeric state per valuation of the booleans.
    match config.domain {
        DomainKind::Interval => {
            run_in::<I, Partitioned<I>>(func, module, config, cex, budget, staged)
        }
        DomainKind::Poly => {
            run_in::<Polyhedron, Partitioned<Polyhedron>>(func, module, config, cex, budget, staged)
        }
        DomainKind::PolyPred => run_in::<Partitioned<Polyhedron>, Partitioned<Polyhedron>>(
            func, module, config, cex, budget, staged,
        ),
        DomainKind::PolyPredProduct => run_in::<Product<Polyhedron>, Partitioned<Polyhedron>>(
            func, module, config, cex, budget, staged,
        ),
        DomainKind::IntervalPred => {
            run_in::<Partitioned<I>, Partitioned<I>>(func, module, config, cex, budget, staged)
        }
        DomainKind::IntervalPredProduct => {
            run_in::<Product<I>, Partitioned<I>>(func, module, config, cex, budget, staged)
        }
    }
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
        Open::Budget(BudgetKind::FrontEnd)
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
pub(super) struct Staged {
    progress: Progress,
    /// The interval invariants, when the stage reached its fixpoint.
    interval: Option<Found>,
    /// How the interval stage ended.
    outcome: Outcome,
}

/// Pass 1 of one function: the interval stage, within its budget of work
/// ([`StageParams::interval_work`]) and the time `budget` (a safety net).
pub(super) fn interval_pass(func: &Function, config: &AnalysisConfig, budget: Duration) -> Staged {
    let mut progress = Progress::new(func);
    if budget.is_zero() {
        // The run's budget is spent: not even the context is built.
        return Staged {
            progress,
            interval: None,
            outcome: Outcome::Timeout,
        };
    }
    crate::progress::stage(|| Stage::IntervalAnalysis.name().into());
    let ctx = FunctionContext::new(func, &config.params);
    let facts = Facts::new(&ctx, MemoryBudget::from_now(config.memory_per_function));
    let (interval, outcome) = interval_stage(
        &facts,
        budget,
        config.params.stages.interval_work,
        &mut progress,
    );
    Staged {
        progress,
        interval,
        outcome,
    }
}

/// Whether pass 2 has work for a function pass 1 left as `staged`: an assertion left
/// open, or invariants of the chosen engine asked for.
pub(super) fn needs_more(staged: &Staged, config: &AnalysisConfig) -> bool {
    config.purpose == Purpose::Invariants || staged.progress.table.any_imprecise()
}

/// The outcome of a function pass 1 settled (or that has nothing to settle): its interval
/// invariants and verdicts.
pub(super) fn finish(func: &Function, module: &Module, staged: Staged) -> FunctionOutcome {
    let Staged {
        progress,
        interval,
        outcome,
    } = staged;
    let (invariants, at_cut_points) = match interval {
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
        results: progress.table.into_results(module, |_| None),
        invariants,
        at_cut_points,
        refinement: None,
        end: run_end(outcome),
        stages: progress.stages,
        times: progress.times,
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

impl Progress {
    fn new(func: &Function) -> Progress {
        Progress {
            table: VerdictTable::open(func.checks(), Open::Imprecise),
            times: func.checks().into_iter().map(CheckRun::new).collect(),
            stages: Vec::new(),
        }
    }
}

fn run_in<D: NumericDomain, P: NumericDomain>(
    func: &Function,
    module: &Module,
    config: &AnalysisConfig,
    cex: Option<&CexConfig>,
    budget: Duration,
    staged: Option<Staged>,
) -> FunctionOutcome {
    let params = &config.params.stages;
    let started = Instant::now();
    let (mut progress, interval) = match staged {
        Some(s) => (s.progress, s.interval),
        None => (Progress::new(func), None),
    };
    if budget.is_zero() {
        // The run's budget is spent: nothing runs, and what is open is open for it.
        progress.table.stop_open(Open::Timeout);
        return FunctionOutcome {
            results: progress.table.into_results(module, |_| None),
            invariants: interval
                .map(|found| found.loop_invariants)
                .unwrap_or_default(),
            at_cut_points: None,
            refinement: None,
            end: RunEnd::Timeout,
            stages: progress.stages,
            times: progress.times,
            domain_types: None,
        };
    }
    crate::progress::stage(|| Stage::Analysis.name().into());
    let ctx = FunctionContext::new(func, &config.params);
    let facts = Facts::new(&ctx, MemoryBudget::from_now(config.memory_per_function));
    let cut_facts = interval
        .as_ref()
        .map(|f| CutFacts::from_disjunctions(&f.at_cut_points))
        .unwrap_or_default();
    // Every stage shares `budget`, counted from now, and none ends past `ends`.
    let ends = started + budget;
    let rest = AnalysisConfig {
        timeout: budget,
        ..config.clone()
    };
    let config = &rest;
    // The stages between the engine and the full search (polynomial equalities,
    // congruences, care sets, refinement) take their shares of at most
    // `share_reference`: what they prove on `../shared/bench` they prove within the shares
    // of a 10 s budget, and with shares of the default 60 s each spent up to six times
    // longer before the same `unknown` (issue 14).
    let shared = AnalysisConfig {
        timeout: budget.min(params.share_reference),
        ..config.clone()
    };
    let mut domain_types = None;
    // The short search runs before the engine: a shallow bug (an assertion that fails on
    // the first iterations, or in the only execution of a program without inputs) is then
    // refuted even when the engine cannot finish within the budget (segments over arrays
    // make its formulas large), and the engine's time is not lost on a false assertion.
    // Only for a function that reads memory the model keeps as summaries or leaves
    // arbitrary (where the engine's formulas grow with the segments' selects); elsewhere
    // the short search comes after the engine, as before, so that a function the engine
    // settles does not pay for the native build.
    let early = reads_memory(func);
    match cex {
        Some(cex)
            if early
                && config.refine
                && config.engine == Engine::Focus
                && progress.table.any_imprecise() =>
        {
            let slice = (config.timeout / params.quick_search_divisor).min(params.quick_search_cap);
            let build = (Instant::now() + config.timeout / params.early_build_divisor).min(ends);
            search(
                Step::QuickCex,
                &ctx,
                module,
                cex,
                params,
                SearchTime::AfterBuild(build, slice),
                &mut progress,
            );
        }
        _ => {}
    }
    // Polynomial equalities first, algebraically only, with the interval invariants (when
    // the interval stage reached its fixpoint): where they settle every assertion (loops
    // whose invariants are polynomial identities), the engine has nothing left to do, and
    // its time no longer decides whether they are tried.
    let mut pre_exhausted = false;
    let solver_stages = params.solver_stages;
    if config.purpose == Purpose::Verdicts
        && solver_stages
        && progress.table.any_imprecise()
        && has_product_of_values(func)
    {
        let linear = match &interval {
            Some(found) => found.at_cut_points.clone(),
            None => vec![Some(vec![vec![]]); ctx.graph().cut_points.len()],
        };
        let budget = shared
            .timeout
            .mul_f64(params.engine_share / 2.0)
            .min(ends.saturating_duration_since(Instant::now()));
        pre_exhausted = polynomial_equalities(&facts, &linear, false, budget, &mut progress);
    }
    let mut found = match interval {
        // Every assertion is settled (or there is none): the expensive stages have nothing
        // to do, and the interval invariants are the function's.
        Some(found) if !progress.table.any_imprecise() && config.purpose == Purpose::Verdicts => {
            found
        }
        _ => {
            // Domain types: the engine tracks only the relational packs of what is still
            // open; refinement (below) keeps every value.
            let open: Vec<BlockId> = (0..facts.error_blocks.len())
                .filter(|i| progress.table.open_reason(*i).is_some())
                .map(|i| facts.error_blocks[i])
                .collect();
            let engine_facts;
            (engine_facts, domain_types) =
                super::domain_types::engine_facts(&ctx, config, &cut_facts, &open);
            engine::<D>(
                &facts,
                config,
                &engine_facts,
                cex.is_some(),
                started,
                &mut progress,
            )
        }
    };
    let complete = found.outcome == Outcome::Complete;
    // Again with the engine's invariants and the solver; not when the engine gave none and
    // the pass before it tried every degree (it would find the same).
    if solver_stages && progress.table.any_imprecise() && (complete || !pre_exhausted) {
        // The engine's invariants when it reached its fixpoint (certified, see
        // tests/inductive.rs); otherwise none (every cut point may hold any state).
        let linear = match found.outcome {
            Outcome::Complete => found.at_cut_points.clone(),
            _ => vec![Some(vec![vec![]]); ctx.graph().cut_points.len()],
        };
        let budget = (shared.timeout.mul_f64(params.engine_share) / 3)
            .min(ends.saturating_duration_since(Instant::now()));
        polynomial_equalities(&facts, &linear, true, budget, &mut progress);
    }
    if solver_stages && complete && progress.table.any_imprecise() {
        let deadline = started + shared.timeout.mul_f64(params.congruence_share);
        congruences(&facts, &found, params, deadline, &mut progress);
    }
    let refine = config.refine && config.engine == Engine::Focus && complete;
    if let Some(cex) = cex.filter(|_| !early && refine && progress.table.any_imprecise()) {
        // The slice is the search's, after the native build (cached for the full search):
        // on a loaded machine clang alone took it, and the program never ran
        // (McCarthy91-1: 0.25 s of native runs left after the build).
        let slice = (config.timeout / params.quick_search_divisor).min(params.quick_search_cap);
        let build = (Instant::now() + config.timeout / params.early_build_divisor).min(ends);
        search(
            Step::QuickCex,
            &ctx,
            module,
            cex,
            params,
            SearchTime::AfterBuild(build, slice),
            &mut progress,
        );
    }
    if refine && config.params.care_set.enabled && progress.table.any_imprecise() {
        careset::care_set_stage::<D>(
            &facts,
            &shared,
            &cut_facts,
            started,
            ends,
            &mut found,
            &mut progress,
        );
    }
    let refinement = (refine && progress.table.any_imprecise()).then(|| {
        refinement::<P>(
            &facts,
            &shared,
            &cut_facts,
            started,
            ends,
            &mut found,
            &mut progress,
        )
    });
    // After refinement (which the stages before it leave their shares to), before the full
    // search, within its own share of the budget, counted in at most
    // `relational_share_reference` (issue 14: with the default 60 s, its 12 s of template
    // bounds were most of trip_count.c's time to an `unknown`; at 10 s, 2 s, heapsort.i's
    // proof, 2.4 s at load 16, was lost).
    if complete && config.params.precision.relational_congruences && progress.table.any_imprecise()
    {
        let share = config
            .timeout
            .min(params.relational_share_reference)
            .mul_f64(params.relational_congruence_share);
        let deadline = (Instant::now() + share).min(ends);
        relational::relational_congruences(&facts, &found, params, deadline, &mut progress);
    }
    if let Some(cex) = cex {
        let margin = (config.timeout / params.final_margin_divisor).max(params.final_margin_min);
        let deadline = started + config.timeout.saturating_sub(margin);
        // Runtime checks of one function fail independently: after a confirmed one, the
        // search goes on for the others (an assertion search stops at the first, as before).
        while search(
            Step::FullCex,
            &ctx,
            module,
            cex,
            params,
            SearchTime::Until(deadline),
            &mut progress,
        ) {}
    }
    let Progress {
        table,
        times,
        stages,
    } = progress;
    // The first cause that blocks each assertion still unknown, found from the program and
    // the invariants only (not from how far a search got).
    let results = table.into_results(module, |i| {
        cause::cause_of(
            func,
            ctx.graph(),
            &found.loop_invariants,
            facts.error_blocks[i],
        )
    });
    FunctionOutcome {
        results,
        invariants: found.loop_invariants,
        at_cut_points: complete.then(|| CutInvariants {
            function: func.name.clone(),
            at_cut_point: found.at_cut_points,
        }),
        refinement,
        end: run_end(found.outcome),
        stages,
        times,
        domain_types,
    }
}

/// [`Step::Interval`]: the classic engine over intervals, within its share of the budget;
/// proves the assertions whose error site gets no invariant. Returns its invariants when it
/// reached a fixpoint (`None` otherwise: it then settles nothing and gives no facts, and
/// the assertions stay open for the engine).
///
/// Its proofs rest on what `-Z engine=classic -Z domain=interval` proofs rest on: the same
/// lowering and the same certification in the test suite (`tests/inductive.rs` certifies
/// every engine's invariants); they are final in the table like the engine's.
fn interval_stage(
    facts: &Facts<'_>,
    budget: Duration,
    work: u64,
    progress: &mut Progress,
) -> (Option<Found>, Outcome) {
    let started = Instant::now();
    let deadline = Deadline::after(budget)
        .with_memory(facts.memory)
        .with_work(work);
    let mut run: Run<IntervalDomain> = run_engine(
        &facts.lowering,
        Engine::Classic,
        &SlotAssignment::default(),
        &CutFacts::none(),
        &deadline,
    );
    run.outcome = deadline.blame(run.outcome);
    let elapsed = started.elapsed();
    for t in &mut progress.times {
        t.analysis += elapsed;
    }
    let mut n_proved = 0usize;
    if run.outcome == Outcome::Complete {
        for (i, b) in facts.error_blocks.iter().enumerate() {
            if progress.table.open_reason(i).is_some() && run.invariants.at(*b).is_none() {
                settled(progress.table.prove(i));
                n_proved += 1;
            }
        }
    }
    progress.stages.push(StageRun {
        stage: Step::Interval.reported(),
        elapsed,
        end: stage_end(run.outcome),
        detail: Some(format!(
            "{n_proved} of {} assertions proved, {} steps",
            facts.error_blocks.len(),
            deadline.spent()
        )),
    });
    let outcome = run.outcome;
    let found = (outcome == Outcome::Complete).then(|| Found {
        outcome: run.outcome,
        loop_invariants: loop_invariants_of(&facts.lowering, &run),
        at_cut_points: run.at_cut_points,
    });
    (found, outcome)
}

/// [`Step::Engine`]: the engine over `D`; proves the assertions whose error site gets no
/// invariant, or, when it stops before a fixpoint, leaves every assertion open for that.
/// Its time counts from `started`, before the facts were computed.
fn engine<D: NumericDomain>(
    facts: &Facts<'_>,
    config: &AnalysisConfig,
    cut_facts: &CutFacts,
    searching: bool,
    started: Instant,
    progress: &mut Progress,
) -> Found {
    // With a counterexample search to come, the engine leaves it a share of the budget: an
    // engine that cannot finish (a diamond of ten branches over wrapping arithmetic) would
    // otherwise use all of it, and a bug one input away would stay unknown.
    let share = if searching {
        config.params.stages.engine_share
    } else {
        1.0
    };
    let engine_started = Instant::now();
    let mut deadline = Deadline::after(
        config
            .timeout
            .mul_f64(share)
            .saturating_sub(started.elapsed()),
    )
    .with_memory(facts.memory);
    if config.params.stages.engine_work > 0 {
        deadline = deadline.with_work(config.params.stages.engine_work);
    }
    let mut first: Run<D> = run_engine(
        &facts.lowering,
        config.engine,
        &SlotAssignment::default(),
        cut_facts,
        &deadline,
    );
    first.outcome = deadline.blame(first.outcome);
    let elapsed = engine_started.elapsed();
    progress.stages.push(StageRun {
        stage: Step::Engine.reported(),
        elapsed,
        end: stage_end(first.outcome),
        detail: solver_detail(&first.spent),
    });
    for (i, t) in progress.times.iter_mut().enumerate() {
        if progress.table.open_reason(i).is_some() {
            t.analysis += elapsed;
        }
    }
    match first.outcome {
        Outcome::Complete => {
            for (i, b) in facts.error_blocks.iter().enumerate() {
                // Only what the interval stage left open: the table refuses to settle a
                // verdict twice (and a debug build fails its assertion).
                if progress.table.open_reason(i).is_some() && first.invariants.at(*b).is_none() {
                    settled(progress.table.prove(i));
                }
            }
        }
        stopped => progress.table.stop_open(open_for(stopped)),
    }
    Found {
        outcome: first.outcome,
        loop_invariants: loop_invariants_of(&facts.lowering, &first),
        at_cut_points: first.at_cut_points,
    }
}

/// What path focusing asked of the solver, for the report (`None` for the classic
/// engine, which asks nothing).
fn solver_detail(spent: &crate::analysis::focus::SolverSpent) -> Option<String> {
    (spent.queries > 0).then(|| {
        format!(
            "{} solver queries, {} work{}",
            spent.queries,
            spent.work,
            if spent.exhausted {
                " (its budget of solver work is spent)"
            } else {
                ""
            }
        )
    })
}

/// [`Step::Congruences`]: proves each imprecise assertion whose error site no path reaches
/// from the engine's invariant of a cut point together with the congruences of the values
/// live there. Both are true of every execution (the engine's invariants are sound, the
/// congruences too, see `analysis::congruence`), so an unsat query is a proof; a solver
/// `unknown` proves nothing. Exact formulas (bit operations with constants, `x & 5`, are
/// what a congruence helps with); the stage stops at its share of the function's budget.
fn congruences(
    facts: &Facts<'_>,
    found: &Found,
    params: &StageParams,
    deadline: Instant,
    progress: &mut Progress,
) {
    use crate::smt::RegionFormula;
    let started = Instant::now();
    let ctx = facts.ctx;
    let graph = ctx.graph();
    let classes = crate::analysis::congruence::analyze(ctx.func(), ctx.readings());
    let mut formulas: std::collections::BTreeMap<crate::graph::CutPointId, RegionFormula> =
        Default::default();
    let mut proved = 0usize;
    let mut open = 0usize;
    let mut end = StageEnd::Finished;
    for (i, b) in facts.error_blocks.iter().enumerate() {
        if !progress.table.is_imprecise(i) {
            continue;
        }
        open += 1;
        if end == StageEnd::Timeout {
            continue;
        }
        let Some(error) = graph.cut_of_block(*b) else {
            continue;
        };
        let side = |p| Some(classes.facts_at(ctx, p)).filter(|f| !f.is_empty());
        let excluded = match error_unreachable_with(
            facts,
            found,
            error,
            &mut formulas,
            params.congruence_query,
            deadline,
            side,
        ) {
            Some(excluded) => excluded,
            None => {
                end = StageEnd::Timeout;
                false
            }
        };
        if excluded {
            settled(progress.table.prove(i));
            proved += 1;
        }
    }
    progress.stages.push(StageRun {
        stage: Step::Congruences.reported(),
        elapsed: started.elapsed(),
        end,
        detail: Some(format!(
            "{proved} of {open} open assertions proved; {} values with a congruence",
            classes.informative().count()
        )),
    });
}

/// Whether no path reaches the error cut point `error` from the invariants `found` of its
/// predecessors, each with the side facts `side(p)` (congruences, relational or not) as
/// extra hypotheses; `side` gives `None` where it knows nothing, and then nothing is
/// proved. `None` when the deadline passed first. A solver `unknown` is never a proof.
fn error_unreachable_with(
    facts: &Facts<'_>,
    found: &Found,
    error: crate::graph::CutPointId,
    formulas: &mut std::collections::BTreeMap<crate::graph::CutPointId, crate::smt::RegionFormula>,
    query_cap: Duration,
    deadline: Instant,
    mut side: impl FnMut(crate::graph::CutPointId) -> Option<Vec<crate::smt::SideFact>>,
) -> Option<bool> {
    use crate::smt::{Products, QueryResult, RegionFormula};
    let ctx = facts.ctx;
    let graph = ctx.graph();
    let outside = std::collections::BTreeMap::from([(error, None)]);
    for p in graph.ids() {
        let Some(from) = &found.at_cut_points[p.index()] else {
            continue;
        };
        if p == error || !graph.successors(p).contains(&error) {
            continue;
        }
        let Some(side) = side(p) else {
            return Some(false);
        };
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return None;
        }
        let formula = formulas
            .entry(p)
            .or_insert_with(|| RegionFormula::new(ctx, p, Products::Exact));
        match formula.query_with_facts(from, &side, &outside, &[], query_cap.min(left)) {
            QueryResult::Unsat => {}
            QueryResult::Path(_) | QueryResult::Unknown(_) => return Some(false),
        }
    }
    Some(true)
}

/// True when the function multiplies two values (not a value by a constant): without such
/// a product, its assertions are linear and the polynomial stage before the engine would
/// only cost time.
fn has_product_of_values(func: &Function) -> bool {
    use crate::ir::{BinOp, Expr, Inst, Operand};
    func.blocks.iter().flat_map(|b| &b.insts).any(|inst| {
        matches!(
            inst,
            Inst::Assign {
                expr: Expr::Binary {
                    op: BinOp::Mul,
                    lhs: Operand::Value(_),
                    rhs: Operand::Value(_),
                    ..
                },
                ..
            }
        )
    })
}

/// Polynomial equalities at loop heads (issue 17, `analysis::polyeq`), for the assertions
/// still open: found by linear algebra, certified inductive by the solver with the linear
/// invariants `linear`, then each open error site is proved unreachable from them,
/// algebraically, then (with `solver`) with products encoded exactly, or left open.
/// Reported as part of `analysis`. True when every degree was tried (the budget did not
/// cut the search).
fn polynomial_equalities(
    facts: &Facts<'_>,
    linear: &[Option<Vec<Vec<crate::domain::LinCons>>>],
    solver: bool,
    budget: Duration,
    progress: &mut Progress,
) -> bool {
    use crate::analysis::polyeq;
    let open = |table: &VerdictTable| {
        (0..facts.error_blocks.len())
            .filter(|i| table.open_reason(*i).is_some())
            .collect::<Vec<usize>>()
    };
    let graph = facts.ctx.graph();
    let has_loop = graph
        .ids()
        .any(|c| graph.cut_point(c).kind == crate::graph::CutKind::LoopHead);
    if open(&progress.table).is_empty() || !has_loop {
        return true;
    }
    let linear = linear.to_vec();
    let started = Instant::now();
    let deadline = Deadline::after(budget).with_memory(facts.memory);
    // Discovery gets half: the rest is kept for the solver's queries, which need the
    // lowest degree's equalities more often than the higher degrees take to be found.
    let discovering = Deadline::after(budget / 2).with_memory(facts.memory);
    // Degrees in increasing order: the lowest that proves an assertion gives the solver the
    // fewest equalities. First every degree algebraically (no solver: milliseconds), then the
    // solver's queries with the equalities of each degree found, lowest first: a non-linear
    // query often ends `unknown` at its cap, and spending the budget on those at degree 2
    // left no time to find the degree-5 equality of ps5.
    let proved = catch_unwind(AssertUnwindSafe(|| {
        let mut n = 0;
        let mut notes = Vec::new();
        let mut previous: Option<Vec<u32>> = None;
        let mut found_eqs: Vec<(u32, polyeq::PolyEqualities, Option<polyeq::Consecution>)> =
            Vec::new();
        let certify = |eqs: &polyeq::PolyEqualities| {
            let c = polyeq::certify(facts.ctx, &linear, eqs, &deadline);
            debug_assert!(
                c != polyeq::Consecution::Refuted,
                "{}: polynomial equalities not inductive",
                facts.ctx.func().name
            );
            c
        };
        let mut exhausted = true;
        for degree in 2..=facts.ctx.params().polyeq.max_degree {
            if open(&progress.table).is_empty() {
                break;
            }
            if discovering.expired() {
                exhausted = false;
                break;
            }
            let Some(eqs) = polyeq::discover(facts.ctx, degree, &linear, &discovering) else {
                notes.push(format!("degree {degree}: gave up"));
                exhausted = false;
                break;
            };
            if previous.as_ref() == Some(&eqs.degrees) {
                break;
            }
            previous = Some(eqs.degrees.clone());
            if eqs.is_empty() {
                notes.push(format!("degree {degree}: none"));
                continue;
            }
            if found_eqs.last().map(|(_, e, _)| &e.at_cut_point) == Some(&eqs.at_cut_point) {
                continue;
            }
            let algebraic: Vec<usize> = open(&progress.table)
                .into_iter()
                .filter(|i| {
                    facts
                        .ctx
                        .graph()
                        .cut_of_block(facts.error_blocks[*i])
                        .is_some_and(|cp| {
                            let proof = polyeq::Proof::Algebraic;
                            polyeq::prove_unreachable(
                                facts.ctx, &linear, &eqs, cp, proof, &deadline,
                            )
                        })
                })
                .collect();
            // Certified only when about to be used: a path leaving the equalities (a bug)
            // excludes them; an unknown leaves them resting on their construction
            // (`analysis::polyeq`).
            let mut consecution = None;
            if !algebraic.is_empty() {
                let c = certify(&eqs);
                if c == polyeq::Consecution::Refuted {
                    notes.push(format!("degree {degree}: refuted"));
                    break;
                }
                // An `Undecided` equality proves by its construction (an identity over ℤ[x]
                // per path, `analysis::polyeq`), not by the solver's `unknown`. The eighth
                // session's wrong proof of csmith 43046 came from a loop head left with
                // `1 = 0` (no template variable, no path followed into it), which
                // `polyeq::discover` now never keeps where the head is reachable.
                consecution = Some(c);
                for i in &algebraic {
                    settled(progress.table.prove(*i));
                }
                n += algebraic.len();
                notes.push(format!(
                    "degree {degree}: {} proved algebraically ({c:?})",
                    algebraic.len()
                ));
            } else {
                notes.push(format!("degree {degree}: found"));
            }
            found_eqs.push((degree, eqs, consecution));
        }
        for (degree, eqs, consecution) in &found_eqs {
            if !solver || open(&progress.table).is_empty() || deadline.expired() {
                break;
            }
            let c = consecution.unwrap_or_else(|| certify(eqs));
            if c == polyeq::Consecution::Refuted {
                notes.push(format!("degree {degree}: refuted"));
                continue;
            }
            let mut here = 0;
            for i in open(&progress.table) {
                if deadline.expired() {
                    break;
                }
                let Some(cp) = facts.ctx.graph().cut_of_block(facts.error_blocks[i]) else {
                    continue;
                };
                let solver = polyeq::Proof::WithSolver;
                if polyeq::prove_unreachable(facts.ctx, &linear, eqs, cp, solver, &deadline) {
                    settled(progress.table.prove(i));
                    here += 1;
                }
            }
            if here > 0 {
                notes.push(format!(
                    "degree {degree}: {here} proved by the solver ({c:?})"
                ));
            }
            n += here;
        }
        (
            n,
            format!("polynomial equalities: {}", notes.join(", ")),
            exhausted,
        )
    }));
    let (end, detail, exhausted) = match proved {
        Ok((_, detail, exhausted)) => (StageEnd::Finished, detail, exhausted),
        Err(_) => (
            StageEnd::InternalError,
            "polynomial equalities panicked".to_string(),
            false,
        ),
    };
    let elapsed = started.elapsed();
    for t in &mut progress.times {
        t.analysis += elapsed;
    }
    progress.stages.push(StageRun {
        stage: Stage::Analysis,
        elapsed,
        end,
        detail: Some(detail),
    });
    exhausted
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

/// [`Step::Refine`]: rounds of predicate discovery and re-analysis in `P`, for the
/// assertions still imprecise, until none is left, a round finds no new predicate,
/// `max_fruitless_rounds` rounds in a row settle nothing, or the stage's share of the
/// budget runs out (counted from `started`, but at least `refinement_floor` of it from
/// the stage's start, and never past `ends`).
fn refinement<P: NumericDomain>(
    facts: &Facts<'_>,
    config: &AnalysisConfig,
    cut_facts: &CutFacts,
    started: Instant,
    ends: Instant,
    found: &mut Found,
    progress: &mut Progress,
) -> RefinementStats {
    let params = &config.params.stages;
    let func = facts.lowering.func();
    let graph = facts.ctx.graph();
    // The share counted from the function's start, but at least half of it from now: an
    // engine that took most of the share on this machine (copysome1-1: 4 to 5 s of
    // selects, 10 s budget) otherwise left refinement nothing, and its first round, which
    // proves the assertion in 0.1 s, ran or not depending on the machine's speed.
    let budget = config.timeout.mul_f64(params.refinement_share);
    let floor = budget.mul_f64(params.refinement_floor);
    let until = (started + budget).max(Instant::now() + floor).min(ends);
    let deadline =
        Deadline::after(until.saturating_duration_since(Instant::now())).with_memory(facts.memory);
    let mut stats = RefinementStats {
        function: func.name.clone(),
        ..RefinementStats::default()
    };
    let refining = Instant::now();
    let mut preds = LocalPredicates::none(
        graph.cut_points.len(),
        config.params.refine.max_per_cut_point,
    );
    let mut end = StageEnd::Finished;
    let max_rounds = params.max_refinement_rounds;
    let mut detail = format!("stopped after {max_rounds} rounds");
    let mut fruitless = 0usize;
    // Issue 17: the first round also splits each loop head on whether the loop was entered.
    let mut seeded = 0;
    if config.params.precision.loop_entry_predicates {
        seeded = crate::analysis::loop_entry::seed::<crate::domain::Polyhedron>(
            &facts.lowering,
            &found.at_cut_points,
            &mut preds,
        );
    }
    // Issue 17: and on the phases of each loop (the guards of its body, read at the head).
    if config.params.precision.phase_splitting {
        seeded += crate::analysis::phases::seed::<crate::domain::Polyhedron>(
            &facts.lowering,
            &found.at_cut_points,
            &mut preds,
        );
    }
    while stats.rounds < max_rounds {
        if deadline.expired() {
            end = StageEnd::Timeout;
            detail = format!(
                "its share of the budget ran out in round {}",
                stats.rounds + 1
            );
            break;
        }
        let round_start = Instant::now();
        crate::progress::stage(|| format!("refinement round {}", stats.rounds + 1));
        let (open, errors) = imprecise_error_sites(facts, &progress.table);
        if errors.is_empty() {
            detail = "no assertion left open".into();
            break;
        }
        let discovered = crate::analysis::refine::discover::<crate::domain::Polyhedron>(
            &facts.lowering,
            &found.at_cut_points,
            &errors,
            &mut preds,
            &deadline,
        );
        stats.error_paths += discovered.paths;
        let charge = |times: &mut [CheckRun]| {
            for (t, open) in times.iter_mut().zip(&open) {
                if *open {
                    t.refinement += round_start.elapsed();
                }
            }
        };
        if discovered.added + std::mem::take(&mut seeded) == 0 {
            charge(&mut progress.times);
            detail = format!("round {} found no new predicate", stats.rounds + 1);
            break;
        }
        stats.rounds += 1;
        let slots = preds.assign_slots();
        let refined_lowering = Lowering::with_predicate_slots(facts.ctx, slots.slots);
        let run: Run<P> = run_engine(
            &refined_lowering,
            config.engine,
            &slots,
            cut_facts,
            &deadline,
        );
        charge(&mut progress.times);
        if run.outcome != Outcome::Complete {
            end = match deadline.blame(run.outcome) {
                Outcome::Timeout => StageEnd::Timeout,
                Outcome::Memory => StageEnd::Budget(BudgetKind::Memory),
                _ => StageEnd::Budget(BudgetKind::Analysis),
            };
            detail = format!("round {} did not reach a fixpoint", stats.rounds);
            break;
        }
        stats.predicates = preds.count();
        stats.cut_points_with_predicates = graph.ids().filter(|c| !preds.at(*c).is_empty()).count();
        stats.bdd_vars = slots.slots;
        stats.bdd_vars_unshared = slots.unshared;
        let mut n_settled = 0;
        for (i, b) in facts.error_blocks.iter().enumerate() {
            if progress.table.is_imprecise(i) && run.invariants.at(*b).is_none() {
                settled(progress.table.prove(i));
                n_settled += 1;
            }
        }
        stats.proved += n_settled;
        found.at_cut_points = run.at_cut_points.clone();
        found.loop_invariants = loop_invariants_of(&refined_lowering, &run);
        fruitless = if n_settled == 0 { fruitless + 1 } else { 0 };
        if fruitless >= params.max_fruitless_rounds && progress.table.any_imprecise() {
            detail = format!(
                "stopped after round {}: {fruitless} round{} in a row settled nothing",
                stats.rounds,
                if fruitless == 1 { "" } else { "s" }
            );
            break;
        }
    }
    stats.millis = refining.elapsed().as_millis();
    progress.stages.push(StageRun {
        stage: Step::Refine.reported(),
        elapsed: refining.elapsed(),
        end,
        detail: Some(detail),
    });
    stats
}

/// [`Step::QuickCex`] or [`Step::FullCex`]: searches, before `deadline`, a counterexample
/// for the assertions left open by imprecision, the engine's time or a resource budget; one confirmed by
/// native replay refutes its assertion. The time goes to the targets. Does not run (and
/// is not listed) when there is no target or too little time. True when it refuted a runtime
/// check (issue 16) or set one aside whose model did not replay, so that the caller may
/// search again for the others.
/// Whether `func` reads memory: a load the memory model lowered to a choice (a summary
/// cell, an arbitrary cell) or left arbitrary.
fn reads_memory(func: &Function) -> bool {
    func.blocks.iter().any(|b| {
        b.insts.iter().any(|i| {
            matches!(
                i,
                crate::ir::Inst::Havoc {
                    reason: crate::ir::HavocReason::Load,
                    ..
                }
            )
        })
    })
}

/// How long a counterexample search may run.
#[derive(Clone, Copy)]
enum SearchTime {
    /// Build and search until this instant.
    Until(Instant),
    /// The native build until the instant, then the search for the duration (within it).
    AfterBuild(Instant, Duration),
}

fn search(
    step: Step,
    ctx: &FunctionContext<'_>,
    module: &Module,
    cex: &CexConfig,
    params: &StageParams,
    time: SearchTime,
    progress: &mut Progress,
) -> bool {
    let deadline = match time {
        SearchTime::Until(d) | SearchTime::AfterBuild(d, _) => d,
    };
    let searchable = |i: usize| {
        matches!(
            progress.table.open_reason(i),
            Some(Open::Imprecise | Open::Timeout | Open::Budget(_))
        ) && !progress.times[i].unconfirmed
    };
    // An error site at a call that may call an escaped error function branches on an
    // arbitrary condition, which the search cannot drive: it is left out.
    let may_call = |c: &CheckId| matches!(module.check(*c).kind, CheckKind::MayCallError { .. });
    let targets: Vec<CheckId> = progress
        .table
        .checks()
        .iter()
        .enumerate()
        .filter(|(i, c)| searchable(*i) && !may_call(c))
        .map(|(_, c)| *c)
        .collect();
    if targets.is_empty() || Instant::now() + params.min_search_time >= deadline {
        return false;
    }
    let stage = step.reported();
    crate::progress::stage(|| stage.name().into());
    let started = Instant::now();
    let found = catch_unwind(AssertUnwindSafe(|| match time {
        SearchTime::Until(d) => crate::cex::find_any_counterexample(ctx, module, &targets, cex, d),
        SearchTime::AfterBuild(build, slice) => {
            crate::cex::find_after_build(ctx, module, &targets, cex, build, slice)
        }
    }));
    let elapsed = started.elapsed();
    let times = &mut progress.times;
    for t in times.iter_mut().filter(|t| targets.contains(&t.check)) {
        t.search += elapsed;
    }
    let mut note = |why: String, unconfirmed: bool| {
        for t in times.iter_mut().filter(|t| targets.contains(&t.check)) {
            t.search_note = Some(why.clone());
            t.unconfirmed |= unconfirmed;
        }
    };
    let mut refuted_runtime = false;
    let (end, detail) = match found {
        Ok((Some(check), CexOutcome::Confirmed(trace))) => {
            refuted_runtime = module.check(check).kind.class() != crate::ir::CheckClass::Assert;
            settled(progress.table.refute(check, trace));
            (StageEnd::Finished, "counterexample confirmed".to_string())
        }
        // A model for one runtime check that does not replay (a bounds check violated only
        // where UBSan does not trap, see `frontend::ubsan`) is that check's note only: the
        // others, which fail independently, are searched again without it.
        Ok((Some(check), CexOutcome::Unconfirmed(why)))
            if targets.len() > 1
                && module.check(check).kind.class() != crate::ir::CheckClass::Assert =>
        {
            let why = format!("counterexample not confirmed: {why}");
            if let Some(t) = times.iter_mut().find(|t| t.check == check) {
                t.search_note = Some(why.clone());
                t.unconfirmed = true;
                refuted_runtime = true;
            }
            (StageEnd::Finished, why)
        }
        // The search's outcome is a note beside the verdict, not its reason: it depends on
        // how far the search got in its budget (issue 13).
        Ok((_, CexOutcome::Unconfirmed(why))) => {
            let why = format!("counterexample not confirmed: {why}");
            note(why.clone(), true);
            (StageEnd::Finished, why)
        }
        Ok((_, CexOutcome::NotFound(why))) => {
            note(why.clone(), false);
            (StageEnd::Finished, why)
        }
        Ok((_, CexOutcome::OutOfTime(why))) => {
            note(why.clone(), false);
            (StageEnd::Timeout, why)
        }
        Ok((None, CexOutcome::Confirmed(_))) => (StageEnd::Finished, "no error site".into()),
        Err(_) => (
            StageEnd::InternalError,
            "the counterexample search panicked".into(),
        ),
    };
    progress.stages.push(StageRun {
        stage,
        elapsed,
        end,
        detail: Some(detail),
    });
    refuted_runtime
}

/// A stage settles only open assertions, so the table never refuses; if it did (a bug in
/// the stage: a failed debug assertion in the table), the settled verdict stays, which is
/// the sound choice: what a stage settled rests on a proof or a replayed execution.
fn settled(r: Result<(), super::verdicts::AlreadySettled>) {
    let _ = r;
}

fn open_for(stopped: Outcome) -> Open {
    match stopped {
        Outcome::Timeout => Open::Timeout,
        Outcome::Budget => Open::Budget(BudgetKind::Analysis),
        Outcome::Memory => Open::Budget(BudgetKind::Memory),
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
