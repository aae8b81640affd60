//! The agent loop as steps of a state machine: start a run, call the model, write its answer,
//! dispatch each tool call, write each result, and end. Each step commits one unit of work
//! (nodes, thread leaf and run state together) before it publishes anything or starts the next
//! effect, so a restart at any point finds the store at a step boundary.

use std::collections::BTreeMap;

use panelot_protocol::AgentEvent;
use panelot_protocol::ItemId;
use panelot_protocol::NodeId;
use panelot_protocol::RunId;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::ContextContent;
use panelot_protocol::engine::ContextKind;
use panelot_protocol::engine::ErrorCode;
use panelot_protocol::engine::ErrorEvent;
use panelot_protocol::engine::ItemCompleteEvent;
use panelot_protocol::engine::ItemDelta;
use panelot_protocol::engine::ItemDeltaEvent;
use panelot_protocol::engine::ItemKind;
use panelot_protocol::engine::ItemMeta;
use panelot_protocol::engine::ItemStartEvent;
use panelot_protocol::engine::Provenance;
use panelot_protocol::engine::ProviderStopReason;
use panelot_protocol::engine::RunState;
use panelot_protocol::engine::StopReason;
use panelot_protocol::engine::ThreadMeta;
use panelot_protocol::engine::TokenUsageEvent;
use panelot_protocol::engine::ToolLevel;
use panelot_protocol::engine::ToolResultView;
use panelot_protocol::engine::TurnCompleteEvent;
use panelot_protocol::engine::TurnKind;
use panelot_protocol::engine::TurnStartEvent;

use super::Author;
use super::Effect;
use super::EffectId;
use super::Engine;
use super::InFlight;
use super::Outbox;
use super::ToolInvocation;
use super::ToolOutcome;
use crate::context;
use crate::gatekeeper::Verdict;
use crate::model::AssistantTurn;
use crate::model::ModelEvent;
use crate::model::ModelRequest;
use crate::model::ModelResponse;
use crate::model::ProviderError;
use crate::model::ToolCall;
use crate::runs::transitions::allowed;
use crate::store::NodeBody;
use crate::store::NodeRecord;
use crate::store::RunRecord;
use crate::store::Store;
use crate::store::StoreError;
use crate::store::ToolCallStatus;
use crate::store::UnitOfWork;
use crate::store::WriteOp;
use crate::tools::ToolRegistry;
use crate::tools::validate_params;
use crate::tree::ThreadTree;

/// Consecutive tool failures after which the model is reminded to change course.
pub const FAILURE_REMINDER_AT: u32 = 3;
/// Consecutive tool failures after which tools are switched off for one last answer.
pub const FAILURE_BREAKER_AT: u32 = 5;
/// Calls remembered by the stuck detector.
const STUCK_WINDOW: usize = 6;
/// Key of a failed tool outcome's details naming an origin the host has no access to: the
/// engine then asks the user for it instead of handing the failure to the model.
pub const NEEDS_HOST_PERMISSION: &str = "needsHostPermission";
/// Identical calls in a row that count as stuck.
const STUCK_REPEATS: usize = 3;

/// Streaming state of a run's current model call (never stored: a restart cuts the stream).
#[derive(Debug, Default)]
pub(crate) struct LiveRun {
    text: Option<(ItemId, String)>,
    reasoning: Option<(ItemId, String)>,
    calls: BTreeMap<u32, ItemId>,
}

impl LiveRun {
    /// The answer streamed so far, as the node that keeps it when the stream is cut (no usage:
    /// the provider never reported any).
    pub(crate) fn partial_answer(&self, model: &str) -> Option<NodeBody> {
        let (_, text) = self.text.as_ref().filter(|(_, text)| !text.is_empty())?;
        Some(NodeBody::AssistantMessage {
            text: text.clone(),
            reasoning: self.reasoning.as_ref().map(|(_, r)| r.clone()).filter(|r| !r.is_empty()),
            provider_state: Vec::new(),
            model: model.to_owned(),
            stop_reason: ProviderStopReason::Interrupted,
            usage: panelot_protocol::engine::Usage::default(),
            cost_usd: None,
        })
    }

    /// Items that started streaming and have not completed, with their text so far.
    pub(crate) fn streaming(&self) -> Vec<(ItemId, ItemKind, String)> {
        let mut items = Vec::new();
        if let Some((id, text)) = &self.reasoning {
            items.push((id.clone(), ItemKind::Reasoning, text.clone()));
        }
        if let Some((id, text)) = &self.text {
            items.push((id.clone(), ItemKind::AssistantMessage, text.clone()));
        }
        items
    }
}

/// Nodes appended by one step, chained from the thread's leaf.
pub(crate) struct Chain {
    thread: ThreadId,
    turn: Option<panelot_protocol::TurnId>,
    parent: Option<NodeId>,
    next_seq: u64,
    now_ms: u64,
    nodes: Vec<NodeRecord>,
}

impl Chain {
    pub(crate) fn new(
        thread: &ThreadId,
        turn: Option<&panelot_protocol::TurnId>,
        parent: Option<NodeId>,
        tree: &ThreadTree,
        now_ms: u64,
    ) -> Chain {
        Chain {
            thread: thread.clone(),
            turn: turn.cloned(),
            parent,
            next_seq: tree.next_seq(),
            now_ms,
            nodes: Vec::new(),
        }
    }

    pub(crate) fn push(&mut self, id: NodeId, body: NodeBody) -> NodeId {
        let node = NodeRecord {
            id: id.clone(),
            thread_id: self.thread.clone(),
            parent_id: self.parent.replace(id.clone()),
            seq: self.next_seq,
            created_at_ms: self.now_ms,
            turn_id: self.turn.clone(),
            body,
        };
        self.next_seq += 1;
        self.nodes.push(node);
        id
    }

    /// The leaf after the chain.
    pub(crate) fn leaf(&self) -> Option<NodeId> {
        self.parent.clone()
    }

    /// Appends the chain to `unit`.
    pub(crate) fn write(self, unit: &mut UnitOfWork) {
        for node in self.nodes {
            unit.push(WriteOp::AppendNode(node));
        }
    }
}

