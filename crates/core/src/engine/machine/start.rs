//! A queued run starts: its message and turn context join the thread, its taint ledger is
//! rebuilt from the page content already on the thread's path, and the first model call follows.

use panelot_protocol::AgentEvent;
use panelot_protocol::NodeId;
use panelot_protocol::engine::Provenance;
use panelot_protocol::engine::RunState;
use panelot_protocol::engine::ThreadMetaPatch;
use panelot_protocol::engine::ThreadUpdatedEvent;
use panelot_protocol::engine::TurnKind;
use panelot_protocol::engine::TurnStartEvent;

use super::Cx;
use super::chain::Chain;
use super::chain::ThreadState;
use super::stream::user_item;
use super::title;
use crate::engine::decision::FollowUp;
use crate::engine::decision::Step;
use crate::runs::transitions::move_run;
use crate::store::NodeBody;
use crate::store::NodeRecord;
use crate::store::RunRecord;
use crate::store::StoreError;
use crate::taint::TaintLedger;
use crate::tools::ToolRegistry;

/// Page results on the path that a new run's ledger is rebuilt from, newest last: enough for
/// every page the conversation has recently read, bounded so a long thread starts fast.
pub(crate) const TAINT_RESULTS: usize = 64;

/// The node a run's message attaches to: the parent of the node it forks, else the leaf.
pub(crate) fn attach_point(
    run: &RunRecord,
    state: &ThreadState,
) -> Result<Option<NodeId>, StoreError> {
    match &run.sibling_of {
        Some(sibling) => Ok(state
            .tree
            .parent(sibling)
            .map_err(|err| StoreError::Integrity(err.to_string()))?
            .cloned()),
        None => Ok(state.meta.leaf_id.clone()),
    }
}

/// Starts `run`; `path` is the stored path from the root to its [`attach_point`].
pub(crate) fn start_run(
    cx: Cx<'_>,
    mut run: RunRecord,
    state: ThreadState,
    path: &[NodeRecord],
) -> Result<Step, StoreError> {
    let ThreadState { mut meta, tree } = state;
    let now = cx.env.now_ms();
    let parent = attach_point(&run, &ThreadState { meta: meta.clone(), tree: tree.clone() })?;
    let first_turn = meta.leaf_id.is_none() && meta.title == title::NEW_THREAD_TITLE;
    let mut chain = Chain::new(&run.thread_id, Some(&run.turn_id), parent, &tree, now);
    let model = format!("{}/{}", run.model.connection_id, run.model.model_id);
    // The message first, so an edit (a fork of it) is its sibling; the turn context (never
    // shown or sent) follows it.
    let user_node = chain
        .push_new(cx.env, NodeBody::UserMessage { input: run.input.clone(), steered: false })?;
    chain.push_new(cx.env, NodeBody::TurnContext { model, permission_policy: run.policy })?;
    move_run(&mut run, RunState::Preparing, now)?;
    run.taint = ledger_of_path(path, cx.tools);
    run.taint.record_user(&run.input.text);
    let mut events = vec![AgentEvent::TurnStart(TurnStartEvent {
        thread_id: run.thread_id.clone(),
        turn_id: run.turn_id.clone(),
        run_id: run.id.clone(),
        turn_kind: TurnKind::User,
        steerable: true,
    })];
    events.extend(user_item(&run, &user_node));
    let mut then = vec![FollowUp::Continue(run.id.clone())];
    if first_turn {
        meta.title = title::fallback_title(&run.input.text);
        meta.revision += 1;
        events.push(AgentEvent::ThreadUpdated(ThreadUpdatedEvent {
            thread_id: meta.id.clone(),
            revision: meta.revision,
            patch: ThreadMetaPatch { title: Some(meta.title.clone()), ..Default::default() },
        }));
        then.push(FollowUp::TitleAfterFirstAnswer(run.id.clone()));
    }
    let mut step = Step { events, then, ..Step::default() };
    chain.write_with(meta, &mut step.unit);
    step.unit.push(crate::store::WriteOp::PutRun(Box::new(run)));
    Ok(step)
}

/// The taint of a thread's path: what pages and MCP servers said in its last
/// [`TAINT_RESULTS`] results, each from the URL it was read at, and the values the user wrote.
/// Rebuilt rather than stored, so it follows the branch a run starts on and survives restarts
/// and turns.
pub(crate) fn ledger_of_path(path: &[NodeRecord], tools: &ToolRegistry) -> TaintLedger {
    let mut ledger = TaintLedger::new();
    // Call ids and their tool names, in path order. A list rather than a map (a map of these
    // types compiled its own B-tree into the engine wasm): a result follows its call within the
    // same answer's few calls, so the search from the end is short, and it finds the latest call
    // with the id, as a map's last insert would.
    let mut names: Vec<(&str, &str)> = Vec::new();
    let mut results = Vec::new();
    for node in path {
        match &node.body {
            NodeBody::UserMessage { input, .. } => ledger.record_user(&input.text),
            NodeBody::ToolCall { call_id, tool_name, .. } => {
                names.push((call_id, tool_name));
            }
            NodeBody::ToolResult { call_id, content_for_model, source, .. } => {
                let Some((_, name)) = names.iter().rev().find(|(id, _)| id == call_id) else {
                    continue;
                };
                let provenance = tools.get(name).map_or(Provenance::Page, |t| t.result_provenance);
                if matches!(provenance, Provenance::Page | Provenance::Mcp) {
                    let source = match provenance {
                        Provenance::Mcp => format!("mcp:{name}"),
                        _ => source.clone().unwrap_or_default(),
                    };
                    results.push((content_for_model.as_str(), provenance, source));
                }
            }
            NodeBody::TurnContext { .. }
            | NodeBody::AssistantMessage { .. }
            | NodeBody::ApprovalDecision { .. }
            | NodeBody::InteractionResponse { .. }
            | NodeBody::SystemNotice { .. }
            | NodeBody::TurnError { .. } => {}
        }
    }
    let skip = results.len().saturating_sub(TAINT_RESULTS);
    for (content, provenance, source) in results.into_iter().skip(skip) {
        ledger.record(content, provenance, &source);
    }
    ledger
}
