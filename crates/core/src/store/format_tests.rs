//! Tests of the storage format: version-0 records captured from earlier builds decode to the
//! same records (also with the fields old builds left out), every record survives encode and
//! decode, version 1 is version 0's JSON plus `"v"`, and records of unknown versions, bad shapes
//! or bad ids are refused as corrupt naming the record.

use pretty_assertions::assert_eq;
use proptest::prelude::*;
use serde_json::Value;
use serde_json::json;

use super::*;
use crate::store::NodeBody;
use crate::store::NodeRecord;
use crate::store::StoreError;
use crate::store::conformance::samples;
use crate::store::conformance::text_node;
use crate::taint::TaintLedger;
use crate::target::RunRoute;

/// Decodes every line of a fixture and compares the list with the builders' records.
#[track_caller]
fn check_lines<T: PartialEq + std::fmt::Debug>(
    fixture: &str,
    decode: fn(&str) -> Result<T, StoreError>,
    expected: Vec<T>,
) {
    let read: Vec<T> = fixture.lines().map(|line| decode(line).unwrap()).collect();
    assert_eq!(read, expected);
}

#[test]
fn version_0_runs_decode_to_the_same_runs() {
    check_lines(samples::V0_RUNS, decode_run, samples::runs());
}

#[test]
fn version_0_nodes_decode_to_the_same_nodes() {
    check_lines(samples::V0_NODES, decode_node, samples::nodes());
}

#[test]
fn version_0_thread_metas_decode_to_the_same_metas() {
    check_lines(samples::V0_THREADS, decode_thread, samples::threads());
}

#[test]
fn version_0_receipts_decode_to_the_same_receipts() {
    check_lines(samples::V0_RECEIPTS, decode_receipt, samples::receipts());
}

/// Removes `path` (object keys, `*` for every item of an array) from a JSON value.
fn remove(value: &mut Value, path: &[&str]) {
    match (path, value) {
        ([last], Value::Object(map)) => {
            map.remove(*last);
        }
        (["*", rest @ ..], Value::Array(items)) => {
            items.iter_mut().for_each(|item| remove(item, rest));
        }
        ([key, rest @ ..], Value::Object(map)) => {
            if let Some(inner) = map.get_mut(*key) {
                remove(inner, rest);
            }
        }
        (_, _) => {}
    }
}

/// The first fixture line, with the fields that builds before them did not write taken out.
fn older_v0(fixture: &str, paths: &[&[&str]]) -> String {
    let mut value: Value = serde_json::from_str(fixture.lines().next().unwrap()).unwrap();
    for path in paths {
        remove(&mut value, path);
    }
    value.to_string()
}

#[test]
fn a_version_0_run_of_an_older_build_gets_the_defaults_of_the_fields_it_lacks() {
    let text = older_v0(
        samples::V0_RUNS,
        &[
            &["preset"],
            &["interaction"],
            &["taint"],
            &["route"],
            &["tools", "*", "approved"],
            &["tools", "*", "hostPermissionAsked"],
            &["tools", "*", "target"],
            &["input", "attachmentIds"],
            &["input", "attachedContext"],
            &["input", "browserContext", "referencedTabs"],
            &["steers", "*", "input", "attachmentIds"],
            &["steers", "*", "input", "attachedContext"],
        ],
    );
    let mut expected = samples::full_run();
    expected.preset = None;
    expected.interaction = None;
    expected.taint = TaintLedger::new();
    expected.route = RunRoute::default();
    for tool in &mut expected.tools {
        tool.approved = false;
        tool.host_permission_asked = false;
        tool.target = None;
    }
    expected.input.attachment_ids.clear();
    expected.input.attached_context.clear();
    if let Some(context) = &mut expected.input.browser_context {
        context.referenced_tabs.clear();
    }
    assert_eq!(decode_run(&text).unwrap(), expected);
}

#[test]
fn a_version_0_user_message_of_an_older_build_gets_the_defaults_of_the_fields_it_lacks() {
    // The fourth node is the user message with every field set.
    let line = samples::V0_NODES.lines().nth(3).unwrap();
    let mut value: Value = serde_json::from_str(line).unwrap();
    for field in ["attachmentIds", "attachedContext"] {
        remove(&mut value, &["body", "input", field]);
    }
    remove(&mut value, &["body", "input", "browserContext", "referencedTabs"]);
    let mut expected = samples::nodes().swap_remove(3);
    let NodeBody::UserMessage { input, .. } = &mut expected.body else {
        panic!("the fourth sample node is a user message: {expected:?}");
    };
    input.attachment_ids.clear();
    input.attached_context.clear();
    input.browser_context.as_mut().unwrap().referenced_tabs.clear();
    assert_eq!(decode_node(&value.to_string()).unwrap(), expected);
}

