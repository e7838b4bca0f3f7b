//! Embed a recognised process grid into a mesh/torus with `cores` per node:
//! identity and axis permutations, tilings of node-sized blocks, and
//! folds, all as one family of candidate plans scored on the true
//! hop-bytes.
//!
//! A plan splits each grid direction of size g into ordered factors
//! g = f₀·f₁·… (inner first; see below) by the reflected mixed radix (the
//! boustrophedon, or snake: consecutive positions differ by one in exactly
//! one digit), and gives every factor a target: a network dimension, or the
//! node's cores (T). A target that receives several factors combines their
//! digits by the same reflected radix, inner factor first. So:
//!
//! * one factor per direction onto network dimensions of its size is the
//!   identity or an axis permutation;
//! * inner factors sent to T tile the grid by node-sized blocks (Rubik's
//!   *tile*, Bhatele et al. SC'12), the block shape being the product of
//!   the T factors — the heaviest directions' factors on T keep their bytes
//!   inside nodes;
//! * a direction split over two network dimensions, or two directions'
//!   factors sharing one, is a fold (Rubik's *fold*; Bhatele & Kale,
//!   seed 000, fold a 2D grid into a 3D mesh the same way).
//!
//! * on a mesh, a plan may also move the positions of an open network
//!   dimension to other coordinates ([`Plan::arrange`], set by
//!   [`Scorer::arrange`]): the layers in their best order for the pairs'
//!   volumes instead of the snake's ([`super::arrange`]).
//!
//! Every unit step of the grid along a direction whose factors sit alone on
//! their targets is a unit step (one hop, or none inside a node) of the
//! network, so a plan that matches the network is perfect.
//!
//! Candidates: the ordered factorisations of each direction into one or two
//! factors (three when the network has more dimensions than the grid; a
//! one-dimensional grid, a ring, into as many as there are targets), every assignment of the factors to targets whose sizes
//! (network dimension, or cores) hold their product, factors of one
//! direction on distinct targets, and every order of the factors sharing a
//! network dimension; then the same plans with the open directions
//! reflected — at most [`MAX_PLANS`] in all. When that allowed two factors
//! and the network has several cores per node and two dimensions or more,
//! or a direction is longer than every network dimension,
//! at most [`MAX_PLANS`] more follow: those with three factors on
//! some direction, and their reflections (a ring of 8 as 2 cores × a 2 × 2
//! block of nodes is a cycle of steps of one hop or none, which two factors
//! cannot give on a mesh). Each plan is scored on at
//! most [`SAMPLE`] pairs of the graph (all when fewer, else a seeded
//! uniform sample, [`sample_of`]), and the best
//! [`FINALISTS`] (and up to [`TIED`] plans tied with the best, and up to
//! [`TIED`] more within the load budget, [`PER_LEVEL`] per sampled value,
//! and the best of each node occupancy, [`occupancy_finalists`])
//! on every pair: O(plans · min(m, SAMPLE) · d + TIED · m). Plans within
//! the budget of the least hop-bytes (symmetries of the grid, which do not
//! change hop-bytes but do change which channels dimension-order routes
//! share, and plans a little longer) are told apart by their max link load
//! ([`routed`]: O(m · d + channels) each on whole-number bytes by
//! [`crate::routing::dor_lines`], else O(m · route length); a plan that is
//! the image of an earlier one under a reflection that is an automorphism
//! of the graph takes its max load unrouted, [`super::symmetry`]): the
//! least is kept. Before
//! that, each finalist's periodic directions are shifted ([`improve_shifts`]):
//! a ring cut into node blocks, folded or laid on a mesh has seams, and on
//! real runs the volumes differ from pair to pair along a ring, so the
//! seams go where the lightest pairs are (O(shifts · m) per finalist).

use super::recognise::{GridHalo, axis_dist};
use crate::topology::grid::Grid;
use std::collections::HashMap;
use std::sync::Arc;

/// Most plans enumerated.
pub const MAX_PLANS: usize = 20_000;
/// Pairs on which every plan is scored.
pub const SAMPLE: usize = 2048;
/// Plans scored on every pair.
pub const FINALISTS: usize = 4;
/// Most plans tied on the sample that are scored on every pair (their max
/// link loads break the tie), and most plans within the load budget but
/// not tied that are.
pub const TIED: usize = 48;
/// Most plans of one sampled hop-bytes value, not tied with the best, that
/// are scored on every pair.
pub const PER_LEVEL: usize = 8;

/// One factor of a grid direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Factor {
    /// Grid direction.
    pub dir: usize,
    /// 0 = inner.
    pub level: usize,
    pub size: u32,
}

/// Most targets of a plan: the network's dimensions and T.
const MAX_TARGETS: usize = crate::topology::grid::MAX_DIMS + 1;

/// The factors of every target of a plan (inner first; the last target is
/// T), held in one vector: target t's are `targets[t]`, a slice. A plan is
/// made by the ten thousand ([`plans`]); one allocation each, not one per
/// target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Targets {
    factors: Vec<Factor>,
    /// Target t's factors are `factors[end[t]..end[t + 1]]`; the entries
    /// past the last target are 0.
    end: [u8; MAX_TARGETS + 1],
    len: u8,
}

impl Targets {
    /// The targets' factors, target by target: at most one target per
    /// network dimension and T, of at most 255 factors in all.
    pub fn new(targets: &[Vec<Factor>]) -> Targets {
        let mut factors = Vec::with_capacity(targets.iter().map(Vec::len).sum());
        let mut end = [0u8; MAX_TARGETS + 1];
        for (t, fs) in targets.iter().enumerate() {
            factors.extend_from_slice(fs);
            end[t + 1] = factors.len() as u8;
        }
        Targets {
            factors,
            end,
            len: targets.len() as u8,
        }
    }

    /// Number of targets.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether there is no target.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Each target's factors, in target order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &[Factor]> + '_ {
        (0..self.len()).map(|t| &self[t])
    }

    /// The last target's factors (T's), if any.
    pub fn last(&self) -> Option<&[Factor]> {
        self.len().checked_sub(1).map(|t| &self[t])
    }

    /// Every factor, target by target, to be changed in place (the
    /// targets keep their lengths).
    pub fn factors_mut(&mut self) -> &mut [Factor] {
        &mut self.factors
    }
}

impl std::ops::Index<usize> for Targets {
    type Output = [Factor];
    #[inline]
    fn index(&self, t: usize) -> &[Factor] {
        assert!(t < self.len(), "target {t} of {}", self.len);
        &self.factors[self.end[t] as usize..self.end[t + 1] as usize]
    }
}

/// An embedding plan: for every target (the network's dimensions, then T =
/// the cores of a node), its factors, inner first. Two plans are equal when
/// they place every process alike by the same rule: equal fields, the
/// shifts read as 0 where missing.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Factor sizes of each direction, inner first (shared by the plans of
    /// one split).
    pub split: Arc<[Vec<u32>]>,
    /// Factors of each target, inner first; the last target is T.
    pub targets: Targets,
    /// Bit i: direction i is reflected (coordinate c becomes size − 1 − c)
    /// before it is split. Only open directions are reflected: an
    /// asymmetric graph (a decomposition of a non-rectangular domain) may
    /// fold better one way round.
    pub flip: u32,
    /// Per direction, a cyclic shift (coordinate c becomes (c + shift) mod
    /// size) before it is split. Only periodic directions are shifted: a
    /// ring cut into node blocks, or folded, or laid on a mesh, has seams,
    /// and real volumes differ from edge to edge of a ring (LAMMPS's two
    /// swaps per direction alternate heavy and light pairs), so where the
    /// seams fall matters ([`improve_shifts`]). Empty, or shorter than
    /// the directions, where no shift is set: a missing entry is 0.
    pub shift: Vec<u32>,
    /// Per network dimension, the coordinate each position is moved to
    /// after the digits are combined (empty: unchanged): the layers of an
    /// open mesh dimension in their best order ([`super::arrange`]).
    pub arrange: Vec<Vec<u32>>,
}

impl PartialEq for Plan {
    fn eq(&self, other: &Plan) -> bool {
        self.split == other.split
            && self.targets == other.targets
            && self.flip == other.flip
            && self.same_shifts(other)
            && self.arrange == other.arrange
    }
}

impl Eq for Plan {}

impl Plan {
    /// Whether every direction has the same shift in both plans (a
    /// missing entry is 0).
    pub fn same_shifts(&self, other: &Plan) -> bool {
        let at = |p: &Plan, i: usize| p.shift.get(i).copied().unwrap_or(0);
        (0..self.shift.len().max(other.shift.len())).all(|i| at(self, i) == at(other, i))
    }

    /// Digits of position `x` along a direction split into `sizes` (inner
    /// first), reflected so that consecutive positions differ by one in
    /// one digit.
    fn digits(x: u32, sizes: &[u32], out: &mut [u32]) {
        let mut q = x;
        for (l, &f) in sizes.iter().enumerate() {
            let r = q % f;
            q /= f;
            out[l] = if q % 2 == 1 { f - 1 - r } else { r };
        }
    }

