//! Export of the graph, network, matrix and difference views as SVG
//! (vectors, for papers) and as PNG at 2× resolution.
//!
//! Both walk the shapes the view's painter drew this frame: the app marks
//! the paint list before a view draws ([`mark`]) and, when an export was
//! requested for that view, takes the shapes after it ([`Export::capture`]).
//! The view's canvas starts with its background rectangle; every shape
//! from there that meets the canvas is converted to a primitive
//! ([`Prim`]): the views' meshes are split back into what was appended to
//! them — a link segment (a quad from `add_segment`) becomes one SVG
//! `<line>`, a node disc one `<circle>`, a square one `<rect>` — and line
//! segments, circles, rectangles, paths and text become their SVG
//! elements. So the SVG has one element per drawn link and node. The PNG
//! rasterises the same primitives at twice the canvas size, its labels with
//! the app's own fonts (egui's glyph atlas, [`render_texts`]). Every export
//! gets a title band (graph, network, mapping, hop-bytes: [`add_title`])
//! and loses the window's interaction hints ([`strip_hints`]). Files are
//! written through the atomic-write helper.
//!
//! The matrix view draws a texture, which is no vector: its capture leaves
//! textured meshes out and the view adds one rectangle per non-empty cell
//! (per bin when the matrix is drawn aggregated, see
//! the matrix view's `add_cells`) and its colour legend.
//! The difference view's capture is its change pane (one `<line>` per drawn
//! link) with the diverging legend added ([`add_legend`]): colour bars are
//! rectangles, their labels `<text>`.
//!
//! Cost: O(shapes of the view) when an export is requested, O(1) otherwise;
//! the PNG is O(pixels covered).

use egui::epaint::{ClippedShape, Mesh};
use egui::{Color32, Pos2, Rect, Shape};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Which view to export.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewKind {
    Graph,
    Network,
    /// The communication matrix.
    Matrix,
    /// The change pane of the Compare tab's difference view.
    Difference,
}

/// The file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Svg,
    /// PNG at 2× the view's size.
    Png2x,
}

/// One drawn thing, in screen points.
#[derive(Clone, Debug, PartialEq)]
pub enum Prim {
    /// A segment of width `w` (a link, an edge, an overlay line).
    Line {
        a: Pos2,
        b: Pos2,
        w: f32,
        color: Color32,
        class: &'static str,
    },
    /// A disc or ring; `class` is `disc` for a mesh's node disc, else `circle`.
    Circle {
        c: Pos2,
        r: f32,
        fill: Color32,
        stroke: (f32, Color32),
        class: &'static str,
    },
    /// `class` is `square` for a mesh's square, else `rect`.
    Rect {
        rect: Rect,
        fill: Color32,
        stroke: (f32, Color32),
        class: &'static str,
    },
    /// A filled convex polygon (a triangle of a mesh that is none of the above).
    Poly { pts: Vec<Pos2>, fill: Color32 },
    /// An open polyline.
    Polyline {
        pts: Vec<Pos2>,
        w: f32,
        color: Color32,
    },
    Text {
        pos: Pos2,
        text: String,
        size: f32,
        color: Color32,
    },
    /// The start of one mesh's pieces (an SVG group `<g class="mesh">`).
    Begin,
    /// The start of a named group (`<g class="NAME">`: `cells`, `legend`).
    Group(&'static str),
    /// The end of a group.
    End,
}

/// What a view drew: its canvas and its primitives, in drawing order.
#[derive(Clone, Debug)]
pub struct Capture {
    pub canvas: Rect,
    pub background: Color32,
    pub prims: Vec<Prim>,
}

/// A pending export request and the last result.
#[derive(Default)]
pub struct Export {
    pub request: Option<(ViewKind, Format, PathBuf)>,
    /// The last export's result (the path written, or an error).
    pub last: Option<Result<PathBuf, String>>,
    /// The last capture (tests read it).
    pub captured: Option<Capture>,
    /// The title every export carries (graph, network, mapper, hop-bytes);
    /// the app sets it each frame.
    pub title: String,
}

/// Where the paint list of `ui`'s layer stands now.
pub fn mark(ui: &egui::Ui) -> usize {
    let layer = ui.layer_id();
    ui.ctx()
        .graphics(|g| g.get(layer).map_or(0, |l| l.next_idx().0))
}

impl Export {
    /// Ask for an export of `view` at the next frame that draws it.
    pub fn ask(&mut self, view: ViewKind, format: Format, path: PathBuf) {
        self.request = Some((view, format, path));
    }

    /// Whether an export of `view` is waiting.
    pub fn wants(&self, view: ViewKind) -> bool {
        self.request.as_ref().is_some_and(|r| r.0 == view)
    }

    /// After `view` drew on `ui` (from paint-list index `from`): if an
    /// export of it is waiting, convert its shapes and write the file.
    pub fn capture(&mut self, ui: &egui::Ui, from: usize, view: ViewKind) {
        self.capture_with(ui, from, None, view, |_| {});
    }

