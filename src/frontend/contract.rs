//! Contracts of the functions that stay calls (issue 15, recursion): a *summary* (clauses
//! `guard → atom` over the parameters at entry and the returned value) and, in a closed
//! program, a *calling context* (atoms over the parameters that hold at every call).
//!
//! A contract is found by Houdini over templates: start from every candidate atom of the
//! templates, lift the recursive functions and their callers in *certify* mode (each
//! candidate is assumed where it is used and checked where it must hold, see
//! [`super::lift::LiftOptions`]), let the analysis prove what it can (the `prover` given to
//! [`super::load_with_contracts`]: the ordinary driver, sound by construction), drop the
//! candidates with an obligation left open, and repeat until every remaining obligation is
//! proved. Only that last set is used; when rounds or time run out, no contract is.
//!
//! There are two searches. The first one has the linear templates ([`candidates`]). The
//! second one starts from what the first certified and adds *guarded* clauses
//! ([`guarded_candidates`]): tabulated ones, `p == k → r == f(k)` for each `k` of a small
//! certified range of `p` (or of a window above the function's base cases), and region
//! ones, `p >= t → r - p == b`, `p <= t → r >= c`, ... for thresholds `t` the code compares
//! with. Their constants come from evaluating the function on constants
//! ([`super::evaluate`]); nothing is assumed for that: every clause is certified like the
//! others. A clause guarded by one atom over one parameter is checked in a *specialized
//! copy* of its function, lifted with the guard assumed at its entry (the function itself
//! does not check it): the copy is the same code, so it covers every execution in which
//! the guard holds, and the analysis, which joins convexly, sees there the one case of
//! each call that the guard selects (`n == 6` calls with `n - 1 == 5`). At a call, these
//! clauses are assumed as a partition of the argument's values (`lift::assume_cases`).
//! The second search gets what the first one left of the budget of work; when it runs
//! out, the first search's contracts are used alone.
//!
//! The searches are bounded by work, not time (issue 15): each round's analysis runs under
//! budgets of work per function (interval stage and engine, `StageParams::engine_work`)
//! without the stages that ask the solver under a wall-clock cap, and the prover reports
//! the steps it spent, which are taken from a budget of the whole search
//! ([`SearchBudget`]). The rounds, what they prove, hence the contracts, are then the same
//! under any load. A deadline remains as a safety net only: when it passes, the search gives
//! no contract.
//!
//! Why the last set is sound (assume-guarantee over the order of events of one execution):
//! each obligation was proved assuming only (a) the contexts of the function it is in, at
//! its entry (and, in a specialized copy, the guard of the clauses it checks, which holds
//! on every execution the obligation is about), and (b) the summaries of the calls that
//! returned before it. Take the first event of an execution that breaks a contract: a
//! call whose arguments leave the callee's context, or a return whose value leaves its
//! summary. Everything its proof assumed happened earlier, so it held, so the proof covers
//! the event: there is no first breaking event. A call that does not return has no return
//! to constrain. The same argument holds for the union of the two searches' sets (each
//! proof assumed a subset of the union), which is what is used.
//!
//! Every atom is evaluated by the same IR instructions where it is checked and where it is
//! assumed (`Σ coef·sext64(x) + constant` in wrapping `i64`, then `>= 0` or `== 0`; one
//! comparison in `x`'s width when it has one term and the constant fits): what is assumed
//! is exactly what was proved, whatever the readings the engines choose. The tests of the
//! partition at a call are atoms of the same form as the guards.
//!
//! A summary says nothing about memory: the call still clobbers what the callee may reach.
//! A context exists only when the function can be entered from nowhere but its direct calls:
//! a closed program started by `main`, the function's address never escapes and the library
//! never calls it by name; every caller is then lifted and its calls checked.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::time::Instant;

use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::LLVMOpcode;

use super::evaluate::Evaluator;
use super::raw;
use crate::ir::{self, CheckId};

/// Where an atom reads: a parameter (its position in the LLVM function, integer parameters
/// only) or the returned value.
#[derive(Clone, Copy, PartialEq, Eq, Debug, PartialOrd, Ord)]
pub enum Slot {
    /// The parameter at this position.
    Param(usize),
    /// The value the function returns.
    Ret,
}

/// `Σ coef·x + constant >= 0` (or `== 0` when `is_eq`), over sign-extended `i64` readings,
/// in wrapping `i64` arithmetic (what the lifter emits; see the module docs).
#[derive(Clone, PartialEq, Eq, Debug, PartialOrd, Ord)]
pub struct Atom {
    /// The terms.
    pub terms: Vec<(Slot, i64)>,
    /// The constant.
    pub constant: i64,
    /// Equality rather than `>= 0`.
    pub is_eq: bool,
}

