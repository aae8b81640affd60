//! Going on with a call whose client was lost while its server waited on the user: the browser
//! stopped the worker (and this module with it) while an elicitation card was shown. The
//! server still holds the call in its session; when its stream gave event ids, the answer is
//! posted in that session and the stream is resumed after the question (`GET` with
//! `Last-Event-ID`) to read the call's result. A server without event ids cannot be resumed:
//! no [`ResumePoint`] is made, and the engine parks the call as uncertain instead.

use panelot_core::combinators::Either;
use panelot_core::combinators::race;
use panelot_core::env::AbortSignal;
use panelot_providers::Http;
use panelot_providers::Timer;
use serde::Deserialize;
use serde::Serialize;

use super::McpClient;
use super::Session;
use crate::error::McpError;
use crate::jsonrpc;
use crate::jsonrpc::RequestId;
use crate::model::CallToolResult;
use crate::model::ElicitResult;
use crate::model::Implementation;
use crate::model::InitializeResult;
use crate::validate;

/// Where a call stood when its server asked the user: enough to answer and read on in a new
/// module. Kept by the engine with the question's card (it names a session, so it never goes
/// to a page).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResumePoint {
    /// `Mcp-Session-Id` of the call's session, when the server gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The session's protocol version.
    pub version: String,
    /// Our id of the call (`tools/call`).
    pub call: RequestId,
    /// The server's id of its question (`elicitation/create`).
    pub question: RequestId,
    /// The id of the event that carried the question; the stream is resumed after it.
    pub event: String,
}

/// The largest resume point read back (a session id and two ids fit many times over).
const MAX_RESUME_POINT_BYTES: usize = 4 * 1024;

impl ResumePoint {
    /// Reads a resume point the engine kept, within its budget.
    pub fn parse(text: &str) -> Result<ResumePoint, McpError> {
        if text.len() > MAX_RESUME_POINT_BYTES {
            return Err(McpError::Protocol("the call's resume point is too large".to_owned()));
        }
        serde_json::from_str(text).map_err(|err| {
            McpError::Protocol(format!("the call's resume point is unreadable: {err}"))
        })
    }

    /// As the engine keeps it.
    pub fn to_text(&self) -> String {
        // Strings and ids only: encoding cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}

impl<H: Http, T: Timer> McpClient<H, T> {
    /// Answers the question at `point` with `answer` and reads the call's result from the
    /// resumed stream, with the client's timeout; an abort or a timeout tells the server to
    /// stop the call.
    pub async fn resume_call(
        &self,
        point: &ResumePoint,
        answer: ElicitResult,
        abort: &AbortSignal,
    ) -> Result<CallToolResult, McpError> {
        let session = Session {
            id: point.session.clone(),
            version: point.version.clone(),
            // Only this call uses the session; what the server said at `initialize` is not
            // needed to read on, and the client's own session stays as it is.
            info: InitializeResult {
                protocol_version: point.version.clone(),
                capabilities: Default::default(),
                server_info: Implementation {
                    name: String::new(),
                    version: String::new(),
                    title: None,
                },
                instructions: None,
            },
        };
        let answered = jsonrpc::response(&point.question, super::exchange::encode(answer));
        let going_on = async {
            self.post_only(&session, &answered, abort).await?;
            let body = self.resume(Some(&session), &point.event, abort).await?;
            let result = self.read_stream(Some(&session), Some(&point.call), body, abort).await?;
            result.ok_or_else(|| super::exchange::unanswered("ended"))
        };
        let (outcome, reason) = match race(race(going_on, abort.aborted()), self.deadline()).await {
            Either::Left(Either::Left(Err(McpError::Aborted)))
            | Either::Left(Either::Right(())) => (Err(McpError::Aborted), "cancelled by the user"),
            Either::Left(Either::Left(outcome)) => {
                return validate::call_result(outcome?, &self.config.budgets);
            }
            Either::Right(()) => {
                (Err(McpError::Timeout { ms: self.config.timeout_ms }), "timed out")
            }
        };
        self.cancel(&session, &point.call, reason).await;
        outcome
    }
}
