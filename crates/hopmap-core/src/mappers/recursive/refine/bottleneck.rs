//! The bottleneck phase of [`Refine`]: after the swap/move search has
//! stopped, relieve the busiest channel under dimension-order routing
//! ([`crate::routing::Routing::Dor`]) at a small, bounded price in hop-bytes. Beyond the
//! seed papers and beyond VieM (whose search only knows hop-bytes); seeds
//! 002 (Balaji) and 003 (Wu et al.) discuss link contention as the second
//! objective.
//!
//! One round:
//! 1. take the busiest channel `c` (load `M`, the first one on a tie);
//! 2. gather the processes that send or receive a message routed through
//!    `c` — every channel keeps a list of the messages routed through it,
//!    built by routing every message once when the phase starts and
//!    appended to when an exchange re-routes messages; stale entries are
//!    dropped when a list is read (each entry is re-checked) — and keep the
//!    16 with the most bytes through `c`, heaviest first;
//! 3. for each of them, `p`, in turn: list the usual exchanges (a move into
//!    a free core or a swap with a process `q` on the nodes of p's partners,
//!    and their neighbours with `depth` 1) whose hop-bytes rise fits in what
//!    is left of the budget, and go through them cheapest in hop-bytes
//!    first: a cheap test whether the exchange lowers `c`'s load (only the
//!    bytes of p's and q's messages through `c` before and after; on meshes
//!    and tori a route from s to t can cross `c` = (u→w) only if
//!    d(s,u) + 1 + d(w,t) = d(s,t), since dimension-order routes are
//!    shortest paths),
//!    then the exact change of every channel's load (re-routing only p's
//!    and q's messages); the first exchange that raises no other channel to
//!    `M` or above and lowers Σ load² is kept. Before that exact change,
//!    on meshes and tori, a second cheap test refuses the exchanges that
//!    surely raise a channel to `M`: the change of the first two channels
//!    of the new route of p's heaviest message, summed exactly as the
//!    exact change sums it (same value, same refusals; beyond the seeds:
//!    on the halos of 1,024 processes most exchanges tried are refused
//!    so; left for the rest of p's exchanges once it mostly fails);
//! 4. apply it; when none of the processes has one, try two exchanges in
//!    a row, the first raising another channel to `M` and the second
//!    bringing it back ([`chain`](super::chain), an ejection chain; on
//!    graphs of fewer than [`PAIRS_BELOW`](super::chain::PAIRS_BELOW)
//!    processes), and
//!    apply the first pair found; when there is none either, `c` cannot be
//!    relieved by one or two such exchanges within the budget: on graphs
//!    of fewer than [`PAIRS_BELOW`](super::chain::PAIRS_BELOW) processes
//!    the phase goes on once with a priced budget (the look-ahead of
//!    [`keep_best`](super::keep_best)); when that is stuck too, it goes on
//!    with the extension (on the same graphs): with several cores per node
//!    whole-node moves ([`node_swap`](super::node_swap): two nodes'
//!    contents exchanged, or a node's moved to an empty node), else, when
//!    no other channel is at `M`, the first exchange met in step 3 that
//!    lowered `c` and raised no channel to `M` though Σ load² rose (the
//!    largest load itself falls: the pairs' rule); the extension's states
//!    must pay for their hop-bytes against the best state
//!    ([`keep_best`](super::keep_best)). When none applies, the phase ends;
//! 5. at its end, go back to the best state seen at the start of a round
//!    ([`keep_best`](super::keep_best): the least largest load, where
//!    hop-bytes beyond `load_budget` are paid for by the load's fall, then
//!    the least hop-bytes), and then, on graphs of fewer than
//!    [`PAIRS_BELOW`](super::chain::PAIRS_BELOW) processes, to the image
//!    of that mapping of least largest load under the mesh's or torus's
//!    symmetries that change dimension-order routes
//!    ([`images`](super::images): same hop-bytes);
//! 6. on the same graphs, when the phase's start has an image of lower
//!    largest load, run the phase once more from that image and keep its
//!    result only when it pays against the first one
//!    ([`start_image`](super::start_image)).
//!
//! Invariants: until the end, the largest channel load never rises (a
//! raised channel stays below `M`); every kept move takes `c` below `M` and
//! raises no channel to it, so the loads sorted in decreasing order fall
//! lexicographically and the phase ends; a single exchange also lowers Σ
//! load², except in the extension (where the largest load itself falls).
//! The end state is the best seen (or its image, of the same hop-bytes
//! and a lower largest load), so the largest load is at most
//! the start's, and no higher than where the flat budget stopped. Hop-bytes
//! rise by at most (`load_budget` + 0.1 × the relative fall of the largest
//! load) × their value at the phase's start. Deterministic: no randomness,
//! ties broken by index. One
//! step routes the messages of 2,048 processes (set-up) or tries up to 2 ×
//! `batch` exchanges (a round may span steps; a pair search runs within
//! one step, bounded by [`chain`](super::chain)'s caps).
//!
//! Cost: the set-up routes every message once, O(m · L) time and memory
//! for the lists (L = mean route length, small after the search). A round
//! costs O(channels) to find `c`, O(k · L) to read its list (k messages),
//! and for each process tried O(|candidates| · cores · deg) distance tests
//! plus O(deg · L) re-routing per exchange that passes them. Only the
//! processes around one channel are touched, which is what makes it cheap
//! (against re-routing every process's exchanges: `docs/benchmarks.md`).

