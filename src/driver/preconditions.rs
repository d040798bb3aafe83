//! Preconditions of the checks of a function called with arbitrary arguments: for a check
//! its analysis did not prove, a condition on the function's *inputs* under which it holds,
//! reported as `holds if P`. The inputs are its integer parameters and, for each pointer
//! parameter, whether it is `NULL` (the null flag the lifter defines at the entry), the
//! address it holds (read by comparisons of pointers into two parameters' objects), the
//! integers at constant offsets of its object as the caller leaves them (its fields: the
//! memory model's exact cells of the object at the entry) and, under `--checks memory`,
//! the size of its object from the pointer on (`size(p)`).
//!
//! **Inference.** Inputs are SSA values that never change, so the arguments of every
//! execution that reaches an error site are, at that site, the values of the inputs.
//! The function is analyzed once more with each input kept live at the open error
//! sites (a copy of each input in the error block, which changes no execution), each
//! reached once per conjunct of its failed condition (`conjuncts.rs`), and the error sites
//! of other checks ending their paths (`only_sites`, as in the analysis of the checks): the
//! invariant there, over the inputs, over-approximates the arguments from which the
//! error site is reachable. Its complement is the candidate: `P = ¬c₁ ∨ … ∨ ¬cₙ` for the
//! invariant's constraints `cᵢ`, less those the parameters' machine ranges imply (their
//! negation holds for no argument) and those whose negation holds for one argument only,
//! flags aside (`n >= 2147483647`: a bound the analysis leaves at the end of a machine
//! range, where a path adds one to `n`, is no contract; dropping a disjunct only
//! strengthens `P`). A candidate that is `false` is no precondition.
//!
//! **Conjunctions.** An error site entered from several branches (one per failed conjunct,
//! `assert(0 <= i && i < n)`) is copied once per branch into it (`conjuncts::separate`), so
//! that each copy's invariant describes one way to fail; the candidate is the conjunction
//! of each reachable copy's complement (`i >= 0 && i < n`), and a copy without a
//! complement leaves the check without a candidate (dropping a clause would weaken `P`).
//! A conjunction no rational point satisfies is no precondition (a domain that lost how
//! the conjuncts relate gives `i >= 0 && i <= -1`), and a disjunct that the one-disjunct
//! clauses contradict is dropped from its clause (the conjunction is unchanged). Callers
//! check each clause as a requirement of its own.
//!
//! **Why it holds.** The inference's run is an analysis of the function like the one that
//! proves checks, on a copy whose executions are the function's (the copies and the split
//! branches change none), and only its complete fixpoint is read: the error site's
//! invariant over-approximates the states that reach it, so its projection on the inputs
//! over-approximates the arguments from which the check fails, and every invocation whose
//! arguments satisfy `P` lies outside that projection and passes the check. The candidate
//! thus rests on the analysis exactly as a proof does, and costs no analysis more (on real
//! code, an analysis per disjunct of every candidate does not fit the preconditions' budget).
//! `-Z recheck-preconditions` analyzes the function again with each disjunct assumed at
//! its entry, after the definitions of the null flags and object sizes (computed exactly,
//! in 128 bits when 64 could overflow), and keeps `holds if P` only when each of these
//! analyses reaches its fixpoint with no invariant at the error site: an independent
//! second derivation, which the tests require to agree.
//!
//! **Printing.** `P` is printed as a C expression over the parameters' source names
//! (`domain::readable`, equivalent on the parameters' machine ranges), each compared as the
//! analysis reads it (signed or unsigned, which follows how the function compares it: the
//! signedness of its C type when the function compares it at all). A disjunct over a null
//! flag alone is printed `src != NULL` or `src == NULL`; one that mixes a null flag with
//! other inputs is not printable. An object size is printed `size(p)`, read from 0 up, and
//! a disjunct that bounds it from below by other inputs as `len <= size(p)`; an address
//! `(intptr_t)p`, read from 0 up (`hi - lo >= 4` as `(intptr_t)hi - (intptr_t)lo >= 4`,
//! exact since addresses lie below `2^63`); a field as the C read of its bytes,
//! `*(int64_t *)((char *)self + 24)` (`uint64_t` when read unsigned). A parameter
//! without a source name makes the candidate unprintable, and it is not reported.
//!
//! **Which checks.** Functions other than `main` (whose arguments come from the command
//! line): their unknown checks, and, in a function where executions start with arbitrary
//! arguments (a named entry, or every function of a library without `main`), their
//! violated checks too: the counterexample's arguments are outside the precondition, a call
//! outside the function's contract. A violation found by running the program from `main`
//! stays a violation.
//!
//! **Domains.** First the classic engine over intervals (cheap, and enough for a bound on
//! one parameter, `acceleration >= 1`), then, for the checks left and only in a function
//! whose analysis ended within its budget, the configured engine over polyhedra (relations
//! between parameters, `n <= 4 || m >= 0`).
//!
//! **Budget.** The analyses run under what the function's analysis left of its budget, at
//! least a share of it (`params::StageParams::precondition_share`), counted in work at the
//! stages' rate and at most `params::StageParams::precondition_work` steps, its time only a
//! safety net; at most `MAX_REACH_RUNS` analyses over intervals decide which disjuncts are
//! exercised (a disjunct not shown to be is dropped), and `MAX_RUNS` recheck candidates.

mod conjuncts;

use super::engine::{run_engine, Run};
use super::AnalysisConfig;
use crate::analysis::focus::CutFacts;
use crate::analysis::lower::Lowering;
use crate::analysis::refine::SlotAssignment;
use crate::analysis::{Deadline, Dim, FunctionContext, Outcome};
use crate::budget::MemoryBudget;
use crate::check::{Callers, CheckResult, Precondition, Verdict};
use crate::domain::linear::{ConsKind, Int, Interval, LinCons, LinExpr, Space, Var};
use crate::domain::readable::readable_invariant;
use crate::domain::Rat;
use crate::domain::{IntervalDomain, NumericDomain, Polyhedron};
use crate::frontend::contract::{self, Requirement};
use crate::ir::{
    ArithFlags, BinOp, BlockId, CastOp, CheckClass, CheckId, CmpPred, Const, Expr, Function,
    HavocReason, Inst, Interp, Module, Operand, SourceLoc, Terminator, Ty, ValueId, ValueInfo,
};
use num_traits::{One, Signed, Zero};
use std::collections::BTreeMap;
use std::time::Duration;

/// Analyses that recheck candidates, at most per function (one per disjunct of each).
const MAX_RUNS: usize = 12;

/// Analyses over intervals that decide which disjuncts are exercised, at most per attempt.
const MAX_REACH_RUNS: usize = 48;