fn item_of(node: &NodeId) -> ItemId {
    // Item ids derive from node ids where one exists, so snapshots and live events agree.
    ItemId::new(format!("i-{node}")).unwrap_or_else(|_| fallback_item())
}

fn fallback_item() -> ItemId {
    #[allow(clippy::unwrap_used)] // a constant, valid id
    ItemId::new("i-item").unwrap()
}

/// Whether an outcome is a refusal by the user's permissions: it goes back to the model but
/// does not count towards the failure breaker.
fn is_denial(outcome: &ToolOutcome) -> bool {
    matches!(outcome, ToolOutcome::Failure { details: Some(d), .. } if d.get("denied") == Some(&serde_json::Value::Bool(true)))
}

fn stop_of(reason: ProviderStopReason) -> StopReason {
    match reason {
        ProviderStopReason::End | ProviderStopReason::ToolUse => StopReason::End,
        ProviderStopReason::MaxTokens => StopReason::MaxTokens,
        ProviderStopReason::ContentFilter => StopReason::ContentFilter,
        ProviderStopReason::Interrupted => StopReason::Interrupted,
    }
}

/// One line describing tool parameters, for cards.
fn params_summary(params: &serde_json::Value) -> Option<String> {
    let text = params.to_string();
    (text != "null" && text != "{}").then(|| text.chars().take(120).collect())
}

impl<S: Store> Engine<S> {
    fn new_node_id(&self) -> Result<NodeId, StoreError> {
        NodeId::new(self.ids.new_id("n"))
            .map_err(|err| StoreError::Corrupt(format!("id source made a bad id: {err}")))
    }

    fn new_item_id(&self) -> ItemId {
        ItemId::new(self.ids.new_id("i")).unwrap_or_else(|_| fallback_item())
    }

    /// Appends one audit node (a decision, an answer) at the run's thread leaf, with the moved
    /// leaf and whatever `change` does to the thread's metadata, to `unit`.
    pub(crate) async fn audit_node(
        &self,
        run: &RunRecord,
        body: NodeBody,
        now: u64,
        change: impl FnOnce(&mut ThreadMeta),
        unit: &mut UnitOfWork,
    ) -> Result<(), StoreError> {
        let Some((mut meta, tree)) = self.thread_state(&run.thread_id).await? else {
            return Ok(());
        };
        let mut chain =
            Chain::new(&run.thread_id, Some(&run.turn_id), meta.leaf_id.clone(), &tree, now);
        chain.push(self.new_node_id()?, body);
        change(&mut meta);
        meta.leaf_id = chain.leaf();
        chain.write(unit);
        unit.push(WriteOp::PutThread(meta));
        Ok(())
    }

    /// Commits one step of a run: its nodes, the thread's leaf after them, and the run's new
    /// state, in one unit.
    async fn commit_step(
        &mut self,
        chain: Chain,
        mut meta: ThreadMeta,
        run: RunRecord,
        now: u64,
    ) -> Result<(), StoreError> {
        meta.leaf_id = chain.leaf();
        meta.updated_at_ms = now;
        let mut unit = UnitOfWork::new();
        chain.write(&mut unit);
        unit.push(WriteOp::PutThread(meta));
        unit.push(WriteOp::PutRun(Box::new(run)));
        self.commit(unit).await
    }

    /// The thread's metadata and tree, for a step that appends nodes.
    async fn thread_state(
        &self,
        thread: &ThreadId,
    ) -> Result<Option<(ThreadMeta, ThreadTree)>, StoreError> {
        let Some(meta) = self.store.thread(thread).await? else {
            return Ok(None);
        };
        let tree = ThreadTree::from_links(self.store.tree_links(thread).await?);
        Ok(Some((meta, tree)))
    }

    /// Moves a run to `to`, refusing a transition outside the table.
    pub(crate) fn transition(
        run: &mut RunRecord,
        to: RunState,
        now_ms: u64,
    ) -> Result<(), StoreError> {
        if run.state != to && !allowed(run.state, to) {
            return Err(StoreError::Integrity(format!(
                "run {} cannot go from {:?} to {:?}",
                run.id, run.state, to
            )));
        }
        run.state = to;
        run.updated_at_ms = now_ms;
        Ok(())
    }

    /// Starts the thread's next queued run if nothing holds the thread. A parked run that can
    /// only be continued (interrupted, over budget) is closed by a new message; a write of
    /// unknown outcome holds the thread until the user decides.
    pub(crate) async fn schedule(&mut self, thread: &ThreadId, out: &mut Outbox) {
        let of_thread: Vec<RunRecord> =
            self.runs.values().filter(|r| &r.thread_id == thread).cloned().collect();
        if of_thread.iter().any(|r| r.is_active() || r.state == RunState::PausedUncertain) {
            return;
        }
        let Some(next) = of_thread
            .iter()
            .filter(|r| r.state == RunState::Queued)
            .min_by_key(|r| r.seq)
            .map(|r| r.id.clone())
        else {
            return;
        };
        for parked in of_thread.into_iter().filter(RunRecord::is_parked) {
            // Closed like any ending run: its acknowledged steers join the thread.
            let (state, stop) = match parked.state {
                RunState::PausedBudget => (RunState::Completed, StopReason::BudgetPause),
                _ => (RunState::Interrupted, StopReason::Interrupted),
            };
            self.end_run(parked, state, stop, None, None, out).await;
        }
        if let Err(err) = self.start_run(&next, out).await {
            self.fail_run(&next, &err.to_string(), out).await;
        }
    }

