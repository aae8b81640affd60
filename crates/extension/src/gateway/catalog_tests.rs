//! The core catalog's page tools against the executor's parameter types, the prompt budget, and
//! which elements a write is judged by.

use panelot_core::tools::ToolEffect;
use panelot_core::tools::ToolRegistry;
use panelot_core::tools::catalog::CATALOG;
use panelot_core::tools::catalog::Route;
use panelot_core::tools::catalog::route;
use panelot_core::tools::catalog::tab_param;
use panelot_core::tools::validate_params;
use panelot_protocol::CONTENT_SCHEMA_HASH;
use panelot_protocol::content::CONTENT_PROTOCOL;
use panelot_protocol::decode_content_request;
use panelot_protocol::engine::ToolLevel;
use serde_json::Value;
use serde_json::json;

use super::*;

/// The levels offered when a turn names none: L2 (the debugger) is offered only to a turn that
/// enables it, so its specs cost nothing by default.
const DEFAULT_LEVELS: &[ToolLevel] =
    &[ToolLevel::L0, ToolLevel::L1, ToolLevel::Mcp, ToolLevel::Builtin];

/// Example calls of each page tool that together set every parameter its schema offers.
fn full_examples() -> Vec<(&'static str, Value)> {
    vec![
        ("read_page", json!({"maxTokens": 1200, "scopeRef": "e4", "tabId": 3})),
        ("find_in_page", json!({"query": "Sign in", "tabId": 3})),
        ("extract", json!({"ref": "e2", "fromChar": 8000, "tabId": 3})),
        ("get_selection", json!({"tabId": 3})),
        ("click", json!({"ref": "e1", "button": "right", "doubleClick": true, "tabId": 3})),
        (
            "type",
            json!({"ref": "e1", "text": "Ada", "mode": "append", "submit": true, "slowly": true,
                "tabId": 3}),
        ),
        ("select_option", json!({"ref": "e5", "values": ["Japan", "jp"], "tabId": 3})),
        (
            "scroll",
            json!({"ref": "e7", "direction": "down", "amount": {"unit": "pixels", "px": 400},
                "tabId": 3}),
        ),
        ("hover", json!({"ref": "e1", "tabId": 3})),
        // Exactly one condition a call: three calls cover the schema.
        ("wait_for", json!({"text": "Saved", "tabId": 3})),
        ("wait_for", json!({"textGone": "Loading"})),
        ("wait_for", json!({"timeMs": 500})),
        ("press_key", json!({"key": "Control+a", "ref": "e1", "tabId": 3})),
        (
            "batch_actions",
            json!({"actions": [
                {"kind": "type", "params": {"ref": "e1", "text": "Ada"}},
                {"kind": "select_option", "params": {"ref": "e3", "values": ["Japan"]}},
                {"kind": "click", "params": {"ref": "e6"}}
            ], "tabId": 3}),
        ),
        ("upload_file", json!({"ref": "e9", "attachment": "att-1", "tabId": 3})),
    ]
}

/// Parameters the engine adds to a dispatched call of `tool` (never offered to the model):
/// `upload_file`'s file, read from the thread's store.
fn handed_by_engine(tool: &str) -> Value {
    match tool {
        "upload_file" => json!({"name": "a.txt", "mime": "text/plain", "dataBase64": "QUJD"}),
        _ => json!({}),
    }
}

fn registry() -> ToolRegistry {
    panelot_core::tools::registry(|_| true)
}

fn schema_of(name: &str) -> Value {
    registry().get(name).unwrap().parameters.clone()
}

fn property_names(schema: &Value) -> Vec<String> {
    let mut names: Vec<String> =
        schema["properties"].as_object().unwrap().keys().cloned().collect();
    names.sort();
    names
}

