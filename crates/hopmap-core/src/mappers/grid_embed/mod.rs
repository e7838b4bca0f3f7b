//! `grid`: recognise a Cartesian halo in any rank numbering and embed its
//! grid into a mesh/torus by axis permutation, tiling and folding.
//!
//! Halo codes (LAMMPS's bricks, PETSc's DMDA, structured CFD) communicate
//! on a d-dimensional process grid, but the ranks need not be numbered
//! along it. [`recognise`] recovers each rank's grid coordinates from the
//! communication graph alone (near-linear; see its docs), [`embed`]
//! enumerates the embeddings of that grid (identity, axis permutations,
//! node-sized blocks on the cores of a node, folds; Bhatele & Kale's
//! folding, seed 000, and Rubik's tile/fold, Bhatele et al. SC'12) and
//! keeps the one of least hop-bytes on the whole graph (its periodic
//! directions shifted so that block and fold seams cut the lightest pairs
//! of each ring) — or rather, among
//! the plans whose hop-bytes are within `load_budget` (1 % by default) of
//! the least, the one of least max link load under dimension-order routing
//! (the same trade as the bottleneck phase of `recursive+refine`, which
//! then gets what is left of the budget; `load_budget=0` keeps exact ties
//! only).
//! On a mesh (up to [`ARRANGE_MAX`] processes), each finalist plan whose
//! grid steps are not all one hop competes with the same plan with the
//! layers of every open dimension in their best order for the pairs'
//! volumes ([`arrange`]: hop-bytes split by dimension on a mesh, so the
//! columns of a fold can be put in any order), and the mapping finally
//! kept is offered the same reordering, kept by [`pick_priced`].
//!
//! What is chosen depends on the recognised grid, not on the ranks'
//! numbering ([`canonical`]): the directions are put in one order
//! (heaviest first), the pairs are sampled in the grid's order, and the
//! rival `recursive+refine` (below) runs on the graph renumbered along the
//! grid. With spare cores, the best plans of every node occupancy (one
//! process a node, two, …) are finalists too, so a wide `load_budget`
//! reaches a spread over more nodes, whose max load is lower at more
//! hop-bytes.
//!
//! As a stepper: step 1 recognises the grid; the next steps score the
//! embedding plans, [`PLANS_PER_STEP`] at a time; one step places the
//! processes. When the grid leaves bytes out (a halo plus light extra
//! edges) or a grid step costs more than one hop, the swap refinement of
//! `recursive+refine` then improves the placement on the whole graph (only
//! improving moves; `refine`). When no grid is recognised, or when it
//! covers less than `min_share` of the bytes, the run says why and
//! continues as `recursive+refine` (the best general mapper) through the
//! same pipeline. On small inputs (at most [`RIVAL_MAX`] processes, and
//! unless `refine=no` asks for the embedding alone) a grid's mapping then
//! meets `recursive+refine`'s as a rival, stepped the
//! same way: of the two, the one kept is the least max link load among
//! those within `load_budget` of the least hop-bytes, or one beyond it
//! whose lower max load pays for the hop-bytes at the bottleneck phase's
//! price ([`pick_priced`]; a portfolio:
//! the swap search can land on a different optimal embedding, e.g. among
//! the many of a 4-ary torus onto a 4-ary torus, whose light edges load
//! the links differently). On the same small inputs the application's own
//! rank order (process p on slot p, the `default` mapping), refined by the
//! same swap search, is a last rival kept by the same rule, whether or not a
//! grid was found: a code whose ranks are already laid out along its process
//! grid, but whose halo is too wide or too mixed to be recognised (an
//! algebraic multigrid's growing coarse stencils), keeps its own layout.
//! When the whole graph is no grid but all processes but a few are
//! ([`recognise::recognise_beside`]: a master whose pairs are light for its
//! partners, processes that exchange nothing), the others are embedded as
//! their grid by the same steps (without the refinement and the rivals),
//! the few are placed on the free slots nearest their heaviest partners
//! (findNearest, seed 000 §III), and the whole graph goes on to the swap
//! refinement and the rivals; when the others' grid has no
//! embedding, the run falls back as without a grid.
//! On a switch fabric it refuses at start (the embedding
//! needs grid coordinates). [`GridEmbed::grid`]
//! gives the recognised grid and its coordinates (the GUI lays the graph
//! out on them).

pub mod arrange;
pub mod canonical;
pub mod embed;
pub mod near_mesh;
pub mod product;
pub mod recognise;
pub mod stacked;
pub mod symmetry;

use super::recursive::refine::keep_best::KeepBest;
use super::recursive::refine::{Objective, Refine, RefineParams};
use super::{MapperInfo, MapperInput, MapperRun, ParamKind, ParamSpec, StepEvent};
use crate::error::{Error, Result};
use crate::graph::Coords;
use crate::mapping::Mapping;
use crate::partition::pair_volumes;
use crate::step::{Progress, StepState, Stepper, Stop};
use embed::Plan;
use recognise::GridHalo;
use std::sync::Arc;

/// Plans scored per step.
pub const PLANS_PER_STEP: usize = 256;
/// Relative hop-bytes difference under which two plans are tied.
const TIE: f64 = 1e-9;
/// Largest input on which `recursive+refine` runs as a rival of the grid's
/// mapping (it costs a few tens of milliseconds there; from 1,024
/// processes on the grid path stays as fast as it was).
pub const RIVAL_MAX: usize = 256;
/// Largest input whose layers of open mesh dimensions are put in their best
/// order ([`arrange`]): below the sizes where `grid`'s speed counts.
pub const ARRANGE_MAX: usize = 1023;

/// Of candidate mappings `(hop-bytes, max link load)`, the index of the one
/// kept: the least max load among those whose hop-bytes are within
/// `budget` (a fraction) of the least, then the least hop-bytes, then the
/// first. None when empty. O(candidates). [`pick_priced`] with price 0.
pub fn pick(cands: &[(f64, f64)], budget: f64) -> Option<usize> {
    pick_priced(cands, budget, 0.0)
}

