//! The desktop app (eframe/egui). It renders library state and dispatches
//! actions; all algorithms live in the core modules.
//!
//! Structure: [`Model`] holds the library state (graph, topology, routing,
//! the current mapping and its [`Evaluation`](hopmap_core::metrics::Evaluation), the mapper being stepped, the
//! background jobs); the mapper run is one state ([`Run`]). One struct per
//! panel or view, each implementing [`view::View`], renders it and turns
//! clicks into calls on the model. [`HopmapApp`] arranges the panels:
//!
//! * left: Data, Network, Mapper;
//! * right: Metrics (figures, hop-bytes over steps, hop histogram);
//! * centre: the communication graph and the network side by side, or one of
//!   the graph, network, matrix and compare views alone.
//!
//! Every mapper run — Map to the end, Step, Play — goes through the one
//! pipeline ([`hopmap_core::mappers::prepare`]) and is stepped on a worker thread
//! ([`background::BackgroundRun`]); each frame takes the
//! newest snapshot and draws it, so the UI thread runs no algorithm work and
//! never freezes. Compare and loading run on worker threads too.
//!
//! Files: [`model`] (the state, no egui), [`run_state`] (the run's state),
//! [`hopmap_app`] (the window and its frame; its parts are its submodules,
//! re-exported here), [`background`] (a mapper run stepped on a worker
//! thread and its snapshots), [`guided`] (the guided-mode sentences, one
//! file per mapper family), [`run_detail`] (the
//! analytical and recursive runs' internals for their views, read through
//! [`hopmap_core::mappers::RunRef`]), [`top_bar`] (status, export,
//! screenshot, progress), [`headless`] (`hopmap gui` options, screenshots,
//! [`run`]), [`error`] (typed errors), [`colormap`] (colour maps and process
//! colours), one file per panel and view.

pub mod analytical_view;
pub mod background;
pub mod bipartition_view;
pub mod colormap;
pub mod compare_charts;
pub mod compare_panel;
pub mod data_panel;
pub mod diff_view;
pub mod draw;
pub mod error;
pub mod export;
pub mod fabric_panel;
pub mod file_dialog;
pub mod glossary_panel;
pub mod graph_view;
pub mod guided;
pub mod guided_log;
pub mod hopmap_app;
#[cfg(test)]
mod import_graph;
/// The app window's parts (each adds methods to [`HopmapApp`]), under
/// [`hopmap_app`], reachable at their former paths.
pub use hopmap_app::{file_menu, headless, lesson_panel, teach, top_bar, ui_state, workspace_io};
pub mod mapper_fit;
pub mod mapper_panel;
pub mod matrix_view;
pub mod metrics_panel;
pub mod model;
pub mod network_panel;
pub mod network_view;
pub mod race;
pub mod report_dialog;
pub mod run_detail;
pub mod run_state;
pub mod settings;
pub mod side_by_side;
pub mod view;
pub mod worker;

pub use colormap::{ColorMode, node_colors, process_colors};
pub use error::AppError;
pub use headless::{GuiOptions, run, save_png};
pub use hopmap_app::{HopmapApp, Tab};
pub use model::{LoadOutcome, Model};
pub use run_state::{Pace, Run, RunRecord};
