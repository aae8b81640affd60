//! L2: tools that drive a tab over the Chrome DevTools Protocol through `chrome.debugger`: a
//! trusted click (on a ref or at a point), trusted typing, trusted key chords and a trusted drag
//! (real input events, which pass
//! `event.isTrusted` and user-activation checks and may open popups), a viewport screenshot,
//! `read_page_deep` (the accessibility tree of every frame, whose `d` refs the trusted tools take:
//! [`reach`]), and `run_javascript` (which the engine's seeded rule denies until the user deletes
//! that rule). No L2 call runs unless the engine allows the debugger for it (the turn enables L2
//! and the page is not off limits).
//!
//! **Attachment: one attach per call, detached when the call ends.** Keeping the debugger
//! attached between calls (for, say, 30 s of idleness) would save the attach. Attaching costs a few milliseconds, while an attached debugger shows Chrome's
//! "is debugging this browser" bar to the user and keeps the tab under a debugger that a
//! service worker restart would orphan (its idle timer dies with the worker). Per call, nothing
//! outlives the call: no timer, no state to recover.
//!
//! **Dialogs**: while a write runs, `Page.javascriptDialogOpening` is answered at once (alerts
//! accepted, confirm, prompt and beforeunload dismissed unless the call sets `acceptDialogs`), so a
//! dialog never blocks the page or the call; what they said is reported in the result.
//!
//! The `debugger` permission is declared by the manifest; L2 tools are offered only to turns that
//! enable them. Should the API be missing, every L2 call fails with a message naming what the
//! user has to allow. Every call acts on the tab it was judged for, and the page's document is
//! checked by the executor when the element's box is read.
//!
//! The parsing of parameters and the formatting of results are pure and tested natively.

mod deep;
mod input;
pub(crate) mod reach;
mod settle;
mod shot;

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::Function;
use js_sys::Reflect;
use panelot_core::engine::ToolInvocation;
use panelot_core::engine::ToolOutcome;
use panelot_core::engine::ToolStatus;
use panelot_core::env::AbortSignal;
use panelot_core::target::ResolvedTarget;
use panelot_core::tools::catalog::DebuggerTool;
use panelot_core::tools::catalog::TAB_ID_PARAM;
use panelot_protocol::content::ExecutorCall;
use panelot_protocol::content::ExecutorResult;
use panelot_protocol::content::LabelRefsParams;
use panelot_protocol::content::RectResult;
use serde_json::Value;
use serde_json::json;
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use wasm_bindgen::closure::Closure;

pub(crate) use self::deep::unusable as snapshot_unusable;
use self::input::KeyPress;
use super::catalog;
use super::chrome;
use super::error::BrowserError;
use super::format;
use super::frames;
use super::tabs;
use crate::wait;
use panelot_core::combinators::Either;
use panelot_core::combinators::race;

/// The CDP version `chrome.debugger.attach` is asked for.
const PROTOCOL_VERSION: &str = "1.3";
/// Deadline of one L2 call, as for an executor call.
const CALL_DEADLINE_MS: u64 = 15_000;
/// How long a write waits after its input for the page's handlers (and their dialogs) to run
/// while the dialog guard is still listening.
const AFTER_INPUT_MS: u64 = 300;
/// How often the settle checks the network after that.
const SETTLE_POLL_MS: u64 = 100;
/// Characters of a `run_javascript` result the model reads.
pub(crate) const EVAL_RESULT_BUDGET: usize = 4_000;
/// Characters of a dialog's message quoted back to the model.
const DIALOG_TEXT_BUDGET: usize = 300;
/// Screenshots larger than this (base64 characters) are described but not kept on the card.
const SCREENSHOT_KEEP_MAX: usize = 2_000_000;
/// Mouse moves between a drag's press and its release.
const DRAG_STEPS: u32 = 10;
/// The manifest permission the L2 tools need (declared in `permissions`, granted at install).
pub(crate) const DEBUGGER_PERMISSION: &str = "debugger";

/// One L2 call, parsed from the model's parameters.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum DebuggerCall {
    /// `click_trusted`.
    Click {
        /// The element.
        element_ref: String,
        /// Accept confirm/prompt dialogs instead of dismissing them.
        accept_dialogs: bool,
    },
    /// `type_trusted`.
    Type {
        /// The element.
        element_ref: String,
        /// What to type.
        text: String,
        /// Add to the field's text instead of replacing it.
        append: bool,
        /// Press Enter after the text (what `type`'s `submit` does).
        submit: bool,
        /// Accept confirm/prompt dialogs instead of dismissing them.
        accept_dialogs: bool,
    },
    /// `press_key_trusted`.
    PressKey {
        /// The chord.
        press: KeyPress,
        /// The element to focus first; otherwise the focused one.
        element_ref: Option<String>,
        /// Accept confirm/prompt dialogs instead of dismissing them.
        accept_dialogs: bool,
    },
    /// `click_xy`, at viewport CSS pixels.
    ClickAt {
        /// The point.
        x: f64,
        /// The point.
        y: f64,
        /// Accept confirm/prompt dialogs instead of dismissing them.
        accept_dialogs: bool,
    },
    /// `drag`.
    Drag {
        /// Where the button goes down.
        from: DragEnd,
        /// Where it comes up.
        to: DragEnd,
    },
    /// `screenshot`.
    Screenshot(Shot),
    /// `read_page_deep`, in about this many tokens.
    ReadDeep(Option<u32>),
    /// `run_javascript`.
    Evaluate {
        /// An async function body.
        code: String,
        /// Accept confirm/prompt dialogs instead of dismissing them.
        accept_dialogs: bool,
    },
}

impl DebuggerCall {
    /// Whether the call changes the page (and so runs under the dialog guard).
    fn writes(&self) -> bool {
        !matches!(self, DebuggerCall::Screenshot(_) | DebuggerCall::ReadDeep(_))
    }

    fn accept_dialogs(&self) -> bool {
        match self {
            DebuggerCall::Click { accept_dialogs, .. }
            | DebuggerCall::Type { accept_dialogs, .. }
            | DebuggerCall::PressKey { accept_dialogs, .. }
            | DebuggerCall::ClickAt { accept_dialogs, .. }
            | DebuggerCall::Evaluate { accept_dialogs, .. } => *accept_dialogs,
            DebuggerCall::Drag { .. } | DebuggerCall::Screenshot(_) | DebuggerCall::ReadDeep(_) => {
                false
            }
        }
    }
}

