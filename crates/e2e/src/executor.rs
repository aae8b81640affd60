//! Driving the page executor the way the service worker does: from an extension page of the test
//! build, `chrome.scripting.executeScript` puts `executor.js` into a fixture tab and
//! `chrome.tabs.sendMessage` carries real `panelot/content-v1` requests to it.

use std::time::Duration;

use anyhow::Context;
use anyhow::bail;
use panelot_protocol::CONTENT_SCHEMA_HASH;
use panelot_protocol::content::CONTENT_PROTOCOL;
use panelot_protocol::content::ContentOutcome;
use panelot_protocol::content::ContentResponse;
use panelot_protocol::decode_content_response;
use panelot_testkit::cdp::Page;
use serde_json::Value;
use serde_json::json;

use crate::Browser;
use crate::Flavor;

/// How long a call may take before the executor gives up (its `deadlineAtMs`).
const CALL_DEADLINE: Duration = Duration::from_secs(20);

/// A browser with the test build and an extension page to drive tabs from.
#[derive(Debug)]
pub struct ExecutorHarness {
    /// The browser.
    pub browser: Browser,
    /// The extension page that calls `chrome.*`.
    pub page: Page,
    next_request: u64,
}

/// A tab opened for a fixture page (in a window of its own, so it is visible and its timers run
/// at full speed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tab(pub i64);

impl ExecutorHarness {
    /// Launches Chromium with the test build and opens an extension page.
    pub fn launch() -> anyhow::Result<Self> {
        let mut browser = Browser::launch_flavor(Flavor::Test)?;
        let page = browser.open_extension_page("options.html")?;
        Ok(ExecutorHarness { browser, page, next_request: 1 })
    }

    /// Evaluates script in the extension page.
    pub fn eval(&mut self, script: &str) -> anyhow::Result<Value> {
        let log = self.browser.log_tail();
        self.browser
            .cdp
            .evaluate(&self.page, script)
            .with_context(|| format!("Chromium log:\n{log}"))
    }

    /// Opens `url` in a new window and waits until it has loaded.
    pub fn open_tab(&mut self, url: &str) -> anyhow::Result<Tab> {
        let script = format!(
            r#"(async () => {{
                const win = await chrome.windows.create({{ url: {url}, focused: true }});
                const id = win.tabs[0].id;
                for (let i = 0; i < 600; i++) {{
                    const tab = await chrome.tabs.get(id);
                    if (tab.status === "complete" && tab.url === {url}) return id;
                    await new Promise((r) => setTimeout(r, 25));
                }}
                throw new Error("the tab did not load");
            }})()"#,
            url = json!(url),
        );
        let id = self.eval(&script)?.as_i64().context("tab id")?;
        Ok(Tab(id))
    }

    /// Navigates the tab and waits until the new page has loaded.
    pub fn navigate(&mut self, tab: Tab, url: &str) -> anyhow::Result<()> {
        let script = format!(
            r#"(async () => {{
                await chrome.tabs.update({id}, {{ url: {url} }});
                for (let i = 0; i < 600; i++) {{
                    const tab = await chrome.tabs.get({id});
                    if (tab.status === "complete" && tab.url === {url}) return true;
                    await new Promise((r) => setTimeout(r, 25));
                }}
                throw new Error("the tab did not load");
            }})()"#,
            id = tab.0,
            url = json!(url),
        );
        self.eval(&script)?;
        Ok(())
    }

    /// Injects the executor (idempotent: a second injection keeps the first instance).
    pub fn inject(&mut self, tab: Tab) -> anyhow::Result<()> {
        let script = format!(
            r#"chrome.scripting.executeScript({{ target: {{ tabId: {id} }}, files: ["executor.js"] }}).then(() => true)"#,
            id = tab.0
        );
        self.eval(&script)?;
        Ok(())
    }

    /// Evaluates script in the tab's page (main world), through `chrome.scripting`.
    pub fn eval_in_tab(&mut self, tab: Tab, body: &str) -> anyhow::Result<Value> {
        let script = format!(
            r#"chrome.scripting.executeScript({{ target: {{ tabId: {id} }}, world: "MAIN", func: () => {{ {body} }} }}).then((r) => r[0].result ?? null)"#,
            id = tab.0
        );
        self.eval(&script)
    }

    /// Sends a raw content-protocol message and returns the raw answer.
    pub fn send_raw(&mut self, tab: Tab, message: &Value) -> anyhow::Result<Value> {
        let script = format!("chrome.tabs.sendMessage({}, {message})", tab.0);
        self.eval(&script)
    }

    /// Runs one executor call and also returns how long the message round trip took, measured
    /// in the extension page (without the DevTools hop).
    pub fn timed_call(&mut self, tab: Tab, call: Value) -> anyhow::Result<(ContentOutcome, f64)> {
        let (request_id, message) = self.request(json!({ "kind": "execute", "call": call }));
        let script = format!(
            "(async () => {{ const t = performance.now(); const r = await chrome.tabs.sendMessage({}, {message}); return [r, performance.now() - t]; }})()",
            tab.0
        );
        let raw = self.eval(&script)?;
        let ms = raw[1].as_f64().context("no time")?;
        let response: ContentResponse = decode_content_response(raw[0].clone())
            .with_context(|| format!("executor answered {}", raw[0]))?;
        if response.request_id.as_str() != request_id {
            bail!("answer to {} for request {request_id}", response.request_id.as_str());
        }
        Ok((response.outcome, ms))
    }

    /// A request envelope for `op`.
    pub fn request(&mut self, op: Value) -> (String, Value) {
        let request_id = format!("e2e-{}", self.next_request);
        self.next_request += 1;
        let deadline_at_ms = now_ms() + CALL_DEADLINE.as_millis() as u64;
        let message = json!({
            "protocol": CONTENT_PROTOCOL,
            "schemaHash": CONTENT_SCHEMA_HASH,
            "requestId": request_id,
            "deadlineAtMs": deadline_at_ms,
            "refDocumentId": null,
            "op": op,
        });
        (request_id, message)
    }

    /// Runs one executor call (`{"tool": …, "params": …}`) and returns the decoded outcome.
    pub fn call(&mut self, tab: Tab, call: Value) -> anyhow::Result<ContentOutcome> {
        self.call_in_document(tab, call, None)
    }

    /// Runs one executor call whose refs were issued in `ref_document_id`, as the engine sends
    /// them.
    pub fn call_in_document(
        &mut self,
        tab: Tab,
        call: Value,
        ref_document_id: Option<&str>,
    ) -> anyhow::Result<ContentOutcome> {
        let (request_id, mut message) = self.request(json!({ "kind": "execute", "call": call }));
        message["refDocumentId"] = json!(ref_document_id);
        let raw = self.send_raw(tab, &message)?;
        let response: ContentResponse = decode_content_response(raw.clone())
            .with_context(|| format!("executor answered {raw}"))?;
        if response.request_id.as_str() != request_id {
            bail!("answer to {} for request {request_id}", response.request_id.as_str());
        }
        Ok(response.outcome)
    }
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}
