//! Dual recursive bipartitioning (Pellegrini, "Static mapping by dual
//! recursive bipartitioning of process and architecture graphs", SHPCC'94;
//! the method of Scotch's `gmap`). Beyond the seed papers.
//!
//! A subproblem is a set of processes and a domain of nodes that must hold
//! them. Its domain is cut in two ([`super::domain`]), and its processes are
//! bisected with [`crate::partition::bisect()`] so that each half fits its
//! half-domain's slots (nodes × cores, exactly proportional when there are
//! fewer processes than slots) at the smallest cost
//!
//! `Σ_{cut pairs} c_uv + Σ_{u, external partners v} c_uv · dist(dom v, half u) / dist(half 0, half 1)`
//!
//! i.e. communication inside the subproblem is cut as little as possible and
//! a process is pulled towards the half nearer to the domains where its
//! other partners already are (Scotch's handling of external edges). The
//! two halves become subproblems, handled breadth-first (a whole level of
//! the tree before the next, so external partners are known as precisely as
//! possible), down to one node, whose processes fill its cores in rank
//! order. When the processes fit in a part of the machine, the first steps
//! shrink the root domain to the first half that holds them all, so a small
//! job is packed compactly (unless packing is turned off: then the
//! processes spread over the machine in proportion to the slots, which
//! loads the links less).
//!
//! One step bisects one subproblem (one-node leaves are finished in the same
//! step). Total cost O(m log N) for N nodes, plus the partitioner's
//! coarsest-level work per subproblem. [`Drb::tree`] exposes every finished
//! subproblem (level, processes, domain) for drawing.

use super::domain::{Centre, DimTies, Domain, centre_distance};
use crate::graph::CommGraph;
use crate::mapping::Mapping;
use crate::partition::{BisectParams, WGraph, bisect};
use crate::stamps::Stamps;
use crate::topology::Topology;
use std::collections::VecDeque;
use std::sync::Arc;

const NONE: u32 = u32::MAX;

/// Levels of the tree (from the root) whose bisections may run several
/// V-cycles ([`Drb::with_top_vcycles`]).
pub const VCYCLE_LEVELS: u32 = 2;

/// A custom bisection of node sets ([`Domain::Set`]): the nodes (sorted) and
/// a seed in, the two halves (both non-empty) and the cut's cost (the
/// splitter's own measure, reported by guided mode) out. Moh et al.'s BM
/// plugs its max-cost Kernighan–Lin cut of the routing topology in here
/// ([`Drb::with_set_splitter`]).
pub type SetSplitter = fn(&Topology, &[u32], u64) -> (Vec<u32>, Vec<u32>, f64);

/// What the last [`Drb::step`] did, for guided mode (recorded during the
/// step; reading it is O(1)).
#[derive(Clone, Debug, PartialEq)]
pub enum DrbStep {
    /// A part was bisected: its level, processes and nodes; the bytes
    /// between the two process halves; each half's processes and nodes (and
    /// a short description of its node domain); the set splitter's cut cost
    /// when one cut the nodes; one-node leaves filled in the same step.
    Cut {
        level: u32,
        processes: usize,
        nodes: usize,
        cut_bytes: f64,
        halves: [(usize, usize, DomainLabel); 2],
        network_cost: Option<f64>,
        leaves: usize,
    },
    /// A small job's root domain shrank to its first half, which holds all
    /// `processes` (packing).
    Shrink { processes: usize, nodes: usize },
    /// The last leaves were filled and the mapping is complete; `mirrored`
    /// boxes were then reflected ([`super::orient`]), changing hop-bytes by
    /// `gain` (≤ 0).
    Finished {
        leaves: usize,
        overflow: usize,
        mirrored: usize,
        gain: f64,
    },
}

/// A node domain in a sentence: a grid box `[0–3]×[0–1]`, else its size.
pub fn describe_domain(topo: &Topology, d: &Domain) -> String {
    match (d, topo.as_grid()) {
        (Domain::Box { lo, len }, Some(g)) => {
            use std::fmt::Write;
            let mut s = String::with_capacity(12 * g.ndims());
            s.push('[');
            for k in 0..g.ndims() {
                if k > 0 {
                    s.push_str("]×[");
                }
                // Writing to a String cannot fail.
                let _ = if len[k] <= 1 {
                    write!(s, "{}", lo[k])
                } else {
                    write!(s, "{}–{}", lo[k], lo[k] + len[k] - 1)
                };
            }
            s.push(']');
            s
        }
        _ => {
            let k = d.num_nodes();
            format!("{k} node{}", if k == 1 { "" } else { "s" })
        }
    }
}

