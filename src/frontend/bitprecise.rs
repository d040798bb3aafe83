//! The bit-precise form of an entry function that computes with floats
//! ([`ir::bitprecise`]), recorded for the enumeration of its paths over floats, which the
//! driver runs after lifting (the lifted function has integers only, its floats are
//! arbitrary values).
//!
//! The translation keeps one instruction for one and never fails: what the enumeration
//! does not model (see `smt::float_paths`) becomes an `Unsupported` instruction, operand or
//! call with the reason, so that the enumeration gives up exactly when a path reaches it.
//! The functions the entry calls directly (and so on) are translated with it.

use std::collections::HashMap;

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMOpcode, LLVMRealPredicate, LLVMTypeKind};

use super::conventions::{self, Role};
use super::lift;
use super::raw;
use super::reach;
use crate::ir::bitprecise::{
    Block, Call, FloatOp, FloatPred, Function, Global, Inst, Instr, IntOp, Operand, Phi, Program,
    Resize, Ty, Value,
};

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

/// Whether the user's flags keep the floating-point model the enumeration assumes (SSE, no
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

/// The bit-precise form of `func` and of the functions it calls, or why no path of it can
/// be followed at all.
pub fn program(func: LLVMValueRef) -> Result<Program, String> {
    // A function of the module that may run out of line (a constructor, a handler, a
    // thread) may write globals between two instructions, and before `main` (whose first
    // stores are the initializers, `normalize::store_initial_values`).
    let module = unsafe { LLVMGetGlobalParent(func) };
    if raw::functions(module)
        .into_iter()
        .any(|f| raw::is_defined(f) && reach::escapes(f))
    {
        return Err("a function of the module may run out of line".to_string());
    }
    let mut translation = Translation::default();
    translation.function_index(func);
    let mut idx = 0;
    while idx < translation.order.len() {
        let function = translation.function(translation.order[idx]);
        translation.functions.push(function);
        idx += 1;
    }
    Ok(Program {
        functions: translation.functions,
        globals: translation.globals,
        sites: translation.sites,
    })
}

#[derive(Default)]
struct Translation {
    /// The functions met, in the order of their indices.
    order: Vec<LLVMValueRef>,
    function_indices: HashMap<LLVMValueRef, usize>,
    functions: Vec<Function>,
    globals: Vec<Global>,
    global_indices: HashMap<LLVMValueRef, usize>,
    sites: Vec<Option<lift::ErrorSite>>,
}

/// The values and blocks of the function being translated.
struct Scope {
    values: HashMap<LLVMValueRef, Value>,
    blocks: HashMap<LLVMBasicBlockRef, usize>,
}

impl Translation {
    fn function_index(&mut self, func: LLVMValueRef) -> usize {
        if let Some(idx) = self.function_indices.get(&func) {
            return *idx;
        }
        let idx = self.order.len();
        self.order.push(func);
        self.function_indices.insert(func, idx);
        idx
    }

    fn global_index(&mut self, global: LLVMValueRef) -> usize {
        if let Some(idx) = self.global_indices.get(&global) {
            return *idx;
        }
        let idx = self.globals.len();
        self.globals.push(Global { init: None });
        self.global_indices.insert(global, idx);
        // Registered first: an initializer may name the global itself.
        let init = unsafe {
            if LLVMIsGlobalConstant(global) != 0 && LLVMIsDeclaration(global) == 0 {
                let init = LLVMGetInitializer(global);
                (!init.is_null()).then_some(init)
            } else {
                None
            }
        };
        if let Some(init) = init {
            let value = self.constant(init);
            self.globals[idx].init = Some((ty(raw::type_of(init)), value));
        }
        idx
    }

