//! Fabric spec strings and the options every fabric source takes.
//!
//! Sources:
//! * `fabric:S,H,k,r[,seed]` — Moh et al.'s random fabric ([`super::moh`]);
//! * `fabric:moh-fig2` — the paper's Fig. 2 example ([`super::moh_fig2`]);
//! * `fattree:K[:L]` ([`super::fattree`]), `dragonfly:A,P,H[,G]`
//!   ([`super::dragonfly`]);
//! * `ibnetdiscover:PATH`, `slurm:PATH`, or a bare `PATH` whose format is
//!   detected from its content ([`detect`]): an ibnetdiscover dump
//!   ([`super::ibnetdiscover`]), `ibnetdiscover -p`
//!   ([`super::ibnet_ports`]), `iblinkinfo` ([`super::iblinkinfo`]) or
//!   Slurm's topology.conf ([`super::slurm_topology`]). `ibnetdiscover:`
//!   takes any of the three InfiniBand listings.
//!
//! Options, appended as `:key=value`:
//! * `cores=N` — process slots per host (default 1);
//! * `root=NAME|GUID[,…]` — the up*/down* root switch(es) (default: the
//!   roots OpenSM's updn engine detects, [`crate::routing::opensm_roots`], or
//!   when it finds none the root of the minimum-height BFS tree);
//!   `roots=FILE` — a file of root GUIDs, one per line, as OpenSM's `-a`
//!   takes it;
//! * `job=N|all|HOSTLIST` — the job's hosts: the first N, every host, or the
//!   hosts named by a hostlist expression (`tux[0-3,12],tux20`); they keep
//!   the host numbering order. Default: every host (for `moh-fig2`, its 16
//!   member processors);
//! * `sort=name` — number hosts by name (byte order), as a sorted hostfile
//!   would; default `sort=file`: the source's host order.
//!
//! **Switch order** (which breaks the routing's ties): ascending GUID when
//! every switch has one (the links are then sorted by their ends), else the
//! source's switch order. **Host order**: the
//! source's host records (see the readers) unless `sort=name`.

use super::fabric::{Fabric, FabricDesc, FabricKind, Host, Switch};
use super::{Topology, dragonfly, fattree, moh, moh_fig2};
use crate::error::{Error, Result};
use std::path::Path;

/// A fabric as a source describes it, before options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RawFabric {
    pub switches: Vec<Switch>,
    pub links: Vec<(u32, u32)>,
    /// Every host, in the source's host order.
    pub hosts: Vec<Host>,
    pub kind: FabricKind,
    /// The source's own default job (indices into `hosts`), if any.
    pub default_job: Option<Vec<usize>>,
    /// CA and router ports cabled to each switch, when the source lists
    /// ports (empty: count the hosts). OpenSM's root detection counts these.
    pub ca_ports: Vec<u32>,
}

const OPTION_KEYS: [&str; 5] = ["cores", "root", "roots", "job", "sort"];

