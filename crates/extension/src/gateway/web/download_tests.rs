//! What `download` asks the browser for and what it tells the model, over plain data.

use panelot_core::engine::ToolStatus;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

fn said(outcome: &ToolOutcome) -> String {
    match &outcome.status {
        ToolStatus::Done { content } => content.clone(),
        ToolStatus::Failed { message, .. } => format!("Error: {message}"),
    }
}

#[test]
fn a_url_needs_its_site_and_an_artifact_becomes_a_data_url() {
    let url = plan_of(&json!({"url": "https://files.example/r.pdf?x=1"})).unwrap();
    assert_eq!(url.origin.as_deref(), Some("https://files.example"));
    assert_eq!(url.filename, None);
    let artifact = plan_of(&json!({"artifact": "a b.md", handed::CONTENT: "# Hi, ü&%",
        handed::MIME: "text/markdown;charset=utf-8"}))
    .unwrap();
    assert_eq!(artifact.url, "data:text/markdown;charset=utf-8,%23%20Hi%2C%20%C3%BC%26%25");
    assert_eq!(artifact.filename.as_deref(), Some("a b.md"));
    assert_eq!(artifact.origin, None);
    assert_eq!(artifact.what, "the artifact \"a b.md\"");
    let renamed = plan_of(&json!({"artifact": "a.md", "filename": "b.md", handed::CONTENT: ""}));
    assert_eq!(renamed.unwrap().filename.as_deref(), Some("b.md"));
    assert_eq!(
        plan_of(&json!({"artifact": "a.md"})).unwrap_err(),
        "the artifact \"a.md\" was not handed over to download"
    );
    assert!(plan_of(&json!({"url": "file:///etc/passwd"})).is_err());
}

#[test]
fn the_result_says_where_the_file_went_or_why_it_did_not() {
    let done = Item {
        state: "complete".into(),
        filename: "/home/ada/Downloads/r.pdf".into(),
        bytes_received: 12_345.0,
        ..Item::default()
    };
    assert_eq!(
        said(&report(&done, "https://files.example/r.pdf")),
        "Downloaded https://files.example/r.pdf to /home/ada/Downloads/r.pdf (12.3 KB)."
    );
    let cut = Item {
        state: "interrupted".into(),
        error: Some("SERVER_FORBIDDEN".into()),
        ..Item::default()
    };
    assert_eq!(
        said(&report(&cut, "the artifact \"a.md\"")),
        "Error: the download of the artifact \"a.md\" was interrupted: the server refused it \
         (SERVER_FORBIDDEN)"
    );
    let running = Item {
        state: "in_progress".into(),
        filename: "/d/big.iso".into(),
        bytes_received: 2_000_000.0,
        total_bytes: 8_000_000.0,
        ..Item::default()
    };
    assert_eq!(
        said(&report(&running, "https://x.example/big.iso")),
        "Still downloading https://x.example/big.iso to /d/big.iso (2.0 MB of 8.0 MB so far); it \
         goes on in the browser's downloads."
    );
}
