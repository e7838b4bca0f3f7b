//! The network view's overlay while a recursive construction runs
//! (`recursive`, `recursive+refine`; the Bipartition view animates the same
//! tree): each part waiting to be cut has its node domain outlined (and, in
//! the flat drawings, tinted) in the part's colour, all in one mesh (the
//! tessellator copies it once). O(pending parts + node marks) per frame,
//! both bounded.

use super::geometry::{Geometry, Projector};
use crate::Model;
use crate::colormap::{part_color, recursive_detail};
use crate::draw::{add_large_mesh, add_ring, add_segment};
use crate::run_detail::PartState;
use egui::{Color32, Mesh, Pos2, Rect};
use glam::Vec3;
use hopmap_core::mappers::recursive::domain::Domain;

/// Pending parts outlined on the network at most (more: none, the parts
/// are then a few nodes each and the nodes' colours show them).
pub const MAX_OUTLINED: usize = 512;
/// Node rings / slice rectangles drawn at most by the overlay per frame.
pub const MAX_NODE_MARKS: usize = 4096;

/// The network view's overlay while a recursive construction runs: each
/// part waiting to be cut has its node domain outlined (and, in the flat
/// drawings, tinted) in the part's colour. At most [`MAX_OUTLINED`] parts
/// and [`MAX_NODE_MARKS`] node marks per frame.
pub fn paint(painter: &egui::Painter, proj: &Projector, geom: &Geometry, model: &Model) {
    let Some(d) = recursive_detail(model) else {
        return;
    };
    if !model.run.is_live() || d.refining {
        return;
    }
    let flat = !proj.is_3d();
    let nd = geom.dims.len();
    // The parts still to be cut (one-node leaves show as their nodes'
    // colours); past MAX_OUTLINED they are too small to outline usefully.
    let pending = d.parts.iter().filter(|p| p.state == PartState::Pending);
    if pending.clone().count() > MAX_OUTLINED {
        return;
    }
    let mut budget = MAX_NODE_MARKS;
    // Thousands of marks: one mesh, copied once by the tessellator.
    let mut mesh = Mesh::default();
    'parts: for p in pending {
        let c = part_color(&model.topo, p);
        match &p.domain {
            Domain::Box { lo, len } if nd <= 3 && !geom.dims.is_empty() => {
                let a = Vec3::new(lo[0] as f32, lo[1] as f32, lo[2] as f32) - Vec3::splat(0.42);
                let b = Vec3::new(
                    (lo[0] + len[0]) as f32,
                    (lo[1] + len[1]) as f32,
                    (lo[2] + len[2]) as f32,
                ) - Vec3::splat(0.58);
                if flat {
                    let collapse = matches!(proj, Projector::Flat(l) if l.collapse);
                    let zs = if collapse || nd < 3 { 1 } else { len[2] };
                    if zs as usize > budget {
                        break 'parts;
                    }
                    budget -= zs as usize;
                    for k in 0..zs {
                        let z = (lo[2] + k) as f32;
                        let p0 = proj.at(Vec3::new(a.x, a.y, z)).0;
                        let p1 = proj.at(Vec3::new(b.x, b.y, z)).0;
                        add_outlined_rect(&mut mesh, Rect::from_two_pos(p0, p1), c);
                    }
                } else {
                    let corner = |i: usize| {
                        Vec3::new(
                            if i & 1 == 0 { a.x } else { b.x },
                            if i & 2 == 0 { a.y } else { b.y },
                            if i & 4 == 0 { a.z } else { b.z },
                        )
                    };
                    let pts: Vec<Pos2> = (0..8).map(|i| proj.at(corner(i)).0).collect();
                    for i in 0..8 {
                        for bit in [1, 2, 4] {
                            let j = i | bit;
                            if j != i {
                                add_segment(&mut mesh, pts[i], pts[j], 1.8, c);
                            }
                        }
                    }
                }
            }
            dom => {
                let nodes = dom.nodes(&model.topo);
                if nodes.len() > budget {
                    break 'parts;
                }
                budget -= nodes.len();
                for v in nodes {
                    if let Some(&w) = geom.world.get(v as usize) {
                        let (q, unit) = proj.at(w);
                        add_ring(&mut mesh, q, (unit * 0.3).clamp(3.0, 10.0), 2.0, c);
                    }
                }
            }
        }
    }
    add_large_mesh(painter, std::sync::Arc::new(mesh), 4);
}

/// A rectangle tinted in `c` with a 2-point border inside it.
fn add_outlined_rect(mesh: &mut Mesh, r: Rect, c: Color32) {
    mesh.add_colored_rect(r, c.gamma_multiply(0.22));
    let s = r.shrink(1.0);
    let corners = [
        s.left_top(),
        s.right_top(),
        s.right_bottom(),
        s.left_bottom(),
    ];
    for k in 0..4 {
        add_segment(mesh, corners[k], corners[(k + 1) % 4], 2.0, c);
    }
}