/// Parse a fabric spec; `Ok(None)` when `spec` is not a fabric spec (so the
/// caller tries mesh/torus).
pub fn parse_fabric(spec: &str) -> Result<Option<Topology>> {
    let spec = spec.trim();
    // Peel `:key=value` options off the end.
    let mut head = spec;
    let mut opts: Vec<(&str, &str)> = Vec::new();
    while let Some(i) = head.rfind(':') {
        let seg = &head[i + 1..];
        match seg.split_once('=') {
            Some((k, v)) if OPTION_KEYS.contains(&k.trim()) => {
                opts.push((k.trim(), v.trim()));
                head = &head[..i];
            }
            _ => break,
        }
    }
    opts.reverse();
    let opt_str: String = opts.iter().map(|(k, v)| format!(":{k}={v}")).collect();
    let (kind, body) = head.split_once(':').unwrap_or((head, ""));
    let kind_l = kind.to_ascii_lowercase();
    let (raw, canon) = match kind_l.as_str() {
        "fabric" if body.eq_ignore_ascii_case("moh-fig2") => {
            (moh_fig2::generate(), "fabric:moh-fig2".to_string())
        }
        "fabric" => {
            let p = moh::MohParams::parse(spec, body)?;
            (moh::generate(&p)?, p.spec())
        }
        "fattree" => {
            let mut it = body.split(':');
            let k = it.next().unwrap_or("").trim();
            let l = it.next().map(str::trim);
            let bad = |m: String| Error::spec("topology", spec, m);
            if it.next().is_some() {
                return Err(bad(format!("expected fattree:K[:L], found `{head}`")));
            }
            let k: u32 = k.parse().map_err(|_| {
                bad(format!(
                    "expected fattree:K[:L] with a port count K, found `{k}`"
                ))
            })?;
            let l: u32 = match l {
                Some(l) => l
                    .parse()
                    .map_err(|_| bad(format!("expected a level count L, found `{l}`")))?,
                None => 3,
            };
            (fattree::generate(spec, k, l)?, format!("fattree:{k}:{l}"))
        }
        "dragonfly" => (
            dragonfly::generate(spec, body)?,
            format!("dragonfly:{body}"),
        ),
        "ibnetdiscover" | "ibnet" => {
            let path = Path::new(body);
            let ib = |k: FileKind| {
                matches!(
                    k,
                    FileKind::Ibnet | FileKind::IbnetPorts | FileKind::Linkinfo
                )
            };
            let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
            let kind = Some(detect(&bytes))
                .filter(|&k| ib(k))
                .unwrap_or(FileKind::Ibnet);
            (
                parse_bytes(path, &bytes, Some(kind))?,
                format!("ibnetdiscover:{body}"),
            )
        }
        "slurm" => {
            let path = Path::new(body);
            (read(path, Some(FileKind::Slurm))?, format!("slurm:{body}"))
        }
        "mesh" | "torus" | "bgp" => return Ok(None),
        _ => {
            let path = Path::new(head);
            if head.is_empty() || !path.is_file() {
                return Ok(None);
            }
            (read(path, None)?, head.to_string())
        }
    };
    let spec_full = format!("{canon}{opt_str}");
    let fabric = finish(raw, &opts, &spec_full)?;
    Ok(Some(Topology::Fabric(fabric)))
}

/// The fabric file formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// `ibnetdiscover`'s dump (and ibsim's net files).
    Ibnet,
    /// `ibnetdiscover -p`, one line per port.
    IbnetPorts,
    /// `iblinkinfo` (sections or `-l` lines).
    Linkinfo,
    /// Slurm's `topology.conf`.
    Slurm,
}

/// Read a fabric file, detecting its format from its content unless forced.
pub fn read(path: &Path, kind: Option<FileKind>) -> Result<RawFabric> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    parse_bytes(path, &bytes, kind)
}

/// Parse fabric file content (detection as in [`read`]).
pub fn parse_bytes(path: &Path, bytes: &[u8], kind: Option<FileKind>) -> Result<RawFabric> {
    let kind = kind.unwrap_or_else(|| detect(bytes));
    match kind {
        FileKind::Ibnet => super::ibnetdiscover::parse(path, bytes),
        FileKind::IbnetPorts => super::ibnet_ports::parse(path, bytes),
        FileKind::Linkinfo => super::iblinkinfo::parse(path, bytes),
        FileKind::Slurm => super::slurm_topology::parse(path, bytes),
    }
}

