//! Swap-and-move local search on the true mapping objective, in the
//! neighbourhood of each process's partners' nodes (VieM's N_C^d, Schulz &
//! Träff, "Better process mapping and sparse quadratic assignment", SEA
//! 2017, §4). Beyond the seed papers; PAIRS (Bhatele & Kale §VII-B) is the
//! same kind of search around one centroid ball.
//!
//! For a process `p` on node `a`, the candidate nodes are the nodes of its
//! partners and, for `depth` d ≥ 1, every node within d hops of them
//! (breadth-first over [`Topology::neighbors`], so it works on any
//! topology). On each candidate node `b` the search tries a move into a free
//! core and a swap with every process `q` there, and applies the best
//! exchange that lowers the objective:
//!
//! * `hopbytes`: Σ_pairs c_uv · d(φu, φv), the change computed from the two
//!   processes' edges only (as in PAIRS):
//!   `Δ = Σ_v c_pv (d(b,φv) − d(a,φv)) + Σ_v c_qv (d(a,φv) − d(b,φv)) + 2 c_pq d(a,b)`.
//! * `sqload`: Σ over directed channels of load², loads under
//!   dimension-order routing ([`Routing::Dor`]); the change is computed by
//!   re-routing only the messages of p and q. Only exchanges that do not
//!   raise hop-bytes are tried (Σ loads = hop-bytes, so this keeps the
//!   total traffic from growing while it is spread more evenly).
//! * `maxload`: the largest channel load. An exchange is kept when it lowers
//!   Σ load² and leaves every channel it touches at or below the largest
//!   load at the start of the batch, so the maximum never rises (only
//!   exchanges that do not raise hop-bytes are tried, so the maximum itself
//!   moves little: the bottleneck phase below is what lowers it).
//!
//! One step tries a batch of `batch` processes (a seeded random order per
//! sweep) and records hop-bytes and the objective after it
//! ([`Refine::hop_bytes_trace`], [`Refine::objective_trace`]). The search
//! stops at a local optimum (a full sweep without an exchange), after
//! `sweeps` sweeps, or at the optional time budget; during the search the
//! objective never increases. Cost per process: O(|candidates| · cores ·
//! deg) distance calls for hop-bytes, times the route length for the load
//! objectives. For hop-bytes, a process whose last search found nothing is
//! skipped while no exchange since has touched it, its partners or its
//! candidate nodes (`SearchMemo`: O(deg) stamps per exchange, O(candidates)
//! per check; the same exchanges in the same order). Once the search has
//! stopped, that memo goes on for the descent, which skips the tries it
//! certifies to fail ([`descent`]). On whole volumes over a tabulated mesh
//! or torus, a process whose partners span few coordinates is priced at
//! its candidate nodes by dimension (`axis_costs`: the same integers).
//!
//! Then, with `load_budget` > 0 (objectives `hopbytes` and `maxload`), the
//! bottleneck phase ([`bottleneck`]; beyond the seed papers and beyond
//! VieM) lowers the largest channel load under dimension-order routing:
//! round after round it takes the busiest channel, gathers the processes
//! whose messages cross it (per-channel message lists, built by routing
//! every message once), and applies, for the first of them (heaviest
//! through the channel first) that has one, the exchange cheapest in
//! hop-bytes that lowers that channel's load and Σ load² without raising
//! any other channel to the largest load; hop-bytes may rise by at most
//! `load_budget` × their value over the whole phase. When no single
//! exchange relieves the busiest channel, two in a row are tried, the
//! second bringing back below the maximum the channel the first raised to
//! it ([`chain`]: Glover's ejection chains, the depth-2 step of Lin and
//! Kernighan). The largest load never rises; when the busiest channel
//! cannot be relieved by one or two exchanges, the phase (below 1,024
//! processes) looks further once, paying for hop-bytes beyond the budget
//! with the largest load's fall; when that is stuck too, an extension
//! tries whole-node moves with several cores per node ([`node_swap`]) and,
//! when the busiest channel is alone at the maximum, a single exchange that
//! lowers the largest load though Σ load² rises, each state paying for its
//! hop-bytes against the best; and it ends at the best state it saw
//! ([`keep_best`]), or (below 1,024 processes) at that state's image of
//! least largest load under the mesh's or torus's symmetries that change
//! dimension-order routes ([`images`]: the same hop-bytes); there, when
//! the phase's start has an image of lower largest load, the phase also
//! runs from that image and its result is kept when it pays
//! ([`start_image`]). On the
//! measured meshes it lowered the max link load below Scotch's at a
//! fraction of a per cent more hop-bytes, and the 1 % budget was never the
//! limit (`docs/benchmarks.md`, "The bottleneck phase").
//! With it on, the `hopbytes` objective trace may rise at the end, by at
//! most the budget.
//!
//! Between the two, for the `hopbytes` objective, the descent phase
//! ([`descent`]) samples the same neighbourhood at random and keeps every
//! exchange that lowers hop-bytes (first improvement), a bounded number of
//! tries per process; then, on inputs of at most 256 processes and with
//! `tabu` > 0, the tabu phase ([`tabu`]; Taillard's robust tabu search over
//! all swaps, O(N²) per iteration) keeps its best mapping if that lowers
//! hop-bytes, or keeps them with a lower max link load. A run stopped with
//! its search ([`Refine::search_only`]) makes the tabu phase before it
//! stops; its polish ([`Refine::polish`]) does not.
//! The polish of the best run on a mesh or torus, below 1,024 processes,
//! then kicks the
//! descent's result ([`kicks`]: an iterated local search): a few random
//! exchanges among a process and its partners, a local descent from
//! them, undone unless hop-bytes fell.
//!
//! On switch fabrics whose host distances nest (an ultrametric: fat
//! trees), the block phase ([`blocks`]) comes next, before the bottleneck
//! phase: it exchanges the whole contents of two hosts, two leaf
//! switches' hosts or two pods under different parents, each time the
//! exchange that lowers hop-bytes most, while one does, and when none
//! does, the best pair of exchanges on disjoint hosts that lowers them
//! together ([`block_pairs`]; on large networks only in the polish). A run stopped with
//! its search makes it after its tabu phase; its polish after the descent.

mod axis_costs;
pub mod block_pairs;
pub mod blocks;
pub mod bottleneck;
pub mod chain;
pub mod descent;
pub mod images;
pub mod keep_best;
pub mod kicks;
pub mod node_swap;
pub mod start_image;
pub mod tabu;

use crate::graph::CommGraph;
use crate::mapping::Mapping;
use crate::rng::Rng;
use crate::routing::Routing;
use crate::routing::cache::RouteCache;
use crate::stamps::Stamps;
use crate::topology::Topology;
use std::sync::Arc;
use std::time::{Duration, Instant};

const FREE: u32 = u32::MAX;
/// Switch pairs whose routes [`RouteCache`] keeps, per adjacency entry and
/// process of the graph (memory follows the input).
const ROUTE_PAIRS_PER_ENTRY: usize = 4;
/// No reverse entry in [`Refine`]'s `rev`.
const NO_REV: u32 = u32::MAX;

/// Hop distance with the node coordinates of a mesh/torus tabulated (no
/// divisions per call); other topologies ask [`Topology::distance`].
///
/// On networks of at most [`TABLE_MAX_NODES`] nodes the whole distance
/// matrix is tabulated as bytes (≤ 4 MiB, built in O(nodes²)): the
/// refinement's inner loop is then one cache-resident load per distance,
/// which more than halves its time on the 512–2,048-node machines where a
/// run is short and per-call cost dominates.
///
/// It also keeps every node's network neighbours in one flat list
/// (O(nodes + links), in [`Topology::neighbors`]'s order), so the search
/// and the descent read them without building a list per call.
pub struct Dist {
    topo: Arc<Topology>,
    nd: usize,
    coords: Vec<u32>,
    dims: [u32; 6],
    wrap: [bool; 6],
    nodes: usize,
    table: Vec<u8>,
    /// Node u's neighbours: `adj[adj_off[u]..adj_off[u + 1]]`.
    adj_off: Vec<u32>,
    adj: Vec<u32>,
}

/// Largest network whose distance matrix [`Dist`] tabulates.
pub const TABLE_MAX_NODES: usize = 2048;

/// A distance row is built from a pattern over its innermost dimensions
/// of at least this many bytes ([`Dist::new`]): on `torus:8x8x16` the
/// pattern spans dimensions 0 and 1 (64 bytes), so each base is spread
/// over 8 words at once instead of 1.
const INNER_BYTES: usize = 64;

