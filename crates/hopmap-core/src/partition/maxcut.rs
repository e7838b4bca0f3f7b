//! Kernighan–Lin bisection for the **largest** cut cost on a complete graph
//! of distances, the network half of Moh et al.'s BM (§4.2, step 3): split
//! the processors so that the pairs separated by the cut are as expensive
//! (far apart in the routing topology) as possible, i.e. cheap pairs stay
//! together.
//!
//! Vertices come in *groups* of interchangeable vertices at distance 0 from
//! each other (the member processors of one switch: Moh's cost matrix M'_p
//! has 0 inside a switch). The state is a count per group and side, and the
//! cut cost is
//!
//! `cut = Σ_{i,j} d(i, j) · n₀(i) · n₁(j)`.
//!
//! Moving one vertex of group `i` from side 0 to side 1 changes it by
//! `C₀(i) − C₁(i)`, with `C_s(i) = Σ_j d(i, j) · n_s(j)`; both sums are kept
//! up to date in O(g) per move (g groups).
//!
//! A pass is Kernighan–Lin's: repeatedly swap the unlocked vertex of best
//! gain on side 0 with the then best unlocked vertex on side 1 (the gain of
//! the second counted after the first has moved, so the pair's gain is
//! exact: `g_a + g_b − 2 d(a, b)`), lock both, and remember the prefix of
//! swaps with the largest total gain; then undo the swaps after that
//! prefix. Passes repeat while one gains. Sizes never change (swaps), so
//! the caller's initial partition fixes the balance. As in Fiduccia and
//! Mattheyses' variant, a pass stops early after a run of swaps without a
//! new best ([`KlParams::patience`]).
//!
//! Cost: O(passes · swaps · g); swaps ≤ min(|side 0|, |side 1|).
//! Deterministic: ties go to the lower group index.

/// Settings of [`kl_max_cut`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KlParams {
    /// At most this many passes.
    pub passes: usize,
    /// A pass stops after this many swaps without a new best prefix.
    pub patience: usize,
}

impl Default for KlParams {
    fn default() -> Self {
        KlParams {
            passes: 8,
            patience: 64,
        }
    }
}

/// The result of [`kl_max_cut`].
#[derive(Clone, Debug, PartialEq)]
pub struct MaxCut {
    /// Vertices of each group on side 0 (the rest are on side 1).
    pub side0: Vec<u32>,
    /// The cut cost of the initial partition and of the result.
    pub initial: f64,
    pub cost: f64,
    /// Passes run and swaps kept.
    pub passes: usize,
    pub swaps: usize,
}

