//! Quality checks of the gravitational layout: the two-cluster
//! example from the circle start, the grid Spearman correlation, the block
//! clusters, Barnes–Hut accuracy, and determinism.

use hopmap_core::generate::{GenOptions, generate};
use hopmap_core::layout::barnes_hut::{RepulsionLaw, Tree, exact_forces};
use hopmap_core::layout::clusters::{ClusterParams, cluster_sizes, clusters};
use hopmap_core::layout::quality::{hop_spearman, intra_inter_ratio};
use hopmap_core::layout::{DEFAULT_THETA, Layout, LayoutParams, run};
use hopmap_core::rng::Rng;
use hopmap_core::step::Stepper;

#[test]
fn two_clusters_from_the_circle_start() {
    let g = hopmap_core::experiments::bobrik::graph().unwrap();
    let l = run(&g, hopmap_core::experiments::bobrik::params()).unwrap();
    let pos = l.positions();
    let truth: Vec<u32> = (0..20).map(|i| (i >= 10) as u32).collect();
    let r = intra_inter_ratio(&pos, &truth);
    assert!(r < 0.3, "intra/inter ratio {r}");
    let labels = clusters(&pos, &ClusterParams::default());
    assert_eq!(cluster_sizes(&labels), vec![10, 10]);
    // The clusters are the true groups.
    assert!(!(0..20).all(|i| labels[i] == labels[0]));
    assert!((0..10).all(|i| labels[i] == labels[0]));
    assert!((10..20).all(|i| labels[i] == labels[10]));
}

#[test]
fn grid_64x64_spearman_at_least_0_9() {
    let g = generate("stencil:64x64", &GenOptions::default()).unwrap();
    let l = run(&g, LayoutParams::default()).unwrap();
    assert!(
        l.level().1 > 1,
        "multilevel is the default at 4096 processes"
    );
    let s = hop_spearman(&g, &l.positions(), 2000, 7);
    assert!(s >= 0.9, "Spearman {s}");
}

#[test]
fn blocks_8x128_are_found() {
    let g = generate("clusters:8x128", &GenOptions::default()).unwrap();
    let l = run(&g, LayoutParams::default()).unwrap();
    let pos = l.positions();
    let labels = clusters(&pos, &ClusterParams::default());
    assert_eq!(cluster_sizes(&labels), vec![128; 8]);
    for b in 0..8 {
        let first = labels[b * 128];
        assert!(
            (b * 128..(b + 1) * 128).all(|i| labels[i] == first),
            "block {b} split"
        );
    }
}

#[test]
fn barnes_hut_within_2_percent_of_exact_on_2000_random_points() {
    for (dim, seed) in [(2usize, 11u64), (3, 12)] {
        let mut rng = Rng::new(seed);
        let pos: Vec<[f32; 3]> = (0..2000)
            .map(|_| {
                let mut p = [0f32; 3];
                for a in p.iter_mut().take(dim) {
                    *a = rng.range_f64(-100.0, 100.0) as f32;
                }
                p
            })
            .collect();
        let law = RepulsionLaw {
            c: 1.0,
            power: 2.0,
            cutoff: None,
            min_dist: 1e-4,
        };
        let (mut bh, mut ex) = (Vec::new(), Vec::new());
        if dim == 2 {
            Tree::<2>::build(&pos, None).forces(&law, DEFAULT_THETA, &mut bh);
            exact_forces::<2>(&pos, None, &law, &mut ex);
        } else {
            Tree::<3>::build(&pos, None).forces(&law, DEFAULT_THETA, &mut bh);
            exact_forces::<3>(&pos, None, &law, &mut ex);
        }
        let mut sum = 0f64;
        for i in 0..pos.len() {
            let d: f64 = (0..3).map(|a| ((bh[i][a] - ex[i][a]) as f64).powi(2)).sum();
            let n: f64 = (0..3).map(|a| (ex[i][a] as f64).powi(2)).sum();
            sum += (d / n).sqrt();
        }
        let mean = sum / pos.len() as f64;
        assert!(mean < 0.02, "{dim}D mean relative error {mean}");
    }
}

