//! Switch fabrics: hand cases (Moh et al.'s Fig. 2 example, a 3-switch line,
//! equal-cost paths in fat trees, the man-page fixtures of ibnetdiscover(8)
//! and topology.conf(5)) and properties on random fabrics (Σ loads =
//! hop-bytes under every routing; same seed, same fabric).

use hopmap_core::routing::fabric_route::{self, Mode};
use hopmap_core::topology::Topology;
use hopmap_core::{GraphBuilder, Mapping, Routing, evaluate};
use proptest::prelude::*;

fn fabric(spec: &str) -> hopmap_core::topology::Fabric {
    Topology::parse(spec).unwrap().as_fabric().unwrap().clone()
}

#[test]
fn fig2_example_sizes_root_and_levels() {
    let t = Topology::parse("fabric:moh-fig2").unwrap();
    let f = t.as_fabric().unwrap();
    assert_eq!(f.num_switches(), 9);
    assert_eq!(f.switch_links().len(), 12);
    assert_eq!(t.num_nodes(), 16); // the member processors
    let idle: u32 = (0..9).map(|s| f.idle_hosts(s)).sum();
    assert_eq!(idle, 10); // 26 processors in all
    assert_eq!(f.hosts_on(0).len(), 4); // |S0| = 4
    assert_eq!(f.updown().roots, vec![0]);
    assert_eq!(f.updown().level, vec![0, 1, 1, 1, 2, 2, 2, 2, 3]);
    // 16 nodes, 2 channels per host link, 2 per switch link.
    assert_eq!(t.channel_slots(), 2 * 16 + 2 * 12);
    assert_eq!(t.channel_ends(0), Some((0, 16))); // m0 → S0 (vertex 16 + 0)
    assert_eq!(t.channel_ends(32), Some((16, 17))); // S0 → S1
    assert_eq!(t.channel_ends(33), Some((17, 16)));
    assert_eq!(t.spec(), "fabric:moh-fig2");
    assert!(t.as_grid().is_none());
    let all = Topology::parse("fabric:moh-fig2:job=all").unwrap();
    assert_eq!(all.num_nodes(), 26);
}

#[test]
fn fig2_distances_and_a_forbidden_route() {
    let f = fabric("fabric:moh-fig2");
    let ud = f.updown();
    // S4 and S7: two links apart through S8, a valley (S4→S8 down, S8→S7
    // up) that up*/down* forbids, so three hops: S4→S1→S3→S7.
    assert_eq!(f.min_switch_dist(4, 7), 2);
    assert_eq!(ud.dist(4, 7), 3);
    let mut route = Vec::new();
    fabric_route::switch_route_det(&f, Mode::UpDown(ud), 4, 7, &mut |l, from| {
        route.push((l, from))
    });
    assert_eq!(route, vec![(3, 4), (9, 1), (6, 3)]); // S4–S1, S1–S3, S3–S7
    // Every pair whose up*/down* distance exceeds its shortest path.
    let mut longer = Vec::new();
    for a in 0..9 {
        for b in a + 1..9 {
            if ud.dist(a, b) as u32 > f.min_switch_dist(a, b) {
                longer.push((a, b, ud.dist(a, b), f.min_switch_dist(a, b)));
            }
        }
    }
    assert_eq!(
        longer,
        vec![
            (4, 5, 4, 3),
            (4, 6, 4, 2),
            (4, 7, 3, 2),
            (5, 7, 4, 3),
            (6, 7, 4, 2)
        ]
    );
    // Host distances: m0–m3 on S0, m9/m10 on S4, m11 on S6, m12–m14 on S7, m15 on S8.
    let t = Topology::Fabric(f.clone());
    assert_eq!(t.distance(0, 3), 0);
    assert_eq!(t.distance(9, 12), 3);
    assert_eq!(t.distance(9, 11), 4);
    assert_eq!(t.distance(0, 15), 3);
    assert_eq!(Routing::Minimal.distance(&t, 9, 12), 2);
    // Links no deterministic route between member switches uses: S2–S5 and
    // S5–S6 (S5 has no member; a path through it is never shortest).
    assert_eq!(
        fabric_route::unused_links(&f, Mode::UpDown(ud), false),
        vec![4, 10]
    );
    assert!(fabric_route::unused_links(&f, Mode::UpDown(ud), true).is_empty());
}

