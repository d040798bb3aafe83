//! The lifted program: typed integer SSA over blocks, with guards on edges and phi nodes
//! turned into parallel assignments on edges.
//!
//! **Architecture Invariant:** a plain value type. It does not depend on LLVM, the solver or any
//! domain, and does no IO. LLVM names survive only as display names, never as identity.
//!
//! Semantics (see ARCHITECTURE.md, "Integer semantics"):
//! - every value is a bit-vector of its [`Ty`]; `i1` values are booleans;
//! - [`BinOp`]s wrap modulo 2^w unless a flag says otherwise: `nsw`/`nuw`/`exact` violations
//!   are poison, and the analysis assumes they do not happen (undefined behaviour);
//! - [`Operand::Undef`] is an arbitrary value, possibly different at each use;
//! - [`Inst::Havoc`] gives its destination an arbitrary value of its type (nondet inputs,
//!   loads from memory that was not promoted, results of unknown calls, unsupported
//!   instructions);
//! - [`Terminator::Error`] is an error site: reaching it violates the [`Check`];
//!   [`Terminator::Stop`] ends the path without error (`abort`, `exit`, `unreachable`).

pub mod bitprecise;
mod interp;
mod parse;
pub mod pass;
mod print;
mod verify;

pub use interp::{choose_interpretations, Interp};
pub use parse::{parse, parse_functions, ParseError};
pub use verify::{verify, verify_scalar, VerifyError};

use std::fmt;

macro_rules! entity {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
        pub struct $name(pub u32);

        impl $name {
            /// The dense index of this entity.
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

entity!(
    /// A block of a [`Function`], index into `Function::blocks`.
    BlockId,
    "bb"
);
entity!(
    /// An SSA value of a [`Function`], index into `Function::values`.
    ValueId,
    "v"
);
entity!(
    /// An assertion of the [`Module`], index into `Module::checks`.
    CheckId,
    "check"
);
entity!(
    /// A base of memory of a [`Function`] (an object whose bytes are addressed by offsets),
    /// index into `Function::bases`.
    BaseId,
    "m"
);

/// The type of a value: a bit-vector of `width` bits (`width == 1` is a boolean).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Ty {
    /// Number of bits, 1..=128.
    pub width: u32,
}

impl Ty {
    /// The boolean type `i1`.
    pub const BOOL: Ty = Ty { width: 1 };

    /// `iN`.
    pub fn int(width: u32) -> Ty {
        Ty { width }
    }

    /// True for `i1`.
    pub fn is_bool(self) -> bool {
        self.width == 1
    }

    /// Smallest value under the signed reading.
    pub fn smin(self) -> i128 {
        if self.width >= 128 {
            i128::MIN
        } else {
            -(1i128 << (self.width - 1))
        }
    }

    /// Largest value under the signed reading.
    pub fn smax(self) -> i128 {
        if self.width >= 128 {
            i128::MAX
        } else {
            (1i128 << (self.width - 1)) - 1
        }
    }

    /// Largest value under the unsigned reading (as `u128`).
    pub fn umax(self) -> u128 {
        if self.width >= 128 {
            u128::MAX
        } else {
            (1u128 << self.width) - 1
        }
    }

    /// Truncates `bits` to this width.
    pub fn mask(self, bits: u128) -> u128 {
        bits & self.umax()
    }

    /// Reads `bits` (already masked) as a signed number.
    pub fn to_signed(self, bits: u128) -> i128 {
        let bits = self.mask(bits);
        if self.width >= 128 {
            bits as i128
        } else if bits >> (self.width - 1) & 1 == 1 {
            (bits as i128) - (1i128 << self.width)
        } else {
            bits as i128
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "i{}", self.width)
    }
}

/// A constant bit-vector.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Const {
    /// The type.
    pub ty: Ty,
    /// The bits, masked to the width.
    pub bits: u128,
}

impl Const {
    /// A constant of type `ty` from any integer (wrapped to the width).
    pub fn new(ty: Ty, value: i128) -> Const {
        Const {
            ty,
            bits: ty.mask(value as u128),
        }
    }

    /// A boolean constant.
    pub fn bool(b: bool) -> Const {
        Const {
            ty: Ty::BOOL,
            bits: b as u128,
        }
    }

    /// Signed reading.
    pub fn signed(self) -> i128 {
        self.ty.to_signed(self.bits)
    }

    /// Unsigned reading.
    pub fn unsigned(self) -> u128 {
        self.bits
    }
}

/// An operand of an instruction.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Operand {
    /// An SSA value.
    Value(ValueId),
    /// A constant.
    Const(Const),
    /// `undef` or `poison` of the given type: any value, possibly different at each use.
    Undef(Ty),
}

impl Operand {
    /// The SSA value it reads, if it reads one.
    pub fn value(&self) -> Option<ValueId> {
        match self {
            Operand::Value(v) => Some(*v),
            _ => None,
        }
    }
}

/// Binary operations on bit-vectors of equal width.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum BinOp {
    /// Addition.
    Add,
    /// Subtraction.
    Sub,
    /// Multiplication.
    Mul,
    /// Unsigned division.
    UDiv,
    /// Signed division (truncating).
    SDiv,
    /// Unsigned remainder.
    URem,
    /// Signed remainder (sign of the dividend).
    SRem,
    /// Shift left.
    Shl,
    /// Logical shift right.
    LShr,
    /// Arithmetic shift right.
    AShr,
    /// Bitwise and (logical and on `i1`).
    And,
    /// Bitwise or.
    Or,
    /// Bitwise exclusive or.
    Xor,
}

