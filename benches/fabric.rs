//! Switch fabrics: building a fabric with its up*/down* tables (levels,
//! link directions, the legal-distance and down-distance tables, the plain
//! shortest-path table) for `fattree:48:3` (2,880 switches, 27,648 hosts)
//! and a 2,000-switch irregular Moh fabric; and routing every ordered pair
//! of host switches deterministically (`unused_links`). Target ≤ 1 s each.
//! Also BM (Moh et al. §4.2) mapping a 64×64 stencil (4,096 processes) onto
//! the 2,000-switch fabric, through the one pipeline. Target ≤ 1 s.

use criterion::{Criterion, criterion_group, criterion_main};
use hopmap_core::Topology;
use hopmap_core::generate::{GenOptions, generate};
use hopmap_core::mappers::{self, MapperInput};
use hopmap_core::routing::fabric_route::{self, Mode};
use std::sync::Arc;

const IRREGULAR: &str = "fabric:2000,8000,12,0.75,1";

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("fabric");
    group.sample_size(10);
    group.bench_function("tables_fattree_48_3", |b| {
        b.iter(|| Topology::parse("fattree:48:3").unwrap())
    });
    group.bench_function("tables_irregular_2000", |b| {
        b.iter(|| Topology::parse(IRREGULAR).unwrap())
    });
    let t = Topology::parse(IRREGULAR).unwrap();
    let f = t.as_fabric().unwrap();
    group.bench_function("all_routes_irregular_2000", |b| {
        b.iter(|| fabric_route::unused_links(f, Mode::UpDown(f.updown()), false))
    });
    let t = Topology::parse("fattree:48:3").unwrap();
    let f = t.as_fabric().unwrap();
    group.bench_function("all_routes_fattree_48_3", |b| {
        b.iter(|| fabric_route::unused_links(f, Mode::UpDown(f.updown()), false))
    });
    let topo = Arc::new(Topology::parse(IRREGULAR).unwrap());
    let g = Arc::new(generate("stencil:64x64", &GenOptions::default()).unwrap());
    let bm = mappers::find("bm").unwrap();
    let input = MapperInput::new(g, topo, 1);
    group.bench_function("bm_4096_on_irregular_2000", |b| {
        b.iter(|| mappers::run(&bm, &input).unwrap())
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