impl Atom {
    fn ge(terms: Vec<(Slot, i64)>, constant: i64) -> Atom {
        Atom {
            terms,
            constant,
            is_eq: false,
        }
    }

    fn reads_ret(&self) -> bool {
        self.terms.iter().any(|(s, _)| *s == Slot::Ret)
    }
}

/// `guard → atom` (every atom of the guard holds, then the atom holds).
#[derive(Clone, PartialEq, Eq, Debug, PartialOrd, Ord)]
pub struct Clause {
    /// Conjunction of atoms over the parameters.
    pub guard: Vec<Atom>,
    /// The consequence.
    pub atom: Atom,
}

/// The contract of one function.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Contract {
    /// Atoms over the parameters that hold at every call (assumed at the entry).
    pub context: Vec<Atom>,
    /// What every return satisfies, given the parameters at the entry.
    pub summary: Vec<Clause>,
}

impl Contract {
    fn is_empty(&self) -> bool {
        self.context.is_empty() && self.summary.is_empty()
    }
}

/// The contracts of a module, by function name.
pub type Contracts = BTreeMap<String, Contract>;

/// What a check of a function lifted in certify mode stands for.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Obligation {
    /// Clause `clause` of `function`'s summary, at one of its returns.
    Summary { function: String, clause: usize },
    /// Atom `atom` of `function`'s context, at one of its call sites.
    Context { function: String, atom: usize },
}

/// Proves what it can of a module: the ids of the checks proved, and the steps of work the
/// analysis spent (its budgets of work, not time, bound it, so the same module gives the
/// same answer under any load). It must be sound (the driver's analysis without
/// counterexample search); what it leaves open is dropped.
pub type Prover<'a> = &'a dyn Fn(&ir::Module) -> (BTreeSet<CheckId>, u64);

/// What a search may spend: steps of work (what the prover reports), the real bound, and a
/// point in time, a safety net only (a search stopped by it gives no contract, so it can
/// cost a proof under load, never make one).
#[derive(Clone, Copy, Debug)]
pub struct SearchBudget {
    /// Steps of work left.
    pub work: u64,
    /// The safety net.
    pub deadline: Instant,
}

/// Limits of the search: rounds of Houdini, at most (each drops a candidate or ends the
/// search; past it no contract is used, which is sound).
const MAX_ROUNDS: usize = 16;
/// Constants read from the program for the templates, at most this many (a guard on the
/// number of candidates, each an obligation of every round).
const MAX_CONSTANTS: usize = 16;
/// Constants larger than this are not used in templates (sizes and masks rather than
/// bounds of a recursion).
const MAX_TEMPLATE_CONSTANT: i64 = 1 << 24;

/// What the search works on.
pub struct Scope {
    /// Functions with a contract candidate (in a recursive cycle of the call graph).
    pub recursive: Vec<LLVMValueRef>,
    /// Every function lifted in certify mode: the recursive ones and the callers of those
    /// that get a context.
    pub participants: Vec<LLVMValueRef>,
    /// The recursive functions that may get a context.
    pub with_context: HashSet<LLVMValueRef>,
}

/// The recursive functions of `m` and who must be lifted to certify their contracts.
/// `closed_main` says the program is closed and starts in `main`, the condition for contexts.
pub fn scope(m: LLVMModuleRef, closed_main: bool) -> Scope {
    let graph = super::normalize::call_graph(m);
    let defined: Vec<LLVMValueRef> = raw::functions(m)
        .into_iter()
        .filter(|f| raw::is_defined(*f))
        .collect();
    let reaches = |from: LLVMValueRef, to: LLVMValueRef| -> bool {
        let mut stack = graph.get(&from).cloned().unwrap_or_default();
        let mut seen: HashSet<LLVMValueRef> = HashSet::new();
        while let Some(f) = stack.pop() {
            if f == to {
                return true;
            }
            if seen.insert(f) {
                stack.extend(graph.get(&f).cloned().unwrap_or_default());
            }
        }
        false
    };
    let recursive: Vec<LLVMValueRef> = defined
        .iter()
        .copied()
        .filter(|f| reaches(*f, *f) && super::reach::returns_twice_callee(*f).is_none())
        .collect();
    let with_context: HashSet<LLVMValueRef> = recursive
        .iter()
        .copied()
        .filter(|f| {
            closed_main
                && raw::name(*f) != "main"
                && !super::reach::escapes(*f)
                && !super::reach::is_interposed(*f)
        })
        .collect();
    let mut participants = recursive.clone();
    for f in &defined {
        let calls_context = graph
            .get(f)
            .is_some_and(|callees| callees.iter().any(|c| with_context.contains(c)));
        if calls_context && !participants.contains(f) {
            participants.push(*f);
        }
    }
    // A caller whose semantics the lifter does not follow (returns twice) gives no context.
    let mut with_context = with_context;
    if participants
        .iter()
        .any(|f| super::reach::returns_twice_callee(*f).is_some())
    {
        with_context.clear();
    }
    Scope {
        recursive,
        participants,
        with_context,
    }
}

