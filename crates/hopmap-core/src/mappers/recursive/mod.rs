//! `recursive` and `recursive+refine`: general mappers that need no
//! coordinates and run on every topology (meshes, tori, several cores per
//! node, and any topology that answers `distance`/`neighbors`). They go
//! beyond the seed papers:
//!
//! * construction — dual recursive bipartitioning (Pellegrini; the method
//!   of Scotch's `gmap`), [`drb`]: the communication graph is bisected by
//!   the multilevel partitioner of [`crate::partition`] in step with the
//!   topology ([`domain`]), down to single nodes whose cores are filled by
//!   the processes that reached them. The bisections of the top two levels
//!   keep the best of `vcycles` independent multilevel runs, and on meshes
//!   and tori the finished tree's boxes are mirrored where that lowers
//!   hop-bytes ([`orient`]); from 1,025 processes of 8 to 16 partners each
//!   the external pull's ties through a ring's wrap are broken by the
//!   unwrapped distance ([`unwrap`]). Moh et al.'s BM (§4.2) is the same scheme with
//!   Kernighan–Lin on both graphs (without those two additions); it reuses
//!   [`crate::partition::bisect()`].
//! * refinement — swap/move local search on the true objective (hop-bytes,
//!   or channel loads under dimension-order routing) over the nodes of each
//!   process's partners (VieM's N_C^d, Schulz & Träff), [`refine`], started
//!   from the recursive mapping; up to 1,024 processes (and, polishing
//!   the best of several runs, up to 4,096 on sparse inputs,
//!   [`sparse_large`]) a seeded
//!   first-improvement descent over the same neighbourhood
//!   ([`refine::descent`]); up to 256 processes on meshes and tori a
//!   robust tabu search over swaps (Taillard 1991, [`refine::tabu`]);
//!   on fat trees (host distances that nest) exchanges of the whole
//!   contents of two hosts, leaf switches or pods ([`refine::blocks`]),
//!   one at a time or, where none alone helps, two
//!   ([`refine::block_pairs`]); then a bottleneck
//!   phase (beyond VieM too)
//!   relieves the busiest channel under dimension-order routing, exchange by
//!   exchange (or, where no single exchange helps, by a pair of them:
//!   [`refine::chain`]), never raising the largest load and letting hop-bytes rise by
//!   at most `load_budget` (1 % by default) — see [`refine`] for its cost.
//!
//! As steppers: one construction step = one bisection of one subproblem;
//! one refinement step = one batch of processes; one bottleneck step = the
//! routes of a chunk of processes (set-up) or the exchanges tried around the
//! busiest channels, up to 2 × `batch` of them; one tabu step = about 2^20
//! pair updates of its delta matrix. `start()` only allocates.
//! With several runs (`runs`, automatic below 4,096 processes, and up to
//! 4,096 on sparse inputs, from the size and the pairs: [`auto_runs`],
//! [`sparse_large`]), the first half are stepped (and
//! animated) and the rest run meanwhile on a background thread, seeded
//! the same way; the best is kept with the same tie-break as running them
//! in turn, so the result does not depend on the
//! thread (a property test compares both). Dropping the run stops that
//! thread. Runs are compared by objective, then hop-bytes, then (only when
//! both tie) max link load under dimension-order routing
//! (`Recursive::offer`); when the best run is then polished, the run polished
//! is, of the runs within 0.5 % of its hop-bytes (`LOAD_TIE`), the one of
//! least max link load (`Recursive::prefer_lower_load`). Every run cuts
//! boxes whose dimensions tie (the 2 × 2 × 2 halves of a 2 × 2 × 4 torus)
//! across the lowest of them; up to [`TIE_RUNS_MAX`] processes, on machines of up to [`TIE_NODES_MAX`]
//! nodes, the automatic runs add one run for each other
//! order of the dimensions that changes the machine's box tree
//! ([`tie_orders`]: the highest first, and z, x, y), so the tie's
//! orientations are built and the comparison keeps, at equal hop-bytes,
//! the one whose traffic loads the links least (the other runs are the
//! same as without them, so the best run's hop-bytes never rise; the
//! phases after it start from that run). On switch fabrics with more
//! slots than processes the automatic runs are made twice: once sharing
//! the job between the halves of each cut in proportion to their slots,
//! once filling each half's slots before the next ([`Drb::with_fill`], so
//! the job takes whole hosts and switches); the comparison keeps the
//! better. With the `hopbytes` objective each run's refinement stops with
//! its search (and on small inputs its tabu phase, which gains from the
//! runs' different starts), and only the best run's mapping then goes through the
//! descent and the bottleneck phase ([`Refine::polish`], stepped here): the
//! same hop-bytes on average as carrying every run through them, in a
//! quarter of their time at 4 runs. Below 1,024 processes, with
//! `load_budget` above 0 (on any network), more runs of that 0.5 % window go through them
//! after it, and one replaces the result when it pays for its hop-bytes
//! with max link load ([`alternatives`]). Since the runs' searches only rank the
//! runs, they stop once a sweep gains less than `run_tol` (1 %, instead of
//! `tol`'s 0.1 %): the same hop-bytes on average over 72 mappings of the
//! METIS meshes of 512 and 1,024 parts, 7 % fewer instructions at 1,024
//! (`docs/mapping-quality.md`, "Exact small bisections and shorter run
//! searches"). The application's own rank order (process p on slot p) is
//! then a last candidate, kept when it has
//! fewer hop-bytes than that result ([`Recursive::summary`] says so).
//! The GUI reads the bipartition tree so far with [`Recursive::tree`] and the
//! falling hop-bytes with [`RunRef::hop_bytes_trace`](super::RunRef::hop_bytes_trace).

pub mod alternatives;
pub mod domain;
pub mod drb;
pub mod groups_first;
pub mod orient;
pub mod refine;
pub mod sparse_large;
pub mod unwrap;

use super::{MapperInfo, MapperInput, MapperRun, ParamKind, ParamSpec, StepEvent};
use crate::error::{Error, Result};
use crate::mappers::Networks;
use crate::mapping::Mapping;
use crate::partition::{BisectParams, pair_volumes};
use crate::step::{Progress, StepState, Stepper, Stop};
use domain::DimTies;
use drb::{Drb, TreeNode};
use refine::{Objective, Refine, RefineParams, RefineStop};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

pub fn info() -> MapperInfo {
    MapperInfo {
        id: "recursive",
        name: "Recursive bipartitioning (dual, no coordinates)",
        paper: "beyond the seeds: Pellegrini's dual recursive bipartitioning (Scotch gmap); \
                Moh et al. §4.2 (BM) uses the same core",
        doc: "Cut the machine in two halves and the communication graph in two parts that fit \
              them, with as little traffic between the parts as possible (multilevel: coarsen \
              by heavy-edge matching, grow an initial cut, refine with Fiduccia–Mattheyses); \
              a process whose partners already sit on one side is pulled to that side (from \
              1,025 processes of 8 to 16 partners each, when both sides are equally far only \
              because of a ring's wraparound, to the side nearer without it). Repeat \
              on each half until a half is one node, whose cores take the processes that reached \
              it. The top two levels' cuts are the best of several multilevel runs \
              (`vcycles`); on meshes and tori each box of the finished tree is then mirrored \
              where that shortens the traffic leaving it (`orient`). Needs no coordinates; \
              works on meshes, tori, multicore nodes and any network with distances. Params: \
              runs, pack, tries, vcycles, orient, imbalance, light, group.",
        needs_coords: false,
        randomized: true,
        params: CONSTRUCT_PARAMS,
        networks: Networks::Any,
        per_node_state: true,
        external: None,
        start: start_plain,
    }
}

pub fn info_refine() -> MapperInfo {
    MapperInfo {
        id: "recursive+refine",
        name: "Recursive bipartitioning + swap refinement",
        paper: "beyond the seeds: Pellegrini's dual recursive bipartitioning (Scotch gmap), then \
                VieM's N_C^d swap local search (Schulz & Träff)",
        doc: "Build the recursive-bipartitioning mapping, then improve it by local search on the \
              real objective: for each process, try moving it to a free core or swapping it \
              with a process on the nodes of its partners (and their neighbours, `depth`), and \
              keep the best exchange that lowers the objective. `objective=hopbytes` (default), \
              `sqload` (sum of squared channel loads under dimension-order routing) or \
              `maxload` (the busiest channel) for users who care about congestion. Stops at a \
              local optimum or when a sweep gains less than `tol`. Up to 1,024 processes (up \
              to 4,096, after several runs, when they have at most 8 partners each on average) a \
              seeded first-improvement descent then samples the same neighbourhood at random \
              (64 tries per process at most) and keeps every exchange that lowers hop-bytes; \
              below 1,024 processes on meshes and tori the best of several runs is then kicked (an iterated \
              local search, Lourenço, Martin & Stützle 2003: 8 kicks per process, each a few \
              random exchanges among a process and its partners and a local descent from \
              them, undone unless hop-bytes fall). \
              Up to 256 processes on meshes and tori of up to 512 slots (and on switch \
              fabrics the job fills at least half of) a robust tabu search (Taillard 1991) also \
              runs, after each \
              run's search (after the descent with one run): `tabu` iterations per process, \
              each the best swap of two processes (or a process and a free core) on nodes \
              some hops apart that is not tabu; its best mapping is kept if it lowers hop-bytes \
              (or, on meshes and tori, keeps them with a lower max link load). \
              On switch fabrics whose host distances nest (fat trees: hosts, leaf switches, \
              pods), a block phase then exchanges the whole contents of two hosts, two leaves' \
              hosts or two pods of as many hosts under different parents, each time the \
              exchange that lowers hop-bytes most, while one does, and then the pair of such \
              exchanges on disjoint hosts that lowers them most together (in every run on \
              fat trees of up to 64 hosts, after the descent on those of up to 512), while one does \
              (after each run's search and tabu search, and after the descent). \
              Then (beyond the seeds and VieM) a bottleneck phase relieves the busiest channel under dimension-order \
              routing: it re-routes only the messages of the processes whose traffic crosses \
              that channel, keeps exchanges that lower its load without raising another channel \
              to the maximum (where no single one does, a pair: the second brings back the \
              channel the first raised; Glover's ejection chains), and lets hop-bytes rise by at most `load_budget` (default 1 %; \
              measured: max link load 0.55–0.93 × Scotch's instead of up to 1.13 ×, for \
              +0–0.3 % hop-bytes and up to about 10 % more time); below 1,024 processes, once \
              stuck within it, it looks further and may spend one more per cent of hop-bytes \
              beyond the budget for each ten per cent less max load, and it ends at the best \
              state it saw (least max load at that price, then least hop-bytes). Small inputs are mapped `runs` \
              times with different seeds (each with its tabu search; up to 256 processes on \
              meshes and tori of up to 4,096 nodes, one or two more runs cut boxes whose dimensions tie in other \
              orders of the dimensions; on switch fabrics with spare slots, as many again \
              fill each half's slots before the next instead of sharing the job in \
              proportion) and, of the runs within 0.5 % of the least hop-bytes, the one of least \
              max link load is kept and carried on through the descent and the bottleneck phase \
              (below 1,024 processes, up to 8 more of them too, fewer above 2,048 pairs, one replacing the result when it \
              has fewer hop-bytes at no more max load, or pays for its hop-bytes at that price); \
              the application's own rank order (process p on slot p) is kept instead when it \
              has fewer hop-bytes than that result. \
              Params: objective, depth, sweeps, batch, time_ms, tol, run_tol, load_budget, tabu, \
              runs, pack, tries, vcycles, orient, imbalance, light, group.",
        needs_coords: false,
        randomized: true,
        params: REFINE_PARAMS,
        networks: Networks::Any,
        per_node_state: true,
        external: None,
        start: start_refine,
    }
}

