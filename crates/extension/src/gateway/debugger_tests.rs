//! The pure parts of L2: parameters, errors, dialogs, evaluation results, screenshots.

use panelot_core::tools::validate_params;
use serde_json::json;

use panelot_core::engine::ToolStatus;
use panelot_core::tools::catalog::Route;

use super::*;

fn schema_of(name: &str) -> Value {
    crate::gateway::tool_registry().get(name).unwrap().parameters.clone()
}

#[test]
fn parameters_map_to_calls_and_every_offered_one_is_taken() {
    let cases = [
        (
            "click_trusted",
            json!({"ref": "e3", "acceptDialogs": true, "tabId": 4}),
            DebuggerCall::Click { element_ref: "e3".into(), accept_dialogs: true },
        ),
        (
            "type_trusted",
            json!({"ref": "e1", "text": "héllo", "mode": "append", "submit": true,
                "acceptDialogs": false, "tabId": 4}),
            DebuggerCall::Type {
                element_ref: "e1".into(),
                text: "héllo".into(),
                append: true,
                submit: true,
                accept_dialogs: false,
            },
        ),
        (
            "screenshot",
            json!({"ref": "e7", "fullPage": false, "labels": false, "tabId": 4}),
            DebuggerCall::Screenshot(Shot::Element("e7".into())),
        ),
        (
            "press_key_trusted",
            json!({"key": "Control+a", "ref": "e2", "acceptDialogs": true, "tabId": 4}),
            DebuggerCall::PressKey {
                press: input::parse_chord("Control+a").unwrap(),
                element_ref: Some("e2".into()),
                accept_dialogs: true,
            },
        ),
        (
            "click_xy",
            json!({"x": 10.5, "y": 20, "acceptDialogs": false, "tabId": 4}),
            DebuggerCall::ClickAt { x: 10.5, y: 20.0, accept_dialogs: false },
        ),
        (
            "drag",
            json!({"from": {"ref": "e1"}, "to": {"x": 300, "y": 40}, "tabId": 4}),
            DebuggerCall::Drag { from: DragEnd::Ref("e1".into()), to: DragEnd::Point(300.0, 40.0) },
        ),
        (
            "run_javascript",
            json!({"code": "return 1", "acceptDialogs": true, "tabId": 4}),
            DebuggerCall::Evaluate { code: "return 1".into(), accept_dialogs: true },
        ),
    ];
    for (name, params, expected) in cases {
        let schema = schema_of(name);
        validate_params(&schema, &params).unwrap_or_else(|e| panic!("{name}: {e}"));
        // Every property the schema offers is set above.
        let offered = schema["properties"].as_object().unwrap().len();
        assert_eq!(params.as_object().unwrap().len(), offered, "{name}");
        let Some(Route::Debugger(tool)) = panelot_core::tools::catalog::route(name) else {
            panic!("{name}")
        };
        assert_eq!(parse(tool, &params), Ok(expected), "{name}");
    }
}

#[test]
fn defaults_and_bad_parameters() {
    let call = parse(DebuggerTool::TypeTrusted, &json!({"ref": "e1", "text": "a"})).unwrap();
    assert_eq!(
        call,
        DebuggerCall::Type {
            element_ref: "e1".into(),
            text: "a".into(),
            append: false,
            submit: false,
            accept_dialogs: false
        }
    );
    assert!(call.writes());
    assert!(!DebuggerCall::Screenshot(Shot::Viewport { labels: false }).writes());
    assert_eq!(
        parse(DebuggerTool::Screenshot, &Value::Null),
        Ok(DebuggerCall::Screenshot(Shot::Viewport { labels: false }))
    );
    let whole = parse(DebuggerTool::Screenshot, &json!({"fullPage": true}));
    assert_eq!(whole, Ok(DebuggerCall::Screenshot(Shot::FullPage { labels: false })));
    let labelled = parse(DebuggerTool::Screenshot, &json!({"fullPage": true, "labels": true}));
    assert_eq!(labelled, Ok(DebuggerCall::Screenshot(Shot::FullPage { labels: true })));
    let labelled = parse(DebuggerTool::Screenshot, &json!({"ref": "e1", "labels": true}));
    assert!(labelled.unwrap_err().contains("labels go on the viewport or the whole page"));
    let both = parse(DebuggerTool::Screenshot, &json!({"ref": "e1", "fullPage": true}));
    assert_eq!(both.unwrap_err(), "invalid parameters: give ref or fullPage, not both");

    let err = parse(DebuggerTool::ClickTrusted, &json!({"ref": "e1", "force": true})).unwrap_err();
    assert!(err.starts_with("invalid parameters"), "{err}");
    let err = parse(DebuggerTool::ClickTrusted, &json!({})).unwrap_err();
    assert!(err.contains("ref"), "{err}");
    let err = parse(DebuggerTool::TypeTrusted, &json!({"ref": "e1", "text": "a", "mode": "x"}))
        .unwrap_err();
    assert!(err.contains("append"), "{err}");
    let err = parse(DebuggerTool::RunJavascript, &json!({"code": "  "})).unwrap_err();
    assert!(err.contains("empty"), "{err}");
    let err = parse(DebuggerTool::Screenshot, &json!([1])).unwrap_err();
    assert!(err.contains("object"), "{err}");
}

