//! A scripted model-provider server on loopback that speaks both wire formats.
//!
//! [`MockProvider::start`] listens on `127.0.0.1` at a random port and serves, on threads of
//! its own (so synchronous tests and async code can both use it):
//!
//! * `POST …/chat/completions`: the OpenAI-compatible stream (`data: {chat.completion.chunk}`,
//!   a final chunk with `finish_reason` and `usage`, then `data: [DONE]`);
//! * `POST …/messages`: the Anthropic stream (`message_start`, `ping`, content blocks,
//!   `message_delta`, `message_stop`);
//! * `GET …/models`: the list set with [`MockProvider::set_models`] (default `mock-model`), in a
//!   shape both clients parse;
//! * `OPTIONS` anything: a CORS preflight answer, for `fetch` from the extension.
//!
//! Routing looks at the end of the path only, so any base URL prefix works.
//!
//! **The script** is one queue of [`Reply`]s shared by both chat endpoints: each model request
//! takes the next reply, whichever format it speaks, and the reply is rendered in that format.
//! One queue keeps a scripted conversation in the order it happens and lets the same script run
//! against either adapter. `GET …/models` never consumes it: it has its own queue of overrides
//! ([`MockProvider::push_models_reply`]) for listing failures and stalls. With the chat queue
//! empty the server asks the responder, if one is set ([`MockProvider::set_responder`]: a
//! function of the request, for a "model" that reads what it was sent, such as the ref of a
//! button in the snapshot it got), and otherwise answers `500` with a JSON error naming the path,
//! so a test that forgot a reply fails loudly.
//!
//! **Recording**: every request (malformed ones aside) is kept, with its body parsed as JSON
//! when it parses ([`MockProvider::requests`]). Every chat request is also checked against
//! the tool-call pairing rules the real APIs enforce ([`MockProvider::violations`]); a
//! violating request is still answered from the script, so the test decides what to assert.
//!
//! **Framing**: one request per connection. Responses say `Connection: close` and a stream
//! ends when the connection closes, so a [`Reply::truncated`] stream is a clean EOF in the
//! middle of an answer. Every SSE event is a separate write on a `TCP_NODELAY` socket.
//!
//! ```
//! use panelot_testkit::mock_provider::MockProvider;
//! use panelot_testkit::mock_provider::Reply;
//! use serde_json::json;
//!
//! let server = MockProvider::start();
//! server.push(Reply::tool_call("click", json!({"ref": "e1"})));
//! server.push(Reply::text("Clicked."));
//! let base_url = server.base_url(); // http://127.0.0.1:PORT; the client appends /v1/…
//! # assert!(base_url.starts_with("http://127.0.0.1:"));
//! // … run the client against base_url, then:
//! assert!(server.violations().is_empty());
//! # assert_eq!(server.pending_replies(), 2);
//! ```

mod anthropic;
mod gate;
// The MCP mock serves its exchanges with the same small HTTP/1.1 reader.
pub(crate) mod http;
mod invariants;
mod openai;
mod reply;
mod server;
mod sse;

use std::collections::BTreeMap;
use std::collections::VecDeque;
use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::net::TcpListener;
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::Condvar;
use std::sync::Mutex;
use std::sync::MutexGuard;
use std::sync::PoisonError;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering;
use std::thread;
use std::thread::JoinHandle;
use std::time::Duration;
use std::time::Instant;

use serde_json::Value;

pub use gate::Gate;
pub use reply::Reply;
pub use reply::Usage;

/// The model a stream names when the request names none, and the default model list.
const DEFAULT_MODEL: &str = "mock-model";

/// A running mock provider. Dropping it stops the server and joins its threads: stalled streams
/// are abandoned and open connections are shut down.
#[derive(Debug)]
pub struct MockProvider {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accept_thread: Option<JoinHandle<()>>,
}

