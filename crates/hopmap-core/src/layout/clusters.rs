//! Communication clusters from a finished layout (Bobrik & Popova §7: the
//! groups of points the layout forms "can be used to compress the set of
//! processes to the set of nodes instead of graph bisection").
//!
//! The pass is DBSCAN with `min_pts = 1` — single linkage at radius `eps`:
//! two points closer than `eps` are in the same cluster, and clusters are the
//! connected components of that relation. The parameter-free default is
//! `eps = 3 × the median nearest-neighbour distance`: inside a cluster
//! neighbours sit about one spacing apart, between clusters the layout opens
//! gaps of many spacings. A uniform hash grid of cell `eps` keeps the pass at
//! O(n · k) for k points per neighbourhood (plus O(n) expected for the
//! nearest-neighbour distances). Cluster ids are numbered by their lowest
//! process, so they are deterministic.
//!
//! [`pack_groups`] packs clusters into node-sized groups of `G` processes
//! for multi-core nodes: each cluster is cut along a Z-order curve over its
//! positions into full groups, and the remainders are pooled in Z-order and
//! cut again, so every group but the last has exactly `G` processes.

use std::collections::HashMap;

/// Settings of the cluster pass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClusterParams {
    /// Linking radius; None = `factor ×` median nearest-neighbour distance.
    pub eps: Option<f64>,
    pub factor: f64,
}

impl Default for ClusterParams {
    fn default() -> Self {
        ClusterParams {
            eps: None,
            factor: 3.0,
        }
    }
}

type Key = (i64, i64, i64);

fn key(p: &[f32; 3], cell: f64) -> Key {
    (
        (p[0] as f64 / cell).floor() as i64,
        (p[1] as f64 / cell).floor() as i64,
        (p[2] as f64 / cell).floor() as i64,
    )
}

fn dist2(a: &[f32; 3], b: &[f32; 3]) -> f64 {
    (0..3).map(|k| ((a[k] - b[k]) as f64).powi(2)).sum()
}

fn grid(pos: &[[f32; 3]], cell: f64) -> HashMap<Key, Vec<u32>> {
    let mut g: HashMap<Key, Vec<u32>> = HashMap::new();
    for (i, p) in pos.iter().enumerate() {
        g.entry(key(p, cell)).or_default().push(i as u32);
    }
    g
}

fn flat(pos: &[[f32; 3]]) -> bool {
    pos.iter().all(|p| p[2] == pos[0][2])
}

/// Median distance from a point to its nearest other point (0 for < 2 points).
pub fn median_nn_distance(pos: &[[f32; 3]]) -> f64 {
    let n = pos.len();
    if n < 2 {
        return 0.0;
    }
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for p in pos {
        for a in 0..3 {
            lo[a] = lo[a].min(p[a] as f64);
            hi[a] = hi[a].max(p[a] as f64);
        }
    }
    let ext = (0..3).map(|a| hi[a] - lo[a]).fold(0.0, f64::max);
    if ext <= 0.0 {
        return 0.0;
    }
    let is2 = flat(pos);
    let cell = if is2 {
        ext / (n as f64).sqrt()
    } else {
        ext / (n as f64).cbrt()
    };
    let g = grid(pos, cell);
    let kz = if is2 { 0 } else { 1 };
    let max_r = (ext / cell).ceil() as i64 + 1;
    let mut nn: Vec<f64> = pos
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let (cx, cy, cz) = key(p, cell);
            let mut best = f64::INFINITY;
            let mut r = 0i64;
            loop {
                let rz = r.min(kz * r);
                for dx in -r..=r {
                    for dy in -r..=r {
                        for dz in -rz..=rz {
                            if dx.abs().max(dy.abs()).max(dz.abs()) != r {
                                continue;
                            }
                            // Saturating: a point far out (a huge coordinate) has
                            // a cell key at the end of the i64 range.
                            let k = (
                                cx.saturating_add(dx),
                                cy.saturating_add(dy),
                                cz.saturating_add(dz),
                            );
                            if let Some(v) = g.get(&k) {
                                for &j in v {
                                    if j as usize != i {
                                        best = best.min(dist2(p, &pos[j as usize]));
                                    }
                                }
                            }
                        }
                    }
                }
                if best.sqrt() <= r as f64 * cell || r > max_r {
                    break;
                }
                r += 1;
            }
            best.sqrt()
        })
        .collect();
    let mid = nn.len() / 2;
    nn.select_nth_unstable_by(mid, |a, b| a.total_cmp(b));
    nn[mid]
}

/// The linking radius the pass would use.
pub fn cluster_eps(pos: &[[f32; 3]], params: &ClusterParams) -> f64 {
    params
        .eps
        .unwrap_or_else(|| params.factor * median_nn_distance(pos))
}

fn find(parent: &mut [u32], mut x: u32) -> u32 {
    while parent[x as usize] != x {
        parent[x as usize] = parent[parent[x as usize] as usize];
        x = parent[x as usize];
    }
    x
}

