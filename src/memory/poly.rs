//! Polynomials of one variable with coefficients modulo `2^bits` ([`Poly`]), the contents
//! of content segments (`contents.rs`), and the fitting of one through the values of a
//! recurrence ([`fit`]).
//!
//! A polynomial identity modulo `2^w` is an identity of the machine's wrap-around
//! arithmetic: addition, subtraction, multiplication and shifts by constants of `w`-bit
//! values are the ring operations of `Z/2^w`, and truncation maps `Z/2^W` onto `Z/2^w`.

use crate::ir::Ty;

/// The highest degree of a content polynomial (a guard on the size of its terms).
pub const MAX_DEGREE: usize = 4;

/// A polynomial of one variable with coefficients modulo `2^bits`, lowest degree first,
/// without trailing zeros.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Poly {
    pub bits: u32,
    coef: Vec<u64>,
}

pub fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

impl Poly {
    pub fn new(bits: u32, mut coef: Vec<u64>) -> Poly {
        let m = mask(bits);
        for c in &mut coef {
            *c &= m;
        }
        while coef.last() == Some(&0) {
            coef.pop();
        }
        Poly { bits, coef }
    }

    pub fn constant(bits: u32, c: u64) -> Poly {
        Poly::new(bits, vec![c])
    }

    pub fn var(bits: u32) -> Poly {
        Poly::new(bits, vec![0, 1])
    }

    pub fn degree(&self) -> usize {
        self.coef.len().saturating_sub(1)
    }

    pub fn coef(&self, m: usize) -> u64 {
        self.coef.get(m).copied().unwrap_or(0)
    }

    /// The same polynomial modulo `2^bits` (at most its own).
    pub fn reduce(&self, bits: u32) -> Poly {
        Poly::new(bits.min(self.bits), self.coef.clone())
    }

    pub fn add(&self, other: &Poly) -> Poly {
        let n = self.coef.len().max(other.coef.len());
        let coef = (0..n)
            .map(|m| self.coef(m).wrapping_add(other.coef(m)))
            .collect();
        Poly::new(self.bits.min(other.bits), coef)
    }

    pub fn sub(&self, other: &Poly) -> Poly {
        let n = self.coef.len().max(other.coef.len());
        let coef = (0..n)
            .map(|m| self.coef(m).wrapping_sub(other.coef(m)))
            .collect();
        Poly::new(self.bits.min(other.bits), coef)
    }

    pub fn mul(&self, other: &Poly) -> Option<Poly> {
        if self.coef.is_empty() || other.coef.is_empty() {
            return Some(Poly::new(self.bits.min(other.bits), vec![]));
        }
        let mut coef = vec![0u64; self.coef.len() + other.coef.len() - 1];
        for (a, x) in self.coef.iter().enumerate() {
            for (b, y) in other.coef.iter().enumerate() {
                coef[a + b] = coef[a + b].wrapping_add(x.wrapping_mul(*y));
            }
        }
        let p = Poly::new(self.bits.min(other.bits), coef);
        (p.degree() <= MAX_DEGREE).then_some(p)
    }

    /// `p(t + d)` (Horner's scheme over `t + d`).
    pub fn shifted(&self, d: u64) -> Poly {
        let step = Poly::new(self.bits, vec![d, 1]);
        let mut acc = Poly::new(self.bits, vec![]);
        for c in self.coef.iter().rev() {
            acc = acc
                .mul(&step)
                .expect("the degree does not grow")
                .add(&Poly::constant(self.bits, *c));
        }
        acc
    }

    /// `p(k)` modulo `2^bits`.
    pub fn eval(&self, k: u64) -> u64 {
        let mut acc = 0u64;
        for c in self.coef.iter().rev() {
            acc = acc.wrapping_mul(k).wrapping_add(*c);
        }
        acc & mask(self.bits)
    }

    pub fn as_constant(&self) -> Option<u64> {
        match self.coef.len() {
            0 => Some(0),
            1 => Some(self.coef[0]),
            _ => None,
        }
    }
}

impl std::fmt::Display for Poly {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ty = Ty::int(self.bits);
        let mut first = true;
        for (m, c) in self.coef.iter().enumerate().rev() {
            if *c == 0 {
                continue;
            }
            let c = ty.to_signed(*c as u128);
            if !first {
                write!(f, "{}", if c < 0 { "-" } else { "+" })?;
            } else if c < 0 {
                write!(f, "-")?;
            }
            first = false;
            let c = c.unsigned_abs();
            match m {
                0 => write!(f, "{c}")?,
                _ if c == 1 => {}
                _ => write!(f, "{c}")?,
            }
            match m {
                0 => {}
                1 => write!(f, "k")?,
                _ => write!(f, "k^{m}")?,
            }
        }
        if first {
            write!(f, "0")?;
        }
        Ok(())
    }
}