/// Whether executions start at `func` with arbitrary arguments: a named entry, or any
/// function of a program without `main` (the counterexample search replays such a function
/// from its own entry).
pub(super) fn starts_executions(func: &Function, module: &Module, named: &[&str]) -> bool {
    if named.is_empty() {
        func.name == "main" || !module.functions.iter().any(|f| f.name == "main")
    } else {
        named.contains(&func.name.as_str())
    }
}

/// Replaces the verdict of each check of `func` in `results` that is open (see the module
/// docs) and holds under an inferred precondition by `holds if P`. `called_from_outside`:
/// whether executions start at `func` with arbitrary arguments; `callers`: who may enter it.
#[allow(clippy::too_many_arguments)]
pub(super) fn settle(
    func: &Function,
    results: &mut [CheckResult],
    config: &AnalysisConfig,
    called_from_outside: bool,
    callers: Callers,
    time: Duration,
    relational: bool,
) {
    let work = config.params.stages.precondition_work;
    if func.name == "main" || inputs(func).is_empty() || work == 0 || time.is_zero() {
        return;
    }
    let deadline = Deadline::after(time)
        .with_work(work)
        .with_memory(MemoryBudget::from_now(config.memory_per_function));
    let mut runs = 0;
    let open = Open {
        called_from_outside,
        callers,
        deadline: &deadline,
    };
    // Intervals first: cheap, and enough for a bound on one parameter.
    attempt::<IntervalDomain>(
        func,
        results,
        config,
        super::Engine::Classic,
        &open,
        &mut runs,
    );
    if relational {
        attempt::<Polyhedron>(func, results, config, config.engine, &open, &mut runs);
    }
}

/// Which checks an attempt takes, and its budget.
struct Open<'d> {
    called_from_outside: bool,
    callers: Callers,
    deadline: &'d Deadline,
}

/// One attempt of `engine` over the domain `D`: candidates for the checks still open,
/// each proved by the inference's run.
fn attempt<D: NumericDomain>(
    func: &Function,
    results: &mut [CheckResult],
    config: &AnalysisConfig,
    engine: super::Engine,
    open: &Open<'_>,
    runs: &mut usize,
) {
    let deadline = open.deadline;
    let is_open = |v: &Verdict| match v {
        Verdict::Unknown(_) => true,
        Verdict::Violated(_) => open.called_from_outside,
        _ => false,
    };
    let targets: Vec<CheckId> = results
        .iter()
        .filter(|r| r.function == func.name && is_open(&r.verdict))
        .map(|r| r.check)
        .collect();
    if targets.is_empty() || deadline.expired() || *runs >= MAX_RUNS {
        return;
    }
    // An assertion's condition may span blocks of its line (`a || b`); a runtime check's
    // is computed where it branches, and the line may hold earlier checks of the same
    // access (a null check before a bounds check), which would count as evaluating it.
    let lines: BTreeMap<CheckId, (String, u32)> = results
        .iter()
        .filter(|r| targets.contains(&r.check) && r.kind.class() == CheckClass::Assert)
        .filter_map(|r| Some((r.check, r.loc.as_ref().map(|l| (l.file.clone(), l.line))?)))
        .collect();
    let started = std::time::Instant::now();
    let drafts = infer::<D>(func, &targets, config, engine, deadline);
    let inferred = started.elapsed();
    let drafted = drafts.0.len();
    let candidates = exercised(func, drafts, &lines, config, deadline);
    let chosen = started.elapsed();
    // The inference's complete run proves each candidate (see the module docs); with
    // `recheck_preconditions` an analysis per disjunct must agree, once per distinct one.
    let mut by_candidate: BTreeMap<usize, Vec<CheckId>> = BTreeMap::new();
    let mut distinct: Vec<&Candidate> = Vec::new();
    for (check, candidate) in &candidates {
        let at = match distinct.iter().position(|c| *c == candidate) {
            Some(at) => at,
            None => {
                distinct.push(candidate);
                distinct.len() - 1
            }
        };
        by_candidate.entry(at).or_default().push(*check);
    }
    let mut settled = 0;
    for (at, checks) in by_candidate {
        let candidate = distinct[at];
        let proved = if config.params.stages.recheck_preconditions {
            recheck::<D>(func, candidate, &checks, config, engine, deadline, runs)
        } else {
            checks
        };
        settled += proved.len();
        let requirements = requirements(func, candidate);
        for r in results.iter_mut() {
            if r.function == func.name && proved.contains(&r.check) {
                r.verdict = Verdict::HoldsIf(Precondition {
                    expr: candidate.text.clone(),
                    requirements: requirements.clone(),
                    callers: open.callers.clone(),
                });
            }
        }
    }
    if config.params.trace.work {
        let domain = std::any::type_name::<D>().rsplit("::").next().unwrap_or("");
        eprintln!(
            "polyfocus: work: {} preconditions over {domain}: {} open, {drafted} drafts, {} \
             candidates, {settled} holds if; inference {:.3} s, reach {:.3} s, recheck {:.3} s",
            func.name,
            targets.len(),
            candidates.len(),
            inferred.as_secs_f64(),
            (chosen - inferred).as_secs_f64(),
            (started.elapsed() - chosen).as_secs_f64()
        );
    }
}

/// An input of a function a precondition may speak of: a parameter, whether a pointer
/// parameter is `NULL` (its null flag), or the size of its object from the pointer on.
struct Input {
    value: ValueId,
    of: InputOf,
}

/// What an input stands for, and so how a precondition prints it.
enum InputOf {
    /// A parameter, by its source name.
    Param,
    /// The null flag of the pointer parameter named (`p != NULL`).
    Null(String),
    /// The object size of the pointer parameter named (`size(p)`).
    Size(String),
    /// The address the pointer parameter named holds (`(intptr_t)p`: below `2^63`, read exactly).
    Address(String),
    /// The bytes at an offset of the object the pointer parameter named points to, at the
    /// entry (`*(int32_t *)((char *)p + 8)`).
    Field(String, u64),
}

/// The inputs of `func`: its parameters, then the null flags and object sizes its entry
/// block defines.
fn inputs(func: &Function) -> Vec<Input> {
    let mut out: Vec<Input> = func
        .params
        .iter()
        .map(|&value| Input {
            value,
            of: InputOf::Param,
        })
        .collect();
    for inst in &func.blocks[func.entry.index()].insts {
        let Inst::Havoc { dest, reason } = inst else {
            continue;
        };
        let of = match reason {
            HavocReason::NullParam { param } => InputOf::Null(param.clone()),
            HavocReason::SizeParam { param } => InputOf::Size(param.clone()),
            HavocReason::AddressParam { param } => InputOf::Address(param.clone()),
            HavocReason::FieldParam { param, offset } => InputOf::Field(param.clone(), *offset),
            _ => continue,
        };
        out.push(Input { value: *dest, of });
    }
    out
}