#[test]
fn schemas_and_executor_params_agree_both_ways() {
    let examples = full_examples();
    let page_tools: Vec<&str> = CATALOG
        .iter()
        .filter(|e| matches!(e.offer.map(|o| o.route), Some(Route::Page(_))))
        .map(|e| e.name)
        .collect();
    let mut examined: Vec<&str> = examples.iter().map(|(name, _)| *name).collect();
    examined.dedup();
    assert_eq!(examined, page_tools, "examples for every page tool, in catalog order");

    for tool in page_tools {
        let schema = schema_of(tool);
        let offered = property_names(&schema);
        let mut used = Vec::new();
        let mut taken = vec![TAB_ID_PARAM.to_owned()];
        for (_, example) in examples.iter().filter(|(name, _)| *name == tool) {
            used.extend(example.as_object().unwrap().keys().cloned());
            validate_params(&schema, example).unwrap_or_else(|e| panic!("{tool}: {e}"));

            // The executor takes every parameter the model may send (its params deny unknown
            // fields)...
            let Some(Route::Page(page_tool)) = route(tool) else { panic!("{tool}") };
            let executor_tool = super::executor_tool(page_tool);
            let handed = handed_by_engine(tool);
            let mut sent = example.clone();
            for (name, value) in handed.as_object().unwrap() {
                sent[name] = value.clone();
            }
            let call =
                executor_call(executor_tool, &sent).unwrap_or_else(|e| panic!("{tool}: {e}"));

            // ...and the request the gateway sends passes the protocol's own strict decoder.
            let wire = serde_json::to_value(&call).unwrap();
            assert_eq!(wire["tool"], executor_tool);
            let params = wire["params"].as_object().unwrap().keys();
            taken.extend(params.filter(|name| handed.get(name.as_str()).is_none()).cloned());
            let request = json!({"protocol": CONTENT_PROTOCOL, "schemaHash": CONTENT_SCHEMA_HASH,
                "requestId": "gw-1-0", "deadlineAtMs": 1, "refDocumentId": "doc-1",
                "expected": {"documentId": "doc-1", "origin": "https://shop.test"},
                "op": {"kind": "execute", "call": wire}});
            decode_content_request(request).unwrap_or_else(|e| panic!("{tool}: {e}"));
        }
        used.push(TAB_ID_PARAM.to_owned());
        for names in [&mut used, &mut taken] {
            names.sort();
            names.dedup();
        }
        assert_eq!(used, offered, "{tool}: the examples must set every offered property");
        // The executor has no parameter the model is not offered.
        assert_eq!(taken, offered, "{tool}: executor params vs schema");
    }
}

#[test]
fn minimal_calls_decode_and_bad_ones_are_explained() {
    let call = executor_call("read_page", &json!({})).unwrap();
    assert!(!carries_refs(&call));
    let call = executor_call("click", &json!({"ref": "e1"})).unwrap();
    assert!(carries_refs(&call));
    assert!(!carries_refs(&executor_call("scroll", &json!({"direction": "up"})).unwrap()));

    let err = executor_call("wait_for", &json!({"text": "a", "timeMs": 5})).unwrap_err().0;
    assert!(err.contains("exactly one"), "{err}");
    let err = executor_call("select_option", &json!({"ref": "e1", "values": []})).unwrap_err().0;
    assert!(err.contains("values"), "{err}");
    let err = executor_call("click", &json!({"ref": "e 1"})).unwrap_err().0;
    assert!(err.starts_with("invalid parameters"), "{err}");
    assert!(validate_params(&schema_of("click"), &json!({"ref": "e1", "force": true})).is_err());
    assert!(validate_params(&schema_of("tab_focus"), &json!({})).is_err());
}

#[test]
fn tab_param_reads_only_valid_tab_ids() {
    assert_eq!(tab_param(&json!({"tabId": 7})), Some(7));
    assert_eq!(tab_param(&json!({"tabId": -1})), None);
    assert_eq!(tab_param(&json!({})), None);
}

/// What the model reads before any message: the kernel prompt and every tool offered by default
/// (the levels of `DEFAULT_LEVELS`: L2 is offered only to turns that enable it) with its name,
/// description and parameter schema (the three fields both wire formats send).
/// `PANELOT_PRINT_SPECS=1` prints each tool's share, for trimming.
fn fixed_prompt() -> String {
    let tools: Vec<Value> = registry()
        .specs(Some(DEFAULT_LEVELS), &[])
        .into_iter()
        .map(|spec| {
            json!({"name": spec.name, "description": spec.description, "parameters": spec.parameters})
        })
        .collect();
    if std::env::var_os("PANELOT_PRINT_SPECS").is_some() {
        let bpe = tiktoken_rs::o200k_base().unwrap();
        for tool in &tools {
            let text = serde_json::to_string(tool).unwrap();
            println!("{:>5} {}", bpe.encode_with_special_tokens(&text).len(), tool["name"]);
        }
    }
    format!("{}\n{}", panelot_core::context::KERNEL_PROMPT, serde_json::to_string(&tools).unwrap())
}

