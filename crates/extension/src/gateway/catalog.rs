//! The browser tools the model is offered: names (the gatekeeper's), descriptions and JSON
//! schemas, and the translation of an L1 call's parameters into the page executor's call.
//!
//! Pure data and serde only, so it is tested natively. The schemas are written by hand rather
//! than derived from the protocol types because the model needs short, flat schemas with
//! descriptions and the engine's validator understands only a subset of JSON Schema; a test
//! checks that every property they allow decodes as the executor's parameters.

use panelot_core::tools::ToolDescriptor;
use panelot_core::tools::ToolEffect;
use panelot_core::tools::ToolRegistry;
use panelot_protocol::content::ExecutorCall;
use panelot_protocol::content::SNAPSHOT_MAX_TOKENS;
use panelot_protocol::content::WAIT_FOR_MAX_MS;
use panelot_protocol::engine::ToolLevel;
use serde_json::Value;
use serde_json::json;

/// The parameter every page tool accepts to name its tab; it never reaches the executor.
pub(crate) const TAB_ID_PARAM: &str = "tabId";

/// How one tool runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Route {
    /// Through `chrome.tabs`.
    Tabs(TabTool),
    /// Through the page executor, as this executor tool (`ExecutorCall`'s serde name).
    Page(&'static str),
    /// Through `chrome.debugger` (L2, CDP).
    Debugger(DebuggerTool),
}

/// The L2 tools, run over CDP by `debugger`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DebuggerTool {
    /// `click_trusted`.
    ClickTrusted,
    /// `type_trusted`.
    TypeTrusted,
    /// `screenshot`.
    Screenshot,
    /// `run_javascript`.
    RunJavascript,
}

/// The `chrome.tabs` tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TabTool {
    /// `tabs_list`.
    List,
    /// `tab_open`.
    Open,
    /// `tab_focus`.
    Focus,
    /// `tab_close`.
    Close,
    /// `navigate`.
    Navigate,
    /// `go_back`.
    Back,
    /// `go_forward`.
    Forward,
}

/// One row of the catalog.
struct Entry {
    name: &'static str,
    route: Route,
    level: ToolLevel,
    effect: ToolEffect,
    description: &'static str,
    /// Properties besides `tabId`.
    properties: fn() -> Value,
    required: &'static [&'static str],
    /// Whether `tabId` is offered (every page tool; the tab tools that name a tab require it).
    tab_param: TabParam,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum TabParam {
    None,
    Optional,
    Required,
}

/// A ref parameter. Its length and characters are checked by the protocol's `ElementRef` when
/// the executor call is built, and the kernel prompt says where refs come from, so the schema
/// spends no tokens on them.
fn element_ref() -> Value {
    json!({"type": "string"})
}

fn no_properties() -> Value {
    json!({})
}

