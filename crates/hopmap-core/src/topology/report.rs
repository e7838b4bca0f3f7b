//! `hopmap topology SPEC`: what a fabric is made of and what up*/down*
//! does to it (Moh et al. §3.1's point: the routing topology G'_p differs
//! from the processor topology G_p) — switches, hosts, links, diameters, the
//! switch pairs whose up*/down* distance exceeds their shortest path, and the
//! links that no up*/down* route uses. O(S²) for the pair scan plus the
//! routes of [`crate::routing::fabric_route::unused_links`].

use super::{Fabric, Topology};
use crate::routing::fabric_route::{self, Mode};

/// A summary of a topology (fabric fields are empty/zero on grids).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TopologyReport {
    pub spec: String,
    pub kind: String,
    pub nodes: usize,
    pub cores: usize,
    pub slots: usize,
    /// Undirected links (grids: node links; fabrics: inter-switch links).
    pub links: usize,
    /// Diameter in hops (fabrics: up*/down* between switches with job hosts).
    pub diameter: u32,
    pub switches: usize,
    /// Hosts of the fabric outside the job.
    pub idle_hosts: usize,
    pub host_links: usize,
    pub roots: Vec<String>,
    /// How the up*/down* roots were chosen.
    pub root_rule: String,
    pub tree_height: u32,
    /// The routing a fabric is routed with by default (`fattree` on fat
    /// trees, else `updn`).
    pub routing: String,
    /// Whether OpenSM's ftree engine takes the fabric: its top switches, or
    /// why not.
    pub ftree: String,
    /// Shortest-path diameter between switches with job hosts.
    pub shortest_path_diameter: u32,
    /// Inter-switch links that no deterministic up*/down* route between two
    /// switches with job hosts uses, as `(link index, switch, switch)`.
    pub unused_links: Vec<(usize, String, String)>,
    /// Switch pairs (a < b) whose up*/down* distance exceeds their shortest
    /// path: `(a, b, up*/down*, shortest)` (up*/down* 65535: no legal
    /// route, as between two roots no cable joins); at most `pair_limit` listed.
    pub longer_pairs: Vec<(String, String, u32, u32)>,
    /// Number of such pairs in all.
    pub longer_pairs_total: usize,
}

/// Build the report; `pair_limit` caps the listed longer pairs.
pub fn report(t: &Topology, pair_limit: usize) -> TopologyReport {
    let mut r = TopologyReport {
        spec: t.spec(),
        kind: String::new(),
        nodes: t.num_nodes(),
        cores: t.cores(),
        slots: t.num_slots(),
        links: 0,
        diameter: t.diameter(),
        switches: 0,
        idle_hosts: 0,
        host_links: 0,
        roots: Vec::new(),
        root_rule: String::new(),
        tree_height: 0,
        routing: crate::Routing::Dor.resolve(t).name(),
        ftree: String::new(),
        shortest_path_diameter: 0,
        unused_links: Vec::new(),
        longer_pairs: Vec::new(),
        longer_pairs_total: 0,
    };
    match t {
        Topology::Grid(g) => {
            r.kind = if g.is_torus() { "torus" } else { "mesh" }.into();
            r.links = t.links().len();
        }
        Topology::Fabric(f) => fabric_part(f, pair_limit, &mut r),
    }
    r
}

