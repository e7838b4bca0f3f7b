//! Slurm's `topology.conf` (topology.conf(5), the tree plugin):
//! `SwitchName=NAME [Switches=HOSTLIST] [Nodes=HOSTLIST] [LinkSpeed=N]`, one
//! switch per line, `#` comments; keys are case-insensitive. `Switches=`
//! names child switches (defined anywhere in the file), `Nodes=` the compute
//! nodes attached, both as hostlist expressions (`tux[0-3,12]`,
//! [`crate::io::hostlist`]).
//!
//! * Switch order: the order of the `SwitchName=` lines (no GUIDs).
//! * Host numbering: the order in which the `Nodes=` values name the hosts,
//!   line by line; a host named again (under another switch) keeps its first
//!   switch.
//! * Links: one per parent–child pair (a pair named from both sides is one
//!   link). Port counts are not in the file; a switch's port count is its
//!   number of links and nodes.
//! * `BlockName=` lines (the block plugin) are refused: they describe no
//!   switch tree.
//!
//! Errors: `PATH:LINE: expected …, found …`. O(bytes + names).

use crate::error::{Error, Result};
use crate::topology::fabric::{FabricKind, Host, Switch};
use crate::topology::fabric_spec::RawFabric;
use std::collections::{HashMap, HashSet};
use std::path::Path;

fn show(s: &str) -> String {
    crate::io::text::show(s.as_bytes())
}

/// Parse a topology.conf.
pub fn parse(path: &Path, bytes: &[u8]) -> Result<RawFabric> {
    let text = String::from_utf8_lossy(bytes);
    // (name, child switch names + line, nodes)
    let mut sw: Vec<(String, Vec<String>, usize)> = Vec::new();
    let mut by_name: HashMap<String, usize> = HashMap::new();
    let mut hosts: Vec<Host> = Vec::new();
    let mut host_seen: HashSet<String> = HashSet::new();
    for (i, raw) in text.lines().enumerate() {
        let ln = i + 1;
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let mut name: Option<String> = None;
        let mut children: Vec<String> = Vec::new();
        let mut nodes: Vec<String> = Vec::new();
        for tok in line.split_whitespace() {
            let Some((k, v)) = tok.split_once('=') else {
                return Err(Error::parse(
                    path,
                    ln,
                    format!("expected KEY=VALUE, found {}", show(tok)),
                ));
            };
            let expand =
                |v: &str| crate::io::hostlist::expand(v).map_err(|m| Error::parse(path, ln, m));
            match k.to_ascii_lowercase().as_str() {
                "switchname" => {
                    if v.is_empty() {
                        return Err(Error::parse(
                            path,
                            ln,
                            "expected a switch name, found an empty one",
                        ));
                    }
                    name = Some(v.to_string())
                }
                "switches" => children.extend(expand(v)?),
                "nodes" => nodes.extend(expand(v)?),
                "linkspeed" => {}
                "blockname" | "blocksizes" => {
                    return Err(Error::parse(
                        path,
                        ln,
                        format!(
                            "expected a tree topology (SwitchName=), found {}",
                            show(tok)
                        ),
                    ));
                }
                _ => {
                    return Err(Error::parse(
                        path,
                        ln,
                        format!(
                            "expected SwitchName=, Switches=, Nodes= or LinkSpeed=, found {}",
                            show(tok)
                        ),
                    ));
                }
            }
        }
        let Some(name) = name else {
            return Err(Error::parse(
                path,
                ln,
                format!("expected SwitchName=NAME, found {}", show(line)),
            ));
        };
        if by_name.contains_key(&name) {
            return Err(Error::parse(
                path,
                ln,
                format!(
                    "expected a new switch name, found {} a second time",
                    show(&name)
                ),
            ));
        }
        let idx = sw.len();
        by_name.insert(name.clone(), idx);
        for n in nodes {
            if host_seen.insert(n.clone()) {
                hosts.push(Host {
                    name: n,
                    switch: idx as u32,
                });
            }
        }
        sw.push((name, children, ln));
    }
    if sw.is_empty() {
        return Err(Error::parse(
            path,
            crate::io::text::eof_line(bytes),
            "expected at least one SwitchName= line, found none",
        ));
    }
    let mut links = Vec::new();
    let mut pairs: HashSet<(u32, u32)> = HashSet::new();
    for (i, (_, children, ln)) in sw.iter().enumerate() {
        for c in children {
            let &j = by_name.get(c).ok_or_else(|| {
                Error::parse(
                    path,
                    *ln,
                    format!("expected a SwitchName= line for {}, found none", show(c)),
                )
            })?;
            if j == i {
                continue;
            }
            let key = (i.min(j) as u32, i.max(j) as u32);
            if pairs.insert(key) {
                links.push((i as u32, j as u32));
            }
        }
    }
    let mut ports = vec![0u32; sw.len()];
    for &(a, b) in &links {
        ports[a as usize] += 1;
        ports[b as usize] += 1;
    }
    for h in &hosts {
        ports[h.switch as usize] += 1;
    }
    if hosts.is_empty() {
        return Err(Error::parse(
            path,
            crate::io::text::eof_line(bytes),
            "expected Nodes= on at least one switch, found none",
        ));
    }
    Ok(RawFabric {
        switches: sw
            .into_iter()
            .zip(ports)
            .map(|((name, _, _), p)| Switch {
                name,
                guid: None,
                desc: None,
                ports: p.max(1),
            })
            .collect(),
        links,
        hosts,
        kind: FabricKind::Irregular,
        default_job: None,
        ca_ports: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example of topology.conf(5).
    const CONF: &str = "##################################################################
# Slurm's network topology configuration file for use with the
# topology/tree plugin
##################################################################
SwitchName=s0 Nodes=dev[0-5]
SwitchName=s1 Nodes=dev[6-11]
SwitchName=s2 Nodes=dev[12-17]
SwitchName=s3 Switches=s[0-2]
";

    #[test]
    fn parses_the_man_page_example() {
        let f = parse(Path::new("topology.conf"), CONF.as_bytes()).unwrap();
        assert_eq!(f.switches.len(), 4);
        assert_eq!(f.links, vec![(3, 0), (3, 1), (3, 2)]);
        assert_eq!(f.hosts.len(), 18);
        assert_eq!(f.hosts[7].name, "dev7");
        assert_eq!(f.hosts[7].switch, 1);
        assert_eq!(f.switches[3].ports, 3);
        let e = parse(Path::new("t"), b"SwitchName=a Switches=b\n")
            .unwrap_err()
            .to_string();
        assert_eq!(e, "t:1: expected a SwitchName= line for `b`, found none");
        let e = parse(Path::new("t"), b"SwitchName=a Nodes=x[1-\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("t:1: expected"), "{e}");
    }
}
