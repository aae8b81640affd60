//! L1: one call to the page executor of a tab. Ping it, inject it if it is not there yet
//! (idempotent), send a `panelot/content-v1` request with a deadline, and wait for the answer,
//! the deadline or the abort signal, whichever comes first; an aborted call is cancelled in the
//! page too. Around a write, the page's dialogs are answered by [`dialog_guard`].

mod dialog_guard;

use std::cell::Cell;

use js_sys::Function;
use js_sys::Reflect;

use panelot_core::engine::FailureCause;
use panelot_core::engine::ToolOutcome;
use panelot_core::env::AbortSignal;
use panelot_protocol::CONTENT_SCHEMA_HASH;
use panelot_protocol::RequestId;
use panelot_protocol::content::CONTENT_PROTOCOL;
use panelot_protocol::content::ContentOp;
use panelot_protocol::content::ContentOutcome;
use panelot_protocol::content::ContentRequest;
use panelot_protocol::content::ExecutorCall;
use panelot_protocol::content::ExecutorResult;
use panelot_protocol::content::ExpectedTarget;
use panelot_protocol::content::FindInPageParams;
use panelot_protocol::content::FindResult;
use panelot_protocol::content::HighlightParams;
use panelot_protocol::content::ReadPageParams;
use panelot_protocol::content::SNAPSHOT_DEFAULT_TOKENS;
use panelot_protocol::content::SnapshotResult;
use panelot_protocol::decode_content_response;
use serde_json::json;
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;

use super::chrome;
use super::error::BrowserError;
use super::format;
use super::frames;
use super::resolve;
use crate::wait;
use panelot_core::combinators::Either;
use panelot_core::combinators::race;

/// Deadline of a call: long enough for a slow page's settle after an action, short enough that a
/// hung page does not hold the turn.
const CALL_DEADLINE_MS: u64 = 15_000;
/// Deadline of a text `wait_for`, which may wait up to 30 s by itself.
const WAIT_DEADLINE_MS: u64 = 31_000;
/// How long past its deadline the gateway still waits for the executor's own `timeout` answer,
/// so a page that died is not waited for forever.
const DEADLINE_GRACE_MS: u64 = 2_000;
/// How long the dialog guard outlives a call's deadline when nobody removes it (the worker died
/// mid-call), so that it never stays on a page for good.
const GUARD_LEASE_SLACK_MS: u64 = 5_000;
/// How long an answered call waits for the guard's removal: a page busy again (its own timers)
/// must not hold the result.
const GUARD_REMOVE_WAIT_MS: u64 = 1_000;

#[wasm_bindgen(module = "/src/gateway/frames.js")]
extern "C" {
    /// The function run in every frame to learn its window path.
    #[wasm_bindgen(js_name = frameProbe)]
    fn frame_probe() -> JsValue;
    /// The function run in a window to learn where one of its frames is shown.
    #[wasm_bindgen(js_name = frameBox)]
    fn frame_box() -> JsValue;
}

thread_local! {
    /// Request ids are unique within this worker's life; the time prefix keeps them unique
    /// across restarts too.
    static NEXT_REQUEST: Cell<u64> = const { Cell::new(0) };
}

/// Runs `call` in `tab`, in the frame its refs name (the top document when they name none; see
/// [`frames`]). `ref_document` is the document id of the snapshot the call's refs came from;
/// `expected` the document and origin it was judged for (the executor refuses anywhere else).
/// A snapshot of the whole page gets the frames of other origins it marks read into it. On
/// success the result comes back for the caller to format.
pub(crate) async fn execute(
    tab: u32,
    call: ExecutorCall,
    ref_document: Option<String>,
    expected: Option<ExpectedTarget>,
    abort: &AbortSignal,
) -> Result<ExecutorResult, ToolOutcome> {
    let params = panelot_protocol::to_value(&call)
        .map_err(|err| format::failure(format!("[tabId={tab}] cannot send the call: {err}")))?;
    let frame = frames::call_frame(&params)
        .map_err(|message| format::failure(format!("[tabId={tab}] {message}")))?;
    let ref_document = match (ref_document, frame) {
        (Some(composed), 0) => frames::frame_document(&composed, 0).map(str::to_owned),
        (Some(composed), frame) => match frames::frame_document(&composed, frame) {
            Some(document) => Some(document.to_owned()),
            None => {
                return Err(format::failure(format!(
                    "[tabId={tab}] stale_ref: frame {frame} was not read in the latest snapshot of this tab: take a new read_page"
                )));
            }
        },
        (None, _) => None,
    };
    let reading = match &call {
        ExecutorCall::ReadPage(p) if p.scope_ref.is_none() => Some(Reading::WholePage),
        ExecutorCall::ReadPage(_) => Some(Reading::Scoped),
        _ => None,
    };
    let budget = match &call {
        ExecutorCall::ReadPage(p) => p.max_tokens.unwrap_or(SNAPSHOT_DEFAULT_TOKENS),
        _ => SNAPSHOT_DEFAULT_TOKENS,
    };
    let result = execute_in(tab, frame, call, ref_document, expected, abort).await?;
    match (result, reading) {
        (ExecutorResult::Snapshot(snapshot), Some(reading)) if frame == 0 => {
            read_frames(tab, snapshot, budget, reading, abort).await.map(ExecutorResult::Snapshot)
        }
        (other, _) => Ok(other),
    }
}