/// What a screenshot shows.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Shot {
    /// The viewport as the user sees it, with ref labels drawn on it when `labels`.
    Viewport {
        /// Draw each ref on its element.
        labels: bool,
    },
    /// One element (by ref), wherever it is on the page.
    Element(String),
    /// The whole page, down to [`shot::FULL_PAGE_MAX_PX`], with ref labels when `labels`.
    FullPage {
        /// Draw each ref on its element.
        labels: bool,
    },
}

/// One end of a drag: an element's centre or a viewport point.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum DragEnd {
    /// The centre of a ref's element.
    Ref(String),
    /// Viewport CSS pixels.
    Point(f64, f64),
}

/// An L2 tool's parameters, read by hand with serde's words for a bad one (missing, unknown or
/// of the wrong type): a derived decoder per tool cost the engine's wasm more than this reader.
struct Params(serde_json::Map<String, Value>);

impl Params {
    /// The parameters, refused if they hold a field not in `fields`.
    fn new(
        map: serde_json::Map<String, Value>,
        fields: &'static [&'static str],
    ) -> Result<Params, serde_json::Error> {
        match map.keys().find(|key| !fields.contains(&key.as_str())) {
            Some(key) => Err(serde::de::Error::unknown_field(key, fields)),
            None => Ok(Params(map)),
        }
    }

    /// A field that may be absent (or null).
    fn optional<T: serde::de::DeserializeOwned>(
        &mut self,
        name: &str,
    ) -> Result<Option<T>, serde_json::Error> {
        match self.0.remove(name) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => panelot_protocol::from_value(value).map(Some),
        }
    }

    /// A field that must be there.
    fn required<T: serde::de::DeserializeOwned>(
        &mut self,
        name: &'static str,
    ) -> Result<T, serde_json::Error> {
        match self.0.remove(name) {
            None => Err(serde::de::Error::missing_field(name)),
            Some(value) => panelot_protocol::from_value(value),
        }
    }

    /// A flag that is false when absent.
    fn flag(&mut self, name: &str) -> Result<bool, serde_json::Error> {
        match self.0.remove(name) {
            None => Ok(false),
            Some(value) => panelot_protocol::from_value(value),
        }
    }

    /// `acceptDialogs`.
    fn accept_dialogs(&mut self) -> Result<bool, serde_json::Error> {
        self.flag("acceptDialogs")
    }
}

/// One end of `drag`: a ref, or both coordinates, and nothing else.
fn parse_drag_end(params: &mut Params, name: &'static str) -> Result<DragEnd, String> {
    let invalid = |err: serde_json::Error| format!("invalid parameters: {err}");
    let map = match params.0.remove(name) {
        Some(Value::Object(map)) => map,
        None => return Err(invalid(serde::de::Error::missing_field(name))),
        Some(_) => {
            return Err(format!("invalid parameters: {name} is {{ref}} or {{x, y}}, an object"));
        }
    };
    let mut end = Params::new(map, &["ref", "x", "y"]).map_err(invalid)?;
    let element_ref: Option<String> = end.optional("ref").map_err(invalid)?;
    let x: Option<f64> = end.optional("x").map_err(invalid)?;
    let y: Option<f64> = end.optional("y").map_err(invalid)?;
    match (element_ref, x, y) {
        (Some(element_ref), None, None) => Ok(DragEnd::Ref(element_ref)),
        (None, Some(x), Some(y)) => Ok(DragEnd::Point(x, y)),
        _ => Err(format!("invalid parameters: {name} is {{ref}} or {{x, y}}, not a mix")),
    }
}

/// The call for an L2 tool's parameters (`tabId` is the gateway's and ignored here); the error
/// is for the model.
pub(crate) fn parse(tool: DebuggerTool, params: &Value) -> Result<DebuggerCall, String> {
    let mut rest = match params {
        Value::Object(map) => map.clone(),
        Value::Null => serde_json::Map::new(),
        other => return Err(format!("parameters must be an object, not {other}")),
    };
    rest.remove(TAB_ID_PARAM);
    let invalid = |err: serde_json::Error| format!("invalid parameters: {err}");
    let fields: &'static [&'static str] = match tool {
        DebuggerTool::ClickTrusted => &["ref", "acceptDialogs"],
        DebuggerTool::TypeTrusted => &["ref", "text", "mode", "submit", "acceptDialogs"],
        DebuggerTool::PressKeyTrusted => &["key", "ref", "acceptDialogs"],
        DebuggerTool::ClickXy => &["x", "y", "acceptDialogs"],
        DebuggerTool::Drag => &["from", "to"],
        DebuggerTool::Screenshot => &["ref", "fullPage", "labels"],
        DebuggerTool::RunJavascript => &["code", "acceptDialogs"],
        DebuggerTool::ReadPageDeep => &["maxTokens"],
    };
    let mut p = Params::new(rest, fields).map_err(invalid)?;
    let call = match tool {
        DebuggerTool::ClickTrusted => DebuggerCall::Click {
            element_ref: p.required("ref").map_err(invalid)?,
            accept_dialogs: p.accept_dialogs().map_err(invalid)?,
        },
        DebuggerTool::TypeTrusted => {
            let element_ref = p.required("ref").map_err(invalid)?;
            let text = p.required("text").map_err(invalid)?;
            let mode: Option<String> = p.optional("mode").map_err(invalid)?;
            let submit = p.flag("submit").map_err(invalid)?;
            let accept_dialogs = p.accept_dialogs().map_err(invalid)?;
            let append = match mode.as_deref() {
                None | Some("replace") => false,
                Some("append") => true,
                Some(other) => {
                    return Err(format!(
                        "invalid parameters: mode is `replace` or `append`, not `{other}`"
                    ));
                }
            };
            DebuggerCall::Type { element_ref, text, append, submit, accept_dialogs }
        }
        DebuggerTool::PressKeyTrusted => {
            let key: String = p.required("key").map_err(invalid)?;
            let element_ref = p.optional("ref").map_err(invalid)?;
            let accept_dialogs = p.accept_dialogs().map_err(invalid)?;
            let press =
                input::parse_chord(&key).map_err(|err| format!("invalid parameters: {err}"))?;
            DebuggerCall::PressKey { press, element_ref, accept_dialogs }
        }
        DebuggerTool::ClickXy => DebuggerCall::ClickAt {
            x: p.required("x").map_err(invalid)?,
            y: p.required("y").map_err(invalid)?,
            accept_dialogs: p.accept_dialogs().map_err(invalid)?,
        },
        DebuggerTool::Drag => {
            let from = parse_drag_end(&mut p, "from")?;
            DebuggerCall::Drag { from, to: parse_drag_end(&mut p, "to")? }
        }
        DebuggerTool::Screenshot => {
            let element_ref: Option<String> = p.optional("ref").map_err(invalid)?;
            let labels = p.flag("labels").map_err(invalid)?;
            let shot = match (element_ref, p.flag("fullPage").map_err(invalid)?) {
                (None, false) => Shot::Viewport { labels },
                (Some(_), _) if labels => {
                    return Err("invalid parameters: labels go on the viewport or the whole \
                                page, not on one element"
                        .to_owned());
                }
                (Some(element_ref), false) => Shot::Element(element_ref),
                (None, true) => Shot::FullPage { labels },
                (Some(_), true) => {
                    return Err("invalid parameters: give ref or fullPage, not both".to_owned());
                }
            };
            DebuggerCall::Screenshot(shot)
        }
        DebuggerTool::RunJavascript => {
            let code: String = p.required("code").map_err(invalid)?;
            let accept_dialogs = p.accept_dialogs().map_err(invalid)?;
            if code.trim().is_empty() {
                return Err("invalid parameters: code is empty".to_owned());
            }
            DebuggerCall::Evaluate { code, accept_dialogs }
        }
        DebuggerTool::ReadPageDeep => {
            DebuggerCall::ReadDeep(p.optional("maxTokens").map_err(invalid)?)
        }
    };
    Ok(call)
}

