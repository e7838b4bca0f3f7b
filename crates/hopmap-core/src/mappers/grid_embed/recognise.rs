//! Recognise a Cartesian halo — a d-dimensional grid or torus of processes
//! that exchange with their face neighbours (2·d of them) or with the whole
//! surrounding box (3^d − 1: faces, edges and corners) — in any rank
//! numbering, and recover every process's grid coordinates.
//!
//! The idea follows the process-grid view of Bhatele & Kale (seed 000) and
//! Rubik (Bhatele et al., SC'12): halo codes number a Cartesian grid, and
//! once the grid is known it can be embedded by tiling and folding
//! ([`super::embed`]). The recognition itself is graph-structural:
//!
//! 1. **Heavy part.** For a relative threshold α (a ladder from 0.9 down to
//!    0), keep the pairs whose volume is at least α times the heaviest pair
//!    of either end. Halo volumes may differ per direction; light extra
//!    edges (FFT transposes, coarse multigrid levels, hand-written
//!    reductions) fall below some α. The subgraph must connect every
//!    process.
//! 2. **Face skeleton.** A face halo is its own skeleton. In a full halo
//!    whose faces carry more bytes than its edges and corners (as in real
//!    codes: a face's volume grows with its area), some threshold keeps the
//!    faces alone. With equal volumes, the face pairs are those whose closed
//!    neighbourhoods overlap most: inside the box and on a torus their
//!    Jaccard index is ½ or more, that of an edge or corner pair at most
//!    4/9. A face halo with a few diagonal pairs (subdomains of a
//!    decomposition that also touch at corners) loses them by dropping the
//!    diagonals of unit squares: pairs whose ends have two common
//!    neighbours that are not adjacent. In an open 2D full halo with equal
//!    volumes the diagonal pair of the two neighbours of a box corner also
//!    reaches ½; it is the diagonal of a unit square of the Jaccard
//!    skeleton, so the Jaccard skeleton without its square diagonals is the
//!    fourth skeleton tried. (In 3D more diagonal pairs near the box's
//!    edges reach ½ and dropping square diagonals then drops face pairs
//!    too.) When a threshold keeps the faces and some diagonal classes but
//!    not all (an edge heavier than another direction's face: a thin, tall
//!    subdomain), the fifth skeleton drops every pair that is strictly the
//!    lightest of a triangle: a diagonal spans two faces, each heavier.
//!    The sixth ranks sides of equal volume by the Jaccard index of their
//!    ends' closed neighbourhoods (a diagonal that weighs what one of its
//!    faces weighs, or an open 3D full halo with equal volumes). The
//!    seventh does so on two layers of twins (a direction of size 2 with
//!    equal volumes across it, where a face and a diagonal are exchanged
//!    by an automorphism: any consistent choice reads the grid).
//! 3. **Directions.** On the skeleton, opposite edges of every chordless
//!    4-cycle (a unit square) are parallel; at each process, two edges on no
//!    common square lie on one line. Closing both relations with a
//!    union–find gives the d directions; along each, the edges form lines
//!    (paths, or cycles when periodic) whose length is the grid's size.
//!    A grid of d directions gives every process d to 2·d partners, so a
//!    skeleton whose degrees spread over more than a factor 2 is refused
//!    before its squares are enumerated (the unstructured meshes' skeletons
//!    mostly are).
//! 4. **Coordinates.** From a corner, a breadth-first search gives each
//!    process its neighbour's coordinates plus or minus one unit, and
//!    orients each new process's lines from its parent's: its `+i`
//!    neighbour is the one next to the parent's `+i` neighbour.
//! 5. **Check.** The coordinates must be a bijection onto the box, every
//!    skeleton edge a unit step and every heavy pair within the box around
//!    its process (Chebyshev distance 1, across the wrap when periodic).
//!
//! A 4-cycle is itself a 2 × 2 grid, so a periodic direction of size 4
//! comes out as two directions of size 2; pairs of size-2 directions with
//! the same bytes are merged back into a periodic direction of size 4 (the
//! Gray order 00, 10, 11, 01 keeps every edge a unit step).
//!
//! Of all thresholds the recognition that covers most bytes wins (the
//! largest α on a tie); the pairs that are not grid neighbours are reported
//! as left out. When no threshold gives an exact grid (real decompositions
//! of non-rectangular domains miss some neighbour pairs and add some
//! diagonal ones), two inexact readings compete: a near-2D mesh recovered
//! from distances to its corners in any numbering ([`super::near_mesh`]),
//! and the ranks' own order as a Cartesian numbering (`rank_order_grid`);
//! the one whose face pairs carry most bytes wins, if they carry at least
//! 90 % of all (a reading is not tried when even the 2·d heaviest pairs of
//! every process, d its dimensions, carry less). When none of these finds
//! a grid but some threshold's heavy part falls apart into components of
//! one size that are grids of one shape (the rows of a 2D process grid,
//! each a ring), [`super::stacked`] stacks them along one more direction
//! by the light pairs between them (the columns; these readings are made
//! only then, from the thresholds whose heavy part is disconnected); and when some
//! threshold's heavy part is a product of two cliques (rows and columns
//! that each talk all-to-all), [`super::product`] gives each process its
//! row and column, and both directions are cliques ([`GridHalo::clique`]);
//! of these two, the reading that covers more bytes is kept.
//! [`GridHalo::found`] says which reading gave the grid.
//! When nothing is read, [`recognise_beside`] looks for a grid of all
//! processes but a few that stand beside it (a master whose pairs are
//! light for its partners) and the failure names it.
//! Cost: O(m + n·Δ³ log Δ) per threshold, Δ ≤ 12 the skeleton's degree,
//! over at most a dozen thresholds (stopping once every byte is covered):
//! near-linear.

use crate::graph::CommGraph;
use crate::partition::pair_volumes;

/// Largest number of grid directions recognised (the networks' limit).
pub const MAX_GRID_DIMS: usize = crate::topology::grid::MAX_DIMS;

/// The relative thresholds tried for the heavy part, largest first.
pub(super) const LADDER: [f64; 14] = [
    0.9, 0.7, 0.5, 0.35, 0.25, 0.1, 0.05, 0.02, 0.01, 0.003, 0.001, 1e-4, 1e-6, 0.0,
];

const NONE: u32 = u32::MAX;

/// Partners of a process in a 3D full halo (faces, edges and corners).
const FULL_3D: usize = 26;

/// A recognised grid halo.
#[derive(Clone, Debug, PartialEq)]
pub struct GridHalo {
    /// Size of each direction.
    pub dims: Vec<u32>,
    /// Whether each direction wraps around.
    pub periodic: Vec<bool>,
    /// Whether each direction is a clique: every two processes that differ
    /// along it alone are neighbours, however far apart (a product of
    /// cliques, [`super::product`]); else only unit steps are.
    pub clique: Vec<bool>,
    /// Coordinates of process `p`: `coords[p * d .. (p + 1) * d]`.
    pub coords: Vec<u32>,
    /// Bytes between face neighbours along each direction.
    pub axis_bytes: Vec<f64>,
    /// Bytes between diagonal neighbours (edges and corners of the box).
    pub diagonal_bytes: f64,
    /// Bytes between processes that are not grid neighbours (left out).
    pub other_bytes: f64,
    /// Number of such pairs.
    pub other_pairs: usize,
    /// The relative threshold whose heavy part gave the grid.
    pub threshold: f64,
    /// How the coordinates were found.
    pub found: Found,
}

/// How a grid's coordinates were found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    /// Every heavy pair is a grid neighbour (steps 1–5 of the module docs).
    Exact,
    /// A near-2D mesh from distances to its corners
    /// ([`super::near_mesh`]): some heavy pairs may be missing or not
    /// grid neighbours.
    NearMesh,
    /// The ranks' own order read as a Cartesian numbering.
    RankOrder,
    /// The heavy pairs form several grids of one shape, stacked along one
    /// more direction by the light pairs between them
    /// ([`super::stacked`]).
    Stacked,
    /// Rows and columns that each talk all-to-all: a product of two
    /// cliques ([`super::product`]).
    Product,
}

impl Found {
    /// A few words for the run's summary.
    pub fn describe(self) -> &'static str {
        match self {
            Found::Exact => "exact",
            Found::NearMesh => "near-mesh, from distances to its corners",
            Found::RankOrder => "the ranks' own order read as a grid",
            Found::Stacked => "equal heavy grids stacked by their light pairs",
            Found::Product => "rows and columns all-to-all, a product of two cliques",
        }
    }
}

impl GridHalo {
    pub fn ndims(&self) -> usize {
        self.dims.len()
    }
    /// Coordinates of process `p`.
    pub fn coord(&self, p: usize) -> &[u32] {
        let d = self.ndims();
        &self.coords[p * d..(p + 1) * d]
    }
    /// Bytes on grid-neighbour pairs (faces and diagonals).
    pub fn covered_bytes(&self) -> f64 {
        self.axis_bytes.iter().sum::<f64>() + self.diagonal_bytes
    }
    /// Fraction of all bytes that the grid leaves out.
    pub fn left_out_share(&self) -> f64 {
        let total = self.covered_bytes() + self.other_bytes;
        if total > 0.0 {
            self.other_bytes / total
        } else {
            0.0
        }
    }
    /// `8×8×8 torus` / `16×4 mesh (periodic in x)`-style description.
    pub fn describe(&self) -> String {
        let dims: Vec<String> = self.dims.iter().map(|d| d.to_string()).collect();
        if self.clique.iter().any(|&c| c) {
            return format!(
                "{} process grid, rows and columns all-to-all",
                dims.join("×")
            );
        }
        let kind = if self.periodic.iter().all(|&p| p) {
            "torus".to_string()
        } else if self.periodic.iter().any(|&p| p) {
            let axes: Vec<String> = (0..self.ndims())
                .filter(|&i| self.periodic[i])
                .map(|i| axis_name(i).to_string())
                .collect();
            format!("grid, periodic along {}", axes.join(", "))
        } else {
            "mesh".to_string()
        };
        let halo = if self.diagonal_bytes > 0.0 {
            "faces + edges/corners"
        } else {
            "faces"
        };
        format!("{} {kind} halo ({halo})", dims.join("×"))
    }
}

/// `x`, `y`, `z`, then `d3`, `d4`, …
pub fn axis_name(i: usize) -> &'static str {
    ["x", "y", "z", "d3", "d4", "d5"]
        .get(i)
        .copied()
        .unwrap_or("d?")
}

/// Undirected adjacency with sorted rows.
#[derive(Clone)]
struct Adj {
    off: Vec<usize>,
    nb: Vec<u32>,
}

