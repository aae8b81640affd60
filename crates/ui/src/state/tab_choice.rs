//! The browser context of a message: which tab it is about (its default tab, the one tools use
//! when they name none), chosen from the tabs `chrome.tabs` reports at the moment of sending.
//!
//! The side panel sits beside the tabs of its own window, so its default tab is that window's
//! active tab. The full-page chat is a tab itself: the user looks at it while typing, so its
//! default tab is the active tab of the last focused normal window when that is a web page, else
//! the web tab used most recently. Extension pages (Panelot's own included) and browser pages
//! (`chrome://`, `about:`) are never a default tab: no tool can act on them.

use panelot_protocol::engine::BrowserContext;
use panelot_protocol::engine::ContextBlock;
use panelot_protocol::engine::TabRef;

use crate::state::urls::is_web_url;

/// A tab as `chrome.tabs` reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct TabInfo {
    /// `tab.id`.
    pub tab_id: u32,
    /// `tab.windowId`.
    pub window_id: u32,
    /// `tab.url`.
    pub url: String,
    /// `tab.title`.
    pub title: String,
    /// `tab.active`: the selected tab of its window.
    pub active: bool,
    /// `tab.lastAccessed`: when the tab was last active, in ms since the Unix epoch.
    pub last_accessed_ms: f64,
}

impl TabInfo {
    /// Reads one `chrome.tabs.Tab`; `None` for a tab without an id or a window (devtools
    /// windows, say). A missing URL or title reads as empty, which is never a web page.
    pub fn from_json(tab: &serde_json::Value) -> Option<TabInfo> {
        let id = |name: &str| tab[name].as_u64().and_then(|n| u32::try_from(n).ok());
        let text = |name: &str| tab[name].as_str().unwrap_or_default().to_owned();
        Some(TabInfo {
            tab_id: id("id")?,
            window_id: id("windowId")?,
            url: text("url"),
            title: text("title"),
            active: tab["active"].as_bool().unwrap_or(false),
            last_accessed_ms: tab["lastAccessed"].as_f64().unwrap_or(0.0),
        })
    }

    /// The tab as a message's context names it.
    pub fn to_tab_ref(&self) -> TabRef {
        TabRef {
            tab_id: self.tab_id,
            window_id: Some(self.window_id),
            url: self.url.clone(),
            title: self.title.clone(),
        }
    }
}

/// Where the page that sends a message is, which decides the tab the message is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Viewer {
    /// The side panel of the window `window_id`.
    SidePanel {
        /// `chrome.windows.getCurrent()` of the panel.
        window_id: u32,
    },
    /// A page in a tab (the full-page chat).
    Tab {
        /// The last focused window of type `normal`, if any.
        last_focused_window: Option<u32>,
    },
}

/// The default tab for a message sent from `viewer`, among `tabs`: see the module doc.
pub fn default_tab(viewer: Viewer, tabs: &[TabInfo]) -> Option<&TabInfo> {
    let active_web_tab_of =
        |window_id: u32| tabs.iter().find(|t| t.window_id == window_id && t.active);
    match viewer {
        Viewer::SidePanel { window_id } => {
            active_web_tab_of(window_id).filter(|t| is_web_url(&t.url))
        }
        Viewer::Tab { last_focused_window } => last_focused_window
            .and_then(active_web_tab_of)
            .filter(|t| is_web_url(&t.url))
            .or_else(|| {
                tabs.iter()
                    .filter(|t| is_web_url(&t.url))
                    .max_by(|a, b| a.last_accessed_ms.total_cmp(&b.last_accessed_ms))
            }),
    }
}

/// The browser context of a message sent from `viewer` at `captured_at_ms`: its default tab,
/// and the other tabs its `attached` context comes from.
pub fn browser_context(
    viewer: Viewer,
    tabs: &[TabInfo],
    captured_at_ms: u64,
    attached: &[ContextBlock],
) -> BrowserContext {
    let default_tab = default_tab(viewer, tabs).map(TabInfo::to_tab_ref);
    let mut referenced_tabs: Vec<TabRef> = Vec::new();
    for tab in attached.iter().filter_map(|block| block.tab.as_ref()) {
        let known = default_tab.iter().chain(&referenced_tabs).any(|t| t.tab_id == tab.tab_id);
        if !known {
            referenced_tabs.push(tab.clone());
        }
    }
    BrowserContext { captured_at_ms, default_tab, referenced_tabs }
}

#[cfg(test)]
#[path = "tab_choice_tests.rs"]
mod tests;
