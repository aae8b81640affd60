//! Panelot's native [`Store`] on SQLite (rusqlite, bundled): for tests, benchmarks and the native
//! host. It passes the same conformance suite as every other backend.
//!
//! Layout: `threads` (metadata as JSON, indexed by update time), `nodes` (one row per node, keyed
//! by thread and seq, with a covering index of the links so a thread's shape is one index-only
//! range read), `receipts`, `settings`, `runs`, `attachments` (the files users attached, by
//! thread). The schema version lives in `PRAGMA user_version`;
//! [`MIGRATIONS`] brings any older file up to date in one transaction.
//!
//! Records are JSON text in the store's versioned format (`panelot_core::store::encode_run`
//! and its siblings), which migrates records of older format versions as it reads them; the
//! tables do not change with the format.

#![deny(clippy::print_stdout, clippy::print_stderr)]

mod schema;

use std::cell::RefCell;
use std::path::Path;

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
use panelot_protocol::AttachmentId;
use panelot_protocol::NodeId;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::ThreadMeta;
use rusqlite::Connection;
use rusqlite::OptionalExtension;
use rusqlite::Transaction;
use rusqlite::params;
pub use schema::MIGRATIONS;
pub use schema::SCHEMA_VERSION;

/// A store in one SQLite database.
#[derive(Debug)]
pub struct SqliteStore {
    conn: RefCell<Connection>,
}

fn backend(err: rusqlite::Error) -> StoreError {
    StoreError::Backend(err.to_string())
}

fn corrupt(err: serde_json::Error) -> StoreError {
    StoreError::Corrupt(err.to_string())
}

fn parse_id<T>(
    raw: String,
    make: impl FnOnce(String) -> Result<T, panelot_protocol::IdError>,
) -> Result<T, StoreError> {
    make(raw).map_err(|err| StoreError::Corrupt(err.to_string()))
}

impl SqliteStore {
    /// Opens (or creates) the database at `path` and migrates it.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        Self::with_connection(Connection::open(path).map_err(backend)?)
    }

    /// A private in-memory database.
    pub fn open_in_memory() -> Result<Self, StoreError> {
        Self::with_connection(Connection::open_in_memory().map_err(backend)?)
    }

    fn with_connection(mut conn: Connection) -> Result<Self, StoreError> {
        conn.pragma_update(None, "journal_mode", "WAL").map_err(backend)?;
        conn.pragma_update(None, "synchronous", "NORMAL").map_err(backend)?;
        schema::migrate(&mut conn)?;
        Ok(SqliteStore { conn: RefCell::new(conn) })
    }
}

impl Store for SqliteStore {
    async fn thread(&self, id: &ThreadId) -> Result<Option<ThreadMeta>, StoreError> {
        let conn = self.conn.borrow();
        let meta: Option<String> = conn
            .prepare_cached("SELECT meta FROM threads WHERE id = ?1")
            .and_then(|mut stmt| stmt.query_row([id.as_str()], |row| row.get(0)).optional())
            .map_err(backend)?;
        meta.as_deref().map(decode_thread).transpose()
    }

    async fn threads(&self) -> Result<Vec<ThreadMeta>, StoreError> {
        let conn = self.conn.borrow();
        let mut stmt = conn
            .prepare_cached("SELECT meta FROM threads ORDER BY updated_at_ms DESC, id ASC")
            .map_err(backend)?;
        let rows = stmt.query_map([], |row| row.get::<_, String>(0)).map_err(backend)?;
        rows.map(|row| decode_thread(&row.map_err(backend)?)).collect()
    }

