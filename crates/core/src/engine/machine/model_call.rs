//! The run's next model call: pending steers join the thread first (never between a tool call and
//! its result: this runs only once every call of the last answer has its result), then the
//! request is built from the stored path. A run over its token budget pauses instead; a run
//! whose message attached pages by tab reads them first, as a model-less answer.

use panelot_protocol::engine::ContextContent;
use panelot_protocol::engine::ContextKind;
use panelot_protocol::engine::ProviderStopReason;
use panelot_protocol::engine::RunState;
use panelot_protocol::engine::Usage;

use super::Cx;
use super::chain::Chain;
use super::chain::ThreadState;
use super::end;
use super::stream::user_item;
use crate::context;
use crate::engine::decision::EffectRequest;
use crate::engine::decision::FollowUp;
use crate::engine::decision::Step;
use crate::engine::presets;
use crate::model::AssistantTurn;
use crate::model::ModelRequest;
use crate::model::ModelResponse;
use crate::model::ToolCall;
use crate::model::Withheld;
use crate::runs::transitions::move_run;
use crate::store::NodeBody;
use crate::store::NodeRecord;
use crate::store::RunRecord;
use crate::store::StoreError;
use crate::store::WriteOp;
use crate::tools::ToolRegistry;
use crate::tools::catalog::ToolGroup;

/// The tool that reads an attached page.
const READ_PAGE: &str = "read_page";

/// What the run does next, before a model call: `path` is the stored path to the leaf;
/// `switched_on` are the groups the user's settings offer (`sidebar_open`).
pub(crate) fn prepare(
    cx: Cx<'_>,
    mut run: RunRecord,
    state: ThreadState,
    mut path: Vec<NodeRecord>,
    switched_on: &[ToolGroup],
) -> Result<Step, StoreError> {
    let now = cx.env.now_ms();
    if run.state != RunState::Preparing {
        move_run(&mut run, RunState::Preparing, now)?;
    }
    if run.token_budget.is_some()
        && run.counters.model_calls > 0
        && run.counters.tokens_used >= run.counters.budget_allowance
    {
        return end::park(run, RunState::PausedBudget, "The turn reached its token budget.", now);
    }
    if let Some(notice) = run.pause.take() {
        return end::park(run, RunState::PausedByUser, &notice, now);
    }
    // Pages attached to the message are read before the first call, so the model starts with
    // their snapshots and refs (and the user sees the reads as tool cards).
    if run.counters.model_calls == 0
        && run.tools.is_empty()
        && let Some(reads) = page_reads(&run, cx.tools)
    {
        return Ok(Step::then(FollowUp::Answered(run.id.clone(), Box::new(reads))));
    }
    let mut chain = Chain::at_leaf(&state, &run.turn_id, now);
    let steers = std::mem::take(&mut run.steers);
    for steer in &steers {
        chain.push(
            steer.node_id.clone(),
            NodeBody::UserMessage { input: steer.input.clone(), steered: true },
        );
    }
    path.extend(chain.nodes.iter().cloned());
    let nonce = context::fence_nonce(&run.thread_id);
    let levels = presets::tool_levels(&run);
    let instructions = run.preset.as_ref().and_then(|p| p.system_prompt.as_deref());
    let request = ModelRequest {
        model: run.model.model_id.to_string(),
        system: context::system_prompt(&nonce, instructions),
        messages: context::messages(&path, cx.tools, &nonce),
        tools: if run.counters.tools_disabled {
            Vec::new()
        } else {
            let mut groups = crate::engine::builtins::loaded_groups(&path);
            groups.extend_from_slice(switched_on);
            cx.tools.specs(levels.as_deref(), &groups)
        },
        params: presets::gen_params(run.preset.as_ref()),
    };
    move_run(&mut run, RunState::StreamingModel, now)?;
    run.counters.model_calls += 1;
    let mut step = Step::default();
    for steer in &steers {
        step.events.extend(user_item(&run, &steer.node_id));
    }
    step.effects.push(EffectRequest::Model {
        run: run.id.clone(),
        model: run.model.clone(),
        request,
    });
    chain.write_with(state.meta, &mut step.unit);
    step.unit.push(WriteOp::PutRun(Box::new(run)));
    Ok(step)
}

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
        usage: Usage::default(),
        cost_usd: None,
        withheld: Withheld::default(),
    })
}
