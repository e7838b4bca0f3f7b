//! The Data panel: open a graph (native dialog, drag and drop, recent
//! files), pick a built-in sample, generate one, and read the graph's facts.
//! Loading runs on a worker thread; a bad file leaves the current graph in
//! place and shows `PATH:LINE: …` in the window.

use super::Model;
use super::error::AppError;
use super::settings::Settings;
use super::view::View;
use super::worker::Job;
use hopmap_core::graph::{CommGraph, Coords, GraphBuilder};
use hopmap_core::units::fmt_bytes;
use std::path::Path;

/// The sample the app starts on and that `hopmap gui sample` means.
pub const DEFAULT_SAMPLE: &str = "stencil-3d";

/// Samples: (name, description). `stencil-3d` is built in code (it carries
/// 3D coordinates); the others are the files of `sample-graphs/`, embedded.
pub const SAMPLES: &[(&str, &str)] = &[
    (
        "stencil-3d",
        "8x8x8 7-point stencil (512 processes, 3D coordinates)",
    ),
    (
        "mesh-16x16",
        "16x16 2D nearest-neighbour mesh with grid positions (Moh et al.)",
    ),
    (
        "bobrik-two-clusters",
        "two disjoint cliques of 10 processes (Bobrik & Popova's example)",
    ),
    (
        "unstructured-90",
        "unstructured 2D mesh in 90 parts with centroids (Bhatele & Kale Fig. 3)",
    ),
    (
        "fft-8x8",
        "FFT transposes on an 8x8 process grid (rows and columns)",
    ),
    (
        "stencil-8x8x8",
        "8x8x8 stencil as a MatrixMarket file (no coordinates)",
    ),
    (
        "lammps-lj-64",
        "a real run: LAMMPS (bench/in.lj, 32,000 atoms) on 64 ranks, captured with Open MPI's \
         monitoring (the application's point-to-point bytes and message counts; \
         sample-graphs/README.md)",
    ),
];

/// The embedded sample files: (name, file name, bytes).
const SAMPLE_FILES: &[(&str, &str, &[u8])] = &[
    (
        "mesh-16x16",
        "mesh-16x16.dot",
        include_bytes!("../../../sample-graphs/mesh-16x16.dot"),
    ),
    (
        "bobrik-two-clusters",
        "bobrik-two-clusters.txt",
        include_bytes!("../../../sample-graphs/bobrik-two-clusters.txt"),
    ),
    (
        "unstructured-90",
        "unstructured-90.dot",
        include_bytes!("../../../sample-graphs/unstructured-90.dot"),
    ),
    (
        "fft-8x8",
        "fft-8x8.mtx",
        include_bytes!("../../../sample-graphs/fft-8x8.mtx"),
    ),
    (
        "stencil-8x8x8",
        "stencil-8x8x8.mtx",
        include_bytes!("../../../sample-graphs/stencil-8x8x8.mtx"),
    ),
    (
        "lammps-lj-64",
        "lammps-lj-64.prof",
        include_bytes!("../../../sample-graphs/lammps-lj-64.prof"),
    ),
];

/// A sample by name (deterministic). None for an unknown name.
pub fn builtin_sample(name: &str) -> Option<(CommGraph, String)> {
    if name == "stencil-3d" {
        return Some((stencil(&[8, 8, 8], 1.0e6), name.to_string()));
    }
    let (_, file, bytes) = SAMPLE_FILES.iter().find(|(n, _, _)| *n == name)?;
    let path = Path::new("sample-graphs").join(file);
    hopmap_core::io::parse_graph(bytes, &path, &hopmap_core::io::ReadOptions::default())
        .ok()
        .map(|g| (g, name.to_string()))
}

/// A non-periodic stencil on a 2D or 3D grid with its coordinates.
fn stencil(dims: &[usize], bytes: f64) -> CommGraph {
    let n: usize = dims.iter().product();
    let mut b = GraphBuilder::new(n, false);
    let coord = |mut i: usize| {
        let mut c = [0usize; 3];
        for (d, &k) in dims.iter().enumerate() {
            c[d] = i % k;
            i /= k;
        }
        c
    };
    let mut stride = 1;
    for &k in dims {
        for i in 0..n {
            let c = (i / stride) % k;
            if c + 1 < k {
                b.add(i, i + stride, bytes);
            }
        }
        stride *= k;
    }
    let xyz = (0..n)
        .map(|i| {
            let c = coord(i);
            [c[0] as f64, c[1] as f64, c[2] as f64]
        })
        .collect();
    let g = b.build().unwrap_or_else(|_| CommGraph::empty(n));
    let dim = dims.len().clamp(2, 3);
    g.clone()
        .with_coords(Some(Coords::new(dim, xyz)))
        .unwrap_or(g)
}

