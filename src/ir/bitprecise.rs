//! The bit-precise form of a function that computes with floats, with the functions it
//! calls: what the front end records for the enumeration of its paths
//! (`smt::float_paths`), since the lifted program ([`super::Function`]) has integers only.
//!
//! It keeps the normalized code's own operations, one instruction for one: integers as
//! bit-vectors of their width, `float` and `double` (IEEE 754 binary32 and binary64), memory
//! as whole objects (`alloca`s and globals). What the enumeration does not model is kept,
//! not dropped, as an [`Inst::Unsupported`] instruction, an [`Operand::Unsupported`] operand
//! or a [`Call::Unsupported`] call, with the reason: a path that reaches it makes the
//! enumeration give up, a path that does not is unaffected.
//!
//! Values are numbered per function: the parameters first, then one per instruction (phi
//! nodes included) in block order.

use super::{CheckKind, CmpPred, SourceLoc};

/// A function and every function it may call directly.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// The functions; the first one is the function whose assertions are asked about.
    pub functions: Vec<Function>,
    /// The global variables the code names, by [`Operand::Global`] index.
    pub globals: Vec<Global>,
    /// The error site of each call of an error or assertion function, by the index its
    /// [`Call::Error`] or [`Call::Assert`] holds (`None`: a call the lifter gives no site).
    pub sites: Vec<Option<(CheckKind, Option<SourceLoc>)>>,
}

/// A type, as far as the enumeration tells types apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// An integer of this many bits.
    Int(u32),
    /// IEEE 754 binary32.
    Float,
    /// IEEE 754 binary64.
    Double,
    /// Any other type (pointers, aggregates, vectors, other floating-point types): no value
    /// of it is modeled, so no stored value has it.
    Other,
}

/// One function.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// Its name, for messages.
    pub name: String,
    /// The types of its parameters, values `0..params.len()`.
    pub params: Vec<Ty>,
    /// Its blocks, the entry first (none: no body).
    pub blocks: Vec<Block>,
}

/// A value of a function: a parameter or an instruction's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Value(pub u32);

/// One block.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// The phi nodes at its start, read in parallel when the block is entered (the entry
    /// block has none: an instruction that is one is [`Inst::Unsupported`]).
    pub phis: Vec<Phi>,
    /// The other instructions, in order, the terminator last.
    pub insts: Vec<Instr>,
}

/// A phi node: `dest` takes the operand of the block the path comes from.
#[derive(Clone, Debug, PartialEq)]
pub struct Phi {
    /// The value defined.
    pub dest: Value,
    /// `(operand, predecessor block)`, in order.
    pub incoming: Vec<(Operand, usize)>,
}

/// An instruction and the value it defines (unused when it has no result).
#[derive(Clone, Debug, PartialEq)]
pub struct Instr {
    /// The value defined.
    pub dest: Value,
    /// What it does.
    pub inst: Inst,
}

/// An operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    /// A parameter or an instruction of the function.
    Value(Value),
    /// The address of a global variable (index into [`Program::globals`]).
    Global(usize),
    /// An integer constant of `width` bits (at most 64).
    Int {
        /// The width.
        width: u32,
        /// The bits.
        bits: u64,
    },
    /// A `float` constant.
    Float(f32),
    /// A `double` constant.
    Double(f64),
    /// `undef` or `poison`: an arbitrary value of the type, another at each use.
    Undef(Ty),
    /// An operand not modeled, and why.
    Unsupported(String),
}

/// A global variable.
#[derive(Clone, Debug, PartialEq)]
pub struct Global {
    /// For a defined constant, the type and value of its initializer: what it holds until a
    /// path writes it. Every other global holds an arbitrary value.
    pub init: Option<(Ty, Operand)>,
}

/// Integer operations, wrapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntOp {
    /// `add`.
    Add,
    /// `sub`.
    Sub,
    /// `mul`.
    Mul,
    /// `and`.
    And,
    /// `or`.
    Or,
    /// `xor`.
    Xor,
    /// `shl` (the amount must be a constant below the width).
    Shl,
    /// `lshr` (likewise).
    LShr,
    /// `ashr` (likewise).
    AShr,
    /// `udiv` (the divisor must be a constant that makes it defined).
    UDiv,
    /// `sdiv` (likewise).
    SDiv,
    /// `urem` (likewise).
    URem,
    /// `srem` (likewise).
    SRem,
}

/// Floating-point arithmetic, rounding to nearest even.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatOp {
    /// `fadd`.
    Add,
    /// `fsub`.
    Sub,
    /// `fmul`.
    Mul,
    /// `fdiv`.
    Div,
}

/// Floating-point comparison predicates, as in LLVM's `fcmp` (`O`: ordered, false when an
/// operand is NaN; `U`: unordered, true when one is).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatPred {
    /// Always false.
    False,
    /// Always true.
    True,
    /// Ordered and equal.
    Oeq,
    /// Ordered and greater.
    Ogt,
    /// Ordered and greater or equal.
    Oge,
    /// Ordered and less.
    Olt,
    /// Ordered and less or equal.
    Ole,
    /// Ordered and not equal.
    One,
    /// Neither is NaN.
    Ord,
    /// Either is NaN.
    Uno,
    /// Unordered or equal.
    Ueq,
    /// Unordered or greater.
    Ugt,
    /// Unordered or greater or equal.
    Uge,
    /// Unordered or less.
    Ult,
    /// Unordered or less or equal.
    Ule,
    /// Unordered or not equal.
    Une,
}

