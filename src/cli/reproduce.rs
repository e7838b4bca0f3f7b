//! `hopmap reproduce EXPERIMENT`: regenerate a seed paper's experiment and
//! print its tables (the work is in `hopmap::experiments`).

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Experiment {
    /// Bhatele & Kale: hops per byte of every heuristic on 2D meshes and 3D tori (Fig. 5, 6).
    Bhatele,
    /// Balaji et al. §3.2: TXYZ/TZXY/XYZT contention of a 128×128 stencil on bgp:4096, and the CDL pick.
    Balaji,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Which paper's experiment.
    #[arg(value_enum)]
    pub experiment: Experiment,
    /// A smaller, faster instance of the same construction.
    #[arg(long)]
    pub quick: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match args.experiment {
        Experiment::Bhatele => hopmap::experiments::bhatele::run(&mut out, args.quick)?,
        Experiment::Balaji => hopmap::experiments::balaji::run(&mut out, args.quick)?,
    }
    Ok(())
}
