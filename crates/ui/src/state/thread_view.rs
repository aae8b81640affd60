//! The view model of one open thread: a snapshot, then live events in cursor order, folded into
//! the message stream (user, assistant, reasoning, tool cards, notes) in arrival order.
//!
//! The engine sends the snapshot before any live event of the thread, and every thread event
//! carries a stream cursor (epoch, sequence). Events that are not newer than the snapshot are
//! already in it and are dropped; so are events that arrive before any snapshot.

mod entries;
mod rows;

use std::collections::BTreeMap;

use panelot_protocol::AgentEvent;
use panelot_protocol::EventFrame;
use panelot_protocol::ItemId;
use panelot_protocol::NodeId;
use panelot_protocol::RunId;
use panelot_protocol::SubmissionId;
use panelot_protocol::ThreadId;
use panelot_protocol::TurnId;
use panelot_protocol::engine::ItemKind;
use panelot_protocol::engine::PendingApproval;
use panelot_protocol::engine::PendingInteraction;
use panelot_protocol::engine::QueuedRun;
use panelot_protocol::engine::RunRecoveryState;
use panelot_protocol::engine::RunState;
use panelot_protocol::engine::SnapshotItem;
use panelot_protocol::engine::StopReason;
use panelot_protocol::engine::StreamCursor;
use panelot_protocol::engine::ThreadMeta;
use panelot_protocol::engine::ThreadSnapshot;

pub use entries::Entry;
pub use entries::EntryBody;
pub use entries::EntryKey;
pub use entries::SendState;
use entries::append_text;
use entries::apply_delta;
use entries::complete;
use entries::entry_from_item;
use entries::live_entry;
use entries::turn_note;
pub use rows::Row;

/// One open thread as the UI shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct ThreadView {
    thread_id: ThreadId,
    /// Position of the last snapshot or applied event; `None` until the snapshot arrives.
    cursor: Option<(u64, u64)>,
    /// Metadata, once the snapshot arrived.
    pub meta: Option<ThreadMeta>,
    /// The message stream in arrival order.
    entries: Vec<Entry>,
    /// Position of each entry by key, so that a row finds its entry without a scan: every row of
    /// the stream looks itself up on every delta.
    index: BTreeMap<EntryKey, usize>,
    /// Local entries made so far, for their keys.
    n_local: u64,
    /// The running turn.
    pub active_turn: Option<ActiveTurnView>,
    /// Approvals waiting for a decision, oldest first.
    pub approvals: Vec<PendingApproval>,
    /// Questions to the user waiting for an answer, oldest first.
    pub interactions: Vec<PendingInteraction>,
    /// Queued messages, in run order.
    pub queue: Vec<QueuedRun>,
    /// Runs that need the user to choose how to go on.
    pub recovery: Vec<RunRecoveryState>,
    /// The thread was deleted (here or in another UI).
    pub deleted: bool,
    /// An edit-and-resend or regenerate on its way: its branch replaced the old one in the view.
    fork: Option<PendingFork>,
    /// The view wants a fresh snapshot (the branch positions changed); see [`Self::take_refresh`].
    refresh_wanted: bool,
    /// The branch has stored items before the first entry (a snapshot carries the latest ones).
    pub has_earlier: bool,
    /// An entry says a model call is tried again (see [`Self::end_retrying`]).
    retrying: bool,
    /// A recovery card's choice on its way (its card left the view; see [`Self::recovering`]).
    recovering: Option<SubmissionId>,
}

/// What the composer sends for the thread, as the engine takes a message now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComposerMode {
    /// Nothing runs or waits: a message starts a turn.
    Idle,
    /// A turn runs: Enter steers into it, Esc stops it.
    Running,
    /// A turn is paused (by the user, its budget, or a stop the run may continue from): a new
    /// message ends it and starts its own turn (`turn.submit`; the engine refuses a steer).
    Paused,
    /// A write of unknown outcome waits for the user's choice: a new message waits in the
    /// queue until then.
    Undecided,
}

/// A user message to send again (regenerate, retry): its stored node, its text and its files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resend {
    /// The stored message, which the new one becomes a sibling of.
    pub node_id: NodeId,
    /// Its text.
    pub text: String,
    /// Its files, named again by the new message.
    pub files: Vec<crate::state::files::FileChip>,
}