/// Cluster id of every point (ids 0.., numbered by lowest member).
pub fn clusters(pos: &[[f32; 3]], params: &ClusterParams) -> Vec<u32> {
    let n = pos.len();
    if n == 0 {
        return Vec::new();
    }
    let mut eps = cluster_eps(pos, params);
    if !(eps > 0.0) || !eps.is_finite() {
        // All points coincide (or one point): a radius that links only
        // coincident points.
        eps = 1e-12;
    }
    let is2 = flat(pos);
    let g = grid(pos, eps);
    let mut parent: Vec<u32> = (0..n as u32).collect();
    let e2 = eps * eps;
    let kz = if is2 { 0 } else { 1 };
    for (i, p) in pos.iter().enumerate() {
        let (cx, cy, cz) = key(p, eps);
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -kz..=kz {
                    let k = (
                        cx.saturating_add(dx),
                        cy.saturating_add(dy),
                        cz.saturating_add(dz),
                    );
                    if let Some(v) = g.get(&k) {
                        for &j in v {
                            if (j as usize) > i && dist2(p, &pos[j as usize]) <= e2 {
                                let (a, b) = (find(&mut parent, i as u32), find(&mut parent, j));
                                if a != b {
                                    let (lo, hi) = (a.min(b), a.max(b));
                                    parent[hi as usize] = lo;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    let mut id = vec![u32::MAX; n];
    let mut out = vec![0u32; n];
    let mut next = 0u32;
    for i in 0..n {
        let r = find(&mut parent, i as u32) as usize;
        if id[r] == u32::MAX {
            id[r] = next;
            next += 1;
        }
        out[i] = id[r];
    }
    out
}

/// Sizes of clusters `0..k` from the labels.
pub fn cluster_sizes(labels: &[u32]) -> Vec<usize> {
    let k = labels.iter().map(|&l| l as usize + 1).max().unwrap_or(0);
    let mut s = vec![0; k];
    for &l in labels {
        s[l as usize] += 1;
    }
    s
}

fn zorder(pos: &[[f32; 3]]) -> Vec<u64> {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for p in pos {
        for a in 0..3 {
            lo[a] = lo[a].min(p[a]);
            hi[a] = hi[a].max(p[a]);
        }
    }
    let ext = (0..3)
        .map(|a| hi[a] - lo[a])
        .fold(0f32, f32::max)
        .max(1e-30);
    pos.iter()
        .map(|p| {
            let q: Vec<u64> = (0..3)
                .map(|a| (((p[a] - lo[a]) / ext * 1_048_575.0) as u64).min(1_048_575))
                .collect();
            let mut code = 0u64;
            for bit in 0..20 {
                for (a, qa) in q.iter().enumerate() {
                    code |= ((qa >> bit) & 1) << (3 * bit + a);
                }
            }
            code
        })
        .collect()
}

/// Pack clusters into groups of at most `group` processes (see module docs).
/// Returns the group id of every process.
pub fn pack_groups(labels: &[u32], pos: &[[f32; 3]], group: usize) -> Vec<u32> {
    let n = labels.len();
    let group = group.max(1);
    let z = zorder(pos);
    let sizes = cluster_sizes(labels);
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); sizes.len()];
    for i in 0..n {
        members[labels[i] as usize].push(i as u32);
    }
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by_key(|&c| (std::cmp::Reverse(sizes[c]), c));
    let mut out = vec![0u32; n];
    let mut next = 0u32;
    let mut rest = Vec::new();
    for c in order {
        let m = &mut members[c];
        m.sort_by_key(|&i| (z[i as usize], i));
        let full = m.len() / group * group;
        for chunk in m[..full].chunks(group) {
            for &i in chunk {
                out[i as usize] = next;
            }
            next += 1;
        }
        rest.extend_from_slice(&m[full..]);
    }
    rest.sort_by_key(|&i| (z[i as usize], i));
    for chunk in rest.chunks(group) {
        for &i in chunk {
            out[i as usize] = next;
        }
        next += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_at_the_edge_of_f32_do_not_overflow() {
        let pos = vec![
            [f32::MAX, 0.0, 0.0],
            [-f32::MAX, 0.0, 0.0],
            [f32::INFINITY, 1.0, 0.0],
            [0.0, 0.0, 0.0],
        ];
        let l = clusters(&pos, &ClusterParams::default());
        assert_eq!(l.len(), 4);
    }

    #[test]
    fn two_blobs_and_a_singleton() {
        let mut pos = Vec::new();
        for i in 0..5 {
            pos.push([i as f32, 0.0, 0.0]);
        }
        for i in 0..5 {
            pos.push([100.0 + i as f32, 0.0, 0.0]);
        }
        pos.push([50.0, 50.0, 0.0]);
        assert_eq!(median_nn_distance(&pos), 1.0);
        let l = clusters(&pos, &ClusterParams::default());
        assert_eq!(l, vec![0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2]);
        assert_eq!(cluster_sizes(&l), vec![5, 5, 1]);
        // A radius below the spacing splits everything.
        let l = clusters(
            &pos,
            &ClusterParams {
                eps: Some(0.5),
                factor: 3.0,
            },
        );
        assert_eq!(cluster_sizes(&l).len(), 11);
    }

    #[test]
    fn three_d_and_coincident_points() {
        let pos = vec![
            [0.0, 0.0, 0.0],
            [0.0, 0.0, 1.0],
            [0.0, 0.0, 9.0],
            [0.0, 0.0, 10.0],
        ];
        assert_eq!(clusters(&pos, &ClusterParams::default()), vec![0, 0, 1, 1]);
        let same = vec![[1.0, 1.0, 0.0]; 4];
        assert_eq!(clusters(&same, &ClusterParams::default()), vec![0; 4]);
    }

    #[test]
    fn packing_fills_groups() {
        // Clusters of 5 and 3, groups of 2: 2 + 1 full groups, remainders
        // {one of cluster 0, one of cluster 1} pooled into one group.
        let labels = vec![0, 0, 0, 0, 0, 1, 1, 1];
        let pos: Vec<[f32; 3]> = (0..8).map(|i| [i as f32, 0.0, 0.0]).collect();
        let g = pack_groups(&labels, &pos, 2);
        let sizes = cluster_sizes(&g);
        assert_eq!(sizes, vec![2, 2, 2, 2]);
        // The first two groups hold only cluster-0 processes.
        for i in 0..8 {
            if g[i] < 2 {
                assert_eq!(labels[i], 0);
            }
        }
    }
}
