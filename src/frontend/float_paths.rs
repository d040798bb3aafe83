//! Bit-precise path enumeration of functions that compute with floats (issue 15).
//!
//! The IR (`crate::ir`) has integers only: a float or double is an arbitrary value there,
//! so no engine can prove an assertion that rests on float arithmetic. This module runs an
//! entry function of the normalized LLVM code symbolically, one path at a time, with every
//! value a Z3 term: integers as bit-vectors of their width, `float` and `double` in Z3's
//! floating-point theory (IEEE 754 binary32 and binary64, rounding to nearest even,
//! subnormals, signed zeros, infinities and NaN), whose operations are exactly what SSE
//! computes. Each term is simplified as it is built, so code without inputs is evaluated on
//! numerals (a loop of 100 iterations over constants costs 100 iterations, never a
//! formula); a branch whose condition is not a numeral asks the solver which sides the
//! path condition allows, and the path forks.
//!
//! It proves only this: *no execution of the function reaches this error site* (a call of
//! an error function, or of an assertion function with a failing condition), for each
//! error site of the entry function no path reaches, when every path was followed to its end (a return
//! of the entry, `exit`/`abort`, `unreachable`, an assumption that fails, a branch side the
//! solver proves infeasible, or an error site: as in the lifted function, an execution
//! ends at the first error site it reaches) within the budgets of steps, paths and call
//! depth. An error site of a callee that a path may reach makes it give up. Anything
//! it does not model exactly makes it give up (no verdict, the assertions go on to the
//! analysis as before): a pointer it cannot name (only `alloca`s and globals, read and
//! written whole at offset 0 with one type, whose address is never stored, passed or
//! computed on), calls of code without a body other than the convention functions, `frem`
//! (C's `fmod`, not IEEE's remainder), bit casts between floats and integers (NaN payloads),
//! `x86_fp80`, fast-math flags, shifts, divisions and float-to-integer conversions that may
//! be undefined, and a solver `unknown` (never evidence). What it over-approximates: an
//! uninitialized cell or a global read before the function writes it is a fresh value
//! (every value of its type), wrapping arithmetic includes the executions C leaves
//! undefined (the analysis drops them), and `llvm.fmuladd` is evaluated as a product then a
//! sum: the targets polyfocus compiles for (x86-64, and i386 with `-msse2 -mfpmath=sse`,
//! see `compile::target_and_user_flags`) have no fused multiply-add, so the backend
//! expands it that way. A program whose flags choose another floating-point unit or
//! contraction (`-mfpmath`, `-march`, `-mfma`, `-ffast-math`, `-ffp-contract`, ...) is
//! not handled.
//!
//! The budgets are counts (steps, paths, depth), so whether a path ends does not depend on
//! the load; a solver query that has not answered by its deadline gives up, which can
//! only cost a proof.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode, LLVMRealPredicate, LLVMTypeKind};
use z3::ast::{Ast, Bool, Float, BV};
use z3::{SatResult, Solver};

use super::conventions::{self, Role};
use super::raw;

/// Instructions run over all paths, at most. This and the two limits below bound the
/// exploration by counts, not time, so that what it proves does not depend on the load;
/// past any of them it gives up and proves nothing.
const MAX_STEPS: u64 = 400_000;
/// Paths followed to their end, at most.
const MAX_PATHS: usize = 64;
/// Nested calls of defined functions, at most.
const MAX_DEPTH: usize = 48;
/// The longest solver query (a safety net: giving up costs a proof, never makes one).
const QUERY_TIME: Duration = Duration::from_secs(5);
/// The whole enumeration of one function, at most (a safety net, too).
const TOTAL_TIME: Duration = Duration::from_secs(8);

/// Whether `func` computes with floats: some instruction has a `float` or `double` value or
/// operand. The enumeration runs on these only (the engines handle integer code better).
pub fn computes_with_floats(func: LLVMValueRef) -> bool {
    raw::blocks(func).into_iter().any(|b| {
        raw::instructions(b).into_iter().any(|i| {
            is_float_type(raw::type_of(i))
                || (0..raw::num_operands(i)).any(|k| {
                    let o = raw::operand(i, k);
                    !o.is_null() && is_float_type(raw::type_of(o))
                })
        })
    })
}