/// The format of a fabric file, from its first line that is not blank, a
/// `#` comment or a discovery message (`ibwarn: …`, `… DR path …`):
/// `SwitchName=`/`BlockName=` is Slurm's topology.conf; a port line `SW|CA|RT
/// LID PORT 0xGUID …` is `ibnetdiscover -p`; a `Switch: 0x…`/`CA: …`
/// heading or a line with `==( … )==>` is `iblinkinfo`; anything else is
/// read as the plain ibnetdiscover dump.
pub fn detect(bytes: &[u8]) -> FileKind {
    for line in bytes.split(|&b| b == b'\n') {
        let t = line.trim_ascii();
        let text = String::from_utf8_lossy(t);
        if t.is_empty() || t.starts_with(b"#") || super::port_graph::is_discovery_message(&text) {
            continue;
        }
        let lower = t.to_ascii_lowercase();
        if lower.starts_with(b"switchname=") || lower.starts_with(b"blockname=") {
            return FileKind::Slurm;
        }
        if super::ibnet_ports::looks_like(&text) {
            return FileKind::IbnetPorts;
        }
        if super::iblinkinfo::looks_like(&text) {
            return FileKind::Linkinfo;
        }
        return FileKind::Ibnet;
    }
    FileKind::Ibnet
}

fn parse_guid(s: &str) -> Option<u64> {
    let t = s.trim();
    let hex = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X"))?;
    u64::from_str_radix(hex, 16).ok()
}