/// Of candidate mappings `(hop-bytes, max link load)`, the index of the one
/// of highest value by the bottleneck phase's rule
/// ([`keep_best`](super::recursive::refine::keep_best)): against the
/// candidate of least hop-bytes (the first such), `price` × the relative
/// fall of the max load minus the relative rise of hop-bytes beyond
/// `budget`; only candidates of value ≥ 0 count (that one's is 0). Ties:
/// the least max load, then the least hop-bytes, then the first. With
/// price 0: the least max load within `budget` of the least hop-bytes.
/// None when empty. O(candidates).
pub fn pick_priced(cands: &[(f64, f64)], budget: f64, price: f64) -> Option<usize> {
    let (hb0, ml0) = cands
        .iter()
        .copied()
        .reduce(|a, b| if b.0 < a.0 { b } else { a })?;
    let budget = budget.max(TIE);
    let value = |(hb, ml): (f64, f64)| {
        let g = if ml0 > 0.0 { 1.0 - ml / ml0 } else { 0.0 };
        let r = if hb0 > 0.0 { hb / hb0 - 1.0 } else { 0.0 };
        let v = KeepBest::value(price, g, r, budget);
        // Differences below rounding are ties.
        if v.abs() <= TIE { 0.0 } else { v }
    };
    (0..cands.len())
        .filter(|&i| value(cands[i]) >= 0.0)
        .min_by(|&a, &b| {
            (value(cands[b]).total_cmp(&value(cands[a])))
                .then(cands[a].1.total_cmp(&cands[b].1))
                .then(cands[a].0.total_cmp(&cands[b].0))
                .then(a.cmp(&b))
        })
}

pub fn info() -> MapperInfo {
    MapperInfo {
        id: "grid",
        name: "Grid embedding (recognise a Cartesian halo, then tile and fold)",
        paper: "beyond the seeds: Bhatele & Kale §V's folding of process grids; Rubik's tile \
                and fold (Bhatele et al., SC'12)",
        doc: "Recognise a process grid in the communication graph, whatever the rank order: \
              keep the heavy pairs, find the unit squares they form, group the edges into \
              directions and give every process its grid coordinates (faces or faces + \
              edges + corners, periodic or not, unequal volumes per direction). A near-2D \
              mesh (some neighbour pairs missing, some diagonal ones: a decomposition of a \
              non-rectangular domain) is read from distances to its corners (Harel & Koren's \
              landmarks). Then embed the grid: axis permutation when it matches the network, \
              blocks of the grid on the cores of each node (the heaviest directions inside \
              nodes), folds when the shapes differ, reflections; on a mesh each plan also with \
              the layers (columns, rows) of its open dimensions in their best order for the \
              pairs' volumes (a minimum linear arrangement, exact up to 16 layers); every \
              candidate is scored on the real hop-bytes, and of those within `load_budget` of the least, the one of \
              least max link load is kept. Light extra edges are left out of the grid (the \
              summary gives their share) and a swap refinement then takes them into account. \
              Up to 256 processes (unless refine=no), recursive+refine's mapping and the \
              application's own rank order, refined, are rivals, kept when they win by the \
              same rule or pay for more hop-bytes by a lower max load at the bottleneck \
              phase's price (0.1: one per cent of hop-bytes for ten per cent of max load); on a mesh \
              the mapping kept is offered the same reordering of its layers. When all \
              processes but a few form a grid (a master, ranks that exchange nothing), \
              that grid is embedded, the few are placed on the free slots nearest their \
              heaviest partners, and the whole graph is refined. Without a grid it says why \
              and runs recursive+refine. Params: \
              min_share, refine, load_budget.",
        needs_coords: false,
        randomized: true,
        params: PARAMS,
        networks: super::Networks::Grids,
        per_node_state: true,
        external: None,
        start,
    }
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        key: "min_share",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        default: "0.5",
        help: "use the recognised grid only when its neighbour pairs carry at least this share \
               of the bytes (else recursive+refine)",
    },
    ParamSpec {
        key: "refine",
        kind: ParamKind::Choice(&["auto", "yes", "no"]),
        default: "auto",
        help: "swap refinement after the embedding: `auto` when the grid leaves bytes out or a \
               grid step costs more than one hop",
    },
    ParamSpec {
        key: "load_budget",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        default: "0.01",
        help: "hop-bytes given up, at most, as a fraction of the least, for a lower max link load \
               (dimension-order routing): of the plans (and, up to 256 processes, of the grid's \
               and recursive+refine's mappings) within it the least max load is kept (a rival \
               beyond it when its lower max load pays for it at the price 0.1), and the \
               refinement's bottleneck phase gets what is left (0 = exact ties only)",
    },
];

fn start(input: &MapperInput) -> Result<Box<dyn MapperRun>> {
    if input.topo.as_grid().is_none() {
        return Err(Error::Unsupported(
            "grid embeds a process grid into a mesh or torus; on a switch fabric use \
             recursive+refine"
                .into(),
        ));
    }
    input.check_fits()?;
    let refine = match input.get::<String>(PARAMS, "refine")?.trim() {
        "yes" => Some(true),
        "no" => Some(false),
        _ => None,
    };
    Ok(Box::new(GridEmbed::new(
        input.clone(),
        input.get(PARAMS, "min_share")?,
        refine,
        input.get(PARAMS, "load_budget")?,
    )))
}

impl GridEmbed {
    fn new(input: MapperInput, min_share: f64, refine: Option<bool>, load_budget: f64) -> Self {
        let n = input.graph.n();
        GridEmbed {
            input,
            min_share,
            refine,
            load_budget,
            phase: Phase::Recognise,
            halo: None,
            plans: Vec::new(),
            scored: Vec::new(),
            sample: None,
            all_pairs: None,
            chosen: None,
            best_hb: 0.0,
            load_tie: None,
            placed_routed: None,
            canon: None,
            vol: None,
            note: String::new(),
            placement: vec![None; n],
            mapping: None,
            event: None,
            stop: None,
            error: None,
            aside: None,
            fell_back: None,
            known: None,
        }
    }
}