/// Whether the user's flags keep the floating-point model this module assumes (SSE, no
/// contraction into fused operations, no fast-math).
pub fn flags_allow(cflags: &[String]) -> bool {
    !cflags.iter().any(|f| {
        [
            "-mfpmath",
            "-march",
            "-mfma",
            "-mavx",
            "-ffast-math",
            "-ffp-contract",
            "-ffp-model",
            "-funsafe-math",
            "-ffinite-math",
            "-mno-sse",
            "-mx87",
            "-mtune",
            "-mcpu",
            "-ffp-eval-method",
        ]
        .iter()
        .any(|p| f.starts_with(p))
    })
}

fn is_float_type(ty: LLVMTypeRef) -> bool {
    matches!(
        unsafe { LLVMGetTypeKind(ty) },
        LLVMTypeKind::LLVMFloatTypeKind
            | LLVMTypeKind::LLVMDoubleTypeKind
            | LLVMTypeKind::LLVMX86_FP80TypeKind
            | LLVMTypeKind::LLVMFP128TypeKind
            | LLVMTypeKind::LLVMHalfTypeKind
            | LLVMTypeKind::LLVMBFloatTypeKind
            | LLVMTypeKind::LLVMPPC_FP128TypeKind
    )
}

/// The answer of [`prove_no_error`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Every path was followed to its end; the error sites of the entry function some path
    /// reaches (the others, none does).
    Explored {
        /// The calls of error or assertion functions a path reaches with a failing
        /// condition.
        reached: Vec<LLVMValueRef>,
        /// Paths followed.
        paths: usize,
        /// Instructions run.
        steps: u64,
    },
    /// No verdict, and why.
    GaveUp(String),
}

/// Runs `func` on every input (see the module docs): its parameters and every global it
/// reads before writing are arbitrary values (constant globals hold their initializers).
pub fn explore(func: LLVMValueRef) -> Outcome {
    let mut run = Run {
        steps: 0,
        reached: vec![],
        globals: HashMap::new(),
        started: Instant::now(),
    };
    match run.explore(func) {
        Ok(paths) => Outcome::Explored {
            reached: run.reached,
            paths,
            steps: run.steps,
        },
        Err(why) => Outcome::GaveUp(why),
    }
}

type Fail<T> = Result<T, String>;

fn give_up<T>(why: impl Into<String>) -> Fail<T> {
    Err(why.into())
}

/// A value: integers (and `i1`) as bit-vectors, floats, or a pointer to an object.
#[derive(Clone, Debug)]
enum Val {
    Bits(BV),
    Fp(Float),
    Ptr(usize),
}

/// One activation.
#[derive(Clone)]
struct Frame {
    func: LLVMValueRef,
    insts: Vec<LLVMValueRef>,
    next: usize,
    block: LLVMBasicBlockRef,
    values: HashMap<LLVMValueRef, Val>,
    /// The call instruction of the caller that receives the returned value.
    ret_to: Option<LLVMValueRef>,
}

/// One path in progress.
#[derive(Clone)]
struct State {
    frames: Vec<Frame>,
    /// Object → (the type last stored, the value).
    memory: HashMap<usize, (LLVMTypeRef, Val)>,
    /// The path condition.
    pc: Vec<Bool>,
    next_object: usize,
}

/// What one instruction did to its path.
enum Step {
    Go,
    /// The path forked: the other sides, to follow later.
    Fork(Vec<State>),
    /// The path ended without an error.
    End,
}

struct Run {
    steps: u64,
    /// The error sites (calls in the entry function) some path reaches.
    reached: Vec<LLVMValueRef>,
    /// Objects of the globals (ids below `FIRST_LOCAL`).
    globals: HashMap<LLVMValueRef, usize>,
    started: Instant,
}

const FIRST_LOCAL: usize = 1 << 40;

