//! Events are decoded by UIs: unknown types are reported, malformed known ones are errors, and
//! nothing panics.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(frame) = panelot_protocol::decode_event_str(text) {
        let again = frame.to_value().expect("an event always encodes");
        assert_eq!(panelot_protocol::decode_event(again).expect("re-decodes"), frame);
    }
});