/// Integer comparison predicates, as in LLVM's `icmp`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum CmpPred {
    /// Equal.
    Eq,
    /// Not equal.
    Ne,
    /// Unsigned greater than.
    Ugt,
    /// Unsigned greater or equal.
    Uge,
    /// Unsigned less than.
    Ult,
    /// Unsigned less or equal.
    Ule,
    /// Signed greater than.
    Sgt,
    /// Signed greater or equal.
    Sge,
    /// Signed less than.
    Slt,
    /// Signed less or equal.
    Sle,
}

impl CmpPred {
    /// The predicate that holds of `(b, a)` exactly when this one holds of `(a, b)`:
    /// `a < b` is `b > a`.
    pub fn swapped(self) -> CmpPred {
        use CmpPred::*;
        match self {
            Eq => Eq,
            Ne => Ne,
            Ugt => Ult,
            Uge => Ule,
            Ult => Ugt,
            Ule => Uge,
            Sgt => Slt,
            Sge => Sle,
            Slt => Sgt,
            Sle => Sge,
        }
    }

    /// The predicate that holds exactly when this one does not.
    pub fn negated(self) -> CmpPred {
        use CmpPred::*;
        match self {
            Eq => Ne,
            Ne => Eq,
            Ugt => Ule,
            Uge => Ult,
            Ult => Uge,
            Ule => Ugt,
            Sgt => Sle,
            Sge => Slt,
            Slt => Sge,
            Sle => Sgt,
        }
    }

    /// Whether it holds of two values of one type, given as their unsigned (`ua`, `ub`)
    /// and signed (`sa`, `sb`) readings.
    pub fn holds(self, (ua, ub): (u128, u128), (sa, sb): (i128, i128)) -> bool {
        use CmpPred::*;
        match self {
            Eq => ua == ub,
            Ne => ua != ub,
            Ugt => ua > ub,
            Uge => ua >= ub,
            Ult => ua < ub,
            Ule => ua <= ub,
            Sgt => sa > sb,
            Sge => sa >= sb,
            Slt => sa < sb,
            Sle => sa <= sb,
        }
    }

    /// True for the unsigned orderings.
    pub fn is_unsigned(self) -> bool {
        matches!(
            self,
            CmpPred::Ugt | CmpPred::Uge | CmpPred::Ult | CmpPred::Ule
        )
    }
}

/// Width conversions.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum CastOp {
    /// Zero extension.
    ZExt,
    /// Sign extension.
    SExt,
    /// Truncation (keep the low bits).
    Trunc,
}

/// Flags of an arithmetic operation: a violated flag makes the result poison, which the
/// analysis treats as "does not happen".
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct ArithFlags {
    /// No signed wrap.
    pub nsw: bool,
    /// No unsigned wrap.
    pub nuw: bool,
    /// Exact division / shift (no remainder, no bits shifted out).
    pub exact: bool,
    /// Part of a test a sanitizer inserted (LLVM's `!nosanitize`): not itself checked, since
    /// the test keeps its operands in range where it runs.
    pub nosanitize: bool,
}

/// Which bits of a value a bit count counts (`llvm.ctpop`, `llvm.ctlz`, `llvm.cttz`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum BitCount {
    /// The bits set.
    Ones,
    /// The zeros above the highest bit set (the width for zero).
    LeadingZeros,
    /// The zeros below the lowest bit set (the width for zero).
    TrailingZeros,
}

impl BitCount {
    /// The count over the low `width` bits of `x`.
    pub fn eval(self, x: u128, width: u32) -> u128 {
        let x = Ty { width }.mask(x);
        let count = match self {
            BitCount::Ones => x.count_ones(),
            BitCount::LeadingZeros => x.leading_zeros().saturating_sub(128 - width),
            BitCount::TrailingZeros => x.trailing_zeros().min(width),
        };
        u128::from(count)
    }

    /// The intrinsic's name in LLVM, without its type suffix.
    pub fn name(self) -> &'static str {
        match self {
            BitCount::Ones => "ctpop",
            BitCount::LeadingZeros => "ctlz",
            BitCount::TrailingZeros => "cttz",
        }
    }

    /// The count of the name [`BitCount::name`] gives.
    pub fn from_name(name: &str) -> Option<BitCount> {
        [
            BitCount::Ones,
            BitCount::LeadingZeros,
            BitCount::TrailingZeros,
        ]
        .into_iter()
        .find(|c| c.name() == name)
    }

    /// The least and greatest counts of the values in `[lo, hi]` (unsigned, `lo <= hi`,
    /// both within `width` bits).
    pub fn range(self, lo: u128, hi: u128, width: u32) -> (u128, u128) {
        let w = u128::from(width);
        // The bit length of the largest value: no value of the range has a bit above it.
        let length = |x: u128| 128 - u128::from(x.leading_zeros());
        match self {
            // Leading zeros fall as the value grows.
            BitCount::LeadingZeros => (self.eval(hi, width), self.eval(lo, width)),
            BitCount::Ones => {
                let least = u128::from(lo > 0 && lo == hi) * u128::from(lo.count_ones());
                (least.max(u128::from(lo > 0)), length(hi))
            }
            BitCount::TrailingZeros if lo == hi => {
                let c = self.eval(lo, width);
                (c, c)
            }
            // A nonzero value has a bit set at or below its bit length.
            BitCount::TrailingZeros if lo > 0 => (0, length(hi) - 1),
            BitCount::TrailingZeros => (0, w),
        }
    }
}

