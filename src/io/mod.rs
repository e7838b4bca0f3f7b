//! Readers and writers (under construction).

pub mod launcher;
