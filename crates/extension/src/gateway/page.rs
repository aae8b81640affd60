//! L1: one call to the page executor of a tab. Ping it, inject it if it is not there yet
//! (idempotent), send a `panelot/content-v1` request with a deadline, and wait for the answer,
//! the deadline or the abort signal, whichever comes first; an aborted call is cancelled in the
//! page too. Around a write, the page's dialogs are answered by [`dialog_guard`].

mod dialog_guard;

use std::cell::Cell;

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
use panelot_protocol::decode_content_response;
use serde_json::json;
use wasm_bindgen::JsValue;

use super::chrome;
use super::error::BrowserError;
use super::format;
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

thread_local! {
    /// Request ids are unique within this worker's life; the time prefix keeps them unique
    /// across restarts too.
    static NEXT_REQUEST: Cell<u64> = const { Cell::new(0) };
}

/// Runs `call` in `tab`'s top document. `ref_document` is the document the call's refs came
/// from; `expected` the document and origin it was judged for (the executor refuses anywhere
/// else). On success the result comes back for the caller to format.
pub(crate) async fn execute(
    tab: u32,
    call: ExecutorCall,
    ref_document: Option<String>,
    expected: Option<ExpectedTarget>,
    abort: &AbortSignal,
) -> Result<ExecutorResult, ToolOutcome> {
    if !answers_ping(tab).await {
        inject(tab).await?;
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
        send(tab, &request),
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
            cancel(tab, &request_id);
            return Err(format::failure(format!("[tabId={tab}] aborted: the call was stopped")));
        }
        Either::Right(Either::Right(())) => {
            cancel(tab, &request_id);
            return Err(format::failure(format!(
                "[tabId={tab}] timeout: the page did not answer in {} s. Try again, or read_page to see its state.",
                budget_ms / 1_000
            )));
        }
    };
    let response = decode_content_response(chrome::to_json(&raw)).map_err(|err| {
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
        | ExecutorCall::Highlight(_) => false,
    }
}

/// Whether the tab's top document already runs an executor of this protocol. A ping is answered
/// outside the executor's queue and costs one message, much less than evaluating the bundle
/// again, which is what an injection does even when it then keeps the first instance.
async fn answers_ping(tab: u32) -> bool {
    let now = js_sys::Date::now() as u64;
    let Ok(request_id) = next_request_id(now) else { return false };
    let request = ContentRequest {
        protocol: CONTENT_PROTOCOL.to_owned(),
        schema_hash: CONTENT_SCHEMA_HASH.to_owned(),
        request_id,
        deadline_at_ms: now + CALL_DEADLINE_MS,
        ref_document_id: None,
        expected: None,
        op: ContentOp::Ping,
    };
    // No executor: `sendMessage` rejects at once ("Receiving end does not exist").
    let Ok(raw) = send(tab, &request).await else { return false };
    matches!(
        decode_content_response(chrome::to_json(&raw)).map(|response| response.outcome),
        Ok(ContentOutcome::Pong { .. })
    )
}

/// Puts the executor into the tab's top document; a second injection keeps the first instance.
async fn inject(tab: u32) -> Result<(), ToolOutcome> {
    let details = chrome::to_js(&json!({"target": {"tabId": tab}, "files": ["executor.js"]}));
    match chrome::call("scripting", "executeScript", &[details]).await {
        Ok(_) => Ok(()),
        Err(err) => Err(format::failure(format!(
            "[tabId={tab}] cannot act on this page: {err}. Browser pages (chrome://, the web store) and pages without permission are out of reach."
        ))),
    }
}

async fn send(tab: u32, request: &ContentRequest) -> Result<JsValue, BrowserError> {
    let message = panelot_protocol::to_value(request)
        .map_err(|err| BrowserError::Unexpected(err.to_string()))?;
    chrome::call(
        "tabs",
        "sendMessage",
        &[JsValue::from(tab), chrome::to_js(&message), chrome::to_js(&json!({"frameId": 0}))],
    )
    .await
}

/// Tells the executor to drop a request; nobody waits for the answer.
fn cancel(tab: u32, target: &RequestId) {
    let now = js_sys::Date::now() as u64;
    let Ok(request_id) = next_request_id(now) else { return };
    let request = ContentRequest {
        protocol: CONTENT_PROTOCOL.to_owned(),
        schema_hash: CONTENT_SCHEMA_HASH.to_owned(),
        request_id,
        deadline_at_ms: now + CALL_DEADLINE_MS,
        ref_document_id: None,
        expected: None,
        op: ContentOp::Cancel { target_request_id: target.clone() },
    };
    wasm_bindgen_futures::spawn_local(async move {
        let _ = send(tab, &request).await;
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
