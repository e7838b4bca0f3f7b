//! `diagonal:AxB`: the diagonal groups of ray tracing with domain-based
//! parallelism (Balaji et al., seed 002, §2.1: "while working on one
//! particular ray, each process interacts only with other processes that share
//! data corresponding to that ray … a diagonal group of processes in a 2D
//! logical grid").
//!
//! Each process talks to every other process on its main diagonal
//! `(x+k, y+k)` and its anti-diagonal `(x+k, y−k)`. With `periodic` the
//! diagonals wrap around the grid (a toroidal diagonal of a non-square grid
//! visits `lcm(A, B)` positions, so a grid with coprime sides links
//! everything). The paper gives no sizes; each process sends `bytes` to each
//! partner (pair volume `2·bytes`). Ids are X-fastest; coordinates are the
//! grid positions.
//!
//! Complexity: O(n · (A + B)) open, O(n · lcm(A, B)) periodic.

use super::{GenOptions, GridShape, check_edges, finish, parse_dims};
use crate::error::Result;
use crate::graph::{CommGraph, GraphBuilder};

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

pub(crate) fn generate(spec: &str, args: &str, opts: &GenOptions) -> Result<CommGraph> {
    let dims = parse_dims(spec, "diagonal:AxB", args, 2, 2)?;
    let (a, b_) = (dims[0], dims[1]);
    let shape = GridShape::new(&dims);
    let n = shape.n;
    // Steps along one direction of a diagonal before returning (periodic) or
    // the longest run (open).
    let steps = if opts.periodic {
        a / gcd(a, b_) * b_
    } else {
        a.min(b_)
    };
    check_edges(spec, n as u128 * steps as u128)?;
    let mut b = GraphBuilder::new(n, false);
    let mut partners: Vec<usize> = Vec::new();
    let (ai, bi) = (a as i64, b_ as i64);
    for u in 0..n {
        let (x, y) = ((u % a) as i64, (u / a) as i64);
        partners.clear();
        if opts.periodic {
            for k in 1..steps as i64 {
                let xk = (x + k) % ai;
                partners.push((xk + ai * ((y + k) % bi)) as usize);
                partners.push((xk + ai * (y - k).rem_euclid(bi)) as usize);
            }
        } else {
            let m = ai.max(bi);
            for k in (1 - m)..m {
                let (xk, yp, ym) = (x + k, y + k, y - k);
                if k == 0 || xk < 0 || xk >= ai {
                    continue;
                }
                if (0..bi).contains(&yp) {
                    partners.push((xk + ai * yp) as usize);
                }
                if (0..bi).contains(&ym) {
                    partners.push((xk + ai * ym) as usize);
                }
            }
        }
        partners.sort_unstable();
        partners.dedup();
        for &v in &partners {
            // Every pair is seen from both ends; add it once.
            if v > u {
                b.add(u, v, 2.0 * opts.bytes);
            }
        }
    }
    finish(b, Some(shape.coords()))
}

#[cfg(test)]
mod tests {
    use super::super::generate as gen_spec;
    use super::*;

    #[test]
    fn three_by_three() {
        let g = gen_spec("diagonal:3x3", &GenOptions::default()).unwrap();
        // Main diagonals of lengths 1,2,3,2,1 give 0+1+3+1+0 pairs; same anti.
        assert_eq!(g.num_edges(), 10);
        // Centre (1,1) = 4: corners 0, 2, 6, 8.
        assert_eq!(g.neighbors(4), &[0, 2, 6, 8]);
        // Corner 0: 4 and 8 on its main diagonal only.
        assert_eq!(g.neighbors(0), &[4, 8]);
        assert_eq!(g.volume(0, 8), 2048.0);
        assert_eq!(g.build_stats().duplicates_merged, 0);
        assert!(g.coords().is_some());
    }

    #[test]
    fn rectangular_and_periodic() {
        let o = GenOptions::default();
        // 4x2: main diagonals (x-y const) lengths 1,2,2,2,1 → 3 pairs; anti same.
        assert_eq!(gen_spec("diagonal:4x2", &o).unwrap().num_edges(), 6);
        let p = GenOptions {
            periodic: true,
            ..GenOptions::default()
        };
        // 4x4 torus: 3 main + 3 anti partners, but (x+2, y+2) lies on both
        // diagonals and is counted once: degree 5, 16·5/2 pairs.
        let g = gen_spec("diagonal:4x4", &p).unwrap();
        assert_eq!(g.degree(0), 5);
        assert_eq!(g.neighbors(0), &[5, 7, 10, 13, 15]);
        assert_eq!(g.num_edges(), 40);
        // Coprime sides: a toroidal diagonal visits every process.
        let g = gen_spec("diagonal:3x4", &p).unwrap();
        assert_eq!(g.num_edges(), 12 * 11 / 2);
    }

    #[test]
    fn bad_specs() {
        let o = GenOptions::default();
        for bad in ["diagonal:4", "diagonal:4x4x4", "diagonal:0x3"] {
            assert!(gen_spec(bad, &o).is_err(), "{bad}");
        }
    }
}
