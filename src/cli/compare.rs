//! `hopmap compare GRAPH --topology SPEC --mappers all|id,…`: run several
//! mappers and print one row each, best (least hop-bytes) first. The work is
//! done by `hopmap_core::compare`. With `--report DIR`, every graph (GRAPH and
//! each `--graph`) × every topology (`--topology` repeated or comma-separated)
//! is compared and `hopmap_core::report` writes CSV, JSON, SVG charts and an
//! index.html into DIR.

use super::common::{GraphArgs, parse_routing, parse_topology};
use hopmap_core::{Routing, Topology};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub graph: GraphArgs,
    /// Network: mesh:AxB[xC], torus:AxBxC[:cores=N], mesh:…:wrap=110, bgp:512…32768, or a switch fabric (fabric:S,H,k,r[,seed], fabric:moh-fig2, fattree:K[:L], dragonfly:A,P,H[,G], ibnetdiscover:PATH, slurm:PATH, a fabric file; :cores=N :root=… :roots=FILE :job=… :sort=name).
    /// With --report: repeat it for several networks.
    #[arg(long, short = 't', value_parser = parse_topology, required = true)]
    pub topology: Vec<Topology>,
    /// More graphs to compare (with --report; read like GRAPH, with --format
    /// and --one-based; --coords applies to GRAPH only).
    #[arg(long = "graph", value_name = "FILE")]
    pub more_graphs: Vec<std::path::PathBuf>,
    /// Write a report of every graph × topology × mapper into DIR: runs.csv,
    /// runs.json, SVG bar charts (hop-bytes, max link load, max flows, time)
    /// and index.html.
    #[arg(long, value_name = "DIR")]
    pub report: Option<std::path::PathBuf>,
    /// `all`, or mapper ids separated by commas (permutation orders such as TZXY too).
    #[arg(long, default_value = "all")]
    pub mappers: String,
    /// Routing for link loads: dor, dor:ORDER or adaptive; on fabrics updn (= dor), updn-split (= adaptive), minimal, minimal-split, fattree.
    #[arg(long, default_value = "dor", value_parser = parse_routing)]
    pub routing: Routing,
    /// Seed of every randomized mapper.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Print a JSON array (keys: mapper, seconds, and those of `eval --json`).
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print CSV.
    #[arg(long)]
    pub csv: bool,
    /// Give a graph without coordinates coordinates inferred by the
    /// gravitational layout, so that the coordinate mappers run too.
    #[arg(long)]
    pub infer_coords: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let selected = hopmap_core::compare::parse_list(&args.mappers)?;
    if let Some(dir) = &args.report {
        return report(&args, &selected, dir);
    }
    if args.topology.len() != 1 || !args.more_graphs.is_empty() {
        anyhow::bail!("several graphs or topologies are compared only with --report DIR");
    }
    hopmap_core::metrics::check_evaluable(&args.topology[0])?;
    let graph = super::common::infer_coords_if_asked(
        args.graph.load()?,
        &args.topology[0],
        args.seed,
        args.infer_coords,
    )?;
    let graph = Arc::new(graph);
    let topo = Arc::new(args.topology[0].clone());
    // A network too small for the graph: one line, as `map` says it, not a
    // note per mapper.
    hopmap_core::mappers::MapperInput::new(graph.clone(), topo.clone(), args.seed).check_fits()?;
    let n = graph.n();
    let cancel = AtomicBool::new(false);
    let verbose = !args.json && !args.csv;
    // Live progress only on a terminal (logs get no carriage returns).
    let live = verbose && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let cmp = hopmap_core::compare::compare(
        graph,
        topo.clone(),
        &selected,
        &args.routing,
        args.seed,
        &cancel,
        &mut |i, n, id| {
            if live {
                eprint!("\r[{}/{n}] {id:<12}", i + 1);
            }
        },
    )?;
    if live {
        eprintln!();
    }
    if args.json {
        crate::outln!("{}", serde_json::to_string_pretty(&cmp.rows)?);
    } else if args.csv {
        use hopmap_core::report::{CSV_HEADER, csv_lines};
        let mut out = String::new();
        let case = (
            args.graph.graph.display().to_string(),
            topo.spec(),
            args.routing.resolve(&topo).to_string(),
        );
        csv_lines(
            &mut out,
            (&case.0, &case.1, &case.2),
            &cmp.rows,
            &cmp.skipped,
        );
        crate::outln!("{CSV_HEADER}");
        crate::out!("{out}");
    } else {
        crate::outln!(
            "{} processes on {}, routing {}; sorted by hop-bytes, * = best",
            n,
            topo.spec(),
            args.routing.resolve(&topo)
        );
        // The mapper column is as wide as the longest id shown.
        let w = cmp
            .rows
            .iter()
            .map(|r| r.mapper.len())
            .max()
            .unwrap_or(0)
            .max(10);
        crate::outln!(
            "  {:<w$} {:>14} {:>9} {:>8} {:>14} {:>9} {:>10}",
            "mapper",
            "hop_bytes",
            "hops/B",
            "max dil",
            "max load",
            "max flows",
            "seconds"
        );
        for (i, r) in cmp.rows.iter().enumerate() {
            let m = &r.metrics;
            crate::outln!(
                "{} {:<w$} {:>14.6e} {:>9.4} {:>8} {:>14.6e} {:>9} {:>10.4}",
                if i == 0 { '*' } else { ' ' },
                r.mapper,
                m.hop_bytes,
                m.avg_hops_per_byte,
                m.max_dilation,
                m.max_link_load,
                m.max_link_flows,
                r.seconds
            );
        }
    }
    // The mappers left out: a trailing note (stderr for machine formats).
    for s in &cmp.skipped {
        let msg = format!("note: {} left out: {}", s.mapper, s.reason);
        if verbose {
            crate::outln!("{msg}");
        } else {
            eprintln!("{msg}");
        }
    }
    if cmp.rows.is_empty() {
        anyhow::bail!("no mapper could run on this input");
    }
    Ok(())
}