/// `candidate` over the inputs named as the callers see them, a requirement per clause
/// (see `frontend::contract::Requirement`); `None` when a coefficient or constant does not
/// fit 128 bits.
fn requirements(func: &Function, candidate: &Candidate) -> Option<Vec<Requirement>> {
    candidate
        .clauses
        .iter()
        .map(|clause| requirement(func, clause))
        .collect()
}

/// The disjunction `clause` as a requirement.
fn requirement(func: &Function, clause: &[Affine]) -> Option<Requirement> {
    let inputs = inputs(func);
    let mut disjuncts = Vec::new();
    for e in clause {
        let mut terms = Vec::new();
        for (value, reading, coef) in &e.terms {
            let input = inputs.iter().find(|i| i.value == *value)?;
            let input = match &input.of {
                InputOf::Param => contract::Input::Value(func.value(*value).name.clone()),
                InputOf::Null(p) => contract::Input::Null(p.clone()),
                InputOf::Size(p) => contract::Input::Size(p.clone()),
                InputOf::Address(p) => contract::Input::Address(p.clone()),
                InputOf::Field(p, offset) => contract::Input::Field {
                    param: p.clone(),
                    offset: *offset,
                    width: func.value(*value).ty.width,
                },
            };
            terms.push((input, *reading == Interp::Signed, to_i128(coef)?));
        }
        disjuncts.push(contract::Bound {
            terms,
            constant: to_i128(&e.constant)?,
        });
    }
    Some(Requirement { disjuncts })
}

/// Where an assumption over the inputs goes in the entry block: after the definitions of
/// the null flags and object sizes it may read.
fn assumption_point(func: &Function) -> usize {
    func.blocks[func.entry.index()]
        .insts
        .iter()
        .rposition(|i| {
            matches!(
                i,
                Inst::Havoc {
                    reason: HavocReason::NullParam { .. }
                        | HavocReason::SizeParam { .. }
                        | HavocReason::AddressParam { .. }
                        | HavocReason::FieldParam { .. },
                    ..
                }
            )
        })
        .map_or(0, |i| i + 1)
}

/// The C text of the `ty` integer at byte `offset` of the object `param` points to, read
/// signed or unsigned: `*(int32_t *)((char *)p + 8)`, `*(uint8_t *)p`.
fn field_text(param: &str, offset: u64, ty: crate::ir::Ty, reading: Interp) -> String {
    let sign = match reading {
        Interp::Signed => "",
        Interp::Unsigned => "u",
    };
    let pointer = match offset {
        0 => param.to_string(),
        _ => format!("((char *){param} + {offset})"),
    };
    format!("*({sign}int{}_t *){pointer}", ty.width)
}

/// A candidate precondition: a conjunction of clauses, each a disjunction of constraints
/// over the inputs, `Σ aᵢ·pᵢ + c ≥ 0`, and its C text.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Candidate {
    clauses: Vec<Vec<Affine>>,
    text: String,
}

/// A candidate before it is printed: each disjunct as a linear expression (`e ≥ 0`) and as
/// the affine form an assumption of it computes.
struct Draft {
    disjuncts: Vec<(LinExpr, Affine)>,
}

/// How a run's candidates are printed: the parameters' names and machine ranges, and the
/// null flags (the pointer parameter's name, and the flag's reading when it is `NULL`).
struct Printer {
    space: Space,
    ranges: Vec<Interval>,
    nulls: BTreeMap<Var, (String, Int)>,
    /// The object sizes' dimensions.
    sizes: Vec<Var>,
}

impl Printer {
    /// `e ≥ 0` as a bound on an object size, `rest <= size(p)`, when `e` is `size(p)` plus
    /// other terms (the contract a caller reads: `len <= size(dst)`).
    fn size_bound(&self, e: &LinExpr) -> Option<String> {
        let size = self.sizes.iter().find(|v| e.coeff(**v) == Int::one())?;
        let rest = e.minus(&LinExpr::var(*size)).negated();
        if rest.vars().next().is_none() || rest.vars().any(|v| self.nulls.contains_key(&v)) {
            return None;
        }
        Some(format!(
            "{} <= {}",
            rest.display(&self.space),
            self.space.name(*size)
        ))
    }

    /// Whether `e ≥ 0` says exactly that a pointer parameter is `NULL`.
    fn is_null(&self, e: &LinExpr) -> bool {
        let terms: Vec<(Var, Int)> = e.terms().map(|(v, a)| (v, a.clone())).collect();
        let [(v, a)] = terms.as_slice() else {
            return false;
        };
        let Some((_, null)) = self.nulls.get(v) else {
            return false;
        };
        let holds = |f: &Int| a * f + e.constant_part() >= Int::zero();
        !holds(&Int::zero()) && holds(null)
    }

    /// Whether `e ≥ 0` only bounds object sizes from below (`size(p) >= 8`): every term a
    /// size with a positive coefficient.
    fn is_size_floor(&self, e: &LinExpr) -> bool {
        let mut terms = e.terms().peekable();
        terms.peek().is_some() && terms.all(|(v, a)| self.sizes.contains(&v) && a > &Int::zero())
    }

    /// Whether `e ≥ 0` bounds an object size from above (`size(p) <= 7`, `size(p) <= n`):
    /// some term a size with a negative coefficient, none with a positive one.
    fn is_size_ceiling(&self, e: &LinExpr) -> bool {
        let mut sizes = e.terms().filter(|(v, _)| self.sizes.contains(v)).peekable();
        sizes.peek().is_some() && sizes.all(|(_, a)| a < &Int::zero())
    }

    /// The C text of `e ≥ 0 && f ≥ 0` for `f = -e` (an equality), `None` when it mentions a
    /// null flag.
    fn equality(&self, e: &LinExpr, f: &LinExpr) -> Option<String> {
        if e.vars().any(|v| self.nulls.contains_key(&v)) {
            return None;
        }
        let cons = [e, f].map(|expr| LinCons {
            expr: expr.clone(),
            kind: ConsKind::Ge,
        });
        let text = readable_invariant(&[cons.to_vec()], &self.space, &self.ranges);
        (text != "true" && text != "false").then_some(text)
    }

    /// The C text of `e ≥ 1 || f ≥ 1` for `f = -e` (all but one value: `x != c` over the
    /// integers), `None` when it mentions a null flag or an object size.
    fn disequality(&self, e: &LinExpr) -> Option<String> {
        if e.vars()
            .any(|v| self.nulls.contains_key(&v) || self.sizes.contains(&v))
        {
            return None;
        }
        let equal = self.equality(e, &e.negated())?;
        (equal.matches(" == ").count() == 1).then(|| equal.replacen(" == ", " != ", 1))
    }

