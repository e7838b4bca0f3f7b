//! What the app remembers between runs, through eframe's storage (feature
//! `persistence`): the last network, routing, mapper and seed, the panel
//! choices, and the recent files. Graphs and results are never stored.

use serde::{Deserialize, Serialize};

/// The storage key.
pub const KEY: &str = "hopmap.settings";
/// How many recent files are kept.
pub const MAX_RECENT: usize = 10;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub topology: String,
    pub routing: String,
    pub mapper: String,
    /// The mappers' seed: 0 by default, as `hopmap map --seed`, so that a
    /// seeded mapper gives the same mapping in the GUI and the CLI.
    pub seed: u64,
    pub mapper_params: String,
    pub recent: Vec<String>,
    pub tab: String,
    pub color_mode: String,
    /// The network view's mode: auto, 3d, slices or projection.
    pub network_mode: String,
    pub heat_by_flows: bool,
    pub matrix_by_mapping: bool,
    pub speed: f32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            topology: "torus:8x8x8".into(),
            routing: "dor".into(),
            mapper: "default".into(),
            seed: 0,
            mapper_params: String::new(),
            recent: Vec::new(),
            tab: "split".into(),
            color_mode: "node".into(),
            network_mode: "auto".into(),
            heat_by_flows: false,
            matrix_by_mapping: true,
            speed: 30.0,
        }
    }
}

impl Settings {
    /// Put `path` first in the recent list (no duplicates, bounded).
    pub fn push_recent(&mut self, path: &str) {
        self.recent.retain(|p| p != path);
        self.recent.insert(0, path.to_string());
        self.recent.truncate(MAX_RECENT);
    }

    /// The settings from our own file (see [`Settings::save_to`]), else from
    /// eframe's storage (older runs), else the defaults.
    pub fn load(storage: Option<&dyn eframe::Storage>) -> Self {
        storage
            .and_then(|_| settings_file())
            .and_then(|p| std::fs::read(p).ok())
            .and_then(|b| serde_json::from_slice(&b).ok())
            .or_else(|| storage.and_then(|s| eframe::get_value::<Settings>(s, KEY)))
            .unwrap_or_default()
    }

    /// Save to `path` (the window's settings file, [`settings_file`])
    /// through the atomic-write helper ([`hopmap_core::io::atomic`]):
    /// eframe rewrites its own storage file in place, so a crash mid-write
    /// could lose it.
    pub fn save_to(&self, path: &std::path::Path) {
        if let Ok(json) = serde_json::to_vec_pretty(self) {
            if let Some(dir) = path.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            let _ = hopmap_core::io::atomic::write_bytes_atomic(path, &json);
        }
    }
}

/// Our settings file, beside eframe's storage for the app id `hopmap`.
pub fn settings_file() -> Option<std::path::PathBuf> {
    eframe::storage_dir("hopmap").map(|d| d.join("settings.json"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_is_deduplicated_and_bounded() {
        let mut s = Settings::default();
        for i in 0..15 {
            s.push_recent(&format!("f{i}"));
        }
        s.push_recent("f10");
        assert_eq!(s.recent.len(), MAX_RECENT);
        assert_eq!(s.recent[0], "f10");
        assert_eq!(s.recent.iter().filter(|p| *p == "f10").count(), 1);
        let json = serde_json::to_string(&s).unwrap();
        let back: Settings = serde_json::from_str(&json).unwrap();
        assert_eq!(back, s);
        // Unknown/missing keys fall back to defaults.
        let partial: Settings = serde_json::from_str(r#"{"seed": 7}"#).unwrap();
        assert_eq!(partial.seed, 7);
        assert_eq!(partial.topology, "torus:8x8x8");
    }
}
