//! A browser with the test build configured for the mock provider, a fixture tab, and a thread
//! whose first turn (and its title call) is done, so replies queued next go to one turn in order.
//! The gateway and debugger suites drive the engine through it; a failure panics with the
//! conversation and the Chromium log, as a test assertion does.

// Test support: a broken fixture ends the test that uses it, with its reason.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use std::path::PathBuf;
use std::time::Duration;

use panelot_protocol::AgentEvent;
use panelot_protocol::decode_event;
use panelot_protocol::engine::StopReason;
use panelot_testkit::fixture_site::FixtureSite;
use panelot_testkit::mock_provider::MockProvider;
use panelot_testkit::mock_provider::RecordedRequest;
use panelot_testkit::mock_provider::Reply;
use serde_json::Value;
use serde_json::json;

use crate::conversation::Approvals;
use crate::executor::ExecutorHarness;
use crate::executor::Tab;

/// Configures the engine's database: a connection to the mock server (its model said to read
/// images, so `screenshot` is offered), a default model and the `auto` permission policy,
/// through the test build's exports. A second connection, [`BLIND`], reaches the same server
/// with nothing said of its model, which so does not read images.
pub fn configure(h: &mut ExecutorHarness, base_url: &str) {
    let connection = |id: &str, models: Value| {
        json!({"id": id, "name": id, "kind": "openai",
            "baseUrl": format!("{base_url}/v1"), "apiKeys": [], "customHeaders": [],
            "enabled": true, "quirks": [], "modelIds": ["mock-model"], "models": models})
    };
    let connection = json!([
        connection("mock", json!([{"id": "mock-model", "vision": true}])),
        connection(BLIND, json!([])),
    ]);
    let model = json!({"connectionId": "mock", "modelId": "mock-model"});
    let script = format!(
        r#"(async () => {{
            const engine = await import(chrome.runtime.getURL("wasm/engine.js"));
            await engine.default();
            await engine.seedSetting("connections", {connection});
            await engine.seedSetting("defaultModel", {model});
            await engine.seedSetting("permissionPolicy", '"auto"');
            return true;
        }})()"#,
        connection = serde_json::to_string(&connection.to_string()).unwrap(),
        model = serde_json::to_string(&model.to_string()).unwrap(),
    );
    assert_eq!(h.eval(&script).unwrap_or_else(|e| panic!("{e:#}")), Value::Bool(true));
}

/// The id of the scenario's connection whose model does not read images (pick it with the turn
/// override `{"model": {"connectionId": BLIND, "modelId": "mock-model"}}`).
pub const BLIND: &str = "blind";

/// Runs `steps` on one port after `initialize` (see [`crate::conversation`]), answering every
/// approval with `approvals`. Returns the raw events, each with the `performance.now()` of its
/// arrival under `"t"`.
pub fn converse_with(h: &mut ExecutorHarness, steps: Value, approvals: Approvals) -> Vec<Value> {
    let script = crate::conversation::script_with("e2e-scenario", &steps, approvals);
    let result = h.eval(&script).unwrap_or_else(|e| panic!("{e:#}"));
    let log = h.browser.log_tail();
    assert_eq!(result["how"], "complete", "{result}\n{log}");
    result["events"].as_array().unwrap().clone()
}

/// [`converse_with`], accepting every approval as a user watching would.
pub fn converse(h: &mut ExecutorHarness, steps: Value) -> Vec<Value> {
    converse_with(h, steps, Approvals::Accept)
}

/// The chat requests the engine made, in order.
pub fn chat_requests(server: &MockProvider) -> Vec<RecordedRequest> {
    server.requests().into_iter().filter(|r| r.path.ends_with("/chat/completions")).collect()
}

/// The `tool` messages of a chat request (OpenAI wire format), as text.
pub fn tool_results(request: &RecordedRequest) -> Vec<String> {
    let messages = request.json.as_ref().and_then(|j| j["messages"].as_array().cloned());
    messages
        .unwrap_or_default()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| match &m["content"] {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        })
        .collect()
}

/// The tool-call results the UI got (`item.complete` with a result), in order.
pub fn results_of(events: &[Value]) -> Vec<&Value> {
    events
        .iter()
        .filter(|e| e["event"]["type"] == "item.complete")
        .map(|e| &e["event"]["result"])
        .filter(|result| result.is_object())
        .collect()
}

/// Where a scenario's page is served.
enum Origin<'a> {
    /// `http://127.0.0.1:<port>`.
    Loopback,
    /// `http://<host>:<port>`, a `*.test` name the browser maps to the loopback address.
    TestHost(&'a str),
}

