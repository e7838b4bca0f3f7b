//! Synthetic communication graphs: `generate("stencil:16x16", &opts)`.
//!
//! One generator per file; this module parses the spec string, checks the
//! options and sizes, dispatches, and applies the optional id shuffle.
//!
//! | spec | file | from |
//! |---|---|---|
//! | `stencil:A[xB[xC]]` | [`stencil`] | Balaji et al. (seed 002) §2.1, §4 |
//! | `halo:A[xB[xC]][:WX,…][:EXTRA]` | [`halo`] | real halo codes: volumes per direction, light extra edges |
//! | `fft:A[xB[xC]]` | [`fft`] | Balaji et al. §2.1 (FFT transposes) |
//! | `diagonal:AxB` | [`diagonal`] | Balaji et al. §2.1 (ray tracing) |
//! | `clusters:KxS` | [`clusters`] | Bobrik & Popova (seed 001) §3 example |
//! | `unstructured:P[:2d\|3d]` | [`unstructured`] | Bhatele & Kale (seed 000) §V, CHARM++ mesh + METIS |
//! | `mixed:AxB:FRACTION` | [`mixed`] | Moh et al. (seed 004) §4 traffic |
//! | `random-geometric:N:DEG` | [`random_geometric`] | (standard random geometric graph) |
//!
//! ## Conventions shared by every generator
//! * **Bytes.** `GenOptions::bytes` is what *one process sends to one
//!   partner*. Both partners send, so a symmetric pair gets volume
//!   `c_uv = 2·bytes` (stored `bytes` each way, see [`crate::graph`]).
//!   `inter_weight` (clusters) follows the same rule. Generators whose traffic
//!   is one-way (`mixed`) build a directed graph with each direction's bytes.
//! * **Ids.** Grid-based generators number processes X-fastest,
//!   `x + A·(y + B·z)`, like the topologies, so the identity mapping of
//!   `stencil:AxB` onto `mesh:AxB` is the natural one.
//! * **Coordinates** are attached where the generator has them (grid
//!   positions, points, part centroids); `clusters` has none.
//! * **Shuffle.** `GenOptions::shuffle` applies a seeded random permutation
//!   to the process ids (and coordinates) of *any* generator, destroying the
//!   locality of the natural numbering.
//! * **Determinism.** All randomness comes from [`crate::rng::Rng`] seeded by
//!   `GenOptions::seed`; the same spec, options and seed give the same graph.
//! * **Limits.** At most [`MAX_PROCESSES`] processes and (estimated before any
//!   allocation) [`MAX_EDGES`] communicating pairs.

pub mod clusters;
pub mod diagonal;
pub mod fft;
pub mod halo;
pub mod mixed;
pub mod random_geometric;
pub mod stencil;
pub mod unstructured;

use crate::error::{Error, Result};
use crate::graph::{CommGraph, Coords, GraphBuilder};
use crate::rng::Rng;

/// Largest number of processes a generator will create.
pub const MAX_PROCESSES: usize = 10_000_000;
/// Largest number of communicating pairs a generator will create.
pub const MAX_EDGES: usize = 50_000_000;
/// Largest `bytes` / `inter_weight` per message (sums of many stay finite).
pub const MAX_BYTES: f64 = 1e15;

/// Which grid neighbours a stencil talks to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Neighbors {
    /// The 2·d face neighbours (±1 along one axis).
    #[default]
    Faces,
    /// All 3^d − 1 neighbours of the surrounding box (faces, edges, corners).
    Full,
}

impl Neighbors {
    /// Both shapes.
    pub const ALL: [Neighbors; 2] = [Neighbors::Faces, Neighbors::Full];

    /// The name a command line uses (`faces`, `full`).
    pub fn id(self) -> &'static str {
        match self {
            Neighbors::Faces => "faces",
            Neighbors::Full => "full",
        }
    }
}

/// Options shared by the generators (not every generator uses every field).
#[derive(Clone, Debug)]
pub struct GenOptions {
    /// Seed of every randomized step.
    pub seed: u64,
    /// Stencil shape (`stencil`, `mixed`).
    pub neighbors: Neighbors,
    /// Wrap the grid (`stencil`, `diagonal`, `mixed`) or close the chain of
    /// clusters into a ring (`clusters`); `fft`, `unstructured` and
    /// `random-geometric` ignore it.
    pub periodic: bool,
    /// Bytes one process sends to one partner (default 1024).
    pub bytes: f64,
    /// `clusters`: bytes one process sends to each member of the next and
    /// previous cluster (default 0: disjoint cliques).
    pub inter_weight: f64,
    /// Randomly permute the process ids (seeded).
    pub shuffle: bool,
}

