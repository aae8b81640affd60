//! The accept loop and one exchange per connection: read, record, check session and auth,
//! answer as JSON or as an event stream.

use std::io::BufReader;
use std::io::Write;
use std::net::Shutdown;
use std::net::TcpListener;
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread;
use std::time::Duration;

use serde_json::Value;
use serde_json::json;

use super::McpRequest;
use super::Misbehaviour;
use super::ResponseMode;
use super::Shared;
use crate::mock_provider::http;
use crate::mock_provider::http::ReadError;
use crate::mock_provider::http::Request;

/// How long a socket read or write may block.
const IO_TIMEOUT: Duration = Duration::from_secs(60);
/// How long `slow` and `ask` wait for the client.
const WAIT: Duration = Duration::from_secs(30);
const SUPPORTED: [&str; 2] = ["2025-06-18", "2025-03-26"];

type Headers = Vec<(String, String)>;

/// Accepts connections until the server shuts down, one thread per connection.
pub(super) fn accept_loop(listener: &TcpListener, shared: &Arc<Shared>) {
    for incoming in listener.incoming() {
        if shared.shutting_down.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = incoming else { continue };
        let shared = Arc::clone(shared);
        // A thread that cannot start drops the connection; the client sees that.
        let _ = thread::Builder::new()
            .name("mock-mcp-conn".to_owned())
            .spawn(move || serve(&stream, &shared));
    }
}

fn serve(stream: &TcpStream, shared: &Shared) {
    let _ = stream.set_nodelay(true);
    let _ = stream.set_read_timeout(Some(IO_TIMEOUT));
    let _ = stream.set_write_timeout(Some(IO_TIMEOUT));
    let mut reader = BufReader::new(stream);
    let send_continue = || {
        let mut stream = stream;
        stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")
    };
    let mut out = Out { stream, cors: true };
    match http::read_request(&mut reader, send_continue) {
        Ok(request) => {
            let body = serde_json::from_slice(&request.body).ok();
            shared.lock().requests.push(McpRequest {
                http_method: request.method.clone(),
                target: request.target.clone(),
                headers: request.headers.clone(),
                body: body.clone(),
            });
            shared.changed.notify_all();
            // A failed write means the client left; the test sees that on its side.
            let _ = route(shared, &request, body, &mut out);
        }
        Err(ReadError::Closed) => return,
        Err(ReadError::Malformed(reason)) => {
            let _ = out.text(400, &[], &reason);
        }
    }
    let _ = stream.shutdown(Shutdown::Write);
}

fn route(
    shared: &Shared,
    request: &Request,
    body: Option<Value>,
    out: &mut Out<'_>,
) -> std::io::Result<()> {
    if request.method == "OPTIONS" {
        return out.head(204, None, &http::preflight_headers(request));
    }
    if let Some(token) = &shared.config.require_token
        && request.header("authorization") != Some(&format!("Bearer {token}"))
    {
        let host = request.header("host").unwrap_or("127.0.0.1");
        let challenge = format!(
            "Bearer resource_metadata=\"http://{host}/.well-known/oauth-protected-resource/mcp\", \
             scope=\"mcp:tools\""
        );
        return out.text(401, &[("WWW-Authenticate".to_owned(), challenge)], "unauthorized");
    }
    if let Some(oauth) = &shared.config.oauth {
        if let Some(served) = super::oauth::route(shared, oauth, request, out) {
            return served;
        }
        if request.path() == "/mcp"
            && let Err(refused) = super::oauth::guard(shared, oauth, request, body.as_ref(), out)
        {
            return refused;
        }
    }
    if request.path() != "/mcp" {
        return out.text(404, &[], "no such endpoint");
    }
    let session = request.header("mcp-session-id");
    let known = |shared: &Shared| session.is_some_and(|id| shared.lock().sessions.contains(id));
    match request.method.as_str() {
        "DELETE" => {
            let removed = session.is_some_and(|id| shared.lock().sessions.remove(id));
            out.text(if removed { 200 } else { 404 }, &[], "")
        }
        "GET" => {
            let Some(last) = request.header("last-event-id") else {
                return standalone(shared, known(shared), out);
            };
            // A question's answer may still be on its way (the client answers, then resumes).
            if last.starts_with("ask-") {
                shared.wait_until(WAIT, |state| state.replays.contains_key(last));
            }
            let replay = shared.lock().replays.remove(last);
            let Some(response) = replay else { return out.text(400, &[], "unknown event id") };
            shared.lock().resumed += 1;
            out.sse_head()?;
            out.event(Some(&format!("{last}-resumed")), &response)
        }
        "POST" => {
            let Some(Value::Object(message)) = body else {
                return out.text(400, &[], "the body is not a JSON object");
            };
            let method = message.get("method").and_then(Value::as_str).unwrap_or_default();
            if method == "initialize" {
                return initialize(shared, &message, out);
            }
            if shared.config.sessions {
                if session.is_none() {
                    return out.text(400, &[], "missing Mcp-Session-Id");
                }
                if !known(shared) {
                    return out.text(404, &[], "session not found");
                }
            }
            let version = request.header("mcp-protocol-version").unwrap_or_default();
            if !SUPPORTED.contains(&version) {
                return out.text(400, &[], "missing or unsupported MCP-Protocol-Version");
            }
            let id = message.get("id").cloned();
            let expire = shared.lock().misbehaviour == Some(Misbehaviour::ExpireEverySession);
            if expire && id.is_some() {
                return out.text(404, &[], "session not found");
            }
            match (id, message.contains_key("method")) {
                (None, true) => {
                    notification(shared, method, message.get("params"));
                    out.text(202, &[], "")
                }
                (Some(id), false) => {
                    // The client's answer to our elicitation request.
                    let key = key(&id);
                    shared.lock().answers.insert(key, Value::Object(message));
                    shared.changed.notify_all();
                    out.text(202, &[], "")
                }
                (Some(id), true) => {
                    let params = message.get("params").cloned().unwrap_or(Value::Null);
                    call(shared, &id, method, &params, out)
                }
                (None, false) => out.text(400, &[], "neither a request nor a response"),
            }
        }
        _ => out.text(405, &[], "method not allowed"),
    }
}

