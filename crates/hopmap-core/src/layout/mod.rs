//! The gravitational layout of Bobrik & Popova (seed 001, §4–7): processes
//! become points that attract in proportion to the bytes they exchange and
//! repel at short range, so communicating groups gather. Used to see the
//! structure of a communication graph, to infer coordinates for graphs
//! without them (Bhatele & Kale §V), for the `gravity` mappers, and to find
//! communication clusters.
//!
//! * [`gravity`]: the paper's single-level method (§4), one step per iteration.
//! * [`barnes_hut`]: O(n log n) repulsion (quadtree/octree) — our addition.
//! * [`multilevel`]: heavy-edge coarsening + prolongation — our addition.
//! * [`stopping`]: the moving-average stopping rule (§5).
//! * [`init`]: random, circle (Fig. 1) or given starts.
//! * [`mod@clusters`]: grouping final positions into communication clusters (§7).
//! * [`quality`]: Spearman correlation with hop distance, cluster ratios.
//! * [`pack`] and [`weak_parts`]: connected components, and groups joined by
//!   a tiny share of their bytes, laid out apart and packed side by side.
//!
//! [`Layout`] is the one [`Stepper`] callers use: it runs the hierarchy from
//! the coarsest level to the finest (or the single level), one iteration per
//! step, and exposes positions, displacements, force norm, the stopping-rule
//! value, the level and the iteration count between steps.

pub mod barnes_hut;
pub mod clusters;
pub mod gravity;
pub mod init;
pub mod multilevel;
pub mod pack;
pub mod quality;
pub mod stopping;
pub mod weak_parts;

pub use clusters::{ClusterParams, clusters, pack_groups};
pub use gravity::{ForceGraph, GravityLayout};
pub use init::Init;

use crate::error::{Error, Result};
use crate::graph::{CommGraph, Coords};
use crate::rng::Rng;
use crate::step::{Progress, StepState, Stepper, Stop};
use multilevel::Hierarchy;

/// Default Barnes–Hut opening angle.
pub const DEFAULT_THETA: f32 = 1.0;

/// Default repulsion power `p` in `c_rep / d^p`, in 2D and 3D.
///
/// §4.1 of the paper asks only that repulsion grow without bound as
/// `d → 0` and vanish far away ("acts on a limited distance"); its example
/// is `1/d²`. In the plane `1/d²` is barely limited: the repulsion a point
/// feels from a uniform sheet of points at distances `r` to `2r` is
/// `∫ ρ · 2πr dr / r²`, the same for every ring, so the sum grows with the
/// logarithm of the layout's size and every point is pushed by the whole
/// mesh, not by its neighbourhood. The bulk of a mesh then presses on its
/// free boundaries: a mesh with a hole (the `unstructured:P:2d` generator's
/// obstacle) is drawn as a thin ring around a hole 1.5× too wide (an
/// empty circle of 0.36 √(hull area) instead of the mesh's 0.24 at 512
/// parts, seed 6), and even a square mesh keeps fewer of its 8-nearest
/// neighbourhoods (0.91 of them on a 24×24 stencil, 0.98 with `1/d³`).
/// With `1/d³` each ring's share falls as `1/r`, the sum converges, and
/// repulsion is local, as §4.1 describes: the hole keeps its size (0.23)
/// and 8-nearest-neighbour preservation against the generator's
/// coordinates rises from 0.80 to 0.93 (`docs/benchmarks.md`, "The graph
/// view's layout"). In 3D `1/d³` plays the part `1/d²` plays in the plane
/// (see [`LayoutParams::for_dim`]). The paper-exact run
/// ([`LayoutParams::paper`]) keeps the paper's `1/d²`, and so does the
/// mappers' 2D layout ([`LayoutParams::for_network`]), whose mapping
/// results were measured with it.
pub const DEFAULT_REP_POWER: f32 = 3.0;

/// How pair volumes are normalised into `f_ij`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum WeightNorm {
    /// Divide by the largest pair volume (default): `f_ij ∈ (0, 1]`.
    #[default]
    Max,
    /// Divide by the mean pair volume: the mean `f_ij` is 1.
    Mean,
}

/// How repulsion is summed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RepulsionMode {
    /// Exact for at most `exact_below` points, Barnes–Hut above.
    #[default]
    Auto,
    BarnesHut,
    Exact,
}

