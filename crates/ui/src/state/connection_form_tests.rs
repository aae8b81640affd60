//! Tests of the connection form: templates, keys, validation, the editor's save, and what a
//! check's report says.

use panelot_protocol::engine::ApiKeyEntry;
use panelot_protocol::engine::ConnectionCheck;
use panelot_protocol::engine::ConnectionCheckFailure;
use panelot_protocol::engine::ModelPrice;
use pretty_assertions::assert_eq;

use super::*;

fn template(
    id: &str,
    name: &str,
    kind: &str,
    base_url: &str,
    quirks: &[&str],
    key: bool,
) -> ConnectionTemplateView {
    ConnectionTemplateView {
        id: id.to_owned(),
        name: name.to_owned(),
        kind: kind.to_owned(),
        base_url: base_url.to_owned(),
        quirks: quirks.iter().map(|q| (*q).to_owned()).collect(),
        key_required: key,
    }
}

fn templates() -> Vec<ConnectionTemplateView> {
    vec![
        template(
            "openai",
            "OpenAI",
            "openai",
            "https://api.openai.com/v1",
            &["maxCompletionTokens"],
            true,
        ),
        template("anthropic", "Anthropic", "anthropic", "https://api.anthropic.com", &[], true),
        template(
            "ollama",
            "Ollama",
            "openai",
            "http://localhost:11434/v1",
            &["noStreamOptions"],
            false,
        ),
        template("custom", "Custom (OpenAI-compatible)", "openai", "", &[], false),
    ]
}

fn stored(key_count: u32, models: &[&str]) -> ConnectionView {
    ConnectionView {
        id: ConnectionId::new("c-1").unwrap(),
        name: "Work".to_owned(),
        kind: Wire::Openai,
        base_url: "http://localhost:11434/v1".to_owned(),
        key_count,
        enabled: true,
        model_ids: models.iter().map(|m| (*m).to_owned()).collect(),
        header_names: vec!["x-team".to_owned()],
        quirks: vec!["noStreamOptions".to_owned()],
        prices: Vec::new(),
    }
}

#[test]
fn no_model_means_the_connection_form_first() {
    assert_eq!(first_screen(0), SettingsScreen::ConnectionForm);
    assert_eq!(first_screen(2), SettingsScreen::Overview);
}

#[test]
fn a_template_fills_url_kind_quirks_and_a_name_nobody_typed() {
    let all = templates();
    let mut form = ConnectionForm::from_template(&all[0]);
    assert_eq!(
        (
            form.name.as_str(),
            form.base_url.as_str(),
            form.kind,
            form.quirks.clone(),
            form.key_required
        ),
        (
            "OpenAI",
            "https://api.openai.com/v1",
            ConnectionKind::OpenAiCompatible,
            vec!["maxCompletionTokens".to_owned()],
            true
        )
    );
    assert_eq!(form.keys, vec![KeyRow::Typed(String::new())]);
    form.apply_template(&all[1]);
    assert_eq!((form.name.as_str(), form.kind), ("Anthropic", ConnectionKind::Anthropic));
    assert_eq!(form.quirks, Vec::<String>::new());
    // A typed name stays when the provider changes; a custom endpoint proposes no name or URL.
    form.name = "Team Claude".to_owned();
    form.apply_template(&all[3]);
    assert_eq!((form.name.as_str(), form.base_url.as_str()), ("Team Claude", ""));
    let custom = ConnectionForm::from_template(&all[3]);
    assert_eq!(custom.name, "");
}

#[test]
fn an_empty_form_lists_every_missing_field() {
    let mut form = ConnectionForm::from_template(&templates()[0]);
    form.name = " ".to_owned();
    form.base_url = String::new();
    assert_eq!(
        form.validate(),
        Err(vec![
            (Field::Name, FieldProblem::Required),
            (Field::BaseUrl, FieldProblem::Required),
            (Field::ApiKey, FieldProblem::Required),
        ])
    );
    // A local server needs no key, and the model can wait for the check's list.
    let local = ConnectionForm::from_template(&templates()[2]);
    assert_eq!(
        local.validate().map(|d| (d.api_keys, d.model_ids)),
        Ok((Some(Vec::new()), Vec::new()))
    );
}