    async fn tree_links(&self, thread: &ThreadId) -> Result<Vec<NodeLink>, StoreError> {
        let conn = self.conn.borrow();
        let mut stmt = conn
            .prepare_cached(
                "SELECT id, parent_id, seq FROM nodes WHERE thread_id = ?1 ORDER BY seq",
            )
            .map_err(backend)?;
        let rows = stmt
            .query_map([thread.as_str()], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, Option<String>>(1)?,
                    row.get::<_, i64>(2)?,
                ))
            })
            .map_err(backend)?;
        rows.map(|row| {
            let (id, parent, seq) = row.map_err(backend)?;
            Ok(NodeLink {
                id: parse_id(id, NodeId::new)?,
                parent_id: parent.map(|p| parse_id(p, NodeId::new)).transpose()?,
                seq: seq as u64,
            })
        })
        .collect()
    }

    async fn nodes(
        &self,
        thread: &ThreadId,
        ids: &[NodeId],
    ) -> Result<Vec<NodeRecord>, StoreError> {
        let conn = self.conn.borrow();
        let mut found = std::collections::BTreeMap::new();
        // SQLite limits bound parameters per statement; batch the ids.
        for chunk in ids.chunks(500) {
            let marks = vec!["?"; chunk.len()].join(",");
            let sql =
                format!("SELECT id, record FROM nodes WHERE thread_id = ? AND id IN ({marks})");
            let mut stmt = conn.prepare_cached(&sql).map_err(backend)?;
            let values = std::iter::once(thread.as_str()).chain(chunk.iter().map(NodeId::as_str));
            let rows = stmt
                .query_map(rusqlite::params_from_iter(values), |row| {
                    Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
                })
                .map_err(backend)?;
            for row in rows {
                let (id, record) = row.map_err(backend)?;
                found.insert(id, record);
            }
        }
        ids.iter()
            .filter_map(|id| found.get(id.as_str()))
            .map(|record| decode_node(record))
            .collect()
    }

    async fn node_range(
        &self,
        thread: &ThreadId,
        from: u64,
        to: u64,
    ) -> Result<Vec<NodeRecord>, StoreError> {
        let conn = self.conn.borrow();
        let mut stmt = conn
            .prepare_cached("SELECT record FROM nodes WHERE thread_id = ?1 AND seq BETWEEN ?2 AND ?3 ORDER BY seq")
            .map_err(backend)?;
        let rows = stmt
            .query_map(params![thread.as_str(), from as i64, to as i64], |row| {
                row.get::<_, String>(0)
            })
            .map_err(backend)?;
        rows.map(|row| decode_node(&row.map_err(backend)?)).collect()
    }

    async fn attachment(
        &self,
        thread: &ThreadId,
        id: &AttachmentId,
    ) -> Result<Option<AttachmentRecord>, StoreError> {
        let conn = self.conn.borrow();
        let record: Option<String> = conn
            .prepare_cached("SELECT record FROM attachments WHERE id = ?1 AND thread_id = ?2")
            .and_then(|mut stmt| {
                stmt.query_row([id.as_str(), thread.as_str()], |row| row.get(0)).optional()
            })
            .map_err(backend)?;
        record.as_deref().map(decode_attachment).transpose()
    }

    async fn attachment_thread(&self, id: &AttachmentId) -> Result<Option<ThreadId>, StoreError> {
        let conn = self.conn.borrow();
        let thread: Option<String> = conn
            .prepare_cached("SELECT thread_id FROM attachments WHERE id = ?1")
            .and_then(|mut stmt| stmt.query_row([id.as_str()], |row| row.get(0)).optional())
            .map_err(backend)?;
        thread.map(|t| parse_id(t, ThreadId::new)).transpose()
    }

    async fn receipt(&self, key: &ReceiptKey) -> Result<Option<Receipt>, StoreError> {
        let conn = self.conn.borrow();
        let record: Option<String> = conn
            .prepare_cached(
                "SELECT record FROM receipts WHERE client_id = ?1 AND submission_id = ?2",
            )
            .and_then(|mut stmt| {
                stmt.query_row([key.client_id.as_str(), key.submission_id.as_str()], |row| {
                    row.get(0)
                })
                .optional()
            })
            .map_err(backend)?;
        record.as_deref().map(decode_receipt).transpose()
    }

    async fn open_runs(&self) -> Result<Vec<RunRecord>, StoreError> {
        let conn = self.conn.borrow();
        let mut stmt = conn
            .prepare_cached("SELECT record FROM runs WHERE open = 1 ORDER BY seq")
            .map_err(backend)?;
        let rows = stmt.query_map([], |row| row.get::<_, String>(0)).map_err(backend)?;
        rows.map(|row| decode_run(&row.map_err(backend)?)).collect()
    }

    async fn setting(&self, key: &str) -> Result<Option<serde_json::Value>, StoreError> {
        let conn = self.conn.borrow();
        let value: Option<String> = conn
            .prepare_cached("SELECT value FROM settings WHERE key = ?1")
            .and_then(|mut stmt| stmt.query_row([key], |row| row.get(0)).optional())
            .map_err(backend)?;
        value.map(|v| serde_json::from_str(&v).map_err(corrupt)).transpose()
    }

    async fn commit(&self, unit: UnitOfWork) -> Result<(), StoreError> {
        let mut conn = self.conn.borrow_mut();
        let tx = conn.transaction().map_err(backend)?;
        for op in unit.ops {
            apply(&tx, op)?;
        }
        // Dropping `tx` on an early return above rolls everything back.
        tx.commit().map_err(backend)
    }
}

