//! Runtime-error checks: before each operation that may misbehave, a branch to an
//! error site of its own kind.
//!
//! For each selected [`CheckClass`], every operation of that kind gets, just before it, a
//! test of the condition under which it misbehaves, written with ordinary IR operations of
//! the operand width (or twice the width), and a branch to a new error site whose
//! [`Check`] has the operation's [`CheckKind`] and source location:
//! - `overflow`: `add`, `sub`, `mul` marked `nsw` overflow the signed range, and `sdiv`,
//!   `srem` of the smallest value by -1. Only unoptimized code keeps its `nsw` flags
//!   (`normalize::distrust_optimized_flags` drops the others, see ARCHITECTURE.md "Integer
//!   semantics"), so optimized bitcode gets no overflow checks on `add`, `sub`, `mul`.
//!   `shl` is not checked (clang does not mark C's shifts `nsw`).
//! - `div`: the divisor of `udiv`, `sdiv`, `urem`, `srem` is zero.
//! - `shift`: the amount of `shl`, `lshr`, `ashr`, read unsigned, is not less than the
//!   width (a negative amount of C is a large unsigned one). The base of a signed `<<` is
//!   checked by clang's own test, lifted by the front end (`frontend::ubsan`): `shl` does
//!   not say whether C's operand was signed.
//!
//! The conditions are exact and never wrap on the path where they are evaluated:
//! `a + b` overflows iff `b > 0 && a > MAX - b` or `b <= 0 && a < MIN - b` (a decision tree
//! on `b > 0`, so `MAX - b` is computed only where it fits); `a - b` alike; `a * b` of at
//! most 32 bits iff the product of the sign-extended operands in twice the width leaves the
//! range; `a * b` of more bits iff `b != 0`, and either `b == -1 && a == MIN` or the wrapped
//! product divided by `b` is not `a` (the classic test; `b` is then neither 0 nor -1, so the
//! division is defined). With a constant operand the test is a range of the other operand.
//! Because the conditions are ordinary operations, lowering, the solver formula, bounded
//! model checking, the interpreter and the readings need no change.
//!
//! After the check, the operation keeps its flags: the path that continues is exactly the one
//! where it does not misbehave, so assuming it (as `nsw` does) drops no execution. The
//! original block keeps its id and the instructions before the first checked operation; the
//! rest goes to new blocks appended to the function, so no edge is renumbered.

use super::super::*;

/// See the module documentation.
pub struct RuntimeChecks {
    selection: CheckSelection,
}

/// A function with its new checks.
pub struct Instrumented {
    /// The function, with a branch to a new error site before each checked operation.
    pub function: Function,
    /// The new checks, numbered from the `first_check` given, in block order.
    pub checks: Vec<Check>,
}

impl RuntimeChecks {
    /// The pass for the runtime-error classes of `selection` (assertions are not its
    /// business).
    pub fn new(selection: CheckSelection) -> RuntimeChecks {
        RuntimeChecks { selection }
    }

    /// A short name, for reports of a broken invariant.
    pub fn name(&self) -> &'static str {
        "runtime-checks"
    }

    /// The one invariant the output has.
    pub fn invariant(&self) -> &'static str {
        "every selected operation that may misbehave is preceded by a branch to an error site \
         of its kind, taken exactly when it misbehaves"
    }

    /// Instruments `func`; the new checks get the ids `first_check`, `first_check + 1`, ...
    pub fn run(&self, func: Function, first_check: u32) -> Instrumented {
        let mut builder = Builder {
            checks: vec![],
            next_check: first_check,
            function_name: func.name.clone(),
            func,
        };
        let n_blocks = builder.func.blocks.len();
        for b in 0..n_blocks {
            builder.instrument_block(self, BlockId(b as u32));
        }
        Instrumented {
            function: builder.func,
            checks: builder.checks,
        }
    }

    /// The checks of one instruction, in the order they are tested, with the decision tree
    /// saying when each one fails.
    fn checks_of(&self, func: &Function, inst: &Inst) -> Vec<(CheckKind, Tree)> {
        let Inst::Assign {
            expr:
                Expr::Binary {
                    op,
                    lhs,
                    rhs,
                    flags,
                },
            ..
        } = inst
        else {
            return vec![];
        };
        let ty = func.operand_ty(lhs);
        if ty.is_bool() || flags.nosanitize {
            return vec![];
        }
        let (a, b) = (*lhs, *rhs);
        let mut res = Vec::new();
        let want = |class| self.selection.contains(class);
        match op {
            BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem => {
                if want(CheckClass::Div) {
                    if let Some(tree) = divisor_zero(ty, b) {
                        res.push((CheckKind::DivByZero { op: *op }, tree));
                    }
                }
                if want(CheckClass::Overflow) && matches!(op, BinOp::SDiv | BinOp::SRem) {
                    if let Some(tree) = division_overflow(ty, a, b) {
                        res.push((CheckKind::Overflow { op: *op }, tree));
                    }
                }
            }
            BinOp::Add | BinOp::Sub | BinOp::Mul if flags.nsw && want(CheckClass::Overflow) => {
                if let Some(tree) = arithmetic_overflow(*op, ty, a, b) {
                    res.push((CheckKind::Overflow { op: *op }, tree));
                }
            }
            BinOp::Shl | BinOp::LShr | BinOp::AShr if want(CheckClass::Shift) => {
                if let Some(tree) = shift_out_of_range(ty, b) {
                    res.push((CheckKind::Shift { op: *op }, tree));
                }
            }
            _ => {}
        }
        res
    }
}

