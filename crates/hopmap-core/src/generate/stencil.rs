//! `stencil:A[xB[xC]]`: nearest-neighbour (halo exchange) communication on a
//! 1D, 2D or 3D logical process grid — the patterns of Balaji et al. (seed
//! 002) §2.1 and the 2D/3D nearest-neighbour benchmarks of their §4.
//!
//! * `Neighbors::Faces`: the 2·d neighbours along the axes (5-point / 7-point
//!   stencil).
//! * `Neighbors::Full`: all 3^d − 1 neighbours of the surrounding box (9- /
//!   27-point stencil), the variant Balaji's benchmarks use. Note that the
//!   paper's footnote 1 calls the diagonal-including stencil "star" and the
//!   face-only one "box" — the other way round from common usage; we avoid
//!   both names.
//! * `periodic` wraps every axis. A partner reached by several offsets (a
//!   wrapped axis of size ≤ 2) is counted once, and a process is never its
//!   own partner.
//! * Each process sends `bytes` to each partner: pair volume `2·bytes`.
//!
//! Process ids are X-fastest (`x + A·(y + B·z)`); coordinates are the grid
//! positions. Exact counts: 16×16 faces has 480 pairs, full has 930.
//!
//! Complexity: O(n · 3^d) time, O(n · 3^d) memory for the builder.

use super::{GenOptions, GridShape, Neighbors, check_edges, finish, parse_dims};
use crate::error::Result;
use crate::graph::{CommGraph, GraphBuilder};

/// The neighbour offsets of a `d`-dimensional stencil.
pub(crate) fn offsets(d: usize, neighbors: Neighbors) -> Vec<Vec<i64>> {
    let mut out = Vec::new();
    match neighbors {
        Neighbors::Faces => {
            for a in 0..d {
                for s in [-1i64, 1] {
                    let mut o = vec![0i64; d];
                    o[a] = s;
                    out.push(o);
                }
            }
        }
        Neighbors::Full => {
            let total = 3usize.pow(d as u32);
            for k in 0..total {
                let mut o = vec![0i64; d];
                let mut r = k;
                for x in o.iter_mut() {
                    *x = (r % 3) as i64 - 1;
                    r /= 3;
                }
                if o.iter().any(|&x| x != 0) {
                    out.push(o);
                }
            }
        }
    }
    out
}

/// The distinct stencil partners of every process, `partners(u)` sorted,
/// without `u` itself. Calls `f(u, partners)` for each process in id order.
pub(crate) fn for_each_partners(
    shape: &GridShape,
    neighbors: Neighbors,
    periodic: bool,
    mut f: impl FnMut(usize, &[usize]),
) {
    let d = shape.dims.len();
    let offs = offsets(d, neighbors);
    let mut c = vec![0usize; d];
    let mut t = vec![0usize; d];
    let mut partners = Vec::with_capacity(offs.len());
    for u in 0..shape.n {
        shape.coord(u, &mut c);
        partners.clear();
        for o in &offs {
            if shape.offset(&c, o, periodic, &mut t) {
                let v = shape.id(&t);
                if v != u {
                    partners.push(v);
                }
            }
        }
        partners.sort_unstable();
        partners.dedup();
        f(u, &partners);
    }
}

pub(crate) fn generate(spec: &str, args: &str, opts: &GenOptions) -> Result<CommGraph> {
    let dims = parse_dims(spec, "stencil:A[xB[xC]]", args, 1, 3)?;
    let shape = GridShape::new(&dims);
    let per = offsets(dims.len(), opts.neighbors).len();
    check_edges(spec, shape.n as u128 * per as u128 / 2)?;
    let mut b = GraphBuilder::with_capacity(shape.n, false, shape.n * per / 2);
    for_each_partners(&shape, opts.neighbors, opts.periodic, |u, ps| {
        for &v in ps {
            if v > u {
                b.add(u, v, 2.0 * opts.bytes);
            }
        }
    });
    finish(b, Some(shape.coords()))
}

