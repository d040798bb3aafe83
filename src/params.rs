//! The tuning constants of the analysis, in one place: what the engines, refinement,
//! certification, the counterexample search and the driver's stages may spend, and when
//! they widen or give up.
//!
//! **Architecture Invariant:** a leaf, like `budget.rs`: it names no other module, so every
//! module may read it. A parameter changes how much is tried, never what a result means:
//! no value here can make an analysis unsound (a smaller budget only gives more `unknown`).
//!
//! [`Params::DEFAULT`] holds the defaults. A run's parameters are built once by the command
//! line (`-Z` options, `polyfocus check -Z help`) into
//! [`crate::driver::AnalysisConfig::params`]; the driver reads its stage shares there and
//! hands them to every stage of a function through the function's context
//! (`context::FunctionContext::params`): the engines, lowering, refinement, care sets,
//! certification, the solver formulas and the counterexample search read that one copy.
//! No module keeps a constant copy of a parameter.

use std::time::Duration;

/// Every tuning constant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    /// Path focusing.
    pub focus: FocusParams,
    /// The classic worklist engine.
    pub classic: ClassicParams,
    /// Lowering of the lifted IR to domain operations.
    pub lower: LowerParams,
    /// Polynomial equalities at loop heads (`analysis/polyeq`).
    pub polyeq: PolyEqParams,
    /// Predicate discovery for refinement.
    pub refine: RefineParams,
    /// Certification of invariants.
    pub certify: CertifyParams,
    /// The counterexample search.
    pub cex: CexParams,
    /// The driver's stages: how a function's budget is shared between them.
    pub stages: StageParams,
    /// How a run's budget is shared between its functions.
    pub run: RunParams,
    /// Domain types (`context/domain_types.rs`): which values path focusing tracks.
    pub domain_types: DomainTypeParams,
    /// Precision techniques, each behind a switch.
    pub precision: PrecisionParams,
    /// Extrapolation with a care set (`analysis/careset.rs`).
    pub care_set: CareSetParams,
    /// The contract search of recursive functions.
    pub contracts: ContractParams,
    /// What the stages print for a person studying a run.
    pub trace: TraceParams,
    /// Faults injected on purpose, for tests.
    pub faults: FaultParams,
}

/// Precision techniques, each behind a switch (`-Z disequality-splitting`,
/// `bitwise-bounds`, `loop-entry-predicates`, `relational-congruences`, `phase-splitting`,
/// `partwise-paths`), for the on/off table. Each one only adds sound constraints or splits
/// states, so a switch changes precision and time only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrecisionParams {
    /// Abstract acceleration splits a self-loop's start states at each disequality
    /// `f != 0` of the path whose `f` moves by at most 1 per iteration, and sweeps each
    /// side under the convex `f <= -1` or `f >= 1` (`analysis/diseq.rs`).
    pub disequality_splitting: bool,
    /// Linear bounds of `x | c` and `x & c` with a constant `c` in either reading, beyond
    /// the unsigned ones (`analysis/bitwise.rs`).
    pub bitwise_bounds: bool,
    /// Refinement starts with the loop-entry predicates: at a loop head, whether its exit
    /// guard held when the loop was entered, over values the loop does not change
    /// (`analysis/loop_entry.rs`).
    pub loop_entry_predicates: bool,
    /// Relational congruences at cut points (affine lattices `a·x ≡ c mod m` of the live
    /// values, found by the solver next to the engine's invariants) prove what the engine
    /// left open (`analysis/relational_congruence.rs`), then bounds of linear templates
    /// found the same way (`analysis/template_bounds.rs`).
    pub relational_congruences: bool,
    /// Refinement starts with the phase predicates: at a loop head, the guards of the
    /// branches of the loop's body over values the head knows (`x < 50` in
    /// `if (x < 50) x++; else { x++; y++; }`), so that each phase of the loop keeps its
    /// own state (`analysis/phases.rs`).
    pub phase_splitting: bool,
    /// A focus path is applied to each part of a disjunctive state (predicate partitions)
    /// on its own, so that what the lowering decides from a state's bounds (the side of a
    /// disequality, the wrap-around window of an addition, a change of reading) is decided
    /// per part, not on the hull of the parts (`analysis/transformer.rs`).
    pub partwise_paths: bool,
    /// Disequalities split on per path by disequality splitting, at most: `2^k` sweeps
    /// instead of one.
    pub max_disequalities: usize,
    /// Phase predicates at one loop head, at most (each doubles the head's parts).
    pub max_phase_predicates: usize,
}