#[test]
fn new_l2_tools_refuse_bad_parameters_in_words() {
    let call = parse(DebuggerTool::PressKeyTrusted, &json!({"key": "Enter"})).unwrap();
    assert!(matches!(
        call,
        DebuggerCall::PressKey { element_ref: None, accept_dialogs: false, .. }
    ));
    assert!(call.writes());
    let err = parse(DebuggerTool::PressKeyTrusted, &json!({"key": "Ctrl+Banana"})).unwrap_err();
    assert!(err.starts_with("invalid parameters: unknown key `Banana`; use "), "{err}");
    assert!(err.contains("ArrowDown") && err.contains("Escape"), "{err}");
    let err = parse(DebuggerTool::PressKeyTrusted, &json!({"ref": "e1"})).unwrap_err();
    assert!(err.contains("key"), "{err}");
    let err = parse(DebuggerTool::ClickXy, &json!({"x": 1})).unwrap_err();
    assert!(err.contains('y'), "{err}");
    let err = parse(DebuggerTool::ClickXy, &json!({"x": "1", "y": 2})).unwrap_err();
    assert_eq!(err, "invalid parameters: invalid type: string \"1\", expected f64");
    // Read by hand, in serde's words.
    let err = parse(DebuggerTool::ClickTrusted, &json!({"ref": "e1", "force": true})).unwrap_err();
    assert_eq!(err, "invalid parameters: unknown field `force`, expected `ref` or `acceptDialogs`");
    let err = parse(DebuggerTool::ClickTrusted, &json!({"ref": null})).unwrap_err();
    assert_eq!(err, "invalid parameters: invalid type: null, expected a string");
    let err = parse(DebuggerTool::RunJavascript, &json!({"code": "1", "acceptDialogs": 1}));
    assert_eq!(
        err.unwrap_err(),
        "invalid parameters: invalid type: integer `1`, expected a boolean"
    );
    let err = parse(DebuggerTool::Screenshot, &json!({"x": 1})).unwrap_err();
    assert_eq!(
        err,
        "invalid parameters: unknown field `x`, expected one of `ref`, `fullPage`, `labels`"
    );
    let err = parse(DebuggerTool::Drag, &json!({"from": {"ref": "e1", "z": 1}, "to": {}}));
    assert_eq!(
        err.unwrap_err(),
        "invalid parameters: unknown field `z`, expected one of `ref`, `x`, `y`"
    );
    for (from, to) in [
        (json!({"ref": "e1", "x": 1, "y": 2}), json!({"ref": "e2"})),
        (json!({"ref": "e1"}), json!({"x": 1})),
        (json!({}), json!({"ref": "e2"})),
    ] {
        let err = parse(DebuggerTool::Drag, &json!({"from": from, "to": to})).unwrap_err();
        assert!(err.contains("is {ref} or {x, y}, not a mix"), "{err}");
    }
    let err = parse(DebuggerTool::Drag, &json!({"from": {"ref": "e1"}})).unwrap_err();
    assert!(err.contains("to"), "{err}");
    // The schema holds the model to the same: points are numbers, ends have no other fields.
    let schema = schema_of("drag");
    let bad = json!({"from": {"ref": "e1", "button": "right"}, "to": {"ref": "e2"}});
    assert!(validate_params(&schema, &bad).is_err());
    assert!(validate_params(&schema_of("click_xy"), &json!({"x": -1, "y": 2})).is_err());
}

#[test]
fn chrome_errors_become_typed_errors_with_clear_messages() {
    let cases = [
        ("`chrome.debugger` is not available (missing permission?)", "permission_missing"),
        ("No tab with given id 42.", "tab_closed"),
        ("Detached while handling command.", "tab_closed"),
        ("Debugger is not attached to the tab with id: 42.", "not_attached"),
        ("Another debugger is already attached to the tab with id: 42.", "already_attached"),
        ("Cannot access a chrome:// URL", "not_debuggable"),
        ("Cannot attach to this target.", "not_debuggable"),
        ("Invalid parameters", "command_failed"),
    ];
    for (message, code) in cases {
        assert_eq!(
            CdpError::classify("Input.dispatchMouseEvent", message).code(),
            code,
            "{message}"
        );
    }
    let missing = CdpError::PermissionMissing.message(7);
    assert!(missing.starts_with("[tabId=7] permission_missing: "), "{missing}");
    assert!(missing.contains("\"debugger\" permission"), "names what to enable: {missing}");
    let outcome = CdpError::PermissionMissing.outcome(7);
    let (ToolStatus::Failed { .. }, Some(details)) = (&outcome.status, &outcome.details) else {
        panic!("a failure with details")
    };
    assert_eq!(details["needsPermission"], "debugger");
    let failed = CdpError::classify("Runtime.evaluate", "boom").message(2);
    assert_eq!(failed, "[tabId=2] command_failed: Runtime.evaluate failed: boom");
}

