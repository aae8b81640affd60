//! The mock provider over real loopback HTTP: both stream formats, errors, stalls,
//! truncation, recording, invariants, the empty script and CORS.

use std::net::Shutdown;
use std::sync::mpsc;
use std::thread;

use panelot_testkit::mock_provider::Gate;
use panelot_testkit::mock_provider::MockProvider;
use panelot_testkit::mock_provider::Reply;
use panelot_testkit::mock_provider::Usage;
use panelot_testkit::mock_provider::Violation;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;

use super::http_client::DEADLINE;
use super::http_client::Data;
use super::http_client::get;
use super::http_client::post_json;
use super::http_client::post_request;
use super::http_client::send;
use super::http_client::send_raw;
use super::http_client::stream_lines;

const CHAT: &str = "/v1/chat/completions";
const MESSAGES: &str = "/v1/messages";

fn chat_body() -> Value {
    json!({"model": "gpt-test", "stream": true, "messages": [{"role": "user", "content": "hi"}]})
}

fn messages_body() -> Value {
    json!({"model": "claude-test", "stream": true, "max_tokens": 100,
           "messages": [{"role": "user", "content": "hi"}]})
}

/// An OpenAI chunk of request 1 as the mock sends it.
fn chunk(delta: Value, finish_reason: Value) -> Value {
    json!({
        "id": "chatcmpl-mock-1",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": "gpt-test",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    })
}

#[test]
fn openai_text_streams_in_order_and_ends_with_done() {
    let server = MockProvider::start();
    server.push(Reply::text("Hel").then_text("lo").usage(Usage::new(12, 2).cached(4)));

    let res = post_json(server.addr(), CHAT, &chat_body());

    assert_eq!(res.status, 200);
    assert_eq!(res.header("content-type"), Some("text/event-stream"));
    assert_eq!(res.header("access-control-allow-origin"), Some("*"));
    let mut last = chunk(json!({}), json!("stop"));
    last["usage"] = json!({
        "prompt_tokens": 12,
        "completion_tokens": 2,
        "total_tokens": 14,
        "prompt_tokens_details": {"cached_tokens": 4},
    });
    assert_eq!(
        res.data(),
        vec![
            Data::Json(chunk(json!({"role": "assistant", "content": ""}), Value::Null)),
            Data::Json(chunk(json!({"content": "Hel"}), Value::Null)),
            Data::Json(chunk(json!({"content": "lo"}), Value::Null)),
            Data::Json(last),
            Data::Text("[DONE]".to_owned()),
        ]
    );
    assert_eq!(server.pending_replies(), 0);
}

#[test]
fn openai_reasoning_and_unknown_finish_reason_pass_verbatim() {
    let server = MockProvider::start();
    server.push(Reply::reasoning("hmm").then_text("ok").finish("eaten_by_a_grue"));

    let data = post_json(server.addr(), CHAT, &chat_body()).data();

    assert_eq!(data[1], Data::Json(chunk(json!({"reasoning_content": "hmm"}), Value::Null)));
    assert_eq!(data[3], Data::Json(chunk(json!({}), json!("eaten_by_a_grue"))));
    assert_eq!(data[4], Data::Text("[DONE]".to_owned()));
}

#[test]
fn openai_tool_call_fragments_concatenate_to_the_arguments() {
    let arguments = json!({"ref": "e12", "button": "left", "note": "ünïcödé ✓"});
    let server = MockProvider::start();
    server.push(Reply::tool_call("click", arguments.clone()));
    server.push(Reply::tool_call("type", json!({"text": "a"})).with_id("call_x").in_one_chunk());

    let data = post_json(server.addr(), CHAT, &chat_body()).data();

    let deltas: Vec<&Value> = data
        .iter()
        .filter_map(|data| match data {
            Data::Json(json) => json["choices"][0]["delta"]["tool_calls"].get(0),
            Data::Text(_) => None,
        })
        .collect();
    assert_eq!(
        deltas[0],
        &json!({"index": 0, "id": "call_mock_1_0", "type": "function",
                "function": {"name": "click", "arguments": ""}})
    );
    let fragments: Vec<&str> = deltas[1..]
        .iter()
        .map(|delta| {
            assert_eq!(delta["index"], 0);
            delta["function"]["arguments"].as_str().expect("a fragment")
        })
        .collect();
    assert!(fragments.len() > 2, "arguments should arrive in pieces: {fragments:?}");
    let joined: Value = serde_json::from_str(&fragments.concat()).expect("fragments join to JSON");
    assert_eq!(joined, arguments);
    let last = &data[data.len() - 2];
    assert_eq!(last, &Data::Json(chunk(json!({}), json!("tool_calls"))));

    // A local-server style call: id, name and all arguments in one delta.
    let data = post_json(server.addr(), CHAT, &chat_body()).data();
    let Data::Json(whole) = &data[1] else { panic!("a JSON chunk, got {:?}", data[1]) };
    assert_eq!(
        whole["choices"][0]["delta"]["tool_calls"],
        json!([{"index": 0, "id": "call_x", "type": "function",
                "function": {"name": "type", "arguments": "{\"text\":\"a\"}"}}])
    );
    assert_eq!(data.len(), 4, "role, the call, finish, [DONE]: {data:?}");
}

#[test]
fn anthropic_stream_has_the_documented_event_sequence() {
    let arguments = json!({"ref": "e3", "clicks": 2});
    let server = MockProvider::start();
    server.push(
        Reply::reasoning("Let me ")
            .then_reasoning("think.")
            .signature("sig-1")
            .then_text("Clicking.")
            .then_tool_call("click", arguments.clone())
            .usage(Usage::new(30, 7).cached(10).cache_write(5)),
    );

    let res = post_json(server.addr(), MESSAGES, &messages_body());

    assert_eq!(res.status, 200);
    let events: Vec<(String, Value)> = res
        .events()
        .into_iter()
        .map(|(name, data)| {
            (name.expect("every event is named"), serde_json::from_str(&data).expect("JSON data"))
        })
        .collect();
    for (name, data) in &events {
        assert_eq!(data["type"], json!(name), "event name and data type agree");
    }
    // Event names, with the block or delta type where there is one.
    let shape: Vec<String> = events
        .iter()
        .map(|(name, data)| {
            let detail = data["content_block"]["type"].as_str().or(data["delta"]["type"].as_str());
            match detail {
                Some(detail) => format!("{name} {detail}"),
                None => name.clone(),
            }
        })
        .collect();
    let n_fragments = shape.iter().filter(|s| *s == "content_block_delta input_json_delta").count();
    let mut expected = vec![
        "message_start",
        "ping",
        "content_block_start thinking",
        "content_block_delta thinking_delta",
        "content_block_delta thinking_delta",
        "content_block_delta signature_delta",
        "content_block_stop",
        "content_block_start text",
        "content_block_delta text_delta",
        "content_block_stop",
        "content_block_start tool_use",
    ];
    expected.extend(std::iter::repeat_n("content_block_delta input_json_delta", n_fragments));
    expected.extend(["content_block_stop", "message_delta", "message_stop"]);
    assert_eq!(shape, expected);
    assert!(n_fragments > 2, "tool input should arrive in pieces");

    let data = |idx: usize| &events[idx].1;
    assert_eq!(data(0)["message"]["model"], "claude-test");
    assert_eq!(
        data(0)["message"]["usage"],
        json!({"input_tokens": 30, "output_tokens": 0,
               "cache_read_input_tokens": 10, "cache_creation_input_tokens": 5})
    );
    assert_eq!(data(5)["delta"]["signature"], "sig-1");
    assert_eq!(data(8)["delta"]["text"], "Clicking.");
    assert_eq!(
        data(10)["content_block"],
        json!({"type": "tool_use", "id": "toolu_mock_1_0", "name": "click", "input": {}})
    );
    let partial: String = events[11..11 + n_fragments]
        .iter()
        .map(|(_, data)| data["delta"]["partial_json"].as_str().expect("partial_json"))
        .collect();
    assert_eq!(serde_json::from_str::<Value>(&partial).expect("input JSON"), arguments);
    let block_indexes: Vec<&Value> =
        events.iter().filter_map(|(_, data)| data.get("index")).collect();
    assert!(block_indexes.windows(2).all(|pair| pair[0].as_u64() <= pair[1].as_u64()));
    let message_delta = &events[events.len() - 2].1;
    assert_eq!(
        message_delta,
        &json!({"type": "message_delta",
                "delta": {"stop_reason": "tool_use", "stop_sequence": null},
                "usage": {"output_tokens": 7}})
    );
}

#[test]
fn error_replies_carry_status_body_and_retry_after() {
    let server = MockProvider::start();
    let body = json!({"error": {"type": "rate_limit_error", "message": "slow down"}});
    server.push(Reply::error(429, body.clone()).retry_after(2));
    server.push(Reply::html_error(502));
    server.push(Reply::error(503, "upstream unavailable").header("x-request-id", "req-9"));

    let res = post_json(server.addr(), MESSAGES, &messages_body());
    assert_eq!(res.status, 429);
    assert_eq!(res.header("retry-after"), Some("2"));
    assert_eq!(res.header("content-type"), Some("application/json"));
    assert_eq!(res.json(), body);

    let res = post_json(server.addr(), CHAT, &chat_body());
    assert_eq!(res.status, 502);
    assert_eq!(res.header("content-type"), Some("text/html"));
    assert!(res.text().contains("<h1>502 Bad Gateway</h1>"), "{}", res.text());

    let res = post_json(server.addr(), CHAT, &chat_body());
    assert_eq!(res.status, 503);
    assert_eq!(res.header("x-request-id"), Some("req-9"));
    assert_eq!(res.header("retry-after"), None);
    assert_eq!(res.text(), "upstream unavailable");
}

#[test]
fn a_stall_holds_the_stream_until_released() {
    let server = MockProvider::start();
    let gate = Gate::new();
    server.push(Reply::text("Hel").then_stall(&gate).then_text("lo"));

    let stream = stream_lines(server.addr(), &post_request(server.addr(), CHAT, &chat_body()));
    let before = stream.lines_until("Hel");
    assert!(before[0].starts_with("HTTP/1.1 200"), "{before:?}");
    assert!(gate.wait_reached(1, DEADLINE), "the stream never reached the gate");
    // Everything before the gate has been read; the server is parked at the gate, so no
    // further line can be on its way.
    assert_eq!(stream.lines.try_recv(), Err(mpsc::TryRecvError::Empty));

    gate.release();
    let after = stream.rest();
    assert!(after[0].contains(r#""content":"lo""#), "{after:?}");
    assert_eq!(after.last().map(String::as_str), Some("data: [DONE]"));
}

#[test]
fn a_stall_before_the_head_sends_nothing_until_released() {
    let server = MockProvider::start();
    let gate = Gate::new();
    server.push(Reply::stall(&gate).then_text("late"));

    let stream =
        stream_lines(server.addr(), &post_request(server.addr(), MESSAGES, &messages_body()));
    assert!(gate.wait_reached(1, DEADLINE), "the request never reached the gate");
    assert_eq!(stream.lines.try_recv(), Err(mpsc::TryRecvError::Empty));

    gate.release();
    let lines = stream.rest();
    assert!(lines[0].starts_with("HTTP/1.1 200"), "{lines:?}");
    assert!(lines.iter().any(|line| line.contains(r#""text":"late""#)), "{lines:?}");
    assert_eq!(lines.last().map(String::as_str), Some(r#"data: {"type":"message_stop"}"#));
}

#[test]
fn a_held_reply_waits_for_its_gate_whatever_it_is() {
    let server = MockProvider::start();
    let gate = Gate::new();
    server.push(Reply::tool_call("click", json!({"ref": "e1"})).held(&gate));

    let stream = stream_lines(server.addr(), &post_request(server.addr(), CHAT, &chat_body()));
    assert!(gate.wait_reached(1, DEADLINE), "the request never reached the gate");
    assert_eq!(stream.lines.try_recv(), Err(mpsc::TryRecvError::Empty));

    gate.release();
    let lines = stream.rest();
    assert!(lines[0].starts_with("HTTP/1.1 200"), "{lines:?}");
    assert!(lines.iter().any(|line| line.contains(r#""finish_reason":"tool_calls""#)), "{lines:?}");
}

#[test]
fn the_responder_answers_what_the_queue_does_not_from_the_request() {
    let server = MockProvider::start();
    server.push(Reply::text("queued first"));
    // A "model" that echoes the last message it was sent, and has nothing to say to a request
    // without messages.
    server.set_responder(|request| {
        let body = request.json.as_ref()?;
        let last = body["messages"].as_array()?.last()?["content"].as_str()?.to_owned();
        Some(Reply::text(format!("you said {last}")))
    });

    let first = post_json(server.addr(), CHAT, &chat_body());
    let second = post_json(server.addr(), CHAT, &chat_body());
    let unanswered = post_json(server.addr(), CHAT, &json!({"model": "m", "messages": []}));
    server.clear_responder();
    let exhausted = post_json(server.addr(), CHAT, &chat_body());

    let text = |res: &super::http_client::Response| -> String {
        res.data()
            .iter()
            .filter_map(|d| match d {
                Data::Json(chunk) => chunk["choices"][0]["delta"]["content"].as_str(),
                Data::Text(_) => None,
            })
            .collect()
    };
    assert_eq!(text(&first), "queued first");
    assert_eq!(text(&second), "you said hi");
    assert_eq!((unanswered.status, exhausted.status), (500, 500));
    assert_eq!(server.requests().len(), 4);
}

#[test]
fn a_client_disconnect_ends_a_stall() {
    let server = MockProvider::start();
    let never = Gate::new();
    server.push(Reply::text("waiting").then_stall(&never));
    let stream = stream_lines(server.addr(), &post_request(server.addr(), CHAT, &chat_body()));
    assert!(never.wait_reached(1, DEADLINE));
    assert_eq!(server.open_connections(), 1);

    stream.stream.shutdown(Shutdown::Both).expect("client hangs up");

    server.wait_for_idle(DEADLINE).expect("the server noticed the client left");
    assert!(!never.is_released());
}

#[test]
fn dropping_the_server_ends_a_stream_stalled_forever() {
    let server = MockProvider::start();
    let never = Gate::new();
    server.push(Reply::text("waiting").then_stall(&never));
    let stream = stream_lines(server.addr(), &post_request(server.addr(), CHAT, &chat_body()));
    assert!(never.wait_reached(1, DEADLINE));

    let (dropped, done) = mpsc::channel();
    thread::spawn(move || {
        drop(server);
        let _ = dropped.send(());
    });

    assert_eq!(done.recv_timeout(DEADLINE), Ok(()), "drop did not return");
    let lines = stream.rest();
    assert!(!lines.iter().any(|line| line.contains("[DONE]")), "{lines:?}");
    assert!(!never.is_released());
}

#[test]
fn a_truncated_reply_stops_without_finish_or_terminator() {
    let server = MockProvider::start();
    server.push(Reply::text("Half an ans").truncated().then_text("never sent"));
    server.push(Reply::tool_call("click", json!({"ref": "e1"})).truncated());

    let data = post_json(server.addr(), CHAT, &chat_body()).data();
    assert_eq!(
        data,
        vec![
            Data::Json(chunk(json!({"role": "assistant", "content": ""}), Value::Null)),
            Data::Json(chunk(json!({"content": "Half an ans"}), Value::Null)),
        ]
    );

    let events = post_json(server.addr(), MESSAGES, &messages_body()).events();
    let names: Vec<&str> = events.iter().filter_map(|(name, _)| name.as_deref()).collect();
    assert_eq!(names.last(), Some(&"content_block_delta"));
    assert!(
        !names.contains(&"content_block_stop") && !names.contains(&"message_stop"),
        "{names:?}"
    );
}

#[test]
fn garbage_and_raw_responses_are_sent_byte_for_byte() {
    let server = MockProvider::start();
    let garbage: Vec<u8> = (0..=255).collect();
    server.push(Reply::garbage(garbage.clone()));
    server.push(Reply::raw_response(b"SSH-2.0-OpenSSH\r\n".to_vec()));

    let res = post_json(server.addr(), CHAT, &chat_body());
    assert_eq!(res.status, 200);
    assert_eq!(res.body, garbage);

    let raw = send_raw(server.addr(), &post_request(server.addr(), CHAT, &chat_body()));
    assert_eq!(raw, b"SSH-2.0-OpenSSH\r\n");
}

#[test]
fn requests_are_recorded_with_headers_and_bodies() {
    let server = MockProvider::start();
    server.push(Reply::text("one"));
    let body = json!({"model": "m", "stream": true, "stream_options": {"include_usage": true},
                      "messages": [{"role": "user", "content": "chunked"}]});
    let text = body.to_string();
    let (first, second) = text.split_at(10);
    // A chunked body, as `fetch` sends a streamed request body.
    let request = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer sk-test\r\n\
         Transfer-Encoding: chunked\r\n\r\n{:x};ext=1\r\n{first}\r\n{:x}\r\n{second}\r\n0\r\n\r\n",
        first.len(),
        second.len()
    );
    assert_eq!(send(server.addr(), request.as_bytes()).status, 200);
    assert_eq!(get(server.addr(), "/v1/models?limit=5").status, 200);

    let requests = server.wait_for_requests(2, DEADLINE).expect("two requests");
    assert_eq!(requests.len(), 2);
    let chat = &requests[0];
    assert_eq!((chat.method.as_str(), chat.path.as_str()), ("POST", CHAT));
    assert_eq!(chat.header("authorization"), Some("Bearer sk-test"));
    assert_eq!(chat.header("Authorization"), Some("Bearer sk-test"));
    assert_eq!(chat.json.as_ref(), Some(&body));
    assert_eq!(chat.body, text.as_bytes());
    let models = &requests[1];
    assert_eq!((models.method.as_str(), models.path.as_str()), ("GET", "/v1/models"));
    assert_eq!(models.query.as_deref(), Some("limit=5"));
    assert_eq!(models.json, None);
}

#[test]
fn tool_results_without_a_matching_tool_call_are_violations() {
    let server = MockProvider::start();
    for _ in 0..5 {
        server.push(Reply::text("ok"));
    }
    let openai_ok = json!({"model": "m", "messages": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function",
            "function": {"name": "click", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "done"},
    ]});
    let openai_orphan = json!({"model": "m", "messages": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function",
            "function": {"name": "click", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_2", "content": "done"},
    ]});
    let anthropic_ok = json!({"model": "m", "max_tokens": 10, "messages": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "click", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "done"}]},
    ]});
    let anthropic_orphan = json!({"model": "m", "max_tokens": 10, "messages": [
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_9", "content": "?"}]},
    ]});

    let anthropic_misordered = json!({"model": "m", "max_tokens": 10, "messages": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_a", "name": "click", "input": {}}]},
        {"role": "user", "content": "never mind"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_b", "name": "click", "input": {}}]},
        {"role": "user", "content": [
            {"type": "text", "text": "here:"},
            {"type": "tool_result", "tool_use_id": "toolu_b", "content": "done"},
        ]},
    ]});

    for (path, body) in [
        (CHAT, &openai_ok),
        (CHAT, &openai_orphan),
        (MESSAGES, &anthropic_ok),
        (MESSAGES, &anthropic_orphan),
        (MESSAGES, &anthropic_misordered),
    ] {
        assert_eq!(post_json(server.addr(), path, body).status, 200, "answered regardless");
    }

    assert_eq!(
        server.violations(),
        vec![
            Violation {
                request_index: 1,
                path: CHAT.to_owned(),
                message: r#"messages[2]: tool result for "call_2", which no earlier assistant tool call has"#.to_owned(),
            },
            Violation {
                request_index: 1,
                path: CHAT.to_owned(),
                message: r#"the request ends before results for tool calls ["call_1"]"#.to_owned(),
            },
            Violation {
                request_index: 3,
                path: MESSAGES.to_owned(),
                message: r#"messages[0]: tool_result for "toolu_9", which no earlier tool_use has"#.to_owned(),
            },
            Violation {
                request_index: 4,
                path: MESSAGES.to_owned(),
                message: r#"messages[2] (user) does not answer tool_use ["toolu_a"] of the message before"#.to_owned(),
            },
            Violation {
                request_index: 4,
                path: MESSAGES.to_owned(),
                message: r#"messages[4]: tool_result for "toolu_b" comes after other content"#.to_owned(),
            },
        ]
    );
}

#[test]
fn an_empty_script_answers_500_naming_the_path() {
    let server = MockProvider::start();

    let res = post_json(server.addr(), MESSAGES, &messages_body());

    assert_eq!(res.status, 500);
    let message = res.json()["error"]["message"].as_str().expect("an error message").to_owned();
    assert!(message.contains("POST /v1/messages"), "{message}");
    assert!(message.contains("no scripted reply"), "{message}");
}

#[test]
fn options_preflight_answers_cors() {
    let server = MockProvider::start();
    let request = format!(
        "OPTIONS {MESSAGES} HTTP/1.1\r\nHost: x\r\nOrigin: chrome-extension://abc\r\n\
         Access-Control-Request-Method: POST\r\n\
         Access-Control-Request-Headers: content-type, x-custom-header\r\n\r\n"
    );

    let res = send(server.addr(), request.as_bytes());

    assert_eq!(res.status, 204);
    assert_eq!(res.header("access-control-allow-origin"), Some("*"));
    assert!(res.header("access-control-allow-methods").is_some_and(|m| m.contains("POST")));
    let allowed = res.header("access-control-allow-headers").expect("allowed headers");
    for name in [
        "authorization",
        "x-api-key",
        "anthropic-version",
        "content-type",
        "anthropic-dangerous-direct-browser-access",
        "x-custom-header",
    ] {
        assert!(allowed.split(", ").any(|allowed| allowed == name), "{name} in {allowed}");
    }
    assert_eq!(server.pending_replies(), 0);
    assert_eq!(server.requests()[0].method, "OPTIONS");
}

#[test]
fn models_are_listed_from_the_script_and_can_fail() {
    let server = MockProvider::start();
    server.set_models(["gpt-a", "gpt-b"]);
    server.push_models_reply(Reply::error(401, json!({"error": {"message": "bad key"}})));

    assert_eq!(get(server.addr(), "/v1/models").status, 401);
    let res = get(server.addr(), "/v1/models");
    assert_eq!(res.status, 200);
    let list = res.json();
    let ids: Vec<&str> = list["data"]
        .as_array()
        .expect("a data array")
        .iter()
        .map(|model| model["id"].as_str().expect("an id"))
        .collect();
    assert_eq!(ids, ["gpt-a", "gpt-b"]);
    // The Anthropic listing fields ride along.
    assert_eq!((&list["first_id"], &list["has_more"]), (&json!("gpt-a"), &json!(false)));
}

#[test]
fn the_server_can_be_shared_with_other_threads_and_async_code() {
    fn send_sync<T: Send + Sync + 'static>() {}
    send_sync::<MockProvider>();
    send_sync::<Reply>();
    send_sync::<Gate>();
}
