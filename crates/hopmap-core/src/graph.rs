//! The communication graph: `n` processes and the bytes they exchange.
//!
//! Storage is a compact symmetric CSR (compressed sparse row) adjacency: for
//! every process `u`, the sorted list of its partners `v`, and for each entry
//! the bytes **sent from `u` to `v`**. A pair `{u, v}` therefore appears twice
//! (once in each row) and its total volume — `c_uv` of Wu et al. §2, `f_ij` of
//! Bobrik & Popova §2 — is `sent(u,v) + sent(v,u)`.
//!
//! * Directed inputs (general MatrixMarket, a dense sender×receiver matrix, a
//!   DOT digraph) keep each direction's own bytes.
//! * Symmetric inputs give the pair volume `w`, stored as `w/2` each way, so
//!   that routing splits it evenly and Σ channel loads = hop-bytes exactly.
//!
//! Building costs O(n + m log d) time (a counting sort into rows, then a sort
//! of each row) and 12 bytes per stored direction plus 8 per process, so 10⁶
//! processes and 10⁷ edges fit in about 250 MB.

use crate::error::{Error, Result};
use crate::units::fmt_bytes_exact;

/// Largest total of bytes a graph may carry: hop-bytes are at most the
/// total times the network's diameter (below 2^28), so with this cap they
/// stay finite in f64 (max ≈ 1.8·10^308) instead of turning into `inf`.
pub const MAX_TOTAL_BYTES: f64 = 1e300;

/// Optional per-process coordinates, 2D or 3D (z = 0 in 2D).
#[derive(Clone, Debug, PartialEq)]
pub struct Coords {
    /// 2 or 3.
    pub dim: usize,
    pub xyz: Vec<[f64; 3]>,
}

impl Coords {
    pub fn new(dim: usize, xyz: Vec<[f64; 3]>) -> Self {
        Coords { dim, xyz }
    }
    /// Per-axis (min, max) over all points, for the first `dim` axes.
    pub fn bounds(&self) -> ([f64; 3], [f64; 3]) {
        let mut lo = [f64::INFINITY; 3];
        let mut hi = [f64::NEG_INFINITY; 3];
        for p in &self.xyz {
            for a in 0..3 {
                lo[a] = lo[a].min(p[a]);
                hi[a] = hi[a].max(p[a]);
            }
        }
        if self.xyz.is_empty() {
            return ([0.0; 3], [0.0; 3]);
        }
        (lo, hi)
    }
}

/// What the builder dropped or merged, so that `info` can report it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct BuildStats {
    /// Input edges given (before any dropping or merging).
    pub input_edges: usize,
    pub self_loops_dropped: usize,
    pub zero_weights_dropped: usize,
    /// Input edges merged into an earlier edge between the same endpoints
    /// (same direction for directed graphs, either direction for symmetric).
    pub duplicates_merged: usize,
}

/// Number of buckets of a message-size histogram: bucket 0 counts empty
/// messages, bucket `k ≥ 1` messages of `2^(k-1)` to `2^k − 1` bytes (the
/// last one everything larger), as Open MPI's monitoring keeps them.
pub const SIZE_HISTOGRAM_BUCKETS: usize = 66;

/// What an input holds beyond bytes per pair: message counts, a
/// message-size histogram, and what its numbers mean.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SourceInfo {
    /// Messages sent `u → v`, aligned with [`CommGraph::sent`]; `None`
    /// when the input has no counts.
    pub msgs: Option<Vec<f64>>,
    /// Message-size histogram ([`SIZE_HISTOGRAM_BUCKETS`] buckets).
    pub size_histogram: Option<Vec<u64>>,
    /// Lines for `info` and the Data panel: what the numbers mean, what
    /// was left out.
    pub notes: Vec<String>,
    /// Phases the input holds (Open MPI monitoring flushes), in order.
    pub phases: Vec<String>,
    /// The phase read (`None`: all of them, summed).
    pub phase: Option<String>,
}

/// A communication graph in symmetric CSR form. See the module docs.
#[derive(Clone, Debug)]
pub struct CommGraph {
    n: usize,
    directed: bool,
    offsets: Vec<usize>,
    targets: Vec<u32>,
    sent: Vec<f64>,
    coords: Option<Coords>,
    stats: BuildStats,
    source: Option<std::sync::Arc<SourceInfo>>,
}

