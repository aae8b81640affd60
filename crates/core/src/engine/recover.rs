//! What start-up does with the open runs: each gets its recovery action
//! ([`crate::runs::recovery::plan`]) turned into the steps and follow-ups that carry it out; then
//! every thread with open runs is scheduled.

use panelot_protocol::RunId;
use panelot_protocol::engine::RunState;

use super::decision::FollowUp;
use super::decision::Step;
use super::machine::end::park;
use crate::runs::recovery::RecoveryAction;
use crate::runs::recovery::plan;
use crate::store::RunRecord;
use crate::store::StoreError;
use crate::store::ToolCallStatus;
use crate::tools::ToolRegistry;

/// The recovery of the stored open runs.
#[derive(Debug, Default)]
pub(crate) struct Recovery {
    /// The runs as the engine holds them from now on (a replayed read is pending again).
    pub(crate) runs: Vec<RunRecord>,
    /// Runs parked by recovery, with the step that parks each.
    pub(crate) steps: Vec<(RunId, Result<Step, StoreError>)>,
    /// What runs next.
    pub(crate) then: Vec<FollowUp>,
}

/// The recovery of `open` (in admission order) at `now`.
pub(crate) fn recover(open: Vec<RunRecord>, tools: &ToolRegistry, now: u64) -> Recovery {
    let mut recovery = Recovery::default();
    let mut threads = Vec::new();
    for mut run in open {
        let action = plan(&run, tools);
        tracing::info!(run = %run.id, ?action, "recovering a run");
        if !threads.contains(&run.thread_id) {
            threads.push(run.thread_id.clone());
        }
        match action {
            // A watch lived in the host that stopped: it starts again.
            RecoveryAction::Keep => {
                if let Some(watch) = super::interactions::watch_effect(&run) {
                    let step = Step { effects: vec![watch], ..Step::default() };
                    recovery.steps.push((run.id.clone(), Ok(step)));
                }
            }
            RecoveryAction::Resume => recovery.then.push(FollowUp::Continue(run.id.clone())),
            RecoveryAction::Dispatch(_) => recovery.then.push(FollowUp::Dispatch(run.id.clone())),
            RecoveryAction::Replay(index) => {
                // A read runs again, where it is resolved to act now.
                run.tools[index].status = ToolCallStatus::Pending;
                run.tools[index].target = None;
                recovery.then.push(FollowUp::Dispatch(run.id.clone()));
            }
            RecoveryAction::Interrupt => {
                let reason = "The answer was cut off when the browser stopped the engine.";
                let step = park(run.clone(), RunState::Interrupted, reason, now);
                recovery.steps.push((run.id.clone(), step));
            }
            RecoveryAction::ParkUncertain(_) => {
                if crate::runs::recovery::asked_by_server(&run) {
                    // The server's question went with the call; its card goes too.
                    run.interaction = None;
                    run.state = RunState::ExecutingTool;
                }
                let reason = "The engine stopped while this action was running: it may or may not have happened.";
                let step = park(run.clone(), RunState::PausedUncertain, reason, now);
                recovery.steps.push((run.id.clone(), step));
            }
        }
        recovery.runs.push(run);
    }
    recovery.then.extend(threads.into_iter().map(FollowUp::Schedule));
    recovery
}