/// Improve the partition `side0` (vertices of each group on side 0, at most
/// `size[i]`) of groups of sizes `size` under distances `d(i, j)` (symmetric,
/// `d(i, i) = 0`) towards the largest cut cost. O(g²) to start, then see the
/// module doc.
pub fn kl_max_cut(
    size: &[u32],
    side0: &[u32],
    d: impl Fn(usize, usize) -> f64,
    params: &KlParams,
) -> MaxCut {
    let g = size.len();
    let mut n0: Vec<u32> = side0.iter().zip(size).map(|(&a, &s)| a.min(s)).collect();
    let mut n1: Vec<u32> = size.iter().zip(&n0).map(|(&s, &a)| s - a).collect();
    let mut c0 = vec![0.0f64; g];
    let mut c1 = vec![0.0f64; g];
    for i in 0..g {
        if n0[i] == 0 && n1[i] == 0 {
            continue;
        }
        for j in 0..g {
            let dij = d(j, i);
            c0[j] += dij * n0[i] as f64;
            c1[j] += dij * n1[i] as f64;
        }
    }
    let cut = |c1: &[f64], n0: &[u32]| -> f64 { (0..g).map(|i| n0[i] as f64 * c1[i]).sum() };
    let initial = cut(&c1, &n0);
    // Move one vertex of group i from side `from` to the other side.
    let mv =
        |i: usize, from: usize, n0: &mut [u32], n1: &mut [u32], c0: &mut [f64], c1: &mut [f64]| {
            let (cf, ct) = if from == 0 {
                n0[i] -= 1;
                n1[i] += 1;
                (c0, c1)
            } else {
                n1[i] -= 1;
                n0[i] += 1;
                (c1, c0)
            };
            for j in 0..g {
                let dij = d(j, i);
                cf[j] -= dij;
                ct[j] += dij;
            }
        };
    let total0: u32 = n0.iter().sum();
    let total1: u32 = n1.iter().sum();
    let max_swaps = total0.min(total1) as usize;
    let mut passes = 0;
    let mut kept = 0;
    let eps = 1e-9 * initial.abs().max(1.0);
    while passes < params.passes && max_swaps > 0 {
        passes += 1;
        // Unlocked vertices per group and side.
        let mut free0 = n0.clone();
        let mut free1 = n1.clone();
        let mut swaps: Vec<(usize, usize)> = Vec::new();
        let (mut sum, mut best, mut best_len) = (0.0f64, 0.0f64, 0usize);
        while swaps.len() < max_swaps && swaps.len() - best_len <= params.patience {
            let pick = |free: &[u32], a: &[f64], b: &[f64]| {
                let mut out: Option<(f64, usize)> = None;
                for i in 0..g {
                    if free[i] > 0 {
                        let gain = a[i] - b[i];
                        if out.is_none_or(|(bg, _)| gain > bg) {
                            out = Some((gain, i));
                        }
                    }
                }
                out
            };
            let Some((ga, a)) = pick(&free0, &c0, &c1) else {
                break;
            };
            free0[a] -= 1;
            mv(a, 0, &mut n0, &mut n1, &mut c0, &mut c1);
            let Some((gb, b)) = pick(&free1, &c1, &c0) else {
                // Cannot happen with equal free counts; undo to stay balanced.
                mv(a, 1, &mut n0, &mut n1, &mut c0, &mut c1);
                break;
            };
            free1[b] -= 1;
            mv(b, 1, &mut n0, &mut n1, &mut c0, &mut c1);
            swaps.push((a, b));
            sum += ga + gb;
            if sum > best + eps {
                best = sum;
                best_len = swaps.len();
            }
        }
        // Undo the swaps after the best prefix.
        for &(a, b) in swaps[best_len..].iter().rev() {
            mv(b, 0, &mut n0, &mut n1, &mut c0, &mut c1);
            mv(a, 1, &mut n0, &mut n1, &mut c0, &mut c1);
        }
        kept += best_len;
        if best_len == 0 {
            break;
        }
    }
    let cost = cut(&c1, &n0);
    MaxCut {
        side0: n0,
        initial,
        cost,
        passes,
        swaps: kept,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force over every split with the same side-0 count.
    fn brute(size: &[u32], k0: u32, d: &dyn Fn(usize, usize) -> f64) -> f64 {
        fn rec(
            i: usize,
            left: u32,
            size: &[u32],
            cur: &mut Vec<u32>,
            d: &dyn Fn(usize, usize) -> f64,
            best: &mut f64,
        ) {
            if i == size.len() {
                if left == 0 {
                    let mut c = 0.0;
                    for a in 0..size.len() {
                        for b in 0..size.len() {
                            c += d(a, b) * cur[a] as f64 * (size[b] - cur[b]) as f64;
                        }
                    }
                    *best = best.max(c);
                }
                return;
            }
            for x in 0..=size[i].min(left) {
                cur.push(x);
                rec(i + 1, left - x, size, cur, d, best);
                cur.pop();
            }
        }
        let mut best = f64::MIN;
        rec(0, k0, size, &mut Vec::new(), d, &mut best);
        best
    }

    #[test]
    fn two_far_clusters_are_cut_between_them() {
        // Groups 0,1 close (1 apart), 2,3 close; the clusters 5 apart.
        // Start with the worst split {0,2} | {1,3}.
        let pos: [f64; 4] = [0.0, 1.0, 10.0, 11.0];
        let d = |i: usize, j: usize| f64::min((pos[i] - pos[j]).abs(), 5.0);
        let r = kl_max_cut(&[1, 1, 1, 1], &[1, 0, 1, 0], d, &KlParams::default());
        assert_eq!(r.initial, 1.0 + 5.0 + 5.0 + 1.0);
        assert_eq!(r.cost, 20.0);
        assert!(r.side0 == vec![1, 1, 0, 0] || r.side0 == vec![0, 0, 1, 1]);
    }

    #[test]
    fn groups_stay_whole_when_that_pays() {
        // Three switches of 2, 2, 4 members; the 4 far from the others.
        let d = |i: usize, j: usize| -> f64 {
            if i == j {
                0.0
            } else if i == 2 || j == 2 {
                3.0
            } else {
                1.0
            }
        };
        let r = kl_max_cut(&[2, 2, 4], &[2, 0, 2], d, &KlParams::default());
        assert_eq!(r.side0.iter().sum::<u32>(), 4);
        assert_eq!(r.cost, brute(&[2, 2, 4], 4, &d));
        assert!(r.cost >= r.initial);
    }

    #[test]
    fn never_worse_than_the_start_and_keeps_the_sizes() {
        let mut rng = crate::rng::Rng::new(7);
        for _ in 0..50 {
            let g = 2 + rng.below(5);
            let size: Vec<u32> = (0..g).map(|_| 1 + rng.below(3) as u32).collect();
            let dm: Vec<f64> = (0..g * g).map(|_| rng.below(5) as f64).collect();
            let d = |i: usize, j: usize| {
                if i == j {
                    0.0
                } else {
                    dm[i.min(j) * g + i.max(j)]
                }
            };
            let init: Vec<u32> = size
                .iter()
                .map(|&s| rng.below(s as usize + 1) as u32)
                .collect();
            let r = kl_max_cut(&size, &init, d, &KlParams::default());
            assert!(r.cost >= r.initial - 1e-9);
            assert_eq!(
                r.side0.iter().sum::<u32>(),
                init.iter().sum::<u32>(),
                "{size:?} {init:?}"
            );
            assert!(r.side0.iter().zip(&size).all(|(a, s)| a <= s));
            let k0 = init.iter().sum();
            assert!(r.cost <= brute(&size, k0, &d) + 1e-9);
        }
    }
}
