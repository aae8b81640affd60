//! A mock MCP server on loopback speaking Streamable HTTP ("Transports" in the MCP
//! specification, 2025-06-18), for the MCP client's native tests and, later, e2e.
//!
//! It answers `initialize` (echoing a supported version, or one forced by the test), keeps
//! sessions (`Mcp-Session-Id`; unknown ids get 404, [`MockMcp::expire_sessions`] forgets them
//! all), requires `MCP-Protocol-Version` after initialization, pages `tools/list`, and serves
//! these tools, each proving one part of the protocol:
//!
//! | tool           | what it does |
//! |----------------|--------------|
//! | `echo`         | answers `text` back |
//! | `change_tools` | sends `notifications/tools/list_changed` (SSE mode, and on standalone streams) and adds `added_later` |
//! | `ask`          | sends `elicitation/create` (SSE mode, with an event id), waits for the answer, returns it as JSON; a `GET` with that event id replays the result once answered |
//! | `slow`         | never answers; waits until `notifications/cancelled` names its request |
//! | `cut`          | SSE with event ids: one notification, then the connection closes; a `GET` with `Last-Event-ID` replays the result |
//! | `big`          | answers `bytes` bytes of text |
//! | anything else  | a JSON-RPC error `-32602` |
//!
//! One prompt (`greet`) and one resource (`mem://readme`) are offered too. A [`Misbehaviour`]
//! set by the test spoils the next answer; [`MockMcpConfig::require_token`] answers 401 with a
//! `WWW-Authenticate: Bearer resource_metadata=…` challenge to requests without that token.
//! [`MockMcpConfig::oauth`] makes the server its own OAuth 2.1 authorization server instead
//! (metadata, registration, authorize, token; see `oauth.rs`), with an `admin` tool that needs
//! a scope the first authorization does not ask for.

mod oauth;
mod serve;

use std::collections::HashMap;
use std::collections::HashSet;
use std::io;
use std::net::SocketAddr;
use std::net::TcpListener;
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::Condvar;
use std::sync::Mutex;
use std::sync::MutexGuard;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering;
use std::thread;
use std::time::Duration;
use std::time::Instant;

use serde_json::Value;

/// How answers are sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResponseMode {
    /// One `application/json` body per request.
    Json,
    /// A `text/event-stream` per request, ending after the response.
    Sse,
}

/// How the server is set up.
#[derive(Debug, Clone)]
pub struct MockMcpConfig {
    /// JSON or SSE answers.
    pub mode: ResponseMode,
    /// Whether `initialize` assigns a session id (and later requests must carry it).
    pub sessions: bool,
    /// A version to answer `initialize` with, whatever the client asked.
    pub protocol_version: Option<String>,
    /// When set, requests without `Authorization: Bearer <token>` get 401 and a challenge.
    pub require_token: Option<String>,
    /// Tools per `tools/list` page.
    pub page_size: usize,
    /// Extra generated tools (`gen_0`, `gen_1`, …) after the fixed ones.
    pub generated_tools: usize,
    /// Whether a `GET` opens the standalone stream (else 405), on which `change_tools` also
    /// sends its `list_changed`.
    pub standalone_stream: bool,
    /// OAuth mode: `/mcp` needs an access token from the server's own authorization server.
    pub oauth: Option<MockOAuth>,
}

/// How the mock plays an OAuth 2.1 authorization server (issuer `http://<host>/oauth`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MockOAuth {
    /// Where the authorization server metadata is served.
    pub metadata: MetadataLocation,
    /// A flaw in the metadata documents, for the client's checks.
    pub spoil: Option<SpoiledMetadata>,
    /// `expires_in` of access tokens (they only really expire with
    /// [`MockMcp::expire_access_tokens`], so tests need no sleeps).
    pub token_lifetime_s: u64,
    /// Whether a refresh hands out a new refresh token (and retires the old one); when not,
    /// the refresh answer has none and the old one stays valid.
    pub rotate_refresh_tokens: bool,
    /// Whether the authorize endpoint redirects with `error=access_denied`.
    pub deny: bool,
    /// Whether challenges carry `resource_metadata` (else clients must try the well-known
    /// locations).
    pub challenge_metadata_url: bool,
    /// A host name (`auth.test`, `localhost`) the authorization server goes by instead of the
    /// MCP server's, on the same port: the resource metadata names issuer
    /// `http://<host>:<port>/oauth`, and the authorization server's answers carry no CORS
    /// headers, as many real token endpoints do, so a browser reaches them only with host
    /// access to that site.
    pub authorization_host: Option<String>,
}

