//! Lifting one normalized LLVM function into an [`ir::Function`].
//!
//! Integer SSA values of width 1..=64 become [`ValueId`]s (parameters first, then
//! instructions in definition order, then values the lifter synthesizes). Phi nodes become
//! moves on the incoming edges. Calls are interpreted through [`conventions`]; error and
//! assert calls split their block. Everything else that yields an integer and is not
//! modeled is a [`Inst::Havoc`] with a warning (one per kind and function).

mod access;
mod held;
mod leaks;
mod library;
mod memory;
mod null;
mod pointers;
mod requirements;
mod sizes;
mod words;

use std::collections::{HashMap, HashSet};

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode};

use super::contract::{self, Atom, Contract, Contracts, Obligation, Requirements, Slot};
use super::conventions::{self, Role};
use super::debuginfo;
use super::raw;
use super::reach;
use super::ubsan;
use crate::ir::{
    ArithFlags, BinOp, BitCount, Block, BlockId, CastOp, Check, CheckId, CheckKind, CmpPred, Const,
    Edge, Expr, Function, HavocReason, Inst, LiftWarning, MemOp, Operand, SourceLoc, Terminator,
    Ty, ValueId, ValueInfo,
};

/// Widest integer the lifter models; wider values are arbitrary (a representation limit:
/// the IR's integers have 1 to 64 bits).
const MAX_WIDTH: u32 = 64;

/// What lifting one function produced.
pub struct Lifted {
    /// The function.
    pub function: Function,
    /// Its checks, in order; their ids are `first_check..`.
    pub checks: Vec<Check>,
    /// What was over-approximated.
    pub warnings: Vec<LiftWarning>,
    /// In certify mode, what each contract check stands for (see [`LiftOptions`]).
    pub obligations: Vec<(CheckId, Obligation)>,
    /// Whether its leak checks cover every object it may allocate (`lift/leaks.rs`): `None`
    /// when leaks are not followed in it (not `main`, or no memory checks), else why not.
    pub leak_coverage: Option<Result<(), String>>,
    /// With [`LiftOptions::probe_returns`], the site every return of an integer goes to.
    pub return_probe: Option<ReturnProbe>,
}

/// Where the returns of a function lifted with [`LiftOptions::probe_returns`] end: one error
/// site (the returns jump to it instead of returning), at which the returned value, the
/// integer parameters and what the function leaves where its out-parameters point are live,
/// so that the invariant there relates them. The site's block holds a named copy
/// ([`PROBE_COPY`]) of each parameter of `params`, then of each value of `outs`, then of
/// `value`.
#[derive(Clone, Debug)]
pub struct ReturnProbe {
    /// The check of the site.
    pub check: CheckId,
    /// The value returned, set by the move of each return's jump.
    pub value: ValueId,
    /// The integer parameters: their positions among the function's parameters, and
    /// their values.
    pub params: Vec<(usize, ValueId)>,
    /// The out-parameters: pointer parameters the function stores integers of one width to
    /// at the address they hold (`*p = x`), each with its position, the width, and the
    /// integer read there at the site (what the function leaves there when it returns).
    pub outs: Vec<(usize, u32, ValueId)>,
}

/// The name prefix of the copies at a return probe's site (see [`ReturnProbe`]).
pub const PROBE_COPY: &str = "probe.live.";

/// How calls of functions with a contract (`super::contract`) are lifted.
///
/// Always: the function's own context is assumed at its entry, and after a call of a
/// function with a summary, each clause is assumed of the arguments and the result. In
/// certify mode, besides: each clause of the function's own summary is checked at each
/// return, and each context atom of a callee at each of its call sites (new checks, listed
/// in [`Lifted::obligations`]).
#[derive(Clone, Copy)]
pub struct LiftOptions<'a> {
    /// The contracts to assume (and, in certify mode, to check).
    pub contracts: &'a Contracts,
    /// Whether to check them.
    pub certify: bool,
    /// Whether to add the memory-safety checks (`access.rs`, `--checks memory`).
    pub memory_checks: bool,
    /// Certify mode: lift the copy of the function *specialized* to this guard (see
    /// [`super::contract::specialized_guard`]): the guard is assumed at the entry, and the
    /// only checks are those of the summary clauses guarded by exactly it. Without it, those
    /// clauses are not checked (their copies check them) and everything else is.
    pub specialize: Option<&'a Atom>,
    /// The requirements to check at the calls of their functions (see
    /// `lift/requirements.rs`), new checks listed in [`Lifted::obligations`].
    pub requirements: &'a Requirements,
    /// Whether every return of an integer jumps to one error site instead
    /// ([`Lifted::return_probe`]): the function so lifted is analyzed for what it returns,
    /// never called.
    pub probe_returns: bool,
}

/// Lifts `func` (defined). Checks are numbered from `first_check`. `escaped_error` is the
/// error function whose address escapes, if any: every call that may call it is an error
/// site.
pub fn lift_function(
    func: LLVMValueRef,
    first_check: u32,
    escaped_error: Option<&str>,
    options: LiftOptions<'_>,
) -> Lifted {
    let mut lifter = Lifter::new(func, first_check);
    lifter.escaped_error = escaped_error.map(str::to_string);
    lifter.contracts = options.contracts.clone();
    lifter.certify = options.certify;
    lifter.specialize = options.specialize.cloned();
    lifter.memory_checks = options.memory_checks;
    lifter.requirements = options.requirements.clone();
    lifter.probe_returns = options.probe_returns;
    lifter.run();
    lifter.finish()
}

/// The over-approximation used when lifting panicked: every error site of `func` is
/// reachable from the entry (each check gets its own error block behind a nondeterministic
/// switch), the calls that may call `escaped_error` included.
pub fn fallback_function(
    func: LLVMValueRef,
    first_check: u32,
    message: &str,
    escaped_error: Option<&str>,
) -> Lifted {
    let name = raw::name(func);
    let checks: Vec<Check> = error_sites(func)
        .into_iter()
        .chain(may_call_error_sites(func, escaped_error))
        .enumerate()
        .map(|(i, (kind, loc))| Check {
            id: CheckId(first_check + i as u32),
            kind,
            loc,
            function: name.clone(),
        })
        .collect();
    let loc = debuginfo::function_location(func);
    let mut blocks = Vec::new();
    let selector = Ty::int(32);
    let edges: Vec<Edge> = (0..=checks.len())
        .map(|i| Edge {
            target: BlockId(i as u32 + 1),
            moves: vec![],
        })
        .collect();
    let (default, cases) = edges.split_last().expect("at least one edge");
    blocks.push(Block {
        name: "entry".into(),
        insts: vec![],
        locs: vec![],
        term: Terminator::Switch {
            on: Operand::Undef(selector),
            cases: cases
                .iter()
                .enumerate()
                .map(|(i, e)| (Const::new(selector, i as i128), e.clone()))
                .collect(),
            default: default.clone(),
        },
        term_loc: None,
    });
    for check in &checks {
        blocks.push(Block {
            name: "error".into(),
            insts: vec![],
            locs: vec![],
            term: Terminator::Error(check.id),
            term_loc: check.loc.clone(),
        });
    }
    blocks.push(Block {
        name: "exit".into(),
        insts: vec![],
        locs: vec![],
        term: Terminator::Return,
        term_loc: None,
    });
    Lifted {
        function: Function { name: name.clone(), params: vec![], values: vec![], blocks, entry: BlockId(0), loc: loc.clone(), bases: vec![] },
        checks,
        warnings: vec![LiftWarning {
            function: name,
            message: format!("internal error while lifting ({message}): every assertion of the function is treated as reachable"),
            loc,
        }],
        obligations: vec![],
        leak_coverage: None,
        return_probe: None,
    }
}

/// An error site: how the assertion is written, and where.
pub type ErrorSite = (CheckKind, Option<SourceLoc>);

/// The error sites of `func` (calls of error and assert functions), in block order.
pub fn error_sites(func: LLVMValueRef) -> Vec<ErrorSite> {
    let mut res = Vec::new();
    for block in raw::blocks(func) {
        for inst in raw::instructions(block) {
            res.extend(error_site_of(inst));
        }
    }
    res
}

/// The error site of one instruction, when it is one (a call of an error or assert
/// function, or of UBSan's out-of-bounds handler).
pub fn error_site_of(inst: LLVMValueRef) -> Option<ErrorSite> {
    if raw::opcode(inst) != LLVMOpcode::LLVMCall {
        return None;
    }
    let callee = raw::called_function(inst)?;
    let callee_name = raw::name(callee);
    if ubsan::is_handler(&callee_name) {
        return Some(sanitizer_check(
            inst,
            &callee_name,
            &debuginfo::location(inst),
        ));
    }
    let kind = match conventions::role(&callee_name, raw::is_defined(callee)) {
        Some(Role::Error) => CheckKind::ErrorCall {
            function: callee_name,
        },
        Some(Role::Assert) => CheckKind::AssertCall {
            function: callee_name,
        },
        _ => return None,
    };
    let loc = debuginfo::check_location(inst).or_else(|| debuginfo::location(inst));
    Some((kind, loc))
}

/// The check of a call of one of UBSan's handlers `name` (see `ubsan.rs`): the array or the
/// shifted type, and the place UBSan reports, the call's own location `loc` when the static
/// data is unreadable.
fn sanitizer_check(call: LLVMValueRef, name: &str, loc: &Option<SourceLoc>) -> ErrorSite {
    let (kind, at) = if ubsan::is_shift_handler(name) {
        let (ty, at) = ubsan::shift_site(call);
        let ty = ty.unwrap_or_else(|| "its type".to_string());
        (CheckKind::ShiftBase { ty }, at)
    } else {
        let (array, at) = ubsan::bounds_site(call);
        let array = array.unwrap_or_else(|| "an array".to_string());
        (CheckKind::Bounds { array }, at)
    };
    (kind, at.or_else(|| loc.clone()))
}

