//! Launcher mapping files: how a computed mapping is handed to the job
//! launcher. Writers and parsers (the parsers exist for round-trip checks
//! and for reading a mapping back into `eval`). O(n) each.
//!
//! * `plain`: `rank node core` per line, after a `#` header comment.
//! * `bgp`: the Blue Gene/P mapfile (`BG_MAPPING=FILE`, Balaji et al. §2.2):
//!   line `r` holds the torus coordinates of rank `r` and its core, `x y z t`
//!   (N-dimensional grids: N coordinates, then t).
//! * `mpich`: Cray's `MPICH_RANK_ORDER` file (`MPICH_RANK_REORDER_METHOD=3`):
//!   the comma-separated rank list in node-then-core order; the launcher fills
//!   each node's cores with the next ranks of the list. It has no way to
//!   express an empty slot, so a mapping that leaves holes (fewer processes
//!   than slots, not packed) is written packed: its order is kept, its holes
//!   are not. The parser accepts `a-b` ranges and `#` comments, as Cray does.
//! * `rankfile`: the Open MPI rankfile, `rank R=HOST slot=S`, host names from
//!   a list (one per node, in node order) or a pattern such as `node%d`.
//!   Open MPI 4.1 takes it as `mpirun --hostfile H --rankfile FILE`, Open
//!   MPI 5 (PRRTE) as `mpirun --hostfile H --map-by rankfile:file=FILE`; the
//!   slot is the core's logical index on its host.
//! * `slurm`: a `SLURM_HOSTFILE` for `srun --distribution=arbitrary`: line
//!   `r` names rank `r`'s host (Slurm reads `#` to the end of a line as a
//!   comment and takes the names in order, one task each). It names hosts,
//!   not cores: Slurm binds a node's tasks in their rank order.
//! * `hydra`: a machinefile for MPICH's and Intel MPI's Hydra launcher
//!   (`mpiexec -f FILE -n N`): `host:count` lines in rank order, each line
//!   a run of consecutive ranks on one host (Hydra fills each line's count
//!   with the next ranks; it merges a line into the one before only when the
//!   host is the same, so a host may appear on several lines). Each line
//!   carries `binding=user:c0,c1,…`, the cores of its ranks in order.
//!
//! Nodes that share a host name are one host: a host with several HCAs is
//! a node of the fabric per HCA (`node7 HCA-1`, `node7 HCA-2`). Its slots
//! are those of its nodes in node order: the k-th node named `node7` has
//! the host's slots k·cores … k·cores + cores − 1, which is what the
//! rankfile's `slot=` and Hydra's `binding=user:` say, and the k-th rank
//! a Slurm or Hydra file puts on the host without a binding takes slot k.

use crate::error::{Error, Result};
use crate::mapping::Mapping;
use crate::topology::Topology;
use std::collections::HashMap;
use std::io::{self, Write};
use std::path::Path;

/// A launcher file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LauncherFormat {
    /// `rank node core` per line.
    Plain,
    /// Blue Gene/P mapfile: `x y z t` per rank.
    Bgp,
    /// Cray `MPICH_RANK_ORDER`: comma-separated ranks in node-then-core order.
    Mpich,
    /// Open MPI rankfile: `rank R=HOST slot=S`.
    Rankfile,
    /// Slurm `SLURM_HOSTFILE` for `srun --distribution=arbitrary`: one host per rank.
    Slurm,
    /// MPICH / Intel MPI Hydra machinefile: `host:count` lines in rank order.
    Hydra,
}

impl LauncherFormat {
    /// Every format, in the order a help text lists them.
    pub const ALL: [LauncherFormat; 6] = [
        LauncherFormat::Plain,
        LauncherFormat::Bgp,
        LauncherFormat::Mpich,
        LauncherFormat::Rankfile,
        LauncherFormat::Slurm,
        LauncherFormat::Hydra,
    ];

    /// The name a command line uses (`plain`, `bgp`, `mpich`, `rankfile`,
    /// `slurm`, `hydra`).
    pub fn name(self) -> &'static str {
        match self {
            LauncherFormat::Plain => "plain",
            LauncherFormat::Bgp => "bgp",
            LauncherFormat::Mpich => "mpich",
            LauncherFormat::Rankfile => "rankfile",
            LauncherFormat::Slurm => "slurm",
            LauncherFormat::Hydra => "hydra",
        }
    }

    /// Whether the format names hosts (and so needs a name for every node).
    pub fn names_hosts(self) -> bool {
        matches!(
            self,
            LauncherFormat::Rankfile | LauncherFormat::Slurm | LauncherFormat::Hydra
        )
    }
}

/// Host names of the nodes, for rankfiles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostNames {
    /// A pattern with one `%d` (or `%0Nd`, zero-padded to N digits) replaced
    /// by the node id, e.g. `node%d`.
    Pattern(String),
    /// One name per node, in node order.
    List(Vec<String>),
}

impl Default for HostNames {
    fn default() -> Self {
        HostNames::Pattern("node%d".into())
    }
}

