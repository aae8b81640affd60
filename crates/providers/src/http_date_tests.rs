//! Tests of HTTP-date parsing.

use pretty_assertions::assert_eq;

use super::parse_http_date;

/// 1994-11-06T08:49:37Z, the RFC's example.
const EXAMPLE_MS: u64 = 784_111_777_000;

#[test]
fn all_three_forms_of_the_rfc_example() {
    assert_eq!(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"), Some(EXAMPLE_MS));
    assert_eq!(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"), Some(EXAMPLE_MS));
    assert_eq!(parse_http_date("Sun Nov  6 08:49:37 1994"), Some(EXAMPLE_MS));
}

#[test]
fn epoch_leap_day_and_a_recent_date() {
    assert_eq!(parse_http_date("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0));
    assert_eq!(parse_http_date("Thu, 29 Feb 2024 12:00:00 GMT"), Some(1_709_208_000_000));
    assert_eq!(parse_http_date("Wed, 21 Oct 2015 07:28:00 GMT"), Some(1_445_412_480_000));
}

#[test]
fn malformed_dates_are_rejected() {
    for text in [
        "",
        "120",
        "Sun, 06 Nov 1994 08:49:37 UTC",
        "Sun, 6 Nov 1994 08:49:37 GMT",
        "Sun, 06 Foo 1994 08:49:37 GMT",
        "Sun, 31 Nov 1994 08:49:37 GMT",
        "Sun, 29 Feb 2023 08:49:37 GMT",
        "Sun, 06 Nov 1994 24:00:00 GMT",
        "Sun, 06 Nov 1994 08:49 GMT",
        "Sun, 06 Nov 1969 08:49:37 GMT",
        "Xyz, 06 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 08:49:+7 GMT",
    ] {
        assert_eq!(parse_http_date(text), None, "{text:?}");
    }
}
