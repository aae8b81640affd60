//! Turn commands: submit, enqueue and fork (admission of a run), steer, interrupt, queue edits,
//! resume and the resolution of an uncertain write. Each decision is one unit of work with the
//! command's receipt; the loop's work follows once it is durable.

use panelot_protocol::AgentEvent;
use panelot_protocol::NodeId;
use panelot_protocol::Op;
use panelot_protocol::RunId;
use panelot_protocol::ThreadId;
use panelot_protocol::TurnId;
use panelot_protocol::engine::ActiveTurn;
use panelot_protocol::engine::ErrorCode;
use panelot_protocol::engine::ModelChoice;
use panelot_protocol::engine::ModelPreset;
use panelot_protocol::engine::PermissionPolicy;
use panelot_protocol::engine::QueueRemoveParams;
use panelot_protocol::engine::QueueUpdateParams;
use panelot_protocol::engine::QueueUpdatedEvent;
use panelot_protocol::engine::QueuedRun;
use panelot_protocol::engine::RecoveryOption;
use panelot_protocol::engine::RunRecoveryState;
use panelot_protocol::engine::RunResolveUncertainParams;
use panelot_protocol::engine::RunResumeParams;
use panelot_protocol::engine::RunState;
use panelot_protocol::engine::StopReason;
use panelot_protocol::engine::StreamingItem;
use panelot_protocol::engine::TurnKind;
use panelot_protocol::engine::TurnOverrides;
use panelot_protocol::engine::TurnSteerParams;
use panelot_protocol::engine::UncertainResolution;
use panelot_protocol::engine::UserInput;

use super::Decision;
use super::Engine;
use super::FollowUp;
use super::InFlight;
use super::ToolOutcome;
use super::run_ack;
use crate::store::LoopCounters;
use crate::store::RunRecord;
use crate::store::SteerRecord;
use crate::store::Store;
use crate::store::StoreError;
use crate::store::ToolCallStatus;
use crate::store::UnitOfWork;
use crate::store::WriteOp;
use crate::tree::ThreadTree;

/// Queued runs a thread may hold.
pub const RUN_QUEUE_CAPACITY: usize = 8;
/// Setting: the model used when a turn names none (a [`ModelChoice`]).
pub const SETTING_DEFAULT_MODEL: &str = "defaultModel";
/// Setting: the global permission policy.
pub const SETTING_PERMISSION_POLICY: &str = "permissionPolicy";
/// Setting: tokens a turn may spend before it pauses.
pub const SETTING_TURN_TOKEN_BUDGET: &str = "turnTokenBudget";

/// The recovery card of a parked run.
pub(crate) fn recovery_state(run: &RunRecord) -> RunRecoveryState {
    let uncertain = run.tools.iter().find(|c| c.status != ToolCallStatus::Done);
    let options = match run.state {
        RunState::PausedUncertain => {
            vec![RecoveryOption::Retry, RecoveryOption::MarkDone, RecoveryOption::Fail]
        }
        _ => vec![RecoveryOption::Continue],
    };
    let tool = uncertain.filter(|_| run.state == RunState::PausedUncertain);
    RunRecoveryState {
        run_id: run.id.clone(),
        state: run.state,
        reason: run.note.clone().unwrap_or_default(),
        tool_name: tool.map(|c| c.tool_name.clone()),
        tool_params: tool.map(|c| c.params.clone()),
        options,
    }
}

impl<S: Store> Engine<S> {
    fn runs_of(&self, thread: &ThreadId) -> impl Iterator<Item = &RunRecord> {
        self.runs.values().filter(move |r| &r.thread_id == thread)
    }

    fn active_run(&self, thread: &ThreadId) -> Option<&RunRecord> {
        self.runs_of(thread).find(|r| r.is_active())
    }

    /// The queued runs of a thread, in order.
    pub(crate) fn queued(&self, thread: &ThreadId) -> Vec<QueuedRun> {
        let mut runs: Vec<&RunRecord> =
            self.runs_of(thread).filter(|r| r.state == RunState::Queued).collect();
        runs.sort_by_key(|r| r.seq);
        runs.into_iter()
            .map(|r| QueuedRun {
                run_id: r.id.clone(),
                input: r.input.clone(),
                overrides: r.overrides.clone(),
                revision: r.revision,
            })
            .collect()
    }

