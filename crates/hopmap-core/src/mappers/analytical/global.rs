//! Global optimization (Wu et al. §3.3.1): minimise the quadratic
//! W_f(Φ) = Σ_{(i,j) ∈ E_c ∪ E_f} c_ij |Φ_i − Φ_j|² (Eq. 3) by solving, per
//! dimension, `Q x + d_x = 0` (Eq. 5).
//!
//! `Q` is the Laplacian of the communication graph restricted to the free
//! items, plus on its diagonal the weights of their links to fixed items
//! (§3.6 corners) and to this iteration's fake anchors (§3.3.3, weight β);
//! `d = −Σ c_if Φ_f` over fixed and fake partners. Only the diagonal and `d`
//! change between iterations, so the sparsity pattern (and, for the direct
//! solver, the symbolic Cholesky factorisation) is built once.
//!
//! Beyond the paper: every free item also has a very weak link (weight
//! 10⁻⁶ × the mean weighted degree) to the centre of the box, so that `Q` is
//! positive definite even for graph components that contain no fixed item
//! (the paper assumes a connected graph).
//!
//! Two solvers, both with faer (`solver=` parameter):
//! * `cholesky`: faer's supernodal sparse Cholesky, symbolic analysis
//!   (AMD ordering) once, numeric refactorisation every iteration, then the
//!   D triangular solves.
//! * `pcg`: conjugate gradients with the Jacobi preconditioner, warm-started
//!   from the previous Φ (which changes little between iterations), the D
//!   dimensions in lockstep (one pass over `Q` per iteration for all D
//!   right-hand sides, a hand-written CSC product); stop at a relative
//!   residual of 10⁻⁴ ([`PCG_TOL`]) or at the caps of [`pcg_caps`] (beyond
//!   the paper: an inexact solve; the next global iteration goes on from the
//!   same Φ, as the anchors change little). The first solve starts from
//!   [`super::fixed::initial_positions`] (BFS distances to the fixed items)
//!   instead of the box centre.
//!
//! PCG is the default: it was faster than the Cholesky refactorisation in
//! every measured run at equal hop-bytes (figures: `docs/benchmarks.md`,
//! "Solvers"; reproduce with `hopmap bench analytical --solvers`).
//!
//! Cost per iteration: Cholesky O(nnz(L) + flops of the refactorisation);
//! PCG O(iterations · nnz(Q)). Memory: O(nnz(Q)) (+ nnz(L) for Cholesky).

use crate::error::{Error, Result};
use faer::sparse::linalg::solvers::{Llt, SymbolicLlt};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{MatMut, Side};

/// Which linear solver the global optimization uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SolverKind {
    /// Sparse Cholesky, symbolic once, numeric refactorisation per iteration.
    Cholesky,
    /// Jacobi-preconditioned CG, warm-started from the last Φ.
    Pcg,
}

/// The items' communication graph in CSR form with pair volumes `c_ij`.
#[derive(Clone, Debug, Default)]
pub struct ItemGraph {
    pub offsets: Vec<usize>,
    pub targets: Vec<u32>,
    pub weight: Vec<f64>,
}

impl ItemGraph {
    pub fn n(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }
    #[inline]
    pub fn row(&self, i: usize) -> (&[u32], &[f64]) {
        let (a, b) = (self.offsets[i], self.offsets[i + 1]);
        (&self.targets[a..b], &self.weight[a..b])
    }
    /// Σ_j c_ij.
    pub fn weighted_degree(&self, i: usize) -> f64 {
        self.row(i).1.iter().sum()
    }
    /// Build from a CSR of possibly duplicated entries (summed), dropping
    /// self-loops; rows come out sorted.
    pub fn from_lists(n: usize, mut rows: Vec<Vec<(u32, f64)>>) -> Self {
        let mut g = ItemGraph {
            offsets: Vec::with_capacity(n + 1),
            ..Default::default()
        };
        g.offsets.push(0);
        for (i, r) in rows.iter_mut().enumerate() {
            r.sort_unstable_by_key(|e| e.0);
            let mut last = u32::MAX;
            for &(j, w) in r.iter() {
                if j as usize == i || w <= 0.0 {
                    continue;
                }
                if j == last {
                    *g.weight.last_mut().expect("pushed before") += w;
                } else {
                    g.targets.push(j);
                    g.weight.push(w);
                    last = j;
                }
            }
            g.offsets.push(g.targets.len());
        }
        g
    }
}

const NONE: u32 = u32::MAX;

/// PCG's relative residual at which a solve stops.
pub const PCG_TOL: f64 = 1e-4;

