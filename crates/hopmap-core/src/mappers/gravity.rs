//! `gravity` and `gravity-greedy`: mappers built on the gravitational layout
//! of Bobrik & Popova (seed 001, §7: "use the Euclidean distance between the
//! points as the measure of proximity of processes in greedy algorithms").
//!
//! Both first lay the graph out in the topology's dimension (2D for a 2D
//! mesh, 3D for a 3D torus; the multilevel layout, run to stability as the
//! first phase of the run, one layout iteration per step —
//! [`super::phased`]), rotate it onto its principal axes (largest spread on the grid's
//! longest dimension — our addition, so a layout that came out tilted is not
//! squeezed onto a diagonal), replace each coordinate by its rank on its
//! axis (a quantile stretch — our addition: a force layout is denser in the
//! middle, and a linear stretch would crowd the middle onto few nodes), and
//! stretch that affinely onto the grid (the AFFN stretch,
//! [`super::greedy::Affine`]).
//!
//! * `gravity`: processes in id order go to the free node nearest to their
//!   stretched position (findNearest). O(layout) + n findNearest calls.
//! * `gravity-greedy`: processes are placed in Prim order over the layout's
//!   8-nearest-neighbour graph: the next process is the unplaced one closest
//!   (in the layout) to an already placed one, and it asks for the node of
//!   that neighbour shifted by their layout offset in grid units. A new
//!   component starts from the unplaced process nearest to the layout's
//!   centre, at its stretched position. O(layout + n log n) + n findNearest.
//!   On a switch fabric (beyond the paper; a fabric has no coordinates) the
//!   layout is 2-D, a process asks for its placed neighbour's own host (no
//!   offset) and a component starts at the fabric's centre; findNearest is
//!   the nearest free host in up*/down* hops
//!   ([`crate::find_nearest::FabricFinder`]). `gravity` needs grid
//!   coordinates for its affine stretch and refuses fabrics.
//!
//! After the layout, one step places one process. Parameters ([`GRAVITY_PARAMS`]): the seed
//! (the layout's), `find=spiral|tree`, and the layout's `c_att`, `c_rep`,
//! `iters` (iteration budget of the finest level) and `theta` (Barnes–Hut
//! opening angle).

use super::greedy::{Affine, Choice, Placer, Policy, grid_of, start_greedy, start_greedy_any};
use super::phased::Phased;
use super::{FIND_PARAM, MapperInfo, MapperInput, MapperRun, ParamKind, ParamSpec};
use crate::error::Result;
use crate::graph::{CommGraph, Coords};
use crate::layout::LayoutParams;
use crate::mappers::Networks;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The parameters of both gravity mappers (defaults as in [`LayoutParams`]).
pub const GRAVITY_PARAMS: &[ParamSpec] = &[
    FIND_PARAM,
    ParamSpec {
        key: "c_att",
        kind: ParamKind::Float {
            min: 0.001,
            max: 1000.0,
        },
        default: "1",
        help: "layout attraction coefficient c_att (Bobrik & Popova §4.1): how strongly \
               communicating processes pull together",
    },
    ParamSpec {
        key: "c_rep",
        kind: ParamKind::Float {
            min: 0.001,
            max: 1000.0,
        },
        default: "1",
        help: "layout repulsion coefficient c_rep (§4.1): how strongly all processes push apart",
    },
    ParamSpec {
        key: "iters",
        kind: ParamKind::Int {
            min: 1,
            max: 100_000,
        },
        default: "1000",
        help: "iteration budget of the finest layout level; the layout stops earlier when \
               stable (§5)",
    },
    ParamSpec {
        key: "theta",
        kind: ParamKind::Float { min: 0.0, max: 2.0 },
        default: "1",
        help: "Barnes–Hut opening angle of the repulsion (0 = exact, larger = faster and \
               rougher)",
    },
];

