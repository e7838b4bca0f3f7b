//! `random-geometric:N:DEG`: a random geometric graph — N points uniform
//! (seeded) in the unit square, every pair closer than a radius `r` linked.
//! `r` is chosen so that the *expected* mean degree is DEG, boundary effects
//! included: a disc of radius `r ≤ 1` centred at a uniform point of the unit
//! square covers on average `π r² − 8 r³/3 + r⁴/2` of it, so
//! `(N − 1)(π r² − 8 r³/3 + r⁴/2) = DEG`, solved by bisection. (A general
//! irregular graph with geometry, not from the seeds; DEG must stay below
//! 0.9·(N − 1) so that `r ≤ 1`.)
//!
//! Each process sends `bytes` to each partner (pair volume `2·bytes`).
//! Coordinates are the points; ids are in generation order (no locality —
//! a meaningful default mapping needs a geometric mapper).
//!
//! Complexity: O(N + m) expected time with a bucket grid of cell size ≥ r
//! (each point scans its 3×3 cells).

use super::{GenOptions, check_edges, finish, parse_count, parse_number, spec_err};
use crate::error::Result;
use crate::graph::{CommGraph, Coords, GraphBuilder};
use crate::rng::Rng;

/// The radius whose expected mean degree over `n` uniform points is `deg`.
pub(crate) fn radius(n: usize, deg: f64) -> f64 {
    let target = deg / (n as f64 - 1.0);
    let area = |r: f64| std::f64::consts::PI * r * r - 8.0 / 3.0 * r * r * r + 0.5 * r.powi(4);
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if area(mid) < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

pub(crate) fn generate(spec: &str, args: &str, opts: &GenOptions) -> Result<CommGraph> {
    let syntax = "random-geometric:N:DEG";
    let Some((n_s, deg_s)) = args.split_once(':') else {
        return Err(spec_err(
            spec,
            format!("expected `{syntax}`, found no `:DEG` in `{args}`"),
        ));
    };
    let n = parse_count(spec, "N", n_s)?;
    let deg = parse_number(spec, "DEG", deg_s)?;
    let max_deg = 0.9 * (n as f64 - 1.0);
    if !(deg > 0.0 && deg <= max_deg) {
        return Err(spec_err(
            spec,
            format!("DEG must be above 0 and at most 0.9·(N − 1) = {max_deg}, found {deg}"),
        ));
    }
    check_edges(spec, (n as f64 * deg * 0.6) as u128)?;
    let r = radius(n, deg);
    let mut rng = Rng::new(opts.seed);
    let pts: Vec<[f64; 2]> = (0..n).map(|_| [rng.f64(), rng.f64()]).collect();
    // Bucket grid: m×m cells of side 1/m ≥ r.
    let m = ((1.0 / r).floor() as usize).clamp(1, 1 + 2 * (n as f64).sqrt() as usize);
    let cell = |p: &[f64; 2]| {
        let cx = ((p[0] * m as f64) as usize).min(m - 1);
        let cy = ((p[1] * m as f64) as usize).min(m - 1);
        cx + m * cy
    };
    let mut start = vec![0usize; m * m + 1];
    for p in &pts {
        start[cell(p) + 1] += 1;
    }
    for c in 0..m * m {
        start[c + 1] += start[c];
    }
    let mut fill = start.clone();
    let mut members = vec![0u32; n];
    for (i, p) in pts.iter().enumerate() {
        let c = cell(p);
        members[fill[c]] = i as u32;
        fill[c] += 1;
    }
    let r2 = r * r;
    let mut b = GraphBuilder::with_capacity(n, false, (n as f64 * deg * 0.55) as usize);
    for (u, p) in pts.iter().enumerate() {
        let c = cell(p);
        let (cx, cy) = (c % m, c / m);
        for ny in cy.saturating_sub(1)..=(cy + 1).min(m - 1) {
            for nx in cx.saturating_sub(1)..=(cx + 1).min(m - 1) {
                let k = nx + m * ny;
                for &v in &members[start[k]..start[k + 1]] {
                    let v = v as usize;
                    if v > u {
                        let q = &pts[v];
                        let d2 = (p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2);
                        if d2 <= r2 {
                            b.add(u, v, 2.0 * opts.bytes);
                        }
                    }
                }
            }
        }
    }
    let coords = Coords::new(2, pts.iter().map(|p| [p[0], p[1], 0.0]).collect());
    finish(b, Some(coords))
}

#[cfg(test)]
mod tests {
    use super::super::generate as gen_spec;
    use super::*;

    fn opts(seed: u64) -> GenOptions {
        GenOptions {
            seed,
            ..GenOptions::default()
        }
    }

    #[test]
    fn matches_brute_force() {
        for (n, deg) in [(300usize, 6.0), (50, 20.0), (40, 1.0)] {
            let g = gen_spec(&format!("random-geometric:{n}:{deg}"), &opts(11)).unwrap();
            let r = radius(n, deg);
            let c = g.coords().unwrap();
            let mut expect = 0;
            for u in 0..n {
                for v in u + 1..n {
                    let d2 =
                        (c.xyz[u][0] - c.xyz[v][0]).powi(2) + (c.xyz[u][1] - c.xyz[v][1]).powi(2);
                    let linked = g.volume(u, v) > 0.0;
                    assert_eq!(linked, d2 <= r * r, "{n} {u} {v}");
                    expect += linked as usize;
                }
            }
            assert_eq!(g.num_edges(), expect);
        }
    }

    #[test]
    fn mean_degree_close_to_target() {
        let g = gen_spec("random-geometric:5000:8", &opts(1)).unwrap();
        let mean = 2.0 * g.num_edges() as f64 / 5000.0;
        assert!((mean - 8.0).abs() < 0.5, "mean degree {mean}");
        for p in &g.coords().unwrap().xyz {
            assert!((0.0..1.0).contains(&p[0]) && (0.0..1.0).contains(&p[1]));
        }
    }

    #[test]
    fn seeded() {
        let a = gen_spec("random-geometric:200:5", &opts(2)).unwrap();
        let b = gen_spec("random-geometric:200:5", &opts(2)).unwrap();
        let c = gen_spec("random-geometric:200:5", &opts(3)).unwrap();
        assert_eq!(a.targets(), b.targets());
        assert_eq!(a.coords(), b.coords());
        assert_ne!(a.coords(), c.coords());
    }

    #[test]
    fn bad_specs() {
        let o = opts(0);
        for bad in [
            "random-geometric:100",
            "random-geometric:100:0",
            "random-geometric:100:-3",
            "random-geometric:100:95",
            "random-geometric:1:1",
            "random-geometric:0:1",
            "random-geometric:x:1",
        ] {
            assert!(gen_spec(bad, &o).is_err(), "{bad}");
        }
    }
}
