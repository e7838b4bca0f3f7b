//! Real runs of codes the mappers were not tuned on (GPAW, Gerris; see
//! `tests/data/captures/README.md`), checked against their structure and
//! against Scotch's stored mappings (`tests/data/scotch/`).

use crate::common::{recursive_refine_holds, relabelled, run_grid};
use hopmap_core::mappers::grid_embed::recognise::{Found, recognise};
use hopmap_core::metrics::hop_bytes;
use hopmap_core::{Topology, io};
use std::path::Path;
use std::sync::Arc;

/// GPAW on 96 ranks: 4 k-point groups of 24 consecutive ranks, each a
/// periodic 2 × 3 × 4 domain decomposition, joined by 0.007 % of the
/// bytes. Shuffled, the groups are read as four equal grids
/// (each 4 × 3 × 2) stacked along one more direction: every group is one
/// layer of it; and `grid` on a 2 × 3 × 4 torus with 4 cores per node
/// embeds that reading with fewer hop-bytes than gmap's
/// mapping of the own order. (Before
/// independent components were stacked, no grid was read shuffled: the
/// few pairs between the groups do not line them up.)
#[test]
fn gpaw_kpoint_groups_stack_in_any_order() {
    let path = Path::new("tests/data/captures/gpaw-si-96.mtx");
    let g = io::read_graph(path, &Default::default()).unwrap();
    let t = Arc::new(Topology::parse("torus:2x3x4:cores=4").unwrap());
    let gmap = io::read_mapping(
        Path::new("tests/data/scotch/gpaw-si-96@torus-2x3x4-cores4.map"),
        &t,
        g.n(),
    )
    .unwrap();
    let gmap_hb = hop_bytes(&g, &t, &gmap);
    for seed in [1u64] {
        let mut perm: Vec<usize> = (0..g.n()).collect();
        hopmap_core::rng::Rng::new(seed).shuffle(&mut perm);
        let h = relabelled(&g, Some(seed));
        let r = recognise(&h).unwrap();
        assert_eq!(r.found, Found::Stacked, "seed {seed}");
        let d = r.dims.len();
        let mut dims = r.dims.clone();
        dims.sort_unstable();
        assert_eq!(dims, vec![2, 3, 4, 4], "seed {seed}");
        assert_eq!(r.dims[d - 1], 4, "seed {seed}: the stacking direction");
        let layer = |u: usize| r.coords[perm[u] * d + d - 1];
        for u in 0..g.n() {
            for v in 0..g.n() {
                assert_eq!(
                    layer(u) == layer(v),
                    u / 24 == v / 24,
                    "seed {seed}: {u} {v}"
                );
            }
        }
    }
    let (hb, summary) = run_grid(&relabelled(&g, Some(1)), "torus:2x3x4:cores=4", &[]);
    let summary = summary.unwrap_or_default();
    assert!(summary.contains("stacked"), "{summary}");
    assert!(hb < gmap_hb, "{hb} against gmap's {gmap_hb}");
}

/// Gerris on 64 ranks: boxes of an adaptive quadtree moved between
/// processes by its load balancing, 2–8 partners per process, pair
/// volumes 15–571 KB. `recursive+refine` on a 4 × 4 × 4 torus, in the
/// own order and shuffled, has at most the hop-bytes and the max link
/// load of gmap's mapping of the own order.
#[test]
fn gerris_adaptive_boxes_hold_gmap_on_4x4x4_in_any_order() {
    recursive_refine_holds(
        "gerris-chan-64.mtx",
        "torus:4x4x4",
        "tests/data/scotch/gerris-chan-64@torus-4x4x4.map",
        "gmap",
        &[1],
    );
}
