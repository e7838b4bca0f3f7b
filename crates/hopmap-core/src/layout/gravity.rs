//! The gravitational method of Bobrik & Popova §4 (single level), one
//! [`Stepper`] step per iteration of the algorithm of §4.2.
//!
//! Every process is a point. A communicating pair (`f_ij > 0`) attracts with
//! magnitude `c_att · f_ij` at any distance (§4.1); every pair repels with
//! `c_rep / d^p` (default p = 3, the paper's example p = 2 in the
//! paper-exact setting; [`super::DEFAULT_REP_POWER`] says why), growing without bound as `d → 0` and
//! negligible far away (an optional cutoff radius makes it vanish). An
//! optional weak constant pull towards the origin keeps the picture in view
//! (§4.1, last paragraph). The update is `r_i ← r_i + h · ΣF_i` (§4.1).
//!
//! Our additions, each off or neutral in the paper-exact setting:
//! * **Weight normalisation**: `f_ij` is the pair volume divided by the
//!   maximum pair volume (default) or the mean, so `c_att` means the same for
//!   bytes and for counts.
//! * **Displacement cap**: a step moves a point at most `max_step` mean edge
//!   lengths, so a step cannot explode near `d = 0`.
//! * **Adaptive step** (on by default, off for the paper-exact run): point
//!   `i` moves by `h_rel · F_i / k_i`, where `k_i = Σ_j c_att f_ij / d_ij` is
//!   its local attraction stiffness (a Jacobi-scaled step: a clique member
//!   pulled by 127 partners and a mesh point pulled by 4 move at the same
//!   relative pace), and `h_rel` follows Hu's rule (sfdp): it grows by 1/t
//!   after 5 iterations that lowered Σ|F|², shrinks by t (0.9) after one that
//!   did not, never below `h_rel_min`.
//! * **Masses** (multilevel): a coarse node of mass `m` repels with
//!   `c_rep · m_i m_j / d^p` and moves by `h · F / m`; for processes m = 1.
//! * Repulsion by Barnes–Hut ([`super::barnes_hut`]) or exactly.
//!
//! Stopping: the moving-average rule of §5 ([`super::stopping`]), or a fixed
//! number of iterations.
//!
//! Cost per iteration: O(n log n + m) with Barnes–Hut (O(n² + m) exact);
//! forces are computed in parallel over points.

use super::barnes_hut::{RepulsionLaw, Tree, exact_forces};
use super::stopping::MovingAverageStop;
use super::{LayoutParams, RepulsionMode, WeightNorm};
use crate::graph::CommGraph;
use crate::step::{Progress, StepState, Stepper, Stop};
use rayon::prelude::*;

/// The graph as the layout sees it: symmetric CSR with normalised pair
/// weights `f_ij` (f32) and a mass per point.
#[derive(Clone, Debug, Default)]
pub struct ForceGraph {
    pub offsets: Vec<u32>,
    pub targets: Vec<u32>,
    pub weights: Vec<f32>,
    pub mass: Vec<f32>,
}

impl ForceGraph {
    /// From a communication graph: `f_ij` = pair volume / (max or mean pair volume).
    pub fn from_comm(g: &CommGraph, norm: WeightNorm) -> Self {
        let n = g.n();
        let mut offsets = Vec::with_capacity(n + 1);
        let mut targets = Vec::with_capacity(g.num_entries());
        let mut weights = Vec::with_capacity(g.num_entries());
        offsets.push(0u32);
        for u in 0..n {
            let row = g.neighbors(u);
            let sent = g.sent_row(u);
            for (k, &v) in row.iter().enumerate() {
                let c = sent[k] + g.sent_between(v as usize, u);
                targets.push(v);
                weights.push(c);
            }
            offsets.push(targets.len() as u32);
        }
        let denom = match norm {
            WeightNorm::Max => weights.iter().cloned().fold(0.0, f64::max),
            WeightNorm::Mean => {
                if weights.is_empty() {
                    0.0
                } else {
                    weights.iter().sum::<f64>() / weights.len() as f64
                }
            }
        };
        let inv = if denom > 0.0 { 1.0 / denom } else { 1.0 };
        ForceGraph {
            offsets,
            targets,
            weights: weights.into_iter().map(|w| (w * inv) as f32).collect(),
            mass: vec![1.0; n],
        }
    }

