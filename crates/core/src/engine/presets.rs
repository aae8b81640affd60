//! Model presets: a named model with its own instructions, permission policy, tool families and
//! generation parameters. All of them are one setting; a thread names one; a run freezes the
//! preset it started with, so editing a preset never changes a turn under way.

use panelot_protocol::Op;
use panelot_protocol::PresetId;
use panelot_protocol::engine::ErrorCode;
use panelot_protocol::engine::ModelPreset;
use panelot_protocol::engine::PresetDeleteParams;
use panelot_protocol::engine::PresetSaveParams;
use panelot_protocol::engine::PresetView;
use panelot_protocol::engine::ToolLevel;

use super::decision::Decision;
use super::reads::Reads;
use super::setup;
use super::setup::Overlay;
use crate::model::GenParams;
use crate::settings;
use crate::settings::StoredList;
use crate::store::Store;
use crate::store::StoreError;
use crate::store::UnitOfWork;
/// Presets a profile may hold.
const MAX_PRESETS: usize = 64;
/// Longest preset name.
const MAX_NAME_CHARS: usize = 100;
/// Longest preset instructions: they are sent with every model call of its threads.
const MAX_PROMPT_CHARS: usize = 8_000;
/// Highest temperature any supported wire format accepts.
const MAX_TEMPERATURE: f64 = 2.0;

/// The generation parameters a frozen preset sends (none without a preset).
pub(crate) fn gen_params(preset: Option<&ModelPreset>) -> GenParams {
    let Some(params) = preset.map(|p| &p.params) else { return GenParams::default() };
    GenParams {
        temperature: params.temperature,
        max_tokens: params.max_tokens,
        reasoning_effort: params.reasoning_effort,
        ..GenParams::default()
    }
}

/// The tool families a run may use: the turn's choice, else its preset's, else the default.
pub(crate) fn tool_levels(run: &crate::store::RunRecord) -> Option<Vec<ToolLevel>> {
    run.overrides
        .as_ref()
        .and_then(|o| o.enabled_tool_levels.clone())
        .or_else(|| run.preset.as_ref().and_then(|p| p.enabled_tool_levels.clone()))
}

/// `preset` as it is stored: name and instructions trimmed, empty instructions dropped, tool
/// families deduplicated. The error says what to fix.
fn checked(mut preset: ModelPreset, connection_exists: bool) -> Result<ModelPreset, String> {
    preset.name = preset.name.trim().to_owned();
    let name_chars = preset.name.chars().count();
    if name_chars == 0 || name_chars > MAX_NAME_CHARS {
        return Err(format!("a preset name has 1 to {MAX_NAME_CHARS} characters"));
    }
    if !connection_exists {
        return Err(format!("connection {} does not exist", preset.model.connection_id));
    }
    preset.system_prompt = preset
        .system_prompt
        .map(|prompt| prompt.trim().to_owned())
        .filter(|prompt| !prompt.is_empty());
    if preset.system_prompt.as_ref().is_some_and(|p| p.chars().count() > MAX_PROMPT_CHARS) {
        return Err(format!("preset instructions have at most {MAX_PROMPT_CHARS} characters"));
    }
    if let Some(levels) = &mut preset.enabled_tool_levels {
        let mut seen = Vec::with_capacity(levels.len());
        levels.retain(|level| {
            let first = !seen.contains(level);
            seen.push(*level);
            first
        });
        if levels.is_empty() {
            return Err("a preset enables at least one tool family (or leaves the default)".into());
        }
    }
    if let Some(t) = preset.params.temperature
        && !(0.0..=MAX_TEMPERATURE).contains(&t)
    {
        return Err(format!("the temperature is between 0 and {MAX_TEMPERATURE}"));
    }
    if preset.params.max_tokens == Some(0) {
        return Err("the output token limit is at least 1".into());
    }
    Ok(preset)
}

/// The preset `id` names, if it (still) exists.
pub(crate) async fn preset(
    store: &impl Store,
    id: &PresetId,
) -> Result<Option<ModelPreset>, StoreError> {
    let presets = settings::PRESETS.read(store).await?;
    Ok(presets.into_items().into_iter().find(|p| &p.id == id).map(|p| p.preset))
}

/// `preset.save`.
pub(crate) async fn save<S: Store>(
    reads: &Reads<'_, S>,
    op: &Op,
    p: &PresetSaveParams,
) -> Result<Decision, StoreError> {
    let mut presets = settings::PRESETS.read(reads.store).await?;
    let at = match &p.preset_id {
        Some(id) => match presets.iter().position(|stored| &stored.id == id) {
            Some(at) => Some(at),
            None => {
                let message = format!("preset {id} does not exist");
                return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, message));
            }
        },
        None if presets.len() >= MAX_PRESETS => {
            let message = format!("at most {MAX_PRESETS} presets can be stored");
            return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, message));
        }
        None => None,
    };
    let connection = p.preset.model.connection_id.as_str();
    let exists = setup::connection(reads.store, connection).await?.is_some();
    let preset = match checked(p.preset.clone(), exists) {
        Ok(preset) => preset,
        Err(message) => return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, message)),
    };
    match at {
        Some(at) => presets[at].preset = preset,
        None => {
            let id = reads.env.id("p", PresetId::new)?;
            presets.push(PresetView { id, preset });
        }
    }
    presets_changed(reads, op, &presets).await
}

/// `preset.delete`: threads that name it fall back to the defaults.
pub(crate) async fn delete<S: Store>(
    reads: &Reads<'_, S>,
    op: &Op,
    p: &PresetDeleteParams,
) -> Result<Decision, StoreError> {
    let mut presets = settings::PRESETS.read(reads.store).await?;
    let before = presets.len();
    presets.retain(|stored| stored.id != p.preset_id);
    if presets.len() == before {
        let message = format!("preset {} does not exist", p.preset_id);
        return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, message));
    }
    presets_changed(reads, op, &presets).await
}

async fn presets_changed<S: Store>(
    reads: &Reads<'_, S>,
    op: &Op,
    presets: &StoredList<PresetView>,
) -> Result<Decision, StoreError> {
    let mut unit = UnitOfWork::new();
    unit.push(settings::PRESETS.write(presets)?);
    let overlay = Overlay { presets: Some(presets), ..Overlay::default() };
    let settings = setup::settings_view(reads, overlay).await?;
    Ok(setup::settings_changed(unit, op, settings))
}
