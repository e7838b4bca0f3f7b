//! PNG bar charts for experiment reports ([`crate::report`]), drawn with the
//! `image` crate; their text is real text: the app's own proportional font
//! (Ubuntu Light, shipped by `epaint_default_fonts`, with Hack for the few
//! characters it lacks), rasterised with anti-aliasing by `ab_glyph`.
//! Same layout as the SVG charts: one horizontal bar per entry in the given
//! order, its name on the left and its value after the bar, the first (best)
//! bar in green. Cost: O(width × height) pixels, plus O(pixels of a glyph)
//! per character.

use crate::error::{Error, Result};
use crate::report::Bar;
use ab_glyph::{Font as _, FontRef, GlyphId, PxScale, ScaleFont as _};
use image::{Rgb, RgbImage};
use std::sync::OnceLock;

/// Height in pixels of the charts' text (the font's ascent to descent).
pub const TEXT_PX: f32 = 17.0;

/// The fonts, first choice first: Ubuntu Light, then Hack. A font that
/// does not parse (it is built in, so never in practice) is left out.
fn fonts() -> &'static [FontRef<'static>] {
    static FONTS: OnceLock<Vec<FontRef<'static>>> = OnceLock::new();
    FONTS.get_or_init(|| {
        [
            epaint_default_fonts::UBUNTU_LIGHT,
            epaint_default_fonts::HACK_REGULAR,
        ]
        .into_iter()
        .filter_map(|bytes| FontRef::try_from_slice(bytes).ok())
        .collect()
    })
}

/// The font that has a glyph for `c` and that glyph (the first font's
/// missing-glyph box when none has it).
fn glyph_for(c: char) -> Option<(&'static FontRef<'static>, GlyphId)> {
    let fonts = fonts();
    fonts
        .iter()
        .find_map(|f| {
            let id = f.glyph_id(c);
            (id.0 != 0).then_some((f, id))
        })
        .or_else(|| fonts.first().map(|f| (f, f.glyph_id(c))))
}

/// The characters of `text` that no font has (they would print as the
/// missing-glyph box); white space is never missing.
pub fn missing_glyphs(text: &str) -> Vec<char> {
    text.chars()
        .filter(|c| !c.is_whitespace())
        .filter(|&c| glyph_for(c).is_none_or(|(_, id)| id.0 == 0))
        .collect()
}

/// Each character's glyph and pen position (x from the start of the text),
/// kerned within one font, and the total advance.
fn layout(text: &str, px: f32) -> (Vec<(&'static FontRef<'static>, GlyphId, f32)>, f32) {
    let scale = PxScale::from(px);
    let mut out = Vec::new();
    let mut x = 0.0f32;
    let mut prev: Option<(&FontRef<'static>, GlyphId)> = None;
    for c in text.chars() {
        let Some((font, id)) = glyph_for(c) else {
            continue;
        };
        let sf = font.as_scaled(scale);
        if let Some((pf, pid)) = prev
            && std::ptr::eq(pf, font)
        {
            x += sf.kern(pid, id);
        }
        out.push((font, id, x));
        x += sf.h_advance(id);
        prev = Some((font, id));
    }
    (out, x)
}

/// Width in pixels of `text` at the charts' size ([`TEXT_PX`]).
pub fn text_width(text: &str) -> u32 {
    text_width_px(text, TEXT_PX)
}

/// Width in pixels of `text` at `px` pixels high.
pub fn text_width_px(text: &str, px: f32) -> u32 {
    layout(text, px).1.ceil() as u32
}

/// Draw `text` at the charts' size ([`TEXT_PX`]) with its top-left corner
/// at (x, y).
pub fn draw_text(img: &mut RgbImage, x: u32, y: u32, text: &str, color: Rgb<u8>) {
    draw_text_px(img, x, y, text, color, TEXT_PX);
}

/// Draw `text`, `px` pixels high, with its top-left corner at (x, y),
/// blending the glyphs' coverage over the image; pixels outside the image
/// are skipped.
pub fn draw_text_px(img: &mut RgbImage, x: u32, y: u32, text: &str, color: Rgb<u8>, px: f32) {
    let scale = PxScale::from(px);
    let (glyphs, _) = layout(text, px);
    for (font, id, gx) in glyphs {
        let ascent = font.as_scaled(scale).ascent();
        let glyph =
            id.with_scale_and_position(scale, ab_glyph::point(x as f32 + gx, y as f32 + ascent));
        let Some(outline) = font.outline_glyph(glyph) else {
            continue;
        };
        let b = outline.px_bounds();
        outline.draw(|dx, dy, cov| {
            let (px, py) = (b.min.x as i64 + dx as i64, b.min.y as i64 + dy as i64);
            if cov <= 0.0 || px < 0 || py < 0 {
                return;
            }
            let (px, py) = (px as u32, py as u32);
            if px >= img.width() || py >= img.height() {
                return;
            }
            let a = cov.min(1.0);
            let p = img.get_pixel_mut(px, py);
            for (c, v) in p.0.iter_mut().zip(color.0) {
                *c = (*c as f32 * (1.0 - a) + v as f32 * a).round() as u8;
            }
        });
    }
}

/// Colour of the best (first) bar and of the others.
pub const BEST: Rgb<u8> = Rgb([0x2b, 0x7a, 0x3d]);
pub const BAR: Rgb<u8> = Rgb([0x4a, 0x78, 0xb0]);
const INK: Rgb<u8> = Rgb([0x10, 0x10, 0x10]);

/// Geometry of a chart: row height, top margin, label column, plot width.
pub const ROW: u32 = 28;
pub const TOP: u32 = 44;
pub const PLOT: u32 = 460;

/// The left label column's width for these names.
pub fn label_width(bars: &[Bar]) -> u32 {
    bars.iter().map(|b| text_width(&b.name)).max().unwrap_or(0) + 16
}

/// A horizontal bar chart as PNG bytes, each bar with its name and label.
pub fn bar_chart_png(title: &str, bars: &[Bar]) -> Result<Vec<u8>> {
    let left = label_width(bars);
    let vw = bars.iter().map(|b| text_width(&b.label)).max().unwrap_or(0);
    let width = (left + PLOT + vw + 24).max(text_width(title) + 20);
    let height = TOP + ROW * bars.len() as u32 + 12;
    let mut img = RgbImage::from_pixel(width, height, Rgb([255, 255, 255]));
    draw_text(&mut img, 10, 12, title, INK);
    let max = bars
        .iter()
        .map(|b| b.value)
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max);
    for (
        i,
        Bar {
            name,
            value: v,
            label,
        },
    ) in bars.iter().enumerate()
    {
        let y = TOP + ROW * i as u32;
        let w = if max > 0.0 && v.is_finite() {
            ((v / max * PLOT as f64).round() as u32).clamp(1, PLOT)
        } else {
            1
        };
        draw_text(&mut img, left - 8 - text_width(name), y + 7, name, INK);
        let fill = if i == 0 { BEST } else { BAR };
        for py in y + 4..y + ROW - 4 {
            for px in left..left + w {
                img.put_pixel(px, py, fill);
            }
        }
        draw_text(&mut img, left + w + 8, y + 7, label, INK);
    }
    let mut out = Vec::new();
    image::codecs::png::PngEncoder::new(&mut out)
        .write_image(img.as_raw(), width, height, image::ExtendedColorType::Rgb8)
        .map_err(|e| Error::Unsupported(format!("PNG encoding: {e}")))?;
    Ok(out)
}