    /// The C text of the disjunction of `e ≥ 0`, `None` when it is `true` or `false`, or
    /// when a disjunct mixes a null flag with other inputs.
    fn text(&self, disjuncts: &[(LinExpr, Affine)]) -> Option<String> {
        let mut flags = Vec::new();
        let mut sized = Vec::new();
        let mut unequal = Vec::new();
        let mut printed: Vec<Vec<LinCons>> = Vec::new();
        // Two bounds that leave out one value (`x <= c - 1 || x >= c + 1`) print as `x != c`.
        let mut paired = vec![false; disjuncts.len()];
        for i in 0..disjuncts.len() {
            let e = &disjuncts[i].0;
            let opposite = (i + 1..disjuncts.len())
                .find(|&j| !paired[j] && e.plus(&disjuncts[j].0) == LinExpr::constant(-2));
            if let (false, Some(j)) = (paired[i], opposite) {
                let mut centred = e.clone();
                centred.add_constant(1);
                if let Some(text) = self.disequality(&centred) {
                    unequal.push(text);
                    paired[i] = true;
                    paired[j] = true;
                }
            }
        }
        for (e, _) in disjuncts
            .iter()
            .zip(&paired)
            .filter(|(_, p)| !**p)
            .map(|(d, _)| d)
        {
            let terms: Vec<(Var, Int)> = e.terms().map(|(v, a)| (v, a.clone())).collect();
            match terms.as_slice() {
                [(v, a)] if self.nulls.contains_key(v) => {
                    let (name, null) = &self.nulls[v];
                    // `a·f + c ≥ 0` at the flag's two readings.
                    let holds = |f: &Int| a * f + e.constant_part() >= Int::zero();
                    match (holds(&Int::zero()), holds(null)) {
                        (true, false) => flags.push(format!("{name} != NULL")),
                        (false, true) => flags.push(format!("{name} == NULL")),
                        _ => return None,
                    }
                }
                _ if terms.iter().any(|(v, _)| self.nulls.contains_key(v)) => return None,
                // `x >= 1` for an `x` never negative (read unsigned, as a pointer's word)
                // is `x != 0`.
                [(v, a)]
                    if a.is_one()
                        && *e.constant_part() == -Int::one()
                        && self.ranges[v.index()].lo == Some(Rat::zero())
                        && self.disequality(&LinExpr::var(*v)).is_some() =>
                {
                    unequal.extend(self.disequality(&LinExpr::var(*v)));
                }
                _ => match self.size_bound(e) {
                    Some(bound) => sized.push(bound),
                    None => printed.push(vec![LinCons {
                        expr: e.clone(),
                        kind: ConsKind::Ge,
                    }]),
                },
            }
        }
        let mut parts = unequal;
        if !printed.is_empty() {
            let text = readable_invariant(&printed, &self.space, &self.ranges);
            let nothing_else = parts.is_empty() && flags.is_empty() && sized.is_empty();
            if text == "true" || text == "false" && nothing_else {
                return None;
            }
            if text != "false" {
                parts.push(text);
            }
        }
        parts.extend(sized);
        parts.extend(flags);
        (!parts.is_empty()).then(|| parts.join(" || "))
    }
}

/// The candidates, less the disjuncts under which the check is never reached (no block that
/// evaluates it reachable by an analysis over intervals with the disjunct assumed): such a
/// disjunct says only "do not run this code" (`len <= 0` before an early return), which no
/// reader wants as a contract. A disjunct `p == NULL` alone is dropped without an analysis:
/// a pointer parameter that is `NULL` stops the function at its first dereference, so it
/// says the same, and so does one that bounds an object size from above (`size(ip) <= 7`
/// before `assert(*ip != NULL)`): a program observes an object's size only by an access
/// outside it, so a small object only stops the function at an access before the check.
/// A disjunct that only bounds object sizes from below is kept without an
/// analysis: a program cannot observe the size of an object beyond the bytes it accesses,
/// so an execution that reaches the check reaches it with larger objects too. Any other
/// disjunct not shown to let the check run (its analysis stopped, or there were too many)
/// is dropped, and so is one that is no readable C ([`readable`]). A candidate left with
/// no disjunct is dropped. Dropping a disjunct only strengthens the precondition, so it
/// holds as before.
fn exercised(
    func: &Function,
    (drafts, printer): (Vec<(CheckId, Vec<Draft>)>, Option<Printer>),
    lines: &BTreeMap<CheckId, (String, u32)>,
    config: &AnalysisConfig,
    deadline: &Deadline,
) -> Vec<(CheckId, Candidate)> {
    let Some(printer) = printer else {
        return Vec::new();
    };
    let checks: Vec<CheckId> = drafts.iter().map(|(c, _)| *c).collect();
    let sites = error_blocks(func, &checks);
    let at: BTreeMap<CheckId, Vec<BlockId>> = sites
        .iter()
        .map(|&(check, site)| (check, evaluating(func, site, lines.get(&check))))
        .collect();
    // Which checks each distinct disjunct lets run (`None`: not known, dropped: a disjunct
    // kept is one shown to let the check run).
    let mut reached: Vec<(Affine, Option<Vec<CheckId>>)> = Vec::new();
    let mut out = Vec::new();
    // The analyses go first to the candidates that have no disjunct kept without one.
    let mut drafts = drafts;
    drafts.sort_by_key(|(check, clauses)| {
        let free = clauses.iter().all(|draft| {
            draft
                .disjuncts
                .iter()
                .any(|(e, _)| printer.is_size_floor(e))
        });
        (free, *check)
    });
    'checks: for (check, drafts) in drafts {
        let mut clauses: Vec<Vec<(LinExpr, Affine)>> = Vec::new();
        for draft in drafts {
            // A clause emptied would weaken the conjunction: the check has no candidate.
            let Some(kept) = exercised_clause(
                draft,
                check,
                &printer,
                &at,
                &mut reached,
                func,
                config,
                deadline,
            ) else {
                continue 'checks;
            };
            if !clauses.contains(&kept) {
                clauses.push(kept);
            }
        }
        let dim = printer.space.dim();
        // Clauses that no input meets at once (`i >= 0 && i <= -1`, from a domain that lost
        // how the conjuncts relate) say nothing a reader can use.
        if !satisfiable(&clauses, dim) {
            continue;
        }
        prune(&mut clauses, dim);
        let mut texts = Vec::new();
        for (k, clause) in clauses.iter().enumerate() {
            // Two bounds that meet (`x >= 0 && x <= 0`) print as one equality.
            let opposite = |c: &Vec<(LinExpr, Affine)>| {
                c.len() == 1 && clause.len() == 1 && c[0].0 == clause[0].0.negated()
            };
            if clauses[..k].iter().any(opposite) {
                continue;
            }
            let text = match clauses[k + 1..].iter().find(|c| opposite(c)) {
                Some(other) => printer.equality(&clause[0].0, &other[0].0),
                None => printer.text(clause),
            };
            let Some(text) = text else {
                continue 'checks;
            };
            texts.push(match clauses.len() > 1 && text.contains(" || ") {
                true => format!("({text})"),
                false => text,
            });
        }
        let clauses = clauses
            .into_iter()
            .map(|c| c.into_iter().map(|(_, a)| a).collect())
            .collect();
        let text = texts.join(" && ");
        out.push((check, Candidate { clauses, text }));
    }
    out
}

