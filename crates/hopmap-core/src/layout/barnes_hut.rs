//! Barnes–Hut repulsion: a quadtree (2D) or octree (3D) over the points, so
//! that the all-pairs repulsion of Bobrik & Popova §4.1 costs O(n log n) per
//! iteration instead of O(n²). This is our addition to the paper (its Matlab
//! implementation used dense matrix operations, §5).
//!
//! The tree is a flat arena built over the points sorted by Morton (Z-order)
//! code: every cell covers a contiguous range of the sorted points, cells are
//! stored in depth-first pre-order, and each cell keeps the index of the cell
//! after its subtree (`next`), so the force walk is a stackless loop with no
//! `Box` per node. Leaves hold up to [`LEAF_SIZE`] points.
//!
//! The walk is done once per leaf for all of its points (a group walk): a
//! cell is approximated when `side < θ ·` the distance from its centre of
//! mass to the leaf's bounding box, which implies the per-point criterion
//! for every point of the leaf. Approximated cells contribute their monopole
//! and, for the inverse-square law, their quadrupole moment; near leaves are
//! summed exactly. Measured on 2,000 uniform random points (tests below), the
//! mean relative force error at the default θ = 1.0 is about 1.2% in 2D and
//! under 1% in 3D.
//!
//! Build: O(n log n) (a sort of 64-bit codes). Walk: O(n log n) for fixed θ,
//! parallel over leaves (rayon); each point's force is summed in a fixed
//! order, so results do not depend on the thread count.
//!
//! The force law is `c · m_i · m_j / d^p` along the line between the points
//! (mass 1 for a process; multilevel coarse nodes carry their size), with an
//! optional cutoff radius beyond which pairs do not repel.

// Coordinates are indexed by axis `a < D` throughout, on purpose.
#![allow(clippy::needless_range_loop, clippy::collapsible_if)]

use rayon::prelude::*;

/// Points per leaf.
pub const LEAF_SIZE: usize = 16;
/// Bits per axis of the Morton code (and the maximum tree depth).
const BITS: u32 = 21;

/// The repulsion law shared by the tree walk and the exact sum.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RepulsionLaw {
    /// Coefficient `c_rep`.
    pub c: f32,
    /// Power `p` of the distance (2 = inverse square).
    pub power: f32,
    /// Pairs farther than this do not repel (None = no cutoff).
    pub cutoff: Option<f32>,
    /// Distances are clamped below this (softening), so that a force stays finite.
    pub min_dist: f32,
}

impl RepulsionLaw {
    /// Force on a point at offset `dx = x_i − x_j` (so it points away from j),
    /// scaled by `mass` (m_i·m_j), added to `acc`.
    #[inline(always)]
    fn add<const D: usize>(&self, dx: &[f32; 3], d2: f32, mass: f32, acc: &mut [f32; 3]) {
        let d2 = d2.max(self.min_dist * self.min_dist);
        if let Some(rc) = self.cutoff {
            if d2 > rc * rc {
                return;
            }
        }
        // magnitude c·m/d^p, direction dx/d: factor c·m/d^(p+1).
        let f = if self.power == 2.0 {
            self.c * mass / (d2 * d2.sqrt())
        } else if self.power == 3.0 {
            self.c * mass / (d2 * d2)
        } else {
            self.c * mass / d2.powf(0.5 * (self.power + 1.0))
        };
        for a in 0..D {
            acc[a] += f * dx[a];
        }
    }
}

