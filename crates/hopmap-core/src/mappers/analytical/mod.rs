//! `analytical`: the analytical mapping algorithm of Wu et al. (§3, Fig. 2),
//! and `analytical+pairs` (PAIRS refinement of its result).
//!
//! Stage 1, global mapping (§3.3): Φ gives every item (a process, or a
//! node-sized group of processes, §3.6) real coordinates in the box of the
//! mesh/torus. Each iteration (one [`Stepper::step`]):
//! [`global`] solves Eq. (5) for Φ with the fixed corner items of
//! [`fixed`] and this iteration's fake anchors; it stops when Φ is
//! almost-legal (every bin holds ≤ γ items; γ·cores without grouping), when
//! the maximum workload has not fallen for `stall` iterations, or after
//! `max_global` iterations; otherwise [`shifting`] decides where the items
//! of crowded bins go and [`spreading`] turns that into fake anchors
//! (Eqs. 6–9) for the next solve.
//! Stage 2, legalization (§3.4): [`legalize`] migrates items along the
//! topology's links by the diffusion λ of `L λ = b`, one iteration per step,
//! until every node holds what it may (`legalize=diffusion`, the paper). The
//! default, `legalize=bisect` (beyond the paper, [`bisect`]), instead cuts
//! the box of nodes and Φ's items together, one level per step; global
//! mapping then also evaluates every iterate by that legalization, stops
//! `patience` iterations after the best one, and legalizes the best one.
//!
//! Multicore nodes (§3.6): [`multicore`]. `multicore=group` is the paper
//! (METIS groups of `cores` processes, one group per node);
//! `multicore=bins`, the default, groups nothing and lets a bin hold
//! γ·cores processes, because a one-group-per-node model cannot undo a
//! poor group and gave more hop-bytes in every measured case.
//!
//! The defaults go beyond the paper where it was measured to do better
//! (figures and the commands that reproduce them: `docs/benchmarks.md`,
//! "The analytical mapper"); the paper's algorithm as published is
//! `fixed=rcm spread=paper shift_mu=0 legalize=diffusion multicore=group`:
//! * `spread=pin` ([`spreading::pins`]) instead of the anchors of Eqs. 6–9,
//!   which, when all items shift at once, amplify the smooth part of the
//!   shift and make global mapping stall;
//! * `shift_mu=0.5` ([`shifting::shift_proportional`]): segments resized in
//!   proportion to their workloads, as FastPlace's local rule leaves clumps;
//! * `fixed=far` ([`fixed::far_items`]): far-apart corner items oriented to
//!   the box, as RCM/BFT ranks twist the box (the node traversal of
//!   `rcm`/`bft` ignores the torus's wrap links: the box has none);
//! * PCG in lockstep over the dimensions, capped and warm-started
//!   ([`global`]), for speed at equal quality;
//! * `legalize=bisect` with `patience=10`: recursive coordinate bisection
//!   ([`bisect`], which gives its reasons) instead of diffusion, which
//!   roughly doubled the hop-bytes of a Φ that global mapping left still
//!   crowded. Every iterate is bisected (O(n log nodes)), its hop-bytes are
//!   the estimate plotted per iteration, and global mapping stops once that
//!   estimate has not improved for `patience` iterations
//!   ([`GlobalStop::NoGain`]); the best iterate is then bisected in
//!   `cut_orders` orders of cutting equal sides and legalized in the best.
//!   With `legalize=diffusion`, `patience` has no effect.
//!
//! Known limit: METIS-partitioned meshes whose shape does not match the
//! machine's box stay a few per cent above Scotch, which folds them by graph
//! bisection while any bisection by coordinates keeps them unfolded.
//!
//! Torus (beyond the paper, whose continuous model is a box): hop-bytes and
//! every migration cost use torus distances and legalization diffuses over
//! the wrap links; `torus=cut` additionally cuts each ring where the mapped
//! traffic is least and maps again in that box ([`torus`]).
//!
//! The run's state after every step is readable through [`Analytical`]'s
//! accessors (Φ, workloads, anchors and forces, the migrations, the history
//! of max workload / W(Φ) / hop-bytes), for the GUI's live view.
//!
//! `start()` only parses parameters; grouping, orderings and the matrix
//! assembly happen in the first step, before its global-mapping iteration,
//! so that step `k` is global iteration `k` (the GUI's Step button: three
//! presses, iteration 3). That first step is therefore the longest (the
//! METIS grouping of `multicore=group` most of all); it runs on the
//! worker thread, so the UI stays live.
//!
//! Cost: k₁ global iterations × (solve + O(N·D + m)) + k₂ legalization
//! iterations × (Laplacian solve + O(nodes log nodes + moves·deg)), as in
//! the paper's §3.5. Memory O(n + m + nodes).

pub mod bisect;
pub mod fixed;
pub mod global;
pub mod legalize;
pub mod multicore;
pub mod shifting;
pub mod spreading;
pub mod torus;

use super::pairs::{Pairs, PairsParams};
use super::{MapperInfo, MapperInput, MapperRun, ParamKind, ParamSpec, StepEvent};
use crate::error::{Error, Result};
use crate::graph::CommGraph;
use crate::mappers::Networks;
use crate::mapping::Mapping;
use crate::step::{Progress, StepState, Stepper, Stop};
use crate::topology::{Grid, Topology};
use fixed::FixedKind;
use global::{QSystem, SolverKind};
use legalize::{Legalizer, Migration};
use multicore::{Items, MulticoreMode};
use spreading::Anchors;
use std::sync::Arc;
use std::time::Duration;

const PAPER: &str = "Wu et al. §3 (global mapping §3.3, multicore §3.6; legalization §3.4 is \
                     legalize=diffusion, the default legalize=bisect goes beyond the paper)";

