//! Tests of the urls module.

use pretty_assertions::assert_eq;

use super::*;

#[test]
fn a_connection_needs_access_to_its_origin_only() {
    assert_eq!(
        origin_of("https://API.example.com/v1/").as_deref(),
        Some("https://api.example.com")
    );
    assert_eq!(origin_of("http://127.0.0.1:11434/v1").as_deref(), Some("http://127.0.0.1:11434"));
    assert_eq!(origin_of("not a url"), None);
}