/// The right-hand side of an assignment.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Expr {
    /// A copy of an operand.
    Use(Operand),
    /// A binary operation.
    Binary {
        /// The operator.
        op: BinOp,
        /// Left operand.
        lhs: Operand,
        /// Right operand.
        rhs: Operand,
        /// Poison-producing flags.
        flags: ArithFlags,
    },
    /// A comparison, of type `i1`.
    Cmp {
        /// The predicate.
        pred: CmpPred,
        /// Left operand.
        lhs: Operand,
        /// Right operand.
        rhs: Operand,
    },
    /// A width conversion to the destination's type.
    Cast {
        /// The conversion.
        op: CastOp,
        /// The converted operand.
        arg: Operand,
    },
    /// `cond ? on_true : on_false`.
    Select {
        /// The `i1` condition.
        cond: Operand,
        /// Value when the condition holds.
        on_true: Operand,
        /// Value otherwise.
        on_false: Operand,
    },
    /// A count of the bits of an operand, of the operand's type.
    BitCount {
        /// What is counted.
        count: BitCount,
        /// The counted operand.
        arg: Operand,
    },
}

/// Why a value is arbitrary.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum HavocReason {
    /// A nondeterministic input (`__VERIFIER_nondet_int`, ...): replayable, in call order.
    Nondet {
        /// The called function, for the counterexample trace.
        function: String,
    },
    /// The result of a call to a function with no body.
    UnknownCall {
        /// The called function (or `<indirect>`).
        function: String,
    },
    /// A load from memory that was not promoted to SSA.
    Load,
    /// Whether a pointer parameter is `NULL` (a caller may pass it): nonzero when it is.
    NullParam {
        /// The parameter's name.
        param: String,
    },
    /// The bytes of the object a pointer parameter points into, from the pointer on (any
    /// size a caller may pass; `size(param)` in a precondition).
    SizeParam {
        /// The parameter's name.
        param: String,
    },
    /// The address a pointer parameter holds, an `i64` at least 0 (any address a caller
    /// may pass; `(intptr_t)param` in a precondition), read by comparisons and differences
    /// of pointers into two parameters' objects.
    AddressParam {
        /// The parameter's name.
        param: String,
    },
    /// The bytes at a constant offset of a pointer parameter's object at the entry, read as
    /// the havoc's type (a field of `*param`; `*(int32_t *)((char *)param + offset)` in a
    /// precondition). Defined by the memory model for each exact cell of the object.
    FieldParam {
        /// The parameter's name.
        param: String,
        /// The byte offset from the pointer.
        offset: u64,
    },
    /// Whether an access stays inside its object, when the memory model describes neither
    /// the object nor its size (a pointer parameter's object, a pointer loaded from memory).
    UnknownBounds,
    /// Something the lifter does not model (pointer arithmetic, floats, wide integers, ...).
    Unsupported {
        /// What it was, for the warning.
        what: String,
    },
}

/// A source location from debug info.
#[derive(Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct SourceLoc {
    /// File name as recorded by the compiler.
    pub file: String,
    /// 1-based line (0 when unknown).
    pub line: u32,
    /// 1-based column (0 when unknown).
    pub column: u32,
}

impl fmt::Display for SourceLoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)?;
        if self.column > 0 {
            write!(f, ":{}", self.column)?;
        }
        Ok(())
    }
}

/// What a base of memory is, which decides its contents at the entry and what it may
/// overlap. Two distinct `Local` bases never overlap, and a `Local` never overlaps any other
/// base; a `Pointee` may overlap any other `Pointee` and any `Global` (the caller may pass
/// two pointers into one object, or a pointer to a global). No write changes a `Constant`
/// (writing an object defined `const` is undefined behaviour, and it lies in read-only
/// memory), so no other base's write overlaps it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum BaseKind {
    /// A local of the function (an `alloca`): its bytes are arbitrary until stored.
    Local,
    /// A global variable: arbitrary at the entry (other code may have written it).
    Global,
    /// A global constant: its initializer in every execution, written by no code.
    Constant,
    /// The object a pointer parameter of the entry points into (offset 0 is where the
    /// pointer points): arbitrary at the entry.
    Pointee,
}

/// A base of memory.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct BaseInfo {
    /// What it is.
    pub kind: BaseKind,
    /// Display name (the variable, global or parameter).
    pub name: String,
    /// How many bytes its object has.
    pub size: ObjectSize,
}

/// The size in bytes of the object of a base.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum ObjectSize {
    /// Not known (the object a pointer parameter points into, a global only declared).
    Unknown,
    /// A constant (a local or a global of a complete type).
    Bytes(u64),
    /// An `i64` value (read as signed) the function defines where it allocates the object
    /// (`malloc(n)`, a variable-length array), before any access to it.
    Value(ValueId),
}

/// A byte address: `offset` bytes (an `i64`, read as signed) from the start of `base`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Address {
    /// The object.
    pub base: BaseId,
    /// Byte offset, of type `i64`.
    pub offset: Operand,
}

