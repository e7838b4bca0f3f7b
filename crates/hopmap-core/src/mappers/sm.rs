//! `sm`: Switch-based Mapping (Moh et al. §4.1).
//!
//! The paper's algorithm: take the switches in order of decreasing switch
//! size |S| (member processors on the switch); for each, obtain from the
//! unmapped processes a buddy Q of 2^⌈log₂|S|⌉ processes by repeatedly
//! halving the process topology (the 2-D buddy system of Li & Cheng), and
//! map |S| processes of Q onto the switch's processors; repeat until every
//! process is mapped. Adjacent processes thus share a switch.
//!
//! **Generalised to any communication graph** (beyond the paper, which
//! halves a 2-D mesh geometrically): the buddies are the blocks of a
//! recursive bisection of the process graph. Each bisection splits a block
//! of size s into ⌈s/2⌉ + ⌊s/2⌋ processes with the least communication
//! between the halves (the shared multilevel min-cut partitioner,
//! [`crate::partition::bisect()`]: heavy-edge matching, greedy growing,
//! Fiduccia–Mattheyses; on a mesh its halves are the compact blocks of the
//! paper's buddy system). It is seeded by the block's position, so SM stays
//! deterministic without a seed.
//! The bisection reorders the processes so that every block is a contiguous
//! range, and the block tree is the implicit balanced tree over ranges.
//! For a switch needing |S| slots (hosts × cores) the buddy is found by a
//! best-fit descent: from the whole range, go into the child block with the
//! fewest unmapped processes that still holds |S| (left on ties) while one
//! does; then its first |S| unmapped processes, in block order, fill the
//! switch's hosts in id order, cores first. Processes of the buddy left
//! unmapped (when |S| is not a power of two) stay available — the paper
//! removes the whole buddy, which would strand them.
//!
//! Ties between equal switch sizes go to the lower switch index (the switch
//! order). Deterministic; no seed.
//!
//! Steps: one bisection level per step (phase 1), then one switch per step
//! (phase 2). Cost: O(m) per level plus the partitioner's coarsest-level
//! work per block; O(log² n) per switch plus the processes placed
//! (Fenwick-tree counts).

use super::{MapperInfo, MapperInput, MapperRun, StepEvent};
use crate::error::{Error, Result};
use crate::graph::CommGraph;
use crate::mappers::Networks;
use crate::mapping::Mapping;
use crate::partition::{BisectParams, WGraph, bisect, pair_volumes};
use crate::step::{Progress, StepState, Stepper, Stop};
use crate::topology::Fabric;
use std::cmp::Reverse;
use std::sync::Arc;

/// SM's min-cut bisections: the multilevel heuristic at every size (no
/// exact enumeration of small blocks). Its grown cuts keep a block's
/// halves compact; the enumeration picks any of several equal cuts, which
/// on the paper's Fig. 4 (a 4×4 mesh on Fig. 2's fabric) cost 59,392
/// hop-bytes against 55,296 for the default order.
fn sm_bisect() -> BisectParams {
    BisectParams {
        exact: 0,
        ..BisectParams::default()
    }
}

pub fn info() -> MapperInfo {
    MapperInfo {
        id: "sm",
        name: "Switch-based Mapping (SM)",
        paper: "Moh et al. §4.1",
        doc: "For switch fabrics. Fill the switches one by one, the switch with the most of the \
              job's processors first, each with a block of processes that talk among themselves: \
              the blocks come from halving the communication graph again and again (the buddy \
              system, generalised from the paper's 2-D mesh by recursive graph bisection). \
              Neighbours end up on one switch, where messages cost no switch hop.",
        needs_coords: false,
        randomized: false,
        params: &[],
        networks: Networks::Any,
        per_node_state: true,
        external: None,
        start,
    }
}

fn start(input: &MapperInput) -> Result<Box<dyn MapperRun>> {
    let f = input.topo.as_fabric().ok_or_else(|| {
        Error::Unsupported(
            "sm maps onto the switches of a switch fabric (fabric:…, fattree:…, an ibnetdiscover \
             or topology.conf file); a mesh or torus has none"
                .into(),
        )
    })?;
    input.check_fits()?;
    Ok(Box::new(Sm::new(input.graph.clone(), f.clone())))
}

/// A run of SM.
pub struct Sm {
    graph: Arc<CommGraph>,
    fabric: Fabric,
    /// Processes in block order.
    order: Vec<u32>,
    /// Ranges still to bisect at the current level.
    level: Vec<(usize, usize)>,
    levels_done: usize,
    /// Switches by decreasing size, then the next one to fill.
    switches: Vec<usize>,
    next_switch: usize,
    /// Fenwick tree over block positions: 1 = unmapped.
    fen: Vec<i64>,
    unmapped: usize,
    node_of: Vec<u32>,
    core_of: Vec<u32>,
    slot_of: Vec<Option<u32>>,
    event: Option<StepEvent>,
    done: bool,
    // scratch for bisection
    vol: Vec<f64>,
    local: Vec<u32>,
    /// What the last step did ([`Sm::last_step`]).
    last: Option<SmStep>,
}

