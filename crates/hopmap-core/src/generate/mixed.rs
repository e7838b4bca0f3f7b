//! `mixed:AxB:FRACTION`: the synthetic traffic of Moh et al. (seed 004, §4):
//! a 2D mesh process topology where "each process communicates 90% [80%] of
//! the messages with its adjacent processes and 10% [20%] of the messages
//! with processes random distance away". FRACTION is that distant share
//! (0 ≤ FRACTION ≤ 1; the paper uses 0, 0.1 and 0.2 on a 16×16 mesh).
//!
//! Precisely: process `u` has one message of `bytes` per mesh neighbour
//! (`neighbors`, `periodic` as for `stencil`): M messages in all. Exactly
//! `round(FRACTION · M)` of them, chosen uniformly (seeded), are sent
//! instead to a destination drawn uniformly among the processes that are
//! neither `u` nor a mesh neighbour of `u`; the others go to their
//! neighbour. So FRACTION is the share of the *messages* that travel far, as
//! the paper says, and also of the bytes; every process still sends
//! `bytes × (its neighbour count)`. (An earlier version split every message
//! into a near and a far part, which made about half of all messages
//! distant and diluted the paper's per-message latency comparison.) The
//! distant traffic is one-way, so the graph is **directed** (each direction
//! keeps its own bytes); messages that meet on the same pair are summed.
//! Ids are X-fastest; coordinates are the grid positions.
//!
//! Complexity: O(n · deg) expected time (rejection sampling of the distant
//! destinations; a process with few non-neighbours needs more draws).

use super::stencil::for_each_partners;
use super::{GenOptions, GridShape, check_edges, finish, parse_dims, parse_number, spec_err};
use crate::error::Result;
use crate::graph::{CommGraph, GraphBuilder};
use crate::rng::Rng;

pub(crate) fn generate(spec: &str, args: &str, opts: &GenOptions) -> Result<CommGraph> {
    let syntax = "mixed:AxB:FRACTION";
    let Some((dims_s, frac_s)) = args.split_once(':') else {
        return Err(spec_err(
            spec,
            format!("expected `{syntax}`, found no `:FRACTION` in `{args}`"),
        ));
    };
    let dims = parse_dims(spec, syntax, dims_s, 2, 2)?;
    let frac = parse_number(spec, "FRACTION", frac_s)?;
    if !(0.0..=1.0).contains(&frac) {
        return Err(spec_err(
            spec,
            format!("FRACTION must be between 0 and 1, found {frac}"),
        ));
    }
    let shape = GridShape::new(&dims);
    let n = shape.n;
    let per = super::stencil::offsets(2, opts.neighbors).len();
    check_edges(spec, 2 * n as u128 * per as u128)?;
    let mut rng = Rng::new(opts.seed);
    let mut b = GraphBuilder::with_capacity(n, true, 2 * n * per);
    // Every mesh message (u, v) in a fixed order, then a seeded choice of
    // exactly round(frac · M) of them to send far instead.
    let mut msgs: Vec<(usize, usize)> = Vec::with_capacity(n * per);
    let mut partners: Vec<Vec<usize>> = vec![Vec::new(); n];
    for_each_partners(&shape, opts.neighbors, opts.periodic, |u, ps| {
        partners[u] = ps.to_vec();
        msgs.extend(ps.iter().map(|&v| (u, v)));
    });
    let total = msgs.len();
    let k = ((frac * total as f64).round() as usize).min(total);
    let mut idx: Vec<usize> = (0..total).collect();
    for i in 0..k {
        let j = i + rng.below(total - i);
        idx.swap(i, j);
    }
    let mut far = vec![false; total];
    for &i in &idx[..k] {
        far[i] = true;
    }
    // Any message may be drawn, so every sender needs a distant process.
    let mut err = None;
    if frac > 0.0
        && let Some(u) = (0..n).find(|&u| !partners[u].is_empty() && partners[u].len() + 1 == n)
    {
        err = Some(spec_err(
            spec,
            format!("FRACTION > 0 needs distant processes, but process {u} neighbours all others"),
        ));
    }
    for (i, &(u, v)) in msgs.iter().enumerate() {
        if err.is_some() {
            break;
        }
        if !far[i] {
            b.add(u, v, opts.bytes);
            continue;
        }
        let ps = &partners[u];
        let w = loop {
            let w = rng.below(n);
            if w != u && ps.binary_search(&w).is_err() {
                break w;
            }
        };
        b.add(u, w, opts.bytes);
    }
    if let Some(e) = err {
        return Err(e);
    }
    finish(b, Some(shape.coords()))
}

