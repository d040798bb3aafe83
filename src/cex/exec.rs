//! A concrete interpreter of the lifted program: runs one execution with given inputs,
//! exactly (bit-vectors wrap, `nsw`/`nuw`/`exact` violations and division by zero end the
//! run as undefined behaviour), and records the path at cut points.
//!
//! It is the second check of a counterexample (the native replay is the first): it tells
//! which error site an input sequence reaches and gives the `file:line` steps with the values
//! of source variables. It runs on the values the native run was served and the results it
//! observed (`atoi`, `strtol`, ...), so its steps are those of the replayed execution; a
//! variable whose value comes from something the lifted program does not model (a load from
//! memory, a call that is neither served nor observed) is left out of the steps rather than
//! shown with a value the run did not have.

use super::InputKinds;
use crate::check::TraceStep;
use crate::graph::{CutKind, ReducedGraph};
use crate::ir::{
    BinOp, BlockId, CastOp, CheckId, Expr, Function, HavocReason, Inst, Operand, SourceLoc,
    Terminator, Ty,
};
use std::collections::BTreeMap;
use std::time::Instant;

/// How an interpreted execution ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExecEnd {
    /// An error site was reached.
    Error(CheckId),
    /// Return or stop (including a failed assumption).
    Exit,
    /// Undefined behaviour (poison from a flag, division by zero, oversized shift).
    Undefined,
    /// The inputs ran out.
    OutOfInputs,
    /// The step budget or the deadline ran out.
    Budget,
}

/// The result of an interpretation.
#[derive(Clone, Debug)]
pub struct Execution {
    /// How it ended.
    pub end: ExecEnd,
    /// Steps at cut points (the first and the last ones when there are many).
    pub steps: Vec<TraceStep>,
    /// Cut-point steps left out of `steps` in the middle.
    pub omitted_steps: usize,
    /// Inputs consumed.
    pub consumed: usize,
    /// Where each consumed input was requested.
    pub input_locs: Vec<Option<SourceLoc>>,
    /// Whether a value came from something the native program does not reproduce (an
    /// `undef` operand, a load, an unknown call): the native run may differ.
    pub approximate: bool,
    /// Whether a branch, switch or assumption depended on an `undef` operand (an
    /// uninitialized variable).
    pub read_undef: bool,
}

pub const KEEP_FIRST: usize = 5;
const KEEP_LAST: usize = 10;

/// The values of one execution, as bits.
#[derive(Clone, Copy, Debug)]
pub struct RunValues<'a> {
    /// The integer parameters of the entry.
    pub args: &'a [u128],
    /// The replayable havocs' values, in order.
    pub inputs: &'a [u128],
    /// The observed calls' results, in order (see [`InputKinds::is_observed`]).
    pub observed: &'a [u128],
}

