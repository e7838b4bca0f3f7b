//! Link contention for the network view: each undirected link's value (the
//! busier of its two directions, in bytes or in flows), the links ranked
//! hottest first, the filter that picks which links are drawn in full
//! (all, the top k %, or those at or above a threshold), and the style that
//! makes cold links fade: colour, opacity and width grow with the load
//! between the filter's threshold and the busiest link.
//!
//! Cost: O(L log L) per evaluation for L links (one sort); the style is O(1).

use super::geometry::LinkGeom;
use hopmap_core::metrics::Evaluation;

/// Which links are drawn in full (the others are faint, or hidden).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LinkFilter {
    /// Every used link when each is drawn separately and there are at most
    /// [`AUTO_ALL_LINKS`]; else the top [`AUTO_TOP_PERCENT`] %, and at least
    /// the [`AUTO_MIN_LINKS`] hottest (on a 16x32x32 torus: the ~490 hottest
    /// of 49,152 links). A projection shows each column's busiest link, so
    /// with every link it would be uniformly hot: it is always filtered.
    Auto,
    All,
    /// The hottest `p` % of the used links (ties at the cut included).
    TopPercent(f32),
    /// Links whose value is at least this (bytes or flows).
    AtLeast(f64),
}

/// Networks with up to this many links show every link by default.
pub const AUTO_ALL_LINKS: usize = 4096;
/// Otherwise this top share of the used links is shown by default…
pub const AUTO_TOP_PERCENT: f32 = 1.0;
/// …and at least this many links.
pub const AUTO_MIN_LINKS: usize = 300;

impl LinkFilter {
    /// `Auto` made concrete for a network of `links` links, `used` of them
    /// used, drawn projected or not.
    pub fn resolve(self, links: usize, used: usize, projected: bool) -> LinkFilter {
        match self {
            LinkFilter::Auto if links <= AUTO_ALL_LINKS && !projected => LinkFilter::All,
            LinkFilter::Auto => {
                let min_share = AUTO_MIN_LINKS as f32 / used.max(1) as f32 * 100.0;
                LinkFilter::TopPercent(AUTO_TOP_PERCENT.max(min_share).min(100.0))
            }
            f => f,
        }
    }
}

/// Values and ranking of the links of one evaluation.
#[derive(Clone, Debug, Default)]
pub struct LinkStats {
    /// Value per link (index as in the geometry's link list).
    pub vals: Vec<f64>,
    /// Every link, hottest first (ties by index); unused links last.
    pub order: Vec<u32>,
    /// Links with a value above 0.
    pub used: usize,
    pub maxv: f64,
}

impl LinkStats {
    /// The value of each link: the busier direction's load (or flow count).
    pub fn compute(links: &[LinkGeom], eval: Option<&Evaluation>, by_flows: bool) -> Self {
        Self::from_values(Self::values(links, eval, by_flows))
    }

    /// The value of each link (what [`LinkStats::compute`] ranks): O(L).
    pub fn values(links: &[LinkGeom], eval: Option<&Evaluation>, by_flows: bool) -> Vec<f64> {
        match eval {
            Some(e) => {
                let val = |ch: u32| -> f64 {
                    let ch = ch as usize;
                    let (load, flows) = e.links.get(ch);
                    if by_flows { flows as f64 } else { load }
                };
                links.iter().map(|l| val(l.fwd).max(val(l.back))).collect()
            }
            None => vec![0.0; links.len()],
        }
    }

    /// The ranking of `vals`: O(L log L).
    pub fn from_values(vals: Vec<f64>) -> Self {
        let order = rank(&vals);
        Self::ranked(vals, order)
    }

    /// `vals` with their ranking `order`; counts the used links and the
    /// largest value: O(L).
    fn ranked(vals: Vec<f64>, order: Vec<u32>) -> Self {
        let used = vals.iter().filter(|&&v| v > 0.0).count();
        let maxv = vals.iter().cloned().fold(0.0, f64::max);
        LinkStats {
            vals,
            order,
            used,
            maxv,
        }
    }

