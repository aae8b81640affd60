//! Tests of the SQLite store: the store conformance suite, records stored before the storage
//! format had versions read back, data surviving a reopened file, a database from a newer build
//! refused, migrations run once and in order, and the thread-shape query served from its
//! covering index.

use panelot_core::store::conformance;
use panelot_core::store::conformance::block_on;
use panelot_core::store::conformance::meta;
use panelot_core::store::conformance::text_node;
use panelot_core::store::conformance::thread_id;

use super::*;

#[test]
fn sqlite_store_passes_the_conformance_suite() {
    conformance::run_all(|| SqliteStore::open_in_memory().unwrap());
}

fn temp_db(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("panelot-sqlite-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("panelot.db")
}

#[test]
fn data_survives_reopening_a_file() {
    let path = temp_db("reopen");
    {
        let store = SqliteStore::open(&path).unwrap();
        block_on(store.commit(UnitOfWork {
            ops: vec![
                WriteOp::PutThread(meta("a", 1)),
                WriteOp::AppendNode(text_node("a", 1, None)),
            ],
        }))
        .unwrap();
    }
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(block_on(store.thread(&thread_id("a"))).unwrap(), Some(meta("a", 1)));
    assert_eq!(block_on(store.tree_links(&thread_id("a"))).unwrap().len(), 1);
}

#[test]
fn a_database_from_a_newer_build_is_refused() {
    let path = temp_db("newer");
    {
        let conn = Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1).unwrap();
    }
    let err = SqliteStore::open(&path).unwrap_err();
    assert!(matches!(&err, StoreError::Corrupt(m) if m.contains("newer")), "{err}");
}

#[test]
fn migrations_run_once_and_in_order() {
    let mut conn = Connection::open_in_memory().unwrap();
    schema::migrate_to(&mut conn, 0).unwrap();
    let version = |conn: &Connection| -> u32 {
        conn.pragma_query_value(None, "user_version", |r| r.get(0)).unwrap()
    };
    assert_eq!(version(&conn), 0);
    schema::migrate(&mut conn).unwrap();
    assert_eq!(version(&conn), SCHEMA_VERSION);
    // Running again is a no-op, not a second CREATE TABLE.
    schema::migrate(&mut conn).unwrap();
    assert_eq!(version(&conn), SCHEMA_VERSION);
}

#[test]
fn thread_shape_is_read_from_the_covering_index() {
    let store = SqliteStore::open_in_memory().unwrap();
    let conn = store.conn.borrow();
    let plan: Vec<String> = conn
        .prepare("EXPLAIN QUERY PLAN SELECT id, parent_id, seq FROM nodes WHERE thread_id = ?1 ORDER BY seq")
        .unwrap()
        .query_map(["t"], |row| row.get::<_, String>(3))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(plan.iter().any(|step| step.contains("COVERING INDEX node_links")), "{plan:?}");
}

/// Writes the version-0 fixtures straight into the tables, as builds before the storage format
/// had versions left them, and reads them back through the store; a record written back is
/// stored in the current version.
#[test]
fn records_stored_before_format_versions_read_back() {
    use panelot_core::store::conformance::samples;

    let store = SqliteStore::open_in_memory().unwrap();
    let (threads, nodes, runs, receipts) =
        (samples::threads(), samples::nodes(), samples::runs(), samples::receipts());
    {
        let conn = store.conn.borrow();
        for (text, meta) in samples::V0_THREADS.lines().zip(&threads) {
            conn.execute(
                "INSERT INTO threads (id, updated_at_ms, meta) VALUES (?1, ?2, ?3)",
                params![meta.id.as_str(), meta.updated_at_ms as i64, text],
            )
            .unwrap();
        }
        for (text, node) in samples::V0_NODES.lines().zip(&nodes) {
            conn.execute(
                "INSERT INTO nodes (thread_id, seq, id, parent_id, record) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![
                    node.thread_id.as_str(),
                    node.seq as i64,
                    node.id.as_str(),
                    node.parent_id.as_ref().map(NodeId::as_str),
                    text
                ],
            )
            .unwrap();
        }
        for (text, run) in samples::V0_RUNS.lines().zip(&runs) {
            conn.execute(
                "INSERT INTO runs (id, thread_id, seq, open, record) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![
                    run.id.as_str(),
                    run.thread_id.as_str(),
                    run.seq as i64,
                    i64::from(!run.is_terminal()),
                    text
                ],
            )
            .unwrap();
        }
        for (text, receipt) in samples::V0_RECEIPTS.lines().zip(&receipts) {
            conn.execute(
                "INSERT INTO receipts (client_id, submission_id, expires_at_ms, record) VALUES (?1, ?2, ?3, ?4)",
                params![
                    receipt.key.client_id.as_str(),
                    receipt.key.submission_id.as_str(),
                    receipt.expires_at_ms as i64,
                    text
                ],
            )
            .unwrap();
        }
    }

    let mut recent_first = threads.clone();
    panelot_core::store::sort_recent_first(&mut recent_first);
    assert_eq!(block_on(store.threads()).unwrap(), recent_first);
    assert_eq!(block_on(store.thread(&threads[0].id)).unwrap().as_ref(), Some(&threads[0]));
    assert_eq!(block_on(store.node_range(&thread_id("t"), 0, 1 << 40)).unwrap(), nodes);
    let ids: Vec<NodeId> = nodes.iter().rev().map(|node| node.id.clone()).collect();
    let mut reversed = nodes;
    reversed.reverse();
    assert_eq!(block_on(store.nodes(&thread_id("t"), &ids)).unwrap(), reversed);
    let mut open: Vec<RunRecord> = runs.into_iter().filter(|run| !run.is_terminal()).collect();
    open.sort_by_key(|run| run.seq);
    assert_eq!(block_on(store.open_runs()).unwrap(), open);
    for receipt in receipts {
        assert_eq!(block_on(store.receipt(&receipt.key)).unwrap(), Some(receipt));
    }

    // Written back, a record is stored in the current version.
    block_on(store.commit(UnitOfWork { ops: vec![WriteOp::PutThread(threads[0].clone())] }))
        .unwrap();
    let stored: String = store
        .conn
        .borrow()
        .query_row("SELECT meta FROM threads WHERE id = ?1", [threads[0].id.as_str()], |row| {
            row.get(0)
        })
        .unwrap();
    assert!(stored.starts_with(r#"{"v":1,"#), "{stored}");
}
