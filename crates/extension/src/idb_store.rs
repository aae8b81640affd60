//! The engine's [`Store`] on IndexedDB, in the service worker.
//!
//! Object stores: `threads` (metadata JSON), `trees` (per thread, all its links packed in one
//! record: reading a thread's shape is one `get`; as rows, 1,000 links cost ~20 ms to read),
//! `nodes` (`[threadId, seq]` → the record JSON, with a unique `byId` index), `receipts`
//! (`[clientId, submissionId]`, indexed by expiry), `settings`, `runs` and `attachments` (the
//! files users attached, by id, indexed by thread). A thread's shape is one read
//! and a path one `getAll` over a key range, whatever the thread's size: the reference
//! implementation issued about 4,000 requests to open a 1,000-node thread.
//!
//! Thread metas, nodes, runs and receipts are JSON text in the store's versioned format
//! (`panelot_core::store::encode_run` and its siblings); records written before the format had
//! versions are migrated as they are read, so the object stores never change with the format.
//!
//! A unit of work is one `readwrite` transaction over every store: the integrity checks read
//! inside it (seeing its own earlier writes) and any failure aborts it, so nothing is written.

mod requests;

use js_sys::Array;
use panelot_core::sorted_map::SortedMap;
use panelot_core::store::AttachmentRecord;
use panelot_core::store::NodeLink;
use panelot_core::store::NodeRecord;
use panelot_core::store::Receipt;
use panelot_core::store::ReceiptKey;
use panelot_core::store::RunRecord;
use panelot_core::store::Store;
use panelot_core::store::StoreError;
use panelot_core::store::UnitOfWork;
use panelot_core::store::WriteOp;
use panelot_core::store::check_append;
use panelot_core::store::check_attachment;
use panelot_core::store::decode_attachment;
use panelot_core::store::decode_node;
use panelot_core::store::decode_receipt;
use panelot_core::store::decode_run;
use panelot_core::store::decode_thread;
use panelot_core::store::encode_attachment;
use panelot_core::store::encode_node;
use panelot_core::store::encode_receipt;
use panelot_core::store::encode_run;
use panelot_core::store::encode_thread;
use panelot_core::store::sort_recent_first;
use panelot_protocol::AttachmentId;
use panelot_protocol::NodeId;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::ThreadMeta;
use requests::*;
use wasm_bindgen::JsValue;
use web_sys::IdbDatabase;
use web_sys::IdbKeyRange;
use web_sys::IdbObjectStore;
use web_sys::IdbTransaction;
use web_sys::IdbTransactionMode;

/// A store in one IndexedDB database.
#[derive(Debug)]
pub struct IdbStore {
    db: IdbDatabase,
}

fn corrupt(err: serde_json::Error) -> StoreError {
    StoreError::Corrupt(err.to_string())
}

fn store_of(tx: &IdbTransaction, name: &str) -> Result<IdbObjectStore, StoreError> {
    tx.object_store(name).map_err(|e| js_err("opening an object store", e))
}

fn array_items(value: JsValue) -> Vec<JsValue> {
    Array::from(&value).iter().collect()
}

fn parse_node_id(raw: String) -> Result<NodeId, StoreError> {
    NodeId::new(raw).map_err(|e| StoreError::Corrupt(e.to_string()))
}

/// Deletes a database (test isolation, data reset).
pub async fn delete_database(name: &str) -> Result<(), StoreError> {
    delete(name).await
}

impl IdbStore {
    /// Opens (or creates) the database `name`.
    pub async fn open(name: &str) -> Result<Self, StoreError> {
        Ok(IdbStore { db: open(name).await? })
    }

    /// Closes the connection (so the database can be deleted).
    pub fn close(&self) {
        self.db.close();
    }

    fn read(&self, stores: &[&str]) -> Result<IdbTransaction, StoreError> {
        self.tx(stores, IdbTransactionMode::Readonly)
    }

