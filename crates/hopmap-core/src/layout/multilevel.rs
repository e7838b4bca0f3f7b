//! Multilevel scheme on top of Bobrik & Popova's method — our addition, not
//! in the paper. A single-level force layout started at random folds on large
//! meshes; coarsening first lays out the global shape on a small graph.
//!
//! * **Coarsening** by heavy-edge matching: visit the points in a seeded
//!   random order; match each unmatched point with the unmatched partner of
//!   largest `f_uv / (m_u · m_v)` (heavy edge, light vertices, so sizes stay
//!   balanced). Matched pairs merge into one coarse point of mass
//!   `m_u + m_v`; parallel coarse edges sum their weights. Repeat until at
//!   most [`COARSEST`] points remain or a round removes under 10% of them.
//!   O(m log m) per level, about log₂ n levels.
//! * **Coarse physics**: the same force law with masses — repulsion
//!   `c_rep · m_i m_j / d^p`, attraction by the summed `f`, displacement
//!   `h·F/m` — so a coarse layout approximates the fine one at its own scale
//!   and no rescaling is needed between levels.
//! * **Prolongation**: each fine point starts at its coarse parent's
//!   position plus a small seeded jitter (a quarter of the coarse mean edge
//!   length), then the level is refined with the same engine.

use super::gravity::ForceGraph;
use crate::rng::Rng;

/// Coarsening stops at or below this many points.
pub const COARSEST: usize = 64;

/// Largest point count [`mds_positions`] runs classical MDS on: its
/// distance matrix is n² entries (12 MB at 1000) and its power iterations
/// n² work each.
pub const MDS_MAX_POINTS: usize = 1000;

/// One coarsening round. Returns the coarse graph and the fine → coarse map,
/// or None when the round would remove under 10% of the points.
pub fn coarsen(g: &ForceGraph, rng: &mut Rng) -> Option<(ForceGraph, Vec<u32>)> {
    let n = g.n();
    let mut order: Vec<u32> = (0..n as u32).collect();
    rng.shuffle(&mut order);
    let mut mate = vec![u32::MAX; n];
    for &u in &order {
        let u = u as usize;
        if mate[u] != u32::MAX {
            continue;
        }
        let mut best = u32::MAX;
        let mut best_score = 0f32;
        for k in g.offsets[u] as usize..g.offsets[u + 1] as usize {
            let v = g.targets[k] as usize;
            if v == u || mate[v] != u32::MAX {
                continue;
            }
            let s = g.weights[k] / (g.mass[u] * g.mass[v]);
            if s > best_score {
                best_score = s;
                best = v as u32;
            }
        }
        if best != u32::MAX {
            mate[u] = best;
            mate[best as usize] = u as u32;
        } else {
            mate[u] = u as u32;
        }
    }
    // Number coarse points in fine order (deterministic).
    let mut map = vec![u32::MAX; n];
    let mut nc = 0u32;
    for u in 0..n {
        if map[u] == u32::MAX {
            map[u] = nc;
            let v = mate[u] as usize;
            map[v] = nc;
            nc += 1;
        }
    }
    let nc = nc as usize;
    if nc as f64 > 0.9 * n as f64 {
        return None;
    }
    let mut mass = vec![0f32; nc];
    for u in 0..n {
        mass[map[u] as usize] += g.mass[u];
    }
    // Coarse edges: collect (cu, cv, w), sort, merge.
    let mut edges: Vec<(u32, u32, f32)> = Vec::with_capacity(g.targets.len());
    for u in 0..n {
        let cu = map[u];
        for k in g.offsets[u] as usize..g.offsets[u + 1] as usize {
            let cv = map[g.targets[k] as usize];
            if cu != cv {
                edges.push((cu, cv, g.weights[k]));
            }
        }
    }
    edges.sort_unstable_by_key(|a| (a.0, a.1));
    let mut offsets = vec![0u32; nc + 1];
    let mut targets = Vec::with_capacity(edges.len());
    let mut weights = Vec::with_capacity(edges.len());
    let mut last: Option<(u32, u32)> = None;
    for &(a, b, w) in &edges {
        if last == Some((a, b)) {
            *weights.last_mut().expect("an edge was pushed") += w;
        } else {
            targets.push(b);
            weights.push(w);
            offsets[a as usize + 1] += 1;
            last = Some((a, b));
        }
    }
    for i in 0..nc {
        offsets[i + 1] += offsets[i];
    }
    Some((
        ForceGraph {
            offsets,
            targets,
            weights,
            mass,
        },
        map,
    ))
}

