//! Read a product of two cliques — a 2D process grid whose rows and
//! columns each talk all-to-all (SuperLU_DIST's and ScaLAPACK's row and
//! column communicators, a pencil FFT's transposes) — in any numbering, and
//! give every process its (row, column) coordinates.
//!
//! In the Cartesian product K_p × K_q of two cliques every triangle lies
//! inside one row or one column: two processes in different rows and
//! columns are not partners. So joining two pairs whenever they share a
//! triangle (a union–find over the pairs) gives exactly the p + q cliques,
//! each process lies in two of them, one row and one column, and the rows
//! and columns are the two sides of the bipartite graph in which each
//! process joins its two cliques. The reading checks all of this: every
//! process has p + q − 2 partners, every one in exactly two cliques, the
//! two sides of p cliques of q and q cliques of p, and no two processes in
//! the same row and column.
//!
//! The grid embedding ([`super::embed`]) then splits the rows' and the
//! columns' indices into factors over the machine's dimensions and scores
//! each plan on the true pairs: on a 4 × 6 × 6 torus a 12 × 12 product
//! becomes (2 × 6) × (2 × 6), the two factors of 2 sharing a ring of 4, so
//! that each row and each column fills a 2 × 6 plane. Which row is first
//! does not matter to a clique, so the indices follow the processes' own
//! numbers (the least member first).
//!
//! The idea is Rubik's (Bhatele et al., SC'12: a process grid's
//! communicators mapped by tiling and folding) applied to communicators
//! that are cliques instead of rings or paths; going beyond the seed
//! papers, which map halos.
//!
//! Cost: O(Σ_u deg(u)² · log Δ) for the triangles, refused at once when
//! the degrees differ or no p, q ≥ 3 give p · q processes with p + q − 2
//! partners each.

use super::recognise::Uf;

/// Largest number of partners per process that is read (the triangles
/// cost the square of it per process).
pub const MAX_DEGREE: usize = 128;

/// Largest job read as a product. Above it the dense graph's embedding
/// and swap refinement cost more than `recursive+refine` and gave more
/// hop-bytes: K₆₄ × K₆₄ (4,096 processes, 258,048 pairs) on a 16 × 16 × 16
/// torus took 9.1 s for 1.5 % more hop-bytes than `recursive+refine`'s 1.3
/// s (`docs/mapping-quality.md`, "Plane-wave FFTs and sparse direct
/// solvers").
pub const MAX_PROCESSES: usize = 1024;

/// A recognised product: `dims = [p, q]` (rows, columns) and each process's
/// `(row, column)` at `coords[2u..2u + 2]`.
pub struct Product {
    pub dims: [u32; 2],
    pub coords: Vec<u32>,
}

