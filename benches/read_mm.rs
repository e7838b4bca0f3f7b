//! Reading a 10⁶-edge MatrixMarket file (target ≥ 50 MB/s): random pairs over
//! 5·10⁵ processes with real weights, written to a temporary file; measured
//! through `read_graph` (file → CommGraph, including the CSR build) and
//! `parse_graph` (bytes in memory → CommGraph). Throughput is in file bytes.
//! `HOPMAP_BENCH_EDGES=10000000` scales it up (then over 10⁶ processes), to
//! check that 10⁷ edges fit.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use hopmap_core::io::{self, Format, ReadOptions};
use hopmap_core::rng::Rng;
use std::io::Write;
use std::path::Path;

fn sizes() -> (usize, usize) {
    let edges = std::env::var("HOPMAP_BENCH_EDGES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000usize);
    let processes = if edges >= 10_000_000 {
        1_000_000
    } else {
        500_000
    };
    (edges, processes)
}

fn make_file(path: &Path, symmetric: bool) -> u64 {
    let (edges, processes) = sizes();
    let mut r = Rng::new(42);
    let mut out = Vec::with_capacity(edges * 28);
    writeln!(
        out,
        "%%MatrixMarket matrix coordinate real {}",
        if symmetric { "symmetric" } else { "general" }
    )
    .unwrap();
    writeln!(out, "% hopmap benchmark: random pairs").unwrap();
    writeln!(out, "{processes} {processes} {edges}").unwrap();
    for _ in 0..edges {
        let u = 1 + r.below(processes);
        let v = 1 + r.below(processes);
        let w = r.range_f64(1.0, 65536.0);
        writeln!(out, "{u} {v} {w:.3}").unwrap();
    }
    std::fs::write(path, &out).unwrap();
    out.len() as u64
}

fn bench(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("hopmap-bench-read-mm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let opts = ReadOptions::default();
    let mut group = c.benchmark_group("read_mm");
    group.sample_size(10);
    for symmetric in [true, false] {
        let kind = if symmetric { "symmetric" } else { "general" };
        let path = dir.join(format!("random-{kind}.mtx"));
        let len = make_file(&path, symmetric);
        let g = io::read_graph(&path, &opts).unwrap();
        assert_eq!(g.build_stats().input_edges, sizes().0);
        assert_eq!(io::detect_format(&path, b""), Some(Format::Mtx));
        group.throughput(Throughput::Bytes(len));
        let tag = format!("{:.0e}", sizes().0 as f64);
        group.bench_function(format!("read_graph_{tag}_{kind}"), |b| {
            b.iter(|| io::read_graph(&path, &opts).unwrap())
        });
        let bytes = std::fs::read(&path).unwrap();
        group.bench_function(format!("parse_graph_{tag}_{kind}"), |b| {
            b.iter(|| io::parse_graph(&bytes, &path, &opts).unwrap())
        });
    }
    group.finish();
    std::fs::remove_dir_all(&dir).ok();
}

criterion_group!(benches, bench);
criterion_main!(benches);
