//! `pairs`: pairwise exchange (Bokhari 1981, ref. \[5\] of Bhatele & Kale; the
//! PAIRS baseline of their §VII-B), starting from the MHT mapping (as the
//! paper does; beyond the paper, `from=ID` starts from another mapper's
//! result, e.g. `from=affn` when the graph has coordinates).
//!
//! For each process `p` (a seeded random order per sweep) the candidate
//! nodes are the ball of radius `radius` (default 1) around the rounded
//! torus-aware centroid of `p`'s partners' nodes weighted by pair volume, plus the grid neighbours of
//! `p`'s own node. On each candidate node every occupied core is a swap
//! partner and one free core (if any) is a move target. The hop-bytes change
//! of each exchange is computed incrementally in O(deg p + deg q), for p on
//! node a and q on node b:
//!
//! `Δ = Σ_v c_pv (d(b, φ_v) − d(a, φ_v)) + Σ_v c_qv (d(a, φ_v) − d(b, φ_v)) + 2 c_pq d(a, b)`
//!
//! (the last term undoes the p–q pair counted in both sums, whose distance a
//! swap does not change). The best exchange is kept when it
//! lowers hop-bytes (by more than a relative 1e-12, to stop on rounding noise).
//!
//! One step considers a batch of `batch` processes (default 256) and reports
//! the exchanges kept ([`StepEvent::Swaps`]: process pairs; a move into a free
//! core is reported as `(p, p)`) and the hop-bytes after the batch, also kept
//! in [`RunRef::hop_bytes_trace`](super::RunRef::hop_bytes_trace). The run stops at a local optimum (`n`
//! consecutive processes without an improvement, i.e. a full sweep) or after
//! `sweeps` sweeps (default 100), or when the optional `time_ms` budget is
//! exceeded (`time_ms=0`, the default, means no time budget; only this
//! budget makes the result depend on the machine).
//! Hop-bytes never increase. Cost per sweep: O(Σ_p (ball size · cores ·
//! average degree)) ≈ O(m · cores · 2^D).
//!
//! **On switch fabrics** (beyond the paper, which works on tori): a fabric
//! has no coordinates, so the "centroid" of `p`'s partners is their
//! weighted *medoid*: the partner switch `m` that minimizes
//! `Σ_v c_pv · d(m, switch of φ_v)` (up*/down* switch hops; over the 32
//! heaviest partners, so O(deg + 32²)). The candidates are the hosts on the
//! switches within `radius` switch hops of `m` (a breadth-first search over
//! the inter-switch links) and the hosts on `p`'s own switch. Gains use the
//! fabric's up*/down* distance, so PAIRS lowers the weighted cardinality.

use super::greedy::weighted_centroid_of_nodes;
use super::phased::Phased;
use super::{
    COORDS_PARAM, FIND_PARAM, MapperInfo, MapperInput, MapperRun, ParamKind, ParamSpec, StepEvent,
};
use crate::error::{Error, Result};
use crate::find_nearest::{Spiral, round_to_coord};
use crate::graph::CommGraph;
use crate::mappers::Networks;
use crate::mapping::Mapping;
use crate::rng::Rng;
use crate::step::{Progress, StepState, Stepper, Stop};
use crate::topology::{Fabric, Grid, Topology};
use std::sync::Arc;
use std::time::{Duration, Instant};

const FREE: u32 = u32::MAX;

pub fn info() -> MapperInfo {
    MapperInfo {
        id: "pairs",
        name: "Pairwise Exchange (PAIRS)",
        paper: "Bhatele & Kale §VII-B (Bokhari's pairwise exchanges, ref. [5])",
        doc: "Start from the MHT mapping and improve it by local search: for each process, try \
              swapping it with the processes near the centroid of its partners (or moving it to a \
              free core there) and keep the best swap that lowers hop-bytes. Each swap's gain is \
              computed from the two processes' edges only. On a switch fabric the \
              centroid is the partners' medoid switch and the candidates are the hosts within \
              `radius` switch hops of it. Stops when a full sweep finds nothing \
              (a local optimum) or at the sweep/time budget. Params: sweeps, batch, radius, time_ms, \
              from (start mapper, default mht).",
        needs_coords: false,
        randomized: true,
        params: PAIRS_PARAMS,
        networks: Networks::Any,
        per_node_state: true,
        external: None,
        start,
    }
}

