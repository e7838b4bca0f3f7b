//! `hopmap reproduce bhatele`: the hops-per-byte experiments of Bhatele &
//! Kale (seed 000) §VII-B and §VIII, Fig. 5 and Fig. 6.
//!
//! Graphs are this project's `unstructured:P:2d|3d` (a partitioned jittered
//! mesh with part-centroid coordinates and METIS-like recursive numbering, see
//! [`crate::generate::unstructured`]) in place of the paper's CHARM++ meshes.
//! Every heuristic — `default`, `random`, `bft`, `mht`, `affn`, `coce`,
//! `coce+mht`, `pairs`, and (beyond the paper) `pairs/affn`, PAIRS started
//! from AFFN — maps each graph and the table prints the average
//! hops per byte (hop-bytes / total bytes; intra-node bytes count 0 hops):
//!
//! 1. Fig. 5 (left): 2D meshes of 256 … 16,384 nodes (16×16 … 128×128).
//! 2. Fig. 5 (right): a 1,024-process graph on 1,024-node meshes of aspect
//!    ratios 512×2 … 32×32.
//! 3. Fig. 6 (left): 3D tori of 256 … 16,384 nodes with the Blue Gene/P
//!    partition shapes (16×32×32 for 16,384, where random should give about
//!    half the diameter, 20 hops per byte).
//! 4. Fig. 6 (right): the same process counts on tori of a quarter as many
//!    nodes with 4 cores per node.
//!
//! `quick` runs the small sizes only (for tests). Cost: dominated by graph
//! generation and PAIRS, seconds for the full run in release.

use crate::error::Result;
use crate::generate::{GenOptions, generate};
use crate::graph::CommGraph;
use crate::mappers::{self, MapperInput};
use crate::metrics::hop_bytes;
use crate::topology::Topology;
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

/// The heuristics compared, in the paper's order, then (beyond the paper)
/// PAIRS started from AFFN instead of MHT (`pairs` with `from=affn`).
pub const MAPPERS: &[&str] = &[
    "default",
    "random",
    "bft",
    "mht",
    "affn",
    "coce",
    "coce+mht",
    "pairs",
    "pairs/affn",
];

/// Registry id and parameters of a column of [`MAPPERS`].
fn column(label: &str) -> (&str, Vec<(String, String)>) {
    match label.split_once('/') {
        Some((id, from)) => (id, vec![("from".to_string(), from.to_string())]),
        None => (label, Vec::new()),
    }
}

/// One row: a graph on a topology, hops per byte per mapper (None = failed).
#[derive(Clone, Debug)]
pub struct Row {
    pub label: String,
    pub topology: String,
    pub hops_per_byte: Vec<Option<f64>>,
    pub pairs_seconds: f64,
}

/// Map `graph` on `topo` with every heuristic of [`MAPPERS`].
pub fn row(label: &str, graph: &Arc<CommGraph>, topo: Topology, seed: u64) -> Row {
    let topo = Arc::new(topo);
    let input = MapperInput::new(graph.clone(), topo.clone(), seed);
    let total = graph.total_bytes();
    let mut pairs_seconds = 0.0;
    let hops_per_byte = MAPPERS
        .iter()
        .map(|id| {
            let (mid, params) = column(id);
            let info = mappers::find(mid)?;
            let mut input = input.clone();
            input.params = params;
            let t0 = Instant::now();
            let m = mappers::run(&info, &input).ok()?;
            if *id == "pairs" {
                pairs_seconds = t0.elapsed().as_secs_f64();
            }
            Some(if total > 0.0 {
                hop_bytes(graph, &topo, &m) / total
            } else {
                0.0
            })
        })
        .collect();
    Row {
        label: label.to_string(),
        topology: topo.spec(),
        hops_per_byte,
        pairs_seconds,
    }
}

fn unstructured(p: usize, dim: usize) -> Result<Arc<CommGraph>> {
    let opts = GenOptions {
        seed: 1,
        ..GenOptions::default()
    };
    Ok(Arc::new(generate(
        &format!("unstructured:{p}:{dim}d"),
        &opts,
    )?))
}

fn print_table(out: &mut dyn Write, title: &str, rows: &[Row]) -> Result<()> {
    let w = |e: std::io::Error| crate::Error::Unsupported(format!("cannot write the report: {e}"));
    writeln!(out, "\n## {title}\n").map_err(w)?;
    let mut head = format!("| {:<10} | {:<22} |", "graph", "topology");
    for m in MAPPERS {
        head.push_str(&format!(" {m:>10} |"));
    }
    head.push_str(" best       | pairs s |");
    writeln!(out, "{head}").map_err(w)?;
    let mut sep = "|------------|------------------------|".to_string();
    for _ in MAPPERS {
        sep.push_str("-----------:|");
    }
    sep.push_str("------------|--------:|");
    writeln!(out, "{sep}").map_err(w)?;
    for r in rows {
        let mut line = format!("| {:<10} | {:<22} |", r.label, r.topology);
        let mut best: Option<(f64, &str)> = None;
        for (m, v) in MAPPERS.iter().zip(&r.hops_per_byte) {
            match v {
                Some(x) => {
                    line.push_str(&format!(" {x:>10.3} |"));
                    if best.is_none_or(|(b, _)| *x < b) {
                        best = Some((*x, m));
                    }
                }
                None => line.push_str(&format!(" {:>10} |", "—")),
            }
        }
        line.push_str(&format!(
            " {:<10} | {:>7.2} |",
            best.map(|b| b.1).unwrap_or("—"),
            r.pairs_seconds
        ));
        writeln!(out, "{line}").map_err(w)?;
    }
    Ok(())
}

