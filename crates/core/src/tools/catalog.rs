//! The one catalog of tools Panelot knows: for each name, how the gatekeeper treats it (read or
//! write, rule category, where its target comes from) and, for the tools this workspace offers,
//! how it runs (its route), its level, description and parameters.
//!
//! The gatekeeper classifies by this table, the engine builds its registry from it, and a host
//! (the extension's gateway) maps each [`Route`] to its implementation with an exhaustive
//! `match`, so a tool cannot be offered without a classification or classified twice. Tools the
//! gatekeeper knows but no host here implements yet have no [`Offer`]; a host that registers one
//! of them by name gets its judgement from the same row. Unknown names are judged as page writes
//! so a new tool is gated until someone classifies it.

use panelot_protocol::engine::Provenance;
use panelot_protocol::engine::ToolLevel;
use panelot_protocol::engine::Trust;
use serde_json::Value;
use serde_json::json;

use super::descriptor::RecoveryClass;
use super::descriptor::ToolDescriptor;
use super::descriptor::ToolEffect;
use super::descriptor::ToolRegistry;

/// How the gatekeeper treats a tool's effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Allowed under every policy: it only asks the user or reads the engine's own data.
    AlwaysAllowed,
    /// A read: allowed unless the policy is `always`.
    Read,
    /// A write: runs the full gatekeeper order.
    Write,
}

/// Where a tool's target comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetKind {
    /// A page in a tab: the tab, its document and origin (and the elements named by refs, with
    /// where a click or submit leads) are resolved before judgement.
    Page,
    /// A tab moved to the `url` parameter: judged by that destination; the tab is resolved so
    /// the move goes to the tab that was judged.
    TabDestination,
    /// The `url` parameter, with no tab: judged by that destination.
    Destination,
    /// No origin; only `*` origin patterns match it.
    Originless,
}

/// The rule categories (write tools only), as rules name them (`category:fill`).
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
    pub access: Access,
    /// The rule category, for writes.
    pub category: Option<ToolCategory>,
    /// Where the target comes from.
    pub target: TargetKind,
}

/// Prefix of MCP tool names (`mcp__{serverId}__{tool}`).
pub const MCP_PREFIX: &str = "mcp__";

/// The parameter every tab-bound tool accepts to name its tab.
pub const TAB_ID_PARAM: &str = "tabId";

/// How an offered tool runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// Through the browser's tab API (L0).
    Tabs(TabTool),
    /// Through the page executor (L1).
    Page(PageTool),
    /// Through the debugger protocol (L2).
    Debugger(DebuggerTool),
    /// Over the network from the host, outside any tab: results are web content.
    Web(WebTool),
    /// By the engine itself: it asks the user.
    Engine,
    /// By the host, watching a tab until a condition holds, for as long as the engine lets
    /// it: the run meanwhile waits as an interaction the user can end.
    Watch,
}

/// The network tools, run by the host outside any tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WebTool {
    /// `fetch_url`.
    Fetch,
    /// `download`.
    Download,
}

/// The tab tools (L0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TabTool {
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

/// The page-executor tools (L1); each is one call of the executor protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageTool {
    /// `read_page`: the snapshot.
    ReadPage,
    /// `find_in_page`.
    FindInPage,
    /// `extract`.
    Extract,
    /// `get_selection`.
    GetSelection,
    /// `click`.
    Click,
    /// `type`.
    Type,
    /// `select_option`.
    SelectOption,
    /// `scroll`.
    Scroll,
    /// `hover`.
    Hover,
    /// `wait_for`.
    WaitFor,
    /// `press_key`.
    PressKey,
    /// `batch_actions`.
    BatchActions,
    /// `upload_file`.
    UploadFile,
}

/// The debugger tools (L2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DebuggerTool {
    /// `click_trusted`.
    ClickTrusted,
    /// `type_trusted`.
    TypeTrusted,
    /// `screenshot`.
    Screenshot,
    /// `run_javascript`.
    RunJavascript,
    /// `press_key_trusted`.
    PressKeyTrusted,
    /// `click_xy`.
    ClickXy,
    /// `drag`.
    Drag,
    /// `read_page_deep`.
    ReadPageDeep,
}

/// Whether an offered tool takes `tabId`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TabParam {
    /// It names no tab.
    None,
    /// It may name one; otherwise the run's tab.
    Optional,
    /// It must name one.
    Required,
}

