//! What the gatekeeper knows about each tool: read or write, rule category, and where its
//! target origin comes from. One table, reference §5.1 and §6.1/§6.3; unknown tools are
//! treated as page writes so a new tool is gated until someone classifies it.

/// How the gatekeeper treats a tool's effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Allowed under every policy (reference §6.1 "always allowed").
    AlwaysAllowed,
    /// A read: allowed unless the policy is `Always`.
    Read,
    /// A write: runs the full gatekeeper order.
    Write,
}

/// Where a tool's target origin comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetKind {
    /// The origin of the page the tool acts on, supplied by the caller.
    Page,
    /// The `url` parameter: the tool is judged by its destination.
    Destination,
    /// The tool has no origin; only `*` origin patterns match it.
    Originless,
}

/// The rule categories of reference §6.3 (write tools only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ToolCategory {
    /// Moving between pages and tabs.
    Navigate,
    /// Grouping tabs.
    Organize,
    /// Clicking.
    Click,
    /// Typing, selecting and key presses.
    Fill,
    /// Running page JavaScript.
    Eval,
    /// Downloading files.
    Download,
    /// Uploading files.
    Upload,
    /// Hovering and dragging.
    Interact,
    /// Writing agent memory.
    Memory,
    /// Every `mcp__*` tool.
    Mcp,
}

/// Category names as written in rules (`category:fill`).
pub const CATEGORY_NAMES: &[(ToolCategory, &str)] = &[
    (ToolCategory::Navigate, "navigate"),
    (ToolCategory::Organize, "organize"),
    (ToolCategory::Click, "click"),
    (ToolCategory::Fill, "fill"),
    (ToolCategory::Eval, "eval"),
    (ToolCategory::Download, "download"),
    (ToolCategory::Upload, "upload"),
    (ToolCategory::Interact, "interact"),
    (ToolCategory::Memory, "memory"),
    (ToolCategory::Mcp, "mcp"),
];

impl ToolCategory {
    /// Parses a category name as written after `category:`.
    pub fn parse(name: &str) -> Option<ToolCategory> {
        CATEGORY_NAMES.iter().find(|(_, it)| *it == name).map(|(category, _)| *category)
    }

    /// The name written after `category:`.
    pub fn name(self) -> &'static str {
        CATEGORY_NAMES.iter().find(|(it, _)| *it == self).map_or("", |(_, name)| name)
    }
}

/// Everything the gatekeeper needs to know about one tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolInfo {
    /// Read, write or always allowed.
    pub effect: Effect,
    /// The rule category, for writes.
    pub category: Option<ToolCategory>,
    /// Where the target origin comes from.
    pub target: TargetKind,
}

/// Prefix of MCP tool names (`mcp__{serverId}__{tool}`).
pub const MCP_PREFIX: &str = "mcp__";

use Effect::AlwaysAllowed;
use Effect::Read;
use Effect::Write;
use TargetKind::Destination;
use TargetKind::Originless;
use TargetKind::Page;

/// The catalog of reference §5.1. `scroll` is a read by design; `watch_page` only observes.
const TOOLS: &[(&str, Effect, Option<ToolCategory>, TargetKind)] = &[
    // L0: tabs and browser data.
    ("tabs_list", Read, None, Originless),
    ("tab_open", Write, Some(ToolCategory::Navigate), Destination),
    ("tab_focus", Write, Some(ToolCategory::Navigate), Page),
    ("tab_close", Write, Some(ToolCategory::Navigate), Page),
    ("navigate", Write, Some(ToolCategory::Navigate), Destination),
    ("go_back", Write, Some(ToolCategory::Navigate), Page),
    ("go_forward", Write, Some(ToolCategory::Navigate), Page),
    ("history_search", Read, None, Originless),
    ("bookmarks_search", Read, None, Originless),
    ("top_sites", Read, None, Originless),
    ("sessions_recently_closed", Read, None, Originless),
    ("session_restore", Write, Some(ToolCategory::Navigate), Originless),
    ("tab_groups_list", Read, None, Originless),
    ("tabs_group", Write, Some(ToolCategory::Organize), Originless),
    ("tab_group_update", Write, Some(ToolCategory::Organize), Originless),
    // L1: content script.
    ("read_page", Read, None, Page),
    ("find_in_page", Read, None, Page),
    ("extract", Read, None, Page),
    ("get_selection", Read, None, Page),
    ("click", Write, Some(ToolCategory::Click), Page),
    ("type", Write, Some(ToolCategory::Fill), Page),
    ("select_option", Write, Some(ToolCategory::Fill), Page),
    ("scroll", Read, None, Page),
    ("hover", Write, Some(ToolCategory::Interact), Page),
    ("wait_for", Read, None, Page),
    ("batch_actions", Write, Some(ToolCategory::Fill), Page),
    ("run_javascript", Write, Some(ToolCategory::Eval), Page),
    // L2: CDP.
    ("press_key", Write, Some(ToolCategory::Fill), Page),
    ("read_page_deep", Read, None, Page),
    ("screenshot", Read, None, Page),
    ("click_xy", Write, Some(ToolCategory::Click), Page),
    ("drag", Write, Some(ToolCategory::Interact), Page),
    ("click_trusted", Write, Some(ToolCategory::Click), Page),
    ("type_trusted", Write, Some(ToolCategory::Fill), Page),
    ("upload_file", Write, Some(ToolCategory::Upload), Page),
    // Builtins.
    ("fetch_url", Read, None, Destination),
    ("memory_read", AlwaysAllowed, None, Originless),
    ("memory_write", Write, Some(ToolCategory::Memory), Originless),
    ("load_skill", AlwaysAllowed, None, Originless),
    ("download", Write, Some(ToolCategory::Download), Destination),
    ("artifact_create", Write, None, Originless),
    ("ask_user", AlwaysAllowed, None, Originless),
    ("request_user_action", AlwaysAllowed, None, Originless),
    ("watch_page", Read, None, Page),
    ("schedule_resume", AlwaysAllowed, None, Originless),
];

/// Classifies a tool. MCP tools are originless writes whatever their `readOnlyHint` says;
/// unknown tools are uncategorised page writes.
pub fn classify(tool: &str) -> ToolInfo {
    if tool.starts_with(MCP_PREFIX) {
        return ToolInfo { effect: Write, category: Some(ToolCategory::Mcp), target: Originless };
    }
    match TOOLS.iter().find(|(name, _, _, _)| *name == tool) {
        Some(&(_, effect, category, target)) => ToolInfo { effect, category, target },
        None => ToolInfo { effect: Write, category: None, target: Page },
    }
}

/// Whether `tool` is in the built-in catalog (MCP tools are not).
pub fn is_known(tool: &str) -> bool {
    TOOLS.iter().any(|(name, _, _, _)| *name == tool)
}

#[cfg(test)]
#[path = "tools_tests.rs"]
mod tests;
