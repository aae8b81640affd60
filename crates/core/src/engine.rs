//! The engine: every UI port's session, subscriptions and commands, over a [`Store`].
//!
//! Messages of a port are handled one at a time, each to completion (its writes committed and
//! its events queued) before the next: so a command's effects are ordered before anything the
//! same client sends after it, and a subscribe sent right after `thread.selectBranch` sees the
//! new branch. Events go to the sender ([`Delivery::Reply`]), to the ports subscribed to their
//! thread, or to every port; thread events carry a stream cursor (epoch, per-thread sequence)
//! and a snapshot carries the cursor it is current at, so a client never applies a live event
//! older than its snapshot.

mod agent_loop;
mod approvals;
mod deltas;
mod interactions;
mod op_queue;
mod presets;
mod recover;
mod settings;
mod threads;
mod turns;

use std::collections::BTreeMap;
use std::rc::Rc;

use panelot_protocol::AgentEvent;
use panelot_protocol::ClientId;
use panelot_protocol::ConnectionId;
use panelot_protocol::EventFrame;
use panelot_protocol::Op;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::CommandAckEvent;
use panelot_protocol::engine::CommandRejectedEvent;
use panelot_protocol::engine::Delivery;
use panelot_protocol::engine::ErrorCode;
use panelot_protocol::engine::PongEvent;
use panelot_protocol::engine::StreamCursor;

pub use agent_loop::FAILURE_BREAKER_AT;
pub use agent_loop::FAILURE_REMINDER_AT;
pub use agent_loop::NEEDS_HOST_PERMISSION;
pub use approvals::APPROVAL_TIMEOUT_MS;
pub use approvals::SETTING_RULES;
pub use approvals::SETTING_RULES_SEEDED;
pub use approvals::SETTING_SENSITIVE;
pub use approvals::StoredRule;
pub use approvals::seeded_rules;
pub use deltas::COALESCE_MS;
use deltas::DeltaBuffer;
pub use interactions::ASK_USER;
pub use interactions::REQUEST_USER_ACTION;
pub use interactions::builtin_tools;
pub use op_queue::OP_QUEUE_CAPACITY;
pub use op_queue::OpQueue;
pub use op_queue::Ticket;
use panelot_protocol::RunId;
use panelot_protocol::SubmissionId;
pub use settings::ConnectionVault;
pub use settings::SETTING_CONNECTIONS;
pub use threads::TITLE_PROMPT;
pub use turns::RUN_QUEUE_CAPACITY;
pub use turns::SETTING_DEFAULT_MODEL;
pub use turns::SETTING_PERMISSION_POLICY;
pub use turns::SETTING_TURN_TOKEN_BUDGET;

use crate::effects::Clock;
use crate::effects::IdSource;
use crate::model::ModelRequest;
use crate::receipts::ReceiptCheck;
use crate::receipts::check_receipt;
use crate::session::Session;
use crate::session::SessionStep;
use crate::store::RunRecord;
use crate::store::Store;
use crate::store::StoreError;
use crate::store::UnitOfWork;
use crate::store::WriteOp;
use crate::tools::ToolRegistry;

/// A port, as numbered by the host.
pub type PortId = u32;

/// What the host must do after the engine handled something.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Outbox {
    /// Frames to post, in order, with their port.
    pub sends: Vec<(PortId, EventFrame)>,
    /// Ports to close after posting.
    pub closes: Vec<PortId>,
    /// Work to start (or stop) outside the engine; results come back through
    /// [`Engine::on_model_event`], [`Engine::on_model_done`] and [`Engine::on_tool_done`].
    pub effects: Vec<Effect>,
    /// When to call [`Engine::on_tick`] next (ms since the Unix epoch), if at all.
    pub wake_at_ms: Option<u64>,
}

/// Identity of one effect; never reused by an engine, so a late result of an aborted effect
/// is recognised and dropped.
pub type EffectId = u64;

/// Work the engine asks the host to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Stream one model call (with a `ModelBackend`), feeding its events and outcome back.
    CallModel {
        /// The effect.
        id: EffectId,
        /// Connection to use.
        connection: String,
        /// The call.
        request: ModelRequest,
    },
    /// Run one tool call, feeding its outcome back.
    RunTool {
        /// The effect.
        id: EffectId,
        /// The call.
        call: ToolInvocation,
    },
    /// Check a stored connection (list models, stream once, one tool round trip), feeding the
    /// findings back through [`Engine::on_verify_done`].
    VerifyConnection {
        /// The effect.
        id: EffectId,
        /// Connection to check.
        connection: String,
        /// Model to try; the first listed one when `None`.
        model: Option<String>,
    },
    /// Stop an effect at once (its outcome, if any, is ignored).
    Abort {
        /// The effect.
        id: EffectId,
    },
}