impl HostNames {
    /// Read a host list file: one name per line, blank lines and `#`
    /// comments skipped.
    pub fn from_file(path: &Path) -> Result<Self> {
        let bytes = super::read_bytes(path)?;
        let text = String::from_utf8(bytes).map_err(|e| {
            Error::io(
                path,
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("expected UTF-8 text: {e}"),
                ),
            )
        })?;
        let mut names: Vec<String> = Vec::new();
        let mut seen = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            let l = line.split('#').next().unwrap_or("").trim();
            if l.is_empty() {
                continue;
            }
            if l.split_whitespace().count() != 1 {
                return Err(Error::parse(
                    path,
                    i + 1,
                    format!("expected one host name per line, found `{l}`"),
                ));
            }
            if let Some(prev) = seen.insert(l.to_string(), i + 1) {
                return Err(Error::parse(
                    path,
                    i + 1,
                    format!("expected distinct host names, found `{l}` again (line {prev})"),
                ));
            }
            names.push(l.to_string());
        }
        Ok(HostNames::List(names))
    }

    /// The host names of a fabric's nodes: the first word of each node
    /// description (`node7 HCA-1` is host `node7`). Nodes whose
    /// descriptions differ but begin alike are one host with several HCAs;
    /// two nodes of one whole description (firmware defaults such as
    /// `MT23108 InfiniHost Mellanox Technologies` on every HCA) cannot be
    /// told apart, and are refused. O(nodes).
    pub fn from_descriptions<'a>(descs: impl IntoIterator<Item = &'a str>) -> Result<Self> {
        let mut seen: HashMap<&str, usize> = HashMap::new();
        let mut names = Vec::new();
        for (i, d) in descs.into_iter().enumerate() {
            let host = d.split_whitespace().next().unwrap_or("");
            if let Some(j) = seen.insert(d, i) {
                return Err(Error::Unsupported(format!(
                    "the host name `{host}` names nodes {j} and {i}, whose node descriptions \
                     are both `{d}`: they cannot be told apart"
                )));
            }
            names.push(host.to_string());
        }
        Ok(HostNames::List(names))
    }

    /// Check a pattern (exactly one `%d` or `%0Nd`).
    pub fn pattern(p: &str) -> Result<Self> {
        split_pattern(p)?;
        Ok(HostNames::Pattern(p.to_string()))
    }

    /// Check that every node of `topo` has a name.
    pub fn check(&self, topo: &Topology) -> Result<()> {
        match self {
            HostNames::Pattern(p) => split_pattern(p).map(|_| ()),
            HostNames::List(v) if v.len() < topo.num_nodes() => Err(Error::Unsupported(format!(
                "the host list names {} nodes, the topology {} has {}",
                v.len(),
                topo.spec(),
                topo.num_nodes()
            ))),
            HostNames::List(_) => Ok(()),
        }
    }

    /// Check that every node of `topo` has a name that `format` can carry:
    /// a rankfile's names hold no space, `=` or `#`; Slurm's start with a
    /// letter or digit and hold no space, `,`, `*` or `#` (its list
    /// separators, repeat mark and comment); Hydra's hold no space, `:`,
    /// `,` or `#`; and a list names each node differently. O(nodes) for a
    /// list, O(1) for a pattern (the digits it adds are allowed everywhere,
    /// and make every name different).
    pub fn check_for(&self, topo: &Topology, format: LauncherFormat) -> Result<()> {
        if !format.names_hosts() {
            return Ok(());
        }
        self.check(topo)?;
        let bad: &[char] = match format {
            LauncherFormat::Rankfile => &['=', '#'],
            LauncherFormat::Slurm => &[',', '#', '*'],
            LauncherFormat::Hydra => &[':', '#', ','],
            LauncherFormat::Plain | LauncherFormat::Bgp | LauncherFormat::Mpich => return Ok(()),
        };
        let ok = |n: &str| {
            !n.is_empty()
                && !n.chars().any(|c| c.is_whitespace() || bad.contains(&c))
                && (format != LauncherFormat::Slurm
                    || n.starts_with(|c: char| c.is_ascii_alphanumeric()))
        };
        let first_bad = match self {
            HostNames::List(v) => v.iter().take(topo.num_nodes()).find(|n| !ok(n)).cloned(),
            // The digits a pattern adds are always allowed: check its ends.
            HostNames::Pattern(_) => Some(self.name(0)).filter(|n| !ok(n)),
        };
        if let Some(n) = first_bad {
            return Err(Error::Unsupported(format!(
                "the host name `{n}` cannot be written in a {} file (it holds a space or one \
                 of {:?}{})",
                format.name(),
                bad,
                if format == LauncherFormat::Slurm {
                    ", or does not start with a letter or digit"
                } else {
                    ""
                }
            )));
        }
        Ok(())
    }

    /// The name of node `i`.
    pub fn name(&self, i: usize) -> String {
        match self {
            HostNames::List(v) => v.get(i).cloned().unwrap_or_else(|| format!("node{i}")),
            HostNames::Pattern(p) => match split_pattern(p) {
                Ok((pre, width, post)) => format!("{pre}{i:0width$}{post}"),
                Err(_) => format!("{p}{i}"),
            },
        }
    }
}

/// `node%03d.x` → ("node", 3, ".x").
fn split_pattern(p: &str) -> Result<(&str, usize, &str)> {
    let err = |m: &str| Error::spec("host pattern", p, m.to_string());
    let at = p
        .find('%')
        .ok_or_else(|| err("expected one %d, e.g. node%d"))?;
    let rest = &p[at + 1..];
    let d = rest
        .find('d')
        .ok_or_else(|| err("expected %d or %0Nd after %"))?;
    let w = &rest[..d];
    let width = if w.is_empty() {
        0
    } else {
        w.parse::<usize>()
            .ok()
            .filter(|&n| n <= 20)
            .ok_or_else(|| err("expected %d or %0Nd"))?
    };
    let post = &rest[d + 1..];
    if post.contains('%') {
        return Err(err("expected exactly one %d"));
    }
    Ok((&p[..at], width, post))
}