pub fn info() -> MapperInfo {
    MapperInfo {
        id: "gravity",
        name: "Gravitational layout + affine stretch",
        paper: "Bobrik & Popova §4–7 (layout); Bhatele & Kale §VI (stretch, findNearest)",
        doc: "Let the processes find their own geometry: communicating processes attract, all \
              repel, and the layout settles with busy partners close together. The layout is \
              then rotated onto its main axes, stretched onto the machine, and each process \
              takes the free node nearest to where it lands.",
        needs_coords: false,
        randomized: true,
        params: GRAVITY_PARAMS,
        networks: Networks::Grids,
        per_node_state: true,
        external: None,
        start: start_affine,
    }
}

pub fn info_greedy() -> MapperInfo {
    MapperInfo {
        id: "gravity-greedy",
        name: "Gravitational layout + greedy by Euclidean proximity",
        paper: "Bobrik & Popova §7 (Euclidean proximity in greedy algorithms)",
        doc: "Lay the processes out with the gravitational method, then grow the mapping like \
              a greedy heuristic whose notion of 'close' is the distance in the layout: the next \
              process is the one nearest to an already placed one, and it asks for the node of \
              that neighbour shifted by their offset in the layout. On a switch fabric (no \
              coordinates) it asks for the neighbour's own host: the free host nearest to it in \
              up*/down* hops.",
        needs_coords: false,
        randomized: true,
        params: GRAVITY_PARAMS,
        networks: Networks::Any,
        per_node_state: true,
        external: None,
        start: start_greedy_proximity,
    }
}

/// The layout parameters for the input graph in the network's dimension
/// ([`LayoutParams::for_network`]) with the user's force parameters.
fn layout_params(input: &MapperInput) -> Result<LayoutParams> {
    Ok(LayoutParams {
        c_att: input.get(GRAVITY_PARAMS, "c_att")?,
        c_rep: input.get(GRAVITY_PARAMS, "c_rep")?,
        max_iterations: input.get(GRAVITY_PARAMS, "iters")?,
        theta: input.get(GRAVITY_PARAMS, "theta")?,
        ..LayoutParams::for_network(&input.topo, input.seed)
    })
}

/// Lay the graph out (first phase, stepping), then start the placement
/// `place` on the layout's points rotated onto the grid's axes.
fn after_layout(
    input: &MapperInput,
    id: &'static str,
    place: fn(&MapperInput, Coords) -> Result<Box<dyn MapperRun>>,
) -> Result<Box<dyn MapperRun>> {
    // gravity-greedy also runs on switch fabrics (a 2-D layout; see
    // `place_proximity`); the affine stretch needs grid coordinates.
    let dims: Vec<u32> = match (input.topo.as_fabric(), id) {
        (Some(_), "gravity-greedy") => {
            if input
                .param("find")
                .is_some_and(|k| !k.eq_ignore_ascii_case("tree"))
            {
                // Refused before the layout, not after it.
                return Err(crate::error::Error::Unsupported(format!(
                    "{id}: on a switch fabric findNearest searches by routing distance;                      find=spiral applies to meshes and tori"
                )));
            }
            vec![1, 1]
        }
        _ => grid_of(input, id)?.dims().to_vec(),
    };
    input.check_fits()?;
    let params = layout_params(input)?;
    let inp = input.clone();
    Ok(Box::new(Phased::layout_then(
        input.graph.clone(),
        params,
        Box::new(move |points| {
            let coords = rank_axes(&principal_axes(&points, &dims));
            place(&inp, coords)
        }),
    )))
}

