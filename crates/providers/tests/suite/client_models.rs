//! Model listing across connections (each in its own budget), verification, and cost from the
//! usage both adapters report.

use panelot_core::env::AbortSignal;
use panelot_core::model::ContentPart;
use panelot_core::model::Message;
use panelot_core::model::ToolSpec;
use panelot_core::model::Withheld;
use panelot_protocol::engine::ConnectionCheckFailure;
use panelot_protocol::engine::ProviderErrorKind;
use panelot_protocol::engine::Usage;
use panelot_providers::ClientConfig;
use panelot_providers::ModelEntry;
use panelot_providers::Pricing;
use panelot_providers::VerifyFailure;
use panelot_providers::WireFormat;
use panelot_providers::cost_usd;
use panelot_testkit::mock_provider::Gate;
use panelot_testkit::mock_provider::MockProvider;
use panelot_testkit::mock_provider::Reply;
use panelot_testkit::mock_provider::Usage as MockUsage;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::harness::FakeTimer;
use super::harness::anthropic_at;
use super::harness::call;
use super::harness::chat_requests;
use super::harness::client;
use super::harness::client_with;
use super::harness::connection;
use super::harness::hello;
use super::harness::keys_sent;
use super::harness::openai_at;

#[tokio::test]
async fn listing_runs_per_connection_and_one_stall_or_failure_blocks_nothing() {
    let fine = MockProvider::start();
    fine.set_models(["gpt-a", "gpt-b", "gpt-a"]);
    let stalled = MockProvider::start();
    let gate = Gate::new();
    stalled.push_models_reply(Reply::stall(&gate));
    let refused = MockProvider::start();
    for _ in 0..4 {
        refused.push_models_reply(Reply::error(401, json!({"error": {"message": "no"}})));
    }
    let anthropic = MockProvider::start();
    anthropic.set_models(["claude-x"]);
    let mut manual = connection("e-manual", WireFormat::OpenAi, "https://example.invalid/v1", &[]);
    manual.model_ids = vec!["hand-picked".to_owned()];
    let mut disabled =
        connection("f-off", WireFormat::OpenAi, &format!("{}/v1", fine.base_url()), &[]);
    disabled.enabled = false;
    let conns = vec![
        connection("a-fine", WireFormat::OpenAi, &format!("{}/v1", fine.base_url()), &["sk-a"]),
        connection("b-stalled", WireFormat::OpenAi, &format!("{}/v1", stalled.base_url()), &[]),
        connection(
            "c-refused",
            WireFormat::OpenAi,
            &format!("{}/v1", refused.base_url()),
            &["sk-c"],
        ),
        connection("d-anthropic", WireFormat::Anthropic, &anthropic.base_url(), &["ak-d"]),
        manual,
        disabled,
    ];
    let timer = FakeTimer::with_real_timeouts();
    let config = ClientConfig { list_budget_ms: 1_000, ..ClientConfig::default() };
    let client = client_with(&timer, config, conns);
    let listed = client.list_all_models(&AbortSignal::default()).await;
    type Outcome = Result<Vec<String>, Option<String>>;
    let summary: Vec<(String, Outcome)> = listed
        .into_iter()
        .map(|entry| (entry.connection_id, entry.models.map_err(|err| err.details.reason)))
        .collect();
    let ok = |ids: &[&str]| Ok(ids.iter().map(|id| (*id).to_owned()).collect());
    assert_eq!(
        summary,
        vec![
            ("a-fine".to_owned(), ok(&["gpt-a", "gpt-b"])),
            ("b-stalled".to_owned(), Err(Some("stalled".to_owned()))),
            ("c-refused".to_owned(), Err(Some("invalid_key".to_owned()))),
            ("d-anthropic".to_owned(), ok(&["claude-x"])),
            ("e-manual".to_owned(), ok(&["hand-picked"])),
        ]
    );
    let fine_requests = fine.requests();
    assert_eq!(
        (fine_requests[0].method.as_str(), fine_requests[0].path.as_str()),
        ("GET", "/v1/models")
    );
    assert_eq!(keys_sent(&fine_requests), ["sk-a"]);
    let anthropic_requests = anthropic.requests();
    assert_eq!(anthropic_requests[0].path, "/v1/models");
    assert_eq!(anthropic_requests[0].header("x-api-key"), Some("ak-d"));
}

