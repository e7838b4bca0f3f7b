//! The mapping's images under the symmetries of a mesh or torus that keep
//! every distance but change dimension-order routes, and the one of least
//! max link load. Beyond the seed papers: a mapping and its image under a
//! network automorphism have the same hop-bytes, but dimension-order
//! routing ([`crate::routing::Routing::Dor`]) is not invariant under all of
//! them, so their largest channel loads may differ.
//!
//! The symmetries tried: permutations of dimensions of the same size and
//! wrap (the image routes its messages in another order of dimensions),
//! composed with reflections of wrapped dimensions of even size of at least
//! 4 (an exact half-ring tie goes the other way round). Translations of a
//! torus, reflections of open or odd dimensions, and rings of 2 are left
//! out: their images' loads are the original loads on other channels, so
//! the largest load is the same. At most [`MAX_IMAGES`] images, the
//! identity first, in a fixed order (permutations in lexicographic order,
//! then reflection masks counting up): deterministic.
//!
//! Cost: O(images · m · L) to route every message of each image (L: route
//! length; an image is dropped as soon as one channel reaches the best
//! largest load so far), O(n + slots) to relabel the mapping.

use super::{FREE, Refine};
use crate::topology::Grid;

/// Most images tried (the identity included): 3! permutations of a cube's
/// dimensions times 2³ reflections.
pub const MAX_IMAGES: usize = 48;

/// A symmetry: node coordinate k of the image is coordinate `perm[k]` of
/// the node, reflected (`size − 1 − c`) when bit k of `refl` is set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    pub perm: Vec<usize>,
    pub refl: u32,
}

/// The symmetries of `grid` whose images may change the largest
/// dimension-order load, the identity first, at most [`MAX_IMAGES`].
/// O(images · dims).
pub fn images(grid: &Grid) -> Vec<Image> {
    let nd = grid.ndims();
    let (dims, wrap) = (grid.dims(), grid.wrap());
    let reflectable: u32 = (0..nd)
        .filter(|&k| wrap[k] && dims[k] >= 4 && dims[k] % 2 == 0)
        .fold(0, |m, k| m | 1 << k);
    let mut out = Vec::new();
    let mut perm: Vec<usize> = (0..nd).collect();
    loop {
        if (0..nd).all(|k| dims[perm[k]] == dims[k] && wrap[perm[k]] == wrap[k]) {
            // Every subset of the reflectable dimensions, counting up.
            let mut refl = 0u32;
            loop {
                if out.len() == MAX_IMAGES {
                    return out;
                }
                out.push(Image {
                    perm: perm.clone(),
                    refl,
                });
                if refl == reflectable {
                    break;
                }
                refl = (refl | !reflectable).wrapping_add(1) & reflectable;
            }
        }
        if !next_permutation(&mut perm) {
            return out;
        }
    }
}

/// The next permutation in lexicographic order; false after the last.
fn next_permutation(p: &mut [usize]) -> bool {
    let n = p.len();
    if n < 2 {
        return false;
    }
    let mut i = n - 1;
    while i > 0 && p[i - 1] >= p[i] {
        i -= 1;
    }
    if i == 0 {
        return false;
    }
    let mut j = n - 1;
    while p[j] <= p[i - 1] {
        j -= 1;
    }
    p.swap(i - 1, j);
    p[i..].reverse();
    true
}

/// The node each node goes to under `img`. O(nodes · dims).
pub fn node_map(grid: &Grid, img: &Image) -> Vec<u32> {
    let nd = grid.ndims();
    let dims = grid.dims();
    let mut c2 = vec![0u32; nd];
    (0..grid.num_nodes())
        .map(|u| {
            let c = grid.coord(u);
            for k in 0..nd {
                let x = c[img.perm[k]];
                c2[k] = if img.refl >> k & 1 == 1 {
                    dims[k] - 1 - x
                } else {
                    x
                };
            }
            grid.node(&c2) as u32
        })
        .collect()
}

impl Refine {
    /// Move the mapping to its image of least largest load (dimension-order
    /// routing) when that is lower than the current one by more than
    /// rounding; hop-bytes and every process's cost are unchanged. The
    /// loads must be current. Returns whether the mapping moved.
    /// O(images · m · L + n + slots).
    pub(super) fn best_image(&mut self) -> bool {
        let Some(map) = self.least_image(&self.node_of, self.max_load()) else {
            return false;
        };
        self.owner.iter_mut().for_each(|o| *o = FREE);
        // Moved without `apply`: the search's memo no longer holds.
        self.after_memo = Default::default();
        for p in 0..self.graph.n() {
            let b = map[self.node_of[p] as usize];
            self.node_of[p] = b;
            let s = b as usize * self.cores + self.core_of[p] as usize;
            self.owner[s] = p as u32;
            self.placement[p] = Some(s as u32);
        }
        self.route_all();
        true
    }

