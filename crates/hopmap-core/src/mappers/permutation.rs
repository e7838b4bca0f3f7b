//! Permutation mappings (Balaji et al. §2.2): the Blue Gene/P launcher's
//! mapping strings such as `TXYZ`, `XYZT`, `TZXY` or `ZYXT`.
//!
//! An order string names every dimension of the grid once (letters `X Y Z`,
//! then `W V U` for dimensions 4–6) and `T`, the core within a node. The
//! **first** letter varies fastest: `TXYZ` fills the cores of a node first,
//! then moves along X, then Y, then Z (it equals the `default` mapping),
//! while `XYZT` puts one rank on every node before using a second core.
//! Rank `r` is decomposed in mixed radix along the order (digit of the first
//! letter = `r mod size`, and so on). With fewer processes than slots, the
//! ranks fill the first `n` positions of the order. `T` may be left out when
//! nodes have one core. O(n · D).
//!
//! Beyond the paper: any of 1–6 dimensions, and partial machines (n < slots).

use super::{
    MAX_HIGHLIGHT, MapperInfo, MapperInput, MapperRun, OneShot, OneShotPlan, ParamKind, ParamSpec,
};
use crate::error::{Error, Result};
use crate::mappers::Networks;
use crate::mapping::Mapping;
use crate::topology::{Grid, Topology};

/// Dimension letters in dimension order (X = 0 … U = 5).
pub const DIM_LETTERS: [char; 6] = ['X', 'Y', 'Z', 'W', 'V', 'U'];

/// One position of an order string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Axis {
    /// A grid dimension (0 = X).
    Dim(usize),
    /// The core within a node.
    T,
}

impl Axis {
    pub fn letter(self) -> char {
        match self {
            Axis::Dim(d) => DIM_LETTERS[d],
            Axis::T => 'T',
        }
    }
    /// Extent of this axis on `grid`.
    pub fn size(self, grid: &Grid) -> usize {
        match self {
            Axis::Dim(d) => grid.dims()[d] as usize,
            Axis::T => grid.cores() as usize,
        }
    }
}

/// An order as its string, e.g. `TZXY`.
pub fn order_string(order: &[Axis]) -> String {
    order.iter().map(|a| a.letter()).collect()
}

/// Whether `s` looks like an order string (only the letters X Y Z W V U T,
/// none twice). Does not check it against a topology.
pub fn looks_like_order(s: &str) -> bool {
    let up = s.trim().to_ascii_uppercase();
    !up.is_empty()
        && up.chars().all(|c| c == 'T' || DIM_LETTERS.contains(&c))
        && up.chars().enumerate().all(|(i, c)| !up[..i].contains(c))
}

/// Parse an order string against a grid: every dimension once and `T` once
/// (`T` may be omitted when nodes have one core; it is then appended).
/// Case-insensitive.
pub fn parse_order(s: &str, grid: &Grid) -> Result<Vec<Axis>> {
    let nd = grid.ndims();
    let err = |m: String| Error::spec("permutation order", s, m);
    let mut order = Vec::with_capacity(nd + 1);
    for c in s.trim().chars() {
        let c = c.to_ascii_uppercase();
        let axis = if c == 'T' {
            Axis::T
        } else if let Some(d) = DIM_LETTERS.iter().position(|&l| l == c) {
            if d >= nd {
                return Err(err(format!(
                    "`{c}` is dimension {} but the topology has {nd} dimension{} ({})",
                    d + 1,
                    if nd == 1 { "" } else { "s" },
                    expected_letters(nd)
                )));
            }
            Axis::Dim(d)
        } else {
            return Err(err(format!(
                "expected the letters {} and T, found `{c}`",
                expected_letters(nd)
            )));
        };
        if order.contains(&axis) {
            return Err(err(format!("`{c}` appears twice")));
        }
        order.push(axis);
    }
    if !order.contains(&Axis::T) {
        if grid.cores() == 1 {
            order.push(Axis::T);
        } else {
            return Err(err(format!(
                "nodes have {} cores, so the order must place T",
                grid.cores()
            )));
        }
    }
    if order.len() != nd + 1 {
        return Err(err(format!(
            "expected each of {} and T once, found {} letters",
            expected_letters(nd),
            s.trim().len()
        )));
    }
    Ok(order)
}

fn expected_letters(nd: usize) -> String {
    DIM_LETTERS[..nd].iter().collect()
}