/// Whether to use the multilevel scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum MultilevelMode {
    /// Multilevel above `multilevel_above` processes (default; `init` is then
    /// ignored: the coarsest level starts from classical MDS).
    #[default]
    Auto,
    On,
    /// The paper's method exactly: one level.
    Off,
}

/// Where a layout run is: running, converged (the §5 stopping rule fired on
/// the finest level) or at its iteration limit.
pub type LayoutState = StepState;

/// Every knob of the layout. `Default` is the recommended setting.
#[derive(Clone, Debug, PartialEq)]
pub struct LayoutParams {
    /// 2 or 3.
    pub dim: usize,
    /// Attraction coefficient `c_att` (§4.1).
    pub c_att: f32,
    /// Repulsion coefficient `c_rep`.
    pub c_rep: f32,
    /// Repulsion power `p` in `c_rep / d^p` (default 3; see
    /// [`DEFAULT_REP_POWER`]).
    pub rep_power: f32,
    /// Pairs farther than this do not repel (default none).
    pub cutoff: Option<f32>,
    /// Constant-magnitude pull of each point towards the origin (0 = off).
    pub center_pull: f32,
    /// Fixed step `h` when `adaptive` is off (the paper's update).
    pub h: f32,
    /// Adaptive mode: initial and largest relative step (displacement = h_rel · F / k).
    pub h_rel: f64,
    /// Hu's adaptive step control (our addition).
    pub adaptive: bool,
    /// Hu's cooling factor t (h ← t·h after an iteration that raised the
    /// energy, h ← h/t after 5 that lowered it); 1 = constant relative step.
    pub cooling: f64,
    /// Floor of the adaptive relative step, so that cooling never freezes the layout.
    pub h_rel_min: f64,
    /// Displacement cap per iteration, in mean edge lengths (our addition).
    pub max_step: f32,
    pub norm: WeightNorm,
    /// Barnes–Hut opening angle θ.
    pub theta: f32,
    pub repulsion: RepulsionMode,
    /// `Auto` repulsion is exact up to this many points.
    pub exact_below: usize,
    /// Stopping rule windows `n < m` and threshold ε (§5).
    pub stop_n: usize,
    pub stop_m: usize,
    pub stop_eps: f64,
    /// Stop by the §5 rule (true) or run exactly `max_iterations` (false).
    pub until_stable: bool,
    /// Iteration budget of the finest level (and of a single-level run).
    pub max_iterations: usize,
    /// Iteration budget of each coarser level.
    pub level_iterations: usize,
    pub multilevel: MultilevelMode,
    /// `Auto` goes multilevel above this many processes. Default 16: even a
    /// 10×10 mesh folds from a random single-level start (Spearman 0.65
    /// measured), while the multilevel path starts its coarsest level from
    /// classical MDS.
    pub multilevel_above: usize,
    /// Lay out apart, and pack side by side, the groups whose bytes to the
    /// rest are at most this fraction of their volume ([`weak_parts`]);
    /// `None` splits only into connected components. Default 1 %.
    pub weak_cut: Option<f64>,
    pub init: Init,
    pub seed: u64,
}

impl Default for LayoutParams {
    fn default() -> Self {
        LayoutParams {
            dim: 2,
            c_att: 1.0,
            c_rep: 1.0,
            rep_power: DEFAULT_REP_POWER,
            cutoff: None,
            center_pull: 0.0,
            h: 0.05,
            h_rel: 1.0,
            adaptive: true,
            cooling: 0.9,
            h_rel_min: 0.05,
            max_step: 0.5,
            norm: WeightNorm::Max,
            theta: DEFAULT_THETA,
            repulsion: RepulsionMode::Auto,
            exact_below: 300,
            stop_n: 10,
            stop_m: 30,
            stop_eps: 0.03,
            until_stable: true,
            max_iterations: 1000,
            level_iterations: 100,
            multilevel: MultilevelMode::Auto,
            multilevel_above: 16,
            weak_cut: Some(weak_parts::DEFAULT_WEAK_CUT),
            init: Init::Random,
            seed: 0,
        }
    }
}

