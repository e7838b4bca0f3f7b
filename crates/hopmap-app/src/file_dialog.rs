//! Open, Save and folder dialogs that always work and never block the UI
//! thread. The native dialog (rfd) needs an XDG desktop portal with a file
//! chooser on the session D-Bus, or `zenity` in PATH; without either (common
//! on HPC workstations and over X forwarding) rfd silently returns nothing.
//! [`backend`] detects that up front and the app then draws its own
//! chooser ([`Chooser`]): a folder listing with a typed path.
//!
//! Detection ([`detect`]): a portal is usable when a session bus is there
//! (`DBUS_SESSION_BUS_ADDRESS`, or `$XDG_RUNTIME_DIR/bus`), the portal service
//! is installed (`org.freedesktop.portal.Desktop.service` in a D-Bus services
//! folder) and one portal backend declares the FileChooser interface (a
//! `*.portal` file under `xdg-desktop-portal/portals`); else `zenity` in PATH
//! (rfd's own fallback); else the in-app chooser. `HOPMAP_FILE_DIALOG=inapp`
//! or `=native` overrides the detection.
//!
//! A native dialog runs on its own thread; the frame polls its result. The
//! in-app chooser is an egui window. Either way a request is one
//! [`Chooser::open`] and, frames later, one path from [`Chooser::poll`].
//!
//! Cost: the detection reads a few folders once per process; the in-app
//! chooser lists the shown folder when it changes, O(entries).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::mpsc::{Receiver, TryRecvError, channel};

/// Which dialog implementation the process uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// rfd through the XDG desktop portal.
    Portal,
    /// rfd's zenity fallback.
    Zenity,
    /// The app's own chooser.
    InApp,
}

/// What the user is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Open,
    Save,
    Folder,
}

/// A dialog request.
#[derive(Clone, Debug)]
pub struct Request {
    pub kind: Kind,
    pub title: String,
    /// (name, extensions) filters; empty = every file.
    pub filters: Vec<(String, Vec<String>)>,
    /// Suggested file name (Save).
    pub file_name: String,
}

impl Request {
    pub fn open(title: &str) -> Self {
        Request {
            kind: Kind::Open,
            title: title.into(),
            filters: Vec::new(),
            file_name: String::new(),
        }
    }
    pub fn save(title: &str, file_name: &str) -> Self {
        Request {
            kind: Kind::Save,
            title: title.into(),
            filters: Vec::new(),
            file_name: file_name.into(),
        }
    }
    pub fn folder(title: &str) -> Self {
        Request {
            kind: Kind::Folder,
            title: title.into(),
            filters: Vec::new(),
            file_name: String::new(),
        }
    }
    pub fn filter(mut self, name: &str, exts: &[&str]) -> Self {
        self.filters
            .push((name.into(), exts.iter().map(|e| e.to_string()).collect()));
        self
    }
}

fn in_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|p| {
        std::env::split_paths(&p).any(|d| {
            let f = d.join(program);
            f.is_file()
                && std::fs::metadata(&f).is_ok_and(|m| {
                    use std::os::unix::fs::PermissionsExt;
                    m.permissions().mode() & 0o111 != 0
                })
        })
    })
}

fn data_dirs() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = Vec::new();
    if let Some(h) = std::env::var_os("XDG_DATA_HOME") {
        v.push(PathBuf::from(h));
    } else if let Some(h) = std::env::var_os("HOME") {
        v.push(PathBuf::from(h).join(".local/share"));
    }
    let dirs =
        std::env::var("XDG_DATA_DIRS").unwrap_or_else(|_| "/usr/local/share:/usr/share".into());
    v.extend(dirs.split(':').filter(|d| !d.is_empty()).map(PathBuf::from));
    v
}

