//! Stored MCP servers: secrets sealed at rest and opened only for the client, edits that keep
//! or drop them, forms refused in words.

use panelot_protocol::engine::HeaderInput;
use panelot_protocol::engine::McpAuth;
use panelot_protocol::engine::McpConnectMode;
use panelot_protocol::engine::McpServerInput;
use pretty_assertions::assert_eq;

use super::StoredMcpServer;
use crate::secret::VaultKey;

fn input(auth: McpAuth, token: Option<&str>) -> McpServerInput {
    McpServerInput {
        id: None,
        name: " Notes ".into(),
        url: "https://Notes.Example/mcp/".into(),
        auth,
        bearer_token: token.map(str::to_owned),
        oauth_client_id: None,
        custom_headers: Some(vec![
            HeaderInput { name: "X-Api-Key".into(), value: "k-123".into() },
            HeaderInput { name: "X-Team".into(), value: "blue".into() },
        ]),
        enabled: true,
        connect: McpConnectMode::Lazy,
        disabled_tools: vec!["delete".into()],
        timeout_ms: None,
    }
}

#[test]
fn secrets_are_sealed_at_rest_and_opened_only_for_the_client() {
    let key = VaultKey::from_bytes([7; 32]);
    let stored =
        StoredMcpServer::from_input("notes", &input(McpAuth::Bearer, Some("tok-1")), None, &key)
            .unwrap();
    let text = serde_json::to_string(&stored).unwrap();
    assert!(!text.contains("tok-1") && !text.contains("k-123"), "{text}");
    assert!(text.contains("blue"), "a header that is no secret stays readable");
    assert_eq!(stored.url.as_str(), "https://notes.example/mcp");
    assert_eq!(stored.timeout_ms, 60_000);
    let view = stored.view();
    assert!(view.has_bearer_token);
    assert_eq!(view.header_names, ["x-api-key", "x-team"]);
    let opened = stored.open(&key).unwrap();
    assert_eq!(
        opened.headers,
        [
            ("x-api-key".to_owned(), "k-123".to_owned()),
            ("x-team".to_owned(), "blue".to_owned()),
            ("authorization".to_owned(), "Bearer tok-1".to_owned()),
        ]
    );
    assert!(!format!("{opened:?}").contains("tok-1"));
    assert!(stored.open(&VaultKey::from_bytes([8; 32])).is_err(), "another key opens nothing");
}

#[test]
fn an_edit_without_a_token_keeps_it_and_switching_auth_drops_it() {
    let key = VaultKey::from_bytes([7; 32]);
    let first =
        StoredMcpServer::from_input("notes", &input(McpAuth::Bearer, Some("tok-1")), None, &key)
            .unwrap();
    let mut edit = input(McpAuth::Bearer, None);
    edit.custom_headers = None;
    let kept = StoredMcpServer::from_input("notes", &edit, Some(&first), &key).unwrap();
    assert_eq!(kept.bearer, first.bearer);
    assert_eq!(kept.headers, first.headers);
    let oauth =
        StoredMcpServer::from_input("notes", &input(McpAuth::Oauth, None), Some(&first), &key)
            .unwrap();
    assert_eq!(oauth.bearer, None);
}

#[test]
fn bad_forms_are_refused_in_words() {
    let key = VaultKey::from_bytes([7; 32]);
    let refuse =
        |form: McpServerInput| StoredMcpServer::from_input("x", &form, None, &key).unwrap_err();
    assert_eq!(refuse(input(McpAuth::Bearer, None)), "bearer sign-in needs a token");
    let mut plain = input(McpAuth::None, None);
    plain.url = "http://notes.example/mcp".into();
    assert!(refuse(plain).contains("https"));
    let mut slow = input(McpAuth::None, None);
    slow.timeout_ms = Some(3_600_000);
    assert!(refuse(slow).contains("timeout"));
    let mut header = input(McpAuth::Bearer, Some("t"));
    header.custom_headers =
        Some(vec![HeaderInput { name: "Authorization".into(), value: "x".into() }]);
    assert!(refuse(header).contains("token field"));
    let mut unnamed = input(McpAuth::None, None);
    unnamed.name = "  ".into();
    assert!(refuse(unnamed).contains("name"));
}
