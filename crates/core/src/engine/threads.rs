//! Thread commands: create, list, update, delete, select a branch, fork; and what a thread's
//! snapshot holds (its items, and the open runs' turn, queue, recovery cards, approvals and
//! questions).

use panelot_protocol::AgentEvent;
use panelot_protocol::NodeId;
use panelot_protocol::Op;
use panelot_protocol::PresetId;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::ErrorCode;
use panelot_protocol::engine::ThreadCreateParams;
use panelot_protocol::engine::ThreadCreatedEvent;
use panelot_protocol::engine::ThreadDeleteParams;
use panelot_protocol::engine::ThreadDeletedEvent;
use panelot_protocol::engine::ThreadForkParams;
use panelot_protocol::engine::ThreadForkedEvent;
use panelot_protocol::engine::ThreadListParams;
use panelot_protocol::engine::ThreadListedEvent;
use panelot_protocol::engine::ThreadMeta;
use panelot_protocol::engine::ThreadMetaPatch;
use panelot_protocol::engine::ThreadSelectBranchParams;
use panelot_protocol::engine::ThreadSnapshot;
use panelot_protocol::engine::ThreadStats;
use panelot_protocol::engine::ThreadSummary;
use panelot_protocol::engine::ThreadUpdateParams;
use panelot_protocol::engine::ThreadUpdatedEvent;

use super::decision::Decision;
use super::decision::FollowUp;
use super::decision::ack;
use super::machine::title::NEW_THREAD_TITLE;
use super::presets;
use super::reads::Reads;
use super::run_table::RunTable;
use crate::env::Env;
use crate::settings;
use crate::snapshot::ThreadView;
use crate::store::NodeBody;
use crate::store::NodeRecord;
use crate::store::Store;
use crate::store::StoreError;
use crate::store::UnitOfWork;
use crate::store::WriteOp;
use crate::tree::ThreadTree;

/// Longest thread title.
const MAX_TITLE_CHARS: usize = 200;

/// The unit that repairs a thread whose leaf cursor was broken (the view shows the latest intact
/// branch): a notice at that branch's leaf, which becomes the thread's leaf.
pub(crate) fn repair(env: &Env, view: &mut ThreadView) -> Result<Option<UnitOfWork>, StoreError> {
    let (Some(reason), Some(leaf)) = (view.repaired_leaf.take(), view.meta.leaf_id.clone()) else {
        return Ok(None);
    };
    let notice = NodeRecord {
        id: env.id("n", NodeId::new)?,
        thread_id: view.meta.id.clone(),
        parent_id: Some(leaf),
        seq: view.tree.next_seq(),
        created_at_ms: env.now_ms(),
        turn_id: None,
        body: NodeBody::SystemNotice {
            text: format!(
                "The conversation's position was damaged ({reason}); showing the latest intact branch."
            ),
        },
    };
    view.meta.leaf_id = Some(notice.id.clone());
    view.meta.revision += 1;
    let mut unit = UnitOfWork::new();
    unit.push(WriteOp::AppendNode(notice)).push(WriteOp::PutThread(view.meta.clone()));
    Ok(Some(unit))
}

/// A thread's snapshot: its stored view and what its open runs show.
pub(crate) fn snapshot(view: ThreadView, runs: &RunTable) -> ThreadSnapshot {
    let thread = &view.meta.id;
    ThreadSnapshot {
        active_turn: runs.active_turn(thread),
        queued_runs: runs.queued(thread),
        recoverable_runs: runs.recoverable(thread),
        pending_approvals: runs.pending_approvals(thread),
        pending_interactions: runs.pending_interactions(thread),
        meta: view.meta,
        items: view.items,
        has_earlier: view.has_earlier,
    }
}

/// `thread.list`.
pub(crate) async fn list<S: Store>(
    reads: &Reads<'_, S>,
    params: &ThreadListParams,
) -> Result<AgentEvent, StoreError> {
    let activity = reads.runs.activity();
    let threads = reads
        .store
        .threads()
        .await?
        .into_iter()
        .filter(|meta| params.include_archived || !meta.archived)
        .map(|meta| {
            let activity = activity.iter().find(|a| a.thread_id == meta.id);
            ThreadSummary {
                running: reads.runs.active(&meta.id).is_some(),
                pending_approvals: activity.map_or(0, |a| a.pending_approvals),
                pending_interactions: activity.map_or(0, |a| a.pending_interactions),
                meta,
            }
        })
        .collect();
    Ok(AgentEvent::ThreadListed(ThreadListedEvent {
        submission_id: params.submission_id.clone(),
        threads,
    }))
}