/// Every tool of the gateway, in catalog order (reference §5.1).
const CATALOG: &[Entry] = &[
    Entry {
        name: "tabs_list",
        route: Route::Tabs(TabTool::List),
        level: ToolLevel::L0,
        effect: ToolEffect::Read,
        description: "Open tabs (tabId, title, URL), marking the one the user views.",
        properties: no_properties,
        required: &[],
        tab_param: TabParam::None,
    },
    Entry {
        name: "tab_open",
        route: Route::Tabs(TabTool::Open),
        level: ToolLevel::L0,
        effect: ToolEffect::Write,
        description: "Open url in a background tab (or reuse one at it), wait for the load; page tools then use it.",
        properties: || json!({"url": {"type": "string", "minLength": 1, "maxLength": 4096, "description": "Absolute http(s) URL."}}),
        required: &["url"],
        tab_param: TabParam::None,
    },
    Entry {
        name: "tab_focus",
        route: Route::Tabs(TabTool::Focus),
        level: ToolLevel::L0,
        effect: ToolEffect::Write,
        description: "Show a tab to the user: the only tool that changes what they see.",
        properties: no_properties,
        required: &[],
        tab_param: TabParam::Required,
    },
    Entry {
        name: "tab_close",
        route: Route::Tabs(TabTool::Close),
        level: ToolLevel::L0,
        effect: ToolEffect::Write,
        description: "Close a tab.",
        properties: no_properties,
        required: &[],
        tab_param: TabParam::Required,
    },
    Entry {
        name: "navigate",
        route: Route::Tabs(TabTool::Navigate),
        level: ToolLevel::L0,
        effect: ToolEffect::Write,
        description: "Load url in the tab; returns its snapshot.",
        properties: || json!({"url": {"type": "string", "minLength": 1, "maxLength": 4096, "description": "Absolute http(s) URL."}}),
        required: &["url"],
        tab_param: TabParam::Optional,
    },
    Entry {
        name: "go_back",
        route: Route::Tabs(TabTool::Back),
        level: ToolLevel::L0,
        effect: ToolEffect::Write,
        description: "Back in the tab's history; returns its snapshot.",
        properties: no_properties,
        required: &[],
        tab_param: TabParam::Optional,
    },
    Entry {
        name: "go_forward",
        route: Route::Tabs(TabTool::Forward),
        level: ToolLevel::L0,
        effect: ToolEffect::Write,
        description: "Forward in the tab's history; returns its snapshot.",
        properties: no_properties,
        required: &[],
        tab_param: TabParam::Optional,
    },
    Entry {
        name: "read_page",
        route: Route::Page("snapshot"),
        level: ToolLevel::L1,
        effect: ToolEffect::Read,
        description: "Page snapshot, one element a line: `role \"name\" [states] [ref]`. Expand a folded line by passing its ref as scopeRef, or use find_in_page.",
        properties: || {
            json!({
                "maxTokens": {"type": "integer", "minimum": 200, "maximum": SNAPSHOT_MAX_TOKENS},
                "scopeRef": element_ref()
            })
        },
        required: &[],
        tab_param: TabParam::Optional,
    },
    Entry {
        name: "find_in_page",
        route: Route::Page("find_in_page"),
        level: ToolLevel::L1,
        effect: ToolEffect::Read,
        description: "Up to 20 snapshot lines matching query (case-insensitive, folded parts too), with refs.",
        properties: || json!({"query": {"type": "string", "minLength": 1, "maxLength": 200}}),
        required: &["query"],
        tab_param: TabParam::Optional,
    },
    Entry {
        name: "extract",
        route: Route::Page("extract"),
        level: ToolLevel::L1,
        effect: ToolEffect::Read,
        description: "The page or ref's subtree as Markdown, in windows; continue at fromChar.",
        properties: || {
            json!({
                "ref": element_ref(),
                "fromChar": {"type": "integer", "minimum": 0}
            })
        },
        required: &[],
        tab_param: TabParam::Optional,
    },
    Entry {
        name: "get_selection",
        route: Route::Page("get_selection"),
        level: ToolLevel::L1,
        effect: ToolEffect::Read,
        description: "Text the user selected on the page.",
        properties: no_properties,
        required: &[],
        tab_param: TabParam::Optional,
    },
    Entry {
        name: "click",
        route: Route::Page("click"),
        level: ToolLevel::L1,
        effect: ToolEffect::Write,
        description: "Click an element; reports what changed. If occluded, scroll or close the cover first.",
        properties: || {
            json!({
                "ref": element_ref(),
                "button": {"type": "string", "enum": ["left", "right"]},
                "doubleClick": {"type": "boolean"}
            })
        },
        required: &["ref"],
        tab_param: TabParam::Optional,
    },
    Entry {
        name: "type",
        route: Route::Page("type"),
        level: ToolLevel::L1,
        effect: ToolEffect::Write,
        description: "Type into a field (replaces; mode append adds); submit presses Enter; slowly types per key. Says if it registered.",
        properties: || {
            json!({
                "ref": element_ref(),
                "text": {"type": "string", "maxLength": 20000},
                "mode": {"type": "string", "enum": ["replace", "append"]},
                "submit": {"type": "boolean"},
                "slowly": {"type": "boolean"}
            })
        },
        required: &["ref", "text"],
        tab_param: TabParam::Optional,
    },
    Entry {
        name: "select_option",
        route: Route::Page("select_option"),
        level: ToolLevel::L1,
        effect: ToolEffect::Write,
        description: "Select options by value or label (the error lists them if none match).",
        properties: || {
            json!({
                "ref": element_ref(),
                "values": {"type": "array", "items": {"type": "string", "maxLength": 500}, "maxItems": 50}
            })
        },
        required: &["ref", "values"],
        tab_param: TabParam::Optional,
    },
    Entry {
        name: "scroll",
        route: Route::Page("scroll"),
        level: ToolLevel::L1,
        effect: ToolEffect::Read,
        description: "Scroll the page or ref's element by one page (default), to the end, or by px pixels.",
        properties: || {
            json!({
                "ref": element_ref(),
                "direction": {"type": "string", "enum": ["up", "down"]},
                "amount": {
                    "type": "object",
                    "properties": {
                        "unit": {"type": "string", "enum": ["page", "end", "pixels"]},
                        "px": {"type": "integer", "minimum": 1, "maximum": 100000}
                    },
                    "required": ["unit"],
                    "additionalProperties": false
                }
            })
        },
        required: &["direction"],
        tab_param: TabParam::Optional,
    },
    Entry {
        name: "hover",
        route: Route::Page("hover"),
        level: ToolLevel::L1,
        effect: ToolEffect::Write,
        description: "Hover an element (menus, tooltips); reports what changed.",
        properties: || json!({"ref": element_ref()}),
        required: &["ref"],
        tab_param: TabParam::Optional,
    },
    Entry {
        name: "wait_for",
        route: Route::Page("wait_for"),
        level: ToolLevel::L1,
        effect: ToolEffect::Read,
        description: "Wait for text to appear, textGone to vanish (up to 30 s) or timeMs to pass; give one.",
        properties: || {
            json!({
                "text": {"type": "string", "minLength": 1, "maxLength": 500},
                "textGone": {"type": "string", "minLength": 1, "maxLength": 500},
                "timeMs": {"type": "integer", "minimum": 0, "maximum": WAIT_FOR_MAX_MS}
            })
        },
        required: &[],
        tab_param: TabParam::Optional,
    },
    Entry {
        name: "press_key",
        route: Route::Page("press_key"),
        level: ToolLevel::L1,
        effect: ToolEffect::Write,
        description: "Press a key (Enter, Escape, Control+a, Shift+Tab) on ref's element, else the focused one.",
        properties: || {
            json!({
                "key": {"type": "string", "minLength": 1, "maxLength": 64},
                "ref": element_ref()
            })
        },
        required: &["key"],
        tab_param: TabParam::Optional,
    },
    Entry {
        name: "batch_actions",
        route: Route::Page("batch_actions"),
        level: ToolLevel::L1,
        effect: ToolEffect::Write,
        description: "Up to 6 actions in order, each {kind, params} with that tool's params (e.g. fill a form and submit). Stops if the page changes.",
        properties: || {
            json!({
                "actions": {
                    "type": "array",
                    "maxItems": 6,
                    "items": {
                        "type": "object",
                        "properties": {
                            "kind": {"type": "string", "enum": ["click", "type", "select_option"]},
                            "params": {"type": "object"}
                        },
                        "required": ["kind", "params"],
                        "additionalProperties": false
                    }
                }
            })
        },
        required: &["actions"],
        tab_param: TabParam::Optional,
    },
    Entry {
        name: "click_trusted",
        route: Route::Debugger(DebuggerTool::ClickTrusted),
        level: ToolLevel::L2,
        effect: ToolEffect::Write,
        description: "Click ref's element with a real mouse (debugger): for popups and pages that ignore click. Dialogs are dismissed unless acceptDialogs.",
        properties: || json!({"ref": element_ref(), "acceptDialogs": {"type": "boolean"}}),
        required: &["ref"],
        tab_param: TabParam::Optional,
    },
    Entry {
        name: "type_trusted",
        route: Route::Debugger(DebuggerTool::TypeTrusted),
        level: ToolLevel::L2,
        effect: ToolEffect::Write,
        description: "Type into ref's element with real key input (debugger), when type did not register; replaces unless mode append.",
        properties: || {
            json!({
                "ref": element_ref(),
                "text": {"type": "string", "maxLength": 20000},
                "mode": {"type": "string", "enum": ["replace", "append"]},
                "acceptDialogs": {"type": "boolean"}
            })
        },
        required: &["ref", "text"],
        tab_param: TabParam::Optional,
    },
    Entry {
        name: "screenshot",
        route: Route::Debugger(DebuggerTool::Screenshot),
        level: ToolLevel::L2,
        effect: ToolEffect::Read,
        description: "PNG of the tab's viewport, shown to the user; you get its size.",
        properties: no_properties,
        required: &[],
        tab_param: TabParam::Optional,
    },
    Entry {
        name: "run_javascript",
        route: Route::Debugger(DebuggerTool::RunJavascript),
        level: ToolLevel::L2,
        effect: ToolEffect::Write,
        description: "Run code (an async function body; return a JSON value) in the page; returns the value or the exception.",
        properties: || {
            json!({
                "code": {"type": "string", "minLength": 1, "maxLength": 20000},
                "acceptDialogs": {"type": "boolean"}
            })
        },
        required: &["code"],
        tab_param: TabParam::Optional,
    },
];