/// Apply switch ordering and the options, and build the fabric.
pub fn finish(mut raw: RawFabric, opts: &[(&str, &str)], spec: &str) -> Result<Fabric> {
    let bad = |m: String| Error::spec("topology", spec, m);
    // Switch order: ascending GUID when every switch has one.
    if !raw.switches.is_empty() && raw.switches.iter().all(|s| s.guid.is_some()) {
        let mut order: Vec<usize> = (0..raw.switches.len()).collect();
        order.sort_by_key(|&i| raw.switches[i].guid);
        let mut new_of = vec![0u32; order.len()];
        for (new, &old) in order.iter().enumerate() {
            new_of[old] = new as u32;
        }
        raw.switches = order.iter().map(|&i| raw.switches[i].clone()).collect();
        for l in &mut raw.links {
            let (a, b) = (new_of[l.0 as usize], new_of[l.1 as usize]);
            *l = (a.min(b), a.max(b));
        }
        // Links in switch order, so that every listing of one subnet (the
        // dump, `-p`, iblinkinfo) gives the same link numbering.
        raw.links.sort_unstable();
        if !raw.ca_ports.is_empty() {
            raw.ca_ports = order
                .iter()
                .map(|&i| raw.ca_ports.get(i).copied().unwrap_or(0))
                .collect();
        }
        for h in &mut raw.hosts {
            h.switch = new_of[h.switch as usize];
        }
        if let FabricKind::FatTree { top } = &mut raw.kind {
            for t in top.iter_mut() {
                *t = new_of[*t as usize];
            }
        }
    }
    let mut cores = 1u32;
    let mut root_names: Vec<String> = Vec::new();
    let mut job: Option<&str> = None;
    let mut sort_name = false;
    for &(k, v) in opts {
        match k {
            "cores" => {
                cores = v
                    .parse()
                    .ok()
                    .filter(|c| (1..=1024).contains(c))
                    .ok_or_else(|| bad(format!("expected cores in 1..=1024, found `{v}`")))?
            }
            "root" => root_names.extend(v.split(',').map(|s| s.trim().to_string())),
            "roots" => {
                let p = Path::new(v);
                let text = std::fs::read_to_string(p).map_err(|e| Error::io(p, e))?;
                for (i, line) in text.lines().enumerate() {
                    let t = line.split('#').next().unwrap_or("").trim();
                    if t.is_empty() {
                        continue;
                    }
                    if parse_guid(t).is_none() {
                        return Err(Error::parse(
                            p,
                            i + 1,
                            format!("expected a root GUID such as 0x0002c90300a10021, found `{t}`"),
                        ));
                    }
                    root_names.push(t.to_string());
                }
            }
            "job" => job = Some(v),
            "sort" => match v.to_ascii_lowercase().as_str() {
                "name" => sort_name = true,
                "file" | "none" => sort_name = false,
                _ => return Err(bad(format!("expected sort=name or sort=file, found `{v}`"))),
            },
            _ => {}
        }
    }
    // Host order.
    let mut host_order: Vec<usize> = (0..raw.hosts.len()).collect();
    if sort_name {
        host_order.sort_by(|&a, &b| raw.hosts[a].name.cmp(&raw.hosts[b].name));
    }
    // Job selection (indices into raw.hosts), in host order.
    let selected: Vec<usize> = match job {
        None => match &raw.default_job {
            Some(j) => {
                let mut keep = vec![false; raw.hosts.len()];
                for &i in j {
                    keep[i] = true;
                }
                host_order.iter().copied().filter(|&i| keep[i]).collect()
            }
            None => host_order.clone(),
        },
        Some(v) if v.eq_ignore_ascii_case("all") => host_order.clone(),
        Some(v) if v.bytes().all(|b| b.is_ascii_digit()) => {
            let n: usize = v
                .parse()
                .map_err(|_| bad(format!("expected a host count, found `{v}`")))?;
            if n == 0 || n > host_order.len() {
                return Err(bad(format!(
                    "expected a job of 1..={} hosts, found {n}",
                    host_order.len()
                )));
            }
            host_order[..n].to_vec()
        }
        Some(v) => {
            let names = crate::io::hostlist::expand(v).map_err(bad)?;
            let mut by_name = std::collections::HashMap::new();
            for (i, h) in raw.hosts.iter().enumerate() {
                by_name.entry(h.name.as_str()).or_insert(i);
            }
            let mut keep = vec![false; raw.hosts.len()];
            for n in &names {
                let &i = by_name
                    .get(n.as_str())
                    .ok_or_else(|| bad(format!("expected job hosts of the fabric, found `{n}`")))?;
                keep[i] = true;
            }
            host_order.iter().copied().filter(|&i| keep[i]).collect()
        }
    };
    let selected = keep_jobs_tree(&mut raw, selected, spec)?;
    let mut idle = vec![0u32; raw.switches.len()];
    let mut in_job = vec![false; raw.hosts.len()];
    for &i in &selected {
        in_job[i] = true;
    }
    for (i, h) in raw.hosts.iter().enumerate() {
        if !in_job[i]
            && let Some(c) = idle.get_mut(h.switch as usize)
        {
            *c += 1;
        }
    }
    // Roots.
    let mut roots = Vec::new();
    for r in &root_names {
        let g = parse_guid(r);
        let idx = raw
            .switches
            .iter()
            .position(|s| (g.is_some() && s.guid == g) || s.name == *r)
            .ok_or_else(|| bad(format!("expected a root switch name or GUID, found `{r}`")))?;
        roots.push(idx as u32);
    }
    let hosts: Vec<Host> = selected.iter().map(|&i| raw.hosts[i].clone()).collect();
    Fabric::new(FabricDesc {
        spec: spec.to_string(),
        switches: raw.switches,
        links: raw.links,
        hosts,
        idle_hosts: idle,
        cores,
        roots,
        kind: raw.kind,
        ca_ports: raw.ca_ports,
    })
}

