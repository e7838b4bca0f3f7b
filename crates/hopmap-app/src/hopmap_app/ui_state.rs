//! What the panels show, as data: `hopmap gui … --state JSON` writes it
//! beside the screenshot, and the kittests read it. It is collected from
//! what the last frame drew (the Metrics panel records every figure with the
//! text it displayed, [`crate::metrics_panel::MetricsPanel::shown`]), not
//! recomputed, so a test of it is a test of the screen.
//!
//! Cost: O(figures + panes) per call; nothing per frame.

use crate::hopmap_app::{HopmapApp, Tab};
use crate::metrics_panel::Shown;
use serde::Serialize;

/// The colour legend of a network view: what the colour bar spans.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LegendState {
    /// "bytes" or "flows"; "change" for the difference view (B − A).
    pub unit: String,
    pub from: f64,
    pub to: f64,
    /// Whether the top is locked (a shared or locked scale) rather than the
    /// view's own busiest link.
    pub locked: bool,
}

/// One pane of Compare's side by side, difference or race.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PaneState {
    pub mapping: String,
    pub hop_bytes: f64,
    pub max_link_load: f64,
    pub max_link_flows: u32,
}

/// Everything `--state` writes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UiState {
    /// The central view: a tab key, or side / diff / race.
    pub view: String,
    pub graph: String,
    pub network: String,
    pub routing: String,
    /// The mapping the Metrics panel describes (its name as displayed).
    pub shown_mapping: String,
    /// Every figure of the Metrics panel: name, value, text as displayed.
    pub metrics: Vec<Shown>,
    /// The hop-bytes lower bound (any mapping) and what a hop is.
    pub lower_bound: f64,
    pub hop: String,
    pub zero_hops: String,
    /// The network view's (or the panes' shared) colour legend.
    pub legend: Option<LegendState>,
    pub panes: Vec<PaneState>,
    pub error: Option<String>,
    pub status: String,
}

fn panes_of(panes: &[crate::side_by_side::Pane]) -> Vec<PaneState> {
    panes
        .iter()
        .map(|p| {
            let m = p.metrics();
            PaneState {
                mapping: p.label.clone(),
                hop_bytes: m.hop_bytes,
                max_link_load: m.max_link_load,
                max_link_flows: m.max_link_flows,
            }
        })
        .collect()
}

impl HopmapApp {
    /// The state of what the last frame showed.
    pub fn ui_state(&self) -> UiState {
        use crate::compare_panel::CompareSub;
        let sub = (self.tab == Tab::Compare).then_some(self.compare.sub);
        let view = match sub {
            Some(CompareSub::SideBySide) => "side".to_string(),
            Some(CompareSub::Difference) => "diff".to_string(),
            Some(CompareSub::Race) => "race".to_string(),
            _ => self.tab.key().to_string(),
        };
        let unit = |by_flows: bool| if by_flows { "flows" } else { "bytes" }.to_string();
        let nv = &self.network_view;
        let single = |locked: bool| {
            let (from, to) = nv.legend_range();
            Some(LegendState {
                unit: unit(nv.by_flows),
                from,
                to,
                locked,
            })
        };
        let shared = |s: &crate::network_view::ViewSync| {
            s.scale.map(|(from, to)| LegendState {
                unit: unit(s.by_flows),
                from,
                to,
                locked: true,
            })
        };
        let (legend, panes) = match (self.tab, sub) {
            (Tab::Network | Tab::Split, _) => {
                (single(nv.scale.top(nv.by_flows).is_some()), Vec::new())
            }
            (_, Some(CompareSub::SideBySide)) => (
                shared(&self.compare.side.sync),
                panes_of(&self.compare.side.panes),
            ),
            (_, Some(CompareSub::Difference)) => {
                let m = self.compare.diff.delta.max_abs;
                (
                    Some(LegendState {
                        unit: format!("change of {}", unit(self.compare.diff.sync.by_flows)),
                        from: -m,
                        to: m,
                        locked: true,
                    }),
                    panes_of(&self.compare.diff.panes),
                )
            }
            (_, Some(CompareSub::Race)) => (
                shared(&self.compare.race.sync),
                panes_of(&self.compare.race.panes),
            ),
            _ => (None, Vec::new()),
        };
        let hops = hopmap_core::hop_bound::HopModel::of(&self.model.topo);
        UiState {
            view,
            graph: self.model.graph_name.clone(),
            network: self.model.topo.spec(),
            routing: self.model.routing.name(),
            shown_mapping: self.metrics.describes.clone(),
            metrics: self.metrics.shown.clone(),
            lower_bound: self.metrics.reference.bound,
            hop: hops.hop.to_string(),
            zero_hops: hops.zero.to_string(),
            legend,
            panes,
            error: self.model.error.clone(),
            status: self.model.status.clone(),
        }
    }

    /// Write [`HopmapApp::ui_state`] as pretty JSON (atomically).
    pub fn write_state(&self, path: &std::path::Path) -> Result<(), crate::AppError> {
        let json = serde_json::to_string_pretty(&self.ui_state())
            .map_err(|e| crate::AppError::Failed(e.to_string()))?;
        hopmap_core::io::atomic::write_bytes_atomic(path, json.as_bytes())?;
        Ok(())
    }
}