/// `found` (the top document's `find_in_page` matches) with those of each frame the page's
/// latest snapshot read into it (`composed` is that snapshot's document id), refs named as the
/// frame's. A frame that went away or may no longer be scripted adds nothing.
pub(crate) async fn find_with_frames(
    tab: u32,
    found: FindResult,
    params: &FindInPageParams,
    composed: &str,
    abort: &AbortSignal,
) -> FindResult {
    let mut more = Vec::new();
    for (frame, document) in frames::frames_read(composed) {
        let call = ExecutorCall::FindInPage(params.clone());
        let answer = execute_in(tab, frame, call, Some(document.to_owned()), None, abort).await;
        if let Ok(ExecutorResult::Find(result)) = answer {
            more.push(result);
        }
    }
    frames::merge_finds(found, more)
}

/// What a snapshot of the top document covers.
enum Reading {
    /// The whole page: frames without access are named as such.
    WholePage,
    /// A region (a folded one expanded, or an iframe's line): an iframe read alone whose site
    /// the extension may not script asks the user for it.
    Scoped,
}

/// Most frames of other origins one snapshot reads.
const MAX_FRAMES_READ: usize = 8;

/// `snapshot` with the frames of other origins it marks read into it, as far as the extension
/// may script them, level by level (a frame in a frame is marked in its parent's lines), one
/// after the other (reading them at once measured no faster, and cost code). Fails only for an iframe read alone whose site has no access,
/// with the cause that makes the engine ask the user for that site.
async fn read_frames(
    tab: u32,
    mut snapshot: SnapshotResult,
    budget: u32,
    reading: Reading,
    abort: &AbortSignal,
) -> Result<SnapshotResult, ToolOutcome> {
    let mut todo = frames::marked(&snapshot.text);
    if todo.is_empty() {
        return Ok(snapshot);
    }
    let by_path = frame_paths(tab).await;
    let found = |path: &str| by_path.iter().find(|(p, _)| p == path).map(|(_, frame)| *frame);
    if let (Reading::Scoped, [alone]) = (&reading, &todo[..])
        && !alone.hint.is_empty()
        && snapshot.text.lines().filter(|line| !line.starts_with('#')).count() == 1
        && found(&alone.path).is_none()
        && !resolve::has_access(&alone.hint).await
    {
        let origin = alone.hint.clone();
        return Err(ToolOutcome::failed_because(
            format!(
                "[tabId={tab}] Panelot has no access to {origin}, the frame's site; the user was asked to allow it"
            ),
            FailureCause::NoHostAccess { origin },
        ));
    }
    // Frames share half the page's budget again: the snapshot's total stays within 1.5 times
    // what was asked.
    let share = (budget / (2 * todo.len().min(MAX_FRAMES_READ) as u32).max(1)).max(200);
    let mut read: Vec<(u32, String)> = Vec::new();
    let mut folded = false;
    while !todo.is_empty() {
        for marked in std::mem::take(&mut todo) {
            let outcome = match found(&marked.path) {
                Some(frame) if read.len() < MAX_FRAMES_READ => {
                    let call = ExecutorCall::ReadPage(ReadPageParams {
                        max_tokens: Some(share),
                        ..ReadPageParams::default()
                    });
                    match execute_in(tab, frame, call, None, None, abort).await {
                        Ok(ExecutorResult::Snapshot(inner)) => {
                            folded |= frames::has_fold_footer(&inner.text);
                            snapshot.ref_count += inner.ref_count;
                            snapshot.folded_regions += inner.folded_regions;
                            read.push((frame, inner.document_id));
                            match format::web_origin(&inner.url) {
                                Some(origin) => {
                                    frames::FrameRead::Read { origin, text: inner.text }
                                }
                                None => frames::FrameRead::Unreachable("not a web page".to_owned()),
                            }
                        }
                        Ok(_) | Err(_) => frames::FrameRead::Unreachable("not readable".to_owned()),
                    }
                }
                Some(_) => frames::FrameRead::Unreachable("not read: too many frames".to_owned()),
                None if !marked.hint.is_empty() && !resolve::has_access(&marked.hint).await => {
                    frames::FrameRead::NoAccess
                }
                None => frames::FrameRead::Unreachable("not reachable".to_owned()),
            };
            let stitched = frames::stitch(&snapshot.text, &marked.path, &outcome);
            if let frames::FrameRead::Read { .. } = outcome {
                let inside = format!("{}.", marked.path);
                todo.extend(
                    frames::marked(&stitched).into_iter().filter(|m| m.path.starts_with(&inside)),
                );
            }
            snapshot.text = stitched;
        }
    }
    if folded && !frames::has_fold_footer(&snapshot.text) {
        snapshot.text.push_str(FOLD_FOOTER);
    }
    snapshot.document_id = frames::compose_document(&snapshot.document_id, &read);
    Ok(snapshot)
}

