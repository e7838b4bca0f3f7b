//! Geometry of the network view: the undirected links of the topology with
//! their two channels, a world position per node, the view modes (3D, Z
//! slices side by side, a projection along Z) with the automatic choice, and
//! the camera that turns world positions into screen positions.
//!
//! A mesh/torus puts node (x, y, z) at world (x, y, z); dimensions past Z are
//! folded into X, Y, Z blocks. A topology that is not a grid (switch fabrics)
//! gets its nodes on a circle and its links from [`Topology::channels`], so
//! the view degrades gracefully instead of assuming a grid.
//!
//! Cost: O(nodes + links) once per topology; projecting is O(1) per point.

use egui::{Pos2, Rect, Vec2, pos2, vec2};
use glam::{Mat4, Vec3, Vec4};
use hopmap_core::topology::Topology;

/// One undirected physical link.
#[derive(Clone, Copy, Debug)]
pub struct LinkGeom {
    pub a: u32,
    pub b: u32,
    pub dim: u8,
    pub wrap: bool,
    /// Channel a -> b and b -> a.
    pub fwd: u32,
    pub back: u32,
}

/// How the network is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewMode {
    /// Chosen from the network's size and the room on screen ([`choose_mode`]).
    Auto,
    /// Perspective with an orbit camera.
    ThreeD,
    /// The Z slices side by side (small multiples).
    Slices,
    /// One X–Y grid; each X/Y link position shows the busiest link along Z,
    /// each node the busiest Z link of its column.
    Projection,
}

impl ViewMode {
    pub const ALL: [ViewMode; 4] = [
        ViewMode::Auto,
        ViewMode::ThreeD,
        ViewMode::Slices,
        ViewMode::Projection,
    ];
    pub fn key(self) -> &'static str {
        match self {
            ViewMode::Auto => "auto",
            ViewMode::ThreeD => "3d",
            ViewMode::Slices => "slices",
            ViewMode::Projection => "projection",
        }
    }
    pub fn from_key(s: &str) -> Self {
        Self::ALL
            .into_iter()
            .find(|m| m.key() == s)
            .unwrap_or(ViewMode::Auto)
    }
    pub fn title(self) -> &'static str {
        match self {
            ViewMode::Auto => "Auto",
            ViewMode::ThreeD => "3D",
            ViewMode::Slices => "Z slices",
            ViewMode::Projection => "Projection",
        }
    }
}

/// Up to this many nodes, 3D stays readable.
pub const MAX_3D_NODES: usize = 1000;
/// Below this many screen points per node, Z slices are too small to read.
pub const MIN_SLICE_CELL: f32 = 8.0;

/// The links and node positions of one topology.
#[derive(Default)]
pub struct Geometry {
    pub links: Vec<LinkGeom>,
    pub world: Vec<Vec3>,
    /// Grid dimensions (empty when the topology is not a grid).
    pub dims: Vec<u32>,
    /// Whether the network has a third dimension of more than one node.
    pub three_dims: bool,
    /// Some dimension wraps around (torus).
    pub any_wrap: bool,
    /// Bounding box of `world`.
    pub lo: Vec3,
    pub hi: Vec3,
}

