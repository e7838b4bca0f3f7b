//! Readers and writers of communication graphs, coordinates and mappings.
//!
//! | format | extensions | reader | writer |
//! |---|---|---|---|
//! | MatrixMarket coordinate ([`matrix_market`]) | `.mtx` | ✓ (general → directed, symmetric → pair volumes) | ✓ |
//! | METIS ([`metis`]) | `.graph`, `.metis` | ✓ | ✓ (fmt 001, integer weights) |
//! | Scotch source graph ([`scotch`]) | `.grf`, `.src` | ✓ | – |
//! | edge list / CSV ([`edge_list`]) | `.txt`, `.edges`, `.csv`, `.el` | ✓ | ✓ |
//! | dense matrix ([`dense`]; also `profile2mat`, `ompi_monitoring_prof.so` and EZTrace matrices) | `.mat`, `.dense`, `.dat` | ✓ (directed) | ✓ |
//! | Graphviz DOT subset ([`dot`]) | `.dot`, `.gv` | ✓ (+ `pos` coordinates) | ✓ |
//! | Open MPI monitoring ([`ompi_monitoring`]) | a folder, a prefix, `.prof` | ✓ (directed, message counts, phases) | ✓ (one aggregated file) |
//!
//! METIS and Scotch loads are integers that these tools keep in 32 bits:
//! weights whose sum would not fit are divided by a power of ten
//! ([`weight_divisor`]), stated in the file where the format has comments.
//!
//! Coordinates files ([`coords`]) and mapping files ([`mapping_file`]) have
//! their own readers. Unknown extensions are detected by content
//! ([`detect_format`]). Every reader works on the bytes in memory, never
//! panics, and reports a malformed file as one line
//! `PATH:LINE: what was expected, what was found` ([`Error::Parse`]).

pub mod adjacency;
pub mod atomic;
pub mod coords;
pub mod dense;
pub mod dot;
pub mod edge_list;
pub mod hostlist;
pub mod launcher;
pub mod mapping_file;
pub mod matrix_market;
pub mod metis;
pub mod ompi_capture;
pub mod ompi_monitoring;
pub mod scotch;
pub mod text;

use crate::error::{Error, Result};
use crate::graph::{CommGraph, Coords};
use crate::mapping::Mapping;
use crate::topology::Topology;
use std::io::Write;
use std::path::Path;

pub use text::MAX_PROCESSES;

/// A communication graph file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// MatrixMarket coordinate (`.mtx`).
    Mtx,
    /// METIS graph (`.graph`, `.metis`).
    Metis,
    /// Scotch source graph (`.grf`, `.src`).
    Scotch,
    /// Edge list or CSV `src dst [bytes]` (`.txt`, `.edges`, `.csv`, `.el`).
    EdgeList,
    /// Dense n×n matrix, row = sender (`.mat`, `.dense`).
    Dense,
    /// Graphviz DOT subset (`.dot`, `.gv`).
    Dot,
    /// Open MPI monitoring output (a folder, a prefix, `.prof` files).
    Prof,
}

impl Format {
    pub const ALL: [Format; 7] = [
        Format::Mtx,
        Format::Metis,
        Format::Scotch,
        Format::EdgeList,
        Format::Dense,
        Format::Dot,
        Format::Prof,
    ];

