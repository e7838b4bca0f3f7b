//! The communication matrix view: bytes sent from row process to column
//! process as a heatmap on a log colour scale (inferno), the spy plot of
//! trace tools. Ordered by rank, or by the current mapping (node-then-core
//! order), so that a good mapping gathers its traffic near the diagonal.
//!
//! For n above [`MAX_PIXELS`] the matrix is aggregated into pixel bins (sum
//! of bytes per bin). The texture is rebuilt only when its inputs change:
//! O(n + m) then, O(1) per frame otherwise. Wheel zooms, drag pans, hover
//! shows the pair (or the bin's rank ranges) and its bytes.
//!
//! SVG export ([`MatrixView::add_cells`]): one rectangle per non-empty cell
//! as drawn — a matrix entry for n ≤ [`MAX_PIXELS`], else one aggregated
//! bin (its bytes summed) — plus the log colour legend. O(k²) per export.

use super::Model;
use super::colormap::{inferno, log_scale};
use super::view::View;
use egui::{Color32, ColorImage, Rect, Sense, TextureHandle, TextureOptions, Vec2, pos2, vec2};
use hopmap_core::units::fmt_bytes;

/// Largest texture side.
pub const MAX_PIXELS: usize = 512;

pub struct MatrixView {
    pub by_mapping: bool,
    /// Colour by messages sent instead of bytes (graphs with counts).
    pub by_messages: bool,
    /// The bins hold messages (set by the last build).
    msgs_shown: bool,
    tex: Option<TextureHandle>,
    key: (u64, u64, u64, bool, bool),
    /// Process at each matrix position.
    order: Vec<u32>,
    /// Bytes per bin, row-major k×k.
    bins: Vec<f64>,
    k: usize,
    /// The smallest and largest non-zero bin (the colour scale's ends).
    lo: f64,
    hi: f64,
    /// Where the matrix was drawn last.
    img_rect: Rect,
    zoom: f32,
    pan: Vec2,
}

impl MatrixView {
    pub fn new(by_mapping: bool) -> Self {
        MatrixView {
            by_mapping,
            by_messages: false,
            msgs_shown: false,
            tex: None,
            key: (0, 0, 0, false, false),
            order: Vec::new(),
            bins: Vec::new(),
            k: 0,
            lo: 0.0,
            hi: 0.0,
            img_rect: Rect::NOTHING,
            zoom: 1.0,
            pan: Vec2::ZERO,
        }
    }

    /// Build the bins and the image (no GPU upload). Returns the image.
    pub fn build(&mut self, model: &Model) -> ColorImage {
        let g = &model.graph;
        let n = g.n();
        // Order: by slot when mapped (unplaced processes last, by rank).
        self.order = if self.by_mapping {
            let mut o: Vec<(u64, u32)> = (0..n)
                .map(|p| {
                    let s = model.placement.get(p).copied().flatten();
                    (
                        s.map(|s| s as u64).unwrap_or(u64::MAX / 2 + p as u64),
                        p as u32,
                    )
                })
                .collect();
            o.sort_unstable();
            o.into_iter().map(|(_, p)| p).collect()
        } else {
            (0..n as u32).collect()
        };
        let mut pos = vec![0u32; n];
        for (i, &p) in self.order.iter().enumerate() {
            pos[p as usize] = i as u32;
        }
        let k = n.clamp(1, MAX_PIXELS);
        self.k = k;
        self.bins = vec![0.0; k * k];
        let counts = g.msg_counts().filter(|_| self.by_messages);
        self.msgs_shown = counts.is_some();
        let off = g.offsets();
        for u in 0..n {
            for (j, (&v, &b)) in g.neighbors(u).iter().zip(g.sent_row(u)).enumerate() {
                let x = counts.map_or(b, |m| m[off[u] + j]);
                if !(x > 0.0) {
                    continue;
                }
                let r = pos[u] as usize * k / n.max(1);
                let c = pos[v as usize] as usize * k / n.max(1);
                self.bins[r * k + c] += x;
            }
        }
        let hi = self.bins.iter().cloned().fold(0.0, f64::max);
        let lo = self
            .bins
            .iter()
            .cloned()
            .filter(|&x| x > 0.0)
            .fold(hi, f64::min);
        (self.lo, self.hi) = (lo, hi);
        let pixels: Vec<Color32> = self.bins.iter().map(|&b| self.color(b)).collect();
        ColorImage::new([k, k], pixels)
    }