impl Dist {
    /// O(nodes · dims + links), plus O(nodes²) for the table on small grids
    /// (each row built from per-dimension distances).
    pub fn new(topo: Arc<Topology>) -> Self {
        let nodes = topo.num_nodes();
        let mut adj_off = Vec::with_capacity(nodes + 1);
        let mut adj = Vec::new();
        let mut nb = Vec::new();
        adj_off.push(0u32);
        for u in 0..nodes {
            nb.clear();
            match topo.as_grid() {
                Some(g) => g.neighbors_into(u, &mut nb),
                None => nb = topo.neighbors(u),
            }
            adj.extend(nb.iter().map(|&w| w as u32));
            adj_off.push(adj.len() as u32);
        }
        let mut d = Dist {
            nd: 0,
            coords: Vec::new(),
            dims: [0; 6],
            wrap: [false; 6],
            nodes,
            table: Vec::new(),
            adj_off,
            adj,
            topo,
        };
        if let Some(g) = d.topo.as_grid() {
            d.nd = g.ndims();
            for k in 0..d.nd {
                d.dims[k] = g.dims()[k];
                d.wrap[k] = g.wraps(k);
            }
            d.coords = Vec::with_capacity(g.num_nodes() * d.nd);
            for u in 0..g.num_nodes() {
                d.coords.extend_from_slice(&g.coord(u)[..d.nd]);
            }
            let n = d.nodes;
            if n <= TABLE_MAX_NODES && (0..d.nd).map(|k| d.dims[k]).sum::<u32>() < 255 {
                let mut t = Vec::with_capacity(n * n);
                let (mut dk, mut bases, mut inner) = (Vec::new(), Vec::new(), Vec::new());
                for a in 0..n {
                    d.push_row(a, &mut t, &mut dk, &mut bases, &mut inner);
                }
                d.table = t;
            }
        }
        d
    }
    /// Append the distances from node `a` to every node, in node order
    /// (the same values as [`Dist::computed`]): nodes are numbered with
    /// dimension 0 fastest, so the row is built as sums of per-dimension
    /// distances (every sum is below 255, so no byte overflows): the sums
    /// over the outer dimensions `k..` (in `bases`) and over the inner ones
    /// `..k` (in `inner`, at least [`INNER_BYTES`] long unless the grid is
    /// smaller), then each base spread over `inner`, 8 bytes at a time.
    /// O(nodes); `dk`, `bases` and `inner` are scratch.
    fn push_row(
        &self,
        a: usize,
        out: &mut Vec<u8>,
        dk: &mut Vec<u8>,
        bases: &mut Vec<u8>,
        inner: &mut Vec<u8>,
    ) {
        let ca = &self.coords[a * self.nd..(a + 1) * self.nd];
        // The sums over dimensions `range`, the lowest fastest: built from
        // the highest dimension inwards, every partial sum expanded by the
        // next dimension's distances, in place from the back (each entry
        // becomes `size` entries).
        let sums = |range: std::ops::Range<usize>, acc: &mut Vec<u8>, dk: &mut Vec<u8>| {
            acc.clear();
            acc.push(0);
            for k in range.rev() {
                let (size, c) = (self.dims[k], ca[k]);
                dk.clear();
                dk.extend((0..size).map(|x| {
                    let dx = c.abs_diff(x);
                    (if self.wrap[k] { dx.min(size - dx) } else { dx }) as u8
                }));
                let (len, size) = (acc.len(), dk.len());
                acc.resize(len * size, 0);
                for i in (0..len).rev() {
                    let base = acc[i];
                    for (o, &x) in acc[i * size..(i + 1) * size].iter_mut().zip(dk.iter()) {
                        *o = base + x;
                    }
                }
            }
        };
        let mut k = 0;
        let mut span = 1usize;
        while k < self.nd && span < INNER_BYTES {
            span *= self.dims[k] as usize;
            k += 1;
        }
        sums(k..self.nd, bases, dk);
        sums(0..k, inner, dk);
        let size = inner.len();
        let start = out.len();
        out.resize(start + bases.len() * size, 0);
        let whole = size / 8 * 8;
        let (dw, dr) = (inner.chunks_exact(8), &inner[whole..]);
        for (row, &base) in out[start..].chunks_exact_mut(size).zip(bases.iter()) {
            // Adding `base` to each byte of a word is one add of base ×
            // 0x0101…01 (no byte carries).
            let spread = base as u64 * 0x0101_0101_0101_0101;
            let (head, tail) = row.split_at_mut(whole);
            for (o, x) in head.chunks_exact_mut(8).zip(dw.clone()) {
                let mut w = [0u8; 8];
                w.copy_from_slice(x);
                o.copy_from_slice(&(u64::from_le_bytes(w) + spread).to_le_bytes());
            }
            for (o, &x) in tail.iter_mut().zip(dr) {
                *o = base + x;
            }
        }
    }

    /// The network neighbours of node `u`, in [`Topology::neighbors`]'s
    /// order. O(1).
    #[inline]
    pub fn neighbors(&self, u: usize) -> &[u32] {
        &self.adj[self.adj_off[u] as usize..self.adj_off[u + 1] as usize]
    }
    /// Node `a`'s row of the distance table (distances to every node, in
    /// node order), when the network is tabulated.
    #[inline]
    fn row(&self, a: usize) -> Option<&[u8]> {
        (!self.table.is_empty()).then(|| &self.table[a * self.nodes..(a + 1) * self.nodes])
    }
    #[inline]
    pub(super) fn get(&self, a: usize, b: usize) -> u32 {
        if !self.table.is_empty() {
            return self.table[a * self.nodes + b] as u32;
        }
        self.computed(a, b)
    }
    // Out of line, so that `get` (the table's look-up) inlines.
    #[inline(never)]
    fn computed(&self, a: usize, b: usize) -> u32 {
        if self.nd == 0 {
            return self.topo.distance(a, b);
        }
        let (ca, cb) = (
            &self.coords[a * self.nd..(a + 1) * self.nd],
            &self.coords[b * self.nd..(b + 1) * self.nd],
        );
        let mut h = 0;
        for k in 0..self.nd {
            let x = ca[k].abs_diff(cb[k]);
            h += if self.wrap[k] {
                x.min(self.dims[k] - x)
            } else {
                x
            };
        }
        h
    }
}

/// Largest Σ of pair volumes for which [`exact_sums`] holds: times the
/// largest tabulated distance (< 255) it stays below 2^53, so every partial
/// sum of `c · d` terms is an integer that f64 holds exactly.
pub const EXACT_TOTAL_MAX: f64 = (1u64 << 44) as f64;

/// Whether every pair volume is a non-negative integer and their total is
/// at most [`EXACT_TOTAL_MAX`]: then every sum of `c · d` terms the search
/// forms over a row of the distance table is exact in f64, whatever the
/// order of its terms, so the kernels below may sum in several independent
/// accumulators and give the same bits as the plain left-to-right sum.
/// O(m).
pub fn exact_sums(vol: &[f64]) -> bool {
    let mut total = 0.0;
    for &c in vol {
        if !(c >= 0.0 && c.fract() == 0.0) {
            return false;
        }
        total += c;
    }
    total <= EXACT_TOTAL_MAX
}

/// Σ_k `vol[k]` · `row[node_of[nbrs[k]]]`, in 4 accumulators (only for
/// [`exact_sums`] inputs: then equal to the left-to-right sum). O(deg).
#[inline]
fn row_sum4(row: &[u8], node_of: &[u32], nbrs: &[u32], vol: &[f64]) -> f64 {
    let mut acc = [0.0f64; 4];
    let (nc, vc) = (nbrs.chunks_exact(4), vol.chunks_exact(4));
    let (nr, vr) = (nc.remainder(), vc.remainder());
    for (n4, v4) in nc.zip(vc) {
        for j in 0..4 {
            acc[j] += v4[j] * row[node_of[n4[j] as usize] as usize] as f64;
        }
    }
    for (&v, &c) in nr.iter().zip(vr) {
        acc[0] += c * row[node_of[v as usize] as usize] as f64;
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3])
}

/// Σ_u `row[u]` · `w[u]` over the nodes, in 8 accumulators: for
/// [`exact_sums`] inputs, where `w` holds whole per-node volume sums, the
/// same bits as any other order of the same terms. O(nodes), contiguous.
#[inline]
fn dense_dot(row: &[u8], w: &[f64]) -> f64 {
    let mut acc = [0.0f64; 8];
    let (rc, wc) = (row.chunks_exact(8), w.chunks_exact(8));
    let (rr, wr) = (rc.remainder(), wc.remainder());
    for (r8, w8) in rc.zip(wc) {
        for j in 0..8 {
            acc[j] += w8[j] * r8[j] as f64;
        }
    }
    for (&r, &x) in rr.iter().zip(wr) {
        acc[0] += x * r as f64;
    }
    ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]))
}

/// Σ_k `vol[k]` · `d(nbrs[k])`, or None once the running sum exceeds
/// `limit`: left to right with a check per term, or with `exact`
/// ([`exact_sums`]) in 4 accumulators checked every 4 terms (the same
/// answer). O(deg).
#[inline(always)]
fn sum_below(
    nbrs: &[u32],
    vol: &[f64],
    d: impl Fn(u32) -> f64,
    limit: f64,
    exact: bool,
) -> Option<f64> {
    if !exact {
        let mut s = 0.0;
        for (&v, &c) in nbrs.iter().zip(vol) {
            s += c * d(v);
            if s > limit {
                return None;
            }
        }
        return Some(s);
    }
    let mut acc = [0.0f64; 4];
    let (nc, vc) = (nbrs.chunks_exact(4), vol.chunks_exact(4));
    let (nr, vr) = (nc.remainder(), vc.remainder());
    for (n4, v4) in nc.zip(vc) {
        for j in 0..4 {
            acc[j] += v4[j] * d(n4[j]);
        }
        if (acc[0] + acc[1]) + (acc[2] + acc[3]) > limit {
            return None;
        }
    }
    for (&v, &c) in nr.iter().zip(vr) {
        acc[0] += c * d(v);
    }
    let s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    if s > limit { None } else { Some(s) }
}

/// Σ_k `vol[k]` · d(`node`, φ(`nbrs[k]`)), summed in order: a process's
/// cost were it on `node` (`nbrs`, `vol`: its partners and pair volumes;
/// `node_of`: φ). O(deg), one table row when the network is tabulated;
/// with `exact` ([`exact_sums`]) in 4 accumulators, the same value.
#[inline]
fn weighted_distance(
    dist: &Dist,
    node_of: &[u32],
    node: usize,
    nbrs: &[u32],
    vol: &[f64],
    exact: bool,
) -> f64 {
    let mut s = 0.0;
    match dist.row(node) {
        Some(row) if exact => return row_sum4(row, node_of, nbrs, vol),
        Some(row) => {
            for (&v, &c) in nbrs.iter().zip(vol) {
                s += c * row[node_of[v as usize] as usize] as f64;
            }
        }
        None => {
            for (&v, &c) in nbrs.iter().zip(vol) {
                s += c * dist.get(node, node_of[v as usize] as usize) as f64;
            }
        }
    }
    s
}

/// [`weighted_distance`], summed in the same order, or None as soon as the
/// running sum exceeds `limit`: the terms are never negative, so the full
/// sum would exceed it too. O(deg).
#[inline]
fn weighted_distance_below(
    dist: &Dist,
    node_of: &[u32],
    node: usize,
    nbrs: &[u32],
    vol: &[f64],
    limit: f64,
    exact: bool,
) -> Option<f64> {
    match dist.row(node) {
        Some(row) => sum_below(
            nbrs,
            vol,
            |v| row[node_of[v as usize] as usize] as f64,
            limit,
            exact,
        ),
        // Computed distances may pass the table's bound: summed in order.
        None => sum_below(
            nbrs,
            vol,
            |v| dist.get(node, node_of[v as usize] as usize) as f64,
            limit,
            false,
        ),
    }
}

