//! The glossary panel: every term of [`hopmap_core::glossary::GLOSSARY`] with its
//! one-line definition and the seed paper (and section) that defines it,
//! filterable by a search box. Cost per frame: O(terms).

use super::view::View;
use hopmap_core::glossary::GLOSSARY;

#[derive(Default)]
pub struct GlossaryPanel {
    pub filter: String,
}

impl GlossaryPanel {
    /// The terms the filter keeps (all when empty; case-insensitive, in the
    /// term or its definition).
    pub fn shown(&self) -> Vec<&'static hopmap_core::glossary::Term> {
        let f = self.filter.trim().to_lowercase();
        GLOSSARY
            .iter()
            .filter(|t| {
                f.is_empty()
                    || t.term.to_lowercase().contains(&f)
                    || t.definition.to_lowercase().contains(&f)
            })
            .collect()
    }
}

impl View for GlossaryPanel {
    type Input<'a> = ();
    type Output = ();

    fn title(&self) -> &'static str {
        "Glossary"
    }

    fn ui(&mut self, ui: &mut egui::Ui, _: ()) -> Self::Output {
        ui.horizontal(|ui| {
            ui.label("find");
            ui.add(egui::TextEdit::singleline(&mut self.filter).desired_width(160.0));
        });
        egui::ScrollArea::vertical()
            .id_salt("glossary")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                // One block per term: the definition wraps at the panel's
                // full width (a grid column would squeeze it).
                for t in self.shown() {
                    ui.horizontal_wrapped(|ui| {
                        ui.strong(t.term);
                        ui.weak(t.seed);
                    });
                    ui.add(egui::Label::new(t.definition).wrap());
                    ui.add_space(6.0);
                }
            });
    }
}