/// The hierarchy: `graphs[0]` is the finest; `maps[l]` sends a point of
/// level `l` to its parent in level `l + 1`.
#[derive(Clone, Debug)]
pub struct Hierarchy {
    pub graphs: Vec<ForceGraph>,
    pub maps: Vec<Vec<u32>>,
}

impl Hierarchy {
    /// Coarsen `g` until at most `COARSEST` points remain, coarsening stalls,
    /// or `max_levels` levels exist. `max_levels = 1` gives the single level.
    pub fn build(g: ForceGraph, max_levels: usize, seed: u64) -> Self {
        let mut rng = Rng::new(seed ^ 0x6D75_6C74_696C_6576);
        let mut graphs = vec![g];
        let mut maps = Vec::new();
        while graphs.len() < max_levels {
            let last = graphs.last().expect("at least the finest level");
            if last.n() <= COARSEST {
                break;
            }
            match coarsen(last, &mut rng) {
                Some((c, m)) => {
                    graphs.push(c);
                    maps.push(m);
                }
                None => break,
            }
        }
        Hierarchy { graphs, maps }
    }

    pub fn levels(&self) -> usize {
        self.graphs.len()
    }

    /// The ancestor at level `level` of every finest point.
    pub fn ancestors(&self, level: usize) -> Vec<u32> {
        let mut a: Vec<u32> = (0..self.graphs[0].n() as u32).collect();
        for l in 0..level.min(self.maps.len()) {
            for x in a.iter_mut() {
                *x = self.maps[l][*x as usize];
            }
        }
        a
    }
}

/// Positions of level `fine` from those of level `fine + 1`: each point at
/// its parent's position plus a seeded jitter of size `jitter` per axis.
pub fn prolong(
    map: &[u32],
    coarse_pos: &[[f32; 3]],
    dim: usize,
    jitter: f32,
    rng: &mut Rng,
) -> Vec<[f32; 3]> {
    map.iter()
        .map(|&c| {
            let mut p = coarse_pos[c as usize];
            for a in p.iter_mut().take(dim) {
                *a += jitter * (rng.f64() as f32 - 0.5);
            }
            p
        })
        .collect()
}

