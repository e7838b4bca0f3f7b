//! Whole-node moves for the bottleneck phase ([`super::bottleneck`]) on
//! machines with several cores per node: exchange the whole contents of
//! two nodes (every process on node `A` goes to node `B`, each into the
//! same core, and every process on `B` to `A`), or move a node's contents
//! onto an empty node. With `k` cores per node an exchange of one process
//! moves about `1/k` of a node's traffic, and one that relieves the busiest
//! channel `c` often splits a group of heavy partners across nodes; a
//! whole-node move keeps each node's group together and moves its traffic
//! as a block.
//!
//! Tried in the phase's extension: after a round where no single exchange
//! around `c` (load `M`) helped and no pair of exchanges ([`super::chain`])
//! did either, once the look-ahead of [`super::keep_best`] is stuck too. The
//! first nodes `A` are those of the round's processes (the 16 heaviest
//! through `c`, in that order, each node once); the second nodes `B` are
//! the nodes of the partners of A's processes and every node one hop from
//! them (as the single exchanges' neighbourhood), empty ones included. The
//! hop-bytes change of every pair `(A, B)` is exact from the moved
//! processes' edges alone: a message between `A` and `B` keeps its length
//! and one inside a node stays inside, so only the partners outside `A ∪ B`
//! count, `Δ = Σ_{x on A} Σ_{v ∉ A∪B} c_xv (d(B, φv) − d(A, φv)) +
//! Σ_{y on B} Σ_{v ∉ A∪B} c_yv (d(A, φv) − d(B, φv))`. The pairs within
//! what is left of the budget are then evaluated exactly, cheapest in
//! hop-bytes first: every channel's change by re-routing the moved
//! processes' messages (a message between `A` and `B` turns around, one
//! inside a node stays off the network). The first that lowers `c` and
//! raises no other channel to `M`, and lowers Σ load² when another channel
//! ties at `M` (the pairs' rule, [`super::chain`]; without a tie the
//! largest load itself falls), is kept: the loads sorted in decreasing
//! order fall lexicographically, so the largest load never rises and the
//! phase ends, and hop-bytes stay within the budget (the phase's best
//! state and price, [`super::keep_best`], apply, with the extension's rule
//! that a state pays for its hop-bytes against the best: the move is
//! logged as its per-core exchanges and undone the same way).
//!
//! With one core per node a whole-node move is a single exchange, which
//! the round has tried: the move runs only with several cores per node,
//! on graphs of fewer than [`PAIRS_BELOW`](super::chain::PAIRS_BELOW)
//! processes (as the pairs).
//!
//! Cost of one search: O(k · deg) to list the second nodes of each of at
//! most 16 first nodes, O(k · deg) distances for each pair's hop-bytes
//! (k cores, deg the mean degree), then for each of at most
//! [`NODE_PAIRS_MAX`] pairs within the budget O(k · deg · L) to re-route
//! (L = route length); each pair evaluated counts as `k` exchanges of the
//! step's work, and over the whole phase the node moves' are capped at
//! [`WORK_PER_ENTRY`] × (adjacency entries +
//! processes), so their time stays proportional to the graph.
//!
//! Beyond the seeds: the seed papers' and VieM's local searches exchange
//! single processes; moving a whole node's group is the move of a coarse
//! level in multilevel refinement (as in multilevel graph partitioning,
//! Hendrickson & Leland 1995, Karypis & Kumar 1998: a coarse vertex, here
//! a node's group, moves as one), used as one move of the bottleneck phase
//! and judged by the routed channel loads.

use super::bottleneck::Hot;
use super::chain::WORK_PER_ENTRY;
use super::{FREE, Refine};
use crate::stamps::Stamps;

/// Node pairs evaluated exactly per search.
pub const NODE_PAIRS_MAX: usize = 256;

/// The node search's state in the phase: scratch and the work spent.
#[derive(Default)]
pub(super) struct NodeMoves {
    /// (Δ hop-bytes, A, B) of the pairs within the budget.
    pairs: Vec<(f64, u32, u32)>,
    /// Nodes stamped while listing one first node's second nodes.
    mark: Stamps,
    /// Second nodes of the first node being listed.
    second: Vec<usize>,
    /// Exchanges the node moves evaluated so far in the phase.
    work: usize,
    /// Node moves kept so far.
    pub(super) kept: usize,
}

impl Refine {
    /// The processes on node `a`, by core (FREE where a core is free).
    fn node_slots(&self, a: usize) -> &[u32] {
        &self.owner[a * self.cores..(a + 1) * self.cores]
    }

    /// Δ hop-bytes of exchanging the contents of nodes `a` and `b` (either
    /// may be empty). O(k · deg) distances.
    pub(super) fn node_swap_gain(&self, a: usize, b: usize) -> f64 {
        let g = &self.graph;
        let mut d = 0.0;
        for (from, to) in [(a, b), (b, a)] {
            for &x in self.node_slots(from) {
                if x == FREE {
                    continue;
                }
                let x = x as usize;
                let off = g.offsets()[x];
                for (k, &v) in g.neighbors(x).iter().enumerate() {
                    let nv = self.node_of[v as usize] as usize;
                    if nv == a || nv == b {
                        continue;
                    }
                    let dd = self.dist.get(to, nv) as f64 - self.dist.get(from, nv) as f64;
                    d += self.vol[off + k] * dd;
                }
            }
        }
        d
    }

