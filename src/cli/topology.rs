//! `hopmap topology SPEC`: describe a topology — for a switch fabric its
//! switches, hosts, links, diameter, the switch pairs up*/down* makes longer
//! and the links it never uses ([`hopmap_core::topology::report`]).

use super::common::parse_topology;
use hopmap_core::Topology;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Topology: mesh/torus/bgp spec, fabric:S,H,k,r[,seed], fabric:moh-fig2,
    /// fattree:K[:L], dragonfly:A,P,H[,G], ibnetdiscover:PATH, slurm:PATH or
    /// a fabric file; options :cores=N :root=NAME|GUID :roots=FILE :job=… :sort=name.
    #[arg(value_parser = parse_topology)]
    pub topology: Topology,
    /// List at most this many switch pairs that up*/down* makes longer.
    #[arg(long, default_value_t = 50)]
    pub pairs: usize,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let r = hopmap_core::topology::report::report(&args.topology, args.pairs);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&r)?);
    } else {
        print!("{}", r.to_text());
    }
    Ok(())
}