/// Integer width changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resize {
    /// `trunc`.
    Trunc,
    /// `zext`.
    ZExt,
    /// `sext`.
    SExt,
}

/// What an instruction does.
#[derive(Clone, Debug, PartialEq)]
pub enum Inst {
    /// Returns, with the value when the function has one.
    Ret(Option<Operand>),
    /// `unreachable`: the path ends.
    Unreachable,
    /// Goes to a block.
    Jump(usize),
    /// Goes to `then` when the `i1` condition is 1, else to `otherwise`.
    Branch {
        /// The condition.
        cond: Operand,
        /// Its true side.
        then: usize,
        /// Its false side.
        otherwise: usize,
    },
    /// Goes to the block of the case equal to `on`, else to `default`.
    Switch {
        /// The value switched on.
        on: Operand,
        /// `(value, block)`.
        cases: Vec<(Operand, usize)>,
        /// Where no case matches.
        default: usize,
    },
    /// A call.
    Call(Call),
    /// A new object.
    Alloca,
    /// Reads the whole object `ptr` points to, as a value of `ty`.
    Load {
        /// The address.
        ptr: Operand,
        /// The type read.
        ty: Ty,
        /// `volatile`.
        volatile: bool,
    },
    /// Writes `value` (of type `ty`) as the whole object `ptr` points to.
    Store {
        /// The value written.
        value: Operand,
        /// Its type.
        ty: Ty,
        /// The address.
        ptr: Operand,
        /// `volatile`.
        volatile: bool,
    },
    /// Integer arithmetic.
    Int {
        /// The operation.
        op: IntOp,
        /// The left operand.
        lhs: Operand,
        /// The right operand.
        rhs: Operand,
    },
    /// Integer comparison, an `i1`.
    ICmp {
        /// The predicate.
        pred: CmpPred,
        /// The left operand.
        lhs: Operand,
        /// The right operand.
        rhs: Operand,
    },
    /// Floating-point comparison, an `i1`.
    FCmp {
        /// The predicate.
        pred: FloatPred,
        /// The left operand.
        lhs: Operand,
        /// The right operand.
        rhs: Operand,
    },
    /// Floating-point arithmetic.
    Float {
        /// The operation.
        op: FloatOp,
        /// The left operand.
        lhs: Operand,
        /// The right operand.
        rhs: Operand,
    },
    /// `fneg`.
    FNeg(Operand),
    /// An integer of another width.
    Resize {
        /// How.
        op: Resize,
        /// The integer.
        arg: Operand,
        /// The result's type.
        to: Ty,
    },
    /// `fpext` and `fptrunc`: rounded to nearest even.
    FloatResize {
        /// The value.
        arg: Operand,
        /// The result's type.
        to: Ty,
    },
    /// `sitofp` and `uitofp`: rounded to nearest even.
    IntToFloat {
        /// The integer.
        arg: Operand,
        /// Whether it is read signed.
        signed: bool,
        /// The result's type.
        to: Ty,
    },
    /// `fptosi` and `fptoui`: rounded toward zero (out of range, the result is poison).
    FloatToInt {
        /// The value.
        arg: Operand,
        /// Whether the result is signed.
        signed: bool,
        /// The result's type.
        to: Ty,
    },
    /// `then` when the `i1` condition is 1, else `otherwise`.
    Select {
        /// The condition.
        cond: Operand,
        /// Its true side.
        then: Operand,
        /// Its false side.
        otherwise: Operand,
    },
    /// `freeze`: the operand.
    Freeze(Operand),
    /// An instruction not modeled, and why.
    Unsupported(String),
}

/// What a call does.
#[derive(Clone, Debug, PartialEq)]
pub enum Call {
    /// No effect (`llvm.dbg.*`, `llvm.lifetime.*`).
    NoEffect,
    /// `llvm.fmuladd`: a product then a sum, each rounded (no fused multiply-add on the
    /// targets polyfocus compiles for).
    MulAdd(Operand, Operand, Operand),
    /// `llvm.fabs`.
    Abs(Operand),
    /// `llvm.sqrt`, rounded to nearest even.
    Sqrt(Operand),
    /// A call of an error function: an error site (index into [`Program::sites`]); the
    /// path ends there.
    Error(usize),
    /// A call that ends the execution without error.
    Stop,
    /// A call of an assertion function: an error site (index into [`Program::sites`])
    /// when its argument may be zero; the path goes on where it is not (`None`: a call
    /// without argument).
    Assert(Option<Operand>, usize),
    /// A call of an assumption function: the path goes on where its argument is not zero
    /// (`None`: a call without argument).
    Assume(Option<Operand>),
    /// An arbitrary value of the type.
    Nondet(Ty),
    /// A call of a function of the program (index into [`Program::functions`]).
    Function {
        /// The callee.
        callee: usize,
        /// The arguments.
        args: Vec<Operand>,
    },
    /// A call not modeled, and why.
    Unsupported(String),
}
