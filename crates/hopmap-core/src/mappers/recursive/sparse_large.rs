//! Sparse inputs above 1,024 processes: where `recursive+refine` spends
//! the time it has left under Scotch's gmap (beyond the seed papers).
//!
//! An input is *sparse and large* ([`sparse_large`]) when it has more than
//! [`super::DENSE_FROM`] (1,024) and at most [`SPARSE_MAX`] (4,096)
//! processes and at most [`SPARSE_DEGREE`] (8) partners per process on
//! average (the METIS-made 2D meshes: about 6; the 3D ones, about 13, are
//! not). Such an input gets, with automatic runs, at least two runs
//! ([`super::auto_runs`]), so that the best one is polished
//! ([`super::refine::Refine::polish`]), and the polish's descent phase
//! ([`super::refine::descent`], otherwise only up to 1,024 processes) runs
//! on it. Other refinements of such inputs (`grid`'s, a single run's when
//! `runs=1` is asked) keep skipping the descent.
//!
//! Why: one run's construction and search on such an input cost
//! O(m log N + m · candidates) with m ≈ 3 n pairs, a third of what the same
//! number of 3D parts costs, while gmap's time on it is not smaller; the
//! time left pays for a second start and the descent's random
//! first-improvement moves, which lower hop-bytes there. On denser inputs
//! (the 3D meshes) the same change costs more than gmap's time leaves, so
//! they keep their one run (measured: `docs/mapping-quality.md`,
//! "METIS-made meshes of 1,536 to 4,096 parts over 8 seeds"). O(1).

/// Largest input [`sparse_large`] holds: above it the added run's time was
/// not measured against gmap.
pub const SPARSE_MAX: usize = 4096;

/// Adjacency entries per process (twice the pairs over the processes) up
/// to which an input is sparse.
pub const SPARSE_DEGREE: usize = 8;

/// Whether an input of `n` processes and `pairs` communicating pairs is
/// sparse and large (see the module doc). O(1).
pub fn sparse_large(n: usize, pairs: usize) -> bool {
    n > super::DENSE_FROM && n <= SPARSE_MAX && 2 * pairs <= SPARSE_DEGREE * n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_large_holds_the_2d_meshes_from_1025_to_4096_processes() {
        // The METIS-made 2D mesh of 2,048 parts (5,890 pairs) and 4,096
        // parts at mean degree 8 exactly.
        assert!(sparse_large(2048, 5890));
        assert!(sparse_large(4096, 4 * 4096));
        assert!(sparse_large(1025, 10));
        // Not: 1,024 processes and fewer (they have their own runs and
        // the descent already), above 4,096, or denser (the 3D meshes).
        assert!(!sparse_large(1024, 2900));
        assert!(!sparse_large(4097, 10));
        assert!(!sparse_large(4096, 4 * 4096 + 1));
        assert!(!sparse_large(2048, 13_743));
        assert!(!sparse_large(0, 0));
    }
}