/// What the last step of SM did (recorded during the step; the app's
/// guided mode turns it into a sentence).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SmStep {
    /// A bisection level: how many blocks were halved.
    Level { halved: usize },
    /// Switch `s` took `taken` processes of the buddy block `lo..hi`.
    Switch {
        s: usize,
        taken: usize,
        lo: usize,
        hi: usize,
    },
}

impl Sm {
    pub fn new(graph: Arc<CommGraph>, fabric: Fabric) -> Self {
        let n = graph.n();
        let cores = fabric.cores() as usize;
        let mut switches: Vec<usize> = (0..fabric.num_switches())
            .filter(|&s| !fabric.hosts_on(s).is_empty())
            .collect();
        switches.sort_by_key(|&s| (Reverse(fabric.hosts_on(s).len() * cores), s));
        let mut fen = vec![0i64; n + 1];
        for i in 0..n {
            fen_add(&mut fen, i, 1);
        }
        Sm {
            order: (0..n as u32).collect(),
            level: if n >= 2 { vec![(0, n)] } else { Vec::new() },
            levels_done: 0,
            switches,
            next_switch: 0,
            fen,
            unmapped: n,
            node_of: vec![0; n],
            core_of: vec![0; n],
            slot_of: vec![None; n],
            event: None,
            done: n == 0,
            vol: pair_volumes(&graph),
            local: vec![u32::MAX; n],
            last: None,
            graph,
            fabric,
        }
    }

    /// The processes in block order (the leaf order of the bisection tree).
    pub fn block_order(&self) -> &[u32] {
        &self.order
    }

    fn bisect_level(&mut self) {
        let mut next = Vec::new();
        let level = std::mem::take(&mut self.level);
        self.last = Some(SmStep::Level {
            halved: level.len(),
        });
        for (lo, hi) in level {
            let mid = lo + (hi - lo).div_ceil(2);
            self.bisect_min_cut(lo, hi, mid - lo);
            if mid - lo >= 2 {
                next.push((lo, mid));
            }
            if hi - mid >= 2 {
                next.push((mid, hi));
            }
        }
        self.level = next;
        self.levels_done += 1;
    }

    /// Reorder `order[lo..hi]` so that its first `want` processes are one
    /// half of a min-cut bisection (the shared multilevel partitioner,
    /// [`crate::partition::bisect()`], exact sizes; seeded by the range so
    /// the run stays deterministic).
    fn bisect_min_cut(&mut self, lo: usize, hi: usize, want: usize) {
        let mut members: Vec<u32> = self.order[lo..hi].to_vec();
        members.sort_unstable();
        for (i, &p) in members.iter().enumerate() {
            self.local[p as usize] = i as u32;
        }
        let g = WGraph::induced(&self.graph, &self.vol, &members, &self.local);
        for &p in &members {
            self.local[p as usize] = u32::MAX;
        }
        let size = members.len();
        let r = bisect(
            &g,
            [want as f64, (size - want) as f64],
            None,
            &sm_bisect(),
            lo as u64,
        );
        let (mut a, mut b): (Vec<u32>, Vec<u32>) = (Vec::with_capacity(want), Vec::new());
        for (i, &p) in members.iter().enumerate() {
            if r.side[i] == 0 { a.push(p) } else { b.push(p) }
        }
        // Unit weights and exact capacities give exact sizes; keep them exact
        // in any case.
        while a.len() > want {
            if let Some(x) = a.pop() {
                b.push(x);
            }
        }
        while a.len() < want {
            match b.pop() {
                Some(x) => a.push(x),
                None => break,
            }
        }
        self.order[lo..lo + a.len()].copy_from_slice(&a);
        self.order[lo + a.len()..hi].copy_from_slice(&b);
    }

    fn count(&self, lo: usize, hi: usize) -> usize {
        (fen_sum(&self.fen, hi) - fen_sum(&self.fen, lo)) as usize
    }

    fn fill_switch(&mut self, s: usize) {
        let cores = self.fabric.cores() as usize;
        let hosts = self.fabric.hosts_on(s).to_vec();
        let need = (hosts.len() * cores).min(self.unmapped);
        if need == 0 {
            return;
        }
        let (mut lo, mut hi) = (0usize, self.order.len());
        loop {
            if hi - lo < 2 {
                break;
            }
            let mid = lo + (hi - lo).div_ceil(2);
            let (cl, cr) = (self.count(lo, mid), self.count(mid, hi));
            let pick = match (cl >= need, cr >= need) {
                (true, true) => {
                    if cr < cl {
                        (mid, hi)
                    } else {
                        (lo, mid)
                    }
                }
                (true, false) => (lo, mid),
                (false, true) => (mid, hi),
                (false, false) => break,
            };
            (lo, hi) = pick;
        }
        let mut taken = 0usize;
        let mut pos = lo;
        // The range holds ≥ need unmapped processes (the descent only enters
        // such ranges, and the whole range holds every unmapped one).
        while taken < need && pos < hi {
            if self.slot_of[self.order[pos] as usize].is_none() {
                let p = self.order[pos] as usize;
                let (host, core) = (hosts[taken / cores] as usize, taken % cores);
                self.node_of[p] = host as u32;
                self.core_of[p] = core as u32;
                self.slot_of[p] = Some((host * cores + core) as u32);
                fen_add(&mut self.fen, pos, -1);
                self.unmapped -= 1;
                taken += 1;
            }
            pos += 1;
        }
        self.last = Some(SmStep::Switch { s, taken, lo, hi });
    }
}