#[cfg(test)]
mod tests {
    use super::super::generate as gen_spec;
    use super::*;

    fn count(spec: &str, neighbors: Neighbors, periodic: bool) -> usize {
        let o = GenOptions {
            neighbors,
            periodic,
            ..GenOptions::default()
        };
        let g = gen_spec(spec, &o).unwrap();
        assert_eq!(g.build_stats().self_loops_dropped, 0, "{spec}");
        assert_eq!(g.build_stats().duplicates_merged, 0, "{spec}");
        g.num_edges()
    }

    #[test]
    fn exact_edge_counts() {
        use Neighbors::*;
        // 1D: a path and a ring.
        assert_eq!(count("stencil:10", Faces, false), 9);
        assert_eq!(count("stencil:10", Faces, true), 10);
        assert_eq!(count("stencil:10", Full, false), 9);
        // 2D (the hand-checked numbers).
        assert_eq!(count("stencil:16x16", Faces, false), 480);
        assert_eq!(count("stencil:16x16", Full, false), 930);
        assert_eq!(count("stencil:16x16", Faces, true), 512);
        assert_eq!(count("stencil:16x16", Full, true), 1024);
        // 3D: faces 3·n − (face areas); full = n·26/2 on a torus.
        assert_eq!(
            count("stencil:4x3x2", Faces, false),
            3 * 3 * 2 + 4 * 2 * 2 + 4 * 3
        );
        assert_eq!(count("stencil:8x8x8", Faces, true), 512 * 3);
        assert_eq!(count("stencil:8x8x8", Full, true), 512 * 13);
        // 3×3×3 full, open: every pair within Chebyshev distance 1.
        // Per axis, pairs of positions at distance ≤ 1 (ordered, incl. equal):
        // 3 + 2·2 = 7; so ordered pairs 7³ − 27 self, halved.
        assert_eq!(count("stencil:3x3x3", Full, false), (343 - 27) / 2);
    }

    #[test]
    fn small_periodic_sizes_have_no_duplicates_or_self_loops() {
        use Neighbors::*;
        assert_eq!(count("stencil:2", Faces, true), 1);
        assert_eq!(count("stencil:1", Faces, true), 0);
        assert_eq!(count("stencil:2x2", Faces, true), 4);
        // 2x2 full periodic: complete graph on 4.
        assert_eq!(count("stencil:2x2", Full, true), 6);
        assert_eq!(count("stencil:1x5", Faces, true), 5);
        assert_eq!(count("stencil:2x2x2", Full, true), 28);
    }

    #[test]
    fn volumes_ids_and_coords() {
        let o = GenOptions {
            bytes: 100.0,
            ..GenOptions::default()
        };
        let g = gen_spec("stencil:4x3", &o).unwrap();
        // Process 5 is (1, 1): partners 1, 4, 6, 9.
        assert_eq!(g.neighbors(5), &[1, 4, 6, 9]);
        assert_eq!(g.sent_between(5, 6), 100.0);
        assert_eq!(g.volume(5, 6), 200.0);
        assert_eq!(g.total_bytes(), 200.0 * 17.0);
        let c = g.coords().unwrap();
        assert_eq!(c.dim, 2);
        assert_eq!(c.xyz[5], [1.0, 1.0, 0.0]);
        let g3 = gen_spec("stencil:2x2x2", &o).unwrap();
        assert_eq!(g3.coords().unwrap().dim, 3);
        assert_eq!(g3.coords().unwrap().xyz[7], [1.0, 1.0, 1.0]);
    }

    #[test]
    fn bad_specs() {
        let o = GenOptions::default();
        for bad in [
            "stencil:4x4x4x4",
            "stencil:x4",
            "stencil:-1x4",
            "stencil:4x0",
        ] {
            assert!(gen_spec(bad, &o).is_err(), "{bad}");
        }
    }
}
