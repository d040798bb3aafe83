//! Bounded model checking of the lifted program with a bit-precise encoding.
//!
//! The CFG is unrolled into a DAG of *layers*: node `(b, d)` is block `b` after `d` back
//! edges were taken (edges `u -> v` with `v` not after `u` in reverse post-order). Forward
//! edges stay in the layer, back edges go to the next one; the blocks of a layer in reverse
//! post-order are a topological order of the DAG. Each node has a reach condition and a
//! *store* (one z3 term per value used outside its defining block), merged with
//! if-then-else at joins; values used only in their block live in a local map. The whole
//! encoding is functional: the only assertion added to the solver is the range of the first
//! argument the caller may give (`main`'s `argc`: what a command line can give, see
//! `cex::replay::CommandLine`); each query
//! asks for one of the newly unrolled error nodes to be reachable (under an assumption).
//!
//! Semantics (exact LLVM on bit-vectors): plain operations wrap; an `nsw`/`nuw`/`exact`
//! violation, a division by zero and an oversized shift are undefined behaviour and end the
//! path (so a counterexample is free of them); `undef` is a fresh constant at each use;
//! every havoc is a fresh constant per dynamic occurrence, the replayable ones (inputs)
//! recorded in order.
//!
//! The counterexample search ([`crate::cex`]) drives it: it says which havocs are inputs
//! its native replay serves, and gets back bits in `ir` terms.

use super::Unknown;
use crate::context::InjectedUnknowns;
use crate::ir::{
    BinOp, BlockId, CastOp, CheckId, Expr, Function, HavocReason, Inst, Operand, Terminator, Ty,
    ValueId,
};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use z3::ast::{Bool, BV};
use z3::{SatResult, Solver};

type Store = Vec<Option<BV>>;

/// An input of the unrolled program: a havoc occurrence the native run serves.
struct InputVar {
    var: BV,
}

struct Node {
    /// Inputs, in instruction order.
    inputs: Vec<InputVar>,
    /// Outgoing edges: taken condition and target node.
    out: Vec<(Bool, (usize, BlockId))>,
    /// The error site this node is, with its reach condition.
    error: Option<(CheckId, Bool)>,
}

/// A satisfying execution found by [`Bmc::search`].
#[derive(Clone, Debug)]
pub struct BmcPath {
    /// The error site reached.
    pub check: CheckId,
    /// Entry arguments (bits).
    pub args: Vec<u128>,
    /// Replayable inputs (bits), in order.
    pub inputs: Vec<u128>,
    /// Number of back edges taken.
    pub depth: usize,
}

/// The answer of one bounded search.
#[derive(Debug)]
pub enum BmcResult {
    /// An execution reaching a target.
    Found(BmcPath),
    /// No execution reaches a target within the bound.
    NoneUpTo(usize),
    /// The solver gave up (timeout).
    Unknown(Unknown),
}

/// An incremental unrolling.
pub struct Bmc<'a> {
    func: &'a Function,
    /// Whether a havoc is an input the native replay serves (recorded in a path).
    is_input: &'a dyn Fn(&HavocReason) -> bool,
    targets: Vec<CheckId>,
    rpo: Vec<BlockId>,
    rpo_index: Vec<usize>,
    /// Index of each value in the store, if it is used outside its block.
    slot: Vec<Option<usize>>,
    n_slots: usize,
    args: Vec<BV>,
    solver: Solver,
    /// Per layer, per block: the node, if reachable.
    nodes: Vec<HashMap<BlockId, Node>>,
    /// Incoming edges of the next layer: per block, (taken, store).
    incoming_next: HashMap<BlockId, Vec<(Bool, Store)>>,
    /// Error reach conditions not yet shown unreachable.
    pending: Vec<Bool>,
    fresh: u64,
    exhausted: bool,
    /// The function's count of solver checks that answer `unknown` on purpose.
    injected: Arc<InjectedUnknowns>,
    /// The solver's own limit of work per check (see [`Self::set_work_limit`]), 0 for none.
    work_limit: u32,
}