enum Phase {
    Recognise,
    Choose {
        next: usize,
    },
    Place,
    /// The swap refinement of the placed plan (kept too: the refinement
    /// must beat it by [`pick`]).
    Refine(Box<Refine>, Mapping),
    Fallback(Box<dyn MapperRun>),
    /// No grid of the whole graph, but one of all processes but a few
    /// ([`recognise::recognise_beside`]): the grid's own run on the others'
    /// graph ([`GridEmbed::aside`]) steps.
    Beside,
    /// The grid's mapping is made; `recursive+refine` runs as its rival.
    Rival(Mapping, Box<dyn MapperRun>),
    /// The mapping so far (and how its run stopped) is made; the
    /// application's own rank order is refined as one more rival.
    Order(Mapping, Stop, Box<Refine>),
    Done,
}

/// The `grid` mapper as a stepper (see the module docs).
pub struct GridEmbed {
    input: MapperInput,
    min_share: f64,
    refine: Option<bool>,
    load_budget: f64,
    phase: Phase,
    halo: Option<GridHalo>,
    plans: Vec<Plan>,
    /// (sampled hop-bytes, plan index) of the plans scored so far.
    scored: Vec<(f64, usize)>,
    /// Scores the plans on the sample of pairs.
    sample: Option<embed::Scorer>,
    /// Every pair in the canonical order, when the sample is not all of
    /// them (kept from the recognition for the finalists' scorer).
    all_pairs: Option<Vec<(u32, u32, f64)>>,
    /// The plan placed, its hop-bytes and whether every grid step is one hop.
    chosen: Option<(usize, f64, bool)>,
    /// The least hop-bytes of any plan scored on every pair.
    best_hb: f64,
    /// Plans within `load_budget` of the least hop-bytes and the max link
    /// load of the one kept, when more than one.
    load_tie: Option<(usize, f64)>,
    /// The placed plan's hop-bytes and max link load under dimension-order
    /// routing, when routed while choosing it ([`embed::routed`]): the
    /// refinement's result is weighed against them without routing the
    /// placed mapping again.
    placed_routed: Option<(f64, f64)>,
    /// The grid's canonical number of every process and its inverse
    /// ([`canonical::grid_order`]).
    canon: Option<(Vec<u32>, Vec<u32>)>,
    /// The pair volumes of the graph, once made ([`GridEmbed::volumes`]).
    vol: Option<Arc<Vec<f64>>>,
    note: String,
    placement: Vec<Option<u32>>,
    mapping: Option<Mapping>,
    event: Option<StepEvent>,
    stop: Option<Stop>,
    error: Option<Error>,
    /// The grid of all processes but a few and its run, when the whole
    /// graph is no grid ([`Aside`]).
    aside: Option<Box<Aside>>,
    /// Why the run went on as `recursive+refine`, when it did.
    fell_back: Option<String>,
    /// The grid already read from this graph (by
    /// [`recognise::recognise_beside`] on the whole graph's failure): the
    /// first step takes it instead of reading it again.
    known: Option<GridHalo>,
}

/// A grid of all processes but a few that stand beside it (a master, an
/// I/O rank: [`recognise::recognise_beside`]): the `grid` run (without its
/// refinement and rivals) on the graph of the others, which are embedded
/// as that grid; the few are then placed on the free slots nearest their
/// heaviest partners (Bhatele & Kale's findNearest, seed 000 §III), and the
/// whole graph goes on to the swap refinement and the rivals. Beyond the
/// seeds: the master-worker split of real codes.
struct Aside {
    /// The run on the others' graph.
    run: GridEmbed,
    /// Each process's number in the others' graph (`u32::MAX` outside).
    index: Vec<u32>,
    /// The others' graph's number → process.
    inv: Vec<u32>,
    /// The processes outside the grid, ascending.
    outside: Vec<usize>,
}

impl GridEmbed {
    /// The recognised grid (None before the first step or without one).
    pub fn grid(&self) -> Option<&GridHalo> {
        self.halo.as_ref()
    }

    /// The recognised grid's coordinates as layout coordinates (the first
    /// three directions), for drawing the graph on its grid.
    /// With a grid of all processes but a few (a master, idle ranks), those few stand
    /// in a row beside it, two steps before its first direction's start.
    pub fn grid_coords(&self) -> Option<Coords> {
        let (h, index) = match (&self.halo, &self.aside) {
            (Some(h), _) => (h, None),
            (None, Some(a)) => (a.run.halo.as_ref()?, Some(&a.index)),
            (None, None) => return None,
        };
        let d = h.ndims();
        let n = self.input.graph.n();
        let mut row = 0.0;
        let xyz = (0..n)
            .map(|p| {
                let mut x = [0.0; 3];
                let q = match index {
                    None => p,
                    Some(ix) if ix[p] != u32::MAX => ix[p] as usize,
                    Some(_) => {
                        x[0] = -2.0;
                        x[1] = row;
                        row += 1.0;
                        return x;
                    }
                };
                let c = h.coord(q);
                for (i, v) in x.iter_mut().enumerate().take(d.min(3)) {
                    *v = c[i] as f64;
                }
                x
            })
            .collect();
        Some(Coords::new(if d >= 3 { 3 } else { 2 }, xyz))
    }

    /// No grid of the whole graph, but one of all processes but the few
    /// of `b`: start the grid's run on the others' graph ([`Aside`]), with
    /// `b`'s reading of their grid (it is not read again), or fall back
    /// when it cannot be made.
    fn beside_start(&mut self, why: String, b: recognise::Beside) {
        let (outside, g) = (&b.outside, &self.input.graph);
        let Some((others, _)) = recognise::others_graph(g, outside) else {
            self.fall_back(why);
            return;
        };
        let mut input = self.input.clone();
        input.graph = Arc::new(others);
        let (mut index, mut inv) = (vec![u32::MAX; g.n()], Vec::with_capacity(g.n()));
        for (p, ix) in index.iter_mut().enumerate() {
            if outside.binary_search(&p).is_err() {
                *ix = inv.len() as u32;
                inv.push(p as u32);
            }
        }
        // The embedding alone: the refinement and the rivals come after,
        // on the whole graph.
        let mut run = GridEmbed::new(input, self.min_share, Some(false), self.load_budget);
        run.known = Some(b.grid);
        self.note = why;
        self.aside = Some(Box::new(Aside {
            run,
            index,
            inv,
            outside: b.outside,
        }));
        self.phase = Phase::Beside;
    }

