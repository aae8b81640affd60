//! A model call as the user watches it: streamed text, reasoning and tool calls become items
//! (`item.start`, `item.delta`), kept in a [`LiveRun`] that is never stored: a restart cuts the
//! stream, and recovery parks the run as interrupted.

use panelot_protocol::AgentEvent;
use panelot_protocol::ItemId;
use panelot_protocol::NodeId;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::ItemCompleteEvent;
use panelot_protocol::engine::ItemDelta;
use panelot_protocol::engine::ItemDeltaEvent;
use panelot_protocol::engine::ItemKind;
use panelot_protocol::engine::ItemMeta;
use panelot_protocol::engine::ItemStartEvent;
use panelot_protocol::engine::ProviderStopReason;
use panelot_protocol::engine::ToolLevel;
use panelot_protocol::engine::ToolResultView;
use panelot_protocol::engine::TurnRetryingEvent;
use panelot_protocol::engine::Usage;

use super::chain::item_of;
use crate::model::ModelEvent;
use crate::store::NodeBody;
use crate::store::RunRecord;
use crate::tools::ToolRegistry;

/// Streaming state of a run's current model call.
#[derive(Debug, Default)]
pub(crate) struct LiveRun {
    pub(crate) text: Option<(ItemId, String)>,
    pub(crate) reasoning: Option<(ItemId, String)>,
    /// The item of each streamed tool call, by the call's index in the answer. A list rather
    /// than a map: an answer has a few calls, and a map of these types compiled its own B-tree
    /// into the engine wasm.
    calls: Vec<(u32, ItemId)>,
}

impl LiveRun {
    /// The item of the streamed tool call at `index`.
    pub(crate) fn call_item(&self, index: u32) -> Option<&ItemId> {
        self.calls.iter().find(|(at, _)| *at == index).map(|(_, item)| item)
    }

    /// Records the item of the tool call at `index`, replacing one recorded before.
    fn set_call_item(&mut self, index: u32, item: ItemId) {
        match self.calls.iter_mut().find(|(at, _)| *at == index) {
            Some((_, slot)) => *slot = item,
            None => self.calls.push((index, item)),
        }
    }

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
            usage: Usage::default(),
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

    /// The events of one model event: an item starts, or grows by a delta. `new_item` names an
    /// item that starts with this event.
    pub(crate) fn on_event(
        &mut self,
        run: &RunRecord,
        event: ModelEvent,
        new_item: ItemId,
        tools: &ToolRegistry,
    ) -> Vec<AgentEvent> {
        let (kind, slot, delta) = match event {
            ModelEvent::TextDelta(text) => (
                ItemKind::AssistantMessage,
                &mut self.text,
                ItemDelta { text: Some(text), ..ItemDelta::default() },
            ),
            ModelEvent::ReasoningDelta(text) => (
                ItemKind::Reasoning,
                &mut self.reasoning,
                ItemDelta { reasoning: Some(text), ..ItemDelta::default() },
            ),
            ModelEvent::ToolCallStarted { index, name } => {
                self.set_call_item(index, new_item.clone());
                let meta = tool_meta(tools, &name, None);
                return vec![start(run, new_item, ItemKind::ToolCall, meta)];
            }
            ModelEvent::ToolCallDelta { .. } => return Vec::new(),
            ModelEvent::Retrying { attempt, wait_ms, message } => {
                // What streamed before the failure is superseded by the next attempt.
                let mut events: Vec<AgentEvent> = Vec::new();
                for (item, _, _) in self.streaming() {
                    events.push(complete(&run.thread_id, item, None, None));
                }
                self.text = None;
                self.reasoning = None;
                self.calls.clear();
                events.push(AgentEvent::TurnRetrying(TurnRetryingEvent {
                    thread_id: run.thread_id.clone(),
                    turn_id: run.turn_id.clone(),
                    attempt,
                    wait_ms,
                    message,
                }));
                return events;
            }
        };
        let mut events = Vec::new();
        let started = slot.is_none();
        let (item, so_far) = slot.get_or_insert_with(|| (new_item, String::new()));
        so_far.push_str(delta.text.as_deref().or(delta.reasoning.as_deref()).unwrap_or_default());
        if started {
            events.push(start(run, item.clone(), kind, ItemMeta::default()));
        }
        events.push(AgentEvent::ItemDelta(ItemDeltaEvent {
            thread_id: run.thread_id.clone(),
            item_id: item.clone(),
            delta,
        }));
        events
    }
}

/// What a tool call's card shows before its result.
pub(crate) fn tool_meta(
    tools: &ToolRegistry,
    name: &str,
    params: Option<&serde_json::Value>,
) -> ItemMeta {
    let tool = tools.get(name);
    ItemMeta {
        tool_name: Some(name.to_owned()),
        label: Some(tool.map_or_else(|| name.to_owned(), |t| t.label.clone())),
        params_summary: params.and_then(params_summary),
        level: Some(tool.map_or(ToolLevel::Builtin, |t| t.level)),
    }
}

/// One line describing tool parameters, for cards.
fn params_summary(params: &serde_json::Value) -> Option<String> {
    let text = params.to_string();
    (text != "null" && text != "{}").then(|| text.chars().take(120).collect())
}

/// `item.start` of one of the run's items.
pub(crate) fn start(run: &RunRecord, item: ItemId, kind: ItemKind, meta: ItemMeta) -> AgentEvent {
    AgentEvent::ItemStart(ItemStartEvent {
        thread_id: run.thread_id.clone(),
        turn_id: run.turn_id.clone(),
        item_id: item,
        kind,
        meta,
    })
}

/// `item.complete`, naming the node that keeps it and the tool result's view.
pub(crate) fn complete(
    thread: &ThreadId,
    item: ItemId,
    node: Option<NodeId>,
    result: Option<ToolResultView>,
) -> AgentEvent {
    AgentEvent::ItemComplete(ItemCompleteEvent {
        thread_id: thread.clone(),
        item_id: item,
        node_id: node,
        result,
    })
}

/// A user message node as a started and completed item.
pub(crate) fn user_item(run: &RunRecord, node: &NodeId) -> [AgentEvent; 2] {
    let item = item_of(node);
    [
        start(run, item.clone(), ItemKind::UserMessage, ItemMeta::default()),
        complete(&run.thread_id, item, Some(node.clone()), None),
    ]
}
