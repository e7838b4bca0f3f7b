//! findNearest (Bhatele & Kale §III): given a *desired* position on a
//! mesh/torus and the set of nodes that still have a free core, return the
//! nearest available node.
//!
//! Two implementations return exactly the same node for the same query:
//!
//! * [`Spiral`] (§III, "spiraling through enumeration"): enumerate the nodes at
//!   hop distance 0, 1, 2, … from the desired node, shell by shell. Worst case
//!   O(p) per call on a full machine.
//! * [`KdTree`] (§III-A, the quadtree/octree, generalised to N dimensions as a
//!   k-d tree): the grid is bisected recursively (longest side first), every
//!   tree node keeps the number of free slots in its box, and the search
//!   descends only into boxes that have a free slot and whose torus-aware
//!   lower-bound distance can still beat the best node found so far. We descend
//!   from the root, nearer child first (the paper walks up from the desired
//!   leaf; see [`kdtree`]). O(log p) per update, O(log² p) typical per query.
//!
//! **Query semantics (shared by both).** The desired position may be
//! fractional (e.g. a centroid). It is first *rounded to a node*: every
//! coordinate is rounded to the nearest integer (halves away from zero), then
//! wrapped modulo the dimension size on a dimension with wrap links
//! ([`Grid::wraps`]) or clamped to `[0, k−1]` otherwise. Distances are then the
//! grid's hop distances ([`Grid::distance`], torus-aware) from that node.
//!
//! **Tie-break.** Among available nodes at the same hop distance the one with
//! the *smallest node id* wins (ids are X-fastest, [`Grid::node`]).
//!
//! **Cores.** A node is available while it has a free core. [`FindNearest::take`]
//! hands out a node's cores in order 0, 1, 2, …; a mapper calls `find` then
//! `take` on the returned node.

pub mod fabric;
pub mod kdtree;
pub mod spiral;

pub use fabric::FabricFinder;
pub use kdtree::KdTree;
pub use spiral::Spiral;

use crate::error::{Error, Result};
use crate::topology::{Grid, GridCoord, MAX_DIMS};

/// The findNearest interface shared by both implementations.
pub trait FindNearest {
    /// The nearest node with a free core to `desired` (one coordinate per grid
    /// dimension, possibly fractional; missing coordinates count as 0), or
    /// None when every slot is taken. See the module docs for rounding and the
    /// tie-break.
    fn find(&self, desired: &[f64]) -> Option<usize>;
    /// Take the next free core of `node`; returns the core index, or None if
    /// the node is full (nothing changes then).
    fn take(&mut self, node: usize) -> Option<u32>;
    /// Free cores left on `node`.
    fn free_cores(&self, node: usize) -> u32;
    /// Free slots left in the whole grid.
    fn free_slots(&self) -> usize;
    /// The grid searched.
    fn grid(&self) -> &Grid;
}

/// Which implementation to use (`find=spiral|tree` mapper parameter).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum FindKind {
    Spiral,
    #[default]
    Tree,
}

impl FindKind {
    /// Parse `spiral` or `tree` (also `quadtree`, `octree`, `kdtree`).
    pub fn parse(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "spiral" => Ok(FindKind::Spiral),
            "tree" | "kdtree" | "quadtree" | "octree" => Ok(FindKind::Tree),
            _ => Err(Error::spec(
                "findNearest kind",
                s,
                "expected `spiral` or `tree`",
            )),
        }
    }
}

/// Either implementation behind one type (what the mappers hold).
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)] // one per mapper run; boxing buys nothing
pub enum Finder {
    Spiral(Spiral),
    Tree(KdTree),
    /// Switch fabrics: nearest free host by routing distance.
    Fabric(FabricFinder),
}

impl Finder {
    /// A finder over `grid` with every core free.
    pub fn new(kind: FindKind, grid: &Grid) -> Self {
        match kind {
            FindKind::Spiral => Finder::Spiral(Spiral::new(grid)),
            FindKind::Tree => Finder::Tree(KdTree::new(grid)),
        }
    }
}

