//! The engine client as a sans-IO state machine: the page's side of the port protocol.
//!
//! The host (the wasm layer in `port.rs`) feeds it what happened (port opened or closed, text
//! received, heartbeat timer) and carries out the [`ClientEffect`]s it returns (send text, save the
//! outbox, reconnect after a delay, hand events to the views). Nothing here touches the DOM or
//! `chrome.*`, so every rule is tested natively:
//!
//! * commands (Ops with a receipt) wait in an outbox until `command.ack` or `command.rejected`;
//!   after a reconnect they are resent with the same `submissionId`, which the engine's receipts
//!   make idempotent;
//! * a reconnect waits 500 ms, doubling up to 8 s, and the wait resets once a session opens;
//! * `fatal.reload_required` ends reconnecting for good and refuses new commands;
//! * unknown event types are ignored (a newer engine), malformed known ones are reported.

use panelot_protocol::AgentEvent;
use panelot_protocol::ClientId;
use panelot_protocol::DecodeError;
use panelot_protocol::ENGINE_PROTOCOL;
use panelot_protocol::ENGINE_SCHEMA_HASH;
use panelot_protocol::EventFrame;
use panelot_protocol::IdError;
use panelot_protocol::Op;
use panelot_protocol::SubmissionId;
use panelot_protocol::ThreadId;
use panelot_protocol::decode_event_str;
use panelot_protocol::engine::ErrorCode;
use panelot_protocol::engine::InitializeParams;
use panelot_protocol::engine::OpClass;
use panelot_protocol::engine::OpKind;
use panelot_protocol::engine::PingParams;
use panelot_protocol::engine::SubscribeTarget;
use panelot_protocol::engine::ThreadSubscribeParams;

/// `chrome.storage.local` key of the persistent client id (receipts live 7 days, across browser
/// restarts, so the id must outlive the session). `static/early.js` reads it before the wasm
/// runs.
pub const CLIENT_ID_KEY: &str = "panelot.clientId";
/// Interval of the `ping` heartbeat, which also keeps the service worker alive.
pub const PING_INTERVAL_MS: u32 = 20_000;
/// First reconnect delay.
pub const RECONNECT_INITIAL_MS: u32 = 500;
/// Longest reconnect delay.
pub const RECONNECT_MAX_MS: u32 = 8_000;

/// The state of the link to the engine, as shown to the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineLink {
    /// A port is open and `initialize` is on its way.
    Connecting,
    /// The session is open.
    Ready,
    /// The port dropped; a new one opens after a delay.
    Reconnecting {
        /// Consecutive failed attempts so far.
        attempt: u32,
    },
    /// The engine speaks another protocol version: the page must be reloaded. Final.
    ReloadRequired {
        /// The engine's explanation.
        message: String,
    },
}

impl EngineLink {
    /// The machine name shown in `data-engine-status`.
    pub fn name(&self) -> &'static str {
        match self {
            EngineLink::Connecting => "connecting",
            EngineLink::Ready => "ready",
            EngineLink::Reconnecting { .. } => "disconnected",
            EngineLink::ReloadRequired { .. } => "reload-required",
        }
    }
}

/// What the host must do.
#[derive(Debug, Clone, PartialEq)]
pub enum ClientEffect {
    /// Post this JSON text on the port.
    Send(String),
    /// Store this JSON text as the outbox in `chrome.storage.session`.
    SaveOutbox(String),
    /// Open a new port after this many milliseconds.
    ReconnectAfter(u32),
    /// The link state changed.
    Status(EngineLink),
    /// An event for the views (snapshots, thread and broadcast events).
    Deliver(Box<EventFrame>),
    /// A command was accepted: its optimistic change is now the engine's.
    Acked {
        /// The command.
        submission_id: SubmissionId,
        /// The thread it acted on.
        thread_id: Option<ThreadId>,
    },
    /// A command was refused: roll back its optimistic change.
    Rejected {
        /// The command.
        submission_id: SubmissionId,
        /// Why.
        code: ErrorCode,
        /// Explanation for the user.
        message: String,
    },
    /// A known event failed validation; shown as a diagnostic, never applied.
    Malformed(String),
}

/// Why a command was not taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClientError {
    /// The extension must be reloaded; input is disabled.
    #[error("the extension must be reloaded")]
    ReloadRequired,
}