/// The mapper ids `from=` accepts (every registry id but `pairs`; a test
/// checks that this list matches the registry).
pub const FROM_CHOICES: &[&str] = &[
    "mht",
    "grid",
    "sm",
    "bm",
    "default",
    "random",
    "perm",
    "xyzt",
    "tzxy",
    "zyxt",
    "cdl",
    "bft",
    "affn",
    "coce",
    "coce+mht",
    "gravity",
    "gravity-greedy",
    "analytical",
    "analytical+pairs",
    "recursive",
    "recursive+refine",
    "scotch",
];

/// The parameters of `pairs`. `find` and `coords` are passed on to the
/// starting mapper when it takes them.
pub const PAIRS_PARAMS: &[ParamSpec] = &[
    ParamSpec {
        key: "sweeps",
        kind: ParamKind::Int {
            min: 0,
            max: 1_000_000,
        },
        default: "100",
        help: "at most this many sweeps over all processes (0 = keep the starting mapping)",
    },
    ParamSpec {
        key: "batch",
        kind: ParamKind::Int {
            min: 1,
            max: 1_000_000,
        },
        default: "256",
        help: "processes tried per step (one animation frame / one point of the hop-bytes plot)",
    },
    ParamSpec {
        key: "radius",
        kind: ParamKind::Int { min: 0, max: 16 },
        default: "1",
        help: "swap candidates: nodes within this many hops of the centroid of a process's \
               partners (cost grows as radius^D)",
    },
    ParamSpec {
        key: "time_ms",
        kind: ParamKind::Int {
            min: 0,
            max: 86_400_000,
        },
        default: "0",
        help: "stop after this many milliseconds (0 = no time budget); a budget makes the \
               result depend on the machine's speed",
    },
    ParamSpec {
        key: "from",
        kind: ParamKind::Choice(FROM_CHOICES),
        default: "mht",
        help: "the mapper whose result is improved (the paper starts from MHT)",
    },
    FIND_PARAM,
    COORDS_PARAM,
];

fn start(input: &MapperInput) -> Result<Box<dyn MapperRun>> {
    let net = Net::of(&input.topo);
    input.check_fits()?;
    let params = PairsParams {
        sweeps: input.get(PAIRS_PARAMS, "sweeps")?,
        batch: input.get::<usize>(PAIRS_PARAMS, "batch")?.max(1),
        radius: input.get(PAIRS_PARAMS, "radius")?,
        time: match input.get::<u64>(PAIRS_PARAMS, "time_ms")? {
            0 => None,
            t => Some(Duration::from_millis(t)),
        },
        seed: input.seed,
    };
    let from: String = input.get(PAIRS_PARAMS, "from")?;
    let init_info = super::find(&from)
        .filter(|i| i.id != "pairs")
        .ok_or_else(|| {
            Error::spec(
                "pairs parameter",
                &format!("from={from}"),
                "expected a mapper id other than pairs",
            )
        })?;
    // The starting mapper gets only the parameters it declares; `coords`
    // only if the graph still has no coordinates (else they are inferred twice).
    let mut init_input = input.clone();
    init_input.params = init_info.own_params(&input.params);
    if input.graph.coords().is_some() {
        init_input.params.retain(|(k, _)| k != "coords");
    }
    // Phase 1 steps the starting mapper; phase 2 exchanges.
    let first = super::prepare(&init_info, &init_input)?;
    let graph = input.graph.clone();
    let topo = input.topo.clone();
    Ok(Box::new(Phased::chain(
        first,
        Box::new(move |initial| {
            initial.validate(graph.n(), &topo)?;
            Ok(Box::new(Pairs::with_net(graph, net, initial, params)) as Box<dyn MapperRun>)
        }),
    )))
}

