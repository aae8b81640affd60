//! Unit tests of attachments: base64 sizes, size texts, which file an `upload_file` names, file
//! names that are refused.

use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;
use crate::context::size_text;

#[test]
fn decoded_len_counts_the_bytes_of_base64_and_refuses_what_is_not() {
    let cases = [
        ("", Some(0)),
        ("aA==", Some(1)),
        ("aGk=", Some(2)),
        ("aGk", Some(2)),
        ("aGVsbG8gd29ybGQ=", Some(11)),
        ("AAAA", Some(3)),
        ("A", None),
        ("aGk*", None),
        ("aG k=", None),
    ];
    for (text, want) in cases {
        assert_eq!(decoded_len(text), want, "{text:?}");
    }
}

#[test]
fn sizes_read_in_bytes_kb_and_mb() {
    let cases = [
        (0, "0 bytes"),
        (999, "999 bytes"),
        (1_000, "1 KB"),
        (120_400, "120 KB"),
        (999_499, "999 KB"),
        (999_500, "1 MB"),
        (1_250_000, "1.3 MB"),
        (5_000_000, "5 MB"),
    ];
    for (bytes, want) in cases {
        assert_eq!(size_text(bytes), want, "{bytes}");
    }
}

fn file(id: &str, name: &str) -> FileOnPath {
    FileOnPath {
        id: AttachmentId::new(id).unwrap(),
        name: name.to_owned(),
        mime: "text/plain".to_owned(),
        size_bytes: 3,
    }
}

#[test]
fn upload_file_names_a_file_by_id_or_by_name_the_newest_of_that_name() {
    let files = [file("att-1", "a.txt"), file("att-2", "b.txt"), file("att-3", "a.txt")];
    let pick =
        |named: &str| chosen(&files, &json!({"attachment": named})).map(|f| f.id.to_string());
    assert_eq!(pick("att-1"), Ok("att-1".to_owned()));
    assert_eq!(pick("a.txt"), Ok("att-3".to_owned()));
    assert_eq!(pick(" b.txt "), Ok("att-2".to_owned()));
    assert_eq!(
        pick("att-9"),
        Err("`att-9` is not a file the user attached in this chat; upload_file takes only those. \
             Attached: a.txt (att-1), b.txt (att-2), a.txt (att-3)."
            .to_owned())
    );
    assert_eq!(
        chosen(&[], &json!({"attachment": "x"})).map(|f| f.id.to_string()),
        Err("`x` is not a file the user attached in this chat; upload_file takes only those. \
             The user attached none; ask them to attach the file to a message."
            .to_owned())
    );
}

#[test]
fn file_names_with_folders_or_control_characters_are_refused() {
    assert_eq!(name_problem("report.pdf"), None);
    assert!(name_problem("").is_some());
    assert!(name_problem("../etc/passwd").is_some());
    assert!(name_problem("a\\b").is_some());
    assert!(name_problem("a\nb").is_some());
    assert!(name_problem(&"x".repeat(256)).is_some());
}
