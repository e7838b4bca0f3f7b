//! `hopmap capture -o GRAPH [--traffic …] -- mpirun -np N ./app ARGS`: run
//! the command with Open MPI's monitoring on, read its files, write the
//! graph (see `hopmap_core::io::ompi_capture`).

use anyhow::Context;
use hopmap_core::graph::GraphSummary;
use hopmap_core::io::Format;
use hopmap_core::io::ompi_capture::{self, RawDir};
use hopmap_core::io::ompi_monitoring::{self, Traffic};
use hopmap_core::units::fmt_bytes_exact as fmt_bytes;
use std::ffi::OsString;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The graph to write (format from the extension, or --format; `.prof` keeps the message counts).
    #[arg(short, long, value_name = "GRAPH")]
    pub output: PathBuf,
    /// Output format (default: from the extension of GRAPH).
    #[arg(long, value_parser = super::common::choice(&Format::ALL, Format::id))]
    pub format: Option<Format>,
    /// The traffic that becomes the graph: app (the application's point-to-point, E lines), internal, collectives, osc, all.
    #[arg(long, value_parser = super::common::choice(&Traffic::ALL, Traffic::name), default_value = "app")]
    pub traffic: Traffic,
    /// Keep the raw monitoring files (one `prof.<rank>.prof` per rank) in DIR; it must not hold .prof files yet.
    #[arg(long, value_name = "DIR")]
    pub keep_raw: Option<PathBuf>,
    /// Accept a command that is not mpirun/mpiexec (a wrapper script that runs Open MPI's mpirun).
    #[arg(long)]
    pub any_launcher: bool,
    /// The launch command: `mpirun -np N ./app ARGS` (after `--`).
    #[arg(required = true, last = true, value_name = "COMMAND")]
    pub command: Vec<OsString>,
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
    let program = &args.command[0];
    if !args.any_launcher {
        let version = ompi_capture::check_launcher(program)?;
        eprintln!("launcher: {version}");
    }
    let near = args.output.parent().map(PathBuf::from).unwrap_or_default();
    let raw = RawDir::new(args.keep_raw.as_deref(), &near)?;
    let mut cmd = std::process::Command::new(program);
    cmd.args(&args.command[1..]);
    for (k, v) in ompi_capture::monitoring_env(raw.path()) {
        cmd.env(k, v);
    }
    let status = cmd
        .status()
        .with_context(|| format!("could not start {}", program.to_string_lossy()))?;
    if !status.success() {
        let code = status.code().unwrap_or_else(|| {
            use std::os::unix::process::ExitStatusExt;
            128 + status.signal().unwrap_or(0)
        });
        eprintln!(
            "error: the run failed ({status}); no graph written{}",
            if raw.kept() {
                format!("; its partial files are in {}", raw.path().display())
            } else {
                String::new()
            }
        );
        drop(raw);
        let _ = crate::cli::out::flush();
        std::process::exit(if code == 0 { 1 } else { code });
    }
    if !ompi_capture::has_files(raw.path()) {
        anyhow::bail!(ompi_capture::no_files_help(raw.path()));
    }
    let g = ompi_monitoring::read(raw.path(), args.traffic, None)?;
    let d = hopmap_core::io::weight_divisor(&g, format)?;
    hopmap_core::io::write_graph(&args.output, &g, format)?;
    let s = GraphSummary::of(&g);
    eprintln!(
        "captured {} ranks: {} in {} messages between {} pairs ({}) -> {} ({})",
        s.processes,
        fmt_bytes(s.total_bytes),
        s.total_msgs.unwrap_or(0.0),
        s.edges,
        args.traffic,
        args.output.display(),
        format.name()
    );
    if d > 1 {
        eprintln!(
            "note: {} loads are bytes divided by {d} (32-bit loads)",
            format.name()
        );
    }
    for note in &s.notes {
        eprintln!("note: {note}");
    }
    if raw.kept() {
        eprintln!("raw monitoring files: {}", raw.path().display());
    }
    Ok(())
}
