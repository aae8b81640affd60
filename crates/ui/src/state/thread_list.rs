//! The thread list view model: summaries kept in step with broadcasts, grouped pinned / today /
//! yesterday / last 7 days / older in the user's local time.

use panelot_protocol::AgentEvent;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::ThreadMeta;
use panelot_protocol::engine::ThreadMetaPatch;
use panelot_protocol::engine::ThreadSummary;

const DAY_MS: i64 = 24 * 60 * 60 * 1000;

/// A group of the thread list, in display order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Group {
    /// Pinned threads, whatever their age.
    Pinned,
    /// Updated today.
    Today,
    /// Updated yesterday.
    Yesterday,
    /// Updated 2 to 7 days ago.
    LastWeek,
    /// Everything else.
    Older,
}

/// All threads the list shows.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ThreadList {
    /// The threads, in no particular order; [`ThreadList::groups`] sorts.
    pub threads: Vec<ThreadSummary>,
    /// Whether a `thread.listed` has arrived.
    pub loaded: bool,
}

impl ThreadList {
    /// Applies an engine event; returns whether the list changed.
    pub fn apply(&mut self, event: &AgentEvent) -> bool {
        match event {
            AgentEvent::ThreadListed(event) => {
                self.threads = event.threads.clone();
                self.loaded = true;
            }
            AgentEvent::ThreadCreated(event) => self.insert(&event.thread),
            AgentEvent::ThreadForked(event) => self.insert(&event.thread),
            AgentEvent::ThreadUpdated(event) => {
                let Some(summary) = self.get_mut(&event.thread_id) else { return false };
                apply_patch(&mut summary.meta, event.revision, &event.patch);
            }
            AgentEvent::ThreadDeleted(event) => {
                let before = self.threads.len();
                self.threads.retain(|t| t.meta.id != event.thread_id);
                return self.threads.len() != before;
            }
            AgentEvent::ActivityUpdated(event) => {
                for summary in &mut self.threads {
                    let activity = event.threads.iter().find(|a| a.thread_id == summary.meta.id);
                    summary.running = activity.is_some_and(|a| a.running);
                    summary.pending_approvals = activity.map_or(0, |a| a.pending_approvals);
                    summary.pending_interactions = activity.map_or(0, |a| a.pending_interactions);
                }
            }
            AgentEvent::Initialized(_)
            | AgentEvent::SettingsState(_)
            | AgentEvent::FatalReloadRequired(_)
            | AgentEvent::CommandAck(_)
            | AgentEvent::CommandRejected(_)
            | AgentEvent::Pong(_)
            | AgentEvent::Error(_)
            | AgentEvent::ThreadSnapshot(_)
            | AgentEvent::TurnStart(_)
            | AgentEvent::TurnComplete(_)
            | AgentEvent::TokenUsage(_)
            | AgentEvent::ThreadEarlier(_)
            | AgentEvent::TurnRetrying(_)
            | AgentEvent::ItemStart(_)
            | AgentEvent::ItemDelta(_)
            | AgentEvent::ItemComplete(_)
            | AgentEvent::ApprovalRequest(_)
            | AgentEvent::ApprovalResolved(_)
            | AgentEvent::InteractionRequest(_)
            | AgentEvent::InteractionResolved(_)
            | AgentEvent::QueueUpdated(_)
            | AgentEvent::RunRecoveryRequired(_)
            | AgentEvent::TabsUpdated(_)
            | AgentEvent::ViewOpen(_)
            | AgentEvent::McpListed(_)
            | AgentEvent::McpFetched(_)
            | AgentEvent::ConnectionVerified(_) => return false,
        }
        true
    }

    /// The summary of `thread_id`.
    pub fn get(&self, thread_id: &ThreadId) -> Option<&ThreadSummary> {
        self.threads.iter().find(|t| &t.meta.id == thread_id)
    }

    /// The most recently updated thread, for the side panel's first screen.
    pub fn most_recent(&self) -> Option<&ThreadSummary> {
        self.threads.iter().max_by_key(|t| t.meta.updated_at_ms)
    }

    /// Non-empty groups in display order, each sorted most recent first. `utc_offset_min` is the
    /// local time zone's offset from UTC in minutes (east positive), so days break at midnight
    /// where the user is.
    pub fn groups(&self, now_ms: u64, utc_offset_min: i32) -> Vec<(Group, Vec<&ThreadSummary>)> {
        let mut groups: Vec<(Group, Vec<&ThreadSummary>)> = Vec::new();
        let mut sorted: Vec<&ThreadSummary> =
            self.threads.iter().filter(|t| !t.meta.archived).collect();
        sorted.sort_by(|a, b| {
            b.meta.updated_at_ms.cmp(&a.meta.updated_at_ms).then_with(|| a.meta.id.cmp(&b.meta.id))
        });
        for summary in sorted {
            let group = group_of(&summary.meta, now_ms, utc_offset_min);
            match groups.iter_mut().find(|(g, _)| *g == group) {
                Some((_, members)) => members.push(summary),
                None => groups.push((group, vec![summary])),
            }
        }
        groups.sort_by_key(|(group, _)| *group);
        groups
    }

    fn insert(&mut self, meta: &ThreadMeta) {
        if let Some(summary) = self.get_mut(&meta.id) {
            summary.meta = meta.clone();
            return;
        }
        self.threads.push(ThreadSummary {
            meta: meta.clone(),
            running: false,
            pending_approvals: 0,
            pending_interactions: 0,
        });
    }

    fn get_mut(&mut self, thread_id: &ThreadId) -> Option<&mut ThreadSummary> {
        self.threads.iter_mut().find(|t| &t.meta.id == thread_id)
    }
}

/// The group of a thread at `now_ms`.
pub fn group_of(meta: &ThreadMeta, now_ms: u64, utc_offset_min: i32) -> Group {
    if meta.pinned {
        return Group::Pinned;
    }
    let offset_ms = i64::from(utc_offset_min) * 60_000;
    let local_day =
        |ms: u64| (i64::try_from(ms).unwrap_or(i64::MAX) + offset_ms).div_euclid(DAY_MS);
    let days_ago = local_day(now_ms) - local_day(meta.updated_at_ms);
    match days_ago {
        i64::MIN..=0 => Group::Today,
        1 => Group::Yesterday,
        2..=7 => Group::LastWeek,
        _ => Group::Older,
    }
}

/// Applies a metadata patch; an older revision than the one held is ignored.
pub fn apply_patch(meta: &mut ThreadMeta, revision: u64, patch: &ThreadMetaPatch) {
    if revision < meta.revision {
        return;
    }
    meta.revision = revision;
    if let Some(title) = &patch.title {
        meta.title.clone_from(title);
    }
    if let Some(pinned) = patch.pinned {
        meta.pinned = pinned;
    }
    if let Some(archived) = patch.archived {
        meta.archived = archived;
    }
    if let Some(folder_id) = &patch.folder_id {
        meta.folder_id.clone_from(folder_id);
    }
    if let Some(tags) = &patch.tags {
        meta.tags.clone_from(tags);
    }
    if let Some(leaf_id) = &patch.leaf_id {
        meta.leaf_id = Some(leaf_id.clone());
    }
    if let Some(policy) = patch.permission_policy {
        meta.permission_policy = Some(policy);
    }
    if let Some(preset) = &patch.preset {
        meta.preset.clone_from(preset);
    }
}

#[cfg(test)]
#[path = "thread_list_tests.rs"]
mod tests;
