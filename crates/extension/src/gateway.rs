//! The browser gateway: the tools the model is offered in the extension and how each call runs
//! (L0 `chrome.tabs`, L1 the page executor, L2 `chrome.debugger`).
//!
//! Routing (reference §5.6): a call that names `tabId` acts on that tab, and the tab becomes its
//! run's default; so does a tab opened by `tab_open`. A call that names none goes to its run's
//! default, else to the tab the message was sent from (`ToolInvocation::default_tab`, while it
//! exists), else to the tab the user is viewing.
//! Extension pages are never targeted without an explicit `tabId`.
//!
//! `catalog`, `format` and `routes` are pure and tested natively; `chrome`, `tabs` and `page`
//! touch the browser.

mod catalog;
mod chrome;
mod debugger;
mod format;
mod page;
mod routes;
mod tabs;

use std::cell::RefCell;

use panelot_core::effects::AbortSignal;
use panelot_core::engine::ToolInvocation;
use panelot_core::engine::ToolOutcome;
use panelot_core::tools::ToolRegistry;
use panelot_protocol::content::ExecutorCall;
use panelot_protocol::content::ExecutorResult;
use panelot_protocol::content::SnapshotParams;
use serde_json::Value;
use serde_json::json;

use self::catalog::Route;
use self::catalog::TabTool;
use self::format::failure;
use self::routes::Routes;
use self::tabs::Load;
use self::tabs::Move;
use panelot_core::engine::NEEDS_HOST_PERMISSION;
use panelot_core::tools::ToolEffect;

thread_local! {
    /// The service worker has one thread; the gateway's memory lives as long as the worker.
    static ROUTES: RefCell<Routes> = RefCell::new(Routes::default());
}

/// The tools of this build.
pub(crate) fn tool_registry() -> ToolRegistry {
    catalog::registry()
}

/// Runs one tool call.
pub(crate) async fn run_tool(call: &ToolInvocation, abort: AbortSignal) -> ToolOutcome {
    match catalog::route(&call.tool) {
        Some(Route::Tabs(tool)) => run_tab_tool(call, tool, &abort).await,
        Some(Route::Page(executor_tool)) => run_page_tool(call, executor_tool, &abort).await,
        Some(Route::Debugger(tool)) => debugger::run(call, tool, &abort).await,
        None => failure(format!("the tool `{}` is not available in this build", call.tool)),
    }
}

async fn run_page_tool(
    call: &ToolInvocation,
    executor_tool: &str,
    abort: &AbortSignal,
) -> ToolOutcome {
    let executor_call = match catalog::executor_call(executor_tool, &call.params) {
        Ok(executor_call) => executor_call,
        Err(message) => return failure(message),
    };
    let tab = match target_tab(call).await {
        Ok(tab) => tab,
        Err(outcome) => return outcome,
    };
    if let Err(err) = tabs::ready(tab, abort).await {
        return failure(format!("[tabId={tab}] {err}"));
    }
    if let Some(outcome) = missing_host_access(tab).await {
        return outcome;
    }
    let started = js_sys::Date::now();
    // A write may open a tab (a link with a target, `window.open`): the tabs before it are
    // listed so the new ones can be told apart by their opener.
    let writes = catalog::effect(&call.tool) == Some(ToolEffect::Write);
    let before = if writes { tab_ids().await } else { Vec::new() };
    let outcome = match page_call(tab, executor_call, abort).await {
        Ok(result) => format::page_result(tab, &result),
        Err(outcome) => outcome,
    };
    let outcome = format::with_elapsed(outcome, (js_sys::Date::now() - started).max(0.0) as u64);
    if !writes {
        return outcome;
    }
    with_opened_tabs(call, tab, &before, outcome, abort).await
}

