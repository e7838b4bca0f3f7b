//! `bft`: Breadth-First Traversal (Bhatele & Kale §IV, Heuristic 1).
//!
//! Process 0 goes on node 0 (the paper: "typically the node with id zero …
//! on processor zero"). Then processes are taken from a FIFO queue of mapped
//! processes; each one's unmapped partners are placed, in CSR order
//! (increasing process id — the paper's "arbitrary order"), on the free core
//! nearest to the node of that mapped parent, and are appended to the queue.
//!
//! Disconnected graphs (beyond the paper): when the queue runs dry while
//! processes remain, the unmapped process with the smallest id restarts the
//! traversal, placed near the node of the last process placed, which keeps
//! the components packed together.
//!
//! One step places one process; the frontier is the queue (the parent whose
//! partners are being placed first). O(n + m) plus one findNearest per process.

use super::greedy::{Choice, Placer, Policy, start_greedy_any};
use super::{MapperInfo, MapperInput, MapperRun};
use crate::error::Result;
use crate::graph::CommGraph;
use crate::mappers::Networks;
use std::collections::VecDeque;

pub fn info() -> MapperInfo {
    MapperInfo {
        id: "bft",
        name: "Breadth-First Traversal (BFT)",
        paper: "Bhatele & Kale §IV, Heuristic 1",
        doc: "Walk the communication graph breadth-first from process 0, which sits on node 0. \
              Each visited process's unmapped partners are placed on the free nodes nearest to \
              it (findNearest), then queued. Linear time; good when the graph is mesh-like, \
              but the traversal front grows ragged and far-apart processes end up adjacent.",
        needs_coords: false,
        randomized: false,
        params: &[super::FIND_PARAM],
        networks: Networks::Any,
        per_node_state: true,
        external: None,
        start,
    }
}

fn start(input: &MapperInput) -> Result<Box<dyn MapperRun>> {
    start_greedy_any(input, "bft", |_| Ok(Bft::new(input.graph.n())))
}

/// The BFT policy (also used by COCE after its corners).
#[derive(Clone, Debug)]
pub struct Bft {
    queue: VecDeque<usize>,
    parent: Option<usize>,
    cursor: usize,
    restart: usize,
    last_node: usize,
    /// The parent of the last process placed (None: a restart):
    /// [`Choice::Bft`].
    last_parent: Option<usize>,
}

impl Bft {
    pub fn new(_n: usize) -> Self {
        Bft {
            queue: VecDeque::new(),
            parent: None,
            cursor: 0,
            restart: 0,
            last_node: 0,
            last_parent: None,
        }
    }
}

impl Policy for Bft {
    fn next(&mut self, graph: &CommGraph, pl: &Placer) -> Option<(usize, Vec<f64>)> {
        let mut v = Vec::new();
        self.next_into(graph, pl, &mut v).map(|p| (p, v))
    }
    fn next_into(
        &mut self,
        graph: &CommGraph,
        pl: &Placer,
        desired: &mut Vec<f64>,
    ) -> Option<usize> {
        loop {
            if let Some(u) = self.parent {
                let nb = graph.neighbors(u);
                while self.cursor < nb.len() {
                    let v = nb[self.cursor] as usize;
                    self.cursor += 1;
                    if !pl.is_placed(v) {
                        self.last_parent = Some(u);
                        let at = pl.node(u).unwrap_or(0);
                        pl.node_pos_into(at, desired);
                        return Some(v);
                    }
                }
                self.parent = None;
            }
            if let Some(u) = self.queue.pop_front() {
                self.parent = Some(u);
                self.cursor = 0;
                continue;
            }
            while self.restart < pl.n() && pl.is_placed(self.restart) {
                self.restart += 1;
            }
            if self.restart == pl.n() {
                return None;
            }
            self.last_parent = None;
            pl.node_pos_into(self.last_node, desired);
            return Some(self.restart);
        }
    }
    fn placed(&mut self, p: usize, _graph: &CommGraph, pl: &Placer) {
        self.queue.push_back(p);
        self.last_node = pl.node(p).unwrap_or(0);
    }
    fn choice(&self, _graph: &CommGraph, _pl: &Placer, _p: usize) -> Option<Choice> {
        Some(Choice::Bft {
            parent: self.last_parent,
        })
    }
    fn frontier(&self, _pl: &Placer) -> Vec<usize> {
        self.parent
            .iter()
            .copied()
            .chain(self.queue.iter().copied())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::StepEvent;
    use super::*;
    use crate::graph::GraphBuilder;
    use crate::topology::Topology;
    use std::sync::Arc;

    #[test]
    fn bft_places_a_path_along_the_mesh_and_exposes_the_queue() {
        // Star 0-{1,2,3}, plus a separate edge 4-5.
        let mut b = GraphBuilder::new(6, false);
        for v in 1..4 {
            b.add(0, v, 1.0);
        }
        b.add(4, 5, 1.0);
        let g = Arc::new(b.build().unwrap());
        let t = Arc::new(Topology::parse("mesh:3x3").unwrap());
        let mut r = start(&MapperInput::new(g, t.clone(), 0)).unwrap();
        r.step();
        assert_eq!(
            r.inspect().last_event(),
            Some(&StepEvent::Placed {
                process: 0,
                desired: vec![0.0, 0.0],
                slot: 0
            })
        );
        assert_eq!(r.inspect().frontier(), vec![0]);
        r.step(); // 1 near node 0: nodes 1 and 3 at distance 1, smallest id 1.
        assert_eq!(r.placement()[1], Some(1));
        assert_eq!(r.inspect().frontier(), vec![0, 1]);
        r.step(); // 2 → node 3
        r.step(); // 3 → distance 2 from node 0: {2, 4, 6} → 2... node 2 is (2,0): dist 2; node 4 (1,1): 2.
        assert_eq!(r.placement()[2], Some(3));
        assert_eq!(r.placement()[3], Some(2));
        assert_eq!(r.inspect().frontier(), vec![0, 1, 2, 3]);
        r.run_to_end();
        let m = r.result().unwrap();
        m.validate(6, &t).unwrap();
        // 4 restarts near node 2 (the last placed): node 5 (2,1), then 5 near it.
        assert_eq!(m.node[4], 5);
        assert_eq!(m.node[5], 4);
    }
}