impl Default for MockOAuth {
    fn default() -> Self {
        MockOAuth {
            metadata: MetadataLocation::Rfc8414,
            spoil: None,
            token_lifetime_s: 60,
            rotate_refresh_tokens: false,
            deny: false,
            challenge_metadata_url: true,
            authorization_host: None,
        }
    }
}

/// Where the authorization server metadata of issuer `…/oauth` is served; only there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetadataLocation {
    /// `/.well-known/oauth-authorization-server/oauth` (RFC 8414, path inserted).
    Rfc8414,
    /// `/.well-known/openid-configuration/oauth` (OpenID Connect, path inserted).
    OidcInserted,
    /// `/oauth/.well-known/openid-configuration` (OpenID Connect, path appended).
    OidcAppended,
}

/// A flaw in the metadata documents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpoiledMetadata {
    /// The authorization server metadata names another issuer.
    IssuerMismatch,
    /// `code_challenge_methods_supported` lists only `plain`.
    NoS256,
    /// `code_challenge_methods_supported` is absent.
    NoChallengeMethods,
    /// The resource metadata names another resource.
    ResourceMismatch,
    /// Both documents are not JSON.
    Garbage,
    /// Both documents carry a padding field of this many bytes.
    Oversized(usize),
}

impl Default for MockMcpConfig {
    fn default() -> Self {
        MockMcpConfig {
            mode: ResponseMode::Json,
            sessions: true,
            protocol_version: None,
            require_token: None,
            page_size: 100,
            generated_tools: 0,
            standalone_stream: false,
            oauth: None,
        }
    }
}

/// A way to spoil the next answer to a request other than `initialize`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Misbehaviour {
    /// A body that is not JSON.
    Garbage,
    /// A JSON-RPC response whose result text has this many bytes.
    Oversized(usize),
    /// `tools/list` pages that always have a next cursor.
    EndlessCursor,
    /// An SSE stream that ends without the response and without event ids.
    EarlyEnd,
    /// From now on every request in a session gets 404, as if it had just expired (the
    /// `notifications/initialized` of a new session still passes).
    ExpireEverySession,
}

/// One request as the server received it.
#[derive(Debug, Clone)]
pub struct McpRequest {
    /// `GET`, `POST`, `DELETE`, ...
    pub http_method: String,
    /// The path and query.
    pub target: String,
    /// Header names lowercased.
    pub headers: Vec<(String, String)>,
    /// The JSON body, if it had one that parsed.
    pub body: Option<Value>,
}

impl McpRequest {
    /// The first value of header `name` (lowercase).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
    }

    /// The JSON-RPC method, for requests and notifications.
    pub fn rpc_method(&self) -> Option<&str> {
        self.body.as_ref()?.get("method")?.as_str()
    }
}

/// The running server; dropping it stops the accept loop.
#[derive(Debug)]
pub struct MockMcp {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accept_thread: Option<thread::JoinHandle<()>>,
}

#[derive(Debug)]
struct Shared {
    config: MockMcpConfig,
    state: Mutex<State>,
    changed: Condvar,
    shutting_down: AtomicBool,
}

#[derive(Debug, Default)]
struct State {
    requests: Vec<McpRequest>,
    sessions: HashSet<String>,
    next_session: u64,
    misbehaviour: Option<Misbehaviour>,
    /// Request ids named by `notifications/cancelled`.
    cancelled: Vec<Value>,
    /// Answers to our elicitation requests, by their id.
    answers: HashMap<String, Value>,
    next_elicitation: u64,
    tools_changed: bool,
    /// Results of cut streams, by the last event id sent before the cut.
    replays: HashMap<String, Value>,
    resumed: u32,
    /// Open standalone streams.
    listeners: Vec<TcpStream>,
    /// Set by [`MockMcp::close_listeners`]; the standalone streams' threads then end them.
    listeners_closed: bool,
    /// While set ([`MockMcp::hold_reads`]), `resources/read` waits before it answers.
    reads_held: bool,
    oauth: oauth::OAuthState,
}