/// [`weighted_distance_below`] with the partners' nodes given (`nodes[k]`
/// the node of the k-th partner, read by the caller): the same terms in the
/// same order, one look-up less per term. O(deg).
#[inline]
fn weighted_distance_below_at(
    dist: &Dist,
    nodes: &[u32],
    node: usize,
    vol: &[f64],
    limit: f64,
    exact: bool,
) -> Option<f64> {
    match dist.row(node) {
        Some(row) => sum_below(nodes, vol, |x| row[x as usize] as f64, limit, exact),
        None => sum_below(
            nodes,
            vol,
            |x| dist.get(node, x as usize) as f64,
            limit,
            false,
        ),
    }
}

/// What the refinement minimizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Objective {
    HopBytes,
    MaxLoad,
    SqLoad,
}

impl Objective {
    pub fn parse(s: &str) -> Option<Objective> {
        match s.trim().to_ascii_lowercase().as_str() {
            "hopbytes" => Some(Objective::HopBytes),
            "maxload" => Some(Objective::MaxLoad),
            "sqload" => Some(Objective::SqLoad),
            _ => None,
        }
    }
}

/// Settings of [`Refine`].
#[derive(Clone, Copy, Debug)]
pub struct RefineParams {
    pub objective: Objective,
    pub sweeps: usize,
    pub batch: usize,
    pub depth: u32,
    pub time: Option<Duration>,
    pub seed: u64,
    /// Stop after a sweep that lowered the objective by less than this
    /// fraction of its value at the sweep's start (0 = only at a local optimum).
    pub tol: f64,
    /// After the search: the bottleneck phase ([`bottleneck`]) may raise
    /// hop-bytes by this fraction of their value to lower the largest
    /// channel load (0 = no such phase; the `sqload` objective never runs it).
    pub load_budget: f64,
    /// After the descent, on small inputs ([`tabu::applies`]): a robust tabu
    /// search of this many iterations per process ([`tabu`]; 0 = none).
    pub tabu: usize,
    /// In the polish, on meshes and tori below 1,024 processes
    /// ([`kicks::applies`]): this many kicks per process ([`kicks`]; 0 =
    /// none).
    pub kicks: usize,
}

/// The messages of an edge whose end moves from node `from` to `to`, its
/// partner staying on node `nv`: `out` bytes sent and `inn` received are
/// taken off their old routes (sign −1) and put on the new (sign +1),
/// given to `push(src, dst, bytes, sign)`.
pub(super) fn moved_edge(
    from: usize,
    to: usize,
    nv: usize,
    out: f64,
    inn: f64,
    push: &mut impl FnMut(usize, usize, f64, f64),
) {
    if out > 0.0 {
        push(from, nv, out, -1.0);
        push(to, nv, out, 1.0);
    }
    if inn > 0.0 {
        push(nv, from, inn, -1.0);
        push(nv, to, inn, 1.0);
    }
}

#[cfg(test)]
impl RefineParams {
    /// The settings of the hand-checked refinement tests: hop-bytes, 10
    /// sweeps of batches of 8, depth 1, seed 1, no tolerance, no tabu
    /// phase, no kicks, and the bottleneck phase's budget `load_budget`.
    pub(crate) fn hand_checked(load_budget: f64) -> Self {
        RefineParams {
            objective: Objective::HopBytes,
            sweeps: 10,
            batch: 8,
            depth: 1,
            time: None,
            seed: 1,
            tol: 0.0,
            load_budget,
            tabu: 0,
            kicks: 0,
        }
    }
}

/// Why a refinement stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefineStop {
    LocalOptimum,
    /// A sweep improved the objective by less than `tol`.
    Converged,
    SweepLimit,
    TimeLimit,
}

/// A local-search run over an initial mapping.
pub struct Refine {
    graph: Arc<CommGraph>,
    topo: Arc<Topology>,
    /// Dimension-order routes (on fabrics, their switch-to-switch part
    /// memoised) for the load objectives and the bottleneck phase.
    routes: RouteCache,
    dist: Arc<Dist>,
    vol: Arc<Vec<f64>>,
    /// cost[p] = Σ_v c_pv · d(φp, φv), kept up to date by every exchange
    /// (hop-bytes = Σ_p cost[p] / 2), so a swap's gain for the process it
    /// displaces needs one distance per partner instead of two.
    cost: Vec<f64>,
    /// W_p = Σ_v c_pv, for the pruning bound of a swap.
    wsum: Vec<f64>,
    /// [`exact_sums`] of the pair volumes: the kernels' sums may be
    /// reordered without changing a bit.
    exact: bool,
    /// For the load objectives and the bottleneck phase, built on first
    /// use: the CSR position of each adjacency entry's reverse (entry k of
    /// x's row, partner v: x's position in v's row; [`NO_REV`] if v does
    /// not list x), so the bytes v sends x are one load. O(m).
    rev: Vec<u32>,
    /// Scratch of [`Refine::improve`] on dense inputs: the distance from
    /// the improved process's node to each process's node.
    from_a: Vec<u8>,
    /// Scratch of [`Refine::improve`] on dense inputs: the improved
    /// process's volume to the processes on each node (zero between calls).
    node_w: Vec<f64>,
    cores: usize,
    node_of: Vec<u32>,
    core_of: Vec<u32>,
    owner: Vec<u32>,
    placement: Vec<Option<u32>>,
    hb: f64,
    /// Improvements smaller than this are rounding noise (1e-12 of the bytes).
    hb_eps: f64,
    load: Vec<f64>,
    sq: f64,
    batch_max: f64,
    trace: Vec<f64>,
    obj_trace: Vec<f64>,
    order: Vec<u32>,
    pos: usize,
    sweep: usize,
    since_improve: usize,
    sweep_start_obj: f64,
    params: RefineParams,
    rng: Rng,
    deadline: Option<Instant>,
    stop: Option<RefineStop>,
    /// Candidate nodes already listed for the process being tried.
    cand_seen: Stamps,
    cand: Vec<usize>,
    deltas: Vec<(usize, f64)>,
    last: Vec<(usize, usize)>,
    /// Scratch: (node, volume) of the partners of the process being improved.
    partners: Vec<(usize, f64)>,
    /// Scratch of [`Refine::load_deltas`], one entry per channel (zero
    /// between calls), allocated on first use.
    acc: Vec<f64>,
    seen: Vec<bool>,
    /// Scratch of the bottleneck phase: (Δ hop-bytes, candidate index,
    /// slot) of the exchanges within the budget, and the bytes of p's
    /// messages through the hot channel from each candidate node.
    relief: Vec<(f64, usize, usize)>,
    pbs: Vec<Option<f64>>,
    /// Scratch of the bottleneck phase: the cost of the process being
    /// tried at its candidate nodes, by dimension ([`axis_costs`]).
    axis: axis_costs::AxisCosts,
    /// Scratch of the bottleneck phase's rounds: per process, the bytes of
    /// its messages through the round's channel where it sits, made when
    /// first needed in the round (valid under the stamp `here_stamp` while
    /// `here_on`: the round tries its processes and nothing moves).
    here_bytes: Vec<(u32, f64)>,
    here_stamp: u32,
    here_on: bool,
    /// The bottleneck phase, once the search has stopped.
    hot: Option<Box<bottleneck::Hot>>,
    /// The descent phase in progress: why the search stopped, the tries
    /// left, and the tries since the last exchange.
    descent: Option<(RefineStop, usize, usize)>,
    /// Whether the descent phase has run.
    descended: bool,
    /// The kick phase in progress ([`kicks`]), whether it has run, and the
    /// kicks it kept once finished.
    kicks: Option<Box<kicks::Kicks>>,
    kicked: bool,
    kicks_end: Option<usize>,
    /// The tabu phase in progress, and whether it has run.
    tabu: Option<Box<tabu::Tabu>>,
    tabu_ran: bool,
    /// The finished tabu phase: iterations made, and its best hop-bytes.
    tabu_end: Option<(u64, f64)>,
    /// The block phase in progress ([`blocks`]), whether it has run, and
    /// the moves it made once finished.
    blocks: Option<Box<blocks::Blocks>>,
    blocks_ran: bool,
    blocks_end: Option<usize>,
    /// Stop when the search stops: no descent or bottleneck phase
    /// ([`Refine::search_only`]).
    search_only: bool,
    /// Whether this refinement polishes the best of several runs
    /// ([`Refine::polish`]): the descent then has the larger budgets
    /// ([`Refine::descent_scale`]) and also runs on sparse inputs above
    /// [`descent::MAX_PROCESSES`] ([`descent::applies`]).
    polishing: bool,
    /// The descent's failed tries ([`descent::Memo`]), while it runs.
    memo: Option<Box<descent::Memo>>,
    /// The search's failed processes ([`SearchMemo`]; objective `hopbytes`).
    search_memo: SearchMemo,
    /// The search's memo once the search has stopped ([`Refine::end_search`]),
    /// kept up to date by every exchange made through [`Refine::apply`]
    /// and dropped by the phases that move processes otherwise: the
    /// descent skips the tries it certifies to fail
    /// ([`SearchMemo::certifies_at`]). Empty when there is none.
    after_memo: SearchMemo,
}