/// The calls of `func` that may call `escaped_error` (see [`super::reach`]).
fn may_call_error_sites(func: LLVMValueRef, escaped_error: Option<&str>) -> Vec<ErrorSite> {
    let Some(function) = escaped_error else {
        return vec![];
    };
    raw::blocks(func)
        .into_iter()
        .flat_map(raw::instructions)
        .filter(|inst| reach::may_call_escaped_error(*inst))
        .map(|inst| {
            let kind = CheckKind::MayCallError {
                function: function.to_string(),
            };
            (kind, debuginfo::location(inst))
        })
        .collect()
}

/// A block under construction; edge targets are temporary ids (see [`Lifter::pieces`]).
struct Piece {
    name: String,
    insts: Vec<Inst>,
    locs: Vec<Option<SourceLoc>>,
    term: Option<(Terminator, Option<SourceLoc>)>,
}

struct Lifter {
    func: LLVMValueRef,
    name: String,
    first_check: u32,
    values: Vec<ValueInfo>,
    defined: Vec<bool>,
    params: Vec<ValueId>,
    value_of: HashMap<LLVMValueRef, ValueId>,
    block_index: HashMap<LLVMBasicBlockRef, usize>,
    llvm_blocks: Vec<LLVMBasicBlockRef>,
    /// Temporary block ids: `0..n` are the first pieces of the LLVM blocks, the rest are
    /// synthetic pieces appended as blocks are split.
    pieces: Vec<Piece>,
    /// For each LLVM block, its pieces in order.
    layout: Vec<Vec<usize>>,
    checks: Vec<Check>,
    warnings: Vec<LiftWarning>,
    warned: HashSet<String>,
    source_names: HashMap<LLVMValueRef, String>,
    n_synthetic: usize,
    /// The error function whose address escapes (see [`super::reach`]).
    escaped_error: Option<String>,
    /// Bases and addresses of the memory operations (`memory.rs`).
    memory: memory::Memory,
    /// Contracts of the functions that stay calls (see [`LiftOptions`]).
    contracts: Contracts,
    /// Whether contracts are checked (certify mode).
    certify: bool,
    /// Certify mode: the guard this copy is specialized to (see [`LiftOptions`]).
    specialize: Option<Atom>,
    /// The contract checks made in certify mode.
    obligations: Vec<(CheckId, Obligation)>,
    /// Whether to add the memory-safety checks (`access.rs`).
    memory_checks: bool,
    /// The leak checks of `main` (`leaks.rs`).
    leaks: leaks::Leaks,
    /// The requirements checked at calls (see [`LiftOptions`]).
    requirements: Requirements,
    /// Whether returns of integers jump to [`Lifter::return_probe`] (see [`LiftOptions`]).
    probe_returns: bool,
    /// The piece every return jumps to, and what it keeps live.
    return_probe: Option<(usize, ReturnProbe)>,
}

/// What the lifter does with the rest of a block after an instruction.
enum Flow {
    Continue,
    /// The block ended (error site or end of path); the rest is dead.
    Ended,
}

fn int_ty(value: LLVMValueRef) -> Option<Ty> {
    match raw::int_width(raw::type_of(value)) {
        Some(w) if (1..=MAX_WIDTH).contains(&w) => Some(Ty::int(w)),
        _ => None,
    }
}

/// Whether a call ends the path or is an error site, so that the rest of its block is dead.
fn ends_block(inst: LLVMValueRef) -> bool {
    if raw::opcode(inst) != LLVMOpcode::LLVMCall {
        return false;
    }
    match raw::called_function(inst) {
        Some(callee) => {
            let name = raw::name(callee);
            ubsan::is_handler(&name)
                || matches!(
                    conventions::role(&name, raw::is_defined(callee)),
                    Some(Role::Error) | Some(Role::Stop)
                )
        }
        None => false,
    }
}

fn opcode_name(op: LLVMOpcode) -> String {
    format!("{op:?}").trim_start_matches("LLVM").to_lowercase()
}

