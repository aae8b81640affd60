//! Tests of the MCP server form, its editor and the snippet import.

use panelot_protocol::SubmissionId;
use panelot_protocol::engine::McpToolView;
use pretty_assertions::assert_eq;

use super::*;

fn view() -> McpServerView {
    McpServerView {
        id: "docs".to_owned(),
        name: "Docs".to_owned(),
        url: "https://mcp.example.com/mcp".to_owned(),
        auth: McpAuth::Bearer,
        has_bearer_token: true,
        oauth_client_id: None,
        header_names: vec!["X-Team".to_owned()],
        enabled: true,
        connect: McpConnectMode::Lazy,
        disabled_tools: vec!["delete_page".to_owned()],
        timeout_ms: 30_000,
        status: McpStatus::Ready { tools: 2 },
        tools: vec![McpToolView {
            name: "search".to_owned(),
            exposed_name: "mcp__docs__search".to_owned(),
            title: "Search".to_owned(),
            description: "Searches the docs.".to_owned(),
            enabled: true,
        }],
        recent_calls: Vec::new(),
        offered_tokens: 0,
    }
}

fn form(name: &str, url: &str) -> McpForm {
    McpForm { name: name.to_owned(), url: url.to_owned(), ..McpForm::default() }
}

#[track_caller]
fn check_problems(form: &McpForm, expected: &[(McpField, FieldProblem)]) {
    assert_eq!(form.validate(None).err().unwrap_or_default(), expected);
}

#[test]
fn a_new_server_becomes_the_input_of_its_save() {
    let form = McpForm {
        headers: "X-Team: blue\n\n".to_owned(),
        timeout_s: " 90 ".to_owned(),
        connect: McpConnectMode::Lazy,
        ..form("  Docs ", " https://mcp.example.com/mcp ")
    };
    assert_eq!(
        form.validate(None),
        Ok(McpServerInput {
            id: None,
            name: "Docs".to_owned(),
            url: "https://mcp.example.com/mcp".to_owned(),
            auth: McpAuth::None,
            bearer_token: None,
            oauth_client_id: None,
            custom_headers: Some(vec![HeaderInput {
                name: "X-Team".to_owned(),
                value: "blue".to_owned()
            }]),
            enabled: true,
            connect: McpConnectMode::Lazy,
            disabled_tools: Vec::new(),
            timeout_ms: Some(90_000),
        })
    );
}

/// Editing a server whose token is stored, with the token box left alone: the save sends
/// `bearerToken: null` and no headers, which keeps both.
#[test]
fn an_edit_that_leaves_the_token_empty_keeps_the_stored_one() {
    let mut editor = McpEditor::edit(&view());
    assert!(!editor.form.token_box(), "a stored token shows as saved, not as a box");
    editor.form.name = "Team docs".to_owned();
    let input = editor.submit().expect("valid");
    assert_eq!(
        input,
        McpServerInput {
            id: Some("docs".to_owned()),
            name: "Team docs".to_owned(),
            url: "https://mcp.example.com/mcp".to_owned(),
            auth: McpAuth::Bearer,
            bearer_token: None,
            oauth_client_id: None,
            custom_headers: None,
            enabled: true,
            connect: McpConnectMode::Lazy,
            disabled_tools: vec!["delete_page".to_owned()],
            timeout_ms: Some(30_000),
        }
    );
    let json = serde_json::to_value(&input).expect("serializes");
    assert_eq!(json["bearerToken"], serde_json::Value::Null);
    // Replacing it, and leaving the new box empty, still keeps it.
    editor.form.replacing_token = true;
    assert!(editor.form.token_box());
    assert_eq!(editor.submit().and_then(|i| i.bearer_token), None);
    editor.form.token = " new-token ".to_owned();
    assert_eq!(editor.submit().and_then(|i| i.bearer_token).as_deref(), Some("new-token"));
}

#[test]
fn tokens_and_client_ids_are_sent_only_for_their_auth() {
    let bearer = McpForm {
        auth: McpAuth::Bearer,
        token: "abc".to_owned(),
        oauth_client_id: "client".to_owned(),
        ..form("A", "https://a.example")
    };
    let input = bearer.validate(None).expect("valid");
    assert_eq!((input.bearer_token.as_deref(), input.oauth_client_id), (Some("abc"), None));
    let oauth = McpForm { auth: McpAuth::Oauth, ..bearer.clone() };
    let input = oauth.validate(None).expect("valid");
    assert_eq!((input.bearer_token, input.oauth_client_id.as_deref()), (None, Some("client")));
    let none = McpForm { auth: McpAuth::None, ..bearer };
    let input = none.validate(None).expect("valid");
    assert_eq!((input.bearer_token, input.oauth_client_id), (None, None));
}

