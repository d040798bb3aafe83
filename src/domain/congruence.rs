//! Congruences of one integer (Granger's non-relational congruence lattice): the sets
//! `{ r + m·k | k ∈ ℤ }`, written `r mod m`, and the empty set.
//!
//! `m = 0` is the constant `r`; `m = 1` is every integer. A class is kept normalized
//! (`m >= 0`, and `0 <= r < m` when `m > 0`), so equal sets have equal representations.
//! The lattice has no infinite ascending chain (each strict step up divides the modulus,
//! or leaves a constant), so a fixpoint needs no widening.
//!
//! Machine arithmetic wraps modulo `2^w`: [`Congruence::wrap`] keeps what survives it
//! (`r mod gcd(m, 2^w)`). That is why parity and power-of-two strides survive unsigned
//! `x += 2`, while a stride of 3 survives only arithmetic that cannot wrap.

use super::Int;
use num_integer::Integer;
use num_traits::{One, Signed, Zero};
use std::fmt;

/// A set of integers `r + m·ℤ`, or the empty set.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Congruence {
    /// No integer (an unreached definition).
    Bottom,
    /// `residue + modulus·ℤ`, normalized.
    Class {
        /// In `[0, modulus)` when `modulus > 0`; the value itself when `modulus == 0`.
        residue: Int,
        /// `0` for a constant, `1` for every integer.
        modulus: Int,
    },
}

impl Congruence {
    /// Every integer.
    pub fn top() -> Congruence {
        Congruence::Class {
            residue: Int::zero(),
            modulus: Int::one(),
        }
    }

    /// The one integer `c`.
    pub fn constant(c: Int) -> Congruence {
        Congruence::Class {
            residue: c,
            modulus: Int::zero(),
        }
    }

    /// `residue + modulus·ℤ` (any signs), normalized.
    pub fn class(residue: Int, modulus: Int) -> Congruence {
        let modulus = modulus.abs();
        let residue = if modulus.is_zero() {
            residue
        } else {
            residue.mod_floor(&modulus)
        };
        Congruence::Class { residue, modulus }
    }

    /// True for every integer.
    pub fn is_top(&self) -> bool {
        matches!(self, Congruence::Class { modulus, .. } if modulus.is_one())
    }

    /// The residue and modulus, unless empty.
    pub fn as_class(&self) -> Option<(&Int, &Int)> {
        match self {
            Congruence::Bottom => None,
            Congruence::Class { residue, modulus } => Some((residue, modulus)),
        }
    }

    /// Whether `v` belongs to the set.
    pub fn contains(&self, v: &Int) -> bool {
        match self {
            Congruence::Bottom => false,
            Congruence::Class { residue, modulus } => {
                if modulus.is_zero() {
                    v == residue
                } else {
                    (v - residue).mod_floor(modulus).is_zero()
                }
            }
        }
    }

    /// The smallest class holding both sets: `r1 mod gcd(m1, m2, r1 - r2)`.
    pub fn join(&self, other: &Congruence) -> Congruence {
        match (self.as_class(), other.as_class()) {
            (None, _) => other.clone(),
            (_, None) => self.clone(),
            (Some((r1, m1)), Some((r2, m2))) => {
                let m = m1.gcd(m2).gcd(&(r1 - r2));
                Congruence::class(r1.clone(), m)
            }
        }
    }