/// The search's memory of the processes it could not improve: `improve(p)`
/// reads the nodes of `p` and of its partners (its candidates and its
/// gains), and on each candidate node the occupants and their partners'
/// nodes (their costs). So when it found no exchange, it finds none again
/// as long as no exchange since then moved `p` or a partner of `p`
/// (`moved`) or touched a candidate node (`node`: an occupant changed, or
/// a partner of an occupant moved). Each exchange starts a new epoch and
/// stamps what it touched; a process is skipped while its failure is
/// newer than every stamp it depends on. Only for the `hopbytes`
/// objective (the load objectives read every channel's load). O(n + nodes)
/// memory, O(deg) per exchange.
#[derive(Default)]
struct SearchMemo {
    epoch: u32,
    /// The epoch in which each process, or one of its partners, last moved.
    moved: Vec<u32>,
    /// The epoch in which each node's occupants, or one of their partners,
    /// last moved.
    node: Vec<u32>,
    /// The epoch of each process's last failed search (0 = none).
    failed: Vec<u32>,
    /// The epoch of the last move into a free core (0 = none): a move
    /// stamps the node it enters, not the one it leaves, so a failure
    /// before it certifies nothing ([`SearchMemo::certifies`]).
    last_move: u32,
}

impl SearchMemo {
    fn new(n: usize, nodes: usize) -> Self {
        SearchMemo {
            epoch: 1,
            moved: vec![0; n],
            node: vec![0; nodes],
            failed: vec![0; n],
            last_move: 0,
        }
    }

    /// Whether `p`'s last search found no exchange with one of its
    /// candidate nodes, `b`, that lowers hop-bytes by more than `hb_eps`,
    /// and nothing that search read about `p` and `b` has changed since:
    /// neither `p` nor a partner moved (so its candidates are the same),
    /// no exchange touched `b`, and no move into a free core was made
    /// (a move stamps the node it enters, not the one it leaves). The
    /// caller knows `b` was a candidate: a partner's node or, with `depth`
    /// ≥ 1, a network neighbour of one, and not p's node. False on an
    /// empty memo. O(1).
    fn certifies_at(&self, p: usize, b: usize) -> bool {
        self.failed
            .get(p)
            .is_some_and(|&e| e != 0 && self.last_move < e && self.moved[p] < e && self.node[b] < e)
    }

    /// Whether `p` failed since anything its search (over `cand`) reads
    /// last changed.
    fn failed_before(&self, p: usize, cand: &[usize]) -> bool {
        let e = self.failed[p];
        e != 0 && self.moved[p] < e && cand.iter().all(|&b| self.node[b] < e)
    }

    /// The exchange `ex` was applied (`node_of` after it).
    fn changed(&mut self, graph: &CommGraph, node_of: &[u32], ex: (usize, usize)) {
        if ex.0 == ex.1 {
            self.last_move = self.epoch;
        }
        for x in [ex.0, ex.1] {
            self.moved[x] = self.epoch;
            self.node[node_of[x] as usize] = self.epoch;
            for &v in graph.neighbors(x) {
                self.moved[v as usize] = self.epoch;
                self.node[node_of[v as usize] as usize] = self.epoch;
            }
        }
        self.epoch += 1;
    }
}

impl Refine {
    /// Start from `initial` (a valid mapping). O(m · route length) for the
    /// load objectives, O(m) otherwise. `dist` may be shared between runs
    /// on the same network ([`Dist::new`]).
    pub fn new(
        graph: Arc<CommGraph>,
        topo: Arc<Topology>,
        vol: Arc<Vec<f64>>,
        initial: Mapping,
        params: RefineParams,
    ) -> Self {
        let dist = Arc::new(Dist::new(topo.clone()));
        Self::with_dist(graph, topo, dist, vol, initial, params)
    }

    /// [`Refine::new`] with a precomputed distance oracle for `topo`.
    pub fn with_dist(
        graph: Arc<CommGraph>,
        topo: Arc<Topology>,
        dist: Arc<Dist>,
        vol: Arc<Vec<f64>>,
        initial: Mapping,
        params: RefineParams,
    ) -> Self {
        let n = graph.n();
        let cores = topo.cores();
        let mut owner = vec![FREE; topo.num_slots()];
        for p in 0..n {
            owner[initial.slot(p, cores)] = p as u32;
        }
        let placement = (0..n)
            .map(|p| Some(initial.slot(p, cores) as u32))
            .collect();
        let nodes = topo.num_nodes();
        let mut me = Refine {
            cores,
            node_of: initial.node,
            core_of: initial.core,
            owner,
            placement,
            hb: 0.0,
            hb_eps: 0.0,
            load: Vec::new(),
            sq: 0.0,
            batch_max: 0.0,
            trace: Vec::new(),
            obj_trace: Vec::new(),
            order: (0..n as u32).collect(),
            pos: n,
            sweep: 0,
            since_improve: 0,
            sweep_start_obj: 0.0,
            params,
            rng: Rng::new(params.seed ^ 0x7265_6669_6e65),
            deadline: params.time.map(|t| Instant::now() + t),
            stop: None,
            cand_seen: Stamps::new(nodes),
            cand: Vec::new(),
            deltas: Vec::new(),
            last: Vec::new(),
            partners: Vec::new(),
            hot: None,
            descent: None,
            descended: false,
            kicks: None,
            kicked: false,
            kicks_end: None,
            tabu: None,
            tabu_ran: false,
            tabu_end: None,
            blocks: None,
            blocks_ran: false,
            blocks_end: None,
            search_only: false,
            polishing: false,
            memo: None,
            search_memo: SearchMemo::default(),
            after_memo: SearchMemo::default(),
            relief: Vec::new(),
            pbs: Vec::new(),
            axis: Default::default(),
            here_bytes: Vec::new(),
            here_stamp: 0,
            here_on: false,
            acc: Vec::new(),
            seen: Vec::new(),
            exact: exact_sums(&vol),
            rev: Vec::new(),
            from_a: Vec::new(),
            node_w: Vec::new(),
            dist,
            cost: Vec::new(),
            wsum: (0..n)
                .map(|p| {
                    let off = graph.offsets()[p];
                    vol[off..off + graph.degree(p)].iter().sum()
                })
                .collect(),
            routes: RouteCache::new(
                topo.clone(),
                Routing::Dor,
                ROUTE_PAIRS_PER_ENTRY * (graph.targets().len() + n),
            ),
            graph,
            topo,
            vol,
        };
        me.hb = me.total_hop_bytes();
        me.cost = (0..n).map(|p| me.cost_of(p)).collect();
        me.hb_eps = 1e-12 * me.graph.total_bytes().max(1.0);
        if params.objective != Objective::HopBytes {
            me.route_all();
        }
        me.trace.push(me.hb);
        let o = me.objective();
        me.obj_trace.push(o);
        if n < 2 || params.sweeps == 0 {
            me.stop = Some(RefineStop::SweepLimit);
        }
        me
    }

    /// Stop when the search stops (and, on small inputs, the tabu phase
    /// after it), without the descent and the bottleneck phase: for
    /// independent runs of which
    /// only the best is carried on by [`Refine::polish`].
    pub fn search_only(mut self) -> Self {
        self.search_only = true;
        self
    }

    /// The phases after the search (the descent, with
    /// [`descent::POLISH_SCALE`] times its budgets, then the bottleneck
    /// phase, as `params` ask; not the tabu phase, which the runs made)
    /// from `initial`, a mapping where a search with `params` stopped for
    /// `why`. [`Refine::with_dist`]'s cost, then those phases'.
    pub fn polish(
        graph: Arc<CommGraph>,
        topo: Arc<Topology>,
        dist: Arc<Dist>,
        vol: Arc<Vec<f64>>,
        initial: Mapping,
        params: RefineParams,
        why: RefineStop,
    ) -> Self {
        let mut r = Self::with_dist(graph, topo, dist, vol, initial, params);
        r.polishing = true;
        // The runs' searches were followed by the tabu phase already.
        r.tabu_ran = true;
        if r.stop.is_none() {
            r.end_search(why);
        }
        r
    }

    /// Hop-bytes recomputed from scratch. O(m).
    pub fn total_hop_bytes(&self) -> f64 {
        let g = &self.graph;
        let off = g.offsets();
        let mut s = 0.0;
        for u in 0..g.n() {
            let a = self.node_of[u] as usize;
            for (k, &v) in g.neighbors(u).iter().enumerate() {
                if (v as usize) > u {
                    let b = self.node_of[v as usize] as usize;
                    s += self.vol[off[u] + k] * self.dist.get(a, b) as f64;
                }
            }
        }
        s
    }

    /// The current value of the objective.
    pub fn objective(&self) -> f64 {
        match self.params.objective {
            Objective::HopBytes => self.hb,
            Objective::SqLoad => self.sq,
            Objective::MaxLoad => self.load.iter().cloned().fold(0.0, f64::max),
        }
    }

    pub fn hop_bytes(&self) -> f64 {
        self.hb
    }
    pub fn hop_bytes_trace(&self) -> &[f64] {
        &self.trace
    }
    /// The objective after each step (equal to the hop-bytes trace for
    /// `hopbytes`).
    pub fn objective_trace(&self) -> &[f64] {
        &self.obj_trace
    }
    pub fn placement(&self) -> &[Option<u32>] {
        &self.placement
    }
    /// Exchanges kept by the last step (`(p, p)` = a move into a free core).
    pub fn last_swaps(&self) -> &[(usize, usize)] {
        &self.last
    }
    pub fn stopped(&self) -> Option<RefineStop> {
        self.stop
    }
    pub fn is_done(&self) -> bool {
        self.stop.is_some()
    }
    /// Processes tried so far and the sweep budget in processes.
    pub fn progress(&self) -> (usize, usize) {
        let n = self.graph.n();
        (
            self.sweep.saturating_sub(1) * n + self.pos.min(n),
            self.params.sweeps.saturating_mul(n),
        )
    }
    pub fn mapping(&self) -> Mapping {
        Mapping::new(self.node_of.clone(), self.core_of.clone())
    }

    /// Σ_v c_pv · d(φp, φv) from scratch. O(deg p).
    fn cost_of(&self, p: usize) -> f64 {
        let a = self.node_of[p] as usize;
        self.cost_at(p, a)
    }

    /// Σ_v c_pv · d(node, φv). O(deg p).
    fn cost_at(&self, p: usize, node: usize) -> f64 {
        let off = self.graph.offsets()[p];
        let nbrs = self.graph.neighbors(p);
        weighted_distance(
            &self.dist,
            &self.node_of,
            node,
            nbrs,
            &self.vol[off..off + nbrs.len()],
            self.exact,
        )
    }

