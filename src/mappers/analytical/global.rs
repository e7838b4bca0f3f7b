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
//!   from the previous Φ (which changes little between iterations), the
//!   matrix–vector products by faer's sparse × dense product; stop at a
//!   relative residual of 10⁻⁵ (a hundred-thousandth of a bin).
//!
//! Measured (release, this 2-core machine) on `unstructured:8192:3d` (8,192
//! items, no grouping, torus 8x8x32:cores=4), per global iteration (3
//! solves): see `SOLVER_FIGURES` below, reproduced by
//! `hopmap bench analytical --solvers`. PCG is the default.
//!
//! Cost per iteration: Cholesky O(nnz(L) + flops of the refactorisation);
//! PCG O(iterations · nnz(Q)). Memory: O(nnz(Q)) (+ nnz(L) for Cholesky).

use crate::error::{Error, Result};
use faer::sparse::linalg::solvers::{Llt, SymbolicLlt};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Accum, MatMut, MatRef, Par, Side};

/// The measured figures quoted in the module docs (kept in one place so the
/// docs, the registry help and the bench agree).
pub const SOLVER_FIGURES: &str = "8,192 items (unstructured 3D, no grouping): \
    see `hopmap bench analytical --solvers`";

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

    fn matvec(&self, x: &[f64], out: &mut [f64]) {
        let nvar = self.nvar();
        let mat = SparseColMatRef::new(self.symbolic_ref(), &self.val);
        let xr = MatRef::from_column_major_slice(x, nvar, 1);
        let om = MatMut::from_column_major_slice_mut(out, nvar, 1);
        faer::sparse::linalg::matmul::sparse_dense_matmul(
            om,
            Accum::Replace,
            mat,
            xr,
            1.0,
            Par::Seq,
        );
    }

    fn solve_pcg(&mut self, phi: &mut [f64], active: &[bool]) {
        let nvar = self.nvar();
        let nd = self.ndims;
        for v in 0..nvar {
            self.inv_diag[v] = 1.0 / self.val[self.diag_pos[v]];
        }
        for d in 0..nd {
            if !active[d] {
                continue;
            }
            let mut x = std::mem::take(&mut self.x);
            let mut r = std::mem::take(&mut self.r);
            let mut z = std::mem::take(&mut self.z);
            let mut p = std::mem::take(&mut self.p);
            let mut q = std::mem::take(&mut self.q);
            for v in 0..nvar {
                x[v] = phi[self.var_item[v] as usize * nd + d];
            }
            self.matvec(&x, &mut q);
            let mut bnorm2 = 0.0;
            let mut rz = 0.0;
            for v in 0..nvar {
                let b = self.rhs[v * nd + d];
                bnorm2 += b * b;
                r[v] = b - q[v];
                z[v] = r[v] * self.inv_diag[v];
                p[v] = z[v];
                rz += r[v] * z[v];
            }
            let tol2 = (1e-5f64).powi(2) * bnorm2.max(1e-300);
            let max_it = 2000.min(10 * nvar + 10);
            for _ in 0..max_it {
                let rr: f64 = r.iter().map(|a| a * a).sum();
                if rr <= tol2 {
                    break;
                }
                self.matvec(&p, &mut q);
                let pq: f64 = p.iter().zip(&q).map(|(a, b)| a * b).sum();
                if pq <= 0.0 || !pq.is_finite() {
                    break;
                }
                let alpha = rz / pq;
                let mut rz_new = 0.0;
                for v in 0..nvar {
                    x[v] += alpha * p[v];
                    r[v] -= alpha * q[v];
                    z[v] = r[v] * self.inv_diag[v];
                    rz_new += r[v] * z[v];
                }
                let beta = rz_new / rz;
                rz = rz_new;
                for v in 0..nvar {
                    p[v] = z[v] + beta * p[v];
                }
                self.last_iterations += 1;
            }
            for v in 0..nvar {
                phi[self.var_item[v] as usize * nd + d] = x[v];
            }
            self.x = x;
            self.r = r;
            self.z = z;
            self.p = p;
            self.q = q;
        }
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
