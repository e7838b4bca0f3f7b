//! Saved workspaces: the `.hopmap` file (JSON) that holds a whole session —
//! the communication graph (its file's path with a fingerprint of its bytes,
//! or the graph itself, embedded, when it was generated or came from a
//! lesson), the network, the routing, the mapper with its parameters and
//! seed, every named mapping, the graph view's layout positions and the
//! view settings.
//!
//! The file is versioned ([`VERSION`]): a file from a newer hopmap is
//! refused with a clear message. [`save`] writes through the atomic-write
//! helper (a temporary file, then a rename). [`load`] reports a malformed
//! file as `PATH:LINE: expected …, found …` and touches no state; a graph
//! file that changed since the workspace was saved is reported by
//! [`Workspace::load_graph`] as a note, not an error.
//!
//! Nothing here renders: the app collects a [`Workspace`] from its state and
//! applies one (`app::workspace_io`). Cost: O(file size).

use crate::error::{Error, Result};
use crate::graph::{CommGraph, Coords, GraphBuilder};
use crate::mapping::Mapping;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The format version this hopmap writes and reads.
pub const VERSION: u32 = 1;

/// The file name extension.
pub const EXTENSION: &str = "hopmap";

/// A saved session.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Workspace {
    /// Format version ([`VERSION`]).
    pub hopmap_workspace: u32,
    pub graph: GraphSource,
    /// The graph's display name.
    pub graph_name: String,
    /// Topology spec (`torus:8x8x8`, `bgp:4096`, `fabric:…`).
    pub topology: String,
    /// `dor` or `adaptive`.
    pub routing: String,
    pub mapper: MapperChoice,
    /// Every named mapping, the one shown first.
    #[serde(default)]
    pub mappings: Vec<NamedMapping>,
    /// Graph view positions (x, y) per process, when a layout was shown.
    #[serde(default)]
    pub layout: Option<Vec<[f32; 2]>>,
    #[serde(default)]
    pub view: ViewSettings,
    /// The lesson and its step, when one was open.
    #[serde(default)]
    pub lesson: Option<(String, usize)>,
}

/// Where the graph comes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum GraphSource {
    /// A graph file, read again on load; `fnv64` fingerprints its bytes
    /// when saved, so a changed file is noticed.
    File {
        path: PathBuf,
        fnv64: String,
        #[serde(default)]
        one_based: bool,
    },
    /// The graph itself.
    Embedded(EmbeddedGraph),
}

/// A graph written out: its messages and coordinates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EmbeddedGraph {
    pub n: usize,
    pub directed: bool,
    /// Directed graphs: `(u, v, bytes u→v)`; undirected: `(u, v, volume)`
    /// with `u < v`.
    pub edges: Vec<(u32, u32, f64)>,
    #[serde(default)]
    pub coords: Option<EmbeddedCoords>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EmbeddedCoords {
    pub dim: usize,
    pub xyz: Vec<[f64; 3]>,
}

/// The mapper panel's choice.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
pub struct MapperChoice {
    pub id: String,
    /// `KEY=VALUE,…`.
    #[serde(default)]
    pub params: String,
    #[serde(default)]
    pub seed: u64,
}

/// A mapping with the name of what produced it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NamedMapping {
    pub name: String,
    pub node: Vec<u32>,
    pub core: Vec<u32>,
    /// A row of the Compare table: the seconds its mapper ran (the row's
    /// metrics are evaluated again on load). `None` for a mapping that is
    /// only the one shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compare_seconds: Option<f64>,
}

/// The views' settings (the keys of the app's settings).
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ViewSettings {
    pub tab: String,
    pub color_mode: String,
    pub network_mode: String,
    pub heat_by_flows: bool,
    pub matrix_by_mapping: bool,
}

