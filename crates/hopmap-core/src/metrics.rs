//! Mapping quality metrics, computed in one pass over the messages.
//!
//! * `hop_bytes` = Σ over communicating pairs of c_uv · hops(φ_u, φ_v)
//!   (Wu et al. §2, eq. 1); `avg_hops_per_byte` = hop_bytes / total bytes
//!   (Bhatele & Kale §VII-B, "hops per byte").
//! * Per directed channel: the bytes crossing it (load) and the number of
//!   messages crossing it (flows, Balaji et al.'s "contention count", §3.2).
//! * Traffic between two processes on one node counts 0 hops and no load.
//! * On switch fabrics hop-bytes is Moh et al.'s weighted cardinality (§2):
//!   Σ bytes × routing distance in switch hops. Host-link channels carry every
//!   inter-host message's bytes at both ends but are not hops (see
//!   [`crate::topology::fabric`]); Σ loads over the hop-counting channels
//!   ([`Topology::channel_counts_hops`]) = hop-bytes under every routing.
//! * On fabrics, Moh et al.'s latency model (§5.1, [`LatencyModel`]): the
//!   mean and max message latency. The mean is over messages: when the
//!   graph has message counts (Open MPI monitoring), each pair's latency
//!   counts once per message it sent (the paper's per-message start-up
//!   term `t_s` paid for every message); otherwise once per communicating
//!   direction.
//!
//! Cost: O(m · hops) for `dor`; the adaptive model is costlier per message
//! (see [`crate::routing::adaptive`]). Rows are processed in parallel with
//! per-task channel accumulators that are summed at the end.
//!
//! Memory follows the graph and the links it uses, not the network's size:
//! the accumulators are dense arrays indexed by channel only when the
//! topology has few channels for the graph's size ([`dense_channels`]);
//! otherwise they are hash maps of the used channels (a 4-process graph on
//! `torus:16384x16384` touches a handful of the 10⁹ channels). The hop
//! histograms grow to the largest distance met. [`check_evaluable`] refuses,
//! up front, a network whose diameter alone would make the histograms huge.

use crate::graph::CommGraph;
use crate::mapping::Mapping;
use crate::routing::Routing;
use crate::topology::Topology;
use rayon::prelude::*;
use std::collections::HashMap;

/// Moh et al.'s message latency model (§5.1): t_s + links·t_p + switches·t_r,
/// defaults t_s = 2 µs, t_p = 20 ns, t_r = 300 ns.
///
/// Counting, host links included: a message between hosts on different
/// switches `h` switch hops apart crosses `h + 2` links (its two host links
/// and `h` inter-switch links) and `h + 1` switches; between two hosts on one
/// switch, 2 links and 1 switch; between two processes on one host, no link
/// and no switch (t_s only). The paper's network-interface delay ("almost the
/// same as the switch delay") is not added.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LatencyModel {
    /// Start-up time, ns.
    pub t_s: f64,
    /// Link propagation delay, ns.
    pub t_p: f64,
    /// Switch (router) delay, ns.
    pub t_r: f64,
}

impl Default for LatencyModel {
    fn default() -> Self {
        LatencyModel {
            t_s: 2000.0,
            t_p: 20.0,
            t_r: 300.0,
        }
    }
}

impl LatencyModel {
    /// Latency in ns of one message between two hosts `hops` switch hops
    /// apart (`same_host`: both processes on one host).
    #[inline]
    pub fn latency(&self, same_host: bool, hops: u32) -> f64 {
        if same_host {
            self.t_s
        } else {
            let h = hops as f64;
            self.t_s + (h + 2.0) * self.t_p + (h + 1.0) * self.t_r
        }
    }
}

/// Load and flow count per channel slot (index as in [`Topology::channel_ends`]).
///
/// `load` and `flows` are indexed by channel when the evaluation ran dense
/// ([`dense_channels`]); on a network too large for that they are empty,
/// and `used` lists every used channel instead. [`LinkLoads::get`] reads
/// either form.
#[derive(Clone, Debug, Default)]
pub struct LinkLoads {
    pub load: Vec<f64>,
    pub flows: Vec<u32>,
    /// Sparse form: `(channel, load, flows)` of each used channel, by channel.
    pub used: Vec<(u32, f64, u32)>,
}