    /// One step of the grid's run on the others' graph ([`Aside`]); when it
    /// has embedded them, place the few beside them and go on as a placed
    /// plan; when it found no embedding, fall back.
    fn beside_step(&mut self) {
        let vol = self.volumes();
        let Some(a) = self.aside.as_mut() else {
            return;
        };
        let state = a.run.step();
        self.event = a.run.event.clone();
        if let Some(e) = self.event.as_mut() {
            back_event(e, &a.inv);
        }
        if let Some(why) = a.run.fell_back.take() {
            // The others' grid was not embedded: the whole graph falls back.
            let whole = std::mem::take(&mut self.note);
            self.aside = None;
            self.fall_back(format!("{whole}; not embedded: {why}"));
            return;
        }
        for (q, s) in a.run.placement.iter().enumerate() {
            self.placement[a.inv[q] as usize] = *s;
        }
        match state {
            StepState::Running => {
                self.phase = Phase::Beside;
                return;
            }
            StepState::Stopped(Stop::Complete) => {}
            StepState::Stopped(stop) => {
                let why = a
                    .run
                    .error
                    .take()
                    .map_or(format!("{stop:?}"), |e| e.to_string());
                self.fail(Error::Unsupported(why));
                return;
            }
        }
        let (Some(inner), Some((_, hb, _))) = (a.run.mapping.take(), a.run.chosen) else {
            self.fail(Error::Unsupported("the grid's run made no mapping".into()));
            return;
        };
        let best_hb = a.run.best_hb;
        let note = format!("{}; {}", self.note, a.run.note);
        let Some(m) = place_beside(&self.input, &vol, &inner, &a.index, &a.outside) else {
            self.fail(Error::Unsupported(
                "no free slot for the processes outside the grid".into(),
            ));
            return;
        };
        self.note = format!(
            "{note}; process{} outside the grid placed nearest {} heaviest partner",
            if a.outside.len() > 1 { "es" } else { "" },
            if a.outside.len() > 1 { "their" } else { "its" },
        );
        self.event = Some(StepEvent::Whole);
        let cores = self.input.topo.cores();
        self.placement = (0..m.len())
            .map(|p| Some(m.slot(p, cores) as u32))
            .collect();
        if self.refine == Some(false) {
            self.grid_done(m);
            return;
        }
        self.best_hb = best_hb;
        self.start_refine(m, hb);
    }

    fn fall_back(&mut self, why: String) {
        self.note = format!("{why}; mapped by recursive+refine instead");
        self.fell_back = Some(why);
        let info = super::recursive::info_refine();
        let mut input = self.input.clone();
        input.params = info.own_params(&self.input.params);
        match super::prepare(&info, &input) {
            Ok(run) => self.phase = Phase::Fallback(run),
            Err(e) => self.fail(e),
        }
    }

    fn fail(&mut self, e: Error) {
        self.error = Some(e);
        self.stop = Some(Stop::Failed);
        self.phase = Phase::Done;
    }

    fn finish(&mut self, m: Mapping, stop: Stop) {
        let m = self.arranged(m, stop);
        let cores = self.input.topo.cores();
        self.placement = (0..m.len())
            .map(|p| Some(m.slot(p, cores) as u32))
            .collect();
        self.mapping = Some(m);
        self.stop = Some(stop);
        self.phase = Phase::Done;
    }

    /// `m`, or on a mesh (up to [`ARRANGE_MAX`] processes, unless the run
    /// was cancelled or out of time) `m` with the layers of its open
    /// dimensions in their best order ([`arrange::arrange_mapping`]) when
    /// that lowers the hop-bytes and is kept by [`pick_priced`].
    fn arranged(&mut self, m: Mapping, stop: Stop) -> Mapping {
        let Some(net) = self.input.topo.as_grid() else {
            return m;
        };
        if self.input.graph.n() > ARRANGE_MAX
            || matches!(stop, Stop::Cancelled | Stop::TimeLimit)
            || !(0..net.ndims()).any(|t| arrange::arranged_dim(net, t))
        {
            return m;
        }
        let other = arrange::arrange_mapping(&self.input.graph, net, &m);
        if other.node == m.node {
            return m;
        }
        self.keep_better(
            m,
            other,
            "the mapping with the layers of its open dimensions reordered",
        )
    }

    fn recognise_step(&mut self) {
        let Some(net) = self.input.topo.as_grid().cloned() else {
            self.fall_back("the network is not a mesh or torus".into());
            return;
        };
        let vol = Arc::new(pair_volumes(&self.input.graph));
        self.vol = Some(Arc::clone(&vol));
        let read = match self.known.take() {
            Some(h) => Ok(h),
            None => recognise::recognise_or_beside(&self.input.graph, &vol),
        };
        match read {
            Err(recognise::NoGrid {
                why,
                beside: Some(b),
            }) => self.beside_start(why, *b),
            Err(e) => self.fall_back(e.why),
            Ok(h) => {
                let h = canonical::axes(h);
                let share = 1.0 - h.left_out_share();
                if share < self.min_share {
                    self.fall_back(format!(
                        "the best grid found ({}) carries only {:.1}% of the bytes",
                        h.describe(),
                        share * 100.0
                    ));
                    return;
                }
                self.plans = embed::plans(&h, &net);
                if self.plans.is_empty() {
                    let desc = h.describe();
                    self.halo = Some(h);
                    self.fall_back(format!(
                        "recognised a {desc}, but it neither tiles nor folds onto {}",
                        net.spec()
                    ));
                    return;
                }
                let g = &self.input.graph;
                let rank = canonical::grid_order(&h);
                let mut inv = vec![0u32; rank.len()];
                for (p, &q) in rank.iter().enumerate() {
                    inv[q as usize] = p as u32;
                }
                let pairs = canonical::pairs_in_order(g, &rank);
                if pairs.len() > embed::SAMPLE {
                    self.all_pairs = Some(pairs.clone());
                }
                let sample = embed::sample_of(pairs, embed::SAMPLE, self.input.seed);
                self.sample = Some(embed::Scorer::new(g.n(), &sample));
                self.canon = Some((rank, inv));
                self.note = format!(
                    "recognised a {} ({} left out: {} pairs, {:.2}% of the bytes; {})",
                    h.describe(),
                    if h.other_pairs == 0 {
                        "nothing"
                    } else {
                        "some"
                    },
                    h.other_pairs,
                    h.left_out_share() * 100.0,
                    h.found.describe()
                );
                self.event = Some(StepEvent::Whole);
                self.halo = Some(h);
                self.phase = Phase::Choose { next: 0 };
            }
        }
    }

