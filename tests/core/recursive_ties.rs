//! `recursive+refine`'s runs cut tied box dimensions in different orders
//! and polish, of runs within 0.5 % of the least hop-bytes, the one of
//! least max link load: checked against Scotch's mappings of real captures.

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

#[test]
fn superlu_on_4x6x6_holds_gmaps_max_load_in_its_own_order() {
    // SuperLU_DIST's 12 × 12 process grid (rows and columns of 12 are
    // cliques of uneven pairs) on a 4 × 6 × 6 torus: the runs of
    // `recursive+refine` end within 0.5 % of each other in hop-bytes but
    // up to 16 % apart in max link load. Polishing the least hop-bytes
    // kept 14,937,740 in the own order, 1.09 × gmap's 13,720,868;
    // polishing the run of least max load among those within 0.5 % of the
    // least hop-bytes: 11,964,500 (0.87 ×), at 0.93 × gmap's hop-bytes.
    recursive_refine_holds(
        "petsc-superlu-144.mtx",
        "torus:4x6x6",
        "tests/data/scotch/petsc-superlu-144@torus-4x6x6.map",
        "gmap",
        &[],
    );
}
