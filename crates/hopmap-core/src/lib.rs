//! hopmap-core: topology-aware process mapping, without a GUI or a command line.
//!
//! Communication graphs ([`graph`]) and their readers and writers ([`io`]),
//! generators ([`generate`]), network topologies ([`topology`]), routing
//! ([`routing`]), mappings ([`mapping`]) and their metrics ([`metrics`]), the
//! mappers ([`mappers`]) and the one pipeline they run through, the force
//! layout ([`layout`]), partitioning ([`partition`]), the seed papers'
//! experiments ([`experiments`]), reports ([`report`]), and the one stepping
//! trait that every iterative algorithm implements ([`step`]). This crate
//! depends on neither egui nor clap: the desktop app (`hopmap-app`) renders
//! its state, and the `hopmap` binary is a thin command line over it.
//!
//! A graph, a network, a mapper through the pipeline, and its evaluation:
//!
//! ```
//! use hopmap_core::generate::{GenOptions, generate};
//! use hopmap_core::mappers::{self, MapperInput};
//! use hopmap_core::{Routing, Topology, evaluate};
//! use std::sync::Arc;
//!
//! // A 4×4 periodic 5-point stencil, 1,024 bytes per neighbour.
//! let graph = Arc::new(generate("stencil:4x4", &GenOptions { periodic: true, ..Default::default() })?);
//! let topo = Arc::new(Topology::parse("torus:4x4")?);
//! let input = MapperInput::new(graph.clone(), topo.clone(), 1);
//! let selected = mappers::resolve("default")?;
//! let mapping = mappers::run(&selected.info, &input)?;
//! let eval = evaluate(&graph, &topo, &mapping, &Routing::Dor);
//! // The identity puts every neighbour one hop away.
//! assert_eq!(eval.metrics.hop_bytes, eval.metrics.total_bytes);
//! # Ok::<(), hopmap_core::Error>(())
//! ```

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
pub mod stamps;
pub mod step;
pub mod topology;
pub mod units;
pub mod workspace;

pub use error::{Error, Result};
pub use graph::{CommGraph, Coords, GraphBuilder};
pub use mapping::Mapping;
pub use metrics::{Evaluation, Metrics, evaluate};
pub use routing::Routing;
pub use step::{Progress, StepState, Stepper, Stop};
pub use topology::Topology;
