//! `iblinkinfo` output (infiniband-diags), in both of its layouts.
//!
//! * **Sections** (the default): a heading per node, `Switch: 0xGUID desc:`
//!   or `CA: desc:` (`Router: …` sections are skipped), then one line per
//!   port:
//!
//!   ```text
//!              3    1[  ] ==( 4X 2.5 Gbps Active/  LinkUp)==>       4    2[  ] "Leaf0" ( )
//!   0x0000000000100017 18 1[  ] ==( 4X 2.5 Gbps Active/  LinkUp)==>  9  5[  ] "Leaf3" ( )
//!   ```
//!
//!   (`[LOCAL GUID] LID PORT[ext] ==( link )==> PEER-LID PEER-PORT[ext]
//!   "peer desc" ( … )`; a switch's lines give the switch's LID, a CA's its
//!   port GUID and LID). The far end is identified by its LID, so the
//!   listing must come from a subnet with LIDs assigned (any fabric with a
//!   running subnet manager); a far-end LID that no section lists is a CA
//!   port (`--switches-only` output).
//! * **Lines** (`-l`): each port line names both ends, `0xGUID "desc" LID
//!   PORT[ext] ==( … )==> 0xGUID LID PORT[ext] "desc" ( … )`. A GUID
//!   listed on two or more lines is a switch (switches list all their ports,
//!   a CA port GUID has one line); any other GUID is a CA port.
//!
//! Unconnected ports (`==( Down/ Polling)==> [ ] "" ( )`) count towards a
//! switch's port count. Discovery messages, `#` comments and blank lines
//! are skipped. The fabric is built by [`super::port_graph`], so it is the
//! one the plain `ibnetdiscover` dump of the subnet gives. Errors:
//! `PATH:LINE: expected …, found …`. O(bytes · log).

use super::fabric_spec::RawFabric;
use super::port_graph::{self, NodeKind, PortGraph};
use crate::error::{Error, Result};
use std::collections::HashMap;
use std::path::Path;

/// The node a port line belongs to.
#[derive(Clone, Debug)]
enum Local {
    Switch {
        guid: u64,
        desc: String,
    },
    Ca {
        desc: String,
    },
    Router,
    /// Line mode: the line names its node.
    Named {
        guid: u64,
        desc: String,
    },
}

struct Rec {
    ln: usize,
    local: Local,
    /// The local port's GUID (CA lines and line mode).
    guid: Option<u64>,
    lid: u32,
    port: u32,
    /// `(guid, lid, port, desc)` of the far end, when connected.
    peer: Option<(Option<u64>, u32, u32, String)>,
}

/// `s` without its `[…]` groups.
fn strip_brackets(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut depth = 0u32;
    for c in s.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => out.push(' '),
        }
    }
    out
}

/// `[GUID] LID PORT` from the words of one end (brackets removed).
fn guid_lid_port(words: &[&str]) -> Option<(Option<u64>, u32, u32)> {
    let (guid, rest) = match words {
        [g, rest @ ..] if g.starts_with("0x") => (Some(port_graph::parse_guid(g)?), rest),
        _ => (None, words),
    };
    match rest {
        [lid, port] => Some((guid, lid.parse().ok()?, port_graph::parse_port(port)?)),
        _ => None,
    }
}

/// Whether a line looks like iblinkinfo output.
pub fn looks_like(line: &str) -> bool {
    let l = line.trim_start();
    (l.contains("==(") && l.contains(")==>"))
        || l.starts_with("Switch:")
        || l.starts_with("CA:")
        || l.starts_with("Router:")
        || (l.starts_with("Switch 0x"))
}

/// A section heading: the node it opens.
fn heading(line: &str) -> Option<Local> {
    let (word, rest) = line.split_once(|c: char| c == ':' || c.is_whitespace())?;
    let rest = rest.trim_start_matches(':').trim();
    let rest = rest.strip_suffix(':').unwrap_or(rest).trim();
    match word {
        "Switch" => {
            let (g, desc) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            Some(Local::Switch {
                guid: port_graph::parse_guid(g)?,
                desc: desc.trim().to_string(),
            })
        }
        "CA" => {
            // Some versions put the node GUID first.
            let desc = match rest.split_once(char::is_whitespace) {
                Some((g, d)) if port_graph::parse_guid(g).is_some() => d.trim(),
                _ if port_graph::parse_guid(rest).is_some() => "",
                _ => rest,
            };
            Some(Local::Ca {
                desc: desc.to_string(),
            })
        }
        "Router" => Some(Local::Router),
        _ => None,
    }
}