    fn choose_step(&mut self, next: usize) {
        let (Some(h), Some(net)) = (self.halo.as_ref(), self.input.topo.as_grid()) else {
            return;
        };
        let Some(sample) = self.sample.as_mut() else {
            return;
        };
        let end = (next + PLANS_PER_STEP).min(self.plans.len());
        for k in next..end {
            let s = sample.score(&self.plans[k], h, net);
            self.scored.push((s, k));
        }
        let sampled_all = sample.len() == self.input.graph.num_edges();
        if end < self.plans.len() {
            self.phase = Phase::Choose { next: end };
            return;
        }
        // Finalists on every pair, from the scored plans sorted by
        // hop-bytes (then index): only those the choice below reads
        // ([`embed::reachable`]).
        let slack = self.load_budget.max(TIE);
        let least = self
            .scored
            .iter()
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
            .map_or(0.0, |b| b.0);
        self.scored = embed::reachable(&self.plans, &self.scored, least * (1.0 + slack));
        let mut all = if sampled_all {
            self.sample.take()
        } else {
            None
        }
        .unwrap_or_else(|| {
            let g = &self.input.graph;
            let pairs = match (self.all_pairs.take(), &self.canon) {
                (Some(p), _) => p,
                (None, Some((rank, _))) => canonical::pairs_in_order(g, rank),
                (None, None) => g.pairs().map(|(u, v, c)| (u as u32, v as u32, c)).collect(),
            };
            embed::Scorer::new(g.n(), &pairs)
        });
        let top = self.scored.first().map_or(0.0, |b| b.0);
        // The finalists: the best few, up to `TIED` plans tied with the
        // best on the sample (axis permutations of a symmetric grid), and
        // up to `TIED` more within the budget, at most `PER_LEVEL` of each
        // sampled value (a level's plans are mostly symmetric images).
        let mut finalists: Vec<usize> = Vec::new();
        let (mut tied, mut extra, mut level, mut level_count) = (0, 0, f64::NAN, 0);
        for (i, &(s, k)) in self.scored.iter().enumerate() {
            if s > top * (1.0 + slack) && i >= embed::FINALISTS {
                break;
            }
            if !(s <= level * (1.0 + TIE)) {
                (level, level_count) = (s, 0);
            }
            level_count += 1;
            let take = if i < embed::FINALISTS {
                true
            } else if s <= top * (1.0 + TIE) {
                tied += 1;
                tied <= embed::TIED
            } else {
                extra += 1;
                level_count <= embed::PER_LEVEL && extra <= embed::TIED
            };
            if take {
                finalists.push(k);
            }
        }
        finalists.extend(embed::occupancy_finalists(
            &self.plans,
            &self.scored,
            &finalists,
        ));
        // Each finalist's periodic directions are shifted so that its seams
        // (block and fold boundaries) cut the lightest pairs.
        // On a mesh, each finalist whose grid steps are not all one hop is
        // joined by the same plan with the layers of each open dimension in
        // their best order for it ([`arrange`]: which steps of a fold cost
        // one hop and which more then follows the pairs' volumes); both
        // compete, the snake order's max load may be the lower.
        let arrange = self.input.graph.n() <= ARRANGE_MAX
            && (0..net.ndims()).any(|t| arrange::arranged_dim(net, t));
        let mut full: Vec<(f64, usize)> = Vec::with_capacity(2 * finalists.len());
        for &k in &finalists {
            let s = embed::improve_shifts(&mut self.plans[k], h, net, &mut all);
            full.push((s, k));
            if arrange && !embed::unit_steps(&self.plans[k], h, net) {
                let mut p = self.plans[k].clone();
                let a = all.arrange(&mut p, h, net);
                if !p.arrange.is_empty() && a < s {
                    self.plans.push(p);
                    full.push((a, self.plans.len() - 1));
                }
            }
        }
        let best_hb = full.iter().map(|f| f.0).fold(f64::INFINITY, f64::min);
        self.best_hb = best_hb;
        let near: Vec<(f64, usize)> = full
            .into_iter()
            .filter(|f| f.0 <= best_hb * (1.0 + slack))
            .collect();
        let best = if near.len() > 1 {
            // With exact sums, plans that are images of an earlier one
            // under a reflection that is a graph automorphism have its max
            // load: only the first of each class is routed.
            let g = &self.input.graph;
            let mask = if crate::routing::dor_lines::exact(g, net) {
                symmetry::automorphic_reflections(g, h)
            } else {
                0
            };
            let tied: Vec<&Plan> = near.iter().map(|&(_, k)| &self.plans[k]).collect();
            let class = symmetry::classes(&tied, mask);
            let mut diff = Vec::new();
            let mut cands: Vec<(f64, f64)> = Vec::with_capacity(near.len());
            // Each plan's routed (hop-bytes, max load), when routed.
            let mut routed: Vec<Option<(f64, f64)>> = Vec::with_capacity(near.len());
            for (j, &(s, k)) in near.iter().enumerate() {
                let r = match class[j] {
                    c if c < j => None,
                    _ => Some(embed::routed(&self.plans[k], h, &self.input, &mut diff)),
                };
                let ml = r.map_or_else(|| cands[class[j]].1, |r| r.1);
                routed.push(r);
                cands.push((s, ml));
            }
            let i = pick(&cands, slack).unwrap_or(0);
            self.load_tie = Some((near.len(), cands[i].1));
            self.placed_routed = routed[i];
            near.get(i).copied()
        } else {
            near.first().copied()
        };
        if let Some((s, k)) = best {
            let unit = embed::unit_steps(&self.plans[k], h, net);
            self.chosen = Some((k, s, unit));
        }
        self.phase = Phase::Place;
    }

