//! The engine's end of the MCP bridge. The MCP client runs as its own wasm module in this
//! worker (`wasm/mcp.js`), loaded only when a server is configured and reached through
//! `globalThis.panelotMcp` (set by `sw.js`): `command(json) → Promise<json>` and
//! `onEvent(callback)`. Keeping it apart keeps the engine's wasm small and a server's hostile
//! JSON out of the engine's memory: a trap there costs the MCP module, not the engine.
//!
//! Commands carry opened secrets (the module runs in this same worker); replies and events are
//! decoded here with budgets before they become driver inputs.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::Function;
use js_sys::Reflect;
use panelot_core::combinators::Either;
use panelot_core::combinators::race;
use panelot_core::driver::Input;
use panelot_core::engine::FailureCause;
use panelot_core::engine::McpQuery;
use panelot_core::engine::ToolInvocation;
use panelot_core::engine::ToolOutcome;
use panelot_core::env::AbortSignal;
use panelot_core::settings::McpCatalogTool;
use panelot_core::settings::StoredCredentials;
use panelot_protocol::engine::McpFetch;
use panelot_protocol::engine::McpStatus;
use panelot_providers::Vault;
use serde_json::Value;
use serde_json::json;
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use wasm_bindgen::closure::Closure;
use wasm_bindgen_futures::JsFuture;

/// Largest reply or event read from the module (its own budgets cap a result's text at 1 MiB).
const MAX_MESSAGE_BYTES: usize = 8 * 1024 * 1024;

