//! Property tests for the routing/metrics identities.

use hopmap_core::generate::{GenOptions, generate};
use hopmap_core::metrics::{evaluate, hop_bytes};
use hopmap_core::rng::Rng;
use hopmap_core::topology::Grid;
use hopmap_core::{CommGraph, GraphBuilder, Mapping, Routing, Topology};
use proptest::prelude::*;

fn random_case(seed: u64, ndims: usize, directed: bool) -> (CommGraph, Topology, Mapping) {
    let mut r = Rng::new(seed);
    let dims: Vec<u32> = (0..ndims).map(|_| 1 + r.below(5) as u32).collect();
    let wrap: Vec<bool> = (0..ndims).map(|_| r.below(2) == 1).collect();
    let cores = 1 + r.below(3) as u32;
    let grid = Grid::new(&dims, &wrap, cores).unwrap();
    let topo = Topology::Grid(grid);
    let slots = topo.num_slots();
    let n = 1 + r.below(slots);
    let mut b = GraphBuilder::new(n, directed);
    for _ in 0..r.below(4 * n + 1) {
        let u = r.below(n);
        let v = r.below(n);
        b.add(u, v, (1 + r.below(1000)) as f64);
    }
    let g = b.build().unwrap();
    let mut s: Vec<usize> = (0..slots).collect();
    r.shuffle(&mut s);
    s.truncate(n);
    let m = Mapping::from_slots(&s, &topo);
    m.validate(n, &topo).unwrap();
    (g, topo, m)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Under minimal routing every byte crosses exactly `hops` channels, so the
    /// sum of all channel loads equals hop-bytes, for both routings.
    #[test]
    fn sum_of_loads_equals_hop_bytes(seed in any::<u64>(), ndims in 1usize..=4, directed in any::<bool>()) {
        let (g, t, m) = random_case(seed, ndims, directed);
        let hb = hop_bytes(&g, &t, &m);
        for routing in [Routing::Dor, Routing::Adaptive] {
            let ev = evaluate(&g, &t, &m, &routing);
            let sum: f64 = ev.links.load.iter().sum();
            prop_assert!((sum - ev.metrics.hop_bytes).abs() <= 1e-9 * (1.0 + sum), "{} vs {}", sum, ev.metrics.hop_bytes);
            prop_assert!((hb - ev.metrics.hop_bytes).abs() <= 1e-9 * (1.0 + hb));
            // Loads only on channels that exist.
            for (c, &l) in ev.links.load.iter().enumerate() {
                if l > 0.0 { prop_assert!(t.channel_ends(c).is_some()); }
            }
            // Histogram accounts for every byte.
            let hist: f64 = ev.metrics.hop_histogram_bytes.iter().sum();
            prop_assert!((hist - ev.metrics.total_bytes).abs() <= 1e-9 * (1.0 + hist));
        }
    }

    /// Both routings cross the same number of channels per message (minimal),
    /// and dor touches exactly `hops` channels per message, so Σ flows under dor
    /// = Σ over messages of hops.
    #[test]
    fn dor_flows_count_hops(seed in any::<u64>(), ndims in 1usize..=3) {
        let (g, t, m) = random_case(seed, ndims, true);
        let ev = evaluate(&g, &t, &m, &Routing::Dor);
        let total_flows: u64 = ev.links.flows.iter().map(|&f| f as u64).sum();
        let hops: u64 = g.messages().map(|(u, v, _)| t.distance(m.node[u] as usize, m.node[v] as usize) as u64).sum();
        prop_assert_eq!(total_flows, hops);
    }

    /// The identity mapping of a `stencil:AxB` on `mesh:AxB` sends every
    /// message one hop, so hop-bytes equals the graph's bytes.
    #[test]
    fn stencil_identity_is_one_hop(a in 1u32..12, b in 1u32..12, bytes in 1u32..5000) {
        let t = Topology::parse(&format!("mesh:{a}x{b}")).unwrap();
        let opts = GenOptions { bytes: bytes as f64, ..GenOptions::default() };
        let g = generate(&format!("stencil:{a}x{b}"), &opts).unwrap();
        let n = g.n();
        prop_assert_eq!(n, (a * b) as usize);
        let m = Mapping::from_slots(&(0..n).collect::<Vec<_>>(), &t);
        for routing in [Routing::Dor, Routing::Adaptive] {
            let ev = evaluate(&g, &t, &m, &routing);
            prop_assert_eq!(ev.metrics.hop_bytes, g.total_bytes());
            prop_assert!(ev.metrics.max_dilation <= 1);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(120))]

    /// The hop-bytes lower bound holds for every mapping: random graphs and
    /// random mappings on random meshes/tori with 1–3 cores, and on small
    /// fat trees with 1–2 cores per host.
    #[test]
    fn lower_bound_is_below_every_mapping(seed in any::<u64>(), ndims in 1usize..=3, directed in any::<bool>()) {
        let (g, t, m) = random_case(seed, ndims, directed);
        let lb = hopmap_core::hop_bound::lower_bound(&g, &t);
        prop_assert!(lb <= hop_bytes(&g, &t, &m) + 1e-9, "{} > {}", lb, hop_bytes(&g, &t, &m));
        let mut r = Rng::new(seed ^ 0x5eed);
        let cores = 1 + r.below(2);
        let f = Topology::parse(&format!("fattree:4:3:cores={cores}")).unwrap();
        let n = g.n().min(f.num_slots());
        let mut b = GraphBuilder::new(n, directed);
        for (u, v, c) in g.messages() {
            if u < n && v < n {
                b.add(u, v, c);
            }
        }
        let g2 = b.build().unwrap();
        let mut s: Vec<usize> = (0..f.num_slots()).collect();
        r.shuffle(&mut s);
        s.truncate(n);
        let m2 = Mapping::from_slots(&s, &f);
        let lb2 = hopmap_core::hop_bound::lower_bound(&g2, &f);
        prop_assert!(lb2 <= hop_bytes(&g2, &f, &m2) + 1e-9);
    }
}

