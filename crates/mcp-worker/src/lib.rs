//! Panelot's MCP client as its own wasm module in the service worker, apart from the engine's:
//! the engine wasm stays under its size budget, the module is only fetched and instantiated
//! once an MCP server is configured, and a trap on a hostile server's JSON kills this module,
//! not the engine.
//!
//! Two exports, driven by `static/mcp_bridge.js` in the extension:
//!
//! * [`mcp_start`]`(onEvent, browser)`: creates the [`McpManager`] (once; a second call only
//!   replaces the callback). `onEvent` receives each [`Event`] as JSON text. `browser` is the
//!   OAuth sign-in's browser part, `{redirectUrl, authorize(url) → Promise<redirectUrl>}`
//!   (`chrome.identity.getRedirectURL("mcp")` and `launchWebAuthFlow`, interactive); the manager
//!   calls `authorize` only for the user's Sign in. Randomness comes from
//!   `crypto.getRandomValues`, the clock from `Date.now()` (through the timer).
//! * [`mcp_command`]`(json)`: runs one [`panelot_mcp::bridge::Command`] and resolves with the
//!   reply's JSON text. It never rejects for a bad command: that gets a `badCommand` reply.
//!
//! The shapes are documented in `panelot_mcp::bridge`; traffic goes through the browser's
//! `fetch` and `setTimeout` (`panelot-web-fetch`), background work through `spawn_local`.
//!
//! Size: 409,772 bytes after wasm-opt (first build, with OAuth refresh); 514,573 bytes with
//! prompts, resources, elicitation and the OAuth sign-in (test flavor built at 8ec83fd). Being
//! a module of its own it pays again for what the engine already has; most of it is serde_json
//! and the (de)serializers of the MCP and bridge types, about 220 KB before wasm-opt.

#![deny(clippy::print_stdout, clippy::print_stderr)]

use std::cell::RefCell;

use js_sys::Function;
use js_sys::Promise;
use js_sys::Reflect;
use js_sys::Uint8Array;
use panelot_core::model::LocalFuture;
use panelot_mcp::bridge::ErrorKind;
use panelot_mcp::bridge::Event;
use panelot_mcp::bridge::Reply;
use panelot_mcp::manager::Browser;
use panelot_mcp::manager::ManagerOptions;
use panelot_mcp::manager::McpManager;
use panelot_mcp::manager::Spawn;
use panelot_mcp::oauth::Random;
use panelot_web_fetch::BrowserTimer;
use panelot_web_fetch::FetchHttp;
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen_futures::JsFuture;

type Manager = McpManager<FetchHttp, BrowserTimer>;

thread_local! {
    /// The module's one manager, made by `mcp_start`.
    static MANAGER: RefCell<Option<Manager>> = const { RefCell::new(None) };
    /// Where events go; read at each event so `mcp_start` can replace it.
    static ON_EVENT: RefCell<Option<Function>> = const { RefCell::new(None) };
}

/// Runs background work on the worker's microtask queue.
struct LocalSpawner;

impl Spawn for LocalSpawner {
    fn spawn(&self, task: LocalFuture<'static, ()>) {
        wasm_bindgen_futures::spawn_local(task);
    }
}

/// Sends `event` to the callback as JSON text. A callback that throws loses that event only.
fn emit(event: Event) {
    let callback = ON_EVENT.with(|slot| slot.borrow().clone());
    if let Some(callback) = callback {
        let _ = callback.call1(&JsValue::NULL, &JsValue::from_str(&event.to_json()));
    }
}

/// The sign-in's browser part, from the JS object `mcp_bridge.js` passes to [`mcp_start`].
struct JsBrowser {
    /// `{redirectUrl, authorize}`; either may be missing (no `identity` permission).
    browser: JsValue,
    random: WebCrypto,
}

impl JsBrowser {
    fn authorize_function(&self) -> Result<Function, String> {
        Reflect::get(&self.browser, &"authorize".into())
            .ok()
            .and_then(|value| value.dyn_into::<Function>().ok())
            .ok_or_else(|| "the browser's sign-in window is not available".to_owned())
    }
}

