//! The stages of one function's analysis as a list of values: each says when it is wanted
//! (a function of the configuration and of what is still open), its share of the
//! function's budget, and how it runs. [`walk`] runs a list in order; the pipeline has two,
//! one per pass of the driver.
//!
//! Pass 1, [`first_pass`]:
//!
//! | step | reported as | wanted | share |
//! |---|---|---|---|
//! | `Interval` | interval analysis | always (the pass runs unless the configuration is itself classic over intervals) | `interval_work` steps of **work**; the pass's time only as a safety net |
//!
//! Pass 2, [`second_pass`]. "Open": some assertion is still open because the invariants do
//! not exclude it; "fixpoint": the invariants the stages start from are a fixpoint's;
//! "refining": refinement is on and the engine is path focusing. Shares are of the
//! function's budget for the pass `B`, of `S = min(B, share_reference)` or of
//! `R = min(B, relational_share_reference)`:
//!
//! | step | reported as | wanted when | share |
//! |---|---|---|---|
//! | `QuickCexBeforeEngine` | counterexample search | a search is configured, refining, the function reads memory, open | a native build until `B / early_build_divisor` from its start, then a search of `min(B / quick_search_divisor, quick_search_cap)` |
//! | `AlgebraicEqualities` | polynomial equalities | verdicts are asked for, the solver stages are on, the function multiplies two values, open | `S · engine_share / 2` from its start |
//! | `Engine` | analysis | no invariants yet, or invariants are asked for, or open | `B · engine_share` from the function's start (all of `B` without a search); and `engine_work` steps of **work** when set |
//! | `PolynomialEqualities` | polynomial equalities | the solver stages are on, open, and fixpoint or the algebraic pass was cut short | `S · engine_share / 3` from its start |
//! | `Congruences` | congruences | the solver stages are on, fixpoint, open | until `S · congruence_share` from the function's start |
//! | `QuickCex` | counterexample search | a search is configured, refining, the function does not read memory, fixpoint, open | as `QuickCexBeforeEngine` |
//! | `CareSet` | care sets | refining, care sets are on, fixpoint, open | until `S · care_set.share` from the function's start |
//! | `Refine` | refinement | refining, fixpoint, open | until `S · refinement_share` from the function's start, and at least `refinement_floor` of that from its own start |
//! | `RelationalCongruences` | relational congruences | relational congruences are on, fixpoint, open | `R · relational_congruence_share` from its start |
//! | `TemplateBounds` | template bounds | the relational congruences reached their fixpoint and asked every query in time, open | the rest of the relational congruences' share |
//! | `FullCex` | counterexample search | a search is configured | until `B` less a margin (`B / final_margin_divisor`, at least `final_margin_min`) from the function's start |
//!
//! Every share ends by the pass's end. The interval stage's share and, when set, the
//! engine's count work in steps (`analysis::Deadline::spend`). The shares of the stages
//! from the polynomial equalities after the engine to refinement are also counted in work when
//! `StageParams::work_per_second` is set: the same fraction, its seconds at that rate, the
//! function's counted work (`domain::stop`: solver resource units, conversion tests, engine
//! steps) standing for the time since its start. A stage whose budget of work is spent
//! stops at the same point of its computation on any machine and under any load; its time
//! share stays as a safety net for the work no counter sees, so a share in work only ever
//! ends earlier than the time share alone. The searches are wall-clock; inside them,
//! bounded model checking stops at its own budget of solver work (`CexParams::bmc_work`),
//! like path focusing (`FocusParams::solver_work`) in every stage. At a share's end the
//! polyhedra conversions,
//! the ideal tests and the solver checks running then give up too (`domain::stop`), with
//! their usual sound answers, so that no single operation runs on past it.

use super::{Allowance, Inputs, State};
use crate::check::Stage;
use crate::domain::NumericDomain;
use crate::params::Params;
use std::time::{Duration, Instant};

