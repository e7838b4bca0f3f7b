//! Shared machinery of Bhatele & Kale's greedy placements (§II: "at each
//! step, select a suitable object to map and find a desirable processor to
//! place it on; if the processor is not available, choose the nearest one").
//!
//! * [`Placer`] holds the partial mapping and a findNearest ([`Finder`]):
//!   `place(p, desired)` puts process `p` on a free core of the node nearest
//!   to `desired`.
//! * A [`Policy`] decides which process comes next and where it wants to go
//!   (BFT's queue, MHT's heap, AFFN's stretched coordinates, COCE's corners).
//! * [`GreedyRun`] drives a policy one process per step and is the
//!   [`MapperRun`] the GUI animates: each step reports the process placed,
//!   its desired position and where findNearest put it, and the policy's
//!   frontier.
//!
//! On a switch fabric ([`Placer::new_fabric`], used by BFT and MHT) a
//! position is one number, a host id: the node of a placed process is its
//! position, findNearest is [`crate::find_nearest::FabricFinder`] (nearest
//! free host by up*/down* distance), the centre is the first host of the
//! switch with the smallest up*/down* eccentricity among the switches with
//! hosts, and the "centroid" of placed processes is their switch medoid (the
//! switch among theirs with the least total distance to them, ties to the
//! lower switch index), represented by its lowest-id host among them.
//! Beyond Bhatele & Kale, who work on grids.
//!
//! Helpers compute the centre of the grid, torus-aware centroids (circular
//! mean on wrapped dimensions) and the affine stretch of coordinates, each
//! also in an `_into` form that writes into a caller's buffer.
//! Cost per step: one findNearest call plus the policy's own work. Steps do
//! not allocate: [`GreedyRun`] calls [`Policy::next_into`] with the buffer of
//! the previous event's `desired`, and the frontier is built only when
//! [`GreedyView::frontier`] is called (by the GUI).

use super::{MapperInput, MapperRun, StepEvent};
use crate::error::{Error, Result};
use crate::find_nearest::{FindKind, FindNearest, Finder};
use crate::graph::{CommGraph, Coords};
use crate::mapping::Mapping;
use crate::step::{Progress, StepState, Stepper, Stop};
use crate::topology::{Fabric, Grid};
use std::sync::Arc;

const UNPLACED: u32 = u32::MAX;

/// The grid of a mapper input, or a clear `Unsupported` error.
pub fn grid_of(input: &MapperInput, mapper: &str) -> Result<Grid> {
    input.topo.as_grid().cloned().ok_or_else(|| {
        Error::Unsupported(format!(
            "{mapper} needs a mesh or torus topology: it places by grid coordinates, which a \
                 switch fabric does not have"
        ))
    })
}

/// The `find=spiral|tree` parameter (default tree).
pub fn find_kind(input: &MapperInput) -> Result<FindKind> {
    match input.param("find") {
        Some(s) => FindKind::parse(s),
        None => Ok(FindKind::Tree),
    }
}

/// The graph's coordinates, or the standard error for coordinate mappers.
pub fn coords_of<'a>(input: &'a MapperInput, mapper: &str) -> Result<&'a Coords> {
    input.graph.coords().ok_or_else(|| {
        Error::Unsupported(format!(
            "{mapper} needs coordinates; give --coords FILE or infer them with the force layout"
        ))
    })
}

/// Partial mapping plus findNearest.
#[derive(Clone, Debug)]
pub struct Placer {
    grid: Grid,
    finder: Finder,
    node_of: Vec<u32>,
    core_of: Vec<u32>,
    slot_of: Vec<Option<u32>>,
    placed: usize,
    /// Set on switch fabrics (`grid` is then the 1-D line of hosts).
    fabric: Option<Fabric>,
}

impl Placer {
    /// A placer for `n` processes on the hosts of a switch fabric.
    pub fn new_fabric(n: usize, fabric: &Fabric) -> Self {
        let finder = crate::find_nearest::FabricFinder::new(fabric);
        Placer {
            grid: crate::find_nearest::fabric::line_grid(fabric),
            finder: Finder::Fabric(finder),
            node_of: vec![UNPLACED; n],
            core_of: vec![0; n],
            slot_of: vec![None; n],
            placed: 0,
            fabric: Some(fabric.clone()),
        }
    }
    /// The fabric, when placing on one.
    pub fn fabric(&self) -> Option<&Fabric> {
        self.fabric.as_ref()
    }

