//! `hopmap reproduce wu`: the analytical mapper of Wu et al. (seed 003) in
//! the style of their Table 4 (hop-bytes reduction against the default
//! mapping, fixed processes by BFT or RCM) and Table 6 (global-mapping
//! iterations and time), with the paper's figures beside ours; and quality
//! against Scotch (`scotch_gmap`, when it is on PATH — optional, never
//! required) and MHT.
//!
//! Inputs: this project's `unstructured:P:3d` graphs (a jittered 3D point
//! mesh split into P parts by recursive bisection; weights = mesh edges cut;
//! coordinates are not used) in place of the paper's METIS-partitioned
//! SuiteSparse matrices (F1, audikw_1, nlpkkt120) and the ART cosmology
//! code. Topologies: the Blue Gene/P partitions of the paper's Table 2 with
//! 4 cores per node (`bgp:64` … `bgp:2048`; meshes below 512 nodes, tori
//! from 512), as in the paper's "virtual node mode".
//!
//! The targets table maps `unstructured:P:3d`, P = 512 … 16,384, on 3D tori
//! (Blue Gene/P shapes, wrap on every dimension) with 1 and 4 cores per
//! node, and prints hop-bytes of analytical and analytical+pairs relative to
//! Scotch's gmap (`-b0 -Cd`), and the maximum link load (DOR routing) of
//! analytical against MHT's.
//!
//! Cost: seconds per row in release (Scotch takes ~4 s at 16,384).

use crate::error::{Error, Result};
use crate::generate::{GenOptions, generate};
use crate::graph::CommGraph;
use crate::mappers::analytical::fixed::FixedKind;
use crate::mappers::analytical::{Analytical, Settings};
use crate::mappers::{self, MapperInput};
use crate::mapping::Mapping;
use crate::metrics::{evaluate, hop_bytes};
use crate::routing::Routing;
use crate::step::Stepper;
use crate::topology::spec::BGP_PARTITIONS;
use crate::topology::{Grid, Topology};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// The paper's Table 4 (BFT %, RCM %) and Table 6 (iterations, time s) for
/// F1, audikw_1, nlpkkt120, ART, by process count 256 … 8192.
/// One size: process count, Table 4 pairs, Table 6 pairs.
pub type PaperRow = (usize, [(f64, f64); 4], [(f64, f64); 4]);

pub const PAPER: &[PaperRow] = &[
    (
        256,
        [
            (70.66, 71.11),
            (67.80, 65.94),
            (53.76, 53.45),
            (42.96, 42.63),
        ],
        [(14.0, 0.010), (22.0, 0.007), (33.0, 0.005), (27.0, 0.011)],
    ),
    (
        512,
        [
            (75.29, 74.59),
            (71.26, 70.95),
            (63.38, 64.76),
            (39.18, 43.04),
        ],
        [(32.0, 0.015), (34.0, 0.010), (32.0, 0.013), (33.0, 0.014)],
    ),
    (
        1024,
        [
            (76.80, 78.61),
            (73.79, 74.30),
            (69.39, 70.48),
            (49.07, 48.49),
        ],
        [(29.0, 0.035), (38.0, 0.026), (34.0, 0.040), (51.0, 0.040)],
    ),
    (
        2048,
        [
            (72.60, 73.69),
            (67.71, 65.27),
            (66.67, 69.39),
            (28.17, 26.37),
        ],
        [(33.0, 0.093), (41.0, 0.075), (41.0, 0.115), (44.0, 0.088)],
    ),
    (
        4096,
        [
            (75.68, 77.02),
            (71.16, 71.07),
            (75.15, 74.58),
            (27.10, 31.53),
        ],
        [(42.0, 0.347), (56.0, 0.328), (44.0, 0.345), (55.0, 0.236)],
    ),
    (
        8192,
        [
            (77.35, 82.72),
            (68.14, 70.95),
            (77.73, 79.49),
            (22.84, 25.76),
        ],
        [(49.0, 1.086), (49.0, 0.783), (56.0, 1.265), (49.0, 0.579)],
    ),
];

/// The input graph of a row (coordinates dropped: the mapper gets none).
pub fn graph(p: usize, seed: u64) -> Result<CommGraph> {
    let g = generate(
        &format!("unstructured:{p}:3d"),
        &GenOptions {
            seed,
            ..GenOptions::default()
        },
    )?;
    g.with_coords(None)
}

