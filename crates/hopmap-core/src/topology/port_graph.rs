//! The fabric that per-port listings describe, built link by link: shared by
//! the readers of `ibnetdiscover -p` ([`super::ibnet_ports`]) and `iblinkinfo`
//! ([`super::iblinkinfo`]), which name every port with its node and say what
//! is at the other end, but never list a node as a record of its own.
//!
//! The result is the fabric the plain `ibnetdiscover` dump of the same
//! subnet reads to ([`super::ibnetdiscover`]):
//!
//! * a switch is named `S-<16 hex digits of its node GUID>`, the id that
//!   ibnetdiscover gives it, labelled by its node description when the
//!   listing gives one, and has as many ports as the highest port number
//!   listed for it (the listings show unconnected ports too);
//! * a host (CA) is named by its node description, or `H-<node GUID>` when
//!   that is empty. Its node GUID is taken as its port GUID minus the port
//!   number (how HCAs number their ports), so the ports of one HCA, listed
//!   separately, make one host; a host is attached to the switch of its
//!   lowest connected port;
//! * hosts are numbered in the order the listing first gives one of their
//!   ports as a local end (then those only named as far ends), switch links
//!   are merged by their `(switch, port)` ends (each is listed from both
//!   sides), and the CA and router ports on each switch are counted (what
//!   OpenSM's root detection counts, [`crate::routing::opensm_roots`]);
//!   router links carry no routes and are otherwise skipped.
//!
//! Memory: O(ports listed). Time: O(ports · log).

use super::fabric::{FabricKind, Host, Switch};
use super::fabric_spec::RawFabric;
use crate::error::{Error, Result};
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// What kind of node a port belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Switch,
    Ca,
    Router,
}

struct Node {
    kind: NodeKind,
    name: String,
    guid: Option<u64>,
    max_port: u32,
    /// When the node was first listed as the local end of a port line.
    listed: Option<usize>,
}

/// Nodes and port-to-port connections, as a listing names them.
#[derive(Default)]
pub struct PortGraph {
    nodes: Vec<Node>,
    by_key: HashMap<String, usize>,
    /// `(node, port, node, port)`.
    conns: Vec<(usize, u32, usize, u32)>,
    listed_count: usize,
}

/// Largest port number accepted (InfiniBand ports are 8-bit; the plain
/// dump's reader takes port counts up to the same bound).
pub const MAX_PORT: u32 = 4096;

impl PortGraph {
    /// The node keyed `key` (a switch's GUID, a host's description and node
    /// GUID), created on first mention. A key seen before with another kind
    /// is an error at `line`.
    pub fn node(
        &mut self,
        path: &Path,
        line: usize,
        kind: NodeKind,
        key: &str,
        name: &str,
        guid: Option<u64>,
    ) -> Result<usize> {
        if let Some(&i) = self.by_key.get(key) {
            if self.nodes[i].kind != kind {
                return Err(Error::parse(
                    path,
                    line,
                    format!(
                        "expected {} to be a {:?} as before, found it as a {kind:?}",
                        crate::io::text::show(name.as_bytes()),
                        self.nodes[i].kind
                    ),
                ));
            }
            return Ok(i);
        }
        self.by_key.insert(key.to_string(), self.nodes.len());
        self.nodes.push(Node {
            kind,
            name: name.to_string(),
            guid,
            max_port: 0,
            listed: None,
        });
        Ok(self.nodes.len() - 1)
    }

    /// Note that `node` has port `port` (connected or not).
    pub fn port(&mut self, node: usize, port: u32) {
        let n = &mut self.nodes[node];
        n.max_port = n.max_port.max(port);
    }

    /// Note that a port line lists `node` as its local end (hosts are
    /// numbered in the order they are first listed so, as the dump numbers
    /// them by their records).
    pub fn listed(&mut self, node: usize) {
        if self.nodes[node].listed.is_none() {
            self.nodes[node].listed = Some(self.listed_count);
            self.listed_count += 1;
        }
    }

    /// A cable from `(a, pa)` to `(b, pb)`.
    pub fn connect(&mut self, a: usize, pa: u32, b: usize, pb: u32) {
        self.port(a, pa);
        self.port(b, pb);
        self.conns.push((a, pa, b, pb));
    }

