//! The composer's state: the text being written, the context and files attached to it, the
//! choices for the next turns, and a draft thread's preset and first message.

use leptos::prelude::*;
use panelot_protocol::PresetId;
use panelot_protocol::SubmissionId;
use panelot_protocol::engine::ContextBlock;
use panelot_protocol::engine::ModelChoice;
use panelot_protocol::engine::PermissionPolicy;
use panelot_protocol::engine::TurnOverrides;

use crate::state::choices::turn_overrides;
use crate::state::files::PendingFile;
use crate::state::sent::GivenBack;
use crate::state::sent::Sent;

/// The composer's state.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Draft {
    /// The text box (kept here so a rejected message can be given back).
    pub(crate) text: RwSignal<String>,
    /// Context attached to the next message.
    pub(crate) attached: RwSignal<Vec<ContextBlock>>,
    /// Files attached to the next message, read and waiting to be sent.
    pub(crate) files: RwSignal<Vec<PendingFile>>,
    /// Why picked files were not attached (shown by the box until dismissed).
    pub(crate) file_refusals: RwSignal<Vec<String>>,
    /// The model for the next turns (`None`: the thread's).
    pub(crate) turn_model: RwSignal<Option<ModelChoice>>,
    /// The permission mode for the next turns (`None`: the thread's).
    pub(crate) turn_policy: RwSignal<Option<PermissionPolicy>>,
    /// The debugger's trusted-input tools (L2) are offered to the next turns.
    pub(crate) turn_trusted_input: RwSignal<bool>,
    /// The preset of the draft's thread-to-be (an open thread's is in its metadata).
    pub(crate) preset: RwSignal<Option<PresetId>>,
    /// A `thread.create` sent for the draft, and the first message waiting for it.
    pub(crate) pending_create: RwSignal<Option<(SubmissionId, String)>>,
    /// Messages sent and not answered yet, with what they carried (given back if refused).
    pub(crate) sent: StoredValue<Sent>,
}

impl Draft {
    /// Takes the attached context for a message (the chips go away).
    pub(crate) fn take_attached(self) -> Vec<ContextBlock> {
        self.attached.try_update(std::mem::take).unwrap_or_default()
    }

    /// Takes the files for a message (their chips go away).
    pub(crate) fn take_files(self) -> Vec<PendingFile> {
        self.files.try_update(std::mem::take).unwrap_or_default()
    }

    /// The per-turn overrides the composer's selectors choose.
    pub(crate) fn overrides(self) -> Option<TurnOverrides> {
        turn_overrides(
            self.turn_model.get_untracked(),
            self.turn_policy.get_untracked(),
            self.turn_trusted_input.get_untracked(),
        )
    }

    /// Gives back the text of a message the engine refused, unless something new was typed.
    pub(crate) fn restore(self, text: String) {
        self.text.update(|draft| {
            if draft.is_empty() {
                *draft = text;
            }
        });
    }

    /// Gives back a refused message: its text (unless something new was typed) and its chips,
    /// after any attached since (a file already there is not added twice).
    pub(crate) fn give_back(self, back: GivenBack) {
        self.restore(back.text);
        if !back.attached.is_empty() {
            self.attached.update(|attached| {
                let added = std::mem::replace(attached, back.attached);
                attached.extend(added);
            });
        }
        if !back.files.is_empty() {
            self.files.update(|files| {
                let added = std::mem::take(files);
                *files = back.files;
                for file in added {
                    if files.iter().all(|f| f.id != file.id) {
                        files.push(file);
                    }
                }
            });
        }
    }
}

/// Provides the [`Draft`] context.
pub(crate) fn provide_draft() -> Draft {
    let draft = Draft {
        text: RwSignal::new(String::new()),
        attached: RwSignal::new(Vec::new()),
        files: RwSignal::new(Vec::new()),
        file_refusals: RwSignal::new(Vec::new()),
        turn_model: RwSignal::new(None),
        turn_policy: RwSignal::new(None),
        turn_trusted_input: RwSignal::new(false),
        preset: RwSignal::new(None),
        pending_create: RwSignal::new(None),
        sent: StoredValue::new(Sent::default()),
    };
    provide_context(draft);
    draft
}

/// The [`Draft`] context.
pub(crate) fn use_draft() -> Draft {
    expect_context()
}