/// Why a CDP step failed, as the model and the card are told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CdpError {
    /// The `debugger` permission is not granted (a build without it in its manifest).
    PermissionMissing,
    /// The tab is gone (closed, or crashed under the call).
    TabClosed,
    /// The debugger is not (or no longer) attached to the tab.
    NotAttached,
    /// Another debugger (DevTools, another extension) holds the tab.
    AlreadyAttached,
    /// The page cannot be debugged (browser pages, the web store).
    NotDebuggable(String),
    /// A command failed.
    Command {
        /// CDP method.
        method: String,
        /// Chrome's message.
        message: String,
    },
}

impl CdpError {
    /// What a failed `chrome.debugger` call means for the L2 tools.
    fn from_browser(method: &str, err: &BrowserError) -> CdpError {
        match err {
            BrowserError::Unavailable { .. } => CdpError::PermissionMissing,
            BrowserError::NoTab(_) => CdpError::TabClosed,
            BrowserError::Refused(message) | BrowserError::Unexpected(message) => {
                CdpError::classify(method, message)
            }
            BrowserError::Aborted => {
                CdpError::Command { method: method.to_owned(), message: err.to_string() }
            }
        }
    }

    /// Classifies the message of a rejected `chrome.debugger` call.
    pub(crate) fn classify(method: &str, message: &str) -> CdpError {
        let lower = message.to_ascii_lowercase();
        if lower.contains("chrome.debugger") && lower.contains("not available") {
            CdpError::PermissionMissing
        } else if lower.contains("no tab with") || lower.contains("detached while handling") {
            CdpError::TabClosed
        } else if lower.contains("another debugger") {
            CdpError::AlreadyAttached
        } else if lower.contains("not attached") {
            CdpError::NotAttached
        } else if lower.contains("cannot access") || lower.contains("cannot attach") {
            CdpError::NotDebuggable(message.to_owned())
        } else {
            CdpError::Command { method: method.to_owned(), message: message.to_owned() }
        }
    }

    /// A short code for the card.
    pub(crate) fn code(&self) -> &'static str {
        match self {
            CdpError::PermissionMissing => "permission_missing",
            CdpError::TabClosed => "tab_closed",
            CdpError::NotAttached => "not_attached",
            CdpError::AlreadyAttached => "already_attached",
            CdpError::NotDebuggable(_) => "not_debuggable",
            CdpError::Command { .. } => "command_failed",
        }
    }

    /// What the model reads.
    pub(crate) fn message(&self, tab: u32) -> String {
        let said = match self {
            CdpError::PermissionMissing => format!(
                "this build of Panelot has no \"{DEBUGGER_PERMISSION}\" permission, so trusted \
                 input, screenshots and run_javascript are unavailable here; use click / type \
                 instead"
            ),
            CdpError::TabClosed => "the tab was closed or crashed".to_owned(),
            CdpError::NotAttached => {
                "the debugger was detached from the tab (the user may have cancelled it); try again"
                    .to_owned()
            }
            CdpError::AlreadyAttached => {
                "another debugger (DevTools or another extension) is attached to this tab; \
                 ask the user to close it, or use click / type instead"
                    .to_owned()
            }
            CdpError::NotDebuggable(message) => {
                format!("this page cannot be debugged ({message})")
            }
            CdpError::Command { method, message } => format!("{method} failed: {message}"),
        };
        format!("[tabId={tab}] {}: {said}", self.code())
    }

    fn outcome(&self, tab: u32) -> ToolOutcome {
        let mut details = json!({"tabId": tab, "shape": "debugger",
            "failure": {"code": self.code()}});
        if *self == CdpError::PermissionMissing {
            details["needsPermission"] = json!(DEBUGGER_PERMISSION);
        }
        ToolOutcome::failed(self.message(tab)).with_details(details)
    }
}

/// A dialog the page opened during a write, and how it was answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Dialog {
    /// `alert`, `confirm`, `prompt` or `beforeunload`.
    pub kind: String,
    /// Its message.
    pub message: String,
    /// Whether it was accepted (OK) or dismissed (Cancel).
    pub accepted: bool,
}

/// Whether a dialog of `kind` is accepted: an alert has only OK; the others are dismissed unless
/// the call asked to accept them.
pub(crate) fn accepts(kind: &str, accept_dialogs: bool) -> bool {
    kind == "alert" || accept_dialogs
}

/// The lines that tell the model which dialogs opened and what became of them.
pub(crate) fn dialog_note(dialogs: &[Dialog]) -> String {
    dialogs
        .iter()
        .map(|d| {
            let answer = if d.accepted { "accepted" } else { "dismissed" };
            format!("\n{} dialog {answer}: \"{}\"", d.kind, clip(&d.message, DIALOG_TEXT_BUDGET))
        })
        .collect()
}