/// Parse one port line (`==(` … `)==>`) under `section` (None: line mode or
/// no heading yet).
fn port_line(line: &str, section: Option<&Local>) -> Option<Rec> {
    let open = line.find("==(")?;
    let close = open + line[open..].find(")==>")?;
    let (left, right) = (&line[..open], &line[close + 4..]);
    // Left end.
    let (local, guid, lid, port) = if let Some(q) = left.find('"') {
        let q2 = q + 1 + left[q + 1..].rfind('"')?;
        let g = port_graph::parse_guid(left[..q].trim())?;
        let desc = left[q + 1..q2].trim().to_string();
        let after = strip_brackets(&left[q2 + 1..]);
        let w: Vec<&str> = after.split_whitespace().collect();
        let (None, lid, port) = guid_lid_port(&w)? else {
            return None;
        };
        (Local::Named { guid: g, desc }, Some(g), lid, port)
    } else {
        let w0 = strip_brackets(left);
        let w: Vec<&str> = w0.split_whitespace().collect();
        let (g, lid, port) = guid_lid_port(&w)?;
        (section?.clone(), g, lid, port)
    };
    // Right end.
    let q = right.find('"')?;
    let q2 = q + 1 + right[q + 1..].rfind('"')?;
    let desc = right[q + 1..q2].trim().to_string();
    let w0 = strip_brackets(&right[..q]);
    let w: Vec<&str> = w0.split_whitespace().collect();
    let peer = if w.is_empty() {
        None
    } else {
        let (g, l, p) = guid_lid_port(&w)?;
        Some((g, l, p, desc))
    };
    Some(Rec {
        ln: 0,
        local,
        guid,
        lid,
        port,
        peer,
    })
}

/// Parse `iblinkinfo` output (either layout).
pub fn parse(path: &Path, bytes: &[u8]) -> Result<RawFabric> {
    let text = String::from_utf8_lossy(bytes);
    let mut recs: Vec<Rec> = Vec::new();
    let mut section: Option<Local> = None;
    for (i, raw) in text.lines().enumerate() {
        let ln = i + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') || port_graph::is_discovery_message(line) {
            continue;
        }
        let found = || crate::io::text::show(line.as_bytes());
        if !line.contains("==(") {
            section = Some(heading(line).ok_or_else(|| {
                Error::parse(
                    path,
                    ln,
                    format!(
                        "expected a `Switch: 0xGUID desc:` or `CA: desc:` heading or a port \
                         line with `==( … )==>`, found {}",
                        found()
                    ),
                )
            })?);
            continue;
        }
        let mut r = port_line(line, section.as_ref()).ok_or_else(|| {
            Error::parse(
                path,
                ln,
                format!(
                    "expected a port line `LID PORT[ ] ==( … )==> LID PORT[ ] \"desc\"` under a \
                     heading, or `0xGUID \"desc\" LID PORT[ ] ==( … )==> 0xGUID LID PORT[ ] \
                     \"desc\"`, found {}",
                    found()
                ),
            )
        })?;
        r.ln = ln;
        recs.push(r);
    }
    let line_mode = recs.iter().any(|r| matches!(r.local, Local::Named { .. }));
    if line_mode {
        if let Some(r) = recs
            .iter()
            .find(|r| !matches!(r.local, Local::Named { .. }))
        {
            return Err(Error::parse(
                path,
                r.ln,
                "expected every port line to name its node (`0xGUID \"desc\" LID PORT`) as the \
                 lines before do, found one that does not",
            ));
        }
        return build_line_mode(path, bytes, &recs);
    }
    build_sections(path, bytes, &recs)
}