/// The footer of a snapshot with folded lines (as the executor writes it).
const FOLD_FOOTER: &str =
    "# folded lines: expand with snapshot scopeRef=<ref>, or use find_in_page\n";

/// The tab's frames the extension may script, by window path (`frames.js`): Chrome skips the
/// frames of sites it has no access to.
async fn frame_paths(tab: u32) -> Vec<(String, u32)> {
    let Ok(func) = frame_probe().dyn_into::<Function>() else { return Vec::new() };
    let details = chrome::to_js(&json!({"target": {"tabId": tab, "allFrames": true}}));
    if Reflect::set(&details, &"func".into(), &func).is_err() {
        return Vec::new();
    }
    let Ok(raw) = chrome::call("scripting", "executeScript", &[details]).await else {
        return Vec::new();
    };
    let answers = chrome::to_json(&raw);
    answers
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|answer| {
            let frame = u32::try_from(answer["frameId"].as_u64()?).ok()?;
            let path = answer["result"].as_str()?;
            (frame != 0 && !path.is_empty()).then(|| (path.to_owned(), frame))
        })
        .collect()
}

/// Where frame `frame` of `tab` is shown: the box of each iframe from the top window down to
/// it (see [`frames::point_in_tab`]). Fails when a window on the way may not be scripted or
/// no longer holds the frame.
pub(crate) async fn frame_boxes(tab: u32, frame: u32) -> Result<Vec<frames::FrameBox>, String> {
    let paths = frame_paths(tab).await;
    let window = |wanted: u32| paths.iter().find(|(_, id)| *id == wanted).map(|(p, _)| p.as_str());
    let lost = || format!("frame {frame} is no longer on the page: take a new read_page");
    let steps = window(frame).and_then(frames::path_steps).ok_or_else(lost)?;
    let mut boxes = Vec::with_capacity(steps.len());
    for (parent, index) in steps {
        let holder = match parent.as_str() {
            "" => 0,
            path => paths.iter().find(|(p, _)| p == path).map(|(_, id)| *id).ok_or_else(lost)?,
        };
        boxes.push(box_in(tab, holder, index).await.ok_or_else(lost)?);
    }
    Ok(boxes)
}

/// The box of `frames[index]` of frame `holder`'s window (`frames.js`' `box`).
async fn box_in(tab: u32, holder: u32, index: u32) -> Option<frames::FrameBox> {
    let func = frame_box().dyn_into::<Function>().ok()?;
    let details =
        chrome::to_js(&json!({"target": {"tabId": tab, "frameIds": [holder]}, "args": [index]}));
    Reflect::set(&details, &"func".into(), &func).ok()?;
    let raw = chrome::call("scripting", "executeScript", &[details]).await.ok()?;
    frames::FrameBox::from_json(&chrome::to_json(&raw).get(0)?["result"])
}