/// One request as the server received it. Its `Debug` shows the body as text, so a failed
/// assertion is readable.
#[derive(Clone, PartialEq)]
pub struct RecordedRequest {
    /// `GET`, `POST`, `OPTIONS`, …
    pub method: String,
    /// The path, without the query.
    pub path: String,
    /// The query, without the `?`.
    pub query: Option<String>,
    /// Header names lowercased, values as sent, in the order received.
    pub headers: Vec<(String, String)>,
    /// The body, de-chunked.
    pub body: Vec<u8>,
    /// The body parsed as JSON, when it parses.
    pub json: Option<Value>,
}

/// A broken protocol rule in a chat request, such as a tool result for an unknown tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The request's index in [`MockProvider::requests`].
    pub request_index: usize,
    /// The request's path.
    pub path: String,
    /// What is wrong, naming the message index and ids.
    pub message: String,
}

/// State shared by the handle, the accept loop and the connection threads.
#[derive(Debug)]
struct Shared {
    state: Mutex<State>,
    /// Notified whenever a request is recorded or a connection closes.
    changed: Condvar,
    shutting_down: AtomicBool,
}

/// Answers chat requests the queue has no reply for; `None` leaves the request unanswered (`500`).
pub type Responder = Arc<dyn Fn(&RecordedRequest) -> Option<Reply> + Send + Sync>;

struct State {
    replies: VecDeque<Reply>,
    responder: Option<Responder>,
    models_replies: VecDeque<Reply>,
    models: Vec<String>,
    requests: Vec<RecordedRequest>,
    violations: Vec<Violation>,
    /// A handle on every open connection, so that drop can shut them down.
    connections: BTreeMap<u64, TcpStream>,
    workers: Vec<JoinHandle<()>>,
}

impl fmt::Debug for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("State")
            .field("replies", &self.replies)
            .field("responder", &self.responder.is_some())
            .field("models", &self.models)
            .field("requests", &self.requests.len())
            .field("violations", &self.violations)
            .finish_non_exhaustive()
    }
}

impl MockProvider {
    /// Starts a server on `127.0.0.1` at a random port.
    ///
    /// # Panics
    /// If no loopback port can be bound or no thread spawned: the machine cannot run tests.
    pub fn start() -> Self {
        match Self::try_start() {
            Ok(server) => server,
            Err(err) => panic!("mock provider: cannot start on 127.0.0.1: {err}"),
        }
    }

