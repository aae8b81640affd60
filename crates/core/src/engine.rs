//! The engine: the router between its parts. It owns the store and the parts' state, and is the
//! only code that commits, publishes and starts effects:
//!
//! * [`delivery`]: ports, sessions, subscriptions, stream cursors, coalesced deltas;
//! * [`threads`], [`turns`], [`setup`], [`presets`], [`approvals`], [`interactions`]: commands,
//!   each decided as one unit of work with its receipt ([`decision::Decision`]);
//! * [`machine`]: the run machine, pure steps of the agent loop ([`decision::Step`]);
//! * [`run_table`]: the open runs mirrored from the store, with their live streams;
//! * [`in_flight`]: the effects the host runs for the engine; [`vault`]: how connections are
//!   stored; [`reads`]: what parts may read; [`outbox`]: what the host gets back.
//!
//! Messages of a port are handled one at a time, each to completion (its writes committed and its
//! events queued) before the next: so a command's effects are ordered before anything the same
//! client sends after it, and a subscribe sent right after `thread.selectBranch` sees the new
//! branch. Parts never call each other: they return follow-ups, which [`Engine`] runs in order
//! until none is left, so every entry point ends in one drain loop.

mod approvals;
mod artifacts;
mod attachments;
mod builtins;
mod decision;
mod delivery;
mod in_flight;
mod interactions;
mod machine;
mod mcp;
mod mcp_live;
mod notices;
mod outbox;
mod page_signals;
mod presets;
mod reads;
mod recover;
mod run_table;
mod setup;
mod threads;
mod turns;
mod vault;
mod waits;

use std::collections::VecDeque;
use std::rc::Rc;

use panelot_protocol::AgentEvent;
use panelot_protocol::ClientId;
use panelot_protocol::EventFrame;
use panelot_protocol::InteractionId;
use panelot_protocol::Op;
use panelot_protocol::Origin;
use panelot_protocol::RunId;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::ActivityUpdatedEvent;
use panelot_protocol::engine::ConnectionCheck;
use panelot_protocol::engine::ConnectionVerifiedEvent;
use panelot_protocol::engine::ConnectionVerifyParams;
use panelot_protocol::engine::ErrorCode;
use panelot_protocol::engine::InitializeParams;
use panelot_protocol::engine::InteractionRequestPayload;
use panelot_protocol::engine::InteractionResponse;
use panelot_protocol::engine::McpCallOutcome;
use panelot_protocol::engine::McpStatus;
use panelot_protocol::engine::PongEvent;
use panelot_protocol::engine::RunState;
use panelot_protocol::engine::SettingsStateEvent;
use panelot_protocol::engine::StopReason;
use panelot_protocol::engine::ThreadActivity;
use panelot_protocol::engine::ThreadEarlierEvent;
use panelot_protocol::engine::ThreadLoadEarlierParams;
use panelot_protocol::engine::ThreadSnapshotEvent;
use panelot_protocol::engine::ThreadSubscribeParams;
use panelot_protocol::engine::TurnErrorView;

pub use approvals::APPROVAL_TIMEOUT_MS;
pub use delivery::COALESCE_MS;
pub use interactions::ASK_USER;
pub use interactions::REQUEST_USER_ACTION;
pub use interactions::SCHEDULE_RESUME;
pub use interactions::WATCH_PAGE;
pub use machine::result::FAILURE_BREAKER_AT;
pub use machine::result::FAILURE_REMINDER_AT;
pub use machine::title::TITLE_PROMPT;
pub use outbox::Effect;
pub use outbox::EffectId;
pub use outbox::FailureCause;
pub use outbox::IndicatorState;
pub use outbox::McpQuery;
pub use outbox::McpResume;
pub use outbox::Notice;
pub use outbox::Outbox;
pub use outbox::PortId;
pub use outbox::ToolInvocation;
pub use outbox::ToolOutcome;
pub use outbox::ToolStatus;
pub use page_signals::PageSignal;
pub use page_signals::PageSignalKind;
pub use turns::RUN_QUEUE_CAPACITY;
pub use vault::ConnectionVault;

/// The largest resume point of an MCP call kept with its question (a larger one is dropped:
/// the question then ends with a restart).
const MAX_MCP_RESUME_BYTES: usize = 4 * 1024;

use decision::Decision;
use decision::EffectRequest;
use decision::FollowUp;
use decision::Step;
use decision::TitleRequest;
use decision::answer_is_final;
use decision::rejection;
use delivery::Delivery;
use in_flight::InFlight;
use in_flight::InFlightTable;
use machine::chain::ThreadState;
use machine::dispatch::Judging;
use machine::end::Ending;
use reads::Reads;
use run_table::RunTable;

use crate::env::Clock;
use crate::env::Env;
use crate::env::IdSource;
use crate::handshake::initialized;
use crate::model::ModelEvent;
use crate::model::ModelResponse;
use crate::model::ProviderError;
use crate::receipts::ReceiptCheck;
use crate::receipts::check_receipt;
use crate::receipts::settled_answer;
use crate::session::SessionStep;
use crate::settings;
use crate::settings::McpCatalogTool;
use crate::settings::PermissionState;
use crate::snapshot::EarlierError;
use crate::snapshot::LoadError;
use crate::snapshot::load_thread_view;
use crate::sorted_map::SortedMap;
use crate::store::RunRecord;
use crate::store::Store;
use crate::store::StoreError;
use crate::store::UnitOfWork;
use crate::store::WriteOp;
use crate::target::ResolvedTarget;
use crate::target::TargetFailure;
use crate::tools::ToolRegistry;
use crate::tools::catalog;

/// The engine.
pub struct Engine<S: Store> {
    store: S,
    env: Env,
    tools: ToolRegistry,
    /// Seals connections from the settings form; without one, connections cannot be saved.
    vault: Option<Rc<dyn ConnectionVault>>,
    /// The browser session "accept for this session" grants belong to.
    session: String,
    delivery: Delivery,
    runs: RunTable,
    in_flight: InFlightTable,
    follow_ups: VecDeque<FollowUp>,
    /// The activity every UI was last told about (`activity.updated`).
    activity: Vec<ThreadActivity>,
    /// Threads a notification was shown for, until they stop waiting.
    notified: SortedMap<ThreadId, ()>,
    /// When each thread's running turn started, for the notice of a long turn that ended.
    running_since: SortedMap<ThreadId, u64>,
    /// What the host's MCP client last said about each server.
    mcp: mcp_live::McpLive,
    /// The MCP client's id of each server question shown as an interaction (lost with the
    /// worker, as the question is: recovery parks such a run).
    elicitations: SortedMap<InteractionId, String>,
    /// Page indicators of runs that stopped acting, to take down (or show as paused) once
    /// their change is committed.
    indicators: Vec<Effect>,
}

impl<S: Store> std::fmt::Debug for Engine<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine").field("delivery", &self.delivery).finish_non_exhaustive()
    }
}

impl<S: Store> Engine<S> {
    /// An engine over `store`. `epoch` is the service-worker generation (persisted by the host
    /// across restarts and increased at each start).
    pub fn new(store: S, clock: Rc<dyn Clock>, ids: Rc<dyn IdSource>, epoch: u64) -> Self {
        Engine {
            store,
            env: Env { clock, ids },
            tools: ToolRegistry::new(),
            vault: None,
            session: String::new(),
            delivery: Delivery::new(epoch),
            runs: RunTable::default(),
            in_flight: InFlightTable::default(),
            follow_ups: VecDeque::new(),
            activity: Vec::new(),
            notified: SortedMap::new(),
            running_since: SortedMap::new(),
            mcp: mcp_live::McpLive::default(),
            elicitations: SortedMap::new(),
            indicators: Vec::new(),
        }
    }

    /// Sets the tools the model is offered (build them with [`crate::tools::registry`]).
    pub fn with_tools(mut self, tools: ToolRegistry) -> Self {
        self.tools = tools;
        self
    }

    /// Lets the settings commands store connections, sealed by `vault`.
    pub fn with_vault(mut self, vault: Rc<dyn ConnectionVault>) -> Self {
        self.vault = Some(vault);
        self
    }

    /// Names the browser session: "accept for this session" grants of another session are not
    /// in force. A host without sessions leaves it empty (grants last as long as the profile).
    pub fn with_browser_session(mut self, session: impl Into<String>) -> Self {
        self.session = session.into();
        self
    }

