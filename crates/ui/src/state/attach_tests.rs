//! Tests of the attach module.

use pretty_assertions::assert_eq;

use super::*;

#[test]
fn a_page_is_attached_as_untrusted_page_content_and_an_empty_selection_is_not() {
    let read = PageRead::from_json(&serde_json::json!({"url": "https://a.example/x?q=1",
        "title": "A page", "selection": "  ", "text": " Body text "}));
    assert_eq!(context_block(Attach::Selection, &read, None), None);
    let block = context_block(Attach::Page, &read, None).unwrap();
    assert_eq!(block.kind, ContextKind::Page);
    assert_eq!(block.label, "A page");
    assert_eq!(block.origin.as_deref(), Some("https://a.example"));
    assert_eq!((block.trust, block.provenance), (Trust::Untrusted, Provenance::Page));
    assert_eq!(block.content, ContextContent::Text { text: "Body text".to_owned() });
    assert_eq!(block.approx_tokens, Some(3));
    // A page of a known tab is read by the engine (a snapshot with refs), so no text is sent.
    let tab = TabRef { tab_id: 4, window_id: None, url: read.url.clone(), title: "A page".into() };
    let live = context_block(Attach::Page, &read, Some(tab.clone())).unwrap();
    assert_eq!((live.content, live.tab), (ContextContent::Empty, Some(tab)));
    let read = PageRead { selection: "chosen words".to_owned(), ..read };
    let block = context_block(Attach::Selection, &read, None).unwrap();
    assert_eq!(
        (block.kind, block.label.as_str()),
        (ContextKind::Selection, "“chosen words” · A page")
    );
}