/// A `turn.fork` sent from this view.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PendingFork {
    submission_id: SubmissionId,
    /// The turn it started, once its user item arrived.
    turn_id: Option<TurnId>,
}

/// The running turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActiveTurnView {
    /// The turn.
    pub turn_id: TurnId,
    /// Its run.
    pub run_id: RunId,
    /// Whether Enter steers into it.
    pub steerable: bool,
}

/// What a frame did to the view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    /// The view changed.
    Changed,
    /// The frame is for another thread, or has nothing for this view.
    Ignored,
    /// The frame is already part of the snapshot (or came before it) and was dropped.
    Stale,
}

impl ThreadView {
    /// An empty view of `thread_id`, waiting for its snapshot.
    pub fn new(thread_id: ThreadId) -> ThreadView {
        ThreadView {
            thread_id,
            cursor: None,
            meta: None,
            entries: Vec::new(),
            index: BTreeMap::new(),
            n_local: 0,
            active_turn: None,
            approvals: Vec::new(),
            interactions: Vec::new(),
            queue: Vec::new(),
            recovery: Vec::new(),
            deleted: false,
            fork: None,
            refresh_wanted: false,
            has_earlier: false,
            retrying: false,
            recovering: None,
        }
    }

    /// What a message from the composer does now (see [`ComposerMode`]).
    pub fn composer_mode(&self) -> ComposerMode {
        if self.active_turn.is_some() {
            return ComposerMode::Running;
        }
        let parked = |state| self.recovery.iter().any(|r| r.state == state);
        if parked(RunState::PausedUncertain) {
            ComposerMode::Undecided
        } else if self.recovery.is_empty() {
            ComposerMode::Idle
        } else {
            ComposerMode::Paused
        }
    }

    /// The user chose how `run` goes on (`submission_id` carries it): its card leaves the view
    /// at once, and once the engine answers the view asks for a snapshot, which shows the run
    /// as it is then (at work again, or ended; the card back if the choice was refused).
    pub fn recovering(&mut self, run: &RunId, submission_id: SubmissionId) {
        self.recovery.retain(|r| &r.run_id != run);
        self.recovering = Some(submission_id);
    }

    /// What the thread's model calls cost so far in US dollars, when any had a price.
    pub fn cost_usd(&self) -> Option<f64> {
        self.meta.as_ref().map(|m| m.stats.cost_usd).filter(|cost| *cost > 0.0)
    }

    /// The thread shown.
    pub fn thread_id(&self) -> &ThreadId {
        &self.thread_id
    }

    /// The message stream in arrival order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The entry with `key`.
    pub fn entry(&self, key: &EntryKey) -> Option<&Entry> {
        self.entries.get(*self.index.get(key)?)
    }

    /// Whether the snapshot has arrived.
    pub fn loaded(&self) -> bool {
        self.cursor.is_some()
    }

    /// Applies one frame from the engine.
    pub fn apply(&mut self, frame: &EventFrame) -> Applied {
        let snapshot = match &frame.event {
            AgentEvent::ThreadSnapshot(event) => Some(&event.snapshot),
            AgentEvent::Initialized(event) => event.snapshot.as_ref(),
            _ => None,
        };
        if let Some(snapshot) = snapshot {
            if snapshot.meta.id != self.thread_id {
                return Applied::Ignored;
            }
            self.load_snapshot(snapshot, frame.stream.as_ref());
            return Applied::Changed;
        }
        if frame.event.common().thread_id() != Some(&self.thread_id) {
            return Applied::Ignored;
        }
        let Some(current) = self.cursor else { return Applied::Stale };
        if let Some(stream) = &frame.stream {
            let position = (stream.epoch, stream.sequence);
            if position <= current {
                return Applied::Stale;
            }
            self.cursor = Some(position);
        }
        self.apply_live(&frame.event)
    }

    /// The entries of stored items, with the note of each answer that ended early (a reload shows
    /// it as the live turn did).
    fn stored_entries(&mut self, items: &[SnapshotItem]) -> Vec<Entry> {
        let mut entries = Vec::with_capacity(items.len());
        for item in items {
            let entry = entry_from_item(item);
            let note = match &entry.body {
                EntryBody::Assistant { stop_reason: Some(reason), .. } => turn_note(*reason),
                _ => None,
            };
            let turn_id = entry.turn_id.clone();
            entries.push(entry);
            if let Some(stop_reason) = note {
                self.n_local += 1;
                let key = EntryKey::Local(self.n_local);
                let body = EntryBody::TurnNote { stop_reason };
                entries.push(Entry { key, turn_id, node_id: None, branch: None, body });
            }
        }
        entries
    }