/// Makes the error site of `check` reachable whenever `func` starts: a new entry block that
/// branches on an arbitrary choice to the error site or to the old entry. For a runtime error
/// with no operation to branch before (a signed overflow clang folded into a constant,
/// [`CheckKind::FoldedOverflow`]): such a check is never proved, and only a native run that
/// misbehaves at its place confirms it.
pub fn reach_at_entry(func: &mut Function, check: CheckId, loc: Option<SourceLoc>) {
    let name = func.name.clone();
    let mut builder = Builder {
        checks: vec![],
        next_check: check.0,
        function_name: name,
        func: std::mem::replace(
            func,
            Function {
                name: String::new(),
                params: vec![],
                values: vec![],
                blocks: vec![],
                entry: BlockId(0),
                loc: None,
                bases: vec![],
            },
        ),
    };
    let old_entry = builder.func.entry;
    let start = builder.new_block("folded.overflow".to_string());
    let error = builder.new_block("folded.overflow.error".to_string());
    let b = &mut builder.func.blocks[error.index()];
    b.term = Terminator::Error(check);
    b.term_loc = loc.clone();
    // An arbitrary choice, not a true condition: the folded operation does not end the
    // execution, so the checks after it (another folded overflow) stay reachable.
    let choice = ValueId(builder.func.values.len() as u32);
    builder.func.values.push(ValueInfo {
        ty: Ty::BOOL,
        name: format!("folded{}", check.0),
        source_name: None,
    });
    let b = &mut builder.func.blocks[start.index()];
    b.insts.push(Inst::Havoc {
        dest: choice,
        reason: HavocReason::Unsupported {
            what: "a signed overflow the compiler folded into a constant".to_string(),
        },
    });
    b.locs.push(loc.clone());
    b.term = Terminator::Branch {
        cond: Operand::Value(choice),
        then_edge: Edge {
            target: error,
            moves: vec![],
        },
        else_edge: Edge {
            target: old_entry,
            moves: vec![],
        },
    };
    b.term_loc = loc;
    builder.func.entry = start;
    *func = builder.func;
}

/// A value computed for a test: an operand, or an operation on values.
#[derive(Clone, Debug)]
enum Term {
    Leaf(Operand),
    Binary(BinOp, Box<Term>, Box<Term>, Ty),
    Cast(CastOp, Box<Term>, Ty),
}

/// A comparison of two terms.
#[derive(Clone, Debug)]
struct Test {
    pred: CmpPred,
    lhs: Term,
    rhs: Term,
}

/// When a check fails: a decision tree of comparisons.
#[derive(Clone, Debug)]
enum Tree {
    /// The operation misbehaves.
    Error,
    /// It does not.
    Fine,
    /// Decided by a comparison.
    If(Test, Box<Tree>, Box<Tree>),
}

fn leaf(op: Operand) -> Term {
    Term::Leaf(op)
}

fn konst(ty: Ty, value: i128) -> Term {
    Term::Leaf(Operand::Const(Const::new(ty, value)))
}

fn binary(op: BinOp, lhs: Term, rhs: Term, ty: Ty) -> Term {
    Term::Binary(op, Box::new(lhs), Box::new(rhs), ty)
}

fn test(pred: CmpPred, lhs: Term, rhs: Term) -> Test {
    Test { pred, lhs, rhs }
}

fn fails_if(t: Test) -> Tree {
    Tree::If(t, Box::new(Tree::Error), Box::new(Tree::Fine))
}