/// The network PAIRS exchanges on: a mesh/torus (with its spiral for the
/// ball around the centroid) or a switch fabric.
enum Net {
    Grid(Grid, Box<Spiral>),
    Fabric(Fabric),
}

impl Net {
    fn of(topo: &Topology) -> Net {
        // Exhaustive on purpose: a new kind of topology must say how PAIRS
        // finds its candidates.
        match topo {
            Topology::Grid(g) => Net::Grid(g.clone(), Box::new(Spiral::new(g))),
            Topology::Fabric(f) => Net::Fabric(f.clone()),
        }
    }
    fn cores(&self) -> usize {
        match self {
            Net::Grid(g, _) => g.cores() as usize,
            Net::Fabric(f) => f.cores() as usize,
        }
    }
    fn num_nodes(&self) -> usize {
        match self {
            Net::Grid(g, _) => g.num_nodes(),
            Net::Fabric(f) => f.num_hosts(),
        }
    }
    #[inline]
    fn distance(&self, a: usize, b: usize) -> u32 {
        match self {
            Net::Grid(g, _) => g.distance(a, b),
            Net::Fabric(f) => f.distance(a, b),
        }
    }
}

/// Candidate hosts on a fabric (see the module doc): the hosts within
/// `radius` switch hops of the partners' weighted medoid switch, and those
/// on the switch of host `a`.
fn fabric_candidates(
    f: &Fabric,
    partners: impl Iterator<Item = (usize, f64)>,
    radius: u32,
    a: usize,
    out: &mut Vec<usize>,
) {
    let mut sw: Vec<(f64, usize)> = partners.map(|(h, c)| (c, f.switch_of(h))).collect();
    sw.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
    sw.truncate(32);
    let ud = f.updown();
    let mut best: Option<(f64, usize)> = None;
    for &(_, m) in &sw {
        let cost: f64 = sw
            .iter()
            .map(|&(c, s)| c * if s == m { 0.0 } else { ud.dist(m, s) as f64 })
            .sum();
        if best.is_none_or(|(bc, bm)| cost < bc || (cost == bc && m < bm)) {
            best = Some((cost, m));
        }
    }
    let Some((_, m)) = best else {
        return;
    };
    // Switches within `radius` hops of m (BFS over inter-switch links).
    let mut ring = vec![m];
    let mut seen = vec![m];
    let mut member = std::collections::HashSet::from([m]);
    for _ in 0..radius {
        let mut next = Vec::new();
        for &u in &ring {
            for &(v, _) in f.switch_adj(u) {
                if member.insert(v as usize) {
                    seen.push(v as usize);
                    next.push(v as usize);
                }
            }
        }
        ring = next;
    }
    seen.push(f.switch_of(a));
    for s in seen {
        out.extend(f.hosts_on(s).iter().map(|&h| h as usize));
    }
}

/// PAIRS settings.
#[derive(Clone, Copy, Debug)]
pub struct PairsParams {
    pub sweeps: usize,
    pub batch: usize,
    pub radius: u32,
    pub time: Option<Duration>,
    pub seed: u64,
}

/// A pairwise-exchange run over an initial mapping.
pub struct Pairs {
    graph: Arc<CommGraph>,
    net: Net,
    cores: usize,
    /// Pair volume c_uv aligned with the CSR entries.
    vol: Vec<f64>,
    node_of: Vec<u32>,
    core_of: Vec<u32>,
    owner: Vec<u32>,
    placement: Vec<Option<u32>>,
    hb: f64,
    eps: f64,
    trace: Vec<f64>,
    event: Option<StepEvent>,
    order: Vec<u32>,
    pos: usize,
    sweep: usize,
    since_improve: usize,
    params: PairsParams,
    rng: Rng,
    deadline: Option<Instant>,
    /// Why the search stopped (None while running).
    stop: Option<Stop>,
    cand: Vec<usize>,
}

