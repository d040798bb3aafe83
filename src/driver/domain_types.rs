//! Domain types where the engine is set up: which values path focusing tracks at cut points
//! (`context::domain_types` classifies them; `analysis::focus::CutFacts` forgets the others,
//! which the interval stage's facts then bound).

use super::{AnalysisConfig, DomainKind, Engine, Purpose};
use crate::analysis::focus::CutFacts;
use crate::analysis::FunctionContext;
use crate::check::DomainTypeStats;
use crate::context::domain_types::{cone_of_influence, DomainTypes};
use crate::ir::BlockId;

/// The facts the engine runs with, and the classification when it was used: with domain
/// types on, a relational domain, the focus engine and facts to bound what it forgets,
/// the facts leave untracked every value outside the relational packs that meet the cone of
/// influence of `open` (the error blocks of the assertions still open). A run for
/// invariants (`polyfocus invariants`) keeps every value: its invariants are the output.
pub(super) fn engine_facts(
    ctx: &FunctionContext<'_>,
    config: &AnalysisConfig,
    facts: &CutFacts,
    open: &[BlockId],
) -> (CutFacts, Option<DomainTypeStats>) {
    let relational = !matches!(
        config.domain,
        DomainKind::Interval | DomainKind::IntervalPred | DomainKind::IntervalPredProduct
    );
    if !config.params.domain_types.enabled
        || config.purpose != Purpose::Verdicts
        || config.engine != Engine::Focus
        || !relational
        || facts.is_empty()
    {
        return (facts.clone(), None);
    }
    let func = ctx.func();
    let types = DomainTypes::classify(func, ctx.graph());
    let relevant = cone_of_influence(func, open);
    let tracked = types.tracked(&relevant);
    let layout = ctx.layout();
    let untracked = (0..func.values.len())
        .map(|i| crate::ir::ValueId(i as u32))
        .filter(|v| !tracked.contains(v))
        .map(|v| layout.value_var(v))
        .collect();
    let counts = types.counts();
    let stats = DomainTypeStats {
        counts,
        relevant: relevant.len(),
        tracked: tracked.len(),
    };
    (facts.clone().untracking(untracked), Some(stats))
}
