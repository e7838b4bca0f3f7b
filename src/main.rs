//! The `hopmap` binary: with no arguments it opens the GUI (feature `gui`)
//! or prints its help; with a subcommand it runs batch work through the
//! library. Errors are reported
//! once, here: exit code 0 ok, 1 error, 2 usage (clap).

mod cli;

use clap::{CommandFactory, Parser};

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
    /// Run a mapper and write a launcher mapping file (plain, bgp, mpich, rankfile).
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
        },
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
