//! The client of one MCP server: the session (initialize, version, `Mcp-Session-Id`, renewal
//! after a 404), the operations the engine needs, timeouts and cancellation. How one request
//! travels (POST, JSON or SSE answer, resumption) is in [`exchange`].

mod exchange;
mod resume;

pub(crate) use exchange::read_capped;
pub use resume::ResumePoint;

use std::cell::RefCell;
use std::rc::Rc;

use panelot_core::combinators::Either;
use panelot_core::combinators::race;
use panelot_core::env::AbortSignal;
use panelot_core::model::LocalFuture;
use panelot_providers::HeaderValue;
use panelot_providers::Http;
use panelot_providers::HttpRequest;
use panelot_providers::Method;
use panelot_providers::Timer;
use panelot_providers::Wait;
use serde::Deserialize;
use serde_json::Map;
use serde_json::Value;
use serde_json::json;

use crate::error::Budget;
use crate::error::McpError;
use crate::jsonrpc;
use crate::jsonrpc::RequestId;
use crate::model::CallToolResult;
use crate::model::ElicitRequest;
use crate::model::ElicitResult;
use crate::model::GetPromptResult;
use crate::model::Implementation;
use crate::model::InitializeResult;
use crate::model::LATEST_PROTOCOL_VERSION;
use crate::model::Prompt;
use crate::model::Resource;
use crate::model::ResourceContents;
use crate::model::SUPPORTED_PROTOCOL_VERSIONS;
use crate::model::ServerNotification;
use crate::names::ServerSlug;
use crate::validate;
use crate::validate::Budgets;
use crate::validate::ToolCatalog;

/// How long a `notifications/cancelled` or a `DELETE` may take; they are courtesies.
const COURTESY_TIMEOUT_MS: u64 = 5_000;

/// One server as the client needs it.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// The server's name inside tool names.
    pub server: ServerSlug,
    /// The MCP endpoint (`https://…/mcp`).
    pub url: String,
    /// Headers sent with every request (`Authorization` as a [`HeaderValue::Secret`]).
    pub headers: Vec<(String, HeaderValue)>,
    /// Who we are (`clientInfo`).
    pub client_info: Implementation,
    /// Limits on what the server may send.
    pub budgets: Budgets,
    /// How long one request may take before it is cancelled (60 s, the MCP SDKs' default).
    pub timeout_ms: u64,
}

impl ServerConfig {
    /// A configuration with the default budgets, timeout and client info.
    pub fn new(server: ServerSlug, url: impl Into<String>) -> ServerConfig {
        ServerConfig {
            server,
            url: url.into(),
            headers: Vec::new(),
            client_info: Implementation {
                name: "panelot".to_owned(),
                version: env!("CARGO_PKG_VERSION").to_owned(),
                title: Some("Panelot".to_owned()),
            },
            budgets: Budgets::default(),
            timeout_ms: 60_000,
        }
    }
}

/// What the host does with what a server sends on its own: notifications and elicitations.
pub trait ServerHandler {
    /// A notification arrived (while a request of ours was open, or on a later stream).
    fn notification(&self, notification: ServerNotification);

    /// The server asks the user (form mode). The host shows a card and answers; it may take
    /// long, and the request that caused it waits. `resume` says where the call stands when the
    /// server's stream can be resumed: a module started after this one was lost can still
    /// answer and read the result ([`McpClient::resume_call`]).
    fn elicit(
        &self,
        request: ElicitRequest,
        resume: Option<ResumePoint>,
    ) -> LocalFuture<'_, ElicitResult>;
}

/// The client of one server. Single-threaded like the engine; operations may overlap.
pub struct McpClient<H, T> {
    http: H,
    timer: T,
    config: ServerConfig,
    handler: Rc<dyn ServerHandler>,
    state: RefCell<State>,
}

#[derive(Debug, Default)]
struct State {
    session: Option<Rc<Session>>,
    next_id: i64,
    /// Elicitations waiting for the user; timeouts wait while there are any.
    eliciting: u32,
    /// An `initialize` is under way; others wait for it (see `McpClient::session`).
    initializing: bool,
    /// Operations waiting for it.
    waiting: Vec<std::task::Waker>,
    /// The `Authorization` header set by [`McpClient::set_authorization`], which replaces a
    /// configured one.
    authorization: Option<HeaderValue>,
}

