//! State shared by several network views drawn at once (side by side, the
//! difference view, race mode): one camera, one drawing mode and link
//! filter, one colour scale, and what the pointer is over. Each view is a
//! [`super::NetworkView`] of its own (own caches, own mapping); drawn with
//! [`super::NetworkView::ui_synced`] it reads and writes this instead of its
//! own camera, so rotating, zooming or panning one view moves them all, and
//! the node or link hovered in one is highlighted in every view.
//!
//! The hovered item is published by the view under the pointer during a
//! frame and painted by all views in the next one ([`ViewSync::begin_frame`]),
//! so every view shows the same highlight whatever order they are drawn in.
//!
//! Also here: [`LinkDelta`], the per-link change of load between two
//! mappings that the difference view paints on a diverging colour map.
//! Cost: O(1) per frame; [`LinkDelta::new`] is O(links).

use super::contention::{LinkFilter, LinkStats};
use super::geometry::{Camera, ViewMode};
use super::input::Picked;

/// What several synced views share; see the module doc.
#[derive(Clone, Debug)]
pub struct ViewSync {
    /// The one camera (3D orbit, flat zoom and pan).
    pub cam: Camera,
    pub mode: ViewMode,
    pub by_flows: bool,
    pub filter: LinkFilter,
    pub ghosts: bool,
    /// The shared colour scale: links from `lo` (0 on the colour bar) to
    /// `hi` (the busiest link over all the views) in full. None: each view
    /// uses its own.
    pub scale: Option<(f64, f64)>,
    /// The node or link under the pointer in any view (last frame).
    pub hover: Option<Picked>,
    hover_next: Option<Picked>,
    /// A node clicked in one of the views this frame (its process, or None
    /// for an empty node or the background): the caller selects it in all.
    pub clicked: Option<Option<usize>>,
    /// The tallest pane title and caption of the last frame: every view
    /// starts this far below its cell's top, so that the views line up.
    pub header: f32,
    header_next: f32,
}

impl Default for ViewSync {
    fn default() -> Self {
        ViewSync {
            cam: Camera::default(),
            mode: ViewMode::Auto,
            by_flows: false,
            filter: LinkFilter::Auto,
            ghosts: true,
            scale: None,
            hover: None,
            hover_next: None,
            clicked: None,
            header: 0.0,
            header_next: 0.0,
        }
    }
}

impl ViewSync {
    /// Call once per frame before drawing the views: the hover published
    /// in the last frame becomes the one every view paints, and the
    /// tallest header the one every view starts below. Returns whether
    /// either changed (the caller asks for one more frame).
    pub fn begin_frame(&mut self) -> bool {
        let next = self.hover_next.take();
        let header = std::mem::take(&mut self.header_next);
        let changed = next != self.hover || header != self.header;
        self.hover = next;
        self.header = header;
        self.clicked = None;
        changed
    }

    /// A pane reports how tall its title and caption are this frame.
    pub fn report_header(&mut self, h: f32) {
        self.header_next = self.header_next.max(h);
    }

    /// A view reports what is under the pointer.
    pub(super) fn publish_hover(&mut self, p: Option<Picked>) {
        if p.is_some() {
            self.hover_next = p;
        }
    }

    /// The shared scale from the views' own ranges `(lo, hi)`: the lowest
    /// threshold and the busiest link over all of them (non-finite ranges,
    /// views without traffic, are ignored).
    pub fn shared_scale(ranges: &[(f64, f64)]) -> Option<(f64, f64)> {
        let ok: Vec<(f64, f64)> = ranges
            .iter()
            .copied()
            .filter(|(lo, hi)| lo.is_finite() && hi.is_finite() && *hi > 0.0)
            .collect();
        if ok.is_empty() {
            return None;
        }
        let lo = ok.iter().map(|r| r.0).fold(f64::INFINITY, f64::min);
        let hi = ok.iter().map(|r| r.1).fold(0.0, f64::max);
        Some((lo, hi))
    }
}

/// Change of each link's value from mapping A to mapping B (B − A, the
/// busier direction's bytes or flows of each), for the difference view.
#[derive(Clone, Debug, Default)]
pub struct LinkDelta {
    pub vals: Vec<f64>,
    /// Largest |B − A| (the ends of the diverging scale are ±this).
    pub max_abs: f64,
    /// Nodes that hold a process that moved (drawn with a ring).
    pub moved_nodes: Vec<u32>,
    /// Identifies the content (part of the view's cache key).
    pub generation: u64,
}

impl LinkDelta {
    /// The delta of two views' link values (same topology, same link order).
    pub fn new(a: &LinkStats, b: &LinkStats, moved_nodes: Vec<u32>, generation: u64) -> Self {
        let vals: Vec<f64> = a.vals.iter().zip(&b.vals).map(|(&x, &y)| y - x).collect();
        let max_abs = vals.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        LinkDelta {
            vals,
            max_abs,
            moved_nodes,
            generation,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shared_scale_spans_every_view() {
        assert_eq!(
            ViewSync::shared_scale(&[(2.0, 10.0), (1.0, 40.0), (f64::INFINITY, 0.0)]),
            Some((1.0, 40.0))
        );
        assert_eq!(ViewSync::shared_scale(&[(f64::INFINITY, 0.0)]), None);
    }

    #[test]
    fn hover_is_painted_in_the_next_frame() {
        let mut s = ViewSync::default();
        s.publish_hover(Some(Picked::Node(3)));
        assert_eq!(s.hover, None);
        assert!(s.begin_frame());
        assert_eq!(s.hover, Some(Picked::Node(3)));
        // Nobody hovers: it clears a frame later.
        assert!(s.begin_frame());
        assert_eq!(s.hover, None);
    }

    #[test]
    fn delta_is_b_minus_a() {
        let a = LinkStats {
            vals: vec![1.0, 5.0, 0.0],
            ..Default::default()
        };
        let b = LinkStats {
            vals: vec![3.0, 1.0, 0.0],
            ..Default::default()
        };
        let d = LinkDelta::new(&a, &b, vec![], 1);
        assert_eq!(d.vals, vec![2.0, -4.0, 0.0]);
        assert_eq!(d.max_abs, 4.0);
    }
}