fn initialize(
    shared: &Shared,
    message: &serde_json::Map<String, Value>,
    out: &mut Out<'_>,
) -> std::io::Result<()> {
    let asked = message
        .get("params")
        .and_then(|params| params.get("protocolVersion"))
        .and_then(Value::as_str);
    let version = match (&shared.config.protocol_version, asked) {
        (Some(forced), _) => forced.clone(),
        (None, Some(asked)) if SUPPORTED.contains(&asked) => asked.to_owned(),
        (None, _) => SUPPORTED[0].to_owned(),
    };
    let mut headers = Headers::new();
    if shared.config.sessions {
        let mut state = shared.lock();
        state.next_session += 1;
        let id = format!("session-{}", state.next_session);
        state.sessions.insert(id.clone());
        headers.push(("Mcp-Session-Id".to_owned(), id));
    }
    let result = json!({
        "protocolVersion": version,
        "capabilities": {"tools": {"listChanged": true}, "prompts": {}, "resources": {}},
        "serverInfo": {"name": "panelot-mock-mcp", "version": "1.0.0"},
        "instructions": "A mock server for tests.",
    });
    let id = message.get("id").cloned().unwrap_or(Value::Null);
    answer(shared, out, &headers, &id, Ok(result))
}

fn notification(shared: &Shared, method: &str, params: Option<&Value>) {
    if method == "notifications/cancelled"
        && let Some(id) = params.and_then(|params| params.get("requestId"))
    {
        shared.lock().cancelled.push(id.clone());
        shared.changed.notify_all();
    }
}

fn call(
    shared: &Shared,
    id: &Value,
    method: &str,
    params: &Value,
    out: &mut Out<'_>,
) -> std::io::Result<()> {
    let misbehaviour = {
        let mut state = shared.lock();
        match state.misbehaviour.clone() {
            // These must outlast one answer.
            Some(lasting @ (Misbehaviour::EndlessCursor | Misbehaviour::ExpireEverySession)) => {
                Some(lasting)
            }
            _ => state.misbehaviour.take(),
        }
    };
    match misbehaviour {
        Some(Misbehaviour::Garbage) => {
            return out.body(200, "application/json", &[], b"<html>this is not JSON");
        }
        Some(Misbehaviour::Oversized(bytes)) => {
            let text = "x".repeat(bytes);
            return answer(
                shared,
                out,
                &[],
                id,
                Ok(json!({"content": [{"type": "text", "text": text}]})),
            );
        }
        Some(Misbehaviour::EarlyEnd) => {
            out.sse_head()?;
            return out.event(None, &json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "bye"}}));
        }
        Some(Misbehaviour::EndlessCursor) if method == "tools/list" => {
            let n = params.get("cursor").and_then(Value::as_str).map_or(0, |c| c.len());
            let page = json!({"tools": [tool(&format!("endless_{n}"), "One more.")], "nextCursor": "e".repeat(n + 1)});
            return answer(shared, out, &[], id, Ok(page));
        }
        _ => {}
    }
    let result = match method {
        "ping" => Ok(json!({})),
        "tools/list" => Ok(tools_page(shared, params)),
        "tools/call" => return call_tool(shared, id, params, out),
        "prompts/list" => Ok(json!({"prompts": [{
            "name": "greet",
            "description": "Greets someone.",
            "arguments": [{"name": "who", "required": true}],
        }]})),
        "prompts/get" => {
            let who = params.pointer("/arguments/who").and_then(Value::as_str).unwrap_or("you");
            Ok(
                json!({"messages": [{"role": "user", "content": {"type": "text", "text": format!("Say hello to {who}.")}}]}),
            )
        }
        "resources/list" => Ok(
            json!({"resources": [{"uri": "mem://readme", "name": "readme", "mimeType": "text/plain"}]}),
        ),
        "resources/read" => {
            // Held by the test (a slow server): answered once it lets reads go.
            shared.wait_until(WAIT, |state| !state.reads_held);
            Ok(
                json!({"contents": [{"uri": "mem://readme", "mimeType": "text/plain", "text": "Read me."}]}),
            )
        }
        _ => Err(json!({"code": -32601, "message": format!("no method {method}")})),
    };
    answer(shared, out, &[], id, result)
}

