//! One full GUI frame, headless: egui `Context::run_ui` of the whole app
//! (graph view + network view side by side, link heatmap on, 3D network)
//! followed by tessellation, for 16,384 processes (a 16×32×32 stencil,
//! randomly mapped so that every link carries traffic) on a 16×32×32 torus.
//! Target ≤ 16 ms per frame. Unchanged views reuse their meshes, so the
//! `orbiting_camera` variant (network meshes rebuilt every frame) is the
//! honest worst case while the user rotates the view.

use criterion::{Criterion, criterion_group, criterion_main};
use hopmap_app::settings::Settings;
use hopmap_app::{HopmapApp, Run, RunRecord, Tab};
use hopmap_core::Topology;
use hopmap_core::generate::{GenOptions, generate};
use hopmap_core::mappers::{self, MapperInput};
use hopmap_core::metrics::evaluate;
use hopmap_core::step::Stop;

/// Whether the part `name` (`steady`, `mapping`, `race`, `analytical`,
/// `fabric`, `layout`) runs: all by default, or those listed in `HOPMAP_FRAME_PARTS`.
fn part(name: &str) -> bool {
    std::env::var("HOPMAP_FRAME_PARTS").map_or(true, |p| p.split(',').any(|x| x == name))
}

/// CPU time this thread has run, in ns (`CLOCK_THREAD_CPUTIME_ID`): on a
/// loaded machine the wall time of a frame includes waiting for a core,
/// its CPU time is the work the frame does.
fn thread_cpu_ns() -> Option<u64> {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec for the call to fill.
    let r = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    (r == 0).then(|| t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64)
}

fn input() -> egui::RawInput {
    egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(1600.0, 1000.0),
        )),
        ..Default::default()
    }
}

/// The app on the split view (3D network, link heatmap by bytes) with
/// 16,384 processes (`stencil:16x32x32`) randomly mapped on `torus:16x32x32`.
fn split_16k_random() -> HopmapApp {
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
    app.network_view.mode = hopmap_app::network_view::ViewMode::ThreeD;
    app.network_view.by_flows = false;
    app
}