/// Write `mapping` in `format`.
pub fn write_mapping(
    w: &mut dyn Write,
    mapping: &Mapping,
    topo: &Topology,
    format: LauncherFormat,
    hosts: &HostNames,
) -> io::Result<()> {
    match format {
        LauncherFormat::Plain => {
            writeln!(
                w,
                "# hopmap mapping: {} processes on {}; rank node core",
                mapping.len(),
                topo.spec()
            )?;
            for r in 0..mapping.len() {
                writeln!(w, "{r} {} {}", mapping.node[r], mapping.core[r])?;
            }
        }
        LauncherFormat::Bgp => {
            let nd = topo.as_grid().map(|g| g.ndims()).unwrap_or(1);
            for r in 0..mapping.len() {
                let node = mapping.node[r] as usize;
                match topo.as_grid() {
                    Some(g) => {
                        let c = g.coord(node);
                        for x in &c[..nd] {
                            write!(w, "{x} ")?;
                        }
                    }
                    None => write!(w, "{node} ")?,
                }
                writeln!(w, "{}", mapping.core[r])?;
            }
        }
        LauncherFormat::Mpich => {
            let ranks = mapping.ranks_in_slot_order(topo);
            // Cray accepts long lines; wrap every 16 ranks for readability
            // (a line break is a separator like the comma).
            writeln!(
                w,
                "# MPICH_RANK_ORDER for {} ({} cores per node)",
                topo.spec(),
                topo.cores()
            )?;
            for (i, chunk) in ranks.chunks(16).enumerate() {
                let s: Vec<String> = chunk.iter().map(|r| r.to_string()).collect();
                let last = (i + 1) * 16 >= ranks.len();
                writeln!(w, "{}{}", s.join(","), if last { "" } else { "," })?;
            }
        }
        LauncherFormat::Rankfile => {
            let h = HostSlots::new(topo, hosts);
            for r in 0..mapping.len() {
                let node = mapping.node[r] as usize;
                writeln!(
                    w,
                    "rank {r}={} slot={}",
                    hosts.name(node),
                    h.host_slot(node, mapping.core[r])
                )?;
            }
        }
        LauncherFormat::Slurm => {
            writeln!(
                w,
                "# SLURM_HOSTFILE for srun --distribution=arbitrary -n {}: line r+1 is rank r's host ({})",
                mapping.len(),
                topo.spec()
            )?;
            for r in 0..mapping.len() {
                writeln!(w, "{}", hosts.name(mapping.node[r] as usize))?;
            }
        }
        LauncherFormat::Hydra => {
            writeln!(
                w,
                "# Hydra machinefile for mpiexec -f FILE -n {}: host:count in rank order, then the ranks' cores ({})",
                mapping.len(),
                topo.spec()
            )?;
            let h = HostSlots::new(topo, hosts);
            for run in node_runs(mapping) {
                let cores: Vec<String> = run
                    .clone()
                    .map(|r| {
                        h.host_slot(mapping.node[r] as usize, mapping.core[r])
                            .to_string()
                    })
                    .collect();
                writeln!(
                    w,
                    "{}:{} binding=user:{}",
                    hosts.name(mapping.node[run.start] as usize),
                    run.len(),
                    cores.join(",")
                )?;
            }
        }
    }
    Ok(())
}

/// The maximal runs of consecutive ranks placed on one node, in rank order.
fn node_runs(mapping: &Mapping) -> Vec<std::ops::Range<usize>> {
    let mut runs: Vec<std::ops::Range<usize>> = Vec::new();
    for r in 0..mapping.len() {
        match runs.last_mut() {
            Some(last) if mapping.node[last.start] == mapping.node[r] => last.end = r + 1,
            _ => runs.push(r..r + 1),
        }
    }
    runs
}

/// Write to a file (errors name the path).
pub fn write_mapping_file(
    path: &Path,
    mapping: &Mapping,
    topo: &Topology,
    format: LauncherFormat,
    hosts: &HostNames,
) -> Result<()> {
    super::atomic::write_atomic(path, |w| write_mapping(w, mapping, topo, format, hosts))
}

fn content_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.split('#').next().unwrap_or("").trim()))
        .filter(|(_, l)| !l.is_empty())
}

fn num<T: std::str::FromStr>(path: &Path, line: usize, what: &str, tok: &str) -> Result<T> {
    tok.parse()
        .map_err(|_| Error::parse(path, line, format!("expected {what}, found `{tok}`")))
}

/// Parse a plain file (`rank node core` lines, any rank order, every rank
/// 0..n once). `path` is used in error messages.
pub fn parse_plain(text: &str, path: &Path) -> Result<Mapping> {
    let mut rows: Vec<Option<(u32, u32)>> = Vec::new();
    for (ln, l) in content_lines(text) {
        let t: Vec<&str> = l.split_whitespace().collect();
        if t.len() != 3 {
            return Err(Error::parse(
                path,
                ln,
                format!("expected `rank node core`, found `{l}`"),
            ));
        }
        let r: usize = num(path, ln, "a rank", t[0])?;
        let nd: u32 = num(path, ln, "a node id", t[1])?;
        let c: u32 = num(path, ln, "a core id", t[2])?;
        put_row(&mut rows, r, (nd, c), path, ln)?;
    }
    collect_rows(rows, path, text)
}