#[test]
fn every_problem_is_reported_at_once_in_form_order() {
    check_problems(
        &McpForm {
            auth: McpAuth::Bearer,
            headers: "not a header".to_owned(),
            timeout_s: "0".to_owned(),
            ..McpForm::default()
        },
        &[
            (McpField::Name, FieldProblem::Required),
            (McpField::Url, FieldProblem::Required),
            (McpField::Token, FieldProblem::Required),
            (McpField::Headers, FieldProblem::BadHeader),
            (McpField::Timeout, FieldProblem::OutOfRange),
        ],
    );
    check_problems(
        &McpForm {
            auth: McpAuth::Bearer,
            token: "two words".to_owned(),
            timeout_s: "601".to_owned(),
            ..form(&"n".repeat(101), "ftp://x")
        },
        &[
            (McpField::Name, FieldProblem::TooLong),
            (McpField::Url, FieldProblem::BadUrl),
            (McpField::Token, FieldProblem::BadToken),
            (McpField::Timeout, FieldProblem::OutOfRange),
        ],
    );
    check_problems(
        &McpForm {
            auth: McpAuth::Oauth,
            oauth_client_id: "a b".to_owned(),
            timeout_s: "ten".to_owned(),
            ..form("A", "https://a.example")
        },
        &[
            (McpField::ClientId, FieldProblem::BadToken),
            (McpField::Timeout, FieldProblem::OutOfRange),
        ],
    );
}

/// HTTPS anywhere; HTTP only to this machine.
#[test]
fn urls_are_https_or_http_on_this_machine() {
    for ok in [
        "https://mcp.example.com/mcp",
        "http://localhost:8931/mcp",
        "http://127.0.0.1:3000/mcp",
        "https://10.0.0.2/mcp",
    ] {
        assert!(form("A", ok).validate(None).is_ok(), "{ok}");
    }
    for bad in ["http://mcp.example.com/mcp", "http://10.0.0.2/mcp", "mcp.example.com", "ws://x"] {
        check_problems(&form("A", bad), &[(McpField::Url, FieldProblem::BadUrl)]);
    }
}

#[test]
fn problems_read_as_sentences_in_both_languages() {
    let mut editor =
        McpEditor { form: form("A", "http://mcp.example.com"), ..McpEditor::default() };
    assert_eq!(editor.submit(), None);
    assert_eq!(
        editor.notes(Lang::En),
        ["Server URL must start with https:// (or http:// for localhost)."]
    );
    assert_eq!(
        editor.notes(Lang::ZhCn),
        ["服务器 URL 必须以 https:// 开头（localhost 可用 http://）。"]
    );
}

#[test]
fn the_editor_follows_its_save() {
    let mut editor = McpEditor { form: form("A", "https://a.example"), ..McpEditor::default() };
    let sent = SubmissionId::new("s-1").expect("id");
    let other = SubmissionId::new("s-2").expect("id");
    assert!(editor.submit().is_some());
    editor.sent(sent.clone(), vec!["docs".to_owned()]);
    assert!(editor.waiting());
    assert!(!editor.saved(&[view()]), "only the servers known before");
    assert!(!editor.answer(&other, None));
    assert!(editor.answer(&sent, None));
    let added = McpServerView { id: "a".to_owned(), ..view() };
    assert!(editor.saved(&[view(), added]));

    let mut editing = McpEditor::edit(&view());
    editing.sent(sent.clone(), vec!["docs".to_owned()]);
    assert!(!editing.saved(&[view()]), "not before the engine acknowledged it");
    assert!(editing.answer(&sent, Some("not_configured")));
    assert_eq!(editing.status, SaveStatus::Refused("not_configured".to_owned()));
    assert_eq!(editing.notes(Lang::En), ["Not saved: not_configured"]);
}

#[test]
fn switches_save_the_stored_server_with_one_change() {
    assert_eq!(
        with_enabled(&view(), false),
        McpServerInput { enabled: false, ..stored_input(&view()) }
    );
    let off = with_tool(&view(), "search", false);
    assert_eq!(off.disabled_tools, ["delete_page", "search"]);
    let on = with_tool(&view(), "delete_page", true);
    assert_eq!(on.disabled_tools, Vec::<String>::new());
    assert_eq!((on.bearer_token, on.custom_headers), (None, None), "secrets kept");
}

const SNIPPET: &str = r#"{"mcpServers": {
  "docs": {"type": "http", "url": "https://mcp.example.com/mcp",
           "headers": {"Authorization": "Bearer t0k"}},
  "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem"]},
  "plain": {"url": "http://mcp.example.com/mcp"},
  "odd": {"type": "stdio-ish", "url": "https://x.example"},
  "local": {"url": "http://127.0.0.1:8931/mcp"}
}}"#;