/// A write's outcome with the tabs it opened (those that did not exist `before` and name `tab`
/// as their opener); the newest becomes the run's tab.
async fn with_opened_tabs(
    call: &ToolInvocation,
    tab: u32,
    before: &[u32],
    outcome: ToolOutcome,
    abort: &AbortSignal,
) -> ToolOutcome {
    let opened = match tabs::list().await {
        Ok((after, _)) => format::opened_by(before, &after, tab),
        Err(_) => Vec::new(),
    };
    if let Some(new_tab) = opened.last().and_then(|t| t.id) {
        ROUTES.with(|routes| routes.borrow_mut().route(&call.run_id, new_tab));
        // Later page calls need the page; how its load ends is seen by the next call.
        let _ = tabs::ready(new_tab, abort).await;
    }
    format::with_opened_tabs(outcome, &opened)
}

/// A failure naming the tab's origin when the extension may not script it: the engine turns it
/// into a question whose card asks the browser for access.
async fn missing_host_access(tab: u32) -> Option<ToolOutcome> {
    let info = tabs::get(tab).await.ok()?;
    let origin = format::web_origin(info.shown_url())?;
    let query = chrome::to_js(&json!({"origins": [format!("{origin}/*")]}));
    let granted = chrome::call("permissions", "contains", &[query]).await.ok()?;
    if granted.as_bool() != Some(false) {
        return None;
    }
    Some(ToolOutcome::Failure {
        message: format!(
            "[tabId={tab}] Panelot has no access to {origin}; the user was asked to allow it"
        ),
        details: Some(json!({ NEEDS_HOST_PERMISSION: origin, "tabId": tab })),
    })
}

async fn tab_ids() -> Vec<u32> {
    match tabs::list().await {
        Ok((tabs, _)) => tabs.iter().filter_map(|tab| tab.id).collect(),
        Err(_) => Vec::new(),
    }
}

/// One executor call on `tab`, carrying the document of its latest snapshot when the call has
/// refs, and remembering the document of a new snapshot.
async fn page_call(
    tab: u32,
    call: ExecutorCall,
    abort: &AbortSignal,
) -> Result<ExecutorResult, ToolOutcome> {
    let ref_document = if catalog::carries_refs(&call) {
        ROUTES.with(|routes| routes.borrow().document(tab).map(str::to_owned))
    } else {
        None
    };
    let result = page::execute(tab, call, ref_document, abort).await?;
    if let ExecutorResult::Snapshot(snapshot) = &result {
        ROUTES.with(|routes| routes.borrow_mut().snapshot_taken(tab, &snapshot.document_id));
    }
    Ok(result)
}

/// The tab a page call acts on (see the module docs).
async fn target_tab(call: &ToolInvocation) -> Result<u32, ToolOutcome> {
    if let Some(tab) = catalog::tab_param(&call.params) {
        tabs::get(tab).await.map_err(failure)?;
        ROUTES.with(|routes| routes.borrow_mut().route(&call.run_id, tab));
        return Ok(tab);
    }
    if let Some(tab) = ROUTES.with(|routes| routes.borrow().tab_of(&call.run_id)) {
        return Ok(tab);
    }
    // The tab the user was on when sending, while it still exists.
    if let Some(tab) = call.default_tab
        && tabs::get(tab).await.is_ok()
    {
        ROUTES.with(|routes| routes.borrow_mut().route(&call.run_id, tab));
        return Ok(tab);
    }
    let viewed = tabs::viewed().await.map_err(failure)?;
    match viewed {
        Some(tab) if !tab.shown_url().starts_with("chrome-extension://") => {
            Ok(tab.id.unwrap_or_default())
        }
        Some(_) | None => {
            Err(failure("no web page tab to act on: call tabs_list and pass the tab's tabId"))
        }
    }
}

