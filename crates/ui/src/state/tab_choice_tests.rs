//! Tests of the tab_choice module.

use panelot_protocol::engine::ContextContent;
use panelot_protocol::engine::ContextKind;
use panelot_protocol::engine::Provenance;
use panelot_protocol::engine::Trust;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

/// A tab: `(id, window, url, active, lastAccessed)`.
fn tab(tab_id: u32, window_id: u32, url: &str, active: bool, last_accessed_ms: f64) -> TabInfo {
    TabInfo {
        tab_id,
        window_id,
        url: url.to_owned(),
        title: format!("Tab {tab_id}"),
        active,
        last_accessed_ms,
    }
}

const CHAT: &str = "chrome-extension://abcdefghijklmnopabcdefghijklmnop/chat.html?thread=t1";

#[track_caller]
fn check(viewer: Viewer, tabs: &[TabInfo], expected: Option<u32>) {
    assert_eq!(default_tab(viewer, tabs).map(|t| t.tab_id), expected, "{viewer:?}");
}

#[test]
fn the_side_panel_is_about_the_active_tab_of_its_own_window() {
    let tabs = [
        tab(1, 10, "https://a.example/", false, 300.0),
        tab(2, 10, "https://b.example/", true, 200.0),
        tab(3, 20, "https://c.example/", true, 900.0),
    ];
    check(Viewer::SidePanel { window_id: 10 }, &tabs, Some(2));
    check(Viewer::SidePanel { window_id: 20 }, &tabs, Some(3));
    // A window with no tabs known (closed since): nothing, never another window's tab.
    check(Viewer::SidePanel { window_id: 30 }, &tabs, None);
}

#[test]
fn the_side_panel_beside_a_browser_or_extension_page_has_no_default_tab() {
    for url in ["chrome://extensions/", CHAT, "about:blank", "edge://settings/"] {
        // The most recent web tab elsewhere is not taken instead: the panel is about its window.
        let tabs = [tab(1, 10, url, true, 900.0), tab(2, 10, "https://a.example/", false, 800.0)];
        check(Viewer::SidePanel { window_id: 10 }, &tabs, None);
    }
}

#[test]
fn the_chat_page_is_about_the_active_web_tab_of_the_last_focused_normal_window() {
    let tabs = [
        tab(1, 10, "https://a.example/", true, 100.0),
        tab(2, 20, "http://b.example/", true, 50.0),
        tab(3, 20, "https://c.example/", false, 900.0),
    ];
    check(Viewer::Tab { last_focused_window: Some(20) }, &tabs, Some(2));
    check(Viewer::Tab { last_focused_window: Some(10) }, &tabs, Some(1));
    let file = [tab(4, 10, "file:///home/ada/notes.html", true, 1.0)];
    check(Viewer::Tab { last_focused_window: Some(10) }, &file, Some(4));
}

#[test]
fn the_chat_page_otherwise_takes_the_web_tab_used_last() {
    // The chat tab is the active tab of its window (where the user types): the most recently
    // used web tab of any window is the one the message is about, never a browser page.
    let tabs = [
        tab(1, 10, CHAT, true, 1_000.0),
        tab(2, 10, "https://a.example/", false, 700.0),
        tab(3, 20, "chrome://settings/", true, 950.0),
        tab(4, 20, "https://b.example/", false, 800.0),
        tab(5, 30, "https://c.example/", true, 600.0),
    ];
    check(Viewer::Tab { last_focused_window: Some(10) }, &tabs, Some(4));
    check(Viewer::Tab { last_focused_window: Some(20) }, &tabs, Some(4));
    check(Viewer::Tab { last_focused_window: None }, &tabs, Some(4));
    // No web page anywhere: no default tab.
    let none = [tab(1, 10, CHAT, true, 1_000.0), tab(3, 20, "chrome://newtab/", true, 950.0)];
    check(Viewer::Tab { last_focused_window: Some(10) }, &none, None);
    check(Viewer::Tab { last_focused_window: None }, &[], None);
}

#[test]
fn tabs_are_read_as_chrome_reports_them() {
    let reported = json!({"id": 7, "windowId": 3, "url": "https://a.example/x", "title": "A page",
        "active": true, "lastAccessed": 1_700_000_000_123.5, "index": 0, "pinned": false});
    assert_eq!(
        TabInfo::from_json(&reported),
        Some(TabInfo {
            tab_id: 7,
            window_id: 3,
            url: "https://a.example/x".to_owned(),
            title: "A page".to_owned(),
            active: true,
            last_accessed_ms: 1_700_000_000_123.5,
        })
    );
    // Without the `tabs` permission Chrome leaves out url and title: such a tab is no web page.
    let bare = TabInfo::from_json(&json!({"id": 8, "windowId": 3, "active": false})).unwrap();
    assert_eq!((bare.url.as_str(), bare.title.as_str(), bare.last_accessed_ms), ("", "", 0.0));
    assert_eq!(TabInfo::from_json(&json!({"windowId": 3})), None);
    assert_eq!(TabInfo::from_json(&json!({"id": -1, "windowId": 3})), None);
}

#[test]
fn the_context_names_the_default_tab_and_the_other_tabs_attached() {
    let tabs = [tab(2, 10, "https://b.example/", true, 200.0)];
    let attached_from = |tab: Option<TabRef>| ContextBlock {
        kind: ContextKind::Page,
        label: "A page".to_owned(),
        origin: None,
        trust: Trust::Untrusted,
        provenance: Provenance::Page,
        source_ref: None,
        content: ContextContent::Empty,
        tab,
        approx_tokens: None,
    };
    let other = TabRef {
        tab_id: 5,
        window_id: Some(11),
        url: "https://e.example/".to_owned(),
        title: "E".to_owned(),
    };
    let attached = [
        attached_from(Some(other.clone())),
        attached_from(Some(tabs[0].to_tab_ref())),
        attached_from(None),
        attached_from(Some(other.clone())),
    ];
    let context = browser_context(Viewer::SidePanel { window_id: 10 }, &tabs, 42, &attached);
    assert_eq!(
        context,
        BrowserContext {
            captured_at_ms: 42,
            default_tab: Some(TabRef {
                tab_id: 2,
                window_id: Some(10),
                url: "https://b.example/".to_owned(),
                title: "Tab 2".to_owned(),
            }),
            referenced_tabs: vec![other],
        }
    );
    let none = browser_context(Viewer::SidePanel { window_id: 99 }, &tabs, 7, &[]);
    assert_eq!(
        none,
        BrowserContext { captured_at_ms: 7, default_tab: None, referenced_tabs: Vec::new() }
    );
}
