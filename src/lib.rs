//! hopmap: topology-aware process mapping.
//!
//! The core library: communication graphs ([`graph`]), readers and writers
//! ([`io`]), generators ([`generate`]), network topologies ([`topology`]),
//! routing ([`routing`]), mappings ([`mapping`]) and their metrics
//! ([`metrics`]), the mappers ([`mappers`]), the force layout ([`layout`]), and
//! the one stepping trait that every iterative algorithm implements ([`step`]).
//! Nothing here depends on the GUI toolkit; the desktop app lives in `app`
//! (cargo feature `gui`, on by default) and only renders library state and
//! dispatches actions. Without default features the crate is the library
//! alone; `--features cli` adds the command line.

#[cfg(feature = "gui")]
pub mod app;
pub mod compare;
pub mod error;
pub mod experiments;
pub mod find_nearest;
pub mod generate;
pub mod glossary;
pub mod graph;
pub mod hop_bound;
pub mod io;
pub mod layout;
pub mod lessons;
pub mod mappers;
pub mod mapping;
pub mod metrics;
pub mod partition;
pub mod report;
pub mod report_png;
pub mod rng;
pub mod routing;
pub mod step;
pub mod topology;
pub mod workspace;

pub use error::{Error, Result};
pub use graph::{CommGraph, Coords, GraphBuilder};
pub use mapping::Mapping;
pub use metrics::{Evaluation, Metrics, evaluate};
pub use routing::Routing;
pub use step::{Progress, StepState, Stepper, Stop};
pub use topology::Topology;