/// Marks an `initialize` under way until dropped (finished, failed or abandoned), then wakes
/// the operations waiting for it.
struct Initializing<'s>(&'s RefCell<State>);

impl<'s> Initializing<'s> {
    fn start(state: &'s RefCell<State>) -> Self {
        state.borrow_mut().initializing = true;
        Initializing(state)
    }
}

impl Drop for Initializing<'_> {
    fn drop(&mut self) {
        let waiting = {
            let mut state = self.0.borrow_mut();
            state.initializing = false;
            std::mem::take(&mut state.waiting)
        };
        for waker in waiting {
            waker.wake();
        }
    }
}

/// Completes when no `initialize` is under way.
struct InitializeDone<'s> {
    state: &'s RefCell<State>,
}

impl std::future::Future for InitializeDone<'_> {
    type Output = ();

    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<()> {
        let mut state = self.state.borrow_mut();
        if !state.initializing {
            return std::task::Poll::Ready(());
        }
        if !state.waiting.iter().any(|waker| waker.will_wake(cx.waker())) {
            state.waiting.push(cx.waker().clone());
        }
        std::task::Poll::Pending
    }
}

/// A negotiated session.
#[derive(Debug)]
struct Session {
    /// `Mcp-Session-Id`, when the server assigned one.
    id: Option<String>,
    /// The negotiated version (sent as `MCP-Protocol-Version`).
    version: String,
    info: InitializeResult,
}

/// How [`McpClient::listen`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listened {
    /// The server offers no standalone stream (405); it can only notify during calls.
    NotOffered,
    /// The server closed the stream.
    Ended,
}

/// A page of a listing.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Page {
    #[serde(default)]
    next_cursor: Option<String>,
}

impl<H: Http, T: Timer> McpClient<H, T> {
    /// A client; nothing is sent until the first operation (or [`connect`](Self::connect)).
    pub fn new(http: H, timer: T, config: ServerConfig, handler: Rc<dyn ServerHandler>) -> Self {
        McpClient { http, timer, config, handler, state: RefCell::new(State::default()) }
    }

    /// The configuration.
    pub fn config(&self) -> &ServerConfig {
        &self.config
    }

    /// Initializes a session unless one is open, and returns what the server said about itself.
    pub async fn connect(&self, abort: &AbortSignal) -> Result<InitializeResult, McpError> {
        Ok(self.session(abort).await?.info.clone())
    }

    /// The server's answer to `initialize`, when a session is open.
    pub fn server_info(&self) -> Option<InitializeResult> {
        self.state.borrow().session.as_ref().map(|session| session.info.clone())
    }

    /// Sets (or, with `None`, clears) the `Authorization` header of every later request, in
    /// place of one in [`ServerConfig::headers`]; the session stays open.
    ///
    /// This is how OAuth tokens reach a long-lived client: the host puts in
    /// [`Credentials::authorization`](crate::oauth::Credentials::authorization), refreshes
    /// when the credentials are about to expire, and on an [`McpError::Unauthorized`] with
    /// status 401 refreshes once, sets the new header and retries the operation once; a second
    /// 401 means the user must authorize again.
    pub fn set_authorization(&self, authorization: Option<HeaderValue>) {
        self.state.borrow_mut().authorization = authorization;
    }

    /// The negotiated protocol version, when a session is open.
    pub fn protocol_version(&self) -> Option<String> {
        self.state.borrow().session.as_ref().map(|session| session.version.clone())
    }

    /// All tools across pages, checked and named (see [`ToolCatalog`]).
    pub async fn list_tools(&self, abort: &AbortSignal) -> Result<ToolCatalog, McpError> {
        let raw = self.list_all("tools/list", "tools", abort).await?;
        Ok(validate::tool_catalog(&self.config.server, raw, &self.config.budgets))
    }

