//! The catalog: categories and special tools as the permission model defines them, one row per
//! name, and every offered tool registering.

use pretty_assertions::assert_eq;

use super::*;

/// Every write tool of each rule category.
const CATEGORIES: &[(&str, &[&str])] = &[
    (
        "navigate",
        &[
            "navigate",
            "tab_open",
            "tab_focus",
            "tab_close",
            "go_back",
            "go_forward",
            "session_restore",
            // Opening a page beside the chat is a navigation the user's rules can name.
            "sidebar_open",
        ],
    ),
    ("organize", &["tabs_group", "tab_group_update"]),
    ("click", &["click", "click_xy", "click_trusted"]),
    (
        "fill",
        &[
            "type",
            "type_trusted",
            "select_option",
            "press_key",
            "press_key_trusted",
            "batch_actions",
        ],
    ),
    ("eval", &["run_javascript"]),
    ("download", &["download"]),
    ("upload", &["upload_file"]),
    ("interact", &["hover", "drag"]),
    ("memory", &["memory_write"]),
];

#[test]
fn categories_match_the_reference() {
    for (name, tools) in CATEGORIES {
        let category = ToolCategory::parse(name).expect("category");
        assert_eq!(category.name(), *name);
        let mut listed: Vec<&str> = CATALOG
            .iter()
            .filter(|it| it.info.category == Some(category))
            .map(|it| it.name)
            .collect();
        let mut want = tools.to_vec();
        listed.sort_unstable();
        want.sort_unstable();
        assert_eq!(listed, want, "category {name}");
        for tool in *tools {
            assert_eq!(classify(tool).access, Access::Write, "{tool}");
        }
    }
}

#[test]
fn always_allowed_and_special_tools() {
    let always: Vec<&str> =
        CATALOG.iter().filter(|it| it.info.access == AlwaysAllowed).map(|it| it.name).collect();
    assert_eq!(
        always,
        [
            "ask_user",
            "request_user_action",
            "load_tools",
            "memory_read",
            "load_skill",
            "schedule_resume"
        ]
    );
    let destination: Vec<&str> = CATALOG
        .iter()
        .filter(|it| {
            it.info.access == Write
                && matches!(it.info.target, TargetKind::Destination | TargetKind::TabDestination)
        })
        .map(|it| it.name)
        .collect();
    assert_eq!(destination, ["tab_open", "navigate", "sidebar_open", "download"]);
    assert_eq!(classify("scroll").access, Read);
    assert_eq!(
        classify("mcp__fs__read_file"),
        ToolInfo {
            access: Write,
            category: Some(ToolCategory::Mcp),
            target: TargetKind::Originless
        }
    );
    assert_eq!(
        classify("brand_new_tool"),
        ToolInfo { access: Write, category: None, target: TargetKind::Page }
    );
    assert!(find("navigate").is_some());
    assert!(find("mcp__fs__read_file").is_none());
}

#[test]
fn every_tool_is_listed_once() {
    let mut names: Vec<&str> = CATALOG.iter().map(|it| it.name).collect();
    let n_tools = names.len();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), n_tools);
}

#[test]
fn every_offered_tool_registers_and_is_offered_at_every_level() {
    let all = registry(|_| true);
    let offered = CATALOG.iter().filter(|it| it.offer.is_some()).count();
    let every_level =
        [ToolLevel::L0, ToolLevel::L1, ToolLevel::L2, ToolLevel::Mcp, ToolLevel::Builtin];
    assert_eq!(all.specs(Some(&every_level), &ALL_GROUPS).len(), offered);
    // A group's tools only once it is loaded; `load_tools` names every group.
    let grouped = CATALOG.iter().filter(|it| it.offer.is_some() && it.group.is_some()).count();
    assert_eq!(all.specs(Some(&every_level), &[]).len(), offered - grouped);
    let load = &all.get(LOAD_TOOLS).unwrap().description;
    for (group, name) in GROUP_NAMES {
        assert_eq!(ToolGroup::parse(name), Some(*group));
        assert!(load.contains(&format!(" {name} (")), "load_tools does not name {name}: {load}");
    }
    for group in ALL_GROUPS {
        assert!(group.tools().count() > 0, "{group:?} has no tools");
    }
    for row in CATALOG.iter().filter(|it| it.offer.is_some()) {
        let tool = all.get(row.name).unwrap();
        assert_eq!(tool.effect == ToolEffect::Write, row.info.access == Write, "{}", row.name);
        assert_eq!(route(row.name), row.offer.map(|o| o.route));
    }
    // A host that runs no debugger offers no L2 tool.
    let no_debugger = registry(|route| !matches!(route, Route::Debugger(_)));
    assert!(no_debugger.get("click_trusted").is_none());
    assert!(no_debugger.get("click").is_some());
}

#[test]
fn every_offered_tools_properties_are_a_json_object() {
    for row in CATALOG {
        if let Some(offer) = row.offer {
            let parsed: Result<Value, _> = serde_json::from_str(offer.properties);
            assert!(matches!(parsed, Ok(Value::Object(_))), "{}: {parsed:?}", row.name);
        }
    }
}

#[test]
fn schema_maxima_are_the_protocols_bounds() {
    let maximum = |tool: &str, param: &str| {
        let row = CATALOG.iter().find(|row| row.name == tool).and_then(|row| row.descriptor());
        row.and_then(|d| d.parameters["properties"][param]["maximum"].as_u64())
    };
    assert_eq!(
        maximum("read_page", "maxTokens"),
        Some(u64::from(panelot_protocol::content::SNAPSHOT_MAX_TOKENS))
    );
    assert_eq!(
        maximum("wait_for", "timeMs"),
        Some(u64::from(panelot_protocol::content::WAIT_FOR_MAX_MS))
    );
}
