//! Bit-precise path enumeration of functions that compute with floats.
//!
//! The lifted program (`crate::ir`) has integers only: a float or double is an arbitrary
//! value there, so no engine can prove an assertion that rests on float arithmetic. This
//! module runs the bit-precise form of an entry function ([`crate::ir::bitprecise`], which
//! the front end records) symbolically, one path at a time, with every value a z3 term:
//! integers as bit-vectors of their width, `float` and `double` in z3's floating-point
//! theory (IEEE 754 binary32 and binary64, rounding to nearest even, subnormals, signed
//! zeros, infinities and NaN), whose operations are exactly what SSE computes. Each term is
//! simplified as it is built, so code without inputs is evaluated on numerals (a loop of
//! 100 iterations over constants costs 100 iterations, never a formula); a branch whose
//! condition is not a numeral asks the solver which sides the path condition allows, and
//! the path forks.
//!
//! It proves only this: *no execution of the function reaches this error site* (a call of
//! an error function, or of an assertion function with a failing condition), for each
//! error site of the entry function no path reaches, when every path was followed to its
//! end (a return of the entry, `exit`/`abort`, `unreachable`, an assumption that fails, a
//! branch side the solver proves infeasible, or an error site: as in the lifted function,
//! an execution ends at the first error site it reaches) within the budgets of steps, paths
//! and call depth. An error site of a callee that a path may reach makes it give up.
//! Anything it does not model exactly makes it give up (no verdict, the assertions go on to
//! the analysis as before): a pointer it cannot name (only `alloca`s and globals, read and
//! written whole at offset 0 with one type, whose address is never stored, passed or
//! computed on), calls of code without a body other than the convention functions, `frem`
//! (C's `fmod`, not IEEE's remainder), bit casts between floats and integers (NaN
//! payloads), `x86_fp80`, fast-math flags, shifts, divisions and float-to-integer
//! conversions that may be undefined, and a solver `unknown` (never evidence). What it
//! over-approximates: an uninitialized cell or a global read before the function writes it
//! is a fresh value (every value of its type), wrapping arithmetic includes the executions
//! C leaves undefined (the analysis drops them), and `llvm.fmuladd` is evaluated as a
//! product then a sum: the targets polyfocus compiles for (x86-64 and i386 without `-mfma`
//! or `-march`) have no fused multiply-add, so the backend expands it that way. Its model is
//! each operation rounded to its type (`FLT_EVAL_METHOD` 0: x86-64, or i386 with `-msse2
//! -mfpmath=sse`); on i386's x87 default what it finds proves nothing
//! (`FrontendConfig::float_evaluation`). A program whose flags choose another floating-point unit or
//! contraction (`-mfpmath`, `-march`, `-mfma`, `-ffast-math`, `-ffp-contract`, ...) is not
//! handled (the front end records no bit-precise form for it).
//!
//! The budgets are counts (steps, paths, depth), so whether a path ends does not depend on
//! the load; a solver query that has not answered by its deadline gives up, which can only
//! cost a proof.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use z3::ast::{Ast, Bool, Float, BV};
use z3::{SatResult, Solver};

use crate::ir::bitprecise::{
    Call, FloatOp, FloatPred, Inst, IntOp, Operand, Program, Resize, Ty, Value,
};

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

/// The answer of [`explore`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Every path was followed to its end; the error sites of the entry function some path
    /// reaches (the others, none does).
    Explored {
        /// The error sites (indices into [`Program::sites`]) a path reaches: calls of
        /// error functions, and of assertion functions with a failing condition.
        reached: Vec<usize>,
        /// Paths followed.
        paths: usize,
        /// Instructions run.
        steps: u64,
    },
    /// No verdict, and why.
    GaveUp(String),
}

