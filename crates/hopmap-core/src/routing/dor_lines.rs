//! Hop-bytes and max channel load of a mapping under dimension-order routing
//! (natural order, [`super::dor`]) on a mesh/torus, without walking any
//! route: a message's segment along dimension d lies on one line of the
//! network (the dimensions before d at the destination's coordinates, those
//! after at the source's) and covers a cyclic interval of that line's
//! channels in one direction, so it is added to a difference array (+bytes
//! where it starts, −bytes where it ends, split in two when it crosses the
//! wrap), and one prefix sum per line and direction gives every channel's
//! load. O(n · d + m · d + channels) instead of O(m · route length).
//!
//! Beyond the seeds: the classic difference-array (prefix-sum) trick for
//! interval loads, applied per network line. The sums are exact when every
//! message's bytes are whole numbers and the total times the diameter stays
//! below 2⁵³; only then is an answer given (None otherwise), and it is then
//! bit for bit what routing every message hop by hop
//! ([`crate::metrics::evaluate`]) sums in any order.

use crate::graph::CommGraph;
use crate::topology::Grid;

/// Whether every message's bytes are a whole number and the total times
/// the diameter (plus one) is below 2⁵³: then every sum of hop-bytes or of
/// a channel's load is exact, in any order. O(m).
pub fn exact(g: &CommGraph, grid: &Grid) -> bool {
    let sent = g.sent();
    let total: f64 = sent.iter().filter(|&&b| b > 0.0).sum();
    sent.iter().all(|&b| b.fract() == 0.0) && total * (grid.diameter() as f64 + 1.0) < 2f64.powi(53)
}

/// `(hop-bytes, max channel load)` of the mapping `node` (process → node)
/// of `g` onto `grid` under dimension-order routing in natural order, or
/// None when some message's bytes are not a whole number or the sums could
/// exceed 2⁵³ (then they may round, and the caller routes every message).
/// Messages inside a node cross no channel. `diff` is scratch (resized
/// here), kept by callers that evaluate many mappings.
pub fn dor_hop_bytes_and_max_load(
    g: &CommGraph,
    grid: &Grid,
    node: &[u32],
    diff: &mut Vec<f64>,
) -> Option<(f64, f64)> {
    dor_summary(g, grid, node, diff).map(|s| (s.hop_bytes, s.max_load))
}

/// What [`dor_summary`] measures; each value equal, bit for bit, to the
/// same field of [`crate::metrics::evaluate`]'s metrics under
/// [`super::Routing::Dor`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DorSummary {
    /// Σ bytes × hops.
    pub hop_bytes: f64,
    /// The largest channel load.
    pub max_load: f64,
    /// The most hops of any message between two nodes.
    pub max_dilation: u32,
    /// Σ bytes of every message (inside nodes too).
    pub total: f64,
}

