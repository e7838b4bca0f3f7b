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
//! skipped when popped. Beyond the paper, it is a bucket queue (one small
//! min-heap of ids per count, see [`Mht`]), and the start order by degree is
//! a counting sort. Ties between equal counts go to the smallest process
//! id. Disconnected graphs (beyond the paper): when the heap runs dry, the
//! unmapped process of highest degree starts a new component at the centre
//! (findNearest then gives the nearest free node).
//!
//! One step places one process; the frontier is the heap's live entries,
//! best first. O((n + m) log m) plus one findNearest per process.

use super::greedy::{Choice, Placer, Policy, start_greedy_any};
use super::{MapperInfo, MapperInput, MapperRun};
use crate::error::Result;
use crate::graph::CommGraph;
use crate::mappers::Networks;
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
        params: &[super::FIND_PARAM],
        networks: Networks::Any,
        per_node_state: true,
        external: None,
        start,
    }
}

fn start(input: &MapperInput) -> Result<Box<dyn MapperRun>> {
    start_greedy_any(input, "mht", |_| Ok(Mht::new(&input.graph)))
}

/// The MHT policy (also used by COCE+MHT after its corners and by PAIRS).
///
/// The max-heap keyed by (mapped-partner count, smallest id) is a bucket
/// queue: `buckets[c]` is a lazy min-heap of the ids whose count reached `c`,
/// and `top` is an upper bound on the highest non-empty bucket. Counts only
/// grow and are bounded by the degree, so popping the best live entry is the
/// same as popping the original `(count, Reverse(id))` heap, at the cost of a
/// small `u32` heap per count.
#[derive(Clone, Debug)]
pub struct Mht {
    buckets: Vec<BinaryHeap<Reverse<u32>>>,
    top: usize,
    mapped_nbrs: Vec<u32>,
    by_degree: Vec<u32>,
    restart: usize,
    /// Whether the last process came from the heap (else it started a
    /// component at the centre): [`Choice::Mht`].
    from_heap: bool,
}

impl Mht {
    pub fn new(graph: &CommGraph) -> Self {
        let n = graph.n();
        // Counting sort: degree descending, id ascending (stable).
        let max_deg = (0..n).map(|p| graph.degree(p)).max().unwrap_or(0);
        let mut start = vec![0usize; max_deg + 2];
        for p in 0..n {
            start[max_deg - graph.degree(p) + 1] += 1;
        }
        for i in 1..start.len() {
            start[i] += start[i - 1];
        }
        let mut by_degree = vec![0u32; n];
        for p in 0..n {
            let b = &mut start[max_deg - graph.degree(p)];
            by_degree[*b] = p as u32;
            *b += 1;
        }
        Mht {
            buckets: Vec::new(),
            top: 0,
            mapped_nbrs: vec![0; n],
            by_degree,
            restart: 0,
            from_heap: false,
        }
    }

    /// Pop the live entry with the highest count (smallest id on ties).
    fn pop(&mut self, pl: &Placer) -> Option<usize> {
        while self.top > 0 {
            match self.buckets[self.top].pop() {
                Some(Reverse(p)) => {
                    let p = p as usize;
                    if !pl.is_placed(p) && self.mapped_nbrs[p] as usize == self.top {
                        return Some(p);
                    }
                }
                None => self.top -= 1,
            }
        }
        None
    }
}

impl Policy for Mht {
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
        self.from_heap = false;
        if let Some(p) = self.pop(pl) {
            self.from_heap = true;
            let nb = graph.neighbors(p).iter().map(|&v| v as usize);
            if !pl.centroid_into(nb, desired) {
                pl.centre_into(desired);
            }
            return Some(p);
        }
        while self.restart < self.by_degree.len()
            && pl.is_placed(self.by_degree[self.restart] as usize)
        {
            self.restart += 1;
        }
        let p = *self.by_degree.get(self.restart)? as usize;
        pl.centre_into(desired);
        Some(p)
    }
    fn placed(&mut self, p: usize, graph: &CommGraph, pl: &Placer) {
        for &v in graph.neighbors(p) {
            if !pl.is_placed(v as usize) {
                let c = &mut self.mapped_nbrs[v as usize];
                *c += 1;
                let c = *c as usize;
                if c >= self.buckets.len() {
                    self.buckets.resize_with(c + 1, BinaryHeap::new);
                }
                self.buckets[c].push(Reverse(v));
                self.top = self.top.max(c);
            }
        }
    }
    fn choice(&self, graph: &CommGraph, pl: &Placer, p: usize) -> Option<Choice> {
        let placed = graph
            .neighbors(p)
            .iter()
            .filter(|&&v| pl.is_placed(v as usize))
            .count();
        Some(Choice::Mht {
            from_heap: self.from_heap,
            placed,
            partners: graph.degree(p),
        })
    }
    fn frontier(&self, pl: &Placer) -> Vec<usize> {
        let mut out = Vec::new();
        for c in (1..self.buckets.len().min(self.top + 1)).rev() {
            let mut live: Vec<usize> = self.buckets[c]
                .iter()
                .map(|&Reverse(p)| p as usize)
                .filter(|&p| !pl.is_placed(p) && self.mapped_nbrs[p] as usize == c)
                .collect();
            live.sort_unstable();
            out.extend(live);
        }
        out
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
            r.inspect().last_event(),
            Some(&StepEvent::Placed {
                process: 3,
                desired: vec![2.0, 2.0],
                slot: 12
            })
        );
        assert_eq!(r.inspect().frontier(), vec![0, 1, 2]);
        r.step();
        // 0 wanted the centroid of 3's node, (2,2); nearest free: node 7 (2,1).
        assert!(matches!(
            r.inspect().last_event(),
            Some(StepEvent::Placed {
                process: 0,
                slot: 7,
                ..
            })
        ));
        r.step(); // 1 (count 1, smaller id than 2)
        assert!(matches!(
            r.inspect().last_event(),
            Some(StepEvent::Placed { process: 1, .. })
        ));
        // Now 4 has two mapped partners and tops the heap.
        assert_eq!(r.inspect().frontier()[0], 4);
        r.run_to_end();
        r.result().unwrap().validate(5, &t).unwrap();
    }
}
