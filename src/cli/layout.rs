//! `hopmap layout GRAPH`: the gravitational layout of Bobrik & Popova
//! (multilevel by default above a few hundred processes), its clusters, and
//! optionally node-sized groups; writes `x y [z]` coordinates.

use super::common::GraphArgs;
use anyhow::{Context, bail};
use hopmap_core::layout::{Init, Layout, LayoutParams, MultilevelMode, clusters, pack_groups};
use hopmap_core::step::Stepper;
use std::path::PathBuf;
use std::time::Instant;

/// Largest `--iterations`: a million iterations is minutes even on 16K
/// processes; more is a typo, not a layout.
pub const MAX_ITERATIONS: u64 = 1_000_000;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub graph: GraphArgs,
    /// Layout dimension (2 or 3).
    #[arg(long, default_value_t = 2)]
    pub dim: usize,
    /// Start: `random` (seeded), `circle` (equal angles, the paper's Fig. 1), or a coordinates FILE.
    #[arg(long, default_value = "random")]
    pub init: String,
    /// Run exactly N iterations (of the finest level) instead of stopping by the §5 rule (1 to 1000000).
    #[arg(long, conflicts_with = "until_stable",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=MAX_ITERATIONS))]
    pub iterations: Option<usize>,
    /// Stop by the moving-average rule of §5 (the default).
    #[arg(long)]
    pub until_stable: bool,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The paper's single-level method (no coarsening), with a fixed step.
    #[arg(long)]
    pub single_level: bool,
    /// Repulsion power p in c_rep/d^p (default 3; 2 with --single-level, the paper's example).
    #[arg(long)]
    pub power: Option<f32>,
    /// Barnes–Hut opening angle θ.
    #[arg(long)]
    pub theta: Option<f32>,
    /// Lay out apart, and pack side by side, the groups that send at most this percentage of their
    /// bytes to the rest (default 1; 0 = only connected components; --single-level: 0).
    #[arg(long, value_name = "PERCENT")]
    pub weak_cut: Option<f64>,
    /// Pack the clusters into groups of G processes (multi-core nodes) and print them.
    #[arg(long, value_name = "G")]
    pub group_size: Option<usize>,
    /// Output coordinates file (`x y [z]` per process).
    #[arg(short = 'o', long, value_name = "COORDS")]
    pub output: Option<PathBuf>,
}

/// Read the graph file, or — when no such file exists and the name looks
/// like a generator spec (`stencil:64x64`, `clusters:2x10`) — generate it.
pub fn load_graph(a: &GraphArgs) -> anyhow::Result<hopmap_core::CommGraph> {
    let s = a.graph.to_string_lossy();
    if !a.graph.exists() && s.contains(':') {
        let mut g = hopmap_core::generate::generate(&s, &Default::default())?;
        if let Some(c) = &a.coords {
            g.set_coords(Some(hopmap_core::io::read_coords(c)?))?;
        }
        return Ok(g);
    }
    a.load()
}

pub fn run(a: Args) -> anyhow::Result<()> {
    if let Some(out) = &a.output {
        let init = std::path::Path::new(&a.init);
        let mut inputs: Vec<(&str, &std::path::Path)> = vec![("GRAPH", &a.graph.graph)];
        if let Some(c) = &a.graph.coords {
            inputs.push(("--coords", c));
        }
        if !matches!(a.init.as_str(), "random" | "circle") {
            inputs.push(("--init", init));
        }
        hopmap_core::io::atomic::check_outputs(&[("-o", out)], &inputs)?;
    }
    let g = load_graph(&a.graph)?;
    if a.dim != 2 && a.dim != 3 {
        bail!("--dim must be 2 or 3, not {}", a.dim);
    }
    let init = match a.init.as_str() {
        "random" => Init::Random,
        "circle" => Init::Circle,
        file => {
            let c =
                hopmap_core::io::read_coords(std::path::Path::new(file)).with_context(|| {
                    format!("--init {}", hopmap_core::error::show_path(file.as_ref()))
                })?;
            Init::Given(c.xyz)
        }
    };
    let mut p = if a.single_level {
        LayoutParams::paper()
    } else {
        LayoutParams::for_dim(a.dim)
    };
    p.dim = a.dim;
    if let Some(pw) = a.power {
        p.rep_power = pw;
    }
    p.seed = a.seed;
    p.init = init;
    if let Some(t) = a.theta {
        p.theta = t;
    }
    if let Some(k) = a.iterations {
        p.until_stable = false;
        p.max_iterations = k;
    }
    if a.single_level {
        p.multilevel = MultilevelMode::Off;
    }
    if let Some(pct) = a.weak_cut {
        if !(0.0..100.0).contains(&pct) {
            bail!("--weak-cut must be a percentage from 0 to below 100, not {pct}");
        }
        p.weak_cut = (pct > 0.0).then_some(pct / 100.0);
    }
    let t0 = Instant::now();
    let mut l = Layout::new(&g, p)?;
    let levels = l.level().1;
    let mut fine_start = None;
    while !l.is_stopped() {
        if fine_start.is_none() && l.level().0 == 0 {
            fine_start = Some((Instant::now(), l.iterations()));
        }
        l.step();
    }
    let total = t0.elapsed();
    let (fs, fi) = fine_start.unwrap_or((t0, 0));
    let fine_iters = l.iterations() - fi;
    crate::outln!(
        "layout: {} processes, {} levels, {} iterations ({} on the finest level), state {:?}",
        g.n(),
        levels,
        l.iterations(),
        fine_iters,
        l.state()
    );
    if l.components() > 1 {
        crate::outln!(
            "{} groups laid out apart and packed side by side ({})",
            l.components(),
            match l.params().weak_cut {
                Some(t) => format!(
                    "components, or joined by at most {} % of their bytes",
                    t * 100.0
                ),
                None => "the connected components".into(),
            }
        );
    }
    crate::outln!(
        "stopping-rule value {} (ε = {})",
        l.stop_value().map_or("n/a".into(), |v| format!("{v:.4}")),
        l.params().stop_eps
    );
    crate::outln!(
        "time {:.3} s; finest level {:.2} ms/iteration",
        total.as_secs_f64(),
        fs.elapsed().as_secs_f64() * 1e3 / fine_iters.max(1) as f64
    );
    let pos = l.positions();
    let labels = clusters(&pos, &Default::default());
    let sizes = hopmap_core::layout::clusters::cluster_sizes(&labels);
    let mut sorted = sizes.clone();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    let shown: Vec<String> = sorted.iter().take(20).map(|s| s.to_string()).collect();
    crate::outln!(
        "clusters: {} (sizes, largest first: {}{})",
        sizes.len(),
        shown.join(" "),
        if sorted.len() > 20 { " …" } else { "" }
    );
    if let Some(gs) = a.group_size {
        if gs == 0 {
            bail!("--group-size must be at least 1");
        }
        let groups = pack_groups(&labels, &pos, gs);
        let k = groups.iter().map(|&x| x + 1).max().unwrap_or(0);
        crate::outln!("groups of {gs}: {k}");
        for gid in 0..k.min(50) {
            let members: Vec<String> = (0..groups.len())
                .filter(|&i| groups[i] == gid)
                .map(|i| i.to_string())
                .collect();
            crate::outln!("  group {gid}: {}", members.join(" "));
        }
        if k > 50 {
            crate::outln!("  … ({} more groups)", k - 50);
        }
    }
    if let Some(out) = &a.output {
        hopmap_core::io::write_coords(out, &l.coords())?;
        eprintln!("wrote {}", hopmap_core::error::show_path(out));
    }
    Ok(())
}
