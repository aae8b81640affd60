//! What the composer's keys do, and the per-turn choices it sends, decided without the DOM.

use panelot_protocol::ConnectionId;
use panelot_protocol::ModelId;
use panelot_protocol::engine::ContextBlock;
use panelot_protocol::engine::ContextContent;
use panelot_protocol::engine::ContextKind;
use panelot_protocol::engine::ModelChoice;
use panelot_protocol::engine::ModelPreset;
use panelot_protocol::engine::PermissionPolicy;
use panelot_protocol::engine::Provenance;
use panelot_protocol::engine::TabRef;
use panelot_protocol::engine::ToolLevel;
use panelot_protocol::engine::Trust;
use panelot_protocol::engine::TurnOverrides;

use crate::i18n;
use crate::i18n::Lang;
use crate::i18n::Msg;

/// Modifier keys held with a key press.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Modifiers {
    /// Shift.
    pub shift: bool,
    /// Alt (Option).
    pub alt: bool,
    /// Ctrl or Cmd.
    pub ctrl_or_meta: bool,
}

/// Whether the thread has a running turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TurnActivity {
    /// Nothing runs.
    Idle,
    /// A turn runs and accepts steering.
    Steerable,
    /// A turn runs that does not accept steering (an internal turn).
    NotSteerable,
}

/// What a key press in the composer does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComposerAction {
    /// Send the text as a new turn (`turn.submit`; the engine queues it if a turn is busy).
    Submit,
    /// Add the text to the running turn (`turn.steer`).
    Steer,
    /// Queue the text as a later turn (`turn.enqueue`).
    Enqueue,
    /// Stop the running turn (`turn.interrupt`).
    Interrupt,
    /// Let the text area handle the key (a newline, typing).
    Default,
}

/// The action for `key` (a `KeyboardEvent.key` value). `composing` is true while an input method
/// is composing, when Enter confirms a candidate and must never send.
pub fn key_action(
    key: &str,
    modifiers: Modifiers,
    activity: TurnActivity,
    composing: bool,
) -> ComposerAction {
    if composing {
        return ComposerAction::Default;
    }
    match key {
        "Enter" if modifiers.shift && modifiers.alt => ComposerAction::Enqueue,
        "Enter" if modifiers.shift => ComposerAction::Default,
        "Enter" => match activity {
            TurnActivity::Steerable => ComposerAction::Steer,
            TurnActivity::Idle | TurnActivity::NotSteerable => ComposerAction::Submit,
        },
        "Escape" => match activity {
            TurnActivity::Idle => ComposerAction::Default,
            TurnActivity::Steerable | TurnActivity::NotSteerable => ComposerAction::Interrupt,
        },
        _ => ComposerAction::Default,
    }
}

/// Whether a key press is the Ctrl/Cmd+E toggle between the side panel and the full-page chat.
pub fn is_toggle_view(key: &str, modifiers: Modifiers) -> bool {
    modifiers.ctrl_or_meta && !modifiers.alt && !modifiers.shift && key.eq_ignore_ascii_case("e")
}

/// Whether an action that sends text may run with this text (blank text is never sent).
pub fn sendable(text: &str) -> bool {
    !text.trim().is_empty()
}

/// Tool levels of a turn with trusted input: the defaults plus the debugger (L2).
pub const TRUSTED_INPUT_LEVELS: [ToolLevel; 5] =
    [ToolLevel::L0, ToolLevel::L1, ToolLevel::L2, ToolLevel::Mcp, ToolLevel::Builtin];

/// The overrides of one turn from the composer's selectors; `None` when all keep the thread's
/// settings, so that a plain message carries no overrides at all.
pub fn turn_overrides(
    model: Option<ModelChoice>,
    permission_policy: Option<PermissionPolicy>,
    trusted_input: bool,
) -> Option<TurnOverrides> {
    if model.is_none() && permission_policy.is_none() && !trusted_input {
        return None;
    }
    let enabled_tool_levels = trusted_input.then(|| TRUSTED_INPUT_LEVELS.to_vec());
    Some(TurnOverrides { model, permission_policy, enabled_tool_levels })
}

/// The `<option>` value of a model: `{connection}/{model}` (ids never hold `/`).
pub fn model_value(choice: &ModelChoice) -> String {
    format!("{}/{}", choice.connection_id, choice.model_id)
}

/// The model of an `<option>` value; `None` for the empty value ("the thread's model") and for
/// anything malformed.
pub fn parse_model_value(value: &str) -> Option<ModelChoice> {
    let (connection, model) = value.split_once('/')?;
    Some(ModelChoice {
        connection_id: ConnectionId::new(connection).ok()?,
        model_id: ModelId::new(model).ok()?,
    })
}

