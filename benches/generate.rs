//! Generator speed: `unstructured:16384:3d` and `unstructured:16384` (2D),
//! mesh of ≈ 2·10⁶ cells, connected recursive coordinate bisection into
//! 16,384 parts. Target: well under a few seconds.

use criterion::{Criterion, criterion_group, criterion_main};
use hopmap_core::generate::{GenOptions, generate};

fn bench(c: &mut Criterion) {
    let opts = GenOptions::default();
    let mut group = c.benchmark_group("generate");
    group.sample_size(10);
    for spec in [
        "unstructured:16384:3d",
        "unstructured:16384",
        "stencil:256x256x16",
    ] {
        group.bench_function(spec, |b| {
            b.iter(|| generate(spec, &opts).expect("valid spec"))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