fn apply(tx: &Transaction<'_>, op: WriteOp) -> Result<(), StoreError> {
    match op {
        WriteOp::PutThread(meta) => {
            let record = encode_thread(&meta)?;
            tx.prepare_cached(
                "INSERT OR REPLACE INTO threads (id, updated_at_ms, meta) VALUES (?1, ?2, ?3)",
            )
            .and_then(|mut s| {
                s.execute(params![meta.id.as_str(), meta.updated_at_ms as i64, record])
            })
            .map_err(backend)?;
        }
        WriteOp::AppendNode(node) => append_node(tx, &node)?,
        WriteOp::DeleteThread(thread) => {
            tx.execute("DELETE FROM nodes WHERE thread_id = ?1", [thread.as_str()])
                .map_err(backend)?;
            tx.execute("DELETE FROM threads WHERE id = ?1", [thread.as_str()]).map_err(backend)?;
            tx.execute("DELETE FROM runs WHERE thread_id = ?1", [thread.as_str()])
                .map_err(backend)?;
            tx.execute("DELETE FROM attachments WHERE thread_id = ?1", [thread.as_str()])
                .map_err(backend)?;
        }
        WriteOp::PutAttachment(attachment) => put_attachment(tx, &attachment)?,
        WriteOp::PutReceipt(receipt) => {
            let record = encode_receipt(&receipt)?;
            tx.prepare_cached(
                "INSERT OR REPLACE INTO receipts (client_id, submission_id, expires_at_ms, record) VALUES (?1, ?2, ?3, ?4)",
            )
            .and_then(|mut s| {
                s.execute(params![
                    receipt.key.client_id.as_str(),
                    receipt.key.submission_id.as_str(),
                    receipt.expires_at_ms as i64,
                    record
                ])
            })
            .map_err(backend)?;
        }
        WriteOp::PruneReceipts { now_ms } => {
            tx.execute("DELETE FROM receipts WHERE expires_at_ms <= ?1", [now_ms as i64])
                .map_err(backend)?;
        }
        WriteOp::PutRun(run) => put_run(tx, &run)?,
        WriteOp::DeleteRun(run) => {
            tx.execute("DELETE FROM runs WHERE id = ?1", [run.as_str()]).map_err(backend)?;
        }
        WriteOp::PutSetting { key, value } => {
            tx.execute(
                "INSERT OR REPLACE INTO settings (key, value) VALUES (?1, ?2)",
                params![key, value.to_string()],
            )
            .map_err(backend)?;
        }
    }
    Ok(())
}

