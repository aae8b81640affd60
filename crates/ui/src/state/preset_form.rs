//! The model-preset form of the options page: what was typed, its validation, the preset being
//! edited and what became of its last save; the preset list's summary of a stored preset.

use panelot_protocol::PresetId;
use panelot_protocol::SubmissionId;
use panelot_protocol::engine::ConnectionView;
use panelot_protocol::engine::ModelPreset;
use panelot_protocol::engine::PermissionPolicy;
use panelot_protocol::engine::PresetParams;
use panelot_protocol::engine::PresetView;
use panelot_protocol::engine::ReasoningEffort;
use panelot_protocol::engine::ToolLevel;

use crate::i18n;
use crate::i18n::Lang;
use crate::i18n::Msg;
use crate::state::choices::model_options;
use crate::state::choices::model_value;
use crate::state::choices::parse_model_value;
use crate::state::choices::policy_label;
use crate::state::connection_form::FieldProblem;
use crate::state::connection_form::problem_text;

/// The preset form's model options: [`model_options`], then the form's `current` model if no
/// connection lists it any more (it stays shown rather than silently replaced).
pub fn preset_model_options<'a>(
    connections: impl IntoIterator<Item = &'a ConnectionView>,
    current: &str,
) -> Vec<(String, String)> {
    let mut models = model_options(connections);
    if !current.is_empty() && !models.iter().any(|(value, _)| value == current) {
        models.push((current.to_owned(), current.to_owned()));
    }
    models
}

/// Longest preset name the engine keeps.
pub const MAX_PRESET_NAME_CHARS: usize = 100;
/// Longest preset instructions the engine keeps.
pub const MAX_PRESET_INSTRUCTIONS_CHARS: usize = 8_000;

/// Tool families a preset can enable, with their checkboxes' names and labels, in form order.
pub const TOOL_FAMILIES: [(ToolLevel, &str, Msg); 5] = [
    (ToolLevel::L0, "tool-l0", Msg::ToolsTabs),
    (ToolLevel::L1, "tool-l1", Msg::ToolsPage),
    (ToolLevel::L2, "tool-l2", Msg::ToolsDebugger),
    (ToolLevel::Mcp, "tool-mcp", Msg::ToolsMcp),
    (ToolLevel::Builtin, "tool-builtin", Msg::ToolsBuiltin),
];

/// The families a turn gets when nothing chooses (the engine's default: all but the debugger);
/// the checkboxes start from them when the user stops inheriting.
pub const DEFAULT_TOOL_FAMILIES: [ToolLevel; 4] =
    [ToolLevel::L0, ToolLevel::L1, ToolLevel::Mcp, ToolLevel::Builtin];

/// Reasoning efforts with their `<option>` values and labels.
pub const EFFORTS: [(ReasoningEffort, &str, Msg); 3] = [
    (ReasoningEffort::Low, "low", Msg::EffortLow),
    (ReasoningEffort::Medium, "medium", Msg::EffortMedium),
    (ReasoningEffort::High, "high", Msg::EffortHigh),
];

/// The effort selector's value for `effort` (empty: the provider's default).
pub fn effort_value(effort: Option<ReasoningEffort>) -> &'static str {
    EFFORTS.iter().find(|(e, ..)| Some(*e) == effort).map_or("", |(_, value, _)| *value)
}

/// The effort an effort selector's `value` names (`None`: the provider's default).
pub fn parse_effort_value(value: &str) -> Option<ReasoningEffort> {
    EFFORTS.iter().find(|(_, name, _)| *name == value).map(|(e, ..)| *e)
}

/// A field of the preset form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PresetField {
    /// Name.
    Name,
    /// Model.
    Model,
    /// Instructions.
    Instructions,
    /// Tool families.
    ToolFamilies,
    /// Temperature.
    Temperature,
    /// Output token limit.
    MaxTokens,
}

impl PresetField {
    /// Catalog key of the field's label.
    pub fn label(self) -> Msg {
        match self {
            PresetField::Name => Msg::ConnectionName,
            PresetField::Model => Msg::PresetModel,
            PresetField::Instructions => Msg::Instructions,
            PresetField::ToolFamilies => Msg::ToolFamilies,
            PresetField::Temperature => Msg::Temperature,
            PresetField::MaxTokens => Msg::MaxTokens,
        }
    }
}