impl Geometry {
    pub fn new(topo: &Topology) -> Self {
        let mut g = Geometry::default();
        match topo.as_grid() {
            Some(grid) => {
                let nd = grid.ndims();
                let dims = grid.dims();
                g.dims = dims.to_vec();
                g.three_dims = dims.iter().skip(2).any(|&d| d > 1);
                g.any_wrap = (0..nd).any(|d| grid.wraps(d));
                for v in 0..grid.num_nodes() {
                    for d in 0..nd {
                        if let Some(w) = grid.step(v, d, 0) {
                            if w == v {
                                continue;
                            }
                            g.links.push(LinkGeom {
                                a: v as u32,
                                b: w as u32,
                                dim: d as u8,
                                wrap: grid.is_wrap_channel(v, d, 0),
                                fwd: grid.channel(v, d, 0) as u32,
                                back: grid.channel(w, d, 1) as u32,
                            });
                        }
                    }
                    let c = grid.coord(v);
                    let at = |d: usize| if d < nd { c[d] as f32 } else { 0.0 };
                    let size = |d: usize| if d < nd { dims[d] as f32 } else { 1.0 };
                    // Dimensions past Z are folded into X, Y, Z blocks.
                    let x = at(0) + at(3) * (size(0) + 1.0);
                    let y = at(1) + at(4) * (size(1) + 1.0);
                    let z = at(2) + at(5) * (size(2) + 1.0);
                    g.world.push(Vec3::new(x, y, z));
                }
            }
            None => {
                // Not a grid: nodes on a circle, links from the channels.
                let n = topo.num_nodes();
                let r = (n as f32).max(4.0) / std::f32::consts::TAU;
                g.world = (0..n)
                    .map(|i| {
                        let a = i as f32 / n.max(1) as f32 * std::f32::consts::TAU;
                        Vec3::new(r * a.cos(), r * a.sin(), 0.0)
                    })
                    .collect();
                let chans = topo.channels();
                let mut back = std::collections::HashMap::new();
                for &(c, a, b) in &chans {
                    back.insert((a, b), c);
                }
                for &(c, a, b) in &chans {
                    if a < b {
                        g.links.push(LinkGeom {
                            a: a as u32,
                            b: b as u32,
                            dim: 0,
                            wrap: false,
                            fwd: c as u32,
                            back: back.get(&(b, a)).copied().unwrap_or(c) as u32,
                        });
                    }
                }
            }
        }
        let (lo, hi) = g.world.iter().fold(
            (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
            |(lo, hi), p| (lo.min(*p), hi.max(*p)),
        );
        (g.lo, g.hi) = if g.world.is_empty() {
            (Vec3::ZERO, Vec3::ZERO)
        } else {
            (lo, hi)
        };
        g
    }

    /// Number of Z slices (1 for a flat network).
    pub fn slices(&self) -> usize {
        if self.three_dims {
            (self.hi.z - self.lo.z).round() as usize + 1
        } else {
            1
        }
    }

    /// A projection along Z needs exactly three grid dimensions.
    pub fn can_project(&self) -> bool {
        self.dims.len() == 3 && self.three_dims
    }

    /// Midpoint of link `i` in world coordinates (its `a` end for a wrap link).
    pub fn link_mid(&self, i: usize) -> Option<Vec3> {
        let l = self.links.get(i)?;
        let (a, b) = (self.world[l.a as usize], self.world[l.b as usize]);
        Some(if l.wrap { a } else { (a + b) * 0.5 })
    }
}

/// The drawing a mode resolves to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// 1D/2D network: one grid.
    Flat,
    ThreeD,
    Slices,
    Projection,
}

/// Scale (screen points per node) of the Z slices laid out in `rect`.
pub fn slice_scale(geom: &Geometry, rect: Rect) -> f32 {
    let l = FlatLayout::new(geom, rect, false);
    l.s
}

/// Resolve `mode` for `geom` drawn in `rect`. Auto: flat networks are drawn
/// flat; a 3D network in 3D up to [`MAX_3D_NODES`] nodes (beyond that the
/// block hides its inside), else as Z slices when a slice node gets at least
/// [`MIN_SLICE_CELL`] points, else projected along Z.
pub fn choose_mode(mode: ViewMode, geom: &Geometry, rect: Rect) -> Resolved {
    if !geom.three_dims {
        return Resolved::Flat;
    }
    let auto = || {
        if geom.world.len() <= MAX_3D_NODES {
            Resolved::ThreeD
        } else if slice_scale(geom, rect) >= MIN_SLICE_CELL || !geom.can_project() {
            Resolved::Slices
        } else {
            Resolved::Projection
        }
    };
    match mode {
        ViewMode::Auto => auto(),
        ViewMode::ThreeD => Resolved::ThreeD,
        ViewMode::Slices => Resolved::Slices,
        ViewMode::Projection if geom.can_project() => Resolved::Projection,
        ViewMode::Projection => Resolved::Slices,
    }
}

/// The orbit camera (3D) and the zoom/pan of the flat drawings.
#[derive(Clone, Debug)]
pub struct Camera {
    pub yaw: f32,
    pub pitch: f32,
    /// 0 = frame the whole network.
    pub dist: f32,
    /// Point the 3D camera looks at (None = the network's centre).
    pub target: Option<Vec3>,
    pub zoom2d: f32,
    pub pan2d: Vec2,
}

