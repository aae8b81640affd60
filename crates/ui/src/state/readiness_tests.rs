//! Tests of the readiness module.

use panelot_protocol::engine::SettingsView;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

/// Settings with connection `c1` (enabled or not) offering `m1` and `m2`, a preset `p1` on
/// `c1/m2`, and `default` as the default model.
fn settings(enabled: bool, default: Option<&str>) -> SettingsView {
    let default = default.map(|m| json!({"connectionId": "c1", "modelId": m}));
    serde_json::from_value(json!({
        "connections": [{"id": "c1", "name": "Mock", "kind": "openai",
            "baseUrl": "http://127.0.0.1:1/v1", "keyCount": 0, "enabled": enabled,
            "modelIds": ["m1", "m2"], "headerNames": [], "quirks": [], "prices": []}],
        "defaultModel": default, "permissionPolicy": "auto", "turnTokenBudget": null,
        "quirkNames": [], "rules": [],
        "presets": [{"id": "p1", "preset": {"name": "Two",
            "model": {"connectionId": "c1", "modelId": "m2"}, "systemPrompt": null,
            "permissionPolicy": null, "enabledToolLevels": null, "params": {}}}],
        "language": "system", "templates": [], "agentOpenTools": false
    }))
    .unwrap()
}

fn model(id: &str) -> ModelChoice {
    serde_json::from_value(json!({"connectionId": "c1", "modelId": id})).unwrap()
}

#[test]
fn a_turn_gets_its_own_model_then_the_presets_then_the_default() {
    let with_default = settings(true, Some("m1"));
    let p1 = PresetId::new("p1").unwrap();
    let gone = PresetId::new("deleted").unwrap();
    assert_eq!(readiness(None, None, None), Readiness::Unknown);
    assert_eq!(
        readiness(Some(&with_default), None, None),
        Readiness::Ready(model("m1"), ModelSource::Default)
    );
    assert_eq!(
        readiness(Some(&with_default), None, Some(&p1)),
        Readiness::Ready(model("m2"), ModelSource::Preset)
    );
    // A deleted preset leaves its threads on the default, as in the engine.
    assert_eq!(
        readiness(Some(&with_default), None, Some(&gone)),
        Readiness::Ready(model("m1"), ModelSource::Default)
    );
    assert_eq!(
        readiness(Some(&with_default), Some(&model("m2")), Some(&p1)),
        Readiness::Ready(model("m2"), ModelSource::Turn)
    );
}

#[test]
fn without_a_model_or_its_connection_nothing_can_run() {
    // A fresh profile: no default model.
    assert_eq!(readiness(Some(&settings(true, None)), None, None), Readiness::NoModel);
    // The default model's connection is switched off.
    assert_eq!(readiness(Some(&settings(false, Some("m1"))), None, None), Readiness::NoModel);
    // A preset still gives a model without a default one.
    let p1 = PresetId::new("p1").unwrap();
    assert_eq!(
        readiness(Some(&settings(true, None)), None, Some(&p1)),
        Readiness::Ready(model("m2"), ModelSource::Preset)
    );
}