/// The preset form as typed: raw text, validated on save. `None` choices leave the setting to
/// the thread, the global settings or the provider.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PresetForm {
    /// Display name.
    pub name: String,
    /// The model selector's value, `{connection}/{model}`; empty until one is chosen.
    pub model: String,
    /// Instructions added to the system prompt.
    pub instructions: String,
    /// Permission policy.
    pub policy: Option<PermissionPolicy>,
    /// Tool families; `None` keeps the default set.
    pub tool_levels: Option<Vec<ToolLevel>>,
    /// Temperature as typed.
    pub temperature: String,
    /// Output token limit as typed.
    pub max_tokens: String,
    /// Reasoning effort.
    pub reasoning_effort: Option<ReasoningEffort>,
}

impl PresetForm {
    /// The form showing a stored preset, for editing.
    pub fn from_preset(preset: &ModelPreset) -> PresetForm {
        let params = &preset.params;
        PresetForm {
            name: preset.name.clone(),
            model: model_value(&preset.model),
            instructions: preset.system_prompt.clone().unwrap_or_default(),
            policy: preset.permission_policy,
            tool_levels: preset.enabled_tool_levels.clone(),
            temperature: params.temperature.map(|t| t.to_string()).unwrap_or_default(),
            max_tokens: params.max_tokens.map(|n| n.to_string()).unwrap_or_default(),
            reasoning_effort: params.reasoning_effort,
        }
    }

    /// Keeps the default tool families (`keep`), or stops and starts from them, so that
    /// nothing changes until the user changes a family.
    pub fn keep_default_tools(&mut self, keep: bool) {
        self.tool_levels = (!keep).then(|| DEFAULT_TOOL_FAMILIES.to_vec());
    }

    /// Ticks (`on`) or unticks the family `level`; nothing while the default families are kept
    /// (their checkboxes are disabled then).
    pub fn set_tool(&mut self, level: ToolLevel, on: bool) {
        if let Some(levels) = &mut self.tool_levels {
            levels.retain(|l| *l != level);
            if on {
                levels.push(level);
            }
        }
    }

    /// Whether the form shows `level` ticked (the default families while they are kept).
    pub fn has_tool(&self, level: ToolLevel) -> bool {
        self.tool_levels.as_deref().unwrap_or(&DEFAULT_TOOL_FAMILIES).contains(&level)
    }

    /// Checks every field; all problems at once, in form order. The engine checks again (and
    /// refuses a model of a connection that no longer exists).
    pub fn validate(&self) -> Result<ModelPreset, Vec<(PresetField, FieldProblem)>> {
        let mut problems = Vec::new();
        let name = self.name.trim();
        match name.chars().count() {
            0 => problems.push((PresetField::Name, FieldProblem::Required)),
            n if n > MAX_PRESET_NAME_CHARS => {
                problems.push((PresetField::Name, FieldProblem::TooLong));
            }
            _ => {}
        }
        let model = parse_model_value(&self.model);
        if model.is_none() {
            problems.push((PresetField::Model, FieldProblem::Required));
        }
        let instructions = self.instructions.trim();
        if instructions.chars().count() > MAX_PRESET_INSTRUCTIONS_CHARS {
            problems.push((PresetField::Instructions, FieldProblem::TooLong));
        }
        if self.tool_levels.as_ref().is_some_and(Vec::is_empty) {
            problems.push((PresetField::ToolFamilies, FieldProblem::Required));
        }
        let temperature =
            optional_number(&self.temperature, |n| n.as_f64().filter(|t| (0.0..=2.0).contains(t)));
        if temperature.is_err() {
            problems.push((PresetField::Temperature, FieldProblem::OutOfRange));
        }
        let max_tokens = optional_number(&self.max_tokens, |n| {
            n.as_u64().and_then(|n| u32::try_from(n).ok()).filter(|n| *n > 0)
        });
        if max_tokens.is_err() {
            problems.push((PresetField::MaxTokens, FieldProblem::OutOfRange));
        }
        match (model, temperature, max_tokens) {
            (Some(model), Ok(temperature), Ok(max_tokens)) if problems.is_empty() => {
                Ok(ModelPreset {
                    name: name.to_owned(),
                    model,
                    system_prompt: (!instructions.is_empty()).then(|| instructions.to_owned()),
                    permission_policy: self.policy,
                    enabled_tool_levels: self.tool_levels.clone(),
                    params: PresetParams {
                        temperature,
                        max_tokens,
                        reasoning_effort: self.reasoning_effort,
                    },
                })
            }
            _ => Err(problems),
        }
    }
}

