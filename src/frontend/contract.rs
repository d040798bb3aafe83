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
//! Why the last set is sound (assume-guarantee over the order of events of one execution):
//! each obligation was proved assuming only (a) the contexts of the function it is in, at
//! its entry, and (b) the summaries of the calls that returned before it. Take the first
//! event of an execution that breaks a contract: a call whose arguments leave the callee's
//! context, or a return whose value leaves its summary. Everything its proof assumed
//! happened earlier, so it held, so the proof covers the event: there is no first breaking
//! event. A call that does not return has no return to constrain.
//!
//! Every atom is evaluated by the same IR instructions where it is checked and where it is
//! assumed (`Σ coef·sext64(x) + constant` in wrapping `i64`, then `>= 0` or `== 0`): what is
//! assumed is exactly what was proved, whatever the readings the engines choose.
//!
//! A summary says nothing about memory: the call still clobbers what the callee may reach.
//! A context exists only when the function can be entered from nowhere but its direct calls:
//! a closed program started by `main`, the function's address never escapes and the library
//! never calls it by name; every caller is then lifted and its calls checked.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::time::Instant;

use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::LLVMOpcode;

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

/// Proves what it can of a module: the ids of the checks proved. It must be sound (the
/// driver's analysis without counterexample search); what it leaves open is dropped.
pub type Prover<'a> = &'a dyn Fn(&ir::Module) -> BTreeSet<CheckId>;

/// Limits of the search.
const MAX_ROUNDS: usize = 16;
/// Constants read from the program for the templates, at most this many.
const MAX_CONSTANTS: usize = 16;
/// Constants larger than this are not used in templates.
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
fn constants_of(func: LLVMValueRef, acc: &mut BTreeSet<i64>) {
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
        }
        if returns_int(*f) {
            let r = Slot::Ret;
            let mut atoms = Vec::new();
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
/// all proved together, or nothing when the rounds or the time run out. `lift_round` lifts
/// the participants in certify mode under a candidate set.
pub fn certify(
    mut candidates: Contracts,
    lift_round: &mut dyn FnMut(&Contracts) -> Option<CertifyModule>,
    prover: Prover<'_>,
    deadline: Instant,
) -> Contracts {
    for _ in 0..MAX_ROUNDS {
        candidates.retain(|_, c| !c.is_empty());
        if candidates.is_empty() || Instant::now() >= deadline {
            return Contracts::new();
        }
        let started = Instant::now();
        let Some(round) = lift_round(&candidates) else {
            return Contracts::new();
        };
        let proved = prover(&round.module);
        if std::env::var_os("POLYFOCUS_DEBUG_CONTRACTS").is_some() {
            eprintln!(
                "contracts: round with {} obligations, {} proved, {:?}",
                round.obligations.len(),
                round
                    .obligations
                    .iter()
                    .filter(|(c, _)| proved.contains(c))
                    .count(),
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
            if std::env::var_os("POLYFOCUS_DEBUG_CONTRACTS").is_some_and(|v| v == "2") {
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
        if dropped_summary.is_empty() && dropped_context.is_empty() {
            if std::env::var_os("POLYFOCUS_DEBUG_CONTRACTS").is_some() {
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

/// Whether some atom of the contract reads the return value (a summary) — used by tests.
pub fn has_summary(contract: &Contract) -> bool {
    contract.summary.iter().any(|c| c.atom.reads_ret())
}