    /// Every channel-load change of exchanging the contents of nodes `a`
    /// and `b`, merged by channel into `self.deltas`. O(k · deg · L).
    pub(super) fn node_swap_deltas(&mut self, a: usize, b: usize) {
        self.merge_deltas(|r, sink| {
            let g = &r.graph;
            let mut add = |s: usize, t: usize, bytes: f64, sign: f64| {
                r.routes.route(s, t, bytes, &mut |ch, x| sink(ch, sign * x));
            };
            for (from, to) in [(a, b), (b, a)] {
                for &x in &r.owner[from * r.cores..(from + 1) * r.cores] {
                    if x == FREE {
                        continue;
                    }
                    let x = x as usize;
                    for (k, &v) in g.neighbors(x).iter().enumerate() {
                        let nv = r.node_of[v as usize] as usize;
                        if nv == from {
                            continue;
                        }
                        let out = g.sent_row(x)[k];
                        if nv == to {
                            // Between the two nodes: it turns around (each
                            // such message counted once, from its sender).
                            if out > 0.0 {
                                add(from, to, out, -1.0);
                                add(to, from, out, 1.0);
                            }
                            continue;
                        }
                        let inn = r.received(g.offsets()[x] + k);
                        super::moved_edge(from, to, nv, out, inn, &mut add);
                    }
                }
            }
        });
    }

    /// The second nodes of first node `a` into `h.nodes.second`: the nodes
    /// of the partners of a's processes and their network neighbours, not
    /// `a`. O(k · deg + their links).
    fn node_candidates(&self, h: &mut Hot, a: usize) {
        let nm = &mut h.nodes;
        if nm.mark.len() != self.topo.num_nodes() {
            nm.mark = Stamps::new(self.topo.num_nodes());
        }
        nm.mark.clear();
        nm.second.clear();
        nm.mark.insert(a);
        for &x in self.node_slots(a) {
            if x == FREE {
                continue;
            }
            for &v in self.graph.neighbors(x as usize) {
                let nv = self.node_of[v as usize] as usize;
                if nm.mark.insert(nv) {
                    nm.second.push(nv);
                }
            }
        }
        let direct = nm.second.len();
        for i in 0..direct {
            for &w in self.dist.neighbors(nm.second[i]) {
                let w = w as usize;
                if nm.mark.insert(w) {
                    nm.second.push(w);
                }
            }
        }
    }

    /// After a round on channel `c` (load `m`) where neither one exchange
    /// nor a pair helped: try whole-node moves between the nodes of the
    /// round's processes `procs` and their neighbourhoods; keep the first,
    /// cheapest in hop-bytes, within what is left of the budget, that
    /// [`Refine::single_ok`] accepts or, when no other channel is at `m`
    /// (`tied` false), [`Refine::lowers_max`]. True when one was kept.
    pub(super) fn hot_nodes(
        &mut self,
        h: &mut Hot,
        c: usize,
        m: f64,
        tied: bool,
        procs: &[(u32, f64)],
        work: &mut usize,
    ) -> bool {
        let cap = WORK_PER_ENTRY * (self.graph.targets().len() + self.graph.n());
        if self.cores < 2 || h.nodes.work >= cap {
            return false;
        }
        let allow = h.budget + self.hb_eps;
        let mut pairs = std::mem::take(&mut h.nodes.pairs);
        pairs.clear();
        let mut firsts: Vec<usize> = Vec::with_capacity(procs.len());
        for &(p, _) in procs {
            let a = self.node_of[p as usize] as usize;
            if firsts.contains(&a) {
                continue;
            }
            firsts.push(a);
            self.node_candidates(h, a);
            let second = std::mem::take(&mut h.nodes.second);
            for &b in &second {
                // A pair met from both ends is listed once.
                if firsts.contains(&b) && b < a {
                    continue;
                }
                let dhb = self.node_swap_gain(a, b);
                if dhb <= allow {
                    pairs.push((dhb, a as u32, b as u32));
                }
            }
            *work += second.len() / 10;
            h.nodes.second = second;
        }
        pairs.sort_by(|x, y| x.0.total_cmp(&y.0).then((x.1, x.2).cmp(&(y.1, y.2))));
        pairs.dedup_by(|x, y| (x.1, x.2) == (y.1, y.2) || (x.1, x.2) == (y.2, y.1));
        let eps = 1e-12 * self.sq.max(1.0);
        let mut kept = None;
        for &(dhb, a, b) in pairs.iter().take(NODE_PAIRS_MAX) {
            if h.nodes.work >= cap {
                break;
            }
            *work += self.cores;
            h.nodes.work += self.cores;
            self.node_swap_deltas(a as usize, b as usize);
            let ok = match self.single_ok(c, m, eps) {
                None if !tied => self.lowers_max(c, m),
                ok => ok,
            };
            if let Some(dsq) = ok {
                kept = Some((dsq, dhb, a as usize, b as usize));
                break;
            }
        }
        h.nodes.pairs = pairs;
        let Some((dsq, dhb, a, b)) = kept else {
            return false;
        };
        self.node_swap_apply(h, a, b, dsq, dhb);
        true
    }

