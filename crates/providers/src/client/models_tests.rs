//! Tests of model-list parsing.

use pretty_assertions::assert_eq;

use super::parse_models;

#[test]
fn ids_are_taken_in_order_without_blanks_or_repeats() {
    let body = br#"{"object":"list","data":[{"id":"b"},{"id":""},{"id":7},{"name":"x"},{"id":"a"},{"id":"b"}]}"#;
    assert_eq!(parse_models(body).unwrap(), ["b", "a"]);
}

#[test]
fn other_shapes_are_protocol_errors() {
    for body in [&b"<html>"[..], b"[]", br#"{"data":{"id":"a"}}"#, br#"{"models":[]}"#] {
        let err = parse_models(body).unwrap_err();
        assert_eq!(err.details.reason.as_deref(), Some("response_format"), "{body:?}");
    }
}