/// Record rank `r`'s (node, core), rejecting implausible and repeated ranks.
fn put_row(
    rows: &mut Vec<Option<(u32, u32)>>,
    r: usize,
    row: (u32, u32),
    path: &Path,
    ln: usize,
) -> Result<()> {
    if r > 1 << 30 {
        return Err(Error::parse(
            path,
            ln,
            format!("rank {r} is implausibly large"),
        ));
    }
    if rows.len() <= r {
        rows.resize(r + 1, None);
    }
    if rows[r].is_some() {
        return Err(Error::parse(
            path,
            ln,
            format!("expected each rank once, found rank {r} again"),
        ));
    }
    rows[r] = Some(row);
    Ok(())
}

/// The line of `rank` in a plain or rankfile text (its first mention), for
/// messages about a rank found wrong after parsing; the last line if absent.
pub fn rank_line(text: &str, rank: usize) -> usize {
    let want = rank.to_string();
    content_lines(text)
        .find(|(_, l)| {
            // plain: `R node core`; rankfile: `rank R=host slot=S`.
            l.split_whitespace().next() == Some(want.as_str())
                || l.strip_prefix("rank")
                    .and_then(|r| r.split('=').next())
                    .is_some_and(|r| r.trim() == want)
        })
        .map_or_else(|| super::text::eof_line(text.as_bytes()), |(ln, _)| ln)
}

/// Ranks 0..=largest in order; a missing rank is reported at the end of
/// the file (where more lines were expected).
fn collect_rows(rows: Vec<Option<(u32, u32)>>, path: &Path, text: &str) -> Result<Mapping> {
    let mut m = Mapping::default();
    let rows_len = rows.len();
    for (r, row) in rows.into_iter().enumerate() {
        let (nd, c) = row.ok_or_else(|| {
            Error::parse(
                path,
                super::text::eof_line(text.as_bytes()),
                format!(
                    "expected every rank from 0 to the largest ({}), found rank {r} missing",
                    rows_len - 1
                ),
            )
        })?;
        m.node.push(nd);
        m.core.push(c);
    }
    Ok(m)
}

/// Parse a Blue Gene mapfile: line r (ignoring blanks and comments) holds
/// rank r's grid coordinates and core.
pub fn parse_bgp(text: &str, path: &Path, topo: &Topology) -> Result<Mapping> {
    let g = topo.as_grid().ok_or_else(|| {
        Error::Unsupported(format!(
            "a bgp mapfile needs a mesh or torus, not {}",
            topo.spec()
        ))
    })?;
    let nd = g.ndims();
    let mut m = Mapping::default();
    for (ln, l) in content_lines(text) {
        let t: Vec<&str> = l.split_whitespace().collect();
        if t.len() != nd + 1 {
            return Err(Error::parse(
                path,
                ln,
                format!(
                    "expected {nd} coordinates and a core ({} numbers), found `{l}`",
                    nd + 1
                ),
            ));
        }
        let mut c = [0u32; crate::topology::MAX_DIMS];
        for d in 0..nd {
            c[d] = num(path, ln, "a coordinate", t[d])?;
        }
        let node = g.node_checked(&c[..nd]).ok_or_else(|| {
            Error::parse(
                path,
                ln,
                format!("expected coordinates inside {}, found `{l}`", topo.spec()),
            )
        })?;
        let core: u32 = num(path, ln, "a core id", t[nd])?;
        m.node.push(node as u32);
        m.core.push(core);
    }
    Ok(m)
}

/// Parse an `MPICH_RANK_ORDER` file into its rank list (commas, spaces and
/// line breaks separate; `a-b` is a range).
pub fn parse_mpich_order(text: &str, path: &Path) -> Result<Vec<u32>> {
    Ok(mpich_order_lines(text, path)?.0)
}

/// The rank list and, for each listed rank, its line.
fn mpich_order_lines(text: &str, path: &Path) -> Result<(Vec<u32>, Vec<u32>)> {
    let mut out = Vec::new();
    let mut lines: Vec<u32> = Vec::new();
    for (ln, l) in content_lines(text) {
        for tok in l
            .split([',', ' ', '\t'])
            .map(str::trim)
            .filter(|t| !t.is_empty())
        {
            if let Some((a, b)) = tok.split_once('-') {
                let a: u32 = num(path, ln, "a rank", a.trim())?;
                let b: u32 = num(path, ln, "a rank", b.trim())?;
                if b < a {
                    return Err(Error::parse(
                        path,
                        ln,
                        format!("expected an increasing range a-b, found `{tok}`"),
                    ));
                }
                if out.len() as u64 + (b - a) as u64 >= super::MAX_PROCESSES as u64 {
                    return Err(Error::parse(
                        path,
                        ln,
                        format!(
                            "expected at most {} ranks in all (hopmap's cap), found more with `{tok}`",
                            super::MAX_PROCESSES
                        ),
                    ));
                }
                out.extend(a..=b);
            } else {
                if out.len() >= super::MAX_PROCESSES {
                    return Err(Error::parse(
                        path,
                        ln,
                        format!(
                            "expected at most {} ranks in all (hopmap's cap), found more",
                            super::MAX_PROCESSES
                        ),
                    ));
                }
                out.push(num(path, ln, "a rank", tok)?);
            }
            lines.resize(out.len(), ln.min(u32::MAX as usize) as u32);
        }
    }
    Ok((out, lines))
}

