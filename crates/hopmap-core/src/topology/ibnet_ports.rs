//! `ibnetdiscover -p` (infiniband-diags' ports report): one line per port,
//!
//! ```text
//! CA    18  1 0x0000000000100017 4x SDR - SW     9  5 0x0000000000200005 ( 'H11' - 'Leaf3' )
//! SW     3  8 0x0000000000200001 4x SDR                                    'Spine1'
//! ```
//!
//! that is `TYPE LID PORT GUID WIDTH SPEED`, then either `- TYPE LID PORT
//! GUID ( 'desc' - 'peer desc' )` for a connected port or `'desc'` for an
//! unconnected one. TYPE is `CA`, `SW` or `RT`; a switch's GUID is its node
//! GUID, a CA's its port GUID. The width and speed words are not read.
//! Discovery messages (`ibwarn: …`, lines naming a `DR path`), `#` comments
//! and blank lines are skipped wherever they are.
//!
//! The fabric is built by [`super::port_graph`]: it is the one the plain
//! `ibnetdiscover` dump of the same subnet gives. Errors: `PATH:LINE:
//! expected …, found …`. O(bytes).

use super::fabric_spec::RawFabric;
use super::port_graph::{self, NodeKind, PortGraph};
use crate::error::{Error, Result};
use std::path::Path;

