//! Stack identical grids into one: the reading of a code whose heavy pairs
//! form several equal process grids (the rows of a 2D process grid, each a
//! ring of panel broadcasts, as in ScaLAPACK's LU; the planes of a 3D halo
//! whose third direction is light) joined by lighter pairs between them
//! (the column communicators: pivot swaps, reductions).
//!
//! Given every process's component and its coordinates in its component's
//! grid (all components recognised as grids of the same shape, by
//! [`super::recognise`]), the components become one more direction:
//!
//! 1. **Order.** The components are chained greedily along their heaviest
//!    light pairs (the quotient graph), starting from a component whose
//!    second-heaviest quotient pair is lightest (the end of a path, when
//!    the components form one); a cycle or a clique of components makes
//!    the new direction periodic (the pair that closes the chain carries at
//!    least half of the lightest link of the chain).
//! 2. **Alignment.** Each component's grid is known only up to its
//!    symmetries (axis permutations among equal sizes, reflections, shifts
//!    along periodic directions). In chain order, each component takes the
//!    symmetry under which most bytes of its pairs with the components
//!    already placed join equal coordinates (column pairs join the same
//!    position of two rows); at least half of those bytes must, or there
//!    is no stacked reading.
//!
//! Components whose pairs between them carry at most [`INDEPENDENT_SHARE`]
//! of all bytes are independent (the k-point groups of a real-space or
//! plane-wave DFT code, each a halo of its own, joined only by a few
//! reductions written by hand): there are no columns to line up, so the
//! alignment is not required and each component keeps the symmetry that
//! joins most of its few pairs (its own coordinates when none does).
//!
//! The idea is the process-grid view of Bhatele & Kale (seed 000) applied
//! to row and column communicators; the embedding then tiles and folds the
//! stacked grid like any other ([`super::embed`]), scoring every plan on
//! the whole graph, so the light pairs that are not grid neighbours
//! (a column's all-to-all) are paid for where they land.
//! Cost: O(m log m + k·σ + (σ/s)·m·d), σ ≤ [`MAX_SYMMETRIES`] the
//! symmetries of one component's grid, s of them shifts of one axis
//! permutation and reflection (each pair votes for the one shift that
//! joins it), d its directions, k the components (σ·m at most
//! [`MAX_ALIGN_WORK`], else no reading).

use std::collections::BTreeMap;

/// Most symmetries of a component's grid tried per component.
pub const MAX_SYMMETRIES: usize = 4096;

/// Most (symmetry, pair end) combinations the alignment may weigh (the
/// votes touch one in s of them, s the shifts per permutation and
/// reflection).
pub const MAX_ALIGN_WORK: usize = 400_000_000;

/// Share of all bytes at or below which the pairs between components do
/// not need to join equal positions: the components are independent, and
/// wherever the stacking puts those pairs they cost little.
pub const INDEPENDENT_SHARE: f64 = 0.005;

/// A stacked grid: dims, periodic flags and coordinates (the component's
/// directions first, the stacking direction last).
pub type Stacked = (Vec<u32>, Vec<bool>, Vec<u32>);

/// One symmetry of a grid: new coordinate `i` is old axis `perm[i]`,
/// reflected when `flip[i]`, then shifted by `shift[i]` (mod the size).
#[derive(Clone, Debug)]
struct Symmetry {
    perm: Vec<usize>,
    flip: Vec<bool>,
    shift: Vec<u32>,
}

impl Symmetry {
    fn apply(&self, dims: &[u32], c: &[u32], out: &mut [u32]) {
        for i in 0..dims.len() {
            let k = dims[i];
            let x = c[self.perm[i]];
            let x = if self.flip[i] { k - 1 - x } else { x };
            out[i] = (x + self.shift[i]) % k;
        }
    }
}

