//! What a hop is on each kind of network, in one place, and a lower bound of
//! hop-bytes that holds for every mapping of a graph onto that network.
//!
//! **Hops.** On a mesh or torus a hop is one link traversal between nodes;
//! two processes on one node are 0 hops apart. On a switch fabric a hop is
//! one switch-to-switch link traversal (Moh et al.'s weighted cardinality,
//! §2, whose cost matrix is 0 inside a switch, Fig. 4): the host → switch and
//! switch → host links are not counted, so two processes on one host *and*
//! two processes on different hosts of one switch are 0 hops apart
//! ([`crate::topology::fabric`]). [`HopModel`] names these for the views
//! (histogram bins, the panel's bound).
//!
//! **Lower bound** ([`lower_bound`]). A *zero-hop group* is a set of slots
//! that are pairwise 0 hops apart: a node's cores on a mesh/torus, every slot
//! of the job's hosts on one switch on a fabric. Let `k` be the largest group
//! size minus one: a process has at most `k` partners at distance 0, and
//! every other partner is at least `d₁` hops away, `d₁` the smallest positive
//! distance between two groups (1 on both kinds of network). Writing `c_uv`
//! for the pair volume (bytes both ways) and `top_k(u)` for the sum of `u`'s
//! `k` largest volumes,
//!
//! ```text
//! hop-bytes = ½ Σ_u Σ_v c_uv · d(u, v) ≥ ½ Σ_u (Σ_v c_uv − top_k(u)) · d₁
//! ```
//!
//! because each pair is counted from both ends. With one slot per group
//! (`k = 0`, a torus with one core per node) this is Σ bytes × 1 hop; on a
//! fabric whose switches hold the whole job it is 0 — then no mapping can be
//! judged against the bound, and the views say so.
//!
//! Cost: O(m log d) for the partial sorts of the pair volumes (d the largest
//! degree), rows in parallel; memory O(d) per task.
//!
//! A stronger bound for small networks, which charges each process the
//! distances around its own position and shares the positions out by an
//! optimal assignment, is [`position::position_bound`]; one for nodes of
//! several cores, which charges the bytes a node can keep to the heaviest
//! connected groups of processes rather than to each process's heaviest
//! partners, is [`node_groups::node_group_bound`].

pub mod assignment;
pub mod node_groups;
pub mod position;

use crate::graph::CommGraph;
use crate::topology::Topology;
use rayon::prelude::*;

/// How distances are counted on a network (for labels and the bound).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HopModel {
    /// What one hop is: "link" or "switch-to-switch link".
    pub hop: &'static str,
    /// What 0 hops means: "same node" or "same switch".
    pub zero: &'static str,
    /// Slots that are pairwise 0 hops apart, at most (the largest group).
    pub group_slots: usize,
    /// Smallest positive distance between two slots of different groups.
    pub min_hops: u32,
    /// True on a switch fabric.
    pub fabric: bool,
}

impl HopModel {
    /// How `topo` counts hops.
    pub fn of(topo: &Topology) -> Self {
        let cores = topo.cores().max(1);
        match topo.as_fabric() {
            Some(f) => HopModel {
                hop: "switch-to-switch link",
                zero: "same switch",
                group_slots: (0..f.num_switches())
                    .map(|s| f.hosts_on(s).len())
                    .max()
                    .unwrap_or(0)
                    * cores,
                min_hops: 1,
                fabric: true,
            },
            None => HopModel {
                hop: "link",
                zero: "same node",
                group_slots: cores,
                min_hops: 1,
                fabric: false,
            },
        }
    }

    /// The label of the hop histogram's bin `h`.
    pub fn bin_label(&self, h: usize) -> String {
        match (h, self.fabric) {
            (0, false) => "0 hops: same node".into(),
            (0, true) => "0 hops: same host or same switch".into(),
            (1, false) => "1 hop".into(),
            (1, true) => "1 switch hop".into(),
            (h, false) => format!("{h} hops"),
            (h, true) => format!("{h} switch hops"),
        }
    }

