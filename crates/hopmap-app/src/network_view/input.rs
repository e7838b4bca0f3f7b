//! Input of the network view: dragging turns the 3D camera or pans the flat
//! drawings, the wheel zooms (about the pointer when flat), and the pointer
//! picks the nearest node, else the nearest link segment or projection
//! square. O(nodes + drawn segments) per hovered frame.

use super::geometry::Camera;
use super::paint::{Drawn, node_radius, seg_dist};
use egui::{Pos2, Rect, Response};

/// Move the camera from this frame's drag and wheel.
pub fn camera(ui: &egui::Ui, resp: &Response, rect: Rect, three: bool, cam: &mut Camera) {
    if resp.dragged() {
        let d = resp.drag_delta();
        if three {
            cam.yaw -= d.x * 0.01;
            cam.pitch = (cam.pitch + d.y * 0.01).clamp(-1.5, 1.5);
        } else {
            cam.pan2d += d;
        }
    }
    if resp.hovered() {
        let scroll = ui.input(|i| i.smooth_scroll_delta.y);
        if scroll != 0.0 {
            let f = (scroll / 200.0).exp();
            if three {
                cam.dist = (cam.dist.max(1e-3) / f).clamp(0.5, 1e4);
            } else {
                // Zoom about the pointer: the point under it stays put.
                if let Some(p) = resp.hover_pos() {
                    let c = rect.center();
                    let before = p - (c + cam.pan2d);
                    cam.pan2d += before - before * f;
                }
                cam.zoom2d = (cam.zoom2d * f).clamp(0.1, 80.0);
            }
        }
    }
}

/// What is under the pointer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Picked {
    Node(usize),
    Link(usize),
}

/// The node under `p` (within its radius + 3 points), else the link segment
/// within 6 points, else the projection square containing `p`.
pub fn pick(drawn: &Drawn, three: bool, p: Pos2) -> Option<Picked> {
    if drawn.nodes_drawn {
        let mut best: Option<(usize, f32)> = None;
        for (i, &(q, unit)) in drawn.screen.iter().enumerate() {
            let d = (q - p).length();
            if d <= node_radius(three, unit) + 3.0 && best.is_none_or(|(_, bd)| d < bd) {
                best = Some((i, d));
            }
        }
        if let Some((v, _)) = best {
            return Some(Picked::Node(v));
        }
    }
    let mut bl: Option<(usize, f32)> = None;
    for &(i, p0, p1) in &drawn.segs {
        let d = seg_dist(p, p0, p1);
        if d < 6.0 && bl.is_none_or(|(_, bd)| d < bd) {
            bl = Some((i, d));
        }
    }
    if let Some((i, _)) = bl {
        return Some(Picked::Link(i));
    }
    drawn
        .cells
        .iter()
        .find(|(_, r)| r.contains(p))
        .map(|&(i, _)| Picked::Link(i))
}