    /// Coordinate `c` of direction `i` of size `g` after its reflection
    /// and shift.
    #[inline]
    fn moved(&self, i: usize, c: u32, g: u32) -> u32 {
        let c = (c + self.shift.get(i).copied().unwrap_or(0)) % g.max(1);
        if self.flip >> i & 1 == 1 {
            g - 1 - c
        } else {
            c
        }
    }

    /// Position of a process with grid coordinates `c` on every target.
    pub fn place(&self, c: &[u32], pos: &mut [u32]) {
        let mut dig = [[0u32; 4]; super::recognise::MAX_GRID_DIMS];
        for (i, sizes) in self.split.iter().enumerate() {
            let x = self.moved(i, c[i], sizes.iter().product::<u32>());
            Plan::digits(x, sizes, &mut dig[i]);
        }
        self.combine(|dir, level| dig[dir][level], pos);
    }

    /// Combine the digits of a process (`digit(direction, level)`) into its
    /// position on every target.
    #[inline]
    fn combine(&self, digit: impl Fn(usize, usize) -> u32, pos: &mut [u32]) {
        for (t, fs) in self.targets.iter().enumerate() {
            let mut p = 0u32;
            for f in fs.iter().rev() {
                let d = digit(f.dir, f.level);
                p = p * f.size + if p % 2 == 1 { f.size - 1 - d } else { d };
            }
            pos[t] = self.arranged(t, p);
        }
    }

    /// Position `p` on target `t` after the layer arrangement.
    #[inline]
    fn arranged(&self, t: usize, p: u32) -> u32 {
        match self.arrange.get(t) {
            Some(a) if !a.is_empty() => a[p as usize],
            _ => p,
        }
    }

    /// The digits of every position along every direction (reflection and
    /// shift included): `table[i][x]` is what [`Plan::place`] computes for
    /// coordinate `x` of direction `i`. O(Σ grid sizes).
    fn digit_table(&self) -> Vec<Vec<[u32; 4]>> {
        self.split
            .iter()
            .enumerate()
            .map(|(i, sizes)| {
                let g = sizes.iter().product::<u32>();
                (0..g)
                    .map(|c| {
                        let x = self.moved(i, c, g);
                        let mut out = [0u32; 4];
                        Plan::digits(x, sizes, &mut out);
                        out
                    })
                    .collect()
            })
            .collect()
    }

    /// Node and core of every process.
    pub fn mapping(&self, halo: &GridHalo, net: &Grid) -> (Vec<u32>, Vec<u32>) {
        let n = halo.coords.len() / halo.ndims().max(1);
        let nd = net.ndims();
        let mut pos = vec![0u32; nd + 1];
        let mut node = Vec::with_capacity(n);
        let mut core = Vec::with_capacity(n);
        for p in 0..n {
            self.place(halo.coord(p), &mut pos);
            node.push(net.node(&pos[..nd]) as u32);
            core.push(pos[nd]);
        }
        (node, core)
    }

    /// Processes on each node it uses: the product of the factors on the
    /// node's cores (1 when it spreads one process to a node).
    pub fn occupancy(&self) -> u32 {
        self.targets
            .last()
            .map_or(1, |fs| fs.iter().map(|f| f.size).product())
    }

    /// `x: 8 on X, y: 2 on T 4 on Y, …` (the GUI font has no arrow glyph)
    pub fn describe(&self, net: &Grid) -> String {
        let name = |t: usize| {
            if t == net.ndims() {
                "T".to_string()
            } else {
                ["X", "Y", "Z", "W", "V", "U"][t].to_string()
            }
        };
        let mut parts = Vec::new();
        for (i, sizes) in self.split.iter().enumerate() {
            let fs: Vec<String> = (0..sizes.len())
                .map(|l| {
                    let t = self
                        .targets
                        .iter()
                        .position(|fs| fs.iter().any(|f| f.dir == i && f.level == l))
                        .unwrap_or(0);
                    format!("{} on {}", sizes[l], name(t))
                })
                .collect();
            let shift = self.shift.get(i).copied().unwrap_or(0);
            parts.push(format!(
                "{}{}{}: {}",
                if self.flip >> i & 1 == 1 { "-" } else { "" },
                super::recognise::axis_name(i),
                if shift > 0 {
                    format!("+{shift}")
                } else {
                    String::new()
                },
                fs.join(" ")
            ));
        }
        let arranged: Vec<String> = (0..net.ndims())
            .filter(|&t| self.arrange.get(t).is_some_and(|a| !a.is_empty()))
            .map(name)
            .collect();
        if !arranged.is_empty() {
            parts.push(format!("layers of {} reordered", arranged.join(", ")));
        }
        parts.join(", ")
    }
}

/// Ordered factorisations of `g` into 1 to `kmax` factors ≥ 2 (none for 1).
fn factorisations(g: u32, kmax: usize) -> Vec<Vec<u32>> {
    if g <= 1 {
        return vec![Vec::new()];
    }
    let mut out = vec![vec![g]];
    if kmax > 1 {
        for a in 2..g {
            if g.is_multiple_of(a) {
                for mut rest in factorisations(g / a, kmax - 1) {
                    rest.insert(0, a);
                    out.push(rest);
                }
            }
        }
    }
    out
}

/// Every plan for `halo` on `net`: the plans of up to two (or three)
/// factors per direction and their reflections (at most [`MAX_PLANS`]),
/// then, with several cores per node on two network dimensions or more or
/// with a direction longer than every network dimension, the plans with a
/// third factor on some direction and their reflections (at most
/// [`MAX_PLANS`] more).
pub fn plans(halo: &GridHalo, net: &Grid) -> Vec<Plan> {
    let d = halo.ndims();
    let nd = net.ndims();
    // Three factors when the network has more dimensions than the grid
    // (a plane folded into a 3D torus), else two; a ring may need one
    // factor on every target (64 processes on a 2 × 2 × 4 torus with 4
    // cores: 4 · 2 · 2 · 4).
    let targets = nd + usize::from(net.cores() > 1);
    let kmax = if d == 1 {
        targets.max(2)
    } else if d < nd {
        3
    } else {
        2
    };
    let mut out = Vec::new();
    enumerate(halo, net, kmax, false, &mut out);
    with_reflections(halo, &mut out, 0);
    // Then a direction split over three targets: a ring of 8 on 2 cores
    // and a 2 × 2 block of nodes (T2 · X2 · Y2) is a cycle whose steps are
    // all one hop or none, which two factors cannot give on an open mesh;
    // and a direction longer than every network dimension must fold, and
    // may fold best over three (a 32-ring on an 8 × 8 × 8 torus as
    // 2 · 4 · 4, each dimension shared with another direction's factor).
    let longest = net.dims().iter().copied().max().unwrap_or(1);
    let folds = halo.dims.iter().any(|&g| g > longest);
    if kmax == 2 && ((net.cores() > 1 && targets >= 3) || folds) {
        let first = out.len();
        enumerate(halo, net, 3, true, &mut out);
        with_reflections(halo, &mut out, first);
    }
    out
}

/// Push the plans that split each direction into 1..=`kmax` factors onto
/// `out` (at most [`MAX_PLANS`]); with `longer`, only those where some
/// direction has exactly `kmax` factors (the shorter ones are already in).
fn enumerate(halo: &GridHalo, net: &Grid, kmax: usize, longer: bool, out: &mut Vec<Plan>) {
    let d = halo.ndims();
    let nd = net.ndims();
    let caps: Vec<u64> = net
        .dims()
        .iter()
        .map(|&x| x as u64)
        .chain([net.cores() as u64])
        .collect();
    let per_dir: Vec<Vec<Vec<u32>>> = halo.dims.iter().map(|&g| factorisations(g, kmax)).collect();
    let first = out.len();
    let full = |out: &Vec<Plan>| out.len() - first >= MAX_PLANS;
    let mut choice = vec![0usize; d];
    // Scratch: the factors of each target of one assignment.
    let mut targets: Vec<Vec<Factor>> = vec![Vec::new(); nd + 1];
    'combos: loop {
        let split: Arc<[Vec<u32>]> = (0..d).map(|i| per_dir[i][choice[i]].clone()).collect();
        if !longer || split.iter().any(|s| s.len() == kmax) {
            let factors: Vec<Factor> = split
                .iter()
                .enumerate()
                .flat_map(|(dir, s)| {
                    s.iter()
                        .enumerate()
                        .map(move |(level, &size)| Factor { dir, level, size })
                })
                .collect();
            let mut assign = vec![0usize; factors.len()];
            let mut used = vec![1u64; nd + 1];
            let mut mine = Vec::new();
            assign_rec(&factors, 0, &caps, &mut used, &mut assign, &mut |a| {
                for fs in targets.iter_mut() {
                    fs.clear();
                }
                for (k, &t) in a.iter().enumerate() {
                    targets[t].push(factors[k]);
                }
                orders_rec(&split, &mut targets, 0, nd, &mut mine);
                out.len() - first + mine.len() < MAX_PLANS
            });
            out.append(&mut mine);
            if full(out) {
                break;
            }
        }
        // Next combination (odometer).
        for i in 0..d {
            choice[i] += 1;
            if choice[i] < per_dir[i].len() {
                continue 'combos;
            }
            choice[i] = 0;
        }
        break;
    }
    out.truncate(first + MAX_PLANS);
}