    /// As [`Export::capture`], of the paint list from `from` up to `to`
    /// (to the end when `None`); `fix` completes the capture before it is
    /// written (a view's cells, a legend).
    pub fn capture_with(
        &mut self,
        ui: &egui::Ui,
        from: usize,
        to: Option<usize>,
        view: ViewKind,
        fix: impl FnOnce(&mut Capture),
    ) {
        if !self.wants(view) {
            return;
        }
        let Some((_, format, path)) = self.request.take() else {
            return;
        };
        let layer = ui.layer_id();
        let shapes: Vec<ClippedShape> = ui.ctx().graphics(|g| {
            g.get(layer).map_or_else(Vec::new, |l| {
                let take = to.map_or(usize::MAX, |t| t.saturating_sub(from));
                l.all_entries().skip(from).take(take).cloned().collect()
            })
        });
        let mut cap = capture_shapes(&shapes);
        fix(&mut cap);
        strip_hints(&mut cap);
        wrap_texts(&mut cap);
        add_title(&mut cap, &self.title);
        let r = match format {
            Format::Svg => {
                hopmap_core::io::atomic::write_bytes_atomic(&path, to_svg(&cap).as_bytes())
                    .map_err(|e| e.to_string())
            }
            Format::Png2x => {
                let texts = render_texts(ui.ctx(), &cap, 2.0);
                write_png_with(&path, &cap, 2.0, Some(&texts))
            }
        };
        self.last = Some(r.map(|()| path));
        self.captured = Some(cap);
    }
}

/// Remove the interaction hints ("drag rotates", "click a node: …") from
/// the texts of a capture: they are the window's, not the figure's. Texts
/// are " · "-separated notes; the notes naming a drag, the wheel, a click
/// or a hover are dropped.
pub fn strip_hints(cap: &mut Capture) {
    let hint = |n: &str| {
        let l = n.to_lowercase();
        l.contains("drag") || l.contains("wheel") || l.contains("click") || l.contains("hover")
    };
    cap.prims.retain_mut(|p| match p {
        Prim::Text { text, .. } => {
            let kept: Vec<&str> = text.split(" · ").filter(|n| !hint(n)).collect();
            *text = kept.join(" · ");
            !text.trim().is_empty()
        }
        _ => true,
    });
}

/// Break every text wider than the canvas (a legend's note, which the
/// window wraps) into lines at word boundaries, each a text of its own one
/// line height below the last, measured in the app's proportional font
/// ([`hopmap_core::report_png::text_width_px`]). O(characters).
pub fn wrap_texts(cap: &mut Capture) {
    let right = cap.canvas.max.x - 16.0;
    let prims = std::mem::take(&mut cap.prims);
    for p in prims {
        let Prim::Text {
            pos,
            text,
            size,
            color,
        } = &p
        else {
            cap.prims.push(p);
            continue;
        };
        let width = |t: &str| hopmap_core::report_png::text_width_px(t, *size) as f32;
        let room = right - pos.x;
        if room <= 0.0 || width(text) <= room {
            cap.prims.push(p);
            continue;
        }
        let mut lines: Vec<String> = Vec::new();
        let mut line = String::new();
        for word in text.split(' ') {
            let candidate = if line.is_empty() {
                word.to_string()
            } else {
                format!("{line} {word}")
            };
            if width(&candidate) > room && !line.is_empty() {
                lines.push(std::mem::replace(&mut line, word.to_string()));
            } else {
                line = candidate;
            }
        }
        lines.push(line);
        for (k, l) in lines.into_iter().enumerate() {
            cap.prims.push(Prim::Text {
                pos: *pos + egui::vec2(0.0, k as f32 * size * 1.3),
                text: l,
                size: *size,
                color: *color,
            });
        }
    }
}

/// Height of the title band added above an exported view.
pub const TITLE_BAND: f32 = 26.0;

/// Put `title` in a band above the capture's canvas (nothing when empty).
pub fn add_title(cap: &mut Capture, title: &str) {
    if title.is_empty() {
        return;
    }
    let band = Rect::from_min_max(
        cap.canvas.min - egui::vec2(0.0, TITLE_BAND),
        egui::pos2(cap.canvas.max.x, cap.canvas.min.y),
    );
    cap.canvas = Rect::from_min_max(band.min, cap.canvas.max);
    let head = [
        Prim::Group("title"),
        Prim::Rect {
            rect: band,
            fill: cap.background,
            stroke: (0.0, Color32::TRANSPARENT),
            class: "title",
        },
        Prim::Text {
            pos: band.min + egui::vec2(8.0, 6.0),
            text: title.to_string(),
            size: 14.0,
            color: Color32::from_gray(235),
        },
        Prim::End,
    ];
    // Last, so that the view's own groups keep their order.
    cap.prims.extend(head);
}

/// Convert a view's shapes: from its canvas (the first large filled
/// rectangle) on, those that meet the canvas.
pub fn capture_shapes(shapes: &[ClippedShape]) -> Capture {
    let start = shapes.iter().position(|c| {
        matches!(&c.shape, Shape::Rect(r) if r.rect.width() >= 50.0 && r.rect.height() >= 50.0 && r.fill.a() == 255)
    });
    let Some(start) = start else {
        return Capture {
            canvas: Rect::NOTHING,
            background: Color32::BLACK,
            prims: Vec::new(),
        };
    };
    let (canvas, background) = match &shapes[start].shape {
        Shape::Rect(r) => (r.rect, r.fill),
        _ => (Rect::NOTHING, Color32::BLACK),
    };
    let mut prims = Vec::new();
    for c in &shapes[start + 1..] {
        if !c.shape.visual_bounding_rect().intersects(canvas) {
            continue;
        }
        shape_prims(&c.shape, &mut prims);
    }
    Capture {
        canvas,
        background,
        prims,
    }
}

fn shape_prims(s: &Shape, out: &mut Vec<Prim>) {
    match s {
        Shape::Vec(v) => v.iter().for_each(|s| shape_prims(s, out)),
        Shape::LineSegment { points, stroke } => out.push(Prim::Line {
            a: points[0],
            b: points[1],
            w: stroke.width,
            color: stroke.color,
            class: "overlay",
        }),
        Shape::Circle(c) => out.push(Prim::Circle {
            c: c.center,
            r: c.radius,
            fill: c.fill,
            stroke: (c.stroke.width, c.stroke.color),
            class: "circle",
        }),
        Shape::Rect(r) => out.push(Prim::Rect {
            rect: r.rect,
            fill: r.fill,
            stroke: (r.stroke.width, r.stroke.color),
            class: "rect",
        }),
        Shape::Path(p) => {
            let color = match &p.stroke.color {
                egui::epaint::ColorMode::Solid(c) => *c,
                _ => Color32::GRAY,
            };
            if p.closed && p.fill.a() > 0 {
                out.push(Prim::Poly {
                    pts: p.points.clone(),
                    fill: p.fill,
                });
            } else {
                out.push(Prim::Polyline {
                    pts: p.points.clone(),
                    w: p.stroke.width,
                    color,
                });
            }
        }
        Shape::Text(t) => {
            let sec = t.galley.job.sections.first();
            let color = t
                .override_text_color
                .or_else(|| sec.map(|s| s.format.color))
                .filter(|c| *c != Color32::PLACEHOLDER)
                .unwrap_or(t.fallback_color);
            out.push(Prim::Text {
                pos: t.pos,
                text: t.galley.text().to_string(),
                size: sec.map_or(12.0, |s| s.format.font_id.size),
                color,
            });
        }
        // An image (the matrix's texture) is no vector: the view adds its
        // cells itself.
        Shape::Mesh(m) if m.texture_id != egui::TextureId::default() => {}
        Shape::Mesh(m) => {
            out.push(Prim::Begin);
            mesh_prims(m, out);
            out.push(Prim::End);
        }
        _ => {}
    }
}

/// Split a mesh into the pieces that were appended to it: a primitive is a
/// run of triangles over a contiguous range of vertices no earlier triangle
/// uses.
fn mesh_prims(m: &Mesh, out: &mut Vec<Prim>) {
    let v = &m.vertices;
    let tris: Vec<[u32; 3]> = m
        .indices
        .chunks_exact(3)
        .map(|t| [t[0], t[1], t[2]])
        .collect();
    let mut i = 0;
    while i < tris.len() {
        let lo = *tris[i].iter().min().unwrap_or(&0);
        let mut hi = *tris[i].iter().max().unwrap_or(&0);
        let mut j = i + 1;
        while j < tris.len()
            && *tris[j].iter().min().unwrap_or(&0) >= lo
            && *tris[j].iter().min().unwrap_or(&0) <= hi
        {
            hi = hi.max(*tris[j].iter().max().unwrap_or(&0));
            j += 1;
        }
        let group = &tris[i..j];
        let nv = (hi - lo + 1) as usize;
        let at = |k: u32| v[k as usize].pos;
        let col = v[lo as usize].color;
        if nv == 4 && group == [[lo, lo + 1, lo + 2], [lo, lo + 2, lo + 3]] {
            // add_segment: a+n, a−n, b−n, b+n.
            let (p0, p1, p2, p3) = (at(lo), at(lo + 1), at(lo + 2), at(lo + 3));
            out.push(Prim::Line {
                a: p0 + (p1 - p0) * 0.5,
                b: p3 + (p2 - p3) * 0.5,
                w: (p1 - p0).length(),
                color: col,
                class: "seg",
            });
        } else if nv == 4 && group == [[lo, lo + 1, lo + 2], [lo + 2, lo + 1, lo + 3]] {
            // add_colored_rect: left top, right top, left bottom, right bottom.
            out.push(Prim::Rect {
                rect: Rect::from_two_pos(at(lo), at(lo + 3)),
                fill: col,
                stroke: (0.0, Color32::TRANSPARENT),
                class: "square",
            });
        } else if nv >= 7 && group.len() == nv - 1 && group.iter().all(|t| t[0] == lo) {
            // A disc: the centre, then its rim.
            let c = at(lo);
            out.push(Prim::Circle {
                c,
                r: (at(lo + 1) - c).length(),
                fill: col,
                stroke: (0.0, Color32::TRANSPARENT),
                class: "disc",
            });
        } else {
            for t in group {
                out.push(Prim::Poly {
                    pts: vec![at(t[0]), at(t[1]), at(t[2])],
                    fill: v[t[0] as usize].color,
                });
            }
        }
        i = j;
    }
}

/// `fill="#rrggbb" fill-opacity=".."` for an attribute prefix.
/// The `fill` and (leading-space) `stroke` attributes of a shape: `none`
/// for a transparent fill, nothing for an invisible stroke.
fn fill_stroke(fill: Color32, stroke: (f32, Color32)) -> (String, String) {
    let f = if fill.a() > 0 {
        paint("fill", fill)
    } else {
        "fill=\"none\"".into()
    };
    let st = if stroke.0 > 0.0 && stroke.1.a() > 0 {
        format!(
            " stroke-width=\"{:.2}\" {}",
            stroke.0,
            paint("stroke", stroke.1)
        )
    } else {
        String::new()
    };
    (f, st)
}

fn paint(attr: &str, c: Color32) -> String {
    let [r, g, b, a] = c.to_srgba_unmultiplied();
    if a == 255 {
        format!("{attr}=\"#{r:02x}{g:02x}{b:02x}\"")
    } else {
        format!(
            "{attr}=\"#{r:02x}{g:02x}{b:02x}\" {attr}-opacity=\"{:.3}\"",
            a as f32 / 255.0
        )
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The SVG document: the canvas as its view box, one element per primitive.
pub fn to_svg(cap: &Capture) -> String {
    let r = cap.canvas;
    let (x0, y0) = (r.min.x, r.min.y);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" \
         version=\"1.1\" width=\"{w:.1}\" height=\"{h:.1}\" viewBox=\"0 0 {w:.1} {h:.1}\">",
        w = r.width(),
        h = r.height()
    );
    let _ = writeln!(
        s,
        "<rect class=\"background\" x=\"0\" y=\"0\" width=\"{:.1}\" height=\"{:.1}\" {}/>",
        r.width(),
        r.height(),
        paint("fill", cap.background)
    );
    let p = |q: Pos2| (q.x - x0, q.y - y0);
    for prim in &cap.prims {
        match prim {
            Prim::Line {
                a,
                b,
                w,
                color,
                class,
            } => {
                let ((ax, ay), (bx, by)) = (p(*a), p(*b));
                let _ = writeln!(
                    s,
                    "<line class=\"{class}\" x1=\"{ax:.2}\" y1=\"{ay:.2}\" x2=\"{bx:.2}\" \
                     y2=\"{by:.2}\" stroke-width=\"{w:.2}\" {}/>",
                    paint("stroke", *color)
                );
            }
            Prim::Circle {
                c,
                r,
                fill,
                stroke,
                class,
            } => {
                let (cx, cy) = p(*c);
                let (f, st) = fill_stroke(*fill, *stroke);
                let _ = writeln!(
                    s,
                    "<circle class=\"{class}\" cx=\"{cx:.2}\" cy=\"{cy:.2}\" r=\"{r:.2}\" {f}{st}/>"
                );
            }
            Prim::Rect {
                rect,
                fill,
                stroke,
                class,
            } => {
                let (x, y) = p(rect.min);
                let (f, st) = fill_stroke(*fill, *stroke);
                let _ = writeln!(
                    s,
                    "<rect class=\"{class}\" x=\"{x:.2}\" y=\"{y:.2}\" width=\"{:.2}\" \
                     height=\"{:.2}\" {f}{st}/>",
                    rect.width(),
                    rect.height()
                );
            }
            Prim::Poly { pts, fill } => {
                let v: Vec<String> = pts
                    .iter()
                    .map(|q| {
                        let (x, y) = p(*q);
                        format!("{x:.2},{y:.2}")
                    })
                    .collect();
                let _ = writeln!(
                    s,
                    "<polygon points=\"{}\" {}/>",
                    v.join(" "),
                    paint("fill", *fill)
                );
            }
            Prim::Polyline { pts, w, color } => {
                let v: Vec<String> = pts
                    .iter()
                    .map(|q| {
                        let (x, y) = p(*q);
                        format!("{x:.2},{y:.2}")
                    })
                    .collect();
                let _ = writeln!(
                    s,
                    "<polyline points=\"{}\" fill=\"none\" stroke-width=\"{w:.2}\" {}/>",
                    v.join(" "),
                    paint("stroke", *color)
                );
            }
            Prim::Text {
                pos,
                text,
                size,
                color,
            } => {
                let (x, y) = p(*pos);
                let _ = writeln!(
                    s,
                    "<text x=\"{x:.2}\" y=\"{:.2}\" font-family=\"sans-serif\" \
                     font-size=\"{size:.1}\" {}>{}</text>",
                    y + size * 0.85,
                    paint("fill", *color),
                    esc(text)
                );
            }
            Prim::Begin => s.push_str("<g class=\"mesh\">\n"),
            Prim::Group(name) => {
                let _ = writeln!(s, "<g class=\"{name}\">");
            }
            Prim::End => s.push_str("</g>\n"),
        }
    }
    s.push_str("</svg>\n");
    s
}

/// Rasterise a capture at `scale` × its size and write a PNG (labels in
/// the app's proportional font, drawn by [`hopmap_core::report_png`]; see
/// [`write_png_with`] for egui's own glyph atlas).
pub fn write_png(path: &Path, cap: &Capture, scale: f32) -> Result<(), String> {
    write_png_with(path, cap, scale, None)
}

/// A text of a capture rasterised with the app's own fonts: coverage per
/// output pixel, at its place in the output image.
#[derive(Clone, Debug)]
pub struct TextBitmap {
    pub x: i32,
    pub y: i32,
    pub w: usize,
    pub h: usize,
    pub alpha: Vec<u8>,
    pub color: Color32,
}

/// Rasterise every text of `cap` at `scale` with the fonts of `ctx` (the
/// same glyphs the window shows: egui's font atlas), one [`TextBitmap`]
/// each, in the order of the texts.
pub fn render_texts(ctx: &egui::Context, cap: &Capture, scale: f32) -> Vec<TextBitmap> {
    let ppp = ctx.pixels_per_point().max(0.1);
    let o = cap.canvas.min;
    let galleys: Vec<(Pos2, std::sync::Arc<egui::Galley>, Color32)> = cap
        .prims
        .iter()
        .filter_map(|p| match p {
            Prim::Text {
                pos,
                text,
                size,
                color,
            } => {
                let g = ctx.fonts_mut(|f| {
                    f.layout_no_wrap(
                        text.clone(),
                        egui::FontId::proportional(size * scale),
                        *color,
                    )
                });
                let at = Pos2::new((pos.x - o.x) * scale, (pos.y - o.y) * scale);
                Some((at, g, *color))
            }
            _ => None,
        })
        .collect();
    // The atlas after every layout (a layout may add glyphs to it).
    let atlas = ctx.fonts(|f| f.image());
    let [aw, ah] = atlas.size;
    galleys
        .into_iter()
        .map(|(at, g, color)| {
            let (w, h) = (
                g.size().x.ceil() as usize + 2,
                g.size().y.ceil() as usize + 2,
            );
            let mut alpha = vec![0u8; w * h];
            for row in &g.rows {
                for gl in &row.row.glyphs {
                    let uv = gl.uv_rect;
                    if uv.is_nothing() {
                        continue;
                    }
                    let lt = row.pos + gl.pos.to_vec2() + uv.offset;
                    let (gw, gh) = (uv.size.x.ceil() as i32, uv.size.y.ceil() as i32);
                    for dy in 0..gh {
                        for dx in 0..gw {
                            let tx = uv.min[0] as usize + (dx as f32 * ppp) as usize;
                            let ty = uv.min[1] as usize + (dy as f32 * ppp) as usize;
                            if tx >= uv.max[0] as usize
                                || ty >= uv.max[1] as usize
                                || tx >= aw
                                || ty >= ah
                            {
                                continue;
                            }
                            let a = atlas.pixels[ty * aw + tx].a();
                            let (x, y) = (lt.x.round() as i32 + dx, lt.y.round() as i32 + dy);
                            if x >= 0 && y >= 0 && (x as usize) < w && (y as usize) < h {
                                let k = y as usize * w + x as usize;
                                alpha[k] = alpha[k].max(a);
                            }
                        }
                    }
                }
            }
            TextBitmap {
                x: at.x.round() as i32,
                y: at.y.round() as i32,
                w,
                h,
                alpha,
                color,
            }
        })
        .collect()
}

/// [`write_png`] with the texts as `texts` rasterised them (None: the same
/// font drawn by [`hopmap_core::report_png`]).
pub fn write_png_with(
    path: &Path,
    cap: &Capture,
    scale: f32,
    texts: Option<&[TextBitmap]>,
) -> Result<(), String> {
    let img = rasterize_with(cap, scale, texts);
    hopmap_core::io::atomic::write_png(
        path,
        img.width(),
        img.height(),
        img.as_raw(),
        image::ExtendedColorType::Rgb8,
    )
    .map_err(|e| e.to_string())
}

/// Rasterise a capture at `scale` × its size (RGB, alpha blended; labels
/// in the app's proportional font, drawn by [`hopmap_core::report_png`]).
pub fn rasterize(cap: &Capture, scale: f32) -> image::RgbImage {
    rasterize_with(cap, scale, None)
}

/// [`rasterize`], with the texts drawn from `texts` (in the order of the
/// capture's texts) when given.
pub fn rasterize_with(cap: &Capture, scale: f32, texts: Option<&[TextBitmap]>) -> image::RgbImage {
    let mut next_text = 0usize;
    let w = (cap.canvas.width() * scale).round().max(1.0) as u32;
    let h = (cap.canvas.height() * scale).round().max(1.0) as u32;
    let [br, bg, bb, _] = cap.background.to_srgba_unmultiplied();
    let mut img = image::RgbImage::from_pixel(w, h, image::Rgb([br, bg, bb]));
    let o = cap.canvas.min;
    let tr = |q: Pos2| Pos2::new((q.x - o.x) * scale, (q.y - o.y) * scale);
    for prim in &cap.prims {
        match prim {
            Prim::Line {
                a, b, w: lw, color, ..
            } => line(&mut img, tr(*a), tr(*b), (lw * scale).max(1.0), *color),
            Prim::Circle {
                c, r, fill, stroke, ..
            } => {
                let (c, r) = (tr(*c), r * scale);
                if fill.a() > 0 {
                    disc(&mut img, c, r, None, *fill);
                }
                if stroke.0 > 0.0 && stroke.1.a() > 0 {
                    let sw = stroke.0 * scale;
                    disc(&mut img, c, r + sw * 0.5, Some(r - sw * 0.5), stroke.1);
                }
            }
            Prim::Rect {
                rect, fill, stroke, ..
            } => {
                let (a, b) = (tr(rect.min), tr(rect.max));
                if fill.a() > 0 {
                    poly(
                        &mut img,
                        &[a, Pos2::new(b.x, a.y), b, Pos2::new(a.x, b.y)],
                        *fill,
                    );
                }
                if stroke.0 > 0.0 && stroke.1.a() > 0 {
                    let sw = (stroke.0 * scale).max(1.0);
                    let c = [a, Pos2::new(b.x, a.y), b, Pos2::new(a.x, b.y), a];
                    for k in 0..4 {
                        line(&mut img, c[k], c[k + 1], sw, stroke.1);
                    }
                }
            }
            Prim::Poly { pts, fill } => {
                let v: Vec<Pos2> = pts.iter().map(|q| tr(*q)).collect();
                poly(&mut img, &v, *fill);
            }
            Prim::Polyline { pts, w: lw, color } => {
                for k in 1..pts.len() {
                    line(
                        &mut img,
                        tr(pts[k - 1]),
                        tr(pts[k]),
                        (lw * scale).max(1.0),
                        *color,
                    );
                }
            }
            Prim::Text {
                pos,
                text,
                size,
                color,
            } => {
                let k = next_text;
                next_text += 1;
                if let Some(t) = texts.and_then(|t| t.get(k)) {
                    blit_text(&mut img, t);
                    continue;
                }
                let q = tr(*pos);
                let [r, g, b, _] = color.to_srgba_unmultiplied();
                if q.x >= 0.0 && q.y >= 0.0 {
                    hopmap_core::report_png::draw_text_px(
                        &mut img,
                        q.x as u32,
                        q.y as u32,
                        text,
                        image::Rgb([r, g, b]),
                        size * scale,
                    );
                }
            }
            Prim::Begin | Prim::Group(_) | Prim::End => {}
        }
    }
    img
}

/// Blend a rasterised text into `img`.
fn blit_text(img: &mut image::RgbImage, t: &TextBitmap) {
    let (iw, ih) = (img.width() as i32, img.height() as i32);
    let [r, g, b, _] = t.color.to_srgba_unmultiplied();
    for y in 0..t.h as i32 {
        for x in 0..t.w as i32 {
            let a = t.alpha[y as usize * t.w + x as usize] as f32 / 255.0;
            let (px, py) = (t.x + x, t.y + y);
            if a <= 0.0 || px < 0 || py < 0 || px >= iw || py >= ih {
                continue;
            }
            let p = img.get_pixel_mut(px as u32, py as u32);
            for (c, v) in p.0.iter_mut().zip([r, g, b]) {
                *c = (*c as f32 * (1.0 - a) + v as f32 * a).round() as u8;
            }
        }
    }
}

/// Append a colour legend to a capture, at the canvas's bottom right: a
/// bar of `steps` rectangles under the `title` lines coloured `color(t)`, t from 0 to 1, on
/// a dark box, with `lo` and `hi` as `<text>` at its ends (a group
/// `<g class="legend">`).
pub fn add_legend(
    cap: &mut Capture,
    title: &[&str],
    lo: &str,
    hi: &str,
    steps: usize,
    color: impl Fn(f32) -> Color32,
) {
    let c = cap.canvas;
    if !c.is_positive() {
        return;
    }
    let (bar_w, bar_h, size) = (180.0_f32.min(c.width() * 0.5), 12.0, 11.0);
    let label_w = (lo.len().max(hi.len()) as f32) * size * 0.6;
    let lines = title.len() as f32;
    let title_w = title.iter().map(|t| t.chars().count()).max().unwrap_or(0) as f32 * size * 0.6;
    let w = (bar_w + 2.0 * label_w + 24.0).max(title_w + 12.0);
    let h = bar_h + size * (lines + 1.0) + 16.0;
    let min = Pos2::new((c.max.x - 8.0 - w).max(c.min.x), c.max.y - 8.0 - h);
    let text = Color32::from_gray(230);
    cap.prims.push(Prim::Group("legend"));
    cap.prims.push(Prim::Rect {
        rect: Rect::from_min_size(min, egui::vec2(w, h)),
        fill: Color32::from_rgba_unmultiplied(10, 10, 10, 220),
        stroke: (1.0, Color32::from_gray(90)),
        class: "legend-box",
    });
    for (i, t) in title.iter().enumerate() {
        cap.prims.push(Prim::Text {
            pos: min + egui::vec2(6.0, 4.0 + i as f32 * (size + 2.0)),
            text: t.to_string(),
            size,
            color: text,
        });
    }
    let y = min.y + lines * (size + 2.0) + 8.0;
    cap.prims.push(Prim::Text {
        pos: Pos2::new(min.x + 6.0, y),
        text: lo.to_string(),
        size,
        color: text,
    });
    let x0 = min.x + 12.0 + label_w;
    let steps = steps.max(2);
    let sw = bar_w / steps as f32;
    for k in 0..steps {
        cap.prims.push(Prim::Rect {
            rect: Rect::from_min_size(
                Pos2::new(x0 + k as f32 * sw, y),
                egui::vec2(sw + 0.3, bar_h),
            ),
            fill: color(k as f32 / (steps - 1) as f32),
            stroke: (0.0, Color32::TRANSPARENT),
            class: "legend-step",
        });
    }
    cap.prims.push(Prim::Text {
        pos: Pos2::new(x0 + bar_w + 6.0, y),
        text: hi.to_string(),
        size,
        color: text,
    });
    cap.prims.push(Prim::End);
}

fn blend(img: &mut image::RgbImage, x: i64, y: i64, c: Color32, cover: f32) {
    if x < 0 || y < 0 || x >= img.width() as i64 || y >= img.height() as i64 {
        return;
    }
    let [r, g, b, a] = c.to_srgba_unmultiplied();
    let t = (a as f32 / 255.0 * cover).clamp(0.0, 1.0);
    let px = img.get_pixel_mut(x as u32, y as u32);
    for (k, v) in [r, g, b].into_iter().enumerate() {
        px.0[k] = (px.0[k] as f32 * (1.0 - t) + v as f32 * t).round() as u8;
    }
}

/// A thick segment: a quad.
fn line(img: &mut image::RgbImage, a: Pos2, b: Pos2, w: f32, c: Color32) {
    let d = b - a;
    let len = d.length();
    if len < 1e-3 {
        return disc(img, a, w * 0.5, None, c);
    }
    let n = egui::vec2(-d.y, d.x) / len * (w * 0.5);
    poly(img, &[a + n, a - n, b - n, b + n], c);
}

/// A filled disc, or a ring when `inner` is given.
fn disc(img: &mut image::RgbImage, c: Pos2, r: f32, inner: Option<f32>, col: Color32) {
    let (x0, x1) = ((c.x - r).floor() as i64, (c.x + r).ceil() as i64);
    let (y0, y1) = ((c.y - r).floor() as i64, (c.y + r).ceil() as i64);
    for y in y0..=y1 {
        for x in x0..=x1 {
            let d = ((x as f32 + 0.5 - c.x).powi(2) + (y as f32 + 0.5 - c.y).powi(2)).sqrt();
            let mut cover = (r - d + 0.5).clamp(0.0, 1.0);
            if let Some(ri) = inner {
                cover = cover.min((d - ri + 0.5).clamp(0.0, 1.0));
            }
            if cover > 0.0 {
                blend(img, x, y, col, cover);
            }
        }
    }
}

/// A filled convex polygon (pixel centres inside).
fn poly(img: &mut image::RgbImage, pts: &[Pos2], c: Color32) {
    if pts.len() < 3 {
        return;
    }
    let (mut x0, mut x1, mut y0, mut y1) = (f32::MAX, f32::MIN, f32::MAX, f32::MIN);
    for p in pts {
        x0 = x0.min(p.x);
        x1 = x1.max(p.x);
        y0 = y0.min(p.y);
        y1 = y1.max(p.y);
    }
    let (w, h) = (img.width() as f32, img.height() as f32);
    let (x0, x1) = (x0.max(0.0).floor() as i64, x1.min(w).ceil() as i64);
    let (y0, y1) = (y0.max(0.0).floor() as i64, y1.min(h).ceil() as i64);
    // Orientation-independent inside test: all edge cross products share a sign.
    let inside = |q: Pos2| {
        let (mut pos, mut neg) = (false, false);
        for k in 0..pts.len() {
            let (a, b) = (pts[k], pts[(k + 1) % pts.len()]);
            let cr = (b - a).x * (q - a).y - (b - a).y * (q - a).x;
            pos |= cr > 0.0;
            neg |= cr < 0.0;
        }
        !(pos && neg)
    };
    for y in y0..y1 {
        for x in x0..x1 {
            if inside(Pos2::new(x as f32 + 0.5, y as f32 + 0.5)) {
                blend(img, x, y, c, 1.0);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::draw::add_segment;

    #[test]
    fn a_text_wider_than_the_canvas_wraps_into_lines_that_fit() {
        let note = "all 128 used links of 256: colour, width, opacity = bytes of the busier \
                    direction · grey = unused · colours = links between switches";
        let mut cap = Capture {
            canvas: Rect::from_min_size(Pos2::ZERO, egui::vec2(300.0, 200.0)),
            background: Color32::BLACK,
            prims: vec![
                Prim::Text {
                    pos: Pos2::new(8.0, 150.0),
                    text: note.into(),
                    size: 11.0,
                    color: Color32::GRAY,
                },
                Prim::Text {
                    pos: Pos2::new(8.0, 10.0),
                    text: "short".into(),
                    size: 11.0,
                    color: Color32::GRAY,
                },
            ],
        };
        wrap_texts(&mut cap);
        let texts: Vec<(Pos2, String)> = cap
            .prims
            .iter()
            .filter_map(|p| match p {
                Prim::Text { pos, text, .. } => Some((*pos, text.clone())),
                _ => None,
            })
            .collect();
        let (lines, rest) = texts.split_at(texts.len() - 1);
        assert_eq!(rest[0], (Pos2::new(8.0, 10.0), "short".to_string()));
        assert!(lines.len() >= 2, "{lines:?}");
        // The same words, in order; every line within the canvas; one line
        // height apart.
        let joined: Vec<String> = lines.iter().map(|l| l.1.clone()).collect();
        assert_eq!(joined.join(" "), note);
        for (k, (pos, l)) in lines.iter().enumerate() {
            assert!(
                hopmap_core::report_png::text_width_px(l, 11.0) as f32 <= 300.0 - 16.0,
                "{l}"
            );
            assert_eq!(*pos, Pos2::new(8.0, 150.0 + k as f32 * 11.0 * 1.3));
        }
    }

    /// As the network view builds its node discs (a decagon, or a square).
    fn add_disc(mesh: &mut Mesh, c: Pos2, r: f32, color: Color32, cheap: bool) {
        if cheap {
            mesh.add_colored_rect(Rect::from_center_size(c, egui::Vec2::splat(r * 1.8)), color);
            return;
        }
        let i0 = mesh.vertices.len() as u32;
        mesh.colored_vertex(c, color);
        for j in 0..10 {
            let a = j as f32 / 10.0 * std::f32::consts::TAU;
            mesh.colored_vertex(c + egui::vec2(a.cos(), a.sin()) * r, color);
        }
        for j in 0..10 {
            mesh.add_triangle(i0, i0 + 1 + j, i0 + 1 + (j + 1) % 10);
        }
    }

    #[test]
    fn meshes_split_back_into_segments_discs_and_squares() {
        let mut m = Mesh::default();
        add_segment(
            &mut m,
            Pos2::new(0.0, 0.0),
            Pos2::new(10.0, 0.0),
            2.0,
            Color32::RED,
        );
        add_disc(&mut m, Pos2::new(5.0, 5.0), 4.0, Color32::GREEN, false);
        add_disc(&mut m, Pos2::new(9.0, 9.0), 4.0, Color32::BLUE, true);
        add_segment(
            &mut m,
            Pos2::new(0.0, 10.0),
            Pos2::new(0.0, 20.0),
            1.0,
            Color32::WHITE,
        );
        let mut out = Vec::new();
        mesh_prims(&m, &mut out);
        assert_eq!(out.len(), 4, "{out:?}");
        match &out[0] {
            Prim::Line { a, b, w, .. } => {
                assert!(
                    (a.x - 0.0).abs() < 1e-4 && (b.x - 10.0).abs() < 1e-4 && (w - 2.0).abs() < 1e-4
                )
            }
            p => panic!("{p:?}"),
        }
        assert!(matches!(&out[1], Prim::Circle { r, .. } if (r - 4.0).abs() < 1e-4));
        assert!(matches!(&out[2], Prim::Rect { .. }));
        assert!(matches!(&out[3], Prim::Line { .. }));
        let cap = Capture {
            canvas: Rect::from_min_size(Pos2::ZERO, egui::vec2(30.0, 30.0)),
            background: Color32::BLACK,
            prims: out,
        };
        let svg = to_svg(&cap);
        assert_eq!(svg.matches("<line ").count(), 2);
        assert_eq!(svg.matches("<circle ").count(), 1);
        let img = rasterize(&cap, 2.0);
        assert_eq!((img.width(), img.height()), (60, 60));
        // The red segment covers (10, 0)·2 … ; the disc's centre is green.
        assert_eq!(img.get_pixel(10, 10).0, [0, 255, 0]);
        assert_eq!(img.get_pixel(10, 1).0, [255, 0, 0]);
    }
}