/// Extrapolation with a care set (`-Z care-set=on|off`, `analysis/careset.rs`): rounds
/// in which care sets grown backwards from the open error sites guide the engine's
/// widening. The operator always returns an upper bound, so the switch changes precision
/// and time only.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CareSetParams {
    /// Whether the care-set stage runs.
    pub enabled: bool,
    /// Care-set steps at one cut point in one engine run before it widens as usual (the
    /// operator alone need not terminate).
    pub max_extrapolations: usize,
    /// Paths stepped back from an error site when growing care sets.
    pub max_depth: usize,
    /// Polyhedra in the care set of one cut point, at most.
    pub max_per_cut_point: usize,
    /// Rounds (care-set growth, then a run of the engine) per function, at most.
    pub max_rounds: usize,
    /// Share of a function's budget, counted from its start, after which the stage
    /// starts no more work.
    pub share: f64,
}

/// Domain types (`-Z domain-types=on|off`): path focusing over polyhedra tracks at cut
/// points only the values of the relational packs the open assertions depend on; the
/// interval stage's facts bound the others. Forgetting a dimension is always sound, so the
/// switch changes precision and time only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DomainTypeParams {
    /// Whether the engine forgets the untracked values at cut points.
    pub enabled: bool,
}

/// The budget of a whole run (`check --run-budget`), from its start: compiling and
/// loading the programs spend it too (the front end itself is bounded by sizes, see
/// `frontend::FrontendConfig::lift_limit`); the analysis runs in two passes. First the
/// interval stage of every function, to its fixpoint: its limit is a budget of work
/// (`StageParams::interval_work`), and time only stops it at `--timeout` or at the run's end
/// (a safety net; it takes seconds on a whole project). Then the expensive stages of the
/// functions it left open: each function with a check gets the same budget, fixed when the
/// pass starts from the configuration and the number of such functions only, not from the
/// time left, so that a function gets the same budget on an idle machine and on a loaded
/// one: `planned_share` of the run's budget times the number of workers, divided by the
/// functions of the pass, at least `min_planned_budget` and at most `--timeout`. When
/// these minimums do not fit in the plan, only the first functions of the pass (the
/// smallest) get one, the same ones on every run. The run's budget itself is then a safety
/// stop: a function that has not started when it passes gets no analysis, and says so. A
/// program of a run of several (`--each-unit`) plans with a part of what the programs
/// before it left of the plan: half of it shared equally, half by size (the bytes of the
/// programs' inputs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunParams {
    /// The default budget of a run, for loading and analyzing all its programs: with the
    /// interval stage first, a function left open by it is where the time goes, and on real
    /// projects hundreds are (a whole project under 5 minutes by default).
    pub run_budget: Duration,
    /// The least budget of a function of the second pass, and the most a function
    /// without checks gets (its invariants are for the report only).
    pub min_function_budget: Duration,
    /// The least budget the plan gives a function of the second pass: when the plan's
    /// equal shares would be smaller, only the first functions of the pass get this.
    pub min_planned_budget: Duration,
    /// The share of the run's budget the budgets of the second pass add up to (per
    /// worker): the rest is for loading, the interval pass, the preconditions after each
    /// function's analysis and what the searches, which count time, run over. On lz4
    /// (`scripts/real-code`, `--checks all`) a function's wall time was about twice its
    /// budget, most of the rest in its preconditions.
    pub planned_share: f64,
    /// The resident memory a run stays under: when an analysis starts, each worker's heap
    /// budget (`--memory-per-function`) is at most its share of what the process does not
    /// hold yet, less `solver_reserve` (the heap budget counts only Rust allocations).
    pub process_memory: usize,
    /// What the solver and LLVM may allocate outside the heap count, kept out of the
    /// workers' share.
    pub solver_reserve: usize,
    /// The least heap budget of a function, whatever the process holds.
    pub min_function_heap: usize,
    /// The heap the functions analyzed at once share when `--memory-per-function` is not
    /// given (each gets this divided by `--jobs`): a run on 2 workers stays under 2 GB
    /// with room for what the solver and LLVM allocate outside the count.
    pub shared_heap: usize,
}

