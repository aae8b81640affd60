//! A thread's stored metadata.

use panelot_protocol::FolderId;
use panelot_protocol::NodeId;
use panelot_protocol::PresetId;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::ThreadMeta;
use panelot_protocol::engine::ThreadStats;
use serde::Deserialize;
use serde::Serialize;

use super::codes::StoredPolicy;
use super::version::V1;
use crate::store::format::error::FormatError;
use crate::store::format::error::id;

/// A thread's stored metadata.
#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct StoredThread {
    v: V1,
    id: String,
    title: String,
    created_at_ms: u64,
    updated_at_ms: u64,
    leaf_id: Option<String>,
    revision: u64,
    stats: StoredThreadStats,
    scope_origins: Vec<String>,
    preset: Option<String>,
    parent_thread_id: Option<String>,
    folder_id: Option<String>,
    tags: Vec<String>,
    pinned: bool,
    archived: bool,
    permission_policy: Option<StoredPolicy>,
}

#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct StoredThreadStats {
    turns: u64,
    total_tokens: u64,
    cost_usd: f64,
}

impl From<&ThreadMeta> for StoredThread {
    fn from(meta: &ThreadMeta) -> Self {
        StoredThread {
            v: V1,
            id: meta.id.to_string(),
            title: meta.title.clone(),
            created_at_ms: meta.created_at_ms,
            updated_at_ms: meta.updated_at_ms,
            leaf_id: meta.leaf_id.as_ref().map(ToString::to_string),
            revision: meta.revision,
            stats: StoredThreadStats {
                turns: meta.stats.turns,
                total_tokens: meta.stats.total_tokens,
                cost_usd: meta.stats.cost_usd,
            },
            scope_origins: meta.scope_origins.clone(),
            preset: meta.preset.as_ref().map(ToString::to_string),
            parent_thread_id: meta.parent_thread_id.as_ref().map(ToString::to_string),
            folder_id: meta.folder_id.as_ref().map(ToString::to_string),
            tags: meta.tags.clone(),
            pinned: meta.pinned,
            archived: meta.archived,
            permission_policy: meta.permission_policy.map(Into::into),
        }
    }
}

impl TryFrom<StoredThread> for ThreadMeta {
    type Error = FormatError;

    fn try_from(meta: StoredThread) -> Result<Self, FormatError> {
        Ok(ThreadMeta {
            id: id("id", meta.id, ThreadId::new)?,
            title: meta.title,
            created_at_ms: meta.created_at_ms,
            updated_at_ms: meta.updated_at_ms,
            leaf_id: meta.leaf_id.map(|raw| id("leafId", raw, NodeId::new)).transpose()?,
            revision: meta.revision,
            stats: ThreadStats {
                turns: meta.stats.turns,
                total_tokens: meta.stats.total_tokens,
                cost_usd: meta.stats.cost_usd,
            },
            scope_origins: meta.scope_origins,
            preset: meta.preset.map(|raw| id("preset", raw, PresetId::new)).transpose()?,
            parent_thread_id: meta
                .parent_thread_id
                .map(|raw| id("parentThreadId", raw, ThreadId::new))
                .transpose()?,
            folder_id: meta.folder_id.map(|raw| id("folderId", raw, FolderId::new)).transpose()?,
            tags: meta.tags,
            pinned: meta.pinned,
            archived: meta.archived,
            permission_policy: meta.permission_policy.map(Into::into),
        })
    }
}
