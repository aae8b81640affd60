//! The MCP module's state: one [`McpClient`](crate::McpClient) per enabled server, driven by
//! the bridge's [`Command`]s and reporting through [`Event`]s.
//!
//! * `configure` diffs the desired set against the servers it has: a removed, disabled or
//!   changed server is closed (its background work stopped, its calls cancelled, its session
//!   deleted); an enabled `startup` server connects at once, a `lazy` one on its first call or
//!   `connect`.
//! * Connecting is `initialize` then `tools/list`, single-flight per server, with the status
//!   going disconnected → connecting → ready (n tools) or error (a reason a user can act on).
//! * Each ready server listens on its standalone `GET` stream in the background, reopened with
//!   doubling backoff up to a cap and given up after a number of failures in a row; a
//!   `notifications/tools/list_changed` (on that stream or inside a call) lists the tools again,
//!   and a failed listing keeps the last good catalog, reporting the error in the status only.
//! * Calls are kept by `callId` so `cancel` can stop them (the client then sends
//!   `notifications/cancelled`); an elicitation waits for `elicitAnswer`.
//! * OAuth sign-in happens only on `connect`, which the engine sends when the user presses
//!   Sign in or Connect in the settings: discovery from the server's 401 challenge, a client
//!   registered when no client id is configured, PKCE in the host's [`Browser`], the code
//!   redeemed, the credentials sent to the engine as an [`Event::Credentials`]. A 403
//!   `insufficient_scope` remembers the scopes asked for, and the next `connect` asks for them
//!   too (step-up). Background work (startup connects, calls, listings) never opens a window:
//!   it ends in `needs_authorization` with a reason that says to sign in from the settings.
//!   The pending authorization lives only in memory while the window is open; a worker
//!   restart during sign-in loses it, and the user presses Sign in again.
//!
//! Single-threaded like the engine: futures are not `Send`, state is in `RefCell`s that are
//! never borrowed across an `.await` or while an event goes out. Background work goes to the
//! host's [`Spawn`] (`spawn_local` in the worker, a tokio `LocalSet` in tests).

mod oneshot;
mod prompts;
mod server;
mod wording;

pub use server::Browser;
pub use server::NoBrowser;

use std::cell::Cell;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::collections::HashMap;
use std::rc::Rc;

use panelot_core::combinators::Either;
use panelot_core::combinators::race;
use panelot_core::env::AbortHandle;
use panelot_core::env::AbortSignal;
use panelot_core::model::LocalFuture;
use panelot_protocol::engine::McpConnectMode;
use panelot_protocol::engine::McpStatus;
use panelot_providers::Http;
use panelot_providers::Timer;
use panelot_providers::Wait;
use serde_json::Map;
use serde_json::Value;

use crate::ResumePoint;
use crate::bridge::BridgeError;
use crate::bridge::CallReply;
use crate::bridge::Command;
use crate::bridge::ErrorKind;
use crate::bridge::Event;
use crate::bridge::False;
use crate::bridge::Reply;
use crate::bridge::ServerSpec;
use crate::bridge::ToolResult;
use crate::bridge::True;
use crate::bridge::decode_command;
use crate::error::McpError;
use crate::model::CallToolResult;
use crate::model::ElicitResult;
use crate::names::split_tool_name;
use crate::validate::Budgets;

use server::Interaction;
use server::Server;

/// Runs background work (listening, refreshing, closing) on the host's single-threaded
/// executor.
pub trait Spawn {
    /// Starts `task`; it runs to completion on its own.
    fn spawn(&self, task: LocalFuture<'static, ()>);
}

/// Limits and delays of the manager. The defaults suit the worker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ManagerOptions {
    /// What servers may send.
    pub budgets: Budgets,
    /// The first wait before the standalone stream is opened again.
    pub listen_backoff_min_ms: u64,
    /// The longest wait between two openings.
    pub listen_backoff_max_ms: u64,
    /// Failed openings in a row after which a server's stream is given up (until it connects
    /// again); a stream that stayed open for [`Self::listen_healthy_ms`] resets the count.
    pub listen_max_failures: u32,
    /// How long a stream must stay open to count as healthy.
    pub listen_healthy_ms: u64,
    /// How long a `tools/list_changed` waits before listing, so a burst lists once.
    pub refresh_delay_ms: u64,
}

impl Default for ManagerOptions {
    fn default() -> Self {
        ManagerOptions {
            budgets: Budgets::default(),
            listen_backoff_min_ms: 1_000,
            listen_backoff_max_ms: 60_000,
            listen_max_failures: 8,
            listen_healthy_ms: 30_000,
            refresh_delay_ms: 250,
        }
    }
}

/// The MCP module's state; cheap to clone (one shared state).
pub struct McpManager<H, T> {
    inner: Rc<Inner<H, T>>,
}

