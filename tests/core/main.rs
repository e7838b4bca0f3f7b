//! The integration tests that need no GUI, in one test binary (one link
//! instead of one per file): the command line run as a user runs it, and
//! the library's public API (properties, hand cases, fuzzing).

mod analytical;
mod cli_basic;
mod cli_faults;
mod cli_fuzz;
mod cli_map;
mod cli_report;
mod common;
mod docs_mappers;
mod fabric;
mod fabric_fuzz;
mod fabric_listings;
mod fabric_sharedmap;
mod grid_embed;
mod ibsim;
mod ibsim_opensm;
mod ibsim_updn;
mod io_fuzz;
mod launch_real;
mod layout_quality;
mod mappers_prop;
mod metrics_prop;
mod ompi_capture;
mod ompi_monitoring;
mod own_order;
mod real_captures;
mod recursive_ties;
mod routing_hand;
mod row_communicators;
mod tabu;
mod unseen_codes;
