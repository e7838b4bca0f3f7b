//! `recursive+refine`'s runs cut tied box dimensions in different orders
//! and keep, of runs with equal hop-bytes, the one of least max link load:
//! checked against Scotch's mapping of a real capture.

use crate::common::recursive_refine_holds;

#[test]
fn cp2k_on_2x2x4_with_4_cores_matches_gmaps_max_load_in_any_order() {
    // CP2K on 64 ranks onto a 2 × 2 × 4 torus with 4 cores per node: the
    // 2 × 2 × 2 halves tie between their three dimensions. Cut across x
    // (the lowest), each group of 16 consecutive ranks fills a 1 × 2 × 2
    // column and its own traffic loads the z-links between the two planes
    // of the half (max load 25,822,544, 1.32 × gmap's); cut z first, a
    // 2 × 2 × 1 plane, as gmap does. Both have gmap's hop-bytes.
    recursive_refine_holds(
        "cp2k-h2o-64.mtx",
        "torus:2x2x4:cores=4",
        "tests/data/scotch/cp2k-h2o-64@torus-2x2x4-cores4.map",
        "gmap",
        &[1],
    );
}