/// The mapping Cray's launcher builds from a rank order: the i-th listed
/// rank goes to slot i (node i / cores, core i % cores).
pub fn parse_mpich(text: &str, path: &Path, topo: &Topology) -> Result<Mapping> {
    let (order, lines) = mpich_order_lines(text, path)?;
    let n = order.len();
    let mut slot = vec![usize::MAX; n];
    for (i, &r) in order.iter().enumerate() {
        let r = r as usize;
        if r >= n || slot[r] != usize::MAX {
            return Err(Error::parse(
                path,
                lines[i] as usize,
                format!(
                    "expected each rank from 0 to {} once, found rank {r} {}",
                    n.saturating_sub(1),
                    if r >= n { "out of range" } else { "twice" }
                ),
            ));
        }
        slot[r] = i;
    }
    if n > topo.num_slots() {
        return Err(Error::Mapping(format!(
            "{n} ranks do not fit in {} slots of {}",
            topo.num_slots(),
            topo.spec()
        )));
    }
    Ok(Mapping::from_slots(&slot, topo))
}

/// Parse an Open MPI rankfile (`rank R=HOST slot=S`), resolving host names
/// through `hosts` for the nodes of `topo`.
pub fn parse_rankfile(
    text: &str,
    path: &Path,
    topo: &Topology,
    hosts: &HostNames,
) -> Result<Mapping> {
    let h = HostSlots::new(topo, hosts);
    let mut rows: Vec<Option<(u32, u32)>> = Vec::new();
    for (ln, l) in content_lines(text) {
        let bad = || {
            Error::parse(
                path,
                ln,
                format!("expected `rank R=HOST slot=S`, found `{l}`"),
            )
        };
        let rest = l.strip_prefix("rank").ok_or_else(bad)?.trim_start();
        let (r, rest) = rest.split_once('=').ok_or_else(bad)?;
        let r: usize = num(path, ln, "a rank", r.trim())?;
        let mut it = rest.split_whitespace();
        let host = it.next().ok_or_else(bad)?;
        let slot = it
            .next()
            .and_then(|s| s.strip_prefix("slot="))
            .ok_or_else(bad)?;
        if it.next().is_some() {
            return Err(bad());
        }
        let slot: u64 = num(path, ln, "a slot number", slot)?;
        let (node, core) = h.resolve(host, slot, path, ln)?;
        put_row(&mut rows, r, (node, core), path, ln)?;
    }
    collect_rows(rows, path, text)
}

/// The hosts of `topo` under `hosts`: nodes that share a name are one
/// host, whose slots are its nodes' cores in node order.
struct HostSlots {
    /// Each host's nodes, in node order.
    nodes: HashMap<String, Vec<u32>>,
    /// Each node's rank among the nodes of its name.
    nth: Vec<u32>,
    cores: u32,
}

impl HostSlots {
    /// O(nodes).
    fn new(topo: &Topology, hosts: &HostNames) -> HostSlots {
        let mut nodes: HashMap<String, Vec<u32>> = HashMap::with_capacity(topo.num_nodes());
        let mut nth = Vec::with_capacity(topo.num_nodes());
        for i in 0..topo.num_nodes() {
            let v = nodes.entry(hosts.name(i)).or_default();
            nth.push(v.len() as u32);
            v.push(i as u32);
        }
        HostSlots {
            nodes,
            nth,
            cores: topo.cores().max(1) as u32,
        }
    }

    /// The host slot of core `core` of node `node`.
    fn host_slot(&self, node: usize, core: u32) -> u64 {
        self.nth.get(node).copied().unwrap_or(0) as u64 * self.cores as u64 + core as u64
    }

    /// The nodes named `host`, or a parse error.
    fn known(&self, host: &str, path: &Path, ln: usize) -> Result<&[u32]> {
        self.nodes.get(host).map(Vec::as_slice).ok_or_else(|| {
            Error::parse(
                path,
                ln,
                format!("expected a known host name, found `{host}`"),
            )
        })
    }

    /// Node and core of slot `slot` of `host`, or a parse error.
    fn resolve(&self, host: &str, slot: u64, path: &Path, ln: usize) -> Result<(u32, u32)> {
        let nodes = self.known(host, path, ln)?;
        let c = self.cores as u64;
        match nodes.get((slot / c) as usize) {
            Some(&node) => Ok((node, (slot % c) as u32)),
            None => Err(Error::parse(
                path,
                ln,
                format!(
                    "expected a slot of `{host}` from 0 to {}, found {slot}",
                    nodes.len() as u64 * c - 1
                ),
            )),
        }
    }
}

/// The mapping a launcher builds from hosts listed in rank order: each
/// host's ranks take its slots 0, 1, … in rank order (Slurm binds a
/// node's tasks by their local id, which follows the rank order). Fails
/// when a host gets more ranks than it has slots.
fn from_host_order(names: Vec<(&str, usize)>, path: &Path, h: &HostSlots) -> Result<Mapping> {
    let mut used: HashMap<&str, u64> = HashMap::new();
    let mut m = Mapping::default();
    for (name, ln) in names {
        let k = used.entry(name).or_insert(0);
        let (node, core) = h.resolve(name, *k, path, ln)?;
        m.node.push(node);
        m.core.push(core);
        *k += 1;
    }
    Ok(m)
}

