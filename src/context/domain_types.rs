//! Domain types (Apel, Beyer, Friedberger, Raimondi, von Rhein, "Domain Types: Selecting
//! Abstractions Based on Variable Usage", 2013): every SSA value of a function is classified
//! by how the function uses it, so that the expensive domain (polyhedra) is spent only on
//! the values that need it.
//!
//! The classes, weakest first (a value has the weakest class its *pack* needs):
//! - [`DomainType::Boolean`]: `i1`, or a pack whose only constants are 0 and 1 and that is
//!   only copied and compared for (dis)equality (C flags);
//! - [`DomainType::Equality`]: only copied, compared for (dis)equality with constants or
//!   switched on, with few constants (state machines, enumerations);
//! - [`DomainType::Interval`]: compared with constants by an order, or in arithmetic with
//!   constants only, or the result of a non-linear operation;
//! - [`DomainType::Relational`]: in a pack with a relation between two non-constant values:
//!   a comparison or a linear operation (add, sub) of two values, or two induction values of
//!   one loop (values a loop head receives updated by arithmetic: `x++; y += 2` under
//!   `while (x < 10)` relates `x` and `y` through the loop's control, which no single
//!   instruction shows), or a tested value of a loop head with an induction value (a flag or
//!   state that chooses the update an iteration makes).
//!
//! **Packs** are the classes of a union-find over the values, joined by every instruction
//! whose result a polyhedron keeps in a linear relation with its operands: copies, casts,
//! selects and phi moves (the C variable behind the SSA values), linear arithmetic, bounded
//! non-linear operations with a constant (`x / c`, `x % c`, `x & c`), comparisons of two
//! values, and the induction values of one loop head. A pack's witnesses (what its members
//! are compared with, which arithmetic they take part in, which constants they meet) give the
//! class of all its members, as in the reference implementation (CPAchecker's
//! `VariableClassification`: one demoted member demotes the pack).
//!
//! [`DomainTypes::tracked`] keeps the relational packs that meet the cone of influence of a
//! set of error sites: every condition of a branch, switch or assumption in a block from
//! which one of them can be reached (a superset of what they are control dependent on), and,
//! backwards, every value those conditions are computed from. A value outside it cannot
//! change whether an error site is reached; a value inside it that is not in a relational
//! pack needs no relation with another value.
//!
//! This module reads the lifted IR only: it knows neither LLVM nor the domains, and it
//! decides nothing about soundness. Its user (the driver) forgets the untracked values at
//! cut points, which is always sound, and keeps them covered by the interval stage's facts.

use crate::graph::ReducedGraph;
use crate::ir::{BinOp, BlockId, CmpPred, Expr, Function, Inst, Operand, Terminator, ValueId};
use std::collections::BTreeSet;

/// More distinct constants than this make an equality pack an interval one: an enumeration
/// of many cases is better bounded than listed.
const MAX_EQUALITY_CONSTANTS: usize = 16;

/// How a value is used, weakest first.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
pub enum DomainType {
    /// A flag: `i1`, or only 0/1, copied and tested for (dis)equality.
    Boolean,
    /// Copied and compared for (dis)equality with few constants.
    Equality,
    /// Compared with constants or in arithmetic with constants only.
    Interval,
    /// In a relation with another non-constant value.
    Relational,
}

impl DomainType {
    /// The name in reports.
    pub fn name(self) -> &'static str {
        match self {
            DomainType::Boolean => "boolean",
            DomainType::Equality => "equality",
            DomainType::Interval => "interval",
            DomainType::Relational => "relational",
        }
    }
}

/// The classification of one function's values.
#[derive(Clone, Debug)]
pub struct DomainTypes {
    /// The class of each value, indexed by value.
    class: Vec<DomainType>,
    /// The pack (representative value index) of each value.
    pack: Vec<usize>,
}

/// How many values fell in each class, and the relational packs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DomainTypeCounts {
    /// Values per class.
    pub boolean: usize,
    /// Values per class.
    pub equality: usize,
    /// Values per class.
    pub interval: usize,
    /// Values per class.
    pub relational: usize,
    /// Relational packs (of at least one value).
    pub relational_packs: usize,
    /// Values in the largest relational pack.
    pub largest_pack: usize,
}