/// Rotate points onto their principal axes (largest variance first) and
/// order the axes to match the grid's dimensions from longest to shortest.
pub fn principal_axes(c: &Coords, grid_dims: &[u32]) -> Coords {
    let n = c.xyz.len().max(1) as f64;
    let d = c.dim.min(3);
    let mut mean = [0f64; 3];
    for p in &c.xyz {
        for a in 0..d {
            mean[a] += p[a] / n;
        }
    }
    let mut cov = [[0f64; 3]; 3];
    for p in &c.xyz {
        for a in 0..d {
            for b in 0..d {
                cov[a][b] += (p[a] - mean[a]) * (p[b] - mean[b]) / n;
            }
        }
    }
    let (vals, vecs) = jacobi_eigen(cov, d);
    let mut order: Vec<usize> = (0..d).collect();
    order.sort_by(|&i, &j| vals[j].total_cmp(&vals[i]));
    // Grid dimensions by size, longest first: axis of rank r goes to dims_rank[r].
    let mut dims_rank: Vec<usize> = (0..grid_dims.len().min(d)).collect();
    dims_rank.sort_by_key(|&k| (Reverse(grid_dims[k]), k));
    let xyz = c
        .xyz
        .iter()
        .map(|p| {
            let mut q = [0f64; 3];
            for (r, &ax) in order.iter().enumerate() {
                let v = vecs[ax];
                let proj: f64 = (0..d).map(|a| (p[a] - mean[a]) * v[a]).sum();
                let target = dims_rank.get(r).copied().unwrap_or(r);
                q[target] = proj;
            }
            q
        })
        .collect();
    Coords::new(c.dim, xyz)
}

/// Replace every coordinate by its rank along its axis, divided by n − 1
/// (ties broken by process id): a per-axis quantile stretch, so that the
/// denser middle of a force layout does not crowd onto a few nodes.
pub fn rank_axes(c: &Coords) -> Coords {
    let n = c.xyz.len();
    let mut xyz = c.xyz.clone();
    let den = (n.max(2) - 1) as f64;
    for a in 0..c.dim.min(3) {
        let mut idx: Vec<usize> = (0..n).collect();
        idx.sort_by(|&i, &j| c.xyz[i][a].total_cmp(&c.xyz[j][a]).then(i.cmp(&j)));
        for (r, &i) in idx.iter().enumerate() {
            xyz[i][a] = r as f64 / den;
        }
    }
    Coords::new(c.dim, xyz)
}

/// Eigenvalues and eigenvectors (`vecs[k]` is the k-th) of a symmetric
/// `d × d` matrix (d ≤ 3) by cyclic Jacobi rotations.
fn jacobi_eigen(mut a: [[f64; 3]; 3], d: usize) -> ([f64; 3], [[f64; 3]; 3]) {
    let mut v = [[0f64; 3]; 3];
    for (i, row) in v.iter_mut().enumerate() {
        row[i] = 1.0;
    }
    for _ in 0..50 {
        let mut off = 0.0;
        for p in 0..d {
            for q in p + 1..d {
                off += a[p][q] * a[p][q];
            }
        }
        if off < 1e-30 {
            break;
        }
        for p in 0..d {
            for q in p + 1..d {
                if a[p][q].abs() < 1e-300 {
                    continue;
                }
                let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
                let sign = if theta >= 0.0 { 1.0 } else { -1.0 };
                let t = sign / (theta.abs() + (theta * theta + 1.0).sqrt());
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                let mut r = [[0f64; 3]; 3];
                for (i, row) in r.iter_mut().enumerate() {
                    row[i] = 1.0;
                }
                r[p][p] = c;
                r[q][q] = c;
                r[p][q] = s;
                r[q][p] = -s;
                a = mat_mul(&transpose(&r), &mat_mul(&a, &r));
                v = mat_mul(&v, &r);
            }
        }
    }
    let vals = [a[0][0], a[1][1], a[2][2]];
    // Columns of v are the eigenvectors.
    let mut vecs = [[0f64; 3]; 3];
    for k in 0..3 {
        for i in 0..3 {
            vecs[k][i] = v[i][k];
        }
    }
    (vals, vecs)
}

fn mat_mul(a: &[[f64; 3]; 3], b: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    std::array::from_fn(|i| std::array::from_fn(|j| (0..3).map(|k| a[i][k] * b[k][j]).sum()))
}

fn transpose(a: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    std::array::from_fn(|i| std::array::from_fn(|j| a[j][i]))
}

fn start_affine(input: &MapperInput) -> Result<Box<dyn MapperRun>> {
    after_layout(input, "gravity", place_affine)
}

fn place_affine(input: &MapperInput, coords: Coords) -> Result<Box<dyn MapperRun>> {
    start_greedy(input, "gravity", |pl| {
        Ok(IdOrder {
            affine: Affine::new(&coords, pl.grid()),
            coords,
            next: 0,
        })
    })
}