    pub fn n(&self) -> usize {
        self.mass.len()
    }

    /// Mean Euclidean length of the edges (each stored direction once), or
    /// `None` when there are no edges.
    pub fn mean_edge_length(&self, pos: &[[f32; 3]]) -> Option<f64> {
        if self.targets.is_empty() {
            return None;
        }
        let mut sum = 0f64;
        for u in 0..self.n() {
            let p = pos[u];
            for k in self.offsets[u] as usize..self.offsets[u + 1] as usize {
                let q = pos[self.targets[k] as usize];
                let d2 = (p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2);
                sum += (d2 as f64).sqrt();
            }
        }
        Some(sum / self.targets.len() as f64)
    }
}

/// A length scale of the layout: the mean edge length, or for a graph with
/// no edges `extent / sqrt(n)`; never zero.
pub fn length_scale(g: &ForceGraph, pos: &[[f32; 3]]) -> f64 {
    let l = g.mean_edge_length(pos).unwrap_or_else(|| {
        let mut lo = [f32::INFINITY; 3];
        let mut hi = [f32::NEG_INFINITY; 3];
        for p in pos {
            for a in 0..3 {
                lo[a] = lo[a].min(p[a]);
                hi[a] = hi[a].max(p[a]);
            }
        }
        let ext = (0..3).map(|a| (hi[a] - lo[a]) as f64).fold(0.0, f64::max);
        ext / (pos.len().max(1) as f64).sqrt()
    });
    if l.is_finite() && l > 1e-12 { l } else { 1.0 }
}

/// The single-level gravitational layout (§4), a [`Stepper`].
#[derive(Clone, Debug)]
pub struct GravityLayout {
    params: LayoutParams,
    graph: ForceGraph,
    pos: Vec<[f32; 3]>,
    disp: Vec<[f32; 3]>,
    force: Vec<[f32; 3]>,
    /// Per-point attraction stiffness Σ_j c_att f_ij / d_ij (adaptive step).
    stiff: Vec<f32>,
    pinned: Vec<bool>,
    tree2: Tree<2>,
    tree3: Tree<3>,
    stop: MovingAverageStop,
    iteration: usize,
    /// Maximum iterations for this run.
    max_iterations: usize,
    /// Whether the §5 rule may end the run (false = fixed iteration count).
    use_stop_rule: bool,
    state: StepState,
    force_norm: f64,
    energy: f64,
    h_rel: f64,
    progress_count: u32,
    scale: f64,
}

impl GravityLayout {
    /// A layout of `graph` starting at `pos`.
    pub fn new(graph: ForceGraph, pos: Vec<[f32; 3]>, params: &LayoutParams) -> Self {
        let n = graph.n();
        assert_eq!(pos.len(), n, "one position per point");
        let scale = length_scale(&graph, &pos);
        GravityLayout {
            stop: MovingAverageStop::new(params.stop_n, params.stop_m, params.stop_eps),
            max_iterations: params.max_iterations,
            use_stop_rule: params.until_stable,
            params: params.clone(),
            disp: vec![[0.0; 3]; n],
            force: vec![[0.0; 3]; n],
            stiff: vec![0.0; n],
            pinned: vec![false; n],
            tree2: Tree::default(),
            tree3: Tree::default(),
            iteration: 0,
            state: if n == 0 {
                StepState::Stopped(Stop::Converged)
            } else {
                StepState::Running
            },
            force_norm: 0.0,
            energy: f64::INFINITY,
            h_rel: params.h_rel,
            progress_count: 0,
            scale,
            graph,
            pos,
        }
    }