impl<H, T> Clone for McpManager<H, T> {
    fn clone(&self) -> Self {
        McpManager { inner: Rc::clone(&self.inner) }
    }
}

struct Inner<H, T> {
    http: Rc<H>,
    timer: Rc<T>,
    spawner: Box<dyn Spawn>,
    browser: Box<dyn Browser>,
    on_event: Box<dyn Fn(Event)>,
    options: ManagerOptions,
    /// The enabled servers by id.
    servers: RefCell<BTreeMap<String, Rc<Server<H, T>>>>,
    /// Calls under way: their server and the handle that cancels them.
    calls: RefCell<HashMap<String, (String, AbortHandle)>>,
    /// Elicitations waiting for the user, by request id.
    elicitations: RefCell<HashMap<String, oneshot::Sender<ElicitResult>>>,
    next_elicitation: Cell<u64>,
}

impl<H: Http + 'static, T: Timer + 'static> McpManager<H, T> {
    /// A manager with no servers; `on_event` receives every [`Event`]; `browser` runs OAuth
    /// sign-ins ([`NoBrowser`] where there is none).
    pub fn new(
        http: H,
        timer: T,
        spawner: Box<dyn Spawn>,
        browser: Box<dyn Browser>,
        on_event: Box<dyn Fn(Event)>,
        options: ManagerOptions,
    ) -> Self {
        McpManager {
            inner: Rc::new(Inner {
                http: Rc::new(http),
                timer: Rc::new(timer),
                spawner,
                browser,
                on_event,
                options,
                servers: RefCell::new(BTreeMap::new()),
                calls: RefCell::new(HashMap::new()),
                elicitations: RefCell::new(HashMap::new()),
                next_elicitation: Cell::new(0),
            }),
        }
    }

    /// Reads and runs one command, answering with the reply's JSON text. Never fails: a bad
    /// command gets a `badCommand` reply.
    pub async fn command_json(&self, json: &str) -> String {
        match decode_command(json) {
            Ok(command) => self.command(command).await.to_json(),
            Err(err) => Reply::Call(CallReply::Err { ok: False, error: err }).to_json(),
        }
    }

    /// Runs one command.
    pub async fn command(&self, command: Command) -> Reply {
        match command {
            Command::Configure { servers } => {
                self.configure(servers);
                Reply::Done {}
            }
            Command::Connect { server } => Reply::Status { status: self.connect(&server).await },
            Command::Call { call_id, name, arguments, timeout_ms } => {
                Reply::Call(self.call(&call_id, &name, arguments, timeout_ms).await)
            }
            Command::Cancel { call_id } => {
                self.cancel(&call_id);
                Reply::Done {}
            }
            Command::List { server } => self.list(server.as_deref()).await,
            Command::GetPrompt { server, name, arguments } => {
                self.get_prompt(&server, &name, arguments).await
            }
            Command::ReadResource { server, uri } => self.read_resource(&server, &uri).await,
            Command::ElicitAnswer { request_id, result } => {
                self.answer(&request_id, result);
                Reply::Done {}
            }
            Command::Resume { call_id, name, resume, result } => {
                Reply::Call(self.resume(&call_id, &name, &resume, result).await)
            }
        }
    }

    /// Takes the full desired set of servers (see the module docs).
    pub fn configure(&self, specs: Vec<ServerSpec>) {
        let inner = &self.inner;
        let mut wanted = BTreeMap::new();
        for spec in specs {
            wanted.insert(spec.id.clone(), spec);
        }
        // Close what left, was switched off or changed.
        let closing: Vec<Rc<Server<H, T>>> = {
            let servers = inner.servers.borrow();
            servers
                .iter()
                .filter(|(id, server)| {
                    wanted
                        .get(*id)
                        .is_none_or(|spec| !spec.enabled || !spec.same_connection(&server.spec))
                })
                .map(|(_, server)| Rc::clone(server))
                .collect()
        };
        for server in closing {
            inner.servers.borrow_mut().remove(&server.spec.id);
            self.close(&server);
        }
        for (id, spec) in wanted {
            if !spec.enabled {
                inner.emit(Event::Status { server: id, status: McpStatus::Disconnected });
                continue;
            }
            if let Some(kept) = inner.server(&id) {
                kept.replace_credentials(spec.credentials());
                continue;
            }
            let server = match Server::new(inner, spec) {
                Ok(server) => server,
                Err(reason) => {
                    inner.emit(Event::Status { server: id, status: McpStatus::Error { reason } });
                    continue;
                }
            };
            inner.servers.borrow_mut().insert(id.clone(), Rc::clone(&server));
            match server.spec.connect {
                McpConnectMode::Startup => {
                    let task_inner = Rc::clone(inner);
                    inner.spawner.spawn(Box::pin(async move {
                        server.connect(&task_inner, Interaction::Background).await;
                    }));
                }
                McpConnectMode::Lazy => {
                    inner.emit(Event::Status { server: id, status: McpStatus::Disconnected });
                }
            }
        }
    }

