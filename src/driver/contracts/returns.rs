//! Summaries of what the functions that stay calls return, outside recursive cycles: the
//! invariant at the function's returns, over its integer parameters, the returned value
//! and the integers it leaves where its out-parameters point (`r <= n`, `0 <= r <= 1`,
//! `r == a + b`, `*val < 1 << n` after `*val = x & mask(n)`), assumed after each of its
//! calls instead of an arbitrary result and arbitrary integers there.
//!
//! **How.** The functions are taken callees first (`frontend::Program::return_summary_targets`).
//! Each is lifted with every return of an integer jumping to one error site, where the
//! returned value, the parameters and a read of each out-parameter at the return (a
//! pointer parameter the function stores integers of one width to, `*p = x`) are live
//! (`frontend::Program::lift_return_probe`), the summaries found so far assumed after its
//! own calls, and analyzed once, by the classic engine over polyhedra. The constraints of
//! its complete fixpoint at that site, over those values, are the summary's clauses.
//!
//! **Why it holds.** The analysis over-approximates the states in which the function
//! returns, from any arguments and memory, given that its callees return within their
//! summaries (found before it, or certified contracts of recursive functions): every return
//! satisfies each constraint. An execution that fails one of its checks ends there (it
//! does not return), as in the analysis of the program, where a path through an error site
//! ends too. An out-parameter's read at a return gives, as every load the memory model
//! lowers, a value the bytes at the pointer may hold there, so the constraint holds of
//! the bytes the caller finds at that address right after the call (its own read of them
//! also gives a value they may hold, so assuming the constraint of it removes no
//! execution); where the pointer has no object (`NULL`, untouched), the read is arbitrary,
//! and no constraint can exclude a value of it. A clause is kept only when the lifter's
//! evaluation of it
//! (`frontend::contract`: sign-extended readings summed in wrapping `i64`) is the
//! constraint: every value it reads is read signed by the analysis, or lies where the
//! signed and unsigned readings agree, and the sum cannot wrap within the values' bounds
//! (an atom `±x + c >= 0` whose bound fits `x`'s width is one comparison in that width).
//!
//! **Bounded by work, not time.** Each analysis runs under
//! `params::ContractParams::return_work` units of counted work (`domain::stop`: the
//! engine's steps and the polyhedra's conversions), and all of them under
//! `params::ContractParams::returns_work`, so the summaries, hence the verdicts, are the
//! same under any load; time is a safety net only (a function stopped by it, or by its
//! work, gets no summary).

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

use num_traits::{Signed, ToPrimitive, Zero};

use super::round_config;
use crate::analysis::focus::CutFacts;
use crate::analysis::lower::Lowering;
use crate::analysis::refine::SlotAssignment;
use crate::analysis::{Deadline, Outcome};
use crate::budget::MemoryBudget;
use crate::context::FunctionContext;
use crate::domain::{ConsKind, Int, LinCons, LinExpr, NumericDomain, Polyhedron, Var};
use crate::driver::engine::run_engine;
use crate::driver::{AnalysisConfig, Engine};
use crate::frontend::contract::{one_comparison_bound, Atom, Clause, Contract, Contracts, Slot};
use crate::frontend::{Program, ReturnProbe};
use crate::ir::{self, Interp, Terminator};

/// Adds to `contracts` the summaries of the returns of `program`'s functions that stay
/// calls (see the module docs), under the budgets of work of `config`; `deadline` is a
/// safety net. Functions that already have a contract keep it.
pub(super) fn summarize(
    program: &Program<'_>,
    config: &AnalysisConfig,
    contracts: &mut Contracts,
    deadline: Instant,
) {
    let round = round_config(config);
    let started = Instant::now();
    let (mut analyzed, mut summarized) = (0, 0);
    let mut left = config.params.contracts.returns_work;
    for name in program.return_summary_targets() {
        if left == 0 || Instant::now() >= deadline {
            break;
        }
        if contracts.contains_key(&name) {
            continue;
        }
        let Some((func, probe)) = program.lift_return_probe(&name, contracts) else {
            continue;
        };
        let work = config.params.contracts.return_work.min(left);
        let stop = Deadline::after(round.timeout)
            .with_memory(MemoryBudget::from_now(config.memory_per_function));
        let one = Instant::now();
        let counted = crate::domain::stop::counted();
        let ends = crate::clock::now() + round.timeout;
        // An internal error in one analysis costs that summary only.
        let summary = catch_unwind(AssertUnwindSafe(|| {
            crate::domain::stop::within(ends, Some(work), || {
                summary_of(&func, &probe, &round, &stop)
            })
        }))
        .unwrap_or_default();
        let spent = crate::domain::stop::counted().saturating_sub(counted);
        left = left.saturating_sub(spent);
        if config.params.trace.work {
            eprintln!(
                "polyfocus: work: return summary of {name}: {} blocks, {} values, counted \
                 {spent}, {} clauses, {:.3} s",
                func.blocks.len(),
                func.values.len(),
                summary.len(),
                one.elapsed().as_secs_f64()
            );
        }
        analyzed += 1;
        summarized += usize::from(!summary.is_empty());
        if !summary.is_empty() {
            contracts.insert(
                name,
                Contract {
                    context: vec![],
                    summary,
                },
            );
        }
    }
    if config.params.trace.work {
        eprintln!(
            "polyfocus: work: return summaries: {analyzed} functions analyzed, {summarized} \
             summarized, {left} units of work left, {:.3} s",
            started.elapsed().as_secs_f64()
        );
    }
}

