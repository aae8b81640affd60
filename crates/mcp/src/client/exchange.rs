//! One request over Streamable HTTP ("Transports" in the MCP specification, 2025-06-18): POST
//! the message, then read the answer as one JSON body or as an SSE stream in which the server
//! may first send its own requests and notifications. A stream cut before the answer is resumed
//! with `GET` and `Last-Event-ID` when the server gave its events ids.

use panelot_core::env::AbortSignal;
use panelot_providers::HeaderValue;
use panelot_providers::Http;
use panelot_providers::HttpBody;
use panelot_providers::HttpError;
use panelot_providers::HttpRequest;
use panelot_providers::HttpResponse;
use panelot_providers::Method;
use panelot_providers::Timer;
use panelot_providers::Wait;
use panelot_providers::sse::SseParser;
use serde_json::Value;
use serde_json::json;

use super::McpClient;
use super::Session;
use super::resume::ResumePoint;
use crate::challenge::parse_bearer_challenge;
use crate::error::Budget;
use crate::error::McpError;
use crate::jsonrpc;
use crate::jsonrpc::Incoming;
use crate::jsonrpc::JsonRpcError;
use crate::jsonrpc::RequestId;
use crate::model::ElicitRequest;
use crate::model::ElicitResult;
use crate::model::ServerNotification;
use crate::validate::cut;

/// How many times one answer's stream may be resumed before the request fails.
const MAX_RESUMES: u32 = 3;
/// The longest pause before resuming, whatever `retry:` the server asked for.
const MAX_RESUME_WAIT_MS: u64 = 5_000;
/// Bytes of an error body kept for the message.
const EXCERPT_BYTES: usize = 300;
/// Bytes of a JSON-RPC error message kept.
const MAX_ERROR_MESSAGE_BYTES: usize = 1_000;

/// The answer to one request.
#[derive(Debug)]
pub(super) struct Reply {
    pub(super) result: Value,
    /// `Mcp-Session-Id` of the HTTP response (read for `initialize`).
    pub(super) session_id: Option<String>,
}

impl<H: Http, T: Timer> McpClient<H, T> {
    /// POSTs request `body` (whose id is `id`) and reads its answer.
    pub(super) async fn exchange(
        &self,
        session: Option<&Session>,
        id: &RequestId,
        body: &Value,
        abort: &AbortSignal,
    ) -> Result<Reply, McpError> {
        let response = self.send(Method::Post, session, body, &[], abort).await?;
        let response = self.check_status(response, session).await?;
        let session_id = header(&response, "mcp-session-id").map(str::to_owned);
        let answer = match content_type(&response).as_str() {
            "application/json" => self.read_json(session, id, response.body, abort).await,
            "text/event-stream" => {
                // With an id to wait for, the stream only ends with the answer or an error.
                let answer = self.read_stream(session, Some(id), response.body, abort).await;
                answer.and_then(|answer| answer.ok_or_else(|| unanswered("ended")))
            }
            "" if response.status == 202 => Err(McpError::Protocol(
                "the server accepted a request without answering it (202)".to_owned(),
            )),
            other => Err(McpError::Protocol(format!("unexpected content type {other:?}"))),
        };
        answer.map(|result| Reply { result, session_id })
    }

    /// POSTs a notification or an answer to the server's request; the server acknowledges with
    /// 202 and no body.
    pub(super) async fn post_only(
        &self,
        session: &Session,
        body: &Value,
        abort: &AbortSignal,
    ) -> Result<(), McpError> {
        let response = self.send(Method::Post, Some(session), body, &[], abort).await?;
        self.check_status(response, Some(session)).await.map(drop)
    }

    async fn send(
        &self,
        method: Method,
        session: Option<&Session>,
        body: &Value,
        extra: &[(&str, &str)],
        abort: &AbortSignal,
    ) -> Result<HttpResponse, McpError> {
        let mut headers = self.base_headers(session);
        for (name, value) in extra {
            headers.retain(|(existing, _)| existing != name);
            headers.push(((*name).to_owned(), HeaderValue::Plain((*value).to_owned())));
        }
        let body = match method {
            Method::Get | Method::Delete => Vec::new(),
            Method::Post => serde_json::to_vec(body)
                .map_err(|err| McpError::Protocol(format!("cannot encode a request: {err}")))?,
        };
        if method == Method::Get {
            headers.retain(|(name, _)| name != "content-type");
        }
        let request = HttpRequest { method, url: self.config.url.clone(), headers, body };
        Ok(self.http.send(request, abort.clone()).await?)
    }

