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

/// A metric value as the panels print it: integers with space digit
/// groups (`1 234 567`), other values with three decimals.
pub fn fmt_num(v: f64) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    if v.fract() == 0.0 && v.abs() < 1e15 {
        let s = format!("{}", v.abs() as u64);
        let mut out = String::new();
        for (i, c) in s.chars().enumerate() {
            if i > 0 && (s.len() - i) % 3 == 0 {
                out.push(' ');
            }
            out.push(c);
        }
        if v < 0.0 { format!("-{out}") } else { out }
    } else {
        format!("{v:.3}")
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