#[test]
fn same_seed_same_positions_3d_and_2d() {
    let g = generate("stencil:24x24", &GenOptions::default()).unwrap();
    for dim in [2, 3] {
        let p = LayoutParams {
            dim,
            seed: 5,
            ..Default::default()
        };
        let a = run(&g, p.clone()).unwrap();
        let b = run(&g, p.clone()).unwrap();
        assert_eq!(a.positions(), b.positions());
        assert_eq!(a.iterations(), b.iterations());
        let c = run(&g, LayoutParams { seed: 6, ..p }).unwrap();
        assert_ne!(a.positions(), c.positions());
        if dim == 2 {
            assert!(a.positions().iter().all(|q| q[2] == 0.0));
        } else {
            assert!(a.positions().iter().any(|q| q[2] != 0.0));
        }
    }
}

#[test]
fn pinned_points_do_not_move_and_state_is_exposed() {
    let g = generate("stencil:8x8", &GenOptions::default()).unwrap();
    let mut l = Layout::new(&g, LayoutParams::default()).unwrap();
    l.pin(0, [100.0, 100.0, 0.0]);
    for _ in 0..20 {
        l.step();
    }
    assert_eq!(l.positions()[0], [100.0, 100.0, 0.0]);
    assert_eq!(l.displacements()[0], [0.0; 3]);
    assert!(l.force_norm() > 0.0);
    assert!(
        l.stop_value().is_none(),
        "the m = 30 window is not full yet"
    );
    assert_eq!(l.iterations(), 20);
    l.unpin(0);
    l.run_to_end();
    assert_ne!(l.positions()[0], [100.0, 100.0, 0.0]);
    assert!(l.stop_value().is_some());
}

/// GPAW's four k-point groups of 24 ranks exchange 0.007 % of the bytes
/// between them. Laid out as one piece, their weak attraction leaves them so
/// far apart that, drawn to fit, each group is a dot; split at the weak cut
/// ([`hopmap_core::layout::weak_parts`]), each is laid out on its own and
/// the four are packed side by side. The groups are found in any rank
/// order, and each spans at least a fifth of the picture.
#[test]
fn weakly_joined_groups_are_laid_out_apart_in_any_order() {
    use hopmap_core::layout::gravity::ForceGraph;
    use hopmap_core::layout::weak_parts::{DEFAULT_WEAK_CUT, weak_parts};
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/captures/gpaw-si-96.mtx");
    let g = hopmap_core::io::read_graph(&path, &Default::default()).unwrap();
    let mut reference: Option<Vec<u32>> = None;
    for seed in [None, Some(1), Some(2)] {
        let mut perm: Vec<usize> = (0..g.n()).collect();
        if let Some(s) = seed {
            Rng::new(s).shuffle(&mut perm);
        }
        let gs = crate::common::relabelled(&g, seed);
        let (part, k) = weak_parts(
            &ForceGraph::from_comm(&gs, Default::default()),
            DEFAULT_WEAK_CUT,
        );
        assert_eq!(k, 4, "order {seed:?}");
        // The part of each rank in the application's numbering.
        let own: Vec<u32> = (0..g.n()).map(|u| part[perm[u]]).collect();
        let mut sizes = cluster_sizes(&own);
        sizes.sort_unstable();
        assert_eq!(sizes, vec![24; 4], "order {seed:?}");
        match &reference {
            None => reference = Some(own),
            Some(r) => {
                for u in 0..g.n() {
                    for v in 0..g.n() {
                        assert_eq!(r[u] == r[v], own[u] == own[v], "order {seed:?}: {u}, {v}");
                    }
                }
            }
        }
        let l = run(&gs, LayoutParams::default()).unwrap();
        assert_eq!(l.components(), 4);
        let pos = l.positions();
        let extent = |members: &mut dyn Iterator<Item = usize>| {
            let (mut lo, mut hi) = ([f32::INFINITY; 2], [f32::NEG_INFINITY; 2]);
            for i in members {
                for a in 0..2 {
                    lo[a] = lo[a].min(pos[i][a]);
                    hi[a] = hi[a].max(pos[i][a]);
                }
            }
            (hi[0] - lo[0]).max(hi[1] - lo[1])
        };
        let whole = extent(&mut (0..g.n()));
        for c in 0..4 {
            let e = extent(&mut (0..g.n()).filter(|&i| part[i] == c));
            assert!(
                e >= 0.2 * whole,
                "order {seed:?}: group {c} spans {e} of {whole}"
            );
        }
    }
}
