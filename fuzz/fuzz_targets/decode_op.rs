//! Ops arrive from UI pages: any bytes must decode or fail with a typed error, never panic, and a
//! decoded Op must survive re-encoding.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(op) = panelot_protocol::decode_op_str(text) {
        let again = serde_json::to_value(&op).expect("an Op always encodes");
        let round = panelot_protocol::decode_op(again).expect("an encoded Op decodes");
        assert_eq!(round, op);
        let _ = panelot_protocol::command_fingerprint(&op);
    }
});