impl Adj {
    fn n(&self) -> usize {
        self.off.len() - 1
    }
    fn row(&self, u: usize) -> &[u32] {
        &self.nb[self.off[u]..self.off[u + 1]]
    }
    fn adjacent(&self, a: usize, b: usize) -> bool {
        self.row(a).binary_search(&(b as u32)).is_ok()
    }
    fn pos(&self, a: usize, b: usize) -> Option<usize> {
        self.row(a)
            .binary_search(&(b as u32))
            .ok()
            .map(|k| self.off[a] + k)
    }
    /// Keep the entries for which `keep(u, entry index)` holds.
    fn filter(g_off: &[usize], g_nb: &[u32], keep: impl FnMut(usize, usize) -> bool) -> Adj {
        match Adj::filter_or_doomed(g_off, g_nb, keep, false) {
            Built::Adj(a) => a,
            // Not reached: without `abort` every row is built.
            Built::Skip | Built::Doomed => Adj {
                off: vec![0; g_off.len()],
                nb: Vec::new(),
            },
        }
    }
    /// [`Adj::filter`]; with `abort`, [`Built::Doomed`] as soon as the
    /// rows built so far prove that [`faces_grid`] refuses the result
    /// ([`Doom`]).
    fn filter_or_doomed(
        g_off: &[usize],
        g_nb: &[u32],
        mut keep: impl FnMut(usize, usize) -> bool,
        abort: bool,
    ) -> Built {
        let n = g_off.len() - 1;
        let mut off = Vec::with_capacity(n + 1);
        let mut nb = Vec::new();
        let mut doom = Doom::new();
        off.push(0);
        for u in 0..n {
            for k in g_off[u]..g_off[u + 1] {
                if keep(u, k) {
                    nb.push(g_nb[k]);
                }
            }
            if abort && doom.row(nb.len() - off[u]) {
                return Built::Doomed;
            }
            off.push(nb.len());
        }
        Built::Adj(Adj { off, nb })
    }
    /// [`Adj::filter_or_doomed`] on this adjacency's own entries, for a
    /// `keep` that gives a pair the same answer from either end: each pair
    /// is decided once, at its lower end ([`Mirror`]). Same result as the
    /// plain filter, with `keep` called about half as often.
    fn filter_symmetric(&self, mut keep: impl FnMut(usize, usize) -> bool, abort: bool) -> Built {
        let mut mirror = Mirror::new(self);
        Adj::filter_or_doomed(
            &self.off,
            &self.nb,
            |u, k| mirror.answer(self, u, k, || keep(u, k)),
            abort,
        )
    }
    /// The subgraph induced by `rows` (sorted processes), renumbered:
    /// `index[p]` is p's position in `rows`.
    fn filter_rows(&self, rows: &[u32], index: &[u32]) -> Adj {
        let mut off = Vec::with_capacity(rows.len() + 1);
        let mut nb = Vec::new();
        off.push(0);
        for &p in rows {
            let start = nb.len();
            nb.extend(
                self.row(p as usize)
                    .iter()
                    .filter(|&&v| rows.binary_search(&v).is_ok())
                    .map(|&v| index[v as usize]),
            );
            nb[start..].sort_unstable();
            off.push(nb.len());
        }
        Adj { off, nb }
    }
    fn connected(&self) -> bool {
        self.connected_but(&[])
    }
    /// Whether the processes not in `skip` (ascending, none of them
    /// adjacent to the others) are connected.
    fn connected_but(&self, skip: &[usize]) -> bool {
        let n = self.n();
        let Some(start) = (0..n).find(|u| skip.binary_search(u).is_err()) else {
            return true;
        };
        let mut seen = vec![false; n];
        let mut stack = vec![start];
        seen[start] = true;
        let mut count = 1;
        while let Some(u) = stack.pop() {
            for &v in self.row(u) {
                if !seen[v as usize] {
                    seen[v as usize] = true;
                    count += 1;
                    stack.push(v as usize);
                }
            }
        }
        count == n - skip.len()
    }
    fn has_triangle(&self) -> bool {
        let mut marks = RowMarks::new(self.n());
        (0..self.n()).any(|u| {
            marks.mark(self, u);
            self.row(u)
                .iter()
                .any(|&v| (v as usize) > u && marks.common(self, v as usize) > 0)
        })
    }
    /// The face skeleton of a full halo: pairs whose closed neighbourhoods
    /// have a Jaccard index of at least ½.
    /// O(m · Δ), each pair decided once ([`Adj::filter_symmetric`]).
    fn jaccard_skeleton(&self) -> Adj {
        let mut marks = RowMarks::new(self.n());
        let keep = |u: usize, k: usize| {
            marks.mark(self, u);
            let v = self.nb[k] as usize;
            let inter = marks.common(self, v) + 2;
            let union = self.row(u).len() + self.row(v).len() + 2 - inter;
            2 * inter >= union
        };
        match self.filter_symmetric(keep, false) {
            Built::Adj(a) => a,
            // Not reached: without `abort` every row is built.
            Built::Skip | Built::Doomed => Adj {
                off: vec![0; self.off.len()],
                nb: Vec::new(),
            },
        }
    }
    /// The face skeleton of a face halo with some diagonal pairs (a
    /// decomposition whose subdomains also touch at some corners): drop
    /// every pair whose ends have two common neighbours that are not
    /// adjacent — the diagonal of a unit square. A face pair of such a
    /// grid has at most one common neighbour per diagonal present.
    /// None as soon as a process keeps more pairs than a grid's
    /// 2 · [`MAX_GRID_DIMS`] faces (no grid can be read from it then, and
    /// the pairs inside large cliques, whose common neighbours are all
    /// adjacent, cost O(common²) each): [`Built::Skip`]. With `abort`,
    /// [`Built::Doomed`] as soon as the rows built so far prove that
    /// [`faces_grid`] refuses the skeleton (then the rows after are not
    /// read, and a later row might have made it a skip).
    fn without_square_diagonals(&self, abort: bool) -> Built {
        let n = self.n();
        let mut doom = Doom::new();
        let mut common = Vec::new();
        let mut marks = RowMarks::new(n);
        let mut off = Vec::with_capacity(n + 1);
        let mut nb = Vec::new();
        // Whether a pair is a square's diagonal does not depend on which
        // end is asked: it is decided at its lower end's row ([`Mirror`]).
        let mut mirror = Mirror::new(self);
        off.push(0);
        for u in 0..n {
            for k in self.off[u]..self.off[u + 1] {
                let v = self.nb[k];
                let diagonal = mirror.answer(self, u, k, || {
                    marks.mark(self, u);
                    common.clear();
                    common.extend(
                        self.row(v as usize)
                            .iter()
                            .filter(|&&x| marks.of[x as usize] == u as u32)
                            .map(|&x| x as usize),
                    );
                    (0..common.len()).any(|a| {
                        (a + 1..common.len()).any(|b| !self.adjacent(common[a], common[b]))
                    })
                });
                if !diagonal {
                    nb.push(v);
                    // Too many already: the answer is None, whatever the
                    // rest of the row (a large clique ends here).
                    if nb.len() - off[u] > 2 * MAX_GRID_DIMS {
                        return Built::Skip;
                    }
                }
            }
            if abort && doom.row(nb.len() - off[u]) {
                return Built::Doomed;
            }
            off.push(nb.len());
        }
        Built::Adj(Adj { off, nb })
    }
    /// The face skeleton of faces plus any classes of diagonal pairs
    /// (edges, corners) each lighter than the faces it spans: drop every
    /// pair that is strictly the lightest of a triangle. A diagonal pair
    /// u–(u+a+b) is in the triangle with the faces u–(u+a) and
    /// (u+a)–(u+a+b); in real codes a face's bytes grow with its area and
    /// an edge's with its length, so the diagonal is the lightest. A face
    /// pair is the strict lightest of no triangle when every diagonal is
    /// lighter than its faces (on a ring of 3 its triangle's sides tie).
    /// This reads halos whose heavy part holds some diagonal classes but not
    /// all (an edge heavier than another direction's face), where neither
    /// the Jaccard skeleton nor the square diagonals do. `vol(u, v)` is the
    /// pair's volume.
    ///
    /// With `by_overlap`, sides of equal volume are ranked by the Jaccard
    /// index of their ends' closed neighbourhoods: a diagonal that carries
    /// the bytes of one of its faces (an x factor of 1: the x–y edges weigh
    /// what the y faces weigh; or every volume equal, where an open 3D full
    /// halo's Jaccard skeleton fails) ties with it. In a full halo
    /// `N[u] ∩ N[v]` and `N[u] ∪ N[v]` are boxes: a face pair's overlap is 2
    /// wide along its direction, a diagonal's along each it spans, and the
    /// union is wider there, so a face has the larger index of each of its
    /// triangles with a diagonal (checked on every open box with sides 3 to
    /// 8 in 2D and up to 6 × 6 × 6 in 3D, and on every such torus whose
    /// sides are 4 or more). A direction of size 2 with equal volumes
    /// across it is not read here: its two layers are twins, and a
    /// diagonal across them is indistinguishable from a face
    /// ([`Adj::twin_layers`] reads it).
    ///
    /// [`Built::Skip`] when a process has more pairs than a 3D full halo's
    /// 26 (a large clique: no grid is read from it, and its pairs cost
    /// O(Δ) each); with `abort`, [`Built::Doomed`] as soon as the rows built
    /// so far prove that [`faces_grid`] refuses the skeleton.
    /// O(m · Δ log Δ), Δ ≤ 26.
    fn without_light_triangle_sides(
        &self,
        vol: impl Fn(usize, usize) -> f64,
        by_overlap: bool,
        abort: bool,
    ) -> Built {
        if (0..self.n()).any(|u| self.row(u).len() > FULL_3D) {
            return Built::Skip;
        }
        let mut marks = RowMarks::new(self.n());
        // Per entry (u, v): its volume and (with `by_overlap`) the sizes of
        // N[u] ∩ N[v] and N[u] ∪ N[v] (closed), made a whole row at a time
        // when a row is first read (a doomed skeleton stops after a few).
        let mut w_of = vec![0.0f64; self.nb.len()];
        let mut overlap: Vec<(usize, usize)> = if by_overlap {
            vec![(0, 1); self.nb.len()]
        } else {
            Vec::new()
        };
        let mut made = vec![false; self.n()];
        let mut row_marks = RowMarks::new(self.n());
        let mut make_row = |r: usize, w_of: &mut [f64], overlap: &mut [(usize, usize)]| {
            if made[r] {
                return;
            }
            made[r] = true;
            if by_overlap {
                row_marks.mark(self, r);
            }
            for (j, &x) in self.row(r).iter().enumerate() {
                let e = self.off[r] + j;
                w_of[e] = vol(r, x as usize);
                if by_overlap {
                    let inter = row_marks.common(self, x as usize) + 2;
                    let union = self.row(r).len() + self.row(x as usize).len() + 2 - inter;
                    overlap[e] = (inter, union);
                }
            }
        };
        // Per marked process u, the entry of each of u's neighbours in u's
        // row: a triangle's sides are then read in O(1), not by a search.
        let mut entry = vec![0u32; self.n()];
        let mut entry_of = NONE;
        let keep = |u: usize, k: usize| {
            let v = self.nb[k] as usize;
            make_row(u, &mut w_of, &mut overlap);
            make_row(v, &mut w_of, &mut overlap);
            let (w_of, overlap) = (&w_of, &overlap);
            marks.mark(self, u);
            if entry_of != u as u32 {
                for (j, &x) in self.row(u).iter().enumerate() {
                    entry[x as usize] = (self.off[u] + j) as u32;
                }
                entry_of = u as u32;
            }
            let w = w_of[k];
            let (i0, u0) = overlap.get(k).copied().unwrap_or((0, 1));
            // Entry e heavier than (u, v), or as heavy with a larger
            // Jaccard index (i / u).
            let heavier = |e: usize| {
                let x = w_of[e];
                x > w * (1.0 + 1e-9)
                    || (x >= w * (1.0 - 1e-9)
                        && overlap.get(e).is_some_and(|&(i, un)| i * u0 > i0 * un))
            };
            !(self.off[v]..self.off[v + 1]).any(|ev| {
                let x = self.nb[ev] as usize;
                marks.of[x] == u as u32 && heavier(entry[x] as usize) && heavier(ev)
            })
        };
        self.filter_symmetric(keep, abort)
    }
    /// A full halo with a direction of size 2 and equal volumes across it
    /// is K₂ ⊠ H: the two processes of every pair along it are twins (equal
    /// closed neighbourhoods), and exchanging any twins is an automorphism,
    /// so no rule on the graph tells a face across that direction from a
    /// diagonal. Any consistent choice is a grid: call the lower-numbered
    /// process of each twin pair layer 0, and keep the twin pairs and the
    /// pairs within a layer (two copies of H's halo, joined by the twins).
    /// None unless every process has exactly one twin. O(m · Δ).
    fn twin_layers(&self) -> Option<Adj> {
        let n = self.n();
        let mut twin = vec![NONE; n];
        let mut marks = RowMarks::new(n);
        for u in 0..n {
            marks.mark(self, u);
            for &v in self.row(u) {
                let v = v as usize;
                // Closed neighbourhoods equal: v sees all of u's neighbours
                // but itself, and no other.
                if self.row(v).len() == self.row(u).len()
                    && marks.common(self, v) + 1 == self.row(u).len()
                {
                    if twin[u] != NONE {
                        return None;
                    }
                    twin[u] = v as u32;
                }
            }
            if twin[u] == NONE {
                return None;
            }
        }
        let layer = |u: usize| u < twin[u] as usize;
        Some(Adj::filter(&self.off, &self.nb, |u, k| {
            let v = self.nb[k] as usize;
            twin[u] as usize == v || layer(u) == layer(v)
        }))
    }
}

/// What a skeleton's construction gave.
enum Built {
    /// The skeleton.
    Adj(Adj),
    /// No skeleton: nothing is tried.
    Skip,
    /// Stopped early: [`faces_grid`] refuses the skeleton (or, for
    /// [`Adj::without_square_diagonals`], there is none: a later row would
    /// have made it a skip). Built again in full only if its refusal is the
    /// failure the recognition reports ([`Skeleton::build`]).
    Doomed,
}

/// Degrees of the rows of a skeleton built so far: [`faces_grid`] refuses
/// a skeleton whose largest degree exceeds 2 · [`MAX_GRID_DIMS`] or twice
/// its least, and the whole skeleton's largest degree is at least, its
/// least at most, those of the rows so far.
struct Doom {
    least: usize,
    most: usize,
}

impl Doom {
    fn new() -> Self {
        Doom {
            least: usize::MAX,
            most: 0,
        }
    }
    /// One more row of `len` pairs: whether the skeleton is refused now.
    fn row(&mut self, len: usize) -> bool {
        self.least = self.least.min(len);
        self.most = self.most.max(len);
        degree_refusal(self.least, self.most).is_some()
    }
}

/// Why [`faces_grid`] refuses a skeleton whose degrees run from `least` to
/// `most`, if it does: more partners than a grid of [`MAX_GRID_DIMS`]
/// directions has, or a spread no grid has (a grid of d directions gives
/// every process one or two partners along each: degrees between d and
/// 2·d). O(1).
fn degree_refusal(least: usize, most: usize) -> Option<String> {
    if most > 2 * MAX_GRID_DIMS {
        Some(format!(
            "a process has {most} heavy partners, more than a {MAX_GRID_DIMS}-dimensional grid's {}",
            2 * MAX_GRID_DIMS
        ))
    } else if most > 2 * least {
        Some(format!(
            "processes have from {least} to {most} heavy partners, a spread no grid has"
        ))
    } else {
        None
    }
}

