//! Requirements at call sites: where a function is called that may be entered only by its
//! direct calls, each precondition under which some of its checks hold
//! ([`contract::Requirement`], `holds if P` of its own analysis) becomes a check of the
//! caller, `P` over the call's arguments. When every call meets it, those checks hold in
//! every execution.
//!
//! The inputs of `P` at a call: an integer parameter is its argument; the null flag of a
//! pointer parameter is whether the argument is `NULL` (`null.rs`: never for a local, a
//! global or an allocation; for a pointer read back from memory, whether its word is zero,
//! `words.rs`); the size of its object from the pointer on is the argument's
//! object size less its offset, and the check also requires the offset to lie in
//! `[0, size]` (the callee's accesses start at the pointer, which must point into its
//! object). The address a pointer parameter holds is the argument's machine address when
//! its object is the caller's own pointer parameter's (`pointers.rs`); when the addresses
//! of one object cancel in the bound (`lowPrefix <= dst` for two pointers into one
//! buffer), the bound reads their offsets, each required in `[0, size]` (an object and its
//! end lie inside the address space, so their addresses do not wrap). A field of a pointer
//! parameter's object is a read of the argument's object at that offset just before the
//! call, which the memory model lowers like any load. An argument the
//! memory model does not describe makes the check unknown.
//!
//! Each requirement is checked *independently*: a nondeterministic choice skips it, and
//! nothing after it assumes it, so a proof of one never rests on another that may fail.

use inkwell::llvm_sys::prelude::*;

use super::contract::{Bound, Input, Obligation, Requirement};
use super::{int_ty, raw, Lifter};
use crate::ir::{
    Address, BinOp, CastOp, CheckKind, CmpPred, Const, Expr, Inst, MemOp, ObjectSize, Operand,
    SourceLoc, Ty,
};

const I64: Ty = Ty { width: 64 };

/// A term of a bound at a call: the value, its width, whether read signed, its coefficient.
type Term = (Operand, u32, bool, i128);

impl Lifter {
    /// At a call `inst` of `callee` (named `name`), a check of each of its requirements.
    pub(super) fn check_requirements(
        &mut self,
        current: &mut usize,
        inst: LLVMValueRef,
        callee: LLVMValueRef,
        name: &str,
        loc: &Option<SourceLoc>,
    ) {
        let Some(requirements) = self.requirements.get(name).cloned() else {
            return;
        };
        for (idx, requirement) in requirements.iter().enumerate() {
            let piece = *current;
            let cond = self
                .requirement_cond(piece, inst, callee, requirement, loc)
                .unwrap_or(Operand::Undef(Ty::BOOL));
            let check = self.new_check(
                CheckKind::ErrorCall {
                    function: "polyfocus.requirement".into(),
                },
                loc.clone(),
            );
            self.obligations.push((
                check,
                Obligation::Requirement {
                    function: name.to_string(),
                    requirement: idx,
                },
            ));
            self.independent_check(current, cond, check, loc);
        }
    }

