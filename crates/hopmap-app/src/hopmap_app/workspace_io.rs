//! Saving and opening `.hopmap` workspaces ([`hopmap_core::workspace`]) from the
//! app: [`HopmapApp::workspace`] collects the state (graph source, network,
//! routing, mapper choice, the mapping shown and every row of the Compare
//! table (evaluated again on load), the graph view's positions,
//! view settings, the open lesson); [`HopmapApp::load_workspace`] checks a
//! whole file first — graph read, network parsed, mappings valid — and
//! only then replaces the state, so a bad file leaves everything as it was.
//! Cost: O(graph + mappings).

use crate::{ColorMode, HopmapApp, Tab, network_panel, network_view};
use hopmap_core::lessons::LESSONS;
use hopmap_core::metrics::evaluate;
use hopmap_core::routing::Routing;
use hopmap_core::topology::Topology;
use hopmap_core::workspace::{
    EmbeddedGraph, GraphSource, MapperChoice, NamedMapping, VERSION, ViewSettings, Workspace, fnv64,
};
use std::path::Path;

impl HopmapApp {
    /// The current state as a workspace.
    pub fn workspace(&self) -> Workspace {
        let m = &self.model;
        let graph = m
            .graph_path
            .as_ref()
            .and_then(|p| {
                let bytes = hopmap_core::io::read_bytes(p).ok()?;
                let abs = std::path::absolute(p).unwrap_or_else(|_| p.clone());
                Some(GraphSource::File {
                    path: abs,
                    fnv64: fnv64(&bytes),
                    one_based: false,
                })
            })
            .unwrap_or_else(|| GraphSource::Embedded(EmbeddedGraph::of(&m.graph)));
        let mut mappings: Vec<NamedMapping> = m
            .mapping
            .as_ref()
            .map(|x| vec![NamedMapping::of(&m.mapping_label, x)])
            .unwrap_or_default();
        // Every row of the Compare table after the one shown (which is
        // marked as a row too when it is one).
        for r in self.compare.current_rows(m) {
            if let Some(first) = mappings.first_mut()
                && first.compare_seconds.is_none()
                && first.name == r.mapper
                && first.node == r.mapping.node
                && first.core == r.mapping.core
            {
                first.compare_seconds = Some(r.seconds);
                continue;
            }
            mappings.push(NamedMapping {
                compare_seconds: Some(r.seconds),
                ..NamedMapping::of(&r.mapper, &r.mapping)
            });
        }
        let layout = (self.graph_view.pos.len() == m.graph.n() && m.graph.n() > 0).then(|| {
            self.graph_view
                .pos
                .iter()
                .map(|p| [p.x, p.y])
                .collect::<Vec<_>>()
        });
        Workspace {
            hopmap_workspace: VERSION,
            graph,
            graph_name: m.graph_name.clone(),
            topology: m.topo.spec(),
            routing: m.routing.name(),
            mapper: MapperChoice {
                id: self.mapper.selected.clone(),
                params: self.mapper.params.clone(),
                seed: self.mapper.seed,
            },
            mappings,
            layout,
            view: ViewSettings {
                tab: self.tab.key().into(),
                color_mode: self.color_mode.key().into(),
                network_mode: self.network_view.mode.key().into(),
                heat_by_flows: self.network_view.by_flows,
                matrix_by_mapping: self.matrix_view.by_mapping,
            },
            lesson: self.teach.lesson.open.then(|| {
                (
                    self.teach.lesson.current().id.to_string(),
                    self.teach.lesson.step,
                )
            }),
        }
    }

    /// Save the state to `path` (atomically).
    pub fn save_workspace(&mut self, path: &Path) -> Result<(), String> {
        let ws = self.workspace();
        hopmap_core::workspace::save(path, &ws).map_err(|e| e.to_string())?;
        self.model.status = format!("saved {}", path.display());
        Ok(())
    }

