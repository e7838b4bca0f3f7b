//! `fft:A[xB[xC]]`: the communication of a parallel multidimensional FFT on
//! a logical process grid (Balaji et al., seed 002, §2.1): between transform
//! stages the data is transposed within each row, column (and pillar), so each
//! process talks to every other process that shares all but one of its grid
//! coordinates — `(A−1)+(B−1)+(C−1)` partners.
//!
//! Each process sends `bytes` to each partner (pair volume `2·bytes`).
//! `periodic` and `neighbors` do not apply. Ids are X-fastest; coordinates
//! are the grid positions.
//!
//! Complexity: O(n · Σ(dᵢ − 1)) time and memory.

use super::{GenOptions, GridShape, check_edges, finish, parse_dims};
use crate::error::Result;
use crate::graph::{CommGraph, GraphBuilder};

pub(crate) fn generate(spec: &str, args: &str, opts: &GenOptions) -> Result<CommGraph> {
    let dims = parse_dims(spec, "fft:A[xB[xC]]", args, 1, 3)?;
    let shape = GridShape::new(&dims);
    let per: usize = dims.iter().map(|d| d - 1).sum();
    check_edges(spec, shape.n as u128 * per as u128 / 2)?;
    let mut b = GraphBuilder::with_capacity(shape.n, false, shape.n * per / 2);
    let mut c = vec![0usize; dims.len()];
    let mut t = vec![0usize; dims.len()];
    for u in 0..shape.n {
        shape.coord(u, &mut c);
        for a in 0..dims.len() {
            t.copy_from_slice(&c);
            // Only partners further along this axis: each pair once.
            for x in c[a] + 1..dims[a] {
                t[a] = x;
                b.add(u, shape.id(&t), 2.0 * opts.bytes);
            }
        }
    }
    finish(b, Some(shape.coords()))
}

#[cfg(test)]
mod tests {
    use super::super::generate as gen_spec;
    use super::*;

    #[test]
    fn partner_counts() {
        let o = GenOptions::default();
        let g = gen_spec("fft:4x3", &o).unwrap();
        assert_eq!(g.n(), 12);
        for u in 0..12 {
            assert_eq!(g.degree(u), 3 + 2);
        }
        assert_eq!(g.num_edges(), 12 * 5 / 2);
        // Process 5 = (1, 1): row 4, 6, 7; column 1, 9.
        assert_eq!(g.neighbors(5), &[1, 4, 6, 7, 9]);
        assert_eq!(g.volume(5, 9), 2048.0);
        let g3 = gen_spec("fft:3x4x5", &o).unwrap();
        for u in 0..60 {
            assert_eq!(g3.degree(u), 2 + 3 + 4);
        }
        assert_eq!(g3.coords().unwrap().dim, 3);
        assert_eq!(g3.build_stats().duplicates_merged, 0);
        // 1D: all-to-all.
        assert_eq!(gen_spec("fft:6", &o).unwrap().num_edges(), 15);
        assert_eq!(gen_spec("fft:1x1", &o).unwrap().num_edges(), 0);
    }

    #[test]
    fn bad_specs() {
        let o = GenOptions::default();
        for bad in ["fft:", "fft:2x2x2x2", "fft:ax2", "fft:2x-2"] {
            assert!(gen_spec(bad, &o).is_err(), "{bad}");
        }
    }
}
