//! The external pull's tie through a ring's wrap, broken by the unwrapped
//! distance (beyond the seed papers and beyond Scotch's gmap).
//!
//! When dual recursive bipartitioning ([`super::drb`]) cuts a box, each
//! process is pulled towards the half whose centre is nearer to the
//! domains of its partners already placed elsewhere (distances between
//! domain centres, the shorter way round each ring). A box that is half of
//! a ring, cut again across that ring, has two halves at exactly the same
//! distance from the other half of the ring: one reaches it directly, the
//! other through the wrap (on a ring of 16, the halves 0–3 and 4–7 of 0–7
//! are both 6 from the centre 11.5 of 8–15). The pull then says nothing
//! about the processes that face the other half, and the graph's cut is
//! free to split them between the two quarters (measured:
//! `docs/mapping-quality.md`, "METIS-made meshes of 1,536 to 4,096 parts
//! over 8 seeds").
//!
//! [`tie_break`]: when a partner domain's two distances are equal, each is
//! raised by how much farther its half is from the partner's centre without
//! the wraps than the other half is (the unwrapped distance, Σ |x − y| over
//! the dimensions), so the face's processes are pulled towards the half
//! that reaches the other side directly and stay together: the ring is
//! used as a path, the way a mesh that is not periodic wants it; the next
//! box to be cut then follows by the ordinary pull. Distances that differ,
//! and ties that the wraps do not cause (equal unwrapped distances too),
//! are left as they are. O(D) per partner domain and cut. `recursive` and
//! `recursive+refine` use it where [`applies`] says.

use super::domain::Centre;

/// Whether the construction of an input of `n` processes whose processes
/// have `mean_degree` partners on average (adjacency entries over n)
/// breaks these ties: from 1,025 processes, when the mean degree is above
/// 8 and at most 16 (the METIS-made 3D meshes, about 13), where it was
/// measured to lower hop-bytes; on sparser inputs (the 2D meshes, about 6)
/// and on the real captures below 1,024 processes it did not, and denser
/// inputs were not measured (`docs/mapping-quality.md`, "METIS-made meshes
/// of 1,536 to 4,096 parts over 8 seeds" and "Wrap ties in every run, or
/// in every other run, below 1,024 processes"). O(1).
pub fn applies(n: usize, mean_degree: f64) -> bool {
    n >= 1025 && mean_degree > 8.0 && mean_degree <= 16.0
}