/// Accumulates edges, then builds a [`CommGraph`].
#[derive(Clone, Debug)]
pub struct GraphBuilder {
    n: usize,
    directed: bool,
    edges: Vec<(u32, u32, f64)>,
    stats: BuildStats,
}

impl GraphBuilder {
    /// A builder for `n` processes. `directed` means each added edge carries
    /// the bytes of one direction only; otherwise it is the pair's volume.
    pub fn new(n: usize, directed: bool) -> Self {
        GraphBuilder {
            n,
            directed,
            edges: Vec::new(),
            stats: BuildStats::default(),
        }
    }

    pub fn with_capacity(n: usize, directed: bool, edges: usize) -> Self {
        let mut b = Self::new(n, directed);
        b.edges.reserve(edges);
        b
    }

    pub fn num_processes(&self) -> usize {
        self.n
    }

    /// Grow the process count (for readers that discover ids as they go).
    pub fn ensure_processes(&mut self, n: usize) {
        self.n = self.n.max(n);
    }

    /// Add `bytes` from `u` to `v` (directed) or between `u` and `v`.
    /// Self-loops, zero and non-finite-or-negative weights are counted and dropped.
    /// Panics only in debug if ids are out of range; readers check ranges first.
    pub fn add(&mut self, u: usize, v: usize, bytes: f64) {
        self.stats.input_edges += 1;
        if u == v {
            self.stats.self_loops_dropped += 1;
            return;
        }
        if !(bytes > 0.0) || !bytes.is_finite() {
            self.stats.zero_weights_dropped += 1;
            return;
        }
        debug_assert!(u < self.n && v < self.n);
        self.edges.push((u as u32, v as u32, bytes));
    }

    /// Build the CSR. Duplicates are summed.
    pub fn build(self) -> Result<CommGraph> {
        let GraphBuilder {
            n,
            directed,
            edges,
            mut stats,
        } = self;
        if n > u32::MAX as usize {
            return Err(Error::Unsupported(format!("{n} processes is too many")));
        }
        if let Some(&(u, v, _)) = edges
            .iter()
            .find(|&&(u, v, _)| u as usize >= n || v as usize >= n)
        {
            return Err(Error::Unsupported(format!(
                "edge {u}-{v} names a process past the last one ({})",
                n.saturating_sub(1)
            )));
        }
        // Duplicate accounting: count distinct keys.
        // Each input edge contributes to both rows.
        let mut deg = vec![0usize; n + 1];
        for &(u, v, _) in &edges {
            deg[u as usize] += 1;
            deg[v as usize] += 1;
        }
        let mut offsets = vec![0usize; n + 1];
        for i in 0..n {
            offsets[i + 1] = offsets[i] + deg[i];
        }
        let total = offsets[n];
        let mut fill = offsets.clone();
        let mut targets = vec![0u32; total];
        let mut sent = vec![0f64; total];
        for &(u, v, w) in &edges {
            let (su, sv) = if directed {
                (w, 0.0)
            } else {
                (w / 2.0, w / 2.0)
            };
            let (u, v) = (u as usize, v as usize);
            targets[fill[u]] = v as u32;
            sent[fill[u]] = su;
            fill[u] += 1;
            targets[fill[v]] = u as u32;
            sent[fill[v]] = sv;
            fill[v] += 1;
        }
        let input_kept = edges.len();
        drop(edges);
        // Sort each row and merge duplicates in place.
        let mut new_offsets = vec![0usize; n + 1];
        let mut write = 0usize;
        let mut row: Vec<(u32, f64)> = Vec::new();
        let mut distinct_pairs = 0usize;
        for u in 0..n {
            row.clear();
            row.extend((offsets[u]..offsets[u + 1]).map(|k| (targets[k], sent[k])));
            row.sort_unstable_by_key(|e| e.0);
            let start = write;
            for &(v, s) in &row {
                if write > start && targets[write - 1] == v {
                    sent[write - 1] += s;
                } else {
                    targets[write] = v;
                    sent[write] = s;
                    write += 1;
                }
            }
            distinct_pairs += write - start;
            new_offsets[u + 1] = write;
        }
        targets.truncate(write);
        sent.truncate(write);
        targets.shrink_to_fit();
        sent.shrink_to_fit();
        let distinct_pairs = distinct_pairs / 2;
        // For directed graphs, a duplicate is an edge with the same direction;
        // count distinct directed messages.
        let distinct_inputs = if directed {
            sent.iter().filter(|&&s| s > 0.0).count()
        } else {
            distinct_pairs
        };
        stats.duplicates_merged = input_kept - distinct_inputs.min(input_kept);
        let total: f64 = sent.iter().sum();
        if total.is_nan() || total > MAX_TOTAL_BYTES {
            return Err(Error::Unsupported(format!(
                "expected messages that sum to at most {MAX_TOTAL_BYTES:e} bytes (so that \
                 hop-bytes and link loads stay finite), found a sum of {}",
                if total.is_finite() {
                    format!("{total:e}")
                } else {
                    "more than 1.8e308 (an overflow)".to_string()
                }
            )));
        }
        Ok(CommGraph {
            n,
            directed,
            offsets: new_offsets,
            targets,
            sent,
            coords: None,
            stats,
            source: None,
        })
    }
}