/// Path focusing (`analysis/focus.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FocusParams {
    /// Solver queries per function before giving up.
    pub max_queries: usize,
    /// Time for one solver query; a harder query answers unknown (the analysis then stops
    /// with a budget verdict rather than hang).
    pub max_query_time: Duration,
    /// Plain joins in `loopiter` before widening.
    pub loopiter_delay: usize,
    /// Narrowing steps in `loopiter` and on the reduced multigraph.
    pub narrowing_steps: usize,
    /// Constants used as widening thresholds, at most.
    pub max_threshold_constants: usize,
    /// The budget of work of one run of path focusing (the engine, each round of care
    /// sets and of refinement), in the solver's resource count (its own steps, the same on
    /// any machine and under any load), summed over its queries; 0: none. A run that
    /// spends it stops like one whose query gave up: no invariants, so never a proof. Its
    /// queries are the engine's time: on diamond_2-2.c the solver
    /// finds path after path that adds nothing (the formula leaves `y % 2` free where the
    /// transformer keeps it), each query costing seconds, until the deadline, 48 s of the
    /// default 60. On `../shared/bench` the runs of the tasks proved or refuted spend at
    /// most 514 000 (gcnr2008.i, a refinement round; heapsort.i's engine 410 000), each
    /// query of a true task at most 84 000 (SpamAssassin-loop.i); diamond_2-2.c's queries
    /// spend about 130 000 each.
    pub solver_work: u64,
    /// The most work of one query (and at most what is left of `solver_work`); 0: none.
    pub query_work: u64,
    /// Units of exact encoding of shifts, divisions, products by constants and bitwise
    /// operations in one region formula of path focusing; past them such operations are
    /// free values of their range (`smt::RegionFormula`): hash and byte-swapping code
    /// chains hundreds of them, which exact, the solver neither answers nor abandons
    /// promptly. Certification always encodes them exactly.
    pub exact_operations: u32,
}

/// The classic engine (`analysis/classic.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClassicParams {
    /// Joins at a loop head before widening starts.
    pub widening_delay: u32,
}

/// Polynomial equalities (`analysis/polyeq`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PolyEqParams {
    /// The largest degree tried.
    pub max_degree: u32,
    /// The largest template, in monomials: past it the degree at that loop head goes down
    /// (to 2 at least; past that, no template there).
    pub max_monomials: usize,
}

/// Lowering (`analysis/lower.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LowerParams {
    /// How deep guards are decomposed through boolean definitions.
    pub guard_depth: usize,
}

/// Predicate discovery (`analysis/refine.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RefineParams {
    /// Paths stepped back from an error site, at most.
    pub max_depth: usize,
    /// Paths enumerated per (cut point, target) pair.
    pub paths_per_step: usize,
    /// Predicates kept at one cut point.
    pub max_per_cut_point: usize,
    /// Time for one solver query of the discovery.
    pub query_time: Duration,
}

/// Certification (`analysis/certify.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CertifyParams {
    /// Time for one certification query; past it the answer is "undecided".
    pub query_timeout: Duration,
}

