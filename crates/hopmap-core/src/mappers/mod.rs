//! Mappers: algorithms that place a communication graph's processes onto a
//! topology's slots. Every mapper is listed once in [`registry`], under its
//! paper's name and a short id; the GUI and the CLI take the list from there.
//!
//! Every mapper runs as a [`MapperRun`]: a [`Stepper`] whose current partial
//! mapping can be read between steps, so the GUI can animate a greedy
//! placement one process at a time and the CLI can run it to the end with
//! the same code. A front end reads a run's internals (last step, frontier,
//! layout, tree, the facts of its last step that the app's guided mode
//! words) from the concrete run that [`MapperRun::inspect`] returns as a
//! [`RunRef`].
//!
//! Every entry declares its parameters ([`ParamSpec`]: key, kind and range,
//! default, help), so the GUI can show a control per parameter, `hopmap
//! mappers --long` can list them, and [`MapperInfo::check_params`] can
//! reject unknown keys and out-of-range values before any work.

pub mod affn;
pub mod analytical;
pub mod bft;
pub mod bm;
pub mod cdl;
pub mod coce;
pub mod coce_mht;
pub mod default;
pub mod gravity;
pub mod greedy;
pub mod grid_embed;
pub mod mht;
pub mod pairs;
pub mod permutation;
pub mod phased;
pub mod pipeline;
pub mod random;
pub mod recursive;
pub mod run_ref;
pub mod scotch;
pub mod sm;

pub use run_ref::RunRef;

pub use pipeline::{
    Selected, finish, parse_param, parse_params, prepare, resolve, run, run_cancellable,
    with_defaults,
};

use crate::error::{Error, Result};
use crate::graph::CommGraph;
use crate::mapping::Mapping;
use crate::step::Stepper;
use crate::topology::Topology;
use std::sync::Arc;

/// Everything a mapper is given.
#[derive(Clone, Debug)]
pub struct MapperInput {
    pub graph: Arc<CommGraph>,
    pub topo: Arc<Topology>,
    /// Mapper parameters as `key=value` strings, parsed by each mapper; the
    /// keys, types and ranges are declared in [`MapperInfo::params`];
    /// [`prepare`] checks them and fills in the schema's defaults.
    pub params: Vec<(String, String)>,
    pub seed: u64,
}

impl MapperInput {
    pub fn new(graph: Arc<CommGraph>, topo: Arc<Topology>, seed: u64) -> Self {
        MapperInput {
            graph,
            topo,
            params: Vec::new(),
            seed,
        }
    }
    /// A parameter's value, if given.
    pub fn param(&self, key: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
    /// Parameter `key` parsed as `T`: the given value, else the default that
    /// `specs` (the mapper's schema) declares. The one place defaults live.
    pub fn get<T: std::str::FromStr>(&self, specs: &[ParamSpec], key: &str) -> Result<T> {
        let v = match self.param(key) {
            Some(v) => v,
            None => {
                specs
                    .iter()
                    .find(|p| p.key == key)
                    .ok_or_else(|| {
                        Error::Unsupported(format!("parameter `{key}` is not in the schema"))
                    })?
                    .default
            }
        };
        v.trim().parse().map_err(|_| {
            Error::spec(
                "mapper parameter",
                &format!("{key}={v}"),
                "expected a number",
            )
        })
    }
    /// Fails unless the graph fits in the topology's slots.
    pub fn check_fits(&self) -> Result<()> {
        if self.graph.n() > self.topo.num_slots() {
            return Err(Error::Unsupported(format!(
                "{} processes do not fit in {} slots of {}",
                self.graph.n(),
                self.topo.num_slots(),
                self.topo.spec()
            )));
        }
        Ok(())
    }
}

/// What the last step of a mapper did, for animation.
#[derive(Clone, Debug, PartialEq)]
pub enum StepEvent {
    /// A greedy placement put `process` on `slot`; it wanted to go to
    /// `desired` (topology coordinates, possibly fractional, e.g. a centroid)
    /// and findNearest chose `slot`.
    Placed {
        process: usize,
        desired: Vec<f64>,
        slot: usize,
    },
    /// A batch of swaps (pairwise exchange); hop-bytes after the batch.
    Swaps {
        swapped: Vec<(usize, usize)>,
        hop_bytes: f64,
    },
    /// A whole mapping was produced at once (e.g. a permutation order).
    Whole,
    /// A step that concerns a group of processes, which guided mode
    /// highlights: the part a recursive bisection cut, the ranks a
    /// permutation order (or a random placement) puts down first, the
    /// processes a legalization step migrated.
    Group { processes: Vec<usize> },
}

impl StepEvent {
    /// The processes the step concerns, for highlighting: the one placed,
    /// both processes of every exchange (once each; a move into a free core
    /// names its process once), the group. O(size of the event).
    pub fn processes(&self) -> Vec<usize> {
        match self {
            StepEvent::Placed { process, .. } => vec![*process],
            StepEvent::Swaps { swapped, .. } => {
                let mut v = Vec::with_capacity(2 * swapped.len());
                for &(p, q) in swapped {
                    v.push(p);
                    if q != p {
                        v.push(q);
                    }
                }
                v
            }
            StepEvent::Group { processes } => processes.clone(),
            StepEvent::Whole => Vec::new(),
        }
    }
}

/// A mapper in progress: a [`Stepper`] (step, progress, why it stopped)
/// whose placement so far and result can be read between steps. That is
/// all the pipeline, the CLI and `compare` need. What a front end shows of
/// a run's internals (its last event, frontier, trace, layout, bipartition
/// tree, what its last step did) is read from the concrete run, reached through
/// [`MapperRun::inspect`]'s typed borrow ([`RunRef`]).
pub trait MapperRun: Stepper + Send {
    /// Slot of each process so far (None = not placed yet).
    fn placement(&self) -> &[Option<u32>];
    /// The finished mapping (None until done).
    fn result(&self) -> Option<Mapping>;
    /// Why a run that stopped with [`crate::step::Stop::Failed`] failed.
    fn error(&self) -> Option<&Error> {
        None
    }
    /// The concrete run, borrowed: one [`RunRef`] variant per kind of run.
    fn inspect(&self) -> RunRef<'_>;
}

/// The networks a mapper runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Networks {
    /// Meshes and tori only: it reads grid coordinates or orders.
    Grids,
    /// Meshes, tori and switch fabrics: it needs only the distance between
    /// nodes (and the routes, to evaluate).
    Any,
}