/// Whether a tool reads or writes, by name.
pub(crate) fn effect(name: &str) -> Option<ToolEffect> {
    CATALOG.iter().find(|entry| entry.name == name).map(|entry| entry.effect)
}

/// How a tool runs, by name.
pub(crate) fn route(name: &str) -> Option<Route> {
    CATALOG.iter().find(|entry| entry.name == name).map(|entry| entry.route)
}

/// The descriptors of every gateway tool, in catalog order.
pub(crate) fn descriptors() -> Vec<ToolDescriptor> {
    CATALOG.iter().map(descriptor).collect()
}

/// The registry of this build. A failed registration is a bug in the static catalog (a test
/// registers every row), so it is skipped rather than taking the worker down.
pub(crate) fn registry() -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    for tool in descriptors() {
        let _ = registry.register(tool);
    }
    registry
}

fn descriptor(entry: &Entry) -> ToolDescriptor {
    let mut properties = match (entry.properties)() {
        Value::Object(map) => map,
        _ => serde_json::Map::new(),
    };
    let mut required: Vec<&str> = entry.required.to_vec();
    if entry.tab_param != TabParam::None {
        // How the default tab is chosen is said once, in the kernel prompt.
        properties.insert(TAB_ID_PARAM.to_owned(), json!({"type": "integer", "minimum": 0}));
        if entry.tab_param == TabParam::Required {
            required.push(TAB_ID_PARAM);
        }
    }
    let parameters = json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    });
    ToolDescriptor::new(entry.name, entry.description, parameters, entry.level, entry.effect)
}

