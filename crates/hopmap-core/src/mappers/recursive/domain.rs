//! Topology domains for dual recursive bipartitioning: a set of nodes that a
//! subproblem's processes may use, its bisection into two halves, and an
//! approximate distance between domains (Pellegrini's "domain distance" of
//! Scotch's target architectures).
//!
//! * On a mesh/torus a domain is a box of coordinates. It is cut across the
//!   dimension of largest diameter inside the box (a full wrapped ring of k
//!   nodes has diameter ⌊k/2⌋, a path of k nodes k − 1; ties go to the
//!   longer side, then to the lower dimension, or in another order of the
//!   dimensions, [`DimTies`]), into ⌊k/2⌋ and ⌈k/2⌉
//!   layers. Capacities are layers × cores, so nodes with several cores are
//!   bins of `cores` slots. The distance between two boxes is the hop
//!   distance between their (fractional) centres, the shorter way round each
//!   wrapped ring. O(D) per call.
//! * On any other topology (switch fabrics) a domain is a node list. It is
//!   cut by [`crate::partition::bisect()`] on the graph the nodes induce
//!   through [`Topology::neighbors`], with a bias that pulls each node to
//!   the nearer of two far-apart poles (found by two farthest-node sweeps
//!   with [`Topology::distance`]), so halves stay compact also when the
//!   nodes are not directly linked (hosts behind switches). Its centre is
//!   the node that minimizes the larger distance to the two poles. O(|S|)
//!   distance calls plus one bisection per cut.

use crate::partition::{BisectParams, WGraph, bisect};
use crate::topology::{Grid, MAX_DIMS, Topology};

/// A set of nodes.
#[derive(Clone, Debug, PartialEq)]
pub enum Domain {
    /// Mesh/torus box `lo[d] .. lo[d] + len[d]` (never across a wrap).
    Box {
        lo: [u32; MAX_DIMS],
        len: [u32; MAX_DIMS],
    },
    /// Any node list (sorted), with its centre node.
    Set { nodes: Vec<u32>, centre: u32 },
}

/// Which dimension a box is cut across when several have the largest
/// diameter and length (e.g. the three of a 2 × 2 × 2 box): the choices
/// give the same tree up to a permutation of those dimensions, but not the
/// same channel loads once the boxes' traffic leaves them. `DimTies(k)`
/// prefers the dimensions in the order of the k-th of these permutations
/// of 0..D: k = 0 the identity (x before y before z), k = 1 its reverse,
/// k = 2 the rotation starting at D − 1 (z, x, y), k = 3 its reverse, and
/// so on through the rotations (k mod 2D). O(1) per dimension.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DimTies(pub usize);

impl DimTies {
    /// The lowest tied dimension first.
    pub const LOW: DimTies = DimTies(0);
    /// The highest tied dimension first.
    pub const HIGH: DimTies = DimTies(1);

    /// Rank of dimension `d` of `nd` in this order (0 = preferred).
    pub fn rank(self, d: usize, nd: usize) -> usize {
        let nd = nd.max(1);
        let start = (nd - (self.0 / 2) % nd) % nd;
        let pos = (d + nd - start) % nd;
        if self.0 % 2 == 1 { nd - 1 - pos } else { pos }
    }
}

/// Where a domain is, for domain distances.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Centre {
    Grid([f64; MAX_DIMS]),
    Node(u32),
}

impl Domain {
    /// The whole topology.
    pub fn whole(topo: &Topology) -> Domain {
        match topo.as_grid() {
            Some(g) => {
                let mut len = [1u32; MAX_DIMS];
                len[..g.ndims()].copy_from_slice(g.dims());
                Domain::Box {
                    lo: [0; MAX_DIMS],
                    len,
                }
            }
            None => Domain::whole_set(topo),
        }
    }

    /// Every node as a [`Domain::Set`] (the generic representation, used
    /// by topologies that are not grids).
    pub fn whole_set(topo: &Topology) -> Domain {
        let nodes: Vec<u32> = (0..topo.num_nodes() as u32).collect();
        let centre = set_centre(topo, &nodes);
        Domain::Set { nodes, centre }
    }

