//! Switch fabrics (Moh et al. §2–3): switches with a port count, joined by
//! inter-switch links (parallel links allowed), and hosts (compute nodes)
//! attached to switches, each with `cores` process slots.
//!
//! **Nodes.** The topology's nodes are the job's hosts, numbered in the
//! source's host order (see [`crate::topology::fabric_spec`]); hosts of the
//! fabric that are not in the job are only counted per switch
//! ([`Fabric::idle_hosts`]), for drawing and port accounting.
//!
//! **Switches** are indexed `0..S` in the switch order: ascending GUID when
//! the source gives GUIDs (as OpenSM orders them), otherwise the order of the
//! switch records. This order breaks every tie of the up*/down* routing.
//!
//! **Channels** (directed links): host `h`'s link gives channel `2h`
//! (host → switch) and `2h + 1` (switch → host); inter-switch link `l`
//! between `(a, b)` gives channel `2H + 2l` (a → b) and `2H + 2l + 1`
//! (b → a), with `H` the number of (job) hosts. In [`crate::Topology::channel_ends`]
//! and [`crate::Topology::links`] a host is vertex `h` and switch `s` is
//! vertex `H + s`.
//!
//! **Distance** is the up*/down* distance (the paper's routing topology
//! G'_p, §3.1): the shortest legal route between the hosts' switches, in
//! switch-to-switch hops; two hosts on one switch are 0 apart. Host links are
//! not counted (Moh's cost matrix has 0 inside a switch, Fig. 4), so
//! hop-bytes on a fabric is the paper's weighted cardinality (§2); the loads
//! of host channels are reported but are not part of hop-bytes.
//!
//! Construction computes the switch adjacency, the up*/down* tables
//! ([`UpDown`]) and the plain shortest-path table: O(S²) memory (`u16`
//! entries) and the bit-set searches of [`crate::routing::updown`].

use crate::error::{Error, Result};
use crate::routing::opensm_roots;
use crate::routing::updown::{self, UNREACHABLE, UpDown};
use crate::topology::ftree_detect;
use std::sync::{Arc, OnceLock};

/// Largest number of switches (the tables are S² entries).
pub const MAX_SWITCHES: usize = 16384;
/// Largest number of hosts.
pub const MAX_HOSTS: usize = 1 << 22;

/// A switch: name (its unique id, e.g. `S-<guid>` in an ibnetdiscover
/// dump), GUID when known, the node description the file gives it (a label,
/// not unique), port count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Switch {
    pub name: String,
    pub guid: Option<u64>,
    pub desc: Option<String>,
    pub ports: u32,
}

impl Switch {
    /// The name to show: the file's node description, else the id.
    pub fn label(&self) -> &str {
        self.desc.as_deref().unwrap_or(&self.name)
    }
}

/// A host (compute node): name and the switch it is attached to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Host {
    pub name: String,
    pub switch: u32,
}

/// Which regular family a fabric was generated as (for the fat-tree routing).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum FabricKind {
    /// Irregular (generated or from a file).
    #[default]
    Irregular,
    /// A fat tree; the listed switches are its top tier.
    FatTree { top: Vec<u32> },
    /// A dragonfly.
    Dragonfly,
}

/// Everything that defines a fabric, before the tables are built.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FabricDesc {
    /// The spec string that rebuilds this fabric.
    pub spec: String,
    /// Switches in switch order.
    pub switches: Vec<Switch>,
    /// Inter-switch links as switch index pairs.
    pub links: Vec<(u32, u32)>,
    /// The job's hosts in rank order.
    pub hosts: Vec<Host>,
    /// Hosts of the fabric outside the job, per switch (empty = none).
    pub idle_hosts: Vec<u32>,
    /// Process slots per host.
    pub cores: u32,
    /// Root switches for up*/down* (empty = OpenSM's automatic roots, see
    /// [`RootChoice`]).
    pub roots: Vec<u32>,
    pub kind: FabricKind,
    /// CA and router ports cabled to each switch, as the source lists them
    /// (empty = the job's and idle hosts on each switch).
    pub ca_ports: Vec<u32>,
}