    /// Override the iteration budget and whether the stopping rule applies.
    pub fn set_budget(&mut self, max_iterations: usize, until_stable: bool) {
        self.max_iterations = max_iterations;
        self.use_stop_rule = until_stable;
        if self.state != StepState::Running && self.iteration < max_iterations {
            self.state = StepState::Running;
        }
    }

    pub fn positions(&self) -> &[[f32; 3]] {
        &self.pos
    }
    /// Move of every point in the last iteration (the paper's green segments).
    pub fn displacements(&self) -> &[[f32; 3]] {
        &self.disp
    }
    /// Total force on every point in the last iteration.
    pub fn forces(&self) -> &[[f32; 3]] {
        &self.force
    }
    pub fn graph(&self) -> &ForceGraph {
        &self.graph
    }
    pub fn params(&self) -> &LayoutParams {
        &self.params
    }
    /// Σ_i |F_i| / m_i after the last iteration.
    pub fn force_norm(&self) -> f64 {
        self.force_norm
    }
    /// Σ_i |F_i / m_i|² after the last iteration (Hu's energy proxy).
    pub fn energy(&self) -> f64 {
        if self.energy.is_finite() {
            self.energy
        } else {
            0.0
        }
    }
    /// The §5 stopping-rule value (None until `m` iterations have run).
    pub fn stop_value(&self) -> Option<f64> {
        self.stop.value()
    }
    pub fn iteration(&self) -> usize {
        self.iteration
    }
    /// The mean edge length at the last iteration.
    pub fn scale(&self) -> f64 {
        self.scale
    }
    /// The current adaptive step factor.
    pub fn h_rel(&self) -> f64 {
        self.h_rel
    }
    pub fn into_positions(self) -> Vec<[f32; 3]> {
        self.pos
    }

    /// Fix point `i` at `p` (it no longer moves) and resume.
    pub fn pin(&mut self, i: usize, p: [f32; 3]) {
        if i < self.pos.len() {
            self.pos[i] = p;
            if self.params.dim == 2 {
                self.pos[i][2] = 0.0;
            }
            self.pinned[i] = true;
            self.resume();
        }
    }
    /// Let point `i` move again.
    pub fn unpin(&mut self, i: usize) {
        if i < self.pinned.len() {
            self.pinned[i] = false;
            self.resume();
        }
    }
    pub fn is_pinned(&self, i: usize) -> bool {
        self.pinned.get(i).copied().unwrap_or(false)
    }
    fn resume(&mut self) {
        self.stop.reset();
        if self.state == StepState::Stopped(Stop::Converged) {
            self.state = StepState::Running;
            self.max_iterations = self
                .max_iterations
                .max(self.iteration + self.params.stop_m * 4);
        }
    }

    /// Compute the total force on every point into `self.force`.
    fn compute_forces(&mut self) {
        let p = &self.params;
        let law = RepulsionLaw {
            c: p.c_rep,
            power: p.rep_power,
            cutoff: p.cutoff,
            min_dist: (1e-3 * self.scale) as f32,
        };
        let n = self.pos.len();
        let exact = match p.repulsion {
            RepulsionMode::Exact => true,
            RepulsionMode::BarnesHut => false,
            RepulsionMode::Auto => n <= p.exact_below,
        };
        let mass = if self.graph.mass.iter().all(|&m| m == 1.0) {
            None
        } else {
            Some(&self.graph.mass[..])
        };
        match (p.dim, exact) {
            (3, true) => exact_forces::<3>(&self.pos, mass, &law, &mut self.force),
            (_, true) => exact_forces::<2>(&self.pos, mass, &law, &mut self.force),
            (3, false) => {
                self.tree3.rebuild(&self.pos, mass);
                self.tree3.forces(&law, p.theta, &mut self.force);
            }
            (_, false) => {
                self.tree2.rebuild(&self.pos, mass);
                self.tree2.forces(&law, p.theta, &mut self.force);
            }
        }
        let g = &self.graph;
        let pos = &self.pos;
        let c_att = p.c_att;
        let pull = p.center_pull;
        let dim = p.dim;
        self.stiff.resize(self.pos.len(), 0.0);
        self.force
            .par_iter_mut()
            .zip(self.stiff.par_iter_mut())
            .enumerate()
            .with_min_len(512)
            .for_each(|(i, (f, st))| {
                let x = pos[i];
                let mut k_i = 0f32;
                for k in g.offsets[i] as usize..g.offsets[i + 1] as usize {
                    let y = pos[g.targets[k] as usize];
                    let dx = [y[0] - x[0], y[1] - x[1], y[2] - x[2]];
                    let d = (dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2]).sqrt();
                    if d > 0.0 {
                        let s = c_att * g.weights[k] / d;
                        k_i += s;
                        for a in 0..3 {
                            f[a] += s * dx[a];
                        }
                    }
                }
                *st = k_i;
                if pull > 0.0 {
                    let d = (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).sqrt();
                    if d > 0.0 {
                        let s = pull * g.mass[i] / d;
                        for a in 0..3 {
                            f[a] -= s * x[a];
                        }
                    }
                }
                if dim == 2 {
                    f[2] = 0.0;
                }
            });
    }
}

