//! The per-turn choices of the composer (model, permission mode, trusted input) and the
//! selector values and labels the composer and the options page share.

use panelot_protocol::ConnectionId;
use panelot_protocol::ModelId;
use panelot_protocol::PresetId;
use panelot_protocol::engine::ConnectionView;
use panelot_protocol::engine::ModelChoice;
use panelot_protocol::engine::ModelPreset;
use panelot_protocol::engine::PermissionPolicy;
use panelot_protocol::engine::PresetView;
use panelot_protocol::engine::ToolLevel;
use panelot_protocol::engine::TurnOverrides;

use crate::i18n;
use crate::i18n::Lang;
use crate::i18n::Msg;

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

/// The label of the model selector's "no model for this turn" option: the model the turn then
/// gets, in the engine's order (the thread's preset's, else the default one) and where it comes
/// from; "No model" when there is none (nothing can run until one is connected).
pub fn default_model_label(
    lang: Lang,
    preset: Option<&ModelPreset>,
    default: Option<&ModelChoice>,
) -> String {
    match (preset, default) {
        (Some(preset), _) => {
            let model = preset.model.model_id.to_string();
            i18n::format(lang, Msg::PresetsModel, &[("model", &model)])
        }
        (None, Some(default)) => {
            let model = default.model_id.to_string();
            i18n::format(lang, Msg::ModelOfSettings, &[("model", &model)])
        }
        (None, None) => i18n::text(lang, Msg::NoModel).to_owned(),
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

/// Every model of `connections` as a selector option: (`{connection}/{model}` value, "model ·
/// connection" label).
pub fn model_options<'a>(
    connections: impl IntoIterator<Item = &'a ConnectionView>,
) -> Vec<(String, String)> {
    connections
        .into_iter()
        .flat_map(|c| {
            c.model_ids.iter().map(move |m| (format!("{}/{m}", c.id), format!("{m} · {}", c.name)))
        })
        .collect()
}

/// The models of `connections` grouped by connection, for a selector with one group per
/// connection: (connection name, [(`{connection}/{model}` value, model id)]). Connections without
/// models are left out.
pub fn model_groups<'a>(
    connections: impl IntoIterator<Item = &'a ConnectionView>,
) -> Vec<(String, Vec<(String, String)>)> {
    connections
        .into_iter()
        .filter(|c| !c.model_ids.is_empty())
        .map(|c| {
            let models = c.model_ids.iter().map(|m| (format!("{}/{m}", c.id), m.clone())).collect();
            (c.name.clone(), models)
        })
        .collect()
}

/// The preset `id` names, if it still exists (a deleted one leaves its threads on the defaults).
pub fn preset_named<'a>(
    presets: &'a [PresetView],
    id: Option<&PresetId>,
) -> Option<&'a ModelPreset> {
    let id = id?;
    presets.iter().find(|p| &p.id == id).map(|p| &p.preset)
}

#[cfg(test)]
#[path = "choices_tests.rs"]
mod tests;