/// Runs `func` from its entry with `values`, for at most `max_blocks` block executions.
pub fn execute(
    func: &Function,
    graph: &ReducedGraph,
    kinds: &InputKinds,
    values: RunValues<'_>,
    max_blocks: u64,
    deadline: Instant,
) -> Execution {
    let RunValues {
        args,
        inputs,
        observed,
    } = values;
    let mut vals: Vec<u128> = vec![0; func.values.len()];
    let mut approximate = false;
    // Which values depend on an `undef` operand; a control decision on one is recorded.
    let mut taint: Vec<bool> = vec![false; func.values.len()];
    let mut read_undef = false;
    // Which values depend on something the interpretation does not know (it computes them
    // from 0): left out of the steps.
    let mut unknown: Vec<bool> = vec![false; func.values.len()];
    for (i, p) in func.params.iter().enumerate() {
        let ty = func.value(*p).ty;
        match args.get(i) {
            Some(v) => vals[p.index()] = ty.mask(*v),
            None => {
                approximate = true;
                unknown[p.index()] = true;
            }
        }
    }
    let mut named = Named {
        values: BTreeMap::new(),
        unsigned: super::readings::unsigned_variables(func),
    };
    for p in &func.params {
        named.set(func, *p, vals[p.index()], unknown[p.index()]);
    }
    let mut first: Vec<TraceStep> = Vec::new();
    let mut last: std::collections::VecDeque<TraceStep> = std::collections::VecDeque::new();
    let mut omitted = 0usize;
    let mut consumed = 0usize;
    let mut n_observed = 0usize;
    let mut input_locs = Vec::new();
    let mut block = func.entry;
    let mut n_blocks: u64 = 0;
    let end = 'run: loop {
        n_blocks += 1;
        if n_blocks > max_blocks || (n_blocks % 4096 == 0 && Instant::now() >= deadline) {
            break ExecEnd::Budget;
        }
        let b = func.block(block);
        // A step at each cut point.
        if let Some(cp) = graph.cut_of_block(block) {
            let kind = graph.cut_point(cp).kind;
            if matches!(
                kind,
                CutKind::Entry | CutKind::LoopHead | CutKind::ErrorSite(_)
            ) || matches!(b.term, Terminator::Return)
            {
                let loc = b
                    .locs
                    .iter()
                    .flatten()
                    .next()
                    .cloned()
                    .or_else(|| b.term_loc.clone());
                let step = TraceStep {
                    loc,
                    values: named.values.iter().map(|(k, v)| (k.clone(), *v)).collect(),
                };
                if first.len() < KEEP_FIRST {
                    first.push(step);
                } else {
                    last.push_back(step);
                    if last.len() > KEEP_LAST {
                        last.pop_front();
                        omitted += 1;
                    }
                }
            }
        }
        for (k, inst) in b.insts.iter().enumerate() {
            match inst {
                Inst::Assign { dest, expr } => {
                    let ty = func.value(*dest).ty;
                    let Some(v) = eval(func, &vals, expr, ty, &mut approximate) else {
                        break 'run ExecEnd::Undefined;
                    };
                    vals[dest.index()] = v;
                    taint[dest.index()] = expr_tainted(&taint, expr);
                    unknown[dest.index()] = expr_tainted(&unknown, expr);
                    named.set(func, *dest, v, unknown[dest.index()]);
                }
                Inst::Havoc { dest, reason } => {
                    let ty = func.value(*dest).ty;
                    let v = if kinds.is_input(reason) {
                        match inputs.get(consumed) {
                            Some(v) => {
                                consumed += 1;
                                input_locs.push(b.locs.get(k).cloned().flatten());
                                ty.mask(*v)
                            }
                            None => break 'run ExecEnd::OutOfInputs,
                        }
                    } else if kinds.is_observed(reason) && n_observed < observed.len() {
                        n_observed += 1;
                        unknown[dest.index()] = false;
                        ty.mask(observed[n_observed - 1])
                    } else {
                        if !matches!(reason, HavocReason::Nondet { .. }) {
                            approximate = true;
                        }
                        unknown[dest.index()] = true;
                        0
                    };
                    vals[dest.index()] = v;
                    named.set(func, *dest, v, unknown[dest.index()]);
                }
                Inst::Assume { cond } => {
                    read_undef |= tainted(&taint, cond);
                    if operand(&vals, cond, &mut approximate) & 1 == 0 {
                        break 'run ExecEnd::Exit;
                    }
                }
                Inst::Mem(_) => unreachable!("{}", crate::ir::MEMORY_IS_LOWERED),
            }
        }
        let edge = match &b.term {
            Terminator::Jump(e) => e,
            Terminator::Branch {
                cond,
                then_edge,
                else_edge,
            } => {
                read_undef |= tainted(&taint, cond);
                if operand(&vals, cond, &mut approximate) & 1 == 1 {
                    then_edge
                } else {
                    else_edge
                }
            }
            Terminator::Switch { on, cases, default } => {
                read_undef |= tainted(&taint, on);
                let v = operand(&vals, on, &mut approximate);
                cases
                    .iter()
                    .find(|(c, _)| c.bits == v)
                    .map(|(_, e)| e)
                    .unwrap_or(default)
            }
            Terminator::Return | Terminator::Stop => break ExecEnd::Exit,
            Terminator::Error(c) => break ExecEnd::Error(*c),
        };
        // Parallel assignment.
        let moved: Vec<(crate::ir::ValueId, u128, bool, bool)> = edge
            .moves
            .iter()
            .map(|(d, s)| {
                (
                    *d,
                    operand(&vals, s, &mut approximate),
                    tainted(&taint, s),
                    tainted(&unknown, s),
                )
            })
            .collect();
        for (d, v, t, u) in moved {
            vals[d.index()] = v;
            taint[d.index()] = t;
            unknown[d.index()] = u;
            named.set(func, d, v, u);
        }
        block = edge.target;
    };
    let mut steps = first;
    steps.extend(last);
    Execution {
        end,
        steps,
        omitted_steps: omitted,
        consumed,
        input_locs,
        approximate,
        read_undef,
    }
}