impl Lifter {
    fn new(func: LLVMValueRef, first_check: u32) -> Lifter {
        let llvm_blocks = raw::blocks(func);
        let block_index = llvm_blocks
            .iter()
            .enumerate()
            .map(|(i, b)| (*b, i))
            .collect();
        let pieces = llvm_blocks
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let label = raw::name(unsafe { LLVMBasicBlockAsValue(*b) });
                Piece {
                    name: if label.is_empty() {
                        format!("bb{i}")
                    } else {
                        label
                    },
                    insts: vec![],
                    locs: vec![],
                    term: None,
                }
            })
            .collect();
        let layout = (0..llvm_blocks.len()).map(|i| vec![i]).collect();
        Lifter {
            func,
            name: raw::name(func),
            first_check,
            values: vec![],
            defined: vec![],
            params: vec![],
            value_of: HashMap::new(),
            block_index,
            llvm_blocks,
            pieces,
            layout,
            checks: vec![],
            warnings: vec![],
            warned: HashSet::new(),
            source_names: debuginfo::source_names(func),
            n_synthetic: 0,
            escaped_error: None,
            memory: memory::Memory::default(),
            contracts: Contracts::new(),
            certify: false,
            specialize: None,
            obligations: vec![],
            memory_checks: false,
            leaks: leaks::Leaks::default(),
            requirements: Requirements::new(),
            probe_returns: false,
            return_probe: None,
        }
    }

    fn new_value(&mut self, ty: Ty, name: String, source_name: Option<String>) -> ValueId {
        let id = ValueId(self.values.len() as u32);
        self.values.push(ValueInfo {
            ty,
            name,
            source_name,
        });
        self.defined.push(false);
        id
    }

    fn synthetic_value(&mut self, ty: Ty, hint: &str) -> ValueId {
        self.n_synthetic += 1;
        let name = format!("{hint}.{}", self.n_synthetic);
        let id = self.new_value(ty, name, None);
        self.defined[id.index()] = true;
        id
    }

    fn warn(&mut self, message: String, loc: Option<SourceLoc>) {
        if self.warned.insert(message.clone()) {
            self.warnings.push(LiftWarning {
                function: self.name.clone(),
                message,
                loc,
            });
        }
    }

    /// Pass 1: value ids for integer parameters and live integer instructions.
    fn number_values(&mut self) {
        for (i, param) in raw::params(self.func).into_iter().enumerate() {
            if let Some(ty) = int_ty(param) {
                let name = raw::name(param);
                let name = if name.is_empty() {
                    format!("arg{i}")
                } else {
                    name
                };
                let source = self.source_names.get(&param).cloned();
                let id = self.new_value(ty, name, source);
                self.defined[id.index()] = true;
                self.params.push(id);
                self.value_of.insert(param, id);
            }
        }
        let mut n_unnamed = 0;
        for block in self.llvm_blocks.clone() {
            for inst in raw::instructions(block) {
                if ends_block(inst) {
                    break;
                }
                if let Some(ty) = int_ty(inst) {
                    let mut name = raw::name(inst);
                    if name.is_empty() {
                        name = format!("t{n_unnamed}");
                        n_unnamed += 1;
                    }
                    let source = self.source_names.get(&inst).cloned();
                    let id = self.new_value(ty, name, source);
                    self.value_of.insert(inst, id);
                }
            }
        }
    }

    fn run(&mut self) {
        self.number_values();
        self.collect_bases();
        self.collect_held_pointers();
        self.collect_pointer_merges();
        self.collect_compared_loads();
        self.collect_live_cells();
        self.collect_leak_checks();
        for k in 0..self.llvm_blocks.len() {
            self.lift_block(k);
        }
    }

    fn lift_block(&mut self, k: usize) {
        let block = self.llvm_blocks[k];
        let mut current = k;
        if k == 0 {
            self.assume_own_context(current);
            self.define_null_flags(current);
            self.define_param_sizes(current);
            self.define_param_addresses(current);
            self.start_leak_tracking(current);
        }
        for inst in raw::instructions(block) {
            let loc = debuginfo::location(inst);
            let is_term = unsafe { !LLVMIsATerminatorInst(inst).is_null() };
            if is_term {
                match raw::opcode(inst) {
                    // An `invoke` is a call first (its effects, its result, an error function
                    // it calls); then a choice between its normal and unwind successors.
                    LLVMOpcode::LLVMInvoke => {
                        if let Flow::Ended = self.lift_call(&mut current, inst, &loc) {
                            return;
                        }
                    }
                    // `asm goto`: the assembly may write whatever other code may reach
                    // (a `"memory"` clobber, or an `"m"` operand), like any inline assembly.
                    LLVMOpcode::LLVMCallBr => self.clobber_reachable(current, &loc),
                    LLVMOpcode::LLVMRet if self.certify => {
                        self.check_own_summary(&mut current, inst, &loc)
                    }
                    LLVMOpcode::LLVMRet if self.probe_returns => {
                        if self.jump_to_return_probe(k, current, inst, &loc) {
                            return;
                        }
                    }
                    _ => {}
                }
                if raw::opcode(inst) == LLVMOpcode::LLVMRet {
                    // The end of `main`, hence of the program.
                    self.check_no_leak(&mut current, &loc);
                }
                // An invoke's result is defined before the terminator.
                self.define_if_needed(current, inst, &loc, None);
                let term = self.lift_terminator(k, inst, &loc);
                self.pieces[current].term = Some((term, loc));
                return;
            }
            match self.lift_inst(&mut current, inst, &loc) {
                Flow::Continue => {}
                Flow::Ended => return,
            }
            self.define_if_needed(current, inst, &loc, None);
        }
        // A block without terminator cannot come out of LLVM's verifier; end the path.
        if self.pieces[current].term.is_none() {
            self.pieces[current].term = Some((Terminator::Stop, None));
        }
    }

    /// Defines the value of `inst` by a havoc if lifting did not define it.
    fn define_if_needed(
        &mut self,
        piece: usize,
        inst: LLVMValueRef,
        loc: &Option<SourceLoc>,
        reason: Option<HavocReason>,
    ) {
        let Some(&id) = self.value_of.get(&inst) else {
            return;
        };
        if self.defined[id.index()] {
            return;
        }
        let reason = reason.unwrap_or_else(|| {
            let what = opcode_name(raw::opcode(inst));
            HavocReason::Unsupported { what }
        });
        if let HavocReason::Unsupported { what } = &reason {
            let msg = format!(
                "unsupported `{what}` with integer result: value over-approximated as arbitrary"
            );
            self.warn(msg, loc.clone());
        }
        self.push(piece, Inst::Havoc { dest: id, reason }, loc.clone());
    }

    fn push(&mut self, piece: usize, inst: Inst, loc: Option<SourceLoc>) {
        if let Some(d) = inst.dest() {
            self.defined[d.index()] = true;
        }
        self.pieces[piece].insts.push(inst);
        self.pieces[piece].locs.push(loc);
    }

    fn assign(&mut self, piece: usize, inst: LLVMValueRef, expr: Expr, loc: &Option<SourceLoc>) {
        if let Some(&dest) = self.value_of.get(&inst) {
            self.push(piece, Inst::Assign { dest, expr }, loc.clone());
        }
    }

    fn havoc(
        &mut self,
        piece: usize,
        inst: LLVMValueRef,
        reason: HavocReason,
        loc: &Option<SourceLoc>,
    ) {
        if let Some(&dest) = self.value_of.get(&inst) {
            self.push(piece, Inst::Havoc { dest, reason }, loc.clone());
        }
    }

    /// An integer operand (`None` for non-integer or too wide values).
    fn operand(&mut self, value: LLVMValueRef, loc: &Option<SourceLoc>) -> Option<Operand> {
        if value.is_null() {
            return None;
        }
        let ty = int_ty(value)?;
        if let Some(bits) = raw::const_int_bits(value) {
            return Some(Operand::Const(Const {
                ty,
                bits: ty.mask(bits as u128),
            }));
        }
        if raw::is_undef(value) {
            return Some(Operand::Undef(ty));
        }
        if let Some(id) = self.value_of.get(&value) {
            return Some(Operand::Value(*id));
        }
        if raw::is_instruction(value) || raw::is_argument(value) {
            // Defined in dead code after an error site or the end of a path.
            return Some(Operand::Undef(ty));
        }
        self.warn(
            "constant expression operand over-approximated as an arbitrary value".to_string(),
            loc.clone(),
        );
        Some(Operand::Undef(ty))
    }

    /// `arg != 0` as a new `i1` value; `None` when the argument is not an integer.
    fn nonzero(
        &mut self,
        piece: usize,
        arg: LLVMValueRef,
        loc: &Option<SourceLoc>,
        hint: &str,
    ) -> Option<Operand> {
        // `zext i1 %c` (a C comparison passed as `int`) is non-zero exactly when `%c` holds.
        if raw::is_instruction(arg) && raw::opcode(arg) == LLVMOpcode::LLVMZExt {
            let inner = raw::operand(arg, 0);
            if raw::int_width(raw::type_of(inner)) == Some(1) {
                if let Some(cond) = self.operand(inner, loc) {
                    return Some(cond);
                }
            }
        }
        let arg = self.operand(arg, loc)?;
        let ty = match arg {
            Operand::Value(v) => self.values[v.index()].ty,
            Operand::Const(c) => c.ty,
            Operand::Undef(t) => t,
        };
        let dest = self.synthetic_value(Ty::BOOL, hint);
        let expr = Expr::Cmp {
            pred: CmpPred::Ne,
            lhs: arg,
            rhs: Operand::Const(Const::new(ty, 0)),
        };
        self.push(piece, Inst::Assign { dest, expr }, loc.clone());
        Some(Operand::Value(dest))
    }

    fn new_check(&mut self, kind: CheckKind, loc: Option<SourceLoc>) -> CheckId {
        let id = CheckId(self.first_check + self.checks.len() as u32);
        self.checks.push(Check {
            id,
            kind,
            loc,
            function: self.name.clone(),
        });
        id
    }

    fn new_piece(&mut self, k: usize, name: String) -> usize {
        let id = self.pieces.len();
        self.pieces.push(Piece {
            name,
            insts: vec![],
            locs: vec![],
            term: None,
        });
        self.layout[k].push(id);
        id
    }

    fn lift_inst(
        &mut self,
        current: &mut usize,
        inst: LLVMValueRef,
        loc: &Option<SourceLoc>,
    ) -> Flow {
        use LLVMOpcode::*;
        let piece = *current;
        let op = raw::opcode(inst);
        let bin = match op {
            LLVMAdd => Some(BinOp::Add),
            LLVMSub => Some(BinOp::Sub),
            LLVMMul => Some(BinOp::Mul),
            LLVMUDiv => Some(BinOp::UDiv),
            LLVMSDiv => Some(BinOp::SDiv),
            LLVMURem => Some(BinOp::URem),
            LLVMSRem => Some(BinOp::SRem),
            LLVMShl => Some(BinOp::Shl),
            LLVMLShr => Some(BinOp::LShr),
            LLVMAShr => Some(BinOp::AShr),
            LLVMAnd => Some(BinOp::And),
            LLVMOr => Some(BinOp::Or),
            LLVMXor => Some(BinOp::Xor),
            _ => None,
        };
        if let Some(bin) = bin {
            if op == LLVMSub && self.lift_pointer_difference(piece, inst, loc) {
                return Flow::Continue;
            }
            if !self.value_of.contains_key(&inst) {
                return Flow::Continue; // vector or wide: handled by define_if_needed (no id)
            }
            let lhs = self.operand(raw::operand(inst, 0), loc);
            let rhs = self.operand(raw::operand(inst, 1), loc);
            if let (Some(lhs), Some(rhs)) = (lhs, rhs) {
                let mut flags = ArithFlags::default();
                unsafe {
                    if matches!(op, LLVMAdd | LLVMSub | LLVMMul | LLVMShl) {
                        flags.nsw = LLVMGetNSW(inst) != 0;
                        flags.nuw = LLVMGetNUW(inst) != 0;
                    }
                    if matches!(op, LLVMUDiv | LLVMSDiv | LLVMLShr | LLVMAShr) {
                        flags.exact = LLVMGetExact(inst) != 0;
                    }
                }
                flags.nosanitize = ubsan::is_sanitizer_code(inst);
                self.assign(
                    piece,
                    inst,
                    Expr::Binary {
                        op: bin,
                        lhs,
                        rhs,
                        flags,
                    },
                    loc,
                );
            }
            return Flow::Continue;
        }
        match op {
            LLVMICmp => {
                if !self.value_of.contains_key(&inst) {
                    return Flow::Continue;
                }
                let lhs = self.operand(raw::operand(inst, 0), loc);
                let rhs = self.operand(raw::operand(inst, 1), loc);
                if let Some((amount, bits)) = ubsan::constant_base_test(inst) {
                    if let (Some(amount), Some(ty)) = (self.operand(amount, loc), int_ty(amount)) {
                        let expr = Expr::Cmp {
                            pred: CmpPred::Uge,
                            lhs: amount,
                            rhs: Operand::Const(Const::new(ty, i128::from(bits))),
                        };
                        self.assign(piece, inst, expr, loc);
                        return Flow::Continue;
                    }
                }
                match (lhs, rhs) {
                    (Some(lhs), Some(rhs)) => {
                        let mut pred = raw::int_predicate(unsafe { LLVMGetICmpPredicate(inst) });
                        if pred == CmpPred::Ule && ubsan::guards_accessed_subscript(inst) {
                            // The element is accessed: `index < size` (see `ubsan.rs`).
                            pred = CmpPred::Ult;
                        }
                        self.assign(piece, inst, Expr::Cmp { pred, lhs, rhs }, loc);
                    }
                    _ if self.lift_pointer_comparison(piece, inst, loc) => {}
                    _ => {
                        let what = if raw::is_pointer(raw::type_of(raw::operand(inst, 0))) {
                            "pointer comparison"
                        } else {
                            "wide integer comparison"
                        };
                        self.warn(
                            format!("{what} over-approximated as an arbitrary boolean"),
                            loc.clone(),
                        );
                        self.havoc(
                            piece,
                            inst,
                            HavocReason::Unsupported { what: what.into() },
                            loc,
                        );
                    }
                }
            }
            LLVMFCmp => {
                self.warn(
                    "floating-point comparison over-approximated as an arbitrary boolean".into(),
                    loc.clone(),
                );
                self.havoc(
                    piece,
                    inst,
                    HavocReason::Unsupported {
                        what: "floating-point comparison".into(),
                    },
                    loc,
                );
            }
            LLVMZExt | LLVMSExt | LLVMTrunc => {
                if !self.value_of.contains_key(&inst) {
                    return Flow::Continue;
                }
                let cast = match op {
                    LLVMZExt => CastOp::ZExt,
                    LLVMSExt => CastOp::SExt,
                    _ => CastOp::Trunc,
                };
                match self.operand(raw::operand(inst, 0), loc) {
                    Some(arg) => self.assign(piece, inst, Expr::Cast { op: cast, arg }, loc),
                    None => {
                        self.warn(
                            "conversion from a wide integer over-approximated".into(),
                            loc.clone(),
                        );
                        self.havoc(
                            piece,
                            inst,
                            HavocReason::Unsupported {
                                what: "wide integer conversion".into(),
                            },
                            loc,
                        );
                    }
                }
            }
            LLVMSelect => {
                self.lift_pointer_merge(piece, inst, loc);
                if !self.value_of.contains_key(&inst) {
                    return Flow::Continue; // select of pointers or floats: no integer effect
                }
                let cond = self.operand(raw::operand(inst, 0), loc);
                let on_true = self.operand(raw::operand(inst, 1), loc);
                let on_false = self.operand(raw::operand(inst, 2), loc);
                if let (Some(cond), Some(on_true), Some(on_false)) = (cond, on_true, on_false) {
                    self.assign(
                        piece,
                        inst,
                        Expr::Select {
                            cond,
                            on_true,
                            on_false,
                        },
                        loc,
                    );
                }
            }
            LLVMFreeze => {
                if let Some(arg) = self.operand(raw::operand(inst, 0), loc) {
                    self.assign(piece, inst, Expr::Use(arg), loc);
                }
            }
            LLVMPHI => {
                self.lift_pointer_merge(piece, inst, loc);
                // Defined by the moves on the incoming edges.
                if let Some(&id) = self.value_of.get(&inst) {
                    self.defined[id.index()] = true;
                }
            }
            LLVMLoad => {
                self.check_load_store(current, inst, loc);
                self.lift_load(*current, inst, loc);
                if memory::is_atomic(inst) {
                    self.synchronize(*current, loc);
                }
            }
            LLVMStore => {
                self.check_load_store(current, inst, loc);
                self.lift_store(*current, inst, loc);
                if memory::is_atomic(inst) {
                    self.synchronize(*current, loc);
                }
            }
            LLVMGetElementPtr | LLVMBitCast | LLVMAddrSpaceCast => {
                self.lift_address(piece, inst, loc)
            }
            LLVMAtomicRMW | LLVMAtomicCmpXchg => {
                let ptr = raw::operand(inst, 0);
                self.clobber_through(piece, ptr, loc);
                self.synchronize(piece, loc);
            }
            LLVMFence => self.synchronize(piece, loc),
            LLVMPtrToInt => {
                self.warn(
                    "pointer-to-integer conversion over-approximated as an arbitrary value".into(),
                    loc.clone(),
                );
                self.havoc(
                    piece,
                    inst,
                    HavocReason::Unsupported {
                        what: "ptrtoint".into(),
                    },
                    loc,
                );
            }
            LLVMFPToSI | LLVMFPToUI => {
                self.warn(
                    "floating-point to integer conversion over-approximated as an arbitrary value"
                        .into(),
                    loc.clone(),
                );
                self.havoc(
                    piece,
                    inst,
                    HavocReason::Unsupported {
                        what: "float to integer conversion".into(),
                    },
                    loc,
                );
            }
            LLVMExtractValue => self.lift_extractvalue(piece, inst, loc),
            LLVMCall => return self.lift_call(current, inst, loc),
            // Memory and pointer operations: memory is not modeled.
            // Each execution of an alloca is a new object: never an earlier iteration's bytes.
            LLVMAlloca => self.lift_alloca(piece, inst, loc),
            LLVMIntToPtr => {}
            _ => {} // integer results are havocked by define_if_needed, with a warning
        }
        Flow::Continue
    }

    fn lift_extractvalue(&mut self, piece: usize, inst: LLVMValueRef, loc: &Option<SourceLoc>) {
        if !self.value_of.contains_key(&inst) {
            return;
        }
        let aggregate = raw::operand(inst, 0);
        let index = unsafe {
            if LLVMGetNumIndices(inst) == 1 {
                Some(*LLVMGetIndices(inst))
            } else {
                None
            }
        };
        // The result part of `llvm.{s,u}{add,sub,mul}.with.overflow`: the wrapped operation.
        if index == Some(0)
            && raw::is_instruction(aggregate)
            && raw::opcode(aggregate) == LLVMOpcode::LLVMCall
        {
            if let Some(callee) = raw::called_function(aggregate) {
                let name = raw::name(callee);
                let op = if name.starts_with("llvm.sadd.with.overflow")
                    || name.starts_with("llvm.uadd.with.overflow")
                {
                    Some(BinOp::Add)
                } else if name.starts_with("llvm.ssub.with.overflow")
                    || name.starts_with("llvm.usub.with.overflow")
                {
                    Some(BinOp::Sub)
                } else if name.starts_with("llvm.smul.with.overflow")
                    || name.starts_with("llvm.umul.with.overflow")
                {
                    Some(BinOp::Mul)
                } else {
                    None
                };
                if let Some(op) = op {
                    let lhs = self.operand(raw::operand(aggregate, 0), loc);
                    let rhs = self.operand(raw::operand(aggregate, 1), loc);
                    if let (Some(lhs), Some(rhs)) = (lhs, rhs) {
                        let expr = Expr::Binary {
                            op,
                            lhs,
                            rhs,
                            flags: ArithFlags::default(),
                        };
                        self.assign(piece, inst, expr, loc);
                        return;
                    }
                }
            }
        }
        self.warn(
            "field of an aggregate value over-approximated as an arbitrary value".into(),
            loc.clone(),
        );
        self.havoc(
            piece,
            inst,
            HavocReason::Unsupported {
                what: "extractvalue".into(),
            },
            loc,
        );
    }

    fn lift_call(
        &mut self,
        current: &mut usize,
        inst: LLVMValueRef,
        loc: &Option<SourceLoc>,
    ) -> Flow {
        self.may_call_error_site(current, inst, loc);
        let piece = *current;
        let Some(callee) = raw::called_function(inst) else {
            let what = if raw::calls_inline_asm(inst) {
                "inline assembly: outputs arbitrary"
            } else {
                "indirect call: result arbitrary"
            };
            self.warn(what.into(), loc.clone());
            self.clobber_reachable(piece, loc);
            self.havoc(
                piece,
                inst,
                HavocReason::UnknownCall {
                    function: "<indirect>".into(),
                },
                loc,
            );
            let callee = if raw::calls_inline_asm(inst) {
                "inline assembly"
            } else {
                "the function called through a pointer"
            };
            self.unfollowed_allocation(current, callee, loc);
            return Flow::Continue;
        };
        let name = raw::name(callee);
        let defined = raw::is_defined(callee);
        if ubsan::is_handler(&name) {
            let (kind, check_loc) = sanitizer_check(inst, &name, loc);
            let check = self.new_check(kind, check_loc.clone());
            self.pieces[piece].term = Some((Terminator::Error(check), check_loc));
            return Flow::Ended;
        }
        if name == conventions::UNINIT_MEMORY {
            self.uninit_memory(piece, inst, loc);
            return Flow::Continue;
        }
        if conventions::is_uninit_initializer(&name) {
            // The initial value of an uninitialized local: arbitrary (see `normalize`).
            if let Some(&dest) = self.value_of.get(&inst) {
                let ty = self.values[dest.index()].ty;
                self.push(
                    piece,
                    Inst::Assign {
                        dest,
                        expr: Expr::Use(Operand::Undef(ty)),
                    },
                    loc.clone(),
                );
            }
            return Flow::Continue;
        }
        if name.starts_with("llvm.") && name != "llvm.trap" {
            self.check_memory_intrinsic(current, inst, &name, loc);
            let piece = *current;
            self.intrinsic_memory(piece, inst, &name, loc);
            self.lift_intrinsic(piece, inst, &name, loc);
            return Flow::Continue;
        }
        let role = conventions::role(&name, defined);
        if role.is_some() && self.takes_pointer(inst) {
            // A convention given a pointer (`unknown(&x)`) may still write through it.
            self.clobber_reachable(piece, loc);
        }
        match role {
            Some(Role::Nondet) => {
                self.havoc(piece, inst, HavocReason::Nondet { function: name }, loc);
            }
            Some(Role::Error) => {
                self.note_unchecked_end(&name);
                let check_loc = debuginfo::check_location(inst).or_else(|| loc.clone());
                let check =
                    self.new_check(CheckKind::ErrorCall { function: name }, check_loc.clone());
                self.pieces[piece].term = Some((Terminator::Error(check), check_loc));
                return Flow::Ended;
            }
            Some(Role::Stop) => {
                // An end of the program: `exit`, or abnormal (`abort`, see `leaks.rs`).
                self.check_no_leak(current, loc);
                self.pieces[*current].term = Some((Terminator::Stop, loc.clone()));
                return Flow::Ended;
            }
            Some(Role::Assume) => {
                if raw::num_args(inst) >= 1 {
                    if let Some(cond) = self.nonzero(piece, raw::operand(inst, 0), loc, "assume") {
                        self.push(piece, Inst::Assume { cond }, loc.clone());
                    }
                }
                self.havoc(
                    piece,
                    inst,
                    HavocReason::UnknownCall { function: name },
                    loc,
                );
            }
            Some(Role::Assert) => {
                self.note_unchecked_end(&name);
                let cond = if raw::num_args(inst) >= 1 {
                    self.nonzero(piece, raw::operand(inst, 0), loc, "assert")
                } else {
                    None
                };
                let cond = cond.unwrap_or(Operand::Undef(Ty::BOOL));
                let check_loc = debuginfo::check_location(inst).or_else(|| loc.clone());
                let check = self.new_check(
                    CheckKind::AssertCall {
                        function: name.clone(),
                    },
                    check_loc.clone(),
                );
                let cont = self.split_on_check(current, cond, check, check_loc, loc, "assert");
                self.havoc(cont, inst, HavocReason::UnknownCall { function: name }, loc);
            }
            None if !defined && super::library::is_library_function(&name) => {
                match name.as_str() {
                    "free" => self.lift_free(current, inst, loc),
                    "realloc" => self.clobber_live_cells(*current, loc),
                    _ => {}
                }
                self.library_call(*current, inst, &name, loc);
                self.library_leak(current, inst, &name, loc);
            }
            None => {
                if defined && self.requirements.contains_key(&name) {
                    self.check_requirements(current, inst, callee, &name, loc);
                }
                let piece = *current;
                let contract = self.contracts.get(&name).cloned();
                let args: Vec<Option<Operand>> = match &contract {
                    Some(_) => (0..raw::num_args(inst))
                        .map(|i| self.operand(raw::operand(inst, i), loc))
                        .collect(),
                    None => vec![],
                };
                let piece = match &contract {
                    Some(c) if self.certify => {
                        self.check_context(current, &name, c, &args, loc);
                        *current
                    }
                    _ => piece,
                };
                self.clobber_call(piece, inst, callee, loc);
                self.allocation(piece, inst, loc);
                if let Some(c) = &contract {
                    if let Some(&dest) = self.value_of.get(&inst) {
                        self.push(
                            piece,
                            Inst::Havoc {
                                dest,
                                reason: HavocReason::UnknownCall {
                                    function: name.clone(),
                                },
                            },
                            loc.clone(),
                        );
                        let mut results = vec![(Slot::Ret, Operand::Value(dest))];
                        results.extend(self.read_outs(piece, inst, c, loc));
                        self.assume_summary(current, c, &args, &results, loc);
                        self.unfollowed_allocation(current, &format!("`{name}`"), loc);
                        return Flow::Continue;
                    }
                }
                if self.value_of.contains_key(&inst) {
                    let what = if defined {
                        "function not inlined"
                    } else {
                        "undefined function"
                    };
                    self.warn(
                        format!("call of {what} `{name}`: result arbitrary"),
                        loc.clone(),
                    );
                }
                let range = super::library::result_range(&name, raw::num_args(inst) as usize);
                self.havoc(
                    piece,
                    inst,
                    HavocReason::UnknownCall {
                        function: name.clone(),
                    },
                    loc,
                );
                if let Some((lo, hi)) = range {
                    self.assume_result_range(piece, inst, lo, hi, loc);
                }
                self.unfollowed_allocation(current, &format!("`{name}`"), loc);
            }
        }
        Flow::Continue
    }

    /// Assumes the integer result of the call `inst` in `[lo, hi]` (a library function's
    /// documented results, [`super::library::result_range`]).
    fn assume_result_range(
        &mut self,
        piece: usize,
        inst: LLVMValueRef,
        lo: i128,
        hi: i128,
        loc: &Option<SourceLoc>,
    ) {
        let Some(&dest) = self.value_of.get(&inst) else {
            return;
        };
        let ty = self.values[dest.index()].ty;
        if ty.width < 2 || lo < ty.smin() || hi > ty.smax() {
            return;
        }
        for (pred, bound) in [(CmpPred::Sge, lo), (CmpPred::Sle, hi)] {
            let cond = self.synthetic_value(Ty::BOOL, "library");
            let expr = Expr::Cmp {
                pred,
                lhs: Operand::Value(dest),
                rhs: Operand::Const(Const::new(ty, bound)),
            };
            self.push(piece, Inst::Assign { dest: cond, expr }, loc.clone());
            self.push(
                piece,
                Inst::Assume {
                    cond: Operand::Value(cond),
                },
                loc.clone(),
            );
        }
    }

    /// The LLVM block (index of `layout`) a piece belongs to.
    fn block_of_piece(&self, piece: usize) -> usize {
        self.layout
            .iter()
            .position(|pieces| pieces.contains(&piece))
            .expect("piece in layout")
    }

    /// `atom` evaluated here (see `super::contract`: `Σ coef·sext64(x) + constant`, wrapping,
    /// then `>= 0` or `== 0`), as a new `i1`; `None` when it reads an argument that is not an
    /// integer or is undefined (each use of `undef` may differ from the value passed).
    fn atom_cond(
        &mut self,
        piece: usize,
        atom: &Atom,
        args: &[Option<Operand>],
        results: &[(Slot, Operand)],
        loc: &Option<SourceLoc>,
    ) -> Option<Operand> {
        let wide = Ty::int(64);
        let mut reads = Vec::new();
        for &(slot, coef) in &atom.terms {
            let x = match slot {
                Slot::Param(i) => args.get(i).copied().flatten(),
                Slot::Ret | Slot::Out { .. } => {
                    results.iter().find(|(s, _)| *s == slot).map(|(_, x)| *x)
                }
            }?;
            if matches!(x, Operand::Undef(_)) {
                return None;
            }
            reads.push((x, coef));
        }
        // `±x + c >= 0` (or `== 0`) as one comparison in `x`'s own width when `c` fits it:
        // the same truth value, and a non-relational domain reads it too.
        if let [(x, coef)] = reads[..] {
            let ty = match x {
                Operand::Value(v) => self.values[v.index()].ty,
                Operand::Const(c) => c.ty,
                Operand::Undef(ty) => ty,
            };
            if let Some(bound) = contract::one_comparison_bound(coef, atom.constant, ty.width) {
                let pred = match (atom.is_eq, coef) {
                    (true, _) => CmpPred::Eq,
                    (false, 1) => CmpPred::Sge,
                    (false, _) => CmpPred::Sle,
                };
                let cond = self.synthetic_value(Ty::BOOL, "contract");
                let expr = Expr::Cmp {
                    pred,
                    lhs: x,
                    rhs: Operand::Const(Const::new(ty, bound)),
                };
                self.push(piece, Inst::Assign { dest: cond, expr }, loc.clone());
                return Some(Operand::Value(cond));
            }
        }
        let mut acc = Operand::Const(Const::new(wide, atom.constant as i128));
        for (x, coef) in reads {
            let width = match x {
                Operand::Value(v) => self.values[v.index()].ty.width,
                Operand::Const(c) => c.ty.width,
                Operand::Undef(ty) => ty.width,
            };
            let x = if width == 64 {
                x
            } else {
                let v = self.synthetic_value(wide, "contract");
                let expr = Expr::Cast {
                    op: CastOp::SExt,
                    arg: x,
                };
                self.push(piece, Inst::Assign { dest: v, expr }, loc.clone());
                Operand::Value(v)
            };
            let term = if coef == 1 {
                x
            } else {
                let v = self.synthetic_value(wide, "contract");
                let expr = Expr::Binary {
                    op: BinOp::Mul,
                    lhs: x,
                    rhs: Operand::Const(Const::new(wide, coef as i128)),
                    flags: ArithFlags::default(),
                };
                self.push(piece, Inst::Assign { dest: v, expr }, loc.clone());
                Operand::Value(v)
            };
            let sum = self.synthetic_value(wide, "contract");
            let expr = Expr::Binary {
                op: BinOp::Add,
                lhs: acc,
                rhs: term,
                flags: ArithFlags::default(),
            };
            self.push(piece, Inst::Assign { dest: sum, expr }, loc.clone());
            acc = Operand::Value(sum);
        }
        let cond = self.synthetic_value(Ty::BOOL, "contract");
        let expr = Expr::Cmp {
            pred: if atom.is_eq {
                CmpPred::Eq
            } else {
                CmpPred::Sge
            },
            lhs: acc,
            rhs: Operand::Const(Const::new(wide, 0)),
        };
        self.push(piece, Inst::Assign { dest: cond, expr }, loc.clone());
        Some(Operand::Value(cond))
    }

    /// Branches from `current` on each of `guards` in turn: returns the piece reached when
    /// all hold; every other way goes to a new join piece, which becomes `current`.
    fn guarded(
        &mut self,
        current: &mut usize,
        guards: &[Operand],
        loc: &Option<SourceLoc>,
    ) -> usize {
        if guards.is_empty() {
            return *current;
        }
        let k = self.block_of_piece(*current);
        let base = self.pieces[k].name.clone();
        let n = self.layout[k].len();
        let join = self.new_piece(k, format!("{base}.contract{n}.join"));
        let mut at = *current;
        for (i, g) in guards.iter().enumerate() {
            let next = self.new_piece(k, format!("{base}.contract{n}.guard{i}"));
            let term = Terminator::Branch {
                cond: *g,
                then_edge: Edge {
                    target: BlockId(next as u32),
                    moves: vec![],
                },
                else_edge: Edge {
                    target: BlockId(join as u32),
                    moves: vec![],
                },
            };
            self.pieces[at].term = Some((term, loc.clone()));
            at = next;
        }
        *current = join;
        at
    }

    /// Ends `inside` with a jump to `join`.
    fn jump_to(&mut self, inside: usize, join: usize, loc: &Option<SourceLoc>) {
        let term = Terminator::Jump(Edge {
            target: BlockId(join as u32),
            moves: vec![],
        });
        self.pieces[inside].term = Some((term, loc.clone()));
    }

    /// At the entry: the function's own calling context, which every call satisfies.
    fn assume_own_context(&mut self, piece: usize) {
        let Some(contract) = self.contracts.get(&self.name).cloned() else {
            return;
        };
        let params: Vec<Option<Operand>> = raw::params(self.func)
            .into_iter()
            .map(|p| self.value_of.get(&p).map(|v| Operand::Value(*v)))
            .collect();
        let specialized = self.specialize.clone();
        for atom in contract.context.iter().chain(specialized.as_ref()) {
            if let Some(cond) = self.atom_cond(piece, atom, &params, &[], &None) {
                self.push(piece, Inst::Assume { cond }, None);
            }
        }
    }

    /// After a call whose callee's summary speaks of out-parameters: what the caller reads,
    /// right after the call, where each such argument points (the call's clobber left it
    /// arbitrary; the summary then says what the callee left there). An argument whose
    /// address the memory model does not describe is not read, and the atoms over it are
    /// not assumed.
    fn read_outs(
        &mut self,
        piece: usize,
        call: LLVMValueRef,
        contract: &Contract,
        loc: &Option<SourceLoc>,
    ) -> Vec<(Slot, Operand)> {
        let atoms = (contract.summary.iter()).flat_map(|c| c.guard.iter().chain([&c.atom]));
        let outs: std::collections::BTreeSet<(usize, u32)> = atoms
            .flat_map(|a| &a.terms)
            .filter_map(|(slot, _)| match slot {
                Slot::Out { param, bits } => Some((*param, *bits)),
                _ => None,
            })
            .collect();
        let mut read = Vec::new();
        for (param, bits) in outs {
            if param >= raw::num_args(call) as usize {
                continue;
            }
            let arg = raw::operand(call, param as u32);
            if !raw::is_pointer(raw::type_of(arg)) {
                continue;
            }
            let Some(addr) = self.address(arg) else {
                continue;
            };
            let dest = self.synthetic_value(Ty::int(bits), "out");
            self.push(piece, Inst::Mem(MemOp::Load { dest, addr }), loc.clone());
            read.push((Slot::Out { param, bits }, Operand::Value(dest)));
        }
        read
    }

    /// After a call of a function with a summary: each clause, of the arguments and the
    /// `results` (the returned value, and what the caller reads where out-parameters point).
    fn assume_summary(
        &mut self,
        current: &mut usize,
        contract: &Contract,
        args: &[Option<Operand>],
        results: &[(Slot, Operand)],
        loc: &Option<SourceLoc>,
    ) {
        let mut cases: Vec<(&Atom, Vec<&Atom>)> = Vec::new();
        for clause in &contract.summary {
            if let Some(guard) = contract::specialized_guard(clause) {
                match cases.iter_mut().find(|(g, _)| *g == guard) {
                    Some((_, atoms)) => atoms.push(&clause.atom),
                    None => cases.push((guard, vec![&clause.atom])),
                }
                continue;
            }
            let piece = *current;
            let mut guards = Vec::new();
            let mut missing = false;
            for g in &clause.guard {
                match self.atom_cond(piece, g, args, &[], loc) {
                    Some(c) => guards.push(c),
                    None => missing = true,
                }
            }
            // An unknown guard may hold or not: the clause tells nothing.
            if missing {
                continue;
            }
            let Some(cond) = self.atom_cond(piece, &clause.atom, args, results, loc) else {
                continue;
            };
            let inside = self.guarded(current, &guards, loc);
            self.push(inside, Inst::Assume { cond }, loc.clone());
            if inside != *current {
                self.jump_to(inside, *current, loc);
            }
        }
        self.assume_cases(current, &cases, args, results, loc);
    }

    /// The clauses guarded by one atom over one parameter (an interval of its values, see
    /// [`contract::guard_interval`]), as a partition: per parameter, the breakpoints of the
    /// guards cut its values into elementary intervals, tested in increasing order by a
    /// chain `if p <= h1 {..} else if p <= h2 {..} ... else {..}`; each case assumes the
    /// atoms of every clause whose guard contains its interval. Unlike one diamond per
    /// clause, a case keeps what its atoms say until the join, so that an analysis that
    /// joins convexly still sees the value of a tabulated call (`n-1 == 5 → r == 31`, which
    /// a copy specialized to `n == 6` needs) or a partition of the arguments (McCarthy's
    /// `x >= 101`, `x <= 100`). The tests are atoms like the guards (the same comparison of
    /// the same reading), so a case's interval implies each guard it assumes under.
    fn assume_cases(
        &mut self,
        current: &mut usize,
        cases: &[(&Atom, Vec<&Atom>)],
        args: &[Option<Operand>],
        results: &[(Slot, Operand)],
        loc: &Option<SourceLoc>,
    ) {
        let mut params: Vec<usize> = Vec::new();
        for (g, _) in cases {
            if let Some((p, _, _)) = contract::guard_interval(g) {
                if !params.contains(&p) {
                    params.push(p);
                }
            }
        }
        for p in params {
            let mine: Vec<(Option<i64>, Option<i64>, &Vec<&Atom>)> = cases
                .iter()
                .filter_map(|(g, atoms)| {
                    let (q, lo, hi) = contract::guard_interval(g)?;
                    (q == p).then_some((lo, hi, atoms))
                })
                .collect();
            // Where an elementary interval starts.
            let mut starts: Vec<i64> = Vec::new();
            for (lo, hi, _) in &mine {
                starts.extend(*lo);
                starts.extend(hi.and_then(|h| h.checked_add(1)));
            }
            starts.sort_unstable();
            starts.dedup();
            // Each elementary interval (its highest value) with its atoms: of those over the
            // same terms, only the strongest (`Σ + c >= 0` with the least `c` implies the
            // others); consecutive intervals with the same atoms are one case.
            let mut intervals: Vec<(Option<i64>, Vec<&Atom>)> = Vec::new();
            for i in 0..=starts.len() {
                let lo = i.checked_sub(1).map(|j| starts[j]);
                let hi = starts.get(i).map(|s| s - 1);
                let mut atoms: Vec<&Atom> = Vec::new();
                for atom in mine
                    .iter()
                    .filter(|(glo, ghi, _)| {
                        glo.is_none_or(|g| lo.is_some_and(|l| l >= g))
                            && ghi.is_none_or(|g| hi.is_some_and(|h| h <= g))
                    })
                    .flat_map(|(_, _, atoms)| atoms.iter().copied())
                {
                    let same = atoms
                        .iter()
                        .position(|a| a.terms == atom.terms && a.is_eq == atom.is_eq);
                    match same {
                        Some(j) if atom.is_eq => {
                            if atoms[j] != atom {
                                atoms.push(atom);
                            }
                        }
                        Some(j) => {
                            if atom.constant < atoms[j].constant {
                                atoms[j] = atom;
                            }
                        }
                        None => atoms.push(atom),
                    }
                }
                match intervals.last_mut() {
                    Some((last_hi, last)) if *last == atoms => *last_hi = hi,
                    _ => intervals.push((hi, atoms)),
                }
            }
            let k = self.block_of_piece(*current);
            let base = self.pieces[k].name.clone();
            let n = self.layout[k].len();
            let join = self.new_piece(k, format!("{base}.case{n}.join"));
            let mut at = *current;
            for (i, (hi, atoms)) in intervals.into_iter().enumerate() {
                let inside = match hi {
                    None => at,
                    Some(h) => {
                        let test = Atom::param_le(p, h);
                        // An unknown argument: no case can be told apart.
                        let Some(cond) = self.atom_cond(at, &test, args, &[], loc) else {
                            break;
                        };
                        let then = self.new_piece(k, format!("{base}.case{n}.{i}"));
                        let next = self.new_piece(k, format!("{base}.case{n}.not{i}"));
                        let term = Terminator::Branch {
                            cond,
                            then_edge: Edge {
                                target: BlockId(then as u32),
                                moves: vec![],
                            },
                            else_edge: Edge {
                                target: BlockId(next as u32),
                                moves: vec![],
                            },
                        };
                        self.pieces[at].term = Some((term, loc.clone()));
                        at = next;
                        then
                    }
                };
                for atom in atoms {
                    if let Some(cond) = self.atom_cond(inside, atom, args, results, loc) {
                        self.push(inside, Inst::Assume { cond }, loc.clone());
                    }
                }
                if inside != at {
                    self.jump_to(inside, join, loc);
                }
            }
            self.jump_to(at, join, loc);
            *current = join;
        }
    }

    /// Certify mode, at a call of `callee`: each atom of its context, a check of its own.
    fn check_context(
        &mut self,
        current: &mut usize,
        callee: &str,
        contract: &Contract,
        args: &[Option<Operand>],
        loc: &Option<SourceLoc>,
    ) {
        // A specialized copy covers only some executions: its calls prove no context.
        if self.specialize.is_some() {
            return;
        }
        for (idx, atom) in contract.context.iter().enumerate() {
            let cond = self
                .atom_cond(*current, atom, args, &[], loc)
                .unwrap_or(Operand::Undef(Ty::BOOL));
            let check = self.contract_check(Obligation::Context {
                function: callee.to_string(),
                atom: idx,
            });
            self.independent_check(current, cond, check, loc);
        }
    }

    /// A return of an integer, lifted with [`LiftOptions::probe_returns`]: `current` jumps
    /// to the probe site with the returned value and what the out-parameters point to (the
    /// site made on the first return, in the layout of LLVM block `k`). False when the
    /// return gives no integer (it stays a return).
    fn jump_to_return_probe(
        &mut self,
        k: usize,
        current: usize,
        ret: LLVMValueRef,
        loc: &Option<SourceLoc>,
    ) -> bool {
        if raw::num_operands(ret) != 1 {
            return false;
        }
        let returned = raw::operand(ret, 0);
        let Some(width) = raw::int_width(raw::type_of(returned)).filter(|w| (1..=64).contains(w))
        else {
            return false;
        };
        let Some(value) = self.operand(returned, loc) else {
            return false;
        };
        if self.return_probe.is_none() {
            self.return_probe = Some(self.new_return_probe(k, width));
        }
        let (piece, probe) = self.return_probe.clone().expect("made above");
        // Each out-parameter read as the return leaves it: the memory model gives a value
        // the bytes there may hold on this path.
        let mut moves = vec![(probe.value, value)];
        let params = raw::params(self.func);
        for &(i, bits, site_value) in &probe.outs {
            let read = self.synthetic_value(Ty::int(bits), "out");
            let inst = match self.address(params[i]) {
                Some(addr) => Inst::Mem(MemOp::Load { dest: read, addr }),
                None => Inst::Havoc {
                    dest: read,
                    reason: HavocReason::Load,
                },
            };
            self.push(current, inst, None);
            moves.push((site_value, Operand::Value(read)));
        }
        let term = Terminator::Jump(Edge {
            target: BlockId(piece as u32),
            moves,
        });
        self.pieces[current].term = Some((term, loc.clone()));
        true
    }

    /// The probe site for the returns of a `width`-bit integer: its piece, and what it
    /// keeps live (see [`ReturnProbe`]).
    fn new_return_probe(&mut self, k: usize, width: u32) -> (usize, ReturnProbe) {
        let piece = self.new_piece(k, "return.probe".into());
        let probe_value = self.synthetic_value(Ty::int(width), "returned");
        let params: Vec<(usize, ValueId)> = raw::params(self.func)
            .into_iter()
            .enumerate()
            .filter(|(_, p)| {
                raw::int_width(raw::type_of(*p)).is_some_and(|w| (1..=64).contains(&w))
            })
            .filter_map(|(i, p)| Some((i, *self.value_of.get(&p)?)))
            .collect();
        // What the out-parameters point to, read by each return before it jumps and moved
        // into these values of the site.
        let mut outs = Vec::new();
        for (i, param, bits) in out_parameters(self.func) {
            if self.address(param).is_some() {
                outs.push((i, bits, self.synthetic_value(Ty::int(bits), "out")));
            }
        }
        // Copies keep the values live at the site, where the analysis reads them; named,
        // so that the passes keep them (and what they read), in this order.
        let copied = (params.iter().map(|(_, v)| *v))
            .chain(outs.iter().map(|(_, _, v)| *v))
            .chain([probe_value]);
        for v in copied.collect::<Vec<_>>() {
            let ty = self.values[v.index()].ty;
            self.n_synthetic += 1;
            let name = format!("{PROBE_COPY}{}", self.n_synthetic);
            let copy = self.new_value(ty, name, Some("returned".into()));
            self.defined[copy.index()] = true;
            self.push(
                piece,
                Inst::Assign {
                    dest: copy,
                    expr: Expr::Use(Operand::Value(v)),
                },
                None,
            );
        }
        let check = self.new_check(
            CheckKind::ErrorCall {
                function: "polyfocus.returns".into(),
            },
            None,
        );
        self.pieces[piece].term = Some((Terminator::Error(check), None));
        let probe = ReturnProbe {
            check,
            value: probe_value,
            params,
            outs,
        };
        (piece, probe)
    }

    /// Certify mode, at a `ret`: each clause of the function's own summary, a check of its
    /// own (an unknown guard counts as holding).
    fn check_own_summary(
        &mut self,
        current: &mut usize,
        ret: LLVMValueRef,
        loc: &Option<SourceLoc>,
    ) {
        let Some(contract) = self.contracts.get(&self.name).cloned() else {
            return;
        };
        if contract.summary.is_empty() {
            return;
        }
        let value = if raw::num_operands(ret) == 1 {
            self.operand(raw::operand(ret, 0), loc)
        } else {
            None
        };
        let returned: Vec<(Slot, Operand)> = value.map(|v| (Slot::Ret, v)).into_iter().collect();
        let params: Vec<Option<Operand>> = raw::params(self.func)
            .into_iter()
            .map(|p| self.value_of.get(&p).map(|v| Operand::Value(*v)))
            .collect();
        for (idx, clause) in contract.summary.iter().enumerate() {
            // Each clause is checked by exactly one lifting: the copy specialized to its
            // guard, or the function itself (see `LiftOptions::specialize`).
            if contract::specialized_guard(clause) != self.specialize.as_ref() {
                continue;
            }
            let piece = *current;
            let guards: Vec<Operand> = clause
                .guard
                .iter()
                .filter_map(|g| self.atom_cond(piece, g, &params, &[], loc))
                .collect();
            let cond = self
                .atom_cond(piece, &clause.atom, &params, &returned, loc)
                .unwrap_or(Operand::Undef(Ty::BOOL));
            let check = self.contract_check(Obligation::Summary {
                function: self.name.clone(),
                clause: idx,
            });
            let mut guards = guards;
            guards.insert(0, Operand::Undef(Ty::BOOL));
            let mut inside = self.guarded(current, &guards, loc);
            let join = *current;
            self.split_on_check(&mut inside, cond, check, loc.clone(), loc, "summary");
            self.jump_to(inside, join, loc);
        }
    }

    /// A check of `cond` that the code after it does not assume: a nondeterministic choice
    /// skips it (so that one candidate left open does not hide the others from the prover,
    /// and what is proved later never rests on a candidate of the same round at this place).
    fn independent_check(
        &mut self,
        current: &mut usize,
        cond: Operand,
        check: CheckId,
        loc: &Option<SourceLoc>,
    ) {
        let mut inside = self.guarded(current, &[Operand::Undef(Ty::BOOL)], loc);
        let join = *current;
        self.split_on_check(&mut inside, cond, check, loc.clone(), loc, "contract");
        self.jump_to(inside, join, loc);
    }

    /// A new check for a contract obligation (certify mode only; never reported).
    fn contract_check(&mut self, obligation: Obligation) -> CheckId {
        let check = self.new_check(
            CheckKind::ErrorCall {
                function: "polyfocus.contract".into(),
            },
            None,
        );
        self.obligations.push((check, obligation));
        check
    }

    /// Ends the current piece with a branch to the error site of `check` when `cond` is
    /// false; the rest of the block continues in the returned piece, now `current`.
    fn split_on_check(
        &mut self,
        current: &mut usize,
        cond: Operand,
        check: CheckId,
        check_loc: Option<SourceLoc>,
        loc: &Option<SourceLoc>,
        what: &str,
    ) -> usize {
        let piece = *current;
        let k = self
            .layout
            .iter()
            .position(|pieces| pieces.contains(&piece))
            .expect("piece in layout");
        let base = self.pieces[k].name.clone();
        let n = self.layout[k].len();
        let error_piece = self.new_piece(k, format!("{base}.{what}{n}.fail"));
        self.pieces[error_piece].term = Some((Terminator::Error(check), check_loc));
        let cont = self.new_piece(k, format!("{base}.{what}{n}.ok"));
        let term = Terminator::Branch {
            cond,
            then_edge: Edge {
                target: BlockId(cont as u32),
                moves: vec![],
            },
            else_edge: Edge {
                target: BlockId(error_piece as u32),
                moves: vec![],
            },
        };
        self.pieces[piece].term = Some((term, loc.clone()));
        *current = cont;
        cont
    }

    /// An error site at a call that may call the error function whose address escaped:
    /// reached whenever the call is, since the call may or may not call it.
    fn may_call_error_site(
        &mut self,
        current: &mut usize,
        inst: LLVMValueRef,
        loc: &Option<SourceLoc>,
    ) {
        let Some(function) = self.escaped_error.clone() else {
            return;
        };
        if !reach::may_call_escaped_error(inst) {
            return;
        }
        let check = self.new_check(CheckKind::MayCallError { function }, loc.clone());
        let cond = Operand::Undef(Ty::BOOL);
        self.split_on_check(current, cond, check, loc.clone(), loc, "maycall");
    }

    fn lift_intrinsic(
        &mut self,
        piece: usize,
        inst: LLVMValueRef,
        name: &str,
        loc: &Option<SourceLoc>,
    ) {
        if name.starts_with("llvm.dbg.") {
            return;
        }
        if name == "llvm.assume" {
            if let Some(cond) = self.operand(raw::operand(inst, 0), loc) {
                self.push(piece, Inst::Assume { cond }, loc.clone());
            }
            return;
        }
        if !self.value_of.contains_key(&inst) {
            return; // lifetime markers, memcpy, stacksave, ...: no integer effect
        }
        let minmax = [
            ("llvm.smin.", CmpPred::Slt),
            ("llvm.smax.", CmpPred::Sgt),
            ("llvm.umin.", CmpPred::Ult),
            ("llvm.umax.", CmpPred::Ugt),
        ];
        for (prefix, pred) in minmax {
            if name.starts_with(prefix) {
                let a = self.operand(raw::operand(inst, 0), loc);
                let b = self.operand(raw::operand(inst, 1), loc);
                if let (Some(a), Some(b)) = (a, b) {
                    let c = self.synthetic_value(Ty::BOOL, "minmax");
                    self.push(
                        piece,
                        Inst::Assign {
                            dest: c,
                            expr: Expr::Cmp {
                                pred,
                                lhs: a,
                                rhs: b,
                            },
                        },
                        loc.clone(),
                    );
                    let expr = Expr::Select {
                        cond: Operand::Value(c),
                        on_true: a,
                        on_false: b,
                    };
                    self.assign(piece, inst, expr, loc);
                    return;
                }
            }
        }
        if name.starts_with("llvm.abs.") {
            if let Some(a) = self.operand(raw::operand(inst, 0), loc) {
                let ty = self.values[self.value_of[&inst].index()].ty;
                let neg = self.synthetic_value(ty, "neg");
                let zero = Operand::Const(Const::new(ty, 0));
                let sub = Expr::Binary {
                    op: BinOp::Sub,
                    lhs: zero,
                    rhs: a,
                    flags: ArithFlags::default(),
                };
                self.push(
                    piece,
                    Inst::Assign {
                        dest: neg,
                        expr: sub,
                    },
                    loc.clone(),
                );
                let c = self.synthetic_value(Ty::BOOL, "isneg");
                self.push(
                    piece,
                    Inst::Assign {
                        dest: c,
                        expr: Expr::Cmp {
                            pred: CmpPred::Slt,
                            lhs: a,
                            rhs: zero,
                        },
                    },
                    loc.clone(),
                );
                let expr = Expr::Select {
                    cond: Operand::Value(c),
                    on_true: Operand::Value(neg),
                    on_false: a,
                };
                self.assign(piece, inst, expr, loc);
                return;
            }
        }
        if let Some(kind) = ["llvm.ctpop.", "llvm.ctlz.", "llvm.cttz."]
            .into_iter()
            .find(|prefix| name.starts_with(prefix))
        {
            self.bit_count(piece, inst, kind, loc);
            return;
        }
        if name.starts_with("llvm.expect.") {
            if let Some(a) = self.operand(raw::operand(inst, 0), loc) {
                self.assign(piece, inst, Expr::Use(a), loc);
                return;
            }
        }
        let family = name.split('.').take(2).collect::<Vec<_>>().join(".");
        self.warn(
            format!("intrinsic `{family}` over-approximated: result arbitrary"),
            loc.clone(),
        );
        self.havoc(piece, inst, HavocReason::Unsupported { what: family }, loc);
    }

    /// A count of bits of an `N`-bit value (`llvm.ctpop`, `llvm.ctlz`, `llvm.cttz`): the
    /// count of its operand ([`Expr::BitCount`]). A count of leading or trailing zeros
    /// whose second operand says that zero gives poison is that count for a nonzero
    /// operand and any value for zero (what the native instruction leaves in the register).
    fn bit_count(&mut self, piece: usize, inst: LLVMValueRef, kind: &str, loc: &Option<SourceLoc>) {
        let Some(&dest) = self.value_of.get(&inst) else {
            return;
        };
        let ty = self.values[dest.index()].ty;
        let family = kind.trim_end_matches('.');
        let count = BitCount::from_name(family.trim_start_matches("llvm."));
        let zero_is_poison = count != Some(BitCount::Ones)
            && raw::num_args(inst) >= 2
            && raw::const_int_bits(raw::operand(inst, 1)).is_none_or(|flag| flag != 0);
        let arg = self.operand(raw::operand(inst, 0), loc);
        let (Some(count), Some(arg)) = (count, arg) else {
            // An operand wider than 128 bits: its count's range, or any value when zero's
            // count is poison.
            let bits = i128::from(ty.width);
            let what = format!("the value of {family} beyond its range [0, {bits}]");
            self.havoc(piece, inst, HavocReason::Unsupported { what }, loc);
            if !zero_is_poison {
                self.assume_result_range(piece, inst, 0, bits, loc);
            }
            return;
        };
        if !zero_is_poison {
            self.assign(piece, inst, Expr::BitCount { count, arg }, loc);
            return;
        }
        let counted = self.synthetic_value(ty, "count");
        let expr = Expr::BitCount { count, arg };
        self.push(
            piece,
            Inst::Assign {
                dest: counted,
                expr,
            },
            loc.clone(),
        );
        let of_zero = self.synthetic_value(ty, "count.zero");
        let what = format!("the value of {family} of zero");
        let reason = HavocReason::Unsupported { what };
        self.push(
            piece,
            Inst::Havoc {
                dest: of_zero,
                reason,
            },
            loc.clone(),
        );
        let zero = Operand::Const(Const::new(ty, 0));
        let is_zero = self.compare(piece, CmpPred::Eq, arg, zero, loc);
        let expr = Expr::Select {
            cond: is_zero,
            on_true: Operand::Value(of_zero),
            on_false: Operand::Value(counted),
        };
        self.assign(piece, inst, expr, loc);
    }

    /// The edge from LLVM block `from` to `to`, with the moves of `to`'s integer phis.
    fn edge(
        &mut self,
        from: LLVMBasicBlockRef,
        to: LLVMBasicBlockRef,
        loc: &Option<SourceLoc>,
    ) -> Edge {
        let target = self.block_index.get(&to).copied().unwrap_or(0);
        let mut moves = Vec::new();
        for inst in raw::instructions(to) {
            if raw::opcode(inst) != LLVMOpcode::LLVMPHI {
                break;
            }
            if let Some(offset_move) = self.merge_move(inst, from) {
                moves.push(offset_move);
                continue;
            }
            let Some(&dest) = self.value_of.get(&inst) else {
                continue;
            };
            let ty = self.values[dest.index()].ty;
            let incoming = raw::incomings(inst)
                .into_iter()
                .find(|(_, b)| *b == from)
                .map(|(v, _)| v);
            let src = match incoming {
                Some(v) => self.operand(v, loc).unwrap_or(Operand::Undef(ty)),
                None => Operand::Undef(ty),
            };
            moves.push((dest, src));
        }
        Edge {
            target: BlockId(target as u32),
            moves,
        }
    }

    fn lift_terminator(
        &mut self,
        k: usize,
        inst: LLVMValueRef,
        loc: &Option<SourceLoc>,
    ) -> Terminator {
        use LLVMOpcode::*;
        let from = self.llvm_blocks[k];
        match raw::opcode(inst) {
            LLVMRet => Terminator::Return,
            LLVMUnreachable => Terminator::Stop,
            LLVMBr => {
                if raw::num_operands(inst) == 1 {
                    let to = raw::successor(inst, 0);
                    Terminator::Jump(self.edge(from, to, loc))
                } else {
                    let (cond, negated) = bool_source(unsafe { LLVMGetCondition(inst) });
                    let cond = self.operand(cond, loc).unwrap_or(Operand::Undef(Ty::BOOL));
                    let mut then_edge = self.edge(from, raw::successor(inst, 0), loc);
                    let mut else_edge = self.edge(from, raw::successor(inst, 1), loc);
                    if negated {
                        std::mem::swap(&mut then_edge, &mut else_edge);
                    }
                    Terminator::Branch {
                        cond,
                        then_edge,
                        else_edge,
                    }
                }
            }
            LLVMSwitch => {
                let on = self.operand(raw::operand(inst, 0), loc);
                let n_ops = raw::num_operands(inst);
                let mut cases = Vec::new();
                let mut ok = on.is_some();
                let mut seen = HashSet::new();
                for i in 1..n_ops / 2 {
                    let value = raw::operand(inst, 2 * i);
                    let dest = raw::value_as_block(raw::operand(inst, 2 * i + 1));
                    match self.operand(value, loc) {
                        Some(Operand::Const(c)) => {
                            if seen.insert(c.bits) {
                                let edge = self.edge(from, dest, loc);
                                cases.push((c, edge));
                            }
                        }
                        _ => ok = false,
                    }
                }
                if ok {
                    let default = self.edge(from, unsafe { LLVMGetSwitchDefaultDest(inst) }, loc);
                    Terminator::Switch {
                        on: on.expect("checked"),
                        cases,
                        default,
                    }
                } else {
                    self.warn(
                        "switch on a wide integer: any case may be taken".into(),
                        loc.clone(),
                    );
                    self.nondet_successors(k, inst, loc)
                }
            }
            other => {
                self.warn(
                    format!(
                        "unsupported terminator `{}`: any successor may be taken",
                        opcode_name(other)
                    ),
                    loc.clone(),
                );
                self.nondet_successors(k, inst, loc)
            }
        }
    }

    /// A nondeterministic choice between the successors of `inst`.
    fn nondet_successors(
        &mut self,
        k: usize,
        inst: LLVMValueRef,
        loc: &Option<SourceLoc>,
    ) -> Terminator {
        let from = self.llvm_blocks[k];
        let n = raw::num_successors(inst);
        let mut edges: Vec<Edge> = (0..n)
            .map(|i| self.edge(from, raw::successor(inst, i), loc))
            .collect();
        match edges.len() {
            0 => Terminator::Stop,
            1 => Terminator::Jump(edges.pop().expect("one edge")),
            _ => {
                // The choice is a value the analysis does not model (not an uninitialized
                // read: an execution taking any successor is defined behaviour).
                let ty = Ty::int(32);
                let choice = self.synthetic_value(ty, "choice");
                let what = opcode_name(raw::opcode(inst));
                let piece = *self.layout[k].last().expect("a block has a piece");
                self.push(
                    piece,
                    Inst::Havoc {
                        dest: choice,
                        reason: HavocReason::Unsupported { what },
                    },
                    loc.clone(),
                );
                let default = edges.pop().expect("edges");
                let cases = edges
                    .into_iter()
                    .enumerate()
                    .map(|(i, e)| (Const::new(ty, i as i128), e))
                    .collect();
                Terminator::Switch {
                    on: Operand::Value(choice),
                    cases,
                    default,
                }
            }
        }
    }

    fn finish(self) -> Lifted {
        let leak_coverage = self.leak_coverage();
        // Final block ids: the pieces of each LLVM block, in LLVM's block order.
        let mut final_id = vec![0u32; self.pieces.len()];
        let mut order = Vec::new();
        for pieces in &self.layout {
            for &p in pieces {
                final_id[p] = order.len() as u32;
                order.push(p);
            }
        }
        let mut pieces: Vec<Option<Piece>> = self.pieces.into_iter().map(Some).collect();
        let mut blocks = Vec::with_capacity(order.len());
        for p in order {
            let piece = pieces[p].take().expect("each piece once");
            let (mut term, term_loc) = piece.term.unwrap_or((Terminator::Stop, None));
            remap(&mut term, &final_id);
            blocks.push(Block {
                name: piece.name,
                insts: piece.insts,
                locs: piece.locs,
                term,
                term_loc,
            });
        }
        let function = Function {
            name: self.name.clone(),
            params: self.params,
            values: self.values,
            blocks,
            entry: BlockId(0),
            loc: debuginfo::function_location(self.func),
            bases: self.memory.bases,
        };
        Lifted {
            function,
            checks: self.checks,
            warnings: self.warnings,
            obligations: self.obligations,
            leak_coverage,
            return_probe: self.return_probe.map(|(_, probe)| probe),
        }
    }
}

