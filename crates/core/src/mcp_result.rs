//! What the model reads of what an MCP server sent: a tool result's content items as text, in
//! order (images and audio named with their type and size, as the model gets no image from a
//! tool yet; embedded resources give their text, links their URI; structured content stands in
//! when the server sent no text), a prompt's messages, a resource's contents. The engine fences
//! it all as MCP content, untrusted.

use serde_json::Value;

/// The longest text kept from one result (the MCP client caps a result at 1 MiB already).
const MAX_CHARS: usize = 200_000;

/// A `CallToolResult` (`{content, isError, structuredContent}`) as text.
pub fn render(result: &Value) -> String {
    let mut parts: Vec<String> = Vec::new();
    for item in result.get("content").and_then(Value::as_array).into_iter().flatten() {
        if let Some(part) = item_text(item) {
            parts.push(part);
        }
    }
    if parts.is_empty()
        && let Some(structured) = result.get("structuredContent").filter(|v| !v.is_null())
    {
        parts.push(structured.to_string());
    }
    joined(parts, "(the tool returned no content)")
}

/// A `GetPromptResult` (`{description, messages: [{role, content}]}`) as text: each message
/// with its role.
pub fn render_prompt(result: &Value) -> String {
    let mut parts: Vec<String> = Vec::new();
    for message in result.get("messages").and_then(Value::as_array).into_iter().flatten() {
        let role = message.get("role").and_then(Value::as_str).unwrap_or("user");
        if let Some(text) = message.get("content").and_then(item_text) {
            parts.push(format!("[{role}]\n{text}"));
        }
    }
    joined(parts, "(the prompt has no messages)")
}

/// A `ReadResourceResult` (`{contents: [{uri, mimeType, text | blob}]}`) as text.
pub fn render_resource(result: &Value) -> String {
    let mut parts: Vec<String> = Vec::new();
    for content in result.get("contents").and_then(Value::as_array).into_iter().flatten() {
        let uri = content.get("uri").and_then(Value::as_str).unwrap_or("?");
        match content.get("text").and_then(Value::as_str) {
            Some(text) => parts.push(text.to_owned()),
            None => parts.push(format!("[{uri}: binary content, not shown]")),
        }
    }
    joined(parts, "(the resource is empty)")
}

/// `parts` on their own lines, `empty` when there are none, cut at [`MAX_CHARS`].
fn joined(parts: Vec<String>, empty: &str) -> String {
    let text = match parts.is_empty() {
        true => empty.to_owned(),
        false => parts.join("\n"),
    };
    match text.char_indices().nth(MAX_CHARS) {
        Some((cut, _)) => {
            format!("{}\n[cut: the result is longer than {MAX_CHARS} characters]", &text[..cut])
        }
        None => text,
    }
}

fn item_text(item: &Value) -> Option<String> {
    let field = |key: &str| item.get(key).and_then(Value::as_str);
    let size = |data: Option<&str>| data.map_or(0, |d| d.len() / 4 * 3);
    match field("type")? {
        "text" => field("text").map(str::to_owned),
        kind @ ("image" | "audio") => Some(format!(
            "[{kind}: {}, about {} bytes, not shown]",
            field("mimeType").unwrap_or("unknown type"),
            size(field("data"))
        )),
        "resource" => {
            let resource = item.get("resource")?;
            let uri = resource.get("uri").and_then(Value::as_str).unwrap_or("?");
            match resource.get("text").and_then(Value::as_str) {
                Some(text) => Some(format!("[resource {uri}]\n{text}")),
                None => Some(format!("[resource {uri}: binary, not shown]")),
            }
        }
        "resource_link" => Some(format!(
            "[link: {} {}]",
            field("uri").unwrap_or("?"),
            field("name").unwrap_or_default()
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::render;
    use serde_json::json;

    #[test]
    fn text_items_are_joined_in_order_and_media_is_named_not_inlined() {
        let result = json!({"content": [
            {"type": "text", "text": "first"},
            {"type": "image", "mimeType": "image/png", "data": "AAAAAAAA"},
            {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "inside"}},
            {"type": "resource_link", "uri": "https://x.test/doc", "name": "doc"},
            {"type": "unknown"}
        ]});
        assert_eq!(
            render(&result),
            "first\n[image: image/png, about 6 bytes, not shown]\n[resource file:///a.txt]\ninside\n[link: https://x.test/doc doc]"
        );
    }

    #[test]
    fn structured_content_stands_in_for_missing_text() {
        let result = json!({"content": [], "structuredContent": {"temp": 21}});
        assert_eq!(render(&result), r#"{"temp":21}"#);
        assert_eq!(render(&json!({})), "(the tool returned no content)");
    }

    #[test]
    fn prompts_keep_their_roles_and_resources_their_text() {
        let prompt = json!({"messages": [
            {"role": "user", "content": {"type": "text", "text": "Summarize"}},
            {"role": "assistant", "content": {"type": "text", "text": "Sure"}}
        ]});
        assert_eq!(super::render_prompt(&prompt), "[user]\nSummarize\n[assistant]\nSure");
        let resource = json!({"contents": [
            {"uri": "mem://a", "text": "alpha"},
            {"uri": "mem://b", "blob": "AAAA"}
        ]});
        assert_eq!(
            super::render_resource(&resource),
            "alpha\n[mem://b: binary content, not shown]"
        );
        assert_eq!(super::render_resource(&json!({})), "(the resource is empty)");
    }

    #[test]
    fn a_huge_result_is_cut_with_a_note() {
        let result = json!({"content": [{"type": "text", "text": "x".repeat(300_000)}]});
        let text = render(&result);
        assert!(text.starts_with(&"x".repeat(200_000)));
        assert!(text.ends_with("longer than 200000 characters]"));
        assert!(text.len() < 200_100);
    }
}