#[test]
fn a_filled_form_is_trimmed_and_becomes_the_engines_connection() {
    let mut form = ConnectionForm::from_template(&templates()[2]);
    form.name = " Mine ".to_owned();
    form.base_url = "http://localhost:11434/v1/".to_owned();
    form.type_key(0, " sk-1 ".to_owned());
    form.add_key();
    form.type_key(1, "sk-2".to_owned());
    form.add_key();
    form.model = " qwen3:8b ".to_owned();
    form.headers = "X-Org: acme".to_owned();
    let draft = form.validate().unwrap();
    assert_eq!(
        draft,
        ConnectionDraft {
            kind: ConnectionKind::OpenAiCompatible,
            name: "Mine".to_owned(),
            base_url: "http://localhost:11434/v1".to_owned(),
            api_keys: Some(vec![typed("sk-1"), typed("sk-2")]),
            model_ids: vec!["qwen3:8b".to_owned()],
            headers: Some(vec![("X-Org".to_owned(), "acme".to_owned())]),
            quirks: vec!["noStreamOptions".to_owned()],
            enabled: true,
            prices: Vec::new(),
        }
    );
    let input = draft.to_input(None);
    assert_eq!(
        (input.id, input.kind, input.custom_headers.map(|h| h.len())),
        (None, Wire::Openai, Some(1))
    );
}

#[test]
fn keys_with_spaces_are_refused() {
    let mut form = ConnectionForm::from_template(&templates()[0]);
    form.type_key(0, "sk one".to_owned());
    assert_eq!(form.validate(), Err(vec![(Field::ApiKey, FieldProblem::BadKey)]));
}

#[test]
fn rows_are_added_and_removed_but_one_always_stays() {
    let mut form = ConnectionForm::from_template(&templates()[0]);
    form.add_key();
    form.remove_key(0);
    form.remove_key(0);
    assert_eq!(form.keys, vec![KeyRow::Typed(String::new())]);
    form.remove_key(7);
    assert_eq!(form.keys.len(), 1);
}

/// Editing shows the stored keys as rows: kept as they are, the save sends none (the engine
/// keeps them); a removed or added key sends the whole list with kept keys by reference.
#[test]
fn editing_keeps_adds_and_removes_keys() {
    let view = stored(2, &["llama3.2", "qwen3:8b"]);
    let mut editor = ConnectionEditor::edit(&view, &templates());
    assert_eq!(editor.form.keys, vec![KeyRow::Saved(1), KeyRow::Saved(2)]);
    assert_eq!((editor.form.template.as_str(), editor.form.name.as_str()), ("ollama", "Work"));
    editor.form.name = "Home".to_owned();
    let kept = editor.submit().unwrap();
    assert_eq!(kept.id.as_ref(), Some(&view.id));
    assert_eq!(kept.name, "Home");
    assert_eq!(kept.api_keys, None);
    // Headers not retyped are kept; models keep their order.
    assert_eq!(kept.custom_headers, None);
    assert_eq!(kept.model_ids, ["llama3.2", "qwen3:8b"]);
    assert_eq!(kept.quirks, ["noStreamOptions"]);

    editor.form.add_key();
    editor.form.type_key(2, "sk-new".to_owned());
    let added = editor.submit().unwrap();
    assert_eq!(added.api_keys, Some(vec![saved(1), saved(2), typed("sk-new")]));

    editor.form.remove_key(0);
    let removed = editor.submit().unwrap();
    assert_eq!(removed.api_keys, Some(vec![saved(2), typed("sk-new")]));
    editor.form.remove_key(1);
    editor.form.remove_key(0);
    assert_eq!(editor.submit().unwrap().api_keys, Some(Vec::new()));
}

#[test]
fn a_new_model_goes_first_and_the_others_stay() {
    let view = stored(0, &["llama3.2", "qwen3:8b"]);
    let input = with_model(&view, "qwen3:8b");
    assert_eq!(input.model_ids, ["qwen3:8b", "llama3.2"]);
    assert_eq!((input.api_keys, input.custom_headers), (None, None));
    let mut editor = ConnectionEditor::edit(&view, &templates());
    editor.form.model = "mistral".to_owned();
    assert_eq!(editor.submit().unwrap().model_ids, ["mistral", "qwen3:8b"]);
}

#[test]
fn a_stored_connection_finds_its_template() {
    let all = templates();
    assert_eq!(template_of(&all, &stored(0, &[])).map(|t| t.id.as_str()), Some("ollama"));
    let mut elsewhere = stored(0, &[]);
    elsewhere.base_url = "https://models.example.test/v1".to_owned();
    assert_eq!(template_of(&all, &elsewhere), None);
    let mut anthropic_at_ollama = stored(0, &[]);
    anthropic_at_ollama.kind = Wire::Anthropic;
    assert_eq!(template_of(&all, &anthropic_at_ollama), None);
    assert_eq!(ConnectionForm::edit(&elsewhere, &all).template, "custom");
}

