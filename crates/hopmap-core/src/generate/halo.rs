//! `halo:A[xB[xC]][:WX[,WY[,WZ]][:EXTRA]]`: a halo exchange on a 1D, 2D or
//! 3D process grid with a different volume per direction, plus optional
//! light extra traffic — the shape of real halo codes (LAMMPS bricks, PETSc
//! DMDA, structured CFD), whose subdomains are not cubes and which add FFT
//! transposes, coarse-grid or hand-written reductions on top.
//!
//! * A pair at grid offset `o` (faces, or faces + edges + corners with
//!   `neighbors = full`; `periodic` wraps every axis, as for `stencil`) has
//!   volume `2 · bytes · Π_{i : oᵢ ≠ 0} Wᵢ`: a face across direction i
//!   carries `Wᵢ`, an edge the product of its two directions' factors, a
//!   corner of all three. The factors default to 1 (then this is
//!   `stencil`).
//! * `EXTRA` (default 0): every process also sends `EXTRA ×` its halo bytes,
//!   split evenly over 4 partners drawn uniformly (seeded) among the
//!   processes that are not its grid neighbours (fewer when there are
//!   fewer such processes). Pairs drawn twice add up.
//!
//! Ids are X-fastest; coordinates are the grid positions. Complexity:
//! O(n · 3^d) time and memory, plus O(n) expected draws for the extras.

use super::stencil::{for_each_partners, offsets};
use super::{GenOptions, GridShape, check_edges, finish, parse_dims, parse_number, spec_err};
use crate::error::Result;
use crate::graph::{CommGraph, GraphBuilder};
use crate::rng::Rng;

/// Extra partners drawn per process.
const EXTRA_PARTNERS: usize = 4;

pub(crate) fn generate(spec: &str, args: &str, opts: &GenOptions) -> Result<CommGraph> {
    let syntax = "halo:A[xB[xC]][:WX[,WY[,WZ]][:EXTRA]]";
    let mut parts = args.splitn(3, ':');
    let dims = parse_dims(spec, syntax, parts.next().unwrap_or(""), 1, 3)?;
    let d = dims.len();
    let mut w = vec![1.0; d];
    if let Some(ws) = parts.next().filter(|s| !s.trim().is_empty()) {
        let items: Vec<&str> = ws.split(',').collect();
        if items.len() > d {
            return Err(spec_err(
                spec,
                format!("{} factors given for a {d}-dimensional grid", items.len()),
            ));
        }
        for (i, s) in items.iter().enumerate() {
            let v = parse_number(spec, "a direction factor", s)?;
            if !(v > 0.0 && v <= 1e6) {
                return Err(spec_err(
                    spec,
                    format!("direction factors must be above 0 and at most 1e6, found {v}"),
                ));
            }
            w[i] = v;
        }
    }
    let extra = match parts.next() {
        Some(s) => parse_number(spec, "EXTRA", s)?,
        None => 0.0,
    };
    if !(0.0..=1e3).contains(&extra) {
        return Err(spec_err(
            spec,
            format!("EXTRA must be between 0 and 1000, found {extra}"),
        ));
    }
    let shape = GridShape::new(&dims);
    let n = shape.n;
    let per = offsets(d, opts.neighbors).len();
    check_edges(spec, n as u128 * (per + EXTRA_PARTNERS) as u128)?;
    let mut b = GraphBuilder::with_capacity(n, false, n * (per + EXTRA_PARTNERS));
    let mut halo_sent = vec![0.0; n];
    let mut cu = vec![0usize; d];
    let mut cv = vec![0usize; d];
    let mut partners: Vec<Vec<usize>> = vec![Vec::new(); n];
    for_each_partners(&shape, opts.neighbors, opts.periodic, |u, ps| {
        shape.coord(u, &mut cu);
        for &v in ps {
            shape.coord(v, &mut cv);
            let f: f64 = (0..d).filter(|&i| cu[i] != cv[i]).map(|i| w[i]).product();
            let bytes = opts.bytes * f;
            halo_sent[u] += bytes;
            if v > u {
                b.add(u, v, 2.0 * bytes);
            }
        }
        partners[u] = ps.to_vec();
    });
    if extra > 0.0 {
        let mut rng = Rng::new(opts.seed);
        for u in 0..n {
            let others = n - 1 - partners[u].len();
            let k = EXTRA_PARTNERS.min(others);
            if k == 0 {
                continue;
            }
            let each = extra * halo_sent[u] / k as f64;
            let mut drawn = 0;
            while drawn < k {
                let v = rng.below(n);
                if v == u || partners[u].binary_search(&v).is_ok() {
                    continue;
                }
                b.add(u, v, each);
                drawn += 1;
            }
        }
    }
    finish(b, Some(shape.coords()))
}

#[cfg(test)]
mod tests {
    use super::super::{GenOptions, Neighbors, generate};

    #[test]
    fn volumes_follow_the_direction_factors() {
        let o = GenOptions {
            bytes: 100.0,
            ..GenOptions::default()
        };
        let g = generate("halo:4x3:1,0.5", &o).unwrap();
        // Process 5 is (1, 1): x partners 4, 6; y partners 1, 9.
        assert_eq!(g.volume(5, 6), 200.0);
        assert_eq!(g.volume(5, 9), 100.0);
        // 9 x-pairs of 200 and 8 y-pairs of 100.
        assert_eq!(g.total_bytes(), 9.0 * 200.0 + 8.0 * 100.0);
        let f = GenOptions {
            bytes: 100.0,
            neighbors: Neighbors::Full,
            ..GenOptions::default()
        };
        let g = generate("halo:3x3x3:1,0.5,0.5", &f).unwrap();
        // Centre 13 and corner 0 differ in all three directions.
        assert_eq!(g.volume(13, 0), 2.0 * 100.0 * 0.25);
        assert_eq!(g.volume(13, 12), 200.0);
        assert_eq!(g.volume(13, 10), 100.0);
    }

    #[test]
    fn extra_traffic_goes_to_non_neighbours_with_the_given_share() {
        let o = GenOptions {
            periodic: true,
            ..GenOptions::default()
        };
        let plain = generate("halo:6x6:1,0.5", &o).unwrap();
        let g = generate("halo:6x6:1,0.5:0.1", &o).unwrap();
        let share = (g.total_bytes() - plain.total_bytes()) / plain.total_bytes();
        assert!((share - 0.1).abs() < 1e-9, "{share}");
        for (u, v, _) in g.pairs() {
            if plain.volume(u, v) == 0.0 {
                // An extra pair is never a halo pair.
                assert!(plain.neighbors(u).binary_search(&(v as u32)).is_err());
            }
        }
        assert!(generate("halo:6x6:1,2,3", &o).is_err());
        assert!(generate("halo:6x6:0", &o).is_err());
        assert!(generate("halo:6x6:1:-1", &o).is_err());
    }
}
