//! The end of a run, and parking it. A run that ends for good answers every call still without a
//! result (so the conversation stays valid for the provider), writes its acknowledged steers and
//! its terminal state in one unit; then `turn.complete`, and the thread's next run. A parked run
//! waits for the user to say how to go on.

use panelot_protocol::AgentEvent;
use panelot_protocol::engine::CallOutcome;
use panelot_protocol::engine::ErrorEvent;
use panelot_protocol::engine::RunRecoveryRequiredEvent;
use panelot_protocol::engine::RunState;
use panelot_protocol::engine::StopReason;
use panelot_protocol::engine::TurnCompleteEvent;
use panelot_protocol::engine::TurnErrorView;

use super::Cx;
use super::chain::Chain;
use super::chain::ThreadState;
use super::stream::LiveRun;
use super::stream::complete;
use super::stream::user_item;
use crate::engine::decision::FollowUp;
use crate::engine::decision::Step;
use crate::engine::run_table::recovery_state;
use crate::runs::transitions::move_run;
use crate::snapshot::tool_result_view;
use crate::store::NodeBody;
use crate::store::RunRecord;
use crate::store::StoreError;
use crate::store::ToolCallStatus;
use crate::store::UnitOfWork;
use crate::store::WriteOp;

/// How a run ends.
#[derive(Debug)]
pub(crate) struct Ending {
    /// Its terminal (or parked) state.
    pub(crate) state: RunState,
    /// Why.
    pub(crate) stop: StopReason,
    /// For the user.
    pub(crate) note: Option<String>,
    /// Written before anything else: the decision that ended the run, or the answer the model
    /// had streamed when it was interrupted.
    pub(crate) first: Option<NodeBody>,
    /// The failure that ended it: kept with the turn (after its calls' results) and announced
    /// by an `error` event before `turn.complete`.
    pub(crate) error: Option<TurnErrorView>,
    /// The call (by index) the user declined by stopping the turn: its step says declined, not
    /// "not run".
    pub(crate) declined: Option<usize>,
}

/// The unit that ends a run and the events that announce it (items completed, steers written,
/// `turn.complete`). `state` is `None` when the thread is gone.
pub(crate) fn ending(
    cx: Cx<'_>,
    run: &mut RunRecord,
    state: Option<ThreadState>,
    ending: Ending,
) -> Result<(UnitOfWork, Vec<AgentEvent>), StoreError> {
    let now = cx.env.now_ms();
    let mut unit = UnitOfWork::new();
    let mut events = Vec::new();
    if let Some(state) = state {
        let mut chain = Chain::at_leaf(&state, &run.turn_id, now);
        if let Some(body) = ending.first {
            chain.push_new(cx.env, body)?;
        }
        for (index, call) in run.tools.iter_mut().enumerate() {
            let (note, outcome) = match call.status {
                ToolCallStatus::Done => continue,
                ToolCallStatus::Pending if ending.declined == Some(index) => {
                    ("The user declined this call and stopped the turn.", CallOutcome::Declined)
                }
                ToolCallStatus::Dispatched => (
                    "The turn ended while this tool was running; whether it had an effect is unknown.",
                    CallOutcome::Unknown,
                ),
                ToolCallStatus::Pending => {
                    ("The turn ended before this tool ran.", CallOutcome::NotRun)
                }
            };
            let body = NodeBody::ToolResult {
                item_id: call.item_id.clone(),
                call_id: call.call_id.clone(),
                ok: false,
                content_for_model: String::new(),
                details: None,
                engine_note: Some(note.to_owned()),
                source: None,
                outcome,
                target: call.target.as_ref().map(crate::target::ResolvedTarget::view),
            };
            let result = tool_result_view(&body);
            chain.push_new(cx.env, body)?;
            call.status = ToolCallStatus::Done;
            events.push(complete(
                &run.thread_id,
                call.item_id.clone(),
                Some(call.node_id.clone()),
                result,
            ));
        }
        if let Some(error) = ending.error.clone() {
            chain.push_new(cx.env, NodeBody::TurnError { error })?;
        }
        for steer in std::mem::take(&mut run.steers) {
            let node = chain
                .push(steer.node_id, NodeBody::UserMessage { input: steer.input, steered: true });
            events.extend(user_item(run, &node));
        }
        let mut meta = state.meta;
        meta.stats.turns += 1;
        chain.write_with(meta, &mut unit);
    }
    move_run(run, ending.state, now)?;
    run.resumable = false;
    run.approval = None;
    run.interaction = None;
    run.pause = None;
    run.stop_reason = Some(ending.stop);
    run.note = ending.note;
    unit.push(WriteOp::PutRun(Box::new(run.clone())));
    events.push(AgentEvent::TurnComplete(TurnCompleteEvent {
        thread_id: run.thread_id.clone(),
        turn_id: run.turn_id.clone(),
        stop_reason: ending.stop,
    }));
    Ok((unit, events))
}

/// Ends a run for good, stopping everything that still runs for it; `live` is its stream, whose
/// open items complete, and its error is announced before `turn.complete`.
pub(crate) fn end_run(
    cx: Cx<'_>,
    mut run: RunRecord,
    state: Option<ThreadState>,
    live: &LiveRun,
    how: Ending,
) -> Result<Step, StoreError> {
    let error = how.error.clone().map(|error| error_event(&run, error));
    let (unit, ended) = ending(cx, &mut run, state, how)?;
    let mut step = Step::writing(unit);
    for (item, _, _) in live.streaming() {
        step.events.push(complete(&run.thread_id, item, None, None));
    }
    let (complete_turn, before) =
        ended.split_last().map_or((None, &[][..]), |(last, rest)| (Some(last.clone()), rest));
    step.events.extend_from_slice(before);
    if let Some(error) = error {
        step.events.push(AgentEvent::Error(error));
    }
    step.events.extend(complete_turn);
    step.then = vec![FollowUp::AbortRun(run.id.clone()), FollowUp::Schedule(run.thread_id)];
    Ok(step)
}

/// The live announcement of a turn's failure.
fn error_event(run: &RunRecord, error: TurnErrorView) -> ErrorEvent {
    ErrorEvent {
        submission_id: None,
        thread_id: Some(run.thread_id.clone()),
        code: error.code,
        message: error.message,
        retryable: error.retryable,
        error_kind: error.error_kind,
        provider_details: error.provider_details,
    }
}

/// Parks a run until the user says how to go on.
pub(crate) fn park(
    mut run: RunRecord,
    state: RunState,
    reason: &str,
    now: u64,
) -> Result<Step, StoreError> {
    move_run(&mut run, state, now)?;
    run.resumable = state == RunState::Interrupted;
    run.note = Some(reason.to_owned());
    let event = AgentEvent::RunRecoveryRequired(RunRecoveryRequiredEvent {
        thread_id: run.thread_id.clone(),
        run: recovery_state(&run),
    });
    let mut unit = UnitOfWork::new();
    unit.push(WriteOp::PutRun(Box::new(run)));
    Ok(Step { unit, events: vec![event], ..Step::default() })
}
