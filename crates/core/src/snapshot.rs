//! Loading a thread for display: three reads whatever its size (metadata, the tree's links, the
//! records of the latest window of the selected path), then a projection of stored nodes into
//! snapshot items. A view gets what it shows first, not the whole path: the window ends at the
//! leaf and starts at a turn's first message, and `thread.loadEarlier` pages further back.

use panelot_protocol::ItemId;
use panelot_protocol::NodeId;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::BranchPosition;
use panelot_protocol::engine::EXCERPT_CHARS;
use panelot_protocol::engine::ItemContent;
use panelot_protocol::engine::SnapshotItem;
use panelot_protocol::engine::ThreadMeta;
use panelot_protocol::engine::ToolResultView;

use crate::sort::sort_by_u64_key;
use crate::store::NodeBody;
use crate::store::NodeRecord;
use crate::store::Store;
use crate::store::StoreError;
use crate::tree::LeafCheck;
use crate::tree::ThreadTree;
use crate::tree::TreeError;

/// Why a thread could not be loaded.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LoadError {
    /// No such thread.
    #[error("thread {0} not found")]
    NotFound(ThreadId),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The tree is inconsistent with its records.
    #[error(transparent)]
    Tree(#[from] TreeError),
}

/// Stored nodes of the selected path a snapshot carries (and each earlier page): a screenful of
/// turns and then some, whatever the thread's length.
pub const WINDOW_NODES: usize = 120;

/// Most nodes one `thread.loadEarlier` reads.
pub const MAX_PAGE_NODES: usize = 1_000;

/// A thread as loaded for display.
#[derive(Debug, Clone)]
pub struct ThreadView {
    /// Its metadata (with the leaf cursor actually used).
    pub meta: ThreadMeta,
    /// Its tree.
    pub tree: ThreadTree,
    /// The latest window of the selected branch, projected.
    pub items: Vec<SnapshotItem>,
    /// Whether the branch has items before `items`.
    pub has_earlier: bool,
    /// Set when the stored leaf cursor was broken and replaced; the caller records a notice and
    /// persists the new cursor.
    pub repaired_leaf: Option<String>,
}

/// Loads a thread: metadata, links, the selected path's records.
pub async fn load_thread_view<S: Store>(
    store: &S,
    thread: &ThreadId,
) -> Result<ThreadView, LoadError> {
    let mut meta =
        store.thread(thread).await?.ok_or_else(|| LoadError::NotFound(thread.clone()))?;
    let tree = ThreadTree::from_links(store.tree_links(thread).await?);
    let (leaf, repaired_leaf) = match tree.validate_leaf(meta.leaf_id.as_ref()) {
        LeafCheck::Empty => (None, None),
        LeafCheck::Valid(leaf) => (Some(leaf), None),
        LeafCheck::Repaired { leaf, reason } => (Some(leaf), Some(reason)),
    };
    meta.leaf_id = leaf.clone();
    let (items, has_earlier) = match &leaf {
        Some(leaf) => {
            let path = tree.path_to(leaf)?;
            window_items(store, thread, &tree, &path, path.len(), WINDOW_NODES).await?
        }
        None => (Vec::new(), false),
    };
    Ok(ThreadView { meta, tree, items, has_earlier, repaired_leaf })
}

/// Why earlier items could not be loaded.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EarlierError {
    /// The thread could not be loaded.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The node is not on the thread's selected branch (it changed since the view loaded).
    #[error("node {0} is not on the selected branch; subscribe again")]
    NotOnBranch(NodeId),
}

/// The items of the selected branch just before `before`, reading at most `limit` nodes (from a
/// turn's start when one is among them), and whether more come before them.
pub async fn earlier_items<S: Store>(
    store: &S,
    thread: &ThreadId,
    before: &NodeId,
    limit: usize,
) -> Result<(Vec<SnapshotItem>, bool), EarlierError> {
    let meta = store.thread(thread).await.map_err(LoadError::from)?;
    let meta = meta.ok_or_else(|| LoadError::NotFound(thread.clone()))?;
    let tree = ThreadTree::from_links(store.tree_links(thread).await.map_err(LoadError::from)?);
    let Some(leaf) = meta.leaf_id else { return Err(EarlierError::NotOnBranch(before.clone())) };
    let path = tree.path_to(&leaf).map_err(LoadError::from)?;
    let Some(end) = path.iter().position(|id| id == before) else {
        return Err(EarlierError::NotOnBranch(before.clone()));
    };
    let limit = limit.clamp(1, MAX_PAGE_NODES);
    Ok(window_items(store, thread, &tree, &path, end, limit).await?)
}