/// The parameters of `analytical`.
pub const ANALYTICAL_PARAMS: &[ParamSpec] = &[
    ParamSpec {
        key: "gamma",
        kind: ParamKind::Int { min: 1, max: 1024 },
        default: "4",
        help: "almost-legal: global mapping stops once every bin holds at most gamma items \
               (gamma·cores processes without grouping) (§3.3, §3.6)",
    },
    ParamSpec {
        key: "fixed",
        kind: ParamKind::Choice(&["far", "rcm", "bft"]),
        default: "far",
        help: "how the processes fixed on the 2^D corner nodes are chosen: RCM ordering or \
               breadth-first traversal of both graphs (§3.6, §4.2), or `far` (beyond the \
               paper): far-apart processes, oriented to match the box's corner distances",
    },
    ParamSpec {
        key: "solver",
        kind: ParamKind::Choice(&["pcg", "cholesky"]),
        default: "pcg",
        help: "linear solver of Eq. 5: Jacobi-preconditioned CG warm-started from the last \
               iteration, or sparse Cholesky refactored every iteration (both faer)",
    },
    ParamSpec {
        key: "multicore",
        kind: ParamKind::Choice(&["bins", "group"]),
        default: "bins",
        help: "several cores per node: `bins` = no grouping, bins of gamma·cores processes \
               (default: 15 % fewer hop-bytes than `group` at 8,192 processes); `group` = \
               METIS groups of `cores` processes, one per node (the paper, §3.6)",
    },
    ParamSpec {
        key: "max_global",
        kind: ParamKind::Int {
            min: 1,
            max: 100_000,
        },
        default: "100",
        help: "at most this many global-mapping iterations (solve, shift, spread)",
    },
    ParamSpec {
        key: "stall",
        kind: ParamKind::Int {
            min: 1,
            max: 100_000,
        },
        default: "10",
        help: "stop global mapping when the maximum workload has not fallen for this many \
               iterations (the paper: ten, §3.6)",
    },
    ParamSpec {
        key: "max_legal",
        kind: ParamKind::Int {
            min: 1,
            max: 100_000,
        },
        default: "100",
        help: "legalization iterations before the remaining excess goes to the nearest free \
               nodes (the paper needs at most four, §4.4)",
    },
    ParamSpec {
        key: "beta_scale",
        kind: ParamKind::Float {
            min: 0.01,
            max: 100.0,
        },
        default: "1",
        help: "multiplies every spreading-force weight beta of Eq. 9 (1 = the paper); larger \
               spreads faster at some cost in hop-bytes",
    },
    ParamSpec {
        key: "spread",
        kind: ParamKind::Choice(&["pin", "paper"]),
        default: "pin",
        help: "spreading anchors: `pin` = each item tied to its shifting target with a weight \
               that grows every iteration (FastPlace's pseudo pins; default, see the docs for \
               the figures); `paper` = a fake process on the boundary with the weight beta of \
               Eqs. 6-9 (§3.3.3)",
    },
    ParamSpec {
        key: "alpha",
        kind: ParamKind::Float {
            min: 0.0001,
            max: 100.0,
        },
        default: "0.01",
        help: "spread=pin: the pin weight of iteration k is alpha·k times the item's weighted \
               degree",
    },
    ParamSpec {
        key: "delta",
        kind: ParamKind::Float {
            min: 0.01,
            max: 100.0,
        },
        default: "1.5",
        help: "process shifting (§3.3.2): FastPlace's delta in the segment resizing; smaller \
               moves the items of crowded bins further per iteration",
    },
    ParamSpec {
        key: "shift_mu",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        default: "0.5",
        help: "process shifting (§3.3.2): segments resized in proportion to their workloads, \
               blended by mu with the old unit length (1 = even density along every row); 0 = \
               FastPlace's local rule with delta",
    },
    ParamSpec {
        key: "torus",
        kind: ParamKind::Choice(&["box", "cut"]),
        default: "box",
        help: "on tori: `box` = the paper's box model (legalization and hop-bytes still use \
               the wrap links); `cut` = then cut each ring where the mapping's traffic is \
               least, map again in that box, keep the better",
    },
    ParamSpec {
        key: "legalize",
        kind: ParamKind::Choice(&["bisect", "diffusion"]),
        default: "bisect",
        help: "legalization: `bisect` (default, beyond the paper) = recursive coordinate \
               bisection of the best global iterate's Φ, one level per step; `diffusion` = \
               the paper's L λ = b migration of the surplus, cheapest process first (§3.4)",
    },
    ParamSpec {
        key: "patience",
        kind: ParamKind::Int {
            min: 0,
            max: 100_000,
        },
        default: "10",
        help: "legalize=bisect: stop global mapping when the hop-bytes its iterates would \
               give have not improved for this many iterations (0 = off; beyond the paper)",
    },
    ParamSpec {
        key: "cut_orders",
        kind: ParamKind::Int { min: 1, max: 720 },
        default: "6",
        help: "legalize=bisect: bisect the best iterate cutting equal sides in this many \
               orders of the dimensions (x-y-z first, at most D!), keep the best (beyond the \
               paper)",
    },
];

pub fn info() -> MapperInfo {
    MapperInfo {
        id: "analytical",
        name: "Analytical mapping (quadratic + legalization)",
        paper: PAPER,
        doc: "Treat the communication graph as springs and the machine as a box: minimise the \
              squared distances Σ c_ij |Φ_i − Φ_j|² with some processes pinned to the corner \
              nodes (a sparse linear solve per dimension). Crowded bins (nodes) are relieved \
              by shifting their processes apart and pulling them there with 'fake' anchor \
              processes (by default pins at the shifted positions, after FastPlace; \
              spread=paper puts them on the boundary as in Eqs. 6-9), iteration after \
              iteration, until no bin holds more than gamma. Then legalization: by default \
              (beyond the paper) the box of nodes and the processes are cut in two together, \
              again and again, splitting the processes by Φ, starting from the iterate whose \
              legalized hop-bytes were least (legalize=bisect); legalize=diffusion is the \
              paper's: a diffusion (L λ = b on the network's Laplacian) migrates the surplus \
              along the links, always moving the process that costs the fewest hop-bytes. With \
              several cores per node, a bin \
              holds gamma·cores processes (multicore=group: METIS first groups the processes, \
              as the paper does).",
        needs_coords: false,
        randomized: false,
        params: ANALYTICAL_PARAMS,
        networks: Networks::Grids,
        per_node_state: true,
        external: None,
        start,
    }
}