    /// Inclusion of the sets.
    pub fn is_leq(&self, other: &Congruence) -> bool {
        match (self.as_class(), other.as_class()) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some((r1, m1)), Some((_, m2))) => {
                // A constant is included iff it is a member; a class r1 + m1·ℤ (m1 > 0)
                // iff r1 is a member and m2 divides m1.
                let divides = m1.is_zero() || (!m2.is_zero() && (m1 % m2).is_zero());
                divides && other.contains(r1)
            }
        }
    }

    /// `{ a + b }`.
    pub fn add(&self, other: &Congruence) -> Congruence {
        match (self.as_class(), other.as_class()) {
            (Some((r1, m1)), Some((r2, m2))) => Congruence::class(r1 + r2, m1.gcd(m2)),
            _ => Congruence::Bottom,
        }
    }

    /// `{ -a }`.
    pub fn neg(&self) -> Congruence {
        match self.as_class() {
            Some((r, m)) => Congruence::class(-r, m.clone()),
            None => Congruence::Bottom,
        }
    }

    /// `{ a - b }`.
    pub fn sub(&self, other: &Congruence) -> Congruence {
        self.add(&other.neg())
    }

    /// `{ a · b }`: `(r1 + m1·i)(r2 + m2·j)` is `r1·r2` modulo `gcd(m1·m2, m1·r2, m2·r1)`.
    pub fn mul(&self, other: &Congruence) -> Congruence {
        match (self.as_class(), other.as_class()) {
            (Some((r1, m1)), Some((r2, m2))) => {
                let m = (m1 * m2).gcd(&(m1 * r2)).gcd(&(m2 * r1));
                Congruence::class(r1 * r2, m)
            }
            _ => Congruence::Bottom,
        }
    }

    /// What is left once the value is taken modulo `2^width` (wrap-around, or a change of
    /// reading between signed and unsigned): `r mod gcd(m, 2^width)`.
    pub fn wrap(&self, width: u32) -> Congruence {
        match self.as_class() {
            Some((r, m)) => {
                let pow = Int::one() << width as usize;
                Congruence::class(r.clone(), m.gcd(&pow))
            }
            None => Congruence::Bottom,
        }
    }
}

impl fmt::Display for Congruence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Congruence::Bottom => f.write_str("⊥"),
            Congruence::Class { residue, modulus } if modulus.is_zero() => write!(f, "= {residue}"),
            Congruence::Class { residue, modulus } => write!(f, "≡ {residue} mod {modulus}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn c(r: i64, m: i64) -> Congruence {
        Congruence::class(Int::from(r), Int::from(m))
    }

    /// Small classes (and the empty set), with elements checked on a window of integers.
    fn arb() -> impl Strategy<Value = Congruence> {
        prop_oneof![
            1 => Just(Congruence::Bottom),
            8 => (-20i64..20, 0i64..7).prop_map(|(r, m)| c(r, m)),
        ]
    }

    const WINDOW: std::ops::RangeInclusive<i64> = -60..=60;

    fn members(a: &Congruence) -> Vec<i64> {
        WINDOW.filter(|v| a.contains(&Int::from(*v))).collect()
    }

    #[test]
    fn normalizes() {
        assert_eq!(c(7, 4), c(-1, -4));
        assert_eq!(c(5, 0), Congruence::constant(Int::from(5)));
        assert!(c(3, 1).is_top());
    }

    #[test]
    fn parity_survives_unsigned_wrap_and_three_does_not() {
        let even = c(0, 2);
        assert_eq!(even.add(&c(2, 0)).wrap(32), even);
        assert_eq!(c(0, 3).wrap(32), Congruence::top());
        // The constant 5 in 32 bits: 5 modulo 2^32.
        assert_eq!(
            c(5, 0).wrap(32),
            Congruence::class(Int::from(5), Int::one() << 32usize)
        );
    }

    proptest! {
        #[test]
        fn join_is_an_upper_bound(a in arb(), b in arb()) {
            let j = a.join(&b);
            for v in members(&a).into_iter().chain(members(&b)) {
                prop_assert!(j.contains(&Int::from(v)), "{} ⊔ {} = {} misses {}", a, b, j, v);
            }
            prop_assert!(a.is_leq(&j) && b.is_leq(&j));
        }

        #[test]
        fn leq_is_sound(a in arb(), b in arb()) {
            if a.is_leq(&b) {
                for v in members(&a) {
                    prop_assert!(b.contains(&Int::from(v)));
                }
            }
        }

        #[test]
        fn arithmetic_over_approximates(a in arb(), b in arb()) {
            let (ma, mb) = (members(&a), members(&b));
            for x in &ma {
                for y in &mb {
                    prop_assert!(a.add(&b).contains(&Int::from(x + y)));
                    prop_assert!(a.sub(&b).contains(&Int::from(x - y)));
                    prop_assert!(a.mul(&b).contains(&Int::from(x * y)));
                }
                prop_assert!(a.neg().contains(&Int::from(-x)));
            }
        }

        #[test]
        fn wrap_over_approximates(a in arb(), w in 1u32..5, k in -3i64..3) {
            let wrapped = a.wrap(w);
            for x in members(&a) {
                prop_assert!(wrapped.contains(&Int::from(x + k * (1i64 << w))));
            }
        }
    }
}