/// The polynomial modulo `2^bits` of degree at most [`MAX_DEGREE`] with integer
/// coefficients whose values at `k0, k0 + 1, ...` are `vals`, when there is one (and the
/// values determine it: the differences past that degree are all zero).
pub fn fit(vals: &[i128], k0: i64, bits: u32) -> Option<Poly> {
    if vals.len() <= MAX_DEGREE + 1 {
        return None;
    }
    // Newton's forward differences, then the monomials of sum_m diff_m * C(u, m), u = k - k0.
    let mut diffs = Vec::new();
    let mut row = vals.to_vec();
    for m in 0..vals.len() {
        diffs.push(row[0]);
        if m > MAX_DEGREE && row.iter().any(|&x| x != 0) {
            return None;
        }
        row = row
            .windows(2)
            .map(|w| w[1].checked_sub(w[0]))
            .collect::<Option<Vec<_>>>()?;
        if row.is_empty() {
            break;
        }
    }
    const DENOM: i128 = 24; // 4!, a multiple of every m! up to MAX_DEGREE
    let mut num = [0i128; MAX_DEGREE + 1];
    let mut falling = vec![1i128]; // u (u - 1) ... (u - m + 1)
    let mut factorial = 1i128;
    for (m, diff) in diffs.iter().enumerate().take(MAX_DEGREE + 1) {
        if m > 0 {
            factorial *= m as i128;
            let mut next = vec![0i128; falling.len() + 1];
            for (e, c) in falling.iter().enumerate() {
                next[e + 1] = next[e + 1].checked_add(*c)?;
                next[e] = next[e].checked_sub(c.checked_mul(m as i128 - 1)?)?;
            }
            falling = next;
        }
        let scale = diff.checked_mul(DENOM / factorial)?;
        for (e, c) in falling.iter().enumerate() {
            num[e] = num[e].checked_add(scale.checked_mul(*c)?)?;
        }
    }
    if num.iter().any(|c| c % DENOM != 0) {
        return None;
    }
    let in_u = Poly::new(bits, num.iter().map(|c| (c / DENOM) as u64).collect());
    Some(in_u.shifted((k0 as u64).wrapping_neg()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polynomials_modulo_a_power_of_two() {
        let k = Poly::var(64);
        let one = Poly::constant(64, 1);
        let sq = k.add(&one).mul(&k.add(&one)).unwrap();
        assert_eq!(sq.to_string(), "k^2+2k+1");
        let lin = sq.sub(&k.mul(&k).unwrap());
        assert_eq!(lin.to_string(), "2k+1");
        assert_eq!(lin.sub(&k).sub(&k).to_string(), "1");
        // (k - 1)^2 + 2(k - 1) + 1 == k^2
        assert_eq!(sq.shifted(u64::MAX).to_string(), "k^2");
        assert_eq!(sq.eval(3), 16);
        // Modulo 2^8: 256k vanishes.
        let p = Poly::new(8, vec![1, 256, 3]);
        assert_eq!(p.to_string(), "3k^2+1");
        assert_eq!(Poly::new(8, vec![255]).to_string(), "-1");
        assert!(k
            .mul(&k)
            .unwrap()
            .mul(&k)
            .unwrap()
            .mul(&k)
            .unwrap()
            .mul(&k)
            .is_none());
    }

    #[test]
    fn fitting_integer_polynomials() {
        let values = |f: &dyn Fn(i128) -> i128, k0: i128| -> Vec<i128> {
            (0..7).map(|n| f(k0 + n)).collect()
        };
        let f = fit(&values(&|k| k * k + k + 1, 0), 0, 64).unwrap();
        assert_eq!(f.to_string(), "k^2+k+1");
        let f = fit(&values(&|k| 2 * k + 2, 3), 3, 64).unwrap();
        assert_eq!(f.to_string(), "2k+2");
        let f = fit(&values(&|k| k * k * k * k - 5, -2), -2, 64).unwrap();
        assert_eq!(f.to_string(), "k^4-5");
        // Rational coefficients (k(k + 1) / 2 is an integer, but not a polynomial with
        // integer coefficients), degree 5, and too few values: none.
        assert_eq!(fit(&values(&|k| k * (k + 1) / 2, 0), 0, 64), None);
        assert_eq!(fit(&values(&|k| k * k * k * k * k, 0), 0, 64), None);
        assert_eq!(fit(&[1, 2, 3], 0, 64), None);
    }
}