impl<'a> Bmc<'a> {
    /// Prepares the unrolling of `func` towards the error sites of `targets`; `injected`
    /// designates the checks that answer `unknown` on purpose (a test aid).
    pub fn new(
        func: &'a Function,
        rpo: &[BlockId],
        is_input: &'a dyn Fn(&HavocReason) -> bool,
        targets: &[CheckId],
        first_arg_range: Option<(i64, i64)>,
        injected: Arc<InjectedUnknowns>,
    ) -> Bmc<'a> {
        let mut rpo_index = vec![usize::MAX; func.blocks.len()];
        for (i, b) in rpo.iter().enumerate() {
            rpo_index[b.index()] = i;
        }
        // Values used outside their defining block (or in moves, or parameters).
        let mut def_block: Vec<Option<BlockId>> = vec![None; func.values.len()];
        for b in func.block_ids() {
            for inst in &func.block(b).insts {
                if let Some(d) = inst.dest() {
                    def_block[d.index()] = Some(b);
                }
            }
        }
        let mut global = vec![false; func.values.len()];
        for p in &func.params {
            global[p.index()] = true;
        }
        let mark = |op: &Operand, b: BlockId, global: &mut Vec<bool>| {
            if let Operand::Value(v) = op {
                if def_block[v.index()] != Some(b) {
                    global[v.index()] = true;
                }
            }
        };
        for b in func.block_ids() {
            let block = func.block(b);
            for inst in &block.insts {
                for op in inst_operands(inst) {
                    mark(op, b, &mut global);
                }
                if let Inst::Assign { dest, .. } | Inst::Havoc { dest, .. } = inst {
                    let _ = dest;
                }
            }
            match &block.term {
                Terminator::Branch { cond, .. } => mark(cond, b, &mut global),
                Terminator::Switch { on, .. } => mark(on, b, &mut global),
                _ => {}
            }
            for e in block.term.edges() {
                for (d, s) in &e.moves {
                    global[d.index()] = true;
                    if let Operand::Value(v) = s {
                        // A move reads at the end of the block: local values are fine there,
                        // but keep it simple and global.
                        global[v.index()] = true;
                    }
                }
            }
        }
        let mut slot = vec![None; func.values.len()];
        let mut n_slots = 0;
        for (i, g) in global.iter().enumerate() {
            if *g {
                slot[i] = Some(n_slots);
                n_slots += 1;
            }
        }
        let args: Vec<BV> = func
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| BV::new_const(format!("arg{i}"), func.value(*p).ty.width))
            .collect();
        let solver = Solver::new();
        if let (Some((lo, hi)), Some(first)) = (first_arg_range, args.first()) {
            // E.g. argc of a native run: the replay passes `argc - 1` arguments on its
            // command line, so only the counts a real command line can have are searched.
            let w = first.get_size();
            solver.assert(&first.bvsge(&BV::from_i64(lo, w)));
            solver.assert(&first.bvsle(&BV::from_i64(hi, w)));
        }
        Bmc {
            func,
            is_input,
            targets: targets.to_vec(),
            rpo: rpo.to_vec(),
            rpo_index,
            slot,
            n_slots,
            args,
            solver,
            nodes: vec![],
            incoming_next: HashMap::new(),
            pending: vec![],
            fresh: 0,
            exhausted: false,
            injected,
            work_limit: 0,
        }
    }

    /// True when every execution was unrolled completely (no layer is left, or the solver
    /// showed that no execution reaches the next one).
    pub fn exhausted(&self) -> bool {
        self.exhausted
    }

    /// Number of layers unrolled so far.
    pub fn depth(&self) -> usize {
        self.nodes.len()
    }

    /// Limits each later query to `steps` of the solver's resource count (see
    /// [`super::set_work_limit`]), 0 for none; the time limits stay, as a safety net.
    pub fn set_work_limit(&mut self, steps: u32) {
        self.work_limit = steps;
        super::set_work_limit(&self.solver, steps);
    }

    /// The solver's resource count so far (see [`super::work_count`]), so that the caller
    /// can tell what a query spent.
    pub fn work_spent(&self) -> u64 {
        super::work_count(&self.solver)
    }

    /// Unrolls up to `bound` layers and asks for an execution reaching a target in the new
    /// layers (or in earlier ones whose query gave up), within `timeout_ms`.
    /// The solver is interrupted at `hard_deadline` or after `timeout_ms`, whichever comes
    /// first ([`super::check_until`]).
    pub fn search(
        &mut self,
        bound: usize,
        timeout_ms: u32,
        build_deadline: Instant,
        hard_deadline: Instant,
    ) -> BmcResult {
        while self.nodes.len() < bound {
            if !self.unroll_layer() {
                self.exhausted = true;
                break;
            }
            if Instant::now() >= build_deadline {
                break;
            }
        }
        if self.pending.is_empty() {
            return BmcResult::NoneUpTo(self.nodes.len());
        }
        // The search counts on the wall clock; the query's limit is CPU time: what the
        // thread gets before the search's end, at most `timeout_ms`.
        let hard_deadline = Instant::now()
            + crate::clock::cpu_before(hard_deadline)
                .min(Duration::from_millis(timeout_ms.max(1) as u64));
        // The goal holds under an assumption rather than in a pushed scope: z3 4.8 takes in
        // pending assertions (every unrolled layer) at `push` with cancellation suspended,
        // which no timeout bounds, while `check` does that work under the timeout and the
        // interrupt below. Once answered, the assumption is retracted for good.
        let goal = Bool::or(&self.pending);
        let assumption = Bool::fresh_const("goal");
        self.solver.assert(&assumption.implies(&goal));
        let answer = super::check_until(
            &self.solver,
            std::slice::from_ref(&assumption),
            hard_deadline,
            &self.injected,
            self.work_limit,
        );
        let res = match answer {
            SatResult::Sat => match self.solver.get_model() {
                Some(model) => match self.extract(&model) {
                    Some(p) => BmcResult::Found(p),
                    None => BmcResult::Unknown(Unknown::PathLost),
                },
                None => BmcResult::Unknown(Unknown::NoModel),
            },
            SatResult::Unsat => {
                self.pending.clear();
                BmcResult::NoneUpTo(self.nodes.len())
            }
            SatResult::Unknown => BmcResult::Unknown(Unknown::Solver(
                self.solver
                    .get_reason_unknown()
                    .unwrap_or_else(|| "unknown".into()),
            )),
        };
        self.solver.assert(&assumption.not());
        res
    }

    /// Whether some execution takes more back edges than the layers unrolled so far:
    /// `Some(false)` when none does (the unrolling is complete, whatever the syntactic
    /// loops), `None` when the solver gave up. Asked under an assumption, like [`Self::search`].
    pub fn deeper_reachable(&mut self, timeout_ms: u32, hard_deadline: Instant) -> Option<bool> {
        let taken: Vec<Bool> = self
            .incoming_next
            .values()
            .flatten()
            .map(|(taken, _)| taken.clone())
            .collect();
        if taken.is_empty() {
            return Some(false);
        }
        // The search counts on the wall clock; the query's limit is CPU time: what the
        // thread gets before the search's end, at most `timeout_ms`.
        let hard_deadline = Instant::now()
            + crate::clock::cpu_before(hard_deadline)
                .min(Duration::from_millis(timeout_ms.max(1) as u64));
        let assumption = Bool::fresh_const("deeper");
        self.solver.assert(&assumption.implies(&Bool::or(&taken)));
        let answer = super::check_until(
            &self.solver,
            std::slice::from_ref(&assumption),
            hard_deadline,
            &self.injected,
            self.work_limit,
        );
        self.solver.assert(&assumption.not());
        match answer {
            SatResult::Sat => Some(true),
            SatResult::Unsat => {
                self.exhausted = true;
                Some(false)
            }
            SatResult::Unknown => None,
        }
    }

    fn fresh(&mut self, prefix: &str, width: u32) -> BV {
        self.fresh += 1;
        BV::new_const(format!("{prefix}!{}", self.fresh), width)
    }

    /// Unrolls one more layer; false when it is empty (no execution takes that many back
    /// edges).
    fn unroll_layer(&mut self) -> bool {
        let d = self.nodes.len();
        let mut incoming: HashMap<BlockId, Vec<(Bool, Store)>> =
            std::mem::take(&mut self.incoming_next);
        if d == 0 {
            let mut store: Store = vec![None; self.n_slots];
            for (i, p) in self.func.params.iter().enumerate() {
                if let Some(s) = self.slot[p.index()] {
                    store[s] = Some(self.args[i].clone());
                }
            }
            incoming.insert(self.func.entry, vec![(Bool::from_bool(true), store)]);
        }
        if incoming.is_empty() {
            self.nodes.push(HashMap::new());
            return false;
        }
        let mut layer: HashMap<BlockId, Node> = HashMap::new();
        let rpo = self.rpo.clone();
        for b in rpo {
            let Some(ins) = incoming.remove(&b) else {
                continue;
            };
            let (reach, store) = merge(ins, self.n_slots);
            let node = self.encode_block(d, b, reach, store, &mut incoming);
            layer.insert(b, node);
        }
        self.nodes.push(layer);
        true
    }

    fn encode_block(
        &mut self,
        d: usize,
        b: BlockId,
        reach: Bool,
        mut store: Store,
        incoming: &mut HashMap<BlockId, Vec<(Bool, Store)>>,
    ) -> Node {
        let func = self.func;
        let block = func.block(b);
        let mut local: HashMap<ValueId, BV> = HashMap::new();
        let mut live = reach;
        let mut inputs = Vec::new();
        for inst in &block.insts {
            match inst {
                Inst::Assign { dest, expr } => {
                    let ty = func.value(*dest).ty;
                    let (t, ok) = self.expr(expr, ty, &store, &local);
                    if let Some(ok) = ok {
                        live = Bool::and(&[live, ok]);
                    }
                    self.set(*dest, t, &mut store, &mut local);
                }
                Inst::Havoc { dest, reason } => {
                    let w = func.value(*dest).ty.width;
                    let v = if (self.is_input)(reason) {
                        let v = self.fresh("in", w);
                        inputs.push(InputVar { var: v.clone() });
                        v
                    } else {
                        self.fresh("havoc", w)
                    };
                    self.set(*dest, v, &mut store, &mut local);
                }
                Inst::Assume { cond } => {
                    let c = self.operand(cond, &store, &local);
                    live = Bool::and(&[live, is_true(&c)]);
                }
                Inst::Mem(_) => unreachable!("{}", crate::ir::MEMORY_IS_LOWERED),
            }
        }
        let mut out = Vec::new();
        let mut error = None;
        let mut edges: Vec<(Bool, &crate::ir::Edge)> = Vec::new();
        match &block.term {
            Terminator::Jump(e) => edges.push((live.clone(), e)),
            Terminator::Branch {
                cond,
                then_edge,
                else_edge,
            } => {
                let c = is_true(&self.operand(cond, &store, &local));
                edges.push((Bool::and(&[live.clone(), c.clone()]), then_edge));
                edges.push((Bool::and(&[live.clone(), c.not()]), else_edge));
            }
            Terminator::Switch { on, cases, default } => {
                let v = self.operand(on, &store, &local);
                let mut none = Vec::new();
                for (c, e) in cases {
                    let eq = v.eq(const_bv(c.ty, c.bits));
                    edges.push((Bool::and(&[live.clone(), eq.clone()]), e));
                    none.push(eq.not());
                }
                none.push(live.clone());
                edges.push((Bool::and(&none), default));
            }
            Terminator::Return | Terminator::Stop => {}
            Terminator::Error(c) => {
                if self.targets.contains(c) {
                    self.pending.push(live.clone());
                    error = Some((*c, live.clone()));
                }
            }
        }
        for (taken, e) in edges {
            let mut s = store.clone();
            let vals: Vec<(ValueId, BV)> = e
                .moves
                .iter()
                .map(|(dst, src)| (*dst, self.operand(src, &store, &local)))
                .collect();
            for (dst, v) in vals {
                if let Some(k) = self.slot[dst.index()] {
                    s[k] = Some(v);
                }
            }
            let back = self.rpo_index[e.target.index()] <= self.rpo_index[b.index()];
            let layer = if back { d + 1 } else { d };
            if back {
                self.incoming_next
                    .entry(e.target)
                    .or_default()
                    .push((taken.clone(), s));
            } else {
                incoming
                    .entry(e.target)
                    .or_default()
                    .push((taken.clone(), s));
            }
            out.push((taken, (layer, e.target)));
        }
        Node { inputs, out, error }
    }

    fn set(&self, v: ValueId, t: BV, store: &mut Store, local: &mut HashMap<ValueId, BV>) {
        match self.slot[v.index()] {
            Some(k) => store[k] = Some(t),
            None => {
                local.insert(v, t);
            }
        }
    }

    fn operand(&mut self, op: &Operand, store: &Store, local: &HashMap<ValueId, BV>) -> BV {
        match op {
            Operand::Const(c) => const_bv(c.ty, c.bits),
            Operand::Undef(ty) => self.fresh("undef", ty.width),
            Operand::Value(v) => {
                let found = match self.slot[v.index()] {
                    Some(k) => store[k].clone(),
                    None => local.get(v).cloned(),
                };
                match found {
                    Some(t) => t,
                    // Not defined on this path (cannot happen in SSA on a feasible path).
                    None => {
                        let w = self.func.value(*v).ty.width;
                        self.fresh("unset", w)
                    }
                }
            }
        }
    }

    /// The term of an expression and the condition under which it is defined.
    fn expr(
        &mut self,
        expr: &Expr,
        ty: Ty,
        store: &Store,
        local: &HashMap<ValueId, BV>,
    ) -> (BV, Option<Bool>) {
        match expr {
            Expr::Use(a) => (self.operand(a, store, local), None),
            Expr::Binary {
                op,
                lhs,
                rhs,
                flags,
            } => {
                let a = self.operand(lhs, store, local);
                let b = self.operand(rhs, store, local);
                binary(*op, ty, &a, &b, flags.nsw, flags.nuw, flags.exact)
            }
            Expr::Cmp { pred, lhs, rhs } => {
                let a = self.operand(lhs, store, local);
                let b = self.operand(rhs, store, local);
                (of_bool(&super::bv_compare(*pred, &a, &b)), None)
            }
            Expr::BitCount { count, arg } => {
                let a = self.operand(arg, store, local);
                (bit_count(*count, &a), None)
            }
            Expr::Cast { op, arg } => {
                let a = self.operand(arg, store, local);
                let from = a.get_size();
                let t = match op {
                    CastOp::ZExt if ty.width > from => a.zero_ext(ty.width - from),
                    CastOp::SExt if ty.width > from => a.sign_ext(ty.width - from),
                    CastOp::Trunc if ty.width < from => a.extract(ty.width - 1, 0),
                    _ => a,
                };
                (t, None)
            }
            Expr::Select {
                cond,
                on_true,
                on_false,
            } => {
                let c = is_true(&self.operand(cond, store, local));
                let t = self.operand(on_true, store, local);
                let f = self.operand(on_false, store, local);
                (c.ite(&t, &f), None)
            }
        }
    }

    /// Follows the model's path from the entry and reads its inputs.
    fn extract(&self, model: &z3::Model) -> Option<BmcPath> {
        let read = |v: &BV| -> u128 {
            let e = model.eval(v, true);
            e.and_then(|e| e.as_u64()).unwrap_or(0) as u128
        };
        let holds = |b: &Bool| model.eval(b, true).and_then(|e| e.as_bool()) == Some(true);
        let args: Vec<u128> = self.args.iter().map(read).collect();
        let mut inputs = Vec::new();
        let mut at = (0usize, self.func.entry);
        let mut guard = 0usize;
        loop {
            guard += 1;
            if guard > 10_000_000 {
                return None;
            }
            let node = self.nodes.get(at.0)?.get(&at.1)?;
            inputs.extend(node.inputs.iter().map(|i| read(&i.var)));
            if let Some((check, reach)) = &node.error {
                if holds(reach) {
                    return Some(BmcPath {
                        check: *check,
                        args,
                        inputs,
                        depth: at.0,
                    });
                }
            }
            let next = node.out.iter().find(|(taken, _)| holds(taken))?;
            at = next.1;
        }
    }
}