impl LayoutParams {
    /// The recommended setting for a `dim`-dimensional layout: the
    /// defaults, repulsion `1/d³` ([`DEFAULT_REP_POWER`]) in 2D and 3D. (In
    /// 3D an inverse-square repulsion is Coulomb's law, whose charges crowd
    /// onto the surface of the body; on a 16×16×16 grid it reaches Spearman
    /// 0.90 and splits into many clusters, `1/d³` reaches 0.95 and stays one
    /// piece. In 2D `1/d²` does the same to a mesh's free boundaries.)
    pub fn for_dim(dim: usize) -> Self {
        LayoutParams {
            dim,
            ..Default::default()
        }
    }

    /// The parameters for laying a graph out to map it onto `topo`, with
    /// `seed`: in the network's dimension, 3D for grids of 3 or more
    /// dimensions and 2D otherwise (fabrics included). The one rule for
    /// coordinates that a mapper infers (`coords=infer`, `--infer-coords`,
    /// the gravitational mappers).
    ///
    /// In 2D the repulsion stays the paper's `1/d²`: the gravitational
    /// mappers and inferred coordinates were measured with it, and the
    /// local `1/d³` of the graph view ([`DEFAULT_REP_POWER`]) has not been
    /// measured for mapping.
    pub fn for_network(topo: &crate::topology::Topology, seed: u64) -> Self {
        let ndims = topo.as_grid().map_or(2, |g| g.ndims());
        let dim = if ndims >= 3 { 3 } else { 2 };
        LayoutParams {
            seed,
            rep_power: if dim == 3 { DEFAULT_REP_POWER } else { 2.0 },
            ..LayoutParams::for_dim(dim)
        }
    }

    /// The paper's method exactly (single level, fixed step `h`, the
    /// paper's example repulsion `1/d²`), apart from the displacement cap.
    pub fn paper() -> Self {
        LayoutParams {
            rep_power: 2.0,
            adaptive: false,
            multilevel: MultilevelMode::Off,
            weak_cut: None,
            ..Default::default()
        }
    }

    fn check(&self) -> Result<()> {
        let bad = |m: &str| Err(Error::Unsupported(format!("layout: {m}")));
        if self.dim != 2 && self.dim != 3 {
            return bad("dimension must be 2 or 3");
        }
        if !(self.c_att >= 0.0 && self.c_rep > 0.0 && self.rep_power > 0.0) {
            return bad("need c_att ≥ 0, c_rep > 0 and a positive repulsion power");
        }
        if !(self.h > 0.0 && self.h_rel > 0.0 && self.max_step > 0.0) {
            return bad("step sizes must be positive");
        }
        // The same range as the gravity mappers' `theta` parameter.
        if !(self.theta >= 0.0 && self.theta <= 2.0) {
            return bad("θ must be from 0 to 2");
        }
        if self.stop_n == 0 || self.stop_m <= self.stop_n {
            return bad("the stopping rule needs 0 < n < m");
        }
        if let Some(t) = self.weak_cut
            && !(0.0..1.0).contains(&t)
        {
            return bad("the weak-cut fraction must be from 0 to below 1");
        }
        Ok(())
    }
}

/// The layout run: a [`Stepper`], one iteration per step.
///
/// Each connected component of the graph, split further where a group
/// sends at most [`LayoutParams::weak_cut`] of its bytes to the rest
/// ([`weak_parts`]), is laid out on its own (a part: the hierarchy from its
/// coarsest level to its finest, or the single level; the pairs between
/// parts exert no force), and the components are then packed side by side
/// ([`pack`]), largest first, so that all of them stay visible and a
/// disconnected graph costs no quadratic repulsion between its pieces.
/// Components of one or two points need no forces: a point, or a segment of
/// the layout's typical edge length. A connected graph is one part, laid out
/// exactly as before. One step advances every running part by one
/// iteration (so its cost is that of one iteration over the whole graph).
#[derive(Clone, Debug)]
pub struct Layout {
    params: LayoutParams,
    n: usize,
    /// Component of every process, and the number of components.
    comp: Vec<u32>,
    ncomp: usize,
    /// Index of every process inside its component.
    local: Vec<u32>,
    /// The part laying out each component, if it needs forces (≥ 3 points).
    part_of: Vec<Option<u32>>,
    parts: Vec<Part>,
    /// Members of each component (global ids, ascending).
    members: Vec<Vec<u32>>,
    /// Pack offset (x, y) of every component, updated after each step.
    offsets: Vec<[f32; 2]>,
    iterations: usize,
    state: LayoutState,
}