/// Whitespace-separated tokens with their byte offsets.
fn tokens(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        if c.is_whitespace() {
            if let Some(s) = start.take() {
                out.push((s, &line[s..i]));
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        out.push((s, &line[s..]));
    }
    out
}

fn kind(t: &str) -> Option<NodeKind> {
    match t {
        "CA" => Some(NodeKind::Ca),
        "SW" => Some(NodeKind::Switch),
        "RT" => Some(NodeKind::Router),
        _ => None,
    }
}

/// One end as listed: kind, port, GUID.
type End = (NodeKind, u32, u64);

/// `TYPE LID PORT GUID` at `t[i..]`.
fn end_at(t: &[(usize, &str)], i: usize) -> Option<End> {
    let k = kind(t.get(i)?.1)?;
    let lid = t.get(i + 1)?.1;
    if lid.is_empty() || !lid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let port = port_graph::parse_port(t.get(i + 2)?.1)?;
    let guid = port_graph::parse_guid(t.get(i + 3)?.1)?;
    Some((k, port, guid))
}

/// A quoted description `'…'` (trimmed first), its content.
fn unquote(s: &str) -> Option<&str> {
    let s = s.trim();
    s.strip_prefix('\'')?.strip_suffix('\'')
}

/// Whether the content looks like a ports report (its first data line is
/// one).
pub fn looks_like(line: &str) -> bool {
    let t = tokens(line);
    end_at(&t, 0).is_some()
}

fn add_end(
    g: &mut PortGraph,
    path: &Path,
    ln: usize,
    (k, port, guid): End,
    desc: &str,
) -> Result<usize> {
    match k {
        NodeKind::Switch => {
            let key = format!("SW\0{guid:x}");
            g.node(path, ln, k, &key, desc, Some(guid))
        }
        NodeKind::Ca => {
            let (key, name) = port_graph::host_key(desc, Some(guid), port);
            g.node(path, ln, k, &key, &name, None)
        }
        NodeKind::Router => {
            let key = format!("RT\0{guid:x}");
            g.node(path, ln, k, &key, desc, None)
        }
    }
}

/// Parse an `ibnetdiscover -p` listing.
pub fn parse(path: &Path, bytes: &[u8]) -> Result<RawFabric> {
    let text = String::from_utf8_lossy(bytes);
    let mut g = PortGraph::default();
    for (i, raw) in text.lines().enumerate() {
        let ln = i + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') || port_graph::is_discovery_message(line) {
            continue;
        }
        let bad = || {
            Error::parse(
                path,
                ln,
                format!(
                    "expected a port line `SW|CA|RT LID PORT GUID WIDTH SPEED …`, found {}",
                    crate::io::text::show(line.as_bytes())
                ),
            )
        };
        let t = tokens(line);
        let local = end_at(&t, 0).ok_or_else(bad)?;
        // The peer: `- TYPE LID PORT GUID (` after the width and speed words.
        let peer = (4..t.len()).find_map(|j| {
            if t[j].1 != "-" {
                return None;
            }
            let e = end_at(&t, j + 1)?;
            let open = t.get(j + 5)?;
            open.1.starts_with('(').then_some((e, open.0))
        });
        match peer {
            Some((pe, at)) => {
                let inner = line[at + 1..]
                    .trim()
                    .strip_suffix(')')
                    .ok_or_else(bad)?
                    .trim();
                let inner = inner
                    .strip_prefix('\'')
                    .and_then(|s| s.strip_suffix('\''))
                    .ok_or_else(bad)?;
                let (da, db) = inner.split_once("' - '").ok_or_else(bad)?;
                let a = add_end(&mut g, path, ln, local, da)?;
                g.listed(a);
                let b = add_end(&mut g, path, ln, pe, db)?;
                g.connect(a, local.1, b, pe.1);
            }
            None => {
                // An unconnected port: `… WIDTH SPEED 'desc'` (or no words).
                let desc = t
                    .iter()
                    .skip(4)
                    .find(|x| x.1.starts_with('\''))
                    .map(|x| unquote(&line[x.0..]).ok_or_else(bad))
                    .transpose()?
                    .unwrap_or("");
                let a = add_end(&mut g, path, ln, local, desc)?;
                g.listed(a);
                g.port(a, local.1);
            }
        }
    }
    g.finish(path, crate::io::text::eof_line(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_hand_checked_listing() {
        let txt = "\
ibwarn: [3356] mad_rpc: _do_madrpc failed; dport (DR path slid 0; dlid 0; 0,1,24)
CA     2  1 0x0000000000100001 4x SDR - SW     4  3 0x0000000000200002 ( 'n0 HCA-1' - 'Leaf' )
CA     5  2 0x0000000000100006 4x SDR - SW     4  4 0x0000000000200002 ( '' - 'Leaf' )
SW     4  1 0x0000000000200002 4x SDR - SW     1  1 0x0000000000200000 ( 'Leaf' - 'Spine' )
SW     4  2 0x0000000000200002 4x SDR - SW     1  2 0x0000000000200000 ( 'Leaf' - 'Spine' )
SW     1  1 0x0000000000200000 4x SDR - SW     4  1 0x0000000000200002 ( 'Spine' - 'Leaf' )
SW     1  8 0x0000000000200000 4x SDR                                    'Spine'
";
        let f = parse(Path::new("p"), txt.as_bytes()).unwrap();
        let names: Vec<&str> = f.switches.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["S-0000000000200002", "S-0000000000200000"]);
        assert_eq!(f.switches[1].ports, 8);
        assert_eq!(f.switches[0].ports, 4);
        // Two parallel cables; port 1's is listed from both ends.
        assert_eq!(f.links, vec![(0, 1), (0, 1)]);
        let hosts: Vec<(&str, u32)> = f
            .hosts
            .iter()
            .map(|h| (h.name.as_str(), h.switch))
            .collect();
        assert_eq!(hosts, [("n0 HCA-1", 0), ("H-0000000000100004", 0)]);
        assert_eq!(f.ca_ports, vec![2, 0]);
    }

    #[test]
    fn bad_lines_name_their_line() {
        let e = parse(
            Path::new("p"),
            b"SW 1 1 0x1 4x SDR - SW 2 1 0x2 ( 'a' - 'b' )\nCA x\n",
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("p:2: expected a port line"), "{e}");
        let e = parse(
            Path::new("p"),
            b"SW 1 1 0x1 4x SDR - SW 2 1 0x2 ( 'a' - 'b' )\n",
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            e,
            "p:1: expected at least one CA port linked to a switch, found none"
        );
        let e = parse(
            Path::new("p"),
            b"SW 1 1 0x1 4x SDR - SW 2 1 0x2 ( 'a'  'b' )\n",
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("p:1: expected a port line"), "{e}");
    }
}