    /// [`Refine::cost_at`], or None as soon as its running sum exceeds
    /// `limit` (the full sum would too: its terms are never negative).
    fn cost_at_below(&self, p: usize, node: usize, limit: f64) -> Option<f64> {
        let off = self.graph.offsets()[p];
        let nbrs = self.graph.neighbors(p);
        weighted_distance_below(
            &self.dist,
            &self.node_of,
            node,
            nbrs,
            &self.vol[off..off + nbrs.len()],
            limit,
            self.exact,
        )
    }

    /// Largest gap between the cached per-process costs and their values
    /// recomputed from scratch (for tests: the cache must stay exact).
    #[cfg(test)]
    pub(crate) fn cost_cache_error(&self) -> f64 {
        (0..self.graph.n())
            .map(|p| (self.cost[p] - self.cost_of(p)).abs())
            .fold(0.0, f64::max)
    }

    /// The change of a process's cost when it moves to node `b`: Σ c · d(b,
    /// node of the partner) over its `partners` (node, volume), minus its
    /// cost `base` where it is. O(deg).
    fn gain_at(&self, partners: &[(usize, f64)], b: usize, base: f64) -> f64 {
        let mut s = 0.0;
        match self.dist.row(b) {
            Some(row) if self.exact => {
                let mut acc = [0.0f64; 4];
                let c4 = partners.chunks_exact(4);
                let rest = c4.remainder();
                for p4 in c4 {
                    for j in 0..4 {
                        acc[j] += p4[j].1 * row[p4[j].0] as f64;
                    }
                }
                for &(nv, c) in rest {
                    acc[0] += c * row[nv] as f64;
                }
                s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
            }
            Some(row) => {
                for &(nv, c) in partners {
                    s += c * row[nv] as f64;
                }
            }
            None => {
                for &(nv, c) in partners {
                    s += c * self.dist.get(b, nv) as f64;
                }
            }
        }
        s - base
    }

    /// Keep `cost` exact after `x` moved from node `from` to node `to`
    /// (`other`, the process it swapped with, is handled by the caller).
    fn update_costs(&mut self, x: usize, from: usize, to: usize, other: Option<usize>) {
        let off = self.graph.offsets()[x];
        for (k, &v) in self.graph.neighbors(x).iter().enumerate() {
            let v = v as usize;
            if Some(v) == other {
                continue;
            }
            let nv = self.node_of[v] as usize;
            self.cost[v] +=
                self.vol[off + k] * (self.dist.get(to, nv) as f64 - self.dist.get(from, nv) as f64);
        }
    }

    fn pair_volume(&self, p: usize, q: usize) -> f64 {
        match self.graph.neighbors(p).binary_search(&(q as u32)) {
            Ok(k) => self.vol[self.graph.offsets()[p] + k],
            Err(_) => 0.0,
        }
    }

    /// Candidate nodes of `p` (not its own node `a`) into `self.cand`.
    fn candidates(&mut self, p: usize, a: usize, depth: u32) {
        self.cand_seen.clear();
        self.cand.clear();
        self.cand_seen.insert(a);
        for &v in self.graph.neighbors(p) {
            let nv = self.node_of[v as usize] as usize;
            if self.cand_seen.insert(nv) {
                self.cand.push(nv);
            }
        }
        let mut lo = 0;
        for _ in 0..depth {
            let hi = self.cand.len();
            let dist = &*self.dist;
            for i in lo..hi {
                let u = self.cand[i];
                for &w in dist.neighbors(u) {
                    let w = w as usize;
                    if self.cand_seen.insert(w) {
                        self.cand.push(w);
                    }
                }
            }
            lo = hi;
        }
    }

    /// Every channel-load change of moving p a→b and (if some) q b→a, as
    /// `sink(channel, signed bytes)`, unmerged: only p's and q's messages
    /// are re-routed.
    fn route_changes(
        &self,
        p: usize,
        a: usize,
        b: usize,
        q: Option<usize>,
        sink: &mut impl FnMut(usize, f64),
    ) {
        let routes = &self.routes;
        self.moved_messages(p, a, b, q, &mut |src, dst, bytes, sign| {
            routes.route(src, dst, bytes, &mut |ch, x| sink(ch, sign * x));
        });
    }

    /// The messages whose routes change when p moves a→b and (if some) q
    /// b→a, as `push(src node, dst node, bytes, sign)`: −1 for the route
    /// before, +1 for the route after.
    fn moved_messages(
        &self,
        p: usize,
        a: usize,
        b: usize,
        q: Option<usize>,
        push: &mut impl FnMut(usize, usize, f64, f64),
    ) {
        let g = &self.graph;
        for (x, from, to, other) in [(Some(p), a, b, q), (q, b, a, Some(p))] {
            let Some(x) = x else { continue };
            for (k, &v) in g.neighbors(x).iter().enumerate() {
                let v = v as usize;
                if Some(v) == other {
                    continue;
                }
                let nv = self.node_of[v] as usize;
                let out = g.sent_row(x)[k];
                let inn = self.received(g.offsets()[x] + k);
                moved_edge(from, to, nv, out, inn, push);
            }
        }
        if let Some(q) = q {
            let pq = g.sent_between(p, q);
            let qp = g.sent_between(q, p);
            if pq > 0.0 {
                push(a, b, pq, -1.0);
                push(b, a, pq, 1.0);
            }
            if qp > 0.0 {
                push(b, a, qp, -1.0);
                push(a, b, qp, 1.0);
            }
        }
    }

    /// Build `rev` if it is not yet. O(m log deg).
    fn ensure_rev(&mut self) {
        let g = &self.graph;
        if self.rev.len() == g.targets().len() {
            return;
        }
        let off = g.offsets();
        let mut rev = Vec::with_capacity(g.targets().len());
        for x in 0..g.n() {
            for &v in g.neighbors(x) {
                let v = v as usize;
                rev.push(match g.neighbors(v).binary_search(&(x as u32)) {
                    Ok(k) => (off[v] + k) as u32,
                    Err(_) => NO_REV,
                });
            }
        }
        self.rev = rev;
    }

    /// Bytes that the partner of adjacency entry `e` sends to the entry's
    /// owner (`sent_between(v, x)` for entry (x, v)), from `rev`. O(1).
    #[inline]
    fn received(&self, e: usize) -> f64 {
        match self.rev[e] {
            NO_REV => 0.0,
            r => self.graph.sent()[r as usize],
        }
    }

    /// Channel-load changes of moving p a→b and (if some) q b→a, merged by
    /// channel into `self.deltas` (in the order the channels are first
    /// touched; merged in a dense scratch row, no sort).
    fn load_deltas(&mut self, p: usize, a: usize, b: usize, q: Option<usize>) {
        self.merge_deltas(|r, sink| r.route_changes(p, a, b, q, &mut |ch, x| sink(ch, x)));
    }

    /// Run `produce`, which gives channel-load changes `(channel, Δ)` to its
    /// sink, and merge them by channel into `self.deltas`, in the order the
    /// channels are first touched, through a dense scratch row (no sort).
    /// O(changes) besides `produce`.
    pub(super) fn merge_deltas(&mut self, produce: impl FnOnce(&Self, &mut dyn FnMut(usize, f64))) {
        self.ensure_rev();
        let nc = self.topo.channel_slots();
        if self.acc.len() != nc {
            self.acc = vec![0.0; nc];
            self.seen = vec![false; nc];
        }
        let mut d = std::mem::take(&mut self.deltas);
        let mut acc = std::mem::take(&mut self.acc);
        let mut seen = std::mem::take(&mut self.seen);
        d.clear();
        produce(self, &mut |ch, x| {
            if !seen[ch] {
                seen[ch] = true;
                d.push((ch, 0.0));
            }
            acc[ch] += x;
        });
        for e in d.iter_mut() {
            e.1 = acc[e.0];
            acc[e.0] = 0.0;
            seen[e.0] = false;
        }
        self.deltas = d;
        self.acc = acc;
        self.seen = seen;
    }

    /// (Δ Σ load², largest new load among the touched channels).
    fn load_change(&self) -> (f64, f64) {
        let mut dsq = 0.0;
        let mut mx = 0.0f64;
        for &(c, x) in &self.deltas {
            let l = self.load[c];
            let nl = l + x;
            dsq += nl * nl - l * l;
            mx = mx.max(nl);
        }
        (dsq, mx)
    }