fn fabric_part(f: &Fabric, pair_limit: usize, r: &mut TopologyReport) {
    let name = |s: usize| f.switches()[s].name.clone();
    r.kind = match f.kind() {
        super::FabricKind::Irregular => "fabric",
        super::FabricKind::FatTree { .. } => "fat tree",
        super::FabricKind::Dragonfly => "dragonfly",
    }
    .into();
    r.switches = f.num_switches();
    r.links = f.switch_links().len();
    r.host_links = f.num_hosts();
    r.idle_hosts = (0..f.num_switches())
        .map(|s| f.idle_hosts(s) as usize)
        .sum();
    let ud = f.updown();
    r.roots = ud.roots.iter().map(|&s| name(s as usize)).collect();
    r.root_rule = match f.root_choice() {
        super::RootChoice::Given => "given".into(),
        super::RootChoice::OpenSm => {
            "OpenSM's automatic roots (its updn engine's min-hop rule)".into()
        }
        super::RootChoice::MinHeight => "OpenSM's min-hop rule finds no root (OpenSM would \
             disable updn and route with minhop); hopmap takes the root of the \
             minimum-height tree"
            .into(),
        super::RootChoice::OpenSmUnroutable => "OpenSM's min-hop rule finds roots from which \
             up*/down* cannot route between some hosts; hopmap takes the root of the \
             minimum-height tree"
            .into(),
    };
    r.ftree = match f.ftree_roots() {
        Ok(top) => format!(
            "a fat tree with {} top switch{} ({})",
            top.len(),
            if top.len() == 1 { "" } else { "es" },
            top.iter()
                .map(|&s| name(s as usize))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Err(why) => format!("not a fat tree: {why}"),
    };
    r.tree_height = ud.height();
    let used: Vec<usize> = (0..f.num_switches())
        .filter(|&s| !f.hosts_on(s).is_empty())
        .collect();
    for &a in &used {
        for &b in &used {
            r.shortest_path_diameter = r.shortest_path_diameter.max(f.min_switch_dist(a, b));
        }
    }
    for a in 0..f.num_switches() {
        for b in a + 1..f.num_switches() {
            let (u, m) = (ud.dist(a, b) as u32, f.min_switch_dist(a, b));
            if u > m {
                r.longer_pairs_total += 1;
                if r.longer_pairs.len() < pair_limit {
                    r.longer_pairs.push((name(a), name(b), u, m));
                }
            }
        }
    }
    r.unused_links = fabric_route::unused_links(f, Mode::UpDown(ud), false)
        .into_iter()
        .map(|l| {
            let (a, b) = f.switch_links()[l];
            (l, name(a as usize), name(b as usize))
        })
        .collect();
}

impl TopologyReport {
    /// The text `hopmap topology` prints.
    pub fn to_text(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let _ = writeln!(s, "topology:          {} ({})", self.spec, self.kind);
        if self.switches == 0 {
            let _ = writeln!(
                s,
                "nodes:             {} × {} cores = {} slots",
                self.nodes, self.cores, self.slots
            );
            let _ = writeln!(s, "links:             {}", self.links);
            let _ = writeln!(s, "diameter:          {} hops", self.diameter);
            return s;
        }
        let _ = writeln!(s, "switches:          {}", self.switches);
        let _ = writeln!(
            s,
            "hosts:             {} in the job × {} cores = {} slots ({} more hosts idle)",
            self.nodes, self.cores, self.slots, self.idle_hosts
        );
        let _ = writeln!(
            s,
            "links:             {} inter-switch, {} host links",
            self.links, self.host_links
        );
        let _ = writeln!(s, "routing:           {}", self.routing);
        let _ = writeln!(s, "ftree:             {}", self.ftree);
        let _ = writeln!(
            s,
            "up*/down* root:    {} (tree height {})",
            self.roots.join(", "),
            self.tree_height
        );
        let _ = writeln!(s, "roots chosen by:   {}", self.root_rule);
        let _ = writeln!(
            s,
            "diameter:          {} switch hops up*/down*, {} shortest path",
            self.diameter, self.shortest_path_diameter
        );
        let _ = writeln!(
            s,
            "longer pairs:      {} switch pairs are farther apart under up*/down* than by shortest path",
            self.longer_pairs_total
        );
        for (a, b, u, m) in &self.longer_pairs {
            if *u == crate::routing::updown::UNREACHABLE as u32 {
                let _ = writeln!(s, "  {a} – {b}: no legal up*/down* route, {m} shortest");
            } else {
                let _ = writeln!(s, "  {a} – {b}: {u} hops up*/down*, {m} shortest");
            }
        }
        if self.longer_pairs.len() < self.longer_pairs_total {
            let _ = writeln!(
                s,
                "  … {} more",
                self.longer_pairs_total - self.longer_pairs.len()
            );
        }
        let _ = writeln!(
            s,
            "unused links:      {} links no up*/down* route between the job's switches uses",
            self.unused_links.len()
        );
        for (l, a, b) in &self.unused_links {
            let _ = writeln!(s, "  link {l}: {a} – {b}");
        }
        s
    }
}