/// `analytical+pairs`'s parameters: the analytical ones and PAIRS's budget.
pub const ANALYTICAL_PAIRS_PARAMS: &[ParamSpec] = &[
    ANALYTICAL_PARAMS[0],
    ANALYTICAL_PARAMS[1],
    ANALYTICAL_PARAMS[2],
    ANALYTICAL_PARAMS[3],
    ANALYTICAL_PARAMS[4],
    ANALYTICAL_PARAMS[5],
    ANALYTICAL_PARAMS[6],
    ANALYTICAL_PARAMS[7],
    ANALYTICAL_PARAMS[8],
    ANALYTICAL_PARAMS[9],
    ANALYTICAL_PARAMS[10],
    ANALYTICAL_PARAMS[11],
    ANALYTICAL_PARAMS[12],
    ANALYTICAL_PARAMS[13],
    ANALYTICAL_PARAMS[14],
    ANALYTICAL_PARAMS[15],
    super::pairs::PAIRS_PARAMS[0],
    super::pairs::PAIRS_PARAMS[1],
    super::pairs::PAIRS_PARAMS[2],
    super::pairs::PAIRS_PARAMS[3],
];

pub fn info_pairs() -> MapperInfo {
    MapperInfo {
        id: "analytical+pairs",
        name: "Analytical mapping + pairwise exchange",
        paper: "Wu et al. §3 (analytical), then Bhatele & Kale §VII-B (PAIRS)",
        doc: "The analytical mapping, then pairwise exchanges (PAIRS) from it: each process \
              tries swapping with the processes near its partners' centroid and keeps a swap \
              that lowers hop-bytes, until a full sweep finds nothing. Params: those of \
              analytical, and sweeps, batch, radius, time_ms of PAIRS.",
        needs_coords: false,
        randomized: true,
        params: ANALYTICAL_PAIRS_PARAMS,
        networks: Networks::Grids,
        per_node_state: true,
        external: None,
        start: start_pairs,
    }
}

/// Parsed settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    pub gamma: u32,
    pub fixed: FixedKind,
    pub solver: SolverKind,
    pub multicore: MulticoreMode,
    pub max_global: usize,
    pub stall: usize,
    pub max_legal: usize,
    pub beta_scale: f64,
    pub spread: SpreadKind,
    pub alpha: f64,
    pub delta: f64,
    /// Proportional shifting's μ (0 = FastPlace's rule with `delta`).
    pub shift_mu: f64,
    /// Warm-start the first solve from BFS distances to the fixed items.
    pub warm_start: bool,
    pub torus_cut: bool,
    /// How Φ is legalized (`legalize=`).
    pub legalize: LegalizeKind,
    /// `legalize=bisect`: stop global mapping after this many iterations
    /// without a better estimate (0 = off).
    pub patience: usize,
    /// `legalize=bisect`: orders of cutting equal sides tried on the best
    /// iterate.
    pub cut_orders: usize,
    pub seed: u64,
}

/// How the almost-legal Φ becomes a legal mapping (`legalize=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LegalizeKind {
    /// Recursive coordinate bisection of the best global iterate (beyond
    /// the paper, [`bisect`]).
    Bisect,
    /// Diffusion on the network's Laplacian (the paper, §3.4, [`legalize`]).
    Diffusion,
}

/// How the spreading anchors are made (`spread=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpreadKind {
    /// Pseudo pins at the shifting targets, weight growing per iteration.
    Pin,
    /// Fake processes on the boundary, β of Eq. 9 (the paper, §3.3.3).
    Paper,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            gamma: 4,
            fixed: FixedKind::Far,
            solver: SolverKind::Pcg,
            multicore: MulticoreMode::Bins,
            max_global: 100,
            stall: 10,
            max_legal: 100,
            beta_scale: 1.0,
            spread: SpreadKind::Pin,
            alpha: 0.01,
            delta: shifting::DELTA,
            shift_mu: 0.5,
            warm_start: true,
            torus_cut: false,
            legalize: LegalizeKind::Bisect,
            patience: 10,
            cut_orders: 6,
            seed: 0,
        }
    }
}

impl Settings {
    pub fn from_input(input: &MapperInput) -> Result<Self> {
        // Defaults come from the registry's schema (one place).
        let p = ANALYTICAL_PARAMS;
        let word = |k: &str| -> Result<String> {
            Ok(input.get::<String>(p, k)?.trim().to_ascii_lowercase())
        };
        Ok(Settings {
            gamma: input.get::<u32>(p, "gamma")?.max(1),
            fixed: match word("fixed")?.as_str() {
                "bft" => FixedKind::Bft,
                "rcm" => FixedKind::Rcm,
                _ => FixedKind::Far,
            },
            solver: if word("solver")? == "cholesky" {
                SolverKind::Cholesky
            } else {
                SolverKind::Pcg
            },
            multicore: if word("multicore")? == "group" {
                MulticoreMode::Group
            } else {
                MulticoreMode::Bins
            },
            max_global: input.get::<usize>(p, "max_global")?.max(1),
            stall: input.get::<usize>(p, "stall")?.max(1),
            max_legal: input.get::<usize>(p, "max_legal")?.max(1),
            beta_scale: input.get(p, "beta_scale")?,
            spread: if word("spread")? == "paper" {
                SpreadKind::Paper
            } else {
                SpreadKind::Pin
            },
            alpha: input.get(p, "alpha")?,
            delta: input.get(p, "delta")?,
            shift_mu: input.get(p, "shift_mu")?,
            warm_start: true,
            torus_cut: word("torus")? == "cut",
            legalize: if word("legalize")? == "diffusion" {
                LegalizeKind::Diffusion
            } else {
                LegalizeKind::Bisect
            },
            patience: input.get(p, "patience")?,
            cut_orders: input.get::<usize>(p, "cut_orders")?.max(1),
            seed: input.seed,
        })
    }
}

