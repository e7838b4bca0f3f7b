//! Subcommands of the `hopmap` binary, one file each. Each parses its
//! arguments (clap derive) and calls the library; nothing here computes.
pub mod gui;
pub mod common;
pub mod eval;
pub mod generate;
pub mod info;
pub mod compare;
pub mod map;
pub mod reproduce;
pub mod layout;
pub mod bench;