/// A memory operation. They exist only between the lifter and the pass that lowers memory
/// ([`pass::Pass::lowers_memory`]): no engine ever sees one.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum MemOp {
    /// `dest := the bytes at addr` (little endian, as many as `dest`'s type has, rounded up
    /// to whole bytes).
    Load {
        /// Destination.
        dest: ValueId,
        /// Where.
        addr: Address,
    },
    /// `the bytes at addr := value`.
    Store {
        /// Where.
        addr: Address,
        /// What.
        value: Operand,
    },
    /// The whole object `base` is written: each listed offset holds its value (`Undef` for a
    /// pointer or float), every other byte is zero when `zero_rest`, arbitrary otherwise (an
    /// initializer: of a global when the program starts, of a local from a constant).
    Init {
        /// The object.
        base: BaseId,
        /// Offset and value of each leaf that is not known to be zero, by offset.
        leaves: Vec<(i64, Operand)>,
        /// Whether every byte not in a leaf is zero.
        zero_rest: bool,
    },
    /// Every byte of each base becomes arbitrary (what a call of unknown code, a store
    /// through an unknown pointer or the start of a local's lifetime does).
    Clobber {
        /// The bases written.
        bases: Vec<BaseId>,
    },
}

/// Why an engine never meets an [`Inst::Mem`]: the frontend runs the memory pass on every
/// lifted function, and when it fails makes every load arbitrary instead.
pub const MEMORY_IS_LOWERED: &str =
    "memory operations are lowered by the memory pass before any engine reads a function";

/// An instruction of a block.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Inst {
    /// `dest := expr`.
    Assign {
        /// Destination.
        dest: ValueId,
        /// Right-hand side.
        expr: Expr,
    },
    /// `dest := any value of its type`.
    Havoc {
        /// Destination.
        dest: ValueId,
        /// Why the value is arbitrary.
        reason: HavocReason,
    },
    /// Paths on which `cond` is false end here, silently (`assume`).
    Assume {
        /// The `i1` condition.
        cond: Operand,
    },
    /// A memory operation: only before the memory pass.
    Mem(MemOp),
}

impl Inst {
    /// The operands the instruction reads, in order.
    pub fn operands(&self) -> Vec<&Operand> {
        match self {
            Inst::Assign { expr, .. } => match expr {
                Expr::Use(a) | Expr::Cast { arg: a, .. } | Expr::BitCount { arg: a, .. } => {
                    vec![a]
                }
                Expr::Binary { lhs, rhs, .. } | Expr::Cmp { lhs, rhs, .. } => vec![lhs, rhs],
                Expr::Select {
                    cond,
                    on_true,
                    on_false,
                } => vec![cond, on_true, on_false],
            },
            Inst::Havoc { .. } => vec![],
            Inst::Assume { cond } => vec![cond],
            Inst::Mem(MemOp::Load { addr, .. }) => vec![&addr.offset],
            Inst::Mem(MemOp::Store { addr, value }) => vec![&addr.offset, value],
            Inst::Mem(MemOp::Init { leaves, .. }) => leaves.iter().map(|(_, v)| v).collect(),
            Inst::Mem(MemOp::Clobber { .. }) => vec![],
        }
    }

    /// The value this instruction defines, if any.
    pub fn dest(&self) -> Option<ValueId> {
        match self {
            Inst::Assign { dest, .. }
            | Inst::Havoc { dest, .. }
            | Inst::Mem(MemOp::Load { dest, .. }) => Some(*dest),
            Inst::Assume { .. } | Inst::Mem(_) => None,
        }
    }
}

/// A control-flow edge with the parallel assignment its target's phi nodes perform.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Edge {
    /// Target block.
    pub target: BlockId,
    /// Parallel assignment `dest := operand` (the phi nodes of `target` for this edge).
    pub moves: Vec<(ValueId, Operand)>,
}

/// How a block ends.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Terminator {
    /// Unconditional jump.
    Jump(Edge),
    /// Two-way branch on an `i1` operand.
    Branch {
        /// Condition.
        cond: Operand,
        /// Taken when `cond` is true.
        then_edge: Edge,
        /// Taken when `cond` is false.
        else_edge: Edge,
    },
    /// Multi-way branch on an integer.
    Switch {
        /// The scrutinee.
        on: Operand,
        /// Cases with distinct values.
        cases: Vec<(Const, Edge)>,
        /// Taken when no case matches.
        default: Edge,
    },
    /// Return from the function (normal end of an execution of the entry).
    Return,
    /// The path ends without error (`abort`, `exit`, `unreachable`, a failed assumption).
    Stop,
    /// Error site: reaching it violates the check.
    Error(CheckId),
}

impl Terminator {
    /// The outgoing edges, in a fixed order (then before else, cases before default).
    pub fn edges(&self) -> Vec<&Edge> {
        match self {
            Terminator::Jump(e) => vec![e],
            Terminator::Branch {
                then_edge,
                else_edge,
                ..
            } => vec![then_edge, else_edge],
            Terminator::Switch { cases, default, .. } => cases
                .iter()
                .map(|(_, e)| e)
                .chain(std::iter::once(default))
                .collect(),
            Terminator::Return | Terminator::Stop | Terminator::Error(_) => vec![],
        }
    }

