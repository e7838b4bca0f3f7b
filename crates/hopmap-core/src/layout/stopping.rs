//! The stopping rule of Bobrik & Popova §5: for every point `s`, the average
//! position over the last `n` iterations, `S_n(r_s)`, and over the last `m`
//! iterations, `S_m(r_s)`; the layout stops when `Σ_s |S_n − S_m| < ε`.
//!
//! Our addition: the sum is divided by the number of points and by a length
//! scale of the layout (the mean edge length, supplied by the caller), so one
//! `ε` works for 20 points or 100,000 and for any coordinate scale. The
//! reported value is that normalised sum, i.e. the mean drift of a point's
//! recent average, in edge lengths.
//!
//! Cost: O(N) per iteration (running sums), O(N·m) memory (a ring of the
//! last `m` position snapshots).

/// Moving-average stopping rule (§5).
#[derive(Clone, Debug)]
pub struct MovingAverageStop {
    n: usize,
    m: usize,
    eps: f64,
    ring: Vec<Vec<[f32; 3]>>,
    /// Next ring slot to write.
    head: usize,
    /// Snapshots recorded (saturates at m).
    filled: usize,
    sum_n: Vec<[f64; 3]>,
    sum_m: Vec<[f64; 3]>,
    last: Option<f64>,
}

impl MovingAverageStop {
    /// `n < m` windows and the threshold `ε` (per point, in edge lengths).
    pub fn new(n: usize, m: usize, eps: f64) -> Self {
        let n = n.max(1);
        let m = m.max(n + 1);
        MovingAverageStop {
            n,
            m,
            eps,
            ring: Vec::new(),
            head: 0,
            filled: 0,
            sum_n: Vec::new(),
            sum_m: Vec::new(),
            last: None,
        }
    }

    /// Forget the history (after a level change or a pin).
    pub fn reset(&mut self) {
        self.ring.clear();
        self.head = 0;
        self.filled = 0;
        self.sum_n.clear();
        self.sum_m.clear();
        self.last = None;
    }

    pub fn windows(&self) -> (usize, usize) {
        (self.n, self.m)
    }
    pub fn eps(&self) -> f64 {
        self.eps
    }

    /// Record the positions after an iteration. `scale` is the layout's length
    /// scale (mean edge length). Returns the normalised value once `m`
    /// iterations have been recorded.
    pub fn record(&mut self, pos: &[[f32; 3]], scale: f64) -> Option<f64> {
        let np = pos.len();
        if self.ring.len() != self.m || self.sum_m.len() != np {
            self.ring = vec![Vec::new(); self.m];
            self.head = 0;
            self.filled = 0;
            self.sum_n = vec![[0.0; 3]; np];
            self.sum_m = vec![[0.0; 3]; np];
        }
        let m = self.m;
        let n = self.n;
        // Snapshot leaving the n-window: the one written n iterations ago.
        let leave_n = (self.head + m - n) % m;
        let full_m = self.filled == m;
        let full_n = self.filled >= n;
        for (s, p) in pos.iter().enumerate() {
            for a in 0..3 {
                let x = p[a] as f64;
                self.sum_m[s][a] += x;
                self.sum_n[s][a] += x;
                if full_m {
                    self.sum_m[s][a] -= self.ring[self.head][s][a] as f64;
                }
                if full_n {
                    self.sum_n[s][a] -= self.ring[leave_n][s][a] as f64;
                }
            }
        }
        let slot = &mut self.ring[self.head];
        slot.clear();
        slot.extend_from_slice(pos);
        self.head = (self.head + 1) % m;
        self.filled = (self.filled + 1).min(m);
        if self.filled < m {
            self.last = None;
            return None;
        }
        let (inv_n, inv_m) = (1.0 / n as f64, 1.0 / m as f64);
        let mut total = 0.0;
        for s in 0..np {
            let mut d2 = 0.0;
            for a in 0..3 {
                let d = self.sum_n[s][a] * inv_n - self.sum_m[s][a] * inv_m;
                d2 += d * d;
            }
            total += d2.sqrt();
        }
        let v = total / (np.max(1) as f64 * scale.max(1e-30));
        self.last = Some(v);
        Some(v)
    }

    /// The last computed value (None until `m` iterations are recorded).
    pub fn value(&self) -> Option<f64> {
        self.last
    }

    /// Whether the rule says stop.
    pub fn should_stop(&self) -> bool {
        self.last.is_some_and(|v| v < self.eps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn still_points_stop_moving_points_do_not() {
        let mut r = MovingAverageStop::new(2, 4, 1e-3);
        let still = vec![[1.0, 2.0, 0.0]; 5];
        for _ in 0..3 {
            assert_eq!(r.record(&still, 1.0), None);
        }
        assert_eq!(r.record(&still, 1.0), Some(0.0));
        assert!(r.should_stop());
        // A point moving by 1 per iteration along x: S_n = mean of last 2
        // (t-0.5), S_m = mean of last 4 (t-1.5) → difference 1 per point.
        let mut r = MovingAverageStop::new(2, 4, 1e-3);
        let mut v = None;
        for t in 0..10 {
            v = r.record(&[[t as f32, 0.0, 0.0]], 1.0);
        }
        assert!((v.unwrap() - 1.0).abs() < 1e-9, "{v:?}");
        assert!(!r.should_stop());
        // The same motion measured in units of 4 is a quarter.
        let mut r = MovingAverageStop::new(2, 4, 1e-3);
        for t in 0..10 {
            v = r.record(&[[t as f32, 0.0, 0.0]], 4.0);
        }
        assert!((v.unwrap() - 0.25).abs() < 1e-9);
    }

    #[test]
    fn oscillation_averages_out() {
        // A point jumping between two positions each iteration: both windows
        // are even, so both averages are the midpoint.
        let mut r = MovingAverageStop::new(2, 4, 1e-6);
        for t in 0..12 {
            let x = if t % 2 == 0 { 0.0 } else { 1.0 };
            r.record(&[[x, 0.0, 0.0]], 1.0);
        }
        assert!(r.value().unwrap() < 1e-9);
        assert!(r.should_stop());
    }
}