fn branch(t: Test, then: Tree, otherwise: Tree) -> Tree {
    Tree::If(t, Box::new(then), Box::new(otherwise))
}

/// Always fails: a comparison that is true, so that the continuation stays reachable in the
/// graph (an operation whose divisor is the constant 0, say).
fn always(ty: Ty) -> Tree {
    fails_if(test(CmpPred::Eq, konst(ty, 0), konst(ty, 0)))
}

fn constant(op: Operand) -> Option<Const> {
    match op {
        Operand::Const(c) => Some(c),
        _ => None,
    }
}

/// Fails when `x` (of type `ty`, signed) is outside `[lo, hi]`; `None` when the range is the
/// whole type.
fn outside(ty: Ty, x: Operand, lo: i128, hi: i128) -> Option<Tree> {
    let (min, max) = (ty.smin(), ty.smax());
    if lo > hi {
        return Some(always(ty));
    }
    let above = (hi < max).then(|| test(CmpPred::Sgt, leaf(x), konst(ty, hi)));
    let below = (lo > min).then(|| test(CmpPred::Slt, leaf(x), konst(ty, lo)));
    match (below, above) {
        (None, None) => None,
        (Some(t), None) | (None, Some(t)) => Some(fails_if(t)),
        (Some(b), Some(a)) => Some(branch(b, Tree::Error, fails_if(a))),
    }
}