/// The witnesses of one pack.
#[derive(Clone, Debug, Default)]
struct Witnesses {
    relational: bool,
    interval: bool,
    /// Linear arithmetic (with a constant or another value) updates a member.
    arithmetic: bool,
    /// A member is compared or switched on: it can decide which way control goes.
    tested: bool,
    /// Every member is `i1`.
    all_bool: bool,
    /// Constants the members meet (saturates past [`MAX_EQUALITY_CONSTANTS`]).
    constants: BTreeSet<i128>,
}

impl Witnesses {
    fn absorb(&mut self, other: Witnesses) {
        self.relational |= other.relational;
        self.interval |= other.interval;
        self.arithmetic |= other.arithmetic;
        self.tested |= other.tested;
        self.all_bool &= other.all_bool;
        for c in other.constants {
            if self.constants.len() > MAX_EQUALITY_CONSTANTS {
                break;
            }
            self.constants.insert(c);
        }
    }

    fn constant(&mut self, c: i128) {
        if self.constants.len() <= MAX_EQUALITY_CONSTANTS {
            self.constants.insert(c);
        }
    }

    fn class(&self) -> DomainType {
        if self.relational {
            DomainType::Relational
        } else if self.interval || self.constants.len() > MAX_EQUALITY_CONSTANTS {
            DomainType::Interval
        } else if self.all_bool
            || (!self.constants.is_empty() && self.constants.iter().all(|c| *c == 0 || *c == 1))
        {
            DomainType::Boolean
        } else {
            DomainType::Equality
        }
    }
}

/// Union-find over values with the witnesses of each root.
struct Packs {
    parent: Vec<usize>,
    witnesses: Vec<Witnesses>,
}

impl Packs {
    fn new(func: &Function) -> Packs {
        Packs {
            parent: (0..func.values.len()).collect(),
            witnesses: func
                .values
                .iter()
                .map(|v| Witnesses {
                    all_bool: v.ty.is_bool(),
                    ..Witnesses::default()
                })
                .collect(),
        }
    }

    fn find(&mut self, v: usize) -> usize {
        let mut root = v;
        while self.parent[root] != root {
            root = self.parent[root];
        }
        let mut at = v;
        while self.parent[at] != root {
            let next = self.parent[at];
            self.parent[at] = root;
            at = next;
        }
        root
    }

    fn union(&mut self, a: ValueId, b: ValueId) {
        let (ra, rb) = (self.find(a.index()), self.find(b.index()));
        if ra == rb {
            return;
        }
        // The smaller index stays the root, so that packs are numbered deterministically.
        let (root, child) = if ra < rb { (ra, rb) } else { (rb, ra) };
        self.parent[child] = root;
        let moved = std::mem::take(&mut self.witnesses[child]);
        self.witnesses[root].absorb(moved);
    }

    fn at(&mut self, v: ValueId) -> &mut Witnesses {
        let r = self.find(v.index());
        &mut self.witnesses[r]
    }
}

impl DomainTypes {
    /// Classifies every value of `func` (`graph` gives its loop heads).
    pub fn classify(func: &Function, graph: &ReducedGraph) -> DomainTypes {
        let mut packs = Packs::new(func);
        for b in &func.blocks {
            for inst in &b.insts {
                if let Inst::Assign { dest, expr } = inst {
                    witness_assign(func, &mut packs, *dest, expr);
                }
            }
            match &b.term {
                Terminator::Switch { on, cases, .. } => {
                    if let Operand::Value(v) = on {
                        let w = packs.at(*v);
                        w.tested = true;
                        for (c, _) in cases {
                            w.constant(c.signed());
                        }
                    }
                }
                Terminator::Branch { .. }
                | Terminator::Jump(_)
                | Terminator::Return
                | Terminator::Stop
                | Terminator::Error(_) => {}
            }
            for e in b.term.edges() {
                for (dest, src) in &e.moves {
                    copy(&mut packs, *dest, src);
                }
            }
        }
        // Induction values of one loop: a loop head's values that the loop updates by
        // arithmetic are related through the loop's control (its guard bounds one, the
        // iteration count ties the others to it); so is a value of the head that is tested
        // (a flag or a state that chooses which update an iteration makes: `if (phase == 0)
        // { count += 2; phase = 1; } else { count += 1; phase = 0; }` needs
        // `2·count ≤ 3·i + phase`), when the loop has an induction value.
        let phis = phi_dests(func);
        for b in func.block_ids() {
            if !graph.is_loop_head(b) {
                continue;
            }
            let mut induction: Vec<ValueId> = Vec::new();
            let mut tested: Vec<ValueId> = Vec::new();
            for &dest in &phis[b.index()] {
                let root = packs.find(dest.index());
                let seen = |vs: &[ValueId], packs: &mut Packs| {
                    vs.iter().any(|v| packs.find(v.index()) == root)
                };
                if seen(&induction, &mut packs) || seen(&tested, &mut packs) {
                    continue;
                }
                let w = &packs.witnesses[root];
                if w.arithmetic {
                    induction.push(dest);
                } else if w.tested {
                    tested.push(dest);
                }
            }
            if induction.is_empty() {
                continue;
            }
            induction.extend(tested);
            if induction.len() >= 2 {
                for pair in induction.windows(2) {
                    packs.union(pair[0], pair[1]);
                }
                packs.at(induction[0]).relational = true;
            }
        }
        let n = func.values.len();
        let pack: Vec<usize> = (0..n).map(|v| packs.find(v)).collect();
        let class = (0..n).map(|v| packs.witnesses[pack[v]].class()).collect();
        DomainTypes { class, pack }
    }