/// How a tool is offered to the model and run.
#[derive(Debug, Clone, Copy)]
pub struct Offer {
    /// How it runs.
    pub route: Route,
    /// What the model reads about it.
    pub description: &'static str,
    /// Its parameters besides `tabId`, as JSON Schema properties: an object in JSON text, read
    /// when the tool is registered. Text rather than a `json!` builder per tool, whose code took
    /// more of the engine wasm than the text does.
    pub properties: &'static str,
    /// The required ones.
    pub required: &'static [&'static str],
    /// Whether it takes `tabId`.
    pub tab: TabParam,
}

/// One row of the catalog.
#[derive(Debug, Clone, Copy)]
pub struct CatalogTool {
    /// The name the model calls it by.
    pub name: &'static str,
    /// Its family: L2 tools act through the debugger, and their cards say so.
    pub level: ToolLevel,
    /// How the gatekeeper treats it.
    pub info: ToolInfo,
    /// How it is offered and run, for the tools this workspace implements.
    pub offer: Option<Offer>,
    /// The group it is offered with once a thread loads it (`load_tools`); `None` for the tools
    /// every model call offers.
    pub group: Option<ToolGroup>,
    /// Whether running it twice does what running it once does (a keyed put): recovery may
    /// run it again after a restart cut it, even though it writes.
    pub idempotent: bool,
}

pub use super::descriptor::ToolGroup;

/// Every group.
pub const ALL_GROUPS: [ToolGroup; 4] =
    [ToolGroup::Memory, ToolGroup::Opens, ToolGroup::Files, ToolGroup::Wait];

/// The groups `load_tools` loads, by the names it takes.
pub const GROUP_NAMES: &[(ToolGroup, &str)] =
    &[(ToolGroup::Memory, "memory"), (ToolGroup::Files, "files"), (ToolGroup::Wait, "wait")];

/// The tool that shows the model the page as an image: offered only to models that read
/// images.
pub const SCREENSHOT: &str = "screenshot";

/// The tool that opens a page beside the thread's view.
pub const SIDEBAR_OPEN: &str = "sidebar_open";

/// The tool that saves a document in the thread (an artifact).
pub const ARTIFACT_CREATE: &str = "artifact_create";

/// The tool that saves a URL or an artifact to the user's downloads.
pub const DOWNLOAD: &str = "download";

/// How `sidebar_open` names an artifact of its thread: `artifact:<filename>`.
pub const ARTIFACT_SCHEME: &str = "artifact:";

/// Whether a destination tool's call names an artifact of its own thread instead of a URL: a
/// `download` with `artifact` and no `url`, or a `sidebar_open` of `artifact:<filename>`. Such a
/// call goes to no site, so it is judged without an origin (only `*` rules match it and the
/// policy decides), on purpose rather than as a target that failed to parse, which would ask
/// under every policy.
pub fn names_artifact(tool: &str, params: &Value) -> bool {
    let text = |name: &str| params.get(name).and_then(Value::as_str);
    match tool {
        DOWNLOAD => text("url").is_none() && text("artifact").is_some(),
        SIDEBAR_OPEN => text("target").is_some_and(|target| {
            target
                .trim_start()
                .get(..ARTIFACT_SCHEME.len())
                .is_some_and(|scheme| scheme.eq_ignore_ascii_case(ARTIFACT_SCHEME))
        }),
        _ => false,
    }
}

impl ToolGroup {
    /// Parses a group name.
    pub fn parse(name: &str) -> Option<ToolGroup> {
        GROUP_NAMES.iter().find(|(_, it)| *it == name).map(|(group, _)| *group)
    }

    /// The name `load_tools` takes.
    pub fn name(self) -> &'static str {
        GROUP_NAMES.iter().find(|(it, _)| *it == self).map_or("", |(_, name)| name)
    }

    /// The offered tools of the group.
    pub fn tools(self) -> impl Iterator<Item = &'static CatalogTool> {
        CATALOG.iter().filter(move |row| row.group == Some(self) && row.offer.is_some())
    }
}

/// The tool that loads a group.
pub const LOAD_TOOLS: &str = "load_tools";

