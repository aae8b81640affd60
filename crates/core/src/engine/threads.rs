//! Thread commands: create, list, subscribe, update, delete, select a branch, fork.

use panelot_protocol::AgentEvent;
use panelot_protocol::EventFrame;
use panelot_protocol::NodeId;
use panelot_protocol::Op;
use panelot_protocol::PresetId;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::ErrorCode;
use panelot_protocol::engine::InitializeParams;
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
use panelot_protocol::engine::ThreadSnapshotEvent;
use panelot_protocol::engine::ThreadStats;
use panelot_protocol::engine::ThreadSubscribeParams;
use panelot_protocol::engine::ThreadSummary;
use panelot_protocol::engine::ThreadUpdateParams;
use panelot_protocol::engine::ThreadUpdatedEvent;

use super::Decision;
use super::Engine;
use super::Outbox;
use super::PortId;
use super::ack;
use super::rejection;
use crate::handshake::initialized;
use crate::snapshot::LoadError;
use crate::snapshot::load_thread_view;
use crate::store::NodeBody;
use crate::store::NodeRecord;
use crate::store::Store;
use crate::store::StoreError;
use crate::store::UnitOfWork;
use crate::store::WriteOp;
use crate::tree::ThreadTree;

/// Longest thread title.
const MAX_TITLE_CHARS: usize = 200;
/// Title of a new thread until its first message names it.
pub(crate) const NEW_THREAD_TITLE: &str = "New chat";
/// Longest fallback title (the first line of the first message).
const FALLBACK_TITLE_CHARS: usize = 40;
/// Longest generated title.
const GENERATED_TITLE_CHARS: usize = 60;
/// The instruction of the title call.
pub const TITLE_PROMPT: &str = "Name the task in the user's message for a list of conversations: at most 6 words, in the user's language, no punctuation, no quotes. Name the task, not the tool. Reply with the title only.";

/// The title shown at once: the first line of the first message.
pub(crate) fn fallback_title(text: &str) -> String {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or(NEW_THREAD_TITLE);
    let mut title: String = line.chars().take(FALLBACK_TITLE_CHARS).collect();
    if line.chars().count() > FALLBACK_TITLE_CHARS {
        title.push('…');
    }
    title
}

/// A generated title cleaned of what models add anyway (quotes, a trailing period, markup).
pub(crate) fn clean_title(text: &str) -> Option<String> {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    let trimmed = line.trim_start_matches(['#', '*', ' ']).trim_matches(|c: char| {
        matches!(c, '"' | '\'' | '“' | '”' | '「' | '」' | '*' | '.' | '。' | ' ')
    });
    let title: String = trimmed.chars().take(GENERATED_TITLE_CHARS).collect();
    (!title.is_empty()).then_some(title)
}

pub(crate) fn fresh_id<T>(
    engine_ids: &dyn crate::effects::IdSource,
    prefix: &str,
    make: fn(String) -> Result<T, panelot_protocol::IdError>,
) -> Result<T, StoreError> {
    make(engine_ids.new_id(prefix))
        .map_err(|err| StoreError::Corrupt(format!("id source made a bad id: {err}")))
}

impl<S: Store> Engine<S> {
    /// Answers a successful handshake, subscribing at once when asked.
    pub(super) async fn opened(
        &mut self,
        port: PortId,
        params: Box<InitializeParams>,
        out: &mut Outbox,
    ) {
        let mut snapshot = None;
        let mut stream = None;
        if let Some(target) = &params.subscribe {
            match self.snapshot_for(&target.thread_id).await {
                Ok(loaded) => {
                    stream = Some(self.current_cursor(&target.thread_id));
                    snapshot = Some(loaded);
                    if let Some(state) = self.ports.get_mut(&port) {
                        state.subscription = Some(target.thread_id.clone());
                    }
                }
                // The session opens anyway; the UI shows the thread as gone and offers a new one.
                Err(err) => tracing::info!(%err, "initialize asked for a thread it cannot have"),
            }
        }
        out.sends.push((port, EventFrame { event: initialized(&params, snapshot), stream }));
    }