#[test]
fn a_snippet_is_previewed_with_what_can_be_added() {
    let mut import = McpImport { open: true, text: SNIPPET.to_owned(), ..McpImport::default() };
    import.read();
    let Some(Ok(rows)) = &import.preview else { panic!("{:?}", import.preview) };
    let summary: Vec<(String, String)> = rows
        .iter()
        .map(|row| match row {
            ImportRow::Addable { server, chosen } => (server.name.clone(), format!("add {chosen}")),
            ImportRow::NeedsNativeHost { name, command } => {
                (name.clone(), format!("host {command}"))
            }
            ImportRow::Unusable { name, problem } => (name.clone(), format!("{problem:?}")),
        })
        .collect();
    let expected = [
        ("docs", "add true"),
        ("files", "host npx"),
        ("local", "add true"),
        ("odd", "Said(\"transport \\\"stdio-ish\\\" is not supported\")"),
        ("plain", "BadUrl"),
    ]
    .map(|(a, b)| (a.to_owned(), b.to_owned()));
    assert_eq!(summary, expected);
    let chosen = import.chosen();
    assert_eq!(chosen.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["docs", "local"]);
    assert_eq!(chosen[0].bearer_token.as_deref(), Some("t0k"));
    assert_eq!(chosen[0].auth, McpAuth::Bearer);

    // Unticking one leaves the other; a row that cannot be added cannot be ticked.
    import.choose(0, false);
    import.choose(1, true);
    import.choose(4, true);
    assert_eq!(import.chosen().iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["local"]);
}

#[test]
fn a_snippet_that_cannot_be_read_says_why_in_words() {
    let notes = |text: &str, lang| {
        let mut import = McpImport { text: text.to_owned(), ..McpImport::default() };
        import.read();
        assert_eq!(import.chosen(), Vec::new());
        import.notes(lang)
    };
    assert_eq!(
        notes("{\"mcpServers\": ", Lang::En),
        ["This is not JSON (EOF while parsing a value at line 1 column 14)."]
    );
    assert_eq!(
        notes("[1, 2]", Lang::En),
        [
            "No servers found: paste an object of servers, or one under \"mcpServers\" or \"servers\"."
        ]
    );
    assert_eq!(notes(&"x".repeat(300 * 1024), Lang::ZhCn), ["片段过大（最多 256 KB）。"]);
}

#[test]
fn an_import_follows_its_saves() {
    let mut import = McpImport { open: true, text: SNIPPET.to_owned(), ..McpImport::default() };
    import.read();
    let (a, b) = (SubmissionId::new("a").expect("id"), SubmissionId::new("b").expect("id"));
    import.sent(vec![a.clone(), b.clone()]);
    assert!(!import.open && import.text.is_empty() && import.preview.is_none());
    assert!(import.answer(&a, None));
    assert!(!import.answer(&a, None), "answered once");
    assert!(import.answer(&b, Some("not_configured")));
    assert_eq!(import.notes(Lang::En), ["Not saved: not_configured"]);
    assert!(import.pending.is_empty());
}

#[test]
fn statuses_read_as_chips_and_offer_the_right_button() {
    let cases = [
        (McpStatus::Disconnected, true, "disconnected", "Disconnected", Some(Msg::McpConnect)),
        (McpStatus::Connecting, true, "connecting", "Connecting…", None),
        (McpStatus::Ready { tools: 1 }, true, "ready", "Ready · 1 tool", None),
        (McpStatus::Ready { tools: 7 }, true, "ready", "Ready · 7 tools", None),
        (
            McpStatus::NeedsAuthorization { reason: "401".to_owned(), origins: Vec::new() },
            true,
            "auth",
            "Needs sign-in",
            Some(Msg::McpSignIn),
        ),
        (
            McpStatus::Error { reason: "cannot reach the server".to_owned() },
            true,
            "error",
            "Error: cannot reach the server",
            Some(Msg::McpRetry),
        ),
        (McpStatus::Error { reason: "x".to_owned() }, false, "off", "Off", None),
    ];
    for (status, enabled, state, words, action) in cases {
        assert_eq!(status_text(Lang::En, &status, enabled), (state, words.to_owned()));
        assert_eq!(connect_action(&status, enabled), action, "{status:?}");
    }
    // The engine's reason as it is sent (it is translated only where the catalog knows it).
    assert_eq!(
        status_text(Lang::ZhCn, &McpStatus::Error { reason: "HTTP 500".into() }, true).1,
        "错误：HTTP 500"
    );
}

#[test]
fn sign_in_asks_access_to_the_origins_its_status_names() {
    let mut view = McpServerView { url: "https://docs.example/mcp".to_owned(), ..view() };
    // Connect and Retry ask for the server's site alone.
    assert_eq!(access_origins(&view), ["https://docs.example"]);
    assert!(sign_in_sites(&view).is_empty());

    // A sign-in asks for every origin it fetches from, each once, web origins only.
    view.status = McpStatus::NeedsAuthorization {
        reason: "401".to_owned(),
        origins: vec![
            "https://docs.example".to_owned(),
            "https://auth.example".to_owned(),
            "http://auth.test:8080".to_owned(),
            "chrome://settings".to_owned(),
            "https://auth.example".to_owned(),
        ],
    };
    assert_eq!(
        access_origins(&view),
        ["https://docs.example", "https://auth.example", "http://auth.test:8080"]
    );
    assert_eq!(sign_in_sites(&view), ["auth.example", "http://auth.test:8080"]);
    // Nothing known yet: the server's site, and no line on the card.
    view.status = McpStatus::NeedsAuthorization { reason: "401".to_owned(), origins: Vec::new() };
    assert_eq!(access_origins(&view), ["https://docs.example"]);
    assert!(sign_in_sites(&view).is_empty());
}
