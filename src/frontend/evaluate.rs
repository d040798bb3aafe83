//! Concrete evaluation of integer functions on constants: what `f(k)` returns, by running
//! the normalized LLVM code of `f` and of the functions it calls, memoized.
//!
//! It only *proposes* contract candidates (`driver::contracts`: the tabulated `p == k →
//! r == f(k)`, the bounds of `p >= c → r ...` over a region); every candidate is then
//! certified by the analysis, so an evaluation that is wrong costs precision, never
//! soundness. It therefore gives up rather than guess: memory, calls of functions without a
//! body, `undef`, division by zero, oversized shifts, `unreachable`, a step or depth budget.
//! Arithmetic wraps (a `nsw` overflow is undefined behaviour in C, so the candidate it
//! yields is one the analysis will not prove).

use std::collections::HashMap;
use std::marker::PhantomData;

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::LLVMOpcode;

use super::raw;
use crate::ir::Ty;

/// Evaluates calls of the functions of one module, sharing a memo table and a step budget;
/// it lives no longer than the module (`'p`).
pub struct Evaluator<'p> {
    /// The defined functions, by name.
    functions: HashMap<String, LLVMValueRef>,
    memo: HashMap<(LLVMValueRef, Vec<i128>), Option<i128>>,
    steps_left: u64,
    depth: usize,
    module: PhantomData<&'p ()>,
}

/// Calls nested deeper than this give up (the evaluator recurses on the Rust stack).
const MAX_DEPTH: usize = 400;