/// Runs `call` in frame `frame` of `tab` (0: the top document) as it is; `ref_document` is that
/// frame's document. A frame's refs in the answer are named as the model sees them (`f5e12`).
pub(crate) async fn execute_in(
    tab: u32,
    frame: u32,
    call: ExecutorCall,
    ref_document: Option<String>,
    expected: Option<ExpectedTarget>,
    abort: &AbortSignal,
) -> Result<ExecutorResult, ToolOutcome> {
    if !answers_ping(tab, frame).await {
        inject(tab, frame).await?;
    }
    let budget_ms = match &call {
        ExecutorCall::WaitFor(params) => match params.time_ms {
            Some(ms) => (u64::from(ms) + 1_000).max(WAIT_DEADLINE_MS),
            None => WAIT_DEADLINE_MS,
        },
        _ => CALL_DEADLINE_MS,
    };
    let now = js_sys::Date::now() as u64;
    let request_id = next_request_id(now)?;
    let request = ContentRequest {
        protocol: CONTENT_PROTOCOL.to_owned(),
        schema_hash: CONTENT_SCHEMA_HASH.to_owned(),
        request_id: request_id.clone(),
        deadline_at_ms: now + budget_ms,
        ref_document_id: ref_document,
        expected,
        op: ContentOp::Execute { call },
    };
    let guarded = guards_dialogs(&request);
    if guarded {
        let lease_ms = budget_ms + DEADLINE_GRACE_MS + GUARD_LEASE_SLACK_MS;
        if let Err(err) = dialog_guard::install(tab, &request_id, lease_ms).await {
            return Err(format::dialog_guard_failure(tab, &err));
        }
    }
    let answer = race(
        send(tab, Some(frame), &request),
        race(abort.aborted(), wait::sleep(budget_ms + DEADLINE_GRACE_MS)),
    )
    .await;
    if guarded {
        let lease = request_id.clone();
        let removal = async move { dialog_guard::remove(tab, &lease).await };
        match answer {
            // The page answered, so it is free to run the removal now.
            Either::Left(Ok(_)) => {
                let _ = race(removal, wait::sleep(GUARD_REMOVE_WAIT_MS)).await;
            }
            // Gone, stopped or stuck: whenever the page can run it, or never (its lease ends).
            _ => wasm_bindgen_futures::spawn_local(removal),
        }
    }
    let raw = match answer {
        Either::Left(Ok(raw)) => raw,
        Either::Left(Err(err)) => {
            // The message channel closes when the document goes away mid-call (a click that
            // navigates); the action may or may not have happened.
            return Err(format::failure(format!(
                "[tabId={tab}] navigation_uncertain: the page went away before answering ({err}). Take a new read_page before doing it again."
            )));
        }
        Either::Right(Either::Left(())) => {
            cancel(tab, frame, &request_id);
            return Err(format::failure(format!("[tabId={tab}] aborted: the call was stopped")));
        }
        Either::Right(Either::Right(())) => {
            cancel(tab, frame, &request_id);
            return Err(format::failure(format!(
                "[tabId={tab}] timeout: the page did not answer in {} s. Try again, or read_page to see its state.",
                budget_ms / 1_000
            )));
        }
    };
    let mut raw = chrome::to_json(&raw);
    if frame != 0 {
        frames::prefix_result_refs(&mut raw["outcome"]["result"], frame);
    }
    let response = decode_content_response(raw).map_err(|err| {
        format::failure(format!("[tabId={tab}] the page executor answered badly: {err}"))
    })?;
    if response.request_id != request_id {
        return Err(format::failure(format!(
            "[tabId={tab}] the page executor answered another request"
        )));
    }
    match response.outcome {
        ContentOutcome::Ok { result } => Ok(result),
        ContentOutcome::Failed { failure } => Err(format::page_failure(tab, &failure)),
        ContentOutcome::Cancelled => {
            Err(format::failure(format!("[tabId={tab}] aborted: the call was cancelled")))
        }
        ContentOutcome::Pong { .. } => Err(format::failure(format!(
            "[tabId={tab}] the page executor answered a ping to a call"
        ))),
    }
}

