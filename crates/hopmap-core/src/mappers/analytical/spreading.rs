//! Spreading forces (Wu et al. §3.3.3, Eqs. 6–9).
//!
//! For every free item `i` with shifted position `x'_i`, the resultant force
//! is the gradient of the original objective W at `x'_i`, the other items
//! staying where they are: `F = Σ_j c_ij (x'_i − Φ_j)` (Eq. 7; we drop the
//! common factor 2 of both the gradient and the anchor term, which cancels in
//! Eq. 8). The partners pull `i` along `−F`; the spreading force (the pull of
//! the anchor spring) has the same magnitude, the other way: Eq. 8 gives
//! `f = x'_i + F/β`, so the fake anchor `f` is where the ray from `x'_i` along
//! `+F` leaves the box
//! `[−½, X−½] × …`, and its weight is `β = |F| / |x'_i − f|` (Eq. 9), so that
//! `x'_i` is where W_f is stationary for `i` (Eq. 8). Anchors are discarded
//! and recomputed every iteration; they do not accumulate.
//!
//! Edge cases (beyond the paper): an item with no resultant force (no
//! partners, or already in equilibrium at `x'_i`) gets an anchor at `x'_i`
//! itself with weight `β_min` (10⁻² × the mean weighted degree), so that an
//! isolated item still follows the shifting; the distance to the boundary is
//! taken as at least 0.05 (an item shifted onto the boundary would otherwise
//! get an infinite β).
//!
//! This is `spread=paper`. The default is `spread=pin` ([`pins`], beyond
//! the paper), because the anchors above amplify the smooth part of every
//! shift when all items shift at once: W(Φ) grew every iteration, the
//! maximum workload oscillated and global mapping stalled (figures:
//! `docs/benchmarks.md`, "Defaults against the paper").
//!
//! Cost O(N · D + m) per iteration. Memory O(N · D).

use super::global::ItemGraph;

/// The anchors of one iteration: β per item (0 = none), the anchor points
/// and the spreading-force vectors (β (f − x'), i.e. F), items × D.
#[derive(Clone, Debug, Default)]
pub struct Anchors {
    pub beta: Vec<f64>,
    pub point: Vec<f64>,
    pub force: Vec<f64>,
}

/// Compute the anchors for the shifted positions `target` given the current
/// Φ. `free[i]` false: fixed item, no anchor. `hi[d]` is `dims[d] − ½`.
#[allow(clippy::too_many_arguments)]
pub fn anchors(
    g: &ItemGraph,
    phi: &[f64],
    target: &[f64],
    free: &[bool],
    hi: &[f64],
    active: &[bool],
    beta_min: f64,
    out: &mut Anchors,
) {
    let nd = hi.len();
    let n = g.n();
    out.beta.clear();
    out.beta.resize(n, 0.0);
    out.point.clear();
    out.point.resize(n * nd, f64::NAN);
    out.force.clear();
    out.force.resize(n * nd, 0.0);
    let mut f = [0.0f64; crate::topology::MAX_DIMS];
    for i in 0..n {
        if !free[i] {
            continue;
        }
        let xi = &target[i * nd..(i + 1) * nd];
        let (t, w) = g.row(i);
        f[..nd].fill(0.0);
        let mut scale = 0.0;
        for (&j, &c) in t.iter().zip(w) {
            let j = j as usize;
            scale += c;
            for d in 0..nd {
                if active[d] {
                    f[d] += c * (xi[d] - phi[j * nd + d]);
                }
            }
        }
        let norm = f[..nd].iter().map(|a| a * a).sum::<f64>().sqrt();
        if norm <= 1e-12 * scale.max(1e-300) || norm == 0.0 {
            out.beta[i] = beta_min;
            out.point[i * nd..(i + 1) * nd].copy_from_slice(xi);
            continue;
        }
        // Ray x' + s·u, u = F/|F|, to the box boundary: Eq. 8 puts the
        // anchor at x' + F/β, so the spring to it pulls i along +F, against
        // the net pull −F of its partners.
        let mut s_hit = f64::INFINITY;
        for d in 0..nd {
            let u = f[d] / norm;
            if !active[d] || u.abs() < 1e-15 {
                continue;
            }
            let bound = if u > 0.0 { hi[d] } else { -0.5 };
            let s = (bound - xi[d]) / u;
            s_hit = s_hit.min(s.max(0.0));
        }
        if !s_hit.is_finite() {
            out.beta[i] = beta_min;
            out.point[i * nd..(i + 1) * nd].copy_from_slice(xi);
            continue;
        }
        let s = s_hit.max(0.05);
        let beta = norm / s;
        out.beta[i] = beta;
        for d in 0..nd {
            let u = if active[d] { f[d] / norm } else { 0.0 };
            out.point[i * nd + d] = xi[d] + s * u;
            out.force[i * nd + d] = beta * s * u;
        }
    }
}

