//! A mapping places every process on a (node, core) slot of a topology.

use crate::error::{Error, Result};
use crate::topology::Topology;

/// Largest network, in slots, on which every mapper may run. Several
/// mappers keep state per node or per slot (free lists, k-d trees of the
/// free nodes, random permutations of the slots), so on a larger network a
/// run is refused up front ([`check_mapper_network`]) instead of exhausting
/// memory. 2^24 slots is the process cap of the readers.
pub const MAX_MAPPER_SLOTS: usize = 1 << 24;

/// Refuse, before any work, to run mapper `id` on a network larger than
/// [`MAX_MAPPER_SLOTS`] slots when it keeps state per node or slot
/// (`per_node_state`, a fact of its registry entry).
pub fn check_mapper_network(id: &str, per_node_state: bool, topo: &Topology) -> Result<()> {
    let slots = topo.num_slots();
    if slots > MAX_MAPPER_SLOTS && per_node_state {
        return Err(Error::Unsupported(format!(
            "network {} has {slots} slots; mapper {id} keeps state per node or slot and runs on \
             at most {MAX_MAPPER_SLOTS} (default, the permutation orders and cdl have no such limit)",
            topo.spec()
        )));
    }
    Ok(())
}

/// Process → (node, core). Slot id = `node * cores + core`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Mapping {
    pub node: Vec<u32>,
    pub core: Vec<u32>,
}

impl Mapping {
    /// Build from explicit nodes and cores.
    pub fn new(node: Vec<u32>, core: Vec<u32>) -> Self {
        Mapping { node, core }
    }

    /// Build from node ids only; each process takes its node's next free core
    /// in rank order. Fails when a node is over-full.
    pub fn from_nodes(nodes: Vec<u32>, topo: &Topology) -> Result<Self> {
        let cores = topo.cores();
        let mut used = vec![0u32; topo.num_nodes()];
        let mut core = Vec::with_capacity(nodes.len());
        for (p, &n) in nodes.iter().enumerate() {
            let n = n as usize;
            if n >= used.len() {
                return Err(Error::Mapping(format!(
                    "process {p} is on node {n}, past the last node {}",
                    used.len() - 1
                )));
            }
            if used[n] as usize >= cores {
                return Err(Error::Mapping(format!(
                    "process {p}: node {n} already holds {cores} processes"
                )));
            }
            core.push(used[n]);
            used[n] += 1;
        }
        Ok(Mapping { node: nodes, core })
    }

    /// Build from slot ids (`node * cores + core`).
    pub fn from_slots(slots: &[usize], topo: &Topology) -> Self {
        let c = topo.cores();
        Mapping {
            node: slots.iter().map(|&s| (s / c) as u32).collect(),
            core: slots.iter().map(|&s| (s % c) as u32).collect(),
        }
    }

    pub fn len(&self) -> usize {
        self.node.len()
    }
    pub fn is_empty(&self) -> bool {
        self.node.is_empty()
    }

    /// Slot id of process `p`.
    #[inline]
    pub fn slot(&self, p: usize, cores: usize) -> usize {
        self.node[p] as usize * cores + self.core[p] as usize
    }

    /// The processes placed on a different node in `other` (a change of
    /// core within a node is not a move), in rank order. Processes past
    /// the shorter mapping's end are not compared. O(n).
    pub fn moved_processes(&self, other: &Mapping) -> Vec<usize> {
        self.node
            .iter()
            .zip(&other.node)
            .enumerate()
            .filter(|(_, (a, b))| a != b)
            .map(|(p, _)| p)
            .collect()
    }