/// Whether the XDG desktop portal can show a file chooser here (see the
/// module doc; files only, no D-Bus call).
fn portal_available() -> bool {
    let bus = std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some()
        || std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|d| Path::new(&d).join("bus").exists());
    if !bus {
        return false;
    }
    let dirs = data_dirs();
    let service = dirs.iter().any(|d| {
        d.join("dbus-1/services/org.freedesktop.portal.Desktop.service")
            .is_file()
    });
    let chooser = dirs.iter().any(|d| {
        std::fs::read_dir(d.join("xdg-desktop-portal/portals")).is_ok_and(|rd| {
            rd.flatten().any(|e| {
                std::fs::read_to_string(e.path())
                    .is_ok_and(|s| s.contains("org.freedesktop.impl.portal.FileChooser"))
            })
        })
    });
    service && chooser
}

/// Detect the backend (see the module doc).
pub fn detect() -> Backend {
    match std::env::var("HOPMAP_FILE_DIALOG").as_deref() {
        Ok("inapp") => return Backend::InApp,
        Ok("native") => return Backend::Portal,
        _ => {}
    }
    if portal_available() {
        Backend::Portal
    } else if in_path("zenity") {
        Backend::Zenity
    } else {
        Backend::InApp
    }
}

/// The backend of this process, detected once.
pub fn backend() -> Backend {
    static B: OnceLock<Backend> = OnceLock::new();
    *B.get_or_init(detect)
}

/// One directory entry of the in-app chooser.
#[derive(Clone, Debug)]
struct Entry {
    name: String,
    dir: bool,
}

/// The in-app chooser's state.
#[derive(Clone, Debug)]
pub struct InApp {
    pub req: Request,
    /// The folder listed.
    pub dir: PathBuf,
    /// The typed path (a file name, or a full path).
    pub typed: String,
    listed: Option<PathBuf>,
    entries: Vec<Entry>,
    error: Option<String>,
    show_all: bool,
    /// No portal and no zenity (the reason this chooser is shown, unless
    /// asked for).
    no_native: bool,
}

impl InApp {
    fn new(req: Request) -> Self {
        let dir = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        let typed = req.file_name.clone();
        InApp {
            req,
            dir,
            typed,
            listed: None,
            entries: Vec::new(),
            error: None,
            show_all: false,
            no_native: !portal_available() && !in_path("zenity"),
        }
    }

    fn matches(&self, name: &str) -> bool {
        if self.show_all || self.req.filters.is_empty() {
            return true;
        }
        let lower = name.to_lowercase();
        self.req
            .filters
            .iter()
            .flat_map(|(_, e)| e.iter())
            .any(|e| lower.ends_with(&format!(".{}", e.to_lowercase())))
    }

    fn list(&mut self) {
        if self.listed.as_deref() == Some(&self.dir) {
            return;
        }
        self.listed = Some(self.dir.clone());
        self.entries.clear();
        self.error = None;
        match std::fs::read_dir(&self.dir) {
            Ok(rd) => {
                for e in rd.flatten() {
                    let name = e.file_name().to_string_lossy().into_owned();
                    if name.starts_with('.') {
                        continue;
                    }
                    let dir = e.path().is_dir();
                    self.entries.push(Entry { name, dir });
                }
                self.entries
                    .sort_by(|a, b| b.dir.cmp(&a.dir).then_with(|| a.name.cmp(&b.name)));
            }
            Err(e) => self.error = Some(format!("cannot list {}: {e}", self.dir.display())),
        }
    }

    /// The path the typed text names (relative to the listed folder).
    pub fn resolved(&self) -> PathBuf {
        let t = self.typed.trim();
        let p = if let Some(rest) = t.strip_prefix("~/") {
            std::env::var_os("HOME")
                .map_or_else(|| PathBuf::from(t), |h| PathBuf::from(h).join(rest))
        } else {
            PathBuf::from(t)
        };
        if p.is_absolute() { p } else { self.dir.join(p) }
    }