/// FNV-1a, 64 bits, as 16 hex digits: a fingerprint of a file's bytes.
pub fn fnv64(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

impl EmbeddedGraph {
    /// Write `g` out.
    pub fn of(g: &CommGraph) -> Self {
        let mut edges = Vec::new();
        for u in 0..g.n() {
            for (&v, &s) in g.neighbors(u).iter().zip(g.sent_row(u)) {
                if g.is_directed() {
                    if s > 0.0 {
                        edges.push((u as u32, v, s));
                    }
                } else if (u as u32) < v {
                    edges.push((u as u32, v, g.volume(u, v as usize)));
                }
            }
        }
        EmbeddedGraph {
            n: g.n(),
            directed: g.is_directed(),
            edges,
            coords: g.coords().map(|c| EmbeddedCoords {
                dim: c.dim,
                xyz: c.xyz.clone(),
            }),
        }
    }

    /// Build the graph again; `path` labels errors.
    pub fn build(&self, path: &Path) -> Result<CommGraph> {
        let bad = |msg: String| Error::Parse {
            path: path.to_path_buf(),
            line: 1,
            msg,
        };
        let mut b = GraphBuilder::new(self.n, self.directed);
        for &(u, v, w) in &self.edges {
            if u as usize >= self.n || v as usize >= self.n {
                return Err(bad(format!(
                    "expected process ids below {}, found edge {u} {v}",
                    self.n
                )));
            }
            b.add(u as usize, v as usize, w);
        }
        let g = b
            .build()
            .map_err(|e| bad(format!("expected a valid graph: {e}")))?;
        match &self.coords {
            Some(c) => g
                .with_coords(Some(Coords::new(c.dim, c.xyz.clone())))
                .map_err(|e| bad(format!("expected valid coordinates: {e}"))),
            None => Ok(g),
        }
    }
}

impl NamedMapping {
    pub fn of(name: &str, m: &Mapping) -> Self {
        NamedMapping {
            name: name.to_string(),
            node: m.node.clone(),
            core: m.core.clone(),
            compare_seconds: None,
        }
    }
    pub fn mapping(&self) -> Mapping {
        Mapping::new(self.node.clone(), self.core.clone())
    }
}

impl Workspace {
    /// Read the graph: from its file (with a note when the file changed
    /// since the workspace was saved) or from the embedded copy.
    pub fn load_graph(&self, ws_path: &Path) -> Result<(CommGraph, Option<String>)> {
        match &self.graph {
            GraphSource::File {
                path,
                fnv64: want,
                one_based,
            } => {
                // A relative path is relative to the workspace's folder.
                let p = if path.is_relative() {
                    ws_path.parent().unwrap_or(Path::new(".")).join(path)
                } else {
                    path.clone()
                };
                let bytes = crate::io::read_bytes(&p)?;
                let note = (fnv64(&bytes) != *want).then(|| {
                    format!(
                        "{} changed since the workspace was saved: the mappings may not fit it",
                        crate::error::show_path(&p)
                    )
                });
                let opts = crate::io::ReadOptions {
                    one_based: *one_based,
                    ..Default::default()
                };
                Ok((crate::io::parse_graph(&bytes, &p, &opts)?, note))
            }
            GraphSource::Embedded(e) => Ok((e.build(ws_path)?, None)),
        }
    }
}

/// Serialize (pretty JSON).
pub fn to_json(ws: &Workspace) -> Result<String> {
    serde_json::to_string_pretty(ws).map_err(|e| Error::Unsupported(e.to_string()))
}

/// Write `ws` to `path` atomically.
pub fn save(path: &Path, ws: &Workspace) -> Result<()> {
    let text = to_json(ws)?;
    crate::io::atomic::write_bytes_atomic(path, text.as_bytes())
}

/// Parse a workspace; errors read `PATH:LINE: expected …, found …`.
pub fn parse(text: &str, path: &Path) -> Result<Workspace> {
    let at = |line: usize, msg: String| Error::Parse {
        path: path.to_path_buf(),
        line: line.max(1),
        msg,
    };
    // The version first, so that a newer file is named as such even when
    // its fields changed.
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        at(
            e.line(),
            format!(
                "expected a hopmap workspace (JSON), found {}",
                strip_pos(&e)
            ),
        )
    })?;
    let version_line = text
        .lines()
        .position(|l| l.contains("\"hopmap_workspace\""))
        .map_or(1, |i| i + 1);
    match v.get("hopmap_workspace").map(|x| x.as_u64()) {
        None => {
            return Err(at(
                1,
                "expected a hopmap workspace, found JSON without a \"hopmap_workspace\" version"
                    .into(),
            ));
        }
        Some(Some(k)) if k > VERSION as u64 => {
            return Err(at(
                version_line,
                format!(
                    "expected workspace version {VERSION} or older, found version {k} (saved by \
                     a newer hopmap: update hopmap to open it)"
                ),
            ));
        }
        Some(None) => {
            return Err(at(
                version_line,
                "expected a version number for \"hopmap_workspace\"".into(),
            ));
        }
        _ => {}
    }
    serde_json::from_str(text).map_err(|e| {
        at(
            e.line(),
            format!("expected a hopmap workspace, found {}", strip_pos(&e)),
        )
    })
}

