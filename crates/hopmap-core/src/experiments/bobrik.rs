//! `hopmap reproduce bobrik`: the model problem of Bobrik & Popova §6.1 —
//! 20 processes, 0–9 communicating only among themselves and 10–19 likewise
//! (`clusters:2x10`), started on a circle with equal angles (Fig. 1, the
//! paper's slowest start) and laid out with the single-level method exactly
//! as in §4 (fixed step, exact repulsion, §5 stopping rule), plus the
//! displacement cap and a weak pull towards the centre, which §4.1 allows
//! "for visibility" and which keeps the two groups from drifting apart forever.
//!
//! It prints the iteration at which the clusters separate (the first
//! iteration from which on the cluster pass finds exactly the two true
//! groups), and the ratio of mean intra-cluster to mean inter-cluster
//! distance at the end; it writes PNG snapshots for the stages of Fig. 1–9
//! (points coloured by true group, edges in grey, each point's last move as
//! a green segment, as in the paper). The stages are found from the run's
//! own history; the figures in the paper are described in its text, so the
//! snapshots match the stages, not the pixels. O(iterations · n²), n = 20.

use crate::error::{Error, Result};
use crate::generate::{GenOptions, generate};
use crate::graph::CommGraph;
use crate::layout::clusters::{ClusterParams, clusters};
use crate::layout::quality::intra_inter_ratio;
use crate::layout::{Init, Layout, LayoutParams, RepulsionMode};
use crate::step::Stepper;
use std::path::{Path, PathBuf};

/// The layout parameters of the reproduction (also used by the tests).
pub fn params() -> LayoutParams {
    LayoutParams {
        init: Init::Given(interleaved_circle(20)),
        repulsion: RepulsionMode::Exact,
        h: 0.05,
        center_pull: 0.05,
        max_iterations: 5000,
        stop_eps: 1e-3,
        ..LayoutParams::paper()
    }
}

/// The circle start with equal angles (Fig. 1), the two groups alternating
/// around it: process `s < n/2` takes slot `2s`, process `s ≥ n/2` slot
/// `2(s − n/2) + 1`. The initial order then says nothing about the structure,
/// which the paper's text on Fig. 5 implies ("the initial order turns into a
/// configuration reflecting the structure"); with the groups on opposite
/// half-circles they would separate at once.
pub fn interleaved_circle(n: usize) -> Vec<[f64; 3]> {
    let r = crate::layout::init::start_radius(n) as f64;
    (0..n)
        .map(|s| {
            let slot = if s < n / 2 {
                2 * s
            } else {
                2 * (s - n / 2) + 1
            };
            let t = std::f64::consts::TAU * slot as f64 / n as f64;
            [r * t.cos(), r * t.sin(), 0.0]
        })
        .collect()
}

/// The 20-process two-cluster graph.
pub fn graph() -> Result<CommGraph> {
    generate("clusters:2x10", &GenOptions::default())
}

