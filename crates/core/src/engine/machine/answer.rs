//! A model answer is written with its tool calls, in one unit with the run's next state: run the
//! calls, make another call for steers that arrived meanwhile, or complete the turn.

use panelot_protocol::AgentEvent;
use panelot_protocol::ItemId;
use panelot_protocol::engine::ItemDelta;
use panelot_protocol::engine::ItemDeltaEvent;
use panelot_protocol::engine::ItemKind;
use panelot_protocol::engine::ItemMeta;
use panelot_protocol::engine::ProviderStopReason;
use panelot_protocol::engine::RunState;
use panelot_protocol::engine::StopReason;
use panelot_protocol::engine::TokenUsageEvent;
use panelot_protocol::engine::ToolLevel;
use panelot_protocol::engine::TurnCompleteEvent;

use super::Cx;
use super::chain::Chain;
use super::chain::ThreadState;
use super::chain::item_of;
use super::chain::new_item_id;
use super::stream::LiveRun;
use super::stream::complete;
use super::stream::start;
use super::stream::tool_meta;
use crate::engine::decision::FollowUp;
use crate::engine::decision::Step;
use crate::model::ModelResponse;
use crate::model::Withheld;
use crate::runs::transitions::move_run;
use crate::store::NodeBody;
use crate::store::RunRecord;
use crate::store::StoreError;
use crate::store::ToolCallRecord;
use crate::store::ToolCallStatus;
use crate::store::WriteOp;

/// What a run does after an answer.
enum Next {
    /// Run the answer's tool calls.
    RunTools,
    /// Call the model again with the steers that arrived meanwhile.
    TakeSteers,
    /// The turn is complete.
    Complete,
}

/// The turn's stop reason for the provider's.
pub(crate) fn stop_of(reason: ProviderStopReason) -> StopReason {
    match reason {
        ProviderStopReason::End | ProviderStopReason::ToolUse => StopReason::End,
        ProviderStopReason::MaxTokens => StopReason::MaxTokens,
        ProviderStopReason::ContentFilter => StopReason::ContentFilter,
        ProviderStopReason::Interrupted => StopReason::Interrupted,
    }
}

/// What the user is told when the model could not be given everything the run holds.
fn withheld_notice(withheld: Withheld) -> String {
    let mut said = Vec::new();
    if withheld.tools {
        said.push("This model does not use tools, so it answered without acting in the browser. Choose a model that uses tools to let the agent read and act on pages.".to_owned());
    }
    match withheld.images {
        0 => {}
        1 => said.push(
            "This model does not read images: the attached image was not sent to it.".to_owned(),
        ),
        n => said.push(format!(
            "This model does not read images: {n} attached images were not sent to it."
        )),
    }
    said.join(" ")
}