/// `sample`, a built-in sample name, or a file path.
pub fn load_graph_arg(arg: &str) -> Result<(CommGraph, String), String> {
    load_graph_arg_with(arg, &hopmap_core::io::ReadOptions::default(), None)
}

/// [`load_graph_arg`] with read options for a file and, optionally, a
/// coordinates file (`x y [z]` per process) that replaces the graph's own
/// coordinates, as `--coords` does for every command that reads a graph.
pub fn load_graph_arg_with(
    arg: &str,
    opts: &hopmap_core::io::ReadOptions,
    coords: Option<&Path>,
) -> Result<(CommGraph, String), String> {
    let (mut g, name) = if arg == "sample" {
        builtin_sample(DEFAULT_SAMPLE).ok_or_else(|| "no built-in sample".to_string())?
    } else if let Some(s) = builtin_sample(arg) {
        s
    } else {
        read_file_with(Path::new(arg), opts)?
    };
    if let Some(c) = coords {
        let xyz = hopmap_core::io::read_coords(c).map_err(|e| e.to_string())?;
        g.set_coords(Some(xyz))
            .map_err(|e| format!("{}: {e}", c.display()))?;
    }
    Ok((g, name))
}

/// Read a graph file with the library's readers.
pub fn read_file(path: &Path) -> Result<(CommGraph, String), String> {
    read_file_with(path, &hopmap_core::io::ReadOptions::default())
}

/// Read a graph file with the library's readers and `opts`.
pub fn read_file_with(
    path: &Path,
    opts: &hopmap_core::io::ReadOptions,
) -> Result<(CommGraph, String), String> {
    let name = path
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    let g = hopmap_core::io::read_graph(path, opts).map_err(|e| e.to_string())?;
    Ok((g, name))
}

/// An example spec for a generator's syntax (`stencil:A[xB[xC]]` -> `stencil:16x16`).
pub fn example_spec(syntax: &str) -> String {
    let kind = syntax.split(':').next().unwrap_or(syntax);
    match kind {
        "stencil" => "stencil:16x16".into(),
        "halo" => "halo:8x8x4:1,0.5,0.25".into(),
        "fft" => "fft:8x8".into(),
        "diagonal" => "diagonal:16x16".into(),
        "clusters" => "clusters:2x10".into(),
        "unstructured" => "unstructured:90:2d".into(),
        "mixed" => "mixed:16x16:0.2".into(),
        "random-geometric" => "random-geometric:400:6".into(),
        other => format!("{other}:"),
    }
}

/// The Data panel's own state.
#[derive(Default)]
pub struct DataPanel {
    /// Name of the graph shown (sample name or file name).
    pub sample: String,
    /// The Generate… dialog is open.
    pub gen_open: bool,
    /// Index into [`hopmap_core::generate::GENERATORS`].
    pub gen_kind: usize,
    pub gen_spec: String,
    pub gen_seed: u64,
    pub gen_full: bool,
    pub gen_periodic: bool,
    pub gen_bytes: f64,
    pub gen_inter: f64,
    pub gen_shuffle: bool,
    /// Open MPI monitoring: the traffic read, and the phase (`None`: all).
    pub traffic: hopmap_core::io::ompi_monitoring::Traffic,
    pub phase: Option<String>,
    /// The file or folder the shown graph was read from (re-read when
    /// the traffic or phase changes).
    pub source_path: Option<std::path::PathBuf>,
    /// The Open… dialog.
    pub chooser: super::file_dialog::Chooser,
    /// The file being loaded and the graph generation before it: it
    /// becomes `source_path` only if the model takes its graph.
    opening: Option<(std::path::PathBuf, u64)>,
}