    /// A bin's colour: inferno on a log scale from `lo` to `hi`.
    fn color(&self, b: f64) -> Color32 {
        if b > 0.0 {
            inferno(0.15 + 0.85 * log_scale(b, self.lo * 0.9, self.hi))
        } else {
            Color32::from_gray(12)
        }
    }

    /// The side of the drawn matrix in cells (bins when aggregated).
    pub fn cells_side(&self) -> usize {
        self.k
    }

    /// The non-empty cells (bins when aggregated).
    pub fn nonempty_cells(&self) -> usize {
        self.bins.iter().filter(|&&b| b > 0.0).count()
    }

    /// Complete an export's capture (the texture is left out of it): one
    /// rectangle per non-empty cell where it was drawn, those meeting the
    /// canvas (a `<g class="cells">`), under the labels, then the legend.
    pub fn add_cells(&self, cap: &mut super::export::Capture) {
        use super::export::Prim;
        let k = self.k;
        if k == 0 || !self.img_rect.is_positive() {
            return;
        }
        let cell = self.img_rect.width() / k as f32;
        let mut prims = vec![Prim::Group("cells")];
        for r in 0..k {
            for c in 0..k {
                let b = self.bins[r * k + c];
                if b <= 0.0 {
                    continue;
                }
                let rect = Rect::from_min_size(
                    self.img_rect.min + vec2(c as f32 * cell, r as f32 * cell),
                    Vec2::splat(cell),
                );
                if rect.intersects(cap.canvas) {
                    prims.push(Prim::Rect {
                        rect,
                        fill: self.color(b),
                        stroke: (0.0, Color32::TRANSPARENT),
                        class: "cell",
                    });
                }
            }
        }
        prims.push(Prim::End);
        cap.prims.splice(0..0, prims);
        let (lo, hi) = (self.lo, self.hi);
        let what = self.unit();
        super::export::add_legend(
            cap,
            &[&if self.aggregated() {
                format!("{what} per bin (log scale)")
            } else {
                format!("{what} sent (log scale)")
            }],
            &self.fmt(lo),
            &self.fmt(hi),
            24,
            |t| {
                // The same map as the cells: t spans lo … hi on a log scale.
                let b = if lo > 0.0 && hi > lo {
                    lo * (hi / lo).powf(t as f64)
                } else {
                    hi
                };
                self.color(b)
            },
        );
    }

    /// What the cells count: `bytes` or `messages`.
    fn unit(&self) -> &'static str {
        if self.showing_messages() {
            "messages"
        } else {
            "bytes"
        }
    }

    fn showing_messages(&self) -> bool {
        self.msgs_shown
    }

    fn fmt(&self, x: f64) -> String {
        if self.showing_messages() {
            format!("{x} messages")
        } else {
            fmt_bytes(x)
        }
    }

    fn aggregated(&self) -> bool {
        self.k > 0 && self.k < self.order.len()
    }
}

impl View for MatrixView {
    type Input<'a> = &'a mut Model;
    type Output = ();