/// The `<option>` value of a permission mode (`""` keeps the thread's).
pub fn policy_value(policy: Option<PermissionPolicy>) -> &'static str {
    match policy {
        None => "",
        Some(PermissionPolicy::Always) => "always",
        Some(PermissionPolicy::Untrusted) => "untrusted",
        Some(PermissionPolicy::Auto) => "auto",
    }
}

/// Every permission mode, in the order selectors list them.
pub const POLICIES: [PermissionPolicy; 3] =
    [PermissionPolicy::Always, PermissionPolicy::Untrusted, PermissionPolicy::Auto];

/// The permission mode of an `<option>` value.
pub fn parse_policy_value(value: &str) -> Option<PermissionPolicy> {
    POLICIES.into_iter().find(|p| policy_value(Some(*p)) == value)
}

/// Catalog key of a permission mode's label.
pub fn policy_label(policy: PermissionPolicy) -> Msg {
    match policy {
        PermissionPolicy::Always => Msg::PolicyAlways,
        PermissionPolicy::Untrusted => Msg::PolicyUntrusted,
        PermissionPolicy::Auto => Msg::PolicyAuto,
    }
}

/// The label of the model selector's "no model for this turn" option: the model of the
/// thread's preset when it has one (the engine then calls that model, not the default one).
pub fn default_model_label(lang: Lang, preset: Option<&ModelPreset>) -> String {
    match preset {
        Some(preset) => {
            let model = preset.model.model_id.to_string();
            i18n::format(lang, Msg::PresetsModel, &[("model", &model)])
        }
        None => i18n::text(lang, Msg::ThreadModel).to_owned(),
    }
}

/// The label of the permission selector's "no mode for this turn" option: the mode the turn
/// then gets, in the engine's order (the chat's own, its preset's, the settings'), and where it
/// comes from. The plain "Default permissions" while the settings are not known yet.
pub fn default_policy_label(
    lang: Lang,
    thread: Option<PermissionPolicy>,
    preset: Option<&ModelPreset>,
    settings: Option<PermissionPolicy>,
) -> String {
    let (mode, from) = match (thread, preset.and_then(|p| p.permission_policy), settings) {
        (Some(mode), _, _) => (mode, Msg::PolicyOfThread),
        (None, Some(mode), _) => (mode, Msg::PolicyOfPreset),
        (None, None, Some(mode)) => (mode, Msg::PolicyOfSettings),
        (None, None, None) => return i18n::text(lang, Msg::ThreadPolicy).to_owned(),
    };
    i18n::format(lang, from, &[("mode", i18n::text(lang, policy_label(mode)))])
}

/// What the composer can attach from the current tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attach {
    /// The text of the page.
    Page,
    /// The selection in the page.
    Selection,
}

/// What `read_page.js` read from a tab.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PageRead {
    /// `location.href`.
    pub url: String,
    /// `document.title`.
    pub title: String,
    /// The selected text (empty when nothing is selected).
    pub selection: String,
    /// `document.body.innerText`, cut.
    pub text: String,
}

impl PageRead {
    /// Reads the script's completion value; missing fields are empty.
    pub fn from_json(value: &serde_json::Value) -> PageRead {
        let field = |name: &str| value[name].as_str().unwrap_or_default().to_owned();
        PageRead {
            url: field("url"),
            title: field("title"),
            selection: field("selection"),
            text: field("text"),
        }
    }
}

/// The context block for `what` of a page; `None` when there is nothing to attach (an empty
/// selection). Page content is data, never instructions: it goes to the model as untrusted,
/// from the page, with its origin. A page of a known tab goes without its text: the engine
/// reads it with the page executor before the model's first call, so the model gets the
/// snapshot with refs it can act on, not just the words.
pub fn context_block(what: Attach, read: &PageRead, tab: Option<TabRef>) -> Option<ContextBlock> {
    let (kind, text, label) = match what {
        Attach::Page => (ContextKind::Page, read.text.trim(), read.title.clone()),
        Attach::Selection => (ContextKind::Selection, read.selection.trim(), {
            let preview: String = read.selection.trim().chars().take(40).collect();
            format!("“{preview}” · {}", read.title)
        }),
    };
    if text.is_empty() {
        return None;
    }
    Some(ContextBlock {
        kind,
        label: if label.trim().is_empty() { read.url.clone() } else { label },
        origin: crate::settings::origin_of(&read.url),
        trust: Trust::Untrusted,
        provenance: Provenance::Page,
        source_ref: Some(read.url.clone()),
        content: match (what, &tab) {
            (Attach::Page, Some(_)) => ContextContent::Empty,
            _ => ContextContent::Text { text: text.to_owned() },
        },
        tab,
        // About four characters per token: a chip hint, not a budget.
        approx_tokens: u32::try_from(text.chars().count().div_ceil(4)).ok(),
    })
}

#[cfg(test)]
#[path = "composer_tests.rs"]
mod tests;
