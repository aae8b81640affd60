//! `ExecutorCall::from_tool` against serde's adjacently tagged form.

use serde_json::Value;
use serde_json::json;

use super::*;

/// What serde makes of `{"tool": tool, "params": params}`, and what `from_tool` makes of it, as
/// comparable results (the error as its text).
fn both(tool: &str, params: Value) -> (Result<ExecutorCall, String>, Result<ExecutorCall, String>) {
    let wire = json!({"tool": tool, "params": params});
    let serde = serde_json::from_value::<ExecutorCall>(wire).map_err(|err| err.to_string());
    let ours = ExecutorCall::from_tool(tool, params).map_err(|err| err.to_string());
    (serde, ours)
}

#[test]
fn every_tool_name_is_serdes() {
    for tool in EXECUTOR_TOOLS {
        let (serde, ours) = both(tool, json!({}));
        assert_eq!(serde, ours, "{tool}");
    }
    // Each name is that of its variant: a call written by serde reads back through `from_tool`.
    let calls = [
        json!({"tool": "click", "params": {"ref": "e1"}}),
        json!({"tool": "get_selection", "params": {}}),
        json!({"tool": "read_page", "params": {}}),
        json!({"tool": "highlight", "params": {"ref": "e1", "label": null}}),
        json!({"tool": "label_refs", "params": {"show": true}}),
    ];
    for wire in calls {
        let call: ExecutorCall = serde_json::from_value(wire.clone()).unwrap();
        let written = serde_json::to_value(&call).unwrap();
        let tool = written["tool"].as_str().unwrap();
        assert!(EXECUTOR_TOOLS.contains(&tool), "{tool}");
        assert_eq!(ExecutorCall::from_tool(tool, written["params"].clone()).unwrap(), call);
    }
}

#[test]
fn errors_are_serdes() {
    let cases = [
        ("click", json!({"ref": "e1", "extra": 1})),
        ("click", json!({"ref": 5})),
        ("type", json!({"ref": "e1"})),
        ("no_such_tool", json!({})),
        ("wait_for", json!({"ms": "soon"})),
    ];
    for (tool, params) in cases {
        let (serde, ours) = both(tool, params);
        assert!(serde.is_err(), "{tool}");
        assert_eq!(serde, ours, "{tool}");
    }
}

/// The one difference from serde: parameters written as an array are refused as the wrong type,
/// where serde reads a struct from the array of its fields in order.
#[test]
fn parameters_written_as_an_array_are_refused() {
    let (serde, ours) = both("scroll", json!([]));
    assert_eq!(
        serde.unwrap_err(),
        "invalid length 0, expected struct ScrollParams with 3 elements"
    );
    assert_eq!(ours.unwrap_err(), "invalid type: sequence, expected struct ScrollParams");
}

/// `ExecutorResult` as serde derives it: the reference of its written-out `Deserialize`.
#[derive(Deserialize, Serialize, Debug)]
#[serde(tag = "shape", content = "data", rename_all = "snake_case")]
enum DerivedResult {
    Snapshot(SnapshotResult),
    Action(ActionResult),
    Extract(ExtractResult),
    Find(FindResult),
    Selection(SelectionResult),
    Batch(BatchResult),
    Rect(RectResult),
    RefStatus(RefStatusResult),
    Target(TargetDescription),
    Highlight(HighlightResult),
    Labels(LabelsResult),
}

/// Both decodings of `value`, as the JSON they write back or the error's text.
fn both_results(value: &Value) -> (Result<Value, String>, Result<Value, String>) {
    let derived = serde_json::from_value::<DerivedResult>(value.clone())
        .map(|r| serde_json::to_value(r).unwrap())
        .map_err(|err| err.to_string());
    let ours = serde_json::from_value::<ExecutorResult>(value.clone())
        .map(|r| serde_json::to_value(r).unwrap())
        .map_err(|err| err.to_string());
    (derived, ours)
}