impl Networks {
    /// Whether a mapper with this reach runs on `topo`.
    pub fn allows(self, topo: &Topology) -> bool {
        self == Networks::Any || topo.as_fabric().is_none()
    }
}

/// A registry entry.
#[derive(Clone)]
pub struct MapperInfo {
    /// Short id used on the command line (`mht`, `coce+mht`, `xyzt`...).
    pub id: &'static str,
    /// Display name.
    pub name: &'static str,
    /// Paper and section, e.g. "Bhatele & Kale §IV, Heuristic 2".
    pub paper: &'static str,
    /// One paragraph that teaches the idea (GUI tooltip, `--help`).
    pub doc: &'static str,
    /// Whether the mapper needs per-process coordinates.
    pub needs_coords: bool,
    /// Whether the mapper uses the seed.
    pub randomized: bool,
    /// The parameters it reads from [`MapperInput::params`] (empty: none).
    pub params: &'static [ParamSpec],
    /// The networks it runs on; on others it is listed disabled and its
    /// start fails with a message that says why.
    pub networks: Networks,
    /// Whether it keeps state per node or per slot (free lists, k-d trees of
    /// the free nodes, permutations of the slots), so that its memory
    /// follows the network's size: such a mapper is refused on networks
    /// over [`crate::mapping::MAX_MAPPER_SLOTS`] slots before any work.
    pub per_node_state: bool,
    /// An external peer program: the check that it is installed, whose
    /// error says how to install it. `None` for a built-in mapper.
    pub external: Option<fn() -> std::result::Result<(), String>>,
    /// Start a run. Fails with a clear message if it cannot run on the input.
    pub start: fn(&MapperInput) -> Result<Box<dyn MapperRun>>,
}

/// The type and range of a mapper parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamKind {
    /// An integer in `min..=max`.
    Int { min: i64, max: i64 },
    /// A finite number in `min..=max`.
    Float { min: f64, max: f64 },
    /// One of the listed words (compared without regard to case).
    Choice(&'static [&'static str]),
    /// Free text, checked by the mapper itself.
    Text,
}

impl std::fmt::Display for ParamKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParamKind::Int { min, max } => write!(f, "integer {min}..={max}"),
            ParamKind::Float { min, max } => write!(f, "number {min}..={max}"),
            ParamKind::Choice(c) => write!(f, "{}", c.join("|")),
            ParamKind::Text => write!(f, "text"),
        }
    }
}

