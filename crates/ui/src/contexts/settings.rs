//! The engine's settings as it last sent them, the connection checks under way, and the options
//! page's forms (here so that the engine's answer to a save reaches them): the connection editor,
//! the MCP server editor and import, the preset form and the memory section.

use leptos::prelude::*;
use panelot_protocol::ConnectionId;
use panelot_protocol::SubmissionId;
use panelot_protocol::engine::ConnectionCheck;
use panelot_protocol::engine::SettingsView;

use crate::state::connection_form::ConnectionEditor;
use crate::state::mcp_form::McpEditor;
use crate::state::mcp_form::McpImport;
use crate::state::memory_notes::MemoryEditor;
use crate::state::preset_form::PresetEditor;

/// The settings and the forms waiting for the engine.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Settings {
    /// The engine's settings, once it has sent them.
    pub(crate) view: RwSignal<Option<SettingsView>>,
    /// Connection checks: `None` while one runs, then its report.
    pub(crate) checks: RwSignal<Vec<(ConnectionId, Option<ConnectionCheck>)>>,
    /// The connection form, while one is open (adding, or editing the connection it names).
    pub(crate) connection_editor: RwSignal<Option<ConnectionEditor>>,
    /// The MCP server form, while one is open (adding, or editing the server it names).
    pub(crate) mcp_editor: RwSignal<Option<McpEditor>>,
    /// The import of a pasted `mcpServers` snippet, and the saves it sent.
    pub(crate) mcp_import: RwSignal<McpImport>,
    /// The preset form.
    pub(crate) preset_editor: RwSignal<PresetEditor>,
    /// The memory section's note being edited or added.
    pub(crate) memory_editor: RwSignal<MemoryEditor>,
}

impl Settings {
    /// Records the report of a check of `connection_id` (`None`: the check runs).
    pub(crate) fn record_check(self, connection_id: ConnectionId, report: Option<ConnectionCheck>) {
        self.checks.update(|checks| {
            checks.retain(|(id, _)| id != &connection_id);
            checks.push((connection_id, report));
        });
    }

    /// The last report of a check of `connection_id`, if one finished.
    pub(crate) fn last_check(self, connection_id: &ConnectionId) -> Option<ConnectionCheck> {
        self.checks.with(|checks| {
            checks.iter().find(|(id, _)| id == connection_id).and_then(|(_, c)| c.clone())
        })
    }

    /// Gives the forms the engine's answer (`refusal` is the reason of a rejection); returns
    /// whether it answered one of their saves: the form then shows it, not the notice bar.
    pub(crate) fn answer_forms(self, submission_id: &SubmissionId, refusal: Option<&str>) -> bool {
        let mut connection = self.connection_editor.get_untracked();
        if let Some(editor) = &mut connection
            && editor.answer(submission_id, refusal)
        {
            self.connection_editor.set(connection);
            return true;
        }
        let mut mcp = self.mcp_editor.get_untracked();
        if let Some(editor) = &mut mcp
            && editor.answer(submission_id, refusal)
        {
            self.mcp_editor.set(mcp);
            return true;
        }
        let mut import = self.mcp_import.get_untracked();
        if import.answer(submission_id, refusal) {
            self.mcp_import.set(import);
            return true;
        }
        let mut preset = self.preset_editor.get_untracked();
        if preset.answer(submission_id, refusal) {
            self.preset_editor.set(preset);
            return true;
        }
        let mut memory = self.memory_editor.get_untracked();
        let answered = memory.answer(submission_id, refusal);
        if answered {
            self.memory_editor.set(memory);
        }
        answered
    }
}

/// Provides the [`Settings`] context.
pub(crate) fn provide_settings() -> Settings {
    let settings = Settings {
        view: RwSignal::new(None),
        checks: RwSignal::new(Vec::new()),
        connection_editor: RwSignal::new(None),
        mcp_editor: RwSignal::new(None),
        mcp_import: RwSignal::new(McpImport::default()),
        preset_editor: RwSignal::new(PresetEditor::default()),
        memory_editor: RwSignal::new(MemoryEditor::default()),
    };
    provide_context(settings);
    settings
}

/// The [`Settings`] context.
pub(crate) fn use_settings() -> Settings {
    expect_context()
}
