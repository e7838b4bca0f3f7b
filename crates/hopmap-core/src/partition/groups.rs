//! Partitioning into groups of bounded size (METIS recursive bisection).
//!
//! [`groups_of_size`] splits a communication graph into `k = ⌈n / size⌉`
//! groups of at most `size` processes each, cutting as few bytes as it can.
//! It is what Wu et al. §3.6 do before analytical mapping onto multicore
//! nodes: "we employ the graph partitioning tool METIS to partition the
//! processes into fixed groups … As METIS does not guarantee equal partition
//! of a graph, a greedy heuristic is used to balance the partitions if
//! necessary, and it always moves the process which minimizes edgecuts."
//!
//! * The partition is METIS 5's multilevel recursive bisection
//!   (`METIS_PartGraphRecursive`, through the `metis` crate, whose vendored C
//!   sources are compiled by `cargo build` with the system C compiler; no
//!   system METIS is needed). Edge weights are the pair volumes, scaled to
//!   integers so that their sum fits METIS's 32-bit `idx_t`. Recursive
//!   bisection rather than k-way because the parts are tiny (a node's
//!   cores), where it was both faster and cut less (`docs/benchmarks.md`,
//!   "METIS"). Imbalance tolerance `ufactor = 1` (0.1 %), `seed` from the caller, so the result is
//!   deterministic.
//! * Balancing (the paper's greedy heuristic): while a group holds more than
//!   `size` processes, move the process-and-target pair with the smallest
//!   increase of the cut among the over-full group's processes and the groups
//!   with room that they talk to; when no such group talks to them, the
//!   process least tied to its group goes to the first group with room.
//!
//! Cost: METIS is O(m) per level, O(m log n) overall; balancing is
//! O(excess · (size · degree)). Memory O(n + m).
//!
//! This module is a general API (`groups_of_size`, [`edge_cut`]) that other
//! mappers can share (e.g. a recursive bipartitioning mapper).

use crate::error::{Error, Result};
use crate::graph::CommGraph;

/// The groups of a partition: `part[p]` is process `p`'s group, in `0..k`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Groups {
    pub part: Vec<u32>,
    pub k: usize,
}

impl Groups {
    /// Processes of each group, in increasing process id.
    pub fn members(&self) -> Vec<Vec<u32>> {
        let mut m = vec![Vec::new(); self.k];
        for (p, &g) in self.part.iter().enumerate() {
            m[g as usize].push(p as u32);
        }
        m
    }
    /// Size of each group.
    pub fn sizes(&self) -> Vec<usize> {
        let mut s = vec![0; self.k];
        for &g in &self.part {
            s[g as usize] += 1;
        }
        s
    }
}

/// Bytes between processes of different groups (each pair counted once).
pub fn edge_cut(graph: &CommGraph, part: &[u32]) -> f64 {
    graph
        .pairs()
        .filter(|&(u, v, _)| part[u] != part[v])
        .map(|(_, _, w)| w)
        .sum()
}

/// Split `graph` into `⌈n / size⌉` groups of at most `size` processes with
/// METIS recursive bisection and the greedy balancing of Wu et al. §3.6 (see the module
/// docs). `size == 1` gives one group per process.
pub fn groups_of_size(graph: &CommGraph, size: usize, seed: u64) -> Result<Groups> {
    let n = graph.n();
    if size == 0 {
        return Err(Error::Unsupported("group size must be at least 1".into()));
    }
    let k = n.div_ceil(size);
    if size == 1 || k <= 1 {
        let part = if size == 1 {
            (0..n as u32).collect()
        } else {
            vec![0; n]
        };
        return Ok(Groups { part, k });
    }
    let mut part = metis_partition(graph, k, seed)?;
    balance(graph, &mut part, k, size);
    Ok(Groups { part, k })
}

