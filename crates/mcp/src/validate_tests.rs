//! Tests of catalog checks and result budgets.

use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

fn server() -> ServerSlug {
    ServerSlug::new("srv").unwrap_or_else(|err| panic!("{err}"))
}

#[test]
fn bad_tools_are_rejected_one_by_one_with_a_reason() {
    let object = json!({"type": "object"});
    let budgets =
        Budgets { max_schema_bytes: 200, max_description_bytes: 10, ..Budgets::default() };
    let raw = vec![
        json!({"name": "ok", "description": "a long description", "inputSchema": object}),
        json!({"name": "ok", "inputSchema": object}),
        json!({"name": "", "inputSchema": object}),
        json!({"name": "no_schema"}),
        json!({"name": "array_schema", "inputSchema": {"type": "array"}}),
        json!({"name": "huge", "inputSchema": {"type": "object", "description": "x".repeat(300)}}),
        json!({"name": "bell\u{7}", "inputSchema": object}),
        json!(42),
        json!({"name": "dotted.name", "inputSchema": object}),
    ];
    let catalog = tool_catalog(&server(), raw, &budgets);
    let kept: Vec<_> = catalog.tools.iter().map(|t| t.exposed_name.as_str()).collect();
    assert_eq!(kept.len(), 2, "{kept:?}");
    assert_eq!(kept[0], "mcp__srv__ok");
    assert!(kept[1].starts_with("mcp__srv__dotted_name_"), "{kept:?}");
    assert_eq!(catalog.tools[0].tool.description.as_deref(), Some("a long…"));
    let rejected: Vec<_> = catalog.rejected.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(rejected, ["ok", "", "no_schema", "array_schema", "huge", "bell\u{7}", "?"]);
    assert!(catalog.rejected[0].reason.contains("twice"), "{:?}", catalog.rejected[0]);
    assert!(catalog.rejected[4].reason.contains("bytes"), "{:?}", catalog.rejected[4]);
    assert!(catalog.get("mcp__srv__ok").is_some());
}

#[test]
fn cut_respects_char_boundaries() {
    let mut text = "ééééé".to_owned();
    cut(&mut text, 6);
    assert_eq!(text, "é…");
    let mut short = "abc".to_owned();
    cut(&mut short, 3);
    assert_eq!(short, "abc");
}

#[test]
fn results_count_text_against_the_budget_and_keep_unknown_blocks() {
    let budgets = Budgets { max_result_text_bytes: 10, ..Budgets::default() };
    let ok = call_result(
        json!({"content": [{"type": "text", "text": "12345"}, {"type": "hologram"}], "isError": true}),
        &budgets,
    );
    assert_eq!(
        ok,
        Ok(CallToolResult {
            content: vec![
                Content::Text { text: "12345".to_owned() },
                Content::Unsupported { kind: "hologram".to_owned() }
            ],
            structured_content: None,
            is_error: true,
        })
    );
    let over = call_result(
        json!({"content": [{"type": "text", "text": "123456"}, {"type": "resource", "resource": {"uri": "x:a", "text": "78901"}}]}),
        &budgets,
    );
    assert_eq!(over, Err(McpError::BudgetExceeded { budget: Budget::ResultText, limit: 10 }));
    let malformed = call_result(json!({"content": [{"type": "text"}]}), &budgets);
    assert!(matches!(malformed, Err(McpError::Protocol(_))), "{malformed:?}");
    let structured =
        call_result(json!({"content": [], "structuredContent": {"k": "0123456789"}}), &budgets);
    assert!(matches!(structured, Err(McpError::BudgetExceeded { .. })), "{structured:?}");
}
