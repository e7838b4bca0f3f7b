//! A cheap-to-clone copy of a mapper run's internals, published with every
//! [`crate::background::Snapshot`] so that the GUI can animate what the
//! algorithm is doing, not only where the processes are:
//!
//! * [`AnalyticalDetail`] (Wu et al. §3): Φ per item, the bin workloads and
//!   γ, the shift targets, the fake anchors and spreading forces, the
//!   migrations of the last legalization step, the per-iteration history of
//!   max workload / W(Φ) / estimated hop-bytes and the iteration counters.
//! * [`RecursiveDetail`] (dual recursive bipartitioning, and BM on the same
//!   core): the bipartition tree so far (finished and pending subproblems
//!   with their parent, level, size and node domain), the part each process
//!   is in now, the last cut, and the refinement's hop-bytes trace.
//!
//! [`detail_of`] reads the concrete run through [`RunRef`] (no downcast).
//! The worker builds a detail only when the run took steps since the last
//! one ([`DetailCache`]), on its own thread; the snapshot carries it behind
//! an `Arc`, so taking a snapshot stays O(1) in the detail's size. Building
//! costs O(items · D + nodes + history) for the analytical mapper and
//! O(n · depth) for the recursive one. Values are stored as `f32`: they are
//! for drawing.

use hopmap_core::mappers::RunRef;
use hopmap_core::mappers::analytical::{self, GlobalStop, Phase};
use hopmap_core::mappers::recursive::{self, domain::Domain};
use hopmap_core::topology::{MAX_DIMS, Topology};
use std::sync::Arc;

/// A mapper's internals, for the views that animate them.
#[derive(Clone, Debug)]
pub enum RunDetail {
    Analytical(Arc<AnalyticalDetail>),
    Recursive(Arc<RecursiveDetail>),
}

impl RunDetail {
    pub fn analytical(&self) -> Option<&AnalyticalDetail> {
        match self {
            RunDetail::Analytical(a) => Some(a),
            RunDetail::Recursive(_) => None,
        }
    }
    pub fn recursive(&self) -> Option<&RecursiveDetail> {
        match self {
            RunDetail::Recursive(r) => Some(r),
            RunDetail::Analytical(_) => None,
        }
    }
}

/// The analytical mapper's state after its last step (see
/// [`analytical::Analytical`]'s accessors; items are processes, or
/// node-sized groups with `multicore=group`).
#[derive(Clone, Debug, Default)]
pub struct AnalyticalDetail {
    pub phase: Option<Phase>,
    /// The grid's sizes (D = `dims.len()`).
    pub dims: Vec<u32>,
    pub wrap: Vec<bool>,
    pub items: usize,
    /// Items per node in a legal mapping (1 for groups, `cores` for bins).
    pub item_cap: u32,
    /// Φ, items × D (empty before the first solve).
    pub phi: Vec<f32>,
    /// Where shifting sent each item this iteration (items × D).
    pub targets: Vec<f32>,
    /// Fake anchor of each item (items × D, NaN: none) and its spreading
    /// force (items × D).
    pub anchor: Vec<f32>,
    pub force: Vec<f32>,
    /// Items per bin (node): after the last solve; during legalization the
    /// node loads.
    pub workloads: Vec<u32>,
    /// γ (γ·cores without grouping): the almost-legal bound.
    pub capacity: u32,
    pub max_workload: u32,
    pub w_phi: f64,
    pub est_hop_bytes: f64,
    /// The fixed (corner) items and their nodes.
    pub fixed: Vec<(u32, u32)>,
    /// During legalization: the node of every item.
    pub node_of: Option<Vec<u32>>,
    /// The migrations of the last legalization step: (item, from, to).
    pub migrations: Vec<(u32, u32, u32)>,
    /// One entry per global or legalization step.
    pub hist_max_workload: Vec<f64>,
    pub hist_w_phi: Vec<f64>,
    pub hist_hop_bytes: Vec<f64>,
    pub hist_phase: Vec<Phase>,
    pub global_iterations: usize,
    pub legal_iterations: usize,
    pub global_stop: Option<GlobalStop>,
    /// `legalize=bisect`: the global iteration whose Φ is legalized (0:
    /// none yet, or diffusion).
    pub legalized_iteration: usize,
}