    /// A placer for `n` processes on `grid`, all unplaced.
    pub fn new(n: usize, grid: &Grid, kind: FindKind) -> Self {
        Placer {
            grid: grid.clone(),
            finder: Finder::new(kind, grid),
            node_of: vec![UNPLACED; n],
            core_of: vec![0; n],
            slot_of: vec![None; n],
            placed: 0,
            fabric: None,
        }
    }
    pub fn grid(&self) -> &Grid {
        &self.grid
    }
    pub fn finder(&self) -> &Finder {
        &self.finder
    }
    pub fn n(&self) -> usize {
        self.node_of.len()
    }
    pub fn num_placed(&self) -> usize {
        self.placed
    }
    #[inline]
    pub fn is_placed(&self, p: usize) -> bool {
        self.node_of[p] != UNPLACED
    }
    /// Node of a placed process.
    #[inline]
    pub fn node(&self, p: usize) -> Option<usize> {
        let n = self.node_of[p];
        (n != UNPLACED).then_some(n as usize)
    }
    pub fn slots(&self) -> &[Option<u32>] {
        &self.slot_of
    }

    /// Place unplaced process `p` on the free core nearest to `desired`.
    /// Returns the slot, or None when `p` is already placed or no slot is free.
    pub fn place(&mut self, p: usize, desired: &[f64]) -> Option<usize> {
        if self.is_placed(p) {
            return None;
        }
        let node = self.finder.find(desired)?;
        let core = self.finder.take(node)?;
        self.node_of[p] = node as u32;
        self.core_of[p] = core;
        let slot = node * self.grid.cores() as usize + core as usize;
        self.slot_of[p] = Some(slot as u32);
        self.placed += 1;
        Some(slot)
    }

    /// The finished mapping, once every process is placed.
    pub fn mapping(&self) -> Option<Mapping> {
        (self.placed == self.n()).then(|| Mapping::new(self.node_of.clone(), self.core_of.clone()))
    }

    /// Coordinates of `node` as reals.
    pub fn node_pos(&self, node: usize) -> Vec<f64> {
        let mut v = Vec::new();
        self.node_pos_into(node, &mut v);
        v
    }

    /// [`Placer::node_pos`] written into `out` (cleared first; no allocation
    /// once `out` has room).
    pub fn node_pos_into(&self, node: usize, out: &mut Vec<f64>) {
        let c = self.grid.coord(node);
        out.clear();
        out.extend((0..self.grid.ndims()).map(|d| c[d] as f64));
    }

    /// The centre of the grid: ⌊k/2⌋ in every dimension.
    pub fn centre(&self) -> Vec<f64> {
        let mut v = Vec::new();
        self.centre_into(&mut v);
        v
    }

    /// [`Placer::centre`] written into `out` (cleared first).
    pub fn centre_into(&self, out: &mut Vec<f64>) {
        if let Some(f) = &self.fabric {
            out.clear();
            out.push(fabric_centre(f) as f64);
            return;
        }
        out.clear();
        out.extend(self.grid.dims().iter().map(|&k| (k / 2) as f64));
    }

    /// Unweighted torus-aware centroid of the nodes of the placed processes
    /// in `procs` (circular mean on dimensions with wrap links, arithmetic
    /// mean elsewhere). None when none of them is placed.
    pub fn centroid(&self, procs: impl Iterator<Item = usize>) -> Option<Vec<f64>> {
        let mut v = Vec::new();
        self.centroid_into(procs, &mut v).then_some(v)
    }