    fn function(&mut self, func: LLVMValueRef) -> Function {
        let blocks = raw::blocks(func);
        let mut scope = Scope {
            values: HashMap::new(),
            blocks: blocks.iter().enumerate().map(|(i, b)| (*b, i)).collect(),
        };
        let params = raw::params(func);
        for p in &params {
            let id = Value(scope.values.len() as u32);
            scope.values.insert(*p, id);
        }
        let insts: Vec<Vec<LLVMValueRef>> = blocks.iter().map(|b| raw::instructions(*b)).collect();
        for inst in insts.iter().flatten() {
            let id = Value(scope.values.len() as u32);
            scope.values.insert(*inst, id);
        }
        let mut res = Function {
            name: raw::name(func),
            params: params.iter().map(|p| ty(raw::type_of(*p))).collect(),
            blocks: Vec::with_capacity(blocks.len()),
        };
        for (idx, block_insts) in insts.iter().enumerate() {
            let mut block = Block {
                phis: vec![],
                insts: vec![],
            };
            // The entry block has no predecessor: a phi there is an instruction that is
            // not modeled.
            let leading_phis = if idx == 0 {
                0
            } else {
                block_insts
                    .iter()
                    .take_while(|i| raw::opcode(**i) == LLVMOpcode::LLVMPHI)
                    .count()
            };
            for &phi in &block_insts[..leading_phis] {
                let incoming = raw::incomings(phi)
                    .into_iter()
                    .filter_map(|(v, b)| {
                        let from = *scope.blocks.get(&b)?;
                        Some((self.operand(&scope, v), from))
                    })
                    .collect();
                block.phis.push(Phi {
                    dest: scope.values[&phi],
                    incoming,
                });
            }
            for &inst in &block_insts[leading_phis..] {
                block.insts.push(Instr {
                    dest: scope.values[&inst],
                    inst: self.inst(&scope, inst),
                });
            }
            res.blocks.push(block);
        }
        res
    }

    fn operand(&mut self, scope: &Scope, v: LLVMValueRef) -> Operand {
        match scope.values.get(&v) {
            Some(id) => Operand::Value(*id),
            None => self.constant(v),
        }
    }

    /// A constant operand: a global's address, a number, `undef`.
    fn constant(&mut self, v: LLVMValueRef) -> Operand {
        let value_ty = raw::type_of(v);
        unsafe {
            if !LLVMIsAGlobalVariable(v).is_null() {
                return Operand::Global(self.global_index(v));
            }
            if raw::is_undef(v) {
                return Operand::Undef(ty(value_ty));
            }
            if !LLVMIsAConstantInt(v).is_null() {
                return match (raw::int_width(value_ty), raw::const_int_bits(v)) {
                    (Some(width), Some(bits)) if width <= 64 => Operand::Int { width, bits },
                    _ => unsupported("integer wider than 64 bits"),
                };
            }
            if !LLVMIsAConstantFP(v).is_null() {
                let mut lossy = 0;
                let d = LLVMConstRealGetDouble(v, &mut lossy);
                if lossy != 0 {
                    return unsupported("float constant");
                }
                return match ty(value_ty) {
                    Ty::Float => Operand::Float(d as f32),
                    Ty::Double => Operand::Double(d),
                    _ => unsupported("float type"),
                };
            }
        }
        unsupported("an operand that is not modeled")
    }

    /// Operand `i` of `inst`.
    fn nth(&mut self, scope: &Scope, inst: LLVMValueRef, i: u32) -> Operand {
        self.operand(scope, raw::operand(inst, i))
    }

    fn block(&self, scope: &Scope, b: LLVMBasicBlockRef) -> Option<usize> {
        scope.blocks.get(&b).copied()
    }