/// The projected items of `path[..end]`'s last `size` nodes, moved forward to the first user
/// message among them so a turn is never cut (a turn longer than the window is shown from the
/// window's start), and whether nodes come before them.
async fn window_items<S: Store>(
    store: &S,
    thread: &ThreadId,
    tree: &ThreadTree,
    path: &[NodeId],
    end: usize,
    size: usize,
) -> Result<(Vec<SnapshotItem>, bool), LoadError> {
    let start = end.saturating_sub(size);
    let mut records = path_records(store, thread, tree, &path[start..end]).await?;
    if records.len() != end - start {
        return Err(LoadError::Store(StoreError::Corrupt(format!(
            "{} of {} nodes of the path are missing",
            end - start - records.len(),
            end - start
        ))));
    }
    let mut first = 0;
    if start > 0
        && let Some(turn_start) = records
            .iter()
            .position(|r| matches!(r.body, NodeBody::UserMessage { steered: false, .. }))
    {
        first = turn_start;
        records.drain(..turn_start);
    }
    Ok((project(tree, records), start + first > 0))
}

/// The projected items of the path from the root to `leaf`.
pub async fn path_items<S: Store>(
    store: &S,
    thread: &ThreadId,
    tree: &ThreadTree,
    leaf: &NodeId,
) -> Result<Vec<SnapshotItem>, LoadError> {
    let path = tree.path_to(leaf)?;
    let records = path_records(store, thread, tree, &path).await?;
    if records.len() != path.len() {
        return Err(LoadError::Store(StoreError::Corrupt(format!(
            "{} of {} nodes on the path to {leaf} are missing",
            path.len() - records.len(),
            path.len()
        ))));
    }
    Ok(project(tree, records))
}

/// The records of `path`, in path order, with one read: a seq-range read filtered in memory when
/// the path covers at least half of its seq span (the usual case), else a by-id read.
async fn path_records<S: Store>(
    store: &S,
    thread: &ThreadId,
    tree: &ThreadTree,
    path: &[NodeId],
) -> Result<Vec<NodeRecord>, LoadError> {
    let mut seqs: Vec<u64> = path.iter().filter_map(|id| tree.seq(id)).collect();
    let (Some(from), Some(to)) = (seqs.iter().min(), seqs.iter().max()) else {
        return Ok(Vec::new());
    };
    let span = to - from + 1;
    if (path.len() as u64) * 2 < span {
        return Ok(store.nodes(thread, path).await?);
    }
    // The wanted seqs, sorted for binary search: a set would compile a B-tree and its sort for
    // `u64` only for this.
    let (from, to) = (*from, *to);
    sort_by_u64_key(&mut seqs, |seq| *seq);
    // Range reads come back in seq order, and a path's seqs increase from root to leaf.
    Ok(store
        .node_range(thread, from, to)
        .await?
        .into_iter()
        .filter(|r| seqs.binary_search(&r.seq).is_ok())
        .collect())
}