/// See the module docs.
#[derive(Debug)]
pub struct Scenario {
    /// The model provider.
    pub server: MockProvider,
    /// The browser and its extension page.
    pub h: ExecutorHarness,
    /// The fixture tab.
    pub tab: Tab,
    /// Its URL.
    pub url: String,
    /// The fixture site (add pages to it).
    pub site: FixtureSite,
}

impl Scenario {
    /// Serves `html` at `path`, opens it in a tab, and runs a first turn.
    pub fn start(path: &str, html: &str) -> Scenario {
        Scenario::start_at(Origin::Loopback, path, html)
    }

    /// As [`Scenario::start`], with the page at `http://<host>:<port>` (`host` ending in
    /// `.test`): an origin of its own, as a real site's, rather than the loopback address.
    pub fn start_on_test_host(host: &str, path: &str, html: &str) -> Scenario {
        Scenario::start_at(Origin::TestHost(host), path, html)
    }

    fn start_at(origin: Origin<'_>, path: &str, html: &str) -> Scenario {
        let server = MockProvider::start();
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let site = FixtureSite::start(root).expect("start the fixture site");
        site.add_page(path, html);
        let (url, mut h) = match origin {
            Origin::Loopback => {
                (site.url(path), ExecutorHarness::launch().expect("launch Chromium"))
            }
            Origin::TestHost(host) => (
                format!("http://{host}:{}{path}", site.port()),
                ExecutorHarness::launch_with_test_hosts().expect("launch Chromium"),
            ),
        };
        configure(&mut h, &server.base_url());
        let tab = h.open_tab(&url).unwrap_or_else(|e| panic!("open {url}: {e:#}"));

        // The first turn names the thread: its title call runs beside the turn's model call and
        // may reach the server first, so both get the same answer.
        server.push(Reply::text("Hello."));
        server.push(Reply::text("Hello."));
        let events = converse(
            &mut h,
            json!([
                {"send": {"type": "thread.create", "submissionId": "create"},
                 "until": "command.ack"},
                {"send": {"type": "thread.subscribe", "submissionId": "sub", "threadId": "$thread"},
                 "until": "thread.snapshot"},
                {"send": {"type": "turn.submit", "submissionId": "hello", "threadId": "$thread",
                    "input": {"text": "Say hello"}}, "until": "turn.complete"},
            ]),
        );
        assert!(events.iter().any(|e| e["event"]["type"] == "turn.complete"));
        server.wait_for_requests(2, Duration::from_secs(20)).expect("the title and the turn");
        Scenario { server, h, tab, url, site }
    }

    /// The fixture tab as a message's browser context (its default tab).
    pub fn browser_context(&self) -> Value {
        json!({"capturedAtMs": 1, "referencedTabs": [],
            "defaultTab": {"tabId": self.tab.0, "windowId": null, "url": self.url, "title": "Fixture"}})
    }

    /// Sends a message from the fixture tab and returns the turn's raw events, after checking
    /// that the turn ended normally.
    pub fn turn(&mut self, text: &str) -> Vec<Value> {
        self.send_turn(text, json!([]), Value::Null, Approvals::Accept)
    }

    /// [`Scenario::turn`] with `attached` context and turn `overrides` (JSON, `null` for none),
    /// answering every approval with `approvals`.
    pub fn send_turn(
        &mut self,
        text: &str,
        attached: Value,
        overrides: Value,
        approvals: Approvals,
    ) -> Vec<Value> {
        let input = json!({"text": text, "browserContext": self.browser_context(),
            "attachedContext": attached});
        let events = converse_with(
            &mut self.h,
            json!([
                {"send": {"type": "thread.subscribe", "submissionId": "sub-2", "threadId": "$thread"},
                 "until": "thread.snapshot"},
                {"send": {"type": "turn.submit", "submissionId": "turn-2", "threadId": "$thread",
                    "input": input, "overrides": overrides},
                 "until": "turn.complete"},
            ]),
            approvals,
        );
        let stops: Vec<StopReason> = events
            .iter()
            .map(|e| decode_event(e["event"].clone()).unwrap_or_else(|err| panic!("{e}: {err}")))
            .filter_map(|f| match &f.event {
                AgentEvent::TurnComplete(c) => Some(c.stop_reason),
                _ => None,
            })
            .collect();
        assert_eq!(stops, [StopReason::End], "{events:#?}");
        events
    }

    /// The tool results of the model calls after the warm-up turn, one list per call.
    pub fn tool_results(&self) -> Vec<Vec<String>> {
        chat_requests(&self.server).iter().skip(2).map(tool_results).collect()
    }
}