impl LinkLoads {
    /// Load and flows of channel `ch` (0 for an unused channel).
    pub fn get(&self, ch: usize) -> (f64, u32) {
        if !self.load.is_empty() {
            return (
                self.load.get(ch).copied().unwrap_or(0.0),
                self.flows.get(ch).copied().unwrap_or(0),
            );
        }
        match self.used.binary_search_by_key(&(ch as u64), |e| e.0 as u64) {
            Ok(i) => (self.used[i].1, self.used[i].2),
            Err(_) => (0.0, 0),
        }
    }

    /// The largest load and the largest flow count among `channels` (0 and
    /// 0 when none is used). On a fabric, channels `0..2H` are the hosts'
    /// links and the rest the links between switches
    /// ([`crate::topology::Fabric::channel_ends`]). O(channels in the
    /// range) dense, O(log used + used in the range) sparse.
    pub fn max_in(&self, channels: std::ops::Range<usize>) -> (f64, u32) {
        self.in_range(channels)
            .fold((0.0, 0), |(l, f), (_, cl, cf)| (l.max(cl), f.max(cf)))
    }

    /// The busiest channel among `channels` by load: `(channel, load,
    /// flows)`, None when none of them is used. O(channels in the range)
    /// dense, O(log used + used in the range) sparse.
    pub fn busiest_in(&self, channels: std::ops::Range<usize>) -> Option<(usize, f64, u32)> {
        self.in_range(channels)
            .filter(|&(_, _, f)| f > 0)
            .fold(None, |b, c| match b {
                Some(x) if x.1 >= c.1 => Some(x),
                _ => Some(c),
            })
    }

    /// `(channel, load, flows)` of the channels in `channels`, in channel
    /// order: every one of them dense, the used ones sparse. O(channels in
    /// the range) dense, O(log used + used in the range) sparse.
    fn in_range(
        &self,
        channels: std::ops::Range<usize>,
    ) -> Box<dyn Iterator<Item = (usize, f64, u32)> + '_> {
        if !self.load.is_empty() {
            let end = channels.end.min(self.load.len());
            return Box::new(
                (channels.start.min(end)..end)
                    .map(|c| (c, self.load[c], self.flows.get(c).copied().unwrap_or(0))),
            );
        }
        let from = self
            .used
            .partition_point(|e| (e.0 as usize) < channels.start);
        Box::new(
            self.used[from..]
                .iter()
                .take_while(move |e| (e.0 as usize) < channels.end)
                .map(|&(c, l, f)| (c as usize, l, f)),
        )
    }
}

/// Largest network diameter [`evaluate`] accepts: the hop histograms have
/// one entry per distance.
pub const MAX_EVAL_DIAMETER: u32 = 1 << 20;

/// Refuse, before any work, a network too large to evaluate: one whose
/// diameter exceeds [`MAX_EVAL_DIAMETER`] hops.
pub fn check_evaluable(topo: &Topology) -> crate::Result<()> {
    let d = topo.diameter();
    if d > MAX_EVAL_DIAMETER {
        return Err(crate::Error::Unsupported(format!(
            "network {} is too large to evaluate: its diameter is {d} hops, hopmap evaluates \
             networks of at most {MAX_EVAL_DIAMETER} hops across",
            topo.spec()
        )));
    }
    Ok(())
}

/// Whether [`evaluate`] accumulates link loads in dense per-channel arrays
/// (fast) rather than hash maps of the used channels: when the network has
/// at most 2^20 channel slots, or at most 16 per graph entry (the memory then
/// stays proportional to the graph).
pub fn dense_channels(topo: &Topology, graph: &CommGraph) -> bool {
    let channels = topo.channel_slots();
    channels <= (1 << 20) || channels / 16 <= graph.num_entries() + graph.n()
}

