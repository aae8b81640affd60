//! The tool table against the lists of reference §6.1 and §6.3.

use pretty_assertions::assert_eq;

use super::*;

/// Reference §6.3, verbatim: every write tool of each category.
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
        ],
    ),
    ("organize", &["tabs_group", "tab_group_update"]),
    ("click", &["click", "click_xy", "click_trusted"]),
    ("fill", &["type", "type_trusted", "select_option", "press_key", "batch_actions"]),
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
        let mut listed: Vec<&str> =
            TOOLS.iter().filter(|it| it.2 == Some(category)).map(|it| it.0).collect();
        let mut want = tools.to_vec();
        listed.sort_unstable();
        want.sort_unstable();
        assert_eq!(listed, want, "category {name}");
        for tool in *tools {
            assert_eq!(classify(tool).effect, Effect::Write, "{tool}");
        }
    }
}

#[test]
fn always_allowed_and_special_tools() {
    let always: Vec<&str> =
        TOOLS.iter().filter(|it| it.1 == Effect::AlwaysAllowed).map(|it| it.0).collect();
    assert_eq!(
        always,
        ["memory_read", "load_skill", "ask_user", "request_user_action", "schedule_resume"]
    );
    let destination: Vec<&str> = TOOLS
        .iter()
        .filter(|it| it.1 == Effect::Write && it.3 == TargetKind::Destination)
        .map(|it| it.0)
        .collect();
    assert_eq!(destination, ["tab_open", "navigate", "download"]);
    assert_eq!(classify("scroll").effect, Effect::Read);
    assert_eq!(
        classify("mcp__fs__read_file"),
        ToolInfo {
            effect: Effect::Write,
            category: Some(ToolCategory::Mcp),
            target: TargetKind::Originless
        }
    );
    assert_eq!(
        classify("brand_new_tool"),
        ToolInfo { effect: Effect::Write, category: None, target: TargetKind::Page }
    );
    assert!(is_known("navigate"));
    assert!(!is_known("mcp__fs__read_file"));
}

#[test]
fn every_tool_is_listed_once() {
    let mut names: Vec<&str> = TOOLS.iter().map(|it| it.0).collect();
    let n_tools = names.len();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), n_tools);
}
