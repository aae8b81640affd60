//! Tests of the preset form module.

use pretty_assertions::assert_eq;

use super::*;
use crate::state::choices::parse_policy_value;
use crate::state::choices::preset_named;
use panelot_protocol::PresetId;
use panelot_protocol::engine::PermissionPolicy;
use panelot_protocol::engine::PresetParams;
use panelot_protocol::engine::ReasoningEffort;
use panelot_protocol::engine::ToolLevel;

fn connection(id: &str, name: &str, models: &[&str]) -> ConnectionView {
    serde_json::from_value(serde_json::json!({"id": id, "name": name, "kind": "openai",
        "baseUrl": "https://x", "keyCount": 0, "enabled": true, "modelIds": models,
        "headerNames": [], "quirks": [], "prices": []}))
    .unwrap()
}

fn filled() -> PresetForm {
    PresetForm {
        name: "  French ".to_owned(),
        model: "c1/fast-model".to_owned(),
        instructions: "\n Always answer in French. \n".to_owned(),
        ..PresetForm::default()
    }
}

#[test]
fn an_empty_preset_form_names_every_missing_field_and_bad_numbers() {
    assert_eq!(
        PresetForm::default().validate(),
        Err(vec![
            (PresetField::Name, FieldProblem::Required),
            (PresetField::Model, FieldProblem::Required)
        ])
    );
    let form = PresetForm {
        name: "x".repeat(MAX_PRESET_NAME_CHARS + 1),
        instructions: "y".repeat(MAX_PRESET_INSTRUCTIONS_CHARS + 1),
        tool_levels: Some(Vec::new()),
        temperature: "2.5".to_owned(),
        max_tokens: "0".to_owned(),
        ..filled()
    };
    assert_eq!(
        form.validate(),
        Err(vec![
            (PresetField::Name, FieldProblem::TooLong),
            (PresetField::Instructions, FieldProblem::TooLong),
            (PresetField::ToolFamilies, FieldProblem::Required),
            (PresetField::Temperature, FieldProblem::OutOfRange),
            (PresetField::MaxTokens, FieldProblem::OutOfRange),
        ])
    );
    for (temperature, max_tokens) in [("warm", "1.5"), ("-0.1", "-3"), ("1,2", "99999999999")] {
        let form = PresetForm {
            temperature: temperature.into(),
            max_tokens: max_tokens.into(),
            ..filled()
        };
        assert_eq!(form.validate().unwrap_err().len(), 2, "{temperature} {max_tokens}");
    }
    assert_eq!(
        problem_text(Lang::En, PresetField::Temperature.label(), FieldProblem::OutOfRange),
        "Temperature (0 to 2) is not a number in the allowed range."
    );
}

#[test]
fn a_filled_preset_form_is_trimmed_and_leaves_blank_settings_unset() {
    let preset = filled().validate().unwrap();
    assert_eq!(preset.name, "French");
    assert_eq!(
        (preset.model.connection_id.as_str(), preset.model.model_id.as_str()),
        ("c1", "fast-model")
    );
    assert_eq!(preset.system_prompt.as_deref(), Some("Always answer in French."));
    assert_eq!((preset.permission_policy, preset.enabled_tool_levels), (None, None));
    assert_eq!(preset.params, PresetParams::default());
    let blank = PresetForm { instructions: "  ".to_owned(), ..filled() };
    assert_eq!(blank.validate().unwrap().system_prompt, None);
}

#[test]
fn controls_set_the_form_and_a_stored_preset_round_trips() {
    let mut form = filled();
    form.policy = parse_policy_value("auto");
    form.temperature = " 0.7 ".to_owned();
    form.max_tokens = "512".to_owned();
    form.reasoning_effort = parse_effort_value("high");
    form.name = "Terse".to_owned();
    // While the default is kept, a family's checkbox changes nothing (it is disabled).
    form.set_tool(ToolLevel::L2, true);
    assert_eq!(form.tool_levels, None);
    assert!(form.has_tool(ToolLevel::L0) && !form.has_tool(ToolLevel::L2));
    // Unticking the default opens the families at the default set; then one is added.
    form.keep_default_tools(false);
    assert_eq!(form.tool_levels.as_deref(), Some(&DEFAULT_TOOL_FAMILIES[..]));
    assert!(!form.has_tool(ToolLevel::L2));
    form.set_tool(ToolLevel::L2, true);
    form.set_tool(ToolLevel::Mcp, false);
    assert!(form.has_tool(ToolLevel::L2) && !form.has_tool(ToolLevel::Mcp));
    let preset = form.validate().unwrap();
    assert_eq!(preset.name, "Terse");
    assert_eq!(preset.permission_policy, Some(PermissionPolicy::Auto));
    assert_eq!(
        preset.params,
        PresetParams {
            temperature: Some(0.7),
            max_tokens: Some(512),
            reasoning_effort: Some(ReasoningEffort::High)
        }
    );
    assert_eq!(
        preset.enabled_tool_levels,
        Some(vec![ToolLevel::L0, ToolLevel::L1, ToolLevel::Builtin, ToolLevel::L2])
    );
    // Editing shows the stored values, and saving them unchanged sends the same preset.
    assert_eq!(PresetForm::from_preset(&preset).validate(), Ok(preset));
    // Ticking the default again forgets the families.
    form.keep_default_tools(true);
    assert_eq!(form.tool_levels, None);
}