/// Writes the answer `response` of the run's model call; `live` is what its stream showed.
pub(crate) fn answered(
    cx: Cx<'_>,
    mut run: RunRecord,
    state: ThreadState,
    live: LiveRun,
    response: ModelResponse,
) -> Result<Step, StoreError> {
    let mut meta = state.meta.clone();
    let now = cx.env.now_ms();
    let mut chain = Chain::at_leaf(&state, &run.turn_id, now);
    let ModelResponse { turn, stop_reason, usage, cost_usd, withheld } = response;
    let answer = chain.push_new(
        cx.env,
        NodeBody::AssistantMessage {
            text: turn.text.clone(),
            reasoning: turn.reasoning.clone().filter(|r| !r.is_empty()),
            provider_state: turn.provider_state.clone(),
            model: run.model.model_id.to_string(),
            stop_reason,
            usage,
            cost_usd,
        },
    )?;
    // Said once a run, after its first answer: the model and so what it cannot take stay the
    // same for the whole run.
    let notice = match withheld.any() && run.counters.model_calls == 1 {
        true => {
            let text = withheld_notice(withheld);
            Some((chain.push_new(cx.env, NodeBody::SystemNotice { text: text.clone() })?, text))
        }
        false => None,
    };
    run.counters.blind = withheld.screenshot;
    // Calls made while tools were off or withheld (the model ignored that) are not run.
    let calls = match run.counters.tools_disabled || withheld.tools {
        true => Vec::new(),
        false => turn.tool_calls.clone(),
    };
    run.tools.clear();
    let mut unstarted_calls = Vec::new();
    for (index, call) in calls.iter().enumerate() {
        let params = serde_json::from_str::<serde_json::Value>(&call.arguments)
            .ok()
            .filter(serde_json::Value::is_object)
            .unwrap_or(serde_json::Value::Null);
        let streamed = live.call_item(index as u32).cloned();
        let item = streamed.clone().unwrap_or_else(|| new_item_id(cx.env));
        let tool = cx.tools.get(&call.name);
        let node = chain.push_new(
            cx.env,
            NodeBody::ToolCall {
                item_id: item.clone(),
                call_id: call.id.clone(),
                tool_name: call.name.clone(),
                label: tool.map_or_else(|| call.name.clone(), |t| t.label.clone()),
                params: params.clone(),
                level: tool.map_or(ToolLevel::Builtin, |t| t.level),
            },
        )?;
        if streamed.is_none() {
            unstarted_calls.push((item.clone(), call.name.clone(), params.clone()));
        }
        run.tools.push(ToolCallRecord {
            node_id: node,
            item_id: item,
            call_id: call.id.clone(),
            tool_name: call.name.clone(),
            params,
            status: ToolCallStatus::Pending,
            dispatches: 0,
            approved: false,
            host_permission_asked: false,
            escalated_from: None,
            target: None,
        });
    }
    run.counters.tokens_used += usage.input + usage.output;
    meta.stats.total_tokens += usage.input + usage.output;
    meta.stats.cost_usd += cost_usd.unwrap_or(0.0);
    let stop = stop_of(stop_reason);
    let next = if !run.tools.is_empty() {
        Next::RunTools
    } else if !run.steers.is_empty() {
        Next::TakeSteers
    } else {
        meta.stats.turns += 1;
        run.stop_reason = Some(stop);
        Next::Complete
    };
    let state = match next {
        Next::RunTools => RunState::ExecutingTool,
        Next::TakeSteers => RunState::Preparing,
        Next::Complete => RunState::Completed,
    };
    move_run(&mut run, state, now)?;

    let mut step = Step::default();
    let thread = run.thread_id.clone();
    let reasoning = turn.reasoning.filter(|r| !r.is_empty());
    match (live.reasoning, reasoning) {
        (Some((item, _)), _) => {
            step.events.push(complete(&thread, item, Some(answer.clone()), None));
        }
        (None, Some(_)) => {
            let item = item_of(&answer);
            let item = ItemId::new(format!("{item}-r")).unwrap_or(item);
            step.events.push(start(&run, item.clone(), ItemKind::Reasoning, ItemMeta::default()));
            step.events.push(complete(&thread, item, Some(answer.clone()), None));
        }
        (None, None) => {}
    }
    let text_item = match live.text {
        Some((item, _)) => item,
        None => {
            let item = item_of(&answer);
            step.events.push(start(
                &run,
                item.clone(),
                ItemKind::AssistantMessage,
                ItemMeta::default(),
            ));
            item
        }
    };
    step.events.push(complete(&thread, text_item, Some(answer), None));
    if let Some((node, text)) = notice {
        let item = item_of(&node);
        step.events.push(start(&run, item.clone(), ItemKind::SystemNotice, ItemMeta::default()));
        step.events.push(AgentEvent::ItemDelta(ItemDeltaEvent {
            thread_id: thread.clone(),
            item_id: item.clone(),
            delta: ItemDelta { text: Some(text), ..ItemDelta::default() },
        }));
        step.events.push(complete(&thread, item, Some(node), None));
    }
    for (item, name, params) in unstarted_calls {
        let meta = tool_meta(cx.tools, &name, Some(&params));
        step.events.push(start(&run, item, ItemKind::ToolCall, meta));
    }
    // Each call's step names what it acts on from its parameters, also for a call whose item
    // started while its arguments still streamed.
    for call in run.tools.iter().filter(|call| !call.params.is_null()) {
        step.events.push(AgentEvent::ItemDelta(ItemDeltaEvent {
            thread_id: thread.clone(),
            item_id: call.item_id.clone(),
            delta: ItemDelta { tool_params: Some(call.params.clone()), ..ItemDelta::default() },
        }));
    }
    step.events.push(AgentEvent::TokenUsage(TokenUsageEvent {
        thread_id: thread.clone(),
        turn_id: run.turn_id.clone(),
        usage,
        cost_usd,
    }));
    match next {
        Next::RunTools => step.then.push(FollowUp::Dispatch(run.id.clone())),
        Next::TakeSteers => step.then.push(FollowUp::Continue(run.id.clone())),
        Next::Complete => {
            step.events.push(AgentEvent::TurnComplete(TurnCompleteEvent {
                thread_id: thread.clone(),
                turn_id: run.turn_id.clone(),
                stop_reason: stop,
            }));
            step.then.push(FollowUp::Schedule(thread));
        }
    }
    chain.write_with(meta, &mut step.unit);
    step.unit.push(WriteOp::PutRun(Box::new(run)));
    Ok(step)
}