fn inst_operands(inst: &Inst) -> Vec<&Operand> {
    inst.operands()
}

/// Merges incoming edges: the reach condition and the store, with if-then-else per slot.
fn merge(ins: Vec<(Bool, Store)>, n_slots: usize) -> (Bool, Store) {
    if ins.len() == 1 {
        let (r, s) = ins.into_iter().next().expect("one incoming edge");
        return (r, s);
    }
    let reach = Bool::or(&ins.iter().map(|(t, _)| t.clone()).collect::<Vec<_>>());
    let mut store: Store = Vec::with_capacity(n_slots);
    for k in 0..n_slots {
        let alts: Vec<(&Bool, &BV)> = ins
            .iter()
            .filter_map(|(t, s)| s[k].as_ref().map(|v| (t, v)))
            .collect();
        let merged = match alts.split_last() {
            None => None,
            Some((last, rest)) => {
                let mut acc = last.1.clone();
                for (t, v) in rest.iter().rev() {
                    if !v.ast_eq(&acc) {
                        acc = t.ite(*v, &acc);
                    }
                }
                Some(acc)
            }
        };
        store.push(merged);
    }
    (reach, store)
}

fn const_bv(ty: Ty, bits: u128) -> BV {
    if ty.width <= 64 {
        BV::from_u64(bits as u64, ty.width)
    } else {
        BV::from_str(ty.width, &bits.to_string()).expect("a decimal constant")
    }
}

