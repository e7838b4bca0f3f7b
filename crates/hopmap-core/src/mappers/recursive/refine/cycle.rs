//! Rotations of three processes for the bottleneck phase's extension
//! ([`super::bottleneck`], [`super::keep_best`]): process `p` takes the
//! slot of `q`, `q` takes the slot of `r`, and `r` takes the slot `p` left
//! (a 3-cycle); or, when `q`'s new slot is a free core, `p` takes `q`'s
//! slot and `q` moves to the free core (a displacement). Both are an
//! ejection chain of length three closed at once: the seat `p` takes is
//! emptied by `q`, whose new seat is emptied by `r`, which fills the seat
//! `p` left.
//!
//! Why: a 3-cycle is a product of two exchanges, but the pairs of
//! [`super::chain`] only try those whose first exchange lowers the busiest
//! channel `c` (load `M`) and raises another channel to `M`; when every
//! exchange of two processes leaves `c`'s load where it is or makes it
//! worse, no exchange nor pair can relieve `c`, while a rotation may
//! (every process keeps its partners' direction, one of them leaves the
//! routes through `c`). Tried in the extension only: after a round around
//! `c` where no exchange, pair, look-ahead, whole-node move
//! ([`super::node_swap`]) or single exchange by the relaxed rule helped,
//! on graphs of fewer than [`PAIRS_BELOW`](super::chain::PAIRS_BELOW)
//! processes.
//!
//! The search: the first processes `p` are the round's (the 16 heaviest
//! through `c`, in that order). For each, `q` is any process on a node `b`
//! of p's candidate nodes (its partners' nodes and their neighbours, as the
//! single exchanges), and `q`'s new slot any slot on a node `e` of q's
//! candidate nodes (not `a`, p's node), occupied by `r` or free (one free
//! core per node). The hop-bytes change is exact from the per-process costs
//! kept by [`Refine`] and the volumes between the three: with `g_x(n)` the
//! change of x's cost were it alone on node `n` and `w_xy` the pair
//! volumes, `Δ = g_p(b) + g_q(e) + g_r(a) + w_pq (d(b,e) − d(e,a) + d(a,b))
//! + w_qr (d(e,a) − d(a,b) + d(b,e)) + w_pr (d(a,b) − d(b,e) + d(a,e))`
//! (each pair's length counted once at the new places; without `r`, the
//! first two terms and `w_pq`'s). The rotations within what is left of the
//! budget are tried cheapest in hop-bytes first (ties by index): a cheap
//! test whether they lower `c` (only the moved processes' messages, the
//! distance test of the single exchanges on meshes and tori), then every
//! channel's exact change (re-routing only those messages). The first that
//! lowers `c`, raises no other channel to `M` and, when another channel ties
//! at `M`, lowers Σ load² (the node moves' rule) is kept: the loads sorted
//! in decreasing order fall lexicographically, so the largest load never
//! rises and the phase ends. It is applied as two exchanges (p with q,
//! then q with r or the free core), each logged for the way back to the
//! phase's best state ([`super::keep_best`]), whose extension rule makes
//! every state pay for the hop-bytes it adds against the best.
//! Deterministic: fixed orders, ties broken by index; no randomness.
//!
//! Cost of one search: for each of at most 16 first processes and each
//! occupant `q` of their candidate nodes (C nodes, k cores), O(C · deg)
//! for q's costs on its candidate nodes and O(C · k) rotations of O(log
//! deg) each (pair volumes), plus O(deg) once per `r` for its cost on `a`;
//! then at most [`TESTS_MAX`] cheap tests of O(deg) distance tests and
//! [`CYCLES_MAX`] exact evaluations of O(deg · L) (L = route length). The
//! rotations listed are kept at most 4 × [`TESTS_MAX`] at a time (the
//! cheapest), so memory stays O(n + C² k²). The rotations listed (a tenth
//! each) and tested count in the step's work, and over the whole phase the
//! rotations' work is capped at [`WORK_PER_ENTRY`] × (adjacency entries +
//! processes), so their time stays proportional to the graph.
//!
//! Beyond the seeds: the seed papers' and VieM's searches exchange two
//! processes; cyclic exchanges of three are the 3-opt / cyclic-exchange
//! neighbourhood of local search for assignment problems (Ahuja, Orlin et
//! al., "A multi-exchange heuristic for the single-source capacitated
//! facility location problem", Management Science 50, 2004; Thompson &
//! Orlin's cyclic transfers, 1989), used here as the last move of the
//! bottleneck phase and judged by the routed channel loads.