/// Every metric of a mapping. Serialized, it is the exact key set of
/// `hopmap eval --json` and of `compare --json` rows: every field but the
/// two per-hop histograms, and the latencies only on fabrics.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Metrics {
    pub processes: usize,
    pub edges: usize,
    pub total_bytes: f64,
    pub intra_node_bytes: f64,
    pub hop_bytes: f64,
    pub avg_hops_per_byte: f64,
    pub max_dilation: u32,
    pub max_link_load: f64,
    pub mean_link_load: f64,
    pub used_links: usize,
    pub max_link_flows: u32,
    pub mean_link_flows: f64,
    pub routing: String,
    pub topology: String,
    /// Bytes that travel h hops, at index h (index 0 = intra-node).
    #[serde(skip)]
    pub hop_histogram_bytes: Vec<f64>,
    /// Directed messages that travel h hops, at index h.
    #[serde(skip)]
    pub hop_histogram_messages: Vec<u64>,
    /// Fabrics: the busiest link between two switches, by load and by
    /// flows (the links the fabric drawing colours; `max_link_load` and
    /// `max_link_flows` also count the hosts' links).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_switch_link_load: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_switch_link_flows: Option<u32>,
    /// Fabrics: mean message latency (µs) under [`LatencyModel`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_latency_us: Option<f64>,
    /// Fabrics: max message latency (µs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_latency_us: Option<f64>,
}

impl Metrics {
    /// Human-readable lines, as `hopmap eval` prints them.
    pub fn to_text(&self) -> String {
        use crate::units::fmt_bytes_exact;
        let mut s = String::new();
        use std::fmt::Write;
        let _ = writeln!(s, "topology:          {}", self.topology);
        let _ = writeln!(s, "routing:           {}", self.routing);
        let _ = writeln!(s, "processes:         {}", self.processes);
        let _ = writeln!(s, "edges:             {}", self.edges);
        let _ = writeln!(
            s,
            "total bytes:       {}",
            fmt_bytes_exact(self.total_bytes)
        );
        let _ = writeln!(
            s,
            "intra-node bytes:  {}",
            fmt_bytes_exact(self.intra_node_bytes)
        );
        let _ = writeln!(s, "hop-bytes:         {}", self.hop_bytes);
        let _ = writeln!(s, "avg hops per byte: {:.4}", self.avg_hops_per_byte);
        let _ = writeln!(s, "max dilation:      {} hops", self.max_dilation);
        let _ = writeln!(
            s,
            "link load:         max {} / mean {:.1} over {} used channels",
            fmt_bytes_exact(self.max_link_load),
            self.mean_link_load,
            self.used_links
        );
        let _ = writeln!(
            s,
            "link flows:        max {} / mean {:.2}",
            self.max_link_flows, self.mean_link_flows
        );
        let hist: Vec<String> = self
            .hop_histogram_messages
            .iter()
            .enumerate()
            .filter(|(_, c)| **c > 0)
            .map(|(h, c)| format!("{h}:{c}"))
            .collect();
        let _ = writeln!(s, "hops (messages):   {}", hist.join(" "));
        if let (Some(load), Some(flows)) = (self.max_switch_link_load, self.max_switch_link_flows) {
            let _ = writeln!(
                s,
                "switch links:      max {} / max {flows} flows (host links left out)",
                fmt_bytes_exact(load)
            );
        }
        if let (Some(mean), Some(max)) = (self.mean_latency_us, self.max_latency_us) {
            let _ = writeln!(s, "latency (Moh):     mean {mean:.4} µs / max {max:.4} µs");
        }
        s
    }
}

/// Metrics plus the per-channel loads behind them (for heatmaps).
#[derive(Clone, Debug, Default)]
pub struct Evaluation {
    pub metrics: Metrics,
    pub links: LinkLoads,
}

/// Per-channel accumulation: dense arrays, or a map of the used channels.
enum Chan {
    Dense { load: Vec<f64>, flows: Vec<u32> },
    Sparse(HashMap<u32, (f64, u32)>),
}

impl Chan {
    #[inline]
    fn add(&mut self, ch: usize, x: f64) {
        match self {
            Chan::Dense { load, flows } => {
                load[ch] += x;
                flows[ch] += 1;
            }
            Chan::Sparse(m) => {
                let e = m.entry(ch as u32).or_insert((0.0, 0));
                e.0 += x;
                e.1 += 1;
            }
        }
    }
}

struct Acc {
    total: f64,
    intra: f64,
    hop_bytes: f64,
    max_dil: u32,
    /// Indexed by hop count, grown to the largest distance met.
    hist_b: Vec<f64>,
    hist_m: Vec<u64>,
    chan: Chan,
    lat_sum: f64,
    lat_max: f64,
    /// Messages the latency mean is over: 1 per directed pair, or the
    /// pair's message count when the graph has counts.
    messages: f64,
}