/// A new connection is known once its id shows in the settings (before or after the ack); an
/// edit once it is acknowledged; a refusal keeps the form with the reason.
#[test]
fn the_editor_follows_its_save() {
    let existing = stored(1, &["m"]);
    let mut editor = ConnectionEditor::add(&templates()[2]);
    let submission = SubmissionId::new("s-1").unwrap();
    editor.sent(submission.clone(), vec![existing.id.clone()]);
    assert!(editor.waiting());
    assert_eq!(editor.saved(std::slice::from_ref(&existing)), None);
    let mut new = stored(0, &[]);
    new.id = ConnectionId::new("c-2").unwrap();
    assert_eq!(editor.saved(&[existing.clone(), new.clone()]), Some(new.id.clone()));
    assert!(!editor.answer(&SubmissionId::new("other").unwrap(), None));
    assert!(editor.answer(&submission, None));

    let mut edit = ConnectionEditor::edit(&existing, &templates());
    edit.sent(submission.clone(), vec![existing.id.clone()]);
    assert_eq!(edit.saved(std::slice::from_ref(&existing)), None);
    assert!(edit.answer(&submission, None));
    assert_eq!(edit.saved(std::slice::from_ref(&existing)), Some(existing.id.clone()));

    let mut refused = ConnectionEditor::add(&templates()[2]);
    refused.sent(submission.clone(), Vec::new());
    assert!(refused.answer(&submission, Some("base URL: not a URL")));
    assert_eq!(refused.status, SaveStatus::Refused("base URL: not a URL".to_owned()));
    assert_eq!(refused.notes(Lang::En), ["Not saved: base URL: not a URL"]);
    assert_eq!(refused.saved(&[new]), None);
}

#[test]
fn headers_are_one_per_line_and_a_bad_line_is_reported() {
    assert_eq!(
        parse_headers("X-Org: acme \n\n  HTTP-Referer:https://a.example"),
        Some(vec![
            ("X-Org".to_owned(), "acme".to_owned()),
            ("HTTP-Referer".to_owned(), "https://a.example".to_owned()),
        ])
    );
    assert_eq!(parse_headers(""), Some(Vec::new()));
    assert_eq!(parse_headers("no colon"), None);
    assert_eq!(parse_headers("Bad Name: x"), None);
    let mut form = ConnectionForm::from_template(&templates()[2]);
    form.headers = "oops".to_owned();
    assert_eq!(form.validate(), Err(vec![(Field::Headers, FieldProblem::BadHeader)]));
}

#[test]
fn keys_never_go_over_plain_http_to_another_host() {
    assert_eq!(
        [
            "https://api.x",
            "http://api.x",
            "http://localhost:8080",
            "ftp://x",
            "https://",
            "HTTP://127.0.0.1:11434/v1",
            "http://[::1]:8080",
            "http://localhost.evil.example",
            "http://127.0.0.1@evil.example",
        ]
        .map(acceptable_url),
        [true, false, true, false, false, true, true, false, false]
    );
}

#[test]
fn kinds_round_trip_through_select_values() {
    for kind in ConnectionKind::ALL {
        assert_eq!(ConnectionKind::from_value(kind.value()), Some(kind));
        assert_eq!(ConnectionKind::from_wire(kind.wire()), kind);
    }
}

/// Every quirk the providers offer has words; an unknown one has none (the page shows its name).
#[test]
fn quirks_have_plain_words() {
    for name in [
        "noStreamOptions",
        "thinkTagReasoning",
        "noParallelToolCalls",
        "maxCompletionTokens",
        "noSystemRole",
        "noReasoningReplay",
        "anthropicManualThinking",
    ] {
        assert!(quirk_text(name).is_some(), "{name}");
    }
    assert_eq!(quirk_text("toolCallsOnStop"), None);
}

fn check(
    reachable: bool,
    key: bool,
    streaming: bool,
    tools: bool,
    failure: Option<ConnectionCheckFailure>,
) -> ConnectionCheck {
    ConnectionCheck {
        reachable,
        key_valid: key,
        streaming,
        tool_use: tools,
        models: None,
        model: None,
        failure,
        diagnosis: None,
    }
}

