//! Schema versions and migrations. `PRAGMA user_version` holds the version; each migration moves
//! the file one version forward, all pending ones in one transaction.

use panelot_core::store::StoreError;
use rusqlite::Connection;

/// Migration `i` moves a database from version `i` to `i + 1`. Append only: never edit a
/// migration that has shipped.
pub const MIGRATIONS: &[&str] = &[
    // 0 → 1: threads, nodes, receipts, settings.
    "CREATE TABLE threads (
        id TEXT PRIMARY KEY NOT NULL,
        updated_at_ms INTEGER NOT NULL,
        meta TEXT NOT NULL
    );
    CREATE INDEX threads_by_update ON threads (updated_at_ms DESC, id);
    CREATE TABLE nodes (
        thread_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        id TEXT NOT NULL UNIQUE,
        parent_id TEXT,
        record TEXT NOT NULL,
        PRIMARY KEY (thread_id, seq)
    ) WITHOUT ROWID;
    -- Covering index: a thread's shape is one index-only range read, without the records.
    CREATE INDEX node_links ON nodes (thread_id, seq, id, parent_id);
    CREATE TABLE receipts (
        client_id TEXT NOT NULL,
        submission_id TEXT NOT NULL,
        expires_at_ms INTEGER NOT NULL,
        record TEXT NOT NULL,
        PRIMARY KEY (client_id, submission_id)
    );
    CREATE INDEX receipts_by_expiry ON receipts (expires_at_ms);
    CREATE TABLE settings (
        key TEXT PRIMARY KEY NOT NULL,
        value TEXT NOT NULL
    );",
    // 1 → 2: runs. Only open runs are read back (recovery), through a partial index.
    "CREATE TABLE runs (
        id TEXT PRIMARY KEY NOT NULL,
        thread_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        open INTEGER NOT NULL,
        record TEXT NOT NULL
    );
    CREATE INDEX open_runs ON runs (seq) WHERE open = 1;
    CREATE INDEX runs_by_thread ON runs (thread_id);",
    // 2 → 3: attachments, the files users attached, kept (and deleted) with their thread.
    "CREATE TABLE attachments (
        id TEXT PRIMARY KEY NOT NULL,
        thread_id TEXT NOT NULL,
        record TEXT NOT NULL
    );
    CREATE INDEX attachments_by_thread ON attachments (thread_id);",
];

/// The version this build writes.
pub const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

fn backend(err: rusqlite::Error) -> StoreError {
    StoreError::Backend(err.to_string())
}

/// Brings the database to [`SCHEMA_VERSION`]; refuses a database from a newer build.
pub(crate) fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    migrate_to(conn, SCHEMA_VERSION)
}

/// Brings the database to `target` (tests stop early to seed an old shape).
pub(crate) fn migrate_to(conn: &mut Connection, target: u32) -> Result<(), StoreError> {
    let current: u32 =
        conn.pragma_query_value(None, "user_version", |row| row.get(0)).map_err(backend)?;
    if current > SCHEMA_VERSION {
        return Err(StoreError::Corrupt(format!(
            "database schema version {current} is newer than this build's {SCHEMA_VERSION}"
        )));
    }
    if current >= target {
        return Ok(());
    }
    let tx = conn.transaction().map_err(backend)?;
    for (version, sql) in
        MIGRATIONS.iter().enumerate().skip(current as usize).take((target - current) as usize)
    {
        tx.execute_batch(sql).map_err(backend)?;
        tx.pragma_update(None, "user_version", version as u32 + 1).map_err(backend)?;
    }
    tx.commit().map_err(backend)
}
