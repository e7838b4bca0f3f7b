//! `hopmap bench layout`: times the gravitational layout on square grid
//! graphs (`stencil:SxS`): the median time of one iteration (single level,
//! Barnes–Hut, from a random start) and the median time of the whole
//! multilevel layout, with the grid Spearman correlation it reaches.
//! Use a release build for meaningful numbers.

use anyhow::bail;
use hopmap_core::generate::{GenOptions, generate};
use hopmap_core::layout::quality::hop_spearman;
use hopmap_core::layout::{Layout, LayoutParams, MultilevelMode, RepulsionMode};
use hopmap_core::step::Stepper;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    pub what: What,
}

#[derive(clap::Subcommand, Debug)]
pub enum What {
    /// Per-iteration and whole-layout times of the gravitational layout on grids.
    Layout(LayoutBench),
    /// Whole-mapper time of the analytical mapper (Wu et al.) and its solvers.
    Analytical(AnalyticalBench),
}

#[derive(clap::Args, Debug)]
pub struct AnalyticalBench {
    /// Processes (`unstructured:P:3d`, coordinates not used).
    #[arg(long, default_value_t = 8192)]
    pub n: usize,
    /// Topology.
    #[arg(long, default_value = "torus:8x8x32:cores=4")]
    pub topology: String,
    /// Whole runs per configuration (median reported).
    #[arg(long, default_value_t = 5)]
    pub repeats: usize,
    /// Also time both solvers and both multicore modes.
    #[arg(long)]
    pub solvers: bool,
    /// Print every step's max workload, W(Φ) and hop-bytes.
    #[arg(long)]
    pub trace: bool,
    /// Start the first solve from the box centre (the paper) instead of the
    /// BFS-distance warm start.
    #[arg(long)]
    pub cold: bool,
}

#[derive(clap::Args, Debug)]
pub struct LayoutBench {
    /// Grid sizes (processes, 4 to 16777216; rounded down to a square).
    #[arg(long, value_delimiter = ',', default_value = "16384,65536",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(4..=1 << 24))]
    pub n: Vec<usize>,
    /// Timed iterations per size for the per-iteration median (1 to 100000).
    #[arg(long, default_value_t = 20,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=100_000))]
    pub iterations: usize,
    /// Whole multilevel layouts per size, median reported (1 to 1000).
    #[arg(long, default_value_t = 3,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1000))]
    pub repeats: usize,
    /// 3D layout instead of 2D.
    #[arg(long)]
    pub dim3: bool,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    if v.is_empty() {
        f64::NAN
    } else {
        v[v.len() / 2]
    }
}

pub fn run(a: Args) -> anyhow::Result<()> {
    match a.what {
        What::Layout(b) => layout(b),
        What::Analytical(b) => analytical(b),
    }
}

fn layout(b: LayoutBench) -> anyhow::Result<()> {
    if b.iterations == 0 || b.repeats == 0 {
        bail!("--iterations and --repeats must be at least 1");
    }
    let dim = if b.dim3 { 3 } else { 2 };
    crate::outln!(
        "{:>8} {:>14} {:>10} {:>16} {:>10} {:>8}",
        "n",
        "ms/iteration",
        "iter/s",
        "multilevel s",
        "Spearman",
        "levels"
    );
    for &n in &b.n {
        let s = (n as f64).sqrt().floor() as usize;
        if s < 2 {
            bail!("--n {n} is too small");
        }
        let g = generate(&format!("stencil:{s}x{s}"), &GenOptions::default())?;
        // Per iteration: single level, Barnes–Hut, random start.
        let p = LayoutParams {
            dim,
            multilevel: MultilevelMode::Off,
            repulsion: RepulsionMode::BarnesHut,
            until_stable: false,
            max_iterations: b.iterations + 3,
            ..Default::default()
        };
        let mut l = Layout::new(&g, p)?;
        for _ in 0..3 {
            l.step();
        }
        let mut times = Vec::with_capacity(b.iterations);
        for _ in 0..b.iterations {
            let t = Instant::now();
            l.step();
            times.push(t.elapsed().as_secs_f64());
        }
        let per = median(times);
        // Whole multilevel layout.
        let mut whole = Vec::new();
        let mut sp = Vec::new();
        let mut levels = 0;
        for r in 0..b.repeats {
            let p = LayoutParams {
                dim,
                seed: r as u64,
                ..Default::default()
            };
            let t = Instant::now();
            let mut l = Layout::new(&g, p)?;
            l.run_to_end();
            whole.push(t.elapsed().as_secs_f64());
            levels = l.level().1;
            sp.push(hop_spearman(&g, &l.positions(), 2000, 1));
        }
        crate::outln!(
            "{:>8} {:>14.2} {:>10.1} {:>16.3} {:>10.4} {:>8}",
            g.n(),
            per * 1e3,
            1.0 / per,
            median(whole),
            median(sp),
            levels
        );
    }
    Ok(())
}