/// The integer constants `func` uses (operands of its instructions), small ones only.
pub(super) fn constants_of(func: LLVMValueRef, acc: &mut BTreeSet<i64>) {
    for block in raw::blocks(func) {
        for inst in raw::instructions(block) {
            for i in 0..raw::num_operands(inst) {
                let op = raw::operand(inst, i);
                if op.is_null() {
                    continue;
                }
                let Some(width) = raw::int_width(raw::type_of(op)) else {
                    continue;
                };
                if !(2..=64).contains(&width) {
                    continue;
                }
                if let Some(bits) = raw::const_int_bits(op) {
                    let ty = ir::Ty::int(width);
                    let v = ty.to_signed(bits as u128);
                    if v.abs() <= MAX_TEMPLATE_CONSTANT as i128 {
                        acc.insert(v as i64);
                    }
                }
            }
        }
    }
}

/// The integer constants `func` compares with (operands of `icmp`, cases of `switch`):
/// where its behaviour may change, so the thresholds of region guards.
fn compared_constants_of(func: LLVMValueRef, acc: &mut BTreeSet<i64>) {
    for block in raw::blocks(func) {
        for inst in raw::instructions(block) {
            let operands: Vec<u32> = match raw::opcode(inst) {
                LLVMOpcode::LLVMICmp => vec![0, 1],
                LLVMOpcode::LLVMSwitch => (1..raw::num_successors(inst)).map(|i| 2 * i).collect(),
                _ => continue,
            };
            for i in operands {
                let op = raw::operand(inst, i);
                let Some(width) = raw::int_width(raw::type_of(op)) else {
                    continue;
                };
                if let (true, Some(bits)) = ((2..=64).contains(&width), raw::const_int_bits(op)) {
                    let v = ir::Ty::int(width).to_signed(bits as u128);
                    if v.abs() <= MAX_TEMPLATE_CONSTANT as i128 {
                        acc.insert(v as i64);
                    }
                }
            }
        }
    }
}

/// Whether `func` returns an integer the lifter models.
fn returns_int(func: LLVMValueRef) -> bool {
    raw::blocks(func).into_iter().any(|b| {
        raw::instructions(b).into_iter().any(|i| {
            raw::opcode(i) == LLVMOpcode::LLVMRet
                && raw::num_operands(i) == 1
                && raw::int_width(raw::type_of(raw::operand(i, 0)))
                    .is_some_and(|w| (1..=64).contains(&w))
        })
    })
}

/// Positions of the integer parameters of `func`.
fn int_params(func: LLVMValueRef) -> Vec<usize> {
    raw::params(func)
        .into_iter()
        .enumerate()
        .filter(|(_, p)| raw::int_width(raw::type_of(*p)).is_some_and(|w| (1..=64).contains(&w)))
        .map(|(i, _)| i)
        .collect()
}

/// The ranges of `int` and of the sum or difference of two `int`s: where the values of a
/// function over 64-bit integers stay when its callers pass it `int`s (`addition(m, n)`
/// moving one from `n` to `m` keeps `m + n` in the second range). Without a bound, an atom
/// over such a value (`r - m - n == 0` in wrapping `i64`) wraps in the analysis and says
/// nothing.
const NARROW_RANGES: [(i64, i64); 2] = [
    (i32::MIN as i64, i32::MAX as i64),
    (2 * i32::MIN as i64, 2 * i32::MAX as i64),
];

/// Whether `func` has a 64-bit integer parameter or result (where [`NARROW_RANGES`] help).
fn is_wide(func: LLVMValueRef, params: &[usize]) -> bool {
    let all = raw::params(func);
    let wide_param = params
        .iter()
        .any(|p| raw::int_width(raw::type_of(all[*p])) == Some(64));
    let wide_ret = raw::blocks(func).into_iter().any(|b| {
        raw::instructions(b).into_iter().any(|i| {
            raw::opcode(i) == LLVMOpcode::LLVMRet
                && raw::num_operands(i) == 1
                && raw::int_width(raw::type_of(raw::operand(i, 0))) == Some(64)
        })
    });
    wide_param || wide_ret
}

/// Context candidates over [`NARROW_RANGES`]: each parameter and each sum and difference
/// of two within them.
fn narrow_range_atoms(params: &[usize]) -> Vec<Atom> {
    let mut res = Vec::new();
    let mut shapes: Vec<Vec<(Slot, i64)>> =
        params.iter().map(|p| vec![(Slot::Param(*p), 1)]).collect();
    for (i, &p) in params.iter().enumerate() {
        for &q in &params[i + 1..] {
            shapes.push(vec![(Slot::Param(p), 1), (Slot::Param(q), 1)]);
            shapes.push(vec![(Slot::Param(p), 1), (Slot::Param(q), -1)]);
        }
    }
    for terms in shapes {
        for (lo, hi) in NARROW_RANGES {
            // terms >= lo and terms <= hi.
            res.push(Atom::ge(terms.clone(), -lo));
            let neg = terms.iter().map(|(s, c)| (*s, -c)).collect();
            res.push(Atom::ge(neg, hi));
        }
    }
    res
}