impl Default for GenOptions {
    fn default() -> Self {
        GenOptions {
            seed: 0,
            neighbors: Neighbors::Faces,
            periodic: false,
            bytes: 1024.0,
            inter_weight: 0.0,
            shuffle: false,
        }
    }
}

/// Spec syntax and one-line help of every generator, for `--help` and the GUI.
pub const GENERATORS: &[(&str, &str)] = &[
    (
        "stencil:A[xB[xC]]",
        "nearest-neighbour stencil on a 1D/2D/3D grid (--neighbors faces|full, --periodic)",
    ),
    (
        "halo:A[xB[xC]][:WX[,WY[,WZ]][:EXTRA]]",
        "stencil with a volume factor per direction (edges/corners: products) and EXTRA × the halo bytes to 4 random non-neighbours",
    ),
    (
        "fft:A[xB[xC]]",
        "each process talks to every process in its row, column (and pillar): FFT transposes",
    ),
    (
        "diagonal:AxB",
        "each process talks to every process on its two diagonals: ray tracing",
    ),
    (
        "clusters:KxS",
        "K disjoint cliques of S processes (clusters:2x10 is Bobrik's example); --inter-weight links consecutive clusters",
    ),
    (
        "unstructured:P[:2d|3d]",
        "P connected parts of a random jittered mesh; weight = mesh edges cut; coords = part centroids",
    ),
    (
        "mixed:AxB:FRACTION",
        "2D mesh where FRACTION of each process's bytes go to random distant processes (Moh et al.)",
    ),
    (
        "random-geometric:N:DEG",
        "N random points in the unit square linked within the radius that gives mean degree DEG",
    ),
];

