//! Provenance: the set of inputs a step transitively reads ([`ProvMask`], a
//! multi-word bitmask so programs with any number of inputs are tracked
//! exactly), and the four ways a compiled kernel uses it ([`Provenance`]).

/// A set of input indices.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ProvMask {
    words: Vec<u64>,
}

impl ProvMask {
    /// The empty set sized for `inputs` inputs.
    pub fn empty(inputs: usize) -> ProvMask {
        ProvMask { words: vec![0; inputs.div_ceil(64).max(1)] }
    }

    /// Adds input `i`.
    pub fn set(&mut self, i: usize) {
        if i / 64 >= self.words.len() {
            self.words.resize(i / 64 + 1, 0);
        }
        self.words[i / 64] |= 1 << (i % 64);
    }

    /// Removes input `i`.
    pub fn clear(&mut self, i: usize) {
        if let Some(w) = self.words.get_mut(i / 64) {
            *w &= !(1 << (i % 64));
        }
    }

    /// True if input `i` is in the set.
    pub fn contains(&self, i: usize) -> bool {
        self.words.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    /// Adds every member of `other`.
    pub fn union_with(&mut self, other: &ProvMask) {
        if other.words.len() > self.words.len() {
            self.words.resize(other.words.len(), 0);
        }
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a |= b;
        }
    }

    /// True if the two sets share a member.
    pub fn intersects(&self, other: &ProvMask) -> bool {
        self.words.iter().zip(&other.words).any(|(a, b)| a & b != 0)
    }

    /// True for the empty set.
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|w| *w == 0)
    }

    /// Removes every member.
    pub fn clear_all(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
    }

    /// The members, ascending.
    pub fn iter_ones(&self) -> impl Iterator<Item = usize> + '_ {
        ones(&self.words)
    }

    /// Number of members.
    pub fn count(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// The raw words (64 inputs per word).
    pub fn words(&self) -> &[u64] {
        &self.words
    }
}

/// The members of a mask given as words of 64 inputs each, ascending.
pub fn ones(words: &[u64]) -> impl Iterator<Item = usize> + '_ {
    words.iter().enumerate().flat_map(|(wi, &w)| {
        let mut bits = w;
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let b = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            Some(wi * 64 + b)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_span_many_words() {
        let mut a = ProvMask::empty(200);
        a.set(3);
        a.set(130);
        let mut b = ProvMask::empty(200);
        b.set(130);
        assert!(a.intersects(&b));
        assert_eq!(a.iter_ones().collect::<Vec<_>>(), vec![3, 130]);
        b.clear(130);
        assert!(!a.intersects(&b) && b.is_empty());
        b.set(199);
        a.union_with(&b);
        assert_eq!(a.count(), 3);
    }
}

/// The four provenance modes of the compiled engines: how a kernel knows
/// which steps are current.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Provenance {
    /// No provenance: a read runs every step of the cone not yet run this round.
    #[default]
    Raw,
    /// A changed input dirties its dependents; a read runs the dirty steps of the cone.
    Push,
    /// Writes record the changed inputs; a read checks the cone guard, then runs as Raw.
    Pull,
    /// Push and Pull together: the cone guard, then the dirty steps.
    PushPull,
}

impl Provenance {
    /// Every mode, in reporting order.
    pub const ALL: [Provenance; 4] = [Provenance::Raw, Provenance::Push, Provenance::Pull, Provenance::PushPull];

    /// The mode's name (`raw`, `push`, `pull`, `pushpull`).
    pub fn name(self) -> &'static str {
        match self {
            Provenance::Raw => "raw",
            Provenance::Push => "push",
            Provenance::Pull => "pull",
            Provenance::PushPull => "pushpull",
        }
    }

    /// Parses a mode name (not `auto`).
    pub fn parse(name: &str) -> Option<Provenance> {
        Provenance::ALL.into_iter().find(|p| p.name() == name)
    }
}
