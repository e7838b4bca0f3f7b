//! Hand-checked routing and metrics cases. Every expected number below was
//! worked out on paper; the comments show the paths.

use hopmap_core::metrics::evaluate;
use hopmap_core::{CommGraph, GraphBuilder, Mapping, Routing, Topology};

fn graph(n: usize, directed: bool, edges: &[(usize, usize, f64)]) -> CommGraph {
    let mut b = GraphBuilder::new(n, directed);
    for &(u, v, w) in edges {
        b.add(u, v, w);
    }
    b.build().unwrap()
}

fn identity(n: usize, t: &Topology) -> Mapping {
    Mapping::from_slots(&(0..n).collect::<Vec<_>>(), t)
}

/// Load on the channel from node `a` to node `b`.
fn load(t: &Topology, ev: &hopmap_core::Evaluation, a: usize, b: usize) -> f64 {
    t.channels()
        .into_iter()
        .find(|&(_, x, y)| x == a && y == b)
        .map(|(c, _, _)| ev.links.load[c])
        .unwrap_or_else(|| panic!("no channel {a}->{b}"))
}
fn flows(t: &Topology, ev: &hopmap_core::Evaluation, a: usize, b: usize) -> u32 {
    t.channels()
        .into_iter()
        .find(|&(_, x, y)| x == a && y == b)
        .map(|(c, _, _)| ev.links.flows[c])
        .unwrap()
}

#[test]
fn mesh_2x2() {
    // Nodes: 0=(0,0) 1=(1,0) 2=(0,1) 3=(1,1).
    // {0,1} volume 10 → 5 each way, 1 hop. {0,3} volume 4 → 2 each way, 2 hops.
    let t = Topology::parse("mesh:2x2").unwrap();
    let g = graph(4, false, &[(0, 1, 10.0), (0, 3, 4.0)]);
    let m = identity(4, &t);
    let ev = evaluate(&g, &t, &m, &Routing::Dor);
    let s = &ev.metrics;
    assert_eq!(s.hop_bytes, 18.0);
    assert_eq!(s.total_bytes, 14.0);
    assert!((s.avg_hops_per_byte - 18.0 / 14.0).abs() < 1e-12);
    assert_eq!(s.max_dilation, 2);
    assert_eq!(s.edges, 2);
    // dor, X then Y: 0→3 goes 0→1→3; 3→0 goes 3→2→0.
    assert_eq!(load(&t, &ev, 0, 1), 7.0);
    assert_eq!(load(&t, &ev, 1, 0), 5.0);
    assert_eq!(load(&t, &ev, 1, 3), 2.0);
    assert_eq!(load(&t, &ev, 3, 2), 2.0);
    assert_eq!(load(&t, &ev, 2, 0), 2.0);
    assert_eq!(load(&t, &ev, 0, 2), 0.0);
    assert_eq!(s.used_links, 5);
    assert_eq!(s.max_link_load, 7.0);
    assert!((s.mean_link_load - 18.0 / 5.0).abs() < 1e-12);
    assert_eq!(flows(&t, &ev, 0, 1), 2);
    assert_eq!(s.max_link_flows, 2);
    assert!((s.mean_link_flows - 6.0 / 5.0).abs() < 1e-12);
    // adaptive: 0→3 splits 1+1 over 0→1→3 and 0→2→3.
    let ev = evaluate(&g, &t, &m, &Routing::Adaptive);
    assert_eq!(load(&t, &ev, 0, 1), 6.0);
    assert_eq!(load(&t, &ev, 0, 2), 1.0);
    assert_eq!(load(&t, &ev, 1, 3), 1.0);
    assert_eq!(load(&t, &ev, 2, 3), 1.0);
    assert_eq!(load(&t, &ev, 1, 0), 6.0);
    assert_eq!(load(&t, &ev, 3, 1), 1.0);
    assert_eq!(load(&t, &ev, 3, 2), 1.0);
    assert_eq!(load(&t, &ev, 2, 0), 1.0);
    assert_eq!(ev.metrics.used_links, 8);
    assert_eq!(ev.metrics.hop_bytes, 18.0);
}

#[test]
fn ring_of_4_tie_rule() {
    // 0→2 is exactly half way round: dor takes +, adaptive splits both ways.
    let t = Topology::parse("torus:4").unwrap();
    let g = graph(4, true, &[(0, 2, 8.0)]);
    let m = identity(4, &t);
    let ev = evaluate(&g, &t, &m, &Routing::Dor);
    assert_eq!(ev.metrics.hop_bytes, 16.0);
    assert_eq!(load(&t, &ev, 0, 1), 8.0);
    assert_eq!(load(&t, &ev, 1, 2), 8.0);
    assert_eq!(load(&t, &ev, 0, 3), 0.0);
    let ev = evaluate(&g, &t, &m, &Routing::Adaptive);
    assert_eq!(load(&t, &ev, 0, 1), 4.0);
    assert_eq!(load(&t, &ev, 1, 2), 4.0);
    assert_eq!(load(&t, &ev, 0, 3), 4.0);
    assert_eq!(load(&t, &ev, 3, 2), 4.0);
    // 3→0 wraps: one hop on the wrap channel.
    let g = graph(4, true, &[(3, 0, 1.0)]);
    let ev = evaluate(&g, &t, &m, &Routing::Dor);
    assert_eq!(ev.metrics.hop_bytes, 1.0);
    assert_eq!(load(&t, &ev, 3, 0), 1.0);
}