impl CatalogTool {
    /// The registry entry of an offered tool.
    pub fn descriptor(&self) -> Option<ToolDescriptor> {
        let offer = self.offer?;
        // The texts are constants, each parsed as an object by a test.
        let mut properties = match serde_json::from_str(offer.properties) {
            Ok(Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        };
        let mut required: Vec<&str> = offer.required.to_vec();
        if offer.tab != TabParam::None {
            // How the default tab is chosen is said once, in the kernel prompt.
            properties.insert(TAB_ID_PARAM.to_owned(), json!({"type": "integer", "minimum": 0}));
            if offer.tab == TabParam::Required {
                required.push(TAB_ID_PARAM);
            }
        }
        let parameters = json!({
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
        });
        let effect = match self.info.access {
            Access::Write => ToolEffect::Write,
            Access::Read | Access::AlwaysAllowed => ToolEffect::Read,
        };
        let mut descriptor =
            ToolDescriptor::new(self.name, offer.description, parameters, self.level, effect);
        if let Route::Web(_) = offer.route {
            // What a server sends is web content, whoever asked for it.
            descriptor.result_trust = Trust::Untrusted;
            descriptor.result_provenance = Provenance::Page;
        }
        if self.group == Some(ToolGroup::Memory) {
            // A note may hold what a page once said: data, never instructions.
            descriptor.result_trust = Trust::Untrusted;
        }
        if self.idempotent {
            descriptor.recovery = RecoveryClass::RetrySafe;
        }
        descriptor.group = self.group;
        Some(descriptor)
    }
}

const fn info(access: Access, category: Option<ToolCategory>, target: TargetKind) -> ToolInfo {
    ToolInfo { access, category, target }
}

const fn known(name: &'static str, level: ToolLevel, info: ToolInfo) -> CatalogTool {
    CatalogTool { name, level, info, offer: None, group: None, idempotent: false }
}

const fn offered(
    name: &'static str,
    level: ToolLevel,
    info: ToolInfo,
    offer: Offer,
) -> CatalogTool {
    CatalogTool { name, level, info, offer: Some(offer), group: None, idempotent: false }
}

impl CatalogTool {
    /// The row, offered only once its thread loaded `group`.
    const fn in_group(self, group: ToolGroup) -> CatalogTool {
        CatalogTool { group: Some(group), ..self }
    }

