//! `hopmap convert IN -o OUT [--format F]`: write any graph hopmap reads in
//! another format (MatrixMarket, METIS, Scotch, edge list, dense, DOT).

use super::common::MonitoringArgs;
use hopmap_core::io::{Format, ReadOptions};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Input graph (any format hopmap reads, or Open MPI monitoring output).
    pub input: PathBuf,
    /// Output file.
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,
    /// Output format (default: from the extension of OUT).
    #[arg(long, value_parser = super::common::choice(&Format::ALL, Format::id))]
    pub format: Option<Format>,
    /// Input format (default: detected).
    #[arg(long, value_parser = super::common::choice(&Format::ALL, Format::id))]
    pub from: Option<Format>,
    /// Edge-list input ids start at 1.
    #[arg(long)]
    pub one_based: bool,
    #[command(flatten)]
    pub monitoring: MonitoringArgs,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let format = match args.format.or_else(|| Format::from_extension(&args.output)) {
        Some(f) => f,
        None => anyhow::bail!(
            "{}: expected an output file with a graph extension (.mtx, .graph, .grf, .txt, .mat, \
             .dot, .prof), found none; add one or pass --format",
            args.output.display()
        ),
    };
    let opts = ReadOptions {
        format: args.from,
        one_based: args.one_based,
        traffic: args.monitoring.traffic,
        phase: args.monitoring.phase.clone(),
    };
    let g = hopmap_core::io::read_graph(&args.input, &opts)?;
    let d = hopmap_core::io::weight_divisor(&g, format)?;
    hopmap_core::io::write_graph(&args.output, &g, format)?;
    eprintln!(
        "{} processes, {} pairs -> {} ({})",
        g.n(),
        g.num_edges(),
        args.output.display(),
        format.name()
    );
    if d > 1 {
        eprintln!(
            "note: {} loads are bytes divided by {d}, so that their sum fits in 32 bits{}",
            format.name(),
            if format == Format::Metis {
                " (stated in the file's header comment)"
            } else {
                ""
            }
        );
    }
    Ok(())
}