/// Parse a `SLURM_HOSTFILE` as Slurm reads it: `#` starts a comment, a
/// line holds one name or several separated by commas, `NAME*K` repeats a
/// name K times; the i-th name is task i's host. Cores follow the rank
/// order within each node (Slurm binds tasks by their local id).
pub fn parse_slurm(text: &str, path: &Path, topo: &Topology, hosts: &HostNames) -> Result<Mapping> {
    let h = HostSlots::new(topo, hosts);
    let mut names: Vec<(&str, usize)> = Vec::new();
    for (ln, l) in content_lines(text) {
        for tok in l.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            let (name, times) = match tok.split_once('*') {
                Some((a, k)) => (a, num::<usize>(path, ln, "a repeat count", k.trim())?),
                None => (tok, 1),
            };
            h.known(name, path, ln)?;
            if names.len() + times > topo.num_slots() {
                return Err(Error::parse(
                    path,
                    ln,
                    format!(
                        "expected at most {} ranks ({}), found more",
                        topo.num_slots(),
                        topo.spec()
                    ),
                ));
            }
            names.extend(std::iter::repeat_n((name, ln), times));
        }
    }
    from_host_order(names, path, &h)
}

/// Parse a Hydra machinefile (`host[:count] [binding=user:c,…]` lines,
/// `#` comments): the lines' counts are filled with ranks in order. With
/// a `binding=user:` list a line's ranks take those cores, else cores
/// follow the rank order within each node.
pub fn parse_hydra(text: &str, path: &Path, topo: &Topology, hosts: &HostNames) -> Result<Mapping> {
    let h = HostSlots::new(topo, hosts);
    let mut names: Vec<(&str, usize)> = Vec::new();
    let mut cores: Vec<Option<u64>> = Vec::new();
    for (ln, l) in content_lines(text) {
        let mut it = l.split_whitespace();
        let first = it.next().unwrap_or("");
        let (name, count) = match first.split_once(':') {
            Some((h, k)) => (h, num::<usize>(path, ln, "a process count", k)?),
            None => (first, 1),
        };
        h.known(name, path, ln)?;
        if names.len() + count > topo.num_slots() {
            return Err(Error::parse(
                path,
                ln,
                format!(
                    "expected at most {} ranks ({}), found more",
                    topo.num_slots(),
                    topo.spec()
                ),
            ));
        }
        let mut bound: Option<Vec<u64>> = None;
        for tok in it {
            let list = tok.strip_prefix("binding=user:").ok_or_else(|| {
                Error::parse(
                    path,
                    ln,
                    format!("expected `binding=user:c0,c1,…`, found `{tok}`"),
                )
            })?;
            let v = list
                .split(',')
                .map(|c| num::<u64>(path, ln, "a core id", c))
                .collect::<Result<Vec<u64>>>()?;
            if v.len() != count {
                return Err(Error::parse(
                    path,
                    ln,
                    format!("expected {count} cores in the binding, found {}", v.len()),
                ));
            }
            bound = Some(v);
        }
        names.extend(std::iter::repeat_n((name, ln), count));
        match bound {
            Some(v) => cores.extend(v.into_iter().map(Some)),
            None => cores.extend(std::iter::repeat_n(None, count)),
        }
    }
    if cores.iter().all(Option::is_none) {
        return from_host_order(names, path, &h);
    }
    let mut m = Mapping::default();
    let mut owner: HashMap<(u32, u32), usize> = HashMap::new();
    for (r, ((name, ln), slot)) in names.into_iter().zip(cores).enumerate() {
        let slot = slot.ok_or_else(|| {
            Error::parse(
                path,
                ln,
                format!("expected a binding for rank {r}, as the other lines have"),
            )
        })?;
        let (node, c) = h.resolve(name, slot, path, ln)?;
        if let Some(q) = owner.insert((node, c), r) {
            return Err(Error::parse(
                path,
                ln,
                format!(
                    "expected one rank per core, found ranks {q} and {r} on core {slot} of `{name}`"
                ),
            ));
        }
        m.node.push(node);
        m.core.push(c);
    }
    Ok(m)
}