    /// The outgoing edges, mutable, in the order of [`Terminator::edges`].
    pub fn edges_mut(&mut self) -> Vec<&mut Edge> {
        match self {
            Terminator::Jump(e) => vec![e],
            Terminator::Branch {
                then_edge,
                else_edge,
                ..
            } => vec![then_edge, else_edge],
            Terminator::Switch { cases, default, .. } => cases
                .iter_mut()
                .map(|(_, e)| e)
                .chain(std::iter::once(default))
                .collect(),
            Terminator::Return | Terminator::Stop | Terminator::Error(_) => vec![],
        }
    }

    /// Successor blocks, in the order of [`Terminator::edges`].
    pub fn successors(&self) -> Vec<BlockId> {
        self.edges().iter().map(|e| e.target).collect()
    }
}

/// A basic block.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Block {
    /// Display name (the LLVM label, or a synthetic one).
    pub name: String,
    /// Straight-line instructions.
    pub insts: Vec<Inst>,
    /// Source location of each instruction (same length as `insts`), `None` when unknown.
    pub locs: Vec<Option<SourceLoc>>,
    /// How the block ends.
    pub term: Terminator,
    /// Source location of the terminator.
    pub term_loc: Option<SourceLoc>,
}

/// Data about an SSA value.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ValueInfo {
    /// Its type.
    pub ty: Ty,
    /// Display name (LLVM name when it had one).
    pub name: String,
    /// The source variable it holds, from debug info (`llvm.dbg.value`), if known.
    pub source_name: Option<String>,
}

/// A lifted function.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Function {
    /// Its (LLVM) name.
    pub name: String,
    /// Integer parameters, in order (arbitrary values when the function is an entry).
    pub params: Vec<ValueId>,
    /// All SSA values.
    pub values: Vec<ValueInfo>,
    /// All blocks; `blocks[entry]` starts execution.
    pub blocks: Vec<Block>,
    /// The entry block.
    pub entry: BlockId,
    /// Where the function is defined.
    pub loc: Option<SourceLoc>,
    /// The bases of memory its [`MemOp`]s address; empty after the memory pass.
    pub bases: Vec<BaseInfo>,
}

impl Function {
    /// The block with this id.
    pub fn block(&self, id: BlockId) -> &Block {
        &self.blocks[id.index()]
    }

    /// The info of a value.
    pub fn value(&self, id: ValueId) -> &ValueInfo {
        &self.values[id.index()]
    }

    /// Type of an operand.
    pub fn operand_ty(&self, op: &Operand) -> Ty {
        match op {
            Operand::Value(v) => self.value(*v).ty,
            Operand::Const(c) => c.ty,
            Operand::Undef(ty) => *ty,
        }
    }

    /// All block ids in order.
    pub fn block_ids(&self) -> impl Iterator<Item = BlockId> {
        (0..self.blocks.len() as u32).map(BlockId)
    }

    /// Whether some instruction is a memory operation (before the memory pass).
    pub fn has_memory(&self) -> bool {
        self.blocks
            .iter()
            .any(|b| b.insts.iter().any(|i| matches!(i, Inst::Mem(_))))
    }

    /// The checks whose error sites lie in this function, in block order.
    pub fn checks(&self) -> Vec<CheckId> {
        self.blocks
            .iter()
            .filter_map(|b| match b.term {
                Terminator::Error(c) => Some(c),
                _ => None,
            })
            .collect()
    }
}

/// How an assertion was written in the source.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum CheckKind {
    /// A call of an error function (`reach_error`, `__VERIFIER_error`, `__assert_fail`).
    ErrorCall {
        /// The called function.
        function: String,
    },
    /// An assertion function whose argument must be non-zero (`__ikos_assert`,
    /// `polyfocus_assert`, `__VERIFIER_assert` when only declared).
    AssertCall {
        /// The called function.
        function: String,
    },
    /// A call that may call an error function whose address escapes (an indirect call, or
    /// a call of code that is not analyzed and may call back): an error site wherever the
    /// call is reached.
    MayCallError {
        /// The error function.
        function: String,
    },
    /// A signed operation whose mathematical result does not fit its type: `add`, `sub`,
    /// `mul` marked `nsw` (only unoptimized code keeps the flag), `sdiv`/`srem` of the
    /// smallest value by -1. Added by the pass `runtime-checks` before the operation.
    Overflow {
        /// The operation.
        op: BinOp,
    },
    /// A signed overflow in an expression clang folded into a constant (it warns
    /// `-Winteger-overflow`): there is no operation left, so the error site is reached when
    /// the function starts (`ir::pass::reach_at_entry`).
    FoldedOverflow,
    /// A division or remainder by zero (`udiv`, `sdiv`, `urem`, `srem`).
    DivByZero {
        /// The operation.
        op: BinOp,
    },
    /// A shift whose amount, read unsigned (so a negative amount too), is not less than the
    /// width (`shl`, `lshr`, `ashr`).
    Shift {
        /// The operation.
        op: BinOp,
    },
    /// A left shift of a signed value whose base is negative, or whose result `a * 2^b` is
    /// not representable in its type (C11 6.5.7p4; in C, shifting a one into the sign bit is
    /// undefined too): the check clang's `-fsanitize=shift-base` inserts before a signed
    /// `<<` (its handler call is the error site, see `frontend::ubsan`), at the place UBSan
    /// reports. It is tested only when the amount is in range (the amount has a check of
    /// its own, [`CheckKind::Shift`]).
    ShiftBase {
        /// The left operand's type as clang names it (`int`), after promotion.
        ty: String,
    },
    /// An array subscript out of the bounds of an array of statically known size: the check
    /// clang's `-fsanitize=array-bounds` inserts before the subscript (its handler call is
    /// the error site, see `frontend::lift`), at the place UBSan reports. The index must be
    /// below the size when the element is read or written, and at most the size when only
    /// its address is taken (`&a[n]`, one past the end, is C).
    Bounds {
        /// The array's type as clang names it (`int[10]`).
        array: String,
    },
    /// A load, store or library access (`memcpy`, `strlen`, ...) through a pointer that
    /// touches bytes outside the live object the pointer points into: `0 <= offset` and
    /// `offset + width <= size` of its object (SV-COMP's `valid-deref`; ASan's
    /// `*-buffer-overflow`).
    OutOfBounds {
        /// The access, for people (`read of 4 bytes`, `memcpy`).
        access: String,
    },
    /// A dereference of a pointer that may be `NULL` (an unchecked `malloc` result, a
    /// parameter compared with `NULL` on another path): `valid-deref`.
    NullDeref {
        /// The access, for people (`read of 4 bytes`).
        access: String,
    },
    /// A dereference of a pointer that holds the indeterminate value of an uninitialized
    /// local (`char *s; *s = 0;`): undefined behaviour whatever the value, `valid-deref`.
    /// Its replay fills uninitialized locals with a pattern that faults as an address.
    UninitPointer {
        /// The access, for people (`read of 1 byte`).
        access: String,
    },
    /// An access to an object after it was freed: `valid-deref` (ASan's
    /// `heap-use-after-free`).
    UseAfterFree {
        /// The access, for people (`write of 8 bytes`).
        access: String,
    },
    /// A `free` (or `realloc`) of a pointer that is not the start of a live object an
    /// allocator returned, a second `free` among them: `valid-free` (ASan's `double-free`,
    /// `bad-free`).
    InvalidFree,
    /// An allocated object neither freed nor reachable from a global or a live pointer when
    /// `main` returns or `exit` is called: `valid-memtrack` (LeakSanitizer).
    Leak,
}