/// The candidates: every template atom (see the module docs of the templates below).
pub fn candidates(scope: &Scope) -> Contracts {
    let mut consts = BTreeSet::new();
    for f in &scope.participants {
        constants_of(*f, &mut consts);
    }
    let mut near: BTreeSet<i64> = [-1, 0, 1].into_iter().collect();
    for c in &consts {
        for d in [-1, 0, 1] {
            near.insert(c + d);
        }
    }
    // The constants nearest to zero.
    let mut near: Vec<i64> = near.into_iter().collect();
    near.sort_by_key(|c| (c.abs(), *c));
    near.truncate(MAX_CONSTANTS);
    near.sort();
    let offsets: Vec<i64> = {
        let mut o: BTreeSet<i64> = [-1, 0, 1].into_iter().collect();
        for c in &consts {
            if c.abs() <= 64 {
                o.insert(*c);
                o.insert(-c);
            }
        }
        o.into_iter().collect()
    };
    let mut res = Contracts::new();
    for f in &scope.recursive {
        let params = int_params(*f);
        let wide = is_wide(*f, &params);
        let mut contract = Contract::default();
        if scope.with_context.contains(f) {
            for &p in &params {
                for &c in &near {
                    // p >= c and p <= c.
                    contract
                        .context
                        .push(Atom::ge(vec![(Slot::Param(p), 1)], -c));
                    contract
                        .context
                        .push(Atom::ge(vec![(Slot::Param(p), -1)], c));
                }
            }
            if wide {
                contract.context.extend(narrow_range_atoms(&params));
            }
        }
        if returns_int(*f) {
            let r = Slot::Ret;
            let mut atoms = Vec::new();
            // Bounds first: an atom over a wide value that no earlier assumption bounds
            // wraps in the analysis, and the later ones are read after these.
            if wide {
                for (lo, hi) in NARROW_RANGES {
                    atoms.push(Atom::ge(vec![(r, 1)], -lo));
                    atoms.push(Atom::ge(vec![(r, -1)], hi));
                }
            }
            for &c in &near {
                atoms.push(Atom::ge(vec![(r, 1)], -c));
                atoms.push(Atom::ge(vec![(r, -1)], c));
            }
            for &p in &params {
                let p = Slot::Param(p);
                for &d in &offsets {
                    // r - p >= d and r - p <= d.
                    atoms.push(Atom::ge(vec![(r, 1), (p, -1)], -d));
                    atoms.push(Atom::ge(vec![(r, -1), (p, 1)], d));
                }
                atoms.push(Atom::ge(vec![(r, 2), (p, -1)], 0));
            }
            for (i, &p) in params.iter().enumerate() {
                for &q in &params[i + 1..] {
                    let (p, q) = (Slot::Param(p), Slot::Param(q));
                    for (sp, sq) in [(1, 1), (1, -1), (-1, 1)] {
                        atoms.push(Atom {
                            terms: vec![(r, 1), (p, -sp), (q, -sq)],
                            constant: 0,
                            is_eq: true,
                        });
                    }
                }
            }
            contract.summary = atoms
                .into_iter()
                .map(|atom| Clause {
                    guard: vec![],
                    atom,
                })
                .collect();
        }
        if !contract.is_empty() {
            res.insert(raw::name(*f), contract);
        }
    }
    res
}

/// One round's lifting: the module of the participants in certify mode, and what each of
/// its obligations stands for.
pub struct CertifyModule {
    /// The module to prove.
    pub module: ir::Module,
    /// The obligations, by check.
    pub obligations: Vec<(CheckId, Obligation)>,
}