impl Run {
    fn explore(&mut self, func: LLVMValueRef) -> Fail<usize> {
        // A function of the module that may run out of line (a constructor, a handler, a
        // thread) may write globals between two instructions, and before `main` (whose
        // first stores are the initializers, `normalize::store_initial_values`).
        let module = unsafe { LLVMGetGlobalParent(func) };
        if raw::functions(module)
            .into_iter()
            .any(|f| raw::is_defined(f) && super::reach::escapes(f))
        {
            return give_up("a function of the module may run out of line");
        }
        let mut values = HashMap::new();
        for p in raw::params(func) {
            let v = fresh(raw::type_of(p))?;
            values.insert(p, v);
        }
        let entry = *raw::blocks(func).first().ok_or("no body")?;
        let first = State {
            frames: vec![Frame {
                func,
                insts: raw::instructions(entry),
                next: 0,
                block: entry,
                values,
                ret_to: None,
            }],
            memory: HashMap::new(),
            pc: vec![],
            next_object: FIRST_LOCAL,
        };
        let mut pending = vec![first];
        let mut paths = 0usize;
        while let Some(mut state) = pending.pop() {
            loop {
                if self.steps >= MAX_STEPS {
                    return give_up(format!("{MAX_STEPS} steps"));
                }
                if self.started.elapsed() >= TOTAL_TIME {
                    return give_up("time (safety net)");
                }
                self.steps += 1;
                match self.step(&mut state)? {
                    Step::Go => {}
                    Step::Fork(others) => {
                        if pending.len() + others.len() + paths >= MAX_PATHS {
                            return give_up(format!("{MAX_PATHS} paths"));
                        }
                        pending.extend(others);
                    }
                    Step::End => break,
                }
            }
            paths += 1;
            if paths > MAX_PATHS {
                return give_up(format!("{MAX_PATHS} paths"));
            }
        }
        Ok(paths)
    }

    /// Whether the path condition with `extra` has a solution; `unknown` gives up.
    fn feasible(&self, pc: &[Bool], extra: Option<&Bool>) -> Fail<bool> {
        if let Some(e) = extra {
            if let Some(b) = e.simplify().as_bool() {
                if !b {
                    return Ok(false);
                }
            }
        }
        let solver = Solver::new();
        for c in pc {
            solver.assert(c);
        }
        let assumptions: Vec<Bool> = extra.into_iter().cloned().collect();
        let deadline = (Instant::now() + QUERY_TIME).min(self.started + TOTAL_TIME);
        // No solver check of the front end answers `unknown` on purpose: the faults are
        // injected into the analysis's checks (`params::FaultParams`).
        let none = crate::context::InjectedUnknowns::every(0);
        match crate::smt::check_until(&solver, &assumptions, deadline, &none) {
            SatResult::Sat => Ok(true),
            SatResult::Unsat => Ok(false),
            SatResult::Unknown => give_up("solver unknown"),
        }
    }

    /// Follows the sides `(condition, successor)` of a branch from `state` that the path
    /// condition allows; a second one becomes a fork.
    fn branch(&mut self, state: &mut State, sides: Vec<(Bool, LLVMBasicBlockRef)>) -> Fail<Step> {
        let mut feasible = Vec::new();
        for (c, to) in sides {
            let c = c.simplify();
            match c.as_bool() {
                Some(true) => {
                    feasible = vec![(None, to)];
                    break;
                }
                Some(false) => continue,
                None => {
                    if self.feasible(&state.pc, Some(&c))? {
                        feasible.push((Some(c), to));
                    }
                }
            }
        }
        let mut feasible = feasible.into_iter();
        let Some((c, to)) = feasible.next() else {
            return Ok(Step::End);
        };
        // Each other feasible side is followed from a copy (the sides' conditions exclude
        // each other: a switch's cases are distinct values, its default none of them).
        let mut forks = Vec::new();
        for (oc, oto) in feasible {
            let mut other = state.clone();
            if let Some(oc) = oc {
                other.pc.push(oc);
            }
            self.enter(&mut other, oto)?;
            forks.push(other);
        }
        if let Some(c) = c {
            state.pc.push(c);
        }
        self.enter(state, to)?;
        Ok(if forks.is_empty() {
            Step::Go
        } else {
            Step::Fork(forks)
        })
    }

    /// Moves the current frame of `state` into `to`: its phis read their operands in
    /// parallel, from the block left.
    fn enter(&mut self, state: &mut State, to: LLVMBasicBlockRef) -> Fail<()> {
        let from = state.frames.last().expect("a frame").block;
        let insts = raw::instructions(to);
        let mut read = Vec::new();
        let mut first = 0;
        for &inst in &insts {
            if raw::opcode(inst) != LLVMOpcode::LLVMPHI {
                break;
            }
            first += 1;
            let (v, _) = raw::incomings(inst)
                .into_iter()
                .find(|(_, b)| *b == from)
                .ok_or("phi without the incoming block")?;
            match self.value(state, v)? {
                Val::Ptr(_) => return give_up("a phi of pointers"),
                x => read.push((inst, x)),
            }
        }
        let frame = state.frames.last_mut().expect("a frame");
        frame.values.extend(read);
        frame.block = to;
        frame.insts = insts;
        frame.next = first;
        Ok(())
    }