    /// The class of a value.
    pub fn class(&self, v: ValueId) -> DomainType {
        self.class[v.index()]
    }

    /// Whether two values are in one pack.
    pub fn same_pack(&self, a: ValueId, b: ValueId) -> bool {
        self.pack[a.index()] == self.pack[b.index()]
    }

    /// How many values fell in each class, and the relational packs.
    pub fn counts(&self) -> DomainTypeCounts {
        let mut counts = DomainTypeCounts::default();
        let mut sizes: std::collections::BTreeMap<usize, usize> = Default::default();
        for (v, class) in self.class.iter().enumerate() {
            match class {
                DomainType::Boolean => counts.boolean += 1,
                DomainType::Equality => counts.equality += 1,
                DomainType::Interval => counts.interval += 1,
                DomainType::Relational => {
                    counts.relational += 1;
                    *sizes.entry(self.pack[v]).or_default() += 1;
                }
            }
        }
        counts.relational_packs = sizes.len();
        counts.largest_pack = sizes.values().copied().max().unwrap_or(0);
        counts
    }

    /// The values of the relational packs that meet `relevant` (the cone of influence of
    /// the error sites, [`cone_of_influence`]): the values a relational domain should track.
    pub fn tracked(&self, relevant: &BTreeSet<ValueId>) -> BTreeSet<ValueId> {
        let packs: BTreeSet<usize> = relevant
            .iter()
            .filter(|v| self.class(**v) == DomainType::Relational)
            .map(|v| self.pack[v.index()])
            .collect();
        (0..self.class.len())
            .filter(|v| packs.contains(&self.pack[*v]))
            .map(|v| ValueId(v as u32))
            .collect()
    }
}

/// The witnesses and unions of `dest := expr`.
fn witness_assign(func: &Function, packs: &mut Packs, dest: ValueId, expr: &Expr) {
    let value = |op: &Operand| match op {
        Operand::Value(v) => Some(*v),
        _ => None,
    };
    let constant = |op: &Operand| match op {
        Operand::Const(c) => Some(c.signed()),
        _ => None,
    };
    match expr {
        Expr::Use(op) | Expr::Cast { arg: op, .. } => copy(packs, dest, op),
        // A count relates to its operand through no linear constraint.
        Expr::BitCount { .. } => {}
        Expr::Select {
            on_true, on_false, ..
        } => {
            copy(packs, dest, on_true);
            copy(packs, dest, on_false);
        }
        Expr::Cmp { pred, lhs, rhs } => match (value(lhs), value(rhs)) {
            (Some(a), Some(b)) => {
                packs.union(a, b);
                packs.at(a).tested = true;
                let both_bool = func.value(a).ty.is_bool() && func.value(b).ty.is_bool();
                if !both_bool {
                    packs.at(a).relational = true;
                }
            }
            (Some(a), None) | (None, Some(a)) => {
                let w = packs.at(a);
                w.tested = true;
                if let Some(c) = constant(lhs).or(constant(rhs)) {
                    w.constant(c);
                }
                if !matches!(pred, CmpPred::Eq | CmpPred::Ne) {
                    w.interval = true;
                }
            }
            (None, None) => {}
        },
        Expr::Binary { op, lhs, rhs, .. } => {
            if func.value(dest).ty.is_bool() {
                // Boolean connectives: a flag computed from flags.
                for operand in [lhs, rhs] {
                    if let Some(v) = value(operand) {
                        packs.union(dest, v);
                    }
                }
                return;
            }
            let linear = matches!(op, BinOp::Add | BinOp::Sub);
            let scaled = matches!(op, BinOp::Mul | BinOp::Shl);
            match (value(lhs), value(rhs)) {
                (Some(a), Some(b)) if linear => {
                    packs.union(dest, a);
                    packs.union(dest, b);
                    let w = packs.at(dest);
                    w.relational = true;
                    w.arithmetic = true;
                }
                (Some(a), Some(b)) if *op == BinOp::Or => {
                    // `a | b` is at least both (unsigned): bounded by each, in one pack.
                    packs.union(dest, a);
                    packs.union(dest, b);
                    packs.at(dest).interval = true;
                }
                (Some(_), Some(_)) => packs.at(dest).interval = true,
                (Some(a), None) | (None, Some(a)) => {
                    // With a constant, every operation the lowering models is linear or
                    // bounds the result by the operand (`x / c`, `x % c`, `x & c`); `xor`
                    // only gives a range.
                    if *op != BinOp::Xor {
                        packs.union(dest, a);
                    }
                    let w = packs.at(dest);
                    w.interval = true;
                    w.arithmetic |= linear || scaled;
                }
                (None, None) => packs.at(dest).interval = true,
            }
        }
    }
}