/// The slot of each of the first `n` ranks under `order` (a valid order for
/// `grid`, `n ≤` slots). O(n · D).
pub fn order_slots(order: &[Axis], grid: &Grid, n: usize) -> Vec<usize> {
    let cores = grid.cores() as usize;
    let strides = grid.strides();
    let sizes: Vec<usize> = order.iter().map(|a| a.size(grid)).collect();
    let mut out = Vec::with_capacity(n);
    for r in 0..n {
        let mut rest = r;
        let (mut node, mut core) = (0usize, 0usize);
        for (a, &k) in order.iter().zip(&sizes) {
            let digit = rest % k;
            rest /= k;
            match a {
                Axis::Dim(d) => node += digit * strides[*d],
                Axis::T => core = digit,
            }
        }
        out.push(node * cores + core);
    }
    out
}

/// The mapping of the first `n` ranks under `order`.
pub fn order_mapping(order: &[Axis], topo: &Topology, n: usize) -> Result<Mapping> {
    let grid = grid_of(topo)?;
    Ok(Mapping::from_slots(&order_slots(order, grid, n), topo))
}

pub(crate) fn grid_of(topo: &Topology) -> Result<&Grid> {
    topo.as_grid().ok_or_else(|| {
        Error::Unsupported(format!(
            "permutation orders need a mesh or torus, not {}",
            topo.spec()
        ))
    })
}

/// The order used by `perm` when no `order=` is given: every node dimension
/// first, then T (`XYZT` in 3D), the opposite of `default`.
pub fn default_order(grid: &Grid) -> Vec<Axis> {
    let mut v: Vec<Axis> = (0..grid.ndims()).map(Axis::Dim).collect();
    v.push(Axis::T);
    v
}

/// The `perm` registry entry: any order via `order=`.
pub fn info() -> MapperInfo {
    MapperInfo {
        id: "perm",
        name: "Permutation order (order=…)",
        paper: "Balaji et al. §2.2",
        doc: "Blue Gene/P mapping strings: ranks are laid out along the axes in the given order, \
              the first letter varying fastest. TXYZ fills a node's cores first (the default), \
              XYZT puts one rank per node before doubling up, TZXY runs along Z first. \
              Parameter order=ORDER (letters X Y Z W V U for the dimensions, T for cores); \
              without it, XYZ…T.",
        needs_coords: false,
        randomized: false,
        params: &[ParamSpec {
            key: "order",
            kind: ParamKind::Text,
            default: "",
            help: "mapping order: one letter per grid dimension (X Y Z W V U) and T for the \
                   cores, each once, the first varying fastest, e.g. TXYZ or ZYXT; empty: \
                   X…, then T",
        }],
        networks: Networks::Grids,
        per_node_state: false,
        external: None,
        start,
    }
}

fn start(input: &MapperInput) -> Result<Box<dyn MapperRun>> {
    let grid = grid_of(&input.topo)?;
    let order = match input.param("order") {
        Some(s) if !s.trim().is_empty() => parse_order(s, grid)?,
        _ => default_order(grid),
    };
    start_order(input, &order)
}

/// Start a run of a fixed order.
pub fn start_order(input: &MapperInput, order: &[Axis]) -> Result<Box<dyn MapperRun>> {
    input.check_fits()?;
    let n = input.graph.n();
    let m = order_mapping(order, &input.topo, n)?;
    let grid = grid_of(&input.topo)?;
    let plan = OneShotPlan::Order {
        order: order.to_vec(),
        launcher: false,
    };
    Ok(Box::new(
        OneShot::new(m, &input.topo).with_plan(plan, first_run(order, grid, n)),
    ))
}

/// The first run of ranks along an order's fastest-varying axis that is
/// longer than 1 (what a step laying out this order highlights), at most
/// [`MAX_HIGHLIGHT`]. O(D + run).
pub fn first_run(order: &[Axis], g: &Grid, n: usize) -> Vec<usize> {
    let k = order
        .iter()
        .map(|a| a.size(g))
        .find(|&k| k > 1)
        .unwrap_or(1);
    (0..k.min(n).min(MAX_HIGHLIGHT)).collect()
}

/// The convenience orders, generalised to any number of dimensions D.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// X, Y, …, then T (`XYZT` in 3D, `XYT` in 2D).
    DimsThenT,
    /// T, the last dimension, then the others in order (`TZXY` in 3D, `TYX` in 2D).
    TLastFirst,
    /// The dimensions backwards, then T (`ZYXT` in 3D, `YXT` in 2D).
    ReversedThenT,
}