    /// [`Placer::centroid`] written into `out` (cleared first); false (and
    /// `out` unspecified) when none of `procs` is placed.
    pub fn centroid_into(&self, procs: impl Iterator<Item = usize>, out: &mut Vec<f64>) -> bool {
        if let Some(f) = &self.fabric {
            return fabric_medoid_into(f, procs.filter_map(|p| self.node(p)), out);
        }
        weighted_centroid_into(
            &self.grid,
            procs.filter_map(|p| self.node(p)).map(|n| (n, 1.0)),
            out,
        )
    }
}

/// The centre host of a fabric: the first host of the switch whose largest
/// up*/down* distance to a switch with hosts is smallest (lowest index on
/// ties). O(S²).
pub fn fabric_centre(f: &Fabric) -> usize {
    let used: Vec<usize> = (0..f.num_switches())
        .filter(|&s| !f.hosts_on(s).is_empty())
        .collect();
    let ud = f.updown();
    let best = used
        .iter()
        .copied()
        .min_by_key(|&a| (used.iter().map(|&b| ud.dist(a, b)).max().unwrap_or(0), a))
        .unwrap_or(0);
    f.hosts_on(best).first().map_or(0, |&h| h as usize)
}

/// The switch medoid of some hosts (see the module docs), as its lowest-id
/// host among them, written into `out`; false when there are none.
/// O(k²) for k distinct switches.
pub fn fabric_medoid_into(
    f: &Fabric,
    nodes: impl Iterator<Item = usize>,
    out: &mut Vec<f64>,
) -> bool {
    // (switch, count, lowest host)
    let mut sw: Vec<(usize, u32, usize)> = Vec::new();
    for n in nodes {
        let s = f.switch_of(n);
        match sw.iter_mut().find(|e| e.0 == s) {
            Some(e) => {
                e.1 += 1;
                e.2 = e.2.min(n);
            }
            None => sw.push((s, 1, n)),
        }
    }
    let ud = f.updown();
    let best = sw.iter().min_by_key(|a| {
        let cost: u64 = sw
            .iter()
            .map(|b| {
                b.1 as u64
                    * if a.0 == b.0 {
                        0
                    } else {
                        ud.dist(a.0, b.0) as u64
                    }
            })
            .sum();
        (cost, a.0)
    });
    match best {
        Some(b) => {
            out.clear();
            out.push(b.2 as f64);
            true
        }
        None => false,
    }
}

/// Unweighted torus-aware centroid of grid nodes: circular mean on
/// dimensions with wrap links, arithmetic mean elsewhere. When the points
/// balance around a ring (no mean direction) the first node's coordinate is
/// used. None for an empty set. O(count · D).
pub fn centroid_of_nodes(grid: &Grid, nodes: impl Iterator<Item = usize>) -> Option<Vec<f64>> {
    weighted_centroid_of_nodes(grid, nodes.map(|n| (n, 1.0)))
}

/// Weighted torus-aware centroid of `(node, weight)` pairs (weights > 0), as
/// [`centroid_of_nodes`]. None for an empty set or a zero total weight.
pub fn weighted_centroid_of_nodes(
    grid: &Grid,
    nodes: impl Iterator<Item = (usize, f64)>,
) -> Option<Vec<f64>> {
    let mut v = Vec::new();
    weighted_centroid_into(grid, nodes, &mut v).then_some(v)
}

/// [`weighted_centroid_of_nodes`] written into `out` (cleared first); false
/// when the set is empty or its total weight is zero.
pub fn weighted_centroid_into(
    grid: &Grid,
    nodes: impl Iterator<Item = (usize, f64)>,
    out: &mut Vec<f64>,
) -> bool {
    let nd = grid.ndims();
    let mut acc = [[0.0f64; 2]; crate::topology::MAX_DIMS];
    let mut first: Option<usize> = None;
    let mut total = 0.0f64;
    for (node, w) in nodes {
        first.get_or_insert(node);
        total += w;
        let c = grid.coord(node);
        for d in 0..nd {
            if grid.wraps(d) {
                let a = std::f64::consts::TAU * c[d] as f64 / grid.dims()[d] as f64;
                acc[d][0] += w * a.cos();
                acc[d][1] += w * a.sin();
            } else {
                acc[d][0] += w * c[d] as f64;
            }
        }
    }
    let Some(first) = first else { return false };
    let fc = grid.coord(first);
    if !(total > 0.0) {
        return false;
    }
    out.clear();
    out.extend((0..nd).map(|d| {
        let k = grid.dims()[d] as f64;
        if grid.wraps(d) {
            let (x, y) = (acc[d][0] / total, acc[d][1] / total);
            if x * x + y * y < 1e-18 {
                fc[d] as f64
            } else {
                (y.atan2(x) / std::f64::consts::TAU * k).rem_euclid(k)
            }
        } else {
            acc[d][0] / total
        }
    }));
    true
}

