//! Tests of the composer's files: the limits, size labels, the chips of a sent message, the
//! `attachment.put` of a file and the base64 of a data URL.

use panelot_protocol::engine::ContextBlock;
use panelot_protocol::engine::ContextKind;
use panelot_protocol::engine::Provenance;
use panelot_protocol::engine::Trust;
use pretty_assertions::assert_eq;

use super::*;

fn picked(name: &str, size_bytes: u64) -> PickedFile {
    PickedFile { name: name.to_owned(), size_bytes }
}

fn pending(n: usize, size_bytes: u64) -> PendingFile {
    PendingFile {
        id: AttachmentId::new(format!("att-{n}")).unwrap(),
        name: format!("f{n}.txt"),
        mime: "text/plain".to_owned(),
        size_bytes,
        data_base64: String::new(),
        stored_in: None,
    }
}

#[test]
fn a_file_over_5_mb_is_refused_and_the_others_join() {
    let got = admit(
        &[],
        &[picked("a.pdf", 120_000), picked("big.mov", 5_000_001), picked("b.png", 5_000_000)],
    );
    assert_eq!(got, [Ok(()), Err(FileRefusal::TooLarge { name: "big.mov".into() }), Ok(())]);
}

#[test]
fn the_files_of_a_message_together_stay_under_10_mb_and_10_files() {
    let attached = [pending(1, 4_000_000), pending(2, 4_000_000)];
    let got = admit(&attached, &[picked("c.bin", 3_000_000), picked("d.txt", 2_000_000)]);
    assert_eq!(got, [Err(FileRefusal::MessageTooLarge { name: "c.bin".into() }), Ok(())]);
    let ten: Vec<PendingFile> = (0..10).map(|n| pending(n, 1)).collect();
    assert_eq!(
        admit(&ten, &[picked("e.txt", 1)]),
        [Err(FileRefusal::TooMany { name: "e.txt".into() })]
    );
    // Each accepted file counts for the next one.
    let nine: Vec<PendingFile> = (0..9).map(|n| pending(n, 1)).collect();
    assert_eq!(
        admit(&nine, &[picked("x", 1), picked("y", 1)]),
        [Ok(()), Err(FileRefusal::TooMany { name: "y".into() })]
    );
}

#[test]
fn sizes_read_as_a_person_reads_them() {
    let got: Vec<String> =
        [0, 999, 1_000, 120_400, 999_499, 999_500, 1_250_000, 5_000_000].map(size_label).into();
    assert_eq!(got, ["0 B", "999 B", "1 KB", "120 KB", "999 KB", "1 MB", "1.3 MB", "5 MB"]);
}

#[test]
fn a_sent_message_shows_the_chips_of_its_file_blocks_only() {
    let block = |label: &str, content| ContextBlock {
        kind: ContextKind::File,
        label: label.to_owned(),
        origin: None,
        trust: Trust::Trusted,
        provenance: Provenance::User,
        source_ref: None,
        tab: None,
        content,
        approx_tokens: None,
    };
    let input = UserInput {
        text: "see".into(),
        attached_context: vec![
            block("page", ContextContent::Empty),
            block(
                "report.pdf",
                ContextContent::File {
                    attachment_id: AttachmentId::new("att-1").unwrap(),
                    mime: "application/pdf".into(),
                    size_bytes: 120_000,
                },
            ),
        ],
        ..UserInput::default()
    };
    let chip = FileChip { id: "att-1".into(), name: "report.pdf".into(), size_bytes: 120_000 };
    assert_eq!(chips_of(&input), [chip]);
}

#[test]
fn a_put_carries_the_file_and_a_data_url_gives_its_base64() {
    let thread = ThreadId::new("t-1").unwrap();
    let op = put_op(SubmissionId::new("s-1").unwrap(), thread, pending(1, 3));
    let json = serde_json::to_value(&op).unwrap();
    assert_eq!(json["type"], "attachment.put");
    assert_eq!(json["attachmentId"], "att-1");
    assert_eq!(json["name"], "f1.txt");
    assert_eq!(base64_of_data_url("data:text/plain;base64,QUJD"), Some("QUJD"));
    assert_eq!(base64_of_data_url("data:application/octet-stream;base64,"), Some(""));
    assert_eq!(base64_of_data_url("data:text/plain,ABC"), None);
}