/// Drops from each clause the disjuncts that the single-disjunct clauses contradict
/// (`i >= 0 && (i <= -1 || i < n)` is `i >= 0 && i < n`): the conjunction is unchanged.
fn prune(clauses: &mut [Vec<(LinExpr, Affine)>], dim: usize) {
    let units: Vec<LinCons> = clauses
        .iter()
        .filter(|c| c.len() == 1)
        .map(|c| LinCons {
            expr: c[0].0.clone(),
            kind: ConsKind::Ge,
        })
        .collect();
    if units.is_empty() {
        return;
    }
    for clause in clauses.iter_mut().filter(|c| c.len() > 1) {
        clause.retain(|(e, _)| {
            let mut cons = units.clone();
            cons.push(LinCons {
                expr: e.clone(),
                kind: ConsKind::Ge,
            });
            !empty(&cons, dim)
        });
    }
}

/// Whether no rational point meets every one of `cons`.
fn empty(cons: &[LinCons], dim: usize) -> bool {
    let poly = Polyhedron::from_cons(dim, cons, crate::domain::poly::Budget::standard());
    crate::domain::Lattice::is_bottom(&poly)
}

/// Whether some rational point meets every clause (a disjunction of `e ≥ 0`), trying each
/// choice of one disjunct per clause; `true` past a few hundred choices.
fn satisfiable(clauses: &[Vec<(LinExpr, Affine)>], dim: usize) -> bool {
    const MAX_CHOICES: usize = 256;
    let mut choices = 1usize;
    for clause in clauses {
        choices = choices.saturating_mul(clause.len());
    }
    if clauses.len() < 2 || choices > MAX_CHOICES {
        return true;
    }
    let mut pick = vec![0usize; clauses.len()];
    loop {
        let cons: Vec<LinCons> = clauses
            .iter()
            .zip(&pick)
            .map(|(clause, &k)| LinCons {
                expr: clause[k].0.clone(),
                kind: ConsKind::Ge,
            })
            .collect();
        if !empty(&cons, dim) {
            return true;
        }
        // The next choice, as an odometer.
        let mut k = 0;
        loop {
            if k == pick.len() {
                return false;
            }
            pick[k] += 1;
            if pick[k] < clauses[k].len() {
                break;
            }
            pick[k] = 0;
            k += 1;
        }
    }
}

/// One clause of a check's candidate less its disjuncts not shown to let the check run
/// (see [`exercised`]); `None` when no disjunct is left.
#[allow(clippy::too_many_arguments)]
fn exercised_clause(
    draft: Draft,
    check: CheckId,
    printer: &Printer,
    at: &BTreeMap<CheckId, Vec<BlockId>>,
    reached: &mut Vec<(Affine, Option<Vec<CheckId>>)>,
    func: &Function,
    config: &AnalysisConfig,
    deadline: &Deadline,
) -> Option<Vec<(LinExpr, Affine)>> {
    {
        let mut kept = Vec::new();
        for (e, affine) in draft.disjuncts {
            if printer.is_null(&e) || printer.is_size_ceiling(&e) || !readable(&e) {
                continue;
            }
            if printer.is_size_floor(&e) {
                kept.push((e, affine));
                continue;
            }
            let known = match reached.iter().position(|(a, _)| *a == affine) {
                Some(i) => i,
                None => {
                    let runs = if reached.len() < MAX_REACH_RUNS {
                        reaching(func, &affine, at, config, deadline)
                    } else {
                        None
                    };
                    reached.push((affine.clone(), runs));
                    reached.len() - 1
                }
            };
            if reached[known]
                .1
                .as_ref()
                .is_some_and(|r| r.contains(&check))
            {
                kept.push((e, affine));
            }
        }
        (!kept.is_empty()).then_some(kept)
    }
}

/// The largest coefficient of a readable disjunct, after division by their gcd.
const MAX_READABLE_COEFFICIENT: i64 = 1 << 31;

/// The largest constant of a readable disjunct, after the same division.
const MAX_READABLE_CONSTANT: i64 = 1 << 62;

/// Whether `e >= 0` prints as C a reader can use and a compiler accepts: its coefficients
/// at most [`MAX_READABLE_COEFFICIENT`] and its constant at most [`MAX_READABLE_CONSTANT`]
/// in magnitude once divided by the coefficients' gcd. Polyhedra may leave constraints
/// with coefficients near `2^61` and constants near `2^92`, which no `long long` literal
/// holds.
fn readable(e: &LinExpr) -> bool {
    use num_integer::Integer as _;
    let g = e.terms().fold(Int::zero(), |g, (_, c)| g.gcd(c));
    if g.is_zero() {
        return true;
    }
    let within = |x: &Int, bound: i64| (x / &g).abs() <= Int::from(bound);
    e.terms().all(|(_, c)| within(c, MAX_READABLE_COEFFICIENT))
        && within(e.constant_part(), MAX_READABLE_CONSTANT)
}

/// The blocks that evaluate the check of the error block `site`: those that branch to it,
/// and, given the check's source `line` (an assertion's), those with code of that line (the
/// first operand of `a || b` is evaluated in a block that does not branch to the error
/// site).
fn evaluating(func: &Function, site: BlockId, line: Option<&(String, u32)>) -> Vec<BlockId> {
    let on_line = |loc: &Option<SourceLoc>| matches!((loc, line), (Some(l), Some((file, n))) if l.line == *n && l.file == *file);
    func.blocks
        .iter()
        .enumerate()
        .filter(|&(i, b)| {
            i != site.index()
                && (b.term.successors().contains(&site)
                    || b.locs.iter().any(on_line)
                    || on_line(&b.term_loc))
        })
        .map(|(i, _)| BlockId(i as u32))
        .collect()
}

