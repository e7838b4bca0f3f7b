//! `hopmap generate SPEC -o FILE`: write a generated communication graph.

use hopmap::generate::{GENERATORS, GenOptions, Neighbors};
use hopmap::io::Format;
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
    #[arg(long, value_enum)]
    pub out_format: Option<Format>,
    /// Write the generator's per-process coordinates (`x y [z]` lines) here.
    #[arg(long, value_name = "FILE")]
    pub coords_out: Option<PathBuf>,
    /// Seed of every randomized step.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Stencil neighbours: faces (2d) or full (3^d − 1).
    #[arg(long, value_enum, default_value = "faces")]
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
    let g = hopmap::generate::generate(&args.spec, &opts)?;
    let format = args
        .out_format
        .or_else(|| hopmap::io::Format::from_extension(&args.output))
        .unwrap_or(Format::Mtx);
    hopmap::io::write_graph(&args.output, &g, format)?;
    if let Some(c) = &args.coords_out {
        match g.coords() {
            Some(coords) => hopmap::io::write_coords(c, coords)?,
            None => anyhow::bail!("generator `{}` has no coordinates to write", args.spec),
        }
    }
    eprintln!(
        "wrote {}: {} processes, {} edges, {} bytes{}",
        args.output.display(),
        g.n(),
        g.num_edges(),
        g.total_bytes(),
        if g.coords().is_some() {
            ", with coordinates"
        } else {
            ""
        }
    );
    Ok(())
}