    /// Of the images of the mapping whose processes are on nodes `node_of`
    /// (largest load `max`), the node map ([`node_map`]) of the one of least
    /// largest load, when that is below `max` by more than rounding; None
    /// when no image is lower (or the network has no such symmetry).
    /// O(images · m · L).
    pub(super) fn least_image(&self, node_of: &[u32], max: f64) -> Option<Vec<u32>> {
        let grid = self.topo.as_grid()?;
        let list = images(grid);
        if list.len() < 2 {
            return None;
        }
        let mut best = max;
        let tol = 1e-9 * best;
        let mut pick: Option<Vec<u32>> = None;
        let mut load = vec![0.0; self.topo.channel_slots()];
        for img in &list[1..] {
            let map = node_map(grid, img);
            load.iter_mut().for_each(|l| *l = 0.0);
            // Loads only grow as messages are added: the image is out as
            // soon as one channel reaches the best largest load.
            let bar = best - tol;
            let mut out = false;
            for (u, v, b) in self.graph.messages() {
                let a = map[node_of[u] as usize] as usize;
                let c = map[node_of[v] as usize] as usize;
                self.routes.route(a, c, b, &mut |ch, x| {
                    load[ch] += x;
                    out |= load[ch] >= bar;
                });
                if out {
                    break;
                }
            }
            if !out {
                best = load.iter().cloned().fold(0.0, f64::max);
                pick = Some(map);
            }
        }
        pick
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Refine, RefineParams};
    use super::*;
    use crate::graph::GraphBuilder;
    use crate::mapping::Mapping;
    use crate::metrics::evaluate;
    use crate::routing::Routing;
    use crate::topology::Topology;
    use std::sync::Arc;

    #[test]
    fn the_reflected_ring_sends_the_half_ring_tie_the_other_way() {
        // torus:4 (a ring of 4 nodes, one core each); processes 0, 1, 2 on
        // nodes 0, 1, 2. Messages 0→2: 10 bytes (half way round: the tie
        // goes +, over channels 0→1 and 1→2) and 1→2: 10 (channel 1→2).
        // Loads: 1→2 20, 0→1 10; hop-bytes 30.
        //
        // The reflection x → 3 − x puts 0, 1, 2 on nodes 3, 2, 1: 0→2 is
        // now 3→1, still a tie, so + again (3→0, 0→1), and 1→2 is 2→1.
        // Loads 10 on each of three channels: the largest load falls from
        // 20 to 10 at the same hop-bytes.
        let mut gb = GraphBuilder::new(3, true);
        gb.add(0, 2, 10.0);
        gb.add(1, 2, 10.0);
        let g = Arc::new(gb.build().unwrap());
        let topo = Arc::new(Topology::parse("torus:4").unwrap());
        let vol = Arc::new(crate::partition::pair_volumes(&g));
        let start = Mapping::new(vec![0, 1, 2], vec![0; 3]);
        let eval = |m: &Mapping| {
            let e = evaluate(&g, &topo, m, &Routing::Dor).metrics;
            (e.hop_bytes, e.max_link_load)
        };
        assert_eq!(eval(&start), (30.0, 20.0));
        let mut r = Refine::new(
            g.clone(),
            topo.clone(),
            vol,
            start,
            RefineParams::hand_checked(0.01),
        );
        r.route_all();
        assert!(r.best_image());
        let end = r.mapping();
        assert_eq!(end.node, vec![3, 2, 1]);
        assert_eq!(eval(&end), (30.0, 10.0));
        assert_eq!(r.max_load(), 10.0);
        // The image is the best one: no other lowers it further.
        assert!(!r.best_image());
    }

    #[test]
    fn a_torus_has_its_equal_dimensions_permuted_and_its_even_rings_reflected() {
        // 4 × 4 × 8: x and y may swap (2 permutations), and x, y, z are
        // even rings of at least 4 (8 reflection masks): 16 images.
        let g = Grid::torus(&[4, 4, 8]);
        let list = images(&g);
        assert_eq!(list.len(), 16);
        assert_eq!(
            list[0],
            Image {
                perm: vec![0, 1, 2],
                refl: 0
            }
        );
        assert_eq!(
            list[8],
            Image {
                perm: vec![1, 0, 2],
                refl: 0
            }
        );
        // A ring of 2 and an odd ring are not reflected; a mesh never is.
        assert_eq!(images(&Grid::torus(&[2, 4, 5])).len(), 2);
        assert_eq!(images(&Grid::mesh(&[8, 8])).len(), 2);
        assert_eq!(images(&Grid::mesh(&[16, 8])).len(), 1);
        // 8 × 8 × 8: 6 permutations × 8 masks, the cap.
        assert_eq!(images(&Grid::torus(&[8, 8, 8])).len(), MAX_IMAGES);
    }

    #[test]
    fn an_image_maps_coordinates_as_its_permutation_and_reflection_say() {
        // torus 4 × 4: node = x + 4y. Swap x and y and reflect the new x:
        // (x, y) → (3 − y, x). Node 1 = (1, 0) → (3, 1) = 7.
        let g = Grid::torus(&[4, 4]);
        let map = node_map(
            &g,
            &Image {
                perm: vec![1, 0],
                refl: 1,
            },
        );
        assert_eq!(map[1], 7);
        assert_eq!(map[0], 3);
        let mut sorted = map.clone();
        sorted.sort();
        assert_eq!(sorted, (0..16).collect::<Vec<u32>>());
    }
}
