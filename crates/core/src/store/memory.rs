//! An in-memory [`Store`], for tests and the simulation harness. A unit of work is validated
//! against a copy of the state and swapped in whole, so it is atomic like a real transaction.

use std::cell::RefCell;
use std::collections::BTreeMap;

use panelot_protocol::AttachmentId;
use panelot_protocol::NodeId;
use panelot_protocol::RunId;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::ThreadMeta;

use super::backend::Store;
use super::backend::StoreError;
use super::backend::UnitOfWork;
use super::backend::WriteOp;
use super::backend::sort_recent_first;
use super::records::AttachmentRecord;
use super::records::NodeLink;
use super::records::NodeRecord;
use super::records::Receipt;
use super::records::ReceiptKey;
use super::runs::RunRecord;
use crate::sort::sort_by_u64_key;

/// The whole state; cloned per unit of work.
#[derive(Debug, Clone, Default)]
struct State {
    threads: BTreeMap<ThreadId, ThreadMeta>,
    /// Per thread, nodes by seq.
    nodes: BTreeMap<ThreadId, BTreeMap<u64, NodeRecord>>,
    /// Node id → (thread, seq), for lookups and the uniqueness check.
    node_index: BTreeMap<NodeId, (ThreadId, u64)>,
    receipts: BTreeMap<ReceiptKey, Receipt>,
    settings: BTreeMap<String, serde_json::Value>,
    runs: BTreeMap<RunId, RunRecord>,
    attachments: BTreeMap<AttachmentId, AttachmentRecord>,
}

/// An in-memory store.
#[derive(Debug, Default)]
pub struct MemoryStore {
    state: RefCell<State>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every run, terminal ones included (for tests and the simulation's invariants).
    pub fn all_runs(&self) -> Vec<RunRecord> {
        self.state.borrow().runs.values().cloned().collect()
    }

    /// A run by id, terminal or not.
    pub fn run(&self, id: &RunId) -> Option<RunRecord> {
        self.state.borrow().runs.get(id).cloned()
    }

    /// Every receipt (for the simulation's invariants).
    pub fn all_receipts(&self) -> Vec<Receipt> {
        self.state.borrow().receipts.values().cloned().collect()
    }
}

impl Store for MemoryStore {
    async fn thread(&self, id: &ThreadId) -> Result<Option<ThreadMeta>, StoreError> {
        Ok(self.state.borrow().threads.get(id).cloned())
    }

    async fn threads(&self) -> Result<Vec<ThreadMeta>, StoreError> {
        let mut threads: Vec<ThreadMeta> = self.state.borrow().threads.values().cloned().collect();
        sort_recent_first(&mut threads);
        Ok(threads)
    }

    async fn tree_links(&self, thread: &ThreadId) -> Result<Vec<NodeLink>, StoreError> {
        let state = self.state.borrow();
        Ok(state
            .nodes
            .get(thread)
            .map(|n| n.values().map(NodeRecord::link).collect())
            .unwrap_or_default())
    }

    async fn nodes(
        &self,
        thread: &ThreadId,
        ids: &[NodeId],
    ) -> Result<Vec<NodeRecord>, StoreError> {
        let state = self.state.borrow();
        Ok(ids
            .iter()
            .filter_map(|id| {
                let (owner, seq) = state.node_index.get(id)?;
                if owner != thread {
                    return None;
                }
                state.nodes.get(owner)?.get(seq).cloned()
            })
            .collect())
    }

    async fn node_range(
        &self,
        thread: &ThreadId,
        from: u64,
        to: u64,
    ) -> Result<Vec<NodeRecord>, StoreError> {
        let state = self.state.borrow();
        let Some(nodes) = state.nodes.get(thread) else {
            return Ok(Vec::new());
        };
        Ok(if from > to {
            Vec::new()
        } else {
            nodes.range(from..=to).map(|(_, n)| n.clone()).collect()
        })
    }

    async fn attachment(
        &self,
        thread: &ThreadId,
        id: &AttachmentId,
    ) -> Result<Option<AttachmentRecord>, StoreError> {
        let state = self.state.borrow();
        Ok(state.attachments.get(id).filter(|a| &a.thread_id == thread).cloned())
    }

    async fn attachment_thread(&self, id: &AttachmentId) -> Result<Option<ThreadId>, StoreError> {
        Ok(self.state.borrow().attachments.get(id).map(|a| a.thread_id.clone()))
    }

    async fn receipt(&self, key: &ReceiptKey) -> Result<Option<Receipt>, StoreError> {
        Ok(self.state.borrow().receipts.get(key).cloned())
    }

    async fn open_runs(&self) -> Result<Vec<RunRecord>, StoreError> {
        let mut runs: Vec<RunRecord> =
            self.state.borrow().runs.values().filter(|r| !r.is_terminal()).cloned().collect();
        sort_by_u64_key(&mut runs, |r| r.seq);
        Ok(runs)
    }

    async fn setting(&self, key: &str) -> Result<Option<serde_json::Value>, StoreError> {
        Ok(self.state.borrow().settings.get(key).cloned())
    }

    async fn commit(&self, unit: UnitOfWork) -> Result<(), StoreError> {
        let mut next = self.state.borrow().clone();
        for op in unit.ops {
            apply(&mut next, op)?;
        }
        *self.state.borrow_mut() = next;
        Ok(())
    }
}

fn apply(state: &mut State, op: WriteOp) -> Result<(), StoreError> {
    match op {
        WriteOp::PutThread(meta) => {
            state.threads.insert(meta.id.clone(), meta);
        }
        WriteOp::AppendNode(node) => append_node(state, node)?,
        WriteOp::DeleteThread(thread) => {
            state.threads.remove(&thread);
            state.runs.retain(|_, run| run.thread_id != thread);
            state.attachments.retain(|_, attachment| attachment.thread_id != thread);
            if let Some(nodes) = state.nodes.remove(&thread) {
                for node in nodes.values() {
                    state.node_index.remove(&node.id);
                }
            }
        }
        WriteOp::PutAttachment(attachment) => {
            super::backend::check_attachment(
                &attachment,
                state.threads.contains_key(&attachment.thread_id),
                state.attachments.contains_key(&attachment.id),
            )?;
            state.attachments.insert(attachment.id.clone(), *attachment);
        }
        WriteOp::PutReceipt(receipt) => {
            state.receipts.insert(receipt.key.clone(), receipt);
        }
        WriteOp::PruneReceipts { now_ms } => state.receipts.retain(|_, r| r.expires_at_ms > now_ms),
        WriteOp::PutRun(run) => {
            if !state.threads.contains_key(&run.thread_id) {
                return Err(StoreError::Integrity(format!(
                    "run {} names unknown thread {}",
                    run.id, run.thread_id
                )));
            }
            state.runs.insert(run.id.clone(), *run);
        }
        WriteOp::DeleteRun(run) => {
            state.runs.remove(&run);
        }
        WriteOp::PutSetting { key, value } => {
            state.settings.insert(key, value);
        }
    }
    Ok(())
}

fn append_node(state: &mut State, node: NodeRecord) -> Result<(), StoreError> {
    super::backend::check_append(
        &node,
        state.threads.contains_key(&node.thread_id),
        state.node_index.contains_key(&node.id),
        node.parent_id.as_ref().and_then(|p| state.node_index.get(p)).map(|(t, _)| t),
        state.nodes.get(&node.thread_id).and_then(|n| n.keys().next_back().copied()),
    )?;
    state.node_index.insert(node.id.clone(), (node.thread_id.clone(), node.seq));
    state.nodes.entry(node.thread_id.clone()).or_default().insert(node.seq, node);
    Ok(())
}