/// The skeletons [`recognise`] builds from the heavy part (after the heavy
/// part itself and its Jaccard skeleton), in the order they are tried.
#[derive(Clone, Copy)]
enum Skeleton {
    /// The Jaccard skeleton without its square diagonals.
    JaccardSquares,
    /// The heavy part without its square diagonals.
    Squares,
    /// The heavy part without the strict lightest side of each triangle.
    Triangles,
    /// The same, ties ranked by neighbourhood overlap.
    TrianglesByOverlap,
    /// The same on two twin layers.
    TwinTriangles,
}

impl Skeleton {
    const ALL: [Skeleton; 5] = [
        Skeleton::JaccardSquares,
        Skeleton::Squares,
        Skeleton::Triangles,
        Skeleton::TrianglesByOverlap,
        Skeleton::TwinTriangles,
    ];

    /// Build this skeleton of `heavy` (`jaccard` its Jaccard skeleton,
    /// `vol(u, v)` a pair's volume); with `abort`, stop as soon as it is
    /// doomed.
    fn build(
        self,
        heavy: &Adj,
        jaccard: &Adj,
        vol: impl Fn(usize, usize) -> f64,
        abort: bool,
    ) -> Built {
        match self {
            Skeleton::JaccardSquares => jaccard.without_square_diagonals(abort),
            Skeleton::Squares => heavy.without_square_diagonals(abort),
            Skeleton::Triangles => heavy.without_light_triangle_sides(vol, false, abort),
            Skeleton::TrianglesByOverlap => heavy.without_light_triangle_sides(vol, true, abort),
            Skeleton::TwinTriangles => heavy.twin_layers().map_or(Built::Skip, |l| {
                l.without_light_triangle_sides(vol, true, abort)
            }),
        }
    }
}

/// The answers of a rule that gives a pair the same answer from either
/// end, asked row by row in order ([`Adj::filter_symmetric`]): each pair is
/// decided at its lower end's row and its entry in the higher end's row
/// copies that answer (the entries of a row v above v are met in
/// increasing order as the rows are read, so a cursor per row finds them
/// in O(1)). An entry whose mirror is not found (an asymmetric adjacency)
/// is decided itself. O(n + m) memory.
struct Mirror {
    answer: Vec<bool>,
    /// Per row v: its first entry above v not yet mirrored.
    cursor: Vec<usize>,
}

impl Mirror {
    fn new(a: &Adj) -> Self {
        Mirror {
            answer: vec![false; a.nb.len()],
            cursor: (0..a.n())
                .map(|v| a.off[v] + a.row(v).partition_point(|&x| (x as usize) <= v))
                .collect(),
        }
    }

    /// The answer for entry `k` of row `u` of `a`: its mirror's when the
    /// pair was decided at its lower end, else `decide()`. O(1) plus
    /// `decide`.
    fn answer(&mut self, a: &Adj, u: usize, k: usize, decide: impl FnOnce() -> bool) -> bool {
        let v = a.nb[k] as usize;
        let e = if v < u { self.cursor[v] } else { usize::MAX };
        let ok = if e < a.off[v + 1] && a.nb[e] as usize == u {
            self.cursor[v] += 1;
            self.answer[e]
        } else {
            decide()
        };
        self.answer[k] = ok;
        ok
    }
}

/// The neighbours of one process marked, so that the common neighbours of
/// it and any other process are counted in O(degree of the other).
struct RowMarks {
    /// `of[x] == u` when x is a neighbour of the marked process u.
    of: Vec<u32>,
    marked: u32,
}

impl RowMarks {
    fn new(n: usize) -> Self {
        RowMarks {
            of: vec![NONE; n],
            marked: NONE,
        }
    }
    /// Mark `u`'s neighbours (nothing to do when they are marked).
    fn mark(&mut self, s: &Adj, u: usize) {
        if self.marked != u as u32 {
            for &x in s.row(u) {
                self.of[x as usize] = u as u32;
            }
            self.marked = u as u32;
        }
    }
    /// |N(marked) ∩ N(v)|.
    fn common(&self, s: &Adj, v: usize) -> usize {
        s.row(v)
            .iter()
            .filter(|&&x| self.of[x as usize] == self.marked)
            .count()
    }
}

/// Union–find with path halving (the union joins under the lower root).
pub(super) struct Uf(Vec<u32>);

impl Uf {
    pub(super) fn new(n: usize) -> Self {
        Uf((0..n as u32).collect())
    }
    pub(super) fn find(&mut self, mut x: usize) -> usize {
        while self.0[x] as usize != x {
            let p = self.0[x] as usize;
            self.0[x] = self.0[p];
            x = p;
        }
        x
    }
    pub(super) fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.0[ra.max(rb)] = ra.min(rb) as u32;
        }
    }
}

/// Recognise the graph as a grid halo, or say why not.
pub fn recognise(g: &CommGraph) -> Result<GridHalo, String> {
    recognise_or_beside(g, &pair_volumes(g)).map_err(|e| e.why)
}

/// Why [`recognise_or_beside`] read no grid of the whole graph.
#[derive(Clone, Debug, PartialEq)]
pub struct NoGrid {
    /// The failure, worded (naming the grid beside which a few processes
    /// stand, when there is one).
    pub why: String,
    /// The grid of all processes but a few ([`recognise_beside`]), when
    /// no reading of the whole graph was found but that one was.
    pub beside: Option<Box<Beside>>,
}

/// [`recognise`] given `vol = partition::pair_volumes(g)` (the caller
/// keeps them for later work on the same graph), and when it fails, the
/// grid of all processes but a few that stand beside it
/// ([`recognise_beside`]), if there is one.
pub fn recognise_or_beside(g: &CommGraph, vol: &[f64]) -> Result<GridHalo, NoGrid> {
    recognise_inner(g, vol, true, true)
}

/// Each process's heaviest pair volume (`vol` aligned with the CSR
/// `off`). O(m).
fn heaviest_pairs(off: &[usize], vol: &[f64]) -> Vec<f64> {
    off.windows(2)
        .map(|w| vol[w[0]..w[1]].iter().fold(0.0f64, |a, &b| a.max(b)))
        .collect()
}

/// The volume of pair `a`–`b` (0 when they do not exchange). O(log deg).
fn pair_volume(off: &[usize], nb: &[u32], vol: &[f64], a: usize, b: usize) -> f64 {
    let row = &nb[off[a]..off[a + 1]];
    row.binary_search(&(b as u32))
        .map_or(0.0, |i| vol[off[a] + i])
}

/// Per CSR entry u–v, the heavier of the two ends' heaviest pairs
/// (`maxw`): what [`heavy_part`] weighs the pair against. O(m).
fn pair_tops(off: &[usize], nb: &[u32], maxw: &[f64]) -> Vec<f64> {
    let mut top = Vec::with_capacity(nb.len());
    for u in 0..off.len().saturating_sub(1) {
        top.extend(
            nb[off[u]..off[u + 1]]
                .iter()
                .map(|&v| maxw[u].max(maxw[v as usize])),
        );
    }
    top
}

/// Whether entry `k` is in the heavy part at threshold `alpha`: its
/// volume is positive and at least `alpha` × `top[k]` ([`pair_tops`]).
#[inline]
fn is_heavy(vol: &[f64], top: &[f64], alpha: f64, k: usize) -> bool {
    vol[k] > 0.0 && vol[k] >= alpha * top[k]
}

/// The heavy part at threshold `alpha`: the pairs of at least `alpha` ×
/// the heaviest pair of either end (`top`, [`pair_tops`]). O(m).
fn heavy_part(off: &[usize], nb: &[u32], vol: &[f64], top: &[f64], alpha: f64) -> Adj {
    Adj::filter(off, nb, |_, k| is_heavy(vol, top, alpha, k))
}

/// Entries of [`heavy_part`]'s result (twice its pairs), counted without
/// building it. O(m).
fn heavy_entries(vol: &[f64], top: &[f64], alpha: f64) -> usize {
    // [`is_heavy`]'s test on the zipped slices (no index checks).
    vol.iter()
        .zip(top)
        .filter(|&(&v, &t)| v > 0.0 && v >= alpha * t)
        .count()
}

/// [`recognise`]; with `beside`, a failure also says whether the processes
/// but a few that no heavy pair reaches form a grid ([`recognise_beside`]).
/// With `abort`, a skeleton stops being built as soon as it is doomed
/// ([`Built::Doomed`]); the result is the same either way.
fn recognise_inner(
    g: &CommGraph,
    vol: &[f64],
    beside: bool,
    abort: bool,
) -> Result<GridHalo, NoGrid> {
    let n = g.n();
    if n < 2 {
        return Err(NoGrid {
            why: "fewer than two processes".into(),
            beside: None,
        });
    }
    let (off, nb) = (g.offsets(), g.targets());
    let maxw = heaviest_pairs(off, vol);
    let top = pair_tops(off, nb, &maxw);
    let total: f64 = vol.iter().sum::<f64>() / 2.0;
    let mut best: Option<GridHalo> = None;
    // The thresholds whose heavy part is disconnected: their stacked
    // readings count only when no other reading is found, so they are
    // made then (the same readings, in the same order).
    let mut disconnected: Vec<f64> = Vec::new();
    // The best reading as a product of two cliques: kept for when no
    // other reading is found.
    let mut product: Option<GridHalo> = None;
    // Why the last skeleton that failed did (the failure reported when no
    // reading is found), and the doomed skeletons tried after it, whose
    // refusals are worded only if one of them is that failure.
    let mut why = String::new();
    let mut doomed: Vec<(f64, Skeleton)> = Vec::new();
    let mut last_len = usize::MAX;
    // What faces_grid made of each skeleton read so far, and the reading
    // measured from it: a skeleton often recurs at another threshold, or as
    // another kind of skeleton of the same threshold.
    let mut read: Vec<(Adj, Result<Grid3, String>, Option<GridHalo>)> = Vec::new();
    let alphas = thresholds(off, nb, vol, &maxw);
    for &alpha in &alphas {
        // A heavy part of as many entries as the last one's is the same.
        if heavy_entries(vol, &top, alpha) == last_len {
            continue;
        }
        let heavy = heavy_part(off, nb, vol, &top, alpha);
        last_len = heavy.nb.len();
        if !heavy.connected() {
            why = format!(
                "the pairs of at least {alpha} × a process's heaviest do not connect all processes"
            );
            doomed.clear();
            disconnected.push(alpha);
            continue;
        }
        if best.is_none()
            && n <= super::product::MAX_PROCESSES
            && let Ok(h) = product_grid(g, vol, &heavy, alpha)
            && product.as_ref().is_none_or(|b| better(&h, b))
        {
            product = Some(h);
        }
        // The skeletons, in the order tried: the heavy part itself, then
        // (when it has triangles) its Jaccard skeleton and those of
        // [`Skeleton::ALL`]. An open full halo with equal volumes: the
        // diagonal pair of the two neighbours of a box corner also reaches
        // ½, and is the diagonal of a unit square of the Jaccard skeleton
        // (tried right after the Jaccard skeleton: when it equals it, as on
        // a torus, it is skipped). Then strict ties of triangle sides,
        // ties ranked by neighbourhood overlap, and the same on two twin
        // layers (a direction of size 2). Each is built when its turn
        // comes, and stops as soon as it is doomed.
        let jaccard = heavy.has_triangle().then(|| heavy.jaccard_skeleton());
        let mut prev: Option<Adj> = None;
        let mut tried = |s: &Adj, prev: &Option<Adj>, why: &mut String| {
            // A skeleton equal to the one before reads the same (or fails
            // the same way).
            if prev
                .as_ref()
                .is_some_and(|p| p.off == s.off && p.nb == s.nb)
            {
                return false;
            }
            // faces_grid's result and the measure of its grid depend on the
            // skeleton alone (but the threshold the reading records): made
            // once per skeleton. Only the check against the heavy part is
            // made anew.
            let at = match read
                .iter()
                .position(|r| r.0.nb.len() == s.nb.len() && r.0.off == s.off && r.0.nb == s.nb)
            {
                Some(i) => i,
                None => {
                    read.push((s.clone(), faces_grid(s), None));
                    read.len() - 1
                }
            };
            let (_, grid, measured) = &mut read[at];
            let reading =
                grid.as_ref()
                    .map_err(|e| e.clone())
                    .and_then(|(dims, periodic, coords)| {
                        check_heavy(&heavy, dims, periodic, coords)?;
                        let m = measured.get_or_insert_with(|| {
                            measure(
                                g,
                                vol,
                                dims.clone(),
                                periodic.clone(),
                                coords.clone(),
                                alpha,
                            )
                        });
                        let mut h = m.clone();
                        h.threshold = alpha;
                        Ok(h)
                    });
            match reading {
                Ok(h) => {
                    if best.as_ref().is_none_or(|b| better(&h, b)) {
                        best = Some(h);
                    }
                }
                Err(e) => *why = format!("at threshold {alpha}: {e}"),
            }
            true
        };
        if tried(&heavy, &prev, &mut why) {
            doomed.clear();
        }
        if let Some(jaccard) = &jaccard {
            prev = Some(heavy.clone());
            if tried(jaccard, &prev, &mut why) {
                doomed.clear();
            }
            prev = Some(jaccard.clone());
            let pair_vol = |a: usize, b: usize| pair_volume(off, nb, vol, a, b);
            for kind in Skeleton::ALL {
                match kind.build(&heavy, jaccard, pair_vol, abort) {
                    Built::Adj(s) => {
                        if tried(&s, &prev, &mut why) {
                            doomed.clear();
                        }
                        prev = Some(s);
                    }
                    Built::Skip => {}
                    Built::Doomed => {
                        doomed.push((alpha, kind));
                        // What it would be compared with is unknown: the
                        // next one is tried (an equal one reads the same).
                        prev = None;
                    }
                }
            }
        }
        if best
            .as_ref()
            .is_some_and(|b| b.covered_bytes() >= total * (1.0 - 1e-9))
        {
            break;
        }
    }
    // A reading of d dimensions gives each process at most 2·d face
    // neighbours: when even the 2·d heaviest pairs of every process carry
    // less than the share a reading must put between face neighbours, no
    // reading of that many dimensions can pass, and it is not tried.
    let share = RANK_ORDER_SHARE * total * (1.0 - 1e-9);
    if best.is_none() && face_bound(off, vol, 6) >= share {
        best = rank_order_grid(g, vol, total);
    }
    if best.is_none() && face_bound(off, vol, 4) >= share {
        for (dims, coords, alpha) in super::near_mesh::candidates(g, vol, &maxw, &LADDER) {
            let mut h = measure(g, vol, dims, vec![false; 2], coords, alpha);
            h.found = Found::NearMesh;
            if face_bytes(&h) >= RANK_ORDER_SHARE * total
                && best.as_ref().is_none_or(|b| more_faces(&h, b))
            {
                best = Some(h);
            }
        }
    }
    if best.is_none() {
        // The best stacked reading of a disconnected heavy part (the
        // largest threshold on a tie).
        let mut stacked: Option<GridHalo> = None;
        for &alpha in &disconnected {
            if let Ok(h) = stacked_grid(g, vol, &heavy_part(off, nb, vol, &top, alpha), alpha)
                && stacked.as_ref().is_none_or(|b| better(&h, b))
            {
                stacked = Some(h);
            }
        }
        best = match (product, stacked) {
            (Some(a), Some(b)) => Some(if better(&b, &a) { b } else { a }),
            (a, b) => a.or(b),
        };
    }
    let Some(h) = best else {
        // The last failure: the last doomed skeleton that is one when built
        // in full (its refusal), else the last worded one.
        while let Some((alpha, kind)) = doomed.pop() {
            let heavy = heavy_part(off, nb, vol, &top, alpha);
            let jaccard = heavy.jaccard_skeleton();
            let pair_vol = |a: usize, b: usize| pair_volume(off, nb, vol, a, b);
            if let Built::Adj(s) = kind.build(&heavy, &jaccard, pair_vol, false) {
                if let Err(e) = faces_grid(&s) {
                    why = format!("at threshold {alpha}: {e}");
                }
                break;
            }
        }
        if why.is_empty() {
            return Err(NoGrid {
                why: "no pair carries bytes".into(),
                beside: None,
            });
        }
        let beside = beside
            .then(|| beside_with(g, vol, &top, &alphas))
            .flatten()
            .map(Box::new);
        let rest = beside.as_ref().map(|b| b.describe()).unwrap_or_default();
        return Err(NoGrid {
            why: format!("no grid found ({why}){rest}"),
            beside,
        });
    };
    let found = h.found;
    let h = merge_size_two(g, vol, h);
    let mut h = measure_with(g, vol, h.dims, h.periodic, h.clique, h.coords, h.threshold);
    h.found = found;
    Ok(h)
}