    /// A [`Domain::Set`] of the given nodes (sorted here), with its centre.
    pub fn from_nodes(topo: &Topology, mut nodes: Vec<u32>) -> Domain {
        nodes.sort_unstable();
        let centre = set_centre(topo, &nodes);
        Domain::Set { nodes, centre }
    }

    pub fn num_nodes(&self) -> usize {
        match self {
            Domain::Box { len, .. } => len.iter().map(|&l| l as usize).product(),
            Domain::Set { nodes, .. } => nodes.len(),
        }
    }

    /// The node ids, ascending for boxes in X-fastest order.
    pub fn nodes(&self, topo: &Topology) -> Vec<u32> {
        match (self, topo.as_grid()) {
            (Domain::Box { lo, len }, Some(g)) => box_nodes(g, lo, len),
            (Domain::Set { nodes, .. }, _) => nodes.clone(),
            (Domain::Box { .. }, None) => Vec::new(),
        }
    }

    /// The first node (the only one of a one-node domain).
    pub fn first_node(&self, topo: &Topology) -> usize {
        match (self, topo.as_grid()) {
            (Domain::Box { lo, .. }, Some(g)) => g.node(&lo[..g.ndims()]),
            (Domain::Set { nodes, .. }, _) => nodes.first().copied().unwrap_or(0) as usize,
            (Domain::Box { .. }, None) => 0,
        }
    }

    pub fn centre(&self, topo: &Topology) -> Centre {
        match self {
            Domain::Box { lo, len } => {
                let mut c = [0.0; MAX_DIMS];
                let nd = topo.as_grid().map_or(0, |g| g.ndims());
                for d in 0..nd {
                    c[d] = lo[d] as f64 + (len[d] as f64 - 1.0) * 0.5;
                }
                Centre::Grid(c)
            }
            Domain::Set { centre, .. } => Centre::Node(*centre),
        }
    }

    /// Cut into two halves (None for a single node). `seed` drives the
    /// graph bisection of node sets.
    pub fn split(&self, topo: &Topology, seed: u64) -> Option<(Domain, Domain)> {
        self.split_with(topo, seed, DimTies::LOW)
    }

    /// [`Domain::split`] with the given choice among tied box dimensions.
    pub fn split_with(
        &self,
        topo: &Topology,
        seed: u64,
        ties: DimTies,
    ) -> Option<(Domain, Domain)> {
        if self.num_nodes() < 2 {
            return None;
        }
        match (self, topo.as_grid()) {
            (Domain::Box { lo, len }, Some(g)) => {
                let d = split_dim(g, len, ties);
                let a = len[d] / 2;
                let mut len0 = *len;
                len0[d] = a;
                let mut len1 = *len;
                len1[d] = len[d] - a;
                let mut lo1 = *lo;
                lo1[d] += a;
                Some((
                    Domain::Box { lo: *lo, len: len0 },
                    Domain::Box { lo: lo1, len: len1 },
                ))
            }
            (Domain::Set { nodes, .. }, _) => {
                let (a, b) = split_set(topo, nodes, seed);
                let ca = set_centre(topo, &a);
                let cb = set_centre(topo, &b);
                Some((
                    Domain::Set {
                        nodes: a,
                        centre: ca,
                    },
                    Domain::Set {
                        nodes: b,
                        centre: cb,
                    },
                ))
            }
            (Domain::Box { .. }, None) => None,
        }
    }
}

/// Distance between two domain centres (see the module doc).
#[inline(always)]
pub fn centre_distance(topo: &Topology, a: &Centre, b: &Centre) -> f64 {
    match (a, b, topo.as_grid()) {
        (Centre::Grid(x), Centre::Grid(y), Some(g)) => {
            let mut s = 0.0;
            for d in 0..g.ndims() {
                let mut delta = (x[d] - y[d]).abs();
                if g.wraps(d) {
                    let k = g.dims()[d] as f64;
                    delta = delta.min(k - delta);
                }
                s += delta;
            }
            s
        }
        (Centre::Node(x), Centre::Node(y), _) => topo.distance(*x as usize, *y as usize) as f64,
        _ => 0.0,
    }
}

