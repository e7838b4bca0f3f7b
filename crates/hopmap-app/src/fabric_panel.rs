//! The switch-fabric part of the Network panel: a generator with its
//! parameters (Moh et al.'s random fabric `fabric:S,H,k,r,seed`, the
//! paper's Fig. 2 sample, `fattree:K:L`, `dragonfly:A,P,H[,G]`) or a fabric
//! file (an ibnetdiscover dump or `-p` listing, iblinkinfo output, or Slurm
//! `topology.conf`, detected from the content or forced), plus the options every fabric takes (cores per host, the
//! job's hosts, the up*/down* root). Everything becomes a spec string
//! parsed by [`hopmap_core::topology::Topology::parse`] through
//! `NetworkPanel::apply`, so a bad parameter or file
//! shows its error in the banner and keeps the network as it was.

use super::Model;
use super::view::View;

/// Fabric presets shown as buttons.
pub const FABRIC_PRESETS: &[&str] = &[
    "fabric:moh-fig2",
    "fabric:75,256,8,0.75,1",
    "fattree:4:3",
    "fattree:16:3",
    "fattree:48:3",
    "dragonfly:4,2,2",
];

/// Where the fabric comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Moh et al. §5.1: S switches, H hosts, k ports, connectivity r, seed.
    Moh,
    /// Moh et al. Fig. 2.
    MohFig2,
    FatTree,
    Dragonfly,
    File,
}

impl Source {
    pub const ALL: [Source; 5] = [
        Source::Moh,
        Source::MohFig2,
        Source::FatTree,
        Source::Dragonfly,
        Source::File,
    ];
    pub fn title(self) -> &'static str {
        match self {
            Source::Moh => "Moh random",
            Source::MohFig2 => "Moh Fig. 2",
            Source::FatTree => "fat tree",
            Source::Dragonfly => "dragonfly",
            Source::File => "file",
        }
    }
}

/// Format of a fabric file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileFormat {
    Detect,
    Ibnetdiscover,
    Slurm,
}

pub struct FabricPanel {
    pub source: Source,
    /// Moh: S, H, k, r, seed.
    pub switches: u32,
    pub hosts: u32,
    pub ports: u32,
    pub ratio: f64,
    pub seed: u64,
    /// Fat tree: K ports, L levels.
    pub ft_k: u32,
    pub ft_l: u32,
    /// Dragonfly: A, P, H, G (0 = the default A·H + 1).
    pub df: [u32; 4],
    pub path: String,
    pub format: FileFormat,
    pub cores: u32,
    /// `job=` (empty = the source's default).
    pub job: String,
    /// `root=` (empty = the minimum-height root).
    pub root: String,
    /// (topology generation, summary line), computed once per topology
    /// (the diameter is O(switches²)).
    summary: (u64, String),
    chooser: super::file_dialog::Chooser,
}

impl Default for FabricPanel {
    fn default() -> Self {
        FabricPanel {
            source: Source::Moh,
            switches: 75,
            hosts: 256,
            ports: 8,
            ratio: 0.75,
            seed: 1,
            ft_k: 8,
            ft_l: 3,
            df: [4, 2, 2, 0],
            path: String::new(),
            format: FileFormat::Detect,
            cores: 1,
            job: String::new(),
            root: String::new(),
            summary: (0, String::new()),
            chooser: Default::default(),
        }
    }
}

impl FabricPanel {
    /// For a file source: "file missing: PATH" when there is no such file
    /// (rather than the spec parser's complaint about the path).
    pub fn missing_file(&self) -> Option<String> {
        if self.source != Source::File {
            return None;
        }
        let p = self.path.trim();
        if p.is_empty() {
            return Some("choose a fabric file (ibnetdiscover output or topology.conf)".into());
        }
        let path = std::path::Path::new(p);
        if path.is_file() {
            None
        } else if path.exists() {
            Some(format!("not a file: {p}"))
        } else {
            Some(format!("file missing: {p}"))
        }
    }

