//! The descent phase of [`Refine`]: after the best-improvement search has
//! stopped, a seeded first-improvement descent over the same kind of
//! neighbourhood, sampled at random: pick a process `p` at random, one of
//! its partners `v` at random, and a node `b` at random among `v`'s node
//! and that node's neighbours (VieM's N_C^1, Schulz & Träff, SEA 2017, §4);
//! pick a core of `b` at random and apply the move or swap there if it
//! lowers hop-bytes. Beyond the seed papers.
//!
//! Why: the best-improvement search stops at a local optimum of its own
//! candidate order (or when a sweep gains less than `tol`), and random
//! first-improvement moves from there still find gains on meshes folded
//! into tori (a METIS-made 2D mesh of 1,024 parts on an 8 × 8 × 16 torus:
//! 0.935 → about 0.92 × Scotch's hop-bytes; `docs/mapping-quality.md`).
//!
//! It stops after [`TRIES_PER_PROCESS`] × n tries, or once
//! [`IDLE_PER_PROCESS`] × n tries in a row found nothing; it runs on
//! inputs of at most [`MAX_PROCESSES`] processes. Cost: at most that many
//! tries, each O(deg p + deg q) distance look-ups (O(1) with the distance
//! table) plus the neighbours of one node; a step makes 16 × `batch` tries. Only for the `hopbytes`
//! objective (the loads are not kept during it; the bottleneck phase that
//! follows routes everything afresh). Hop-bytes never rise.

use super::{FREE, Refine};

/// Largest input the phase runs on: above it its cost (measured: about
/// +50 % of `recursive+refine`'s time on METIS-made 3D meshes of 4,096 and
/// 16,384 parts, for about 1 % fewer hop-bytes) would break the speed
/// target against Scotch's gmap.
pub const MAX_PROCESSES: usize = 1024;
/// Tries per process, at most.
pub const TRIES_PER_PROCESS: usize = 64;
/// The phase stops once this many tries per process in a row found nothing.
pub const IDLE_PER_PROCESS: usize = 16;

impl Refine {
    /// Up to `tries` random tries, stopping once [`IDLE_PER_PROCESS`] × n
    /// tries in a row found nothing (`idle` counts them across calls);
    /// returns the tries made.
    pub(super) fn descent_tries(&mut self, tries: usize, idle: &mut usize) -> usize {
        let n = self.graph.n();
        let mut made = 0;
        let mut partners = std::mem::take(&mut self.partners);
        while made < tries && *idle < IDLE_PER_PROCESS * n {
            made += 1;
            *idle += 1;
            let p = self.rng.below(n);
            let deg = self.graph.degree(p);
            if deg == 0 {
                continue;
            }
            let v = self.graph.neighbors(p)[self.rng.below(deg)] as usize;
            let nv = self.node_of[v] as usize;
            self.frontier.clear();
            if let Some(g) = self.topo.as_grid() {
                g.neighbors_into(nv, &mut self.frontier);
            } else {
                self.frontier = self.topo.neighbors(nv);
            }
            let k = self.rng.below(self.frontier.len() + 1);
            let b = if k == self.frontier.len() {
                nv
            } else {
                self.frontier[k]
            };
            let a = self.node_of[p] as usize;
            if a == b {
                continue;
            }
            let s = b * self.cores + self.rng.below(self.cores);
            let off = self.graph.offsets()[p];
            partners.clear();
            for (j, &w) in self.graph.neighbors(p).iter().enumerate() {
                partners.push((self.node_of[w as usize] as usize, self.vol[off + j]));
            }
            let gp = self.gain_at(&partners, b, self.cost[p]);
            let q = self.owner[s];
            let dhb = if q == FREE {
                gp
            } else {
                let q = q as usize;
                let dab = self.dist.get(a, b) as f64;
                gp + self.cost_at(q, a) - self.cost[q] + 2.0 * self.pair_volume(p, q) * dab
            };
            if dhb < -self.hb_eps {
                let ex = self.apply(p, s, dhb);
                self.last.push(ex);
                *idle = 0;
            }
        }
        self.partners = partners;
        made
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Objective, Refine, RefineParams};
    use crate::generate::{GenOptions, generate};
    use crate::mappers::MapperInput;
    use crate::topology::Topology;
    use std::sync::Arc;

    #[test]
    fn the_descent_lowers_hop_bytes_after_a_short_search() {
        // A 16 × 16 stencil from a random placement on a 4 × 4 × 16 torus:
        // one sweep of the search leaves gains, which the descent finds;
        // hop-bytes never rise and the cost cache stays exact.
        let g = Arc::new(generate("stencil:16x16", &GenOptions::default()).unwrap());
        let topo = Arc::new(Topology::parse("torus:4x4x16").unwrap());
        let start = crate::mappers::run(
            &crate::mappers::random::info(),
            &MapperInput::new(g.clone(), topo.clone(), 1),
        )
        .unwrap();
        let params = RefineParams {
            objective: Objective::HopBytes,
            sweeps: 1,
            batch: 64,
            depth: 0,
            time: None,
            seed: 1,
            tol: 0.0,
            load_budget: 0.0,
            tabu: 0,
        };
        let vol = Arc::new(crate::partition::pair_volumes(&g));
        let mut r = Refine::new(g.clone(), topo.clone(), vol, start, params);
        let mut at_descent = None;
        while !r.is_done() {
            r.step();
            if r.descent.is_some() && at_descent.is_none() {
                at_descent = Some(r.hop_bytes());
            }
            assert!(r.cost_cache_error() <= 1e-9 * r.hop_bytes().max(1.0));
        }
        let before = at_descent.expect("the descent ran");
        let after = crate::metrics::hop_bytes(&g, &topo, &r.mapping());
        assert!(after < 0.99 * before, "{after} vs {before}");
        let tr = r.hop_bytes_trace();
        assert!(tr.windows(2).all(|w| w[1] <= w[0] * (1.0 + 1e-12)));
    }
}