#[tokio::test]
async fn a_malformed_model_list_is_a_protocol_error() {
    let server = MockProvider::start();
    server.push_models_reply(Reply::error(200, json!({"models": ["x"]})));
    let timer = FakeTimer::new();
    let client = client(&timer, vec![openai_at(&server, &[])]);
    let err = client.list_models("oa", &AbortSignal::default()).await.unwrap_err();
    assert_eq!(err.kind, ProviderErrorKind::Protocol);
}

#[tokio::test]
async fn verify_lists_streams_and_does_a_tool_round_trip() {
    let server = MockProvider::start();
    server.set_models(["mock-model", "other"]);
    server.push(Reply::text("OK"));
    server.push(Reply::tool_call("echo", json!({"text": "ping"})));
    server.push(Reply::text("ping"));
    let timer = FakeTimer::new();
    let conn = openai_at(&server, &["sk-v"]);
    let client = client(&timer, Vec::new());
    let report = client.verify(&conn, None, &AbortSignal::default()).await;
    assert_eq!(
        (report.reachable, report.key_valid, report.streaming, report.tool_use, report.failure),
        (true, true, true, true, None)
    );
    assert_eq!(report.models, Some(vec!["mock-model".to_owned(), "other".to_owned()]));
    assert_eq!(report.model.as_deref(), Some("mock-model"));
    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    // The tool result went back to the model, paired with its call.
    assert!(server.violations().is_empty());
    let last = requests[3].json.as_ref().unwrap();
    assert_eq!(last["messages"].as_array().unwrap().last().unwrap()["role"], json!("tool"));
}

#[tokio::test]
async fn verify_reports_a_rejected_key_and_a_model_that_never_calls_the_tool() {
    let server = MockProvider::start();
    for _ in 0..4 {
        server.push_models_reply(Reply::error(401, json!({"error": {"message": "bad key"}})));
    }
    let timer = FakeTimer::new();
    let client = client(&timer, Vec::new());
    let report =
        client.verify(&anthropic_at(&server, &["ak-bad"]), None, &AbortSignal::default()).await;
    assert_eq!(
        (report.reachable, report.key_valid, report.failure),
        (true, false, Some(VerifyFailure::InvalidKey))
    );
    // The settings page's view names the failure and carries the provider's diagnosis.
    let check = report.to_check();
    assert_eq!(check.failure, Some(ConnectionCheckFailure::InvalidKey));
    assert!(check.diagnosis.is_some_and(|d| !d.is_empty()));
    let chatty = MockProvider::start();
    chatty.push(Reply::text("OK"));
    chatty.push(Reply::text("I would rather not."));
    let report = client.verify(&openai_at(&chatty, &[]), None, &AbortSignal::default()).await;
    assert_eq!((report.streaming, report.tool_use), (true, false));
    assert_eq!(report.failure, Some(VerifyFailure::NoToolUse));
}

const PRICE: Pricing =
    Pricing { input: 3.0, output: 15.0, cache_read: Some(0.3), cache_write: Some(3.75) };