/// The mesh/torus of a topology, or a clear error.
pub fn grid_for(topo: &Topology) -> Result<Grid> {
    topo.as_grid().cloned().ok_or_else(|| {
        Error::Unsupported(format!(
            "the analytical mapper needs a mesh or torus (its continuous model is the grid's \
             box); {} is not one",
            topo.spec()
        ))
    })
}

/// The model has one bin per node and legalizes on the network's
/// Laplacian, so its cost follows the network: a job far smaller than the
/// machine is refused (it would spend its time on empty bins) with a
/// pointer to the mappers whose cost follows the job.
fn check_size(input: &MapperInput) -> Result<()> {
    input.check_fits()?;
    let (n, nodes) = (input.graph.n(), input.topo.num_nodes());
    if nodes > 16 * n.max(1) + 4096 {
        return Err(Error::Unsupported(format!(
            "the analytical mapper keeps one bin per node and solves on the whole network;              {nodes} nodes for {n} processes is too sparse a job (at most 16 nodes per process              above 4096): use `recursive` or `mht`, whose cost follows the job"
        )));
    }
    Ok(())
}

fn start(input: &MapperInput) -> Result<Box<dyn MapperRun>> {
    check_size(input)?;
    let settings = Settings::from_input(input)?;
    Ok(Box::new(Analytical::new(
        input.graph.clone(),
        input.topo.clone(),
        settings,
    )?))
}

fn start_pairs(input: &MapperInput) -> Result<Box<dyn MapperRun>> {
    check_size(input)?;
    let settings = Settings::from_input(input)?;
    let p = ANALYTICAL_PAIRS_PARAMS;
    let time_ms: u64 = input.get(p, "time_ms")?;
    let pp = PairsParams {
        sweeps: input.get(p, "sweeps")?,
        batch: input.get::<usize>(p, "batch")?.max(1),
        radius: input.get(p, "radius")?,
        time: (time_ms > 0).then(|| Duration::from_millis(time_ms)),
        seed: input.seed,
    };
    Ok(Box::new(AnalyticalPairs {
        analytical: Analytical::new(input.graph.clone(), input.topo.clone(), settings)?,
        pairs: None,
        params: pp,
        trace: Vec::new(),
    }))
}

/// The stage a run is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Before the first step (which sets up the items, orderings and
    /// matrix, then runs global iteration 1).
    Setup,
    /// Global mapping (§3.3): one step = solve, shift, spread.
    Global,
    /// Legalization (§3.4): one step = one migration iteration.
    Legalize,
    /// Finished.
    Done,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Setup => "setup",
            Phase::Global => "global mapping",
            Phase::Legalize => "legalization",
            Phase::Done => "done",
        }
    }
}

/// Why global mapping stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GlobalStop {
    /// Every bin holds at most γ (γ·cores).
    AlmostLegal,
    /// The maximum workload did not fall for `stall` iterations.
    Stalled,
    /// `max_global` iterations.
    IterationLimit,
    /// `legalize=bisect`: the estimated hop-bytes did not improve for
    /// `patience` iterations (beyond the paper).
    NoGain,
}

/// Per-step history (one entry per global or legalization step).
#[derive(Clone, Debug, Default)]
pub struct History {
    /// Maximum bin workload (node load during legalization), in items.
    pub max_workload: Vec<f64>,
    /// W(Φ) (Eq. 2); during legalization, W of the nodes' coordinates.
    pub w_phi: Vec<f64>,
    /// Hop-bytes Φ would give if legalized now: every item on its bin's
    /// node (torus distances); during legalization, the current hop-bytes.
    pub hop_bytes: Vec<f64>,
    /// Phase of each entry.
    pub phase: Vec<Phase>,
    /// Conjugate-gradient iterations of the step's solve (all dimensions;
    /// 0 for Cholesky and during legalization).
    pub solver_iterations: Vec<usize>,
}

/// A run of the analytical mapper. See the module docs.
pub struct Analytical {
    graph: Arc<CommGraph>,
    topo: Arc<Topology>,
    grid: Grid,
    s: Settings,
    phase: Phase,
    items: Option<Arc<Items>>,
    fixed: Vec<(usize, usize)>,
    is_free: Vec<bool>,
    sys: Option<QSystem>,
    active: Vec<bool>,
    hi: Vec<f64>,
    phi: Vec<f64>,
    target: Vec<f64>,
    anchors: Anchors,
    workload: Vec<u32>,
    unit: Vec<u32>,
    max_workload: u32,
    best_max: u32,
    since_best: usize,
    global_iterations: usize,
    /// Spreading rounds of this global-mapping round (the pin weight's k).
    spread_rounds: usize,
    global_stop: Option<GlobalStop>,
    w_phi: f64,
    est_hop_bytes: f64,
    /// `legalize=bisect`: the global iterate with the fewest estimated
    /// hop-bytes so far (Φ, its hop-bytes, its iteration).
    best_phi: Vec<f64>,
    best_est: f64,
    best_iteration: usize,
    /// `legalize=bisect`: the order of cutting equal sides legalization uses.
    cut_order: Vec<usize>,
    legal: Option<Legalizer>,
    torus_round: torus::Rounds,
    history: History,
    placement: Vec<Option<u32>>,
    event: Option<StepEvent>,
    result: Option<Mapping>,
    steps: usize,
    solve_time: Duration,
    error: Option<Error>,
}

