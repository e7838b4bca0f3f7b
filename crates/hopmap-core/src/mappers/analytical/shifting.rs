//! Bins and process shifting (Wu et al. §3.3 and §3.3.2).
//!
//! Bins: node `(i, j, k)` owns the unit cube centred on it; Φ lies in the
//! box `[−½, X−½] × …`. A point's bin is its rounded, clamped coordinates;
//! the *workload* of a bin is the number of items in it, and Φ is
//! almost-legal when every workload is at most γ (γ·cores without grouping).
//!
//! Shifting, one dimension at a time (the paper: "we group the cubic bins into
//! Y × Z sets … resize the segments into unequal lengths according to their
//! workloads … shifted proportionally"). The paper refers to Sect. V of its
//! ref. \[37\] (FastPlace) for the resizing rule; we use FastPlace's cell
//! shifting: with old boundaries `OB_j = j − ½` and utilisations
//! `U_j = w_j / ū` (ū = items per node on average), the boundary between
//! bins `j−1` and `j` moves to
//!
//! `NB_j = (OB_{j−1} (U_j + δ) + OB_{j+1} (U_{j−1} + δ)) / (U_{j−1} + U_j + 2δ)`,
//!
//! δ = 1.5 (FastPlace's value), the two outer boundaries stay, and every
//! item of bin `j` maps linearly from `[OB_j, OB_{j+1}]` to `[NB_j, NB_{j+1}]`,
//! so the order of the items along each row is kept. All dimensions use the
//! workloads measured before any of them is shifted.
//!
//! That is [`shift`] (`shift_mu=0`). The default is
//! [`shift_proportional`] (segments sized in proportion to their
//! workloads, μ = 0.5), which resolves clumps of several heavy bins that
//! FastPlace's local rule only loosens at their edges (figures there).
//!
//! Cost O(N · D + bins · D) per iteration. Memory O(N + bins).

use crate::topology::Grid;

/// FastPlace's δ.
pub const DELTA: f64 = 1.5;

/// The bin (node id) of a point.
#[inline]
pub fn bin_of(grid: &Grid, x: &[f64]) -> usize {
    let mut id = 0;
    for (d, &k) in grid.dims().iter().enumerate() {
        let c = x[d].round().clamp(0.0, (k - 1) as f64) as usize;
        id += c * grid.strides()[d];
    }
    id
}

/// Workload of every bin; returns the maximum.
pub fn workloads(grid: &Grid, phi: &[f64], weights: &[u32], out: &mut Vec<u32>) -> u32 {
    let nd = grid.ndims();
    out.clear();
    out.resize(grid.num_nodes(), 0);
    for (i, x) in phi.chunks_exact(nd).enumerate() {
        out[bin_of(grid, x)] += weights[i];
    }
    out.iter().copied().max().unwrap_or(0)
}

/// Shift every item (rows of `phi`, items × D) into `target` by the
/// workloads `w` (per bin). `mean` is the average workload ū.
pub fn shift(grid: &Grid, phi: &[f64], w: &[u32], mean: f64, delta: f64, target: &mut [f64]) {
    let nd = grid.ndims();
    target.copy_from_slice(phi);
    let mean = mean.max(1e-9);
    let mut nb: Vec<f64> = Vec::new();
    for d in 0..nd {
        let k = grid.dims()[d] as usize;
        if k < 2 {
            continue;
        }
        let stride = grid.strides()[d];
        // New boundaries for every row along d: rows × (k + 1).
        let rows = grid.num_nodes() / k;
        nb.clear();
        nb.resize(rows * (k + 1), 0.0);
        // Enumerate rows by their first node: nodes with coordinate d = 0.
        let mut row_of_first = Vec::with_capacity(rows);
        for node in 0..grid.num_nodes() {
            if (node / stride).is_multiple_of(k) {
                row_of_first.push(node);
            }
        }
        for (r, &first) in row_of_first.iter().enumerate() {
            let b = &mut nb[r * (k + 1)..(r + 1) * (k + 1)];
            b[0] = -0.5;
            b[k] = k as f64 - 0.5;
            for j in 1..k {
                let u0 = w[first + (j - 1) * stride] as f64 / mean;
                let u1 = w[first + j * stride] as f64 / mean;
                let left = (j - 1) as f64 - 0.5;
                let right = (j + 1) as f64 - 0.5;
                b[j] = (left * (u1 + delta) + right * (u0 + delta)) / (u0 + u1 + 2.0 * delta);
            }
        }
        // Row index of a node: its id with coordinate d removed.
        for (i, x) in phi.chunks_exact(nd).enumerate() {
            let node = bin_of(grid, x);
            let low = node % stride;
            let high = node / (stride * k);
            let r = low + stride * high;
            let j = (node / stride) % k;
            let b = &nb[r * (k + 1)..(r + 1) * (k + 1)];
            let xc = x[d].clamp(-0.5, k as f64 - 0.5);
            let t = xc - (j as f64 - 0.5);
            target[i * nd + d] = b[j] + t * (b[j + 1] - b[j]);
        }
    }
}

