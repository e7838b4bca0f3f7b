//! Drawing primitives and label formats shared by the views (the graph
//! view, the network view's grid and fabric drawings, the exports, the
//! metrics and compare panels, the panes), so that no view imports another
//! for them. No state; each is O(1) per primitive, O(digits) per label.

use egui::{Color32, Mesh, Pos2, vec2};

/// Append a line segment of width `w` as a quad.
pub fn add_segment(mesh: &mut Mesh, a: Pos2, b: Pos2, w: f32, color: Color32) {
    let d = b - a;
    let len = d.length();
    if len < 1e-3 {
        return;
    }
    let nrm = vec2(-d.y, d.x) / len * (w * 0.5);
    let i = mesh.vertices.len() as u32;
    mesh.colored_vertex(a + nrm, color);
    mesh.colored_vertex(a - nrm, color);
    mesh.colored_vertex(b - nrm, color);
    mesh.colored_vertex(b + nrm, color);
    mesh.add_triangle(i, i + 1, i + 2);
    mesh.add_triangle(i, i + 2, i + 3);
}

/// A dashed segment (4-point dashes, 3-point gaps, at most 400 dashes)
/// appended to a mesh as quads.
pub fn add_dashed(mesh: &mut Mesh, a: Pos2, b: Pos2, w: f32, col: Color32) {
    let len = (b - a).length();
    if len < 1.0 {
        return;
    }
    let (dash, gap) = (4.0, 3.0);
    let n = ((len / (dash + gap)).ceil() as usize).min(400);
    let d = (b - a) / len;
    for k in 0..n {
        let s = k as f32 * (dash + gap);
        let e = (s + dash).min(len);
        add_segment(mesh, a + d * s, a + d * e, w, col);
    }
}

/// A metric value as the panels print it: integers with space digit
/// groups (`1 234 567`), other values with up to three decimals, their
/// integer part grouped too from 1,000 on (`310 383 015.5`: a bound with a
/// half byte lines up with the integers above and below it).
pub fn fmt_num(v: f64) -> String {
    use hopmap_core::units::group_digits;
    if !v.is_finite() {
        return format!("{v}");
    }
    if let Some(s) = group_digits(v) {
        return s;
    }
    let s = format!("{v:.3}");
    match s.split_once('.') {
        Some((int, frac)) if v.abs() >= 1e3 => {
            let frac = frac.trim_end_matches('0');
            let int = int
                .parse::<f64>()
                .ok()
                .and_then(group_digits)
                .unwrap_or_else(|| int.to_string());
            if frac.is_empty() {
                int
            } else {
                format!("{int}.{frac}")
            }
        }
        _ => s,
    }
}

/// Paint a large cached mesh as a clipped primitive of its own. egui's
/// tessellator appends every shape with the same clip rectangle into one
/// output mesh, growing it by doubling and copying it again at each growth;
/// a clip rectangle a hair (`slot` thousandths of a point, so that
/// consecutive large meshes differ) inside the painter's starts a fresh
/// output mesh that takes this one in a single copy. O(vertices) per frame.
pub fn add_large_mesh(painter: &egui::Painter, mesh: std::sync::Arc<egui::Mesh>, slot: u8) {
    let clip = painter.clip_rect().shrink(1e-3 * (f32::from(slot) + 1.0));
    painter.with_clip_rect(clip).add(egui::Shape::mesh(mesh));
}

/// Rings drawn one by one (anti-aliased circle strokes) up to this count;
/// more go into one mesh ([`add_rings`]).
pub const RINGS_AS_SHAPES: usize = 64;

/// Sides of a ring in [`ring_mesh`].
const RING_SIDES: usize = 12;

/// Rings of width `w` around `rings` (centre, radius), in `color`: one by
/// one (anti-aliased strokes) when they are at most [`RINGS_AS_SHAPES`],
/// else as one mesh ([`ring_mesh`]) painted as a primitive of its own. egui
/// tessellates an anti-aliased circle stroke of a few points' radius into
/// ~130 vertices, so thousands of them (a bisection step's 4,096
/// processes, a frontier) cost 15–25 ms a frame to tessellate; the mesh
/// has 24 vertices a ring and is copied once. O(rings).
pub fn add_rings(
    painter: &egui::Painter,
    rings: impl Iterator<Item = (Pos2, f32)> + Clone,
    w: f32,
    color: Color32,
    slot: u8,
) {
    if rings.clone().nth(RINGS_AS_SHAPES).is_none() {
        for (c, r) in rings {
            painter.circle_stroke(c, r, egui::Stroke::new(w, color));
        }
        return;
    }
    let clip = painter.clip_rect();
    let seen = rings.filter(|&(c, r)| clip.expand(r + w).contains(c));
    add_large_mesh(
        painter,
        std::sync::Arc::new(ring_mesh(seen, w, color)),
        slot,
    );
}

