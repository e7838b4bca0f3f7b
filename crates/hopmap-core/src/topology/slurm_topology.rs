//! Slurm's `topology.conf` (topology.conf(5), the tree plugin):
//! `SwitchName=NAME [Switches=HOSTLIST] [Nodes=HOSTLIST] [LinkSpeed=N]`, one
//! switch per line, `#` comments; keys are case-insensitive. The syntax is
//! that of Slurm's own parser: blanks may surround `=`, a value may be
//! quoted (`Nodes="tux[0-3]"`), a line ending in `\` continues on the next
//! one, `\#` is a `#` that starts no comment. `Switches=`
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
//! * Disjoint trees (no switch above them all) are read as they are; as
//!   Slurm runs a job within one tree, the fabric keeps the tree of the
//!   job's hosts (`:job=`), and a job across trees is refused.
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

/// The logical lines of a Slurm configuration file, as Slurm's own parser
/// (`parse_config.c`) reads them: `#` starts a comment unless escaped
/// (`\#`), a line ending in an odd number of backslashes continues on the
/// next one, and `\x` stands for `x`. Each comes with the number of its
/// first physical line. O(bytes).
fn logical_lines(text: &str) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut open: Option<(usize, String)> = None;
    for (i, raw) in text.lines().enumerate() {
        // Cut the comment at the first `#` after an even run of backslashes.
        let mut bs = 0usize;
        let mut end = raw.len();
        for (j, c) in raw.char_indices() {
            match c {
                '#' if bs.is_multiple_of(2) => {
                    end = j;
                    break;
                }
                '\\' => bs += 1,
                _ => bs = 0,
            }
        }
        let body = raw[..end].trim_end();
        let trailing = body.len() - body.trim_end_matches('\\').len();
        let (body, continues) = if trailing % 2 == 1 {
            (&body[..body.len() - 1], true)
        } else {
            (body, false)
        };
        let (_, acc) = open.get_or_insert_with(|| (i + 1, String::new()));
        acc.push_str(body);
        if !continues && let Some((ln, acc)) = open.take() {
            out.push((ln, unescape(&acc)));
        }
    }
    if let Some((ln, acc)) = open {
        out.push((ln, unescape(&acc)));
    }
    out
}

/// `\x` → `x` (so `\\` → `\`).
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        out.push(if c == '\\' {
            chars.next().unwrap_or('\\')
        } else {
            c
        });
    }
    out
}

/// The `KEY=VALUE` pairs of a line as Slurm reads them: a key of letters,
/// digits, `_` and `.`, blanks allowed around `=`, a value in double quotes
/// (blanks allowed inside) or up to the next blank. A pair that does not
/// read is the error, with the text found there.
fn key_values(line: &str) -> impl Iterator<Item = std::result::Result<(String, String), &str>> {
    let mut rest = line.trim_start();
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let word = rest.split_whitespace().next().unwrap_or(rest);
        let klen = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
            .unwrap_or(rest.len());
        let after = rest[klen..].trim_start();
        let Some(value) = after.strip_prefix('=').filter(|_| klen > 0) else {
            rest = "";
            return Some(Err(word));
        };
        let key = rest[..klen].to_string();
        let value = value.trim_start();
        let (v, tail) = match value.strip_prefix('"') {
            Some(q) => match q.find('"') {
                Some(e) => (&q[..e], &q[e + 1..]),
                None => {
                    rest = "";
                    return Some(Err(word));
                }
            },
            None => {
                let e = value.find(char::is_whitespace).unwrap_or(value.len());
                (&value[..e], &value[e..])
            }
        };
        rest = tail.trim_start();
        Some(Ok((key, v.to_string())))
    })
}

/// Parse a topology.conf.
pub fn parse(path: &Path, bytes: &[u8]) -> Result<RawFabric> {
    let text = String::from_utf8_lossy(bytes);
    // (name, child switch names + line, nodes)
    let mut sw: Vec<(String, Vec<String>, usize)> = Vec::new();
    let mut by_name: HashMap<String, usize> = HashMap::new();
    let mut hosts: Vec<Host> = Vec::new();
    let mut host_seen: HashSet<String> = HashSet::new();
    for (ln, line) in logical_lines(&text) {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let mut name: Option<String> = None;
        let mut children: Vec<String> = Vec::new();
        let mut nodes: Vec<String> = Vec::new();
        for pair in key_values(line) {
            let (k, v) = pair.map_err(|found| {
                Error::parse(
                    path,
                    ln,
                    format!("expected KEY=VALUE, found {}", show(found)),
                )
            })?;
            let tok = format!("{k}={v}");
            let tok = tok.as_str();
            let v = v.as_str();
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

    /// Slurm's parser allows blanks around `=`, quoted values and lines
    /// continued by a trailing `\` (a long `Nodes=` list): the same tree as
    /// the plain spelling. A quoted value kept its quotes in the host names
    /// (`"tux0`); the others were refused.
    #[test]
    fn reads_slurm_quoting_blanks_and_continued_lines() {
        let plain = parse(
            Path::new("a"),
            b"SwitchName=s0 Nodes=tux[0-3]\nSwitchName=s1 Nodes=tux[4-5],x\nSwitchName=top Switches=s[0-1]\n",
        )
        .unwrap();
        let odd = parse(
            Path::new("b"),
            b"SwitchName = s0 Nodes=\"tux[0-3]\"  # four\n\
              SwitchName=s1 \\\n   Nodes=tux[4-5],\\\nx\n\
              SwitchName=\"top\" Switches= s[0-1] LinkSpeed=1\n",
        )
        .unwrap();
        let names = |f: &RawFabric| f.hosts.iter().map(|h| h.name.clone()).collect::<Vec<_>>();
        assert_eq!(
            names(&odd),
            ["tux0", "tux1", "tux2", "tux3", "tux4", "tux5", "x"]
        );
        assert_eq!(names(&odd), names(&plain));
        assert_eq!(odd.links, plain.links);
        assert_eq!(odd.switches[2].name, "top");
        // An error in a continued line names its first line; `\#` is no comment.
        let e = parse(
            Path::new("c"),
            b"SwitchName=s0 Nodes=a\nSwitchName=s1 \\\n Nodes=b Foo\n",
        )
        .unwrap_err()
        .to_string();
        assert_eq!(e, "c:2: expected KEY=VALUE, found `Foo`");
        let f = parse(Path::new("d"), b"SwitchName=s\\#1 Nodes=a # c\n").unwrap();
        assert_eq!(f.switches[0].name, "s#1");
        let e = parse(Path::new("e"), b"SwitchName=s0 Nodes=\"a b\n")
            .unwrap_err()
            .to_string();
        assert_eq!(e, "e:1: expected KEY=VALUE, found `Nodes=\"a`");
    }
}
