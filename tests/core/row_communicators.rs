//! Row and column communicators: a 2D process grid whose rows are rings of
//! heavy panel broadcasts and whose columns talk all-to-all and lightly
//! (ScaLAPACK's LU). `grid` reads the rows as equal rings stacked along
//! the column pairs, in any rank order, and embeds the stack: on a hand
//! case to the optimum, on the real LU capture below the layout a person
//! would write by hand (each row a ring in one plane of the torus); and,
//! as a property, rings of any size and number are read with every ring
//! pair one step along one direction. Rows and columns that both talk
//! all-to-all (SuperLU_DIST) are read as a product of two cliques, in any
//! order, and each row and column fills a plane of the torus.

use crate::common::relabelled;
use hopmap_core::mappers::grid_embed::recognise::{Found, recognise};
use hopmap_core::mapping::Mapping;
use hopmap_core::metrics::hop_bytes;
use hopmap_core::topology::Topology;
use hopmap_core::{CommGraph, GraphBuilder};
use std::sync::Arc;

/// `grid`'s hop-bytes and summary (`params` as `--param`).
fn run_grid(g: &Arc<CommGraph>, topo: &str, params: &[(&str, &str)]) -> (f64, String) {
    let (hb, s) = crate::common::run_grid(g, topo, params);
    (hb, s.unwrap_or_default())
}

/// Four rings of 6 (rank 6r + q, 100 bytes q → q+1) whose columns (the
/// same q in every ring) are cliques of 5-byte pairs.
fn rings_and_columns() -> CommGraph {
    let mut b = GraphBuilder::new(24, true);
    for r in 0..4 {
        for q in 0..6 {
            b.add(6 * r + q, 6 * r + (q + 1) % 6, 100.0);
            for r2 in r + 1..4 {
                b.add(6 * r + q, 6 * r2 + q, 5.0);
            }
        }
    }
    b.build().unwrap()
}

#[test]
fn rings_stacked_by_their_column_cliques_are_read_in_any_order() {
    let g0 = rings_and_columns();
    for seed in [None, Some(1), Some(2)] {
        let g = relabelled(&g0, seed);
        let h = recognise(&g).unwrap();
        // In the ranks' own order the rank-order reading finds the same
        // grid first (the stacked one is kept for when no other is found).
        let want = if seed.is_none() {
            Found::RankOrder
        } else {
            Found::Stacked
        };
        assert_eq!(h.found, want, "{seed:?}");
        assert_eq!(h.dims, vec![6, 4], "{seed:?}");
        assert_eq!(h.periodic, vec![true, true], "{seed:?}");
        // Every ring pair is one step along the first direction; every
        // column pair shares its first coordinate.
        let mut ring_bytes = 0.0;
        for (u, v, w) in g.messages() {
            let (cu, cv) = (h.coord(u), h.coord(v));
            if w == 100.0 {
                assert_eq!(cu[1], cv[1], "{seed:?}: ring pair {u}–{v}");
                ring_bytes += w;
            } else {
                assert_eq!(cu[0], cv[0], "{seed:?}: column pair {u}–{v}");
            }
        }
        assert_eq!(h.axis_bytes[0], ring_bytes);
        // On a 6 × 4 torus: each ring on an x-ring (2,400 bytes one hop),
        // each column a y-ring of 4 (its 6 pairs of 5 bytes at 1, 2, 1,
        // 1, 2, 1 hops: 40 per column, 240 in all). No mapping does
        // better: a ring pair is at least one hop, and 4 nodes of this
        // torus have at most 4 pairs one hop apart.
        let (hb, s) = run_grid(&g, "torus:6x4", &[]);
        assert_eq!(hb, 2640.0, "{seed:?}: {s}");
    }
}

#[test]
fn scalapack_lu_rows_fold_into_planes_in_any_order() {
    // ScaLAPACK's LU on an 8 × 16 process grid (tests/data/captures):
    // the rows' rings of 16 carry 82 % of the bytes, the columns'
    // all-to-all the rest. By hand: row p in plane z = p of the 4×4×8
    // torus, along a cycle of the 4 × 4 plane (every row pair one hop,
    // every column on a z-ring of 8).
    let path = std::path::Path::new("tests/data/captures/scalapack-lu-128.mtx");
    let g0 = hopmap_core::io::read_graph(path, &Default::default()).unwrap();
    let t = Topology::parse("torus:4x4x8").unwrap();
    let cycle = [
        (0, 0),
        (1, 0),
        (2, 0),
        (3, 0),
        (3, 1),
        (2, 1),
        (1, 1),
        (1, 2),
        (2, 2),
        (3, 2),
        (3, 3),
        (2, 3),
        (1, 3),
        (0, 3),
        (0, 2),
        (0, 1),
    ];
    let nodes: Vec<u32> = (0..128)
        .map(|r| {
            let (x, y) = cycle[r % 16];
            (x + 4 * y + 16 * (r / 16)) as u32
        })
        .collect();
    let by_hand = hop_bytes(&g0, &t, &Mapping::new(nodes, vec![0; 128]));
    for seed in [None, Some(1)] {
        let g = relabelled(&g0, seed);
        let (hb, s) = run_grid(&g, "torus:4x4x8", &[("refine", "no")]);
        assert!(s.contains("16×8 torus halo"), "{seed:?}: {s}");
        assert!(s.contains("stacked"), "{seed:?}: {s}");
        assert!(
            hb < 0.95 * by_hand,
            "{seed:?}: {hb} vs by hand {by_hand}: {s}"
        );
    }
}

