//! N-dimensional (1..=6) mesh / torus with per-dimension wraparound and
//! `cores` processes per node (the T dimension of Blue Gene, Balaji et al. §2.2).
//!
//! Node ids are X-fastest: `x + X*(y + Y*z)`. Hop distance is the sum over
//! dimensions of the shorter way round each ring (or the plain difference on
//! a non-wrapped dimension). Directed channels are indexed
//! `node * 2D + 2*dim + dir` with `dir` 0 for `+` and 1 for `−`; an index whose
//! link does not exist (a mesh boundary, or a dimension of size 1) carries no
//! traffic. A wrapped dimension of size 2 has a single link between its two
//! nodes (the `+` and `−` neighbours coincide), so it is treated as a mesh.

use crate::error::{Error, Result};

/// Largest supported number of dimensions.
pub const MAX_DIMS: usize = 6;

/// Coordinates of a node, padded with zeros past `ndims`.
pub type GridCoord = [u32; MAX_DIMS];

/// A mesh/torus of nodes with `cores` slots each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grid {
    dims: Vec<u32>,
    wrap: Vec<bool>,
    cores: u32,
    strides: Vec<usize>,
    nodes: usize,
}

impl Grid {
    /// A grid with the given sizes, wrap flags and cores per node.
    pub fn new(dims: &[u32], wrap: &[bool], cores: u32) -> Result<Self> {
        let spec = format!("{dims:?}");
        if dims.is_empty() || dims.len() > MAX_DIMS {
            return Err(Error::spec("topology", &spec, "needs 1 to 6 dimensions"));
        }
        if dims.len() != wrap.len() {
            return Err(Error::spec(
                "topology",
                &spec,
                "one wrap flag per dimension",
            ));
        }
        if dims.contains(&0) {
            return Err(Error::spec(
                "topology",
                &spec,
                "every dimension must be ≥ 1",
            ));
        }
        if cores == 0 || cores > 1024 {
            return Err(Error::spec("topology", &spec, "cores must be 1 to 1024"));
        }
        let mut strides = Vec::with_capacity(dims.len());
        let mut nodes: usize = 1;
        for &d in dims {
            strides.push(nodes);
            nodes = nodes
                .checked_mul(d as usize)
                .filter(|&n| n <= (1 << 28))
                .ok_or_else(|| Error::spec("topology", &spec, "more than 2^28 nodes"))?;
        }
        Ok(Grid {
            dims: dims.to_vec(),
            wrap: wrap.to_vec(),
            cores,
            strides,
            nodes,
        })
    }

    pub fn mesh(dims: &[u32]) -> Self {
        Self::new(dims, &vec![false; dims.len()], 1).expect("valid mesh dims")
    }
    pub fn torus(dims: &[u32]) -> Self {
        Self::new(dims, &vec![true; dims.len()], 1).expect("valid torus dims")
    }
    /// The same grid with `cores` per node.
    pub fn with_cores(mut self, cores: u32) -> Self {
        self.cores = cores.max(1);
        self
    }

    pub fn ndims(&self) -> usize {
        self.dims.len()
    }
    pub fn dims(&self) -> &[u32] {
        &self.dims
    }
    pub fn wrap(&self) -> &[bool] {
        &self.wrap
    }
    /// Whether dimension `d` has wrap links (size > 2 and wrapped).
    #[inline]
    pub fn wraps(&self, d: usize) -> bool {
        self.wrap[d] && self.dims[d] > 2
    }
    pub fn cores(&self) -> u32 {
        self.cores
    }
    pub fn num_nodes(&self) -> usize {
        self.nodes
    }
    pub fn strides(&self) -> &[usize] {
        &self.strides
    }
    pub fn is_torus(&self) -> bool {
        (0..self.ndims()).all(|d| self.wrap[d])
    }

    /// Node id → coordinates.
    #[inline]
    pub fn coord(&self, node: usize) -> GridCoord {
        let mut c = [0u32; MAX_DIMS];
        let mut r = node;
        for (d, &k) in self.dims.iter().enumerate() {
            c[d] = (r % k as usize) as u32;
            r /= k as usize;
        }
        c
    }

    /// Coordinates → node id (coordinates must be in range).
    #[inline]
    pub fn node(&self, c: &[u32]) -> usize {
        let mut id = 0usize;
        for d in 0..self.ndims() {
            id += c[d] as usize * self.strides[d];
        }
        id
    }

    /// Coordinates → node id, or None when out of range.
    pub fn node_checked(&self, c: &[u32]) -> Option<usize> {
        if c.len() < self.ndims() || (0..self.ndims()).any(|d| c[d] >= self.dims[d]) {
            return None;
        }
        Some(self.node(c))
    }

    /// Hop distance along one dimension.
    #[inline]
    pub fn dim_distance(&self, d: usize, a: u32, b: u32) -> u32 {
        let delta = a.abs_diff(b);
        if self.wraps(d) {
            delta.min(self.dims[d] - delta)
        } else {
            delta
        }
    }

    /// Hop distance between two nodes.
    #[inline]
    pub fn distance(&self, a: usize, b: usize) -> u32 {
        if a == b {
            return 0;
        }
        let (mut ra, mut rb) = (a, b);
        let mut h = 0;
        for d in 0..self.ndims() {
            let k = self.dims[d] as usize;
            let (ca, cb) = ((ra % k) as u32, (rb % k) as u32);
            ra /= k;
            rb /= k;
            h += self.dim_distance(d, ca, cb);
        }
        h
    }