/// The spreading anchors of `spread=pin` (beyond the paper, after
/// FastPlace's pseudo pins, ref. \[37\] of Wu et al.): every free item `i`
/// is tied to its own shifted position `x'_i` with weight
/// `β_i = α · deg_i` (`deg_i` = Σ_j c_ij, or `α_floor` for an isolated
/// item), so the solve trades W against the distance to the shifting
/// targets; the caller grows `α` every iteration. The force vectors are
/// `β_i (x'_i − Φ_i)`, the pull of the anchor on the item where it is.
///
/// Why (measured: `docs/benchmarks.md`): with the anchors of
/// Eqs. 6–9 every item's anchor balances its partners *at their old
/// positions*; when all items shift at once the solve's answer is
/// `x' + (L + B)⁻¹ A (x' − Φ)`, which amplifies the smooth part of the shift
/// by about `(deg + β)/β` (≈ 10× here), so W doubled every iteration and the
/// maximum workload oscillated instead of falling.
#[allow(clippy::too_many_arguments)]
pub fn pins(
    g: &ItemGraph,
    phi: &[f64],
    target: &[f64],
    free: &[bool],
    active: &[bool],
    alpha: f64,
    alpha_floor: f64,
    out: &mut Anchors,
) {
    let nd = active.len();
    let n = g.n();
    out.beta.clear();
    out.beta.resize(n, 0.0);
    out.point.clear();
    out.point.resize(n * nd, f64::NAN);
    out.force.clear();
    out.force.resize(n * nd, 0.0);
    for i in 0..n {
        if !free[i] {
            continue;
        }
        let deg = g.weighted_degree(i);
        let beta = (alpha * deg).max(alpha_floor);
        out.beta[i] = beta;
        for d in 0..nd {
            let t = if active[d] {
                target[i * nd + d]
            } else {
                phi[i * nd + d]
            };
            out.point[i * nd + d] = t;
            out.force[i * nd + d] = beta * (t - phi[i * nd + d]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_anchor_makes_the_shifted_position_stationary() {
        // Item 0 at x' = 1.0 pulled by item 1 at 0.0 (c = 2) on a line [−½, 3½].
        let g = ItemGraph::from_lists(2, vec![vec![(1, 2.0)], vec![(0, 2.0)]]);
        let phi = vec![0.5, 0.0];
        let target = vec![1.0, 0.0];
        let mut a = Anchors::default();
        anchors(
            &g,
            &phi,
            &target,
            &[true, false],
            &[3.5],
            &[true],
            0.1,
            &mut a,
        );
        // F = 2·(1 − 0) = 2 → anchor at 3.5, β = 2 / 2.5.
        assert!((a.point[0] - 3.5).abs() < 1e-12);
        assert!((a.beta[0] - 0.8).abs() < 1e-12);
        // Stationary: c (x' − x_1) + β (x' − f) = 0.
        let grad = 2.0 * (1.0 - 0.0) + a.beta[0] * (1.0 - a.point[0]);
        assert!(grad.abs() < 1e-12);
        assert!((a.force[0] - 2.0).abs() < 1e-12);
        assert_eq!(a.beta[1], 0.0);
    }

    #[test]
    fn pins_sit_on_the_targets_with_weight_alpha_times_degree() {
        // Item 0 (free, degree 2) shifted from 0.5 to 1.0; item 1 fixed.
        let g = ItemGraph::from_lists(2, vec![vec![(1, 2.0)], vec![(0, 2.0)]]);
        let mut a = Anchors::default();
        pins(
            &g,
            &[0.5, 0.0],
            &[1.0, 0.0],
            &[true, false],
            &[true],
            0.25,
            0.01,
            &mut a,
        );
        assert_eq!(a.point[0], 1.0);
        assert!((a.beta[0] - 0.5).abs() < 1e-12);
        assert!((a.force[0] - 0.25).abs() < 1e-12);
        assert_eq!(a.beta[1], 0.0);
        assert!(a.point[1].is_nan());
    }
}