    /// The stats of `vals`, a new evaluation of the same links: when at
    /// most an eighth of the values changed (a run's step moves a few
    /// processes), the unchanged links keep their relative order and the
    /// changed ones, sorted, are merged in: O(L + k log k) for k changes;
    /// else ranked afresh ([`LinkStats::from_values`]). The order is the
    /// same either way.
    pub fn updated(&self, vals: Vec<f64>) -> Self {
        let n = vals.len();
        if n != self.vals.len() || n != self.order.len() {
            return Self::from_values(vals);
        }
        let changed: Vec<u32> = (0..n as u32)
            .filter(|&i| vals[i as usize].to_bits() != self.vals[i as usize].to_bits())
            .collect();
        if changed.len() > n / 8 {
            return Self::from_values(vals);
        }
        let mut is_changed = vec![false; n];
        for &i in &changed {
            is_changed[i as usize] = true;
        }
        // Hotter first, ties by index: `rank`'s order.
        let key = |i: u32| (std::cmp::Reverse(total_key(vals[i as usize])), i);
        let mut moved = changed;
        moved.sort_unstable_by_key(|&i| key(i));
        let mut order = Vec::with_capacity(n);
        let mut m = moved.into_iter().peekable();
        for &k in self.order.iter().filter(|&&k| !is_changed[k as usize]) {
            while let Some(c) = m.next_if(|&c| key(c) < key(k)) {
                order.push(c);
            }
            order.push(k);
        }
        order.extend(m);
        Self::ranked(vals, order)
    }

    /// The smallest value drawn in full under `filter`: at least the least
    /// used link's value; +∞ when nothing is used. Unused links (value 0)
    /// never pass.
    pub fn threshold(&self, filter: LinkFilter, projected: bool) -> f64 {
        if self.used == 0 {
            return f64::INFINITY;
        }
        let least = self.vals[self.order[self.used - 1] as usize];
        match filter.resolve(self.vals.len(), self.used, projected) {
            LinkFilter::Auto | LinkFilter::All => least,
            LinkFilter::TopPercent(p) => {
                let p = if p.is_finite() {
                    p.clamp(0.0, 100.0)
                } else {
                    100.0
                };
                let k = ((p as f64 / 100.0 * self.used as f64).ceil() as usize).clamp(1, self.used);
                self.vals[self.order[k - 1] as usize]
            }
            LinkFilter::AtLeast(t) if t.is_nan() => least,
            LinkFilter::AtLeast(t) => t.max(least),
        }
    }

    /// How many links pass `threshold`.
    pub fn passing(&self, threshold: f64) -> usize {
        self.order
            .iter()
            .take_while(|&&i| self.vals[i as usize] >= threshold)
            .count()
    }

    /// The `k` hottest used links.
    pub fn hottest(&self, k: usize) -> &[u32] {
        &self.order[..k.min(self.used)]
    }
}

/// Indices of `vals`, largest first (in `f64::total_cmp` order), ties by
/// index. Sorts (key, index) pairs in place rather than indices through
/// the values: O(L log L) without a cache miss per comparison.
fn rank(vals: &[f64]) -> Vec<u32> {
    let mut keyed: Vec<(std::cmp::Reverse<i64>, u32)> = vals
        .iter()
        .enumerate()
        .map(|(i, &v)| (std::cmp::Reverse(total_key(v)), i as u32))
        .collect();
    keyed.sort_unstable();
    keyed.into_iter().map(|(_, i)| i).collect()
}

/// `f64::total_cmp`'s order as an integer: the magnitude bits of
/// negatives flipped.
fn total_key(v: f64) -> i64 {
    let b = v.to_bits() as i64;
    b ^ (((b >> 63) as u64) >> 1) as i64
}

/// How one link is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkStyle {
    /// Position on the colour scale in [0, 1] (threshold → 0, busiest → 1).
    pub t: f32,
    /// Opacity in [0, 255].
    pub alpha: u8,
    /// Width factor (1 = a thin line).
    pub width: f32,
    /// Passes the filter.
    pub full: bool,
}

/// Position of `v` on a log scale from `lo` (0) to `hi` (1); link loads are
/// heavy-tailed, so a linear scale would paint all but a few links alike.
fn log_position(v: f64, lo: f64, hi: f64) -> f32 {
    if hi <= lo || lo <= 0.0 {
        return 1.0;
    }
    ((v / lo).ln() / (hi / lo).ln()).clamp(0.0, 1.0) as f32
}

