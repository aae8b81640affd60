//! The engine: every UI port's session, subscriptions and commands, over a [`Store`].
//!
//! Messages of a port are handled one at a time, each to completion (its writes committed and
//! its events queued) before the next: so a command's effects are ordered before anything the
//! same client sends after it, and a subscribe sent right after `thread.selectBranch` sees the
//! new branch. Events go to the sender ([`Delivery::Reply`]), to the ports subscribed to their
//! thread, or to every port; thread events carry a stream cursor (epoch, per-thread sequence)
//! and a snapshot carries the cursor it is current at, so a client never applies a live event
//! older than its snapshot.

mod threads;

use std::collections::BTreeMap;
use std::rc::Rc;

use panelot_protocol::AgentEvent;
use panelot_protocol::ClientId;
use panelot_protocol::EventFrame;
use panelot_protocol::Op;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::CommandAckEvent;
use panelot_protocol::engine::CommandRejectedEvent;
use panelot_protocol::engine::Delivery;
use panelot_protocol::engine::ErrorCode;
use panelot_protocol::engine::PongEvent;
use panelot_protocol::engine::StreamCursor;

use crate::effects::Clock;
use crate::effects::IdSource;
use crate::receipts::ReceiptCheck;
use crate::receipts::check_receipt;
use crate::session::Session;
use crate::session::SessionStep;
use crate::store::Store;
use crate::store::StoreError;
use crate::store::UnitOfWork;
use crate::store::WriteOp;

/// A port, as numbered by the host.
pub type PortId = u32;

/// What the host must send and close after a message.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Outbox {
    /// Frames to post, in order, with their port.
    pub sends: Vec<(PortId, EventFrame)>,
    /// Ports to close after posting.
    pub closes: Vec<PortId>,
}

impl Outbox {
    /// Frames for one port, in order.
    pub fn for_port(&self, port: PortId) -> Vec<&EventFrame> {
        self.sends.iter().filter(|(p, _)| *p == port).map(|(_, f)| f).collect()
    }
}

#[derive(Debug, Default)]
struct PortState {
    session: Session,
    subscription: Option<ThreadId>,
}

/// The engine.
pub struct Engine<S: Store> {
    store: S,
    clock: Rc<dyn Clock>,
    ids: Rc<dyn IdSource>,
    epoch: u64,
    ports: BTreeMap<PortId, PortState>,
    sequences: BTreeMap<ThreadId, u64>,
}

impl<S: Store> std::fmt::Debug for Engine<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("epoch", &self.epoch)
            .field("ports", &self.ports.len())
            .finish()
    }
}

/// The outcome of a domain command: the unit to commit with its receipt, and events.
pub(crate) struct Decision {
    unit: UnitOfWork,
    answer: AgentEvent,
    events: Vec<AgentEvent>,
}

impl Decision {
    fn rejected(op: &Op, code: ErrorCode, message: impl Into<String>) -> Self {
        Decision {
            unit: UnitOfWork::new(),
            answer: rejection(op, code, message),
            events: Vec::new(),
        }
    }
}

fn rejection(op: &Op, code: ErrorCode, message: impl Into<String>) -> AgentEvent {
    AgentEvent::CommandRejected(CommandRejectedEvent {
        submission_id: op.submission_id().clone(),
        code,
        message: message.into(),
    })
}

/// Whether an answer is the command's final word, to be replayed for a resend: an ack, or a
/// refusal that the same state would always give again. A refusal that depends on the moment
/// (a full queue, a missing capability, an internal failure) is not recorded, so a resend is
/// judged afresh.
fn answer_is_final(answer: &AgentEvent) -> bool {
    let AgentEvent::CommandRejected(rejected) = answer else {
        return true;
    };
    match rejected.code {
        ErrorCode::ThreadNotFound | ErrorCode::InvalidCommand | ErrorCode::TurnMismatch => true,
        ErrorCode::ProtocolMismatch
        | ErrorCode::TurnNotSteerable
        | ErrorCode::NoActiveTurn
        | ErrorCode::QueueFull
        | ErrorCode::Overloaded
        | ErrorCode::Interrupted
        | ErrorCode::ProviderError
        | ErrorCode::NotConfigured
        | ErrorCode::Internal => false,
    }
}

fn ack(op: &Op, thread_id: Option<ThreadId>, revision: Option<u64>) -> AgentEvent {
    AgentEvent::CommandAck(CommandAckEvent {
        submission_id: op.submission_id().clone(),
        thread_id,
        run_id: None,
        revision,
    })
}

impl<S: Store> Engine<S> {
    /// An engine over `store`. `epoch` is the service-worker generation (persisted by the host
    /// across restarts and increased at each start).
    pub fn new(store: S, clock: Rc<dyn Clock>, ids: Rc<dyn IdSource>, epoch: u64) -> Self {
        Engine { store, clock, ids, epoch, ports: BTreeMap::new(), sequences: BTreeMap::new() }
    }

    /// The store.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// A port connected.
    pub fn connect(&mut self, port: PortId) {
        self.ports.insert(port, PortState::default());
    }

    /// A port went away.
    pub fn disconnect(&mut self, port: PortId) {
        self.ports.remove(&port);
    }

    /// Handles one message of a port, to completion.
    pub async fn on_text(&mut self, port: PortId, text: &str) -> Outbox {
        let mut out = Outbox::default();
        let Some(state) = self.ports.get_mut(&port) else {
            return out;
        };
        match state.session.on_text(text) {
            SessionStep::Reply(reply) => {
                out.sends.extend(reply.frames.into_iter().map(|f| (port, f)));
                if reply.close {
                    out.closes.push(port);
                    self.ports.remove(&port);
                }
            }
            SessionStep::Opened(params) => self.opened(port, params, &mut out).await,
            SessionStep::Op { client_id, op } => {
                self.handle_op(port, client_id, op, &mut out).await
            }
        }
        out
    }

