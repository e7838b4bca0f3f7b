//! An addressable 4-ary max-heap of vertices keyed by gain, for the
//! greedy growing and the Fiduccia–Mattheyses passes of [`super::bisect()`].
//!
//! Each vertex is in the heap at most once; its key is `(gain, tie)`,
//! ordered by `gain` (`f64::total_cmp`) and then by `tie` (a `u32` the
//! caller derives from the vertex: the vertex itself to prefer high ids on
//! equal gains, `u32::MAX - v` to prefer low ones). Keys are distinct when
//! ties are, so the maximum is unique and does not depend on the order of
//! insertions and updates: the heap pops exactly what a lazy heap (push a
//! new entry on every change, skip stale entries when popping) pops, with
//! one entry per vertex instead of one per change.
//!
//! Cost: [`GainHeap::set`] and [`GainHeap::pop`] O(log k) for k vertices
//! in the heap, [`GainHeap::top`] O(1), [`GainHeap::build`] O(k),
//! [`GainHeap::clear`] O(k); memory O(n) for vertex ids below n.

const ABSENT: u32 = u32::MAX;
/// Children per heap node (a shallower heap than a binary one: fewer
/// levels to climb on the many key changes of FM).
const ARITY: usize = 4;
// [`GainHeap::sift_down`] compares four children as two pairs.
const _: () = assert!(ARITY == 4);

/// See the module doc.
#[derive(Clone, Debug, Default)]
pub struct GainHeap {
    /// Heap order: `(order_key(gain), tie, vertex)`.
    items: Vec<(i64, u32, u32)>,
    /// Position of each vertex in `items`, or `ABSENT`.
    pos: Vec<u32>,
}

/// The integer whose order is `f64::total_cmp`'s (computed once per key
/// change instead of once per comparison).
#[inline]
fn order_key(g: f64) -> i64 {
    let b = g.to_bits() as i64;
    b ^ (((b >> 63) as u64) >> 1) as i64
}

/// The inverse of [`order_key`].
#[inline]
fn gain_of(k: i64) -> f64 {
    f64::from_bits((k ^ (((k >> 63) as u64) >> 1) as i64) as u64)
}

#[inline]
fn above(a: &(i64, u32, u32), b: &(i64, u32, u32)) -> bool {
    (a.0, a.1) > (b.0, b.1)
}

