//! Tolerant recognition of a near-2D mesh: coordinates from breadth-first
//! distances to three corners, in any rank numbering.
//!
//! A 2D decomposition of a non-rectangular domain (OpenFOAM's
//! `hierarchical` on pitzDaily's backward-facing step) is a mesh halo with
//! some face pairs missing (subdomains that do not touch), some diagonal
//! pairs (subdomains that touch at a corner, or that are sheared against
//! their neighbours) and light extra traffic. The exact recognition of
//! [`super::recognise`] refuses it; its heavy part still has the mesh's
//! metric up to a few hops.
//!
//! On a W × H mesh the hop distance is the L1 distance, so with corners
//! a = (0, 0), c = (0, H−1) and b = (W−1, H−1):
//! `d(a, v) + d(c, v) = 2x + H − 1` and `d(a, v) − d(c, v) = 2y − (H − 1)`,
//! `d(a, c) = H − 1`, `d(c, b) = W − 1`. This is the landmark idea of
//! Harel & Koren's high-dimensional embedding ("Graph drawing by
//! high-dimensional embedding", GD 2002: breadth-first distances to a few
//! far-apart nodes as coordinates), made exact for a mesh by choosing its
//! corners as landmarks:
//!
//! 1. for each relative threshold α of the ladder, keep the pairs of at
//!    least α times the heavier end's heaviest pair; skip when they do not
//!    connect every process;
//! 2. corner candidates: a double sweep (a = farthest from process 0, b =
//!    farthest from a: two opposite corners); on the middle level set
//!    {v : d(a, v) = ⌊d(a, b)/2⌋} (a line across the mesh) a second double
//!    sweep finds its ends e₁, e₂; the farthest from each of these, then
//!    from each candidate, up to [`MAX_CORNERS`] (a perturbed corner can
//!    make one sweep miss the true corner; several do not all miss it);
//! 3. for every ordered triple (a, c, b) of candidates with c between a
//!    and b (d(a, c) + d(c, b) within 2 of d(a, b)) and a box of about n
//!    processes ((d(c, b) + 1)·(d(a, c) + 1) within 25 % of n): the shape
//!    W × H of `n` closest to (d(c, b) + 1, d(a, c) + 1);
//! 4. balanced rounding: sort the processes by `d(a,·) + d(c,·)` and cut the
//!    order into W columns of H; sort each column by `d(a,·) − d(c,·)`. Ties
//!    are broken by `d(b,·)`, then by process id;
//! 5. keep the triple whose coordinates put most bytes of the whole graph
//!    between face neighbours.
//!
//! On an exact mesh this returns its coordinates (up to a symmetry of the
//! box); on a near-mesh the few perturbed processes land next to their
//! place, and the caller keeps the threshold whose reading puts most bytes
//! between face neighbours. Periodic grids have no corners and 3D meshes
//! need four; both are left to the exact recognition. Cost per threshold:
//! O(MAX_CORNERS · (n + m)) for the distances, and O(n log n + m) per
//! triple that passes the shape test (at most 210).

use crate::graph::CommGraph;

/// A candidate mesh: its dims (W, H), the coordinates of process `p` at
/// `coords[2p..2p + 2]`, and the threshold whose heavy part gave it.
pub type Candidate = (Vec<u32>, Vec<u32>, f64);

/// One candidate per threshold of `ladder` whose heavy part connects every
/// process and has three distinct corners. `vol` is the pair volume of each
/// adjacency entry of `g` (`partition::pair_volumes`), `maxw` each
/// process's heaviest pair.
pub fn candidates(g: &CommGraph, vol: &[f64], maxw: &[f64], ladder: &[f64]) -> Vec<Candidate> {
    let n = g.n();
    let (off, nb) = (g.offsets(), g.targets());
    let mut out = Vec::new();
    if n < 4 {
        return out;
    }
    let mut last_len = usize::MAX;
    let mut hoff = Vec::with_capacity(n + 1);
    let mut hnb: Vec<u32> = Vec::new();
    for &alpha in ladder {
        hoff.clear();
        hnb.clear();
        hoff.push(0);
        for u in 0..n {
            for k in off[u]..off[u + 1] {
                let v = nb[k] as usize;
                if v != u && vol[k] > 0.0 && vol[k] >= alpha * maxw[u].max(maxw[v]) {
                    hnb.push(nb[k]);
                }
            }
            hoff.push(hnb.len());
        }
        if hnb.len() == last_len {
            continue;
        }
        last_len = hnb.len();
        let adj = |u: usize| &hnb[hoff[u]..hoff[u + 1]];
        if let Some((dims, coords)) = from_corners(g, vol, &adj) {
            out.push((dims, coords, alpha));
        }
    }
    out
}

/// Most corner candidates kept (ordered triples tried: at most 7·6·5).
pub const MAX_CORNERS: usize = 7;