/// Processes in id order at their stretched positions.
struct IdOrder {
    coords: Coords,
    affine: Affine,
    next: usize,
}

impl Policy for IdOrder {
    fn next(&mut self, _g: &CommGraph, pl: &Placer) -> Option<(usize, Vec<f64>)> {
        while self.next < pl.n() && pl.is_placed(self.next) {
            self.next += 1;
        }
        let p = self.next;
        (p < pl.n()).then(|| (p, self.affine.position(&self.coords.xyz[p])))
    }
    fn placed(&mut self, _p: usize, _g: &CommGraph, _pl: &Placer) {}
    fn choice(&self, _g: &CommGraph, _pl: &Placer, p: usize) -> Option<Choice> {
        Some(Choice::Gravity {
            position: self.coords.xyz[p][..self.coords.dim.clamp(1, 3)].to_vec(),
        })
    }
}

fn start_greedy_proximity(input: &MapperInput) -> Result<Box<dyn MapperRun>> {
    after_layout(input, "gravity-greedy", place_proximity)
}

/// On a switch fabric (beyond Bobrik & Popova, who map onto grids) there
/// are no node coordinates: the first process of each component asks for
/// the fabric's centre, and every later one for the node of its placed
/// layout neighbour itself (no offset), so findNearest returns the free host
/// nearest to that neighbour in up*/down* hops.
fn place_proximity(input: &MapperInput, coords: Coords) -> Result<Box<dyn MapperRun>> {
    let knn = knn_graph(&coords, 8);
    start_greedy_any(input, "gravity-greedy", |pl| {
        let on_fabric = pl.fabric().is_some();
        let affine = (!on_fabric).then(|| Affine::new(&coords, pl.grid()));
        let axes = affine.as_ref().map_or(0, |a| a.axes());
        let n = coords.xyz.len();
        // Grid units per layout unit on each axis (0 on a fabric: no shift).
        let unit: Vec<f64> = (0..pl.grid().ndims())
            .map(|d| {
                if d < axes {
                    let span = (coords.bounds().1[d] - coords.bounds().0[d]).max(1e-300);
                    pl.grid().dims()[d] as f64 / span
                } else {
                    0.0
                }
            })
            .collect();
        let c = coords.bounds();
        let centre: [f64; 3] = std::array::from_fn(|a| 0.5 * (c.0[a] + c.1[a]));
        let mut by_centre: Vec<usize> = (0..n).collect();
        by_centre.sort_by(|&i, &j| {
            dist(&coords.xyz[i], &centre)
                .total_cmp(&dist(&coords.xyz[j], &centre))
                .then(i.cmp(&j))
        });
        Ok(Proximity {
            coords: coords.clone(),
            affine,
            unit,
            knn,
            heap: BinaryHeap::new(),
            by_centre,
            cursor: 0,
            last: None,
        })
    })
}