impl Analytical {
    /// A run; cheap (the work happens in steps).
    pub fn new(graph: Arc<CommGraph>, topo: Arc<Topology>, s: Settings) -> Result<Self> {
        let grid = grid_for(&topo)?;
        if graph.n() > topo.num_slots() {
            return Err(Error::Unsupported(format!(
                "{} processes do not fit in {} slots of {}",
                graph.n(),
                topo.num_slots(),
                topo.spec()
            )));
        }
        let nd = grid.ndims();
        let active = grid.dims().iter().map(|&k| k > 1).collect();
        let hi = grid.dims().iter().map(|&k| k as f64 - 0.5).collect();
        let n = graph.n();
        Ok(Analytical {
            graph,
            topo,
            grid,
            s,
            phase: Phase::Setup,
            items: None,
            fixed: Vec::new(),
            is_free: Vec::new(),
            sys: None,
            active,
            hi,
            phi: Vec::new(),
            target: Vec::new(),
            anchors: Anchors::default(),
            workload: Vec::new(),
            unit: Vec::new(),
            max_workload: 0,
            best_max: u32::MAX,
            since_best: 0,
            global_iterations: 0,
            spread_rounds: 0,
            global_stop: None,
            w_phi: 0.0,
            est_hop_bytes: 0.0,
            best_phi: Vec::new(),
            best_est: f64::INFINITY,
            best_iteration: 0,
            cut_order: Vec::new(),
            legal: None,
            torus_round: torus::Rounds::new(nd),
            history: History::default(),
            placement: vec![None; n],
            event: None,
            result: None,
            steps: 0,
            solve_time: Duration::ZERO,
            error: None,
        })
    }

    // ----- read-only state for the GUI and the experiments -----

    pub fn settings(&self) -> &Settings {
        &self.s
    }
    pub fn phase(&self) -> Phase {
        self.phase
    }
    pub fn grid(&self) -> &Grid {
        &self.grid
    }
    /// Number of dimensions D of Φ.
    pub fn ndims(&self) -> usize {
        self.grid.ndims()
    }
    /// The items (processes or groups) and their graph; None before setup.
    pub fn items(&self) -> Option<&Items> {
        self.items.as_deref()
    }
    /// Φ of every item, items × D (row-major); empty before the first solve.
    pub fn phi(&self) -> &[f64] {
        &self.phi
    }
    /// Φ of process `p` (its group's Φ with grouping); None before the first solve.
    pub fn process_phi(&self, p: usize) -> Option<&[f64]> {
        let items = self.items.as_ref()?;
        let nd = self.ndims();
        let i = *items.item_of.get(p)? as usize;
        self.phi.get(i * nd..(i + 1) * nd)
    }
    /// Where shifting sent each item this iteration (items × D).
    pub fn shift_targets(&self) -> &[f64] {
        &self.target
    }
    /// This iteration's fake anchors: points (items × D, NaN for none), β per
    /// item (0 = none), spreading-force vectors (items × D).
    pub fn anchors(&self) -> &Anchors {
        &self.anchors
    }
    /// Items per bin (node), after the last solve.
    pub fn workloads(&self) -> &[u32] {
        &self.workload
    }
    /// The almost-legal bound: γ (γ·cores without grouping).
    pub fn bin_capacity(&self) -> u32 {
        self.s.gamma * self.items.as_ref().map(|i| i.cap).unwrap_or(1)
    }
    pub fn max_workload(&self) -> u32 {
        self.max_workload
    }
    /// W(Φ) after the last step.
    pub fn w_phi(&self) -> f64 {
        self.w_phi
    }
    /// Hop-bytes if Φ were legalized now (every item on its bin's node).
    pub fn estimated_hop_bytes(&self) -> f64 {
        self.est_hop_bytes
    }
    /// `legalize=bisect`: the global iteration whose Φ is legalized (the
    /// one with the fewest estimated hop-bytes); 0 before global mapping
    /// stopped or with `legalize=diffusion`.
    pub fn legalized_iteration(&self) -> usize {
        if self.s.legalize == LegalizeKind::Bisect && self.legal.is_some() {
            self.best_iteration
        } else {
            0
        }
    }
    /// `legalize=bisect`: the priority order of the dimensions in which
    /// legalization cuts equal sides (empty before global mapping stopped).
    pub fn cut_order(&self) -> &[usize] {
        &self.cut_order
    }
    /// The fixed items and their corner nodes.
    pub fn fixed_items(&self) -> &[(usize, usize)] {
        &self.fixed
    }
    pub fn global_iterations(&self) -> usize {
        self.global_iterations
    }
    pub fn global_stop(&self) -> Option<GlobalStop> {
        self.global_stop
    }
    /// Legalization iterations so far (all rounds).
    pub fn legal_iterations(&self) -> usize {
        self.torus_round.legal_iterations + self.legal.as_ref().map_or(0, |l| l.iterations())
    }
    /// The legalization state, once it started.
    pub fn legalizer(&self) -> Option<&Legalizer> {
        self.legal.as_ref()
    }
    /// The migrations of the last legalization step.
    pub fn migrations(&self) -> &[Migration] {
        self.legal.as_ref().map_or(&[], |l| l.migrations())
    }
    /// Per-step history of max workload, W(Φ) and hop-bytes.
    pub fn history(&self) -> &History {
        &self.history
    }
    /// Time spent in the linear solves of Eq. 5.
    pub fn solve_time(&self) -> Duration {
        self.solve_time
    }
    /// The torus ring cuts tried (`torus=cut`).
    pub fn torus_rounds(&self) -> &torus::Rounds {
        &self.torus_round
    }

    // ----- the steps -----

    /// The first step: items (grouping), fixed items, Φ's start and the
    /// matrix, then global iteration 1.
    fn setup_step(&mut self) -> Result<()> {
        let items = multicore::items(
            &self.graph,
            self.topo.cores(),
            self.s.multicore,
            self.s.seed,
        )?;
        self.unit = vec![1; items.graph.n()];
        self.items = Some(Arc::new(items));
        self.build_system(None)?;
        self.phase = Phase::Global;
        self.global_step()
    }