    /// Starts a queued run: its turn context and message join the thread, then the first model
    /// call goes out.
    async fn start_run(&mut self, run_id: &RunId, out: &mut Outbox) -> Result<(), StoreError> {
        let Some(mut run) = self.runs.get(run_id).cloned() else {
            return Ok(());
        };
        let Some((mut meta, tree)) = self.thread_state(&run.thread_id).await? else {
            return Ok(());
        };
        let now = self.clock.now_ms();
        let parent = match &run.sibling_of {
            Some(sibling) => {
                tree.parent(sibling).map_err(|err| StoreError::Integrity(err.to_string()))?.cloned()
            }
            None => meta.leaf_id.clone(),
        };
        let first_turn = meta.leaf_id.is_none() && meta.title == super::threads::NEW_THREAD_TITLE;
        let mut chain = Chain::new(&run.thread_id, Some(&run.turn_id), parent, &tree, now);
        let model = format!("{}/{}", run.model.connection_id, run.model.model_id);
        // The message first, so an edit (a fork of it) is its sibling; the turn context (never
        // shown or sent) follows it.
        let user_node = chain.push(
            self.new_node_id()?,
            NodeBody::UserMessage { input: run.input.clone(), steered: false },
        );
        chain.push(
            self.new_node_id()?,
            NodeBody::TurnContext { model, permission_policy: run.policy },
        );
        Self::transition(&mut run, RunState::Preparing, now)?;
        meta.leaf_id = chain.leaf();
        meta.updated_at_ms = now;
        let mut title_patch = None;
        if first_turn {
            meta.title = super::threads::fallback_title(&run.input.text);
            meta.revision += 1;
            title_patch = Some(meta.title.clone());
        }
        let mut unit = UnitOfWork::new();
        chain.write(&mut unit);
        unit.push(WriteOp::PutThread(meta.clone()));
        unit.push(WriteOp::PutRun(Box::new(run.clone())));
        self.commit(unit).await?;
        self.live.insert(run.id.clone(), LiveRun::default());
        let start = TurnStartEvent {
            thread_id: run.thread_id.clone(),
            turn_id: run.turn_id.clone(),
            run_id: run.id.clone(),
            turn_kind: TurnKind::User,
            steerable: true,
        };
        self.broadcast(AgentEvent::TurnStart(start), out);
        self.user_item(&run, &user_node, out);
        self.later(super::FollowUp::Continue(run_id.clone()));
        if let Some(title) = title_patch {
            self.title_changed(&meta, title, out);
            self.titles_pending.insert(run_id.clone());
        }
        Ok(())
    }

    /// Publishes a user message node as a started and completed item.
    fn user_item(&mut self, run: &RunRecord, node: &NodeId, out: &mut Outbox) {
        let item = item_of(node);
        let start = ItemStartEvent {
            thread_id: run.thread_id.clone(),
            turn_id: run.turn_id.clone(),
            item_id: item.clone(),
            kind: ItemKind::UserMessage,
            meta: ItemMeta::default(),
        };
        self.broadcast(AgentEvent::ItemStart(start), out);
        self.complete_item(&run.thread_id, item, Some(node.clone()), None, out);
    }

    fn complete_item(
        &mut self,
        thread: &ThreadId,
        item: ItemId,
        node: Option<NodeId>,
        result: Option<ToolResultView>,
        out: &mut Outbox,
    ) {
        let complete =
            ItemCompleteEvent { thread_id: thread.clone(), item_id: item, node_id: node, result };
        self.broadcast(AgentEvent::ItemComplete(complete), out);
    }

    /// Makes the run's next model call: pending steers join the thread first (never between a
    /// tool call and its result: this runs only once every call of the last answer has its
    /// result), then the context is built from the stored path.
    pub(crate) async fn call_model(&mut self, run_id: &RunId, out: &mut Outbox) {
        if let Err(err) = self.try_call_model(run_id, out).await {
            self.fail_run(run_id, &err.to_string(), out).await;
        }
    }

    async fn try_call_model(&mut self, run_id: &RunId, out: &mut Outbox) -> Result<(), StoreError> {
        let Some(mut run) = self.runs.get(run_id).cloned() else {
            return Ok(());
        };
        let now = self.clock.now_ms();
        if run.state != RunState::Preparing {
            Self::transition(&mut run, RunState::Preparing, now)?;
        }
        if run.token_budget.is_some()
            && run.counters.model_calls > 0
            && run.counters.tokens_used >= run.counters.budget_allowance
        {
            return self
                .park(run, RunState::PausedBudget, "The turn reached its token budget.", out)
                .await;
        }
        // Pages attached to the message are read before the first call, so the model starts
        // with their snapshots and refs (and the user sees the reads as tool cards).
        if run.counters.model_calls == 0
            && run.tools.is_empty()
            && let Some(reads) = page_reads(&run, &self.tools)
        {
            return self.model_answered(run_id, reads, out).await;
        }
        let Some((meta, tree)) = self.thread_state(&run.thread_id).await? else {
            return Ok(());
        };
        let mut chain =
            Chain::new(&run.thread_id, Some(&run.turn_id), meta.leaf_id.clone(), &tree, now);
        let steers = std::mem::take(&mut run.steers);
        for steer in &steers {
            chain.push(
                steer.node_id.clone(),
                NodeBody::UserMessage { input: steer.input.clone(), steered: true },
            );
        }
        let mut path = match &meta.leaf_id {
            Some(leaf) => {
                let ids = tree.path_to(leaf).map_err(|err| StoreError::Corrupt(err.to_string()))?;
                self.store.nodes(&run.thread_id, &ids).await?
            }
            None => Vec::new(),
        };
        path.extend(chain.nodes.iter().cloned());
        let nonce = context::fence_nonce(&run.thread_id);
        let levels = super::presets::tool_levels(&run);
        let instructions = run.preset.as_ref().and_then(|p| p.system_prompt.as_deref());
        let request = ModelRequest {
            model: run.model.model_id.to_string(),
            system: context::system_prompt(&nonce, instructions),
            messages: context::messages(&path, &self.tools, &nonce),
            tools: if run.counters.tools_disabled {
                Vec::new()
            } else {
                self.tools.specs(levels.as_deref())
            },
            params: super::presets::gen_params(run.preset.as_ref()),
        };
        Self::transition(&mut run, RunState::StreamingModel, now)?;
        run.counters.model_calls += 1;
        self.commit_step(chain, meta, run.clone(), now).await?;
        for steer in &steers {
            self.user_item(&run, &steer.node_id, out);
        }
        let id = self.new_effect(InFlight::Model(run.id.clone()));
        self.live.insert(run.id.clone(), LiveRun::default());
        out.effects.push(Effect::CallModel {
            id,
            connection: run.model.connection_id.to_string(),
            request,
        });
        Ok(())
    }

