//! The MCP module's manager against the mock server: configure, status and catalog events,
//! calls, cancellation and timeouts, list_changed refreshes (a failed one keeps the last good
//! catalog), the standalone stream's backoff, closing removed servers, OAuth sign-ins
//! (used, refreshed on a 401 and handed back), and bad input.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use panelot_core::model::LocalFuture;
use panelot_mcp::bridge::CallReply;
use panelot_mcp::bridge::Command;
use panelot_mcp::bridge::ErrorKind;
use panelot_mcp::bridge::Event;
use panelot_mcp::bridge::Reply;
use panelot_mcp::bridge::ServerSpec;
use panelot_mcp::manager::Browser;
use panelot_mcp::manager::ManagerOptions;
use panelot_mcp::manager::McpManager;
use panelot_mcp::manager::NoBrowser;
use panelot_mcp::manager::Spawn;
use panelot_protocol::engine::McpAuth;
use panelot_protocol::engine::McpConnectMode;
use panelot_protocol::engine::McpStatus;
use panelot_providers::NativeHttp;
use panelot_providers::TokioTimer;
use panelot_testkit::mock_mcp::Misbehaviour;
use panelot_testkit::mock_mcp::MockMcp;
use panelot_testkit::mock_mcp::MockMcpConfig;
use panelot_testkit::mock_mcp::MockOAuth;
use panelot_testkit::mock_mcp::ResponseMode;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;

struct LocalSpawner;

impl Spawn for LocalSpawner {
    fn spawn(&self, task: LocalFuture<'static, ()>) {
        drop(tokio::task::spawn_local(task));
    }
}

pub(super) struct Harness {
    pub(super) mock: MockMcp,
    pub(super) manager: McpManager<NativeHttp, TokioTimer>,
    pub(super) events: Rc<RefCell<Vec<Event>>>,
}

fn harness(config: MockMcpConfig, options: ManagerOptions) -> Harness {
    harness_with(config, options, Box::new(NoBrowser))
}

/// A manager over a mock started with `config`, signing in through `browser`.
pub(super) fn harness_with(
    config: MockMcpConfig,
    options: ManagerOptions,
    browser: Box<dyn Browser>,
) -> Harness {
    let mock = MockMcp::start(config).expect("the mock MCP server starts");
    let events = Rc::new(RefCell::new(Vec::new()));
    let sink = Rc::clone(&events);
    let http = NativeHttp::new().expect("the native transport builds");
    let on_event = Box::new(move |event| sink.borrow_mut().push(event));
    let spawner = Box::new(LocalSpawner);
    let manager = McpManager::new(http, TokioTimer, spawner, browser, on_event, options);
    Harness { mock, manager, events }
}

pub(super) fn spec(h: &Harness, connect: McpConnectMode) -> ServerSpec {
    ServerSpec {
        id: "mock".to_owned(),
        url: h.mock.url(),
        headers: Vec::new(),
        auth: McpAuth::None,
        oauth_client_id: None,
        enabled: true,
        connect,
        timeout_ms: 10_000,
        oauth_credentials: None,
    }
}

/// Runs a test body on a `LocalSet`, where the manager's background tasks go.
/// A test that has not finished in this long is stuck: it fails, naming the limit, rather than
/// hold the whole suite (and CI) until it is killed.
const TEST_LIMIT: Duration = Duration::from_secs(90);

pub(super) async fn local<F: std::future::Future<Output = ()>>(body: F) {
    let set = tokio::task::LocalSet::new();
    let finished = tokio::time::timeout(TEST_LIMIT, set.run_until(body)).await;
    assert!(finished.is_ok(), "the test did not finish within {TEST_LIMIT:?}");
}

