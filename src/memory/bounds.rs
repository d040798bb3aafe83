//! The updates of a segment's bounds that every kind shares: a segment says that a property
//! `P(x, o)` holds of every element `x` of a summary cell whose byte offset `o` (on the
//! summary's grid) has `lo <= o < hi`; this module keeps that true when elements are
//! written, whatever `P` is. The kinds differ only in their property and in how they decide
//! that a stored element satisfies it.
//!
//! **Invariant** (of every segment, at every point): every element of the base whose byte
//! offset `o` has `lo <= o < hi` satisfies `P`. It holds at the entry ([`empty`]: `[0, 0)`
//! holds nothing) and is kept by every update below, whatever the bounds and offsets,
//! wrap-around included:
//! - a store at `o` of an element that satisfies `P` ([`extend`]): `o == hi` gives
//!   `[lo, hi + s)` (a wrapped `hi + s` leaves a range inside the old one or empty); an
//!   empty segment restarts as `[o, o + s)`; anything else keeps the segment (an element
//!   of it still satisfies `P`, one outside is not in it). [`both_ends`] also extends a
//!   non-empty segment downwards (`o + s == lo` gives `[o, hi)`), for loops that fill an
//!   array from its end;
//! - a store at `o` of an element that may not satisfy `P` ([`cut`]): inside `[lo, hi)` it
//!   gives `[lo, o)`, or `[o + s, hi)` when `o == lo`; outside, the segment is kept.
//!   `o + s` does not wrap: the access is within its object (ARCHITECTURE.md, "What a
//!   proved rests on", item 5, which the memory model already rests on), whose bytes lie
//!   less than 2^63 from the address its offsets count from;
//! - a store that satisfies `P` exactly when an `i1` holds takes the first update where it
//!   does and the second where it does not (a select on it, [`store_when`]);
//! - a clobber, an initializer, or a write to a base that may alias this one empties the
//!   segment (an initializer of the whole object with an element that satisfies `P`
//!   everywhere may give [`everything`]: every offset but `i64::MAX`).
//!
//! Elements are distinct exactly when their offsets are: every access of a smashed base has
//! the summary's type and lies on one grid of that type's size (`cells.rs`). Every
//! condition is a single comparison, so that each side of a select is one guard the
//! engines can use (`!=` refutes a state where both sides are equal).
//!
//! A load inside the range reads an element that satisfies `P`: [`read_inside`] gives the
//! value `P` determines, [`assume_inside`] assumes `P` of the value read.

use super::emit::{constant, Bounds, Emit, Sym, SymExpr, I64};
use crate::ir::{Const, Operand, Ty};

/// The bounds of an empty segment.
pub fn empty() -> Bounds {
    Bounds {
        lo: constant(I64, 0),
        hi: constant(I64, 0),
    }
}

/// The bounds of a segment covering every offset but `i64::MAX`.
pub fn everything() -> Bounds {
    Bounds {
        lo: constant(I64, i64::MIN as i128),
        hi: constant(I64, i64::MAX as i128),
    }
}

/// A store at `o` of an element of `size` bytes that satisfies the property: at `hi` it
/// extends the segment, an empty segment restarts at it, anywhere else nothing changes.
pub fn extend(em: &mut dyn Emit, Bounds { lo, hi }: Bounds, o: Sym, size: i128) -> Bounds {
    let hi_s = em.emit(I64, SymExpr::Add(hi, constant(I64, size)));
    let o_s = em.emit(I64, SymExpr::Add(o, constant(I64, size)));
    let nonempty = em.emit(Ty::BOOL, SymExpr::Less(lo, hi));
    let at_hi = em.emit(Ty::BOOL, SymExpr::Equal(o, hi));
    let hi_extended = em.emit(I64, SymExpr::Select(at_hi, hi_s, hi));
    Bounds {
        lo: em.emit(I64, SymExpr::Select(nonempty, lo, o)),
        hi: em.emit(I64, SymExpr::Select(nonempty, hi_extended, o_s)),
    }
}

/// A store of an element that satisfies the property: [`extend`], and also at `lo - s` of
/// a non-empty segment it extends the segment downwards.
pub fn both_ends(em: &mut dyn Emit, bounds: Bounds, o: Sym, size: i128) -> Bounds {
    let Bounds { lo, hi } = bounds;
    let extended = extend(em, bounds, o, size);
    let o_s = em.emit(I64, SymExpr::Add(o, constant(I64, size)));
    let nonempty = em.emit(Ty::BOOL, SymExpr::Less(lo, hi));
    let at_lo = em.emit(Ty::BOOL, SymExpr::Equal(o_s, lo));
    let no = Sym::Op(Operand::Const(Const::bool(false)));
    let below = em.emit(Ty::BOOL, SymExpr::Select(nonempty, at_lo, no));
    Bounds {
        lo: em.emit(I64, SymExpr::Select(below, o, extended.lo)),
        hi: extended.hi,
    }
}