/// Most processes left outside a grid by [`recognise_beside`]: one per
/// this many processes (at least one).
pub const BESIDE_PER: usize = 16;

/// A grid of all processes but a few (a master, an I/O rank): what
/// [`recognise_beside`] finds.
#[derive(Clone, Debug, PartialEq)]
pub struct Beside {
    /// The processes outside the grid, ascending.
    pub outside: Vec<usize>,
    /// The grid of the others, numbered in their order with the outside
    /// processes left out (process `p` of the graph is `p` minus the
    /// number of outside processes before it).
    pub grid: GridHalo,
    /// Share of all bytes on the outside processes' pairs.
    pub outside_share: f64,
}

impl Beside {
    /// "; without process(es) …, the others are a …": what a failure to
    /// read the whole graph adds.
    pub fn describe(&self) -> String {
        let who: Vec<String> = self.outside.iter().map(|p| p.to_string()).collect();
        format!(
            "; without process{} {} ({:.1}% of the bytes), the others are a {} ({})",
            if who.len() > 1 { "es" } else { "" },
            who.join(", "),
            self.outside_share * 100.0,
            self.grid.describe(),
            self.grid.found.describe()
        )
    }
}

/// The graph of the processes not in `outside` (ascending), numbered in
/// their order (process `p` becomes `p` minus the outside processes before
/// it), and the share of all bytes on the outside processes' pairs. None
/// when the graph cannot be built. O(n + m).
pub fn others_graph(g: &CommGraph, outside: &[usize]) -> Option<(CommGraph, f64)> {
    let n = g.n();
    let mut index = vec![usize::MAX; n];
    let mut k = 0;
    for (u, slot) in index.iter_mut().enumerate() {
        if outside.binary_search(&u).is_err() {
            *slot = k;
            k += 1;
        }
    }
    let mut b = crate::graph::GraphBuilder::new(k, g.is_directed());
    let (mut total, mut out_bytes) = (0.0, 0.0);
    for (u, v, w) in g.messages() {
        total += w;
        if index[u] == usize::MAX || index[v] == usize::MAX {
            out_bytes += w;
        } else {
            b.add(index[u], index[v], w);
        }
    }
    let share = if total > 0.0 { out_bytes / total } else { 0.0 };
    Some((b.build().ok()?, share))
}

/// A grid halo of all processes but a few that stand beside it: a master
/// that hands out work or broadcasts through the workers' own pairs, an
/// I/O rank, processes that exchange nothing. Its pairs are light for the
/// processes it talks to, so at
/// some threshold of [`recognise`]'s ladder the heavy part is one
/// component plus these processes alone (at most one per [`BESIDE_PER`]
/// processes, besides those that exchange no bytes); the component is read as a grid (an exact reading only)
/// with the outside processes removed. Their own pairs, light for their
/// partners, can break the reading of the whole graph at every threshold
/// (ESyS-Particle's master broadcasts along a binomial tree through its
/// 3 × 3 × 7 workers: `tests/data/captures/esys-cube-64.mtx`). The idea
/// is the master-worker split of real codes; the grid reading is
/// [`recognise`]'s. Cost: one connectivity test per threshold, O(m) each,
/// then one [`recognise`] of the rest.
pub fn recognise_beside(g: &CommGraph) -> Option<Beside> {
    if g.n() < 2 * BESIDE_PER {
        return None;
    }
    let vol = pair_volumes(g);
    let (off, nb) = (g.offsets(), g.targets());
    let maxw = heaviest_pairs(off, &vol);
    let top = pair_tops(off, nb, &maxw);
    beside_with(g, &vol, &top, &thresholds(off, nb, &vol, &maxw))
}

/// [`recognise_beside`] given the pair volumes, [`pair_tops`] and
/// [`thresholds`] of `g` (as [`recognise_inner`] has them). A threshold's
/// heavy part is built only when the processes it leaves alone (counted
/// first, in O(m)) are few enough and not none.
fn beside_with(g: &CommGraph, vol: &[f64], top: &[f64], alphas: &[f64]) -> Option<Beside> {
    let n = g.n();
    let most = (n / BESIDE_PER).max(1);
    if n < 2 * BESIDE_PER {
        return None;
    }
    let (off, nb) = (g.offsets(), g.targets());
    // Processes that exchange no bytes at all stand beside any grid,
    // however many they are: only the others count against `most`.
    let idle = |u: usize| vol[off[u]..off[u + 1]].iter().all(|&w| w <= 0.0);
    let mut alone = Vec::new();
    let outside = alphas.iter().find_map(|&alpha| {
        alone.clear();
        let mut talking = 0;
        for u in 0..n {
            if !(off[u]..off[u + 1]).any(|k| is_heavy(vol, top, alpha, k)) {
                alone.push(u);
                if !idle(u) {
                    talking += 1;
                    if talking > most {
                        return None;
                    }
                }
            }
        }
        if alone.is_empty() {
            return None;
        }
        let heavy = heavy_part(off, nb, vol, top, alpha);
        heavy.connected_but(&alone).then(|| alone.clone())
    })?;
    let (others, outside_share) = others_graph(g, &outside)?;
    let grid = recognise_inner(&others, &pair_volumes(&others), false, true).ok()?;
    (grid.found == Found::Exact).then_some(Beside {
        outside,
        grid,
        outside_share,
    })
}

/// Most thresholds added at gaps of the pairs' relative volumes.
const GAP_THRESHOLDS: usize = 6;
/// Least ratio between consecutive relative volumes that counts as a gap.
const GAP_RATIO: f64 = 1.25;

/// The thresholds tried, largest first: [`LADDER`], and the geometric
/// midpoints of the [`GAP_THRESHOLDS`] widest gaps (ratio at least
/// [`GAP_RATIO`]) between consecutive distinct relative volumes of the pairs
/// (a pair's volume over the heaviest pair of either end). A halo's classes
/// of pairs (each direction's faces, its edges, its corners) and light
/// extra traffic form clusters of relative volume, and the part that is
/// exactly the halo is cut at a gap that a fixed ladder may step over: a
/// full 3D halo with faces 0.8 : 0.6 : 0.4 has corners at 0.24 and 5 %
/// extra traffic to random ranks up to 0.145, and no rung of the ladder
/// lies between. O(m log m).
fn thresholds(off: &[usize], nb: &[u32], vol: &[f64], maxw: &[f64]) -> Vec<f64> {
    let mut rel: Vec<f64> = (0..off.len() - 1)
        .flat_map(|u| {
            (off[u]..off[u + 1]).filter_map(move |k| {
                let v = nb[k] as usize;
                let top = maxw[u].max(maxw[v]);
                (v > u && vol[k] > 0.0 && top > 0.0).then(|| vol[k] / top)
            })
        })
        .collect();
    rel.sort_unstable_by(|a, b| b.total_cmp(a));
    rel.dedup_by(|a, b| *a >= *b * (1.0 - 1e-9));
    let mut gaps: Vec<(f64, f64)> = rel
        .windows(2)
        .filter(|w| w[0] >= w[1] * GAP_RATIO)
        .map(|w| (w[0] / w[1], (w[0] * w[1]).sqrt()))
        .collect();
    gaps.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.total_cmp(&a.1)));
    let mut out: Vec<f64> = LADDER
        .iter()
        .copied()
        .chain(gaps.iter().take(GAP_THRESHOLDS).map(|g| g.1))
        .collect();
    out.sort_by(|a, b| b.total_cmp(a));
    out.dedup();
    out
}

/// Half the sum over processes of their `k` heaviest pair volumes: a bound
/// on the bytes between face neighbours of any grid reading that gives
/// each process at most `k` of them. O(m).
fn face_bound(off: &[usize], vol: &[f64], k: usize) -> f64 {
    let mut row = Vec::new();
    let mut sum = 0.0;
    for u in 0..off.len().saturating_sub(1) {
        row.clear();
        row.extend_from_slice(&vol[off[u]..off[u + 1]]);
        if row.len() > k {
            row.select_nth_unstable_by(k - 1, |a, b| b.total_cmp(a));
            row.truncate(k);
        }
        sum += row.iter().sum::<f64>();
    }
    sum / 2.0
}

/// Whether `a` puts more bytes between face neighbours than `b` (then
/// [`better`]): the order of the inexact recognitions, where a finer split
/// of the same grid turns face pairs into diagonal ones.
fn more_faces(a: &GridHalo, b: &GridHalo) -> bool {
    let (x, y) = (face_bytes(a), face_bytes(b));
    x > y * (1.0 + 1e-12) || (x >= y * (1.0 - 1e-12) && better(a, b))
}

/// Bytes between face neighbours.
fn face_bytes(h: &GridHalo) -> f64 {
    h.axis_bytes.iter().sum()
}

/// Whether `a` is a better recognition than `b`: more bytes between grid
/// neighbours, then more of them between face neighbours (a 2 × 3 × 5 grid
/// with diagonals can cover the same pairs as a 6 × 5 grid with fewer
/// diagonals).
fn better(a: &GridHalo, b: &GridHalo) -> bool {
    let (x, y) = (a.covered_bytes(), b.covered_bytes());
    x > y * (1.0 + 1e-12)
        || (x >= y * (1.0 - 1e-12) && face_bytes(a) > face_bytes(b) * (1.0 + 1e-12))
}

/// Share of the bytes a rank-order grid must carry between face neighbours
/// (on a small grid nearly every pair is a diagonal neighbour).
const RANK_ORDER_SHARE: f64 = 0.9;

