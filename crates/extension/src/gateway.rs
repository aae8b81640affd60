//! The browser gateway: how each catalog tool runs in the extension (L0 `chrome.tabs`, L1 the
//! page executor, L2 `chrome.debugger`, the network tools from the worker), how a call's target
//! is resolved before the engine judges it ([`resolve`]), the highlight shown while an approval
//! card is up, and the notification shown while a thread no view follows waits for the user.
//!
//! The gateway keeps no routing state: the engine decides which tab a call goes to (its run's
//! route lives in the run record) and hands the judged target with the call. The gateway acts on
//! that tab only, and refuses with `target_changed` when the tab no longer shows the page that
//! was judged: its origin is checked here, its document by the executor.
//!
//! `catalog`, `format` and the text of web replies are pure and tested natively; `chrome`,
//! `tabs`, `page`, `resolve`, `debugger` and `web` touch the browser.

mod catalog;
mod chrome;
mod debugger;
mod error;
mod fallback;
mod format;
mod frames;
mod indicator;
mod page;
mod resolve;
mod tabs;
mod watch;
mod web;

use panelot_core::engine::Notice;
use panelot_core::engine::ToolInvocation;
use panelot_core::engine::ToolOutcome;
use panelot_core::env::AbortSignal;
use panelot_core::target::PageSeen;
use panelot_core::target::ResolvedTarget;
use panelot_core::tools::ToolRegistry;
use panelot_core::tools::catalog::Access;
use panelot_core::tools::catalog::PageTool;
use panelot_core::tools::catalog::Route;
use panelot_core::tools::catalog::TabTool;
use panelot_protocol::ElementRef;
use panelot_protocol::Origin;
use panelot_protocol::ThreadId;
use panelot_protocol::content::ExecutorCall;
use panelot_protocol::content::ExecutorResult;
use panelot_protocol::content::ExpectedTarget;
use panelot_protocol::content::HighlightParams;
use panelot_protocol::content::ReadPageParams;
use serde_json::Value;
use serde_json::json;
use wasm_bindgen::JsValue;

use self::format::failure;
pub(crate) use self::resolve::resolve;
use self::tabs::Load;
use self::tabs::Move;

/// The label next to an element while the user is asked about it.
const HIGHLIGHT_LABEL: &str = "Panelot asks before acting here";

/// The tools of this build: every catalog tool with a route (the extension runs them all).
pub(crate) fn tool_registry() -> ToolRegistry {
    panelot_core::tools::registry(|route| match route {
        Route::Tabs(_)
        | Route::Page(_)
        | Route::Debugger(_)
        | Route::Web(_)
        | Route::Engine
        | Route::Watch => true,
    })
}

pub(crate) use self::debugger::own_input_on;
pub(crate) use self::indicator::Sender;
pub(crate) use self::indicator::signal as page_signal;
pub(crate) use self::indicator::update as update_indicator;

/// Runs one tool call where it was judged to act.
pub(crate) async fn run_tool(call: &ToolInvocation, abort: AbortSignal) -> ToolOutcome {
    let route = panelot_core::tools::catalog::route(&call.tool);
    // A debugger call shows the indicator its own way (hidden while its input runs).
    if !matches!(route, Some(Route::Debugger(_))) {
        indicator::show_for(call, indicator::Takeover::Heard).await;
    }
    match route {
        Some(Route::Tabs(tool)) => run_tab_tool(call, tool, &abort).await,
        Some(Route::Page(tool)) => run_page_tool(call, tool, &abort).await,
        Some(Route::Debugger(tool)) => debugger::run(call, tool, &abort).await,
        Some(Route::Web(tool)) => web::run(call, tool, &abort).await,
        Some(Route::Watch) => watch::run(call, &abort).await,
        Some(Route::Engine) | None => {
            failure(format!("the tool `{}` is not available in this build", call.tool))
        }
    }
}

/// Shows (or, without `element_ref`, clears) the highlight of an element while the user is
/// asked about it. A page that went away shows nothing; nobody waits for this.
pub(crate) async fn highlight(tab: u32, document_id: Option<String>, element_ref: Option<String>) {
    let element_ref = element_ref.and_then(|r| ElementRef::new(r).ok());
    // The element may be in a frame: its document is the one judged, and a highlight is taken
    // down in whichever frame shows it.
    let Some(shown) = &element_ref else {
        page::clear_highlights(tab);
        return;
    };
    if let Some(frame) = frames::ref_frame(shown.as_str()) {
        let label = Some(HIGHLIGHT_LABEL.to_owned());
        let call = ExecutorCall::Highlight(HighlightParams { element_ref, label });
        let abort = AbortSignal::default();
        let _ = page::execute_in(tab, frame, call, document_id, None, &abort).await;
        return;
    }
    let label = element_ref.as_ref().map(|_| HIGHLIGHT_LABEL.to_owned());
    let call = ExecutorCall::Highlight(HighlightParams { element_ref, label });
    let expected = match (document_id, tabs::get(tab).await) {
        (Some(document_id), Ok(info)) => format::web_origin(info.shown_url())
            .map(|origin| ExpectedTarget { document_id, origin }),
        _ => None,
    };
    let _ = page::execute(tab, call, None, expected, &AbortSignal::default()).await;
}