impl CommGraph {
    /// A graph with no edges.
    pub fn empty(n: usize) -> Self {
        CommGraph {
            n,
            directed: false,
            offsets: vec![0; n + 1],
            targets: Vec::new(),
            sent: Vec::new(),
            coords: None,
            stats: BuildStats::default(),
            source: None,
        }
    }

    /// Number of processes.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Whether the input kept per-direction bytes.
    pub fn is_directed(&self) -> bool {
        self.directed
    }

    /// Number of communicating pairs `{u, v}` (each undirected pair once).
    pub fn num_edges(&self) -> usize {
        self.targets.len() / 2
    }

    /// Number of directed messages `u → v` with bytes > 0.
    pub fn num_messages(&self) -> usize {
        self.sent.iter().filter(|&&s| s > 0.0).count()
    }

    /// Number of CSR entries (2 × pairs).
    pub fn num_entries(&self) -> usize {
        self.targets.len()
    }

    pub fn build_stats(&self) -> BuildStats {
        self.stats
    }

    /// Partners of `u` (sorted).
    #[inline]
    pub fn neighbors(&self, u: usize) -> &[u32] {
        &self.targets[self.offsets[u]..self.offsets[u + 1]]
    }

    /// Bytes sent by `u` to each of its partners, aligned with [`Self::neighbors`].
    #[inline]
    pub fn sent_row(&self, u: usize) -> &[f64] {
        &self.sent[self.offsets[u]..self.offsets[u + 1]]
    }