fn dist(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// The `k` nearest neighbours of every point (uniform hash grid). O(n·k) expected.
fn knn_graph(c: &Coords, k: usize) -> Vec<Vec<u32>> {
    let n = c.xyz.len();
    if n < 2 {
        return vec![Vec::new(); n];
    }
    let (lo, hi) = c.bounds();
    let ext = (0..3)
        .map(|a| hi[a] - lo[a])
        .fold(0.0, f64::max)
        .max(1e-300);
    let cell = ext / (n as f64).powf(1.0 / c.dim.max(2) as f64) * 1.5;
    let key = |p: &[f64; 3]| -> (i64, i64, i64) {
        (
            ((p[0] - lo[0]) / cell).floor() as i64,
            ((p[1] - lo[1]) / cell).floor() as i64,
            ((p[2] - lo[2]) / cell).floor() as i64,
        )
    };
    let mut g: std::collections::HashMap<(i64, i64, i64), Vec<u32>> = Default::default();
    for (i, p) in c.xyz.iter().enumerate() {
        g.entry(key(p)).or_default().push(i as u32);
    }
    let kz = if c.dim >= 3 { 1 } else { 0 };
    let max_r = (ext / cell).ceil() as i64 + 1;
    (0..n)
        .map(|i| {
            let p = &c.xyz[i];
            let (cx, cy, cz) = key(p);
            let mut cand: Vec<(f64, u32)> = Vec::new();
            let mut r = 1i64;
            loop {
                cand.clear();
                for dx in -r..=r {
                    for dy in -r..=r {
                        for dz in -r * kz..=r * kz {
                            if let Some(v) = g.get(&(cx + dx, cy + dy, cz + dz)) {
                                cand.extend(
                                    v.iter()
                                        .filter(|&&j| j as usize != i)
                                        .map(|&j| (dist(p, &c.xyz[j as usize]), j)),
                                );
                            }
                        }
                    }
                }
                cand.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                // Points outside the scanned box are farther than r·cell.
                let enough = cand.len() >= k && cand[k - 1].0 <= r as f64 * cell;
                if enough || r > max_r {
                    break;
                }
                r += 1;
            }
            cand.iter().take(k).map(|&(_, j)| j).collect()
        })
        .collect()
}

/// Prim order over the layout's nearest-neighbour graph.
struct Proximity {
    coords: Coords,
    /// The stretch onto the grid (None on a switch fabric).
    affine: Option<Affine>,
    unit: Vec<f64>,
    knn: Vec<Vec<u32>>,
    /// (distance, process, placed neighbour), smallest distance first.
    heap: BinaryHeap<Reverse<(OrdF64, u32, u32)>>,
    by_centre: Vec<usize>,
    cursor: usize,
    /// Guided mode: the last process handed out and the placed layout
    /// neighbour it followed (None: it started a new region from the centre).
    last: Option<(usize, Option<(usize, f64)>)>,
}

#[derive(Clone, Copy, Debug)]
struct OrdF64(f64);
impl PartialEq for OrdF64 {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == std::cmp::Ordering::Equal
    }
}
impl Eq for OrdF64 {}
impl PartialOrd for OrdF64 {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for OrdF64 {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&o.0)
    }
}

