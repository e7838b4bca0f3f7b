//! Speed of the analytical mapper (Wu et al.) at 8,192 processes: an
//! `unstructured:8192:3d` graph (no coordinates used) on `torus:8x8x32`
//! with 4 cores per node — the paper's largest Blue Gene/P case (Table 2).
//!
//! Target: the whole mapper ≤ 0.25 s (release). The paper took 0.58–1.27 s
//! with CHOLMOD on a Xeon X5650 (Table 6). Run:
//! `cargo bench --bench analytical`. Also timed: both multicore modes and
//! both solvers, and `analytical+pairs`. (The default is `multicore=bins`,
//! `solver=pcg`.)

use criterion::{Criterion, criterion_group, criterion_main};
use hopmap_core::generate::{GenOptions, generate};
use hopmap_core::mappers::{self, MapperInput};
use hopmap_core::topology::Topology;
use std::hint::black_box;
use std::sync::Arc;

fn input(params: &[(&str, &str)]) -> MapperInput {
    let opts = GenOptions {
        seed: 1,
        ..GenOptions::default()
    };
    let g = generate("unstructured:8192:3d", &opts).expect("generator");
    let g = g.with_coords(None).expect("drop coordinates");
    let topo = Topology::parse("torus:8x8x32:cores=4").expect("topology");
    let mut i = MapperInput::new(Arc::new(g), Arc::new(topo), 1);
    for (k, v) in params {
        i.params.push((k.to_string(), v.to_string()));
    }
    i
}

/// A case: its name, the mapper id and its parameters.
type Case<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)]);

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("analytical_8192_on_8x8x32x4");
    group.sample_size(10);
    let cases: &[Case] = &[
        ("default", "analytical", &[]),
        ("bins_cholesky", "analytical", &[("solver", "cholesky")]),
        ("group_pcg", "analytical", &[("multicore", "group")]),
        (
            "group_cholesky",
            "analytical",
            &[("multicore", "group"), ("solver", "cholesky")],
        ),
        ("analytical+pairs", "analytical+pairs", &[]),
    ];
    for (name, id, params) in cases {
        let info = mappers::find(id).expect("registered");
        let inp = input(params);
        group.bench_function(*name, |b| {
            b.iter(|| {
                let mut r = hopmap_core::mappers::prepare(&info, &inp).expect("start");
                r.run_to_end();
                black_box(r.result())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