impl GainHeap {
    /// Empty the heap and make room for vertices `0..n`. O(k + growth).
    pub fn clear(&mut self, n: usize) {
        for &(_, _, v) in &self.items {
            self.pos[v as usize] = ABSENT;
        }
        self.items.clear();
        if self.pos.len() < n {
            self.pos.resize(n, ABSENT);
        }
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn contains(&self, v: usize) -> bool {
        self.pos.get(v).is_some_and(|&p| p != ABSENT)
    }

    /// Make this heap a copy of `other` (its vertices, keys and order),
    /// reusing this heap's memory. O(k + n).
    pub fn copy_from(&mut self, other: &GainHeap) {
        self.items.clone_from(&other.items);
        self.pos.clone_from(&other.pos);
    }

    /// Add vertices (not in the heap yet) without ordering them; call
    /// [`Self::build`] before any other operation.
    #[inline]
    pub fn push_unordered(&mut self, v: u32, gain: f64, tie: u32) {
        self.pos[v as usize] = self.items.len() as u32;
        self.items.push((order_key(gain), tie, v));
    }

    /// Restore the heap order after [`Self::push_unordered`]. O(k).
    pub fn build(&mut self) {
        for i in (0..self.items.len().div_ceil(ARITY)).rev() {
            self.sift_down(i);
        }
    }

    /// The vertex of largest key and its gain.
    #[inline]
    pub fn top(&self) -> Option<(u32, f64)> {
        self.items.first().map(|&(k, _, v)| (v, gain_of(k)))
    }

    /// Remove and return the vertex of largest key.
    pub fn pop(&mut self) -> Option<u32> {
        let &(_, _, v) = self.items.first()?;
        self.remove_at(0);
        Some(v)
    }

    /// Remove `v` if it is in the heap.
    pub fn remove(&mut self, v: usize) {
        if let Some(&p) = self.pos.get(v)
            && p != ABSENT
        {
            self.remove_at(p as usize);
        }
    }

    /// Insert `v` with this key, or change its key.
    #[inline]
    pub fn set(&mut self, v: u32, gain: f64, tie: u32) {
        let p = self.pos[v as usize];
        let key = order_key(gain);
        if p == ABSENT {
            let i = self.items.len();
            self.items.push((key, tie, v));
            self.pos[v as usize] = i as u32;
            self.sift_up(i);
        } else {
            let i = p as usize;
            let old = self.items[i];
            self.items[i] = (key, tie, v);
            if above(&self.items[i], &old) {
                self.sift_up(i);
            } else {
                self.sift_down(i);
            }
        }
    }

    #[inline]
    fn remove_at(&mut self, i: usize) {
        let last = self.items.len() - 1;
        let v = self.items[i].2;
        self.items.swap(i, last);
        self.items.pop();
        self.pos[v as usize] = ABSENT;
        if i < last {
            self.pos[self.items[i].2 as usize] = i as u32;
            // The moved item may belong above or below `i`.
            if i > 0 && above(&self.items[i], &self.items[(i - 1) / ARITY]) {
                self.sift_up(i);
            } else {
                self.sift_down(i);
            }
        }
    }

    #[inline]
    fn sift_up(&mut self, mut i: usize) {
        let it = self.items[i];
        while i > 0 {
            let parent = (i - 1) / ARITY;
            if !above(&it, &self.items[parent]) {
                break;
            }
            self.items[i] = self.items[parent];
            self.pos[self.items[i].2 as usize] = i as u32;
            i = parent;
        }
        self.items[i] = it;
        self.pos[it.2 as usize] = i as u32;
    }

    fn sift_down(&mut self, mut i: usize) {
        let n = self.items.len();
        let it = self.items[i];
        loop {
            let first = ARITY * i + 1;
            // The largest child. Keys are distinct, so the order of the
            // comparisons does not matter: with all four children present,
            // two pairs and their winners (a shorter chain than one by one).
            let c = if first + ARITY <= n {
                let ch = &self.items[first..first + ARITY];
                let a = usize::from(above(&ch[1], &ch[0]));
                let b = 2 + usize::from(above(&ch[3], &ch[2]));
                first + if above(&ch[b], &ch[a]) { b } else { a }
            } else if first < n {
                let mut c = first;
                for k in first + 1..n {
                    if above(&self.items[k], &self.items[c]) {
                        c = k;
                    }
                }
                c
            } else {
                break;
            };
            if !above(&self.items[c], &it) {
                break;
            }
            self.items[i] = self.items[c];
            self.pos[self.items[i].2 as usize] = i as u32;
            i = c;
        }
        self.items[i] = it;
        self.pos[it.2 as usize] = i as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(h: &mut GainHeap) -> Vec<u32> {
        std::iter::from_fn(|| h.pop()).collect()
    }

    #[test]
    fn pops_by_gain_then_tie() {
        let mut h = GainHeap::default();
        h.clear(5);
        // Gains 1, 3, 3, -2, 0; ties prefer the higher vertex id.
        for (v, g) in [(0, 1.0), (1, 3.0), (2, 3.0), (3, -2.0), (4, 0.0)] {
            h.set(v, g, v);
        }
        assert_eq!(h.top(), Some((2, 3.0)));
        assert_eq!(drain(&mut h), vec![2, 1, 0, 4, 3]);
        // Ties preferring the lower id (tie = MAX - v), built in O(k).
        h.clear(5);
        for (v, g) in [(0, 1.0), (1, 3.0), (2, 3.0), (3, -2.0), (4, 0.0)] {
            h.push_unordered(v, g, u32::MAX - v);
        }
        h.build();
        assert_eq!(drain(&mut h), vec![1, 2, 0, 4, 3]);
    }

    #[test]
    fn order_keys_sort_like_total_cmp_and_invert() {
        let xs = [
            f64::NEG_INFINITY,
            -3.5,
            -1e-300,
            -0.0,
            0.0,
            1e-300,
            2.0,
            f64::INFINITY,
        ];
        for w in xs.windows(2) {
            assert!(order_key(w[0]) < order_key(w[1]), "{w:?}");
        }
        for x in xs {
            assert_eq!(gain_of(order_key(x)).to_bits(), x.to_bits());
        }
    }

    #[test]
    fn updates_and_removals_keep_the_order() {
        let mut h = GainHeap::default();
        h.clear(6);
        for v in 0..6u32 {
            h.set(v, v as f64, v);
        }
        h.set(0, 10.0, 0); // up: 0 first
        h.set(5, -1.0, 5); // down: 5 last
        h.remove(3);
        assert!(!h.contains(3) && h.contains(4));
        assert_eq!(h.len(), 5);
        assert_eq!(drain(&mut h), vec![0, 4, 2, 1, 5]);
        assert!(h.is_empty());
        // Clearing forgets every vertex, including ones left in the heap.
        h.set(1, 1.0, 1);
        h.clear(6);
        assert!(!h.contains(1) && h.is_empty());
    }

    #[test]
    fn pops_what_a_lazy_heap_pops() {
        // A lazy max-heap: push on every change, skip stale entries.
        let mut rng = crate::rng::Rng::new(9);
        let n = 40;
        let mut h = GainHeap::default();
        h.clear(n);
        let mut lazy = std::collections::BinaryHeap::new();
        let mut gain = vec![f64::NAN; n];
        for _ in 0..2000 {
            let v = rng.below(n);
            if rng.below(4) == 0 {
                // Pop from both.
                let want = loop {
                    match lazy.pop() {
                        Some((k, u)) if gain[u as usize] == k as f64 => break Some(u),
                        Some(_) => continue,
                        None => break None,
                    }
                };
                if let Some(u) = want {
                    gain[u as usize] = f64::NAN;
                }
                assert_eq!(h.pop(), want);
            } else {
                let g = rng.below(7) as f64 - 3.0;
                gain[v] = g;
                h.set(v as u32, g, v as u32);
                lazy.push((g as i64, v as u32));
            }
        }
    }
}
