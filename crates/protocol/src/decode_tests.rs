//! Strict decoding of Ops, events and content messages: every field validated, unknown fields and
//! trailing bytes refused, the first bad field named.

use std::collections::BTreeSet;

use pretty_assertions::assert_eq;
use proptest::prelude::*;
use serde_json::Value;
use serde_json::json;

use super::*;
use crate::content::ExecutorCall;
use crate::engine::EventKind;
use crate::engine::OpKind;

fn input() -> Value {
    json!({"text": "fill the form", "attachmentIds": ["a1"], "attachedContext": [{
        "kind": "page", "label": "Checkout", "origin": "https://shop.example", "trust": "untrusted",
        "provenance": "page", "sourceRef": "https://shop.example/c", "tab": null,
        "content": {"type": "text", "text": "Total: 3"}, "approxTokens": 4}],
        "browserContext": {"capturedAtMs": 1, "defaultTab": {"tabId": 7, "windowId": 1,
        "url": "https://shop.example/c", "title": "Checkout"}, "referencedTabs": []}})
}

fn meta() -> Value {
    json!({"id": "t1", "title": "Hello", "createdAtMs": 1, "updatedAtMs": 2, "leafId": "n2",
        "revision": 3, "stats": {"turns": 1, "totalTokens": 10, "costUsd": 0.5},
        "scopeOrigins": ["https://a.example"], "preset": null, "parentThreadId": null,
        "folderId": null, "tags": ["x"], "pinned": false, "archived": false,
        "permissionPolicy": "auto"})
}

fn approval_request() -> Value {
    json!({"tool": "click", "label": "Click", "params": {"ref": "e3"},
        "targetOrigin": "https://a.example", "flags": ["sensitive_payload", "host_permission"],
        "preview": {"snapshotLine": "button \"Pay\" [e3]", "screenshotAttachmentId": null},
        "deadlineAtMs": 300000, "taint": [{"param": "url", "provenance": "page",
        "source": "https://evil.example"}]})
}