    /// `thread.subscribe`: the snapshot at the current cursor, then live events.
    pub(super) async fn subscribe(
        &mut self,
        port: PortId,
        params: &ThreadSubscribeParams,
        out: &mut Outbox,
    ) -> Result<(), StoreError> {
        // Buffered text goes out first: the snapshot includes it, and the cursor it carries is
        // after it, so nothing is shown twice or lost.
        self.flush_deltas(&params.thread_id, out);
        let answer = match self.snapshot_for(&params.thread_id).await {
            Ok(snapshot) => {
                if let Some(state) = self.ports.get_mut(&port) {
                    state.subscription = Some(params.thread_id.clone());
                }
                let event = AgentEvent::ThreadSnapshot(ThreadSnapshotEvent {
                    submission_id: params.submission_id.clone(),
                    snapshot,
                });
                EventFrame { event, stream: Some(self.current_cursor(&params.thread_id)) }
            }
            Err(LoadError::NotFound(id)) => EventFrame::new(rejection(
                &Op::ThreadSubscribe(params.clone()),
                ErrorCode::ThreadNotFound,
                format!("thread {id} does not exist"),
            )),
            Err(LoadError::Store(err)) => return Err(err),
            Err(LoadError::Tree(err)) => return Err(StoreError::Corrupt(err.to_string())),
        };
        out.sends.push((port, answer));
        Ok(())
    }

    /// Loads a thread's snapshot, repairing (and recording) a broken leaf cursor.
    async fn snapshot_for(&mut self, thread: &ThreadId) -> Result<ThreadSnapshot, LoadError> {
        let mut view = load_thread_view(&self.store, thread).await?;
        if let (Some(reason), Some(leaf)) = (view.repaired_leaf.take(), view.meta.leaf_id.clone()) {
            let notice = NodeRecord {
                id: fresh_id(&*self.ids, "n", NodeId::new)?,
                thread_id: thread.clone(),
                parent_id: Some(leaf),
                seq: view.tree.next_seq(),
                created_at_ms: self.clock.now_ms(),
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
            self.store.commit(unit).await?;
            view = load_thread_view(&self.store, thread).await?;
        }
        Ok(ThreadSnapshot {
            active_turn: self.active_turn(thread),
            queued_runs: self.queued(thread),
            recoverable_runs: self.recoverable(thread),
            meta: view.meta,
            items: view.items,
            pending_approvals: self.pending_approvals(thread),
            pending_interactions: self.pending_interactions(thread),
        })
    }

    /// `thread.list`.
    pub(super) async fn list_threads(
        &mut self,
        port: PortId,
        params: &ThreadListParams,
        out: &mut Outbox,
    ) -> Result<(), StoreError> {
        let threads = self
            .store
            .threads()
            .await?
            .into_iter()
            .filter(|meta| params.include_archived || !meta.archived)
            .map(|meta| ThreadSummary {
                running: self.is_running(&meta.id),
                meta,
                pending_approvals: 0,
                pending_interactions: 0,
            })
            .collect();
        let event = AgentEvent::ThreadListed(ThreadListedEvent {
            submission_id: params.submission_id.clone(),
            threads,
        });
        out.sends.push((port, EventFrame::new(event)));
        Ok(())
    }

    pub(super) async fn create_thread(
        &mut self,
        op: &Op,
        params: &ThreadCreateParams,
    ) -> Result<Decision, StoreError> {
        if let Some(refused) = self.unknown_preset(op, params.preset.as_ref()).await? {
            return Ok(refused);
        }
        let now = self.clock.now_ms();
        let meta = ThreadMeta {
            id: fresh_id(&*self.ids, "t", ThreadId::new)?,
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
            answer: ack(op, Some(meta.id), Some(meta.revision)),
            events: vec![created],
            then: Vec::new(),
        })
    }

    async fn existing(
        &self,
        op: &Op,
        thread: &ThreadId,
    ) -> Result<Result<ThreadMeta, Decision>, StoreError> {
        Ok(match self.store.thread(thread).await? {
            Some(meta) => Ok(meta),
            None => Err(Decision::rejected(
                op,
                ErrorCode::ThreadNotFound,
                format!("thread {thread} does not exist"),
            )),
        })
    }