/// Houdini (see the module docs): the largest subset of `candidates` whose obligations are
/// all proved together, or nothing when the rounds or the budget run out (the work a round
/// spent is taken from `budget.work` after it; a round is not started once it is spent).
/// `lift_round` lifts the participants in certify mode under a candidate set.
pub fn certify(
    mut candidates: Contracts,
    lift_round: &mut dyn FnMut(&Contracts) -> Option<CertifyModule>,
    prover: Prover<'_>,
    budget: &mut SearchBudget,
    trace: super::ContractTrace,
) -> Contracts {
    let tracing = trace != super::ContractTrace::Off;
    for _ in 0..MAX_ROUNDS {
        candidates.retain(|_, c| !c.is_empty());
        if candidates.is_empty() || budget.work == 0 || Instant::now() >= budget.deadline {
            return Contracts::new();
        }
        let started = Instant::now();
        let Some(round) = lift_round(&candidates) else {
            return Contracts::new();
        };
        let (proved, spent) = prover(&round.module);
        budget.work = budget.work.saturating_sub(spent);
        if tracing {
            eprintln!(
                "contracts: round with {} obligations, {} proved, {spent} steps ({} left), {:?}",
                round.obligations.len(),
                round
                    .obligations
                    .iter()
                    .filter(|(c, _)| proved.contains(c))
                    .count(),
                budget.work,
                started.elapsed(),
            );
            for (c, o) in &round.obligations {
                if !proved.contains(c) {
                    let what = match o {
                        Obligation::Summary { function, clause } => {
                            format!(
                                "{function} summary {:?}",
                                candidates[function].summary[*clause]
                            )
                        }
                        Obligation::Context { function, atom } => {
                            format!(
                                "{function} context {:?}",
                                candidates[function].context[*atom]
                            )
                        }
                    };
                    eprintln!("  open {c}: {what}");
                }
            }
            if trace == super::ContractTrace::Modules {
                for f in &round.module.functions {
                    eprintln!("{f:#}");
                }
            }
        }
        let mut dropped_summary: HashMap<String, BTreeSet<usize>> = HashMap::new();
        let mut dropped_context: HashMap<String, BTreeSet<usize>> = HashMap::new();
        for (check, obligation) in &round.obligations {
            if proved.contains(check) {
                continue;
            }
            match obligation {
                Obligation::Summary { function, clause } => {
                    dropped_summary
                        .entry(function.clone())
                        .or_default()
                        .insert(*clause);
                }
                Obligation::Context { function, atom } => {
                    dropped_context
                        .entry(function.clone())
                        .or_default()
                        .insert(*atom);
                }
            }
        }
        // Past the safety net, a round's analyses may have stopped at their time limit:
        // what they left open says nothing, and the set is not a fixpoint to trust either
        // way; nothing is used (an unsound set is never returned: every obligation of the
        // returned set was proved, but a time-dependent answer is not wanted).
        if Instant::now() >= budget.deadline {
            return Contracts::new();
        }
        if dropped_summary.is_empty() && dropped_context.is_empty() {
            if tracing {
                eprintln!("contracts certified: {candidates:?}");
            }
            return candidates;
        }
        for (name, contract) in candidates.iter_mut() {
            if let Some(drop) = dropped_summary.get(name) {
                contract.summary = std::mem::take(&mut contract.summary)
                    .into_iter()
                    .enumerate()
                    .filter(|(i, _)| !drop.contains(i))
                    .map(|(_, c)| c)
                    .collect();
            }
            if let Some(drop) = dropped_context.get(name) {
                contract.context = std::mem::take(&mut contract.context)
                    .into_iter()
                    .enumerate()
                    .filter(|(i, _)| !drop.contains(i))
                    .map(|(_, a)| a)
                    .collect();
            }
        }
    }
    Contracts::new()
}

/// The guard a clause is certified under by a *specialized copy* of its function: a guard of
/// one atom over one parameter (`p == k`, `p >= c`, `p <= c`). The copy assumes the guard at
/// its entry and checks only the clauses guarded by it (see
/// [`super::lift::LiftOptions::specialize`]); the function itself does not check them.
pub fn specialized_guard(clause: &Clause) -> Option<&Atom> {
    match &clause.guard[..] {
        [g] if guard_interval(g).is_some() => Some(g),
        _ => None,
    }
}

/// The values of one parameter a guard atom allows, as `(parameter, lowest, highest)`
/// (`None`: unbounded on that side), for `p == k`, `p >= c` and `p <= c`.
pub fn guard_interval(g: &Atom) -> Option<(usize, Option<i64>, Option<i64>)> {
    let [(Slot::Param(p), coef)] = g.terms[..] else {
        return None;
    };
    let c = g.constant;
    match (g.is_eq, coef) {
        (true, 1) => Some((p, Some(-c), Some(-c))),
        (true, -1) => Some((p, Some(c), Some(c))),
        (false, 1) => Some((p, Some(c.checked_neg()?), None)),
        (false, -1) => Some((p, None, Some(c))),
        _ => None,
    }
}

/// `p <= c`, the test of the chain of cases at a call (see `lift::assume_cases`).
pub fn param_at_most(p: usize, c: i64) -> Atom {
    param_le(p, c)
}

/// The specialized copies a round lifts: each function with each of its distinct
/// specialized guards, in the order of the clauses.
pub fn specializations(contracts: &Contracts) -> Vec<(String, Atom)> {
    let mut res: Vec<(String, Atom)> = Vec::new();
    for (name, contract) in contracts {
        for clause in &contract.summary {
            if let Some(g) = specialized_guard(clause) {
                if !res.iter().any(|(n, a)| n == name && a == g) {
                    res.push((name.clone(), g.clone()));
                }
            }
        }
    }
    res
}

