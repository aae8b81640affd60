//! L0: tabs through `chrome.tabs` and `chrome.windows`. Loads are awaited by polling the tab's
//! status, which needs no listener bookkeeping and survives a tab that redirects or is replaced
//! by a prerendered one under the same id.

use panelot_core::env::AbortSignal;
use panelot_core::sort::sort_by_u64_key;
use serde::Deserialize;
use serde_json::json;
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;

use super::chrome;
use super::error::BrowserError;
use super::format::TabInfo;
use crate::wait;
use panelot_core::combinators::Either;
use panelot_core::combinators::race;

/// How long a load is waited for before the call goes on with a page still loading.
const LOAD_TIMEOUT_MS: u64 = 15_000;
/// Polling interval of a load.
const LOAD_POLL_MS: u64 = 100;
/// A navigation that never showed `loading` in this long is taken as done (same-document
/// navigations, such as to a fragment, never load).
const NO_LOAD_GRACE_MS: u64 = 1_000;

/// Whether a load finished before the timeout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Load {
    /// `status` became `complete`.
    Complete,
    /// Still loading after [`LOAD_TIMEOUT_MS`].
    StillLoading,
    /// Nothing happened: no load, the same URL, for [`NO_LOAD_GRACE_MS`].
    Unmoved,
}

#[wasm_bindgen(inline_js = "export function historyStep() {
  return function (delta) { history.go(delta); };
}")]
extern "C" {
    /// A function for `chrome.scripting.executeScript` that moves the page's own history by
    /// `delta` entries.
    #[wasm_bindgen(js_name = historyStep)]
    fn history_step() -> js_sys::Function;
}

#[derive(Deserialize)]
struct WindowInfo {
    id: Option<u32>,
}

/// A tab by id.
pub(crate) async fn get(tab: u32) -> Result<TabInfo, BrowserError> {
    let raw = chrome::call("tabs", "get", &[JsValue::from(tab)])
        .await
        .map_err(|_| BrowserError::NoTab(tab))?;
    chrome::decode(&raw)
}

/// The tab the user is viewing: the active tab of the last focused window.
pub(crate) async fn viewed() -> Result<Option<TabInfo>, BrowserError> {
    let query = chrome::to_js(&json!({"active": true, "lastFocusedWindow": true}));
    let raw = chrome::call("tabs", "query", &[query]).await?;
    let tabs: Vec<TabInfo> = chrome::decode(&raw)?;
    Ok(tabs.into_iter().find(|tab| tab.id.is_some()))
}

/// Every tab, and the last focused window.
pub(crate) async fn list() -> Result<(Vec<TabInfo>, Option<u32>), BrowserError> {
    let raw = chrome::call("tabs", "query", &[chrome::to_js(&json!({}))]).await?;
    let mut tabs: Vec<TabInfo> = chrome::decode(&raw)?;
    sort_by_u64_key(&mut tabs, |tab| u64::from(tab.window_id));
    Ok((tabs, focused_window().await))
}

async fn focused_window() -> Option<u32> {
    let raw = chrome::call("windows", "getLastFocused", &[]).await.ok()?;
    chrome::decode::<WindowInfo>(&raw).ok()?.id
}

/// Opens `url` in a background tab of the last focused window, or finds a tab already at that
/// exact URL. Returns the tab, whether it was created, and how its load ended.
pub(crate) async fn open(
    url: &str,
    abort: &AbortSignal,
) -> Result<(TabInfo, bool, Load), BrowserError> {
    let (tabs, _) = list().await?;
    if let Some(tab) = tabs.into_iter().find(|tab| tab.url.as_deref() == Some(url)) {
        return Ok((tab, false, Load::Complete));
    }
    let raw =
        chrome::call("tabs", "create", &[chrome::to_js(&json!({"url": url, "active": false}))])
            .await?;
    let created: TabInfo = chrome::decode(&raw)?;
    let id = created.id.ok_or_else(|| BrowserError::Unexpected("the new tab has no id".into()))?;
    let (tab, load) = wait_loaded(id, None, abort).await?;
    Ok((tab, true, load))
}

/// Makes the tab the selected one of its window and focuses the window.
pub(crate) async fn focus(tab: u32) -> Result<TabInfo, BrowserError> {
    let raw = chrome::call(
        "tabs",
        "update",
        &[JsValue::from(tab), chrome::to_js(&json!({"active": true}))],
    )
    .await?;
    let info: TabInfo = chrome::decode(&raw)?;
    let focused = chrome::to_js(&json!({"focused": true}));
    chrome::call("windows", "update", &[JsValue::from(info.window_id), focused]).await?;
    Ok(info)
}

