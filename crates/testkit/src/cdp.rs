//! A small synchronous Chrome DevTools Protocol client: commands with ids over one WebSocket to
//! the browser target, flat sessions for page targets.

use std::collections::VecDeque;
use std::net::TcpStream;
use std::time::Duration;
use std::time::Instant;

use anyhow::Context;
use anyhow::anyhow;
use anyhow::bail;
use serde_json::Value;
use serde_json::json;
use tungstenite::Message;
use tungstenite::WebSocket;

/// How long one command may take before the client gives up.
const COMMAND_DEADLINE: Duration = Duration::from_secs(60);

/// A CDP connection to the browser target.
#[derive(Debug)]
pub struct Cdp {
    socket: WebSocket<TcpStream>,
    next_id: u64,
    /// Events received while waiting for command results, oldest first.
    events: VecDeque<Value>,
}

/// A page target attached with a flat session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// The target.
    pub target_id: String,
    /// The session for commands to it.
    pub session_id: String,
}

impl Cdp {
    /// Connects to `ws://127.0.0.1:<port><path>`.
    pub fn connect(port: u16, path: &str) -> anyhow::Result<Self> {
        let stream = TcpStream::connect(("127.0.0.1", port)).context("connecting to DevTools")?;
        // A slow handshake (a busy machine, several browsers starting) must not look like a
        // failure: block generously until it is done.
        stream.set_read_timeout(Some(Duration::from_secs(30)))?;
        let url = format!("ws://127.0.0.1:{port}{path}");
        let (socket, _) = tungstenite::client::client(url.as_str(), stream)
            .map_err(|err| anyhow!("DevTools WebSocket handshake failed: {err}"))?;
        // Afterwards, short reads let command deadlines be checked between messages.
        socket.get_ref().set_read_timeout(Some(Duration::from_millis(250)))?;
        Ok(Cdp { socket, next_id: 1, events: VecDeque::new() })
    }

    /// Sends a command to the browser target and waits for its result.
    pub fn call(&mut self, method: &str, params: Value) -> anyhow::Result<Value> {
        self.send(method, params, None)
    }

    /// Sends a command to an attached session and waits for its result.
    pub fn call_in(
        &mut self,
        session_id: &str,
        method: &str,
        params: Value,
    ) -> anyhow::Result<Value> {
        self.send(method, params, Some(session_id))
    }

    fn send(
        &mut self,
        method: &str,
        params: Value,
        session: Option<&str>,
    ) -> anyhow::Result<Value> {
        let id = self.next_id;
        self.next_id += 1;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(session) = session {
            message["sessionId"] = json!(session);
        }
        self.socket.send(Message::text(message.to_string()))?;
        let deadline = Instant::now() + COMMAND_DEADLINE;
        loop {
            let Some(reply) = self.read_one(deadline)? else {
                bail!("{method} got no answer within {COMMAND_DEADLINE:?}");
            };
            if reply.get("id").and_then(Value::as_u64) != Some(id) {
                self.events.push_back(reply);
                continue;
            }
            if let Some(error) = reply.get("error") {
                bail!("{method} failed: {error}");
            }
            return Ok(reply.get("result").cloned().unwrap_or(Value::Null));
        }
    }

    /// Reads one message, or `None` at the deadline.
    fn read_one(&mut self, deadline: Instant) -> anyhow::Result<Option<Value>> {
        loop {
            if Instant::now() > deadline {
                return Ok(None);
            }
            match self.socket.read() {
                Ok(Message::Text(text)) => return Ok(Some(serde_json::from_str(text.as_str())?)),
                Ok(_) => continue,
                Err(tungstenite::Error::Io(err))
                    if matches!(
                        err.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    continue;
                }
                Err(err) => return Err(err.into()),
            }
        }
    }

    /// Events received so far, oldest first, drained.
    pub fn take_events(&mut self) -> Vec<Value> {
        self.events.drain(..).collect()
    }