    /// `requirement` over the arguments of the call `inst` of `callee`, as a new `i1`;
    /// `None` when an input cannot be read there.
    fn requirement_cond(
        &mut self,
        piece: usize,
        inst: LLVMValueRef,
        callee: LLVMValueRef,
        requirement: &Requirement,
        loc: &Option<SourceLoc>,
    ) -> Option<Operand> {
        let params = raw::params(callee);
        let position = |param: &str| {
            params.iter().enumerate().position(|(i, &p)| {
                let n = raw::name(p);
                if n.is_empty() {
                    param == format!("arg{i}")
                } else {
                    param == n
                }
            })
        };
        let mut inside: Vec<Operand> = Vec::new();
        let mut evaluated: Vec<Vec<Term>> = Vec::new();
        for bound in &requirement.disjuncts {
            let mut terms: Vec<Term> = Vec::new();
            let mut addresses: Vec<(Address, bool, i128)> = Vec::new();
            for (input, signed, coef) in &bound.terms {
                let at = position(input.param())?;
                if at >= raw::num_args(inst) as usize {
                    return None;
                }
                let arg = raw::operand(inst, at as u32);
                let (value, width) = match input {
                    Input::Value(_) => {
                        let width = int_ty(arg)?.width;
                        let value = self.operand(arg, loc)?;
                        if matches!(value, Operand::Undef(_)) {
                            return None;
                        }
                        (value, width)
                    }
                    Input::Null(_) => {
                        let flag = match self.address(arg) {
                            Some(addr) => self
                                .null_at(piece, &addr, loc)
                                .unwrap_or(Operand::Const(Const::new(Ty::BOOL, 0))),
                            // A pointer loaded from memory: whether its word is zero.
                            None => self.null_by_word(piece, arg, loc)?,
                        };
                        (flag, 1)
                    }
                    Input::Size(_) => {
                        let addr = self.address(arg)?;
                        let size = match self.memory.bases[addr.base.index()].size {
                            ObjectSize::Unknown => return None,
                            ObjectSize::Bytes(n) => Operand::Const(Const::new(I64, n as i128)),
                            ObjectSize::Value(v) => Operand::Value(v),
                        };
                        let zero = Operand::Const(Const::new(I64, 0));
                        let offset = addr.offset.clone();
                        inside.push(self.compare(piece, CmpPred::Sge, offset.clone(), zero, loc));
                        inside.push(self.compare(piece, CmpPred::Sle, offset.clone(), size, loc));
                        let left = self.binary(piece, BinOp::Sub, (size, offset), I64, loc);
                        (left, 64)
                    }
                    Input::Address(_) => {
                        addresses.push((self.address(arg)?, *signed, *coef));
                        continue;
                    }
                    Input::Field { offset, width, .. } => {
                        (self.field_at(piece, arg, *offset, *width, loc)?, *width)
                    }
                };
                terms.push((value, width, *signed, *coef));
            }
            let read = self.address_terms(piece, &addresses, &mut inside, loc)?;
            terms.extend(read);
            evaluated.push(terms);
        }
        let disjuncts = &requirement.disjuncts;
        let mut truths: Vec<Operand> = Vec::new();
        let mut paired = vec![false; disjuncts.len()];
        for i in 0..disjuncts.len() {
            if paired[i] {
                continue;
            }
            let single = match evaluated[i].as_slice() {
                [(x, width, signed, _)] => Some((*x, *width, *signed)),
                _ => None,
            };
            let excluded = single.and_then(|(x, width, signed)| {
                (i + 1..disjuncts.len()).find_map(|j| {
                    let c = excluded_value(&disjuncts[i], &disjuncts[j])?;
                    (!paired[j] && fits(c, width, signed)).then_some((j, x, width, c))
                })
            });
            if let Some((j, x, width, c)) = excluded {
                // `x <= c - 1 || x >= c + 1` is `x != c`: one comparison that votes for
                // neither reading of `x`, so a word read unsigned keeps its `x >u 0`.
                paired[j] = true;
                let c = Operand::Const(Const::new(Ty::int(width), c));
                truths.push(self.compare(piece, CmpPred::Ne, x, c, loc));
                continue;
            }
            truths.push(self.bound_holds(piece, &evaluated[i], &disjuncts[i], loc)?);
        }
        let (first, rest) = truths.split_first()?;
        let mut cond = *first;
        for t in rest {
            cond = self.binary(piece, BinOp::Or, (cond, *t), Ty::BOOL, loc);
        }
        for c in inside {
            cond = self.binary(piece, BinOp::And, (cond, c), Ty::BOOL, loc);
        }
        Some(cond)
    }

    /// The `width`-bit integer at byte `offset` of the object `arg` points to, read just
    /// before the call (what the callee finds there at its entry); the memory model gives
    /// it the value the caller's cells hold, or an arbitrary one. The read is no access of
    /// the program: it checks nothing.
    fn field_at(
        &mut self,
        piece: usize,
        arg: LLVMValueRef,
        offset: u64,
        width: u32,
        loc: &Option<SourceLoc>,
    ) -> Option<Operand> {
        let addr = self.address(arg)?;
        let displacement = Operand::Const(Const::new(I64, i128::from(offset)));
        let offset = self.add_offset(piece, addr.offset, displacement, loc)?;
        let dest = self.synthetic_value(Ty::int(width), "field");
        let addr = Address {
            base: addr.base,
            offset,
        };
        self.push(piece, Inst::Mem(MemOp::Load { dest, addr }), loc.clone());
        Some(Operand::Value(dest))
    }