fn fen_add(f: &mut [i64], i: usize, d: i64) {
    let mut i = i + 1;
    while i < f.len() {
        f[i] += d;
        i += i & i.wrapping_neg();
    }
}

fn fen_sum(f: &[i64], i: usize) -> i64 {
    let (mut i, mut s) = (i, 0);
    while i > 0 {
        s += f[i];
        i &= i - 1;
    }
    s
}

impl Stepper for Sm {
    fn step(&mut self) -> StepState {
        if self.done {
            return self.state();
        }
        if !self.level.is_empty() {
            self.bisect_level();
            return StepState::Running;
        }
        if self.unmapped > 0 && self.next_switch < self.switches.len() {
            let s = self.switches[self.next_switch];
            self.next_switch += 1;
            self.fill_switch(s);
            self.event = Some(StepEvent::Whole);
        }
        if self.unmapped == 0 || self.next_switch >= self.switches.len() {
            self.done = true;
        }
        self.state()
    }
    fn state(&self) -> StepState {
        if self.done {
            StepState::Stopped(Stop::Complete)
        } else {
            StepState::Running
        }
    }
    fn progress(&self) -> Progress {
        if !self.level.is_empty() {
            let n = self.order.len();
            let levels = if n >= 2 {
                (usize::BITS - (n - 1).leading_zeros()) as usize
            } else {
                0
            };
            return Progress {
                done: self.levels_done,
                total: Some(levels),
                phase: "bisection",
            };
        }
        Progress {
            done: self.next_switch,
            total: Some(self.switches.len()),
            phase: "switches",
        }
    }
}

impl MapperRun for Sm {
    fn placement(&self) -> &[Option<u32>] {
        &self.slot_of
    }
    fn result(&self) -> Option<Mapping> {
        (self.done && self.unmapped == 0)
            .then(|| Mapping::new(self.node_of.clone(), self.core_of.clone()))
    }
    fn inspect(&self) -> super::RunRef<'_> {
        super::RunRef::Sm(self)
    }
}

impl Sm {
    /// The processes the last step placed.
    pub fn last_event(&self) -> Option<&StepEvent> {
        self.event.as_ref()
    }
    /// What the last step did: a bisection level or a switch filled.
    pub fn last_step(&self) -> Option<SmStep> {
        self.last
    }
    /// Bisection levels done so far.
    pub fn levels_done(&self) -> usize {
        self.levels_done
    }
    /// Processes not yet on a switch.
    pub fn unmapped(&self) -> usize {
        self.unmapped
    }
    /// The fabric mapped onto.
    pub fn fabric(&self) -> &Fabric {
        &self.fabric
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mappers::{self, MapperInput};
    use crate::topology::Topology;

    #[test]
    fn sm_puts_a_4x4_mesh_quadrant_on_the_largest_switch() {
        // The paper's Fig. 4: a 4×4 mesh onto the 16 members of Fig. 2.
        let g = Arc::new(
            crate::generate::generate("stencil:4x4", &crate::generate::GenOptions::default())
                .unwrap(),
        );
        let t = Arc::new(Topology::parse("fabric:moh-fig2").unwrap());
        let input = MapperInput::new(g.clone(), t.clone(), 0);
        let m = mappers::run(&info(), &input).unwrap();
        let f = t.as_fabric().unwrap();
        // S0 (4 members) gets four processes forming a connected 2×2 block.
        let on_s0: Vec<usize> = (0..16)
            .filter(|&p| f.switch_of(m.node[p] as usize) == 0)
            .collect();
        assert_eq!(on_s0.len(), 4);
        let inner: usize = on_s0
            .iter()
            .map(|&p| {
                g.neighbors(p)
                    .iter()
                    .filter(|&&q| on_s0.contains(&(q as usize)))
                    .count()
            })
            .sum();
        assert_eq!(
            inner, 8,
            "a 2×2 block has 4 edges, counted twice: {on_s0:?}"
        );
        // SM beats the default order in weighted cardinality here.
        let d = mappers::run(&mappers::find("default").unwrap(), &input).unwrap();
        let hb = |m: &Mapping| crate::metrics::hop_bytes(&g, &t, m);
        assert!(hb(&m) < hb(&d), "{} vs {}", hb(&m), hb(&d));
        // Not on a torus.
        let tor = Arc::new(Topology::parse("torus:4x4").unwrap());
        assert!(mappers::run(&info(), &MapperInput::new(g, tor, 0)).is_err());
    }
}