/// The counterexample search (`cex/mod.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CexParams {
    /// Native runs in a row that show no new behaviour (exit status and magnitude of the
    /// number of inputs served) after which the native search stops: it no longer learns
    /// anything.
    pub native_stale_runs: usize,
    /// Native runs killed at their time limit that showed no new behaviour, counted over
    /// the whole search (a run that shows something new does not reset it), after which the
    /// native search stops: each costs up to a second, and on a program whose runs do not
    /// end on invented inputs (a loop on a nondet condition) they would otherwise take
    /// most of the time to an `unknown`.
    pub native_stale_killed_runs: usize,
    /// Bounded model checking goes at most this many times deeper (in back edges) than the
    /// largest constant of the program, and at least `min_bmc_depth`: beyond, the
    /// unrolling only adds iteration counts that no constant of the program tells apart.
    pub bmc_depth_per_constant: usize,
    /// The least depth limit of bounded model checking.
    pub min_bmc_depth: usize,
    /// The greatest depth limit of bounded model checking.
    pub max_bmc_depth: usize,
    /// The longest solver query and the longest batch of native runs: a bounded model
    /// checking query the solver does not answer in this time is where it stops helping (a
    /// deeper one is only harder), whatever the function's budget.
    pub max_slice: Duration,
    /// The longest first native run of a program without inputs (its only execution) or
    /// whose only input is `argc`: one that has not reached the error site by then would
    /// otherwise take the whole budget of the search to an `unknown` (deep-nested.c: 50 s
    /// of the default 60). The false task overflow_1-2.c needs about 3 s of CPU for its
    /// run, so 5 s lost it on a loaded machine.
    pub single_run_cap: Duration,
    /// Bounded model checking's budget of work in one search, in the solver's resource
    /// count (the same on any machine and under any load): deeper unrollings are asked only
    /// while it lasts, so that a search on a true task ends by itself instead of at its
    /// deadline. Time limits stay, as a safety net.
    pub bmc_work: u64,
    /// The most work of one query of bounded model checking (and at most what is left of
    /// `bmc_work`): the queries that find a counterexample on `../shared/bench` take at
    /// most 8 000, but one query over four overflow checks of `tests/programs/checks/
    /// overflow.c` takes about 100 000 (at 100 000 it gave up, and the checks stayed
    /// unknown); a query past this is an unrolling the solver no longer handles, and a
    /// deeper one would only be harder. About 0.4 s of solver time.
    pub bmc_query_work: u64,
}