/// How the up*/down* roots were chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RootChoice {
    /// Given by the user (`root=`, `roots=`).
    Given,
    /// OpenSM's automatic rule ([`crate::routing::opensm_roots`]).
    OpenSm,
    /// OpenSM's rule found none (OpenSM would disable up*/down* and route
    /// with min-hop): the root of the minimum-height BFS tree.
    MinHeight,
    /// OpenSM's rule found roots from which up*/down* cannot route between
    /// some two switches with hosts (OpenSM would program no route there):
    /// the root of the minimum-height BFS tree.
    OpenSmUnroutable,
}

/// A switch fabric with its routing tables (cheap to clone).
#[derive(Clone, Debug)]
pub struct Fabric {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    desc: FabricDesc,
    adj: Vec<Vec<(u32, u32)>>,
    hosts_on: Vec<Vec<u32>>,
    updn: UpDown,
    root_choice: RootChoice,
    minimal: Vec<u16>,
    ecc: Vec<u32>,
    /// The fat tree's roots, or why it is not one.
    ftree: std::result::Result<Vec<u32>, String>,
    fat: OnceLock<UpDown>,
}

impl PartialEq for Fabric {
    fn eq(&self, o: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &o.inner) || self.inner.desc == o.inner.desc
    }
}
impl Eq for Fabric {}

impl Fabric {
    /// Check a description and build the tables.
    pub fn new(desc: FabricDesc) -> Result<Self> {
        let bad = |m: String| Error::spec("fabric", &desc.spec, m);
        let s = desc.switches.len();
        if s == 0 {
            return Err(bad("expected at least one switch, found none".into()));
        }
        if s > MAX_SWITCHES {
            return Err(bad(format!(
                "expected at most {MAX_SWITCHES} switches, found {s}"
            )));
        }
        if desc.hosts.is_empty() {
            return Err(bad("expected at least one host, found none".into()));
        }
        if desc.hosts.len() > MAX_HOSTS {
            return Err(bad(format!(
                "expected at most {MAX_HOSTS} hosts, found {}",
                desc.hosts.len()
            )));
        }
        if desc.cores == 0 || desc.cores > 1024 {
            return Err(bad(format!("cores must be 1..=1024, found {}", desc.cores)));
        }
        let mut adj: Vec<Vec<(u32, u32)>> = vec![Vec::new(); s];
        for (l, &(a, b)) in desc.links.iter().enumerate() {
            if a as usize >= s || b as usize >= s || a == b {
                return Err(bad(format!("link {l} joins switches {a} and {b}")));
            }
            adj[a as usize].push((b, l as u32));
            adj[b as usize].push((a, l as u32));
        }
        for v in &mut adj {
            v.sort_unstable();
        }
        let mut hosts_on = vec![Vec::new(); s];
        for (h, host) in desc.hosts.iter().enumerate() {
            let sw = host.switch as usize;
            if sw >= s {
                return Err(bad(format!("host {} on a missing switch", host.name)));
            }
            hosts_on[sw].push(h as u32);
        }
        let (minimal, ecc) = updown::min_table(s, &adj);
        if let Some(t) = (1..s).find(|&t| minimal[t * s] == UNREACHABLE) {
            return Err(bad(format!(
                "expected a connected fabric, found switch {} unreachable from {}",
                desc.switches[t].name, desc.switches[0].name
            )));
        }
        let cas: Vec<u32> = if desc.ca_ports.len() == s {
            desc.ca_ports.clone()
        } else {
            (0..s)
                .map(|v| hosts_on[v].len() as u32 + desc.idle_hosts.get(v).copied().unwrap_or(0))
                .collect()
        };
        let (roots, mut root_choice) = if desc.roots.is_empty() {
            let r = opensm_roots::min_hop_roots(s, &minimal, &cas);
            if r.is_empty() {
                (vec![updown::auto_root(&ecc)], RootChoice::MinHeight)
            } else {
                (r, RootChoice::OpenSm)
            }
        } else {
            if let Some(&r) = desc.roots.iter().find(|&&r| r as usize >= s) {
                return Err(bad(format!("root {r} is not a switch")));
            }
            (desc.roots.clone(), RootChoice::Given)
        };
        let mut updn = UpDown::new(s, &desc.links, &adj, &roots);
        if root_choice == RootChoice::OpenSm {
            let ends: Vec<usize> = (0..s).filter(|&v| cas[v] > 0).collect();
            let broken = ends
                .iter()
                .any(|&a| ends.iter().any(|&b| updn.dist(a, b) == UNREACHABLE));
            if broken {
                root_choice = RootChoice::OpenSmUnroutable;
                updn = UpDown::new(s, &desc.links, &adj, &[updown::auto_root(&ecc)]);
            }
        }
        let ftree = match &desc.kind {
            FabricKind::FatTree { top } => Ok(top.clone()),
            _ => ftree_detect::detect(&adj, &cas, &|v| desc.switches[v].name.clone()),
        };
        Ok(Fabric {
            inner: Arc::new(Inner {
                desc,
                adj,
                hosts_on,
                updn,
                root_choice,
                minimal,
                ecc,
                ftree,
                fat: OnceLock::new(),
            }),
        })
    }