/// The tab a call names, if any (the schema makes it a non-negative integer).
pub(crate) fn tab_param(params: &Value) -> Option<u32> {
    params.get(TAB_ID_PARAM).and_then(Value::as_u64).and_then(|id| u32::try_from(id).ok())
}

/// The executor call for an L1 tool's parameters (without `tabId`), range-checked; the error is
/// for the model.
pub(crate) fn executor_call(executor_tool: &str, params: &Value) -> Result<ExecutorCall, String> {
    let mut rest = match params {
        Value::Object(map) => map.clone(),
        Value::Null => serde_json::Map::new(),
        other => return Err(format!("parameters must be an object, not {other}")),
    };
    rest.remove(TAB_ID_PARAM);
    let wire = json!({"tool": executor_tool, "params": rest});
    let call: ExecutorCall =
        serde_json::from_value(wire).map_err(|err| format!("invalid parameters: {err}"))?;
    call.check_ranges().map_err(|err| format!("invalid parameters: {err}"))?;
    Ok(call)
}

/// Whether a call names elements by ref, so it must go to the document the refs came from.
pub(crate) fn carries_refs(call: &ExecutorCall) -> bool {
    match call {
        ExecutorCall::Snapshot(p) => p.scope_ref.is_some(),
        ExecutorCall::Click(_)
        | ExecutorCall::Hover(_)
        | ExecutorCall::Type(_)
        | ExecutorCall::SelectOption(_)
        | ExecutorCall::GetRect(_)
        | ExecutorCall::ValidateRef(_)
        | ExecutorCall::Focus(_) => true,
        ExecutorCall::PressKey(p) => p.element_ref.is_some(),
        ExecutorCall::Scroll(p) => p.element_ref.is_some(),
        ExecutorCall::Extract(p) => p.element_ref.is_some(),
        ExecutorCall::BatchActions(p) => !p.actions.is_empty(),
        ExecutorCall::WaitFor(_) | ExecutorCall::FindInPage(_) | ExecutorCall::GetSelection(_) => {
            false
        }
    }
}

#[cfg(test)]
#[path = "catalog_tests.rs"]
mod tests;