/// The checks of `at` whose evaluating blocks an analysis over intervals reaches with
/// `disjunct` assumed at the entry; `None` when the analysis did not complete.
fn reaching(
    func: &Function,
    disjunct: &Affine,
    at: &BTreeMap<CheckId, Vec<BlockId>>,
    config: &AnalysisConfig,
    deadline: &Deadline,
) -> Option<Vec<CheckId>> {
    let mut assumed = only_sites(func, &[]);
    let insts = assumption(&mut assumed, std::slice::from_ref(disjunct))?;
    let entry = assumed.entry.index();
    let point = assumption_point(func);
    assumed.blocks[entry].insts.splice(point..point, insts);
    analyze::<IntervalDomain, _>(
        &assumed,
        config,
        super::Engine::Classic,
        deadline,
        |_, _, run| {
            at.iter()
                .filter(|(_, blocks)| blocks.iter().any(|b| run.invariants.at(*b).is_some()))
                .map(|(c, _)| *c)
                .collect()
        },
    )
}

/// `Σ aᵢ·pᵢ + c` over inputs, each with the reading the inference gave it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Affine {
    /// `(parameter, reading, coefficient)`.
    terms: Vec<(ValueId, Interp, Int)>,
    constant: Int,
}

/// The candidate of each target whose error site the analysis with live inputs reaches
/// with a complement over named inputs, and how to print them.
fn infer<D: NumericDomain>(
    func: &Function,
    targets: &[CheckId],
    config: &AnalysisConfig,
    engine: super::Engine,
    deadline: &Deadline,
) -> (Vec<(CheckId, Vec<Draft>)>, Option<Printer>) {
    let mut probe = only_sites(func, targets);
    let blocks: Vec<BlockId> = error_blocks(func, targets)
        .iter()
        .map(|&(_, b)| b)
        .collect();
    conjuncts::split_at(&mut probe, &blocks);
    conjuncts::separate(&mut probe, &blocks);
    let sites = error_blocks(&probe, targets);
    let inputs = inputs(func);
    for &(_, block) in &sites {
        for p in inputs.iter().map(|i| i.value) {
            let ty = probe.value(p).ty;
            let copy = new_value(&mut probe, ty, "param.live");
            probe.blocks[block.index()].insts.push(Inst::Assign {
                dest: copy,
                expr: Expr::Use(Operand::Value(p)),
            });
        }
    }
    analyze::<D, _>(&probe, config, engine, deadline, |ctx, lowering, run| {
        let (drafts, printer) = candidates(func, &sites, ctx, lowering, run);
        (drafts, Some(printer))
    })
    .unwrap_or((Vec::new(), None))
}

/// The candidates of the error `sites` from a complete run over the function with live
/// inputs.
fn candidates<D: NumericDomain>(
    func: &Function,
    sites: &[(CheckId, BlockId)],
    ctx: &FunctionContext<'_>,
    lowering: &Lowering<'_>,
    run: &Run<D>,
) -> (Vec<(CheckId, Vec<Draft>)>, Printer) {
    let layout = lowering.layout();
    let inputs = inputs(func);
    let param_vars: Vec<(Var, ValueId)> = inputs
        .iter()
        .map(|i| (layout.value_var(i.value), i.value))
        .collect();
    let others: Vec<Var> = layout
        .dims()
        .filter(|(_, dim)| !matches!(dim, Dim::Value(v) if inputs.iter().any(|i| i.value == *v)))
        .map(|(var, _)| var)
        .collect();
    let mut ranges: BTreeMap<Var, (Int, Int)> = param_vars
        .iter()
        .map(|&(var, p)| (var, lowering.range(p)))
        .collect();
    // The names of the parameters, for printing; other dimensions never appear.
    let mut names = vec![String::new(); lowering.space().dim()];
    let mut nulls = BTreeMap::new();
    for (input, &(var, p)) in inputs.iter().zip(&param_vars) {
        let name = match &input.of {
            InputOf::Param => func.value(p).source_name.as_ref(),
            InputOf::Null(param)
            | InputOf::Size(param)
            | InputOf::Address(param)
            | InputOf::Field(param, _) => Some(param),
        };
        match name {
            Some(name) if is_identifier(name) => names[var.index()] = name.clone(),
            _ => continue,
        }
        if let InputOf::Size(param) = &input.of {
            // An object size is never negative (the entry assumes it).
            names[var.index()] = format!("size({param})");
            if let Some((lo, _)) = ranges.get_mut(&var) {
                *lo = Int::zero();
            }
        }
        if let InputOf::Field(param, offset) = &input.of {
            names[var.index()] = field_text(param, *offset, func.value(p).ty, ctx.reading(p));
        }
        if let InputOf::Address(param) = &input.of {
            names[var.index()] = format!("(intptr_t){param}");
            // An address is never negative (the entry assumes it).
            if let Some((lo, _)) = ranges.get_mut(&var) {
                *lo = Int::zero();
            }
        }
        if let InputOf::Null(param) = &input.of {
            // The reading of `true`: 1 unsigned, -1 signed.
            let null = match ctx.reading(p) {
                Interp::Signed => -Int::one(),
                Interp::Unsigned => Int::one(),
            };
            nulls.insert(var, (param.clone(), null));
        }
    }
    let space = Space::named(names.clone());
    let mut print_ranges = vec![Interval::top(); lowering.space().dim()];
    for (var, (lo, hi)) in &ranges {
        print_ranges[var.index()] = Interval::ints(lo.clone(), hi.clone());
    }
    // Per check, one clause per reachable copy of its site; `None` once a copy has none.
    let mut clauses: BTreeMap<CheckId, Option<Vec<Draft>>> = BTreeMap::new();
    for &(check, block) in sites {
        // No invariant: the site is unreachable, nothing to assume.
        let Some(state) = run.invariants.at(block) else {
            continue;
        };
        let mut state = state.clone();
        state.forget(&others);
        let disjuncts = complement(&state.to_cons(), &ranges).filter(|d| {
            !d.is_empty()
                && !d
                    .iter()
                    .flat_map(|e| e.vars())
                    .any(|v| names[v.index()].is_empty())
        });
        let Some(disjuncts) = disjuncts else {
            clauses.insert(check, None);
            continue;
        };
        let disjuncts = disjuncts
            .into_iter()
            .map(|e| {
                let affine = Affine {
                    terms: e
                        .terms()
                        .filter_map(|(var, a)| {
                            let p = layout.value(var)?;
                            Some((p, ctx.reading(p), a.clone()))
                        })
                        .collect(),
                    constant: e.constant_part().clone(),
                };
                (e, affine)
            })
            .collect();
        if let Some(list) = clauses.entry(check).or_insert_with(|| Some(Vec::new())) {
            list.push(Draft { disjuncts });
        }
    }
    let out = clauses
        .into_iter()
        .filter_map(|(check, list)| Some((check, list?)))
        .collect();
    let sizes = inputs
        .iter()
        .zip(&param_vars)
        .filter(|(i, _)| matches!(i.of, InputOf::Size(_)))
        .map(|(_, &(var, _))| var)
        .collect();
    let printer = Printer {
        space,
        ranges: print_ranges,
        nulls,
        sizes,
    };
    (out, printer)
}

