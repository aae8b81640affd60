//! Tests of the connections' markup.

use panelot_protocol::ConnectionId;
use panelot_protocol::engine::ConnectionCheckFailure;
use panelot_protocol::engine::ConnectionKind as Wire;
use pretty_assertions::assert_eq;

use super::*;

fn view(name: &str) -> ConnectionView {
    ConnectionView {
        id: ConnectionId::new("c-1").unwrap(),
        name: name.to_owned(),
        kind: Wire::Openai,
        base_url: "http://localhost:11434/v1".to_owned(),
        key_count: 2,
        enabled: true,
        model_ids: vec!["llama3.2".to_owned()],
        header_names: Vec::new(),
        quirks: Vec::new(),
        prices: Vec::new(),
    }
}

fn state<'a>(check: Option<&'a Option<ConnectionCheck>>, chosen: &'a str) -> CardState<'a> {
    CardState { provider: Some("Ollama"), check, confirming: false, chosen }
}

/// Names, models and what a server said are text, never markup.
#[test]
fn everything_from_outside_is_escaped() {
    let check = Some(ConnectionCheck {
        reachable: true,
        key_valid: false,
        streaming: false,
        tool_use: false,
        models: Some(vec!["<img src=x onerror=alert(1)>".to_owned()]),
        model: None,
        failure: Some(ConnectionCheckFailure::InvalidKey),
        diagnosis: Some("A: the server said <script>".to_owned()),
    });
    let html = card_html(Lang::En, &view("<b>Mine</b> & \"co\""), state(Some(&check), ""));
    assert!(
        !html.contains("<b>") && !html.contains("<script>") && !html.contains("<img"),
        "{html}"
    );
    assert!(html.contains("&lt;b&gt;Mine&lt;/b&gt; &amp; &quot;co&quot;"), "{html}");
    assert!(html.contains("&lt;script&gt;"), "{html}");
}

#[test]
fn a_card_shows_the_connection_its_check_and_its_actions() {
    let html = card_html(Lang::En, &view("Home"), state(None, "llama3.2"));
    for part in [
        "data-connection=\"c-1\"",
        "<strong class=\"connection-name\">Home</strong>",
        "<span class=\"connection-provider\">Ollama</span>",
        "<span class=\"connection-model\">llama3.2</span>",
        "<span class=\"connection-host\">localhost:11434</span>",
        "<span class=\"connection-keys\">2 keys</span>",
        "data-act=\"check\" data-id=\"c-1\"",
        "data-act=\"edit\" data-id=\"c-1\"",
        "data-act=\"ask-delete\" data-id=\"c-1\"",
    ] {
        assert!(html.contains(part), "{part} not in {html}");
    }
    assert!(!html.contains("check-report") && !html.contains("confirm-delete"), "{html}");
    let asking =
        card_html(Lang::En, &view("Home"), CardState { confirming: true, ..state(None, "") });
    assert!(
        asking.contains("Delete “Home”? Chats that use it will need another model."),
        "{asking}"
    );
    assert!(
        asking.contains("data-act=\"delete\"") && asking.contains("data-act=\"keep\""),
        "{asking}"
    );
}

#[test]
fn a_running_check_then_its_findings_and_the_listed_models() {
    let running = card_html(Lang::En, &view("Home"), state(Some(&None), ""));
    assert!(running.contains("data-state=\"running\""), "{running}");
    let done = Some(ConnectionCheck {
        reachable: true,
        key_valid: true,
        streaming: true,
        tool_use: true,
        models: Some(vec!["llama3.2".to_owned(), "qwen3:8b".to_owned()]),
        model: Some("llama3.2".to_owned()),
        failure: None,
        diagnosis: None,
    });
    let html = card_html(Lang::En, &view("Home"), state(Some(&done), "llama3.2"));
    assert!(html.contains("class=\"check-report\" data-state=\"ok\""), "{html}");
    assert_eq!(html.matches("<li data-state=\"passed\">").count(), 4, "{html}");
    assert!(html.contains("<option value=\"llama3.2\" selected>llama3.2</option>"), "{html}");
    // The model in use is chosen: nothing to save yet.
    assert!(html.contains("data-act=\"use-model\" data-id=\"c-1\" disabled"), "{html}");
    let other = card_html(Lang::En, &view("Home"), state(Some(&done), "qwen3:8b"));
    assert!(other.contains("data-act=\"use-model\" data-id=\"c-1\">"), "{other}");
}

#[test]
fn the_form_shows_its_values_and_its_rows() {
    let template = ConnectionTemplateView {
        id: "ollama".to_owned(),
        name: "Ollama".to_owned(),
        kind: "openai".to_owned(),
        base_url: "http://localhost:11434/v1".to_owned(),
        quirks: vec!["noStreamOptions".to_owned()],
        key_required: false,
    };
    let mut form = ConnectionForm::from_template(&template);
    form.keys = vec![KeyRow::Saved(1), KeyRow::Typed("sk-\"x".to_owned())];
    let quirk_names = ["noStreamOptions".to_owned(), "noSystemRole".to_owned()];
    let cx = FormContext {
        templates: std::slice::from_ref(&template),
        quirk_names: &quirk_names,
        listed: &[],
    };
    let html = form_html(Lang::En, &form, cx);
    for part in [
        "<option value=\"ollama\" selected>Ollama</option>",
        "name=\"name\" autocomplete=\"off\" spellcheck=\"false\" value=\"Ollama\"",
        "<span class=\"saved-key\" data-key=\"1\">",
        "name=\"api-key\" data-index=\"1\"",
        "value=\"sk-&quot;x\"",
        "data-act=\"remove-key\" data-index=\"0\"",
        "name=\"quirk\" value=\"noStreamOptions\" checked>",
        "name=\"quirk\" value=\"noSystemRole\">",
        "Don&#39;t ask for token counts while streaming",
    ] {
        assert!(html.contains(part), "{part} not in {html}");
    }
    assert!(!html.contains(">noStreamOptions<"), "a raw quirk name is shown: {html}");
    assert_eq!(
        form_actions_html(Lang::En, true, false),
        "<button type=\"submit\" class=\"btn-primary save-connection\" disabled>Saving…</button>"
    );
    assert_eq!(problems_html(&["a<b".to_owned()]), "<li>a&lt;b</li>");
}