use super::bottleneck::Hot;
use super::chain::WORK_PER_ENTRY;
use super::{FREE, Refine};

/// Rotations evaluated exactly (every channel) per search.
pub const CYCLES_MAX: usize = 256;
/// Rotations given the cheap test per search.
pub const TESTS_MAX: usize = 4096;

/// A rotation: Δ hop-bytes, p, the slot p takes (q's), the slot q takes
/// (r's, or a free core).
type Rotation = (f64, u32, u32, u32);

/// The rotations' state in the phase: scratch and the work spent.
#[derive(Default)]
pub(super) struct Cycles {
    list: Vec<Rotation>,
    /// Per process: its cost were it on the first process's node, valid
    /// where `to_a_id` holds the current stamp.
    to_a: Vec<f64>,
    to_a_id: Vec<u32>,
    id: u32,
    /// Work spent by the rotations so far in the phase.
    work: usize,
    /// Rotations kept so far.
    pub(super) kept: usize,
}

/// The moves of a rotation, as (process, from node, to node); `len` of
/// them are used (2 for a displacement into a free core, else 3).
type Moves = ([(usize, usize, usize); 3], usize);

impl Refine {
    /// The moves of rotation (p into slot `sb`, its occupant q into slot
    /// `se`, that slot's occupant r, if any, into p's slot).
    fn rotation_moves(&self, p: usize, sb: usize, se: usize) -> Moves {
        let (a, b, e) = (
            self.node_of[p] as usize,
            sb / self.cores,
            se / self.cores,
        );
        let q = self.owner[sb] as usize;
        let mut mv = [(p, a, b), (q, b, e), (0, 0, 0)];
        let r = self.owner[se];
        if r == FREE {
            return (mv, 2);
        }
        mv[2] = (r as usize, e, a);
        (mv, 3)
    }

    /// The messages whose routes change when the processes of `moves`
    /// move (each from its node to its new node, the others staying), as
    /// `push(src node, dst node, bytes, sign)`: −1 for the route before,
    /// +1 for the route after; a message between two moved processes is
    /// given once. O(Σ deg) of the moved processes.
    fn moved_set_messages(
        &self,
        moves: &[(usize, usize, usize)],
        push: &mut impl FnMut(usize, usize, f64, f64),
    ) {
        let g = &self.graph;
        for (i, &(x, from, to)) in moves.iter().enumerate() {
            for (k, &v) in g.neighbors(x).iter().enumerate() {
                let v = v as usize;
                let (vo, vn) = match moves.iter().position(|mv| mv.0 == v) {
                    // Given from v's side already.
                    Some(j) if j < i => continue,
                    Some(j) => (moves[j].1, moves[j].2),
                    None => {
                        let nv = self.node_of[v] as usize;
                        (nv, nv)
                    }
                };
                let out = g.sent_row(x)[k];
                let inn = self.received(g.offsets()[x] + k);
                if out > 0.0 {
                    push(from, vo, out, -1.0);
                    push(to, vn, out, 1.0);
                }
                if inn > 0.0 {
                    push(vo, from, inn, -1.0);
                    push(vn, to, inn, 1.0);
                }
            }
        }
    }

    /// The exact hop-bytes change of `moves`. O(Σ deg).
    fn moved_set_hop_bytes(&self, moves: &[(usize, usize, usize)]) -> f64 {
        let g = &self.graph;
        let mut d = 0.0;
        for (i, &(x, from, to)) in moves.iter().enumerate() {
            let off = g.offsets()[x];
            for (k, &v) in g.neighbors(x).iter().enumerate() {
                let v = v as usize;
                let (vo, vn) = match moves.iter().position(|mv| mv.0 == v) {
                    Some(j) if j < i => continue,
                    Some(j) => (moves[j].1, moves[j].2),
                    None => {
                        let nv = self.node_of[v] as usize;
                        (nv, nv)
                    }
                };
                let dd = self.dist.get(to, vn) as f64 - self.dist.get(from, vo) as f64;
                d += self.vol[off + k] * dd;
            }
        }
        d
    }