    /// The fabric, or a `PATH:EOF` error when it has no switch or no host.
    pub fn finish(self, path: &Path, eof: usize) -> Result<RawFabric> {
        let mut sw_index = vec![u32::MAX; self.nodes.len()];
        let mut switches = Vec::new();
        for (i, n) in self.nodes.iter().enumerate() {
            if n.kind == NodeKind::Switch {
                sw_index[i] = switches.len() as u32;
                switches.push(Switch {
                    name: match n.guid {
                        Some(g) => format!("S-{g:016x}"),
                        None => n.name.clone(),
                    },
                    guid: n.guid,
                    desc: Some(n.name.clone()).filter(|d| n.guid.is_some() && !d.is_empty()),
                    ports: n.max_port.max(1),
                });
            }
        }
        if switches.is_empty() {
            return Err(Error::parse(
                path,
                eof,
                "expected at least one switch port, found none",
            ));
        }
        let mut seen: HashSet<((u32, u32), (u32, u32))> = HashSet::new();
        let mut links = Vec::new();
        let mut ca_ports = vec![0u32; switches.len()];
        let mut counted: HashSet<(usize, u32)> = HashSet::new();
        // Host node → (lowest connected port, its switch).
        let mut host_switch: HashMap<usize, (u32, u32)> = HashMap::new();
        for &(a, pa, b, pb) in &self.conns {
            let (ka, kb) = (self.nodes[a].kind, self.nodes[b].kind);
            match (ka, kb) {
                (NodeKind::Switch, NodeKind::Switch) => {
                    if a == b {
                        continue;
                    }
                    let ea = (sw_index[a], pa);
                    let eb = (sw_index[b], pb);
                    let key = if ea < eb { (ea, eb) } else { (eb, ea) };
                    if seen.insert(key) {
                        links.push((sw_index[a], sw_index[b]));
                    }
                }
                (NodeKind::Switch, _) | (_, NodeKind::Switch) => {
                    let (sw, p_sw, other, p_other) = if ka == NodeKind::Switch {
                        (a, pa, b, pb)
                    } else {
                        (b, pb, a, pa)
                    };
                    if counted.insert((sw, p_sw)) {
                        ca_ports[sw_index[sw] as usize] += 1;
                    }
                    if self.nodes[other].kind == NodeKind::Ca {
                        let e = host_switch.entry(other).or_insert((p_other, sw_index[sw]));
                        if p_other < e.0 {
                            *e = (p_other, sw_index[sw]);
                        }
                    }
                }
                _ => {}
            }
        }
        // Hosts listed as a local end first, in that order; then those only
        // mentioned as a far end, in order of mention.
        let mut order: Vec<usize> = (0..self.nodes.len()).collect();
        order.sort_by_key(|&i| (self.nodes[i].listed.unwrap_or(usize::MAX), i));
        let hosts: Vec<Host> = order
            .into_iter()
            .filter_map(|i| {
                let &(_, sw) = host_switch.get(&i)?;
                Some(Host {
                    name: self.nodes[i].name.clone(),
                    switch: sw,
                })
            })
            .collect();
        if hosts.is_empty() {
            return Err(Error::parse(
                path,
                eof,
                "expected at least one CA port linked to a switch, found none",
            ));
        }
        Ok(RawFabric {
            switches,
            links,
            hosts,
            kind: FabricKind::Irregular,
            default_job: None,
            ca_ports,
        })
    }
}

/// The key and name of a host from one of its ports: its node description
/// and node GUID (port GUID − port number), named by the description or
/// `H-<node GUID>`.
pub fn host_key(desc: &str, port_guid: Option<u64>, port: u32) -> (String, String) {
    let node = port_guid.map(|g| g.wrapping_sub(port as u64));
    let key = match node {
        Some(g) => format!("CA\0{desc}\0{g:x}"),
        None => format!("CA\0{desc}"),
    };
    let name = if desc.is_empty() {
        node.map_or_else(|| "H-".to_string(), |g| format!("H-{g:016x}"))
    } else {
        desc.to_string()
    };
    (key, name)
}

/// A `0x`-prefixed hexadecimal GUID.
pub fn parse_guid(s: &str) -> Option<u64> {
    let h = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"))?;
    if h.is_empty() || h.len() > 16 {
        return None;
    }
    u64::from_str_radix(h, 16).ok()
}

/// A port number `1..=MAX_PORT`.
pub fn parse_port(s: &str) -> Option<u32> {
    s.parse().ok().filter(|p| (1..=MAX_PORT).contains(p))
}

/// Whether a line is a discovery message that listings may be preceded or
/// interleaved with (`ibwarn: …`, `… DR path …`), not data.
pub fn is_discovery_message(line: &str) -> bool {
    let l = line.trim_start();
    l.starts_with("ibwarn") || l.contains("DR path") || l.starts_with("src/")
}
