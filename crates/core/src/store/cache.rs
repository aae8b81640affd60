//! A read cache of thread shapes and node records in front of any [`Store`].
//!
//! Nodes are append-only, so a cached record never goes stale: the cache learns appends from the
//! units it commits and forgets a thread when the thread is deleted. Reopening a thread, switching
//! its branch or building a model call's context then decodes nothing it has decoded before. A
//! few recently used threads are kept; everything else passes through.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::collections::VecDeque;

use panelot_protocol::AttachmentId;
use panelot_protocol::NodeId;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::ThreadMeta;

use super::backend::Store;
use super::backend::StoreError;
use super::backend::UnitOfWork;
use super::backend::WriteOp;
use super::records::AttachmentRecord;
use super::records::NodeLink;
use super::records::NodeRecord;
use super::records::Receipt;
use super::records::ReceiptKey;
use super::runs::RunRecord;

/// Threads whose records are kept.
const THREADS_KEPT: usize = 4;

#[derive(Debug, Default)]
struct ThreadCache {
    links: Vec<NodeLink>,
    seq_of: BTreeMap<NodeId, u64>,
    records: BTreeMap<u64, NodeRecord>,
}

impl ThreadCache {
    fn new(links: Vec<NodeLink>) -> ThreadCache {
        // Filled by `insert` (compiled anyway for appends) rather than `collect`, which would
        // compile a stable sort of the pairs only for this.
        let mut seq_of = BTreeMap::new();
        for link in &links {
            seq_of.insert(link.id.clone(), link.seq);
        }
        ThreadCache { links, seq_of, records: BTreeMap::new() }
    }

    /// The records of `from..=to` when every node there is cached.
    fn range(&self, from: u64, to: u64) -> Option<Vec<NodeRecord>> {
        if from > to {
            return Some(Vec::new());
        }
        let wanted = self.links.iter().filter(|l| (from..=to).contains(&l.seq));
        wanted.map(|l| self.records.get(&l.seq).cloned()).collect()
    }

    fn append(&mut self, node: NodeRecord) {
        self.seq_of.insert(node.id.clone(), node.seq);
        self.links.push(node.link());
        self.records.insert(node.seq, node);
    }
}

/// A store with a read cache of node records.
#[derive(Debug)]
pub struct CachedStore<S> {
    inner: S,
    threads: RefCell<VecDeque<(ThreadId, ThreadCache)>>,
}

impl<S: Store> CachedStore<S> {
    /// Caches reads of `inner`.
    pub fn new(inner: S) -> CachedStore<S> {
        CachedStore { inner, threads: RefCell::new(VecDeque::new()) }
    }

    /// The store underneath.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    fn with_thread<R>(
        &self,
        thread: &ThreadId,
        f: impl FnOnce(&mut ThreadCache) -> R,
    ) -> Option<R> {
        let mut threads = self.threads.borrow_mut();
        let at = threads.iter().position(|(id, _)| id == thread)?;
        // Most recently used first.
        let entry = threads.remove(at)?;
        threads.push_front(entry);
        threads.front_mut().map(|(_, cache)| f(cache))
    }

    fn remember(&self, thread: &ThreadId, cache: ThreadCache) {
        let mut threads = self.threads.borrow_mut();
        threads.retain(|(id, _)| id != thread);
        threads.push_front((thread.clone(), cache));
        threads.truncate(THREADS_KEPT);
    }

    fn forget(&self, thread: &ThreadId) {
        self.threads.borrow_mut().retain(|(id, _)| id != thread);
    }
}

impl<S: Store> Store for CachedStore<S> {
    async fn thread(&self, id: &ThreadId) -> Result<Option<ThreadMeta>, StoreError> {
        self.inner.thread(id).await
    }

    async fn threads(&self) -> Result<Vec<ThreadMeta>, StoreError> {
        self.inner.threads().await
    }

    async fn tree_links(&self, thread: &ThreadId) -> Result<Vec<NodeLink>, StoreError> {
        if let Some(links) = self.with_thread(thread, |cache| cache.links.clone()) {
            return Ok(links);
        }
        let links = self.inner.tree_links(thread).await?;
        self.remember(thread, ThreadCache::new(links.clone()));
        Ok(links)
    }

    async fn nodes(
        &self,
        thread: &ThreadId,
        ids: &[NodeId],
    ) -> Result<Vec<NodeRecord>, StoreError> {
        // Ids not in the thread are skipped (as the trait says); known ids must all be cached.
        let cached: Option<Option<Vec<NodeRecord>>> = self.with_thread(thread, |cache| {
            ids.iter()
                .filter_map(|id| cache.seq_of.get(id))
                .map(|seq| cache.records.get(seq).cloned())
                .collect()
        });
        if let Some(Some(records)) = cached {
            return Ok(records);
        }
        let records = self.inner.nodes(thread, ids).await?;
        self.with_thread(thread, |cache| {
            for record in &records {
                cache.records.insert(record.seq, record.clone());
            }
        });
        Ok(records)
    }