    async fn handle_op(&mut self, port: PortId, client: ClientId, op: Op, out: &mut Outbox) {
        let result = match op {
            Op::ThreadList(params) => self.list_threads(port, &params, out).await,
            Op::ThreadSubscribe(params) => self.subscribe(port, &params, out).await,
            Op::Ping(ping) => {
                let pong = AgentEvent::Pong(PongEvent { submission_id: ping.submission_id });
                out.sends.push((port, EventFrame::new(pong)));
                Ok(())
            }
            // The session answers a second `initialize` itself; it never reaches the engine.
            Op::Initialize(_) => Ok(()),
            command => self.run_command(port, &client, command, out).await,
        };
        if let Err(err) = result {
            tracing::warn!(%err, "store failure while handling a command");
            out.sends
                .push((port, EventFrame::new(crate::session::internal_error(&err.to_string()))));
        }
    }

    /// Runs a receipted command: replay, conflict, or decide, commit with its receipt, publish.
    async fn run_command(
        &mut self,
        port: PortId,
        client: &ClientId,
        op: Op,
        out: &mut Outbox,
    ) -> Result<(), StoreError> {
        let now = self.clock.now_ms();
        let pending = match check_receipt(&self.store, client, &op, now).await? {
            ReceiptCheck::Replay(frame) => {
                out.sends.push((port, frame));
                return Ok(());
            }
            ReceiptCheck::Conflict(message) => {
                out.sends.push((
                    port,
                    EventFrame::new(rejection(&op, ErrorCode::InvalidCommand, message)),
                ));
                return Ok(());
            }
            ReceiptCheck::New(pending) => pending,
        };
        let decision = self.decide(&op).await?;
        let Decision { mut unit, answer, events } = decision;
        if answer_is_final(&answer) {
            unit.push(WriteOp::PutReceipt(pending.complete(&answer, now)?));
        }
        if !unit.ops.is_empty() {
            self.store.commit(unit).await?;
        }
        for event in events {
            self.publish(port, event, out);
        }
        self.publish(port, answer, out);
        Ok(())
    }

    async fn decide(&mut self, op: &Op) -> Result<Decision, StoreError> {
        match op {
            Op::ThreadCreate(params) => self.create_thread(op, params),
            Op::ThreadUpdate(params) => self.update_thread(op, params).await,
            Op::ThreadDelete(params) => self.delete_thread(op, params).await,
            Op::ThreadSelectBranch(params) => self.select_branch(op, params).await,
            Op::ThreadFork(params) => self.fork_thread(op, params).await,
            Op::TurnSubmit(_)
            | Op::TurnFork(_)
            | Op::TurnSteer(_)
            | Op::TurnEnqueue(_)
            | Op::TurnInterrupt(_)
            | Op::QueueUpdate(_)
            | Op::QueueRemove(_)
            | Op::RunResume(_)
            | Op::RunResolveUncertain(_)
            | Op::ApprovalResponse(_)
            | Op::InteractionResponse(_) => Ok(Decision::rejected(
                op,
                ErrorCode::NotConfigured,
                format!(
                    "`{}` needs the agent loop, which this engine build does not run yet",
                    op.kind().wire_name()
                ),
            )),
            Op::Initialize(_) | Op::ThreadList(_) | Op::ThreadSubscribe(_) | Op::Ping(_) => {
                Ok(Decision::rejected(op, ErrorCode::InvalidCommand, "not a receipted command"))
            }
        }
    }

    /// Sends `event` where its delivery says, with a stream cursor on thread events. Runs after
    /// the event's writes are committed, so it is also where ports stop following a deleted
    /// thread.
    fn publish(&mut self, sender: PortId, event: AgentEvent, out: &mut Outbox) {
        if let AgentEvent::ThreadDeleted(deleted) = &event {
            for state in self.ports.values_mut() {
                if state.subscription.as_ref() == Some(&deleted.thread_id) {
                    state.subscription = None;
                }
            }
        }
        let thread = event.common().thread_id().cloned();
        let stream = thread.as_ref().map(|id| self.next_cursor(id));
        let frame = EventFrame { event, stream };
        let recipients: Vec<PortId> = match frame.event.kind().delivery() {
            Delivery::Reply => vec![sender],
            Delivery::Thread => self
                .ports
                .iter()
                .filter(|(_, p)| p.subscription.is_some() && p.subscription == thread)
                .map(|(id, _)| *id)
                .collect(),
            Delivery::Everyone => {
                self.ports.iter().filter(|(_, p)| p.session.is_open()).map(|(id, _)| *id).collect()
            }
        };
        for port in recipients {
            out.sends.push((port, frame.clone()));
        }
    }

    fn next_cursor(&mut self, thread: &ThreadId) -> StreamCursor {
        let sequence = self.sequences.entry(thread.clone()).or_insert(0);
        *sequence += 1;
        StreamCursor { thread_id: thread.clone(), epoch: self.epoch, sequence: *sequence }
    }

    fn current_cursor(&self, thread: &ThreadId) -> StreamCursor {
        let sequence = self.sequences.get(thread).copied().unwrap_or(0);
        StreamCursor { thread_id: thread.clone(), epoch: self.epoch, sequence }
    }
}

#[cfg(test)]
#[path = "engine_tests.rs"]
mod tests;