/// When the structure is not an exact grid (a decomposition of a
/// non-rectangular domain: some neighbour pairs missing, some diagonal
/// pairs present), the application's own numbering may still be Cartesian:
/// try every 2D and 3D shape of `n` with the ranks numbered x-fastest, and
/// keep the one whose face pairs carry most bytes, if at least
/// [`RANK_ORDER_SHARE`] of all. A direction wraps when over 1 % of the bytes cross
/// its ends. This
/// only works in the application's order.
///
/// A shape is measured only when it may pass: numbered x-fastest, two
/// processes one step apart along direction i alone differ by its stride
/// s_i (the product of the sizes before it), or by (size − 1) · s_i across
/// a wrap, so the bytes of the pairs whose ranks differ by those amounts
/// bound its face bytes ([`rank_gap_bound`]); a shape whose bound is below
/// the share (by more than any rounding of the sums) cannot pass.
/// O(m + divisor pairs · (d + m) for the shapes measured).
fn rank_order_grid(g: &CommGraph, vol: &[f64], total: f64) -> Option<GridHalo> {
    rank_order_grid_with(g, vol, total, true)
}

/// Relative margin by which a shape's [`rank_gap_bound`] must fall short
/// of the share for it to be skipped: far above the rounding of sums of
/// non-negative doubles over fewer than 10⁹ pairs.
const GAP_BOUND_MARGIN: f64 = 1e-6;

/// Upper bound on the bytes between face neighbours of the rank-order grid
/// of `dims` (x fastest): Σ over directions of `by_gap[s_i]` and, for sizes
/// above 2, `by_gap[(size − 1) · s_i]`, where `by_gap[δ]` is the bytes of
/// the pairs whose ranks differ by δ. O(d).
fn rank_gap_bound(by_gap: &[f64], dims: &[u32]) -> f64 {
    let mut stride = 1usize;
    let mut bound = 0.0;
    for &k in dims {
        let k = k as usize;
        bound += by_gap[stride];
        if k > 2 {
            bound += by_gap[(k - 1) * stride];
        }
        stride *= k;
    }
    bound
}

/// [`rank_order_grid`]; without `skip`, every shape is measured (the
/// bound checked against that in the tests).
fn rank_order_grid_with(g: &CommGraph, vol: &[f64], total: f64, skip: bool) -> Option<GridHalo> {
    let n = g.n() as u32;
    let off = g.offsets();
    let mut by_gap = vec![0.0f64; g.n()];
    for u in 0..g.n() {
        for (k, &v) in g.neighbors(u).iter().enumerate() {
            if v as usize > u {
                by_gap[v as usize - u] += vol[off[u] + k];
            }
        }
    }
    let mut shapes: Vec<Vec<u32>> = Vec::new();
    for a in 2..n {
        if !n.is_multiple_of(a) {
            continue;
        }
        let r = n / a;
        if r >= 2 {
            shapes.push(vec![a, r]);
        }
        for b in 2..r {
            if r.is_multiple_of(b) && r / b >= 2 {
                shapes.push(vec![a, b, r / b]);
            }
        }
    }
    let mut best: Option<GridHalo> = None;
    for dims in shapes {
        if skip
            && rank_gap_bound(&by_gap, &dims) * (1.0 + GAP_BOUND_MARGIN) < RANK_ORDER_SHARE * total
        {
            continue;
        }
        let d = dims.len();
        let mut coords = Vec::with_capacity(n as usize * d);
        for p in 0..n {
            let mut q = p;
            for &k in &dims {
                coords.push(q % k);
                q /= k;
            }
        }
        // Wrap a direction when over 1 % of the bytes cross its ends.
        let mut wrap = vec![0.0; d];
        let pairs = (0..g.n()).flat_map(|u| {
            g.neighbors(u)
                .iter()
                .enumerate()
                .filter(move |(_, v)| **v as usize > u)
                .map(move |(k, &v)| (u, v as usize, vol[off[u] + k]))
        });
        for (u, v, c) in pairs {
            for i in 0..d {
                let (a, b) = (coords[u * d + i], coords[v * d + i]);
                if dims[i] > 2 && a.abs_diff(b) == dims[i] - 1 {
                    wrap[i] += c;
                }
            }
        }
        let periodic: Vec<bool> = wrap.iter().map(|&w| w > 0.01 * total).collect();
        let mut h = measure(g, vol, dims, periodic, coords, 0.0);
        h.found = Found::RankOrder;
        if face_bytes(&h) >= RANK_ORDER_SHARE * total
            && best.as_ref().is_none_or(|b| more_faces(&h, b))
        {
            best = Some(h);
        }
    }
    best
}

/// The heavy part `heavy` (pairs of at least `alpha` × a process's
/// heaviest) falls into several components: when they all have the same
/// size (3 or more) and each is a face-halo grid of the same shape, stack them along
/// one more direction ([`super::stacked::stack`]). O(m log m + σ·m).
fn stacked_grid(g: &CommGraph, vol: &[f64], heavy: &Adj, alpha: f64) -> Result<GridHalo, String> {
    let n = heavy.n();
    let mut comp = vec![NONE; n];
    let mut members: Vec<Vec<u32>> = Vec::new();
    for s in 0..n {
        if comp[s] != NONE {
            continue;
        }
        let c = members.len() as u32;
        let mut list = vec![s as u32];
        comp[s] = c;
        let mut i = 0;
        while i < list.len() {
            let u = list[i] as usize;
            i += 1;
            for &v in heavy.row(u) {
                if comp[v as usize] == NONE {
                    comp[v as usize] = c;
                    list.push(v);
                }
            }
        }
        list.sort_unstable();
        members.push(list);
    }
    let k = members.len();
    let size = members[0].len();
    // Components of two (heavy pairs) say too little about a grid.
    if k < 2 || size < 3 || members.iter().any(|m| m.len() != size) {
        return Err("the heavy part's components are not of one size of at least 3".into());
    }
    let mut local: Vec<u32> = Vec::new();
    let mut shape: Option<(Vec<u32>, Vec<bool>)> = None;
    let mut index = vec![0u32; n];
    for m in &members {
        for (i, &p) in m.iter().enumerate() {
            index[p as usize] = i as u32;
        }
        let sub = Adj::filter_rows(heavy, m, &index);
        let (dims, periodic, coords) = faces_grid(&sub)?;
        // Each component numbers its directions in its own way: put them
        // in one order (by size, then periodicity) so equal shapes compare
        // equal.
        let (dims, periodic, coords) = canonical_axes(dims, periodic, coords);
        let d = dims.len();
        match &shape {
            None => {
                local = vec![0; n * d];
                shape = Some((dims, periodic));
            }
            Some((sd, sp)) if *sd == dims && *sp == periodic => {}
            Some(_) => {
                return Err("the heavy part's components are grids of different shapes".into());
            }
        }
        for (i, &p) in m.iter().enumerate() {
            local[p as usize * d..(p as usize + 1) * d]
                .copy_from_slice(&coords[i * d..(i + 1) * d]);
        }
    }
    let Some((dims, periodic)) = shape else {
        return Err("no component".into());
    };
    if dims.len() + 1 > MAX_GRID_DIMS {
        return Err("too many directions to stack".into());
    }
    let off = g.offsets();
    let mut pairs = Vec::new();
    for u in 0..n {
        for (k, &v) in g.neighbors(u).iter().enumerate() {
            if (v as usize) > u {
                pairs.push((u as u32, v, vol[off[u] + k]));
            }
        }
    }
    let (dims, periodic, coords) =
        super::stacked::stack(&comp, k, &dims, &periodic, &local, &pairs)?;
    let mut h = measure(g, vol, dims, periodic, coords, alpha);
    h.found = Found::Stacked;
    Ok(h)
}

/// A grid's directions sorted by size, then periodicity (open first),
/// with every process's coordinates permuted alike. O(n·d).
fn canonical_axes(
    dims: Vec<u32>,
    periodic: Vec<bool>,
    coords: Vec<u32>,
) -> (Vec<u32>, Vec<bool>, Vec<u32>) {
    let d = dims.len();
    let mut order: Vec<usize> = (0..d).collect();
    order.sort_by_key(|&i| (dims[i], periodic[i]));
    let coords = coords
        .chunks(d.max(1))
        .flat_map(|c| order.iter().map(move |&i| c[i]))
        .collect();
    (
        order.iter().map(|&i| dims[i]).collect(),
        order.iter().map(|&i| periodic[i]).collect(),
        coords,
    )
}

/// The heavy part read as a product of two cliques (rows and columns
/// that each talk all-to-all, [`super::product`]): a 2D grid whose two
/// directions are cliques. O(Σ deg² log Δ).
fn product_grid(g: &CommGraph, vol: &[f64], heavy: &Adj, alpha: f64) -> Result<GridHalo, String> {
    let p = super::product::read(&heavy.off, &heavy.nb)?;
    let mut h = measure_with(
        g,
        vol,
        p.dims.to_vec(),
        vec![false; 2],
        vec![true; 2],
        p.coords,
        alpha,
    );
    h.found = Found::Product;
    Ok(h)
}

/// Every heavy pair must be a grid neighbour (Chebyshev distance 1).
fn check_heavy(heavy: &Adj, dims: &[u32], periodic: &[bool], coords: &[u32]) -> Result<(), String> {
    let d = dims.len();
    for u in 0..heavy.n() {
        for &v in heavy.row(u) {
            let v = v as usize;
            let (cu, cv) = (&coords[u * d..u * d + d], &coords[v * d..v * d + d]);
            if (0..d).any(|i| axis_dist(cu[i], cv[i], dims[i], periodic[i]) > 1) {
                return Err(format!("heavy pair {u}–{v} is not between grid neighbours"));
            }
        }
    }
    Ok(())
}

/// Distance along one direction (the shorter way round when periodic).
pub fn axis_dist(a: u32, b: u32, size: u32, periodic: bool) -> u32 {
    let x = a.abs_diff(b);
    if periodic { x.min(size - x) } else { x }
}

/// Classify every pair of `g` against the grid: face (per direction),
/// diagonal, or left out.
fn measure(
    g: &CommGraph,
    vol: &[f64],
    dims: Vec<u32>,
    periodic: Vec<bool>,
    coords: Vec<u32>,
    threshold: f64,
) -> GridHalo {
    let clique = vec![false; dims.len()];
    measure_with(g, vol, dims, periodic, clique, coords, threshold)
}

/// [`measure`] with clique directions: along one, any two different
/// positions are one step apart.
fn measure_with(
    g: &CommGraph,
    vol: &[f64],
    dims: Vec<u32>,
    periodic: Vec<bool>,
    clique: Vec<bool>,
    coords: Vec<u32>,
    threshold: f64,
) -> GridHalo {
    let d = dims.len();
    let mut axis_bytes = vec![0.0; d];
    let (mut diagonal_bytes, mut other_bytes, mut other_pairs) = (0.0, 0.0, 0);
    let off = g.offsets();
    for u in 0..g.n() {
        for (k, &v) in g.neighbors(u).iter().enumerate() {
            let v = v as usize;
            if v < u {
                continue;
            }
            let c = vol[off[u] + k];
            let (cu, cv) = (&coords[u * d..u * d + d], &coords[v * d..v * d + d]);
            let mut far = false;
            // Directions along which the pair is one step apart: how many,
            // and the first.
            let (mut moved, mut first) = (0usize, 0usize);
            for i in 0..d {
                let step = if clique[i] {
                    u32::from(cu[i] != cv[i])
                } else {
                    axis_dist(cu[i], cv[i], dims[i], periodic[i])
                };
                match step {
                    0 => {}
                    1 => {
                        if moved == 0 {
                            first = i;
                        }
                        moved += 1;
                    }
                    _ => far = true,
                }
            }
            // Along a clique only one direction may change: two processes
            // in different rows and columns are not partners.
            let clique_moved = moved > 1 && (0..d).any(|i| clique[i] && cu[i] != cv[i]);
            if far || moved == 0 || clique_moved {
                other_bytes += c;
                other_pairs += 1;
            } else if moved == 1 {
                axis_bytes[first] += c;
            } else {
                diagonal_bytes += c;
            }
        }
    }
    GridHalo {
        dims,
        periodic,
        clique,
        coords,
        axis_bytes,
        diagonal_bytes,
        other_bytes,
        other_pairs,
        threshold,
        found: Found::Exact,
    }
}

/// Most size-2 directions whose pairings are all tried (764 matchings);
/// above it the pairs are taken greedily by bytes.
const MERGE_TRIED_MAX: usize = 8;