impl Policy for Proximity {
    fn next(&mut self, _g: &CommGraph, pl: &Placer) -> Option<(usize, Vec<f64>)> {
        while let Some(Reverse((d, p, q))) = self.heap.pop() {
            let (p, q) = (p as usize, q as usize);
            if pl.is_placed(p) {
                continue;
            }
            self.last = Some((p, Some((q, d.0))));
            let node = pl.node(q)?;
            let mut want = pl.node_pos(node);
            for (d, w) in want.iter_mut().enumerate() {
                if d < 3 {
                    *w += (self.coords.xyz[p][d] - self.coords.xyz[q][d]) * self.unit[d];
                }
            }
            return Some((p, want));
        }
        while self.cursor < self.by_centre.len() && pl.is_placed(self.by_centre[self.cursor]) {
            self.cursor += 1;
        }
        let p = *self.by_centre.get(self.cursor)?;
        self.last = Some((p, None));
        match &self.affine {
            Some(a) => Some((p, a.position(&self.coords.xyz[p]))),
            None => Some((p, pl.centre())),
        }
    }
    fn choice(&self, _g: &CommGraph, _pl: &Placer, p: usize) -> Option<Choice> {
        Some(Choice::GravityGreedy {
            followed: match self.last {
                Some((lp, Some(qd))) if lp == p => Some(qd),
                _ => None,
            },
        })
    }
    fn placed(&mut self, p: usize, _g: &CommGraph, pl: &Placer) {
        for &j in &self.knn[p] {
            if !pl.is_placed(j as usize) {
                let d = dist(&self.coords.xyz[p], &self.coords.xyz[j as usize]);
                self.heap.push(Reverse((OrdF64(d), j, p as u32)));
            }
        }
        // Symmetrise: p may be a neighbour of points not in its own list.
    }
    fn frontier(&self, _pl: &Placer) -> Vec<usize> {
        self.heap
            .iter()
            .map(|Reverse((_, p, _))| *p as usize)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{GenOptions, generate};
    use crate::metrics::hop_bytes;
    use crate::topology::Topology;
    use std::sync::Arc;

    fn input(spec: &str, topo: &str) -> MapperInput {
        let g = generate(spec, &GenOptions::default()).unwrap();
        MapperInput::new(Arc::new(g), Arc::new(Topology::parse(topo).unwrap()), 1)
    }

    #[test]
    fn principal_axes_untilt_a_diagonal_line() {
        let c = Coords::new(2, (0..10).map(|i| [i as f64, i as f64, 0.0]).collect());
        let r = principal_axes(&c, &[16, 4]);
        // All spread on the first (longest) grid dimension.
        assert!(r.xyz.iter().all(|p| p[1].abs() < 1e-9), "{:?}", r.xyz);
        let r = principal_axes(&c, &[4, 16]);
        assert!(r.xyz.iter().all(|p| p[0].abs() < 1e-9));
    }

    #[test]
    fn gravity_greedy_runs_on_a_fabric_and_gravity_says_why_not() {
        // 256 processes on the paper's default fabric.
        let inp = input("stencil:16x16", "fabric:75,256,8,0.75,1");
        let m = super::super::run(&info_greedy(), &inp).unwrap();
        m.validate(256, &inp.topo).unwrap();
        assert_eq!(m, super::super::run(&info_greedy(), &inp).unwrap());
        let mut rm = 0.0;
        for s in 0..5 {
            let mut i = inp.clone();
            i.seed = s;
            let r = super::super::run(&super::super::random::info(), &i).unwrap();
            rm += hop_bytes(&inp.graph, &inp.topo, &r) / 5.0;
        }
        let hb = hop_bytes(&inp.graph, &inp.topo, &m);
        assert!(hb < 0.8 * rm, "gravity-greedy {hb} vs random {rm}");
        let e = super::super::run(&info(), &inp).unwrap_err().to_string();
        assert!(e.contains("mesh or torus"), "{e}");
        let mut spiral = inp.clone();
        spiral.params.push(("find".into(), "spiral".into()));
        assert!(super::super::run(&info_greedy(), &spiral).is_err());
    }

    #[test]
    fn gravity_mappers_beat_random_on_a_stencil() {
        let inp = input("stencil:16x16", "mesh:16x16");
        let rnd = super::super::run(&super::super::random::info(), &inp).unwrap();
        let hb_r = hop_bytes(&inp.graph, &inp.topo, &rnd);
        for info in [info(), info_greedy()] {
            let m = super::super::run(&info, &inp).unwrap();
            let hb = hop_bytes(&inp.graph, &inp.topo, &m);
            assert!(hb < 0.5 * hb_r, "{}: {hb} vs random {hb_r}", info.id);
        }
    }

    #[test]
    fn param_defaults_match_the_layout_defaults() {
        let d = LayoutParams::for_dim(2);
        let def = |k: &str| {
            GRAVITY_PARAMS
                .iter()
                .find(|p| p.key == k)
                .unwrap()
                .default
                .parse::<f64>()
                .unwrap()
        };
        assert_eq!(def("c_att"), d.c_att as f64);
        assert_eq!(def("c_rep"), d.c_rep as f64);
        assert_eq!(def("theta"), d.theta as f64);
        assert_eq!(def("iters"), d.max_iterations as f64);
    }

    #[test]
    fn the_layout_is_a_stepping_phase_before_the_placement() {
        let inp = input("clusters:2x10", "mesh:5x4");
        let mut r = super::super::prepare(&info(), &inp).unwrap();
        r.step();
        assert_eq!(r.progress().phase, "layout");
        assert!(r.placement().iter().all(Option::is_none));
        let mut steps = 1;
        while r.progress().phase == "layout" && !r.is_stopped() {
            r.step();
            steps += 1;
        }
        assert!(steps > 2, "the layout took {steps} steps");
        assert_eq!(r.inspect().phases_done(), 1);
        assert_eq!(r.progress().phase, "placement");
        r.run_to_end();
        assert_eq!(
            r.state(),
            crate::step::StepState::Stopped(crate::step::Stop::Complete)
        );
        super::super::finish(&info(), r.as_ref(), &inp).unwrap();
    }
}
