//! findNearest by spiraling (Bhatele & Kale §III): enumerate the nodes at hop
//! distance 0, 1, 2, … from the desired node and return the first shell's
//! available node with the smallest id.
//!
//! A shell at distance `d` is enumerated as every split `d = e_0 + … + e_{D−1}`
//! of the distance over the dimensions (`e_i` ≤ the largest distance reachable
//! along dimension `i` from the centre), and for each split every coordinate at
//! exactly distance `e_i` along dimension `i` (`c+e` then `c−e`, wrapped on a
//! torus dimension, dropped past a mesh boundary, deduplicated). This is the
//! paper's "choose x, then compute y from the distance", generalised to N
//! dimensions and to wraparound. The whole shell is scanned so that the
//! smallest-id tie-break ([`super`]) holds exactly.
//!
//! Cost: O(number of nodes within the answer's distance) per call — O(p) in
//! the worst case, which is why [`super::KdTree`] exists. Updates are O(1).

use super::{FindNearest, FreeCores, round_to_coord};
use crate::topology::{Grid, GridCoord, MAX_DIMS};

/// Spiral-enumeration findNearest.
#[derive(Clone, Debug)]
pub struct Spiral {
    grid: Grid,
    free: FreeCores,
}

impl Spiral {
    pub fn new(grid: &Grid) -> Self {
        Spiral {
            grid: grid.clone(),
            free: FreeCores::new(grid),
        }
    }

    /// Every node at exactly hop distance `dist` from `c`, in a fixed order;
    /// `visit` gets each node id once. See [`shell`].
    pub fn shell(&self, c: &GridCoord, dist: u32, visit: &mut impl FnMut(usize)) {
        shell(&self.grid, c, dist, visit)
    }
}

/// Largest distance reachable along dimension `d` from coordinate `c`.
#[inline]
fn max_reach(grid: &Grid, d: usize, c: u32) -> u32 {
    let k = grid.dims()[d];
    if grid.wraps(d) {
        k / 2
    } else {
        c.max(k - 1 - c)
    }
}

/// Every node of `grid` at exactly hop distance `dist` from `c`, in a fixed
/// order (dimensions in order, per-dimension distance ascending, `+` before
/// `−`); `visit` gets each node id once.
pub fn shell(grid: &Grid, c: &GridCoord, dist: u32, visit: &mut impl FnMut(usize)) {
    let nd = grid.ndims();
    let mut reach = [0u32; MAX_DIMS + 1];
    for d in (0..nd).rev() {
        reach[d] = reach[d + 1] + max_reach(grid, d, c[d]);
    }
    if dist > reach[0] {
        return;
    }
    shell_rec(grid, c, 0, dist, 0, &reach, visit);
}

fn shell_rec(
    grid: &Grid,
    c: &GridCoord,
    d: usize,
    left: u32,
    partial: usize,
    reach: &[u32; MAX_DIMS + 1],
    visit: &mut impl FnMut(usize),
) {
    let nd = grid.ndims();
    if d == nd {
        if left == 0 {
            visit(partial);
        }
        return;
    }
    let k = grid.dims()[d];
    let stride = grid.strides()[d];
    let here = max_reach(grid, d, c[d]);
    if d + 1 == nd && left > here {
        return;
    }
    // e must leave a remainder the later dimensions can still cover.
    let lo = left.saturating_sub(reach[d + 1]);
    let hi = if d + 1 == nd { left } else { left.min(here) };
    for e in lo..=hi {
        let (plus, minus) = if grid.wraps(d) {
            ((c[d] + e) % k, (c[d] + k - e % k) % k)
        } else {
            (
                if c[d] + e < k { c[d] + e } else { u32::MAX },
                if c[d] >= e { c[d] - e } else { u32::MAX },
            )
        };
        if plus != u32::MAX {
            shell_rec(
                grid,
                c,
                d + 1,
                left - e,
                partial + plus as usize * stride,
                reach,
                visit,
            );
        }
        if minus != u32::MAX && minus != plus {
            shell_rec(
                grid,
                c,
                d + 1,
                left - e,
                partial + minus as usize * stride,
                reach,
                visit,
            );
        }
    }
}

impl FindNearest for Spiral {
    fn find(&self, desired: &[f64]) -> Option<usize> {
        if self.free.total == 0 {
            return None;
        }
        let c = round_to_coord(&self.grid, desired);
        let max = self.grid.diameter();
        for dist in 0..=max {
            let mut best = usize::MAX;
            self.shell(&c, dist, &mut |n| {
                if n < best && self.free.free[n] > 0 {
                    best = n;
                }
            });
            if best != usize::MAX {
                return Some(best);
            }
        }
        None
    }
    fn take(&mut self, node: usize) -> Option<u32> {
        self.free.take(node)
    }
    fn free_cores(&self, node: usize) -> u32 {
        self.free.free.get(node).copied().unwrap_or(0)
    }
    fn free_slots(&self) -> usize {
        self.free.total
    }
    fn grid(&self) -> &Grid {
        &self.grid
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shell_of(g: &Grid, c: &[u32], d: u32) -> Vec<usize> {
        let s = Spiral::new(g);
        let mut cc = [0u32; MAX_DIMS];
        cc[..c.len()].copy_from_slice(c);
        let mut v = Vec::new();
        s.shell(&cc, d, &mut |n| v.push(n));
        v
    }

    #[test]
    fn spiral_order_on_a_small_mesh_by_hand() {
        // 4x3 mesh, ids x + 4y:
        //  8  9 10 11
        //  4  5  6  7
        //  0  1  2  3
        let g = Grid::mesh(&[4, 3]);
        assert_eq!(shell_of(&g, &[1, 1], 0), vec![5]);
        // e_x = 0 (y±1), then e_x = 1 (x+1, x−1).
        assert_eq!(shell_of(&g, &[1, 1], 1), vec![9, 1, 6, 4]);
        assert_eq!(shell_of(&g, &[1, 1], 2), vec![10, 2, 8, 0, 7]);
        assert_eq!(shell_of(&g, &[1, 1], 3), vec![11, 3]);
        assert!(shell_of(&g, &[1, 1], 4).is_empty());
        // Every node exactly once over all shells, at its true distance.
        let mut all: Vec<usize> = (0..=5).flat_map(|d| shell_of(&g, &[0, 0], d)).collect();
        all.sort();
        assert_eq!(all, (0..12).collect::<Vec<_>>());
    }

    #[test]
    fn torus_shells_cover_each_node_once_at_its_distance() {
        for dims in [vec![5u32, 4], vec![3, 4, 2], vec![6]] {
            let g = Grid::torus(&dims);
            for centre in 0..g.num_nodes() {
                let c = g.coord(centre);
                let mut seen = vec![0; g.num_nodes()];
                for d in 0..=g.diameter() {
                    for n in shell_of(&g, &c[..dims.len()], d) {
                        assert_eq!(g.distance(centre, n), d);
                        seen[n] += 1;
                    }
                }
                assert!(seen.iter().all(|&s| s == 1), "{dims:?} {centre}");
            }
        }
    }

    #[test]
    fn spiral_finds_nearest_smallest_id() {
        let g = Grid::mesh(&[4, 3]);
        let mut s = Spiral::new(&g);
        for n in [5, 9, 1, 6, 4] {
            s.take(n);
        }
        // Distance-2 shell around 5 is {10, 2, 8, 0, 7}: smallest id 0.
        assert_eq!(s.find(&[1.2, 0.9]), Some(0));
    }
}