/// Merge pairs of size-2 directions whose bytes agree within 5 % into
/// periodic directions of size 4 (Gray order). A pair's two directions
/// came from one 4-cycle when a periodic direction had size 4.
///
/// Which directions pair up is not always told by their bytes: a 4 × 4 × 4
/// torus halo with equal volumes reads as six size-2 directions of equal
/// bytes, and fifteen pairings give a 4 × 4 × 4 torus. Its faces are unit
/// steps under every one, but its edges and corners only under the one the
/// application has. So every matching of the directions whose bytes agree
/// is measured against the whole graph (up to [`MERGE_TRIED_MAX`]
/// directions): of the matchings with most pairs, the one that covers most
/// bytes wins, then the first in the greedy order (closest bytes first),
/// which does not depend on the numbering when the bytes differ.
/// O(M · m) for M ≤ 764 matchings.
fn merge_size_two(g: &CommGraph, vol: &[f64], h: GridHalo) -> GridHalo {
    let d = h.ndims();
    let mut twos: Vec<usize> = (0..d).filter(|&i| h.dims[i] == 2).collect();
    if twos.len() < 2 {
        return h;
    }
    // Closest bytes first: sort by bytes, pair neighbours in that order.
    twos.sort_by(|&a, &b| h.axis_bytes[a].total_cmp(&h.axis_bytes[b]).then(a.cmp(&b)));
    let agree = |a: usize, b: usize| {
        let (x, y) = (h.axis_bytes[a], h.axis_bytes[b]);
        (x - y).abs() <= 0.05 * x.max(y)
    };
    let mut matchings: Vec<Vec<(usize, usize)>> = Vec::new();
    if twos.len() <= MERGE_TRIED_MAX {
        matchings_of(&twos, &agree, &mut Vec::new(), &mut matchings);
    } else {
        let mut pairs = Vec::new();
        let mut k = 0;
        while k + 1 < twos.len() {
            let (a, b) = (twos[k], twos[k + 1]);
            if agree(a, b) {
                pairs.push((a.min(b), a.max(b)));
                k += 2;
            } else {
                k += 1;
            }
        }
        matchings.push(pairs);
    }
    let mut best: Option<(GridHalo, usize)> = None;
    for pairs in matchings.iter().filter(|p| !p.is_empty()) {
        let m = merged(&h, pairs);
        let m = measure_with(g, vol, m.dims, m.periodic, m.clique, m.coords, h.threshold);
        // More pairs first: a pair of size-2 directions left apart covers
        // its 2 × 2 squares' diagonals whatever the structure.
        let wins = best.as_ref().is_none_or(|(b, np)| {
            let (x, y) = (m.covered_bytes(), b.covered_bytes());
            pairs.len() > *np || (pairs.len() == *np && x > y * (1.0 + 1e-12))
        });
        if wins {
            best = Some((m, pairs.len()));
        }
    }
    best.map_or(h, |(m, _)| m)
}

/// Every matching of `rest` (in order: the first direction paired with each
/// later one it agrees with, then left alone), appended to `out`.
fn matchings_of(
    rest: &[usize],
    agree: &impl Fn(usize, usize) -> bool,
    cur: &mut Vec<(usize, usize)>,
    out: &mut Vec<Vec<(usize, usize)>>,
) {
    let Some((&a, tail)) = rest.split_first() else {
        out.push(cur.clone());
        return;
    };
    for (j, &b) in tail.iter().enumerate() {
        if agree(a, b) {
            let others: Vec<usize> = tail
                .iter()
                .enumerate()
                .filter(|&(k, _)| k != j)
                .map(|(_, &x)| x)
                .collect();
            cur.push((a.min(b), a.max(b)));
            matchings_of(&others, agree, cur, out);
            cur.pop();
        }
    }
    matchings_of(tail, agree, cur, out);
}

/// `h` with each pair of size-2 directions merged into one periodic
/// direction of size 4 (Gray order 00, 10, 11, 01).
fn merged(h: &GridHalo, pairs: &[(usize, usize)]) -> GridHalo {
    let d = h.ndims();
    let gone: Vec<usize> = pairs.iter().map(|p| p.1).collect();
    let keep: Vec<usize> = (0..d).filter(|i| !gone.contains(i)).collect();
    let nd = keep.len();
    let n = h.coords.len() / d;
    let mut coords = vec![0u32; n * nd];
    for p in 0..n {
        let c = h.coord(p);
        for (j, &i) in keep.iter().enumerate() {
            coords[p * nd + j] = match pairs.iter().find(|q| q.0 == i) {
                // Gray order: 00 → 0, 10 → 1, 11 → 2, 01 → 3.
                Some(&(a, b)) => match (c[a], c[b]) {
                    (0, 0) => 0,
                    (1, 0) => 1,
                    (1, 1) => 2,
                    _ => 3,
                },
                None => c[i],
            };
        }
    }
    let paired = |i: usize| pairs.iter().any(|q| q.0 == i);
    GridHalo {
        dims: keep
            .iter()
            .map(|&i| if paired(i) { 4 } else { h.dims[i] })
            .collect(),
        periodic: keep.iter().map(|&i| paired(i) || h.periodic[i]).collect(),
        clique: keep.iter().map(|&i| h.clique[i]).collect(),
        coords,
        axis_bytes: vec![0.0; nd],
        ..h.clone()
    }
}

type Grid3 = (Vec<u32>, Vec<bool>, Vec<u32>);

/// Recognise a face-halo grid on skeleton `s`: dims, periodic flags and
/// coordinates (steps 3–5 of the module docs).
fn faces_grid(s: &Adj) -> Result<Grid3, String> {
    faces_grid_with(s, true)
}