/// Largest command kept in the saved outbox.
pub const OUTBOX_SAVE_MAX_BYTES: usize = 256 * 1024;

/// A command waiting for its answer, kept as the text sent: the page only resends it, so it
/// never decodes an Op (which would put a decoder of every Op into the UI's wasm).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutboxEntry {
    /// The command's id.
    pub submission_id: SubmissionId,
    /// The Op as JSON text.
    pub text: String,
}

/// The engine client of one page.
#[derive(Debug)]
pub struct EngineClient {
    client_id: ClientId,
    id_prefix: String,
    /// `{id_prefix}-0`, proof that the prefix makes valid ids.
    first_id: SubmissionId,
    next_id: u64,
    link: EngineLink,
    /// Ports closed since the last session opened; sets the reconnect delay.
    failed_attempts: u32,
    /// Commands not yet acknowledged or rejected, in send order.
    outbox: Vec<OutboxEntry>,
    subscribed: Option<ThreadId>,
    /// The `initialize` in flight, to recognise its answer.
    initialize_id: Option<SubmissionId>,
}

impl EngineClient {
    /// A client with the persistent `client_id`. `id_prefix` must be unique per page load (a
    /// random UUID): submission ids are `{id_prefix}-{n}`, and a receipt keyed by a reused id with
    /// another payload would be rejected. Fails if the prefix is not a valid id or is longer than
    /// 100 bytes (room for the counter).
    pub fn new(client_id: ClientId, id_prefix: &str) -> Result<EngineClient, IdError> {
        if id_prefix.len() > 100 {
            return Err(IdError::TooLong(id_prefix.len()));
        }
        let first_id = SubmissionId::new(format!("{id_prefix}-0"))?;
        Ok(EngineClient {
            client_id,
            id_prefix: id_prefix.to_owned(),
            first_id,
            next_id: 0,
            link: EngineLink::Connecting,
            failed_attempts: 0,
            outbox: Vec::new(),
            subscribed: None,
            initialize_id: None,
        })
    }

    /// The link state.
    pub fn link(&self) -> &EngineLink {
        &self.link
    }

    /// Commands waiting for an answer.
    pub fn outbox(&self) -> &[OutboxEntry] {
        &self.outbox
    }

    /// Whether the user may type and send.
    pub fn input_enabled(&self) -> bool {
        !matches!(self.link, EngineLink::ReloadRequired { .. })
    }

    /// Restores the outbox saved by an earlier page of this session (a reload keeps
    /// `chrome.storage.session`, which an update of the extension clears). An entry is kept when
    /// it is an object with a command's `type` and a valid `submissionId`; the engine checks the
    /// rest as it checks every Op. Returns how many commands were restored.
    pub fn restore_outbox(&mut self, saved: &str) -> usize {
        let Ok(serde_json::Value::Array(values)) = serde_json::from_str(saved) else {
            return 0;
        };
        let restored: Vec<OutboxEntry> = values.iter().filter_map(saved_command).collect();
        let n_restored = restored.len();
        for entry in restored {
            if !self.outbox.iter().any(|o| o.submission_id == entry.submission_id) {
                self.outbox.push(entry);
            }
        }
        n_restored
    }

    /// A fresh submission id.
    pub fn next_submission_id(&mut self) -> SubmissionId {
        self.next_id += 1;
        let raw = format!("{}-{}", self.id_prefix, self.next_id);
        // `new` checked the prefix and left room for any counter, so this cannot fail; the
        // fallback only keeps the function total.
        SubmissionId::new(raw).unwrap_or_else(|_| self.first_id.clone())
    }

    /// A port was opened: start the handshake.
    pub fn opened(&mut self) -> Vec<ClientEffect> {
        if let EngineLink::ReloadRequired { .. } = self.link {
            return Vec::new();
        }
        let submission_id = self.next_submission_id();
        self.initialize_id = Some(submission_id.clone());
        let initialize = Op::Initialize(InitializeParams {
            submission_id,
            protocol: ENGINE_PROTOCOL.to_owned(),
            schema_hash: ENGINE_SCHEMA_HASH.to_owned(),
            client_id: self.client_id.clone(),
            subscribe: self.subscribed.clone().map(|thread_id| SubscribeTarget { thread_id }),
        });
        let mut effects = self.set_link(EngineLink::Connecting);
        effects.extend(encode(&initialize).map(ClientEffect::Send));
        effects
    }