    fn tx(&self, stores: &[&str], mode: IdbTransactionMode) -> Result<IdbTransaction, StoreError> {
        let names: Array = stores.iter().map(|s| JsValue::from(*s)).collect();
        self.db
            .transaction_with_str_sequence_and_mode(&names, mode)
            .map_err(|e| js_err("starting a transaction", e))
    }

    async fn get(&self, store: &str, key: &JsValue) -> Result<JsValue, StoreError> {
        let tx = self.read(&[store])?;
        done(store_of(&tx, store)?.get(key).map_err(|e| js_err("get", e))?).await
    }

    async fn get_range(
        &self,
        store: &str,
        range: &IdbKeyRange,
    ) -> Result<Vec<JsValue>, StoreError> {
        let tx = self.read(&[store])?;
        let request =
            store_of(&tx, store)?.get_all_with_key(range).map_err(|e| js_err("getAll", e))?;
        Ok(array_items(done(request).await?))
    }
}

impl Store for IdbStore {
    async fn thread(&self, id: &ThreadId) -> Result<Option<ThreadMeta>, StoreError> {
        let value = self.get(THREADS, &id.as_str().into()).await?;
        if value.is_undefined() {
            return Ok(None);
        }
        decode_thread(&text_field(&value, "meta")?).map(Some)
    }

    async fn threads(&self) -> Result<Vec<ThreadMeta>, StoreError> {
        let tx = self.read(&[THREADS])?;
        let all = done(store_of(&tx, THREADS)?.get_all().map_err(|e| js_err("getAll", e))?).await?;
        let mut threads: Vec<ThreadMeta> = array_items(all)
            .iter()
            .map(|v| decode_thread(&text_field(v, "meta")?))
            .collect::<Result<_, _>>()?;
        sort_recent_first(&mut threads);
        Ok(threads)
    }

    async fn tree_links(&self, thread: &ThreadId) -> Result<Vec<NodeLink>, StoreError> {
        let row = self.get(TREES, &thread.as_str().into()).await?;
        if row.is_undefined() {
            return Ok(Vec::new());
        }
        PackedLinks::decode(&text_field(&row, "links")?)?.into_links()
    }

    async fn nodes(
        &self,
        thread: &ThreadId,
        ids: &[NodeId],
    ) -> Result<Vec<NodeRecord>, StoreError> {
        let tx = self.read(&[NODES])?;
        let index = store_of(&tx, NODES)?.index(NODES_BY_ID).map_err(|e| js_err("index", e))?;
        // Issue every request before awaiting any: one round of the event loop for all of them.
        let pending: Vec<_> = ids
            .iter()
            .map(|id| index.get(&id.as_str().into()).map_err(|e| js_err("get", e)))
            .collect::<Result<_, _>>()?;
        let mut records = Vec::with_capacity(ids.len());
        for request in pending {
            let row = done(request).await?;
            if row.is_undefined() {
                continue;
            }
            let record = decode_node(&text_field(&row, "record")?)?;
            if &record.thread_id == thread {
                records.push(record);
            }
        }
        Ok(records)
    }

    async fn node_range(
        &self,
        thread: &ThreadId,
        from: u64,
        to: u64,
    ) -> Result<Vec<NodeRecord>, StoreError> {
        if from > to {
            return Ok(Vec::new());
        }
        let rows =
            self.get_range(NODES, &seq_range(thread.as_str(), from as f64, to as f64)?).await?;
        rows.iter().map(|row| decode_node(&text_field(row, "record")?)).collect()
    }

    async fn attachment(
        &self,
        thread: &ThreadId,
        id: &AttachmentId,
    ) -> Result<Option<AttachmentRecord>, StoreError> {
        let row = self.get(ATTACHMENTS, &id.as_str().into()).await?;
        if row.is_undefined() || text_field(&row, "threadId")? != thread.as_str() {
            return Ok(None);
        }
        decode_attachment(&text_field(&row, "record")?).map(Some)
    }

    async fn attachment_thread(&self, id: &AttachmentId) -> Result<Option<ThreadId>, StoreError> {
        let row = self.get(ATTACHMENTS, &id.as_str().into()).await?;
        if row.is_undefined() {
            return Ok(None);
        }
        let thread = ThreadId::new(text_field(&row, "threadId")?);
        thread.map(Some).map_err(|e| StoreError::Corrupt(e.to_string()))
    }

