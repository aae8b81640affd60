//! Pasted `mcpServers` snippets and server ids.

use pretty_assertions::assert_eq;

use super::*;

#[test]
fn claude_cursor_and_vscode_snippets_import_their_remote_servers() {
    let snippet = r#"{"mcpServers": {
        "docs": {"type": "http", "url": "https://docs.example/mcp",
            "headers": {"Authorization": "Bearer tok-1", "X-Team": "blue"}},
        "local": {"command": "npx", "args": ["-y", "some-server"]},
        "old": {"transport": "stdio", "url": "https://x.example"},
        "off": {"serverUrl": "https://off.example/mcp", "disabled": true},
        "nothing": {}
    }}"#;
    // Entries come in name order (docs, local, nothing, off, old).
    // Entries come in name order: docs, local, nothing, off, old.
    let entries = parse_mcp_import(snippet).unwrap();
    let McpImportEntry::Remote { server } = &entries[0] else { panic!("{entries:?}") };
    assert_eq!(server.name, "docs");
    assert_eq!(server.auth, McpAuth::Bearer);
    assert_eq!(server.bearer_token.as_deref(), Some("tok-1"));
    let headers = server.custom_headers.as_ref().unwrap();
    assert_eq!(headers.len(), 1, "the token is not kept as a header too");
    assert_eq!(headers[0].name, "X-Team");
    assert_eq!(
        entries[1],
        McpImportEntry::NeedsNativeHost { name: "local".into(), command: "npx".into() }
    );
    assert!(matches!(&entries[2], McpImportEntry::Invalid { name, .. } if name == "nothing"));
    let McpImportEntry::Remote { server } = &entries[3] else { panic!("{entries:?}") };
    assert!(!server.enabled, "a disabled entry comes in switched off");
    assert!(
        matches!(&entries[4], McpImportEntry::Invalid { reason, .. } if reason.contains("stdio")),
        "{entries:?}"
    );
    // VS Code's `servers` and a bare object of servers read the same.
    let vscode = parse_mcp_import(r#"{"servers": {"a": {"url": "https://a.example"}}}"#).unwrap();
    let bare = parse_mcp_import(r#"{"a": {"url": "https://a.example"}}"#).unwrap();
    assert_eq!(vscode, bare);
}

#[test]
fn what_is_not_a_snippet_is_refused_in_words() {
    assert!(matches!(parse_mcp_import("not json"), Err(McpImportError::NotJson(_))));
    assert_eq!(parse_mcp_import("[1, 2]"), Err(McpImportError::NoServers));
    assert_eq!(parse_mcp_import(r#"{"mcpServers": {}}"#), Err(McpImportError::NoServers));
    assert_eq!(parse_mcp_import(r#"{"a": 1}"#), Err(McpImportError::NoServers));
    let huge = format!(r#"{{"a": {{"url": "{}"}}}}"#, "x".repeat(MCP_IMPORT_MAX_BYTES));
    assert_eq!(parse_mcp_import(&huge), Err(McpImportError::TooLarge));
}

#[test]
fn server_ids_are_slugs_that_fit_in_tool_names() {
    assert_eq!(mcp_server_id("Notes Server"), "notes-server");
    assert_eq!(mcp_server_id("  GitHub (work) "), "github-work");
    assert_eq!(mcp_server_id("日本語"), "server");
    assert_eq!(mcp_server_id("a very long server name indeed"), "a-very-long-server-n");
    for id in ["notes-server", "github-work", "server", "a-very-long-server-n", "x1"] {
        assert!(is_mcp_server_id(id), "{id}");
    }
    for id in ["", "-a", "A", "a_b", "a".repeat(21).as_str()] {
        assert!(!is_mcp_server_id(id), "{id}");
    }
}

#[test]
fn fetches_read_as_serde_tagged_form_wrote_them() {
    use serde_json::json;

    let prompt = json!({"kind": "prompt", "name": "greet", "arguments": {"who": "Ann"}});
    let fetch: McpFetch = crate::from_value(prompt.clone()).unwrap();
    let arguments = [("who".to_owned(), "Ann".to_owned())].into_iter().collect();
    assert_eq!(fetch, McpFetch::Prompt { name: "greet".into(), arguments });
    assert_eq!(serde_json::to_value(&fetch).unwrap(), prompt);
    let fetch: McpFetch = crate::from_value(json!({"kind": "prompt", "name": "today"})).unwrap();
    assert_eq!(fetch, McpFetch::Prompt { name: "today".into(), arguments: Default::default() });
    let resource = json!({"kind": "resource", "uri": "file:///a"});
    let fetch: McpFetch = crate::from_value(resource).unwrap();
    assert_eq!(fetch, McpFetch::Resource { uri: "file:///a".into() });
    for bad in [
        json!({"kind": "resource", "uri": "file:///a", "extra": 1}),
        json!({"kind": "tool", "name": "x"}),
        json!({"uri": "file:///a"}),
        json!({"kind": "prompt"}),
    ] {
        assert!(crate::from_value::<McpFetch>(bad.clone()).is_err(), "{bad}");
    }
}

#[test]
fn statuses_read_as_serde_tagged_form_wrote_them() {
    use serde_json::json;

    let statuses = [
        McpStatus::Disconnected,
        McpStatus::Connecting,
        McpStatus::Ready { tools: 3 },
        McpStatus::NeedsAuthorization {
            reason: "sign in".into(),
            origins: vec!["https://a".into()],
        },
        McpStatus::Error { reason: "down".into() },
    ];
    for status in statuses {
        let written = serde_json::to_value(&status).unwrap();
        assert_eq!(crate::from_value::<McpStatus>(written).unwrap(), status);
    }
    assert_eq!(
        serde_json::to_value(McpStatus::Ready { tools: 3 }).unwrap(),
        json!({"state": "ready", "tools": 3})
    );
    let old = json!({"state": "needs_authorization", "reason": "sign in"});
    let status = McpStatus::NeedsAuthorization { reason: "sign in".into(), origins: vec![] };
    assert_eq!(crate::from_value::<McpStatus>(old).unwrap(), status);
    // Not denied: other members are ignored, as serde's tagged form did.
    let extra = json!({"state": "connecting", "since": 5});
    assert_eq!(crate::from_value::<McpStatus>(extra).unwrap(), McpStatus::Connecting);
    for bad in [json!({"state": "gone"}), json!({"tools": 1}), json!({"state": "ready"})] {
        assert!(crate::from_value::<McpStatus>(bad.clone()).is_err(), "{bad}");
    }
    assert_eq!(McpStatus::default(), McpStatus::Disconnected);
}
