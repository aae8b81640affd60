//! The engine's settings as it last sent them, the connection checks under way, and the options
//! page's preset form (here so that the engine's answer to a save reaches it).

use leptos::prelude::*;
use panelot_protocol::ConnectionId;
use panelot_protocol::SubmissionId;
use panelot_protocol::engine::ConnectionCheck;
use panelot_protocol::engine::SettingsView;

use crate::state::preset_form::PresetEditor;

/// The settings and the forms waiting for the engine.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Settings {
    /// The engine's settings, once it has sent them.
    pub(crate) view: RwSignal<Option<SettingsView>>,
    /// Connection checks: `None` while one runs, then its report.
    pub(crate) checks: RwSignal<Vec<(ConnectionId, Option<ConnectionCheck>)>>,
    /// The preset form.
    pub(crate) preset_editor: RwSignal<PresetEditor>,
}

impl Settings {
    /// Records the report of a check of `connection_id` (`None`: the check runs).
    pub(crate) fn record_check(self, connection_id: ConnectionId, report: Option<ConnectionCheck>) {
        self.checks.update(|checks| {
            checks.retain(|(id, _)| id != &connection_id);
            checks.push((connection_id, report));
        });
    }

    /// Gives the preset form the engine's answer if it is to the form's save (`refusal` is the
    /// reason of a rejection); returns whether it was.
    pub(crate) fn answer_preset_editor(
        self,
        submission_id: &SubmissionId,
        refusal: Option<&str>,
    ) -> bool {
        let mut editor = self.preset_editor.get_untracked();
        let answered = editor.answer(submission_id, refusal);
        if answered {
            self.preset_editor.set(editor);
        }
        answered
    }
}

/// Provides the [`Settings`] context.
pub(crate) fn provide_settings() -> Settings {
    let settings = Settings {
        view: RwSignal::new(None),
        checks: RwSignal::new(Vec::new()),
        preset_editor: RwSignal::new(PresetEditor::default()),
    };
    provide_context(settings);
    settings
}

/// The [`Settings`] context.
pub(crate) fn use_settings() -> Settings {
    expect_context()
}
