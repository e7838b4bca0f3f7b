//! Criterion benches of the gravitational layout: one iteration
//! (single level, Barnes–Hut) on 16,384- and 65,536-process grids, and the
//! whole multilevel layout of the 16,384 grid.

use criterion::{Criterion, criterion_group, criterion_main};
use hopmap_core::generate::{GenOptions, generate};
use hopmap_core::layout::{Layout, LayoutParams, MultilevelMode, RepulsionMode};
use hopmap_core::step::Stepper;
use std::time::Duration;

fn iteration(c: &mut Criterion) {
    let mut group = c.benchmark_group("layout_iteration");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(8));
    for s in [128usize, 256] {
        let g = generate(&format!("stencil:{s}x{s}"), &GenOptions::default()).unwrap();
        let p = LayoutParams {
            multilevel: MultilevelMode::Off,
            repulsion: RepulsionMode::BarnesHut,
            until_stable: false,
            max_iterations: usize::MAX,
            ..Default::default()
        };
        let mut l = Layout::new(&g, p).unwrap();
        for _ in 0..3 {
            l.step();
        }
        group.bench_function(format!("grid_{}", s * s), |b| b.iter(|| l.step()));
    }
    group.finish();
}

fn multilevel(c: &mut Criterion) {
    let mut group = c.benchmark_group("layout_multilevel");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    let g = generate("stencil:128x128", &GenOptions::default()).unwrap();
    group.bench_function("grid_16384", |b| {
        b.iter(|| {
            let mut l = Layout::new(&g, LayoutParams::default()).unwrap();
            l.run_to_end();
            l.iterations()
        })
    });
    group.finish();
}

criterion_group!(benches, iteration, multilevel);
criterion_main!(benches);