    /// The pair volumes of the graph (`partition::pair_volumes`), made
    /// once for the recognition and the refinements.
    fn volumes(&mut self) -> Arc<Vec<f64>> {
        let g = &self.input.graph;
        Arc::clone(self.vol.get_or_insert_with(|| Arc::new(pair_volumes(g))))
    }

    /// The swap refinement's settings for the own-order rival and the
    /// placed grid: hop-bytes, 30 sweeps, `load_budget` for the bottleneck
    /// phase, no tabu phase, no kicks (they belong to a polish).
    fn refine_params(&self, load_budget: f64) -> RefineParams {
        RefineParams {
            objective: Objective::HopBytes,
            sweeps: 30,
            batch: 256,
            depth: 1,
            time: None,
            seed: self.input.seed,
            tol: 0.001,
            load_budget,
            tabu: 0,
            kicks: 0,
        }
    }

    /// The grid's mapping is made: finish, or (small inputs) start its rival.
    fn grid_done(&mut self, m: Mapping) {
        if self.input.graph.n() > RIVAL_MAX || self.refine == Some(false) {
            self.finish(m, Stop::Complete);
            return;
        }
        let info = super::recursive::info_refine();
        let mut input = self.input.clone();
        input.params = info.own_params(&self.input.params);
        // The rival runs on the graph in the grid's canonical numbering, so
        // that its mapping too depends on the grid, not on the ranks' order.
        if let Some((rank, _)) = &self.canon {
            match canonical::relabel(&self.input.graph, rank) {
                Ok(g) => input.graph = Arc::new(g),
                Err(_) => {
                    self.finish(m, Stop::Complete);
                    return;
                }
            }
        }
        match super::prepare(&info, &input) {
            Ok(run) => {
                let cores = self.input.topo.cores();
                self.placement = (0..m.len())
                    .map(|p| Some(m.slot(p, cores) as u32))
                    .collect();
                self.phase = Phase::Rival(m, run);
            }
            // No rival: the grid's mapping stands.
            Err(_) => self.finish(m, Stop::Complete),
        }
    }

    /// One step of the rival run; at its end keep the better mapping by
    /// [`pick`] (hop-bytes and max link load under dimension-order routing).
    fn rival_step(&mut self, mine: Mapping, mut run: Box<dyn MapperRun>) {
        let s = run.step();
        self.event = run.inspect().last_event().cloned();
        if let (Some(e), Some((_, inv))) = (self.event.as_mut(), &self.canon) {
            back_event(e, inv);
        }
        if s == StepState::Running {
            self.phase = Phase::Rival(mine, run);
            return;
        }
        let theirs = match s {
            StepState::Stopped(Stop::Failed) => None,
            _ => run.result(),
        };
        // Back from the canonical numbering.
        let theirs = match (theirs, &self.canon) {
            (Some(t), Some((rank, _))) => Some(Mapping::new(
                rank.iter().map(|&q| t.node[q as usize]).collect(),
                rank.iter().map(|&q| t.core[q as usize]).collect(),
            )),
            (t, _) => t,
        };
        let Some(theirs) = theirs else {
            self.order_rival(mine, Stop::Complete);
            return;
        };
        let kept = self.keep_better(mine, theirs, "recursive+refine's mapping");
        self.order_rival(kept, Stop::Complete);
    }

    /// The better of `mine` and a rival's mapping `theirs` by [`pick_priced`]
    /// (hop-bytes and max link load under dimension-order routing); the note
    /// says which was kept, naming the rival `who`.
    fn keep_better(&mut self, mine: Mapping, theirs: Mapping, who: &str) -> Mapping {
        self.keep_better_known(mine, None, theirs, who)
    }

    /// [`GridEmbed::keep_better`], with `mine`'s (hop-bytes, max link load)
    /// when known (as the routing gives them). A rival equal to `mine` has
    /// its values and is not kept (a tie keeps `mine`): it is not routed.
    fn keep_better_known(
        &mut self,
        mine: Mapping,
        known: Option<(f64, f64)>,
        theirs: Mapping,
        who: &str,
    ) -> Mapping {
        let (g, t) = (&self.input.graph, &self.input.topo);
        let mut diff = Vec::new();
        let mut score =
            |m: &Mapping| crate::routing::dor_lines::hop_bytes_and_max_load(g, t, m, &mut diff);
        let ours = known.unwrap_or_else(|| score(&mine));
        let same = theirs.node == mine.node && theirs.core == mine.core;
        let cands = [ours, if same { ours } else { score(&theirs) }];
        let sep = if self.note.is_empty() { "" } else { "; " };
        let price = super::recursive::refine::keep_best::LOAD_PRICE;
        if pick_priced(&cands, self.load_budget, price) == Some(1) {
            self.note.push_str(&format!(
                "{sep}{who} kept instead (hop-bytes {:.6e}, max link load {:.6e}, against \
                 {:.6e} and {:.6e})",
                cands[1].0, cands[1].1, cands[0].0, cands[0].1
            ));
            theirs
        } else {
            self.note.push_str(&format!(
                "{sep}{who} (hop-bytes {:.6e}, max link load {:.6e}) did not beat it",
                cands[1].0, cands[1].1
            ));
            mine
        }
    }

    /// The mapping `m` is made (its run stopped with `stop`): on small
    /// inputs (unless `refine=no`, or the run was cancelled or out of time)
    /// start the refinement of the application's own order as its rival,
    /// else finish with `m`.
    fn order_rival(&mut self, m: Mapping, stop: Stop) {
        let n = self.input.graph.n();
        if n > RIVAL_MAX
            || self.refine == Some(false)
            || matches!(stop, Stop::Cancelled | Stop::TimeLimit)
        {
            self.finish(m, stop);
            return;
        }
        let slots: Vec<usize> = (0..n).collect();
        let own = Mapping::from_slots(&slots, &self.input.topo);
        let params = self.refine_params(self.load_budget);
        let r = Refine::new(
            self.input.graph.clone(),
            self.input.topo.clone(),
            self.volumes(),
            own,
            params,
        )
        .search_only();
        self.phase = Phase::Order(m, stop, Box::new(r));
    }

