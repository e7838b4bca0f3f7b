//! Reading a 10⁶-edge MatrixMarket file (target ≥ 50 MB/s): random pairs over
//! 5·10⁵ processes with real weights, written to a temporary file; measured
//! through `read_graph` (file → CommGraph, including the CSR build) and
//! `parse_graph` (bytes in memory → CommGraph). Throughput is in file bytes.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use hopmap::io::{self, Format, ReadOptions};
use hopmap::rng::Rng;
use std::io::Write;
use std::path::Path;

const EDGES: usize = 1_000_000;
const PROCESSES: usize = 500_000;

fn make_file(path: &Path, symmetric: bool) -> u64 {
    let mut r = Rng::new(42);
    let mut out = Vec::with_capacity(EDGES * 28);
    writeln!(
        out,
        "%%MatrixMarket matrix coordinate real {}",
        if symmetric { "symmetric" } else { "general" }
    )
    .unwrap();
    writeln!(out, "% hopmap benchmark: random pairs").unwrap();
    writeln!(out, "{PROCESSES} {PROCESSES} {EDGES}").unwrap();
    for _ in 0..EDGES {
        let u = 1 + r.below(PROCESSES);
        let v = 1 + r.below(PROCESSES);
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
        assert_eq!(g.build_stats().input_edges, EDGES);
        assert_eq!(io::detect_format(&path, b""), Some(Format::Mtx));
        group.throughput(Throughput::Bytes(len));
        group.bench_function(format!("read_graph_1e6_{kind}"), |b| {
            b.iter(|| io::read_graph(&path, &opts).unwrap())
        });
        let bytes = std::fs::read(&path).unwrap();
        group.bench_function(format!("parse_graph_1e6_{kind}"), |b| {
            b.iter(|| io::parse_graph(&bytes, &path, &opts).unwrap())
        });
    }
    group.finish();
    std::fs::remove_dir_all(&dir).ok();
}

criterion_group!(benches, bench);
criterion_main!(benches);