/// One analytical run, with its iteration counts and wall time.
#[derive(Clone, Debug)]
pub struct Run {
    pub mapping: Mapping,
    pub hop_bytes: f64,
    pub global_iterations: usize,
    pub legal_iterations: usize,
    pub seconds: f64,
}

/// Run the analytical mapper with `settings` to the end.
pub fn run_analytical(g: &Arc<CommGraph>, topo: &Arc<Topology>, s: Settings) -> Result<Run> {
    let t0 = Instant::now();
    let mut a = Analytical::new(g.clone(), topo.clone(), s)?;
    a.run_to_end();
    let seconds = t0.elapsed().as_secs_f64();
    let mapping = a.mapping().cloned().ok_or_else(|| {
        Error::Unsupported(
            a.failure()
                .map_or("no mapping".to_string(), |e| e.to_string()),
        )
    })?;
    mapping.validate(g.n(), topo)?;
    Ok(Run {
        hop_bytes: hop_bytes(g, topo, &mapping),
        mapping,
        global_iterations: a.global_iterations(),
        legal_iterations: a.legal_iterations(),
        seconds,
    })
}

fn map_with(id: &str, g: &Arc<CommGraph>, topo: &Arc<Topology>, seed: u64) -> Result<Mapping> {
    let info = mappers::find(id).ok_or_else(|| Error::Unsupported(format!("no mapper {id}")))?;
    mappers::run(&info, &MapperInput::new(g.clone(), topo.clone(), seed))
}

// ----- Scotch (optional) -----

/// Whether `scotch_gmap` is on PATH.
pub fn scotch_available() -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join("scotch_gmap").is_file()))
}

/// Scotch's target line for a grid (None when Scotch has no such target:
/// mixed wrap flags).
pub fn scotch_target(grid: &Grid) -> Option<String> {
    let dims: Vec<String> = grid.dims().iter().map(|d| d.to_string()).collect();
    let torus = grid.wrap().iter().all(|&w| w);
    let mesh = grid.wrap().iter().all(|&w| !w);
    let kind = if torus {
        "torus"
    } else if mesh {
        "mesh"
    } else {
        return None;
    };
    Some(match grid.ndims() {
        2 | 3 => format!("{kind}{}D {}", grid.ndims(), dims.join(" ")),
        d => format!("{kind}XD {d} {}", dims.join(" ")),
    })
}