/// [`dor_hop_bytes_and_max_load`] with the total bytes and the largest
/// dilation too (the same pass; None in the same cases). O(n · d + m · d +
/// channels).
pub fn dor_summary(
    g: &CommGraph,
    grid: &Grid,
    node: &[u32],
    diff: &mut Vec<f64>,
) -> Option<DorSummary> {
    let nd = grid.ndims();
    if !exact(g, grid) {
        return None;
    }
    let (dims, strides) = (grid.dims(), grid.strides());
    let wraps: Vec<bool> = (0..nd).map(|d| grid.wraps(d)).collect();
    debug_assert!((0..nd).all(|d| grid.channel(1, d, 1) == 2 * nd + 2 * d + 1));
    diff.clear();
    diff.resize(grid.channel_slots(), 0.0);
    // Every process's node coordinates.
    let n = g.n();
    let mut xyz = vec![0u32; n * nd];
    for p in 0..n {
        let c = grid.coord(node[p] as usize);
        xyz[p * nd..(p + 1) * nd].copy_from_slice(&c[..nd]);
    }
    let (mut hop_bytes, mut total, mut max_dilation) = (0.0, 0.0, 0u32);
    for u in 0..n {
        let ca = &xyz[u * nd..(u + 1) * nd];
        for (&v, &b) in g.neighbors(u).iter().zip(g.sent_row(u)) {
            if b <= 0.0 {
                continue;
            }
            total += b;
            if node[u] == node[v as usize] {
                continue;
            }
            let cb = &xyz[v as usize * nd..(v as usize + 1) * nd];
            // The line's node at coordinate 0 along d: dimensions before d
            // at cb, after d at ca.
            let mut base: usize = (0..nd).map(|e| ca[e] as usize * strides[e]).sum();
            let mut hops_all = 0u32;
            for d in 0..nd {
                let s = strides[d];
                base -= ca[d] as usize * s;
                let (a, z) = (ca[d], cb[d]);
                if a != z {
                    let k = dims[d];
                    // `dim_direction` without a division: the shorter way
                    // round a ring, a half-ring tie forward.
                    let fwd = if z > a { z - a } else { z + k - a };
                    let (dir, hops) = if !wraps[d] {
                        if z > a { (0, z - a) } else { (1, a - z) }
                    } else if fwd <= k - fwd {
                        (0, fwd)
                    } else {
                        (1, k - fwd)
                    };
                    hops_all += hops;
                    // The channels crossed, as a cyclic interval of
                    // positions [lo, lo + hops) along the line.
                    let lo = if dir == 0 {
                        a
                    } else if a + 1 >= hops {
                        a + 1 - hops
                    } else {
                        a + 1 + k - hops
                    };
                    let at = |c: u32| (base + c as usize * s) * 2 * nd + 2 * d + dir;
                    diff[at(lo)] += b;
                    let end = lo + hops;
                    if end < k {
                        diff[at(end)] -= b;
                    } else if end > k {
                        diff[at(0)] += b;
                        diff[at(end - k)] -= b;
                    }
                }
                base += cb[d] as usize * s;
            }
            hop_bytes += b * hops_all as f64;
            max_dilation = max_dilation.max(hops_all);
        }
    }
    // One prefix sum per line and direction.
    let mut max = 0.0f64;
    for d in 0..nd {
        let (k, s) = (dims[d] as usize, strides[d]);
        for start in 0..grid.num_nodes() {
            if (start / s) % k != 0 {
                continue;
            }
            for dir in 0..2 {
                let mut load = 0.0;
                for c in 0..k {
                    load += diff[grid.channel(start + c * s, d, dir)];
                    max = max.max(load);
                }
            }
        }
    }
    Some(DorSummary {
        hop_bytes,
        max_load: max,
        max_dilation,
        total,
    })
}