/// Drops `null` members of objects, recursively: version 0 left some unset optional fields
/// out where version 1 writes `null`.
fn without_nulls(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, without_nulls(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(without_nulls).collect()),
        other => other,
    }
}

/// Checks that `encode` writes `"v": 1` first, that its text is the version-0 line plus `"v"`,
/// and that it decodes to the record.
#[track_caller]
fn check_v1<T: PartialEq + std::fmt::Debug>(
    fixture: &str,
    records: Vec<T>,
    encode: fn(&T) -> Result<String, StoreError>,
    decode: fn(&str) -> Result<T, StoreError>,
) {
    assert_eq!(fixture.lines().count(), records.len());
    for (line, record) in fixture.lines().zip(records) {
        let text = encode(&record).unwrap();
        assert!(text.starts_with(r#"{"v":1,"#), "{text}");
        let mut v1: Value = serde_json::from_str(&text).unwrap();
        remove(&mut v1, &["v"]);
        let v0: Value = serde_json::from_str(line).unwrap();
        assert_eq!(without_nulls(v1), without_nulls(v0));
        assert_eq!(decode(&text).unwrap(), record);
    }
}

#[test]
fn version_1_is_version_0_with_its_version_and_round_trips() {
    check_v1(samples::V0_RUNS, samples::runs(), encode_run, decode_run);
    check_v1(samples::V0_NODES, samples::nodes(), encode_node, decode_node);
    check_v1(samples::V0_THREADS, samples::threads(), encode_thread, decode_thread);
    check_v1(samples::V0_RECEIPTS, samples::receipts(), encode_receipt, decode_receipt);
}

#[test]
fn current_records_round_trip_through_the_conformance_builders() {
    let run =
        crate::store::conformance::run("r", "t", 3, panelot_protocol::engine::RunState::Queued);
    assert_eq!(decode_run(&encode_run(&run).unwrap()).unwrap(), run);
    let node = text_node("t", 4, Some(3));
    assert_eq!(decode_node(&encode_node(&node).unwrap()).unwrap(), node);
    let meta = crate::store::conformance::meta("t", 9);
    assert_eq!(decode_thread(&encode_thread(&meta).unwrap()).unwrap(), meta);
}

#[test]
fn an_escalated_call_keeps_what_its_first_attempt_said() {
    let mut run = samples::full_run();
    run.tools[1].escalated_from = Some("l1_not_effective: the field did not take the text".into());
    let text = encode_run(&run).unwrap();
    assert!(text.contains(r#""escalatedFrom":"l1_not_effective: "#), "{text}");
    assert_eq!(decode_run(&text).unwrap(), run);
}

/// A run whose model does not read images keeps saying so across a restart; one that does is
/// stored without the field, as runs were before it.
#[test]
fn a_blind_models_run_is_stored_as_such() {
    let mut run = samples::full_run();
    assert!(!encode_run(&run).unwrap().contains("blind"));
    run.counters.blind = true;
    let text = encode_run(&run).unwrap();
    assert!(text.contains(r#""blind":true"#), "{text}");
    assert_eq!(decode_run(&text).unwrap(), run);
}

/// A run the user paused from the page is stored with its state's own text and the pause it
/// was asked for; a run never paused is stored without the field.
#[test]
fn a_run_paused_by_the_user_round_trips() {
    use panelot_protocol::engine::RunState;
    let mut run = crate::store::conformance::run("r", "t", 3, RunState::ExecutingTool);
    assert!(!encode_run(&run).unwrap().contains("pause"));
    run.pause = Some("You took over in \u{201c}Shop\u{201d}.".into());
    let text = encode_run(&run).unwrap();
    let stored: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(stored["pause"], json!("You took over in \u{201c}Shop\u{201d}."));
    assert_eq!(decode_run(&text).unwrap(), run);
    run.state = RunState::PausedByUser;
    run.pause = None;
    let text = encode_run(&run).unwrap();
    let stored: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(stored["state"], json!("paused_by_user"));
    assert_eq!(decode_run(&text).unwrap(), run);
}

#[test]
fn a_turn_error_is_stored_with_its_own_texts_and_round_trips() {
    let node = NodeRecord {
        body: NodeBody::TurnError { error: crate::store::conformance::turn_error() },
        ..text_node("t", 4, Some(3))
    };
    let text = encode_node(&node).unwrap();
    let stored: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        stored["body"],
        json!({"type": "turn_error", "error": {
            "code": "provider_error",
            "message": "Work (api.example.test) refused the key: HTTP 401. Check the key.",
            "retryable": false, "errorKind": "auth",
            "providerDetails": {"status": 401, "requestId": "req_1", "reason": "invalid_key",
                "upstreamCode": "invalid_api_key", "upstreamMessage": "Incorrect API key provided"}
        }})
    );
    assert_eq!(decode_node(&text).unwrap(), node);
}

#[test]
fn a_tool_result_keeps_its_outcome_and_where_it_acted() {
    use panelot_protocol::engine::ApprovalElement;
    use panelot_protocol::engine::ApprovalTarget;
    use panelot_protocol::engine::CallOutcome;
    let result = |ok, outcome, target| NodeRecord {
        body: NodeBody::ToolResult {
            item_id: panelot_protocol::ItemId::new("i1").unwrap(),
            call_id: "c1".into(),
            ok,
            content_for_model: String::new(),
            details: None,
            engine_note: Some("declined".into()),
            source: None,
            outcome,
            target,
        },
        ..text_node("t", 4, Some(3))
    };
    let target = ApprovalTarget {
        tab_id: 7,
        url: "https://shop.test/login".into(),
        title: "Log in".into(),
        elements: vec![ApprovalElement {
            role: "textbox".into(),
            name: "Password".into(),
            password: true,
            destination: None,
        }],
    };
    let declined = result(false, CallOutcome::Declined, Some(target));
    let text = encode_node(&declined).unwrap();
    let stored: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(stored["body"]["outcome"], json!("declined"));
    assert_eq!(stored["body"]["target"]["elements"][0]["password"], json!(true));
    assert_eq!(decode_node(&text).unwrap(), declined);
    for outcome in [CallOutcome::NotRun, CallOutcome::Denied, CallOutcome::Unknown] {
        let node = result(false, outcome, None);
        assert_eq!(decode_node(&encode_node(&node).unwrap()).unwrap(), node);
    }
    // What `ok` says is not written again, and a record without it reads as `ok` says.
    let done = result(true, CallOutcome::Done, None);
    let text = encode_node(&done).unwrap();
    assert!(!text.contains("outcome"), "{text}");
    assert_eq!(decode_node(&text).unwrap(), done);
    let failed = result(false, CallOutcome::Failed, None);
    assert_eq!(decode_node(&encode_node(&failed).unwrap()).unwrap(), failed);
}

/// Decodes `text` as a run and returns the corrupt-record message.
#[track_caller]
fn run_refused(text: &str) -> String {
    match decode_run(text) {
        Err(StoreError::Corrupt(message)) => {
            assert!(message.starts_with("run record: "), "{message}");
            message
        }
        other => panic!("expected a corrupt record, got {other:?}"),
    }
}

fn full_run_json() -> Value {
    serde_json::from_str(&encode_run(&samples::full_run()).unwrap()).unwrap()
}

#[test]
fn a_record_of_a_newer_version_is_refused() {
    let mut run = full_run_json();
    run["v"] = json!(2);
    let message = run_refused(&run.to_string());
    assert!(message.contains("version 2 is newer than this build's 1"), "{message}");
}

#[test]
fn a_version_that_is_not_a_number_is_refused() {
    let mut run = full_run_json();
    run["v"] = json!("1");
    assert!(run_refused(&run.to_string()).contains("not a number"));
}

#[test]
fn a_version_1_record_gets_no_defaults() {
    // Only version 0 may lack the fields that once had defaults.
    let mut run = full_run_json();
    remove(&mut run, &["taint"]);
    assert!(run_refused(&run.to_string()).contains("missing field `taint`"));
}

#[test]
fn a_version_1_record_with_an_unknown_field_is_refused() {
    let mut run = full_run_json();
    run["extra"] = json!(true);
    assert!(run_refused(&run.to_string()).contains("unknown field `extra`"));
}

#[test]
fn an_unknown_enum_text_is_refused() {
    let mut run = full_run_json();
    run["state"] = json!("sleeping");
    assert!(run_refused(&run.to_string()).contains("unknown variant `sleeping`"));
}

#[test]
fn a_bad_id_is_refused_naming_its_field() {
    let mut run = full_run_json();
    run["tools"][1]["nodeId"] = json!("not an id");
    let message = run_refused(&run.to_string());
    assert!(message.contains("bad id in `tools.nodeId`"), "{message}");
}

#[test]
fn text_that_is_no_record_is_refused() {
    run_refused("");
    run_refused("[1, 2]");
    run_refused(r#"{"v": 1"#);
    assert!(run_refused("[]").contains("not a JSON object"));
}

#[test]
fn each_kind_names_itself_when_refused() {
    type Refusal = fn(&str) -> Option<String>;
    let kinds: [(&str, Refusal); 4] = [
        ("run record: ", |t| decode_run(t).err().map(|e| e.to_string())),
        ("node record: ", |t| decode_node(t).err().map(|e| e.to_string())),
        ("thread meta record: ", |t| decode_thread(t).err().map(|e| e.to_string())),
        ("receipt record: ", |t| decode_receipt(t).err().map(|e| e.to_string())),
    ];
    for (prefix, decode) in kinds {
        let message = decode(r#"{"v": 1}"#).unwrap();
        assert!(message.starts_with(&format!("corrupt record: {prefix}")), "{message}");
    }
}

/// JSON values as tools and providers send them. Floats are drawn as cents: serde_json reads a
/// float back exactly in practice, not for every bit pattern (that takes its `float_roundtrip`
/// feature), which is a property of JSON numbers, not of this format.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (0..10_000_000u64).prop_map(|cents| Value::from(cents as f64 / 100.0)),
        ".*".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map(".*", inner, 0..4)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

proptest! {
    /// Any text, numbers and JSON in the free fields of a run and a node survive encode and
    /// decode unchanged.
    #[test]
    fn free_fields_round_trip(
        text in ".*",
        note in proptest::option::of(".*"),
        numbers in (any::<u64>(), any::<u64>(), any::<u32>()),
        params in json_value(),
        answer in json_value(),
    ) {
        let mut run = samples::full_run();
        run.input.text = text.clone();
        run.note = note;
        (run.seq, run.counters.tokens_used, run.counters.model_calls) = numbers;
        run.tools[0].params = params.clone();
        prop_assert_eq!(decode_run(&encode_run(&run).unwrap()).unwrap(), run);

        let mut node = samples::nodes().swap_remove(5);
        let NodeBody::AssistantMessage { text: node_text, provider_state, usage, .. } = &mut node.body else {
            panic!("the sixth sample node is an assistant message: {node:?}");
        };
        *node_text = text;
        *provider_state = vec![params, answer];
        usage.input = numbers.0;
        prop_assert_eq!(decode_node(&encode_node(&node).unwrap()).unwrap(), node);
    }
}

#[test]
fn an_attachment_is_stored_as_this_text_and_read_back() {
    let record = crate::store::AttachmentRecord {
        id: panelot_protocol::AttachmentId::new("att-1").unwrap(),
        thread_id: panelot_protocol::ThreadId::new("t-1").unwrap(),
        name: "report.pdf".into(),
        mime: "application/pdf".into(),
        size_bytes: 3,
        created_at_ms: 7,
        data_base64: "QUJD".into(),
    };
    let text = encode_attachment(&record).unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap(),
        json!({"v": 1, "id": "att-1", "threadId": "t-1", "name": "report.pdf",
            "mime": "application/pdf", "sizeBytes": 3, "createdAtMs": 7, "dataBase64": "QUJD"})
    );
    assert_eq!(decode_attachment(&text).unwrap(), record);
    let bad = text.replace("\"att-1\"", "\"\"");
    let err = decode_attachment(&bad).unwrap_err().to_string();
    assert!(err.contains("attachment record") && err.contains("`id`"), "{err}");
}

#[test]
fn a_file_block_of_a_message_is_stored_with_its_id_type_and_size() {
    use panelot_protocol::engine::ContextContent;
    let content = ContextContent::File {
        attachment_id: panelot_protocol::AttachmentId::new("att-1").unwrap(),
        mime: "text/plain".into(),
        size_bytes: 11,
    };
    let mut node = text_node("t-1", 1, None);
    let NodeBody::UserMessage { input, .. } = &mut node.body else { panic!("a user message") };
    input.attached_context = vec![panelot_protocol::engine::ContextBlock {
        kind: panelot_protocol::engine::ContextKind::File,
        label: "notes.txt".into(),
        origin: None,
        trust: panelot_protocol::engine::Trust::Trusted,
        provenance: panelot_protocol::engine::Provenance::User,
        source_ref: None,
        tab: None,
        content,
        approx_tokens: None,
    }];
    let text = encode_node(&node).unwrap();
    let value: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        value["body"]["input"]["attachedContext"][0]["content"],
        json!({"type": "file", "attachmentId": "att-1", "mime": "text/plain", "sizeBytes": 11})
    );
    assert_eq!(decode_node(&text).unwrap(), node);
}