impl Pairs {
    /// Start from `initial` (a valid mapping of `graph` on `grid`).
    pub fn new(graph: Arc<CommGraph>, grid: &Grid, initial: Mapping, params: PairsParams) -> Self {
        Self::with_net(
            graph,
            Net::Grid(grid.clone(), Box::new(Spiral::new(grid))),
            initial,
            params,
        )
    }

    fn with_net(graph: Arc<CommGraph>, net: Net, initial: Mapping, params: PairsParams) -> Self {
        let n = graph.n();
        let cores = net.cores();
        let num_nodes = net.num_nodes();
        let mut vol = Vec::with_capacity(graph.num_entries());
        for u in 0..n {
            for (&v, &s) in graph.neighbors(u).iter().zip(graph.sent_row(u)) {
                vol.push(s + graph.sent_between(v as usize, u));
            }
        }
        let mut owner = vec![FREE; num_nodes * cores];
        for p in 0..n {
            owner[initial.slot(p, cores)] = p as u32;
        }
        let placement = (0..n)
            .map(|p| Some(initial.slot(p, cores) as u32))
            .collect();
        let mut me = Pairs {
            graph,
            net,
            cores,
            vol,
            node_of: initial.node,
            core_of: initial.core,
            owner,
            placement,
            hb: 0.0,
            eps: 0.0,
            trace: Vec::new(),
            event: None,
            order: (0..n as u32).collect(),
            pos: n,
            sweep: 0,
            since_improve: 0,
            params,
            rng: Rng::new(params.seed),
            deadline: params.time.map(|t| Instant::now() + t),
            stop: (n < 2 && num_nodes < 2).then_some(Stop::LocalOptimum),
            cand: Vec::new(),
        };
        me.hb = me.total_hop_bytes();
        me.eps = 1e-12 * me.graph.total_bytes().max(1.0);
        me.trace.push(me.hb);
        if n == 0 {
            me.stop = Some(Stop::LocalOptimum);
        } else if params.sweeps == 0 {
            me.stop = Some(Stop::IterationLimit);
        }
        me
    }

    /// Current hop-bytes (kept incrementally).
    pub fn hop_bytes(&self) -> f64 {
        self.hb
    }

    /// Hop-bytes recomputed from scratch. O(m).
    pub fn total_hop_bytes(&self) -> f64 {
        let g = &self.graph;
        let mut s = 0.0;
        for u in 0..g.n() {
            let a = self.node_of[u] as usize;
            for (k, &v) in g.neighbors(u).iter().enumerate() {
                if (v as usize) > u {
                    let b = self.node_of[v as usize] as usize;
                    s += self.vol[g.offsets()[u] + k] * self.net.distance(a, b) as f64;
                }
            }
        }
        s
    }

    /// Σ_v c_pv (d(to, φ_v) − d(from, φ_v)) over p's partners.
    fn move_gain(&self, p: usize, from: usize, to: usize) -> f64 {
        let off = self.graph.offsets()[p];
        let mut s = 0.0;
        for (k, &v) in self.graph.neighbors(p).iter().enumerate() {
            let nv = self.node_of[v as usize] as usize;
            s += self.vol[off + k]
                * (self.net.distance(to, nv) as f64 - self.net.distance(from, nv) as f64);
        }
        s
    }

    fn pair_volume(&self, p: usize, q: usize) -> f64 {
        match self.graph.neighbors(p).binary_search(&(q as u32)) {
            Ok(k) => self.vol[self.graph.offsets()[p] + k],
            Err(_) => 0.0,
        }
    }