#[test]
fn kernel_prompt_and_tools_fit_in_1500_tokens() {
    // Sent with every model call, so every token here is paid on every step of every turn.
    let text = fixed_prompt();
    for (name, bpe) in
        [("o200k", tiktoken_rs::o200k_base()), ("cl100k", tiktoken_rs::cl100k_base())]
    {
        let tokens = bpe.unwrap().encode_with_special_tokens(&text).len();
        println!("{name}: {tokens} tokens, {} characters", text.len());
        assert!(tokens <= 1_500, "{name}: {tokens} tokens of kernel prompt and tool specs");
    }
}

#[test]
fn l2_tools_are_offered_only_when_the_turn_enables_l2() {
    let registry = registry();
    let l2 = [
        "click_trusted",
        "type_trusted",
        "press_key_trusted",
        "click_xy",
        "drag",
        "screenshot",
        "run_javascript",
    ];
    let names = |levels: Option<&[ToolLevel]>| -> Vec<String> {
        registry.specs(levels, &[]).into_iter().map(|spec| spec.name).collect()
    };
    let by_default = names(Some(DEFAULT_LEVELS));
    let enabled = names(Some(&[ToolLevel::L0, ToolLevel::L1, ToolLevel::L2, ToolLevel::Builtin]));
    for tool in l2 {
        assert!(!by_default.iter().any(|name| name == tool), "{tool} offered by default");
        assert!(enabled.iter().any(|name| name == tool), "{tool} not offered with L2");
        assert!(matches!(route(tool), Some(Route::Debugger(_))), "{tool}");
    }
    assert_eq!(registry.get("screenshot").map(|t| t.effect), Some(ToolEffect::Read));
    assert_eq!(registry.get("run_javascript").map(|t| t.effect), Some(ToolEffect::Write));
}

/// Every combination of the extras a thread may enable (L2, each tool group: memory loaded by
/// `load_tools`, `sidebar_open` by the user's setting): the extras are
/// offered exactly when enabled, and what each combination costs is printed (the budget holds
/// for the default; an extra is paid only by the threads that enable it).
#[test]
fn extras_are_offered_only_when_enabled_in_every_combination() {
    use panelot_core::tools::catalog::ALL_GROUPS;
    let registry = registry();
    let bpe = tiktoken_rs::o200k_base().unwrap();
    let groups = ALL_GROUPS.to_vec();
    let combos = 1usize << (groups.len() + 1);
    for combo in 0..combos {
        let l2 = combo & 1 == 1;
        let loaded: Vec<_> = groups
            .iter()
            .enumerate()
            .filter(|(i, _)| combo >> (i + 1) & 1 == 1)
            .map(|(_, g)| *g)
            .collect();
        let mut levels = DEFAULT_LEVELS.to_vec();
        if l2 {
            levels.push(ToolLevel::L2);
        }
        let specs = registry.specs(Some(&levels), &loaded);
        for row in CATALOG.iter().filter(|row| row.offer.is_some()) {
            let enabled = (row.level != ToolLevel::L2 || l2)
                && row.group.is_none_or(|group| loaded.contains(&group));
            let offered = specs.iter().any(|spec| spec.name == row.name);
            assert_eq!(offered, enabled, "{} with L2 {l2}, groups {loaded:?}", row.name);
        }
        let text = serde_json::to_string(
            &specs
                .iter()
                .map(|s| json!({"name": s.name, "description": s.description, "parameters": s.parameters}))
                .collect::<Vec<_>>(),
        )
        .unwrap();
        let tokens = bpe.encode_with_special_tokens(&text).len();
        println!("L2 {l2}, groups {loaded:?}: {tokens} o200k tokens of tool specs");
    }
}