    /// The name a command line or a settings file uses (`mtx`, `edge-list`, …).
    pub fn id(self) -> &'static str {
        match self {
            Format::Mtx => "mtx",
            Format::Metis => "metis",
            Format::Scotch => "scotch",
            Format::EdgeList => "edge-list",
            Format::Dense => "dense",
            Format::Dot => "dot",
            Format::Prof => "prof",
        }
    }

    /// The format whose [`id`](Self::id) is `id`.
    pub fn from_id(id: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.id() == id)
    }

    /// A short human name.
    pub fn name(self) -> &'static str {
        match self {
            Format::Mtx => "MatrixMarket",
            Format::Metis => "METIS",
            Format::Scotch => "Scotch",
            Format::EdgeList => "edge list",
            Format::Dense => "dense matrix",
            Format::Dot => "DOT",
            Format::Prof => "Open MPI monitoring",
        }
    }

    /// The format a file extension implies (case-insensitive), if any.
    pub fn from_extension(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "mtx" => Format::Mtx,
            "graph" | "metis" => Format::Metis,
            "grf" | "src" => Format::Scotch,
            "txt" | "edges" | "csv" | "el" => Format::EdgeList,
            "mat" | "dense" | "dat" => Format::Dense,
            "dot" | "gv" => Format::Dot,
            "prof" => Format::Prof,
            _ => return None,
        })
    }

    /// Whether [`write_graph`] supports this format (all do).
    pub fn can_write(self) -> bool {
        true
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How to read a graph file.
#[derive(Clone, Debug, Default)]
pub struct ReadOptions {
    /// Force a format instead of detecting it.
    pub format: Option<Format>,
    /// Edge lists: ids start at 1.
    pub one_based: bool,
    /// Open MPI monitoring: which traffic becomes the graph.
    pub traffic: ompi_monitoring::Traffic,
    /// Open MPI monitoring: the phase to read (`None`: all, summed).
    pub phase: Option<String>,
}

/// Drop a leading UTF-8 byte order mark (editors on Windows add one).
fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

/// Largest input file any reader accepts (2 GiB): far above any graph of
/// [`MAX_PROCESSES`] processes that fits in memory, and a clear error instead
/// of reading `/dev/zero` or a runaway pipe until memory runs out.
pub const MAX_INPUT_BYTES: u64 = 1 << 31;

/// Read a whole input file, at most [`MAX_INPUT_BYTES`]. A regular file
/// that is larger is refused before reading; a device or pipe is read in
/// chunks up to the cap. Text formats only: a NUL byte in the first chunk
/// (binary data, `/dev/zero`) ends the read at once with an error. Memory
/// is reserved fallibly, so running out of it is an error, not an abort.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    use std::io::Read;
    let too_big = |len: String| {
        Error::io(
            path,
            std::io::Error::new(
                std::io::ErrorKind::FileTooLarge,
                format!(
                    "expected an input file of at most {} (hopmap's cap), found {len}",
                    crate::units::fmt_bytes_exact(MAX_INPUT_BYTES as f64)
                ),
            ),
        )
    };
    let mut file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let meta = file.metadata().map_err(|e| Error::io(path, e))?;
    if meta.is_dir() {
        return Err(Error::io(
            path,
            std::io::Error::new(
                std::io::ErrorKind::IsADirectory,
                "expected a file, found a folder",
            ),
        ));
    }
    if meta.is_file() && meta.len() > MAX_INPUT_BYTES {
        return Err(too_big(crate::units::fmt_bytes_exact(meta.len() as f64)));
    }
    let hint = if meta.is_file() {
        meta.len() as usize
    } else {
        0
    };
    let mut buf: Vec<u8> = Vec::new();
    let oom = |e| {
        Error::io(
            path,
            std::io::Error::new(
                std::io::ErrorKind::OutOfMemory,
                format!("not enough memory to read the file ({e})"),
            ),
        )
    };
    // Room for the whole file plus one byte, so that the read which finds
    // the end needs no growth; only the bytes about to be read are zeroed.
    buf.try_reserve_exact(hint.saturating_add(1).max(1 << 12))
        .map_err(oom)?;
    const CHUNK: usize = 1 << 20;
    let mut checked_binary = false;
    loop {
        if buf.capacity() == buf.len() {
            let more = buf.capacity().clamp(1 << 16, CHUNK);
            buf.try_reserve(more).map_err(oom)?;
        }
        let start = buf.len();
        let room = (buf.capacity() - start).min(CHUNK);
        buf.resize(start + room, 0);
        let k = loop {
            match file.read(&mut buf[start..]) {
                Ok(k) => break k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Error::io(path, e)),
            }
        };
        buf.truncate(start + k);
        if !checked_binary && (buf.len() >= 4096 || k == 0) {
            checked_binary = true;
            let head = &buf[..buf.len().min(CHUNK)];
            if let Some(at) = head.iter().position(|&b| b == 0) {
                return Err(Error::parse(
                    path,
                    1 + head[..at].iter().filter(|&&b| b == b'\n').count(),
                    format!("expected a text file, found binary data (a NUL byte at offset {at})"),
                ));
            }
        }
        if k == 0 {
            break;
        }
        if buf.len() as u64 > MAX_INPUT_BYTES {
            return Err(too_big(format!(
                "more than that (stopped reading at {})",
                crate::units::fmt_bytes_exact(buf.len() as f64)
            )));
        }
    }
    Ok(buf)
}