/// For each symmetry of `syms` (in its order), the bytes of `cross`'s
/// pairs `(u, v, w)` with `v` placed (`placed(v)`, its coordinates in
/// `coords`, stride d + 1) that the symmetry joins at equal coordinates
/// (u's local coordinates moved by it equal v's); and the bytes of those
/// pairs. Rather than trying every shift, each pair votes, for each axis
/// permutation and reflection, for the one shift that joins it (none when
/// a direction without shifts differs): O(σ + σ/s · p · d) for σ
/// symmetries, s shifts per permutation and reflection, and p pairs. Each
/// score adds its bytes in the pairs' order, as trying each symmetry in
/// turn does.
fn alignment_scores(
    syms: &[Symmetry],
    dims: &[u32],
    periodic: &[bool],
    local: &[u32],
    coords: &[u32],
    cross: &[(u32, u32, f64)],
    placed: impl Fn(usize) -> bool,
) -> (Vec<f64>, f64) {
    let d = dims.len();
    let mut scores = vec![0.0; syms.len()];
    let live: Vec<(u32, u32, f64)> = cross
        .iter()
        .copied()
        .filter(|x| placed(x.1 as usize))
        .collect();
    let seen: f64 = live.iter().map(|x| x.2).sum();
    let shifts: usize = (0..d)
        .filter(|&i| periodic[i])
        .map(|i| dims[i] as usize)
        .product();
    // `symmetries` lists, per permutation, every reflection and shift: the
    // symmetries with no shift and no reflection start each permutation's
    // block of `per_perm`.
    let per_perm = (1usize << d) * shifts;
    for (b, block) in syms.chunks(per_perm).enumerate() {
        let perm = &block[0].perm;
        for mask in 0..1usize << d {
            for &(u, v, w) in &live {
                let (u, v) = (u as usize, v as usize);
                let (mut code, mut mult) = (0usize, 1usize);
                let mut joins = true;
                for i in 0..d {
                    let k = dims[i];
                    let x = local[u * d + perm[i]];
                    let flip = mask >> i & 1 == 1;
                    let x = if flip { k - 1 - x } else { x };
                    let y = coords[v * (d + 1) + i];
                    code += usize::from(flip) * mult;
                    mult *= 2;
                    if periodic[i] {
                        code += ((y + k - x) % k) as usize * mult;
                        mult *= k as usize;
                    } else if x != y {
                        joins = false;
                        break;
                    }
                }
                if joins {
                    scores[b * per_perm + code] += w;
                }
            }
        }
    }
    (scores, seen)
}

/// Every symmetry of a grid of `dims` (identity first), or None when
/// there are more than [`MAX_SYMMETRIES`]. Shifts are symmetries of
/// periodic directions only.
fn symmetries(dims: &[u32], periodic: &[bool]) -> Option<Vec<Symmetry>> {
    let d = dims.len();
    let mut perms: Vec<Vec<usize>> = vec![Vec::new()];
    for i in 0..d {
        let mut next = Vec::new();
        for p in &perms {
            for j in 0..d {
                if !p.contains(&j) && dims[j] == dims[i] && periodic[j] == periodic[i] {
                    let mut q = p.clone();
                    q.push(j);
                    next.push(q);
                }
            }
        }
        perms = next;
    }
    let per_perm = (0..d)
        .map(|i| 2 * if periodic[i] { dims[i] as usize } else { 1 })
        .try_fold(1usize, |a, b| a.checked_mul(b))
        .filter(|&p| perms.len().saturating_mul(p) <= MAX_SYMMETRIES)?;
    let mut out = Vec::with_capacity(perms.len() * per_perm);
    for perm in perms {
        for code in 0..per_perm {
            let (mut flip, mut shift, mut r) = (vec![false; d], vec![0u32; d], code);
            for i in 0..d {
                flip[i] = r % 2 == 1;
                r /= 2;
                if periodic[i] {
                    shift[i] = (r % dims[i] as usize) as u32;
                    r /= dims[i] as usize;
                }
            }
            out.push(Symmetry {
                perm: perm.clone(),
                flip,
                shift,
            });
        }
    }
    Some(out)
}