    /// Exchange the contents of nodes `a` and `b` (channel changes in
    /// `self.deltas`, Δ Σ load² `dsq`, Δ hop-bytes `dhb`), core by core,
    /// each per-core exchange logged for the way back to the best state.
    /// O(k · deg · L).
    pub(super) fn node_swap_apply(&mut self, h: &mut Hot, a: usize, b: usize, dsq: f64, dhb: f64) {
        for &(ch, x) in &self.deltas {
            self.load[ch] += x;
        }
        self.sq += dsq;
        let mut moved = Vec::with_capacity(2 * self.cores);
        let mut dh = dhb;
        let mut applied = 0;
        for k in 0..self.cores {
            let (sa, sb) = (a * self.cores + k, b * self.cores + k);
            let (x, y) = (self.owner[sa], self.owner[sb]);
            let (p, s) = match (x != FREE, y != FREE) {
                (true, _) => (x as usize, sb),
                (false, true) => (y as usize, sa),
                (false, false) => continue,
            };
            self.best_log(h, p);
            let ex = self.apply(p, s, dh);
            dh = 0.0;
            applied += 1;
            moved.extend([x, y].into_iter().filter(|&z| z != FREE));
            self.last.push(ex);
        }
        h.budget -= dhb;
        h.exchanges += applied;
        h.nodes.kept += 1;
        for z in moved {
            self.hot_relist(h, z as usize);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Refine, RefineParams};
    use crate::graph::GraphBuilder;
    use crate::mapping::Mapping;
    use crate::metrics::evaluate;
    use crate::routing::Routing;
    use crate::topology::Topology;
    use std::sync::Arc;

    #[test]
    fn a_whole_node_swap_relieves_a_channel_no_single_exchange_can() {
        // A line of three nodes 0 - 1 - 2 with two cores each. Processes
        // a, b, c, d, e, f (0–5) on nodes 0, 0, 1, 1, 2, 2. Three pairs
        // talk heavily inside their node (a↔b, c↔d, e↔f: 100 bytes each
        // way), and a→e 10, b→f 10, a→c 5 cross the network: channel 0→1
        // carries 25 (the largest), 1→2 carries 20; hop-bytes 2·10 + 2·10
        // + 5 = 45. Any exchange of one process splits two of the heavy
        // pairs (+200 hop-bytes at least), far beyond the budget (10 %,
        // 4.5), and there is no free core: the search keeps this mapping
        // and no exchange or pair can relieve 0→1.
        //
        // Swapping the whole contents of nodes 0 and 1 (a, b ↔ c, d) keeps
        // every pair together: a→e and b→f now take one hop (1→2: 20), a→c
        // turns around (1→0: 5), 0→1 carries nothing. Largest load 25 →
        // 20, Σ load² 25² + 20² = 1025 → 20² + 5² = 425, hop-bytes 45 →
        // 25. Then the busiest channel is 1→2 (20); the node swaps that
        // relieve it raise another channel to 20 or more (1 ↔ 2: 2→1
        // carries 25; 2 ↔ 0: 1→0 carries 20; 0 ↔ 1 back: 0→1 25), so the
        // phase ends there.
        let mut gb = GraphBuilder::new(6, true);
        for (u, v) in [(0, 1), (2, 3), (4, 5)] {
            gb.add(u, v, 100.0);
            gb.add(v, u, 100.0);
        }
        gb.add(0, 4, 10.0);
        gb.add(1, 5, 10.0);
        gb.add(0, 2, 5.0);
        let g = Arc::new(gb.build().unwrap());
        let topo = Arc::new(Topology::parse("mesh:3:cores=2").unwrap());
        let vol = Arc::new(crate::partition::pair_volumes(&g));
        let start = Mapping::new(vec![0, 0, 1, 1, 2, 2], vec![0, 1, 0, 1, 0, 1]);
        let eval = |m: &Mapping| {
            let e = evaluate(&g, &topo, m, &Routing::Dor).metrics;
            (e.hop_bytes, e.max_link_load)
        };
        assert_eq!(eval(&start), (45.0, 25.0));
        let params = RefineParams::hand_checked(0.1);
        let mut r = Refine::new(g.clone(), topo.clone(), vol, start, params);
        while !r.is_done() {
            r.step();
        }
        let end = r.mapping();
        assert_eq!(end.node, vec![1, 1, 0, 0, 2, 2]);
        assert_eq!(end.core, vec![0, 1, 0, 1, 0, 1]);
        assert_eq!(eval(&end), (25.0, 20.0));
        assert_eq!(r.load_phase(), Some((25.0, 20.0, 2)));
        assert_eq!(r.hop_bytes(), 25.0);
        assert_eq!(r.node_moves_kept(), 1);
    }
}