/// One parameter of a mapper: its key, type and range, default (as it is
/// written on the command line) and a one-line help.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParamSpec {
    pub key: &'static str,
    pub kind: ParamKind,
    pub default: &'static str,
    pub help: &'static str,
}

impl ParamSpec {
    /// Check one value against the kind; the error names the key, the value
    /// and what was expected.
    pub fn check(&self, value: &str) -> Result<()> {
        let v = value.trim();
        let bad = |expected: String| {
            Err(Error::spec(
                "mapper parameter",
                &format!("{}={value}", self.key),
                expected,
            ))
        };
        match self.kind {
            ParamKind::Int { min, max } => match v.parse::<i64>() {
                Ok(x) if (min..=max).contains(&x) => Ok(()),
                Ok(_) => bad(format!(
                    "out of range; expected an integer in {min}..={max}"
                )),
                Err(_) => bad(format!("expected an integer in {min}..={max}")),
            },
            ParamKind::Float { min, max } => match v.parse::<f64>() {
                Ok(x) if x.is_finite() && x >= min && x <= max => Ok(()),
                Ok(_) => bad(format!("out of range; expected a number in {min}..={max}")),
                Err(_) => bad(format!("expected a number in {min}..={max}")),
            },
            ParamKind::Choice(c) => {
                if c.iter().any(|w| w.eq_ignore_ascii_case(v)) {
                    Ok(())
                } else {
                    bad(format!("expected one of {}", c.join(", ")))
                }
            }
            ParamKind::Text => Ok(()),
        }
    }
}

/// `find=tree|spiral`: the findNearest of the greedy placements.
pub const FIND_PARAM: ParamSpec = ParamSpec {
    key: "find",
    kind: ParamKind::Choice(&["tree", "spiral"]),
    default: "tree",
    help: "findNearest: `tree` (k-d tree of the free nodes) or `spiral` (search shells of \
           growing radius, as in the paper); both return the same nearest free node",
};

/// `coords=none|infer`: infer process coordinates with the gravitational
/// layout before mapping (a first phase of the run: [`prepare`]).
pub const COORDS_PARAM: ParamSpec = ParamSpec {
    key: "coords",
    kind: ParamKind::Choice(&["none", "infer"]),
    default: "none",
    help: "`infer`: give the graph coordinates from the gravitational layout before mapping \
           (Bhatele & Kale §V), for graphs without coordinates",
};

impl MapperInfo {
    /// Whether this mapper can run on this machine. Every built-in mapper
    /// can; an external peer ([`MapperInfo::external`]) needs its program on
    /// `PATH`, and the error says how to install it. Front ends show an
    /// unavailable entry disabled with this message; `start` fails with the
    /// same message.
    pub fn available(&self) -> std::result::Result<(), String> {
        self.external.map_or(Ok(()), |check| check())
    }

    /// The spec of parameter `key`, if the mapper has one.
    pub fn param_spec(&self, key: &str) -> Option<&'static ParamSpec> {
        self.params.iter().find(|p| p.key == key)
    }

    /// Reject unknown keys and values of the wrong type or out of range.
    pub fn check_params(&self, params: &[(String, String)]) -> Result<()> {
        for (k, v) in params {
            let Some(spec) = self.param_spec(k.trim()) else {
                let known = if self.params.is_empty() {
                    "it takes no parameters".to_string()
                } else {
                    let keys: Vec<&str> = self.params.iter().map(|p| p.key).collect();
                    format!("known: {}", keys.join(", "))
                };
                return Err(Error::spec(
                    "mapper parameter",
                    &format!("{k}={v}"),
                    format!("mapper {} has no parameter `{k}`; {known}", self.id),
                ));
            };
            spec.check(v)?;
        }
        Ok(())
    }

    /// Keep only the parameters this mapper declares (used when a mapper
    /// runs another one, e.g. PAIRS its starting mapper).
    pub fn own_params(&self, params: &[(String, String)]) -> Vec<(String, String)> {
        params
            .iter()
            .filter(|(k, _)| self.param_spec(k.trim()).is_some())
            .cloned()
            .collect()
    }
}

impl std::fmt::Debug for MapperInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MapperInfo").field("id", &self.id).finish()
    }
}

