//! Tests of the SSE parser: framing rules from the WHATWG spec and chunking invariance.

use pretty_assertions::assert_eq;
use proptest::prelude::*;

use super::SseError;
use super::SseEvent;
use super::SseParser;

fn ev(event: Option<&str>, data: &str, id: Option<&str>) -> SseEvent {
    SseEvent { event: event.map(str::to_owned), data: data.to_owned(), id: id.map(str::to_owned) }
}

/// Parses `body` fed in the given chunk sizes (cycled), finish included.
fn parse_chunked(body: &[u8], sizes: &[usize], max: usize) -> Result<Vec<SseEvent>, SseError> {
    let mut parser = SseParser::with_max_event_bytes(max);
    let mut events = Vec::new();
    let mut rest = body;
    let mut i = 0;
    while !rest.is_empty() {
        let n =
            sizes.get(i % sizes.len().max(1)).copied().unwrap_or(rest.len()).clamp(1, rest.len());
        let (chunk, tail) = rest.split_at(n);
        events.extend(parser.feed(chunk)?);
        rest = tail;
        i += 1;
    }
    events.extend(parser.finish());
    Ok(events)
}

#[track_caller]
fn check(body: &str, expect: &[SseEvent]) {
    // Whole, then byte by byte: both must agree with the expectation.
    assert_eq!(parse_chunked(body.as_bytes(), &[], usize::MAX).unwrap(), expect);
    assert_eq!(parse_chunked(body.as_bytes(), &[1], usize::MAX).unwrap(), expect);
}

#[test]
fn single_data_line() {
    check("data: hello\n\n", &[ev(None, "hello", None)]);
}

#[test]
fn multi_line_data_is_joined_with_newlines() {
    check("data: a\ndata:b\ndata:  c\n\n", &[ev(None, "a\nb\n c", None)]);
}

#[test]
fn event_and_id_fields() {
    check(
        "event: message_start\nid: 7\ndata: {}\n\ndata: x\n\n",
        // The id persists to later events, as the spec's last-event-id does.
        &[ev(Some("message_start"), "{}", Some("7")), ev(None, "x", Some("7"))],
    );
}

#[test]
fn comments_and_unknown_fields_are_ignored() {
    check(": OPENROUTER PROCESSING\n\nfoo: bar\ndata: 1\n: keepalive\n\n", &[ev(None, "1", None)]);
}

#[test]
fn every_line_ending() {
    check(
        "data: a\r\n\r\ndata: b\r\rdata: c\n\n",
        &[ev(None, "a", None), ev(None, "b", None), ev(None, "c", None)],
    );
}

#[test]
fn crlf_split_across_chunks_is_one_line_ending() {
    let mut parser = SseParser::default();
    assert_eq!(parser.feed(b"data: a\r").unwrap(), vec![]);
    // If the LF were a second line ending, this would dispatch an event here.
    assert_eq!(parser.feed(b"\n").unwrap(), vec![]);
    assert_eq!(parser.feed(b"data: b\r").unwrap(), vec![]);
    assert_eq!(parser.feed(b"\n\r").unwrap(), vec![ev(None, "a\nb", None)]);
    assert_eq!(parser.feed(b"\n").unwrap(), vec![]);
}

#[test]
fn leading_bom_is_skipped_even_when_split() {
    let body = b"\xEF\xBB\xBFdata: x\n\n";
    assert_eq!(parse_chunked(body, &[1], usize::MAX).unwrap(), vec![ev(None, "x", None)]);
    assert_eq!(parse_chunked(body, &[2, 5], usize::MAX).unwrap(), vec![ev(None, "x", None)]);
}

#[test]
fn a_bom_prefix_that_is_not_a_bom_is_content() {
    // 0xEF 0xBB then 'd': the two bytes are (invalid UTF-8) content of an unknown field.
    let body = b"\xEF\xBBdata: x\n\ndata: y\n\n";
    assert_eq!(parse_chunked(body, &[1], usize::MAX).unwrap(), vec![ev(None, "y", None)]);
}

#[test]
fn field_without_colon_and_empty_data() {
    check("data\n\ndata:\ndata:\n\n", &[ev(None, "", None), ev(None, "\n", None)]);
}

#[test]
fn event_without_data_is_not_dispatched() {
    check("event: ping\n\ndata: x\n\n", &[ev(None, "x", None)]);
}

#[test]
fn invalid_utf8_is_replaced_not_rejected() {
    assert_eq!(
        parse_chunked(b"data: a\xFFb\n\n", &[1], usize::MAX).unwrap(),
        vec![ev(None, "a\u{FFFD}b", None)]
    );
}