/// `k` rings of `s` (rank s·r + q, 100 bytes q → q+1) whose columns are
/// cliques of 5-byte pairs.
fn rings(s: usize, k: usize) -> CommGraph {
    let mut b = GraphBuilder::new(s * k, true);
    for r in 0..k {
        for q in 0..s {
            b.add(s * r + q, s * r + (q + 1) % s, 100.0);
            for r2 in r + 1..k {
                b.add(s * r + q, s * r2 + q, 5.0);
            }
        }
    }
    b.build().unwrap()
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
    /// In any rank order, rings stacked by column cliques are read as an
    /// s × k grid: every ring pair one step along the rings' direction,
    /// every column pair at one position of it.
    #[test]
    fn stacked_rings_are_read_in_any_order(s in 3usize..9, k in 2usize..6, seed in 0u64..1000) {
        let g = relabelled(&rings(s, k), Some(seed));
        let h = recognise(&g).unwrap();
        let mut dims = h.dims.clone();
        dims.sort();
        let mut want = vec![s as u32, k as u32];
        want.sort();
        proptest::prop_assert_eq!(dims, want);
        // The direction rank 0's first ring pair moves along.
        let (cu, cv) = (h.coord(0), h.coord(g.messages().find(|m| m.0 == 0 && m.2 == 100.0).unwrap().1));
        let ring_dir = (0..h.ndims()).find(|&i| cu[i] != cv[i]).unwrap();
        proptest::prop_assert_eq!(h.dims[ring_dir], s as u32);
        for (u, v, w) in g.messages() {
            let (cu, cv) = (h.coord(u), h.coord(v));
            let moved: Vec<usize> = (0..h.ndims()).filter(|&i| cu[i] != cv[i]).collect();
            if w == 100.0 {
                proptest::prop_assert_eq!(moved.clone(), vec![ring_dir], "ring pair {}–{}", u, v);
                let d = cu[ring_dir].abs_diff(cv[ring_dir]);
                proptest::prop_assert!(d == 1 || d == s as u32 - 1);
            } else {
                proptest::prop_assert!(!moved.contains(&ring_dir), "column pair {}–{}", u, v);
            }
        }
    }
}

/// Rows of 6 and columns of 4 (rank 6r + c), every pair in a row or a
/// column talking: row pairs 100 bytes, column pairs 40.
fn rows_and_columns_all_to_all() -> CommGraph {
    let mut b = GraphBuilder::new(24, true);
    for u in 0..24 {
        for v in u + 1..24 {
            if u / 6 == v / 6 {
                b.add(u, v, 100.0);
            } else if u % 6 == v % 6 {
                b.add(u, v, 40.0);
            }
        }
    }
    b.build().unwrap()
}

#[test]
fn rows_and_columns_all_to_all_are_read_as_a_product_in_any_order() {
    let g0 = rows_and_columns_all_to_all();
    for seed in [None, Some(1), Some(2), Some(3)] {
        let g = relabelled(&g0, seed);
        let h = recognise(&g).unwrap();
        assert_eq!(h.found, Found::Product, "{seed:?}");
        let mut dims = h.dims.clone();
        dims.sort_unstable();
        assert_eq!(dims, vec![4, 6], "{seed:?}");
        assert_eq!(h.other_bytes, 0.0, "{seed:?}");
        // Partners share exactly one coordinate; every other two processes
        // share none.
        for u in 0..24 {
            for v in u + 1..24 {
                let share = (0..2).filter(|&i| h.coord(u)[i] == h.coord(v)[i]).count();
                let talk = g.neighbors(u).contains(&(v as u32));
                assert_eq!(share == 1, talk, "{seed:?}: {u}–{v}");
                assert_ne!(share, 2, "{seed:?}");
            }
        }
        // On a 4 × 6 torus each row on a ring of 6 and each column on a
        // ring of 4 gives 4 rows × (6 + 2·6 + 3·3) hops × 100 bytes and
        // 6 columns × (4 + 2·2) hops × 40 bytes: 10,800 + 1,920.
        let (hb, s) = run_grid(&g, "torus:4x6", &[]);
        assert!(hb <= 12_720.0, "{seed:?}: {hb} ({s})");
        assert!(s.contains("rows and columns all-to-all"), "{s}");
    }
}

#[test]
fn superlu_rows_and_columns_fill_planes_in_any_order() {
    // SuperLU_DIST's 12 × 12 grid on a 4 × 6 × 6 torus: read as a product
    // of two cliques, each row and each column fills a 2 × 6 plane (2.2
    // hops per byte); `recursive+refine`, which `grid` ran before the
    // reading, ends at 0.92–0.93 × gmap's hop-bytes.
    let path = std::path::Path::new("tests/data/captures/petsc-superlu-144.mtx");
    let g0 = hopmap_core::io::read_graph(path, &Default::default()).unwrap();
    let t = Topology::parse("torus:4x6x6").unwrap();
    let gm = hopmap_core::io::read_mapping(
        std::path::Path::new("tests/data/scotch/petsc-superlu-144@torus-4x6x6.map"),
        &t,
        g0.n(),
    )
    .unwrap();
    let gmap = hop_bytes(&g0, &t, &gm);
    for seed in [None, Some(5)] {
        let g = relabelled(&g0, seed);
        let (hb, s) = run_grid(&g, "torus:4x6x6", &[]);
        assert!(s.contains("12×12 process grid"), "{seed:?}: {s}");
        assert!(hb < 0.90 * gmap, "{seed:?}: {} × gmap ({s})", hb / gmap);
    }
}