/// `(hop-bytes, max link load)` of `mapping` under dimension-order routing
/// in natural order: [`dor_hop_bytes_and_max_load`] when it answers, else
/// (fractional bytes, a switch fabric) those of
/// [`crate::metrics::evaluate`]. The same values either way.
pub fn hop_bytes_and_max_load(
    g: &CommGraph,
    topo: &crate::topology::Topology,
    mapping: &crate::mapping::Mapping,
    diff: &mut Vec<f64>,
) -> (f64, f64) {
    if let Some(grid) = topo.as_grid()
        && let Some(r) = dor_hop_bytes_and_max_load(g, grid, &mapping.node, diff)
    {
        return r;
    }
    let e = crate::metrics::evaluate(g, topo, mapping, &super::Routing::Dor);
    (e.metrics.hop_bytes, e.metrics.max_link_load)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphBuilder;
    use crate::mapping::Mapping;
    use crate::routing::Routing;
    use crate::topology::Topology;

    fn routed(g: &CommGraph, spec: &str, node: &[u32]) -> (f64, f64) {
        let t = Topology::parse(spec).unwrap();
        let m = Mapping::new(node.to_vec(), vec![0; node.len()]);
        let e = crate::metrics::evaluate(g, &t, &m, &Routing::Dor);
        (e.metrics.hop_bytes, e.metrics.max_link_load)
    }

    fn fast(g: &CommGraph, spec: &str, node: &[u32]) -> Option<(f64, f64)> {
        let t = Topology::parse(spec).unwrap();
        dor_hop_bytes_and_max_load(g, t.as_grid().unwrap(), node, &mut Vec::new())
    }

    #[test]
    fn a_ring_of_four_loads_the_half_ring_tie_forward() {
        // torus:4, process p on node p. 0→2 (tie: + way, channels 0→1,
        // 1→2) carries 5; 1→2 carries 3; 3→0 (one hop +, wrap) 7; 2→1
        // (one hop −) 4. Channel 1→2 (+) carries 5 + 3 = 8: the max.
        let mut b = GraphBuilder::new(4, true);
        b.add(0, 2, 5.0);
        b.add(1, 2, 3.0);
        b.add(3, 0, 7.0);
        b.add(2, 1, 4.0);
        let g = b.build().unwrap();
        let node = [0, 1, 2, 3];
        assert_eq!(
            fast(&g, "torus:4", &node),
            Some((10.0 + 3.0 + 7.0 + 4.0, 8.0))
        );
        assert_eq!(
            fast(&g, "torus:4", &node),
            Some(routed(&g, "torus:4", &node))
        );
    }

    #[test]
    fn a_wrapping_segment_splits_at_the_wrap() {
        // torus:5, 3→0 goes + (2 hops: 3→4, 4→0), 4→1 goes + too (4→0,
        // 0→1): channel 4→0 carries both, 2 + 6 = 8.
        let mut b = GraphBuilder::new(5, true);
        b.add(3, 0, 2.0);
        b.add(4, 1, 6.0);
        let g = b.build().unwrap();
        let node = [0, 1, 2, 3, 4];
        assert_eq!(fast(&g, "torus:5", &node), Some((16.0, 8.0)));
    }

    #[test]
    fn agrees_with_routing_on_random_mappings_of_2d_and_3d_networks() {
        let mut rng = crate::rng::Rng::new(7);
        for spec in [
            "torus:4x6",
            "mesh:3x5",
            "torus:4x2x3",
            "mesh:2x3x4",
            "torus:5x3x2",
        ] {
            let t = Topology::parse(spec).unwrap();
            let nodes = t.as_grid().unwrap().num_nodes();
            let n = 2 * nodes;
            let mut b = GraphBuilder::new(n, true);
            for _ in 0..6 * n {
                let (u, v) = (rng.below(n), rng.below(n));
                if u != v {
                    b.add(u, v, (1 + rng.below(1000)) as f64);
                }
            }
            let g = b.build().unwrap();
            for _ in 0..5 {
                let node: Vec<u32> = (0..n).map(|_| rng.below(nodes) as u32).collect();
                assert_eq!(
                    fast(&g, spec, &node),
                    Some(routed(&g, spec, &node)),
                    "{spec}"
                );
                // The summary's other two values too.
                let m = Mapping::new(node.clone(), vec![0; n]);
                let e = crate::metrics::evaluate(&g, &t, &m, &Routing::Dor).metrics;
                let s = dor_summary(&g, t.as_grid().unwrap(), &node, &mut Vec::new());
                assert_eq!(
                    s,
                    Some(DorSummary {
                        hop_bytes: e.hop_bytes,
                        max_load: e.max_link_load,
                        max_dilation: e.max_dilation,
                        total: e.total_bytes,
                    }),
                    "{spec}"
                );
            }
        }
    }

    #[test]
    fn fractional_bytes_give_no_answer() {
        let mut b = GraphBuilder::new(2, true);
        b.add(0, 1, 0.5);
        let g = b.build().unwrap();
        assert_eq!(fast(&g, "torus:2", &[0, 1]), None);
    }
}