    /// Open a workspace. Everything is checked before anything changes;
    /// returns a note when the graph file changed since it was saved.
    pub fn load_workspace(&mut self, path: &Path) -> Result<Option<String>, String> {
        let ws = hopmap_core::workspace::load(path).map_err(|e| e.to_string())?;
        let (graph, note) = ws.load_graph(path).map_err(|e| e.to_string())?;
        let bad = |what: String| format!("{}:1: {what}", hopmap_core::error::show_path(path));
        let topo = Topology::parse(&ws.topology)
            .map_err(|e| bad(format!("expected a network spec, found {e}")))?;
        let routing = Routing::parse(&ws.routing)
            .map_err(|e| bad(format!("expected a routing, found {e}")))?;
        if graph.n() > topo.num_slots() {
            return Err(bad(format!(
                "expected a network with room for {} processes, found {} slots",
                graph.n(),
                topo.num_slots()
            )));
        }
        let mut mappings = Vec::new();
        for nm in &ws.mappings {
            let m = nm.mapping();
            m.validate(graph.n(), &topo).map_err(|e| {
                bad(format!(
                    "expected a valid mapping \"{}\", found {e}",
                    nm.name
                ))
            })?;
            mappings.push((nm.name.clone(), m, nm.compare_seconds));
        }
        let rows: Vec<_> = mappings
            .iter()
            .filter_map(|(name, m, secs)| secs.map(|s| (name.clone(), m.clone(), s)))
            .collect();
        if let Some(l) = &ws.layout
            && l.len() != graph.n()
        {
            return Err(bad(format!(
                "expected {} layout positions, found {}",
                graph.n(),
                l.len()
            )));
        }
        // Valid: replace the state.
        self.model.cancel_run();
        self.model.error = None;
        self.model.set_topology(topo);
        self.network = network_panel::NetworkPanel::new(&self.model.topo);
        self.network_view.reset_camera();
        self.model.set_graph(graph, &ws.graph_name);
        if let GraphSource::File { path: p, .. } = &ws.graph {
            self.model.graph_path = Some(p.clone());
        }
        self.data.sample = ws.graph_name.clone();
        self.model.set_routing(routing);
        self.compare.restore_rows(rows, &self.model);
        if let Some((name, m, _)) = mappings.into_iter().next() {
            let e = evaluate(&self.model.graph, &self.model.topo, &m, &self.model.routing);
            self.model.prev = None;
            self.model.mapping = None;
            self.model.apply_mapping(&name, m, e);
        }
        if hopmap_core::mappers::find(&ws.mapper.id).is_some() {
            self.mapper.select(&ws.mapper.id);
            for (k, v) in hopmap_core::mappers::parse_params(&ws.mapper.params).unwrap_or_default()
            {
                self.mapper.set_value(&k, &v);
            }
        }
        self.mapper.seed = ws.mapper.seed;
        let v = &ws.view;
        if !v.tab.is_empty() {
            self.tab = Tab::from_key(&v.tab);
        }
        if !v.color_mode.is_empty() {
            self.color_mode = ColorMode::from_key(&v.color_mode);
        }
        if !v.network_mode.is_empty() {
            self.network_view.mode = network_view::ViewMode::from_key(&v.network_mode);
        }
        self.network_view.by_flows = v.heat_by_flows;
        self.matrix_view.by_mapping = v.matrix_by_mapping;
        self.teach.pending_layout = ws.layout.map(|l| (self.model.graph.generation(), l));
        match ws
            .lesson
            .as_ref()
            .and_then(|(id, k)| LESSONS.iter().position(|l| l.id == id).map(|i| (i, *k)))
        {
            Some((i, k)) => {
                // The lesson's text and position, without re-applying it.
                self.teach.lesson.lesson = i;
                self.teach.lesson.step = k.min(LESSONS[i].steps.len().saturating_sub(1));
                self.teach.lesson.open = true;
                self.teach.lesson.shown_graph = None;
            }
            None => self.teach.lesson.open = false,
        }
        self.model.status = match &note {
            Some(n) => n.clone(),
            None => format!("opened {}", path.display()),
        };
        Ok(note)
    }

    /// Put saved layout positions into the graph view once it has taken
    /// the workspace's graph (it resets its positions for a new graph).
    pub(crate) fn apply_pending_layout(&mut self) {
        let Some((gen_, _)) = &self.teach.pending_layout else {
            return;
        };
        if *gen_ != self.model.graph.generation() {
            self.teach.pending_layout = None;
            return;
        }
        if self.graph_view.graph_key() != self.model.graph.generation()
            || self.graph_view.pos.len() != self.model.graph.n()
        {
            return;
        }
        if let Some((_, pos)) = self.teach.pending_layout.take() {
            self.graph_view.layout = None;
            self.graph_view.playing = false;
            self.graph_view.pos = pos.iter().map(|p| egui::vec2(p[0], p[1])).collect();
            self.graph_view.fit();
        }
    }
}