impl AnalyticalDetail {
    pub fn ndims(&self) -> usize {
        self.dims.len()
    }
    /// Setup steps are over: Φ exists.
    pub fn started(&self) -> bool {
        !self.phi.is_empty()
    }
}

/// What became of a subproblem of the bipartition tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartState {
    /// Cut in two (its halves are its children).
    Cut,
    /// One node: its processes filled the node's cores.
    Leaf,
    /// Waiting in the queue to be cut.
    Pending,
}

/// One subproblem of the bipartition tree.
#[derive(Clone, Debug, PartialEq)]
pub struct TreePart {
    pub level: u32,
    /// Index of the parent in [`RecursiveDetail::parts`] (None: the root).
    pub parent: Option<u32>,
    pub processes: u32,
    pub domain: Domain,
    /// Centre of the domain in grid coordinates (a fabric: the centre
    /// node's index in `[0]`).
    pub centre: [f32; 3],
    pub state: PartState,
}

/// The recursive mapper's state after its last step.
#[derive(Clone, Debug, Default)]
pub struct RecursiveDetail {
    /// Finished subproblems in the order they were cut, then the pending
    /// ones in queue order.
    pub parts: Vec<TreePart>,
    /// The deepest part of every process (index into `parts`).
    pub part_of: Vec<u32>,
    /// The part cut by the last step.
    pub last_cut: Option<u32>,
    pub bisections: usize,
    /// The run in progress (0-based) and the number of runs.
    pub run: usize,
    pub runs: usize,
    /// Whether the construction is over and the refinement runs.
    pub refining: bool,
    /// Hop-bytes after each refinement step (the stepped runs; the runs made
    /// on the background thread add no points).
    pub trace: Vec<f64>,
}

impl RecursiveDetail {
    /// The deepest level of the tree so far.
    pub fn depth(&self) -> u32 {
        self.parts.iter().map(|p| p.level).max().unwrap_or(0)
    }
    /// The parts that hold the processes now: the leaves of the tree so far
    /// (pending subproblems and one-node leaves).
    pub fn frontier(&self) -> impl Iterator<Item = (usize, &TreePart)> {
        self.parts
            .iter()
            .enumerate()
            .filter(|(_, p)| p.state != PartState::Cut)
    }
}

/// The worker's cache: a detail is rebuilt only after new steps.
#[derive(Default)]
pub struct DetailCache {
    steps: Option<usize>,
    detail: Option<RunDetail>,
}

impl DetailCache {
    /// The detail of `run` after `steps` steps (rebuilt only when `steps`
    /// changed).
    pub fn get(&mut self, run: RunRef, topo: &Topology, steps: usize) -> Option<RunDetail> {
        if self.steps != Some(steps) {
            self.steps = Some(steps);
            self.detail = detail_of(run, topo);
        }
        self.detail.clone()
    }
}

/// The detail of a run, for the mappers that have one: the analytical
/// mapper (alone or before PAIRS), the recursive mapper and BM.
pub fn detail_of(run: RunRef, topo: &Topology) -> Option<RunDetail> {
    match run {
        RunRef::Analytical(a) => Some(RunDetail::Analytical(Arc::new(analytical_detail(a)))),
        RunRef::AnalyticalPairs(a) => Some(RunDetail::Analytical(Arc::new(analytical_detail(
            a.analytical(),
        )))),
        RunRef::Bm(b) => {
            // BM (Moh et al. §4.2) runs on the same recursive core: its tree.
            let d = b.drb();
            let tree = TreeView {
                tree: d.tree(),
                pending: d.pending().collect(),
                n: b.num_processes(),
                bisections: d.counts().0,
                runs: (0, 1),
                refining: false,
                trace: &[],
            };
            Some(RunDetail::Recursive(Arc::new(tree_detail(&tree, topo))))
        }
        RunRef::Recursive(r) => Some(RunDetail::Recursive(Arc::new(recursive_detail(r, topo)))),
        RunRef::OneShot(_)
        | RunRef::Greedy(_)
        | RunRef::Pairs(_)
        | RunRef::Cdl(_)
        | RunRef::Phased(_)
        | RunRef::GroupsFirst(_)
        | RunRef::GridEmbed(_)
        | RunRef::Sm(_)
        | RunRef::Scotch(_) => None,
    }
}

fn f32s(v: &[f64]) -> Vec<f32> {
    v.iter().map(|&x| x as f32).collect()
}