/// A node domain that prints as [`describe_domain`] says (formatted only
/// when shown: a step records one for each half, and most steps are never
/// read).
#[derive(Clone)]
pub struct DomainLabel {
    domain: Domain,
    topo: Arc<Topology>,
}

impl DomainLabel {
    pub fn domain(&self) -> &Domain {
        &self.domain
    }
}

impl std::fmt::Display for DomainLabel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&describe_domain(&self.topo, &self.domain))
    }
}

impl std::fmt::Debug for DomainLabel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self}")
    }
}

impl PartialEq for DomainLabel {
    fn eq(&self, other: &Self) -> bool {
        self.domain == other.domain
    }
}

/// A finished subproblem of the bipartition tree.
#[derive(Clone, Debug, PartialEq)]
pub struct TreeNode {
    /// Depth in the tree (root = 0).
    pub level: u32,
    /// The subproblem's processes.
    pub processes: Vec<u32>,
    /// Its node domain (use [`Domain::nodes`] for the node ids).
    pub domain: Domain,
}

struct Job {
    procs: Vec<u32>,
    dom: u32,
    level: u32,
    /// The root, while it can still shrink to a half.
    shrink: bool,
}

/// A dual recursive bipartitioning run.
pub struct Drb {
    graph: Arc<CommGraph>,
    topo: Arc<Topology>,
    vol: Arc<Vec<f64>>,
    cores: usize,
    params: BisectParams,
    seed: u64,
    domains: Vec<(Domain, Centre)>,
    dom_of: Vec<u32>,
    queue: VecDeque<Job>,
    local: Vec<u32>,
    node_of: Vec<u32>,
    core_of: Vec<u32>,
    placement: Vec<Option<u32>>,
    overflow: Vec<u32>,
    tree: Vec<TreeNode>,
    splitter: Option<SetSplitter>,
    /// A packed job fills node sets half by half ([`Drb::with_fill`]).
    fill: bool,
    pull: bool,
    /// Reflect the tree's boxes at the end ([`super::orient`]).
    orient: bool,
    /// Break the pull's ties through a ring's wrap ([`super::unwrap`]).
    unwrap: bool,
    /// Multilevel runs per bisection in the top [`VCYCLE_LEVELS`] levels.
    vcycles: usize,
    /// Which of a box's tied dimensions it is cut across.
    ties: DimTies,
    bisections: usize,
    placed: usize,
    done: bool,
    /// What the last step did (guided mode).
    last: Option<DrbStep>,
    /// One-node leaves filled during the current step.
    leaves_now: usize,
    /// Per domain id: its centre's distances to the two halves of the
    /// current cut, valid for the domains in `dist_known`.
    dist_of: Vec<[f64; 2]>,
    dist_known: Stamps,
}

impl Drb {
    /// Cheap: no partitioning happens before the first step.
    pub fn new(
        graph: Arc<CommGraph>,
        topo: Arc<Topology>,
        vol: Arc<Vec<f64>>,
        params: BisectParams,
        seed: u64,
    ) -> Self {
        let n = graph.n();
        let root = Domain::whole(&topo);
        let centre = root.centre(&topo);
        let mut queue = VecDeque::new();
        if n > 0 {
            queue.push_back(Job {
                procs: (0..n as u32).collect(),
                dom: 0,
                level: 0,
                shrink: true,
            });
        }
        Drb {
            cores: topo.cores(),
            graph,
            topo,
            vol,
            params,
            seed,
            domains: vec![(root, centre)],
            dom_of: vec![0; n],
            queue,
            local: vec![NONE; n],
            node_of: vec![0; n],
            core_of: vec![0; n],
            placement: vec![None; n],
            overflow: Vec::new(),
            tree: Vec::new(),
            splitter: None,
            fill: false,
            pull: true,
            orient: false,
            unwrap: false,
            vcycles: 1,
            ties: DimTies::LOW,
            bisections: 0,
            placed: 0,
            done: n == 0,
            last: None,
            leaves_now: 0,
            dist_of: Vec::new(),
            dist_known: Stamps::default(),
        }
    }

