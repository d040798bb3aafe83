//! Sets of dimensions as bit rows: what an analysis forgets at a block's entry (every
//! dimension of a value not live there) is most of a large function's values, and a row
//! of bits lets a domain skip, a word at a time, the dimensions it does not bound anyway.

use super::linear::Var;

/// A set of dimensions, one bit per dimension index (word `w` holds `64·w .. 64·w + 63`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VarSet {
    words: Vec<u64>,
}

impl VarSet {
    /// The set whose word `w` is `words[w]`.
    pub fn from_words(words: Vec<u64>) -> VarSet {
        VarSet { words }
    }

    /// The bits of dimensions `64·w .. 64·w + 63` (0 past the end).
    pub fn word(&self, w: usize) -> u64 {
        self.words.get(w).copied().unwrap_or(0)
    }

    /// Whether `var` is in the set.
    pub fn contains(&self, var: Var) -> bool {
        self.word(var.index() / 64) & (1 << (var.index() % 64)) != 0
    }

    /// The dimensions in the set, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = Var> + '_ {
        self.words
            .iter()
            .enumerate()
            .flat_map(|(w, &bits)| BitIter(bits).map(move |j| Var((w * 64 + j) as u32)))
    }
}

/// The positions of the set bits of a word, lowest first.
pub(crate) struct BitIter(pub(crate) u64);

impl Iterator for BitIter {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let j = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(j)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_follow_the_bits() {
        let set = VarSet::from_words(vec![0b1010, 0, 1 << 63]);
        let members: Vec<usize> = set.iter().map(|v| v.index()).collect();
        assert_eq!(members, vec![1, 3, 191]);
        assert!(set.contains(Var(191)) && !set.contains(Var(2)) && !set.contains(Var(500)));
    }
}