    /// Try to improve `p`; the exchange kept, if any.
    #[inline(never)]
    fn improve(&mut self, p: usize) -> Option<(usize, usize)> {
        if self.graph.degree(p) == 0 {
            return None;
        }
        let a = self.node_of[p] as usize;
        self.candidates(p, a, self.params.depth);
        let contention = self.params.objective != Objective::HopBytes;
        if !contention {
            if self.search_memo.moved.is_empty() {
                self.search_memo = SearchMemo::new(self.graph.n(), self.dist.nodes);
            }
            if self.search_memo.failed_before(p, &self.cand) {
                return None;
            }
        }
        let cand = std::mem::take(&mut self.cand);
        let mut partners = std::mem::take(&mut self.partners);
        partners.clear();
        let off = self.graph.offsets()[p];
        let base = self.cost[p];
        for (k, &v) in self.graph.neighbors(p).iter().enumerate() {
            let nv = self.node_of[v as usize] as usize;
            partners.push((nv, self.vol[off + k]));
        }
        let hb_eps = self.hb_eps;
        // When the swaps to price are many against n (dense graphs), every
        // process's distance from a is read once into `from_a`, and q's
        // cost at a reads it there: the same values in the same order,
        // one look-up less per term. O(n).
        let mut from_a = std::mem::take(&mut self.from_a);
        from_a.clear();
        if let Some(row) = self.dist.row(a)
            && 4 * cand.len() * self.cores >= self.graph.n()
        {
            from_a.extend(self.node_of.iter().map(|&x| row[x as usize]));
        }
        // With whole volumes and partners on at least half the nodes, p's
        // cost at each candidate node is a contiguous product of the
        // node's distance row with p's volume per node: the same sum
        // ([`exact_sums`]), vectorised.
        let nodes = self.dist.nodes;
        let mut node_w = std::mem::take(&mut self.node_w);
        let dense = self.exact && self.dist.row(a).is_some() && 2 * partners.len() >= nodes;
        if dense {
            node_w.resize(nodes, 0.0);
            for &(nv, c) in &partners {
                node_w[nv] += c;
            }
        }
        // With whole volumes on a tabulated mesh or torus, when p's
        // partners span few coordinates, p's cost at each candidate is
        // summed by dimension ([`axis_costs`]): the same integers.
        let mut axis = std::mem::take(&mut self.axis);
        let by_axis = !dense
            && self.exact
            && axis.pays(&self.dist, &partners, self.params.depth, cand.len())
            && axis.begin(&self.dist, self.exact, &partners);
        // (objective delta, hop-bytes delta, slot)
        let mut best: Option<(f64, f64, usize)> = None;
        for &b in &cand {
            let dab = self.dist.get(a, b) as f64;
            let gp = match self.dist.row(b) {
                Some(row) if dense => dense_dot(row, &node_w) - base,
                _ if by_axis => axis.cost(&self.dist, b) - base,
                _ => self.gain_at(&partners, b, base),
            };
            let mut free_tried = false;
            for s in b * self.cores..(b + 1) * self.cores {
                let q = self.owner[s];
                let (dhb, qo) = if q == FREE {
                    if free_tried {
                        continue;
                    }
                    free_tried = true;
                    (gp, None)
                } else {
                    let q = q as usize;
                    // Pruning (exact): by the triangle inequality q's cost
                    // falls by at most min(cost q, W_q · d(a,b)), so an
                    // exchange whose bound cannot beat the best so far (or
                    // cannot lower hop-bytes at all) is not evaluated.
                    let lb = gp - self.cost[q].min(self.wsum[q] * dab);
                    let bar = if contention {
                        hb_eps
                    } else {
                        best.map_or(-hb_eps, |(d, _, _)| d.min(-hb_eps))
                    };
                    if lb > bar + 1e-9 * lb.abs().max(1.0) {
                        continue;
                    }
                    // q moves b→a: its new cost minus its cached one. Its
                    // sum stops once the change cannot come below `bar`
                    // (the terms are never negative, nor is the pair's).
                    let limit = bar - gp
                        + self.cost[q]
                        + 1e-9 * (gp.abs() + self.cost[q] + bar.abs()).max(1.0);
                    let cq = if from_a.is_empty() {
                        self.cost_at_below(q, a, limit)
                    } else {
                        let off = self.graph.offsets()[q];
                        let nbrs = self.graph.neighbors(q);
                        let vol = &self.vol[off..off + nbrs.len()];
                        sum_below(nbrs, vol, |v| from_a[v as usize] as f64, limit, self.exact)
                    };
                    let Some(cq) = cq else {
                        continue;
                    };
                    (
                        gp + cq - self.cost[q] + 2.0 * self.pair_volume(p, q) * dab,
                        Some(q),
                    )
                };
                let dobj = if !contention {
                    dhb
                } else {
                    if dhb > hb_eps {
                        continue;
                    }
                    self.load_deltas(p, a, b, qo);
                    let (dsq, mx) = self.load_change();
                    if self.params.objective == Objective::MaxLoad
                        && mx > self.batch_max * (1.0 + 1e-12)
                    {
                        continue;
                    }
                    dsq
                };
                if best.is_none_or(|(d, _, _)| dobj < d) {
                    best = Some((dobj, dhb, s));
                }
            }
        }
        if dense {
            for &(nv, _) in &partners {
                node_w[nv] = 0.0;
            }
        }
        self.node_w = node_w;
        self.axis = axis;
        self.cand = cand;
        self.partners = partners;
        self.from_a = from_a;
        let eps = if contention {
            1e-12 * self.sq.max(1.0)
        } else {
            hb_eps
        };
        let Some((dobj, dhb, s)) = best.filter(|&(d, _, _)| d < -eps) else {
            if !contention {
                self.search_memo.failed[p] = self.search_memo.epoch;
            }
            return None;
        };
        let b = s / self.cores;
        let q = self.owner[s];
        let qo = (q != FREE).then_some(q as usize);
        if contention {
            self.load_deltas(p, a, b, qo);
            for &(c, x) in &self.deltas {
                self.load[c] += x;
            }
            self.sq += dobj;
        }
        let ex = self.apply(p, s, dhb);
        if !contention {
            self.search_memo.changed(&self.graph, &self.node_of, ex);
        }
        Some(ex)
    }

    /// Move `p` into slot `s`, swapping with its occupant if any, and keep
    /// hop-bytes (`dhb` is the change) and the cost cache exact (not the
    /// loads: the caller's business). The exchange, `(p, p)` for a move.
    fn apply(&mut self, p: usize, s: usize, dhb: f64) -> (usize, usize) {
        let a = self.node_of[p] as usize;
        let b = s / self.cores;
        let sp = a * self.cores + self.core_of[p] as usize;
        let q = self.owner[s];
        let qo = (q != FREE).then_some(q as usize);
        self.owner[s] = p as u32;
        self.owner[sp] = q;
        self.node_of[p] = b as u32;
        self.core_of[p] = (s % self.cores) as u32;
        self.placement[p] = Some(s as u32);
        self.hb += dhb;
        // Partners' costs see p (and q) at their new nodes; node_of of the
        // partners themselves is unchanged (they are neither p nor q).
        self.update_costs(p, a, b, qo);
        let r = match qo {
            None => (p, p),
            Some(q) => {
                self.node_of[q] = a as u32;
                self.core_of[q] = (sp % self.cores) as u32;
                self.placement[q] = Some(sp as u32);
                self.update_costs(q, b, a, Some(p));
                self.cost[q] = self.cost_of(q);
                (p, q)
            }
        };
        self.cost[p] = self.cost_of(p);
        if !self.after_memo.failed.is_empty() {
            self.after_memo.changed(&self.graph, &self.node_of, r);
        }
        r
    }

    /// Every channel's load (and Σ load²) from scratch: every message
    /// routed where its ends are now. O(channels + m · L).
    fn route_all(&mut self) {
        self.load.clear();
        self.load.resize(self.topo.channel_slots(), 0.0);
        let load = &mut self.load;
        for (u, v, b) in self.graph.messages() {
            let (a, c) = (self.node_of[u] as usize, self.node_of[v] as usize);
            self.routes.route(a, c, b, &mut |ch, x| load[ch] += x);
        }
        self.sq = self.load.iter().map(|l| l * l).sum();
    }

    /// Whether the tabu phase is still to run.
    fn tabu_due(&self) -> bool {
        !self.tabu_ran
            && self.params.tabu > 0
            && self.params.objective == Objective::HopBytes
            && tabu::applies(self.graph.n(), &self.topo)
    }

    /// Start the block phase ([`blocks`]) if it is still to run and the
    /// network has a hierarchy; whether it started.
    fn start_blocks_phase(&mut self, why: RefineStop) -> bool {
        if self.blocks_ran
            || self.params.objective != Objective::HopBytes
            || self.topo.as_fabric().is_none()
        {
            return false;
        }
        self.blocks_ran = true;
        match self.start_blocks(why) {
            Some(b) => {
                self.blocks = Some(Box::new(b));
                true
            }
            None => false,
        }
    }

    /// Whether the kick phase is running.
    pub fn kicks_running(&self) -> bool {
        self.kicks.is_some()
    }

    /// The kick phase ([`kicks`]), running or finished: the kicks kept so
    /// far; None when it has not started.
    pub fn kicks_phase(&self) -> Option<usize> {
        self.kicks.as_ref().map(|k| k.kept()).or(self.kicks_end)
    }

    /// The block phase, running or finished: the moves it has made; None
    /// when it has not started.
    pub fn blocks_phase(&self) -> Option<usize> {
        self.blocks.as_ref().map(|b| b.moves()).or(self.blocks_end)
    }

    /// The search stopped for `why`: start the bottleneck phase, or finish.
    fn end_search(&mut self, why: RefineStop) {
        // The search's memo goes on for the bottleneck phase (the first
        // call; the later ones, after the other phases, find it empty).
        let memo = std::mem::take(&mut self.search_memo);
        if !memo.failed.is_empty() {
            self.after_memo = memo;
        }
        if self.search_only {
            // The tabu phase is part of each run (it gains most from many
            // starts: PETSc shuffled on the 8 × 8 mesh reaches gmap's
            // hop-bytes from the 4 runs' searches with 64 iterations per
            // process each, and not from the best one with 256); the
            // polish skips it.
            if self.tabu_due() {
                self.tabu_ran = true;
                self.tabu = Some(Box::new(self.start_tabu(why)));
            } else if !self.start_blocks_phase(why) {
                self.finish(why);
            }
            return;
        }
        if !self.descended
            && self.params.objective == Objective::HopBytes
            && descent::applies(self.graph.n(), self.graph.num_edges(), self.polishing)
        {
            self.descended = true;
            self.descent = Some((
                why,
                descent::TRIES_PER_PROCESS * self.descent_scale() * self.graph.n(),
                0,
            ));
            return;
        }
        if !self.kicked
            && self.params.kicks > 0
            && self.polishing
            && self.params.objective == Objective::HopBytes
            && kicks::applies(self.graph.n())
            && self.topo.as_fabric().is_none()
        {
            self.kicked = true;
            self.kicks = Some(Box::new(kicks::Kicks::new(
                why,
                self.params.kicks * self.graph.n(),
                self.graph.n(),
                self.graph.targets().len(),
                self.dist.nodes,
            )));
            return;
        }
        if self.tabu_due() {
            self.tabu_ran = true;
            self.tabu = Some(Box::new(self.start_tabu(why)));
            return;
        }
        if self.start_blocks_phase(why) {
            return;
        }
        // The phase keeps a load and a message list per channel: on a
        // network far larger than the input (more than
        // `bottleneck::CHANNELS_PER_ENTRY` channels per adjacency entry)
        // it is skipped, so memory follows the input, not the network.
        let small_net = self.topo.channel_slots()
            <= bottleneck::CHANNELS_PER_ENTRY
                * (self.graph.targets().len() + self.graph.n()).max(1);
        if self.params.load_budget > 0.0 && self.params.objective != Objective::SqLoad && small_net
        {
            // Exact hop-bytes for the budget.
            self.hb = self.total_hop_bytes();
            self.hot = Some(Box::new(bottleneck::Hot::new(why)));
        } else {
            self.finish(why);
        }
    }