    /// Records that a path reaches the error site `inst` (a call in the entry function; one
    /// in a callee gives up, its assertion belongs to the callee's own analysis).
    fn reach(&mut self, state: &State, inst: LLVMValueRef) -> Fail<()> {
        if state.frames.len() > 1 {
            return give_up("an error site of a callee is reachable");
        }
        if !self.reached.contains(&inst) {
            self.reached.push(inst);
        }
        Ok(())
    }

    fn global(&mut self, g: LLVMValueRef) -> usize {
        let n = self.globals.len();
        *self.globals.entry(g).or_insert(n)
    }

    /// The value of an operand in the current frame.
    fn value(&mut self, state: &State, v: LLVMValueRef) -> Fail<Val> {
        let frame = state.frames.last().expect("a frame");
        if let Some(x) = frame.values.get(&v) {
            return Ok(x.clone());
        }
        self.constant_value(v)
    }

    /// The value of a constant operand (a global's address, a number, `undef`).
    fn constant_value(&mut self, v: LLVMValueRef) -> Fail<Val> {
        let ty = raw::type_of(v);
        unsafe {
            if !LLVMIsAGlobalVariable(v).is_null() {
                return Ok(Val::Ptr(self.global(v)));
            }
            if raw::is_undef(v) || !LLVMIsAPoisonValue(v).is_null() {
                return fresh(ty);
            }
            if !LLVMIsAConstantInt(v).is_null() {
                let w = raw::int_width(ty).ok_or("integer type")?;
                if w > 64 {
                    return give_up("integer wider than 64 bits");
                }
                let bits = raw::const_int_bits(v).ok_or("integer constant")?;
                return Ok(Val::Bits(BV::from_u64(bits, w)));
            }
            if !LLVMIsAConstantFP(v).is_null() {
                let mut lossy = 0;
                let d = LLVMConstRealGetDouble(v, &mut lossy);
                if lossy != 0 {
                    return give_up("float constant");
                }
                return match LLVMGetTypeKind(ty) {
                    LLVMTypeKind::LLVMFloatTypeKind => Ok(Val::Fp(Float::from_f32(d as f32))),
                    LLVMTypeKind::LLVMDoubleTypeKind => Ok(Val::Fp(Float::from_f64(d))),
                    _ => give_up("float type"),
                };
            }
        }
        give_up("an operand that is not modeled")
    }

    fn bits(&mut self, state: &State, v: LLVMValueRef) -> Fail<BV> {
        match self.value(state, v)? {
            Val::Bits(b) => Ok(b),
            _ => give_up("not an integer"),
        }
    }

    fn fp(&mut self, state: &State, v: LLVMValueRef) -> Fail<Float> {
        match self.value(state, v)? {
            Val::Fp(f) => Ok(f),
            _ => give_up("not a float"),
        }
    }

    /// A bit-vector that must simplify to a numeral.
    fn constant(&mut self, state: &State, v: LLVMValueRef) -> Fail<u64> {
        self.bits(state, v)?
            .simplify()
            .as_u64()
            .ok_or_else(|| "not a constant".to_string())
    }