impl Harness {
    /// Waits up to 10 s for an event matching `wanted`.
    pub(super) async fn wait_event(&self, what: &str, wanted: impl Fn(&Event) -> bool) -> Event {
        for _ in 0..2000 {
            if let Some(event) = self.events.borrow().iter().find(|event| wanted(event)) {
                return event.clone();
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        panic!("no {what} event; got {:#?}", self.events.borrow());
    }

    pub(super) async fn wait_status(&self, wanted: impl Fn(&McpStatus) -> bool) -> McpStatus {
        let event = self
            .wait_event(
                "status",
                |event| matches!(event, Event::Status { status, .. } if wanted(status)),
            )
            .await;
        let Event::Status { status, .. } = event else { unreachable!() };
        status
    }

    pub(super) fn statuses(&self) -> Vec<McpStatus> {
        self.events
            .borrow()
            .iter()
            .filter_map(|event| match event {
                Event::Status { status, .. } => Some(status.clone()),
                _ => None,
            })
            .collect()
    }

    fn catalogs(&self) -> Vec<Vec<String>> {
        self.events
            .borrow()
            .iter()
            .filter_map(|event| match event {
                Event::Catalog { tools, .. } => {
                    Some(tools.iter().map(|tool| tool.name.clone()).collect())
                }
                _ => None,
            })
            .collect()
    }

    pub(super) async fn call(&self, call_id: &str, tool: &str, arguments: Value) -> CallReply {
        let name = format!("mcp__mock__{tool}");
        let arguments = arguments.as_object().cloned().unwrap_or_default();
        self.manager.call(call_id, &name, arguments, None).await
    }

    pub(super) fn count(&self, http_method: &str, rpc_method: Option<&str>) -> usize {
        let requests = self.mock.requests();
        let matching = |r: &&panelot_testkit::mock_mcp::McpRequest| {
            r.http_method == http_method && (rpc_method.is_none() || r.rpc_method() == rpc_method)
        };
        requests.iter().filter(matching).count()
    }
}

pub(super) fn text_of(reply: &CallReply) -> String {
    match reply {
        CallReply::Ok { result, .. } => {
            result.content[0].get("text").and_then(Value::as_str).unwrap_or_default().to_owned()
        }
        CallReply::Err { error, .. } => panic!("the call failed: {error:?}"),
    }
}

pub(super) fn error_kind(reply: &CallReply) -> ErrorKind {
    match reply {
        CallReply::Err { error, .. } => error.kind,
        CallReply::Ok { result, .. } => panic!("the call succeeded: {result:?}"),
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_startup_server_connects_reports_its_catalog_and_answers_calls() {
    local(async {
        let h = harness(MockMcpConfig::default(), ManagerOptions::default());
        h.manager.configure(vec![spec(&h, McpConnectMode::Startup)]);
        h.wait_status(|status| matches!(status, McpStatus::Ready { .. })).await;
        assert_eq!(h.statuses(), [McpStatus::Connecting, McpStatus::Ready { tools: 6 }]);
        let Some(Event::Catalog { server, tools, rejected }) =
            h.events.borrow().iter().find(|e| matches!(e, Event::Catalog { .. })).cloned()
        else {
            panic!("no catalog")
        };
        assert_eq!(server, "mock");
        assert!(rejected.is_empty());
        assert_eq!(tools[0].exposed_name, "mcp__mock__echo");
        assert_eq!(tools[0].name, "echo");
        assert_eq!(tools[0].input_schema["type"], "object");

        let reply = h.call("c1", "echo", json!({"text": "hello"})).await;
        assert_eq!(text_of(&reply), "hello");
        // The same through the JSON bridge.
        let command = r#"{"type":"call","callId":"c2","name":"mcp__mock__echo","arguments":{"text":"hi"}}"#;
        let reply: Value = serde_json::from_str(&h.manager.command_json(command).await).unwrap();
        assert_eq!(
            reply,
            json!({"ok": true, "result": {"content": [{"type": "text", "text": "hi"}], "isError": false}})
        );
        assert_eq!(h.manager.status("mock"), Some(McpStatus::Ready { tools: 6 }));
    })
    .await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_lazy_server_connects_on_its_first_call() {
    local(async {
        let h = harness(MockMcpConfig::default(), ManagerOptions::default());
        h.manager.configure(vec![spec(&h, McpConnectMode::Lazy)]);
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(h.statuses(), [McpStatus::Disconnected]);
        assert_eq!(h.mock.requests().len(), 0, "nothing is sent before the first use");

        let reply = h.call("c1", "echo", json!({"text": "late"})).await;
        assert_eq!(text_of(&reply), "late");
        assert_eq!(
            h.statuses(),
            [McpStatus::Disconnected, McpStatus::Connecting, McpStatus::Ready { tools: 6 }]
        );
        assert_eq!(h.count("POST", Some("initialize")), 1);
    })
    .await;
}

#[tokio::test(flavor = "current_thread")]
async fn cancel_and_timeout_stop_a_call_and_tell_the_server() {
    local(async {
        let h = harness(MockMcpConfig::default(), ManagerOptions::default());
        h.manager.configure(vec![spec(&h, McpConnectMode::Startup)]);
        h.wait_status(|status| matches!(status, McpStatus::Ready { .. })).await;

        let cancelling = async {
            while h.count("POST", Some("tools/call")) == 0 {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            let reply = h.manager.command(Command::Cancel { call_id: "slow-1".to_owned() }).await;
            assert_eq!(reply, Reply::Done {});
        };
        let (reply, ()) = tokio::join!(h.call("slow-1", "slow", json!({})), cancelling);
        assert_eq!(error_kind(&reply), ErrorKind::Cancelled);
        assert_eq!(h.mock.cancelled().len(), 1, "notifications/cancelled was sent");

        let name = "mcp__mock__slow";
        let reply = h.manager.call("slow-2", name, serde_json::Map::new(), Some(100)).await;
        assert_eq!(error_kind(&reply), ErrorKind::Timeout);
        assert_eq!(h.mock.cancelled().len(), 2);
        // The ids are free again.
        assert_eq!(text_of(&h.call("slow-1", "echo", json!({"text": "again"})).await), "again");
    })
    .await;
}

#[tokio::test(flavor = "current_thread")]
async fn list_changed_lists_again_and_a_failed_listing_keeps_the_last_good_catalog() {
    local(async {
        let config = MockMcpConfig { mode: ResponseMode::Sse, ..MockMcpConfig::default() };
        let options = ManagerOptions { refresh_delay_ms: 200, ..ManagerOptions::default() };
        let h = harness(config, options);
        h.manager.configure(vec![spec(&h, McpConnectMode::Startup)]);
        h.wait_status(|status| matches!(status, McpStatus::Ready { .. })).await;

        // The notification travels inside the call's SSE answer.
        assert_eq!(text_of(&h.call("c1", "change_tools", json!({})).await), "changed");
        h.wait_status(|status| *status == McpStatus::Ready { tools: 7 }).await;
        let catalogs = h.catalogs();
        assert_eq!(catalogs.len(), 2);
        assert!(catalogs[1].contains(&"added_later".to_owned()));

        // Again, but the listing that follows gets garbage.
        assert_eq!(text_of(&h.call("c2", "change_tools", json!({})).await), "changed");
        h.mock.misbehave(Misbehaviour::Garbage);
        let failed = h.wait_status(|status| matches!(status, McpStatus::Error { .. })).await;
        let McpStatus::Error { reason } = failed else { unreachable!() };
        assert!(reason.contains("not valid MCP"), "{reason}");
        assert_eq!(h.catalogs().len(), 2, "no catalog event for a failed listing");
        // The last good catalog still serves calls.
        assert_eq!(text_of(&h.call("c3", "echo", json!({"text": "kept"})).await), "kept");

        // `connect` retries and recovers.
        let reply = h.manager.command(Command::Connect { server: "mock".to_owned() }).await;
        assert_eq!(reply, Reply::Status { status: McpStatus::Ready { tools: 7 } });
        assert_eq!(h.catalogs().len(), 3);
    })
    .await;
}

#[tokio::test(flavor = "current_thread")]
async fn the_standalone_stream_brings_list_changed_and_reopens_with_capped_backoff() {
    local(async {
        let config = MockMcpConfig { standalone_stream: true, ..MockMcpConfig::default() };
        let options = ManagerOptions {
            refresh_delay_ms: 10,
            listen_backoff_min_ms: 10,
            listen_backoff_max_ms: 40,
            listen_max_failures: 3,
            ..ManagerOptions::default()
        };
        let h = harness(config, options);
        h.manager.configure(vec![spec(&h, McpConnectMode::Startup)]);
        h.wait_status(|status| matches!(status, McpStatus::Ready { .. })).await;
        while h.mock.listeners() == 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        // JSON answers: the list_changed can only come on the standalone stream.
        assert_eq!(text_of(&h.call("c1", "change_tools", json!({})).await), "changed");
        h.wait_status(|status| *status == McpStatus::Ready { tools: 7 }).await;

        // The server ends its streams (and ends every later one at once): reopened three
        // times with backoff, then given up.
        h.mock.close_listeners();
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(h.count("GET", None), 3);
    })
    .await;
}

#[tokio::test(flavor = "current_thread")]
async fn an_elicitation_goes_out_as_an_event_and_waits_for_the_answer() {
    local(async {
        let config = MockMcpConfig { mode: ResponseMode::Sse, ..MockMcpConfig::default() };
        let h = harness(config, ManagerOptions::default());
        h.manager.configure(vec![spec(&h, McpConnectMode::Startup)]);
        h.wait_status(|status| matches!(status, McpStatus::Ready { .. })).await;

        let answering = async {
            let event = h.wait_event("elicit", |event| matches!(event, Event::Elicit { .. })).await;
            // The user takes longer than the call's timeout: their time does not count.
            tokio::time::sleep(Duration::from_millis(1200)).await;
            let Event::Elicit { request_id, server, message, schema, resume } = event else {
                unreachable!()
            };
            assert_eq!((server.as_str(), message.as_str()), ("mock", "What is your name?"));
            // The mock's stream has event ids: the engine can keep the card across a restart.
            assert!(resume.is_some_and(|point| point.contains("session-1")));
            assert_eq!(schema["required"], json!(["name"]));
            let answer = json!({"type": "elicitAnswer", "requestId": request_id,
                "result": {"action": "accept", "content": {"name": "Grace"}}});
            assert_eq!(h.manager.command_json(&answer.to_string()).await, "{}");
        };
        let asking = h.manager.call("c1", "mcp__mock__ask", serde_json::Map::new(), Some(500));
        let (reply, ()) = tokio::join!(asking, answering);
        assert!(text_of(&reply).contains("Grace"), "{reply:?}");

        // Reading on a call from a point that does not read is uncertain, never a retry.
        let resume = json!({"type": "resume", "callId": "c2", "name": "mcp__mock__ask",
            "resume": "not a point", "result": {"action": "decline"}});
        let reply = h.manager.command_json(&resume.to_string()).await;
        assert!(reply.contains(r#""kind":"uncertain""#), "{reply}");
    })
    .await;
}

#[tokio::test(flavor = "current_thread")]
async fn removing_or_changing_a_server_closes_its_session() {
    local(async {
        let config = MockMcpConfig { standalone_stream: true, ..MockMcpConfig::default() };
        let h = harness(config, ManagerOptions::default());
        let first = spec(&h, McpConnectMode::Startup);
        h.manager.configure(vec![first.clone()]);
        h.wait_status(|status| matches!(status, McpStatus::Ready { .. })).await;

        // A changed spec: the old session is deleted and a new one opened. The first Ready is
        // forgotten, so the wait below is for the new session's (else the removal could come
        // while the new session is still connecting, before it has an id to delete).
        let changed = ServerSpec { timeout_ms: 20_000, ..first.clone() };
        h.events.borrow_mut().clear();
        h.manager.configure(vec![changed.clone()]);
        while h.count("DELETE", None) == 0 || h.count("POST", Some("initialize")) < 2 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let delete = h.mock.requests().into_iter().find(|r| r.http_method == "DELETE").unwrap();
        assert_eq!(delete.header("mcp-session-id"), Some("session-1"));
        h.wait_status(|status| matches!(status, McpStatus::Ready { .. })).await;

        // Removed: closed, reported disconnected, no longer callable.
        h.events.borrow_mut().clear();
        h.manager.configure(Vec::new());
        assert_eq!(h.statuses(), [McpStatus::Disconnected]);
        while h.count("DELETE", None) < 2 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let gets = h.count("GET", None);
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(h.count("GET", None), gets, "the stream is not reopened");
        assert_eq!(error_kind(&h.call("c1", "echo", json!({})).await), ErrorKind::UnknownTool);
        assert_eq!(h.manager.status("mock"), None);
        h.mock.close_listeners();
    })
    .await;
}

#[tokio::test(flavor = "current_thread")]
async fn garbage_and_refusals_give_an_error_status_a_user_can_act_on() {
    local(async {
        let h = harness(MockMcpConfig::default(), ManagerOptions::default());
        h.mock.misbehave(Misbehaviour::Garbage);
        h.manager.configure(vec![spec(&h, McpConnectMode::Startup)]);
        let status = h.wait_status(|status| matches!(status, McpStatus::Error { .. })).await;
        let McpStatus::Error { reason } = status else { unreachable!() };
        assert!(reason.contains("not valid MCP"), "{reason}");
        let reply = h.call("c1", "echo", json!({"text": "x"})).await;
        assert_eq!(text_of(&reply), "x", "a call retries the connect");

        let token =
            MockMcpConfig { require_token: Some("s3cret".to_owned()), ..MockMcpConfig::default() };
        let h = harness(token, ManagerOptions::default());
        h.manager.configure(vec![spec(&h, McpConnectMode::Lazy)]);
        let status = h.manager.connect("mock").await;
        assert_eq!(
            status,
            McpStatus::Error {
                reason: "401: the server needs a token (add a bearer token, or choose OAuth)"
                    .to_owned()
            }
        );
        let reply = h.call("c1", "echo", json!({})).await;
        assert_eq!(error_kind(&reply), ErrorKind::NotConnected);
        let oauth = ServerSpec { auth: McpAuth::Oauth, ..spec(&h, McpConnectMode::Lazy) };
        h.manager.configure(vec![oauth]);
        assert!(matches!(h.manager.connect("mock").await, McpStatus::NeedsAuthorization { .. }));
        let bearer = ServerSpec {
            auth: McpAuth::Bearer,
            headers: vec![("Authorization".to_owned(), "Bearer s3cret".to_owned())],
            ..spec(&h, McpConnectMode::Lazy)
        };
        h.manager.configure(vec![bearer]);
        assert_eq!(h.manager.connect("mock").await, McpStatus::Ready { tools: 6 });

        let down = harness(MockMcpConfig::default(), ManagerOptions::default());
        let url = "http://127.0.0.1:9/mcp".to_owned();
        down.manager.configure(vec![ServerSpec { url, ..spec(&down, McpConnectMode::Lazy) }]);
        let McpStatus::Error { reason } = down.manager.connect("mock").await else {
            panic!("connected to a closed port")
        };
        assert!(reason.starts_with("could not reach http://127.0.0.1:9/mcp"), "{reason}");
    })
    .await;
}

#[tokio::test(flavor = "current_thread")]
async fn bad_commands_and_unknown_names_get_typed_errors() {
    local(async {
        let h = harness(MockMcpConfig::default(), ManagerOptions::default());
        h.manager.configure(vec![spec(&h, McpConnectMode::Startup)]);
        h.wait_status(|status| matches!(status, McpStatus::Ready { .. })).await;
        for (command, kind) in [
            ("{", "badCommand"),
            (r#"{"type":"call","callId":"c","name":"echo","arguments":{}}"#, "unknownTool"),
            (r#"{"type":"call","callId":"c","name":"mcp__other__echo"}"#, "unknownTool"),
            (r#"{"type":"call","callId":"c","name":"mcp__mock__nope"}"#, "unknownTool"),
        ] {
            let reply: Value =
                serde_json::from_str(&h.manager.command_json(command).await).unwrap();
            assert_eq!(reply["ok"], json!(false), "{command}");
            assert_eq!(reply["error"]["kind"], json!(kind), "{command}");
        }
        // A server with a bad id is reported, not kept.
        let bad = ServerSpec { id: "Bad_Id".to_owned(), ..spec(&h, McpConnectMode::Startup) };
        h.manager.configure(vec![bad]);
        let status = h.wait_status(|status| matches!(status, McpStatus::Error { .. })).await;
        assert!(matches!(status, McpStatus::Error { reason } if reason.contains("server id")));
        assert_eq!(h.manager.command_json(r#"{"type":"cancel","callId":"none"}"#).await, "{}");
        let answer = r#"{"type":"elicitAnswer","requestId":"x","result":{"action":"cancel"}}"#;
        assert_eq!(h.manager.command_json(answer).await, "{}");
    })
    .await;
}

/// Signs in against the mock's authorization server as the host will (discover, register,
/// authorize in "the browser", redeem the code), by the wall clock the manager uses.
async fn sign_in(mock: &MockMcp) -> Value {
    use panelot_core::env::AbortSignal;
    use panelot_core::env::Clock;
    use panelot_mcp::Budgets;
    use panelot_mcp::oauth::OAuthClient;
    use panelot_mcp::oauth::PendingAuthorization;
    use panelot_mcp::oauth::Random;
    use panelot_mcp::oauth::discover;
    use std::io::Read;
    use std::io::Write;

    struct Wall;
    impl Clock for Wall {
        fn now_ms(&self) -> u64 {
            let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
            since.map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        }
    }
    struct Fixed;
    impl Random for Fixed {
        fn fill(&self, bytes: &mut [u8]) {
            bytes.iter_mut().enumerate().for_each(|(i, b)| *b = i as u8);
        }
    }
    let http = NativeHttp::new().unwrap();
    let (budgets, abort) = (Budgets::default(), AbortSignal::default());
    let plan = discover(&http, &budgets, &mock.url(), None, &abort).await.expect("discovers");
    let redirect = "http://127.0.0.1:9/callback";
    let client = OAuthClient::register(&http, &budgets, &plan, redirect, &abort).await.unwrap();
    let (url, pending) =
        PendingAuthorization::start(&plan, &client, &Fixed, &plan.default_scopes()).unwrap();
    // Play the browser: the authorize endpoint redirects at once with the code.
    let rest = url.strip_prefix("http://").unwrap();
    let (host, target) = rest.split_at(rest.find('/').unwrap());
    let mut stream = std::net::TcpStream::connect(host).unwrap();
    write!(stream, "GET {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let location = response.lines().find_map(|l| l.strip_prefix("Location: ")).unwrap().trim();
    let credentials = pending.finish(&http, &budgets, &Wall, location, &abort).await.unwrap();
    serde_json::to_value(&credentials).unwrap()
}

#[tokio::test(flavor = "current_thread")]
async fn an_oauth_sign_in_is_used_refreshed_after_a_401_and_handed_back() {
    local(async {
        let config =
            MockMcpConfig { oauth: Some(MockOAuth::default()), ..MockMcpConfig::default() };
        let h = harness(config, ManagerOptions::default());
        let unsigned = ServerSpec { auth: McpAuth::Oauth, ..spec(&h, McpConnectMode::Lazy) };
        h.manager.configure(vec![unsigned.clone()]);
        assert!(matches!(h.manager.connect("mock").await, McpStatus::NeedsAuthorization { .. }));

        let credentials = sign_in(&h.mock).await;
        let signed = ServerSpec { oauth_credentials: Some(credentials.clone()), ..unsigned };
        h.manager.configure(vec![signed.clone()]);
        assert_eq!(h.manager.connect("mock").await, McpStatus::Ready { tools: 7 });
        let initializes = h.count("POST", Some("initialize"));

        // The server drops the token: one refresh, the call retried, the engine told.
        h.mock.expire_access_tokens();
        assert_eq!(text_of(&h.call("c1", "echo", json!({"text": "still"})).await), "still");
        let event = h.wait_event("credentials", |e| matches!(e, Event::Credentials { .. })).await;
        let Event::Credentials { server, credentials: refreshed } = event else { unreachable!() };
        assert_eq!(server, "mock");
        let refreshed = serde_json::to_value(&refreshed).unwrap();
        assert_ne!(refreshed, credentials);
        assert!(!format!("{:?}", h.events.borrow()).contains("access"), "no token in Debug");

        // The engine echoes the new sign-in back: kept in place, no new connection.
        let echoed = ServerSpec { oauth_credentials: Some(refreshed), ..signed };
        h.manager.configure(vec![echoed]);
        assert_eq!(text_of(&h.call("c2", "echo", json!({"text": "same"})).await), "same");
        assert_eq!(h.count("POST", Some("initialize")), initializes);
        assert_eq!(h.count("DELETE", None), 0);
    })
    .await;
}

#[tokio::test(flavor = "current_thread")]
async fn prompts_and_resources_are_listed_filled_in_and_read_in_the_engine_s_shapes() {
    local(async {
        let h = harness(MockMcpConfig::default(), ManagerOptions::default());
        // A lazy server connects for the listing.
        h.manager.configure(vec![spec(&h, McpConnectMode::Lazy)]);
        let listed: Value = serde_json::from_str(
            &h.manager.command_json(r#"{"type":"list"}"#).await,
        )
        .unwrap();
        assert_eq!(
            listed,
            json!({
                "prompts": [{"serverId": "mock", "title": "greet", "name": "greet",
                    "description": "Greets someone.",
                    "arguments": [{"name": "who", "description": null, "required": true}]}],
                "resources": [{"serverId": "mock", "uri": "mem://readme", "title": "readme",
                    "name": "readme", "description": null, "mimeType": "text/plain"}],
                "failures": []
            })
        );
        let got: Value = serde_json::from_str(
            &h.manager
                .command_json(
                    r#"{"type":"getPrompt","server":"mock","name":"greet","arguments":{"who":"Ada"}}"#,
                )
                .await,
        )
        .unwrap();
        assert_eq!(got["ok"], true);
        assert_eq!(got["result"]["messages"][0]["content"]["text"], "Say hello to Ada.");
        let read: Value = serde_json::from_str(
            &h.manager
                .command_json(r#"{"type":"readResource","server":"mock","uri":"mem://readme"}"#)
                .await,
        )
        .unwrap();
        assert_eq!(read["result"]["contents"][0]["text"], "Read me.");
        // An unknown server is named with its reason, in the list and as an error.
        let none: Value = serde_json::from_str(
            &h.manager.command_json(r#"{"type":"list","server":"nope"}"#).await,
        )
        .unwrap();
        assert_eq!(none["failures"][0]["serverId"], "nope");
        assert_eq!(none["prompts"], json!([]));
        let refused: Value = serde_json::from_str(
            &h.manager
                .command_json(r#"{"type":"readResource","server":"nope","uri":"mem://x"}"#)
                .await,
        )
        .unwrap();
        assert_eq!(refused["ok"], false);
        assert_eq!(refused["error"]["kind"], "notConnected");
    })
    .await;
}
