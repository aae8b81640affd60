//! The accept loop and the one exchange each connection carries: read, record, route, answer.

use std::io::BufReader;
use std::io::Write;
use std::net::Shutdown;
use std::net::TcpListener;
use std::net::TcpStream;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use serde_json::Value;
use serde_json::json;

use super::DEFAULT_MODEL;
use super::RecordedRequest;
use super::Reply;
use super::Shared;
use super::Violation;
use super::anthropic::Anthropic;
use super::http;
use super::http::ReadError;
use super::http::Request;
use super::invariants;
use super::openai::OpenAi;
use super::reply::Head;
use super::sse::Context;
use super::sse::Ended;
use super::sse::Out;
use super::sse::play;

/// How long a socket read or write may block. A silent client must not pin a thread for the
/// life of the test binary; dropping the server also shuts every socket down at once.
const IO_TIMEOUT: Duration = Duration::from_secs(60);

const EVENT_STREAM: &str = "text/event-stream";

/// The `created` time in model listings, fixed so transcripts are reproducible.
const CREATED: u64 = 1_700_000_000;

/// Accepts connections until the server shuts down, one thread per connection.
pub(super) fn accept_loop(listener: &TcpListener, shared: &Arc<Shared>) {
    let mut next_id: u64 = 0;
    for incoming in listener.incoming() {
        if shared.is_shutting_down() {
            return;
        }
        // A failed accept concerns that one connection attempt only.
        let Ok(stream) = incoming else { continue };
        let Ok(registered) = stream.try_clone() else { continue };
        let id = next_id;
        next_id += 1;
        let worker_shared = Arc::clone(shared);
        let mut state = shared.lock();
        // Finished workers need no join; dropping their handles keeps the list short.
        state.workers.retain(|worker| !worker.is_finished());
        state.connections.insert(id, registered);
        let spawned =
            thread::Builder::new().name("mock-provider-conn".to_owned()).spawn(move || {
                serve(&stream, &worker_shared);
                worker_shared.lock().connections.remove(&id);
                worker_shared.changed.notify_all();
            });
        match spawned {
            Ok(worker) => state.workers.push(worker),
            Err(_) => {
                state.connections.remove(&id);
            }
        }
    }
}

/// Serves the one request a connection carries, then closes it (no keep-alive).
fn serve(stream: &TcpStream, shared: &Shared) {
    // Failing to set these options only makes the mock less prompt, never wrong.
    let _ = stream.set_nodelay(true);
    let _ = stream.set_read_timeout(Some(IO_TIMEOUT));
    let _ = stream.set_write_timeout(Some(IO_TIMEOUT));
    let mut out = Out::new(stream, shared);
    let mut reader = BufReader::new(stream);
    let send_continue = || {
        let mut stream = stream;
        stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")
    };
    let action = match http::read_request(&mut reader, send_continue) {
        Ok(request) => admit(shared, &request),
        Err(ReadError::Closed) => return,
        Err(ReadError::Malformed(reason)) => Action::Fail {
            status: 400,
            kind: "mock_bad_request",
            message: format!("mock provider: {reason}"),
        },
    };
    // A failed write means the client left; the test sees that on its side.
    let _ = respond(&mut out, action);
    let _ = stream.shutdown(Shutdown::Write);
}

/// What to answer.
#[derive(Debug)]
enum Action {
    Preflight(Vec<(String, String)>),
    Chat {
        reply: Reply,
        format: Format,
        context: Context,
    },
    /// The model list, unless a scripted reply overrides it.
    Models {
        reply: Reply,
        models: Vec<String>,
    },
    Fail {
        status: u16,
        kind: &'static str,
        message: String,
    },
}

#[derive(Debug, Clone, Copy)]
enum Format {
    OpenAi,
    Anthropic,
}

#[derive(Debug, Clone, Copy)]
enum Route {
    Chat(Format),
    Models,
    Unknown,
}

/// Routes by the end of the path, so base URLs with or without `/v1` (or with a prefix such
/// as OpenRouter's `/api/v1`) all reach the same endpoints.
fn route(path: &str) -> Route {
    if path.ends_with("/chat/completions") {
        Route::Chat(Format::OpenAi)
    } else if path.ends_with("/messages") {
        Route::Chat(Format::Anthropic)
    } else if path.ends_with("/models") {
        Route::Models
    } else {
        Route::Unknown
    }
}

