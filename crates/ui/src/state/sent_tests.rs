//! What a refused message gives back, and how its files go again.

use panelot_protocol::AttachmentId;
use panelot_protocol::SubmissionId;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::ContextBlock;
use panelot_protocol::engine::ContextContent;
use panelot_protocol::engine::ContextKind;
use panelot_protocol::engine::ErrorCode;
use panelot_protocol::engine::Provenance;
use panelot_protocol::engine::Trust;
use pretty_assertions::assert_eq;

use super::*;

fn sub(raw: &str) -> SubmissionId {
    SubmissionId::new(raw).unwrap()
}

fn thread(raw: &str) -> ThreadId {
    ThreadId::new(raw).unwrap()
}

fn file(id: &str, name: &str) -> PendingFile {
    PendingFile {
        id: AttachmentId::new(id).unwrap(),
        name: name.to_owned(),
        mime: "text/plain".to_owned(),
        size_bytes: 3,
        data_base64: "YWJj".to_owned(),
        stored_in: None,
    }
}

fn page_block() -> ContextBlock {
    ContextBlock {
        kind: ContextKind::Page,
        label: "Mug shop".to_owned(),
        origin: None,
        trust: Trust::Untrusted,
        provenance: Provenance::Page,
        source_ref: None,
        tab: None,
        content: ContextContent::Text { text: "A blue mug".to_owned() },
        approx_tokens: Some(3),
    }
}

/// A message to `t-1` with a page chip and two files, each stored by its own put.
fn sent_one() -> Sent {
    let mut sent = Sent::default();
    sent.record(
        sub("m-1"),
        thread("t-1"),
        "Here are my notes".to_owned(),
        vec![page_block()],
        vec![
            SentFile::new(file("att-1", "notes.txt"), Some(sub("p-1"))),
            SentFile::new(file("att-2", "plan.txt"), Some(sub("p-2"))),
        ],
    );
    sent
}

#[test]
fn a_refused_message_gives_back_its_text_chips_and_files_marked_as_stored_in_its_thread() {
    let mut sent = sent_one();
    let back = sent.refused(&sub("m-1")).expect("given back");
    let stored = |id, name| PendingFile { stored_in: Some(thread("t-1")), ..file(id, name) };
    assert_eq!(
        back,
        GivenBack {
            text: "Here are my notes".to_owned(),
            attached: vec![page_block()],
            files: vec![stored("att-1", "notes.txt"), stored("att-2", "plan.txt")],
            lost_files: false,
        }
    );
    assert_eq!(sent.refused(&sub("m-1")), None, "given back once");
}

#[test]
fn an_accepted_message_gives_nothing_back() {
    let mut sent = sent_one();
    sent.accepted(&sub("m-1"));
    assert_eq!(sent.refused(&sub("m-1")), None);
}

#[test]
fn a_file_whose_put_was_refused_is_described_and_not_given_back() {
    let mut sent = sent_one();
    assert_eq!(
        sent.put_refused(&sub("p-2"), ErrorCode::AttachmentIdTaken),
        Some(PutRefused { name: "plan.txt".to_owned(), code: ErrorCode::AttachmentIdTaken })
    );
    assert_eq!(sent.put_refused(&sub("other"), ErrorCode::InvalidCommand), None);
    let back = sent.refused(&sub("m-1")).expect("given back");
    let names: Vec<&str> = back.files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["notes.txt"]);
    assert!(back.lost_files);
}

#[test]
fn a_file_given_back_is_only_named_in_its_thread_and_goes_under_a_new_id_elsewhere() {
    let mut notes = PendingFile { stored_in: Some(thread("t-1")), ..file("att-1", "notes.txt") };
    let fresh = || Some(AttachmentId::new("att-9").unwrap());
    assert_eq!(sending(&mut notes, &thread("t-1"), fresh), Sending::Named);
    assert_eq!(notes.id.as_str(), "att-1");
    assert_eq!(sending(&mut notes, &thread("t-2"), fresh), Sending::Put);
    assert_eq!((notes.id.as_str(), notes.stored_in.clone()), ("att-9", None));
    let mut new = file("att-3", "new.txt");
    assert_eq!(sending(&mut new, &thread("t-2"), fresh), Sending::Put);
    assert_eq!(new.id.as_str(), "att-3", "a file not stored anywhere keeps its id");
}