    /// Start from another root domain instead of the whole topology (e.g. a
    /// [`Domain::Set`] of every node, which cuts by the generic graph
    /// bisection even on a mesh; tests use it).
    /// Whether a job smaller than the machine is packed into the smallest
    /// first half that holds it (default) or spread over the whole machine
    /// in proportion to the slots (less hop-bytes against less contention).
    pub fn with_packing(mut self, pack: bool) -> Self {
        if let Some(j) = self.queue.front_mut() {
            j.shrink = pack;
        }
        self
    }

    /// Cut node sets with `f` instead of [`Domain::split`]'s generic graph
    /// bisection (mesh/torus boxes are still cut geometrically).
    pub fn with_set_splitter(mut self, f: SetSplitter) -> Self {
        self.splitter = Some(f);
        self
    }

    /// Whether a process is pulled towards the half nearer to its partners
    /// already placed elsewhere (the external-edge bias, default on). Off,
    /// every subproblem is bisected on its own, as in Moh et al.'s BM.
    pub fn with_external_pull(mut self, pull: bool) -> Self {
        self.pull = pull;
        self
    }

    /// Reflect the boxes of the finished tree where that lowers hop-bytes
    /// ([`super::orient`]; meshes and tori only; off by default).
    pub fn with_orientation(mut self, on: bool) -> Self {
        self.orient = on;
        self
    }

    /// Break the external pull's exact ties that a ring's wrap causes by
    /// the unwrapped distance ([`super::unwrap`]; meshes and tori only;
    /// off by default).
    pub fn with_unwrap(mut self, on: bool) -> Self {
        self.unwrap = on;
        self
    }

    /// Bisect the parts of the top [`VCYCLE_LEVELS`] levels of the tree
    /// with this many independent multilevel runs, keeping the best
    /// ([`BisectParams::vcycles`]; default 1). The top cuts decide most of
    /// the hop-bytes, and they are few, so this costs little.
    pub fn with_top_vcycles(mut self, k: usize) -> Self {
        self.vcycles = k.max(1);
        self
    }

    /// Cut mesh/torus boxes across the highest of their tied dimensions
    /// instead of the lowest ([`DimTies`]; default [`DimTies::LOW`]).
    /// With packing, on node sets (fabrics): once the job no longer fits in
    /// the first half, that half takes as many processes as it has slots
    /// and the second half the rest, and both halves go on packing (so the
    /// job fills whole hosts and switches); without it the halves share
    /// the job in proportion to their slots.
    pub fn with_fill(mut self, fill: bool) -> Self {
        self.fill = fill;
        self
    }

    pub fn with_dim_ties(mut self, ties: DimTies) -> Self {
        self.ties = ties;
        self
    }

    pub fn with_root(mut self, root: Domain) -> Self {
        let c = root.centre(&self.topo);
        self.domains[0] = (root, c);
        self
    }

