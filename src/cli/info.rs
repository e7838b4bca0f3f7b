//! `hopmap info GRAPH`: sizes, bytes, degrees, components, coordinates.

use super::common::GraphArgs;
use hopmap_core::graph::GraphSummary;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub graph: GraphArgs,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let g = args.graph.load()?;
    let s = GraphSummary::of(&g);
    if args.json {
        crate::outln!("{}", serde_json::to_string_pretty(&s)?);
    } else {
        crate::out!("{}", s.to_text(&args.graph.graph.display().to_string()));
    }
    Ok(())
}