/// The order of a [`Family`] on `grid`.
pub fn family_order(f: Family, grid: &Grid) -> Vec<Axis> {
    let nd = grid.ndims();
    let dims = (0..nd).map(Axis::Dim);
    let mut v: Vec<Axis> = match f {
        Family::DimsThenT => dims.collect(),
        Family::TLastFirst => std::iter::once(Axis::T)
            .chain(std::iter::once(Axis::Dim(nd - 1)))
            .chain((0..nd - 1).map(Axis::Dim))
            .collect(),
        Family::ReversedThenT => dims.rev().collect(),
    };
    if f != Family::TLastFirst {
        v.push(Axis::T);
    }
    v
}

fn start_family(input: &MapperInput, f: Family) -> Result<Box<dyn MapperRun>> {
    let grid = grid_of(&input.topo)?;
    start_order(input, &family_order(f, grid))
}

fn fixed(
    id: &'static str,
    name: &'static str,
    doc: &'static str,
    start: fn(&MapperInput) -> Result<Box<dyn MapperRun>>,
) -> MapperInfo {
    MapperInfo {
        id,
        name,
        paper: "Balaji et al. §2.2",
        doc,
        needs_coords: false,
        randomized: false,
        params: &[],
        networks: Networks::Grids,
        per_node_state: false,
        external: None,
        start,
    }
}