/// Read a graph file (format from `opts`, else detected); attaches the
/// coordinates the format carries (DOT `pos`).
///
/// ```
/// use hopmap_core::generate::{GenOptions, generate};
/// use hopmap_core::io::{self, Format, ReadOptions};
///
/// let path = std::env::temp_dir().join(format!("hopmap-doc-read-{}.mtx", std::process::id()));
/// io::write_graph(&path, &generate("stencil:4x4", &GenOptions::default())?, Format::Mtx)?;
/// // The format is detected from the extension, then from the content.
/// let graph = io::read_graph(&path, &ReadOptions::default())?;
/// assert_eq!(graph.n(), 16);
/// assert_eq!(graph.num_edges(), 24);
/// std::fs::remove_file(&path)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_graph(path: &Path, opts: &ReadOptions) -> Result<CommGraph> {
    let prof = match opts.format {
        Some(f) => f == Format::Prof,
        None => ompi_monitoring::is_monitoring_path(path),
    };
    if prof {
        return ompi_monitoring::read(path, opts.traffic, opts.phase.as_deref());
    }
    let bytes = read_bytes(path)?;
    parse_graph(&bytes, path, opts)
}

/// [`read_graph`] from bytes in memory; `path` labels errors and drives
/// detection by extension.
///
/// ```
/// use hopmap_core::io::{self, ReadOptions};
/// use std::path::Path;
///
/// // An edge list, `src dst bytes` per line; each line adds to the pair's volume.
/// let text = b"# a chain of three processes\n0 1 1000\n1 2 500\n2 1 500\n";
/// let graph = io::parse_graph(text, Path::new("chain.txt"), &ReadOptions::default())?;
/// assert_eq!(graph.n(), 3);
/// assert_eq!(graph.num_edges(), 2);
/// assert_eq!(graph.volume(1, 2), 1000.0);
///
/// // A line that does not parse is an error naming the file and the line.
/// let bad = io::parse_graph(b"0 1 5\n0 x 5\n", Path::new("bad.txt"), &ReadOptions::default());
/// assert!(bad.unwrap_err().to_string().starts_with("bad.txt:2:"));
/// # Ok::<(), hopmap_core::Error>(())
/// ```
pub fn parse_graph(bytes: &[u8], path: &Path, opts: &ReadOptions) -> Result<CommGraph> {
    let bytes = strip_bom(bytes);
    let format = match opts.format {
        Some(f) => f,
        None => detect_format(path, bytes).ok_or_else(|| {
            Error::parse(
                path,
                1,
                "expected a graph in a known format (MatrixMarket, METIS, Scotch, edge list, \
                 dense matrix, DOT, Open MPI monitoring), found none that fits; use --format",
            )
        })?,
    };
    let r = match format {
        Format::Mtx => matrix_market::parse(bytes, path),
        Format::Metis => metis::parse(bytes, path),
        Format::Scotch => scotch::parse(bytes, path),
        Format::EdgeList => edge_list::parse(bytes, path, opts.one_based),
        Format::Dense => dense::parse(bytes, path),
        Format::Dot => dot::parse(bytes, path),
        Format::Prof => ompi_monitoring::parse(bytes, path, opts.traffic),
    };
    let r = r.and_then(|g| match dense::meaning(path) {
        Some(m) if format == Format::Dense => {
            let mut info = g.source().cloned().unwrap_or_default();
            info.notes.push(m);
            g.with_source(info)
        }
        _ => Ok(g),
    });
    // Errors of the graph as a whole (from the builder: bytes that
    // overflow) are errors of the file, reported at its end.
    r.map_err(|e| match e {
        Error::Unsupported(m) => Error::parse(path, text::eof_line(bytes), m),
        e => e,
    })
}

/// How many bytes content detection looks at.
const DETECT_PREFIX: usize = 1 << 20;

/// The format of a graph file: by extension, then by content (see
/// [`detect_content`]).
pub fn detect_format(path: &Path, bytes: &[u8]) -> Option<Format> {
    Format::from_extension(path).or_else(|| detect_content(bytes))
}

