//! `hopmap generate SPEC -o FILE`: write a generated communication graph.

use super::common::choice;
use hopmap_core::generate::{GENERATORS, GenOptions, Neighbors};
use hopmap_core::io::Format;
use std::path::PathBuf;

fn after_help() -> String {
    let mut s = String::from("Generators:\n");
    for (spec, help) in GENERATORS {
        s.push_str(&format!("  {spec:<28} {help}\n"));
    }
    s
}

#[derive(clap::Args, Debug)]
#[command(after_help = after_help())]
pub struct Args {
    /// Generator spec, e.g. stencil:16x16, fft:8x8x8, clusters:2x10, unstructured:1024:3d.
    pub spec: String,
    /// Output graph file (format from the extension unless --out-format is given).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: PathBuf,
    /// Output format (default: from the extension; .mtx when unknown).
    #[arg(long, value_parser = choice(&Format::ALL, Format::id))]
    pub out_format: Option<Format>,
    /// Write the generator's per-process coordinates (`x y [z]` lines) here.
    #[arg(long, value_name = "FILE")]
    pub coords_out: Option<PathBuf>,
    /// Seed of every randomized step.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Stencil neighbours: faces (2d) or full (3^d − 1).
    #[arg(long, value_parser = choice(&Neighbors::ALL, Neighbors::id), default_value = "faces")]
    pub neighbors: Neighbors,
    /// Wrap the grid (stencils, diagonal, mixed) / close the chain of clusters.
    #[arg(long)]
    pub periodic: bool,
    /// Bytes one process sends to one partner.
    #[arg(long, default_value_t = 1024.0)]
    pub bytes: f64,
    /// clusters: bytes between members of consecutive clusters.
    #[arg(long, default_value_t = 0.0)]
    pub inter_weight: f64,
    /// Randomly permute the process ids (seeded).
    #[arg(long)]
    pub shuffle: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let opts = GenOptions {
        seed: args.seed,
        neighbors: args.neighbors,
        periodic: args.periodic,
        bytes: args.bytes,
        inter_weight: args.inter_weight,
        shuffle: args.shuffle,
    };
    let g = hopmap_core::generate::generate(&args.spec, &opts)?;
    let format = args
        .out_format
        .or_else(|| hopmap_core::io::Format::from_extension(&args.output))
        .unwrap_or(Format::Mtx);
    if !format.can_write() {
        anyhow::bail!(
            "writing {} files is not supported (use MatrixMarket, METIS, edge list or DOT)",
            format.name()
        );
    }
    let coords = match &args.coords_out {
        Some(c) => {
            hopmap_core::io::atomic::check_outputs(
                &[("-o", &args.output), ("--coords-out", c)],
                &[],
            )?;
            match g.coords() {
                Some(coords) => Some((c, coords)),
                None => anyhow::bail!("generator `{}` has no coordinates to write", args.spec),
            }
        }
        None => None,
    };
    // Both files are written to temporaries first and renamed together, so
    // a failure in either leaves neither half-written.
    let mut batch = hopmap_core::io::atomic::AtomicBatch::new();
    batch.add(&args.output, |w| {
        hopmap_core::io::write_graph_to(w, &g, format)
    })?;
    if let Some((c, coords)) = coords {
        batch.add(c, |w| hopmap_core::io::coords::write(w, coords))?;
    }
    batch.commit()?;
    // Say where the coordinates went: only DOT keeps them in the graph file.
    let kept = match (
        &args.coords_out,
        g.coords().is_some(),
        format == Format::Dot,
    ) {
        (Some(c), _, _) => format!(", coordinates in {}", hopmap_core::error::show_path(c)),
        (None, true, true) => ", with coordinates".to_string(),
        (None, true, false) => format!(
            "; its coordinates are not kept ({} files have none; use --coords-out FILE)",
            format.name()
        ),
        (None, false, _) => String::new(),
    };
    eprintln!(
        "wrote {}: {} processes, {} edges, {} bytes{kept}",
        hopmap_core::error::show_path(&args.output),
        g.n(),
        g.num_edges(),
        g.total_bytes(),
    );
    Ok(())
}
