//! The one trait of the app's panels and views, as egui's demo app has:
//! each panel or view is a struct that keeps its own state (camera, caches,
//! choices) and draws itself for one frame with [`View::ui`], given what it
//! reads or changes besides its own state ([`View::Input`]: the model, and
//! for some the mapper panel, the settings or the compared rows). A child
//! hands an action back to its parent as its [`View::Output`] instead of
//! taking the parent.

/// A panel or view; see the module doc.
pub trait View {
    /// What the view reads or changes besides its own state.
    type Input<'a>;
    /// What it hands back to its parent (`()` for most).
    type Output;
    /// Its title (tab, panel header).
    fn title(&self) -> &'static str;
    /// Draw it and handle its input, for one frame.
    fn ui(&mut self, ui: &mut egui::Ui, input: Self::Input<'_>) -> Self::Output;
}