#[cfg(test)]
mod tests {
    use super::super::generate as gen_spec;
    use super::*;

    fn opts(seed: u64) -> GenOptions {
        GenOptions {
            seed,
            bytes: 100.0,
            ..GenOptions::default()
        }
    }

    #[test]
    fn fraction_zero_is_the_mesh() {
        let g = gen_spec("mixed:16x16:0", &opts(1)).unwrap();
        assert!(g.is_directed());
        assert_eq!(g.num_edges(), 480);
        assert_eq!(g.num_messages(), 960);
        assert_eq!(g.sent_between(17, 18), 100.0);
        assert_eq!(g.volume(17, 18), 200.0);
    }

    #[test]
    fn distant_share_and_budget() {
        let f = 0.2;
        let g = gen_spec(&format!("mixed:16x16:{f}"), &opts(7)).unwrap();
        let c = g.coords().unwrap();
        let (mut far_bytes, mut messages) = (0.0, 0usize);
        for u in 0..g.n() {
            let (x, y) = (u % 16, u / 16);
            let nb = [x > 0, x < 15, y > 0, y < 15]
                .iter()
                .filter(|&&b| b)
                .count();
            let sent: f64 = g.sent_row(u).iter().sum();
            assert!((sent - 100.0 * nb as f64).abs() < 1e-9, "{u}");
            for (&v, &s) in g.neighbors(u).iter().zip(g.sent_row(u)) {
                let v = v as usize;
                let d = (c.xyz[u][0] - c.xyz[v][0]).abs() + (c.xyz[u][1] - c.xyz[v][1]).abs();
                if d > 1.0 {
                    far_bytes += s;
                } else if s > 0.0 {
                    // Far draws never land on a mesh neighbour of the
                    // sender, so a near edge carries one whole message.
                    assert!((s - 100.0).abs() < 1e-9, "{u}->{v}: {s}");
                }
            }
            messages += nb;
        }
        // Exactly round(f · M) whole messages of 100 bytes went far.
        assert_eq!(messages, 960);
        let k = (f * messages as f64).round();
        assert!(
            (far_bytes - 100.0 * k).abs() < 1e-9,
            "{far_bytes} vs {k} messages"
        );
    }

    #[test]
    fn seeded() {
        let a = gen_spec("mixed:8x8:0.1", &opts(3)).unwrap();
        let b = gen_spec("mixed:8x8:0.1", &opts(3)).unwrap();
        let c = gen_spec("mixed:8x8:0.1", &opts(4)).unwrap();
        assert_eq!(a.targets(), b.targets());
        assert_eq!(a.sent(), b.sent());
        assert_ne!(a.targets(), c.targets());
    }

    #[test]
    fn bad_specs() {
        let o = opts(0);
        for bad in [
            "mixed:4x4",
            "mixed:4x4:1.5",
            "mixed:4x4:-0.1",
            "mixed:4x4:x",
            "mixed:4:0.1",
        ] {
            assert!(gen_spec(bad, &o).is_err(), "{bad}");
        }
        // 1x2: the only other process is a neighbour, so no distant one exists.
        assert!(gen_spec("mixed:1x2:0.1", &o).is_err());
        assert!(gen_spec("mixed:1x2:0", &o).is_ok());
        assert!(gen_spec("mixed:2x2:0.1", &o).is_ok());
    }
}
