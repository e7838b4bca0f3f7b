//! The `hopmap` binary: with no arguments it will open the GUI; with a
//! subcommand it runs batch work through the library. Errors are reported
//! once, here: exit code 0 ok, 1 error, 2 usage (clap).

mod cli;

use clap::{CommandFactory, Parser};

#[derive(Parser, Debug)]
#[command(name = "hopmap", version, about = "Topology-aware process mapping: visualizer and batch toolkit")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    // One variant per subcommand; each lives in src/cli/<name>.rs.
}

fn main() {
    let cli = Cli::parse();
    let result: anyhow::Result<()> = match cli.command {
        None => {
            let _ = Cli::command().print_help();
            Ok(())
        }
        Some(c) => match c {
            // Command::Name(args) => cli::name::run(args),
        },
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