/// At most this many values of a parameter are tabulated (`p == k → r == f(k)`). This and
/// the limits below bound the guarded candidates (each an obligation, some a specialized
/// copy lifted every round), so that a round stays within its budget of work.
const MAX_TABLE: i64 = 64;
/// At most this many thresholds per parameter give region guards (`p >= t`, `p <= t`).
const MAX_THRESHOLDS: usize = 12;
/// At most this many guarded clauses per function.
const MAX_GUARDED_CLAUSES: usize = 256;
/// At most this many distinct guards (specialized copies lifted each round) per function,
/// and in all.
const MAX_GUARDS: usize = 48;
const MAX_GUARDS_IN_ALL: usize = 96;
/// Instructions the concrete evaluation of candidates may run, in all.
const EVAL_STEPS: u64 = 400_000;
/// Distances from a threshold at which a region is sampled.
const REGION_SAMPLES: [i64; 10] = [0, 1, 2, 3, 4, 5, 10, 20, 50, 100];

fn param_eq(p: usize, k: i64) -> Atom {
    Atom {
        terms: vec![(Slot::Param(p), 1)],
        constant: -k,
        is_eq: true,
    }
}

/// `p >= c`.
fn param_ge(p: usize, c: i64) -> Atom {
    Atom::ge(vec![(Slot::Param(p), 1)], -c)
}

/// `p <= c`.
fn param_le(p: usize, c: i64) -> Atom {
    Atom::ge(vec![(Slot::Param(p), -1)], c)
}

/// `r - a·q >= b` (`q` none: `r >= b`).
fn ret_ge(q: Option<usize>, a: i64, b: i64) -> Atom {
    let mut terms = vec![(Slot::Ret, 1)];
    if let (Some(q), true) = (q, a != 0) {
        terms.push((Slot::Param(q), -a));
    }
    Atom::ge(terms, -b)
}

/// `r - a·q <= b`.
fn ret_le(q: Option<usize>, a: i64, b: i64) -> Atom {
    let mut terms = vec![(Slot::Ret, -1)];
    if let (Some(q), true) = (q, a != 0) {
        terms.push((Slot::Param(q), a));
    }
    Atom::ge(terms, b)
}

/// The bounds a certified context gives parameter `p`: the largest `c` of `p >= c` and the
/// smallest of `p <= c`.
fn param_range(contract: &Contract, p: usize) -> (Option<i64>, Option<i64>) {
    let (mut lo, mut hi): (Option<i64>, Option<i64>) = (None, None);
    for atom in &contract.context {
        match (&atom.terms[..], atom.is_eq) {
            ([(Slot::Param(q), 1)], false) if *q == p => {
                lo = Some(lo.map_or(-atom.constant, |l| l.max(-atom.constant)))
            }
            ([(Slot::Param(q), -1)], false) if *q == p => {
                hi = Some(hi.map_or(atom.constant, |h| h.min(atom.constant)))
            }
            _ => {}
        }
    }
    (lo, hi)
}

/// Whether every value fits the comparisons of an atom (`i64`, away from its ends).
fn small(v: i128) -> bool {
    v.abs() < (1i128 << 62)
}