    /// Turns a non-2xx status into its error; a 404 in a session means it expired.
    async fn check_status(
        &self,
        mut response: HttpResponse,
        session: Option<&Session>,
    ) -> Result<HttpResponse, McpError> {
        let status = response.status;
        if (200..300).contains(&status) {
            return Ok(response);
        }
        let challenge = header(&response, "www-authenticate").and_then(parse_bearer_challenge);
        if status == 401 || (status == 403 && challenge.is_some()) {
            return Err(McpError::Unauthorized { status, challenge });
        }
        if status == 404 && session.is_some_and(|session| session.id.is_some()) {
            return Err(McpError::SessionExpired);
        }
        let bytes = read_capped(response.body.as_mut(), EXCERPT_BYTES).await.unwrap_or_default();
        let mut excerpt: String = String::from_utf8_lossy(&bytes)
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        cut(&mut excerpt, EXCERPT_BYTES);
        Err(McpError::Status { status, excerpt: excerpt.trim().to_owned() })
    }

    /// A JSON body: one message or (2025-03-26) a batch of them.
    async fn read_json(
        &self,
        session: Option<&Session>,
        id: &RequestId,
        mut body: Box<dyn HttpBody>,
        abort: &AbortSignal,
    ) -> Result<Value, McpError> {
        let limit = self.config.budgets.max_message_bytes;
        let bytes = read_capped(body.as_mut(), limit + 1).await?;
        if bytes.len() > limit {
            return Err(McpError::BudgetExceeded { budget: Budget::MessageBytes, limit });
        }
        let messages = match parse(&bytes)? {
            Value::Array(batch) => batch,
            single => vec![single],
        };
        for message in messages {
            let message = jsonrpc::classify(message).map_err(McpError::Protocol)?;
            if let Some(answer) = self.dispatch(session, Some(id), None, message, abort).await? {
                return answer;
            }
        }
        Err(McpError::Protocol("the JSON answer does not answer the request".to_owned()))
    }

    /// An SSE body: messages until the answer to `id`, resuming a cut stream where possible.
    /// Without an `id` (the standalone stream) a clean end is `Ok(None)`.
    pub(super) async fn read_stream(
        &self,
        session: Option<&Session>,
        id: Option<&RequestId>,
        mut body: Box<dyn HttpBody>,
        abort: &AbortSignal,
    ) -> Result<Option<Value>, McpError> {
        let limit = self.config.budgets.max_message_bytes;
        let mut parser = SseParser::with_max_event_bytes(limit);
        let mut last_event_id: Option<String> = None;
        let mut resumes = 0;
        loop {
            let (events, cut_off) = match body.next_chunk().await {
                Ok(Some(chunk)) => {
                    let events = parser.feed(&chunk).map_err(|_| McpError::BudgetExceeded {
                        budget: Budget::MessageBytes,
                        limit,
                    })?;
                    (events, None)
                }
                Ok(None) => (parser.finish().into_iter().collect(), Some("ended")),
                Err(HttpError::Network(_)) => (Vec::new(), Some("broke off")),
                Err(err) => return Err(err.into()),
            };
            for event in events {
                if event.id.is_some() {
                    last_event_id.clone_from(&event.id);
                }
                // Servers may prime a stream with an event that has an id and no data.
                if event.data.trim().is_empty() {
                    continue;
                }
                let message =
                    jsonrpc::classify(parse(event.data.as_bytes())?).map_err(McpError::Protocol)?;
                let at = event.id.as_deref();
                if let Some(answer) = self.dispatch(session, id, at, message, abort).await? {
                    return answer.map(Some);
                }
            }
            let Some(how) = cut_off else { continue };
            let Some(event_id) = last_event_id.as_deref() else {
                return match id {
                    Some(_) => Err(unanswered(how)),
                    None if how == "ended" => Ok(None),
                    None => Err(McpError::Protocol(format!("the event stream {how}"))),
                };
            };
            if resumes == MAX_RESUMES {
                return Err(McpError::Protocol(format!(
                    "the event stream {how} before the answer {MAX_RESUMES} times"
                )));
            }
            resumes += 1;
            let wait = parser.retry_ms().unwrap_or(0).min(MAX_RESUME_WAIT_MS);
            if wait > 0 {
                self.timer.sleep(Wait::Backoff { ms: wait }).await;
            }
            body = self.resume(session, event_id, abort).await?;
            parser = SseParser::with_max_event_bytes(limit);
        }
    }