#[test]
fn efforts_round_trip_through_select_values() {
    assert_eq!(effort_value(None), "");
    assert_eq!(parse_effort_value(""), None);
    assert_eq!(parse_effort_value("extreme"), None);
    for (effort, value, _) in EFFORTS {
        assert_eq!(effort_value(Some(effort)), value);
        assert_eq!(parse_effort_value(value), Some(effort));
    }
}

#[test]
fn the_form_shows_the_engines_answer_to_its_own_save_only() {
    let sent = SubmissionId::new("s1").unwrap();
    let other = SubmissionId::new("s2").unwrap();
    let waiting =
        PresetEditor { form: filled(), editing: None, status: FormStatus::Waiting(sent.clone()) };
    let mut editor = waiting.clone();
    assert!(!editor.answer(&other, Some("no")), "another command's answer is not the form's");
    assert_eq!(editor, waiting);
    assert!(editor.answer(&sent, Some("connection c1 does not exist")));
    assert_eq!(editor.status, FormStatus::Refused("connection c1 does not exist".to_owned()));
    assert_eq!(editor.form, filled(), "a refusal keeps what was typed");
    let mut editor = waiting;
    assert!(editor.answer(&sent, None));
    assert_eq!(editor, PresetEditor { status: FormStatus::Saved, ..PresetEditor::default() });
    let mut invalid = PresetEditor::default();
    assert_eq!(invalid.submit(), None);
    assert!(matches!(invalid.status, FormStatus::Invalid(ref found) if found.len() == 2));
}

#[test]
fn the_form_says_what_became_of_its_last_save_and_what_its_button_does() {
    let invalid = PresetEditor {
        status: FormStatus::Invalid(vec![
            (PresetField::Name, FieldProblem::Required),
            (PresetField::Temperature, FieldProblem::OutOfRange),
        ]),
        ..PresetEditor::default()
    };
    assert_eq!(
        invalid.notes(Lang::En),
        ["Name is required.", "Temperature (0 to 2) is not a number in the allowed range."]
    );
    let refused = PresetEditor {
        status: FormStatus::Refused("bad <thing>".to_owned()),
        ..PresetEditor::default()
    };
    assert_eq!(refused.notes(Lang::En), ["Not saved: bad <thing>"]);
    let saved = PresetEditor { status: FormStatus::Saved, ..PresetEditor::default() };
    assert_eq!(saved.notes(Lang::En), ["Saved."]);
    let sent = FormStatus::Waiting(SubmissionId::new("s1").unwrap());
    assert!(PresetEditor { status: sent, ..PresetEditor::default() }.notes(Lang::En).is_empty());
    assert!(PresetEditor::default().notes(Lang::En).is_empty());
    // A new preset is added; a stored one is saved (and the form offers Cancel then).
    assert_eq!(PresetEditor::default().save_label(), Msg::AddPreset);
    let editing = PresetEditor::open(filled(), Some(PresetId::new("p1").unwrap()));
    assert_eq!(editing.save_label(), Msg::Save);
}

#[test]
fn the_preset_list_names_the_model_connection_and_policy_and_edit_opens_the_stored_preset() {
    let connections = vec![connection("c1", "Mock", &["default-model", "fast-model"])];
    let mut preset = filled().validate().unwrap();
    preset.permission_policy = Some(PermissionPolicy::Always);
    let presets = vec![PresetView { id: PresetId::new("p1").unwrap(), preset: preset.clone() }];
    let (model, policy) = preset_summary(&preset, &connections);
    assert_eq!(model, "fast-model · Mock");
    assert_eq!(policy.map(|m| i18n::text(Lang::En, m)), Some("Ask before every action"));
    // A deleted connection leaves its id.
    preset.permission_policy = None;
    assert_eq!(preset_summary(&preset, &[]), ("fast-model · c1".to_owned(), None));
    let editor = PresetEditor::edit(&presets, "p1").unwrap();
    assert_eq!(editor.editing, Some(PresetId::new("p1").unwrap()));
    assert_eq!(editor.form.name, "French");
    assert_eq!(editor.form.model, "c1/fast-model");
    assert_eq!(editor.form.instructions, "Always answer in French.");
    assert_eq!((editor.form.tool_levels, editor.status), (None, FormStatus::Idle));
    assert_eq!(PresetEditor::edit(&presets, "gone"), None);
    assert_eq!(preset_named(&presets, Some(&PresetId::new("gone").unwrap())), None);
    assert_eq!(preset_named(&presets, None), None);
    assert_eq!(
        preset_named(&presets, Some(&presets[0].id)).map(|p| p.model.model_id.as_str()),
        Some("fast-model")
    );
}

#[test]
fn the_preset_form_keeps_showing_a_model_no_connection_lists_any_more() {
    let connections = [connection("c1", "Mock", &["a", "b"])];
    let listed = model_options(&connections);
    assert_eq!(preset_model_options(&connections, ""), listed);
    assert_eq!(preset_model_options(&connections, "c1/b"), listed);
    let mut kept = listed;
    kept.push(("gone/x".to_owned(), "gone/x".to_owned()));
    assert_eq!(preset_model_options(&connections, "gone/x"), kept);
}

#[test]
fn model_options_name_every_model_of_every_connection() {
    let connections = [connection("c1", "Mock", &["a", "b"]), connection("c2", "Other", &["c"])];
    assert_eq!(
        model_options(&connections),
        [("c1/a", "a · Mock"), ("c1/b", "b · Mock"), ("c2/c", "c · Other")]
            .map(|(v, l)| (v.to_owned(), l.to_owned()))
    );
}