/// At most `max` characters of `text`, saying how much was cut.
pub(crate) fn clip(text: &str, max: usize) -> String {
    let total = text.chars().count();
    if total <= max {
        return text.to_owned();
    }
    let kept: String = text.chars().take(max).collect();
    format!("{kept}… [truncated: {max} of {total} characters shown]")
}

/// The centre of an element's box, in viewport CSS pixels, if it is in the viewport and has an
/// area to click.
pub(crate) fn click_point(rect: &RectResult) -> Option<(f64, f64)> {
    if !rect.in_viewport || rect.width <= 0.0 || rect.height <= 0.0 {
        return None;
    }
    Some((rect.x + rect.width / 2.0, rect.y + rect.height / 2.0))
}

/// The expression `run_javascript` evaluates: the code as the body of an async function, so it
/// may `return` and `await`.
pub(crate) fn eval_expression(code: &str) -> String {
    format!("(async () => {{\n{code}\n}})()")
}

/// What the model reads of a `Runtime.evaluate` answer: the JSON value (clipped to the
/// budget), or the exception as an error.
pub(crate) fn evaluation_text(answer: &Value) -> Result<String, String> {
    if let Some(details) = answer.get("exceptionDetails") {
        let described = details
            .pointer("/exception/description")
            .and_then(Value::as_str)
            .or_else(|| details.pointer("/exception/value").and_then(Value::as_str))
            .or_else(|| details.get("text").and_then(Value::as_str))
            .unwrap_or("an exception");
        return Err(format!("the code threw: {}", clip(described, EVAL_RESULT_BUDGET)));
    }
    let result = answer.get("result").cloned().unwrap_or(Value::Null);
    let kind = result.get("type").and_then(Value::as_str).unwrap_or("undefined");
    let text = if let Some(special) = result.get("unserializableValue").and_then(Value::as_str) {
        special.to_owned()
    } else if kind == "undefined" {
        "undefined (nothing was returned)".to_owned()
    } else {
        match result.get("value") {
            Some(value) => value.to_string(),
            None => result
                .get("description")
                .and_then(Value::as_str)
                .map_or_else(|| format!("a {kind} that is not JSON"), str::to_owned),
        }
    };
    Ok(clip(&text, EVAL_RESULT_BUDGET))
}

/// Width and height of a PNG from the start of its base64 text (the IHDR chunk).
pub(crate) fn png_size(base64: &str) -> Option<(u32, u32)> {
    let head = decode_base64_prefix(base64.get(..32)?)?;
    if head.get(..8)? != b"\x89PNG\r\n\x1a\n" {
        return None;
    }
    let width = u32::from_be_bytes(head.get(16..20)?.try_into().ok()?);
    let height = u32::from_be_bytes(head.get(20..24)?.try_into().ok()?);
    Some((width, height))
}

/// Decodes base64 text whose length is a multiple of 4 and that has no padding.
fn decode_base64_prefix(text: &str) -> Option<Vec<u8>> {
    fn value(c: u8) -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    }
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(4) {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    for chunk in bytes.chunks(4) {
        let mut n = 0u32;
        for &c in chunk {
            n = (n << 6) | value(c)?;
        }
        out.extend_from_slice(&[(n >> 16) as u8, (n >> 8) as u8, n as u8]);
    }
    Some(out)
}

/// Takes the screenshot `shot` (`rect`: the element's box, for an element), with ref labels
/// drawn by the page's executor for the capture when asked.
async fn screenshot(
    page: &Page<'_>,
    shot: &Shot,
    rect: Option<&RectResult>,
    abort: &AbortSignal,
) -> ToolOutcome {
    let labels = matches!(shot, Shot::Viewport { labels: true } | Shot::FullPage { labels: true });
    if !labels {
        return capture(page.target.tab, shot, rect).await;
    }
    let show = |show| ExecutorCall::LabelRefs(LabelRefsParams { show });
    let drawn = super::page_call(page.target, show(true), page.ref_document.clone(), abort).await;
    let outcome = capture(page.target.tab, shot, rect).await;
    // Taken down whatever the capture did; a page that went away took them with it.
    let _ = super::page_call(page.target, show(false), page.ref_document.clone(), abort).await;
    match drawn {
        Ok(ExecutorResult::Labels(drawn)) => with_note(outcome, &shot::labels_note(&drawn)),
        Ok(_) => outcome,
        Err(failed) => with_note(
            outcome,
            &format!(
                "\nNo ref labels: the page's executor could not draw them ({}).",
                failed.text()
            ),
        ),
    }
}

/// `outcome` with `note` after what it says.
fn with_note(mut outcome: ToolOutcome, note: &str) -> ToolOutcome {
    match &mut outcome.status {
        ToolStatus::Done { content } => content.push_str(note),
        ToolStatus::Failed { message, .. } => message.push_str(note),
    }
    outcome
}

/// Captures `shot` as it is on screen now.
async fn capture(tab: u32, shot: &Shot, rect: Option<&RectResult>) -> ToolOutcome {
    let (params, what) = match shot {
        Shot::Viewport { .. } => (json!({"format": "png"}), "the viewport".to_owned()),
        Shot::Element(_) | Shot::FullPage { .. } => {
            let metrics = match send(tab, "Page.getLayoutMetrics", json!({})).await {
                Ok(metrics) => metrics,
                Err(err) => return err.outcome(tab),
            };
            let (clip, what) = match shot::shot_clip(shot, rect, &metrics) {
                Ok(found) => found,
                Err(message) => return format::failure(format!("[tabId={tab}] {message}")),
            };
            (json!({"format": "png", "clip": clip, "captureBeyondViewport": true}), what)
        }
    };
    match send(tab, "Page.captureScreenshot", params).await {
        Ok(answer) => match answer.get("data").and_then(Value::as_str) {
            Some(data) => screenshot_outcome(tab, data, &what),
            None => format::failure(format!("[tabId={tab}] the screenshot came back empty")),
        },
        Err(err) => err.outcome(tab),
    }
}

