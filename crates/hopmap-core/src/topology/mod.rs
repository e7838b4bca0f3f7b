//! Network topologies. [`Topology`] is the one type that crosses the
//! library: every network has nodes, `cores` process slots per node,
//! directed channels, a hop distance and routes, and code that needs only
//! those calls [`Topology`]'s methods, whatever the kind of network. A
//! mesh/torus is a [`Grid`]; a switch fabric ([`Fabric`], Moh et al.:
//! switches, inter-switch links, hosts) is the other. On a fabric the nodes
//! are the job's hosts and the distance is the routed distance in switch
//! hops (see [`fabric`]).
//!
//! Code that is about one kind of network asks for it by name:
//! [`Topology::as_grid`] for coordinates, dimensions and wrap (the grid
//! mappers, permutation orders, the 3D network drawing),
//! [`Topology::as_fabric`] for switches and hosts (the fabric mappers, the
//! fabric drawing, up*/down*). Each answers `None` on the other kind, and
//! such code says plainly that it needs a mesh/torus or a fabric.
//!
//! A topology has nodes, `cores` process slots per node, directed channels
//! (physical links, one per direction), a hop distance, and routes
//! ([`crate::routing`]).

pub mod dragonfly;
pub mod fabric;
pub mod fabric_spec;
pub mod fattree;
pub mod ftree_detect;
pub mod grid;
pub mod iblinkinfo;
pub mod ibnet_ports;
pub mod ibnetdiscover;
pub mod moh;
pub mod moh_fig2;
pub mod port_graph;
pub mod report;
pub mod slurm_topology;
pub mod spec;

pub use fabric::{Fabric, FabricDesc, FabricKind, Host, RootChoice, Switch};
pub use grid::{Grid, GridCoord, MAX_DIMS};
pub use spec::parse_topology;

/// A network onto which processes are mapped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Topology {
    /// N-dimensional mesh/torus with cores per node.
    Grid(Grid),
    /// Switch fabric: hosts with cores, attached to switches.
    Fabric(Fabric),
}

impl Topology {
    /// Parse a spec string such as `torus:8x8x16:cores=4` or `bgp:4096`.
    ///
    /// ```
    /// use hopmap_core::Topology;
    ///
    /// let torus = Topology::parse("torus:4x4x2:cores=2")?;
    /// assert_eq!(torus.num_nodes(), 32);
    /// assert_eq!(torus.num_slots(), 64);
    /// // Node ids are X-fastest; the ring of 4 wraps, so nodes 0 and 3 are neighbours.
    /// assert_eq!(torus.distance(0, 3), 1);
    /// assert_eq!(torus.diameter(), 2 + 2 + 1);
    /// let mesh = Topology::parse("mesh:4x4")?;
    /// assert_eq!(mesh.distance(0, 3), 3);
    /// assert!(Topology::parse("torus:4x").is_err());
    /// # Ok::<(), hopmap_core::Error>(())
    /// ```
    pub fn parse(spec: &str) -> crate::Result<Self> {
        parse_topology(spec)
    }
    pub fn num_nodes(&self) -> usize {
        match self {
            Topology::Grid(g) => g.num_nodes(),
            Topology::Fabric(f) => f.num_hosts(),
        }
    }
    /// Process slots per node.
    pub fn cores(&self) -> usize {
        match self {
            Topology::Grid(g) => g.cores() as usize,
            Topology::Fabric(f) => f.cores() as usize,
        }
    }
    /// Total process slots (nodes × cores).
    pub fn num_slots(&self) -> usize {
        self.num_nodes() * self.cores()
    }
    /// Hop distance between nodes (minimal routing).
    #[inline]
    pub fn distance(&self, a: usize, b: usize) -> u32 {
        match self {
            Topology::Grid(g) => g.distance(a, b),
            Topology::Fabric(f) => f.distance(a, b),
        }
    }
    pub fn diameter(&self) -> u32 {
        match self {
            Topology::Grid(g) => g.diameter(),
            Topology::Fabric(f) => f.diameter(),
        }
    }
    /// Distinct neighbour nodes of `node`.
    pub fn neighbors(&self, node: usize) -> Vec<usize> {
        let mut v = Vec::new();
        match self {
            Topology::Grid(g) => g.neighbors_into(node, &mut v),
            Topology::Fabric(f) => f.neighbors_into(node, &mut v),
        }
        v
    }
    /// Size of a per-channel array (some slots may be unused).
    pub fn channel_slots(&self) -> usize {
        match self {
            Topology::Grid(g) => g.channel_slots(),
            Topology::Fabric(f) => f.channel_slots(),
        }
    }
    /// `(from, to)` nodes of a channel index, if that channel exists.
    pub fn channel_ends(&self, ch: usize) -> Option<(usize, usize)> {
        match self {
            Topology::Grid(g) => g.channel_ends(ch).map(|(a, b, _, _)| (a, b)),
            Topology::Fabric(f) => f.channel_ends(ch),
        }
    }
    /// Whether a channel's load counts in hop-bytes: every grid channel, and
    /// a fabric's inter-switch channels (not its host links, whose loads are
    /// reported but which are not hops: see [`fabric`]).
    pub fn channel_counts_hops(&self, ch: usize) -> bool {
        match self {
            Topology::Grid(_) => true,
            Topology::Fabric(f) => ch >= 2 * f.num_hosts(),
        }
    }
    /// Every physical directed channel as `(index, from, to)`.
    pub fn channels(&self) -> Vec<(usize, usize, usize)> {
        (0..self.channel_slots())
            .filter_map(|c| self.channel_ends(c).map(|(a, b)| (c, a, b)))
            .collect()
    }
    /// Number of physical directed channels.
    pub fn num_channels(&self) -> usize {
        (0..self.channel_slots())
            .filter(|&c| self.channel_ends(c).is_some())
            .count()
    }
    /// Undirected physical links `(a, b)` with `a < b` (two channels each).
    /// On a fabric the ends are vertices (hosts `0..H`, switch s = `H + s`)
    /// and parallel inter-switch links appear once.
    pub fn links(&self) -> Vec<(usize, usize)> {
        let mut v: Vec<(usize, usize)> = self
            .channels()
            .into_iter()
            .filter(|&(_, a, b)| a < b)
            .map(|(_, a, b)| (a, b))
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }
    /// The spec string that parses back to this topology.
    pub fn spec(&self) -> String {
        match self {
            Topology::Grid(g) => g.spec(),
            Topology::Fabric(f) => f.spec(),
        }
    }
    /// The mesh/torus view, for algorithms that need coordinates.
    pub fn as_grid(&self) -> Option<&Grid> {
        match self {
            Topology::Grid(g) => Some(g),
            Topology::Fabric(_) => None,
        }
    }
    /// The switch fabric, if this is one.
    pub fn as_fabric(&self) -> Option<&Fabric> {
        match self {
            Topology::Fabric(f) => Some(f),
            Topology::Grid(_) => None,
        }
    }
}

impl std::fmt::Display for Topology {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.spec())
    }
}

impl std::str::FromStr for Topology {
    type Err = crate::Error;
    fn from_str(s: &str) -> crate::Result<Self> {
        Self::parse(s)
    }
}