/// One sample of every Op kind.
fn sample_ops() -> Vec<Value> {
    vec![
        json!({"type": "initialize", "submissionId": "s", "protocol": "panelot/engine-v1",
            "schemaHash": "h", "clientId": "c", "subscribe": {"threadId": "t1"}}),
        json!({"type": "thread.create", "submissionId": "s", "preset": "p", "folderId": null}),
        json!({"type": "thread.list", "submissionId": "s", "includeArchived": true}),
        json!({"type": "thread.subscribe", "submissionId": "s", "threadId": "t1"}),
        json!({"type": "thread.update", "submissionId": "s", "threadId": "t1",
            "patch": {"title": "New", "pinned": true, "folderId": null, "preset": "p1"},
            "expectedRevision": 3}),
        json!({"type": "thread.delete", "submissionId": "s", "threadId": "t1"}),
        json!({"type": "thread.fork", "submissionId": "s", "threadId": "t1", "atNodeId": "n1"}),
        json!({"type": "thread.selectBranch", "submissionId": "s", "threadId": "t1", "nodeId": "n1"}),
        json!({"type": "turn.submit", "submissionId": "s", "threadId": "t1", "input": input(),
            "overrides": {"model": {"connectionId": "k", "modelId": "m"},
            "permissionPolicy": "untrusted", "enabledToolLevels": ["L0", "L1", "mcp"]}}),
        json!({"type": "turn.fork", "submissionId": "s", "threadId": "t1",
            "siblingOfNodeId": "n1", "input": {"text": "again"}, "overrides": null}),
        json!({"type": "turn.steer", "submissionId": "s", "threadId": "t1",
            "expectedTurnId": "u1", "input": {"text": "also this"}}),
        json!({"type": "turn.enqueue", "submissionId": "s", "threadId": "t1",
            "input": {"text": "later"}, "overrides": {"permissionPolicy": "always"}}),
        json!({"type": "turn.interrupt", "submissionId": "s", "threadId": "t1"}),
        json!({"type": "queue.update", "submissionId": "s", "threadId": "t1", "runId": "r1",
            "input": {"text": "edited"}, "overrides": null}),
        json!({"type": "queue.remove", "submissionId": "s", "threadId": "t1", "runId": "r1"}),
        json!({"type": "run.resume", "submissionId": "s", "threadId": "t1", "runId": "r1"}),
        json!({"type": "run.resolveUncertain", "submissionId": "s", "threadId": "t1",
            "runId": "r1", "resolution": "mark_done"}),
        json!({"type": "approval.response", "submissionId": "s", "approvalId": "a1",
            "decision": {"type": "decline", "note": "not now"}}),
        json!({"type": "interaction.response", "submissionId": "s", "interactionId": "i1",
            "response": {"type": "submit", "value": {"q1": ["yes", 2, null]}}}),
        json!({"type": "thread.loadEarlier", "submissionId": "s", "threadId": "t1",
            "beforeNodeId": "n40", "limit": 120}),
        json!({"type": "settings.get", "submissionId": "s"}),
        json!({"type": "settings.update", "submissionId": "s", "patch": {"defaultModel":
            {"connectionId": "k", "modelId": "m"}, "permissionPolicy": "auto",
            "turnTokenBudget": 50000, "language": "zh-CN"}}),
        json!({"type": "connection.save", "submissionId": "s", "connection": {"id": null,
            "name": "Local", "kind": "openai", "baseUrl": "http://127.0.0.1:11434/v1",
            "apiKeys": ["sk-1"], "enabled": true, "modelIds": ["llama3"],
            "customHeaders": [{"name": "X-Title", "value": "Panelot"}],
            "quirks": ["noSystemRole"], "prices": [{"modelId": "llama3", "input": 0.5,
            "output": 1.5, "cacheRead": null, "cacheWrite": null}]}}),
        json!({"type": "connection.delete", "submissionId": "s", "connectionId": "k"}),
        json!({"type": "connection.verify", "submissionId": "s", "connectionId": "k",
            "model": "llama3"}),
        json!({"type": "rule.add", "submissionId": "s", "rule": {"tool": "category:click",
            "origin": "*.example.com", "verdict": "ask"}}),
        json!({"type": "rule.delete", "submissionId": "s", "ruleId": "seed-deny-run-javascript"}),
        json!({"type": "preset.save", "submissionId": "s", "presetId": null, "preset": {
            "name": "Careful", "model": {"connectionId": "k", "modelId": "m"},
            "systemPrompt": "Answer in French.", "permissionPolicy": "always",
            "enabledToolLevels": ["L0", "builtin"], "params": {"temperature": 0.2,
            "maxTokens": 2000, "reasoningEffort": "high"}}}),
        json!({"type": "preset.delete", "submissionId": "s", "presetId": "p1"}),
        json!({"type": "memory.save", "submissionId": "s", "key": "favourite shop",
            "value": "Prefers the shop on Main Street.\nOpen till 6."}),
        json!({"type": "memory.delete", "submissionId": "s", "key": "favourite shop"}),
        json!({"type": "mcp.save", "submissionId": "s", "server": {"id": null, "name": "Docs",
            "url": "https://docs.example/mcp", "auth": "bearer", "bearerToken": "t",
            "oauthClientId": null, "customHeaders": [{"name": "X-Team", "value": "blue"}],
            "enabled": true, "connect": "lazy", "disabledTools": ["delete"], "timeoutMs": 30000}}),
        json!({"type": "mcp.delete", "submissionId": "s", "serverId": "docs"}),
        json!({"type": "mcp.connect", "submissionId": "s", "serverId": "docs"}),
        json!({"type": "mcp.list", "submissionId": "s", "serverId": null}),
        json!({"type": "mcp.fetch", "submissionId": "s", "serverId": "docs",
            "fetch": {"kind": "prompt", "name": "greet", "arguments": {"who": "Ada"}}}),
        json!({"type": "ping", "submissionId": "s"}),
        json!({"type": "attachment.put", "submissionId": "s", "threadId": "t1",
            "attachmentId": "att-1", "name": "notes.txt", "mime": "text/plain",
            "dataBase64": "aGVsbG8="}),
    ]
}