impl Default for Camera {
    fn default() -> Self {
        Camera {
            yaw: 0.6,
            pitch: 0.45,
            dist: 0.0,
            target: None,
            zoom2d: 1.0,
            pan2d: Vec2::ZERO,
        }
    }
}

impl Camera {
    /// Bits of everything that moves the picture (for the mesh cache key).
    pub fn key(&self) -> [u64; 4] {
        let t = self.target.unwrap_or(Vec3::splat(f32::NAN));
        [
            self.yaw.to_bits() as u64 | (self.pitch.to_bits() as u64) << 32,
            self.dist.to_bits() as u64 | (self.zoom2d.to_bits() as u64) << 32,
            self.pan2d.x.to_bits() as u64 | (self.pan2d.y.to_bits() as u64) << 32,
            t.x.to_bits() as u64 ^ (t.y.to_bits() as u64) << 20 ^ (t.z.to_bits() as u64) << 40,
        ]
    }
}

/// Layout of the flat drawings: panels of `w × h` nodes in `cols` columns.
#[derive(Clone, Copy, Debug)]
pub struct FlatLayout {
    pub origin: Pos2,
    /// Screen points per world unit.
    pub s: f32,
    pub cols: usize,
    pub w: f32,
    pub h: f32,
    pub gap: f32,
    pub lo: Vec3,
    /// Ignore Z (projection): one panel.
    pub collapse: bool,
}

impl FlatLayout {
    fn new(geom: &Geometry, rect: Rect, collapse: bool) -> Self {
        let (lo, hi) = (geom.lo, geom.hi);
        let zs = if collapse { 1 } else { geom.slices() };
        let cols = (zs as f32).sqrt().ceil().max(1.0) as usize;
        let rows = zs.div_ceil(cols);
        let (w, h) = ((hi.x - lo.x) + 1.0, (hi.y - lo.y) + 1.0);
        let gap = 1.6;
        let tw = cols as f32 * (w + gap) - gap;
        let th = rows as f32 * (h + gap) - gap;
        let s = ((rect.width() - 40.0) / tw).min((rect.height() - 40.0) / th);
        let origin = rect.center() - vec2(tw, th) * s * 0.5;
        FlatLayout {
            origin,
            s: s.max(1e-3),
            cols,
            w,
            h,
            gap,
            lo,
            collapse,
        }
    }
}

/// World → screen for one frame.
pub enum Projector {
    Persp { vp: Mat4, centre: Pos2, half: Vec2 },
    Flat(FlatLayout),
}

impl Projector {
    /// The projector of `resolved` in `rect`; fills in the camera's distance
    /// when it is 0 (frame everything).
    pub fn new(resolved: Resolved, geom: &Geometry, rect: Rect, cam: &mut Camera) -> Self {
        let (lo, hi) = (geom.lo, geom.hi);
        if resolved == Resolved::ThreeD {
            let aspect = rect.width() / rect.height().max(1.0);
            if cam.dist <= 0.0 {
                // Frame the bounding sphere in the narrower field of view.
                let radius = (hi - lo).length() * 0.5 + 0.6;
                let half_fov = 0.4f32.min((0.4f32.tan() * aspect.min(1.0)).atan());
                cam.dist = radius / half_fov.sin();
            }
            let extent = (hi - lo).max_element().max(1.0);
            let centre = cam.target.unwrap_or((lo + hi) * 0.5);
            let eye = centre
                + cam.dist
                    * Vec3::new(
                        cam.pitch.cos() * cam.yaw.sin(),
                        cam.pitch.sin(),
                        cam.pitch.cos() * cam.yaw.cos(),
                    );
            let view = glam::camera::rh::view::look_at_mat4(eye, centre, Vec3::Y);
            let pm = glam::camera::rh::proj::opengl::perspective(
                0.8,
                aspect,
                0.05,
                cam.dist * 4.0 + extent * 4.0,
            );
            Projector::Persp {
                vp: pm * view,
                centre: rect.center(),
                half: rect.size() * 0.5,
            }
        } else {
            let mut l = FlatLayout::new(geom, rect, resolved == Resolved::Projection);
            // Zoom about the centre of the rectangle, then pan.
            let c = rect.center();
            l.origin = c + (l.origin - c) * cam.zoom2d + cam.pan2d;
            l.s *= cam.zoom2d;
            Projector::Flat(l)
        }
    }