/// `thread.create`.
pub(crate) async fn create<S: Store>(
    reads: &Reads<'_, S>,
    op: &Op,
    params: &ThreadCreateParams,
) -> Result<Decision, StoreError> {
    if let Some(refused) = unknown_preset(reads, op, params.preset.as_ref()).await? {
        return Ok(refused);
    }
    let now = reads.env.now_ms();
    let meta = ThreadMeta {
        id: reads.env.id("t", ThreadId::new)?,
        title: NEW_THREAD_TITLE.to_owned(),
        created_at_ms: now,
        updated_at_ms: now,
        leaf_id: None,
        revision: 1,
        stats: ThreadStats::default(),
        scope_origins: Vec::new(),
        preset: params.preset.clone(),
        parent_thread_id: None,
        folder_id: params.folder_id.clone(),
        tags: Vec::new(),
        pinned: false,
        archived: false,
        permission_policy: None,
    };
    let mut unit = UnitOfWork::new();
    unit.push(WriteOp::PutThread(meta.clone()));
    let created = AgentEvent::ThreadCreated(ThreadCreatedEvent {
        submission_id: Some(params.submission_id.clone()),
        thread: meta.clone(),
    });
    Ok(Decision {
        unit,
        events: vec![created],
        ..Decision::answer(ack(op, Some(meta.id), Some(meta.revision)))
    })
}

/// The thread, or the refusal of a command that names a thread that does not exist.
pub(crate) async fn existing<S: Store>(
    reads: &Reads<'_, S>,
    op: &Op,
    thread: &ThreadId,
) -> Result<Result<ThreadMeta, Decision>, StoreError> {
    Ok(match reads.store.thread(thread).await? {
        Some(meta) => Ok(meta),
        None => Err(Decision::rejected(
            op,
            ErrorCode::ThreadNotFound,
            format!("thread {thread} does not exist"),
        )),
    })
}

/// `thread.update`.
pub(crate) async fn update<S: Store>(
    reads: &Reads<'_, S>,
    op: &Op,
    params: &ThreadUpdateParams,
) -> Result<Decision, StoreError> {
    let mut meta = match existing(reads, op, &params.thread_id).await? {
        Ok(meta) => meta,
        Err(refused) => return Ok(refused),
    };
    if let Some(expected) = params.expected_revision
        && expected != meta.revision
    {
        let message =
            format!("thread changed (revision {} is now {}); reload it", expected, meta.revision);
        return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, message));
    }
    let preset = params.patch.preset.as_ref().and_then(Option::as_ref);
    if let Some(refused) = unknown_preset(reads, op, preset).await? {
        return Ok(refused);
    }
    if let Err(message) = apply_patch(&mut meta, &params.patch) {
        return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, message));
    }
    meta.updated_at_ms = reads.env.now_ms();
    Ok(meta_changed(op, meta, params.patch.clone()))
}

/// The refusal of a command that names a preset that does not exist.
async fn unknown_preset<S: Store>(
    reads: &Reads<'_, S>,
    op: &Op,
    preset: Option<&PresetId>,
) -> Result<Option<Decision>, StoreError> {
    let Some(id) = preset else { return Ok(None) };
    if presets::preset(reads.store, id).await?.is_some() {
        return Ok(None);
    }
    let message = format!("preset {id} does not exist");
    Ok(Some(Decision::rejected(op, ErrorCode::InvalidCommand, message)))
}

/// `thread.delete`: the thread's runs stop with it (their effects are aborted once the delete
/// is durable) and its session grants go.
pub(crate) async fn delete<S: Store>(
    reads: &Reads<'_, S>,
    op: &Op,
    params: &ThreadDeleteParams,
) -> Result<Decision, StoreError> {
    if let Err(refused) = existing(reads, op, &params.thread_id).await? {
        return Ok(refused);
    }
    let mut unit = UnitOfWork::new();
    unit.push(WriteOp::DeleteThread(params.thread_id.clone()));
    let mut grants = settings::read_or_default(reads.store, settings::SESSION_GRANTS).await?;
    if grants.forget(&params.thread_id) {
        unit.push(settings::SESSION_GRANTS.write(&grants)?);
    }
    let deleted =
        AgentEvent::ThreadDeleted(ThreadDeletedEvent { thread_id: params.thread_id.clone() });
    Ok(Decision {
        unit,
        events: vec![deleted],
        then: vec![FollowUp::AbortThread(params.thread_id.clone())],
        ..Decision::answer(ack(op, Some(params.thread_id.clone()), None))
    })
}