    /// An event of a model stream.
    pub async fn on_model_event(&mut self, id: EffectId, event: ModelEvent) -> super::Outbox {
        let mut out = Outbox::default();
        if let Some(InFlight::Model(run_id)) = self.in_flight.get(&id).cloned()
            && let Some(run) = self.runs.get(&run_id).cloned()
        {
            self.stream_event(&run, event, &mut out);
        }
        self.drain(&mut out).await;
        out
    }

    fn stream_event(&mut self, run: &RunRecord, event: ModelEvent, out: &mut Outbox) {
        let new_item = self.new_item_id();
        let Some(live) = self.live.get_mut(&run.id) else {
            return;
        };
        let (kind, delta, started) = match event {
            ModelEvent::TextDelta(text) => {
                let started = live.text.is_none();
                let (item, so_far) = live.text.get_or_insert_with(|| (new_item, String::new()));
                so_far.push_str(&text);
                let delta = ItemDelta { text: Some(text), ..ItemDelta::default() };
                (
                    ItemKind::AssistantMessage,
                    Some((item.clone(), delta)),
                    started.then_some(ItemMeta::default()),
                )
            }
            ModelEvent::ReasoningDelta(text) => {
                let started = live.reasoning.is_none();
                let (item, so_far) =
                    live.reasoning.get_or_insert_with(|| (new_item, String::new()));
                so_far.push_str(&text);
                let delta = ItemDelta { reasoning: Some(text), ..ItemDelta::default() };
                (
                    ItemKind::Reasoning,
                    Some((item.clone(), delta)),
                    started.then_some(ItemMeta::default()),
                )
            }
            ModelEvent::ToolCallStarted { index, name } => {
                live.calls.insert(index, new_item.clone());
                let meta = self.tool_meta(&name, None);
                self.start_item(run, new_item, ItemKind::ToolCall, meta, out);
                return;
            }
            ModelEvent::ToolCallDelta { .. } => return,
        };
        if let Some((item, delta)) = delta {
            if let Some(meta) = started {
                self.start_item(run, item.clone(), kind, meta, out);
            }
            let event = ItemDeltaEvent { thread_id: run.thread_id.clone(), item_id: item, delta };
            self.publish(u32::MAX, AgentEvent::ItemDelta(event), out);
        }
    }

    fn start_item(
        &mut self,
        run: &RunRecord,
        item: ItemId,
        kind: ItemKind,
        meta: ItemMeta,
        out: &mut Outbox,
    ) {
        let start = ItemStartEvent {
            thread_id: run.thread_id.clone(),
            turn_id: run.turn_id.clone(),
            item_id: item,
            kind,
            meta,
        };
        self.broadcast(AgentEvent::ItemStart(start), out);
    }

    fn tool_meta(&self, name: &str, params: Option<&serde_json::Value>) -> ItemMeta {
        let tool = self.tools.get(name);
        ItemMeta {
            tool_name: Some(name.to_owned()),
            label: Some(tool.map_or_else(|| name.to_owned(), |t| t.label.clone())),
            params_summary: params.and_then(params_summary),
            level: Some(tool.map_or(ToolLevel::Builtin, |t| t.level)),
        }
    }

    /// The outcome of a model call.
    pub async fn on_model_done(
        &mut self,
        id: EffectId,
        result: Result<ModelResponse, ProviderError>,
    ) -> super::Outbox {
        let mut out = Outbox::default();
        match self.in_flight.remove(&id) {
            Some(InFlight::Model(run_id)) => {
                // The generated title follows the turn's first answer, whatever it was.
                if self.titles_pending.remove(&run_id)
                    && let Some(run) = self.runs.get(&run_id)
                {
                    let request = super::TitleRequest {
                        thread: run.thread_id.clone(),
                        model: run.model.clone(),
                        text: run.input.text.clone(),
                    };
                    self.later(super::FollowUp::Title(Box::new(request)));
                }
                let outcome = match result {
                    Ok(response) => self.model_answered(&run_id, response, &mut out).await,
                    Err(err) => {
                        self.model_failed(&run_id, err, &mut out).await;
                        Ok(())
                    }
                };
                if let Err(err) = outcome {
                    self.fail_run(&run_id, &err.to_string(), &mut out).await;
                }
            }
            Some(InFlight::Title { thread, fallback }) => {
                if let Ok(response) = result {
                    self.title_answered(&thread, &fallback, &response, &mut out).await;
                }
            }
            Some(InFlight::Tool(..) | InFlight::Verify { .. }) | None => {}
        }
        self.drain(&mut out).await;
        out
    }

