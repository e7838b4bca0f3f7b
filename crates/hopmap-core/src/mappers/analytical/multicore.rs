//! Several processes per node (Wu et al. §3.6).
//!
//! The analytical algorithm places *items* on nodes. Two ways to get them:
//! * `group` (the paper): partition the processes into `⌈n / cores⌉`
//!   node-sized groups with METIS and the paper's greedy balancing
//!   ([`crate::partition::groups_of_size`]), then map the groups, one per
//!   node (γ groups per bin). Traffic inside a group costs 0 hops, so the
//!   groups' graph (the quotient graph, volumes summed) has the same
//!   hop-bytes as the processes' mapping.
//! * `bins` (beyond the paper): no grouping; every process is an item and a
//!   node holds `cores` of them (γ·cores per bin during global mapping).
//!
//! With one core per node both are the same: one process per item.
//! Cost: the partition (see `crate::partition`) plus O(n + m) for the
//! quotient graph. Memory O(n + m).

use super::global::ItemGraph;
use crate::error::Result;
use crate::graph::CommGraph;
use crate::mapping::Mapping;
use crate::partition::groups_of_size;
use crate::topology::Topology;

/// How processes share multicore nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MulticoreMode {
    /// METIS groups of `cores` processes, one group per node (the paper).
    Group,
    /// No grouping: bins of γ·cores processes, nodes of `cores`.
    Bins,
}

/// The items the analytical stages place.
#[derive(Clone, Debug)]
pub struct Items {
    pub graph: ItemGraph,
    /// Item of each process.
    pub item_of: Vec<u32>,
    /// Processes of each item, increasing.
    pub members: Vec<Vec<u32>>,
    /// Items a node may hold in the end (1 for groups, `cores` for bins).
    pub cap: u32,
}

/// Build the items for `mode`.
pub fn items(graph: &CommGraph, cores: usize, mode: MulticoreMode, seed: u64) -> Result<Items> {
    let n = graph.n();
    let (item_of, k, cap): (Vec<u32>, usize, u32) = if mode == MulticoreMode::Group && cores > 1 {
        let gr = groups_of_size(graph, cores, seed)?;
        (gr.part, gr.k, 1)
    } else {
        ((0..n as u32).collect(), n, cores as u32)
    };
    let mut members = vec![Vec::new(); k];
    for (p, &it) in item_of.iter().enumerate() {
        members[it as usize].push(p as u32);
    }
    let mut rows: Vec<Vec<(u32, f64)>> = vec![Vec::new(); k];
    for p in 0..n {
        let a = item_of[p];
        for (v, _, w) in graph.edges_of(p) {
            let b = item_of[v];
            if a != b && v > p {
                rows[a as usize].push((b, w));
                rows[b as usize].push((a, w));
            }
        }
    }
    Ok(Items {
        graph: ItemGraph::from_lists(k, rows),
        item_of,
        members,
        cap,
    })
}

/// The processes' mapping from the items' nodes: each item's members take
/// the node's next free cores in process order.
pub fn expand(items: &Items, node_of_item: &[u32], topo: &Topology) -> Result<Mapping> {
    let n = items.item_of.len();
    let mut nodes = vec![0u32; n];
    for (it, m) in items.members.iter().enumerate() {
        for &p in m {
            nodes[p as usize] = node_of_item[it];
        }
    }
    Mapping::from_nodes(nodes, topo)
}