    /// The stored node of the first entry: where `thread.loadEarlier` ends. `None` when nothing
    /// comes before the entries.
    pub fn earlier_before(&self) -> Option<&NodeId> {
        if !self.has_earlier {
            return None;
        }
        self.entries.iter().find_map(|e| e.node_id.as_ref())
    }

    /// Puts the earlier items of `thread.earlier` before the entries.
    fn prepend_earlier(&mut self, items: &[SnapshotItem], has_earlier: bool) {
        let mut earlier = self.stored_entries(items);
        earlier.retain(|entry| !self.index.contains_key(&entry.key));
        earlier.append(&mut self.entries);
        self.entries = earlier;
        self.has_earlier = has_earlier;
        self.reindex();
    }

    /// Shows a user message at once, before the engine confirms it.
    pub fn add_optimistic(&mut self, submission_id: SubmissionId, text: &str, steered: bool) {
        self.push(Entry {
            key: EntryKey::Optimistic(submission_id),
            turn_id: None,
            node_id: None,
            branch: None,
            body: EntryBody::User {
                text: text.to_owned(),
                steered,
                send_state: SendState::Sending,
                files: Vec::new(),
            },
        });
    }

    /// The name of the file `id` sent with a message of the view.
    pub fn file_name(&self, id: &str) -> Option<String> {
        self.entries.iter().find_map(|entry| match &entry.body {
            EntryBody::User { files, .. } => {
                files.iter().find(|file| file.id == id).map(|file| file.name.clone())
            }
            _ => None,
        })
    }

    /// Shows the files sent with the optimistic message `submission_id` on its bubble.
    pub fn attach_files(
        &mut self,
        submission_id: &SubmissionId,
        chips: Vec<crate::state::files::FileChip>,
    ) {
        let key = EntryKey::Optimistic(submission_id.clone());
        if let Some(Entry { body: EntryBody::User { files, .. }, .. }) = self.entry_mut(&key) {
            *files = chips;
        }
    }

    /// Shows an edit-and-resend (or a regenerate) at once: the message `sibling_of` and everything
    /// after it leave the view, and `text` takes their place as an optimistic message. Once the
    /// new branch's turn completes the view asks for a snapshot ([`Self::take_refresh`]), which
    /// brings the ‹n/m› positions of the new branch.
    pub fn fork(&mut self, sibling_of: &NodeId, submission_id: SubmissionId, text: &str) {
        if let Some(index) =
            self.entries.iter().position(|e| e.node_id.as_ref() == Some(sibling_of))
        {
            self.entries.truncate(index);
            self.reindex();
        }
        self.fork = Some(PendingFork { submission_id: submission_id.clone(), turn_id: None });
        self.add_optimistic(submission_id, text, false);
    }

    /// The user message to send again to regenerate or retry the answer at `key`: the nearest
    /// user message at or before it that started a turn (not a steer), with its stored node and
    /// its files. `None` while that message is not stored yet.
    pub fn resend_source(&self, key: &EntryKey) -> Option<Resend> {
        let index = *self.index.get(key)?;
        let user = self.entries[..=index]
            .iter()
            .rev()
            .find(|e| matches!(e.body, EntryBody::User { steered: false, .. }))?;
        let EntryBody::User { text, files, .. } = &user.body else { return None };
        Some(Resend { node_id: user.node_id.clone()?, text: text.clone(), files: files.clone() })
    }

    /// Whether the view wants a fresh snapshot; asking clears the wish.
    pub fn take_refresh(&mut self) -> bool {
        std::mem::take(&mut self.refresh_wanted)
    }

    /// The engine accepted the command that sent an optimistic message.
    pub fn confirm(&mut self, submission_id: &SubmissionId) {
        if self.recovering.as_ref() == Some(submission_id) {
            self.recovering = None;
            self.refresh_wanted = true;
        }
        let key = EntryKey::Optimistic(submission_id.clone());
        if let Some(Entry { body: EntryBody::User { send_state, .. }, .. }) = self.entry_mut(&key) {
            *send_state = SendState::Accepted;
        }
    }