    /// Iterate `(v, sent u→v, pair volume c_uv)` over `u`'s partners.
    /// O(deg(u) · log deg(v)) because the reverse direction is looked up.
    pub fn edges_of(&self, u: usize) -> impl Iterator<Item = (usize, f64, f64)> + '_ {
        self.neighbors(u)
            .iter()
            .zip(self.sent_row(u))
            .map(move |(&v, &s)| (v as usize, s, s + self.sent_between(v as usize, u)))
    }

    /// Degree (number of distinct partners).
    #[inline]
    pub fn degree(&self, u: usize) -> usize {
        self.offsets[u + 1] - self.offsets[u]
    }

    /// CSR row offsets (length n+1).
    pub fn offsets(&self) -> &[usize] {
        &self.offsets
    }
    /// CSR column indices.
    pub fn targets(&self) -> &[u32] {
        &self.targets
    }
    /// CSR per-entry bytes sent (row → column).
    pub fn sent(&self) -> &[f64] {
        &self.sent
    }

    /// Bytes sent from `u` to `v` (0 if they do not communicate). O(log deg u).
    pub fn sent_between(&self, u: usize, v: usize) -> f64 {
        let row = self.neighbors(u);
        match row.binary_search(&(v as u32)) {
            Ok(k) => self.sent[self.offsets[u] + k],
            Err(_) => 0.0,
        }
    }

    /// Pair volume `c_uv = sent(u,v) + sent(v,u)`.
    pub fn volume(&self, u: usize, v: usize) -> f64 {
        self.sent_between(u, v) + self.sent_between(v, u)
    }

    /// Total bytes sent by `u` plus received by `u`.
    pub fn weighted_degree(&self, u: usize) -> f64 {
        self.edges_of(u).map(|(_, _, c)| c).sum()
    }

    /// Total bytes in the graph (Σ over pairs of c_uv). An empty graph
    /// gives +0 (an empty f64 sum is −0).
    pub fn total_bytes(&self) -> f64 {
        self.sent.iter().sum::<f64>() + 0.0
    }

    /// Iterate each undirected pair once as `(u, v, c_uv)` with `u < v`.
    pub fn pairs(&self) -> impl Iterator<Item = (usize, usize, f64)> + '_ {
        (0..self.n).flat_map(move |u| {
            self.neighbors(u)
                .iter()
                .zip(self.sent_row(u))
                .filter(move |(v, _)| (**v as usize) > u)
                .map(move |(&v, &s)| {
                    let v = v as usize;
                    (u, v, s + self.sent_between(v, u))
                })
        })
    }

    /// Iterate every directed message `(u, v, bytes)` with bytes > 0.
    pub fn messages(&self) -> impl Iterator<Item = (usize, usize, f64)> + '_ {
        (0..self.n).flat_map(move |u| {
            self.neighbors(u)
                .iter()
                .zip(self.sent_row(u))
                .filter(|(_, s)| **s > 0.0)
                .map(move |(&v, &s)| (u, v as usize, s))
        })
    }

    pub fn coords(&self) -> Option<&Coords> {
        self.coords.as_ref()
    }

    /// Attach coordinates; their count must equal `n`.
    pub fn set_coords(&mut self, coords: Option<Coords>) -> Result<()> {
        if let Some(c) = &coords
            && c.xyz.len() != self.n
        {
            return Err(Error::Unsupported(format!(
                "{} coordinates given for {} processes",
                c.xyz.len(),
                self.n
            )));
        }
        self.coords = coords;
        Ok(())
    }

    pub fn with_coords(mut self, coords: Option<Coords>) -> Result<Self> {
        self.set_coords(coords)?;
        Ok(self)
    }

    /// What the input held beyond bytes (see [`SourceInfo`]).
    pub fn source(&self) -> Option<&SourceInfo> {
        self.source.as_deref()
    }

    /// Attach what the input held beyond bytes. `info.msgs`, when given,
    /// must be aligned with [`Self::sent`].
    pub fn with_source(mut self, info: SourceInfo) -> Result<Self> {
        if let Some(m) = &info.msgs
            && m.len() != self.sent.len()
        {
            return Err(Error::Unsupported(format!(
                "{} message counts given for {} graph entries",
                m.len(),
                self.sent.len()
            )));
        }
        self.source = Some(std::sync::Arc::new(info));
        Ok(self)
    }

    /// Message counts aligned with [`Self::sent`] from `(u, v, count)`
    /// triples (duplicates summed); a triple whose `u → v` carries no
    /// bytes adds nothing. O(k log d).
    pub fn align_counts(&self, counts: impl IntoIterator<Item = (usize, usize, f64)>) -> Vec<f64> {
        let mut out = vec![0.0; self.sent.len()];
        for (u, v, c) in counts {
            if u >= self.n {
                continue;
            }
            if let Ok(k) = self.neighbors(u).binary_search(&(v as u32)) {
                let at = self.offsets[u] + k;
                if self.sent[at] > 0.0 {
                    out[at] += c;
                }
            }
        }
        out
    }

    /// Message counts aligned with [`Self::sent`], when the input had them.
    pub fn msg_counts(&self) -> Option<&[f64]> {
        self.source()?.msgs.as_deref()
    }

    /// Messages sent from `u` to `v`, when the input had counts.
    pub fn msgs_between(&self, u: usize, v: usize) -> Option<f64> {
        let m = self.msg_counts()?;
        Some(match self.neighbors(u).binary_search(&(v as u32)) {
            Ok(k) => m[self.offsets[u] + k],
            Err(_) => 0.0,
        })
    }

    /// Connected components (of the undirected support). Returns the
    /// component id of every process and the number of components. O(n + m).
    pub fn components(&self) -> (Vec<u32>, usize) {
        let mut comp = vec![u32::MAX; self.n];
        let mut count = 0u32;
        let mut stack = Vec::new();
        for s in 0..self.n {
            if comp[s] != u32::MAX {
                continue;
            }
            comp[s] = count;
            stack.push(s);
            while let Some(u) = stack.pop() {
                for &v in self.neighbors(u) {
                    if comp[v as usize] == u32::MAX {
                        comp[v as usize] = count;
                        stack.push(v as usize);
                    }
                }
            }
            count += 1;
        }
        (comp, count as usize)
    }

    /// A petgraph view of the undirected support with pair volumes as weights,
    /// for algorithms from petgraph. O(n + m).
    pub fn to_petgraph(&self) -> petgraph::graph::UnGraph<(), f64> {
        let mut g = petgraph::graph::UnGraph::with_capacity(self.n, self.num_edges());
        for _ in 0..self.n {
            g.add_node(());
        }
        for (u, v, c) in self.pairs() {
            g.add_edge(
                petgraph::graph::NodeIndex::new(u),
                petgraph::graph::NodeIndex::new(v),
                c,
            );
        }
        g
    }
}