#[test]
fn three_switch_line() {
    let t = Topology::parse("slurm:tests/data/line3.conf").unwrap();
    let f = t.as_fabric().unwrap();
    assert_eq!(f.num_switches(), 3);
    assert_eq!(t.num_nodes(), 5);
    assert_eq!(f.updown().roots, vec![1]); // b, the centre
    assert_eq!(t.distance(0, 1), 0);
    assert_eq!(t.distance(0, 2), 1);
    assert_eq!(t.distance(0, 4), 2);
    assert_eq!(t.diameter(), 2);
    let mut ch = Vec::new();
    Routing::UpDown.route(&t, 0, 3, 1.0, &mut |c, _| ch.push(c));
    // n0→a (0), a→b over link 0 = (b, a) reversed (2·5 + 1), b→c (2·5 + 2), c→n3 (2·3 + 1)
    assert_eq!(ch, vec![0, 11, 12, 7]);
    // Two hosts on one switch: only their host links.
    let mut ch = Vec::new();
    Routing::UpDownSplit.route(&t, 3, 4, 1.0, &mut |c, _| ch.push(c));
    assert_eq!(ch, vec![6, 9]);
}

#[test]
fn equal_cost_paths_in_fat_trees() {
    // fattree:4:2 — 2 spines (top0, top1), 4 leaves (switches 2..6).
    let f = fabric("fattree:4:2");
    assert_eq!((f.num_switches(), f.num_hosts()), (6, 8));
    let ft = f.fat_tree().unwrap();
    assert_eq!(ft.roots, vec![0, 1]);
    assert_eq!(fabric_route::count_routes(&f, Mode::UpDown(ft), 2, 3), 2.0);
    // Every leaf sees all 8 hosts at 0 or 1 hop (2 and 6), each spine all
    // 8 at 1: OpenSM's automatic up*/down* roots are the two spines.
    assert_eq!(f.updown().roots, vec![0, 1]);
    assert_eq!(f.root_choice(), hopmap_core::topology::RootChoice::OpenSm);
    assert_eq!(
        fabric_route::count_routes(&f, Mode::UpDown(f.updown()), 2, 3),
        2.0
    );
    // up*/down* from the single root top0 has one route: top1 sits below
    // the leaves, so leaf→top1→leaf goes down then up.
    let f0 = fabric("fattree:4:2:root=top0");
    assert_eq!(f0.updown().roots, vec![0]);
    assert_eq!(
        fabric_route::count_routes(&f0, Mode::UpDown(f0.updown()), 2, 3),
        1.0
    );
    assert_eq!(fabric_route::count_routes(&f, Mode::Minimal, 2, 3), 2.0);
    let f8 = fabric("fattree:8:2");
    assert_eq!(
        fabric_route::count_routes(&f8, Mode::UpDown(f8.fat_tree().unwrap()), 4, 5),
        4.0
    );
    // 3 levels, k = 4: leaves of different pods have m² = 4 routes, of one pod m = 2.
    let f3 = fabric("fattree:4:3");
    let ft3 = f3.fat_tree().unwrap();
    let leaves: Vec<usize> = (0..f3.num_switches())
        .filter(|&s| !f3.hosts_on(s).is_empty())
        .collect();
    assert_eq!(leaves.len(), 8);
    assert_eq!(
        fabric_route::count_routes(&f3, Mode::UpDown(ft3), leaves[0], leaves[1]),
        2.0
    );
    assert_eq!(
        fabric_route::count_routes(&f3, Mode::UpDown(ft3), leaves[0], leaves[2]),
        4.0
    );
    // The fat-tree split puts a quarter of the bytes on each core path.
    let t3 = Topology::Fabric(f3.clone());
    let (a, b) = (
        f3.hosts_on(leaves[0])[0] as usize,
        f3.hosts_on(leaves[2])[0] as usize,
    );
    let mut loads = vec![0.0; t3.channel_slots()];
    Routing::FatTree.route(&t3, a, b, 8.0, &mut |c, x| loads[c] += x);
    let mut used: Vec<f64> = loads.iter().copied().filter(|&x| x > 0.0).collect();
    used.sort_by(f64::total_cmp);
    // 2 host links (8), leaf→agg ×2 (4), agg→core ×4 (2), core→agg ×4 (2), agg→leaf ×2 (4)
    assert_eq!(
        used,
        vec![2.0; 8]
            .into_iter()
            .chain(vec![4.0; 4])
            .chain(vec![8.0; 2])
            .collect::<Vec<_>>()
    );
}