    /// Connects `server` now (or lists its tools again) and returns where it stands. This is
    /// the user's Sign in / Connect: an OAuth server that needs a (new or wider) sign-in gets
    /// one through the [`Browser`].
    pub async fn connect(&self, server: &str) -> McpStatus {
        let Some(found) = self.inner.server(server) else {
            return McpStatus::Error {
                reason: format!("no enabled MCP server is called {server}"),
            };
        };
        found.connect(&self.inner, Interaction::User).await
    }

    /// Calls the tool the model named `name`, connecting its server first if it has no catalog
    /// yet.
    pub async fn call(
        &self,
        call_id: &str,
        name: &str,
        arguments: Map<String, Value>,
        timeout_ms: Option<u64>,
    ) -> CallReply {
        let failed = |kind, message: String| CallReply::Err {
            ok: False,
            error: BridgeError::new(kind, message),
        };
        let inner = &self.inner;
        let Some((server_id, _)) = split_tool_name(name) else {
            return failed(ErrorKind::UnknownTool, format!("{name} is not an MCP tool name"));
        };
        let Some(server) = inner.server(server_id) else {
            let message = format!("no enabled MCP server is called {server_id}");
            return failed(ErrorKind::UnknownTool, message);
        };
        if server.catalog().is_none() {
            let status = server.connect(inner, Interaction::Background).await;
            if server.catalog().is_none() {
                let (kind, reason) = match status {
                    // Only the user can sign in, from the settings; a call never opens a window.
                    McpStatus::NeedsAuthorization { reason, .. } => {
                        (ErrorKind::Unauthorized, reason)
                    }
                    McpStatus::Error { reason } => (ErrorKind::NotConnected, reason),
                    _ => (ErrorKind::NotConnected, "the server is not connected".to_owned()),
                };
                return failed(kind, format!("{server_id}: {reason}"));
            }
        }
        let Some(tool) = server.catalog().and_then(|catalog| catalog.get(name).cloned()) else {
            let message = format!("{server_id} has no tool {name} (its tools may have changed)");
            return failed(ErrorKind::UnknownTool, message);
        };
        let (handle, signal) = AbortSignal::new();
        {
            let mut calls = inner.calls.borrow_mut();
            if calls.contains_key(call_id) {
                let message = format!("a call {call_id} is already under way");
                return failed(ErrorKind::DuplicateCall, message);
            }
            calls.insert(call_id.to_owned(), (server_id.to_owned(), handle.clone()));
        }
        let _registered = Registered { inner, call_id };
        let timed_out = Cell::new(false);
        // Without a timeout of its own the call has the client's (the spec's `timeoutMs`). With
        // one, it aborts the call rather than dropping it, so the client still tells the server
        // to stop (`notifications/cancelled`); like the client's, it does not count the time a
        // person takes to answer an elicitation of this server.
        let deadline = async {
            let Some(ms) = timeout_ms else { return std::future::pending::<()>().await };
            loop {
                inner.timer.sleep(Wait::Budget { ms }).await;
                if !inner.eliciting(server_id) {
                    break;
                }
            }
            timed_out.set(true);
            handle.abort();
            std::future::pending::<()>().await;
        };
        let calling = async {
            match server.client.call_tool(&tool.tool.name, arguments.clone(), &signal).await {
                // An expired or revoked token: one refresh, one retry.
                Err(McpError::Unauthorized { status: 401, .. }) if server.refresh(inner).await => {
                    server.client.call_tool(&tool.tool.name, arguments, &signal).await
                }
                outcome => outcome,
            }
        };
        let outcome = match race(calling, deadline).await {
            Either::Left(outcome) => outcome,
            Either::Right(()) => Err(McpError::Aborted),
        };
        match outcome {
            Ok(result) => succeeded(result),
            Err(McpError::Aborted) if timed_out.get() => {
                let seconds = timeout_ms.unwrap_or_default().div_ceil(1000);
                failed(ErrorKind::Timeout, format!("{server_id} did not answer within {seconds} s"))
            }
            Err(err) => {
                if let McpError::Unauthorized { challenge, .. } = &err {
                    // A 403 `insufficient_scope` is kept for the next sign-in (step-up).
                    server.remember_step_up(challenge.as_ref());
                    server.set_status(inner, wording::status_after(&err, &server.spec));
                }
                let message = match &err {
                    McpError::Aborted => "the call was cancelled".to_owned(),
                    other => format!("{server_id}: {}", wording::reason(other, &server.spec)),
                };
                failed(ErrorKind::of(&err), message)
            }
        }
    }