/// [`faces_grid`]; with `least_corner` and a symmetric skeleton (every
/// entry's mirror present), each square is found once, at its least
/// corner, and marked at all four: the same marks and, with every entry
/// joined to its mirror, the same parallel classes as finding it at each
/// corner (the four corners' unions join the same two pairs of opposite
/// edges), with a quarter of the enumeration and of the unions.
fn faces_grid_with(s: &Adj, least_corner: bool) -> Result<Grid3, String> {
    let n = s.n();
    let maxdeg = (0..n).map(|u| s.row(u).len()).max().unwrap_or(0);
    let mindeg = (0..n).map(|u| s.row(u).len()).min().unwrap_or(0);
    // Checked first, in O(n), as the degrees reject most skeletons of
    // irregular graphs (unstructured meshes) before their squares are
    // enumerated. With no pairs at all, neither rule refuses.
    if let Some(why) = degree_refusal(mindeg, maxdeg) {
        return Err(why);
    }
    if maxdeg == 0 {
        return Err("no heavy pairs".into());
    }
    let m2 = s.nb.len();
    let mut uf = Uf::new(m2);
    let mut mirrored = 0;
    for u in 0..n {
        for (k, &v) in s.row(u).iter().enumerate() {
            if let Some(r) = s.pos(v as usize, u) {
                uf.union(s.off[u] + k, r);
                mirrored += 1;
            }
        }
    }
    let least_corner = least_corner && mirrored == m2;
    // on_square[u's entry a] bit b: entries a and b of u lie on a square.
    // Adjacency to u and to b is read from stamps (the unions' order does
    // not change the classes, nor their least members).
    let mut on_square = vec![0u16; m2];
    let mut u_mark = vec![NONE; n];
    // b_mark[c] = (stamp, entry of c in b's row) for b's neighbours c.
    let mut b_mark = vec![(NONE, 0u32); n];
    let mut stamp = 0u32;
    // Entries e and f of one row lie on a square.
    let mut pair_on_square = |e: usize, f: usize, row_start: usize| {
        on_square[e] |= 1 << (f - row_start);
        on_square[f] |= 1 << (e - row_start);
    };
    for u in 0..n {
        let r = s.row(u);
        for &x in r {
            u_mark[x as usize] = u as u32;
        }
        // With `least_corner`, only squares whose other corners are all
        // above u.
        let first = if least_corner {
            r.partition_point(|&x| x as usize <= u)
        } else {
            0
        };
        for kb in first..r.len() {
            let b = r[kb] as usize;
            stamp += 1;
            for (j, &c) in s.row(b).iter().enumerate() {
                b_mark[c as usize] = (stamp, j as u32);
            }
            for ka in first..kb {
                let a = r[ka] as usize;
                if b_mark[a].0 == stamp {
                    continue;
                }
                for (j, &c) in s.row(a).iter().enumerate() {
                    let c = c as usize;
                    if c == u
                        || b_mark[c].0 != stamp
                        || u_mark[c] == u as u32
                        || (least_corner && c < u)
                    {
                        continue;
                    }
                    // Square u–a–c–b: opposite edges are parallel.
                    let (bc, ac) = (s.off[b] + b_mark[c].1 as usize, s.off[a] + j);
                    uf.union(s.off[u] + ka, bc);
                    uf.union(s.off[u] + kb, ac);
                    pair_on_square(s.off[u] + ka, s.off[u] + kb, s.off[u]);
                    if least_corner
                        && let (Some(au), Some(bu), Some(ca), Some(cb)) =
                            (s.pos(a, u), s.pos(b, u), s.pos(c, a), s.pos(c, b))
                    {
                        pair_on_square(au, ac, s.off[a]);
                        pair_on_square(bu, bc, s.off[b]);
                        pair_on_square(ca, cb, s.off[c]);
                    }
                }
            }
        }
    }
    for u in 0..n {
        let deg = s.row(u).len();
        for ka in 0..deg {
            for kb in ka + 1..deg {
                if on_square[s.off[u] + ka] & (1 << kb) == 0 {
                    uf.union(s.off[u] + ka, s.off[u] + kb);
                }
            }
        }
    }
    // Directions.
    // Per root entry, its class: numbered in order of first appearance.
    let mut class_of_root = vec![NONE; m2];
    let mut d = 0usize;
    let mut class = vec![0u8; m2];
    for (e, c) in class.iter_mut().enumerate() {
        let r = uf.find(e);
        if class_of_root[r] == NONE {
            class_of_root[r] = d as u32;
            d += 1;
        }
        let id = class_of_root[r] as usize;
        if id >= MAX_GRID_DIMS {
            return Err(format!(
                "the heavy pairs fall into more than {MAX_GRID_DIMS} directions"
            ));
        }
        *c = id as u8;
    }
    // Per process and direction: its (at most two) neighbours.
    let mut dn = vec![[NONE; 2]; n * d];
    for u in 0..n {
        for (k, &v) in s.row(u).iter().enumerate() {
            let slot = &mut dn[u * d + class[s.off[u] + k] as usize];
            if slot[0] == NONE {
                slot[0] = v;
            } else if slot[1] == NONE {
                slot[1] = v;
            } else {
                return Err(format!("process {u} has three heavy partners on one line"));
            }
        }
    }
    let count = |u: usize, i: usize| dn[u * d + i].iter().filter(|&&x| x != NONE).count();
    let mut periodic = vec![true; d];
    for u in 0..n {
        for (i, p) in periodic.iter_mut().enumerate() {
            match count(u, i) {
                0 => return Err(format!("process {u} has no partner along direction {i}")),
                1 => *p = false,
                _ => {}
            }
        }
    }
    // A corner: walk to the end of every open line.
    let mut r = 0usize;
    for i in 0..d {
        if periodic[i] || count(r, i) == 1 {
            continue;
        }
        let (mut prev, mut cur) = (r, dn[r * d + i][0] as usize);
        for _ in 0..n {
            if count(cur, i) == 1 {
                break;
            }
            let e = dn[cur * d + i];
            let next = if e[0] as usize == prev { e[1] } else { e[0] } as usize;
            prev = cur;
            cur = next;
        }
        if count(cur, i) != 1 {
            return Err(format!("direction {i} has an open line with no end"));
        }
        r = cur;
    }
    // Line lengths from the corner.
    let mut dims = vec![0u32; d];
    for i in 0..d {
        let (mut prev, mut cur, mut len) = (r, dn[r * d + i][0] as usize, 2u32);
        loop {
            let e = dn[cur * d + i];
            let next = if e[0] as usize == prev { e[1] } else { e[0] };
            if next == NONE {
                break;
            }
            if next as usize == r {
                if !periodic[i] {
                    return Err(format!("direction {i} mixes cycles and paths"));
                }
                break;
            }
            prev = cur;
            cur = next as usize;
            len += 1;
            if len as usize > n {
                return Err(format!("direction {i} has a line longer than the graph"));
            }
        }
        if periodic[i] && count(cur, i) != 2 {
            return Err(format!("direction {i} mixes cycles and paths"));
        }
        dims[i] = len;
    }
    let cells = dims
        .iter()
        .try_fold(1usize, |a, &x| a.checked_mul(x as usize));
    if cells != Some(n) {
        return Err(format!(
            "lines of lengths {} do not multiply to {n} processes",
            dims.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join("×")
        ));
    }
    // Breadth-first coordinates with orientation.
    let mut coords = vec![NONE; n * d];
    let mut plus = vec![NONE; n * d];
    let mut minus = vec![NONE; n * d];
    for i in 0..d {
        coords[r * d + i] = 0;
        plus[r * d + i] = dn[r * d + i][0];
        minus[r * d + i] = dn[r * d + i][1];
    }
    let mut queue = std::collections::VecDeque::from([r]);
    let mut seen = vec![false; n];
    seen[r] = true;
    while let Some(v) = queue.pop_front() {
        for j in 0..d {
            for (w, up) in [(plus[v * d + j], true), (minus[v * d + j], false)] {
                if w == NONE {
                    continue;
                }
                let w = w as usize;
                let c = coords[v * d + j];
                let cj = match (up, periodic[j]) {
                    (true, true) => (c + 1) % dims[j],
                    (false, true) => (c + dims[j] - 1) % dims[j],
                    (true, false) => c + 1,
                    (false, false) => c.wrapping_sub(1),
                };
                if cj >= dims[j] {
                    return Err(format!("process {w} falls outside the grid"));
                }
                if seen[w] {
                    let same = (0..d)
                        .all(|i| coords[w * d + i] == if i == j { cj } else { coords[v * d + i] });
                    if !same {
                        return Err(format!("process {w} gets two different coordinates"));
                    }
                    continue;
                }
                seen[w] = true;
                for i in 0..d {
                    coords[w * d + i] = if i == j { cj } else { coords[v * d + i] };
                    let e = dn[w * d + i];
                    let (p, q) = if i == j {
                        let other = if e[0] as usize == v { e[1] } else { e[0] };
                        if e[0] as usize != v && e[1] as usize != v {
                            return Err(format!("process {w} lost its line to {v}"));
                        }
                        if up {
                            (other, v as u32)
                        } else {
                            (v as u32, other)
                        }
                    } else {
                        let (anchor, is_plus) = if plus[v * d + i] != NONE {
                            (plus[v * d + i] as usize, true)
                        } else {
                            (minus[v * d + i] as usize, false)
                        };
                        let near: Vec<u32> = e
                            .iter()
                            .copied()
                            .filter(|&x| x != NONE && s.adjacent(x as usize, anchor))
                            .collect();
                        if near.len() != 1 {
                            return Err(format!(
                                "process {w}'s line along direction {i} is not parallel to {v}'s"
                            ));
                        }
                        let other = if e[0] == near[0] { e[1] } else { e[0] };
                        if is_plus {
                            (near[0], other)
                        } else {
                            (other, near[0])
                        }
                    };
                    plus[w * d + i] = p;
                    minus[w * d + i] = q;
                }
                queue.push_back(w);
            }
        }
    }
    if let Some(u) = seen.iter().position(|&x| !x) {
        return Err(format!("process {u} is not reached along the grid's lines"));
    }
    // Bijection onto the box.
    let mut taken = vec![false; n];
    for u in 0..n {
        let mut id = 0usize;
        for i in (0..d).rev() {
            id = id * dims[i] as usize + coords[u * d + i] as usize;
        }
        if std::mem::replace(&mut taken[id], true) {
            return Err(format!("two processes share process {u}'s grid position"));
        }
    }
    // Every skeleton edge is a unit step.
    for u in 0..n {
        for &v in s.row(u) {
            let v = v as usize;
            let steps: u32 = (0..d)
                .map(|i| axis_dist(coords[u * d + i], coords[v * d + i], dims[i], periodic[i]))
                .sum();
            if steps != 1 {
                return Err(format!("pair {u}–{v} is not a unit step of the grid"));
            }
        }
    }
    // A wrapped direction of size 2 or 3 is the same graph either way.
    Ok((dims, periodic, coords))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{GenOptions, Neighbors, generate};

    fn opts(neighbors: Neighbors, periodic: bool, shuffle: bool) -> GenOptions {
        GenOptions {
            neighbors,
            periodic,
            shuffle,
            seed: 7,
            ..GenOptions::default()
        }
    }

    /// The generator's `spec` with all neighbours (`full`) or faces only,
    /// `periodic` or not, its ranks shuffled by `seed`.
    /// The generator's graph of `spec` for `seed` (its other options the
    /// defaults).
    fn seeded(spec: &str, seed: u64) -> CommGraph {
        let o = GenOptions {
            seed,
            ..GenOptions::default()
        };
        generate(spec, &o).unwrap()
    }

    fn shuffled_halo(spec: &str, full: bool, periodic: bool, seed: u64) -> CommGraph {
        let neighbors = if full {
            Neighbors::Full
        } else {
            Neighbors::Faces
        };
        let o = GenOptions {
            seed,
            ..opts(neighbors, periodic, true)
        };
        generate(spec, &o).unwrap()
    }

    /// Undirected adjacency of `n` processes from a list of pairs.
    fn adj_of(n: usize, pairs: &[(u32, u32)]) -> Adj {
        let mut rows = vec![Vec::new(); n];
        for &(u, v) in pairs {
            rows[u as usize].push(v);
            rows[v as usize].push(u);
        }
        let mut off = vec![0];
        let mut nb = Vec::new();
        for mut r in rows {
            r.sort_unstable();
            nb.extend(r);
            off.push(nb.len());
        }
        Adj { off, nb }
    }

    #[test]
    fn a_skeleton_whose_degrees_spread_over_a_factor_two_is_no_grid() {
        // A path 0–1–2 with a spur 1–3: degrees 1 and 3 (no grid has
        // them: d directions give every process d to 2·d partners).
        let e = faces_grid(&adj_of(4, &[(0, 1), (1, 2), (1, 3)])).unwrap_err();
        assert!(e.contains("from 1 to 3 heavy partners"), "{e}");
        // A 2 × 3 mesh (degrees 2 and 3) is read.
        let mesh = adj_of(6, &[(0, 1), (1, 2), (3, 4), (4, 5), (0, 3), (1, 4), (2, 5)]);
        let (mut dims, periodic, _) = faces_grid(&mesh).unwrap();
        dims.sort_unstable();
        assert_eq!((dims, periodic), (vec![2, 3], vec![false, false]));
    }

    /// The recovered grid must reproduce the generator's coordinates up to
    /// a symmetry of the box: every pair of processes at grid distance 1 in
    /// the truth is at distance 1 in the recovery.
    fn check(spec: &str, o: &GenOptions, dims: &[u32]) {
        let g = generate(spec, o).unwrap();
        let h = recognise(&g).unwrap_or_else(|e| panic!("{spec}: {e}"));
        let mut got = h.dims.clone();
        got.sort_unstable();
        let mut want = dims.to_vec();
        want.sort_unstable();
        assert_eq!(got, want, "{spec}");
        assert_eq!(h.other_bytes, 0.0, "{spec}");
        let (a, b) = (h.covered_bytes(), g.total_bytes());
        assert!((a - b).abs() <= 1e-12 * b, "{spec}: {a} vs {b}");
    }

    /// A master beside a grid: process 0 broadcasts 4 bytes along a
    /// binomial tree (r → r + 2^k for r < 2^k) to workers 1..=32, each
    /// worker w + 1 at (w mod 4, ⌊w/4⌋ mod 4, ⌊w/16⌋) of an open 4 × 4 × 2
    /// grid whose face pairs exchange 10 bytes each way. The tree's pairs
    /// between workers two or more steps apart (1 → 3, 2 → 6, …) break
    /// every reading of the whole graph; at threshold ½ the master is
    /// alone (4 < ½ × 10) and the workers are exactly the grid. Shuffled,
    /// the master is found wherever it is numbered, and the workers' read
    /// coordinates keep their Manhattan distances.
    #[test]
    fn a_master_beside_a_grid_is_left_outside() {
        let n = 33;
        let at = |p: usize| {
            let w = p - 1;
            [w % 4, w / 4 % 4, w / 16]
        };
        for seed in [None, Some(3)] {
            let mut perm: Vec<usize> = (0..n).collect();
            if let Some(s) = seed {
                crate::rng::Rng::new(s).shuffle(&mut perm);
            }
            let mut b = crate::graph::GraphBuilder::new(n, true);
            for u in 1..n {
                for v in 1..n {
                    let (a, c) = (at(u), at(v));
                    let dist: usize = a.iter().zip(c).map(|(x, y)| x.abs_diff(y)).sum();
                    if dist == 1 {
                        b.add(perm[u], perm[v], 10.0);
                    }
                }
            }
            let mut k = 1;
            while k < n {
                for r in 0..k.min(n - k) {
                    b.add(perm[r], perm[r + k], 4.0);
                }
                k *= 2;
            }
            let g = b.build().unwrap();
            let e = recognise(&g).unwrap_err();
            let master = perm[0];
            assert!(
                e.contains(&format!("without process {master} (")) && e.contains("mesh halo"),
                "{seed:?}: {e}"
            );
            let r = recognise_beside(&g).unwrap();
            assert_eq!(r.outside, vec![master], "{seed:?}");
            assert_eq!(r.grid.found, Found::Exact);
            let mut dims = r.grid.dims.clone();
            dims.sort_unstable();
            assert_eq!(dims, vec![2, 4, 4], "{seed:?}");
            let index = |p: usize| p - usize::from(p > master);
            for u in 1..n {
                for v in 1..n {
                    let (a, c) = (r.grid.coord(index(perm[u])), r.grid.coord(index(perm[v])));
                    let read: u32 = a.iter().zip(c).map(|(x, y)| x.abs_diff(*y)).sum();
                    let own: usize = at(u).iter().zip(at(v)).map(|(x, y)| x.abs_diff(y)).sum();
                    assert_eq!(read as usize, own, "{seed:?}: {u} {v}");
                }
            }
            // The master's own tree pairs go to 1, 2, 4, 8, 16 and 32:
            // 6 × 4 bytes.
            let total = g.total_bytes();
            assert!(
                (r.outside_share - 24.0 / total).abs() < 1e-12,
                "{}",
                r.outside_share
            );
        }
    }

    #[test]
    fn face_halos_in_any_order() {
        for shuffle in [false, true] {
            let f = opts(Neighbors::Faces, false, shuffle);
            check("stencil:8x4x3", &f, &[8, 4, 3]);
            check("stencil:16x16", &f, &[16, 16]);
            check("stencil:7", &f, &[7]);
            let t = opts(Neighbors::Faces, true, shuffle);
            check("stencil:8x8x8", &t, &[8, 8, 8]);
            check("stencil:5x3", &t, &[5, 3]);
            check("stencil:6x4x5", &t, &[6, 4, 5]);
        }
    }

    #[test]
    fn full_halos_in_any_order() {
        for shuffle in [false, true] {
            // Faces heavier than edges, edges than corners (the generator's
            // products of direction factors).
            let f = opts(Neighbors::Full, false, shuffle);
            check("halo:6x5x4:0.5,0.5,0.4", &f, &[6, 5, 4]);
            check("halo:9x7:0.5,0.5", &f, &[9, 7]);
            // Equal volumes on a torus: the Jaccard skeleton.
            let t = opts(Neighbors::Full, true, shuffle);
            check("stencil:8x8x8", &t, &[8, 8, 8]);
            check("stencil:6x5", &t, &[6, 5]);
            // Equal volumes, open, 2D: the diagonal pairs of the corners'
            // two neighbours reach a Jaccard index of ½ and are dropped as
            // diagonals of the Jaccard skeleton's unit squares.
            check("stencil:12x8", &f, &[12, 8]);
            check("stencil:4x4", &f, &[4, 4]);
            // Equal volumes, open, 3D: diagonal pairs on the box's edges
            // reach a Jaccard index of ½ too; ranked by it within their
            // triangles, the diagonals go (the sixth skeleton).
            check("stencil:6x5x4", &f, &[6, 5, 4]);
            // A direction of size 2: its layers are twins (the seventh).
            check("stencil:2x5x4", &f, &[2, 5, 4]);
        }
    }

    #[test]
    fn size_four_wraps_pair_up_as_the_edges_and_corners_say() {
        // A periodic direction of size 4 reads as two of size 2; with equal
        // volumes on a 4 × 4 × 4 torus the six size-2 directions have equal
        // bytes, and only the application's pairing puts its edges and
        // corners one step apart. Each seed numbers the directions
        // differently.
        for seed in 0..12 {
            let t = GenOptions {
                seed,
                ..opts(Neighbors::Full, true, true)
            };
            check("halo:4x4x4:2,2,2", &t, &[4, 4, 4]);
            check("stencil:4x4x4", &t, &[4, 4, 4]);
            check("halo:4x4:1,1", &t, &[4, 4]);
            check("halo:4x5x4:1,1,1", &t, &[4, 5, 4]);
        }
    }

    #[test]
    fn faces_with_some_diagonals_as_heavy_as_faces() {
        // A 6×5 mesh halo plus four diagonal pairs (x, y)–(x+1, y+1), x
        // in {0, 3} and y in {0, 2}, of the faces' volume: no threshold
        // separates them; dropping the diagonals of unit squares does.
        // (Diagonals on every other square would make every face pair a
        // square's diagonal too: not recognised, but the rank order may be.)
        let g0 = generate("stencil:6x5", &GenOptions::default()).unwrap();
        let mut b = crate::graph::GraphBuilder::new(30, false);
        for (u, v, c) in g0.pairs() {
            b.add(u, v, c);
        }
        for y in [0, 2] {
            for x in [0, 3] {
                b.add(x + 6 * y, x + 1 + 6 * (y + 1), 2048.0);
            }
        }
        let g = b.build().unwrap();
        let h = recognise(&g).unwrap();
        let mut dims = h.dims.clone();
        dims.sort_unstable();
        assert_eq!(dims, [5, 6]);
        assert_eq!(h.diagonal_bytes, 4.0 * 2048.0);
        assert_eq!(h.other_bytes, 0.0);
    }

    #[test]
    fn the_rank_gap_bound_holds_and_skips_only_failing_shapes() {
        // By hand: ranks 0..8, by_gap[δ] = 2^(δ − 1); the 2 × 4 shape has
        // strides 1 and 2: gaps 1 (size 2, no wrap), 2 and 3 · 2 = 6; the
        // 4 × 2 shape strides 1 and 4: gaps 1, 3 and 4.
        let by_gap = [0.0, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0];
        assert_eq!(rank_gap_bound(&by_gap, &[2, 4]), 1.0 + 2.0 + 32.0);
        assert_eq!(rank_gap_bound(&by_gap, &[4, 2]), 1.0 + 4.0 + 8.0);
        // Every shape's face bytes are within its bound, and the reading
        // is the same with and without the skip: halos in their own order
        // (open and periodic, one face pair dropped), shuffled, and
        // random graphs.
        let mut graphs = Vec::new();
        for spec in ["stencil:8x4", "stencil:6x4x2", "halo:4x4x3:1,0.5,0.25"] {
            for periodic in [false, true] {
                let o = opts(Neighbors::Faces, periodic, false);
                let g0 = generate(spec, &o).unwrap();
                let mut b = crate::graph::GraphBuilder::new(g0.n(), false);
                for (u, v, c) in g0.pairs() {
                    if (u, v) != (1, 2) {
                        b.add(u, v, c);
                    }
                }
                graphs.push(b.build().unwrap());
                graphs.push(shuffled_halo(spec, false, periodic, 3));
            }
        }
        let mut rng = crate::rng::Rng::new(5);
        for n in [24usize, 36, 64] {
            let mut b = crate::graph::GraphBuilder::new(n, false);
            for _ in 0..3 * n {
                let (u, v) = (rng.below(n), rng.below(n));
                if u != v {
                    b.add(u, v, 1.0 + rng.below(5) as f64);
                }
            }
            graphs.push(b.build().unwrap());
        }
        let (mut skipped, mut read) = (0, 0);
        for g in &graphs {
            let vol = pair_volumes(g);
            let total: f64 = vol.iter().sum::<f64>() / 2.0;
            let off = g.offsets();
            let mut by_gap = vec![0.0f64; g.n()];
            for u in 0..g.n() {
                for (k, &v) in g.neighbors(u).iter().enumerate() {
                    if v as usize > u {
                        by_gap[v as usize - u] += vol[off[u] + k];
                    }
                }
            }
            let n = g.n() as u32;
            for a in 2..n {
                for b in 2..=n / a {
                    if !n.is_multiple_of(a * b) {
                        continue;
                    }
                    let r = n / (a * b);
                    let dims = if r == 1 { vec![a, b] } else { vec![a, b, r] };
                    let d = dims.len();
                    let mut coords = Vec::new();
                    for p in 0..n {
                        let mut q = p;
                        for &k in &dims {
                            coords.push(q % k);
                            q /= k;
                        }
                    }
                    let bound = rank_gap_bound(&by_gap, &dims);
                    for periodic in [false, true] {
                        let h = measure(
                            g,
                            &vol,
                            dims.clone(),
                            vec![periodic; d],
                            coords.clone(),
                            0.0,
                        );
                        assert!(face_bytes(&h) <= bound * (1.0 + 1e-12), "{dims:?}");
                    }
                    if bound * (1.0 + GAP_BOUND_MARGIN) < RANK_ORDER_SHARE * total {
                        skipped += 1;
                    }
                }
            }
            let with = rank_order_grid_with(g, &vol, total, true);
            read += usize::from(with.is_some());
            assert_eq!(with, rank_order_grid_with(g, &vol, total, false));
        }
        assert!(skipped > 50 && read >= 4, "{skipped} skipped, {read} read");
    }

    #[test]
    fn an_inexact_grid_is_read_from_the_numbering_or_the_corners() {
        // A 8×4 mesh halo numbered x-fastest, with one face pair missing
        // (subdomains that do not touch) and light all-to-all traffic: no
        // exact grid, but the rank order is one.
        let g0 = generate("stencil:8x4", &GenOptions::default()).unwrap();
        let mut b = crate::graph::GraphBuilder::new(32, false);
        for (u, v, c) in g0.pairs() {
            if (u, v) != (9, 10) {
                b.add(u, v, c);
            }
        }
        for v in 1..32 {
            b.add(0, v, 1.0);
        }
        let g = b.build().unwrap();
        let h = recognise(&g).unwrap();
        assert_eq!(h.dims, [8, 4]);
        assert_eq!(h.periodic, [false, false]);
        assert_eq!(h.coord(13), [5, 1]);
        assert!(h.left_out_share() < 0.01);
        // Shuffled, the order says nothing, but the distances to the
        // corners do: the same 8×4 mesh (up to a symmetry of the box).
        let mut perm: Vec<usize> = (0..32).collect();
        crate::rng::Rng::new(1).shuffle(&mut perm);
        let mut b = crate::graph::GraphBuilder::new(32, false);
        for (u, v, c) in g.pairs() {
            b.add(perm[u], perm[v], c);
        }
        let s = recognise(&b.build().unwrap()).unwrap();
        assert_eq!(s.found, Found::NearMesh);
        let l1 = |h: &GridHalo, a: usize, b: usize| -> u32 {
            h.coord(a)
                .iter()
                .zip(h.coord(b))
                .map(|(x, y)| x.abs_diff(*y))
                .sum()
        };
        for a in 0..32 {
            for b in 0..32 {
                assert_eq!(l1(&s, perm[a], perm[b]), l1(&h, a, b));
            }
        }
    }

    #[test]
    fn squares_found_at_their_least_corner_read_the_same_grids() {
        // Every skeleton the recognition builds (the heavy part, its
        // Jaccard skeleton and the others, at every threshold) of halos
        // (faces and full, open and periodic, sizes 2 and 4, extra pairs)
        // and unstructured meshes: faces_grid gives the same grid, or the
        // same failure, whether each square is found at every corner or
        // at its least one.
        let mut graphs = Vec::new();
        for (spec, full, periodic) in [
            ("halo:6x4x4:1,0.5,0.25:0.03", true, true),
            ("halo:4x4x4:1,0.5,0.25", false, true),
            ("halo:4x4x2:1,1,1", true, true),
            ("halo:8x6:1,0.6:0.1", true, false),
            ("halo:5x3x2:1,0.5,0.25", false, false),
            ("stencil:12x8", true, false),
            ("stencil:4x4x4", false, true),
        ] {
            graphs.push(shuffled_halo(spec, full, periodic, 5));
        }
        for (spec, seed) in [("unstructured:200:3d", 1), ("unstructured:150:2d", 2)] {
            graphs.push(seeded(spec, seed));
        }
        let (mut grids, mut tried) = (0, 0);
        for g in &graphs {
            let vol = pair_volumes(g);
            let (off, nb) = (g.offsets(), g.targets());
            let maxw = heaviest_pairs(off, &vol);
            let top = pair_tops(off, nb, &maxw);
            let pair_vol = |a: usize, b: usize| pair_volume(off, nb, &vol, a, b);
            for alpha in thresholds(off, nb, &vol, &maxw) {
                let heavy = heavy_part(off, nb, &vol, &top, alpha);
                let jaccard = heavy.jaccard_skeleton();
                let mut skeletons = vec![heavy.clone(), jaccard.clone()];
                for kind in Skeleton::ALL {
                    if let Built::Adj(s) = kind.build(&heavy, &jaccard, pair_vol, false) {
                        skeletons.push(s);
                    }
                }
                for s in &skeletons {
                    let a = faces_grid_with(s, true);
                    assert_eq!(a, faces_grid_with(s, false));
                    tried += 1;
                    grids += usize::from(a.is_ok());
                }
            }
        }
        assert!(grids >= 10 && tried > 2 * grids, "{grids} grids of {tried}");
    }

    #[test]
    fn doomed_skeletons_change_nothing() {
        // Unstructured meshes (whose skeletons are doomed after a few rows)
        // and halos with extra pairs: the same reading, or the same failure
        // worded the same, whether doomed skeletons stop early or not.
        let mut graphs = Vec::new();
        for (spec, seed) in [
            ("unstructured:256:3d", 1),
            ("unstructured:200:2d", 2),
            ("random-geometric:200:6", 3),
        ] {
            graphs.push(seeded(spec, seed));
        }
        // Open grids too: their skeletons' degrees differ from row to row
        // (3 at a corner, 6 inside), and the skeletons that read them
        // (square diagonals, triangle sides) must not be taken as doomed.
        for (spec, full, periodic) in [
            ("halo:8x8x4:1,0.5,0.25:0.05", false, true),
            ("halo:6x6x4:1,0.5,0.25:0.03", true, true),
            ("halo:8x6:1,0.6:0.1", true, false),
            ("stencil:6x5x4", true, false),
            ("stencil:12x8", true, false),
        ] {
            graphs.push(shuffled_halo(spec, full, periodic, 5));
        }
        let mut failures = 0;
        for g in &graphs {
            let vol = pair_volumes(g);
            let (a, b) = (
                recognise_inner(g, &vol, true, true),
                recognise_inner(g, &vol, true, false),
            );
            failures += usize::from(a.is_err());
            assert_eq!(a, b);
        }
        // Both kinds are exercised.
        assert!(failures > 0 && failures < graphs.len(), "{failures}");
    }

    #[test]
    fn a_symmetric_rule_is_asked_once_per_pair() {
        // Random adjacencies (one with an entry its other end does not
        // list): the filter that decides each pair at its lower end keeps
        // what the plain filter keeps, and asks the rule once per pair
        // listed from both ends.
        let mut rng = crate::rng::Rng::new(7);
        for n in [2usize, 9, 40] {
            let mut pairs = Vec::new();
            for u in 0..n as u32 {
                for v in u + 1..n as u32 {
                    if rng.below(3) == 0 {
                        pairs.push((u, v));
                    }
                }
            }
            let mut a = adj_of(n, &pairs);
            let both = a.nb.len() / 2;
            if n == 40 {
                // Drop the last entry of row 0: its pair is listed once.
                let last = a.off[1] - 1;
                a.nb.remove(last);
                for o in a.off.iter_mut().skip(1) {
                    *o -= 1;
                }
            }
            let rule = |u: usize, v: usize| (u * v + u + v) % 3 != 1;
            let plain = Adj::filter(&a.off, &a.nb, |u, k| rule(u, a.nb[k] as usize));
            let mut asked = 0;
            let Built::Adj(once) = a.filter_symmetric(
                |u, k| {
                    asked += 1;
                    rule(u, a.nb[k] as usize)
                },
                false,
            ) else {
                panic!("every row is built without abort");
            };
            assert_eq!((once.off, once.nb), (plain.off, plain.nb), "n = {n}");
            assert_eq!(asked, a.nb.len() - if n == 40 { both - 1 } else { both });
        }
    }

    #[test]
    fn mirrored_skeletons_equal_those_read_per_entry() {
        // Halos with extra pairs, in any order: the Jaccard skeleton and
        // the square-diagonal skeleton, each pair decided at one end, equal
        // those decided entry by entry.
        for (spec, full, periodic) in [
            ("halo:6x6x4:1,0.5,0.25:0.03", true, true),
            ("halo:8x6:1,0.6:0.1", true, false),
            ("halo:8x8x4:1,0.5,0.25:0.05", false, true),
        ] {
            let g = shuffled_halo(spec, full, periodic, 3);
            let (off, nb) = (g.offsets(), g.targets());
            let a = Adj::filter(off, nb, |_, _| true);
            let jac = Adj::filter(&a.off, &a.nb, |u, k| {
                let v = a.nb[k] as usize;
                let inter = a.row(u).iter().filter(|x| a.row(v).contains(x)).count() + 2;
                2 * inter >= a.row(u).len() + a.row(v).len() + 2 - inter
            });
            let got = a.jaccard_skeleton();
            assert_eq!((&got.off, &got.nb), (&jac.off, &jac.nb), "{spec}");
            for s in [&a, &jac] {
                let want = Adj::filter(&s.off, &s.nb, |u, k| {
                    let v = s.nb[k] as usize;
                    let common: Vec<usize> = (s.row(u).iter())
                        .filter(|x| s.row(v).contains(x))
                        .map(|&x| x as usize)
                        .collect();
                    !(0..common.len())
                        .any(|i| (i + 1..common.len()).any(|j| !s.adjacent(common[i], common[j])))
                });
                let too_many = (0..s.n()).any(|u| want.row(u).len() > 2 * MAX_GRID_DIMS);
                match s.without_square_diagonals(false) {
                    Built::Adj(b) => {
                        assert!(!too_many, "{spec}");
                        assert_eq!((b.off, b.nb), (want.off.clone(), want.nb.clone()), "{spec}");
                    }
                    Built::Skip => assert!(too_many, "{spec}"),
                    Built::Doomed => panic!("not doomed without abort"),
                }
            }
        }
    }

    #[test]
    fn a_random_graph_is_not_a_grid() {
        let g = generate("random-geometric:200:6", &GenOptions::default()).unwrap();
        if let Ok(h) = recognise(&g) {
            assert!(h.left_out_share() > 0.5, "{}", h.describe());
        }
    }
}