/// The source variables of a function with the reading each shows in the steps.
struct Named {
    values: BTreeMap<String, i128>,
    /// The variables shown unsigned ([`super::readings`]).
    unsigned: std::collections::BTreeSet<String>,
}

impl Named {
    /// Records the value of `dest`'s source variable for the steps, or forgets it when the
    /// interpretation does not know it.
    fn set(&mut self, func: &Function, dest: crate::ir::ValueId, bits: u128, unknown: bool) {
        let info = func.value(dest);
        let Some(name) = &info.source_name else {
            return;
        };
        if unknown {
            self.values.remove(name);
        } else {
            let v = if info.ty.is_bool() || self.unsigned.contains(name) {
                info.ty.mask(bits) as i128
            } else {
                info.ty.to_signed(bits)
            };
            self.values.insert(name.clone(), v);
        }
    }
}

fn tainted(taint: &[bool], op: &Operand) -> bool {
    match op {
        Operand::Value(v) => taint[v.index()],
        Operand::Const(_) => false,
        Operand::Undef(_) => true,
    }
}

fn expr_tainted(taint: &[bool], expr: &Expr) -> bool {
    match expr {
        Expr::Use(a) | Expr::Cast { arg: a, .. } | Expr::BitCount { arg: a, .. } => {
            tainted(taint, a)
        }
        Expr::Binary { lhs, rhs, .. } | Expr::Cmp { lhs, rhs, .. } => {
            tainted(taint, lhs) || tainted(taint, rhs)
        }
        Expr::Select {
            cond,
            on_true,
            on_false,
        } => tainted(taint, cond) || tainted(taint, on_true) || tainted(taint, on_false),
    }
}

fn operand(vals: &[u128], op: &Operand, approximate: &mut bool) -> u128 {
    match op {
        Operand::Value(v) => vals[v.index()],
        Operand::Const(c) => c.bits,
        Operand::Undef(_) => {
            *approximate = true;
            0
        }
    }
}

/// Evaluates an expression of result type `ty`; `None` on undefined behaviour.
fn eval(
    func: &Function,
    vals: &[u128],
    expr: &Expr,
    ty: Ty,
    approximate: &mut bool,
) -> Option<u128> {
    Some(match expr {
        Expr::Use(a) => ty.mask(operand(vals, a, approximate)),
        Expr::Binary {
            op,
            lhs,
            rhs,
            flags,
        } => {
            let a = operand(vals, lhs, approximate);
            let b = operand(vals, rhs, approximate);
            binary(*op, ty, a, b, flags.nsw, flags.nuw, flags.exact)?
        }
        Expr::Cmp { pred, lhs, rhs } => {
            let t = func.operand_ty(lhs);
            let a = operand(vals, lhs, approximate);
            let b = operand(vals, rhs, approximate);
            let (sa, sb) = (t.to_signed(a), t.to_signed(b));
            pred.holds((a, b), (sa, sb)) as u128
        }
        Expr::Cast { op, arg } => {
            let t = func.operand_ty(arg);
            let a = operand(vals, arg, approximate);
            match op {
                CastOp::ZExt | CastOp::Trunc => ty.mask(a),
                CastOp::SExt => ty.mask(t.to_signed(a) as u128),
            }
        }
        Expr::BitCount { count, arg } => count.eval(operand(vals, arg, approximate), ty.width),
        Expr::Select {
            cond,
            on_true,
            on_false,
        } => {
            if operand(vals, cond, approximate) & 1 == 1 {
                operand(vals, on_true, approximate)
            } else {
                operand(vals, on_false, approximate)
            }
        }
    })
}