    fn title(&self) -> &'static str {
        "Matrix"
    }

    fn ui(&mut self, ui: &mut egui::Ui, model: Self::Input<'_>) -> Self::Output {
        ui.horizontal(|ui| {
            ui.strong("Communication matrix");
            ui.label("order by");
            ui.selectable_value(&mut self.by_mapping, false, "rank");
            ui.selectable_value(&mut self.by_mapping, true, "mapping (node, core)");
            if model.graph.msg_counts().is_some() {
                ui.label("colour by");
                ui.selectable_value(&mut self.by_messages, false, "bytes");
                ui.selectable_value(&mut self.by_messages, true, "messages")
                    .on_hover_text("messages sent row -> column, as the input counted them");
            }
            if ui.button("Reset zoom").clicked() {
                self.zoom = 1.0;
                self.pan = Vec2::ZERO;
            }
        });
        let key = (
            model.graph.generation(),
            if self.by_mapping {
                model.placement.generation()
            } else {
                0
            },
            model.topo.generation(),
            self.by_mapping,
            self.by_messages && model.graph.msg_counts().is_some(),
        );
        if self.key != key || self.tex.is_none() {
            self.key = key;
            let img = self.build(model);
            match &mut self.tex {
                Some(t) => t.set(img, TextureOptions::NEAREST),
                None => {
                    self.tex = Some(ui.ctx().load_texture(
                        "comm_matrix",
                        img,
                        TextureOptions::NEAREST,
                    ))
                }
            }
        }
        let (resp, painter) = ui.allocate_painter(ui.available_size(), Sense::click_and_drag());
        let rect = resp.rect;
        painter.rect_filled(rect, 4.0, Color32::from_gray(14));
        let side = (rect.width().min(rect.height()) - 40.0).max(10.0) * self.zoom;
        if resp.dragged() {
            self.pan += resp.drag_delta();
        }
        if resp.hovered() {
            let s = ui.input(|i| i.smooth_scroll_delta.y);
            if s != 0.0 {
                let f = (s / 200.0).exp();
                if let Some(p) = resp.hover_pos() {
                    let before = p - (rect.center() + self.pan);
                    self.pan += before - before * f;
                }
                self.zoom = (self.zoom * f).clamp(0.2, 100.0);
            }
        }
        let img_rect = Rect::from_center_size(rect.center() + self.pan, Vec2::splat(side));
        self.img_rect = img_rect;
        let painter = painter.with_clip_rect(rect);
        if let Some(t) = &self.tex {
            painter.image(
                t.id(),
                img_rect,
                Rect::from_min_max(pos2(0.0, 0.0), pos2(1.0, 1.0)),
                Color32::WHITE,
            );
        }
        painter.rect_stroke(
            img_rect,
            0.0,
            egui::Stroke::new(1.0, Color32::from_gray(90)),
            egui::StrokeKind::Outside,
        );
        let n = model.graph.n();
        painter.text(
            rect.left_bottom() + vec2(6.0, -6.0),
            egui::Align2::LEFT_BOTTOM,
            format!(
                "{n}×{n} {} sent row -> column, log colour scale{}  ·  wheel zoom, drag pan",
                self.unit(),
                if self.k < n {
                    format!(", {}×{} bins", self.k, self.k)
                } else {
                    String::new()
                }
            ),
            egui::FontId::proportional(11.0),
            Color32::from_gray(150),
        );
        if let Some(hp) = resp.hover_pos()
            && img_rect.contains(hp)
            && self.k > 0
            && n > 0
        {
            let fx = ((hp.x - img_rect.min.x) / img_rect.width()).clamp(0.0, 0.9999);
            let fy = ((hp.y - img_rect.min.y) / img_rect.height()).clamp(0.0, 0.9999);
            let (c, r) = ((fx * self.k as f32) as usize, (fy * self.k as f32) as usize);
            let b = self.bins.get(r * self.k + c).copied().unwrap_or(0.0);
            let text = if self.k == n {
                let (u, v) = (self.order[r] as usize, self.order[c] as usize);
                let msgs = model
                    .graph
                    .msgs_between(u, v)
                    .map(|m| format!(" in {m} messages"))
                    .unwrap_or_default();
                format!(
                    "process {u} -> process {v}: {}{msgs}\n(row {r}, column {c})",
                    fmt_bytes(model.graph.sent_between(u, v))
                )
            } else {
                let span = |i: usize| {
                    (
                        i * n / self.k,
                        ((i + 1) * n / self.k).max(i * n / self.k + 1) - 1,
                    )
                };
                let (r0, r1) = span(r);
                let (c0, c1) = span(c);
                format!("positions {r0}–{r1} -> {c0}–{c1}: {}", self.fmt(b))
            };
            resp.on_hover_text_at_pointer(text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hopmap_core::graph::GraphBuilder;
    use hopmap_core::topology::Topology;

    #[test]
    fn bins_sum_to_total_and_follow_the_mapping_order() {
        let mut b = GraphBuilder::new(4, true);
        b.add(0, 3, 5.0);
        b.add(3, 0, 1.0);
        b.add(1, 2, 2.0);
        let g = b.build().unwrap();
        let mut m = Model::new(g, "t", Topology::parse("mesh:4").unwrap());
        m.placement.set(vec![Some(0), Some(2), Some(3), Some(1)]);
        let mut v = MatrixView::new(true);
        let img = v.build(&m);
        assert_eq!(img.size, [4, 4]);
        assert_eq!(v.order, vec![0, 3, 1, 2]);
        assert_eq!(v.bins.iter().sum::<f64>(), 8.0);
        // 0 -> 3 sits at (row 0, column 1) in mapping order.
        assert_eq!(v.bins[1], 5.0);
        v.by_mapping = false;
        v.build(&m);
        assert_eq!(v.bins[3], 5.0);
    }
}
