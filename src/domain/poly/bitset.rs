//! Fixed-width bitsets for saturation matrices.

/// A growable set of small indices.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct BitSet {
    words: Vec<u64>,
}

impl BitSet {
    /// The empty set.
    pub fn new() -> BitSet {
        BitSet { words: Vec::new() }
    }

    /// The empty set, with room for the indices `0..n` (no reallocation while filling it).
    pub fn with_capacity(n: usize) -> BitSet {
        BitSet {
            words: Vec::with_capacity(n.div_ceil(64)),
        }
    }

    /// Adds `i`.
    pub fn insert(&mut self, i: usize) {
        let w = i / 64;
        if w >= self.words.len() {
            self.words.resize(w + 1, 0);
        }
        self.words[w] |= 1 << (i % 64);
    }

    /// Whether `i` is in the set.
    pub fn contains(&self, i: usize) -> bool {
        self.words
            .get(i / 64)
            .map_or(false, |w| w & (1 << (i % 64)) != 0)
    }

    /// `self ∩ other`.
    pub fn and(&self, other: &BitSet) -> BitSet {
        BitSet {
            words: self
                .words
                .iter()
                .zip(&other.words)
                .map(|(a, b)| a & b)
                .collect(),
        }
    }

    /// `|self ∩ other|`, without building the intersection.
    pub fn and_count(&self, other: &BitSet) -> usize {
        (self.words.iter().zip(&other.words))
            .map(|(a, b)| (a & b).count_ones() as usize)
            .sum()
    }

    /// Number of elements.
    pub fn count(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// `self ⊆ other`.
    pub fn is_subset(&self, other: &BitSet) -> bool {
        let (head, tail) = self.words.split_at(self.words.len().min(other.words.len()));
        head.iter().zip(&other.words).all(|(a, b)| a & !b == 0) && tail.iter().all(|&w| w == 0)
    }

    /// `self ← self ∩ other`.
    pub fn intersect_with(&mut self, other: &BitSet) {
        self.words.truncate(other.words.len());
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a &= b;
        }
    }

    /// The elements, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(i, &w)| {
            let mut rest = w;
            std::iter::from_fn(move || {
                if rest == 0 {
                    return None;
                }
                let bit = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                Some(i * 64 + bit)
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_intersect_and_iterate_in_order() {
        let mut a = BitSet::new();
        for i in [3, 64, 70, 130] {
            a.insert(i);
        }
        let mut b = BitSet::with_capacity(100);
        for i in [3, 70, 99] {
            b.insert(i);
        }
        assert_eq!(a.iter().collect::<Vec<_>>(), vec![3, 64, 70, 130]);
        assert!(!b.is_subset(&a));
        a.intersect_with(&b);
        assert_eq!(a.iter().collect::<Vec<_>>(), vec![3, 70]);
        assert!(a.is_subset(&b));
        assert_eq!(a.count(), 2);
        assert_eq!(a.and_count(&b), 2);
        b.insert(130);
        assert_eq!(b.and_count(&a), 2);
    }
}