    /// Check the typed path against the request: Some(path) to accept,
    /// or an error to show.
    pub fn accept(&self) -> Result<PathBuf, String> {
        let p = if self.typed.trim().is_empty() {
            self.dir.clone()
        } else {
            self.resolved()
        };
        match self.req.kind {
            Kind::Folder if p.is_dir() => Ok(p),
            Kind::Folder => Err(format!("{} is not a folder", p.display())),
            Kind::Open if p.is_file() => Ok(p),
            Kind::Open if p.exists() => Err(format!("{} is not a file", p.display())),
            Kind::Open => Err(format!("file missing: {}", p.display())),
            Kind::Save if p.is_dir() => {
                Err(format!("{} is a folder: type a file name", p.display()))
            }
            Kind::Save => match p.parent() {
                Some(d) if d.as_os_str().is_empty() || d.is_dir() => Ok(p),
                Some(d) => Err(format!("folder missing: {}", d.display())),
                None => Err("type a file name".into()),
            },
        }
    }

    /// Draw the chooser; Some(Some(path)) when accepted, Some(None) when
    /// cancelled.
    fn ui(&mut self, ctx: &egui::Context) -> Option<Option<PathBuf>> {
        self.list();
        let mut out = None;
        let mut open = true;
        egui::Window::new(format!("{} (hopmap's file chooser)", self.req.title))
            .id(egui::Id::unique("hopmap_inapp_chooser"))
            .open(&mut open)
            .collapsible(false)
            .default_size([520.0, 420.0])
            // A dialog: in the middle of the window, not over the menu bar.
            .pivot(egui::Align2::CENTER_CENTER)
            .default_pos(ctx.content_rect().center())
            .show(ctx, |ui| {
                // The reason only when it is the reason (not when asked for).
                let why = if self.no_native {
                    "No desktop file dialog here (no XDG portal, no zenity): "
                } else {
                    ""
                };
                ui.weak(format!("{why}choose below or type a path."));
                ui.horizontal(|ui| {
                    if ui.button("Up one folder").clicked()
                        && let Some(p) = self.dir.parent()
                    {
                        self.dir = p.to_path_buf();
                    }
                    if ui.button("home").clicked()
                        && let Some(h) = std::env::var_os("HOME")
                    {
                        self.dir = PathBuf::from(h);
                    }
                    ui.label(self.dir.display().to_string());
                });
                let mut go: Option<PathBuf> = None;
                let mut pick: Option<String> = None;
                let mut accept_now = false;
                egui::ScrollArea::vertical()
                    .max_height(260.0)
                    .auto_shrink([false, false])
                    .show(ui, |ui| {
                        if let Some(e) = &self.error {
                            ui.colored_label(egui::Color32::from_rgb(255, 110, 90), e);
                        }
                        for e in &self.entries {
                            if e.dir {
                                if ui.selectable_label(false, format!("{}/", e.name)).clicked() {
                                    go = Some(self.dir.join(&e.name));
                                }
                            } else if self.req.kind != Kind::Folder && self.matches(&e.name) {
                                let r = ui.selectable_label(self.typed == e.name, &e.name);
                                if r.clicked() {
                                    pick = Some(e.name.clone());
                                }
                                if r.double_clicked() {
                                    accept_now = true;
                                }
                            }
                        }
                    });
                if let Some(d) = go {
                    self.dir = d;
                }
                if let Some(n) = pick {
                    self.typed = n;
                }
                ui.horizontal(|ui| {
                    ui.label(match self.req.kind {
                        Kind::Folder => "folder",
                        _ => "file",
                    });
                    let r = ui.add(
                        egui::TextEdit::singleline(&mut self.typed)
                            .desired_width(360.0)
                            .hint_text("a name in this folder, or a full path"),
                    );
                    if r.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                        accept_now = true;
                    }
                });
                if !self.req.filters.is_empty() && self.req.kind != Kind::Folder {
                    let names: Vec<&str> = self.req.filters.iter().map(|f| f.0.as_str()).collect();
                    ui.checkbox(
                        &mut self.show_all,
                        format!("show every file (not only {})", names.join(", ")),
                    );
                }
                ui.horizontal(|ui| {
                    let label = match self.req.kind {
                        Kind::Open => "Open",
                        Kind::Save => "Save",
                        Kind::Folder => "Choose folder",
                    };
                    if ui.button(label).clicked() {
                        accept_now = true;
                    }
                    if ui.button("Cancel").clicked() {
                        out = Some(None);
                    }
                });
                if accept_now {
                    // A typed folder is entered rather than chosen (Open, Save).
                    let p = self.resolved();
                    if self.req.kind != Kind::Folder && !self.typed.trim().is_empty() && p.is_dir()
                    {
                        self.dir = p;
                        self.typed.clear();
                    } else {
                        match self.accept() {
                            Ok(p) => out = Some(Some(p)),
                            Err(e) => self.error = Some(e),
                        }
                    }
                }
            });
        if !open {
            out = Some(None);
        }
        out
    }
}