    fn step(&mut self, state: &mut State) -> Fail<Step> {
        let (inst, func) = {
            let f = state.frames.last_mut().expect("a frame");
            let Some(&inst) = f.insts.get(f.next) else {
                return give_up("block without terminator");
            };
            f.next += 1;
            (inst, f.func)
        };
        let _ = func;
        let ty = raw::type_of(inst);
        use LLVMOpcode::*;
        let op = raw::opcode(inst);
        unsafe {
            if LLVMCanValueUseFastMathFlags(inst) != 0 && LLVMGetFastMathFlags(inst) != 0 {
                return give_up("fast-math flags");
            }
        }
        let res: Val = match op {
            LLVMPHI => return give_up("phi inside a block"),
            LLVMRet => {
                let returned = if raw::num_operands(inst) == 1 {
                    Some(self.value(state, raw::operand(inst, 0))?)
                } else {
                    None
                };
                let done = state.frames.pop().expect("a frame");
                if state.frames.is_empty() {
                    return Ok(Step::End);
                }
                if let (Some(call), Some(v)) = (done.ret_to, returned) {
                    state
                        .frames
                        .last_mut()
                        .expect("caller")
                        .values
                        .insert(call, v);
                }
                return Ok(Step::Go);
            }
            LLVMUnreachable => return Ok(Step::End),
            LLVMBr => {
                if raw::num_operands(inst) == 1 {
                    self.enter(state, raw::successor(inst, 0))?;
                    return Ok(Step::Go);
                }
                let c = self.bits(state, unsafe { LLVMGetCondition(inst) })?;
                let c = c.eq(&BV::from_u64(1, 1));
                let sides = vec![
                    (c.clone(), raw::successor(inst, 0)),
                    (c.not(), raw::successor(inst, 1)),
                ];
                return self.branch(state, sides);
            }
            LLVMSwitch => {
                let on = self.bits(state, raw::operand(inst, 0))?;
                let mut sides = Vec::new();
                let mut none = Vec::new();
                for i in 1..raw::num_successors(inst) {
                    let case = self.bits(state, raw::operand(inst, 2 * i))?;
                    let c = on.eq(&case);
                    none.push(c.not());
                    sides.push((c, raw::successor(inst, i)));
                }
                let default = unsafe { LLVMGetSwitchDefaultDest(inst) };
                sides.push((Bool::and(&none), default));
                return self.branch(state, sides);
            }
            LLVMCall => return self.call(state, inst),
            LLVMAlloca => {
                let id = state.next_object;
                state.next_object += 1;
                Val::Ptr(id)
            }
            LLVMLoad => {
                if unsafe { LLVMGetVolatile(inst) } != 0 {
                    return give_up("volatile load");
                }
                let Val::Ptr(obj) = self.value(state, raw::operand(inst, 0))? else {
                    return give_up("load through a value that is not a pointer");
                };
                match state.memory.get(&obj) {
                    Some((stored, v)) if *stored == ty => v.clone(),
                    Some(_) => return give_up("load of another type than stored"),
                    None => self.initial(obj, ty)?,
                }
            }
            LLVMStore => {
                if unsafe { LLVMGetVolatile(inst) } != 0 {
                    return give_up("volatile store");
                }
                let stored = raw::operand(inst, 0);
                let v = self.value(state, stored)?;
                if matches!(v, Val::Ptr(_)) {
                    return give_up("a pointer stored: its object escapes");
                }
                let Val::Ptr(obj) = self.value(state, raw::operand(inst, 1))? else {
                    return give_up("store through a value that is not a pointer");
                };
                state.memory.insert(obj, (raw::type_of(stored), v));
                return Ok(Step::Go);
            }
            LLVMAdd | LLVMSub | LLVMMul | LLVMAnd | LLVMOr | LLVMXor => {
                let a = self.bits(state, raw::operand(inst, 0))?;
                let b = self.bits(state, raw::operand(inst, 1))?;
                Val::Bits(match op {
                    LLVMAdd => a.bvadd(&b),
                    LLVMSub => a.bvsub(&b),
                    LLVMMul => a.bvmul(&b),
                    LLVMAnd => a.bvand(&b),
                    LLVMOr => a.bvor(&b),
                    _ => a.bvxor(&b),
                })
            }
            LLVMShl | LLVMLShr | LLVMAShr => {
                let a = self.bits(state, raw::operand(inst, 0))?;
                let s = self.constant(state, raw::operand(inst, 1))?;
                let w = a.get_size();
                if s >= w as u64 {
                    return give_up("shift by the width or more");
                }
                let s = BV::from_u64(s, w);
                Val::Bits(match op {
                    LLVMShl => a.bvshl(&s),
                    LLVMLShr => a.bvlshr(&s),
                    _ => a.bvashr(&s),
                })
            }
            LLVMUDiv | LLVMSDiv | LLVMURem | LLVMSRem => {
                let a = self.bits(state, raw::operand(inst, 0))?;
                let d = self.constant(state, raw::operand(inst, 1))?;
                let w = a.get_size();
                let all_ones = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
                if d == 0 || (matches!(op, LLVMSDiv | LLVMSRem) && d == all_ones) {
                    return give_up("division that may be undefined");
                }
                let d = BV::from_u64(d, w);
                Val::Bits(match op {
                    LLVMUDiv => a.bvudiv(&d),
                    LLVMSDiv => a.bvsdiv(&d),
                    LLVMURem => a.bvurem(&d),
                    _ => a.bvsrem(&d),
                })
            }
            LLVMICmp => {
                let a = self.value(state, raw::operand(inst, 0))?;
                let b = self.value(state, raw::operand(inst, 1))?;
                let (Val::Bits(a), Val::Bits(b)) = (a, b) else {
                    return give_up("comparison of pointers");
                };
                use LLVMIntPredicate::*;
                let c = match unsafe { LLVMGetICmpPredicate(inst) } {
                    LLVMIntEQ => a.eq(&b),
                    LLVMIntNE => a.eq(&b).not(),
                    LLVMIntUGT => a.bvugt(&b),
                    LLVMIntUGE => a.bvuge(&b),
                    LLVMIntULT => a.bvult(&b),
                    LLVMIntULE => a.bvule(&b),
                    LLVMIntSGT => a.bvsgt(&b),
                    LLVMIntSGE => a.bvsge(&b),
                    LLVMIntSLT => a.bvslt(&b),
                    LLVMIntSLE => a.bvsle(&b),
                };
                Val::Bits(bit(&c))
            }
            LLVMFCmp => {
                let a = self.fp(state, raw::operand(inst, 0))?;
                let b = self.fp(state, raw::operand(inst, 1))?;
                let unordered = Bool::or(&[a.is_nan(), b.is_nan()]);
                use LLVMRealPredicate::*;
                let c = match unsafe { LLVMGetFCmpPredicate(inst) } {
                    LLVMRealPredicateFalse => Bool::from_bool(false),
                    LLVMRealPredicateTrue => Bool::from_bool(true),
                    LLVMRealOEQ => a.eq_fpa(&b),
                    LLVMRealOGT => a.gt(&b),
                    LLVMRealOGE => a.ge(&b),
                    LLVMRealOLT => a.lt(&b),
                    LLVMRealOLE => a.le(&b),
                    LLVMRealONE => Bool::and(&[unordered.not(), a.eq_fpa(&b).not()]),
                    LLVMRealORD => unordered.not(),
                    LLVMRealUNO => unordered,
                    LLVMRealUEQ => Bool::or(&[unordered.clone(), a.eq_fpa(&b)]),
                    LLVMRealUGT => Bool::or(&[unordered.clone(), a.gt(&b)]),
                    LLVMRealUGE => Bool::or(&[unordered.clone(), a.ge(&b)]),
                    LLVMRealULT => Bool::or(&[unordered.clone(), a.lt(&b)]),
                    LLVMRealULE => Bool::or(&[unordered.clone(), a.le(&b)]),
                    LLVMRealUNE => a.eq_fpa(&b).not(),
                };
                Val::Bits(bit(&c))
            }
            LLVMFAdd | LLVMFSub | LLVMFMul | LLVMFDiv => {
                let a = self.fp(state, raw::operand(inst, 0))?;
                let b = self.fp(state, raw::operand(inst, 1))?;
                let rne = z3::ast::RoundingMode::round_nearest_ties_to_even();
                Val::Fp(match op {
                    LLVMFAdd => a.add_with_rounding_mode(&b, &rne),
                    LLVMFSub => a.sub_with_rounding_mode(&b, &rne),
                    LLVMFMul => a.mul_with_rounding_mode(&b, &rne),
                    _ => a.div_with_rounding_mode(&b, &rne),
                })
            }
            LLVMFNeg => Val::Fp(self.fp(state, raw::operand(inst, 0))?.unary_neg()),
            LLVMTrunc | LLVMZExt | LLVMSExt => {
                let a = self.bits(state, raw::operand(inst, 0))?;
                let to = raw::int_width(ty).ok_or("integer type")?;
                let from = a.get_size();
                Val::Bits(match op {
                    LLVMTrunc => a.extract(to - 1, 0),
                    LLVMZExt => a.zero_ext(to - from),
                    _ => a.sign_ext(to - from),
                })
            }
            LLVMFPExt | LLVMFPTrunc => {
                let a = self.fp(state, raw::operand(inst, 0))?;
                let rne = z3::ast::RoundingMode::round_nearest_ties_to_even();
                Val::Fp(a.to_fp_with_rounding_mode(&rne, &float_sort(ty)?))
            }
            LLVMSIToFP | LLVMUIToFP => {
                let a = self.bits(state, raw::operand(inst, 0))?;
                Val::Fp(int_to_float(&a, op == LLVMSIToFP, &float_sort(ty)?))
            }
            LLVMFPToSI | LLVMFPToUI => {
                let a = self.fp(state, raw::operand(inst, 0))?;
                let w = raw::int_width(ty).ok_or("integer type")?;
                let signed = op == LLVMFPToSI;
                // Out of range (or NaN) the result is poison: give up unless the path
                // condition excludes it.
                let rtz = z3::ast::RoundingMode::round_towards_zero();
                let t = a.round_to_integral_with_rounding_mode(&rtz);
                let sort = a.get_sort();
                let bound = |x: f64| Float::from_f64(x).to_fp_with_rounding_mode(&rtz, &sort);
                let (lo, hi) = if signed {
                    (-(2f64.powi(w as i32 - 1)), 2f64.powi(w as i32 - 1))
                } else {
                    (0.0, 2f64.powi(w as i32))
                };
                let in_range = Bool::and(&[a.is_nan().not(), t.ge(&bound(lo)), t.lt(&bound(hi))]);
                if self.feasible(&state.pc, Some(&in_range.not()))? {
                    return give_up("float to integer conversion that may be out of range");
                }
                Val::Bits(if signed {
                    a.to_sbv_with_rounding_mode(&rtz, w)
                } else {
                    a.to_ubv_with_rounding_mode(&rtz, w)
                })
            }
            LLVMSelect => {
                let c = self.bits(state, raw::operand(inst, 0))?;
                let c = c.eq(&BV::from_u64(1, 1)).simplify();
                let a = self.value(state, raw::operand(inst, 1))?;
                let b = self.value(state, raw::operand(inst, 2))?;
                match (a, b) {
                    (Val::Bits(a), Val::Bits(b)) => Val::Bits(c.ite(&a, &b)),
                    (Val::Fp(a), Val::Fp(b)) => Val::Fp(c.ite(&a, &b)),
                    (a, b) => match c.as_bool() {
                        Some(true) => a,
                        Some(false) => b,
                        None => return give_up("select of pointers"),
                    },
                }
            }
            LLVMFreeze => self.value(state, raw::operand(inst, 0))?,
            _ => return give_up(format!("instruction {op:?}")),
        };
        let res = match res {
            Val::Bits(b) => Val::Bits(b.simplify()),
            Val::Fp(f) => Val::Fp(f.simplify()),
            p => p,
        };
        state
            .frames
            .last_mut()
            .expect("a frame")
            .values
            .insert(inst, res);
        Ok(Step::Go)
    }

