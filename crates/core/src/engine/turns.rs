//! Turn commands: submit, enqueue and fork (admission of a run), steer, interrupt, queue edits,
//! resume and the resolution of an uncertain write. Each decision is one unit of work with the
//! command's receipt; the loop's work follows once it is durable.

use panelot_protocol::AgentEvent;
use panelot_protocol::NodeId;
use panelot_protocol::Op;
use panelot_protocol::RunId;
use panelot_protocol::ThreadId;
use panelot_protocol::TurnId;
use panelot_protocol::engine::ErrorCode;
use panelot_protocol::engine::ModelChoice;
use panelot_protocol::engine::ModelPreset;
use panelot_protocol::engine::QueueRemoveParams;
use panelot_protocol::engine::QueueUpdateParams;
use panelot_protocol::engine::QueueUpdatedEvent;
use panelot_protocol::engine::QueuedRun;
use panelot_protocol::engine::RunResolveUncertainParams;
use panelot_protocol::engine::RunResumeParams;
use panelot_protocol::engine::RunState;
use panelot_protocol::engine::StopReason;
use panelot_protocol::engine::TurnOverrides;
use panelot_protocol::engine::TurnSteerParams;
use panelot_protocol::engine::UncertainResolution;
use panelot_protocol::engine::UserInput;

use super::decision::Decision;
use super::decision::FollowUp;
use super::decision::ResultBody;
use super::decision::Step;
use super::decision::run_ack;
use super::machine::end;
use super::machine::stream::complete;
use super::presets;
use super::reads::Reads;
use super::run_table::queued_run;
use crate::runs::transitions::move_run;
use crate::settings;
use crate::store::LoopCounters;
use crate::store::RunRecord;
use crate::store::SteerRecord;
use crate::store::Store;
use crate::store::StoreError;
use crate::store::ToolCallStatus;
use crate::store::UnitOfWork;
use crate::store::WriteOp;
use crate::taint::TaintLedger;
use crate::target::RunRoute;
use crate::tree::ThreadTree;

/// Queued runs a thread may hold.
pub const RUN_QUEUE_CAPACITY: usize = 8;

/// A new message, as `turn.submit`, `turn.enqueue` and `turn.fork` carry it.
pub(crate) struct Message<'a> {
    pub(crate) thread: &'a ThreadId,
    pub(crate) input: &'a UserInput,
    pub(crate) overrides: Option<&'a TurnOverrides>,
    /// For `turn.fork`: the node the message becomes a sibling of.
    pub(crate) sibling_of: Option<&'a NodeId>,
}

fn queue_event(thread: &ThreadId, runs: Vec<QueuedRun>) -> AgentEvent {
    AgentEvent::QueueUpdated(QueueUpdatedEvent {
        thread_id: thread.clone(),
        pending: runs.len() as u32,
        runs,
    })
}

/// The turn's model: its own choice, else its thread's preset's, else the default.
async fn resolve_model(
    store: &impl Store,
    overrides: Option<&TurnOverrides>,
    preset: Option<&ModelPreset>,
) -> Result<Option<ModelChoice>, StoreError> {
    if let Some(model) = overrides.and_then(|o| o.model.clone()) {
        return Ok(Some(model));
    }
    if let Some(preset) = preset {
        return Ok(Some(preset.model.clone()));
    }
    settings::DEFAULT_MODEL.read(store).await
}