    /// Seeds the default rules once, loads the open runs and recovers them. Call once, before
    /// the first port connects; the outbox holds the effects to start (resumed model calls,
    /// replayed reads).
    pub async fn start(&mut self) -> Result<Outbox, StoreError> {
        let mut out = Outbox::default();
        if let Some(unit) = setup::seed_rules(&self.store).await? {
            self.commit(unit).await?;
        }
        // The last good catalogs first: a restored MCP call is judged by its descriptor.
        mcp::offer_tools(&self.store, &mut self.tools).await?;
        if !mcp::stored_servers(&self.store).await?.is_empty() {
            out.effects.push(mcp::configure(&self.store).await?);
        }
        let open = self.store.open_runs().await?;
        let recovery = recover::recover(open, &self.tools, self.env.now_ms());
        self.runs.load(recovery.runs);
        for (run, step) in recovery.steps {
            self.apply(&run, step, &mut out).await;
        }
        self.follow_ups.extend(recovery.then);
        self.drain(&mut out).await;
        Ok(out)
    }

    /// Open runs, in admission order (for hosts, tests and the simulation's invariants).
    pub fn open_runs(&self) -> Vec<&RunRecord> {
        self.runs.open()
    }

    /// The store.
    pub fn store(&self) -> &S {
        &self.store
    }