/// Generate the graph described by `spec` (see [`GENERATORS`]).
///
/// ```
/// use hopmap_core::generate::{GenOptions, generate};
///
/// // A 4×4 five-point stencil: 24 neighbour pairs, each process sending
/// // 1,024 bytes to each partner (2,048 bytes per pair).
/// let stencil = generate("stencil:4x4", &GenOptions::default())?;
/// assert_eq!((stencil.n(), stencil.num_edges()), (16, 24));
/// assert_eq!(stencil.total_bytes(), 24.0 * 2048.0);
/// // Wrapped: every process has four partners.
/// let periodic = generate("stencil:4x4", &GenOptions { periodic: true, ..Default::default() })?;
/// assert_eq!(periodic.num_edges(), 32);
/// // Randomized generators take the seed: the same seed, the same graph.
/// let opts = GenOptions { seed: 7, ..Default::default() };
/// let a = generate("random-geometric:64:4", &opts)?;
/// let b = generate("random-geometric:64:4", &opts)?;
/// assert_eq!(a.pairs().collect::<Vec<_>>(), b.pairs().collect::<Vec<_>>());
/// # Ok::<(), hopmap_core::Error>(())
/// ```
pub fn generate(spec: &str, opts: &GenOptions) -> Result<CommGraph> {
    let spec = spec.trim();
    if !(opts.bytes > 0.0 && opts.bytes <= MAX_BYTES) {
        return Err(Error::spec(
            "generator",
            spec,
            format!(
                "bytes must be above 0 and at most {MAX_BYTES:e}, found {}",
                opts.bytes
            ),
        ));
    }
    if !(opts.inter_weight >= 0.0 && opts.inter_weight <= MAX_BYTES) {
        return Err(Error::spec(
            "generator",
            spec,
            format!(
                "inter-cluster bytes must be 0 to {MAX_BYTES:e}, found {}",
                opts.inter_weight
            ),
        ));
    }
    let (kind, args) = match spec.split_once(':') {
        Some((k, a)) => (k.trim().to_ascii_lowercase(), a.trim()),
        None => (spec.to_ascii_lowercase(), ""),
    };
    let g = match kind.as_str() {
        "stencil" => stencil::generate(spec, args, opts),
        "halo" => halo::generate(spec, args, opts),
        "fft" => fft::generate(spec, args, opts),
        "diagonal" => diagonal::generate(spec, args, opts),
        "clusters" => clusters::generate(spec, args, opts),
        "unstructured" => unstructured::generate(spec, args, opts),
        "mixed" => mixed::generate(spec, args, opts),
        "random-geometric" | "random_geometric" | "rgg" => {
            random_geometric::generate(spec, args, opts)
        }
        _ => Err(Error::spec(
            "generator",
            spec,
            format!(
                "expected one of {}, found `{kind}`",
                GENERATORS
                    .iter()
                    .map(|(s, _)| *s)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }?;
    if opts.shuffle {
        Ok(shuffle_ids(g, opts.seed))
    } else {
        Ok(g)
    }
}

/// Relabel the processes by a seeded random permutation (coordinates follow).
fn shuffle_ids(g: CommGraph, seed: u64) -> CommGraph {
    let n = g.n();
    let mut perm: Vec<usize> = (0..n).collect();
    // A stream independent of the one the generator used.
    Rng::new(seed ^ 0x5348_5546_464C_4521).shuffle(&mut perm);
    let mut b = GraphBuilder::with_capacity(n, g.is_directed(), g.num_messages());
    if g.is_directed() {
        for (u, v, w) in g.messages() {
            b.add(perm[u], perm[v], w);
        }
    } else {
        for (u, v, c) in g.pairs() {
            b.add(perm[u], perm[v], c);
        }
    }
    // Ids are in range and the builder only fails on out-of-range ids.
    let mut out = match b.build() {
        Ok(out) => out,
        Err(_) => return g,
    };
    if let Some(c) = g.coords() {
        let mut xyz = vec![[0.0; 3]; n];
        for (u, p) in c.xyz.iter().enumerate() {
            xyz[perm[u]] = *p;
        }
        // Same length as n by construction.
        let _ = out.set_coords(Some(Coords::new(c.dim, xyz)));
    }
    out
}

// ---------------------------------------------------------------------------
// Helpers shared by the generators.

/// A spec error for `spec` with `msg`.
pub(crate) fn spec_err(spec: &str, msg: impl Into<String>) -> Error {
    Error::spec("generator", spec, msg)
}

/// Parse a positive integer `s`; `what` names it in the error.
pub(crate) fn parse_count(spec: &str, what: &str, s: &str) -> Result<usize> {
    match s.trim().parse::<usize>() {
        Ok(0) => Err(spec_err(
            spec,
            format!("{what} must be at least 1, found 0"),
        )),
        Ok(v) if v > MAX_PROCESSES => Err(spec_err(
            spec,
            format!("{what} must be at most {MAX_PROCESSES}, found {v}"),
        )),
        Ok(v) => Ok(v),
        Err(_) => Err(spec_err(
            spec,
            format!(
                "expected a positive integer for {what}, found `{}`",
                s.trim()
            ),
        )),
    }
}

/// Parse a finite number `s`; `what` names it in the error.
pub(crate) fn parse_number(spec: &str, what: &str, s: &str) -> Result<f64> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(spec_err(
            spec,
            format!("expected a number for {what}, found `{}`", s.trim()),
        )),
    }
}

/// Parse `AxBxC` with `min..=max` sizes, each ≥ 1 and product ≤ [`MAX_PROCESSES`].
pub(crate) fn parse_dims(
    spec: &str,
    syntax: &str,
    s: &str,
    min: usize,
    max: usize,
) -> Result<Vec<usize>> {
    let s = s.trim();
    if s.is_empty() {
        return Err(spec_err(
            spec,
            format!("expected `{syntax}`, found no sizes"),
        ));
    }
    let parts: Vec<&str> = s.split(['x', 'X']).collect();
    if parts.len() < min || parts.len() > max {
        return Err(spec_err(
            spec,
            format!(
                "expected `{syntax}` ({} sizes), found {} size(s) in `{s}`",
                if min == max {
                    format!("{min}")
                } else {
                    format!("{min} to {max}")
                },
                parts.len()
            ),
        ));
    }
    let mut dims = Vec::with_capacity(parts.len());
    let mut total = 1usize;
    for p in parts {
        let d = parse_count(spec, "a grid size", p)?;
        total = match total.checked_mul(d) {
            Some(t) if t <= MAX_PROCESSES => t,
            _ => {
                return Err(spec_err(
                    spec,
                    format!("at most {MAX_PROCESSES} processes are supported, found `{s}`"),
                ));
            }
        };
        dims.push(d);
    }
    Ok(dims)
}

/// Reject a generator whose estimated pair count exceeds [`MAX_EDGES`].
pub(crate) fn check_edges(spec: &str, estimate: u128) -> Result<()> {
    if estimate > MAX_EDGES as u128 {
        return Err(spec_err(
            spec,
            format!("would create about {estimate} communicating pairs; the limit is {MAX_EDGES}"),
        ));
    }
    Ok(())
}

/// Row-major (X-fastest) grid helpers.
#[derive(Clone, Debug)]
pub(crate) struct GridShape {
    pub dims: Vec<usize>,
    pub n: usize,
}

impl GridShape {
    pub fn new(dims: &[usize]) -> Self {
        GridShape {
            dims: dims.to_vec(),
            n: dims.iter().product(),
        }
    }
    /// Coordinates of process `id` (X fastest).
    pub fn coord(&self, mut id: usize, out: &mut [usize]) {
        for (a, &d) in self.dims.iter().enumerate() {
            out[a] = id % d;
            id /= d;
        }
    }
    /// Id of the grid point `c`.
    pub fn id(&self, c: &[usize]) -> usize {
        let mut id = 0;
        for a in (0..self.dims.len()).rev() {
            id = id * self.dims[a] + c[a];
        }
        id
    }
    /// The point `c + off` along every axis, wrapped if `periodic`; `None`
    /// when it leaves a non-periodic grid.
    pub fn offset(&self, c: &[usize], off: &[i64], periodic: bool, out: &mut [usize]) -> bool {
        for a in 0..self.dims.len() {
            let d = self.dims[a] as i64;
            let mut x = c[a] as i64 + off[a];
            if x < 0 || x >= d {
                if !periodic {
                    return false;
                }
                x = x.rem_euclid(d);
            }
            out[a] = x as usize;
        }
        true
    }
    /// Grid positions as coordinates (2D for 1D/2D grids, else 3D).
    pub fn coords(&self) -> Coords {
        let dim = if self.dims.len() <= 2 { 2 } else { 3 };
        let mut c = vec![0usize; self.dims.len()];
        let xyz = (0..self.n)
            .map(|id| {
                self.coord(id, &mut c);
                let mut p = [0.0; 3];
                for a in 0..self.dims.len().min(3) {
                    p[a] = c[a] as f64;
                }
                p
            })
            .collect();
        Coords::new(dim, xyz)
    }
}

/// Build a graph and attach coordinates.
pub(crate) fn finish(b: GraphBuilder, coords: Option<Coords>) -> Result<CommGraph> {
    let mut g = b.build()?;
    g.set_coords(coords)?;
    Ok(g)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_generator_and_bad_options_error() {
        let o = GenOptions::default();
        for bad in [
            "",
            "foo:3",
            "stencil",
            "stencil:",
            "stencil:0x4",
            "stencil:4xq",
        ] {
            let e = generate(bad, &o).unwrap_err();
            assert!(matches!(e, Error::Spec { .. }), "{bad}: {e}");
        }
        let o2 = GenOptions {
            bytes: 0.0,
            ..GenOptions::default()
        };
        assert!(generate("stencil:4x4", &o2).is_err());
        let o4 = GenOptions {
            bytes: 1e300,
            ..GenOptions::default()
        };
        assert!(generate("stencil:4x4", &o4).is_err());
        let o3 = GenOptions {
            inter_weight: f64::NAN,
            ..GenOptions::default()
        };
        assert!(generate("clusters:2x3", &o3).is_err());
        // Overflow and size cap.
        assert!(generate("stencil:100000x100000x100000", &o).is_err());
        assert!(generate("stencil:18446744073709551615x2", &o).is_err());
        assert!(generate("fft:3000x3000", &o).is_err()); // 9e6 × 5998 / 2 pairs
    }

    #[test]
    fn every_listed_generator_runs() {
        let o = GenOptions::default();
        for spec in [
            "stencil:4x4",
            "halo:4x4:1,0.5:0.1",
            "fft:3x3",
            "diagonal:3x3",
            "clusters:2x3",
            "unstructured:4",
            "mixed:4x4:0.2",
            "random-geometric:50:4",
        ] {
            let g = generate(spec, &o).unwrap();
            assert!(g.n() > 0 && g.num_edges() > 0, "{spec}");
        }
        assert_eq!(GENERATORS.len(), 8);
    }

    #[test]
    fn shuffle_is_a_seeded_relabelling() {
        let o = GenOptions {
            shuffle: true,
            seed: 5,
            ..GenOptions::default()
        };
        let plain = generate("stencil:5x4", &GenOptions::default()).unwrap();
        let a = generate("stencil:5x4", &o).unwrap();
        let b = generate("stencil:5x4", &o).unwrap();
        assert_eq!(a.targets(), b.targets());
        assert_ne!(a.targets(), plain.targets());
        assert_eq!(a.num_edges(), plain.num_edges());
        assert_eq!(a.total_bytes(), plain.total_bytes());
        // Coordinates follow the relabelling: every edge still joins grid neighbours.
        let c = a.coords().unwrap();
        for (u, v, _) in a.pairs() {
            let d: f64 = (0..2).map(|k| (c.xyz[u][k] - c.xyz[v][k]).abs()).sum();
            assert_eq!(d, 1.0);
        }
    }
}