    async fn node_range(
        &self,
        thread: &ThreadId,
        from: u64,
        to: u64,
    ) -> Result<Vec<NodeRecord>, StoreError> {
        if let Some(Some(records)) = self.with_thread(thread, |cache| cache.range(from, to)) {
            return Ok(records);
        }
        let records = self.inner.node_range(thread, from, to).await?;
        self.with_thread(thread, |cache| {
            for record in &records {
                cache.records.insert(record.seq, record.clone());
            }
        });
        Ok(records)
    }

    async fn attachment(
        &self,
        thread: &ThreadId,
        id: &AttachmentId,
    ) -> Result<Option<AttachmentRecord>, StoreError> {
        // Not cached: read only when a message is admitted or a file is uploaded.
        self.inner.attachment(thread, id).await
    }

    async fn attachment_thread(&self, id: &AttachmentId) -> Result<Option<ThreadId>, StoreError> {
        self.inner.attachment_thread(id).await
    }

    async fn receipt(&self, key: &ReceiptKey) -> Result<Option<Receipt>, StoreError> {
        self.inner.receipt(key).await
    }

    async fn open_runs(&self) -> Result<Vec<RunRecord>, StoreError> {
        self.inner.open_runs().await
    }

    async fn setting(&self, key: &str) -> Result<Option<serde_json::Value>, StoreError> {
        self.inner.setting(key).await
    }

    async fn commit(&self, unit: UnitOfWork) -> Result<(), StoreError> {
        let changes: Vec<WriteOp> = unit
            .ops
            .iter()
            .filter(|op| matches!(op, WriteOp::AppendNode(_) | WriteOp::DeleteThread(_)))
            .cloned()
            .collect();
        if let Err(err) = self.inner.commit(unit).await {
            // What the failed unit touched may be half known; start those threads afresh.
            for change in &changes {
                match change {
                    WriteOp::AppendNode(node) => self.forget(&node.thread_id),
                    WriteOp::DeleteThread(thread) => self.forget(thread),
                    _ => {}
                }
            }
            return Err(err);
        }
        for change in changes {
            match change {
                WriteOp::AppendNode(node) => {
                    let thread = node.thread_id.clone();
                    self.with_thread(&thread, |cache| cache.append(node));
                }
                WriteOp::DeleteThread(thread) => self.forget(&thread),
                _ => {}
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemoryStore;
    use crate::store::conformance::block_on;
    use crate::store::conformance::meta;
    use crate::store::conformance::run_all;
    use crate::store::conformance::text_node;
    use crate::store::conformance::thread_id;

    #[test]
    fn a_cached_store_passes_the_conformance_suite() {
        run_all(|| CachedStore::new(MemoryStore::new()));
    }

    #[test]
    fn reads_after_the_first_come_from_the_cache_and_appends_are_seen() {
        let store = CachedStore::new(MemoryStore::new());
        let t = thread_id("a");
        let mut unit = UnitOfWork::new();
        unit.push(WriteOp::PutThread(meta("a", 1)));
        for n in 1..=3 {
            unit.push(WriteOp::AppendNode(text_node("a", n, (n > 1).then(|| n - 1))));
        }
        block_on(store.commit(unit)).unwrap();
        assert_eq!(block_on(store.tree_links(&t)).unwrap().len(), 3);
        assert_eq!(block_on(store.node_range(&t, 1, 3)).unwrap().len(), 3);
        // Behind the cache's back the records change; the cache still answers (records never
        // change in a real store: this proves the read was not repeated).
        let mut unit = UnitOfWork::new();
        unit.push(WriteOp::DeleteThread(t.clone()));
        block_on(store.inner().commit(unit)).unwrap();
        assert_eq!(block_on(store.node_range(&t, 1, 3)).unwrap().len(), 3);
        // An append through the cache is seen at once.
        let mut unit = UnitOfWork::new();
        unit.push(WriteOp::PutThread(meta("a", 2)));
        block_on(store.inner().commit(unit)).unwrap();
        let mut unit = UnitOfWork::new();
        unit.push(WriteOp::AppendNode(text_node("a", 1, None)));
        assert!(block_on(store.commit(unit)).is_ok());
        assert_eq!(block_on(store.tree_links(&t)).unwrap().len(), 4);
    }
}