/// The facts `hopmap info` reports about a graph.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct GraphSummary {
    pub processes: usize,
    /// Communicating pairs (each undirected pair once).
    pub edges: usize,
    /// Directed messages with bytes > 0.
    pub messages: usize,
    pub directed: bool,
    pub total_bytes: f64,
    pub min_degree: usize,
    pub max_degree: usize,
    pub mean_degree: f64,
    pub max_weighted_degree: f64,
    pub components: usize,
    pub largest_component: usize,
    /// 2 or 3 when coordinates are present.
    pub coordinates: Option<usize>,
    pub input_edges: usize,
    pub self_loops_dropped: usize,
    pub zero_weights_dropped: usize,
    pub duplicates_merged: usize,
    /// Messages counted by the input (Open MPI monitoring), if it had counts.
    pub total_msgs: Option<f64>,
    /// Message-size histogram (see [`SIZE_HISTOGRAM_BUCKETS`]), if any.
    pub size_histogram: Option<Vec<u64>>,
    /// What the numbers mean and what was left out (from the reader).
    pub notes: Vec<String>,
}

impl GraphSummary {
    /// Compute in O(n + m).
    pub fn of(g: &CommGraph) -> Self {
        let n = g.n();
        let degs = (0..n).map(|u| g.degree(u));
        let (comp, k) = g.components();
        let mut sizes = vec![0usize; k];
        for c in comp {
            sizes[c as usize] += 1;
        }
        let st = g.build_stats();
        GraphSummary {
            processes: n,
            edges: g.num_edges(),
            messages: g.num_messages(),
            directed: g.is_directed(),
            total_bytes: g.total_bytes(),
            min_degree: degs.clone().min().unwrap_or(0),
            max_degree: degs.clone().max().unwrap_or(0),
            mean_degree: if n > 0 {
                g.num_entries() as f64 / n as f64
            } else {
                0.0
            },
            max_weighted_degree: (0..n).map(|u| g.weighted_degree(u)).fold(0.0, f64::max),
            components: k,
            largest_component: sizes.into_iter().max().unwrap_or(0),
            coordinates: g.coords().map(|c| c.dim),
            input_edges: st.input_edges,
            self_loops_dropped: st.self_loops_dropped,
            zero_weights_dropped: st.zero_weights_dropped,
            duplicates_merged: st.duplicates_merged,
            total_msgs: g.msg_counts().map(|m| m.iter().sum::<f64>() + 0.0),
            size_histogram: g.source().and_then(|s| s.size_histogram.clone()),
            notes: g.source().map(|s| s.notes.clone()).unwrap_or_default(),
        }
    }

