//! `clusters:KxS`: K disjoint cliques of S processes — the block-diagonal
//! communication matrix of Bobrik & Popova (seed 001, §3): `clusters:2x10` is
//! their 20-process example, where processes 0–9 talk only to each other and
//! processes 10–19 only to each other, all with equal intensity.
//!
//! Cluster `c` holds processes `c·S … c·S + S − 1`. Each process sends
//! `bytes` to each member of its cluster (pair volume `2·bytes`).
//!
//! Beyond the paper: with `inter_weight > 0`, each process also sends
//! `inter_weight` bytes to every member of the *next* cluster (`c` and `c+1`;
//! pair volume `2·inter_weight`), making a chain of clusters; `periodic`
//! closes the chain into a ring (cluster K−1 to cluster 0, when K > 2).
//! Linking consecutive clusters rather than all of them keeps the graph
//! sparse, `(K−1)·S²` extra pairs, and gives the layout a known 1D order to
//! recover. No coordinates.
//!
//! Complexity: O(K·S²) time and memory.

use super::{GenOptions, check_edges, finish, parse_dims};
use crate::error::Result;
use crate::graph::{CommGraph, GraphBuilder};

pub(crate) fn generate(spec: &str, args: &str, opts: &GenOptions) -> Result<CommGraph> {
    let dims = parse_dims(spec, "clusters:KxS", args, 2, 2)?;
    let (k, s) = (dims[0], dims[1]);
    let n = k * s;
    let inter = opts.inter_weight > 0.0;
    let links = if !inter {
        0
    } else if opts.periodic && k > 2 {
        k
    } else {
        k - 1
    };
    let estimate = k as u128 * (s as u128 * (s as u128 - 1) / 2) + links as u128 * (s * s) as u128;
    check_edges(spec, estimate)?;
    let mut b = GraphBuilder::with_capacity(n, false, estimate as usize);
    for c in 0..k {
        let base = c * s;
        for i in 0..s {
            for j in i + 1..s {
                b.add(base + i, base + j, 2.0 * opts.bytes);
            }
        }
    }
    for l in 0..links {
        let (c, d) = (l, (l + 1) % k);
        for i in 0..s {
            for j in 0..s {
                b.add(c * s + i, d * s + j, 2.0 * opts.inter_weight);
            }
        }
    }
    finish(b, None)
}

#[cfg(test)]
mod tests {
    use super::super::generate as gen_spec;
    use super::*;

    #[test]
    fn bobrik_example() {
        let g = gen_spec("clusters:2x10", &GenOptions::default()).unwrap();
        assert_eq!(g.n(), 20);
        assert_eq!(g.num_edges(), 2 * 45);
        assert_eq!(g.components().1, 2);
        assert_eq!(g.volume(0, 9), 2048.0);
        assert_eq!(g.volume(9, 10), 0.0);
        assert_eq!(g.neighbors(10), &[11, 12, 13, 14, 15, 16, 17, 18, 19]);
        assert_eq!(g.total_bytes(), 90.0 * 2048.0);
        assert!(g.coords().is_none());
    }

    #[test]
    fn inter_cluster_chain_and_ring() {
        let o = GenOptions {
            inter_weight: 10.0,
            bytes: 100.0,
            ..GenOptions::default()
        };
        let g = gen_spec("clusters:3x4", &o).unwrap();
        assert_eq!(g.num_edges(), 3 * 6 + 2 * 16);
        assert_eq!(g.volume(0, 4), 20.0);
        assert_eq!(g.volume(0, 8), 0.0);
        assert_eq!(g.volume(4, 11), 20.0);
        assert_eq!(g.volume(1, 2), 200.0);
        assert_eq!(g.total_bytes(), 18.0 * 200.0 + 32.0 * 20.0);
        assert_eq!(g.components().1, 1);
        let ring = GenOptions {
            periodic: true,
            ..o.clone()
        };
        let g = gen_spec("clusters:3x4", &ring).unwrap();
        assert_eq!(g.num_edges(), 3 * 6 + 3 * 16);
        assert_eq!(g.volume(0, 8), 20.0);
        // Two clusters: the ring link would duplicate the chain link.
        let g = gen_spec("clusters:2x4", &ring).unwrap();
        assert_eq!(g.num_edges(), 2 * 6 + 16);
        assert_eq!(g.build_stats().duplicates_merged, 0);
    }

    #[test]
    fn singletons_and_bad_specs() {
        let o = GenOptions::default();
        let g = gen_spec("clusters:5x1", &o).unwrap();
        assert_eq!((g.n(), g.num_edges()), (5, 0));
        for bad in [
            "clusters:5",
            "clusters:0x5",
            "clusters:2x3x4",
            "clusters:axb",
        ] {
            assert!(gen_spec(bad, &o).is_err(), "{bad}");
        }
    }
}