/// Append the reflections of the open directions of the plans `first..`
/// (after them: ties keep the earlier plan), up to [`MAX_PLANS`] plans
/// from `first` on.
fn with_reflections(halo: &GridHalo, out: &mut Vec<Plan>, first: usize) {
    let d = halo.ndims();
    let open: Vec<usize> = (0..d)
        .filter(|&i| !halo.periodic[i] && halo.dims[i] > 1)
        .collect();
    let base = out.len();
    'flips: for mask in 1u32..(1 << open.len()) {
        let flip = open
            .iter()
            .enumerate()
            .filter(|(b, _)| mask >> b & 1 == 1)
            .fold(0u32, |f, (_, &i)| f | 1 << i);
        for k in first..base {
            if out.len() - first >= MAX_PLANS {
                break 'flips;
            }
            let mut p = out[k].clone();
            p.flip = flip;
            out.push(p);
        }
    }
}

/// Assign factors `k..` to targets within capacity; `f` returns false to
/// stop.
fn assign_rec(
    factors: &[Factor],
    k: usize,
    caps: &[u64],
    used: &mut [u64],
    assign: &mut [usize],
    f: &mut dyn FnMut(&[usize]) -> bool,
) -> bool {
    if k == factors.len() {
        return f(assign);
    }
    for t in 0..caps.len() {
        // Factors of one direction go to distinct targets.
        if (0..k).any(|j| factors[j].dir == factors[k].dir && assign[j] == t) {
            continue;
        }
        let size = factors[k].size as u64;
        if used[t] * size > caps[t] {
            continue;
        }
        used[t] *= size;
        assign[k] = t;
        let go = assign_rec(factors, k + 1, caps, used, assign, f);
        used[t] /= size;
        if !go {
            return false;
        }
    }
    true
}

/// Every order of the factors of the network targets `t..nd` (T's order
/// does not matter: its position is the core).
fn orders_rec(
    split: &Arc<[Vec<u32>]>,
    targets: &mut [Vec<Factor>],
    t: usize,
    nd: usize,
    out: &mut Vec<Plan>,
) {
    if out.len() >= MAX_PLANS {
        return;
    }
    if t == nd {
        out.push(Plan {
            split: Arc::clone(split),
            targets: Targets::new(targets),
            flip: 0,
            shift: Vec::new(),
            arrange: Vec::new(),
        });
        return;
    }
    let k = targets[t].len();
    if k <= 1 {
        orders_rec(split, targets, t + 1, nd, out);
        return;
    }
    // Heap's algorithm over the factors of target t.
    let mut c = vec![0usize; k];
    orders_rec(split, targets, t + 1, nd, out);
    let mut i = 0;
    while i < k {
        if c[i] < i {
            if i % 2 == 0 {
                targets[t].swap(0, i);
            } else {
                targets[t].swap(c[i], i);
            }
            orders_rec(split, targets, t + 1, nd, out);
            c[i] += 1;
            i = 0;
        } else {
            c[i] = 0;
            i += 1;
        }
    }
}

/// Scores plans on a fixed list of pairs: the pairs are renumbered onto
/// their distinct ends once, so that scoring a plan places each end once
/// (not once per pair) from a per-direction digit table.
///
/// The bytes are read as exact fixed-point integers (`Fixed`: every
/// finite double is an integer times a power of two, so all of them are
/// integers times the least such power): hop-bytes are then summed exactly
/// in 128-bit integers, in any order with the same result, and rounded to
/// a double once. So each network dimension's share is cached by what
/// determines it (its factors in order, and the split, reflection and shift
/// of their directions), and the many plans that share a dimension's
/// assignment reuse it; plans of equal hop-bytes score exactly equal,
/// whole or fractional bytes alike (on whole bytes whose sums stay below
/// 2⁵³ the value is the plain sum, [`score`]'s). Only when the bytes span
/// too many binary orders for 64-bit units (a ratio beyond about 2¹¹
/// between the largest and the least significant bit of the smallest, on
/// full 53-bit fractions) are plans summed pair by pair in doubles, in the
/// pairs' order, as [`score`] does.
pub struct Scorer {
    /// The processes that end a pair.
    ends: Vec<u32>,
    /// The pairs as (end index, end index, bytes), in the given order.
    pairs: Vec<(u32, u32, f64)>,
    /// The pairs' bytes as exact integers, when they fit.
    fixed: Option<Fixed>,
    /// Hop-bytes along one network dimension in units of the fixed point,
    /// by what determines them ([`dim_key`]).
    cache: HashMap<Box<[u32]>, u128, FxBuild>,
    /// Scratch: the key of one network dimension.
    key: Vec<u32>,
    /// [`Scorer::layers_differ`] of each direction, once asked.
    differ: Vec<Option<bool>>,
    /// The pairs projected onto each set of directions (a bit mask), made
    /// when first needed.
    projections: Vec<Option<Projection>>,
    /// Scratch: every end's position on every target.
    pos: Vec<u32>,
    /// Scratch of [`Scorer::score_dim`]: the weights of a dimension's
    /// factors and the position of each of their codes; each direction's
    /// part of every coordinate.
    scratch: [Vec<u32>; 2],
    part: Vec<Vec<u32>>,
}

/// Non-negative finite bytes as exact fixed-point integers: byte k is
/// `units[k] · 2^exp`. Every finite double is an odd integer times a power
/// of two; `exp` is the least of those powers, and each value's units its
/// odd integer shifted up by the difference. O(pairs).
struct Fixed {
    units: Vec<u64>,
    exp: i32,
}

impl Fixed {
    /// The fixed point of `bytes`, or None when some value is negative or
    /// not finite, or its units need more than 64 bits, or the power is
    /// outside what [`Fixed::value`] scales exactly.
    fn of(bytes: impl Iterator<Item = f64> + Clone) -> Option<Fixed> {
        // (odd integer, power) of a positive finite double.
        let parts = |c: f64| -> Option<(u64, i32)> {
            if !(c.is_finite() && c >= 0.0) {
                return None;
            }
            if c == 0.0 {
                return Some((0, i32::MAX));
            }
            let bits = c.to_bits();
            let field = ((bits >> 52) & 0x7ff) as i32;
            let frac = bits & ((1u64 << 52) - 1);
            let (mant, e) = if field == 0 {
                (frac, -1074)
            } else {
                (frac | 1u64 << 52, field - 1075)
            };
            let tz = mant.trailing_zeros();
            Some((mant >> tz, e + tz as i32))
        };
        let mut exp = i32::MAX;
        for c in bytes.clone() {
            exp = exp.min(parts(c)?.1);
        }
        if exp == i32::MAX {
            exp = 0;
        }
        if !(-900..=800).contains(&exp) {
            return None;
        }
        let units = bytes
            .map(|c| {
                let (m, e) = parts(c)?;
                if m == 0 {
                    return Some(0);
                }
                let up = (e - exp) as u32;
                (up + (64 - m.leading_zeros()) <= 64).then(|| m << up)
            })
            .collect::<Option<Vec<u64>>>()?;
        Some(Fixed { units, exp })
    }

    /// `total · 2^exp` as a double: `total` rounded to nearest once, then
    /// scaled by a power of two exactly.
    fn value(total: u128, exp: i32) -> f64 {
        total as f64 * f64::from_bits(((exp + 1023) as u64) << 52)
    }
}

/// The scorer's pairs projected onto a set of grid directions: each end
/// is reduced to its coordinates along those directions (a mixed-radix
/// index, the first direction fastest), and the pairs whose ends project to
/// the same two indices are merged, their fixed-point bytes summed
/// (exactly). Pairs whose ends project to one index are dropped: no factor
/// of those directions separates them. The hop-bytes along a network
/// dimension whose factors all come from these directions are then a sum
/// over the projected pairs. O(pairs log pairs) to make.
struct Projection {
    /// The directions, increasing.
    dirs: Vec<usize>,
    /// Number of projected coordinates (the product of the directions'
    /// sizes).
    count: usize,
    /// (index, index, summed units), the first index the smaller, sorted.
    terms: Vec<(u32, u32, u128)>,
    /// The same terms in 64 bits, when all their units sum below 2⁶⁴
    /// (`total`): along a dimension of size s every term's hops are below
    /// s, so while `total` · s < 2⁶⁴ the sum is made in 64-bit integers,
    /// the same value.
    narrow: Option<Vec<(u32, u32, u64)>>,
    total: u128,
}