/// Projects stored nodes into snapshot items, consuming them (a path can be large; nothing is
/// copied). Audit-only nodes (turn context, decisions, interaction answers) are not items; a tool
/// result completes its tool-call item; an assistant message with reasoning shows as a reasoning
/// item and an answer item.
pub fn project(tree: &ThreadTree, records: Vec<NodeRecord>) -> Vec<SnapshotItem> {
    // Each tool result goes to its call, the nearest call before it with its item id (a result
    // follows its call, within one answer's calls), by the call's position; a later result of a
    // call replaces an earlier one. A list by position instead of a map by item id, which
    // compiled a B-tree of its own into the engine wasm for this alone.
    let mut results: Vec<Option<ToolResultView>> = Vec::new();
    results.resize_with(records.len(), || None);
    for (at, record) in records.iter().enumerate() {
        if let NodeBody::ToolResult { item_id, .. } = &record.body
            && let Some(view) = tool_result_view(&record.body)
            && let Some(call) = records[..at].iter().rposition(|r| is_call(&r.body, item_id))
        {
            results[call] = Some(view);
        }
    }
    let mut items = Vec::with_capacity(records.len());
    for (record, result) in records.into_iter().zip(results) {
        let branch = tree.branch_position(&record.id).unwrap_or_else(|_| BranchPosition::only());
        let item = |content| SnapshotItem {
            node_id: record.id.clone(),
            parent_id: record.parent_id.clone(),
            turn_id: record.turn_id.clone(),
            created_at_ms: record.created_at_ms,
            branch: branch.clone(),
            content,
        };
        match record.body {
            NodeBody::TurnContext { .. }
            | NodeBody::ToolResult { .. }
            | NodeBody::ApprovalDecision { .. }
            | NodeBody::InteractionResponse { .. } => {}
            NodeBody::UserMessage { input, steered } => {
                items.push(item(ItemContent::UserMessage { input, steered }));
            }
            NodeBody::AssistantMessage {
                text,
                reasoning,
                model,
                stop_reason,
                usage,
                cost_usd,
                ..
            } => {
                if let Some(reasoning) = reasoning.filter(|r| !r.is_empty()) {
                    items.push(item(ItemContent::Reasoning { text: reasoning }));
                }
                items.push(item(ItemContent::AssistantMessage {
                    text,
                    model: Some(model),
                    stop_reason: Some(stop_reason),
                    usage: Some(usage),
                    cost_usd,
                }));
            }
            NodeBody::ToolCall { item_id, tool_name, label, params, .. } => {
                items.push(item(ItemContent::ToolCall {
                    item_id,
                    tool_name,
                    label,
                    params,
                    result,
                }));
            }
            NodeBody::SystemNotice { text } => {
                items.push(item(ItemContent::SystemNotice { text }));
            }
            NodeBody::TurnError { error } => items.push(item(ItemContent::TurnError { error })),
        }
    }
    items
}

/// Whether `body` is the tool call of item `item_id`.
fn is_call(body: &NodeBody, item_id: &ItemId) -> bool {
    matches!(body, NodeBody::ToolCall { item_id: id, .. } if id == item_id)
}

/// What a tool call's stored result shows on its step, the same live (`item.complete`) and
/// after a reload: its outcome, where it acted, and an excerpt of what the tool said (or, for a
/// call that did not run, why). `None` for another node.
pub fn tool_result_view(body: &NodeBody) -> Option<ToolResultView> {
    let NodeBody::ToolResult {
        ok, content_for_model, details, engine_note, outcome, target, ..
    } = body
    else {
        return None;
    };
    // A failure reads "Error: ..." for the model; the step already says it failed.
    let said = match ok {
        true => content_for_model.as_str(),
        false => content_for_model.strip_prefix("Error: ").unwrap_or(content_for_model),
    };
    // A refused call says nothing; the first paragraph of the engine's note says why (the rest
    // is advice to the model). A call that worked keeps its notes for the model.
    let said = match (said.trim().is_empty(), engine_note) {
        (true, Some(note)) if !ok => {
            let what = note.split("\n\n").next().unwrap_or_default();
            what.strip_prefix("Error: ").unwrap_or(what)
        }
        _ => said,
    };
    Some(ToolResultView {
        ok: *ok,
        outcome: *outcome,
        excerpt: (!said.trim().is_empty()).then(|| excerpt(said)),
        target: target.clone(),
        details: details.clone(),
    })
}

/// `text` cut to [`EXCERPT_CHARS`] characters, the last one `…` when cut.
fn excerpt(text: &str) -> String {
    match text.char_indices().nth(EXCERPT_CHARS - 1) {
        Some((at, _)) if text[at..].chars().nth(1).is_some() => format!("{}…", &text[..at]),
        _ => text.to_owned(),
    }
}

#[cfg(test)]
#[path = "snapshot_tests.rs"]
mod tests;