impl RepulsionLaw {
    /// Inverse-square force from a cell with mass `m` and traceless
    /// quadrupole `q` at offset `r = x − com`:
    /// `F = c·mi·(M r/R³ − Q r/R⁵ + 5/2 (rᵀQr) r/R⁷)` (−∇ of the 1/R potential
    /// expanded to second order).
    #[inline(always)]
    fn add_quadrupole<const D: usize>(
        &self,
        r: &[f32; 3],
        d2: f32,
        mi: f32,
        m: f32,
        q: &[f32; 6],
        acc: &mut [f32; 3],
    ) {
        if let Some(rc) = self.cutoff {
            if d2 > rc * rc {
                return;
            }
        }
        let inv2 = 1.0 / d2;
        let inv1 = inv2.sqrt();
        let inv3 = inv1 * inv2;
        let inv5 = inv3 * inv2;
        let qr = [
            q[0] * r[0] + q[3] * r[1] + q[4] * r[2],
            q[3] * r[0] + q[1] * r[1] + q[5] * r[2],
            q[4] * r[0] + q[5] * r[1] + q[2] * r[2],
        ];
        let rqr = r[0] * qr[0] + r[1] * qr[1] + r[2] * qr[2];
        let radial = m * inv3 + 2.5 * rqr * inv5 * inv2;
        let c = self.c * mi;
        for a in 0..D {
            acc[a] += c * (radial * r[a] - qr[a] * inv5);
        }
    }
}

/// A deterministic unit-ish direction for two coincident points.
#[inline]
fn split_direction<const D: usize>(i: usize, j: usize) -> [f32; 3] {
    // Antisymmetric: the pair (j, i) gets the opposite direction.
    let (a0, b0, sign) = if i < j { (i, j, 1.0) } else { (j, i, -1.0) };
    let v = split_direction_ordered::<D>(a0, b0);
    [sign * v[0], sign * v[1], sign * v[2]]
}

