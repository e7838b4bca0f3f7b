//! `hopmap reproduce EXPERIMENT`: regenerate a seed paper's experiment and
//! print its tables (the work is in `hopmap_core::experiments`).

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Experiment {
    /// Bhatele & Kale: hops per byte of every heuristic on 2D meshes and 3D tori (Fig. 5, 6).
    Bhatele,
    /// Balaji et al. §3.2: TXYZ/TZXY/XYZT contention of a 128×128 stencil on bgp:4096, and the CDL pick.
    Balaji,
    /// Bobrik & Popova §6: the 20-process two-cluster example from the circle start, with PNG snapshots of the stages of Fig. 1–9.
    Bobrik,
    /// Wu et al.: the analytical mapper's Table 4 and 6 (hop-bytes reduction, iterations, time) on BG/P shapes, and the quality targets against Scotch (if on PATH) and MHT.
    Wu,
    /// Moh et al. §5: a 16×16 mesh on three fabric:75,256,8,0.75 fabrics, RM/SM/BM/best other, weighted cardinality and latency.
    Moh,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Which paper's experiment.
    #[arg(value_enum)]
    pub experiment: Experiment,
    /// A smaller, faster instance of the same construction.
    #[arg(long)]
    pub quick: bool,
    /// Where `bobrik` writes its PNG snapshots.
    #[arg(long, value_name = "DIR", default_value = "bobrik-snapshots")]
    pub png_dir: std::path::PathBuf,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let mut out = super::out::Stdout;
    match args.experiment {
        Experiment::Bhatele => hopmap_core::experiments::bhatele::run(&mut out, args.quick)?,
        Experiment::Balaji => hopmap_core::experiments::balaji::run(&mut out, args.quick)?,
        Experiment::Wu => hopmap_core::experiments::wu::run(&mut out, args.quick)?,
        Experiment::Moh => hopmap_core::experiments::moh::run(&mut out, args.quick)?,
        Experiment::Bobrik => {
            std::fs::create_dir_all(&args.png_dir)
                .map_err(|e| hopmap_core::Error::io(&args.png_dir, e))?;
            hopmap_core::experiments::bobrik::run(&mut out, &args.png_dir)?;
        }
    }
    Ok(())
}
