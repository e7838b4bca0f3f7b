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
//!   `c_rep · m_i m_j / d²`, attraction by the summed `f`, displacement
//!   `h·F/m` — so a coarse layout approximates the fine one at its own scale
//!   and no rescaling is needed between levels.
//! * **Prolongation**: each fine point starts at its coarse parent's
//!   position plus a small seeded jitter (a quarter of the coarse mean edge
//!   length), then the level is refined with the same engine.

use super::gravity::ForceGraph;
use crate::rng::Rng;

/// Coarsening stops at or below this many points.
pub const COARSEST: usize = 32;

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
    edges.sort_unstable_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
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