    /// The engine refused the command: the optimistic message goes away. Returns its text, to
    /// give back to the composer.
    pub fn roll_back(&mut self, submission_id: &SubmissionId) -> Option<String> {
        let key = EntryKey::Optimistic(submission_id.clone());
        if self.recovering.as_ref() == Some(submission_id) {
            // The card left the view when the choice was sent: the snapshot brings it back.
            self.recovering = None;
            self.refresh_wanted = true;
        }
        if self.fork.as_ref().is_some_and(|f| &f.submission_id == submission_id) {
            // The old branch left the view when the fork was sent: bring it back.
            self.fork = None;
            self.refresh_wanted = true;
        }
        let index = *self.index.get(&key)?;
        let removed = self.entries.remove(index);
        self.reindex();
        match removed.body {
            EntryBody::User { text, .. } => Some(text),
            EntryBody::Assistant { .. }
            | EntryBody::Reasoning { .. }
            | EntryBody::Tool { .. }
            | EntryBody::Approval { .. }
            | EntryBody::Notice { .. }
            | EntryBody::TurnNote { .. }
            | EntryBody::Error { .. }
            | EntryBody::Retrying { .. } => None,
        }
    }

    fn load_snapshot(&mut self, snapshot: &ThreadSnapshot, stream: Option<&StreamCursor>) {
        // Messages the engine has not confirmed are not in the snapshot yet: keep them.
        let unconfirmed: Vec<Entry> = self
            .entries
            .drain(..)
            .filter(|e| {
                matches!(e.body, EntryBody::User { send_state: SendState::Sending, .. })
                    && matches!(e.key, EntryKey::Optimistic(_))
            })
            .collect();
        self.cursor = Some(stream.map(|s| (s.epoch, s.sequence)).unwrap_or((0, 0)));
        self.meta = Some(snapshot.meta.clone());
        self.has_earlier = snapshot.has_earlier;
        self.entries = self.stored_entries(&snapshot.items);
        self.retrying = false;
        self.active_turn = snapshot.active_turn.as_ref().map(|turn| ActiveTurnView {
            turn_id: turn.turn_id.clone(),
            run_id: turn.run_id.clone(),
            steerable: turn.steerable,
        });
        if let Some(turn) = &snapshot.active_turn {
            for item in &turn.streaming_items {
                let mut entry =
                    live_entry(item.item_id.clone(), &turn.turn_id, item.kind, &item.meta);
                append_text(&mut entry.body, &item.text);
                self.entries.push(entry);
            }
        }
        self.entries.extend(unconfirmed);
        self.reindex();
        self.approvals = snapshot.pending_approvals.clone();
        self.interactions = snapshot.pending_interactions.clone();
        self.queue = snapshot.queued_runs.clone();
        self.recovery = snapshot.recoverable_runs.clone();
        self.deleted = false;
    }