    /// Calls `name` (the server's name, not the exposed one) with `arguments`.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        abort: &AbortSignal,
    ) -> Result<CallToolResult, McpError> {
        let params = json!({"name": name, "arguments": arguments});
        let result = self.request("tools/call", Some(params), abort).await?;
        validate::call_result(result, &self.config.budgets)
    }

    /// All prompts across pages; malformed entries are left out.
    pub async fn list_prompts(&self, abort: &AbortSignal) -> Result<Vec<Prompt>, McpError> {
        let raw = self.list_all("prompts/list", "prompts", abort).await?;
        Ok(raw.into_iter().filter_map(|entry| serde_json::from_value(entry).ok()).collect())
    }

    /// Fills prompt `name` with `arguments`.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        abort: &AbortSignal,
    ) -> Result<GetPromptResult, McpError> {
        let params = json!({"name": name, "arguments": arguments});
        let result = self.request("prompts/get", Some(params), abort).await?;
        validate::prompt_result(result, &self.config.budgets)
    }

    /// All resources across pages; malformed entries are left out.
    pub async fn list_resources(&self, abort: &AbortSignal) -> Result<Vec<Resource>, McpError> {
        let raw = self.list_all("resources/list", "resources", abort).await?;
        Ok(raw.into_iter().filter_map(|entry| serde_json::from_value(entry).ok()).collect())
    }

    /// Reads resource `uri`.
    pub async fn read_resource(
        &self,
        uri: &str,
        abort: &AbortSignal,
    ) -> Result<Vec<ResourceContents>, McpError> {
        let result = self.request("resources/read", Some(json!({"uri": uri})), abort).await?;
        validate::read_result(result, &self.config.budgets)
    }

    /// Listens on the server's standalone stream (`GET`), handing notifications and requests
    /// that arrive outside any call (a `tools/list_changed` after an admin edit) to the
    /// [`ServerHandler`], until the stream ends or `abort` fires. The host runs this in the
    /// background and opens it again with backoff after it ends; the spec lets a server close
    /// it at any time.
    pub async fn listen(&self, abort: &AbortSignal) -> Result<Listened, McpError> {
        let session = self.session(abort).await?;
        let listened = async {
            let Some(body) = self.open_stream(&session, abort).await? else {
                return Ok(Listened::NotOffered);
            };
            self.read_stream(Some(&session), None, body, abort).await.map(|_| Listened::Ended)
        };
        let outcome = match race(listened, abort.aborted()).await {
            Either::Left(outcome) => outcome,
            Either::Right(()) => Err(McpError::Aborted),
        };
        if outcome == Err(McpError::SessionExpired) {
            self.forget(&session);
        }
        outcome
    }

    /// Checks the server is alive.
    pub async fn ping(&self, abort: &AbortSignal) -> Result<(), McpError> {
        self.request("ping", None, abort).await.map(drop)
    }

    /// Ends the session: `DELETE` with its id (a server that does not allow it answers 405,
    /// which is fine). The next operation opens a new session.
    pub async fn close(&self) -> Result<(), McpError> {
        let Some(session) = self.state.borrow_mut().session.take() else { return Ok(()) };
        if session.id.is_none() {
            return Ok(());
        }
        let mut headers = self.base_headers(Some(&session));
        headers.retain(|(name, _)| name != "accept" && name != "content-type");
        let request = HttpRequest {
            method: Method::Delete,
            url: self.config.url.clone(),
            headers,
            body: Vec::new(),
        };
        let (_handle, signal) = AbortSignal::new();
        let send = self.http.send(request, signal);
        let timeout = self.timer.sleep(Wait::Budget { ms: COURTESY_TIMEOUT_MS });
        match race(send, timeout).await {
            Either::Left(Ok(response)) if response.status < 300 || response.status == 405 => Ok(()),
            Either::Left(Ok(response)) => {
                Err(McpError::Status { status: response.status, excerpt: String::new() })
            }
            Either::Left(Err(err)) => Err(err.into()),
            Either::Right(()) => Err(McpError::Timeout { ms: COURTESY_TIMEOUT_MS }),
        }
    }

    /// Follows cursors until the last page, within the page and entry budgets.
    async fn list_all(
        &self,
        method: &str,
        field: &str,
        abort: &AbortSignal,
    ) -> Result<Vec<Value>, McpError> {
        let budgets = &self.config.budgets;
        let mut entries = Vec::new();
        let mut cursor: Option<String> = None;
        let mut seen = std::collections::HashSet::new();
        for _ in 0..budgets.max_pages {
            let params = cursor.as_ref().map(|cursor| json!({"cursor": cursor}));
            let mut result = self.request(method, params, abort).await?;
            let page: Page = validate::shape(result.clone(), method)?;
            let Some(Value::Array(items)) = result.get_mut(field).map(Value::take) else {
                return Err(McpError::Protocol(format!("the {method} result has no {field} list")));
            };
            if entries.len() + items.len() > budgets.max_catalog_entries {
                return Err(McpError::BudgetExceeded {
                    budget: Budget::CatalogEntries,
                    limit: budgets.max_catalog_entries,
                });
            }
            entries.extend(items);
            match page.next_cursor {
                None => return Ok(entries),
                Some(next) => {
                    // A cursor handed out twice would loop until the page budget; say so now.
                    if !seen.insert(next.clone()) {
                        return Err(McpError::Protocol(format!("{method} repeats a cursor")));
                    }
                    cursor = Some(next);
                }
            }
        }
        Err(McpError::BudgetExceeded { budget: Budget::Pages, limit: budgets.max_pages })
    }

    /// Sends a request in the current session (opening one first), renewing the session once
    /// when the server says it expired.
    async fn request(
        &self,
        method: &str,
        params: Option<Value>,
        abort: &AbortSignal,
    ) -> Result<Value, McpError> {
        let session = self.session(abort).await?;
        match self.request_in(&session, method, params.clone(), abort).await {
            Err(McpError::SessionExpired) => {
                self.forget(&session);
                let renewed = self.session(abort).await?;
                let outcome = self.request_in(&renewed, method, params, abort).await;
                if outcome == Err(McpError::SessionExpired) {
                    self.forget(&renewed);
                }
                outcome
            }
            outcome => outcome,
        }
    }

    /// One request with its timeout; an abort or a timeout tells the server to stop.
    async fn request_in(
        &self,
        session: &Rc<Session>,
        method: &str,
        params: Option<Value>,
        abort: &AbortSignal,
    ) -> Result<Value, McpError> {
        let id = self.next_id();
        let body = jsonrpc::request(&id, method, params);
        let exchange = self.exchange(Some(session), &id, &body, abort);
        let timeout = self.deadline();
        let (outcome, reason) = match race(race(exchange, abort.aborted()), timeout).await {
            Either::Left(Either::Left(Err(McpError::Aborted)))
            | Either::Left(Either::Right(())) => (Err(McpError::Aborted), "cancelled by the user"),
            Either::Left(Either::Left(outcome)) => return outcome.map(|reply| reply.result),
            Either::Right(()) => {
                (Err(McpError::Timeout { ms: self.config.timeout_ms }), "timed out")
            }
        };
        self.cancel(session, &id, reason).await;
        outcome
    }

    /// Completes once `timeout_ms` passed with no elicitation waiting for the user at its end:
    /// the time a person takes to answer a form is not the server's. (Per client, not per
    /// request: an elicitation of one call also holds the timeouts of calls beside it.)
    async fn deadline(&self) {
        loop {
            self.timer.sleep(Wait::Budget { ms: self.config.timeout_ms }).await;
            if self.state.borrow().eliciting == 0 {
                return;
            }
        }
    }

    /// `notifications/cancelled` for request `id`, best effort: the server may have finished
    /// or never seen it, and the caller has moved on either way.
    async fn cancel(&self, session: &Session, id: &RequestId, reason: &str) {
        let params = json!({"requestId": id, "reason": reason});
        let body = jsonrpc::notification("notifications/cancelled", Some(params));
        let (_handle, signal) = AbortSignal::new();
        let send = self.post_only(session, &body, &signal);
        let timeout = self.timer.sleep(Wait::Budget { ms: COURTESY_TIMEOUT_MS });
        let _ = race(send, timeout).await;
    }

    /// The open session, or a new one.
    ///
    /// Single-flight: operations that start while `initialize` is under way wait for it (a
    /// call and [`listen`](Self::listen) at startup share one session). If it fails, each
    /// waiter tries once itself, so every caller gets an error of its own.
    async fn session(&self, abort: &AbortSignal) -> Result<Rc<Session>, McpError> {
        loop {
            {
                let state = self.state.borrow();
                if let Some(session) = &state.session {
                    return Ok(Rc::clone(session));
                }
                if !state.initializing {
                    break;
                }
            }
            let waiting = InitializeDone { state: &self.state };
            if let Either::Right(()) = race(waiting, abort.aborted()).await {
                return Err(McpError::Aborted);
            }
            if self.state.borrow().session.is_none() {
                break;
            }
        }
        let _initializing = Initializing::start(&self.state);
        let session = Rc::new(self.initialize(abort).await?);
        let mut state = self.state.borrow_mut();
        Ok(Rc::clone(state.session.get_or_insert(session)))
    }

    /// Drops `session` if it is still the current one.
    fn forget(&self, session: &Rc<Session>) {
        let mut state = self.state.borrow_mut();
        if state.session.as_ref().is_some_and(|current| Rc::ptr_eq(current, session)) {
            state.session = None;
        }
    }

    /// The lifecycle's first phase ("Lifecycle" in the MCP specification): `initialize`,
    /// version check, then `notifications/initialized`.
    async fn initialize(&self, abort: &AbortSignal) -> Result<Session, McpError> {
        let id = self.next_id();
        let params = json!({
            "protocolVersion": LATEST_PROTOCOL_VERSION,
            // Form-mode elicitation only; no roots, no sampling.
            "capabilities": {"elicitation": {}},
            "clientInfo": self.config.client_info,
        });
        let body = jsonrpc::request(&id, "initialize", Some(params));
        // The specification forbids cancelling `initialize`: a timeout just drops it.
        let exchange = self.exchange(None, &id, &body, abort);
        let timeout = self.timer.sleep(Wait::Budget { ms: self.config.timeout_ms });
        let reply = match race(race(exchange, abort.aborted()), timeout).await {
            Either::Left(Either::Left(reply)) => reply?,
            Either::Left(Either::Right(())) => return Err(McpError::Aborted),
            Either::Right(()) => return Err(McpError::Timeout { ms: self.config.timeout_ms }),
        };
        let info: InitializeResult = validate::shape(reply.result, "initialize")?;
        // The specification allows visible ASCII only; the length cap is ours.
        if let Some(session_id) = &reply.session_id
            && (!(1..=256).contains(&session_id.len())
                || !session_id.bytes().all(|b| (0x21..=0x7e).contains(&b)))
        {
            return Err(McpError::Protocol(
                "the Mcp-Session-Id is empty, too long or not visible ASCII".to_owned(),
            ));
        }
        let session =
            Session { id: reply.session_id, version: info.protocol_version.clone(), info };
        if !SUPPORTED_PROTOCOL_VERSIONS.contains(&session.version.as_str()) {
            let offered = session.version.clone();
            // Leave the server's session behind cleanly before refusing.
            self.state.borrow_mut().session = Some(Rc::new(session));
            let _ = self.close().await;
            return Err(McpError::UnsupportedVersion { offered });
        }
        let initialized = jsonrpc::notification("notifications/initialized", None);
        self.post_only(&session, &initialized, abort).await?;
        Ok(session)
    }

    fn next_id(&self) -> RequestId {
        let mut state = self.state.borrow_mut();
        state.next_id += 1;
        RequestId::Number(state.next_id)
    }

    /// Headers of every POST: content negotiation, session, version, the configured ones.
    fn base_headers(&self, session: Option<&Session>) -> Vec<(String, HeaderValue)> {
        let plain =
            |name: &str, value: &str| (name.to_owned(), HeaderValue::Plain(value.to_owned()));
        let mut headers = vec![
            plain("content-type", "application/json"),
            plain("accept", "application/json, text/event-stream"),
        ];
        if let Some(session) = session {
            if let Some(id) = &session.id {
                headers.push(plain("mcp-session-id", id));
            }
            headers.push(plain("mcp-protocol-version", &session.version));
        }
        headers.extend(self.config.headers.iter().cloned());
        if let Some(authorization) = &self.state.borrow().authorization {
            headers.retain(|(name, _)| !name.eq_ignore_ascii_case("authorization"));
            headers.push(("authorization".to_owned(), authorization.clone()));
        }
        headers
    }
}

impl<H, T> std::fmt::Debug for McpClient<H, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpClient")
            .field("server", &self.config.server)
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}
