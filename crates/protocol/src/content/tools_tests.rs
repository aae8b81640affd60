//! `ExecutorCall::from_tool` against serde's adjacently tagged form.

use serde_json::Value;
use serde_json::json;

use super::EXECUTOR_TOOLS;
use super::ExecutorCall;

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
        ("scroll", json!([])),
        ("no_such_tool", json!({})),
        ("wait_for", json!({"ms": "soon"})),
    ];
    for (tool, params) in cases {
        let (serde, ours) = both(tool, params);
        assert!(serde.is_err(), "{tool}");
        assert_eq!(serde, ours, "{tool}");
    }
}