    /// The terms of a bound over the addresses `addresses` (each with its reading and
    /// coefficient) at a call, pushing to `inside` what they require. `None` when an
    /// address cannot be read there.
    fn address_terms(
        &mut self,
        piece: usize,
        addresses: &[(Address, bool, i128)],
        inside: &mut Vec<Operand>,
        loc: &Option<SourceLoc>,
    ) -> Option<Vec<Term>> {
        let mut terms = Vec::new();
        let mut bases: Vec<_> = addresses.iter().map(|(a, _, _)| a.base).collect();
        bases.sort();
        bases.dedup();
        for base in bases {
            let group: Vec<_> = addresses
                .iter()
                .filter(|(a, _, _)| a.base == base)
                .collect();
            let mut sum: i128 = 0;
            for (_, _, coef) in &group {
                sum = sum.checked_add(*coef)?;
            }
            // An address reads the same signed and unsigned (`pointers.rs`).
            if sum == 0 {
                // The object's start cancels; its pointers do not wrap while inside it.
                let size = self.size_operand(base)?;
                for (addr, _, coef) in group {
                    let zero = Operand::Const(Const::new(I64, 0));
                    let offset = addr.offset.clone();
                    inside.push(self.compare(piece, CmpPred::Sge, offset.clone(), zero, loc));
                    inside.push(self.compare(piece, CmpPred::Sle, offset.clone(), size, loc));
                    terms.push((offset, 64, true, *coef));
                }
                continue;
            }
            for (addr, signed, coef) in group {
                let value = self.machine_address(piece, addr, loc)?;
                terms.push((value, 64, *signed, *coef));
            }
        }
        Some(terms)
    }

    /// `Σ terms + constant >= 0` computed exactly: in 64 bits when they hold every value
    /// of the sum, else in 128; `None` when 128 do not either.
    fn bound_holds(
        &mut self,
        piece: usize,
        terms: &[Term],
        bound: &Bound,
        loc: &Option<SourceLoc>,
    ) -> Option<Operand> {
        let mut magnitude: i128 = bound.constant.checked_abs()?;
        for &(_, width, signed, coef) in terms {
            let reach: i128 = 1i128.checked_shl(if signed { width - 1 } else { width })?;
            magnitude = magnitude.checked_add(coef.checked_abs()?.checked_mul(reach)?)?;
        }
        let wide = if magnitude < 1 << 62 {
            I64
        } else if magnitude < 1 << 125 {
            Ty::int(128)
        } else {
            return None;
        };
        let mut acc = Operand::Const(Const::new(wide, bound.constant));
        for &(value, width, signed, coef) in terms {
            let x = if width == wide.width {
                value
            } else {
                let dest = self.synthetic_value(wide, "requirement");
                let op = if signed { CastOp::SExt } else { CastOp::ZExt };
                let expr = Expr::Cast { op, arg: value };
                self.push(piece, Inst::Assign { dest, expr }, loc.clone());
                Operand::Value(dest)
            };
            let term = self.binary(
                piece,
                BinOp::Mul,
                (x, Operand::Const(Const::new(wide, coef))),
                wide,
                loc,
            );
            acc = self.binary(piece, BinOp::Add, (acc, term), wide, loc);
        }
        let zero = Operand::Const(Const::new(wide, 0));
        Some(self.compare(piece, CmpPred::Sge, acc, zero, loc))
    }
}

/// The one value of its input that two bounds `a·x + k₁ >= 0` and `-a·x + k₂ >= 0` (`a` is
/// ±1, `k₁ + k₂ = -2`) leave out, when it is a value of the input's reading: their
/// disjunction is `x != c`.
fn excluded_value(first: &Bound, second: &Bound) -> Option<i128> {
    let ([(x, signed, a)], [(y, signed2, b)]) = (first.terms.as_slice(), second.terms.as_slice())
    else {
        return None;
    };
    if x != y || signed != signed2 || a.abs() != 1 || *b != -a {
        return None;
    }
    if first.constant.checked_add(second.constant)? != -2 {
        return None;
    }
    // a·x >= -k₁ and a·x <= -k₁ - 2: only a·x = -k₁ - 1 is left out.
    let c = a * (-first.constant).checked_sub(1)?;
    Some(c)
}

/// Whether `c` is a value of a `width`-bit integer's reading.
fn fits(c: i128, width: u32, signed: bool) -> bool {
    if width >= 127 {
        return false;
    }
    let span = 1i128 << width;
    if signed {
        -span / 2 <= c && c < span / 2
    } else {
        0 <= c && c < span
    }
}