/// Style of a link of value `v` when links from `threshold` to `maxv` are
/// drawn in full: colour, opacity (90 → 255) and width (1 → 3.5) grow with
/// the load along that range (log scale), so the hottest links are bright,
/// opaque and thick; links below the threshold are faint (`ghost` opacity)
/// and thin.
pub fn link_style(v: f64, threshold: f64, maxv: f64, ghost: u8) -> LinkStyle {
    if v.is_nan() || v < threshold || v <= 0.0 {
        return LinkStyle {
            t: 0.0,
            alpha: if v > 0.0 { ghost } else { ghost / 2 },
            width: 0.6,
            full: false,
        };
    }
    // With every link shown, the scale starts at the least used link.
    let t = log_position(v, threshold, maxv);
    LinkStyle {
        t,
        alpha: (90.0 + 165.0 * t).round() as u8,
        width: 1.0 + 2.5 * t,
        full: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hopmap_core::metrics::LinkLoads;

    fn stats(vals: &[f64]) -> LinkStats {
        // One link per value, channels 2i and 2i+1 (the value on the forward one).
        let links: Vec<LinkGeom> = (0..vals.len() as u32)
            .map(|i| LinkGeom {
                a: i,
                b: i + 1,
                dim: 0,
                wrap: false,
                fwd: 2 * i,
                back: 2 * i + 1,
            })
            .collect();
        let mut load = vec![0.0; 2 * vals.len()];
        for (i, &v) in vals.iter().enumerate() {
            load[2 * i] = v;
            load[2 * i + 1] = v / 2.0;
        }
        let e = Evaluation {
            links: LinkLoads {
                flows: vec![1; load.len()],
                load,
                used: Vec::new(),
            },
            ..Default::default()
        };
        LinkStats::compute(&links, Some(&e), false)
    }

    /// Re-ranking after a few changes gives the order a fresh ranking
    /// gives (ties by index), for changes of every kind: up, down, to 0,
    /// to a tie; and past an eighth changed, it ranks afresh.
    #[test]
    fn an_updated_ranking_is_the_fresh_ranking() {
        let mut x = 12345u64;
        let mut next = move |m: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        for case in 0..200 {
            let n = 1 + next(300) as usize;
            // Few distinct values, so that ties are common.
            let vals: Vec<f64> = (0..n).map(|_| next(20) as f64).collect();
            let old = LinkStats::from_values(vals.clone());
            let mut new = vals;
            let k = if case % 4 == 0 {
                n
            } else {
                1 + next(n as u64 / 8 + 1) as usize
            };
            for _ in 0..k {
                let i = next(n as u64) as usize;
                new[i] = next(25) as f64;
            }
            let fresh = LinkStats::from_values(new.clone());
            let up = old.updated(new);
            assert_eq!(up.order, fresh.order, "case {case}");
            assert_eq!((up.used, up.maxv), (fresh.used, fresh.maxv));
        }
        // By hand: link 2 rises above link 0, link 1 falls to 0.
        let s = LinkStats::from_values(vec![5.0, 3.0, 1.0, 0.0, 2.0, 4.0, 6.0, 7.0, 8.0]);
        assert_eq!(s.order, [8, 7, 6, 0, 5, 1, 4, 2, 3]);
        let u = s.updated(vec![5.0, 0.0, 6.0, 0.0, 2.0, 4.0, 6.0, 7.0, 8.0]);
        assert_eq!(u.order, [8, 7, 2, 6, 0, 5, 4, 1, 3]);
        assert_eq!(u.used, 7);
    }

    #[test]
    fn ranking_threshold_and_hottest() {
        // 10 links, two unused.
        let s = stats(&[5.0, 0.0, 9.0, 1.0, 7.0, 0.0, 3.0, 9.0, 2.0, 4.0]);
        assert_eq!(s.used, 8);
        assert_eq!(s.maxv, 9.0);
        assert_eq!(s.hottest(3), &[2, 7, 4]);
        assert_eq!(s.hottest(100).len(), 8);
        // Top 25 % of 8 used links = the 2 hottest (both 9).
        let t = s.threshold(LinkFilter::TopPercent(25.0), false);
        assert_eq!(t, 9.0);
        assert_eq!(s.passing(t), 2);
        // Top 30 % = ceil(2.4) = 3 links: 9, 9, 7.
        assert_eq!(s.threshold(LinkFilter::TopPercent(30.0), false), 7.0);
        // A tiny share still shows the busiest link.
        assert_eq!(s.threshold(LinkFilter::TopPercent(0.0), false), 9.0);
        assert_eq!(s.passing(s.threshold(LinkFilter::AtLeast(4.0), false)), 5);
        // All = every used link, never the unused ones.
        assert_eq!(s.threshold(LinkFilter::All, false), 1.0);
        assert_eq!(s.passing(s.threshold(LinkFilter::All, false)), 8);
        assert_eq!(s.threshold(LinkFilter::AtLeast(0.0), false), 1.0);
        assert_eq!(s.passing(s.threshold(LinkFilter::Auto, false)), 8);
        // Nothing used: nothing passes.
        let z = stats(&[0.0, 0.0]);
        assert_eq!(z.passing(z.threshold(LinkFilter::All, false)), 0);
        assert!(z.hottest(5).is_empty());
    }

    #[test]
    fn rank_is_total_cmp_descending_ties_by_index() {
        let vals = [
            3.0,
            -0.0,
            0.0,
            f64::INFINITY,
            -2.5,
            3.0,
            1e-300,
            f64::NAN,
            0.0,
            -f64::INFINITY,
        ];
        let mut want: Vec<u32> = (0..vals.len() as u32).collect();
        want.sort_by(|&a, &b| {
            vals[b as usize]
                .total_cmp(&vals[a as usize])
                .then(a.cmp(&b))
        });
        assert_eq!(rank(&vals), want);
        assert_eq!(want[..3], [7, 3, 0]);
    }

    #[test]
    fn auto_filter_depends_on_network_size() {
        assert_eq!(LinkFilter::Auto.resolve(1536, 1536, false), LinkFilter::All);
        // 49,152 links, 49,082 used: the top 1 % (491 links).
        assert_eq!(
            LinkFilter::Auto.resolve(49_152, 49_082, false),
            LinkFilter::TopPercent(1.0)
        );
        // Projected: filtered even when small, at least 300 links (10 % of 3000).
        assert_eq!(
            LinkFilter::Auto.resolve(3072, 3000, true),
            LinkFilter::TopPercent(10.0)
        );
        assert_eq!(
            LinkFilter::Auto.resolve(3072, 100, true),
            LinkFilter::TopPercent(100.0)
        );
        assert_eq!(
            LinkFilter::AtLeast(3.0).resolve(49_152, 10, true),
            LinkFilter::AtLeast(3.0)
        );
    }

    #[test]
    fn cold_links_fade_and_hot_links_are_thick_and_opaque() {
        let cold = link_style(1.0, 5.0, 10.0, 20);
        assert!(!cold.full);
        assert_eq!(cold.alpha, 20);
        let unused = link_style(0.0, 5.0, 10.0, 20);
        assert_eq!(unused.alpha, 10);
        let lo = link_style(5.0, 5.0, 10.0, 20);
        let hi = link_style(10.0, 5.0, 10.0, 20);
        assert!(lo.full && hi.full);
        assert_eq!((lo.t, lo.alpha, lo.width), (0.0, 90, 1.0));
        assert_eq!((hi.t, hi.alpha, hi.width), (1.0, 255, 3.5));
        let mid = link_style(7.5, 5.0, 10.0, 20);
        assert!(mid.alpha > lo.alpha && mid.alpha < hi.alpha);
        // Log scale: the geometric middle of the range is halfway.
        assert!((link_style(10.0, 1.0, 100.0, 0).t - 0.5).abs() < 1e-6);
        // A single value range (threshold = max) is drawn as the hottest.
        assert_eq!(link_style(3.0, 3.0, 3.0, 0).t, 1.0);
        assert!(!link_style(f64::NAN, 1.0, 3.0, 0).full);
    }
}
