//! The one host driver: everything between an [`Engine`] and the host's I/O. Inputs (port
//! events, effect results, timer ticks) are queued and handled one at a time by a single drain
//! loop, each to completion, so a command's effects come before anything sent after it and the
//! engine is only ever touched by that loop. Commands wait in a per-thread [`OpQueue`] of 32
//! (more are refused as `overloaded` at once). Effects the engine asks for are started through
//! [`HostIo::start`] with an [`AbortSignal`] the driver fires when the engine aborts them; their
//! results come back through [`Driver::push`]. The earliest wake-up the engine asks for is armed
//! with [`HostIo::wake_at`].
//!
//! The extension's service worker and the simulation run this same driver; a host supplies I/O
//! only.

mod op_queue;

use std::cell::Cell;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use panelot_protocol::EventFrame;
use panelot_protocol::engine::ConnectionCheck;

pub use op_queue::OP_QUEUE_CAPACITY;
pub use op_queue::OpQueue;
pub use op_queue::Ticket;

use crate::engine::Effect;
use crate::engine::EffectId;
use crate::engine::Engine;
use crate::engine::Outbox;
use crate::engine::PortId;
use crate::engine::ToolOutcome;
use crate::env::AbortHandle;
use crate::env::AbortSignal;
use crate::model::ModelEvent;
use crate::model::ModelResponse;
use crate::model::ProviderError;
use crate::sorted_map::SortedMap;
use crate::store::Store;
use crate::store::StoreError;
use crate::target::ResolvedTarget;
use crate::target::TargetFailure;

/// One input of the engine.
#[derive(Debug)]
pub enum Input {
    /// A port connected.
    Connect(PortId),
    /// A message arrived on a port (JSON text).
    Message(PortId, String),
    /// A port went away.
    Disconnect(PortId),
    /// An event of a model stream.
    ModelEvent(EffectId, ModelEvent),
    /// A model call ended.
    ModelDone(EffectId, Result<ModelResponse, ProviderError>),
    /// A target was resolved (or could not be).
    TargetResolved(EffectId, Result<ResolvedTarget, TargetFailure>),
    /// A tool call ended.
    ToolDone(EffectId, ToolOutcome),
    /// A connection check ended.
    VerifyDone(EffectId, ConnectionCheck),
    /// The user took back the extension's access to these origins.
    HostAccessRemoved(Vec<String>),
    /// An MCP server's status changed (server id, status).
    McpStatus(String, panelot_protocol::engine::McpStatus),
    /// An MCP server asks the user something during a call (form-mode elicitation).
    McpElicit {
        /// The module's id of the question, to answer with.
        request_id: String,
        /// The server.
        server: String,
        /// What it asks (untrusted text).
        message: String,
        /// The form: a JSON Schema object of primitive fields.
        schema: serde_json::Value,
        /// Where the call stands, when its stream can be resumed after a restart (opaque).
        resume: Option<String>,
    },
    /// The MCP client answered a question about prompts or resources.
    McpAnswered(EffectId, Result<serde_json::Value, String>),
    /// An MCP server's OAuth sign-in was made or refreshed (server id, sealed by the host).
    McpCredentials(String, serde_json::Value),
    /// An MCP server's catalog was listed (server id, tools).
    McpCatalog(String, Vec<crate::settings::McpCatalogTool>),
    /// The user did something in a page a run acts on (its indicator's Stop or Pause, or a
    /// takeover), as the host heard it from its own script in that page.
    Page(crate::engine::PageSignal),
    /// The time asked for with [`HostIo::wake_at`] came.
    Tick,
}

/// The I/O a host supplies.
pub trait HostIo {
    /// Posts a frame on a port.
    fn post(&self, port: PortId, frame: EventFrame);
    /// Closes a port (after posting what was sent to it).
    fn close(&self, port: PortId);
    /// Starts an effect; its result comes back through [`Driver::push`]. `signal` fires when the
    /// engine no longer wants it. Never [`Effect::Abort`]: the driver handles that itself.
    fn start(&self, effect: Effect, signal: AbortSignal);
    /// Pushes [`Input::Tick`] at `at_ms` (ms since the Unix epoch), or soon after.
    fn wake_at(&self, at_ms: u64);
}

struct Inner<S: Store, H: HostIo> {
    /// Taken by the drain loop while it runs; nobody else touches the engine.
    engine: RefCell<Option<Engine<S>>>,
    io: H,
    queue: RefCell<VecDeque<(Input, Option<Ticket>)>>,
    draining: Cell<bool>,
    op_queue: RefCell<OpQueue>,
    aborts: RefCell<SortedMap<EffectId, AbortHandle>>,
    /// The time a wake-up is already armed for.
    tick_at: Cell<Option<u64>>,
}

/// The driver around one engine. Cloning gives another handle to the same driver.
pub struct Driver<S: Store, H: HostIo> {
    inner: Rc<Inner<S, H>>,
}

impl<S: Store, H: HostIo> Clone for Driver<S, H> {
    fn clone(&self) -> Self {
        Driver { inner: Rc::clone(&self.inner) }
    }
}

impl<S: Store, H: HostIo> std::fmt::Debug for Driver<S, H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Driver").field("queued", &self.inner.queue.borrow().len()).finish()
    }
}

impl<S: Store, H: HostIo> Driver<S, H> {
    /// A driver around `engine`, doing its I/O with `io`.
    pub fn new(engine: Engine<S>, io: H) -> Self {
        Driver {
            inner: Rc::new(Inner {
                engine: RefCell::new(Some(engine)),
                io,
                queue: RefCell::new(VecDeque::new()),
                draining: Cell::new(false),
                op_queue: RefCell::new(OpQueue::new()),
                aborts: RefCell::new(SortedMap::new()),
                tick_at: Cell::new(None),
            }),
        }
    }