#[tokio::test]
async fn cached_tokens_cost_the_same_through_both_wire_formats() {
    let openai = MockProvider::start();
    // OpenAI: prompt_tokens 1,000 of which 800 were read from the cache.
    openai.push(Reply::text("a").usage(MockUsage::new(1_000, 50).cached(800)));
    let anthropic = MockProvider::start();
    // Anthropic: input_tokens 200 beside 800 cache reads.
    anthropic.push(Reply::text("a").usage(MockUsage::new(200, 50).cached(800)));
    anthropic.push(Reply::text("b").usage(MockUsage::new(50, 10).cached(800).cache_write(150)));
    let timer = FakeTimer::new();
    let client = client(&timer, vec![openai_at(&openai, &[]), anthropic_at(&anthropic, &[])]);
    let from_openai = call(&client, "oa", &hello()).await.1.unwrap().usage;
    let from_anthropic = call(&client, "an", &hello()).await.1.unwrap().usage;
    let expected = Usage { input: 1_000, output: 50, cache_read: Some(800), cache_write: None };
    assert_eq!(from_openai, expected);
    assert_eq!(from_anthropic, Usage { cache_write: Some(0), ..expected });
    let cost = (200.0 * 3.0 + 800.0 * 0.3 + 50.0 * 15.0) / 1e6;
    assert!((cost_usd(&from_openai, &PRICE) - cost).abs() < 1e-12);
    assert!((cost_usd(&from_anthropic, &PRICE) - cost).abs() < 1e-12);
    let with_write = call(&client, "an", &hello()).await.1.unwrap().usage;
    assert_eq!(with_write.input, 1_000);
    let cost = (50.0 * 3.0 + 800.0 * 0.3 + 150.0 * 3.75 + 10.0 * 15.0) / 1e6;
    assert!((cost_usd(&with_write, &PRICE) - cost).abs() < 1e-12);
}

/// The engine's calls are priced from the connection's model entry, and what the entry says the
/// model cannot take (tools, images) never reaches the endpoint and is reported.
#[tokio::test]
async fn a_call_is_priced_by_its_model_entry_and_withholds_what_the_model_cannot_take() {
    let server = MockProvider::start();
    server.push(Reply::text("a").usage(MockUsage::new(1_000, 50).cached(800)));
    server.push(Reply::text("b").usage(MockUsage::new(1_000, 50)));
    let mut priced = openai_at(&server, &[]);
    priced.models = vec![ModelEntry {
        id: "mock-model".to_owned(),
        tool_use: Some(false),
        pricing: Some(PRICE),
        ..ModelEntry::default()
    }];
    let mut unpriced = openai_at(&server, &[]);
    unpriced.id = "plain".to_owned();
    let timer = FakeTimer::new();
    let client = client(&timer, vec![priced, unpriced]);
    let mut request = hello();
    request.tools = vec![ToolSpec {
        name: "click".to_owned(),
        description: "Clicks.".to_owned(),
        parameters: json!({"type": "object"}),
    }];
    request.messages = vec![Message::User {
        content: vec![
            ContentPart::Text("What is this?".to_owned()),
            ContentPart::Image { mime: "image/png".to_owned(), data_base64: "iVBORw0K".to_owned() },
        ],
    }];
    let response = call(&client, "oa", &request).await.1.unwrap();
    let cost = (200.0 * 3.0 + 800.0 * 0.3 + 50.0 * 15.0) / 1e6;
    assert!(response.cost_usd.is_some_and(|c| (c - cost).abs() < 1e-12), "{response:?}");
    // The built-in table does not know `mock-model`: nothing says it sees images.
    assert_eq!(response.withheld, Withheld { tools: true, images: 1, screenshot: false });
    let sent = chat_requests(&server)[0].json.clone().unwrap();
    assert!(sent.get("tools").is_none(), "{sent}");
    assert!(!sent.to_string().contains("iVBORw0K"), "{sent}");
    assert!(sent.to_string().contains("does not read images"), "{sent}");
    // Without an entry: no price, and the tools are offered (unknown models use tools).
    request.messages.truncate(0);
    request.messages.push(Message::User { content: vec![ContentPart::Text("Hi".to_owned())] });
    let response = call(&client, "plain", &request).await.1.unwrap();
    assert_eq!((response.cost_usd, response.withheld), (None, Withheld::default()));
    assert!(chat_requests(&server)[1].json.as_ref().unwrap().get("tools").is_some());
}