#[test]
fn ibnetdiscover_fixture_parses_with_options() {
    let path = "tests/data/ibnetdiscover-man.txt";
    for spec in [format!("ibnetdiscover:{path}"), path.to_string()] {
        let t = Topology::parse(&spec).unwrap();
        let f = t.as_fabric().unwrap();
        assert_eq!(f.num_switches(), 2);
        assert_eq!(f.switch_links().len(), 2, "parallel links kept");
        assert_eq!(t.num_nodes(), 4);
        // GUID order: 0x0008f10400410015 < 0x005442ba00003080.
        assert_eq!(f.switches()[0].name, "S-0008f10400410015");
        assert_eq!(f.switches()[1].ports, 24);
        // hosts in Ca record order; the first two hang off the small switch
        let sw: Vec<usize> = (0..4).map(|h| f.switch_of(h)).collect();
        assert_eq!(sw, vec![0, 0, 1, 1]);
        assert_eq!(t.distance(0, 2), 1);
    }
    let t = Topology::parse(&format!(
        "ibnetdiscover:{path}:root=0x005442ba00003080:cores=2:job=3"
    ))
    .unwrap();
    assert_eq!(t.as_fabric().unwrap().updown().roots, vec![1]);
    assert_eq!((t.num_nodes(), t.cores()), (3, 2));
    assert_eq!(
        t.spec(),
        format!("ibnetdiscover:{path}:root=0x005442ba00003080:cores=2:job=3")
    );
    assert_eq!(Topology::parse(&t.spec()).unwrap(), t);
    let e = Topology::parse(&format!("{path}:root=S-nope"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("expected a root switch name or GUID"), "{e}");
}

#[test]
fn topology_conf_fixture_parses_with_hostlists() {
    let t = Topology::parse("tests/data/topology.conf").unwrap();
    let f = t.as_fabric().unwrap();
    assert_eq!((f.num_switches(), t.num_nodes()), (4, 18));
    assert_eq!(f.updown().roots, vec![3]);
    assert_eq!(t.distance(0, 17), 2);
    let j = Topology::parse("slurm:tests/data/topology.conf:job=dev[4-7,12]").unwrap();
    let names: Vec<&str> = j
        .as_fabric()
        .unwrap()
        .hosts()
        .iter()
        .map(|h| h.name.as_str())
        .collect();
    assert_eq!(names, vec!["dev4", "dev5", "dev6", "dev7", "dev12"]);
    let s = Topology::parse("slurm:tests/data/topology.conf:sort=name:job=3").unwrap();
    let names: Vec<&str> = s
        .as_fabric()
        .unwrap()
        .hosts()
        .iter()
        .map(|h| h.name.as_str())
        .collect();
    assert_eq!(names, vec!["dev0", "dev1", "dev10"]);
    assert!(Topology::parse("slurm:tests/data/topology.conf:job=dev99").is_err());
}

/// With message counts (Open MPI monitoring), the mean latency is over
/// messages: Moh's start-up time is paid once per message sent.
#[test]
fn moh_mean_latency_weighs_each_pair_by_its_messages() {
    let t = Topology::parse("fabric:moh-fig2:cores=2").unwrap();
    let mut b = GraphBuilder::new(3, true);
    b.add(0, 1, 10.0); // one message, processes on one host: t_s only
    b.add(0, 2, 90.0); // nine messages, m9 → m12: 3 switch hops
    let g = b.build().unwrap();
    let counts = g.align_counts([(0, 1, 1.0), (0, 2, 9.0)]);
    let g = g
        .with_source(hopmap_core::graph::SourceInfo {
            msgs: Some(counts),
            ..Default::default()
        })
        .unwrap();
    let m = Mapping::new(vec![9, 9, 12], vec![0, 1, 0]);
    m.validate(3, &t).unwrap();
    let e = evaluate(&g, &t, &m, &Routing::Dor);
    let (near, far) = (2000.0, 2000.0 + 5.0 * 20.0 + 4.0 * 300.0);
    let want = (near + 9.0 * far) / 10.0 / 1000.0;
    assert!((e.metrics.mean_latency_us.unwrap() - want).abs() < 1e-12);
    assert!((e.metrics.max_latency_us.unwrap() - far / 1000.0).abs() < 1e-12);
}

#[test]
fn moh_latency_counts_host_links_and_switches() {
    let t = Topology::parse("fabric:moh-fig2").unwrap();
    let mut b = GraphBuilder::new(2, false);
    b.add(0, 1, 10.0);
    let g = b.build().unwrap();
    // m9 (S4) and m12 (S7): 3 switch hops, 5 links, 4 switches.
    let m = Mapping::from_nodes(vec![9, 12], &t).unwrap();
    let e = evaluate(&g, &t, &m, &Routing::Dor);
    assert_eq!(e.metrics.routing, "updn");
    assert_eq!(e.metrics.hop_bytes, 2.0 * 5.0 * 3.0); // both directions, 5 bytes each
    let lat = 2000.0 + 5.0 * 20.0 + 4.0 * 300.0;
    assert!((e.metrics.mean_latency_us.unwrap() - lat / 1000.0).abs() < 1e-12);
    assert!((e.metrics.max_latency_us.unwrap() - lat / 1000.0).abs() < 1e-12);
    // Every switch link of the route carries one 5-byte message each way.
    assert_eq!(e.metrics.max_switch_link_load, Some(5.0));
    assert_eq!(e.metrics.max_switch_link_flows, Some(1));
    let json = serde_json::to_value(&e.metrics).unwrap();
    assert_eq!(json.as_object().unwrap().len(), 18);
    // On a torus the 14 keys stay as they are.
    let tor = Topology::parse("torus:4x4").unwrap();
    let m = Mapping::from_nodes(vec![0, 1], &tor).unwrap();
    let e = evaluate(&g, &tor, &m, &Routing::Dor);
    assert!(e.metrics.mean_latency_us.is_none());
    assert!(e.metrics.max_switch_link_load.is_none());
    let json = serde_json::to_value(&e.metrics).unwrap();
    assert_eq!(json.as_object().unwrap().len(), 14);
    assert!(Routing::UpDown.check(&tor).is_err());
    assert!(Routing::FatTree.check(&t).is_err());
    assert!(Routing::parse("dor:YX").unwrap().check(&t).is_err());
}

fn random_graph(n: usize, seed: u64) -> hopmap_core::CommGraph {
    let mut rng = hopmap_core::rng::Rng::new(seed);
    let mut b = GraphBuilder::new(n, true);
    for _ in 0..3 * n {
        let (u, v) = (rng.below(n), rng.below(n));
        if u != v {
            b.add(u, v, 1.0 + rng.below(100) as f64);
        }
    }
    b.build().unwrap()
}

const ROUTINGS: [Routing; 5] = [
    Routing::UpDown,
    Routing::UpDownSplit,
    Routing::Minimal,
    Routing::MinimalSplit,
    Routing::Adaptive,
];

fn check_loads(t: &Topology, seed: u64, routings: &[Routing]) -> Result<(), TestCaseError> {
    let slots = t.num_slots();
    let mut rng = hopmap_core::rng::Rng::new(seed ^ 0x5eed);
    let n = 2 + rng.below(slots - 1);
    let g = random_graph(n, seed);
    let mut all: Vec<usize> = (0..slots).collect();
    rng.shuffle(&mut all);
    let m = Mapping::from_slots(&all[..n], t);
    m.validate(n, t).unwrap();
    for r in routings {
        r.check(t).unwrap();
        let e = evaluate(&g, t, &m, r);
        let (mut hops, mut host) = (0.0, 0.0);
        for ch in 0..t.channel_slots() {
            if t.channel_counts_hops(ch) {
                hops += e.links.get(ch).0;
            } else {
                host += e.links.get(ch).0;
            }
        }
        let hb = e.metrics.hop_bytes;
        prop_assert!(
            (hops - hb).abs() <= 1e-9 * hb.max(1.0),
            "{r}: Σ loads {hops} vs hop-bytes {hb}"
        );
        let inter = e.metrics.total_bytes - e.metrics.intra_node_bytes;
        prop_assert!(
            (host - 2.0 * inter).abs() <= 1e-9 * inter.max(1.0),
            "{r}: host links"
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn loads_sum_to_hop_bytes_on_random_fabrics(
        s in 2usize..14, k in 4u32..9, r in 0.6f64..1.0, cores in 1u32..3, seed in 0u64..1000
    ) {
        let h = (s * k as usize / 3).max(1);
        let spec = format!("fabric:{s},{h},{k},{r},{seed}:cores={cores}");
        let t = match Topology::parse(&spec) {
            Ok(t) => t,
            Err(_) => { prop_assume!(false); unreachable!() }
        };
        // Same seed, same fabric.
        let again = Topology::parse(&spec).unwrap();
        prop_assert_eq!(again.as_fabric().unwrap().switch_links(), t.as_fabric().unwrap().switch_links());
        check_loads(&t, seed, &ROUTINGS)?;
        // up*/down* is never shorter than a shortest path.
        let f = t.as_fabric().unwrap();
        for a in 0..f.num_switches() {
            for b in 0..f.num_switches() {
                prop_assert!(f.updown().dist(a, b) as u32 >= f.min_switch_dist(a, b));
                prop_assert_eq!(f.updown().dist(a, b), f.updown().dist(b, a));
            }
        }
    }

    #[test]
    fn loads_sum_to_hop_bytes_on_fat_trees_and_dragonflies(k in 1u32..4, l in 1u32..4, seed in 0u64..100) {
        let t = Topology::parse(&format!("fattree:{}:{l}", 2 * k)).unwrap();
        let mut rs = ROUTINGS.to_vec();
        rs.push(Routing::FatTree);
        check_loads(&t, seed, &rs)?;
        let d = Topology::parse(&format!("dragonfly:{},{},{}", k + 1, 2, l)).unwrap();
        check_loads(&d, seed, &ROUTINGS)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    /// Every mapper that runs on fabrics returns a valid mapping, the same
    /// for the same seed; every other mapper refuses plainly.
    #[test]
    fn mappers_on_random_fabrics(
        s in 2usize..12, cores in 1u32..3, frac in 0.05f64..=1.0, seed in 0u64..1000
    ) {
        use hopmap_core::mappers::{self, MapperInput, Networks};
        use std::sync::Arc;
        let h = 2 * s;
        let t = match Topology::parse(&format!("fabric:{s},{h},6,0.9,{seed}:cores={cores}")) {
            Ok(t) => Arc::new(t),
            Err(_) => { prop_assume!(false); unreachable!() }
        };
        let n = ((t.num_slots() as f64 * frac) as usize).clamp(1, t.num_slots());
        let g = Arc::new(random_graph(n, seed));
        let input = MapperInput::new(g, t.clone(), seed);
        for info in mappers::registry() {
            // Scotch needs its tool, and its fabric target (amk_grf) is not
            // deterministic: its own tests cover it.
            if info.external.is_some() {
                continue;
            }
            let r = mappers::run(&info, &input);
            if info.networks == Networks::Any {
                let m = r.map_err(|e| TestCaseError::fail(format!("{}: {e}", info.id)))?;
                prop_assert!(m.validate(n, &t).is_ok(), "{}", info.id);
                prop_assert_eq!(&mappers::run(&info, &input).unwrap(), &m, "{} not deterministic", info.id);
            } else {
                let e = r.err().map(|e| e.to_string()).unwrap_or_default();
                prop_assert!(
                    e.contains("mesh or torus") || e.contains("coordinates") || e.contains("a mesh/torus"),
                    "{} on a fabric: `{}`", info.id, e
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// `unused_links` (memoized per destination) finds exactly the links
    /// that no deterministic route between two switches crosses, route by
    /// route.
    #[test]
    fn unused_links_match_route_by_route(s in 2usize..24, seed in 0u64..1000, all in any::<bool>()) {
        let Ok(t) = Topology::parse(&format!("fabric:{s},{},6,0.9,{seed}", s + 3)) else {
            prop_assume!(false);
            unreachable!()
        };
        let f = t.as_fabric().unwrap();
        for mode in [Mode::UpDown(f.updown()), Mode::Minimal] {
            let ends: Vec<usize> = (0..f.num_switches())
                .filter(|&v| all || !f.hosts_on(v).is_empty())
                .collect();
            let mut used = vec![false; f.switch_links().len()];
            for &x in &ends {
                for &y in &ends {
                    if x != y {
                        fabric_route::switch_route_det(f, mode, x, y, &mut |l, _| used[l] = true);
                    }
                }
            }
            let naive: Vec<usize> = (0..used.len()).filter(|&l| !used[l]).collect();
            prop_assert_eq!(fabric_route::unused_links(f, mode, all), naive);
        }
    }
}

/// Slurm accepts a topology.conf of disjoint switch trees and runs each job
/// within one: a job inside one tree gets that tree alone, a job across
/// trees is refused with each tree's hosts, so the user can pick one.
#[test]
fn disjoint_slurm_trees_take_the_jobs_tree() {
    let path = crate::common::tmp_in("slurm-disjoint", "topology.conf");
    let conf = "SwitchName=a0 Nodes=n[0-3]\nSwitchName=a1 Nodes=n[4-7]\nSwitchName=top Switches=a[0-1]\n\
                SwitchName=b0 Nodes=m[0-2]\n";
    std::fs::write(&path, conf).unwrap();
    let p = path.display();
    let t = Topology::parse(&format!("slurm:{p}:job=n[2-5]")).unwrap();
    let f = t.as_fabric().unwrap();
    let names: Vec<&str> = f.hosts().iter().map(|h| h.name.as_str()).collect();
    assert_eq!(names, vec!["n2", "n3", "n4", "n5"]);
    assert_eq!(f.num_switches(), 3);
    assert_eq!((t.distance(0, 1), t.distance(0, 2)), (0, 2));
    let b = Topology::parse(&format!("slurm:{p}:job=m[0-2]")).unwrap();
    let f = b.as_fabric().unwrap();
    assert_eq!((f.num_switches(), b.num_nodes()), (1, 3));
    for spec in [format!("slurm:{p}"), format!("slurm:{p}:job=n7,m0")] {
        let e = Topology::parse(&spec).unwrap_err().to_string();
        assert!(
            e.contains("expected the job's hosts in one switch tree")
                && e.contains("found them in 2 disjoint trees")
                && e.contains("switch a0's tree: 8 hosts, n0 … n7")
                && e.contains("switch b0's tree: 3 hosts, m0 … m2"),
            "{e}"
        );
    }
}