/// A binary operation on `ty`-bit operands; `None` when the result is poison or the
/// operation is undefined.
pub fn binary(
    op: BinOp,
    ty: Ty,
    a: u128,
    b: u128,
    nsw: bool,
    nuw: bool,
    exact: bool,
) -> Option<u128> {
    let w = ty.width;
    let (sa, sb) = (ty.to_signed(a), ty.to_signed(b));
    let in_signed = |x: Option<i128>| x.is_some_and(|x| x >= ty.smin() && x <= ty.smax());
    let in_unsigned = |x: Option<u128>| x.is_some_and(|x| x <= ty.umax());
    let res = match op {
        BinOp::Add => {
            if nsw && !in_signed(sa.checked_add(sb)) || nuw && !in_unsigned(a.checked_add(b)) {
                return None;
            }
            ty.mask(a.wrapping_add(b))
        }
        BinOp::Sub => {
            if nsw && !in_signed(sa.checked_sub(sb)) || nuw && a < b {
                return None;
            }
            ty.mask(a.wrapping_sub(b))
        }
        BinOp::Mul => {
            if nsw && !in_signed(sa.checked_mul(sb)) || nuw && !in_unsigned(a.checked_mul(b)) {
                return None;
            }
            ty.mask(a.wrapping_mul(b))
        }
        BinOp::UDiv => {
            if b == 0 || exact && a % b != 0 {
                return None;
            }
            a / b
        }
        BinOp::URem => {
            if b == 0 {
                return None;
            }
            a % b
        }
        BinOp::SDiv => {
            if b == 0 || (sa == ty.smin() && sb == -1) || exact && sa % sb != 0 {
                return None;
            }
            ty.mask((sa / sb) as u128)
        }
        BinOp::SRem => {
            if b == 0 || (sa == ty.smin() && sb == -1) {
                return None;
            }
            ty.mask((sa % sb) as u128)
        }
        BinOp::Shl => {
            if b >= w as u128 {
                return None;
            }
            let r = ty.mask(a << b);
            if nuw && (r >> b) != a || nsw && ty.to_signed(r) >> b != sa {
                return None;
            }
            r
        }
        BinOp::LShr => {
            if b >= w as u128 || exact && (a >> b) << b != a {
                return None;
            }
            a >> b
        }
        BinOp::AShr => {
            if b >= w as u128 || exact && (a >> b) << b != a {
                return None;
            }
            ty.mask((sa >> b) as u128)
        }
        BinOp::And => a & b,
        BinOp::Or => a | b,
        BinOp::Xor => a ^ b,
    };
    Some(res)
}

/// Whether some branch, switch or assumption of `func` may depend on an `undef` operand
/// (a static over-approximation of the taint the interpreter tracks).
pub fn control_may_read_undef(func: &Function) -> bool {
    let mut taint = vec![false; func.values.len()];
    loop {
        let mut changed = false;
        for b in &func.blocks {
            for inst in &b.insts {
                if let Inst::Assign { dest, expr } = inst {
                    if !taint[dest.index()] && expr_tainted(&taint, expr) {
                        taint[dest.index()] = true;
                        changed = true;
                    }
                }
            }
            for e in b.term.edges() {
                for (d, src) in &e.moves {
                    if !taint[d.index()] && tainted(&taint, src) {
                        taint[d.index()] = true;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    func.blocks.iter().any(|b| {
        b.insts.iter().any(|i| match i {
            Inst::Assume { cond } => tainted(&taint, cond),
            _ => false,
        }) || match &b.term {
            Terminator::Branch { cond, .. } => tainted(&taint, cond),
            Terminator::Switch { on, .. } => tainted(&taint, on),
            _ => false,
        }
    })
}

/// The block an error check's site is in.
pub fn error_block(func: &Function, check: CheckId) -> Option<BlockId> {
    func.block_ids()
        .find(|b| func.block(*b).term == Terminator::Error(check))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_flags() {
        let t = Ty::int(8);
        assert_eq!(
            binary(BinOp::Add, t, 127, 1, false, false, false),
            Some(128)
        );
        assert_eq!(binary(BinOp::Add, t, 127, 1, true, false, false), None);
        assert_eq!(binary(BinOp::Add, t, 255, 1, false, true, false), None);
        assert_eq!(binary(BinOp::Sub, t, 0, 1, false, false, false), Some(255));
        assert_eq!(
            binary(BinOp::SDiv, t, 0xf9, 2, false, false, false),
            Some(0xfd)
        );
        assert_eq!(
            binary(BinOp::SRem, t, 0xf9, 2, false, false, false),
            Some(0xff)
        );
        assert_eq!(binary(BinOp::UDiv, t, 1, 0, false, false, false), None);
        assert_eq!(
            binary(BinOp::AShr, t, 0x80, 7, false, false, false),
            Some(0xff)
        );
        assert_eq!(binary(BinOp::Shl, t, 0x40, 1, true, false, false), None);
        assert_eq!(
            binary(BinOp::Shl, t, 0x40, 1, false, true, false),
            Some(0x80)
        );
    }
}