const PACK: ParamSpec = ParamSpec {
    key: "pack",
    kind: ParamKind::Choice(&["auto", "yes", "no"]),
    default: "auto",
    help: "with fewer processes than slots: `yes` packs them into the smallest part of the \
           machine that holds them (least hop-bytes), `no` spreads them over the whole machine \
           (less link contention); `auto`: `no` for the load objectives of recursive+refine, \
           else `yes`",
};

const TRIES: ParamSpec = ParamSpec {
    key: "tries",
    kind: ParamKind::Int { min: 1, max: 64 },
    default: "8",
    help: "initial cuts grown from this many seeds on each coarsest graph (best kept)",
};

const VCYCLES: ParamSpec = ParamSpec {
    key: "vcycles",
    kind: ParamKind::Text,
    default: "auto",
    help: "independent multilevel runs (1 to 16) for each bisection of the top two levels of \
           the tree, the cheapest cut kept (1 = one run, as Scotch; auto: 4, and 2 with \
           automatic runs on inputs of at least 1,024 processes with more than 16 partners \
           each on average)",
};

/// V-cycles when `vcycles` is `auto` and the input is not dense
/// ([`dense_large`]).
const VCYCLES_AUTO: usize = 4;

/// The `vcycles` parameter: a number from 1 to 16, or None for `auto`.
fn vcycles_param(input: &MapperInput) -> Result<Option<usize>> {
    let v = input.get::<String>(CONSTRUCT_PARAMS, "vcycles")?;
    let v = v.trim();
    if v.eq_ignore_ascii_case("auto") {
        return Ok(None);
    }
    v.parse::<usize>()
        .ok()
        .filter(|k| (1..=16).contains(k))
        .map(Some)
        .ok_or_else(|| {
            Error::spec(
                "mapper parameter",
                &format!("vcycles={v}"),
                "expected auto or a number from 1 to 16",
            )
        })
}

const ORIENT: ParamSpec = ParamSpec {
    key: "orient",
    kind: ParamKind::Choice(&["yes", "no"]),
    default: "yes",
    help: "mesh/torus: at the end of the construction, mirror each box of the tree where that \
           lowers hop-bytes (its processes' external edges decide)",
};

const IMBALANCE: ParamSpec = ParamSpec {
    key: "imbalance",
    kind: ParamKind::Float { min: 0.0, max: 0.5 },
    default: "0",
    help: "when there are fewer processes than slots: allowed deviation from the proportional \
           share of each half, as a fraction (slot capacities are always respected)",
};

const LIGHT: ParamSpec = ParamSpec {
    key: "light",
    kind: ParamKind::Float { min: 0.0, max: 1.0 },
    default: "0",
    help: "coarsening matches a process only along pairs of at least this fraction of its \
           heaviest pair, so many light pairs (FFT transposes, coarse multigrid levels) do not \
           merge unrelated processes (0 = plain heavy-edge matching)",
};

const GROUP: ParamSpec = ParamSpec {
    key: "group",
    kind: ParamKind::Choice(&["no", "first"]),
    default: "no",
    help: "several cores per node (mesh/torus): `first` splits the processes into node-sized \
           groups of the heaviest communication first, then maps the groups onto the nodes \
           (`no`: processes and machine are bisected together down to single nodes)",
};

const CONSTRUCT_PARAMS: &[ParamSpec] = &[
    ParamSpec {
        key: "runs",
        kind: ParamKind::Int { min: 1, max: 64 },
        default: "1",
        help: "independent constructions with different seeds; the one of least hop-bytes is kept",
    },
    PACK,
    TRIES,
    VCYCLES,
    ORIENT,
    IMBALANCE,
    LIGHT,
    GROUP,
];

const REFINE_PARAMS: &[ParamSpec] = &[
    ParamSpec {
        key: "objective",
        kind: ParamKind::Choice(&["hopbytes", "maxload", "sqload"]),
        default: "hopbytes",
        help: "what the refinement lowers: hop-bytes, the largest channel load, or the sum of \
               squared channel loads (both under dimension-order routing)",
    },
    ParamSpec {
        key: "depth",
        kind: ParamKind::Choice(&["auto", "0", "1", "2", "3"]),
        default: "auto",
        help: "candidate nodes: the partners' nodes and every node within this many hops of \
               them (auto: 0 when several runs are made, above 2,048 processes when \
               processes have more than 8 partners on average, and from 1,024 when they have \
               more than 16; else 1)",
    },
    ParamSpec {
        key: "sweeps",
        kind: ParamKind::Int {
            min: 0,
            max: 1_000_000,
        },
        default: "30",
        help: "at most this many sweeps over all processes (0 = keep the recursive mapping)",
    },
    ParamSpec {
        key: "batch",
        kind: ParamKind::Int {
            min: 1,
            max: 1_000_000,
        },
        default: "256",
        help: "processes tried per step (one point of the hop-bytes plot)",
    },
    ParamSpec {
        key: "time_ms",
        kind: ParamKind::Int {
            min: 0,
            max: 86_400_000,
        },
        default: "0",
        help: "stop refining after this many milliseconds (0 = no budget; a budget makes the \
               result depend on the machine's speed)",
    },
    ParamSpec {
        key: "tol",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        default: "0.001",
        help: "stop when a sweep lowers the objective by less than this fraction (0 = only at a \
               local optimum)",
    },
    ParamSpec {
        key: "run_tol",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        default: "0.01",
        help: "with several runs and the hopbytes objective: each run's search stops when a \
               sweep lowers hop-bytes by less than this fraction (the best run is then carried \
               on by the descent, so its search need not reach `tol`)",
    },
    ParamSpec {
        key: "load_budget",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        default: "0.01",
        help: "after the search, relieve the busiest channel (dimension-order routing) by \
               exchanges around it, letting hop-bytes rise by at most this fraction (below \
               1,024 processes, plus 0.1 × the max load's relative fall); the \
               largest load never rises (0 = off, the search's result as before; not run for \
               sqload, nor on a network with over 64 channels per communicating pair of the \
               graph, to keep memory proportional to the input)",
    },
    ParamSpec {
        key: "tabu",
        kind: ParamKind::Text,
        default: "auto",
        help: "on inputs of at most 256 processes on meshes and tori of at most 512 slots, and \
               on switch fabrics of at most 512 slots the job fills at least half of, after \
               each run's search (after the descent with one run): a robust tabu search \
               (Taillard 1991) over swaps of two processes, or a process and a free core, on \
               nodes some hops apart, this many iterations per process (auto: about 2^26 pair updates of its delta matrix per run, at most 64 \
               per process: 64 at 64 processes, 4 at 256); it keeps its best mapping only when \
               that lowers hop-bytes, or (meshes and tori) keeps them with a lower max link load \
               (0 = off)",
    },
    ParamSpec {
        key: "kicks",
        kind: ParamKind::Int { min: 0, max: 1024 },
        default: "8",
        help: "on meshes and tori below 1,024 processes, after the descent of the best run: \
               this many kicks per process (an iterated local search: a few random exchanges \
               among a process and its partners, then a local descent, undone unless \
               hop-bytes fall; the phase also stops after 8,192 units of work per adjacency \
               entry) (0 = off)",
    },
    ParamSpec {
        key: "runs",
        kind: ParamKind::Int { min: 0, max: 64 },
        default: "0",
        help: "independent construction + refinement runs with different seeds, the best kept \
               (0 = automatic: 4096 / processes, at most 16384 / communicating pairs but, \
               below 1,024 processes, at least 2048 / processes, from 1,025 to 4,096 processes with at \
               most 8 partners each on average at least 2, between 1 and 4, and up to 256 processes on \
               meshes and tori one or two more that cut tied box dimensions in other orders)",
    },
    PACK,
    TRIES,
    VCYCLES,
    ORIENT,
    IMBALANCE,
    LIGHT,
    GROUP,
];

fn bisect_params(input: &MapperInput) -> Result<BisectParams> {
    Ok(BisectParams {
        tries: input.get::<usize>(CONSTRUCT_PARAMS, "tries")?.max(1),
        imbalance: input.get(CONSTRUCT_PARAMS, "imbalance")?,
        light: input.get(CONSTRUCT_PARAMS, "light")?,
        // On switch fabrics the exact bisection's equal cuts (same
        // hop-bytes) put up to 2.1 × the max link load of the grown cuts
        // on 64-rank captures (fattree:4:3:cores=4): grown cuts there.
        exact: if input.topo.as_fabric().is_some() {
            0
        } else {
            BisectParams::default().exact
        },
        ..BisectParams::default()
    })
}

/// Whether `group=first` applies: asked for, and several cores per node.
fn group_first(input: &MapperInput) -> Result<bool> {
    Ok(input.topo.cores() > 1
        && input
            .get::<String>(CONSTRUCT_PARAMS, "group")?
            .trim()
            .eq_ignore_ascii_case("first"))
}

fn start_plain(input: &MapperInput) -> Result<Box<dyn MapperRun>> {
    input.check_fits()?;
    let runs = input.get(CONSTRUCT_PARAMS, "runs")?;
    if group_first(input)? {
        return Ok(Box::new(groups_first::GroupsFirst::new(input, None, runs)?));
    }
    Ok(Box::new(Recursive::new(input, None, runs)?))
}

/// The `tabu` parameter: iterations per process, or `auto`
/// ([`refine::tabu::AUTO`]).
fn tabu_param(input: &MapperInput) -> Result<usize> {
    let v = input.get::<String>(REFINE_PARAMS, "tabu")?;
    let v = v.trim();
    if v.eq_ignore_ascii_case("auto") {
        return Ok(refine::tabu::AUTO);
    }
    v.parse::<usize>()
        .ok()
        .filter(|&k| k < refine::tabu::AUTO)
        .ok_or_else(|| {
            Error::spec(
                "mapper parameter",
                &format!("tabu={v}"),
                "expected auto or a number of iterations per process",
            )
        })
}