    /// Writes a model answer with its tool calls, in one unit with the run's next state.
    async fn model_answered(
        &mut self,
        run_id: &RunId,
        response: ModelResponse,
        out: &mut Outbox,
    ) -> Result<(), StoreError> {
        let Some(mut run) = self.runs.get(run_id).cloned() else {
            return Ok(());
        };
        let Some((mut meta, tree)) = self.thread_state(&run.thread_id).await? else {
            return Ok(());
        };
        let live = self.live.remove(run_id).unwrap_or_default();
        let now = self.clock.now_ms();
        let mut chain =
            Chain::new(&run.thread_id, Some(&run.turn_id), meta.leaf_id.clone(), &tree, now);
        let ModelResponse { turn, stop_reason, usage } = response;
        let answer = chain.push(
            self.new_node_id()?,
            NodeBody::AssistantMessage {
                text: turn.text.clone(),
                reasoning: turn.reasoning.clone().filter(|r| !r.is_empty()),
                provider_state: turn.provider_state.clone(),
                model: run.model.model_id.to_string(),
                stop_reason,
                usage,
                cost_usd: None,
            },
        );
        // Calls made while tools were off (the model ignored that) are not run.
        let calls = if run.counters.tools_disabled { Vec::new() } else { turn.tool_calls.clone() };
        run.tools.clear();
        let mut call_items = Vec::new();
        for (index, call) in calls.iter().enumerate() {
            let params = serde_json::from_str::<serde_json::Value>(&call.arguments)
                .ok()
                .filter(serde_json::Value::is_object)
                .unwrap_or(serde_json::Value::Null);
            let item =
                live.calls.get(&(index as u32)).cloned().unwrap_or_else(|| self.new_item_id());
            let tool = self.tools.get(&call.name);
            let node = chain.push(
                self.new_node_id()?,
                NodeBody::ToolCall {
                    item_id: item.clone(),
                    call_id: call.id.clone(),
                    tool_name: call.name.clone(),
                    label: tool.map_or_else(|| call.name.clone(), |t| t.label.clone()),
                    params: params.clone(),
                    level: tool.map_or(ToolLevel::Builtin, |t| t.level),
                },
            );
            call_items.push((
                item.clone(),
                live.calls.contains_key(&(index as u32)),
                call.name.clone(),
                params.clone(),
            ));
            run.tools.push(crate::store::ToolCallRecord {
                node_id: node,
                item_id: item,
                call_id: call.id.clone(),
                tool_name: call.name.clone(),
                params,
                status: ToolCallStatus::Pending,
                dispatches: 0,
                approved: false,
                host_permission_asked: false,
            });
        }
        run.counters.tokens_used += usage.input + usage.output;
        meta.stats.total_tokens += usage.input + usage.output;
        let stop = stop_of(stop_reason);
        let next = if !run.tools.is_empty() {
            RunState::ExecutingTool
        } else if !run.steers.is_empty() {
            RunState::Preparing
        } else {
            meta.stats.turns += 1;
            run.stop_reason = Some(stop);
            RunState::Completed
        };
        Self::transition(&mut run, next, now)?;
        self.commit_step(chain, meta, run.clone(), now).await?;

        let thread = run.thread_id.clone();
        let reasoning = turn.reasoning.filter(|r| !r.is_empty());
        match (live.reasoning, reasoning) {
            (Some((item, _)), _) => {
                self.complete_item(&thread, item, Some(answer.clone()), None, out)
            }
            (None, Some(_)) => {
                let item = item_of(&answer);
                let item = ItemId::new(format!("{item}-r")).unwrap_or(item);
                self.start_item(&run, item.clone(), ItemKind::Reasoning, ItemMeta::default(), out);
                self.complete_item(&thread, item, Some(answer.clone()), None, out);
            }
            (None, None) => {}
        }
        let text_item = match live.text {
            Some((item, _)) => item,
            None => {
                let item = item_of(&answer);
                self.start_item(
                    &run,
                    item.clone(),
                    ItemKind::AssistantMessage,
                    ItemMeta::default(),
                    out,
                );
                item
            }
        };
        self.complete_item(&thread, text_item, Some(answer), None, out);
        for (item, started, name, params) in call_items {
            if !started {
                let meta = self.tool_meta(&name, Some(&params));
                self.start_item(&run, item, ItemKind::ToolCall, meta, out);
            }
        }
        let usage_event = TokenUsageEvent {
            thread_id: thread.clone(),
            turn_id: run.turn_id.clone(),
            usage,
            cost_usd: None,
        };
        self.broadcast(AgentEvent::TokenUsage(usage_event), out);
        match next {
            RunState::ExecutingTool => self.later(super::FollowUp::Dispatch(run_id.clone())),
            RunState::Preparing => self.later(super::FollowUp::Continue(run_id.clone())),
            _ => {
                let complete = TurnCompleteEvent {
                    thread_id: thread.clone(),
                    turn_id: run.turn_id,
                    stop_reason: stop,
                };
                self.broadcast(AgentEvent::TurnComplete(complete), out);
                self.later(super::FollowUp::Schedule(thread));
            }
        }
        Ok(())
    }

    async fn model_failed(&mut self, run_id: &RunId, err: ProviderError, out: &mut Outbox) {
        let Some(run) = self.runs.get(run_id).cloned() else {
            return;
        };
        let event = ErrorEvent {
            submission_id: None,
            thread_id: Some(run.thread_id.clone()),
            code: ErrorCode::ProviderError,
            message: err.message.clone(),
            retryable: err.is_retryable(),
            error_kind: Some(err.kind),
            provider_details: Some(err.details.clone()),
        };
        self.end_run(run, RunState::Failed, StopReason::Error, Some(err.message), Some(event), out)
            .await;
    }

    /// Fails a run after an internal failure (a store error mid-step): the run is marked failed
    /// if the store still takes writes; otherwise recovery finds it at its last durable step.
    pub(crate) async fn fail_run(&mut self, run_id: &RunId, message: &str, out: &mut Outbox) {
        tracing::warn!(%message, "a run step failed");
        let Some(run) = self.runs.get(run_id).cloned() else {
            return;
        };
        let event = ErrorEvent {
            submission_id: None,
            thread_id: Some(run.thread_id.clone()),
            code: ErrorCode::Internal,
            message: format!("The turn stopped: {message}"),
            retryable: false,
            error_kind: None,
            provider_details: None,
        };
        self.end_run(
            run,
            RunState::Failed,
            StopReason::Error,
            Some(message.to_owned()),
            Some(event),
            out,
        )
        .await;
    }