    fn apply_live(&mut self, event: &AgentEvent) -> Applied {
        match event {
            AgentEvent::ThreadEarlier(event) => {
                self.prepend_earlier(&event.items, event.has_earlier)
            }
            AgentEvent::TurnStart(event) => {
                self.active_turn = Some(ActiveTurnView {
                    turn_id: event.turn_id.clone(),
                    run_id: event.run_id.clone(),
                    steerable: event.steerable,
                });
            }
            AgentEvent::ItemStart(event) => {
                self.end_retrying();
                let mut entry =
                    live_entry(event.item_id.clone(), &event.turn_id, event.kind, &event.meta);
                if event.kind == ItemKind::UserMessage {
                    if self.adopt_optimistic(&entry) {
                        return Applied::Changed;
                    }
                    match self.queued_text(&event.turn_id) {
                        // A queued message starting: the view has its text from the queue.
                        Some(text) => {
                            if let EntryBody::User { text: shown, .. } = &mut entry.body {
                                *shown = text;
                            }
                        }
                        // Sent from another page: the live item carries no text, the snapshot
                        // does.
                        None => self.refresh_wanted = true,
                    }
                }
                self.push(entry);
            }
            AgentEvent::ItemDelta(event) => {
                self.end_retrying();
                let Some(entry) = self.item_mut(&event.item_id) else { return Applied::Ignored };
                apply_delta(&mut entry.body, &event.delta);
            }
            AgentEvent::ItemComplete(event) => {
                let Some(entry) = self.item_mut(&event.item_id) else { return Applied::Ignored };
                entry.node_id = event.node_id.clone().or(entry.node_id.take());
                complete(&mut entry.body, event.result.as_ref());
            }
            AgentEvent::TokenUsage(event) => {
                let last_answer = self.entries.iter_mut().rev().find(|e| {
                    e.turn_id.as_ref() == Some(&event.turn_id)
                        && matches!(e.body, EntryBody::Assistant { .. })
                });
                if let Some(Entry { body: EntryBody::Assistant { usage, cost_usd, .. }, .. }) =
                    last_answer
                {
                    *usage = Some(event.usage);
                    *cost_usd = event.cost_usd;
                }
                // The engine adds each call to the thread's totals as it announces it; the
                // snapshot's totals grow here the same way until the next snapshot.
                if let Some(meta) = &mut self.meta {
                    meta.stats.total_tokens += event.usage.input + event.usage.output;
                    meta.stats.cost_usd += event.cost_usd.unwrap_or(0.0);
                }
            }
            AgentEvent::TurnComplete(event) => {
                self.end_retrying();
                if let Some(fork) = &self.fork
                    && fork.turn_id.as_ref().is_none_or(|t| t == &event.turn_id)
                {
                    self.fork = None;
                    self.refresh_wanted = true;
                }
                if self.active_turn.as_ref().map(|t| &t.turn_id) == Some(&event.turn_id) {
                    self.active_turn = None;
                }
                for entry in &mut self.entries {
                    if entry.turn_id.as_ref() == Some(&event.turn_id) {
                        complete(&mut entry.body, None);
                    }
                }
                match event.stop_reason {
                    StopReason::MaxTokens | StopReason::ContentFilter | StopReason::Interrupted => {
                        self.push_local(
                            Some(event.turn_id.clone()),
                            EntryBody::TurnNote { stop_reason: event.stop_reason },
                        );
                    }
                    StopReason::End | StopReason::Error | StopReason::BudgetPause => {}
                }
            }
            AgentEvent::Error(event) => {
                self.end_retrying();
                let turn_id = self.active_turn.as_ref().map(|t| t.turn_id.clone());
                self.push_local(
                    turn_id,
                    EntryBody::Error {
                        code: event.code,
                        message: event.message.clone(),
                        retryable: event.retryable,
                        error_kind: event.error_kind,
                        provider_details: event.provider_details.clone(),
                    },
                );
            }
            AgentEvent::TurnRetrying(event) => {
                // What streamed before the failure is superseded by the next attempt.
                self.end_retrying();
                self.entries.retain(|e| {
                    let superseded = matches!(e.key, EntryKey::Item(_))
                        && e.node_id.is_none()
                        && e.turn_id.as_ref() == Some(&event.turn_id)
                        && matches!(
                            e.body,
                            EntryBody::Assistant { .. }
                                | EntryBody::Reasoning { .. }
                                | EntryBody::Tool { result: None, .. }
                        );
                    !superseded
                });
                self.reindex();
                self.push_local(
                    Some(event.turn_id.clone()),
                    EntryBody::Retrying {
                        attempt: event.attempt,
                        wait_ms: event.wait_ms,
                        message: event.message.clone(),
                    },
                );
                self.retrying = true;
            }
            AgentEvent::ApprovalRequest(event) => {
                self.approvals.retain(|a| a.approval_id != event.approval_id);
                self.approvals.push(PendingApproval {
                    approval_id: event.approval_id.clone(),
                    turn_id: event.turn_id.clone(),
                    item_id: event.item_id.clone(),
                    request: event.request.clone(),
                });
            }
            AgentEvent::ApprovalResolved(event) => {
                self.approvals.retain(|a| a.approval_id != event.approval_id);
            }
            AgentEvent::QueueUpdated(event) => self.queue = event.runs.clone(),
            AgentEvent::RunRecoveryRequired(event) => {
                self.recovery.retain(|r| r.run_id != event.run.run_id);
                self.recovery.push(event.run.clone());
                // The run parked: its turn no longer runs (a snapshot now has no active turn),
                // so the composer neither steers into it nor offers to stop it.
                if self.active_turn.as_ref().is_some_and(|t| t.run_id == event.run.run_id) {
                    self.active_turn = None;
                }
            }
            AgentEvent::ThreadUpdated(event) => {
                let Some(meta) = &mut self.meta else { return Applied::Ignored };
                crate::state::thread_list::apply_patch(meta, event.revision, &event.patch);
            }
            AgentEvent::ThreadDeleted(_) => self.deleted = true,
            AgentEvent::InteractionRequest(event) => {
                self.interactions.retain(|i| i.interaction_id != event.interaction_id);
                self.interactions.push(PendingInteraction {
                    interaction_id: event.interaction_id.clone(),
                    turn_id: event.turn_id.clone(),
                    request: event.request.clone(),
                });
            }
            AgentEvent::InteractionResolved(event) => {
                self.interactions.retain(|i| i.interaction_id != event.interaction_id);
            }
            // The touched tabs and creation events belong to other views.
            AgentEvent::TabsUpdated(_)
            | AgentEvent::ThreadCreated(_)
            | AgentEvent::ThreadForked(_)
            | AgentEvent::Initialized(_)
            | AgentEvent::FatalReloadRequired(_)
            | AgentEvent::CommandAck(_)
            | AgentEvent::CommandRejected(_)
            | AgentEvent::Pong(_)
            | AgentEvent::ThreadSnapshot(_)
            | AgentEvent::ThreadListed(_)
            | AgentEvent::ActivityUpdated(_)
            | AgentEvent::ViewOpen(_)
            | AgentEvent::SettingsState(_)
            | AgentEvent::McpListed(_)
            | AgentEvent::McpFetched(_)
            | AgentEvent::ConnectionVerified(_) => return Applied::Ignored,
        }
        Applied::Changed
    }

