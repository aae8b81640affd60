//! The conformance case of attached files: stored whole with their thread, read only through
//! that thread, deleted with it, an id never stored twice, and the thread holding an id known.

use panelot_protocol::AttachmentId;

use super::builders::meta;
use super::builders::thread_id;
use crate::store::backend::Store;
use crate::store::backend::StoreError;
use crate::store::backend::UnitOfWork;
use crate::store::backend::WriteOp;
use crate::store::records::AttachmentRecord;

/// An attachment of `thread` holding `data_base64`.
pub(super) fn attachment(id: &str, thread: &str, data_base64: &str) -> AttachmentRecord {
    AttachmentRecord {
        id: AttachmentId::new(id).unwrap(),
        thread_id: thread_id(thread),
        name: "report – draft.pdf".into(),
        mime: "application/pdf".into(),
        size_bytes: 11,
        created_at_ms: 1_700_000_000_123,
        data_base64: data_base64.into(),
    }
}

fn put(record: AttachmentRecord) -> UnitOfWork {
    UnitOfWork { ops: vec![WriteOp::PutAttachment(Box::new(record))] }
}

pub(super) async fn attachments<S: Store>(store: &S) {
    let id = |raw: &str| AttachmentId::new(raw).unwrap();
    let mut unit = UnitOfWork::new();
    unit.push(WriteOp::PutThread(meta("t1", 1))).push(WriteOp::PutThread(meta("t2", 2)));
    store.commit(unit).await.unwrap();
    // A large one (1 MB of base64) comes back whole.
    let big = "QUJD".repeat(250_000);
    let first = attachment("att-1", "t1", &big);
    store.commit(put(first.clone())).await.unwrap();
    store.commit(put(attachment("att-2", "t2", "aGVsbG8gd29ybGQ="))).await.unwrap();
    assert_eq!(store.attachment(&thread_id("t1"), &id("att-1")).await.unwrap(), Some(first));
    assert_eq!(
        store.attachment(&thread_id("t1"), &id("att-2")).await.unwrap(),
        None,
        "another thread's attachment is not this thread's"
    );
    assert_eq!(store.attachment(&thread_id("t1"), &id("att-9")).await.unwrap(), None);
    // Which thread holds an id, whichever asks: what `attachment.put` refuses a reused id by.
    assert_eq!(store.attachment_thread(&id("att-2")).await.unwrap(), Some(thread_id("t2")));
    assert_eq!(store.attachment_thread(&id("att-1")).await.unwrap(), Some(thread_id("t1")));
    assert_eq!(store.attachment_thread(&id("att-9")).await.unwrap(), None);
    // Integrity: an unknown thread, an id already stored (by any thread).
    let err = store.commit(put(attachment("att-3", "nope", "AAAA"))).await.unwrap_err();
    assert!(matches!(err, StoreError::Integrity(_)), "{err:?}");
    let err = store.commit(put(attachment("att-2", "t1", "AAAA"))).await.unwrap_err();
    assert!(matches!(err, StoreError::Integrity(_)), "{err:?}");
    assert_eq!(store.attachment(&thread_id("t1"), &id("att-2")).await.unwrap(), None);
    // Deleting a thread deletes its attachments, and only its own.
    store.commit(UnitOfWork { ops: vec![WriteOp::DeleteThread(thread_id("t1"))] }).await.unwrap();
    assert_eq!(store.attachment(&thread_id("t1"), &id("att-1")).await.unwrap(), None);
    assert!(store.attachment(&thread_id("t2"), &id("att-2")).await.unwrap().is_some());
    assert_eq!(store.attachment_thread(&id("att-1")).await.unwrap(), None);
}