/// Closes the tab; says whether it was the one the user was viewing.
pub(crate) async fn close(tab: u32) -> Result<(TabInfo, bool), BrowserError> {
    let info = get(tab).await?;
    let viewing = info.active && focused_window().await == Some(info.window_id);
    chrome::call("tabs", "remove", &[JsValue::from(tab)]).await?;
    Ok((info, viewing))
}

/// Where a tab goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Move<'a> {
    /// To this URL.
    To(&'a str),
    /// Back in its history.
    Back,
    /// Forward in its history.
    Forward,
}

/// Moves the tab and waits for the page.
pub(crate) async fn go(
    tab: u32,
    how: Move<'_>,
    abort: &AbortSignal,
) -> Result<(TabInfo, Load), BrowserError> {
    let before = get(tab).await?;
    if let Move::To(url) = how
        && before.url.as_deref() == Some(url)
    {
        // Already there: reloading would throw away what the user or the model did on the page.
        return Ok((before, Load::Complete));
    }
    let tab_id = JsValue::from(tab);
    match how {
        Move::To(url) => {
            let update = chrome::to_js(&json!({"url": url}));
            chrome::call("tabs", "update", &[tab_id, update]).await?
        }
        Move::Back => step_history(tab, -1, "goBack").await?,
        Move::Forward => step_history(tab, 1, "goForward").await?,
    };
    wait_loaded(tab, before.url.as_deref(), abort).await
}

/// Moves the tab through its history the way the page's own `history.go` does. Chrome's
/// back button, which `chrome.tabs.goBack` is, skips entries that navigated away without a user
/// gesture (its history-manipulation intervention), and every synthetic click is such a
/// navigation: after the agent follows a link, the button finds nothing to go back to, or goes
/// back further than one page. Pages the extension cannot script (browser pages, sites without
/// host access) get the button.
async fn step_history(tab: u32, delta: i32, button: &str) -> Result<JsValue, BrowserError> {
    let details = js_sys::Object::new();
    let target = chrome::to_js(&json!({"tabId": tab}));
    let args = js_sys::Array::of1(&JsValue::from(delta));
    for (key, value) in [("target", target), ("func", history_step().into()), ("args", args.into())]
    {
        js_sys::Reflect::set(&details, &key.into(), &value).map_err(|err| chrome::refused(&err))?;
    }
    match chrome::call("scripting", "executeScript", &[details.into()]).await {
        Ok(done) => Ok(done),
        Err(_) => chrome::call("tabs", button, &[JsValue::from(tab)]).await,
    }
}

/// Waits until a tab that is loading has loaded, so a page call goes to the new document rather
/// than into one that is going away (a click that navigated, a redirect).
pub(crate) async fn ready(tab: u32, abort: &AbortSignal) -> Result<(), BrowserError> {
    wait_loaded(tab, None, abort).await.map(|_| ())
}

/// Polls the tab until it has loaded: it showed `loading` (or its URL changed from `before`)
/// and is `complete` again, or it stayed complete past the no-load grace.
async fn wait_loaded(
    tab: u32,
    before: Option<&str>,
    abort: &AbortSignal,
) -> Result<(TabInfo, Load), BrowserError> {
    let started = js_sys::Date::now() as u64;
    let mut saw_loading = false;
    loop {
        let info = get(tab).await?;
        let complete = info.status.as_deref() == Some("complete");
        saw_loading |= !complete;
        let moved = before.is_none() || info.url.as_deref() != before;
        let elapsed = (js_sys::Date::now() as u64).saturating_sub(started);
        if complete && (saw_loading || moved) {
            return Ok((info, Load::Complete));
        }
        // Only reached with a `before` URL (without one, any complete tab has "moved").
        if complete && elapsed >= NO_LOAD_GRACE_MS {
            return Ok((info, Load::Unmoved));
        }
        if elapsed >= LOAD_TIMEOUT_MS {
            return Ok((info, Load::StillLoading));
        }
        if let Either::Right(()) = race(wait::sleep(LOAD_POLL_MS), abort.aborted()).await {
            return Err(BrowserError::Aborted);
        }
    }
}
