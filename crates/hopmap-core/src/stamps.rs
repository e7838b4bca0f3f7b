//! A set of small integers that is emptied in O(1): each index holds the
//! generation in which it was last inserted, and emptying starts a new
//! generation (all marks are reset only when the 32-bit counter wraps).
//! Used where a search marks the nodes or domains it has seen, many times
//! over, on sets far smaller than the universe.

/// Generation marks over `0..len` ([module docs](self)).
#[derive(Clone, Debug)]
pub struct Stamps {
    marks: Vec<u32>,
    id: u32,
}

impl Default for Stamps {
    fn default() -> Self {
        Stamps::new(0)
    }
}

impl Stamps {
    /// An empty set over `0..len`. O(len).
    pub fn new(len: usize) -> Self {
        Stamps {
            marks: vec![0; len],
            id: 1,
        }
    }

    /// The universe's size.
    pub fn len(&self) -> usize {
        self.marks.len()
    }

    /// Whether the universe is empty.
    pub fn is_empty(&self) -> bool {
        self.marks.is_empty()
    }

    /// Grow the universe to `len` (new indices not in the set). O(growth).
    pub fn grow(&mut self, len: usize) {
        if len > self.marks.len() {
            self.marks.resize(len, 0);
        }
    }

    /// Empty the set. O(1), O(len) once every 2³² − 1 calls.
    pub fn clear(&mut self) {
        self.id = self.id.wrapping_add(1);
        if self.id == 0 {
            self.marks.fill(0);
            self.id = 1;
        }
    }

    /// Insert `i`; true when it was not in the set. O(1).
    #[inline]
    pub fn insert(&mut self, i: usize) -> bool {
        let fresh = self.marks[i] != self.id;
        self.marks[i] = self.id;
        fresh
    }

    /// Whether `i` is in the set. O(1).
    #[inline]
    pub fn contains(&self, i: usize) -> bool {
        self.marks[i] == self.id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clearing_empties_the_set_and_growing_adds_absent_indices() {
        let mut s = Stamps::new(4);
        assert!(!s.contains(2));
        assert!(s.insert(2));
        assert!(!s.insert(2));
        assert!(s.contains(2));
        s.clear();
        assert!(!s.contains(2));
        assert!(s.insert(2));
        s.grow(6);
        assert_eq!(s.len(), 6);
        assert!(!s.contains(5));
        assert!(s.contains(2));
    }

    #[test]
    fn a_wrapped_generation_counter_forgets_every_old_mark() {
        let mut s = Stamps::new(3);
        s.insert(0);
        s.id = u32::MAX;
        s.insert(1);
        s.clear();
        assert!(!s.contains(0) && !s.contains(1));
        assert_eq!(s.id, 1);
    }
}