/// PCG iterations of every solve after the first at most: an inexact solve,
/// continued from the same Φ by the next global iteration. A work budget:
/// `PCG_BUDGET / variables`, clamped to 10..=50 (10 at 8,192 items, 50 at
/// 512, where the solves are cheap and the extra accuracy paid: 512
/// processes on torus 8x8x8 gave 1.26 × Scotch's hop-bytes with 10, 1.17 ×
/// with 20).
pub const PCG_BUDGET: usize = 80_000;

/// The first solve (no anchors yet, the worst conditioned) may take 4 × the
/// later cap, at least 40, at most [`PCG_MAX_ITERATIONS`].
pub const PCG_MAX_ITERATIONS: usize = 100;

/// The iteration caps (first solve, later solves) for `nvar` variables.
pub fn pcg_caps(nvar: usize) -> (usize, usize) {
    let later = (PCG_BUDGET / nvar.max(1)).clamp(10, 50);
    ((4 * later).clamp(40, PCG_MAX_ITERATIONS), later)
}

/// The linear systems of Eq. (5) for one item graph and one set of fixed items.
pub struct QSystem {
    ndims: usize,
    /// Item of each variable, and variable of each item (NONE when fixed).
    var_item: Vec<u32>,
    item_var: Vec<u32>,
    col_ptr: Vec<u32>,
    row_idx: Vec<u32>,
    diag_pos: Vec<usize>,
    base_val: Vec<f64>,
    val: Vec<f64>,
    /// −d without anchors: Σ c_if Φ_f over fixed partners + the centre link; nvar × D.
    base_rhs: Vec<f64>,
    rhs: Vec<f64>,
    symbolic: Option<SymbolicLlt<u32>>,
    kind: SolverKind,
    /// Scratch for PCG.
    r: Vec<f64>,
    z: Vec<f64>,
    p: Vec<f64>,
    q: Vec<f64>,
    x: Vec<f64>,
    inv_diag: Vec<f64>,
    /// CG iterations of the last solve (sum over dimensions).
    pub last_iterations: usize,
    /// Solves done.
    solves: usize,
}

impl QSystem {
    /// Assemble `Q`'s pattern and constant part. `fixed_pos[i]` is `Some`
    /// for fixed items (their D coordinates); `centre` is the box centre.
    pub fn new(
        g: &ItemGraph,
        fixed_pos: &[Option<Vec<f64>>],
        centre: &[f64],
        kind: SolverKind,
    ) -> Result<Self> {
        let n = g.n();
        let ndims = centre.len();
        let mut item_var = vec![NONE; n];
        let mut var_item = Vec::new();
        for i in 0..n {
            if fixed_pos[i].is_none() {
                item_var[i] = var_item.len() as u32;
                var_item.push(i as u32);
            }
        }
        let nvar = var_item.len();
        let mean_deg = if n > 0 {
            (0..n).map(|i| g.weighted_degree(i)).sum::<f64>() / n as f64
        } else {
            0.0
        };
        let reg = (1e-6 * mean_deg).max(1e-12);
        let mut col_ptr = Vec::with_capacity(nvar + 1);
        let mut row_idx = Vec::new();
        let mut base_val = Vec::new();
        let mut diag_pos = vec![0usize; nvar];
        let mut base_rhs = vec![0.0; nvar * ndims];
        col_ptr.push(0u32);
        for v in 0..nvar {
            let i = var_item[v] as usize;
            let (t, w) = g.row(i);
            let mut diag = reg;
            for d in 0..ndims {
                base_rhs[v * ndims + d] = reg * centre[d];
            }
            // Rows sorted by item id; item ids map monotonically to var ids.
            let mut placed_diag = false;
            for (&j, &c) in t.iter().zip(w) {
                diag += c;
                let jv = item_var[j as usize];
                if jv == NONE {
                    let fp = fixed_pos[j as usize].as_ref().expect("fixed");
                    for d in 0..ndims {
                        base_rhs[v * ndims + d] += c * fp[d];
                    }
                    continue;
                }
                if !placed_diag && jv as usize > v {
                    diag_pos[v] = row_idx.len();
                    row_idx.push(v as u32);
                    base_val.push(0.0);
                    placed_diag = true;
                }
                row_idx.push(jv);
                base_val.push(-c);
            }
            if !placed_diag {
                diag_pos[v] = row_idx.len();
                row_idx.push(v as u32);
                base_val.push(0.0);
            }
            base_val[diag_pos[v]] = diag;
            col_ptr.push(
                u32::try_from(row_idx.len())
                    .map_err(|_| Error::Unsupported("graph too large for the solver".into()))?,
            );
        }
        let val = base_val.clone();
        let mut me = QSystem {
            ndims,
            var_item,
            item_var,
            col_ptr,
            row_idx,
            diag_pos,
            base_val,
            val,
            rhs: base_rhs.clone(),
            base_rhs,
            symbolic: None,
            kind,
            r: vec![0.0; nvar],
            z: vec![0.0; nvar],
            p: vec![0.0; nvar],
            q: vec![0.0; nvar],
            x: vec![0.0; nvar],
            inv_diag: vec![0.0; nvar],
            last_iterations: 0,
            solves: 0,
        };
        if kind == SolverKind::Cholesky && nvar > 0 {
            let sym = SymbolicLlt::try_new(me.symbolic_ref(), Side::Lower)
                .map_err(|e| Error::Unsupported(format!("sparse Cholesky analysis: {e:?}")))?;
            me.symbolic = Some(sym);
        }
        Ok(me)
    }