    /// Ends a run for good: calls without a result get one (so the conversation stays valid for
    /// the provider), acknowledged steers join the thread, and the terminal state is written with
    /// them in one unit. Then `turn.complete`, and the thread's next run.
    pub(crate) async fn end_run(
        &mut self,
        mut run: RunRecord,
        state: RunState,
        stop: StopReason,
        note: Option<String>,
        error: Option<ErrorEvent>,
        out: &mut Outbox,
    ) {
        let now = self.clock.now_ms();
        let unit = match self.ending_unit(&mut run, state, stop, note, now, None).await {
            Ok(unit) => unit,
            Err(err) => {
                tracing::warn!(%err, "could not prepare the end of a run");
                return;
            }
        };
        // Nothing may still run for it.
        let owned: Vec<EffectId> = self
            .in_flight
            .iter()
            .filter(|(_, owner)| matches!(owner, InFlight::Model(r) | InFlight::Tool(r, _) if r == &run.id))
            .map(|(id, _)| *id)
            .collect();
        for id in owned {
            self.in_flight.remove(&id);
            out.effects.push(Effect::Abort { id });
        }
        if let Err(err) = self.commit(unit.0).await {
            tracing::warn!(%err, "could not write the end of a run; recovery will find it");
            self.runs.remove(&run.id);
            self.live.remove(&run.id);
            return;
        }
        let live = self.live.remove(&run.id).unwrap_or_default();
        let thread = run.thread_id.clone();
        for (item, _, _) in live.streaming() {
            self.complete_item(&thread, item, None, None, out);
        }
        for (item, node, result) in unit.1 {
            self.complete_item(&thread, item, Some(node), Some(result), out);
        }
        for steer in unit.2 {
            self.user_item(&run, &steer, out);
        }
        if let Some(error) = error {
            self.broadcast(AgentEvent::Error(error), out);
        }
        let complete = TurnCompleteEvent {
            thread_id: thread.clone(),
            turn_id: run.turn_id.clone(),
            stop_reason: stop,
        };
        self.broadcast(AgentEvent::TurnComplete(complete), out);
        self.later(super::FollowUp::Schedule(thread));
    }

    /// The unit that ends a run, with the items it completes and the steers it writes. `first`
    /// is written before anything else: the decision that ended the run, or the answer the
    /// model had streamed when it was interrupted.
    #[allow(clippy::type_complexity)]
    pub(crate) async fn ending_unit(
        &self,
        run: &mut RunRecord,
        state: RunState,
        stop: StopReason,
        note: Option<String>,
        now: u64,
        first: Option<NodeBody>,
    ) -> Result<(UnitOfWork, Vec<(ItemId, NodeId, ToolResultView)>, Vec<NodeId>), StoreError> {
        let mut unit = UnitOfWork::new();
        let mut completed = Vec::new();
        let mut steers = Vec::new();
        if let Some((mut meta, tree)) = self.thread_state(&run.thread_id).await? {
            let mut chain =
                Chain::new(&run.thread_id, Some(&run.turn_id), meta.leaf_id.clone(), &tree, now);
            if let Some(body) = first {
                chain.push(self.new_node_id()?, body);
            }
            for call in run.tools.iter_mut().filter(|c| c.status != ToolCallStatus::Done) {
                let content = match call.status {
                    ToolCallStatus::Dispatched => {
                        "The turn ended while this tool was running; whether it had an effect is unknown."
                    }
                    _ => "The turn ended before this tool ran.",
                };
                let node = chain.push(
                    self.new_node_id()?,
                    NodeBody::ToolResult {
                        item_id: call.item_id.clone(),
                        call_id: call.call_id.clone(),
                        ok: false,
                        content_for_model: String::new(),
                        details: None,
                        engine_note: Some(content.to_owned()),
                    },
                );
                call.status = ToolCallStatus::Done;
                let _ = node;
                completed.push((
                    call.item_id.clone(),
                    call.node_id.clone(),
                    ToolResultView { ok: false, details: None },
                ));
            }
            for steer in std::mem::take(&mut run.steers) {
                steers.push(chain.push(
                    steer.node_id,
                    NodeBody::UserMessage { input: steer.input, steered: true },
                ));
            }
            meta.leaf_id = chain.leaf();
            meta.updated_at_ms = now;
            meta.stats.turns += 1;
            chain.write(&mut unit);
            unit.push(WriteOp::PutThread(meta));
        }
        Self::transition(run, state, now)?;
        run.resumable = false;
        run.approval = None;
        run.interaction = None;
        run.stop_reason = Some(stop);
        run.note = note;
        unit.push(WriteOp::PutRun(Box::new(run.clone())));
        Ok((unit, completed, steers))
    }

    /// Parks a run until the user says how to go on.
    pub(crate) async fn park(
        &mut self,
        mut run: RunRecord,
        state: RunState,
        reason: &str,
        out: &mut Outbox,
    ) -> Result<(), StoreError> {
        Self::transition(&mut run, state, self.clock.now_ms())?;
        run.resumable = state == RunState::Interrupted;
        run.note = Some(reason.to_owned());
        let mut unit = UnitOfWork::new();
        unit.push(WriteOp::PutRun(Box::new(run.clone())));
        self.commit(unit).await?;
        let live = self.live.remove(&run.id).unwrap_or_default();
        for (item, _, _) in live.streaming() {
            self.complete_item(&run.thread_id, item, None, None, out);
        }
        let event = panelot_protocol::engine::RunRecoveryRequiredEvent {
            thread_id: run.thread_id.clone(),
            run: super::turns::recovery_state(&run),
        };
        self.broadcast(AgentEvent::RunRecoveryRequired(event), out);
        Ok(())
    }

    /// Dispatches the run's next tool call, writing error results for calls that cannot run;
    /// once every call has its result, the next model call goes out.
    pub(crate) async fn dispatch_next_tool(&mut self, run_id: &RunId, out: &mut Outbox) {
        if let Err(err) = self.try_dispatch(run_id, out).await {
            self.fail_run(run_id, &err.to_string(), out).await;
        }
    }