    async fn receipt(&self, key: &ReceiptKey) -> Result<Option<Receipt>, StoreError> {
        let id: JsValue =
            Array::of2(&key.client_id.as_str().into(), &key.submission_id.as_str().into()).into();
        let value = self.get(RECEIPTS, &id).await?;
        if value.is_undefined() {
            return Ok(None);
        }
        decode_receipt(&text_field(&value, "record")?).map(Some)
    }

    async fn open_runs(&self) -> Result<Vec<RunRecord>, StoreError> {
        let tx = self.read(&[RUNS])?;
        let index = store_of(&tx, RUNS)?.index(RUNS_OPEN).map_err(|e| js_err("index", e))?;
        let rows = done(index.get_all().map_err(|e| js_err("getAll", e))?).await?;
        array_items(rows).iter().map(|row| decode_run(&text_field(row, "record")?)).collect()
    }

    async fn setting(&self, key: &str) -> Result<Option<serde_json::Value>, StoreError> {
        let value = self.get(SETTINGS, &key.into()).await?;
        if value.is_undefined() {
            return Ok(None);
        }
        serde_json::from_str(&text_field(&value, "value")?).map(Some).map_err(corrupt)
    }

    async fn commit(&self, unit: UnitOfWork) -> Result<(), StoreError> {
        let tx = self.tx(&ALL_STORES, IdbTransactionMode::Readwrite)?;
        let finished = finished(&tx);
        let mut trees = TreeCache::default();
        let mut result = Ok(());
        for op in unit.ops {
            result = apply(&tx, &mut trees, op).await;
            if result.is_err() {
                break;
            }
        }
        if result.is_ok() {
            result = trees.flush(&tx).await;
        }
        if let Err(err) = result {
            // Nothing of the unit may stick.
            let _ = tx.abort();
            let _ = finished.await;
            return Err(err);
        }
        finished.await.map(|_| ()).map_err(|e| js_err("committing", e))
    }
}