/// A store of an element that may not satisfy the property: at `lo` it moves `lo` past the
/// element (an empty segment stays empty), strictly inside the segment it cuts the segment
/// at `o`.
pub fn cut(em: &mut dyn Emit, bounds: Bounds, o: Sym, size: i128) -> Bounds {
    if bounds.surely_empty() {
        // `[lo, lo)` is empty and stays as it is whatever `o` (the selects below give it
        // back): no instruction for a segment no store of the property reached.
        return bounds;
    }
    let Bounds { lo, hi } = bounds;
    let o_s = em.emit(I64, SymExpr::Add(o, constant(I64, size)));
    let at_lo = em.emit(Ty::BOOL, SymExpr::Equal(o, lo));
    let below_lo = em.emit(Ty::BOOL, SymExpr::Less(o, lo));
    let below_hi = em.emit(Ty::BOOL, SymExpr::Less(o, hi));
    // Only inside: an empty segment keeps its bounds (they stay the canonical `[0, 0)`
    // rather than drifting, which a later restart would join badly with).
    let lo_at = em.emit(I64, SymExpr::Select(at_lo, o_s, lo));
    let lo_in = em.emit(I64, SymExpr::Select(below_hi, lo_at, lo));
    let lo2 = em.emit(I64, SymExpr::Select(below_lo, lo, lo_in));
    let hi_cut = em.emit(I64, SymExpr::Select(at_lo, hi, o));
    let hi_in = em.emit(I64, SymExpr::Select(below_hi, hi_cut, hi));
    let hi2 = em.emit(I64, SymExpr::Select(below_lo, hi, hi_in));
    Bounds { lo: lo2, hi: hi2 }
}

/// `on_true` where the `i1` `cond` holds, `on_false` elsewhere.
pub fn select(em: &mut dyn Emit, cond: Sym, on_true: Bounds, on_false: Bounds) -> Bounds {
    Bounds {
        lo: em.emit(I64, SymExpr::Select(cond, on_true.lo, on_false.lo)),
        hi: em.emit(I64, SymExpr::Select(cond, on_true.hi, on_false.hi)),
    }
}

/// How a store of an element that satisfies the property updates the bounds ([`extend`]
/// or [`both_ends`]).
pub type Extend = fn(&mut dyn Emit, Bounds, Sym, i128) -> Bounds;

/// The bounds after a store at `o` of an element that satisfies the property exactly when
/// the `i1` `holds`: `extended` where it does, [`cut`] where it does not (a select, unless
/// `holds` is a constant).
pub fn store_when(
    em: &mut dyn Emit,
    bounds: Bounds,
    o: Sym,
    size: i128,
    holds: Operand,
    extended: Extend,
) -> Bounds {
    match holds {
        Operand::Const(c) if c.bits != 0 => extended(em, bounds, o, size),
        Operand::Const(_) => cut(em, bounds, o, size),
        _ => {
            let on_true = extended(em, bounds, o, size);
            let on_false = cut(em, bounds, o, size);
            select(em, Sym::Op(holds), on_true, on_false)
        }
    }
}

/// What a load at `offset` reads: `inside` where the offset lies in the segment, `rest`
/// elsewhere.
pub fn read_inside(
    em: &mut dyn Emit,
    ty: Ty,
    Bounds { lo, hi }: Bounds,
    offset: Sym,
    inside: Sym,
    rest: Sym,
) -> Sym {
    let below_hi = em.emit(Ty::BOOL, SymExpr::Less(offset, hi));
    let below_lo = em.emit(Ty::BOOL, SymExpr::Less(offset, lo));
    let value = em.emit(ty, SymExpr::Select(below_hi, inside, rest));
    em.emit(ty, SymExpr::Select(below_lo, rest, value))
}

/// Assumes the `i1` `holds` where `offset` lies in the segment.
pub fn assume_inside(
    em: &mut dyn Emit,
    Bounds { lo, hi }: Bounds,
    offset: Operand,
    holds: Operand,
) {
    if holds == Operand::Const(Const::bool(true)) {
        return;
    }
    let o = Sym::Op(offset);
    let below_hi = em.emit(Ty::BOOL, SymExpr::Less(o, hi));
    let below_lo = em.emit(Ty::BOOL, SymExpr::Less(o, lo));
    let no = Sym::Op(Operand::Const(Const::bool(false)));
    let yes = Sym::Op(Operand::Const(Const::bool(true)));
    let inside = em.emit(Ty::BOOL, SymExpr::Select(below_lo, no, below_hi));
    let ok = em.emit(Ty::BOOL, SymExpr::Select(inside, Sym::Op(holds), yes));
    em.assume(ok);
}

