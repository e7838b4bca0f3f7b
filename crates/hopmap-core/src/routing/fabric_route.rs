//! Routes on switch fabrics: which channels a message between two hosts
//! crosses, under up*/down* (Moh et al. §3.1; tables in
//! [`crate::routing::updown`]) or plain shortest paths.
//!
//! A message from host a to host b crosses a's host link (host → switch),
//! the inter-switch links of a switch route, and b's host link (switch →
//! host); two hosts on one switch use only their two host links.
//!
//! Switch routes walk the state graph `(switch, phase)` (phase 1 = the route
//! has gone down and may only go down; plain shortest paths have one phase).
//! From a state with `r` hops left, a move is *productive* when the next
//! state has `r − 1` left (read off the distance tables).
//!
//! * **Deterministic**: the lexicographically smallest legal shortest route
//!   — at every hop the productive move to the lowest switch index (the
//!   switch order), the lowest link index among parallel links. O(hops ·
//!   degree).
//! * **Even split**: the bytes are split evenly over *all* legal shortest
//!   routes (each route, parallel links counted as distinct routes, carries
//!   bytes / #routes). Computed exactly by counting: the productive states
//!   form a layered DAG; with `f(x)` the routes from the source to x and
//!   `g(y)` the routes from y to the destination, a move x→y carries
//!   bytes · f(x) · g(y) / #routes. O(Σ layer sizes · degree · log) per
//!   message. On a fat tree with every top switch a root this is the usual
//!   even split over the equal-cost up paths (the down path is then unique).
//!
//! Every route is shortest, so a message crosses exactly its distance in
//! inter-switch channels: Σ inter-switch loads = hop-bytes.

use crate::routing::updown::{UNREACHABLE, UpDown};
use crate::topology::fabric::Fabric;

/// Which distance tables and move rule to follow.
#[derive(Clone, Copy, Debug)]
pub enum Mode<'a> {
    /// up*/down* with these tables.
    UpDown(&'a UpDown),
    /// Plain shortest paths (every move legal).
    Minimal,
}

impl Mode<'_> {
    /// Hops left from state `(u, phase)` to switch `t`.
    #[inline]
    fn rem(&self, f: &Fabric, u: usize, phase: u8, t: usize) -> u16 {
        match self {
            Mode::UpDown(ud) => {
                if phase == 0 {
                    ud.dist(u, t)
                } else {
                    ud.down(u, t)
                }
            }
            Mode::Minimal => f.min_switch_dist(u, t) as u16,
        }
    }
    /// The next phase of a move across link `l` from phase `phase` into
    /// switch `v`, or None when the move is illegal.
    #[inline]
    fn step(&self, l: u32, v: u32, phase: u8) -> Option<u8> {
        match self {
            Mode::UpDown(ud) => {
                let up = ud.up_end[l as usize] == v;
                match (phase, up) {
                    (0, true) => Some(0),
                    (_, false) => Some(1),
                    (_, true) => None,
                }
            }
            Mode::Minimal => Some(0),
        }
    }
    /// Switch-to-switch distance.
    #[inline]
    pub fn dist(&self, f: &Fabric, a: usize, b: usize) -> u32 {
        self.rem(f, a, 0, b) as u32
    }
}

/// The lexicographically smallest legal shortest route from switch `sa` to
/// `sb`: `visit(link, from_switch)` for each inter-switch hop.
pub fn switch_route_det(
    f: &Fabric,
    mode: Mode,
    sa: usize,
    sb: usize,
    visit: &mut impl FnMut(usize, u32),
) {
    let mut r = mode.rem(f, sa, 0, sb);
    if r == UNREACHABLE {
        return;
    }
    let (mut u, mut phase) = (sa, 0u8);
    while r > 0 {
        let Some((v, l, p)) = det_next(f, mode, u, phase, r, sb) else {
            debug_assert!(false, "no productive move");
            return;
        };
        visit(l as usize, u as u32);
        u = v as usize;
        phase = p;
        r -= 1;
    }
}

/// The deterministic route's next move from state `(u, phase)` with `r > 0`
/// hops left to `sb`: the productive move to the lowest switch, then the
/// lowest link. `(switch, link, phase)`.
#[inline]
fn det_next(
    f: &Fabric,
    mode: Mode,
    u: usize,
    phase: u8,
    r: u16,
    sb: usize,
) -> Option<(u32, u32, u8)> {
    for &(v, l) in f.switch_adj(u) {
        if let Some(p) = mode.step(l, v, phase)
            && mode.rem(f, v as usize, p, sb) == r - 1
        {
            return Some((v, l, p));
        }
    }
    None
}

/// The layered DAG of every legal shortest route from `sa` to `sb`:
/// layers of `(state, forward count)` with state = `switch * 2 + phase`,
/// sorted by state.
fn layers(f: &Fabric, mode: Mode, sa: usize, sb: usize) -> Vec<Vec<(u32, f64)>> {
    let d = mode.rem(f, sa, 0, sb);
    if d == UNREACHABLE {
        return Vec::new();
    }
    let mut out: Vec<Vec<(u32, f64)>> = Vec::with_capacity(d as usize + 1);
    out.push(vec![((sa * 2) as u32, 1.0)]);
    for k in 0..d {
        let left = d - k - 1;
        let mut next: Vec<(u32, f64)> = Vec::new();
        for &(st, c) in &out[k as usize] {
            let (u, phase) = ((st / 2) as usize, (st % 2) as u8);
            for &(v, l) in f.switch_adj(u) {
                if let Some(p) = mode.step(l, v, phase)
                    && mode.rem(f, v as usize, p, sb) == left
                {
                    next.push((v * 2 + p as u32, c));
                }
            }
        }
        next.sort_unstable_by_key(|e| e.0);
        let mut merged: Vec<(u32, f64)> = Vec::with_capacity(next.len());
        for (st, c) in next {
            match merged.last_mut() {
                Some(last) if last.0 == st => last.1 += c,
                _ => merged.push((st, c)),
            }
        }
        out.push(merged);
    }
    out
}