impl Stepper for GravityLayout {
    fn step(&mut self) -> StepState {
        if self.state != StepState::Running {
            return self.state;
        }
        if self.iteration >= self.max_iterations {
            self.state = StepState::Stopped(Stop::IterationLimit);
            return self.state;
        }
        self.compute_forces();
        let p = &self.params;
        let h = p.h;
        let h_rel = self.h_rel as f32;
        let k_floor = (p.c_att as f64 / self.scale) as f32;
        let cap = (p.max_step as f64 * self.scale) as f32;
        let mut norm = 0f64;
        let mut energy = 0f64;
        for i in 0..self.pos.len() {
            let f = self.force[i];
            let m = self.graph.mass[i];
            // Paper: h·F (mass 1). Adaptive: h_rel·F/k_i, a Jacobi-scaled
            // step (k_i = local attraction stiffness), so cliques and meshes
            // move at the same relative pace.
            let step = if p.adaptive {
                h_rel / self.stiff[i].max(k_floor)
            } else {
                h / m
            };
            let mut d = [step * f[0], step * f[1], step * f[2]];
            let fl2 = ((f[0] * f[0] + f[1] * f[1] + f[2] * f[2]) / (m * m)) as f64;
            norm += fl2.sqrt();
            energy += fl2;
            if self.pinned[i] {
                d = [0.0; 3];
            } else {
                let len = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
                if len > cap && len > 0.0 {
                    let s = cap / len;
                    d = [d[0] * s, d[1] * s, d[2] * s];
                }
                if !(d[0].is_finite() && d[1].is_finite() && d[2].is_finite()) {
                    d = [0.0; 3];
                }
            }
            self.disp[i] = d;
            for a in 0..3 {
                self.pos[i][a] += d[a];
            }
        }
        if p.adaptive {
            // Hu's adaptive step (sfdp): reward progress, punish increase.
            if energy < self.energy {
                self.progress_count += 1;
                if self.progress_count >= 5 {
                    self.progress_count = 0;
                    self.h_rel = (self.h_rel / p.cooling).min(p.h_rel);
                }
            } else {
                self.progress_count = 0;
                self.h_rel = (self.h_rel * p.cooling).max(p.h_rel_min.min(p.h_rel));
            }
        }
        self.energy = energy;
        self.force_norm = norm;
        self.scale = length_scale(&self.graph, &self.pos);
        self.iteration += 1;
        self.stop.record(&self.pos, self.scale);
        if self.use_stop_rule && self.stop.should_stop() {
            self.state = StepState::Stopped(Stop::Converged);
            return self.state;
        }
        if self.iteration >= self.max_iterations {
            self.state = StepState::Stopped(Stop::IterationLimit);
        }
        self.state
    }

    fn state(&self) -> StepState {
        self.state
    }

    fn progress(&self) -> Progress {
        Progress {
            done: self.iteration,
            total: if self.use_stop_rule {
                None
            } else {
                Some(self.max_iterations)
            },
            phase: "layout",
        }
    }
}
