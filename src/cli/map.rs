//! `hopmap map GRAPH --topology SPEC --mapper ID -o FILE --format FMT`: run
//! one mapper, validate its mapping, write a launcher file, print the metrics.

use super::common::{GraphArgs, choice, parse_topology};
use hopmap_core::Topology;
use hopmap_core::io::Format;
use hopmap_core::io::launcher::{HostNames, LauncherFormat, write_mapping, write_mapping_file};
use hopmap_core::mappers::{self, MapperInput};
use std::path::PathBuf;
use std::sync::Arc;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Communication graph file.
    pub graph: PathBuf,
    /// Input graph format (default: detected). Named --graph-format because
    /// --format is the output format here.
    #[arg(long, value_parser = choice(&Format::ALL, Format::id), value_name = "FORMAT")]
    pub graph_format: Option<Format>,
    /// Per-process coordinates file (`x y [z]` per line).
    #[arg(long, value_name = "FILE")]
    pub coords: Option<PathBuf>,
    /// Edge-list ids start at 1 instead of 0.
    #[arg(long)]
    pub one_based: bool,
    #[command(flatten)]
    pub monitoring: super::common::MonitoringArgs,
    /// Network: mesh:AxB[xC], torus:AxBxC[:cores=N], mesh:…:wrap=110, bgp:512…32768, or a switch fabric (fabric:S,H,k,r[,seed], fabric:moh-fig2, fattree:K[:L], dragonfly:A,P,H[,G], ibnetdiscover:PATH, slurm:PATH, a fabric file; :cores=N :root=… :roots=FILE :job=… :sort=name).
    #[arg(long, short = 't', value_parser = parse_topology)]
    pub topology: Topology,
    /// Mapper id (see `hopmap compare --mappers all`), or a permutation order such as TZXY.
    #[arg(long, short = 'm')]
    pub mapper: String,
    /// Seed of every randomized step.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Mapper parameter KEY=VALUE (repeatable), e.g. --param order=ZYXT.
    #[arg(long = "param", value_name = "KEY=VALUE")]
    pub params: Vec<String>,
    /// Output file (default: standard output; the summary then goes to stderr).
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Give a graph without coordinates coordinates inferred by the
    /// gravitational layout, so that affn/coce/coce+mht can run on it.
    #[arg(long)]
    pub infer_coords: bool,
    /// Launcher file format: plain, bgp, mpich (Cray), rankfile (Open MPI
    /// mpirun), slurm (SLURM_HOSTFILE for srun --distribution=arbitrary),
    /// hydra (MPICH / Intel MPI mpiexec -f).
    #[arg(long, value_parser = choice(&LauncherFormat::ALL, LauncherFormat::name), default_value = "plain")]
    pub format: LauncherFormat,
    /// Host names for rankfile, slurm and hydra files: one per line, in node order.
    #[arg(long, value_name = "FILE", conflicts_with = "host_pattern")]
    pub hosts: Option<PathBuf>,
    /// Host name pattern for rankfile, slurm and hydra files (`%d` = node id, `%03d` zero-padded);
    /// on a switch fabric the default is the fabric's own host names.
    #[arg(long, value_name = "PATTERN", default_value = "node%d")]
    pub host_pattern: String,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    if let Some(out) = &args.output {
        let mut inputs: Vec<(&str, &std::path::Path)> = vec![("GRAPH", &args.graph)];
        if let Some(c) = &args.coords {
            inputs.push(("--coords", c));
        }
        if let Some(h) = &args.hosts {
            inputs.push(("--hosts", h));
        }
        hopmap_core::io::atomic::check_outputs(&[("-o", out)], &inputs)?;
    }
    hopmap_core::metrics::check_evaluable(&args.topology)?;
    let graph = GraphArgs {
        graph: args.graph.clone(),
        format: args.graph_format,
        coords: args.coords.clone(),
        one_based: args.one_based,
        monitoring: args.monitoring.clone(),
    }
    .load()?;
    let graph =
        super::common::infer_coords_if_asked(graph, &args.topology, args.seed, args.infer_coords)?;
    let sel = mappers::resolve(&args.mapper)?;
    let fabric_names = args.hosts.is_none() && args.host_pattern == "node%d";
    // A fabric names its hosts: the first word of each (an ibnetdiscover
    // node description reads `hostname HCA-1`), unless a pattern is given.
    let hosts = match (&args.hosts, args.topology.as_fabric()) {
        (Some(p), _) => Ok(HostNames::from_file(p)?),
        (None, Some(f)) if fabric_names && args.format.names_hosts() => {
            HostNames::from_descriptions(f.hosts().iter().map(|h| h.name.as_str()))
        }
        (None, _) => Ok(HostNames::pattern(&args.host_pattern)?),
    };
    let hosts = hosts.and_then(|h| h.check_for(&args.topology, args.format).map(|()| h));
    let hosts = hosts.map_err(|e| {
        if fabric_names && args.topology.as_fabric().is_some() {
            anyhow::anyhow!(
                "{e} (the names are the first words of the fabric's node descriptions; give \
                 the host names with --hosts FILE or --host-pattern PATTERN)"
            )
        } else {
            e.into()
        }
    })?;
    let user: Vec<(String, String)> = args
        .params
        .iter()
        .map(|p| mappers::parse_param(p))
        .collect::<hopmap_core::Result<_>>()?;
    let graph = Arc::new(graph);
    let topo = Arc::new(args.topology.clone());
    let mut input = MapperInput::new(graph.clone(), topo.clone(), args.seed);
    input.params = sel.with_params(&user)?;
    let t0 = std::time::Instant::now();
    // The one pipeline: checks (parameters, coordinates, fit) fail here,
    // before any work.
    let mut run = mappers::prepare(&sel.info, &input)?;
    let stop = run.run_to_end();
    let mapping = mappers::finish(&sel.info, run.as_ref(), &input)?;
    let note = match run.inspect().summary() {
        Some(s) => format!(" ({s}; {stop})"),
        None => format!(" ({stop})"),
    };
    let secs = t0.elapsed().as_secs_f64();
    let hopmap_core::metrics::Summary {
        hop_bytes,
        avg_hops_per_byte: avg_hops,
        max_dilation,
        max_link_load: max_load,
        routing,
    } = hopmap_core::metrics::summary(&graph, &topo, &mapping);
    let summary = format!(
        "{}{note}: hop_bytes {hop_bytes:.6e}, avg hops/byte {avg_hops:.4}, max dilation {max_dilation}, max link load {max_load:.6e} ({routing}), {secs:.3} s",
        sel.id
    );
    match &args.output {
        Some(path) => {
            write_mapping_file(path, &mapping, &topo, args.format, &hosts)?;
            crate::outln!("{summary}");
            crate::outln!(
                "wrote {} ({} lines of {} format)",
                path.display(),
                mapping.len(),
                args.format.name()
            );
        }
        None => {
            let mut w = std::io::BufWriter::new(super::out::Stdout);
            write_mapping(&mut w, &mapping, &topo, args.format, &hosts)
                .and_then(|_| std::io::Write::flush(&mut w))
                .map_err(super::out::StdoutError)?;
            eprintln!("{summary}");
        }
    }
    Ok(())
}
