//! Wire shapes of the target types: round trips, strict fields, ranges and string bounds.

use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;

use super::*;
use crate::DecodeError;
use crate::content::ContentOp;
use crate::content::ContentOutcome;
use crate::content::ExecutorCall;
use crate::content::ExecutorResult;
use crate::decode_content_request;
use crate::decode_content_response;

fn request(call: Value, expected: Value) -> Value {
    json!({"protocol": "panelot/content-v1", "schemaHash": "h", "requestId": "q1",
        "deadlineAtMs": 1000, "refDocumentId": "d1", "expected": expected,
        "op": {"kind": "execute", "call": call}})
}

fn response(result: Value) -> Value {
    json!({"protocol": "panelot/content-v1", "requestId": "q1", "handledMs": 1.5,
        "outcome": {"status": "ok", "result": result}})
}

fn describe(targets: Value) -> Value {
    json!({"tool": "describe_target", "params": {"targets": targets}})
}

fn description(element: Value) -> Value {
    json!({"shape": "target", "data": {"documentId": "d1", "url": "http://a.test/x?q=1",
        "origin": "http://a.test", "title": "A", "elements": [element]}})
}

fn element() -> Value {
    json!({"ref": "e3", "role": "button", "name": "Pay", "tag": "button", "inputType": null,
        "password": false,
        "destination": {"kind": "form_submit", "url": "https://pay.test/charge", "method": "post"}})
}

#[track_caller]
fn check_field_error(
    result: Result<impl std::fmt::Debug, DecodeError>,
    want_path: &str,
    want: &str,
) {
    match result {
        Err(DecodeError::Field { path, message, .. }) => {
            assert_eq!(path, want_path, "{message}");
            assert!(message.contains(want), "{message:?} should mention {want:?}");
        }
        other => panic!("expected a field error at {want_path}, got {other:?}"),
    }
}

#[test]
fn requests_with_expected_targets_and_new_calls_round_trip() {
    let calls = [
        describe(json!([{"ref": "e1", "submits": false}, {"ref": "e2", "submits": true}])),
        describe(json!([])),
        json!({"tool": "highlight", "params": {"ref": "e1", "label": "Panelot wants to click this"}}),
        json!({"tool": "highlight", "params": {"ref": null, "label": null}}),
    ];
    for call in calls {
        let value = request(call, json!({"documentId": "d1", "origin": "http://a.test"}));
        let decoded = decode_content_request(value.clone()).unwrap();
        assert_eq!(
            decoded.expected,
            Some(ExpectedTarget { document_id: "d1".into(), origin: "http://a.test".into() })
        );
        assert_eq!(serde_json::to_value(&decoded).unwrap(), value);
    }
}

#[test]
fn a_request_without_expected_skips_the_check() {
    let mut value = request(json!({"tool": "get_selection", "params": {}}), Value::Null);
    assert_eq!(decode_content_request(value.clone()).unwrap().expected, None);
    // Absent reads as null: hosts that do not judge targets keep working.
    value.as_object_mut().unwrap().remove("expected");
    assert_eq!(decode_content_request(value).unwrap().expected, None);
}

#[test]
fn describe_items_decode_into_their_types() {
    let value = request(describe(json!([{"ref": "e7", "submits": true}])), Value::Null);
    let ContentOp::Execute { call: ExecutorCall::DescribeTarget(params) } =
        decode_content_request(value).unwrap().op
    else {
        panic!("not a describe");
    };
    assert_eq!(params.targets.len(), 1);
    assert_eq!(params.targets[0].element_ref.as_str(), "e7");
    assert!(params.targets[0].submits);
}

// Inside the tagged `op` and `outcome` enums serde buffers the value, so the traced path stops
// at the enum; the message still names the field.
#[test]
fn unknown_and_missing_fields_are_named() {
    let expected = json!({"documentId": "d1", "origin": "http://a.test", "url": "x"});
    check_field_error(
        decode_content_request(request(describe(json!([])), expected)),
        "expected.url",
        "unknown field `url`",
    );
    check_field_error(
        decode_content_request(request(describe(json!([{"ref": "e1"}])), Value::Null)),
        "op",
        "missing field `submits`",
    );
    check_field_error(
        decode_content_request(request(
            json!({"tool": "highlight", "params": {"ref": "e1", "label": null, "color": "red"}}),
            Value::Null,
        )),
        "op",
        "unknown field `color`",
    );
    let mut extra = element();
    extra["href"] = json!("http://b.test");
    check_field_error(
        decode_content_response(response(description(extra))),
        "outcome",
        "unknown field `href`",
    );
    let mut bad_kind = element();
    bad_kind["destination"]["kind"] = json!("download");
    check_field_error(
        decode_content_response(response(description(bad_kind))),
        "outcome",
        "unknown variant `download`",
    );
}