/// Looks through `icmp ne (zext i1 %c), 0`, `icmp eq (zext i1 %c), 0` and `xor i1 %c, true`
/// (the way C's `int` truth values come back to `i1`): returns the underlying `i1` and
/// whether it is negated. Used for branch conditions, so that guards are the comparisons
/// of the source rather than copies of them.
fn bool_source(mut cond: LLVMValueRef) -> (LLVMValueRef, bool) {
    let mut negated = false;
    for _ in 0..16 {
        if cond.is_null() || !raw::is_instruction(cond) {
            break;
        }
        match raw::opcode(cond) {
            LLVMOpcode::LLVMICmp => {
                let pred = unsafe { LLVMGetICmpPredicate(cond) };
                let (lhs, rhs) = (raw::operand(cond, 0), raw::operand(cond, 1));
                let is_zero = raw::const_int_bits(rhs) == Some(0);
                let widened = raw::is_instruction(lhs)
                    && matches!(
                        raw::opcode(lhs),
                        LLVMOpcode::LLVMZExt | LLVMOpcode::LLVMSExt
                    )
                    && raw::int_width(raw::type_of(raw::operand(lhs, 0))) == Some(1);
                if !is_zero || !widened {
                    break;
                }
                match pred {
                    LLVMIntPredicate::LLVMIntNE => {}
                    LLVMIntPredicate::LLVMIntEQ => negated = !negated,
                    _ => break,
                }
                cond = raw::operand(lhs, 0);
            }
            LLVMOpcode::LLVMXor => {
                let (lhs, rhs) = (raw::operand(cond, 0), raw::operand(cond, 1));
                if raw::int_width(raw::type_of(cond)) != Some(1)
                    || raw::const_int_bits(rhs) != Some(1)
                {
                    break;
                }
                negated = !negated;
                cond = lhs;
            }
            _ => break,
        }
    }
    (cond, negated)
}