async fn apply(tx: &IdbTransaction, trees: &mut TreeCache, op: WriteOp) -> Result<(), StoreError> {
    let put = |store: &str, value: JsValue| -> Result<web_sys::IdbRequest, StoreError> {
        store_of(tx, store)?.put(&value).map_err(|e| js_err("put", e))
    };
    match op {
        WriteOp::PutThread(meta) => {
            let row = object(&[
                ("id", meta.id.as_str().into()),
                ("updatedAtMs", (meta.updated_at_ms as f64).into()),
                ("meta", encode_thread(&meta)?.into()),
            ])?;
            done(put(THREADS, row)?).await?;
        }
        WriteOp::AppendNode(node) => append_node(tx, trees, &node).await?,
        WriteOp::DeleteThread(thread) => {
            let range = seq_range(thread.as_str(), 0.0, MAX_SEQ)?;
            trees.forget(&thread);
            done(
                store_of(tx, TREES)?
                    .delete(&thread.as_str().into())
                    .map_err(|e| js_err("delete", e))?,
            )
            .await?;
            done(store_of(tx, NODES)?.delete(&range).map_err(|e| js_err("delete", e))?).await?;
            done(
                store_of(tx, THREADS)?
                    .delete(&thread.as_str().into())
                    .map_err(|e| js_err("delete", e))?,
            )
            .await?;
            delete_of_thread(tx, RUNS, RUNS_BY_THREAD, &thread).await?;
            delete_of_thread(tx, ATTACHMENTS, ATTACHMENTS_BY_THREAD, &thread).await?;
        }
        WriteOp::PutAttachment(attachment) => put_attachment(tx, &attachment).await?,
        WriteOp::PutReceipt(receipt) => {
            let row = object(&[
                ("clientId", receipt.key.client_id.as_str().into()),
                ("submissionId", receipt.key.submission_id.as_str().into()),
                ("expiresAtMs", (receipt.expires_at_ms as f64).into()),
                ("record", encode_receipt(&receipt)?.into()),
            ])?;
            done(put(RECEIPTS, row)?).await?;
        }
        WriteOp::PruneReceipts { now_ms } => {
            let receipts = store_of(tx, RECEIPTS)?;
            let index = receipts.index(RECEIPTS_BY_EXPIRY).map_err(|e| js_err("index", e))?;
            let range = IdbKeyRange::upper_bound(&(now_ms as f64).into())
                .map_err(|e| js_err("range", e))?;
            let keys =
                done(index.get_all_keys_with_key(&range).map_err(|e| js_err("getAllKeys", e))?)
                    .await?;
            for key in array_items(keys) {
                done(receipts.delete(&key).map_err(|e| js_err("delete", e))?).await?;
            }
        }
        WriteOp::PutRun(run) => {
            let thread = done(
                store_of(tx, THREADS)?
                    .count_with_key(&run.thread_id.as_str().into())
                    .map_err(|e| js_err("count", e))?,
            )
            .await?;
            if thread.as_f64() != Some(1.0) {
                return Err(StoreError::Integrity(format!(
                    "run {} names unknown thread {}",
                    run.id, run.thread_id
                )));
            }
            let mut fields = vec![
                ("id", run.id.as_str().into()),
                ("threadId", run.thread_id.as_str().into()),
                ("record", encode_run(&run)?.into()),
            ];
            if !run.is_terminal() {
                fields.push(("openSeq", (run.seq as f64).into()));
            }
            done(put(RUNS, object(&fields)?)?).await?;
        }
        WriteOp::DeleteRun(run) => {
            done(
                store_of(tx, RUNS)?
                    .delete(&run.as_str().into())
                    .map_err(|e| js_err("delete", e))?,
            )
            .await?;
        }
        WriteOp::PutSetting { key, value } => {
            let row = object(&[("key", key.as_str().into()), ("value", value.to_string().into())])?;
            done(put(SETTINGS, row)?).await?;
        }
    }
    Ok(())
}

/// Deletes the records of `store` that its `by_thread` index files under `thread`.
async fn delete_of_thread(
    tx: &IdbTransaction,
    store: &str,
    by_thread: &str,
    thread: &ThreadId,
) -> Result<(), StoreError> {
    let records = store_of(tx, store)?;
    let index = records.index(by_thread).map_err(|e| js_err("index", e))?;
    let keys = done(
        index
            .get_all_keys_with_key(&thread.as_str().into())
            .map_err(|e| js_err("getAllKeys", e))?,
    )
    .await?;
    for key in array_items(keys) {
        done(records.delete(&key).map_err(|e| js_err("delete", e))?).await?;
    }
    Ok(())
}

async fn put_attachment(
    tx: &IdbTransaction,
    attachment: &AttachmentRecord,
) -> Result<(), StoreError> {
    let count = |store: &str, key: &str| -> Result<web_sys::IdbRequest, StoreError> {
        store_of(tx, store)?.count_with_key(&key.into()).map_err(|e| js_err("count", e))
    };
    let thread_exists =
        done(count(THREADS, attachment.thread_id.as_str())?).await?.as_f64() == Some(1.0);
    let id_taken = done(count(ATTACHMENTS, attachment.id.as_str())?).await?.as_f64() != Some(0.0);
    check_attachment(attachment, thread_exists, id_taken)?;
    let row = object(&[
        ("id", attachment.id.as_str().into()),
        ("threadId", attachment.thread_id.as_str().into()),
        ("record", encode_attachment(attachment)?.into()),
    ])?;
    done(store_of(tx, ATTACHMENTS)?.put(&row).map_err(|e| js_err("put", e))?).await?;
    Ok(())
}