/// `turn.submit`, `turn.enqueue`, `turn.fork`: the message is durable as a queued run with the
/// receipt; it starts at once when the thread is free. `seq` is its admission number.
pub(crate) async fn admit<S: Store>(
    reads: &Reads<'_, S>,
    op: &Op,
    message: Message<'_>,
    seq: u64,
) -> Result<Decision, StoreError> {
    let Message { thread, input, overrides, sibling_of } = message;
    let Some(meta) = reads.store.thread(thread).await? else {
        return Ok(Decision::rejected(
            op,
            ErrorCode::ThreadNotFound,
            format!("thread {thread} does not exist"),
        ));
    };
    if let Some(sibling) = sibling_of {
        let tree = ThreadTree::from_links(reads.store.tree_links(thread).await?);
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
        Some(id) => presets::preset(reads.store, id).await?,
        None => None,
    };
    let Some(model) = resolve_model(reads.store, overrides, preset.as_ref()).await? else {
        return Ok(Decision::rejected(
            op,
            ErrorCode::NotConfigured,
            "No model is set up yet: add a connection and choose a default model in settings.",
        ));
    };
    let queued = reads.runs.queued(thread);
    let busy = reads.runs.of_thread(thread).next().is_some();
    if busy && queued.len() >= RUN_QUEUE_CAPACITY {
        return Ok(Decision::rejected(
            op,
            ErrorCode::QueueFull,
            format!("{RUN_QUEUE_CAPACITY} messages are already waiting in this thread"),
        ));
    }
    // The turn, then the thread, then its preset, then the global default.
    let policy = match overrides
        .and_then(|o| o.permission_policy)
        .or(meta.permission_policy)
        .or(preset.as_ref().and_then(|p| p.permission_policy))
    {
        Some(policy) => policy,
        None => settings::policy(reads.store).await?,
    };
    let token_budget = settings::token_budget(reads.store).await?;
    let now = reads.env.now_ms();
    let run = RunRecord {
        id: reads.env.id("r", RunId::new)?,
        thread_id: thread.clone(),
        turn_id: reads.env.id("u", TurnId::new)?,
        seq,
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
        // Rebuilt from the thread's path when the run starts.
        taint: TaintLedger::new(),
        route: RunRoute::default(),
        stop_reason: None,
        note: None,
        pause: None,
        created_at_ms: now,
        updated_at_ms: now,
    };
    let events = if busy {
        let mut runs = queued;
        runs.push(queued_run(&run));
        vec![queue_event(thread, runs)]
    } else {
        Vec::new()
    };
    let answer = run_ack(op, thread, &run.id);
    let (mut unit, mut closed) = close_parked(reads, thread).await?;
    closed.extend(events);
    unit.push(WriteOp::PutRun(Box::new(run)));
    Ok(Decision {
        unit,
        events: closed,
        then: vec![FollowUp::Schedule(thread.clone())],
        ..Decision::answer(answer)
    })
}

/// The end of the thread's parked turn that a new message moves on from (interrupted, or over
/// its budget), written in the message's own unit, so a restart never finds the message without
/// the end it decided. A run at work, or a write of unknown outcome, keeps the turn as it is.
/// Only a new message does this: one queued before the turn parked waits behind it, as it
/// waited behind the turn at work, until the user continues or ends it (a restart that cuts a
/// turn never hands the thread to the messages queued behind it).
async fn close_parked<S: Store>(
    reads: &Reads<'_, S>,
    thread: &ThreadId,
) -> Result<(UnitOfWork, Vec<AgentEvent>), StoreError> {
    let nothing = (UnitOfWork::new(), Vec::new());
    if reads.runs.of_thread(thread).any(|r| r.is_active() || r.state == RunState::PausedUncertain) {
        return Ok(nothing);
    }
    // A thread has one parked run at most: only a run at work parks, and one works at a time.
    let Some(mut parked) = reads.runs.of_thread(thread).find(|r| r.is_parked()).cloned() else {
        return Ok(nothing);
    };
    let (state, stop) = match parked.state {
        RunState::PausedBudget => (RunState::Completed, StopReason::BudgetPause),
        _ => (RunState::Interrupted, StopReason::Interrupted),
    };
    let ending = end::Ending { state, stop, note: None, first: None, error: None, declined: None };
    let thread_state = reads.thread_state(thread).await?;
    // Closed like any ending run: its acknowledged steers join the thread.
    end::ending(reads.cx(), &mut parked, thread_state, ending)
}

