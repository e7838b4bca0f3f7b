//! The tabu phase of `recursive+refine` (Taillard's robust tabu search over
//! the slots' occupants): a hand-checked optimum, optima found by trying
//! every placement, and its invariants on random cases.

use crate::metrics_prop::brute_force_optimum;
use hopmap_core::mappers::recursive::refine::Dist;
use hopmap_core::mappers::recursive::refine::tabu::Tabu;
use hopmap_core::metrics::{evaluate, hop_bytes};
use hopmap_core::partition::pair_volumes;
use hopmap_core::rng::Rng;
use hopmap_core::topology::Grid;
use hopmap_core::{CommGraph, GraphBuilder, Mapping, Routing, Topology};
use proptest::prelude::*;
use std::sync::Arc;

/// Run the search from `start` (a slot per process) to its end: its
/// outcome (None = keep the start) and the best hop-bytes it found.
fn search(
    g: &CommGraph,
    t: &Topology,
    start: &[u32],
    iters: u64,
    seed: u64,
) -> (Option<Vec<u32>>, f64) {
    let (g, t) = (Arc::new(g.clone()), Arc::new(t.clone()));
    let vol = pair_volumes(&g);
    let dist = Dist::new(t.clone());
    let mut s = Tabu::new(g, t, &vol, &dist, start, iters, seed);
    while !s.is_done() {
        s.step();
    }
    let best = s.best_hop_bytes();
    (s.outcome(), best)
}

fn mapping(slots: &[u32], t: &Topology) -> Mapping {
    let s: Vec<usize> = slots.iter().map(|&x| x as usize).collect();
    Mapping::from_slots(&s, t)
}

#[test]
fn a_scrambled_ring_of_six_on_a_2x3_mesh_gets_every_pair_one_hop() {
    // Ring 0-1-2-3-4-5-0, one byte per pair. On the 2 × 3 mesh (nodes
    // numbered x fastest: 0 = (0,0), 1 = (1,0), 2 = (0,1), 3 = (1,1),
    // 4 = (0,2), 5 = (1,2)) process k on node k has pairs of 1, 2, 1, 2, 1
    // and 3 hops: 10. The mesh has a Hamiltonian cycle (0 1 3 5 4 2), so
    // the optimum is 6: every pair one hop, and no pair can be less.
    let mut b = GraphBuilder::new(6, true);
    for k in 0..6 {
        b.add(k, (k + 1) % 6, 1.0);
    }
    let g = b.build().unwrap();
    let t = Topology::parse("mesh:2x3").unwrap();
    let start: Vec<u32> = (0..6).collect();
    assert_eq!(hop_bytes(&g, &t, &mapping(&start, &t)), 10.0);
    assert_eq!(brute_force_optimum(&g, &t), 6.0);
    let (out, best) = search(&g, &t, &start, 200, 1);
    let out = out.expect("the search lowers hop-bytes");
    assert_eq!(best, 6.0);
    assert_eq!(hop_bytes(&g, &t, &mapping(&out, &t)), 6.0);
}