    pub fn desc(&self) -> &FabricDesc {
        &self.inner.desc
    }
    pub fn spec(&self) -> String {
        self.inner.desc.spec.clone()
    }
    pub fn num_switches(&self) -> usize {
        self.inner.desc.switches.len()
    }
    pub fn switches(&self) -> &[Switch] {
        &self.inner.desc.switches
    }
    /// Inter-switch links `(a, b)` by link index.
    pub fn switch_links(&self) -> &[(u32, u32)] {
        &self.inner.desc.links
    }
    /// The job's hosts, by node id.
    pub fn hosts(&self) -> &[Host] {
        &self.inner.desc.hosts
    }
    pub fn num_hosts(&self) -> usize {
        self.inner.desc.hosts.len()
    }
    pub fn cores(&self) -> u32 {
        self.inner.desc.cores
    }
    /// Switch of host (node) `h`.
    #[inline]
    pub fn switch_of(&self, h: usize) -> usize {
        self.inner.desc.hosts[h].switch as usize
    }
    /// The job's hosts attached to switch `s`.
    pub fn hosts_on(&self, s: usize) -> &[u32] {
        &self.inner.hosts_on[s]
    }
    /// Hosts attached to switch `s` that are not in the job.
    pub fn idle_hosts(&self, s: usize) -> u32 {
        self.inner.desc.idle_hosts.get(s).copied().unwrap_or(0)
    }
    /// `(neighbour switch, link)` of switch `s`, ascending.
    pub fn switch_adj(&self, s: usize) -> &[(u32, u32)] {
        &self.inner.adj[s]
    }
    /// The up*/down* structure for the fabric's roots.
    pub fn updown(&self) -> &UpDown {
        &self.inner.updn
    }
    /// Plain shortest-path distance between switches.
    #[inline]
    pub fn min_switch_dist(&self, a: usize, b: usize) -> u32 {
        self.inner.minimal[b * self.num_switches() + a] as u32
    }
    /// Eccentricity of each switch on the plain switch graph.
    pub fn eccentricity(&self) -> &[u32] {
        &self.inner.ecc
    }
    pub fn kind(&self) -> &FabricKind {
        &self.inner.desc.kind
    }
    /// How the up*/down* roots were chosen.
    pub fn root_choice(&self) -> RootChoice {
        self.inner.root_choice
    }
    /// The fat tree's top switches (a `fattree:` fabric's, or those OpenSM's
    /// ftree engine finds, [`ftree_detect`]), or why this is not a fat tree.
    pub fn ftree_roots(&self) -> std::result::Result<&[u32], &str> {
        match &self.inner.ftree {
            Ok(t) => Ok(t),
            Err(e) => Err(e),
        }
    }
    /// The fat-tree up/down structure (every top switch a root), if this is
    /// a fat tree. Built on first use.
    pub fn fat_tree(&self) -> Option<&UpDown> {
        let Ok(top) = &self.inner.ftree else {
            return None;
        };
        Some(self.inner.fat.get_or_init(|| {
            UpDown::new(
                self.num_switches(),
                &self.inner.desc.links,
                &self.inner.adj,
                top,
            )
        }))
    }

