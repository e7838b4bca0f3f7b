//! Colour maps for the views: a perceptually uniform sequential map
//! (viridis, sampled at 17 stops from matplotlib's table and linearly
//! interpolated in sRGB), a categorical palette for clusters, and the
//! "network position" colouring that gives every network node a colour from
//! its grid coordinates so that the same colour means the same place in the
//! graph view and in the network view. O(1) per lookup.

use egui::Color32;

/// Viridis stops (matplotlib), from 0.0 to 1.0 in steps of 1/16.
const VIRIDIS: [[u8; 3]; 17] = [
    [68, 1, 84],
    [72, 21, 104],
    [72, 38, 119],
    [69, 55, 129],
    [63, 71, 136],
    [57, 85, 140],
    [50, 100, 142],
    [45, 113, 142],
    [39, 127, 142],
    [34, 140, 141],
    [31, 154, 138],
    [32, 167, 132],
    [46, 179, 124],
    [74, 193, 109],
    [110, 206, 88],
    [152, 216, 62],
    [253, 231, 37],
];

/// Inferno stops, for the matrix view (dark = little traffic).
const INFERNO: [[u8; 3]; 17] = [
    [0, 0, 4],
    [10, 7, 34],
    [32, 12, 74],
    [60, 9, 101],
    [87, 16, 110],
    [112, 25, 110],
    [137, 34, 106],
    [163, 43, 97],
    [187, 55, 84],
    [209, 70, 68],
    [228, 90, 49],
    [241, 113, 31],
    [249, 140, 10],
    [251, 169, 11],
    [248, 199, 41],
    [242, 230, 97],
    [252, 255, 164],
];

fn sample(table: &[[u8; 3]; 17], t: f32) -> Color32 {
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let x = t * 16.0;
    let i = (x.floor() as usize).min(15);
    let f = x - i as f32;
    let a = table[i];
    let b = table[i + 1];
    let lerp = |k: usize| (a[k] as f32 + (b[k] as f32 - a[k] as f32) * f).round() as u8;
    Color32::from_rgb(lerp(0), lerp(1), lerp(2))
}

/// Viridis at `t` in [0, 1].
pub fn viridis(t: f32) -> Color32 {
    sample(&VIRIDIS, t)
}

/// Inferno at `t` in [0, 1].
pub fn inferno(t: f32) -> Color32 {
    sample(&INFERNO, t)
}

/// Twelve well-separated categorical colours (Tableau-like), cycled.
pub fn category(i: usize) -> Color32 {
    const P: [[u8; 3]; 12] = [
        [78, 121, 167],
        [242, 142, 43],
        [225, 87, 89],
        [118, 183, 178],
        [89, 161, 79],
        [237, 201, 72],
        [176, 122, 161],
        [255, 157, 167],
        [156, 117, 95],
        [186, 176, 172],
        [31, 119, 180],
        [214, 39, 40],
    ];
    let c = P[i % P.len()];
    Color32::from_rgb(c[0], c[1], c[2])
}

/// A colour for a position in a grid: `frac` = coordinates scaled to [0, 1]
/// per axis (x, y, z). x drives the hue around the wheel, y the lightness and
/// z the saturation, so neighbours get similar colours and distant nodes
/// differ.
pub fn position(frac: [f32; 3]) -> Color32 {
    let h = frac[0].clamp(0.0, 1.0) * 0.8;
    let l = 0.35 + 0.35 * frac[1].clamp(0.0, 1.0);
    let s = 0.95 - 0.45 * frac[2].clamp(0.0, 1.0);
    hsl(h, s, l)
}

/// HSL -> sRGB, all components in [0, 1].
pub fn hsl(h: f32, s: f32, l: f32) -> Color32 {
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let hp = (h.rem_euclid(1.0)) * 6.0;
    let x = c * (1.0 - (hp % 2.0 - 1.0).abs());
    let (r, g, b) = match hp as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    let to = |v: f32| ((v + m).clamp(0.0, 1.0) * 255.0).round() as u8;
    Color32::from_rgb(to(r), to(g), to(b))
}

/// Map a value onto [0, 1] on a log scale between `lo` and `hi` (both > 0).
pub fn log_scale(v: f64, lo: f64, hi: f64) -> f32 {
    // Written so that NaN also gives 0.
    if v.is_nan() || hi.is_nan() || v <= 0.0 || hi <= 0.0 {
        return 0.0;
    }
    let lo = lo.max(hi * 1e-9).max(f64::MIN_POSITIVE);
    if hi <= lo {
        return 1.0;
    }
    (((v.max(lo)).ln() - lo.ln()) / (hi.ln() - lo.ln())) as f32
}

/// Human-readable bytes: 1.2 KB, 3.4 MB (powers of 1000).
pub fn fmt_bytes(b: f64) -> String {
    let a = b.abs();
    let (v, u) = if a >= 1e12 {
        (b / 1e12, "TB")
    } else if a >= 1e9 {
        (b / 1e9, "GB")
    } else if a >= 1e6 {
        (b / 1e6, "MB")
    } else if a >= 1e3 {
        (b / 1e3, "KB")
    } else {
        return format!("{b:.0} B");
    };
    format!("{v:.2} {u}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_match_tables() {
        assert_eq!(viridis(0.0), Color32::from_rgb(68, 1, 84));
        assert_eq!(viridis(1.0), Color32::from_rgb(253, 231, 37));
        assert_eq!(inferno(1.0), Color32::from_rgb(252, 255, 164));
        // halfway between stop 0 and stop 1
        assert_eq!(viridis(1.0 / 32.0), Color32::from_rgb(70, 11, 94));
        assert_eq!(viridis(f32::NAN), viridis(0.0));
    }

    #[test]
    fn log_scale_and_bytes() {
        assert_eq!(log_scale(10.0, 1.0, 100.0), 0.5);
        assert_eq!(log_scale(0.0, 1.0, 100.0), 0.0);
        assert_eq!(log_scale(100.0, 1.0, 100.0), 1.0);
        assert_eq!(fmt_bytes(1500.0), "1.50 KB");
        assert_eq!(fmt_bytes(12.0), "12 B");
        assert_eq!(hsl(0.0, 1.0, 0.5), Color32::from_rgb(255, 0, 0));
    }
}