use super::chain::{Accept, Chain};
use super::keep_best::KeepBest;
use super::node_swap::NodeMoves;
use super::start_image::SecondStart;
use super::{FREE, Refine, RefineStop};

/// The processes tried around the busiest channel: the ones with the most
/// bytes through it. (16 gave the same loads as trying all of them on the
/// measured inputs, at a third of the cost when the channel is stuck.)
const ROUND_PROCS: usize = 16;

/// Processes whose messages one set-up step routes.
const SETUP_CHUNK: usize = 2048;

/// State of the bottleneck phase.
pub(super) struct Hot {
    /// Why the hop-bytes search before this phase stopped.
    pub(super) why: RefineStop,
    /// Processes whose messages are routed so far (set-up is done at n).
    routed: usize,
    /// Per channel: ids (CSR positions) of the messages routed through it,
    /// possibly stale or repeated.
    pub(super) lists: Vec<Vec<u32>>,
    /// Sender of each message id.
    pub(super) src: Vec<u32>,
    /// Hop-bytes that the phase may still add.
    pub(super) budget: f64,
    /// The largest load at the phase's start and now.
    pub(super) start_max: f64,
    pub(super) max: f64,
    /// Exchanges kept so far (a pair counts two).
    pub(super) exchanges: usize,
    /// Pairs ([`chain`]) kept so far.
    pub(super) chains: usize,
    /// The pair search's scratch and work.
    pub(super) chain: Chain,
    /// The whole-node moves' scratch and work ([`super::node_swap`]).
    pub(super) nodes: NodeMoves,
    /// Whether the last step routed messages (set-up) rather than ran rounds.
    pub(super) setting_up: bool,
    /// The best state seen and the way back to it ([`super::keep_best`]).
    pub(super) best: KeepBest,
    /// The round in progress: its channel, the channel's load, and the
    /// processes around it (with their bytes through it, heaviest first)
    /// still to be tried from `next` on.
    round: Option<Round>,
    /// The second start from the start's best image ([`super::start_image`]).
    pub(super) second: SecondStart,
}

struct Round {
    c: usize,
    m: f64,
    procs: Vec<(u32, f64)>,
    next: usize,
    /// Whether another channel than `c` is at `m` too.
    tied: bool,
    /// The first process tried with an exchange that lowers the largest
    /// load but raises Σ load² ([`Refine::lowers_max`]), and that exchange.
    fallback: Option<(usize, (f64, f64, usize))>,
}

impl Hot {
    pub(super) fn new(why: RefineStop) -> Self {
        Hot {
            why,
            routed: 0,
            lists: Vec::new(),
            src: Vec::new(),
            budget: 0.0,
            start_max: 0.0,
            max: 0.0,
            exchanges: 0,
            chains: 0,
            chain: Chain::default(),
            nodes: NodeMoves::default(),
            setting_up: true,
            best: KeepBest::default(),
            round: None,
            second: SecondStart::default(),
        }
    }

    /// Set the phase up anew where the mapping is now (the second start,
    /// [`super::start_image`]): everything but why the search stopped and
    /// the second start's record.
    pub(super) fn restart(&mut self) {
        let second = std::mem::take(&mut self.second);
        *self = Hot {
            second,
            ..Hot::new(self.why)
        };
    }
}

/// The best exchange of a process: (Δ Σ load², Δ hop-bytes, slot).
type Best = Option<(f64, f64, usize)>;

/// Merge `procs` (process, bytes through a channel) by process, summing
/// the bytes, and keep the `k` heaviest, heaviest first (ties by index).
/// O(len log len).
pub(super) fn heaviest(procs: &mut Vec<(u32, f64)>, k: usize) {
    procs.sort_unstable_by_key(|&(p, _)| p);
    let mut w = 0;
    for i in 0..procs.len() {
        if w > 0 && procs[w - 1].0 == procs[i].0 {
            procs[w - 1].1 += procs[i].1;
        } else {
            procs[w] = procs[i];
            w += 1;
        }
    }
    procs.truncate(w);
    procs.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
    procs.truncate(k);
}

/// The phase runs only on networks with at most this many channels per
/// adjacency entry (plus one per process) of the graph: its per-channel
/// loads and lists then stay proportional to the input.
pub const CHANNELS_PER_ENTRY: usize = 64;