impl Projection {
    fn new(
        mask: usize,
        halo: &GridHalo,
        ends: &[u32],
        pairs: &[(u32, u32, f64)],
        units: &[u64],
    ) -> Projection {
        let dirs: Vec<usize> = (0..halo.ndims()).filter(|&i| mask >> i & 1 == 1).collect();
        let count = dirs.iter().map(|&i| halo.dims[i] as usize).product();
        let index = |p: u32| -> u32 {
            let c = halo.coord(p as usize);
            dirs.iter()
                .rev()
                .fold(0u32, |x, &i| x * halo.dims[i] + c[i])
        };
        let at: Vec<u32> = ends.iter().map(|&p| index(p)).collect();
        let raw: Vec<(u32, u32, u64)> = pairs
            .iter()
            .zip(units)
            .filter_map(|(&(u, v, _), &q)| {
                let (a, b) = (at[u as usize], at[v as usize]);
                (a != b && q > 0).then(|| (a.min(b), a.max(b), q))
            })
            .collect();
        let mut terms: Vec<(u32, u32, u128)> = Vec::new();
        for (a, b, q) in by_ends(raw, count) {
            match terms.last_mut() {
                Some(l) if l.0 == a && l.1 == b => l.2 += q as u128,
                _ => terms.push((a, b, q as u128)),
            }
        }
        let total: u128 = terms.iter().map(|t| t.2).sum();
        let narrow = (total <= u64::MAX as u128)
            .then(|| terms.iter().map(|&(a, b, w)| (a, b, w as u64)).collect());
        Projection {
            dirs,
            count,
            terms,
            narrow,
            total,
        }
    }
}

/// `raw` (index, index, units), indices below `count`, in order of the
/// two indices: a counting sort by the second, then a stable one by the
/// first. Entries with the same two indices stay in their given order (the
/// caller sums their units, exactly, so that order does not matter).
/// O(count + entries).
fn by_ends(raw: Vec<(u32, u32, u64)>, count: usize) -> Vec<(u32, u32, u64)> {
    let mut by_second = vec![0usize; count + 1];
    let mut by_first = vec![0usize; count + 1];
    for r in &raw {
        by_second[r.1 as usize + 1] += 1;
        by_first[r.0 as usize + 1] += 1;
    }
    for k in 0..count {
        by_second[k + 1] += by_second[k];
        by_first[k + 1] += by_first[k];
    }
    let mut second = vec![(0u32, 0u32, 0u64); raw.len()];
    for r in &raw {
        let slot = &mut by_second[r.1 as usize];
        second[*slot] = *r;
        *slot += 1;
    }
    let mut out = raw;
    for r in &second {
        let slot = &mut by_first[r.0 as usize];
        out[*slot] = *r;
        *slot += 1;
    }
    out
}

/// A multiply-rotate hasher (FxHash's) for the scorer's cache, whose keys
/// are a few small integers that SipHash hashes slowly (the plans of a
/// large grid are scored by the ten thousand). The cache's content does not
/// depend on the hasher.
#[derive(Default)]
struct Fx(u64);

impl Fx {
    #[inline]
    fn add(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl std::hash::Hasher for Fx {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            self.add(u64::from_le_bytes([
                w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7],
            ]));
        }
        for &b in words.remainder() {
            self.add(b as u64);
        }
    }
    fn write_u8(&mut self, x: u8) {
        self.add(x as u64);
    }
    fn write_u32(&mut self, x: u32) {
        self.add(x as u64);
    }
    fn write_u64(&mut self, x: u64) {
        self.add(x);
    }
    fn write_usize(&mut self, x: usize) {
        self.add(x as u64);
    }
}

type FxBuild = std::hash::BuildHasherDefault<Fx>;

/// What the hop-bytes along network dimension `t` of `plan` depend on,
/// written as integers into `key` (cleared first): `t`'s size and whether
/// it wraps (not its index: dimensions of one size and kind give the same
/// hop-bytes for the same factors); the factors placed on it, in order
/// (direction, level, size); then, for each of their directions in
/// increasing order, the direction, its reflection, its shift and the
/// sizes of its split up to the outermost factor on `t` (count, then
/// sizes: a digit depends on the factors inside it and its own, not on
/// those outside, [`Plan::digits`]); then the layer arrangement of `t`
/// (count, then positions). Every part is preceded by its count, so two
/// keys are equal exactly when all of that is. O(factors + splits +
/// arrangement).
fn dim_key(plan: &Plan, net: &Grid, t: usize, key: &mut Vec<u32>) {
    key.clear();
    let fs = &plan.targets[t];
    key.push(net.dims()[t]);
    key.push(u32::from(net.wraps(t)));
    key.push(fs.len() as u32);
    let mut dirs = 0u64;
    // Per direction, one more than the outermost level placed on t.
    let mut levels = [0usize; super::recognise::MAX_GRID_DIMS];
    for f in fs {
        key.extend_from_slice(&[f.dir as u32, f.level as u32, f.size]);
        dirs |= 1 << f.dir;
        levels[f.dir] = levels[f.dir].max(f.level + 1);
    }
    while dirs != 0 {
        let i = dirs.trailing_zeros() as usize;
        dirs &= dirs - 1;
        let split = &plan.split[i][..levels[i]];
        key.extend_from_slice(&[
            i as u32,
            plan.flip >> i & 1,
            plan.shift.get(i).copied().unwrap_or(0),
            split.len() as u32,
        ]);
        key.extend_from_slice(split);
    }
    let arrange = plan.arrange.get(t).map_or(&[][..], |a| &a[..]);
    key.push(arrange.len() as u32);
    key.extend_from_slice(arrange);
}

impl Scorer {
    /// O(n + pairs).
    pub fn new(n: usize, pairs: &[(u32, u32, f64)]) -> Scorer {
        let mut index = vec![u32::MAX; n];
        let mut ends = Vec::new();
        let mut at = |p: u32| -> u32 {
            let slot = &mut index[p as usize];
            if *slot == u32::MAX {
                *slot = ends.len() as u32;
                ends.push(p);
            }
            *slot
        };
        let pairs: Vec<(u32, u32, f64)> =
            pairs.iter().map(|&(u, v, c)| (at(u), at(v), c)).collect();
        let fixed = Fixed::of(pairs.iter().map(|p| p.2));
        Scorer {
            ends,
            pairs,
            fixed,
            cache: HashMap::default(),
            key: Vec::new(),
            differ: Vec::new(),
            projections: Vec::new(),
            pos: Vec::new(),
            scratch: [Vec::new(), Vec::new()],
            part: Vec::new(),
        }
    }

    /// Whether the face pairs of periodic direction `i` carry different
    /// bytes across different layer boundaries (between coordinates c and
    /// c + 1, over all other coordinates). When every boundary carries the
    /// same, no seam of a ring is lighter than another and shifting it is
    /// not tried (it could still matter where a fold shares a network
    /// dimension between directions; a cost cut for uniform halos).
    /// O(pairs · d) the first time for a direction, then O(1): the answer
    /// is kept (a scorer serves one grid).
    pub fn layers_differ(&mut self, halo: &GridHalo, i: usize) -> bool {
        if let Some(&Some(v)) = self.differ.get(i) {
            return v;
        }
        let v = self.layers_differ_now(halo, i);
        if self.differ.len() <= i {
            self.differ.resize(i + 1, None);
        }
        self.differ[i] = Some(v);
        v
    }