/// METIS keeps its random state in globals: two calls at once on two
/// threads disturb each other's sequence (and so the result). Calls are
/// serialized; each one seeds the state afresh, so the same input and seed
/// give the same groups.
static METIS_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn metis_partition(graph: &CommGraph, k: usize, seed: u64) -> Result<Vec<u32>> {
    let _guard = METIS_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let n = graph.n();
    let too_big = || Error::Unsupported(format!("{n} processes are too many for METIS"));
    let mut xadj: Vec<metis::Idx> = Vec::with_capacity(n + 1);
    let mut adjncy: Vec<metis::Idx> = Vec::with_capacity(graph.num_entries());
    let mut wf: Vec<f64> = Vec::with_capacity(graph.num_entries());
    xadj.push(0);
    for u in 0..n {
        for (v, _, w) in graph.edges_of(u) {
            adjncy.push(metis::Idx::try_from(v).map_err(|_| too_big())?);
            wf.push(w);
        }
        xadj.push(metis::Idx::try_from(adjncy.len()).map_err(|_| too_big())?);
    }
    let total: f64 = wf.iter().sum();
    let wmax = wf.iter().cloned().fold(0.0, f64::max);
    let scale = if wmax > 0.0 {
        (1e6 / wmax).min((1u64 << 29) as f64 / total.max(1e-300))
    } else {
        1.0
    };
    let adjwgt: Vec<metis::Idx> = wf
        .iter()
        .map(|&w| ((w * scale).round() as metis::Idx).max(1))
        .collect();
    let mut part: Vec<metis::Idx> = vec![0; n];
    let nparts = metis::Idx::try_from(k).map_err(|_| too_big())?;
    let g = metis::Graph::new(1, nparts, &xadj, &adjncy)
        .map_err(|e| Error::Unsupported(format!("METIS rejected the graph: {e}")))?
        .set_adjwgt(&adjwgt)
        .set_option(metis::option::UFactor(1))
        .set_option(metis::option::Seed((seed & 0x3fff_ffff) as metis::Idx));
    g.part_recursive(&mut part)
        .map_err(|e| Error::Unsupported(format!("METIS failed: {e}")))?;
    Ok(part.into_iter().map(|p| p.max(0) as u32).collect())
}

/// Greedy balancing: no group above `size` afterwards.
fn balance(graph: &CommGraph, part: &mut [u32], k: usize, size: usize) {
    let n = part.len();
    let mut sizes = vec![0usize; k];
    for &g in part.iter() {
        sizes[g as usize] += 1;
    }
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); k];
    for (p, &g) in part.iter().enumerate() {
        members[g as usize].push(p as u32);
    }
    let mut conn: Vec<(u32, f64)> = Vec::new();
    let mut first_room = 0usize;
    for src in 0..k {
        while sizes[src] > size {
            // Best (process, target) among the targets the processes talk to.
            let mut best: Option<(f64, usize, u32)> = None;
            for &p in &members[src] {
                let p = p as usize;
                conn.clear();
                let mut own = 0.0;
                for (v, _, w) in graph.edges_of(p) {
                    let g = part[v];
                    if g as usize == src {
                        own += w;
                    } else if let Some(e) = conn.iter_mut().find(|e| e.0 == g) {
                        e.1 += w;
                    } else {
                        conn.push((g, w));
                    }
                }
                for &(g, w) in &conn {
                    if sizes[g as usize] < size {
                        let inc = own - w;
                        let better = match best {
                            None => true,
                            Some((b, bp, bg)) => inc < b || (inc == b && (p, g) < (bp, bg)),
                        };
                        if better {
                            best = Some((inc, p, g));
                        }
                    }
                }
            }
            let (p, dst) = match best {
                Some((_, p, g)) => (p, g as usize),
                None => {
                    // The process least tied to its group, to the first group with room.
                    while first_room < k && sizes[first_room] >= size {
                        first_room += 1;
                    }
                    // k·size ≥ n leaves room while a group is over-full.
                    let dst = first_room.min(k - 1);
                    let p = members[src]
                        .iter()
                        .map(|&p| {
                            let own: f64 = graph
                                .edges_of(p as usize)
                                .filter(|&(v, _, _)| part[v] as usize == src)
                                .map(|(_, _, w)| w)
                                .sum();
                            (own, p)
                        })
                        .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
                        .map(|(_, p)| p as usize)
                        .unwrap_or(0);
                    (p, dst)
                }
            };
            part[p] = dst as u32;
            sizes[src] -= 1;
            sizes[dst] += 1;
            members[src].retain(|&q| q as usize != p);
            members[dst].push(p as u32);
        }
    }
    debug_assert!(sizes.iter().all(|&s| s <= size));
    debug_assert_eq!(sizes.iter().sum::<usize>(), n);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{GenOptions, generate};

    #[test]
    fn groups_are_bounded_and_cover_every_process() {
        let g = generate("stencil:10x10", &GenOptions::default()).unwrap();
        for size in [1, 2, 3, 4, 7] {
            let gr = groups_of_size(&g, size, 1).unwrap();
            assert_eq!(gr.k, 100usize.div_ceil(size));
            assert_eq!(gr.part.len(), 100);
            assert!(gr.sizes().iter().all(|&s| s <= size), "size {size}");
            assert_eq!(gr, groups_of_size(&g, size, 1).unwrap());
        }
    }

    #[test]
    fn a_stencil_is_cut_into_compact_blocks() {
        // 8x8 stencil into 16 groups of 4: the best cut is 2x2 blocks, each
        // cutting 4 pair edges of its 8 boundary edges → 48 of 112 edges cut.
        let g = generate("stencil:8x8", &GenOptions::default()).unwrap();
        let gr = groups_of_size(&g, 4, 1).unwrap();
        let per_pair = g.pairs().next().unwrap().2;
        let cut = edge_cut(&g, &gr.part) / per_pair;
        assert!(cut <= 64.0, "cut {cut} edges; 2x2 blocks cut 48");
    }
}