    /// Human-readable lines.
    pub fn to_text(&self, name: &str) -> String {
        let mut s = String::new();
        use std::fmt::Write;
        let _ = writeln!(s, "graph:         {name}");
        let _ = writeln!(s, "processes:     {}", self.processes);
        let _ = writeln!(
            s,
            "edges:         {} communicating pairs ({} directed messages, {})",
            self.edges,
            self.messages,
            if self.directed {
                "directed input"
            } else {
                "symmetric input"
            }
        );
        let _ = writeln!(s, "total bytes:   {}", fmt_bytes_exact(self.total_bytes));
        let _ = writeln!(
            s,
            "degree:        min {} / mean {:.2} / max {} (max bytes per process {})",
            self.min_degree,
            self.mean_degree,
            self.max_degree,
            fmt_bytes_exact(self.max_weighted_degree)
        );
        let _ = writeln!(
            s,
            "components:    {} (largest {} processes)",
            self.components, self.largest_component
        );
        let _ = writeln!(
            s,
            "coordinates:   {}",
            match self.coordinates {
                Some(d) => format!("yes, {d}D"),
                None => "no".into(),
            }
        );
        let _ = writeln!(
            s,
            "input:         {} edges read, {} self-loops dropped, {} zero weights dropped, {} duplicates summed",
            self.input_edges,
            self.self_loops_dropped,
            self.zero_weights_dropped,
            self.duplicates_merged
        );
        if let Some(m) = self.total_msgs {
            let _ = writeln!(
                s,
                "messages:      {m} counted ({} per message on average)",
                if m > 0.0 {
                    crate::units::fmt_bytes((self.total_bytes / m).round())
                } else {
                    "-".into()
                }
            );
        }
        if let Some(h) = &self.size_histogram {
            let _ = writeln!(s, "message sizes: {}", histogram_text(h));
        }
        for note in &self.notes {
            let _ = writeln!(s, "note:          {note}");
        }
        s
    }
}

/// The range of message sizes histogram bucket `k` counts, e.g. `1–2 KiB`.
pub fn histogram_bucket_label(k: usize) -> String {
    let unit = |e: usize| -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
        format!(
            "{} {}",
            1u64 << (e % 10),
            units[(e / 10).min(units.len() - 1)]
        )
    };
    match k {
        0 => "0 B".into(),
        k if k + 1 >= SIZE_HISTOGRAM_BUCKETS => format!("≥ {}", unit(k - 1)),
        k => format!("{}–{}", unit(k - 1), unit(k)),
    }
}

/// The non-empty buckets of a size histogram on one line:
/// `1–2 KiB: 12, 4–8 KiB: 3`.
pub fn histogram_text(h: &[u64]) -> String {
    let parts: Vec<String> = h
        .iter()
        .enumerate()
        .filter(|(_, c)| **c > 0)
        .map(|(k, c)| format!("{}: {c}", histogram_bucket_label(k)))
        .collect();
    if parts.is_empty() {
        "none".into()
    } else {
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetric_build_sums_duplicates_and_drops() {
        let mut b = GraphBuilder::new(4, false);
        b.add(0, 1, 10.0);
        b.add(1, 0, 6.0); // duplicate of {0,1}
        b.add(2, 2, 5.0); // self loop
        b.add(2, 3, 0.0); // zero
        b.add(1, 2, 4.0);
        let g = b.build().unwrap();
        assert_eq!(g.num_edges(), 2);
        assert_eq!(g.volume(0, 1), 16.0);
        assert_eq!(g.sent_between(0, 1), 8.0);
        assert_eq!(g.volume(1, 2), 4.0);
        assert_eq!(g.total_bytes(), 20.0);
        let s = g.build_stats();
        assert_eq!(s.input_edges, 5);
        assert_eq!(s.self_loops_dropped, 1);
        assert_eq!(s.zero_weights_dropped, 1);
        assert_eq!(s.duplicates_merged, 1);
        let pairs: Vec<_> = g.pairs().collect();
        assert_eq!(pairs, vec![(0, 1, 16.0), (1, 2, 4.0)]);
    }

    #[test]
    fn directed_build_keeps_directions() {
        let mut b = GraphBuilder::new(3, true);
        b.add(0, 1, 10.0);
        b.add(1, 0, 6.0);
        b.add(0, 1, 1.0);
        let g = b.build().unwrap();
        assert_eq!(g.num_edges(), 1);
        assert_eq!(g.sent_between(0, 1), 11.0);
        assert_eq!(g.sent_between(1, 0), 6.0);
        assert_eq!(g.num_messages(), 2);
        assert_eq!(g.build_stats().duplicates_merged, 1);
        let (_, k) = g.components();
        assert_eq!(k, 2);
    }
}
