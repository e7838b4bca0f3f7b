//! Balaji et al.'s first-order model of minimal adaptive routing (§3.1): at
//! each hop, a message's bytes are split equally over every outgoing link
//! that reduces the distance to the destination.
//!
//! Computed exactly: the minimal paths from `src` to `dst` form a DAG that is
//! the product of one small DAG per dimension (a straight lane, or two lanes
//! when the destination is exactly half way round a ring, where both
//! directions are minimal). Flow is pushed through the product in
//! topological order. Cost: O(D · Π_d (δ_d + 1)) per message, where δ_d is the
//! distance in dimension d — cheap for the near-neighbour traffic that
//! mapping produces, and exact (no sampling).

use crate::topology::{Grid, MAX_DIMS};

/// One dimension's lane DAG: states, their coordinate, and successors as
/// (next state, direction).
struct Lane {
    pos: Vec<u32>,
    succ: Vec<[(u32, u8); 2]>,
    nsucc: Vec<u8>,
}

fn lane(g: &Grid, d: usize, a: u32, b: u32) -> Lane {
    let k = g.dims()[d];
    let mut l = Lane {
        pos: vec![a],
        succ: vec![[(0, 0); 2]],
        nsucc: vec![0],
    };
    if a == b {
        return l;
    }
    let step = |c: u32, dir: u8| {
        if dir == 0 {
            (c + 1) % k
        } else {
            (c + k - 1) % k
        }
    };
    let tie = g.wraps(d) && (b + k - a) % k * 2 == k;
    if !tie {
        let (dir, hops) = crate::routing::dor::dim_direction(g, d, a, b);
        let mut c = a;
        for i in 0..hops {
            c = step(c, dir as u8);
            l.succ[i as usize] = [((i + 1), dir as u8), (0, 0)];
            l.nsucc[i as usize] = 1;
            l.pos.push(c);
            l.succ.push([(0, 0); 2]);
            l.nsucc.push(0);
        }
        return l;
    }
    // Tie: h = k/2 ≥ 2. States: 0 start, 1..=h-1 the + lane, h..=2h-2 the − lane, 2h-1 final.
    let h = k / 2;
    let fin = 2 * h - 1;
    l.pos = vec![0; (2 * h) as usize];
    l.succ = vec![[(0, 0); 2]; (2 * h) as usize];
    l.nsucc = vec![0; (2 * h) as usize];
    l.pos[0] = a;
    l.pos[fin as usize] = b;
    l.succ[0] = [(1, 0), (h, 1)];
    l.nsucc[0] = 2;
    for j in 1..h {
        // + lane step j at index j, − lane step j at index h-1+j
        let (ip, im) = (j, h - 1 + j);
        l.pos[ip as usize] = (a + j) % k;
        l.pos[im as usize] = (a + k - j) % k;
        let (np, nm) = if j + 1 == h {
            (fin, fin)
        } else {
            (j + 1, h + j)
        };
        l.succ[ip as usize] = [(np, 0), (0, 0)];
        l.nsucc[ip as usize] = 1;
        l.succ[im as usize] = [(nm, 1), (0, 0)];
        l.nsucc[im as usize] = 1;
    }
    l
}

/// Route `bytes` from `src` to `dst` with the equal-split adaptive model.
pub fn route_grid(g: &Grid, src: usize, dst: usize, bytes: f64, sink: &mut impl FnMut(usize, f64)) {
    let ca = g.coord(src);
    let cb = g.coord(dst);
    let nd = g.ndims();
    let lanes: Vec<Lane> = (0..nd).map(|d| lane(g, d, ca[d], cb[d])).collect();
    let mut radix = [0usize; MAX_DIMS];
    let mut total = 1usize;
    for d in 0..nd {
        radix[d] = total;
        total *= lanes[d].pos.len();
    }
    let mut flow = vec![0f64; total];
    flow[0] = bytes;
    let mut state = [0usize; MAX_DIMS];
    let strides = g.strides();
    for idx in 0..total {
        if idx > 0 {
            // increment the mixed-radix counter
            let mut d = 0;
            loop {
                state[d] += 1;
                if state[d] < lanes[d].pos.len() {
                    break;
                }
                state[d] = 0;
                d += 1;
            }
        }
        let f = flow[idx];
        if f == 0.0 {
            continue;
        }
        let mut m = 0u32;
        for d in 0..nd {
            m += lanes[d].nsucc[state[d]] as u32;
        }
        if m == 0 {
            continue; // the destination
        }
        let share = f / m as f64;
        let mut node = 0usize;
        for d in 0..nd {
            node += lanes[d].pos[state[d]] as usize * strides[d];
        }
        for d in 0..nd {
            let s = state[d];
            for t in 0..lanes[d].nsucc[s] as usize {
                let (next, dir) = lanes[d].succ[s][t];
                sink(g.channel(node, d, dir as usize), share);
                flow[idx + (next as usize - s) * radix[d]] += share;
            }
        }
    }
}