/// Affine stretch of coordinates onto a grid (AFFN, Algorithm 2): axis `a`
/// of the coordinates (a < min(coords dim, grid dims)) maps to grid dimension
/// `a` as `⌊k·(x − min)/(max − min)⌋` clamped to `k − 1` (the middle when all
/// coordinates are equal); grid dimensions past the coordinates' take the
/// centre `⌊k/2⌋`.
#[derive(Clone, Debug)]
pub struct Affine {
    lo: [f64; 3],
    hi: [f64; 3],
    axes: usize,
    dims: Vec<u32>,
}

impl Affine {
    pub fn new(coords: &Coords, grid: &Grid) -> Self {
        let (lo, hi) = coords.bounds();
        Affine {
            lo,
            hi,
            axes: coords.dim.min(3).min(grid.ndims()),
            dims: grid.dims().to_vec(),
        }
    }
    /// Number of coordinate axes used.
    pub fn axes(&self) -> usize {
        self.axes
    }
    /// Coordinate axis `a` of `x` normalised to [0, 1].
    pub fn unit(&self, x: &[f64; 3], a: usize) -> f64 {
        let span = self.hi[a] - self.lo[a];
        if span > 0.0 && span.is_finite() {
            ((x[a] - self.lo[a]) / span).clamp(0.0, 1.0)
        } else {
            0.5
        }
    }
    /// Desired grid position of a point.
    pub fn position(&self, x: &[f64; 3]) -> Vec<f64> {
        let mut v = Vec::new();
        self.position_into(x, &mut v);
        v
    }
    /// [`Affine::position`] written into `out` (cleared first).
    pub fn position_into(&self, x: &[f64; 3], out: &mut Vec<f64>) {
        out.clear();
        out.extend((0..self.dims.len()).map(|d| {
            let k = self.dims[d];
            if d < self.axes {
                ((k as f64 * self.unit(x, d)).floor()).min((k - 1) as f64)
            } else {
                (k / 2) as f64
            }
        }));
    }
}

/// The placement policy of a greedy mapper.
pub trait Policy: Send {
    /// The next process to place and its desired position, or None when all
    /// are placed. Must only return unplaced processes.
    fn next(&mut self, graph: &CommGraph, pl: &Placer) -> Option<(usize, Vec<f64>)>;
    /// Allocation-free form of [`Policy::next`]: write the desired position
    /// into `desired` (its old contents are garbage) and return the process.
    /// [`GreedyRun`] calls this one; the default forwards to `next`, so a
    /// policy need only implement `next` (overriding this saves one
    /// allocation per step).
    fn next_into(
        &mut self,
        graph: &CommGraph,
        pl: &Placer,
        desired: &mut Vec<f64>,
    ) -> Option<usize> {
        let (p, d) = self.next(graph, pl)?;
        *desired = d;
        Some(p)
    }
    /// Called after `p` was placed.
    fn placed(&mut self, p: usize, graph: &CommGraph, pl: &Placer);
    /// The frontier (queue or heap), for display.
    fn frontier(&self, _pl: &Placer) -> Vec<usize> {
        Vec::new()
    }
    /// Why `p` (just placed) was chosen, in the policy's own terms. None:
    /// only the generic greedy facts (the event) are known.
    fn choice(&self, _graph: &CommGraph, _pl: &Placer, _p: usize) -> Option<Choice> {
        None
    }
}