async fn append_node(
    tx: &IdbTransaction,
    trees: &mut TreeCache,
    node: &NodeRecord,
) -> Result<(), StoreError> {
    let threads = store_of(tx, THREADS)?;
    let nodes = store_of(tx, NODES)?;
    let by_id = nodes.index(NODES_BY_ID).map_err(|e| js_err("index", e))?;
    let thread_exists =
        !done(threads.get(&node.thread_id.as_str().into()).map_err(|e| js_err("get", e))?)
            .await?
            .is_undefined();
    let id_taken = !done(by_id.get(&node.id.as_str().into()).map_err(|e| js_err("get", e))?)
        .await?
        .is_undefined();
    let parent_thread = match &node.parent_id {
        Some(parent) => {
            let row =
                done(by_id.get(&parent.as_str().into()).map_err(|e| js_err("get", e))?).await?;
            match row.is_undefined() {
                true => None,
                false => Some(
                    ThreadId::new(text_field(&row, "threadId")?)
                        .map_err(|e| StoreError::Corrupt(e.to_string()))?,
                ),
            }
        }
        None => None,
    };
    let links = trees.load(tx, &node.thread_id).await?;
    check_append(node, thread_exists, id_taken, parent_thread.as_ref(), links.max_seq())?;
    links.push(node.link());
    let row = object(&[
        ("threadId", node.thread_id.as_str().into()),
        ("seq", (node.seq as f64).into()),
        ("id", node.id.as_str().into()),
        ("record", encode_node(node)?.into()),
    ])?;
    done(nodes.put(&row).map_err(|e| js_err("put", e))?).await?;
    Ok(())
}

/// A thread's links packed into one record: a JSON array of `[id, parentId | null, seq]` in seq
/// order (appends always raise the seq).
#[derive(Debug, Default)]
struct PackedLinks(Vec<(String, Option<String>, u64)>);

impl PackedLinks {
    fn decode(text: &str) -> Result<Self, StoreError> {
        serde_json::from_str(text).map(PackedLinks).map_err(corrupt)
    }

    fn encode(&self) -> Result<String, StoreError> {
        serde_json::to_string(&self.0).map_err(corrupt)
    }

    fn max_seq(&self) -> Option<u64> {
        self.0.last().map(|(_, _, seq)| *seq)
    }

    fn push(&mut self, link: NodeLink) {
        self.0.push((link.id.to_string(), link.parent_id.map(|p| p.to_string()), link.seq));
    }

    fn into_links(self) -> Result<Vec<NodeLink>, StoreError> {
        self.0
            .into_iter()
            .map(|(id, parent, seq)| {
                Ok(NodeLink {
                    id: parse_node_id(id)?,
                    parent_id: parent.map(parse_node_id).transpose()?,
                    seq,
                })
            })
            .collect()
    }
}

/// The packed links of the threads a unit of work appends to: read once, written once at the
/// end, so a unit appending many nodes (a fork) stays linear.
#[derive(Debug, Default)]
struct TreeCache {
    threads: SortedMap<ThreadId, PackedLinks>,
}

impl TreeCache {
    async fn load(
        &mut self,
        tx: &IdbTransaction,
        thread: &ThreadId,
    ) -> Result<&mut PackedLinks, StoreError> {
        if !self.threads.contains_key(thread) {
            let request =
                store_of(tx, TREES)?.get(&thread.as_str().into()).map_err(|e| js_err("get", e))?;
            let row = done(request).await?;
            let links = match row.is_undefined() {
                true => PackedLinks::default(),
                false => PackedLinks::decode(&text_field(&row, "links")?)?,
            };
            self.threads.insert(thread.clone(), links);
        }
        self.threads
            .get_mut(thread)
            .ok_or_else(|| StoreError::Backend("tree cache lost a thread".into()))
    }

    fn forget(&mut self, thread: &ThreadId) {
        self.threads.remove(thread);
    }

    async fn flush(&mut self, tx: &IdbTransaction) -> Result<(), StoreError> {
        let trees = store_of(tx, TREES)?;
        for (thread, links) in std::mem::take(&mut self.threads) {
            let row =
                object(&[("threadId", thread.as_str().into()), ("links", links.encode()?.into())])?;
            done(trees.put(&row).map_err(|e| js_err("put", e))?).await?;
        }
        Ok(())
    }
}