    /// Whether the bottleneck phase runs, and (once it is set up) the
    /// largest load at its start, now (as of its last round) and the
    /// exchanges it kept.
    pub fn load_phase(&self) -> Option<(f64, f64, usize)> {
        self.hot.as_ref().map(|h| (h.start_max, h.max, h.exchanges))
    }

    /// Whether the block phase is running now.
    pub fn blocks_running(&self) -> bool {
        self.blocks.is_some()
    }

    /// Whether the tabu phase is running now.
    pub fn tabu_running(&self) -> bool {
        self.tabu.is_some()
    }

    /// The tabu phase, running or finished: its iterations so far, its
    /// budget (once finished: the iterations made), and the best hop-bytes
    /// it has found; None when it has not started.
    pub fn tabu_phase(&self) -> Option<(u64, u64, f64)> {
        match (&self.tabu, self.tabu_end) {
            (Some(t), _) => {
                let (d, n) = t.progress();
                Some((d, n, t.best_hop_bytes()))
            }
            (None, Some((d, b))) => Some((d, d, b)),
            _ => None,
        }
    }

    /// Pairs of exchanges ([`chain`]) the bottleneck phase kept (for tests).
    #[cfg(test)]
    pub(crate) fn chains_kept(&self) -> usize {
        self.hot.as_ref().map_or(0, |h| h.chains)
    }

    /// Whole-node moves ([`node_swap`]) the bottleneck phase kept (for
    /// tests).
    #[cfg(test)]
    pub(crate) fn node_moves_kept(&self) -> usize {
        self.hot.as_ref().map_or(0, |h| h.nodes.kept)
    }

    /// Exchanges the bottleneck phase undid to go back to its best state
    /// ([`keep_best`]; for tests).
    #[cfg(test)]
    pub(crate) fn exchanges_undone(&self) -> usize {
        self.hot.as_ref().map_or(0, |h| h.best.undone)
    }

    /// Whether the last step of the bottleneck phase routed messages (its
    /// set-up) rather than relieved channels.
    pub fn load_phase_setting_up(&self) -> bool {
        self.hot.as_ref().is_some_and(|h| h.setting_up)
    }

    fn finish(&mut self, why: RefineStop) {
        self.stop = Some(why);
        self.hb = self.total_hop_bytes();
        if let Some(l) = self.trace.last_mut() {
            *l = self.hb;
        }
        if self.params.objective == Objective::SqLoad {
            self.sq = self.load.iter().map(|l| l * l).sum();
            let o = self.sq;
            if let Some(l) = self.obj_trace.last_mut() {
                // Remove accumulated rounding drift.
                *l = o;
            }
        }
    }

    /// The objective without the O(channels) scan of `maxload` (Σ load²
    /// stands in for it, for the convergence test only).
    fn objective_fast(&self) -> f64 {
        match self.params.objective {
            Objective::HopBytes => self.hb,
            _ => self.sq,
        }
    }

    /// Whether the sweep just completed gained less than `tol`.
    fn converged_sweep(&self) -> bool {
        self.sweep > 0
            && self.params.tol > 0.0
            && self.sweep_start_obj - self.objective_fast()
                < self.params.tol * self.sweep_start_obj.abs()
    }

    /// The hop-bytes and the objective after a step, for the traces.
    fn record_step(&mut self) {
        self.trace.push(self.hb);
        let o = self.objective();
        self.obj_trace.push(o);
    }