/// Why a greedy policy chose the process it placed ([`Policy::choice`]):
/// the facts guided mode words, one variant per policy.
#[derive(Clone, Debug, PartialEq)]
pub enum Choice {
    /// BFT (Bhatele & Kale §IV, Heuristic 1): the front of the queue whose
    /// unmapped partner was placed; None when a traversal starts (the first
    /// process, or the queue ran dry).
    Bft { parent: Option<usize> },
    /// MHT (Heuristic 2): taken from the top of the heap (else the start,
    /// at the machine's centre), with its placed partners of all.
    Mht {
        from_heap: bool,
        placed: usize,
        partners: usize,
    },
    /// AFFN (Heuristic 3): the process's coordinates (at most 3).
    Affn { coords: Vec<f64> },
    /// COCE (Heuristic 4) pinned the graph's corner `corner` (0-based) of
    /// `corners` to the machine's corner.
    CoceCorner {
        name: &'static str,
        corner: usize,
        corners: usize,
    },
    /// COCE fills inward from the corners with its inner policy's choice.
    CoceInward {
        name: &'static str,
        inner: Box<Choice>,
    },
    /// gravity (Bobrik & Popova §7): the process's layout position.
    Gravity { position: Vec<f64> },
    /// gravity-greedy: the placed layout neighbour it followed and their
    /// distance in the layout; None when it started a region.
    GravityGreedy { followed: Option<(usize, f64)> },
}

/// A greedy placement run: one step places one process.
pub struct GreedyRun<P: Policy> {
    graph: Arc<CommGraph>,
    placer: Placer,
    policy: P,
    event: Option<StepEvent>,
    /// Recycled buffer for the next step's desired position (the previous
    /// event's), so that steps do not allocate.
    scratch: Vec<f64>,
    failed: bool,
}

impl<P: Policy> GreedyRun<P> {
    pub fn new(graph: Arc<CommGraph>, placer: Placer, policy: P) -> Self {
        GreedyRun {
            graph,
            placer,
            policy,
            event: None,
            scratch: Vec::new(),
            failed: false,
        }
    }
    pub fn placer(&self) -> &Placer {
        &self.placer
    }
    pub fn policy(&self) -> &P {
        &self.policy
    }
}

impl<P: Policy> Stepper for GreedyRun<P> {
    fn step(&mut self) -> StepState {
        if self.is_stopped() {
            return self.state();
        }
        let mut desired = std::mem::take(&mut self.scratch);
        match self
            .policy
            .next_into(&self.graph, &self.placer, &mut desired)
        {
            Some(p) => match self.placer.place(p, &desired) {
                Some(slot) => {
                    self.policy.placed(p, &self.graph, &self.placer);
                    let old = self.event.replace(StepEvent::Placed {
                        process: p,
                        desired,
                        slot,
                    });
                    if let Some(StepEvent::Placed { desired, .. }) = old {
                        self.scratch = desired;
                    }
                }
                None => {
                    self.scratch = desired;
                    self.failed = true;
                }
            },
            None => {
                self.scratch = desired;
                self.failed = true;
            }
        }
        self.state()
    }
    fn state(&self) -> StepState {
        if self.failed {
            StepState::Stopped(Stop::Failed)
        } else if self.placer.num_placed() == self.placer.n() {
            StepState::Stopped(Stop::Complete)
        } else {
            StepState::Running
        }
    }
    fn progress(&self) -> Progress {
        Progress {
            done: self.placer.num_placed(),
            total: Some(self.placer.n()),
            phase: "placement",
        }
    }
}

impl<P: Policy> MapperRun for GreedyRun<P> {
    fn placement(&self) -> &[Option<u32>] {
        self.placer.slots()
    }
    fn result(&self) -> Option<Mapping> {
        self.placer.mapping()
    }
    fn inspect(&self) -> super::RunRef<'_> {
        super::RunRef::Greedy(GreedyView {
            graph: &self.graph,
            placer: &self.placer,
            policy: &self.policy,
            event: self.event.as_ref(),
        })
    }
}

/// A greedy run borrowed without its policy's type (what
/// [`super::RunRef::Greedy`] holds): the placer, the policy and the last
/// event.
#[derive(Clone, Copy)]
pub struct GreedyView<'a> {
    graph: &'a CommGraph,
    placer: &'a Placer,
    policy: &'a dyn Policy,
    event: Option<&'a StepEvent>,
}