#[test]
fn results_read_as_serdes_adjacently_tagged_form() {
    let good = [
        json!({"shape": "highlight", "data": {"shown": true, "inViewport": false}}),
        json!({"data": {"shown": false, "inViewport": true}, "shape": "highlight", "x": 1}),
        json!({"shape": "rect", "data": {"x": 1.0, "y": 2.0, "width": 3.0, "height": 4.0,
            "inViewport": true}}),
        json!({"shape": "selection", "data": {"text": "hi", "url": "https://a.test/"}}),
    ];
    for value in &good {
        let (derived, ours) = both_results(value);
        assert_eq!(ours, derived, "{value}");
    }
    assert!(both_results(&good[0]).1.is_ok());
    for shape in RESULT_SHAPES {
        // Every name is a variant's: serde's error and ours are those of its data type.
        let value = json!({"shape": shape, "data": {"unexpected": 1}});
        let (derived, ours) = both_results(&value);
        assert!(derived.is_err(), "{value}");
        assert_eq!(ours, derived, "{value}");
    }
    let bad = [
        json!({"shape": "nope", "data": {}}),
        json!({"shape": "highlight"}),
        json!({"data": {"shown": true, "inViewport": false}}),
        json!({"shape": "highlight", "data": {"shown": "yes", "inViewport": false}}),
        json!({"shape": "highlight", "data": null}),
    ];
    for value in &bad {
        let (derived, ours) = both_results(value);
        assert!(derived.is_err(), "{value}");
        assert_eq!(ours, derived, "{value}");
    }
    // Not objects: refused by both, in words of their own.
    for value in [json!(["highlight", {"shown": true, "inViewport": false}]), json!(3)] {
        assert!(both_results(&value).1.is_err(), "{value}");
    }
}

/// `BatchAction` as serde derives it: the reference of its written-out `Deserialize`.
#[derive(Deserialize, Serialize, Debug)]
#[serde(tag = "kind", content = "params", rename_all = "snake_case")]
enum DerivedBatchAction {
    Click(ClickParams),
    Type(TypeParams),
    SelectOption(SelectOptionParams),
}

/// Both decodings of a batch action, as the JSON they write back or the error's text.
fn both_actions(value: &Value) -> (Result<Value, String>, Result<Value, String>) {
    let derived = serde_json::from_value::<DerivedBatchAction>(value.clone())
        .map(|a| serde_json::to_value(a).unwrap())
        .map_err(|err| err.to_string());
    let ours = serde_json::from_value::<BatchAction>(value.clone())
        .map(|a| serde_json::to_value(a).unwrap())
        .map_err(|err| err.to_string());
    (derived, ours)
}

#[test]
fn batch_actions_read_as_serdes_adjacently_tagged_form() {
    let good = [
        json!({"kind": "click", "params": {"ref": "e1"}}),
        json!({"params": {"ref": "e2", "text": "hi"}, "kind": "type", "x": 1}),
        json!({"kind": "select_option", "params": {"ref": "e3", "values": ["a"]}}),
    ];
    for value in &good {
        let (derived, ours) = both_actions(value);
        assert!(ours.is_ok(), "{value}: {ours:?}");
        assert_eq!(ours, derived, "{value}");
    }
    for kind in BATCH_KINDS {
        let value = json!({"kind": kind, "params": {"unexpected": 1}});
        let (derived, ours) = both_actions(&value);
        assert!(derived.is_err(), "{value}");
        assert_eq!(ours, derived, "{value}");
    }
    let bad = [
        json!({"kind": "hover", "params": {}}),
        json!({"kind": "click"}),
        json!({"params": {"ref": "e1"}}),
        json!({"kind": "click", "params": {"ref": 1}}),
        json!({"kind": "click", "params": null}),
    ];
    for value in &bad {
        let (derived, ours) = both_actions(value);
        assert!(derived.is_err(), "{value}");
        assert_eq!(ours, derived, "{value}");
    }
    for value in [json!(["click", {"ref": "e1"}]), json!(3)] {
        assert!(both_actions(&value).1.is_err(), "{value}");
    }
}