    /// `GET` without `Last-Event-ID`: the standalone stream, or `None` when the server offers
    /// none (405).
    pub(super) async fn open_stream(
        &self,
        session: &Session,
        abort: &AbortSignal,
    ) -> Result<Option<Box<dyn HttpBody>>, McpError> {
        let extra = [("accept", "text/event-stream")];
        let response = self.send(Method::Get, Some(session), &Value::Null, &extra, abort).await?;
        if response.status == 405 {
            return Ok(None);
        }
        let response = self.check_status(response, Some(session)).await?;
        if content_type(&response) != "text/event-stream" {
            return Err(McpError::Protocol("the standalone stream is not an event stream".into()));
        }
        Ok(Some(response.body))
    }

    /// `GET` with `Last-Event-ID`: the server replays what followed that event.
    pub(super) async fn resume(
        &self,
        session: Option<&Session>,
        event_id: &str,
        abort: &AbortSignal,
    ) -> Result<Box<dyn HttpBody>, McpError> {
        let extra = [("accept", "text/event-stream"), ("last-event-id", event_id)];
        let response = self.send(Method::Get, session, &Value::Null, &extra, abort).await?;
        if response.status == 405 {
            return Err(McpError::Protocol(
                "the event stream was cut and the server does not allow resuming it".to_owned(),
            ));
        }
        let response = self.check_status(response, session).await?;
        if content_type(&response) != "text/event-stream" {
            return Err(McpError::Protocol("a resumed stream is not an event stream".to_owned()));
        }
        Ok(response.body)
    }

    /// Handles one message from the server; `Some` when it answers request `id`. `at` is the
    /// id of the event that carried it, when it had one: a question asked there can be
    /// answered and read on from there by a later module ([`super::resume`]).
    async fn dispatch(
        &self,
        session: Option<&Session>,
        id: Option<&RequestId>,
        at: Option<&str>,
        message: Incoming,
        abort: &AbortSignal,
    ) -> Result<Option<Result<Value, McpError>>, McpError> {
        match message {
            Incoming::Response { id: answered, result } if Some(&answered) == id => {
                Ok(Some(Ok(result)))
            }
            Incoming::Error { id: answered, error }
                if id.is_some_and(|id| answered.as_ref().is_none_or(|a| a == id)) =>
            {
                let mut message = error.message;
                cut(&mut message, MAX_ERROR_MESSAGE_BYTES);
                Ok(Some(Err(McpError::JsonRpc { code: error.code, message })))
            }
            // An answer to something else (a request we gave up on): nothing waits for it.
            Incoming::Response { .. } | Incoming::Error { .. } => Ok(None),
            Incoming::Notification { method, params } => {
                self.handler.notification(ServerNotification::parse(&method, params));
                Ok(None)
            }
            Incoming::Request { id: request_id, method, params } => {
                let resume = match (session, id, at) {
                    (Some(session), Some(call), Some(event)) => Some(ResumePoint {
                        session: session.id.clone(),
                        version: session.version.clone(),
                        call: call.clone(),
                        question: request_id.clone(),
                        event: event.to_owned(),
                    }),
                    _ => None,
                };
                let outcome = self.answer(&method, params, resume).await;
                // Before `initialize` is answered there is no session to answer in; the
                // specification allows only pings then, and a ping needs no answer to proceed.
                if let Some(session) = session {
                    let body = jsonrpc::response(&request_id, outcome);
                    self.post_only(session, &body, abort).await?;
                }
                Ok(None)
            }
        }
    }