    pub(super) async fn update_thread(
        &mut self,
        op: &Op,
        params: &ThreadUpdateParams,
    ) -> Result<Decision, StoreError> {
        let mut meta = match self.existing(op, &params.thread_id).await? {
            Ok(meta) => meta,
            Err(refused) => return Ok(refused),
        };
        if let Some(expected) = params.expected_revision
            && expected != meta.revision
        {
            let message = format!(
                "thread changed (revision {} is now {}); reload it",
                expected, meta.revision
            );
            return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, message));
        }
        if let Some(refused) =
            self.unknown_preset(op, params.patch.preset.as_ref().and_then(Option::as_ref)).await?
        {
            return Ok(refused);
        }
        if let Err(message) = apply_patch(&mut meta, &params.patch) {
            return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, message));
        }
        meta.updated_at_ms = self.clock.now_ms();
        Ok(meta_changed(op, meta, params.patch.clone()))
    }

    /// The refusal of a command that names a preset that does not exist.
    async fn unknown_preset(
        &self,
        op: &Op,
        preset: Option<&PresetId>,
    ) -> Result<Option<Decision>, StoreError> {
        let Some(id) = preset else { return Ok(None) };
        if self.preset(id).await?.is_some() {
            return Ok(None);
        }
        let message = format!("preset {id} does not exist");
        Ok(Some(Decision::rejected(op, ErrorCode::InvalidCommand, message)))
    }

    pub(super) async fn delete_thread(
        &mut self,
        op: &Op,
        params: &ThreadDeleteParams,
    ) -> Result<Decision, StoreError> {
        if let Err(refused) = self.existing(op, &params.thread_id).await? {
            return Ok(refused);
        }
        let mut unit = UnitOfWork::new();
        unit.push(WriteOp::DeleteThread(params.thread_id.clone()));
        let deleted =
            AgentEvent::ThreadDeleted(ThreadDeletedEvent { thread_id: params.thread_id.clone() });
        // The thread's runs stop with it: their effects are aborted once the delete is durable.
        let then = self
            .in_flight
            .iter()
            .filter(|(_, owner)| match owner {
                super::InFlight::Model(run) | super::InFlight::Tool(run, _) => {
                    self.runs.get(run).is_some_and(|r| r.thread_id == params.thread_id)
                }
                super::InFlight::Title { thread, .. } => thread == &params.thread_id,
                super::InFlight::Verify { .. } => false,
            })
            .map(|(id, _)| super::FollowUp::Abort(*id))
            .collect();
        Ok(Decision {
            unit,
            answer: ack(op, Some(params.thread_id.clone()), None),
            events: vec![deleted],
            then,
        })
    }

    pub(super) async fn select_branch(
        &mut self,
        op: &Op,
        params: &ThreadSelectBranchParams,
    ) -> Result<Decision, StoreError> {
        let mut meta = match self.existing(op, &params.thread_id).await? {
            Ok(meta) => meta,
            Err(refused) => return Ok(refused),
        };
        let tree = ThreadTree::from_links(self.store.tree_links(&params.thread_id).await?);
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
    pub(super) async fn fork_thread(
        &mut self,
        op: &Op,
        params: &ThreadForkParams,
    ) -> Result<Decision, StoreError> {
        let source = match self.existing(op, &params.thread_id).await? {
            Ok(meta) => meta,
            Err(refused) => return Ok(refused),
        };
        let tree = ThreadTree::from_links(self.store.tree_links(&params.thread_id).await?);
        let path = match tree.path_to(&params.at_node_id) {
            Ok(path) => path,
            Err(err) => {
                return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, err.to_string()));
            }
        };
        let records = self.store.nodes(&params.thread_id, &path).await?;
        let now = self.clock.now_ms();
        let fork_id = fresh_id(&*self.ids, "t", ThreadId::new)?;
        let mut unit = UnitOfWork::new();
        let mut parent: Option<NodeId> = None;
        let mut copies = Vec::with_capacity(records.len());
        for (idx, record) in records.into_iter().enumerate() {
            let copy = NodeRecord {
                id: fresh_id(&*self.ids, "n", NodeId::new)?,
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
        Ok(Decision {
            unit,
            answer: ack(op, Some(fork_id), Some(1)),
            events: vec![forked],
            then: Vec::new(),
        })
    }
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
    Decision { unit, answer, events: vec![updated], then: Vec::new() }
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