    /// What an object holds before the path writes it: a constant global's initializer
    /// when it is a number of the loaded type, else every value of the type.
    fn initial(&mut self, obj: usize, ty: LLVMTypeRef) -> Fail<Val> {
        if obj < FIRST_LOCAL {
            let global = self
                .globals
                .iter()
                .find(|(_, id)| **id == obj)
                .map(|(g, _)| *g)
                .ok_or("global")?;
            unsafe {
                if LLVMIsGlobalConstant(global) != 0 && LLVMIsDeclaration(global) == 0 {
                    let init = LLVMGetInitializer(global);
                    if !init.is_null() && raw::type_of(init) == ty {
                        if let Ok(v @ (Val::Bits(_) | Val::Fp(_))) = self.constant_value(init) {
                            return Ok(v);
                        }
                    }
                }
            }
        }
        fresh(ty)
    }

    fn call(&mut self, state: &mut State, inst: LLVMValueRef) -> Fail<Step> {
        if raw::calls_inline_asm(inst) {
            return give_up("inline assembly");
        }
        let Some(callee) = raw::called_function(inst) else {
            return give_up("indirect call");
        };
        let name = raw::name(callee);
        if name.starts_with("llvm.dbg.") || name.starts_with("llvm.lifetime.") {
            return Ok(Step::Go);
        }
        let n = raw::num_args(inst);
        let result = |state: &mut State, v: Val| {
            let v = match v {
                Val::Bits(b) => Val::Bits(b.simplify()),
                Val::Fp(f) => Val::Fp(f.simplify()),
                p => p,
            };
            state
                .frames
                .last_mut()
                .expect("a frame")
                .values
                .insert(inst, v);
            Ok(Step::Go)
        };
        if name.starts_with("llvm.") {
            let rne = z3::ast::RoundingMode::round_nearest_ties_to_even();
            if name.starts_with("llvm.fmuladd.f32") || name.starts_with("llvm.fmuladd.f64") {
                let a = self.fp(state, raw::operand(inst, 0))?;
                let b = self.fp(state, raw::operand(inst, 1))?;
                let c = self.fp(state, raw::operand(inst, 2))?;
                let p = a.mul_with_rounding_mode(&b, &rne);
                return result(state, Val::Fp(p.add_with_rounding_mode(&c, &rne)));
            }
            if name.starts_with("llvm.fabs.f32") || name.starts_with("llvm.fabs.f64") {
                let a = self.fp(state, raw::operand(inst, 0))?;
                return result(state, Val::Fp(a.unary_abs()));
            }
            if name.starts_with("llvm.sqrt.f32") || name.starts_with("llvm.sqrt.f64") {
                let a = self.fp(state, raw::operand(inst, 0))?;
                return result(state, Val::Fp(a.sqrt_with_rounding_mode(&rne)));
            }
            return give_up(format!("intrinsic {name}"));
        }
        match conventions::role(&name, raw::is_defined(callee)) {
            Some(Role::Error) => {
                if self.feasible(&state.pc, None)? {
                    self.reach(state, inst)?;
                }
                // The error site ends the path, as in the lifted function.
                Ok(Step::End)
            }
            Some(Role::Stop) => Ok(Step::End),
            Some(Role::Assert) | Some(Role::Assume) => {
                if n == 0 {
                    return give_up("assertion without argument");
                }
                let c = self.bits(state, raw::operand(inst, 0))?;
                let w = c.get_size();
                let holds = c.eq(&BV::from_u64(0, w)).not().simplify();
                if conventions::role(&name, raw::is_defined(callee)) == Some(Role::Assert)
                    && self.feasible(&state.pc, Some(&holds.not()))?
                {
                    self.reach(state, inst)?;
                }
                if holds.as_bool() == Some(false) {
                    return Ok(Step::End);
                }
                state.pc.push(holds);
                Ok(Step::Go)
            }
            Some(Role::Nondet) => {
                let v = fresh(raw::type_of(inst))?;
                result(state, v)
            }
            None if raw::is_defined(callee) => {
                if state.frames.len() >= MAX_DEPTH {
                    return give_up("call depth");
                }
                let params = raw::params(callee);
                if params.len() != n as usize {
                    return give_up("variadic call");
                }
                let mut values = HashMap::new();
                for (i, p) in params.into_iter().enumerate() {
                    let v = self.value(state, raw::operand(inst, i as u32))?;
                    if matches!(v, Val::Ptr(_)) {
                        return give_up("a pointer passed: its object escapes");
                    }
                    values.insert(p, v);
                }
                let entry = *raw::blocks(callee).first().ok_or("no body")?;
                state.frames.push(Frame {
                    func: callee,
                    insts: raw::instructions(entry),
                    next: 0,
                    block: entry,
                    values,
                    ret_to: Some(inst),
                });
                Ok(Step::Go)
            }
            None => give_up(format!("call of `{name}`, which has no body")),
        }
    }
}