    /// Starts a server on `127.0.0.1` at a random port, reporting failure.
    pub fn try_start() -> io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", 0))?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                replies: VecDeque::new(),
                responder: None,
                models_replies: VecDeque::new(),
                models: vec![DEFAULT_MODEL.to_owned()],
                requests: Vec::new(),
                violations: Vec::new(),
                connections: BTreeMap::new(),
                workers: Vec::new(),
            }),
            changed: Condvar::new(),
            shutting_down: AtomicBool::new(false),
        });
        let accept_shared = Arc::clone(&shared);
        let accept_thread = thread::Builder::new()
            .name("mock-provider-accept".to_owned())
            .spawn(move || server::accept_loop(&listener, &accept_shared))?;
        Ok(MockProvider { addr, shared, accept_thread: Some(accept_thread) })
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash or `/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Appends a reply to the script; the next model request without an earlier reply gets it.
    pub fn push(&self, reply: Reply) {
        self.shared.lock().replies.push_back(reply);
    }

    /// Sets the function that answers chat requests once the queue of pushed replies is empty.
    /// It gets each such request as recorded and runs on the server's connection thread, under
    /// the server's lock (so requests are answered in the order they arrived): it must not call
    /// back into this `MockProvider`.
    pub fn set_responder(
        &self,
        responder: impl Fn(&RecordedRequest) -> Option<Reply> + Send + Sync + 'static,
    ) {
        self.shared.lock().responder = Some(Arc::new(responder));
    }

    /// Removes the responder set with [`MockProvider::set_responder`].
    pub fn clear_responder(&self) {
        self.shared.lock().responder = None;
    }

    /// Appends an override for the next `GET …/models`: its error, raw bytes or stall is
    /// served instead of the list (a plain stream reply serves the list after its stall).
    pub fn push_models_reply(&self, reply: Reply) {
        self.shared.lock().models_replies.push_back(reply);
    }

    /// Sets the model ids `GET …/models` lists.
    pub fn set_models<I, S>(&self, ids: I)
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.shared.lock().models = ids.into_iter().map(Into::into).collect();
    }

    /// How many chat replies are still queued.
    pub fn pending_replies(&self) -> usize {
        self.shared.lock().replies.len()
    }

    /// Every request received so far, oldest first.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.lock().requests.clone()
    }

    /// Waits until at least `n` requests have been received, or fails after `timeout` saying
    /// how many did.
    pub fn wait_for_requests(
        &self,
        n: usize,
        timeout: Duration,
    ) -> anyhow::Result<Vec<RecordedRequest>> {
        let deadline = Instant::now() + timeout;
        let mut state = self.shared.lock();
        while state.requests.len() < n {
            let now = Instant::now();
            if now >= deadline {
                anyhow::bail!(
                    "mock provider: {} of {n} requests arrived within {timeout:?}",
                    state.requests.len()
                );
            }
            state = match self.shared.changed.wait_timeout(state, deadline - now) {
                Ok((state, _)) => state,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
        Ok(state.requests.clone())
    }

    /// How many connections are open (accepted and not yet closed by the server).
    pub fn open_connections(&self) -> usize {
        self.shared.lock().connections.len()
    }

    /// Waits until no connection is open, or fails after `timeout`. A stream stalled at a gate
    /// closes when its client disconnects, so this is how a test sees that a client aborted.
    pub fn wait_for_idle(&self, timeout: Duration) -> anyhow::Result<()> {
        let deadline = Instant::now() + timeout;
        let mut state = self.shared.lock();
        while !state.connections.is_empty() {
            let now = Instant::now();
            if now >= deadline {
                anyhow::bail!(
                    "mock provider: {} connections still open after {timeout:?}",
                    state.connections.len()
                );
            }
            state = match self.shared.changed.wait_timeout(state, deadline - now) {
                Ok((state, _)) => state,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
        Ok(())
    }

    /// Every protocol rule broken by a chat request so far.
    pub fn violations(&self) -> Vec<Violation> {
        self.shared.lock().violations.clone()
    }
}

impl Drop for MockProvider {
    fn drop(&mut self) {
        self.shared.shutting_down.store(true, Ordering::SeqCst);
        // `accept` cannot be interrupted portably: a connection of our own wakes it to see the
        // flag. If even that fails, leave the thread blocked rather than hang the test.
        let woke = TcpStream::connect_timeout(&self.addr, Duration::from_secs(5)).is_ok();
        if let Some(accept_thread) = self.accept_thread.take()
            && woke
        {
            let _ = accept_thread.join();
        }
        let (connections, workers) = {
            let mut state = self.shared.lock();
            (std::mem::take(&mut state.connections), std::mem::take(&mut state.workers))
        };
        // Shutting a socket down unblocks a worker's read or write; a stalled worker sees the
        // flag at its next poll.
        for connection in connections.values() {
            let _ = connection.shutdown(std::net::Shutdown::Both);
        }
        for worker in workers {
            let _ = worker.join();
        }
    }
}

impl RecordedRequest {
    /// The first value of header `name`, compared case-insensitively.
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers.iter().find(|(key, _)| *key == name).map(|(_, value)| value.as_str())
    }
}

impl fmt::Debug for RecordedRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RecordedRequest")
            .field("method", &self.method)
            .field("path", &self.path)
            .field("query", &self.query)
            .field("headers", &self.headers)
            .field("body", &String::from_utf8_lossy(&self.body))
            .field("json", &self.json)
            .finish()
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "request {} to {}: {}", self.request_index, self.path, self.message)
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn is_shutting_down(&self) -> bool {
        self.shutting_down.load(Ordering::SeqCst)
    }
}