    pub fn nvar(&self) -> usize {
        self.var_item.len()
    }

    fn symbolic_ref(&self) -> SymbolicSparseColMatRef<'_, u32> {
        let nvar = self.nvar();
        SymbolicSparseColMatRef::new_checked(nvar, nvar, &self.col_ptr, None, &self.row_idx)
    }

    /// Solve Eq. (5) with this iteration's anchors: item `i` is linked with
    /// weight `beta[i]` to the point `anchor[i*D..]` (β = 0: no anchor).
    /// `phi` (items × D) is read as the warm start and receives the solution
    /// for the free items; fixed items keep their coordinates. `active[d]`
    /// false skips dimension `d` (size 1).
    pub fn solve(
        &mut self,
        beta: &[f64],
        anchor: &[f64],
        phi: &mut [f64],
        active: &[bool],
    ) -> Result<()> {
        let nvar = self.nvar();
        let nd = self.ndims;
        if nvar == 0 {
            return Ok(());
        }
        self.val.copy_from_slice(&self.base_val);
        self.rhs.copy_from_slice(&self.base_rhs);
        for v in 0..nvar {
            let i = self.var_item[v] as usize;
            let b = beta[i];
            if b > 0.0 {
                self.val[self.diag_pos[v]] += b;
                for d in 0..nd {
                    self.rhs[v * nd + d] += b * anchor[i * nd + d];
                }
            }
        }
        self.last_iterations = 0;
        match self.kind {
            SolverKind::Cholesky => self.solve_cholesky(phi, active),
            SolverKind::Pcg => {
                self.solve_pcg(phi, active);
                Ok(())
            }
        }
    }

    fn solve_cholesky(&mut self, phi: &mut [f64], active: &[bool]) -> Result<()> {
        let nvar = self.nvar();
        let nd = self.ndims;
        let sym = self.symbolic.clone().expect("symbolic built for Cholesky");
        let mat = SparseColMatRef::new(self.symbolic_ref(), &self.val);
        let llt = Llt::try_new_with_symbolic(sym, mat, Side::Lower)
            .map_err(|e| Error::Unsupported(format!("sparse Cholesky: {e:?}")))?;
        // Column-major right-hand sides, one column per dimension.
        let mut b = vec![0.0; nvar * nd];
        for v in 0..nvar {
            for d in 0..nd {
                b[d * nvar + v] = self.rhs[v * nd + d];
            }
        }
        {
            use faer::linalg::solvers::SolveCore;
            let bm = MatMut::from_column_major_slice_mut(&mut b, nvar, nd);
            llt.solve_in_place_with_conj(faer::Conj::No, bm);
        }
        for v in 0..nvar {
            let i = self.var_item[v] as usize;
            for d in 0..nd {
                if active[d] {
                    phi[i * nd + d] = b[d * nvar + v];
                }
            }
        }
        Ok(())
    }

    /// `out = Q x` for `nd` interleaved vectors (`x[v * nd + d]`): one pass
    /// over the matrix for all dimensions. Q is stored whole (both
    /// triangles), so column `v` is also row `v`.
    fn matvec_multi(&self, x: &[f64], out: &mut [f64]) {
        let nd = self.ndims;
        let nvar = self.nvar();
        for v in 0..nvar {
            let (a, b) = (self.col_ptr[v] as usize, self.col_ptr[v + 1] as usize);
            let mut acc = [0.0f64; crate::topology::MAX_DIMS];
            for k in a..b {
                let c = self.val[k];
                let u = self.row_idx[k] as usize * nd;
                for d in 0..nd {
                    acc[d] += c * x[u + d];
                }
            }
            out[v * nd..(v + 1) * nd].copy_from_slice(&acc[..nd]);
        }
    }

    /// Jacobi-preconditioned CG on all dimensions in lockstep (one matrix
    /// pass per iteration for the D right-hand sides), warm-started from
    /// `phi`, iterations capped by [`pcg_caps`]: global mapping continues
    /// from the same Φ, so an inexact solve is refined by the next one.
    fn solve_pcg(&mut self, phi: &mut [f64], active: &[bool]) {
        let nvar = self.nvar();
        let nd = self.ndims;
        let len = nvar * nd;
        for v in 0..nvar {
            self.inv_diag[v] = 1.0 / self.val[self.diag_pos[v]];
        }
        let mut x = std::mem::take(&mut self.x);
        let mut r = std::mem::take(&mut self.r);
        let mut z = std::mem::take(&mut self.z);
        let mut p = std::mem::take(&mut self.p);
        let mut q = std::mem::take(&mut self.q);
        for buf in [&mut x, &mut r, &mut z, &mut p, &mut q] {
            buf.resize(len, 0.0);
        }
        for v in 0..nvar {
            let i = self.var_item[v] as usize;
            x[v * nd..(v + 1) * nd].copy_from_slice(&phi[i * nd..(i + 1) * nd]);
        }
        self.matvec_multi(&x, &mut q);
        let mut bnorm2 = [0.0f64; crate::topology::MAX_DIMS];
        let mut rz = [0.0f64; crate::topology::MAX_DIMS];
        let mut rr = [0.0f64; crate::topology::MAX_DIMS];
        for v in 0..nvar {
            let inv = self.inv_diag[v];
            for d in 0..nd {
                let k = v * nd + d;
                let b = self.rhs[k];
                bnorm2[d] += b * b;
                r[k] = if active[d] { b - q[k] } else { 0.0 };
                z[k] = r[k] * inv;
                p[k] = z[k];
                rz[d] += r[k] * z[k];
                rr[d] += r[k] * r[k];
            }
        }
        let mut live = [false; crate::topology::MAX_DIMS];
        for d in 0..nd {
            live[d] = active[d] && rr[d] > PCG_TOL * PCG_TOL * bnorm2[d].max(1e-300);
        }
        let (first, later) = pcg_caps(nvar);
        let cap = if self.solves == 0 { first } else { later };
        let max_it = cap.min(10 * nvar + 10);
        for _ in 0..max_it {
            if !live[..nd].iter().any(|&l| l) {
                break;
            }
            self.matvec_multi(&p, &mut q);
            let mut pq = [0.0f64; crate::topology::MAX_DIMS];
            for v in 0..nvar {
                for d in 0..nd {
                    pq[d] += p[v * nd + d] * q[v * nd + d];
                }
            }
            let mut alpha = [0.0f64; crate::topology::MAX_DIMS];
            for d in 0..nd {
                if live[d] && pq[d] > 0.0 && pq[d].is_finite() {
                    alpha[d] = rz[d] / pq[d];
                } else {
                    live[d] = false;
                }
            }
            let mut rz_new = [0.0f64; crate::topology::MAX_DIMS];
            let mut rr_new = [0.0f64; crate::topology::MAX_DIMS];
            for v in 0..nvar {
                let inv = self.inv_diag[v];
                for d in 0..nd {
                    let k = v * nd + d;
                    x[k] += alpha[d] * p[k];
                    r[k] -= alpha[d] * q[k];
                    z[k] = r[k] * inv;
                    rz_new[d] += r[k] * z[k];
                    rr_new[d] += r[k] * r[k];
                }
            }
            let mut beta = [0.0f64; crate::topology::MAX_DIMS];
            for d in 0..nd {
                if live[d] {
                    beta[d] = if rz[d] > 0.0 { rz_new[d] / rz[d] } else { 0.0 };
                    rz[d] = rz_new[d];
                    self.last_iterations += 1;
                    if rr_new[d] <= PCG_TOL * PCG_TOL * bnorm2[d].max(1e-300) {
                        live[d] = false;
                    }
                }
            }
            for v in 0..nvar {
                for d in 0..nd {
                    let k = v * nd + d;
                    p[k] = if live[d] { z[k] + beta[d] * p[k] } else { 0.0 };
                }
            }
        }
        for v in 0..nvar {
            let i = self.var_item[v] as usize;
            for d in 0..nd {
                if active[d] {
                    phi[i * nd + d] = x[v * nd + d];
                }
            }
        }
        self.solves += 1;
        self.x = x;
        self.r = r;
        self.z = z;
        self.p = p;
        self.q = q;
    }

    /// Whether item `i` is free (a variable).
    pub fn is_free(&self, i: usize) -> bool {
        self.item_var[i] != NONE
    }
}

/// W(Φ) = Σ_{pairs} c_ij |Φ_i − Φ_j|² (Eq. 2; each pair once).
pub fn objective(g: &ItemGraph, phi: &[f64], nd: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..g.n() {
        let (t, w) = g.row(i);
        for (&j, &c) in t.iter().zip(w) {
            let j = j as usize;
            if j > i {
                let mut d2 = 0.0;
                for d in 0..nd {
                    let e = phi[i * nd + d] - phi[j * nd + d];
                    d2 += e * e;
                }
                s += c * d2;
            }
        }
    }
    s
}
