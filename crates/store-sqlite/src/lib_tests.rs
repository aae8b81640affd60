//! Tests of the SQLite store: the store conformance suite, data surviving a reopened file, a
//! database from a newer build refused, migrations run once and in order, and the thread-shape
//! query served from its covering index.

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