/// Convenience entries for the orders the paper discusses. On a 3D grid
/// they are exactly XYZT, TZXY and ZYXT; on other grids they follow the
/// same rule ([`Family`]), so they run on every mesh/torus. An exact order
/// on any grid runs through `perm` (or `--mapper ORDER` on the CLI, which
/// rejects an order that does not fit the grid).
pub fn convenience_infos() -> Vec<MapperInfo> {
    vec![
        fixed(
            "xyzt",
            "XYZT (one rank per node first)",
            "Ranks go along X, then Y, then Z, one per node; the second core is used only after \
             every node has one rank. In D dimensions: X…, then T.",
            |i| start_family(i, Family::DimsThenT),
        ),
        fixed(
            "tzxy",
            "TZXY (cores, then Z, X, Y)",
            "A node's cores first, then along Z, then X, then Y. On an 8×16×32 torus a 128-wide \
             logical row lies along one Z ring; Balaji's least-contention pick for 2D stencils. \
             In D dimensions: T, the last dimension, then the others.",
            |i| start_family(i, Family::TLastFirst),
        ),
        fixed(
            "zyxt",
            "ZYXT (Z first, one rank per node)",
            "Along Z, then Y, then X, one rank per node before the next core. In D dimensions: \
             the dimensions backwards, then T.",
            |i| start_family(i, Family::ReversedThenT),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::CommGraph;
    use std::sync::Arc;

    fn grid(spec: &str) -> Grid {
        Topology::parse(spec).unwrap().as_grid().unwrap().clone()
    }

    #[test]
    fn parses_orders_and_rejects_bad_ones() {
        let g = grid("torus:2x3x4:cores=2");
        assert_eq!(
            parse_order("tzxy", &g).unwrap(),
            vec![Axis::T, Axis::Dim(2), Axis::Dim(0), Axis::Dim(1)]
        );
        for bad in ["XYZ", "XYZTT", "XYWT", "XYZQ", "XYT", ""] {
            assert!(parse_order(bad, &g).is_err(), "{bad}");
        }
        let e = parse_order("XYWT", &g).unwrap_err().to_string();
        assert!(e.contains("dimension 4"), "{e}");
        // One core: T may be omitted.
        let g1 = grid("mesh:4x4");
        assert_eq!(
            parse_order("YX", &g1).unwrap(),
            vec![Axis::Dim(1), Axis::Dim(0), Axis::T]
        );
        assert!(looks_like_order("tzxy") && !looks_like_order("default"));
        assert!(!looks_like_order("XXT"));
    }

    #[test]
    fn txyz_is_the_linear_order_and_xyzt_spreads_over_nodes() {
        let t = Topology::parse("mesh:2x2:cores=2").unwrap();
        let g = t.as_grid().unwrap();
        let txy = order_slots(&parse_order("TXY", g).unwrap(), g, 8);
        assert_eq!(txy, (0..8).collect::<Vec<_>>());
        // XYT: ranks 0..3 on core 0 of nodes 0..3, then core 1.
        let xyt = order_slots(&parse_order("XYT", g).unwrap(), g, 8);
        assert_eq!(xyt, vec![0, 2, 4, 6, 1, 3, 5, 7]);
        // YXT: node order 0, 2, 1, 3 (Y fastest).
        let yxt = order_slots(&parse_order("YXT", g).unwrap(), g, 4);
        assert_eq!(yxt, vec![0, 4, 2, 6]);
        // TYX with 3 ranks: the first 3 positions.
        let tyx = order_slots(&parse_order("TYX", g).unwrap(), g, 3);
        assert_eq!(tyx, vec![0, 1, 4]);
    }

    #[test]
    fn six_dimensions_and_validity() {
        let t = Topology::parse("mesh:2x2x2x2x2x3:cores=2").unwrap();
        let g = t.as_grid().unwrap();
        let order = parse_order("UTVWZYX", g).unwrap();
        let n = t.num_slots();
        let m = order_mapping(&order, &t, n).unwrap();
        m.validate(n, &t).unwrap();
        // Rank 1 moves one step along U (dimension 6, size 3): node stride 32.
        assert_eq!(m.node[1], 32);
        assert_eq!(m.node[3], 0);
        assert_eq!(m.core[3], 1);
    }

    proptest::proptest! {
        /// Any order on any grid gives a valid mapping whose rank r+1 differs
        /// from rank r's position by one step of the first axis, unless that
        /// axis wraps around (mixed-radix counting).
        #[test]
        fn any_order_is_valid_and_counts_in_mixed_radix(
            dims in proptest::collection::vec(1u32..5, 1..=4),
            cores in 1u32..4,
            seed in 0u64..1000,
            frac in 0.0f64..=1.0,
        ) {
            let g = Grid::new(&dims, &vec![true; dims.len()], cores).unwrap();
            let t = Topology::Grid(g.clone());
            let mut order: Vec<Axis> = (0..dims.len()).map(Axis::Dim).collect();
            order.push(Axis::T);
            crate::rng::Rng::new(seed).shuffle(&mut order);
            let s = order_string(&order);
            proptest::prop_assert_eq!(parse_order(&s, &g).unwrap(), order.clone());
            let n = ((t.num_slots() as f64) * frac) as usize;
            let slots = order_slots(&order, &g, n);
            let m = Mapping::from_slots(&slots, &t);
            proptest::prop_assert!(m.validate(n, &t).is_ok());
            let k = order[0].size(&g);
            for r in 0..n.saturating_sub(1) {
                if (r + 1) % k != 0 {
                    let (a, b) = (slots[r], slots[r + 1]);
                    match order[0] {
                        Axis::T => proptest::prop_assert_eq!(b, a + 1),
                        Axis::Dim(d) => proptest::prop_assert_eq!(
                            b,
                            a + g.strides()[d] * cores as usize
                        ),
                    }
                }
            }
        }
    }

    #[test]
    fn registry_entries_run() {
        let t = Arc::new(Topology::parse("torus:2x3x4:cores=2").unwrap());
        let g = Arc::new(CommGraph::empty(20));
        let mut input = MapperInput::new(g, t.clone(), 0);
        input.params.push(("order".into(), "ZYXT".into()));
        let m = super::super::run(&info(), &input).unwrap();
        // The fixed entries take no parameters (an `order=` would be rejected).
        let fixed = MapperInput::new(input.graph.clone(), t.clone(), 0);
        assert!(super::super::run(&convenience_infos()[2], &input).is_err());
        let z = super::super::run(&convenience_infos()[2], &fixed).unwrap();
        assert_eq!(m, z);
        // Rank 1 is one step along Z: node 6.
        assert_eq!(m.node[1], 6);
        // On a 2D mesh the entries generalise: xyzt = XYT, tzxy = TYX, zyxt = YXT.
        let t2 = Arc::new(Topology::parse("mesh:4x3:cores=2").unwrap());
        let g2 = t2.as_grid().unwrap();
        let want: Vec<String> = [Family::DimsThenT, Family::TLastFirst, Family::ReversedThenT]
            .iter()
            .map(|&f| order_string(&family_order(f, g2)))
            .collect();
        assert_eq!(want, vec!["XYT", "TYX", "YXT"]);
        let input2 = MapperInput::new(Arc::new(CommGraph::empty(24)), t2.clone(), 0);
        let m2 = super::super::run(&convenience_infos()[1], &input2).unwrap();
        // TYX: rank 2 is one step along Y (node 4), rank 6 wraps Y into X (node 1).
        assert_eq!((m2.node[2], m2.node[6]), (4, 1));
        let t3 = Topology::parse("torus:2x3x4:cores=2").unwrap();
        let g3 = t3.as_grid().unwrap();
        assert_eq!(order_string(&family_order(Family::TLastFirst, g3)), "TZXY");
    }
}