/// The id of the notification about `thread`: the worker script opens the thread when it is
/// clicked (`sw.js`).
fn notification_id(thread: &ThreadId) -> String {
    format!("panelot-thread:{thread}")
}

/// Shows (or, without `notice`, takes back) the notification that `thread` needs the user. It
/// stays until it is clicked or taken back: an approval waits for a person, not for a timeout.
pub(crate) async fn notify(thread: &ThreadId, notice: Option<Notice>) {
    let id = JsValue::from_str(&notification_id(thread));
    let result = match notice {
        Some(notice) => {
            let options = json!({
                "type": "basic",
                "iconUrl": "icons/panelot-128.png",
                "title": notice.title,
                "message": notice.message,
                "priority": 2,
                "requireInteraction": true,
            });
            chrome::call("notifications", "create", &[id, chrome::to_js(&options)]).await
        }
        None => chrome::call("notifications", "clear", &[id]).await,
    };
    // Notifications blocked by the user or the system leave the card in the thread, which is
    // where the answer is given anyway.
    let _ = result;
}

/// The target a call acts on, its tab still showing the origin it was judged for.
async fn judged_tab(call: &ToolInvocation) -> Result<&ResolvedTarget, ToolOutcome> {
    let Some(target) = &call.target else {
        return Err(failure(format!("`{}` has no tab to act on", call.tool)));
    };
    let info = tabs::get(target.tab).await.map_err(failure)?;
    // In a frame, the frame's document and origin are checked by its executor (`expected`).
    let judged = Origin::parse(target.tab_url()).ok();
    let now = Origin::parse(info.shown_url()).ok();
    if judged != now {
        let now_text = now.map_or_else(|| info.shown_url().to_owned(), |o| o.to_string());
        let judged_text = judged.map_or_else(|| target.tab_url().to_owned(), |o| o.to_string());
        return Err(format::target_changed(target.tab, &judged_text, &now_text));
    }
    Ok(target)
}

/// What the executor checks before acting: the judged document and its origin.
fn expected(target: &ResolvedTarget) -> Option<ExpectedTarget> {
    let origin = Origin::parse(&target.url).ok()?.to_string();
    target.document_id.clone().map(|document_id| ExpectedTarget { document_id, origin })
}

async fn run_page_tool(call: &ToolInvocation, tool: PageTool, abort: &AbortSignal) -> ToolOutcome {
    let executor_call = match catalog::executor_call(catalog::executor_tool(tool), &call.params) {
        Ok(executor_call) => executor_call,
        Err(message) => return failure(message),
    };
    // A page still loading is waited for, then checked: a call judged for the page that was
    // there before is refused.
    if let Some(target) = &call.target
        && let Err(err) = tabs::ready(target.tab, abort).await
    {
        return failure(format!("[tabId={}] {err}", target.tab));
    }
    let target = match judged_tab(call).await {
        Ok(judged) => judged,
        Err(outcome) => return outcome,
    };
    let tab = target.tab;
    let started = js_sys::Date::now();
    // A write may open a tab (a link with a target, `window.open`): the tabs before it are
    // listed so the new ones can be told apart by their opener.
    let writes = panelot_core::tools::catalog::classify(&call.tool).access == Access::Write;
    let before = if writes { tab_ids().await } else { Vec::new() };
    let ref_document =
        if catalog::carries_refs(&executor_call) { call.ref_document.clone() } else { None };
    let find = match &executor_call {
        ExecutorCall::FindInPage(params) => Some(params.clone()),
        _ => None,
    };
    let result = page::execute(tab, executor_call, ref_document, expected(target), abort).await;
    // The page's matches, then those of the frames its latest snapshot read.
    let result = match (result, find, call.ref_document.as_deref()) {
        (Ok(ExecutorResult::Find(found)), Some(params), Some(composed))
            if target.frame_of.is_none() =>
        {
            Ok(ExecutorResult::Find(
                page::find_with_frames(tab, found, &params, composed, abort).await,
            ))
        }
        (result, ..) => result,
    };
    let (outcome, document) = match result {
        Ok(result) => {
            // A snapshot of a frame alone (a folded region of it expanded) is not the tab's: the
            // page's snapshot, with the frame's document in it, stays the one refs belong to.
            let document = match &result {
                ExecutorResult::Snapshot(snapshot) if target.frame_of.is_none() => {
                    Some(snapshot.document_id.clone())
                }
                _ => None,
            };
            (format::page_result(tab, &result), document)
        }
        Err(outcome) => (outcome, None),
    };
    let outcome = format::with_elapsed(outcome, (js_sys::Date::now() - started).max(0.0) as u64);
    let outcome = with_page(outcome, tab, document).await;
    // A whole page's snapshot with nothing readable falls back to what the debugger sees.
    if tool == PageTool::ReadPage
        && target.frame_of.is_none()
        && call.params.get("scopeRef").is_none()
        && fallback::applies(&outcome)
    {
        return fallback::read(call, outcome, abort).await;
    }
    if !writes {
        return outcome;
    }
    with_opened_tabs(tab, &before, outcome, abort).await
}