#[test]
fn call_ranges_are_checked() {
    let seven = vec![json!({"ref": "e1", "submits": false}); BATCH_MAX_ACTIONS + 1];
    check_field_error(
        decode_content_request(request(describe(json!(seven)), Value::Null)),
        "op.call.params.targets",
        "at most 6",
    );
    let six = vec![json!({"ref": "e1", "submits": false}); BATCH_MAX_ACTIONS];
    assert!(decode_content_request(request(describe(json!(six)), Value::Null)).is_ok());

    let label = |n: usize| {
        request(
            json!({"tool": "highlight", "params": {"ref": "e1", "label": "é".repeat(n)}}),
            Value::Null,
        )
    };
    assert!(decode_content_request(label(HIGHLIGHT_LABEL_MAX_CHARS)).is_ok());
    check_field_error(
        decode_content_request(label(HIGHLIGHT_LABEL_MAX_CHARS + 1)),
        "op.call.params.label",
        "longer than 200",
    );
}

#[test]
fn descriptions_round_trip() {
    let link = json!({"ref": "e4", "role": "link", "name": "Docs", "tag": "span",
        "inputType": null, "password": false,
        "destination": {"kind": "link", "url": "javascript:alert(1)", "method": null}});
    let password = json!({"ref": "e5", "role": "textbox", "name": "Password", "tag": "input",
        "inputType": "password", "password": true, "destination": null});
    for element in [element(), link, password] {
        let value = response(description(element));
        let decoded = decode_content_response(value.clone()).unwrap();
        assert_eq!(serde_json::to_value(&decoded).unwrap(), value);
    }
    let value =
        response(json!({"shape": "highlight", "data": {"shown": true, "inViewport": false}}));
    let decoded = decode_content_response(value.clone()).unwrap();
    assert_eq!(
        decoded.outcome,
        ContentOutcome::Ok {
            result: ExecutorResult::Highlight(HighlightResult { shown: true, in_viewport: false })
        }
    );
    assert_eq!(serde_json::to_value(&decoded).unwrap(), value);
    let value = response(json!({"shape": "labels", "data": {"drawn": 12, "inViewport": 7}}));
    let decoded = decode_content_response(value.clone()).unwrap();
    let labels = LabelsResult { drawn: 12, in_viewport: 7 };
    assert_eq!(decoded.outcome, ContentOutcome::Ok { result: ExecutorResult::Labels(labels) });
    assert_eq!(serde_json::to_value(&decoded).unwrap(), value);
}

#[test]
fn reported_strings_are_bounded() {
    let at = |field: &str, text: String| {
        let mut element = element();
        element[field] = json!(text);
        decode_content_response(response(description(element)))
    };
    // Characters are counted, not bytes: 200 two-byte characters fit.
    assert!(at("name", "é".repeat(TARGET_TEXT_MAX_CHARS)).is_ok());
    check_field_error(
        at("name", "x".repeat(TARGET_TEXT_MAX_CHARS + 1)),
        "outcome",
        "more than 200",
    );
    check_field_error(
        at("inputType", "x".repeat(TARGET_TEXT_MAX_CHARS + 1)),
        "outcome",
        "more than 200",
    );
    let mut long_url = element();
    long_url["destination"]["url"] = json!(format!("https://b.test/{}", "x".repeat(4096)));
    check_field_error(
        decode_content_response(response(description(long_url))),
        "outcome",
        "more than 4096",
    );
    let mut long_title = description(element());
    long_title["data"]["title"] = json!("t".repeat(TARGET_TEXT_MAX_CHARS + 1));
    check_field_error(decode_content_response(response(long_title)), "outcome", "more than 200");
}

#[test]
fn target_changed_failures_round_trip() {
    let value = json!({"protocol": "panelot/content-v1", "requestId": "q1", "handledMs": null,
        "outcome": {"status": "failed", "failure": {"code": "target_changed",
        "message": "the page is now on http://b.test", "phase": "resolve", "retryable": false,
        "details": {"documentId": "d2", "origin": "http://b.test", "url": "http://b.test/"}}}});
    let decoded = decode_content_response(value.clone()).unwrap();
    let ContentOutcome::Failed { failure } = &decoded.outcome else {
        panic!("not a failure");
    };
    assert_eq!(failure.code, crate::content::ActionFailureCode::TargetChanged);
    assert_eq!(serde_json::to_value(&decoded).unwrap(), value);
}

#[test]
fn the_schema_states_the_bounds() {
    let schema = crate::content_schema_document().to_string();
    assert!(schema.contains("\"maxLength\":4096"), "URLs are bounded in the schema");
    assert!(schema.contains("\"maxLength\":200"), "names are bounded in the schema");
}