/// Proportional shifting (`shifting=proportional`, the default; the
/// paper's "resize the segments ... according to their workloads" read
/// literally): along each row, segment `j` gets the length
/// `(1 − μ) + μ · k · w_j / W` (W = the row's items, k its bins), so at
/// μ = 1 every row ends with an even density; the items of each segment map
/// linearly onto it (order kept). The dimensions are shifted one after the
/// other, each on the workloads of the previous dimension's result (a row's
/// total then reflects what the earlier passes already evened out). A row
/// without items stays.
///
/// Why: with FastPlace's local rule a boundary moves at most to the middle
/// of its neighbours, so a clump of several heavy bins only loosens at its
/// edges; global mapping stalled with empty bins beside over-full ones, and
/// legalization then doubled the hop-bytes (`docs/benchmarks.md`).
pub fn shift_proportional(grid: &Grid, phi: &[f64], mu: f64, target: &mut [f64]) {
    let nd = grid.ndims();
    target.copy_from_slice(phi);
    let mut w: Vec<u32> = Vec::new();
    let mut nb: Vec<f64> = Vec::new();
    let mut cur = phi.to_vec();
    for d in 0..nd {
        let k = grid.dims()[d] as usize;
        if k < 2 {
            continue;
        }
        w.clear();
        w.resize(grid.num_nodes(), 0);
        for x in cur.chunks_exact(nd) {
            w[bin_of(grid, x)] += 1;
        }
        let stride = grid.strides()[d];
        let rows = grid.num_nodes() / k;
        nb.clear();
        nb.resize(rows * (k + 1), 0.0);
        let mut r = 0;
        for node in 0..grid.num_nodes() {
            if !(node / stride).is_multiple_of(k) {
                continue;
            }
            let b = &mut nb[r * (k + 1)..(r + 1) * (k + 1)];
            let total: u32 = (0..k).map(|j| w[node + j * stride]).sum();
            b[0] = -0.5;
            for j in 0..k {
                let share = if total > 0 {
                    k as f64 * w[node + j * stride] as f64 / total as f64
                } else {
                    1.0
                };
                b[j + 1] = b[j] + (1.0 - mu) + mu * share;
            }
            b[k] = k as f64 - 0.5;
            r += 1;
        }
        for (i, x) in cur.chunks_exact(nd).enumerate() {
            let node = bin_of(grid, x);
            let low = node % stride;
            let high = node / (stride * k);
            let r = low + stride * high;
            let j = (node / stride) % k;
            let b = &nb[r * (k + 1)..(r + 1) * (k + 1)];
            let xc = x[d].clamp(-0.5, k as f64 - 0.5);
            let t = xc - (j as f64 - 0.5);
            target[i * nd + d] = (b[j] + t * (b[j + 1] - b[j])).clamp(-0.5, k as f64 - 0.5);
        }
        cur.copy_from_slice(target);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_round_and_clamp() {
        let g = Grid::mesh(&[3, 3]);
        assert_eq!(bin_of(&g, &[0.4, 0.6]), 3);
        assert_eq!(bin_of(&g, &[-3.0, 9.0]), 6);
    }

    #[test]
    fn a_crowded_bin_expands_and_order_is_kept() {
        // 1D line of 4 bins; 4 items in bin 1, none elsewhere.
        let g = Grid::mesh(&[4]);
        let phi = vec![0.7, 0.9, 1.1, 1.3];
        let mut w = Vec::new();
        assert_eq!(workloads(&g, &phi, &[1; 4], &mut w), 4);
        let mut t = vec![0.0; 4];
        shift(&g, &phi, &w, 1.0, DELTA, &mut t);
        assert!(t.windows(2).all(|p| p[0] < p[1]), "{t:?}");
        let spread_before = phi[3] - phi[0];
        assert!(t[3] - t[0] > spread_before, "{t:?}");
        assert!(t.iter().all(|&x| (-0.5..=3.5).contains(&x)));
    }

    #[test]
    fn proportional_shifting_evens_a_row_and_keeps_order() {
        // 1D line of 4 bins, 4 items in bin 1: at μ = 1 each gets a bin.
        let g = Grid::mesh(&[4]);
        let phi = vec![0.6, 0.8, 1.2, 1.4];
        let mut t = vec![0.0; 4];
        shift_proportional(&g, &phi, 1.0, &mut t);
        assert!(t.windows(2).all(|p| p[0] < p[1]), "{t:?}");
        let mut w = Vec::new();
        assert_eq!(workloads(&g, &t, &[1; 4], &mut w), 1, "{t:?}");
        // μ = 0: nothing moves.
        shift_proportional(&g, &phi, 0.0, &mut t);
        assert!(phi.iter().zip(&t).all(|(a, b)| (a - b).abs() < 1e-12));
    }

    #[test]
    fn even_workloads_do_not_move() {
        let g = Grid::mesh(&[3, 2]);
        let phi: Vec<f64> = (0..6)
            .flat_map(|n| [(n % 3) as f64 + 0.2, (n / 3) as f64 - 0.1])
            .collect();
        let mut w = Vec::new();
        workloads(&g, &phi, &[1; 6], &mut w);
        let mut t = vec![0.0; 12];
        shift(&g, &phi, &w, 1.0, DELTA, &mut t);
        for (a, b) in phi.iter().zip(&t) {
            assert!((a - b).abs() < 1e-12);
        }
    }
}