/// Guess a format from the content (the first MiB):
/// 1. a `%%MatrixMarket` banner → MatrixMarket;
/// 2. first word `graph`, `digraph` or `strict` → DOT;
/// 3. first line exactly `0`, then two lines of two integers → Scotch;
/// 4. every non-comment line has the same count of numbers, equal to the
///    number of lines → dense;
/// 5. a METIS header `n m [fmt [ncon]]` followed by exactly `n` vertex lines
///    whose neighbour ids are all in `1..=n` → METIS;
/// 6. lines of 2 or 3 numbers (an optional header line) → edge list.
pub fn detect_content(bytes: &[u8]) -> Option<Format> {
    let bytes = strip_bom(bytes);
    let whole = bytes.len() <= DETECT_PREFIX;
    let mut pre = &bytes[..bytes.len().min(DETECT_PREFIX)];
    if !whole {
        // Drop the last, possibly cut, line.
        if let Some(k) = pre.iter().rposition(|&b| b == b'\n') {
            pre = &pre[..k];
        }
    }
    if ompi_monitoring::looks_like(pre) {
        return Some(Format::Prof);
    }
    let start = text::trim(pre);
    if start.len() >= 14 && start[..14].eq_ignore_ascii_case(b"%%MatrixMarket") {
        return Some(Format::Mtx);
    }
    // DOT: skip comments, look at the first word.
    let first_word = first_dot_word(pre);
    if ["graph", "digraph", "strict"]
        .iter()
        .any(|k| first_word.eq_ignore_ascii_case(k.as_bytes()))
    {
        return Some(Format::Dot);
    }
    // Lines without comments: (line, numbers count, all numeric, first fields).
    let content: Vec<&[u8]> = text::Lines::new(pre)
        .map(|(_, l)| l)
        .filter(|l| !text::is_blank(l))
        .collect();
    // Scotch.
    let count = |l: &[u8]| text::Fields::new(l, false).count();
    let all_uint = |l: &[u8]| text::Fields::new(l, false).all(|t| text::parse_u64(t).is_some());
    if content.len() >= 3
        && text::trim(content[0]) == b"0"
        && count(content[1]) == 2
        && all_uint(content[1])
        && count(content[2]) == 2
        && all_uint(content[2])
    {
        return Some(Format::Scotch);
    }
    // Dense: comments `#`/`%` stripped, separators whitespace or comma.
    let rows: Vec<&[u8]> = text::Lines::new(pre)
        .map(|(_, l)| text::strip_comment(l, b"#%"))
        .filter(|l| !text::is_blank(l))
        .collect();
    let numeric = |l: &[u8]| text::Fields::new(l, true).all(|t| text::parse_f64(t).is_some());
    if let Some(first) = rows.first() {
        let k = text::Fields::new(first, true).count();
        let same = rows
            .iter()
            .all(|l| text::Fields::new(l, true).count() == k && numeric(l));
        if same && k >= 2 && ((whole && k == rows.len()) || (!whole && k >= rows.len())) {
            return Some(Format::Dense);
        }
    }
    if looks_like_metis(pre, whole) {
        return Some(Format::Metis);
    }
    // Edge list: every data line 2 or 3 numeric fields (first may be a header).
    let mut data = rows.iter().peekable();
    if data.peek().is_some_and(|first| {
        text::Fields::new(first, true)
            .next()
            .and_then(text::parse_u64)
            .is_none()
    }) {
        data.next();
    }
    let mut any = false;
    for l in data {
        let k = text::Fields::new(l, true).count();
        if !(2..=3).contains(&k) || !numeric(l) {
            return None;
        }
        any = true;
    }
    any.then_some(Format::EdgeList)
}

fn first_dot_word(s: &[u8]) -> &[u8] {
    let mut i = 0;
    loop {
        while i < s.len() && text::is_space(s[i]) {
            i += 1;
        }
        let rest = &s[i..];
        if rest.starts_with(b"//") || rest.starts_with(b"#") {
            while i < s.len() && s[i] != b'\n' {
                i += 1;
            }
        } else if rest.starts_with(b"/*") {
            match rest.windows(2).position(|w| w == b"*/") {
                Some(k) => i += k + 2,
                None => return b"",
            }
        } else {
            let end = rest
                .iter()
                .position(|&b| !(b.is_ascii_alphanumeric() || b == b'_'))
                .unwrap_or(rest.len());
            return &rest[..end];
        }
    }
}