    /// The row, marked safe to run again (see [`CatalogTool::idempotent`]).
    const fn idempotent(self) -> CatalogTool {
        CatalogTool { idempotent: true, ..self }
    }
}

use Access::AlwaysAllowed;
use Access::Read;
use Access::Write;
use TargetKind::Destination;
use TargetKind::Originless;
use TargetKind::Page;
use TargetKind::TabDestination;

const NAVIGATE: Option<ToolCategory> = Some(ToolCategory::Navigate);
const ORGANIZE: Option<ToolCategory> = Some(ToolCategory::Organize);
const CLICK: Option<ToolCategory> = Some(ToolCategory::Click);
const FILL: Option<ToolCategory> = Some(ToolCategory::Fill);
const INTERACT: Option<ToolCategory> = Some(ToolCategory::Interact);

/// Every known tool. `scroll` is a read by design; `watch_page` only observes.
///
/// A ref parameter is `{"type": "string"}`: its length and characters are checked by the
/// protocol's `ElementRef` when the executor call is built, and the kernel prompt says where refs
/// come from, so the schema spends no tokens on them. The maxima of `read_page`'s `maxTokens` and
/// `wait_for`'s `timeMs` are the protocol's `SNAPSHOT_MAX_TOKENS` and `WAIT_FOR_MAX_MS` (a test
/// holds them equal).
pub static CATALOG: &[CatalogTool] = &[
    // L0: tabs and browser data.
    offered(
        "tabs_list",
        ToolLevel::L0,
        info(Read, None, Originless),
        Offer {
            route: Route::Tabs(TabTool::List),
            description: "Open tabs (tabId, title, URL), marking the one the user views.",
            properties: r#"{}"#,
            required: &[],
            tab: TabParam::None,
        },
    ),
    offered(
        "tab_open",
        ToolLevel::L0,
        info(Write, NAVIGATE, Destination),
        Offer {
            route: Route::Tabs(TabTool::Open),
            description: "Open url in a background tab (or reuse one); page tools then use it.",
            properties: r#"{"url": {"type": "string", "minLength": 1, "maxLength": 4096}}"#,
            required: &["url"],
            tab: TabParam::None,
        },
    ),
    offered(
        "tab_focus",
        ToolLevel::L0,
        info(Write, NAVIGATE, Page),
        Offer {
            route: Route::Tabs(TabTool::Focus),
            description: "Show a tab to the user (only this changes what they see).",
            properties: r#"{}"#,
            required: &[],
            tab: TabParam::Required,
        },
    ),
    offered(
        "tab_close",
        ToolLevel::L0,
        info(Write, NAVIGATE, Page),
        Offer {
            route: Route::Tabs(TabTool::Close),
            description: "Close a tab.",
            properties: r#"{}"#,
            required: &[],
            tab: TabParam::Required,
        },
    ),
    offered(
        "navigate",
        ToolLevel::L0,
        info(Write, NAVIGATE, TabDestination),
        Offer {
            route: Route::Tabs(TabTool::Navigate),
            description: "Load url in the tab; returns its snapshot.",
            properties: r#"{"url": {"type": "string", "minLength": 1, "maxLength": 4096}}"#,
            required: &["url"],
            tab: TabParam::Optional,
        },
    ),
    offered(
        "go_back",
        ToolLevel::L0,
        info(Write, NAVIGATE, Page),
        Offer {
            route: Route::Tabs(TabTool::Back),
            description: "Back in the tab's history.",
            properties: r#"{}"#,
            required: &[],
            tab: TabParam::Optional,
        },
    ),
    offered(
        "go_forward",
        ToolLevel::L0,
        info(Write, NAVIGATE, Page),
        Offer {
            route: Route::Tabs(TabTool::Forward),
            description: "Forward in the tab's history.",
            properties: r#"{}"#,
            required: &[],
            tab: TabParam::Optional,
        },
    ),
    known("history_search", ToolLevel::L0, info(Read, None, Originless)),
    known("bookmarks_search", ToolLevel::L0, info(Read, None, Originless)),
    known("top_sites", ToolLevel::L0, info(Read, None, Originless)),
    known("sessions_recently_closed", ToolLevel::L0, info(Read, None, Originless)),
    known("session_restore", ToolLevel::L0, info(Write, NAVIGATE, Originless)),
    known("tab_groups_list", ToolLevel::L0, info(Read, None, Originless)),
    known("tabs_group", ToolLevel::L0, info(Write, ORGANIZE, Originless)),
    known("tab_group_update", ToolLevel::L0, info(Write, ORGANIZE, Originless)),
    // L1: the page executor.
    offered(
        "read_page",
        ToolLevel::L1,
        info(Read, None, Page),
        Offer {
            route: Route::Page(PageTool::ReadPage),
            description: "Page snapshot, one element a line; scopeRef expands a folded line.",
            properties: r#"{
                "maxTokens": {"type": "integer", "minimum": 200, "maximum": 6000},
                "scopeRef": {"type": "string"}
            }"#,
            required: &[],
            tab: TabParam::Optional,
        },
    ),
    offered(
        "find_in_page",
        ToolLevel::L1,
        info(Read, None, Page),
        Offer {
            route: Route::Page(PageTool::FindInPage),
            description: "Up to 20 snapshot lines matching query (any case, folded parts too), with refs.",
            properties: r#"{"query": {"type": "string", "minLength": 1, "maxLength": 200}}"#,
            required: &["query"],
            tab: TabParam::Optional,
        },
    ),
    offered(
        "extract",
        ToolLevel::L1,
        info(Read, None, Page),
        Offer {
            route: Route::Page(PageTool::Extract),
            description: "The page or ref's subtree as Markdown, in windows; continue at fromChar.",
            properties: r#"{"ref": {"type": "string"}, "fromChar": {"type": "integer", "minimum": 0}}"#,
            required: &[],
            tab: TabParam::Optional,
        },
    ),
    offered(
        "get_selection",
        ToolLevel::L1,
        info(Read, None, Page),
        Offer {
            route: Route::Page(PageTool::GetSelection),
            description: "Text the user selected on the page.",
            properties: r#"{}"#,
            required: &[],
            tab: TabParam::Optional,
        },
    ),
    offered(
        "click",
        ToolLevel::L1,
        info(Write, CLICK, Page),
        Offer {
            route: Route::Page(PageTool::Click),
            description: "Click an element; reports what changed.",
            properties: r#"{
                "ref": {"type": "string"},
                "button": {"type": "string", "enum": ["left", "right"]},
                "doubleClick": {"type": "boolean"}
            }"#,
            required: &["ref"],
            tab: TabParam::Optional,
        },
    ),
    offered(
        "type",
        ToolLevel::L1,
        info(Write, FILL, Page),
        Offer {
            route: Route::Page(PageTool::Type),
            description: "Type into a field (replaces; mode append adds); submit presses Enter; slowly types per key.",
            properties: r#"{
                "ref": {"type": "string"},
                "text": {"type": "string", "maxLength": 20000},
                "mode": {"type": "string", "enum": ["replace", "append"]},
                "submit": {"type": "boolean"},
                "slowly": {"type": "boolean"}
            }"#,
            required: &["ref", "text"],
            tab: TabParam::Optional,
        },
    ),
    offered(
        "select_option",
        ToolLevel::L1,
        info(Write, FILL, Page),
        Offer {
            route: Route::Page(PageTool::SelectOption),
            description: "Select options by value or label.",
            properties: r#"{
                "ref": {"type": "string"},
                "values": {"type": "array", "items": {"type": "string", "maxLength": 500}, "maxItems": 50}
            }"#,
            required: &["ref", "values"],
            tab: TabParam::Optional,
        },
    ),
    offered(
        "scroll",
        ToolLevel::L1,
        info(Read, None, Page),
        Offer {
            route: Route::Page(PageTool::Scroll),
            description: "Scroll the page or ref's element a page (default), to the end, or px pixels.",
            properties: r#"{
                "ref": {"type": "string"},
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
            }"#,
            required: &["direction"],
            tab: TabParam::Optional,
        },
    ),
    offered(
        "hover",
        ToolLevel::L1,
        info(Write, INTERACT, Page),
        Offer {
            route: Route::Page(PageTool::Hover),
            description: "Hover an element (menus, tooltips).",
            properties: r#"{"ref": {"type": "string"}}"#,
            required: &["ref"],
            tab: TabParam::Optional,
        },
    ),
    offered(
        "wait_for",
        ToolLevel::L1,
        info(Read, None, Page),
        Offer {
            route: Route::Page(PageTool::WaitFor),
            description: "Wait for text to appear, textGone to vanish (up to 30 s) or timeMs to pass; give one.",
            properties: r#"{
                "text": {"type": "string", "minLength": 1, "maxLength": 500},
                "textGone": {"type": "string", "minLength": 1, "maxLength": 500},
                "timeMs": {"type": "integer", "minimum": 0, "maximum": 30000}
            }"#,
            required: &[],
            tab: TabParam::Optional,
        },
    ),
    offered(
        "press_key",
        ToolLevel::L1,
        info(Write, FILL, Page),
        Offer {
            route: Route::Page(PageTool::PressKey),
            description: "Press a key or chord (Enter, Control+a) on ref's element or the focused one.",
            properties: r#"{
                "key": {"type": "string", "minLength": 1, "maxLength": 64},
                "ref": {"type": "string"}
            }"#,
            required: &["key"],
            tab: TabParam::Optional,
        },
    ),
    offered(
        "batch_actions",
        ToolLevel::L1,
        info(Write, FILL, Page),
        Offer {
            route: Route::Page(PageTool::BatchActions),
            description: "Up to 6 actions in order (e.g. fill a form, submit), each {kind, params} of that tool; stops if the page changes.",
            properties: r#"{
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
            }"#,
            required: &["actions"],
            tab: TabParam::Optional,
        },
    ),
    // L2: the debugger.
    offered(
        "click_trusted",
        ToolLevel::L2,
        info(Write, CLICK, Page),
        Offer {
            route: Route::Debugger(DebuggerTool::ClickTrusted),
            description: "Click ref's element with a real mouse (debugger): for popups and pages that ignore click. Dialogs are dismissed unless acceptDialogs.",
            properties: r#"{"ref": {"type": "string"}, "acceptDialogs": {"type": "boolean"}}"#,
            required: &["ref"],
            tab: TabParam::Optional,
        },
    ),
    offered(
        "type_trusted",
        ToolLevel::L2,
        info(Write, FILL, Page),
        Offer {
            route: Route::Debugger(DebuggerTool::TypeTrusted),
            description: "Type into ref's element with real key input (debugger), when type did not register; replaces unless mode append; submit presses Enter.",
            properties: r#"{
                "ref": {"type": "string"},
                "text": {"type": "string", "maxLength": 20000},
                "mode": {"type": "string", "enum": ["replace", "append"]},
                "submit": {"type": "boolean"},
                "acceptDialogs": {"type": "boolean"}
            }"#,
            required: &["ref", "text"],
            tab: TabParam::Optional,
        },
    ),
    offered(
        SCREENSHOT,
        ToolLevel::L2,
        info(Read, None, Page),
        Offer {
            route: Route::Debugger(DebuggerTool::Screenshot),
            description: "PNG of the tab's viewport (or of one element by ref, or the whole page): \
                you see it as an image, the user on the card. For canvas, charts and layout that \
                read_page cannot put in words. labels draws each read_page ref on its element.",
            properties: r#"{"ref": {"type": "string"}, "fullPage": {"type": "boolean"}, "labels": {"type": "boolean"}}"#,
            required: &[],
            tab: TabParam::Optional,
        },
    ),
    offered(
        "run_javascript",
        ToolLevel::L2,
        info(Write, Some(ToolCategory::Eval), Page),
        Offer {
            route: Route::Debugger(DebuggerTool::RunJavascript),
            description: "Run code (an async function body; return a JSON value) in the page; returns the value or the exception.",
            properties: r#"{
                "code": {"type": "string", "minLength": 1, "maxLength": 20000},
                "acceptDialogs": {"type": "boolean"}
            }"#,
            required: &["code"],
            tab: TabParam::Optional,
        },
    ),
    offered(
        "read_page_deep",
        ToolLevel::L2,
        info(Read, None, Page),
        Offer {
            route: Route::Debugger(DebuggerTool::ReadPageDeep),
            description: "Accessibility tree (debugger) across all frames and closed shadow roots, with d refs for the trusted tools; when read_page misses parts.",
            properties: r#"{"maxTokens": {"type": "integer", "minimum": 200, "maximum": 6000}}"#,
            required: &[],
            tab: TabParam::Optional,
        },
    ),
    // Named apart from L1's `press_key`: a name is one row, and the model picks the trusted
    // one only when the page ignored the synthetic keys.
    offered(
        "press_key_trusted",
        ToolLevel::L2,
        info(Write, FILL, Page),
        Offer {
            route: Route::Debugger(DebuggerTool::PressKeyTrusted),
            description: "Press a key or chord (Enter, Control+a, Shift+Tab) with real key input (debugger), on ref's element or the focused one.",
            properties: r#"{
                "key": {"type": "string", "minLength": 1, "maxLength": 64},
                "ref": {"type": "string"},
                "acceptDialogs": {"type": "boolean"}
            }"#,
            required: &["key"],
            tab: TabParam::Optional,
        },
    ),
    offered(
        "click_xy",
        ToolLevel::L2,
        info(Write, CLICK, Page),
        Offer {
            route: Route::Debugger(DebuggerTool::ClickXy),
            description: "Click with a real mouse (debugger) at viewport CSS pixels x, y, when no ref fits (canvas, maps).",
            properties: r#"{
                "x": {"type": "number", "minimum": 0, "maximum": 100000},
                "y": {"type": "number", "minimum": 0, "maximum": 100000},
                "acceptDialogs": {"type": "boolean"}
            }"#,
            required: &["x", "y"],
            tab: TabParam::Optional,
        },
    ),
    offered(
        "drag",
        ToolLevel::L2,
        info(Write, INTERACT, Page),
        Offer {
            route: Route::Debugger(DebuggerTool::Drag),
            description: "Drag with a real mouse (debugger) from a ref or viewport point {x, y} to another (sliders, drop zones).",
            properties: r#"{
                "from": {"type": "object", "additionalProperties": false, "properties": {
                    "ref": {"type": "string"},
                    "x": {"type": "number", "minimum": 0, "maximum": 100000},
                    "y": {"type": "number", "minimum": 0, "maximum": 100000}
                }},
                "to": {"type": "object", "additionalProperties": false, "properties": {
                    "ref": {"type": "string"},
                    "x": {"type": "number", "minimum": 0, "maximum": 100000},
                    "y": {"type": "number", "minimum": 0, "maximum": 100000}
                }}
            }"#,
            required: &["from", "to"],
            tab: TabParam::Optional,
        },
    ),
    // The file goes through the executor (a `DataTransfer` set on the input), not the
    // debugger: CDP's `DOM.setFileInputFiles` takes paths on disk, and the extension has none.
    offered(
        "upload_file",
        ToolLevel::L1,
        info(Write, Some(ToolCategory::Upload), Page),
        Offer {
            route: Route::Page(PageTool::UploadFile),
            description: "Put a file the user attached in this chat (its attachment id or file name) on a file input.",
            properties: r#"{"ref": {"type": "string"}, "attachment": {"type": "string", "minLength": 1, "maxLength": 300}}"#,
            required: &["ref", "attachment"],
            tab: TabParam::Optional,
        },
    )
    .in_group(ToolGroup::Files),
    // The engine's and the host's own tools.
    offered(
        "ask_user",
        ToolLevel::Builtin,
        info(AlwaysAllowed, None, Originless),
        Offer {
            route: Route::Engine,
            description: "Ask the user 1-3 questions, each with 2-3 likely answers. Call it alone.",
            properties: r#"{"questions": {"type": "array", "maxItems": 3, "items": {
                "type": "object",
                "additionalProperties": false,
                "required": ["question", "options"],
                "properties": {
                    "question": {"type": "string", "minLength": 1, "maxLength": 500},
                    "options": {"type": "array", "maxItems": 3, "items":
                        {"type": "string", "minLength": 1, "maxLength": 200}}
                }
            }}}"#,
            required: &["questions"],
            tab: TabParam::None,
        },
    ),
    offered(
        "request_user_action",
        ToolLevel::Builtin,
        info(AlwaysAllowed, None, Originless),
        Offer {
            route: Route::Engine,
            description: "Hand the user a step you must not do (sign-in, one-time code, payment, captcha); say what and where.",
            properties: r#"{"instruction": {"type": "string", "minLength": 1, "maxLength": 1000}}"#,
            required: &["instruction"],
            tab: TabParam::Optional,
        },
    ),
    offered(
        "fetch_url",
        ToolLevel::Builtin,
        info(Read, None, Destination),
        Offer {
            route: Route::Web(WebTool::Fetch),
            description: "GET an http(s) URL (no cookies) as readable text, 16k chars from start; head: headers only.",
            properties: r#"{
                "url": {"type": "string", "minLength": 1, "maxLength": 4096},
                "start": {"type": "integer", "minimum": 0, "maximum": 10000000},
                "head": {"type": "boolean"}
            }"#,
            required: &["url"],
            tab: TabParam::None,
        },
    ),
    offered(
        "load_tools",
        ToolLevel::Builtin,
        info(AlwaysAllowed, None, Originless),
        Offer {
            route: Route::Engine,
            description: "Add tools: memory (notes across chats), files (save documents, downloads, uploads), wait (for a page or a time).",
            // The description names the groups; an enum would say it twice.
            properties: r#"{"group": {"type": "string", "maxLength": 40}}"#,
            required: &["group"],
            tab: TabParam::None,
        },
    ),
    offered(
        "memory_read",
        ToolLevel::Builtin,
        info(AlwaysAllowed, None, Originless),
        Offer {
            route: Route::Engine,
            description: "Read the note saved under key, or list the notes without one.",
            properties: r#"{"key": {"type": "string", "minLength": 1, "maxLength": 100}}"#,
            required: &[],
            tab: TabParam::None,
        },
    )
    .in_group(ToolGroup::Memory),
    offered(
        "memory_write",
        ToolLevel::Builtin,
        info(Write, Some(ToolCategory::Memory), Originless),
        Offer {
            route: Route::Engine,
            description: "Save a note under key for later chats (replaces it; an empty value deletes it). Never save secrets.",
            properties: r#"{
                "key": {"type": "string", "minLength": 1, "maxLength": 100},
                "value": {"type": "string", "maxLength": 4000}
            }"#,
            required: &["key", "value"],
            tab: TabParam::None,
        },
    )
    .in_group(ToolGroup::Memory)
    .idempotent(),
    known("load_skill", ToolLevel::Builtin, info(AlwaysAllowed, None, Originless)),
    // Judged like opening a tab at its target: the page opens in the user's browser.
    offered(
        "sidebar_open",
        ToolLevel::Builtin,
        info(Write, NAVIGATE, Destination),
        Offer {
            route: Route::Engine,
            description: "Open an http(s) URL for the user in a tab beside this chat, or artifact:<filename> (an artifact of this chat) in its viewer; title optional.",
            properties: r#"{
                "target": {"type": "string", "minLength": 1, "maxLength": 4096},
                "title": {"type": "string", "maxLength": 200}
            }"#,
            required: &["target"],
            tab: TabParam::None,
        },
    )
    .in_group(ToolGroup::Opens),
    offered(
        "artifact_create",
        ToolLevel::Builtin,
        info(Write, None, Originless),
        Offer {
            route: Route::Engine,
            description: "Save a document in this chat (Markdown, HTML, code, CSV, JSON); the user views and downloads it from its card.",
            properties: r#"{
                "filename": {"type": "string", "minLength": 1, "maxLength": 160},
                "mime": {"type": "string", "maxLength": 120},
                "content": {"type": "string", "maxLength": 200000}
            }"#,
            required: &["filename", "content"],
            tab: TabParam::None,
        },
    )
    .in_group(ToolGroup::Files)
    // Its only write is its result (the call is the artifact), so running it again after a
    // restart cut it says the same thing.
    .idempotent(),
    // Judged by where the file comes from; an artifact comes from this chat.
    offered(
        "download",
        ToolLevel::Builtin,
        info(Write, Some(ToolCategory::Download), Destination),
        Offer {
            route: Route::Web(WebTool::Download),
            description: "Save an http(s) url, or an artifact of this chat by its filename, to the user's downloads; filename (no folders) names the file.",
            properties: r#"{
                "url": {"type": "string", "minLength": 1, "maxLength": 4096},
                "artifact": {"type": "string", "minLength": 1, "maxLength": 160},
                "filename": {"type": "string", "minLength": 1, "maxLength": 160}
            }"#,
            required: &[],
            tab: TabParam::None,
        },
    )
    .in_group(ToolGroup::Files),
    offered(
        "watch_page",
        ToolLevel::Builtin,
        info(Read, None, Page),
        Offer {
            route: Route::Watch,
            description: "Wait until the page shows value (text), stops showing it (text_gone) or its URL contains it (url), for up to timeoutSeconds (default 300).",
            properties: r#"{
                "condition": {"type": "string", "enum": ["text", "text_gone", "url"]},
                "value": {"type": "string", "minLength": 1, "maxLength": 1000},
                "timeoutSeconds": {"type": "integer", "minimum": 10, "maximum": 86400}
            }"#,
            required: &["condition", "value"],
            tab: TabParam::Optional,
        },
    )
    .in_group(ToolGroup::Wait),
    offered(
        "schedule_resume",
        ToolLevel::Builtin,
        info(AlwaysAllowed, None, Originless),
        Offer {
            route: Route::Engine,
            description: "Pause this run and continue it after delaySeconds (10 s to 7 days); reason tells the user why.",
            properties: r#"{
                "delaySeconds": {"type": "integer", "minimum": 10, "maximum": 604800},
                "reason": {"type": "string", "minLength": 1, "maxLength": 500}
            }"#,
            required: &["delaySeconds", "reason"],
            tab: TabParam::None,
        },
    )
    .in_group(ToolGroup::Wait),
];