/// One connected component's layout: its hierarchy from the coarsest level
/// to the finest (or the single level), one iteration per step.
#[derive(Clone, Debug)]
struct Part {
    params: LayoutParams,
    hierarchy: Hierarchy,
    level: usize,
    inner: GravityLayout,
    iterations: usize,
    rng: Rng,
    state: LayoutState,
}

impl Layout {
    /// Whether [`Layout::new`] accepts `params` for a graph of `n`
    /// processes: the errors it can give, without its work. O(n) for given
    /// initial positions, else O(1). Callers that build the layout on
    /// another thread check first, so the error reaches the user at once.
    pub fn check(n: usize, params: &LayoutParams) -> Result<()> {
        params.check()?;
        if let Init::Given(xyz) = &params.init {
            if xyz.len() != n {
                return Err(Error::Unsupported(format!(
                    "{} initial positions given for {n} processes",
                    xyz.len()
                )));
            }
            // The layout computes in f32: a start beyond its range would
            // be infinite.
            if let Some(i) = xyz
                .iter()
                .position(|p| p.iter().any(|&x| !(x as f32).is_finite()))
            {
                return Err(Error::Unsupported(format!(
                    "expected initial positions within ±{:e} (the layout computes in f32), \
                     found process {i} at ({}, {}, {})",
                    f32::MAX,
                    xyz[i][0],
                    xyz[i][1],
                    xyz[i][2]
                )));
            }
        }
        Ok(())
    }