/// `dest := src` (a copy, cast, select arm or phi move).
fn copy(packs: &mut Packs, dest: ValueId, src: &Operand) {
    match src {
        Operand::Value(v) => packs.union(dest, *v),
        Operand::Const(c) => packs.at(dest).constant(c.signed()),
        Operand::Undef(_) => {}
    }
}

/// The values the edges into each block move into (its phi nodes), indexed by block.
fn phi_dests(func: &Function) -> Vec<BTreeSet<ValueId>> {
    let mut res = vec![BTreeSet::new(); func.blocks.len()];
    for block in &func.blocks {
        for e in block.term.edges() {
            res[e.target.index()].extend(e.moves.iter().map(|(d, _)| *d));
        }
    }
    res
}

/// The values that can influence whether one of `targets` is reached: the conditions of the
/// blocks that can reach one, and backwards every value they are computed from.
pub fn cone_of_influence(func: &Function, targets: &[BlockId]) -> BTreeSet<ValueId> {
    let n = func.blocks.len();
    let mut predecessors: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, b) in func.blocks.iter().enumerate() {
        for s in b.term.successors() {
            predecessors[s.index()].push(i);
        }
    }
    let mut reaches = vec![false; n];
    let mut stack: Vec<usize> = targets.iter().map(|b| b.index()).collect();
    while let Some(b) = stack.pop() {
        if std::mem::replace(&mut reaches[b], true) {
            continue;
        }
        stack.extend(predecessors[b].iter().copied().filter(|p| !reaches[*p]));
    }
    // The definition of each value: its instruction's operands, or the sources moved into
    // it.
    let mut sources: Vec<Vec<ValueId>> = vec![Vec::new(); func.values.len()];
    let mut work: Vec<ValueId> = Vec::new();
    let seed = |op: &Operand, work: &mut Vec<ValueId>| {
        if let Operand::Value(v) = op {
            work.push(*v);
        }
    };
    for (i, b) in func.blocks.iter().enumerate() {
        for inst in &b.insts {
            if let Some(d) = inst.dest() {
                sources[d.index()].extend(inst.operands().into_iter().filter_map(|op| match op {
                    Operand::Value(v) => Some(*v),
                    _ => None,
                }));
            }
            if reaches[i] {
                if let Inst::Assume { cond } = inst {
                    seed(cond, &mut work);
                }
            }
        }
        for e in b.term.edges() {
            for (d, s) in &e.moves {
                if let Operand::Value(v) = s {
                    sources[d.index()].push(*v);
                }
            }
        }
        if reaches[i] {
            match &b.term {
                Terminator::Branch { cond, .. } => seed(cond, &mut work),
                Terminator::Switch { on, .. } => seed(on, &mut work),
                _ => {}
            }
        }
    }
    let mut relevant = BTreeSet::new();
    while let Some(v) = work.pop() {
        if relevant.insert(v) {
            work.extend(sources[v.index()].iter().copied());
        }
    }
    relevant
}