/// Parse any format (mpich yields the packed mapping Cray would build).
pub fn parse_mapping(
    text: &str,
    path: &Path,
    topo: &Topology,
    format: LauncherFormat,
    hosts: &HostNames,
) -> Result<Mapping> {
    match format {
        LauncherFormat::Plain => parse_plain(text, path),
        LauncherFormat::Bgp => parse_bgp(text, path, topo),
        LauncherFormat::Mpich => parse_mpich(text, path, topo),
        LauncherFormat::Rankfile => parse_rankfile(text, path, topo, hosts),
        LauncherFormat::Slurm => parse_slurm(text, path, topo, hosts),
        LauncherFormat::Hydra => parse_hydra(text, path, topo, hosts),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn write(m: &Mapping, t: &Topology, f: LauncherFormat, h: &HostNames) -> String {
        let mut buf = Vec::new();
        write_mapping(&mut buf, m, t, f, h).unwrap();
        String::from_utf8(buf).unwrap()
    }

    fn random_mapping(t: &Topology, n: usize, seed: u64) -> Mapping {
        let mut slots: Vec<usize> = (0..t.num_slots()).collect();
        Rng::new(seed).shuffle(&mut slots);
        slots.truncate(n);
        Mapping::from_slots(&slots, t)
    }

    #[test]
    fn exact_small_outputs() {
        let t = Topology::parse("mesh:2x2:cores=2").unwrap();
        // rank0 → node3 core1, rank1 → node0 core0, rank2 → node2 core0
        let m = Mapping::new(vec![3, 0, 2], vec![1, 0, 0]);
        let h = HostNames::default();
        let p = write(&m, &t, LauncherFormat::Plain, &h);
        assert!(p.starts_with('#'));
        assert!(p.ends_with("0 3 1\n1 0 0\n2 2 0\n"), "{p}");
        assert_eq!(
            write(&m, &t, LauncherFormat::Bgp, &h),
            "1 1 1\n0 0 0\n0 1 0\n"
        );
        let c = write(&m, &t, LauncherFormat::Mpich, &h);
        assert_eq!(c.lines().nth(1), Some("1,2,0"));
        assert_eq!(
            write(
                &m,
                &t,
                LauncherFormat::Rankfile,
                &HostNames::Pattern("n%02d".into())
            ),
            "rank 0=n03 slot=1\nrank 1=n00 slot=0\nrank 2=n02 slot=0\n"
        );
    }

    #[test]
    fn every_format_round_trips() {
        let path = Path::new("test.map");
        for (spec, n, seed) in [
            ("torus:4x3x2:cores=4", 96, 1),
            ("torus:4x3x2:cores=4", 50, 2),
            ("mesh:5", 3, 3),
            ("mesh:2x2x2x2x2x2:cores=2", 128, 4),
        ] {
            let t = Topology::parse(spec).unwrap();
            let m = random_mapping(&t, n, seed);
            let hosts = HostNames::List((0..t.num_nodes()).map(|i| format!("h-{i}.x")).collect());
            for f in [
                LauncherFormat::Plain,
                LauncherFormat::Bgp,
                LauncherFormat::Rankfile,
                LauncherFormat::Hydra,
            ] {
                let s = write(&m, &t, f, &hosts);
                let back = parse_mapping(&s, path, &t, f, &hosts).unwrap();
                assert_eq!(back, m, "{spec} {f:?}");
            }
            // mpich keeps the node-then-core rank order; with a full machine
            // it is the mapping itself.
            let s = write(&m, &t, LauncherFormat::Mpich, &hosts);
            let order = parse_mpich_order(&s, path).unwrap();
            assert_eq!(order, m.ranks_in_slot_order(&t));
            let packed = parse_mpich(&s, path, &t).unwrap();
            packed.validate(n, &t).unwrap();
            if n == t.num_slots() {
                assert_eq!(packed, m);
            }
            // Slurm keeps each rank's node; its cores follow the rank order.
            let s = write(&m, &t, LauncherFormat::Slurm, &hosts);
            let back = parse_slurm(&s, path, &t, &hosts).unwrap();
            assert_eq!(back.node, m.node, "{spec} slurm");
            back.validate(n, &t).unwrap();
        }
    }

    #[test]
    fn slurm_and_hydra_exact_outputs() {
        let t = Topology::parse("mesh:2:cores=3").unwrap();
        // Ranks 0, 1 and 3 on node 1 (cores 2, 0, 1), rank 2 on node 0.
        let m = Mapping::new(vec![1, 1, 0, 1], vec![2, 0, 1, 1]);
        let h = HostNames::Pattern("h%d".into());
        let s = write(&m, &t, LauncherFormat::Slurm, &h);
        assert!(s.starts_with("# SLURM_HOSTFILE"), "{s}");
        assert_eq!(
            s.lines().skip(1).collect::<Vec<_>>(),
            ["h1", "h1", "h0", "h1"]
        );
        let y = write(&m, &t, LauncherFormat::Hydra, &h);
        assert!(y.starts_with("# Hydra machinefile"), "{y}");
        assert_eq!(
            y.lines().skip(1).collect::<Vec<_>>(),
            [
                "h1:2 binding=user:2,0",
                "h0:1 binding=user:1",
                "h1:1 binding=user:1"
            ]
        );
        let p = Path::new("f");
        // Hydra keeps the cores; Slurm's file has none, so a node's ranks
        // take its cores in rank order.
        assert_eq!(parse_hydra(&y, p, &t, &h).unwrap(), m);
        assert_eq!(
            parse_slurm(&s, p, &t, &h).unwrap(),
            Mapping::new(vec![1, 1, 0, 1], vec![0, 1, 0, 2])
        );
        // Slurm's own shorthands: commas and NAME*K.
        assert_eq!(
            parse_slurm("h1*2,h0 # x\nh1\n", p, &t, &h).unwrap(),
            Mapping::new(vec![1, 1, 0, 1], vec![0, 1, 0, 2])
        );
        // A machinefile without bindings: the same core order.
        assert_eq!(
            parse_hydra("h1:2\nh0\nh1:1\n", p, &t, &h).unwrap(),
            Mapping::new(vec![1, 1, 0, 1], vec![0, 1, 0, 2])
        );
        let e = |r: Result<Mapping>| r.unwrap_err().to_string();
        assert!(e(parse_slurm("h1\nh1\nh1\nh1\n", p, &t, &h)).starts_with("f:4:"));
        assert!(e(parse_hydra("h1:2 binding=user:0\n", p, &t, &h)).starts_with("f:1:"));
        assert!(e(parse_hydra("h0:1\nh9:1\n", p, &t, &h)).contains("`h9`"));
        assert!(e(parse_hydra("h0:1 binding=user:3\n", p, &t, &h)).starts_with("f:1:"));
        assert!(
            e(parse_hydra(
                "h0:1 binding=user:1\nh0:1 binding=user:1\n",
                p,
                &t,
                &h
            ))
            .starts_with("f:2:")
        );
    }

    /// A host with two HCAs is two nodes of the fabric under one name: its
    /// slots are the first node's cores, then the second's, in every
    /// format that names hosts, and each reads back to the same mapping.
    /// Two nodes of one whole description cannot be told apart.
    #[test]
    fn nodes_of_one_host_name_share_its_slots() {
        let t = Topology::parse("mesh:3:cores=2").unwrap();
        let h = HostNames::from_descriptions(["a mlx5_0", "b mlx5_0", "a mlx5_1"]).unwrap();
        assert_eq!(h, HostNames::List(vec!["a".into(), "b".into(), "a".into()]));
        // Ranks on node 2 (host a's second HCA) take host slots 2 and 3.
        let m = Mapping::new(vec![2, 0, 1, 2, 0], vec![1, 0, 0, 0, 1]);
        let mut out = Vec::new();
        write_mapping(&mut out, &m, &t, LauncherFormat::Rankfile, &h).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "rank 0=a slot=3\nrank 1=a slot=0\nrank 2=b slot=0\nrank 3=a slot=2\nrank 4=a slot=1\n"
        );
        let p = Path::new("f");
        assert_eq!(parse_rankfile(&text, p, &t, &h).unwrap(), m);
        let mut out = Vec::new();
        write_mapping(&mut out, &m, &t, LauncherFormat::Hydra, &h).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.ends_with("a:1 binding=user:3\na:1 binding=user:0\nb:1 binding=user:0\na:1 binding=user:2\na:1 binding=user:1\n"), "{text}");
        assert_eq!(parse_hydra(&text, p, &t, &h).unwrap(), m);
        // Without bindings, a host's ranks fill its slots in rank order:
        // the first two on node 0, the third on node 2.
        assert_eq!(
            parse_slurm("a\nb\na\na\n", p, &t, &h).unwrap(),
            Mapping::new(vec![0, 1, 0, 2], vec![0, 0, 1, 0])
        );
        let e = parse_rankfile("rank 0=a slot=4\n", p, &t, &h).unwrap_err();
        assert_eq!(
            e.to_string(),
            "f:1: expected a slot of `a` from 0 to 3, found 4"
        );
        let e = parse_slurm("b\nb\nb\n", p, &t, &h).unwrap_err();
        assert_eq!(
            e.to_string(),
            "f:3: expected a slot of `b` from 0 to 1, found 2"
        );
        let e = HostNames::from_descriptions(["MT23108 InfiniHost", "MT23108 InfiniHost"])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("the host name `MT23108` names nodes 0 and 1"),
            "{e}"
        );
    }

    #[test]
    fn host_names_each_format_can_carry() {
        let t = Topology::parse("mesh:2").unwrap();
        let list = |v: &[&str]| HostNames::List(v.iter().map(|s| s.to_string()).collect());
        let ok = list(&["n0.cluster", "n-1"]);
        for f in [
            LauncherFormat::Rankfile,
            LauncherFormat::Slurm,
            LauncherFormat::Hydra,
        ] {
            ok.check_for(&t, f).unwrap();
            assert!(list(&["n0", "a b"]).check_for(&t, f).is_err(), "{f:?}");
            assert!(list(&["n0"]).check_for(&t, f).is_err(), "{f:?}: too few");
        }
        assert!(
            list(&["n0", "x:1"])
                .check_for(&t, LauncherFormat::Hydra)
                .is_err()
        );
        list(&["n0", "x:1"])
            .check_for(&t, LauncherFormat::Slurm)
            .unwrap();
        assert!(
            list(&["n0", "-x"])
                .check_for(&t, LauncherFormat::Slurm)
                .is_err()
        );
        assert!(
            list(&["n0", "a,b"])
                .check_for(&t, LauncherFormat::Slurm)
                .is_err()
        );
        assert!(
            list(&["n0", "a=b"])
                .check_for(&t, LauncherFormat::Rankfile)
                .is_err()
        );
        assert!(
            HostNames::Pattern("-n%d".into())
                .check_for(&t, LauncherFormat::Slurm)
                .is_err()
        );
        // Formats without host names accept anything.
        list(&["a b"]).check_for(&t, LauncherFormat::Plain).unwrap();
        HostNames::default()
            .check_for(&t, LauncherFormat::Plain)
            .unwrap();
    }

    #[test]
    fn parse_errors_name_the_line() {
        let p = Path::new("m.txt");
        let t = Topology::parse("mesh:2x2").unwrap();
        let e = parse_plain("# h\n0 1 0\n1 x 0\n", p)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("m.txt:3:") && e.contains("`x`"), "{e}");
        let e = parse_bgp("0 0 0\n2 0 0\n", p, &t).unwrap_err().to_string();
        assert!(e.starts_with("m.txt:2:"), "{e}");
        let e = parse_rankfile("rank 0=nodeX slot=0\n", p, &t, &HostNames::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("nodeX"), "{e}");
        assert_eq!(
            parse_mpich_order("0-2, 5\n3,4", p).unwrap(),
            vec![0, 1, 2, 5, 3, 4]
        );
        assert!(parse_mpich("0,0", p, &t).is_err());
        assert!(HostNames::pattern("node").is_err());
        assert!(HostNames::pattern("n%d%d").is_err());
        assert_eq!(HostNames::pattern("c%d-x").unwrap().name(7), "c7-x");
    }
}