/// Records the request, checks its invariants and takes what answers it from the script, all
/// under one lock so concurrent requests get replies in the order they were recorded.
fn admit(shared: &Shared, request: &Request) -> Action {
    let json: Option<Value> = serde_json::from_slice(&request.body).ok();
    let path = request.path().to_owned();
    let route = route(&path);
    let mut state = shared.lock();
    let index = state.requests.len();
    if let ("POST", Route::Chat(format)) = (request.method.as_str(), route) {
        let problems = match (&json, format) {
            (None, _) => vec!["body is not JSON".to_owned()],
            (Some(body), Format::OpenAi) => invariants::check_openai(body),
            (Some(body), Format::Anthropic) => invariants::check_anthropic(body),
        };
        for message in problems {
            state.violations.push(Violation { request_index: index, path: path.clone(), message });
        }
    }
    let model = json.as_ref().and_then(|body| body.get("model")).and_then(Value::as_str);
    let model = model.unwrap_or(DEFAULT_MODEL).to_owned();
    state.requests.push(RecordedRequest {
        method: request.method.clone(),
        path: path.clone(),
        query: request.target.split_once('?').map(|(_, query)| query.to_owned()),
        headers: request.headers.clone(),
        body: request.body.clone(),
        json,
    });
    shared.changed.notify_all();

    let method = request.method.as_str();
    match (method, route) {
        ("OPTIONS", _) => Action::Preflight(http::preflight_headers(request)),
        ("POST", Route::Chat(format)) => match state.replies.pop_front().or_else(|| {
            let responder = state.responder.clone()?;
            responder(state.requests.last()?)
        }) {
            Some(reply) => {
                Action::Chat { reply, format, context: Context { model, request_no: index + 1 } }
            }
            None => Action::Fail {
                status: 500,
                kind: "mock_script_exhausted",
                message: format!(
                    "mock provider: no scripted reply left for POST {path} (request {}); \
                     push a Reply before the client calls",
                    index + 1
                ),
            },
        },
        ("GET", Route::Models) => Action::Models {
            reply: state.models_replies.pop_front().unwrap_or_default(),
            models: state.models.clone(),
        },
        (_, Route::Unknown) => Action::Fail {
            status: 404,
            kind: "mock_not_found",
            message: format!(
                "mock provider: nothing at {method} {path}; it serves POST …/chat/completions, \
                 POST …/messages and GET …/models"
            ),
        },
        (_, Route::Chat(_) | Route::Models) => Action::Fail {
            status: 405,
            kind: "mock_method_not_allowed",
            message: format!("mock provider: {method} is not allowed on {path}"),
        },
    }
}

fn respond(out: &mut Out<'_>, action: Action) -> Result<(), Ended> {
    match action {
        Action::Preflight(headers) => {
            out.write(http::response_head(204, None, Some(0), &headers).as_bytes())
        }
        Action::Fail { status, kind, message } => {
            let body = json!({"error": {"type": kind, "message": message}});
            write_json(out, status, &body, &[])
        }
        Action::Chat { reply, format, context } => send(out, &reply, |out| {
            let extra = [("Cache-Control".to_owned(), "no-cache".to_owned())];
            let extra: Vec<_> = extra.into_iter().chain(reply.headers.iter().cloned()).collect();
            // No Content-Length and no chunked framing: the body ends when the connection
            // closes, so a truncated stream is a clean EOF, as from a dropped proxy.
            out.write(http::response_head(200, Some(EVENT_STREAM), None, &extra).as_bytes())?;
            match format {
                Format::OpenAi => play(&reply, &mut OpenAi::new(context), out),
                Format::Anthropic => play(&reply, &mut Anthropic::new(context), out),
            }
        }),
        Action::Models { reply, models } => {
            send(out, &reply, |out| write_json(out, 200, &model_list(&models), &reply.headers))
        }
    }
}

/// Plays the parts of a reply that do not depend on the endpoint (a stall before the status
/// line, an error response, raw bytes), and calls `body` for a successful one.
fn send(
    out: &mut Out<'_>,
    reply: &Reply,
    body: impl FnOnce(&mut Out<'_>) -> Result<(), Ended>,
) -> Result<(), Ended> {
    if let Some(gate) = &reply.head_stall {
        out.stall(gate)?;
    }
    match &reply.head {
        Head::Raw(bytes) => out.write(bytes),
        Head::Garbage(bytes) => {
            let head = http::response_head(200, Some(EVENT_STREAM), None, &reply.headers);
            out.write(head.as_bytes())?;
            out.write(bytes)
        }
        Head::Error { status, content_type, body } => {
            let head =
                http::response_head(*status, Some(content_type), Some(body.len()), &reply.headers);
            out.write(format!("{head}{body}").as_bytes())
        }
        Head::Stream => body(out),
    }
}

fn write_json(
    out: &mut Out<'_>,
    status: u16,
    body: &Value,
    extra: &[(String, String)],
) -> Result<(), Ended> {
    let body = body.to_string();
    let head = http::response_head(status, Some("application/json"), Some(body.len()), extra);
    out.write(format!("{head}{body}").as_bytes())
}

/// A model list both clients accept: OpenAI's `{object, data: [{id, object, created,
/// owned_by}]}` and Anthropic's `{data: [{id, type, display_name, created_at}], has_more,
/// first_id, last_id}` share the path, so one superset answers both.
fn model_list(models: &[String]) -> Value {
    let data: Vec<Value> = models
        .iter()
        .map(|id| {
            json!({
                "id": id,
                "object": "model",
                "type": "model",
                "display_name": id,
                "created": CREATED,
                "created_at": "2023-11-14T22:13:20Z",
                "owned_by": "mock",
            })
        })
        .collect();
    json!({
        "object": "list",
        "data": data,
        "has_more": false,
        "first_id": models.first(),
        "last_id": models.last(),
    })
}
