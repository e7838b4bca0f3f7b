//! PNG bar charts for experiment reports ([`crate::report`]), drawn with the
//! `image` crate and a built-in 5×7 bitmap font (capitals, digits and a few
//! signs; lower case is drawn in capitals, other characters as `?`), scaled
//! 2× so that labels stay legible. Same layout as the SVG charts: one
//! horizontal bar per entry in the given order, its name on the left and its
//! value after the bar, the first (best) bar in green. Cost: O(width ×
//! height) pixels.

use crate::error::{Error, Result};
use image::{Rgb, RgbImage};

/// Rows of a 5×7 glyph, top first; bit 4 is the leftmost pixel.
pub fn glyph(c: char) -> [u8; 7] {
    match c.to_ascii_uppercase() {
        'A' => [0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11],
        'B' => [0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E],
        'C' => [0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E],
        'D' => [0x1E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x1E],
        'E' => [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F],
        'F' => [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10],
        'G' => [0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F],
        'H' => [0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11],
        'I' => [0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E],
        'J' => [0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C],
        'K' => [0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11],
        'L' => [0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F],
        'M' => [0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11],
        'N' => [0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11],
        'O' => [0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E],
        'P' => [0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10],
        'Q' => [0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D],
        'R' => [0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11],
        'S' => [0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E],
        'T' => [0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04],
        'U' => [0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E],
        'V' => [0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04],
        'W' => [0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A],
        'X' | '×' => [0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11],
        'Y' => [0x11, 0x11, 0x0A, 0x04, 0x04, 0x04, 0x04],
        'Z' => [0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F],
        '0' => [0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E],
        '1' => [0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E],
        '2' => [0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F],
        '3' => [0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E],
        '4' => [0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02],
        '5' => [0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E],
        '6' => [0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E],
        '7' => [0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
        '8' => [0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E],
        '9' => [0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C],
        '.' => [0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C],
        ',' => [0x00, 0x00, 0x00, 0x00, 0x0C, 0x04, 0x08],
        ':' => [0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x00],
        '-' | '−' => [0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00],
        '+' => [0x00, 0x04, 0x04, 0x1F, 0x04, 0x04, 0x00],
        '_' => [0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1F],
        '(' => [0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02],
        ')' => [0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08],
        '/' => [0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x00],
        '%' => [0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03],
        '*' => [0x00, 0x04, 0x15, 0x0E, 0x15, 0x04, 0x00],
        '=' => [0x00, 0x00, 0x1F, 0x00, 0x1F, 0x00, 0x00],
        ' ' => [0; 7],
        _ => [0x0E, 0x11, 0x01, 0x02, 0x04, 0x00, 0x04],
    }
}

/// Pixel scale of the font.
const SCALE: u32 = 2;
/// Horizontal advance of one character (5 pixels + 1 gap, scaled).
const ADVANCE: u32 = 6 * SCALE;

/// Width in pixels of `text`.
pub fn text_width(text: &str) -> u32 {
    text.chars().count() as u32 * ADVANCE
}

/// Draw `text` with its top-left corner at (x, y); pixels outside the image
/// are skipped.
pub fn draw_text(img: &mut RgbImage, x: u32, y: u32, text: &str, color: Rgb<u8>) {
    for (i, c) in text.chars().enumerate() {
        let g = glyph(c);
        let x0 = x + i as u32 * ADVANCE;
        for (row, bits) in g.iter().enumerate() {
            for col in 0..5u32 {
                if bits & (0x10 >> col) == 0 {
                    continue;
                }
                for dy in 0..SCALE {
                    for dx in 0..SCALE {
                        let (px, py) = (x0 + col * SCALE + dx, y + row as u32 * SCALE + dy);
                        if px < img.width() && py < img.height() {
                            img.put_pixel(px, py, color);
                        }
                    }
                }
            }
        }
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
pub fn label_width(bars: &[(String, f64)]) -> u32 {
    bars.iter().map(|(n, _)| text_width(n)).max().unwrap_or(0) + 16
}

/// A horizontal bar chart as PNG bytes; `fmt` labels each value.
pub fn bar_chart_png(
    title: &str,
    bars: &[(String, f64)],
    fmt: fn(f64) -> String,
) -> Result<Vec<u8>> {
    let left = label_width(bars);
    let values: Vec<String> = bars.iter().map(|b| fmt(b.1)).collect();
    let vw = values.iter().map(|v| text_width(v)).max().unwrap_or(0);
    let width = (left + PLOT + vw + 24).max(text_width(title) + 20);
    let height = TOP + ROW * bars.len() as u32 + 12;
    let mut img = RgbImage::from_pixel(width, height, Rgb([255, 255, 255]));
    draw_text(&mut img, 10, 12, title, INK);
    let max = bars
        .iter()
        .map(|b| b.1)
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max);
    for (i, ((name, v), label)) in bars.iter().zip(&values).enumerate() {
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

    #[test]
    fn glyphs_are_five_pixels_wide_and_case_blind() {
        assert_eq!(glyph('a'), glyph('A'));
        assert_eq!(glyph('A')[3], 0b11111);
        for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,:-+_()/%*=?".chars() {
            assert!(glyph(c).iter().all(|r| *r < 32), "{c}");
        }
        assert_ne!(glyph('~'), glyph('A'));
    }

    #[test]
    fn every_bar_is_drawn_with_its_name_and_value() {
        let bars = vec![
            ("mht".to_string(), 10.0),
            ("default".to_string(), 40.0),
            ("random".to_string(), 20.0),
        ];
        let png = bar_chart_png("hop-bytes", &bars, |v| format!("{v}")).unwrap();
        let img = image::load_from_memory(&png).unwrap().to_rgb8();
        let left = label_width(&bars);
        assert_eq!(img.height(), TOP + 3 * ROW + 12);
        for (i, (name, v)) in bars.iter().enumerate() {
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
                    .filter(|&(x, yy)| *img.get_pixel(x, yy) == INK)
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