/// `turn.steer`: durable in the run before the ack; it joins the thread before the run's next
/// model call.
pub(crate) fn steer<S: Store>(
    reads: &Reads<'_, S>,
    op: &Op,
    p: &TurnSteerParams,
) -> Result<Decision, StoreError> {
    let Some(run) = reads.runs.active(&p.thread_id).cloned() else {
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
    let node_id = reads.env.id("n", NodeId::new)?;
    run.taint.record_user(&p.input.text);
    run.steers.push(SteerRecord { node_id, input: p.input.clone() });
    run.updated_at_ms = reads.env.now_ms();
    let answer = run_ack(op, &p.thread_id, &run.id);
    let mut unit = UnitOfWork::new();
    unit.push(WriteOp::PutRun(Box::new(run)));
    Ok(Decision { unit, ..Decision::answer(answer) })
}

/// `turn.interrupt`: stops the model stream and the running tool at once and ends the turn; a
/// parked run is closed. Queued messages stay queued and the next one starts.
pub(crate) async fn interrupt<S: Store>(
    reads: &Reads<'_, S>,
    op: &Op,
    thread: &ThreadId,
) -> Result<Decision, StoreError> {
    let target = reads
        .runs
        .active(thread)
        .or_else(|| reads.runs.of_thread(thread).find(|r| r.is_parked()))
        .cloned();
    let Some(run) = target else {
        return Ok(Decision::rejected(op, ErrorCode::NoActiveTurn, "nothing is running"));
    };
    let answer = run_ack(op, thread, &run.id);
    let Step { unit, events, then, .. } = interrupted(reads, run).await?;
    Ok(Decision { unit, events, then, ..Decision::answer(answer) })
}

/// Ends `run` as the user's stop does (the panel's, or the page indicator's): what the model
/// had said stays, open items complete, everything still running for it stops, and the
/// thread's next queued run may start.
pub(crate) async fn interrupted<S: Store>(
    reads: &Reads<'_, S>,
    mut run: RunRecord,
) -> Result<Step, StoreError> {
    let thread = run.thread_id.clone();
    // What the model had said stays in the thread: a reload shows it, and the next call knows it.
    let live = reads.runs.live(&run.id);
    let partial = live
        .filter(|_| run.state == RunState::StreamingModel)
        .and_then(|live| live.partial_answer(run.model.model_id.as_str()));
    let mut events = Vec::new();
    if let Some(live) = live {
        for (item, _, _) in live.streaming() {
            events.push(complete(&thread, item, None, None));
        }
    }
    let state = reads.thread_state(&thread).await?;
    let ending = end::Ending {
        state: RunState::Interrupted,
        stop: StopReason::Interrupted,
        note: None,
        first: partial,
        error: None,
        declined: None,
    };
    let (unit, ended) = end::ending(reads.cx(), &mut run, state, ending)?;
    events.extend(ended);
    let mut step = Step::writing(unit);
    step.events = events;
    step.then = vec![FollowUp::AbortRun(run.id.clone()), FollowUp::Schedule(thread)];
    Ok(step)
}

fn queued_run_of<S: Store>(
    reads: &Reads<'_, S>,
    op: &Op,
    thread: &ThreadId,
    run: &RunId,
) -> Result<RunRecord, Box<Decision>> {
    match reads.runs.get(run) {
        Some(r) if &r.thread_id == thread && r.state == RunState::Queued => Ok(r.clone()),
        _ => Err(Box::new(Decision::rejected(
            op,
            ErrorCode::InvalidCommand,
            format!("run {run} is not waiting in the queue of thread {thread}"),
        ))),
    }
}

/// `queue.update`.
pub(crate) fn queue_update<S: Store>(
    reads: &Reads<'_, S>,
    op: &Op,
    p: &QueueUpdateParams,
) -> Result<Decision, StoreError> {
    let mut run = match queued_run_of(reads, op, &p.thread_id, &p.run_id) {
        Ok(run) => run,
        Err(refused) => return Ok(*refused),
    };
    run.input = p.input.clone();
    run.overrides = p.overrides.clone();
    run.revision += 1;
    run.updated_at_ms = reads.env.now_ms();
    let queue = reads
        .runs
        .queued(&p.thread_id)
        .into_iter()
        .map(|entry| if entry.run_id == run.id { queued_run(&run) } else { entry })
        .collect();
    let answer = run_ack(op, &p.thread_id, &run.id);
    let mut unit = UnitOfWork::new();
    unit.push(WriteOp::PutRun(Box::new(run)));
    Ok(Decision {
        unit,
        events: vec![queue_event(&p.thread_id, queue)],
        ..Decision::answer(answer)
    })
}

/// `queue.remove`.
pub(crate) fn queue_remove<S: Store>(
    reads: &Reads<'_, S>,
    op: &Op,
    p: &QueueRemoveParams,
) -> Result<Decision, StoreError> {
    let run = match queued_run_of(reads, op, &p.thread_id, &p.run_id) {
        Ok(run) => run,
        Err(refused) => return Ok(*refused),
    };
    let queue: Vec<QueuedRun> =
        reads.runs.queued(&p.thread_id).into_iter().filter(|q| q.run_id != run.id).collect();
    let mut unit = UnitOfWork::new();
    unit.push(WriteOp::DeleteRun(run.id.clone()));
    Ok(Decision {
        unit,
        events: vec![queue_event(&p.thread_id, queue)],
        ..Decision::answer(run_ack(op, &p.thread_id, &run.id))
    })
}

fn parked_run<S: Store>(
    reads: &Reads<'_, S>,
    op: &Op,
    thread: &ThreadId,
    run: &RunId,
    states: &[RunState],
) -> Result<RunRecord, Box<Decision>> {
    match reads.runs.get(run) {
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

/// `run.resume`: continues an interrupted run, or one paused by its budget or by the user, with
/// its next model call.
pub(crate) fn resume<S: Store>(
    reads: &Reads<'_, S>,
    op: &Op,
    p: &RunResumeParams,
) -> Result<Decision, StoreError> {
    let states = [RunState::Interrupted, RunState::PausedBudget, RunState::PausedByUser];
    let mut run = match parked_run(reads, op, &p.thread_id, &p.run_id, &states) {
        Ok(run) => run,
        Err(refused) => return Ok(*refused),
    };
    if run.state == RunState::PausedBudget {
        run.counters.budget_allowance = run.counters.tokens_used + run.token_budget.unwrap_or(0);
    }
    move_run(&mut run, RunState::Preparing, reads.env.now_ms())?;
    run.resumable = false;
    run.note = None;
    let answer = run_ack(op, &p.thread_id, &run.id);
    let then = vec![FollowUp::Continue(run.id.clone())];
    let mut unit = UnitOfWork::new();
    unit.push(WriteOp::PutRun(Box::new(run)));
    Ok(Decision { unit, then, ..Decision::answer(answer) })
}

/// `run.resolveUncertain`: retry the write (an explicit second dispatch, judged again against
/// where it would act now), take it as done, or fail the run.
pub(crate) async fn resolve_uncertain<S: Store>(
    reads: &Reads<'_, S>,
    op: &Op,
    p: &RunResolveUncertainParams,
) -> Result<Decision, StoreError> {
    let states = [RunState::PausedUncertain];
    let mut run = match parked_run(reads, op, &p.thread_id, &p.run_id, &states) {
        Ok(run) => run,
        Err(refused) => return Ok(*refused),
    };
    let now = reads.env.now_ms();
    let answer = run_ack(op, &p.thread_id, &run.id);
    let Some(index) = run.tools.iter().position(|c| c.status != ToolCallStatus::Done) else {
        return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, "no call is uncertain"));
    };
    match p.resolution {
        UncertainResolution::Retry => {
            let call = &mut run.tools[index];
            call.status = ToolCallStatus::Pending;
            call.target = None;
            move_run(&mut run, RunState::ExecutingTool, now)?;
            run.note = None;
            let then = vec![FollowUp::Dispatch(run.id.clone())];
            let mut unit = UnitOfWork::new();
            unit.push(WriteOp::PutRun(Box::new(run)));
            Ok(Decision { unit, then, ..Decision::answer(answer) })
        }
        UncertainResolution::MarkDone => {
            // The result is written by the follow-up, through the same path as any result.
            move_run(&mut run, RunState::ExecutingTool, now)?;
            run.note = None;
            let then = vec![FollowUp::WriteResult {
                run: run.id.clone(),
                index,
                body: ResultBody::MarkedDone,
            }];
            let mut unit = UnitOfWork::new();
            unit.push(WriteOp::PutRun(Box::new(run)));
            Ok(Decision { unit, then, ..Decision::answer(answer) })
        }
        UncertainResolution::Fail => {
            let state = reads.thread_state(&p.thread_id).await?;
            let ending = end::Ending {
                state: RunState::Failed,
                stop: StopReason::Error,
                note: Some("The user failed the run.".into()),
                first: None,
                error: None,
                declined: None,
            };
            let (unit, events) = end::ending(reads.cx(), &mut run, state, ending)?;
            let then = vec![FollowUp::Schedule(p.thread_id.clone())];
            Ok(Decision { unit, events, then, ..Decision::answer(answer) })
        }
    }
}