/// A tool call to run.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolInvocation {
    /// Its thread.
    pub thread_id: ThreadId,
    /// Its run.
    pub run_id: RunId,
    /// Provider call id.
    pub call_id: String,
    /// Tool name.
    pub tool: String,
    /// Validated parameters.
    pub params: serde_json::Value,
    /// How many times this call has been dispatched, this time included (above 1 only for a
    /// replayed read or an explicit retry).
    pub dispatch: u32,
    /// The tab the user was on when sending the turn's message: where page tools act when
    /// the call names no tab and the run has not moved elsewhere.
    pub default_tab: Option<u32>,
}

/// Who wrote a tool call's outcome, which decides whether the model reads it as what the tool
/// returned (fenced when the tool reads untrusted content) or as the engine's own words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Author {
    /// The tool (or, for a question, the user answering it).
    Tool,
    /// The engine: refusals, denials, a write the user marked done.
    Engine,
}

/// How a tool call ended.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolOutcome {
    /// It worked.
    Success {
        /// What the model reads.
        content: String,
        /// Rich details for the UI (evidence, attachments); never sent to the model.
        details: Option<serde_json::Value>,
    },
    /// It failed; the message goes back to the model.
    Failure {
        /// What went wrong, for the model and the card.
        message: String,
        /// Rich details for the UI.
        details: Option<serde_json::Value>,
    },
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

/// What an effect in flight belongs to.
#[derive(Debug, Clone)]
enum InFlight {
    /// The model call of a run.
    Model(RunId),
    /// A tool call of a run (index into its tool calls).
    Tool(RunId, usize),
    /// The title of a thread, generated beside its first turn.
    Title { thread: ThreadId, fallback: String },
    /// A connection check asked for by a port.
    Verify { port: PortId, submission_id: SubmissionId, connection_id: ConnectionId },
}

/// The engine.
pub struct Engine<S: Store> {
    store: S,
    clock: Rc<dyn Clock>,
    ids: Rc<dyn IdSource>,
    epoch: u64,
    ports: BTreeMap<PortId, PortState>,
    sequences: BTreeMap<ThreadId, u64>,
    tools: ToolRegistry,
    /// Every open run, mirroring the store (updated only after a commit).
    runs: BTreeMap<RunId, RunRecord>,
    /// Streaming state of runs, lost on restart by design.
    live: BTreeMap<RunId, agent_loop::LiveRun>,
    in_flight: BTreeMap<EffectId, InFlight>,
    next_effect: EffectId,
    next_run_seq: u64,
    deltas: DeltaBuffer,
    /// Work queued by steps for after them: steps never call each other, so the loop has no
    /// recursion however long a turn runs.
    follow_ups: std::collections::VecDeque<FollowUp>,
    /// Seals connections from the settings form; without one, connections cannot be saved.
    vault: Option<Rc<dyn ConnectionVault>>,
    /// First turns whose thread gets a generated title once their first model call ended (so
    /// the title call never competes with the turn's own first call).
    titles_pending: std::collections::BTreeSet<RunId>,
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
    then: Vec<FollowUp>,
}

/// Work of a command that runs once its decision is durable and published.
#[derive(Debug, Clone)]
pub(crate) enum FollowUp {
    /// Start the thread's next queued run if it is free.
    Schedule(ThreadId),
    /// Make the run's next model call.
    Continue(RunId),
    /// Dispatch the run's next tool call.
    Dispatch(RunId),
    /// Stop an effect.
    Abort(EffectId),
    /// Apply an outcome decided without running the tool (a write the user marked done, a
    /// declined approval, the answer to a question).
    Outcome(EffectId, ToolOutcome, Author),
    /// Ask for the title of a thread, from its first message.
    Title(Box<TitleRequest>),
}

/// What a title call needs; taken when it is queued, since the run may end before it runs.
#[derive(Debug, Clone)]
pub(crate) struct TitleRequest {
    thread: ThreadId,
    model: panelot_protocol::engine::ModelChoice,
    text: String,
}