impl Acc {
    fn new(channels: usize, dense: bool) -> Self {
        Acc {
            total: 0.0,
            intra: 0.0,
            hop_bytes: 0.0,
            max_dil: 0,
            hist_b: vec![0.0; 1],
            hist_m: vec![0; 1],
            chan: if dense {
                Chan::Dense {
                    load: vec![0.0; channels],
                    flows: vec![0; channels],
                }
            } else {
                Chan::Sparse(HashMap::new())
            },
            lat_sum: 0.0,
            lat_max: 0.0,
            messages: 0.0,
        }
    }
    #[inline]
    fn hist(&mut self, h: usize, b: f64) {
        if h >= self.hist_b.len() {
            self.hist_b.resize(h + 1, 0.0);
            self.hist_m.resize(h + 1, 0);
        }
        self.hist_b[h] += b;
        self.hist_m[h] += 1;
    }
    fn merge(mut self, o: Acc) -> Acc {
        self.total += o.total;
        self.intra += o.intra;
        self.hop_bytes += o.hop_bytes;
        self.max_dil = self.max_dil.max(o.max_dil);
        if o.hist_b.len() > self.hist_b.len() {
            self.hist_b.resize(o.hist_b.len(), 0.0);
            self.hist_m.resize(o.hist_m.len(), 0);
        }
        self.lat_sum += o.lat_sum;
        self.lat_max = self.lat_max.max(o.lat_max);
        self.messages += o.messages;
        for (a, b) in self.hist_b.iter_mut().zip(&o.hist_b) {
            *a += b;
        }
        for (a, b) in self.hist_m.iter_mut().zip(&o.hist_m) {
            *a += b;
        }
        match (&mut self.chan, o.chan) {
            (
                Chan::Dense { load, flows },
                Chan::Dense {
                    load: l2,
                    flows: f2,
                },
            ) => {
                for (a, b) in load.iter_mut().zip(&l2) {
                    *a += b;
                }
                for (a, b) in flows.iter_mut().zip(&f2) {
                    *a += b;
                }
            }
            (Chan::Sparse(m), Chan::Sparse(m2)) => {
                for (k, (l, f)) in m2 {
                    let e = m.entry(k).or_insert((0.0, 0));
                    e.0 += l;
                    e.1 += f;
                }
            }
            _ => unreachable!("one evaluation uses one accumulator kind"),
        }
        self
    }
}

/// Evaluate a (valid) mapping: every metric and the per-channel loads
/// (latency with the default [`LatencyModel`] on fabrics).
///
/// ```
/// use hopmap_core::io::{self, ReadOptions};
/// use hopmap_core::{Mapping, Routing, Topology, evaluate};
/// use std::path::Path;
///
/// // Two processes exchanging 1,000 bytes, placed at both ends of a line of 4 nodes.
/// let graph = io::parse_graph(b"0 1 1000\n", Path::new("pair.txt"), &ReadOptions::default())?;
/// let topo = Topology::parse("mesh:4")?;
/// let mapping = Mapping::from_nodes(vec![0, 3], &topo)?;
/// let eval = evaluate(&graph, &topo, &mapping, &Routing::Dor);
/// assert_eq!(eval.metrics.hop_bytes, 3.0 * 1000.0);
/// assert_eq!(eval.metrics.max_dilation, 3);
/// // Half of the volume each way: 500 bytes on each of the 3 links' two directions.
/// assert_eq!(eval.metrics.used_links, 6);
/// assert_eq!(eval.metrics.max_link_load, 500.0);
/// # Ok::<(), hopmap_core::Error>(())
/// ```
pub fn evaluate(
    graph: &CommGraph,
    topo: &Topology,
    mapping: &Mapping,
    routing: &Routing,
) -> Evaluation {
    evaluate_with(graph, topo, mapping, routing, &LatencyModel::default())
}

/// Hop-bytes over the total bytes (0 when nothing is sent).
fn hops_per_byte(hop_bytes: f64, total: f64) -> f64 {
    if total > 0.0 { hop_bytes / total } else { 0.0 }
}

/// The four headline values of a mapping under the topology's own routing
/// (dimension order on meshes and tori), as `hopmap map` prints them.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    pub hop_bytes: f64,
    pub avg_hops_per_byte: f64,
    pub max_dilation: u32,
    pub max_link_load: f64,
    /// The routing's name.
    pub routing: String,
}