impl Refine {
    /// Route the messages of the next [`SETUP_CHUNK`] processes: loads
    /// (from scratch) and channel lists.
    fn hot_setup(&mut self, h: &mut Hot) {
        let g = self.graph.clone();
        if h.routed == 0 {
            self.ensure_rev();
            let nc = self.topo.channel_slots();
            self.load = vec![0.0; nc];
            h.lists = vec![Vec::new(); nc];
            h.src = vec![0; g.targets().len()];
        }
        let off = g.offsets();
        let end = (h.routed + SETUP_CHUNK).min(g.n());
        for u in h.routed..end {
            let a = self.node_of[u] as usize;
            for e in off[u]..off[u + 1] {
                h.src[e] = u as u32;
                let bytes = g.sent()[e];
                if bytes > 0.0 {
                    let b = self.node_of[g.targets()[e] as usize] as usize;
                    let (load, lists) = (&mut self.load, &mut h.lists);
                    self.routes.route(a, b, bytes, &mut |ch, x| {
                        load[ch] += x;
                        lists[ch].push(e as u32);
                    });
                }
            }
        }
        h.routed = end;
        if end < g.n() {
            return;
        }
        self.sq = self.load.iter().map(|l| l * l).sum();
        h.budget = self.params.load_budget * self.hb;
        h.max = self.max_load();
        h.start_max = h.max;
        h.best.start(h.max, self.hb);
        self.second_record(h);
    }
    /// The largest channel load. O(channels).
    pub fn max_load(&self) -> f64 {
        self.load.iter().cloned().fold(0.0, f64::max)
    }

    /// Whether message `e` is routed through channel `c` now. O(L).
    pub(super) fn crosses(&self, h: &Hot, e: usize, c: usize) -> bool {
        let a = self.node_of[h.src[e] as usize] as usize;
        let b = self.node_of[self.graph.targets()[e] as usize] as usize;
        let mut hit = false;
        self.routes.route(a, b, 1.0, &mut |ch, _| hit |= ch == c);
        hit
    }

    /// Whether the route from node `s` to node `t` crosses channel `c`,
    /// whose ends are `ends` when routes are shortest paths (a test by
    /// distances first, O(1) with the distance table; else routed, O(L)).
    fn route_crosses(&self, s: usize, t: usize, c: usize, ends: Option<(usize, usize)>) -> bool {
        if s == t {
            return false;
        }
        if let Some((u, w)) = ends
            && self.dist.get(s, u) + 1 + self.dist.get(w, t) != self.dist.get(s, t)
        {
            return false;
        }
        let mut hit = false;
        self.routes.route(s, t, 1.0, &mut |ch, _| hit |= ch == c);
        hit
    }

    /// Bytes of the messages of `x` (sent and received) routed through
    /// channel `c` if `x` sat on node `n`, its partners where they are: by
    /// the rows of the distance table on a tabulated mesh or torus, else by
    /// distance tests. O(deg x) look-ups, plus routes where they cannot
    /// rule c out.
    fn crossing_bytes(&self, x: usize, n: usize, c: usize, ends: Option<(usize, usize)>) -> f64 {
        if let Some((u, w)) = ends
            && let (Some(row_n), Some(row_u), Some(row_w)) =
                (self.dist.row(n), self.dist.row(u), self.dist.row(w))
        {
            return self.crossing_bytes_by_rows(x, n, c, (row_n, row_u, row_w));
        }
        self.crossing_bytes_by_tests(x, n, c, ends)
    }

    /// [`Refine::crossing_bytes`] by [`Refine::route_crosses`] for each
    /// message. O(deg x) distance tests, plus routes where they cannot rule
    /// c out.
    fn crossing_bytes_by_tests(
        &self,
        x: usize,
        n: usize,
        c: usize,
        ends: Option<(usize, usize)>,
    ) -> f64 {
        let g = &self.graph;
        let mut t = 0.0;
        for (k, &v) in g.neighbors(x).iter().enumerate() {
            let v = v as usize;
            let nv = self.node_of[v] as usize;
            if nv == n {
                continue;
            }
            let out = g.sent_row(x)[k];
            if out > 0.0 && self.route_crosses(n, nv, c, ends) {
                t += out;
            }
            let inn = self.received(g.offsets()[x] + k);
            if inn > 0.0 && self.route_crosses(nv, n, c, ends) {
                t += inn;
            }
        }
        t
    }

    /// [`Refine::crossing_bytes`] on a tabulated mesh or torus, whose
    /// distances are symmetric: the distance tests of
    /// [`Refine::route_crosses`] read from the rows of `n` and of the
    /// channel's ends `u` and `w` (d(n,u) and d(w,n) once, then three
    /// look-ups per partner), the same tests and routes in the same order,
    /// so the same sum. O(deg x) look-ups, plus routes where they cannot
    /// rule c out.
    fn crossing_bytes_by_rows(
        &self,
        x: usize,
        n: usize,
        c: usize,
        (row_n, row_u, row_w): (&[u8], &[u8], &[u8]),
    ) -> f64 {
        let g = &self.graph;
        let crosses = |s: usize, t: usize| {
            let mut hit = false;
            self.routes.route(s, t, 1.0, &mut |ch, _| hit |= ch == c);
            hit
        };
        // d(n, u) + 1 and d(w, n) + 1.
        let (nu, wn) = (row_u[n] as u32 + 1, row_w[n] as u32 + 1);
        let off = g.offsets()[x];
        let mut t = 0.0;
        for (k, &v) in g.neighbors(x).iter().enumerate() {
            let nv = self.node_of[v as usize] as usize;
            if nv == n {
                continue;
            }
            let d = row_n[nv] as u32;
            let out = g.sent_row(x)[k];
            if out > 0.0 && nu + row_w[nv] as u32 == d && crosses(n, nv) {
                t += out;
            }
            let inn = self.received(off + k);
            if inn > 0.0 && row_u[nv] as u32 + wn == d && crosses(nv, n) {
                t += inn;
            }
        }
        t
    }

