//! Exact integer coefficients for double-description rows.
//!
//! [`Coef`] stores an `i64` when the value fits and a boxed [`BigInt`] otherwise; every
//! operation uses checked `i64` arithmetic and falls back to `BigInt` on overflow, so no
//! result is ever rounded or wrapped. A [`Row`] is a homogenized vector `[c₀, c₁, …, cₙ]`
//! whose column 0 is the constant (constraints) or the divisor (generators).

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};
use std::cmp::Ordering;
use std::fmt;

/// An exact integer with a machine-word fast path.
///
/// Invariant: the `Big` variant never holds a value that fits in an `i64`.
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum Coef {
    /// A value that fits in an `i64`.
    Small(i64),
    /// Anything larger.
    Big(Box<BigInt>),
}

impl fmt::Debug for Coef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Coef::Small(v) => write!(f, "{v}"),
            Coef::Big(b) => write!(f, "{b}"),
        }
    }
}

impl Coef {
    /// Zero.
    pub const ZERO: Coef = Coef::Small(0);

    /// From a machine integer.
    pub fn from_i64(v: i64) -> Coef {
        Coef::Small(v)
    }

    /// From a big integer, demoting to the fast path when it fits.
    pub fn from_big(b: BigInt) -> Coef {
        match b.to_i64() {
            Some(v) => Coef::Small(v),
            None => Coef::Big(Box::new(b)),
        }
    }

    /// From an `i128`, on the fast path when it fits.
    fn from_wide(v: i128) -> Coef {
        match i64::try_from(v) {
            Ok(s) => Coef::Small(s),
            Err(_) => Coef::Big(Box::new(BigInt::from(v))),
        }
    }

    /// As a big integer.
    pub fn to_big(&self) -> BigInt {
        match self {
            Coef::Small(v) => BigInt::from(*v),
            Coef::Big(b) => (**b).clone(),
        }
    }

    /// As an `i128`, when it fits one.
    fn to_wide(&self) -> Option<i128> {
        match self {
            Coef::Small(v) => Some(*v as i128),
            Coef::Big(b) => b.to_i128(),
        }
    }

    /// True for zero.
    pub fn is_zero(&self) -> bool {
        matches!(self, Coef::Small(0))
    }

    /// −1, 0 or 1.
    pub fn signum(&self) -> i32 {
        match self {
            Coef::Small(v) => v.signum() as i32,
            Coef::Big(b) => {
                if b.is_negative() {
                    -1
                } else {
                    1
                }
            }
        }
    }

    /// Number of bits of the magnitude.
    pub fn bits(&self) -> u64 {
        match self {
            Coef::Small(v) => 64 - v.unsigned_abs().leading_zeros() as u64,
            Coef::Big(b) => b.bits(),
        }
    }

    /// `self + other`.
    pub fn add(&self, other: &Coef) -> Coef {
        if let (Coef::Small(a), Coef::Small(b)) = (self, other) {
            if let Some(r) = a.checked_add(*b) {
                return Coef::Small(r);
            }
        }
        Coef::from_big(self.to_big() + other.to_big())
    }

    /// `self - other`.
    pub fn sub(&self, other: &Coef) -> Coef {
        if let (Coef::Small(a), Coef::Small(b)) = (self, other) {
            if let Some(r) = a.checked_sub(*b) {
                return Coef::Small(r);
            }
        }
        Coef::from_big(self.to_big() - other.to_big())
    }

    /// `self · other`.
    pub fn mul(&self, other: &Coef) -> Coef {
        if let (Coef::Small(a), Coef::Small(b)) = (self, other) {
            if let Some(r) = a.checked_mul(*b) {
                return Coef::Small(r);
            }
        }
        Coef::from_big(self.to_big() * other.to_big())
    }