/// [`Summary`] of `mapping`: each value equal, bit for bit, to the same
/// field of [`evaluate`] under [`Routing::Dor`]. On a mesh or torus with
/// whole-number bytes it comes from one pass over the messages and one
/// difference array per network line
/// ([`crate::routing::dor_lines::dor_summary`], O(n · d + m · d +
/// channels)); otherwise every message is routed.
pub fn summary(graph: &CommGraph, topo: &Topology, mapping: &Mapping) -> Summary {
    let fast = topo.as_grid().and_then(|g| {
        crate::routing::dor_lines::dor_summary(graph, g, &mapping.node, &mut Vec::new())
    });
    match fast {
        Some(s) => Summary {
            hop_bytes: s.hop_bytes,
            avg_hops_per_byte: hops_per_byte(s.hop_bytes, s.total),
            max_dilation: s.max_dilation,
            max_link_load: s.max_load,
            routing: Routing::Dor.name(),
        },
        None => {
            let m = evaluate(graph, topo, mapping, &Routing::Dor).metrics;
            Summary {
                hop_bytes: m.hop_bytes,
                avg_hops_per_byte: m.avg_hops_per_byte,
                max_dilation: m.max_dilation,
                max_link_load: m.max_link_load,
                routing: m.routing,
            }
        }
    }
}

/// [`evaluate`] with an explicit latency model (used on fabrics only).
pub fn evaluate_with(
    graph: &CommGraph,
    topo: &Topology,
    mapping: &Mapping,
    routing: &Routing,
    lat: &LatencyModel,
) -> Evaluation {
    let routing = &routing.resolve(topo);
    let fabric = topo.as_fabric().is_some();
    let channels = topo.channel_slots();
    let dense = dense_channels(topo, graph);
    let n = graph.n();
    // Chunk rows so that each task amortises its channel arrays.
    let chunk = (n / (rayon::current_num_threads() * 4)).max(1024);
    let acc = (0..n.div_ceil(chunk))
        .into_par_iter()
        .map(|c| {
            let mut a = Acc::new(channels, dense);
            for u in c * chunk..((c + 1) * chunk).min(n) {
                let nu = mapping.node[u] as usize;
                let counts = graph
                    .msg_counts()
                    .map(|m| &m[graph.offsets()[u]..graph.offsets()[u + 1]]);
                for (j, (&v, &b)) in graph.neighbors(u).iter().zip(graph.sent_row(u)).enumerate() {
                    if b <= 0.0 {
                        continue;
                    }
                    let msgs = counts.map_or(1.0, |m| m[j]);
                    a.total += b;
                    let nv = mapping.node[v as usize] as usize;
                    if nu == nv {
                        a.intra += b;
                        a.hist(0, b);
                        if fabric {
                            let t = lat.latency(true, 0);
                            a.lat_sum += t * msgs;
                            a.lat_max = a.lat_max.max(t);
                            a.messages += msgs;
                        }
                        continue;
                    }
                    let h = routing.distance(topo, nu, nv);
                    if fabric {
                        let t = lat.latency(false, h);
                        a.lat_sum += t * msgs;
                        a.lat_max = a.lat_max.max(t);
                        a.messages += msgs;
                    }
                    a.hop_bytes += b * h as f64;
                    a.max_dil = a.max_dil.max(h);
                    a.hist(h as usize, b);
                    let chan = &mut a.chan;
                    routing.route(topo, nu, nv, b, &mut |ch, x| chan.add(ch, x));
                }
            }
            a
        })
        .reduce(|| Acc::new(channels, dense), Acc::merge);
    // Histograms as long as the diameter on ordinary networks (as before);
    // on huge ones only as long as the largest distance met.
    let (mut hist_b, mut hist_m) = (acc.hist_b, acc.hist_m);
    let diam = match topo.as_fabric() {
        // Any routing's distance on a fabric is at most the largest of the
        // up*/down* tables (plain shortest paths are never longer).
        Some(f) => f
            .updown()
            .diameter()
            .max(f.fat_tree().map_or(0, |t| t.diameter())) as usize,
        None => topo.diameter() as usize,
    };
    if diam < 1 << 16 && hist_b.len() < diam + 1 {
        hist_b.resize(diam + 1, 0.0);
        hist_m.resize(diam + 1, 0);
    }
    // The used channels, (load, flows) each, in channel order.
    let links = match acc.chan {
        Chan::Dense { load, flows } => LinkLoads {
            load,
            flows,
            used: Vec::new(),
        },
        Chan::Sparse(m) => {
            let mut used: Vec<(u32, f64, u32)> =
                m.into_iter().map(|(c, (l, f))| (c, l, f)).collect();
            used.sort_unstable_by_key(|e| e.0);
            LinkLoads {
                load: Vec::new(),
                flows: Vec::new(),
                used,
            }
        }
    };
    let per_used: Vec<(f64, u32)> = if links.load.is_empty() {
        links.used.iter().map(|&(_, l, f)| (l, f)).collect()
    } else {
        (0..channels)
            .filter(|&c| links.flows[c] > 0)
            .map(|c| (links.load[c], links.flows[c]))
            .collect()
    };
    let used_links = per_used.len();
    let max_link_load = per_used.iter().map(|e| e.0).fold(0.0, f64::max);
    let max_link_flows = per_used.iter().map(|e| e.1).max().unwrap_or(0);
    let (mean_link_load, mean_link_flows) = if used_links > 0 {
        (
            per_used.iter().map(|e| e.0).sum::<f64>() / used_links as f64,
            per_used.iter().map(|e| e.1 as f64).sum::<f64>() / used_links as f64,
        )
    } else {
        (0.0, 0.0)
    };
    let switch_max = topo
        .as_fabric()
        .map(|f| links.max_in(2 * f.num_hosts()..channels));
    let metrics = Metrics {
        processes: n,
        edges: graph.num_edges(),
        total_bytes: acc.total,
        intra_node_bytes: acc.intra,
        hop_bytes: acc.hop_bytes,
        avg_hops_per_byte: hops_per_byte(acc.hop_bytes, acc.total),
        max_dilation: acc.max_dil,
        max_link_load,
        mean_link_load,
        used_links,
        max_link_flows,
        mean_link_flows,
        routing: routing.name(),
        topology: topo.spec(),
        hop_histogram_bytes: hist_b,
        hop_histogram_messages: hist_m,
        max_switch_link_load: switch_max.map(|m| m.0),
        max_switch_link_flows: switch_max.map(|m| m.1),
        mean_latency_us: (fabric && acc.messages > 0.0)
            .then(|| acc.lat_sum / acc.messages / 1000.0),
        max_latency_us: (fabric && acc.messages > 0.0).then(|| acc.lat_max / 1000.0),
    };
    Evaluation { metrics, links }
}