/// Copy the analytical state. O(items · D + nodes + history).
pub fn analytical_detail(a: &analytical::Analytical) -> AnalyticalDetail {
    let grid = a.grid();
    let phase = a.phase();
    let legal = a.legalizer().filter(|_| phase == Phase::Legalize);
    let node_of = legal.map(|l| l.node_of().to_vec());
    let workloads = match &node_of {
        Some(nodes) => {
            let mut w = vec![0u32; grid.num_nodes()];
            for &v in nodes {
                if let Some(x) = w.get_mut(v as usize) {
                    *x += 1;
                }
            }
            w
        }
        None => a.workloads().to_vec(),
    };
    let h = a.history();
    let anchors = a.anchors();
    AnalyticalDetail {
        phase: Some(phase),
        dims: grid.dims().to_vec(),
        wrap: grid.wrap().to_vec(),
        items: a.items().map_or(0, |i| i.graph.n()),
        item_cap: a.items().map_or(1, |i| i.cap),
        phi: f32s(a.phi()),
        targets: f32s(a.shift_targets()),
        anchor: f32s(&anchors.point),
        force: f32s(&anchors.force),
        workloads,
        capacity: a.bin_capacity(),
        max_workload: a.max_workload(),
        w_phi: a.w_phi(),
        est_hop_bytes: a.estimated_hop_bytes(),
        fixed: a
            .fixed_items()
            .iter()
            .map(|&(i, v)| (i as u32, v as u32))
            .collect(),
        node_of,
        migrations: if legal.is_some() {
            a.migrations()
                .iter()
                .map(|m| (m.item, m.from, m.to))
                .collect()
        } else {
            Vec::new()
        },
        hist_max_workload: h.max_workload.clone(),
        hist_w_phi: h.w_phi.clone(),
        hist_hop_bytes: h.hop_bytes.clone(),
        hist_phase: h.phase.clone(),
        global_iterations: a.global_iterations(),
        legal_iterations: a.legal_iterations(),
        global_stop: a.global_stop(),
        legalized_iteration: a.legalized_iteration(),
    }
}

fn centre_of(d: &Domain, topo: &Topology) -> [f32; 3] {
    let mut c = [0.0f32; 3];
    match d.centre(topo) {
        recursive::domain::Centre::Grid(g) => {
            for k in 0..3.min(MAX_DIMS) {
                c[k] = g[k] as f32;
            }
        }
        recursive::domain::Centre::Node(v) => c[0] = v as f32,
    }
    c
}

/// The tree of the current run: O(n · depth).
pub fn recursive_detail(r: &recursive::Recursive, topo: &Topology) -> RecursiveDetail {
    let tree = TreeView {
        tree: r.tree(),
        pending: r.pending().collect(),
        n: r.num_processes(),
        bisections: r.bisections(),
        runs: r.runs(),
        refining: r.refining(),
        trace: r.trace(),
    };
    tree_detail(&tree, topo)
}

/// What [`tree_detail`] reads from a recursive-bipartitioning run.
struct TreeView<'a> {
    tree: &'a [recursive::drb::TreeNode],
    pending: Vec<(u32, &'a [u32], &'a Domain)>,
    n: usize,
    bisections: usize,
    runs: (usize, usize),
    refining: bool,
    trace: &'a [f64],
}