/// 3D torus shapes (Blue Gene/P partitions; 256 as 8×4×8, 64 as 4×4×4, 128 as 4×4×8).
fn torus_shape(nodes: usize) -> Option<&'static str> {
    Some(match nodes {
        64 => "4x4x4",
        128 => "4x4x8",
        256 => "8x4x8",
        512 => "8x8x8",
        1024 => "8x8x16",
        2048 => "8x8x32",
        4096 => "8x16x32",
        8192 => "8x32x32",
        16384 => "16x32x32",
        _ => return None,
    })
}

/// Print the four tables. `quick` keeps the sizes small.
pub fn run(out: &mut dyn Write, quick: bool) -> Result<()> {
    let w = |e: std::io::Error| crate::Error::Unsupported(format!("cannot write the report: {e}"));
    let seed = 1;
    writeln!(
        out,
        "# Bhatele & Kale, Fig. 5 and 6: average hops per byte (lower is better)\n\n\
         Graphs: unstructured:P:2d|3d (seed 1). Mappers: {}. `best` = lowest; `pairs s` = PAIRS wall time.",
        MAPPERS.join(", ")
    )
    .map_err(w)?;

    // Fig. 5 left: 2D meshes.
    let sizes2d: &[(usize, &str)] = if quick {
        &[(256, "16x16"), (1024, "32x32")]
    } else {
        &[
            (256, "16x16"),
            (1024, "32x32"),
            (4096, "64x64"),
            (16384, "128x128"),
        ]
    };
    let mut rows = Vec::new();
    for &(p, shape) in sizes2d {
        let g = unstructured(p, 2)?;
        rows.push(row(
            &format!("P={p}"),
            &g,
            Topology::parse(&format!("mesh:{shape}"))?,
            seed,
        ));
    }
    print_table(out, "Fig. 5 (left): 2D meshes", &rows)?;

    // Fig. 5 right: aspect ratios.
    let p = if quick { 256 } else { 1024 };
    let g = unstructured(p, 2)?;
    let shapes: Vec<String> = if quick {
        vec!["128x2".into(), "64x4".into(), "32x8".into(), "16x16".into()]
    } else {
        vec![
            "512x2".into(),
            "256x4".into(),
            "128x8".into(),
            "64x16".into(),
            "32x32".into(),
        ]
    };
    let rows: Vec<Row> = shapes
        .iter()
        .map(|s| Topology::parse(&format!("mesh:{s}")).map(|t| row(&format!("P={p}"), &g, t, seed)))
        .collect::<Result<_>>()?;
    print_table(
        out,
        &format!("Fig. 5 (right): {p} processes, meshes of different aspect ratios"),
        &rows,
    )?;

    // Fig. 6: 3D tori, 1 and 4 cores per node.
    let sizes3d: &[usize] = if quick {
        &[256, 512]
    } else {
        &[256, 512, 1024, 2048, 4096, 8192, 16384]
    };
    let mut one = Vec::new();
    let mut four = Vec::new();
    for &p in sizes3d {
        let g = unstructured(p, 3)?;
        if let Some(s) = torus_shape(p) {
            one.push(row(
                &format!("P={p}"),
                &g,
                Topology::parse(&format!("torus:{s}"))?,
                seed,
            ));
        }
        if let Some(s) = torus_shape(p / 4) {
            four.push(row(
                &format!("P={p}"),
                &g,
                Topology::parse(&format!("torus:{s}:cores=4"))?,
                seed,
            ));
        }
    }
    print_table(out, "Fig. 6 (left): 3D tori, 1 core per node", &one)?;
    print_table(out, "Fig. 6 (right): 3D tori, 4 cores per node", &four)?;
    writeln!(out).map_err(w)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphBuilder;

    #[test]
    fn row_on_a_stencil_ranks_heuristics_sensibly() {
        // 8x8 stencil with coordinates on an 8x8 mesh: default is optimal (1 hop/byte).
        let mut b = GraphBuilder::new(64, false);
        for y in 0..8 {
            for x in 0..8 {
                let i = x + 8 * y;
                if x < 7 {
                    b.add(i, i + 1, 2.0);
                }
                if y < 7 {
                    b.add(i, i + 8, 2.0);
                }
            }
        }
        let xyz = (0..64)
            .map(|i| [(i % 8) as f64, (i / 8) as f64, 0.0])
            .collect();
        let g = b
            .build()
            .unwrap()
            .with_coords(Some(crate::Coords::new(2, xyz)))
            .unwrap();
        let r = row("s", &Arc::new(g), Topology::parse("mesh:8x8").unwrap(), 3);
        let v: Vec<f64> = r.hops_per_byte.iter().map(|x| x.unwrap()).collect();
        assert_eq!(v[0], 1.0); // default
        assert_eq!(v[4], 1.0); // affn reproduces the grid exactly
        assert!(v[1] > 2.0, "random {}", v[1]);
        assert!(v[7] <= v[3], "pairs {} > mht {}", v[7], v[3]);
        assert!(v[8] <= v[4], "pairs/affn {} > affn {}", v[8], v[4]);
    }

    #[test]
    fn quick_run_prints_every_table() {
        let mut buf = Vec::new();
        run(&mut buf, true).unwrap();
        let s = String::from_utf8(buf).unwrap();
        for t in [
            "Fig. 5 (left)",
            "Fig. 5 (right)",
            "Fig. 6 (left)",
            "Fig. 6 (right)",
            "coce+mht",
            "torus:8x8x8",
        ] {
            assert!(s.contains(t), "missing {t}:\n{s}");
        }
        assert!(!s.contains('—'), "a mapper failed:\n{s}");
    }
}