    /// Try to improve process `p`; returns the exchange kept, if any.
    fn improve(&mut self, p: usize) -> Option<(usize, usize)> {
        let a = self.node_of[p] as usize;
        let nb = self.graph.neighbors(p);
        if nb.is_empty() {
            return None;
        }
        let off = self.graph.offsets()[p];
        let mut cand = std::mem::take(&mut self.cand);
        cand.clear();
        let partners = nb
            .iter()
            .enumerate()
            .map(|(k, &v)| (self.node_of[v as usize] as usize, self.vol[off + k]));
        match &self.net {
            Net::Grid(grid, spiral) => {
                let Some(target) = weighted_centroid_of_nodes(grid, partners) else {
                    self.cand = cand;
                    return None;
                };
                let tc = round_to_coord(grid, &target);
                for r in 0..=self.params.radius {
                    spiral.shell(&tc, r, &mut |n| cand.push(n));
                }
                grid.neighbors_into(a, &mut cand);
            }
            Net::Fabric(f) => {
                fabric_candidates(f, partners, self.params.radius, a, &mut cand);
            }
        }
        cand.sort_unstable();
        cand.dedup();
        // best: (delta, node, slot)
        let mut best: Option<(f64, usize)> = None;
        for &b in &cand {
            if b == a {
                continue;
            }
            let gp = self.move_gain(p, a, b);
            let mut free_tried = false;
            for s in b * self.cores..(b + 1) * self.cores {
                let q = self.owner[s];
                let delta = if q == FREE {
                    if free_tried {
                        continue;
                    }
                    free_tried = true;
                    gp
                } else {
                    let q = q as usize;
                    gp + self.move_gain(q, b, a)
                        + 2.0 * self.pair_volume(p, q) * self.net.distance(a, b) as f64
                };
                if best.is_none_or(|(d, _)| delta < d) {
                    best = Some((delta, s));
                }
            }
        }
        self.cand = cand;
        let (delta, s) = best?;
        if delta >= -self.eps {
            return None;
        }
        let sp = a * self.cores + self.core_of[p] as usize;
        let q = self.owner[s];
        self.owner[s] = p as u32;
        self.owner[sp] = q;
        self.node_of[p] = (s / self.cores) as u32;
        self.core_of[p] = (s % self.cores) as u32;
        self.placement[p] = Some(s as u32);
        self.hb += delta;
        if q == FREE {
            Some((p, p))
        } else {
            let q = q as usize;
            self.node_of[q] = a as u32;
            self.core_of[q] = (sp % self.cores) as u32;
            self.placement[q] = Some(sp as u32);
            Some((p, q))
        }
    }

    fn finish(&mut self, why: Stop) {
        self.stop = Some(why);
        // Remove accumulated rounding drift.
        self.hb = self.total_hop_bytes();
        if let Some(last) = self.trace.last_mut() {
            *last = self.hb;
        }
    }
}

impl Stepper for Pairs {
    fn step(&mut self) -> StepState {
        if self.stop.is_some() {
            return self.state();
        }
        let n = self.graph.n();
        let mut swapped = Vec::new();
        for _ in 0..self.params.batch {
            if self.pos == n {
                if self.sweep == self.params.sweeps {
                    break;
                }
                self.rng.shuffle(&mut self.order);
                self.pos = 0;
                self.sweep += 1;
            }
            let p = self.order[self.pos] as usize;
            self.pos += 1;
            match self.improve(p) {
                Some(x) => {
                    swapped.push(x);
                    self.since_improve = 0;
                }
                None => self.since_improve += 1,
            }
            if self.since_improve >= n {
                break;
            }
        }
        self.trace.push(self.hb);
        let out_of_time = self.deadline.is_some_and(|d| Instant::now() >= d);
        if self.since_improve >= n {
            self.finish(Stop::LocalOptimum);
        } else if self.pos == n && self.sweep == self.params.sweeps {
            self.finish(Stop::IterationLimit);
        } else if out_of_time {
            self.finish(Stop::TimeLimit);
        }
        self.event = Some(StepEvent::Swaps {
            swapped,
            hop_bytes: self.hb,
        });
        self.state()
    }
    fn state(&self) -> StepState {
        match self.stop {
            Some(s) => StepState::Stopped(s),
            None => StepState::Running,
        }
    }
    fn progress(&self) -> Progress {
        Progress {
            done: self.sweep.saturating_sub(1) * self.graph.n() + self.pos.min(self.graph.n()),
            total: Some(self.params.sweeps * self.graph.n()),
            phase: "exchange",
        }
    }
}