/// Which stage a value of the list is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// The classic engine over intervals, the run's first pass.
    Interval,
    /// The short counterexample search, before the engine, in a function that reads memory.
    QuickCexBeforeEngine,
    /// Polynomial equalities before the engine, algebraically only.
    AlgebraicEqualities,
    /// The engine over the chosen domain.
    Engine,
    /// Polynomial equalities with the engine's invariants, algebraically then with the
    /// solver.
    PolynomialEqualities,
    /// The engine's invariants with congruences.
    Congruences,
    /// The short counterexample search, after the congruences.
    QuickCex,
    /// Extrapolation with care sets.
    CareSet,
    /// Predicate refinement.
    Refine,
    /// Relational congruences at cut points.
    RelationalCongruences,
    /// Bounds of linear templates at cut points.
    TemplateBounds,
    /// The counterexample search with the rest of the budget.
    FullCex,
}

impl Step {
    /// The stage under which reports and the progress line list it.
    pub(super) fn reported(self) -> Stage {
        match self {
            Step::Interval => Stage::IntervalAnalysis,
            Step::Engine => Stage::Analysis,
            Step::AlgebraicEqualities | Step::PolynomialEqualities => Stage::PolynomialEqualities,
            Step::Congruences => Stage::Congruences,
            Step::CareSet => Stage::CareSet,
            Step::Refine => Stage::Refinement,
            Step::RelationalCongruences => Stage::RelationalCongruences,
            Step::TemplateBounds => Stage::TemplateBounds,
            Step::QuickCexBeforeEngine | Step::QuickCex | Step::FullCex => {
                Stage::CounterexampleSearch
            }
        }
    }
}