#[test]
fn dialogs_are_answered_and_reported() {
    assert!(accepts("alert", false));
    assert!(!accepts("confirm", false));
    assert!(!accepts("prompt", false));
    assert!(!accepts("beforeunload", false));
    assert!(accepts("confirm", true));
    let dialogs = vec![
        Dialog { kind: "confirm".into(), message: "Delete everything?".into(), accepted: false },
        Dialog { kind: "alert".into(), message: "x".repeat(400), accepted: true },
    ];
    let note = dialog_note(&dialogs);
    assert!(note.starts_with("\nconfirm dialog dismissed: \"Delete everything?\""), "{note}");
    assert!(note.contains("\nalert dialog accepted: \""), "{note}");
    assert!(note.contains("[truncated: 300 of 400 characters shown]"), "{note}");
    assert_eq!(dialog_note(&[]), "");
}

#[test]
fn evaluation_results_are_json_clipped_or_the_exception() {
    let ok = |answer: Value| evaluation_text(&answer).unwrap();
    assert_eq!(ok(json!({"result": {"type": "number", "value": 3}})), "3");
    assert_eq!(
        ok(json!({"result": {"type": "object", "value": {"a": [1, "b"]}}})),
        r#"{"a":[1,"b"]}"#
    );
    assert_eq!(ok(json!({"result": {"type": "string", "value": "hi"}})), r#""hi""#);
    assert_eq!(ok(json!({"result": {"type": "undefined"}})), "undefined (nothing was returned)");
    assert_eq!(ok(json!({"result": {"type": "number", "unserializableValue": "NaN"}})), "NaN");
    let long = ok(json!({"result": {"type": "string", "value": "y".repeat(10_000)}}));
    assert!(long.chars().count() < EVAL_RESULT_BUDGET + 60, "{}", long.len());
    assert!(
        long.ends_with(&format!("[truncated: {EVAL_RESULT_BUDGET} of 10002 characters shown]"))
    );

    let threw = evaluation_text(&json!({"result": {"type": "object"}, "exceptionDetails": {
        "text": "Uncaught", "exception": {"description": "Error: nope\n    at <anonymous>:2:7"}}}))
    .unwrap_err();
    assert!(threw.starts_with("the code threw: Error: nope"), "{threw}");
    let threw = evaluation_text(&json!({"exceptionDetails": {"text": "Uncaught"}})).unwrap_err();
    assert_eq!(threw, "the code threw: Uncaught");

    let expression = eval_expression("return document.title");
    assert_eq!(expression, "(async () => {\nreturn document.title\n})()");
}

#[test]
fn click_points_are_box_centres_in_the_viewport() {
    let rect = |x, y, width, height, in_viewport| RectResult { x, y, width, height, in_viewport };
    assert_eq!(click_point(&rect(10.0, 20.0, 100.0, 40.0, true)), Some((60.0, 40.0)));
    assert_eq!(click_point(&rect(10.0, 20.0, 100.0, 40.0, false)), None);
    assert_eq!(click_point(&rect(10.0, 20.0, 0.0, 40.0, true)), None);
}

#[test]
fn screenshots_report_their_size_and_keep_the_image_for_the_card() {
    // The first 24 bytes of a 1280×720 PNG: signature, IHDR length and type, width, height.
    let mut head = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    head.extend_from_slice(&1280u32.to_be_bytes());
    head.extend_from_slice(&720u32.to_be_bytes());
    head.extend_from_slice(&[8, 6, 0, 0, 0, 0]);
    let data = encode(&head) + "AAAA";
    assert_eq!(png_size(&data), Some((1280, 720)));
    assert_eq!(png_size("not a png at all, not a png at all"), None);
    assert_eq!(png_size("short"), None);

    let outcome = screenshot_outcome(3, &data, "the viewport");
    let (ToolStatus::Done { content }, Some(details)) = (&outcome.status, &outcome.details) else {
        panic!("a success")
    };
    assert!(content.starts_with("[tabId=3] took a 1280×720 px PNG screenshot"), "{content}");
    // 1280×720 needs no scaling: 921,600 px / 750 = 1,229 tokens.
    assert!(content.contains("as an image (about 1229 input tokens"), "{content}");
    assert_eq!(details["imageTokens"], 1229);
    assert_eq!(details["shape"], "screenshot");
    assert_eq!(details["width"], 1280);
    assert_eq!(details["base64"], json!(data));
}

fn encode(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    bytes
        .chunks(3)
        .flat_map(|chunk| {
            let n =
                chunk.iter().fold(0u32, |n, &b| (n << 8) | u32::from(b)) << (8 * (3 - chunk.len()));
            (0..4).rev().map(move |i| ALPHABET[((n >> (6 * i)) & 63) as usize] as char)
        })
        .collect()
}
