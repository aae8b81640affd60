//! Whether a message can run: the model a turn would get, found the way the engine finds it (the
//! turn's own choice, else the thread's preset's model, else the default model), and whether
//! that model's connection is there to call. A page checks this before it sends, so that a send
//! that cannot run creates no thread and loses no text, and shows what to do instead.

use panelot_protocol::PresetId;
use panelot_protocol::engine::ModelChoice;
use panelot_protocol::engine::SettingsView;

use super::choices::preset_named;

/// Where a turn's model comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelSource {
    /// Chosen for this turn in the composer.
    Turn,
    /// The thread's preset.
    Preset,
    /// The settings' default model.
    Default,
}

/// Whether a message sent now can run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Readiness {
    /// The settings have not arrived yet: send, and let the engine decide.
    Unknown,
    /// It runs on this model.
    Ready(ModelChoice, ModelSource),
    /// No model is set up, or the one named has no enabled connection: connect a model first.
    NoModel,
}

/// The readiness of a message with the composer's `turn_model` in a thread (or draft) whose
/// preset is `preset`, under `settings`.
pub fn readiness(
    settings: Option<&SettingsView>,
    turn_model: Option<&ModelChoice>,
    preset: Option<&PresetId>,
) -> Readiness {
    let Some(settings) = settings else { return Readiness::Unknown };
    let chosen = match (turn_model, preset_named(&settings.presets, preset)) {
        (Some(model), _) => Some((model.clone(), ModelSource::Turn)),
        (None, Some(preset)) => Some((preset.model.clone(), ModelSource::Preset)),
        (None, None) => settings.default_model.clone().map(|m| (m, ModelSource::Default)),
    };
    match chosen {
        Some((model, source))
            if settings.connections.iter().any(|c| c.enabled && c.id == model.connection_id) =>
        {
            Readiness::Ready(model, source)
        }
        Some(_) | None => Readiness::NoModel,
    }
}

#[cfg(test)]
#[path = "readiness_tests.rs"]
mod tests;