fn div_floor(a: i128, b: i128) -> i128 {
    let q = a / b;
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

fn div_ceil(a: i128, b: i128) -> i128 {
    let q = a / b;
    if (a % b != 0) && ((a < 0) == (b < 0)) {
        q + 1
    } else {
        q
    }
}

/// When `op nsw a, b` overflows.
fn arithmetic_overflow(op: BinOp, ty: Ty, a: Operand, b: Operand) -> Option<Tree> {
    let (min, max) = (ty.smin(), ty.smax());
    let (ca, cb) = (
        constant(a).map(Const::signed),
        constant(b).map(Const::signed),
    );
    if let (Some(x), Some(y)) = (ca, cb) {
        let r = match op {
            BinOp::Add => x + y,
            BinOp::Sub => x - y,
            _ => x.checked_mul(y).unwrap_or(i128::MAX),
        };
        return (r < min || r > max).then(|| always(ty));
    }
    match (op, ca, cb) {
        (BinOp::Add, _, Some(k)) => outside(ty, a, min - k, max - k),
        (BinOp::Add, Some(k), _) => outside(ty, b, min - k, max - k),
        (BinOp::Sub, _, Some(k)) => outside(ty, a, min + k, max + k),
        (BinOp::Sub, Some(k), _) => outside(ty, b, k - max, k - min),
        (BinOp::Mul, _, Some(k)) => product_range(ty, a, k),
        (BinOp::Mul, Some(k), _) => product_range(ty, b, k),
        (BinOp::Add, None, None) => Some(branch(
            test(CmpPred::Sgt, leaf(b), konst(ty, 0)),
            fails_if(test(
                CmpPred::Sgt,
                leaf(a),
                binary(BinOp::Sub, konst(ty, max), leaf(b), ty),
            )),
            fails_if(test(
                CmpPred::Slt,
                leaf(a),
                binary(BinOp::Sub, konst(ty, min), leaf(b), ty),
            )),
        )),
        (BinOp::Sub, None, None) => Some(branch(
            test(CmpPred::Slt, leaf(b), konst(ty, 0)),
            fails_if(test(
                CmpPred::Sgt,
                leaf(a),
                binary(BinOp::Add, konst(ty, max), leaf(b), ty),
            )),
            fails_if(test(
                CmpPred::Slt,
                leaf(a),
                binary(BinOp::Add, konst(ty, min), leaf(b), ty),
            )),
        )),
        (BinOp::Mul, None, None) if ty.width <= 32 => {
            let wide = Ty::int(2 * ty.width);
            let ext = |x: Operand| Term::Cast(CastOp::SExt, Box::new(leaf(x)), wide);
            let product = binary(BinOp::Mul, ext(a), ext(b), wide);
            Some(branch(
                test(CmpPred::Sgt, product.clone(), konst(wide, max)),
                Tree::Error,
                fails_if(test(CmpPred::Slt, product, konst(wide, min))),
            ))
        }
        (BinOp::Mul, None, None) => {
            let product = binary(BinOp::Mul, leaf(a), leaf(b), ty);
            let quotient = binary(BinOp::SDiv, product, leaf(b), ty);
            Some(branch(
                test(CmpPred::Eq, leaf(b), konst(ty, 0)),
                Tree::Fine,
                branch(
                    test(CmpPred::Eq, leaf(b), konst(ty, -1)),
                    fails_if(test(CmpPred::Eq, leaf(a), konst(ty, min))),
                    fails_if(test(CmpPred::Ne, quotient, leaf(a))),
                ),
            ))
        }
        _ => None,
    }
}

/// When `x * k` overflows, `k` a constant.
fn product_range(ty: Ty, x: Operand, k: i128) -> Option<Tree> {
    let (min, max) = (ty.smin(), ty.smax());
    let (lo, hi) = match k {
        0 => return None,
        k if k > 0 => (div_ceil(min, k), div_floor(max, k)),
        k => (div_ceil(max, k), div_floor(min, k)),
    };
    outside(ty, x, lo.max(min), hi.min(max))
}

/// When `sdiv`/`srem a, b` overflows: `a == MIN && b == -1`.
fn division_overflow(ty: Ty, a: Operand, b: Operand) -> Option<Tree> {
    let min = ty.smin();
    match (
        constant(a).map(Const::signed),
        constant(b).map(Const::signed),
    ) {
        (Some(x), Some(y)) => (x == min && y == -1).then(|| always(ty)),
        (_, Some(-1)) => Some(fails_if(test(CmpPred::Eq, leaf(a), konst(ty, min)))),
        (_, Some(_)) => None,
        (Some(x), None) if x == min => Some(fails_if(test(CmpPred::Eq, leaf(b), konst(ty, -1)))),
        (Some(_), None) => None,
        (None, None) => Some(branch(
            test(CmpPred::Eq, leaf(b), konst(ty, -1)),
            fails_if(test(CmpPred::Eq, leaf(a), konst(ty, min))),
            Tree::Fine,
        )),
    }
}

/// When the divisor `b` is zero.
fn divisor_zero(ty: Ty, b: Operand) -> Option<Tree> {
    match constant(b) {
        Some(c) => (c.bits == 0).then(|| always(ty)),
        None => Some(fails_if(test(CmpPred::Eq, leaf(b), konst(ty, 0)))),
    }
}

/// When the shift amount `b`, unsigned, is not less than the width.
fn shift_out_of_range(ty: Ty, b: Operand) -> Option<Tree> {
    let width = i128::from(ty.width);
    match constant(b) {
        Some(c) => (c.unsigned() >= width as u128).then(|| always(ty)),
        None => Some(fails_if(test(CmpPred::Uge, leaf(b), konst(ty, width)))),
    }
}

/// The function being rewritten and the checks created so far.
struct Builder {
    func: Function,
    checks: Vec<Check>,
    next_check: u32,
    function_name: String,
}

impl Builder {
    fn instrument_block(&mut self, pass: &RuntimeChecks, id: BlockId) {
        let needs = self.func.blocks[id.index()]
            .insts
            .iter()
            .any(|i| !pass.checks_of(&self.func, i).is_empty());
        if !needs {
            return;
        }
        let block = &mut self.func.blocks[id.index()];
        let insts = std::mem::take(&mut block.insts);
        let locs = std::mem::take(&mut block.locs);
        let term = std::mem::replace(&mut block.term, Terminator::Stop);
        let term_loc = block.term_loc.take();
        let name = block.name.clone();
        let mut current = id;
        for (inst, loc) in insts.into_iter().zip(locs) {
            for (kind, tree) in pass.checks_of(&self.func, &inst) {
                let error = self.error_block(kind, &loc, &name);
                let cont = self.new_block(format!("{name}.ok"));
                self.emit(current, &tree, error, cont, &loc, &name);
                current = cont;
            }
            let block = &mut self.func.blocks[current.index()];
            block.insts.push(inst);
            block.locs.push(loc);
        }
        let block = &mut self.func.blocks[current.index()];
        block.term = term;
        block.term_loc = term_loc;
    }

    fn new_block(&mut self, name: String) -> BlockId {
        let id = BlockId(self.func.blocks.len() as u32);
        self.func.blocks.push(Block {
            name,
            insts: vec![],
            locs: vec![],
            term: Terminator::Stop,
            term_loc: None,
        });
        id
    }

    fn error_block(&mut self, kind: CheckKind, loc: &Option<SourceLoc>, name: &str) -> BlockId {
        let check = CheckId(self.next_check);
        self.next_check += 1;
        self.checks.push(Check {
            id: check,
            kind,
            loc: loc.clone(),
            function: self.function_name.clone(),
        });
        let block = self.new_block(format!("{name}.{}", "runtime.error"));
        let b = &mut self.func.blocks[block.index()];
        b.term = Terminator::Error(check);
        b.term_loc = loc.clone();
        block
    }

    /// Ends block `at` with the decision of `tree`: to `error` when it fails, to `cont`
    /// otherwise.
    fn emit(
        &mut self,
        at: BlockId,
        tree: &Tree,
        error: BlockId,
        cont: BlockId,
        loc: &Option<SourceLoc>,
        name: &str,
    ) {
        let jump = |target| {
            Terminator::Jump(Edge {
                target,
                moves: vec![],
            })
        };
        match tree {
            Tree::Error => self.func.blocks[at.index()].term = jump(error),
            Tree::Fine => self.func.blocks[at.index()].term = jump(cont),
            Tree::If(t, then, otherwise) => {
                let lhs = self.materialize(at, &t.lhs, loc);
                let rhs = self.materialize(at, &t.rhs, loc);
                let cond = self.assign(
                    at,
                    Ty::BOOL,
                    Expr::Cmp {
                        pred: t.pred,
                        lhs,
                        rhs,
                    },
                    loc,
                );
                let target = |tree: &Tree, this: &mut Builder| match tree {
                    Tree::Error => error,
                    Tree::Fine => cont,
                    Tree::If(..) => this.new_block(format!("{name}.check")),
                };
                let then_block = target(then, self);
                let else_block = target(otherwise, self);
                self.func.blocks[at.index()].term = Terminator::Branch {
                    cond,
                    then_edge: Edge {
                        target: then_block,
                        moves: vec![],
                    },
                    else_edge: Edge {
                        target: else_block,
                        moves: vec![],
                    },
                };
                self.func.blocks[at.index()].term_loc = loc.clone();
                if matches!(**then, Tree::If(..)) {
                    self.emit(then_block, then, error, cont, loc, name);
                }
                if matches!(**otherwise, Tree::If(..)) {
                    self.emit(else_block, otherwise, error, cont, loc, name);
                }
            }
        }
    }

    fn materialize(&mut self, at: BlockId, term: &Term, loc: &Option<SourceLoc>) -> Operand {
        match term {
            Term::Leaf(op) => *op,
            Term::Binary(op, lhs, rhs, ty) => {
                let lhs = self.materialize(at, lhs, loc);
                let rhs = self.materialize(at, rhs, loc);
                let expr = Expr::Binary {
                    op: *op,
                    lhs,
                    rhs,
                    flags: ArithFlags::default(),
                };
                self.assign(at, *ty, expr, loc)
            }
            Term::Cast(op, arg, ty) => {
                let arg = self.materialize(at, arg, loc);
                self.assign(at, *ty, Expr::Cast { op: *op, arg }, loc)
            }
        }
    }

    fn assign(&mut self, at: BlockId, ty: Ty, expr: Expr, loc: &Option<SourceLoc>) -> Operand {
        let dest = ValueId(self.func.values.len() as u32);
        self.func.values.push(ValueInfo {
            ty,
            name: format!("chk{}", dest.0),
            source_name: None,
        });
        let block = &mut self.func.blocks[at.index()];
        block.insts.push(Inst::Assign { dest, expr });
        block.locs.push(loc.clone());
        Operand::Value(dest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn product_ranges_are_exact_for_every_small_constant() {
        let ty = Ty::int(8);
        for k in -128i128..=127 {
            let tree = product_range(ty, Operand::Value(ValueId(0)), k);
            for x in -128i128..=127 {
                let overflows = !(-128..=127).contains(&(x * k));
                let fails = match &tree {
                    None => false,
                    Some(t) => evaluate(t, x),
                };
                assert_eq!(fails, overflows, "{x} * {k}");
            }
        }
    }

    /// Evaluates a tree whose tests compare the value `x` with constants.
    fn evaluate(tree: &Tree, x: i128) -> bool {
        match tree {
            Tree::Error => true,
            Tree::Fine => false,
            Tree::If(t, then, otherwise) => {
                let value = |term: &Term| match term {
                    Term::Leaf(Operand::Const(c)) => c.signed(),
                    Term::Leaf(Operand::Value(_)) => x,
                    other => panic!("not a leaf: {other:?}"),
                };
                let (l, r) = (value(&t.lhs), value(&t.rhs));
                let holds = match t.pred {
                    CmpPred::Sgt => l > r,
                    CmpPred::Slt => l < r,
                    CmpPred::Eq => l == r,
                    other => panic!("unexpected {other:?}"),
                };
                evaluate(if holds { then } else { otherwise }, x)
            }
        }
    }
}