impl DataPanel {
    /// Load a file on a worker thread; remember it in Recent.
    pub fn open_path(&mut self, path: &Path, model: &mut Model, settings: &mut Settings) {
        let p = path.to_path_buf();
        self.opening = Some((p.clone(), model.graph.generation()));
        settings.push_recent(&p.display().to_string());
        let label = format!(
            "Loading {}",
            p.file_name()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default()
        );
        // A saved workspace points to a graph file it re-reads as bytes;
        // monitoring output (a folder, a rank's file, a traffic choice) is
        // embedded in the workspace instead.
        model.pending_path =
            (!hopmap_core::io::ompi_monitoring::is_monitoring_path(&p)).then(|| p.clone());
        let opts = hopmap_core::io::ReadOptions {
            traffic: self.traffic,
            phase: self.phase.clone(),
            ..Default::default()
        };
        model.load_job = Some(Job::spawn(label, move |_ctl| {
            read_file_with(&p, &opts).map_err(AppError::from)
        }));
    }

    /// Generate a graph on a worker thread.
    pub fn generate(&mut self, model: &mut Model) {
        use hopmap_core::generate::{GenOptions, Neighbors};
        let opts = GenOptions {
            seed: self.gen_seed,
            neighbors: if self.gen_full {
                Neighbors::Full
            } else {
                Neighbors::Faces
            },
            periodic: self.gen_periodic,
            bytes: self.gen_bytes,
            inter_weight: self.gen_inter,
            shuffle: self.gen_shuffle,
        };
        let spec = self.gen_spec.trim().to_string();
        model.pending_path = None;
        model.load_job = Some(Job::spawn(format!("Generating {spec}"), move |_| {
            hopmap_core::generate::generate(&spec, &opts)
                .map(|g| (g, spec.clone()))
                .map_err(AppError::from)
        }));
    }

    fn generate_window(&mut self, ctx: &egui::Context, model: &mut Model) {
        use hopmap_core::generate::GENERATORS;
        let mut open = self.gen_open;
        let mut go = false;
        egui::Window::new("Generate a graph")
            .open(&mut open)
            .resizable(false)
            .default_width(420.0)
            .show(ctx, |ui| {
                for (i, (syntax, help)) in GENERATORS.iter().enumerate() {
                    if ui
                        .radio(self.gen_kind == i, *syntax)
                        .on_hover_text(*help)
                        .clicked()
                    {
                        self.gen_kind = i;
                        self.gen_spec = example_spec(syntax);
                    }
                }
                if let Some((_, help)) = GENERATORS.get(self.gen_kind) {
                    ui.weak(*help);
                }
                ui.horizontal(|ui| {
                    ui.label("spec");
                    ui.text_edit_singleline(&mut self.gen_spec);
                });
                ui.horizontal(|ui| {
                    ui.label("bytes per partner");
                    ui.add(egui::DragValue::new(&mut self.gen_bytes).range(1.0..=1e12));
                    ui.label("seed");
                    ui.add(egui::DragValue::new(&mut self.gen_seed));
                });
                ui.horizontal(|ui| {
                    ui.checkbox(&mut self.gen_full, "full neighbourhood");
                    ui.checkbox(&mut self.gen_periodic, "periodic");
                    ui.checkbox(&mut self.gen_shuffle, "shuffle ids");
                });
                ui.horizontal(|ui| {
                    ui.label("inter-cluster bytes");
                    ui.add(egui::DragValue::new(&mut self.gen_inter).range(0.0..=1e12));
                });
                go = ui.button("Generate").clicked();
            });
        if go {
            self.generate(model);
            open = false;
        }
        self.gen_open = open;
    }