/// The result of a screenshot of `what`: its size and cost for the model, the image for the
/// model (the engine sends it as an image part) and for the card.
pub(crate) fn screenshot_outcome(tab: u32, data: &str, what: &str) -> ToolOutcome {
    let size = png_size(data);
    let bytes = data.len() / 4 * 3;
    let dims = size.map_or_else(|| "a".to_owned(), |(w, h)| format!("a {w}×{h} px"));
    let kept = data.len() <= SCREENSHOT_KEEP_MAX;
    let tokens = size.map(|(w, h)| shot::image_tokens(w, h));
    let shown = match (kept, tokens) {
        (true, Some(tokens)) => format!(
            "you get it as an image (about {tokens} input tokens at each call while it is \
             shown) and the user sees it on the card"
        ),
        (true, None) => "you get it as an image and the user sees it on the card".to_owned(),
        (false, _) => "too large to show: use read_page for the content".to_owned(),
    };
    let content = format!(
        "[tabId={tab}] took {dims} PNG screenshot of {what} ({} KB); {shown}.",
        bytes.div_ceil(1024)
    );
    let mut details = json!({"tabId": tab, "shape": "screenshot", "mimeType": "image/png",
        "bytes": bytes, "width": size.map(|s| s.0), "height": size.map(|s| s.1),
        "imageTokens": tokens});
    if kept {
        details["base64"] = json!(data);
    }
    ToolOutcome::done(content).with_details(details)
}

// ---------------------------------------------------------------------------------------------
// The browser side.

/// Runs one L2 call.
pub(crate) async fn run(
    call: &ToolInvocation,
    tool: DebuggerTool,
    abort: &AbortSignal,
) -> ToolOutcome {
    // The debugger's input is trusted, as the user's is: while it runs (and while a screenshot
    // is taken) the page's indicator is hidden and hears no takeover.
    super::indicator::show_for(call, super::indicator::Takeover::Ignored).await;
    let outcome = run_call(call, tool, abort).await;
    super::indicator::show_for(call, super::indicator::Takeover::Heard).await;
    outcome
}

async fn run_call(call: &ToolInvocation, tool: DebuggerTool, abort: &AbortSignal) -> ToolOutcome {
    let parsed = match parse(tool, &call.params) {
        Ok(parsed) => parsed,
        Err(message) => return format::failure(message),
    };
    if let Some(target) = &call.target
        && let Err(err) = tabs::ready(target.tab, abort).await
    {
        return format::failure(format!("[tabId={}] {err}", target.tab));
    }
    let target = match super::judged_tab(call).await {
        Ok(target) => target,
        Err(outcome) => return outcome,
    };
    let tab = target.tab;
    if !call.debugger {
        return format::failure(format!(
            "[tabId={tab}] the debugger is not used on this page in this turn (L2 is off, or the page is off limits)"
        ));
    }
    if !permission_granted() {
        return CdpError::PermissionMissing.outcome(tab);
    }
    let started = js_sys::Date::now();
    let before = if parsed.writes() { super::tab_ids().await } else { Vec::new() };
    // One debugger session per tab at a time (another thread's turn may be on the same tab):
    // held until the detach, so no call detaches another's session.
    let Some(lock) = TabLock::acquire(tab).await else {
        return format::failure(format!(
            "[tabId={tab}] timeout: another debugger call held this tab for {} s",
            CALL_DEADLINE_MS / 1_000
        ));
    };
    let outcome = match race(
        execute(target, call.ref_document.clone(), &parsed, abort),
        race(abort.aborted(), wait::sleep(CALL_DEADLINE_MS)),
    )
    .await
    {
        Either::Left(outcome) => outcome,
        Either::Right(Either::Left(())) => {
            format::failure(format!("[tabId={tab}] aborted: the call was stopped"))
        }
        Either::Right(Either::Right(())) => format::failure(format!(
            "[tabId={tab}] timeout: no answer in {} s; read_page to see the page's state",
            CALL_DEADLINE_MS / 1_000
        )),
    };
    // Whatever happened above, the debugger does not stay on the tab (a dropped call future
    // never reached its own detach).
    detach(tab).await;
    drop(lock);
    let outcome = format::with_elapsed(outcome, (js_sys::Date::now() - started).max(0.0) as u64);
    if !parsed.writes() {
        return outcome;
    }
    super::with_opened_tabs(tab, &before, outcome, abort).await
}

thread_local! {
    /// Tabs with a debugger call under way.
    static BUSY: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
    /// When the last debugger call on each tab let go of it (ms since the Unix epoch).
    static RELEASED: RefCell<Vec<(u32, f64)>> = const { RefCell::new(Vec::new()) };
}

/// How long after a debugger call trusted input in its tab may still be the call's own: the
/// page hears the events, and the worker the page's message about them, a little later.
const OWN_INPUT_GRACE_MS: f64 = 1_000.0;

/// Whether trusted input heard in `tab` now may be the agent's own (a debugger call holds the
/// tab, or let go of it less than [`OWN_INPUT_GRACE_MS`] ago): the page indicator's takeover
/// does not count it as the user's.
pub(crate) fn own_input_on(tab: u32) -> bool {
    let now = js_sys::Date::now();
    BUSY.with(|busy| busy.borrow().contains(&tab))
        || RELEASED.with(|released| {
            released.borrow().iter().any(|(held, at)| *held == tab && now - at < OWN_INPUT_GRACE_MS)
        })
}

/// A tab's debugger session, held from before the attach to after the detach.
struct TabLock(u32);

impl TabLock {
    /// Waits until no other call holds `tab`; `None` after a call's deadline and then some.
    async fn acquire(tab: u32) -> Option<TabLock> {
        let mut waited = 0;
        while BUSY.with(|busy| busy.borrow().contains(&tab)) {
            if waited > CALL_DEADLINE_MS + 2_000 {
                return None;
            }
            wait::sleep(50).await;
            waited += 50;
        }
        BUSY.with(|busy| busy.borrow_mut().push(tab));
        Some(TabLock(tab))
    }
}

impl Drop for TabLock {
    fn drop(&mut self) {
        BUSY.with(|busy| busy.borrow_mut().retain(|held| *held != self.0));
        let now = js_sys::Date::now();
        RELEASED.with(|released| {
            let mut released = released.borrow_mut();
            released.retain(|(held, at)| *held != self.0 && now - at < OWN_INPUT_GRACE_MS);
            released.push((self.0, now));
        });
    }
}

/// Whether `chrome.debugger` exists: the API is absent until the permission is granted.
fn permission_granted() -> bool {
    Reflect::get(&js_sys::global(), &"chrome".into())
        .and_then(|chrome| Reflect::get(&chrome, &DEBUGGER_PERMISSION.into()))
        .is_ok_and(|api| api.is_object())
}