    /// The port closed.
    pub fn closed(&mut self) -> Vec<ClientEffect> {
        if let EngineLink::ReloadRequired { .. } = self.link {
            return Vec::new();
        }
        // A port that closes before its session opens counts as a failed attempt too, so the
        // delay keeps growing until an `initialized` arrives.
        let attempt = self.failed_attempts;
        self.failed_attempts = self.failed_attempts.saturating_add(1);
        self.initialize_id = None;
        let mut effects = self.set_link(EngineLink::Reconnecting { attempt });
        effects.push(ClientEffect::ReconnectAfter(reconnect_delay_ms(attempt)));
        effects
    }

    /// The heartbeat timer fired.
    pub fn heartbeat(&mut self) -> Vec<ClientEffect> {
        if self.link != EngineLink::Ready {
            return Vec::new();
        }
        let ping = Op::Ping(PingParams { submission_id: self.next_submission_id() });
        encode(&ping).map(ClientEffect::Send).into_iter().collect()
    }

    /// Follows `thread_id`: subscribes now if the session is open, and at every reconnect.
    pub fn subscribe(&mut self, thread_id: ThreadId) -> Vec<ClientEffect> {
        self.subscribed = Some(thread_id.clone());
        if self.link != EngineLink::Ready {
            return Vec::new();
        }
        let op = Op::ThreadSubscribe(ThreadSubscribeParams {
            submission_id: self.next_submission_id(),
            thread_id,
        });
        encode(&op).map(ClientEffect::Send).into_iter().collect()
    }

    /// The thread this page follows.
    pub fn subscribed(&self) -> Option<&ThreadId> {
        self.subscribed.as_ref()
    }

    /// Sends an Op built with a fresh submission id. Commands go through the outbox and are sent
    /// now if the session is open, otherwise once it opens; control Ops other than subscribe
    /// (`thread.list`) are sent only when open, since the views ask again after a reconnect.
    pub fn send(
        &mut self,
        build: impl FnOnce(SubmissionId) -> Op,
    ) -> Result<(SubmissionId, Vec<ClientEffect>), ClientError> {
        if !self.input_enabled() {
            return Err(ClientError::ReloadRequired);
        }
        let submission_id = self.next_submission_id();
        let op = build(submission_id.clone());
        let mut effects = Vec::new();
        let ready = self.link == EngineLink::Ready;
        match op.kind().class() {
            OpClass::Command => {
                let Some(text) = encode(&op) else { return Ok((submission_id, effects)) };
                if ready {
                    effects.push(ClientEffect::Send(text.clone()));
                }
                self.outbox.push(OutboxEntry { submission_id: submission_id.clone(), text });
                effects.extend(self.save_outbox());
            }
            OpClass::Control => {
                if ready {
                    effects.extend(encode(&op).map(ClientEffect::Send));
                }
            }
        }
        Ok((submission_id, effects))
    }