fn looks_like_metis(pre: &[u8], whole: bool) -> bool {
    let mut lines = text::Lines::new(pre).filter(|(_, l)| l.first() != Some(&b'%'));
    let Some((_, h)) = lines.find(|(_, l)| !text::is_blank(l)) else {
        return false;
    };
    let f: Vec<&[u8]> = text::Fields::new(h, false).collect();
    if !(2..=4).contains(&f.len()) {
        return false;
    }
    let (Some(n), Some(_m)) = (text::parse_u64(f[0]), text::parse_u64(f[1])) else {
        return false;
    };
    let fmt_ok = f
        .get(2)
        .is_none_or(|t| t.len() <= 3 && t.iter().all(|&b| b == b'0' || b == b'1'));
    if !fmt_ok || f.get(3).is_some_and(|t| text::parse_u64(t).is_none()) {
        return false;
    }
    let plain = f.get(2).is_none_or(|t| text::parse_u64(t) == Some(0));
    let mut vertices = 0u64;
    for (_, l) in lines {
        if vertices == n {
            if !text::is_blank(l) {
                return false;
            }
            continue;
        }
        vertices += 1;
        for t in text::Fields::new(l, false) {
            match text::parse_u64(t) {
                Some(v) if !plain || (1..=n).contains(&v) => {}
                _ => return false,
            }
        }
    }
    if whole { vertices == n } else { vertices <= n }
}

/// Read a coordinates file (`x y [z]` per process).
pub fn read_coords(path: &Path) -> Result<Coords> {
    let bytes = read_bytes(path)?;
    parse_coords(&bytes, path)
}

/// [`read_coords`] from bytes in memory.
pub fn parse_coords(bytes: &[u8], path: &Path) -> Result<Coords> {
    coords::parse(strip_bom(bytes), path)
}

/// Write a coordinates file (atomically, see [`atomic`]).
pub fn write_coords(path: &Path, c: &Coords) -> Result<()> {
    atomic::write_atomic(path, |w| coords::write(w, c))
}

/// Largest sum of integer loads METIS and Scotch files get: both tools
/// keep loads and their sums in 32-bit integers in Debian's builds.
pub const MAX_INT_LOAD_SUM: u64 = (1 << 31) - 1;

/// The divisor `d` (1 or a power of ten) such that every edge load
/// `max(1, round(c / d))` of `graph`, summed over both directions, stays
/// at most [`MAX_INT_LOAD_SUM`]: 1 for every format but METIS and Scotch.
/// An error when no divisor can do it (more arcs than the limit).
pub fn weight_divisor(graph: &CommGraph, format: Format) -> Result<u64> {
    if !matches!(format, Format::Metis | Format::Scotch) {
        return Ok(1);
    }
    let arcs = graph.num_entries() as u64;
    if arcs > MAX_INT_LOAD_SUM {
        return Err(Error::Unsupported(format!(
            "expected at most {MAX_INT_LOAD_SUM} arcs for {} (32-bit loads), found {arcs}",
            format.name()
        )));
    }
    let sum = |d: f64| -> f64 {
        (0..graph.n())
            .flat_map(|u| graph.edges_of(u).map(|(_, _, c)| (c / d).round().max(1.0)))
            .sum()
    };
    let mut d = 1u64;
    while sum(d as f64) > MAX_INT_LOAD_SUM as f64 {
        d = d.checked_mul(10).ok_or_else(|| {
            Error::Unsupported(format!(
                "expected weights that {} can hold in 32 bits after scaling, found none",
                format.name()
            ))
        })?;
    }
    Ok(d)
}

/// Write `graph` to a file in `format` (atomically: a failed write leaves
/// the old file as it was). METIS and Scotch loads are divided by
/// [`weight_divisor`].
///
/// ```
/// use hopmap_core::generate::{GenOptions, generate};
/// use hopmap_core::io::{self, Format, ReadOptions};
///
/// let graph = generate("clusters:2x3", &GenOptions::default())?;
/// let path = std::env::temp_dir().join(format!("hopmap-doc-write-{}.graph", std::process::id()));
/// io::write_graph(&path, &graph, Format::Metis)?;
/// let back = io::read_graph(&path, &ReadOptions::default())?;
/// assert_eq!((back.n(), back.num_edges()), (graph.n(), graph.num_edges()));
/// assert_eq!(back.total_bytes(), graph.total_bytes());
/// std::fs::remove_file(&path)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_graph(path: &Path, graph: &CommGraph, format: Format) -> Result<()> {
    let d = weight_divisor(graph, format)?;
    atomic::write_atomic(path, |w| write_graph_to_scaled(w, graph, format, d))
}

