//! Exact bisection of a tiny graph by enumeration: every one of the 2^n
//! side assignments is visited, half of them in Gray-code order (each
//! differs from the previous one by a single vertex, so its weight and cost
//! follow in O(deg) from the last) and the other half as their complements
//! (same cut), and the best is kept by the same rule as
//! [`super::bisect()`]'s runs: inside the weight window first (else the
//! closest to it), then the smallest `cut + bias`. Costs equal up to a
//! relative 10^-9 are ties, broken by a seeded random order of the
//! assignments, so different seeds may pick different optimal cuts (as the
//! multilevel heuristic's seeded growing does).
//!
//! On a few vertices this is cheaper than the heuristic it replaces
//! (several grown cuts, each refined by Fiduccia–Mattheyses), and never
//! worse: O(2^(n-1) · m / n) against O(tries · passes · m log n), with n ≤
//! [`super::BisectParams::exact`].

use super::WGraph;
use crate::rng::Rng;

/// Most vertices the exact bisection accepts (2^(n-1) steps; 2^15 at most).
pub const EXACT_MAX: usize = 16;

/// How far side 0's weight `w0` lies outside the window `[lo, hi]`.
fn outside(w0: f64, lo: f64, hi: f64) -> f64 {
    if w0 < lo {
        lo - w0
    } else if w0 > hi {
        w0 - hi
    } else {
        0.0
    }
}

/// The best side assignment of `g` (n ≤ [`EXACT_MAX`]) for the window
/// `[lo, hi]` of side 0's weight and the per-vertex side costs `bias`.
pub(super) fn exact_bisect(g: &WGraph, bias: &[[f64; 2]], lo: f64, hi: f64, seed: u64) -> Vec<u8> {
    let n = g.n();
    debug_assert!(n <= EXACT_MAX);
    if n == 0 {
        return Vec::new();
    }
    let dist = |w0: f64| outside(w0, lo, hi);
    let full: u32 = (1u32 << n) - 1;
    let order = Rng::new(seed ^ 0x0065_7861_6374).next_u64() as u32 & full;
    let total: f64 = g.vw.iter().sum();
    let bias_all: f64 = bias.iter().map(|b| b[0] + b[1]).sum();
    // The last vertex stays on side 0; each visited assignment also stands
    // for its complement (same cut, the other bias of every vertex, the
    // other side's weight), so 2^(n-1) steps cover all 2^n.
    let mut side = vec![0u8; n];
    let mut w0 = total;
    let mut cut = 0.0;
    let mut b = bias.iter().map(|b| b[0]).sum::<f64>();
    let mut mask = 0u32;
    let mut best: Option<(f64, f64, u32)> = None;
    let mut consider = |d: f64, cost: f64, mask: u32| {
        let better = match best {
            None => true,
            Some((bd, bc, bm)) => {
                if d < bd - 1e-9 {
                    true
                } else if d > bd + 1e-9 {
                    false
                } else {
                    let eps = 1e-9 * bc.abs().max(1.0);
                    cost < bc - eps || (cost <= bc + eps && (mask ^ order) < (bm ^ order))
                }
            }
        };
        if better {
            best = Some((d, cost, mask));
        }
    };
    let half = 1u32 << (n - 1);
    for i in 0..half {
        if i > 0 {
            let v = i.trailing_zeros() as usize;
            let s = side[v] as usize;
            // Flip v from s to 1 - s.
            b += bias[v][1 - s] - bias[v][s];
            for (x, w) in g.edges(v) {
                if side[x] as usize == s {
                    cut += w;
                } else {
                    cut -= w;
                }
            }
            side[v] = 1 - s as u8;
            w0 += if s == 0 { -g.vw[v] } else { g.vw[v] };
            mask ^= 1 << v;
        }
        consider(dist(w0), cut + b, mask);
        consider(dist(total - w0), cut + (bias_all - b), mask ^ full);
    }
    let best = best.map_or(0, |b| b.2);
    (0..n).map(|v| (best >> v & 1) as u8).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The best assignment by brute force, each cost computed from scratch.
    fn brute(g: &WGraph, bias: &[[f64; 2]], lo: f64, hi: f64) -> (f64, f64) {
        let n = g.n();
        let mut best = (f64::INFINITY, f64::INFINITY);
        for m in 0u32..1 << n {
            let s = |v: usize| (m >> v & 1) as usize;
            let w0: f64 = (0..n).filter(|&v| s(v) == 0).map(|v| g.vw[v]).sum();
            let d = outside(w0, lo, hi);
            let mut c: f64 = (0..n).map(|v| bias[v][s(v)]).sum();
            for u in 0..n {
                for (v, w) in g.edges(u) {
                    if v > u && s(u) != s(v) {
                        c += w;
                    }
                }
            }
            if d < best.0 || (d == best.0 && c < best.1) {
                best = (d, c);
            }
        }
        best
    }

    fn cost_of(g: &WGraph, bias: &[[f64; 2]], side: &[u8]) -> f64 {
        let mut c: f64 = (0..g.n()).map(|v| bias[v][side[v] as usize]).sum();
        for u in 0..g.n() {
            for (v, w) in g.edges(u) {
                if v > u && side[u] != side[v] {
                    c += w;
                }
            }
        }
        c
    }

    #[test]
    fn a_path_of_four_is_cut_in_the_middle() {
        // 0-1 (5), 1-2 (1), 2-3 (5): the balanced cut of least weight is {0,1}|{2,3}.
        let g = WGraph::from_edges(vec![1.0; 4], &[(0, 1, 5.0), (1, 2, 1.0), (2, 3, 5.0)]);
        let bias = [[0.0; 2]; 4];
        for seed in 0..8 {
            let s = exact_bisect(&g, &bias, 2.0, 2.0, seed);
            assert!(s == [0, 0, 1, 1] || s == [1, 1, 0, 0], "{s:?}");
        }
        // A bias on vertex 0 for side 1 decides which of the two.
        let bias = [[1.0, 0.0], [0.0; 2], [0.0; 2], [0.0; 2]];
        assert_eq!(exact_bisect(&g, &bias, 2.0, 2.0, 3), [1, 1, 0, 0]);
    }

    #[test]
    fn matches_brute_force_on_random_graphs() {
        let mut rng = Rng::new(11);
        for n in 1..=9usize {
            for _ in 0..20 {
                let mut e = Vec::new();
                for u in 0..n as u32 {
                    for v in u + 1..n as u32 {
                        if rng.below(3) == 0 {
                            e.push((u, v, 1.0 + rng.below(5) as f64));
                        }
                    }
                }
                let vw: Vec<f64> = (0..n).map(|_| 1.0 + rng.below(2) as f64).collect();
                let g = WGraph::from_edges(vw, &e);
                let bias: Vec<[f64; 2]> = (0..n)
                    .map(|_| [rng.below(4) as f64, rng.below(4) as f64])
                    .collect();
                let total = g.total_weight();
                let (lo, hi) = ((total / 2.0).floor(), (total / 2.0).ceil());
                let side = exact_bisect(&g, &bias, lo, hi, rng.next_u64());
                let w0: f64 = (0..n).filter(|&v| side[v] == 0).map(|v| g.vw[v]).sum();
                let d = outside(w0, lo, hi);
                let (bd, bc) = brute(&g, &bias, lo, hi);
                assert_eq!(d, bd, "n {n}");
                assert!((cost_of(&g, &bias, &side) - bc).abs() < 1e-9, "n {n}");
            }
        }
    }
}
