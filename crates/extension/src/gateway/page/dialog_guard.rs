//! The dialog guard around an L1 write: before the executor acts, the page's own world (MAIN) in
//! every frame the extension may script gets `dialog_guard.js`, which answers `alert`, `confirm`,
//! `prompt` and `beforeunload` at once with their safe answers, so a page handler that asks never
//! blocks the page or the call; the executor reports what they said in the action's evidence.
//! Removed when the call ends; should the worker die first, the page drops it by itself when its
//! lease runs out.
//!
//! No debugger: L1 never shows Chrome's "is debugging this browser" bar. The price is that the
//! guard replaces the page's functions rather than the browser's dialogs (see the script's
//! header for what that leaves).

use js_sys::Function;
use js_sys::Reflect;
use panelot_protocol::RequestId;
use panelot_protocol::content::DIALOG_EVENT;
use panelot_protocol::content::DIALOG_MESSAGE_MAX_CHARS;
use panelot_protocol::content::DIALOGS_MAX;
use serde::Deserialize;
use serde_json::Value;
use serde_json::json;
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;

use super::super::chrome;
use super::super::error::BrowserError;

#[wasm_bindgen(module = "/src/gateway/page/dialog_guard.js")]
extern "C" {
    /// `{install, remove}`: the two functions run in the page.
    #[wasm_bindgen(js_name = dialogGuard)]
    fn dialog_guard() -> JsValue;
}

/// Why the guard is not in place, so the call must not act.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum GuardError {
    /// The page made these dialog functions read-only native ones: a dialog would block.
    #[error("the page locked window.{} so that Panelot cannot answer its dialogs", .0.join(", window."))]
    Locked(Vec<String>),
    /// The script could not run in the page.
    #[error("the dialog guard could not be installed ({0})")]
    Install(String),
}

/// What `install` answers in one frame.
#[derive(Deserialize)]
struct Installed {
    #[serde(default)]
    locked: Vec<String>,
}

/// One frame's answer of `chrome.scripting.executeScript`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FrameResult {
    #[serde(default)]
    frame_id: u32,
    #[serde(default)]
    result: Value,
}

/// Installs the guard in `tab` for the call `lease`, for at most `lease_ms` unless removed.
/// Fails when the top frame cannot be guarded.
pub(crate) async fn install(tab: u32, lease: &RequestId, lease_ms: u64) -> Result<(), GuardError> {
    let args =
        json!([DIALOG_EVENT, DIALOGS_MAX, DIALOG_MESSAGE_MAX_CHARS, lease.as_str(), lease_ms]);
    let raw = match run(tab, "install", &args, true).await {
        Ok(raw) => raw,
        // A frame the extension may not script can fail the whole call: the top frame alone
        // is then guarded.
        Err(_) => run(tab, "install", &args, false)
            .await
            .map_err(|err| GuardError::Install(err.to_string()))?,
    };
    let frames: Vec<FrameResult> =
        chrome::decode(&raw).map_err(|err| GuardError::Install(err.to_string()))?;
    let top = frames
        .into_iter()
        .find(|frame| frame.frame_id == 0)
        .ok_or_else(|| GuardError::Install("the top frame did not answer".to_owned()))?;
    let installed: Installed = panelot_protocol::from_value(top.result)
        .map_err(|err| GuardError::Install(err.to_string()))?;
    if installed.locked.is_empty() {
        Ok(())
    } else {
        // The frames that did install keep the guard until their lease ends; removing it here
        // is the same as for any call.
        remove(tab, lease).await;
        Err(GuardError::Locked(installed.locked))
    }
}

/// Ends the call `lease`'s guard in every frame of `tab`.
pub(crate) async fn remove(tab: u32, lease: &RequestId) {
    let args = json!([lease.as_str()]);
    let _ = run(tab, "remove", &args, true).await;
}

/// Runs the guard's function `name` with `args` in the MAIN world of `tab`'s frames (every frame,
/// or only the top one), before the page's own scripts of a loading document.
async fn run(
    tab: u32,
    name: &str,
    args: &Value,
    all_frames: bool,
) -> Result<JsValue, BrowserError> {
    let func = Reflect::get(&dialog_guard(), &name.into())
        .ok()
        .and_then(|f| f.dyn_into::<Function>().ok())
        .ok_or_else(|| BrowserError::Unexpected(format!("the dialog guard has no {name}")))?;
    let target = if all_frames {
        json!({"tabId": tab, "allFrames": true})
    } else {
        json!({"tabId": tab, "frameIds": [0]})
    };
    let details = chrome::to_js(
        &json!({"target": target, "world": "MAIN", "injectImmediately": true, "args": args}),
    );
    Reflect::set(&details, &"func".into(), &func)
        .map_err(|err| BrowserError::Unexpected(chrome::error_text(&err)))?;
    chrome::call("scripting", "executeScript", &[details]).await
}
