//! Property tests for the mappers and findNearest:
//! * every registered mapper returns a valid mapping on random graph/topology
//!   pairs, including fewer processes than slots and several cores per node;
//!   coordinate mappers fail cleanly on graphs without coordinates;
//! * the same seed gives the same mapping;
//! * findNearest's spiral and k-d tree agree on random occupancy patterns.

use hopmap_core::find_nearest::{FindKind, FindNearest, Finder};
use hopmap_core::mappers::{self, MapperInput};
use hopmap_core::topology::{Grid, Topology};
use hopmap_core::{Coords, GraphBuilder};
use proptest::prelude::*;
use std::sync::Arc;

/// A random grid: 1–4 dimensions of size 1–6, random wrap flags, 1–3 cores.
fn grid_strategy() -> impl Strategy<Value = Grid> {
    (1usize..=4)
        .prop_flat_map(|nd| {
            (
                prop::collection::vec(1u32..=6, nd),
                prop::collection::vec(any::<bool>(), nd),
                1u32..=3,
            )
        })
        .prop_filter("small", |(d, _, _)| d.iter().product::<u32>() <= 200)
        .prop_map(|(d, w, c)| Grid::new(&d, &w, c).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn spiral_and_tree_agree(grid in grid_strategy(), seed in any::<u64>(), fill in 0.0f64..1.0) {
        let mut rng = hopmap_core::rng::Rng::new(seed);
        let mut a = Finder::new(FindKind::Spiral, &grid);
        let mut b = Finder::new(FindKind::Tree, &grid);
        // A random occupancy pattern.
        let slots = grid.num_nodes() * grid.cores() as usize;
        let taken = (fill * slots as f64) as usize;
        for _ in 0..taken {
            let n = rng.below(grid.num_nodes());
            prop_assert_eq!(a.take(n), b.take(n));
        }
        // Then fill the rest by queries (fractional, partly outside the grid).
        loop {
            let q: Vec<f64> = grid.dims().iter().map(|&k| rng.range_f64(-1.5, k as f64 + 0.5)).collect();
            let (x, y) = (a.find(&q), b.find(&q));
            prop_assert_eq!(x, y, "query {:?}", q);
            let Some(n) = x else { break };
            prop_assert!(a.free_cores(n) > 0);
            prop_assert_eq!(a.take(n), b.take(n));
        }
        prop_assert_eq!(a.free_slots(), 0);
    }
}

/// A random graph on `n` processes with ~`2n` edges, random weights, maybe
/// isolated processes and several components; coordinates when `coords`.
fn random_graph(n: usize, seed: u64, coords: Option<usize>) -> hopmap_core::CommGraph {
    let mut rng = hopmap_core::rng::Rng::new(seed);
    let mut b = GraphBuilder::new(n, rng.below(2) == 0);
    if n > 1 {
        for _ in 0..2 * n {
            let u = rng.below(n);
            let v = rng.below(n);
            b.add(u, v, 1.0 + rng.below(100) as f64);
        }
    }
    let g = b.build().unwrap();
    match coords {
        None => g,
        Some(dim) => {
            let xyz = (0..n)
                .map(|_| {
                    let z = if dim == 3 { rng.f64() } else { 0.0 };
                    [rng.f64() * 10.0, rng.f64(), z]
                })
                .collect();
            g.with_coords(Some(Coords::new(dim, xyz))).unwrap()
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn every_mapper_returns_a_valid_deterministic_mapping(
        grid in grid_strategy(),
        frac in 0.0f64..=1.0,
        seed in any::<u64>(),
        coord_kind in 0usize..3,
    ) {
        let topo = Arc::new(Topology::Grid(grid));
        let n = ((topo.num_slots() as f64 * frac) as usize).min(topo.num_slots());
        let coords = [None, Some(2), Some(3)][coord_kind];
        let g = Arc::new(random_graph(n, seed, coords));
        let input = MapperInput::new(g.clone(), topo.clone(), seed);
        for info in mappers::registry() {
            let r = mappers::run(&info, &input);
            if info.needs_coords && coords.is_none() {
                let e = r.err().map(|e| e.to_string()).unwrap_or_default();
                prop_assert!(e.contains("coordinates"), "{}: {}", info.id, e);
                continue;
            }
            // Permutation mappers may reject grids of another dimension count.
            let m = match r {
                Ok(m) => m,
                Err(hopmap_core::Error::Unsupported(msg)) if !is_ours(info.id) => { let _ = msg; continue }
                Err(hopmap_core::Error::Spec { .. }) if !is_ours(info.id) => continue,
                Err(e) => return Err(TestCaseError::fail(format!("{} failed: {e}", info.id))),
            };
            prop_assert!(m.validate(n, &topo).is_ok(), "{}", info.id);
            let again = mappers::run(&info, &input).unwrap();
            prop_assert_eq!(&again, &m, "{} is not deterministic", info.id);
        }
    }
}

fn is_ours(id: &str) -> bool {
    matches!(
        id,
        "bft" | "mht" | "affn" | "coce" | "coce+mht" | "pairs" | "default" | "random"
    )
}

#[test]
fn find_param_selects_spiral_with_the_same_result() {
    let topo = Arc::new(Topology::parse("torus:6x5:cores=2").unwrap());
    let g = Arc::new(random_graph(50, 9, Some(2)));
    for id in ["bft", "mht", "affn", "coce", "coce+mht"] {
        let info = mappers::find(id).unwrap();
        let mut a = MapperInput::new(g.clone(), topo.clone(), 1);
        a.params.push(("find".into(), "spiral".into()));
        let b = MapperInput::new(g.clone(), topo.clone(), 1);
        assert_eq!(
            mappers::run(&info, &a).unwrap(),
            mappers::run(&info, &b).unwrap(),
            "{id}"
        );
    }
}

/// Every mapper on every `sample-graphs/` file, on a 2D mesh with spare
/// nodes and on a 3D torus with 2 cores per node.
#[test]
fn every_mapper_on_every_sample_graph() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-graphs");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        // The folder's README says where each sample comes from.
        .filter(|p| p.extension().is_none_or(|x| x != "md"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for path in files {
        let g = Arc::new(hopmap_core::io::read_graph(&path, &Default::default()).unwrap());
        let n = g.n();
        let side = (n as f64).sqrt().ceil() as usize + 1;
        let cube = ((n as f64 / 2.0).cbrt().ceil() as usize).max(3);
        for spec in [
            format!("mesh:{side}x{side}"),
            format!("torus:{cube}x{cube}x{cube}:cores=2"),
        ] {
            let topo = Arc::new(Topology::parse(&spec).unwrap());
            let input = MapperInput::new(g.clone(), topo.clone(), 5);
            for info in mappers::registry().into_iter().filter(|i| is_ours(i.id)) {
                match mappers::run(&info, &input) {
                    Ok(m) => m.validate(n, &topo).unwrap(),
                    Err(e) => {
                        assert!(
                            info.needs_coords && g.coords().is_none(),
                            "{} on {} / {spec}: {e}",
                            info.id,
                            path.display()
                        );
                    }
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// The switch-fabric mappers (SM, BM) on random irregular fabrics with a
    /// job of part of the hosts, several cores, and fewer processes than
    /// slots: a valid mapping, the same for the same seed; on a grid they
    /// refuse plainly.
    #[test]
    fn fabric_mappers_are_valid_and_deterministic(
        s in 2usize..10, hosts_per in 1usize..4, job_frac in 0.3f64..=1.0,
        cores in 1u32..4, frac in 0.0f64..=1.0, seed in any::<u64>(),
    ) {
        let h = s * hosts_per;
        let job = ((h as f64 * job_frac) as usize).max(1);
        let spec = format!("fabric:{s},{h},8,0.8,{}:job={job}:cores={cores}", seed % 1000);
        let Ok(t) = Topology::parse(&spec) else {
            prop_assume!(false);
            unreachable!()
        };
        let t = Arc::new(t);
        let n = ((t.num_slots() as f64 * frac) as usize).min(t.num_slots());
        let g = Arc::new(random_graph(n, seed, None));
        let input = MapperInput::new(g.clone(), t.clone(), seed);
        for id in ["sm", "bm"] {
            let info = mappers::find(id).unwrap();
            let m = mappers::run(&info, &input)
                .map_err(|e| TestCaseError::fail(format!("{id} on {spec}: {e}")))?;
            prop_assert!(m.validate(n, &t).is_ok(), "{} on {}", id, spec);
            prop_assert_eq!(&mappers::run(&info, &input).unwrap(), &m, "{} not deterministic", id);
            let grid = Arc::new(Topology::parse("torus:8x8:cores=4").unwrap());
            let e = mappers::run(&info, &MapperInput::new(g.clone(), grid, seed))
                .err().map(|e| e.to_string()).unwrap_or_default();
            prop_assert!(e.contains("mesh or torus"), "{}: {}", id, e);
        }
    }
}