    /// Start keeping the processes' bytes through a round's channel where
    /// they sit ([`Refine::hot_try`]), under a new stamp, until `here_on`
    /// is cleared. O(1), or O(n) the first time.
    fn here_begin(&mut self) {
        let n = self.graph.n();
        if self.here_bytes.len() != n {
            self.here_bytes = vec![(0, 0.0); n];
        }
        self.here_stamp = self.here_stamp.wrapping_add(1);
        if self.here_stamp == 0 {
            self.here_bytes.fill((0, 0.0));
            self.here_stamp = 1;
        }
        self.here_on = true;
    }

    /// Append the current routes of every message of `x` to the lists.
    pub(super) fn hot_relist(&self, h: &mut Hot, x: usize) {
        let g = &self.graph;
        let off = g.offsets();
        let nx = self.node_of[x] as usize;
        for (k, &v) in g.neighbors(x).iter().enumerate() {
            let v = v as usize;
            let nv = self.node_of[v] as usize;
            let out = off[x] + k;
            let mut ids = [(out, nx, nv), (usize::MAX, nv, nx)];
            if self.rev[out] != super::NO_REV {
                ids[1].0 = self.rev[out] as usize;
            }
            for (e, s, t) in ids {
                if e == usize::MAX || g.sent()[e] <= 0.0 {
                    continue;
                }
                let lists = &mut h.lists;
                self.routes
                    .route(s, t, 1.0, &mut |ch, _| lists[ch].push(e as u32));
            }
        }
    }

    /// Begin a round on the busiest channel: gather the processes around
    /// it. False when there is no traffic on any channel.
    fn hot_begin(&mut self, h: &mut Hot, work: &mut usize) -> bool {
        let mut c = 0;
        let mut m = 0.0;
        for (ch, &l) in self.load.iter().enumerate() {
            if l > m {
                m = l;
                c = ch;
            }
        }
        h.max = m;
        if m <= 0.0 {
            return false;
        }
        let beta = self.params.load_budget;
        h.best.see(beta, h.start_max, m, self.hb, self.hb_eps);
        if h.best.ahead {
            h.budget = h.best.ahead_budget(beta, h.start_max, self.hb);
        }
        // Finding c costs about one exchange tested per 1,024 channels.
        *work += self.load.len() / 1024;
        let mut list = std::mem::take(&mut h.lists[c]);
        list.sort_unstable();
        list.dedup();
        list.retain(|&e| self.crosses(h, e as usize, c));
        let g = &self.graph;
        let mut procs = Vec::with_capacity(2 * list.len());
        for &e in &list {
            let e = e as usize;
            let bytes = g.sent()[e];
            procs.push((h.src[e], bytes));
            procs.push((g.targets()[e], bytes));
        }
        h.lists[c] = list;
        heaviest(&mut procs, ROUND_PROCS);
        let tol = 1e-9 * m;
        let tied = (self.load.iter().enumerate()).any(|(ch, &l)| ch != c && l >= m - tol);
        h.round = Some(Round {
            c,
            m,
            procs,
            next: 0,
            tied,
            fallback: None,
        });
        true
    }

    /// Apply p's exchange into slot `s` found by [`Refine::hot_try`].
    fn hot_apply(&mut self, h: &mut Hot, p: usize, (dsq, dhb, s): (f64, f64, usize)) {
        let a = self.node_of[p] as usize;
        let q = self.owner[s];
        let qo = (q != FREE).then_some(q as usize);
        self.load_deltas(p, a, s / self.cores, qo);
        for &(ch, x) in &self.deltas {
            self.load[ch] += x;
        }
        self.sq += dsq;
        self.best_log(h, p);
        let ex = self.apply(p, s, dhb);
        h.budget -= dhb;
        h.exchanges += 1;
        self.hot_relist(h, p);
        if let Some(q) = qo {
            self.hot_relist(h, q);
        }
        self.last.push(ex);
    }