/// Write `graph` to a stream (METIS and Scotch loads divided by
/// [`weight_divisor`]).
pub fn write_graph_to(
    w: &mut (impl Write + ?Sized),
    graph: &CommGraph,
    format: Format,
) -> std::io::Result<()> {
    let d = weight_divisor(graph, format).map_err(|e| std::io::Error::other(e.to_string()))?;
    write_graph_to_scaled(w, graph, format, d)
}

fn write_graph_to_scaled(
    w: &mut (impl Write + ?Sized),
    graph: &CommGraph,
    format: Format,
    divisor: u64,
) -> std::io::Result<()> {
    match format {
        Format::Mtx => matrix_market::write(w, graph),
        Format::Metis => metis::write(w, graph, divisor),
        Format::Scotch => scotch::write(w, graph, divisor),
        Format::EdgeList => edge_list::write(w, graph),
        Format::Dot => dot::write(w, graph),
        Format::Dense => dense::write(w, graph),
        Format::Prof => ompi_monitoring::write(w, graph),
    }
}

/// Read a mapping file for `n` processes on `topo` (see [`mapping_file`]).
pub fn read_mapping(path: &Path, topo: &Topology, n: usize) -> Result<Mapping> {
    let bytes = read_bytes(path)?;
    parse_mapping(&bytes, path, topo, n)
}

/// [`read_mapping`] from bytes in memory. A file that `hopmap map --format
/// plain` wrote (its first line is the `# hopmap mapping: … rank node core`
/// header) is read as `rank node core` lines, so map's output feeds eval.
pub fn parse_mapping(bytes: &[u8], path: &Path, topo: &Topology, n: usize) -> Result<Mapping> {
    let bytes = strip_bom(bytes);
    let first = bytes.split(|&b| b == b'\n').next().unwrap_or(&[]);
    let first = String::from_utf8_lossy(first);
    if first.starts_with("# hopmap mapping:") && first.trim_end().ends_with("rank node core") {
        let text = String::from_utf8_lossy(bytes);
        return plain_mapping(&text, path, topo, n);
    }
    // Without the header, a `rank node core` file (3 numbers a line) can
    // also read as `x y z` coordinates (or `x y t`). Read it both ways: when
    // only one gives a valid mapping, that is the format; when both do and
    // they differ, refuse rather than guess.
    let as_lines = mapping_file::parse(bytes, path, topo, n);
    let three = text::Lines::new(bytes)
        .map(|(_, l)| text::strip_comment(l, b"#"))
        .filter(|l| !text::is_blank(l))
        .all(|l| text::Fields::new(l, false).count() == 3);
    let as_plain = if three && n > 0 {
        plain_mapping(&String::from_utf8_lossy(bytes), path, topo, n).ok()
    } else {
        None
    };
    match (as_lines, as_plain) {
        (Ok(a), Some(b)) if a != b => Err(Error::parse(
            path,
            1,
            "expected a mapping file whose format is clear, found lines that read both as \
             `rank node core` (a `hopmap map --format plain` file without its `# hopmap \
             mapping: … rank node core` header) and as node coordinates, giving different \
             mappings; put that header line first, or write one node index per line",
        )),
        (Ok(a), _) => Ok(a),
        (Err(_), Some(b)) => Ok(b),
        (Err(e), None) => Err(e),
    }
}