/// Stack `k` components of the same grid (`dims`, `periodic`) into one
/// grid with one more direction of size `k`. `comp[p]` is process p's
/// component, `local[p·d..]` its coordinates in it; `pairs` lists every
/// pair `(u, v, bytes)` once. Errors say why there is no stacked reading:
/// the pairs between components, unless the components are independent
/// ([`INDEPENDENT_SHARE`]), must join equal positions for half their
/// bytes.
pub fn stack(
    comp: &[u32],
    k: usize,
    dims: &[u32],
    periodic: &[bool],
    local: &[u32],
    pairs: &[(u32, u32, f64)],
) -> Result<Stacked, String> {
    let n = comp.len();
    let d = dims.len();
    if k < 2 {
        return Err("one component".into());
    }
    // Quotient pairs and every process's pairs to other components.
    let mut quot: BTreeMap<(u32, u32), f64> = BTreeMap::new();
    let mut cross: Vec<Vec<(u32, u32, f64)>> = vec![Vec::new(); k];
    for &(u, v, w) in pairs {
        let (a, b) = (comp[u as usize], comp[v as usize]);
        if a == b || w <= 0.0 {
            continue;
        }
        *quot.entry((a.min(b), a.max(b))).or_insert(0.0) += w;
        cross[a as usize].push((u, v, w));
        cross[b as usize].push((v, u, w));
    }
    let all: f64 = pairs.iter().map(|x| x.2.max(0.0)).sum();
    let independent = quot.values().sum::<f64>() <= INDEPENDENT_SHARE * all;
    let mut qadj: Vec<Vec<(u32, f64)>> = vec![Vec::new(); k];
    for (&(a, b), &w) in &quot {
        qadj[a as usize].push((b, w));
        qadj[b as usize].push((a, w));
    }
    let weight = |a: u32, b: u32| *quot.get(&(a.min(b), a.max(b))).unwrap_or(&0.0);
    // 1. Order: start at a path end, then always the heaviest unplaced
    // quotient neighbour (the lowest unplaced component when none).
    let second = |c: usize| {
        let mut w: Vec<f64> = qadj[c].iter().map(|x| x.1).collect();
        w.sort_by(|a, b| b.total_cmp(a));
        w.get(1).copied().unwrap_or(0.0)
    };
    let start = (0..k)
        .min_by(|&a, &b| second(a).total_cmp(&second(b)).then(a.cmp(&b)))
        .unwrap_or(0);
    let mut order = Vec::with_capacity(k);
    let mut placed = vec![false; k];
    let mut cur = start;
    let mut lowest = 0;
    loop {
        placed[cur] = true;
        order.push(cur as u32);
        if order.len() == k {
            break;
        }
        let next = qadj[cur]
            .iter()
            .filter(|x| !placed[x.0 as usize])
            .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
            .map(|x| x.0 as usize);
        cur = match next {
            Some(c) => c,
            None => {
                while placed[lowest] {
                    lowest += 1;
                }
                lowest
            }
        };
    }
    let links: Vec<f64> = order.windows(2).map(|w| weight(w[0], w[1])).collect();
    let weakest = links.iter().copied().fold(f64::INFINITY, f64::min);
    let closing = weight(order[k - 1], order[0]);
    let wraps = k > 2 && weakest > 0.0 && closing >= 0.5 * weakest;
    let mut index = vec![0u32; k];
    for (i, &c) in order.iter().enumerate() {
        index[c as usize] = i as u32;
    }
    // 2. Alignment, in chain order.
    let syms = symmetries(dims, periodic).ok_or_else(|| {
        format!("a component's grid has more than {MAX_SYMMETRIES} symmetries to align")
    })?;
    let crossing: usize = cross.iter().map(Vec::len).sum();
    if syms.len().saturating_mul(crossing) > MAX_ALIGN_WORK {
        return Err(format!(
            "aligning {k} components over {crossing} pair ends in {} symmetries is too much work",
            syms.len()
        ));
    }
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); k];
    for p in 0..n {
        members[comp[p] as usize].push(p as u32);
    }
    let mut coords = vec![0u32; n * (d + 1)];
    let mut done = vec![false; k];
    let (mut aligned, mut across) = (0.0, 0.0);
    let mut buf = vec![0u32; d];
    for &c in &order {
        let c = c as usize;
        let (scores, seen) =
            alignment_scores(&syms, dims, periodic, local, &coords, &cross[c], |v| {
                done[comp[v] as usize]
            });
        let mut best = (f64::NEG_INFINITY, 0usize);
        for (si, &score) in scores.iter().enumerate() {
            if score > best.0 {
                best = (score, si);
            }
        }
        aligned += best.0.max(0.0);
        across += seen;
        let s = &syms[best.1];
        for &p in &members[c] {
            let p = p as usize;
            s.apply(dims, &local[p * d..p * d + d], &mut buf);
            coords[p * (d + 1)..p * (d + 1) + d].copy_from_slice(&buf);
            coords[p * (d + 1) + d] = index[c];
        }
        done[c] = true;
    }
    if !independent && (across <= 0.0 || aligned < 0.5 * across) {
        return Err(format!(
            "the pairs between the {k} components join equal positions for {:.0} % of their bytes",
            if across > 0.0 {
                100.0 * aligned / across
            } else {
                0.0
            }
        ));
    }
    let mut sdims = dims.to_vec();
    sdims.push(k as u32);
    let mut speriodic = periodic.to_vec();
    speriodic.push(wraps);
    Ok((sdims, speriodic, coords))
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The votes give every symmetry the bytes that applying it and
        /// comparing coordinates gives, on a 3 × 4 grid periodic in its
        /// second direction (2 · 2 · 4 = 16 symmetries per permutation).
        #[test]
        fn votes_equal_trying_every_symmetry(
            pairs in proptest::collection::vec((0u32..12, 12u32..24, 1u32..9), 1..40),
            placed_mask in 0u32..4096,
        ) {
            let (dims, periodic) = ([3u32, 4], [false, true]);
            let syms = symmetries(&dims, &periodic).unwrap();
            // Process p < 12 is at (p / 4, p % 4) locally; q ≥ 12 is placed
            // at ((q − 12) % 3, (q − 12) / 3) of the stack, layer 0.
            let local: Vec<u32> = (0..24).flat_map(|p: u32| [(p % 12) / 4, p % 4]).collect();
            let mut coords = vec![0u32; 24 * 3];
            for q in 12..24usize {
                coords[q * 3] = (q as u32 - 12) % 3;
                coords[q * 3 + 1] = (q as u32 - 12) / 3;
            }
            let cross: Vec<(u32, u32, f64)> =
                pairs.iter().map(|&(u, v, w)| (u, v, w as f64)).collect();
            let placed = |v: usize| placed_mask >> (v - 12) & 1 == 1;
            let (scores, seen) =
                alignment_scores(&syms, &dims, &periodic, &local, &coords, &cross, placed);
            let mut buf = [0u32; 2];
            for (si, sym) in syms.iter().enumerate() {
                let mut want = 0.0;
                for &(u, v, w) in &cross {
                    let (u, v) = (u as usize, v as usize);
                    sym.apply(&dims, &local[u * 2..u * 2 + 2], &mut buf);
                    if placed(v) && buf[..] == coords[v * 3..v * 3 + 2] {
                        want += w;
                    }
                }
                proptest::prop_assert_eq!(scores[si], want, "symmetry {}", si);
            }
            let want_seen: f64 =
                cross.iter().filter(|x| placed(x.1 as usize)).map(|x| x.2).sum();
            proptest::prop_assert_eq!(seen, want_seen);
        }
    }

    /// Three rings of 4 (local coordinates rotated and reflected per ring)
    /// joined position by position: the stack is a 4 × 3 grid whose rings
    /// line up, periodic in both directions (the components form a clique).
    #[test]
    fn rings_line_up_by_their_light_pairs() {
        // Ring c's process at position x (the true column) is 4c + x; its
        // local coordinate is x shifted by c and, for c = 1, reflected.
        let local_of = |c: u32, x: u32| if c == 1 { (4 - x) % 4 } else { (x + c) % 4 };
        let comp: Vec<u32> = (0..12).map(|p| p / 4).collect();
        let local: Vec<u32> = (0..12).map(|p| local_of(p / 4, p % 4)).collect();
        let mut pairs = Vec::new();
        for c in 0..3u32 {
            for x in 0..4u32 {
                pairs.push((4 * c + x, 4 * c + (x + 1) % 4, 100.0));
                for c2 in c + 1..3 {
                    pairs.push((4 * c + x, 4 * c2 + x, 5.0));
                }
            }
        }
        let (dims, periodic, coords) = stack(&comp, 3, &[4], &[true], &local, &pairs).unwrap();
        assert_eq!(dims, vec![4, 3]);
        assert_eq!(periodic, vec![true, true]);
        for x in 0..4usize {
            let col: Vec<u32> = (0..3).map(|c| coords[(4 * c + x) * 2]).collect();
            assert!(col.iter().all(|&y| y == col[0]), "column {x}: {col:?}");
        }
        let rows: Vec<u32> = (0..3).map(|c| coords[4 * c * 2 + 1]).collect();
        let mut sorted = rows.clone();
        sorted.sort();
        assert_eq!(sorted, vec![0, 1, 2]);
    }

    /// Four rings of 6 (each numbered from its own start) with no pair
    /// between them, or with three pairs of ¼ byte between the first two
    /// rings, joining positions 0–3, 1–5 and 2–2 that no symmetry of the
    /// ring joins two of (0.3 % of the bytes): independent components,
    /// stacked in some order, each ring keeping its ring steps. With those
    /// pairs at 10 bytes each (11 %) they must line up, and they do not.
    #[test]
    fn independent_rings_stack_without_aligning() {
        let comp: Vec<u32> = (0..24).map(|p| p / 6).collect();
        let local: Vec<u32> = (0..24).map(|p| p % 6).collect();
        let mut ring = Vec::new();
        for c in 0..4u32 {
            for x in 0..6u32 {
                ring.push((6 * c + x, 6 * c + (x + 1) % 6, 10.0));
            }
        }
        for extra in [0.0, 0.25, 10.0] {
            let mut pairs = ring.clone();
            if extra > 0.0 {
                pairs.push((0, 6 + 3, extra));
                pairs.push((1, 6 + 5, extra));
                pairs.push((2, 6 + 2, extra));
            }
            let got = stack(&comp, 4, &[6], &[true], &local, &pairs);
            if extra > 5.0 {
                assert!(got.is_err(), "{extra}: {got:?}");
                continue;
            }
            let (dims, periodic, coords) = got.unwrap();
            assert_eq!((dims, periodic), (vec![6, 4], vec![true, false]));
            let mut layers: Vec<u32> = (0..4).map(|c| coords[6 * c * 2 + 1]).collect();
            layers.sort();
            assert_eq!(layers, vec![0, 1, 2, 3], "{extra}");
            for &(u, v, _) in &ring {
                let (u, v) = (u as usize, v as usize);
                assert_eq!(coords[u * 2 + 1], coords[v * 2 + 1]);
                let step = (coords[u * 2] + 6 - coords[v * 2]) % 6;
                assert!(step == 1 || step == 5, "{extra}: {u} {v} step {step}");
            }
        }
    }

    /// Pairs between components that join unrelated positions give no
    /// stacked reading.
    #[test]
    fn unrelated_cross_pairs_are_refused() {
        let comp: Vec<u32> = (0..8).map(|p| p / 4).collect();
        let local: Vec<u32> = (0..8).map(|p| p % 4).collect();
        // Each process x of ring 0 talks to x, x + 1 and x + 2 of ring 1:
        // a symmetry of the ring (x ↦ ±x + s) joins at most 4 of the 12.
        let mut pairs = Vec::new();
        for x in 0..4u32 {
            pairs.push((x, (x + 1) % 4, 100.0));
            pairs.push((4 + x, 4 + (x + 1) % 4, 100.0));
            for t in 0..3 {
                pairs.push((x, 4 + (x + t) % 4, 1.0));
            }
        }
        assert!(stack(&comp, 2, &[4], &[true], &local, &pairs).is_err());
    }
}