    fn inst(&mut self, scope: &Scope, inst: LLVMValueRef) -> Inst {
        unsafe {
            if LLVMCanValueUseFastMathFlags(inst) != 0 && LLVMGetFastMathFlags(inst) != 0 {
                return Inst::Unsupported("fast-math flags".into());
            }
        }
        use LLVMOpcode::*;
        let opcode = raw::opcode(inst);
        let res_ty = ty(raw::type_of(inst));
        match opcode {
            LLVMPHI => Inst::Unsupported("phi inside a block".into()),
            LLVMRet => Inst::Ret((raw::num_operands(inst) == 1).then(|| self.nth(scope, inst, 0))),
            LLVMUnreachable => Inst::Unreachable,
            LLVMBr => {
                if raw::num_operands(inst) == 1 {
                    return match self.block(scope, raw::successor(inst, 0)) {
                        Some(to) => Inst::Jump(to),
                        None => Inst::Unsupported("a branch out of the function".into()),
                    };
                }
                let cond = self.operand(scope, unsafe { LLVMGetCondition(inst) });
                match (
                    self.block(scope, raw::successor(inst, 0)),
                    self.block(scope, raw::successor(inst, 1)),
                ) {
                    (Some(then), Some(otherwise)) => Inst::Branch {
                        cond,
                        then,
                        otherwise,
                    },
                    _ => Inst::Unsupported("a branch out of the function".into()),
                }
            }
            LLVMSwitch => {
                let on = self.operand(scope, raw::operand(inst, 0));
                let mut cases = Vec::new();
                for i in 1..raw::num_successors(inst) {
                    let value = self.operand(scope, raw::operand(inst, 2 * i));
                    let Some(to) = self.block(scope, raw::successor(inst, i)) else {
                        return Inst::Unsupported("a branch out of the function".into());
                    };
                    cases.push((value, to));
                }
                match self.block(scope, unsafe { LLVMGetSwitchDefaultDest(inst) }) {
                    Some(default) => Inst::Switch { on, cases, default },
                    None => Inst::Unsupported("a branch out of the function".into()),
                }
            }
            LLVMCall => Inst::Call(self.call(scope, inst)),
            LLVMAlloca => Inst::Alloca,
            LLVMLoad => Inst::Load {
                ptr: self.nth(scope, inst, 0),
                ty: res_ty,
                volatile: unsafe { LLVMGetVolatile(inst) } != 0,
            },
            LLVMStore => Inst::Store {
                value: self.nth(scope, inst, 0),
                ty: ty(raw::type_of(raw::operand(inst, 0))),
                ptr: self.nth(scope, inst, 1),
                volatile: unsafe { LLVMGetVolatile(inst) } != 0,
            },
            LLVMAdd | LLVMSub | LLVMMul | LLVMAnd | LLVMOr | LLVMXor | LLVMShl | LLVMLShr
            | LLVMAShr | LLVMUDiv | LLVMSDiv | LLVMURem | LLVMSRem => {
                let int_op = match opcode {
                    LLVMAdd => IntOp::Add,
                    LLVMSub => IntOp::Sub,
                    LLVMMul => IntOp::Mul,
                    LLVMAnd => IntOp::And,
                    LLVMOr => IntOp::Or,
                    LLVMXor => IntOp::Xor,
                    LLVMShl => IntOp::Shl,
                    LLVMLShr => IntOp::LShr,
                    LLVMAShr => IntOp::AShr,
                    LLVMUDiv => IntOp::UDiv,
                    LLVMSDiv => IntOp::SDiv,
                    LLVMURem => IntOp::URem,
                    _ => IntOp::SRem,
                };
                Inst::Int {
                    op: int_op,
                    lhs: self.nth(scope, inst, 0),
                    rhs: self.nth(scope, inst, 1),
                }
            }
            LLVMICmp => Inst::ICmp {
                pred: raw::int_predicate(unsafe { LLVMGetICmpPredicate(inst) }),
                lhs: self.nth(scope, inst, 0),
                rhs: self.nth(scope, inst, 1),
            },
            LLVMFCmp => Inst::FCmp {
                pred: float_predicate(unsafe { LLVMGetFCmpPredicate(inst) }),
                lhs: self.nth(scope, inst, 0),
                rhs: self.nth(scope, inst, 1),
            },
            LLVMFAdd | LLVMFSub | LLVMFMul | LLVMFDiv => Inst::Float {
                op: match opcode {
                    LLVMFAdd => FloatOp::Add,
                    LLVMFSub => FloatOp::Sub,
                    LLVMFMul => FloatOp::Mul,
                    _ => FloatOp::Div,
                },
                lhs: self.nth(scope, inst, 0),
                rhs: self.nth(scope, inst, 1),
            },
            LLVMFNeg => Inst::FNeg(self.nth(scope, inst, 0)),
            LLVMTrunc | LLVMZExt | LLVMSExt => Inst::Resize {
                op: match opcode {
                    LLVMTrunc => Resize::Trunc,
                    LLVMZExt => Resize::ZExt,
                    _ => Resize::SExt,
                },
                arg: self.nth(scope, inst, 0),
                to: res_ty,
            },
            LLVMFPExt | LLVMFPTrunc => Inst::FloatResize {
                arg: self.nth(scope, inst, 0),
                to: res_ty,
            },
            LLVMSIToFP | LLVMUIToFP => Inst::IntToFloat {
                arg: self.nth(scope, inst, 0),
                signed: opcode == LLVMSIToFP,
                to: res_ty,
            },
            LLVMFPToSI | LLVMFPToUI => Inst::FloatToInt {
                arg: self.nth(scope, inst, 0),
                signed: opcode == LLVMFPToSI,
                to: res_ty,
            },
            LLVMSelect => Inst::Select {
                cond: self.nth(scope, inst, 0),
                then: self.nth(scope, inst, 1),
                otherwise: self.nth(scope, inst, 2),
            },
            LLVMFreeze => Inst::Freeze(self.nth(scope, inst, 0)),
            _ => Inst::Unsupported(format!("instruction {opcode:?}")),
        }
    }