/// A plain `rank node core` mapping checked against `topo`; every error
/// names the line of the rank at fault (the last line for a missing one).
fn plain_mapping(text: &str, path: &Path, topo: &Topology, n: usize) -> Result<Mapping> {
    let m = launcher::parse_plain(text, path)?;
    let eof = text::eof_line(text.as_bytes());
    if m.len() != n {
        return Err(Error::parse(
            path,
            eof,
            format!("expected {n} ranks (one per process), found {}", m.len()),
        ));
    }
    let (nodes, cores) = (topo.num_nodes(), topo.cores());
    // A hash map, not a slot-sized array: memory follows the mapping.
    let mut owner: std::collections::HashMap<(u32, u32), usize> =
        std::collections::HashMap::with_capacity(n);
    for p in 0..n {
        let (nd, c) = (m.node[p], m.core[p]);
        let at = |msg: String| Error::parse(path, launcher::rank_line(text, p), msg);
        if nd as usize >= nodes {
            return Err(at(format!(
                "expected rank {p}'s node from 0 to {} ({topo}), found {nd}",
                nodes - 1
            )));
        }
        if c as usize >= cores {
            return Err(at(format!(
                "expected rank {p}'s core from 0 to {} ({topo}), found {c}",
                cores - 1
            )));
        }
        if let Some(q) = owner.insert((nd, c), p) {
            return Err(at(format!(
                "expected one rank per slot, found ranks {q} (line {}) and {p} on node {nd} core {c}",
                launcher::rank_line(text, q)
            )));
        }
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphBuilder;

    #[test]
    fn detect_by_extension_then_content() {
        let p = Path::new("x.unknown");
        assert_eq!(detect_format(Path::new("a.MTX"), b""), Some(Format::Mtx));
        assert_eq!(detect_format(Path::new("a.gv"), b""), Some(Format::Dot));
        assert_eq!(
            detect_format(Path::new("a.csv"), b""),
            Some(Format::EdgeList)
        );
        assert_eq!(
            detect_format(p, b"%%MatrixMarket matrix coordinate real general\n1 1 0\n"),
            Some(Format::Mtx)
        );
        assert_eq!(
            detect_format(p, b"// hi\n/* x */ digraph { a -> b }"),
            Some(Format::Dot)
        );
        assert_eq!(
            detect_format(p, b"0\n2 2\n0 000\n1 1\n1 0\n"),
            Some(Format::Scotch)
        );
        assert_eq!(
            detect_format(p, b"0 1 2\n1 0 2\n2 2 0\n"),
            Some(Format::Dense)
        );
        // METIS: header + 3 vertex lines with neighbours in 1..=3.
        assert_eq!(detect_format(p, b"3 2\n2\n1 3\n2\n"), Some(Format::Metis));
        assert_eq!(
            detect_format(p, b"src dst\n0 1\n1 5 3.5\n"),
            Some(Format::EdgeList)
        );
        assert_eq!(detect_format(p, b"\x00\x01binary"), None);
        assert_eq!(detect_format(p, b""), None);
    }

    #[test]
    fn parse_graph_detects_and_forces() {
        let p = Path::new("x");
        let g = parse_graph(b"0 1 5\n", p, &ReadOptions::default()).unwrap();
        assert_eq!(g.volume(0, 1), 5.0);
        let opts = ReadOptions {
            format: Some(Format::EdgeList),
            one_based: true,
            ..Default::default()
        };
        let g = parse_graph(b"1 2 5\n", p, &opts).unwrap();
        assert_eq!(g.n(), 2);
        // A byte order mark is not a header line.
        let g = parse_graph(b"\xEF\xBB\xBF0 1 5\n", p, &ReadOptions::default()).unwrap();
        assert_eq!(g.volume(0, 1), 5.0);
        let g = parse_graph(
            b"\xEF\xBB\xBF%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n",
            p,
            &ReadOptions::default(),
        )
        .unwrap();
        assert_eq!(g.sent_between(0, 1), 1.0);
        let e = parse_graph(b"\x00", p, &ReadOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("x:1: expected a graph in a known format"),
            "{e}"
        );
    }

    #[test]
    fn files_round_trip_and_unsupported_writers() {
        let dir = std::env::temp_dir().join(format!("hopmap-io-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut b = GraphBuilder::new(4, false);
        b.add(0, 1, 2.0);
        b.add(2, 3, 6.0);
        b.add(1, 2, 1.0);
        let g = b.build().unwrap();
        for (f, ext) in [
            (Format::Mtx, "mtx"),
            (Format::Metis, "graph"),
            (Format::EdgeList, "txt"),
            (Format::Dot, "dot"),
            (Format::Scotch, "grf"),
            (Format::Dense, "mat"),
        ] {
            let path = dir.join(format!("g.{ext}"));
            write_graph(&path, &g, f).unwrap();
            let h = read_graph(&path, &ReadOptions::default()).unwrap();
            let a: Vec<_> = g.pairs().collect();
            let b: Vec<_> = h.pairs().collect();
            assert_eq!(a, b, "{f}");
        }
        let c = Coords::new(3, vec![[1.0, 2.0, 3.0], [0.5, 0.0, -1.0]]);
        write_coords(&dir.join("c.txt"), &c).unwrap();
        assert_eq!(read_coords(&dir.join("c.txt")).unwrap(), c);
        let e = read_graph(&dir.join("missing.mtx"), &ReadOptions::default()).unwrap_err();
        assert!(matches!(e, Error::Io { .. }));
        std::fs::remove_dir_all(&dir).ok();
    }
}
