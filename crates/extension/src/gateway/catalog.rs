//! How the extension runs the catalog's tools: the executor call of each page tool (the tool
//! table itself is `panelot_core::tools::catalog`, the one catalog the gatekeeper classifies by),
//! what an executor call names by ref, and which refs a write acts on.
//!
//! Pure data and serde only, so it is tested natively. The catalog's schemas are written by hand
//! rather than derived from the protocol types because the model needs short, flat schemas with
//! descriptions and the engine's validator understands only a subset of JSON Schema; a test
//! checks that every property they allow decodes as the executor's parameters.

use panelot_core::tools::catalog::PageTool;
use panelot_core::tools::catalog::TAB_ID_PARAM;
use panelot_protocol::ElementRef;
use panelot_protocol::content::DescribeItem;
use panelot_protocol::content::ExecutorCall;
use serde_json::Value;

use super::error::BadParams;

/// The executor call a page tool is (`ExecutorCall`'s serde name).
pub(crate) fn executor_tool(tool: PageTool) -> &'static str {
    match tool {
        PageTool::ReadPage => "read_page",
        PageTool::FindInPage => "find_in_page",
        PageTool::Extract => "extract",
        PageTool::GetSelection => "get_selection",
        PageTool::Click => "click",
        PageTool::Type => "type",
        PageTool::SelectOption => "select_option",
        PageTool::Scroll => "scroll",
        PageTool::Hover => "hover",
        PageTool::WaitFor => "wait_for",
        PageTool::PressKey => "press_key",
        PageTool::BatchActions => "batch_actions",
        PageTool::UploadFile => "upload_file",
    }
}

/// The executor call for an L1 tool's parameters (without `tabId`), range-checked; the error is
/// for the model.
pub(crate) fn executor_call(
    executor_tool: &str,
    params: &Value,
) -> Result<ExecutorCall, BadParams> {
    let mut rest = match params {
        Value::Object(map) => map.clone(),
        Value::Null => serde_json::Map::new(),
        other => return Err(BadParams(format!("parameters must be an object, not {other}"))),
    };
    rest.remove(TAB_ID_PARAM);
    let call = ExecutorCall::from_tool(executor_tool, Value::Object(rest))
        .map_err(|err| BadParams(format!("invalid parameters: {err}")))?;
    call.check_ranges().map_err(|err| BadParams(format!("invalid parameters: {err}")))?;
    Ok(call)
}

/// Whether a call names elements by ref, so it must go to the document the refs came from.
pub(crate) fn carries_refs(call: &ExecutorCall) -> bool {
    match call {
        ExecutorCall::ReadPage(p) => p.scope_ref.is_some(),
        ExecutorCall::Click(_)
        | ExecutorCall::Hover(_)
        | ExecutorCall::Type(_)
        | ExecutorCall::SelectOption(_)
        | ExecutorCall::UploadFile(_)
        | ExecutorCall::GetRect(_)
        | ExecutorCall::ValidateRef(_)
        | ExecutorCall::Focus(_) => true,
        ExecutorCall::PressKey(p) => p.element_ref.is_some(),
        ExecutorCall::Scroll(p) => p.element_ref.is_some(),
        ExecutorCall::Extract(p) => p.element_ref.is_some(),
        ExecutorCall::BatchActions(p) => !p.actions.is_empty(),
        ExecutorCall::Highlight(p) => p.element_ref.is_some(),
        ExecutorCall::DescribeTarget(p) => !p.targets.is_empty(),
        ExecutorCall::WaitFor(_)
        | ExecutorCall::FindInPage(_)
        | ExecutorCall::GetSelection(_)
        | ExecutorCall::LabelRefs(_) => false,
    }
}

/// The elements a write acts on, to describe before it is judged: each ref it names, and
/// whether acting submits the element's form (`type` with `submit`, Enter). Reads name none: the
/// gatekeeper judges them by the page alone.
pub(crate) fn described_elements(tool: &str, params: &Value) -> Vec<DescribeItem> {
    let mut items = Vec::new();
    let mut add = |element: Option<&Value>, submits: bool| {
        if let Some(element_ref) = element.and_then(Value::as_str)
            && let Ok(element_ref) = ElementRef::new(element_ref)
        {
            items.push(DescribeItem { element_ref, submits });
        }
    };
    let submits = |params: &Value| params.get("submit").and_then(Value::as_bool) == Some(true);
    match tool {
        "click" | "hover" | "select_option" | "click_trusted" | "type_trusted" | "upload_file" => {
            add(params.get("ref"), false);
        }
        "type" => add(params.get("ref"), submits(params)),
        "press_key" | "press_key_trusted" => {
            let enter = params.get("key").and_then(Value::as_str) == Some("Enter");
            add(params.get("ref"), enter);
        }
        "drag" => {
            for end in ["from", "to"] {
                add(params.get(end).and_then(|end| end.get("ref")), false);
            }
        }
        "batch_actions" => {
            for action in params.get("actions").and_then(Value::as_array).into_iter().flatten() {
                let inner = action.get("params").unwrap_or(&Value::Null);
                let submits =
                    action.get("kind").and_then(Value::as_str) == Some("type") && submits(inner);
                add(inner.get("ref"), submits);
            }
        }
        _ => {}
    }
    items.truncate(panelot_protocol::content::BATCH_MAX_ACTIONS);
    items
}

#[cfg(test)]
#[path = "catalog_tests.rs"]
mod tests;