    /// Opens `url` in a new tab, attaches to it and waits until the document is that URL and
    /// fully loaded.
    pub fn open_page(&mut self, url: &str) -> anyhow::Result<Page> {
        let created = self.call("Target.createTarget", json!({ "url": url }))?;
        let target_id =
            created["targetId"].as_str().context("createTarget: no targetId")?.to_owned();
        let attached =
            self.call("Target.attachToTarget", json!({ "targetId": target_id, "flatten": true }))?;
        let session_id =
            attached["sessionId"].as_str().context("attachToTarget: no sessionId")?.to_owned();
        let page = Page { target_id, session_id };
        let expected = serde_json::to_string(url)?;
        self.wait_until(
            &page,
            &format!("location.href === {expected} && document.readyState === 'complete'"),
            Duration::from_secs(30),
        )
        .with_context(|| format!("{url} did not load"))?;
        Ok(page)
    }

    /// Attaches to an existing target (a tab, a side panel) with a flat session.
    pub fn attach(&mut self, target_id: &str) -> anyhow::Result<Page> {
        let attached =
            self.call("Target.attachToTarget", json!({ "targetId": target_id, "flatten": true }))?;
        let session_id =
            attached["sessionId"].as_str().context("attachToTarget: no sessionId")?.to_owned();
        Ok(Page { target_id: target_id.to_owned(), session_id })
    }

    /// Waits until a target of type `kind` whose URL satisfies `matches` exists and returns its
    /// id.
    pub fn wait_for_target(
        &mut self,
        kind: &str,
        deadline: Duration,
        matches: impl Fn(&str) -> bool,
    ) -> anyhow::Result<String> {
        let until = Instant::now() + deadline;
        loop {
            let found =
                self.targets(kind)?.into_iter().find(|t| t["url"].as_str().is_some_and(&matches));
            if let Some(target) = found {
                return target["targetId"]
                    .as_str()
                    .map(str::to_owned)
                    .context("a target without targetId");
            }
            if Instant::now() > until {
                bail!("no {kind} target with a matching URL within {deadline:?}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Evaluates `expression` in the page (awaiting a returned promise, with a user gesture) and
    /// returns its value as JSON. A thrown exception is an error carrying its text.
    pub fn evaluate(&mut self, page: &Page, expression: &str) -> anyhow::Result<Value> {
        let result = self.call_in(
            &page.session_id,
            "Runtime.evaluate",
            json!({
                "expression": expression,
                "awaitPromise": true,
                "returnByValue": true,
                "userGesture": true,
            }),
        )?;
        if let Some(details) = result.get("exceptionDetails") {
            let text = details["exception"]["description"]
                .as_str()
                .or_else(|| details["text"].as_str())
                .unwrap_or("exception");
            bail!("script threw: {text}");
        }
        Ok(result["result"].get("value").cloned().unwrap_or(Value::Null))
    }

    /// Polls a boolean expression until it is true; the deadline is a safety net, not a timing
    /// assertion.
    pub fn wait_until(
        &mut self,
        page: &Page,
        condition: &str,
        deadline: Duration,
    ) -> anyhow::Result<()> {
        let until = Instant::now() + deadline;
        let mut last_error = None;
        while Instant::now() < until {
            match self.evaluate(page, condition) {
                Ok(Value::Bool(true)) => return Ok(()),
                Ok(_) => last_error = None,
                // Early in a navigation the context may be gone; try again.
                Err(err) => last_error = Some(err),
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        match last_error {
            Some(err) => Err(err.context(format!("`{condition}` never held"))),
            None => bail!("`{condition}` never held"),
        }
    }

    /// Lists targets of a type (`page`, `service_worker`, ...).
    pub fn targets(&mut self, kind: &str) -> anyhow::Result<Vec<Value>> {
        let result = self.call("Target.getTargets", json!({}))?;
        let infos = result["targetInfos"].as_array().cloned().unwrap_or_default();
        Ok(infos.into_iter().filter(|t| t["type"].as_str() == Some(kind)).collect())
    }

    /// Closes a target; closing the service-worker target kills the worker.
    pub fn close_target(&mut self, target_id: &str) -> anyhow::Result<()> {
        self.call("Target.closeTarget", json!({ "targetId": target_id }))?;
        Ok(())
    }
}