    /// One step of the refinement of the application's own order; at its
    /// end keep the better of it and the mapping made by [`pick`].
    fn order_step(&mut self, mine: Mapping, stop: Stop, mut r: Box<Refine>) {
        r.step();
        if !r.is_done() {
            self.phase = Phase::Order(mine, stop, r);
            return;
        }
        let kept = self.keep_better(
            mine,
            r.mapping(),
            "the application's own rank order after refinement",
        );
        self.finish(kept, stop);
    }

    fn place_step(&mut self) {
        let (Some(h), Some(net), Some((k, hb, unit))) =
            (self.halo.as_ref(), self.input.topo.as_grid(), self.chosen)
        else {
            return;
        };
        let plan = &self.plans[k];
        let (node, core) = plan.mapping(h, net);
        let m = Mapping::new(node, core);
        self.note = format!(
            "{}; embedding {} ({}; hop-bytes {hb:.6e})",
            self.note,
            plan.describe(net),
            if unit {
                "every grid step one hop at most"
            } else {
                "some grid steps over one hop"
            },
        );
        if let Some((count, load)) = self.load_tie {
            self.note.push_str(&format!(
                "; of {count} embeddings within {:.2}% of the least hop-bytes ({:.6e}), the one \
                 of least max link load ({load:.6e})",
                self.load_budget * 100.0,
                self.best_hb
            ));
        }
        let refine = self
            .refine
            .unwrap_or(!unit || h.other_bytes > 0.0 || h.left_out_share() > 0.0);
        self.event = Some(StepEvent::Whole);
        if !refine {
            self.grid_done(m);
            return;
        }
        let cores = self.input.topo.cores();
        self.placement = (0..m.len())
            .map(|p| Some(m.slot(p, cores) as u32))
            .collect();
        self.start_refine(m, hb);
    }

    /// Start the swap refinement of the placed mapping `m`, whose plan had
    /// hop-bytes `hb` (the least of any plan: `best_hb`).
    fn start_refine(&mut self, m: Mapping, hb: f64) {
        // What the plan's choice left of the budget.
        let params = self.refine_params(
            ((1.0 + self.load_budget) * self.best_hb / hb.max(f64::MIN_POSITIVE) - 1.0)
                .clamp(0.0, self.load_budget),
        );
        let r = Refine::new(
            self.input.graph.clone(),
            self.input.topo.clone(),
            self.volumes(),
            m.clone(),
            params,
        );
        self.note.push_str("; then swap refinement");
        self.phase = Phase::Refine(Box::new(r), m);
    }
}

impl Stepper for GridEmbed {
    fn step(&mut self) -> StepState {
        if self.stop.is_some() {
            return self.state();
        }
        match std::mem::replace(&mut self.phase, Phase::Done) {
            Phase::Recognise => self.recognise_step(),
            Phase::Choose { next } => self.choose_step(next),
            Phase::Place => self.place_step(),
            Phase::Refine(mut r, placed) => {
                r.step();
                self.event = Some(StepEvent::Swaps {
                    swapped: r.last_swaps().to_vec(),
                    hop_bytes: r.hop_bytes(),
                });
                if r.is_done() {
                    // The refinement lowers hop-bytes and may raise the max
                    // load: it is kept by the same rule as the plans.
                    let known = self.placed_routed;
                    let kept =
                        self.keep_better_known(placed, known, r.mapping(), "the refined mapping");
                    self.grid_done(kept);
                } else {
                    self.placement = r.placement().to_vec();
                    self.phase = Phase::Refine(r, placed);
                }
            }
            Phase::Beside => self.beside_step(),
            Phase::Rival(mine, run) => self.rival_step(mine, run),
            Phase::Order(mine, stop, r) => self.order_step(mine, stop, r),
            Phase::Fallback(mut run) => {
                let s = run.step();
                self.event = run.inspect().last_event().cloned();
                match s {
                    StepState::Running => {
                        self.placement = run.placement().to_vec();
                        self.phase = Phase::Fallback(run);
                    }
                    StepState::Stopped(Stop::Failed) => {
                        let why = run
                            .error()
                            .map_or("recursive+refine failed".to_string(), |e| e.to_string());
                        self.fail(Error::Unsupported(why));
                    }
                    StepState::Stopped(stop) => match run.result() {
                        Some(m) => self.order_rival(m, stop),
                        None => self.fail(Error::Unsupported(
                            "recursive+refine stopped without a mapping".into(),
                        )),
                    },
                }
            }
            Phase::Done => {}
        }
        self.state()
    }

    fn state(&self) -> StepState {
        match self.stop {
            Some(s) => StepState::Stopped(s),
            None => StepState::Running,
        }
    }

    fn progress(&self) -> Progress {
        let (done, total, phase) = match &self.phase {
            Phase::Recognise => (0, Some(1), "recognise"),
            Phase::Choose { next } => (*next, Some(self.plans.len()), "choose embedding"),
            Phase::Place => (0, Some(1), "place"),
            Phase::Refine(r, _) => {
                let (d, t) = r.progress();
                (d, Some(t), "refine")
            }
            Phase::Fallback(run) => {
                let p = run.progress();
                (p.done, p.total, "recursive+refine")
            }
            Phase::Beside => match &self.aside {
                Some(a) => {
                    let p = a.run.progress();
                    (p.done, p.total, "embed the grid beside the few")
                }
                None => (0, None, ""),
            },
            Phase::Rival(_, run) => {
                let p = run.progress();
                (p.done, p.total, "rival: recursive+refine")
            }
            Phase::Order(_, _, r) => {
                let (d, t) = r.progress();
                (d, Some(t), "rival: the application's order, refined")
            }
            Phase::Done => (1, Some(1), ""),
        };
        Progress { done, total, phase }
    }
}