/// Read the undirected adjacency `off`/`nb` (sorted rows, no self-pairs)
/// as a product of two cliques of at least 3, or say why not.
pub fn read(off: &[usize], nb: &[u32]) -> Result<Product, String> {
    let n = off.len().saturating_sub(1);
    let row = |u: usize| &nb[off[u]..off[u + 1]];
    let deg = row(0).len();
    if n < 9 || (0..n).any(|u| row(u).len() != deg) {
        return Err("the processes do not all have the same number of partners".into());
    }
    if deg > MAX_DEGREE {
        return Err(format!("more than {MAX_DEGREE} partners per process"));
    }
    // p + q = deg + 2 and p · q = n, with 3 ≤ p ≤ q.
    let sum = deg as u64 + 2;
    let Some(p) = (3..=sum / 2).find(|&p| p * (sum - p) == n as u64) else {
        return Err("no p × q grid has these partners per process".into());
    };
    let q = sum - p;
    // Union–find over the directed entries; an entry and its twin, and two
    // entries of one process whose other ends are partners (a triangle),
    // are one clique's.
    let mut uf = Uf::new(nb.len());
    let pos = |a: usize, b: u32| row(a).binary_search(&b).ok().map(|k| off[a] + k);
    for u in 0..n {
        let r = row(u);
        for (i, &v) in r.iter().enumerate() {
            if (v as usize) > u {
                let Some(t) = pos(v as usize, u as u32) else {
                    return Err("the pairs are not symmetric".into());
                };
                uf.union(off[u] + i, t);
            }
            for (j, &w) in r.iter().enumerate().skip(i + 1) {
                if pos(v as usize, w).is_some() {
                    uf.union(off[u] + i, off[u] + j);
                }
            }
        }
    }
    // Each process's two cliques, numbered in order of their least member
    // (`number` maps a union–find root to its clique).
    let mut number = vec![usize::MAX; nb.len()];
    let mut members: Vec<Vec<u32>> = Vec::new();
    let mut class = vec![[usize::MAX; 2]; n];
    for u in 0..n {
        for e in off[u]..off[u + 1] {
            let root = uf.find(e);
            if number[root] == usize::MAX {
                number[root] = members.len();
                members.push(Vec::new());
            }
            let c = number[root];
            let cu = &mut class[u];
            if cu[0] == c || cu[1] == c {
                continue;
            }
            if cu[0] == usize::MAX {
                cu[0] = c;
            } else if cu[1] == usize::MAX {
                cu[1] = c;
            } else {
                return Err("a process lies in more than two cliques".into());
            }
            members[c].push(u as u32);
        }
        if class[u][1] == usize::MAX {
            return Err("a process lies in one clique only".into());
        }
    }
    // Two-colour the cliques: the two cliques of a process are on
    // different sides.
    let k = members.len();
    let mut side = vec![u8::MAX; k];
    let mut stack = vec![0usize];
    side[0] = 0;
    while let Some(c) = stack.pop() {
        for &u in &members[c] {
            for &o in &class[u as usize] {
                if o == c {
                    continue;
                }
                if side[o] == u8::MAX {
                    side[o] = 1 - side[c];
                    stack.push(o);
                } else if side[o] == side[c] {
                    return Err("the cliques do not split into rows and columns".into());
                }
            }
        }
    }
    if side.contains(&u8::MAX) {
        return Err("the cliques are not connected".into());
    }
    // The cliques of side 0 are the rows (a of them, each of b processes),
    // those of side 1 the columns.
    let count = |s: u8| side.iter().filter(|&&x| x == s).count() as u64;
    let (a, b) = (count(0), count(1));
    if !((a == p && b == q) || (a == q && b == p)) {
        return Err("the cliques' counts are not p and q".into());
    }
    let mut next = [0u32; 2];
    let mut at = vec![0u32; k];
    for c in 0..k {
        let s = side[c] as usize;
        let want = if s == 0 { b } else { a } as usize;
        if members[c].len() != want {
            return Err("a clique's size differs from the other side's count".into());
        }
        at[c] = next[s];
        next[s] += 1;
    }
    let mut coords = vec![0u32; 2 * n];
    let mut seen = vec![false; n];
    for u in 0..n {
        let [c0, c1] = class[u];
        let (r, c) = if side[c0] == 0 { (c0, c1) } else { (c1, c0) };
        let (x, y) = (at[r], at[c]);
        let cell = (x as usize) * b as usize + y as usize;
        if seen[cell] {
            return Err("two processes share a row and a column".into());
        }
        seen[cell] = true;
        coords[2 * u] = x;
        coords[2 * u + 1] = y;
    }
    Ok(Product {
        dims: [a as u32, b as u32],
        coords,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CSR (sorted rows, repeats dropped) of the adjacency lists `rows`.
    fn csr(rows: Vec<Vec<u32>>) -> (Vec<usize>, Vec<u32>) {
        let (mut off, mut nb) = (vec![0], Vec::new());
        for mut r in rows {
            r.sort_unstable();
            r.dedup();
            nb.extend(r);
            off.push(nb.len());
        }
        (off, nb)
    }

    /// CSR of K_p × K_q with process (r, c) numbered by `label(r * q + c)`.
    fn product(p: usize, q: usize, label: impl Fn(usize) -> usize) -> (Vec<usize>, Vec<u32>) {
        let n = p * q;
        let mut rows = vec![Vec::new(); n];
        for a in 0..n {
            for b in 0..n {
                if a != b && (a / q == b / q || a % q == b % q) {
                    rows[label(a)].push(label(b) as u32);
                }
            }
        }
        csr(rows)
    }

    #[test]
    fn a_scrambled_product_reads_back_to_its_rows_and_columns() {
        for (p, q) in [(3, 3), (3, 5), (4, 6), (12, 12)] {
            let n = p * q;
            // A fixed scramble: multiply by a unit modulo n.
            let mul = (1..n).rev().find(|&k| gcd(k, n) == 1 && k > 1).unwrap_or(1);
            let (off, nb) = product(p, q, |x| (x * mul + 1) % n);
            let r = read(&off, &nb).unwrap();
            let mut dims = r.dims;
            dims.sort_unstable();
            assert_eq!(dims, [p as u32, q as u32]);
            // Two processes are partners exactly when they share one
            // coordinate.
            for u in 0..n {
                for v in 0..n {
                    if u == v {
                        continue;
                    }
                    let share = (0..2)
                        .filter(|&i| r.coords[2 * u + i] == r.coords[2 * v + i])
                        .count();
                    let partners = nb[off[u]..off[u + 1]].contains(&(v as u32));
                    assert_eq!(share == 1, partners, "{p}×{q}: {u}–{v}");
                    assert_ne!(share, 2);
                }
            }
        }
    }

    fn gcd(a: usize, b: usize) -> usize {
        if b == 0 { a } else { gcd(b, a % b) }
    }

    /// The Cayley graph on Z₄ × Z₄ with steps `gens` and their negatives.
    fn cayley_4x4(gens: &[(usize, usize)]) -> (Vec<usize>, Vec<u32>) {
        let mut rows = vec![Vec::new(); 16];
        for (u, row) in rows.iter_mut().enumerate() {
            let (x, y) = (u % 4, u / 4);
            for &(dx, dy) in gens {
                for (sx, sy) in [(dx, dy), ((4 - dx) % 4, (4 - dy) % 4)] {
                    row.push((((x + sx) % 4) + 4 * ((y + sy) % 4)) as u32);
                }
            }
        }
        csr(rows)
    }

    #[test]
    fn other_graphs_are_refused() {
        // A 4 × 4 torus halo: 4 partners, 16 processes, p + q = 6 with
        // p · q = 16 has no solution.
        let (off, nb) = cayley_4x4(&[(1, 0), (0, 1)]);
        assert!(read(&off, &nb).is_err());
        // The Shrikhande graph has the counts of K₄ × K₄ (16 processes, 6
        // partners, every pair of partners with 2 common ones) but its
        // triangles chain all pairs into one class.
        let (off, nb) = cayley_4x4(&[(1, 0), (0, 1), (1, 1)]);
        assert!(read(&off, &nb).is_err());
        // K₄ × K₄ itself, the same Cayley construction with every step
        // along one axis, is read.
        let (off, nb) = cayley_4x4(&[(1, 0), (2, 0), (0, 1), (0, 2)]);
        assert!(read(&off, &nb).is_ok());
        // K₃ × K₃ with one pair added between a row and a column: degrees
        // differ.
        let (off, nb) = product(3, 3, |x| x);
        let mut rows: Vec<Vec<u32>> = (0..9).map(|u| nb[off[u]..off[u + 1]].to_vec()).collect();
        rows[0].push(4);
        rows[4].push(0);
        let (off, nb) = csr(rows);
        assert!(read(&off, &nb).is_err());
        // A clique of 9 (8 partners = 3 + 5 − 2, 9 ≠ 15; and 9 = 3 · 3
        // needs 4): refused.
        let (off, nb) = product(1, 9, |x| x);
        assert!(read(&off, &nb).is_err());
    }
}