    /// Fixed items, Φ start, the matrix. `start` gives a starting Φ
    /// (torus rounds) and their corner items are then the items nearest the corners.
    fn build_system(&mut self, start: Option<Vec<f64>>) -> Result<()> {
        let items = self.items.clone().expect("items built");
        let g = &items.graph;
        let n = g.n();
        let nd = self.ndims();
        let restart = start.is_some();
        self.fixed = match &start {
            None => fixed::fixed_items(g, &self.grid, self.s.fixed),
            Some(p) => fixed::nearest_to_corners(p, &self.grid),
        };
        let mut fixed_pos: Vec<Option<Vec<f64>>> = vec![None; n];
        for &(i, node) in &self.fixed {
            let c = self.grid.coord(node);
            fixed_pos[i] = Some((0..nd).map(|d| c[d] as f64).collect());
        }
        let centre: Vec<f64> = self
            .grid
            .dims()
            .iter()
            .map(|&k| (k as f64 - 1.0) / 2.0)
            .collect();
        self.is_free = fixed_pos.iter().map(|f| f.is_none()).collect();
        self.phi = match start {
            Some(p) => p,
            None if self.s.warm_start => fixed::initial_positions(g, &self.grid, &self.fixed),
            None => (0..n).flat_map(|_| centre.iter().copied()).collect(),
        };
        for (i, fp) in fixed_pos.iter().enumerate() {
            if let Some(fp) = fp {
                self.phi[i * nd..(i + 1) * nd].copy_from_slice(fp);
            }
        }
        self.sys = Some(QSystem::new(g, &fixed_pos, &centre, self.s.solver)?);
        self.anchors = Anchors {
            beta: vec![0.0; n],
            point: vec![f64::NAN; n * nd],
            force: vec![0.0; n * nd],
        };
        self.target = self.phi.clone();
        if restart {
            // Hold every item at its start for the first solve.
            let mean_deg = (0..n).map(|i| g.weighted_degree(i)).sum::<f64>() / n.max(1) as f64;
            spreading::anchors(
                g,
                &self.phi,
                &self.target,
                &self.is_free,
                &self.hi,
                &self.active,
                (1e-2 * mean_deg).max(1e-9),
                &mut self.anchors,
            );
        }
        self.best_max = u32::MAX;
        self.since_best = 0;
        self.best_phi.clear();
        self.best_est = f64::INFINITY;
        self.best_iteration = 0;
        self.spread_rounds = if restart { 10 } else { 0 };
        Ok(())
    }

    fn global_step(&mut self) -> Result<()> {
        let items = self.items.clone().expect("items built");
        let g = &items.graph;
        let nd = self.ndims();
        let t0 = std::time::Instant::now();
        self.sys.as_mut().expect("system built").solve(
            &self.anchors.beta,
            &self.anchors.point,
            &mut self.phi,
            &self.active,
        )?;
        self.solve_time += t0.elapsed();
        self.global_iterations += 1;
        self.max_workload =
            shifting::workloads(&self.grid, &self.phi, &self.unit, &mut self.workload);
        self.w_phi = global::objective(g, &self.phi, nd);
        self.est_hop_bytes = match self.s.legalize {
            LegalizeKind::Diffusion => self.bin_hop_bytes(),
            LegalizeKind::Bisect => {
                let ident: Vec<usize> = (0..nd).collect();
                let nodes = bisect::assign(&self.grid, items.cap, &self.phi, &ident);
                let h = self.item_hop_bytes(&nodes);
                if h < self.best_est {
                    self.best_est = h;
                    self.best_iteration = self.global_iterations;
                    self.best_phi.clear();
                    self.best_phi.extend_from_slice(&self.phi);
                }
                h
            }
        };
        self.record();
        let cap = self.bin_capacity();
        let stop = if self.max_workload <= cap {
            Some(GlobalStop::AlmostLegal)
        } else {
            if self.max_workload < self.best_max {
                self.best_max = self.max_workload;
                self.since_best = 0;
            } else {
                self.since_best += 1;
            }
            let patient = self.s.legalize == LegalizeKind::Bisect && self.s.patience > 0;
            if patient && self.global_iterations >= self.best_iteration + self.s.patience {
                Some(GlobalStop::NoGain)
            } else if self.since_best >= self.s.stall {
                Some(GlobalStop::Stalled)
            } else if self.global_iterations >= self.torus_round.global_limit(self.s.max_global) {
                Some(GlobalStop::IterationLimit)
            } else {
                None
            }
        };
        if let Some(st) = stop {
            self.global_stop = Some(st);
            let bisecting = self.s.legalize == LegalizeKind::Bisect;
            if bisecting && !self.best_phi.is_empty() {
                // Legalize the best iterate: Φ shows it from now on.
                std::mem::swap(&mut self.phi, &mut self.best_phi);
            }
            let start: Vec<u32> = self
                .phi
                .chunks_exact(nd)
                .map(|x| shifting::bin_of(&self.grid, x) as u32)
                .collect();
            self.legal = Some(if bisecting {
                // The order of cutting equal sides that legalizes best.
                let mut best = (f64::INFINITY, Vec::new());
                for o in bisect::orders(nd, self.s.cut_orders) {
                    let nodes = bisect::assign(&self.grid, items.cap, &self.phi, &o);
                    let h = self.item_hop_bytes(&nodes);
                    if h < best.0 {
                        best = (h, o);
                    }
                }
                self.cut_order = best.1;
                Legalizer::bisecting(&self.grid, items.cap, start, &self.phi, &self.cut_order)
            } else {
                Legalizer::new(&self.grid, items.cap, start, self.s.max_legal)
            });
            self.phase = Phase::Legalize;
            return Ok(());
        }
        // Shift, then spread: the anchors of the next solve.
        let n = g.n();
        let mean = n as f64 / self.grid.num_nodes() as f64;
        self.target.resize(self.phi.len(), 0.0);
        if self.s.shift_mu > 0.0 {
            shifting::shift_proportional(&self.grid, &self.phi, self.s.shift_mu, &mut self.target);
        } else {
            shifting::shift(
                &self.grid,
                &self.phi,
                &self.workload,
                mean,
                self.s.delta,
                &mut self.target,
            );
        }
        let mean_deg = if n > 0 {
            (0..n).map(|i| g.weighted_degree(i)).sum::<f64>() / n as f64
        } else {
            0.0
        };
        match self.s.spread {
            SpreadKind::Paper => spreading::anchors(
                g,
                &self.phi,
                &self.target,
                &self.is_free,
                &self.hi,
                &self.active,
                (1e-2 * mean_deg).max(1e-9),
                &mut self.anchors,
            ),
            SpreadKind::Pin => {
                self.spread_rounds += 1;
                spreading::pins(
                    g,
                    &self.phi,
                    &self.target,
                    &self.is_free,
                    &self.active,
                    self.s.alpha * self.spread_rounds as f64,
                    (1e-2 * mean_deg).max(1e-9),
                    &mut self.anchors,
                )
            }
        }
        if self.s.beta_scale != 1.0 {
            for b in &mut self.anchors.beta {
                *b *= self.s.beta_scale;
            }
        }
        Ok(())
    }

