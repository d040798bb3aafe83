//! Numeric abstract domains: pure mathematics over rational points.
//!
//! **Architecture Invariant:** this module never imports `inkwell`, the solver, `ir`, `graph` or
//! `analysis`. It works on [`Var`], [`LinExpr`], [`LinCons`] and [`Interval`] only. Domain
//! operations cannot fail; the one exception is an explicit resource budget
//! ([`BudgetExceeded`]), which the analysis handles by falling back to a coarser result.
//!
//! The abstract states describe sets of points of ℚⁿ; integer programs are analyzed in the
//! rational relaxation, so every operation must over-approximate the integer semantics the
//! caller intends (the caller turns strict integer inequalities into non-strict ones).
//!
//! Laws every domain satisfies (property-tested with the solver as the oracle):
//! `γ(a) ∪ γ(b) ⊆ γ(a ⊔ b)`, `γ(a) ∩ γ(b) ⊆ γ(a ⊓ b)`, `is_leq(a, b) ⇒ γ(a) ⊆ γ(b)`,
//! `γ(a) ∪ γ(b) ⊆ γ(a ∇ b)`, and `assign` over-approximates the strongest post-condition.

pub mod congruence;
pub mod interval;
pub mod lattice;
pub mod linear;
pub mod poly;
pub mod polynomial;
pub mod predicates;
pub mod readable;
pub mod stop;
pub mod varset;

pub use interval::IntervalDomain;
pub use linear::{ConsKind, DimKind, Int, Interval, LinCons, LinExpr, Rat, Space, Var};
pub use poly::Polyhedron;
pub use varset::VarSet;

use std::fmt;

/// The answer to "does this state entail that constraint?".
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Entailment {
    /// Every point of the state satisfies the constraint.
    Holds,
    /// No point of the state satisfies the constraint.
    Violated,
    /// Some points may satisfy it and some may not.
    Unknown,
}

/// A resource budget (constraints, generators, coefficient size) would have been exceeded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BudgetExceeded {
    /// What ran out, for the user.
    pub what: String,
}

/// Lattice of abstract states over a fixed [`Space`].
pub trait Lattice: Clone + fmt::Debug {
    /// The state with every point of the space.
    fn top(space: &Space) -> Self;
    /// The empty state.
    fn bottom(space: &Space) -> Self;
    /// Number of dimensions.
    fn dim(&self) -> usize;
    /// True only if the state is empty (exact for polyhedra and intervals).
    fn is_bottom(&self) -> bool;
    /// True when the state has every point.
    fn is_top(&self) -> bool;
    /// Sound inclusion: true only if γ(self) ⊆ γ(other).
    fn is_leq(&self, other: &Self) -> bool;
    /// Least upper bound (or an upper bound): γ(self) ∪ γ(other) ⊆ γ(result).
    fn join(self, other: &Self) -> Self;
    /// Greatest lower bound: γ(self) ∩ γ(other) ⊆ γ(result).
    fn meet(self, other: &Self) -> Self;
    /// Widening of `self` (the older state) by `newer`: an upper bound of both, and every
    /// increasing chain of widenings stabilizes.
    fn widen(self, newer: &Self) -> Self;
    /// Widening that keeps each threshold constraint satisfied by both operands.
    fn widen_with_thresholds(self, newer: &Self, thresholds: &[LinCons]) -> Self;
    /// Narrowing of `self` by `newer` (a smaller post-fixpoint candidate): refines only the
    /// bounds `self` left infinite, so descending chains stabilize.
    fn narrow(self, newer: &Self) -> Self;
}

/// Numeric operations, forward and backward.
pub trait NumericDomain: Lattice {
    /// Steps of the classic engine (a block's transfer over a dimension) counted as one
    /// unit of work, so that a unit takes about as long in every domain: a step over
    /// intervals is a few machine operations, one over polyhedra a conversion's share.
    const STEPS_PER_UNIT: u64 = 1;
    /// `var := expr`.
    fn assign(&mut self, var: Var, expr: &LinExpr);
    /// Parallel assignment `vars[i] := exprs[i]` for all `i` at once.
    fn assign_parallel(&mut self, assignments: &[(Var, LinExpr)]);
    /// Pre-image of `var := expr` (backward substitution).
    fn substitute(&mut self, var: Var, expr: &LinExpr);
    /// `var := any value in range` (`Interval::top()` for a plain havoc).
    fn assign_interval(&mut self, var: Var, range: &Interval);
    /// Forgets everything known about `vars` (havoc).
    fn forget(&mut self, vars: &[Var]);
    /// [`NumericDomain::forget`] of a set given as bits: a domain that knows which of its
    /// dimensions it leaves unbounded skips them without listing the set.
    fn forget_set(&mut self, vars: &VarSet) {
        self.forget(&vars.iter().collect::<Vec<_>>());
    }
    /// Intersects with the constraints (assume).
    fn meet_cons(&mut self, cons: &[LinCons]);
    /// Whether the state entails a constraint: `Holds` only if every point satisfies it.
    fn entails(&self, cons: &LinCons) -> Entailment;
    /// Bounds of `expr` over the state (sound: contains every value `expr` takes).
    fn bound(&self, expr: &LinExpr) -> Interval;
    /// A constraint system describing the state (empty slice means top; a bottom state
    /// yields an unsatisfiable constant constraint).
    fn to_cons(&self) -> Vec<LinCons>;
    /// A short name for reports ("interval", "polyhedra").
    fn domain_name() -> &'static str;
    /// The state as several states whose union it is, when it is a disjunction of parts
    /// (partitioned predicate domains, with more than one part); `None` for a state of one
    /// part. Each part is a state of the same domain, so an operation applied to each and
    /// joined is sound, and decides from each part's own bounds.
    fn split_parts(&self) -> Option<Vec<Self>> {
        None
    }
    /// Whether the domain keeps one state per valuation of its boolean dimensions
    /// ([`DimKind::Bool`]): forgetting a boolean then joins states, which a later operation
    /// would have kept apart.
    fn partitions_on_booleans() -> bool {
        false
    }
    /// The state as a disjunction of constraint systems, exactly (no over-approximation:
    /// the path-focusing queries look for paths ending *outside* it). Convex domains have one
    /// disjunct, [`NumericDomain::to_cons`]; a bottom state has none.
    fn to_disjunction(&self) -> Vec<Vec<LinCons>> {
        if self.is_bottom() {
            Vec::new()
        } else {
            vec![self.to_cons()]
        }
    }
}

/// Prints the constraints of a state as a C-like conjunction with the names of `space`.
pub fn format_state<D: NumericDomain>(state: &D, space: &Space) -> String {
    if state.is_bottom() {
        return "false".to_string();
    }
    let cons = state.to_cons();
    if cons.is_empty() {
        return "true".to_string();
    }
    let parts: Vec<String> = cons.iter().map(|c| c.display(space).to_string()).collect();
    parts.join(" && ")
}