/// Every registered mapper, in display order.
pub fn registry() -> Vec<MapperInfo> {
    let mut v = vec![default::info(), random::info()];
    // Balaji et al.: permutation orders and the contention-model pick.
    v.push(permutation::info());
    v.extend(permutation::convenience_infos());
    v.push(cdl::info());
    // Bhatele & Kale: greedy heuristics and pairwise exchange.
    v.extend([
        bft::info(),
        mht::info(),
        affn::info(),
        coce::info(),
        coce_mht::info(),
        pairs::info(),
    ]);
    // Bobrik & Popova: the gravitational layout.
    v.extend([gravity::info(), gravity::info_greedy()]);
    // Wu et al.: analytical mapping (and PAIRS from it).
    v.extend([analytical::info(), analytical::info_pairs()]);
    // Beyond the seeds: dual recursive bipartitioning (Scotch) + VieM refinement.
    v.extend([recursive::info(), recursive::info_refine()]);
    // Beyond the seeds: recognise a process grid, then tile and fold it.
    v.push(grid_embed::info());
    // Moh et al.: switch fabrics.
    v.extend([sm::info(), bm::info()]);
    // External peers (run only when their tool is installed: `available`).
    v.push(scotch::info());
    v
}

/// Find a mapper by id (case-insensitive).
pub fn find(id: &str) -> Option<MapperInfo> {
    registry()
        .into_iter()
        .find(|m| m.id.eq_ignore_ascii_case(id))
}

/// At most this many processes a one-shot mapper's step highlights.
pub const MAX_HIGHLIGHT: usize = 64;

/// How a one-shot mapper laid the ranks out: the fact guided mode words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OneShotPlan {
    /// A permutation order on a grid (Balaji et al. §2.2); `launcher` when
    /// it is `default`'s order (what a launcher does without topology
    /// information), else the mapper is named by the order string.
    Order {
        order: Vec<permutation::Axis>,
        launcher: bool,
    },
    /// RM: a uniformly random placement, a Fisher–Yates shuffle of the
    /// slots seeded with `seed`.
    Random { seed: u64 },
    /// `default` off a grid: rank i on slot i, hosts in their listed order.
    Linear,
}

/// A mapper that produces its whole mapping in one step (default, random,
/// permutation orders). Shared by the non-iterative mappers.
pub struct OneShot {
    cores: usize,
    placement: Vec<Option<u32>>,
    mapping: Option<Mapping>,
    pending: Option<Mapping>,
    event: Option<StepEvent>,
    topo: Arc<Topology>,
    /// How the ranks were laid out, and the processes the step highlights.
    plan: Option<(OneShotPlan, Vec<usize>)>,
}

impl OneShot {
    pub fn new(mapping: Mapping, topo: &Arc<Topology>) -> Self {
        OneShot {
            cores: topo.cores(),
            placement: vec![None; mapping.len()],
            mapping: None,
            pending: Some(mapping),
            event: None,
            topo: topo.clone(),
            plan: None,
        }
    }

    /// How the one step lays the ranks out, and the processes it
    /// highlights (computed at start: O(1) to O(D + run)).
    pub fn with_plan(mut self, plan: OneShotPlan, processes: Vec<usize>) -> Self {
        self.plan = Some((plan, processes));
        self
    }
}

impl Stepper for OneShot {
    fn step(&mut self) -> crate::step::StepState {
        if let Some(m) = self.pending.take() {
            self.placement = (0..m.len())
                .map(|p| Some(m.slot(p, self.cores) as u32))
                .collect();
            self.mapping = Some(m);
            self.event = Some(match &self.plan {
                Some((_, p)) if !p.is_empty() => StepEvent::Group {
                    processes: p.clone(),
                },
                _ => StepEvent::Whole,
            });
        }
        self.state()
    }
    fn state(&self) -> crate::step::StepState {
        if self.mapping.is_some() {
            crate::step::StepState::Stopped(crate::step::Stop::Complete)
        } else {
            crate::step::StepState::Running
        }
    }
    fn progress(&self) -> crate::step::Progress {
        crate::step::Progress::new(self.mapping.is_some() as usize, Some(1))
    }
}

impl OneShot {
    /// What the one step did (None before it).
    pub fn last_event(&self) -> Option<&StepEvent> {
        self.event.as_ref()
    }
    /// How the one step laid the ranks out (None before it).
    pub fn plan(&self) -> Option<&OneShotPlan> {
        self.event.as_ref()?;
        self.plan.as_ref().map(|(p, _)| p)
    }
    /// The topology the ranks were laid out on.
    pub fn topology(&self) -> &Topology {
        &self.topo
    }
}