/// One sample of every event kind.
fn sample_events() -> Vec<Value> {
    let snapshot = json!({"meta": meta(), "items": [
        {"nodeId": "n1", "parentId": null, "turnId": "u1", "createdAtMs": 1,
         "branch": {"index": 1, "count": 2},
         "content": {"kind": "user_message", "input": {"text": "hi"}, "steered": false}},
        {"nodeId": "n2", "parentId": "n1", "turnId": "u1", "createdAtMs": 2,
         "branch": {"index": 1, "count": 1},
         "content": {"kind": "tool_call", "itemId": "i1", "toolName": "click", "label": "Click",
         "params": {"ref": "e1"}, "result": {"ok": true, "outcome": "done",
         "excerpt": "clicked", "target": {"tabId": 3, "url": "https://a.example/",
         "title": "A", "elements": [{"role": "link", "name": "Pricing", "password": false,
         "destination": "https://a.example/pricing"}]}, "details": null}}}],
        "activeTurn": {"turnId": "u2", "runId": "r2", "turnKind": "user", "steerable": true,
         "state": "streaming_model", "streamingItems": [{"itemId": "i9",
         "kind": "assistant_message", "meta": {}, "text": "par"}], "wasInterrupted": false},
        "pendingApprovals": [{"approvalId": "a1", "turnId": "u2", "itemId": "i4",
         "request": approval_request()}],
        "pendingInteractions": [{"interactionId": "q1", "turnId": "u2", "request":
         {"type": "ask_user", "questions": [{"id": "x", "question": "Which?", "options": [
         {"value": "a", "label": "A", "description": null}]}]}}],
        "queuedRuns": [{"runId": "r3", "input": {"text": "next"}, "overrides": null,
         "revision": 1}],
        "recoverableRuns": [{"runId": "r0", "state": "paused_uncertain", "reason": "restart",
         "toolName": "click", "toolParams": {"ref": "e1"}, "options": ["retry", "mark_done", "fail"]}],
        "hasEarlier": true});
    let stream = json!({"threadId": "t1", "epoch": 2, "sequence": 9});
    vec![
        json!({"type": "initialized", "submissionId": "s", "protocol": "panelot/engine-v1",
            "schemaHash": "h", "snapshot": snapshot}),
        json!({"type": "fatal.reload_required", "submissionId": "", "protocol": "old",
            "schemaHash": "h", "message": "reload"}),
        json!({"type": "command.ack", "submissionId": "s", "threadId": "t1", "runId": null,
            "revision": 4}),
        json!({"type": "command.rejected", "submissionId": "s", "code": "queue_full",
            "message": "queue is full"}),
        json!({"type": "pong", "submissionId": "s"}),
        json!({"type": "error", "submissionId": null, "threadId": "t1", "code": "provider_error",
            "message": "rate limited", "retryable": true, "errorKind": "rate_limit",
            "providerDetails": {"status": 429, "requestId": "req", "reason": "quota_exceeded",
            "upstreamCode": null, "upstreamMessage": "slow down"}}),
        json!({"type": "thread.created", "submissionId": "s", "thread": meta()}),
        json!({"type": "thread.forked", "submissionId": null, "thread": meta(),
            "fromThreadId": "t0", "atNodeId": "n5"}),
        json!({"type": "thread.snapshot", "submissionId": "s", "snapshot": {"meta": meta(),
            "items": [], "activeTurn": null, "pendingApprovals": [], "pendingInteractions": [],
            "queuedRuns": [], "recoverableRuns": [], "hasEarlier": false}, "stream": stream}),
        json!({"type": "thread.earlier", "submissionId": "s", "threadId": "t1", "items": [
            {"nodeId": "n1", "parentId": null, "turnId": "u1", "createdAtMs": 1,
             "branch": {"index": 1, "count": 1},
             "content": {"kind": "user_message", "input": {"text": "hi"}, "steered": false}}],
            "hasEarlier": false}),
        json!({"type": "thread.listed", "submissionId": "s", "threads": [{"meta": meta(),
            "running": true, "pendingApprovals": 1, "pendingInteractions": 0}]}),
        json!({"type": "turn.start", "threadId": "t1", "turnId": "u1", "runId": "r1",
            "turnKind": "user", "steerable": true, "stream": stream}),
        json!({"type": "turn.complete", "threadId": "t1", "turnId": "u1", "stopReason": "max_tokens"}),
        json!({"type": "turn.retrying", "threadId": "t1", "turnId": "u1", "attempt": 2,
            "waitMs": 2000, "message": "Cloud is overloaded (HTTP 529); trying again"}),
        json!({"type": "token.usage", "threadId": "t1", "turnId": "u1", "usage": {"input": 100,
            "output": 20, "cacheRead": 80, "cacheWrite": null}, "costUsd": 0.001}),
        json!({"type": "item.start", "threadId": "t1", "turnId": "u1", "itemId": "i1",
            "kind": "tool_call", "meta": {"toolName": "click", "label": "Click",
            "paramsSummary": "e1", "level": "L1"}}),
        json!({"type": "item.delta", "threadId": "t1", "itemId": "i1", "delta": {"text": "Hel",
            "reasoning": null, "toolProgress": {"pct": 50}, "toolParams": {"ref": "e1"}}}),
        json!({"type": "item.complete", "threadId": "t1", "itemId": "i1", "nodeId": "n3",
            "result": {"ok": false, "outcome": "declined", "excerpt": null, "target": null,
            "details": {"code": "stale_ref"}}}),
        json!({"type": "approval.request", "threadId": "t1", "turnId": "u1", "approvalId": "a1",
            "itemId": "i1", "request": approval_request()}),
        json!({"type": "approval.resolved", "threadId": "t1", "approvalId": "a1",
            "outcome": "accept"}),
        json!({"type": "interaction.request", "threadId": "t1", "turnId": "u1",
            "interactionId": "q1", "itemId": null, "request": {"type": "watch_page", "tabId": 3,
            "condition": "text_gone", "value": "Loading", "deadlineAtMs": 5}}),
        json!({"type": "interaction.resolved", "threadId": "t1", "interactionId": "q1"}),
        json!({"type": "thread.deleted", "threadId": "t1"}),
        json!({"type": "thread.updated", "threadId": "t1", "revision": 5,
            "patch": {"title": "Renamed"}}),
        json!({"type": "queue.updated", "threadId": "t1", "pending": 1, "runs": [{"runId": "r3",
            "input": {"text": "next"}, "overrides": null, "revision": 2}]}),
        json!({"type": "run.recovery_required", "threadId": "t1", "run": {"runId": "r1",
            "state": "interrupted", "reason": "stream cut", "toolName": null, "toolParams": null,
            "options": ["continue"]}}),
        json!({"type": "tabs.updated", "threadId": "t1", "tabs": [{"tabId": 4, "url": "https://a",
            "title": "A", "role": "created"}], "defaultTabId": 4}),
        json!({"type": "activity.updated", "running": 1, "pendingApprovals": 1,
            "pendingInteractions": 0, "threads": [{"threadId": "t1", "running": true,
            "pendingApprovals": 1, "pendingInteractions": 0}]}),
        json!({"type": "view.open", "threadId": "t1", "kind": "url",
            "target": "https://docs.example/guide", "title": "Guide"}),
        json!({"type": "view.open", "threadId": "t1", "kind": "artifact",
            "target": "report.md", "title": "Report"}),
        json!({"type": "settings.state", "submissionId": "s", "settings": {"agentOpenTools": true,
            "connections": [
            {"id": "k", "name": "Local", "kind": "anthropic", "baseUrl": "https://a.example",
            "keyCount": 2, "enabled": true, "modelIds": [], "headerNames": ["x-title"],
            "quirks": [], "prices": [{"modelId": "claude-sonnet-4", "input": 3.0,
            "output": 15.0, "cacheRead": 0.3, "cacheWrite": null}]}], "defaultModel": null,
            "permissionPolicy": "untrusted", "turnTokenBudget": null,
            "quirkNames": ["noSystemRole"], "rules": [{"id": "r1", "tool": "run_javascript",
            "origin": "*", "verdict": "deny", "source": "user", "createdAtMs": 0}],
            "presets": [{"id": "p1", "preset": {"name": "Fast", "model": {"connectionId": "k",
            "modelId": "m"}, "systemPrompt": null, "permissionPolicy": null,
            "enabledToolLevels": null, "params": {}}}], "memory": [{"key": "shop",
            "value": "Main Street", "updatedAtMs": 5}], "language": "system",
            "templates": [{"id": "ollama", "name": "Ollama", "kind": "openai",
            "baseUrl": "http://127.0.0.1:11434/v1", "quirks": ["toolCallsOnStop"],
            "keyRequired": false}], "mcpServers": [{"id": "docs", "name": "Docs",
            "url": "https://docs.example/mcp", "auth": "oauth", "hasBearerToken": false,
            "oauthClientId": null, "headerNames": [], "enabled": true, "connect": "startup",
            "disabledTools": [], "timeoutMs": 60000, "status": {"state": "needs_authorization",
            "reason": "401: sign in", "origins": ["https://docs.example",
            "https://auth.example"]}, "tools": [], "recentCalls": [], "offeredTokens": 0}]}}),
        json!({"type": "connection.verified", "submissionId": "s", "connectionId": "k",
            "report": {"reachable": true, "keyValid": false, "streaming": false,
            "toolUse": false, "models": null, "model": null, "failure": "invalid_key",
            "diagnosis": "The key was rejected."}}),
        json!({"type": "mcp.listed", "submissionId": "s",
            "prompts": [{"serverId": "docs", "name": "greet", "title": "Greet",
                "description": null, "arguments": [{"name": "who", "description": null,
                "required": true}]}],
            "resources": [{"serverId": "docs", "uri": "mem://readme", "name": "readme",
                "title": "readme", "description": null, "mimeType": "text/plain"}],
            "failures": [{"serverId": "down", "reason": "could not reach it"}]}),
        json!({"type": "mcp.fetched", "submissionId": "s", "block": {"kind": "mcp_prompt",
            "label": "/docs:greet", "origin": "mcp:docs", "trust": "untrusted",
            "provenance": "mcp", "sourceRef": "mcp://docs/prompts/greet", "tab": null,
            "content": {"type": "text", "text": "Say hello"}, "approxTokens": 2}}),
    ]
}