    /// `a·x + b·y`, the kernel of Chernikova's combination step.
    pub fn lin2(a: &Coef, x: &Coef, b: &Coef, y: &Coef) -> Coef {
        if let (Coef::Small(a), Coef::Small(x), Coef::Small(b), Coef::Small(y)) = (a, x, b, y) {
            // Each product fits an `i128`; their sum may not (both `i64::MIN²`), and a
            // wrapped sum would be a wrong coefficient.
            if let Some(r) = ((*a as i128) * (*x as i128)).checked_add((*b as i128) * (*y as i128))
            {
                if let Ok(v) = i64::try_from(r) {
                    return Coef::Small(v);
                }
                return Coef::from_big(BigInt::from(r));
            }
        }
        Coef::from_big(a.to_big() * x.to_big() + b.to_big() * y.to_big())
    }

    /// `-self`.
    pub fn neg(&self) -> Coef {
        match self {
            Coef::Small(v) => match v.checked_neg() {
                Some(r) => Coef::Small(r),
                None => Coef::from_big(-BigInt::from(*v)),
            },
            Coef::Big(b) => Coef::from_big(-(**b).clone()),
        }
    }

    /// `|self|`.
    pub fn abs(&self) -> Coef {
        if self.signum() < 0 {
            self.neg()
        } else {
            self.clone()
        }
    }

    /// Non-negative greatest common divisor.
    pub fn gcd(&self, other: &Coef) -> Coef {
        match (self, other) {
            (Coef::Small(a), Coef::Small(b)) => {
                let g = (a.unsigned_abs()).gcd(&b.unsigned_abs());
                if let Ok(v) = i64::try_from(g) {
                    return Coef::Small(v);
                }
            }
            // gcd(a, b) = gcd(a, b mod a): one division of the big number by a word, where
            // the gcd of two big numbers shifts them bit by bit.
            (Coef::Small(a), Coef::Big(b)) | (Coef::Big(b), Coef::Small(a)) if *a != 0 => {
                let m = a.unsigned_abs();
                if let Some(r) = (b.magnitude() % m).to_u64() {
                    if let Ok(v) = i64::try_from(m.gcd(&r)) {
                        return Coef::Small(v);
                    }
                }
            }
            _ => {}
        }
        Coef::from_big(self.to_big().gcd(&other.to_big()))
    }

    /// Exact division (the caller guarantees `other` divides `self`).
    pub fn div_exact(&self, other: &Coef) -> Coef {
        if let (Coef::Small(a), Coef::Small(b)) = (self, other) {
            if let Some(r) = a.checked_div(*b) {
                return Coef::Small(r);
            }
        }
        Coef::from_big(self.to_big() / other.to_big())
    }

    /// Floor division.
    pub fn div_floor(&self, other: &Coef) -> Coef {
        if let (Coef::Small(a), Coef::Small(b)) = (self, other) {
            if *b != 0 && !(*a == i64::MIN && *b == -1) {
                return Coef::Small(a.div_floor(b));
            }
        }
        Coef::from_big(self.to_big().div_floor(&other.to_big()))
    }

    /// True for one.
    pub fn is_one(&self) -> bool {
        matches!(self, Coef::Small(1))
    }
}

impl PartialOrd for Coef {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Coef {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (Coef::Small(a), Coef::Small(b)) => a.cmp(b),
            _ => self.to_big().cmp(&other.to_big()),
        }
    }
}

impl From<&BigInt> for Coef {
    fn from(b: &BigInt) -> Coef {
        Coef::from_big(b.clone())
    }
}

/// A homogenized row.
pub type Row = Vec<Coef>;

/// `Σ a[i]·b[i]`.
pub fn dot(a: &[Coef], b: &[Coef]) -> Coef {
    dot_pairs(a.iter().zip(b))
}

/// `Σ a[j]·b[j]` over the columns `cols` only: the caller knows that one of the rows is zero
/// everywhere else (its support), which makes saturation tests against sparse constraint
/// rows cost their number of variables instead of the block's dimension.
pub fn dot_on(a: &[Coef], b: &[Coef], cols: &[usize]) -> Coef {
    // The same fast path as `dot_pairs`, written over the index list: this is the inner
    // loop of every saturation matrix.
    let mut acc: i128 = 0;
    for &j in cols {
        let (Coef::Small(x), Coef::Small(y)) = (&a[j], &b[j]) else {
            return dot_pairs(cols.iter().map(|&j| (&a[j], &b[j])));
        };
        match acc.checked_add(*x as i128 * *y as i128) {
            Some(v) => acc = v,
            None => return dot_big(cols.iter().map(|&j| (&a[j], &b[j]))),
        }
    }
    match i64::try_from(acc) {
        Ok(v) => Coef::Small(v),
        Err(_) => Coef::from_big(BigInt::from(acc)),
    }
}