fn bench(c: &mut Criterion) {
    if !part("steady") {
        return;
    }
    let mut app = split_16k_random();

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

/// The mappers timed at 16,384 processes: for each, the frame that takes in
/// the finished mapping and every frame drawn while it runs.
const FRAME_MAPPERS: &str = "default,perm,xyzt,tzxy,coce,coce+mht,\
                             cdl,gravity,gravity-greedy,analytical,recursive,recursive+refine";

/// Whether the app's run is still going (the one place the bench asks).
fn running(app: &HopmapApp) -> bool {
    app.model.run.is_live()
}

/// Mappers mapping 16,384 processes (`stencil:16x32x32` on
/// `torus:16x32x32`, split view, 3D network, link heatmap) while the
/// window draws: each frame (the whole app, tessellated) is timed on this
/// thread while the mapper steps on its worker. Per mapper, over
/// `HOPMAP_FRAME_REPEATS` runs (3; one when a run takes over 10 s): the frames drawn during the runs, their
/// median and worst, and the frame that takes in the finished mapping (the
/// one in which the run ends: the new colours, link statistics and meshes),
/// its median and worst over the runs. The UI thread runs no algorithm
/// work, so every frame should stay within a frame budget (16 ms median,
/// 33 ms worst). Not a criterion measurement: each frame is one sample.
/// `HOPMAP_FRAME_MAPPERS=mht,pairs` changes the list ([`FRAME_MAPPERS`]),
/// `all` takes every registry mapper.
fn frames_while_mapping(_c: &mut Criterion) {
    if !part("mapping") {
        return;
    }
    let g = generate("stencil:16x32x32", &GenOptions::default()).unwrap();
    let mut app = HopmapApp::new(Settings::default());
    app.model
        .set_topology(Topology::parse("torus:16x32x32").unwrap());
    app.model.set_graph(g, "stencil:16x32x32");
    app.tab = Tab::Split;
    app.network_view.mode = hopmap_app::network_view::ViewMode::ThreeD;
    let ctx = egui::Context::default();
    // (wall ms, this thread's CPU ms) of one frame.
    let frame = |app: &mut HopmapApp| {
        let (f0, c0) = (std::time::Instant::now(), thread_cpu_ns());
        let out = ctx.run_ui(input(), |ui| app.ui_frame(ui));
        let _ = ctx.tessellate(out.shapes, out.pixels_per_point);
        let cpu = thread_cpu_ns()
            .zip(c0)
            .map_or(f64::NAN, |(b, a)| (b - a) as f64 * 1e-6);
        (f0.elapsed().as_secs_f64() * 1e3, cpu)
    };
    for _ in 0..3 {
        frame(&mut app);
    }
    app.graph_view.playing = false;
    let list = std::env::var("HOPMAP_FRAME_MAPPERS").unwrap_or_else(|_| FRAME_MAPPERS.into());
    let repeats: usize = std::env::var("HOPMAP_FRAME_REPEATS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    let ids: Vec<&str> = if list == "all" {
        mappers::registry().iter().map(|i| i.id).collect()
    } else {
        list.split(',').collect()
    };
    eprintln!(
        "frames while mapping 16,384 processes on torus:16x32x32 (split view, 3D network), \
         {repeats} runs each"
    );
    eprintln!(
        "ms per frame, wall (UI thread CPU): run frames median, worst; take-in frame median, worst"
    );
    eprintln!(
        "{:<17} {:>6} {:>15} {:>15} {:>15} {:>15} {:>8}",
        "mapper",
        "frames",
        "run median",
        "run worst",
        "take-in median",
        "take-in worst",
        "mapper s"
    );
    let mut worst: f64 = 0.0;
    for id in ids {
        let mut times = Vec::new();
        let mut take_in = Vec::new();
        let mut secs = 0.0;
        let mut runs = 0;
        for r in 0..repeats {
            // Long runs once: their own frames are samples enough.
            if r > 0 && secs > 10.0 {
                break;
            }
            runs += 1;
            // Start from a finished mapping, as a user does.
            app.model.start_map("default", 1, "");
            while running(&app) {
                frame(&mut app);
            }
            frame(&mut app);
            app.model.start_map(id, 1, "");
            if !running(&app) {
                eprintln!(
                    "{id:<17} skipped: {}",
                    app.model.error.take().unwrap_or_default()
                );
                break;
            }
            let t0 = std::time::Instant::now();
            while running(&app) && t0.elapsed().as_secs() < 60 {
                let ms = frame(&mut app);
                if running(&app) {
                    times.push(ms);
                } else {
                    take_in.push(ms);
                }
            }
            secs += t0.elapsed().as_secs_f64();
            if running(&app) {
                app.model.cancel_run();
            }
        }
        if take_in.is_empty() && times.is_empty() {
            continue;
        }
        // Median and worst of wall and CPU times, as "wall (cpu)".
        let stats = |v: &[(f64, f64)]| {
            let q = |k: usize| {
                let mut x: Vec<f64> = v.iter().map(|t| if k == 0 { t.0 } else { t.1 }).collect();
                x.sort_by(f64::total_cmp);
                (
                    x.get(x.len() / 2).copied().unwrap_or(0.0),
                    x.last().copied().unwrap_or(0.0),
                )
            };
            let ((wm, wx), (cm, cx)) = (q(0), q(1));
            (
                format!("{wm:.1} ({cm:.1})"),
                format!("{wx:.1} ({cx:.1})"),
                wx,
            )
        };
        let (med, max, wmax) = stats(&times);
        let (tmed, tmax, twmax) = stats(&take_in);
        worst = worst.max(wmax).max(twmax);
        eprintln!(
            "{id:<17} {:>6} {med:>15} {max:>15} {tmed:>15} {tmax:>15} {:>8.2}",
            times.len(),
            secs / runs.max(1) as f64
        );
    }
    eprintln!("worst frame over all mappers: {worst:.2} ms");
}

/// The fabric view of `fattree:48:3` (27,648 hosts, 2,880 switches,
/// 55,296 inter-switch links) with a 24×32×36 stencil mapped by SM, the
/// link heatmap on: the whole app frame (network view alone, then split with
/// the graph view) while the picture stands still (cached meshes) and while
/// the view pans (meshes translated, rebuilt past a screen width) and
/// zooms every frame (meshes rebuilt: the honest worst case). The
/// fabric's layout is computed on its worker first; the graph view's
/// layout stands still. Prints the median and the worst of 200 timed
/// frames per case besides criterion's estimate.
fn fabric_frames(c: &mut Criterion) {
    if !part("fabric") {
        return;
    }
    let g = generate("stencil:24x32x36", &GenOptions::default()).unwrap();
    assert_eq!(g.n(), 27_648);
    let mut app = HopmapApp::new(Settings::default());
    app.model
        .set_topology(Topology::parse("fattree:48:3").unwrap());
    app.model.set_graph(g, "stencil:24x32x36");
    let id = if mappers::find("bm").is_some() {
        "bm"
    } else {
        "sm"
    };
    let info = mappers::find(id).unwrap();
    let inp = MapperInput::new(app.model.graph.clone(), app.model.topo.clone(), 1);
    let m = mappers::run(&info, &inp).unwrap();
    let e = evaluate(&app.model.graph, &app.model.topo, &m, &app.model.routing);
    app.model.apply_mapping(id, m, e);
    app.tab = Tab::Network;
    let ctx = egui::Context::default();
    let t0 = std::time::Instant::now();
    loop {
        let out = ctx.run_ui(input(), |ui| app.ui_frame(ui));
        let _ = ctx.tessellate(out.shapes, out.pixels_per_point);
        app.graph_view.playing = false;
        if app.network_view.fab.prep.is_some() || t0.elapsed().as_secs() > 120 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    eprintln!(
        "fattree:48:3 layout + unused links ready after {:.2} s (worker)",
        t0.elapsed().as_secs_f64()
    );
    let mut group = c.benchmark_group("frame");
    group.sample_size(30);
    for (name, tab) in [
        ("fabric_48_3_network", Tab::Network),
        ("fabric_48_3_split", Tab::Split),
    ] {
        app.tab = tab;
        // 0: still; 1: panning (drag; meshes translated, rebuilt every
        // ~300 points); 2: zooming (meshes rebuilt every frame).
        for mode in 0..3 {
            let mut step = 0.0f32;
            let mut frame = |app: &mut HopmapApp| {
                step += 1.0;
                if mode == 1 {
                    app.network_view.cam.zoom2d = 4.0;
                    app.network_view.cam.pan2d.x = -(step % 400.0) * 5.0;
                }
                if mode == 2 {
                    app.network_view.cam.zoom2d = 1.0 + (step % 7.0) * 0.01;
                }
                let out = ctx.run_ui(input(), |ui| app.ui_frame(ui));
                ctx.tessellate(out.shapes, out.pixels_per_point).len()
            };
            for _ in 0..3 {
                frame(&mut app);
                // The graph's layout stands still (its animation is its
                // own cost, on the UI thread, 8 ms a frame while it plays).
                app.graph_view.playing = false;
            }
            let label = format!("{name}{}", ["", "_panning", "_zooming"][mode]);
            timed_frames(&label, 200, || {
                frame(&mut app);
            });
            group.bench_function(&label, |b| b.iter(|| frame(&mut app)));
        }
    }
    group.finish();
}

/// Time `n` calls of `frame` (wall and this thread's CPU) and print the
/// median and the worst of each, in ms.
fn timed_frames(label: &str, n: usize, mut frame: impl FnMut()) {
    let (mut times, mut cpu) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let (f0, c0) = (std::time::Instant::now(), thread_cpu_ns());
        frame();
        times.push(f0.elapsed().as_secs_f64() * 1e3);
        cpu.push(
            thread_cpu_ns()
                .zip(c0)
                .map_or(f64::NAN, |(b, a)| (b - a) as f64 * 1e-6),
        );
    }
    times.sort_by(f64::total_cmp);
    cpu.sort_by(f64::total_cmp);
    eprintln!(
        "{label}: median {:.2} ms, worst {:.2} ms over {n} frames (UI thread CPU: median \
         {:.2} ms, worst {:.2} ms)",
        times[n / 2],
        times[n - 1],
        cpu[n / 2],
        cpu[n - 1],
    );
}

/// The split view (graph + 3D network, heatmap) at 16,384 processes
/// (`stencil:16x32x32` randomly mapped on `torus:16x32x32`) while the graph
/// view's gravitational layout plays: 150 frames timed one after another
/// from the layout's start (its worker, where it has one, steps meanwhile).
fn layout_playing(_c: &mut Criterion) {
    if !part("layout") {
        return;
    }
    let mut app = split_16k_random();
    let ctx = egui::Context::default();
    let mut frame = || {
        let out = ctx.run_ui(input(), |ui| app.ui_frame(ui));
        ctx.tessellate(out.shapes, out.pixels_per_point).len();
    };
    frame();
    timed_frames("split_16k_layout_playing", 150, frame);
}

/// Race mode with four mappers at 4,096 processes (a 16×16×16 stencil on a
/// 16×16×16 torus), the Compare view's Race tab on screen: every frame (the
/// whole app, tessellated) is timed on this thread while the four workers
/// step in lockstep ticks, for each pace (16 steps per tick, then a 4 ms
/// budget per tick), at most 20 s each. The UI thread only copies each
/// worker's newest snapshot and redraws the four views. Prints frames,
/// median, 95th percentile and maximum frame times, ticks and each lane's
/// steps. `HOPMAP_RACE_MAPPERS=a,b,c,d` changes the four.
fn frames_while_racing(_c: &mut Criterion) {
    if !part("race") {
        return;
    }
    let g = generate("stencil:16x16x16", &GenOptions::default()).unwrap();
    let mut app = HopmapApp::new(Settings::default());
    app.model
        .set_topology(Topology::parse("torus:16x16x16").unwrap());
    app.model.set_graph(g, "stencil:16x16x16");
    app.tab = Tab::Compare;
    app.compare.sub = hopmap_app::compare_panel::CompareSub::Race;
    app.graph_view.playing = false;
    let ids: Vec<String> = std::env::var("HOPMAP_RACE_MAPPERS")
        .unwrap_or_else(|_| "mht,pairs,gravity,recursive".into())
        .split(',')
        .map(str::to_string)
        .collect();
    let ctx = egui::Context::default();
    eprintln!("race of {ids:?} at 4,096 processes on torus:16x16x16 (Compare > Race, 1600x1000)");
    eprintln!(
        "{:<18} {:>7} {:>10} {:>10} {:>10} {:>7}  steps per lane",
        "pace", "frames", "median ms", "p95 ms", "max ms", "ticks"
    );
    for steps_pace in [true, false] {
        {
            let r = &mut app.compare.race;
            r.pace_steps = steps_pace;
            r.steps_per_tick = 16;
            r.budget_ms = 4.0;
        }
        app.compare.race.start(&app.model, &ids, 1, "");
        assert_eq!(
            app.compare.race.lanes.len(),
            ids.len(),
            "{:?}",
            app.compare.race.error
        );
        let t0 = std::time::Instant::now();
        let mut times = Vec::new();
        while app.compare.race.running && t0.elapsed().as_secs() < 20 {
            let f0 = std::time::Instant::now();
            let out = ctx.run_ui(input(), |ui| app.ui_frame(ui));
            let _ = ctx.tessellate(out.shapes, out.pixels_per_point);
            times.push(f0.elapsed().as_secs_f64() * 1e3);
        }
        let raw = times.clone();
        times.sort_by(f64::total_cmp);
        let at = |q: f64| {
            times
                .get(((times.len() as f64 - 1.0) * q) as usize)
                .copied()
                .unwrap_or(0.0)
        };
        let steps: Vec<String> = app
            .compare
            .race
            .lanes
            .iter()
            .map(|l| {
                format!(
                    "{} {}{}",
                    l.id,
                    l.steps,
                    if l.done { " (done)" } else { "" }
                )
            })
            .collect();
        eprintln!(
            "{:<18} {:>7} {:>10.2} {:>10.2} {:>10.2} {:>7}  {}",
            if steps_pace {
                "16 steps/tick"
            } else {
                "4 ms/tick"
            },
            times.len(),
            at(0.5),
            at(0.95),
            times.last().copied().unwrap_or(0.0),
            app.compare.race.ticks,
            steps.join(", ")
        );
        // Where the worst frames were (frame index, ms).
        let mut worst: Vec<(usize, f64)> = raw.iter().copied().enumerate().collect();
        worst.sort_by(|a, b| b.1.total_cmp(&a.1));
        worst.truncate(3);
        eprintln!("{:<18} worst frames (index, ms): {worst:.1?}", "");
        // The four views redrawn every frame without workers competing for
        // the cores: the camera turns, every view rebuilds its meshes.
        let mut orbit = Vec::new();
        for _ in 0..60 {
            app.compare.race.sync.cam.yaw += 0.01;
            app.compare.race.sync.cam.zoom2d *= 1.001;
            let f0 = std::time::Instant::now();
            let out = ctx.run_ui(input(), |ui| app.ui_frame(ui));
            let _ = ctx.tessellate(out.shapes, out.pixels_per_point);
            orbit.push(f0.elapsed().as_secs_f64() * 1e3);
        }
        orbit.sort_by(f64::total_cmp);
        eprintln!(
            "{:<18} camera moving, 4 views rebuilt per frame, workers idle: median {:.2} ms, max {:.2} ms",
            "",
            orbit[orbit.len() / 2],
            orbit.last().copied().unwrap_or(0.0)
        );
        app.compare.race.stop();
    }
}

/// The Analytical view at 8,192 processes (`unstructured:8192:3d` on
/// `torus:8x8x32:cores=4`, the target case), all slices folded so
/// that every item, its shift and (decimated) force arrows are drawn: the
/// whole app's frame with the view's mesh cached (`cached`), and with a new
/// snapshot every frame, which rebuilds the mesh (`new_snapshot`: what a
/// frame costs while the run plays). Then the run plays on its worker at
/// full speed while frames are drawn and timed one by one (median, max).
fn analytical_view(c: &mut Criterion) {
    use hopmap_app::run_detail::{RunDetail, detail_of};
    if !part("analytical") {
        return;
    }
    use std::sync::Arc;
    let g = generate("unstructured:8192:3d", &GenOptions::default()).unwrap();
    let mut app = HopmapApp::new(Settings::default());
    app.model
        .set_topology(Topology::parse("torus:8x8x32:cores=4").unwrap());
    app.model.set_graph(g, "unstructured:8192:3d");
    let info = mappers::find("analytical").unwrap();
    let inp = MapperInput::new(app.model.graph.clone(), app.model.topo.clone(), 1);
    let mut run = mappers::prepare(&info, &inp).unwrap();
    for _ in 0..10 {
        run.step();
    }
    let detail = detail_of(run.inspect(), &app.model.topo).unwrap();
    let a = detail.analytical().unwrap().clone();
    assert!(a.global_iterations >= 8 && a.items == 8192);
    app.mapper.select("analytical");
    let mut record = RunRecord::new("analytical");
    record.detail = Some(detail);
    app.model.run = Run::Finished {
        record,
        stop: Stop::Complete,
    };
    app.tab = Tab::Analytical;
    app.analytical_view.all_slices = true;
    let ctx = egui::Context::default();
    for _ in 0..3 {
        let out = ctx.run_ui(input(), |ui| app.ui_frame(ui));
        let _ = ctx.tessellate(out.shapes, out.pixels_per_point);
    }
    let mut group = c.benchmark_group("frame");
    group.sample_size(30);
    group.bench_function("analytical_view_8k_cached", |b| {
        b.iter(|| {
            let out = ctx.run_ui(input(), |ui| app.ui_frame(ui));
            ctx.tessellate(out.shapes, out.pixels_per_point).len()
        })
    });
    let r0 = app.analytical_view.rebuilds;
    group.bench_function("analytical_view_8k_new_snapshot", |b| {
        b.iter_batched(
            || Some(RunDetail::Analytical(Arc::new(a.clone()))),
            |d| {
                if let Some(r) = app.model.run.record_mut() {
                    r.detail = d;
                }
                let out = ctx.run_ui(input(), |ui| app.ui_frame(ui));
                ctx.tessellate(out.shapes, out.pixels_per_point).len()
            },
            criterion::BatchSize::SmallInput,
        )
    });
    group.finish();
    eprintln!(
        "analytical view mesh rebuilds in new_snapshot: {}",
        app.analytical_view.rebuilds - r0
    );
    // Playing on the worker, as fast as it goes, while frames are drawn.
    app.model.clear_mapping();
    app.model.speed = 2000.0;
    app.model.play("analytical", 1, "", true);
    let t0 = std::time::Instant::now();
    let mut times = Vec::new();
    while app.model.run.is_live() && t0.elapsed().as_secs() < 60 {
        let f0 = std::time::Instant::now();
        let out = ctx.run_ui(input(), |ui| app.ui_frame(ui));
        let _ = ctx.tessellate(out.shapes, out.pixels_per_point);
        times.push(f0.elapsed().as_secs_f64() * 1e3);
    }
    let slowest = times
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map_or(0, |(i, _)| i);
    let n = times.len();
    times.sort_by(f64::total_cmp);
    let q = |f: f64| {
        times
            .get(((n as f64 * f) as usize).min(n.saturating_sub(1)))
            .copied()
            .unwrap_or(0.0)
    };
    eprintln!(
        "analytical view while playing 8,192 processes: {n} frames in {:.2} s; ms: median {:.2}, \
         p90 {:.2}, p99 {:.2}, max {:.2} (frame #{slowest}); over 33.3 ms: {}; {} mesh rebuilds",
        t0.elapsed().as_secs_f64(),
        q(0.5),
        q(0.9),
        q(0.99),
        times.last().copied().unwrap_or(0.0),
        times.iter().filter(|&&t| t > 33.3).count(),
        app.analytical_view.rebuilds
    );
}

criterion_group!(
    benches,
    bench,
    frames_while_mapping,
    frames_while_racing,
    analytical_view,
    fabric_frames,
    layout_playing
);
criterion_main!(benches);