    /// Hop-bytes with every item on its bin's node.
    fn bin_hop_bytes(&self) -> f64 {
        let nd = self.ndims();
        let bins: Vec<u32> = self
            .phi
            .chunks_exact(nd)
            .map(|x| shifting::bin_of(&self.grid, x) as u32)
            .collect();
        self.item_hop_bytes(&bins)
    }

    fn item_hop_bytes(&self, node_of: &[u32]) -> f64 {
        let g = &self.items.as_ref().expect("items").graph;
        let mut s = 0.0;
        for i in 0..g.n() {
            let (t, w) = g.row(i);
            for (&j, &c) in t.iter().zip(w) {
                if (j as usize) > i {
                    s += c * self
                        .grid
                        .distance(node_of[i] as usize, node_of[j as usize] as usize)
                        as f64;
                }
            }
        }
        s
    }

    fn record(&mut self) {
        self.history.max_workload.push(self.max_workload as f64);
        self.history.w_phi.push(self.w_phi);
        self.history.hop_bytes.push(self.est_hop_bytes);
        self.history.phase.push(self.phase);
        let its = match (self.phase, &self.sys) {
            (Phase::Global, Some(sys)) => sys.last_iterations,
            _ => 0,
        };
        self.history.solver_iterations.push(its);
    }

    fn legal_step(&mut self) -> Result<()> {
        let items = self.items.clone().expect("items built");
        let legal = self.legal.as_mut().expect("legalizer");
        let done = legal.step(&items.graph);
        // Guided mode highlights the processes of the items this step
        // migrated (at most 4096: O(migrations) and bounded).
        let mut moved = Vec::new();
        for m in legal.migrations() {
            if moved.len() >= 4096 {
                break;
            }
            if let Some(ps) = items.members.get(m.item as usize) {
                moved.extend(ps.iter().map(|&p| p as usize));
            }
        }
        moved.truncate(4096);
        self.event = (!moved.is_empty()).then_some(StepEvent::Group { processes: moved });
        let node_of = legal.node_of().to_vec();
        self.max_workload = legal.max_load() as u32;
        // W and hop-bytes of the current (partly legal) assignment.
        let nd = self.ndims();
        let mut pos = vec![0.0; node_of.len() * nd];
        for (i, &v) in node_of.iter().enumerate() {
            let c = self.grid.coord(v as usize);
            for d in 0..nd {
                pos[i * nd + d] = c[d] as f64;
            }
        }
        self.w_phi = global::objective(&items.graph, &pos, nd);
        self.est_hop_bytes = self.item_hop_bytes(&node_of);
        self.record();
        if done {
            // Torus rounds: maybe cut the rings and map again.
            if self.s.torus_cut {
                let legal_iters = self.legal.as_ref().map_or(0, |l| l.iterations());
                let next = self.torus_round.finish_round(
                    &self.grid,
                    &self.items.as_ref().expect("items").graph,
                    node_of,
                    self.est_hop_bytes,
                    legal_iters,
                );
                if let Some(start) = next {
                    self.legal = None;
                    self.build_system(Some(start))?;
                    self.phase = Phase::Global;
                    return Ok(());
                }
                let best = self.torus_round.best_nodes().to_vec();
                self.finish(&best)?;
            } else {
                self.finish(&node_of)?;
            }
        }
        Ok(())
    }

    fn finish(&mut self, node_of_item: &[u32]) -> Result<()> {
        let items = self.items.clone().expect("items built");
        let m = multicore::expand(&items, node_of_item, &self.topo)?;
        let cores = self.topo.cores();
        self.placement = (0..m.len())
            .map(|p| Some(m.slot(p, cores) as u32))
            .collect();
        self.est_hop_bytes = self.item_hop_bytes(node_of_item);
        self.result = Some(m);
        self.event = Some(StepEvent::Whole);
        self.phase = Phase::Done;
        Ok(())
    }

    fn try_step(&mut self) -> Result<()> {
        match self.phase {
            Phase::Setup => self.setup_step(),
            Phase::Global => self.global_step(),
            Phase::Legalize => self.legal_step(),
            Phase::Done => Ok(()),
        }
    }

    /// One step; errors (which valid inputs do not produce) stop the run
    /// with [`Stop::Failed`] and are kept ([`MapperRun::error`]).
    fn step_inner(&mut self) -> StepState {
        if self.phase == Phase::Done {
            return self.state();
        }
        self.steps += 1;
        if let Err(e) = self.try_step() {
            self.error = Some(e);
            self.phase = Phase::Done;
        }
        self.state()
    }

    /// The error that stopped the run, if any.
    pub fn failure(&self) -> Option<&Error> {
        self.error.as_ref()
    }
    /// Steps taken.
    pub fn steps(&self) -> usize {
        self.steps
    }
    /// The finished mapping.
    pub fn mapping(&self) -> Option<&Mapping> {
        self.result.as_ref()
    }
}