    /// Turns the oldest optimistic message into the live user item that stands for it.
    /// The text of the queued message whose run just started as `turn` (its `turn.start`
    /// names the run), taken out of the queue.
    fn queued_text(&mut self, turn: &TurnId) -> Option<String> {
        let run = self.active_turn.as_ref().filter(|t| &t.turn_id == turn)?.run_id.clone();
        let at = self.queue.iter().position(|q| q.run_id == run)?;
        Some(self.queue.remove(at).input.text)
    }

    fn adopt_optimistic(&mut self, live: &Entry) -> bool {
        let Some(entry) =
            self.entries.iter_mut().find(|e| matches!(e.key, EntryKey::Optimistic(_)))
        else {
            return false;
        };
        if let (EntryKey::Optimistic(sent), Some(fork)) = (&entry.key, &mut self.fork)
            && sent == &fork.submission_id
        {
            fork.turn_id = live.turn_id.clone();
        }
        entry.key = live.key.clone();
        entry.turn_id = live.turn_id.clone();
        if let EntryBody::User { send_state, .. } = &mut entry.body {
            *send_state = SendState::Stored;
        }
        self.reindex();
        true
    }

    fn item_mut(&mut self, item_id: &ItemId) -> Option<&mut Entry> {
        self.entry_mut(&EntryKey::Item(item_id.clone()))
    }

    fn entry_mut(&mut self, key: &EntryKey) -> Option<&mut Entry> {
        let index = *self.index.get(key)?;
        self.entries.get_mut(index)
    }

    fn push(&mut self, entry: Entry) {
        self.index.insert(entry.key.clone(), self.entries.len());
        self.entries.push(entry);
    }

    /// Takes away the note of a model call being tried again: the answer resumed, or the turn
    /// ended.
    fn end_retrying(&mut self) {
        // Every delta asks: only look when there is one.
        if !std::mem::take(&mut self.retrying) {
            return;
        }
        self.entries.retain(|e| !matches!(e.body, EntryBody::Retrying { .. }));
        self.reindex();
    }

    fn push_local(&mut self, turn_id: Option<TurnId>, body: EntryBody) {
        self.n_local += 1;
        let key = EntryKey::Local(self.n_local);
        self.push(Entry { key, turn_id, node_id: None, branch: None, body });
    }

    /// Rebuilds the key index after entries moved or changed keys. Should a key repeat (the
    /// engine sent an item twice), the last entry wins, as with a push.
    fn reindex(&mut self) {
        self.index = self.entries.iter().enumerate().map(|(i, e)| (e.key.clone(), i)).collect();
    }
}

#[cfg(test)]
#[path = "thread_view_tests.rs"]
mod tests;