/// Split `bytes` evenly over every legal shortest route from switch `sa` to
/// `sb`: `sink(link, from_switch, bytes)` once per (move, share).
/// Returns the number of routes (0 when unreachable; 1 when `sa == sb`).
pub fn switch_route_split(
    f: &Fabric,
    mode: Mode,
    sa: usize,
    sb: usize,
    bytes: f64,
    sink: &mut impl FnMut(usize, u32, f64),
) -> f64 {
    let lay = layers(f, mode, sa, sb);
    let Some(last) = lay.len().checked_sub(1) else {
        return 0.0;
    };
    // Backward counts g, layer by layer.
    let mut g: Vec<Vec<f64>> = vec![Vec::new(); lay.len()];
    g[last] = vec![1.0; lay[last].len()];
    for k in (0..last).rev() {
        let mut gk = vec![0.0; lay[k].len()];
        for (i, &(st, _)) in lay[k].iter().enumerate() {
            let (u, phase) = ((st / 2) as usize, (st % 2) as u8);
            for &(v, l) in f.switch_adj(u) {
                if let Some(p) = mode.step(l, v, phase) {
                    let key = v * 2 + p as u32;
                    if let Ok(j) = lay[k + 1].binary_search_by_key(&key, |e| e.0) {
                        gk[i] += g[k + 1][j];
                    }
                }
            }
        }
        g[k] = gk;
    }
    let total = g[0][0];
    if total <= 0.0 {
        return 0.0;
    }
    for k in 0..last {
        for &(st, fx) in &lay[k] {
            let (u, phase) = ((st / 2) as usize, (st % 2) as u8);
            for &(v, l) in f.switch_adj(u) {
                if let Some(p) = mode.step(l, v, phase) {
                    let key = v * 2 + p as u32;
                    if let Ok(j) = lay[k + 1].binary_search_by_key(&key, |e| e.0) {
                        sink(l as usize, u as u32, bytes * fx * g[k + 1][j] / total);
                    }
                }
            }
        }
    }
    total
}

/// Number of legal shortest routes between two switches.
pub fn count_routes(f: &Fabric, mode: Mode, sa: usize, sb: usize) -> f64 {
    if sa == sb {
        return 1.0;
    }
    switch_route_split(f, mode, sa, sb, 0.0, &mut |_, _, _| {})
}

/// Route `bytes` from host `a` to host `b` (`a != b`): `sink(channel, bytes)`.
pub fn route_hosts(
    f: &Fabric,
    mode: Mode,
    split: bool,
    a: usize,
    b: usize,
    bytes: f64,
    sink: &mut impl FnMut(usize, f64),
) {
    let (sa, sb) = (f.switch_of(a), f.switch_of(b));
    sink(f.host_channel(a, true), bytes);
    if sa != sb {
        if split {
            switch_route_split(f, mode, sa, sb, bytes, &mut |l, from, x| {
                sink(f.link_channel(l, from), x)
            });
        } else {
            switch_route_det(f, mode, sa, sb, &mut |l, from| {
                sink(f.link_channel(l, from), bytes)
            });
        }
    }
    sink(f.host_channel(b, false), bytes);
}

/// Inter-switch links that no deterministic route between two switches with
/// job hosts crosses (`all_switches`: between any two switches), ascending.
/// O(P · hops · degree) for P ordered switch pairs, parallel over destinations.
pub fn unused_links(f: &Fabric, mode: Mode, all_switches: bool) -> Vec<usize> {
    use rayon::prelude::*;
    let ends: Vec<usize> = (0..f.num_switches())
        .filter(|&v| all_switches || !f.hosts_on(v).is_empty())
        .collect();
    let nl = f.switch_links().len();
    // Outer loop over destinations: every route to `y` reads the distance
    // tables' column `y` only, which then stays in cache. The deterministic
    // next move depends only on the state `(switch, phase)` and `y`, so the
    // routes to `y` form a tree over states: a walk stops at the first state
    // an earlier walk to `y` has passed (its links are marked already).
    // O(states · degree) per destination instead of O(sources · hops ·
    // degree).
    let s = f.num_switches();
    let used = ends
        .par_iter()
        .fold(
            || (vec![false; nl], vec![u32::MAX; 2 * s], 0u32),
            |(mut used, mut seen, mut epoch), &y| {
                epoch += 1;
                for &x in &ends {
                    if x == y {
                        continue;
                    }
                    let mut r = mode.rem(f, x, 0, y);
                    if r == UNREACHABLE {
                        continue;
                    }
                    let (mut u, mut phase) = (x, 0u8);
                    while r > 0 {
                        let st = 2 * u + phase as usize;
                        if seen[st] == epoch {
                            break;
                        }
                        seen[st] = epoch;
                        let Some((v, l, p)) = det_next(f, mode, u, phase, r, y) else {
                            break;
                        };
                        used[l as usize] = true;
                        u = v as usize;
                        phase = p;
                        r -= 1;
                    }
                }
                (used, seen, epoch)
            },
        )
        .map(|(used, _, _)| used)
        .reduce(
            || vec![false; nl],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(b) {
                    *x |= y;
                }
                a
            },
        );
    (0..nl).filter(|&l| !used[l]).collect()
}