/// The report never contradicts itself: a step is failed only when the failure is about it.
#[test]
fn check_steps_say_what_passed_and_what_failed() {
    use ConnectionCheckFailure as F;
    use StepState::Failed as X;
    use StepState::Passed as P;
    use StepState::Unchecked as U;
    let states = |c: &ConnectionCheck| {
        let (steps, verdict) = check_steps(c);
        (steps.map(|(_, state)| state), verdict)
    };
    assert_eq!(states(&check(true, true, true, true, None)), ([P, P, P, P], Msg::VerifyOk));
    assert_eq!(
        states(&check(false, false, false, false, Some(F::Unreachable))),
        ([X, U, U, U], Msg::VerifyUnreachable)
    );
    // Reached, then silent: not "could not be reached".
    assert_eq!(
        states(&check(true, true, false, false, Some(F::Unreachable))),
        ([P, P, U, U], Msg::VerifyStopped)
    );
    assert_eq!(
        states(&check(true, false, false, false, Some(F::InvalidKey))),
        ([P, X, U, U], Msg::VerifyInvalidKey)
    );
    assert_eq!(
        states(&check(true, true, true, false, Some(F::NoToolUse))),
        ([P, P, P, X], Msg::VerifyNoToolUse)
    );
    assert_eq!(
        states(&check(true, false, false, false, Some(F::ProtocolMismatch))),
        ([P, U, U, U], Msg::VerifyProtocolMismatch)
    );
    assert_eq!(
        states(&check(true, true, false, false, Some(F::NoModel))),
        ([P, P, U, U], Msg::VerifyNoModel)
    );
}

#[test]
fn key_counts_in_words() {
    assert_eq!(
        [0, 1, 3].map(|n| key_count_text(Lang::En, n)),
        ["no key".to_owned(), "1 key".to_owned(), "3 keys".to_owned()]
    );
}

fn typed(key: &str) -> ApiKeyEntry {
    ApiKeyEntry::Typed(key.to_owned())
}

fn saved(position: u32) -> ApiKeyEntry {
    ApiKeyEntry::Saved { saved: position }
}

fn price(model: &str, input: f64, output: f64) -> ModelPrice {
    ModelPrice { model_id: model.to_owned(), input, output, cache_read: None, cache_write: None }
}

/// The default model's prices are typed in the advanced part: both or none, numbers in range;
/// other models' stored prices are sent back as they are.
#[test]
fn the_default_model_s_prices_are_edited_and_the_others_kept() {
    let mut view = stored(1, &["qwen3:8b", "llama3.2"]);
    let mut cached = price("qwen3:8b", 0.5, 1.5);
    cached.cache_read = Some(0.05);
    view.prices = vec![cached.clone(), price("llama3.2", 0.25, 0.75)];
    let form = ConnectionForm::edit(&view, &[]);
    assert_eq!((form.price_input.as_str(), form.price_output.as_str()), ("0.5", "1.5"));
    // Unchanged: sent back as stored, the cache price kept.
    let sent = form.validate().unwrap().to_input(Some(view.id)).prices.unwrap();
    assert_eq!(sent, [price("llama3.2", 0.25, 0.75), cached]);
    // A new price replaces the model's (and its cache price, which the form does not show).
    let mut changed = form.clone();
    changed.price_input = " 3 ".to_owned();
    changed.price_output = "15".to_owned();
    let sent = changed.validate().unwrap().prices;
    assert_eq!(sent, [price("llama3.2", 0.25, 0.75), price("qwen3:8b", 3.0, 15.0)]);
    // Both emptied: the model has no price.
    let mut cleared = form.clone();
    cleared.price_input.clear();
    cleared.price_output.clear();
    assert_eq!(cleared.validate().unwrap().prices, [price("llama3.2", 0.25, 0.75)]);
    // One without the other, or not a price: the field says what is wrong.
    for (input, output, problem) in [
        ("3", "", FieldProblem::Required),
        ("-1", "2", FieldProblem::OutOfRange),
        ("3", "lots", FieldProblem::OutOfRange),
        ("1e9", "2", FieldProblem::OutOfRange),
    ] {
        let mut bad = form.clone();
        bad.price_input = input.to_owned();
        bad.price_output = output.to_owned();
        assert_eq!(bad.validate().unwrap_err(), [(Field::Prices, problem)], "{input} {output}");
    }
}