    /// The histogram's axis title.
    pub fn axis_label(&self) -> &'static str {
        if self.fabric {
            "switch hops (0 = same switch or host)"
        } else {
            "hops (0 = same node)"
        }
    }

    /// One sentence saying what a hop is and how the bound is made.
    pub fn explain(&self) -> String {
        let k = self.group_slots.saturating_sub(1);
        if self.fabric {
            format!(
                "A hop is one switch-to-switch link; host links are not counted, so processes on \
                 one switch are 0 hops apart. Up to {} processes fit on the largest switch, so \
                 each process can have {k} partners 0 hops away; every other partner is at least \
                 1 hop away. Bound = ½ Σ over processes of (bytes with the partners beyond their \
                 {k} heaviest) × 1 hop.",
                self.group_slots
            )
        } else if k == 0 {
            "A hop is one link between nodes. With one process per node every byte travels at \
             least one hop: bound = Σ bytes × 1 hop."
                .into()
        } else {
            format!(
                "A hop is one link between nodes; processes on one node are 0 hops apart. A node \
                 holds {} processes, so each process can have {k} partners 0 hops away; every \
                 other partner is at least 1 hop away. Bound = ½ Σ over processes of (bytes with \
                 the partners beyond their {k} heaviest) × 1 hop.",
                self.group_slots
            )
        }
    }
}

/// The hop-bytes no mapping of `graph` onto `topo` can go below (see the
/// module doc). 0 for an empty graph.
pub fn lower_bound(graph: &CommGraph, topo: &Topology) -> f64 {
    let model = HopModel::of(topo);
    let k = model.group_slots.saturating_sub(1);
    let half: f64 = (0..graph.n())
        .into_par_iter()
        .map_init(Vec::new, |vols: &mut Vec<f64>, u| {
            vols.clear();
            vols.extend(graph.edges_of(u).map(|(_, _, c)| c).filter(|&c| c > 0.0));
            let total: f64 = vols.iter().sum();
            if k == 0 {
                return total;
            }
            if vols.len() <= k {
                return 0.0;
            }
            // The k largest volumes go to the front.
            let cut = vols.len() - k;
            vols.select_nth_unstable_by(cut, |a, b| a.total_cmp(b));
            let rest: f64 = vols[..cut].iter().sum();
            rest.min(total)
        })
        .sum();
    half * 0.5 * model.min_hops as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphBuilder;

    fn path3() -> CommGraph {
        // 0 —10— 1 —6— 2 (and 2 sends 4 back to 1).
        let mut b = GraphBuilder::new(3, true);
        b.add(0, 1, 10.0);
        b.add(1, 2, 6.0);
        b.add(2, 1, 4.0);
        b.build().unwrap()
    }

    #[test]
    fn one_core_per_node_is_every_byte_one_hop() {
        let t = Topology::parse("torus:4").unwrap();
        assert_eq!(lower_bound(&path3(), &t), 20.0);
    }

    #[test]
    fn two_cores_keep_the_heaviest_partner_on_node() {
        // k = 1: 0 keeps 10 (rest 0); 1 keeps 10 (rest 10); 2 keeps 10 (rest 0).
        // ½ (0 + 10 + 0) = 5: e.g. {0,1} on one node, 2 alone: 10 hop-bytes — the
        // bound is below it and valid.
        let t = Topology::parse("mesh:4:cores=2").unwrap();
        assert_eq!(lower_bound(&path3(), &t), 5.0);
    }

    #[test]
    fn a_fabric_switch_holding_the_job_gives_zero() {
        // fattree:4:2 has 2 hosts per edge switch; cores=2 → 4 slots per switch.
        let t = Topology::parse("fattree:4:2:cores=2").unwrap();
        let m = HopModel::of(&t);
        assert!(m.fabric);
        assert_eq!(m.group_slots, 4);
        assert_eq!(lower_bound(&path3(), &t), 0.0);
        assert_eq!(m.bin_label(0), "0 hops: same host or same switch");
    }
}