impl Evaluator<'_> {
    /// An evaluator of the functions of `m` that runs at most `steps` instructions in all.
    pub(super) fn new(m: LLVMModuleRef, steps: u64) -> Self {
        Evaluator {
            functions: raw::functions(m)
                .into_iter()
                .filter(|f| raw::is_defined(*f))
                .map(|f| (raw::name(f), f))
                .collect(),
            memo: HashMap::new(),
            steps_left: steps,
            depth: 0,
            module: PhantomData,
        }
    }

    /// `function(args)` (signed readings of the integer arguments), or `None` when the
    /// evaluation gives up (see the module docs) or no function has that name.
    pub fn call(&mut self, function: &str, args: &[i128]) -> Option<i128> {
        let func = *self.functions.get(function)?;
        self.call_function(func, args)
    }

    fn call_function(&mut self, func: LLVMValueRef, args: &[i128]) -> Option<i128> {
        if !raw::is_defined(func) || self.depth >= MAX_DEPTH || self.steps_left == 0 {
            return None;
        }
        let params = raw::params(func);
        if params.len() != args.len() {
            return None;
        }
        let mut frame: HashMap<LLVMValueRef, i128> = HashMap::new();
        let mut key = Vec::with_capacity(args.len());
        for (p, &a) in params.iter().zip(args) {
            let w = raw::int_width(raw::type_of(*p))?;
            let v = norm(w, a);
            frame.insert(*p, v);
            key.push(v);
        }
        let key = (func, key);
        if let Some(res) = self.memo.get(&key) {
            return *res;
        }
        self.depth += 1;
        let res = self.run(func, frame);
        self.depth -= 1;
        // A budget that ran out is no fact about `func`: not memoized.
        if res.is_some() || self.steps_left > 0 {
            self.memo.insert(key, res);
        }
        res
    }

    fn run(&mut self, func: LLVMValueRef, mut frame: HashMap<LLVMValueRef, i128>) -> Option<i128> {
        let mut block = *raw::blocks(func).first()?;
        let mut pred: Option<LLVMBasicBlockRef> = None;
        loop {
            let insts = raw::instructions(block);
            // The phis of a block read their operands in parallel.
            let mut phis = Vec::new();
            for &inst in &insts {
                if raw::opcode(inst) != LLVMOpcode::LLVMPHI {
                    break;
                }
                let from = pred?;
                let (v, _) = raw::incomings(inst).into_iter().find(|(_, b)| *b == from)?;
                phis.push((inst, self.value(&frame, v)?));
            }
            frame.extend(phis);
            let mut next = None;
            for &inst in &insts {
                if self.steps_left == 0 {
                    return None;
                }
                self.steps_left -= 1;
                match raw::opcode(inst) {
                    LLVMOpcode::LLVMPHI => {}
                    LLVMOpcode::LLVMRet => {
                        if raw::num_operands(inst) != 1 {
                            return None;
                        }
                        return self.value(&frame, raw::operand(inst, 0));
                    }
                    LLVMOpcode::LLVMBr => {
                        let to = if raw::num_operands(inst) == 1 {
                            raw::successor(inst, 0)
                        } else {
                            let c = self.value(&frame, unsafe { LLVMGetCondition(inst) })?;
                            raw::successor(inst, if c != 0 { 0 } else { 1 })
                        };
                        next = Some(to);
                        break;
                    }
                    LLVMOpcode::LLVMSwitch => {
                        let on = self.value(&frame, raw::operand(inst, 0))?;
                        let mut to = unsafe { LLVMGetSwitchDefaultDest(inst) };
                        for i in 1..raw::num_successors(inst) {
                            let case = self.value(&frame, raw::operand(inst, 2 * i))?;
                            if case == on {
                                to = raw::successor(inst, i);
                                break;
                            }
                        }
                        next = Some(to);
                        break;
                    }
                    LLVMOpcode::LLVMCall => {
                        let callee = raw::called_function(inst)?;
                        let name = raw::name(callee);
                        if name.starts_with("llvm.dbg.") || name.starts_with("llvm.lifetime.") {
                            continue;
                        }
                        let n = raw::num_args(inst);
                        let mut args = Vec::with_capacity(n as usize);
                        for i in 0..n {
                            args.push(self.value(&frame, raw::operand(inst, i))?);
                        }
                        let res = self.call_function(callee, &args)?;
                        frame.insert(inst, res);
                    }
                    op => {
                        let v = self.instruction(&frame, inst, op)?;
                        frame.insert(inst, v);
                    }
                }
            }
            pred = Some(block);
            block = next?;
        }
    }

    /// The value of an operand: a constant or an evaluated instruction or parameter.
    fn value(&self, frame: &HashMap<LLVMValueRef, i128>, v: LLVMValueRef) -> Option<i128> {
        if let Some(x) = frame.get(&v) {
            return Some(*x);
        }
        let w = raw::int_width(raw::type_of(v))?;
        let bits = raw::const_int_bits(v)?;
        Some(norm(w, bits as i128))
    }

    fn instruction(
        &self,
        frame: &HashMap<LLVMValueRef, i128>,
        inst: LLVMValueRef,
        op: LLVMOpcode,
    ) -> Option<i128> {
        use LLVMOpcode::*;
        let w = raw::int_width(raw::type_of(inst))?;
        let arg = |i: u32| self.value(frame, raw::operand(inst, i));
        let unsigned = |x: i128, w: u32| Ty::int(w).mask(x as u128) as i128;
        let v = match op {
            LLVMAdd => arg(0)?.wrapping_add(arg(1)?),
            LLVMSub => arg(0)?.wrapping_sub(arg(1)?),
            LLVMMul => arg(0)?.wrapping_mul(arg(1)?),
            LLVMSDiv | LLVMSRem => {
                let (a, b) = (arg(0)?, arg(1)?);
                if b == 0 || (b == -1 && a == Ty::int(w).smin()) {
                    return None;
                }
                if op == LLVMSDiv {
                    a / b
                } else {
                    a % b
                }
            }
            LLVMUDiv | LLVMURem => {
                let (a, b) = (unsigned(arg(0)?, w), unsigned(arg(1)?, w));
                if b == 0 {
                    return None;
                }
                if op == LLVMUDiv {
                    a / b
                } else {
                    a % b
                }
            }
            LLVMShl | LLVMLShr | LLVMAShr => {
                let (a, s) = (arg(0)?, unsigned(arg(1)?, w));
                if s >= w as i128 {
                    return None;
                }
                match op {
                    LLVMShl => a << s,
                    LLVMLShr => unsigned(a, w) >> s,
                    _ => a >> s,
                }
            }
            LLVMAnd => arg(0)? & arg(1)?,
            LLVMOr => arg(0)? | arg(1)?,
            LLVMXor => arg(0)? ^ arg(1)?,
            LLVMICmp => {
                let (a, b) = (arg(0)?, arg(1)?);
                let aw = raw::int_width(raw::type_of(raw::operand(inst, 0)))?;
                let (ua, ub) = (unsigned(a, aw), unsigned(b, aw));
                let pred = raw::int_predicate(unsafe { LLVMGetICmpPredicate(inst) });
                pred.holds((ua as u128, ub as u128), (a, b)) as i128
            }
            LLVMSelect => {
                if arg(0)? != 0 {
                    arg(1)?
                } else {
                    arg(2)?
                }
            }
            LLVMTrunc => arg(0)?,
            LLVMSExt => {
                // Booleans are kept as 0 or 1: `sext i1 1` is -1.
                let aw = raw::int_width(raw::type_of(raw::operand(inst, 0)))?;
                if aw == 1 {
                    -arg(0)?
                } else {
                    arg(0)?
                }
            }
            LLVMZExt => {
                let aw = raw::int_width(raw::type_of(raw::operand(inst, 0)))?;
                unsigned(arg(0)?, aw)
            }
            _ => return None,
        };
        Some(norm(w, v))
    }
}

/// `v` wrapped to `w` bits, read signed (booleans read 0 or 1).
fn norm(w: u32, v: i128) -> i128 {
    let ty = Ty::int(w);
    let bits = ty.mask(v as u128);
    if w == 1 {
        bits as i128
    } else {
        ty.to_signed(bits)
    }
}
