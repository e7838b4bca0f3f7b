//! InfiniBand fabric files: the output of `ibnetdiscover` (infiniband-diags,
//! ibnetdiscover(8)) and ibsim's net files (the same grammar with `Hca`).
//!
//! A record starts with a header `Switch N "id"`, `Ca N "id"` or
//! `Hca N "id"` (N ports, `id` the node's unique name, `S-<guid>` /
//! `H-<guid>` in ibnetdiscover's output), optionally followed by
//! `# "node description" …` or other words (`enhanced port 0 lid 1 …`),
//! and continues with port lines
//! `[port](port-guid) "peer-id"[peer-port](peer-port-guid) # comment`
//! (both GUIDs optional, trailing words such as `w=4` ignored). Lines
//! `vendid=`, `devid=`, `sysimgguid=`, `switchguid=`, `caguid=`, blank lines,
//! `#` comments, discovery messages (`ibwarn: …`, `… DR path …`) and the
//! `Non-Chassis Nodes` / `Chassis …` headings are ignored; `Rt` (router) records and the links to them are skipped.
//!
//! * Switch GUID: the hex digits of an `S-<hex>` id (ibnetdiscover's naming);
//!   otherwise none (then the switch order is the record order). The id
//!   stays the switch's name; its node description (the quoted text after
//!   `#`), when there is one, is its label.
//! * Host numbering: the order of the `Ca`/`Hca` records. A mention in
//!   another node's port line numbers nothing. A host's name is its node
//!   description (the quoted text after `#`) when there is one, else its id.
//!   A host with several connected ports is attached to the switch of its
//!   lowest connected port.
//! * CA and router ports cabled to each switch are counted (`ca_ports`, for
//!   OpenSM's root detection), each `(switch, port)` once.
//! * Links: switch–switch port pairs, each listed from both ends in a real
//!   dump, are merged by their `(node, port)` ends; parallel links (other
//!   ports) stay separate.
//!
//! Errors: `PATH:LINE: expected …, found …`. O(bytes + nodes·log).

use crate::error::{Error, Result};
use crate::topology::fabric::{FabricKind, Host, Switch};
use crate::topology::fabric_spec::RawFabric;
use std::collections::HashMap;
use std::path::Path;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Switch,
    Host,
    Router,
}

struct Node {
    kind: Kind,
    id: String,
    desc: Option<String>,
    ports: u32,
    /// (local port, peer id, peer port, line)
    conns: Vec<(u32, String, u32, usize)>,
}

/// Read a quoted string at the start of `s`; returns (content, rest).
fn quoted(s: &str) -> Option<(&str, &str)> {
    let s = s.trim_start();
    let rest = s.strip_prefix('"')?;
    let end = rest.find('"')?;
    Some((&rest[..end], &rest[end + 1..]))
}

/// `[N]` at the start of `s`, then an optional `(hex)` and further `[…]`
/// groups (ignored); returns (N, rest).
fn port(s: &str) -> Option<(u32, &str)> {
    let s = s.trim_start();
    let rest = s.strip_prefix('[')?;
    let end = rest.find(']')?;
    let n: u32 = rest[..end].trim().parse().ok()?;
    let mut rest = &rest[end + 1..];
    loop {
        let t = rest.trim_start();
        if let Some(r) = t.strip_prefix('(') {
            rest = &r[r.find(')')? + 1..];
        } else if t.starts_with('[') && !t.starts_with("[\"") {
            let r = &t[1..];
            rest = &r[r.find(']')? + 1..];
        } else {
            return Some((n, rest));
        }
    }
}

fn show(s: &str) -> String {
    crate::io::text::show(s.as_bytes())
}

