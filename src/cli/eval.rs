//! `hopmap eval GRAPH --topology SPEC --mapping FILE`: the metrics of a mapping.

use super::common::{GraphArgs, parse_routing, parse_topology};
use hopmap_core::{Routing, Topology};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub graph: GraphArgs,
    /// Network: mesh:AxB[xC], torus:AxBxC[:cores=N], mesh:…:wrap=110, bgp:512…32768, or a switch fabric (fabric:S,H,k,r[,seed], fabric:moh-fig2, fattree:K[:L], dragonfly:A,P,H[,G], ibnetdiscover:PATH, slurm:PATH, a fabric file; :cores=N :root=… :roots=FILE :job=… :sort=name).
    #[arg(long, short = 't', value_parser = parse_topology)]
    pub topology: Topology,
    /// Mapping file: one line per process, a node index or `x y z [t]`.
    #[arg(long, short = 'm', value_name = "FILE")]
    pub mapping: PathBuf,
    /// Routing for link loads: dor, dor:ORDER (e.g. dor:ZYX) or adaptive; on fabrics updn (= dor), updn-split (= adaptive), minimal, minimal-split, fattree.
    #[arg(long, default_value = "dor", value_parser = parse_routing)]
    pub routing: Routing,
    /// Print JSON (exactly the documented keys).
    #[arg(long)]
    pub json: bool,
    /// Also print the lower bounds of hop-bytes no mapping can go below: the plain one, the position-aware one and, with several cores per node, the node-group one (hop_bound.rs), as hop-bytes and hops/byte (not with --json).
    #[arg(long)]
    pub bound: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    hopmap_core::metrics::check_evaluable(&args.topology)?;
    let g = args.graph.load()?;
    args.routing.check(&args.topology)?;
    let m = hopmap_core::io::read_mapping(&args.mapping, &args.topology, g.n())?;
    m.validate(g.n(), &args.topology)?;
    let ev = hopmap_core::evaluate(&g, &args.topology, &m, &args.routing);
    if args.json {
        crate::outln!("{}", serde_json::to_string_pretty(&ev.metrics)?);
    } else {
        crate::out!("{}", ev.metrics.to_text());
        if args.bound {
            let bytes = g.total_bytes().max(f64::MIN_POSITIVE);
            let plain = hopmap_core::hop_bound::lower_bound(&g, &args.topology);
            let pos = hopmap_core::hop_bound::position::position_bound(&g, &args.topology);
            let groups =
                match hopmap_core::hop_bound::node_groups::node_group_bound(&g, &args.topology) {
                    Some(b) => format!("{b:.6e} ({:.3} hops/byte)", b / bytes),
                    None => "not computed (one process per node, or too many groups to enumerate)"
                        .into(),
                };
            crate::outln!(
                "lower bound: {plain:.6e} hop-bytes ({:.3} hops/byte); position-aware: {pos:.6e} \
                 ({:.3} hops/byte); node groups: {groups}",
                plain / bytes,
                pos / bytes
            );
        }
    }
    Ok(())
}
