//! Page-executor results come from a tab, that is from a possibly hostile page: decoding must
//! never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use panelot_protocol::Budget;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(value) = panelot_protocol::parse_budgeted(text, &Budget::CONTENT) else { return };
    let _ = panelot_protocol::decode_content_response(value.clone());
    let _ = panelot_protocol::decode_content_request(value);
});
