//! `eval` with `dor` link loads: 10⁶ random edges (the worst case for hops:
//! average ≈ 24 hops) on a 32×32×32 torus. Target ≤ 1 s.

use criterion::{Criterion, criterion_group, criterion_main};
use hopmap_core::rng::Rng;
use hopmap_core::{GraphBuilder, Mapping, Routing, Topology, evaluate};

fn bench(c: &mut Criterion) {
    let t = Topology::parse("torus:32x32x32").unwrap();
    let n = t.num_slots();
    let mut r = Rng::new(7);
    let mut b = GraphBuilder::with_capacity(n, false, 1_000_000);
    for _ in 0..1_000_000 {
        let u = r.below(n);
        let v = r.below(n);
        b.add(u, v, (1 + r.below(4096)) as f64);
    }
    let g = b.build().unwrap();
    assert!(g.num_edges() > 990_000);
    let m = Mapping::from_slots(&(0..n).collect::<Vec<_>>(), &t);
    let mut group = c.benchmark_group("eval");
    group.sample_size(10);
    group.bench_function("dor_1e6_edges_torus32x32x32", |bch| {
        bch.iter(|| evaluate(&g, &t, &m, &Routing::Dor))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