/// The registry of every catalog tool a host can run: `runs(route)` says whether the host
/// implements a route. A failed registration would be a bug in the static catalog (a test
/// registers every row), so it is skipped rather than taking the host down.
pub fn registry(runs: impl Fn(Route) -> bool) -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    for row in CATALOG {
        if let Some(offer) = row.offer
            && runs(offer.route)
            && let Some(tool) = row.descriptor()
        {
            let _ = registry.register(tool);
        }
    }
    registry
}

/// The catalog row of `name`.
pub fn find(name: &str) -> Option<&'static CatalogTool> {
    CATALOG.iter().find(|tool| tool.name == name)
}

/// Classifies a tool. MCP tools are originless writes whatever their `readOnlyHint` says;
/// unknown tools are uncategorised page writes.
pub fn classify(tool: &str) -> ToolInfo {
    if tool.starts_with(MCP_PREFIX) {
        return info(Write, Some(ToolCategory::Mcp), Originless);
    }
    find(tool).map_or(info(Write, None, Page), |row| row.info)
}

/// Whether `name` acts through the debugger (L2): its cards say so.
pub fn is_debugger_tool(name: &str) -> bool {
    find(name).is_some_and(|row| row.level == ToolLevel::L2)
}

/// How `name` runs, when this workspace offers it.
pub fn route(name: &str) -> Option<Route> {
    find(name).and_then(|row| row.offer).map(|offer| offer.route)
}

/// The tab a call names, if any (the schema makes it a non-negative integer).
pub fn tab_param(params: &Value) -> Option<u32> {
    params.get(TAB_ID_PARAM).and_then(Value::as_u64).and_then(|id| u32::try_from(id).ok())
}

#[cfg(test)]
#[path = "catalog_tests.rs"]
mod tests;
