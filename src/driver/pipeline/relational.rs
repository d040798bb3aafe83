//! [`Step::Congruences`], relational part (issue 17): for the assertions still imprecise
//! after the non-relational congruences, the relational congruences of the cut points
//! (`analysis::relational_congruence`: affine lattices of the live values, found by the
//! solver next to the engine's invariants) and a query per cut point that reaches an open
//! error site. The engine's invariants, the congruences and the lattices are true of every
//! execution, so an unsat query is a proof; a solver `unknown` proves nothing, and an
//! analysis that did not reach its fixpoint in time gives no lattices at all.

use super::{settled, Facts, Found, Progress, Step};
use crate::analysis::congruence;
use crate::analysis::relational_congruence::{self, Limits};
use crate::analysis::template_bounds;
use crate::check::{StageEnd, StageRun};
use crate::params::StageParams;
use crate::smt::RegionFormula;
use std::collections::BTreeMap;
use std::time::Instant;

/// Runs the stage until `deadline`; settles the open assertions it proves.
pub(super) fn relational_congruences(
    facts: &Facts<'_>,
    found: &Found,
    params: &StageParams,
    deadline: Instant,
    progress: &mut Progress,
) {
    let started = Instant::now();
    if deadline <= started {
        return;
    }
    crate::progress::stage(|| "relational congruences".into());
    let ctx = facts.ctx;
    let graph = ctx.graph();
    let classes = congruence::analyze(ctx.func(), ctx.readings());
    let limits = Limits {
        deadline,
        query: params.congruence_query,
    };
    let Some(relations) =
        relational_congruence::analyze(ctx, &found.at_cut_points, &classes, limits)
    else {
        progress.stages.push(StageRun {
            stage: Step::Congruences.reported(),
            elapsed: started.elapsed(),
            end: StageEnd::Timeout,
            detail: Some("relational congruences: no fixpoint in time".into()),
        });
        return;
    };
    let mut formulas: BTreeMap<crate::graph::CutPointId, RegionFormula> = BTreeMap::new();
    let (mut proved, mut open) = (0usize, 0usize);
    let mut end = StageEnd::Finished;
    for (i, b) in facts.error_blocks.iter().enumerate() {
        if !progress.table.is_imprecise(i) {
            continue;
        }
        open += 1;
        let Some(error) = graph.cut_of_block(*b) else {
            continue;
        };
        if end == StageEnd::Timeout {
            continue;
        }
        let side = |p| {
            let mut side = classes.facts_at(ctx, p);
            side.extend(relations.facts_at(p));
            Some(side)
        };
        let excluded = match super::error_unreachable_with(
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
    // Bounds of linear templates (analysis::template_bounds), next to the congruences
    // and the lattices, for the assertions still open.
    let mut bounds_detail = String::new();
    if proved < open && end == StageEnd::Finished {
        let known = |p| {
            let mut side = classes.facts_at(ctx, p);
            side.extend(relations.facts_at(p));
            side
        };
        let limits = template_bounds::Limits {
            deadline,
            query: params.congruence_query,
        };
        match template_bounds::analyze(ctx, &found.at_cut_points, &known, limits) {
            None => {
                end = StageEnd::Timeout;
                bounds_detail = "; template bounds: no fixpoint in time".into();
            }
            Some(bounds) => {
                let mut by_bounds = 0usize;
                let mut formulas: BTreeMap<crate::graph::CutPointId, RegionFormula> =
                    BTreeMap::new();
                for (i, b) in facts.error_blocks.iter().enumerate() {
                    if !progress.table.is_imprecise(i) || end == StageEnd::Timeout {
                        continue;
                    }
                    let Some(error) = graph.cut_of_block(*b) else {
                        continue;
                    };
                    let side = |p| {
                        let mut side = known(p);
                        side.extend(bounds.facts_at(p));
                        Some(side)
                    };
                    match super::error_unreachable_with(
                        facts,
                        found,
                        error,
                        &mut formulas,
                        params.congruence_query,
                        deadline,
                        side,
                    ) {
                        Some(true) => {
                            settled(progress.table.prove(i));
                            by_bounds += 1;
                        }
                        Some(false) => {}
                        None => end = StageEnd::Timeout,
                    }
                }
                proved += by_bounds;
                bounds_detail = format!(
                    "; {by_bounds} by {} template bounds at cut points",
                    bounds.count()
                );
            }
        }
    }
    progress.stages.push(StageRun {
        stage: Step::Congruences.reported(),
        elapsed: started.elapsed(),
        end,
        detail: Some(format!(
            "relational: {proved} of {open} open assertions proved; {} congruences at cut points{bounds_detail}",
            relations.count()
        )),
    });
}