fn tree_detail(v: &TreeView, topo: &Topology) -> RecursiveDetail {
    const NONE: u32 = u32::MAX;
    let tree = v.tree;
    let n = v.n;
    let mut owner = vec![NONE; n];
    let mut parts: Vec<TreePart> = Vec::with_capacity(tree.len() + 16);
    let mut push = |level: u32, procs: &[u32], domain: &Domain, state: PartState| {
        let idx = parts.len() as u32;
        // The parent is the part that held the first process one level up.
        let parent = procs
            .first()
            .map(|&p| owner[p as usize])
            .filter(|&o| o != NONE && parts[o as usize].level + 1 == level);
        for &p in procs {
            owner[p as usize] = idx;
        }
        parts.push(TreePart {
            level,
            parent,
            processes: procs.len() as u32,
            domain: domain.clone(),
            centre: centre_of(domain, topo),
            state,
        });
    };
    let mut last_cut = None;
    for t in tree {
        let state = if t.domain.num_nodes() <= 1 {
            PartState::Leaf
        } else {
            PartState::Cut
        };
        push(t.level, &t.processes, &t.domain, state);
    }
    // The last part that was cut (leaves are finished on the way).
    for (i, t) in tree.iter().enumerate().rev() {
        if t.domain.num_nodes() > 1 {
            last_cut = Some(i as u32);
            break;
        }
    }
    for &(level, procs, dom) in &v.pending {
        push(level, procs, dom, PartState::Pending);
    }
    let (run, runs) = v.runs;
    RecursiveDetail {
        parts,
        part_of: owner,
        last_cut,
        bisections: v.bisections,
        run,
        runs,
        refining: v.refining,
        trace: v.trace.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hopmap_core::generate::{GenOptions, generate};
    use hopmap_core::mappers::{MapperInput, find, prepare};

    fn input(graph: &str, topo: &str) -> MapperInput {
        let g = generate(graph, &GenOptions::default()).unwrap();
        MapperInput::new(Arc::new(g), Arc::new(Topology::parse(topo).unwrap()), 0)
    }

    #[test]
    fn bm_shows_its_bipartition_tree_too() {
        let inp = input("stencil:4x4", "fabric:moh-fig2");
        let mut run = prepare(&find("bm").unwrap(), &inp).unwrap();
        for step in 1..=3 {
            run.step();
            let d = detail_of(run.inspect(), &inp.topo).unwrap();
            let d = d.recursive().unwrap();
            assert_eq!(d.bisections, step);
            let held: u32 = d.frontier().map(|(_, p)| p.processes).sum();
            assert_eq!(held, 16);
            assert!(d.part_of.iter().all(|&p| (p as usize) < d.parts.len()));
        }
    }

    #[test]
    fn the_recursive_tree_partitions_the_processes_at_every_step() {
        let inp = input("stencil:8x8", "mesh:8x8");
        let info = find("recursive").unwrap();
        let mut run = prepare(&info, &inp).unwrap();
        // Before any step: the root, pending.
        let d = detail_of(run.inspect(), &inp.topo).unwrap();
        let d = d.recursive().unwrap();
        assert_eq!(d.parts.len(), 1);
        assert_eq!(d.parts[0].state, PartState::Pending);
        assert!(d.part_of.iter().all(|&p| p == 0));
        for step in 1..=3 {
            run.step();
            let d = detail_of(run.inspect(), &inp.topo).unwrap();
            let d = d.recursive().unwrap();
            // One bisection per step on 64 processes, 64 nodes: step k has
            // cut k subproblems, so k + 1 parts hold the processes.
            assert_eq!(d.bisections, step);
            assert_eq!(d.frontier().count(), step + 1);
            let mut sizes = vec![0u32; d.parts.len()];
            for &p in &d.part_of {
                sizes[p as usize] += 1;
            }
            for (i, part) in d.parts.iter().enumerate() {
                if part.state == PartState::Cut {
                    assert_eq!(sizes[i], 0, "a cut part keeps no process");
                    let kids: u32 = d
                        .parts
                        .iter()
                        .filter(|q| q.parent == Some(i as u32))
                        .map(|q| q.processes)
                        .sum();
                    assert_eq!(kids, part.processes, "children cover the parent");
                } else {
                    assert_eq!(sizes[i], part.processes);
                }
            }
            assert_eq!(d.last_cut, Some(step as u32 - 1));
        }
    }

    #[test]
    fn the_analytical_detail_follows_the_steps() {
        let inp = input("stencil:8x8", "mesh:8x8");
        let info = find("analytical").unwrap();
        let mut run = prepare(&info, &inp).unwrap();
        let mut cache = DetailCache::default();
        let d0 = cache.get(run.inspect(), &inp.topo, 0).unwrap();
        assert!(!d0.analytical().unwrap().started());
        // The first step sets up and runs global iteration 1.
        run.step();
        let d = cache.get(run.inspect(), &inp.topo, 1).unwrap();
        let a = d.analytical().unwrap();
        assert_eq!(a.global_iterations, 1);
        assert_eq!(a.hist_max_workload.len(), 1);
        assert_eq!(a.phi.len(), 64 * 2);
        assert_eq!(a.workloads.iter().map(|&w| w as usize).sum::<usize>(), 64);
        assert_eq!(a.max_workload, *a.workloads.iter().max().unwrap());
    }
}