impl MapperRun for OneShot {
    fn placement(&self) -> &[Option<u32>] {
        &self.placement
    }
    fn result(&self) -> Option<Mapping> {
        self.mapping.clone()
    }
    fn inspect(&self) -> RunRef<'_> {
        RunRef::OneShot(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kv(k: &str, v: &str) -> Vec<(String, String)> {
        vec![(k.to_string(), v.to_string())]
    }

    #[test]
    fn int_params_are_checked_for_type_and_range() {
        let p = find("pairs").unwrap();
        assert!(p.check_params(&kv("sweeps", "0")).is_ok());
        assert!(p.check_params(&kv("sweeps", " 7 ")).is_ok());
        let e = p.check_params(&kv("sweeps", "-1")).unwrap_err().to_string();
        assert!(e.contains("sweeps=-1") && e.contains("0..=1000000"), "{e}");
        let e = p.check_params(&kv("batch", "0")).unwrap_err().to_string();
        assert!(e.contains("out of range"), "{e}");
        let e = p
            .check_params(&kv("radius", "1.5"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("expected an integer"), "{e}");
    }

    #[test]
    fn float_params_are_checked_for_type_and_range() {
        let g = find("gravity").unwrap();
        assert!(g.check_params(&kv("theta", "0.5")).is_ok());
        assert!(g.check_params(&kv("theta", "2")).is_ok());
        let e = g.check_params(&kv("theta", "2.5")).unwrap_err().to_string();
        assert!(e.contains("theta=2.5") && e.contains("out of range"), "{e}");
        assert!(g.check_params(&kv("c_rep", "NaN")).is_err());
        assert!(g.check_params(&kv("c_rep", "inf")).is_err());
        assert!(g.check_params(&kv("c_att", "strong")).is_err());
    }

    #[test]
    fn choice_params_accept_listed_words_in_any_case() {
        let m = find("mht").unwrap();
        assert!(m.check_params(&kv("find", "spiral")).is_ok());
        assert!(m.check_params(&kv("find", "TREE")).is_ok());
        let e = m
            .check_params(&kv("find", "brute"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("tree, spiral"), "{e}");
    }

    #[test]
    fn text_params_pass_through_and_unknown_keys_are_rejected() {
        let p = find("perm").unwrap();
        assert!(p.check_params(&kv("order", "ZYXT")).is_ok());
        let e = p.check_params(&kv("sweeps", "3")).unwrap_err().to_string();
        assert!(
            e.contains("no parameter `sweeps`") && e.contains("known: order"),
            "{e}"
        );
        let d = find("default").unwrap();
        let e = d.check_params(&kv("find", "tree")).unwrap_err().to_string();
        assert!(e.contains("takes no parameters"), "{e}");
    }

    #[test]
    fn every_registry_default_passes_its_own_check() {
        for info in registry() {
            let mut keys = std::collections::HashSet::new();
            for p in info.params {
                assert!(keys.insert(p.key), "{}: duplicate key {}", info.id, p.key);
                assert!(!p.help.is_empty(), "{}: {} has no help", info.id, p.key);
                if let ParamKind::Int { min, max } = p.kind {
                    assert!(min <= max, "{}: {}", info.id, p.key);
                }
                if let ParamKind::Float { min, max } = p.kind {
                    assert!(min <= max, "{}: {}", info.id, p.key);
                }
            }
            let defaults: Vec<(String, String)> = info
                .params
                .iter()
                .map(|p| (p.key.to_string(), p.default.to_string()))
                .collect();
            info.check_params(&defaults)
                .unwrap_or_else(|e| panic!("{}: {e}", info.id));
        }
    }

    #[test]
    fn run_rejects_unknown_parameters_before_mapping() {
        use crate::graph::GraphBuilder;
        let mut b = GraphBuilder::new(4, false);
        b.add(0, 1, 1.0);
        let g = Arc::new(b.build().unwrap());
        let t = Arc::new(Topology::parse("mesh:2x2").unwrap());
        let mut input = MapperInput::new(g, t, 0);
        input.params = kv("sweep", "3");
        let e = run(&find("pairs").unwrap(), &input)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no parameter `sweep`"), "{e}");
        input.params = kv("sweeps", "3");
        assert!(run(&find("pairs").unwrap(), &input).is_ok());
    }

    #[test]
    fn pairs_from_choices_are_the_registry_minus_pairs() {
        let mut want: Vec<&str> = registry()
            .iter()
            .map(|i| i.id)
            .filter(|&id| id != "pairs")
            .collect();
        let mut got = pairs::FROM_CHOICES.to_vec();
        want.sort_unstable();
        got.sort_unstable();
        assert_eq!(got, want);
    }
}