async fn execute(
    target: &ResolvedTarget,
    ref_document: Option<String>,
    call: &DebuggerCall,
    abort: &AbortSignal,
) -> ToolOutcome {
    let tab = target.tab;
    let page = Page { target, ref_document };
    // The element's box comes from the executor before the debugger is attached.
    let mut point = None;
    let mut drag_ends = None;
    let mut shot_rect = None;
    // A deep ref is found over CDP once attached.
    let deep = match reach::deep_ref_of(call) {
        Ok(deep) => deep,
        Err(message) => return format::failure(format!("[tabId={tab}] {message}")),
    };
    match call {
        _ if deep.is_some() => {}
        DebuggerCall::Click { element_ref, .. } => {
            match click_target(&page, element_ref, abort).await {
                Ok(at) => point = Some(at),
                Err(outcome) => return outcome,
            }
        }
        DebuggerCall::Type { element_ref, .. }
        | DebuggerCall::PressKey { element_ref: Some(element_ref), .. } => {
            if let Err(outcome) = executor(&page, "focus", element_ref, abort).await {
                return outcome;
            }
        }
        DebuggerCall::Drag { from, to } => {
            let from = match drag_end(&page, from, abort).await {
                Ok(end) => end,
                Err(outcome) => return outcome,
            };
            match drag_end(&page, to, abort).await {
                Ok(to) => drag_ends = Some((from, to)),
                Err(outcome) => return outcome,
            }
        }
        DebuggerCall::PressKey { element_ref: None, .. }
        | DebuggerCall::ClickAt { .. }
        | DebuggerCall::Screenshot(Shot::Viewport { .. } | Shot::FullPage { .. })
        | DebuggerCall::ReadDeep(_)
        | DebuggerCall::Evaluate { .. } => {}
        DebuggerCall::Screenshot(Shot::Element(element_ref)) => {
            let mut rect = match rect_of(&page, element_ref, abort).await {
                Ok(rect) => rect,
                Err(outcome) => return outcome,
            };
            if let Some(frame) = frames::ref_frame(element_ref) {
                let (x, y) = match frame_boxes(tab, frame).await {
                    Ok(boxes) => frames::offset_in_tab(&boxes),
                    Err(outcome) => return outcome,
                };
                (rect.x, rect.y) = (rect.x + x, rect.y + y);
            }
            shot_rect = Some(rect);
        }
    }
    if let Err(err) = attach(tab).await {
        return err.outcome(tab);
    }
    if let DebuggerCall::ReadDeep(budget) = call {
        return reach::read_deep(&page, *budget).await;
    }
    if let Some(n) = deep {
        match reach::prepare(&page, call, n).await {
            Ok(at) => point = at.or(point),
            Err(outcome) => return outcome,
        }
    }
    let guard = if call.writes() {
        match DialogGuard::install(tab, call.accept_dialogs()).await {
            Ok(guard) => Some(guard),
            Err(err) => return err.outcome(tab),
        }
    } else {
        None
    };
    let result = match call {
        DebuggerCall::Click { .. } => {
            let (x, y) = point.unwrap_or_default();
            click(tab, x, y).await.map(|()| {
                format!(
                    "[tabId={tab}] clicked at ({}, {}) with a trusted mouse event",
                    x.round_ties_even() as i64,
                    y.round_ties_even() as i64
                )
            })
        }
        DebuggerCall::Type { text, append, submit, .. } => {
            type_text(tab, text, *append, *submit).await.map(|()| {
                let how = if *append { "appended" } else { "typed" };
                let then = if *submit { " and pressed Enter" } else { "" };
                let count = text.chars().count();
                format!("[tabId={tab}] {how} {count} characters with trusted input{then}")
            })
        }
        DebuggerCall::PressKey { press, .. } => press_key(tab, press)
            .await
            .map(|()| format!("[tabId={tab}] pressed {} with a trusted key event", press.label())),
        DebuggerCall::ClickAt { x, y, .. } => click_at(tab, (*x, *y)).await.map(|()| {
            format!(
                "[tabId={tab}] clicked at ({}, {}) with a trusted mouse event",
                input::round(*x),
                input::round(*y)
            )
        }),
        DebuggerCall::Drag { .. } => {
            // Resolved above for every drag.
            let Some((from, to)) = drag_ends else {
                return format::failure(format!("[tabId={tab}] the drag's ends were not found"));
            };
            drag(tab, from, to).await.map(|(from, to)| {
                format!(
                    "[tabId={tab}] dragged from ({}, {}) to ({}, {}) with trusted mouse events",
                    input::round(from.0),
                    input::round(from.1),
                    input::round(to.0),
                    input::round(to.1)
                )
            })
        }
        DebuggerCall::Screenshot(shot) => {
            return screenshot(&page, shot, shot_rect.as_ref(), abort).await;
        }
        DebuggerCall::ReadDeep(budget) => return reach::read_deep(&page, *budget).await,
        DebuggerCall::Evaluate { code, .. } => evaluate(tab, code).await,
    };
    // The page's handlers run (and open their dialogs, and fetch) while the guard listens.
    let settled = match (&guard, &result) {
        (Some(guard), Ok(_)) => Some(guard.settle(js_sys::Date::now()).await),
        _ => None,
    };
    let dialogs = guard.map(DialogGuard::finish).unwrap_or_default();
    let note =
        dialog_note(&dialogs) + &settled.as_ref().map(settle::Settled::note).unwrap_or_default();
    let dialog_details: Vec<Value> = dialogs
        .iter()
        .map(|d| json!({"kind": d.kind, "message": d.message, "accepted": d.accepted}))
        .collect();
    let mut details = json!({"tabId": tab, "shape": "debugger", "dialogs": dialog_details});
    if let Some(settle::Settled::Idle { requests, .. } | settle::Settled::Busy { requests, .. }) =
        &settled
    {
        details["requests"] = json!(requests);
        details["settled"] = json!(matches!(settled, Some(settle::Settled::Idle { .. })));
    }
    match result {
        Ok(text) => ToolOutcome::done(format!("{text}{note}\nCall read_page to see the result."))
            .with_details(details),
        Err(EvalOrCdp::Cdp(err)) => {
            ToolOutcome::failed(format!("{}{note}", err.message(tab))).with_details(details)
        }
        Err(EvalOrCdp::Threw(message) | EvalOrCdp::Outside(message)) => {
            ToolOutcome::failed(format!("[tabId={tab}] {message}{note}")).with_details(details)
        }
    }
}

/// A failed write step: the debugger failed, the page's code threw, or a point the model gave
/// is outside the viewport.
enum EvalOrCdp {
    Cdp(CdpError),
    Threw(String),
    Outside(String),
}

