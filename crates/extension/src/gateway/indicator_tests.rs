//! The indicator's messages: taken only from this extension's script in a tab's top frame.

use pretty_assertions::assert_eq;

use super::*;

const ORIGIN: &str = "chrome-extension://abcdefghijklmnopabcdefghijklmnop/";

fn page() -> Sender<'static> {
    Sender {
        extension_id: "abcdefghijklmnopabcdefghijklmnop",
        tab: Some(12),
        frame: 0,
        url: "https://shop.test/cart",
    }
}

fn run() -> RunId {
    RunId::new("r-1").unwrap()
}

#[test]
fn each_kind_from_the_extensions_script_in_a_top_frame_is_a_signal() {
    for (kind, expected) in [
        ("pause", PageSignalKind::Pause),
        ("stop", PageSignalKind::Stop),
        ("takeover", PageSignalKind::TookOver),
    ] {
        assert_eq!(
            signal(kind, "r-1", &page(), ORIGIN),
            Some(PageSignal { tab: 12, run_id: run(), kind: expected })
        );
    }
}

#[test]
fn anything_else_is_dropped() {
    let refused = [
        // Another extension.
        Sender { extension_id: "ponmlkjihgfedcbaponmlkjihgfedcba", ..page() },
        // A frame inside the page.
        Sender { frame: 3, ..page() },
        // No tab: an extension page such as the side panel.
        Sender {
            tab: None,
            url: "chrome-extension://abcdefghijklmnopabcdefghijklmnop/sidepanel.html",
            ..page()
        },
        // The chat page in a tab.
        Sender { url: "chrome-extension://abcdefghijklmnopabcdefghijklmnop/chat.html", ..page() },
    ];
    for sender in refused {
        assert_eq!(signal("stop", "r-1", &sender, ORIGIN), None, "{sender:?}");
    }
    assert_eq!(signal("click", "r-1", &page(), ORIGIN), None);
    assert_eq!(signal("stop", "", &page(), ORIGIN), None);
    assert_eq!(signal("stop", "r-1", &page(), "https://not-an-extension/"), None);
}