/// serde_json's message without its " at line L column C" tail.
fn strip_pos(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// Read and parse a workspace file.
pub fn load(path: &Path) -> Result<Workspace> {
    let bytes = crate::io::read_bytes(path)?;
    let text = std::str::from_utf8(&bytes).map_err(|e| Error::Parse {
        path: path.to_path_buf(),
        line: 1,
        msg: format!("expected UTF-8 text, found {e}"),
    })?;
    parse(text, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{GenOptions, generate};

    fn sample() -> (Workspace, CommGraph) {
        let g = generate("unstructured:20:2d", &GenOptions::default()).unwrap();
        let m = Mapping::new((0..20).rev().collect(), vec![0; 20]);
        let ws = Workspace {
            hopmap_workspace: VERSION,
            graph: GraphSource::Embedded(EmbeddedGraph::of(&g)),
            graph_name: "u20".into(),
            topology: "torus:5x4".into(),
            routing: "dor".into(),
            mapper: MapperChoice {
                id: "mht".into(),
                params: "find=spiral".into(),
                seed: 7,
            },
            mappings: vec![
                NamedMapping::of("reversed", &m),
                NamedMapping {
                    compare_seconds: Some(0.25),
                    ..NamedMapping::of("file:r.txt", &m)
                },
            ],
            layout: Some(vec![[0.5, 1.25]; 20]),
            view: ViewSettings {
                tab: "network".into(),
                ..Default::default()
            },
            lesson: Some(("bobrik-gravity".into(), 2)),
        };
        (ws, g)
    }

    #[test]
    fn a_workspace_round_trips_through_its_file() {
        let (ws, g) = sample();
        let dir = std::env::temp_dir().join(format!("hopmap-ws-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("a.hopmap");
        save(&p, &ws).unwrap();
        let back = load(&p).unwrap();
        assert_eq!(back, ws);
        let (g2, note) = back.load_graph(&p).unwrap();
        assert!(note.is_none());
        assert_eq!(g2.offsets(), g.offsets());
        assert_eq!(g2.targets(), g.targets());
        assert_eq!(g2.sent(), g.sent());
        assert_eq!(g2.coords(), g.coords());
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn bad_and_newer_files_name_the_line() {
        let p = Path::new("w.hopmap");
        let e = parse("{\n  \"hopmap_workspace\": 1,\n  \"graph\": 5\n}", p)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("w.hopmap:3: expected a hopmap workspace, found "),
            "{e}"
        );
        let e = parse("{\n \"hopmap_workspace\": 9\n}", p)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("w.hopmap:2: expected workspace version 1 or older, found version 9"),
            "{e}"
        );
        let e = parse("{\"a\":", p).unwrap_err().to_string();
        assert!(
            e.starts_with("w.hopmap:1: expected a hopmap workspace (JSON), found "),
            "{e}"
        );
        let e = parse("[]", p).unwrap_err().to_string();
        assert!(e.contains("without a \"hopmap_workspace\" version"), "{e}");
    }

    #[test]
    fn a_changed_graph_file_is_noticed() {
        let dir = std::env::temp_dir().join(format!("hopmap-ws2-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let gp = dir.join("g.txt");
        std::fs::write(&gp, "0 1 5\n1 2 5\n").unwrap();
        let (mut ws, _) = sample();
        ws.graph = GraphSource::File {
            path: PathBuf::from("g.txt"),
            fnv64: fnv64(b"0 1 5\n1 2 5\n"),
            one_based: false,
        };
        let wp = dir.join("w.hopmap");
        let (g, note) = ws.load_graph(&wp).unwrap();
        assert_eq!((g.n(), note), (3, None));
        std::fs::write(&gp, "0 1 5\n1 2 6\n").unwrap();
        let (_, note) = ws.load_graph(&wp).unwrap();
        assert!(
            note.unwrap()
                .contains("changed since the workspace was saved")
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}