fn start_refine(input: &MapperInput) -> Result<Box<dyn MapperRun>> {
    input.check_fits()?;
    let objective = match input.param("objective") {
        None => Objective::HopBytes,
        Some(s) => Objective::parse(s).ok_or_else(|| {
            Error::spec(
                "mapper parameter",
                &format!("objective={s}"),
                "expected hopbytes, maxload or sqload",
            )
        })?,
    };
    // Defaults come from the registry's schema (one place).
    let p = REFINE_PARAMS;
    let time_ms: u64 = input.get(p, "time_ms")?;
    let rp = RefineParams {
        objective,
        sweeps: input.get(p, "sweeps")?,
        batch: input.get::<usize>(p, "batch")?.max(1),
        depth: match input.get::<String>(p, "depth")?.trim() {
            "auto" => u32::MAX,
            _ => input.get(p, "depth")?,
        },
        time: (time_ms > 0).then(|| Duration::from_millis(time_ms)),
        seed: input.seed,
        tol: input.get(p, "tol")?,
        load_budget: input.get(p, "load_budget")?,
        tabu: tabu_param(input)?,
        kicks: input.get::<usize>(REFINE_PARAMS, "kicks")?,
    };
    let runs = input.get(p, "runs")?;
    if group_first(input)? {
        return Ok(Box::new(groups_first::GroupsFirst::new(
            input,
            Some(rp),
            runs,
        )?));
    }
    Ok(Box::new(Recursive::new(input, Some(rp), runs)?))
}

/// The recursive mapper as a stepper: construction, then (optionally)
/// refinement; repeated `runs` times with different seeds, the best result
/// kept.
pub struct Recursive {
    input: MapperInput,
    vol: Arc<Vec<f64>>,
    construct: Construct,
    drb: Drb,
    refine_params: Option<RefineParams>,
    refine: Option<Refine>,
    /// Distance oracle shared by the runs' refinements (built once).
    dist: Option<Arc<refine::Dist>>,
    runs: usize,
    /// Whether each run's refinement stops with its search and only the
    /// best run's mapping goes through the phases after it
    /// ([`Refine::polish`]): several runs, objective `hopbytes`.
    polish: bool,
    /// Whether that last refinement is in progress.
    polishing: bool,
    /// Runs still to polish after the first ([`alternatives`]; the next
    /// one last), why the runs' search stopped, and the polished result
    /// kept so far: (objective, hop-bytes, mapping, max link load; the
    /// load is NaN when no other run is polished).
    alternatives: Vec<Mapping>,
    /// How many runs were chosen to be polished after the first.
    alt_total: usize,
    polish_why: RefineStop,
    polished: Option<(f64, f64, Mapping, f64)>,
    /// Runs 0..visible are stepped here (and animated); runs visible..runs
    /// are computed meanwhile on a background thread ([`Background`]).
    visible: usize,
    background: Option<Background>,
    run: usize,
    /// (objective, hop-bytes, mapping) of the best finished run.
    best: Option<(f64, f64, Mapping)>,
    /// When the application's own rank order replaced the result: (its
    /// hop-bytes, the polished best run's).
    own_order: Option<(f64, f64)>,
    /// The best run's max link load, once a tie needed it ([`Self::offer`]).
    best_load: Option<f64>,
    /// Every finished run (objective, hop-bytes, mapping) while polishing
    /// is on, for [`Self::prefer_lower_load`].
    finished: Vec<(f64, f64, Mapping)>,
    trace: Vec<f64>,
    /// The best mapping's slots, once done (before: the current run's).
    placement: Vec<Option<u32>>,
    event: Option<StepEvent>,
    done: bool,
    /// Why the last run's refinement stopped (Complete for construction only).
    stop: Stop,
    /// What the last step did, and the run it belonged to.
    last: Option<(usize, LastStep)>,
}

/// What a step of [`Recursive`] did (recorded in O(1) or O(swaps) during
/// the step; read by [`Recursive::last_step`]).
#[derive(Clone, Debug, PartialEq)]
pub enum LastStep {
    /// A construction step; when it finished the construction, the
    /// hop-bytes of the mapping built and whether the refinement starts.
    Construct(Option<drb::DrbStep>, Option<(f64, bool)>),
    /// A refinement batch: swaps and moves kept, hop-bytes before and
    /// after, whether the refinement stopped, and for a step of the
    /// bottleneck phase the largest channel load at its start and now, and
    /// whether the step was its set-up; for a step of the tabu phase its
    /// iterations so far, its budget and the best hop-bytes it has found
    /// (the mapping is the refinement's until the phase ends); for a step
    /// of the block phase ([`refine::blocks`]) the exchanges of two
    /// subtrees' contents it has made; for a step of the kick phase
    /// ([`refine::kicks`]) the kicks it has kept.
    Refine {
        swaps: usize,
        moves: usize,
        before: f64,
        after: f64,
        stopped: bool,
        load: Option<(f64, f64, bool)>,
        tabu: Option<(u64, u64, f64)>,
        blocks: Option<usize>,
        kicks: Option<usize>,
    },
}

fn run_seed(seed: u64, run: usize) -> u64 {
    seed.wrapping_add((run as u64).wrapping_mul(0xA076_1D64_78BD_642F))
}

impl Recursive {
    /// Cheap: the pair volumes (O(m)) and empty state. `runs` = 0 picks
    /// the number of runs from the size and the pairs (see [`auto_runs`]).
    pub fn new(input: &MapperInput, refine: Option<RefineParams>, runs: usize) -> Result<Self> {
        let vol = Arc::new(pair_volumes(&input.graph));
        let contention = refine.is_some_and(|r| r.objective != Objective::HopBytes);
        let pack = match input.param("pack").map(|v| v.trim().to_ascii_lowercase()) {
            Some(v) if v == "yes" => true,
            Some(v) if v == "no" => false,
            _ => !contention,
        };
        let n = input.graph.n();
        let auto = runs == 0;
        let base = if auto {
            auto_runs(n, input.graph.num_edges())
        } else {
            runs
        };
        let mut ties = TieRuns {
            base,
            ..TieRuns::default()
        };
        if auto && n <= TIE_RUNS_MAX && input.topo.num_nodes() <= TIE_NODES_MAX {
            for (k, t) in tie_orders(&input.topo).into_iter().enumerate() {
                ties.alt[k] = t;
                ties.extra = k + 1;
            }
        }
        // On node sets with spare slots, as many runs again fill hosts half
        // by half ([`Drb::with_fill`]): on LAMMPS peptide (200 ranks, 512
        // slots of `fattree:8:3:cores=4`, shuffled) filling gave 0.72 × the
        // hop-bytes of proportional shares, on an OpenFOAM METIS partition
        // (100 ranks) 1.10 ×; the runs keep the better.
        let fill_runs = if auto && input.topo.as_grid().is_none() && input.topo.num_slots() > n {
            base
        } else {
            0
        };
        let runs = base + ties.extra + fill_runs;
        // Adjacency entries per process (twice the pairs over n).
        let mean_degree =
            input.graph.offsets().last().copied().unwrap_or(0) as f64 / n.max(1) as f64;
        let dense = auto && dense_large(n, mean_degree);
        let vcycles = match vcycles_param(input)? {
            Some(k) => k,
            None if dense => DENSE_VCYCLES,
            None => VCYCLES_AUTO,
        };
        let construct = Construct {
            bparams: bisect_params(input)?,
            pack,
            vcycles,
            orient: !input
                .get::<String>(CONSTRUCT_PARAMS, "orient")?
                .trim()
                .eq_ignore_ascii_case("no"),
            unwrap: unwrap::applies(n, mean_degree),
            ties,
        };
        let drb = construct.drb(input, &vol, 0);
        // depth auto (u32::MAX): 0 with several runs, above
        // [`DEPTH0_ABOVE`] processes when the mean degree is above 8
        // (`scripts/vs_scotch.sh`: on the 3D graphs, degree ≈ 13, depth 1
        // doubled the time for 1.5–2.7% fewer hop-bytes; on the 2D ones,
        // degree ≈ 6, it costs a third as much and gains 2–3%), and on the
        // dense inputs of [`dense_large`]; else 1.
        let polish = runs > 1 && refine.is_some_and(|r| r.objective == Objective::HopBytes);
        // With polishing, the runs' searches only rank the runs: they stop
        // at `run_tol` (measured over 72 mappings of the METIS meshes:
        // the same hop-bytes on average as `tol`, 7 % fewer instructions
        // at 1,024 processes; docs/mapping-quality.md).
        let run_tol = if polish {
            input.get::<f64>(REFINE_PARAMS, "run_tol")?.max(0.0)
        } else {
            0.0
        };
        let refine = refine.map(|r| RefineParams {
            depth: match r.depth {
                u32::MAX if runs > 1 || (n > DEPTH0_ABOVE && mean_degree > 8.0) || dense => 0,
                u32::MAX => 1,
                d => d,
            },
            tol: r.tol.max(run_tol),
            ..r
        });
        Ok(Recursive {
            input: input.clone(),
            vol,
            construct,
            drb,
            refine_params: refine,
            refine: None,
            dist: None,
            runs,
            polish,
            polishing: false,
            alternatives: Vec::new(),
            alt_total: 0,
            polish_why: RefineStop::LocalOptimum,
            polished: None,
            own_order: None,
            visible: runs.div_ceil(2),
            background: None,
            run: 0,
            best: None,
            best_load: None,
            finished: Vec::new(),
            trace: Vec::new(),
            placement: vec![None; input.graph.n()],
            event: None,
            done: input.graph.n() == 0,
            stop: Stop::Complete,
            last: None,
        })
    }

    /// The bipartition tree of the current run so far (finished
    /// subproblems, breadth-first).
    pub fn tree(&self) -> &[TreeNode] {
        self.drb.tree()
    }

    /// The refinement's objective after each step of the current run.
    pub fn objective_trace(&self) -> &[f64] {
        self.refine.as_ref().map_or(&[], |r| r.objective_trace())
    }

    /// Whether the construction is over and the refinement (if any) runs.
    pub fn refining(&self) -> bool {
        self.refine.is_some()
    }

    /// The run in progress (0-based) and the number of runs.
    pub fn runs(&self) -> (usize, usize) {
        (self.run, self.runs)
    }

    /// The subproblems of the current run still waiting to be cut (level,
    /// processes, domain), for drawing the tree.
    pub fn pending(&self) -> impl Iterator<Item = (u32, &[u32], &domain::Domain)> + '_ {
        self.drb.pending()
    }

    /// Bisections of the current run so far.
    pub fn bisections(&self) -> usize {
        self.drb.counts().0
    }

    /// The number of processes.
    pub fn num_processes(&self) -> usize {
        self.input.graph.n()
    }

    /// Hop-bytes after each refinement step, over all runs.
    pub fn trace(&self) -> &[f64] {
        &self.trace
    }

    fn end_run(&mut self, obj: f64, hb: f64, m: Mapping) {
        self.offer(obj, hb, m);
        self.refine = None;
        self.run += 1;
        if self.run >= self.visible {
            // The background runs, in run order: the same strict comparison
            // as above keeps the result identical to running them in turn.
            if let Some(bg) = self.background.take() {
                for (obj, hb, m) in bg.join() {
                    self.offer(obj, hb, m);
                }
            }
            self.prefer_lower_load();
            if let (true, Some((_, _, m))) =
                (self.polish && self.refine_params.is_some(), &self.best)
            {
                // The best run's mapping goes through the phases after the
                // search, stepped here.
                self.polish_why = match self.stop {
                    Stop::Converged => RefineStop::Converged,
                    Stop::IterationLimit => RefineStop::SweepLimit,
                    _ => RefineStop::LocalOptimum,
                };
                let m = m.clone();
                self.start_polish(m);
                return;
            }
            self.finish_runs();
        } else {
            self.drb = self.construct.drb(&self.input, &self.vol, self.run);
        }
    }
}

