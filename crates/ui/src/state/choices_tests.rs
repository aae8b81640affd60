//! Tests of the choices module.

use pretty_assertions::assert_eq;

use super::*;

#[test]
fn a_turn_without_choices_carries_no_overrides() {
    assert_eq!(turn_overrides(None, None, false), None);
    let model = parse_model_value("c-1/gpt-4o").unwrap();
    assert_eq!((model.connection_id.as_str(), model.model_id.as_str()), ("c-1", "gpt-4o"));
    assert_eq!(model_value(&model), "c-1/gpt-4o");
    let overrides =
        turn_overrides(Some(model.clone()), Some(PermissionPolicy::Always), false).unwrap();
    assert_eq!(overrides.model, Some(model));
    assert_eq!(overrides.permission_policy, Some(PermissionPolicy::Always));
    assert_eq!(overrides.enabled_tool_levels, None);
    // Trusted input adds the debugger's level to the defaults, and nothing else.
    let trusted = turn_overrides(None, None, true).unwrap();
    assert_eq!(trusted.enabled_tool_levels, Some(TRUSTED_INPUT_LEVELS.to_vec()));
    assert_eq!((trusted.model, trusted.permission_policy), (None, None));
}

#[test]
fn selector_values_round_trip() {
    assert_eq!(parse_model_value(""), None);
    assert_eq!(parse_model_value("no-slash"), None);
    assert_eq!(parse_model_value("c-1/a/b"), None);
    for policy in [None, Some(PermissionPolicy::Always), Some(PermissionPolicy::Auto)] {
        assert_eq!(parse_policy_value(policy_value(policy)), policy);
    }
    assert_eq!(parse_policy_value("untrusted"), Some(PermissionPolicy::Untrusted));
}

#[test]
fn the_default_model_option_names_the_presets_model() {
    use crate::i18n::Lang;
    assert_eq!(default_model_label(Lang::En, None, None), "No model");
    let default = parse_model_value("c1/big-model").unwrap();
    assert_eq!(default_model_label(Lang::En, None, Some(&default)), "big-model (default)");
    let preset: ModelPreset = serde_json::from_value(serde_json::json!({"name": "French",
        "model": {"connectionId": "c1", "modelId": "fast-model"}, "systemPrompt": null,
        "permissionPolicy": null, "enabledToolLevels": null, "params": {}}))
    .unwrap();
    assert_eq!(default_model_label(Lang::En, Some(&preset), None), "fast-model (preset)");
    assert_eq!(default_model_label(Lang::En, Some(&preset), Some(&default)), "fast-model (preset)");
    assert_eq!(POLICIES.map(|p| parse_policy_value(policy_value(Some(p)))), POLICIES.map(Some));
}

#[test]
fn the_default_policy_option_names_the_mode_a_turn_gets_and_its_source() {
    use crate::i18n::Lang;
    let preset = |policy: Option<&str>| -> ModelPreset {
        serde_json::from_value(serde_json::json!({"name": "Careful",
            "model": {"connectionId": "c1", "modelId": "m"}, "systemPrompt": null,
            "permissionPolicy": policy, "enabledToolLevels": null, "params": {}}))
        .unwrap()
    };
    let careful = preset(Some("always"));
    let plain = preset(None);
    let auto = Some(PermissionPolicy::Auto);
    let untrusted = Some(PermissionPolicy::Untrusted);
    assert_eq!(default_policy_label(Lang::En, None, None, None), "Default permissions");
    assert_eq!(
        default_policy_label(Lang::En, None, None, auto),
        "Act without asking (sensitive sites and data still ask) (default)"
    );
    // The order the engine weighs them in: the chat's own, its preset's, the settings'.
    assert_eq!(
        default_policy_label(Lang::En, None, Some(&careful), auto),
        "Ask before every action (preset)"
    );
    assert_eq!(
        default_policy_label(Lang::En, None, Some(&plain), untrusted),
        "Ask before actions that change things (default)"
    );
    assert_eq!(
        default_policy_label(Lang::En, untrusted, Some(&careful), auto),
        "Ask before actions that change things (this chat)"
    );
    assert_eq!(
        default_policy_label(Lang::ZhCn, None, Some(&careful), auto),
        "每个操作前都询问（预设）"
    );
}