/// The sum of the products of `pairs`: an `i128` accumulator while every factor is small
/// (a product of two `i64` always fits; only the sum can overflow), else `BigInt`.
fn dot_pairs<'a>(pairs: impl Iterator<Item = (&'a Coef, &'a Coef)> + Clone) -> Coef {
    let mut acc: i128 = 0;
    for (x, y) in pairs.clone() {
        match (x, y) {
            (Coef::Small(x), Coef::Small(y)) => match acc.checked_add(*x as i128 * *y as i128) {
                Some(v) => acc = v,
                None => return dot_big(pairs),
            },
            (Coef::Small(0), _) | (_, Coef::Small(0)) => {}
            _ => return dot_big(pairs),
        }
    }
    match i64::try_from(acc) {
        Ok(v) => Coef::Small(v),
        Err(_) => Coef::from_big(BigInt::from(acc)),
    }
}

fn dot_big<'a>(pairs: impl Iterator<Item = (&'a Coef, &'a Coef)>) -> Coef {
    let mut acc = BigInt::zero();
    for (x, y) in pairs {
        if !x.is_zero() && !y.is_zero() {
            acc += x.to_big() * y.to_big();
        }
    }
    Coef::from_big(acc)
}

/// Sign of `Σ a[i]·b[i]`.
pub fn dot_sign(a: &[Coef], b: &[Coef]) -> i32 {
    dot(a, b).signum()
}

/// Divides a row by the gcd of its entries (no-op for the zero row).
pub fn normalize(row: &mut [Coef]) {
    if row.iter().any(|c| matches!(c, Coef::Big(_))) && normalize_wide(row) {
        return;
    }
    // The word-sized entries first: a gcd that is already a word meets each big entry
    // with one division.
    let mut g = Coef::ZERO;
    let small = |c: &&Coef| matches!(c, Coef::Small(_));
    for c in row
        .iter()
        .filter(small)
        .chain(row.iter().filter(|c| !small(c)))
    {
        if !c.is_zero() {
            g = g.gcd(c);
            if g.is_one() {
                return;
            }
        }
    }
    if g.is_zero() || g.is_one() {
        return;
    }
    for c in row.iter_mut() {
        if !c.is_zero() {
            *c = c.div_exact(&g);
        }
    }
}

/// [`normalize`] in `i128` when every entry fits one (false, and the row untouched,
/// otherwise).
fn normalize_wide(row: &mut [Coef]) -> bool {
    let mut g: u128 = 0;
    for c in row.iter() {
        let Some(v) = c.to_wide() else {
            return false;
        };
        if v != 0 {
            g = g.gcd(&v.unsigned_abs());
        }
    }
    let Ok(g) = i128::try_from(g) else {
        return false;
    };
    if g > 1 {
        for c in row.iter_mut() {
            if let Some(v) = c.to_wide().filter(|v| *v != 0) {
                *c = Coef::from_wide(v / g);
            }
        }
    }
    true
}

/// `a·x + b·y`, normalized.
pub fn combine(a: &Coef, x: &[Coef], b: &Coef, y: &[Coef]) -> Row {
    if let Some(r) = combine_wide(a, x, b, y) {
        return r;
    }
    let mut r: Row = x
        .iter()
        .zip(y)
        .map(|(xi, yi)| Coef::lin2(a, xi, b, yi))
        .collect();
    normalize(&mut r);
    r
}