/// The guarded candidates of the second search (see the module docs): for each recursive
/// function of one or two integer parameters returning an integer, with the values the
/// concrete evaluation of the function gives ([`Evaluator`]):
/// - *tabulated*: `p == k → r == f(k)` (as `r >= f(k)` and `r <= f(k)`) for each `k` of
///   the certified range of `p` when it is small, else of a window above the function's
///   own constants; with a second parameter `q`, `p == k → r == a·q + b` where the values
///   at four `q` lie on that line, or `p == k → r >= a·q + b` (the line through the first
///   two) when they lie above it;
/// - *regions* (one parameter): for thresholds `t` near the function's constants, `p >= t`
///   and `p <= t` guarding the bounds of `r` and `r - p` over samples of the region (and
///   so the line `r == p + b`, or `r == b`, when those bounds meet).
///
/// `certified` (the first search's result) gives the ranges; the result is `certified`
/// with the new clauses appended.
pub fn guarded_candidates(scope: &Scope, certified: &Contracts) -> Contracts {
    let mut res = certified.clone();
    let mut program_consts = BTreeSet::new();
    for f in &scope.participants {
        compared_constants_of(*f, &mut program_consts);
    }
    let mut eval = Evaluator::new(EVAL_STEPS);
    // Its own budget: the checks of region bounds do not take the candidates' evaluations.
    let mut check_eval = Evaluator::new(EVAL_STEPS);
    let mut n_guards_in_all = 0;
    for &f in &scope.recursive {
        let params = int_params(f);
        let n = raw::params(f).len();
        if !returns_int(f) || params.len() != n || !(1..=2).contains(&n) {
            continue;
        }
        let name = raw::name(f);
        let contract = certified.get(&name).cloned().unwrap_or_default();
        let mut own = BTreeSet::new();
        compared_constants_of(f, &mut own);
        let own: Vec<i64> = own.into_iter().collect();
        let mut clauses: Vec<Clause> = Vec::new();
        for &p in &params {
            let (lo, hi) = param_range(&contract, p);
            let param_width = raw::int_width(raw::type_of(raw::params(f)[p])).unwrap_or(64);
            let inside = |k: i64| lo.is_none_or(|l| k >= l) && hi.is_none_or(|h| k <= h);
            let other = params.iter().copied().find(|&q| q != p);
            // The whole calling context when it is small; else, for a function of one
            // parameter, a window from its smallest compared constant (its base cases).
            let small_context = matches!((lo, hi), (Some(l), Some(h)) if h - l < MAX_TABLE);
            let table: Vec<i64> = match (lo, hi, other) {
                (Some(l), Some(h), _) if small_context => (l..=h).collect(),
                (_, _, None) => match own.iter().find(|c| c.abs() <= MAX_TABLE) {
                    Some(a) => (a - 1..a + MAX_TABLE / 4).filter(|k| inside(*k)).collect(),
                    None => vec![],
                },
                _ => vec![],
            };
            // A table on a line says no more than a region guard or the linear templates do.
            let on_a_line = other.is_none() && {
                let values: Vec<Option<i128>> =
                    table.iter().map(|k| eval.call(f, &[*k as i128])).collect();
                values.iter().all(Option::is_some)
                    && values.windows(3).all(|w| {
                        let (a, b, c) = (w[0].unwrap_or(0), w[1].unwrap_or(0), w[2].unwrap_or(0));
                        b - a == c - b
                    })
            };
            let table = if on_a_line { vec![] } else { table };
            // When the table covers the whole context, regions add nothing.
            let covered = small_context && !table.is_empty();
            for k in table {
                let guard = vec![param_eq(p, k)];
                let mut push = |atom: Atom| {
                    clauses.push(Clause {
                        guard: guard.clone(),
                        atom,
                    })
                };
                let Some(q) = other else {
                    if let Some(v) = eval.call(f, &[k as i128]).filter(|v| small(*v)) {
                        push(ret_ge(None, 0, v as i64));
                        push(ret_le(None, 0, v as i64));
                    }
                    continue;
                };
                // r as a function of the other parameter, from its lowest allowed value.
                let (qlo, _) = param_range(&contract, q);
                let q0 = qlo.unwrap_or(0).clamp(-(1 << 20), 1 << 20);
                let mut points = Vec::new();
                for qv in q0..q0 + 4 {
                    let mut args = [0i128; 2];
                    args[p] = k as i128;
                    args[q] = qv as i128;
                    match eval.call(f, &args) {
                        Some(v) if small(v) => points.push((qv as i128, v)),
                        _ => break,
                    }
                }
                if points.len() < 4 {
                    continue;
                }
                let a = points[1].1 - points[0].1;
                let b = points[0].1 - a * points[0].0;
                if !(small(a) && small(b)) || a.abs() > 1 << 20 {
                    continue;
                }
                let (a, b) = (a as i64, b as i64);
                let line = |x: i128| a as i128 * x + b as i128;
                if points.iter().all(|(x, v)| *v == line(*x)) {
                    push(ret_ge(Some(q), a, b));
                    push(ret_le(Some(q), a, b));
                } else if points.iter().all(|(x, v)| *v >= line(*x)) {
                    push(ret_ge(Some(q), a, b));
                }
            }
            if other.is_some() || covered {
                continue;
            }
            // Regions: thresholds near the function's own constants first, then the
            // program's.
            let mut thresholds: Vec<i64> = Vec::new();
            let program = program_consts
                .iter()
                .copied()
                .filter(|c| c.abs() <= 1 << 20);
            let near = own
                .iter()
                .copied()
                .chain(program)
                .flat_map(|c| [c, c + 1, c - 1]);
            for t in near {
                if inside(t) && !thresholds.contains(&t) && thresholds.len() < MAX_THRESHOLDS {
                    thresholds.push(t);
                }
            }
            for t in thresholds {
                for dir in [1i64, -1] {
                    let mut samples = Vec::new();
                    for d in REGION_SAMPLES {
                        let x = t + dir * d;
                        if !inside(x) {
                            break;
                        }
                        match eval.call(f, &[x as i128]) {
                            Some(v) if small(v) => samples.push((x as i128, v)),
                            _ => break,
                        }
                    }
                    if samples.len() < 3 {
                        continue;
                    }
                    let guard = if dir == 1 {
                        param_ge(p, t)
                    } else {
                        param_le(p, t)
                    };
                    let min_r = samples.iter().map(|(_, v)| *v).min().expect("samples");
                    let max_r = samples.iter().map(|(_, v)| *v).max().expect("samples");
                    let min_d = samples.iter().map(|(x, v)| v - x).min().expect("samples");
                    let max_d = samples.iter().map(|(x, v)| v - x).max().expect("samples");
                    let witnesses =
                        region_witnesses(&mut check_eval, f, p, t, dir, (lo, hi), param_width);
                    for atom in [
                        ret_ge(None, 0, min_r as i64),
                        ret_le(None, 0, max_r as i64),
                        ret_ge(Some(p), 1, min_d as i64),
                        ret_le(Some(p), 1, max_d as i64),
                    ] {
                        // A bound the function breaks inside its region and context is
                        // never certified: leaving it out saves the rounds that would drop
                        // it, and those that drop what was proved from it.
                        if witnesses.iter().any(|(x, v)| !atom_holds(&atom, p, *x, *v)) {
                            continue;
                        }
                        clauses.push(Clause {
                            guard: vec![guard.clone()],
                            atom,
                        });
                    }
                }
            }
        }
        let entry = res.entry(name).or_default();
        let mut guards: Vec<Atom> = Vec::new();
        for clause in clauses {
            if entry.summary.len() >= contract.summary.len() + MAX_GUARDED_CLAUSES {
                break;
            }
            if !guards.contains(&clause.guard[0]) {
                if guards.len() >= MAX_GUARDS || n_guards_in_all >= MAX_GUARDS_IN_ALL {
                    continue;
                }
                guards.push(clause.guard[0].clone());
                n_guards_in_all += 1;
            }
            if !entry.summary.contains(&clause) {
                entry.summary.push(clause);
            }
        }
    }
    res.retain(|_, c| !c.is_empty());
    res
}