#[test]
fn tiny_cases_reach_the_optimum_found_by_trying_every_placement() {
    // Processes on meshes/tori of at most 8 slots, some with free slots
    // (moves into them) and 2 cores per node.
    for seed in 0..24u64 {
        let mut r = Rng::new(seed);
        let dims: Vec<u32> = (0..2).map(|_| 1 + r.below(3) as u32).collect();
        let wrap: Vec<bool> = (0..2).map(|_| r.below(2) == 1).collect();
        let cores = 1 + r.below(2) as u32;
        let t = Topology::Grid(Grid::new(&dims, &wrap, cores).unwrap());
        if t.num_slots() > 8 || t.num_slots() < 3 {
            continue;
        }
        let n = 2 + r.below(t.num_slots() - 1);
        let mut b = GraphBuilder::new(n, true);
        for _ in 0..2 * n {
            let (u, v) = (r.below(n), r.below(n));
            b.add(u, v, (1 + r.below(100)) as f64);
        }
        let g = b.build().unwrap();
        let mut slots: Vec<u32> = (0..t.num_slots() as u32).collect();
        r.shuffle(&mut slots);
        slots.truncate(n);
        let start = hop_bytes(&g, &t, &mapping(&slots, &t));
        let opt = brute_force_optimum(&g, &t);
        let (out, best) = search(&g, &t, &slots, 500, seed);
        let got = out.map_or(start, |s| hop_bytes(&g, &t, &mapping(&s, &t)));
        assert!(
            (got - opt).abs() <= 1e-9 * opt.max(1.0),
            "seed {seed}: {got} vs optimum {opt}"
        );
        assert!(
            best >= opt - 1e-9 * opt.max(1.0),
            "seed {seed}: {best} below the optimum {opt}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// From a random placement on a random mesh/torus (1–3 cores, free
    /// slots): the outcome is a valid placement, never has more hop-bytes
    /// than the start, and has a lower max link load when its hop-bytes
    /// are not lower.
    #[test]
    fn the_outcome_never_raises_hop_bytes_and_is_a_placement(seed in any::<u64>()) {
        let mut r = Rng::new(seed);
        let nd = 1 + r.below(3);
        let dims: Vec<u32> = (0..nd).map(|_| 1 + r.below(4) as u32).collect();
        let wrap: Vec<bool> = (0..nd).map(|_| r.below(2) == 1).collect();
        let cores = 1 + r.below(3) as u32;
        let t = Topology::Grid(Grid::new(&dims, &wrap, cores).unwrap());
        let n = 1 + r.below(t.num_slots());
        let mut b = GraphBuilder::new(n, r.below(2) == 1);
        for _ in 0..r.below(4 * n + 1) {
            b.add(r.below(n), r.below(n), (1 + r.below(1000)) as f64 + 0.5);
        }
        let g = b.build().unwrap();
        let mut slots: Vec<u32> = (0..t.num_slots() as u32).collect();
        r.shuffle(&mut slots);
        slots.truncate(n);
        let m0 = mapping(&slots, &t);
        let e0 = evaluate(&g, &t, &m0, &Routing::Dor).metrics;
        let (out, best) = search(&g, &t, &slots, 30 * n as u64, seed);
        prop_assert!(best <= e0.hop_bytes * (1.0 + 1e-9) + 1e-9);
        if let Some(s) = out {
            let m = mapping(&s, &t);
            m.validate(n, &t).unwrap();
            let e = evaluate(&g, &t, &m, &Routing::Dor).metrics;
            prop_assert!(e.hop_bytes <= e0.hop_bytes * (1.0 + 1e-9), "{} > {}", e.hop_bytes, e0.hop_bytes);
            prop_assert!(
                e.hop_bytes < e0.hop_bytes * (1.0 - 1e-12) || e.max_link_load < e0.max_link_load,
                "kept at {} hop-bytes with max load {} (start {} / {})",
                e.hop_bytes, e.max_link_load, e0.hop_bytes, e0.max_link_load
            );
        }
    }
}

/// A complete graph of 24 processes, 1 byte per pair, on a 4 × 4 mesh of
/// 2 cores (32 slots): the search comes back to its best hop-bytes again
/// and again, and each return routed all 552 messages (more work than the
/// iteration's 24 × 32 pair updates: the tie-break took two thirds of the
/// time on dense graphs). Its routing is now at most a quarter of the
/// search's pair updates, plus the start's routing and one more.
#[test]
fn the_load_tie_break_routes_at_most_a_quarter_of_the_search_work() {
    let n = 24;
    let mut b = GraphBuilder::new(n, false);
    for u in 0..n {
        for v in u + 1..n {
            b.add(u, v, 1.0);
        }
    }
    let g = Arc::new(b.build().unwrap());
    let t = Arc::new(Topology::parse("mesh:4x4:cores=2").unwrap());
    // One routing: the channels cleared, plus a channel per hop of every
    // message; at most 552 messages of at most 6 hops.
    let one = (t.channel_slots() + 552 * 6) as u64;
    let vol = pair_volumes(&g);
    let dist = Dist::new(t.clone());
    let start: Vec<u32> = (0..n as u32).collect();
    let mut s = Tabu::new(g, t, &vol, &dist, &start, 2000, 3);
    let (r0, _) = s.work();
    while !s.is_done() {
        s.step();
    }
    let (routed, pairs) = s.work();
    assert!(pairs > 0);
    assert!(routed > r0, "the tie-break never ran");
    assert!(
        routed <= r0 + pairs / 4 + one,
        "routed {routed} after {pairs} pair updates (start {r0}, one routing ≤ {one})"
    );
}