    /// Set the fields from a fabric's spec (what Apply or a preset loaded),
    /// so that the controls show the network in use. Options other than
    /// the source's own stay as they were, except `cores`.
    pub fn load(&mut self, topo: &hopmap_core::topology::Topology) {
        let Some(f) = topo.as_fabric() else { return };
        self.cores = f.cores();
        let spec = topo.spec();
        let head = spec.split(":cores=").next().unwrap_or(&spec).to_string();
        let nums = |body: &str| -> Vec<f64> {
            body.split([',', ':'])
                .map_while(|x| x.trim().parse::<f64>().ok())
                .collect()
        };
        if head.starts_with("fabric:moh-fig2") {
            self.source = Source::MohFig2;
        } else if let Some(b) = head.strip_prefix("fabric:") {
            let v = nums(b);
            if v.len() >= 4 {
                self.source = Source::Moh;
                (self.switches, self.hosts, self.ports) = (v[0] as u32, v[1] as u32, v[2] as u32);
                self.ratio = v[3];
                self.seed = v.get(4).map_or(1, |&x| x as u64);
            }
        } else if let Some(b) = head.strip_prefix("fattree:") {
            let v = nums(b);
            if v.len() >= 2 {
                self.source = Source::FatTree;
                (self.ft_k, self.ft_l) = (v[0] as u32, v[1] as u32);
            }
        } else if let Some(b) = head.strip_prefix("dragonfly:") {
            let v = nums(b);
            if v.len() >= 3 {
                self.source = Source::Dragonfly;
                self.df = [
                    v[0] as u32,
                    v[1] as u32,
                    v[2] as u32,
                    v.get(3).map_or(0, |&x| x as u32),
                ];
            }
        } else {
            self.source = Source::File;
            let (fmt, path) = if let Some(p) = head.strip_prefix("ibnetdiscover:") {
                (FileFormat::Ibnetdiscover, p)
            } else if let Some(p) = head.strip_prefix("slurm:") {
                (FileFormat::Slurm, p)
            } else {
                (FileFormat::Detect, head.as_str())
            };
            self.format = fmt;
            self.path = path.split(":job=").next().unwrap_or(path).to_string();
        }
    }

    /// The spec built from the fields.
    pub fn build_spec(&self) -> String {
        let mut s = match self.source {
            Source::Moh => format!(
                "fabric:{},{},{},{},{}",
                self.switches, self.hosts, self.ports, self.ratio, self.seed
            ),
            Source::MohFig2 => "fabric:moh-fig2".to_string(),
            Source::FatTree => format!("fattree:{}:{}", self.ft_k, self.ft_l),
            Source::Dragonfly => {
                let [a, p, h, g] = self.df;
                if g == 0 {
                    format!("dragonfly:{a},{p},{h}")
                } else {
                    format!("dragonfly:{a},{p},{h},{g}")
                }
            }
            Source::File => match self.format {
                FileFormat::Detect => self.path.trim().to_string(),
                FileFormat::Ibnetdiscover => format!("ibnetdiscover:{}", self.path.trim()),
                FileFormat::Slurm => format!("slurm:{}", self.path.trim()),
            },
        };
        if self.cores != 1 {
            s.push_str(&format!(":cores={}", self.cores));
        }
        if !self.job.trim().is_empty() {
            s.push_str(&format!(":job={}", self.job.trim()));
        }
        if !self.root.trim().is_empty() {
            s.push_str(&format!(":root={}", self.root.trim()));
        }
        s
    }
}

impl View for FabricPanel {
    type Input<'a> = &'a mut Model;
    type Output = Option<String>;

    fn title(&self) -> &'static str {
        "Fabric"
    }

    /// Draw the fabric controls; the spec of the network to apply, when the
    /// user asked for one (the network panel applies it: the child returns
    /// an action, it does not take its parent).
    fn ui(&mut self, ui: &mut egui::Ui, model: Self::Input<'_>) -> Self::Output {
        ui.horizontal_wrapped(|ui| {
            ui.label("source");
            for s in Source::ALL {
                ui.selectable_value(&mut self.source, s, s.title());
            }
        });
        let mut apply = self.source_ui(ui);
        self.options_ui(ui);
        if let Some(s) = self.apply_ui(ui, model) {
            apply = Some(s);
        }
        self.summary_ui(ui, model);
        apply
    }
}

