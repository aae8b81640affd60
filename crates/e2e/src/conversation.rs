//! One conversation with the engine over a real Port, driven from an extension page: the script
//! sends `initialize`, then each step once the previous step's `until` event arrived (`type`, or
//! `item.start:tool` for the start of a call of that tool). `$thread`
//! in a step stands for the thread the conversation created (kept in the page's localStorage, so
//! later conversations of the same test reuse it). Every approval asked gets the same answer
//! ([`Approvals`]), as from a user watching.

use panelot_protocol::ENGINE_PROTOCOL;
use panelot_protocol::ENGINE_SCHEMA_HASH;
use serde_json::Value;
use serde_json::json;

/// How the conversation answers approvals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Approvals {
    /// Accept every one.
    Accept,
    /// Decline every one, with a note.
    Decline,
}

/// The page script of a conversation that accepts every approval; see [`script_with`].
pub fn script(client_id: &str, steps: &Value) -> String {
    script_with(client_id, steps, Approvals::Accept)
}

/// The page script of a conversation. It resolves to `{how, events}` where `how` is
/// `complete`, `disconnected` or `timeout` and each event is `{t: performance.now(), event}`.
pub fn script_with(client_id: &str, steps: &Value, approvals: Approvals) -> String {
    let decision = match approvals {
        Approvals::Accept => json!({"type": "accept"}),
        Approvals::Decline => json!({"type": "decline", "note": "not that"}),
    };
    let init = json!({"type": "initialize", "submissionId": "init", "protocol": ENGINE_PROTOCOL,
        "schemaHash": ENGINE_SCHEMA_HASH, "clientId": client_id});
    format!(
        r#"new Promise((resolve) => {{
            const steps = {steps};
            const port = chrome.runtime.connect({{ name: "e2e-conversation" }});
            const events = [];
            let thread = localStorage.getItem("e2e-thread");
            const send = () => {{
                const step = steps.shift();
                if (!step) {{ resolve({{ how: "complete", events }}); port.disconnect(); return null; }}
                const text = JSON.stringify(step.send).replaceAll("$thread", thread ?? "");
                port.postMessage(JSON.parse(text));
                return step.until;
            }};
            let until = null;
            port.onMessage.addListener((m) => {{
                if (typeof m === "string") m = JSON.parse(m);
                events.push({{ t: performance.now(), event: m }});
                if (m.type === "command.ack" && m.threadId && !thread) {{
                    thread = m.threadId;
                    localStorage.setItem("e2e-thread", thread);
                }}
                if (m.type === "approval.request") {{
                    port.postMessage({{ type: "approval.response", submissionId: "ok-" + m.approvalId,
                        approvalId: m.approvalId, decision: {decision} }});
                }}
                const [untilType, untilTool] = (until ?? "").split(":");
                if (m.type === untilType && (!untilTool || m.meta?.toolName === untilTool)) {{
                    until = send();
                }}
            }});
            port.onDisconnect.addListener(() => resolve({{ how: "disconnected", events }}));
            port.postMessage({init});
            until = "initialized";
            setTimeout(() => resolve({{ how: "timeout", events }}), 60000);
        }})"#,
    )
}
