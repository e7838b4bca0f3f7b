//! Subcommands of the `hopmap` binary, one file each. Each parses its
//! arguments (clap derive) and calls the library; nothing here computes.
pub mod bench;
pub mod capture;
pub mod common;
pub mod compare;
pub mod convert;
pub mod eval;
pub mod generate;
#[cfg(feature = "gui")]
pub mod gui;
pub mod info;
pub mod layout;
pub mod map;
pub mod mappers;
pub mod out;
pub mod reproduce;
pub mod topology;