    pub fn is_done(&self) -> bool {
        self.done
    }
    pub fn placement(&self) -> &[Option<u32>] {
        &self.placement
    }
    /// Every finished subproblem so far, in the order they were cut.
    pub fn tree(&self) -> &[TreeNode] {
        &self.tree
    }
    /// The subproblems waiting to be cut, in queue order: (level,
    /// processes, node domain). With [`Self::tree`], the whole tree so far.
    pub fn pending(&self) -> impl Iterator<Item = (u32, &[u32], &Domain)> + '_ {
        self.queue
            .iter()
            .map(|j| (j.level, j.procs.as_slice(), &self.domains[j.dom as usize].0))
    }
    /// What the last step did (None before the first).
    pub fn last_step(&self) -> Option<&DrbStep> {
        self.last.as_ref()
    }
    /// Bisections done and processes placed so far.
    pub fn counts(&self) -> (usize, usize) {
        (self.bisections, self.placed)
    }
    /// The mapping once done.
    pub fn result(&self) -> Option<Mapping> {
        self.done
            .then(|| Mapping::new(self.node_of.clone(), self.core_of.clone()))
    }

    /// One bisection (plus any one-node leaves met on the way).
    pub fn step(&mut self) {
        self.leaves_now = 0;
        while let Some(job) = self.queue.pop_front() {
            if job.procs.is_empty() {
                continue;
            }
            let dom = self.domains[job.dom as usize].0.clone();
            if dom.num_nodes() <= 1 {
                self.leaf(&job, &dom);
                continue;
            }
            self.cut(job, dom);
            self.bisections += 1;
            return;
        }
        let overflow = self.overflow.len();
        let (mirrored, gain) = self.finish();
        self.last = Some(DrbStep::Finished {
            leaves: self.leaves_now,
            overflow,
            mirrored,
            gain,
        });
    }

    fn leaf(&mut self, job: &Job, dom: &Domain) {
        self.leaves_now += 1;
        let node = dom.first_node(&self.topo) as u32;
        for (k, &p) in job.procs.iter().enumerate() {
            if k < self.cores {
                self.node_of[p as usize] = node;
                self.core_of[p as usize] = k as u32;
                self.placement[p as usize] = Some(node * self.cores as u32 + k as u32);
                self.placed += 1;
            } else {
                self.overflow.push(p);
            }
        }
        self.tree.push(TreeNode {
            level: job.level,
            processes: job.procs.clone(),
            domain: dom.clone(),
        });
    }

    fn cut(&mut self, job: Job, dom: Domain) {
        let seed = self
            .seed
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(self.bisections as u64);
        let mut network_cost = None;
        let split = match (&dom, self.splitter) {
            (Domain::Set { nodes, .. }, Some(f)) if nodes.len() >= 2 => {
                let (a, b, cost) = f(&self.topo, nodes, seed);
                network_cost = Some(cost);
                (!a.is_empty() && !b.is_empty()).then(|| {
                    (
                        Domain::from_nodes(&self.topo, a),
                        Domain::from_nodes(&self.topo, b),
                    )
                })
            }
            _ => dom.split_with(&self.topo, seed, self.ties),
        };
        let Some((d0, d1)) = split else {
            self.leaf(&job, &dom);
            return;
        };
        let cores = self.cores as f64;
        let mut caps = [d0.num_nodes() as f64 * cores, d1.num_nodes() as f64 * cores];
        let np = job.procs.len() as f64;
        // With `fill`, on node sets (switch fabrics) a packed job fills its
        // first half and gives the second half only the rest (and each half
        // goes on packing), so the job takes whole hosts and whole
        // switches, as a launcher filling hosts in order does, instead of a
        // proportional share of every host's cores.
        let fill = self.fill && job.shrink && matches!(dom, Domain::Set { .. });
        if fill && caps[0] < np && caps[0] + caps[1] > np {
            caps[1] = np - caps[0];
        }
        if job.shrink && caps[0] >= np {
            // Pack a small job into the first half that holds it.
            self.last = Some(DrbStep::Shrink {
                processes: job.procs.len(),
                nodes: d0.num_nodes(),
            });
            let c = d0.centre(&self.topo);
            self.domains[job.dom as usize] = (d0, c);
            self.queue.push_front(job);
            return;
        }
        let c0 = d0.centre(&self.topo);
        let c1 = d1.centre(&self.topo);
        let d01 = centre_distance(&self.topo, &c0, &c1).max(1e-9);
        for (i, &p) in job.procs.iter().enumerate() {
            self.local[p as usize] = i as u32;
        }
        let g = WGraph::induced(&self.graph, &self.vol, &job.procs, &self.local);
        // External edges: pull towards the half nearer to the partner's domain.
        // The two distances of a partner's domain are computed once per cut
        // (`dist_of[dom]`, valid when `dist_known` holds `dom`).
        let off = self.graph.offsets();
        let mut bias = vec![[0.0f64; 2]; job.procs.len()];
        let mut any = false;
        self.dist_known.clear();
        self.dist_known.grow(self.domains.len());
        self.dist_of.resize(self.domains.len(), [0.0; 2]);
        for (i, &p) in job.procs.iter().enumerate() {
            if !self.pull {
                break;
            }
            let p = p as usize;
            for (k, &v) in self.graph.neighbors(p).iter().enumerate() {
                if self.local[v as usize] != NONE {
                    continue;
                }
                let c = self.vol[off[p] + k];
                let dv = self.dom_of[v as usize] as usize;
                if self.dist_known.insert(dv) {
                    let cv = &self.domains[dv].1;
                    let e = [
                        centre_distance(&self.topo, cv, &c0),
                        centre_distance(&self.topo, cv, &c1),
                    ];
                    self.dist_of[dv] = if self.unwrap {
                        super::unwrap::tie_break(cv, &c0, &c1, e)
                    } else {
                        e
                    };
                }
                let [e0, e1] = self.dist_of[dv];
                bias[i][0] += c * e0 / d01;
                bias[i][1] += c * e1 / d01;
                any = true;
            }
        }
        let params = BisectParams {
            vcycles: if job.level < VCYCLE_LEVELS {
                self.vcycles
            } else {
                1
            },
            ..self.params
        };
        let r = bisect(&g, caps, any.then_some(bias.as_slice()), &params, seed);
        for &p in &job.procs {
            self.local[p as usize] = NONE;
        }
        let mut halves: [Vec<u32>; 2] = [Vec::new(), Vec::new()];
        for (i, &p) in job.procs.iter().enumerate() {
            halves[r.side[i] as usize].push(p);
        }
        // Guided mode: the bytes between the halves (each edge seen twice).
        let mut cut_bytes = 0.0;
        for u in 0..g.n() {
            for (v, w) in g.edges(u) {
                if r.side[u] != r.side[v] {
                    cut_bytes += w;
                }
            }
        }
        self.last = Some(DrbStep::Cut {
            level: job.level,
            processes: job.procs.len(),
            nodes: dom.num_nodes(),
            cut_bytes: cut_bytes / 2.0,
            halves: [
                (
                    halves[0].len(),
                    d0.num_nodes(),
                    DomainLabel {
                        domain: d0.clone(),
                        topo: self.topo.clone(),
                    },
                ),
                (
                    halves[1].len(),
                    d1.num_nodes(),
                    DomainLabel {
                        domain: d1.clone(),
                        topo: self.topo.clone(),
                    },
                ),
            ],
            network_cost,
            leaves: self.leaves_now,
        });
        let id0 = self.domains.len() as u32;
        self.domains.push((d0, c0));
        self.domains.push((d1, c1));
        for (s, h) in halves.iter().enumerate() {
            for &p in h {
                self.dom_of[p as usize] = id0 + s as u32;
            }
        }
        let [h0, h1] = halves;
        self.tree.push(TreeNode {
            level: job.level,
            processes: job.procs,
            domain: dom,
        });
        for (s, h) in [(0u32, h0), (1, h1)] {
            self.queue.push_back(Job {
                procs: h,
                dom: id0 + s,
                level: job.level + 1,
                shrink: fill,
            });
        }
    }

    /// Place any process a leaf could not hold (only if a bisection missed
    /// its capacity) on the nearest free slot, and finish.
    /// Returns the boxes mirrored and the hop-bytes change.
    fn finish(&mut self) -> (usize, f64) {
        let mut oriented = (0, 0.0);
        if self.orient && self.overflow.is_empty() {
            oriented = super::orient::orient(
                &self.graph,
                &self.vol,
                &self.topo,
                &self.tree,
                &mut self.node_of,
            );
            let c = self.cores as u32;
            for (p, slot) in self.placement.iter_mut().enumerate() {
                if slot.is_some() {
                    *slot = Some(self.node_of[p] * c + self.core_of[p]);
                }
            }
        }
        if !self.overflow.is_empty() {
            let slots = self.topo.num_slots();
            let mut used = vec![false; slots];
            for p in self.placement.iter().flatten() {
                used[*p as usize] = true;
            }
            for p in std::mem::take(&mut self.overflow) {
                let want = self.domains[self.dom_of[p as usize] as usize]
                    .0
                    .first_node(&self.topo);
                let mut best: Option<(u32, usize)> = None;
                for (s, &u) in used.iter().enumerate() {
                    if !u {
                        let d = self.topo.distance(want, s / self.cores);
                        if best.is_none_or(|(bd, _)| d < bd) {
                            best = Some((d, s));
                        }
                    }
                }
                if let Some((_, s)) = best {
                    used[s] = true;
                    self.node_of[p as usize] = (s / self.cores) as u32;
                    self.core_of[p as usize] = (s % self.cores) as u32;
                    self.placement[p as usize] = Some(s as u32);
                    self.placed += 1;
                }
            }
        }
        self.done = true;
        oriented
    }
}