/// [`combine`] in `i128` when every entry and product fits one: most combinations whose
/// entries leave `i64` come back into it once divided by their gcd, and entries a little
/// past `i64` (bounds near `2^63` of 64-bit offsets, times small factors) fit `i128`, so
/// neither the entries nor the gcd need big integers (the boxed `BigInt` path and its
/// binary gcd were half of the analysis time of programs whose constraints mix byte
/// offsets of large arrays). `None` when some entry, product or sum does not fit: the
/// caller takes the exact big-integer path, so the result is the same.
fn combine_wide(a: &Coef, x: &[Coef], b: &Coef, y: &[Coef]) -> Option<Row> {
    let (a, b) = (a.to_wide()?, b.to_wide()?);
    let mut wide: Vec<i128> = Vec::with_capacity(x.len());
    let mut g: u128 = 0;
    for (xi, yi) in x.iter().zip(y) {
        let (xi, yi) = (xi.to_wide()?, yi.to_wide()?);
        let v = a.checked_mul(xi)?.checked_add(b.checked_mul(yi)?)?;
        if v != 0 && g != 1 {
            g = g.gcd(&v.unsigned_abs());
        }
        wide.push(v);
    }
    // `g` divides every entry, so it is at most the largest magnitude; only `i128::MIN`
    // alone has a magnitude that is no `i128`.
    let g = i128::try_from(g).ok()?;
    Some(
        wide.into_iter()
            .map(|v| Coef::from_wide(if g > 1 { v / g } else { v }))
            .collect(),
    )
}

/// Negates a row in place.
pub fn negate(row: &mut [Coef]) {
    for c in row.iter_mut() {
        *c = c.neg();
    }
}

/// Largest bit size of a row's entries.
pub fn row_bits(row: &[Coef]) -> u64 {
    row.iter().map(Coef::bits).max().unwrap_or(0)
}

