//! Linear bounds of `x | c` and `x & c` with a constant `c`, in either reading.
//!
//! The lowering always bounds the unsigned readings (`x | c >= c`, `x | c >= x`,
//! `0 <= x & c <= c` for a mask without the sign bit); a value read signed, or a mask with
//! the sign bit (`x & -8`, alignment), got nothing. The facts here are exact identities of
//! two's complement on `w` bits, with `r` and `x` read alike (both signed or both unsigned):
//!
//! - `x | c = x + (c & !x)`, and `c & !x` is a subset of the bits of `c`. When `c` has no
//!   sign bit, adding it sets bits `x` does not have, without carry and without touching
//!   the sign bit, so in both readings `x <= r <= x + c`; `r >= c` unsigned, and signed
//!   when `x >= 0`. When `c` has the sign bit, read unsigned `x <= r <= x + c` still holds;
//!   read signed, `r` has the sign bit: `r = c + (x & !c)` with `x & !c` in `[0, !c]`, so
//!   `c <= r <= -1` (and `r` may be below `x`: a non-negative `x` becomes negative).
//! - `x & c = x - (x & !c)`. When `c` has the sign bit, `!c` has not, so the subtracted
//!   `x & !c` lies in `[0, !c]` and leaves the sign bit alone: in both readings
//!   `x - !c <= r <= x` (`x & -8` lies within 7 below `x`).
//!
//! `!c` is the unsigned value `2^w - 1 - c`. Each fact is checked against every 8-bit
//! value in the tests below.

use crate::domain::{Int, LinCons, LinExpr};
use crate::ir::Interp;
use num_traits::One;

/// A mask: the bits of a `width`-bit constant, as its unsigned value.
#[derive(Clone, Debug)]
pub struct Mask {
    /// The unsigned value of the constant.
    pub unsigned: Int,
    /// The width in bits.
    pub width: u32,
}

impl Mask {
    fn modulus(&self) -> Int {
        Int::one() << self.width as usize
    }

    /// Whether the sign bit (bit `width - 1`) is set.
    fn has_sign_bit(&self) -> bool {
        self.unsigned >= (Int::one() << (self.width - 1) as usize)
    }

    /// The signed value of the constant.
    fn signed(&self) -> Int {
        if self.has_sign_bit() {
            &self.unsigned - self.modulus()
        } else {
            self.unsigned.clone()
        }
    }

    /// The unsigned value of its complement `!c`.
    fn complement(&self) -> Int {
        self.modulus() - Int::one() - &self.unsigned
    }
}

/// Constraints on `r = x | c`, with `r` and `x` (when known) read in `reading`; `x_nonneg`
/// when every value of `x` is known to be at least 0 in that reading.
pub fn or_bounds(
    r: &LinExpr,
    x: Option<&LinExpr>,
    c: &Mask,
    reading: Interp,
    x_nonneg: bool,
) -> Vec<LinCons> {
    let mut res = Vec::new();
    let sign = c.has_sign_bit();
    if let Some(x) = x.filter(|_| !sign || reading == Interp::Unsigned) {
        res.push(LinCons::ge(r, x));
        res.push(LinCons::le(
            r,
            &x.plus(&LinExpr::constant(c.unsigned.clone())),
        ));
    }
    match reading {
        Interp::Unsigned => res.push(LinCons::ge(r, &LinExpr::constant(c.unsigned.clone()))),
        Interp::Signed if sign => {
            res.push(LinCons::ge(r, &LinExpr::constant(c.signed())));
            res.push(LinCons::le(r, &LinExpr::constant(-1)));
        }
        Interp::Signed if x_nonneg => {
            res.push(LinCons::ge(r, &LinExpr::constant(c.unsigned.clone())))
        }
        Interp::Signed => {}
    }
    res
}

/// Constraints on `r = x & c` for a mask `c` with the sign bit (the lowering bounds the
/// others by `[0, c]`), with `r` and `x` read alike.
pub fn and_bounds(r: &LinExpr, x: &LinExpr, c: &Mask) -> Vec<LinCons> {
    if !c.has_sign_bit() {
        return Vec::new();
    }
    vec![
        LinCons::le(r, x),
        LinCons::ge(r, &x.minus(&LinExpr::constant(c.complement()))),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{ConsKind, Var};
    use num_traits::Zero;

    /// The reading of an 8-bit pattern.
    fn read(bits: u8, reading: Interp) -> i64 {
        match reading {
            Interp::Signed => bits as i8 as i64,
            Interp::Unsigned => bits as i64,
        }
    }

    fn holds(cons: &[LinCons], r: i64, x: i64) -> bool {
        cons.iter().all(|c| {
            let mut v = c.expr.constant_part().clone();
            for (var, k) in c.expr.terms() {
                v += k * Int::from(if var == Var(0) { r } else { x });
            }
            match c.kind {
                ConsKind::Ge => v >= Int::zero(),
                ConsKind::Eq => v.is_zero(),
            }
        })
    }

    #[test]
    fn the_bounds_hold_for_every_8_bit_value_and_mask() {
        let r = LinExpr::var(Var(0));
        let x = LinExpr::var(Var(1));
        for reading in [Interp::Signed, Interp::Unsigned] {
            for c in 0..=255u8 {
                let mask = Mask {
                    unsigned: Int::from(c),
                    width: 8,
                };
                for xb in 0..=255u8 {
                    let xv = read(xb, reading);
                    let or = or_bounds(&r, Some(&x), &mask, reading, xv >= 0);
                    assert!(
                        holds(&or, read(xb | c, reading), xv),
                        "{xb} | {c} ({reading:?})"
                    );
                    let and = and_bounds(&r, &x, &mask);
                    assert!(
                        holds(&and, read(xb & c, reading), xv),
                        "{xb} & {c} ({reading:?})"
                    );
                }
            }
        }
    }

    #[test]
    fn a_mask_with_the_sign_bit_keeps_the_value_within_its_complement() {
        // x & -8 on 8 bits: between x - 7 and x.
        let mask = Mask {
            unsigned: Int::from(0xf8u8),
            width: 8,
        };
        let r = LinExpr::var(Var(0));
        let x = LinExpr::var(Var(1));
        let cons = and_bounds(&r, &x, &mask);
        assert!(holds(&cons, 16, 23));
        assert!(!holds(&cons, 15, 23));
        assert!(!holds(&cons, 24, 23));
    }
}
