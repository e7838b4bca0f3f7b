//! `hopmap gui`: open the desktop app, optionally on a graph, a network and
//! a mapper; with `--screenshot` it saves a PNG of the window after
//! `--frames` frames and exits (documentation, tests under Xvfb).

use super::common::choice;
use hopmap_core::io::Format;
use std::path::PathBuf;

#[derive(clap::Args, Debug, Default)]
pub struct Args {
    /// Graph file, or `sample` (the built-in 8×8×8 stencil) or a sample name: mesh-16x16, bobrik-two-clusters, unstructured-90, fft-8x8, stencil-8x8x8, lammps-lj-64 (a real LAMMPS run), or Open MPI monitoring output (a folder, prefix or .prof file).
    pub graph: Option<String>,
    /// Network spec, e.g. torus:8x8x8, mesh:16x16, bgp:512.
    #[arg(long)]
    pub topology: Option<String>,
    /// Mapper id to run before showing (see `hopmap map --help` for the list).
    #[arg(long)]
    pub mapper: Option<String>,
    /// Save a PNG of the whole window, then exit.
    #[arg(long)]
    pub screenshot: Option<PathBuf>,
    /// Frames to draw before the screenshot.
    #[arg(long, default_value_t = 30)]
    pub frames: u32,
    /// Stop the mapper after N steps (a placement in progress) instead of running it to the end.
    #[arg(long)]
    pub steps: Option<usize>,
    /// Central view: split, graph, network, matrix, compare, analytical or bipartition; side, diff or race (the compared mappers side by side, the difference of the first two, a race of them).
    #[arg(long)]
    pub view: Option<String>,
    /// Compare these mappers before showing (ids separated by commas).
    #[arg(long, value_name = "IDS")]
    pub compare: Option<String>,
    /// Load a mapping file (`eval --mapping` format) as a named row of the comparison; repeatable.
    #[arg(long = "load-mapping", value_name = "FILE")]
    pub mappings: Vec<PathBuf>,
    /// Per-process coordinates file (`x y [z]` per line); overrides coordinates in the graph file.
    #[arg(long, value_name = "FILE", requires = "graph")]
    pub coords: Option<PathBuf>,
    /// Input format of GRAPH (default: detected by extension, then by content).
    #[arg(long, value_parser = choice(&Format::ALL, Format::id))]
    pub format: Option<Format>,
    /// Edge-list ids start at 1 instead of 0.
    #[arg(long)]
    pub one_based: bool,
    #[command(flatten)]
    pub monitoring: super::common::MonitoringArgs,
    /// Open a saved `.hopmap` workspace.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["graph", "lesson"])]
    pub workspace: Option<PathBuf>,
    /// Open a built-in lesson: default-vs-mesh, balaji-tzxy, bobrik-gravity (the default when no graph is given).
    #[arg(long, value_name = "ID")]
    pub lesson: Option<String>,
    /// With --screenshot: also write what the panels show as JSON (view, the shown mapping, every metric as displayed, the lower bound, the legend's range).
    #[arg(long, value_name = "JSON", requires = "screenshot")]
    pub state: Option<PathBuf>,
    /// Window size in points, WxH (default 1280x800).
    #[arg(long, value_name = "WxH", value_parser = parse_size)]
    pub size: Option<[f32; 2]>,
    /// Open a dialog or tab: export (File → Export's save dialog), report (File → Experiment report), guided-log (guided mode on for --mapper), glossary.
    #[arg(long, value_name = "WHAT", value_parser = clap::builder::PossibleValuesParser::new(hopmap_app::headless::OPEN_KEYS))]
    pub open: Option<String>,
}

fn parse_size(s: &str) -> Result<[f32; 2], String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("expected WxH such as 1920x1080, found `{s}`"))?;
    let p = |v: &str| {
        v.trim()
            .parse::<u32>()
            .ok()
            .filter(|&x| (200..=16384).contains(&x))
            .ok_or_else(|| format!("expected a width and height in 200..=16384, found `{s}`"))
    };
    Ok([p(w)? as f32, p(h)? as f32])
}

const NO_DISPLAY_HELP: &str = "\
hopmap could not open a window (no display?). The batch commands work without one:
  hopmap info GRAPH                      facts about a communication graph
  hopmap map GRAPH --topology SPEC --mapper ID
  hopmap eval GRAPH --topology SPEC --mapping FILE
  hopmap compare GRAPH --topology SPEC
Run `hopmap --help` for everything. For a screenshot without a display:
  xvfb-run -a -s \"-screen 0 1280x800x24\" hopmap gui sample --screenshot out.png";

pub fn run(args: Args) -> anyhow::Result<()> {
    let opts = hopmap_app::GuiOptions {
        graph: args.graph,
        topology: args.topology,
        mapper: args.mapper,
        screenshot: args.screenshot,
        frames: args.frames,
        steps: args.steps,
        view: args.view,
        compare: args.compare,
        mappings: args.mappings,
        coords: args.coords,
        read: hopmap_core::io::ReadOptions {
            format: args.format,
            one_based: args.one_based,
            traffic: args.monitoring.traffic,
            phase: args.monitoring.phase.clone(),
        },
        workspace: args.workspace,
        lesson: args.lesson,
        state: args.state,
        size: args.size,
        open: args.open,
    };
    hopmap_app::run(opts).map_err(|e| match e {
        hopmap_app::AppError::NoWindow(_) => anyhow::anyhow!("{e}\n\n{NO_DISPLAY_HELP}"),
        e => anyhow::anyhow!(e),
    })
}