/// How the driver shares a function's time budget between its stages
/// (`driver/pipeline.rs`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StageParams {
    /// The interval stage's budget of work (the classic engine over intervals, run before
    /// the chosen engine, in the run's first pass), in units of work
    /// (`analysis::Deadline::spend`, eight steps over intervals each): its limit, so that
    /// what it proves is the same under any load. It takes milliseconds on most functions;
    /// one where it cannot finish gets no facts from it. Time limits it only as a safety
    /// net (`--timeout`, the run's end); the later stages get `--timeout` less what it used.
    pub interval_work: u64,
    /// Whether the interval stage runs first, as the run's first pass (`-Z
    /// interval-pass=off` leaves it out: the chosen engine alone, for the on/off table).
    pub interval_pass: bool,
    /// Analyses re-run with more predicates, at most.
    pub max_refinement_rounds: usize,
    /// Rounds in a row that add predicates but settle no assertion, after which
    /// refinement stops: it no longer makes progress. On `../shared/bench` every proof
    /// refinement gives comes in its first round, and each fruitless round costs about a
    /// second of the time to an `unknown`.
    pub max_fruitless_rounds: usize,
    /// The budget the shares of the stages between the engine and the full counterexample
    /// search (polynomial equalities, congruences, care sets, refinement) are counted in:
    /// the function's budget, at most this. On `../shared/bench` every proof they give
    /// comes within the shares of 10 s; with the shares of the default 60 s a true task
    /// they cannot prove spent up to six times longer in them before the same `unknown`.
    /// The engine and the full search still have the whole budget.
    pub share_reference: Duration,
    /// Share of a function's budget the engine may use when a counterexample search
    /// follows (all of it without one).
    pub engine_share: f64,
    /// Share of a function's budget, counted from its start, that the engine and
    /// refinement may use together (the rest is left to the counterexample search).
    pub refinement_share: f64,
    /// Refinement may use at least this fraction of its share counted from its own start,
    /// whatever the engine took (within the function's budget): its first round, which is
    /// where every proof of refinement comes on `../shared/bench`, then runs on a slow
    /// machine too.
    pub refinement_floor: f64,
    /// The short counterexample search run before refinement gets the function's budget
    /// divided by this, at most `quick_search_cap`: shallow bugs are found in well under a
    /// second, and on a true task the whole slice is lost before refinement can start.
    pub quick_search_divisor: u32,
    /// The longest short search.
    pub quick_search_cap: Duration,
    /// The short search runs before the engine; its native build (clang, slow on a loaded
    /// machine, then cached for the run) may take the function's budget divided by this,
    /// and the search's slice starts when the build is done.
    pub early_build_divisor: u32,
    /// The budget divided by this is kept free at the end of the full search, for
    /// reporting before a harness kills the process; at least `final_margin_min`.
    pub final_margin_divisor: u32,
    /// The least margin.
    pub final_margin_min: Duration,
    /// A search is not started with less time left than this.
    pub min_search_time: Duration,
    /// Share of a function's budget, counted from its start, after which the congruence
    /// stage asks no more queries.
    pub congruence_share: f64,
    /// The longest solver query of the congruence stage (one per cut point that reaches
    /// an open error site): the queries are linear and small, a longer one would not help.
    pub congruence_query: Duration,
    /// Units of exact encoding of shifts, divisions and bitwise operations per region
    /// formula of the congruence stage and of the ascents (relational congruences, template
    /// bounds); past them such results are any value of their range. Exact, the 80 rounds
    /// of a SHA compression made one query overrun its stage's share by more than a second.
    pub stage_exact_operations: u32,
    /// Share of a function's budget (at most `relational_share_reference`) the relational
    /// congruence stage may use, counted from its start (after refinement); it returns
    /// nothing unless it reached its fixpoint.
    pub relational_congruence_share: f64,
    /// The budget the relational congruences' share is counted in: the function's budget,
    /// at most this. With the default 60 s their template bounds spent 12 s of trip_count.c's
    /// time to an `unknown`; counted in `share_reference` (2 s) they lost heapsort.i's
    /// proof under load (2.4 s at load 16). It is wall-clock.
    pub relational_share_reference: Duration,
    /// The engine's budget of work in steps (`analysis::Deadline::spend`; 0: none, time
    /// alone limits it). The contract search of recursive functions (`driver::contracts`) sets it
    /// so that what its rounds prove does not depend on the machine's load.
    pub engine_work: u64,
    /// Units of counted work (`domain::stop`: solver resource units, conversion tests,
    /// engine steps) one second of a stage's share is worth, so that the engine, the stages
    /// from the polynomial equalities after it to refinement, and the preconditions stop at
    /// the same point on any machine and under any load; their time shares stay as a
    /// safety net (`time_net`). 0: their shares are CPU time only. About what the engines
    /// and refinement count a second (`domain::stop::Work`), so that their CPU time stays
    /// near their shares on average.
    pub work_per_second: u64,
    /// How many times its share of time a stage counted in work may take before its time
    /// stops it (at least 1): the work stops it first unless the machine is that much
    /// slower than the rate says, so that its verdicts do not follow the load.
    pub time_net: f64,
    /// The budget of work, in steps, of the analyses that infer and certify the
    /// preconditions of one function's open checks (`driver::preconditions`; 0: none are
    /// inferred), at most; their share of the function's budget (`precondition_share`)
    /// usually ends them first.
    pub precondition_work: u64,
    /// The preconditions of a function's open checks, inferred after its analysis, take
    /// what the analysis left of the function's budget in pass 2 (its planned budget), and
    /// at least this share of it (their reserve, which the function's reported budget
    /// includes; never past `--timeout`), in time and, at `work_per_second`, in counted
    /// work: they
    /// cost in proportion to what the function was planned, so that the run's plan holds
    /// (on a whole project, inferring preconditions can take longer than the analyses
    /// before it).
    pub precondition_share: f64,
    /// Whether the preconditions of functions entered only by their direct calls are
    /// checked at those calls, after the analysis (`driver::requirements`).
    pub call_site_preconditions: bool,
    /// The share of the run's plan the analyses of those calls' functions plan with.
    pub requirement_share: f64,
    /// Rounds of those calls at most: a call that meets a requirement under its caller's
    /// own precondition is settled by the next round, at the caller's calls.
    pub requirement_rounds: usize,
    /// The share of the engine's allowance path focusing may take: when it stops before a
    /// fixpoint, the classic engine over the same domain gets the rest. Half: a large
    /// function whose paths the solver cannot enumerate within its budget still gets a
    /// fixpoint over polyhedra (with `--checks all`, brotli and zstandard finish about 170 more
    /// functions, 217 checks more are proved or `holds if` than with all of it, 86 fewer).
    pub focus_share: f64,
    /// Whether the classic engine runs when path focusing stops before a fixpoint.
    pub classic_after_focus: bool,
    /// Whether preconditions are also inferred over polyhedra (relations between
    /// parameters), after the interval attempt, in a function whose analysis ended within
    /// its budget.
    pub relational_preconditions: bool,
    /// Whether each inferred precondition is also rechecked by analyzing the function once
    /// per disjunct assumed at its entry (a second derivation the tests compare with the
    /// inference's; the inference's complete run alone proves it).
    pub recheck_preconditions: bool,
    /// Whether the stages that ask the solver under a wall-clock cap (polynomial
    /// equalities, congruences) run. The contract search turns them off: a query cut by
    /// its time under load would make a round's proofs, hence the contracts, depend on it.
    pub solver_stages: bool,
}