    /// The host's I/O.
    pub fn io(&self) -> &H {
        &self.inner.io
    }

    /// Recovers the stored runs ([`Engine::start`]) and starts what recovery asks for. Call once,
    /// before any input.
    pub async fn start(&self) -> Result<(), StoreError> {
        let Some(mut engine) = self.inner.engine.borrow_mut().take() else {
            return Ok(());
        };
        let started = engine.start().await;
        *self.inner.engine.borrow_mut() = Some(engine);
        self.deliver(started?);
        Ok(())
    }

    /// Queues an input. Returns whether the caller must run [`Driver::drain`]: `false` while a
    /// drain is already running (it will take the input) or when the input was answered at once
    /// (a command refused as `overloaded`).
    pub fn push(&self, input: Input) -> bool {
        let ticket = match &input {
            Input::Message(port, text) => match self.inner.op_queue.borrow_mut().admit(text) {
                Ok(ticket) => Some(ticket),
                Err(refused) => {
                    self.inner.io.post(*port, *refused);
                    return false;
                }
            },
            _ => None,
        };
        self.inner.queue.borrow_mut().push_back((input, ticket));
        !self.inner.draining.replace(true)
    }

    /// Handles queued inputs, each to completion, until none is left.
    pub async fn drain(&self) {
        let inner = &self.inner;
        let Some(mut engine) = inner.engine.borrow_mut().take() else {
            inner.draining.set(false);
            return;
        };
        loop {
            let next = inner.queue.borrow_mut().pop_front();
            let Some((input, ticket)) = next else { break };
            let outbox = handle(&mut engine, input, &inner.tick_at).await;
            if let Some(ticket) = ticket {
                inner.op_queue.borrow_mut().done(ticket);
            }
            self.deliver(outbox);
        }
        *inner.engine.borrow_mut() = Some(engine);
        inner.draining.set(false);
    }

    /// Reads the engine between drains (`None` while a drain holds it).
    pub fn with_engine<R>(&self, read: impl FnOnce(&Engine<S>) -> R) -> Option<R> {
        self.inner.engine.borrow().as_ref().map(read)
    }

    /// Carries out what the engine asked for.
    fn deliver(&self, outbox: Outbox) {
        let io = &self.inner.io;
        for (port, frame) in outbox.sends {
            io.post(port, frame);
        }
        for port in outbox.closes {
            io.close(port);
        }
        for effect in outbox.effects {
            match effect {
                Effect::Abort { id } => {
                    if let Some(handle) = self.inner.aborts.borrow_mut().remove(&id) {
                        handle.abort();
                    }
                }
                Effect::Highlight { .. }
                | Effect::Notify { .. }
                | Effect::McpConfigure { .. }
                | Effect::McpElicitAnswer { .. }
                | Effect::McpConnect { .. }
                | Effect::Indicator { .. } => {
                    io.start(effect, AbortSignal::default());
                }
                Effect::CallModel { id, .. }
                | Effect::ResolveTarget { id, .. }
                | Effect::RunTool { id, .. }
                | Effect::McpQuery { id, .. }
                | Effect::VerifyConnection { id, .. } => {
                    let (handle, signal) = AbortSignal::new();
                    self.inner.aborts.borrow_mut().insert(id, handle);
                    io.start(effect, signal);
                }
            }
        }
        if let Some(at) = outbox.wake_at_ms
            && self.inner.tick_at.get().is_none_or(|armed| armed > at)
        {
            self.inner.tick_at.set(Some(at));
            io.wake_at(at);
        }
    }

    /// An effect ended: its abort handle is no longer needed. Hosts need not call this (a
    /// result frees it too), but may, for effects that end without a result.
    pub fn forget_effect(&self, id: EffectId) {
        self.inner.aborts.borrow_mut().remove(&id);
    }
}

async fn handle<S: Store>(
    engine: &mut Engine<S>,
    input: Input,
    tick_at: &Cell<Option<u64>>,
) -> Outbox {
    match input {
        Input::Connect(port) => {
            engine.connect(port);
            Outbox::default()
        }
        Input::Message(port, text) => engine.on_text(port, &text).await,
        Input::Disconnect(port) => {
            engine.disconnect(port);
            Outbox::default()
        }
        Input::ModelEvent(id, event) => engine.on_model_event(id, event).await,
        Input::ModelDone(id, result) => engine.on_model_done(id, result).await,
        Input::TargetResolved(id, result) => engine.on_target_resolved(id, result).await,
        Input::ToolDone(id, outcome) => engine.on_tool_done(id, outcome).await,
        Input::VerifyDone(id, report) => engine.on_verify_done(id, report),
        Input::HostAccessRemoved(origins) => engine.on_host_access_removed(&origins).await,
        Input::McpStatus(server, status) => engine.on_mcp_status(&server, status).await,
        Input::McpCatalog(server, tools) => engine.on_mcp_catalog(&server, tools).await,
        Input::McpAnswered(id, answer) => engine.on_mcp_answered(id, answer),
        Input::McpElicit { request_id, server, message, schema, resume } => {
            engine.on_mcp_elicit(request_id, &server, message, schema, resume).await
        }
        Input::McpCredentials(server, sealed) => engine.on_mcp_credentials(&server, sealed).await,
        Input::Page(signal) => engine.on_page_signal(signal).await,
        Input::Tick => {
            tick_at.set(None);
            engine.on_tick().await
        }
    }
}