fn is_true(v: &BV) -> Bool {
    if v.get_size() == 1 {
        v.eq(BV::from_u64(1, 1))
    } else {
        v.eq(BV::from_u64(0, v.get_size())).not()
    }
}

fn of_bool(b: &Bool) -> BV {
    b.ite(&BV::from_u64(1, 1), &BV::from_u64(0, 1))
}

/// A count of the bits of `a`, of its width.
fn bit_count(count: crate::ir::BitCount, a: &BV) -> BV {
    use crate::ir::BitCount;
    let w = a.get_size();
    let n = |x: u32| BV::from_u64(u64::from(x), w);
    let set = |bit: u32| a.extract(bit, bit).eq(BV::from_u64(1, 1));
    match count {
        BitCount::Ones => (0..w).fold(n(0), |sum, bit| sum.bvadd(&set(bit).ite(&n(1), &n(0)))),
        // From the innermost test out: the outermost tests the highest bit.
        BitCount::LeadingZeros => {
            (0..w).fold(n(w), |rest, bit| set(bit).ite(&n(w - 1 - bit), &rest))
        }
        BitCount::TrailingZeros => (0..w)
            .rev()
            .fold(n(w), |rest, bit| set(bit).ite(&n(bit), &rest)),
    }
}

/// A binary operation and the condition under which it is defined (no poison, no division
/// by zero, no oversized shift).
fn binary(
    op: BinOp,
    ty: Ty,
    a: &BV,
    b: &BV,
    nsw: bool,
    nuw: bool,
    exact: bool,
) -> (BV, Option<Bool>) {
    let w = ty.width;
    let zero = BV::from_u64(0, w);
    let mut ok: Vec<Bool> = Vec::new();
    let r = match op {
        BinOp::Add => {
            if nsw {
                ok.push(a.bvadd_no_overflow(b, true));
                ok.push(a.bvadd_no_underflow(b));
            }
            if nuw {
                ok.push(a.bvadd_no_overflow(b, false));
            }
            a.bvadd(b)
        }
        BinOp::Sub => {
            if nsw {
                ok.push(a.bvsub_no_overflow(b));
                ok.push(a.bvsub_no_underflow(b, true));
            }
            if nuw {
                ok.push(a.bvuge(b));
            }
            a.bvsub(b)
        }
        BinOp::Mul => {
            if nsw {
                ok.push(a.bvmul_no_overflow(b, true));
                ok.push(a.bvmul_no_underflow(b));
            }
            if nuw {
                ok.push(a.bvmul_no_overflow(b, false));
            }
            a.bvmul(b)
        }
        BinOp::UDiv => {
            ok.push(b.eq(&zero).not());
            if exact {
                ok.push(a.bvurem(b).eq(&zero));
            }
            a.bvudiv(b)
        }
        BinOp::URem => {
            ok.push(b.eq(&zero).not());
            a.bvurem(b)
        }
        BinOp::SDiv => {
            ok.push(b.eq(&zero).not());
            ok.push(a.bvsdiv_no_overflow(b));
            if exact {
                ok.push(a.bvsrem(b).eq(&zero));
            }
            a.bvsdiv(b)
        }
        BinOp::SRem => {
            ok.push(b.eq(&zero).not());
            ok.push(a.bvsdiv_no_overflow(b));
            a.bvsrem(b)
        }
        BinOp::Shl => {
            ok.push(b.bvult(BV::from_u64(w as u64, w)));
            let r = a.bvshl(b);
            if nuw {
                ok.push(r.bvlshr(b).eq(a));
            }
            if nsw {
                ok.push(r.bvashr(b).eq(a));
            }
            r
        }
        BinOp::LShr => {
            ok.push(b.bvult(BV::from_u64(w as u64, w)));
            let r = a.bvlshr(b);
            if exact {
                ok.push(r.bvshl(b).eq(a));
            }
            r
        }
        BinOp::AShr => {
            ok.push(b.bvult(BV::from_u64(w as u64, w)));
            let r = a.bvashr(b);
            if exact {
                ok.push(r.bvshl(b).eq(a));
            }
            r
        }
        BinOp::And => a.bvand(b),
        BinOp::Or => a.bvor(b),
        BinOp::Xor => a.bvxor(b),
    };
    let ok = match ok.len() {
        0 => None,
        1 => ok.pop(),
        _ => Some(Bool::and(&ok)),
    };
    (r, ok)
}