    fn call(&mut self, scope: &Scope, inst: LLVMValueRef) -> Call {
        if raw::calls_inline_asm(inst) {
            return Call::Unsupported("inline assembly".into());
        }
        let Some(callee) = raw::called_function(inst) else {
            return Call::Unsupported("indirect call".into());
        };
        let name = raw::name(callee);
        if name.starts_with("llvm.dbg.") || name.starts_with("llvm.lifetime.") {
            return Call::NoEffect;
        }
        let n = raw::num_args(inst);
        if name.starts_with("llvm.") {
            if name.starts_with("llvm.fmuladd.f32") || name.starts_with("llvm.fmuladd.f64") {
                return Call::MulAdd(
                    self.nth(scope, inst, 0),
                    self.nth(scope, inst, 1),
                    self.nth(scope, inst, 2),
                );
            }
            if name.starts_with("llvm.fabs.f32") || name.starts_with("llvm.fabs.f64") {
                return Call::Abs(self.nth(scope, inst, 0));
            }
            if name.starts_with("llvm.sqrt.f32") || name.starts_with("llvm.sqrt.f64") {
                return Call::Sqrt(self.nth(scope, inst, 0));
            }
            return Call::Unsupported(format!("intrinsic {name}"));
        }
        let defined = raw::is_defined(callee);
        match conventions::role(&name, defined) {
            Some(Role::Error) => Call::Error(self.site(inst)),
            Some(Role::Stop) => Call::Stop,
            Some(Role::Assert) => {
                let cond = (n > 0).then(|| self.nth(scope, inst, 0));
                Call::Assert(cond, self.site(inst))
            }
            Some(Role::Assume) => Call::Assume((n > 0).then(|| self.nth(scope, inst, 0))),
            Some(Role::Nondet) => Call::Nondet(ty(raw::type_of(inst))),
            None if defined => Call::Function {
                callee: self.function_index(callee),
                args: (0..n).map(|i| self.nth(scope, inst, i)).collect(),
            },
            None => Call::Unsupported(format!("call of `{name}`, which has no body")),
        }
    }

    /// The index of the error site of `call` in [`Program::sites`].
    fn site(&mut self, call: LLVMValueRef) -> usize {
        self.sites.push(lift::error_site_of(call));
        self.sites.len() - 1
    }
}

fn unsupported(why: &str) -> Operand {
    Operand::Unsupported(why.to_string())
}

fn ty(t: LLVMTypeRef) -> Ty {
    match unsafe { LLVMGetTypeKind(t) } {
        LLVMTypeKind::LLVMIntegerTypeKind => raw::int_width(t).map_or(Ty::Other, Ty::Int),
        LLVMTypeKind::LLVMFloatTypeKind => Ty::Float,
        LLVMTypeKind::LLVMDoubleTypeKind => Ty::Double,
        _ => Ty::Other,
    }
}

fn float_predicate(p: LLVMRealPredicate) -> FloatPred {
    use LLVMRealPredicate::*;
    match p {
        LLVMRealPredicateFalse => FloatPred::False,
        LLVMRealPredicateTrue => FloatPred::True,
        LLVMRealOEQ => FloatPred::Oeq,
        LLVMRealOGT => FloatPred::Ogt,
        LLVMRealOGE => FloatPred::Oge,
        LLVMRealOLT => FloatPred::Olt,
        LLVMRealOLE => FloatPred::Ole,
        LLVMRealONE => FloatPred::One,
        LLVMRealORD => FloatPred::Ord,
        LLVMRealUNO => FloatPred::Uno,
        LLVMRealUEQ => FloatPred::Ueq,
        LLVMRealUGT => FloatPred::Ugt,
        LLVMRealUGE => FloatPred::Uge,
        LLVMRealULT => FloatPred::Ult,
        LLVMRealULE => FloatPred::Ule,
        LLVMRealUNE => FloatPred::Une,
    }
}