/// Hop-bytes alone (no routing): Σ c_uv · hops. O(m), the mappers' objective.
pub fn hop_bytes(graph: &CommGraph, topo: &Topology, mapping: &Mapping) -> f64 {
    (0..graph.n())
        .into_par_iter()
        .map(|u| {
            let nu = mapping.node[u] as usize;
            graph
                .neighbors(u)
                .iter()
                .zip(graph.sent_row(u))
                .map(|(&v, &b)| b * topo.distance(nu, mapping.node[v as usize] as usize) as f64)
                .sum::<f64>()
        })
        .sum()
}

/// Evaluate the placed processes only: the subgraph among the processes
/// that have a slot in `placement` (None = not placed yet), as a greedy
/// mapper's partial placement. None when nothing is placed. O(n + m) plus
/// the evaluation of the subgraph.
pub fn evaluate_partial(
    graph: &CommGraph,
    topo: &Topology,
    placement: &[Option<u32>],
    routing: &Routing,
) -> Option<Evaluation> {
    let n = graph.n();
    let mut index = vec![u32::MAX; n];
    let mut slots = Vec::new();
    for (p, s) in placement.iter().enumerate().take(n) {
        if let Some(s) = s {
            index[p] = slots.len() as u32;
            slots.push(*s as usize);
        }
    }
    if slots.is_empty() {
        return None;
    }
    let mut b = crate::graph::GraphBuilder::new(slots.len(), true);
    for (u, v, bytes) in graph.messages() {
        let (a, c) = (index[u], index[v]);
        if a != u32::MAX && c != u32::MAX {
            b.add(a as usize, c as usize, bytes);
        }
    }
    let sub = b.build().ok()?;
    let m = Mapping::from_slots(&slots, topo);
    Some(evaluate(&sub, topo, &m, routing))
}

#[cfg(test)]
mod placed_tests {
    use super::*;
    use crate::graph::GraphBuilder;