    /// What the input held beyond bytes: the traffic and phase choice of
    /// Open MPI monitoring output, the message-size histogram, the notes.
    fn source_ui(&mut self, ui: &mut egui::Ui, model: &mut Model, settings: &mut Settings) {
        use hopmap_core::io::ompi_monitoring::Traffic;
        let Some(src) = model.graph.source().cloned() else {
            return;
        };
        let monitoring = src
            .notes
            .iter()
            .any(|n| n.starts_with("Open MPI monitoring"));
        let path = self.source_path.clone();
        if monitoring && let Some(path) = path {
            let mut reload = false;
            ui.horizontal(|ui| {
                ui.label("traffic");
                egui::ComboBox::from_id_salt("traffic")
                    .selected_text(self.traffic.name())
                    .show_ui(ui, |ui| {
                        for t in Traffic::ALL {
                            reload |= ui
                                .selectable_value(&mut self.traffic, t, t.name())
                                .on_hover_text(t.describe())
                                .changed();
                        }
                    });
                if src.phases.len() > 1 {
                    ui.label("phase");
                    let shown = self.phase.clone().unwrap_or_else(|| "all".into());
                    egui::ComboBox::from_id_salt("phase")
                        .selected_text(shown)
                        .show_ui(ui, |ui| {
                            reload |= ui.selectable_value(&mut self.phase, None, "all").changed();
                            for p in &src.phases {
                                reload |= ui
                                    .selectable_value(&mut self.phase, Some(p.clone()), p)
                                    .changed();
                            }
                        });
                }
            });
            if reload {
                self.open_path(&path, model, settings);
            }
        }
        if let Some(h) = &src.size_histogram {
            egui::CollapsingHeader::new("message sizes")
                .id_salt("size_histogram")
                .show(ui, |ui| histogram_ui(ui, h));
        }
        egui::CollapsingHeader::new("about this input")
            .id_salt("source_notes")
            .show(ui, |ui| {
                for note in &src.notes {
                    ui.label(egui::RichText::new(note).small().weak());
                }
            });
    }
}

/// Bars of a message-size histogram, from its first to its last non-empty bucket.
fn histogram_ui(ui: &mut egui::Ui, h: &[u64]) {
    let last = h.iter().rposition(|&c| c > 0).unwrap_or(0);
    let first = h.iter().position(|&c| c > 0).unwrap_or(0);
    let max = h.iter().copied().max().unwrap_or(0).max(1) as f32;
    for (k, &c) in h.iter().enumerate().take(last + 1).skip(first) {
        ui.horizontal(|ui| {
            ui.add_sized(
                [110.0, 14.0],
                egui::Label::new(
                    egui::RichText::new(hopmap_core::graph::histogram_bucket_label(k)).small(),
                ),
            );
            let w = 120.0 * c as f32 / max;
            let (r, _) = ui.allocate_exact_size(egui::vec2(120.0, 10.0), egui::Sense::hover());
            ui.painter().rect_filled(
                egui::Rect::from_min_size(r.min, egui::vec2(w, r.height())),
                1.0,
                egui::Color32::from_rgb(90, 140, 200),
            );
            ui.label(egui::RichText::new(c.to_string()).small());
        });
    }
}

/// The components and clusters rows of the graph summary: connected
/// components of the graph, and the clusters the layout found (colour by
/// cluster), which are different things.
fn graph_structure_rows(ui: &mut egui::Ui, model: &Model) {
    ui.label("components")
        .on_hover_text("Connected components: groups of processes with no message between them");
    ui.label(model.num_components.to_string());
    ui.end_row();
    ui.label("clusters")
        .on_hover_text("Clusters the graph layout found (Colour processes by → cluster)");
    if model.clusters_from_layout {
        ui.label(model.num_clusters.to_string());
    } else {
        ui.weak("– (when the layout has settled)");
    }
    ui.end_row();
}

impl View for DataPanel {
    type Input<'a> = (&'a mut Model, &'a mut Settings);
    type Output = ();

