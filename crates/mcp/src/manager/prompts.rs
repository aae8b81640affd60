//! The servers' prompts and resources for the composer: `list` gathers them from every enabled
//! server that offers them (connecting a lazy one first), `getPrompt` fills one prompt in and
//! `readResource` reads one resource. What goes back is already in the shapes the engine's
//! `mcp.listed` event and context blocks use (`serverId`, `title` defaulting to the name), so
//! the engine reads it field by field without decoders of its own.

use std::rc::Rc;

use panelot_core::combinators::Either;
use panelot_core::combinators::race;
use panelot_core::env::AbortSignal;
use panelot_protocol::engine::McpStatus;
use panelot_providers::Http;
use panelot_providers::Timer;
use panelot_providers::Wait;
use serde_json::Map;
use serde_json::Value;
use serde_json::json;

use super::McpManager;
use super::server::Interaction;
use super::server::Server;
use super::wording;
use crate::bridge::ErrorKind;
use crate::bridge::FetchReply;
use crate::bridge::Reply;
use crate::bridge::True;
use crate::error::McpError;
use crate::model::Prompt;
use crate::model::Resource;

impl<H: Http + 'static, T: Timer + 'static> McpManager<H, T> {
    /// The prompts and resources of `only`, or of every enabled server; a server that fails is
    /// named with its reason instead.
    pub async fn list(&self, only: Option<&str>) -> Reply {
        let servers: Vec<Rc<Server<H, T>>> = match only {
            Some(id) => self.inner.server(id).into_iter().collect(),
            None => self.inner.servers.borrow().values().cloned().collect(),
        };
        let (mut prompts, mut resources, mut failures) = (Vec::new(), Vec::new(), Vec::new());
        if let (Some(id), true) = (only, servers.is_empty()) {
            let reason = format!("no enabled MCP server is called {id}");
            failures.push(json!({"serverId": id, "reason": reason}));
        }
        for server in servers {
            let id = server.spec.id.clone();
            match self.list_one(&server).await {
                Ok((p, r)) => {
                    prompts.extend(p.into_iter().map(|p| prompt_json(&id, p)));
                    resources.extend(r.into_iter().map(|r| resource_json(&id, r)));
                }
                Err(reason) => failures.push(json!({"serverId": id, "reason": reason})),
            }
        }
        Reply::Listed { prompts, resources, failures }
    }

    /// Prompt `name` of `server`, filled in with `arguments`.
    pub async fn get_prompt(
        &self,
        server: &str,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Reply {
        let found = match self.ready(server).await {
            Ok(found) => found,
            Err(reply) => return reply,
        };
        let client = &found.client;
        let got = self
            .bounded(found.spec.timeout_ms, |signal| async move {
                client.get_prompt(name, arguments, &signal).await
            })
            .await;
        fetched(&found, got.and_then(|r| serde_json::to_value(r).map_err(json_error)))
    }

    /// Resource `uri` of `server`, read.
    pub async fn read_resource(&self, server: &str, uri: &str) -> Reply {
        let found = match self.ready(server).await {
            Ok(found) => found,
            Err(reply) => return reply,
        };
        let client = &found.client;
        let read = self
            .bounded(found.spec.timeout_ms, |signal| async move {
                client.read_resource(uri, &signal).await
            })
            .await;
        let result = read.and_then(|contents| {
            serde_json::to_value(contents).map(|c| json!({"contents": c})).map_err(json_error)
        });
        fetched(&found, result)
    }

    /// `server`, connected (a lazy one connects now), or the reply saying why it is not.
    async fn ready(&self, server: &str) -> Result<Rc<Server<H, T>>, Reply> {
        let Some(found) = self.inner.server(server) else {
            let message = format!("no enabled MCP server is called {server}");
            return Err(Reply::error(ErrorKind::NotConnected, message));
        };
        if found.catalog().is_none() {
            match found.connect(&self.inner, Interaction::Background).await {
                McpStatus::Ready { .. } => {}
                // Listings run in the background: only the settings sign in.
                McpStatus::NeedsAuthorization { reason, .. } => {
                    return Err(Reply::error(
                        ErrorKind::Unauthorized,
                        format!("{server}: {reason}"),
                    ));
                }
                McpStatus::Error { reason } => {
                    return Err(Reply::error(
                        ErrorKind::NotConnected,
                        format!("{server}: {reason}"),
                    ));
                }
                McpStatus::Disconnected | McpStatus::Connecting => {
                    let message = format!("{server}: the server is not connected");
                    return Err(Reply::error(ErrorKind::NotConnected, message));
                }
            }
        }
        Ok(found)
    }

    async fn list_one(
        &self,
        server: &Rc<Server<H, T>>,
    ) -> Result<(Vec<Prompt>, Vec<Resource>), String> {
        let id = server.spec.id.clone();
        let reply_reason = |reply: Reply| match reply {
            Reply::Call(crate::bridge::CallReply::Err { error, .. }) => error.message,
            _ => format!("{id}: the server is not connected"),
        };
        let server = self.ready(&id).await.map_err(reply_reason)?;
        let offers = server.client.server_info().map(|info| info.capabilities).unwrap_or_default();
        let reason = |err: McpError| wording::reason(&err, &server.spec);
        let (client, ms) = (&server.client, server.spec.timeout_ms);
        let prompts = match offers.prompts {
            Some(_) => self
                .bounded(ms, |signal| async move { client.list_prompts(&signal).await })
                .await
                .map_err(reason)?,
            None => Vec::new(),
        };
        let resources = match offers.resources {
            Some(_) => self
                .bounded(ms, |signal| async move { client.list_resources(&signal).await })
                .await
                .map_err(reason)?,
            None => Vec::new(),
        };
        Ok((prompts, resources))
    }

    /// Runs `request` within `ms` (the server's time limit); past it, the request is aborted.
    async fn bounded<F, R>(
        &self,
        ms: u64,
        request: impl FnOnce(AbortSignal) -> F,
    ) -> Result<R, McpError>
    where
        F: std::future::Future<Output = Result<R, McpError>>,
    {
        let (handle, signal) = AbortSignal::new();
        let deadline = self.inner.timer.sleep(Wait::Budget { ms });
        match race(request(signal), deadline).await {
            Either::Left(outcome) => outcome,
            Either::Right(()) => {
                handle.abort();
                Err(McpError::Timeout { ms })
            }
        }
    }
}

fn json_error(err: serde_json::Error) -> McpError {
    McpError::Protocol(format!("the answer could not be written: {err}"))
}

fn fetched<H, T>(server: &Server<H, T>, result: Result<Value, McpError>) -> Reply {
    match result {
        Ok(result) => Reply::Fetched(FetchReply { ok: True, result }),
        Err(err) => {
            let message = format!("{}: {}", server.spec.id, wording::reason(&err, &server.spec));
            Reply::error(ErrorKind::of(&err), message)
        }
    }
}

fn prompt_json(server: &str, prompt: Prompt) -> Value {
    let arguments: Vec<Value> = prompt
        .arguments
        .into_iter()
        .map(|a| json!({"name": a.name, "description": a.description, "required": a.required}))
        .collect();
    json!({
        "serverId": server,
        "title": prompt.title.unwrap_or_else(|| prompt.name.clone()),
        "name": prompt.name,
        "description": prompt.description,
        "arguments": arguments,
    })
}

fn resource_json(server: &str, resource: Resource) -> Value {
    json!({
        "serverId": server,
        "uri": resource.uri,
        "title": resource.title.unwrap_or_else(|| resource.name.clone()),
        "name": resource.name,
        "description": resource.description,
        "mimeType": resource.mime_type,
    })
}