fn call_tool(
    shared: &Shared,
    id: &Value,
    params: &Value,
    out: &mut Out<'_>,
) -> std::io::Result<()> {
    let name = params.get("name").and_then(Value::as_str).unwrap_or_default();
    let arguments = params.get("arguments").cloned().unwrap_or(Value::Null);
    let sse = shared.config.mode == ResponseMode::Sse;
    let text = |text: &str| json!({"content": [{"type": "text", "text": text}]});
    match name {
        "echo" => {
            let said = arguments.get("text").and_then(Value::as_str).unwrap_or_default();
            answer(shared, out, &[], id, Ok(text(said)))
        }
        "big" => {
            let bytes = arguments.get("bytes").and_then(Value::as_u64).unwrap_or(0);
            let body = "y".repeat(usize::try_from(bytes).unwrap_or(0));
            answer(shared, out, &[], id, Ok(text(&body)))
        }
        "change_tools" => {
            let changed = json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"});
            let mut state = shared.lock();
            state.tools_changed = true;
            for mut listener in &state.listeners {
                // A listener that left is the client's business.
                let _ = listener.write_all(format!("data: {changed}\n\n").as_bytes());
                let _ = listener.flush();
            }
            drop(state);
            if sse {
                out.sse_head()?;
                out.event(
                    None,
                    &json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
                )?;
                out.event(None, &response(id, Ok(text("changed"))))
            } else {
                answer(shared, out, &[], id, Ok(text("changed")))
            }
        }
        "ask" if sse => {
            let elicitation = {
                let mut state = shared.lock();
                state.next_elicitation += 1;
                format!("elicit-{}", state.next_elicitation)
            };
            // With an event id, a client cut off while the user thinks (a worker restart)
            // answers later and resumes the stream after the question to read the result.
            let event_id = format!("ask-{}", key(id));
            out.sse_head()?;
            out.event(Some(&event_id), &json!({
                "jsonrpc": "2.0",
                "id": elicitation,
                "method": "elicitation/create",
                "params": {
                    "message": "What is your name?",
                    "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
                },
            }))?;
            let key = key(&Value::String(elicitation));
            shared.wait_until(WAIT, |state| state.answers.contains_key(&key));
            let answered = shared.lock().answers.get(&key).cloned().unwrap_or(Value::Null);
            let result = response(id, Ok(text(&answered.to_string())));
            shared.lock().replays.insert(event_id.clone(), result.clone());
            shared.changed.notify_all();
            out.event(Some(&format!("{event_id}-answered")), &result)
        }
        "slow" => {
            // Never answers: the client must give up and say so with notifications/cancelled.
            shared.wait_until(WAIT, |state| state.cancelled.contains(id));
            Ok(())
        }
        "admin" if shared.config.oauth.is_some() => {
            // Reached only with the admin scope (see `oauth::guard`).
            answer(shared, out, &[], id, Ok(text("admin done")))
        }
        "cut" => {
            let event_id = format!("cut-{}", key(id));
            shared.lock().replays.insert(event_id.clone(), response(id, Ok(text("after the cut"))));
            out.sse_head()?;
            out.event(Some(&event_id), &json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "working"}}))
        }
        // Unknown tools are a protocol error (-32602), as the specification's examples show.
        _ => answer(
            shared,
            out,
            &[],
            id,
            Err(json!({"code": -32602, "message": format!("Unknown tool: {name}")})),
        ),
    }
}

