//! The desktop app (eframe/egui). It renders library state and dispatches
//! actions; all algorithms live in the core modules.