impl Browser for JsBrowser {
    fn redirect_uri(&self) -> Result<String, String> {
        self.random.check()?;
        Reflect::get(&self.browser, &"redirectUrl".into())
            .ok()
            .and_then(|value| value.as_string())
            .filter(|url| !url.is_empty())
            .ok_or_else(|| {
                "chrome.identity is not available (the extension lacks the identity permission)"
                    .to_owned()
            })
    }

    fn random(&self) -> &dyn Random {
        &self.random
    }

    fn authorize(&self, url: String) -> LocalFuture<'static, Result<String, String>> {
        let function = self.authorize_function();
        let browser = self.browser.clone();
        Box::pin(async move {
            let promise = function?
                .call1(&browser, &JsValue::from_str(&url))
                .map_err(|err| js_message(&err))?
                .dyn_into::<Promise>()
                .map_err(|_| "authorize did not return a promise".to_owned())?;
            let redirect = JsFuture::from(promise).await.map_err(|err| js_message(&err))?;
            redirect.as_string().ok_or_else(|| "the sign-in window returned no address".to_owned())
        })
    }
}

/// `crypto.getRandomValues`, the browser's cryptographically secure source.
struct WebCrypto;

impl WebCrypto {
    /// The worker's `crypto` object with its `getRandomValues`, or why there is none.
    fn source() -> Result<(JsValue, Function), String> {
        let crypto = Reflect::get(&js_sys::global(), &"crypto".into())
            .ok()
            .filter(JsValue::is_object)
            .ok_or_else(|| "crypto is not available".to_owned())?;
        let function = Reflect::get(&crypto, &"getRandomValues".into())
            .ok()
            .and_then(|value| value.dyn_into::<Function>().ok())
            .ok_or_else(|| "crypto.getRandomValues is not available".to_owned())?;
        Ok((crypto, function))
    }

    /// Checked before a sign-in starts, so [`Random::fill`] has its source.
    fn check(&self) -> Result<(), String> {
        Self::source().map(drop)
    }
}

impl Random for WebCrypto {
    fn fill(&self, bytes: &mut [u8]) {
        // `check` ran before the sign-in and the requests are far below the 65,536 bytes
        // getRandomValues allows, so this does not fail. If it did, bytes that are not random
        // must not become a PKCE verifier: stop here (a trap the shim reports) rather than
        // go on with predictable bytes.
        let array = Uint8Array::new_with_length(u32::try_from(bytes.len()).unwrap_or(u32::MAX));
        let filled = Self::source().and_then(|(crypto, function)| {
            function.call1(&crypto, &array).map_err(|err| js_message(&err))
        });
        if let Err(reason) = filled {
            panic!("no secure randomness for the sign-in: {reason}");
        }
        array.copy_to(bytes);
    }
}

/// A thrown JS value in words.
fn js_message(err: &JsValue) -> String {
    Reflect::get(err, &"message".into())
        .ok()
        .and_then(|message| message.as_string())
        .or_else(|| err.as_string())
        .unwrap_or_else(|| "unknown error".to_owned())
}

/// Starts the module: `on_event` receives every event as JSON text; `browser` is the sign-in's
/// browser part (see the crate docs).
#[wasm_bindgen]
pub fn mcp_start(on_event: Function, browser: JsValue) {
    ON_EVENT.with(|slot| *slot.borrow_mut() = Some(on_event));
    MANAGER.with(|slot| {
        let mut slot = slot.borrow_mut();
        if slot.is_none() {
            *slot = Some(McpManager::new(
                FetchHttp,
                BrowserTimer,
                Box::new(LocalSpawner),
                Box::new(JsBrowser { browser, random: WebCrypto }),
                Box::new(emit),
                ManagerOptions::default(),
            ));
        }
    });
}

/// Runs one command (JSON text); the promise resolves with the reply (JSON text).
#[wasm_bindgen]
pub fn mcp_command(json: String) -> Promise {
    let manager = MANAGER.with(|slot| slot.borrow().clone());
    wasm_bindgen_futures::future_to_promise(async move {
        let reply = match manager {
            Some(manager) => manager.command_json(&json).await,
            None => Reply::error(ErrorKind::NotStarted, "the MCP module was not started").to_json(),
        };
        Ok(JsValue::from_str(&reply))
    })
}
