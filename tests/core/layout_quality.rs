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

/// A planar mesh with a hole, laid out from its communication graph alone
/// (the layout never reads the generator's coordinates): the
/// `unstructured:512:2d` mesh is the unit square minus a disc of radius
/// 0.22 centred at (0.62, 0.58), cut into 512 parts. Aligned onto the
/// generator's part centroids (least squares: shift, rotation, reflection,
/// scale), the layout keeps the hole's size, and each part's 8 nearest
/// parts in the layout are mostly its 8 nearest in the mesh; at layout
/// seeds 0 and 1 (the graph view's). Measured (mesh seeds 6 / 1, layout
/// seed 0): hole 0.97 / 1.01 of the mesh's, neighbours 0.93 / 0.93. With
/// `1/d²`, whose pushes sum over the whole mesh, the hole was 1.33 / 1.37
/// wide and the neighbours 0.80 / 0.78; at layout seed 1 on mesh seed 6,
/// the twin points of the coarsest MDS start (see
/// `multilevel::separate_coincident`) drew the mesh as clumps on a ring
/// (neighbours 0.58 with `1/d²`, 0.53 with `1/d³`; now 0.91).
#[test]
fn mesh_with_a_hole_keeps_its_hole_and_neighbourhoods() {
    for seed in [6u64, 1] {
        let opts = GenOptions {
            seed,
            ..GenOptions::default()
        };
        let g = generate("unstructured:512:2d", &opts).unwrap();
        let truth: Vec<[f64; 2]> = g
            .coords()
            .unwrap()
            .xyz
            .iter()
            .map(|p| [p[0], p[1]])
            .collect();
        for layout_seed in [0u64, 1] {
            let l = run(
                &g,
                LayoutParams {
                    seed: layout_seed,
                    ..LayoutParams::default()
                },
            )
            .unwrap();
            let pos: Vec<[f64; 2]> = l
                .positions()
                .iter()
                .map(|p| [p[0] as f64, p[1] as f64])
                .collect();
            let aligned = align(&pos, &truth);
            // The hole's radius: the largest circle free of parts whose centre
            // is within 0.1 of the hole's (on a grid of step 0.01).
            let hole = |pts: &[[f64; 2]]| {
                let mut r = 0f64;
                for i in -10..=10 {
                    for j in -10..=10 {
                        let c = [0.62 + 0.01 * i as f64, 0.58 + 0.01 * j as f64];
                        let d = pts
                            .iter()
                            .map(|p| ((p[0] - c[0]).powi(2) + (p[1] - c[1]).powi(2)).sqrt())
                            .fold(f64::INFINITY, f64::min);
                        r = r.max(d);
                    }
                }
                r
            };
            let ratio = hole(&aligned) / hole(&truth);
            let nbr = knn_overlap(&pos, &truth, 8);
            assert!(
                (0.85..=1.15).contains(&ratio),
                "seed {seed}, layout seed {layout_seed}: hole {ratio:.2} of the mesh's"
            );
            assert!(
                nbr >= 0.88,
                "seed {seed}, layout seed {layout_seed}: 8-neighbourhoods kept {nbr:.3}"
            );
        }
    }
}

/// `a` moved onto `b` by the similarity (shift, rotation or reflection,
/// scale) of least squared error (Procrustes).
fn align(a: &[[f64; 2]], b: &[[f64; 2]]) -> Vec<[f64; 2]> {
    let n = a.len() as f64;
    let mean = |p: &[[f64; 2]]| {
        let s = p.iter().fold([0.0; 2], |s, q| [s[0] + q[0], s[1] + q[1]]);
        [s[0] / n, s[1] / n]
    };
    let (ma, mb) = (mean(a), mean(b));
    let mut best: Option<(f64, Vec<[f64; 2]>)> = None;
    for flip in [1.0, -1.0] {
        let ac: Vec<[f64; 2]> = a
            .iter()
            .map(|p| [p[0] - ma[0], flip * (p[1] - ma[1])])
            .collect();
        // Rotation angle and scale of least squares in the plane.
        let (mut dot, mut cross, mut norm) = (0.0, 0.0, 0.0);
        for (p, q) in ac.iter().zip(b) {
            let q = [q[0] - mb[0], q[1] - mb[1]];
            dot += p[0] * q[0] + p[1] * q[1];
            cross += p[0] * q[1] - p[1] * q[0];
            norm += p[0] * p[0] + p[1] * p[1];
        }
        let (c, s) = (dot / norm, cross / norm);
        let moved: Vec<[f64; 2]> = ac
            .iter()
            .map(|p| [c * p[0] - s * p[1] + mb[0], s * p[0] + c * p[1] + mb[1]])
            .collect();
        let err: f64 = moved
            .iter()
            .zip(b)
            .map(|(p, q)| (p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2))
            .sum();
        if best.as_ref().is_none_or(|(e, _)| err < *e) {
            best = Some((err, moved));
        }
    }
    best.unwrap().1
}

/// Mean share of each point's `k` nearest points in `a` that are among its
/// `k` nearest in `b`. O(n² log n).
fn knn_overlap(a: &[[f64; 2]], b: &[[f64; 2]], k: usize) -> f64 {
    let near = |p: &[[f64; 2]], i: usize| {
        let mut o: Vec<usize> = (0..p.len()).filter(|&j| j != i).collect();
        let d = |j: usize| (p[j][0] - p[i][0]).powi(2) + (p[j][1] - p[i][1]).powi(2);
        o.sort_by(|&x, &y| d(x).total_cmp(&d(y)));
        o.truncate(k);
        o
    };
    let mut sum = 0.0;
    for i in 0..a.len() {
        let nb = near(b, i);
        sum += near(a, i).iter().filter(|j| nb.contains(j)).count() as f64 / k as f64;
    }
    sum / a.len() as f64
}
