//! What both drawings of the network view (grid and fabric) draw from the
//! model: the network's undirected links, the first process on each node,
//! the link values and their ranking, and the channels crossed by the
//! messages of the selected process. Each piece is recomputed only when
//! what it depends on changes (generation counters of the model).
//!
//! Cost: O(nodes + links) per topology; O(processes) per placement; the
//! link values O(L) per placement for L links, their ranking O(L log L)
//! when many changed (O(L + k log k) when k ≤ L/8 did); routes of the
//! selected process O(its partners × route length) per selection.

use super::contention::LinkStats;
use super::fabric;
use super::geometry::Geometry;
use crate::Model;

/// The caches; see the module doc.
#[derive(Default)]
pub struct LinkData {
    pub geom: Geometry,
    topo_key: u64,
    /// First process on each node (`u32::MAX`: empty).
    pub node_proc: Vec<u32>,
    place_key: (u64, u64),
    pub stats: LinkStats,
    stats_key: (u64, u64, bool),
    /// Bumped whenever the link values change (mesh cache keys).
    pub stats_gen: u64,
    route_key: (Option<usize>, u64, u64),
    /// Channels crossed by the selected process's messages (by channel).
    pub route_channels: Vec<bool>,
    /// Nodes of the selected process's partners.
    pub partner_nodes: Vec<usize>,
}

impl LinkData {
    /// Bring the caches up to date with `model` (link values in flows when
    /// `by_flows`). Returns whether the topology changed.
    pub fn ensure(&mut self, model: &Model, by_flows: bool) -> bool {
        let new_topo = self.topo_key != model.topo.generation();
        if new_topo {
            self.topo_key = model.topo.generation();
            self.geom = match model.topo.as_fabric() {
                Some(f) => fabric::link_geometry(f),
                None => Geometry::new(&model.topo),
            };
        }
        let pk = (model.placement.generation(), model.topo.generation());
        if self.place_key != pk {
            self.place_key = pk;
            self.node_proc = node_procs(model);
        }
        // The evaluation changes with the placement and the routing, both of
        // which bump `place_gen`.
        let sk = (
            model.placement.generation(),
            model.topo.generation(),
            by_flows,
        );
        if self.stats_key != sk {
            self.stats_key = sk;
            // A run's snapshots move processes more often than they are
            // evaluated: rank (O(L log L)) only values that changed (O(L)).
            let vals = LinkStats::values(&self.geom.links, model.eval.as_ref(), by_flows);
            if vals != self.stats.vals || self.stats_gen == 0 {
                self.stats = self.stats.updated(vals);
                self.stats_gen += 1;
            }
        }
        let rk = (
            model.selected,
            model.placement.generation(),
            model.topo.generation(),
        );
        if self.route_key != rk {
            self.route_key = rk;
            self.selected_routes(model);
        }
        new_topo
    }

    /// The channels the selected process's messages cross, and its
    /// partners' nodes.
    fn selected_routes(&mut self, model: &Model) {
        self.route_channels = vec![false; model.topo.channel_slots()];
        self.partner_nodes.clear();
        let Some(p) = model.selected.filter(|&p| p < model.graph.n()) else {
            return;
        };
        let Some(np) = model.node_of(p) else { return };
        let g = &model.graph;
        for (v, s, _) in g.edges_of(p) {
            let Some(nv) = model.node_of(v) else { continue };
            self.partner_nodes.push(nv);
            let back = g.sent_between(v, p);
            let chans = &mut self.route_channels;
            if s > 0.0 {
                model
                    .routing
                    .route(&model.topo, np, nv, s, &mut |ch, _| chans[ch] = true);
            }
            if back > 0.0 {
                model
                    .routing
                    .route(&model.topo, nv, np, back, &mut |ch, _| chans[ch] = true);
            }
        }
    }
}

/// The first process placed on each node of the model's network.
fn node_procs(model: &Model) -> Vec<u32> {
    let nn = model.topo.num_nodes();
    let mut node_proc = vec![u32::MAX; nn];
    let cores = model.topo.cores();
    for (p, s) in model.placement.iter().enumerate() {
        if let Some(s) = s {
            let v = *s as usize / cores;
            if v < nn && node_proc[v] == u32::MAX {
                node_proc[v] = p as u32;
            }
        }
    }
    node_proc
}