/// What the run found.
#[derive(Clone, Debug)]
pub struct BobrikReport {
    pub iterations: usize,
    /// First iteration from which the cluster pass finds the two true groups.
    pub separation: Option<usize>,
    /// Mean intra- over mean inter-cluster distance at the end.
    pub final_ratio: f64,
    /// Sizes of the clusters found at the end.
    pub cluster_sizes: Vec<usize>,
    /// (figure, stage, iteration, file) of each snapshot.
    pub snapshots: Vec<(u32, &'static str, usize, PathBuf)>,
}

fn truth(n: usize) -> Vec<u32> {
    (0..n).map(|i| (i >= n / 2) as u32).collect()
}

fn separated(pos: &[[f32; 3]]) -> bool {
    let l = clusters(pos, &ClusterParams::default());
    let t = truth(pos.len());
    // Exactly two clusters, equal to the true groups up to naming.
    let k = l.iter().max().map_or(0, |&m| m + 1);
    k == 2 && (l == t || l.iter().zip(&t).all(|(a, b)| a != b))
}

/// Run the reproduction, print the findings to `out`, write PNGs to `png_dir`.
pub fn run(out: &mut impl std::io::Write, png_dir: &Path) -> Result<BobrikReport> {
    let g = graph()?;
    let n = g.n();
    let mut layout = Layout::new(&g, params())?;
    let mut hist: Vec<Vec<[f32; 3]>> = vec![layout.positions().into_owned()];
    let mut disp: Vec<Vec<[f32; 3]>> = vec![vec![[0.0; 3]; n]];
    let mut sep_flags = vec![separated(&hist[0])];
    while !layout.is_stopped() {
        layout.step();
        hist.push(layout.positions().into_owned());
        disp.push(layout.displacements().into_owned());
        sep_flags.push(separated(hist.last().expect("just pushed")));
    }
    let last = hist.len() - 1;
    let separation = (0..=last).rev().take_while(|&i| sep_flags[i]).last();
    let t = truth(n);
    let final_ratio = intra_inter_ratio(&hist[last], &t);
    let labels = clusters(&hist[last], &ClusterParams::default());
    let sizes = crate::layout::clusters::cluster_sizes(&labels);

    // Stages (Fig. 1–9) from the history.
    let radius = |p: &[[f32; 3]]| {
        let c = centroid(p);
        p.iter().map(|q| dist(q, &c)).sum::<f64>() / p.len() as f64
    };
    let speed = |i: usize| disp[i].iter().map(|d| dist(d, &[0.0; 3])).sum::<f64>();
    let r0 = radius(&hist[0]);
    let sep = separation.unwrap_or(last);
    let contraction = (1..=sep.max(1))
        .find(|&i| radius(&hist[i]) <= 0.6 * r0)
        .unwrap_or(1.min(last));
    let equilibrium = (contraction..=sep.max(contraction))
        .min_by(|&a, &b| speed(a).total_cmp(&speed(b)))
        .unwrap_or(contraction);
    let min_speed = speed(equilibrium);
    let breakup = (equilibrium..=sep.max(equilibrium))
        .find(|&i| speed(i) > 2.0 * min_speed)
        .unwrap_or(equilibrium);
    let rearrange = (breakup + sep) / 2;
    let ratio_at = |i: usize| intra_inter_ratio(&hist[i], &t);
    let first_group = (sep..=last).find(|&i| ratio_at(i) < 0.5).unwrap_or(sep);
    let diverge = (first_group + last) / 2;
    let stages: [(u32, &'static str, usize); 9] = [
        (1, "initial circle", 0),
        (2, "contraction towards the centre", contraction),
        (3, "local equilibrium", equilibrium),
        (4, "break-up begins", breakup),
        (5, "rearrangement", rearrange),
        (6, "clusters separate", sep),
        (7, "first group formed", first_group),
        (8, "groups move apart", diverge),
        (9, "final configuration", last),
    ];
    std::fs::create_dir_all(png_dir).map_err(|e| Error::io(png_dir, e))?;
    // Each snapshot is fitted to its own extent (the layout contracts to a
    // fraction of the circle, then the groups drift far apart).
    let mut snapshots = Vec::new();
    for (fig, name, it) in stages {
        let ext = hist[it]
            .iter()
            .fold(0f32, |e, q| e.max(q[0].abs()).max(q[1].abs()));
        let path = png_dir.join(format!("bobrik_fig{fig}_iter{it}.png"));
        draw(&g, &hist[it], &disp[it], &t, ext * 1.15, &path)?;
        snapshots.push((fig, name, it, path));
    }

    let w = |e: std::io::Error| Error::io(Path::new("<output>"), e);
    writeln!(
        out,
        "Bobrik & Popova §6.1: clusters:2x10 from the circle start, single level"
    )
    .map_err(w)?;
    writeln!(
        out,
        "iterations run: {}  (state {:?}, stopping value {:.2e})",
        layout.iterations(),
        layout.state(),
        layout.stop_value().unwrap_or(f64::NAN)
    )
    .map_err(w)?;
    match separation {
        Some(s) => writeln!(out, "clusters separate at iteration {s}").map_err(w)?,
        None => writeln!(out, "clusters never separated").map_err(w)?,
    }
    writeln!(
        out,
        "final intra/inter mean distance ratio: {final_ratio:.4}"
    )
    .map_err(w)?;
    writeln!(
        out,
        "clusters found at the end: {} of sizes {:?}",
        sizes.len(),
        sizes
    )
    .map_err(w)?;
    for (fig, name, it, path) in &snapshots {
        writeln!(
            out,
            "Fig. {fig} ({name}): iteration {it} -> {}",
            path.display()
        )
        .map_err(w)?;
    }
    Ok(BobrikReport {
        iterations: layout.iterations(),
        separation,
        final_ratio,
        cluster_sizes: sizes,
        snapshots,
    })
}

fn centroid(p: &[[f32; 3]]) -> [f32; 3] {
    let mut c = [0f32; 3];
    for q in p {
        for a in 0..3 {
            c[a] += q[a] / p.len() as f32;
        }
    }
    c
}

fn dist(a: &[f32; 3], b: &[f32; 3]) -> f64 {
    crate::layout::quality::distance(a, b)
}

/// Draw points, edges and green displacement segments into a PNG.
pub fn draw(
    g: &CommGraph,
    pos: &[[f32; 3]],
    disp: &[[f32; 3]],
    groups: &[u32],
    half_extent: f32,
    path: &Path,
) -> Result<()> {
    const W: u32 = 500;
    let mut img = image::RgbImage::from_pixel(W, W, image::Rgb([255, 255, 255]));
    let s = (W as f32 * 0.5 - 10.0) / half_extent.max(1e-6);
    let px = |p: &[f32; 3]| (W as f32 * 0.5 + p[0] * s, W as f32 * 0.5 - p[1] * s);
    for (u, v, _) in g.pairs() {
        line(&mut img, px(&pos[u]), px(&pos[v]), [200, 200, 200]);
    }
    // Displacements drawn 10× longer than the move, as motion indicators.
    for (p, d) in pos.iter().zip(disp) {
        let a = px(p);
        let b = px(&[p[0] + 10.0 * d[0], p[1] + 10.0 * d[1], 0.0]);
        line(&mut img, a, b, [0, 170, 0]);
    }
    for (i, p) in pos.iter().enumerate() {
        let col = if groups[i] == 0 {
            [220, 30, 30]
        } else {
            [30, 60, 220]
        };
        let (x, y) = px(p);
        for dy in -3i32..=3 {
            for dx in -3i32..=3 {
                if dx * dx + dy * dy <= 9 {
                    put(&mut img, x as i32 + dx, y as i32 + dy, col);
                }
            }
        }
    }
    crate::io::atomic::write_png(
        path,
        img.width(),
        img.height(),
        img.as_raw(),
        image::ExtendedColorType::Rgb8,
    )
}

fn put(img: &mut image::RgbImage, x: i32, y: i32, c: [u8; 3]) {
    if x >= 0 && y >= 0 && (x as u32) < img.width() && (y as u32) < img.height() {
        img.put_pixel(x as u32, y as u32, image::Rgb(c));
    }
}

fn line(img: &mut image::RgbImage, a: (f32, f32), b: (f32, f32), c: [u8; 3]) {
    let steps = ((b.0 - a.0).abs().max((b.1 - a.1).abs()).ceil() as i32).clamp(1, 4000);
    for t in 0..=steps {
        let f = t as f32 / steps as f32;
        put(
            img,
            (a.0 + (b.0 - a.0) * f) as i32,
            (a.1 + (b.1 - a.1) * f) as i32,
            c,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reproduction_separates_the_two_clusters() {
        let dir = std::env::temp_dir().join(format!("hopmap_bobrik_{}", std::process::id()));
        let mut out = Vec::new();
        let r = run(&mut out, &dir).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(r.separation.is_some(), "{text}");
        assert!(r.final_ratio < 0.3, "{text}");
        assert_eq!(r.cluster_sizes, vec![10, 10], "{text}");
        assert_eq!(r.snapshots.len(), 9);
        assert!(r.snapshots.iter().all(|s| s.3.exists()));
        // Stages are in order.
        assert!(r.snapshots.windows(2).all(|w| w[0].2 <= w[1].2), "{text}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