    /// The change of channel `c`'s load by `moves` (only the moved
    /// processes' messages; the distance test first when `ends` are c's
    /// ends on a mesh or torus). O(Σ deg) tests.
    fn moved_set_on(&self, moves: &[(usize, usize, usize)], c: usize, e: Option<(usize, usize)>) -> f64 {
        let mut t = 0.0;
        self.moved_set_messages(moves, &mut |s, d, bytes, sign| {
            if self.route_crosses(s, d, c, e) {
                t += sign * bytes;
            }
        });
        t
    }

    /// Every channel-load change of `moves`, merged by channel into
    /// `self.deltas`. O(Σ deg · L).
    fn moved_set_deltas(&mut self, moves: &[(usize, usize, usize)]) {
        self.merge_deltas(|r, sink| {
            r.moved_set_messages(moves, &mut |s, d, bytes, sign| {
                r.routes.route(s, d, bytes, &mut |ch, x| sink(ch, sign * x));
            });
        });
    }

    /// Process `r`'s cost were it on node `a` (memoised per first process
    /// by stamp `id`). O(deg r) the first time.
    fn cost_on_first(&self, cy: &mut Cycles, r: usize, a: usize) -> f64 {
        if cy.to_a_id[r] != cy.id {
            cy.to_a_id[r] = cy.id;
            cy.to_a[r] = self.cost_at(r, a);
        }
        cy.to_a[r]
    }

    /// List into `cy.list` the rotations starting with `p` whose
    /// hop-bytes change is at most `allow`; the rotations and costs
    /// computed, for the work count.
    fn list_rotations(&mut self, cy: &mut Cycles, p: usize, allow: f64) -> usize {
        let (a, cores) = (self.node_of[p] as usize, self.cores);
        cy.id = cy.id.wrapping_add(1);
        if cy.id == 0 {
            cy.to_a_id.iter_mut().for_each(|s| *s = 0);
            cy.id = 1;
        }
        let depth = self.params.depth;
        self.candidates(p, a, depth);
        let cand_p = std::mem::take(&mut self.cand);
        let mut listed = 0;
        for &b in &cand_p {
            let gp = self.cost_at(p, b) - self.cost[p];
            let dab = self.dist.get(a, b) as f64;
            for sb in b * cores..(b + 1) * cores {
                let q = self.owner[sb];
                if q == FREE {
                    continue;
                }
                let q = q as usize;
                let wpq = self.pair_volume(p, q);
                self.candidates(q, b, depth);
                let cand_q = std::mem::take(&mut self.cand);
                for &e in &cand_q {
                    if e == a {
                        continue;
                    }
                    let (dbe, dea) = (self.dist.get(b, e) as f64, self.dist.get(e, a) as f64);
                    let gq = self.cost_at(q, e) - self.cost[q];
                    let base = gp + gq + wpq * (dbe - dea + dab);
                    let mut free_tried = false;
                    for se in e * cores..(e + 1) * cores {
                        let r = self.owner[se];
                        let dhb = if r == FREE {
                            if free_tried {
                                continue;
                            }
                            free_tried = true;
                            base
                        } else {
                            let r = r as usize;
                            let gr = self.cost_on_first(cy, r, a) - self.cost[r];
                            base + gr
                                + self.pair_volume(q, r) * (dea - dab + dbe)
                                + self.pair_volume(p, r) * (dab - dbe + dea)
                        };
                        listed += 1;
                        if dhb <= allow {
                            cy.list.push((dhb, p as u32, sb as u32, se as u32));
                        }
                    }
                    listed += 1;
                }
                self.cand = cand_q;
            }
        }
        self.cand = cand_p;
        listed
    }