impl CheckKind {
    /// The class `--checks` selects this check by.
    pub fn class(&self) -> CheckClass {
        match self {
            CheckKind::ErrorCall { .. }
            | CheckKind::AssertCall { .. }
            | CheckKind::MayCallError { .. } => CheckClass::Assert,
            CheckKind::Overflow { .. } | CheckKind::FoldedOverflow => CheckClass::Overflow,
            CheckKind::DivByZero { .. } => CheckClass::Div,
            CheckKind::Shift { .. } | CheckKind::ShiftBase { .. } => CheckClass::Shift,
            CheckKind::Bounds { .. } => CheckClass::Bounds,
            CheckKind::OutOfBounds { .. }
            | CheckKind::NullDeref { .. }
            | CheckKind::UninitPointer { .. }
            | CheckKind::UseAfterFree { .. }
            | CheckKind::InvalidFree
            | CheckKind::Leak => CheckClass::Memory,
        }
    }

    /// What a violation of the check is, for people ("signed overflow in `*`"); `None`
    /// for assertions, whose text is their source line.
    pub fn runtime_error(&self) -> Option<String> {
        let symbol = |op: &BinOp| match op {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::UDiv | BinOp::SDiv => "/",
            BinOp::URem | BinOp::SRem => "%",
            BinOp::Shl => "<<",
            BinOp::LShr | BinOp::AShr => ">>",
            BinOp::And => "&",
            BinOp::Or => "|",
            BinOp::Xor => "^",
        };
        match self {
            CheckKind::ErrorCall { .. }
            | CheckKind::AssertCall { .. }
            | CheckKind::MayCallError { .. } => None,
            CheckKind::Overflow { op } => Some(format!("signed overflow in `{}`", symbol(op))),
            CheckKind::FoldedOverflow => Some(
                "signed overflow in a constant expression (folded by the compiler)".to_string(),
            ),
            CheckKind::DivByZero { op } => Some(format!("`{}` by zero", symbol(op))),
            CheckKind::Shift { op } => Some(format!(
                "`{}` by an amount not less than the width",
                symbol(op)
            )),
            CheckKind::ShiftBase { ty } => Some(format!(
                "`<<` of a negative value, or with a result not representable in `{ty}`"
            )),
            CheckKind::Bounds { array } => {
                Some(format!("array index out of the bounds of `{array}`"))
            }
            CheckKind::OutOfBounds { access } => {
                Some(format!("{access} outside the object pointed to"))
            }
            CheckKind::NullDeref { access } => Some(format!("{access} through a null pointer")),
            CheckKind::UninitPointer { access } => {
                Some(format!("{access} through an uninitialized pointer"))
            }
            CheckKind::UseAfterFree { access } => Some(format!("{access} of a freed object")),
            CheckKind::InvalidFree => Some(
                "`free` of a pointer that is not the start of a live allocated object".to_string(),
            ),
            CheckKind::Leak => {
                Some("allocated memory no longer reachable and not freed".to_string())
            }
        }
    }