/// The contract search of recursive functions (`driver::contracts`): Houdini rounds,
/// each the driver's analysis of the functions lifted in certify mode. Bounded by work, not
/// time, so that the contracts, hence the verdicts, do not depend on the machine's load.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContractParams {
    /// The budget of work of each function's interval stage and engine in one round (steps
    /// of `analysis::Deadline::spend`).
    pub round_work: u64,
    /// The budget of work of the whole search (both searches together, the second gets
    /// what the first left), per second of `--timeout`: a function of the configuration,
    /// not of the load. At `--timeout 10`, 60M steps. Measured on `../shared/bench2`'s
    /// recursive tasks (with region bounds checked by evaluation before they become
    /// candidates): Ackermann03/04 certify in 27.5M steps, McCarthy91-1/2 in 8M and 7M,
    /// Fibonacci01-1/04/05 in 16M, 15M and 32M, Fibonacci03 in 40M (its last round started
    /// with 5.5M left: at 4M per second it was proved with nothing to spare; the 50% above
    /// that is its margin).
    pub search_work_per_second: f64,
    /// The longest time of a function in one round, a safety net (at least 1 s, and at
    /// most `--timeout`).
    pub round_timeout: Duration,
    /// Whether the functions that stay calls outside recursive cycles get summaries of what
    /// they return (`driver::contracts::returns`).
    pub return_summaries: bool,
    /// The counted work (`domain::stop`: the classic engine's steps and the polyhedra's
    /// conversions) of the analysis of one function for its return summary.
    pub return_work: u64,
    /// The counted work of all return summaries of a program together. Measured on
    /// zstandard (276 functions): with budgets of time alone, the summaries took 59 s, most
    /// of it in a few functions of hundreds of values (10 s each).
    pub returns_work: u64,
}

/// What the stages print on standard error for a person studying a run (`-Z debug-...`).
/// No result depends on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceParams {
    /// Path focusing prints its queries, the paths found and the states they give.
    pub focus: bool,
    /// The counterexample search prints its steps with the time left.
    pub counterexamples: bool,
    /// Each stage prints its time, its budget of counted work and the work it counted by
    /// kind (to measure `StageParams::work_per_second`).
    pub work: bool,
}