#[test]
fn writes_are_judged_by_each_element_they_name_and_what_submits() {
    let names = |tool: &str, params: Value| -> Vec<(String, bool)> {
        described_elements(tool, &params)
            .into_iter()
            .map(|item| (item.element_ref.to_string(), item.submits))
            .collect()
    };
    assert_eq!(names("click", json!({"ref": "e1"})), [("e1".to_owned(), false)]);
    assert_eq!(
        names("type", json!({"ref": "e2", "text": "x", "submit": true})),
        [("e2".to_owned(), true)]
    );
    assert_eq!(names("press_key", json!({"ref": "e3", "key": "Enter"})), [("e3".to_owned(), true)]);
    assert_eq!(names("press_key", json!({"ref": "e3", "key": "Tab"})), [("e3".to_owned(), false)]);
    assert_eq!(
        names("press_key_trusted", json!({"ref": "e3", "key": "Enter"})),
        [("e3".to_owned(), true)]
    );
    assert_eq!(
        names("drag", json!({"from": {"ref": "e5"}, "to": {"ref": "e6"}})),
        [("e5".to_owned(), false), ("e6".to_owned(), false)]
    );
    assert!(names("drag", json!({"from": {"x": 1, "y": 2}, "to": {"x": 3, "y": 4}})).is_empty());
    assert!(names("click_xy", json!({"x": 1, "y": 2})).is_empty(), "a point names no element");
    assert_eq!(
        names(
            "batch_actions",
            json!({"actions": [
            {"kind": "type", "params": {"ref": "e1", "text": "a"}},
            {"kind": "type", "params": {"ref": "e2", "text": "b", "submit": true}},
            {"kind": "click", "params": {"ref": "e3"}}]})
        ),
        [("e1".to_owned(), false), ("e2".to_owned(), true), ("e3".to_owned(), false)]
    );
    assert!(names("read_page", json!({"scopeRef": "e4"})).is_empty(), "reads name no element");
    assert!(names("click", json!({"ref": "bad ref"})).is_empty(), "an invalid ref is not sent");
}

/// The MCP tools' cost shown in settings (characters / 4) against the o200k tokens of the same
/// specs as offered, for tools shaped like real servers' (GitHub-, search- and fetch-like).
#[test]
fn the_mcp_tool_cost_shown_in_settings_is_close_to_the_real_token_count() {
    use panelot_core::settings::McpCatalogTool;
    let tool = |name: &str, description: &str, schema: Value| McpCatalogTool {
        exposed_name: format!("mcp__work__{name}"),
        name: name.to_owned(),
        title: name.to_owned(),
        description: description.to_owned(),
        input_schema: schema,
    };
    let tools = [
        tool(
            "create_issue",
            "Create a new issue in a GitHub repository.",
            json!({"type": "object", "required": ["owner", "repo", "title"], "properties": {
                "owner": {"type": "string", "description": "Repository owner"},
                "repo": {"type": "string", "description": "Repository name"},
                "title": {"type": "string", "description": "Issue title"},
                "body": {"type": "string", "description": "Issue body content"},
                "labels": {"type": "array", "items": {"type": "string"},
                    "description": "Labels to apply to this issue"}}}),
        ),
        tool(
            "search",
            "Search the web and return the top results with their titles, URLs and snippets. \
             Use it for recent events or facts you are unsure of.",
            json!({"type": "object", "required": ["query"], "properties": {
                "query": {"type": "string", "description": "What to search for"},
                "count": {"type": "integer", "minimum": 1, "maximum": 20}}}),
        ),
        tool(
            "fetch",
            "Fetches a URL from the internet and extracts its contents as markdown.",
            json!({"type": "object", "required": ["url"], "properties": {
                "url": {"type": "string", "format": "uri", "description": "URL to fetch"},
                "max_length": {"type": "integer", "default": 5000},
                "raw": {"type": "boolean", "default": false}}}),
        ),
    ];
    let bpe = tiktoken_rs::o200k_base().unwrap();
    let shown: usize = tools.iter().map(McpCatalogTool::offered_chars).sum::<usize>() / 4;
    let offered: Vec<Value> = tools
        .iter()
        .map(|t| json!({"name": t.exposed_name, "description": t.description, "parameters": t.input_schema}))
        .collect();
    let real = bpe.encode_with_special_tokens(&serde_json::to_string(&offered).unwrap()).len();
    eprintln!("MCP tools: {shown} tokens shown, {real} o200k tokens");
    let (low, high) = (real * 7 / 10, real * 13 / 10);
    assert!((low..=high).contains(&shown), "shown {shown} vs real {real}");
}