    /// The subproperty of SV-COMP's `valid-memsafety` a violation of this check refutes, or
    /// `None` for checks outside that property.
    pub fn memsafety_subproperty(&self) -> Option<&'static str> {
        match self {
            CheckKind::OutOfBounds { .. }
            | CheckKind::NullDeref { .. }
            | CheckKind::UninitPointer { .. }
            | CheckKind::UseAfterFree { .. } => Some("valid-deref"),
            CheckKind::InvalidFree => Some("valid-free"),
            CheckKind::Leak => Some("valid-memtrack"),
            _ => None,
        }
    }

    /// The name the native replay's runtime prints when this check fails
    /// (`POLYFOCUS-RUNTIME-ERROR name file:line:col`, `runtime/replay.c`): the class's name,
    /// except `shift-base` for a shift's base, whose handler is the amount's too.
    pub fn native_name(&self) -> &'static str {
        match self {
            CheckKind::ShiftBase { .. } => "shift-base",
            other => other.class().name(),
        }
    }
}

/// What `--checks` selects: assertions, or one kind of runtime error.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum CheckClass {
    /// Assertions and error calls (today's checks).
    Assert,
    /// Signed overflow ([`CheckKind::Overflow`]).
    Overflow,
    /// Division by zero ([`CheckKind::DivByZero`]).
    Div,
    /// Shift amounts out of range ([`CheckKind::Shift`]) and left shifts of signed values
    /// that are negative or overflow ([`CheckKind::ShiftBase`]).
    Shift,
    /// Array subscripts out of bounds ([`CheckKind::Bounds`]).
    Bounds,
    /// Memory safety through pointers: accesses outside their object, null dereferences,
    /// use after free, invalid frees and leaks ([`CheckKind::memsafety_subproperty`]).
    Memory,
}

impl CheckClass {
    /// Every class, in the order of `--checks all`.
    pub const ALL: [CheckClass; 6] = [
        CheckClass::Assert,
        CheckClass::Overflow,
        CheckClass::Div,
        CheckClass::Shift,
        CheckClass::Bounds,
        CheckClass::Memory,
    ];

    /// The name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            CheckClass::Assert => "assert",
            CheckClass::Overflow => "overflow",
            CheckClass::Div => "div",
            CheckClass::Shift => "shift",
            CheckClass::Bounds => "bounds",
            CheckClass::Memory => "memory",
        }
    }

    /// The class of a name given on the command line.
    pub fn from_name(name: &str) -> Option<CheckClass> {
        CheckClass::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// A set of [`CheckClass`]es: what a run checks.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CheckSelection {
    bits: u8,
}

impl CheckSelection {
    /// Assertions only: the default, today's behaviour.
    pub const ASSERT: CheckSelection = CheckSelection { bits: 1 };

    /// Exactly these classes.
    pub fn of(classes: &[CheckClass]) -> CheckSelection {
        CheckSelection {
            bits: classes.iter().fold(0, |acc, c| acc | 1 << (*c as u8)),
        }
    }

    /// Whether `class` is selected.
    pub fn contains(self, class: CheckClass) -> bool {
        self.bits & (1 << (class as u8)) != 0
    }

    /// Whether any runtime-error class is selected.
    pub fn has_runtime_checks(self) -> bool {
        CheckClass::ALL
            .into_iter()
            .any(|c| c != CheckClass::Assert && self.contains(c))
    }

    /// Parses a comma-separated list of class names or `all`; never empty.
    pub fn parse(list: &str) -> Result<CheckSelection, String> {
        let mut classes = Vec::new();
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            if name == "all" {
                classes.extend(CheckClass::ALL);
                continue;
            }
            match CheckClass::from_name(name) {
                Some(c) => classes.push(c),
                None => {
                    let names: Vec<&str> = CheckClass::ALL.iter().map(|c| c.name()).collect();
                    return Err(format!(
                        "unknown check `{name}` (expected {} or all)",
                        names.join(", ")
                    ));
                }
            }
        }
        if classes.is_empty() {
            return Err("no check selected".to_string());
        }
        Ok(CheckSelection::of(&classes))
    }
}

impl fmt::Display for CheckSelection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = CheckClass::ALL
            .into_iter()
            .filter(|c| self.contains(*c))
            .map(|c| c.name())
            .collect();
        write!(f, "{}", names.join(","))
    }
}

/// An assertion: a property whose error site must be unreachable.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Check {
    /// Its id.
    pub id: CheckId,
    /// How it was written.
    pub kind: CheckKind,
    /// Where it is in the source.
    pub loc: Option<SourceLoc>,
    /// The function that contains its error site (after inlining: the analyzed entry).
    pub function: String,
}

/// A diagnostic from lifting: something that was over-approximated.
#[derive(Clone, PartialEq, Eq, Debug, PartialOrd, Ord)]
pub struct LiftWarning {
    /// The function where it happened.
    pub function: String,
    /// What was over-approximated, and how.
    pub message: String,
    /// Where, when known.
    pub loc: Option<SourceLoc>,
}

/// Where the code of a lifted function comes from, by source location (the front end reads
/// it from the debug info after inlining): the locations of its own code, and those of code
/// inlined into it, with the function each came from (or [`UNKNOWN_ORIGIN`]). A location
/// may be in both, or come from several functions (a header's `static inline` function in
/// two units).
#[derive(Clone, Default, PartialEq, Eq, Debug)]
pub struct CodeOrigins {
    /// Locations of the function's own code.
    pub own: std::collections::BTreeSet<SourceLoc>,
    /// Locations of inlined code, with the functions it came from.
    pub inlined: std::collections::BTreeMap<SourceLoc, std::collections::BTreeSet<String>>,
}