/// The node of a section's port line.
fn local_node(g: &mut PortGraph, path: &Path, r: &Rec) -> Result<Option<usize>> {
    match &r.local {
        Local::Switch { guid, desc } => g
            .node(
                path,
                r.ln,
                NodeKind::Switch,
                &format!("SW\0{guid:x}"),
                desc,
                Some(*guid),
            )
            .map(Some),
        Local::Ca { desc } => {
            let (key, name) = port_graph::host_key(desc, r.guid, r.port);
            g.node(path, r.ln, NodeKind::Ca, &key, &name, None)
                .map(Some)
        }
        Local::Router | Local::Named { .. } => Ok(None),
    }
}

fn build_sections(path: &Path, bytes: &[u8], recs: &[Rec]) -> Result<RawFabric> {
    let mut g = PortGraph::default();
    // LID → node, from the sections.
    let mut by_lid: HashMap<u32, (usize, bool)> = HashMap::new(); // (node, is router)
    let mut routers: HashMap<u32, ()> = HashMap::new();
    for r in recs {
        let node = local_node(&mut g, path, r)?;
        let Some(node) = node else {
            routers.insert(r.lid, ());
            continue;
        };
        g.listed(node);
        g.port(node, r.port);
        if r.lid == 0 {
            continue;
        }
        match by_lid.insert(r.lid, (node, false)) {
            Some((other, _)) if other != node => {
                return Err(Error::parse(
                    path,
                    r.ln,
                    format!(
                        "expected each LID on one node, found LID {} on two (was the listing \
                         taken without a subnet manager?)",
                        r.lid
                    ),
                ));
            }
            _ => {}
        }
    }
    for r in recs {
        let Some((_, plid, pport, pdesc)) = &r.peer else {
            continue;
        };
        let Some(a) = local_node(&mut g, path, r)? else {
            continue;
        };
        if routers.contains_key(plid) {
            // Count the router port on a switch, as OpenSM does.
            let rt = g.node(
                path,
                r.ln,
                NodeKind::Router,
                &format!("RT\0lid{plid}"),
                pdesc,
                None,
            )?;
            g.connect(a, r.port, rt, *pport);
            continue;
        }
        let b = match by_lid.get(plid) {
            Some(&(b, _)) => b,
            None if *plid == 0 => {
                return Err(Error::parse(
                    path,
                    r.ln,
                    "expected the far end's LID, found LID 0 (iblinkinfo's sections name the \
                     far end by LID: take the listing on a subnet with a subnet manager, or use \
                     `iblinkinfo -l`)",
                ));
            }
            None => {
                // A CA port without a section of its own.
                let key = format!("CA\0{pdesc}\0lid{plid}");
                let name = if pdesc.is_empty() {
                    format!("lid-{plid}")
                } else {
                    pdesc.clone()
                };
                g.node(path, r.ln, NodeKind::Ca, &key, &name, None)?
            }
        };
        g.connect(a, r.port, b, *pport);
    }
    g.finish(path, crate::io::text::eof_line(bytes))
}

