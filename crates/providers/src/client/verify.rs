//! Verify a connection from the settings editor: list the endpoint's models, stream once, and do
//! one tool round trip (call, result, answer). The report is shown, never stored.
//!
//! The listing asks the endpoint even when the connection names its models, so the settings page
//! can offer what the server has. The calls use the model asked for, else the connection's first
//! model, else the first one listed.

use panelot_core::env::AbortSignal;
use panelot_core::model::ContentPart;
use panelot_core::model::GenParams;
use panelot_core::model::Message;
use panelot_core::model::ModelRequest;
use panelot_core::model::ProviderError;
use panelot_core::model::ToolSpec;
use panelot_protocol::engine::ConnectionCheck;
use panelot_protocol::engine::ConnectionCheckFailure;
use panelot_protocol::engine::ProviderErrorKind;
use panelot_protocol::engine::ProviderStopReason;
use serde_json::json;

use super::ProviderClient;
use crate::connection::Connection;
use crate::error::ErrorReason;
use crate::http::Http;
use crate::timer::Timer;

/// Output tokens per verification call: enough for a short answer after some reasoning.
const VERIFY_MAX_TOKENS: u32 = 512;

/// What verification found.
#[derive(Debug, Clone, PartialEq)]
pub struct VerifyReport {
    /// The endpoint answered over HTTP.
    pub reachable: bool,
    /// The key was accepted (a listing or a call succeeded).
    pub key_valid: bool,
    /// A streamed call completed.
    pub streaming: bool,
    /// The model called the echo tool and answered its result.
    pub tool_use: bool,
    /// The listed models, when listing worked.
    pub models: Option<Vec<String>>,
    /// The model the calls used.
    pub model: Option<String>,
    /// The first failure, when something failed.
    pub failure: Option<VerifyFailure>,
    /// The error behind the failure.
    pub error: Option<ProviderError>,
}

/// Why verification failed, for the editor's conclusion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerifyFailure {
    /// The key was rejected.
    InvalidKey,
    /// The endpoint could not be reached or did not answer in time.
    Unreachable,
    /// No model was given and none could be listed.
    NoModel,
    /// The endpoint answered, but not in the expected wire format.
    ProtocolMismatch,
    /// The model did not call the echo tool or did not answer its result.
    NoToolUse,
}

impl VerifyReport {
    /// The report as the settings page shows it.
    pub fn to_check(&self) -> ConnectionCheck {
        ConnectionCheck {
            reachable: self.reachable,
            key_valid: self.key_valid,
            streaming: self.streaming,
            tool_use: self.tool_use,
            models: self.models.clone(),
            model: self.model.clone(),
            failure: self.failure.map(|failure| match failure {
                VerifyFailure::InvalidKey => ConnectionCheckFailure::InvalidKey,
                VerifyFailure::Unreachable => ConnectionCheckFailure::Unreachable,
                VerifyFailure::NoModel => ConnectionCheckFailure::NoModel,
                VerifyFailure::ProtocolMismatch => ConnectionCheckFailure::ProtocolMismatch,
                VerifyFailure::NoToolUse => ConnectionCheckFailure::NoToolUse,
            }),
            diagnosis: self.error.as_ref().map(|err| match &err.details.upstream_message {
                Some(said) => format!("{} The server said: “{said}”", err.message),
                None => err.message.clone(),
            }),
        }
    }
}