impl MapperRun for GridEmbed {
    fn placement(&self) -> &[Option<u32>] {
        &self.placement
    }
    fn result(&self) -> Option<Mapping> {
        self.mapping.clone()
    }
    fn error(&self) -> Option<&Error> {
        self.error.as_ref()
    }
    fn inspect(&self) -> super::RunRef<'_> {
        super::RunRef::GridEmbed(self)
    }
}

impl GridEmbed {
    /// What the last step did.
    pub fn last_event(&self) -> Option<&StepEvent> {
        self.event.as_ref()
    }
    /// The recognised grid and the plan chosen (None before recognition).
    pub fn summary(&self) -> Option<String> {
        (!self.note.is_empty()).then(|| self.note.clone())
    }
    /// What the last step reached (None before the first step): the
    /// plans scored, the plan chosen, the refinement, or the fallback
    /// mapper's run when no grid was recognised.
    pub fn last_step(&self) -> Option<GridStep<'_>> {
        self.event.as_ref()?;
        Some(match &self.phase {
            Phase::Choose { next } => GridStep::Scoring {
                scored: *next,
                plans: self.plans.len(),
            },
            Phase::Place => GridStep::Chosen,
            Phase::Refine(r, _) | Phase::Order(_, _, r) => GridStep::Refining {
                hop_bytes: r.hop_bytes(),
            },
            Phase::Fallback(run) => GridStep::Fallback(run.inspect()),
            Phase::Rival(_, run) => GridStep::Rival(run.inspect()),
            Phase::Beside => match &self.aside {
                Some(a) => return a.run.last_step(),
                None => GridStep::Recognised,
            },
            Phase::Recognise | Phase::Done => GridStep::Recognised,
        })
    }
    /// The recognised grid and the plan chosen, as [`GridEmbed::summary`]
    /// words it (empty before recognition).
    pub fn note(&self) -> &str {
        &self.note
    }
}

/// The mapping of every process of `input`'s graph (`vol`: its pair
/// volumes): those inside the grid
/// where `inner` (the others' graph's mapping; `index`: a process's number
/// there, `u32::MAX` outside) puts them, and the `outside` ones, heaviest
/// first, each on the free slot nearest the node of its heaviest placed
/// partner (findNearest, [`crate::find_nearest::KdTree`]; a process with no
/// placed partner nearest node 0). None when a slot is missing. O(n + m +
/// k · findNearest) for k outside processes.
fn place_beside(
    input: &MapperInput,
    vol: &[f64],
    inner: &Mapping,
    index: &[u32],
    outside: &[usize],
) -> Option<Mapping> {
    use crate::find_nearest::{FindNearest, KdTree};
    let (g, net) = (&input.graph, input.topo.as_grid()?);
    let n = g.n();
    let mut finder = KdTree::new(net);
    let (mut node, mut core) = (vec![u32::MAX; n], vec![0u32; n]);
    // The cores taken on each node (the inner mapping's need not be the
    // first ones, which findNearest hands out).
    let mut taken: std::collections::HashMap<u32, Vec<u32>> = std::collections::HashMap::new();
    for p in 0..n {
        if let Some(&q) = index.get(p).filter(|&&q| q != u32::MAX) {
            let (a, c) = (*inner.node.get(q as usize)?, *inner.core.get(q as usize)?);
            (node[p], core[p]) = (a, c);
            finder.take(a as usize)?;
            taken.entry(a).or_default().push(c);
        }
    }
    let off = g.offsets();
    let mut order: Vec<(f64, usize)> = (outside.iter())
        .map(|&p| (vol[off[p]..off[p + 1]].iter().sum::<f64>(), p))
        .collect();
    order.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    for (_, p) in order {
        let partner = (g.neighbors(p).iter().zip(&vol[off[p]..off[p + 1]]))
            .filter(|&(&v, _)| node[v as usize] != u32::MAX)
            .fold(None, |best: Option<(u32, f64)>, (&v, &w)| match best {
                Some((_, bw)) if bw >= w => best,
                _ => Some((v, w)),
            });
        let desired: Vec<f64> = match partner {
            Some((v, _)) => {
                let c = net.coord(node[v as usize] as usize);
                c[..net.ndims()].iter().map(|&x| x as f64).collect()
            }
            None => vec![0.0; net.ndims()],
        };
        let a = finder.find(&desired)? as u32;
        finder.take(a as usize)?;
        let used = taken.entry(a).or_default();
        let c = (0..net.cores()).find(|c| !used.contains(c))?;
        used.push(c);
        (node[p], core[p]) = (a, c);
    }
    Some(Mapping::new(node, core))
}

/// Renumber the processes an event names from the canonical numbering
/// back to the ranks' (`inv[q]` = the rank numbered q). O(event size).
fn back_event(e: &mut StepEvent, inv: &[u32]) {
    let back = |q: &mut usize| {
        if let Some(&p) = inv.get(*q) {
            *q = p as usize;
        }
    };
    match e {
        StepEvent::Placed { process, .. } => back(process),
        StepEvent::Swaps { swapped, .. } => {
            for (p, q) in swapped.iter_mut() {
                back(p);
                back(q);
            }
        }
        StepEvent::Group { processes } => processes.iter_mut().for_each(back),
        StepEvent::Whole => {}
    }
}

/// What the last step of `grid` reached ([`GridEmbed::last_step`]).
#[derive(Clone, Copy)]
pub enum GridStep<'a> {
    /// The grid was recognised (or the run is done).
    Recognised,
    /// `scored` of the `plans` embedding plans are scored.
    Scoring { scored: usize, plans: usize },
    /// The plan was chosen (of those within the load budget of the least
    /// hop-bytes, the one of least max link load) and placed.
    Chosen,
    /// The swap refinement runs; hop-bytes now.
    Refining { hop_bytes: f64 },
    /// No grid was recognised: the fallback mapper's run.
    Fallback(super::RunRef<'a>),
    /// The grid's mapping is made; `recursive+refine` runs as its rival
    /// (small inputs): that run.
    Rival(super::RunRef<'a>),
}