impl Recursive {
    /// Step the phases after the search ([`Refine::polish`]) from `m`.
    fn start_polish(&mut self, m: Mapping) {
        let Some(rp) = self.refine_params else {
            return;
        };
        self.run = self.visible.saturating_sub(1);
        let dist = self
            .dist
            .get_or_insert_with(|| Arc::new(refine::Dist::new(self.input.topo.clone())))
            .clone();
        self.refine = Some(Refine::polish(
            self.input.graph.clone(),
            self.input.topo.clone(),
            dist,
            self.vol.clone(),
            m,
            RefineParams {
                seed: run_seed(rp.seed, self.construct.ties.base),
                ..rp
            },
            self.polish_why,
        ));
        self.polishing = true;
    }
}

/// The max link load of `m` under dimension-order routing, as
/// [`crate::metrics::evaluate`] gives it, bit for bit: on a mesh or torus
/// with whole-number bytes from one pass over the messages and a difference
/// array per network line ([`crate::routing::dor_lines`], O(n · d + m · d +
/// channels)), otherwise by routing every message (O(m · route length)).
fn dor_max_load(input: &MapperInput, m: &Mapping) -> f64 {
    crate::routing::dor_lines::hop_bytes_and_max_load(&input.graph, &input.topo, m, &mut Vec::new())
        .1
}

/// Relative difference under which two runs' objectives and hop-bytes
/// are tied (their sums are kept incrementally, in different orders).
const RUN_TIE: f64 = 1e-9;

/// Relative hop-bytes within which the run of least max link load is
/// polished instead of the best run ([`Recursive::prefer_lower_load`]).
const LOAD_TIE: f64 = 0.005;

impl Recursive {
    /// The application's own rank order (process p on slot p, the
    /// `default` mapping) as a last candidate: it replaces the result (the
    /// polished best run) when its hop-bytes are lower, so the result never
    /// has more hop-bytes than the application's order (a code whose ranks
    /// already follow the machine's order, e.g. a halo on a fat tree filled
    /// in rank order). O(m) distance look-ups.
    fn consider_own_order(&mut self) {
        let (g, t) = (&self.input.graph, &self.input.topo);
        if g.n() > t.num_slots() {
            return;
        }
        let slots: Vec<usize> = (0..g.n()).collect();
        let own = Mapping::from_slots(&slots, t);
        // Σ bytes × hops, one process's row at a time, in order (the
        // distances from the runs' table when there is one).
        let dist = |a: usize, b: usize| match &self.dist {
            Some(d) => d.get(a, b),
            None => t.distance(a, b),
        };
        let mut hb = 0.0;
        for u in 0..g.n() {
            let a = own.node[u] as usize;
            let row: f64 = g
                .neighbors(u)
                .iter()
                .zip(g.sent_row(u))
                .map(|(&v, &b)| b * dist(a, own.node[v as usize] as usize) as f64)
                .sum();
            hb += row;
        }
        if let Some((_, best_hb, _)) = &self.best
            && hb < *best_hb
        {
            self.own_order = Some((hb, *best_hb));
            self.best = Some((hb, hb, own));
            self.best_load = None;
        }
    }

    /// What the run kept that its runs did not make: the application's own
    /// order (None otherwise).
    pub fn summary(&self) -> Option<String> {
        self.own_order.map(|(own, runs)| {
            format!(
                "the application's own rank order (hop-bytes {own:.6e}) kept: it beat the \
                 polished best run ({runs:.6e})"
            )
        })
    }

    /// A finished run's result: kept when its objective is lower than the
    /// best run's, or tied and its hop-bytes lower, or both tied and its
    /// max link load under dimension-order routing lower (computed only
    /// on such a tie, O(m · route length)). Runs are offered in run
    /// order, so the result does not depend on which thread made them.
    fn offer(&mut self, obj: f64, hb: f64, m: Mapping) {
        if self.polish {
            self.finished.push((obj, hb, m.clone()));
        }
        let tied = |a: f64, b: f64| (a - b).abs() <= RUN_TIE * a.abs().max(b.abs());
        let Some((bo, bh, bm)) = &self.best else {
            self.best = Some((obj, hb, m));
            self.best_load = None;
            return;
        };
        let (bo, bh) = (*bo, *bh);
        let better = if !tied(obj, bo) {
            obj < bo
        } else if !tied(hb, bh) {
            hb < bh
        } else {
            let load = |m: &Mapping| dor_max_load(&self.input, m);
            let best_load = *self.best_load.get_or_insert_with(|| load(bm));
            let l = load(&m);
            if l < best_load {
                self.best_load = Some(l);
                self.best = Some((obj, hb, m));
            }
            return;
        };
        if better {
            self.best = Some((obj, hb, m));
            self.best_load = None;
        }
    }

    /// With polishing (several runs, objective `hopbytes`), once every run
    /// is over: of the runs whose hop-bytes are within [`LOAD_TIE`] of the
    /// best run's, the one of least max link load under dimension-order
    /// routing becomes the run that is polished (the best run stays on a
    /// tie). The same rule as `grid`'s among its embeddings: runs that end
    /// a fraction of a per cent apart in hop-bytes can be up to 16 % apart in
    /// max link load (SuperLU_DIST's 12 × 12 grid on a 4 × 6 × 6 torus,
    /// `docs/mapping-quality.md`). O(runs · m · route length).
    fn prefer_lower_load(&mut self) {
        let runs = std::mem::take(&mut self.finished);
        let Some((bo, _, bm)) = &self.best else {
            return;
        };
        let limit = bo * (1.0 + LOAD_TIE);
        let load = |m: &Mapping| dor_max_load(&self.input, m);
        // The best run's load is the bar, evaluated only once another run
        // is within the window (a mapping's evaluation is a function of
        // the mapping, so when it is made does not matter).
        let mut least = self.best_load;
        let mut pick = None;
        // With alternatives ([`alternatives`]): the runs in the window and
        // their loads.
        let keep_window = self.polishes_alternatives();
        let mut window = Vec::new();
        let mut bar0 = None;
        for (i, (obj, _, m)) in runs.iter().enumerate() {
            // The best run is among the runs: it is the bar.
            if *obj > limit || m == bm {
                continue;
            }
            let bar = *least.get_or_insert_with(|| load(bm));
            bar0.get_or_insert(bar);
            let l = load(m);
            if keep_window {
                window.push((l, m.clone()));
            }
            if l < bar * (1.0 - RUN_TIE) {
                least = Some(l);
                pick = Some(i);
            }
        }
        if let Some(bar) = bar0.filter(|_| keep_window) {
            window.push((bar, bm.clone()));
        }
        if let Some((obj, hb, m)) = pick.and_then(|i| runs.into_iter().nth(i)) {
            self.best = Some((obj, hb, m));
            self.best_load = least;
        }
        if let Some((_, _, m)) = &self.best {
            let m = m.clone();
            self.choose_alternatives(&m, window);
        }
    }

    /// Every run (and the polish of the best, if any) is over: the best
    /// mapping is the result.
    fn finish_runs(&mut self) {
        if self.polish {
            self.consider_own_order();
        }
        self.run = self.runs;
        self.done = true;
        if let Some((_, _, m)) = &self.best {
            let c = self.input.topo.cores();
            for (p, slot) in self.placement.iter_mut().enumerate() {
                *slot = Some(m.slot(p, c) as u32);
            }
        }
    }

    /// Start runs `visible..runs` on a background thread: the same
    /// construction and refinement as the stepped runs, seeded the same way,
    /// each run independent of the others. On two cores a CLI run of `runs`
    /// runs takes about the wall time of `runs / 2`.
    fn spawn_background(&mut self) {
        let dist = self.refine_params.map(|_| {
            self.dist
                .get_or_insert_with(|| Arc::new(refine::Dist::new(self.input.topo.clone())))
                .clone()
        });
        let job = RunJob {
            input: self.input.clone(),
            vol: self.vol.clone(),
            construct: self.construct,
            refine: self.refine_params,
            dist,
            search_only: self.polish,
        };
        let cancel = Arc::new(AtomicBool::new(false));
        let flag = cancel.clone();
        let runs = self.visible..self.runs;
        let handle = std::thread::Builder::new()
            .name("hopmap-recursive-runs".into())
            .spawn(move || runs.filter_map(|r| job.run(r, &flag)).collect::<Vec<_>>());
        // If no thread can be made, the runs are simply not made in the
        // background: step them here instead.
        match handle {
            Ok(handle) => {
                self.background = Some(Background {
                    handle: Some(handle),
                    cancel,
                })
            }
            Err(_) => self.visible = self.runs,
        }
    }
}

/// The construction's settings, shared by every run.
#[derive(Clone, Copy)]
struct Construct {
    bparams: BisectParams,
    pack: bool,
    /// V-cycles per bisection in the top levels ([`Drb::with_top_vcycles`]).
    vcycles: usize,
    /// Reflect the tree's boxes at the end ([`orient`]).
    orient: bool,
    /// Break the pull's ties through a ring's wrap ([`unwrap`]; where
    /// [`unwrap::applies`]).
    unwrap: bool,
    /// The tie-break of box dimensions of each run ([`TieRuns`]).
    ties: TieRuns,
}

/// Which runs cut tied box dimensions in which order: runs `0..base` in
/// the lowest dimension's order ([`DimTies::LOW`]), then one run for each
/// of `alt[..extra]`; any runs after those fill node sets half by half
/// ([`Drb::with_fill`]), in the lowest dimension's order.
#[derive(Clone, Copy, Debug, Default)]
struct TieRuns {
    base: usize,
    alt: [DimTies; 2],
    extra: usize,
}

impl TieRuns {
    /// Whether run `run` fills node sets half by half.
    fn fills(&self, run: usize) -> bool {
        run >= self.base + self.extra
    }

    /// The order of run `run`.
    fn of(&self, run: usize) -> DimTies {
        match run.checked_sub(self.base) {
            Some(k) if k < self.extra => self.alt[k],
            _ => DimTies::LOW,
        }
    }
}

/// The orders of dimensions besides the lowest-first one whose box trees
/// differ, on a mesh or torus, from it and from each other: of
/// [`DimTies::HIGH`] and [`DimTies`]`(2)` (z, x, y), those that cut some
/// box of the machine across another dimension (none on other
/// topologies). O(nodes · D) per order (the box trees do not depend on the
/// graph or the seed).
pub fn tie_orders(topo: &crate::topology::Topology) -> Vec<DimTies> {
    if topo.as_grid().is_none() {
        return Vec::new();
    }
    let tree = |ties: DimTies| {
        let mut out = Vec::new();
        let mut stack = vec![domain::Domain::whole(topo)];
        while let Some(d) = stack.pop() {
            if let Some((a, b)) = d.split_with(topo, 0, ties) {
                stack.push(b);
                stack.push(a);
            }
            out.push(d);
        }
        out
    };
    let mut seen = vec![tree(DimTies::LOW)];
    let mut orders = Vec::new();
    for ties in [DimTies::HIGH, DimTies(2)] {
        let t = tree(ties);
        if !seen.contains(&t) {
            seen.push(t);
            orders.push(ties);
        }
    }
    orders
}