    /// Text arrived on the port.
    pub fn received(&mut self, text: &str) -> Vec<ClientEffect> {
        let frame = match decode_event_str(text) {
            Ok(frame) => frame,
            // A newer engine may send event types this page does not know: ignored by design.
            Err(DecodeError::UnknownType(_)) => return Vec::new(),
            Err(err) => return vec![ClientEffect::Malformed(err.to_string())],
        };
        match &frame.event {
            AgentEvent::Initialized(event) => {
                if self.initialize_id.as_ref() != Some(&event.submission_id) {
                    // The answer to an initialize of an earlier port; the current one follows.
                    return Vec::new();
                }
                self.initialize_id = None;
                self.failed_attempts = 0;
                let mut effects = self.set_link(EngineLink::Ready);
                // Resent with their original ids: the engine's receipts answer a command it has
                // already seen with its stored response instead of running it twice.
                effects.extend(self.outbox.iter().map(|e| ClientEffect::Send(e.text.clone())));
                effects.push(ClientEffect::Deliver(Box::new(frame)));
                effects
            }
            AgentEvent::FatalReloadRequired(event) => {
                let message = event.message.clone();
                let mut effects = self.set_link(EngineLink::ReloadRequired { message });
                effects.push(ClientEffect::Deliver(Box::new(frame)));
                effects
            }
            AgentEvent::CommandAck(event) => {
                let submission_id = event.submission_id.clone();
                let thread_id = event.thread_id.clone();
                let mut effects = self.settle(&submission_id);
                effects.push(ClientEffect::Acked { submission_id, thread_id });
                effects.push(ClientEffect::Deliver(Box::new(frame)));
                effects
            }
            AgentEvent::CommandRejected(event) => {
                let submission_id = event.submission_id.clone();
                let mut effects = self.settle(&submission_id);
                effects.push(ClientEffect::Rejected {
                    submission_id,
                    code: event.code,
                    message: event.message.clone(),
                });
                effects
            }
            AgentEvent::Pong(_) => Vec::new(),
            AgentEvent::Error(_)
            | AgentEvent::ThreadCreated(_)
            | AgentEvent::ThreadForked(_)
            | AgentEvent::ThreadSnapshot(_)
            | AgentEvent::ThreadListed(_)
            | AgentEvent::TurnStart(_)
            | AgentEvent::TurnComplete(_)
            | AgentEvent::TokenUsage(_)
            | AgentEvent::ThreadEarlier(_)
            | AgentEvent::TurnRetrying(_)
            | AgentEvent::ItemStart(_)
            | AgentEvent::ItemDelta(_)
            | AgentEvent::ItemComplete(_)
            | AgentEvent::ApprovalRequest(_)
            | AgentEvent::ApprovalResolved(_)
            | AgentEvent::InteractionRequest(_)
            | AgentEvent::InteractionResolved(_)
            | AgentEvent::ThreadDeleted(_)
            | AgentEvent::ThreadUpdated(_)
            | AgentEvent::QueueUpdated(_)
            | AgentEvent::RunRecoveryRequired(_)
            | AgentEvent::TabsUpdated(_)
            | AgentEvent::ActivityUpdated(_)
            | AgentEvent::ViewOpen(_)
            | AgentEvent::SettingsState(_)
            | AgentEvent::McpListed(_)
            | AgentEvent::McpFetched(_)
            | AgentEvent::ConnectionVerified(_) => vec![ClientEffect::Deliver(Box::new(frame))],
        }
    }

    /// Drops an answered command from the outbox.
    fn settle(&mut self, submission_id: &SubmissionId) -> Vec<ClientEffect> {
        let before = self.outbox.len();
        self.outbox.retain(|entry| &entry.submission_id != submission_id);
        if self.outbox.len() == before { Vec::new() } else { self.save_outbox() }
    }

    /// The outbox as a JSON array of the Ops, without those over [`OUTBOX_SAVE_MAX_BYTES`]
    /// (a file's `attachment.put`): `chrome.storage.session` holds 10 MB in all, and a save
    /// over that would fail whole. Such a command is resent while the page lives; after a
    /// reload the message that names it is refused (`attachment_not_found`) and its text given
    /// back.
    fn save_outbox(&self) -> Vec<ClientEffect> {
        let texts: Vec<&str> = self
            .outbox
            .iter()
            .map(|e| e.text.as_str())
            .filter(|text| text.len() <= OUTBOX_SAVE_MAX_BYTES)
            .collect();
        vec![ClientEffect::SaveOutbox(format!("[{}]", texts.join(",")))]
    }

    fn set_link(&mut self, link: EngineLink) -> Vec<ClientEffect> {
        if self.link == link {
            return Vec::new();
        }
        self.link = link.clone();
        vec![ClientEffect::Status(link)]
    }
}

/// Delay before reconnect attempt `attempt` (0-based): 500 ms doubling, at most 8 s.
pub fn reconnect_delay_ms(attempt: u32) -> u32 {
    let factor = 1u32.checked_shl(attempt.min(16)).unwrap_or(u32::MAX);
    RECONNECT_INITIAL_MS.saturating_mul(factor).min(RECONNECT_MAX_MS)
}

fn encode(op: &Op) -> Option<String> {
    serde_json::to_string(op).ok()
}

/// An entry of a saved outbox, if it is a command with a valid id.
fn saved_command(value: &serde_json::Value) -> Option<OutboxEntry> {
    let kind = OpKind::from_wire_name(value.get("type")?.as_str()?)?;
    if kind.class() != OpClass::Command {
        return None;
    }
    let submission_id = SubmissionId::new(value.get("submissionId")?.as_str()?).ok()?;
    Some(OutboxEntry { submission_id, text: value.to_string() })
}

#[cfg(test)]
#[path = "client_tests.rs"]
mod tests;