    /// Whether the `time_ms` budget is spent.
    fn past_deadline(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// One batch of processes.
    pub fn step(&mut self) {
        if self.stop.is_some() {
            return;
        }
        if let Some((why, left, mut idle)) = self.descent.take() {
            self.last.clear();
            let done = if descent::sweeps(self.graph.n(), self.polishing) {
                self.descent_sweep(left.min(16 * self.params.batch.max(1)), &mut idle)
            } else {
                self.descent_tries(left.min(16 * self.params.batch.max(1)), &mut idle)
            };
            self.record_step();
            if left > done
                && idle < descent::IDLE_PER_PROCESS * self.descent_scale() * self.graph.n()
            {
                self.descent = Some((why, left - done, idle));
                if self.past_deadline() {
                    self.descent = None;
                    self.finish(RefineStop::TimeLimit);
                }
            } else {
                self.end_search(why);
            }
            return;
        }
        if let Some(mut k) = self.kicks.take() {
            let over = self.kicks_step(&mut k);
            self.record_step();
            if over {
                self.kicks_end = Some(k.kept());
                self.end_search(k.why);
            } else {
                self.kicks = Some(k);
                if self.past_deadline() {
                    self.kicks_end = self.kicks.take().map(|k| k.kept());
                    self.finish(RefineStop::TimeLimit);
                }
            }
            return;
        }
        if let Some(mut b) = self.blocks.take() {
            self.last.clear();
            let over = self.blocks_step(&mut b);
            self.record_step();
            if over {
                self.blocks_end = Some(b.moves());
                self.end_search(b.why);
            } else {
                self.blocks = Some(b);
                if self.past_deadline() {
                    self.blocks_end = self.blocks.take().map(|b| b.moves());
                    self.finish(RefineStop::TimeLimit);
                }
            }
            return;
        }
        if let Some(mut t) = self.tabu.take() {
            self.last.clear();
            t.step();
            if t.is_done() {
                self.tabu_end = Some((t.progress().0, t.best_hop_bytes()));
                self.adopt_tabu(&mut t);
                let why = t.why;
                self.record_step();
                self.end_search(why);
            } else {
                self.record_step();
                self.tabu = Some(t);
                if self.past_deadline() {
                    if let Some(mut t) = self.tabu.take() {
                        self.tabu_end = Some((t.progress().0, t.best_hop_bytes()));
                        self.adopt_tabu(&mut t);
                    }
                    self.finish(RefineStop::TimeLimit);
                }
            }
            return;
        }
        if let Some(mut h) = self.hot.take() {
            self.last.clear();
            let over = self.hot_step(&mut h);
            self.record_step();
            let why = h.why;
            self.hot = Some(h);
            if over {
                self.finish(why);
            } else if self.past_deadline() {
                if let Some(mut h) = self.hot.take() {
                    self.best_restore(&mut h);
                    self.second_settle(&mut h);
                    self.hot = Some(h);
                }
                self.finish(RefineStop::TimeLimit);
            }
            return;
        }
        let n = self.graph.n();
        if self.params.objective == Objective::MaxLoad {
            self.batch_max = self.load.iter().cloned().fold(0.0, f64::max);
        }
        self.last.clear();
        for _ in 0..self.params.batch.max(1) {
            if self.pos == n {
                if self.sweep == self.params.sweeps || self.converged_sweep() {
                    break;
                }
                self.sweep_start_obj = self.objective_fast();
                self.rng.shuffle(&mut self.order);
                self.pos = 0;
                self.sweep += 1;
            }
            let p = self.order[self.pos] as usize;
            self.pos += 1;
            match self.improve(p) {
                Some(x) => {
                    self.last.push(x);
                    self.since_improve = 0;
                }
                None => self.since_improve += 1,
            }
            if self.since_improve >= n {
                break;
            }
        }
        self.record_step();
        if self.since_improve >= n {
            self.end_search(RefineStop::LocalOptimum);
        } else if self.pos == n && self.sweep == self.params.sweeps {
            self.end_search(RefineStop::SweepLimit);
        } else if self.pos == n && self.converged_sweep() {
            self.end_search(RefineStop::Converged);
        } else if self.past_deadline() {
            self.finish(RefineStop::TimeLimit);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn exact_sums_needs_whole_non_negative_volumes_and_a_bounded_total() {
        assert!(exact_sums(&[]));
        assert!(exact_sums(&[0.0, 3.0, 2048.0]));
        assert!(!exact_sums(&[1.0, 0.5]));
        assert!(!exact_sums(&[-1.0]));
        assert!(!exact_sums(&[f64::NAN]));
        assert!(!exact_sums(&[f64::INFINITY]));
        assert!(exact_sums(&[EXACT_TOTAL_MAX]));
        assert!(!exact_sums(&[EXACT_TOTAL_MAX, 1.0]));
    }

    fn below4(row: &[u8], node_of: &[u32], nbrs: &[u32], vol: &[f64], limit: f64) -> Option<f64> {
        sum_below(
            nbrs,
            vol,
            |v| row[node_of[v as usize] as usize] as f64,
            limit,
            true,
        )
    }

    #[test]
    fn the_dense_product_sums_a_hand_checked_row() {
        // 10 nodes (8 in the accumulators, 2 in the remainder): distances
        // 0..9, volume 1 on node 1, 2 on node 8, 5 on node 9:
        // 1·1 + 2·8 + 5·9 = 62.
        let row: Vec<u8> = (0..10).collect();
        let mut w = vec![0.0; 10];
        w[1] = 1.0;
        w[8] = 2.0;
        w[9] = 5.0;
        assert_eq!(dense_dot(&row, &w), 62.0);
    }

    #[test]
    fn four_accumulators_sum_a_hand_checked_row() {
        // Partners 0..5 on nodes 4, 3, 2, 1, 0; distances 0, 1, 2, 3, 4 to
        // them from this row; volumes 1..5: 1·4 + 2·3 + 3·2 + 4·1 + 5·0 = 20.
        let row = [0u8, 1, 2, 3, 4];
        let node_of = [4u32, 3, 2, 1, 0];
        let nbrs = [0u32, 1, 2, 3, 4];
        let vol = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(row_sum4(&row, &node_of, &nbrs, &vol), 20.0);
        assert_eq!(below4(&row, &node_of, &nbrs, &vol, 20.0), Some(20.0));
        assert_eq!(below4(&row, &node_of, &nbrs, &vol, 19.0), None);
        // The first 4 terms already make 20 > 15.
        assert_eq!(below4(&row, &node_of, &nbrs, &vol, 15.0), None);
    }

    proptest! {
        /// On whole volumes the 4-accumulator kernels give the bits of the
        /// plain left-to-right sum, and the cut-off answers None exactly
        /// when the full sum exceeds the limit.
        #[test]
        fn four_accumulators_equal_the_plain_sum_on_whole_volumes(
            terms in proptest::collection::vec((0u8..40, 0u32..5_000_000), 0..70),
            cut in 0.0f64..1.0,
        ) {
            let row: Vec<u8> = terms.iter().map(|t| t.0).collect();
            let node_of: Vec<u32> = (0..terms.len() as u32).collect();
            let nbrs: Vec<u32> = (0..terms.len() as u32).rev().collect();
            let vol: Vec<f64> = nbrs.iter().map(|&v| terms[v as usize].1 as f64).collect();
            prop_assume!(exact_sums(&vol));
            let mut plain = 0.0;
            for (&v, &c) in nbrs.iter().zip(&vol) {
                plain += c * row[node_of[v as usize] as usize] as f64;
            }
            let s = row_sum4(&row, &node_of, &nbrs, &vol);
            prop_assert_eq!(s.to_bits(), plain.to_bits());
            let limit = (plain * cut).floor();
            let below = below4(&row, &node_of, &nbrs, &vol, limit);
            prop_assert_eq!(below.map(f64::to_bits), (plain <= limit).then_some(plain.to_bits()));
            let at = below4(&row, &node_of, &nbrs, &vol, plain);
            prop_assert_eq!(at.map(f64::to_bits), Some(plain.to_bits()));
        }
    }

    #[test]
    fn the_search_memo_forgets_a_failure_once_something_it_reads_changes() {
        // A path 0–1–2 and a lone process 3, one per node of 4 nodes.
        let mut b = crate::graph::GraphBuilder::new(4, false);
        b.add(0, 1, 1.0);
        b.add(1, 2, 1.0);
        let g = b.build().unwrap();
        let mut node_of = vec![0u32, 1, 2, 3];
        let mut m = SearchMemo::new(4, 4);
        assert!(!m.failed_before(0, &[1]), "nothing recorded yet");
        m.failed[0] = m.epoch;
        assert!(m.failed_before(0, &[1]));
        // 2 and 3 swap: 2's partner 1 sits on candidate node 1 of 0.
        node_of.swap(2, 3);
        m.changed(&g, &node_of, (2, 3));
        assert!(!m.failed_before(0, &[1]));
        m.failed[0] = m.epoch;
        assert!(m.failed_before(0, &[1]));
        // 3 moves alone, next to nothing 0 reads.
        m.changed(&g, &node_of, (3, 3));
        assert!(m.failed_before(0, &[1]));
        assert!(!m.failed_before(0, &[1, 2]), "3 is on node 2");
    }

    #[test]
    fn a_move_into_a_free_core_ends_every_earlier_certificate() {
        // Processes 0 and 1 (partners) on nodes 0 and 1, process 2 alone
        // on node 2 of 4 nodes (node 3 free). 0 failed, then 2 moves to
        // node 3: node 2, left behind, is stamped by nothing, yet it now
        // has a free core that 0's search never tried.
        let mut b = crate::graph::GraphBuilder::new(3, false);
        b.add(0, 1, 1.0);
        let g = b.build().unwrap();
        let mut m = SearchMemo::new(3, 4);
        assert!(!m.certifies_at(0, 2), "nothing recorded yet");
        m.failed[0] = m.epoch;
        assert!(m.certifies_at(0, 2));
        m.changed(&g, &[0, 1, 3], (2, 2));
        assert!(m.failed_before(0, &[2]), "the search's own memo keeps it");
        assert!(!m.certifies_at(0, 2));
        m.failed[0] = m.epoch;
        assert!(m.certifies_at(0, 2));
        // 1 swaps with 2 (from node 1 to node 3): 0's partner moved.
        m.changed(&g, &[0, 3, 1], (1, 2));
        assert!(!m.certifies_at(0, 2));
        assert!(!SearchMemo::default().certifies_at(0, 2));
    }

    /// Σ_pairs c · d over the processes' nodes `node_of`, from scratch.
    fn hop_bytes_at(r: &Refine, node_of: &[u32]) -> f64 {
        let g = &r.graph;
        let mut t = 0.0;
        for x in 0..g.n() {
            let off = g.offsets()[x];
            for (k, &v) in g.neighbors(x).iter().enumerate() {
                let (a, b) = (node_of[x] as usize, node_of[v as usize] as usize);
                t += r.vol[off + k] * r.dist.get(a, b) as f64;
            }
        }
        t / 2.0
    }

    #[test]
    fn a_try_the_stopped_search_certifies_lowers_no_hop_bytes() {
        // Random graphs on small meshes and tori (some with a free core),
        // one sweep of the search (so the descent after it still finds
        // exchanges), then at every step of the later phases: for every
        // process p and candidate node b that `settled_at` certifies,
        // every exchange of p with b (each slot of b) lowers hop-bytes by
        // no more than `hb_eps`, computed from scratch.
        let (mut certified, mut uncertified_gain) = (0, 0);
        for topo in [
            "mesh:4x4",
            "torus:4x4",
            "mesh:3x4:cores=2",
            "torus:2x3x3:cores=2",
        ] {
            for seed in 0..48u64 {
                // Sparse graphs (each process sends to two others), so that
                // most exchanges leave most processes' partners in place.
                let topo = Arc::new(Topology::parse(topo).unwrap());
                let n = topo.num_slots() - (seed % 4) as usize;
                let mut rng = crate::rng::Rng::new(seed);
                let mut gb = crate::graph::GraphBuilder::new(n, true);
                for i in 0..n {
                    for _ in 0..2 {
                        let j = rng.below(n);
                        if j != i {
                            gb.add(i, j, 1.0 + rng.below(9) as f64);
                        }
                    }
                }
                let g = Arc::new(gb.build().unwrap());
                let start = crate::mappers::run(
                    &crate::mappers::random::info(),
                    &crate::mappers::MapperInput::new(g.clone(), topo.clone(), seed),
                )
                .unwrap();
                let vol = Arc::new(crate::partition::pair_volumes(&g));
                let params = RefineParams {
                    sweeps: 1,
                    seed,
                    ..RefineParams::hand_checked(0.0)
                };
                let mut r = Refine::new(g.clone(), topo.clone(), vol, start, params);
                while !r.is_done() {
                    r.step();
                    if r.after_memo.failed.is_empty() {
                        continue;
                    }
                    let hb = hop_bytes_at(&r, &r.node_of);
                    for p in 0..g.n() {
                        let a = r.node_of[p] as usize;
                        r.candidates(p, a, r.params.depth);
                        for b in r.cand.clone() {
                            let settled = r.settled_at(p, b);
                            for s in b * r.cores..(b + 1) * r.cores {
                                let mut node_of = r.node_of.clone();
                                node_of[p] = b as u32;
                                if r.owner[s] != FREE {
                                    node_of[r.owner[s] as usize] = a as u32;
                                }
                                let gain = hop_bytes_at(&r, &node_of) < hb - r.hb_eps;
                                if settled {
                                    certified += 1;
                                    assert!(!gain, "p {p} to slot {s}, seed {seed}");
                                } else if gain {
                                    uncertified_gain += 1;
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(certified > 1000, "{certified} certified");
        assert!(uncertified_gain > 30, "{uncertified_gain} gains left");
    }

    #[test]
    fn the_distance_table_matches_the_computed_distances() {
        // Rows are written 8 bytes at a time over the innermost dimensions
        // that span 64 nodes (11 = a word and 3 single bytes; 9 × 9 = 81 =
        // 10 words and a byte, then dimension 2 outside; 4 × 4 × 5 = 80,
        // then dimension 3; 5 × 7 × 4 all inside).
        for spec in [
            "torus:8x8x3",
            "mesh:9x9x2",
            "torus:4x4x5x3",
            "mesh:5x7x4",
            "torus:3x4x5",
            "mesh:4x3",
            "torus:2x6:cores=2",
            "mesh:7",
            "torus:8x3x2",
            "mesh:11x2",
            "torus:16x5",
            "torus:11x9x3",
        ] {
            let d = Dist::new(Arc::new(Topology::parse(spec).unwrap()));
            assert_eq!(d.table.len(), d.nodes * d.nodes, "{spec}");
            for a in 0..d.nodes {
                for b in 0..d.nodes {
                    assert_eq!(d.get(a, b), d.computed(a, b), "{spec}: {a}–{b}");
                    assert_eq!(d.row(a).unwrap()[b] as u32, d.computed(a, b), "{spec}");
                }
            }
        }
    }

    #[test]
    fn the_node_lists_are_the_topologys_neighbours_in_its_order() {
        for spec in [
            "torus:3x4x5",
            "mesh:4x3",
            "torus:2x6:cores=2",
            "mesh:7",
            "fabric:moh-fig2",
        ] {
            let t = Arc::new(Topology::parse(spec).unwrap());
            let d = Dist::new(t.clone());
            for u in 0..t.num_nodes() {
                let want: Vec<u32> = t.neighbors(u).into_iter().map(|w| w as u32).collect();
                assert_eq!(d.neighbors(u), &want[..], "{spec}: node {u}");
            }
        }
        // A 2 × 3 mesh, nodes numbered with dimension 0 fastest: node 1
        // (x 1, y 0) has x-neighbours 2 and 0, then y-neighbour 4.
        let d = Dist::new(Arc::new(Topology::parse("mesh:3x2").unwrap()));
        assert_eq!(d.neighbors(1), &[2, 0, 4]);
    }
}