#[test]
fn torus_3x3_with_two_cores() {
    // Nodes (x,y): 0=(0,0) 4=(1,1) 8=(2,2). Processes 0,1 on node 0; 2,3 on node 4; 4 on node 8.
    let t = Topology::parse("torus:3x3:cores=2").unwrap();
    let m = Mapping::from_nodes(vec![0, 0, 4, 4, 8], &t).unwrap();
    m.validate(5, &t).unwrap();
    // {0,1} intra-node; {0,2}: (0,0)-(1,1) = 2 hops; {1,4}: (0,0)-(2,2) = 1+1 hops (wrap).
    let g = graph(5, false, &[(0, 1, 6.0), (0, 2, 10.0), (1, 4, 2.0)]);
    let ev = evaluate(&g, &t, &m, &Routing::Dor);
    let s = &ev.metrics;
    assert_eq!(s.intra_node_bytes, 6.0);
    assert_eq!(s.total_bytes, 18.0);
    assert_eq!(s.hop_bytes, 24.0);
    assert_eq!(s.max_dilation, 2);
    assert_eq!(s.hop_histogram_bytes[0], 6.0);
    assert_eq!(s.hop_histogram_bytes[2], 12.0);
    let sum: f64 = ev.links.load.iter().sum();
    assert_eq!(sum, 24.0);
}

#[test]
fn dor_and_adaptive_on_3x3_torus() {
    let t = Topology::parse("torus:3x3").unwrap();
    let m = identity(9, &t);
    // Message A: node 0 (0,0) → node 4 (1,1), 12 bytes.
    // Message B: node 0 (0,0) → node 8 (2,2), 6 bytes: −x (wrap) then −y (wrap).
    let g = graph(9, true, &[(0, 4, 12.0), (0, 8, 6.0)]);
    let ev = evaluate(&g, &t, &m, &Routing::Dor);
    // A: 0→1 (+x), 1→4 (+y). B: 0→2 (−x wrap), 2→8 (−y wrap).
    assert_eq!(load(&t, &ev, 0, 1), 12.0);
    assert_eq!(load(&t, &ev, 1, 4), 12.0);
    assert_eq!(load(&t, &ev, 0, 2), 6.0);
    assert_eq!(load(&t, &ev, 2, 8), 6.0);
    assert_eq!(ev.metrics.used_links, 4);
    assert_eq!(ev.metrics.hop_bytes, 36.0);
    let ev = evaluate(&g, &t, &m, &Routing::Adaptive);
    // A splits 6/6 over 0→1→4 and 0→3→4. B splits 3/3 over 0→2→8 and 0→6→8.
    assert_eq!(load(&t, &ev, 0, 1), 6.0);
    assert_eq!(load(&t, &ev, 0, 3), 6.0);
    assert_eq!(load(&t, &ev, 1, 4), 6.0);
    assert_eq!(load(&t, &ev, 3, 4), 6.0);
    assert_eq!(load(&t, &ev, 0, 2), 3.0);
    assert_eq!(load(&t, &ev, 0, 6), 3.0);
    assert_eq!(load(&t, &ev, 2, 8), 3.0);
    assert_eq!(load(&t, &ev, 6, 8), 3.0);
    assert_eq!(ev.metrics.used_links, 8);
    assert_eq!(ev.metrics.max_link_flows, 1);
    assert_eq!(ev.metrics.hop_bytes, 36.0);
}

#[test]
fn adaptive_splits_at_every_hop() {
    // 3x3 mesh, (0,0) → (2,2), 6 bytes. Paths: C(4,2) = 6 minimal paths, but the
    // equal split at each hop is not uniform over paths: at (0,0) 3/3; at (1,0)
    // 1.5/1.5; at (2,0) only +y. Channel (1,0)→(2,0) carries 1.5, (2,0)→(2,1) 1.5,
    // (2,1)→(2,2) 1.5; (1,1) receives 1.5+1.5 = 3 and splits 1.5/1.5.
    let t = Topology::parse("mesh:3x3").unwrap();
    let g = graph(9, true, &[(0, 8, 6.0)]);
    let ev = evaluate(&g, &t, &identity(9, &t), &Routing::Adaptive);
    assert_eq!(load(&t, &ev, 0, 1), 3.0);
    assert_eq!(load(&t, &ev, 1, 2), 1.5);
    assert_eq!(load(&t, &ev, 1, 4), 1.5);
    assert_eq!(load(&t, &ev, 2, 5), 1.5);
    assert_eq!(load(&t, &ev, 4, 5), 1.5);
    assert_eq!(load(&t, &ev, 4, 7), 1.5);
    assert_eq!(load(&t, &ev, 5, 8), 3.0);
    assert_eq!(load(&t, &ev, 7, 8), 3.0);
    assert_eq!(ev.metrics.hop_bytes, 24.0);
}

#[test]
fn explicit_dor_order() {
    let t = Topology::parse("torus:3x3").unwrap();
    let g = graph(9, true, &[(0, 4, 1.0)]);
    let r = Routing::parse("dor:YX").unwrap();
    r.check(&t).unwrap();
    let ev = evaluate(&g, &t, &identity(9, &t), &r);
    assert_eq!(load(&t, &ev, 0, 3), 1.0);
    assert_eq!(load(&t, &ev, 3, 4), 1.0);
    assert!(Routing::parse("dor:XZ").unwrap().check(&t).is_err());
    assert!(Routing::parse("dor:XX").is_err());
}