impl FabricPanel {
    /// The chosen source's own fields; the spec to apply when a file was
    /// just chosen.
    fn source_ui(&mut self, ui: &mut egui::Ui) -> Option<String> {
        let mut apply = None;
        let drag = |ui: &mut egui::Ui, label: &str, v: &mut u32, lo: u32, hi: u32, tip: &str| {
            let l = ui.label(label).on_hover_text(tip);
            ui.add(egui::DragValue::new(v).range(lo..=hi))
                .labelled_by(l.id)
                .on_hover_text(tip);
        };
        match self.source {
            Source::Moh => {
                ui.horizontal(|ui| {
                    drag(ui, "S", &mut self.switches, 1, 16384, "switches");
                    drag(ui, "H", &mut self.hosts, 1, 1 << 20, "hosts");
                    drag(ui, "k", &mut self.ports, 2, 4096, "ports per switch");
                });
                ui.horizontal(|ui| {
                    let lr = ui.label("r").on_hover_text(
                        "connectivity ratio: the share of the free ports used by \
                             inter-switch links (Moh et al. §5.1)",
                    );
                    ui.add(
                        egui::DragValue::new(&mut self.ratio)
                            .range(0.01..=1.0)
                            .speed(0.01)
                            .max_decimals(3),
                    )
                    .labelled_by(lr.id);
                    let ls = ui.label("seed");
                    ui.add(egui::DragValue::new(&mut self.seed))
                        .labelled_by(ls.id);
                });
            }
            Source::MohFig2 => {
                ui.weak("nine 8-port switches, 26 processors (16 in the job)");
            }
            Source::FatTree => {
                ui.horizontal(|ui| {
                    drag(ui, "K", &mut self.ft_k, 2, 256, "ports per switch (even)");
                    drag(ui, "L", &mut self.ft_l, 1, 6, "levels");
                });
            }
            Source::Dragonfly => {
                ui.horizontal(|ui| {
                    let [a, p, h, g] = &mut self.df;
                    drag(ui, "A", a, 1, 256, "routers per group");
                    drag(ui, "P", p, 1, 256, "hosts per router");
                    drag(ui, "H", h, 1, 256, "global links per router");
                    drag(ui, "G", g, 0, 65536, "groups (0 = A·H + 1)");
                });
            }
            Source::File => {
                ui.horizontal(|ui| {
                    if ui
                        .button("Open…")
                        .on_hover_text(
                            "an ibnetdiscover dump or `ibnetdiscover -p` listing, iblinkinfo \
                                 output, or a Slurm topology.conf",
                        )
                        .clicked()
                    {
                        self.chooser.open(super::file_dialog::Request::open(
                            "Open an ibnetdiscover output or a topology.conf",
                        ));
                    }
                    if let Some(p) = self.chooser.poll(ui.ctx()) {
                        self.path = p.display().to_string();
                        let s = self.build_spec();
                        apply = Some(s);
                    }
                    ui.add(
                        egui::TextEdit::singleline(&mut self.path)
                            .desired_width(150.0)
                            .hint_text("path"),
                    );
                });
                ui.horizontal(|ui| {
                    ui.label("format");
                    ui.selectable_value(&mut self.format, FileFormat::Detect, "detect")
                        .on_hover_text("from the file's content");
                    ui.selectable_value(
                        &mut self.format,
                        FileFormat::Ibnetdiscover,
                        "ibnetdiscover",
                    )
                    .on_hover_text("the dump, `-p` or iblinkinfo (which one: from the content)");
                    ui.selectable_value(&mut self.format, FileFormat::Slurm, "topology.conf");
                });
            }
        }
        apply
    }

