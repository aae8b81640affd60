//! Shared fixtures of the client suites: a recording timer, connections at a mock server, and
//! a call helper. The transport is the real native one over loopback.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use panelot_core::env::AbortSignal;
use panelot_core::model::ContentPart;
use panelot_core::model::LocalFuture;
use panelot_core::model::Message;
use panelot_core::model::ModelBackend;
use panelot_core::model::ModelEvent;
use panelot_core::model::ModelRequest;
use panelot_core::model::ModelResponse;
use panelot_core::model::ProviderError;
use panelot_providers::ClientConfig;
use panelot_providers::Connection;
use panelot_providers::ConnectionDraft;
use panelot_providers::NativeHttp;
use panelot_providers::ProviderClient;
use panelot_providers::Timer;
use panelot_providers::VaultKey;
use panelot_providers::Wait;
use panelot_providers::WireFormat;
use panelot_testkit::mock_provider::MockProvider;
use panelot_testkit::mock_provider::RecordedRequest;

pub(crate) type Client = ProviderClient<NativeHttp, Rc<FakeTimer>>;

/// A timer that records every backoff and completes it at once. Stall timeouts and listing
/// budgets either never fire (the default: a test never depends on how fast the machine is)
/// or, for the tests about them, run in real time for the short durations the test configures.
#[derive(Debug, Default)]
pub(crate) struct FakeTimer {
    backoffs: RefCell<Vec<u64>>,
    real_timeouts: bool,
}

impl FakeTimer {
    pub(crate) fn new() -> Rc<FakeTimer> {
        Rc::new(FakeTimer::default())
    }

    /// Stall timeouts and budgets really elapse (configure them short).
    pub(crate) fn with_real_timeouts() -> Rc<FakeTimer> {
        Rc::new(FakeTimer { real_timeouts: true, ..FakeTimer::default() })
    }

    /// The backoff delays requested so far, in order.
    pub(crate) fn backoffs(&self) -> Vec<u64> {
        self.backoffs.borrow().clone()
    }
}

impl Timer for FakeTimer {
    fn now_ms(&self) -> u64 {
        1_700_000_000_000
    }

    fn sleep(&self, wait: Wait) -> LocalFuture<'static, ()> {
        match wait {
            Wait::Backoff { ms } => {
                self.backoffs.borrow_mut().push(ms);
                Box::pin(std::future::ready(()))
            }
            Wait::Stall { ms } | Wait::Budget { ms } if self.real_timeouts => {
                Box::pin(tokio::time::sleep(Duration::from_millis(ms)))
            }
            Wait::Stall { .. } | Wait::Budget { .. } => Box::pin(std::future::pending()),
        }
    }
}

pub(crate) fn vault() -> VaultKey {
    VaultKey::from_bytes([42; 32])
}

pub(crate) fn connection(id: &str, kind: WireFormat, base_url: &str, keys: &[&str]) -> Connection {
    let draft = ConnectionDraft {
        id: id.to_owned(),
        name: id.to_owned(),
        kind: Some(kind),
        base_url: base_url.to_owned(),
        api_keys: keys.iter().map(|key| (*key).to_owned()).collect(),
        enabled: true,
        ..ConnectionDraft::default()
    };
    Connection::from_draft(draft, &vault()).expect("valid connection")
}

/// An OpenAI-compatible connection `oa` at the mock (base URL with `/v1`).
pub(crate) fn openai_at(server: &MockProvider, keys: &[&str]) -> Connection {
    connection("oa", WireFormat::OpenAi, &format!("{}/v1", server.base_url()), keys)
}

/// An Anthropic connection `an` at the mock.
pub(crate) fn anthropic_at(server: &MockProvider, keys: &[&str]) -> Connection {
    connection("an", WireFormat::Anthropic, &server.base_url(), keys)
}

pub(crate) fn client_with(
    timer: &Rc<FakeTimer>,
    config: ClientConfig,
    conns: Vec<Connection>,
) -> Client {
    let http = NativeHttp::new().expect("native transport");
    let client = ProviderClient::new(http, Rc::clone(timer), vault(), config);
    client.set_connections(conns);
    client
}

pub(crate) fn client(timer: &Rc<FakeTimer>, conns: Vec<Connection>) -> Client {
    client_with(timer, ClientConfig::default(), conns)
}

pub(crate) fn hello() -> ModelRequest {
    ModelRequest {
        model: "mock-model".to_owned(),
        messages: vec![Message::User { content: vec![ContentPart::Text("Hello".to_owned())] }],
        ..ModelRequest::default()
    }
}

/// One call through the engine's trait; the events it delivered and its outcome.
pub(crate) async fn call(
    client: &Client,
    connection: &str,
    request: &ModelRequest,
) -> (Vec<ModelEvent>, Result<ModelResponse, ProviderError>) {
    let mut events = Vec::new();
    let mut on_event = |event| events.push(event);
    let res = client.stream(connection, request, &mut on_event, AbortSignal::default()).await;
    (events, res)
}

/// The credential each request carried (`authorization` or `x-api-key`), in order.
pub(crate) fn keys_sent(requests: &[RecordedRequest]) -> Vec<String> {
    requests
        .iter()
        .map(|request| {
            request
                .header("authorization")
                .map(|value| value.trim_start_matches("Bearer ").to_owned())
                .or_else(|| request.header("x-api-key").map(str::to_owned))
                .unwrap_or_default()
        })
        .collect()
}

/// Chat requests only (listing requests are `GET`).
pub(crate) fn chat_requests(server: &MockProvider) -> Vec<RecordedRequest> {
    server.requests().into_iter().filter(|request| request.method == "POST").collect()
}
