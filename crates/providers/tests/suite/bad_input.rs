//! Bad input: truncated streams, garbage, oversized events, HTML instead of SSE. Every case must
//! end in a typed error (never a panic, never a success that was not sent).

use panelot_core::model::ModelResponse;
use panelot_core::model::ProviderError;
use panelot_protocol::engine::ProviderErrorKind;
use panelot_providers::Quirks;
use panelot_providers::StreamAdapter;
use panelot_providers::StreamDecoder;
use panelot_providers::ToolCallIds;
use panelot_providers::anthropic::AnthropicStream;
use panelot_providers::openai::OpenAiStream;
use pretty_assertions::assert_eq;

use super::replay::Chunking;
use super::replay::Wire;
use super::replay::replay;

fn decode<A: StreamAdapter>(
    mut decoder: StreamDecoder<A>,
    body: &[u8],
    chunk: usize,
) -> Result<ModelResponse, ProviderError> {
    let mut events = Vec::new();
    for piece in body.chunks(chunk) {
        decoder.feed_into(piece, &mut events)?;
        // A hostile body must not make the caller hold unbounded events either.
        events.clear();
    }
    decoder.finish(&mut events)
}

fn both(body: &[u8], chunk: usize) -> [Result<ModelResponse, ProviderError>; 2] {
    [
        decode(
            StreamDecoder::new(OpenAiStream::new(Quirks::default(), ToolCallIds::new("g"))),
            body,
            chunk,
        ),
        decode(StreamDecoder::new(AnthropicStream::new(ToolCallIds::new("g"))), body, chunk),
    ]
}

fn kind(res: &Result<ModelResponse, ProviderError>) -> Option<ProviderErrorKind> {
    res.as_ref().err().map(|err| err.kind)
}

/// Deterministic pseudo-random bytes.
fn garbage(len: usize, mut seed: u64) -> Vec<u8> {
    (0..len)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 24) as u8
        })
        .collect()
}

const TEN_MB: usize = 10 * 1024 * 1024;

#[test]
fn ten_megabytes_of_random_bytes_is_a_typed_error() {
    for res in both(&garbage(TEN_MB, 7), 64 * 1024) {
        assert!(res.is_err(), "{res:?}");
    }
}

#[test]
fn ten_megabytes_of_one_unterminated_data_line_is_incomplete() {
    let mut body = b"data: ".to_vec();
    body.resize(TEN_MB, b'x');
    for res in both(&body, 64 * 1024) {
        assert_eq!(kind(&res), Some(ProviderErrorKind::Network), "{res:?}");
    }
}

#[test]
fn an_event_over_sixteen_mebibytes_is_a_protocol_error() {
    let mut body = b"data: ".to_vec();
    body.resize(17 * 1024 * 1024, b'x');
    for res in both(&body, 1024 * 1024) {
        assert_eq!(kind(&res), Some(ProviderErrorKind::Protocol), "{res:?}");
    }
}

#[test]
fn json_garbage_in_events_is_a_protocol_error() {
    let body = "data: {\"choices\": [1, 2\n\n".repeat(1000);
    for res in both(body.as_bytes(), 4096) {
        assert_eq!(kind(&res), Some(ProviderErrorKind::Protocol), "{res:?}");
    }
}

#[test]
fn an_html_page_instead_of_a_stream_is_an_empty_response() {
    let body = b"<!DOCTYPE html>\n<html><head><title>Sign in to Wi-Fi</title></head>\n<body>data: not really</body></html>\n";
    for res in both(body, 16) {
        let err = res.expect_err("not a stream");
        assert_eq!(
            (err.kind, err.details.reason.as_deref()),
            (ProviderErrorKind::Network, Some("incomplete_response"))
        );
    }
}

/// Every complete transcript, cut at every byte: the result is an error, or (when only the
/// final blank line was missing) exactly the full result. A cut never yields a different
/// success.
#[test]
fn every_prefix_of_a_successful_transcript_fails_or_equals_the_whole() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let cases = [
        ("openai/text.sse", Wire::parse("openai", "")),
        ("openai/parallel_tool_calls.sse", Wire::parse("openai", "")),
        ("anthropic/thinking_tool_use.sse", Wire::parse("anthropic", "")),
        ("ollama/tool_calls_stop.sse", Wire::parse("openai", "noStreamOptions")),
    ];
    for (file, wire) in cases {
        let body = std::fs::read(dir.join(file)).expect("transcript");
        let whole = replay(wire, &body, Chunking::Whole);
        assert!(whole.contains("=> ok"), "{file} should succeed:\n{whole}");
        let outcome = |rendered: &str| {
            rendered.split_once("=> ").map(|(_, outcome)| outcome.to_owned()).unwrap_or_default()
        };
        for cut in 0..body.len() {
            let prefix = replay(wire, &body[..cut], Chunking::Whole);
            if prefix.contains("=> ok") {
                assert_eq!(outcome(&prefix), outcome(&whole), "{file} cut at {cut}");
            }
        }
    }
}