    /// The options of every source: cores per host, the job's hosts, the
    /// up*/down* root.
    fn options_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            let lc = ui.label("cores");
            ui.add(egui::DragValue::new(&mut self.cores).range(1..=1024))
                .labelled_by(lc.id)
                .on_hover_text("process slots per host");
            ui.label("job");
            ui.add(
                egui::TextEdit::singleline(&mut self.job)
                    .desired_width(70.0)
                    .hint_text("all"),
            )
            .on_hover_text("the job's hosts: a count N, `all`, or a hostlist such as tux[0-3,12]");
            ui.label("root");
            ui.add(
                egui::TextEdit::singleline(&mut self.root)
                    .desired_width(60.0)
                    .hint_text("auto"),
            )
            .on_hover_text(
                "up*/down* root switch by name or GUID (default: the root of the \
                     minimum-height BFS tree)",
            );
        });
    }

    /// Apply (refused with the reason for a missing file) and the presets;
    /// the spec to apply, if one was asked for.
    fn apply_ui(&mut self, ui: &mut egui::Ui, model: &mut Model) -> Option<String> {
        let mut apply = None;
        ui.horizontal(|ui| {
            if ui
                .button("Apply fabric")
                .on_hover_text("Use this fabric (re-maps with `default` as a baseline)")
                .clicked()
            {
                let s = self.build_spec();
                match self.missing_file() {
                    Some(e) => model.error = Some(e),
                    None => apply = Some(s),
                }
            }
            ui.weak(self.build_spec());
        });
        ui.horizontal_wrapped(|ui| {
            ui.label("Presets:");
            for p in FABRIC_PRESETS {
                if ui.selectable_label(model.topo.spec() == *p, *p).clicked() {
                    apply = Some(p.to_string());
                }
            }
        });
        apply
    }

    /// One line on the fabric in use (cached per network), and whether the
    /// graph fits it.
    fn summary_ui(&mut self, ui: &mut egui::Ui, model: &Model) {
        if let Some(f) = model.topo.as_fabric() {
            if self.summary.0 != model.topo.generation() || self.summary.1.is_empty() {
                let idle: u32 = (0..f.num_switches()).map(|s| f.idle_hosts(s)).sum();
                self.summary = (
                    model.topo.generation(),
                    format!(
                        "{} switches, {} inter-switch links, {} job hosts{} × {} cores = {} slots, \
                             up*/down* diameter {}",
                        f.num_switches(),
                        f.switch_links().len(),
                        f.num_hosts(),
                        if idle > 0 {
                            format!(" (+{idle} outside the job)")
                        } else {
                            String::new()
                        },
                        f.cores(),
                        model.topo.num_slots(),
                        f.diameter()
                    ),
                );
            }
            ui.label(&self.summary.1);
        } else {
            ui.weak("the network is a mesh/torus: apply a fabric to use it");
        }
        if !model.fits() {
            ui.colored_label(
                egui::Color32::from_rgb(255, 110, 90),
                format!(
                    "{} processes > {} slots: choose a larger fabric or more cores",
                    model.graph.n(),
                    model.topo.num_slots()
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hopmap_core::topology::Topology;

    #[test]
    fn every_source_builds_a_spec_that_parses() {
        let mut p = FabricPanel::default();
        assert_eq!(p.build_spec(), "fabric:75,256,8,0.75,1");
        for s in [
            Source::Moh,
            Source::MohFig2,
            Source::FatTree,
            Source::Dragonfly,
        ] {
            p.source = s;
            let spec = p.build_spec();
            assert!(
                Topology::parse(&spec).unwrap().as_fabric().is_some(),
                "{spec}"
            );
        }
        // Loading a fabric shows its parameters.
        p.load(&Topology::parse("dragonfly:4,2,2:cores=3").unwrap());
        assert_eq!(
            (p.source, p.df, p.cores),
            (Source::Dragonfly, [4, 2, 2, 0], 3)
        );
        p.load(&Topology::parse("fabric:30,60,6,0.5,7").unwrap());
        assert_eq!(p.build_spec(), "fabric:30,60,6,0.5,7");
        p.source = Source::FatTree;
        p.ft_k = 4;
        p.cores = 1;
        p.cores = 2;
        assert_eq!(p.build_spec(), "fattree:4:3:cores=2");
        p.source = Source::File;
        p.path = "/nonexistent/fabric.txt".into();
        p.format = FileFormat::Slurm;
        p.cores = 1;
        assert_eq!(p.build_spec(), "slurm:/nonexistent/fabric.txt");
        assert!(Topology::parse(&p.build_spec()).is_err());
    }
}