/// Drops `null` members so that an explicit `null` and an absent optional field compare equal.
fn without_nulls(value: &Value) -> Value {
    match value {
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), without_nulls(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_nulls).collect()),
        other => other.clone(),
    }
}

fn normalize(value: &Value) -> Value {
    // Empty default lists are filled in on decode; drop them too.
    match without_nulls(value) {
        Value::Object(fields) => Value::Object(
            fields
                .into_iter()
                .filter(|(_, v)| !matches!(v, Value::Array(a) if a.is_empty()))
                .map(|(k, v)| (k, normalize(&v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(normalize).collect()),
        other => other,
    }
}

#[test]
fn every_op_kind_round_trips() {
    let samples = sample_ops();
    let kinds: BTreeSet<OpKind> =
        samples.iter().map(|v| decode_op(v.clone()).unwrap().kind()).collect();
    assert_eq!(kinds, OpKind::ALL.iter().copied().collect(), "a sample per Op kind");
    for sample in samples {
        let op = decode_op(sample.clone()).unwrap();
        let encoded = serde_json::to_value(&op).unwrap();
        assert_eq!(normalize(&encoded), normalize(&sample));
        assert_eq!(decode_op(encoded).unwrap(), op);
    }
}

#[test]
fn a_patch_tells_an_absent_field_from_a_null_one() {
    let patch = |fields: Value| {
        let op = json!({"type": "thread.update", "submissionId": "s", "threadId": "t1",
            "patch": fields, "expectedRevision": null});
        match decode_op(op).unwrap() {
            Op::ThreadUpdate(p) => p.patch,
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(patch(json!({})).preset, None, "absent: left as it is");
    assert_eq!(patch(json!({"preset": null})).preset, Some(None), "null: cleared");
    let set = patch(json!({"preset": "p1", "folderId": null}));
    assert_eq!(set.preset.unwrap().unwrap().as_str(), "p1");
    assert_eq!(set.folder_id, Some(None));
    // Encoding keeps the difference: an absent field is not written as null.
    let untouched = serde_json::to_value(patch(json!({"title": "T"}))).unwrap();
    assert!(untouched.get("preset").is_none() && untouched.get("folderId").is_none());
}

#[test]
fn every_event_kind_round_trips() {
    let samples = sample_events();
    let kinds: BTreeSet<EventKind> =
        samples.iter().map(|v| decode_event(v.clone()).unwrap().event.kind()).collect();
    assert_eq!(kinds, EventKind::ALL.iter().copied().collect(), "a sample per event kind");
    for sample in samples {
        let frame = decode_event(sample.clone()).unwrap();
        let encoded = frame.to_value().unwrap();
        assert_eq!(normalize(&encoded), normalize(&sample));
        let text = frame.to_json().unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&text).unwrap(),
            encoded,
            "text and value encodings agree"
        );
        assert_eq!(decode_event(encoded).unwrap(), frame);
    }
}

#[test]
fn wire_names_are_unique_and_round_trip() {
    for kind in OpKind::ALL {
        assert_eq!(OpKind::from_wire_name(kind.wire_name()), Some(*kind));
    }
    for kind in EventKind::ALL {
        assert_eq!(EventKind::from_wire_name(kind.wire_name()), Some(*kind));
    }
}

#[test]
fn each_op_rejects_an_unknown_field_by_name() {
    for mut sample in sample_ops() {
        sample["bogusField"] = json!(1);
        let err = decode_op(sample.clone()).unwrap_err();
        assert!(err.to_string().contains("bogusField"), "{sample}: {err}");
    }
}

#[track_caller]
fn check_field_error(value: Value, want_path: &str, want_in_message: &str) {
    match decode_op(value) {
        Err(DecodeError::Field { path, message, .. }) => {
            assert_eq!(path, want_path, "{message}");
            assert!(message.contains(want_in_message), "{message}");
        }
        other => panic!("expected a field error, got {other:?}"),
    }
}

#[test]
fn bad_fields_are_named() {
    check_field_error(
        json!({"type": "thread.delete", "submissionId": "s"}),
        ".",
        "missing field `threadId`",
    );
    check_field_error(
        json!({"type": "thread.delete", "submissionId": "s", "threadId": 5}),
        "threadId",
        "invalid type",
    );
    check_field_error(
        json!({"type": "turn.submit", "submissionId": "s", "threadId": "t",
            "input": {"text": "x", "browserContext": {"capturedAtMs": -1, "referencedTabs": []}}}),
        "input.browserContext.capturedAtMs",
        "invalid value",
    );
    check_field_error(
        json!({"type": "run.resolveUncertain", "submissionId": "s", "threadId": "t",
            "runId": "r", "resolution": "maybe"}),
        "resolution",
        "unknown variant",
    );
    check_field_error(
        json!({"type": "thread.delete", "submissionId": "s", "threadId": "a b"}),
        "threadId",
        "' '",
    );
}

#[test]
fn memory_notes_are_checked_at_the_boundary() {
    let save = |key: Value, value: Value| json!({"type": "memory.save", "submissionId": "s", "key": key, "value": value});
    check_field_error(save(json!("   "), json!("x")), "key", "needs a key");
    check_field_error(save(json!("k".repeat(101)), json!("x")), "key", "at most 100 characters");
    check_field_error(save(json!("k"), json!("")), "value", "needs some text");
    check_field_error(save(json!("k"), json!(" \n ")), "value", "needs some text");
    check_field_error(save(json!("k"), json!("v".repeat(4_001))), "value", "at most 4000");
    check_field_error(
        json!({"type": "memory.delete", "submissionId": "s", "key": ""}),
        "key",
        "needs a key",
    );
    // The limits count characters, not bytes, and the key is kept trimmed.
    let longest = save(json!(format!("  {}  ", "键".repeat(100))), json!("字".repeat(4_000)));
    match decode_op(longest).unwrap() {
        Op::MemorySave(p) => {
            assert_eq!(p.key, "键".repeat(100));
            assert_eq!(p.value.chars().count(), 4_000);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn bad_event_fields_are_refused_without_a_traced_path() {
    let bad = json!({"type": "thread.updated", "threadId": "t1", "revision": "five", "patch": {}});
    match decode_event(bad) {
        Err(DecodeError::Field { kind, path, message }) => {
            assert_eq!((kind.as_str(), path.as_str()), ("thread.updated", "?"));
            assert!(message.contains("invalid type"), "{message}");
        }
        other => panic!("expected a field error, got {other:?}"),
    }
}

/// Tagged enums (`internally_tagged!`) inside Ops and events: a bad variant or field is refused
/// and, in an Op, named by the path of the enum.
#[test]
fn tagged_contents_refuse_bad_variants_and_fields() {
    let mut op = sample_ops().remove(8);
    op["input"]["attachedContext"][0]["content"] = json!({"type": "text", "text": "a", "x": 1});
    check_field_error(op.clone(), "input.attachedContext[0].content", "unknown field `x`");
    op["input"]["attachedContext"][0]["content"] = json!({"type": "video"});
    check_field_error(op.clone(), "input.attachedContext[0].content", "unknown variant `video`");
    op["input"]["attachedContext"][0]["content"] = json!({"text": "a"});
    check_field_error(op.clone(), "input.attachedContext[0].content", "missing field `type`");
    op["input"]["attachedContext"][0]["content"] = json!({"type": "empty", "x": 1});
    check_field_error(op, "input.attachedContext[0].content", "unknown field `x`");
    let decline = json!({"type": "approval.response", "submissionId": "s", "approvalId": "a1",
        "decision": {"type": "decline", "note": 5}});
    check_field_error(decline, "decision", "invalid type: integer `5`");
    let response = json!({"type": "interaction.response", "submissionId": "s",
        "interactionId": "i1", "response": ["submit", 1]});
    check_field_error(response, "response", "invalid type: sequence");

    let item = |content: Value| {
        json!({"type": "thread.earlier", "submissionId": "s", "threadId": "t1", "items": [
            {"nodeId": "n1", "parentId": null, "turnId": "u1", "createdAtMs": 1,
             "branch": {"index": 1, "count": 1}, "content": content}], "hasEarlier": false})
    };
    let good = json!({"kind": "reasoning", "text": "why"});
    assert!(decode_event(item(good)).is_ok());
    for (content, want) in [
        (json!({"kind": "reasoning", "text": "why", "extra": 1}), "unknown field `extra`"),
        (json!({"kind": "dream", "text": "why"}), "unknown variant `dream`"),
        (json!({"kind": "reasoning"}), "missing field `text`"),
        (json!({"kind": null, "text": "why"}), "invalid type: null"),
    ] {
        match decode_event(item(content.clone())) {
            Err(DecodeError::Field { message, .. }) => {
                assert!(message.contains(want), "{content}: {message}");
            }
            other => panic!("{content}: expected a field error, got {other:?}"),
        }
    }
}

#[test]
fn unknown_types_are_reported_as_unknown() {
    assert_eq!(
        decode_event(json!({"type": "future.event", "x": 1})).unwrap_err(),
        DecodeError::UnknownType("future.event".into())
    );
    assert_eq!(
        decode_op(json!({"type": "thread.explode", "submissionId": "s"})).unwrap_err(),
        DecodeError::UnknownType("thread.explode".into())
    );
    assert_eq!(decode_op(json!([1])).unwrap_err(), DecodeError::NotAnObject);
    assert_eq!(decode_op(json!({"submissionId": "s"})).unwrap_err(), DecodeError::MissingType);
}

#[test]
fn a_malformed_stream_cursor_is_named() {
    let err = decode_event(json!({"type": "thread.deleted", "threadId": "t",
        "stream": {"threadId": "t", "epoch": "one", "sequence": 1}}))
    .unwrap_err();
    assert!(matches!(&err, DecodeError::Field { path, .. } if path == "stream.epoch"), "{err}");
}

#[test]
fn interaction_values_have_their_own_budget() {
    let mut deep = json!("leaf");
    for _ in 0..40 {
        deep = json!([deep]);
    }
    let err = decode_op(json!({"type": "interaction.response", "submissionId": "s",
        "interactionId": "i", "response": {"type": "submit", "value": deep}}))
    .unwrap_err();
    assert!(matches!(&err, DecodeError::Field { path, .. } if path == "response.value"), "{err}");
}

#[test]
fn text_over_the_raw_budget_is_refused_before_parsing() {
    let huge = " ".repeat((Budget::OP.max_raw_bytes + 1) as usize);
    assert!(matches!(decode_op_str(&huge), Err(DecodeError::Budget(_))));
    assert!(matches!(decode_op_str("{\"type\":"), Err(DecodeError::Syntax(_))));
}

fn content_request(call: Value) -> Value {
    json!({"protocol": "panelot/content-v1", "schemaHash": "h", "requestId": "q1",
        "deadlineAtMs": 1000, "op": {"kind": "execute", "call": call}})
}

#[test]
fn content_requests_are_checked_for_ranges() {
    let ok = decode_content_request(content_request(json!({"tool": "batch_actions", "params": {
        "actions": [{"kind": "type", "params": {"ref": "e1", "text": "Ada"}},
                    {"kind": "click", "params": {"ref": "e2", "button": null, "doubleClick": null}}]}})))
    .unwrap();
    let crate::content::ContentOp::Execute { call: ExecutorCall::BatchActions(batch) } = ok.op
    else {
        panic!("wrong op");
    };
    assert_eq!(batch.actions.len(), 2);

    let seven = vec![json!({"kind": "click", "params": {"ref": "e1"}}); 7];
    let err = decode_content_request(content_request(
        json!({"tool": "batch_actions", "params": {"actions": seven}}),
    ))
    .unwrap_err();
    assert!(
        matches!(&err, DecodeError::Field { path, .. } if path == "op.call.params.actions"),
        "{err}"
    );

    let err = decode_content_request(content_request(
        json!({"tool": "wait_for", "params": {"text": "a", "timeMs": 5}}),
    ))
    .unwrap_err();
    assert!(err.to_string().contains("exactly one"), "{err}");

    let err = decode_content_request(content_request(
        json!({"tool": "read_page", "params": {"maxTokens": 6001}}),
    ))
    .unwrap_err();
    assert!(err.to_string().contains("6000"), "{err}");
}

#[test]
fn content_responses_round_trip_failures() {
    let value = json!({"protocol": "panelot/content-v1", "requestId": "q1", "outcome": {
        "status": "failed", "failure": {"code": "stale_ref", "message": "snapshot again",
        "phase": "resolve", "retryable": true, "details": null}}});
    let response = decode_content_response(value.clone()).unwrap();
    assert_eq!(normalize(&serde_json::to_value(&response).unwrap()), normalize(&value));
}

// Arbitrary JSON whose keys and `type` values are drawn from the real vocabulary, so that the
// generator reaches deep into the decoders instead of stopping at "unknown type".
fn arb_protocolish_json() -> impl Strategy<Value = Value> {
    let mut words: Vec<String> = OpKind::ALL.iter().map(|k| k.wire_name().to_owned()).collect();
    words.extend(EventKind::ALL.iter().map(|k| k.wire_name().to_owned()));
    words.extend(
        ["s", "t1", "text", "submit", "accept", "decline", "page", "user", "L1", "e1", "click"]
            .map(String::from),
    );
    let keys = vec![
        "type",
        "submissionId",
        "threadId",
        "input",
        "text",
        "overrides",
        "decision",
        "response",
        "value",
        "runId",
        "nodeId",
        "clientId",
        "protocol",
        "schemaHash",
        "stream",
        "epoch",
        "sequence",
        "kind",
        "meta",
        "delta",
        "dataBase64",
        "op",
        "call",
        "tool",
        "params",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|n| json!(n)),
        prop::sample::select(words).prop_map(Value::String),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 64, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map(prop::sample::select(keys.clone()), inner, 0..6).prop_map(
                |m| Value::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
            ),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3_000))]

    #[test]
    fn decoders_never_panic(value in arb_protocolish_json()) {
        let _ = decode_op(value.clone());
        let _ = decode_event(value.clone());
        let _ = decode_content_request(value.clone());
        let _ = decode_content_response(value.clone());
        let _ = probe_initialize(&value);
        let text = value.to_string();
        let _ = decode_op_str(&text);
    }

    #[test]
    fn decoders_reject_every_over_budget_value(depth in 65usize..90, width in 8_193usize..8_300) {
        let mut deep = json!({"type": "ping", "submissionId": "s"});
        for _ in 0..depth {
            deep = json!({"type": "ping", "submissionId": "s", "x": deep});
        }
        prop_assert!(matches!(decode_op(deep), Err(DecodeError::Budget(_))));
        let wide = json!({"type": "ping", "submissionId": "s", "x": vec![0; width]});
        prop_assert!(matches!(decode_op(wide), Err(DecodeError::Budget(_))));
    }

    #[test]
    fn valid_ops_survive_any_key_order(idx in 0usize..20, seed in any::<u64>()) {
        let sample = &sample_ops()[idx];
        let Value::Object(fields) = sample else { unreachable!() };
        let mut entries: Vec<(String, Value)> = fields.clone().into_iter().collect();
        // A deterministic shuffle from the seed.
        let n = entries.len();
        for i in (1..n).rev() {
            let j = ((seed.rotate_left(i as u32) ^ (i as u64 * 0x9e37)) % (i as u64 + 1)) as usize;
            entries.swap(i, j);
        }
        let text = format!("{{{}}}", entries.iter()
            .map(|(k, v)| format!("{}:{}", Value::String(k.clone()), v))
            .collect::<Vec<_>>().join(","));
        prop_assert_eq!(decode_op_str(&text).unwrap(), decode_op(sample.clone()).unwrap());
    }
}