/// Distances from a threshold at which a region bound is checked by evaluation before it
/// becomes a candidate: every point near the threshold, then every power of ten.
const WITNESS_NEAR: i64 = 64;

/// Points `(x, f(x))` of the region `p >= t` (`dir` 1) or `p <= t` (`dir` -1) within the
/// certified context `(lo, hi)` of `p` and the range of its type (`width` bits), where the
/// evaluation of `f` (of one parameter) gives a value: every point up to [`WITNESS_NEAR`]
/// from `t`, then powers of ten away, and the far end of the region.
fn region_witnesses(
    eval: &mut Evaluator,
    f: LLVMValueRef,
    p: usize,
    t: i64,
    dir: i64,
    (lo, hi): (Option<i64>, Option<i64>),
    width: u32,
) -> Vec<(i64, i64)> {
    debug_assert_eq!(p, 0, "regions are of functions of one parameter");
    let (type_lo, type_hi) = if (2..64).contains(&width) {
        (-(1i64 << (width - 1)), (1i64 << (width - 1)) - 1)
    } else {
        (i64::MIN, i64::MAX)
    };
    let lo = lo.map_or(type_lo, |l| l.max(type_lo));
    let hi = hi.map_or(type_hi, |h| h.min(type_hi));
    let mut distances: Vec<i64> = (0..=WITNESS_NEAR).collect();
    distances.extend((2..=18).map(|k| 10i64.pow(k)));
    let mut points: Vec<i64> = distances
        .into_iter()
        .filter_map(|d| t.checked_add(dir.checked_mul(d)?))
        .filter(|x| (lo..=hi).contains(x))
        .collect();
    points.push(if dir == 1 { hi } else { lo });
    points
        .into_iter()
        .filter(|x| (lo..=hi).contains(x) && (dir == 1 && *x >= t || dir == -1 && *x <= t))
        .filter_map(|x| {
            let v = eval.call(f, &[x as i128]).filter(|v| small(*v))?;
            Some((x, v as i64))
        })
        .collect()
}

/// Whether `atom` (over parameter `p` and the result) holds at `p == x`, `r == v`, read as
/// the lifter reads it: `Σ coef·x + constant` in wrapping `i64`, then `>= 0` or `== 0`.
fn atom_holds(atom: &Atom, p: usize, x: i64, v: i64) -> bool {
    let mut sum = atom.constant;
    for (slot, coef) in &atom.terms {
        let value = match slot {
            Slot::Ret => v,
            Slot::Param(q) if *q == p => x,
            // Another parameter: not this point's to decide.
            Slot::Param(_) => return true,
        };
        sum = sum.wrapping_add(coef.wrapping_mul(value));
    }
    if atom.is_eq {
        sum == 0
    } else {
        sum >= 0
    }
}

/// Whether some atom of the contract reads the return value (a summary) — used by tests.
pub fn has_summary(contract: &Contract) -> bool {
    contract.summary.iter().any(|c| c.atom.reads_ret())
}