/// One stage of the list.
pub(super) struct PipelineStage {
    pub step: Step,
    /// Whether it runs, from the configuration and the state the stages before left.
    pub wanted: fn(&Inputs<'_>, &State) -> bool,
    /// What it may spend.
    pub share: Share,
    /// Runs it: it settles what it can in the state's table, within its allowance.
    pub run: fn(&Inputs<'_>, &mut State, &Allowance),
}

/// A stage's share of the function's budget for the pass.
#[derive(Clone, Copy, Debug)]
pub(super) struct Share {
    pub time: TimeShare,
    /// Its budget of work in steps, when it counts work.
    pub work: Option<u64>,
    /// Whether its time share is also counted in work (`domain::stop`), at
    /// `StageParams::work_per_second`.
    pub metered: bool,
}

/// The wall-clock part of a share.
#[derive(Clone, Copy, Debug)]
pub(super) enum TimeShare {
    /// The whole budget of the pass.
    Whole,
    /// `fraction` of `of`, counted from the function's start.
    FromFunctionStart { of: Reference, fraction: f64 },
    /// `fraction` of `of`, counted from the stage's start.
    FromStageStart { of: Reference, fraction: f64 },
    /// As `FromFunctionStart`, but at least `floor` of that share counted from the stage's
    /// start: stages before it may not leave it nothing on a slow machine.
    FromFunctionStartAtLeast {
        of: Reference,
        fraction: f64,
        floor: f64,
    },
    /// A native build for at most the budget divided by `build_divisor` from the stage's
    /// start, then a search of the budget divided by `search_divisor`, at most `search_cap`,
    /// from the build's end (within the build's limit).
    BuildThenSearch {
        build_divisor: u32,
        search_divisor: u32,
        search_cap: Duration,
    },
    /// The budget from the function's start less a margin kept for the report: the budget
    /// divided by `margin_divisor`, at least `margin_min`.
    AllButMargin {
        margin_divisor: u32,
        margin_min: Duration,
    },
    /// What is left of the share of an earlier stage (nothing when it did not run).
    RestOf(Step),
}

/// What a fraction of a share is a fraction of.
#[derive(Clone, Copy, Debug)]
pub(super) enum Reference {
    /// The function's budget for the pass.
    Budget,
    /// The function's budget, at most this: the stage's shares were measured in a budget
    /// this long, and a longer one only spends longer before the same `unknown`.
    AtMost(Duration),
}

impl Reference {
    fn of(self, budget: Duration) -> Duration {
        match self {
            Reference::Budget => budget,
            Reference::AtMost(cap) => budget.min(cap),
        }
    }
}

impl Share {
    /// A wall-clock share.
    fn time(time: TimeShare) -> Share {
        Share {
            time,
            work: None,
            metered: false,
        }
    }

    /// A share counted in work, its time a safety net.
    fn metered(time: TimeShare) -> Share {
        Share {
            time,
            work: None,
            metered: true,
        }
    }

    /// What the share allows a stage that starts now, given the function's `clock` and the
    /// limits of the stages that ran before (`ran`).
    fn allowance(&self, clock: &Clock, ran: &[Ran]) -> Allowance {
        let now = crate::clock::now();
        let budget = clock.budget;
        let mut search_slice = None;
        // A share counted in work: its seconds at `work_per_second`, the function's work so
        // far taking the place of the time since its start; its time share stays. The
        // searches' work is left out: their shares are time (a short slice), and their
        // solver work, at several times the rate of the other stages, would leave the stages
        // after them nothing.
        let counted = crate::domain::stop::counted();
        let searched: u64 = ran.iter().map(|r| r.searched).sum();
        let done = counted
            .saturating_sub(clock.work_started)
            .saturating_sub(searched);
        let in_work = |share: Duration| (share.as_secs_f64() * clock.work_per_second as f64) as u64;
        let metered = self.metered && clock.work_per_second > 0;
        let mut meter = None;
        let until = match self.time {
            TimeShare::Whole => clock.ends,
            TimeShare::FromFunctionStart { of, fraction } => {
                let share = of.of(budget).mul_f64(fraction);
                meter = Some(in_work(share).saturating_sub(done));
                clock.started + share
            }
            TimeShare::FromStageStart { of, fraction } => {
                let share = of.of(budget).mul_f64(fraction);
                meter = Some(in_work(share));
                now + share
            }
            TimeShare::FromFunctionStartAtLeast {
                of,
                fraction,
                floor,
            } => {
                let share = of.of(budget).mul_f64(fraction);
                meter = Some(
                    in_work(share)
                        .saturating_sub(done)
                        .max(in_work(share.mul_f64(floor))),
                );
                (clock.started + share).max(now + share.mul_f64(floor))
            }
            TimeShare::BuildThenSearch {
                build_divisor,
                search_divisor,
                search_cap,
            } => {
                search_slice = Some((budget / search_divisor).min(search_cap));
                now + budget / build_divisor
            }
            TimeShare::AllButMargin {
                margin_divisor,
                margin_min,
            } => {
                let margin = (budget / margin_divisor).max(margin_min);
                clock.started + budget.saturating_sub(margin)
            }
            TimeShare::RestOf(step) => match ran.iter().rev().find(|r| r.step == step) {
                Some(r) => {
                    meter = r.work_ends.map(|end| end.saturating_sub(counted));
                    r.until
                }
                None => {
                    meter = Some(0);
                    now
                }
            },
        };
        // A share counted in work has its time only as a safety net: `time_net` times
        // the share, and the function's budget as many times.
        let stretch = metered && meter.is_some() && !matches!(self.time, TimeShare::RestOf(_));
        let (until, ends) = if stretch {
            let net = clock.time_net;
            let stretched = now + until.saturating_duration_since(now).mul_f64(net);
            (stretched, clock.started + budget.mul_f64(net))
        } else {
            (until, clock.ends)
        };
        Allowance {
            until: until.min(ends),
            work: self.work,
            search_slice,
            meter: meter.filter(|_| metered),
        }
    }
}

/// A stage that ran: its step and where its share ended, in time and in counted work
/// (`domain::stop::counted`); for a search, the work it counted.
#[derive(Clone, Copy, Debug)]
pub(super) struct Ran {
    step: Step,
    until: Instant,
    work_ends: Option<u64>,
    searched: u64,
}

/// The function's budget for a pass, on the thread's CPU clock ([`crate::clock`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Clock {
    /// When the pass started for the function (an instant of [`crate::clock::now`]).
    pub started: Instant,
    /// How long it may take.
    pub budget: Duration,
    /// `started + budget`: no stage of the pass works past it.
    pub ends: Instant,
    /// The thread's counted work when the pass started (`domain::stop::counted`).
    pub work_started: u64,
    /// Units of work a second of a share is worth (0: the shares are wall-clock only).
    pub work_per_second: u64,
    /// How many times its time a share counted in work may take (`StageParams::time_net`).
    pub time_net: f64,
}

impl Clock {
    /// A budget counted from `started`, its shares in work as `params` says.
    pub(super) fn new(started: Instant, budget: Duration, params: &Params) -> Clock {
        Clock {
            started,
            budget,
            ends: started + budget,
            work_started: crate::domain::stop::counted(),
            work_per_second: params.stages.work_per_second,
            time_net: params.stages.time_net.max(1.0),
        }
    }
}

/// Runs the wanted stages of `stages` in order.
pub(super) fn walk(stages: &[PipelineStage], inputs: &Inputs<'_>, state: &mut State) {
    let mut ran: Vec<Ran> = Vec::new();
    for stage in stages {
        if !(stage.wanted)(inputs, state) {
            continue;
        }
        let allowance = stage.share.allowance(&inputs.clock, &ran);
        crate::progress::stage(|| stage.step.reported().name().into());
        // A polyhedra operation or a solver check past the stage's share gives up (its
        // fallback is sound) rather than run on.
        let until = allowance.until;
        let meter = allowance.meter;
        let work_ends = meter.map(|m| crate::domain::stop::counted().saturating_add(m));
        let trace = inputs.config.params.trace.work;
        let (t0, k0) = (Instant::now(), crate::domain::stop::counted_by_kind());
        let mut run =
            || crate::domain::stop::within(until, meter, || (stage.run)(inputs, state, &allowance));
        let searching = stage.step.reported() == Stage::CounterexampleSearch;
        let before = crate::domain::stop::counted();
        if searching {
            // In a solver context of its own: a search stops at a time limit, and the terms
            // it leaves in the thread's context would change the models (hence the
            // predicates and the proofs) of the stages after it.
            crate::smt::in_own_context(run);
        } else {
            run();
        }
        if trace {
            let k1 = crate::domain::stop::counted_by_kind();
            eprintln!(
                "polyfocus: work: {} {:?} {:.3} s, budget {:?}, solver {}, conversion {}, steps {}",
                inputs.func.name,
                stage.step,
                t0.elapsed().as_secs_f64(),
                meter,
                k1[0] - k0[0],
                k1[1] - k0[1],
                k1[2] - k0[2]
            );
        }
        let searched = if searching {
            crate::domain::stop::counted().saturating_sub(before)
        } else {
            0
        };
        ran.push(Ran {
            step: stage.step,
            until: allowance.until,
            work_ends,
            searched,
        });
    }
}

/// Pass 1: the interval stage, limited by its budget of work.
pub(super) fn first_pass(params: &Params) -> Vec<PipelineStage> {
    vec![PipelineStage {
        step: Step::Interval,
        wanted: |_, _| true,
        share: Share {
            time: TimeShare::Whole,
            work: Some(params.stages.interval_work),
            metered: false,
        },
        run: super::fixpoint::interval_stage,
    }]
}

/// Pass 2: every stage after the interval stage, `D` the engine's domain and `P` the one
/// refinement runs in. `searching`: a counterexample search is configured.
pub(super) fn second_pass<D: NumericDomain, P: NumericDomain>(
    params: &Params,
    searching: bool,
) -> Vec<PipelineStage> {
    let p = &params.stages;
    // The stages between the engine and the full search take their shares of at most
    // `share_reference`: what they prove on the benchmark set they prove within the shares
    // of a 10 s budget, and with shares of a 60 s budget they spent up to six times longer
    // before the same `unknown`.
    let shared = Reference::AtMost(p.share_reference);
    let quick_search = Share::time(TimeShare::BuildThenSearch {
        build_divisor: p.early_build_divisor,
        search_divisor: p.quick_search_divisor,
        search_cap: p.quick_search_cap,
    });
    vec![
        // A shallow bug is refuted even when the engine cannot finish (segments over arrays
        // make its formulas large), and the engine's time is not lost on a false assertion;
        // elsewhere the short search comes after the engine, so that a function the engine
        // settles does not pay for the native build.
        PipelineStage {
            step: Step::QuickCexBeforeEngine,
            wanted: |i, s| {
                i.cex.is_some() && i.reads_memory && i.refines() && s.progress.any_imprecise()
            },
            share: quick_search,
            run: super::search::quick,
        },
        // Where polynomial identities settle every assertion, the engine has nothing left to
        // do, and its time no longer decides whether they are tried.
        PipelineStage {
            step: Step::AlgebraicEqualities,
            wanted: |i, s| {
                i.config.purpose == super::Purpose::Verdicts
                    && i.config.params.stages.solver_stages
                    && s.progress.any_imprecise()
                    && super::polyeq::has_product_of_values(i.func)
            },
            share: Share::time(TimeShare::FromStageStart {
                of: shared,
                fraction: p.engine_share / 2.0,
            }),
            run: super::polyeq::before_engine,
        },
        PipelineStage {
            step: Step::Engine,
            wanted: |i, s| {
                s.found.is_none()
                    || i.config.purpose == super::Purpose::Invariants
                    || s.progress.any_imprecise()
            },
            // With a search to come, the engine leaves it a share: an engine that cannot
            // finish (a diamond of ten branches over wrapping arithmetic) would otherwise use
            // all of it, and a bug one input away would stay unknown.
            share: Share {
                time: TimeShare::FromFunctionStart {
                    of: Reference::Budget,
                    fraction: if searching { p.engine_share } else { 1.0 },
                },
                work: (p.engine_work > 0).then_some(p.engine_work),
                metered: true,
            },
            run: super::fixpoint::engine_stage::<D>,
        },
        PipelineStage {
            step: Step::PolynomialEqualities,
            // Not when the engine gave no invariants and the pass before it tried every
            // degree: it would find the same.
            wanted: |i, s| {
                i.config.params.stages.solver_stages
                    && s.progress.any_imprecise()
                    && (s.complete() || !s.equalities_exhausted)
            },
            share: Share::metered(TimeShare::FromStageStart {
                of: shared,
                fraction: p.engine_share / 3.0,
            }),
            run: super::polyeq::after_engine,
        },
        PipelineStage {
            step: Step::Congruences,
            wanted: |i, s| {
                i.config.params.stages.solver_stages && s.complete() && s.progress.any_imprecise()
            },
            share: Share::metered(TimeShare::FromFunctionStart {
                of: shared,
                fraction: p.congruence_share,
            }),
            run: super::congruences::congruences,
        },
        PipelineStage {
            step: Step::QuickCex,
            wanted: |i, s| {
                i.cex.is_some()
                    && !i.reads_memory
                    && i.refines()
                    && s.complete()
                    && s.progress.any_imprecise()
            },
            share: quick_search,
            run: super::search::quick,
        },
        PipelineStage {
            step: Step::CareSet,
            wanted: |i, s| {
                i.refines()
                    && s.complete()
                    && i.config.params.care_set.enabled
                    && s.progress.any_imprecise()
            },
            share: Share::metered(TimeShare::FromFunctionStart {
                of: shared,
                fraction: params.care_set.share,
            }),
            run: super::careset::care_set_stage::<D>,
        },
        // An engine that took most of the share on a slow machine (copysome1-1: 4 to 5 s of
        // selects in a 10 s budget) would otherwise leave refinement nothing, and its first
        // round, which proves the assertion in 0.1 s, would run or not depending on the
        // machine's speed.
        PipelineStage {
            step: Step::Refine,
            wanted: |i, s| i.refines() && s.complete() && s.progress.any_imprecise(),
            share: Share::metered(TimeShare::FromFunctionStartAtLeast {
                of: shared,
                fraction: p.refinement_share,
                floor: p.refinement_floor,
            }),
            run: super::refinement::refinement::<P>,
        },
        // After refinement, which the stages before leave their shares to. Counted in at
        // most `relational_share_reference`: with a 60 s budget, template bounds spent 12 s
        // of trip_count.c's time to an `unknown`; counted in 10 s (2 s), heapsort.i's
        // proof, 2.4 s at load 16, was lost.
        PipelineStage {
            step: Step::RelationalCongruences,
            wanted: |i, s| {
                s.complete()
                    && i.config.params.precision.relational_congruences
                    && s.progress.any_imprecise()
            },
            share: Share::time(TimeShare::FromStageStart {
                of: Reference::AtMost(p.relational_share_reference),
                fraction: p.relational_congruence_share,
            }),
            run: super::relational::relational_congruences,
        },
        PipelineStage {
            step: Step::TemplateBounds,
            wanted: |_, s| s.relational.is_some() && s.progress.any_imprecise(),
            share: Share::time(TimeShare::RestOf(Step::RelationalCongruences)),
            run: super::relational::template_bounds,
        },
        PipelineStage {
            step: Step::FullCex,
            wanted: |i, _| i.cex.is_some(),
            share: Share::time(TimeShare::AllButMargin {
                margin_divisor: p.final_margin_divisor,
                margin_min: p.final_margin_min,
            }),
            run: super::search::full,
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{IntervalDomain, Polyhedron};

    fn clock(budget_ms: u64) -> Clock {
        Clock::new(
            crate::clock::now(),
            Duration::from_millis(budget_ms),
            &Params::DEFAULT,
        )
    }

    /// The stages of pass 2 run in the order the module's table documents.
    #[test]
    fn second_pass_is_in_documented_order() {
        let steps: Vec<Step> = second_pass::<Polyhedron, Polyhedron>(&Params::DEFAULT, true)
            .iter()
            .map(|s| s.step)
            .collect();
        assert_eq!(
            steps,
            [
                Step::QuickCexBeforeEngine,
                Step::AlgebraicEqualities,
                Step::Engine,
                Step::PolynomialEqualities,
                Step::Congruences,
                Step::QuickCex,
                Step::CareSet,
                Step::Refine,
                Step::RelationalCongruences,
                Step::TemplateBounds,
                Step::FullCex,
            ]
        );
        let first: Vec<Step> = first_pass(&Params::DEFAULT)
            .iter()
            .map(|s| s.step)
            .collect();
        assert_eq!(first, [Step::Interval]);
    }

    /// Every step reports under a distinct name but the searches and the two passes of
    /// polynomial equalities, which are the same kind of work.
    #[test]
    fn reported_names_say_what_ran() {
        assert_eq!(
            Step::AlgebraicEqualities.reported().name(),
            "polynomial equalities"
        );
        assert_eq!(
            Step::PolynomialEqualities.reported().name(),
            "polynomial equalities"
        );
        assert_eq!(Step::Engine.reported().name(), "analysis");
        assert_eq!(Step::TemplateBounds.reported().name(), "template bounds");
        assert_eq!(
            Step::RelationalCongruences.reported().name(),
            "relational congruences"
        );
        for step in [Step::QuickCexBeforeEngine, Step::QuickCex, Step::FullCex] {
            assert_eq!(step.reported().name(), "counterexample search");
        }
    }

    /// The engine's share: all of the budget without a search, `engine_share` of it with
    /// one, counted in work at the stages' rate, its time a net of `time_net` times the
    /// share; steps counted only when `engine_work` is set.
    #[test]
    fn engine_share_depends_on_the_search() {
        let engine = |searching: bool, params: &Params| {
            second_pass::<IntervalDomain, IntervalDomain>(params, searching)
                .into_iter()
                .find(|s| s.step == Step::Engine)
                .map(|s| s.share)
                .expect("an engine stage")
        };
        let c = clock(10_000);
        let p = &Params::DEFAULT.stages;
        let net = c.budget.mul_f64(p.time_net);
        let alone = engine(false, &Params::DEFAULT).allowance(&c, &[]);
        assert_eq!(alone.meter, Some(10 * p.work_per_second));
        assert!(alone.until > c.ends && alone.until <= c.started + net);
        assert_eq!(alone.work, None);
        let with_search = engine(true, &Params::DEFAULT).allowance(&c, &[]);
        let share = c.budget.mul_f64(p.engine_share);
        let expected = (share.as_secs_f64() * p.work_per_second as f64) as u64;
        assert_eq!(with_search.meter, Some(expected));
        assert!(with_search.until > c.started + share);
        assert!(with_search.until <= c.started + share.mul_f64(p.time_net));
        let mut params = Params::DEFAULT;
        params.stages.engine_work = 1000;
        assert_eq!(engine(true, &params).work, Some(1000));
    }

    /// No share reaches past the pass's end, whatever its fraction or floor.
    #[test]
    fn shares_end_by_the_pass_end() {
        let c = clock(50);
        let shares = [
            TimeShare::Whole,
            TimeShare::FromFunctionStart {
                of: Reference::Budget,
                fraction: 3.0,
            },
            TimeShare::FromStageStart {
                of: Reference::AtMost(Duration::from_secs(60)),
                fraction: 2.0,
            },
            TimeShare::FromFunctionStartAtLeast {
                of: Reference::Budget,
                fraction: 0.5,
                floor: 4.0,
            },
            TimeShare::BuildThenSearch {
                build_divisor: 1,
                search_divisor: 1,
                search_cap: Duration::from_secs(1),
            },
            TimeShare::AllButMargin {
                margin_divisor: 20,
                margin_min: Duration::from_millis(300),
            },
        ];
        for time in shares {
            let a = Share::time(time).allowance(&c, &[]);
            assert!(a.until <= c.ends, "{time:?}");
        }
        // A margin larger than the budget leaves the search nothing.
        let margin = Share::time(TimeShare::AllButMargin {
            margin_divisor: 20,
            margin_min: Duration::from_millis(300),
        });
        assert_eq!(margin.allowance(&c, &[]).until, c.started);
    }

    /// A share counted in `share_reference` is a fraction of at most that, whatever the
    /// function's budget.
    #[test]
    fn reference_caps_long_budgets() {
        let c = clock(60_000);
        let a = Share::time(TimeShare::FromFunctionStart {
            of: Reference::AtMost(Duration::from_secs(10)),
            fraction: 0.5,
        })
        .allowance(&c, &[]);
        assert_eq!(a.until, c.started + Duration::from_secs(5));
    }

    /// A metered share is its seconds at the rate, less the function's work so far when
    /// counted from the function's start; the rest of an earlier share is what is left of
    /// its work. Without a rate, no share is metered.
    #[test]
    fn metered_shares_count_work() {
        let mut params = Params::DEFAULT;
        params.stages.work_per_second = 1000;
        let c = Clock::new(crate::clock::now(), Duration::from_secs(10), &params);
        let of = Reference::Budget;
        let from_start = Share::metered(TimeShare::FromFunctionStart { of, fraction: 0.5 });
        assert_eq!(from_start.allowance(&c, &[]).meter, Some(5000));
        crate::domain::stop::charge(crate::domain::stop::Work::Step, 1000);
        assert_eq!(from_start.allowance(&c, &[]).meter, Some(4000));
        let from_stage = Share::metered(TimeShare::FromStageStart { of, fraction: 0.1 });
        let stage = from_stage.allowance(&c, &[]);
        assert_eq!(stage.meter, Some(1000));
        // Its time is a net of `time_net` times the second it stands for.
        let net = Duration::from_secs(1).mul_f64(params.stages.time_net);
        assert!(stage.until > crate::clock::now() + Duration::from_secs(1));
        assert!(stage.until <= crate::clock::now() + net);
        let at_least = Share::metered(TimeShare::FromFunctionStartAtLeast {
            of,
            fraction: 0.1,
            floor: 0.5,
        });
        assert_eq!(at_least.allowance(&c, &[]).meter, Some(500));
        // A search's work does not count against the shares after it.
        let searched = [Ran {
            step: Step::QuickCex,
            until: c.ends,
            work_ends: None,
            searched: 2000,
        }];
        crate::domain::stop::charge(crate::domain::stop::Work::Step, 2000);
        assert_eq!(from_start.allowance(&c, &searched).meter, Some(4000));
        let counted = crate::domain::stop::counted();
        let ran = [Ran {
            step: Step::RelationalCongruences,
            until: c.ends,
            work_ends: Some(counted + 300),
            searched: 0,
        }];
        let rest = Share::metered(TimeShare::RestOf(Step::RelationalCongruences));
        assert_eq!(rest.allowance(&c, &ran).meter, Some(300));
        assert_eq!(rest.allowance(&c, &[]).meter, Some(0));
        // A wall-clock share, or no rate: no budget of work.
        assert_eq!(Share::time(TimeShare::Whole).allowance(&c, &[]).meter, None);
        params.stages.work_per_second = 0;
        let plain = Clock::new(crate::clock::now(), Duration::from_secs(10), &params);
        assert_eq!(from_stage.allowance(&plain, &[]).meter, None);
    }

    /// The rest of an earlier stage's share is what it had; nothing when it did not run.
    #[test]
    fn rest_of_an_earlier_share() {
        let c = clock(10_000);
        let share = Share::time(TimeShare::RestOf(Step::RelationalCongruences));
        let until = c.started + Duration::from_secs(2);
        let ran = [
            Ran {
                step: Step::Refine,
                until: c.ends,
                work_ends: None,
                searched: 0,
            },
            Ran {
                step: Step::RelationalCongruences,
                until,
                work_ends: None,
                searched: 0,
            },
        ];
        assert_eq!(share.allowance(&c, &ran).until, until);
        let before = crate::clock::now();
        let none = share.allowance(&c, &ran[..1]).until;
        assert!(none >= before && none <= crate::clock::now());
    }
}