impl MockMcp {
    /// Starts a server on `127.0.0.1` at a random port.
    pub fn start(config: MockMcpConfig) -> io::Result<MockMcp> {
        let listener = TcpListener::bind(("127.0.0.1", 0))?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            config,
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
            shutting_down: AtomicBool::new(false),
        });
        let accept_shared = Arc::clone(&shared);
        let accept_thread = thread::Builder::new()
            .name("mock-mcp-accept".to_owned())
            .spawn(move || serve::accept_loop(&listener, &accept_shared))?;
        Ok(MockMcp { addr, shared, accept_thread: Some(accept_thread) })
    }

    /// The MCP endpoint.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<McpRequest> {
        self.shared.lock().requests.clone()
    }

    /// The request ids `notifications/cancelled` named so far.
    pub fn cancelled(&self) -> Vec<Value> {
        self.shared.lock().cancelled.clone()
    }

    /// Waits up to `timeout` until `notifications/cancelled` names `id`.
    pub fn wait_cancelled(&self, id: &Value, timeout: Duration) -> bool {
        self.shared.wait_until(timeout, |state| state.cancelled.contains(id))
    }

    /// How many times a cut stream was resumed.
    pub fn resumed(&self) -> u32 {
        self.shared.lock().resumed
    }

    /// How many standalone streams are open.
    pub fn listeners(&self) -> usize {
        self.shared.lock().listeners.len()
    }

    /// Ends every standalone stream (the server may close them at any time).
    pub fn close_listeners(&self) {
        self.shared.lock().listeners_closed = true;
        self.shared.changed.notify_all();
    }

    /// Makes `resources/read` wait (up to 30 s) until [`MockMcp::release_reads`], as a slow
    /// server would.
    pub fn hold_reads(&self) {
        self.shared.lock().reads_held = true;
    }

    /// Lets the held `resources/read` answer.
    pub fn release_reads(&self) {
        self.shared.lock().reads_held = false;
        self.shared.changed.notify_all();
    }

    /// Forgets every session: the next request in one gets 404.
    pub fn expire_sessions(&self) {
        self.shared.lock().sessions.clear();
    }

    /// OAuth mode: forgets every access token, as if they had expired (refresh tokens stay).
    pub fn expire_access_tokens(&self) {
        self.shared.lock().oauth.expire_access_tokens();
    }

    /// OAuth mode: the form of every token request so far, in order.
    pub fn token_requests(&self) -> Vec<Vec<(String, String)>> {
        self.shared.lock().oauth.token_requests.clone()
    }

    /// Spoils the next answer.
    pub fn misbehave(&self, misbehaviour: Misbehaviour) {
        self.shared.lock().misbehaviour = Some(misbehaviour);
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panicking worker must not take the whole mock down with a poisoned lock.
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Waits until `done` holds, the timeout passes or the server shuts down.
    fn wait_until(&self, timeout: Duration, done: impl Fn(&State) -> bool) -> bool {
        let deadline = Instant::now() + timeout;
        let mut state = self.lock();
        loop {
            if done(&state) {
                return true;
            }
            let now = Instant::now();
            if now >= deadline || self.shutting_down.load(Ordering::SeqCst) {
                return false;
            }
            state = match self.changed.wait_timeout(state, deadline - now) {
                Ok((state, _)) => state,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }
}

impl Drop for MockMcp {
    fn drop(&mut self) {
        self.shared.shutting_down.store(true, Ordering::SeqCst);
        self.shared.changed.notify_all();
        // `accept` cannot be interrupted portably: a connection of our own wakes it.
        if TcpStream::connect_timeout(&self.addr, Duration::from_secs(5)).is_ok()
            && let Some(accept_thread) = self.accept_thread.take()
        {
            let _ = accept_thread.join();
        }
    }
}
