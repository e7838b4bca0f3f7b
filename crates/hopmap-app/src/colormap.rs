//! Colour maps for the views: a perceptually uniform sequential map
//! (viridis: matplotlib's 256-entry table, looked up as matplotlib does;
//! inferno: 17 stops, linearly interpolated in sRGB), a categorical palette for clusters, and the
//! "network position" colouring that gives every network node a colour from
//! its grid coordinates so that the same colour means the same place in the
//! graph view and in the network view. O(1) per lookup. Also the colour of
//! every process for the chosen [`ColorMode`] (node, cluster, degree),
//! shared by the graph and the network view.

use super::Model;
use crate::run_detail::{RecursiveDetail, RunDetail, TreePart};
use egui::Color32;
use hopmap_core::mappers::recursive::domain::Domain;
use hopmap_core::topology::Topology;

/// Viridis, matplotlib's 256-entry table (`_viridis_data` in
/// `matplotlib/_cm_listed.py`, van der Walt & Smith), each channel rounded to
/// 8 bits. Entry i is the colour of t in [i/256, (i+1)/256), as matplotlib's
/// `ListedColormap` looks it up.
#[rustfmt::skip]
const VIRIDIS: [[u8; 3]; 256] = [
    [68, 1, 84], [68, 2, 86], [69, 4, 87], [69, 5, 89], [70, 7, 90], [70, 8, 92],
    [70, 10, 93], [70, 11, 94], [71, 13, 96], [71, 14, 97], [71, 16, 99], [71, 17, 100],
    [71, 19, 101], [72, 20, 103], [72, 22, 104], [72, 23, 105], [72, 24, 106], [72, 26, 108],
    [72, 27, 109], [72, 28, 110], [72, 29, 111], [72, 31, 112], [72, 32, 113], [72, 33, 115],
    [72, 35, 116], [72, 36, 117], [72, 37, 118], [72, 38, 119], [72, 40, 120], [72, 41, 121],
    [71, 42, 122], [71, 44, 122], [71, 45, 123], [71, 46, 124], [71, 47, 125], [70, 48, 126],
    [70, 50, 126], [70, 51, 127], [70, 52, 128], [69, 53, 129], [69, 55, 129], [69, 56, 130],
    [68, 57, 131], [68, 58, 131], [68, 59, 132], [67, 61, 132], [67, 62, 133], [66, 63, 133],
    [66, 64, 134], [66, 65, 134], [65, 66, 135], [65, 68, 135], [64, 69, 136], [64, 70, 136],
    [63, 71, 136], [63, 72, 137], [62, 73, 137], [62, 74, 137], [62, 76, 138], [61, 77, 138],
    [61, 78, 138], [60, 79, 138], [60, 80, 139], [59, 81, 139], [59, 82, 139], [58, 83, 139],
    [58, 84, 140], [57, 85, 140], [57, 86, 140], [56, 88, 140], [56, 89, 140], [55, 90, 140],
    [55, 91, 141], [54, 92, 141], [54, 93, 141], [53, 94, 141], [53, 95, 141], [52, 96, 141],
    [52, 97, 141], [51, 98, 141], [51, 99, 141], [50, 100, 142], [50, 101, 142], [49, 102, 142],
    [49, 103, 142], [49, 104, 142], [48, 105, 142], [48, 106, 142], [47, 107, 142], [47, 108, 142],
    [46, 109, 142], [46, 110, 142], [46, 111, 142], [45, 112, 142], [45, 113, 142], [44, 113, 142],
    [44, 114, 142], [44, 115, 142], [43, 116, 142], [43, 117, 142], [42, 118, 142], [42, 119, 142],
    [42, 120, 142], [41, 121, 142], [41, 122, 142], [41, 123, 142], [40, 124, 142], [40, 125, 142],
    [39, 126, 142], [39, 127, 142], [39, 128, 142], [38, 129, 142], [38, 130, 142], [38, 130, 142],
    [37, 131, 142], [37, 132, 142], [37, 133, 142], [36, 134, 142], [36, 135, 142], [35, 136, 142],
    [35, 137, 142], [35, 138, 141], [34, 139, 141], [34, 140, 141], [34, 141, 141], [33, 142, 141],
    [33, 143, 141], [33, 144, 141], [33, 145, 140], [32, 146, 140], [32, 146, 140], [32, 147, 140],
    [31, 148, 140], [31, 149, 139], [31, 150, 139], [31, 151, 139], [31, 152, 139], [31, 153, 138],
    [31, 154, 138], [30, 155, 138], [30, 156, 137], [30, 157, 137], [31, 158, 137], [31, 159, 136],
    [31, 160, 136], [31, 161, 136], [31, 161, 135], [31, 162, 135], [32, 163, 134], [32, 164, 134],
    [33, 165, 133], [33, 166, 133], [34, 167, 133], [34, 168, 132], [35, 169, 131], [36, 170, 131],
    [37, 171, 130], [37, 172, 130], [38, 173, 129], [39, 173, 129], [40, 174, 128], [41, 175, 127],
    [42, 176, 127], [44, 177, 126], [45, 178, 125], [46, 179, 124], [47, 180, 124], [49, 181, 123],
    [50, 182, 122], [52, 182, 121], [53, 183, 121], [55, 184, 120], [56, 185, 119], [58, 186, 118],
    [59, 187, 117], [61, 188, 116], [63, 188, 115], [64, 189, 114], [66, 190, 113], [68, 191, 112],
    [70, 192, 111], [72, 193, 110], [74, 193, 109], [76, 194, 108], [78, 195, 107], [80, 196, 106],
    [82, 197, 105], [84, 197, 104], [86, 198, 103], [88, 199, 101], [90, 200, 100], [92, 200, 99],
    [94, 201, 98], [96, 202, 96], [99, 203, 95], [101, 203, 94], [103, 204, 92], [105, 205, 91],
    [108, 205, 90], [110, 206, 88], [112, 207, 87], [115, 208, 86], [117, 208, 84], [119, 209, 83],
    [122, 209, 81], [124, 210, 80], [127, 211, 78], [129, 211, 77], [132, 212, 75], [134, 213, 73],
    [137, 213, 72], [139, 214, 70], [142, 214, 69], [144, 215, 67], [147, 215, 65], [149, 216, 64],
    [152, 216, 62], [155, 217, 60], [157, 217, 59], [160, 218, 57], [162, 218, 55], [165, 219, 54],
    [168, 219, 52], [170, 220, 50], [173, 220, 48], [176, 221, 47], [178, 221, 45], [181, 222, 43],
    [184, 222, 41], [186, 222, 40], [189, 223, 38], [192, 223, 37], [194, 223, 35], [197, 224, 33],
    [200, 224, 32], [202, 225, 31], [205, 225, 29], [208, 225, 28], [210, 226, 27], [213, 226, 26],
    [216, 226, 25], [218, 227, 25], [221, 227, 24], [223, 227, 24], [226, 228, 24], [229, 228, 25],
    [231, 228, 25], [234, 229, 26], [236, 229, 27], [239, 229, 28], [241, 229, 29], [244, 230, 30],
    [246, 230, 32], [248, 230, 33], [251, 231, 35], [253, 231, 37],
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

/// Viridis at `t` in [0, 1] (NaN gives the t = 0 colour), exactly as
/// matplotlib's `viridis(t)`: entry `floor(t · 256)` of the table, the last
/// entry for t = 1.
pub fn viridis(t: f32) -> Color32 {
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let [r, g, b] = VIRIDIS[((t * 256.0) as usize).min(255)];
    Color32::from_rgb(r, g, b)
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

/// ColorBrewer's RdBu (11 classes, Brewer & Harrower), from its blue end
/// to its red end: a diverging map whose centre is a neutral light grey.
const RDBU: [[u8; 3]; 11] = [
    [5, 48, 97],
    [33, 102, 172],
    [67, 147, 195],
    [146, 197, 222],
    [209, 229, 240],
    [247, 247, 247],
    [253, 219, 199],
    [244, 165, 130],
    [214, 96, 77],
    [178, 24, 43],
    [103, 0, 31],
];

/// Diverging colour of `t` in [−1, 1] (RdBu, interpolated in sRGB): −1 dark
/// blue (less), 0 the neutral centre, +1 dark red (more). NaN gives the centre.
pub fn diverging(t: f32) -> Color32 {
    let t = if t.is_finite() {
        t.clamp(-1.0, 1.0)
    } else {
        0.0
    };
    let x = (t + 1.0) * 5.0;
    let i = (x.floor() as usize).min(9);
    let f = x - i as f32;
    let (a, b) = (RDBU[i], RDBU[i + 1]);
    let lerp = |k: usize| (a[k] as f32 + (b[k] as f32 - a[k] as f32) * f).round() as u8;
    Color32::from_rgb(lerp(0), lerp(1), lerp(2))
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

/// How processes are coloured (the same in the graph and the network view).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorMode {
    /// By the network node they are mapped to (position in the grid).
    Node,
    /// By cluster.
    Cluster,
    /// By weighted degree (viridis, log scale).
    Degree,
    /// By the part of the recursive bipartitioning that holds them now
    /// while a recursive run is in progress (the part's colour is its node
    /// domain's centre's); otherwise as Node.
    Part,
}

impl ColorMode {
    pub fn key(self) -> &'static str {
        match self {
            ColorMode::Node => "node",
            ColorMode::Cluster => "cluster",
            ColorMode::Degree => "degree",
            ColorMode::Part => "part",
        }
    }
    pub fn from_key(s: &str) -> Self {
        match s {
            "cluster" => ColorMode::Cluster,
            "degree" => ColorMode::Degree,
            "part" => ColorMode::Part,
            _ => ColorMode::Node,
        }
    }
}

/// Colour of every network node from its grid position.
pub fn node_colors(topo: &Topology) -> Vec<Color32> {
    let n = topo.num_nodes();
    match topo.as_grid() {
        Some(g) => {
            let dims = g.dims();
            (0..n)
                .map(|v| {
                    let c = g.coord(v);
                    let mut f = [0.0f32; 3];
                    for (d, fd) in f.iter_mut().enumerate() {
                        if d < dims.len() && dims[d] > 1 {
                            *fd = c[d] as f32 / (dims[d] - 1) as f32;
                        }
                    }
                    position(f)
                })
                .collect()
        }
        // A switch fabric: the hosts of one switch share its colour.
        None => match topo.as_fabric() {
            Some(f) => (0..n).map(|h| category(f.switch_of(h))).collect(),
            None => (0..n).map(category).collect(),
        },
    }
}

/// Colour of every process for `mode`. Unplaced processes are grey in Node mode.
pub fn process_colors(model: &Model, mode: ColorMode) -> Vec<Color32> {
    process_colors_with(model, mode, &node_colors(&model.topo))
}

/// [`process_colors`] with the network's node colours ([`node_colors`])
/// already computed (they change with the network only): O(processes).
pub fn process_colors_with(model: &Model, mode: ColorMode, nc: &[Color32]) -> Vec<Color32> {
    let n = model.graph.n();
    match mode {
        ColorMode::Node => (0..n)
            .map(|p| match model.node_of(p).and_then(|v| nc.get(v)) {
                Some(&c) => c,
                None => Color32::from_gray(110),
            })
            .collect(),
        ColorMode::Cluster => (0..n)
            .map(|p| category(model.clusters.get(p).copied().unwrap_or(0) as usize))
            .collect(),
        ColorMode::Degree => {
            let w: Vec<f64> = (0..n)
                .map(|p| model.graph.sent_row(p).iter().sum::<f64>())
                .collect();
            let hi = w.iter().cloned().fold(0.0, f64::max);
            let lo = w.iter().cloned().filter(|&x| x > 0.0).fold(hi, f64::min);
            w.iter()
                .map(|&x| viridis(log_scale(x, lo * 0.5, hi)))
                .collect()
        }
        ColorMode::Part => process_part_colors(model)
            .unwrap_or_else(|| process_colors_with(model, ColorMode::Node, nc)),
    }
}

/// Whether `id` is one of the recursive mappers.
pub fn is_recursive(id: &str) -> bool {
    matches!(id, "recursive" | "recursive+refine")
}

/// The recursive detail of the model's run, if any.
pub fn recursive_detail(model: &Model) -> Option<&RecursiveDetail> {
    match model.run.detail()? {
        RunDetail::Recursive(r) if is_recursive(model.run.id()) => Some(r),
        _ => None,
    }
}

/// The colour of a part: the node colour of its domain's centre (grids: by
/// position; other networks: the centre node's category colour).
pub fn part_color(topo: &Topology, part: &TreePart) -> Color32 {
    match (topo.as_grid(), &part.domain) {
        (Some(g), Domain::Box { .. }) => {
            let dims = g.dims();
            let mut f = [0.0f32; 3];
            for (d, fd) in f.iter_mut().enumerate() {
                if d < dims.len() && dims[d] > 1 {
                    *fd = part.centre[d] / (dims[d] - 1) as f32;
                }
            }
            position(f)
        }
        (_, Domain::Set { centre, .. }) => category(*centre as usize),
        _ => Color32::GRAY,
    }
}

/// Colour of every process by its current part; None when no recursive
/// run is in progress (a finished run's mapping may be another run's than
/// the tree kept, so its processes take their nodes' colours).
pub fn process_part_colors(model: &Model) -> Option<Vec<Color32>> {
    model.run.worker()?;
    let d = recursive_detail(model)?;
    let cols: Vec<Color32> = d.parts.iter().map(|p| part_color(&model.topo, p)).collect();
    Some(
        (0..model.graph.n())
            .map(|p| {
                d.part_of
                    .get(p)
                    .and_then(|&k| cols.get(k as usize).copied())
                    .unwrap_or(Color32::from_gray(110))
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_match_tables() {
        assert_eq!(inferno(1.0), Color32::from_rgb(252, 255, 164));
        assert_eq!(inferno(0.0), Color32::from_rgb(0, 0, 4));
    }

    #[test]
    fn viridis_matches_the_published_stops() {
        // The five-colour viridis palette (matplotlib `viridis(np.linspace(0, 1, 5))`,
        // also R viridisLite and d3-scale-chromatic): #440154 #3b528b #21918c #5ec962 #fde725.
        let published = [
            (0.0, [0x44, 0x01, 0x54]),
            (0.25, [0x3b, 0x52, 0x8b]),
            (0.5, [0x21, 0x91, 0x8c]),
            (0.75, [0x5e, 0xc9, 0x62]),
            (1.0, [0xfd, 0xe7, 0x25]),
        ];
        for (t, [r, g, b]) in published {
            assert_eq!(viridis(t), Color32::from_rgb(r, g, b), "t = {t}");
        }
        // Entries of matplotlib's float table, × 255 and rounded: index 25
        // (0.282623, 0.140926, 0.457517) and 230 (0.741388, 0.873449, 0.149561).
        assert_eq!(viridis(25.5 / 256.0), Color32::from_rgb(72, 36, 117));
        assert_eq!(viridis(230.5 / 256.0), Color32::from_rgb(189, 223, 38));
        assert_eq!(viridis(f32::NAN), viridis(0.0));
        assert_eq!(viridis(-3.0), viridis(0.0));
        assert_eq!(viridis(7.0), viridis(1.0));
        // Ordered by lightness: luma rises over every 8 entries (single
        // entries wobble by the 8-bit rounding).
        let luma = |c: Color32| 0.299 * c.r() as f32 + 0.587 * c.g() as f32 + 0.114 * c.b() as f32;
        for i in 8..256 {
            let (a, b) = (viridis((i - 8) as f32 / 256.0), viridis(i as f32 / 256.0));
            assert!(luma(b) > luma(a), "luma falls before entry {i}");
        }
    }

    #[test]
    fn diverging_is_centred_on_zero() {
        assert_eq!(diverging(0.0), Color32::from_rgb(247, 247, 247));
        assert_eq!(diverging(-1.0), Color32::from_rgb(5, 48, 97));
        assert_eq!(diverging(1.0), Color32::from_rgb(103, 0, 31));
        assert_eq!(diverging(f32::NAN), diverging(0.0));
        // Blue below zero, red above.
        let (lo, hi) = (diverging(-0.5), diverging(0.5));
        assert!(lo.b() > lo.r() && hi.r() > hi.b());
    }

    #[test]
    fn log_scale_and_hsl() {
        assert_eq!(log_scale(10.0, 1.0, 100.0), 0.5);
        assert_eq!(log_scale(0.0, 1.0, 100.0), 0.0);
        assert_eq!(log_scale(100.0, 1.0, 100.0), 1.0);
        assert_eq!(hsl(0.0, 1.0, 0.5), Color32::from_rgb(255, 0, 0));
    }
}