    fn layers_differ_now(&self, halo: &GridHalo, i: usize) -> bool {
        let g = halo.dims[i] as usize;
        let mut layer = vec![0.0f64; g];
        for &(u, v, c) in &self.pairs {
            let (cu, cv) = (
                halo.coord(self.ends[u as usize] as usize),
                halo.coord(self.ends[v as usize] as usize),
            );
            let (a, b) = (cu[i] as usize, cv[i] as usize);
            if (0..cu.len()).any(|j| j != i && cu[j] != cv[j]) || a == b {
                continue;
            }
            let lo = if (a + 1) % g == b {
                a
            } else if (b + 1) % g == a {
                b
            } else {
                continue;
            };
            layer[lo] += c;
        }
        let (lo, hi) = layer
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(l, h), &x| (l.min(x), h.max(x)));
        hi > lo * (1.0 + 1e-9)
    }

    /// Put the layers of every open dimension of `net` (of at most
    /// [`super::arrange::MAX_LAYERS`]) in their best order for `plan` ([`super::arrange`], on the scorer's pairs, from the
    /// plan's order without an arrangement) and return its hop-bytes.
    /// O(ends · targets + pairs · nd + Σ arrangement cost).
    pub fn arrange(&mut self, plan: &mut Plan, halo: &GridHalo, net: &Grid) -> f64 {
        let nd = net.ndims();
        plan.arrange.clear();
        let mut pos = Vec::with_capacity(self.ends.len() * nd);
        let mut one = vec![0u32; nd + 1];
        for &p in &self.ends {
            plan.place(halo.coord(p as usize), &mut one);
            pos.extend_from_slice(&one[..nd]);
        }
        let perms = super::arrange::layer_perms(net, &pos, &self.pairs);
        if perms.iter().any(|a| !a.is_empty()) {
            plan.arrange = perms;
        }
        self.score(plan, halo, net)
    }

    /// Number of pairs scored.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// Whether there is no pair to score.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// Hop-bytes of `plan` over the pairs: the exact sum rounded once (see
    /// the type's docs; [`score`]'s value whenever its sums are exact).
    /// O(ends · targets + pairs · network dimensions), or, per network
    /// dimension whose assignment was scored before, one cache look-up.
    pub fn score(&mut self, plan: &Plan, halo: &GridHalo, net: &Grid) -> f64 {
        let nd = net.ndims();
        let Some(exp) = self.fixed.as_ref().map(|f| f.exp) else {
            let table = plan.digit_table();
            return self.score_pairs(plan, &table, halo, net);
        };
        // The digit table only when some dimension is not cached.
        let mut table: Option<Vec<Vec<[u32; 4]>>> = None;
        let mut total = 0u128;
        let mut key = std::mem::take(&mut self.key);
        for t in 0..nd {
            dim_key(plan, net, t, &mut key);
            if let Some(&h) = self.cache.get(&key[..]) {
                total += h;
                continue;
            }
            let table = table.get_or_insert_with(|| plan.digit_table());
            let h = self.score_dim(plan, table, halo, net, t);
            self.cache.insert(key[..].into(), h);
            total += h;
        }
        self.key = key;
        Fixed::value(total, exp)
    }

    /// Hop-bytes along network dimension `t` alone, in units of the fixed
    /// point (exact: below 2⁶⁴ · hops · pairs), from the pairs projected
    /// onto the directions whose factors lie on `t` ([`Projection`]): the
    /// position along `t` is computed once per projected coordinate.
    /// O(projected coordinates · factors + projected pairs).
    fn score_dim(
        &mut self,
        plan: &Plan,
        table: &[Vec<[u32; 4]>],
        halo: &GridHalo,
        net: &Grid,
        t: usize,
    ) -> u128 {
        let fs = &plan.targets[t];
        let mask = fs.iter().fold(0usize, |m, f| m | 1 << f.dir);
        if self.projections.len() <= mask {
            self.projections.resize_with(mask + 1, || None);
        }
        let proj = self.projections[mask].get_or_insert_with(|| {
            let units = self.fixed.as_ref().map_or(&[][..], |f| &f.units[..]);
            Projection::new(mask, halo, &self.ends, &self.pairs, units)
        });
        // The position along t is the reflected mixed radix of the digits
        // of the factors on t; those digits, one number by plain mixed
        // radix (factor k weighs the product of the sizes before it), are
        // the sum of one part per direction. So: the position of every
        // such number once (`snake`, as many as the dimension has
        // positions), each direction's part of every coordinate once
        // (`part`), and the position of a projected coordinate is
        // `snake[Σ parts]`.
        let k = proj.dirs.len();
        let [weight, snake] = &mut self.scratch;
        weight.clear();
        let mut span = 1u32;
        for f in fs {
            weight.push(span);
            span *= f.size;
        }
        snake.clear();
        snake.extend((0..span).map(|code| {
            let mut x = 0u32;
            for (f, &w) in fs.iter().zip(weight.iter()).rev() {
                let d = code / w % f.size;
                x = x * f.size + if x % 2 == 1 { f.size - 1 - d } else { d };
            }
            plan.arranged(t, x)
        }));
        if self.part.len() < k {
            self.part.resize_with(k, Vec::new);
        }
        for (p, &i) in self.part.iter_mut().zip(&proj.dirs) {
            p.clear();
            p.extend((0..halo.dims[i] as usize).map(|c| {
                fs.iter()
                    .zip(weight.iter())
                    .filter(|(f, _)| f.dir == i)
                    .map(|(f, &w)| table[i][c][f.level] * w)
                    .sum::<u32>()
            }));
        }
        let part = &self.part[..k];
        // Every projected coordinate in order, the first direction
        // fastest; `code` is the sum of the parts of the coordinates `c`.
        self.pos.clear();
        let mut c = [0usize; super::recognise::MAX_GRID_DIMS];
        let mut code: u32 = part.iter().map(|p| p[0]).sum();
        for _ in 0..proj.count {
            self.pos.push(snake[code as usize]);
            for j in 0..k {
                let p = &part[j];
                code -= p[c[j]];
                c[j] += 1;
                if c[j] < p.len() {
                    code += p[c[j]];
                    break;
                }
                c[j] = 0;
                code += p[0];
            }
        }
        let (size, wraps) = (net.dims()[t], net.wraps(t));
        let pos = &self.pos[..];
        match &proj.narrow {
            Some(terms) if proj.total * (size as u128) <= u64::MAX as u128 => {
                let mut total = 0u64;
                for &(a, b, w) in terms {
                    total += w * axis_dist(pos[a as usize], pos[b as usize], size, wraps) as u64;
                }
                total as u128
            }
            _ => {
                let mut total = 0u128;
                for &(a, b, w) in &proj.terms {
                    let h = axis_dist(pos[a as usize], pos[b as usize], size, wraps);
                    total += w * h as u128;
                }
                total
            }
        }
    }

    /// Hop-bytes pair by pair, in the pairs' order (as [`score`] sums them).
    fn score_pairs(
        &mut self,
        plan: &Plan,
        table: &[Vec<[u32; 4]>],
        halo: &GridHalo,
        net: &Grid,
    ) -> f64 {
        let nd = net.ndims();
        let w = nd + 1;
        self.pos.resize(self.ends.len() * w, 0);
        for (k, &p) in self.ends.iter().enumerate() {
            let c = halo.coord(p as usize);
            plan.combine(
                |dir, level| table[dir][c[dir] as usize][level],
                &mut self.pos[k * w..(k + 1) * w],
            );
        }
        let dims = net.dims();
        let wraps: Vec<bool> = (0..nd).map(|k| net.wraps(k)).collect();
        let mut total = 0.0;
        for &(u, v, c) in &self.pairs {
            let (a, b) = (&self.pos[u as usize * w..], &self.pos[v as usize * w..]);
            let hops: u32 = (0..nd)
                .map(|k| axis_dist(a[k], b[k], dims[k], wraps[k]))
                .sum();
            total += c * hops as f64;
        }
        total
    }
}

/// The pairs on which every plan is scored: all of `pairs` (u, v, bytes)
/// when there are at most `k`, else `k` of them drawn uniformly without
/// replacement (seeded), in their given order (`grid` passes them in the
/// grid's canonical order, [`super::canonical::pairs_in_order`]). Not an
/// even stride: in a rank order that follows the grid, pair k's direction
/// and position repeat with a period of a few pairs, and a stride that
/// shares a factor with that period samples some directions or some phases
/// of a fold only (a 64 × 64 ring grid in its own order, every 4th pair:
/// the sample ranked a 6 % worse fold first). O(m).
pub fn sample_of(pairs: Vec<(u32, u32, f64)>, k: usize, seed: u64) -> Vec<(u32, u32, f64)> {
    let m = pairs.len();
    if m <= k {
        return pairs;
    }
    let mut idx: Vec<u32> = (0..m as u32).collect();
    let mut rng = crate::rng::Rng::new(seed ^ 0x5A4D_504C_4553);
    let mut keep = vec![false; m];
    for i in 0..k {
        let j = i + rng.below(m - i);
        idx.swap(i, j);
        keep[idx[i] as usize] = true;
    }
    pairs
        .into_iter()
        .zip(keep)
        .filter(|(_, kp)| *kp)
        .map(|(p, _)| p)
        .collect()
}

/// Hop-bytes of `plan` over `pairs` (u, v, bytes). To score many plans on
/// the same pairs, [`Scorer`] gives the same sums faster.
pub fn score(plan: &Plan, halo: &GridHalo, net: &Grid, pairs: &[(u32, u32, f64)]) -> f64 {
    let nd = net.ndims();
    let mut a = vec![0u32; nd + 1];
    let mut b = vec![0u32; nd + 1];
    let mut total = 0.0;
    for &(u, v, c) in pairs {
        plan.place(halo.coord(u as usize), &mut a);
        plan.place(halo.coord(v as usize), &mut b);
        let hops: u32 = (0..nd)
            .map(|k| axis_dist(a[k], b[k], net.dims()[k], net.wraps(k)))
            .sum();
        total += c * hops as f64;
    }
    total
}

/// The order of scored plans: sampled hop-bytes, then plan index.
fn by_score(a: &(f64, usize), b: &(f64, usize)) -> std::cmp::Ordering {
    a.0.total_cmp(&b.0).then(a.1.cmp(&b.1))
}