/// Map with `scotch_gmap G.grf T.tgt out.map -b0 -Cd` (temporary files in
/// the system's temp directory, removed afterwards). Integer edge loads are
/// the pair volumes rounded (at least 1). A node over-full after Scotch
/// (possible with several cores per node) has its extra processes moved to
/// the nearest nodes with room.
pub fn scotch_map(g: &CommGraph, topo: &Topology) -> Result<(Mapping, f64)> {
    let grid = topo
        .as_grid()
        .ok_or_else(|| Error::Unsupported("scotch: not a grid".into()))?;
    let tgt =
        scotch_target(grid).ok_or_else(|| Error::Unsupported("scotch: mixed wrap flags".into()))?;
    static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let k = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir: PathBuf =
        std::env::temp_dir().join(format!("hopmap-scotch-{}-{k}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let res = (|| -> Result<(Mapping, f64)> {
        let grf = dir.join("g.grf");
        let tgtf = dir.join("t.tgt");
        let out = dir.join("out.map");
        let mut s = String::new();
        s.push_str(&format!("0\n{} {}\n0 010\n", g.n(), g.num_entries()));
        for u in 0..g.n() {
            let row: Vec<String> = g
                .edges_of(u)
                .map(|(v, _, w)| format!("{} {v}", (w.round() as u64).max(1)))
                .collect();
            s.push_str(&format!("{} {}\n", row.len(), row.join(" ")));
        }
        crate::io::atomic::write_bytes_atomic(&grf, s.as_bytes())?;
        crate::io::atomic::write_bytes_atomic(&tgtf, format!("{tgt}\n").as_bytes())?;
        let t0 = Instant::now();
        let st = std::process::Command::new("scotch_gmap")
            .arg(&grf)
            .arg(&tgtf)
            .arg(&out)
            .args(["-b0", "-Cd"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .map_err(|e| Error::io(std::path::Path::new("scotch_gmap"), e))?;
        let secs = t0.elapsed().as_secs_f64();
        if !st.success() {
            return Err(Error::Unsupported(format!("scotch_gmap failed: {st}")));
        }
        let text = std::fs::read_to_string(&out).map_err(|e| Error::io(&out, e))?;
        let mut node = vec![u32::MAX; g.n()];
        for line in text.lines().skip(1) {
            let mut it = line.split_whitespace();
            if let (Some(a), Some(b)) = (it.next(), it.next())
                && let (Ok(p), Ok(t)) = (a.parse::<usize>(), b.parse::<u32>())
                && p < node.len()
                && (t as usize) < topo.num_nodes()
            {
                node[p] = t;
            }
        }
        if node.contains(&u32::MAX) {
            return Err(Error::Unsupported(
                "scotch_gmap left processes unmapped".into(),
            ));
        }
        Ok((repair(node, topo), secs))
    })();
    let _ = std::fs::remove_dir_all(&dir);
    res
}

/// Move processes off over-full nodes to the nearest nodes with room.
fn repair(mut node: Vec<u32>, topo: &Topology) -> Mapping {
    let cores = topo.cores();
    let nodes = topo.num_nodes();
    let mut load = vec![0usize; nodes];
    for &v in &node {
        load[v as usize] += 1;
    }
    for p in 0..node.len() {
        let v = node[p] as usize;
        if load[v] > cores
            && let Some(w) = (0..nodes)
                .filter(|&w| load[w] < cores)
                .min_by_key(|&w| (topo.distance(v, w), w))
        {
            load[v] -= 1;
            load[w] += 1;
            node[p] = w as u32;
        }
    }
    // Every node is at most full now (n ≤ slots), so this cannot fail.
    Mapping::from_nodes(node, topo).unwrap_or_default()
}

// ----- Table 4 / Table 6 -----

/// One row of the Table 4/6 reproduction.
#[derive(Clone, Debug)]
pub struct Row {
    pub processes: usize,
    pub topology: String,
    pub default_hop_bytes: f64,
    pub bft: Run,
    pub rcm: Run,
    /// The default settings (`fixed=far`, beyond the paper).
    pub far: Run,
    pub scotch_hop_bytes: Option<f64>,
}

fn reduction(base: f64, x: f64) -> f64 {
    if base > 0.0 {
        100.0 * (1.0 - x / base)
    } else {
        0.0
    }
}

/// The Table 4/6 rows (P = 256 … 8192; `quick`: 256 and 512 only).
pub fn table(quick: bool, with_scotch: bool) -> Result<Vec<Row>> {
    let sizes: &[usize] = if quick {
        &[256, 512]
    } else {
        &[256, 512, 1024, 2048, 4096, 8192]
    };
    let mut rows = Vec::new();
    for &p in sizes {
        let g = Arc::new(graph(p, 1)?);
        let topo = Arc::new(Topology::parse(&format!("bgp:{}", p / 4))?);
        let def = map_with("default", &g, &topo, 1)?;
        let base = hop_bytes(&g, &topo, &def);
        let s = |fixed| Settings {
            fixed,
            seed: 1,
            ..Settings::default()
        };
        let bft = run_analytical(&g, &topo, s(FixedKind::Bft))?;
        let rcm = run_analytical(&g, &topo, s(FixedKind::Rcm))?;
        let far = run_analytical(&g, &topo, s(FixedKind::Far))?;
        let scotch_hop_bytes = if with_scotch {
            scotch_map(&g, &topo)
                .ok()
                .map(|(m, _)| hop_bytes(&g, &topo, &m))
        } else {
            None
        };
        rows.push(Row {
            processes: p,
            topology: topo.spec(),
            default_hop_bytes: base,
            bft,
            rcm,
            far,
            scotch_hop_bytes,
        });
    }
    Ok(rows)
}

// ----- quality targets -----

/// One row of the targets table.
#[derive(Clone, Debug)]
pub struct TargetRow {
    pub processes: usize,
    pub topology: String,
    pub scotch: Option<(f64, f64)>,
    pub analytical: f64,
    pub analytical_seconds: f64,
    pub analytical_pairs: f64,
    pub mll_analytical: f64,
    pub mll_mht: f64,
}

/// 3D torus of Blue Gene/P shape with `nodes` nodes and `cores` per node.
pub fn torus_for(nodes: usize, cores: usize) -> Result<Topology> {
    let (_, d) = BGP_PARTITIONS
        .iter()
        .find(|(m, _)| *m as usize == nodes)
        .ok_or_else(|| Error::Unsupported(format!("no Blue Gene/P shape of {nodes} nodes")))?;
    Topology::parse(&format!("torus:{}x{}x{}:cores={cores}", d[0], d[1], d[2]))
}

/// Targets rows for the given sizes and cores per node.
pub fn targets(sizes: &[usize], cores: &[usize], with_scotch: bool) -> Result<Vec<TargetRow>> {
    let mut rows = Vec::new();
    for &p in sizes {
        let g = Arc::new(graph(p, 1)?);
        for &c in cores {
            let topo = Arc::new(torus_for(p / c, c)?);
            let ana = run_analytical(
                &g,
                &topo,
                Settings {
                    seed: 1,
                    ..Settings::default()
                },
            )?;
            let ap = map_with("analytical+pairs", &g, &topo, 1)?;
            let mht = map_with("mht", &g, &topo, 1)?;
            let r = Routing::Dor;
            let mll_a = evaluate(&g, &topo, &ana.mapping, &r).metrics.max_link_load;
            let mll_m = evaluate(&g, &topo, &mht, &r).metrics.max_link_load;
            let scotch = if with_scotch {
                scotch_map(&g, &topo)
                    .ok()
                    .map(|(m, s)| (hop_bytes(&g, &topo, &m), s))
            } else {
                None
            };
            rows.push(TargetRow {
                processes: p,
                topology: topo.spec(),
                scotch,
                analytical: ana.hop_bytes,
                analytical_seconds: ana.seconds,
                analytical_pairs: hop_bytes(&g, &topo, &ap),
                mll_analytical: mll_a,
                mll_mht: mll_m,
            });
        }
    }
    Ok(rows)
}

fn out_err(e: std::io::Error) -> Error {
    Error::io(std::path::Path::new("(output)"), e)
}

fn mean(v: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = v.collect();
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// Print both tables.
pub fn run(out: &mut dyn Write, quick: bool) -> Result<()> {
    let scotch = scotch_available();
    writeln!(
        out,
        "Wu et al., analytical mapping: Tables 4 and 6 on unstructured:P:3d graphs (no coordinates), \
         Blue Gene/P partitions with 4 cores per node (meshes below 512 nodes).\n\
         Reduction = 1 − hop-bytes / hop-bytes of the default (TXYZ) mapping. Paper columns: \
         mean over F1, audikw_1, nlpkkt120, ART (min–max in brackets for RCM).\n"
    ).map_err(out_err)?;
    let rows = table(quick, scotch)?;
    writeln!(
        out,
        "{:>6} {:<22} {:>7} {:>7} {:>7} {:>8} {:>8} {:>19} {:>6} {:>6} {:>8} {:>8} {:>8} {:>9}",
        "P",
        "topology",
        "BFT %",
        "RCM %",
        "far %",
        "ppr BFT",
        "ppr RCM",
        "(ppr RCM min–max)",
        "glob",
        "legal",
        "ppr glob",
        "time s",
        "ppr s",
        "Scotch %"
    )
    .map_err(out_err)?;
    for r in &rows {
        let paper = PAPER.iter().find(|x| x.0 == r.processes);
        let (pb, pr, lo, hi, pit, pt) = match paper {
            Some((_, t4, t6)) => (
                mean(t4.iter().map(|x| x.0)),
                mean(t4.iter().map(|x| x.1)),
                t4.iter().map(|x| x.1).fold(f64::INFINITY, f64::min),
                t4.iter().map(|x| x.1).fold(0.0, f64::max),
                mean(t6.iter().map(|x| x.0)),
                mean(t6.iter().map(|x| x.1)),
            ),
            None => (f64::NAN, f64::NAN, f64::NAN, f64::NAN, f64::NAN, f64::NAN),
        };
        let sc = r
            .scotch_hop_bytes
            .map(|h| format!("{:.2}", reduction(r.default_hop_bytes, h)))
            .unwrap_or_else(|| "-".into());
        writeln!(
            out,
            "{:>6} {:<22} {:>7.2} {:>7.2} {:>7.2} {:>8.2} {:>8.2} {:>19} {:>6} {:>6} {:>8.1} {:>8.3} {:>8.3} {:>9}",
            r.processes,
            r.topology,
            reduction(r.default_hop_bytes, r.bft.hop_bytes),
            reduction(r.default_hop_bytes, r.rcm.hop_bytes),
            reduction(r.default_hop_bytes, r.far.hop_bytes),
            pb,
            pr,
            format!("({lo:.1}–{hi:.1})"),
            r.far.global_iterations,
            r.far.legal_iterations,
            pit,
            r.far.seconds,
            pt,
            sc
        ).map_err(out_err)?;
    }
    writeln!(
        out,
        "\nBFT %/RCM %: the paper's two ways to pick the corner processes (§3.6, §4.2); far %: our \
         default, far-apart corner processes oriented to the box (beyond the paper). All three use \
         the other defaults, which also go beyond the paper: spreading by pins at the shifting \
         targets (the anchors of Eqs. 6–9 made global mapping diverge), proportional \
         shifting, and legalization by recursive bisection of the best global iterate instead \
         of the diffusion of §3.4 (`legalize=bisect`: fewer hop-bytes on every input we \
         measured); `--param fixed=rcm --param spread=paper --param shift_mu=0 --param \
         legalize=diffusion` is the paper's own algorithm.\n\
         glob/legal/time: our default (far) run (global-mapping and legalization iterations, wall \
         time of the whole mapper, this shared machine). ppr glob/ppr s: the paper's \
         Table 6 (global iterations, total time with CHOLMOD on a Xeon X5650), mean of the four inputs.\n\
         Why the figures differ: (1) the inputs — our generator numbers nearby parts with nearby \
         ids, so the default TXYZ mapping is already far better than on the paper's METIS-partitioned \
         matrices and ART, and the possible reduction is smaller; (2) the paper's graphs have \
         irregular message sizes, ours weight each pair by the mesh edges it cuts; (3) timings are \
         from another machine and solver (PCG warm-started vs CHOLMOD refactorisation); \
         (4) the paper does not give γ per run, nor how it breaks ties in RCM.{}",
        if scotch {
            "\nScotch %: scotch_gmap -b0 -Cd on the same graph and target (its hop-bytes reduction)."
        } else {
            "\nScotch: scotch_gmap is not on PATH; its column is empty."
        }
    ).map_err(out_err)?;
    // Targets.
    let sizes: &[usize] = if quick {
        &[512]
    } else {
        &[512, 1024, 2048, 4096, 8192, 16384]
    };
    let rows = targets(sizes, &[1, 4], scotch)?;
    writeln!(
        out,
        "\nQuality targets: unstructured:P:3d on 3D tori (no coordinates). Hop-bytes relative to \
         Scotch gmap (targets: analytical ≤ 1.05, analytical+pairs ≤ 0.92); max link load (DOR) of \
         analytical relative to MHT (target ≤ 1).\n"
    )
    .map_err(out_err)?;
    writeln!(
        out,
        "{:>6} {:<22} {:>14} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "P", "topology", "Scotch HB", "ana/Sc", "a+p/Sc", "MLL a/MHT", "ana s", "Scotch s", "ok"
    )
    .map_err(out_err)?;
    for r in &rows {
        let (rs, rp, ss, ok) = match r.scotch {
            Some((h, s)) => {
                let (a, p) = (r.analytical / h, r.analytical_pairs / h);
                let ok = a <= 1.05 && p <= 0.92 && r.mll_analytical <= r.mll_mht;
                (
                    format!("{a:.3}"),
                    format!("{p:.3}"),
                    format!("{s:.2}"),
                    if ok { "yes" } else { "no" },
                )
            }
            None => ("-".into(), "-".into(), "-".into(), "-"),
        };
        writeln!(
            out,
            "{:>6} {:<22} {:>14} {:>9} {:>9} {:>9.3} {:>9.3} {:>9} {:>9}",
            r.processes,
            r.topology,
            r.scotch
                .map(|s| format!("{:.4e}", s.0))
                .unwrap_or_else(|| "-".into()),
            rs,
            rp,
            r.mll_analytical / r.mll_mht.max(1e-300),
            r.analytical_seconds,
            ss,
            ok
        )
        .map_err(out_err)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scotch_targets() {
        assert_eq!(
            scotch_target(&Grid::torus(&[8, 8, 16])).unwrap(),
            "torus3D 8 8 16"
        );
        assert_eq!(scotch_target(&Grid::mesh(&[4, 4])).unwrap(), "mesh2D 4 4");
        assert_eq!(
            scotch_target(&Grid::torus(&[2, 2, 2, 2])).unwrap(),
            "torusXD 4 2 2 2 2"
        );
        assert!(scotch_target(&Grid::new(&[4, 4], &[true, false], 1).unwrap()).is_none());
    }

    #[test]
    fn the_paper_table_has_six_sizes() {
        assert_eq!(PAPER.len(), 6);
        assert!(PAPER.windows(2).all(|w| w[0].0 * 2 == w[1].0));
    }
}