    #[test]
    fn a_partial_placement_counts_only_pairs_of_placed_processes() {
        // Path 0-1-2 on a 1D mesh of 4: 0 on node 0, 1 on node 2, 2 not placed.
        let mut b = GraphBuilder::new(3, false);
        b.add(0, 1, 10.0);
        b.add(1, 2, 6.0);
        let g = b.build().unwrap();
        let t = Topology::parse("mesh:4").unwrap();
        let e = evaluate_partial(&g, &t, &[Some(0), Some(2), None], &Routing::Dor).unwrap();
        assert_eq!(e.metrics.processes, 2);
        assert_eq!(e.metrics.total_bytes, 10.0);
        assert_eq!(e.metrics.hop_bytes, 20.0);
        assert_eq!(e.metrics.max_dilation, 2);
        // Nothing placed: nothing to evaluate.
        assert!(evaluate_partial(&g, &t, &[None, None, None], &Routing::Dor).is_none());
        // Everything placed: the same as evaluating the whole mapping.
        let all = [Some(0), Some(1), Some(3)];
        let full = evaluate(&g, &t, &Mapping::from_slots(&[0, 1, 3], &t), &Routing::Dor);
        let part = evaluate_partial(&g, &t, &all, &Routing::Dor).unwrap();
        assert_eq!(part.metrics.hop_bytes, full.metrics.hop_bytes);
        assert_eq!(part.links.load, full.links.load);
    }

    #[test]
    fn the_summary_is_the_evaluations_own_values_on_every_kind_of_network() {
        // A path 0-1-2-3 with whole bytes, then the same with a fractional
        // message (routed), on a torus, a mesh with 2 cores and a fat tree.
        for frac in [false, true] {
            let mut b = GraphBuilder::new(4, false);
            b.add(0, 1, 10.0);
            b.add(1, 2, if frac { 6.5 } else { 6.0 });
            b.add(2, 3, 4.0);
            b.add(0, 3, 3.0);
            let g = b.build().unwrap();
            for spec in ["torus:4", "mesh:2x2:cores=2", "fattree:4:3"] {
                let t = Topology::parse(spec).unwrap();
                let m = Mapping::from_slots(&[0, 3, 1, 2], &t);
                let e = evaluate(&g, &t, &m, &Routing::Dor).metrics;
                let s = summary(&g, &t, &m);
                assert_eq!(
                    s,
                    Summary {
                        hop_bytes: e.hop_bytes,
                        avg_hops_per_byte: e.avg_hops_per_byte,
                        max_dilation: e.max_dilation,
                        max_link_load: e.max_link_load,
                        routing: e.routing.clone(),
                    },
                    "{spec} {frac}"
                );
                assert!(s.hop_bytes > 0.0, "{spec}");
            }
        }
    }

    #[test]
    fn the_busiest_channel_of_a_range_is_the_same_dense_or_sparse() {
        // Channels 0..6: loads 5, 0 (unused), 9, 9, 2, 7.
        let load = vec![5.0, 0.0, 9.0, 9.0, 2.0, 7.0];
        let flows = vec![1, 0, 2, 3, 1, 1];
        let used: Vec<(u32, f64, u32)> = (0..6)
            .filter(|&c| flows[c] > 0)
            .map(|c| (c as u32, load[c], flows[c]))
            .collect();
        let dense = LinkLoads {
            load,
            flows,
            used: Vec::new(),
        };
        let sparse = LinkLoads {
            load: Vec::new(),
            flows: Vec::new(),
            used,
        };
        for l in [&dense, &sparse] {
            // Ties keep the first channel.
            assert_eq!(l.busiest_in(0..6), Some((2, 9.0, 2)));
            assert_eq!(l.busiest_in(0..2), Some((0, 5.0, 1)));
            assert_eq!(l.busiest_in(4..6), Some((5, 7.0, 1)));
            assert_eq!(l.busiest_in(1..2), None);
            assert_eq!(l.busiest_in(4..100), Some((5, 7.0, 1)));
            assert_eq!(l.busiest_in(7..9), None);
            assert_eq!(l.max_in(0..6), (9.0, 3));
            assert_eq!(l.max_in(4..6), (7.0, 1));
            assert_eq!(l.max_in(1..2), (0.0, 0));
        }
    }
}