/// Whether a request runs under the dialog guard: the calls that dispatch events to the page's
/// elements, whose handlers may open a dialog.
fn guards_dialogs(request: &ContentRequest) -> bool {
    let ContentOp::Execute { call } = &request.op else { return false };
    match call {
        ExecutorCall::Click(_)
        | ExecutorCall::Hover(_)
        | ExecutorCall::Type(_)
        | ExecutorCall::SelectOption(_)
        | ExecutorCall::PressKey(_)
        | ExecutorCall::UploadFile(_)
        | ExecutorCall::BatchActions(_)
        | ExecutorCall::Focus(_) => true,
        ExecutorCall::ReadPage(_)
        | ExecutorCall::Scroll(_)
        | ExecutorCall::WaitFor(_)
        | ExecutorCall::Extract(_)
        | ExecutorCall::FindInPage(_)
        | ExecutorCall::GetSelection(_)
        | ExecutorCall::GetRect(_)
        | ExecutorCall::ValidateRef(_)
        | ExecutorCall::DescribeTarget(_)
        | ExecutorCall::Highlight(_)
        | ExecutorCall::LabelRefs(_) => false,
    }
}

/// Whether the frame's document already runs an executor of this protocol. A ping is answered
/// outside the executor's queue and costs one message, much less than evaluating the bundle
/// again, which is what an injection does even when it then keeps the first instance.
async fn answers_ping(tab: u32, frame: u32) -> bool {
    let Some(request) = own_request(ContentOp::Ping) else { return false };
    // No executor: `sendMessage` rejects at once ("Receiving end does not exist").
    let Ok(raw) = send(tab, Some(frame), &request).await else { return false };
    matches!(
        decode_content_response(chrome::to_json(&raw)).map(|response| response.outcome),
        Ok(ContentOutcome::Pong { .. })
    )
}

/// Puts the executor into the frame's document; a second injection keeps the first instance.
async fn inject(tab: u32, frame: u32) -> Result<(), ToolOutcome> {
    let details = chrome::to_js(
        &json!({"target": {"tabId": tab, "frameIds": [frame]}, "files": ["executor.js"]}),
    );
    match chrome::call("scripting", "executeScript", &[details]).await {
        Ok(_) => Ok(()),
        Err(err) => Err(format::failure(format!(
            "[tabId={tab}] cannot act on this page: {err}. Browser pages (chrome://, the web store) and pages without permission are out of reach."
        ))),
    }
}

/// Sends `request` to one frame of `tab`, or with `None` to every frame that listens (the first
/// answer comes back).
async fn send(
    tab: u32,
    frame: Option<u32>,
    request: &ContentRequest,
) -> Result<JsValue, BrowserError> {
    let message = panelot_protocol::to_value(request)
        .map_err(|err| BrowserError::Unexpected(err.to_string()))?;
    let options = match frame {
        Some(frame) => json!({"frameId": frame}),
        None => json!({}),
    };
    chrome::call(
        "tabs",
        "sendMessage",
        &[JsValue::from(tab), chrome::to_js(&message), chrome::to_js(&options)],
    )
    .await
}

/// Takes down a highlight wherever in `tab` it is (it may be in a frame), without checks:
/// nobody waits for the answer.
pub(crate) fn clear_highlights(tab: u32) {
    let call = ExecutorCall::Highlight(HighlightParams { element_ref: None, label: None });
    let Some(request) = own_request(ContentOp::Execute { call }) else { return };
    wasm_bindgen_futures::spawn_local(async move {
        let _ = send(tab, None, &request).await;
    });
}

/// A request of the worker's own (a ping, a cancel, a highlight cleared): no refs, nothing
/// expected of the page, the default deadline. `None` when no request id can be made.
fn own_request(op: ContentOp) -> Option<ContentRequest> {
    let now = js_sys::Date::now() as u64;
    Some(ContentRequest {
        protocol: CONTENT_PROTOCOL.to_owned(),
        schema_hash: CONTENT_SCHEMA_HASH.to_owned(),
        request_id: next_request_id(now).ok()?,
        deadline_at_ms: now + CALL_DEADLINE_MS,
        ref_document_id: None,
        expected: None,
        op,
    })
}

/// Tells the executor to drop a request; nobody waits for the answer.
fn cancel(tab: u32, frame: u32, target: &RequestId) {
    let op = ContentOp::Cancel { target_request_id: target.clone() };
    let Some(request) = own_request(op) else { return };
    wasm_bindgen_futures::spawn_local(async move {
        let _ = send(tab, Some(frame), &request).await;
    });
}

fn next_request_id(now: u64) -> Result<RequestId, ToolOutcome> {
    let n = NEXT_REQUEST.with(|next| {
        let n = next.get();
        next.set(n + 1);
        n
    });
    RequestId::new(format!("gw-{now}-{n}"))
        .map_err(|err| format::failure(format!("cannot name the request: {err}")))
}