/// One mesh of rings (12-sided, each `(centre, radius to the middle of
/// the band)`, band width `w`): 24 vertices and 72 indices a ring, no
/// anti-aliasing fringe. O(rings).
pub fn ring_mesh(rings: impl Iterator<Item = (Pos2, f32)>, w: f32, color: Color32) -> Mesh {
    let dirs: Vec<egui::Vec2> = (0..RING_SIDES)
        .map(|k| egui::Vec2::angled(k as f32 * std::f32::consts::TAU / RING_SIDES as f32))
        .collect();
    let mut mesh = Mesh::default();
    let (lo, _) = rings.size_hint();
    mesh.reserve_vertices(lo * 2 * RING_SIDES);
    mesh.reserve_triangles(lo * 2 * RING_SIDES);
    for (c, r) in rings {
        add_ring_with(&mut mesh, &dirs, c, r, w, color);
    }
    mesh
}

/// Append one 12-sided ring (centre `c`, radius `r` to the middle of the
/// band, width `w`) to `mesh`, as [`ring_mesh`] draws each.
pub fn add_ring(mesh: &mut Mesh, c: Pos2, r: f32, w: f32, color: Color32) {
    let dirs: [egui::Vec2; RING_SIDES] = std::array::from_fn(|k| {
        egui::Vec2::angled(k as f32 * std::f32::consts::TAU / RING_SIDES as f32)
    });
    add_ring_with(mesh, &dirs, c, r, w, color);
}

fn add_ring_with(mesh: &mut Mesh, dirs: &[egui::Vec2], c: Pos2, r: f32, w: f32, color: Color32) {
    let (ri, ro) = ((r - w * 0.5).max(0.0), r + w * 0.5);
    let i = mesh.vertices.len() as u32;
    for d in dirs {
        mesh.colored_vertex(c + *d * ri, color);
        mesh.colored_vertex(c + *d * ro, color);
    }
    let s = dirs.len() as u32;
    for k in 0..s {
        let (a, b) = (i + 2 * k, i + 2 * ((k + 1) % s));
        mesh.add_triangle(a, a + 1, b + 1);
        mesh.add_triangle(a, b + 1, b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_grouped_with_or_without_a_fraction() {
        assert_eq!(fmt_num(1_234_567.0), "1 234 567");
        assert_eq!(fmt_num(310_383_015.5), "310 383 015.5");
        assert_eq!(fmt_num(-1234.25), "-1 234.25");
        assert_eq!(fmt_num(1234.0004), "1 234");
        assert_eq!(fmt_num(0.5), "0.500");
        assert_eq!(fmt_num(-0.25), "-0.250");
        assert_eq!(fmt_num(f64::INFINITY), "inf");
    }

    /// Each ring is a band of 12 quads between radius r − w/2 and r + w/2
    /// around its centre.
    #[test]
    fn a_ring_mesh_is_a_band_of_quads_around_each_centre() {
        let cs = [Pos2::new(10.0, 10.0), Pos2::new(50.0, -5.0)];
        let m = ring_mesh(cs.into_iter().map(|c| (c, 4.0)), 2.0, Color32::RED);
        assert_eq!(m.vertices.len(), 2 * 24);
        assert_eq!(m.indices.len(), 2 * 72);
        assert!(m.is_valid());
        for (k, v) in m.vertices.iter().enumerate() {
            let c = cs[k / 24];
            let d = (v.pos - c).length();
            let want = if k % 2 == 0 { 3.0 } else { 5.0 };
            assert!((d - want).abs() < 1e-4, "vertex {k}: {d} from its centre");
        }
        // The second ring's triangles use its own vertices only.
        assert!(m.indices[72..].iter().all(|&i| (24..48).contains(&i)));
    }

    /// Few rings stay anti-aliased strokes; many become one mesh.
    #[test]
    fn many_rings_are_painted_as_one_mesh() {
        let ctx = egui::Context::default();
        let mut out = ctx.run_ui(Default::default(), |ui| {
            let p = ui.painter();
            let few = (0..3).map(|i| (Pos2::new(10.0 * i as f32, 20.0), 5.0));
            add_rings(p, few, 2.0, Color32::RED, 2);
            let at = |i: usize| Pos2::new((i % 40) as f32 * 10.0, (i / 40) as f32 * 10.0);
            add_rings(p, (0..1000).map(|i| (at(i), 5.0)), 2.0, Color32::RED, 2);
        });
        out.textures_delta.clear();
        let shapes: Vec<&egui::Shape> = out.shapes.iter().map(|s| &s.shape).collect();
        let circles = shapes
            .iter()
            .filter(|s| matches!(s, egui::Shape::Circle(_)))
            .count();
        let meshes: Vec<usize> = shapes
            .iter()
            .filter_map(|s| match s {
                egui::Shape::Mesh(m) => Some(m.vertices.len()),
                _ => None,
            })
            .collect();
        assert_eq!(circles, 3);
        assert_eq!(meshes, vec![1000 * 24]);
    }
}