impl Construct {
    /// Run `run`'s construction: seeded with [`run_seed`], its mesh/torus
    /// boxes cut across tied dimensions in the run's order ([`TieRuns`]).
    fn drb(&self, input: &MapperInput, vol: &Arc<Vec<f64>>, run: usize) -> Drb {
        Drb::new(
            input.graph.clone(),
            input.topo.clone(),
            vol.clone(),
            self.bparams,
            run_seed(input.seed, run),
        )
        .with_packing(self.pack)
        .with_top_vcycles(self.vcycles)
        .with_orientation(self.orient)
        .with_unwrap(self.unwrap)
        .with_dim_ties(self.ties.of(run))
        .with_fill(self.ties.fills(run))
    }
}

/// Largest input on which the automatic runs add runs that cut tied box
/// dimensions in other orders ([`tie_orders`]). Above it they would cost
/// the time the runs are limited by (from 1,024 processes gmap's), and
/// letting the 4 runs themselves take other orders instead cost hop-bytes
/// there: on the METIS-made meshes of 1,024 parts on an 8 × 8 × 16 torus
/// the other orders cut the 4 × 4 × 4 boxes z first, and the best of the
/// runs rose from 0.806 to 0.838 × gmap's hop-bytes (3D) and from 0.918 to
/// 0.930 (2D, seed 3; `docs/mapping-quality.md`).
pub const TIE_RUNS_MAX: usize = 256;

/// Largest machine (nodes) whose box trees [`tie_orders`] compares: the
/// trees hold every box of the machine, so a small job on a huge machine
/// would otherwise cost memory in proportion to the machine.
pub const TIE_NODES_MAX: usize = 4096;

/// What one independent run needs (owned, so it can move to a thread).
struct RunJob {
    input: MapperInput,
    vol: Arc<Vec<f64>>,
    construct: Construct,
    refine: Option<RefineParams>,
    dist: Option<Arc<refine::Dist>>,
    /// Stop each refinement with its search ([`Refine::search_only`]).
    search_only: bool,
}

impl RunJob {
    /// Run `run` to the end: (objective, hop-bytes, mapping), or None when
    /// cancelled.
    fn run(&self, run: usize, cancel: &AtomicBool) -> Option<(f64, f64, Mapping)> {
        let mut drb = self.construct.drb(&self.input, &self.vol, run);
        while !drb.is_done() {
            if cancel.load(Ordering::Relaxed) {
                return None;
            }
            drb.step();
        }
        let m = drb.result()?;
        match (self.refine, &self.dist) {
            (Some(rp), Some(dist)) => {
                let rp = RefineParams {
                    seed: run_seed(rp.seed, run),
                    ..rp
                };
                let mut r = Refine::with_dist(
                    self.input.graph.clone(),
                    self.input.topo.clone(),
                    dist.clone(),
                    self.vol.clone(),
                    m,
                    rp,
                );
                if self.search_only {
                    r = r.search_only();
                }
                while !r.is_done() {
                    if cancel.load(Ordering::Relaxed) {
                        return None;
                    }
                    r.step();
                }
                Some((r.objective(), r.hop_bytes(), r.mapping()))
            }
            _ => {
                let hb = crate::metrics::hop_bytes(&self.input.graph, &self.input.topo, &m);
                Some((hb, hb, m))
            }
        }
    }
}

/// The background runs' thread; dropping it asks the thread to stop.
struct Background {
    handle: Option<std::thread::JoinHandle<Vec<(f64, f64, Mapping)>>>,
    cancel: Arc<AtomicBool>,
}

impl Background {
    /// Wait for the background runs (a panic there loses them, not the run).
    fn join(mut self) -> Vec<(f64, f64, Mapping)> {
        self.handle
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default()
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

/// Runs by default, for `n` processes and `pairs` communicating pairs:
/// `4096 / n`, at most `RUN_PAIRS / pairs` ([`RUN_PAIRS`] = 16,384, so
/// runs × pairs ≤ 16,384: the pairs of 4 runs on 1,024 processes of mean
/// degree 8), but below [`DENSE_FROM`] (1,024) processes never fewer
/// than `2048 / n`; then between 1 and 4.
///
/// Why: each run's construction costs O(m log N) and its search
/// O(m · candidates), so the runs' total work follows runs × pairs, not
/// runs × n; small inputs, where one run is cheap and local optima are
/// many, get several tries, and from 1,024 processes up the total stays
/// within the time of Scotch's gmap on the same input (the speed target,
/// measured with `scripts/vs_scotch.sh`). The floor `2048 / n` keeps 4 runs
/// on every input of at most 512 processes, whatever its density (a few
/// tens of milliseconds there), and at least 2 below 1,024; at 1,024 the
/// inputs of more than 8,192 pairs (the dense ones of [`dense_large`]) get
/// one run. On the METIS-made
/// meshes of 1,024 parts the 3D ones (mean degree about 13) get 2 runs and
/// the 2D ones (about 6) 4; from 2,048 processes the 3D ones get 1
/// (`docs/mapping-quality.md`, "Runs by the work"). Sparse inputs above
/// 1,024 processes ([`sparse_large::sparse_large`]) get at least 2, so
/// that the best run is polished. O(1).
pub fn auto_runs(n: usize, pairs: usize) -> usize {
    let sparse = sparse_large::sparse_large(n, pairs);
    let n = n.max(1);
    let by_size = 4096 / n;
    let by_work = RUN_PAIRS / pairs.max(1);
    let floor = if n < DENSE_FROM {
        2048 / n
    } else if sparse {
        2
    } else {
        1
    };
    by_size.min(by_work).max(floor).clamp(1, 4)
}

/// Above this many processes, an input of more than 8 partners per
/// process on average gets the swap search at depth 0 (with automatic
/// depth). On the METIS-made 3D meshes of 3,072 parts depth 1 took about
/// gmap's CPU and depth 0 half of it, for a few per cent more hop-bytes;
/// at 2,048 parts depth 1 stays under gmap's CPU and depth 0 would cost
/// more hop-bytes than the 0.92 × gmap's target leaves
/// (`docs/mapping-quality.md`, "Depth 0 above 2,048 processes").
pub const DEPTH0_ABOVE: usize = 2048;

/// From this many processes on, dense inputs get less multilevel work
/// ([`auto_runs`]' floor of 2 runs stops here, [`dense_large`]).
pub const DENSE_FROM: usize = 1024;

/// Mean adjacency entries per process above which an input of at least
/// [`DENSE_FROM`] processes is dense ([`dense_large`]).
pub const DENSE_DEGREE: f64 = 16.0;

/// V-cycles at the top levels of the tree for the inputs of
/// [`dense_large`] (when `vcycles` is `auto`).
pub const DENSE_VCYCLES: usize = 2;

/// Whether an input of `n` processes whose processes have `mean_degree`
/// partners on average is large and dense: at least [`DENSE_FROM`]
/// processes and more than [`DENSE_DEGREE`] partners each (FFT transposes,
/// halos with all 26 neighbours, random partners; never the METIS-made
/// meshes, 6 or 13). With automatic runs, such an input gets one run
/// (more than 8,192 pairs at 1,024 processes: [`auto_runs`]), a search at
/// depth 0 and [`DENSE_VCYCLES`] V-cycles at the top of the tree: its
/// multilevel work and its candidates grow with its pairs, while on the
/// measured ones the second run, the depth and the V-cycles beyond two
/// bought 0.4 % of hop-bytes on average (each input's mean 0–1.2 %) for
/// half the CPU time (`docs/mapping-quality.md`, "Dense inputs of 1,024
/// processes"). O(1).
pub fn dense_large(n: usize, mean_degree: f64) -> bool {
    n >= DENSE_FROM && mean_degree > DENSE_DEGREE
}

/// The pairs the automatic runs may cover together ([`auto_runs`]).
pub const RUN_PAIRS: usize = 16_384;

impl Stepper for Recursive {
    fn step(&mut self) -> StepState {
        if self.done {
            return self.state();
        }
        if self.visible < self.runs && self.background.is_none() && self.run == 0 && !self.polishing
        {
            self.spawn_background();
        }
        if let Some(r) = self.refine.as_mut() {
            let before = r.hop_bytes();
            let bottleneck = r.load_phase().is_some();
            let tabu = r.tabu_running();
            let blocks = r.blocks_running();
            let kicks = r.kicks_running();
            r.step();
            self.trace.push(r.hop_bytes());
            let sw = r.last_swaps();
            let moves = sw.iter().filter(|(p, q)| p == q).count();
            self.last = Some((
                self.run,
                LastStep::Refine {
                    swaps: sw.len() - moves,
                    moves,
                    before,
                    after: r.hop_bytes(),
                    stopped: r.is_done(),
                    load: r
                        .load_phase()
                        .filter(|_| bottleneck)
                        .map(|(start, now, _)| (start, now, r.load_phase_setting_up())),
                    tabu: r.tabu_phase().filter(|_| tabu),
                    blocks: r.blocks_phase().filter(|_| blocks),
                    kicks: r.kicks_phase().filter(|_| kicks),
                },
            ));
            self.event = Some(StepEvent::Swaps {
                swapped: r.last_swaps().to_vec(),
                hop_bytes: r.hop_bytes(),
            });
            if r.is_done() {
                self.stop = match r.stopped() {
                    Some(RefineStop::LocalOptimum) => Stop::LocalOptimum,
                    Some(RefineStop::Converged) => Stop::Converged,
                    Some(RefineStop::TimeLimit) => Stop::TimeLimit,
                    _ => Stop::IterationLimit,
                };
                let (obj, hb, m) = (r.objective(), r.hop_bytes(), r.mapping());
                if self.polishing {
                    self.keep_polished(obj, hb, m);
                    self.refine = None;
                    if let Some(next) = self.alternatives.pop() {
                        self.start_polish(next);
                    } else {
                        self.polishing = false;
                        if let Some((obj, hb, m, _)) = self.polished.take() {
                            self.best = Some((obj, hb, m));
                        }
                        self.finish_runs();
                    }
                } else {
                    self.end_run(obj, hb, m);
                }
            }
        } else {
            self.drb.step();
            let run = self.run;
            let mut built = None;
            // Guided mode highlights the part a bisection cut.
            self.event = Some(match (self.drb.last_step(), self.drb.tree().last()) {
                (Some(drb::DrbStep::Cut { .. }), Some(t)) => StepEvent::Group {
                    processes: t.processes.iter().map(|&p| p as usize).collect(),
                },
                _ => StepEvent::Whole,
            });
            if self.drb.is_done()
                && let Some(m) = self.drb.result()
            {
                match self.refine_params {
                    Some(rp) => {
                        let rp = RefineParams {
                            seed: run_seed(rp.seed, self.run),
                            ..rp
                        };
                        let dist = self
                            .dist
                            .get_or_insert_with(|| {
                                Arc::new(refine::Dist::new(self.input.topo.clone()))
                            })
                            .clone();
                        let mut r = Refine::with_dist(
                            self.input.graph.clone(),
                            self.input.topo.clone(),
                            dist,
                            self.vol.clone(),
                            m,
                            rp,
                        );
                        if self.polish {
                            r = r.search_only();
                        }
                        self.trace.push(r.hop_bytes());
                        built = Some((r.hop_bytes(), true));
                        self.refine = Some(r);
                    }
                    None => {
                        let hb = crate::metrics::hop_bytes(&self.input.graph, &self.input.topo, &m);
                        built = Some((hb, false));
                        self.end_run(hb, hb, m);
                    }
                }
            }
            // The finished run's Drb may have been replaced by the next run's.
            let step = if self.run == run {
                self.drb.last_step().cloned()
            } else {
                Some(drb::DrbStep::Finished {
                    leaves: 0,
                    overflow: 0,
                    mirrored: 0,
                    gain: 0.0,
                })
            };
            self.last = Some((run, LastStep::Construct(step, built)));
        }
        self.state()
    }
    fn state(&self) -> StepState {
        if self.done {
            StepState::Stopped(self.stop)
        } else {
            StepState::Running
        }
    }
    fn progress(&self) -> Progress {
        // Per run: n placements, then the refinement's sweep budget.
        let n = self.input.graph.n();
        let rt = self.refine_params.map_or(0, |p| p.sweeps.saturating_mul(n));
        let per = n + rt;
        let within = match &self.refine {
            None => self.drb.counts().1,
            Some(r) => n + r.progress().0,
        };
        Progress {
            done: if self.done || self.polishing {
                per * self.visible
            } else {
                per * self.run + within
            },
            total: Some(per * self.visible),
            phase: if self
                .refine
                .as_ref()
                .is_some_and(|r| r.load_phase().is_some())
            {
                "bottleneck"
            } else if self.refine.as_ref().is_some_and(|r| r.tabu_running()) {
                "tabu search"
            } else if self.refine.as_ref().is_some_and(|r| r.blocks_running()) {
                "block exchanges"
            } else if self.refine.is_some() {
                "refinement"
            } else {
                "bipartitioning"
            },
        }
    }
}

impl MapperRun for Recursive {
    fn placement(&self) -> &[Option<u32>] {
        match &self.refine {
            _ if self.done => &self.placement,
            Some(r) => r.placement(),
            None => self.drb.placement(),
        }
    }
    fn result(&self) -> Option<Mapping> {
        if !self.done {
            return None;
        }
        match &self.best {
            Some((_, _, m)) => Some(m.clone()),
            None => Some(Mapping::new(Vec::new(), Vec::new())),
        }
    }
    fn inspect(&self) -> super::RunRef<'_> {
        super::RunRef::Recursive(self)
    }
}

impl Recursive {
    /// What the last step did (the part it cut, the processes a
    /// refinement batch moved).
    pub fn last_event(&self) -> Option<&StepEvent> {
        self.event.as_ref()
    }
    /// What the last step did, with the run (0-based) it belongs to.
    pub fn last_step(&self) -> Option<(usize, &LastStep)> {
        self.last.as_ref().map(|(run, l)| (*run, l))
    }
    /// Whether this is `recursive+refine`, and its batch size.
    pub fn refine_batch(&self) -> Option<usize> {
        self.refine_params.map(|p| p.batch)
    }
    /// How many of the runs are stepped here (the others run in the
    /// background).
    pub fn visible_runs(&self) -> usize {
        self.visible
    }
    /// Whether the best run's mapping is going through the phases after
    /// the search (the runs themselves are over).
    pub fn polishing(&self) -> bool {
        self.polishing
    }
    /// Whether every run is finished.
    pub fn is_done(&self) -> bool {
        self.done
    }
}

#[cfg(test)]
mod tests {
    use super::domain::Domain;
    use super::*;
    use crate::graph::{CommGraph, GraphBuilder};
    use crate::metrics::{evaluate, hop_bytes};
    use crate::routing::Routing;
    use crate::topology::Topology;
    use proptest::prelude::*;