impl<H: Http, T: Timer> ProviderClient<H, T> {
    /// Verifies `conn` (stored or not) with `model`, or the first listed model when `None`.
    pub async fn verify(
        &self,
        conn: &Connection,
        model: Option<&str>,
        abort: &AbortSignal,
    ) -> VerifyReport {
        let mut report = VerifyReport {
            reachable: false,
            key_valid: false,
            streaming: false,
            tool_use: false,
            models: None,
            model: None,
            failure: None,
            error: None,
        };
        let chosen = model.or(conn.model_ids.first().map(String::as_str));
        match self.list_endpoint_models(conn, abort).await {
            Ok(models) => {
                report.reachable = true;
                // The listing went out with the key (servers that list without one say nothing
                // against it either); a call refusing the key later takes this back.
                report.key_valid = true;
                report.models = Some(models);
            }
            // Some servers have no listing; a given model can still be tried.
            Err(err) if chosen.is_some() && !is_fatal(&err) => {
                report.reachable = err.details.status.is_some()
            }
            Err(err) => return report.failed(err),
        }
        let listed = report.models.as_ref().and_then(|models| models.first()).map(String::as_str);
        let Some(model) = chosen.or(listed).map(str::to_owned) else {
            report.failure = Some(VerifyFailure::NoModel);
            return report;
        };
        report.model = Some(model.clone());
        let mut ignore = |_| {};
        if let Err(err) = self.stream_call(conn, &plain_request(&model), &mut ignore, abort).await {
            return report.failed(err);
        }
        report.reachable = true;
        report.key_valid = true;
        report.streaming = true;
        match self.tool_round_trip(conn, &model, abort).await {
            Ok(true) => report.tool_use = true,
            Ok(false) => report.failure = Some(VerifyFailure::NoToolUse),
            Err(err) => return report.failed(err),
        }
        report
    }

    /// Asks for an echo call, answers it, and checks the model answers the result.
    async fn tool_round_trip(
        &self,
        conn: &Connection,
        model: &str,
        abort: &AbortSignal,
    ) -> Result<bool, ProviderError> {
        let mut request = tool_request(model);
        let mut ignore = |_| {};
        let first = self.stream_call(conn, &request, &mut ignore, abort).await?;
        let Some(call) = first.turn.tool_calls.first().filter(|call| call.name == "echo").cloned()
        else {
            return Ok(false);
        };
        if first.stop_reason != ProviderStopReason::ToolUse {
            return Ok(false);
        }
        request.messages.push(Message::Assistant(first.turn));
        request.messages.push(Message::ToolResult {
            call_id: call.id,
            content: vec![ContentPart::Text("ping".to_owned())],
            is_error: false,
        });
        self.stream_call(conn, &request, &mut ignore, abort).await?;
        Ok(true)
    }
}

impl VerifyReport {
    fn failed(mut self, err: ProviderError) -> VerifyReport {
        let reason = err.details.reason.as_deref();
        self.failure = Some(match err.kind {
            ProviderErrorKind::Auth => {
                self.key_valid = false;
                VerifyFailure::InvalidKey
            }
            ProviderErrorKind::Network
                if err.details.status.is_none()
                    && reason != Some(ErrorReason::IncompleteResponse.as_str()) =>
            {
                VerifyFailure::Unreachable
            }
            ProviderErrorKind::Network
            | ProviderErrorKind::RateLimit
            | ProviderErrorKind::Overloaded
            | ProviderErrorKind::ContextTooLong
            | ProviderErrorKind::ContentFilter
            | ProviderErrorKind::Protocol => VerifyFailure::ProtocolMismatch,
        });
        // An answer with a status means the endpoint was reached.
        self.reachable |= err.details.status.is_some();
        self.error = Some(err);
        self
    }
}

/// Failures that make a call with a given model pointless too.
fn is_fatal(err: &ProviderError) -> bool {
    err.kind == ProviderErrorKind::Auth
        || (err.kind == ProviderErrorKind::Network && err.details.status.is_none())
}

fn plain_request(model: &str) -> ModelRequest {
    ModelRequest {
        model: model.to_owned(),
        messages: vec![Message::User {
            content: vec![ContentPart::Text("Reply with the single word OK.".to_owned())],
        }],
        params: GenParams { max_tokens: Some(VERIFY_MAX_TOKENS), ..GenParams::default() },
        ..ModelRequest::default()
    }
}

fn tool_request(model: &str) -> ModelRequest {
    let echo = ToolSpec {
        name: "echo".to_owned(),
        description: "Returns its text argument unchanged.".to_owned(),
        parameters: json!({
            "type": "object",
            "properties": { "text": { "type": "string" } },
            "required": ["text"],
        }),
    };
    ModelRequest {
        tools: vec![echo],
        messages: vec![Message::User {
            content: vec![ContentPart::Text(
                "Call the echo tool with the text \"ping\", then reply with the result.".to_owned(),
            )],
        }],
        ..plain_request(model)
    }
}