    /// Start a layout of `graph`.
    pub fn new(graph: &CommGraph, params: LayoutParams) -> Result<Self> {
        Self::check(graph.n(), &params)?;
        let n = graph.n();
        let given = match &params.init {
            Init::Given(xyz) => Some(xyz),
            _ => None,
        };
        let fg = ForceGraph::from_comm(graph, params.norm);
        let (comp, ncomp) = match params.weak_cut {
            Some(tau) => weak_parts::weak_parts(&fg, tau),
            None => graph.components(),
        };
        let mut members: Vec<Vec<u32>> = vec![Vec::new(); ncomp];
        let mut local = vec![0u32; n];
        for (i, &c) in comp.iter().enumerate() {
            local[i] = members[c as usize].len() as u32;
            members[c as usize].push(i as u32);
        }
        let mut part_of = vec![None; ncomp];
        let mut parts = Vec::new();
        if ncomp == 1 {
            // Connected: the whole graph is one part, as it always was.
            parts.push(Part::new(fg, n, &params)?);
            part_of[0] = Some(0);
        } else {
            for (c, m) in members.iter().enumerate() {
                if m.len() < 3 {
                    continue;
                }
                let sub = pack::subgraph(&fg, m, &local, &comp);
                let mut p = params.clone();
                // A different seed per component, same for a given input.
                p.seed = params.seed ^ (c as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                if let Some(xyz) = given {
                    p.init = Init::Given(m.iter().map(|&i| xyz[i as usize]).collect());
                }
                part_of[c] = Some(parts.len() as u32);
                parts.push(Part::new(sub, m.len(), &p)?);
            }
        }
        let mut l = Layout {
            offsets: vec![[0.0; 2]; ncomp],
            state: if parts.iter().all(|p| p.state != StepState::Running) {
                StepState::Stopped(Stop::Converged)
            } else {
                StepState::Running
            },
            params,
            n,
            comp,
            ncomp,
            local,
            part_of,
            parts,
            members,
            iterations: 0,
        };
        l.repack();
        Ok(l)
    }

    pub fn params(&self) -> &LayoutParams {
        &self.params
    }
    /// Number of processes.
    pub fn n(&self) -> usize {
        self.n
    }
    /// Number of components laid out on their own: the connected
    /// components, split at weak cuts unless `weak_cut` is `None`.
    pub fn components(&self) -> usize {
        self.ncomp
    }
    /// The part of the largest component (the whole graph when connected).
    fn main_part(&self) -> Option<&Part> {
        self.parts.iter().max_by_key(|p| p.n())
    }
    /// Current level (0 = the processes themselves) and the number of
    /// levels: of the coarsest part still coarse, and the most any part has.
    pub fn level(&self) -> (usize, usize) {
        let cur = self.parts.iter().map(|p| p.level).max().unwrap_or(0);
        let levels = self
            .parts
            .iter()
            .map(|p| p.hierarchy.levels())
            .max()
            .unwrap_or(1);
        (cur, levels)
    }
    /// The hierarchy of the largest component (the whole graph when connected).
    pub fn hierarchy(&self) -> Option<&Hierarchy> {
        self.main_part().map(|p| &p.hierarchy)
    }
    /// The engine of the largest component's current level.
    pub fn engine(&self) -> Option<&GravityLayout> {
        self.main_part().map(|p| &p.inner)
    }
    /// Total iterations (steps that did work).
    pub fn iterations(&self) -> usize {
        self.iterations
    }
    /// Positions of the largest component's current-level points.
    pub fn level_positions(&self) -> &[[f32; 3]] {
        self.main_part().map_or(&[], |p| p.inner.positions())
    }
    /// A typical edge length, for the size of trivial components and the
    /// margin between components.
    fn spacing(&self) -> f32 {
        self.main_part().map_or(1.0, |p| {
            gravity::length_scale(p.inner.graph(), p.inner.positions()) as f32
        })
    }
    /// Position of component `c`'s member with local index `k`, before
    /// packing; `spacing` sizes the components without forces.
    fn raw(
        &self,
        c: usize,
        k: usize,
        part_pos: &[std::borrow::Cow<'_, [[f32; 3]]>],
        spacing: f32,
    ) -> [f32; 3] {
        match self.part_of[c] {
            Some(pi) => part_pos[pi as usize][k],
            // One point at the origin; two points a typical edge apart.
            None => [if k == 1 { spacing } else { 0.0 }, 0.0, 0.0],
        }
    }
    /// Position of every process: its own on the finest level, its coarse
    /// ancestor's before; components packed side by side. O(n · levels).
    pub fn positions(&self) -> std::borrow::Cow<'_, [[f32; 3]]> {
        if self.ncomp == 1 && self.parts.len() == 1 {
            return self.parts[0].positions();
        }
        let part_pos: Vec<std::borrow::Cow<'_, [[f32; 3]]>> =
            self.parts.iter().map(|p| p.positions()).collect();
        let spacing = self.spacing();
        std::borrow::Cow::Owned(
            (0..self.n)
                .map(|i| {
                    let c = self.comp[i] as usize;
                    let mut p = self.raw(c, self.local[i] as usize, &part_pos, spacing);
                    p[0] += self.offsets[c][0];
                    p[1] += self.offsets[c][1];
                    p
                })
                .collect(),
        )
    }
    /// Move of every process in the last iteration (the paper's green
    /// segments; on a coarse level, its ancestor's move; 0 for components
    /// without forces).
    pub fn displacements(&self) -> std::borrow::Cow<'_, [[f32; 3]]> {
        if self.ncomp == 1 && self.parts.len() == 1 {
            return self.parts[0].displacements();
        }
        let d: Vec<std::borrow::Cow<'_, [[f32; 3]]>> =
            self.parts.iter().map(|p| p.displacements()).collect();
        std::borrow::Cow::Owned(
            (0..self.n)
                .map(|i| match self.part_of[self.comp[i] as usize] {
                    Some(pi) => d[pi as usize][self.local[i] as usize],
                    None => [0.0; 3],
                })
                .collect(),
        )
    }
    /// Σ|F| over the parts' current levels after the last iteration.
    pub fn force_norm(&self) -> f64 {
        self.parts.iter().map(|p| p.inner.force_norm()).sum()
    }
    /// Σ|F|² over the parts' current levels.
    pub fn energy(&self) -> f64 {
        self.parts.iter().map(|p| p.inner.energy()).sum()
    }
    /// The §5 stopping-rule value: of the one part when connected, else the
    /// largest over the parts that have one.
    pub fn stop_value(&self) -> Option<f64> {
        self.parts
            .iter()
            .filter_map(|p| p.inner.stop_value())
            .fold(None, |a: Option<f64>, v| Some(a.map_or(v, |a| a.max(v))))
    }
    /// Pin process `i` at `p` (only on the finest level of its component;
    /// ignored before, and for components without forces).
    pub fn pin(&mut self, i: usize, p: [f32; 3]) {
        let c = self.comp[i] as usize;
        if let Some(pi) = self.part_of[c] {
            let q = [p[0] - self.offsets[c][0], p[1] - self.offsets[c][1], p[2]];
            let part = &mut self.parts[pi as usize];
            if part.pin(self.local[i] as usize, q) {
                self.state = StepState::Running;
            }
        }
    }
    pub fn unpin(&mut self, i: usize) {
        let c = self.comp[i] as usize;
        if let Some(pi) = self.part_of[c]
            && self.parts[pi as usize].unpin(self.local[i] as usize)
        {
            self.state = StepState::Running;
        }
    }
    /// The finished positions as coordinates (f64).
    pub fn coords(&self) -> Coords {
        let p = self.positions();
        Coords::new(
            self.params.dim,
            p.iter()
                .map(|q| [q[0] as f64, q[1] as f64, q[2] as f64])
                .collect(),
        )
    }