/// The origin of inlined code whose function is no longer in the module (inlined
/// everywhere and deleted), or whose debug info does not say.
pub const UNKNOWN_ORIGIN: &str = "";

impl CodeOrigins {
    /// Whether the code at `at` is the function's own, and only that.
    pub fn only_own(&self, at: &SourceLoc) -> bool {
        self.own.contains(at) && !self.inlined.contains_key(at)
    }

    /// The one function still in the module whose inlined code alone is at `at`, if any.
    pub fn only_copy_of(&self, at: &SourceLoc) -> Option<&str> {
        if self.own.contains(at) {
            return None;
        }
        match self.inlined.get(at)?.iter().collect::<Vec<_>>().as_slice() {
            [one] if one.as_str() != UNKNOWN_ORIGIN => Some(one.as_str()),
            _ => None,
        }
    }
}

/// A lifted module: the entry functions to analyze and the assertions in them.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Module {
    /// Functions to analyze (the entries, with callees inlined where possible).
    pub functions: Vec<Function>,
    /// All assertions, indexed by [`CheckId`].
    pub checks: Vec<Check>,
    /// What lifting over-approximated.
    pub warnings: Vec<LiftWarning>,
    /// Functions whose assertions the analysis cannot decide soundly: they are unknown.
    pub unanalyzable: Vec<Unanalyzable>,
    /// The integer constants of the program's defined functions that are not among
    /// `functions` (callees that stay calls, such as recursive ones), sorted: the
    /// counterexample search's native runs try inputs near them, since the native program
    /// runs those callees too.
    pub callee_constants: Vec<i128>,
    /// Assertions that hold when every `float` and `double` operation is rounded to its
    /// type (what the bit-precise run over floats proved), in a build that evaluates them
    /// in the x87's extended precision instead (i386 without SSE arithmetic), which is not
    /// modeled: they are reported unknown with that reason unless proved otherwise.
    pub held_at_own_precision: Vec<CheckId>,
    /// Whether the leak checks ([`CheckKind::Leak`]) cover every object the program may
    /// allocate, so that no leak check also means no leak.
    pub leaks: LeakCoverage,
    /// Where each lifted function's code comes from, by function name.
    pub origins: std::collections::BTreeMap<String, CodeOrigins>,
    /// The lifted functions that only their direct calls can enter (not visible outside
    /// the module, address never taken, not a named entry): the calls of such a function
    /// may check its preconditions.
    pub called_only_directly: std::collections::BTreeSet<String>,
}

/// Whether the leak checks of a run cover the whole program (`--checks memory`).
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub enum LeakCoverage {
    /// Leaks are not checked (no memory checks).
    #[default]
    NotChecked,
    /// Every object the program may allocate has a leak check: the entry is `main`, lifted
    /// alone, and each allocation in it is followed or has a leak check of its own. When
    /// the program allocates nothing, there is no leak check and no leak.
    Whole,
    /// The leak checks do not cover the whole program: why.
    Partial(String),
}

/// A function whose lifted form does not have the semantics of the source (it calls
/// `setjmp`, which returns twice), or that the front end's budget left out: its assertions
/// are reported unknown with the reason.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Unanalyzable {
    /// The function.
    pub function: String,
    /// Why, for the report.
    pub reason: String,
    /// Whether it is left out because it exceeds a budget of the front end (a function too
    /// large to optimize and lift within `FrontendConfig::lift_limit`), not because its
    /// semantics are not modeled: its checks are reported `unknown (budget: front end)`.
    pub over_budget: bool,
}

impl Module {
    /// The check with this id.
    pub fn check(&self, id: CheckId) -> &Check {
        &self.checks[id.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::BitCount;

    const COUNTS: [BitCount; 3] = [
        BitCount::Ones,
        BitCount::LeadingZeros,
        BitCount::TrailingZeros,
    ];

    #[test]
    fn counts_agree_with_the_machine_instructions() {
        for x in [0u32, 1, 2, 3, 0x80, 0x8000_0000, 0xFFFF_FFFF, 0x00F0_0F00] {
            let x128 = u128::from(x);
            assert_eq!(BitCount::Ones.eval(x128, 32), u128::from(x.count_ones()));
            assert_eq!(
                BitCount::LeadingZeros.eval(x128, 32),
                u128::from(x.leading_zeros())
            );
            assert_eq!(
                BitCount::TrailingZeros.eval(x128, 32),
                u128::from(x.trailing_zeros())
            );
        }
        // Bits above the width are not counted.
        assert_eq!(BitCount::LeadingZeros.eval(0x1_0000, 16), 16);
        assert_eq!(BitCount::Ones.eval(0x1_FFFF, 16), 16);
    }

    #[test]
    fn ranges_contain_every_count_of_the_values_between_their_bounds() {
        // Every range of 8-bit values, against the counts of each value in it.
        for lo in 0u128..256 {
            for hi in lo..256 {
                for count in COUNTS {
                    let (least, most) = count.range(lo, hi, 8);
                    for x in lo..=hi {
                        let c = count.eval(x, 8);
                        assert!(least <= c && c <= most, "{count:?} of {x} in [{lo}, {hi}]");
                    }
                    if count == BitCount::LeadingZeros {
                        // Exact: both ends are counts of the range's ends.
                        assert_eq!((least, most), (count.eval(hi, 8), count.eval(lo, 8)));
                    }
                }
            }
        }
    }
}