    fn reads(&self) -> Reads<'_, S> {
        Reads {
            store: &self.store,
            env: &self.env,
            tools: &self.tools,
            runs: &self.runs,
            vault: self.vault.as_ref(),
            session: &self.session,
            mcp: &self.mcp,
        }
    }

    /// A port connected.
    pub fn connect(&mut self, port: PortId) {
        self.delivery.connect(port);
    }

    /// A port went away.
    pub fn disconnect(&mut self, port: PortId) {
        self.delivery.disconnect(port);
    }

    /// Handles one message of a port, to completion.
    pub async fn on_text(&mut self, port: PortId, text: &str) -> Outbox {
        let mut out = Outbox::default();
        match self.delivery.session_step(port, text) {
            None => return out,
            Some(SessionStep::Reply(reply)) => {
                out.sends.extend(reply.frames.into_iter().map(|f| (port, f)));
                if reply.close {
                    out.closes.push(port);
                    self.delivery.disconnect(port);
                }
            }
            Some(SessionStep::Opened(params)) => self.opened(port, *params, &mut out).await,
            Some(SessionStep::Op { client_id, op }) => {
                self.handle_op(port, client_id, op, &mut out).await;
            }
        }
        self.drain(&mut out).await;
        out
    }

    /// Sends what has waited long enough (coalesced deltas) and declines expired approvals. Call
    /// at [`Outbox::wake_at_ms`].
    pub async fn on_tick(&mut self) -> Outbox {
        let mut out = Outbox::default();
        self.delivery.flush_due(self.env.now_ms(), &mut out);
        self.expire_approvals(&mut out).await;
        self.end_due_waits(&mut out).await;
        self.drain(&mut out).await;
        out
    }

    /// Sends every buffered delta at once (a host that is about to sleep).
    pub fn flush(&mut self) -> Outbox {
        let mut out = Outbox::default();
        self.delivery.flush_all(&mut out);
        out
    }

    /// An event of a model stream.
    pub async fn on_model_event(&mut self, id: EffectId, event: ModelEvent) -> Outbox {
        let mut out = Outbox::default();
        if let Some(InFlight::Model(run_id)) = self.in_flight.owner(id).cloned()
            && let Some(run) = self.runs.get(&run_id).cloned()
        {
            let new_item = machine::chain::new_item_id(&self.env);
            if let Some(live) = self.runs.live_mut(&run_id) {
                let events = live.on_event(&run, event, new_item, &self.tools);
                let now = self.env.now_ms();
                for event in events {
                    self.delivery.broadcast(event, now, &mut out);
                }
            }
        }
        self.drain(&mut out).await;
        out
    }

    /// The outcome of a model call.
    pub async fn on_model_done(
        &mut self,
        id: EffectId,
        result: Result<ModelResponse, ProviderError>,
    ) -> Outbox {
        let mut out = Outbox::default();
        match self.in_flight.finish(id) {
            Some(InFlight::Model(run_id)) => {
                // The generated title follows the turn's first answer, whatever it was.
                if self.runs.take_title(&run_id)
                    && let Some(run) = self.runs.get(&run_id)
                {
                    let request = TitleRequest {
                        thread: run.thread_id.clone(),
                        model: run.model.clone(),
                        text: run.input.text.clone(),
                    };
                    self.follow_ups.push_back(FollowUp::Title(Box::new(request)));
                }
                match result {
                    Ok(response) => {
                        self.follow_ups.push_front(FollowUp::Answered(run_id, Box::new(response)));
                    }
                    Err(err) => self.model_failed(&run_id, err, &mut out).await,
                }
            }
            Some(InFlight::Title { thread, fallback }) => {
                if let Ok(response) = result {
                    self.title_answered(&thread, &fallback, &response, &mut out).await;
                }
            }
            Some(
                InFlight::Tool(..)
                | InFlight::McpQuery { .. }
                | InFlight::Watch(..)
                | InFlight::Target(..)
                | InFlight::Verify { .. },
            )
            | None => {}
        }
        self.drain(&mut out).await;
        out
    }

    /// Where a tool call would act, as the host resolved it.
    pub async fn on_target_resolved(
        &mut self,
        id: EffectId,
        result: Result<ResolvedTarget, TargetFailure>,
    ) -> Outbox {
        let mut out = Outbox::default();
        if let Some(InFlight::Target(run, index)) = self.in_flight.finish(id) {
            let follow_up = match result {
                Ok(target) => FollowUp::Judge(run, index, Box::new(target)),
                Err(TargetFailure::NoHostAccess { origin }) => {
                    let outcome = ToolOutcome::failed_because(
                        format!(
                            "Panelot has no access to {origin}; the user was asked to allow it"
                        ),
                        FailureCause::NoHostAccess { origin },
                    );
                    FollowUp::WriteResult {
                        run,
                        index,
                        body: decision::ResultBody::Outcome(outcome),
                    }
                }
                Err(TargetFailure::Unreachable { message, details }) => {
                    let outcome = ToolOutcome { details, ..ToolOutcome::failed(message) };
                    FollowUp::WriteResult {
                        run,
                        index,
                        body: decision::ResultBody::Outcome(outcome),
                    }
                }
            };
            self.follow_ups.push_back(follow_up);
        }
        self.drain(&mut out).await;
        out
    }

    /// The outcome of a tool call.
    pub async fn on_tool_done(&mut self, id: EffectId, outcome: ToolOutcome) -> Outbox {
        let mut out = Outbox::default();
        match self.in_flight.finish(id) {
            Some(InFlight::Tool(run, index)) => {
                if let ToolStatus::Failed { cause: FailureCause::NeedsSignIn, .. } = &outcome.status
                {
                    self.ask_sign_in(&run, index, &mut out).await;
                }
                self.end_elicitation(&run, &mut out).await;
                let body = decision::ResultBody::Outcome(outcome);
                self.follow_ups.push_back(FollowUp::WriteResult { run, index, body });
            }
            Some(InFlight::Watch(run, index)) => self.watched(&run, index, outcome, &mut out).await,
            _ => {}
        }
        self.drain(&mut out).await;
        out
    }

    /// An MCP server's status, as the host's client saw it change: every settings view hears
    /// of it.
    pub async fn on_mcp_status(&mut self, server: &str, status: McpStatus) -> Outbox {
        let mut out = Outbox::default();
        if self.mcp.set_status(server, status) {
            self.publish_settings(&mut out).await;
        }
        out
    }

    /// An MCP server's catalog, listed anew: kept as its last good one and offered to the
    /// model from the next call on.
    pub async fn on_mcp_catalog(&mut self, server: &str, tools: Vec<McpCatalogTool>) -> Outbox {
        let mut out = Outbox::default();
        let stored = match mcp::store_catalog(&self.store, server, tools).await {
            Ok(Some(unit)) => self.commit(unit).await.map(|()| true),
            Ok(None) => Ok(false),
            Err(err) => Err(err),
        };
        match stored {
            Ok(true) => {
                if let Err(err) = mcp::offer_tools(&self.store, &mut self.tools).await {
                    tracing::warn!(%err, "could not offer the MCP tools");
                }
                self.publish_settings(&mut out).await;
            }
            Ok(false) => {}
            Err(err) => tracing::warn!(%err, "could not store an MCP catalog"),
        }
        out
    }

    /// An MCP server's OAuth sign-in was made or refreshed: kept (sealed) for the next start.
    pub async fn on_mcp_credentials(&mut self, server: &str, sealed: serde_json::Value) -> Outbox {
        let stored = match mcp::store_credentials(&self.store, server, sealed).await {
            Ok(Some(unit)) => self.commit(unit).await,
            Ok(None) => Ok(()),
            Err(err) => Err(err),
        };
        if let Err(err) = stored {
            tracing::warn!(%err, "could not keep an MCP sign-in");
        }
        Outbox::default()
    }

    /// Offers the stored servers' tools anew and tells the host the set of servers.
    async fn offer_mcp(&mut self, out: &mut Outbox) {
        let configure = async {
            mcp::offer_tools(&self.store, &mut self.tools).await?;
            mcp::configure(&self.store).await
        };
        match configure.await {
            Ok(configure) => out.effects.push(configure),
            Err(err) => tracing::warn!(%err, "could not read the MCP servers"),
        }
    }

    /// Sends every UI the settings as they are now.
    async fn publish_settings(&mut self, out: &mut Outbox) {
        match setup::settings_view(&self.reads(), setup::Overlay::default()).await {
            Ok(settings) => {
                let event =
                    AgentEvent::SettingsState(SettingsStateEvent { submission_id: None, settings });
                self.delivery.broadcast(event, self.env.now_ms(), out);
            }
            Err(err) => tracing::warn!(%err, "could not read the settings"),
        }
    }

    /// An MCP server asks the user something during a call: the run of that call waits on
    /// the question as an interaction; with no call of that server under way it is declined.
    /// With `resume` (where the call stands, opaque) the question outlives a restart.
    pub async fn on_mcp_elicit(
        &mut self,
        request_id: String,
        server: &str,
        message: String,
        schema: serde_json::Value,
        resume: Option<String>,
    ) -> Outbox {
        let mut out = Outbox::default();
        let asking = self.in_flight.tool_calls().into_iter().rev().find(|(run, index)| {
            // Only a run at its call can wait on a question (a run stopping meanwhile cannot).
            self.runs.get(run).is_some_and(|r| {
                r.state == RunState::ExecutingTool
                    && r.interaction.is_none()
                    && r.tools
                        .get(*index)
                        .is_some_and(|call| mcp_live::server_of(&call.tool_name) == Some(server))
            })
        });
        let Some((run_id, index)) = asking else {
            let result = serde_json::json!({"action": "decline"});
            out.effects.push(Effect::McpElicitAnswer { request_id, result });
            return out;
        };
        let Some(run) = self.runs.get(&run_id).cloned() else { return out };
        let request = InteractionRequestPayload::McpElicitation {
            server_id: server.to_owned(),
            message,
            schema,
        };
        let resume = resume.filter(|point| point.len() <= MAX_MCP_RESUME_BYTES);
        let step = interactions::ask(self.reads().cx(), run, index, request, resume);
        if let Ok(step) = &step {
            for event in &step.events {
                if let AgentEvent::InteractionRequest(asked) = event {
                    self.elicitations.insert(asked.interaction_id.clone(), request_id.clone());
                }
            }
        }
        self.apply(&run_id, step, &mut out).await;
        self.drain(&mut out).await;
        out
    }

    /// Tells the user, with a notification, that a run's MCP server wants them to sign in
    /// again: the run cannot do it alone, and may be in the background.
    async fn ask_sign_in(&mut self, run: &RunId, index: usize, out: &mut Outbox) {
        let Some(run) = self.runs.get(run) else { return };
        let thread = run.thread_id.clone();
        let tool = run.tools.get(index).map(|call| call.tool_name.clone()).unwrap_or_default();
        let Some(server) = mcp_live::server_of(&tool) else { return };
        let title = self.store.thread(&thread).await.ok().flatten().map(|m| m.title);
        let language =
            settings::LANGUAGE.read(&self.store).await.ok().flatten().unwrap_or_default();
        let what = notices::Waiting::SignIn(server);
        let notice = notices::notice(language, &title.unwrap_or_default(), &what);
        out.effects.push(Effect::Notify { thread_id: thread, notice: Some(notice) });
    }

    /// A call ended while its server's question was still shown: the question goes (the
    /// server stopped waiting), then the result is written.
    async fn end_elicitation(&mut self, run_id: &RunId, out: &mut Outbox) {
        let Some(run) = self.runs.get(run_id).cloned() else { return };
        let waiting = run
            .interaction
            .as_ref()
            .is_some_and(|i| matches!(i.request, InteractionRequestPayload::McpElicitation { .. }));
        if !waiting {
            return;
        }
        let state = self.reads().thread_state(&run.thread_id).await;
        let step = state.and_then(|state| {
            let timeout = InteractionResponse::Timeout { value: None };
            interactions::settle_elicitation(self.reads().cx(), state, run, &timeout)
        });
        self.apply(run_id, step, out).await;
    }

    /// Runs the run's MCP call at `index` again from where it stood when its server asked the
    /// user, before a restart: the host answers the server and reads the call's result, which
    /// comes back as the call's outcome (`Engine::on_tool_done`).
    fn resume_mcp_call(
        &mut self,
        run_id: &RunId,
        index: usize,
        resume: McpResume,
        out: &mut Outbox,
    ) {
        let Some(run) = self.runs.get(run_id) else { return };
        let Some(call) = run.tools.get(index).cloned() else { return };
        let mut call = decision::invocation(run, call, None);
        call.mcp_resume = Some(resume);
        let id = self.in_flight.start(InFlight::Tool(run_id.clone(), index));
        out.effects.push(Effect::RunTool { id, call });
    }

    /// Asks the host's MCP client a port's question.
    fn ask_mcp(
        &mut self,
        port: PortId,
        submission_id: panelot_protocol::SubmissionId,
        query: McpQuery,
        out: &mut Outbox,
    ) {
        let id =
            self.in_flight.start(InFlight::McpQuery { port, submission_id, query: query.clone() });
        out.effects.push(Effect::McpQuery { id, query });
    }

    /// The MCP client's answer to a port's question: sent to that port, if still connected.
    pub fn on_mcp_answered(
        &mut self,
        id: EffectId,
        answer: Result<serde_json::Value, String>,
    ) -> Outbox {
        let mut out = Outbox::default();
        if let Some(InFlight::McpQuery { port, submission_id, query }) = self.in_flight.finish(id)
            && self.delivery.has_port(port)
        {
            let event = match mcp::answered(submission_id.clone(), &query, answer) {
                Ok(event) => event,
                Err(message) => {
                    AgentEvent::CommandRejected(panelot_protocol::engine::CommandRejectedEvent {
                        submission_id,
                        code: ErrorCode::InvalidCommand,
                        message,
                    })
                }
            };
            Delivery::reply(port, EventFrame::new(event), &mut out);
        }
        out
    }

    /// Remembers a finished call of an MCP tool for its server's recent calls.
    async fn record_mcp_call(&mut self, run: &RunId, index: usize, body: &decision::ResultBody) {
        let Some(call) = self.runs.get(run).and_then(|r| r.tools.get(index)) else { return };
        if mcp_live::server_of(&call.tool_name).is_none() {
            return;
        }
        let exposed = call.tool_name.clone();
        let catalogs = settings::read_or_default(&self.store, settings::MCP_CATALOGS).await;
        let ended = match body {
            decision::ResultBody::Outcome(ToolOutcome {
                status: ToolStatus::Failed { message, .. },
                ..
            }) => (McpCallOutcome::Error, Some(message.as_str())),
            decision::ResultBody::Outcome(_) | decision::ResultBody::MarkedDone => {
                (McpCallOutcome::Ok, None)
            }
            decision::ResultBody::Refused { message, .. } => {
                (McpCallOutcome::Denied, Some(message.as_str()))
            }
        };
        let view =
            mcp::call_view(&exposed, &catalogs.unwrap_or_default(), self.env.now_ms(), ended);
        self.mcp.record_call(&exposed, view);
    }

    /// The findings of a connection check: sent to the port that asked, if still connected.
    pub fn on_verify_done(&mut self, id: EffectId, report: ConnectionCheck) -> Outbox {
        let mut out = Outbox::default();
        if let Some(InFlight::Verify { port, submission_id, connection_id }) =
            self.in_flight.finish(id)
            && self.delivery.has_port(port)
        {
            let event = AgentEvent::ConnectionVerified(ConnectionVerifiedEvent {
                submission_id,
                connection_id,
                report,
            });
            Delivery::reply(port, EventFrame::new(event), &mut out);
        }
        out
    }

    /// The user took back the extension's access to `origins` in the browser: the session
    /// grants on them end.
    pub async fn on_host_access_removed(&mut self, origins: &[String]) -> Outbox {
        let mut out = Outbox::default();
        let origins: Vec<Origin> = origins.iter().filter_map(|o| Origin::parse(o).ok()).collect();
        let revoked = async {
            let mut grants =
                settings::read_or_default(&self.store, settings::SESSION_GRANTS).await?;
            if !grants.revoke(&origins) {
                return Ok(());
            }
            let mut unit = UnitOfWork::new();
            unit.push(settings::SESSION_GRANTS.write(&grants)?);
            self.store.commit(unit).await
        };
        if let Err(err) = revoked.await {
            tracing::warn!(%err, "could not drop the grants of a revoked site");
        }
        self.drain(&mut out).await;
        out
    }

    async fn handle_op(&mut self, port: PortId, client: ClientId, op: Op, out: &mut Outbox) {
        let result = match op {
            Op::ThreadList(params) => match threads::list(&self.reads(), &params).await {
                Ok(event) => {
                    Delivery::reply(port, EventFrame::new(event), out);
                    Ok(())
                }
                Err(err) => Err(err),
            },
            Op::ThreadSubscribe(params) => self.subscribe(port, &params, out).await,
            Op::ThreadLoadEarlier(params) => self.load_earlier(port, params, out).await,
            Op::SettingsGet(params) => {
                match setup::settings_view(&self.reads(), setup::Overlay::default()).await {
                    Ok(settings) => {
                        let event = AgentEvent::SettingsState(SettingsStateEvent {
                            submission_id: Some(params.submission_id),
                            settings,
                        });
                        Delivery::reply(port, EventFrame::new(event), out);
                        Ok(())
                    }
                    Err(err) => Err(err),
                }
            }
            Op::ConnectionVerify(params) => self.verify_connection(port, params, out).await,
            Op::McpList(params) => {
                let query = McpQuery::List { server: params.server_id };
                self.ask_mcp(port, params.submission_id, query, out);
                Ok(())
            }
            Op::McpFetch(params) => {
                let query = McpQuery::Fetch { server: params.server_id, fetch: params.fetch };
                self.ask_mcp(port, params.submission_id, query, out);
                Ok(())
            }
            Op::McpConnect(ref params) => {
                let server = params.server_id.clone();
                let known = mcp::stored_servers(&self.store).await.map(|servers| {
                    servers.iter().any(|s| setup::stored_id(s) == Some(server.as_str()))
                });
                known.map(|known| {
                    let answer = match known {
                        true => {
                            out.effects.push(Effect::McpConnect { server });
                            decision::ack(&op, None, None)
                        }
                        false => rejection(
                            &op,
                            ErrorCode::InvalidCommand,
                            format!("MCP server {server} does not exist"),
                        ),
                    };
                    Delivery::reply(port, EventFrame::new(answer), out);
                })
            }
            Op::Ping(ping) => {
                let pong = AgentEvent::Pong(PongEvent { submission_id: ping.submission_id });
                Delivery::reply(port, EventFrame::new(pong), out);
                Ok(())
            }
            // The session answers a second `initialize` itself; it never reaches the engine.
            Op::Initialize(_) => Ok(()),
            command => self.run_command(port, &client, command, out).await,
        };
        if let Err(err) = result {
            tracing::warn!(%err, "store failure while handling a command");
            let frame = EventFrame::new(crate::session::internal_error(&err.to_string()));
            Delivery::reply(port, frame, out);
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
        let now = self.env.now_ms();
        let pending = match check_receipt(&self.store, client, &op, now).await? {
            ReceiptCheck::Replay(frame) => {
                Delivery::reply(port, frame, out);
                return Ok(());
            }
            ReceiptCheck::Conflict(message) => {
                let frame = EventFrame::new(rejection(&op, ErrorCode::InvalidCommand, message));
                Delivery::reply(port, frame, out);
                return Ok(());
            }
            ReceiptCheck::New(pending) => pending,
        };
        let Decision { mut unit, answer, events, effects, then } = self.decide(&op).await?;
        if let Some(settled) = crate::receipts::settled_receipt(&op, &answer, now)? {
            unit.push(WriteOp::PutReceipt(settled));
        }
        if answer_is_final(&answer) {
            unit.push(WriteOp::PutReceipt(pending.complete(&answer, now)?));
        }
        if !unit.ops.is_empty() {
            self.commit(unit).await?;
        }
        for event in events {
            self.delivery.publish(port, event, now, out);
        }
        self.delivery.publish(port, answer, now, out);
        for effect in effects {
            self.start_effect(effect, out).await;
        }
        self.follow_ups.extend(then);
        Ok(())
    }

    async fn decide(&mut self, op: &Op) -> Result<Decision, StoreError> {
        // A message's files are checked and described before anything else reads it.
        let expanded = match attachments::expand_op(&self.store, op).await? {
            Ok(expanded) => expanded,
            Err(refused) => return Ok(refused),
        };
        let op = expanded.as_ref().unwrap_or(op);
        let seq = match op {
            Op::TurnSubmit(_) | Op::TurnEnqueue(_) | Op::TurnFork(_) => self.runs.take_seq(),
            _ => 0,
        };
        let reads = self.reads();
        let message = |thread, input, overrides: Option<_>, sibling_of| turns::Message {
            thread,
            input,
            overrides,
            sibling_of,
        };
        match op {
            Op::ThreadCreate(p) => threads::create(&reads, op, p).await,
            Op::AttachmentPut(p) => attachments::put(&reads, op, p).await,
            Op::ThreadUpdate(p) => threads::update(&reads, op, p).await,
            Op::ThreadDelete(p) => threads::delete(&reads, op, p).await,
            Op::ThreadSelectBranch(p) => threads::select_branch(&reads, op, p).await,
            Op::ThreadFork(p) => threads::fork(&reads, op, p).await,
            Op::TurnSubmit(p) => {
                let message = message(&p.thread_id, &p.input, p.overrides.as_ref(), None);
                turns::admit(&reads, op, message, seq).await
            }
            Op::TurnEnqueue(p) => {
                let message = message(&p.thread_id, &p.input, p.overrides.as_ref(), None);
                turns::admit(&reads, op, message, seq).await
            }
            Op::TurnFork(p) => {
                let sibling = Some(&p.sibling_of_node_id);
                let message = message(&p.thread_id, &p.input, p.overrides.as_ref(), sibling);
                turns::admit(&reads, op, message, seq).await
            }
            Op::TurnSteer(p) => turns::steer(&reads, op, p),
            Op::TurnInterrupt(p) => turns::interrupt(&reads, op, &p.thread_id).await,
            Op::QueueUpdate(p) => turns::queue_update(&reads, op, p),
            Op::QueueRemove(p) => turns::queue_remove(&reads, op, p),
            Op::RunResume(p) => turns::resume(&reads, op, p),
            Op::RunResolveUncertain(p) => turns::resolve_uncertain(&reads, op, p).await,
            Op::ApprovalResponse(p) => {
                let Some(run) = reads.runs.with_approval(&p.approval_id).cloned() else {
                    if let Some(answer) =
                        settled_answer(reads.store, op, reads.env.now_ms()).await?
                    {
                        return Ok(Decision::answer(answer));
                    }
                    return Ok(Decision::rejected(
                        op,
                        ErrorCode::InvalidCommand,
                        format!("approval {} is not waiting for a decision", p.approval_id),
                    ));
                };
                let state = reads.thread_state(&run.thread_id).await?;
                let deciding =
                    approvals::Deciding { store: reads.store, session: reads.session, state };
                approvals::decide(reads.cx(), deciding, run, &p.decision, Some(op)).await
            }
            Op::InteractionResponse(p) => {
                let Some(run) = reads.runs.with_interaction(&p.interaction_id).cloned() else {
                    if let Some(answer) =
                        settled_answer(reads.store, op, reads.env.now_ms()).await?
                    {
                        return Ok(Decision::answer(answer));
                    }
                    return Ok(Decision::rejected(
                        op,
                        ErrorCode::InvalidCommand,
                        format!("interaction {} is not waiting for an answer", p.interaction_id),
                    ));
                };
                let state = reads.thread_state(&run.thread_id).await?;
                interactions::respond(reads.cx(), state, run, op, p)
            }
            Op::SettingsUpdate(p) => setup::update(&reads, op, p).await,
            Op::ConnectionSave(p) => setup::save_connection(&reads, op, p).await,
            Op::ConnectionDelete(p) => setup::delete_connection(&reads, op, p).await,
            Op::RuleAdd(p) => setup::add_rule(&reads, op, p).await,
            Op::RuleDelete(p) => setup::delete_rule(&reads, op, p).await,
            Op::PresetSave(p) => presets::save(&reads, op, p).await,
            Op::PresetDelete(p) => presets::delete(&reads, op, p).await,
            Op::MemorySave(p) => setup::save_memory(&reads, op, p).await,
            Op::MemoryDelete(p) => setup::delete_memory(&reads, op, p).await,
            Op::McpSave(p) => mcp::save(&reads, op, p).await,
            Op::McpDelete(p) => mcp::delete(&reads, op, p).await,
            Op::Initialize(_)
            | Op::ThreadList(_)
            | Op::ThreadSubscribe(_)
            | Op::ThreadLoadEarlier(_)
            | Op::SettingsGet(_)
            | Op::ConnectionVerify(_)
            | Op::McpConnect(_)
            | Op::McpList(_)
            | Op::McpFetch(_)
            | Op::Ping(_) => {
                Ok(Decision::rejected(op, ErrorCode::InvalidCommand, "not a receipted command"))
            }
        }
    }

    /// Applies a unit of work, then mirrors its run changes: the open runs never run ahead of
    /// the store.
    async fn commit(&mut self, unit: UnitOfWork) -> Result<(), StoreError> {
        let runs: Vec<WriteOp> = unit
            .ops
            .iter()
            .filter(|op| {
                matches!(op, WriteOp::PutRun(_) | WriteOp::DeleteRun(_) | WriteOp::DeleteThread(_))
            })
            .cloned()
            .collect();
        self.store.commit(unit).await?;
        self.take_down_indicators(&runs);
        self.runs.apply(&runs);
        Ok(())
    }

    /// A run that stops acting (ends, parks) takes down its indicator in the pages it wrote to,
    /// or shows there that it is paused ([`Effect::Indicator`]).
    fn take_down_indicators(&mut self, runs: &[WriteOp]) {
        for op in runs {
            let WriteOp::PutRun(after) = op else { continue };
            let Some(before) = self.runs.get(&after.id) else { continue };
            let Some(state) = page_signals::indicator_after(before, after) else { continue };
            let tabs = page_signals::indicator_tabs(after);
            if !tabs.is_empty() {
                self.indicators.push(Effect::Indicator { run_id: after.id.clone(), tabs, state });
            }
        }
    }

    /// The user did something in a page a run acts on: the indicator's Stop or Pause, or a
    /// takeover of the tab (see [`PageSignal`]). A signal for a run that no longer acts there
    /// is ignored.
    pub async fn on_page_signal(&mut self, signal: PageSignal) -> Outbox {
        let mut out = Outbox::default();
        let step = page_signals::decide(&self.reads(), &signal).await;
        self.apply(&signal.run_id, step, &mut out).await;
        self.drain(&mut out).await;
        out
    }

    /// Numbers and records an effect, then hands it to the host.
    async fn start_effect(&mut self, request: EffectRequest, out: &mut Outbox) {
        let request = match artifacts::with_artifact(&self.store, request).await {
            Ok(request) => request,
            Err(ended) => return self.follow_ups.push_front(ended),
        };
        let request = match attachments::with_attachment(&self.store, request).await {
            Ok(request) => request,
            Err(ended) => return self.follow_ups.push_front(ended),
        };
        let effect = match request {
            EffectRequest::Model { run, model, request } => {
                let connection = setup::connection(&self.store, model.connection_id.as_str()).await;
                let connection = match connection {
                    Ok(Some(connection)) => connection,
                    Ok(None) => {
                        let err = ProviderError::connection_missing(model.connection_id.as_str());
                        self.follow_ups.push_front(FollowUp::ModelFailed(run, Box::new(err)));
                        return;
                    }
                    Err(err) => {
                        self.follow_ups.push_front(FollowUp::Fail(run, err.to_string()));
                        return;
                    }
                };
                self.runs.stream_started(&run);
                let id = self.in_flight.start(InFlight::Model(run));
                Effect::CallModel { id, connection, request }
            }
            EffectRequest::Target { run, index, request } => {
                let id = self.in_flight.start(InFlight::Target(run, index));
                Effect::ResolveTarget { id, request }
            }
            EffectRequest::Tool { run, index, call } => {
                let id = self.in_flight.start(InFlight::Tool(run, index));
                Effect::RunTool { id, call }
            }
            EffectRequest::Watch { run, index, call } => {
                let id = self.in_flight.start(InFlight::Watch(run, index));
                Effect::RunTool { id, call }
            }
            EffectRequest::Plain(effect) => effect,
        };
        out.effects.push(effect);
    }

    /// Runs queued follow-ups until none is left; every entry point ends here.
    async fn drain(&mut self, out: &mut Outbox) {
        while let Some(follow_up) = self.follow_ups.pop_front() {
            self.follow_up(follow_up, out).await;
        }
        self.publish_activity(out).await;
        out.effects.append(&mut self.indicators);
        out.wake_at_ms = [
            self.delivery.deadline(),
            self.runs.next_approval_deadline(),
            self.runs.next_wait_due(),
        ]
        .into_iter()
        .flatten()
        .min();
    }

    /// Tells every UI what the threads are doing when that changed: badges in thread lists
    /// ("waiting for you") and the panel header.
    async fn publish_activity(&mut self, out: &mut Outbox) {
        let activity = self.runs.activity();
        if activity == self.activity {
            return;
        }
        self.notify(&activity, out).await;
        let sum = |count: fn(&ThreadActivity) -> u32| activity.iter().map(count).sum::<u32>();
        let event = AgentEvent::ActivityUpdated(ActivityUpdatedEvent {
            running: sum(|a| u32::from(a.running)),
            pending_approvals: sum(|a| a.pending_approvals),
            pending_interactions: sum(|a| a.pending_interactions),
            threads: activity.clone(),
        });
        self.activity = activity;
        self.delivery.broadcast(event, self.env.now_ms(), out);
    }

    /// A notification for each thread that started waiting for the user while no view follows
    /// it, and the notification taken back once a thread waits no more.
    async fn notify(&mut self, activity: &[ThreadActivity], out: &mut Outbox) {
        let now_ms = self.env.now_ms();
        let waiting = |list: &[ThreadActivity], thread: &ThreadId| {
            list.iter()
                .find(|a| &a.thread_id == thread)
                .map_or(0, |a| a.pending_approvals + a.pending_interactions)
        };
        let running = |list: &[ThreadActivity], thread: &ThreadId| {
            list.iter().any(|a| &a.thread_id == thread && a.running)
        };
        for (thread, ()) in self.notified.clone() {
            if waiting(activity, &thread) == 0 {
                self.notified.remove(&thread);
                out.effects.push(Effect::Notify { thread_id: thread, notice: None });
            }
        }
        for started in activity.iter().filter(|a| a.running) {
            self.running_since.get_or_insert_with(started.thread_id.clone(), || now_ms);
        }
        // A turn that ran long (it waited for the user, or just worked a while) and ended while
        // nobody watched says so: the user may have gone elsewhere meanwhile.
        let mut finished = Vec::new();
        for (thread, since) in self.running_since.clone() {
            if running(activity, &thread) {
                continue;
            }
            self.running_since.remove(&thread);
            if now_ms.saturating_sub(since) >= notices::LONG_TURN_MS
                && !self.delivery.watched(&thread)
            {
                finished.push(thread);
            }
        }
        let asking: Vec<ThreadId> = activity
            .iter()
            .map(|a| a.thread_id.clone())
            .filter(|thread| waiting(activity, thread) > waiting(&self.activity, thread))
            .filter(|thread| !self.delivery.watched(thread))
            .collect();
        if asking.is_empty() && finished.is_empty() {
            return;
        }
        let language = match settings::LANGUAGE.read(&self.store).await {
            Ok(language) => language.unwrap_or_default(),
            Err(err) => {
                tracing::warn!(%err, "no notification: the language is unreadable");
                return;
            }
        };
        for thread in finished.into_iter().chain(asking) {
            let title = match self.store.thread(&thread).await {
                Ok(meta) => meta.map(|meta| meta.title).unwrap_or_default(),
                Err(err) => {
                    tracing::warn!(%err, "no notification: the thread is unreadable");
                    return;
                }
            };
            let approvals = self.runs.pending_approvals(&thread);
            let interactions = self.runs.pending_interactions(&thread);
            let what = match (approvals.first(), interactions.first()) {
                (Some(approval), _) => notices::Waiting::Approval(&approval.request),
                (None, Some(interaction)) => notices::Waiting::Interaction(&interaction.request),
                (None, None) => notices::Waiting::Finished,
            };
            if !matches!(what, notices::Waiting::Finished) {
                self.notified.insert(thread.clone(), ());
            }
            let notice = notices::notice(language, &title, &what);
            out.effects.push(Effect::Notify { thread_id: thread, notice: Some(notice) });
        }
    }

    async fn follow_up(&mut self, follow_up: FollowUp, out: &mut Outbox) {
        match follow_up {
            FollowUp::Schedule(thread) => self.schedule(&thread, out).await,
            FollowUp::Continue(run) => {
                let step = self.continue_run(&run).await;
                self.apply(&run, step, out).await;
            }
            FollowUp::Answered(run, response) => {
                let step = self.answered(&run, *response).await;
                self.apply(&run, step, out).await;
            }
            FollowUp::Dispatch(run) => {
                let step = self.dispatch(&run, None).await;
                self.apply(&run, step, out).await;
            }
            FollowUp::Judge(run, index, target) => {
                let step = self.dispatch(&run, Some((index, *target))).await;
                self.apply(&run, step, out).await;
            }
            FollowUp::WriteResult { run, index, body } => {
                let step = self.write_result(&run, index, body).await;
                self.apply(&run, step, out).await;
            }
            FollowUp::EngineTool { run, index, call } => {
                self.engine_tool(run, index, &call, out).await;
            }
            FollowUp::McpElicitAnswered { interaction, response, resume } => {
                let answer = mcp::elicit_result(&response);
                if let Some(request_id) = self.elicitations.remove(&interaction) {
                    out.effects.push(Effect::McpElicitAnswer { request_id, result: answer });
                } else if let Some((run, index, point)) = resume {
                    // Asked before a restart: the call goes on from where it stood.
                    self.resume_mcp_call(&run, index, McpResume { point, answer }, out);
                }
            }
            FollowUp::McpChanged(deleted) => {
                if let Some(server) = deleted {
                    self.mcp.forget(&server);
                }
                self.offer_mcp(out).await;
            }
            FollowUp::AbortRun(run) => {
                for id in self.in_flight.take_run(&run) {
                    out.effects.push(Effect::Abort { id });
                }
            }
            FollowUp::AbortThread(thread) => {
                let runs = &self.runs;
                let of_thread = |run: &RunId| runs.get(run).is_none_or(|r| r.thread_id == thread);
                for id in self.in_flight.take_thread(&thread, of_thread) {
                    out.effects.push(Effect::Abort { id });
                }
            }
            FollowUp::TitleAfterFirstAnswer(run) => self.runs.title_after_first_answer(&run),
            FollowUp::ModelFailed(run, err) => self.model_failed(&run, *err, out).await,
            FollowUp::Fail(run, message) => self.fail_run(&run, &message, out).await,
            FollowUp::Title(request) => self.request_title(*request, out).await,
        }
    }

    /// Runs one of the engine's own tools: its write is committed, then its result follows.
    async fn engine_tool(
        &mut self,
        run: RunId,
        index: usize,
        call: &ToolInvocation,
        out: &mut Outbox,
    ) {
        let ran = if call.tool == catalog::SIDEBAR_OPEN {
            self.sidebar_open(call, out).await
        } else {
            builtins::run(&self.store, call, self.env.now_ms()).await
        };
        let ran = match ran {
            Ok(ran) => ran,
            Err(err) => {
                self.follow_ups.push_front(FollowUp::Fail(run, err.to_string()));
                return;
            }
        };
        let wrote_memory = call.tool == "memory_write" && !ran.unit.ops.is_empty();
        if !ran.unit.ops.is_empty()
            && let Err(err) = self.commit(ran.unit).await
        {
            self.follow_ups.push_front(FollowUp::Fail(run, err.to_string()));
            return;
        }
        if wrote_memory {
            // Every settings page lists the notes: it shows the one the agent just wrote.
            match setup::settings_view(&self.reads(), setup::Overlay::default()).await {
                Ok(settings) => {
                    let event = AgentEvent::SettingsState(SettingsStateEvent {
                        submission_id: None,
                        settings,
                    });
                    self.delivery.broadcast(event, self.env.now_ms(), out);
                }
                Err(err) => tracing::warn!(%err, "the settings pages were not told of a new note"),
            }
        }
        let body = decision::ResultBody::Outcome(ran.outcome);
        self.follow_ups.push_back(FollowUp::WriteResult { run, index, body });
    }

    /// `sidebar_open`: the page (or artifact) goes to one view of the calling thread now, or
    /// waits in the queue for one (`delivered` says which, honestly). It is sent once its
    /// dispatch is durable; the queue write is committed before the result, and recovery does
    /// not run the call again (it is a write), so a page is handed over at most once. Both kinds
    /// follow the one setting that lets the agent open things (`agentOpenTools`): off, the tool
    /// is not offered and a call is refused with the reason.
    async fn sidebar_open(
        &mut self,
        call: &ToolInvocation,
        out: &mut Outbox,
    ) -> Result<builtins::Ran, StoreError> {
        if !settings::AGENT_OPEN_TOOLS.read(&self.store).await?.unwrap_or(false) {
            return Ok(builtins::Ran::said(ToolOutcome::failed(
                "opening pages is switched off in settings (General); ask the user to open it",
            )));
        }
        let open = match builtins::open_target(&call.params) {
            Ok(open) => open,
            Err(message) => return Ok(builtins::Ran::said(ToolOutcome::failed(message))),
        };
        if open.kind == panelot_protocol::engine::OpenKind::Artifact
            && let Err(message) = artifacts::artifact_of(&self.store, call, &open.target).await?
        {
            return Ok(builtins::Ran::said(ToolOutcome::failed(message)));
        }
        let mut unit = UnitOfWork::new();
        let delivered = match self.delivery.viewer(&call.thread_id) {
            Some(port) => {
                let event = builtins::view_open(
                    &call.thread_id,
                    open.kind,
                    open.target.clone(),
                    open.title.clone(),
                );
                Delivery::reply(port, EventFrame::new(event), out);
                true
            }
            None => {
                let mut pending = settings::PENDING_OPENS.read(&self.store).await?;
                pending.push(settings::PendingOpen {
                    thread_id: call.thread_id.to_string(),
                    target: open.target.clone(),
                    title: open.title.clone(),
                    queued_at_ms: self.env.now_ms(),
                    artifact: open.kind == panelot_protocol::engine::OpenKind::Artifact,
                });
                unit.push(settings::PENDING_OPENS.write(&pending)?);
                false
            }
        };
        Ok(builtins::Ran { outcome: builtins::opened(&open, delivered), unit })
    }

    /// Commits a step of `run` and publishes it; a step that failed fails the run.
    async fn apply(&mut self, run: &RunId, step: Result<Step, StoreError>, out: &mut Outbox) {
        let step = match step {
            Ok(step) => step,
            Err(err) => return self.fail_run(run, &err.to_string(), out).await,
        };
        let Step { unit, events, effects, then } = step;
        if !unit.ops.is_empty()
            && let Err(err) = self.commit(unit).await
        {
            return self.fail_run(run, &err.to_string(), out).await;
        }
        let now = self.env.now_ms();
        for event in events {
            self.delivery.broadcast(event, now, out);
        }
        for effect in effects {
            self.start_effect(effect, out).await;
        }
        self.follow_ups.extend(then);
    }

    async fn state_of(&self, run: &RunRecord) -> Result<ThreadState, StoreError> {
        reads::thread_state(&self.store, &run.thread_id)
            .await?
            .ok_or_else(|| StoreError::Integrity(format!("thread {} is gone", run.thread_id)))
    }

    async fn continue_run(&mut self, run_id: &RunId) -> Result<Step, StoreError> {
        let Some(run) = self.runs.get(run_id).cloned() else { return Ok(Step::default()) };
        let state = self.state_of(&run).await?;
        let path = reads::path_to(&self.store, &state, state.meta.leaf_id.as_ref()).await?;
        let opens = settings::AGENT_OPEN_TOOLS.read(&self.store).await?.unwrap_or(false);
        let switched_on: &[catalog::ToolGroup] =
            if opens { &[catalog::ToolGroup::Opens] } else { &[] };
        machine::model_call::prepare(self.reads().cx(), run, state, path, switched_on)
    }

    async fn answered(
        &mut self,
        run_id: &RunId,
        response: ModelResponse,
    ) -> Result<Step, StoreError> {
        let Some(run) = self.runs.get(run_id).cloned() else { return Ok(Step::default()) };
        let state = self.state_of(&run).await?;
        let live = self.runs.stream_ended(run_id);
        machine::answer::answered(self.reads().cx(), run, state, live, response)
    }

    async fn dispatch(
        &mut self,
        run_id: &RunId,
        resolved: Option<(usize, ResolvedTarget)>,
    ) -> Result<Step, StoreError> {
        let Some(run) = self.runs.get(run_id).cloned() else { return Ok(Step::default()) };
        if let Some(refused) = attachments::refusal(&self.store, &run).await? {
            return Ok(refused);
        }
        let permissions = PermissionState::load(&self.store, &self.session, &run.thread_id).await?;
        let scope: Vec<Origin> = match self.store.thread(&run.thread_id).await? {
            Some(meta) => meta.scope_origins.iter().filter_map(|o| Origin::parse(o).ok()).collect(),
            None => Vec::new(),
        };
        let judging = Judging { permissions: &permissions, scope: &scope };
        machine::dispatch::next(self.reads().cx(), run, resolved, judging)
    }

    async fn write_result(
        &mut self,
        run_id: &RunId,
        index: usize,
        body: decision::ResultBody,
    ) -> Result<Step, StoreError> {
        self.record_mcp_call(run_id, index, &body).await;
        let Some(run) = self.runs.get(run_id).cloned() else { return Ok(Step::default()) };
        let state = self.state_of(&run).await?;
        let permissions = PermissionState::load(&self.store, &self.session, &run.thread_id).await?;
        machine::result::write(self.reads().cx(), run, state, index, body, &permissions.sensitive)
    }

    /// Starts the thread's next queued run if nothing holds the thread: a run at work, or a
    /// parked one, which waits for the user to continue or end it (a new message ends an
    /// interrupted or over-budget turn as it is admitted, [`turns::admit`]).
    async fn schedule(&mut self, thread: &ThreadId, out: &mut Outbox) {
        if self.runs.of_thread(thread).any(|r| r.is_active() || r.is_parked()) {
            return;
        }
        let Some(next) = self
            .runs
            .of_thread(thread)
            .filter(|r| r.state == RunState::Queued)
            .min_by_key(|r| r.seq)
            .map(|r| r.id.clone())
        else {
            return;
        };
        let step = self.start_run(&next).await;
        self.apply(&next, step, out).await;
    }

    async fn start_run(&mut self, run_id: &RunId) -> Result<Step, StoreError> {
        let Some(run) = self.runs.get(run_id).cloned() else { return Ok(Step::default()) };
        let state = self.state_of(&run).await?;
        let attach = machine::start::attach_point(&run, &state)?;
        let path = reads::path_to(&self.store, &state, attach.as_ref()).await?;
        machine::start::start_run(self.reads().cx(), run, state, &path)
    }

    /// Ends a run for good (see [`machine::end::end_run`]); when its end cannot be written, the
    /// run is forgotten here and recovery finds it at its last durable step.
    async fn end_run(&mut self, run: RunRecord, how: Ending, out: &mut Outbox) {
        let run_id = run.id.clone();
        let state = reads::thread_state(&self.store, &run.thread_id).await;
        let live = self.runs.stream_ended(&run_id);
        let step = state
            .and_then(|state| machine::end::end_run(self.reads().cx(), run, state, &live, how));
        let step = match step {
            Ok(step) => step,
            Err(err) => {
                tracing::warn!(%err, "could not prepare the end of a run");
                return;
            }
        };
        for id in self.in_flight.take_run(&run_id) {
            out.effects.push(Effect::Abort { id });
        }
        // An ending starts nothing: its step holds no effects.
        let Step { unit, events, then, .. } = step;
        if let Err(err) = self.commit(unit).await {
            tracing::warn!(%err, "could not write the end of a run; recovery will find it");
            self.runs.forget(&run_id);
            return;
        }
        let now = self.env.now_ms();
        for event in events {
            self.delivery.broadcast(event, now, out);
        }
        self.follow_ups.extend(then);
    }

    async fn model_failed(&mut self, run_id: &RunId, err: ProviderError, out: &mut Outbox) {
        let Some(run) = self.runs.get(run_id).cloned() else { return };
        let error = TurnErrorView {
            code: ErrorCode::ProviderError,
            message: err.message.clone(),
            retryable: err.is_retryable(),
            error_kind: Some(err.kind),
            provider_details: Some(err.details.clone()),
        };
        let how = Ending {
            state: RunState::Failed,
            stop: StopReason::Error,
            note: Some(err.message),
            first: None,
            error: Some(error),
            declined: None,
        };
        self.end_run(run, how, out).await;
    }

    /// Fails a run after an internal failure (a store error mid-step): the run is marked failed
    /// if the store still takes writes; otherwise recovery finds it at its last durable step.
    async fn fail_run(&mut self, run_id: &RunId, message: &str, out: &mut Outbox) {
        tracing::warn!(%message, "a run step failed");
        let Some(run) = self.runs.get(run_id).cloned() else { return };
        let error = TurnErrorView {
            code: ErrorCode::Internal,
            message: format!("The turn stopped: {message}"),
            retryable: false,
            error_kind: None,
            provider_details: None,
        };
        let how = Ending {
            state: RunState::Failed,
            stop: StopReason::Error,
            note: Some(message.to_owned()),
            first: None,
            error: Some(error),
            declined: None,
        };
        self.end_run(run, how, out).await;
    }

    /// A watch ended: it saw what it waited for, or cannot watch (the tab closed). The run's
    /// wait ends with what it saw, unless the wait already ended otherwise.
    async fn watched(&mut self, run_id: &RunId, index: usize, seen: ToolOutcome, out: &mut Outbox) {
        let Some(run) = self.runs.get(run_id).cloned() else { return };
        let Some(request) =
            run.interaction.as_ref().filter(|i| i.tool_index == index).map(|i| i.request.clone())
        else {
            return;
        };
        let outcome = interactions::watch_outcome(&request, seen);
        let response = InteractionResponse::Submit { value: serde_json::Value::Null };
        self.end_wait(run, &response, outcome, out).await;
    }

    /// Ends every wait whose time came: a schedule resumes, a watch gives up.
    async fn end_due_waits(&mut self, out: &mut Outbox) {
        for run in self.runs.due_waits(self.env.now_ms()) {
            let Some(request) = run.interaction.as_ref().map(|i| i.request.clone()) else {
                continue;
            };
            if let Some((response, outcome)) = interactions::due_outcome(&request) {
                self.end_wait(run, &response, outcome, out).await;
            }
        }
    }

    async fn end_wait(
        &mut self,
        run: RunRecord,
        response: &InteractionResponse,
        outcome: ToolOutcome,
        out: &mut Outbox,
    ) {
        let run_id = run.id.clone();
        let reads = self.reads();
        let step = match reads.thread_state(&run.thread_id).await {
            Ok(state) => interactions::settle(reads.cx(), state, run, response, outcome),
            Err(err) => Err(err),
        };
        self.apply(&run_id, step, out).await;
    }

    /// Declines every approval whose deadline has passed.
    async fn expire_approvals(&mut self, out: &mut Outbox) {
        let now = self.env.now_ms();
        for run in self.runs.expired_approvals(now) {
            let decline = panelot_protocol::engine::ApprovalDecision::Decline {
                note: Some("no answer within 5 minutes".into()),
            };
            let run_id = run.id.clone();
            let reads = self.reads();
            let decided = match reads.thread_state(&run.thread_id).await {
                Ok(state) => {
                    let deciding =
                        approvals::Deciding { store: reads.store, session: reads.session, state };
                    approvals::decide(reads.cx(), deciding, run, &decline, None).await
                }
                Err(err) => Err(err),
            };
            let Decision { unit, answer, events, effects, then } = match decided {
                Ok(decision) => decision,
                Err(err) => {
                    self.fail_run(&run_id, &err.to_string(), out).await;
                    continue;
                }
            };
            if let Err(err) = self.commit(unit).await {
                self.fail_run(&run_id, &err.to_string(), out).await;
                continue;
            }
            self.delivery.broadcast(answer, now, out);
            for event in events {
                self.delivery.broadcast(event, now, out);
            }
            for effect in effects {
                self.start_effect(effect, out).await;
            }
            self.follow_ups.extend(then);
        }
    }

    /// Answers a successful handshake, subscribing at once when asked.
    async fn opened(&mut self, port: PortId, params: InitializeParams, out: &mut Outbox) {
        let mut snapshot = None;
        let mut stream = None;
        if let Some(target) = &params.subscribe {
            match self.snapshot_for(&target.thread_id).await {
                Ok(loaded) => {
                    stream = Some(self.delivery.current_cursor(&target.thread_id));
                    snapshot = Some(loaded);
                    self.delivery.subscribe(port, &target.thread_id);
                }
                // The session opens anyway; the UI shows the thread as gone and offers a new one.
                Err(err) => tracing::info!(%err, "initialize asked for a thread it cannot have"),
            }
        }
        Delivery::reply(port, EventFrame { event: initialized(&params, snapshot), stream }, out);
        if let Some(target) = &params.subscribe {
            self.replay_opens(port, &target.thread_id, out).await;
        }
    }

    /// Hands a view that just attached to a thread the pages the thread's agent opened while no
    /// view showed it: each once, taken from the queue before it is sent, so a view that
    /// reconnects never opens it again.
    async fn replay_opens(&mut self, port: PortId, thread: &ThreadId, out: &mut Outbox) {
        let replay = async {
            if !settings::AGENT_OPEN_TOOLS.read(&self.store).await?.unwrap_or(false) {
                return Ok(Vec::new());
            }
            let mut pending = settings::PENDING_OPENS.read(&self.store).await?;
            let (mine, others): (Vec<_>, Vec<_>) =
                pending.drain(..).partition(|open| open.thread_id == thread.as_str());
            if mine.is_empty() {
                return Ok(mine);
            }
            pending.extend(others);
            let mut unit = UnitOfWork::new();
            unit.push(settings::PENDING_OPENS.write(&pending)?);
            self.commit(unit).await?;
            Ok::<_, StoreError>(mine)
        };
        match replay.await {
            Ok(opens) => {
                for open in opens {
                    use panelot_protocol::engine::OpenKind;
                    let kind = if open.artifact { OpenKind::Artifact } else { OpenKind::Url };
                    let event = builtins::view_open(thread, kind, open.target, open.title);
                    Delivery::reply(port, EventFrame::new(event), out);
                }
            }
            Err(err) => tracing::warn!(%err, "the queued opens could not be handed over"),
        }
    }

    /// `thread.subscribe`: the snapshot at the current cursor, then live events.
    async fn subscribe(
        &mut self,
        port: PortId,
        params: &ThreadSubscribeParams,
        out: &mut Outbox,
    ) -> Result<(), StoreError> {
        // Buffered text goes out first: the snapshot includes it, and the cursor it carries is
        // after it, so nothing is shown twice or lost.
        self.delivery.flush_thread(&params.thread_id, out);
        let answer = match self.snapshot_for(&params.thread_id).await {
            Ok(snapshot) => {
                self.delivery.subscribe(port, &params.thread_id);
                let event = AgentEvent::ThreadSnapshot(ThreadSnapshotEvent {
                    submission_id: params.submission_id.clone(),
                    snapshot,
                });
                EventFrame { event, stream: Some(self.delivery.current_cursor(&params.thread_id)) }
            }
            Err(LoadError::NotFound(id)) => EventFrame::new(rejection(
                &Op::ThreadSubscribe(params.clone()),
                ErrorCode::ThreadNotFound,
                format!("thread {id} does not exist"),
            )),
            Err(LoadError::Store(err)) => return Err(err),
            Err(LoadError::Tree(err)) => return Err(StoreError::Corrupt(err.to_string())),
        };
        let attached = matches!(answer.event, AgentEvent::ThreadSnapshot(_));
        Delivery::reply(port, answer, out);
        if attached {
            self.replay_opens(port, &params.thread_id, out).await;
        }
        Ok(())
    }

    /// `thread.loadEarlier`: the items before the first one a view has, answered to the port.
    async fn load_earlier(
        &mut self,
        port: PortId,
        p: ThreadLoadEarlierParams,
        out: &mut Outbox,
    ) -> Result<(), StoreError> {
        let limit = p.limit.map_or(crate::snapshot::WINDOW_NODES, |l| l as usize);
        let loaded =
            crate::snapshot::earlier_items(&self.store, &p.thread_id, &p.before_node_id, limit)
                .await;
        let event = match loaded {
            Ok((items, has_earlier)) => AgentEvent::ThreadEarlier(ThreadEarlierEvent {
                submission_id: p.submission_id,
                thread_id: p.thread_id,
                items,
                has_earlier,
            }),
            Err(EarlierError::Load(LoadError::Store(err))) => return Err(err),
            Err(EarlierError::Load(LoadError::NotFound(id))) => rejection(
                &Op::ThreadLoadEarlier(p),
                ErrorCode::ThreadNotFound,
                format!("thread {id} does not exist"),
            ),
            Err(err @ (EarlierError::NotOnBranch(_) | EarlierError::Load(LoadError::Tree(_)))) => {
                rejection(&Op::ThreadLoadEarlier(p), ErrorCode::InvalidCommand, err.to_string())
            }
        };
        Delivery::reply(port, EventFrame::new(event), out);
        Ok(())
    }

    /// Loads a thread's snapshot, repairing (and recording) a broken leaf cursor.
    async fn snapshot_for(
        &mut self,
        thread: &ThreadId,
    ) -> Result<panelot_protocol::engine::ThreadSnapshot, LoadError> {
        let mut view = load_thread_view(&self.store, thread).await?;
        if let Some(unit) = threads::repair(&self.env, &mut view)? {
            self.store.commit(unit).await?;
            view = load_thread_view(&self.store, thread).await?;
        }
        Ok(threads::snapshot(view, &self.runs))
    }

    /// `connection.verify`: a check of a stored connection, run by the host as an effect and
    /// answered to the asking port only.
    async fn verify_connection(
        &mut self,
        port: PortId,
        p: ConnectionVerifyParams,
        out: &mut Outbox,
    ) -> Result<(), StoreError> {
        let Some(connection) = setup::connection(&self.store, p.connection_id.as_str()).await?
        else {
            let message = format!("connection {} does not exist", p.connection_id);
            let op = Op::ConnectionVerify(p);
            let frame = EventFrame::new(rejection(&op, ErrorCode::InvalidCommand, message));
            Delivery::reply(port, frame, out);
            return Ok(());
        };
        let id = self.in_flight.start(InFlight::Verify {
            port,
            submission_id: p.submission_id,
            connection_id: p.connection_id,
        });
        out.effects.push(Effect::VerifyConnection { id, connection, model: p.model });
        Ok(())
    }

    /// Asks the model for a title beside the first turn.
    async fn request_title(&mut self, title: TitleRequest, out: &mut Outbox) {
        let Ok(Some(meta)) = self.store.thread(&title.thread).await else { return };
        // A thread the user renamed meanwhile keeps its name: no call.
        let fallback = machine::title::fallback_title(&title.text);
        if meta.title != fallback {
            return;
        }
        let Ok(Some(connection)) =
            setup::connection(&self.store, title.model.connection_id.as_str()).await
        else {
            return;
        };
        let request = machine::title::request(title.model.model_id.as_str(), &title.text);
        let id = self.in_flight.start(InFlight::Title { thread: title.thread, fallback });
        out.effects.push(Effect::CallModel { id, connection, request });
    }

    async fn title_answered(
        &mut self,
        thread: &ThreadId,
        fallback: &str,
        response: &ModelResponse,
        out: &mut Outbox,
    ) {
        // The user may have renamed the thread meanwhile: their name wins.
        let Ok(Some(meta)) = self.store.thread(thread).await else { return };
        let Some(meta) = machine::title::titled(meta, fallback, &response.turn.text) else {
            return;
        };
        let event = machine::title::title_changed(&meta);
        let mut unit = UnitOfWork::new();
        unit.push(WriteOp::PutThread(meta));
        if self.commit(unit).await.is_ok() {
            self.delivery.broadcast(event, self.env.now_ms(), out);
        }
    }
}

#[cfg(test)]
#[path = "engine_tests.rs"]
mod tests;
