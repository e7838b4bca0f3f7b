//! Arguments shared by every command that reads a graph.

use anyhow::Context;
use hopmap_core::CommGraph;
use hopmap_core::io::ompi_monitoring::Traffic;
use hopmap_core::io::{Format, ReadOptions};
use std::path::PathBuf;

/// A clap value parser for a core enum: its values are `all`, each named by
/// `id` (the core's types know nothing of clap; the names live with them).
pub fn choice<T: Copy + Send + Sync + 'static>(
    all: &'static [T],
    id: fn(T) -> &'static str,
) -> impl clap::builder::TypedValueParser<Value = T> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(all.iter().map(|&v| id(v))).try_map(move |s| {
        all.iter()
            .copied()
            .find(|&v| id(v) == s)
            .ok_or_else(|| format!("unknown value `{s}`"))
    })
}

/// A communication graph file, its format and optional coordinates.
#[derive(clap::Args, Debug, Clone)]
pub struct GraphArgs {
    /// Communication graph file (MatrixMarket, METIS, Scotch, edge list/CSV, dense matrix, DOT), or Open MPI monitoring output (a folder, a prefix or one `.prof` file).
    pub graph: PathBuf,
    /// Input format (default: detected by extension, then by content).
    #[arg(long, value_parser = choice(&Format::ALL, Format::id))]
    pub format: Option<Format>,
    /// Per-process coordinates file (`x y [z]` per line); overrides coordinates in the graph file.
    #[arg(long, value_name = "FILE")]
    pub coords: Option<PathBuf>,
    /// Edge-list ids start at 1 instead of 0.
    #[arg(long)]
    pub one_based: bool,
    #[command(flatten)]
    pub monitoring: MonitoringArgs,
}

/// How to read Open MPI monitoring output.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct MonitoringArgs {
    /// Open MPI monitoring: the traffic that becomes the graph: app (E lines, the application's point-to-point), internal (I: collective algorithms' messages), collectives (C), osc (one-sided), all (E+I+S+R).
    #[arg(long, value_parser = choice(&Traffic::ALL, Traffic::name), default_value = "app")]
    pub traffic: Traffic,
    /// Open MPI monitoring: read one phase (the NAME of `NAME.<rank>.prof` files) instead of all phases summed.
    #[arg(long, value_name = "NAME")]
    pub phase: Option<String>,
}

impl GraphArgs {
    /// Read the graph (and coordinates, when given).
    pub fn load(&self) -> anyhow::Result<CommGraph> {
        let opts = ReadOptions {
            format: self.format,
            one_based: self.one_based,
            traffic: self.monitoring.traffic,
            phase: self.monitoring.phase.clone(),
        };
        let mut g = hopmap_core::io::read_graph(&self.graph, &opts)?;
        if let Some(c) = &self.coords {
            let coords = hopmap_core::io::read_coords(c)?;
            g.set_coords(Some(coords))
                .with_context(|| format!("{}", c.display()))?;
        }
        Ok(g)
    }
}

/// Parse a topology spec for clap.
pub fn parse_topology(s: &str) -> Result<hopmap_core::Topology, String> {
    hopmap_core::Topology::parse(s).map_err(|e| e.to_string())
}

/// Parse a routing name for clap.
pub fn parse_routing(s: &str) -> Result<hopmap_core::Routing, String> {
    hopmap_core::Routing::parse(s).map_err(|e| e.to_string())
}

/// `--infer-coords`: when asked and the graph has no coordinates, give it
/// coordinates from the gravitational layout (Bobrik & Popova; Bhatele & Kale
/// §V, scenario 2) in the topology's dimension (2D, or 3D for ≥ 3 dims), and
/// say so on stderr.
pub fn infer_coords_if_asked(
    graph: hopmap_core::CommGraph,
    topo: &hopmap_core::Topology,
    seed: u64,
    ask: bool,
) -> anyhow::Result<hopmap_core::CommGraph> {
    if !ask || graph.coords().is_some() {
        if ask {
            eprintln!("note: the graph has coordinates; --infer-coords not needed");
        }
        return Ok(graph);
    }
    let t0 = std::time::Instant::now();
    let coords = hopmap_core::layout::infer_coords(&graph, topo, seed)?;
    eprintln!(
        "coordinates inferred by the gravitational layout ({}D, seed {seed}) in {:.2} s",
        coords.dim,
        t0.elapsed().as_secs_f64()
    );
    Ok(graph.with_coords(Some(coords))?)
}