    /// Check that every one of `n` processes is placed, on an existing node
    /// and core, and that no slot holds two processes.
    pub fn validate(&self, n: usize, topo: &Topology) -> Result<()> {
        if self.node.len() != n || self.core.len() != n {
            return Err(Error::Mapping(format!(
                "{} processes placed, the graph has {n}",
                self.node.len()
            )));
        }
        if n > topo.num_slots() {
            return Err(Error::Mapping(format!(
                "{n} processes do not fit in {} slots ({} nodes × {} cores)",
                topo.num_slots(),
                topo.num_nodes(),
                topo.cores()
            )));
        }
        let cores = topo.cores();
        // Slot owners: a dense array when the network has few slots for the
        // mapping's size, else a hash map, so that memory follows the
        // mapping (4 processes on 2^38 slots need 4 entries, not 1 TiB).
        let dense = topo.num_slots() <= (1 << 20).max(n.saturating_mul(16));
        let mut owner_dense = if dense {
            vec![u32::MAX; topo.num_slots()]
        } else {
            Vec::new()
        };
        let mut owner_map: std::collections::HashMap<usize, u32> = if dense {
            std::collections::HashMap::new()
        } else {
            std::collections::HashMap::with_capacity(n)
        };
        for p in 0..n {
            let (nd, c) = (self.node[p] as usize, self.core[p] as usize);
            if nd >= topo.num_nodes() {
                return Err(Error::Mapping(format!(
                    "process {p} is on node {nd}, past the last node {}",
                    topo.num_nodes() - 1
                )));
            }
            if c >= cores {
                return Err(Error::Mapping(format!(
                    "process {p} is on core {c}, but nodes have {cores} cores"
                )));
            }
            let s = nd * cores + c;
            let previous = if dense {
                std::mem::replace(&mut owner_dense[s], p as u32)
            } else {
                owner_map.insert(s, p as u32).unwrap_or(u32::MAX)
            };
            if previous != u32::MAX {
                return Err(Error::Mapping(format!(
                    "processes {previous} and {p} share node {nd} core {c}"
                )));
            }
        }
        Ok(())
    }

    /// The processes on each slot (None = free), indexed by slot id.
    pub fn slot_owners(&self, topo: &Topology) -> Vec<Option<u32>> {
        let cores = topo.cores();
        let mut owner = vec![None; topo.num_slots()];
        for p in 0..self.len() {
            let s = self.slot(p, cores);
            if s < owner.len() {
                owner[s] = Some(p as u32);
            }
        }
        owner
    }

    /// Ranks in node-then-core order (the order of an `MPICH_RANK_ORDER` file).
    /// O(n log n), memory O(n) whatever the network's size.
    pub fn ranks_in_slot_order(&self, topo: &Topology) -> Vec<u32> {
        let cores = topo.cores();
        let mut r: Vec<u32> = (0..self.len() as u32).collect();
        r.sort_by_key(|&p| self.slot(p as usize, cores));
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moved_processes_compare_nodes_not_cores() {
        let a = Mapping::new(vec![0, 1, 2, 3], vec![0, 0, 0, 0]);
        let b = Mapping::new(vec![0, 2, 2, 1], vec![1, 0, 0, 0]);
        // Process 0 changed core only; 1 and 3 changed node.
        assert_eq!(a.moved_processes(&b), vec![1, 3]);
        assert!(a.moved_processes(&a).is_empty());
    }

    #[test]
    fn from_nodes_assigns_next_free_core_and_validates() {
        let t = Topology::parse("torus:3x3:cores=2").unwrap();
        // Sparse validation on a network of 2^38 slots.
        let huge = Topology::parse("torus:16384x16384:cores=1024").unwrap();
        Mapping::new(vec![0, 1, 268435455], vec![0, 1023, 5])
            .validate(3, &huge)
            .unwrap();
        let e = Mapping::new(vec![7, 7], vec![3, 3])
            .validate(2, &huge)
            .unwrap_err()
            .to_string();
        assert!(e.contains("processes 0 and 1 share node 7 core 3"), "{e}");
        let m = Mapping::from_nodes(vec![0, 0, 4, 8], &t).unwrap();
        assert_eq!(m.core, vec![0, 1, 0, 0]);
        m.validate(4, &t).unwrap();
        assert!(Mapping::from_nodes(vec![0, 0, 0], &t).is_err());
        assert!(Mapping::from_nodes(vec![9], &t).is_err());
        let clash = Mapping::new(vec![1, 1], vec![1, 1]);
        let e = clash.validate(2, &t).unwrap_err().to_string();
        assert!(e.contains("share node 1 core 1"), "{e}");
        assert_eq!(m.ranks_in_slot_order(&t), vec![0, 1, 2, 3]);
    }
}