    /// The running turn of a thread as a snapshot shows it.
    pub(crate) fn active_turn(&self, thread: &ThreadId) -> Option<ActiveTurn> {
        let run = self.active_run(thread)?;
        let streaming_items = self
            .live
            .get(&run.id)
            .map(|live| {
                live.streaming()
                    .into_iter()
                    .map(|(item_id, kind, text)| StreamingItem {
                        item_id,
                        kind,
                        meta: Default::default(),
                        text,
                    })
                    .collect()
            })
            .unwrap_or_default();
        Some(ActiveTurn {
            turn_id: run.turn_id.clone(),
            run_id: run.id.clone(),
            turn_kind: TurnKind::User,
            steerable: true,
            state: run.state,
            streaming_items,
            was_interrupted: false,
        })
    }

    /// Parked runs of a thread.
    pub(crate) fn recoverable(&self, thread: &ThreadId) -> Vec<RunRecoveryState> {
        self.runs_of(thread).filter(|r| r.is_parked()).map(recovery_state).collect()
    }

    /// Whether a thread has a run doing work (for the thread list).
    pub(crate) fn is_running(&self, thread: &ThreadId) -> bool {
        self.active_run(thread).is_some()
    }

    fn queue_event(&self, thread: &ThreadId, extra: Option<&RunRecord>) -> AgentEvent {
        let mut runs = self.queued(thread);
        if let Some(run) = extra {
            runs.push(QueuedRun {
                run_id: run.id.clone(),
                input: run.input.clone(),
                overrides: run.overrides.clone(),
                revision: run.revision,
            });
        }
        AgentEvent::QueueUpdated(QueueUpdatedEvent {
            thread_id: thread.clone(),
            pending: runs.len() as u32,
            runs,
        })
    }

    /// The turn's model: its own choice, else its thread's preset's, else the default.
    async fn resolve_model(
        &self,
        overrides: Option<&TurnOverrides>,
        preset: Option<&ModelPreset>,
    ) -> Result<Option<ModelChoice>, StoreError> {
        if let Some(model) = overrides.and_then(|o| o.model.clone()) {
            return Ok(Some(model));
        }
        if let Some(preset) = preset {
            return Ok(Some(preset.model.clone()));
        }
        self.setting_as(SETTING_DEFAULT_MODEL).await
    }

    /// A setting decoded as `T`; `None` when it is unset or does not decode.
    pub(super) async fn setting_as<T: serde::de::DeserializeOwned>(
        &self,
        key: &str,
    ) -> Result<Option<T>, StoreError> {
        Ok(self.store.setting(key).await?.and_then(|v| serde_json::from_value(v).ok()))
    }