#[cfg(test)]
pub(super) mod tests {
    //! The updates checked on concrete bounds and offsets, extreme ones included: after a
    //! store at `o`, every offset on the grid in the new range was in the old one, or is `o`
    //! and the stored element satisfies the property.

    use super::*;
    use crate::ir::{Expr, ValueId};

    /// Evaluates the updates on constants.
    pub struct Concrete;

    fn value(s: Sym) -> i128 {
        match s {
            Sym::Op(Operand::Const(c)) => c.signed(),
            other => panic!("not a constant: {other:?}"),
        }
    }

    impl Emit for Concrete {
        fn emit(&mut self, ty: Ty, expr: SymExpr) -> Sym {
            let v = match expr {
                SymExpr::Less(a, b) => (value(a) < value(b)) as i128,
                SymExpr::Equal(a, b) => (value(a) == value(b)) as i128,
                SymExpr::Add(a, b) => value(a).wrapping_add(value(b)),
                SymExpr::Select(c, t, f) => value(if value(c) != 0 { t } else { f }),
            };
            Sym::Op(Operand::Const(Const::new(ty, v)))
        }
        fn emit_expr(&mut self, _: Ty, _: Expr) -> Operand {
            unreachable!("the updates of bounds emit comparisons, additions and selects")
        }
        fn ty_of(&self, _: ValueId) -> Ty {
            unreachable!("the updates of bounds read no value")
        }
        fn assume(&mut self, _: Sym) {}
    }

    /// The size of an element, and the grid (slot 0).
    pub const SIZE: i128 = 4;

    /// Bounds worth trying: around 0 and at both ends of `i64`, on the grid or not.
    pub fn bounds() -> Vec<i128> {
        let (min, max) = (i64::MIN as i128, i64::MAX as i128);
        vec![min, min + 4, -8, -4, -1, 0, 4, 8, 12, max - 7, max - 3, max]
    }

    /// Offsets of elements on the grid whose last byte does not wrap.
    pub fn offsets() -> Vec<i128> {
        bounds()
            .into_iter()
            .filter(|o| o.rem_euclid(SIZE) == 0 && *o <= i64::MAX as i128 - SIZE)
            .collect()
    }

    pub fn range(lo: i128, hi: i128) -> Bounds {
        Bounds {
            lo: constant(I64, lo),
            hi: constant(I64, hi),
        }
    }

    /// The number of offsets on the grid in `[a, b)`.
    fn on_grid(a: i128, b: i128) -> i128 {
        if a >= b {
            0
        } else {
            (b - 1).div_euclid(SIZE) - (a + SIZE - 1).div_euclid(SIZE) + 1
        }
    }

    /// Whether the update from `old` to `new` of a store at `o` keeps the invariant, the
    /// stored element satisfying the property exactly when `satisfies`.
    pub fn kept(old: Bounds, new: Bounds, o: i128, satisfies: bool) -> bool {
        let (lo, hi) = (value(old.lo), value(old.hi));
        let (lo2, hi2) = (value(new.lo), value(new.hi));
        let in_new = lo2 <= o && o < hi2;
        let in_old = lo <= o && o < hi;
        let gained = if lo >= hi {
            on_grid(lo2, hi2)
        } else {
            on_grid(lo2, hi2.min(lo)) + on_grid(lo2.max(hi), hi2)
        };
        match satisfies {
            true => gained == (in_new && !in_old) as i128,
            false => gained == 0 && !in_new,
        }
    }

    #[test]
    fn every_update_keeps_the_invariant() {
        let mut em = Concrete;
        for lo in bounds() {
            for hi in bounds() {
                let old = range(lo, hi);
                for o in offsets() {
                    let at = constant(I64, o);
                    let updates = [
                        (extend(&mut em, old, at, SIZE), true),
                        (both_ends(&mut em, old, at, SIZE), true),
                        (cut(&mut em, old, at, SIZE), false),
                    ];
                    for (i, (new, satisfies)) in updates.into_iter().enumerate() {
                        assert!(
                            kept(old, new, o, satisfies),
                            "update {i} of [{lo}, {hi}) at {o}: {new:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_store_that_satisfies_the_property_grows_the_segment() {
        let mut em = Concrete;
        let grown = extend(&mut em, range(0, 8), constant(I64, 8), SIZE);
        assert_eq!(grown, range(0, 12));
        let restarted = extend(&mut em, range(0, 0), constant(I64, 20), SIZE);
        assert_eq!(restarted, range(20, 24));
        let downwards = both_ends(&mut em, range(8, 16), constant(I64, 4), SIZE);
        assert_eq!(downwards, range(4, 16));
        let holds = Operand::Const(Const::bool(true));
        let at_hi = store_when(&mut em, range(0, 8), constant(I64, 8), SIZE, holds, extend);
        assert_eq!(at_hi, range(0, 12));
    }
}