/// The dimension to cut a box across (largest in-box diameter, then
/// length, then `ties`). O(D).
fn split_dim(g: &Grid, len: &[u32; MAX_DIMS], ties: DimTies) -> usize {
    let nd = g.ndims();
    let mut best = (0u32, 0u32, usize::MAX, 0usize);
    for d in 0..nd {
        if len[d] < 2 {
            continue;
        }
        let k = g.dims()[d];
        let diam = if g.wraps(d) && len[d] == k {
            k / 2
        } else {
            len[d] - 1
        };
        let rank = ties.rank(d, nd);
        if (diam, len[d]) > (best.0, best.1)
            || ((diam, len[d]) == (best.0, best.1) && rank < best.2)
        {
            best = (diam, len[d], rank, d);
        }
    }
    best.3
}

fn box_nodes(g: &Grid, lo: &[u32; MAX_DIMS], len: &[u32; MAX_DIMS]) -> Vec<u32> {
    let nd = g.ndims();
    let total: usize = len[..nd].iter().map(|&l| l as usize).product();
    let mut out = Vec::with_capacity(total);
    let mut c = [0u32; MAX_DIMS];
    for _ in 0..total {
        let mut abs = [0u32; MAX_DIMS];
        for d in 0..nd {
            abs[d] = lo[d] + c[d];
        }
        out.push(g.node(&abs[..nd]) as u32);
        for d in 0..nd {
            c[d] += 1;
            if c[d] < len[d] {
                break;
            }
            c[d] = 0;
        }
    }
    out
}

/// Two far-apart nodes of a set (two farthest-node sweeps).
fn poles(topo: &Topology, nodes: &[u32]) -> (u32, u32) {
    let far = |from: u32| {
        let mut best = (0u32, from);
        for &u in nodes {
            let d = topo.distance(from as usize, u as usize);
            if d > best.0 {
                best = (d, u);
            }
        }
        best.1
    };
    let a = far(nodes[0]);
    let b = far(a);
    (a, b)
}

fn set_centre(topo: &Topology, nodes: &[u32]) -> u32 {
    if nodes.len() < 3 {
        return nodes.first().copied().unwrap_or(0);
    }
    let (a, b) = poles(topo, nodes);
    let mut best = (u32::MAX, u32::MAX, nodes[0]);
    for &u in nodes {
        let da = topo.distance(u as usize, a as usize);
        let db = topo.distance(u as usize, b as usize);
        let key = (da.max(db), da.abs_diff(db), u);
        if key < best {
            best = key;
        }
    }
    best.2
}

