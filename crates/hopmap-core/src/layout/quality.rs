//! Layout quality measures: the Spearman rank correlation between layout
//! distance and graph hop distance over sampled pairs (how faithfully a
//! layout recovers a mesh — the measure used to compare it with d3-force,
//! ForceAtlas2, sfdp, neato), and the ratio of mean intra-cluster to mean
//! inter-cluster distance (the two-cluster example of Bobrik & Popova §6).
//!
//! Sampling: `sources` BFS runs (O(n + m) each), `pairs / sources` random
//! targets per source, all seeded. Spearman: O(k log k) for k pairs, ties
//! get their average rank.

use crate::graph::CommGraph;
use crate::rng::Rng;

/// Spearman's rank correlation of two equally long samples (average ranks
/// for ties). Returns 0 for fewer than 2 values or a constant sample.
pub fn spearman(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    if a.len() < 2 {
        return 0.0;
    }
    let ra = ranks(a);
    let rb = ranks(b);
    pearson(&ra, &rb)
}

fn ranks(x: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..x.len()).collect();
    idx.sort_by(|&i, &j| x[i].total_cmp(&x[j]));
    let mut r = vec![0.0; x.len()];
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && x[idx[j + 1]] == x[idx[i]] {
            j += 1;
        }
        let avg = (i + j) as f64 / 2.0 + 1.0;
        for &k in &idx[i..=j] {
            r[k] = avg;
        }
        i = j + 1;
    }
    r
}

fn pearson(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len() as f64;
    let ma = a.iter().sum::<f64>() / n;
    let mb = b.iter().sum::<f64>() / n;
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (x, y) in a.iter().zip(b) {
        sab += (x - ma) * (y - mb);
        saa += (x - ma) * (x - ma);
        sbb += (y - mb) * (y - mb);
    }
    if saa == 0.0 || sbb == 0.0 {
        0.0
    } else {
        sab / (saa * sbb).sqrt()
    }
}

/// Hop distances (BFS) from `s` to every process; `u32::MAX` = unreachable.
pub fn bfs(g: &CommGraph, s: usize) -> Vec<u32> {
    let mut d = vec![u32::MAX; g.n()];
    let mut q = std::collections::VecDeque::new();
    d[s] = 0;
    q.push_back(s);
    while let Some(u) = q.pop_front() {
        for &v in g.neighbors(u) {
            if d[v as usize] == u32::MAX {
                d[v as usize] = d[u] + 1;
                q.push_back(v as usize);
            }
        }
    }
    d
}

/// About `pairs` random connected pairs `(u, v, hops)` from `sources` BFS runs.
pub fn sample_hop_pairs(
    g: &CommGraph,
    pairs: usize,
    sources: usize,
    seed: u64,
) -> Vec<(usize, usize, u32)> {
    let n = g.n();
    let mut out = Vec::with_capacity(pairs);
    if n < 2 {
        return out;
    }
    let mut rng = Rng::new(seed);
    let sources = sources.clamp(1, pairs.max(1));
    let per = pairs.div_ceil(sources);
    for _ in 0..sources {
        let s = rng.below(n);
        let d = bfs(g, s);
        for _ in 0..per {
            let t = rng.below(n);
            if t != s && d[t] != u32::MAX {
                out.push((s, t, d[t]));
            }
        }
    }
    out
}

/// Spearman correlation between layout distance and hop distance over about
/// `pairs` seeded random pairs (50 BFS sources).
pub fn hop_spearman(g: &CommGraph, pos: &[[f32; 3]], pairs: usize, seed: u64) -> f64 {
    let s = sample_hop_pairs(g, pairs, 50, seed);
    let hops: Vec<f64> = s.iter().map(|&(_, _, h)| h as f64).collect();
    let dist: Vec<f64> = s
        .iter()
        .map(|&(u, v, _)| distance(&pos[u], &pos[v]))
        .collect();
    spearman(&dist, &hops)
}

/// Euclidean distance.
#[inline]
pub fn distance(a: &[f32; 3], b: &[f32; 3]) -> f64 {
    let mut s = 0f64;
    for k in 0..3 {
        let d = (a[k] - b[k]) as f64;
        s += d * d;
    }
    s.sqrt()
}

/// Mean distance between points with the same label over mean distance
/// between points with different labels. O(n²).
pub fn intra_inter_ratio(pos: &[[f32; 3]], labels: &[u32]) -> f64 {
    let (mut si, mut ni, mut so, mut no) = (0.0, 0usize, 0.0, 0usize);
    for i in 0..pos.len() {
        for j in i + 1..pos.len() {
            let d = distance(&pos[i], &pos[j]);
            if labels[i] == labels[j] {
                si += d;
                ni += 1;
            } else {
                so += d;
                no += 1;
            }
        }
    }
    if ni == 0 || no == 0 || so == 0.0 {
        return f64::NAN;
    }
    (si / ni as f64) / (so / no as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphBuilder;

    #[test]
    fn spearman_hand_checked() {
        assert!((spearman(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]) - 1.0).abs() < 1e-12);
        assert!((spearman(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]) + 1.0).abs() < 1e-12);
        // Ranks (1,2,3,4) vs (1,3,2,4): 1 − 6·2/(4·15) = 0.8.
        assert!((spearman(&[1.0, 2.0, 3.0, 4.0], &[1.0, 3.0, 2.0, 4.0]) - 0.8).abs() < 1e-12);
        assert_eq!(ranks(&[5.0, 1.0, 5.0]), vec![2.5, 1.0, 2.5]);
    }

    #[test]
    fn bfs_and_ratio() {
        let mut b = GraphBuilder::new(4, false);
        b.add(0, 1, 1.0);
        b.add(1, 2, 1.0);
        let g = b.build().unwrap();
        assert_eq!(bfs(&g, 0), vec![0, 1, 2, u32::MAX]);
        let pos = [
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [10.0, 0.0, 0.0],
            [11.0, 0.0, 0.0],
        ];
        // intra: 1, 1; inter: 10, 11, 9, 10 → mean 10 → ratio 0.1.
        let r = intra_inter_ratio(&pos, &[0, 0, 1, 1]);
        assert!((r - 0.1).abs() < 1e-9, "{r}");
    }
}