thread_local! {
    /// The servers of the last `configure`: when the module crashes, each one's status says so
    /// (the module cannot report them any more).
    static CONFIGURED: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// Why the bridge failed, in words for the model or the log.
fn unavailable(detail: &str) -> String {
    format!("the MCP client is not available: {detail}")
}

fn bridge() -> Result<(JsValue, Function, Function), String> {
    let bridge = Reflect::get(&js_sys::global(), &"panelotMcp".into())
        .ok()
        .filter(|b| b.is_object())
        .ok_or_else(|| unavailable("globalThis.panelotMcp is missing"))?;
    let function = |name: &str| {
        Reflect::get(&bridge, &name.into())
            .ok()
            .and_then(|f| f.dyn_into::<Function>().ok())
            .ok_or_else(|| unavailable(&format!("panelotMcp.{name} is missing")))
    };
    let (command, on_event) = (function("command")?, function("onEvent")?);
    Ok((bridge, command, on_event))
}

/// Sends one command; its reply as JSON.
async fn command(message: &Value) -> Result<Value, String> {
    let (bridge, command, _) = bridge()?;
    let promise = command
        .call1(&bridge, &JsValue::from_str(&message.to_string()))
        .map_err(|e| unavailable(&format!("{e:?}")))?;
    let reply = JsFuture::from(js_sys::Promise::resolve(&promise))
        .await
        .map_err(|e| unavailable(&format!("{e:?}")))?;
    let text = reply.as_string().ok_or_else(|| unavailable("its reply is not text"))?;
    if text.len() > MAX_MESSAGE_BYTES {
        return Err(unavailable("its reply is too large"));
    }
    serde_json::from_str(&text).map_err(|e| unavailable(&format!("its reply is not JSON: {e}")))
}

/// Starts hearing the module's events (status, catalogs, sign-ins) as driver inputs. Call
/// once.
pub(crate) fn listen(vault: Rc<Vault>, push: impl Fn(Input) + 'static) {
    let Ok((bridge, _, on_event)) = bridge() else { return };
    let callback = Closure::<dyn Fn(JsValue)>::new(move |event: JsValue| {
        let Some(text) = event.as_string().filter(|t| t.len() <= MAX_MESSAGE_BYTES) else {
            return;
        };
        // The module is ours: an event that does not decode is a bug there, dropped here.
        let Ok(event) = serde_json::from_str::<Value>(&text) else { return };
        if event.get("type").and_then(Value::as_str) == Some("crashed") {
            let reason = event.get("message").and_then(Value::as_str).unwrap_or("it crashed");
            let servers = CONFIGURED.with_borrow(Clone::clone);
            for input in crashed(reason, servers) {
                push(input);
            }
        } else if let Some(input) = event_input(event, &vault) {
            push(input);
        }
    });
    let _ = on_event.call1(&bridge, callback.as_ref().unchecked_ref());
    // The worker hears events for as long as it lives.
    callback.forget();
}

/// A crash of the module (`{"type": "crashed", "message"}`, from `mcp_bridge.js`) as every
/// configured server's error status, in the bridge's words (what to do included).
fn crashed(reason: &str, servers: Vec<String>) -> Vec<Input> {
    let status = McpStatus::Error { reason: reason.to_owned() };
    servers.into_iter().map(|server| Input::McpStatus(server, status.clone())).collect()
}

/// The input an event of the module becomes; `None` for one the engine does not act on.
fn event_input(event: Value, vault: &Vault) -> Option<Input> {
    let server = event.get("server")?.as_str()?.to_owned();
    match event.get("type")?.as_str()? {
        "status" => {
            let status: McpStatus =
                panelot_protocol::from_value(event.get("status")?.clone()).ok()?;
            Some(Input::McpStatus(server, status))
        }
        "credentials" => {
            // Sealed by the host before the engine keeps them; never stored in the clear.
            let text = event.get("credentials")?.to_string();
            let sealed = vault.seal(&text).ok()?;
            Some(Input::McpCredentials(server, sealed))
        }
        "elicit" => Some(Input::McpElicit {
            request_id: event.get("requestId")?.as_str()?.to_owned(),
            server,
            message: event.get("message")?.as_str()?.to_owned(),
            schema: event.get("schema")?.clone(),
            resume: event.get("resume").and_then(Value::as_str).map(str::to_owned),
        }),
        "catalog" => {
            let tools: Vec<McpCatalogTool> =
                panelot_protocol::from_value(event.get("tools")?.clone()).ok()?;
            Some(Input::McpCatalog(server, tools))
        }
        _ => None,
    }
}

/// Tells the module the servers to run: each opened with the vault, with its OAuth sign-in (a
/// server whose secrets cannot be opened is reported as an error status instead).
pub(crate) async fn configure(
    vault: &Vault,
    stored: Vec<Value>,
    credentials: Vec<StoredCredentials>,
    push: impl Fn(Input),
) {
    let ids = stored.iter().filter_map(|s| s.get("id").and_then(Value::as_str));
    let ids: Vec<String> = ids.map(str::to_owned).collect();
    CONFIGURED.with_borrow_mut(|configured| *configured = ids);
    let mut servers = Vec::new();
    for server in &stored {
        match vault.open_mcp(server) {
            Ok(opened) => {
                let s = &opened.server;
                // A sign-in that no longer opens is dropped: the server asks the user again.
                let signed_in = credentials
                    .iter()
                    .find(|c| c.server == s.id)
                    .and_then(|c| vault.open(&c.sealed).ok())
                    .and_then(|text| serde_json::from_str::<Value>(&text).ok());
                servers.push(json!({
                    "id": s.id,
                    "url": s.url.as_str(),
                    "headers": opened.headers,
                    "auth": s.auth,
                    "oauthClientId": s.oauth_client_id,
                    "enabled": s.enabled,
                    "connect": s.connect,
                    "timeoutMs": s.timeout_ms,
                    "oauthCredentials": signed_in,
                }));
            }
            Err(reason) => {
                if let Some(id) = server.get("id").and_then(Value::as_str) {
                    let reason = format!("its stored secrets cannot be opened: {reason}");
                    push(Input::McpStatus(id.to_owned(), McpStatus::Error { reason }));
                }
            }
        }
    }
    if let Err(err) = command(&json!({"type": "configure", "servers": servers})).await {
        for server in servers.iter().filter_map(|s| s.get("id").and_then(Value::as_str)) {
            push(Input::McpStatus(server.to_owned(), McpStatus::Error { reason: err.clone() }));
        }
    }
}

/// Hands the user's answer to the server's question; a question that already ended is ignored
/// by the module.
pub(crate) async fn answer(request_id: &str, result: Value) {
    let _ =
        command(&json!({"type": "elicitAnswer", "requestId": request_id, "result": result})).await;
}

/// Connects a server now; the module reports how it went as status events.
pub(crate) async fn connect(server: &str, push: impl Fn(Input)) {
    if let Err(reason) = command(&json!({"type": "connect", "server": server})).await {
        push(Input::McpStatus(server.to_owned(), McpStatus::Error { reason }));
    }
}

/// Asks the module for prompts and resources (`list`, `getPrompt`, `readResource`); its reply
/// as JSON, or why there is none.
pub(crate) async fn query(query: &McpQuery) -> Result<Value, String> {
    let message = match query {
        McpQuery::List { server } => json!({"type": "list", "server": server}),
        McpQuery::Fetch { server, fetch: McpFetch::Prompt { name, arguments } } => {
            json!({"type": "getPrompt", "server": server, "name": name, "arguments": arguments})
        }
        McpQuery::Fetch { server, fetch: McpFetch::Resource { uri } } => {
            json!({"type": "readResource", "server": server, "uri": uri})
        }
    };
    command(&message).await
}

/// Runs one call of an `mcp__` tool (or goes on with one its server asked about before a
/// restart); an abort cancels it at the server.
pub(crate) async fn call(call: &ToolInvocation, signal: AbortSignal) -> ToolOutcome {
    let call_id = format!("{}:{}:{}", call.run_id, call.call_id, call.dispatch);
    let message = match &call.mcp_resume {
        None => json!({
            "type": "call",
            "callId": call_id,
            "name": call.tool,
            "arguments": call.params,
        }),
        Some(resume) => json!({
            "type": "resume",
            "callId": call_id,
            "name": call.tool,
            "resume": resume.point,
            "result": resume.answer,
        }),
    };
    let reply = match race(command(&message), signal.aborted()).await {
        Either::Left(reply) => reply,
        Either::Right(()) => {
            let _ = command(&json!({"type": "cancel", "callId": call_id})).await;
            return ToolOutcome::failed("the call was cancelled");
        }
    };
    match reply {
        Ok(reply) => outcome(&reply),
        Err(err) => ToolOutcome::failed(err),
    }
}

/// A call's reply as the model reads it; a server that wants a sign-in says so to the engine,
/// which tells the user.
fn outcome(reply: &Value) -> ToolOutcome {
    if reply.get("ok").and_then(Value::as_bool) != Some(true) {
        let error = reply.get("error");
        let message = error.and_then(|e| e.get("message")).and_then(Value::as_str);
        let kind = error.and_then(|e| e.get("kind")).and_then(Value::as_str).unwrap_or("error");
        let message =
            format!("MCP call failed ({kind}): {}", message.unwrap_or("the server gave no reason"));
        return match kind {
            "unauthorized" => ToolOutcome::failed_because(message, FailureCause::NeedsSignIn),
            "uncertain" => ToolOutcome::failed_because(message, FailureCause::Uncertain),
            _ => ToolOutcome::failed(message),
        };
    }
    let result = reply.get("result").cloned().unwrap_or(Value::Null);
    let text = panelot_core::mcp_result::render(&result);
    match result.get("isError").and_then(Value::as_bool) {
        Some(true) => ToolOutcome::failed(format!("the tool reported an error: {text}")),
        _ => ToolOutcome::done(text),
    }
}

#[cfg(test)]
#[path = "mcp_bridge_tests.rs"]
mod tests;
