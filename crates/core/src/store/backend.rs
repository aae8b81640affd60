//! The storage contract: the [`Store`] trait (reads plus atomic units of work), the writes a unit
//! holds, and the integrity rules every backend shares.

use std::future::Future;

use panelot_protocol::AttachmentId;
use panelot_protocol::NodeId;
use panelot_protocol::RunId;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::ThreadMeta;

use super::records::AttachmentRecord;
use super::records::NodeLink;
use super::records::NodeRecord;
use super::records::Receipt;
use super::records::ReceiptKey;
use super::runs::RunRecord;

/// Why a store operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// A write would break an invariant; nothing was written.
    #[error("integrity violation: {0}")]
    Integrity(String),
    /// Stored data could not be read back (corrupt or from an unknown schema).
    #[error("corrupt record: {0}")]
    Corrupt(String),
    /// The backend failed (I/O, quota, a closed database).
    #[error("storage backend failed: {0}")]
    Backend(String),
}

impl From<crate::env::BadId> for StoreError {
    fn from(err: crate::env::BadId) -> Self {
        StoreError::Corrupt(err.to_string())
    }
}

/// One atomic write: either every operation applies or none does.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UnitOfWork {
    /// Operations, applied in order.
    pub ops: Vec<WriteOp>,
}

impl UnitOfWork {
    /// An empty unit.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an operation.
    pub fn push(&mut self, op: WriteOp) -> &mut Self {
        self.ops.push(op);
        self
    }
}

/// One write of a unit of work.
#[derive(Debug, Clone, PartialEq)]
pub enum WriteOp {
    /// Creates or replaces a thread's metadata.
    PutThread(ThreadMeta),
    /// Appends a node. Its parent must exist in the same thread (stored, or appended earlier in
    /// the same unit), its id must be new and its `seq` higher than every other of the thread.
    AppendNode(NodeRecord),
    /// Deletes a thread and everything in it (nodes, runs and attachments; receipts stay: they
    /// answer replays).
    DeleteThread(ThreadId),
    /// Stores a file attached to a thread. The thread must exist and the id must be new.
    PutAttachment(Box<AttachmentRecord>),
    /// Creates or replaces a command receipt.
    PutReceipt(Receipt),
    /// Deletes receipts that expired at or before this time (ms since the Unix epoch).
    PruneReceipts {
        /// Expiry cut-off.
        now_ms: u64,
    },
    /// Creates or replaces a run.
    PutRun(Box<RunRecord>),
    /// Deletes a run (a queued message removed before it started).
    DeleteRun(RunId),
    /// Creates or replaces a setting.
    PutSetting {
        /// Setting key.
        key: String,
        /// JSON value.
        value: serde_json::Value,
    },
}

/// Durable state of the engine. Futures are `!Send` by design: the engine runs on one thread,
/// including in wasm.
pub trait Store {
    /// A thread's metadata.
    fn thread(&self, id: &ThreadId)
    -> impl Future<Output = Result<Option<ThreadMeta>, StoreError>>;

    /// Every thread's metadata, most recently updated first.
    fn threads(&self) -> impl Future<Output = Result<Vec<ThreadMeta>, StoreError>>;

    /// The shape of a thread's tree: every node's id, parent and seq, ordered by seq. One range
    /// read over an index, whatever the size of the thread.
    fn tree_links(
        &self,
        thread: &ThreadId,
    ) -> impl Future<Output = Result<Vec<NodeLink>, StoreError>>;

    /// Full records of some nodes of a thread, in the order of `ids`; missing ids are skipped.
    /// One batched read.
    fn nodes(
        &self,
        thread: &ThreadId,
        ids: &[NodeId],
    ) -> impl Future<Output = Result<Vec<NodeRecord>, StoreError>>;

    /// Full records of a thread's nodes whose seq is in `from..=to`, in seq order. One range read;
    /// the cheap way to fetch a path, which in an append-only tree is mostly dense in seq order.
    fn node_range(
        &self,
        thread: &ThreadId,
        from: u64,
        to: u64,
    ) -> impl Future<Output = Result<Vec<NodeRecord>, StoreError>>;

    /// An attachment of a thread, with its bytes; `None` when that thread has no such
    /// attachment (another thread's is not this thread's).
    fn attachment(
        &self,
        thread: &ThreadId,
        id: &AttachmentId,
    ) -> impl Future<Output = Result<Option<AttachmentRecord>, StoreError>>;

    /// The thread that stores attachment `id`, if any: an id names one file of one thread, so
    /// a command may be told that another thread has it (reading the bytes is `attachment`'s).
    fn attachment_thread(
        &self,
        id: &AttachmentId,
    ) -> impl Future<Output = Result<Option<ThreadId>, StoreError>>;

    /// A command receipt by its key.
    fn receipt(
        &self,
        key: &ReceiptKey,
    ) -> impl Future<Output = Result<Option<Receipt>, StoreError>>;