/// Parse an ibnetdiscover / ibsim net file.
pub fn parse(path: &Path, bytes: &[u8]) -> Result<RawFabric> {
    let text = String::from_utf8_lossy(bytes);
    let mut nodes: Vec<Node> = Vec::new();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    let mut current: Option<usize> = None;
    for (i, raw_line) in text.lines().enumerate() {
        let ln = i + 1;
        let line = raw_line.trim();
        if line.is_empty() {
            current = None;
            continue;
        }
        if line.starts_with('#') || crate::topology::port_graph::is_discovery_message(line) {
            continue;
        }
        let word = line.split_whitespace().next().unwrap_or("");
        let lw = word.to_ascii_lowercase();
        if [
            "vendid=",
            "devid=",
            "sysimgguid=",
            "switchguid=",
            "caguid=",
            "rtguid=",
        ]
        .iter()
        .any(|p| lw.starts_with(p))
            || lw == "non-chassis"
            || lw == "chassis"
            || line.eq_ignore_ascii_case("non-chassis nodes")
        {
            continue;
        }
        let kind = match word {
            "Switch" => Some(Kind::Switch),
            "Ca" | "Hca" => Some(Kind::Host),
            "Rt" => Some(Kind::Router),
            _ => None,
        };
        if let Some(kind) = kind {
            let rest = line[word.len()..].trim_start();
            let (num, rest) = rest.split_at(
                rest.find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(rest.len()),
            );
            let ports: u32 = num
                .parse()
                .ok()
                .filter(|p| (1..=4096).contains(p))
                .ok_or_else(|| {
                    Error::parse(
                        path,
                        ln,
                        format!(
                            "expected a port count 1..=4096 after `{word}`, found {}",
                            show(rest.trim())
                        ),
                    )
                })?;
            let (id, after) = quoted(rest).ok_or_else(|| {
                Error::parse(
                    path,
                    ln,
                    format!("expected a quoted node id, found {}", show(rest.trim())),
                )
            })?;
            let desc = after
                .find('#')
                .and_then(|h| quoted(&after[h + 1..]))
                .map(|(d, _)| d.to_string())
                .filter(|d| !d.is_empty());
            if by_id.contains_key(id) {
                return Err(Error::parse(
                    path,
                    ln,
                    format!("expected a new node id, found {} a second time", show(id)),
                ));
            }
            by_id.insert(id.to_string(), nodes.len());
            current = Some(nodes.len());
            nodes.push(Node {
                kind,
                id: id.to_string(),
                desc,
                ports,
                conns: Vec::new(),
            });
            continue;
        }
        if line.starts_with('[') {
            let Some(cur) = current else {
                return Err(Error::parse(
                    path,
                    ln,
                    format!(
                        "expected a Switch, Ca or Hca record before a port line, found {}",
                        show(line)
                    ),
                ));
            };
            let bad = || {
                Error::parse(
                    path,
                    ln,
                    format!("expected `[port] \"peer\"[port]`, found {}", show(line)),
                )
            };
            let (p, rest) = port(line).ok_or_else(bad)?;
            let (peer, rest) = quoted(rest).ok_or_else(bad)?;
            let (pp, _) = port(rest).ok_or_else(bad)?;
            nodes[cur].conns.push((p, peer.to_string(), pp, ln));
            continue;
        }
        return Err(Error::parse(
            path,
            ln,
            format!(
                "expected a Switch, Ca or Hca record or a port line, found {}",
                show(line)
            ),
        ));
    }
    // Switches in record order.
    let mut sw_index = vec![u32::MAX; nodes.len()];
    let mut switches = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        if n.kind == Kind::Switch {
            sw_index[i] = switches.len() as u32;
            let guid =
                n.id.strip_prefix("S-")
                    .filter(|h| !h.is_empty() && h.len() <= 16)
                    .and_then(|h| u64::from_str_radix(h, 16).ok());
            switches.push(Switch {
                name: n.id.clone(),
                guid,
                desc: n.desc.clone(),
                ports: n.ports,
            });
        }
    }
    let eof = crate::io::text::eof_line(bytes);
    if switches.is_empty() {
        return Err(Error::parse(
            path,
            eof,
            "expected at least one Switch record, found none",
        ));
    }
    // Links between switches, merged by their (node, port) ends.
    // Both (switch, port) ends of each link seen so far.
    type End = (u32, u32);
    let mut seen: std::collections::HashSet<(End, End)> = std::collections::HashSet::new();
    let mut links = Vec::new();
    let mut host_switch: HashMap<usize, (u32, u32)> = HashMap::new(); // host node → (port, switch)
    // CA and router ports per switch, each (switch, port) once.
    let mut ca_ports = vec![0u32; switches.len()];
    let mut counted: std::collections::HashSet<(u32, u32)> = std::collections::HashSet::new();
    for (i, n) in nodes.iter().enumerate() {
        for (p, peer, pp, ln) in &n.conns {
            let &j = by_id.get(peer).ok_or_else(|| {
                Error::parse(
                    path,
                    *ln,
                    format!(
                        "expected a Switch, Ca or Hca record for {}, found none",
                        show(peer)
                    ),
                )
            })?;
            let (a, b) = (&nodes[i], &nodes[j]);
            let end_on_switch = match (a.kind, b.kind) {
                (Kind::Switch, Kind::Host | Kind::Router) => Some((sw_index[i], *p)),
                (Kind::Host | Kind::Router, Kind::Switch) => Some((sw_index[j], *pp)),
                _ => None,
            };
            if let Some(e) = end_on_switch
                && counted.insert(e)
            {
                ca_ports[e.0 as usize] += 1;
            }
            match (a.kind, b.kind) {
                (Kind::Switch, Kind::Switch) => {
                    if i == j {
                        continue; // a loopback cable carries no route
                    }
                    let ea = (sw_index[i], *p);
                    let eb = (sw_index[j], *pp);
                    let key = if ea < eb { (ea, eb) } else { (eb, ea) };
                    if seen.insert(key) {
                        links.push((sw_index[i], sw_index[j]));
                    }
                }
                (Kind::Host, Kind::Switch) => {
                    let e = host_switch.entry(i).or_insert((*p, sw_index[j]));
                    if *p < e.0 {
                        *e = (*p, sw_index[j]);
                    }
                }
                (Kind::Switch, Kind::Host) => {
                    let e = host_switch.entry(j).or_insert((*pp, sw_index[i]));
                    if *pp < e.0 {
                        *e = (*pp, sw_index[i]);
                    }
                }
                _ => {}
            }
        }
    }
    let mut hosts = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        if n.kind != Kind::Host {
            continue;
        }
        // A host without a link to a switch cannot run a job; skip it.
        if let Some(&(_, sw)) = host_switch.get(&i) {
            hosts.push(Host {
                name: n.desc.clone().unwrap_or_else(|| n.id.clone()),
                switch: sw,
            });
        }
    }
    if hosts.is_empty() {
        return Err(Error::parse(
            path,
            eof,
            "expected at least one Ca or Hca record linked to a switch, found none",
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The example of ibnetdiscover(8), abridged.
    const DUMP: &str = r#"#
# Topology file: generated on Tue Jun  5 14:15:10 2007
#
# Max of 3 hops discovered
# Initiated from node 0008f10403960558 port 0008f10403960559

Non-Chassis Nodes

vendid=0x8f1
devid=0x5a06
sysimgguid=0x5442ba00003000
switchguid=0x5442ba00003080(5442ba00003080)
Switch  24 "S-005442ba00003080"         # "ISR9024 Voltaire" base port 0 lid 6 lmc 0
[22]    "H-0008f10403961354"[1](8f10403961355)         # "MT23108 InfiniHost Mellanox Technologies" lid 4 4xSDR
[10]    "S-0008f10400410015"[1]         # "SW-6IB4 Voltaire" lid 3 4xSDR
[8]     "H-0008f10403960558"[2](8f1040396055a)         # "MT23108 InfiniHost Mellanox Technologies" lid 14 4xSDR
[6]     "S-0008f10400410015"[3]         # "SW-6IB4 Voltaire" lid 3 4xSDR
[12]    "H-0008f10403960558"[1](8f10403960559)         # "MT23108 InfiniHost Mellanox Technologies" lid 10 4xSDR

vendid=0x8f1
devid=0x5a05
switchguid=0x8f10400410015(8f10400410015)
Switch  8 "S-0008f10400410015"          # "SW-6IB4 Voltaire" base port 0 lid 3 lmc 0
[6]     "H-0008f10403960984"[1](8f10403960985)         # "MT23108 InfiniHost Mellanox Technologies" lid 16 4xSDR
[4]     "H-005442b100004900"[1](5442b100004901)        # "MT23108 InfiniHost Mellanox Technologies" lid 12 4xSDR
[1]     "S-005442ba00003080"[10]                # "ISR9024 Voltaire" lid 6 1xSDR
[3]     "S-005442ba00003080"[6]         # "ISR9024 Voltaire" lid 6 4xSDR

vendid=0x2c9
devid=0x5a44
caguid=0x8f10403960984
Ca      2 "H-0008f10403960984"          # "node3 HCA-1"
[1](8f10403960985)      "S-0008f10400410015"[6]         # lid 16 lmc 1 "SW-6IB4 Voltaire" lid 3 4xSDR

vendid=0x2c9
devid=0x5a44
caguid=0x5442b100004900
Ca      2 "H-005442b100004900"          # "node2 HCA-1"
[1](5442b100004901)     "S-0008f10400410015"[4]         # lid 12 lmc 1 "SW-6IB4 Voltaire" lid 3 4xSDR

vendid=0x2c9
devid=0x5a44
caguid=0x8f10403961354
Ca      2 "H-0008f10403961354"          # "node1 HCA-1"
[1](8f10403961355)      "S-005442ba00003080"[22]                # lid 4 lmc 1 "ISR9024 Voltaire" lid 6 4xSDR

vendid=0x2c9
devid=0x5a44
caguid=0x8f10403960558
Ca      2 "H-0008f10403960558"
[2](8f1040396055a)      "S-005442ba00003080"[8]         # lid 14 lmc 1 "ISR9024 Voltaire" lid 6 4xSDR
[1](8f10403960559)      "S-005442ba00003080"[12]                # lid 10 lmc 1 "ISR9024 Voltaire" lid 6 4xSDR
"#;

    #[test]
    fn parses_the_man_page_dump() {
        let f = parse(Path::new("t.ibnet"), DUMP.as_bytes()).unwrap();
        assert_eq!(f.switches.len(), 2);
        assert_eq!(f.switches[0].guid, Some(0x005442ba00003080));
        assert_eq!(f.switches[0].ports, 24);
        // two parallel links, each listed from both ends
        assert_eq!(f.links, vec![(0, 1), (0, 1)]);
        let names: Vec<&str> = f.hosts.iter().map(|h| h.name.as_str()).collect();
        assert_eq!(
            names,
            vec![
                "node3 HCA-1",
                "node2 HCA-1",
                "node1 HCA-1",
                "H-0008f10403960558"
            ]
        );
        let sw: Vec<u32> = f.hosts.iter().map(|h| h.switch).collect();
        assert_eq!(sw, vec![1, 1, 0, 0]);
    }

    #[test]
    fn keeps_node_descriptions_as_labels() {
        // A switch and a host named after `#`; a switch without a
        // description keeps its id as its label.
        let dump = "Switch 4 \"S-0000000000200001\"  # \"Spine1\" base port 0 lid 2 lmc 0\n\
                    [1] \"H-0000000000100000\"[1](100000)  # \"host a HCA-1\" lid 5 4xSDR\n\
                    [2] \"S-00000000002000ff\"[3]\n\
                    \n\
                    Switch 4 \"S-00000000002000ff\"\n\
                    [3] \"S-0000000000200001\"[2]\n\
                    \n\
                    Ca 1 \"H-0000000000100000\"  # \"host a HCA-1\"\n\
                    [1](100000) \"S-0000000000200001\"[1]  # lid 5 lmc 0 \"Spine1\" lid 2 4xSDR\n";
        let f = parse(Path::new("d"), dump.as_bytes()).unwrap();
        let s0 = &f.switches[0];
        assert_eq!(
            (s0.name.as_str(), s0.guid, s0.desc.as_deref(), s0.label()),
            (
                "S-0000000000200001",
                Some(0x200001),
                Some("Spine1"),
                "Spine1"
            )
        );
        let s1 = &f.switches[1];
        assert_eq!(
            (s1.name.as_str(), s1.guid, s1.desc.as_deref(), s1.label()),
            (
                "S-00000000002000ff",
                Some(0x2000ff),
                None,
                "S-00000000002000ff"
            )
        );
        assert_eq!(f.hosts[0].name, "host a HCA-1");
    }

    #[test]
    fn parses_ibsim_net_and_reports_bad_lines() {
        let net = "# c\nSwitch\t8 \"Switch1\"\n[1]\t\"Hca1\"[1]\n[3]\t\"Switch2\" [3]\tw=4\n\nSwitch 8 \"Switch2\"\n[3] \"Switch1\"[3]\n\nHca\t2 \"Hca1\"\n[1]\t\"Switch1\"[1]\n";
        let f = parse(Path::new("n"), net.as_bytes()).unwrap();
        assert_eq!(f.links, vec![(0, 1)]);
        assert_eq!(f.hosts[0].name, "Hca1");
        assert_eq!(f.switches[0].guid, None);
        let e = parse(Path::new("n"), b"Switch 8 \"A\"\n[1] \"B\"[1]\n")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "n:2: expected a Switch, Ca or Hca record for `B`, found none"
        );
        let e = parse(Path::new("n"), b"Switch x \"A\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("n:1: expected a port count"), "{e}");
        let e = parse(Path::new("n"), b"Switch 4 \"A\"\n[1 \"B\"[1]\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("n:2: expected `[port]"), "{e}");
    }
}
