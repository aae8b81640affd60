//! The run state machine as one explicit table: every change of a run's state is checked against
//! it, so a bug shows up as a refused transition instead of a run in a state nothing expects.

use panelot_protocol::engine::RunState;

use crate::store::RunRecord;
use crate::store::StoreError;

/// States a run may move to from `from`.
pub fn next_states(from: RunState) -> &'static [RunState] {
    use RunState::*;
    match from {
        Queued => &[Preparing],
        // ExecutingTool: pages attached to the message are read before the first model call.
        Preparing => &[
            StreamingModel,
            ExecutingTool,
            Completed,
            PausedBudget,
            PausedByUser,
            Interrupted,
            Failed,
        ],
        StreamingModel => &[Preparing, ExecutingTool, Completed, Interrupted, Failed],
        ExecutingTool => &[
            ExecutingTool,
            WaitingApproval,
            WaitingInteraction,
            Preparing,
            PausedBudget,
            PausedUncertain,
            Interrupted,
            Failed,
        ],
        WaitingApproval | WaitingInteraction => &[ExecutingTool, Preparing, Interrupted, Failed],
        PausedBudget => &[Preparing, Completed, Interrupted],
        PausedUncertain => &[ExecutingTool, Interrupted, Failed],
        // Paused before a model call; a new message closes it as interrupted.
        PausedByUser => &[Preparing, Interrupted],
        // A resumable interruption (a restart cut the stream) continues or is closed; a final
        // one has no way out.
        Interrupted => &[Preparing, Interrupted],
        Completed | Failed => &[],
    }
}

/// Whether a run may move from `from` to `to`.
pub fn allowed(from: RunState, to: RunState) -> bool {
    next_states(from).contains(&to)
}

/// Moves a run to `to` at `now_ms`, refusing a transition outside the table.
pub fn move_run(run: &mut RunRecord, to: RunState, now_ms: u64) -> Result<(), StoreError> {
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

#[cfg(test)]
mod tests {
    use panelot_protocol::engine::RunState;

    use super::*;

    const ALL: [RunState; 12] = [
        RunState::Queued,
        RunState::Preparing,
        RunState::StreamingModel,
        RunState::WaitingApproval,
        RunState::WaitingInteraction,
        RunState::ExecutingTool,
        RunState::PausedBudget,
        RunState::PausedUncertain,
        RunState::PausedByUser,
        RunState::Interrupted,
        RunState::Failed,
        RunState::Completed,
    ];

    #[test]
    fn terminal_states_have_no_way_out_and_every_other_state_can_end() {
        for state in ALL {
            match state {
                RunState::Completed | RunState::Failed => assert!(next_states(state).is_empty()),
                RunState::Queued => assert!(allowed(state, RunState::Preparing)),
                _ => assert!(
                    allowed(state, RunState::Interrupted),
                    "{state:?} must be interruptible"
                ),
            }
        }
    }

    #[test]
    fn every_state_is_reachable_from_queued() {
        let mut seen = vec![RunState::Queued];
        let mut frontier = vec![RunState::Queued];
        while let Some(state) = frontier.pop() {
            for next in next_states(state) {
                if !seen.contains(next) {
                    seen.push(*next);
                    frontier.push(*next);
                }
            }
        }
        for state in ALL {
            assert!(seen.contains(&state), "{state:?} is unreachable");
        }
    }

    #[test]
    fn a_write_with_unknown_outcome_cannot_silently_complete() {
        assert!(!allowed(RunState::PausedUncertain, RunState::Completed));
        assert!(!allowed(RunState::PausedUncertain, RunState::Preparing));
        assert!(!allowed(RunState::Queued, RunState::ExecutingTool));
    }
}