    /// Every run that is not terminal, in admission order (`seq`): what recovery starts from.
    fn open_runs(&self) -> impl Future<Output = Result<Vec<RunRecord>, StoreError>>;

    /// A setting.
    fn setting(
        &self,
        key: &str,
    ) -> impl Future<Output = Result<Option<serde_json::Value>, StoreError>>;

    /// Applies a unit of work atomically.
    fn commit(&self, unit: UnitOfWork) -> impl Future<Output = Result<(), StoreError>>;
}

/// Forwards every method of [`Store`] to the store behind a pointer.
macro_rules! forward_store {
    ($($ptr:ty),*) => {$(
        impl<S: Store> Store for $ptr {
            async fn thread(&self, id: &ThreadId) -> Result<Option<ThreadMeta>, StoreError> {
                (**self).thread(id).await
            }
            async fn threads(&self) -> Result<Vec<ThreadMeta>, StoreError> {
                (**self).threads().await
            }
            async fn tree_links(&self, thread: &ThreadId) -> Result<Vec<NodeLink>, StoreError> {
                (**self).tree_links(thread).await
            }
            async fn nodes(
                &self,
                thread: &ThreadId,
                ids: &[NodeId],
            ) -> Result<Vec<NodeRecord>, StoreError> {
                (**self).nodes(thread, ids).await
            }
            async fn node_range(
                &self,
                thread: &ThreadId,
                from: u64,
                to: u64,
            ) -> Result<Vec<NodeRecord>, StoreError> {
                (**self).node_range(thread, from, to).await
            }
            async fn attachment(
                &self,
                thread: &ThreadId,
                id: &AttachmentId,
            ) -> Result<Option<AttachmentRecord>, StoreError> {
                (**self).attachment(thread, id).await
            }
            async fn attachment_thread(
                &self,
                id: &AttachmentId,
            ) -> Result<Option<ThreadId>, StoreError> {
                (**self).attachment_thread(id).await
            }
            async fn receipt(&self, key: &ReceiptKey) -> Result<Option<Receipt>, StoreError> {
                (**self).receipt(key).await
            }
            async fn open_runs(&self) -> Result<Vec<RunRecord>, StoreError> {
                (**self).open_runs().await
            }
            async fn setting(&self, key: &str) -> Result<Option<serde_json::Value>, StoreError> {
                (**self).setting(key).await
            }
            async fn commit(&self, unit: UnitOfWork) -> Result<(), StoreError> {
                (**self).commit(unit).await
            }
        }
    )*};
}

// A shared store is a store (the simulation keeps one across engine restarts), and so is a
// borrowed one (benchmarks put a cache in front of a store they keep using).
forward_store!(std::rc::Rc<S>, &S);

/// The order of [`Store::threads`]: most recently updated first, ties by id. Backends that
/// cannot sort in the query sort with this.
pub fn sort_recent_first(threads: &mut [ThreadMeta]) {
    threads.sort_by(|a, b| b.updated_at_ms.cmp(&a.updated_at_ms).then_with(|| a.id.cmp(&b.id)));
}

/// The integrity rules of [`WriteOp::PutAttachment`], shared by every backend: its thread
/// exists and its id is new (an id is never reused, not even by the thread that had it).
pub fn check_attachment(
    attachment: &AttachmentRecord,
    thread_exists: bool,
    id_taken: bool,
) -> Result<(), StoreError> {
    if !thread_exists {
        return Err(StoreError::Integrity(format!(
            "attachment {} names unknown thread {}",
            attachment.id, attachment.thread_id
        )));
    }
    if id_taken {
        return Err(StoreError::Integrity(format!(
            "attachment id {} already exists",
            attachment.id
        )));
    }
    Ok(())
}

/// The integrity rules of [`WriteOp::AppendNode`], shared by every backend so they cannot drift:
/// the thread exists, the id is new, the parent (if any) lives in the same thread, and the seq is
/// higher than the thread's highest.
pub fn check_append(
    node: &NodeRecord,
    thread_exists: bool,
    id_taken: bool,
    parent_thread: Option<&ThreadId>,
    max_seq: Option<u64>,
) -> Result<(), StoreError> {
    if !thread_exists {
        return Err(StoreError::Integrity(format!(
            "node {} names unknown thread {}",
            node.id, node.thread_id
        )));
    }
    if id_taken {
        return Err(StoreError::Integrity(format!("node id {} already exists", node.id)));
    }
    if let Some(parent) = &node.parent_id
        && parent_thread != Some(&node.thread_id)
    {
        return Err(StoreError::Integrity(format!(
            "parent {parent} of node {} is not in thread {}",
            node.id, node.thread_id
        )));
    }
    if let Some(max) = max_seq
        && node.seq <= max
    {
        return Err(StoreError::Integrity(format!(
            "node {} has seq {}, not above the thread's {max}",
            node.id, node.seq
        )));
    }
    Ok(())
}