/// The complement of the conjunction `cons` over the box `ranges`, as a disjunction of
/// `e ≥ 0`: the negation of each constraint, less those that hold nowhere in the box or at
/// one point only (see the module docs). `None` when one negation holds everywhere in it
/// (the conjunction is empty there).
fn complement(cons: &[LinCons], ranges: &BTreeMap<Var, (Int, Int)>) -> Option<Vec<LinExpr>> {
    let mut ge = Vec::new();
    for c in cons {
        match c.kind {
            ConsKind::Ge => ge.push(c.expr.clone()),
            ConsKind::Eq => {
                ge.push(c.expr.clone());
                ge.push(c.expr.negated());
            }
        }
    }
    let mut out: Vec<LinExpr> = Vec::new();
    for e in ge {
        // ¬(e ≥ 0) over integers: -e - 1 ≥ 0.
        let mut neg = e.negated();
        neg.add_constant(-1);
        let (lo, hi) = bounds(&neg, ranges)?;
        // Below the least step of `neg`, only the corner where it is greatest satisfies it;
        // a flag's one point (`p != NULL`) is half its values, and stays.
        let step = neg.terms().map(|(_, a)| a.abs()).min();
        let flags = neg
            .vars()
            .any(|v| ranges.get(&v).is_some_and(|(l, h)| h - l <= Int::one()));
        if hi < Int::zero() || !flags && step.is_some_and(|step| hi < step) {
            continue;
        }
        if lo >= Int::zero() {
            return None;
        }
        if !out.contains(&neg) {
            out.push(neg);
        }
    }
    Some(out)
}

/// The least and greatest values of `e` over the box `ranges` (`None`: a dimension outside
/// it).
fn bounds(e: &LinExpr, ranges: &BTreeMap<Var, (Int, Int)>) -> Option<(Int, Int)> {
    let (mut lo, mut hi) = (e.constant_part().clone(), e.constant_part().clone());
    for (v, a) in e.terms() {
        let (l, h) = ranges.get(&v)?;
        if a.is_positive() {
            lo += a * l;
            hi += a * h;
        } else {
            lo += a * h;
            hi += a * l;
        }
    }
    Some((lo, hi))
}

/// The `checks` that hold under `candidate` by a second analysis: analyzed once per way to
/// satisfy it, one disjunct of each clause assumed at the entry (a convex domain would lose
/// a disjunction assumed at once), the checks whose error site gets no invariant in every
/// run. `runs` counts the analyses.
fn recheck<D: NumericDomain>(
    func: &Function,
    candidate: &Candidate,
    checks: &[CheckId],
    config: &AnalysisConfig,
    engine: super::Engine,
    deadline: &Deadline,
    runs: &mut usize,
) -> Vec<CheckId> {
    let mut proved = checks.to_vec();
    // Every choice of one disjunct per clause.
    let mut choices: Vec<Vec<Affine>> = vec![Vec::new()];
    for clause in &candidate.clauses {
        choices = choices
            .iter()
            .flat_map(|chosen| {
                clause.iter().map(move |d| {
                    let mut next = chosen.clone();
                    next.push(d.clone());
                    next
                })
            })
            .collect();
        if choices.len() > MAX_RUNS {
            return Vec::new();
        }
    }
    for conjunction in &choices {
        if proved.is_empty() || *runs >= MAX_RUNS {
            return Vec::new();
        }
        *runs += 1;
        let holds = recheck_one::<D>(func, conjunction, &proved, config, engine, deadline);
        proved.retain(|c| holds.contains(c));
    }
    proved
}

/// Analyzes `func` with each of `conjunction` assumed at its entry; the `checks` whose
/// error site then gets no invariant.
fn recheck_one<D: NumericDomain>(
    func: &Function,
    conjunction: &[Affine],
    checks: &[CheckId],
    config: &AnalysisConfig,
    engine: super::Engine,
    deadline: &Deadline,
) -> Vec<CheckId> {
    let mut assumed = only_sites(func, checks);
    let mut insts = Vec::new();
    for conjunct in conjunction {
        match assumption(&mut assumed, std::slice::from_ref(conjunct)) {
            Some(more) => insts.extend(more),
            None => return Vec::new(),
        }
    }
    let entry = assumed.entry.index();
    let at = assumption_point(func);
    assumed.blocks[entry].insts.splice(at..at, insts);
    analyze::<D, _>(&assumed, config, engine, deadline, |_, _, run| {
        error_blocks(func, checks)
            .into_iter()
            .filter(|(_, b)| run.invariants.at(*b).is_none())
            .map(|(c, _)| c)
            .collect()
    })
    .unwrap_or_default()
}

/// Runs `engine` over `D` on `func` without facts; `read` of its result when it reached its
/// fixpoint (a stopped run's invariants are not sound).
fn analyze<D: NumericDomain, R>(
    func: &Function,
    config: &AnalysisConfig,
    engine: super::Engine,
    deadline: &Deadline,
    read: impl FnOnce(&FunctionContext<'_>, &Lowering<'_>, &Run<D>) -> R,
) -> Option<R> {
    let ctx = FunctionContext::new(func, &config.params);
    let lowering = Lowering::new(&ctx);
    let run = run_engine::<D>(
        &lowering,
        engine,
        &SlotAssignment::default(),
        &CutFacts::none(),
        deadline,
    );
    (run.outcome == Outcome::Complete).then(|| read(&ctx, &lowering, &run))
}