    /// What we answer a server's request.
    async fn answer(
        &self,
        method: &str,
        params: Option<Value>,
        resume: Option<ResumePoint>,
    ) -> Result<Value, JsonRpcError> {
        let refuse =
            |code, message: &str| JsonRpcError { code, message: message.to_owned(), data: None };
        match method {
            "ping" => Ok(json!({})),
            "elicitation/create" => {
                let params = params.unwrap_or(Value::Null);
                // URL mode (2025-11-25) sends the user to a page of the server's choosing;
                // Panelot only offers forms.
                if params.get("mode").and_then(Value::as_str) == Some("url") {
                    return encode(ElicitResult::decline());
                }
                let request: ElicitRequest = serde_json::from_value(params).map_err(|_| {
                    refuse(
                        jsonrpc::INVALID_PARAMS,
                        "elicitation/create needs message and requestedSchema",
                    )
                })?;
                self.check_elicitation(&request)
                    .map_err(|message| refuse(jsonrpc::INVALID_PARAMS, message))?;
                let _waiting = Eliciting::start(&self.state);
                encode(self.handler.elicit(request, resume).await)
            }
            _ => Err(refuse(jsonrpc::METHOD_NOT_FOUND, "Panelot does not offer this method")),
        }
    }

    /// The form-mode rules: a flat object schema, within the schema budget.
    fn check_elicitation(&self, request: &ElicitRequest) -> Result<(), &'static str> {
        let schema = &request.requested_schema;
        let size = serde_json::to_vec(schema).map_or(usize::MAX, |bytes| bytes.len());
        if size > self.config.budgets.max_schema_bytes
            || request.message.len() > self.config.budgets.max_description_bytes
        {
            return Err("the elicitation is too large");
        }
        if schema.get("type").and_then(Value::as_str) != Some("object") {
            return Err("requestedSchema must be an object schema");
        }
        let flat = schema.get("properties").and_then(Value::as_object).is_some_and(|properties| {
            properties.values().all(|property| {
                matches!(
                    property.get("type").and_then(Value::as_str),
                    Some("string" | "number" | "integer" | "boolean")
                )
            })
        });
        if flat { Ok(()) } else { Err("requestedSchema properties must be primitive") }
    }
}

/// Counts an elicitation as waiting for the user until dropped (also when the call is dropped
/// midway by an abort).
struct Eliciting<'s>(&'s std::cell::RefCell<super::State>);

impl<'s> Eliciting<'s> {
    fn start(state: &'s std::cell::RefCell<super::State>) -> Self {
        state.borrow_mut().eliciting += 1;
        Eliciting(state)
    }
}

impl Drop for Eliciting<'_> {
    fn drop(&mut self) {
        let mut state = self.0.borrow_mut();
        state.eliciting = state.eliciting.saturating_sub(1);
    }
}

pub(super) fn encode(result: ElicitResult) -> Result<Value, JsonRpcError> {
    serde_json::to_value(result).map_err(|err| JsonRpcError {
        code: -32603,
        message: format!("cannot encode the answer: {err}"),
        data: None,
    })
}

pub(super) fn unanswered(how: &str) -> McpError {
    McpError::Protocol(format!(
        "the event stream {how} before the answer (and cannot be resumed: no event ids)"
    ))
}

fn parse(bytes: &[u8]) -> Result<Value, McpError> {
    serde_json::from_slice(bytes)
        .map_err(|err| McpError::Protocol(format!("a message is not JSON: {err}")))
}

/// The first value of header `name` (lowercase).
fn header<'r>(response: &'r HttpResponse, name: &str) -> Option<&'r str> {
    response.headers.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
}

/// The media type without parameters, lowercased.
fn content_type(response: &HttpResponse) -> String {
    header(response, "content-type")
        .and_then(|value| value.split(';').next())
        .map(|value| value.trim().to_ascii_lowercase())
        .unwrap_or_default()
}

/// Reads the body up to `limit` bytes (the rest is left unread and dropped with the body).
pub(crate) async fn read_capped(
    body: &mut dyn HttpBody,
    limit: usize,
) -> Result<Vec<u8>, McpError> {
    let mut bytes = Vec::new();
    while bytes.len() < limit {
        match body.next_chunk().await? {
            Some(chunk) => bytes.extend_from_slice(&chunk),
            None => break,
        }
    }
    bytes.truncate(limit);
    Ok(bytes)
}