    /// After a round on channel `c` (load `m`) where nothing else helped:
    /// try the rotations starting with the round's processes `procs`,
    /// cheapest in hop-bytes first within what is left of the budget, and
    /// keep the first that [`Refine::single_ok`] accepts or, when no other
    /// channel is at `m` (`tied` false), [`Refine::lowers_max`]. True when
    /// one was kept.
    pub(super) fn hot_cycles(
        &mut self,
        h: &mut Hot,
        c: usize,
        m: f64,
        tied: bool,
        procs: &[(u32, f64)],
        work: &mut usize,
    ) -> bool {
        let cap = WORK_PER_ENTRY * (self.graph.targets().len() + self.graph.n());
        let mut cy = std::mem::take(&mut h.cycles);
        if cy.to_a.len() != self.graph.n() {
            cy.to_a = vec![0.0; self.graph.n()];
            cy.to_a_id = vec![0; self.graph.n()];
            cy.id = 0;
        }
        cy.list.clear();
        let allow = if std::env::var("CYALL").is_ok() { f64::INFINITY } else { h.budget + self.hb_eps };
        let by_cost = |x: &Rotation, y: &Rotation| {
            x.0.total_cmp(&y.0).then((x.1, x.2, x.3).cmp(&(y.1, y.2, y.3)))
        };
        for &(p, _) in procs {
            if cy.work >= cap {
                break;
            }
            let p = p as usize;
            if self.graph.degree(p) == 0 {
                continue;
            }
            let listed = self.list_rotations(&mut cy, p, allow) / 10;
            *work += listed;
            cy.work += listed;
            if cy.list.len() > 4 * TESTS_MAX {
                cy.list.sort_by(by_cost);
                cy.list.truncate(TESTS_MAX);
            }
        }
        cy.list.sort_by(by_cost);
        cy.list.truncate(TESTS_MAX);
        let ends = self.topo.as_grid().and_then(|_| self.topo.channel_ends(c));
        let tol = 1e-9 * m;
        let eps = 1e-12 * self.sq.max(1.0);
        let mut exact = 0;
        let mut kept = None;
        for &(_, p, sb, se) in &cy.list {
            if exact >= CYCLES_MAX || cy.work >= cap {
                break;
            }
            *work += 1;
            cy.work += 1;
            let (mv, len) = self.rotation_moves(p as usize, sb as usize, se as usize);
            if self.moved_set_on(&mv[..len], c, ends) >= -tol {
                continue;
            }
            exact += 1;
            *work += len;
            cy.work += len;
            self.moved_set_deltas(&mv[..len]);
            let ok = match self.single_ok(c, m, eps) {
                None if !tied => self.lowers_max(c, m),
                ok => ok,
            };
            if let Some(dsq) = ok {
                if std::env::var("CYDBG").is_ok() { eprintln!("  ok rotation dhb {} hb {} budget {} newmax? ", self.moved_set_hop_bytes(&mv[..len]), self.hb, h.budget); }
                kept = Some((dsq, p as usize, sb as usize, se as usize, mv, len));
                break;
            }
        }
        if std::env::var("CYDBG").is_ok() {
            eprintln!("cycles: c {c} m {m} tied {tied} listed {} exact {exact} kept {} budget {} work {}/{cap}", cy.list.len(), kept.is_some(), h.budget, cy.work);
        }
        h.cycles = cy;
        let Some((dsq, p, sb, se, mv, len)) = kept else {
            return false;
        };
        let dhb = self.moved_set_hop_bytes(&mv[..len]);
        for &(ch, x) in &self.deltas {
            self.load[ch] += x;
        }
        self.sq += dsq;
        let q = mv[1].0;
        self.best_log(h, p);
        let e1 = self.apply(p, sb, dhb);
        self.best_log(h, q);
        let e2 = self.apply(q, se, 0.0);
        self.last.push(e1);
        self.last.push(e2);
        h.budget -= dhb;
        h.exchanges += 2;
        h.cycles.kept += 1;
        for &(x, _, _) in &mv[..len] {
            self.hot_relist(h, x);
        }
        true
    }
}