    fn input(g: CommGraph, topo: &str, seed: u64, params: &[(&str, &str)]) -> MapperInput {
        let mut i = MapperInput::new(Arc::new(g), Arc::new(Topology::parse(topo).unwrap()), seed);
        i.params = params
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        i
    }

    fn ring(n: usize) -> CommGraph {
        let mut b = GraphBuilder::new(n, false);
        for i in 0..n {
            b.add(i, (i + 1) % n, 3.0);
        }
        b.build().unwrap()
    }

    #[test]
    fn automatic_runs_follow_the_size_and_the_pairs() {
        // 4096 / n, at most 16384 / pairs, below 1,024 at least 2048 / n, within 1..=4.
        assert_eq!(
            auto_runs(64, 20_000),
            4,
            "≤ 512 processes: 4 whatever the pairs"
        );
        assert_eq!(auto_runs(512, 1_000_000), 4);
        assert_eq!(auto_runs(1024, 2900), 4, "16384 / 2900 = 5");
        assert_eq!(auto_runs(1024, 4096), 4, "16384 / 4096 = 4");
        assert_eq!(auto_runs(1024, 4097), 3);
        assert_eq!(auto_runs(1024, 6616), 2, "16384 / 6616 = 2");
        assert_eq!(auto_runs(1024, 8192), 2, "16384 / 8192 = 2");
        assert_eq!(auto_runs(1024, 8193), 1, "no floor from 1,024 processes");
        assert_eq!(auto_runs(1024, 1_000_000), 1);
        assert_eq!(auto_runs(1023, 1_000_000), 2, "floor 2048 / 1023 = 2");
        assert_eq!(auto_runs(1200, 3000), 3, "4096 / 1200 = 3");
        assert_eq!(
            auto_runs(2048, 5890),
            2,
            "4096 / 2048 = 2, 16384 / 5890 = 2"
        );
        assert_eq!(auto_runs(2048, 13_743), 1, "16384 / 13743 = 1");
        assert_eq!(auto_runs(4096, 10), 2, "sparse above 1,024: at least 2");
        assert_eq!(
            auto_runs(3072, 8_900),
            2,
            "sparse: 4096 / 3072 = 1, floor 2"
        );
        assert_eq!(auto_runs(3072, 20_500), 1, "3D mesh: not sparse");
        assert_eq!(auto_runs(4097, 10), 1, "above 4,096: not sparse");
        assert_eq!(auto_runs(0, 0), 4);
    }

    /// A circulant graph: process i talks to i ± 1 … i ± k (mod n), so
    /// n · k pairs.
    fn circulant(n: usize, k: usize) -> CommGraph {
        let mut b = GraphBuilder::new(n, false);
        for i in 0..n {
            for d in 1..=k {
                b.add(i, (i + d) % n, 1.0);
            }
        }
        b.build().unwrap()
    }

    #[test]
    fn denser_graphs_of_1024_processes_get_fewer_automatic_runs() {
        // 1,024 processes on 1,024 nodes (no tied orders, no fill runs):
        // 3 × 1024 pairs → 4 runs, 6 × 1024 → 2 (16384 / 6144).
        for (k, want) in [(3, 4), (6, 2)] {
            let i = input(circulant(1024, k), "torus:8x8x16", 1, &[]);
            let r = Recursive::new(&i, None, 0).unwrap();
            assert_eq!(r.runs().1, want, "{k} partners each side");
        }
    }

    #[test]
    fn dense_graphs_of_1024_processes_get_one_run_at_depth_0_and_two_vcycles() {
        // 1,024 processes on 1,024 nodes: 8 × 1024 pairs (16 partners
        // each) → 2 runs, 4 V-cycles; 9 × 1024 (18 partners) is dense:
        // 1 run (16384 / 9216 = 1), depth 0, 2 V-cycles.
        let refine = RefineParams {
            depth: u32::MAX,
            ..RefineParams::hand_checked(0.01)
        };
        for (k, runs, vcycles, depth) in [(8, 2, 4, 0), (9, 1, 2, 0)] {
            let i = input(circulant(1024, k), "torus:8x8x16", 1, &[]);
            let r = Recursive::new(&i, Some(refine), 0).unwrap();
            assert_eq!(r.runs().1, runs, "{k} partners each side");
            assert_eq!(r.construct.vcycles, vcycles, "{k} partners each side");
            assert_eq!(r.refine_params.map(|p| p.depth), Some(depth));
        }
        // Given explicitly, the V-cycles stay; with fixed runs nothing
        // changes (1 run: depth 1, as below 1,024 processes).
        let i = input(circulant(1024, 9), "torus:8x8x16", 1, &[("vcycles", "3")]);
        assert_eq!(
            Recursive::new(&i, Some(refine), 0)
                .unwrap()
                .construct
                .vcycles,
            3
        );
        let i = input(circulant(1024, 9), "torus:8x8x16", 1, &[]);
        let r = Recursive::new(&i, Some(refine), 1).unwrap();
        assert_eq!(
            (r.construct.vcycles, r.refine_params.map(|p| p.depth)),
            (4, Some(1))
        );
        // Below 1,024 processes a dense graph keeps its runs and V-cycles.
        let i = input(circulant(512, 12), "torus:8x8x8", 1, &[]);
        let r = Recursive::new(&i, Some(refine), 0).unwrap();
        assert_eq!((r.runs().1, r.construct.vcycles), (4, 4));
    }

    #[test]
    fn the_search_goes_to_depth_0_above_2048_processes_of_more_than_8_partners() {
        let refine = RefineParams {
            depth: u32::MAX,
            ..RefineParams::hand_checked(0.01)
        };
        // 5 partners each side (mean degree 10): one run; depth 1 up to
        // 2,048 processes, 0 above; 4 each side (degree 8; above 4,096
        // processes, where such inputs get one run): depth 1.
        for (n, k, topo, depth) in [
            (2048, 5, "torus:8x16x16", 1),
            (3072, 5, "torus:12x16x16", 0),
            (5000, 4, "torus:10x20x25", 1),
        ] {
            let i = input(circulant(n, k), topo, 1, &[]);
            let r = Recursive::new(&i, Some(refine), 0).unwrap();
            assert_eq!(r.runs().1, 1, "{n} {k}");
            assert_eq!(r.refine_params.map(|p| p.depth), Some(depth), "{n} {k}");
        }
    }

    #[test]
    fn a_ring_of_8_on_a_2x4_mesh_reaches_the_optimum() {
        // A 2×4 mesh has a Hamiltonian cycle, so every ring pair can be one
        // hop apart: hop-bytes = 8 pairs × volume × 1.
        let g = ring(8);
        let opt = 8.0 * g.volume(0, 1);
        for id in ["recursive", "recursive+refine"] {
            for seed in 0..4 {
                let inp = input(ring(8), "mesh:2x4", seed, &[]);
                let m = crate::mappers::run(&super::super::find(id).unwrap(), &inp).unwrap();
                assert_eq!(
                    hop_bytes(&inp.graph, &inp.topo, &m),
                    opt,
                    "{id} seed {seed}"
                );
            }
        }
    }