impl FindNearest for Finder {
    fn find(&self, desired: &[f64]) -> Option<usize> {
        match self {
            Finder::Spiral(s) => s.find(desired),
            Finder::Tree(t) => t.find(desired),
            Finder::Fabric(f) => f.find(desired),
        }
    }
    fn take(&mut self, node: usize) -> Option<u32> {
        match self {
            Finder::Spiral(s) => s.take(node),
            Finder::Tree(t) => t.take(node),
            Finder::Fabric(f) => f.take(node),
        }
    }
    fn free_cores(&self, node: usize) -> u32 {
        match self {
            Finder::Spiral(s) => s.free_cores(node),
            Finder::Tree(t) => t.free_cores(node),
            Finder::Fabric(f) => f.free_cores(node),
        }
    }
    fn free_slots(&self) -> usize {
        match self {
            Finder::Spiral(s) => s.free_slots(),
            Finder::Tree(t) => t.free_slots(),
            Finder::Fabric(f) => f.free_slots(),
        }
    }
    fn grid(&self) -> &Grid {
        match self {
            Finder::Spiral(s) => s.grid(),
            Finder::Tree(t) => t.grid(),
            Finder::Fabric(f) => f.grid(),
        }
    }
}

/// Round a desired (possibly fractional) position to grid coordinates: round
/// half away from zero, then wrap (dimensions with wrap links) or clamp.
pub fn round_to_coord(grid: &Grid, desired: &[f64]) -> GridCoord {
    let mut c = [0u32; MAX_DIMS];
    for d in 0..grid.ndims() {
        let k = grid.dims()[d] as i64;
        let x = desired.get(d).copied().unwrap_or(0.0);
        let r = if x.is_finite() {
            x.round().clamp(-1e15, 1e15) as i64
        } else {
            0
        };
        c[d] = if grid.wraps(d) {
            r.rem_euclid(k) as u32
        } else {
            r.clamp(0, k - 1) as u32
        };
    }
    c
}

/// The node a desired position rounds to (see [`round_to_coord`]).
pub fn round_to_node(grid: &Grid, desired: &[f64]) -> usize {
    grid.node(&round_to_coord(grid, desired))
}

/// Per-node free-core counter shared by both implementations.
#[derive(Clone, Debug)]
pub(crate) struct FreeCores {
    pub free: Vec<u32>,
    pub total: usize,
    pub cores: u32,
}

impl FreeCores {
    pub fn new(grid: &Grid) -> Self {
        let cores = grid.cores().max(1);
        FreeCores {
            free: vec![cores; grid.num_nodes()],
            total: grid.num_nodes() * cores as usize,
            cores,
        }
    }
    /// Take one core; returns its index.
    pub fn take(&mut self, node: usize) -> Option<u32> {
        let f = self.free.get_mut(node)?;
        if *f == 0 {
            return None;
        }
        let core = self.cores - *f;
        *f -= 1;
        self.total -= 1;
        Some(core)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_wraps_on_torus_and_clamps_on_mesh() {
        let t = Grid::torus(&[8, 4]);
        assert_eq!(&round_to_coord(&t, &[7.6, -0.6])[..2], &[0, 3]);
        assert_eq!(&round_to_coord(&t, &[2.5, 1.49])[..2], &[3, 1]);
        let m = Grid::mesh(&[8, 4]);
        assert_eq!(&round_to_coord(&m, &[7.6, -0.6])[..2], &[7, 0]);
        assert_eq!(round_to_node(&m, &[1.0, 2.0]), 1 + 8 * 2);
        assert_eq!(FindKind::parse("Spiral").unwrap(), FindKind::Spiral);
        assert!(FindKind::parse("heap").is_err());
    }

    #[test]
    fn both_finders_hand_out_cores_in_order() {
        let g = Grid::new(&[2, 2], &[false, false], 3).unwrap();
        for kind in [FindKind::Spiral, FindKind::Tree] {
            let mut f = Finder::new(kind, &g);
            assert_eq!(f.free_slots(), 12);
            assert_eq!(f.find(&[1.0, 1.0]), Some(3));
            assert_eq!(f.take(3), Some(0));
            assert_eq!(f.take(3), Some(1));
            assert_eq!(f.take(3), Some(2));
            assert_eq!(f.take(3), None);
            assert_eq!(f.free_cores(3), 0);
            assert_eq!(f.free_slots(), 9);
            // Nodes 1 and 2 are both at distance 1: the smaller id wins.
            assert_eq!(f.find(&[1.0, 1.0]), Some(1));
        }
    }
}
