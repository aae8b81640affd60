//! Protocol invariants checked on every model request: the tool-call pairing rules that the
//! real APIs enforce with a `400`, so a client that breaks them fails in tests, not in use.

use std::collections::BTreeSet;

use serde_json::Value;

/// Checks an OpenAI-compatible `chat/completions` body: every `role: "tool"` message answers a
/// tool call of an earlier assistant message, at most once, and every assistant tool call is
/// answered before the conversation moves on.
pub(super) fn check_openai(body: &Value) -> Vec<String> {
    let Some(messages) = body.get("messages").and_then(Value::as_array) else {
        return vec!["body has no `messages` array".to_owned()];
    };
    let mut problems = Vec::new();
    let mut called = BTreeSet::new();
    let mut answered = BTreeSet::new();
    // Tool calls of the latest assistant message still waiting for their result.
    let mut awaiting: Vec<&str> = Vec::new();
    for (idx, message) in messages.iter().enumerate() {
        let role = message.get("role").and_then(Value::as_str).unwrap_or_default();
        if role == "tool" {
            let Some(id) = message.get("tool_call_id").and_then(Value::as_str) else {
                problems.push(format!("messages[{idx}]: tool message without `tool_call_id`"));
                continue;
            };
            if !called.contains(id) {
                problems.push(format!(
                    "messages[{idx}]: tool result for {id:?}, which no earlier assistant tool call has"
                ));
            } else if !answered.insert(id) {
                problems.push(format!("messages[{idx}]: second tool result for {id:?}"));
            }
            awaiting.retain(|waiting| *waiting != id);
            continue;
        }
        if !awaiting.is_empty() {
            problems.push(format!(
                "messages[{idx}] ({role}) comes before results for tool calls {awaiting:?}"
            ));
            awaiting.clear();
        }
        let tool_calls = message.get("tool_calls").and_then(Value::as_array);
        for call in tool_calls.into_iter().flatten() {
            let id = call.get("id").and_then(Value::as_str).unwrap_or_default();
            if !called.insert(id) {
                problems.push(format!("messages[{idx}]: tool call id {id:?} used twice"));
            }
            awaiting.push(id);
        }
    }
    if !awaiting.is_empty() {
        problems.push(format!("the request ends before results for tool calls {awaiting:?}"));
    }
    problems
}

/// Checks an Anthropic `messages` body: every `tool_result` block refers to an earlier
/// `tool_use` id, at most once; the user message after an assistant message with `tool_use`
/// blocks answers all of them, with its `tool_result` blocks before any other content.
pub(super) fn check_anthropic(body: &Value) -> Vec<String> {
    let Some(messages) = body.get("messages").and_then(Value::as_array) else {
        return vec!["body has no `messages` array".to_owned()];
    };
    let mut problems = Vec::new();
    let mut used = BTreeSet::new();
    let mut answered = BTreeSet::new();
    // `tool_use` ids of the previous assistant message.
    let mut awaiting: Vec<&str> = Vec::new();
    for (idx, message) in messages.iter().enumerate() {
        let role = message.get("role").and_then(Value::as_str).unwrap_or_default();
        // String content has no blocks.
        let blocks = message.get("content").and_then(Value::as_array);
        let blocks: Vec<&Value> = blocks.into_iter().flatten().collect();
        let mut results_here = BTreeSet::new();
        let mut seen_other_content = false;
        for block in &blocks {
            if !is_type(block, "tool_result") {
                seen_other_content = true;
                continue;
            }
            let id = block.get("tool_use_id").and_then(Value::as_str).unwrap_or_default();
            if role != "user" {
                problems
                    .push(format!("messages[{idx}]: tool_result for {id:?} in a {role} message"));
            }
            if seen_other_content {
                problems.push(format!(
                    "messages[{idx}]: tool_result for {id:?} comes after other content"
                ));
            }
            if !used.contains(id) {
                problems.push(format!(
                    "messages[{idx}]: tool_result for {id:?}, which no earlier tool_use has"
                ));
            } else if !answered.insert(id) {
                problems.push(format!("messages[{idx}]: second tool_result for {id:?}"));
            }
            results_here.insert(id);
        }
        let unanswered: Vec<&str> =
            awaiting.drain(..).filter(|id| !results_here.contains(id)).collect();
        if !unanswered.is_empty() {
            problems.push(format!(
                "messages[{idx}] ({role}) does not answer tool_use {unanswered:?} of the message before"
            ));
        }
        if role == "assistant" {
            for block in blocks.iter().filter(|block| is_type(block, "tool_use")) {
                let id = block.get("id").and_then(Value::as_str).unwrap_or_default();
                if !used.insert(id) {
                    problems.push(format!("messages[{idx}]: tool_use id {id:?} used twice"));
                }
                awaiting.push(id);
            }
        }
    }
    if !awaiting.is_empty() {
        problems.push(format!("the request ends before tool_result for {awaiting:?}"));
    }
    problems
}

fn is_type(block: &Value, kind: &str) -> bool {
    block.get("type").and_then(Value::as_str) == Some(kind)
}