    /// The exchanges of `p` that lower channel `c`'s load (the largest
    /// load is `m`), cheapest in hop-bytes first, within `budget`: the
    /// first that `accept` takes (for [`Accept::Single`]: raises no other
    /// channel to `m` and lowers Σ load²; [`Accept::First`] takes none and
    /// records the ones that raise another channel to `m`).
    /// Adds the exchanges evaluated to `work`.
    pub(super) fn hot_try(
        &mut self,
        p: usize,
        c: usize,
        m: f64,
        budget: f64,
        mut accept: Accept<'_>,
        work: &mut usize,
    ) -> Best {
        let mut best: Best = None;
        if self.graph.degree(p) == 0 {
            return None;
        }
        let tol = 1e-9 * m;
        let eps = 1e-12 * self.sq.max(1.0);
        let a = self.node_of[p] as usize;
        self.candidates(p, a, self.params.depth);
        let cand = std::mem::take(&mut self.cand);
        let mut partners = std::mem::take(&mut self.partners);
        partners.clear();
        let off = self.graph.offsets()[p];
        for (k, &v) in self.graph.neighbors(p).iter().enumerate() {
            partners.push((self.node_of[v as usize] as usize, self.vol[off + k]));
        }
        let base = self.cost[p];
        let allow = budget + self.hb_eps;
        // On meshes and tori dimension-order routes are shortest paths, so
        // a route crosses c = (u→w) only if d(s,u) + 1 + d(w,t) = d(s,t).
        let ends = self.topo.as_grid().and_then(|_| self.topo.channel_ends(c));
        let mut relief = std::mem::take(&mut self.relief);
        relief.clear();
        // Every exchange within the budget, as (Δ hop-bytes, index of its
        // node in `cand`, slot); tried cheapest in hop-bytes first.
        let by_axis = self.axis.begin(&self.dist, self.exact, &partners);
        for (i, &b) in cand.iter().enumerate() {
            let dab = self.dist.get(a, b) as f64;
            let gp = if by_axis {
                self.axis.cost(&self.dist, b) - base
            } else {
                self.gain_at(&partners, b, base)
            };
            let mut free_tried = false;
            for s in b * self.cores..(b + 1) * self.cores {
                let q = self.owner[s];
                let dhb = if q == FREE {
                    if free_tried {
                        continue;
                    }
                    free_tried = true;
                    gp
                } else {
                    let q = q as usize;
                    // q's cost falls by at most min(cost q, W_q · d(a,b)).
                    if gp - self.cost[q].min(self.wsum[q] * dab) > allow {
                        continue;
                    }
                    gp + self.cost_at(q, a) - self.cost[q] + 2.0 * self.pair_volume(p, q) * dab
                };
                if dhb <= allow {
                    relief.push((dhb, i, s));
                }
            }
        }
        relief.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.2.cmp(&y.2)));
        // Listing them costs about a tenth of testing one each.
        *work += relief.len() / 10;
        let pa = self.crossing_bytes(p, a, c, ends);
        let mut pbs = std::mem::take(&mut self.pbs);
        pbs.clear();
        pbs.resize(cand.len(), None);
        let (mut hits, mut misses) = (0, 0);
        let heavy = self.heaviest_message(p);
        for &(dhb, i, s) in &relief {
            let b = cand[i];
            let q = self.owner[s];
            let qo = (q != FREE).then_some(q as usize);
            // Cheap test first: does the exchange lower c's load? With
            // B(x, n) = bytes of x's messages through c when x sits on n
            // (the p–q messages are within a node in B(p, b) and B(q, a)),
            // the change is B(p,b) − B(p,a) for a move, and for a swap
            // B(p,b) + B(q,a) − B(p,a) − B(q,b) plus the p–q messages before
            // and after: c_pq · ([a→b] + [b→a]).
            *work += 1;
            let pb = *pbs[i].get_or_insert_with(|| self.crossing_bytes(p, b, c, ends));
            let dc = match qo {
                None => pb - pa,
                Some(q) => {
                    let x = self.route_crosses(a, b, c, ends) as u8;
                    let y = self.route_crosses(b, a, c, ends) as u8;
                    let qa = self.crossing_bytes(q, a, c, ends);
                    // q sits on b: its bytes through c there are the
                    // same for every process of the round.
                    let qb = match self.here_bytes.get(q) {
                        Some(&(st, bytes)) if self.here_on && st == self.here_stamp => bytes,
                        _ => {
                            let bytes = self.crossing_bytes(q, b, c, ends);
                            if self.here_on {
                                self.here_bytes[q] = (self.here_stamp, bytes);
                            }
                            bytes
                        }
                    };
                    pb - pa + qa - qb + self.pair_volume(p, q) * (x + y) as f64
                }
            };
            if dc >= -tol {
                continue;
            }
            // A channel that the exchange surely raises to `m` refuses a
            // single exchange before every channel's change is made (the
            // test is left once it mostly fails: it only saves time).
            if ends.is_some()
                && matches!(accept, Accept::Single(_))
                && misses <= 2 * hits + 4
                && let Some(heavy) = heavy
            {
                if self.surely_raises(p, a, b, qo, heavy, c, m) {
                    hits += 1;
                    continue;
                }
                misses += 1;
            }
            // The exact change of every channel.
            self.load_deltas(p, a, s / self.cores, qo);
            let found = match &mut accept {
                Accept::Single(fallback) => {
                    let ok = self.single_ok(c, m, eps);
                    if ok.is_none()
                        && let Some(fb) = fallback
                        && fb.is_none()
                        && let Some(dsq) = self.lowers_max(c, m)
                    {
                        **fb = Some((dsq, dhb, s));
                    }
                    ok
                }
                Accept::First(blocked) => {
                    self.record_first(p, c, m, dhb, s, blocked);
                    None
                }
                Accept::Second(first) => self.second_ok(first, m, eps),
            };
            if let Some(dsq) = found {
                best = Some((dsq, dhb, s));
                break;
            }
        }
        self.relief = relief;
        self.pbs = pbs;
        self.cand = cand;
        self.partners = partners;
        best
    }

    /// The heaviest message of `p` (the first on a tie, sent before
    /// received): its partner and whether `p` sends it. O(deg).
    fn heaviest_message(&self, p: usize) -> Option<(usize, bool)> {
        let g = &self.graph;
        let off = g.offsets()[p];
        let mut heavy: Option<(usize, bool, f64)> = None;
        for (k, &v) in g.neighbors(p).iter().enumerate() {
            for (bytes, sends) in [(g.sent_row(p)[k], true), (self.received(off + k), false)] {
                if bytes > 0.0 && heavy.is_none_or(|h| bytes > h.2) {
                    heavy = Some((v as usize, sends, bytes));
                }
            }
        }
        heavy.map(|(v, sends, _)| (v, sends))
    }

    /// Whether moving `p` from node `a` to node `b` (and `q`, if some, from
    /// `b` to `a`) surely raises a channel other than `c` to the largest
    /// load `m`, so that [`Refine::lowers_max`] refuses it. The channels
    /// tested are the first two (but `c`) on the new route of p's heaviest
    /// message `(v, sends)` ([`Refine::heaviest_message`]); each one's
    /// change is summed over the same messages, in the same order and from
    /// the same routes as [`Refine::load_deltas`] sums it, so it is the
    /// same value bit for bit, and tested by the same rule as
    /// [`Refine::lowers_max`]'s. Routes that cannot cross a tested channel
    /// are skipped by the distance test (dimension-order routes on meshes
    /// and tori are shortest paths; the caller checks the network is one).
    /// O(L) to route the message, then O(deg) distance tests plus O(L) per
    /// route that passes one (against [`Refine::load_deltas`]'s O(deg ·
    /// L)).
    #[allow(clippy::too_many_arguments)]
    fn surely_raises(
        &self,
        p: usize,
        a: usize,
        b: usize,
        q: Option<usize>,
        (v, sends): (usize, bool),
        c: usize,
        m: f64,
    ) -> bool {
        let nv = if Some(v) == q {
            a
        } else {
            self.node_of[v] as usize
        };
        let (s, t) = if sends { (b, nv) } else { (nv, b) };
        if s == t {
            return false;
        }
        // The channels of that route (but c), their ends and changes.
        let mut chans = [(0, 0, 0, 0.0); 2];
        let mut k = 0;
        self.routes.route(s, t, 1.0, &mut |x, _| {
            if x != c
                && k < chans.len()
                && let Some((u, w)) = self.topo.channel_ends(x)
            {
                chans[k] = (x, u, w, 0.0);
                k += 1;
            }
        });
        let chans = &mut chans[..k];
        if chans.is_empty() {
            return false;
        }
        self.moved_messages(p, a, b, q, &mut |s, t, bytes, sign| {
            if s == t {
                return;
            }
            let dst = self.dist.get(s, t);
            if !(chans.iter())
                .any(|&(_, u, w, _)| self.dist.get(s, u) + 1 + self.dist.get(w, t) == dst)
            {
                return;
            }
            self.routes.route(s, t, bytes, &mut |y, v| {
                for e in chans.iter_mut() {
                    if e.0 == y {
                        e.3 += sign * v;
                    }
                }
            });
        });
        let tol = 1e-9 * m;
        (chans.iter()).any(|&(ch, _, _, x)| x > 1e-12 * m && self.load[ch] + x >= m - tol)
    }

    /// Whether the exchange whose channel changes are in `self.deltas` is
    /// kept alone: it lowers `c`, raises no other channel to the maximum
    /// `m`, and lowers Σ load² (the change, returned). O(|deltas|).
    pub(super) fn single_ok(&self, c: usize, m: f64, eps: f64) -> Option<f64> {
        self.lowers_max(c, m).filter(|&dsq| dsq < -eps)
    }

    /// Whether the exchange whose channel changes are in `self.deltas`
    /// lowers `c` and raises no other channel to the maximum `m` (the
    /// pairs' rule, [`super::chain`], when no other channel is at `m`: the
    /// largest load itself falls, whatever Σ load² does); its change of
    /// Σ load² when it does. O(|deltas|).
    pub(super) fn lowers_max(&self, c: usize, m: f64) -> Option<f64> {
        let tol = 1e-9 * m;
        let mut dsq = 0.0;
        let mut relieved = false;
        for &(ch, x) in &self.deltas {
            let l = self.load[ch];
            let nl = l + x;
            dsq += nl * nl - l * l;
            if ch == c {
                relieved = x < -tol;
            } else if x > 1e-12 * m && nl >= m - tol {
                return None;
            }
        }
        relieved.then_some(dsq)
    }

    /// One step of the phase: a set-up chunk, or rounds until about
    /// `batch` × 2 exchanges were evaluated (a round may span steps). True
    /// when the phase is over.
    #[inline(never)]
    pub(super) fn hot_step(&mut self, h: &mut Hot) -> bool {
        h.setting_up = h.routed < self.graph.n();
        if h.setting_up {
            self.hot_setup(h);
            return false;
        }
        let over = self.hot_rounds(h);
        h.max = self.max_load();
        if over {
            self.best_restore(h);
            // The image of least largest load under the network's
            // symmetries ([`super::images`]), at the same hop-bytes.
            if self.graph.n() < super::chain::PAIRS_BELOW {
                if self.best_image() {
                    h.max = self.max_load();
                }
                // Then once more from the start's best image, kept only
                // when it pays ([`super::start_image`]).
                return self.second_start(h);
            }
        }
        over
    }

    fn hot_rounds(&mut self, h: &mut Hot) -> bool {
        let limit = 2 * self.params.batch.max(1);
        let mut work = 0;
        while work < limit {
            if h.round.is_none() && !self.hot_begin(h, &mut work) {
                return true;
            }
            let Some(mut r) = h.round.take() else {
                return true;
            };
            // The processes' bytes through r.c where they sit, kept while
            // this loop tries the round's processes (nothing moves until
            // one is found).
            self.here_begin();
            while r.next < r.procs.len() && work < limit {
                let p = r.procs[r.next].0 as usize;
                r.next += 1;
                let mut fb = None;
                let want = (!r.tied && r.fallback.is_none()).then_some(&mut fb);
                let found = self.hot_try(p, r.c, r.m, h.budget, Accept::Single(want), &mut work);
                if let (None, Some(b)) = (r.fallback, fb) {
                    r.fallback = Some((p, b));
                }
                if let Some(b) = found {
                    self.here_on = false;
                    self.hot_apply(h, p, b);
                    // The next round picks the busiest channel anew.
                    r.next = usize::MAX;
                    break;
                }
            }
            self.here_on = false;
            if r.next == usize::MAX {
                continue;
            }
            if r.next == r.procs.len() {
                // No process around c can relieve it by one exchange: try
                // two (an ejection chain); if none, the largest load cannot
                // fall by one or two exchanges.
                let pairs = self.graph.n() < super::chain::PAIRS_BELOW;
                if pairs && self.hot_chain(h, r.c, r.m, &r.procs, &mut work) {
                    continue;
                }
                // Stuck within the flat budget: look ahead once with the
                // priced one ([`super::keep_best`]).
                if pairs && !h.best.ahead {
                    h.best.ahead = true;
                    continue;
                }
                // Stuck after the look-ahead too: the extension, whose
                // states must pay for their hop-bytes against the best
                // state ([`super::keep_best`]). With several cores per
                // node, move whole nodes' contents; else an exchange that
                // lowers the largest load itself though Σ load² rises (no
                // other channel ties at the maximum).
                if pairs {
                    h.best.extending = true;
                    if self.hot_nodes(h, r.c, r.m, r.tied, &r.procs, &mut work) {
                        continue;
                    }
                    if let Some((p, b)) = r.fallback {
                        self.hot_apply(h, p, b);
                        continue;
                    }
                }
                return true;
            }
            h.round = Some(r);
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::super::chain::tests::random_start;
    use super::super::{FREE, Refine, RefineParams};
    use crate::graph::GraphBuilder;
    use crate::mapping::Mapping;
    use crate::metrics::evaluate;
    use crate::routing::Routing;
    use crate::topology::Topology;
    use std::sync::Arc;

    #[test]
    fn an_exchange_surely_raising_a_channel_is_one_the_exact_rule_refuses() {
        // At the phase's start on random graphs, for the busiest channel c
        // and every exchange of every process (a move into a free core or a
        // swap, with any node): when the cheap test says the exchange
        // raises a channel to the largest load, the exact change of every
        // channel says so too; and the cheap test does fire.
        let mut fired = 0;
        let mut seen = 0;
        for topo in ["mesh:3x3", "torus:3x4", "mesh:2x3:cores=2", "torus:2x2x3"] {
            for seed in 0..12u64 {
                let (topo, g, start) = random_start(topo, seed, seed % 2 == 1);
                let vol = Arc::new(crate::partition::pair_volumes(&g));
                let params = RefineParams::hand_checked(0.01);
                let mut r = Refine::new(g.clone(), topo.clone(), vol, start, params);
                while !r.is_done() && r.hot.as_ref().is_none_or(|h| h.routed < g.n()) {
                    r.step();
                }
                if r.is_done() {
                    continue;
                }
                let m = r.max_load();
                let c = r.load.iter().position(|&l| l == m).unwrap();
                for p in 0..g.n() {
                    let a = r.node_of[p] as usize;
                    for s in 0..topo.num_slots() {
                        let b = s / r.cores;
                        if b == a {
                            continue;
                        }
                        let q = r.owner[s];
                        let qo = (q != FREE).then_some(q as usize);
                        seen += 1;
                        let heavy = r.heaviest_message(p);
                        if heavy.is_some_and(|h| r.surely_raises(p, a, b, qo, h, c, m)) {
                            fired += 1;
                            r.load_deltas(p, a, b, qo);
                            assert_eq!(r.lowers_max(c, m), None, "p {p} to slot {s}, seed {seed}");
                        }
                    }
                }
            }
        }
        assert!(fired > seen / 10, "fired {fired} of {seen}");
    }

    #[test]
    fn the_crossing_bytes_by_distance_rows_are_the_ones_by_distance_tests() {
        // Random graphs and mappings on meshes and tori: for every process,
        // node and channel, the bytes through the channel by the rows of
        // the distance table equal (bit for bit) the ones by the distance
        // tests and routes; and they are not all zero.
        let mut nonzero = 0;
        for topo in [
            "mesh:3x4",
            "torus:3x4",
            "torus:4x4:cores=2",
            "mesh:2x3x3",
            "torus:2x3x4",
        ] {
            for seed in 0..4u64 {
                let (topo, g, start) = random_start(topo, seed, seed % 2 == 1);
                let vol = Arc::new(crate::partition::pair_volumes(&g));
                let params = RefineParams::hand_checked(0.01);
                let mut r = Refine::new(g.clone(), topo.clone(), vol, start, params);
                r.ensure_rev();
                for c in 0..topo.channel_slots() {
                    let Some(ends) = topo.channel_ends(c) else {
                        continue;
                    };
                    for x in 0..g.n() {
                        for n in 0..topo.num_nodes() {
                            let want = r.crossing_bytes_by_tests(x, n, c, Some(ends));
                            assert_eq!(r.crossing_bytes(x, n, c, Some(ends)), want);
                            nonzero += (want > 0.0) as usize;
                        }
                    }
                }
            }
        }
        assert!(nonzero > 1000, "{nonzero}");
    }

    #[test]
    fn an_exchange_that_lowers_the_largest_load_is_kept_though_the_sum_of_squares_rises() {
        // mesh 2×2, node = x + 2y, dimension-order routing x first; one
        // core per node. Processes 0, 1, 2 on nodes 0, 1, 2; node 3 free.
        // Messages: 0→2: 10, 2→0: 7, 0→1: 6, 1→2: 1, 2→1: 1. Routes: 0→2
        // up (0→2: 10), 2→0 down (2→0: 7), 0→1 right (0→1: 6), 1→2 left
        // then up (1→0: 1, 0→2: 1), 2→1 right then down (2→3: 1, 3→1:
        // 1). Loads 0→2 11 (the largest, alone), 2→0 7, 0→1 6, and 1 on
        // 1→0, 2→3, 3→1: Σ load² 121 + 49 + 36 + 3 = 209; hop-bytes 10 +
        // 7 + 6 + 2 + 2 = 27.
        //
        // Swapping 1 and 2 (1 on node 2, 2 on node 1): 0→2 goes right
        // (0→1: 10), 2→0 left (1→0: 7), 0→1 up (0→2: 6), 1→2 right then
        // down (2→3, 3→1: 1 each), 2→1 left then up (1→0, 0→2: 1 each).
        // Loads 0→1 10, 1→0 8, 0→2 7, 2→3 1, 3→1 1: the largest load falls
        // from 11 to 10 at the same hop-bytes (27), but Σ load² rises to
        // 100 + 64 + 49 + 2 = 215, so the single exchanges' rule (Σ load²
        // must fall) refuses it. No other channel is at 11, so the
        // exchange lowers the largest load itself, and it is kept. Then
        // the busiest channel is 0→1 (10, alone) and no exchange within
        // the budget relieves it without raising another channel to 10.
        let mut gb = GraphBuilder::new(3, true);
        gb.add(0, 2, 10.0);
        gb.add(2, 0, 7.0);
        gb.add(0, 1, 6.0);
        gb.add(1, 2, 1.0);
        gb.add(2, 1, 1.0);
        let g = Arc::new(gb.build().unwrap());
        let topo = Arc::new(Topology::parse("mesh:2x2").unwrap());
        let vol = Arc::new(crate::partition::pair_volumes(&g));
        let start = Mapping::new(vec![0, 1, 2], vec![0; 3]);
        let eval = |m: &Mapping| {
            let e = evaluate(&g, &topo, m, &Routing::Dor).metrics;
            (e.hop_bytes, e.max_link_load)
        };
        assert_eq!(eval(&start), (27.0, 11.0));
        let params = RefineParams::hand_checked(0.01);
        let mut r = Refine::new(g.clone(), topo.clone(), vol, start, params);
        while !r.is_done() {
            r.step();
        }
        let end = r.mapping();
        assert_eq!(end.node, vec![0, 2, 1]);
        assert_eq!(eval(&end), (27.0, 10.0));
        assert_eq!(r.load_phase(), Some((11.0, 10.0, 1)));
    }
}