/// The two distances `e` of a partner domain centred at `cv` to the halves
/// centred at `c0` and `c1`, with an exact tie broken by the unwrapped
/// distances (see the module doc). O(D).
pub fn tie_break(cv: &Centre, c0: &Centre, c1: &Centre, e: [f64; 2]) -> [f64; 2] {
    if e[0] != e[1] {
        return e;
    }
    let (Centre::Grid(x), Centre::Grid(a), Centre::Grid(b)) = (cv, c0, c1) else {
        return e;
    };
    let la: f64 = x.iter().zip(a).map(|(p, q)| (p - q).abs()).sum();
    let lb: f64 = x.iter().zip(b).map(|(p, q)| (p - q).abs()).sum();
    let m = la.min(lb);
    [e[0] + (la - m), e[1] + (lb - m)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{MAX_DIMS, Topology};

    fn at(coords: &[f64]) -> Centre {
        let mut c = [0.0; MAX_DIMS];
        c[..coords.len()].copy_from_slice(coords);
        Centre::Grid(c)
    }

    #[test]
    fn a_tie_through_the_wrap_pulls_to_the_half_that_reaches_directly() {
        // Ring of 16: the halves 0–3 and 4–7 of the box 0–7 against the
        // other half 8–15 (centre 11.5): 6 and 6 the short way round, 10
        // and 6 without the wrap, so the half 4–7 is preferred by 4.
        let t = Topology::parse("torus:16").unwrap();
        let (cv, c0, c1) = (at(&[11.5]), at(&[1.5]), at(&[5.5]));
        let d = |a: &Centre, b: &Centre| super::super::domain::centre_distance(&t, a, b);
        let e = [d(&cv, &c0), d(&cv, &c1)];
        assert_eq!(e, [6.0, 6.0]);
        assert_eq!(tie_break(&cv, &c0, &c1, e), [10.0, 6.0]);
        // The other way round: a partner at 3.5 against the halves 8–11
        // and 12–15 of 8–15: 6 and 6 (through 0), 6 and 10 unwrapped.
        let (cv, c0, c1) = (at(&[3.5]), at(&[9.5]), at(&[13.5]));
        assert_eq!(tie_break(&cv, &c0, &c1, [6.0, 6.0]), [6.0, 10.0]);
    }

    #[test]
    fn it_applies_from_1025_processes_of_8_to_16_partners() {
        // The METIS-made 3D mesh of 2,048 parts (13,743 pairs: 13.4).
        assert!(applies(2048, 2.0 * 13_743.0 / 2048.0));
        assert!(applies(1025, 16.0) && applies(100_000, 8.5));
        // Not: 1,024 processes, the 2D meshes (about 6), dense inputs.
        assert!(!applies(1024, 13.0));
        assert!(!applies(2048, 5.75));
        assert!(!applies(2048, 8.0) && !applies(2048, 16.5));
    }

    #[test]
    fn other_distances_and_ties_are_kept() {
        // Not a tie: unchanged.
        let (cv, c0, c1) = (at(&[11.5]), at(&[1.5]), at(&[5.5]));
        assert_eq!(tie_break(&cv, &c0, &c1, [6.0, 5.0]), [6.0, 5.0]);
        // A tie without wraps (the partner beside the box, across another
        // dimension): the unwrapped distances tie too.
        let (cv, c0, c1) = (at(&[3.5, 11.5]), at(&[1.5, 3.5]), at(&[5.5, 3.5]));
        assert_eq!(tie_break(&cv, &c0, &c1, [10.0, 10.0]), [10.0, 10.0]);
        // Node sets (switch fabrics) have no coordinates: unchanged.
        let n = Centre::Node(3);
        assert_eq!(tie_break(&n, &n, &n, [2.0, 2.0]), [2.0, 2.0]);
    }
}

#[cfg(test)]
mod drb_tests {
    use super::super::drb::Drb;
    use crate::graph::GraphBuilder;
    use crate::partition::{BisectParams, pair_volumes};
    use crate::topology::Topology;
    use std::sync::Arc;

    /// Where process 7 of a path of 16 processes lands on a ring of 16
    /// nodes, by dual recursive bipartitioning with `unwrap`.
    fn node_of_7(unwrap: bool, seed: u64) -> u32 {
        let mut b = GraphBuilder::new(16, false);
        for i in 0..15 {
            b.add(i, i + 1, 1.0);
        }
        let g = Arc::new(b.build().unwrap());
        let topo = Arc::new(Topology::parse("torus:16").unwrap());
        let vol = Arc::new(pair_volumes(&g));
        let mut d = Drb::new(g, topo, vol, BisectParams::default(), seed).with_unwrap(unwrap);
        while !d.is_done() {
            d.step();
        }
        d.result().unwrap().node[7]
    }

    #[test]
    fn the_second_cut_of_a_ring_keeps_the_face_next_to_the_other_half() {
        // The path is cut 0–7 | 8–15 onto the halves 0–7 and 8–15 of the
        // ring (either way round). Cutting the half of process 7 again,
        // 7 (partner 8, in the other half) is 6 from the other half's
        // centre from either quarter: one touches the other half directly,
        // the other through the wrap. Broken by the unwrapped distance, 7
        // goes to the quarter that touches it directly (4–7 or 8–11), for
        // every seed; without it the quarter is the bisection's choice.
        for seed in 0..16 {
            let n = node_of_7(true, seed);
            assert!((4..12).contains(&n), "seed {seed}: node {n}");
        }
        assert!(
            (0..16).any(|s| !(4..12).contains(&node_of_7(false, s))),
            "without the tie-break some seed puts process 7 at the wrap"
        );
    }
}