impl From<CdpError> for EvalOrCdp {
    fn from(err: CdpError) -> Self {
        EvalOrCdp::Cdp(err)
    }
}

/// The page a debugger call acts on: its judged target, and the document its refs came from.
struct Page<'a> {
    target: &'a ResolvedTarget,
    ref_document: Option<String>,
}

/// Where to click: the centre of the element, scrolled into view by focusing it if needed; in
/// the tab's viewport for an element in a frame.
async fn click_target(
    page: &Page<'_>,
    element_ref: &str,
    abort: &AbortSignal,
) -> Result<(f64, f64), ToolOutcome> {
    let tab = page.target.tab;
    let not_visible = || {
        format::failure(format!(
            "[tabId={tab}] not_visible: {element_ref} is outside the viewport or has no size; \
             scroll it into view first"
        ))
    };
    let rect = rect_of(page, element_ref, abort).await?;
    let point = match click_point(&rect) {
        Some(point) => point,
        None => {
            // Focusing scrolls a focusable element into view; other elements need a scroll first.
            let _ = executor(page, "focus", element_ref, abort).await;
            click_point(&rect_of(page, element_ref, abort).await?).ok_or_else(not_visible)?
        }
    };
    let Some(frame) = frames::ref_frame(element_ref) else { return Ok(point) };
    // The executor's box is in the frame's viewport; trusted input lands in the tab's.
    let boxes = frame_boxes(tab, frame).await?;
    frames::point_in_tab(&boxes, point).ok_or_else(not_visible)
}

/// Where frame `frame` is shown in the tab (see [`frames::point_in_tab`]).
async fn frame_boxes(tab: u32, frame: u32) -> Result<Vec<frames::FrameBox>, ToolOutcome> {
    super::page::frame_boxes(tab, frame)
        .await
        .map_err(|message| format::failure(format!("[tabId={tab}] {message}")))
}

async fn rect_of(
    page: &Page<'_>,
    element_ref: &str,
    abort: &AbortSignal,
) -> Result<RectResult, ToolOutcome> {
    let tab = page.target.tab;
    match executor(page, "get_rect", element_ref, abort).await? {
        ExecutorResult::Rect(rect) => Ok(rect),
        _ => Err(format::failure(format!("[tabId={tab}] the executor did not return a box"))),
    }
}

/// One executor op on a ref (`get_rect`, `focus`), through the gateway's L1 path.
async fn executor(
    page: &Page<'_>,
    op: &str,
    element_ref: &str,
    abort: &AbortSignal,
) -> Result<ExecutorResult, ToolOutcome> {
    let call = catalog::executor_call(op, &json!({"ref": element_ref})).map_err(format::failure)?;
    super::page_call(page.target, call, page.ref_document.clone(), abort).await
}

async fn click(tab: u32, x: f64, y: f64) -> Result<(), EvalOrCdp> {
    let mouse = |kind: &str, buttons: u32| {
        json!({"type": kind, "x": x, "y": y, "button": if kind == "mouseMoved" { "none" } else { "left" },
            "buttons": buttons, "clickCount": if kind == "mouseMoved" { 0 } else { 1 }})
    };
    send(tab, "Input.dispatchMouseEvent", mouse("mouseMoved", 0)).await?;
    send(tab, "Input.dispatchMouseEvent", mouse("mousePressed", 1)).await?;
    send(tab, "Input.dispatchMouseEvent", mouse("mouseReleased", 0)).await?;
    Ok(())
}

/// A drag end resolved before the attach: a ref's centre (in the viewport by construction), or the
/// model's point, checked against the viewport once attached.
#[derive(Debug, Clone, Copy)]
enum ResolvedEnd {
    Element(f64, f64),
    Point(f64, f64),
}

async fn drag_end(
    page: &Page<'_>,
    end: &DragEnd,
    abort: &AbortSignal,
) -> Result<ResolvedEnd, ToolOutcome> {
    match end {
        DragEnd::Ref(element_ref) => {
            let (x, y) = click_target(page, element_ref, abort).await?;
            Ok(ResolvedEnd::Element(x, y))
        }
        DragEnd::Point(x, y) => Ok(ResolvedEnd::Point(*x, *y)),
    }
}

/// The point if it is in the tab's viewport (`Page.getLayoutMetrics`).
async fn checked(tab: u32, end: ResolvedEnd) -> Result<(f64, f64), EvalOrCdp> {
    let point = match end {
        ResolvedEnd::Element(x, y) => return Ok((x, y)),
        ResolvedEnd::Point(x, y) => (x, y),
    };
    let metrics = send(tab, "Page.getLayoutMetrics", json!({})).await?;
    let Some(viewport) = input::viewport_size(&metrics) else {
        return Err(EvalOrCdp::Outside("the viewport's size is unknown".to_owned()));
    };
    input::in_viewport(point, viewport).map_err(EvalOrCdp::Outside)
}

async fn click_at(tab: u32, point: (f64, f64)) -> Result<(), EvalOrCdp> {
    let (x, y) = checked(tab, ResolvedEnd::Point(point.0, point.1)).await?;
    click(tab, x, y).await
}

async fn drag(
    tab: u32,
    from: ResolvedEnd,
    to: ResolvedEnd,
) -> Result<((f64, f64), (f64, f64)), EvalOrCdp> {
    let from = checked(tab, from).await?;
    let to = checked(tab, to).await?;
    let mouse = |kind: &str, (x, y): (f64, f64), button: &str, buttons: u32| {
        json!({"type": kind, "x": x, "y": y, "button": button, "buttons": buttons,
            "clickCount": if kind == "mouseMoved" { 0 } else { 1 }})
    };
    send(tab, "Input.dispatchMouseEvent", mouse("mouseMoved", from, "none", 0)).await?;
    send(tab, "Input.dispatchMouseEvent", mouse("mousePressed", from, "left", 1)).await?;
    // Moves with the button held, in steps: pages that follow `pointermove` need more than a
    // jump to the end.
    for step in input::drag_path(from, to, DRAG_STEPS) {
        send(tab, "Input.dispatchMouseEvent", mouse("mouseMoved", step, "left", 1)).await?;
    }
    send(tab, "Input.dispatchMouseEvent", mouse("mouseReleased", to, "left", 0)).await?;
    Ok((from, to))
}