/// The least hop-bytes of any mapping of `g` onto `t`, by trying every
/// placement of the processes on distinct slots (tiny cases only).
pub(crate) fn brute_force_optimum(g: &CommGraph, t: &Topology) -> f64 {
    fn rec(
        g: &CommGraph,
        t: &Topology,
        p: usize,
        used: &mut [bool],
        slot: &mut Vec<usize>,
        best: &mut f64,
    ) {
        if p == g.n() {
            let m = Mapping::from_slots(slot, t);
            *best = best.min(hop_bytes(g, t, &m));
            return;
        }
        for s in 0..used.len() {
            if !used[s] {
                used[s] = true;
                slot.push(s);
                rec(g, t, p + 1, used, slot, best);
                slot.pop();
                used[s] = false;
            }
        }
    }
    let mut best = f64::INFINITY;
    rec(
        g,
        t,
        0,
        &mut vec![false; t.num_slots()],
        &mut Vec::new(),
        &mut best,
    );
    best
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(60))]

    /// The position-aware bound lies between the plain bound and the
    /// hop-bytes of every mapping produced: random mappings and
    /// recursive+refine's, on random meshes/tori with 1–3 cores.
    #[test]
    fn position_bound_is_below_every_mapping(seed in any::<u64>(), ndims in 1usize..=3, directed in any::<bool>()) {
        use hopmap_core::hop_bound::{lower_bound, position::position_bound};
        let (g, t, m) = random_case(seed, ndims, directed);
        let lb = lower_bound(&g, &t);
        let pb = position_bound(&g, &t);
        prop_assert!(lb <= pb * (1.0 + 1e-6) + 1e-9, "{} > {}", lb, pb);
        prop_assert!(pb <= hop_bytes(&g, &t, &m) + 1e-9, "{} > {}", pb, hop_bytes(&g, &t, &m));
        let g = std::sync::Arc::new(g);
        let t = std::sync::Arc::new(t);
        let input = hopmap_core::mappers::MapperInput::new(g.clone(), t.clone(), seed);
        let info = hopmap_core::mappers::find("recursive+refine").unwrap();
        let rr = hopmap_core::mappers::run(&info, &input).unwrap();
        prop_assert!(pb <= hop_bytes(&g, &t, &rr) + 1e-9);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// On tiny cases the position-aware bound is below the optimum found by
    /// trying every placement.
    #[test]
    fn position_bound_is_below_the_optimum(seed in any::<u64>(), directed in any::<bool>()) {
        let mut r = Rng::new(seed);
        let dims: Vec<u32> = (0..2).map(|_| 1 + r.below(3) as u32).collect();
        let wrap: Vec<bool> = (0..2).map(|_| r.below(2) == 1).collect();
        let cores = 1 + r.below(2) as u32;
        let t = Topology::Grid(Grid::new(&dims, &wrap, cores).unwrap());
        prop_assume!(t.num_slots() <= 8);
        let n = 1 + r.below(t.num_slots().min(6));
        let mut b = GraphBuilder::new(n, directed);
        for _ in 0..r.below(3 * n + 1) {
            b.add(r.below(n), r.below(n), (1 + r.below(100)) as f64);
        }
        let g = b.build().unwrap();
        let pb = hopmap_core::hop_bound::position::position_bound(&g, &t);
        let opt = brute_force_optimum(&g, &t);
        prop_assert!(pb <= opt + 1e-9, "{} > {}", pb, opt);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(60))]

    /// On tiny networks of 2–4 cores per node the node-group bound is at
    /// least the plain bound and below the optimum found by trying every
    /// placement, and on the random cases below every mapping produced.
    #[test]
    fn node_group_bound_is_below_the_optimum(seed in any::<u64>(), directed in any::<bool>()) {
        use hopmap_core::hop_bound::{lower_bound, node_groups::node_group_bound};
        let mut r = Rng::new(seed);
        let cores = 2 + r.below(3) as u32;
        let nodes = 2 + r.below(2) as u32;
        let wrap = r.below(2) == 1;
        let t = Topology::Grid(Grid::new(&[nodes], &[wrap], cores).unwrap());
        prop_assume!(t.num_slots() <= 8);
        let n = 2 + r.below(t.num_slots() - 1);
        let mut b = GraphBuilder::new(n, directed);
        for _ in 0..r.below(3 * n + 1) {
            b.add(r.below(n), r.below(n), (1 + r.below(100)) as f64);
        }
        let g = b.build().unwrap();
        let ng = node_group_bound(&g, &t).unwrap();
        prop_assert!(lower_bound(&g, &t) <= ng + 1e-9);
        let opt = brute_force_optimum(&g, &t);
        prop_assert!(ng <= opt + 1e-9, "{} > {}", ng, opt);
    }

    #[test]
    fn node_group_bound_is_below_every_mapping(seed in any::<u64>(), ndims in 1usize..=3, directed in any::<bool>()) {
        let (g, t, m) = random_case(seed, ndims, directed);
        if let Some(ng) = hopmap_core::hop_bound::node_groups::node_group_bound(&g, &t) {
            prop_assert!(ng <= hop_bytes(&g, &t, &m) + 1e-9, "{} > {}", ng, hop_bytes(&g, &t, &m));
        }
    }
}
