//! Contracts of the functions that stay calls: what the lifter assumes at their calls and
//! entries, and, in *certify* mode, checks (see [`super::lift::LiftOptions`]). The contracts
//! come from the driver (`driver::contracts`), which proves them before they are used; this
//! module only says what one is.
//!
//! A contract has a *summary* (clauses `guard → atom` over the parameters at entry and the
//! returned value) and, in a closed program, a *calling context* (atoms over the parameters
//! that hold at every call).
//!
//! Every atom is evaluated by the same IR instructions where it is checked and where it is
//! assumed (`Σ coef·sext64(x) + constant` in wrapping `i64`, then `>= 0` or `== 0`; one
//! comparison in `x`'s width when it has one term and the constant fits): what is assumed
//! is exactly what was proved, whatever the readings the engines choose. A clause guarded
//! by one atom over one parameter ([`specialized_guard`]) is checked in a *specialized
//! copy* of its function, lifted with the guard assumed at its entry; at a call, such
//! clauses are assumed as a partition of the argument's values (`lift::assume_cases`),
//! whose tests are atoms of the same form as the guards.
//!
//! A call still clobbers what the callee may reach; a summary's out-parameter atoms
//! ([`Slot::Out`]) then constrain what the caller reads, right after the call, where the
//! arguments point.

use std::collections::BTreeMap;

use crate::ir::{self, CheckId};

/// Where an atom reads: a parameter (its position in the function, integer parameters
/// only), the returned value, or an integer the function leaves where a pointer parameter
/// points (an out-parameter).
#[derive(Clone, Copy, PartialEq, Eq, Debug, PartialOrd, Ord)]
pub enum Slot {
    /// The parameter at this position.
    Param(usize),
    /// The value the function returns.
    Ret,
    /// The `bits`-bit integer at the address the pointer parameter at position `param`
    /// holds, as the function leaves it when it returns (read after the call by the
    /// caller). Only in summaries of what functions return (`driver::contracts::returns`).
    Out {
        /// The pointer parameter's position.
        param: usize,
        /// The integer's width in bits.
        bits: u32,
    },
}

/// The bound `b` when the lifter evaluates `coef·x + constant >= 0` (or `== 0`) over one
/// value `x` of `width` bits as one comparison in that width (`x >= b`, `x <= b`, `x == b`):
/// `coef` is `±1` and `b = -coef·constant` lies in the width's signed range. Such an atom
/// cannot wrap, whatever `x`'s bounds.
pub fn one_comparison_bound(coef: i64, constant: i64, width: u32) -> Option<i128> {
    let ty = ir::Ty::int(width);
    let bound = -(coef as i128) * constant as i128;
    let fits = matches!(coef, 1 | -1) && width >= 2 && (ty.smin()..=ty.smax()).contains(&bound);
    fits.then_some(bound)
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
    /// `Σ terms + constant >= 0`.
    pub fn ge(terms: Vec<(Slot, i64)>, constant: i64) -> Atom {
        Atom {
            terms,
            constant,
            is_eq: false,
        }
    }

    /// `p == k`.
    pub fn param_eq(p: usize, k: i64) -> Atom {
        Atom {
            terms: vec![(Slot::Param(p), 1)],
            constant: -k,
            is_eq: true,
        }
    }

    /// `p >= c`.
    pub fn param_ge(p: usize, c: i64) -> Atom {
        Atom::ge(vec![(Slot::Param(p), 1)], -c)
    }

    /// `p <= c`.
    pub fn param_le(p: usize, c: i64) -> Atom {
        Atom::ge(vec![(Slot::Param(p), -1)], c)
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
    /// Whether it says nothing.
    pub fn is_empty(&self) -> bool {
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
    /// Requirement `requirement` of `function` (see [`Requirement`]), at one of its call
    /// sites.
    Requirement {
        function: String,
        requirement: usize,
    },
}

/// One round's lifting in certify mode: the module of the functions that take part, and
/// what each of its obligations stands for.
pub struct CertifyModule {
    /// The module to prove.
    pub module: ir::Module,
    /// The obligations, by check.
    pub obligations: Vec<(CheckId, Obligation)>,
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

/// What a precondition of a function reads, named as the function's parameter is in the
/// IR (its LLVM name, `argN` when it has none), so that a caller finds the argument.
#[derive(Clone, PartialEq, Eq, Debug, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum Input {
    /// An integer parameter's value.
    Value(String),
    /// Whether a pointer parameter is `NULL` (its null flag).
    Null(String),
    /// The bytes of a pointer parameter's object from the pointer on (`size(p)`).
    Size(String),
    /// The address a pointer parameter holds, as a non-negative integer (`(intptr_t)p`).
    Address(String),
    /// The `width`-bit integer at byte `offset` of a pointer parameter's object at the
    /// entry (a field of `*p`), as a caller leaves it before the call.
    Field {
        /// The parameter.
        param: String,
        /// The byte offset from the pointer.
        offset: u64,
        /// The integer's width in bits.
        width: u32,
    },
}

impl Input {
    /// The parameter it reads.
    pub fn param(&self) -> &str {
        match self {
            Input::Value(p) | Input::Null(p) | Input::Size(p) | Input::Address(p) => p,
            Input::Field { param, .. } => param,
        }
    }
}

/// `Σ coef·x + constant >= 0` over inputs, each read signed or unsigned (a null flag as
/// `-1` or `1` when set), in exact arithmetic.
#[derive(Clone, PartialEq, Eq, Debug, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct Bound {
    /// `(input, read signed, coefficient)`.
    pub terms: Vec<(Input, bool, i128)>,
    /// The constant.
    pub constant: i128,
}

/// A precondition of some checks of a function: a disjunction of bounds over its inputs
/// under which they hold (`holds if P`, certified by the analysis of the function). Checked
/// at each call site of a function called only there (`lift::LiftOptions::requirements`).
#[derive(Clone, PartialEq, Eq, Debug, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct Requirement {
    /// The disjuncts.
    pub disjuncts: Vec<Bound>,
}

/// The requirements checked at the calls of each function, by name.
pub type Requirements = BTreeMap<String, Vec<Requirement>>;

/// The callers of functions with requirements, lifted to check them
/// (`super::Program::lift_requirements`).
#[derive(Default)]
pub struct RequirementModule {
    /// The callers, whose only error sites are the requirements' checks.
    pub module: ir::Module,
    /// What each check stands for.
    pub obligations: Vec<(CheckId, Obligation)>,
    /// The functions whose every call is in `module`: a requirement of one of them holds
    /// in every execution when it is checked at each of its calls and proved there.
    pub functions: Vec<String>,
    /// How many calls each of them has.
    pub calls: BTreeMap<String, usize>,
}
