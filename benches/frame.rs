//! One full GUI frame, headless: egui `Context::run_ui` of the whole app
//! (graph view + network view side by side, link heatmap on, 3D network)
//! followed by tessellation, for 16,384 processes (a 16×32×32 stencil,
//! randomly mapped so that every link carries traffic) on a 16×32×32 torus.
//! Target ≤ 16 ms per frame. Unchanged views reuse their meshes, so the
//! `orbiting_camera` variant (network meshes rebuilt every frame) is the
//! honest worst case while the user rotates the view.

use criterion::{Criterion, criterion_group, criterion_main};
use hopmap::Topology;
use hopmap::app::settings::Settings;
use hopmap::app::{HopmapApp, Tab};
use hopmap::generate::{GenOptions, generate};
use hopmap::mappers::{self, MapperInput};
use hopmap::metrics::evaluate;

fn input() -> egui::RawInput {
    egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(1600.0, 1000.0),
        )),
        ..Default::default()
    }
}

fn bench(c: &mut Criterion) {
    let g = generate("stencil:16x32x32", &GenOptions::default()).unwrap();
    assert_eq!(g.n(), 16_384);
    let mut app = HopmapApp::new(Settings::default());
    app.model
        .set_topology(Topology::parse("torus:16x32x32").unwrap());
    app.model.set_graph(g, "stencil:16x32x32");
    let info = mappers::find("random").unwrap();
    let inp = MapperInput::new(app.model.graph.clone(), app.model.topo.clone(), 1);
    let m = mappers::run(&info, &inp).unwrap();
    let e = evaluate(&app.model.graph, &app.model.topo, &m, &app.model.routing);
    app.model.apply_mapping("random", m, e);
    app.tab = Tab::Split;
    app.network_view.mode = hopmap::app::network_view::ViewMode::ThreeD;
    app.network_view.by_flows = false;

    let ctx = egui::Context::default();
    // Warm up: fonts, caches, the layout's construction; then freeze the layout.
    for _ in 0..3 {
        let out = ctx.run_ui(input(), |ui| app.ui_frame(ui));
        let _ = ctx.tessellate(out.shapes, out.pixels_per_point);
        app.graph_view.playing = false;
    }
    let mut group = c.benchmark_group("frame");
    group.sample_size(30);
    group.bench_function("full_frame_16k_torus16x32x32_heatmap", |b| {
        b.iter(|| {
            let out = ctx.run_ui(input(), |ui| app.ui_frame(ui));
            let prims = ctx.tessellate(out.shapes, out.pixels_per_point);
            assert!(!prims.is_empty());
            prims.len()
        })
    });
    eprintln!(
        "mesh rebuilds so far: graph {}, network {}",
        app.graph_view.rebuilds, app.network_view.rebuilds
    );
    // The same frame while the 3D camera turns: the network meshes are rebuilt.
    group.bench_function("full_frame_16k_orbiting_camera", |b| {
        b.iter(|| {
            app.network_view.orbit(0.01);
            let out = ctx.run_ui(input(), |ui| app.ui_frame(ui));
            ctx.tessellate(out.shapes, out.pixels_per_point).len()
        })
    });
    // Where the time goes: each view alone.
    for (name, tab) in [
        ("graph_view_only", Tab::Graph),
        ("network_view_only", Tab::Network),
        ("matrix_view_only", Tab::Matrix),
    ] {
        app.tab = tab;
        for _ in 0..2 {
            let out = ctx.run_ui(input(), |ui| app.ui_frame(ui));
            let _ = ctx.tessellate(out.shapes, out.pixels_per_point);
        }
        group.bench_function(name, |b| {
            b.iter(|| {
                let out = ctx.run_ui(input(), |ui| app.ui_frame(ui));
                ctx.tessellate(out.shapes, out.pixels_per_point).len()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