    /// Answers a question asked before this module started (see [`Command::Resume`]) and
    /// reads its call's result. Any failure is `uncertain`: the server may have acted on the
    /// answer before the stream failed, so the engine must not run the call again unasked.
    pub async fn resume(
        &self,
        call_id: &str,
        name: &str,
        resume: &str,
        answer: ElicitResult,
    ) -> CallReply {
        let uncertain = |message: String| CallReply::Err {
            ok: False,
            error: BridgeError::new(ErrorKind::Uncertain, message),
        };
        let inner = &self.inner;
        let server_id = split_tool_name(name).map_or(name, |(server, _)| server);
        let Some(server) = inner.server(server_id) else {
            return uncertain(format!("no enabled MCP server is called {server_id}"));
        };
        let point = match ResumePoint::parse(resume) {
            Ok(point) => point,
            Err(err) => return uncertain(err.to_string()),
        };
        let (handle, signal) = AbortSignal::new();
        {
            let mut calls = inner.calls.borrow_mut();
            if calls.contains_key(call_id) {
                return uncertain(format!("a call {call_id} is already under way"));
            }
            calls.insert(call_id.to_owned(), (server_id.to_owned(), handle));
        }
        let _registered = Registered { inner, call_id };
        match server.client.resume_call(&point, answer, &signal).await {
            Ok(result) => succeeded(result),
            Err(McpError::Aborted) => uncertain("the call was cancelled".to_owned()),
            Err(err) => uncertain(format!(
                "{server_id} could not be reached again after the extension restarted: {}",
                wording::reason(&err, &server.spec)
            )),
        }
    }

    /// Cancels call `call_id` if it is under way.
    pub fn cancel(&self, call_id: &str) {
        let handle = self.inner.calls.borrow().get(call_id).map(|(_, handle)| handle.clone());
        if let Some(handle) = handle {
            handle.abort();
        }
    }

    /// Hands the user's answer to the elicitation waiting for it (none: it already ended).
    pub fn answer(&self, request_id: &str, result: ElicitResult) {
        let sender = self.inner.elicitations.borrow_mut().remove(request_id);
        if let Some(sender) = sender {
            sender.send(result);
        }
    }

    /// The status of `server`, when it is enabled.
    pub fn status(&self, server: &str) -> Option<McpStatus> {
        self.inner.server(server).map(|server| server.status())
    }

    /// Stops `server`'s background work and calls, then deletes its session in the background.
    fn close(&self, server: &Rc<Server<H, T>>) {
        let inner = &self.inner;
        server.stop();
        let calls: Vec<AbortHandle> = inner
            .calls
            .borrow()
            .values()
            .filter(|(id, _)| *id == server.spec.id)
            .map(|(_, handle)| handle.clone())
            .collect();
        for handle in calls {
            handle.abort();
        }
        inner.emit(Event::Status {
            server: server.spec.id.clone(),
            status: McpStatus::Disconnected,
        });
        let server = Rc::clone(server);
        inner.spawner.spawn(Box::pin(async move {
            // Best effort: the server may be gone, and the user moved on either way.
            let _ = server.client.close().await;
        }));
    }
}

impl<H, T> Inner<H, T> {
    fn emit(&self, event: Event) {
        (self.on_event)(event);
    }

    fn server(&self, id: &str) -> Option<Rc<Server<H, T>>> {
        self.servers.borrow().get(id).cloned()
    }

    /// Whether an elicitation of `server` waits for the user (their ids are `{server}-{n}`).
    fn eliciting(&self, server: &str) -> bool {
        self.elicitations.borrow().keys().any(|id| {
            id.strip_prefix(server)
                .and_then(|rest| rest.strip_prefix('-'))
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
    }
}

/// Forgets a call when it ends, however it ends.
/// A tool's result as the bridge carries it.
fn succeeded(result: CallToolResult) -> CallReply {
    let content = result
        .content
        .iter()
        .map(|item| serde_json::to_value(item).unwrap_or(Value::Null))
        .collect();
    let result = ToolResult {
        content,
        is_error: result.is_error,
        structured_content: result.structured_content,
    };
    CallReply::Ok { ok: True, result }
}

struct Registered<'a, H, T> {
    inner: &'a Inner<H, T>,
    call_id: &'a str,
}

impl<H, T> Drop for Registered<'_, H, T> {
    fn drop(&mut self) {
        self.inner.calls.borrow_mut().remove(self.call_id);
    }
}

impl<H, T> std::fmt::Debug for McpManager<H, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let servers: Vec<String> = self.inner.servers.borrow().keys().cloned().collect();
        f.debug_struct("McpManager")
            .field("servers", &servers)
            .field("calls", &self.inner.calls.borrow().len())
            .finish_non_exhaustive()
    }
}
