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
mod fabric;
mod fabric_fuzz;
mod grid_embed;
mod ibsim_updn;
mod io_fuzz;
mod layout_quality;
mod mappers_prop;
mod metrics_prop;
mod routing_hand;