impl Stepper for Analytical {
    fn step(&mut self) -> StepState {
        self.step_inner()
    }
    /// Stopped once the mapping is legal: `Converged` when global mapping
    /// reached an almost-legal Φ, `LocalOptimum` when its maximum workload
    /// stalled, `IterationLimit` at `max_global`; `Failed` on an error.
    fn state(&self) -> StepState {
        if self.phase != Phase::Done {
            return StepState::Running;
        }
        if self.error.is_some() || self.result.is_none() {
            return StepState::Stopped(Stop::Failed);
        }
        StepState::Stopped(match self.global_stop {
            Some(GlobalStop::AlmostLegal) | None => Stop::Converged,
            Some(GlobalStop::Stalled) | Some(GlobalStop::NoGain) => Stop::LocalOptimum,
            Some(GlobalStop::IterationLimit) => Stop::IterationLimit,
        })
    }
    fn progress(&self) -> Progress {
        let (done, total) = match self.phase {
            Phase::Setup => (0, Some(self.torus_round.global_limit(self.s.max_global))),
            Phase::Global => (
                self.global_iterations,
                Some(self.torus_round.global_limit(self.s.max_global)),
            ),
            Phase::Legalize | Phase::Done => (self.legal_iterations(), None),
        };
        Progress {
            done,
            total,
            phase: self.phase.name(),
        }
    }
}

impl MapperRun for Analytical {
    fn placement(&self) -> &[Option<u32>] {
        &self.placement
    }
    fn result(&self) -> Option<Mapping> {
        self.result.clone()
    }
    fn error(&self) -> Option<&Error> {
        self.error.as_ref()
    }
    fn inspect(&self) -> super::RunRef<'_> {
        super::RunRef::Analytical(self)
    }
}

impl Analytical {
    /// What the last step did (the processes a legalization step migrated).
    pub fn last_event(&self) -> Option<&StepEvent> {
        self.event.as_ref()
    }
    /// Estimated hop-bytes after each global or legalization step.
    pub fn hop_bytes_trace(&self) -> &[f64] {
        &self.history.hop_bytes
    }
    /// Once the global phase stopped: its iterations and why it stopped.
    pub fn summary(&self) -> Option<String> {
        let stop = self.global_stop?;
        Some(format!(
            "{} global iterations ({}), {} legalization iterations",
            self.global_iterations,
            match stop {
                GlobalStop::AlmostLegal => "almost legal",
                GlobalStop::Stalled => "max workload stalled",
                GlobalStop::IterationLimit => "iteration limit",
                GlobalStop::NoGain => "estimated hop-bytes stopped improving",
            },
            self.legal_iterations()
        ))
    }
    /// The global iteration of fewest estimated hop-bytes so far.
    pub fn best_iteration(&self) -> usize {
        self.best_iteration
    }
    /// The processes mapped and the cores per node.
    pub fn sizes(&self) -> (usize, usize) {
        (self.graph.n(), self.topo.cores())
    }
}

/// `analytical+pairs`: the analytical run, then PAIRS from its mapping.
pub struct AnalyticalPairs {
    analytical: Analytical,
    pairs: Option<Pairs>,
    params: PairsParams,
    trace: Vec<f64>,
}

impl AnalyticalPairs {
    /// The analytical stage (its state stays readable after it finished).
    pub fn analytical(&self) -> &Analytical {
        &self.analytical
    }
    /// The PAIRS stage, once started.
    pub fn pairs(&self) -> Option<&Pairs> {
        self.pairs.as_ref()
    }
}

impl Stepper for AnalyticalPairs {
    fn step(&mut self) -> StepState {
        if let Some(p) = self.pairs.as_mut() {
            let st = p.step();
            if let Some(&h) = p.hop_bytes_trace().last() {
                self.trace.push(h);
            }
            return st;
        }
        let st = self.analytical.step();
        if self.trace.len() < self.analytical.history.hop_bytes.len()
            && let Some(&h) = self.analytical.history.hop_bytes.last()
        {
            self.trace.push(h);
        }
        if st.is_running() {
            return st;
        }
        let Some(m) = self.analytical.result.clone() else {
            return st; // failed: the error is kept
        };
        self.pairs = Some(Pairs::new(
            self.analytical.graph.clone(),
            &self.analytical.grid,
            m,
            self.params,
        ));
        self.state()
    }
    fn state(&self) -> StepState {
        match &self.pairs {
            Some(p) => p.state(),
            None => match self.analytical.state() {
                StepState::Stopped(Stop::Failed) => StepState::Stopped(Stop::Failed),
                _ => StepState::Running,
            },
        }
    }
    fn progress(&self) -> Progress {
        match &self.pairs {
            Some(p) => Progress {
                phase: "exchange",
                ..p.progress()
            },
            None => self.analytical.progress(),
        }
    }
}

impl MapperRun for AnalyticalPairs {
    fn placement(&self) -> &[Option<u32>] {
        match &self.pairs {
            Some(p) => p.placement(),
            None => self.analytical.placement(),
        }
    }
    fn result(&self) -> Option<Mapping> {
        self.pairs.as_ref().and_then(|p| p.result())
    }
    fn error(&self) -> Option<&Error> {
        self.analytical.error.as_ref()
    }
    fn inspect(&self) -> super::RunRef<'_> {
        super::RunRef::AnalyticalPairs(self)
    }
}

impl AnalyticalPairs {
    /// What the last step did: the analytical mapper's, then PAIRS's.
    pub fn last_event(&self) -> Option<&StepEvent> {
        match &self.pairs {
            Some(p) => p.last_event(),
            None => self.analytical.last_event(),
        }
    }
    /// The analytical estimates, then PAIRS's hop-bytes after each batch.
    pub fn hop_bytes_trace(&self) -> &[f64] {
        &self.trace
    }
    /// Phases finished: 1 once PAIRS runs.
    pub fn phases_done(&self) -> usize {
        self.pairs.is_some() as usize
    }
}

/// The analytical state of a run of `analytical` or `analytical+pairs`
/// (None for other mappers).
pub fn state_of(run: &dyn MapperRun) -> Option<&Analytical> {
    match run.inspect() {
        super::RunRef::Analytical(a) => Some(a),
        super::RunRef::AnalyticalPairs(a) => Some(a.analytical()),
        _ => None,
    }
}
