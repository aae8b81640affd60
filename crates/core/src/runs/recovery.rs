//! What a restart does with each open run: a pure function of the stored record and the tool
//! registry, so it can be tested exhaustively and replayed by the simulation.

use panelot_protocol::engine::RunState;

use crate::store::RunRecord;
use crate::store::ToolCallStatus;
use crate::tools::RecoveryClass;
use crate::tools::ToolRegistry;

/// The action for one run after a restart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecoveryAction {
    /// Nothing to do now: queued (the scheduler starts it), parked (the user decides), or
    /// waiting for an approval or interaction (restored as it was).
    Keep,
    /// No side effect was under way: make the next model call.
    Resume,
    /// A model stream was cut: park the run as `interrupted`, resumable.
    Interrupt,
    /// The call at this index was never dispatched: dispatch it.
    Dispatch(usize),
    /// The call at this index was dispatched and is safe to run again: replay it.
    Replay(usize),
    /// The call at this index may or may not have run and must not run again unasked: park the
    /// run as `paused_uncertain`.
    ParkUncertain(usize),
}

/// The recovery action for `run`.
pub fn plan(run: &RunRecord, tools: &ToolRegistry) -> RecoveryAction {
    match run.state {
        // An MCP server's question lived in the call the restart cut: the call is what counts,
        // unless the call can be read on from where it stood once the user answers.
        RunState::WaitingInteraction if asked_by_server(run) && !resumable(run) => {
            tool_step(run, tools)
        }
        RunState::Queued
        | RunState::WaitingApproval
        | RunState::WaitingInteraction
        | RunState::PausedBudget
        | RunState::PausedUncertain
        | RunState::PausedByUser
        | RunState::Interrupted
        | RunState::Completed
        | RunState::Failed => RecoveryAction::Keep,
        RunState::Preparing => RecoveryAction::Resume,
        RunState::StreamingModel => RecoveryAction::Interrupt,
        RunState::ExecutingTool => tool_step(run, tools),
    }
}

/// Whether the run waits on a question an MCP server asked during one of its calls.
pub fn asked_by_server(run: &RunRecord) -> bool {
    run.interaction.as_ref().is_some_and(|i| {
        matches!(
            i.request,
            panelot_protocol::engine::InteractionRequestPayload::McpElicitation { .. }
        )
    })
}

/// Whether the server's question came with where its call stood, so the call goes on after
/// the user answers it.
fn resumable(run: &RunRecord) -> bool {
    run.interaction.as_ref().is_some_and(|i| i.mcp_resume.is_some())
}

fn tool_step(run: &RunRecord, tools: &ToolRegistry) -> RecoveryAction {
    let Some((index, call)) =
        run.tools.iter().enumerate().find(|(_, c)| c.status != ToolCallStatus::Done)
    else {
        return RecoveryAction::Resume;
    };
    match call.status {
        ToolCallStatus::Pending => RecoveryAction::Dispatch(index),
        ToolCallStatus::Dispatched => {
            // An unknown tool (the registry changed) is treated as the most dangerous kind.
            match tools.get(&call.tool_name).map(|t| t.recovery) {
                Some(RecoveryClass::RetrySafe) => RecoveryAction::Replay(index),
                Some(RecoveryClass::InspectFirst | RecoveryClass::NeverRetry) | None => {
                    RecoveryAction::ParkUncertain(index)
                }
            }
        }
        ToolCallStatus::Done => RecoveryAction::Resume,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use panelot_protocol::ItemId;
    use panelot_protocol::engine::ToolLevel;
    use serde_json::json;

    use super::*;
    use crate::store::ToolCallRecord;
    use crate::store::conformance::node_id;
    use crate::store::conformance::run;
    use crate::tools::ToolDescriptor;
    use crate::tools::ToolEffect;

    fn registry() -> ToolRegistry {
        let mut tools = ToolRegistry::new();
        for (name, effect) in [("read", ToolEffect::Read), ("click", ToolEffect::Write)] {
            tools
                .register(ToolDescriptor::new(name, "d", json!({}), ToolLevel::L1, effect))
                .unwrap();
        }
        tools
    }

    fn executing(calls: &[(&str, ToolCallStatus)]) -> RunRecord {
        let mut record = run("r", "t", 1, RunState::ExecutingTool);
        record.tools = calls
            .iter()
            .enumerate()
            .map(|(i, (name, status))| ToolCallRecord {
                node_id: node_id(i as u64),
                item_id: ItemId::new(format!("i{i}")).unwrap(),
                call_id: format!("c{i}"),
                tool_name: (*name).to_owned(),
                params: json!({}),
                status: *status,
                dispatches: u32::from(*status != ToolCallStatus::Pending),
                approved: false,
                host_permission_asked: false,
                escalated_from: None,
                target: None,
            })
            .collect();
        record
    }

    #[test]
    fn states_map_to_their_actions() {
        let tools = registry();
        for (state, action) in [
            (RunState::Queued, RecoveryAction::Keep),
            (RunState::Preparing, RecoveryAction::Resume),
            (RunState::StreamingModel, RecoveryAction::Interrupt),
            (RunState::WaitingApproval, RecoveryAction::Keep),
            (RunState::WaitingInteraction, RecoveryAction::Keep),
            (RunState::PausedBudget, RecoveryAction::Keep),
            (RunState::PausedUncertain, RecoveryAction::Keep),
            (RunState::PausedByUser, RecoveryAction::Keep),
            (RunState::Interrupted, RecoveryAction::Keep),
        ] {
            assert_eq!(plan(&run("r", "t", 1, state), &tools), action, "{state:?}");
        }
    }

    #[test]
    fn a_dispatched_read_is_replayed_and_a_dispatched_write_parks() {
        use ToolCallStatus::*;
        let tools = registry();
        assert_eq!(
            plan(&executing(&[("read", Done), ("read", Dispatched)]), &tools),
            RecoveryAction::Replay(1)
        );
        assert_eq!(
            plan(&executing(&[("read", Done), ("click", Dispatched)]), &tools),
            RecoveryAction::ParkUncertain(1)
        );
        assert_eq!(
            plan(&executing(&[("gone", Dispatched)]), &tools),
            RecoveryAction::ParkUncertain(0)
        );
        assert_eq!(
            plan(&executing(&[("click", Done), ("click", Pending)]), &tools),
            RecoveryAction::Dispatch(1)
        );
        assert_eq!(plan(&executing(&[("click", Done)]), &tools), RecoveryAction::Resume);
    }

    #[test]
    fn a_server_s_question_is_kept_only_when_its_call_can_be_read_on() {
        let tools = registry();
        let mut asked = executing(&[("click", ToolCallStatus::Dispatched)]);
        asked.state = RunState::WaitingInteraction;
        let request = panelot_protocol::engine::InteractionRequestPayload::McpElicitation {
            server_id: "notes".into(),
            message: "Which list?".into(),
            schema: json!({"type": "object"}),
        };
        asked.interaction = Some(crate::store::InteractionRecord {
            id: panelot_protocol::InteractionId::new("q1").unwrap(),
            tool_index: 0,
            request,
            mcp_resume: None,
        });
        assert_eq!(plan(&asked, &tools), RecoveryAction::ParkUncertain(0));
        if let Some(interaction) = asked.interaction.as_mut() {
            interaction.mcp_resume = Some("{}".into());
        }
        assert_eq!(plan(&asked, &tools), RecoveryAction::Keep);
    }
}