fn put_attachment(tx: &Transaction<'_>, attachment: &AttachmentRecord) -> Result<(), StoreError> {
    let exists = |sql: &str, key: &str| {
        tx.prepare_cached(sql).and_then(|mut s| s.exists([key])).map_err(backend)
    };
    check_attachment(
        attachment,
        exists("SELECT 1 FROM threads WHERE id = ?1", attachment.thread_id.as_str())?,
        exists("SELECT 1 FROM attachments WHERE id = ?1", attachment.id.as_str())?,
    )?;
    let record = encode_attachment(attachment)?;
    tx.prepare_cached("INSERT INTO attachments (id, thread_id, record) VALUES (?1, ?2, ?3)")
        .and_then(|mut s| {
            s.execute(params![attachment.id.as_str(), attachment.thread_id.as_str(), record])
        })
        .map_err(backend)?;
    Ok(())
}

fn put_run(tx: &Transaction<'_>, run: &RunRecord) -> Result<(), StoreError> {
    let thread_exists = tx
        .prepare_cached("SELECT 1 FROM threads WHERE id = ?1")
        .and_then(|mut s| s.exists([run.thread_id.as_str()]))
        .map_err(backend)?;
    if !thread_exists {
        return Err(StoreError::Integrity(format!(
            "run {} names unknown thread {}",
            run.id, run.thread_id
        )));
    }
    let record = encode_run(run)?;
    tx.prepare_cached(
        "INSERT OR REPLACE INTO runs (id, thread_id, seq, open, record) VALUES (?1, ?2, ?3, ?4, ?5)",
    )
    .and_then(|mut s| {
        s.execute(params![
            run.id.as_str(),
            run.thread_id.as_str(),
            run.seq as i64,
            i64::from(!run.is_terminal()),
            record
        ])
    })
    .map_err(backend)?;
    Ok(())
}

fn append_node(tx: &Transaction<'_>, node: &NodeRecord) -> Result<(), StoreError> {
    let query_opt = |sql: &str, arg: &str| -> Result<Option<rusqlite::types::Value>, StoreError> {
        tx.prepare_cached(sql)
            .and_then(|mut s| s.query_row([arg], |row| row.get(0)).optional())
            .map_err(backend)
    };
    let thread_exists =
        query_opt("SELECT 1 FROM threads WHERE id = ?1", node.thread_id.as_str())?.is_some();
    let id_taken = query_opt("SELECT 1 FROM nodes WHERE id = ?1", node.id.as_str())?.is_some();
    let parent_thread = match &node.parent_id {
        Some(parent) => {
            match query_opt("SELECT thread_id FROM nodes WHERE id = ?1", parent.as_str())? {
                Some(rusqlite::types::Value::Text(thread)) => {
                    Some(parse_id(thread, ThreadId::new)?)
                }
                _ => None,
            }
        }
        None => None,
    };
    let max_seq = match query_opt(
        "SELECT MAX(seq) FROM nodes WHERE thread_id = ?1",
        node.thread_id.as_str(),
    )? {
        Some(rusqlite::types::Value::Integer(max)) => Some(max as u64),
        _ => None,
    };
    check_append(node, thread_exists, id_taken, parent_thread.as_ref(), max_seq)?;
    let record = encode_node(node)?;
    tx.prepare_cached(
        "INSERT INTO nodes (thread_id, seq, id, parent_id, record) VALUES (?1, ?2, ?3, ?4, ?5)",
    )
    .and_then(|mut s| {
        s.execute(params![
            node.thread_id.as_str(),
            node.seq as i64,
            node.id.as_str(),
            node.parent_id.as_ref().map(NodeId::as_str),
            record
        ])
    })
    .map_err(backend)?;
    Ok(())
}

#[cfg(test)]
#[path = "lib_tests.rs"]
mod tests;