    /// Screen position of a world point and screen points per world unit there.
    pub fn at(&self, p: Vec3) -> (Pos2, f32) {
        match self {
            Projector::Persp { vp, centre, half } => {
                // Y up in the world and in NDC, down on screen.
                let c: Vec4 = *vp * Vec4::new(p.x, p.y, p.z, 1.0);
                let iw = 1.0 / c.w.max(1e-4);
                (
                    pos2(centre.x + c.x * iw * half.x, centre.y - c.y * iw * half.y),
                    iw * half.y,
                )
            }
            Projector::Flat(l) => {
                let z = if l.collapse {
                    0
                } else {
                    (p.z - l.lo.z).round().max(0.0) as usize
                };
                let (cx, cy) = ((z % l.cols) as f32, (z / l.cols) as f32);
                let x = cx * (l.w + l.gap) + (p.x - l.lo.x) + 0.5;
                let y = cy * (l.h + l.gap) + (p.y - l.lo.y) + 0.5;
                (l.origin + vec2(x, y) * l.s, l.s)
            }
        }
    }

    pub fn is_3d(&self) -> bool {
        matches!(self, Projector::Persp { .. })
    }
}

/// Point the camera at world point `p` (a hot link): 3D moves the target
/// and comes close; the flat drawings zoom in and pan `p` to the centre.
pub fn frame_point(resolved: Resolved, geom: &Geometry, rect: Rect, cam: &mut Camera, p: Vec3) {
    if resolved == Resolved::ThreeD {
        cam.target = Some(p);
        cam.dist = ((geom.hi - geom.lo).max_element() * 0.35).clamp(3.0, 12.0);
    } else {
        cam.zoom2d = cam.zoom2d.max(3.0);
        cam.pan2d = Vec2::ZERO;
        let pr = Projector::new(resolved, geom, rect, cam);
        let (sp, _) = pr.at(p);
        cam.pan2d = rect.center() - sp;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_mode_depends_on_size_and_room() {
        let rect = Rect::from_min_size(Pos2::ZERO, vec2(600.0, 600.0));
        let g = |s: &str| Geometry::new(&Topology::parse(s).unwrap());
        assert_eq!(
            choose_mode(ViewMode::Auto, &g("torus:8x8"), rect),
            Resolved::Flat
        );
        assert_eq!(
            choose_mode(ViewMode::Auto, &g("torus:8x8x8"), rect),
            Resolved::ThreeD
        );
        // 16 slices of 16×16 at 600 points: 4×4 panels of ~8.5 points per node.
        assert_eq!(
            choose_mode(ViewMode::Auto, &g("torus:16x16x16"), rect),
            Resolved::Slices
        );
        // 32 slices of 16×32 would be ~2.5 points per node: projected.
        let big = g("torus:16x32x32");
        assert!(slice_scale(&big, rect) < MIN_SLICE_CELL);
        assert_eq!(
            choose_mode(ViewMode::Auto, &big, rect),
            Resolved::Projection
        );
        // An explicit choice wins; a projection needs exactly three dimensions.
        assert_eq!(choose_mode(ViewMode::ThreeD, &big, rect), Resolved::ThreeD);
        let four = g("torus:4x4x4x4");
        assert_eq!(
            choose_mode(ViewMode::Projection, &four, rect),
            Resolved::Slices
        );
    }

    #[test]
    fn framing_a_point_centres_it() {
        let geom = Geometry::new(&Topology::parse("torus:16x32x32").unwrap());
        let rect = Rect::from_min_size(pos2(10.0, 20.0), vec2(500.0, 400.0));
        for resolved in [Resolved::Projection, Resolved::Slices, Resolved::ThreeD] {
            let mut cam = Camera::default();
            let p = Vec3::new(3.0, 17.0, 5.0);
            frame_point(resolved, &geom, rect, &mut cam, p);
            let pr = Projector::new(resolved, &geom, rect, &mut cam);
            let (sp, _) = pr.at(p);
            assert!((sp - rect.center()).length() < 1.0, "{resolved:?}: {sp:?}");
        }
    }
}
