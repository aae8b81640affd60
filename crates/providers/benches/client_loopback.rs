//! End-to-end throughput of `ProviderClient` over loopback: the native transport (reqwest)
//! reading a large Anthropic-style stream from the mock provider, decoding it and delivering
//! every event, printed as MB/s (median of several runs). Run with `cargo bench -p
//! panelot-providers --bench client_loopback`.

// A benchmark of fixed, valid inputs: a failure is a bug to crash on.
#![allow(clippy::expect_used, clippy::print_stdout)]

use std::time::Instant;

use panelot_core::env::AbortSignal;
use panelot_core::model::ContentPart;
use panelot_core::model::Message;
use panelot_core::model::ModelBackend;
use panelot_core::model::ModelRequest;
use panelot_providers::ClientConfig;
use panelot_providers::Connection;
use panelot_providers::ConnectionDraft;
use panelot_providers::NativeHttp;
use panelot_providers::ProviderClient;
use panelot_providers::TokioTimer;
use panelot_providers::VaultKey;
use panelot_providers::WireFormat;
use panelot_testkit::mock_provider::MockProvider;
use panelot_testkit::mock_provider::Reply;

const RUNS: usize = 5;
const TARGET_BYTES: usize = 32 * 1024 * 1024;

fn anthropic_body() -> Vec<u8> {
    let mut body = String::from(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"claude-sonnet-4-5\",\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n\
         event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
    );
    let words = ["The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog"];
    let mut i = 0;
    while body.len() < TARGET_BYTES {
        let word = words[i % words.len()];
        body.push_str(&format!("event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":\"{word}\"}}}}\n\n"));
        i += 1;
    }
    body.push_str(
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
    );
    body.push_str("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":99}}\n\n");
    body.push_str("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    body.into_bytes()
}

fn main() {
    let runtime =
        tokio::runtime::Builder::new_current_thread().enable_all().build().expect("tokio runtime");
    let server = MockProvider::start();
    let body = anthropic_body();
    let vault = VaultKey::from_bytes([1; 32]);
    let draft = ConnectionDraft {
        id: "an".to_owned(),
        kind: Some(WireFormat::Anthropic),
        base_url: server.base_url(),
        api_keys: vec!["ak-bench".to_owned()],
        enabled: true,
        ..ConnectionDraft::default()
    };
    let conn = Connection::from_draft(draft, &vault).expect("connection");
    let http = NativeHttp::new().expect("transport");
    let client = ProviderClient::new(http, TokioTimer, vault, ClientConfig::default());
    client.set_connections([conn]);
    let request = ModelRequest {
        model: "claude-sonnet-4-5".to_owned(),
        messages: vec![Message::User { content: vec![ContentPart::Text("Hi".to_owned())] }],
        ..ModelRequest::default()
    };
    let mut seconds = Vec::new();
    let mut n_events = 0;
    for _ in 0..RUNS {
        server.push(Reply::garbage(body.clone()));
        let start = Instant::now();
        n_events = runtime.block_on(async {
            let mut n = 0usize;
            let mut on_event = |_| n += 1;
            client
                .stream("an", &request, &mut on_event, AbortSignal::default())
                .await
                .expect("complete stream");
            n
        });
        seconds.push(start.elapsed().as_secs_f64());
    }
    seconds.sort_by(f64::total_cmp);
    let median = seconds[RUNS / 2];
    let mb = body.len() as f64 / 1e6;
    println!(
        "client over loopback (anthropic): {mb:.1} MB in {:.1} ms (median of {RUNS}) = {:.0} MB/s; {n_events} events",
        median * 1e3,
        mb / median
    );
}