    async fn try_dispatch(&mut self, run_id: &RunId, out: &mut Outbox) -> Result<(), StoreError> {
        loop {
            let Some(mut run) = self.runs.get(run_id).cloned() else {
                return Ok(());
            };
            let Some(index) = run.tools.iter().position(|c| c.status != ToolCallStatus::Done)
            else {
                self.call_model(run_id, out).await;
                return Ok(());
            };
            let call = run.tools[index].clone();
            let levels = super::presets::tool_levels(&run);
            let refusal = match self.tools.get(&call.tool_name) {
                _ if run.counters.tools_disabled => {
                    Some("Tools are switched off for the rest of this turn.".to_owned())
                }
                None => Some(format!("There is no tool named `{}`.", call.tool_name)),
                // A tool of a level this turn did not enable was never offered.
                Some(tool) if !crate::tools::offered(tool.level, levels.as_deref()) => {
                    Some(format!("`{}` is not enabled for this turn.", call.tool_name))
                }
                Some(_) if call.params.is_null() => Some(
                    "The arguments are not a valid JSON object; send them again as one.".to_owned(),
                ),
                Some(tool) => validate_params(&tool.parameters, &call.params)
                    .err()
                    .map(|e| format!("Invalid parameters: {e}. Fix them and call again.")),
            };
            if let Some(message) = refusal {
                let refused = ToolOutcome::Failure { message, details: None };
                self.write_tool_result(&mut run, index, refused, Author::Engine, out).await?;
                continue;
            }
            // A question to the user is the only call of its answer, and waits for the answer.
            if let Some(request) =
                super::interactions::interaction_request(&call.tool_name, &call.params)
            {
                let request = match request {
                    Ok(_) if run.tools.len() > 1 => Err(format!(
                        "`{}` must be the only tool call of an answer; call it again alone",
                        call.tool_name
                    )),
                    other => other,
                };
                match request {
                    Ok(request) => return self.ask_interaction(run, index, request, out).await,
                    Err(message) => {
                        let refused = ToolOutcome::Failure { message, details: None };
                        self.write_tool_result(&mut run, index, refused, Author::Engine, out)
                            .await?;
                        continue;
                    }
                }
            }
            // The gatekeeper, before dispatch; an approved call is judged again, and only a
            // denial (a rule or list changed meanwhile) still stops it.
            match self.gate(&run, &call).await? {
                Verdict::Allow => {}
                Verdict::Ask { .. } if call.approved => {}
                Verdict::Ask { flags, reason } => {
                    tracing::debug!(%reason, "asking before a tool call");
                    return self.ask_approval(run, index, flags, None, out).await;
                }
                Verdict::Deny { reason, .. } => {
                    let message =
                        format!("Denied by the user's permissions: {reason}. Do not retry it.");
                    let denied = ToolOutcome::Failure {
                        message,
                        details: Some(serde_json::json!({"denied": true})),
                    };
                    self.write_tool_result(&mut run, index, denied, Author::Engine, out).await?;
                    continue;
                }
            }
            Self::transition(&mut run, RunState::ExecutingTool, self.clock.now_ms())?;
            run.tools[index].status = ToolCallStatus::Dispatched;
            run.tools[index].dispatches += 1;
            let dispatch = run.tools[index].dispatches;
            let mut unit = UnitOfWork::new();
            unit.push(WriteOp::PutRun(Box::new(run.clone())));
            self.commit(unit).await?;
            let id = self.new_effect(InFlight::Tool(run.id.clone(), index));
            out.effects.push(Effect::RunTool {
                id,
                call: ToolInvocation {
                    thread_id: run.thread_id.clone(),
                    run_id: run.id.clone(),
                    call_id: call.call_id,
                    tool: call.tool_name,
                    params: call.params,
                    dispatch,
                    default_tab: run
                        .input
                        .browser_context
                        .as_ref()
                        .and_then(|c| c.default_tab.as_ref())
                        .map(|t| t.tab_id),
                },
            });
            return Ok(());
        }
    }

    /// The outcome of a tool call.
    pub async fn on_tool_done(&mut self, id: EffectId, outcome: ToolOutcome) -> super::Outbox {
        let mut out = Outbox::default();
        self.tool_done(id, outcome, Author::Tool, &mut out).await;
        self.drain(&mut out).await;
        out
    }

    pub(crate) async fn tool_done(
        &mut self,
        id: EffectId,
        outcome: ToolOutcome,
        author: Author,
        out: &mut Outbox,
    ) {
        if let Some(InFlight::Tool(run_id, index)) = self.in_flight.remove(&id)
            && let Some(mut run) = self.runs.get(&run_id).cloned()
        {
            // The host could not reach the site: the user is asked once for access (the card
            // asks the browser for it), and the call, which never ran, runs again if given.
            if let Some(origin) = needs_host_permission(&outcome)
                && !run.tools[index].host_permission_asked
            {
                run.tools[index].host_permission_asked = true;
                run.tools[index].status = ToolCallStatus::Pending;
                run.tools[index].approved = false;
                let flags = vec![panelot_protocol::engine::ApprovalFlag::HostPermission];
                if let Err(err) = self.ask_approval(run, index, flags, Some(origin), out).await {
                    self.fail_run(&run_id, &err.to_string(), out).await;
                }
                return;
            }
            match self.write_tool_result(&mut run, index, outcome, author, out).await {
                Ok(()) => self.later(super::FollowUp::Dispatch(run_id)),
                Err(err) => self.fail_run(&run_id, &err.to_string(), out).await,
            }
        }
    }