/// Converts to a big integer with `One` available for callers.
pub fn one() -> Coef {
    Coef::from_big(BigInt::one())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overflow_falls_back_to_big_integers_and_back() {
        let big = Coef::Small(i64::MAX).add(&Coef::Small(1));
        assert!(matches!(big, Coef::Big(_)));
        assert_eq!(big.to_big(), BigInt::from(i64::MAX) + 1);
        assert_eq!(big.sub(&Coef::Small(1)), Coef::Small(i64::MAX));
        assert_eq!(
            Coef::Small(i64::MIN).neg().to_big(),
            -BigInt::from(i64::MIN)
        );
        let m = Coef::Small(1 << 40).mul(&Coef::Small(1 << 40));
        assert_eq!(m.to_big(), BigInt::from(1u128 << 80));
        assert_eq!(m.div_exact(&Coef::Small(1 << 40)), Coef::Small(1 << 40));
    }

    #[test]
    fn gcd_of_a_word_and_a_big_number_is_that_of_big_integers() {
        let bigs = [
            BigInt::from(1u128 << 100),
            BigInt::from(3u128.pow(70)),
            -(BigInt::from(u64::MAX) * BigInt::from(6u64 * 7 * 11)),
            BigInt::from(i64::MAX) * 2 + 1,
        ];
        let words = [
            1,
            -1,
            2,
            6,
            -42,
            77,
            1 << 40,
            i64::MAX,
            i64::MIN,
            i64::MIN + 1,
        ];
        for b in &bigs {
            for &w in &words {
                let expected = b.gcd(&BigInt::from(w));
                let (big, word) = (Coef::from_big(b.clone()), Coef::Small(w));
                assert_eq!(big.gcd(&word).to_big(), expected, "gcd({b}, {w})");
                assert_eq!(word.gcd(&big).to_big(), expected, "gcd({w}, {b})");
            }
        }
    }

    #[test]
    fn rows_are_normalized_by_their_gcd() {
        let mut r: Row = [6, -4, 0, 10].iter().map(|&v| Coef::Small(v)).collect();
        normalize(&mut r);
        assert_eq!(
            r,
            [3, -2, 0, 5]
                .iter()
                .map(|&v| Coef::Small(v))
                .collect::<Row>()
        );
        let d = dot(
            &[Coef::Small(i64::MAX), Coef::Small(i64::MAX)],
            &[Coef::Small(2), Coef::Small(2)],
        );
        assert_eq!(d.to_big(), BigInt::from(i64::MAX) * 4);
    }

    #[test]
    fn wide_combinations_agree_with_big_integers() {
        // The oracle: big integers throughout, its own gcd (not `normalize`, which has a
        // wide path of its own).
        let big_path = |a: &Coef, x: &[Coef], b: &Coef, y: &[Coef]| {
            let mut r: Vec<BigInt> = x
                .iter()
                .zip(y)
                .map(|(xi, yi)| a.to_big() * xi.to_big() + b.to_big() * yi.to_big())
                .collect();
            let g = r.iter().fold(BigInt::zero(), |g, v| g.gcd(v));
            if !g.is_zero() {
                r.iter_mut().for_each(|v| *v /= &g);
            }
            r.into_iter().map(Coef::from_big).collect::<Row>()
        };
        let m = i64::MAX;
        let cases: Vec<(i64, Vec<i64>, i64, Vec<i64>)> = vec![
            (3, vec![2, 4, 6], -2, vec![1, 2, 3]),
            (m, vec![m, 2, 0], m, vec![m, -2, 0]),
            (m, vec![m, m], -m, vec![-m, m - 1]),
            (1 << 40, vec![1 << 40, 3 << 40], 1 << 41, vec![0, 1 << 39]),
            (i64::MIN, vec![i64::MIN, 0], i64::MIN, vec![i64::MIN, 0]),
            (i64::MIN, vec![i64::MIN, 1], 0, vec![0, 0]),
            (5, vec![0, 0], 7, vec![0, 0]),
        ];
        // Entries past `i64`, and products past `i128`.
        let b = |v: i128| Coef::from_big(BigInt::from(v));
        let wide_cases: Vec<(Coef, Row, Coef, Row)> = vec![
            (
                b(3),
                vec![b(1 << 70), b(6 << 64)],
                b(-2),
                vec![b(1 << 64), b(3)],
            ),
            (b(1 << 100), vec![b(1 << 100), b(2)], b(1), vec![b(0), b(4)]),
            (
                b(i128::MAX),
                vec![b(1), b(i128::MIN)],
                b(1),
                vec![b(1), b(1)],
            ),
        ];
        for (a, x, bb, y) in wide_cases {
            let r = combine(&a, &x, &bb, &y);
            assert_eq!(r, big_path(&a, &x, &bb, &y), "{a:?} {x:?} {bb:?} {y:?}");
            let mut n = x.clone();
            normalize(&mut n);
            let mut big = x.iter().map(Coef::to_big).collect::<Vec<_>>();
            let g = big.iter().fold(BigInt::zero(), |g, v| g.gcd(v));
            if !g.is_zero() {
                big.iter_mut().for_each(|v| *v /= &g);
            }
            assert_eq!(
                n,
                big.iter()
                    .map(|v| Coef::from_big(v.clone()))
                    .collect::<Row>()
            );
        }
        for (a, x, b, y) in cases {
            let small = |v: &[i64]| v.iter().map(|&v| Coef::Small(v)).collect::<Row>();
            let (a, x, b, y) = (Coef::Small(a), small(&x), Coef::Small(b), small(&y));
            let r = combine(&a, &x, &b, &y);
            assert_eq!(r, big_path(&a, &x, &b, &y), "{a:?} {x:?} {b:?} {y:?}");
            assert!(r
                .iter()
                .all(|c| !matches!(c, Coef::Big(v) if v.to_i64().is_some())));
        }
    }

    #[test]
    fn sparse_dot_products_agree_with_dense_ones() {
        let big = Coef::Small(i64::MAX).add(&Coef::Small(5));
        let a: Row = vec![
            Coef::Small(3),
            Coef::ZERO,
            Coef::Small(i64::MAX),
            big.clone(),
        ];
        let b: Row = vec![
            Coef::Small(-2),
            Coef::Small(7),
            Coef::Small(i64::MAX),
            Coef::Small(1),
        ];
        // Column 1 is zero in `a`, so its support is enough.
        let support = [0, 2, 3];
        assert_eq!(dot_on(&a, &b, &support), dot(&a, &b));
        assert_eq!(dot_on(&a, &b, &[0, 2]), dot(&a[..3], &b[..3]));
        assert_eq!(
            dot(&a, &b).to_big(),
            BigInt::from(-6) + BigInt::from(i64::MAX) * i64::MAX + big.to_big()
        );
    }
}