/// Classical multidimensional scaling of the hop distances (Torgerson):
/// the coarsest level's start, so that the global shape begins unfolded (as
/// neato does). Unreachable pairs count as one hop more than the largest
/// finite distance. Points that MDS puts on one spot (twins: the same hop
/// distances to all others) are moved apart first
/// (`separate_coincident`). The result is scaled to the energy-optimal size for the
/// inverse-square law: with attraction energy `A·s` and repulsion energy
/// `R/s` at scale `s`, `s = sqrt(R/A)`. O(n·(n + m) + n²·iterations); meant
/// for the coarsest level (tens to a few hundred points).
///
/// Its O(n²) memory and time are capped: above [`MDS_MAX_POINTS`] points (a
/// coarsening that stalled, e.g. on a star) the start is the seeded random
/// one of [`super::init`] instead, at about one point per unit area.
pub fn mds_positions(
    g: &ForceGraph,
    dim: usize,
    c_att: f32,
    c_rep: f32,
    seed: u64,
) -> Vec<[f32; 3]> {
    let n = g.n();
    if n == 0 {
        return Vec::new();
    }
    if n > MDS_MAX_POINTS {
        return super::init::initial_positions(&super::init::Init::Random, n, dim, seed)
            .unwrap_or_else(|_| vec![[0.0; 3]; n]);
    }
    // All-pairs hop distances by BFS.
    let mut d = vec![u32::MAX; n * n];
    let mut q = std::collections::VecDeque::new();
    for s in 0..n {
        let row = &mut d[s * n..(s + 1) * n];
        row[s] = 0;
        q.clear();
        q.push_back(s);
        while let Some(u) = q.pop_front() {
            for k in g.offsets[u] as usize..g.offsets[u + 1] as usize {
                let v = g.targets[k] as usize;
                if row[v] == u32::MAX {
                    row[v] = row[u] + 1;
                    q.push_back(v);
                }
            }
        }
    }
    let maxd = d
        .iter()
        .filter(|&&x| x != u32::MAX)
        .max()
        .copied()
        .unwrap_or(0)
        + 1;
    // B = −½ J D² J.
    let mut b: Vec<f64> = d
        .iter()
        .map(|&x| {
            let x = if x == u32::MAX { maxd } else { x } as f64;
            -0.5 * x * x
        })
        .collect();
    let mut rm = vec![0f64; n];
    for i in 0..n {
        rm[i] = b[i * n..(i + 1) * n].iter().sum::<f64>() / n as f64;
    }
    let all = rm.iter().sum::<f64>() / n as f64;
    for i in 0..n {
        for j in 0..n {
            b[i * n + j] += all - rm[i] - rm[j];
        }
    }
    // Shift to make the top of the spectrum the largest in magnitude.
    let shift = (0..n)
        .map(|i| b[i * n..(i + 1) * n].iter().map(|x| x.abs()).sum::<f64>())
        .fold(0.0, f64::max);
    let mut rng = Rng::new(seed ^ 0x006D_6473);
    let mut vecs: Vec<Vec<f64>> = Vec::new();
    let mut vals: Vec<f64> = Vec::new();
    for _ in 0..dim {
        let mut v: Vec<f64> = (0..n).map(|_| rng.f64() - 0.5).collect();
        let mut lambda = 0.0;
        for _ in 0..300 {
            for (u, _) in vecs.iter().zip(&vals) {
                let dot: f64 = v.iter().zip(u).map(|(a, b)| a * b).sum();
                for (x, y) in v.iter_mut().zip(u) {
                    *x -= dot * y;
                }
            }
            let mut w = vec![0f64; n];
            for i in 0..n {
                let row = &b[i * n..(i + 1) * n];
                w[i] = row.iter().zip(&v).map(|(a, b)| a * b).sum::<f64>() + shift * v[i];
            }
            let norm = w.iter().map(|x| x * x).sum::<f64>().sqrt();
            if norm == 0.0 {
                break;
            }
            lambda = norm - shift;
            v = w.into_iter().map(|x| x / norm).collect();
        }
        vecs.push(v);
        vals.push(lambda.max(1e-9));
    }
    let mut pos: Vec<[f32; 3]> = (0..n)
        .map(|i| {
            let mut p = [0f32; 3];
            for a in 0..dim {
                p[a] = (vecs[a][i] * vals[a].sqrt()) as f32;
            }
            p
        })
        .collect();
    let dist = |a: &[f32; 3], b: &[f32; 3]| {
        (((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)) as f64).sqrt()
    };
    separate_coincident(g, &mut pos, dim, &mut rng);
    // Energy-optimal scale.
    let mut att = 0f64;
    for u in 0..n {
        for k in g.offsets[u] as usize..g.offsets[u + 1] as usize {
            att += c_att as f64 * g.weights[k] as f64 * dist(&pos[u], &pos[g.targets[k] as usize]);
        }
    }
    let mut rep = 0f64;
    for i in 0..n {
        for j in i + 1..n {
            rep += c_rep as f64 * (g.mass[i] * g.mass[j]) as f64 / dist(&pos[i], &pos[j]).max(1e-6);
        }
    }
    if att > 0.0 && rep > 0.0 {
        let s = (2.0 * rep / att).sqrt() as f32;
        for p in pos.iter_mut() {
            for x in p.iter_mut() {
                *x *= s;
            }
        }
    }
    pos
}