/// `--report DIR`: every graph × topology × mapper, written by the library.
fn report(
    args: &Args,
    selected: &[hopmap_core::compare::Selected],
    dir: &std::path::Path,
) -> anyhow::Result<()> {
    let name = |p: &std::path::Path| {
        p.file_name().map_or_else(
            || p.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    };
    // Coordinates are inferred (when asked) in the first topology's dimension.
    let first = super::common::infer_coords_if_asked(
        args.graph.load()?,
        &args.topology[0],
        args.seed,
        args.infer_coords,
    )?;
    let mut graphs = vec![(name(&args.graph.graph), Arc::new(first))];
    for p in &args.more_graphs {
        let ga = super::common::GraphArgs {
            graph: p.clone(),
            coords: None,
            ..args.graph.clone()
        };
        let g = super::common::infer_coords_if_asked(
            ga.load()?,
            &args.topology[0],
            args.seed,
            args.infer_coords,
        )?;
        graphs.push((name(p), Arc::new(g)));
    }
    for t in &args.topology {
        hopmap_core::metrics::check_evaluable(t)?;
    }
    let topos: Vec<Arc<Topology>> = args.topology.iter().cloned().map(Arc::new).collect();
    let cancel = AtomicBool::new(false);
    let live = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let cases = hopmap_core::report::run(
        &graphs,
        &topos,
        selected,
        &args.routing,
        args.seed,
        &cancel,
        &mut |k, n, i, m, id| {
            if live {
                eprint!("\r[case {}/{n}, mapper {}/{m}] {id:<12}", k + 1, i + 1);
            }
        },
    )?;
    if live {
        eprintln!();
    }
    let files = hopmap_core::report::write(dir, &cases)?;
    let runs: usize = cases
        .iter()
        .filter_map(|c| c.outcome.as_ref().ok())
        .map(|c| c.rows.len())
        .sum();
    println!(
        "{} cases, {runs} runs; wrote {} files into {} (open index.html)",
        cases.len(),
        files.len(),
        dir.display()
    );
    for c in &cases {
        match &c.outcome {
            Err(e) => eprintln!("note: {} on {} not run: {e}", c.graph, c.topology),
            Ok(cmp) => {
                for s in &cmp.skipped {
                    eprintln!(
                        "note: {} on {}: {} left out: {}",
                        c.graph, c.topology, s.mapper, s.reason
                    );
                }
            }
        }
    }
    if runs == 0 {
        anyhow::bail!("no mapper could run on any case");
    }
    Ok(())
}
