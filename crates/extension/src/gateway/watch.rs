//! `watch_page` in the browser: the engine parks the run and asks for a watch of the tab the
//! call was judged on; this runs until what the call waits for holds, the tab goes away, or the
//! engine stops it (the user ended the wait, its deadline passed, the turn ended). The engine
//! keeps the deadline and starts a new watch after the worker restarts, so a watch may end
//! with the worker at any moment.
//!
//! Text is watched in the page (`watch.js`: a MutationObserver, resolved at once when the text
//! shows up) in rounds of [`ROUND_MS`], so a navigation, which drops the page's listener, costs
//! at most a short pause before the next round runs in the new document. A URL is read from
//! the tab.

use js_sys::Function;
use panelot_core::combinators::Either;
use panelot_core::combinators::race;
use panelot_core::engine::ToolInvocation;
use panelot_core::engine::ToolOutcome;
use panelot_core::env::AbortSignal;
use serde_json::Value;
use serde_json::json;
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;

use super::chrome;
use super::error::BrowserError;
use super::format::failure;
use super::tabs;
use crate::wait;

#[wasm_bindgen(module = "/src/gateway/watch.js")]
extern "C" {
    /// The function run in the page.
    #[wasm_bindgen(js_name = pageWatch)]
    fn page_watch() -> JsValue;
}

/// How long one round of watching a page's text lasts before it is started again.
const ROUND_MS: u64 = 20_000;

/// The pause before looking again when the page could not be watched (it was loading) or its
/// URL did not match yet.
const RETRY_MS: u64 = 1_000;

/// What a watch waits for.
enum Condition {
    Text { gone: bool },
    Url,
}

/// Watches the call's tab until its condition holds (done), the tab is gone (failed), or
/// `abort` fires (failed; the engine no longer listens).
pub(crate) async fn run(call: &ToolInvocation, abort: &AbortSignal) -> ToolOutcome {
    let Some(tab) = call.target.as_ref().map(|target| target.tab) else {
        return failure("there is no tab to watch");
    };
    let value = call.params["value"].as_str().unwrap_or_default().to_owned();
    let condition = match call.params["condition"].as_str() {
        Some("text_gone") => Condition::Text { gone: true },
        Some("url") => Condition::Url,
        _ => Condition::Text { gone: false },
    };
    loop {
        if abort.is_aborted() {
            return failure("the watch was stopped");
        }
        let Ok(info) = tabs::get(tab).await else {
            return failure(format!("tab {tab} was closed"));
        };
        let seen = match condition {
            Condition::Url => Ok(info.url.as_deref().is_some_and(|url| url.contains(&value))),
            Condition::Text { gone } => {
                match race(watch_text(tab, &value, gone), abort.aborted()).await {
                    Either::Left(seen) => seen,
                    Either::Right(()) => return failure("the watch was stopped"),
                }
            }
        };
        match seen {
            Ok(true) => return ToolOutcome::done(format!("seen on tab {tab}")),
            // A round without it: the next one starts at once.
            Ok(false) if matches!(condition, Condition::Text { .. }) => continue,
            // Not yet, or a document that cannot be scripted right now (it is loading, or an
            // error page): look again shortly.
            Ok(false) | Err(_) => {
                if let Either::Right(()) = race(wait::sleep(RETRY_MS), abort.aborted()).await {
                    return failure("the watch was stopped");
                }
            }
        }
    }
}

/// One round of watching the top frame's text.
async fn watch_text(tab: u32, value: &str, gone: bool) -> Result<bool, BrowserError> {
    let func = page_watch()
        .dyn_into::<Function>()
        .map_err(|_| BrowserError::Unexpected("the page watch is not a function".to_owned()))?;
    let details = chrome::to_js(&json!({
        "target": {"tabId": tab, "frameIds": [0]},
        "args": [value, gone, ROUND_MS],
    }));
    js_sys::Reflect::set(&details, &"func".into(), &func)
        .map_err(|err| BrowserError::Unexpected(chrome::error_text(&err)))?;
    let raw = chrome::call("scripting", "executeScript", &[details]).await?;
    match &chrome::to_json(&raw)[0]["result"] {
        Value::Bool(seen) => Ok(*seen),
        // The frame answered nothing (it navigated away mid-round): not a round that ran out.
        _ => Err(BrowserError::Unexpected("the page did not answer the watch".to_owned())),
    }
}