#[test]
fn finish_drops_an_unterminated_line_but_keeps_complete_lines() {
    let mut parser = SseParser::default();
    assert_eq!(parser.feed(b"data: [DONE]\n").unwrap(), vec![]);
    assert_eq!(parser.finish(), Some(ev(None, "[DONE]", None)));

    let mut parser = SseParser::default();
    assert_eq!(parser.feed(b"data: {\"trunc").unwrap(), vec![]);
    assert_eq!(parser.finish(), None);
}

#[test]
fn retry_field_is_recorded() {
    let mut parser = SseParser::default();
    parser.feed(b"retry: 1500\nretry: x\n\n").unwrap();
    assert_eq!(parser.retry_ms(), Some(1500));
}

#[test]
fn oversized_event_is_an_error_and_sticks() {
    let mut parser = SseParser::with_max_event_bytes(16);
    let err = parser.feed(b"data: 0123456789\ndata: 0123456789\n").unwrap_err();
    assert_eq!(err, SseError::EventTooLarge { limit: 16 });
    assert_eq!(parser.feed(b"\n").unwrap_err(), err);
    assert_eq!(parser.finish(), None);
}

#[test]
fn oversized_line_split_across_chunks_is_an_error() {
    let mut parser = SseParser::with_max_event_bytes(64);
    parser.feed(b"data: ").unwrap();
    let chunk = [b'x'; 40];
    parser.feed(&chunk).unwrap();
    assert_eq!(parser.feed(&chunk), Err(SseError::EventTooLarge { limit: 64 }));
}

#[test]
fn garbage_without_newlines_is_not_buffered() {
    let mut parser = SseParser::with_max_event_bytes(1024);
    let garbage = vec![b'<'; 1 << 20];
    for _ in 0..10 {
        assert_eq!(parser.feed(&garbage).unwrap(), vec![]);
    }
    // The unknown line was dropped, not kept: its capacity stays tiny.
    assert!(parser.line.capacity() < 64, "buffered {}", parser.line.capacity());
    assert_eq!(parser.finish(), None);
}

#[test]
fn long_comment_never_counts_against_the_cap() {
    let mut body = b": ".to_vec();
    body.extend(std::iter::repeat_n(b'x', 1000));
    body.extend_from_slice(b"\ndata: ok\n\n");
    assert_eq!(parse_chunked(&body, &[], 32).unwrap(), vec![ev(None, "ok", None)]);
    assert_eq!(parse_chunked(&body, &[7], 32).unwrap(), vec![ev(None, "ok", None)]);
}

/// Building blocks of bodies that exercise every rule, with every line ending.
fn body_strategy() -> impl Strategy<Value = Vec<u8>> {
    let line_end = prop_oneof![Just("\n"), Just("\r\n"), Just("\r")];
    let piece = prop_oneof![
        "[a-z{}\":, ]{0,12}".prop_map(|s| format!("data: {s}")),
        "[a-z_]{0,8}".prop_map(|s| format!("event: {s}")),
        "[0-9]{0,3}".prop_map(|s| format!("id: {s}")),
        "[ -~]{0,10}".prop_map(|s| format!(":{s}")),
        "[a-z]{0,7}".prop_map(|s| format!("{s}: v")),
        Just(String::new()),
        Just("data".to_owned()),
        Just("retry: 10".to_owned()),
        Just("data: é✓".to_owned()),
    ];
    (any::<bool>(), proptest::collection::vec((piece, line_end), 0..40), any::<bool>()).prop_map(
        |(bom, lines, cut)| {
            let mut body = if bom { vec![0xEF, 0xBB, 0xBF] } else { Vec::new() };
            for (line, end) in lines {
                body.extend_from_slice(line.as_bytes());
                body.extend_from_slice(end.as_bytes());
            }
            if cut {
                body.extend_from_slice(b"data: trunc");
            }
            body
        },
    )
}

proptest! {
    #[test]
    fn any_chunking_gives_the_same_events(
        body in body_strategy(),
        sizes in proptest::collection::vec(1usize..9, 1..8),
        max in prop_oneof![Just(usize::MAX), 8usize..64],
    ) {
        let whole = parse_chunked(&body, &[], max);
        let chunked = parse_chunked(&body, &sizes, max);
        let bytewise = parse_chunked(&body, &[1], max);
        prop_assert_eq!(&whole, &chunked);
        prop_assert_eq!(&whole, &bytewise);
    }

    #[test]
    fn arbitrary_bytes_never_panic(body in proptest::collection::vec(any::<u8>(), 0..512), sizes in proptest::collection::vec(1usize..17, 1..4)) {
        let whole = parse_chunked(&body, &[], 128);
        prop_assert_eq!(whole, parse_chunked(&body, &sizes, 128));
    }
}