/// A number field that may stay empty: `Ok(None)` when blank, `Err` when it is not a number
/// `read` accepts. The text is read as a JSON number: the JSON parser is in the wasm anyway,
/// while `str::parse::<f64>` would add a second float parser.
fn optional_number<T>(
    text: &str,
    read: impl Fn(&serde_json::Value) -> Option<T>,
) -> Result<Option<T>, ()> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    serde_json::from_str(text).ok().as_ref().and_then(read).map(Some).ok_or(())
}

/// What the preset list says about a preset besides its name: its model (with the
/// connection's name when it still exists) and the permission policy it sets, if any.
pub fn preset_summary(
    preset: &ModelPreset,
    connections: &[ConnectionView],
) -> (String, Option<Msg>) {
    let model = &preset.model;
    let model_text = match connections.iter().find(|c| c.id == model.connection_id) {
        Some(c) => format!("{} · {}", model.model_id, c.name),
        None => format!("{} · {}", model.model_id, model.connection_id),
    };
    (model_text, preset.permission_policy.map(policy_label))
}

/// Where the preset form's last save stands.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum FormStatus {
    /// Nothing sent since the form was opened.
    #[default]
    Idle,
    /// Not sent: what is wrong with the fields.
    Invalid(Vec<(PresetField, FieldProblem)>),
    /// Sent; the engine has not answered yet.
    Waiting(SubmissionId),
    /// The engine stored it.
    Saved,
    /// The engine refused it, for this reason.
    Refused(String),
}

/// The preset form: its values, the preset it edits, and what became of its last save.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PresetEditor {
    /// The values shown.
    pub form: PresetForm,
    /// The preset being edited; `None` adds one.
    pub editing: Option<PresetId>,
    /// The last save.
    pub status: FormStatus,
}

impl PresetEditor {
    /// The form showing `form`, editing `editing` (`None`: a new preset).
    pub fn open(form: PresetForm, editing: Option<PresetId>) -> PresetEditor {
        PresetEditor { form, editing, status: FormStatus::Idle }
    }

    /// The preset to send for a save, or `None` with the problems recorded.
    pub fn submit(&mut self) -> Option<ModelPreset> {
        match self.form.validate() {
            Ok(preset) => Some(preset),
            Err(problems) => {
                self.status = FormStatus::Invalid(problems);
                None
            }
        }
    }

    /// Takes the engine's answer to `submission_id` (`refusal` is the reason of a rejection): a
    /// save empties the form, a refusal keeps what was typed. Returns whether it answered this
    /// form's save: the form then shows it, not the page's notice bar.
    pub fn answer(&mut self, submission_id: &SubmissionId, refusal: Option<&str>) -> bool {
        if !matches!(&self.status, FormStatus::Waiting(sent) if sent == submission_id) {
            return false;
        }
        *self = match refusal {
            None => PresetEditor { status: FormStatus::Saved, ..PresetEditor::default() },
            Some(reason) => PresetEditor {
                status: FormStatus::Refused(reason.to_owned()),
                ..std::mem::take(self)
            },
        };
        true
    }

    /// What the form's problem list says: what is wrong with the fields, the engine's reason
    /// for a refusal, or that the preset was saved.
    pub fn notes(&self, lang: Lang) -> Vec<String> {
        match &self.status {
            FormStatus::Invalid(found) => found
                .iter()
                .map(|(field, problem)| problem_text(lang, field.label(), *problem))
                .collect(),
            FormStatus::Refused(reason) => {
                vec![i18n::format(lang, Msg::NotSaved, &[("message", reason)])]
            }
            FormStatus::Saved => vec![i18n::text(lang, Msg::Saved).to_owned()],
            FormStatus::Idle | FormStatus::Waiting(_) => Vec::new(),
        }
    }

    /// The save button's label: "Save" while editing a stored preset, else "Add preset".
    pub fn save_label(&self) -> Msg {
        if self.editing.is_some() { Msg::Save } else { Msg::AddPreset }
    }

    /// The form editing the stored preset `id`; `None` if there is no such preset.
    pub fn edit(presets: &[PresetView], id: &str) -> Option<PresetEditor> {
        let stored = presets.iter().find(|p| p.id.as_str() == id)?;
        Some(PresetEditor::open(PresetForm::from_preset(&stored.preset), Some(stored.id.clone())))
    }
}

#[cfg(test)]
#[path = "preset_form_tests.rs"]
mod tests;
