//! The GUI tests, one test binary (linking eframe once instead of once per
//! file keeps the suite's build short): the real app driven headlessly
//! through egui_kittest, and one real window under Xvfb.

mod analytical;
mod common;
mod compare;
mod fabric;
mod kittest;
mod steady;
mod teach;
mod truth;
mod xvfb;