#[inline]
fn split_direction_ordered<const D: usize>(i: usize, j: usize) -> [f32; 3] {
    let mut h = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (j as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    let mut v = [0f32; 3];
    for a in 0..D {
        h ^= h >> 29;
        h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        v[a] = ((h >> 40) as f32 / (1u64 << 24) as f32) - 0.5;
    }
    v
}

#[derive(Clone, Copy, Debug, Default)]
struct Cell {
    com: [f32; 3],
    center: [f32; 3],
    mass: f32,
    /// Traceless quadrupole about `com`: xx, yy, zz, xy, xz, yz.
    quad: [f32; 6],
    /// Half the side length.
    half: f32,
    /// First sorted point of the cell.
    start: u32,
    /// Number of points.
    count: u32,
    /// Index of the cell after this cell's subtree.
    next: u32,
    leaf: bool,
}

/// A Barnes–Hut tree over `D`-dimensional points (D = 2 or 3).
#[derive(Clone, Debug, Default)]
pub struct Tree<const D: usize> {
    cells: Vec<Cell>,
    /// Original index of each sorted point.
    order: Vec<u32>,
    /// Sorted positions and masses.
    pos: Vec<[f32; 3]>,
    mass: Vec<f32>,
    codes: Vec<u64>,
}

#[inline]
fn spread2(x: u64) -> u64 {
    // 21 bits → every other bit.
    let mut x = x & 0x1F_FFFF;
    x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF;
    x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FF;
    x = (x | (x << 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | (x << 2)) & 0x3333_3333_3333_3333;
    x = (x | (x << 1)) & 0x5555_5555_5555_5555;
    x
}

#[inline]
fn spread3(x: u64) -> u64 {
    // 21 bits → every third bit.
    let mut x = x & 0x1F_FFFF;
    x = (x | (x << 32)) & 0x001F_0000_0000_FFFF;
    x = (x | (x << 16)) & 0x001F_0000_FF00_00FF;
    x = (x | (x << 8)) & 0x100F_00F0_0F00_F00F;
    x = (x | (x << 4)) & 0x10C3_0C30_C30C_30C3;
    x = (x | (x << 2)) & 0x1249_2492_4924_9249;
    x
}

impl<const D: usize> Tree<D> {
    /// Build the tree over `pos` (only the first `D` coordinates are used)
    /// with per-point masses (`None` = all 1). O(n log n).
    pub fn build(pos: &[[f32; 3]], mass: Option<&[f32]>) -> Self {
        let mut t = Tree::<D>::default();
        t.rebuild(pos, mass);
        t
    }

    /// Rebuild in place, reusing allocations.
    pub fn rebuild(&mut self, pos: &[[f32; 3]], mass: Option<&[f32]>) {
        debug_assert!(D == 2 || D == 3);
        let n = pos.len();
        self.cells.clear();
        if n == 0 {
            self.order.clear();
            self.pos.clear();
            self.mass.clear();
            return;
        }
        let mut lo = [f32::INFINITY; 3];
        let mut hi = [f32::NEG_INFINITY; 3];
        for p in pos {
            for a in 0..D {
                lo[a] = lo[a].min(p[a]);
                hi[a] = hi[a].max(p[a]);
            }
        }
        let mut side = 0f32;
        for a in 0..D {
            side = side.max(hi[a] - lo[a]);
        }
        let side = if side > 0.0 && side.is_finite() {
            side * 1.0001
        } else {
            1.0
        };
        let scale = (1u64 << BITS) as f32 / side;
        let maxq = (1u64 << BITS) - 1;
        // Sort (code, index) pairs: unique keys, so the order is deterministic.
        let mut keyed: Vec<(u64, u32)> = pos
            .par_iter()
            .enumerate()
            .map(|(i, p)| {
                let mut code = 0u64;
                for a in 0..D {
                    let q = (((p[a] - lo[a]) * scale) as i64).clamp(0, maxq as i64) as u64;
                    code |= if D == 2 {
                        spread2(q) << a
                    } else {
                        spread3(q) << a
                    };
                }
                (code, i as u32)
            })
            .collect();
        keyed.par_sort_unstable();
        self.codes.clear();
        self.codes.extend(keyed.iter().map(|k| k.0));
        self.order.clear();
        self.order.extend(keyed.iter().map(|k| k.1));
        self.pos.clear();
        self.pos.extend(self.order.iter().map(|&i| pos[i as usize]));
        self.mass.clear();
        match mass {
            Some(m) => self.mass.extend(self.order.iter().map(|&i| m[i as usize])),
            None => self.mass.resize(n, 1.0),
        }
        let mut center = [0f32; 3];
        for a in 0..D {
            center[a] = lo[a] + 0.5 * side;
        }
        self.cells.reserve(2 * n / LEAF_SIZE + 16);
        self.build_cell(0, n, 0, center, 0.5 * side);
    }

    fn build_cell(&mut self, lo: usize, hi: usize, level: u32, center: [f32; 3], half: f32) {
        let idx = self.cells.len();
        self.cells.push(Cell {
            center,
            half,
            start: lo as u32,
            count: (hi - lo) as u32,
            ..Cell::default()
        });
        let leaf = hi - lo <= LEAF_SIZE || level >= BITS;
        let mut com = [0f32; 3];
        let mut mass = 0f32;
        if leaf {
            for k in lo..hi {
                let m = self.mass[k];
                mass += m;
                for a in 0..D {
                    com[a] += m * self.pos[k][a];
                }
            }
        } else {
            let shift = D as u32 * (BITS - 1 - level);
            let mask = (1u64 << D) - 1;
            let mut start = lo;
            for digit in 0..(1u64 << D) {
                let end = start
                    + self.codes[start..hi].partition_point(|&c| (c >> shift) & mask <= digit);
                if end > start {
                    let mut c = center;
                    for a in 0..D {
                        let bit = (digit >> a) & 1;
                        c[a] += if bit == 1 { 0.5 * half } else { -0.5 * half };
                    }
                    let child = self.cells.len();
                    self.build_cell(start, end, level + 1, c, 0.5 * half);
                    let ch = self.cells[child];
                    mass += ch.mass;
                    for a in 0..D {
                        com[a] += ch.mass * ch.com[a];
                    }
                }
                start = end;
            }
        }
        if mass > 0.0 {
            for a in 0..D {
                com[a] /= mass;
            }
        } else {
            com = center;
        }
        // Quadrupole about com: Σ m (3 s sᵀ − |s|² I), s = y − com; children
        // are shifted by the parallel-axis rule.
        let mut quad = [0f32; 6];
        let mut add = |m: f32, s: [f32; 3], q: Option<[f32; 6]>| {
            let s2 = s[0] * s[0] + s[1] * s[1] + s[2] * s[2];
            let q0 = q.unwrap_or([0.0; 6]);
            quad[0] += q0[0] + m * (3.0 * s[0] * s[0] - s2);
            quad[1] += q0[1] + m * (3.0 * s[1] * s[1] - s2);
            quad[2] += q0[2] + m * (3.0 * s[2] * s[2] - s2);
            quad[3] += q0[3] + m * 3.0 * s[0] * s[1];
            quad[4] += q0[4] + m * 3.0 * s[0] * s[2];
            quad[5] += q0[5] + m * 3.0 * s[1] * s[2];
        };
        if leaf {
            for k in lo..hi {
                let mut sv = [0f32; 3];
                for a in 0..D {
                    sv[a] = self.pos[k][a] - com[a];
                }
                add(self.mass[k], sv, None);
            }
        } else {
            let mut ch = idx + 1;
            while ch < self.cells.len() {
                let c = self.cells[ch];
                let mut sv = [0f32; 3];
                for a in 0..D {
                    sv[a] = c.com[a] - com[a];
                }
                add(c.mass, sv, Some(c.quad));
                ch = c.next as usize;
            }
        }
        let next = self.cells.len() as u32;
        let c = &mut self.cells[idx];
        c.quad = quad;
        c.com = com;
        c.mass = mass;
        c.leaf = leaf;
        c.next = next;
    }

    /// Number of cells (for tests and statistics).
    pub fn num_cells(&self) -> usize {
        self.cells.len()
    }

    /// Force on the sorted point `k`.
    #[inline]
    fn force_sorted(&self, k: usize, law: &RepulsionLaw, theta2: f32) -> [f32; 3] {
        let x = self.pos[k];
        let mi = self.mass[k];
        let mut acc = [0f32; 3];
        let mut c = 0usize;
        let cells = &self.cells;
        let cutoff2 = law.cutoff.map(|r| r * r);
        while c < cells.len() {
            let cell = &cells[c];
            let mut dx = [0f32; 3];
            let mut d2 = 0f32;
            for a in 0..D {
                dx[a] = x[a] - cell.com[a];
                d2 += dx[a] * dx[a];
            }
            let side = 2.0 * cell.half;
            let mut inside = true;
            for a in 0..D {
                if (x[a] - cell.center[a]).abs() > cell.half {
                    inside = false;
                }
            }
            if !inside && side * side < theta2 * d2 {
                if let Some(rc2) = cutoff2 {
                    // Every point of the cell is farther than the cutoff.
                    let r = d2.sqrt() - side * 0.87;
                    if r > 0.0 && r * r > rc2 {
                        c = cell.next as usize;
                        continue;
                    }
                }
                if law.power == 2.0 && d2 > 0.0 {
                    law.add_quadrupole::<D>(&dx, d2, mi, cell.mass, &cell.quad, &mut acc);
                } else {
                    law.add::<D>(&dx, d2, mi * cell.mass, &mut acc);
                }
                c = cell.next as usize;
                continue;
            }
            if cell.leaf {
                let s = cell.start as usize;
                for j in s..s + cell.count as usize {
                    if j == k {
                        continue;
                    }
                    let p = &self.pos[j];
                    let mut e = [0f32; 3];
                    let mut e2 = 0f32;
                    for a in 0..D {
                        e[a] = x[a] - p[a];
                        e2 += e[a] * e[a];
                    }
                    if e2 == 0.0 {
                        // Coincident points: push apart along a fixed direction.
                        e = split_direction::<D>(self.order[k] as usize, self.order[j] as usize);
                        e2 = 0.0;
                        for a in 0..D {
                            e2 += e[a] * e[a];
                        }
                        let s = law.min_dist / e2.sqrt().max(1e-12);
                        for a in 0..D {
                            e[a] *= s;
                        }
                        e2 = law.min_dist * law.min_dist;
                    }
                    law.add::<D>(&e, e2, mi * self.mass[j], &mut acc);
                }
                c = cell.next as usize;
                continue;
            }
            c += 1;
        }
        acc
    }

    /// Repulsive force on every point, in the caller's original order,
    /// written into `out` (resized to n). Parallel over points.
    pub fn forces(&self, law: &RepulsionLaw, theta: f32, out: &mut Vec<[f32; 3]>) {
        let n = self.pos.len();
        out.clear();
        out.resize(n, [0.0; 3]);
        if n == 0 {
            return;
        }
        let mut sorted = vec![[0f32; 3]; n];
        // One task per leaf: the leaf's points share one tree walk.
        let leaves: Vec<u32> = (0..self.cells.len() as u32)
            .filter(|&c| self.cells[c as usize].leaf)
            .collect();
        let mut slices: Vec<(u32, &mut [[f32; 3]])> = Vec::with_capacity(leaves.len());
        let mut rest: &mut [[f32; 3]] = &mut sorted;
        for &c in &leaves {
            let cnt = self.cells[c as usize].count as usize;
            let (a, b) = rest.split_at_mut(cnt);
            slices.push((c, a));
            rest = b;
        }
        slices
            .par_iter_mut()
            .with_min_len(16)
            .for_each(|(c, acc)| self.leaf_forces(*c as usize, law, theta, acc));
        for (k, f) in sorted.into_iter().enumerate() {
            out[self.order[k] as usize] = f;
        }
    }

    /// Forces on the points of leaf `leaf` (a group walk: a cell is
    /// approximated only when `side < θ ·` its distance to the leaf's
    /// bounding box, so every point of the leaf meets the per-point criterion).
    fn leaf_forces(&self, leaf: usize, law: &RepulsionLaw, theta: f32, acc: &mut [[f32; 3]]) {
        let lc = &self.cells[leaf];
        let s0 = lc.start as usize;
        let cnt = lc.count as usize;
        let pts = &self.pos[s0..s0 + cnt];
        let ms = &self.mass[s0..s0 + cnt];
        let mut lo = [f32::INFINITY; 3];
        let mut hi = [f32::NEG_INFINITY; 3];
        for p in pts {
            for a in 0..D {
                lo[a] = lo[a].min(p[a]);
                hi[a] = hi[a].max(p[a]);
            }
        }
        let theta2 = theta * theta;
        let quad = law.power == 2.0;
        let cutoff2 = law.cutoff.map(|r| r * r);
        let cells = &self.cells;
        let mut c = 0usize;
        while c < cells.len() {
            let cell = &cells[c];
            if c == leaf {
                // Pairs inside the leaf.
                for i in 0..cnt {
                    for j in 0..cnt {
                        if i != j {
                            self.pair(s0 + i, s0 + j, law, &mut acc[i]);
                        }
                    }
                }
                c = cell.next as usize;
                continue;
            }
            // Distance from the cell's centre of mass to the leaf's box.
            let mut d2 = 0f32;
            for a in 0..D {
                let e = (lo[a] - cell.com[a]).max(cell.com[a] - hi[a]).max(0.0);
                d2 += e * e;
            }
            let side = 2.0 * cell.half;
            if side * side < theta2 * d2 {
                if let Some(rc2) = cutoff2 {
                    let r = d2.sqrt() - side * 0.87;
                    if r > 0.0 && r * r > rc2 {
                        c = cell.next as usize;
                        continue;
                    }
                }
                for (i, x) in pts.iter().enumerate() {
                    let mut dx = [0f32; 3];
                    let mut e2 = 0f32;
                    for a in 0..D {
                        dx[a] = x[a] - cell.com[a];
                        e2 += dx[a] * dx[a];
                    }
                    if quad {
                        law.add_quadrupole::<D>(&dx, e2, ms[i], cell.mass, &cell.quad, &mut acc[i]);
                    } else {
                        law.add::<D>(&dx, e2, ms[i] * cell.mass, &mut acc[i]);
                    }
                }
                c = cell.next as usize;
                continue;
            }
            if cell.leaf {
                let t0 = cell.start as usize;
                for i in 0..cnt {
                    for j in t0..t0 + cell.count as usize {
                        self.pair(s0 + i, j, law, &mut acc[i]);
                    }
                }
                c = cell.next as usize;
                continue;
            }
            c += 1;
        }
    }

    /// Exact repulsion on sorted point `k` from sorted point `j`.
    #[inline(always)]
    fn pair(&self, k: usize, j: usize, law: &RepulsionLaw, acc: &mut [f32; 3]) {
        let x = &self.pos[k];
        let p = &self.pos[j];
        let mut e = [0f32; 3];
        let mut e2 = 0f32;
        for a in 0..D {
            e[a] = x[a] - p[a];
            e2 += e[a] * e[a];
        }
        if e2 == 0.0 {
            e = split_direction::<D>(self.order[k] as usize, self.order[j] as usize);
            e2 = 0.0;
            for a in 0..D {
                e2 += e[a] * e[a];
            }
            let s = law.min_dist / e2.sqrt().max(1e-12);
            for a in 0..D {
                e[a] *= s;
            }
            e2 = law.min_dist * law.min_dist;
        }
        law.add::<D>(&e, e2, self.mass[k] * self.mass[j], acc);
    }

    /// Per-point walk (reference for the group walk; used in tests).
    pub fn forces_per_point(&self, law: &RepulsionLaw, theta: f32, out: &mut Vec<[f32; 3]>) {
        let n = self.pos.len();
        out.clear();
        out.resize(n, [0.0; 3]);
        let theta2 = theta * theta;
        let sorted: Vec<[f32; 3]> = (0..n)
            .into_par_iter()
            .with_min_len(256)
            .map(|k| self.force_sorted(k, law, theta2))
            .collect();
        for (k, f) in sorted.into_iter().enumerate() {
            out[self.order[k] as usize] = f;
        }
    }
}

/// Exact O(n²) repulsion (parallel over points), the reference for the tree.
pub fn exact_forces<const D: usize>(
    pos: &[[f32; 3]],
    mass: Option<&[f32]>,
    law: &RepulsionLaw,
    out: &mut Vec<[f32; 3]>,
) {
    let n = pos.len();
    let m = |i: usize| mass.map_or(1.0, |m| m[i]);
    let res: Vec<[f32; 3]> = (0..n)
        .into_par_iter()
        .with_min_len(64)
        .map(|i| {
            let x = pos[i];
            let mut acc = [0f32; 3];
            for (j, p) in pos.iter().enumerate() {
                if j == i {
                    continue;
                }
                let mut e = [0f32; 3];
                let mut e2 = 0f32;
                for a in 0..D {
                    e[a] = x[a] - p[a];
                    e2 += e[a] * e[a];
                }
                if e2 == 0.0 {
                    e = split_direction::<D>(i, j);
                    e2 = 0.0;
                    for a in 0..D {
                        e2 += e[a] * e[a];
                    }
                    let s = law.min_dist / e2.sqrt().max(1e-12);
                    for a in 0..D {
                        e[a] *= s;
                    }
                    e2 = law.min_dist * law.min_dist;
                }
                law.add::<D>(&e, e2, m(i) * m(j), &mut acc);
            }
            acc
        })
        .collect();
    *out = res;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn law() -> RepulsionLaw {
        RepulsionLaw {
            c: 1.0,
            power: 2.0,
            cutoff: None,
            min_dist: 1e-4,
        }
    }

    fn rel_error<const D: usize>(n: usize, theta: f32, seed: u64) -> f64 {
        let mut rng = Rng::new(seed);
        let pos: Vec<[f32; 3]> = (0..n)
            .map(|_| {
                let mut p = [0f32; 3];
                for a in 0..D {
                    p[a] = rng.range_f64(-50.0, 50.0) as f32;
                }
                p
            })
            .collect();
        let tree = Tree::<D>::build(&pos, None);
        let mut bh = Vec::new();
        tree.forces(&law(), theta, &mut bh);
        let mut ex = Vec::new();
        exact_forces::<D>(&pos, None, &law(), &mut ex);
        let mut sum = 0f64;
        for i in 0..n {
            let mut diff = 0f64;
            let mut norm = 0f64;
            for a in 0..D {
                diff += ((bh[i][a] - ex[i][a]) as f64).powi(2);
                norm += (ex[i][a] as f64).powi(2);
            }
            sum += diff.sqrt() / norm.sqrt();
        }
        sum / n as f64
    }

    #[test]
    fn two_points_hand_checked() {
        // Points at distance 2: magnitude c/d² = 1/4, pointing apart.
        let pos = vec![[0.0, 0.0, 0.0], [2.0, 0.0, 0.0]];
        let t = Tree::<2>::build(&pos, None);
        let mut f = Vec::new();
        t.forces(&law(), 0.9, &mut f);
        assert!((f[0][0] + 0.25).abs() < 1e-6, "{:?}", f);
        assert!((f[1][0] - 0.25).abs() < 1e-6);
        assert_eq!(f[0][1], 0.0);
    }

    #[test]
    fn theta_zero_is_exact_and_default_theta_is_close_2d() {
        assert!(rel_error::<2>(600, 0.0, 1) < 1e-4);
        let e = rel_error::<2>(2000, super::super::DEFAULT_THETA, 7);
        assert!(e < 0.02, "mean relative error {e}");
    }

    #[test]
    fn octree_is_close_3d() {
        assert!(rel_error::<3>(400, 0.0, 3) < 1e-4);
        let e = rel_error::<3>(2000, super::super::DEFAULT_THETA, 5);
        assert!(e < 0.02, "mean relative error {e}");
    }

    #[test]
    fn coincident_points_get_finite_opposite_forces() {
        let pos = vec![[1.0, 1.0, 0.0]; 3];
        let t = Tree::<2>::build(&pos, None);
        let mut f = Vec::new();
        t.forces(&law(), 0.9, &mut f);
        let s: f32 = f.iter().map(|v| v[0] + v[1]).sum();
        assert!(f.iter().all(|v| v[0].is_finite() && v[1].is_finite()));
        assert!(s.abs() < 1e-2 * f.iter().map(|v| v[0].abs()).sum::<f32>().max(1.0));
        assert!(f.iter().any(|v| v[0] != 0.0));
    }

    #[test]
    fn masses_scale_forces() {
        let pos = vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]];
        let t = Tree::<2>::build(&pos, Some(&[2.0, 3.0]));
        let mut f = Vec::new();
        t.forces(&law(), 0.9, &mut f);
        assert!((f[1][0] - 6.0).abs() < 1e-5);
    }

    #[test]
    fn cutoff_removes_far_pairs() {
        let pos = vec![[0.0, 0.0, 0.0], [10.0, 0.0, 0.0]];
        let mut l = law();
        l.cutoff = Some(5.0);
        let mut f = Vec::new();
        Tree::<2>::build(&pos, None).forces(&l, 0.9, &mut f);
        assert_eq!(f[0], [0.0; 3]);
    }
}