/// The entries of `scored` (sampled hop-bytes, plan index; distinct
/// indices) that the choice of finalists reads, sorted by hop-bytes, then
/// index: every entry not above `bound` (the finalists' loop reads a
/// prefix of the sorted list: those, or the first [`FINALISTS`] and the one
/// after them) and, of the others, the first [`PER_LEVEL`] of each node
/// occupancy ([`occupancy_finalists`] takes only from the first
/// [`PER_LEVEL`] of an occupancy, and with [`FINALISTS`] < [`PER_LEVEL`]
/// they hold the first [`FINALISTS`] + 1 overall). The sorted list of all
/// starts with the same entries in the same order, and the other entries
/// are never read, so they are not sorted. O(plans · [`PER_LEVEL`] + r log
/// r) for r kept.
pub fn reachable(plans: &[Plan], scored: &[(f64, usize)], bound: f64) -> Vec<(f64, usize)> {
    let mut out = Vec::new();
    // Per occupancy, its first entries above the bound, sorted.
    let mut firsts: Vec<(u32, Vec<(f64, usize)>)> = Vec::new();
    for &e in scored {
        if !(e.0 > bound) {
            out.push(e);
            continue;
        }
        let occ = plans[e.1].occupancy();
        let i = match firsts.iter().position(|f| f.0 == occ) {
            Some(i) => i,
            None => {
                firsts.push((occ, Vec::with_capacity(PER_LEVEL + 1)));
                firsts.len() - 1
            }
        };
        let buf = &mut firsts[i].1;
        if buf.len() == PER_LEVEL && buf.last().is_some_and(|l| by_score(&e, l).is_gt()) {
            continue;
        }
        let at = buf.partition_point(|x| by_score(x, &e).is_lt());
        buf.insert(at, e);
        buf.truncate(PER_LEVEL);
    }
    out.extend(firsts.into_iter().flat_map(|f| f.1));
    out.sort_unstable_by(by_score);
    out
}

/// The finalists each node occupancy ([`Plan::occupancy`]) adds: of the
/// plans that use that many cores a node, the best [`FINALISTS`] on the
/// sample and up to [`PER_LEVEL`] in all tied with the best of them, those
/// not in `taken` already. With spare cores a spread over more nodes shares
/// the load over more links at more hop-bytes, so each occupancy's best
/// plans compete (within the load budget, by max link load) even when
/// their hop-bytes are far from the least. `scored` is (sampled hop-bytes,
/// plan index), sorted. O(plans + finalists).
pub fn occupancy_finalists(plans: &[Plan], scored: &[(f64, usize)], taken: &[usize]) -> Vec<usize> {
    let mut seen = vec![false; plans.len()];
    for &k in taken {
        seen[k] = true;
    }
    // Per occupancy: (occupancy, plans taken, the best sampled hop-bytes);
    // a node holds few occupancies, so a list is searched.
    let mut class: Vec<(u32, usize, f64)> = Vec::new();
    let mut out = Vec::new();
    for &(s, k) in scored {
        let occ = plans[k].occupancy();
        let i = match class.iter().position(|c| c.0 == occ) {
            Some(i) => i,
            None => {
                class.push((occ, 0, s));
                class.len() - 1
            }
        };
        let (_, e, best) = &mut class[i];
        let take = *e < FINALISTS || (*e < PER_LEVEL && s <= *best * (1.0 + 1e-9));
        if take {
            *e += 1;
            if !seen[k] {
                seen[k] = true;
                out.push(k);
            }
        }
    }
    out
}

/// Hop-bytes and max link load of `plan`'s mapping of the whole graph
/// under dimension-order routing (the max load is the tie-break among
/// plans of equal hop-bytes; both are what
/// [`crate::routing::dor_lines::hop_bytes_and_max_load`] gives for the
/// mapping, bit for bit). O(m · d + channels) on whole-number bytes
/// ([`crate::routing::dor_lines`]), else O(m · route length). `diff` is
/// scratch.
pub fn routed(
    plan: &Plan,
    halo: &GridHalo,
    input: &crate::mappers::MapperInput,
    diff: &mut Vec<f64>,
) -> (f64, f64) {
    let Some(net) = input.topo.as_grid() else {
        return (f64::INFINITY, f64::INFINITY);
    };
    let (node, core) = plan.mapping(halo, net);
    let m = crate::mapping::Mapping::new(node, core);
    crate::routing::dor_lines::hop_bytes_and_max_load(&input.graph, &input.topo, &m, diff)
}

/// Most shifts tried per periodic direction: every shift of a ring up to
/// this size, else the phases of its inner factor.
pub const SHIFTS: u32 = 16;

/// Whether shifting periodic direction `i` can change `plan`'s hop-bytes:
/// not when it lies whole on the node's cores, nor when it lies whole and
/// alone on a ring of its own size (a rotation of the network).
fn shift_matters(plan: &Plan, halo: &GridHalo, net: &Grid, i: usize) -> bool {
    let g = halo.dims[i];
    if !halo.periodic[i] || g < 3 || plan.split[i].len() != 1 {
        return halo.periodic[i] && g >= 3;
    }
    let nd = net.ndims();
    match plan
        .targets
        .iter()
        .position(|fs| fs.iter().any(|f| f.dir == i))
    {
        Some(t) if t == nd => false,
        Some(t) => !(plan.targets[t].len() == 1 && net.wraps(t) && net.dims()[t] == g),
        None => false,
    }
}

/// Choose the shift of every periodic direction of `plan` (one pass of
/// coordinate descent: each direction in turn, every shift up to
/// [`SHIFTS`], else its inner factor's phases; the least hop-bytes on the
/// scorer's pairs is kept, the earlier shift on a tie) and return the
/// plan's hop-bytes. A ring cut into node blocks or folded has seams, and
/// on real runs its pairs' volumes differ, so the seams go where the
/// lightest pairs are. O(Σ shifts tried · scorer pairs · network
/// dimensions sharing the direction).
pub fn improve_shifts(plan: &mut Plan, halo: &GridHalo, net: &Grid, sc: &mut Scorer) -> f64 {
    let d = halo.ndims();
    plan.shift.resize(d, 0);
    let mut best = sc.score(plan, halo, net);
    for i in 0..d {
        if !shift_matters(plan, halo, net, i) || !sc.layers_differ(halo, i) {
            continue;
        }
        let g = halo.dims[i];
        let tries = if g <= SHIFTS {
            g
        } else {
            plan.split[i][0].min(g)
        };
        let keep = plan.shift[i];
        let mut chosen = keep;
        for s in 0..tries {
            if s == keep {
                continue;
            }
            plan.shift[i] = s;
            let h = sc.score(plan, halo, net);
            if h < best * (1.0 - 1e-12) {
                (best, chosen) = (h, s);
            }
        }
        plan.shift[i] = chosen;
    }
    best
}