    /// Network diameter.
    pub fn diameter(&self) -> u32 {
        (0..self.ndims())
            .map(|d| {
                if self.wraps(d) {
                    self.dims[d] / 2
                } else {
                    self.dims[d] - 1
                }
            })
            .sum()
    }

    /// Channel count upper bound (size of a per-channel array).
    pub fn channel_slots(&self) -> usize {
        self.nodes * 2 * self.ndims()
    }

    /// Index of the channel leaving `node` along `dim` in direction `dir`
    /// (0 = +, 1 = −).
    #[inline]
    pub fn channel(&self, node: usize, dim: usize, dir: usize) -> usize {
        node * 2 * self.ndims() + 2 * dim + dir
    }

    /// The neighbour reached from `node` along `dim` in `dir`, if the link exists.
    #[inline]
    pub fn step(&self, node: usize, dim: usize, dir: usize) -> Option<usize> {
        let k = self.dims[dim];
        let c = ((node / self.strides[dim]) % k as usize) as u32;
        let s = self.strides[dim];
        if dir == 0 {
            if c + 1 < k {
                Some(node + s)
            } else if self.wraps(dim) {
                Some(node - c as usize * s)
            } else {
                None
            }
        } else if c > 0 {
            Some(node - s)
        } else if self.wraps(dim) {
            Some(node + (k - 1) as usize * s)
        } else {
            None
        }
    }

    /// Decode a channel index into `(from, to, dim, dir)`, if the link exists.
    pub fn channel_ends(&self, ch: usize) -> Option<(usize, usize, usize, usize)> {
        let nd = self.ndims();
        let node = ch / (2 * nd);
        let r = ch % (2 * nd);
        let (dim, dir) = (r / 2, r % 2);
        if node >= self.nodes {
            return None;
        }
        self.step(node, dim, dir).map(|to| (node, to, dim, dir))
    }

    /// Whether the channel `from → dim,dir` crosses the wrap-around of its ring.
    pub fn is_wrap_channel(&self, node: usize, dim: usize, dir: usize) -> bool {
        let k = self.dims[dim];
        let c = ((node / self.strides[dim]) % k as usize) as u32;
        self.wraps(dim) && ((dir == 0 && c + 1 == k) || (dir == 1 && c == 0))
    }

    /// Append the distinct neighbours of `node`.
    pub fn neighbors_into(&self, node: usize, out: &mut Vec<usize>) {
        for d in 0..self.ndims() {
            for dir in 0..2 {
                if let Some(m) = self.step(node, d, dir)
                    && !out.contains(&m)
                {
                    out.push(m);
                }
            }
        }
    }

    /// Spec string in the `mesh:`/`torus:` syntax.
    pub fn spec(&self) -> String {
        let dims = self
            .dims
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join("x");
        let all_wrap = self.wrap.iter().all(|&w| w);
        let none_wrap = self.wrap.iter().all(|&w| !w);
        let mut s = if all_wrap {
            format!("torus:{dims}")
        } else if none_wrap {
            format!("mesh:{dims}")
        } else {
            let w: String = self
                .wrap
                .iter()
                .map(|&w| if w { '1' } else { '0' })
                .collect();
            format!("mesh:{dims}:wrap={w}")
        };
        if self.cores > 1 {
            s.push_str(&format!(":cores={}", self.cores));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_x_fastest() {
        let g = Grid::mesh(&[4, 3, 2]);
        assert_eq!(g.node(&[1, 2, 1]), 1 + 4 * (2 + 3));
        assert_eq!(&g.coord(21)[..3], &[1, 2, 1]);
        assert_eq!(g.num_nodes(), 24);
    }

    #[test]
    fn mesh_2x2_distances_and_links() {
        let g = Grid::mesh(&[2, 2]);
        assert_eq!(g.distance(0, 1), 1);
        assert_eq!(g.distance(0, 3), 2);
        assert_eq!(g.distance(1, 2), 2);
        assert_eq!(g.diameter(), 2);
        let mut nb = Vec::new();
        g.neighbors_into(0, &mut nb);
        nb.sort();
        assert_eq!(nb, vec![1, 2]);
        let links = (0..g.channel_slots())
            .filter(|&c| g.channel_ends(c).is_some())
            .count();
        assert_eq!(links, 8); // 4 undirected links, 2 directions each
    }

    #[test]
    fn ring_of_4_wraps() {
        let g = Grid::torus(&[4]);
        assert_eq!(g.distance(0, 3), 1);
        assert_eq!(g.distance(0, 2), 2);
        assert_eq!(g.step(3, 0, 0), Some(0));
        assert_eq!(g.step(0, 0, 1), Some(3));
        assert!(g.is_wrap_channel(3, 0, 0));
        assert_eq!(g.diameter(), 2);
    }

    #[test]
    fn torus_size_two_is_a_single_link() {
        let g = Grid::torus(&[2, 3]);
        assert_eq!(g.step(1, 0, 0), None);
        assert_eq!(g.step(0, 0, 1), None);
        assert_eq!(g.distance(0, 1), 1);
    }
}