/// Move apart the points that classical MDS put on one spot. Two points
/// with the same hop distances to all others (two coarse points hanging
/// off the same neighbours) get the same coordinates; their repulsion
/// energy at the clamped distance would then dwarf every other term of
/// the energy-optimal scale and blow the start up fifty-fold (a 512-part
/// mesh drawn as clumps on a ring, edges 1,000 long beside edges of 1),
/// and the layout never recovers. A point within 10⁻³ median edge lengths
/// of an earlier one moves a quarter of a median edge length in a seeded
/// random direction. A start without such points is left as it is.
/// O(n² + m).
fn separate_coincident(g: &ForceGraph, pos: &mut [[f32; 3]], dim: usize, rng: &mut Rng) {
    let n = pos.len();
    let d2 = |a: &[f32; 3], b: &[f32; 3]| {
        (a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)
    };
    let mut lengths: Vec<f32> = (0..n)
        .flat_map(|u| {
            (g.offsets[u] as usize..g.offsets[u + 1] as usize)
                .map(move |k| (u, g.targets[k] as usize))
        })
        .map(|(u, v)| d2(&pos[u], &pos[v]).sqrt())
        .filter(|&l| l > 0.0 && l.is_finite())
        .collect();
    if lengths.is_empty() {
        return;
    }
    let mid = lengths.len() / 2;
    let median = *lengths.select_nth_unstable_by(mid, |a, b| a.total_cmp(b)).1;
    let tol2 = (1e-3 * median).powi(2);
    for i in 1..n {
        if (0..i).any(|j| d2(&pos[i], &pos[j]) <= tol2) {
            // A seeded direction (uniform in angle in 2D, a random unit
            // vector in 3D).
            let mut v = [0f32; 3];
            loop {
                for x in v.iter_mut().take(dim) {
                    *x = 2.0 * rng.f64() as f32 - 1.0;
                }
                let r2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
                if r2 > 1e-4 && r2 <= 1.0 {
                    let s = 0.25 * median / r2.sqrt();
                    for a in 0..dim {
                        pos[i][a] += s * v[a];
                    }
                    break;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphBuilder;
    use crate::layout::WeightNorm;

    fn path(n: usize) -> ForceGraph {
        let mut b = GraphBuilder::new(n, false);
        for i in 0..n - 1 {
            b.add(i, i + 1, if i % 2 == 0 { 10.0 } else { 1.0 });
        }
        ForceGraph::from_comm(&b.build().unwrap(), WeightNorm::Max)
    }

    #[test]
    fn heavy_edges_are_matched_and_mass_is_kept() {
        // Path 0=1-2=3-4=5 with heavy (=) edges: the matching takes exactly
        // the heavy edges whatever the visiting order.
        let g = path(6);
        let (c, map) = coarsen(&g, &mut Rng::new(1)).unwrap();
        assert_eq!(c.n(), 3);
        assert_eq!(map[0], map[1]);
        assert_eq!(map[2], map[3]);
        assert_eq!(map[4], map[5]);
        assert!(c.mass.iter().all(|&m| m == 2.0));
        // Coarse path with the light edges (0.1 each after max-normalisation).
        assert_eq!(c.targets.len(), 4);
        assert!(c.weights.iter().all(|&w| (w - 0.1).abs() < 1e-6));
    }

    #[test]
    fn mds_lays_a_path_on_a_line() {
        let g = path(10);
        let p = mds_positions(&g, 2, 1.0, 1.0, 1);
        // Consecutive points are ordered along the first axis.
        let inc = (0..9).all(|i| p[i + 1][0] > p[i][0]);
        let dec = (0..9).all(|i| p[i + 1][0] < p[i][0]);
        assert!(inc || dec, "{p:?}");
    }

    /// A 5×5 grid with `leaves` leaves hanging off corner 0.
    fn grid_with_leaves(leaves: usize) -> ForceGraph {
        let mut b = GraphBuilder::new(25 + leaves, false);
        for y in 0..5 {
            for x in 0..5 {
                if x < 4 {
                    b.add(5 * y + x, 5 * y + x + 1, 1.0);
                }
                if y < 4 {
                    b.add(5 * y + x, 5 * y + x + 5, 1.0);
                }
            }
        }
        for l in 0..leaves {
            b.add(0, 25 + l, 1.0);
        }
        ForceGraph::from_comm(&b.build().unwrap(), WeightNorm::Max)
    }

    fn median_edge(g: &ForceGraph, p: &[[f32; 3]]) -> f32 {
        let mut l: Vec<f32> = (0..g.n())
            .flat_map(|u| (g.offsets[u]..g.offsets[u + 1]).map(move |k| (u, k as usize)))
            .map(|(u, k)| {
                let q = p[g.targets[k] as usize];
                ((p[u][0] - q[0]).powi(2) + (p[u][1] - q[1]).powi(2)).sqrt()
            })
            .collect();
        l.sort_by(|a, b| a.total_cmp(b));
        l[l.len() / 2]
    }

    #[test]
    fn mds_separates_twins_and_keeps_its_scale() {
        // Leaves 25 and 26 have the same hop distances to every point, so
        // classical MDS puts them on one spot. They start a quarter of a
        // median edge apart, and the start has the size of the grid with
        // one leaf (without the separation: 0 apart and 93× larger).
        let (one, two) = (grid_with_leaves(1), grid_with_leaves(2));
        let p1 = mds_positions(&one, 2, 1.0, 1.0, 3);
        let p2 = mds_positions(&two, 2, 1.0, 1.0, 3);
        let (m1, m2) = (median_edge(&one, &p1), median_edge(&two, &p2));
        let d = ((p2[25][0] - p2[26][0]).powi(2) + (p2[25][1] - p2[26][1]).powi(2)).sqrt();
        assert!(
            (d / m2 - 0.25).abs() < 1e-3,
            "twins {d} apart, median edge {m2}"
        );
        assert!(m2 < 1.5 * m1 && m1 < 1.5 * m2, "median edges {m1} and {m2}");
        // A start without twins is left as it was.
        let mut q = p1.clone();
        separate_coincident(&one, &mut q, 2, &mut Rng::new(9));
        assert_eq!(q, p1);
    }

    #[test]
    fn mds_is_capped() {
        // A star cannot be coarsened below half its points; above the cap
        // the start is random (and allocates O(n), not O(n²)).
        let n = MDS_MAX_POINTS + 1;
        let mut b = GraphBuilder::new(n, false);
        for i in 1..n {
            b.add(0, i, 1.0);
        }
        let g = ForceGraph::from_comm(&b.build().unwrap(), WeightNorm::Max);
        let p = mds_positions(&g, 2, 1.0, 1.0, 7);
        assert_eq!(p.len(), n);
        assert!(p.iter().all(|q| q[2] == 0.0 && q[0].is_finite()));
        assert_eq!(p, mds_positions(&g, 2, 1.0, 1.0, 7));
    }

    #[test]
    fn hierarchy_shrinks_and_conserves_mass() {
        let h = Hierarchy::build(path(1000), 50, 3);
        assert!(h.levels() > 3);
        assert!(h.graphs.last().unwrap().n() <= COARSEST);
        for g in &h.graphs {
            let m: f32 = g.mass.iter().sum();
            assert!((m - 1000.0).abs() < 1e-3);
            // Symmetric CSR: equal entry counts in each direction.
            assert_eq!(g.targets.len() % 2, 0);
        }
        let top = h.levels() - 1;
        let anc = h.ancestors(top);
        assert!(anc.iter().all(|&a| (a as usize) < h.graphs[top].n()));
        assert_eq!(Hierarchy::build(path(1000), 1, 3).levels(), 1);
    }
}