fn remap(term: &mut Terminator, final_id: &[u32]) {
    let fix = |e: &mut Edge| e.target = BlockId(final_id[e.target.index()]);
    match term {
        Terminator::Jump(e) => fix(e),
        Terminator::Branch {
            then_edge,
            else_edge,
            ..
        } => {
            fix(then_edge);
            fix(else_edge);
        }
        Terminator::Switch { cases, default, .. } => {
            for (_, e) in cases.iter_mut() {
                fix(e);
            }
            fix(default);
        }
        Terminator::Return | Terminator::Stop | Terminator::Error(_) => {}
    }
}

/// The out-parameters of `func`: each pointer parameter that the function stores integers
/// of one width (1 to 64 bits) to at the address it holds (`*p = x`, no offset), with its
/// position and the width. A parameter stored to with two widths is none.
fn out_parameters(func: LLVMValueRef) -> Vec<(usize, LLVMValueRef, u32)> {
    let params = raw::params(func);
    let mut widths: Vec<Option<Option<u32>>> = vec![None; params.len()];
    for block in raw::blocks(func) {
        for inst in raw::instructions(block) {
            if raw::opcode(inst) != LLVMOpcode::LLVMStore {
                continue;
            }
            let target = memory::strip_casts(raw::operand(inst, 1));
            let Some(i) = params.iter().position(|p| *p == target) else {
                continue;
            };
            let bits = raw::int_width(raw::type_of(raw::operand(inst, 0)))
                .filter(|w| (1..=64).contains(w));
            widths[i] = match widths[i] {
                None => Some(bits),
                Some(seen) if seen == bits => Some(seen),
                Some(_) => Some(None),
            };
        }
    }
    (params.into_iter().zip(widths).enumerate())
        .filter_map(|(i, (p, w))| Some((i, p, w.flatten()?)))
        .collect()
}