    fn two_cliques() -> CommGraph {
        let mut b = GraphBuilder::new(8, false);
        for c in [0, 4] {
            for i in 0..4 {
                for j in i + 1..4 {
                    b.add(c + i, c + j, 10.0);
                }
            }
        }
        b.add(3, 4, 1.0);
        b.build().unwrap()
    }

    #[test]
    fn two_cliques_each_get_their_own_node() {
        for id in ["recursive", "recursive+refine"] {
            for seed in 0..4 {
                let inp = input(two_cliques(), "mesh:2:cores=4", seed, &[]);
                let m = crate::mappers::run(&super::super::find(id).unwrap(), &inp).unwrap();
                assert!(m.node[..4].iter().all(|&x| x == m.node[0]), "{id} {m:?}");
                assert!(m.node[4..].iter().all(|&x| x == m.node[4]), "{id} {m:?}");
                assert_ne!(m.node[0], m.node[4]);
            }
        }
    }

    #[test]
    fn a_small_job_is_packed_into_a_corner_of_a_big_machine() {
        // 8 processes on a 16×16 torus with 2 cores: 4 nodes suffice.
        let inp = input(ring(8), "torus:16x16:cores=2", 1, &[]);
        let m = crate::mappers::run(&info(), &inp).unwrap();
        let mut nodes = m.node.clone();
        nodes.sort_unstable();
        nodes.dedup();
        assert_eq!(nodes.len(), 4);
        assert_eq!(
            hop_bytes(&inp.graph, &inp.topo, &m),
            4.0 * inp.graph.volume(0, 1)
        );
    }

    #[test]
    fn the_tree_lists_every_subproblem_level_by_level() {
        let inp = input(ring(16), "torus:4x4", 3, &[]);
        let mut r = Recursive::new(&inp, None, 1).unwrap();
        let mut steps = 0;
        while !r.is_stopped() {
            r.step();
            steps += 1;
        }
        let t = r.tree();
        // 15 bisections (16 nodes, one process each) and 16 one-node leaves.
        assert_eq!(t.len(), 31);
        assert!(steps >= 15);
        assert_eq!(t[0].level, 0);
        assert_eq!(t[0].processes.len(), 16);
        assert!(t.windows(2).all(|w| w[0].level <= w[1].level));
        for node in t {
            let cap = node.domain.num_nodes();
            assert!(node.processes.len() <= cap);
        }
    }

    #[test]
    fn the_generic_node_set_path_maps_a_grid_well() {
        // Cutting the torus as a plain node set (as on switch fabrics) must
        // still give a valid, compact mapping of a ring.
        let g = Arc::new(ring(16));
        let topo = Arc::new(Topology::parse("torus:4x4").unwrap());
        let vol = Arc::new(crate::partition::pair_volumes(&g));
        let mut d = Drb::new(g.clone(), topo.clone(), vol, BisectParams::default(), 1)
            .with_root(Domain::whole_set(&topo));
        while !d.is_done() {
            d.step();
        }
        let m = d.result().unwrap();
        m.validate(16, &topo).unwrap();
        assert!(hop_bytes(&g, &topo, &m) <= 1.5 * 16.0 * g.volume(0, 1));
    }

    #[test]
    fn filling_node_sets_takes_whole_hosts() {
        // A ring of 12 on a fat tree of 8 hosts × 4 cores (32 slots). The
        // job shrinks to the half of 16 slots, which cannot hold it. Shared
        // in proportion, each quarter (two hosts) takes 6 and each host 3:
        // four hosts, every one part-filled. Filled half by half, the first
        // quarter takes 8 (two full hosts) and the second 4 (one full host):
        // three hosts of 4.
        let g = Arc::new(ring(12));
        let topo = Arc::new(Topology::parse("fattree:4:2:cores=4").unwrap());
        let vol = Arc::new(crate::partition::pair_volumes(&g));
        let hosts = |fill: bool| {
            let mut d = Drb::new(
                g.clone(),
                topo.clone(),
                vol.clone(),
                BisectParams::default(),
                1,
            )
            .with_packing(true)
            .with_fill(fill);
            while !d.is_done() {
                d.step();
            }
            let m = d.result().unwrap();
            m.validate(12, &topo).unwrap();
            let mut per = std::collections::BTreeMap::new();
            for &n in &m.node {
                *per.entry(n).or_insert(0usize) += 1;
            }
            per.into_values().collect::<Vec<_>>()
        };
        assert_eq!(hosts(true), [4, 4, 4]);
        assert_eq!(hosts(false), [3, 3, 3, 3]);
    }

    fn max_load(g: &CommGraph, t: &Topology, m: &Mapping) -> f64 {
        evaluate(g, t, m, &Routing::Dor).metrics.max_link_load
    }

    #[test]
    fn automatic_runs_add_the_tie_orders_that_change_the_box_tree() {
        let orders = |t: &str| tie_orders(&Topology::parse(t).unwrap());
        // 2 × 2 × 4: the halves are cut x, y, z (lowest first), z, y, x
        // (highest first) or z, x, y: three trees.
        assert_eq!(orders("torus:2x2x4"), [DimTies::HIGH, DimTies(2)]);
        // In 2D the rotation is the reverse order: one more tree.
        assert_eq!(orders("mesh:4x4"), [DimTies::HIGH]);
        // A 4 × 2 mesh is cut across the 4 first, then its 2 × 2 halves
        // tie. No tie on a ring; no boxes on a fat tree.
        assert_eq!(orders("mesh:4x2"), [DimTies::HIGH]);
        assert!(orders("torus:8").is_empty());
        assert!(orders("fattree:4").is_empty());
        // 64 processes on 2 × 2 × 4 with 4 cores: 4 automatic runs + 2;
        // runs asked for: no more; above 256 processes: none.
        let runs = |n: usize, t: &str, runs: usize| {
            let inp = input(ring(n), t, 0, &[]);
            Recursive::new(&inp, None, runs).unwrap().runs().1
        };
        assert_eq!(runs(64, "torus:2x2x4:cores=4", 0), 6);
        assert_eq!(runs(64, "torus:2x2x4:cores=4", 2), 2);
        assert_eq!(runs(512, "torus:8x8x8", 0), 4);
        assert_eq!(runs(256, "torus:8x8x4", 0), 4 + 2);
    }

    #[test]
    fn runs_of_equal_hop_bytes_keep_the_lower_max_load() {
        // p0 sends 1 byte to p1 and to p3, p3 sends 1 to p0, on a 2 × 2
        // mesh (node = x + 2y), x-first routing, p0 at (0, 0) and p2 on the
        // node left. A: p1 at (1, 0), p3 at
        // (1, 1): 1 + 2 + 2 = 5 hop-bytes, and p0→p1 and p0→p3 share the
        // channel (0,0)→(1,0): max load 2. B: p1 at (0, 1) instead: the
        // same 5 hop-bytes, every channel at most 1. C: p3 at (0, 1), p1
        // at (1, 0): 3 hop-bytes, max load 1.
        let mut b = GraphBuilder::new(4, true);
        b.add(0, 1, 1.0);
        b.add(0, 3, 1.0);
        b.add(3, 0, 1.0);
        let inp = input(b.build().unwrap(), "mesh:2x2", 0, &[]);
        let m = |nodes: [u32; 4]| Mapping::new(nodes.to_vec(), vec![0; 4]);
        let (a, b, c) = (m([0, 1, 2, 3]), m([0, 2, 1, 3]), m([0, 1, 3, 2]));
        let metrics = |m: &Mapping| {
            let e = evaluate(&inp.graph, &inp.topo, m, &Routing::Dor).metrics;
            (e.hop_bytes, e.max_link_load)
        };
        assert_eq!(metrics(&a), (5.0, 2.0));
        assert_eq!(metrics(&b), (5.0, 1.0));
        assert_eq!(metrics(&c), (3.0, 1.0));
        let kept = |order: &[&Mapping]| {
            let mut r = Recursive::new(&inp, None, 1).unwrap();
            for m in order {
                let hb = hop_bytes(&inp.graph, &inp.topo, m);
                r.offer(hb, hb, (*m).clone());
            }
            r.best.unwrap().2
        };
        assert_eq!(kept(&[&a, &b]), b);
        assert_eq!(kept(&[&b, &a]), b);
        // B2, B turned half a turn (p0 at (1, 1), p3 at (0, 0)): 5
        // hop-bytes, max load 1 too. Equal on both: the first run stays.
        let b2 = m([3, 1, 2, 0]);
        assert_eq!(metrics(&b2), (5.0, 1.0));
        assert_eq!(kept(&[&b, &b2]), b);
        assert_eq!(kept(&[&b2, &b]), b2);
        // Fewer hop-bytes win whatever the loads.
        assert_eq!(kept(&[&a, &b, &c]), c);
        assert_eq!(kept(&[&c, &a]), c);
    }

    #[test]
    fn with_polishing_a_run_within_the_load_tie_of_less_max_load_is_polished() {
        // 6 processes on a 3 × 2 mesh (node = x + 3y), x-first routing.
        // A has the least hop-bytes (1,001) at max load 400; B 0.2 % more
        // (1,003) at max load 301; C 10 % more (1,102) at max load 300.
        let mut b = GraphBuilder::new(6, true);
        for (u, v, w) in [
            (1, 5, 300.0),
            (5, 2, 100.0),
            (0, 5, 100.0),
            (1, 0, 100.0),
            (2, 3, 200.0),
            (1, 3, 1.0),
            (4, 5, 100.0),
        ] {
            b.add(u, v, w);
        }
        let inp = input(b.build().unwrap(), "mesh:3x2", 0, &[]);
        let m = |nodes: [u32; 6]| Mapping::new(nodes.to_vec(), vec![0; 6]);
        let (a, b, c) = (
            m([0, 1, 5, 2, 3, 4]),
            m([0, 3, 1, 2, 5, 4]),
            m([1, 4, 3, 0, 2, 5]),
        );
        let metrics = |m: &Mapping| {
            let e = evaluate(&inp.graph, &inp.topo, m, &Routing::Dor).metrics;
            (e.hop_bytes, e.max_link_load)
        };
        assert_eq!(metrics(&a), (1001.0, 400.0));
        assert_eq!(metrics(&b), (1003.0, 301.0));
        assert_eq!(metrics(&c), (1102.0, 300.0));
        let kept = |polish: bool, order: &[&Mapping]| {
            let mut r = Recursive::new(&inp, None, 1).unwrap();
            r.polish = polish;
            for m in order {
                let hb = hop_bytes(&inp.graph, &inp.topo, m);
                r.offer(hb, hb, (*m).clone());
            }
            r.prefer_lower_load();
            assert!(r.finished.is_empty());
            r.best.unwrap().2
        };
        assert_eq!(kept(true, &[&a, &b, &c]), b);
        assert_eq!(kept(true, &[&c, &b, &a]), b);
        assert_eq!(kept(true, &[&a, &c]), a);
        // Without polishing (one run, or another objective) the least
        // hop-bytes stay.
        assert_eq!(kept(false, &[&a, &b, &c]), a);
    }