/// Faults injected on purpose, to test that no verdict depends on them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FaultParams {
    /// Every this-many-th solver check of a function's analysis (its solver formulas and
    /// bounded model checking) answers `unknown` without asking the solver (0: none): under load any query may run out of time, and an `unknown` is
    /// never evidence, so no verdict may depend on which one did (`tests/solver_unknown.rs`).
    /// The count runs over the checks of one function's analysis, in order, so the checks
    /// that answer `unknown` are the same on every run.
    pub solver_unknown_every: u64,
}

impl Params {
    /// The defaults.
    pub const DEFAULT: Params = Params {
        focus: FocusParams {
            max_queries: 4000,
            max_query_time: Duration::from_secs(5),
            loopiter_delay: 2,
            narrowing_steps: 2,
            max_threshold_constants: 48,
            solver_work: 800_000,
            query_work: 200_000,
            exact_operations: 4,
        },
        classic: ClassicParams { widening_delay: 2 },
        lower: LowerParams { guard_depth: 8 },
        polyeq: PolyEqParams {
            max_degree: 6,
            max_monomials: 130,
        },
        refine: RefineParams {
            max_depth: 3,
            paths_per_step: 4,
            max_per_cut_point: 6,
            query_time: Duration::from_secs(2),
        },
        certify: CertifyParams {
            query_timeout: Duration::from_secs(5),
        },
        cex: CexParams {
            native_stale_runs: 32,
            native_stale_killed_runs: 3,
            bmc_depth_per_constant: 4,
            min_bmc_depth: 256,
            max_bmc_depth: 8192,
            max_slice: Duration::from_secs(2),
            single_run_cap: Duration::from_secs(10),
            bmc_work: 4_000_000,
            bmc_query_work: 1_000_000,
        },
        stages: StageParams {
            interval_work: 1 << 27,
            interval_pass: true,
            max_refinement_rounds: 4,
            max_fruitless_rounds: 1,
            share_reference: Duration::from_secs(10),
            engine_share: 0.8,
            refinement_share: 0.5,
            refinement_floor: 0.5,
            quick_search_divisor: 10,
            quick_search_cap: Duration::from_millis(500),
            early_build_divisor: 4,
            final_margin_divisor: 20,
            final_margin_min: Duration::from_millis(300),
            min_search_time: Duration::from_millis(200),
            congruence_share: 0.3,
            congruence_query: Duration::from_secs(2),
            stage_exact_operations: 64,
            relational_congruence_share: 0.2,
            relational_share_reference: Duration::from_secs(20),
            engine_work: 0,
            work_per_second: 6_000_000,
            time_net: 3.0,
            precondition_work: 1 << 27,
            precondition_share: 0.5,
            call_site_preconditions: true,
            requirement_share: 0.25,
            requirement_rounds: 3,
            focus_share: 0.5,
            classic_after_focus: true,
            relational_preconditions: true,
            recheck_preconditions: false,
            solver_stages: true,
        },
        run: RunParams {
            run_budget: Duration::from_secs(240),
            min_function_budget: Duration::from_secs(1),
            planned_share: 0.5,
            min_planned_budget: Duration::from_millis(250),
            process_memory: 1800 << 20,
            solver_reserve: 256 << 20,
            min_function_heap: 64 << 20,
            shared_heap: 1500 << 20,
        },
        domain_types: DomainTypeParams { enabled: true },
        precision: PrecisionParams {
            disequality_splitting: true,
            bitwise_bounds: true,
            loop_entry_predicates: true,
            relational_congruences: true,
            phase_splitting: true,
            partwise_paths: true,
            max_disequalities: 2,
            max_phase_predicates: 3,
        },
        care_set: CareSetParams {
            enabled: true,
            max_extrapolations: 16,
            max_depth: 3,
            max_per_cut_point: 12,
            max_rounds: 3,
            share: 0.3,
        },
        contracts: ContractParams {
            round_work: 1 << 22,
            search_work_per_second: 6_000_000.0,
            round_timeout: Duration::from_secs(10),
            return_summaries: true,
            return_work: 1 << 21,
            returns_work: 1 << 26,
        },
        trace: TraceParams {
            focus: false,
            counterexamples: false,
            work: false,
        },
        faults: FaultParams {
            solver_unknown_every: 0,
        },
    };
}