fn build_line_mode(path: &Path, bytes: &[u8], recs: &[Rec]) -> Result<RawFabric> {
    let mut lines_of: HashMap<u64, u32> = HashMap::new();
    for r in recs {
        if let Some(gd) = r.guid {
            *lines_of.entry(gd).or_default() += 1;
        }
    }
    let is_switch = |gd: u64| lines_of.get(&gd).is_some_and(|&n| n >= 2);
    let mut g = PortGraph::default();
    let node_of = |g: &mut PortGraph, ln: usize, gd: u64, desc: &str, port: u32| -> Result<usize> {
        if is_switch(gd) {
            g.node(
                path,
                ln,
                NodeKind::Switch,
                &format!("SW\0{gd:x}"),
                desc,
                Some(gd),
            )
        } else {
            let (key, name) = port_graph::host_key(desc, Some(gd), port);
            g.node(path, ln, NodeKind::Ca, &key, &name, None)
        }
    };
    for r in recs {
        let Local::Named { guid, desc } = &r.local else {
            continue;
        };
        let a = node_of(&mut g, r.ln, *guid, desc, r.port)?;
        g.listed(a);
        g.port(a, r.port);
        let Some((pg, _, pport, pdesc)) = &r.peer else {
            continue;
        };
        let Some(pg) = pg else {
            return Err(Error::parse(
                path,
                r.ln,
                "expected the far end's GUID (`==( … )==> 0xGUID LID PORT`), found none",
            ));
        };
        let b = node_of(&mut g, r.ln, *pg, pdesc, *pport)?;
        g.connect(a, r.port, b, *pport);
    }
    g.finish(path, crate::io::text::eof_line(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECTIONS: &str = r#"CA: n0 HCA-1:
      0x0000000000100001      2    1[  ] ==( 4X           2.5 Gbps Active/  LinkUp)==>       4    3[  ] "Leaf" ( )
Switch: 0x0000000000200002 Leaf:
           4    1[  ] ==( 4X           2.5 Gbps Active/  LinkUp)==>       1    1[  ] "Spine" ( )
           4    3[  ] ==( 4X           2.5 Gbps Active/  LinkUp)==>       2    1[  ] "n0 HCA-1" ( )
           4    4[  ] ==( 4X           2.5 Gbps Active/  LinkUp)==>       7    1[  ] "n1" ( )
           4    5[  ] ==(                Down/ Polling)==>             [  ] "" ( )
Switch: 0x0000000000200000 Spine: a:b:
           1    1[  ] ==( 4X           2.5 Gbps Active/  LinkUp)==>       4    1[  ] "Leaf" ( )
"#;

    #[test]
    fn reads_sections_by_hand() {
        let f = parse(Path::new("l"), SECTIONS.as_bytes()).unwrap();
        let names: Vec<&str> = f.switches.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["S-0000000000200002", "S-0000000000200000"]);
        assert_eq!(f.switches[0].ports, 5);
        assert_eq!(f.switches[0].guid, Some(0x200002));
        assert_eq!(f.links, vec![(0, 1)]);
        // n1 has no section (switches-only output): a host by its LID.
        let hosts: Vec<(&str, u32)> = f
            .hosts
            .iter()
            .map(|h| (h.name.as_str(), h.switch))
            .collect();
        assert_eq!(hosts, [("n0 HCA-1", 0), ("n1", 0)]);
        assert_eq!(f.ca_ports, vec![2, 0]);
    }

    #[test]
    fn reads_line_mode_by_hand() {
        let txt = r#"0x0000000000100001 "      n0"      2    1[  ] ==( 4X 2.5 Gbps Active/  LinkUp)==>  0x0000000000200002      4    3[  ] "Leaf" ( )
0x0000000000200002 "    Leaf"      4    1[  ] ==( 4X 2.5 Gbps Active/  LinkUp)==>  0x0000000000200000      1    1[  ] "Spine" ( )
0x0000000000200002 "    Leaf"      4    3[  ] ==( 4X 2.5 Gbps Active/  LinkUp)==>  0x0000000000100001      2    1[  ] "n0" ( )
0x0000000000200000 "   Spine"      1    1[  ] ==( 4X 2.5 Gbps Active/  LinkUp)==>  0x0000000000200002      4    1[  ] "Leaf" ( )
0x0000000000200000 "   Spine"      1    2[  ] ==(                Down/ Polling)==>             [  ] "" ( )
"#;
        let f = parse(Path::new("l"), txt.as_bytes()).unwrap();
        let names: Vec<&str> = f.switches.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["S-0000000000200002", "S-0000000000200000"]);
        assert_eq!(f.switches[1].ports, 2);
        assert_eq!(f.links, vec![(0, 1)]);
        assert_eq!(f.hosts.len(), 1);
        assert_eq!(f.hosts[0].name, "n0");
    }

    #[test]
    fn errors_name_the_line() {
        let e = parse(
            Path::new("l"),
            b"Switch: 0x1 A:\n  1 1[ ] ==( x )==> 0 1[ ] \"B\" ( )\n",
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("l:2: expected the far end's LID"), "{e}");
        let e = parse(Path::new("l"), b"Switch: 0x1 A:\nhello\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("l:2: expected a `Switch: 0xGUID"), "{e}");
        let e = parse(Path::new("l"), b"  1 1[ ] ==( x )==> 2 1[ ] \"B\" ( )\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("l:1: expected a port line"), "{e}");
    }
}
