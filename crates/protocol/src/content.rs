//! The page-executor protocol `panelot/content-v1`: requests from the service worker to the
//! TypeScript executor injected into a tab, and its results.
//!
//! These types are exported to TypeScript (`web/executor/src/generated/protocol.ts`) with ts-rs;
//! the executor never declares them by hand.

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;
use ts_rs::TS;

use crate::ids::RequestId;

mod target;
mod tools;
mod typescript;

pub use target::*;
pub use tools::*;
pub use typescript::TYPESCRIPT_PATH;
pub use typescript::executor_typescript;

/// Protocol name of page-executor messages.
pub const CONTENT_PROTOCOL: &str = "panelot/content-v1";

/// A request to the page executor.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContentRequest {
    /// Must be [`CONTENT_PROTOCOL`].
    pub protocol: String,
    /// Must be the executor schema hash.
    pub schema_hash: String,
    /// Id of this request; the response echoes it.
    pub request_id: RequestId,
    /// Absolute deadline (ms since the Unix epoch); the executor gives up after it.
    #[ts(type = "number")]
    pub deadline_at_ms: u64,
    /// The document the call's refs were issued in (the `documentId` of the snapshot that showed
    /// them). A call with refs sent to another document fails with `stale_ref`: refs are only
    /// unique within a document. `None` skips the check.
    pub ref_document_id: Option<String>,
    /// The document and origin the call was judged for: checked before anything else (the
    /// ref-document check included); elsewhere the call fails with `target_changed`. `None`
    /// skips the check.
    pub expected: Option<ExpectedTarget>,
    /// What to do.
    pub op: ContentOp,
}

/// Operations of the page executor.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ContentOp {
    /// Run one tool call.
    Execute {
        /// The call.
        call: ExecutorCall,
    },
    /// Cancel a request that is queued or running.
    Cancel {
        /// The request to cancel.
        #[serde(rename = "targetRequestId")]
        target_request_id: RequestId,
    },
    /// Check that the executor is present and speaks this protocol.
    Ping,
}

/// A response of the page executor.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContentResponse {
    /// The protocol the executor speaks.
    pub protocol: String,
    /// The request answered.
    pub request_id: RequestId,
    /// What happened.
    pub outcome: ContentOutcome,
    /// Milliseconds from the start of the call in the page (after its wait in the queue) to its
    /// answer: the executor's own time, without messaging. `None` for a ping, a cancel, or a
    /// call refused before it started.
    pub handled_ms: Option<f64>,
}

crate::internally_tagged! {
    #[serde(tag = "status", rename_all = "snake_case", deny_unknown_fields)]
    /// Outcome of a request.
    #[derive(Serialize, JsonSchema, TS, Debug, Clone, PartialEq)]
    pub enum ContentOutcome {
        /// The call succeeded.
        Ok {
            /// Its result.
            result: ExecutorResult,
        },
        /// The call failed in a known way.
        Failed {
            /// The failure.
            failure: ActionFailure,
        },
        /// Answer to ping.
        Pong {
            /// Identity of the document the executor runs in.
            #[serde(rename = "documentId")]
            document_id: String,
        },
        /// The request was cancelled before it finished.
        Cancelled,
    }
}

/// Why an action failed.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ActionFailure {
    /// The failure class.
    pub code: ActionFailureCode,
    /// Explanation for the model.
    pub message: String,
    /// Phase that failed.
    pub phase: ActionPhase,
    /// Whether trying again may help.
    pub retryable: bool,
    /// Extra facts (the available options of a select, the occluding element).
    #[ts(type = "unknown")]
    pub details: Option<serde_json::Value>,
}

/// Classes of action failure.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum ActionFailureCode {
    /// The ref belongs to another document or generation, or its element is gone.
    StaleRef,
    /// The element left the document.
    Detached,
    /// The element is not visible.
    NotVisible,
    /// The element keeps moving.
    NotStable,
    /// The element is disabled.
    Disabled,
    /// The element does not take text.
    NotEditable,
    /// Another element covers it.
    Occluded,
    /// The target is ambiguous.
    AmbiguousTarget,
    /// The element is in a frame the executor cannot reach.
    UnsupportedFrame,
    /// The synthetic action had no effect.
    L1NotEffective,
    /// A navigation started and its outcome is unknown.
    NavigationUncertain,
    /// Dialog protection could not be installed or removed.
    SafetyBoundaryUnavailable,
    /// The deadline passed.
    Timeout,
    /// The request was cancelled.
    Aborted,
    /// The parameters are invalid for this page (no match, empty walk).
    InvalidTarget,
    /// The call was judged for another document or origin than the tab holds now (it navigated
    /// while the call waited for approval, or the tab moved between read and act). Not run;
    /// details `{documentId, origin, url}` name what is there now.
    TargetChanged,
    /// Something else failed.
    Unknown,
}

/// Phases of an action.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum ActionPhase {
    /// Finding the element.
    Resolve,
    /// Actionability checks.
    Precheck,
    /// Doing it.
    Execute,
    /// Waiting for the page to settle.
    Settle,
    /// Checking the effect.
    Verify,
    /// Recovering a stale ref.
    Recover,
}