/// The clauses the complete analysis of `func` gives at its probe site; none when it does
/// not complete.
fn summary_of(
    func: &ir::Function,
    probe: &ReturnProbe,
    config: &AnalysisConfig,
    deadline: &Deadline,
) -> Vec<Clause> {
    let Some(site) = func
        .blocks
        .iter()
        .position(|b| b.term == Terminator::Error(probe.check))
    else {
        return vec![];
    };
    let ctx = FunctionContext::new(func, &config.params);
    let lowering = Lowering::new(&ctx);
    let run = run_engine::<Polyhedron>(
        &lowering,
        Engine::Classic,
        &SlotAssignment::default(),
        &CutFacts::none(),
        deadline,
    );
    if run.outcome != Outcome::Complete {
        return vec![];
    }
    // Unreachable: the function never returns an integer, which no clause can say.
    let Some(state) = run.invariants.at(ir::BlockId(site as u32)) else {
        return vec![];
    };
    let layout = lowering.layout();
    let params = probe.params.iter().map(|&(i, v)| (Slot::Param(i), v));
    let outs = (probe.outs.iter()).map(|&(param, bits, v)| (Slot::Out { param, bits }, v));
    let slots: BTreeMap<Var, (Slot, ir::ValueId)> = (params.chain(outs))
        .chain([(Slot::Ret, probe.value)])
        .map(|(slot, v)| (layout.value_var(v), (slot, v)))
        .collect();
    let others: Vec<Var> = layout
        .dims()
        .map(|(var, _)| var)
        .filter(|var| !slots.contains_key(var))
        .collect();
    let mut state = state.clone();
    state.forget(&others);
    // Per value, its bounds in the state as the analysis reads it, when that reading is the
    // signed one the lifter's evaluation uses.
    let mut signed: BTreeMap<Var, (Int, Int)> = BTreeMap::new();
    for (&var, &(_, v)) in &slots {
        let (lo, hi) = lowering.range(v);
        let b = state.bound(&LinExpr::var(var));
        let lo = b.lo.map_or(lo.clone(), |r| r.ceil().to_integer().max(lo));
        let hi = b.hi.map_or(hi.clone(), |r| r.floor().to_integer().min(hi));
        let width = func.value(v).ty.width;
        let smax = (Int::from(1) << (width - 1)) - 1;
        let agrees = match ctx.reading(v) {
            Interp::Signed => true,
            Interp::Unsigned => hi <= smax,
        };
        if agrees && lo <= hi {
            signed.insert(var, (lo, hi));
        }
    }
    state
        .to_cons()
        .iter()
        .filter_map(|c| atom_of(c, &slots, &signed, func))
        .map(|atom| Clause {
            guard: vec![],
            atom,
        })
        .collect()
}

/// `c` as an atom over the slots, when the lifter's evaluation of the atom is `c` on every
/// state within `signed` (see the module docs).
fn atom_of(
    c: &LinCons,
    slots: &BTreeMap<Var, (Slot, ir::ValueId)>,
    signed: &BTreeMap<Var, (Int, Int)>,
    func: &ir::Function,
) -> Option<Atom> {
    let limit = Int::from(1) << 62;
    let mut magnitude = c.expr.constant_part().abs();
    let mut terms = Vec::new();
    let mut widths = Vec::new();
    for (var, a) in c.expr.terms() {
        if a.is_zero() {
            continue;
        }
        let (slot, v) = slots.get(&var)?;
        let (lo, hi) = signed.get(&var)?;
        magnitude += a.abs() * lo.abs().max(hi.abs());
        terms.push((*slot, a.to_i64()?));
        widths.push(func.value(*v).ty.width);
    }
    let constant = c.expr.constant_part().to_i64()?;
    // One comparison where the lifter evaluates it (`x >= 0` over a 64-bit value): nothing
    // to wrap.
    let one_comparison = match (&terms[..], &widths[..]) {
        ([(_, coef)], [width]) => one_comparison_bound(*coef, constant, *width).is_some(),
        _ => false,
    };
    // A constraint over no value says nothing of a return; a sum that may leave `i64`
    // would wrap in the lifter's evaluation.
    if terms.is_empty() || (magnitude >= limit && !one_comparison) {
        return None;
    }
    Some(Atom {
        terms,
        constant,
        is_eq: c.kind == ConsKind::Eq,
    })
}