    /// Writes a call's result with the run's counters in one unit; the safety nets (failure
    /// reminder and breaker, stuck detector) speak through the engine's note on the result,
    /// which the model reads after what the tool said and outside its fence.
    pub(crate) async fn write_tool_result(
        &mut self,
        run: &mut RunRecord,
        index: usize,
        outcome: ToolOutcome,
        author: Author,
        out: &mut Outbox,
    ) -> Result<(), StoreError> {
        let Some((meta, tree)) = self.thread_state(&run.thread_id).await? else {
            return Ok(());
        };
        let now = self.clock.now_ms();
        let call = run.tools[index].clone();
        let denial = is_denial(&outcome);
        let (ok, said, details) = match outcome {
            ToolOutcome::Success { content, details } => (true, content, details),
            ToolOutcome::Failure { message, details } => {
                (false, format!("Error: {message}"), details)
            }
        };
        let (content, mut notes) = match author {
            Author::Tool => (said, Vec::new()),
            Author::Engine => (String::new(), vec![said]),
        };
        let counters = &mut run.counters;
        if ok {
            counters.consecutive_failures = 0;
        } else if !denial {
            counters.consecutive_failures += 1;
            if counters.consecutive_failures == FAILURE_REMINDER_AT {
                notes.push("Several tool calls in a row have failed. Stop and rethink: read the errors, check the page again, or try another way.".to_owned());
            }
            if counters.consecutive_failures >= FAILURE_BREAKER_AT && !counters.tools_disabled {
                counters.tools_disabled = true;
                notes.push("Too many tool calls failed: tools are now switched off. Answer the user with what you have and say what did not work.".to_owned());
            }
        }
        let fingerprint =
            format!("{}:{}", call.tool_name, panelot_protocol::canonical_json(&call.params));
        counters.recent_calls.push(fingerprint.clone());
        let excess = counters.recent_calls.len().saturating_sub(STUCK_WINDOW);
        counters.recent_calls.drain(..excess);
        let repeats = counters.recent_calls.iter().rev().take_while(|f| **f == fingerprint).count();
        if repeats >= STUCK_REPEATS {
            notes.push(format!("You have made this exact call {repeats} times in a row. It is not making progress; do something different."));
        }
        // What a page or MCP server said is remembered as taint before the model reads it.
        if let Some(tool) = self.tools.get(&call.tool_name)
            && matches!(tool.result_provenance, Provenance::Page | Provenance::Mcp)
        {
            let source = match tool.result_provenance {
                Provenance::Mcp => format!("mcp:{}", call.tool_name),
                _ => Self::page_url(run).unwrap_or_default(),
            };
            run.taint.record(&content, tool.result_provenance, &source);
        }
        let mut chain =
            Chain::new(&run.thread_id, Some(&run.turn_id), meta.leaf_id.clone(), &tree, now);
        chain.push(
            self.new_node_id()?,
            NodeBody::ToolResult {
                item_id: call.item_id.clone(),
                call_id: call.call_id.clone(),
                ok,
                content_for_model: content,
                details: details.clone(),
                engine_note: (!notes.is_empty()).then(|| notes.join("\n\n")),
            },
        );
        run.tools[index].status = ToolCallStatus::Done;
        Self::transition(run, RunState::ExecutingTool, now)?;
        self.commit_step(chain, meta, run.clone(), now).await?;
        let result = ToolResultView { ok, details };
        self.complete_item(&run.thread_id, call.item_id, Some(call.node_id), Some(result), out);
        Ok(())
    }

    /// Asks the model for a title beside the first turn.
    pub(crate) async fn request_title(&mut self, title: super::TitleRequest, out: &mut Outbox) {
        let Ok(Some(meta)) = self.store.thread(&title.thread).await else {
            return;
        };
        // A thread the user renamed meanwhile keeps its name: no call.
        let fallback = super::threads::fallback_title(&title.text);
        if meta.title != fallback {
            return;
        }
        let excerpt: String = title.text.chars().take(2_000).collect();
        let request = ModelRequest {
            model: title.model.model_id.to_string(),
            system: crate::model::SystemPrompt {
                stable: super::threads::TITLE_PROMPT.to_owned(),
                dynamic: String::new(),
            },
            messages: vec![crate::model::Message::User {
                content: vec![crate::model::ContentPart::Text(excerpt)],
            }],
            tools: Vec::new(),
            params: crate::model::GenParams { max_tokens: Some(512), ..Default::default() },
        };
        let id = self.new_effect(InFlight::Title { thread: title.thread.clone(), fallback });
        out.effects.push(Effect::CallModel {
            id,
            connection: title.model.connection_id.to_string(),
            request,
        });
    }

    async fn title_answered(
        &mut self,
        thread: &ThreadId,
        fallback: &str,
        response: &ModelResponse,
        out: &mut Outbox,
    ) {
        let Some(title) = super::threads::clean_title(&response.turn.text) else {
            return;
        };
        // The user may have renamed the thread meanwhile: their name wins.
        let Ok(Some(mut meta)) = self.store.thread(thread).await else {
            return;
        };
        if meta.title != fallback {
            return;
        }
        meta.title = title.clone();
        meta.revision += 1;
        let mut unit = UnitOfWork::new();
        unit.push(WriteOp::PutThread(meta.clone()));
        if self.commit(unit).await.is_ok() {
            self.title_changed(&meta, title, out);
        }
    }

    fn title_changed(&mut self, meta: &ThreadMeta, title: String, out: &mut Outbox) {
        let updated = panelot_protocol::engine::ThreadUpdatedEvent {
            thread_id: meta.id.clone(),
            revision: meta.revision,
            patch: panelot_protocol::engine::ThreadMetaPatch {
                title: Some(title),
                ..Default::default()
            },
        };
        self.broadcast(AgentEvent::ThreadUpdated(updated), out);
    }
}

/// The tool that reads an attached page.
const READ_PAGE: &str = "read_page";

/// A model-less answer calling `read_page` on every page attached to the run's message by tab
/// (a page block without content), when this host has that tool.
fn page_reads(run: &RunRecord, tools: &ToolRegistry) -> Option<ModelResponse> {
    tools.get(READ_PAGE)?;
    let tool_calls: Vec<ToolCall> = run
        .input
        .attached_context
        .iter()
        .filter(|block| block.kind == ContextKind::Page)
        .filter(|block| matches!(block.content, ContextContent::Empty))
        .filter_map(|block| block.tab.as_ref())
        .enumerate()
        .map(|(index, tab)| ToolCall {
            id: format!("attached-page-{}", index + 1),
            name: READ_PAGE.to_owned(),
            arguments: serde_json::json!({"tabId": tab.tab_id}).to_string(),
        })
        .collect();
    if tool_calls.is_empty() {
        return None;
    }
    Some(ModelResponse {
        turn: AssistantTurn {
            text: String::new(),
            reasoning: None,
            tool_calls,
            provider_state: Vec::new(),
        },
        stop_reason: ProviderStopReason::ToolUse,
        usage: panelot_protocol::engine::Usage::default(),
    })
}

/// The origin a failed call could not reach for lack of host permission, as the host reports
/// it (`details.needsHostPermission`).
fn needs_host_permission(outcome: &ToolOutcome) -> Option<String> {
    match outcome {
        ToolOutcome::Failure { details: Some(details), .. } => details
            .get(NEEDS_HOST_PERMISSION)
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned),
        _ => None,
    }
}