impl<'a> GreedyView<'a> {
    /// The partial mapping and its findNearest.
    pub fn placer(self) -> &'a Placer {
        self.placer
    }
    /// What the last step did: the process placed, where it wanted to go
    /// and the slot findNearest chose.
    pub fn last_event(self) -> Option<&'a StepEvent> {
        self.event
    }
    /// The policy's frontier (BFT's queue, MHT's heap), built on demand:
    /// O(frontier).
    pub fn frontier(self) -> Vec<usize> {
        self.policy.frontier(self.placer)
    }
    /// Why the policy chose the process the last step placed (None before
    /// the first step, or for a policy with no facts of its own).
    pub fn choice(self) -> Option<Choice> {
        let Some(StepEvent::Placed { process, .. }) = self.event else {
            return None;
        };
        self.policy.choice(self.graph, self.placer, *process)
    }
}

/// Start a greedy run on a grid or, for policies that only use node
/// positions, centres and centroids (BFT, MHT), on a switch fabric.
pub fn start_greedy_any<P: Policy + 'static>(
    input: &MapperInput,
    mapper: &str,
    make: impl FnOnce(&Placer) -> Result<P>,
) -> Result<Box<dyn MapperRun>> {
    let Some(f) = input.topo.as_fabric() else {
        return start_greedy(input, mapper, make);
    };
    input.check_fits()?;
    if input
        .param("find")
        .is_some_and(|k| !k.eq_ignore_ascii_case("tree"))
    {
        return Err(Error::Unsupported(format!(
            "{mapper}: on a switch fabric findNearest searches by routing distance; find=spiral \
             applies to meshes and tori"
        )));
    }
    let placer = Placer::new_fabric(input.graph.n(), f);
    let policy = make(&placer)?;
    Ok(Box::new(GreedyRun::new(
        input.graph.clone(),
        placer,
        policy,
    )))
}

/// Start a greedy run: checks the grid, the fit and the `find` parameter.
pub fn start_greedy<P: Policy + 'static>(
    input: &MapperInput,
    mapper: &str,
    make: impl FnOnce(&Placer) -> Result<P>,
) -> Result<Box<dyn MapperRun>> {
    let grid = grid_of(input, mapper)?;
    input.check_fits()?;
    let placer = Placer::new(input.graph.n(), &grid, find_kind(input)?);
    let policy = make(&placer)?;
    Ok(Box::new(GreedyRun::new(
        input.graph.clone(),
        placer,
        policy,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn torus_centroid_wraps_and_mesh_centroid_averages() {
        let g = Grid::new(&[8, 8], &[true, false], 1).unwrap();
        let mut pl = Placer::new(3, &g, FindKind::Tree);
        pl.place(0, &[7.0, 0.0]);
        pl.place(1, &[1.0, 4.0]);
        let c = pl.centroid([0, 1, 2].into_iter()).unwrap();
        // x: 7 and 1 on a ring of 8 average to 0 (not 4); y: mesh mean 2.
        assert!(c[0].min(8.0 - c[0]) < 1e-9, "{c:?}");
        assert!((c[1] - 2.0).abs() < 1e-12);
        assert!(pl.centroid([2].into_iter()).is_none());
        assert_eq!(pl.centre(), vec![4.0, 4.0]);
    }

    #[test]
    fn affine_stretches_bounds_onto_the_grid() {
        let g = Grid::mesh(&[4, 2, 3]);
        let c = Coords::new(
            2,
            vec![[0.0, 10.0, 0.0], [1.0, 20.0, 0.0], [0.5, 15.0, 0.0]],
        );
        let a = Affine::new(&c, &g);
        assert_eq!(a.position(&c.xyz[0]), vec![0.0, 0.0, 1.0]);
        assert_eq!(a.position(&c.xyz[1]), vec![3.0, 1.0, 1.0]);
        assert_eq!(a.position(&c.xyz[2]), vec![2.0, 1.0, 1.0]);
    }
}