    /// `turn.submit`, `turn.enqueue`, `turn.fork`: the message is durable as a queued run with
    /// the receipt; it starts at once when the thread is free.
    pub(super) async fn admit(
        &mut self,
        op: &Op,
        thread: &ThreadId,
        input: &UserInput,
        overrides: Option<&TurnOverrides>,
        sibling_of: Option<&NodeId>,
    ) -> Result<Decision, StoreError> {
        let Some(meta) = self.store.thread(thread).await? else {
            return Ok(Decision::rejected(
                op,
                ErrorCode::ThreadNotFound,
                format!("thread {thread} does not exist"),
            ));
        };
        if let Some(sibling) = sibling_of {
            let tree = ThreadTree::from_links(self.store.tree_links(thread).await?);
            if !tree.contains(sibling) {
                return Ok(Decision::rejected(
                    op,
                    ErrorCode::InvalidCommand,
                    format!("node {sibling} is not in thread {thread}"),
                ));
            }
        }
        if input.text.trim().is_empty() && input.attached_context.is_empty() {
            return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, "the message is empty"));
        }
        let preset = match &meta.preset {
            Some(id) => self.preset(id).await?,
            None => None,
        };
        let Some(model) = self.resolve_model(overrides, preset.as_ref()).await? else {
            return Ok(Decision::rejected(
                op,
                ErrorCode::NotConfigured,
                "No model is set up yet: add a connection and choose a default model in settings.",
            ));
        };
        let busy = self.runs_of(thread).next().is_some();
        if busy && self.queued(thread).len() >= RUN_QUEUE_CAPACITY {
            return Ok(Decision::rejected(
                op,
                ErrorCode::QueueFull,
                format!("{RUN_QUEUE_CAPACITY} messages are already waiting in this thread"),
            ));
        }
        // The turn, then the thread, then its preset, then the global default (reference §6.1).
        let policy = match overrides
            .and_then(|o| o.permission_policy)
            .or(meta.permission_policy)
            .or(preset.as_ref().and_then(|p| p.permission_policy))
        {
            Some(policy) => policy,
            None => self
                .setting_as::<PermissionPolicy>(SETTING_PERMISSION_POLICY)
                .await?
                .unwrap_or(PermissionPolicy::Untrusted),
        };
        let token_budget = self.setting_as::<u64>(SETTING_TURN_TOKEN_BUDGET).await?;
        let now = self.clock.now_ms();
        let run = RunRecord {
            id: super::threads::fresh_id(&*self.ids, "r", RunId::new)?,
            thread_id: thread.clone(),
            turn_id: super::threads::fresh_id(&*self.ids, "u", TurnId::new)?,
            seq: self.next_run_seq,
            state: RunState::Queued,
            resumable: false,
            input: input.clone(),
            overrides: overrides.cloned(),
            sibling_of: sibling_of.cloned(),
            revision: 1,
            model,
            policy,
            token_budget,
            preset,
            steers: Vec::new(),
            tools: Vec::new(),
            approval: None,
            interaction: None,
            counters: LoopCounters {
                budget_allowance: token_budget.unwrap_or(0),
                ..LoopCounters::default()
            },
            taint: {
                let mut ledger = crate::taint::TaintLedger::new();
                ledger.record_user(&input.text);
                ledger
            },
            stop_reason: None,
            note: None,
            created_at_ms: now,
            updated_at_ms: now,
        };
        self.next_run_seq += 1;
        let events = if busy { vec![self.queue_event(thread, Some(&run))] } else { Vec::new() };
        let answer = run_ack(op, thread, &run.id);
        let mut unit = UnitOfWork::new();
        unit.push(WriteOp::PutRun(Box::new(run)));
        Ok(Decision { unit, answer, events, then: vec![FollowUp::Schedule(thread.clone())] })
    }

    /// `turn.steer`: durable in the run before the ack; it joins the thread before the run's
    /// next model call.
    pub(super) fn steer(&mut self, op: &Op, p: &TurnSteerParams) -> Result<Decision, StoreError> {
        let Some(run) = self.active_run(&p.thread_id).cloned() else {
            return Ok(Decision::rejected(
                op,
                ErrorCode::NoActiveTurn,
                "no turn is running in this thread; send the message as a new turn",
            ));
        };
        if run.turn_id != p.expected_turn_id {
            return Ok(Decision::rejected(
                op,
                ErrorCode::TurnMismatch,
                format!("turn {} is no longer running (now {})", p.expected_turn_id, run.turn_id),
            ));
        }
        let mut run = run;
        let node_id = super::threads::fresh_id(&*self.ids, "n", NodeId::new)?;
        run.taint.record_user(&p.input.text);
        run.steers.push(SteerRecord { node_id, input: p.input.clone() });
        run.updated_at_ms = self.clock.now_ms();
        let answer = run_ack(op, &p.thread_id, &run.id);
        let mut unit = UnitOfWork::new();
        unit.push(WriteOp::PutRun(Box::new(run)));
        Ok(Decision { unit, answer, events: Vec::new(), then: Vec::new() })
    }

    /// `turn.interrupt`: stops the model stream and the running tool at once and ends the turn;
    /// a parked run is closed. Queued messages stay queued and the next one starts.
    pub(super) async fn interrupt(
        &mut self,
        op: &Op,
        thread: &ThreadId,
    ) -> Result<Decision, StoreError> {
        let target = self
            .active_run(thread)
            .or_else(|| self.runs_of(thread).find(|r| r.is_parked()))
            .cloned();
        let Some(mut run) = target else {
            return Ok(Decision::rejected(op, ErrorCode::NoActiveTurn, "nothing is running"));
        };
        let now = self.clock.now_ms();
        // What the model had said stays in the thread: a reload shows it, and the next call
        // knows it.
        let partial = self
            .live
            .get(&run.id)
            .filter(|_| run.state == RunState::StreamingModel)
            .and_then(|live| live.partial_answer(run.model.model_id.as_str()));
        let (unit, completed, steers) = self
            .ending_unit(
                &mut run,
                RunState::Interrupted,
                StopReason::Interrupted,
                None,
                now,
                partial,
            )
            .await?;
        let then = self
            .in_flight
            .iter()
            .filter(|(_, owner)| {
                matches!(owner, InFlight::Model(r) | InFlight::Tool(r, _) if r == &run.id)
            })
            .map(|(id, _)| FollowUp::Abort(*id))
            .chain([FollowUp::Schedule(thread.clone())])
            .collect();
        let mut events = Vec::new();
        if let Some(live) = self.live.get(&run.id) {
            for (item, _, _) in live.streaming() {
                events.push(complete(thread, item, None, None));
            }
        }
        for (item, node, result) in completed {
            events.push(complete(thread, item, Some(node), Some(result)));
        }
        for node in steers {
            let item = panelot_protocol::ItemId::new(format!("i-{node}"))
                .map_err(|e| StoreError::Corrupt(e.to_string()))?;
            events.push(AgentEvent::ItemStart(panelot_protocol::engine::ItemStartEvent {
                thread_id: thread.clone(),
                turn_id: run.turn_id.clone(),
                item_id: item.clone(),
                kind: panelot_protocol::engine::ItemKind::UserMessage,
                meta: Default::default(),
            }));
            events.push(complete(thread, item, Some(node), None));
        }
        events.push(AgentEvent::TurnComplete(panelot_protocol::engine::TurnCompleteEvent {
            thread_id: thread.clone(),
            turn_id: run.turn_id.clone(),
            stop_reason: StopReason::Interrupted,
        }));
        Ok(Decision { unit, answer: run_ack(op, thread, &run.id), events, then })
    }

    fn queued_run(
        &self,
        op: &Op,
        thread: &ThreadId,
        run: &RunId,
    ) -> Result<RunRecord, Box<Decision>> {
        match self.runs.get(run) {
            Some(r) if &r.thread_id == thread && r.state == RunState::Queued => Ok(r.clone()),
            _ => Err(Box::new(Decision::rejected(
                op,
                ErrorCode::InvalidCommand,
                format!("run {run} is not waiting in the queue of thread {thread}"),
            ))),
        }
    }

    /// `queue.update`.
    pub(super) fn queue_update(
        &mut self,
        op: &Op,
        p: &QueueUpdateParams,
    ) -> Result<Decision, StoreError> {
        let mut run = match self.queued_run(op, &p.thread_id, &p.run_id) {
            Ok(run) => run,
            Err(refused) => return Ok(*refused),
        };
        run.input = p.input.clone();
        run.overrides = p.overrides.clone();
        run.revision += 1;
        run.updated_at_ms = self.clock.now_ms();
        let mut queue = self.queued(&p.thread_id);
        for entry in &mut queue {
            if entry.run_id == run.id {
                entry.input = run.input.clone();
                entry.overrides = run.overrides.clone();
                entry.revision = run.revision;
            }
        }
        let event = AgentEvent::QueueUpdated(QueueUpdatedEvent {
            thread_id: p.thread_id.clone(),
            pending: queue.len() as u32,
            runs: queue,
        });
        let answer = run_ack(op, &p.thread_id, &run.id);
        let mut unit = UnitOfWork::new();
        unit.push(WriteOp::PutRun(Box::new(run)));
        Ok(Decision { unit, answer, events: vec![event], then: Vec::new() })
    }

    /// `queue.remove`.
    pub(super) fn queue_remove(
        &mut self,
        op: &Op,
        p: &QueueRemoveParams,
    ) -> Result<Decision, StoreError> {
        let run = match self.queued_run(op, &p.thread_id, &p.run_id) {
            Ok(run) => run,
            Err(refused) => return Ok(*refused),
        };
        let queue: Vec<QueuedRun> =
            self.queued(&p.thread_id).into_iter().filter(|q| q.run_id != run.id).collect();
        let event = AgentEvent::QueueUpdated(QueueUpdatedEvent {
            thread_id: p.thread_id.clone(),
            pending: queue.len() as u32,
            runs: queue,
        });
        let mut unit = UnitOfWork::new();
        unit.push(WriteOp::DeleteRun(run.id.clone()));
        Ok(Decision {
            unit,
            answer: run_ack(op, &p.thread_id, &run.id),
            events: vec![event],
            then: Vec::new(),
        })
    }

    fn parked_run(
        &self,
        op: &Op,
        thread: &ThreadId,
        run: &RunId,
        states: &[RunState],
    ) -> Result<RunRecord, Box<Decision>> {
        match self.runs.get(run) {
            Some(r) if &r.thread_id == thread && r.is_parked() && states.contains(&r.state) => {
                Ok(r.clone())
            }
            _ => Err(Box::new(Decision::rejected(
                op,
                ErrorCode::InvalidCommand,
                format!("run {run} of thread {thread} is not waiting for that decision"),
            ))),
        }
    }

    /// `run.resume`: continues an interrupted or budget-paused run with its next model call.
    pub(super) fn resume(&mut self, op: &Op, p: &RunResumeParams) -> Result<Decision, StoreError> {
        let states = [RunState::Interrupted, RunState::PausedBudget];
        let mut run = match self.parked_run(op, &p.thread_id, &p.run_id, &states) {
            Ok(run) => run,
            Err(refused) => return Ok(*refused),
        };
        if run.state == RunState::PausedBudget {
            run.counters.budget_allowance =
                run.counters.tokens_used + run.token_budget.unwrap_or(0);
        }
        Self::transition(&mut run, RunState::Preparing, self.clock.now_ms())?;
        run.resumable = false;
        run.note = None;
        let answer = run_ack(op, &p.thread_id, &run.id);
        let then = vec![FollowUp::Continue(run.id.clone())];
        let mut unit = UnitOfWork::new();
        unit.push(WriteOp::PutRun(Box::new(run)));
        Ok(Decision { unit, answer, events: Vec::new(), then })
    }

    /// `run.resolveUncertain`: retry the write (an explicit second dispatch), take it as done,
    /// or fail the run.
    pub(super) async fn resolve_uncertain(
        &mut self,
        op: &Op,
        p: &RunResolveUncertainParams,
    ) -> Result<Decision, StoreError> {
        let states = [RunState::PausedUncertain];
        let mut run = match self.parked_run(op, &p.thread_id, &p.run_id, &states) {
            Ok(run) => run,
            Err(refused) => return Ok(*refused),
        };
        let now = self.clock.now_ms();
        let answer = run_ack(op, &p.thread_id, &run.id);
        let Some(index) = run.tools.iter().position(|c| c.status != ToolCallStatus::Done) else {
            return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, "no call is uncertain"));
        };
        match p.resolution {
            UncertainResolution::Retry => {
                run.tools[index].status = ToolCallStatus::Pending;
                Self::transition(&mut run, RunState::ExecutingTool, now)?;
                run.note = None;
                let then = vec![FollowUp::Dispatch(run.id.clone())];
                let mut unit = UnitOfWork::new();
                unit.push(WriteOp::PutRun(Box::new(run)));
                Ok(Decision { unit, answer, events: Vec::new(), then })
            }
            UncertainResolution::MarkDone => {
                // The result is written by the follow-up, through the same path as any result.
                Self::transition(&mut run, RunState::ExecutingTool, now)?;
                run.note = None;
                run.tools[index].status = ToolCallStatus::Dispatched;
                let mut unit = UnitOfWork::new();
                unit.push(WriteOp::PutRun(Box::new(run.clone())));
                let id = self.new_effect(InFlight::Tool(run.id.clone(), index));
                let outcome = ToolOutcome::Success {
                    content: "The user checked and says this action was done.".into(),
                    details: None,
                };
                let then = vec![FollowUp::Outcome(id, outcome, super::Author::Engine)];
                Ok(Decision { unit, answer, events: Vec::new(), then })
            }
            UncertainResolution::Fail => {
                let (unit, completed, _) = self
                    .ending_unit(
                        &mut run,
                        RunState::Failed,
                        StopReason::Error,
                        Some("The user failed the run.".into()),
                        now,
                        None,
                    )
                    .await?;
                let mut events: Vec<AgentEvent> = completed
                    .into_iter()
                    .map(|(item, node, result)| {
                        complete(&p.thread_id, item, Some(node), Some(result))
                    })
                    .collect();
                events.push(AgentEvent::TurnComplete(
                    panelot_protocol::engine::TurnCompleteEvent {
                        thread_id: p.thread_id.clone(),
                        turn_id: run.turn_id.clone(),
                        stop_reason: StopReason::Error,
                    },
                ));
                let then = vec![FollowUp::Schedule(p.thread_id.clone())];
                Ok(Decision { unit, answer, events, then })
            }
        }
    }
}

fn complete(
    thread: &ThreadId,
    item: panelot_protocol::ItemId,
    node: Option<NodeId>,
    result: Option<panelot_protocol::engine::ToolResultView>,
) -> AgentEvent {
    AgentEvent::ItemComplete(panelot_protocol::engine::ItemCompleteEvent {
        thread_id: thread.clone(),
        item_id: item,
        node_id: node,
        result,
    })
}
