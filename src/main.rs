//! The `hopmap` binary: with no arguments it opens the GUI (feature `gui`)
//! or prints its help; with a subcommand it runs batch work through the
//! library. Errors are reported
//! once, here: exit code 0 ok, 1 error, 2 usage (clap).

mod cli;

/// The binary's allocator: mimalloc (the mappers' many short-lived vectors).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::{CommandFactory, Parser};
use std::io::Write;

#[derive(Parser, Debug)]
#[command(
    name = "hopmap",
    version,
    about = "Topology-aware process mapping: visualizer and batch toolkit"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    // One variant per subcommand; each lives in src/cli/<name>.rs.
    /// Describe a communication graph: sizes, bytes, degrees, components, coordinates.
    Info(cli::info::Args),
    /// Generate a communication graph (stencil, fft, diagonal, clusters, unstructured, mixed, random-geometric).
    Generate(cli::generate::Args),
    /// Evaluate a mapping: hop-bytes, dilation, link loads and flows.
    Eval(cli::eval::Args),
    /// Open the desktop app (optionally headless: --screenshot PNG)
    #[cfg(feature = "gui")]
    Gui(cli::gui::Args),
    /// Run a mapper and write a launcher mapping file (plain, bgp, mpich, rankfile, slurm, hydra).
    Map(cli::map::Args),
    /// List the mappers, each with its paper and section.
    Mappers(cli::mappers::Args),
    /// Run several mappers on one input and compare their metrics.
    Compare(cli::compare::Args),
    /// Regenerate a seed paper's experiment and print its tables.
    Reproduce(cli::reproduce::Args),
    /// Gravitational layout (Bobrik & Popova): coordinates, clusters, groups
    Layout(cli::layout::Args),
    /// Describe a topology: switches, hosts, links, diameter, links up*/down* never uses.
    Topology(cli::topology::Args),
    /// Benchmarks (`hopmap bench layout`)
    Bench(cli::bench::Args),
    /// Run an Open MPI launch command with monitoring on and write its communication graph.
    Capture(cli::capture::Args),
    /// Write a graph in another format (MatrixMarket, METIS, Scotch, edge list, dense, DOT).
    Convert(cli::convert::Args),
}

/// No subcommand: open the GUI on its first lesson/sample, or (built
/// without the GUI) print the help.
#[cfg(feature = "gui")]
fn no_subcommand() -> anyhow::Result<()> {
    let r = cli::gui::run(cli::gui::Args::default());
    if r.is_err() {
        let _ = Cli::command().print_help();
    }
    r
}

#[cfg(not(feature = "gui"))]
fn no_subcommand() -> anyhow::Result<()> {
    Cli::command().print_help()?;
    println!("\n(built without the desktop app: the `gui` cargo feature is off)");
    Ok(())
}

fn main() {
    let cli = Cli::parse();
    let result: anyhow::Result<()> = match cli.command {
        None => no_subcommand(),
        Some(c) => match c {
            Command::Info(a) => cli::info::run(a),
            Command::Generate(a) => cli::generate::run(a),
            Command::Eval(a) => cli::eval::run(a),
            #[cfg(feature = "gui")]
            Command::Gui(a) => cli::gui::run(a),
            Command::Map(a) => cli::map::run(a),
            Command::Mappers(a) => cli::mappers::run(a),
            Command::Compare(a) => cli::compare::run(a),
            Command::Reproduce(a) => cli::reproduce::run(a),
            Command::Layout(a) => cli::layout::run(a),
            Command::Bench(a) => cli::bench::run(a),
            Command::Topology(a) => cli::topology::run(a),
            Command::Capture(a) => cli::capture::run(a),
            Command::Convert(a) => cli::convert::run(a),
        },
    };
    // Whatever is still buffered goes out now, so that its failure is seen.
    let result = result.and_then(|()| Ok(cli::out::flush()?));
    std::process::exit(report(result));
}

/// The one place that turns a command's outcome into an exit code and at
/// most one line on stderr.
///
/// * A failed write to standard output decides first: a closed pipe
///   (`hopmap mappers --long | head -1`) exits 0 quietly; anything else
///   (`> /dev/full`) is `error: writing to standard output: …`, exit 1.
/// * Any other error prints its chain once: a cause whose text its context
///   already shows (an OS error inside `PATH: OS error`) is not repeated, and
///   control characters (a newline in a file name) are escaped.
fn report(result: anyhow::Result<()>) -> i32 {
    if let Some((kind, text)) = cli::out::failure() {
        if kind == std::io::ErrorKind::BrokenPipe {
            return 0;
        }
        let _ = writeln!(
            std::io::stderr(),
            "error: writing to standard output: {}",
            one_line(&text)
        );
        return 1;
    }
    let Err(e) = result else { return 0 };
    let mut msg = String::new();
    for cause in e.chain() {
        let t = cause.to_string();
        if msg.contains(&t) {
            continue;
        }
        if !msg.is_empty() {
            msg.push_str(": ");
        }
        msg.push_str(&t);
    }
    let _ = writeln!(std::io::stderr(), "error: {}", one_line(&msg));
    1
}

/// A message on one line: newlines, tabs and other control characters
/// escaped — except in the trailing help of a message that is meant to span
/// lines (the no-display help of `gui`), which follows a blank line.
fn one_line(s: &str) -> String {
    let (head, help) = match s.split_once("\n\n") {
        Some((h, rest)) if rest.starts_with("hopmap could not open a window") => (h, Some(rest)),
        _ => (s, None),
    };
    let mut out = String::with_capacity(head.len());
    for c in head.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    if let Some(h) = help {
        out.push_str("\n\n");
        out.push_str(h);
    }
    out
}