    fn title(&self) -> &'static str {
        "Data"
    }

    fn ui(&mut self, ui: &mut egui::Ui, (model, settings): Self::Input<'_>) -> Self::Output {
        // A file finished loading: it is the source if its graph was taken.
        if model.load_job.is_none()
            && let Some((p, gen_before)) = self.opening.take()
            && model.graph.generation() != gen_before
        {
            self.source_path = Some(p);
        }
        if self.gen_spec.is_empty() {
            self.gen_spec = example_spec(
                hopmap_core::generate::GENERATORS
                    .first()
                    .map(|g| g.0)
                    .unwrap_or(""),
            );
            self.gen_bytes = 1024.0;
        }
        if self.gen_open {
            let ctx = ui.ctx().clone();
            self.generate_window(&ctx, model);
        }
        ui.heading("Data");
        ui.horizontal_wrapped(|ui| {
            if ui
                .button("Open…")
                .on_hover_text("Open a communication graph file (or drop one on the window)")
                .clicked()
            {
                self.chooser.open(super::file_dialog::Request::open(
                    "Open a communication graph",
                ));
            }
            if ui
                .button("Open folder…")
                .on_hover_text(
                    "Open Open MPI monitoring output: a folder of prof.<rank>.prof files \
                         (hopmap capture --keep-raw, or pml_monitoring_filename)",
                )
                .clicked()
            {
                self.chooser.open(super::file_dialog::Request::folder(
                    "Open a folder of Open MPI monitoring files",
                ));
            }
            if let Some(p) = self.chooser.poll(ui.ctx()) {
                if p.is_dir() {
                    self.phase = None;
                }
                self.open_path(&p, model, settings);
            }
            let mut open_recent = None;
            ui.menu_button("Recent", |ui| {
                if settings.recent.is_empty() {
                    ui.weak("no recent files");
                }
                for r in &settings.recent {
                    if ui.button(r).clicked() {
                        open_recent = Some(r.clone());
                        ui.close();
                    }
                }
            });
            if let Some(r) = open_recent {
                self.open_path(Path::new(&r), model, settings);
            }
            if ui
                .button("Generate…")
                .on_hover_text("Build a synthetic graph with one of the generators")
                .clicked()
            {
                self.gen_open = true;
            }
        });
        ui.horizontal_wrapped(|ui| {
            ui.label("Samples:");
            for (name, desc) in SAMPLES {
                if ui
                    .selectable_label(model.graph_name == *name, *name)
                    .on_hover_text(*desc)
                    .clicked()
                    && let Some((g, n)) = builtin_sample(name)
                {
                    model.error = model.refuses_graph(&g, &n);
                    if model.error.is_none() {
                        model.set_graph(g, &n);
                        self.sample = n;
                        self.source_path = None;
                    }
                }
            }
        });
        let g = &model.graph;
        egui::Grid::new("graph_facts")
            .num_columns(2)
            .striped(true)
            .show(ui, |ui| {
                ui.label("graph");
                ui.strong(&model.graph_name);
                ui.end_row();
                ui.label("processes");
                ui.label(g.n().to_string());
                ui.end_row();
                ui.label("edges (pairs)");
                ui.label(g.num_edges().to_string());
                ui.end_row();
                ui.label("bytes");
                let bytes = g.total_bytes();
                ui.label(fmt_bytes(bytes))
                    .on_hover_text(format!("{bytes} bytes"));
                ui.end_row();
                ui.label("directed");
                ui.label(if g.is_directed() { "yes" } else { "no" });
                ui.end_row();
                ui.label("coordinates");
                ui.label(match g.coords() {
                    Some(c) => format!("yes ({}D)", c.dim),
                    None => "no".into(),
                });
                ui.end_row();
                graph_structure_rows(ui, model);
                if let Some(m) = g.msg_counts() {
                    let total: f64 = m.iter().sum();
                    ui.label("messages");
                    ui.label(format!(
                        "{total} ({} each on average)",
                        if total > 0.0 {
                            fmt_bytes(g.total_bytes() / total)
                        } else {
                            "-".into()
                        }
                    ))
                    .on_hover_text("messages sent, as the input counted them");
                    ui.end_row();
                }
            });
        self.source_ui(ui, model, settings);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_build_with_expected_sizes() {
        let (g, _) = builtin_sample("stencil-3d").unwrap();
        assert_eq!(g.n(), 512);
        // 3 · 7 · 8 · 8 pairs in an 8×8×8 stencil.
        assert_eq!(g.num_edges(), 3 * 7 * 64);
        assert_eq!(g.coords().unwrap().dim, 3);
        let (g, _) = builtin_sample("mesh-16x16").unwrap();
        assert_eq!(g.num_edges(), 2 * 15 * 16);
        assert_eq!(g.coords().unwrap().dim, 2);
        let (g, _) = builtin_sample("bobrik-two-clusters").unwrap();
        assert_eq!(g.n(), 20);
        assert_eq!(g.components().1, 2);
        for (name, _) in SAMPLES {
            assert!(builtin_sample(name).is_some(), "{name}");
        }
        assert!(load_graph_arg("sample").is_ok());
        let e = load_graph_arg("/no/such/file.mtx").unwrap_err();
        assert!(e.contains("/no/such/file.mtx"), "{e}");
        for (syntax, _) in hopmap_core::generate::GENERATORS {
            let spec = example_spec(syntax);
            let g = hopmap_core::generate::generate(&spec, &Default::default());
            assert!(g.is_ok(), "{spec}: {:?}", g.err());
        }
    }
}