fn split_set(topo: &Topology, nodes: &[u32], seed: u64) -> (Vec<u32>, Vec<u32>) {
    let n = nodes.len();
    let (a, b) = poles(topo, nodes);
    // Local index of each node (nodes is sorted).
    let local = |x: usize| nodes.binary_search(&(x as u32)).ok();
    let mut edges = Vec::new();
    let mut bias = Vec::with_capacity(n);
    for (i, &u) in nodes.iter().enumerate() {
        for v in topo.neighbors(u as usize) {
            if let Some(j) = local(v)
                && j > i
            {
                edges.push((i as u32, j as u32, 1.0));
            }
        }
        let da = topo.distance(u as usize, a as usize) as f64;
        let db = topo.distance(u as usize, b as usize) as f64;
        bias.push([0.25 * da, 0.25 * db]);
    }
    let g = WGraph::from_edges(vec![1.0; n], &edges);
    let half = (n / 2) as f64;
    let r = bisect(
        &g,
        [half, n as f64 - half],
        Some(&bias),
        &BisectParams::default(),
        seed,
    );
    let mut s0 = Vec::with_capacity(n / 2);
    let mut s1 = Vec::with_capacity(n - n / 2);
    for (i, &u) in nodes.iter().enumerate() {
        if r.side[i] == 0 {
            s0.push(u);
        } else {
            s1.push(u);
        }
    }
    if s0.is_empty() || s1.is_empty() {
        // Degenerate: split the list in two.
        let mut all = nodes.to_vec();
        let s1 = all.split_off(n / 2);
        return (all, s1);
    }
    (s0, s1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boxes_split_along_the_longest_diameter() {
        let t = Topology::parse("torus:8x8x16").unwrap();
        let (a, b) = Domain::whole(&t).split(&t, 0).unwrap();
        match (&a, &b) {
            (Domain::Box { lo: la, len: na }, Domain::Box { lo: lb, len: nb }) => {
                assert_eq!(&na[..3], &[8, 8, 8]);
                assert_eq!(&nb[..3], &[8, 8, 8]);
                assert_eq!(la[2], 0);
                assert_eq!(lb[2], 8);
            }
            _ => panic!(),
        }
        // The z half is now a path of 8 (diameter 7) against rings of 8 (4).
        let (c, _) = a.split(&t, 0).unwrap();
        assert_eq!(c.num_nodes(), 256);
        if let Domain::Box { len, .. } = c {
            assert_eq!(&len[..3], &[8, 8, 4]);
        }
        assert_eq!(a.nodes(&t).len(), 512);
        let m = Topology::parse("mesh:5x3").unwrap();
        let (x, y) = Domain::whole(&m).split(&m, 0).unwrap();
        assert_eq!((x.num_nodes(), y.num_nodes()), (6, 9));
    }

    #[test]
    fn tied_dimensions_are_cut_in_the_order_asked() {
        // Orders of 3 dimensions (rank of x, y, z): the identity, its
        // reverse, the rotation z, x, y, its reverse y, x, z, then the
        // rotation y, z, x and its reverse x, z, y; then again.
        let ranks = |k: usize| [0, 1, 2].map(|d| DimTies(k).rank(d, 3));
        assert_eq!(ranks(0), [0, 1, 2]);
        assert_eq!(ranks(1), [2, 1, 0]);
        assert_eq!(ranks(2), [1, 2, 0]);
        assert_eq!(ranks(3), [1, 0, 2]);
        assert_eq!(ranks(4), [2, 0, 1]);
        assert_eq!(ranks(5), [0, 2, 1]);
        assert_eq!(ranks(6), ranks(0));
        // On a 2 × 2 × 4 torus the whole machine is cut across z (a ring
        // of 4, diameter 2, against rings of 2) whatever the order; its
        // 2 × 2 × 2 halves tie (diameter 1, length 2 everywhere) and are
        // cut across the dimension of least rank.
        let t = Topology::parse("torus:2x2x4").unwrap();
        for k in 0..6 {
            let (a, b) = Domain::whole(&t).split_with(&t, 0, DimTies(k)).unwrap();
            for (h, z) in [(&a, 0), (&b, 2)] {
                let Domain::Box { lo, len } = h else { panic!() };
                assert_eq!((&lo[..3], &len[..3]), (&[0, 0, z][..], &[2, 2, 2][..]));
            }
            let (c, _) = a.split_with(&t, 0, DimTies(k)).unwrap();
            let Domain::Box { len, .. } = c else { panic!() };
            let cut = (0..3).find(|&d| len[d] == 1).unwrap();
            assert_eq!(cut, [0, 2, 2, 1, 1, 0][k], "order {k}: {:?}", &len[..3]);
        }
        // `split` is the identity order.
        assert_eq!(
            Domain::whole(&t).split(&t, 0),
            Domain::whole(&t).split_with(&t, 0, DimTies::LOW)
        );
    }

    #[test]
    fn centre_distance_goes_round_the_ring() {
        let t = Topology::parse("torus:8").unwrap();
        let a = Centre::Grid([0.0; MAX_DIMS]);
        let mut y = [0.0; MAX_DIMS];
        y[0] = 7.0;
        assert_eq!(centre_distance(&t, &a, &Centre::Grid(y)), 1.0);
    }
}