/// The chord's key down, its character if it types one, and its key up. The modifier keys are
/// not pressed on their own: pages read them from each event's flags, which `modifiers` sets.
async fn press_key(tab: u32, press: &KeyPress) -> Result<(), EvalOrCdp> {
    for event in press.events() {
        send(tab, "Input.dispatchKeyEvent", event).await?;
    }
    Ok(())
}

async fn type_text(tab: u32, text: &str, append: bool, submit: bool) -> Result<(), EvalOrCdp> {
    if !append {
        // Select what the field holds so the text replaces it (the editing command, not a
        // platform shortcut, so it is the same on every OS).
        for kind in ["rawKeyDown", "keyUp"] {
            let mut key = json!({"type": kind, "key": "a", "code": "KeyA",
                "windowsVirtualKeyCode": 65, "modifiers": 2});
            if kind == "rawKeyDown" {
                key["commands"] = json!(["selectAll"]);
            }
            send(tab, "Input.dispatchKeyEvent", key).await?;
        }
    }
    send(tab, "Input.insertText", json!({"text": text})).await?;
    if submit {
        let enter = input::parse_chord("Enter").map_err(|err| EvalOrCdp::Threw(err.to_string()))?;
        press_key(tab, &enter).await?;
    }
    Ok(())
}

async fn evaluate(tab: u32, code: &str) -> Result<String, EvalOrCdp> {
    let params = json!({"expression": eval_expression(code), "returnByValue": true,
        "awaitPromise": true, "userGesture": true, "timeout": CALL_DEADLINE_MS - 2_000});
    let answer = send(tab, "Runtime.evaluate", params).await?;
    evaluation_text(&answer)
        .map(|text| format!("[tabId={tab}] the code returned: {text}"))
        .map_err(EvalOrCdp::Threw)
}

fn target(tab: u32) -> JsValue {
    chrome::to_js(&json!({"tabId": tab}))
}

async fn attach(tab: u32) -> Result<(), CdpError> {
    match chrome::call("debugger", "attach", &[target(tab), PROTOCOL_VERSION.into()]).await {
        Ok(_) => Ok(()),
        Err(err) => Err(CdpError::from_browser("attach", &err)),
    }
}

/// Detaches if attached; a tab that closed or was never attached is fine.
async fn detach(tab: u32) {
    let _ = chrome::call("debugger", "detach", &[target(tab)]).await;
}

async fn send(tab: u32, method: &str, params: Value) -> Result<Value, CdpError> {
    let args = [target(tab), method.into(), chrome::to_js(&params)];
    match chrome::call("debugger", "sendCommand", &args).await {
        Ok(answer) => Ok(chrome::to_json(&answer)),
        Err(err) => Err(CdpError::from_browser(method, &err)),
    }
}

/// Answers the tab's JavaScript dialogs while installed, remembering each, and counts the
/// tab's requests so the write can wait for the page to settle ([`settle`]).
struct DialogGuard {
    listener: Closure<dyn FnMut(JsValue, JsValue, JsValue)>,
    dialogs: Rc<RefCell<Vec<Dialog>>>,
    network: Rc<RefCell<settle::Settle>>,
}

impl DialogGuard {
    async fn install(tab: u32, accept_dialogs: bool) -> Result<DialogGuard, CdpError> {
        send(tab, "Page.enable", json!({})).await?;
        // Without the network's events the write still works; it only waits less well.
        let _ = send(tab, "Network.enable", json!({})).await;
        let dialogs = Rc::new(RefCell::new(Vec::new()));
        let network = Rc::new(RefCell::new(settle::Settle::default()));
        let seen = dialogs.clone();
        let fetched = network.clone();
        let listener = Closure::<dyn FnMut(JsValue, JsValue, JsValue)>::new(
            move |source: JsValue, method: JsValue, params: JsValue| {
                let source = chrome::to_json(&source);
                let method = method.as_string().unwrap_or_default();
                if source.get("tabId").and_then(Value::as_u64) != Some(u64::from(tab)) {
                    return;
                }
                if method.starts_with("Network.") {
                    let params = chrome::to_json(&params);
                    fetched.borrow_mut().event(&method, &params, js_sys::Date::now());
                    return;
                }
                if method != "Page.javascriptDialogOpening" {
                    return;
                }
                let params = chrome::to_json(&params);
                let kind = params.get("type").and_then(Value::as_str).unwrap_or("alert");
                let message = params.get("message").and_then(Value::as_str).unwrap_or("");
                let accepted = accepts(kind, accept_dialogs);
                seen.borrow_mut().push(Dialog {
                    kind: kind.to_owned(),
                    message: message.to_owned(),
                    accepted,
                });
                wasm_bindgen_futures::spawn_local(async move {
                    let _ =
                        send(tab, "Page.handleJavaScriptDialog", json!({"accept": accepted})).await;
                });
            },
        );
        on_event("addListener", listener.as_ref().unchecked_ref());
        Ok(DialogGuard { listener, dialogs, network })
    }

    /// Waits for the page to settle after the input that ended at `since_ms`: the handlers'
    /// minimum, then until the network is idle or the cap.
    async fn settle(&self, since_ms: f64) -> settle::Settled {
        wait::sleep(AFTER_INPUT_MS).await;
        loop {
            if let Some(settled) = self.network.borrow().done(since_ms, js_sys::Date::now()) {
                return settled;
            }
            wait::sleep(SETTLE_POLL_MS).await;
        }
    }

    /// Stops listening and returns the dialogs seen.
    fn finish(self) -> Vec<Dialog> {
        self.dialogs.borrow().clone()
    }
}

impl Drop for DialogGuard {
    /// Also when the call is dropped (abort, deadline): Chrome must never call a freed closure.
    fn drop(&mut self) {
        on_event("removeListener", self.listener.as_ref().unchecked_ref());
    }
}

/// `chrome.debugger.onEvent.<method>(listener)`.
fn on_event(method: &str, listener: &Function) {
    let function = Reflect::get(&js_sys::global(), &"chrome".into())
        .and_then(|chrome| Reflect::get(&chrome, &DEBUGGER_PERMISSION.into()))
        .and_then(|api| Reflect::get(&api, &"onEvent".into()))
        .and_then(|event| Ok((Reflect::get(&event, &method.into())?, event)));
    if let Ok((function, event)) = function
        && let Ok(function) = function.dyn_into::<Function>()
    {
        let _ = function.call1(&event, listener);
    }
}

#[cfg(test)]
#[path = "debugger_tests.rs"]
mod tests;