/// A pending dialog; see the module doc.
#[derive(Default)]
pub struct Chooser {
    native: Option<Receiver<Option<PathBuf>>>,
    pub inapp: Option<InApp>,
}

impl Chooser {
    /// Whether a dialog is open.
    pub fn busy(&self) -> bool {
        self.native.is_some() || self.inapp.is_some()
    }

    /// Open a dialog (replacing one still open).
    pub fn open(&mut self, req: Request) {
        self.open_with(req, backend());
    }

    /// Open a dialog with the given backend.
    pub fn open_with(&mut self, req: Request, b: Backend) {
        self.native = None;
        self.inapp = None;
        if b == Backend::InApp {
            self.inapp = Some(InApp::new(req));
            return;
        }
        let (tx, rx) = channel();
        let spawned = std::thread::Builder::new()
            .name("file-dialog".into())
            .spawn(move || {
                let mut d = rfd::FileDialog::new().set_title(&req.title);
                for (name, exts) in &req.filters {
                    d = d.add_filter(name, exts);
                }
                if !req.file_name.is_empty() {
                    d = d.set_file_name(&req.file_name);
                }
                let r = match req.kind {
                    Kind::Open => d.pick_file(),
                    Kind::Save => d.save_file(),
                    Kind::Folder => d.pick_folder(),
                };
                let _ = tx.send(r);
            });
        if spawned.is_ok() {
            self.native = Some(rx);
        }
    }

    /// Draw the in-app chooser if open and return the chosen path once.
    pub fn poll(&mut self, ctx: &egui::Context) -> Option<PathBuf> {
        if let Some(rx) = &self.native {
            match rx.try_recv() {
                Ok(r) => {
                    self.native = None;
                    return r;
                }
                Err(TryRecvError::Empty) => {
                    // The dialog's thread wakes the UI when it ends.
                    ctx.request_repaint_after(std::time::Duration::from_millis(200));
                }
                Err(TryRecvError::Disconnected) => self.native = None,
            }
        }
        if let Some(c) = self.inapp.as_mut()
            && let Some(r) = c.ui(ctx)
        {
            self.inapp = None;
            return r;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_paths_are_checked_for_their_kind() {
        let dir = std::env::temp_dir().join(format!("hopmap-fd-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("g.mtx"), "x").unwrap();
        let mut c = InApp::new(Request::open("Open").filter("graphs", &["mtx"]));
        c.dir = dir.clone();
        c.typed = "g.mtx".into();
        assert_eq!(c.accept(), Ok(dir.join("g.mtx")));
        c.typed = "none.mtx".into();
        assert!(c.accept().unwrap_err().starts_with("file missing"));
        assert!(c.matches("a.MTX") && !c.matches("a.txt"));
        let mut s = InApp::new(Request::save("Save", "out.png"));
        s.dir = dir.clone();
        assert_eq!(s.accept(), Ok(dir.join("out.png")));
        s.typed = dir.join("missing/out.png").display().to_string();
        assert!(s.accept().unwrap_err().starts_with("folder missing"));
        let mut f = InApp::new(Request::folder("Folder"));
        f.dir = dir.clone();
        f.typed.clear();
        assert_eq!(f.accept(), Ok(dir.clone()));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