use image::ImageEncoder as _;

#[cfg(test)]
mod tests {
    use super::*;

    /// The pixels `text` inks on a white image, as a mask.
    fn ink_mask(text: &str) -> Vec<bool> {
        let mut img = RgbImage::from_pixel(text_width(text) + 4, 30, Rgb([255, 255, 255]));
        draw_text(&mut img, 2, 4, text, INK);
        img.pixels().map(|p| p.0[0] < 200).collect()
    }

    #[test]
    fn middle_dot_and_apostrophe_are_real_glyphs_not_question_marks() {
        // Every character of a chart's title and labels has a glyph.
        let label = "gravity·greedy on Kale's torus: 3×4 − 1 ≤ Σ µs";
        assert_eq!(missing_glyphs(label), Vec::<char>::new());
        // "·" and "'" are drawn, each differently from "?".
        let q = ink_mask("a?b");
        for c in ["a·b", "a'b", "a’b"] {
            let m = ink_mask(c);
            assert!(m.iter().any(|&p| p), "{c} draws something");
            assert_ne!(m, q, "{c} is not drawn as a?b");
        }
        // A middle dot is small: far less ink than a question mark.
        let ink = |t: &str| ink_mask(t).iter().filter(|&&p| p).count();
        assert!(ink("·") * 3 < ink("?"), "{} vs {}", ink("·"), ink("?"));
        // Lower case is lower case: "a" and "A" differ.
        assert_ne!(ink_mask("a"), ink_mask("A"));
        // A character no font has is reported.
        assert_eq!(missing_glyphs("a\u{10FFFD}b"), vec!['\u{10FFFD}']);
    }

    #[test]
    fn text_width_grows_with_the_text_and_is_proportional() {
        assert_eq!(text_width(""), 0);
        assert!(text_width("ab") > text_width("a"));
        // A proportional font: "i" is narrower than "W".
        assert!(text_width("iiii") < text_width("WWWW"));
    }

    #[test]
    fn every_bar_is_drawn_with_its_name_and_value() {
        let bars: Vec<Bar> = [("mht", 10.0), ("default", 40.0), ("random", 20.0)]
            .into_iter()
            .map(|(n, v)| Bar {
                name: n.to_string(),
                value: v,
                label: format!("{v}"),
            })
            .collect();
        let png = bar_chart_png("hop-bytes", &bars).unwrap();
        let img = image::load_from_memory(&png).unwrap().to_rgb8();
        let left = label_width(&bars);
        assert_eq!(img.height(), TOP + 3 * ROW + 12);
        for (i, Bar { name, value: v, .. }) in bars.iter().enumerate() {
            let y = TOP + ROW * i as u32 + ROW / 2;
            // The bar: its length is proportional to the value (max 40 → PLOT).
            let fill = if i == 0 { BEST } else { BAR };
            let len = (left..img.width())
                .take_while(|&x| *img.get_pixel(x, y) == fill)
                .count() as u32;
            assert_eq!(len, (v / 40.0 * PLOT as f64).round() as u32, "{name}");
            // Ink left of the bar (the name) and right of it (the value).
            let ink = |x0: u32, x1: u32| {
                (x0..x1)
                    .flat_map(|x| (y - 7..y + 7).map(move |yy| (x, yy)))
                    .filter(|&(x, yy)| img.get_pixel(x, yy).0[0] < 128)
                    .count()
            };
            assert!(ink(left - 8 - text_width(name), left - 8) > 10, "{name}");
            assert!(
                ink(left + len + 8, left + len + 8 + text_width(&format!("{v}"))) > 5,
                "{name}"
            );
        }
    }
}