impl Decision {
    fn rejected(op: &Op, code: ErrorCode, message: impl Into<String>) -> Self {
        Decision {
            unit: UnitOfWork::new(),
            answer: rejection(op, code, message),
            events: Vec::new(),
            then: Vec::new(),
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

fn run_ack(op: &Op, thread_id: &ThreadId, run_id: &RunId) -> AgentEvent {
    AgentEvent::CommandAck(CommandAckEvent {
        submission_id: op.submission_id().clone(),
        thread_id: Some(thread_id.clone()),
        run_id: Some(run_id.clone()),
        revision: None,
    })
}

impl<S: Store> Engine<S> {
    /// An engine over `store`. `epoch` is the service-worker generation (persisted by the host
    /// across restarts and increased at each start).
    pub fn new(store: S, clock: Rc<dyn Clock>, ids: Rc<dyn IdSource>, epoch: u64) -> Self {
        Engine {
            store,
            clock,
            ids,
            epoch,
            ports: BTreeMap::new(),
            sequences: BTreeMap::new(),
            tools: ToolRegistry::new(),
            runs: BTreeMap::new(),
            live: BTreeMap::new(),
            in_flight: BTreeMap::new(),
            next_effect: 1,
            next_run_seq: 1,
            deltas: DeltaBuffer::default(),
            follow_ups: std::collections::VecDeque::new(),
            vault: None,
            titles_pending: std::collections::BTreeSet::new(),
        }
    }

    /// Sets the tools the model is offered, besides the engine's own (`ask_user`,
    /// `request_user_action`), which a host tool of the same name replaces.
    pub fn with_tools(mut self, mut tools: ToolRegistry) -> Self {
        for builtin in interactions::builtin_tools() {
            if tools.get(&builtin.name).is_none() {
                // The names are valid and free: registering cannot fail.
                let _ = tools.register(builtin);
            }
        }
        self.tools = tools;
        self
    }

    /// Lets the settings commands store connections, sealed by `vault`.
    pub fn with_vault(mut self, vault: Rc<dyn ConnectionVault>) -> Self {
        self.vault = Some(vault);
        self
    }

    /// Open runs, in admission order (for hosts, tests and the simulation's invariants).
    pub fn open_runs(&self) -> Vec<&RunRecord> {
        let mut runs: Vec<&RunRecord> = self.runs.values().collect();
        runs.sort_by_key(|r| r.seq);
        runs
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
        self.drain(&mut out).await;
        out
    }

    /// Sends what has waited long enough (coalesced deltas). Call at [`Outbox::wake_at_ms`].
    pub async fn on_tick(&mut self) -> Outbox {
        let mut out = Outbox::default();
        let now = self.clock.now_ms();
        for thread in self.deltas.due_threads(now) {
            self.flush_deltas(&thread, &mut out);
        }
        self.expire_approvals(&mut out).await;
        self.drain(&mut out).await;
        out
    }

    /// Sends every buffered delta at once (a host that is about to sleep).
    pub fn flush(&mut self) -> Outbox {
        let mut out = Outbox::default();
        let threads: Vec<ThreadId> = self.sequences.keys().cloned().collect();
        for thread in threads {
            self.flush_deltas(&thread, &mut out);
        }
        out
    }

    fn finish(&self, out: &mut Outbox) {
        out.wake_at_ms = match (self.deltas.deadline(), self.next_approval_deadline()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }

    /// Applies a unit of work, then mirrors its run changes in memory: the in-memory runs never
    /// run ahead of the store.
    async fn commit(&mut self, unit: UnitOfWork) -> Result<(), StoreError> {
        let changes: Vec<WriteOp> = unit
            .ops
            .iter()
            .filter(|op| {
                matches!(op, WriteOp::PutRun(_) | WriteOp::DeleteRun(_) | WriteOp::DeleteThread(_))
            })
            .cloned()
            .collect();
        self.store.commit(unit).await?;
        for change in changes {
            match change {
                WriteOp::PutRun(run) if run.is_terminal() => {
                    self.runs.remove(&run.id);
                    self.live.remove(&run.id);
                }
                WriteOp::PutRun(run) => {
                    self.runs.insert(run.id.clone(), *run);
                }
                WriteOp::DeleteRun(id) => {
                    self.runs.remove(&id);
                }
                WriteOp::DeleteThread(thread) => {
                    self.runs.retain(|_, run| run.thread_id != thread);
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn new_effect(&mut self, owner: InFlight) -> EffectId {
        let id = self.next_effect;
        self.next_effect += 1;
        self.in_flight.insert(id, owner);
        id
    }

    async fn handle_op(&mut self, port: PortId, client: ClientId, op: Op, out: &mut Outbox) {
        let result = match op {
            Op::ThreadList(params) => self.list_threads(port, &params, out).await,
            Op::ThreadSubscribe(params) => self.subscribe(port, &params, out).await,
            Op::SettingsGet(params) => self.get_settings(port, &params.submission_id, out).await,
            Op::ConnectionVerify(params) => self.verify_connection(port, params, out).await,
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
        let Decision { mut unit, answer, events, then } = decision;
        if answer_is_final(&answer) {
            unit.push(WriteOp::PutReceipt(pending.complete(&answer, now)?));
        }
        if !unit.ops.is_empty() {
            self.commit(unit).await?;
        }
        for event in events {
            self.publish(port, event, out);
        }
        self.publish(port, answer, out);
        self.follow_ups.extend(then);
        Ok(())
    }

    fn later(&mut self, follow_up: FollowUp) {
        self.follow_ups.push_back(follow_up);
    }

    /// Runs queued follow-ups until none is left; every entry point ends here.
    async fn drain(&mut self, out: &mut Outbox) {
        while let Some(follow_up) = self.follow_ups.pop_front() {
            self.follow_up(follow_up, out).await;
        }
        self.finish(out);
    }

    async fn follow_up(&mut self, follow_up: FollowUp, out: &mut Outbox) {
        match follow_up {
            FollowUp::Schedule(thread) => self.schedule(&thread, out).await,
            FollowUp::Continue(run) => self.call_model(&run, out).await,
            FollowUp::Dispatch(run) => self.dispatch_next_tool(&run, out).await,
            FollowUp::Abort(id) => {
                self.in_flight.remove(&id);
                out.effects.push(Effect::Abort { id });
            }
            FollowUp::Outcome(id, outcome, author) => {
                self.tool_done(id, outcome, author, out).await;
            }
            FollowUp::Title(request) => self.request_title(*request, out).await,
        }
    }

    async fn decide(&mut self, op: &Op) -> Result<Decision, StoreError> {
        match op {
            Op::ThreadCreate(params) => self.create_thread(op, params).await,
            Op::ThreadUpdate(params) => self.update_thread(op, params).await,
            Op::ThreadDelete(params) => self.delete_thread(op, params).await,
            Op::ThreadSelectBranch(params) => self.select_branch(op, params).await,
            Op::ThreadFork(params) => self.fork_thread(op, params).await,
            Op::TurnSubmit(p) => {
                self.admit(op, &p.thread_id, &p.input, p.overrides.as_ref(), None).await
            }
            Op::TurnEnqueue(p) => {
                self.admit(op, &p.thread_id, &p.input, p.overrides.as_ref(), None).await
            }
            Op::TurnFork(p) => {
                let sibling = Some(&p.sibling_of_node_id);
                self.admit(op, &p.thread_id, &p.input, p.overrides.as_ref(), sibling).await
            }
            Op::TurnSteer(p) => self.steer(op, p),
            Op::TurnInterrupt(p) => self.interrupt(op, &p.thread_id).await,
            Op::QueueUpdate(p) => self.queue_update(op, p),
            Op::QueueRemove(p) => self.queue_remove(op, p),
            Op::RunResume(p) => self.resume(op, p),
            Op::RunResolveUncertain(p) => self.resolve_uncertain(op, p).await,
            Op::ApprovalResponse(p) => self.respond_to_approval(op, p).await,
            Op::InteractionResponse(p) => self.respond_to_interaction(op, p).await,
            Op::SettingsUpdate(p) => self.update_settings(op, p).await,
            Op::ConnectionSave(p) => self.save_connection(op, p).await,
            Op::ConnectionDelete(p) => self.delete_connection(op, p).await,
            Op::RuleAdd(p) => self.add_rule(op, p).await,
            Op::RuleDelete(p) => self.delete_rule(op, p).await,
            Op::PresetSave(p) => self.save_preset(op, p).await,
            Op::PresetDelete(p) => self.delete_preset(op, p).await,
            Op::Initialize(_)
            | Op::ThreadList(_)
            | Op::ThreadSubscribe(_)
            | Op::SettingsGet(_)
            | Op::ConnectionVerify(_)
            | Op::Ping(_) => {
                Ok(Decision::rejected(op, ErrorCode::InvalidCommand, "not a receipted command"))
            }
        }
    }

    /// Sends `event` where its delivery says, with a stream cursor on thread events. Runs after
    /// the event's writes are committed, so it is also where ports stop following a deleted
    /// thread.
    fn publish(&mut self, sender: PortId, event: AgentEvent, out: &mut Outbox) {
        if let AgentEvent::ItemDelta(delta) = event {
            self.deltas.push(delta, self.clock.now_ms());
            return;
        }
        if let Some(thread) = event.common().thread_id().cloned() {
            self.flush_deltas(&thread, out);
        }
        self.emit(sender, event, out);
    }

    /// Publishes a thread event caused by the loop, not by a port's command.
    fn broadcast(&mut self, event: AgentEvent, out: &mut Outbox) {
        self.publish(PortId::MAX, event, out);
    }

    fn flush_deltas(&mut self, thread: &ThreadId, out: &mut Outbox) {
        for delta in self.deltas.take_thread(thread) {
            self.emit(PortId::MAX, AgentEvent::ItemDelta(delta), out);
        }
    }

    fn emit(&mut self, sender: PortId, event: AgentEvent, out: &mut Outbox) {
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