    /// Recompute the pack offsets from the parts' current positions.
    fn repack(&mut self) {
        if self.ncomp <= 1 {
            return;
        }
        let spacing = self.spacing();
        let part_pos: Vec<std::borrow::Cow<'_, [[f32; 3]]>> =
            self.parts.iter().map(|p| p.positions()).collect();
        // Bounding boxes per component, from the unpacked positions.
        let mut lo = vec![[f32::INFINITY; 2]; self.ncomp];
        let mut hi = vec![[f32::NEG_INFINITY; 2]; self.ncomp];
        for (c, m) in self.members.iter().enumerate() {
            for k in 0..m.len() {
                let p = self.raw(c, k, &part_pos, spacing);
                for a in 0..2 {
                    let v = if p[a].is_finite() { p[a] } else { 0.0 };
                    lo[c][a] = lo[c][a].min(v);
                    hi[c][a] = hi[c][a].max(v);
                }
            }
        }
        let sizes: Vec<[f32; 2]> = (0..self.ncomp)
            .map(|c| {
                [
                    (hi[c][0] - lo[c][0]).max(0.0),
                    (hi[c][1] - lo[c][1]).max(0.0),
                ]
            })
            .collect();
        let corner = pack::pack_boxes(&sizes, spacing);
        drop(part_pos);
        for c in 0..self.ncomp {
            let l = if lo[c][0].is_finite() {
                lo[c]
            } else {
                [0.0; 2]
            };
            self.offsets[c] = [corner[c][0] - l[0], corner[c][1] - l[1]];
        }
    }
}

impl Part {
    /// Start the layout of one connected component (`fg`, `n` points).
    fn new(fg: ForceGraph, n: usize, params: &LayoutParams) -> Result<Self> {
        let multi = match params.multilevel {
            MultilevelMode::On => true,
            MultilevelMode::Off => false,
            MultilevelMode::Auto => n > params.multilevel_above,
        } && !matches!(params.init, Init::Given(_));
        let hierarchy = Hierarchy::build(fg, if multi { 64 } else { 1 }, params.seed);
        let top = hierarchy.levels() - 1;
        let ntop = hierarchy.graphs[top].n();
        let pos = if multi {
            // Multilevel: the coarsest level starts from classical MDS
            // (a seeded random start above its point cap).
            multilevel::mds_positions(
                &hierarchy.graphs[top],
                params.dim,
                params.c_att,
                params.c_rep,
                params.seed,
            )
        } else {
            init::initial_positions(&params.init, ntop, params.dim, params.seed)?
        };
        let mut inner = GravityLayout::new(
            hierarchy.graphs[top].clone(),
            pos,
            &level_params(params, ntop, top > 0),
        );
        if top > 0 {
            // The coarsest layout fixes the global shape and is cheap: give
            // it ten times the budget of a level.
            inner.set_budget(params.level_iterations * 10, true);
        }
        Ok(Part {
            rng: Rng::new(params.seed ^ 0x0070_726F_6C6F_6E67),
            params: params.clone(),
            hierarchy,
            level: top,
            inner,
            iterations: 0,
            state: if n == 0 {
                StepState::Stopped(Stop::Converged)
            } else {
                StepState::Running
            },
        })
    }

    fn n(&self) -> usize {
        self.hierarchy.graphs[0].n()
    }