    #[test]
    fn the_bottleneck_phase_relieves_a_hot_link_at_no_hop_bytes_cost() {
        // mesh 2×2, node = x + 2y, dimension-order routing x first. p2 on
        // (0,1) sends 3 bytes to p3 on (1,1), 2 to p0 on (0,0) and 2 to p1
        // on (1,0), which go (0,1)→(1,1)→(1,0): the channel (0,1)→(1,1)
        // carries 3 + 2 = 5. Hop-bytes 3 + 2 + 2·2 = 9 are optimal (one
        // partner must be 2 hops away, the lightest is), so the swap search
        // keeps this mapping. Swapping p1 and p2 keeps 9 hop-bytes and puts
        // p2 on (1,0): 3 bytes up, 2 + 2 left; the largest load is 4, the
        // least possible (p2's 7 bytes leave its corner by two channels).
        let mut b = GraphBuilder::new(4, true);
        b.add(2, 3, 3.0);
        b.add(2, 1, 2.0);
        b.add(2, 0, 2.0);
        let g = Arc::new(b.build().unwrap());
        let topo = Arc::new(Topology::parse("mesh:2x2").unwrap());
        let vol = Arc::new(crate::partition::pair_volumes(&g));
        let start = Mapping::new(vec![0, 1, 2, 3], vec![0; 4]);
        assert_eq!(max_load(&g, &topo, &start), 5.0);
        for (budget, want) in [(0.0, 5.0), (0.01, 4.0)] {
            let params = RefineParams::hand_checked(budget);
            let mut r = Refine::new(g.clone(), topo.clone(), vol.clone(), start.clone(), params);
            while !r.is_done() {
                r.step();
            }
            let m = r.mapping();
            assert_eq!(hop_bytes(&g, &topo, &m), 9.0, "budget {budget}");
            assert_eq!(max_load(&g, &topo, &m), want, "budget {budget}: {m:?}");
            if budget > 0.0 {
                assert_eq!((m.node[1], m.node[2]), (2, 1), "{m:?}");
                assert_eq!(r.load_phase().map(|(s, _, k)| (s, k)), Some((5.0, 1)));
            }
        }
    }

    #[test]
    fn the_bottleneck_phase_is_on_by_default_and_zero_turns_it_off() {
        let inp = input(ring(8), "mesh:2x4", 1, &[]);
        let r = Recursive::new(&inp, Some(default_refine_params(&inp)), 1).unwrap();
        assert_eq!(r.refine_params.map(|p| p.load_budget), Some(0.01));
        let inp = input(ring(8), "mesh:2x4", 1, &[("load_budget", "0")]);
        assert_eq!(default_refine_params(&inp).load_budget, 0.0);
    }

    fn default_refine_params(inp: &MapperInput) -> RefineParams {
        RefineParams {
            objective: Objective::HopBytes,
            sweeps: 30,
            batch: 256,
            depth: 1,
            time: None,
            seed: inp.seed,
            tol: 0.001,
            load_budget: inp.get(REFINE_PARAMS, "load_budget").unwrap(),
            tabu: tabu_param(inp).unwrap(),
            kicks: crate::mappers::recursive::refine::kicks::KICKS_PER_PROCESS,
        }
    }

    fn random_graph(n: usize, seed: u64) -> CommGraph {
        let mut rng = crate::rng::Rng::new(seed);
        let mut b = GraphBuilder::new(n, rng.below(2) == 0);
        for i in 0..n {
            for _ in 0..rng.below(4) {
                let j = rng.below(n);
                b.add(i, j, 1.0 + rng.below(100) as f64);
            }
        }
        b.build().unwrap()
    }

    fn objective_of(g: &CommGraph, t: &Topology, m: &Mapping, o: Objective) -> f64 {
        match o {
            Objective::HopBytes => hop_bytes(g, t, m),
            Objective::MaxLoad => evaluate(g, t, m, &Routing::Dor).metrics.max_link_load,
            Objective::SqLoad => evaluate(g, t, m, &Routing::Dor)
                .links
                .load
                .iter()
                .map(|l| l * l)
                .sum(),
        }
    }

    const TOPOS: &[&str] = &[
        "mesh:3x4",
        "torus:4x4:cores=2",
        "torus:3x2x3",
        "mesh:5:cores=3",
        "mesh:2x2x2:wrap=101:cores=2",
    ];

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

        #[test]
        fn valid_and_deterministic(k in 0..TOPOS.len(), fill in 0.1f64..=1.0, seed in 0u64..1000) {
            let topo = Topology::parse(TOPOS[k]).unwrap();
            let n = ((topo.num_slots() as f64 * fill) as usize).max(1);
            for id in ["recursive", "recursive+refine"] {
                let inp = input(random_graph(n, seed), TOPOS[k], seed, &[]);
                let info = super::super::find(id).unwrap();
                let a = crate::mappers::run(&info, &inp).unwrap();
                a.validate(n, &topo).unwrap();
                prop_assert_eq!(&a, &crate::mappers::run(&info, &inp).unwrap());
            }
        }

        #[test]
        fn background_runs_give_the_result_of_stepping_every_run(
            k in 0..TOPOS.len(), fill in 0.2f64..=1.0, seed in 0u64..1000, runs in 2usize..=4
        ) {
            let topo = TOPOS[k];
            let n = ((Topology::parse(topo).unwrap().num_slots() as f64 * fill) as usize).max(2);
            let r = runs.to_string();
            for (refine, id) in [(false, "recursive"), (true, "recursive+refine")] {
                let inp = input(random_graph(n, seed), topo, seed, &[("runs", &r)]);
                let params = refine.then_some(RefineParams {
                    objective: Objective::HopBytes, sweeps: 30, batch: 256, depth: 0,
                    time: None, seed, tol: 0.001, load_budget: 0.01, tabu: 0, kicks: crate::mappers::recursive::refine::kicks::KICKS_PER_PROCESS,
                });
                let mut all_here = Recursive::new(&inp, params, runs).unwrap();
                all_here.visible = runs;
                let mut split = Recursive::new(&inp, params, runs).unwrap();
                prop_assert!(split.visible < runs);
                all_here.run_to_end();
                split.run_to_end();
                prop_assert!(split.background.is_none(), "{id}: background not joined");
                prop_assert_eq!(all_here.result(), split.result(), "{}", id);
            }
        }

        #[test]
        fn the_bottleneck_phase_never_raises_the_max_load_and_keeps_to_its_priced_budget(
            k in 0..TOPOS.len() + 1, fill in 0.2f64..=1.0, seed in 0u64..1000,
            b in 0usize..3, maxload in proptest::bool::ANY,
        ) {
            let budget = [1e-6, 0.01, 1.0][b];
            let name = if k == TOPOS.len() { "fabric:moh-fig2" } else { TOPOS[k] };
            let topo = Arc::new(Topology::parse(name).unwrap());
            let n = ((topo.num_slots() as f64 * fill) as usize).max(2);
            let g = Arc::new(random_graph(n, seed));
            let start = crate::mappers::run(
                &super::super::random::info(),
                &MapperInput::new(g.clone(), topo.clone(), seed),
            ).unwrap();
            let objective = if maxload { Objective::MaxLoad } else { Objective::HopBytes };
            let params = RefineParams {
                // One sweep leaves hot channels for the phase to work on.
                objective, sweeps: 1, batch: 2, depth: 1, time: None, seed, tol: 0.0,
                load_budget: budget,
                tabu: 0,
                kicks: crate::mappers::recursive::refine::kicks::KICKS_PER_PROCESS,
            };
            let vol = Arc::new(crate::partition::pair_volumes(&g));
            let run = || {
                let mut r = Refine::new(g.clone(), topo.clone(), vol.clone(), start.clone(), params);
                // The search's end: the phase starts from this mapping.
                while !r.is_done() && r.load_phase().is_none() {
                    r.step();
                }
                let at = r.mapping();
                while !r.is_done() {
                    r.step();
                    prop_assert!(r.cost_cache_error() <= 1e-9 * r.hop_bytes().max(1.0));
                }
                Ok((at, r))
            };
            let (at, r) = run()?;
            let m = r.mapping();
            m.validate(n, &topo).unwrap();
            let (ml0, ml1) = (max_load(&g, &topo, &at), max_load(&g, &topo, &m));
            prop_assert!(ml1 <= ml0 * (1.0 + 1e-9), "max load {} > {}", ml1, ml0);
            let (hb0, hb1) = (hop_bytes(&g, &topo, &at), hop_bytes(&g, &topo, &m));
            // The flat budget, and beyond it LOAD_PRICE per relative fall
            // of the max load (`refine::keep_best`).
            let gain = if ml0 > 0.0 { ((ml0 - ml1) / ml0).max(0.0) } else { 0.0 };
            let allowed = budget + refine::keep_best::LOAD_PRICE * gain;
            prop_assert!(
                hb1 <= hb0 * (1.0 + allowed) + 1e-9,
                "hop-bytes {} > {} + {}", hb1, hb0, allowed
            );
            prop_assert!((hb1 - r.hop_bytes()).abs() <= 1e-6 * hb1.max(1.0));
            if let Some((s, _, _)) = r.load_phase() {
                prop_assert!((s - ml0).abs() <= 1e-9 * ml0.max(1.0));
            }
            prop_assert_eq!(run()?.1.mapping(), m);
        }

        #[test]
        fn refinement_never_increases_its_objective(
            k in 0..TOPOS.len(), fill in 0.2f64..=1.0, seed in 0u64..1000, o in 0usize..3
        ) {
            let objective = [Objective::HopBytes, Objective::MaxLoad, Objective::SqLoad][o];
            let topo = Arc::new(Topology::parse(TOPOS[k]).unwrap());
            let n = ((topo.num_slots() as f64 * fill) as usize).max(2);
            let g = Arc::new(random_graph(n, seed));
            let start = crate::mappers::run(
                &super::super::random::info(),
                &MapperInput::new(g.clone(), topo.clone(), seed),
            ).unwrap();
            let before = objective_of(&g, &topo, &start, objective);
            let params = RefineParams {
                objective, sweeps: 50, batch: 3, depth: 1, time: None, seed, tol: 0.0,
                load_budget: 0.0,
                tabu: 0,
                kicks: crate::mappers::recursive::refine::kicks::KICKS_PER_PROCESS,
            };
            let vol = Arc::new(crate::partition::pair_volumes(&g));
            let mut r = Refine::new(g.clone(), topo.clone(), vol, start, params);
            prop_assert!((r.objective() - before).abs() <= 1e-6 * before.max(1.0));
            while !r.is_done() {
                r.step();
                prop_assert!(r.cost_cache_error() <= 1e-9 * before.max(1.0));
            }
            let tr = r.objective_trace();
            prop_assert!(tr.windows(2).all(|w| w[1] <= w[0] * (1.0 + 1e-9) + 1e-9), "{:?}", tr);
            let m = r.mapping();
            m.validate(n, &topo).unwrap();
            let after = objective_of(&g, &topo, &m, objective);
            prop_assert!(after <= before * (1.0 + 1e-9) + 1e-9, "{} > {}", after, before);
            prop_assert!((after - r.objective()).abs() <= 1e-6 * after.max(1.0));
            let hb = hop_bytes(&g, &topo, &m);
            prop_assert!((hb - r.hop_bytes()).abs() <= 1e-6 * hb.max(1.0));
        }
    }
}
