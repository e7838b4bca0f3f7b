//! `mht`: Max Heap Traversal (Bhatele & Kale §IV, Heuristic 2, Algorithm 1).
//!
//! The process with the most partners (smallest id on ties) goes to the
//! centre of the grid (⌊k/2⌋ per dimension). Every placement pushes its
//! unmapped partners into a max-heap keyed by how many of their partners are
//! already mapped; the top process is placed on the free core nearest to the
//! unweighted, torus-aware centroid (circular mean on wrapped dimensions) of
//! its mapped partners' nodes, as in the paper.
//!
//! The heap is lazy: a process is pushed again whenever its count grows, and
//! stale entries (a lower count than the current one, or already mapped) are
//! skipped when popped. Ties between equal counts go to the smallest process
//! id. Disconnected graphs (beyond the paper): when the heap runs dry, the
//! unmapped process of highest degree starts a new component at the centre
//! (findNearest then gives the nearest free node).
//!
//! One step places one process; the frontier is the heap's live entries,
//! best first. O((n + m) log m) plus one findNearest per process.

use super::greedy::{Placer, Policy, start_greedy};
use super::{MapperInfo, MapperInput, MapperRun};
use crate::error::Result;
use crate::graph::CommGraph;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub fn info() -> MapperInfo {
    MapperInfo {
        id: "mht",
        name: "Max Heap Traversal (MHT)",
        paper: "Bhatele & Kale §IV, Heuristic 2 (Algorithm 1)",
        doc: "Start with the process that has the most partners, at the centre of the machine. \
              Then always place next the waiting process with the most partners already placed \
              (a max-heap), on the free node nearest to the centroid of those partners. The \
              placed region grows as a compact blob, so partners stay close: usually much better \
              than BFT, in O(n log n).",
        needs_coords: false,
        randomized: false,
        start,
    }
}

fn start(input: &MapperInput) -> Result<Box<dyn MapperRun>> {
    start_greedy(input, "mht", |_| Ok(Mht::new(&input.graph)))
}

/// The MHT policy (also used by COCE+MHT after its corners and by PAIRS).
#[derive(Clone, Debug)]
pub struct Mht {
    heap: BinaryHeap<(u32, Reverse<u32>)>,
    mapped_nbrs: Vec<u32>,
    by_degree: Vec<u32>,
    restart: usize,
}

impl Mht {
    pub fn new(graph: &CommGraph) -> Self {
        let n = graph.n();
        let mut by_degree: Vec<u32> = (0..n as u32).collect();
        by_degree.sort_by_key(|&p| (Reverse(graph.degree(p as usize)), p));
        Mht {
            heap: BinaryHeap::new(),
            mapped_nbrs: vec![0; n],
            by_degree,
            restart: 0,
        }
    }
}

impl Policy for Mht {
    fn next(&mut self, graph: &CommGraph, pl: &Placer) -> Option<(usize, Vec<f64>)> {
        while let Some((count, Reverse(p))) = self.heap.pop() {
            let p = p as usize;
            if pl.is_placed(p) || count != self.mapped_nbrs[p] {
                continue;
            }
            let nb = graph.neighbors(p).iter().map(|&v| v as usize);
            let desired = pl.centroid(nb).unwrap_or_else(|| pl.centre());
            return Some((p, desired));
        }
        while self.restart < self.by_degree.len()
            && pl.is_placed(self.by_degree[self.restart] as usize)
        {
            self.restart += 1;
        }
        let p = *self.by_degree.get(self.restart)? as usize;
        Some((p, pl.centre()))
    }
    fn placed(&mut self, p: usize, graph: &CommGraph, pl: &Placer) {
        for &v in graph.neighbors(p) {
            if !pl.is_placed(v as usize) {
                let c = &mut self.mapped_nbrs[v as usize];
                *c += 1;
                self.heap.push((*c, Reverse(v)));
            }
        }
    }
    fn frontier(&self, pl: &Placer) -> Vec<usize> {
        let mut live: Vec<(u32, Reverse<u32>)> = self
            .heap
            .iter()
            .filter(|(c, Reverse(p))| {
                !pl.is_placed(*p as usize) && *c == self.mapped_nbrs[*p as usize]
            })
            .copied()
            .collect();
        live.sort_unstable_by(|a, b| b.cmp(a));
        live.into_iter().map(|(_, Reverse(p))| p as usize).collect()
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
    fn mht_starts_with_max_degree_at_the_centre_then_follows_counts() {
        // 3 has degree 3; 4 is adjacent to 0 and 1 (count grows to 2 first).
        let mut b = GraphBuilder::new(5, false);
        for (u, v) in [(3, 0), (3, 1), (3, 2), (0, 4), (1, 4)] {
            b.add(u, v, 1.0);
        }
        let g = Arc::new(b.build().unwrap());
        let t = Arc::new(Topology::parse("torus:5x5").unwrap());
        let mut r = start(&MapperInput::new(g, t.clone(), 0)).unwrap();
        r.step();
        assert_eq!(
            r.last_event(),
            Some(&StepEvent::Placed {
                process: 3,
                desired: vec![2.0, 2.0],
                slot: 12
            })
        );
        assert_eq!(r.frontier(), vec![0, 1, 2]);
        r.step();
        // 0 wanted the centroid of 3's node, (2,2); nearest free: node 7 (2,1).
        assert!(matches!(
            r.last_event(),
            Some(StepEvent::Placed {
                process: 0,
                slot: 7,
                ..
            })
        ));
        r.step(); // 1 (count 1, smaller id than 2)
        assert!(matches!(
            r.last_event(),
            Some(StepEvent::Placed { process: 1, .. })
        ));
        // Now 4 has two mapped partners and tops the heap.
        assert_eq!(r.frontier()[0], 4);
        r.run_to_end();
        r.result().unwrap().validate(5, &t).unwrap();
    }
}