    fn positions(&self) -> std::borrow::Cow<'_, [[f32; 3]]> {
        if self.level == 0 {
            std::borrow::Cow::Borrowed(self.inner.positions())
        } else {
            let anc = self.hierarchy.ancestors(self.level);
            let p = self.inner.positions();
            std::borrow::Cow::Owned(anc.iter().map(|&a| p[a as usize]).collect())
        }
    }

    fn displacements(&self) -> std::borrow::Cow<'_, [[f32; 3]]> {
        if self.level == 0 {
            std::borrow::Cow::Borrowed(self.inner.displacements())
        } else {
            let anc = self.hierarchy.ancestors(self.level);
            let d = self.inner.displacements();
            std::borrow::Cow::Owned(anc.iter().map(|&a| d[a as usize]).collect())
        }
    }

    /// Pin on the finest level; true when a converged part runs again.
    fn pin(&mut self, i: usize, p: [f32; 3]) -> bool {
        if self.level == 0 {
            self.inner.pin(i, p);
            if self.state == StepState::Stopped(Stop::Converged) {
                self.state = StepState::Running;
                return true;
            }
        }
        false
    }

    fn unpin(&mut self, i: usize) -> bool {
        if self.level == 0 {
            self.inner.unpin(i);
            if self.state == StepState::Stopped(Stop::Converged) {
                self.state = StepState::Running;
                return true;
            }
        }
        false
    }

    fn descend(&mut self) {
        let fine = self.level - 1;
        let coarse_pos = self.inner.positions();
        let jitter = (0.25 * self.inner.scale()) as f32;
        let pos = multilevel::prolong(
            &self.hierarchy.maps[fine],
            coarse_pos,
            self.params.dim,
            jitter,
            &mut self.rng,
        );
        let nf = self.hierarchy.graphs[fine].n();
        let mut p = level_params(&self.params, nf, fine > 0);
        // A prolonged layout is already close: start with a gentler step.
        p.h_rel = self.params.h_rel * 0.5;
        let mut inner = GravityLayout::new(self.hierarchy.graphs[fine].clone(), pos, &p);
        if fine > 0 {
            let budget = if nf <= SMALL_LEVEL {
                self.params.level_iterations * 2
            } else {
                self.params.level_iterations
            };
            inner.set_budget(budget, true);
        } else {
            inner.set_budget(self.params.max_iterations, self.params.until_stable);
        }
        self.inner = inner;
        self.level = fine;
    }

    /// One iteration; false when the part had already stopped.
    fn step(&mut self) -> bool {
        if self.state != StepState::Running {
            return false;
        }
        self.inner.step();
        self.iterations += 1;
        if self.inner.is_stopped() {
            if self.level > 0 {
                self.descend();
            } else {
                self.state = self.inner.state();
            }
        }
        true
    }
}

/// Coarse levels up to this size are cheap: they get a larger budget and a
/// tighter stopping threshold.
const SMALL_LEVEL: usize = 2000;

/// The parameters of one level: coarse levels of at most [`SMALL_LEVEL`]
/// points stop at a third of `ε`.
fn level_params(p: &LayoutParams, n: usize, coarse: bool) -> LayoutParams {
    let mut q = p.clone();
    if coarse && n <= SMALL_LEVEL {
        q.stop_eps = p.stop_eps * 0.3;
    }
    q
}

impl Stepper for Layout {
    fn step(&mut self) -> StepState {
        if self.state != StepState::Running {
            return self.state;
        }
        let mut any = false;
        for p in self.parts.iter_mut() {
            any |= p.step();
        }
        if any {
            self.iterations += 1;
        }
        if self.parts.len() > 1 {
            self.repack();
        }
        if self.parts.iter().all(|p| p.state != StepState::Running) {
            // Converged only when every part converged.
            self.state = if self
                .parts
                .iter()
                .all(|p| p.state == StepState::Stopped(Stop::Converged))
            {
                StepState::Stopped(Stop::Converged)
            } else {
                StepState::Stopped(Stop::IterationLimit)
            };
        }
        self.state
    }

    fn state(&self) -> StepState {
        self.state
    }

    fn progress(&self) -> Progress {
        Progress {
            done: self.iterations,
            total: None,
            phase: "layout",
        }
    }
}

/// Run a layout of `graph` to the end and return it.
pub fn run(graph: &CommGraph, params: LayoutParams) -> Result<Layout> {
    let mut l = Layout::new(graph, params)?;
    l.run_to_end();
    Ok(l)
}

/// Infer coordinates for a graph without them, to map it onto `topo`
/// (Bhatele & Kale §V, scenario 2): the multilevel layout, with
/// [`LayoutParams::for_network`], run to stability.
pub fn infer_coords(
    graph: &CommGraph,
    topo: &crate::topology::Topology,
    seed: u64,
) -> Result<Coords> {
    Ok(run(graph, LayoutParams::for_network(topo, seed))?.coords())
}