/// Steps 2–4 of the module docs on one heavy part: the best reading (most
/// bytes of `g` between face neighbours) over the ordered triples of
/// corner candidates that pass the shape test.
fn from_corners<'a>(
    g: &CommGraph,
    vol: &[f64],
    adj: &impl Fn(usize) -> &'a [u32],
) -> Option<(Vec<u32>, Vec<u32>)> {
    let n = g.n();
    let mut queue = Vec::with_capacity(n);
    let mut bfs = |s: usize| -> Option<Vec<u32>> {
        let mut d = vec![u32::MAX; n];
        d[s] = 0;
        queue.clear();
        queue.push(s);
        let mut i = 0;
        while i < queue.len() {
            let u = queue[i];
            i += 1;
            for &v in adj(u) {
                let v = v as usize;
                if d[v] == u32::MAX {
                    d[v] = d[u] + 1;
                    queue.push(v);
                }
            }
        }
        (queue.len() == n).then_some(d)
    };
    // Farthest of `among` from the distances `d`; ties to the smallest id.
    let far = |d: &[u32], among: &mut dyn Iterator<Item = usize>| {
        among.max_by(|&x, &y| d[x].cmp(&d[y]).then(y.cmp(&x)))
    };
    // Corner candidates with their distances: the double sweep's ends, the
    // ends of the middle level set's double sweep, and the farthest from
    // each of these.
    let mut corners: Vec<(usize, Vec<u32>)> = Vec::new();
    let d0 = bfs(0)?;
    let a = far(&d0, &mut (0..n))?;
    corners.push((a, bfs(a)?));
    let b = far(&corners[0].1, &mut (0..n))?;
    corners.push((b, bfs(b)?));
    let da = &corners[0].1;
    let mid = da[b] / 2;
    let level: Vec<usize> = (0..n).filter(|&v| da[v] == mid).collect();
    let dl = bfs(*level.first()?)?;
    let e1 = far(&dl, &mut level.iter().copied())?;
    let de1 = bfs(e1)?;
    let e2 = far(&de1, &mut level.iter().copied())?;
    let de2 = bfs(e2)?;
    let mut k = 0;
    let mut sources = vec![de1, de2];
    while k < sources.len() && corners.len() < MAX_CORNERS {
        if let Some(c) = far(&sources[k], &mut (0..n))
            && corners.iter().all(|x| x.0 != c)
        {
            let dc = bfs(c)?;
            sources.push(dc.clone());
            corners.push((c, dc));
        }
        k += 1;
        if k == 2 {
            // Then the farthest from each corner found so far.
            sources.extend(corners.iter().map(|x| x.1.clone()));
        }
    }
    let n32 = n as u32;
    let shapes: Vec<(u32, u32)> = (2..n32)
        .filter(|&x| n32.is_multiple_of(x) && n32 / x >= 2)
        .map(|x| (x, n32 / x))
        .collect();
    let mut best: Option<(f64, Vec<u32>, Vec<u32>)> = None;
    let mut order: Vec<usize> = (0..n).collect();
    let mut coords = vec![0u32; 2 * n];
    for (ia, (_, da)) in corners.iter().enumerate() {
        for (ic, (_, dc)) in corners.iter().enumerate() {
            for (ib, (c_b, db)) in corners.iter().enumerate() {
                if ia == ic || ic == ib || ia == ib {
                    continue;
                }
                // c lies between a and b, and the sides' product is near n.
                let c_id = corners[ic].0;
                let (ac, cb, ab) = (da[c_id] as i64, db[c_id] as i64, da[*c_b] as i64);
                let (w_est, h_est) = (cb + 1, ac + 1);
                if (ac + cb - ab).abs() > 2
                    || !(0.75..=1.25).contains(&((w_est * h_est) as f64 / n as f64))
                {
                    continue;
                }
                let Some(&(w, h)) = shapes
                    .iter()
                    .min_by_key(|&&(x, y)| (x as i64 - w_est).abs() + (y as i64 - h_est).abs())
                else {
                    continue;
                };
                let xs = |v: usize| da[v] + dc[v];
                let ys = |v: usize| da[v] as i64 - dc[v] as i64;
                order.sort_by_key(|&v| (xs(v), ys(v), db[v], v));
                for (x, col) in order.chunks_mut(h as usize).enumerate() {
                    col.sort_by_key(|&v| (ys(v), xs(v), db[v], v));
                    for (y, &v) in col.iter().enumerate() {
                        coords[2 * v] = x as u32;
                        coords[2 * v + 1] = y as u32;
                    }
                }
                let faces = face_bytes(g, vol, &coords);
                if best.as_ref().is_none_or(|b| faces > b.0) {
                    best = Some((faces, vec![w, h], coords.clone()));
                }
            }
        }
    }
    best.map(|(_, dims, coords)| (dims, coords))
}

/// Bytes of `g` between processes one step apart in 2D `coords`.
fn face_bytes(g: &CommGraph, vol: &[f64], coords: &[u32]) -> f64 {
    let off = g.offsets();
    let mut total = 0.0;
    for u in 0..g.n() {
        for (k, &v) in g.neighbors(u).iter().enumerate() {
            let v = v as usize;
            let steps = coords[2 * u].abs_diff(coords[2 * v])
                + coords[2 * u + 1].abs_diff(coords[2 * v + 1]);
            if v > u && steps == 1 {
                total += vol[off[u] + k];
            }
        }
    }
    total
}