/// `thread.selectBranch`.
pub(crate) async fn select_branch<S: Store>(
    reads: &Reads<'_, S>,
    op: &Op,
    params: &ThreadSelectBranchParams,
) -> Result<Decision, StoreError> {
    let mut meta = match existing(reads, op, &params.thread_id).await? {
        Ok(meta) => meta,
        Err(refused) => return Ok(refused),
    };
    let tree = ThreadTree::from_links(reads.store.tree_links(&params.thread_id).await?);
    let leaf = match tree.default_leaf_under(&params.node_id) {
        Ok(leaf) => leaf,
        Err(err) => {
            return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, err.to_string()));
        }
    };
    meta.leaf_id = Some(leaf.clone());
    let patch = ThreadMetaPatch { leaf_id: Some(leaf), ..ThreadMetaPatch::default() };
    Ok(meta_changed(op, meta, patch))
}

/// `thread.fork`: a new thread holding copies of the path from the root to `atNodeId`.
pub(crate) async fn fork<S: Store>(
    reads: &Reads<'_, S>,
    op: &Op,
    params: &ThreadForkParams,
) -> Result<Decision, StoreError> {
    let source = match existing(reads, op, &params.thread_id).await? {
        Ok(meta) => meta,
        Err(refused) => return Ok(refused),
    };
    let tree = ThreadTree::from_links(reads.store.tree_links(&params.thread_id).await?);
    let path = match tree.path_to(&params.at_node_id) {
        Ok(path) => path,
        Err(err) => {
            return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, err.to_string()));
        }
    };
    let records = reads.store.nodes(&params.thread_id, &path).await?;
    let now = reads.env.now_ms();
    let fork_id = reads.env.id("t", ThreadId::new)?;
    let mut unit = UnitOfWork::new();
    let mut parent: Option<NodeId> = None;
    let mut copies = Vec::with_capacity(records.len());
    for (idx, record) in records.into_iter().enumerate() {
        let copy = NodeRecord {
            id: reads.env.id("n", NodeId::new)?,
            thread_id: fork_id.clone(),
            parent_id: parent.take(),
            seq: idx as u64 + 1,
            ..record
        };
        parent = Some(copy.id.clone());
        copies.push(copy);
    }
    let meta = ThreadMeta {
        id: fork_id.clone(),
        title: fork_title(&source.title),
        created_at_ms: now,
        updated_at_ms: now,
        leaf_id: parent,
        revision: 1,
        stats: ThreadStats::default(),
        parent_thread_id: Some(source.id.clone()),
        pinned: false,
        archived: false,
        ..source
    };
    unit.push(WriteOp::PutThread(meta.clone()));
    for copy in copies {
        unit.push(WriteOp::AppendNode(copy));
    }
    let forked = AgentEvent::ThreadForked(ThreadForkedEvent {
        submission_id: Some(params.submission_id.clone()),
        thread: meta,
        from_thread_id: params.thread_id.clone(),
        at_node_id: params.at_node_id.clone(),
    });
    Ok(Decision { unit, events: vec![forked], ..Decision::answer(ack(op, Some(fork_id), Some(1))) })
}

/// The decision for a change of thread metadata already applied to `meta`: the next revision,
/// written, broadcast as `patch`, and acked with the new revision.
fn meta_changed(op: &Op, mut meta: ThreadMeta, patch: ThreadMetaPatch) -> Decision {
    meta.revision += 1;
    let updated = AgentEvent::ThreadUpdated(ThreadUpdatedEvent {
        thread_id: meta.id.clone(),
        revision: meta.revision,
        patch,
    });
    let answer = ack(op, Some(meta.id.clone()), Some(meta.revision));
    let mut unit = UnitOfWork::new();
    unit.push(WriteOp::PutThread(meta));
    Decision { unit, events: vec![updated], ..Decision::answer(answer) }
}

fn fork_title(title: &str) -> String {
    let base: String = title.chars().take(MAX_TITLE_CHARS - 7).collect();
    format!("{base} (fork)")
}

/// Applies a metadata patch, refusing what `thread.update` may not change.
fn apply_patch(meta: &mut ThreadMeta, patch: &ThreadMetaPatch) -> Result<(), String> {
    if patch.leaf_id.is_some() {
        return Err("the leaf moves with `thread.selectBranch`, not `thread.update`".into());
    }
    if let Some(title) = &patch.title {
        let title = title.trim();
        if title.is_empty() || title.chars().count() > MAX_TITLE_CHARS {
            return Err(format!("a title has 1 to {MAX_TITLE_CHARS} characters"));
        }
        meta.title = title.to_owned();
    }
    if let Some(pinned) = patch.pinned {
        meta.pinned = pinned;
    }
    if let Some(archived) = patch.archived {
        meta.archived = archived;
    }
    if let Some(folder) = &patch.folder_id {
        meta.folder_id = folder.clone();
    }
    if let Some(tags) = &patch.tags {
        meta.tags = tags.clone();
    }
    if let Some(policy) = patch.permission_policy {
        meta.permission_policy = Some(policy);
    }
    if let Some(preset) = &patch.preset {
        meta.preset = preset.clone();
    }
    Ok(())
}
