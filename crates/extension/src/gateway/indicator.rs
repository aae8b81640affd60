//! The page indicator: while a run acts on a tab, a small bar in the page says so, with Pause
//! and Stop; a real mouse or key press of the user elsewhere in that page pauses the run (the
//! user takes over). `indicator.js` draws it and listens, in the extension's isolated world of
//! the tab's top frame.
//!
//! When it shows: the engine marks each call that writes to its tab, or acts on a tab an earlier
//! write of the turn acted on ([`ToolInvocation::indicator`]), and the gateway shows the bar
//! there before running the call. A page that navigated gets it back with the run's next call
//! there (nothing watches navigations). It goes, or says the run is paused, when the engine
//! says the run stopped acting ([`panelot_core::engine::Effect::Indicator`]).
//!
//! What comes back: the page script sends `{panelot: "indicator", kind, run}` on
//! `chrome.runtime`, which only the extension's own contexts can send on (the manifest declares
//! no `externally_connectable`, so a page's scripts cannot). [`signal`] takes it only from a
//! content script of this extension in a tab's top frame; the engine then takes it only for a
//! run at work that writes to that tab. A press the agent's own debugger input made (trusted,
//! like the user's) is not a takeover: the page does not listen for one while a debugger call
//! runs (the gateway tells it before and after, and the bar is hidden meanwhile: the agent's
//! clicks reach the page under it, never Pause or Stop, and its screenshots show the page
//! alone), and the worker drops a takeover heard while a
//! debugger call holds the tab or just after ([`super::debugger::own_input_on`]).

use js_sys::Function;
use panelot_core::engine::IndicatorState;
use panelot_core::engine::PageSignal;
use panelot_core::engine::PageSignalKind;
use panelot_core::engine::ToolInvocation;
use panelot_protocol::RunId;
use serde_json::json;
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;

use super::chrome;
use super::error::BrowserError;

#[wasm_bindgen(module = "/src/gateway/indicator.js")]
extern "C" {
    /// The function run in the page.
    #[wasm_bindgen(js_name = pageIndicator)]
    fn page_indicator() -> JsValue;
}

/// Whether the page takes a trusted press outside the indicator for the user taking over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Takeover {
    /// It does.
    Heard,
    /// It does not: the agent's own trusted input (a debugger call) is on its way. The bar is
    /// hidden meanwhile, so that the agent's clicks reach the page under it and its
    /// screenshots show the page alone.
    Ignored,
}

/// Shows the indicator of the call's run in its tab when the run acts there. A page that cannot
/// be scripted (the browser's own pages, a tab still loading) simply shows none.
pub(crate) async fn show_for(call: &ToolInvocation, takeover: Takeover) {
    if let Some(target) = call.target.as_ref().filter(|_| call.indicator) {
        let command = match takeover {
            Takeover::Heard => "show",
            Takeover::Ignored => "agent",
        };
        let _ = run_in(target.tab, command, &call.run_id).await;
    }
}

/// Takes the run's indicator away from `tabs`, or shows there that the run is paused, or that it
/// still works (a takeover it did not take).
pub(crate) async fn update(run: &RunId, tabs: &[u32], state: IndicatorState) {
    let command = match state {
        IndicatorState::Working => "show",
        IndicatorState::Paused => "paused",
        IndicatorState::Gone => "gone",
    };
    for tab in tabs {
        let _ = run_in(*tab, command, run).await;
    }
}

async fn run_in(tab: u32, command: &str, run: &RunId) -> Result<(), BrowserError> {
    let func = page_indicator()
        .dyn_into::<Function>()
        .map_err(|_| BrowserError::Unexpected("the page indicator is not a function".to_owned()))?;
    let details = chrome::to_js(&json!({
        "target": {"tabId": tab, "frameIds": [0]},
        "args": [command, run.as_str()],
    }));
    js_sys::Reflect::set(&details, &"func".into(), &func)
        .map_err(|err| BrowserError::Unexpected(chrome::error_text(&err)))?;
    chrome::call("scripting", "executeScript", &[details]).await?;
    Ok(())
}

/// Who sent a message on `chrome.runtime`, as `chrome.runtime.onMessage` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sender<'a> {
    /// The sending extension's id.
    pub(crate) extension_id: &'a str,
    /// Its tab, for a content script.
    pub(crate) tab: Option<u32>,
    /// Its frame (0: the tab's top frame).
    pub(crate) frame: i64,
    /// The URL of its document.
    pub(crate) url: &'a str,
}

/// The signal in an indicator's message (`kind`, `run`), when it comes from this extension's
/// script in a tab's top frame: a web page's document, never one of the extension's own pages
/// (which may be in a tab too). `None` for anything else.
pub(crate) fn signal(
    kind: &str,
    run: &str,
    sender: &Sender<'_>,
    extension_origin: &str,
) -> Option<PageSignal> {
    let own_id = extension_origin.strip_prefix("chrome-extension://")?.trim_end_matches('/');
    if sender.extension_id != own_id
        || sender.frame != 0
        || sender.url.starts_with(extension_origin)
    {
        return None;
    }
    let kind = match kind {
        "pause" => PageSignalKind::Pause,
        "stop" => PageSignalKind::Stop,
        "takeover" => PageSignalKind::TookOver,
        _ => return None,
    };
    Some(PageSignal { tab: sender.tab?, run_id: RunId::new(run).ok()?, kind })
}

#[cfg(test)]
#[path = "indicator_tests.rs"]
mod tests;