/// The outcome with the page its tab shows now: where the content came from, or where a write
/// left the tab (the engine stops acting on a tab a write carried somewhere denied).
async fn with_page(outcome: ToolOutcome, tab: u32, document_id: Option<String>) -> ToolOutcome {
    match tabs::get(tab).await {
        Ok(info) => {
            outcome.with_page(PageSeen { tab, url: info.shown_url().to_owned(), document_id })
        }
        Err(_) => outcome,
    }
}

/// A write's outcome with the tabs it opened (those that did not exist `before` and name `tab`
/// as their opener); the newest is where the run's page calls go next.
async fn with_opened_tabs(
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
        // Later page calls need the page; how its load ends is seen by the next call.
        let _ = tabs::ready(new_tab, abort).await;
    }
    format::with_opened_tabs(outcome, &opened)
}

async fn tab_ids() -> Vec<u32> {
    match tabs::list().await {
        Ok((tabs, _)) => tabs.iter().filter_map(|tab| tab.id).collect(),
        Err(_) => Vec::new(),
    }
}

/// One executor call on `tab` on behalf of another tool (the debugger's `get_rect`), in the
/// frame its ref names, checked against the judged document like the tool itself.
async fn page_call(
    target: &ResolvedTarget,
    call: ExecutorCall,
    ref_document: Option<String>,
    abort: &AbortSignal,
) -> Result<ExecutorResult, ToolOutcome> {
    page::execute(target.tab, call, ref_document, expected(target), abort).await
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
                    let what =
                        if created { "tab_created" } else { "reused the tab already at this URL" };
                    let content = format!("{} {what}{}", tab.line(), load_note(load));
                    let details = json!({"tab": tab.details(), "created": created});
                    let outcome = ToolOutcome::done(content).with_details(details);
                    match tab.id {
                        Some(id) => {
                            let page = PageSeen {
                                tab: id,
                                url: tab.shown_url().to_owned(),
                                document_id: None,
                            };
                            outcome.with_opened_tab(id).with_page(page)
                        }
                        None => outcome,
                    }
                }
                Err(err) => failure(err),
            }
        }
        TabTool::Focus => {
            let target = match judged_tab(call).await {
                Ok(judged) => judged,
                Err(outcome) => return outcome,
            };
            match tabs::focus(target.tab).await {
                Ok(info) => ToolOutcome::done(format!("{} is now in front", info.line()))
                    .with_details(info.details()),
                Err(err) => failure(err),
            }
        }
        TabTool::Close => {
            let target = match judged_tab(call).await {
                Ok(judged) => judged,
                Err(outcome) => return outcome,
            };
            match tabs::close(target.tab).await {
                Ok((info, viewing)) => {
                    let note = if viewing {
                        "; it was the tab the user was viewing"
                    } else {
                        "; the user's view did not change"
                    };
                    ToolOutcome::done(format!("closed {}{note}", info.line()))
                        .with_details(json!({"tab": info.details(), "wasViewed": viewing}))
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
    let target = match judged_tab(call).await {
        Ok(judged) => judged,
        Err(outcome) => return outcome,
    };
    let tab = target.tab;
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
/// can act without another call.
async fn after_navigation(
    tab: u32,
    info: &format::TabInfo,
    load: Load,
    abort: &AbortSignal,
) -> ToolOutcome {
    let head = format!("{}{}", info.line(), load_note(load));
    let read = ExecutorCall::ReadPage(ReadPageParams::default());
    let (content, document_id) = match page::execute(tab, read, None, None, abort).await {
        Ok(ExecutorResult::Snapshot(snapshot)) => {
            (format!("{head}\n{}", snapshot.text), Some(snapshot.document_id))
        }
        Ok(_) => (head, None),
        Err(outcome) => (format!("{head}\n(no snapshot: {})", outcome.text()), None),
    };
    let page = PageSeen { tab, url: info.shown_url().to_owned(), document_id };
    ToolOutcome::done(content).with_details(info.details()).with_page(page)
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
    match Origin::parse(url) {
        Ok(origin) if origin.is_web() => Ok(()),
        Ok(_) | Err(_) => Err(format!(
            "`{url}` is not an http(s) URL; give an absolute URL such as https://example.com/"
        )),
    }
}