fn analytical(b: AnalyticalBench) -> anyhow::Result<()> {
    use hopmap_core::mappers::analytical::global::SolverKind;
    use hopmap_core::mappers::analytical::multicore::MulticoreMode;
    use hopmap_core::mappers::analytical::{Analytical, Settings};
    use hopmap_core::topology::Topology;
    use std::sync::Arc;
    if b.repeats == 0 {
        bail!("--repeats must be at least 1");
    }
    let g = generate(
        &format!("unstructured:{}:3d", b.n),
        &GenOptions {
            seed: 1,
            ..GenOptions::default()
        },
    )?
    .with_coords(None)?;
    let g = Arc::new(g);
    let topo = Arc::new(Topology::parse(&b.topology)?);
    // The default (bins, PCG) first.
    let mut configs = vec![("pcg", "bins", SolverKind::Pcg, MulticoreMode::Bins)];
    if b.solvers {
        configs.push((
            "cholesky",
            "bins",
            SolverKind::Cholesky,
            MulticoreMode::Bins,
        ));
        configs.push(("pcg", "group", SolverKind::Pcg, MulticoreMode::Group));
        configs.push((
            "cholesky",
            "group",
            SolverKind::Cholesky,
            MulticoreMode::Group,
        ));
    }
    println!(
        "analytical, unstructured:{}:3d on {}, median of {} runs",
        b.n, b.topology, b.repeats
    );
    if topo.cores() > 1 {
        let mut t = Vec::new();
        let mut cut = 0.0;
        for _ in 0..b.repeats {
            let t0 = Instant::now();
            let gr = hopmap_core::partition::groups_of_size(&g, topo.cores(), 1)?;
            t.push(t0.elapsed().as_secs_f64());
            cut = hopmap_core::partition::edge_cut(&g, &gr.part);
        }
        println!(
            "grouping (METIS recursive bisection + balancing) into groups of {}: {:.4} s, edge cut {:.6e} of {:.6e} bytes",
            topo.cores(),
            median(t),
            cut,
            g.total_bytes()
        );
    }
    println!(
        "{:>9} {:>9} {:>10} {:>9} {:>9} {:>9} {:>9} {:>12} {:>8} {:>8} {:>14} {:>14}",
        "solver",
        "multicore",
        "whole s",
        "cpu s",
        "setup s",
        "global s",
        "legal s",
        "solves s",
        "global",
        "legal",
        "s/global it",
        "hop-bytes"
    );
    for (sname, mname, solver, multicore) in configs {
        let mut whole = Vec::new();
        let mut cpu = Vec::new();
        let mut phases: Vec<[f64; 4]> = Vec::new();
        let mut solves = Vec::new();
        let mut last = None;
        for _ in 0..b.repeats {
            let s = Settings {
                solver,
                multicore,
                seed: 1,
                warm_start: !b.cold,
                ..Settings::default()
            };
            let t = Instant::now();
            let c0 = thread_cpu_seconds();
            let mut a = Analytical::new(g.clone(), topo.clone(), s)?;
            let mut by_phase = [0.0f64; 4];
            while !a.is_stopped() {
                let ph = a.phase() as usize;
                let ts = Instant::now();
                a.step();
                by_phase[ph] += ts.elapsed().as_secs_f64();
            }
            whole.push(t.elapsed().as_secs_f64());
            if let (Some(a0), Some(a1)) = (c0, thread_cpu_seconds()) {
                cpu.push(a1 - a0);
            }
            phases.push(by_phase);
            solves.push(a.solve_time().as_secs_f64());
            let m = a.mapping().cloned().ok_or_else(|| {
                anyhow::anyhow!(
                    a.failure()
                        .map_or("no mapping".to_string(), |e| e.to_string())
                )
            })?;
            if b.trace {
                let h = a.history();
                for (k, ((mw, w), hb)) in h
                    .max_workload
                    .iter()
                    .zip(&h.w_phi)
                    .zip(&h.hop_bytes)
                    .enumerate()
                {
                    println!(
                        "  step {k:>3} {:<15} max workload {mw:>5} W {w:>12.4e} hop-bytes {hb:>12.4e} CG its {}",
                        h.phase[k].name(),
                        h.solver_iterations[k]
                    );
                }
                // Where the fullest bins are at the end of global mapping.
                let wl = a.workloads();
                let mut top: Vec<usize> = (0..wl.len()).collect();
                top.sort_by_key(|&v| std::cmp::Reverse(wl[v]));
                let empty = wl.iter().filter(|&&x| x == 0).count();
                print!("  fullest bins (node coordinates: items), {empty} empty bins:");
                for &v in top.iter().take(8) {
                    print!(" {:?}:{}", a.grid().coord(v), wl[v]);
                }
                println!();
            }
            last = Some((
                a.global_iterations(),
                a.legal_iterations(),
                hopmap_core::metrics::hop_bytes(&g, &topo, &m),
            ));
        }
        let (gi, li, hb) = last.expect("repeats ≥ 1");
        let sol = median(solves);
        let ph = |k: usize| median(phases.iter().map(|p| p[k]).collect());
        let cpu_s = if cpu.is_empty() {
            "-".to_string()
        } else {
            format!("{:.4}", median(cpu))
        };
        println!(
            "{:>9} {:>9} {:>10.4} {:>9} {:>9.4} {:>9.4} {:>9.4} {:>12.4} {:>8} {:>8} {:>14.5} {:>14.4e}",
            sname,
            mname,
            median(whole),
            cpu_s,
            ph(0),
            ph(1),
            ph(2),
            sol,
            gi,
            li,
            sol / gi.max(1) as f64,
            hb
        );
    }
    Ok(())
}

/// CPU time of the calling thread (Linux `/proc/thread-self/schedstat`,
/// nanoseconds on a CPU), None elsewhere: on a shared machine the wall
/// time also counts the time other jobs held the cores.
fn thread_cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns * 1e-9)
}