/// `c` as an `i1`.
fn bit(c: &Bool) -> BV {
    c.ite(&BV::from_u64(1, 1), &BV::from_u64(0, 1))
}

fn float_sort(ty: LLVMTypeRef) -> Fail<z3::Sort> {
    match unsafe { LLVMGetTypeKind(ty) } {
        LLVMTypeKind::LLVMFloatTypeKind => Ok(z3::Sort::float32()),
        LLVMTypeKind::LLVMDoubleTypeKind => Ok(z3::Sort::double()),
        _ => give_up("a float type other than float and double"),
    }
}

/// Every value of type `ty`.
fn fresh(ty: LLVMTypeRef) -> Fail<Val> {
    match unsafe { LLVMGetTypeKind(ty) } {
        LLVMTypeKind::LLVMIntegerTypeKind => {
            let w = raw::int_width(ty).ok_or("integer type")?;
            if w > 64 {
                return give_up("integer wider than 64 bits");
            }
            Ok(Val::Bits(BV::fresh_const("v", w)))
        }
        LLVMTypeKind::LLVMFloatTypeKind => Ok(Val::Fp(Float::fresh_const_float32("f"))),
        LLVMTypeKind::LLVMDoubleTypeKind => Ok(Val::Fp(Float::fresh_const_double("d"))),
        _ => give_up("a value of a type that is not modeled"),
    }
}

/// The integer `a` (signed or not) rounded to the nearest value of `sort`.
fn int_to_float(a: &BV, signed: bool, sort: &z3::Sort) -> Float {
    let ctx = z3::Context::thread_local();
    let rne = z3::ast::RoundingMode::round_nearest_ties_to_even();
    unsafe {
        let c = ctx.get_z3_context();
        let made = if signed {
            z3_sys::Z3_mk_fpa_to_fp_signed(c, rne.get_z3_ast(), a.get_z3_ast(), sort.get_z3_sort())
        } else {
            z3_sys::Z3_mk_fpa_to_fp_unsigned(
                c,
                rne.get_z3_ast(),
                a.get_z3_ast(),
                sort.get_z3_sort(),
            )
        };
        Float::wrap(&ctx, made.expect("Z3_mk_fpa_to_fp"))
    }
}