    /// up*/down* distance between hosts, in switch hops.
    #[inline]
    pub fn distance(&self, a: usize, b: usize) -> u32 {
        let (sa, sb) = (self.switch_of(a), self.switch_of(b));
        if sa == sb {
            return 0;
        }
        self.inner.updn.dist(sa, sb) as u32
    }
    /// Shortest-path (not up*/down*) distance between hosts, in switch hops.
    #[inline]
    pub fn min_distance(&self, a: usize, b: usize) -> u32 {
        let (sa, sb) = (self.switch_of(a), self.switch_of(b));
        if sa == sb {
            return 0;
        }
        self.min_switch_dist(sa, sb)
    }
    /// Largest up*/down* distance between two switches that have job hosts.
    pub fn diameter(&self) -> u32 {
        let used: Vec<usize> = (0..self.num_switches())
            .filter(|&s| !self.inner.hosts_on[s].is_empty())
            .collect();
        let mut d = 0;
        for &a in &used {
            for &b in &used {
                d = d.max(self.inner.updn.dist(a, b) as u32);
            }
        }
        d
    }
    /// Distinct neighbour hosts of host `h`: the other job hosts on its switch.
    pub fn neighbors_into(&self, h: usize, out: &mut Vec<usize>) {
        for &o in &self.inner.hosts_on[self.switch_of(h)] {
            if o as usize != h {
                out.push(o as usize);
            }
        }
    }
    pub fn channel_slots(&self) -> usize {
        2 * self.num_hosts() + 2 * self.inner.desc.links.len()
    }
    /// `(from, to)` vertices of a channel (hosts `0..H`, switch `s` = `H + s`).
    pub fn channel_ends(&self, ch: usize) -> Option<(usize, usize)> {
        let h = self.num_hosts();
        if ch < 2 * h {
            let (host, dir) = (ch / 2, ch % 2);
            let sw = h + self.switch_of(host);
            return Some(if dir == 0 { (host, sw) } else { (sw, host) });
        }
        let l = (ch - 2 * h) / 2;
        let &(a, b) = self.inner.desc.links.get(l)?;
        let (a, b) = (h + a as usize, h + b as usize);
        Some(if ch.is_multiple_of(2) { (a, b) } else { (b, a) })
    }
    /// Channel of host `h`'s link: towards the switch (`to_switch`) or back.
    #[inline]
    pub fn host_channel(&self, h: usize, to_switch: bool) -> usize {
        2 * h + usize::from(!to_switch)
    }
    /// Channel crossing inter-switch link `l` leaving switch `from`.
    #[inline]
    pub fn link_channel(&self, l: usize, from: u32) -> usize {
        let base = 2 * self.num_hosts() + 2 * l;
        if self.inner.desc.links[l].0 == from {
            base
        } else {
            base + 1
        }
    }
    /// Vertex id of switch `s` in channel ends.
    pub fn switch_vertex(&self, s: usize) -> usize {
        self.num_hosts() + s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spines 0, 1 and 10 leaves (every leaf on both spines), 10 hosts per
    /// leaf and one host on each spine.
    fn spines_with_hosts() -> FabricDesc {
        let s = 12;
        let switches = (0..s)
            .map(|v| Switch {
                name: format!("s{v}"),
                guid: None,
                desc: None,
                ports: 16,
            })
            .collect();
        let links = (2..s as u32).flat_map(|l| [(0, l), (1, l)]).collect();
        let mut hosts: Vec<Host> = (0..2)
            .map(|sw| Host {
                name: format!("spinehost{sw}"),
                switch: sw,
            })
            .collect();
        for l in 2..s as u32 {
            hosts.extend((0..10).map(|i| Host {
                name: format!("h{l}-{i}"),
                switch: l,
            }));
        }
        FabricDesc {
            spec: "test".into(),
            switches,
            links,
            hosts,
            cores: 1,
            ..FabricDesc::default()
        }
    }

    #[test]
    fn opensm_roots_that_cannot_route_between_hosts_are_replaced() {
        // Of 102 hosts, each spine sees 1 at 0 hops, 100 at 1 and 1 at 2:
        // OpenSM ranks both spines as roots (a leaf sees 10 at 0 hops,
        // above 5 %). But no legal route joins the spines (down to a leaf,
        // then up), and each has a host: hopmap takes one root instead.
        let f = Fabric::new(spines_with_hosts()).unwrap();
        assert_eq!(f.root_choice(), RootChoice::OpenSmUnroutable);
        assert_eq!(f.updown().roots.len(), 1);
        assert!(f.distance(0, 1) < UNREACHABLE as u32);
        // Without the spines' hosts the two roots stand.
        let mut d = spines_with_hosts();
        d.hosts.drain(..2);
        let f = Fabric::new(d).unwrap();
        assert_eq!(f.root_choice(), RootChoice::OpenSm);
        assert_eq!(f.updown().roots, vec![0, 1]);
        assert_eq!(f.updown().dist(0, 1), UNREACHABLE);
    }
}