/// The instructions that compute the disjunction of `e ≥ 0` over the parameters of `func`
/// exactly (in 64- or 128-bit arithmetic that cannot overflow) and assume it; `None` when a
/// constraint cannot be computed so.
fn assumption(func: &mut Function, disjuncts: &[Affine]) -> Option<Vec<Inst>> {
    let i64t = Ty::int(64);
    let limit = Int::one() << 62;
    let mut insts = Vec::new();
    let mut truths = Vec::new();
    for e in disjuncts {
        if let [(p, reading, a)] = e.terms.as_slice() {
            let truth = new_value(func, Ty::BOOL, "pre.holds");
            insts.push(assign(truth, bound(func, *p, *reading, a, &e.constant)?));
            truths.push(truth);
            continue;
        }
        let mut magnitude: Int = e.constant.abs();
        let mut terms = Vec::new();
        for (p, reading, a) in &e.terms {
            let ty = func.value(*p).ty;
            let signed = *reading == Interp::Signed;
            let reach: Int = if signed {
                Int::one() << (ty.width.saturating_sub(1))
            } else {
                Int::one() << ty.width
            };
            magnitude += a.abs() * reach;
            terms.push((*p, ty, signed, a.clone()));
        }
        // 64 bits when they hold the sum, 128 for one over 64-bit inputs (an object size).
        let wide_ty = if magnitude < limit {
            i64t
        } else if magnitude < Int::one() << 125 {
            Ty::int(128)
        } else {
            return None;
        };
        let mut acc: Operand = Operand::Const(Const::new(wide_ty, to_i128(&e.constant)?));
        for (p, ty, signed, a) in terms {
            let wide = if ty.width == wide_ty.width {
                Operand::Value(p)
            } else {
                let w = new_value(func, wide_ty, "pre.ext");
                insts.push(assign(
                    w,
                    Expr::Cast {
                        op: if signed { CastOp::SExt } else { CastOp::ZExt },
                        arg: Operand::Value(p),
                    },
                ));
                Operand::Value(w)
            };
            let term = new_value(func, wide_ty, "pre.term");
            insts.push(assign(
                term,
                binary(
                    BinOp::Mul,
                    wide,
                    Operand::Const(Const::new(wide_ty, to_i128(&a)?)),
                ),
            ));
            let sum = new_value(func, wide_ty, "pre.sum");
            insts.push(assign(sum, binary(BinOp::Add, acc, Operand::Value(term))));
            acc = Operand::Value(sum);
        }
        let truth = new_value(func, Ty::BOOL, "pre.holds");
        insts.push(assign(
            truth,
            Expr::Cmp {
                pred: CmpPred::Sge,
                lhs: acc,
                rhs: Operand::Const(Const::new(wide_ty, 0)),
            },
        ));
        truths.push(truth);
    }
    let mut any = Operand::Value(*truths.first()?);
    for t in &truths[1..] {
        let or = new_value(func, Ty::BOOL, "pre.any");
        insts.push(assign(
            or,
            Expr::Binary {
                op: BinOp::Or,
                lhs: any,
                rhs: Operand::Value(*t),
                flags: ArithFlags::default(),
            },
        ));
        any = Operand::Value(or);
    }
    insts.push(Inst::Assume { cond: any });
    Some(insts)
}

/// `a·p + c ≥ 0` as a comparison of `p` with a constant of its type, in its reading:
/// `p ≥ ⌈-c/a⌉` when `a > 0`, `p ≤ ⌊c/-a⌋` when `a < 0`.
fn bound(func: &Function, p: ValueId, reading: Interp, a: &Int, c: &Int) -> Option<Expr> {
    use num_integer::Integer as _;
    let ty = func.value(p).ty;
    let (lo, hi): (Int, Int) = match reading {
        Interp::Signed => (
            -(Int::one() << (ty.width - 1)),
            (Int::one() << (ty.width - 1)) - 1,
        ),
        Interp::Unsigned => (Int::zero(), (Int::one() << ty.width) - 1),
    };
    let (k, pred) = if a.is_positive() {
        let k = (-c).div_ceil(a);
        let pred = match reading {
            Interp::Signed => CmpPred::Sge,
            Interp::Unsigned => CmpPred::Uge,
        };
        (k, pred)
    } else if a.is_negative() {
        let k = c.div_floor(&-a);
        let pred = match reading {
            Interp::Signed => CmpPred::Sle,
            Interp::Unsigned => CmpPred::Ule,
        };
        (k, pred)
    } else {
        return None;
    };
    if k < lo || k > hi {
        return None;
    }
    Some(Expr::Cmp {
        pred,
        lhs: Operand::Value(p),
        rhs: Operand::Const(Const::new(ty, to_i128(&k)?)),
    })
}

/// `lhs op rhs` that never wraps (the caller bounds the magnitudes).
fn binary(op: BinOp, lhs: Operand, rhs: Operand) -> Expr {
    Expr::Binary {
        op,
        lhs,
        rhs,
        flags: ArithFlags {
            nsw: true,
            ..ArithFlags::default()
        },
    }
}

fn assign(dest: ValueId, expr: Expr) -> Inst {
    Inst::Assign { dest, expr }
}

fn to_i128(x: &Int) -> Option<i128> {
    i128::try_from(x.clone()).ok()
}

/// A fresh value of `func`.
fn new_value(func: &mut Function, ty: Ty, name: &str) -> ValueId {
    func.values.push(ValueInfo {
        ty,
        name: format!("{name}.{}", func.values.len()),
        source_name: None,
    });
    ValueId((func.values.len() - 1) as u32)
}

/// `func` with the error sites of checks other than `checks` ending their paths without an
/// error: the same executions continue past every check (the path through a check's error
/// site ended there already), and an analysis has fewer sites to reach.
fn only_sites(func: &Function, checks: &[CheckId]) -> Function {
    let mut out = func.clone();
    for block in &mut out.blocks {
        if matches!(block.term, Terminator::Error(c) if !checks.contains(&c)) {
            block.term = Terminator::Stop;
        }
    }
    out
}

/// The error block of each of `checks` in `func`.
fn error_blocks(func: &Function, checks: &[CheckId]) -> Vec<(CheckId, BlockId)> {
    func.blocks
        .iter()
        .enumerate()
        .filter_map(|(i, b)| match b.term {
            Terminator::Error(c) if checks.contains(&c) => Some((c, BlockId(i as u32))),
            _ => None,
        })
        .collect()
}

/// Whether `name` is a C identifier (a parameter's name can be printed as is).
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expr(terms: &[(u32, i128)], constant: i128) -> LinExpr {
        terms
            .iter()
            .fold(LinExpr::constant(Int::from(constant)), |e, (v, c)| {
                e.plus(&LinExpr::var(Var(*v)).scaled(&Int::from(*c)))
            })
    }

    #[test]
    fn a_disjunct_with_literals_no_long_long_holds_is_not_readable() {
        // From a generated program: `2305843023172337675*p0 - 2305843000623759336*p1 >=
        // 4951760147918149067036688429`, which no compiler accepts.
        let huge = expr(
            &[(0, 2305843023172337675), (1, -2305843000623759336)],
            -4951760147918149067036688429,
        );
        assert!(!readable(&huge));
        // A common factor divides out: `4*x - 8 >= 0` is `x >= 2`.
        assert!(readable(&expr(&[(0, 1 << 40)], -(1 << 41))));
        assert!(readable(&expr(&[(0, 16), (1, -1)], -12)));
        assert!(readable(&expr(&[], 5)));
        assert!(!readable(&expr(&[(0, 3), (1, (1 << 32) + 1)], 0)));
    }
}