/// On a fabric of several disjoint switch trees (Slurm's topology.conf
/// allows them; Slurm then runs a job within one tree), keep the tree of
/// the job's hosts and drop the others; `selected` (indices into
/// `raw.hosts`) comes back renumbered. A job across trees is refused with
/// each tree's hosts, so the user can choose one with `:job=`. A connected
/// fabric is left as it is. O(switches + links + hosts).
fn keep_jobs_tree(raw: &mut RawFabric, selected: Vec<usize>, spec: &str) -> Result<Vec<usize>> {
    let s = raw.switches.len();
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); s];
    for &(a, b) in &raw.links {
        if let (Some(_), Some(_)) = (adj.get(a as usize), adj.get(b as usize)) {
            adj[a as usize].push(b as usize);
            adj[b as usize].push(a as usize);
        }
    }
    // Tree of each switch, numbered in switch order.
    let mut tree = vec![usize::MAX; s];
    let mut trees = 0;
    for start in 0..s {
        if tree[start] != usize::MAX {
            continue;
        }
        tree[start] = trees;
        let mut stack = vec![start];
        while let Some(v) = stack.pop() {
            for &w in &adj[v] {
                if tree[w] == usize::MAX {
                    tree[w] = trees;
                    stack.push(w);
                }
            }
        }
        trees += 1;
    }
    let tree_of_host = |h: usize| {
        raw.hosts
            .get(h)
            .and_then(|x| tree.get(x.switch as usize))
            .copied()
            .unwrap_or(usize::MAX)
    };
    if trees <= 1 {
        return Ok(selected);
    }
    let mut job_trees: Vec<usize> = selected.iter().map(|&h| tree_of_host(h)).collect();
    job_trees.sort_unstable();
    job_trees.dedup();
    if job_trees.is_empty() {
        return Ok(selected);
    }
    let [keep] = job_trees[..] else {
        // A switch without hosts (a lone spare switch) is no tree a job
        // could use: the listing names the trees with hosts.
        let mut used: Vec<usize> = (0..raw.hosts.len()).map(tree_of_host).collect();
        used.sort_unstable();
        used.dedup();
        let listing: Vec<String> = used
            .iter()
            .map(|&t| {
                let names: Vec<&str> = (0..raw.hosts.len())
                    .filter(|&h| tree_of_host(h) == t)
                    .map(|h| raw.hosts[h].name.as_str())
                    .collect();
                let first = names.first().copied().unwrap_or("");
                let last = names.last().copied().unwrap_or("");
                let top = tree
                    .iter()
                    .position(|&x| x == t)
                    .map_or("", |i| raw.switches[i].name.as_str());
                format!(
                    "switch {top}'s tree: {} hosts, {first} … {last}",
                    names.len()
                )
            })
            .collect();
        return Err(Error::spec(
            "topology",
            spec,
            format!(
                "expected the job's hosts in one switch tree (Slurm runs a job within one), found them in {} disjoint trees ({}); choose one tree's hosts with :job=HOSTLIST",
                job_trees.len(),
                listing.join("; ")
            ),
        ));
    };
    let mut new_switch = vec![u32::MAX; s];
    let mut switches = Vec::new();
    let mut ca_ports = Vec::new();
    for (i, sw) in raw.switches.iter().enumerate() {
        if tree[i] == keep {
            new_switch[i] = switches.len() as u32;
            switches.push(sw.clone());
            if let Some(&c) = raw.ca_ports.get(i) {
                ca_ports.push(c);
            }
        }
    }
    let mut new_host = vec![usize::MAX; raw.hosts.len()];
    let mut hosts = Vec::new();
    for (h, host) in raw.hosts.iter().enumerate() {
        let sw = new_switch
            .get(host.switch as usize)
            .copied()
            .unwrap_or(u32::MAX);
        if sw != u32::MAX {
            new_host[h] = hosts.len();
            hosts.push(Host {
                name: host.name.clone(),
                switch: sw,
            });
        }
    }
    raw.links = raw
        .links
        .iter()
        .filter_map(|&(a, b)| {
            let a = new_switch.get(a as usize).copied().unwrap_or(u32::MAX);
            let b = new_switch.get(b as usize).copied().unwrap_or(u32::MAX);
            (a != u32::MAX && b != u32::MAX).then_some((a, b))
        })
        .collect();
    if let FabricKind::FatTree { top } = &mut raw.kind {
        *top = top
            .iter()
            .map(|&t| new_switch.get(t as usize).copied().unwrap_or(u32::MAX))
            .filter(|&t| t != u32::MAX)
            .collect();
    }
    if raw.ca_ports.len() == s {
        raw.ca_ports = ca_ports;
    }
    raw.switches = switches;
    raw.hosts = hosts;
    raw.default_job = None;
    Ok(selected.iter().map(|&h| new_host[h]).collect())
}