impl Pairs {
    /// The last batch of exchanges and the hop-bytes after it.
    pub fn last_event(&self) -> Option<&StepEvent> {
        self.event.as_ref()
    }
    /// Hop-bytes after each batch so far.
    pub fn hop_bytes_trace(&self) -> &[f64] {
        &self.trace
    }
    /// How many processes one batch tries (`batch=`), which a batch that
    /// found no exchange reports.
    pub fn batch(&self) -> usize {
        self.params.batch
    }
}

impl MapperRun for Pairs {
    fn placement(&self) -> &[Option<u32>] {
        &self.placement
    }
    fn inspect(&self) -> super::RunRef<'_> {
        super::RunRef::Pairs(self)
    }
    fn result(&self) -> Option<Mapping> {
        self.stop
            .is_some()
            .then(|| Mapping::new(self.node_of.clone(), self.core_of.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphBuilder;
    use crate::metrics::hop_bytes;
    use crate::topology::Topology;

    fn ring_graph(n: usize, seed: u64) -> CommGraph {
        // A ring plus random chords with random weights.
        let mut rng = Rng::new(seed);
        let mut b = GraphBuilder::new(n, false);
        for i in 0..n {
            b.add(i, (i + 1) % n, 1.0 + rng.below(5) as f64);
            let j = rng.below(n);
            b.add(i, j, 1.0);
        }
        b.build().unwrap()
    }

    #[test]
    fn pairs_never_increases_hop_bytes_and_ends_at_most_mht() {
        for (spec, seed) in [
            ("mesh:6x6", 1u64),
            ("torus:4x4x2:cores=2", 2),
            ("torus:5x7", 3),
        ] {
            let topo = Arc::new(Topology::parse(spec).unwrap());
            let g = Arc::new(ring_graph(30, seed));
            let mut input = MapperInput::new(g.clone(), topo.clone(), seed);
            let mht = super::super::run(&super::super::mht::info(), &input).unwrap();
            input.params.push(("batch".into(), "7".into()));
            let mht_hb = hop_bytes(&g, &topo, &mht);
            let mut r = start(&input).unwrap();
            r.run_to_end();
            let tr = r.inspect().hop_bytes_trace().to_vec();
            assert!((tr[0] - mht_hb).abs() < 1e-9);
            assert!(tr.windows(2).all(|w| w[1] <= w[0] + 1e-9), "{tr:?}");
            let m = r.result().unwrap();
            m.validate(30, &topo).unwrap();
            let end = hop_bytes(&g, &topo, &m);
            assert!((end - tr.last().unwrap()).abs() < 1e-9);
            assert!(end <= mht_hb);
            assert!(end < mht_hb, "{spec}: no improvement at all is suspicious");
            // Same seed, same result.
            assert_eq!(super::super::run(&info(), &input).unwrap(), m);
        }
    }

    #[test]
    fn pairs_runs_on_switch_fabrics_and_never_increases_hop_bytes() {
        for (spec, seed) in [
            ("fabric:moh-fig2:job=all:cores=2", 1u64),
            ("fabric:12,30,6,0.8,2", 2),
        ] {
            let topo = Arc::new(Topology::parse(spec).unwrap());
            let g = Arc::new(ring_graph(30, seed));
            let mut input = MapperInput::new(g.clone(), topo.clone(), seed);
            let mht = super::super::run(&super::super::mht::info(), &input).unwrap();
            input.params.push(("batch".into(), "5".into()));
            let mht_hb = hop_bytes(&g, &topo, &mht);
            let mut r = start(&input).unwrap();
            r.run_to_end();
            let tr = r.inspect().hop_bytes_trace().to_vec();
            assert!((tr[0] - mht_hb).abs() < 1e-9, "{spec}");
            assert!(tr.windows(2).all(|w| w[1] <= w[0] + 1e-9), "{tr:?}");
            let m = r.result().unwrap();
            m.validate(30, &topo).unwrap();
            let end = hop_bytes(&g, &topo, &m);
            assert!((end - tr.last().unwrap()).abs() < 1e-6, "{spec}");
            assert!(end <= mht_hb, "{spec}");
            assert_eq!(super::super::run(&info(), &input).unwrap(), m);
        }
    }

    #[test]
    fn fabric_candidates_are_the_hosts_around_the_partners_medoid() {
        // Fig. 2 with every processor: partners on switch 0 (heavy) and one
        // light partner elsewhere; radius 0: the hosts of switch 0 and of
        // the process's own switch.
        let t = Topology::parse("fabric:moh-fig2:job=all").unwrap();
        let f = t.as_fabric().unwrap();
        let s0 = f.hosts_on(0).to_vec();
        let other = (1..f.num_switches())
            .find(|&s| !f.hosts_on(s).is_empty())
            .unwrap();
        let far = f.hosts_on(other)[0] as usize;
        let partners = [(s0[0] as usize, 10.0), (s0[1] as usize, 10.0), (far, 1.0)];
        let me = far;
        let mut out = Vec::new();
        fabric_candidates(f, partners.into_iter(), 0, me, &mut out);
        out.sort_unstable();
        let mut want: Vec<usize> = s0
            .iter()
            .chain(f.hosts_on(other))
            .map(|&h| h as usize)
            .collect();
        want.sort_unstable();
        assert_eq!(out, want);
    }

    #[test]
    fn pairs_from_another_mapper_improves_on_it() {
        let topo = Arc::new(Topology::parse("torus:4x4x2").unwrap());
        let g = ring_graph(32, 4);
        let xyz = (0..32)
            .map(|i| [(i % 7) as f64, (i / 7) as f64, 0.0])
            .collect();
        let g = Arc::new(g.with_coords(Some(crate::Coords::new(2, xyz))).unwrap());
        let mut input = MapperInput::new(g.clone(), topo.clone(), 1);
        let affn = super::super::run(&super::super::affn::info(), &input).unwrap();
        input.params.push(("from".into(), "affn".into()));
        let m = super::super::run(&info(), &input).unwrap();
        assert!(hop_bytes(&g, &topo, &m) < hop_bytes(&g, &topo, &affn));
        input.params[0].1 = "pairs".into();
        assert!(start(&input).is_err());
        input.params[0].1 = "nope".into();
        assert!(start(&input).is_err());
    }

    #[test]
    fn pairs_swaps_a_misplaced_pair_on_a_path() {
        // Path 0-1-2-3 on a 4-ring... use a 1x4 mesh with 1 and 2 swapped.
        let mut b = GraphBuilder::new(4, false);
        for i in 0..3 {
            b.add(i, i + 1, 2.0);
        }
        let g = Arc::new(b.build().unwrap());
        let grid = Grid::mesh(&[4]);
        let init = Mapping::new(vec![0, 2, 1, 3], vec![0; 4]);
        let params = PairsParams {
            sweeps: 10,
            batch: 100,
            radius: 1,
            time: None,
            seed: 0,
        };
        let mut r = Pairs::new(g, &grid, init, params);
        assert_eq!(r.hop_bytes(), 2.0 * (2.0 + 1.0 + 2.0));
        r.run_to_end();
        assert_eq!(r.hop_bytes(), 6.0);
        let m = r.result().unwrap();
        assert_eq!(m.node[1].abs_diff(m.node[2]), 1);
        assert!(m.node[0].abs_diff(m.node[1]) == 1 && m.node[2].abs_diff(m.node[3]) == 1);
    }
}