async fn run_tab_tool(call: &ToolInvocation, tool: TabTool, abort: &AbortSignal) -> ToolOutcome {
    let url = call.params.get("url").and_then(Value::as_str).unwrap_or_default();
    match tool {
        TabTool::List => match tabs::list().await {
            Ok((all, focused)) => format::tabs_list(&all, focused),
            Err(err) => failure(err),
        },
        TabTool::Open => {
            if let Err(message) = check_url(url) {
                return failure(message);
            }
            match tabs::open(url, abort).await {
                Ok((tab, created, load)) => {
                    if let Some(id) = tab.id {
                        ROUTES.with(|routes| routes.borrow_mut().route(&call.run_id, id));
                    }
                    let what =
                        if created { "tab_created" } else { "reused the tab already at this URL" };
                    let content = format!("{} {what}{}", tab.line(), load_note(load));
                    let details = json!({"tab": tab.details(), "created": created});
                    ToolOutcome::Success { content, details: Some(details) }
                }
                Err(err) => failure(err),
            }
        }
        TabTool::Focus => {
            let Some(tab) = catalog::tab_param(&call.params) else {
                return failure("tab_focus needs tabId");
            };
            match tabs::focus(tab).await {
                Ok(info) => {
                    ROUTES.with(|routes| routes.borrow_mut().route(&call.run_id, tab));
                    ToolOutcome::Success {
                        content: format!("{} is now in front", info.line()),
                        details: Some(info.details()),
                    }
                }
                Err(err) => failure(err),
            }
        }
        TabTool::Close => {
            let Some(tab) = catalog::tab_param(&call.params) else {
                return failure("tab_close needs tabId");
            };
            match tabs::close(tab).await {
                Ok((info, viewing)) => {
                    ROUTES.with(|routes| routes.borrow_mut().tab_closed(tab));
                    let note = if viewing {
                        "; it was the tab the user was viewing"
                    } else {
                        "; the user's view did not change"
                    };
                    ToolOutcome::Success {
                        content: format!("closed {}{note}", info.line()),
                        details: Some(json!({"tab": info.details(), "wasViewed": viewing})),
                    }
                }
                Err(err) => failure(err),
            }
        }
        TabTool::Navigate => match check_url(url) {
            Ok(()) => move_tab(call, Move::To(url), abort).await,
            Err(message) => failure(message),
        },
        TabTool::Back => move_tab(call, Move::Back, abort).await,
        TabTool::Forward => move_tab(call, Move::Forward, abort).await,
    }
}

/// `navigate`, `go_back` and `go_forward` on the call's tab.
async fn move_tab(call: &ToolInvocation, how: Move<'_>, abort: &AbortSignal) -> ToolOutcome {
    let tab = match target_tab(call).await {
        Ok(tab) => tab,
        Err(outcome) => return outcome,
    };
    match tabs::go(tab, how, abort).await {
        Ok((_, Load::Unmoved)) if how == Move::Back => {
            failure(format!("[tabId={tab}] there is no earlier page in this tab's history"))
        }
        Ok((_, Load::Unmoved)) if how == Move::Forward => {
            failure(format!("[tabId={tab}] there is no later page in this tab's history"))
        }
        Ok((info, load)) => after_navigation(tab, &info, load, abort).await,
        Err(err) => failure(format!("[tabId={tab}] {err}")),
    }
}

/// The result of a navigation: where the tab is now, and the new page's snapshot so the model
/// can act without another call (reference §5.1).
async fn after_navigation(
    tab: u32,
    info: &format::TabInfo,
    load: Load,
    abort: &AbortSignal,
) -> ToolOutcome {
    let head = format!("{}{}", info.line(), load_note(load));
    let snapshot = page_call(tab, ExecutorCall::Snapshot(SnapshotParams::default()), abort).await;
    let content = match snapshot {
        Ok(ExecutorResult::Snapshot(snapshot)) => format!("{head}\n{}", snapshot.text),
        Ok(_) => head,
        Err(
            ToolOutcome::Failure { message, .. } | ToolOutcome::Success { content: message, .. },
        ) => {
            format!("{head}\n(no snapshot: {message})")
        }
    };
    ToolOutcome::Success { content, details: Some(info.details()) }
}

fn load_note(load: Load) -> &'static str {
    match load {
        Load::Complete => "",
        Load::StillLoading => " (still loading after 15 s)",
        Load::Unmoved => " (the page did not change: the URL may be a download)",
    }
}

/// Only web pages: a `javascript:` or browser URL is not a place to send the model.
fn check_url(url: &str) -> Result<(), String> {
    let lower = url.to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        return Ok(());
    }
    Err(format!("`{url}` is not an http(s) URL; give an absolute URL such as https://example.com/"))
}