/// A `GET` without `Last-Event-ID`: the standalone stream, held open until the test closes it.
fn standalone(shared: &Shared, known: bool, out: &mut Out<'_>) -> std::io::Result<()> {
    if !shared.config.standalone_stream {
        return out.text(405, &[], "no standalone stream");
    }
    if shared.config.sessions && !known {
        return out.text(404, &[], "session not found");
    }
    out.sse_head()?;
    shared.lock().listeners.push(out.stream.try_clone()?);
    shared.changed.notify_all();
    shared.wait_until(Duration::from_secs(60), |state| state.listeners_closed);
    shared.lock().listeners.clear();
    Ok(())
}

fn tools_page(shared: &Shared, params: &Value) -> Value {
    let mut tools = vec![
        tool("echo", "Answers its text back."),
        tool("change_tools", "Changes the tool list."),
        tool("ask", "Asks the user for their name."),
        tool("slow", "Never finishes."),
        tool("cut", "Answers after a cut stream."),
        tool("big", "Answers many bytes."),
    ];
    if shared.config.oauth.is_some() {
        tools.push(tool("admin", "Needs the mcp:admin scope."));
    }
    if shared.lock().tools_changed {
        tools.push(tool("added_later", "Appears after change_tools."));
    }
    tools.extend(
        (0..shared.config.generated_tools).map(|i| tool(&format!("gen_{i}"), "Generated.")),
    );
    let offset = params
        .get("cursor")
        .and_then(Value::as_str)
        .and_then(|cursor| cursor.strip_prefix('c'))
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(0);
    let size = shared.config.page_size.max(1);
    let page: Vec<Value> = tools.iter().skip(offset).take(size).cloned().collect();
    let mut result = json!({"tools": page});
    if offset + size < tools.len() {
        result["nextCursor"] = json!(format!("c{}", offset + size));
    }
    result
}

fn tool(name: &str, description: &str) -> Value {
    json!({
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}, "bytes": {"type": "integer"}}},
    })
}

fn response(id: &Value, outcome: Result<Value, Value>) -> Value {
    match outcome {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
    }
}

/// Answers in the configured mode.
fn answer(
    shared: &Shared,
    out: &mut Out<'_>,
    headers: &[(String, String)],
    id: &Value,
    outcome: Result<Value, Value>,
) -> std::io::Result<()> {
    let message = response(id, outcome);
    match shared.config.mode {
        ResponseMode::Json => {
            out.body(200, "application/json", headers, message.to_string().as_bytes())
        }
        ResponseMode::Sse => {
            out.head(200, Some("text/event-stream"), headers)?;
            out.event(None, &message)
        }
    }
}

/// A map key for a JSON-RPC id (`"a"` and `1` stay distinct).
fn key(id: &Value) -> String {
    id.to_string()
}

pub(super) struct Out<'s> {
    stream: &'s TcpStream,
    /// Whether answers carry CORS headers (see [`Out::without_cors`]).
    cors: bool,
}

impl Out<'_> {
    /// Answers without CORS headers from now on, like a server that allows no cross-origin
    /// requests: a browser then reads the answer only with host access to the site.
    pub(super) fn without_cors(&mut self) {
        self.cors = false;
    }

    /// `head` without its CORS lines when CORS is off.
    fn shaped(&self, head: String) -> String {
        if self.cors {
            return head;
        }
        head.split_inclusive("\r\n").filter(|line| !line.starts_with("Access-Control-")).collect()
    }

    fn head(
        &mut self,
        status: u16,
        content_type: Option<&str>,
        extra: &[(String, String)],
    ) -> std::io::Result<()> {
        let head = self.shaped(http::response_head(status, content_type, None, extra));
        self.stream.write_all(head.as_bytes())
    }

    pub(super) fn body(
        &mut self,
        status: u16,
        content_type: &str,
        extra: &[(String, String)],
        body: &[u8],
    ) -> std::io::Result<()> {
        let head =
            self.shaped(http::response_head(status, Some(content_type), Some(body.len()), extra));
        self.stream.write_all(head.as_bytes())?;
        self.stream.write_all(body)
    }

    pub(super) fn text(
        &mut self,
        status: u16,
        extra: &[(String, String)],
        text: &str,
    ) -> std::io::Result<()> {
        self.body(status, "text/plain", extra, text.as_bytes())
    }

    fn sse_head(&mut self) -> std::io::Result<()> {
        self.head(200, Some("text/event-stream"), &[])
    }

    fn event(&mut self, id: Option<&str>, message: &Value) -> std::io::Result<()> {
        let mut event = String::new();
        if let Some(id) = id {
            event.push_str(&format!("id: {id}\n"));
        }
        event.push_str(&format!("data: {message}\n\n"));
        self.stream.write_all(event.as_bytes())?;
        self.stream.flush()
    }
}