/// Whether every face step of the grid is at most one hop under `plan`.
pub fn unit_steps(plan: &Plan, halo: &GridHalo, net: &Grid) -> bool {
    let d = halo.ndims();
    let nd = net.ndims();
    let n = halo.coords.len() / d.max(1);
    let mut a = vec![0u32; nd + 1];
    let mut b = vec![0u32; nd + 1];
    let mut c = vec![0u32; d];
    for p in 0..n {
        plan.place(halo.coord(p), &mut a);
        for i in 0..d {
            if halo.dims[i] < 2 || (!halo.periodic[i] && halo.coord(p)[i] + 1 == halo.dims[i]) {
                continue;
            }
            c.copy_from_slice(halo.coord(p));
            c[i] = (c[i] + 1) % halo.dims[i];
            plan.place(&c, &mut b);
            let hops: u32 = (0..nd)
                .map(|k| axis_dist(a[k], b[k], net.dims()[k], net.wraps(k)))
                .sum();
            if hops > 1 {
                return false;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `count` random pairs among `n` processes (seeded), the k-th of
    /// 1 + k mod `kinds` bytes.
    fn random_pairs(seed: u64, count: usize, n: usize, kinds: usize) -> Vec<(u32, u32, f64)> {
        let mut rng = crate::rng::Rng::new(seed);
        (0..count)
            .map(|k| {
                let (u, v) = (rng.below(n) as u32, rng.below(n) as u32);
                (u, v, (1 + k % kinds) as f64)
            })
            .collect()
    }

    fn halo(dims: &[u32], periodic: bool) -> GridHalo {
        let d = dims.len();
        let n: u32 = dims.iter().product();
        let mut coords = Vec::new();
        for p in 0..n {
            let mut r = p;
            for &k in dims {
                coords.push(r % k);
                r /= k;
            }
        }
        GridHalo {
            dims: dims.to_vec(),
            periodic: vec![periodic; d],
            clique: vec![false; d],
            coords,
            axis_bytes: vec![1.0; d],
            diagonal_bytes: 0.0,
            other_bytes: 0.0,
            other_pairs: 0,
            threshold: 0.5,
            found: super::super::recognise::Found::Exact,
        }
    }

    #[test]
    fn the_reachable_scores_lead_the_sorted_list_and_give_the_same_finalists() {
        // Plans of several node occupancies (a 4 × 4 grid on a 2 × 2 × 4
        // torus with 4 cores: 1, 2 or 4 processes a node), scored with many
        // ties; bounds from below the least score to above all of them.
        let h = halo(&[4, 4], true);
        let net = Grid::torus(&[2, 2, 4]).with_cores(4);
        let ps = plans(&h, &net);
        let occupancies: std::collections::HashSet<u32> = ps.iter().map(Plan::occupancy).collect();
        assert!(
            occupancies.len() >= 3 && ps.len() > 100,
            "{occupancies:?} {}",
            ps.len()
        );
        let mut rng = crate::rng::Rng::new(9);
        for levels in [3usize, 40] {
            let scored: Vec<(f64, usize)> = (0..ps.len())
                .map(|k| (1.0 + rng.below(levels) as f64, k))
                .collect();
            let mut all = scored.clone();
            all.sort_by(by_score);
            for bound in [0.5, 1.0, 2.0, 2.5, levels as f64 + 1.0] {
                let r = reachable(&ps, &scored, bound);
                // The finalists' loop reads this prefix.
                let read = all
                    .iter()
                    .filter(|e| e.0 <= bound)
                    .count()
                    .max(FINALISTS + 1);
                let read = read.min(all.len());
                assert_eq!(r[..read], all[..read], "bound {bound}");
                // A subsequence of the sorted list.
                let mut it = all.iter();
                assert!(r.iter().all(|e| it.any(|x| x == e)));
                assert_eq!(
                    occupancy_finalists(&ps, &r, &[]),
                    occupancy_finalists(&ps, &all, &[]),
                    "bound {bound}"
                );
                if levels == 40 && bound < 2.0 {
                    assert!(r.len() < all.len() / 2, "{} of {}", r.len(), all.len());
                }
            }
        }
    }

    #[test]
    fn projected_pairs_are_ordered_by_both_ends() {
        // By hand: ties keep their given order.
        let raw = vec![(1, 2, 5), (0, 2, 1), (1, 2, 7), (0, 1, 3), (2, 3, 4)];
        assert_eq!(
            by_ends(raw, 4),
            [(0, 1, 3), (0, 2, 1), (1, 2, 5), (1, 2, 7), (2, 3, 4)]
        );
        // Random entries: a stable sort by the two indices.
        let mut rng = crate::rng::Rng::new(11);
        for count in [2usize, 7, 64] {
            let raw: Vec<(u32, u32, u64)> = (0..300)
                .map(|k| {
                    let a = rng.below(count - 1) as u32;
                    let b = a + 1 + rng.below(count - 1 - a as usize) as u32;
                    (a, b, k)
                })
                .collect();
            let mut want = raw.clone();
            want.sort_by_key(|r| (r.0, r.1));
            assert_eq!(by_ends(raw, count), want);
        }
    }

    #[test]
    fn targets_hold_each_targets_factors_in_one_vector() {
        let f = |dir, level, size| Factor { dir, level, size };
        let nested = vec![vec![f(0, 0, 2), f(1, 1, 3)], vec![], vec![f(1, 0, 4)]];
        let t = Targets::new(&nested);
        assert_eq!(t.len(), 3);
        assert_eq!(&t[0], &nested[0][..]);
        assert!(t[1].is_empty());
        assert_eq!(&t[2], &nested[2][..]);
        assert_eq!(t.last(), Some(&nested[2][..]));
        assert_eq!(
            t.iter().collect::<Vec<_>>(),
            nested.iter().map(|v| &v[..]).collect::<Vec<_>>()
        );
        assert_eq!(t, Targets::new(&nested));
        // Not the same targets: one factor moved to the next target.
        assert_ne!(
            t,
            Targets::new(&[vec![f(0, 0, 2)], vec![f(1, 1, 3)], vec![f(1, 0, 4)]])
        );
        assert!(Targets::new(&[]).is_empty() && Targets::new(&[]).last().is_none());
        // A plan with no shift set equals one whose shifts are all 0.
        let plan = |shift: Vec<u32>| Plan {
            split: vec![vec![2], vec![4, 3]].into(),
            targets: t.clone(),
            flip: 0,
            shift,
            arrange: Vec::new(),
        };
        assert_eq!(plan(Vec::new()), plan(vec![0, 0]));
        assert_ne!(plan(Vec::new()), plan(vec![0, 1]));
        assert_ne!(plan(vec![1]), plan(vec![0, 1]));
    }

    #[test]
    fn reflected_digits_are_a_snake() {
        let mut prev = [0u32; 4];
        let mut cur = [0u32; 4];
        Plan::digits(0, &[2, 3, 2], &mut prev);
        let mut seen = std::collections::HashSet::new();
        seen.insert(prev);
        for x in 1..12 {
            Plan::digits(x, &[2, 3, 2], &mut cur);
            let diff: u32 = (0..3).map(|l| prev[l].abs_diff(cur[l])).sum();
            assert_eq!(diff, 1, "x = {x}");
            assert!(seen.insert(cur));
            prev = cur;
        }
    }

    #[test]
    fn a_matching_torus_has_a_perfect_plan() {
        let h = halo(&[8, 4, 2], true);
        let net = Grid::torus(&[2, 8, 4]);
        let ps = plans(&h, &net);
        assert!(ps.iter().any(|p| unit_steps(p, &h, &net)));
        // 2D 16×8 folds onto 8×4×4 with every step one hop.
        let h = halo(&[16, 8], false);
        let net = Grid::mesh(&[8, 4, 4]);
        assert!(plans(&h, &net).iter().any(|p| unit_steps(p, &h, &net)));
    }

    #[test]
    fn a_ring_splits_over_every_target() {
        // A ring of 64 onto a 2 × 2 × 4 torus with 4 cores needs a factor
        // on each of the four targets (4 · 2 · 2 · 4): blocks of 4
        // consecutive processes on the nodes, and the ring of 16 blocks
        // snaked through the nodes with every step one hop.
        let h = halo(&[64], true);
        let net = Grid::torus(&[2, 2, 4]).with_cores(4);
        let ps = plans(&h, &net);
        assert!(ps.iter().any(|p| p.split[0].len() == 4));
        assert!(ps.iter().any(|p| unit_steps(p, &h, &net)));
    }

    #[test]
    fn a_direction_longer_than_the_machine_folds_over_three_targets() {
        // A periodic 4 × 4 × 32 halo (x 4, y 2, z 1 bytes a pair) on the
        // 8 × 8 × 8 torus: z must fold; split 2 · 4 · 4 over all three
        // dimensions, each shared with a factor of x or y, it costs less
        // than any split into two (2,359,296 against 2,392,064 hop-bytes,
        // 4,608 against 4,672 units of 512 bytes: scripts/grid_sweep.py's
        // own enumeration on the generator's halo:4x4x32:1,0.5,0.25).
        // Those plans come after every two-factor plan.
        let h = halo(&[4, 4, 32], true);
        let net = Grid::torus(&[8, 8, 8]);
        let mut pairs = Vec::new();
        for p in 0..512u32 {
            let c = &h.coords[p as usize * 3..p as usize * 3 + 3];
            for (i, w) in [(0, 4.0), (1, 2.0), (2, 1.0)] {
                let mut q = [c[0], c[1], c[2]];
                q[i] = (q[i] + 1) % h.dims[i];
                pairs.push((p, q[0] + 4 * q[1] + 16 * q[2], w));
            }
        }
        let ps = plans(&h, &net);
        let first = ps.iter().position(|p| p.split[2].len() == 3).unwrap();
        assert!(
            ps[first..]
                .iter()
                .all(|p| p.split.iter().any(|s| s.len() == 3))
        );
        let mut sc = Scorer::new(512, &pairs);
        let mut best = |three: bool| {
            ps.iter()
                .filter(|p| p.split.iter().any(|s| s.len() == 3) == three)
                .map(|p| sc.score(p, &h, &net))
                .fold(f64::INFINITY, f64::min)
        };
        let (two, three) = (best(false), best(true));
        assert_eq!((two, three), (4672.0, 4608.0));
    }

    #[test]
    fn every_plan_is_a_bijection_onto_free_slots() {
        let h = halo(&[8, 8, 8], true);
        let net = Grid::torus(&[4, 4, 8]).with_cores(4);
        let ps = plans(&h, &net);
        assert!(!ps.is_empty());
        for p in ps.iter().step_by(7) {
            let (node, core) = p.mapping(&h, &net);
            let mut seen = std::collections::HashSet::new();
            for (a, b) in node.iter().zip(&core) {
                assert!((*a as usize) < net.num_nodes() && *b < 4);
                assert!(seen.insert((*a, *b)), "{p:?}");
            }
        }
    }

    #[test]
    fn the_scorer_gives_the_direct_sums() {
        // A 4×6 open grid folded onto a 2×3×4 torus with 2 cores: every
        // plan, reflections included, on whole and on fractional bytes.
        let h = halo(&[4, 6], false);
        let net = Grid::torus(&[2, 3, 4]).with_cores(2);
        let ps = plans(&h, &net);
        assert!(ps.len() > 100 && ps.iter().any(|p| p.flip != 0));
        let mut rng = crate::rng::Rng::new(5);
        for frac in [0.0, 0.37] {
            let pairs: Vec<(u32, u32, f64)> = (0..60)
                .map(|k| {
                    let (u, v) = (rng.below(24) as u32, rng.below(24) as u32);
                    (u, v, (1 + k % 7) as f64 + frac)
                })
                .collect();
            let mut sc = Scorer::new(24, &pairs);
            for p in &ps {
                let s = sc.score(p, &h, &net);
                if frac == 0.0 {
                    assert_eq!(s, score(p, &h, &net, &pairs), "{p:?}");
                }
                assert_eq!(s, exact_score(p, &h, &net, &pairs), "{p:?}");
            }
        }
    }

    /// The exact hop-bytes of `plan` over `pairs` rounded once: every
    /// byte count times 2⁶⁰ is a whole number below 2⁶⁴ (bytes of 2⁻⁸ to
    /// 2⁴ with 53-bit fractions), summed in 128-bit integers.
    fn exact_score(plan: &Plan, h: &GridHalo, net: &Grid, pairs: &[(u32, u32, f64)]) -> f64 {
        let nd = net.ndims();
        let (mut a, mut b) = (vec![0u32; nd + 1], vec![0u32; nd + 1]);
        let scale = 2f64.powi(60);
        let mut total = 0u128;
        for &(u, v, c) in pairs {
            assert!((c * scale).fract() == 0.0 && c * scale < 2f64.powi(64));
            plan.place(h.coord(u as usize), &mut a);
            plan.place(h.coord(v as usize), &mut b);
            let hops: u32 = (0..nd)
                .map(|k| axis_dist(a[k], b[k], net.dims()[k], net.wraps(k)))
                .sum();
            total += (c * scale) as u128 * hops as u128;
        }
        total as f64 / scale
    }

    #[test]
    fn bytes_become_exact_fixed_point_units() {
        // 0.5 = 1·2⁻¹, 3 = 3·2⁰, 0.75 = 3·2⁻²: units of 2⁻².
        let f = Fixed::of([0.5, 3.0, 0.75, 0.0].into_iter()).unwrap();
        assert_eq!((f.units, f.exp), (vec![2, 12, 3, 0], -2));
        // Whole even numbers: units of the largest common power of two.
        let f = Fixed::of([4.0, 8.0, 12.0].into_iter()).unwrap();
        assert_eq!((f.units, f.exp), (vec![1, 2, 3], 2));
        assert_eq!(Fixed::value(6 * 3, 2), 72.0);
        // 0.1's 53-bit fraction against 2⁴⁰: more than 64 bits of units.
        assert!(Fixed::of([0.1, 2f64.powi(40)].into_iter()).is_none());
        assert!(Fixed::of([1.0, -1.0].into_iter()).is_none());
        assert!(Fixed::of([1.0, f64::NAN].into_iter()).is_none());
    }

    #[test]
    fn bytes_too_wide_for_the_fixed_point_are_summed_pair_by_pair() {
        // Tenths beside a terabyte: no 64-bit fixed point holds both, and
        // the scorer sums in doubles in the pairs' order, as `score` does.
        let h = halo(&[4, 6], false);
        let net = Grid::torus(&[2, 3, 4]).with_cores(2);
        let mut pairs = random_pairs(9, 40, 24, 5);
        for (k, p) in pairs.iter_mut().enumerate() {
            p.2 = if k % 3 == 0 { 1e12 } else { 0.1 * p.2 };
        }
        let mut sc = Scorer::new(24, &pairs);
        assert!(sc.fixed.is_none());
        for p in plans(&h, &net).iter().step_by(3) {
            assert_eq!(sc.score(p, &h, &net), score(p, &h, &net, &pairs), "{p:?}");
        }
    }

    #[test]
    fn fractional_bytes_score_symmetric_plans_equal() {
        // A periodic 4×4 grid on a 2×8 torus with 2 cores, and pairs of
        // tenths of a byte that the swap of x and y maps onto themselves:
        // a plan and its image with the two directions swapped have the
        // same hop-bytes, and the scorer says so exactly (the sums pair by
        // pair round differently for the two), the cached per-dimension
        // path gives the exact values and keeps the plan of least exact
        // hop-bytes first.
        let h = halo(&[4, 4], true);
        let net = Grid::torus(&[2, 8]).with_cores(2);
        let swap = |p: u32| (p % 4) * 4 + p / 4;
        let mut pairs = Vec::new();
        let mut rng = crate::rng::Rng::new(3);
        for k in 0..40 {
            let (u, v) = (rng.below(16) as u32, rng.below(16) as u32);
            let c = 0.1 * (1 + k % 9) as f64 + 0.7;
            pairs.push((u, v, c));
            pairs.push((swap(u), swap(v), c));
        }
        let ps = plans(&h, &net);
        let mut sc = Scorer::new(16, &pairs);
        let (mut images, mut differ) = (0, 0);
        for p in &ps {
            let mut q = p.clone();
            q.split = q.split.iter().rev().cloned().collect();
            for f in q.targets.factors_mut() {
                f.dir = 1 - f.dir;
            }
            let (sp, sq) = (sc.score(p, &h, &net), sc.score(&q, &h, &net));
            assert_eq!(sp, exact_score(p, &h, &net, &pairs), "{p:?}");
            assert_eq!(sp, sq, "{p:?} and {q:?}");
            images += 1;
            differ += usize::from(score(p, &h, &net, &pairs) != score(&q, &h, &net, &pairs));
        }
        assert!(images > 20);
        // The case is one where summing pair by pair does break the ties.
        assert!(differ > 0);
    }

    #[test]
    fn arranged_layers_keep_a_bijection_and_never_cost_more() {
        // A 4×4×4 open grid folded onto the 8×8 mesh, random pairs: every
        // plan's arranged version is a bijection onto the nodes, the
        // scorer's sums equal the direct ones, and it costs at most the
        // snake order; on some plan it costs strictly less.
        let h = halo(&[4, 4, 4], false);
        let net = Grid::mesh(&[8, 8]);
        let pairs = random_pairs(11, 300, 64, 9);
        let mut sc = Scorer::new(64, &pairs);
        let mut lower = 0;
        for p in plans(&h, &net).iter().step_by(5) {
            let before = sc.score(p, &h, &net);
            let mut q = p.clone();
            let after = sc.arrange(&mut q, &h, &net);
            assert_eq!(after, score(&q, &h, &net, &pairs), "{q:?}");
            assert!(after <= before, "{q:?}");
            lower += usize::from(after < before);
            let (node, _) = q.mapping(&h, &net);
            let mut seen = std::collections::HashSet::new();
            assert!(node.iter().all(|&a| (a as usize) < 64 && seen.insert(a)));
        }
        assert!(lower > 0);
    }

    #[test]
    fn shifts_move_the_seams_of_a_ring_and_the_scorer_follows() {
        // A periodic 6×4 grid onto a 3×4 torus with 2 cores: direction x
        // splits 2 (cores) × 3 (X). Every shift gives a bijection, the
        // scorer's sums equal the direct ones, and shifting x by one moves
        // the node blocks: {0,1} becomes {5,0}.
        let h = halo(&[6, 4], true);
        let net = Grid::torus(&[3, 4]).with_cores(2);
        let mut ps: Vec<Plan> = plans(&h, &net)
            .into_iter()
            .filter(|p| p.split[0] == [2, 3] && p.targets[2].iter().any(|f| f.dir == 0))
            .collect();
        assert!(!ps.is_empty());
        let pairs = random_pairs(7, 50, 24, 5);
        let mut sc = Scorer::new(24, &pairs);
        for p in ps.iter_mut() {
            for sx in 0..6 {
                p.shift = vec![sx, (sx + 1) % 4];
                assert_eq!(sc.score(p, &h, &net), score(p, &h, &net, &pairs), "{p:?}");
                let (node, core) = p.mapping(&h, &net);
                let mut seen = std::collections::HashSet::new();
                assert!(node.iter().zip(&core).all(|s| seen.insert(s)), "{p:?}");
            }
        }
        let mut p = ps[0].clone();
        p.shift = vec![0, 0];
        let (n0, _) = p.mapping(&h, &net);
        assert_eq!(n0[0], n0[1]);
        p.shift = vec![1, 0];
        let (n1, _) = p.mapping(&h, &net);
        assert_eq!(n1[5], n1[0]);
        assert_ne!(n1[0], n1[1]);
    }
}