/// Runs the first function of `program` on every input (see the module docs): its
/// parameters and every global it reads before writing are arbitrary values (constant
/// globals hold their initializers).
pub fn explore(program: &Program) -> Outcome {
    let mut run = Run {
        program,
        steps: 0,
        reached: vec![],
        started: Instant::now(),
    };
    match run.explore() {
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
    /// The function (index into `Program::functions`).
    func: usize,
    /// The current block, and the next instruction in it.
    block: usize,
    next: usize,
    values: HashMap<Value, Val>,
    /// The call instruction of the caller that receives the returned value.
    ret_to: Option<Value>,
}

/// One path in progress.
#[derive(Clone)]
struct State {
    frames: Vec<Frame>,
    /// Object → (the type last stored, the value).
    memory: HashMap<usize, (Ty, Val)>,
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

struct Run<'p> {
    program: &'p Program,
    steps: u64,
    /// The error sites (in the entry function) some path reaches.
    reached: Vec<usize>,
    started: Instant,
}

/// Objects below this are the globals (their index in `Program::globals`).
const FIRST_LOCAL: usize = 1 << 40;

impl<'p> Run<'p> {
    fn explore(&mut self) -> Fail<usize> {
        let entry_func = self.program.functions.first().ok_or("no body")?;
        let mut values = HashMap::new();
        for (i, ty) in entry_func.params.iter().enumerate() {
            values.insert(Value(i as u32), fresh(*ty)?);
        }
        if entry_func.blocks.is_empty() {
            return give_up("no body");
        }
        let first = State {
            frames: vec![Frame {
                func: 0,
                block: 0,
                next: 0,
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
        // No check of the float paths answers `unknown` on purpose: the faults are injected
        // into the analysis's checks (`params::FaultParams`).
        let none = crate::context::InjectedUnknowns::every(0);
        match super::check_until(&solver, &assumptions, deadline, &none, 0) {
            SatResult::Sat => Ok(true),
            SatResult::Unsat => Ok(false),
            SatResult::Unknown => give_up("solver unknown"),
        }
    }

    /// Follows the sides `(condition, successor)` of a branch from `state` that the path
    /// condition allows; a second one becomes a fork.
    fn branch(&mut self, state: &mut State, sides: Vec<(Bool, usize)>) -> Fail<Step> {
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

    /// Moves the current frame of `state` into block `to`: its phis read their operands in
    /// parallel, from the block left.
    fn enter(&mut self, state: &mut State, to: usize) -> Fail<()> {
        let frame = state.frames.last().expect("a frame");
        let (from, func) = (frame.block, frame.func);
        let block = self.program.functions[func]
            .blocks
            .get(to)
            .ok_or("a block of another function")?;
        let mut read = Vec::new();
        for phi in &block.phis {
            let (v, _) = phi
                .incoming
                .iter()
                .find(|(_, b)| *b == from)
                .ok_or("phi without the incoming block")?;
            match self.value(state, v)? {
                Val::Ptr(_) => return give_up("a phi of pointers"),
                x => read.push((phi.dest, x)),
            }
        }
        let frame = state.frames.last_mut().expect("a frame");
        frame.values.extend(read);
        frame.block = to;
        frame.next = 0;
        Ok(())
    }

    /// Records that a path reaches the error site `site` (a call in the entry function; one
    /// in a callee gives up, its assertion belongs to the callee's own analysis).
    fn reach(&mut self, state: &State, site: usize) -> Fail<()> {
        if state.frames.len() > 1 {
            return give_up("an error site of a callee is reachable");
        }
        if !self.reached.contains(&site) {
            self.reached.push(site);
        }
        Ok(())
    }

    /// The value of an operand in the current frame.
    fn value(&mut self, state: &State, v: &Operand) -> Fail<Val> {
        if let Operand::Value(v) = v {
            let frame = state.frames.last().expect("a frame");
            return match frame.values.get(v) {
                Some(x) => Ok(x.clone()),
                None => give_up("an operand that is not modeled"),
            };
        }
        self.constant_value(v)
    }

    /// The value of a constant operand (a global's address, a number, `undef`).
    fn constant_value(&mut self, v: &Operand) -> Fail<Val> {
        match v {
            Operand::Global(g) => Ok(Val::Ptr(*g)),
            Operand::Undef(ty) => fresh(*ty),
            Operand::Int { width, bits } => Ok(Val::Bits(BV::from_u64(*bits, *width))),
            Operand::Float(x) => Ok(Val::Fp(Float::from_f32(*x))),
            Operand::Double(x) => Ok(Val::Fp(Float::from_f64(*x))),
            Operand::Unsupported(why) => give_up(why.clone()),
            Operand::Value(_) => give_up("an operand that is not modeled"),
        }
    }

    fn bits(&mut self, state: &State, v: &Operand) -> Fail<BV> {
        match self.value(state, v)? {
            Val::Bits(b) => Ok(b),
            _ => give_up("not an integer"),
        }
    }

    fn fp(&mut self, state: &State, v: &Operand) -> Fail<Float> {
        match self.value(state, v)? {
            Val::Fp(f) => Ok(f),
            _ => give_up("not a float"),
        }
    }

    /// A bit-vector that must simplify to a numeral.
    fn constant(&mut self, state: &State, v: &Operand) -> Fail<u64> {
        self.bits(state, v)?
            .simplify()
            .as_u64()
            .ok_or_else(|| "not a constant".to_string())
    }

    fn step(&mut self, state: &mut State) -> Fail<Step> {
        let program = self.program;
        let instr = {
            let f = state.frames.last_mut().expect("a frame");
            let block = &program.functions[f.func].blocks[f.block];
            let Some(instr) = block.insts.get(f.next) else {
                return give_up("block without terminator");
            };
            f.next += 1;
            instr
        };
        let res: Val = match &instr.inst {
            Inst::Unsupported(why) => return give_up(why.clone()),
            Inst::Ret(returned) => {
                let returned = match returned {
                    Some(v) => Some(self.value(state, v)?),
                    None => None,
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
            Inst::Unreachable => return Ok(Step::End),
            Inst::Jump(to) => {
                self.enter(state, *to)?;
                return Ok(Step::Go);
            }
            Inst::Branch {
                cond,
                then,
                otherwise,
            } => {
                let c = self.bits(state, cond)?;
                let c = c.eq(&BV::from_u64(1, 1));
                let sides = vec![(c.clone(), *then), (c.not(), *otherwise)];
                return self.branch(state, sides);
            }
            Inst::Switch { on, cases, default } => {
                let on = self.bits(state, on)?;
                let mut sides = Vec::new();
                let mut none = Vec::new();
                for (value, to) in cases {
                    let case = self.bits(state, value)?;
                    let c = on.eq(&case);
                    none.push(c.not());
                    sides.push((c, *to));
                }
                sides.push((Bool::and(&none), *default));
                return self.branch(state, sides);
            }
            Inst::Call(call) => return self.call(state, call, instr.dest),
            Inst::Alloca => {
                let id = state.next_object;
                state.next_object += 1;
                Val::Ptr(id)
            }
            Inst::Load { ptr, ty, volatile } => {
                if *volatile {
                    return give_up("volatile load");
                }
                let Val::Ptr(obj) = self.value(state, ptr)? else {
                    return give_up("load through a value that is not a pointer");
                };
                match state.memory.get(&obj) {
                    Some((stored, v)) if stored == ty => v.clone(),
                    Some(_) => return give_up("load of another type than stored"),
                    None => self.initial(obj, *ty)?,
                }
            }
            Inst::Store {
                value,
                ty,
                ptr,
                volatile,
            } => {
                if *volatile {
                    return give_up("volatile store");
                }
                let v = self.value(state, value)?;
                if matches!(v, Val::Ptr(_)) {
                    return give_up("a pointer stored: its object escapes");
                }
                let Val::Ptr(obj) = self.value(state, ptr)? else {
                    return give_up("store through a value that is not a pointer");
                };
                state.memory.insert(obj, (*ty, v));
                return Ok(Step::Go);
            }
            Inst::Int { op, lhs, rhs } => Val::Bits(self.int_op(state, *op, lhs, rhs)?),
            Inst::ICmp { pred, lhs, rhs } => {
                let a = self.value(state, lhs)?;
                let b = self.value(state, rhs)?;
                let (Val::Bits(a), Val::Bits(b)) = (a, b) else {
                    return give_up("comparison of pointers");
                };
                Val::Bits(bit(&super::bv_compare(*pred, &a, &b)))
            }
            Inst::FCmp { pred, lhs, rhs } => {
                let a = self.fp(state, lhs)?;
                let b = self.fp(state, rhs)?;
                Val::Bits(bit(&float_compare(*pred, &a, &b)))
            }
            Inst::Float { op, lhs, rhs } => {
                let a = self.fp(state, lhs)?;
                let b = self.fp(state, rhs)?;
                let rne = z3::ast::RoundingMode::round_nearest_ties_to_even();
                Val::Fp(match op {
                    FloatOp::Add => a.add_with_rounding_mode(&b, &rne),
                    FloatOp::Sub => a.sub_with_rounding_mode(&b, &rne),
                    FloatOp::Mul => a.mul_with_rounding_mode(&b, &rne),
                    FloatOp::Div => a.div_with_rounding_mode(&b, &rne),
                })
            }
            Inst::FNeg(arg) => Val::Fp(self.fp(state, arg)?.unary_neg()),
            Inst::Resize { op, arg, to } => {
                let a = self.bits(state, arg)?;
                let Ty::Int(to) = *to else {
                    return give_up("integer type");
                };
                let from = a.get_size();
                Val::Bits(match op {
                    Resize::Trunc => a.extract(to - 1, 0),
                    Resize::ZExt => a.zero_ext(to - from),
                    Resize::SExt => a.sign_ext(to - from),
                })
            }
            Inst::FloatResize { arg, to } => {
                let a = self.fp(state, arg)?;
                let rne = z3::ast::RoundingMode::round_nearest_ties_to_even();
                Val::Fp(a.to_fp_with_rounding_mode(&rne, &float_sort(*to)?))
            }
            Inst::IntToFloat { arg, signed, to } => {
                let a = self.bits(state, arg)?;
                Val::Fp(int_to_float(&a, *signed, &float_sort(*to)?))
            }
            Inst::FloatToInt { arg, signed, to } => {
                let a = self.fp(state, arg)?;
                let Ty::Int(w) = *to else {
                    return give_up("integer type");
                };
                // Out of range (or NaN) the result is poison: give up unless the path
                // condition excludes it.
                let rtz = z3::ast::RoundingMode::round_towards_zero();
                let t = a.round_to_integral_with_rounding_mode(&rtz);
                let sort = a.get_sort();
                let bound = |x: f64| Float::from_f64(x).to_fp_with_rounding_mode(&rtz, &sort);
                let (lo, hi) = if *signed {
                    (-(2f64.powi(w as i32 - 1)), 2f64.powi(w as i32 - 1))
                } else {
                    (0.0, 2f64.powi(w as i32))
                };
                let in_range = Bool::and(&[a.is_nan().not(), t.ge(&bound(lo)), t.lt(&bound(hi))]);
                if self.feasible(&state.pc, Some(&in_range.not()))? {
                    return give_up("float to integer conversion that may be out of range");
                }
                Val::Bits(if *signed {
                    a.to_sbv_with_rounding_mode(&rtz, w)
                } else {
                    a.to_ubv_with_rounding_mode(&rtz, w)
                })
            }
            Inst::Select {
                cond,
                then,
                otherwise,
            } => {
                let c = self.bits(state, cond)?;
                let c = c.eq(&BV::from_u64(1, 1)).simplify();
                let a = self.value(state, then)?;
                let b = self.value(state, otherwise)?;
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
            Inst::Freeze(arg) => self.value(state, arg)?,
        };
        set_result(state, instr.dest, res);
        Ok(Step::Go)
    }

    /// Integer arithmetic: shifts by a constant below the width, divisions by a constant
    /// that makes them defined.
    fn int_op(&mut self, state: &State, op: IntOp, lhs: &Operand, rhs: &Operand) -> Fail<BV> {
        Ok(match op {
            IntOp::Add | IntOp::Sub | IntOp::Mul | IntOp::And | IntOp::Or | IntOp::Xor => {
                let a = self.bits(state, lhs)?;
                let b = self.bits(state, rhs)?;
                match op {
                    IntOp::Add => a.bvadd(&b),
                    IntOp::Sub => a.bvsub(&b),
                    IntOp::Mul => a.bvmul(&b),
                    IntOp::And => a.bvand(&b),
                    IntOp::Or => a.bvor(&b),
                    _ => a.bvxor(&b),
                }
            }
            IntOp::Shl | IntOp::LShr | IntOp::AShr => {
                let a = self.bits(state, lhs)?;
                let s = self.constant(state, rhs)?;
                let w = a.get_size();
                if s >= w as u64 {
                    return give_up("shift by the width or more");
                }
                let s = BV::from_u64(s, w);
                match op {
                    IntOp::Shl => a.bvshl(&s),
                    IntOp::LShr => a.bvlshr(&s),
                    _ => a.bvashr(&s),
                }
            }
            IntOp::UDiv | IntOp::SDiv | IntOp::URem | IntOp::SRem => {
                let a = self.bits(state, lhs)?;
                let d = self.constant(state, rhs)?;
                let w = a.get_size();
                let all_ones = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
                let signed = matches!(op, IntOp::SDiv | IntOp::SRem);
                if d == 0 || (signed && d == all_ones) {
                    return give_up("division that may be undefined");
                }
                let d = BV::from_u64(d, w);
                match op {
                    IntOp::UDiv => a.bvudiv(&d),
                    IntOp::SDiv => a.bvsdiv(&d),
                    IntOp::URem => a.bvurem(&d),
                    _ => a.bvsrem(&d),
                }
            }
        })
    }

    /// What an object holds before the path writes it: a constant global's initializer
    /// when it is a number of the loaded type, else every value of the type.
    fn initial(&mut self, obj: usize, ty: Ty) -> Fail<Val> {
        if obj < FIRST_LOCAL {
            let global = self.program.globals.get(obj).ok_or("global")?;
            if let Some((init_ty, init)) = &global.init {
                if *init_ty == ty {
                    if let Ok(v @ (Val::Bits(_) | Val::Fp(_))) = self.constant_value(init) {
                        return Ok(v);
                    }
                }
            }
        }
        fresh(ty)
    }

    fn call(&mut self, state: &mut State, call: &Call, dest: Value) -> Fail<Step> {
        let result = |state: &mut State, v: Val| {
            set_result(state, dest, v);
            Ok(Step::Go)
        };
        match call {
            Call::NoEffect => Ok(Step::Go),
            Call::MulAdd(a, b, c) => {
                let rne = z3::ast::RoundingMode::round_nearest_ties_to_even();
                let a = self.fp(state, a)?;
                let b = self.fp(state, b)?;
                let c = self.fp(state, c)?;
                let p = a.mul_with_rounding_mode(&b, &rne);
                result(state, Val::Fp(p.add_with_rounding_mode(&c, &rne)))
            }
            Call::Abs(a) => {
                // The term is made as for the other intrinsics: the order in which terms are
                // made steers the solver's heuristics, hence its work.
                let _rne = z3::ast::RoundingMode::round_nearest_ties_to_even();
                let a = self.fp(state, a)?;
                result(state, Val::Fp(a.unary_abs()))
            }
            Call::Sqrt(a) => {
                let rne = z3::ast::RoundingMode::round_nearest_ties_to_even();
                let a = self.fp(state, a)?;
                result(state, Val::Fp(a.sqrt_with_rounding_mode(&rne)))
            }
            Call::Error(site) => {
                if self.feasible(&state.pc, None)? {
                    self.reach(state, *site)?;
                }
                // The error site ends the path, as in the lifted function.
                Ok(Step::End)
            }
            Call::Stop => Ok(Step::End),
            Call::Assert(cond, _) | Call::Assume(cond) => {
                let Some(cond) = cond else {
                    return give_up("assertion without argument");
                };
                let c = self.bits(state, cond)?;
                let w = c.get_size();
                let holds = c.eq(&BV::from_u64(0, w)).not().simplify();
                if let Call::Assert(_, site) = call {
                    if self.feasible(&state.pc, Some(&holds.not()))? {
                        self.reach(state, *site)?;
                    }
                }
                if holds.as_bool() == Some(false) {
                    return Ok(Step::End);
                }
                state.pc.push(holds);
                Ok(Step::Go)
            }
            Call::Nondet(ty) => {
                let v = fresh(*ty)?;
                result(state, v)
            }
            Call::Function { callee, args } => {
                if state.frames.len() >= MAX_DEPTH {
                    return give_up("call depth");
                }
                let function = &self.program.functions[*callee];
                if function.params.len() != args.len() {
                    return give_up("variadic call");
                }
                let mut values = HashMap::new();
                for (i, arg) in args.iter().enumerate() {
                    let v = self.value(state, arg)?;
                    if matches!(v, Val::Ptr(_)) {
                        return give_up("a pointer passed: its object escapes");
                    }
                    values.insert(Value(i as u32), v);
                }
                if function.blocks.is_empty() {
                    return give_up("no body");
                }
                state.frames.push(Frame {
                    func: *callee,
                    block: 0,
                    next: 0,
                    values,
                    ret_to: Some(dest),
                });
                Ok(Step::Go)
            }
            Call::Unsupported(why) => give_up(why.clone()),
        }
    }
}

/// Gives the current frame's `dest` the value `v`, simplified.
fn set_result(state: &mut State, dest: Value, v: Val) {
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
        .insert(dest, v);
}

/// `a pred b`, IEEE 754's comparisons.
fn float_compare(pred: FloatPred, a: &Float, b: &Float) -> Bool {
    let unordered = Bool::or(&[a.is_nan(), b.is_nan()]);
    match pred {
        FloatPred::False => Bool::from_bool(false),
        FloatPred::True => Bool::from_bool(true),
        FloatPred::Oeq => a.eq_fpa(b),
        FloatPred::Ogt => a.gt(b),
        FloatPred::Oge => a.ge(b),
        FloatPred::Olt => a.lt(b),
        FloatPred::Ole => a.le(b),
        FloatPred::One => Bool::and(&[unordered.not(), a.eq_fpa(b).not()]),
        FloatPred::Ord => unordered.not(),
        FloatPred::Uno => unordered,
        FloatPred::Ueq => Bool::or(&[unordered.clone(), a.eq_fpa(b)]),
        FloatPred::Ugt => Bool::or(&[unordered.clone(), a.gt(b)]),
        FloatPred::Uge => Bool::or(&[unordered.clone(), a.ge(b)]),
        FloatPred::Ult => Bool::or(&[unordered.clone(), a.lt(b)]),
        FloatPred::Ule => Bool::or(&[unordered.clone(), a.le(b)]),
        FloatPred::Une => a.eq_fpa(b).not(),
    }
}

/// `c` as an `i1`.
fn bit(c: &Bool) -> BV {
    c.ite(&BV::from_u64(1, 1), &BV::from_u64(0, 1))
}

fn float_sort(ty: Ty) -> Fail<z3::Sort> {
    match ty {
        Ty::Float => Ok(z3::Sort::float32()),
        Ty::Double => Ok(z3::Sort::double()),
        _ => give_up("a float type other than float and double"),
    }
}

/// Every value of type `ty`.
fn fresh(ty: Ty) -> Fail<Val> {
    match ty {
        Ty::Int(w) => {
            if w > 64 {
                return give_up("integer wider than 64 bits");
            }
            Ok(Val::Bits(BV::fresh_const("v", w)))
        }
        Ty::Float => Ok(Val::Fp(Float::fresh_const_float32("f"))),
        Ty::Double => Ok(Val::Fp(Float::fresh_const_double("d"))),
        Ty::Other => give_up("a value of a type that is not modeled"),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::bitprecise::{Block, Function, Instr};

    /// `f(x)`: `y = x * 2.0; assert(y != 3.0 || x == 1.5)` over a double `x`, with an
    /// unsupported instruction on the branch side `bad` leads to.
    fn program(bad: bool) -> Program {
        let x = Operand::Value(Value(0));
        let instr = |dest: u32, inst: Inst| Instr {
            dest: Value(dest),
            inst,
        };
        let entry = Block {
            phis: vec![],
            insts: vec![
                instr(
                    1,
                    Inst::Float {
                        op: FloatOp::Mul,
                        lhs: x.clone(),
                        rhs: Operand::Double(2.0),
                    },
                ),
                instr(
                    2,
                    Inst::FCmp {
                        pred: FloatPred::Une,
                        lhs: Operand::Value(Value(1)),
                        rhs: Operand::Double(3.0),
                    },
                ),
                instr(
                    3,
                    Inst::FCmp {
                        pred: FloatPred::Oeq,
                        lhs: x,
                        rhs: Operand::Double(1.5),
                    },
                ),
                instr(
                    4,
                    Inst::Int {
                        op: IntOp::Or,
                        lhs: Operand::Value(Value(2)),
                        rhs: Operand::Value(Value(3)),
                    },
                ),
                instr(
                    5,
                    Inst::Branch {
                        cond: Operand::Value(Value(4)),
                        then: 1,
                        otherwise: 2,
                    },
                ),
            ],
        };
        let holds = Block {
            phis: vec![],
            insts: vec![instr(6, Inst::Ret(None))],
        };
        let fails = Block {
            phis: vec![],
            insts: vec![if bad {
                instr(7, Inst::Unsupported("an instruction".into()))
            } else {
                instr(7, Inst::Call(Call::Error(0)))
            }],
        };
        Program {
            functions: vec![Function {
                name: "f".into(),
                params: vec![Ty::Double],
                blocks: vec![entry, holds, fails],
            }],
            globals: vec![],
            sites: vec![None],
        }
    }

    #[test]
    fn an_error_site_no_float_reaches_is_not_reached() {
        match explore(&program(false)) {
            Outcome::Explored { reached, paths, .. } => {
                assert!(reached.is_empty(), "reached {reached:?}");
                assert_eq!(paths, 1, "the failing side is infeasible");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn what_is_not_modeled_gives_up_only_where_a_path_reaches_it() {
        // The unsupported instruction is on the infeasible side: never reached.
        assert!(matches!(explore(&program(true)), Outcome::Explored { .. }));
        // Once the side is feasible (`x * 2.0 == 3.0` no longer implies `x == 1.5`), it is.
        let mut feasible = program(true);
        if let Inst::FCmp { rhs, .. } = &mut feasible.functions[0].blocks[0].insts[2].inst {
            *rhs = Operand::Double(2.5);
        }
        assert_eq!(explore(&feasible), Outcome::GaveUp("an instruction".into()));
    }

    #[test]
    fn a_reachable_error_site_is_reached() {
        let mut reachable = program(false);
        if let Inst::FCmp { rhs, .. } = &mut reachable.functions[0].blocks[0].insts[2].inst {
            *rhs = Operand::Double(2.5);
        }
        match explore(&reachable) {
            Outcome::Explored { reached, .. } => assert_eq!(reached, vec![0]),
            other => panic!("{other:?}"),
        }
    }
}
